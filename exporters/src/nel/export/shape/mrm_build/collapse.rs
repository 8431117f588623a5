//! Edge collapses in NeL's order: the priority list of (cost, face edge), the
//! interpolation choices and the wedge merging rules.

use std::collections::{BTreeMap, HashMap};

use super::*;

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

pub(super) struct Builder {
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
    pub(super) fn new(m: &BaseMesh, reduction: SkinReduction) -> Builder {
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
    pub(super) fn collapse_edges(&mut self, wanted: i64) {
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
    pub(super) fn coarser_mesh(&mut self) -> BaseMesh {
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
    pub(super) fn lod_faces(&self, faces: &[Face]) -> Vec<Face> {
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
