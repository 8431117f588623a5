//! The progressive-mesh builder of NeL's `CMRMBuilder` (mrm_builder.cpp):
//! per-vertex attribute wedges, edge collapses ordered by NeL's cost (edge
//! length times curvature, ×4 across discontinuities), LODs from coarsest
//! to finest, and the final wedge list where each LOD's corners either use a
//! wedge directly or a geomorph slot blending the wedge toward the wedge it
//! becomes in the next coarser LOD.
//!
//! The collapse order follows NeL's: a priority list of (cost, face edge)
//! entries in insertion order for equal costs, the same interpolation choices
//! (open and discontinuous vertices stay put) and the same wedge merging
//! rules. NeL's cost reads the curvature of the wrong faces (it indexes the
//! mesh's first faces instead of the vertex's); that is kept, since it decides
//! the order. Mesh sewing interfaces and blend shapes are not built.

use std::collections::{BTreeMap, HashMap};

/// `NL3D_MRM_MAX_ATTRIB`: normal, two colours and eight UV sets fit.
pub const MAX_ATTRIB: usize = 12;
/// `NL3D_MESH_SKINNING_MAX_MATRIX`.
pub const MAX_MATRIX: usize = 4;
/// LOD counts above this are refused (NeL's default is 11).
pub const MAX_LODS: u32 = 256;

/// `CMesh::CSkinWeight`: matrix ids and weights, heaviest first once normalized.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SkinWeight {
    pub matrix: [u32; MAX_MATRIX],
    pub weight: [f32; MAX_MATRIX],
}

/// `CMRMParameters::TSkinReduction`: how many matrices a blended weight keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkinReduction {
    Min,
    Max,
    Best,
}

/// `CMRMParameters` (the build part; distances are carried by the caller).
#[derive(Debug, Clone, Copy)]
pub struct Params {
    pub n_lods: u32,
    pub divisor: u32,
    pub skin_reduction: SkinReduction,
}

/// One corner: a vertex and, per attribute, a wedge index into that
/// attribute's value list.
#[derive(Debug, Clone, Copy, Default)]
pub struct Corner {
    pub vertex: u32,
    pub attribs: [u32; MAX_ATTRIB],
}

/// One face with its material.
#[derive(Debug, Clone, Copy, Default)]
pub struct Face {
    pub material: usize,
    pub corners: [Corner; 3],
}

/// `CMRMMesh`: vertices, optional skin weights (one per vertex), and per
/// attribute the wedge values (normals, colours as 0..255, UVWs).
#[derive(Debug, Clone, Default)]
pub struct BaseMesh {
    pub vertices: Vec<[f32; 3]>,
    pub skin: Option<Vec<SkinWeight>>,
    pub num_attribs: usize,
    pub attribs: Vec<Vec<[f32; 4]>>,
    pub faces: Vec<Face>,
}

/// One final wedge: position, attributes and skin weight.
#[derive(Debug, Clone, Copy, Default)]
pub struct Wedge {
    pub pos: [f32; 3],
    pub attribs: [[f32; 4]; MAX_ATTRIB],
    pub skin: SkinWeight,
    /// Matrices with a non-zero weight (0 for geomorph slots).
    pub n_skin_mat_used: usize,
}

/// One LOD of the final mesh: the wedges it needs (`0..n_wedges`), its faces
/// (material, wedge triple) and its geomorphs (slot `i` blends wedge `.0`,
/// this LOD's value, toward `.1`, the coarser LOD's value).
#[derive(Debug, Clone, Default)]
pub struct Lod {
    pub n_wedges: usize,
    pub faces: Vec<(usize, [u32; 3])>,
    pub geomorphs: Vec<(u32, u32)>,
}

/// `CMRMMeshFinal`: the first `n_geom_space` wedges are geomorph slots
/// (filled at run time), then every LOD's wedges, coarsest LOD first.
#[derive(Debug, Clone, Default)]
pub struct FinalMesh {
    pub wedges: Vec<Wedge>,
    pub n_geom_space: usize,
    pub lods: Vec<Lod>,
    pub skinned: bool,
}

/// A mesh level with, per face, the corners it takes in the next coarser level.
struct LevelMesh {
    mesh: BaseMesh,
    coarser_faces: Vec<Face>,
}

/// Builds every LOD and the final wedge list (`compileMRM` after the base
/// mesh is made).
pub fn build(base: &BaseMesh, params: &Params) -> Result<FinalMesh, String> {
    if params.n_lods == 0 || params.n_lods > MAX_LODS {
        return Err(format!(
            "MRM lod count {} is outside 1..={MAX_LODS}",
            params.n_lods
        ));
    }
    if params.divisor == 0 {
        return Err("MRM divisor is 0".into());
    }
    check(base)?;
    let mut base = base.clone();
    if let Some(sk) = base.skin.as_mut() {
        for w in sk.iter_mut() {
            *w = normalize_skin(w);
        }
    }
    let levels = all_lods(&base, params);
    Ok(final_mesh(&levels, base.num_attribs, base.skin.is_some()))
}

/// Every index in range, so the collapse never reads outside its arrays.
fn check(m: &BaseMesh) -> Result<(), String> {
    if m.num_attribs > MAX_ATTRIB || m.attribs.len() < m.num_attribs {
        return Err(format!(
            "{} MRM attributes (at most {MAX_ATTRIB})",
            m.num_attribs
        ));
    }
    if let Some(sk) = &m.skin {
        if sk.len() != m.vertices.len() {
            return Err(format!(
                "{} skin weights for {} vertices",
                sk.len(),
                m.vertices.len()
            ));
        }
    }
    for (i, f) in m.faces.iter().enumerate() {
        for c in &f.corners {
            if c.vertex as usize >= m.vertices.len() {
                return Err(format!(
                    "face {i} uses vertex {} of {}",
                    c.vertex,
                    m.vertices.len()
                ));
            }
            for a in 0..m.num_attribs {
                if c.attribs[a] as usize >= m.attribs[a].len() {
                    return Err(format!(
                        "face {i} uses wedge {} of attribute {a}",
                        c.attribs[a]
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `buildAllLods`: the coarsest LOD keeps faces/divisor (at least 4), the
/// others are spread linearly in face count; each level collapses the
/// previous one.
fn all_lods(base: &BaseMesh, params: &Params) -> Vec<LevelMesh> {
    let n_lods = params.n_lods as i64;
    let n_faces = base.faces.len() as i64;
    let n_base = (n_faces / params.divisor as i64).max(4);
    let mut levels: Vec<Option<LevelMesh>> = (0..n_lods).map(|_| None).collect();
    let mut src = base.clone();
    for i in (1..n_lods).rev() {
        let wanted = (n_base + (n_faces - n_base) * (i - 1) / (n_lods - 1)).max(4);
        let mut b = Builder::new(&src, params.skin_reduction);
        b.collapse_edges(wanted);
        let coarser = b.coarser_mesh();
        let coarser_faces = b.lod_faces(&src.faces);
        levels[i as usize] = Some(LevelMesh {
            mesh: src,
            coarser_faces,
        });
        src = coarser;
    }
    let faces = src.faces.clone();
    levels[0] = Some(LevelMesh {
        mesh: src,
        coarser_faces: faces,
    });
    levels.into_iter().flatten().collect()
}

/// `normalizeSkinWeight`: non-zero weights sorted heaviest first, summing to 1.
fn normalize_skin(sw: &SkinWeight) -> SkinWeight {
    let mut ws: Vec<(u32, f32)> = (0..MAX_MATRIX)
        .filter(|&i| sw.weight[i] > 0.0)
        .map(|i| (sw.matrix[i], sw.weight[i]))
        .collect();
    ws.sort_by(|a, b| b.1.total_cmp(&a.1));
    let sum: f32 = ws.iter().map(|w| w.1).sum();
    let mut out = SkinWeight::default();
    for (i, (m, w)) in ws.into_iter().enumerate() {
        out.matrix[i] = m;
        out.weight[i] = w / sum;
    }
    out
}

/// Float key with a total order; equal costs keep insertion order through
/// the sequence number, as `std::multimap` does.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Cost(f32);
impl Eq for Cost {}
impl PartialOrd for Cost {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Cost {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}
type Key = (Cost, u64);

struct Vert {
    cur: [f32; 3],
    sw: SkinWeight,
    collapsed_to: i64,
    coarser: i64,
    shared: Vec<usize>,
}

struct Attr {
    cur: [f32; 4],
    /// -1 alive, -2 destroyed (kept for geomorphs), else merged into that wedge.
    collapsed_to: i64,
    coarser: i64,
    interp_face: usize,
    nb_shared: i64,
    shared: bool,
}

struct BFace {
    f: Face,
    deleted: bool,
    interp: [f32; 4],
    valid: [bool; 3],
    keys: [Key; 3],
}

impl BFace {
    fn edge(&self, e: usize) -> (u32, u32) {
        let c = &self.f.corners;
        (c[e].vertex, c[(e + 1) % 3].vertex)
    }
    fn has_vertex(&self, v: u32) -> bool {
        self.f.corners.iter().any(|c| c.vertex == v)
    }
    fn wedge_of(&self, a: usize, v: u32) -> Option<u32> {
        self.f
            .corners
            .iter()
            .find(|c| c.vertex == v)
            .map(|c| c.attribs[a])
    }
    fn has_wedge(&self, a: usize, w: u32) -> bool {
        self.f.corners.iter().any(|c| c.attribs[a] == w)
    }
}

struct Builder {
    na: usize,
    skinned: bool,
    reduction: SkinReduction,
    verts: Vec<Vert>,
    attrs: Vec<Vec<Attr>>,
    faces: Vec<BFace>,
    edges: BTreeMap<Key, (usize, usize, (u32, u32))>,
    seq: u64,
}

/// Whether every item equals the first.
fn all_same<T: PartialEq>(mut it: impl Iterator<Item = T>) -> bool {
    match it.next() {
        Some(first) => it.all(|x| x == first),
        None => true,
    }
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn norm(a: [f32; 3]) -> f32 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

impl Builder {
    /// `init`: working copies, shared faces per vertex, every face edge listed.
    fn new(m: &BaseMesh, reduction: SkinReduction) -> Builder {
        let skin = m.skin.as_deref();
        let verts = m
            .vertices
            .iter()
            .enumerate()
            .map(|(i, &p)| Vert {
                cur: p,
                sw: skin.and_then(|s| s.get(i)).copied().unwrap_or_default(),
                collapsed_to: -1,
                coarser: -1,
                shared: Vec::new(),
            })
            .collect();
        let attrs = (0..m.num_attribs)
            .map(|a| {
                m.attribs[a]
                    .iter()
                    .map(|&v| Attr {
                        cur: v,
                        collapsed_to: -1,
                        coarser: -1,
                        interp_face: 0,
                        nb_shared: 0,
                        shared: false,
                    })
                    .collect()
            })
            .collect();
        let faces = m
            .faces
            .iter()
            .map(|&f| BFace {
                f,
                deleted: false,
                interp: [0.0; 4],
                valid: [true; 3],
                keys: [(Cost(0.0), 0); 3],
            })
            .collect();
        let mut b = Builder {
            na: m.num_attribs,
            skinned: skin.is_some(),
            reduction,
            verts,
            attrs,
            faces,
            edges: BTreeMap::new(),
            seq: 0,
        };
        for (i, f) in m.faces.iter().enumerate() {
            for c in &f.corners {
                b.verts[c.vertex as usize].shared.push(i);
            }
        }
        for i in 0..b.faces.len() {
            b.insert_face(i);
        }
        b
    }

    fn insert_face(&mut self, fi: usize) {
        for e in 0..3 {
            if self.faces[fi].valid[e] {
                let edge = self.faces[fi].edge(e);
                let key = (Cost(self.edge_cost(edge)), self.seq);
                self.seq += 1;
                self.edges.insert(key, (fi, e, edge));
                self.faces[fi].keys[e] = key;
            }
        }
    }

    fn remove_face(&mut self, fi: usize) {
        for e in 0..3 {
            if self.faces[fi].valid[e] {
                self.edges.remove(&self.faces[fi].keys[e]);
            }
        }
    }

    fn vertex_has_one_wedge(&self, v: u32) -> bool {
        let vert = &self.verts[v as usize];
        (0..self.na).all(|a| {
            let mut w0: Option<Option<u32>> = None;
            vert.shared.iter().all(|&fi| {
                let w = self.faces[fi].wedge_of(a, v);
                match w0 {
                    Some(x) if x != w => false,
                    _ => {
                        w0 = Some(w);
                        true
                    }
                }
            })
        })
    }

    fn vertex_has_one_material(&self, v: u32) -> bool {
        let vert = &self.verts[v as usize];
        let mut m0 = None;
        vert.shared.iter().all(|&fi| {
            let m = self.faces[fi].f.material;
            match m0 {
                Some(x) if x != m => false,
                _ => {
                    m0 = Some(m);
                    true
                }
            }
        })
    }

    fn vertex_continue(&self, v: u32) -> bool {
        self.vertex_has_one_wedge(v) && self.vertex_has_one_material(v)
    }

    /// Whether every edge touching `v` is shared by two of its faces.
    fn vertex_closed(&self, v: u32) -> bool {
        let vert = &self.verts[v as usize];
        let key = |e: (u32, u32)| (e.0.max(e.1), e.0.min(e.1));
        let mut count: HashMap<(u32, u32), u32> = HashMap::new();
        for &fi in &vert.shared {
            for e in 0..3 {
                *count.entry(key(self.faces[fi].edge(e))).or_default() += 1;
            }
        }
        vert.shared.iter().all(|&fi| {
            (0..3).all(|e| {
                let edge = self.faces[fi].edge(e);
                let open = count.get(&key(edge)).copied().unwrap_or(0) < 2;
                !(open && (edge.0 == v || edge.1 == v))
            })
        })
    }

    /// `getDeltaFaceNormals`, reading faces `0..n` of the mesh as NeL does.
    fn delta_face_normals(&self, v: u32) -> f32 {
        let n = self.verts[v as usize].shared.len();
        if n < 2 {
            return 0.0;
        }
        let mut delta = 0.0f32;
        let mut reference = [0.0f32; 3];
        for i in 0..n {
            let Some(face) = self.faces.get(i) else {
                break;
            };
            let p = |k: usize| self.verts[face.f.corners[k].vertex as usize].cur;
            let (a, b) = (sub(p(1), p(0)), sub(p(2), p(0)));
            let mut nrm = [
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ];
            let l = norm(nrm);
            if l != 0.0 {
                nrm = nrm.map(|x| x / l);
            }
            if i == 0 {
                reference = nrm;
            } else {
                delta +=
                    1.0 - (reference[0] * nrm[0] + reference[1] * nrm[1] + reference[2] * nrm[2]);
            }
        }
        delta / (n - 1) as f32
    }

    /// Faces holding both vertices of the edge.
    fn edge_faces(&self, (v0, v1): (u32, u32)) -> Vec<usize> {
        self.verts[v0 as usize]
            .shared
            .iter()
            .copied()
            .filter(|&fi| self.faces[fi].has_vertex(v1))
            .collect()
    }

    /// The edge's faces agree on material and on each end's wedges.
    fn edge_continue(&self, edge: (u32, u32)) -> bool {
        let del = self.edge_faces(edge);
        let mats: Vec<usize> = del.iter().map(|&f| self.faces[f].f.material).collect();
        if mats.windows(2).any(|w| w[0] != w[1]) {
            return false;
        }
        (0..self.na).all(|a| {
            all_same(del.iter().map(|&f| self.faces[f].wedge_of(a, edge.0)))
                && all_same(del.iter().map(|&f| self.faces[f].wedge_of(a, edge.1)))
        })
    }

    fn edge_near_unique_mat_face(&self, edge: (u32, u32)) -> bool {
        self.edge_faces(edge).iter().any(|&fi| {
            let f = &self.faces[fi];
            (0..3).all(|e| !self.edge_continue(f.edge(e)))
        })
    }

    /// `computeEdgeCost`: cheaper collapses first.
    fn edge_cost(&self, edge: (u32, u32)) -> f32 {
        let (v1, v2) = edge;
        let mut cost = norm(sub(
            self.verts[v1 as usize].cur,
            self.verts[v2 as usize].cur,
        ));
        let face_cost = (self.delta_face_normals(v1) + self.delta_face_normals(v2)).max(0.01);
        cost *= face_cost;
        if !self.vertex_continue(v1)
            && !self.vertex_continue(v2)
            && (self.edge_continue(edge) || self.edge_near_unique_mat_face(edge))
        {
            cost *= 4.0;
        }
        cost
    }

    /// `collapseSkinWeight`: blend two weights, keep the heaviest matrices.
    fn collapse_skin(&self, a: &SkinWeight, b: &SkinWeight, t: f32) -> SkinWeight {
        if t == 0.0 {
            return *a;
        }
        if t == 1.0 {
            return *b;
        }
        let mut ws: Vec<(u32, f32)> = Vec::with_capacity(2 * MAX_MATRIX);
        let (mut n1, mut n2) = (0, 0);
        for i in 0..MAX_MATRIX {
            let w = a.weight[i] * (1.0 - t);
            if w > 0.0 {
                ws.push((a.matrix[i], w));
            }
            if a.weight[i] > 0.0 {
                n1 += 1;
            }
        }
        for i in 0..MAX_MATRIX {
            let w = b.weight[i] * t;
            if w > 0.0 {
                match ws.iter_mut().find(|x| x.0 == b.matrix[i]) {
                    Some(x) => x.1 += w,
                    None => ws.push((b.matrix[i], w)),
                }
            }
            if b.weight[i] > 0.0 {
                n2 += 1;
            }
        }
        ws.sort_by(|x, y| y.1.total_cmp(&x.1));
        let n = match self.reduction {
            SkinReduction::Min => n1.min(n2),
            SkinReduction::Max => n1.max(n2),
            SkinReduction::Best => ws.len().min(MAX_MATRIX),
        }
        .min(ws.len());
        let sum: f32 = ws[..n].iter().map(|w| w.1).sum();
        let mut out = SkinWeight::default();
        for (i, (m, w)) in ws.into_iter().take(n).enumerate() {
            out.matrix[i] = m;
            out.weight[i] = w / sum;
        }
        out
    }

    /// `collapseEdge`: `v2` goes onto `v1`; returns the number of faces removed.
    fn collapse_edge(&mut self, (e1, e2): (u32, u32)) -> usize {
        let (i1, i2) = (e1 as usize, e2 as usize);
        let (c1, c2) = (self.vertex_closed(e1), self.vertex_closed(e2));
        let mut t = 0.5f32;
        if !c1 && c2 {
            t = 0.0;
        } else if c1 && !c2 {
            t = 1.0;
        } else {
            let (k1, k2) = (self.vertex_continue(e1), self.vertex_continue(e2));
            if !k1 && k2 {
                t = 0.0;
            }
            if k1 && !k2 {
                t = 1.0;
            }
        }
        let (p1, p2) = (self.verts[i1].cur, self.verts[i2].cur);
        self.verts[i1].cur = std::array::from_fn(|k| p1[k] * (1.0 - t) + p2[k] * t);
        self.verts[i2].collapsed_to = e1 as i64;
        if self.skinned {
            let (s1, s2) = (self.verts[i1].sw, self.verts[i2].sw);
            self.verts[i1].sw = self.collapse_skin(&s1, &s2, t);
        }
        let faces = &self.faces;
        for i in [i1, i2] {
            self.verts[i].shared.retain(|&f| !faces[f].deleted);
        }
        let mut neighbours: Vec<usize> = Vec::new();
        for i in [i1, i2] {
            for &f in &self.verts[i].shared {
                if !neighbours.contains(&f) {
                    neighbours.push(f);
                }
            }
        }
        let deleted: Vec<usize> = self.verts[i1]
            .shared
            .iter()
            .copied()
            .filter(|&f| self.faces[f].has_vertex(e2))
            .collect();

        for a in 0..self.na {
            // a. The interpolated value on each removed face.
            for &fi in &deleted {
                let f = &self.faces[fi];
                let (Some(w0), Some(w1)) = (f.wedge_of(a, e1), f.wedge_of(a, e2)) else {
                    continue;
                };
                let (x0, x1) = (
                    self.attrs[a][w0 as usize].cur,
                    self.attrs[a][w1 as usize].cur,
                );
                self.faces[fi].interp = std::array::from_fn(|k| x0[k] * (1.0 - t) + x1[k] * t);
            }
            // b. The wedges around the edge.
            let mut wedges: Vec<u32> = Vec::new();
            for &fi in &neighbours {
                for v in [e1, e2] {
                    if let Some(w) = self.faces[fi].wedge_of(a, v) {
                        if !wedges.contains(&w) {
                            wedges.push(w);
                        }
                    }
                }
            }
            // c. How many surviving faces use each.
            for &w in &wedges {
                let mut nb = 0i64;
                let mut shared = false;
                let mut interp_face = 0;
                for &fi in &neighbours {
                    if self.faces[fi].has_wedge(a, w) {
                        nb += 1;
                    }
                }
                for &fi in &deleted {
                    if self.faces[fi].has_wedge(a, w) {
                        nb -= 1;
                        shared = true;
                        interp_face = fi;
                    }
                }
                let at = &mut self.attrs[a][w as usize];
                at.nb_shared = nb;
                at.shared = shared;
                at.interp_face = interp_face;
            }
            // d. Keep, destroy, or interpolate and merge.
            for &w in &wedges {
                let at = &self.attrs[a][w as usize];
                if !at.shared {
                    continue;
                }
                if at.nb_shared == 0 {
                    self.attrs[a][w as usize].collapsed_to = -2;
                    continue;
                }
                let fi = at.interp_face;
                let value = self.faces[fi].interp;
                self.attrs[a][w as usize].cur = value;
                let face = &self.faces[fi];
                if face.wedge_of(a, e2) == Some(w) && self.share_wedges(fi, a, e1, e2) {
                    if let Some(w1) = face.wedge_of(a, e1) {
                        self.attrs[a][w as usize].collapsed_to = w1 as i64;
                    }
                }
            }
        }
        for &fi in &deleted {
            self.faces[fi].deleted = true;
            self.remove_face(fi);
            self.faces[fi].valid = [false; 3];
            self.verts[i1].shared.retain(|&f| f != fi);
            self.verts[i2].shared.retain(|&f| f != fi);
        }
        for &fi in &neighbours {
            for k in 0..3 {
                let c = &mut self.faces[fi].f.corners[k];
                if c.vertex == e2 {
                    c.vertex = e1;
                }
                for a in 0..self.na {
                    let to = self.attrs[a][c.attribs[a] as usize].collapsed_to;
                    if to >= 0 {
                        c.attribs[a] = to as u32;
                    }
                }
            }
        }
        let moved = std::mem::take(&mut self.verts[i2].shared);
        self.verts[i1].shared.extend_from_slice(&moved);
        self.verts[i2].shared = moved;
        deleted.len()
    }

    /// `faceShareWedges`: both ends' wedges lost corners but survive.
    fn share_wedges(&self, fi: usize, a: usize, v1: u32, v2: u32) -> bool {
        let f = &self.faces[fi];
        let (Some(w1), Some(w2)) = (f.wedge_of(a, v1), f.wedge_of(a, v2)) else {
            return false;
        };
        let (x, y) = (&self.attrs[a][w1 as usize], &self.attrs[a][w2 as usize]);
        x.shared && y.shared && x.nb_shared > 0 && y.nb_shared > 0
    }

    /// `collapseEdges`: cheapest edge first until `wanted` faces remain.
    fn collapse_edges(&mut self, wanted: i64) {
        let mut current = self.faces.len() as i64;
        while current > wanted {
            let Some((&key, &(fi, slot, edge))) = self.edges.iter().next() else {
                break;
            };
            let dead = |v: u32| self.verts[v as usize].collapsed_to >= 0;
            if dead(edge.0) || dead(edge.1) || edge.0 == edge.1 {
                self.edges.remove(&key);
                self.faces[fi].valid[slot] = false;
                continue;
            }
            current -= self.collapse_edge(edge) as i64;
            // The kept vertex's faces get their edges re-costed.
            let around = self.verts[edge.0 as usize].shared.clone();
            for f in around {
                self.remove_face(f);
                self.insert_face(f);
            }
            // A popped entry whose face survived (degenerate input) is dropped.
            if self.edges.remove(&key).is_some() {
                self.faces[fi].valid[slot] = false;
            }
        }
    }

    /// `saveCoarserMesh`: surviving vertices and wedges renumbered; destroyed
    /// wedges are kept since finer LODs geomorph toward them.
    fn coarser_mesh(&mut self) -> BaseMesh {
        let mut out = BaseMesh {
            num_attribs: self.na,
            ..Default::default()
        };
        let mut skin = Vec::new();
        for v in self.verts.iter_mut() {
            if v.collapsed_to == -1 {
                v.coarser = out.vertices.len() as i64;
                out.vertices.push(v.cur);
                skin.push(v.sw);
            } else {
                v.coarser = -1;
            }
        }
        if self.skinned {
            out.skin = Some(skin);
        }
        for a in 0..self.na {
            let mut vals = Vec::new();
            for w in self.attrs[a].iter_mut() {
                if w.collapsed_to == -1 || w.collapsed_to == -2 {
                    w.coarser = vals.len() as i64;
                    vals.push(w.cur);
                } else {
                    w.coarser = -1;
                }
            }
            out.attribs.push(vals);
        }
        for f in self.faces.iter().filter(|f| !f.deleted) {
            let mut nf = f.f;
            for c in nf.corners.iter_mut() {
                c.vertex = self.verts[c.vertex as usize].coarser.max(0) as u32;
                for a in 0..self.na {
                    c.attribs[a] = self.attrs[a][c.attribs[a] as usize].coarser.max(0) as u32;
                }
            }
            out.faces.push(nf);
        }
        out
    }

    fn follow_vertex(&self, mut i: usize) -> usize {
        for _ in 0..=self.verts.len() {
            match self.verts[i].collapsed_to {
                t if t >= 0 => i = t as usize,
                _ => break,
            }
        }
        i
    }

    fn follow_wedge(&self, a: usize, mut i: usize) -> usize {
        for _ in 0..=self.attrs[a].len() {
            match self.attrs[a][i].collapsed_to {
                t if t >= 0 => i = t as usize,
                _ => break,
            }
        }
        i
    }

    /// `makeLODMesh`: the finer mesh's faces pointed at the coarser mesh's
    /// vertices and wedges (where each corner goes when morphed).
    fn lod_faces(&self, faces: &[Face]) -> Vec<Face> {
        faces
            .iter()
            .map(|f| {
                let mut nf = *f;
                for c in nf.corners.iter_mut() {
                    let mut idx = self.verts[c.vertex as usize].coarser;
                    if idx < 0 {
                        idx = self.verts[self.follow_vertex(c.vertex as usize)].coarser;
                    }
                    c.vertex = idx.max(0) as u32;
                    for a in 0..self.na {
                        let w = c.attribs[a] as usize;
                        let mut idx = self.attrs[a][w].coarser;
                        if idx < 0 {
                            idx = self.attrs[a][self.follow_wedge(a, w)].coarser;
                        }
                        c.attribs[a] = idx.max(0) as u32;
                    }
                }
                nf
            })
            .collect()
    }
}

/// Hashable identity of a wedge (`CWedge::operator<`; −0 equals +0).
#[derive(PartialEq, Eq, Hash)]
struct WedgeKey(Vec<u32>);

fn wedge_key(w: &Wedge, na: usize, skinned: bool) -> WedgeKey {
    let b = |x: f32| if x == 0.0 { 0 } else { x.to_bits() };
    let mut k: Vec<u32> = w.pos.iter().map(|&x| b(x)).collect();
    for a in &w.attribs[..na] {
        k.extend(a.iter().map(|&x| b(x)));
    }
    if skinned {
        for i in 0..MAX_MATRIX {
            k.push(w.skin.matrix[i]);
            k.push(b(w.skin.weight[i]));
        }
    }
    WedgeKey(k)
}

/// `buildFinalMRM`: unique wedges over all LODs, geomorph slots per LOD.
fn final_mesh(levels: &[LevelMesh], na: usize, skinned: bool) -> FinalMesh {
    let mut wedges: Vec<Wedge> = Vec::new();
    let mut ids: HashMap<WedgeKey, usize> = HashMap::new();
    let mut insert = |w: Wedge, wedges: &mut Vec<Wedge>| -> usize {
        let next = wedges.len();
        let id = *ids.entry(wedge_key(&w, na, skinned)).or_insert(next);
        if id == next {
            wedges.push(w);
        }
        id
    };
    let wedge_of = |m: &BaseMesh, c: &Corner| Wedge {
        pos: m
            .vertices
            .get(c.vertex as usize)
            .copied()
            .unwrap_or_default(),
        attribs: std::array::from_fn(|a| {
            if a < na {
                m.attribs[a]
                    .get(c.attribs[a] as usize)
                    .copied()
                    .unwrap_or_default()
            } else {
                [0.0; 4]
            }
        }),
        skin: m
            .skin
            .as_ref()
            .and_then(|s| s.get(c.vertex as usize))
            .copied()
            .unwrap_or_default(),
        n_skin_mat_used: 0,
    };
    // Per LOD, per face corner: (start wedge, end wedge).
    let mut corners: Vec<Vec<[(usize, usize); 3]>> = Vec::with_capacity(levels.len());
    let mut n_wedges: Vec<usize> = Vec::with_capacity(levels.len());
    for (l, level) in levels.iter().enumerate() {
        let prec = &levels[l.saturating_sub(1)].mesh;
        let mut lc = Vec::with_capacity(level.mesh.faces.len());
        for (f, cf) in level.mesh.faces.iter().zip(&level.coarser_faces) {
            let ids3: [(usize, usize); 3] = std::array::from_fn(|k| {
                let start = wedge_of(&level.mesh, &f.corners[k]);
                let end = if l > 0 {
                    wedge_of(prec, &cf.corners[k])
                } else {
                    start
                };
                let s = insert(start, &mut wedges);
                let e = insert(end, &mut wedges);
                (s, e)
            });
            lc.push(ids3);
        }
        corners.push(lc);
        n_wedges.push(wedges.len());
    }
    // Geomorph slots: per LOD, one per distinct (start, end) pair in order.
    let mut slots: Vec<HashMap<(usize, usize), usize>> = Vec::with_capacity(levels.len());
    let mut lists: Vec<Vec<(usize, usize)>> = Vec::with_capacity(levels.len());
    for (l, lc) in corners.iter().enumerate() {
        let mut map = HashMap::new();
        let mut list = Vec::new();
        if l > 0 {
            for c in lc.iter().flatten() {
                if c.0 != c.1 && !map.contains_key(c) {
                    map.insert(*c, list.len());
                    list.push(*c);
                }
            }
        }
        slots.push(map);
        lists.push(list);
    }
    let space = lists.iter().map(Vec::len).max().unwrap_or(0);
    let mut all = vec![Wedge::default(); space];
    all.extend(wedges);
    if skinned {
        for w in all.iter_mut().skip(space) {
            w.n_skin_mat_used = w.skin.weight.iter().take_while(|&&x| x != 0.0).count();
        }
    }
    let s = space as u32;
    let lods = levels
        .iter()
        .enumerate()
        .map(|(l, level)| Lod {
            n_wedges: n_wedges[l] + space,
            faces: level
                .mesh
                .faces
                .iter()
                .zip(&corners[l])
                .map(|(f, c)| {
                    let w = c.map(|(st, en)| {
                        if st != en {
                            slots[l].get(&(st, en)).copied().unwrap_or(0) as u32
                        } else {
                            st as u32 + s
                        }
                    });
                    (f.material, w)
                })
                .collect(),
            geomorphs: lists[l]
                .iter()
                .map(|&(a, b)| (a as u32 + s, b as u32 + s))
                .collect(),
        })
        .collect();
    FinalMesh {
        wedges: all,
        n_geom_space: space,
        lods,
        skinned,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A w×h grid of quads in the XY plane, one attribute (a flat normal).
    fn grid(w: u32, h: u32) -> BaseMesh {
        let mut m = BaseMesh {
            num_attribs: 1,
            ..Default::default()
        };
        for y in 0..=h {
            for x in 0..=w {
                m.vertices.push([x as f32, y as f32, 0.0]);
            }
        }
        m.attribs.push(vec![[0.0, 0.0, 1.0, 0.0]; m.vertices.len()]);
        let id = |x: u32, y: u32| y * (w + 1) + x;
        let corner = |v: u32| Corner {
            vertex: v,
            attribs: std::array::from_fn(|a| if a == 0 { v } else { 0 }),
        };
        for y in 0..h {
            for x in 0..w {
                let (a, b, c, d) = (id(x, y), id(x + 1, y), id(x + 1, y + 1), id(x, y + 1));
                for t in [[a, b, c], [a, c, d]] {
                    m.faces.push(Face {
                        material: 0,
                        corners: t.map(corner),
                    });
                }
            }
        }
        m
    }

    fn params(n: u32, d: u32) -> Params {
        Params {
            n_lods: n,
            divisor: d,
            skin_reduction: SkinReduction::Max,
        }
    }

    /// Every index of the final mesh in range, and the finest LOD = the input.
    fn check_final(m: &BaseMesh, f: &FinalMesh) {
        for (l, lod) in f.lods.iter().enumerate() {
            assert!(lod.n_wedges <= f.wedges.len());
            assert!(lod.geomorphs.len() <= f.n_geom_space);
            for g in &lod.geomorphs {
                assert!((g.0 as usize) < lod.n_wedges && (g.1 as usize) < lod.n_wedges);
                assert!(g.0 as usize >= f.n_geom_space && g.1 as usize >= f.n_geom_space);
            }
            for (_, w) in &lod.faces {
                for &i in w {
                    assert!((i as usize) < lod.n_wedges, "lod {l} wedge {i}");
                    if (i as usize) < f.n_geom_space {
                        assert!((i as usize) < lod.geomorphs.len(), "lod {l} geomorph {i}");
                    }
                }
            }
            if l > 0 {
                assert!(lod.n_wedges >= f.lods[l - 1].n_wedges);
            }
        }
        let finest = f.lods.last().expect("a lod");
        assert_eq!(finest.faces.len(), m.faces.len());
        for ((_, w), face) in finest.faces.iter().zip(&m.faces) {
            for (&i, c) in w.iter().zip(&face.corners) {
                // Finest positions: the start wedge of a geomorph, or the wedge.
                let i = i as usize;
                let i = if i < f.n_geom_space {
                    finest.geomorphs[i].0 as usize
                } else {
                    i
                };
                assert_eq!(f.wedges[i].pos, m.vertices[c.vertex as usize]);
            }
        }
    }

    #[test]
    fn grid_reduces_in_the_asked_ratio() {
        let m = grid(10, 10);
        let f = build(&m, &params(5, 10)).expect("builds");
        check_final(&m, &f);
        let counts: Vec<usize> = f.lods.iter().map(|l| l.faces.len()).collect();
        // 200 faces, coarsest 20, linear in between; a collapse removes 1-2 faces.
        assert_eq!(counts.len(), 5);
        assert_eq!(counts[4], 200);
        for (l, &c) in counts.iter().enumerate().take(4) {
            let wanted = 20 + 180 * l / 4;
            assert!(c <= wanted && c + 2 >= wanted, "lod {l}: {c} for {wanted}");
        }
        assert!(f.n_geom_space > 0);
    }

    #[test]
    fn single_triangle_cannot_collapse_below_four() {
        let m = BaseMesh {
            vertices: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            num_attribs: 0,
            faces: vec![Face {
                material: 0,
                corners: std::array::from_fn(|k| Corner {
                    vertex: k as u32,
                    attribs: [0; MAX_ATTRIB],
                }),
            }],
            ..Default::default()
        };
        let f = build(&m, &params(3, 20)).expect("builds");
        check_final(&m, &f);
        assert!(f.lods.iter().all(|l| l.faces.len() == 1));
        assert_eq!(f.n_geom_space, 0);
        assert_eq!(f.wedges.len(), 3);
    }

    #[test]
    fn degenerate_faces_do_not_hang() {
        let mut m = grid(3, 3);
        // Faces with repeated vertices, and one with all three the same.
        let c = |v: u32| Corner {
            vertex: v,
            attribs: std::array::from_fn(|a| if a == 0 { v } else { 0 }),
        };
        m.faces.push(Face {
            material: 0,
            corners: [c(0), c(0), c(5)],
        });
        m.faces.push(Face {
            material: 0,
            corners: [c(6), c(6), c(6)],
        });
        let f = build(&m, &params(4, 4)).expect("builds");
        check_final(&m, &f);
        assert!(f.lods[0].faces.len() < m.faces.len());
    }

    #[test]
    fn disjoint_triangles_keep_their_silhouette() {
        // Six separate triangles: every vertex is open, so collapses move
        // vertices onto existing ones and no LOD leaves the input's box.
        let mut m = BaseMesh::default();
        for i in 0..6u32 {
            let o = i as f32 * 3.0;
            m.vertices
                .extend([[o, 0.0, 0.0], [o + 1.0, 0.0, 0.0], [o, 1.0, 0.5]]);
            m.faces.push(Face {
                material: 0,
                corners: std::array::from_fn(|k| Corner {
                    vertex: 3 * i + k as u32,
                    attribs: [0; MAX_ATTRIB],
                }),
            });
        }
        let f = build(&m, &params(3, 2)).expect("builds");
        check_final(&m, &f);
        assert!(f.lods[0].faces.len() <= 4);
        for w in &f.wedges[f.n_geom_space..] {
            assert!(w.pos[0] >= 0.0 && w.pos[0] <= 16.0 && w.pos[1] <= 1.0);
        }
    }

    #[test]
    fn skin_weights_stay_normalized() {
        let mut m = grid(6, 6);
        let n = m.vertices.len();
        m.skin = Some(
            (0..n)
                .map(|i| SkinWeight {
                    matrix: [(i % 3) as u32, ((i + 1) % 3) as u32, 0, 0],
                    weight: [0.25, 0.75, 0.0, 0.0],
                })
                .collect(),
        );
        for red in [SkinReduction::Min, SkinReduction::Max, SkinReduction::Best] {
            let p = Params {
                skin_reduction: red,
                ..params(4, 8)
            };
            let f = build(&m, &p).expect("builds");
            check_final(&m, &f);
            for w in &f.wedges[f.n_geom_space..] {
                let s: f32 = w.skin.weight.iter().sum();
                assert!((s - 1.0).abs() < 1e-5, "{s}");
                assert!(w.skin.weight.windows(2).all(|p| p[0] >= p[1]));
                assert!(w.n_skin_mat_used >= 1);
            }
        }
    }

    #[test]
    fn bad_parameters_and_indices_are_refused() {
        let m = grid(2, 2);
        assert!(build(&m, &params(0, 20)).is_err());
        assert!(build(&m, &params(MAX_LODS + 1, 20)).is_err());
        assert!(build(&m, &params(3, 0)).is_err());
        let mut bad = m.clone();
        bad.faces[0].corners[0].vertex = 99;
        assert!(build(&bad, &params(3, 2))
            .unwrap_err()
            .contains("vertex 99"));
        let mut bad = m;
        bad.faces[0].corners[0].attribs[0] = 99;
        assert!(build(&bad, &params(3, 2)).unwrap_err().contains("wedge 99"));
    }
}
