//! Catmull-Clark subdivision of a polygon mesh, the surface TurboSmooth (and
//! MeshSmooth's NURMS type at weight 1) builds: every face of degree n becomes
//! n quads (corner, edge point, face point, edge point), so one step turns V
//! vertices, E edges and F faces into V + E + F vertices and Σ degree quads.
//!
//! Rules (Catmull & Clark 1978): face point = centroid of the face; edge point
//! = (both ends + both face points) / 4; vertex point = (Q + 2R + (n − 3)·V) / n
//! with n the vertex's edge count, Q the mean of its faces' points and R the
//! mean of its edges' midpoints. An open boundary follows the cubic B-spline
//! curve rule (edge point = midpoint, vertex = ¾·V + ⅛·(both boundary
//! neighbours)), except an open corner (a boundary vertex of one face), which
//! keeps its place as Max's MeshSmooth keeps it; a vertex where the surface
//! is not a disc or a half-disc keeps its place. Map channels are subdivided on their own topology with the same
//! rules (a map seam is a boundary of the map), so the new map faces match the
//! new geometric faces one for one.
//!
//! Numbering, as Max's TurboSmooth and MeshSmooth NURMS write it (measured
//! on Cloth's saved input and Unwrap UVW caches, docs/evaluation.md
//! "TurboSmooth's numbering"): the V vertex points keep their indices, then
//! come the F face points in face order, then the E edge points in the order
//! of the input's MNMesh edge list (`Polys::edges`; first use in corner order
//! where that list is not known). Face f's corner c becomes the quad (corner
//! c, edge point of the side c → c + 1, face point, edge point of the side
//! c − 1 → c), quads in corner order. TurboSmooth's triangles split those
//! quads alternately (`to_mesh_alternating`).
//!
//! The mesh is held flat (one corner list, face starts) because two boxes at
//! 9 iterations are already 3 million quads: no allocation per face.

use crate::eval::core::math::Vec3;
use crate::eval::objects::mesh::{Face, MapChannel, Mesh};

/// A polygon mesh, flat: face f has corners `corners[start[f]..start[f + 1]]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Polys {
    pub vertices: Vec<[f64; 3]>,
    pub start: Vec<usize>,
    pub corners: Vec<u32>,
    pub material: Vec<u16>,
    pub smoothing: Vec<u32>,
    pub maps: Vec<PolyMapFlat>,
    /// The input's MNMesh edge list (each side of the faces once, either
    /// direction), when Max's order is known: the next step's edge points
    /// are numbered by it. None: first use in corner order.
    pub edges: Option<Vec<[u32; 2]>>,
}

/// A map channel of [`Polys`]: one map corner per geometric corner.
#[derive(Debug, Clone, PartialEq)]
pub struct PolyMapFlat {
    pub channel: i32,
    pub vertices: Vec<[f64; 3]>,
    pub corners: Vec<u32>,
}

/// TurboSmooth's and MeshSmooth's "separate by" options: an edge between
/// two faces of different material ids (`materials`) or sharing no smoothing
/// group (`smoothing`) is kept sharp — subdivided as a crease, the cubic
/// B-spline curve rule an open boundary follows, on both sides at once (its
/// vertices stay shared): each region is subdivided as if the seam were its
/// border. A seam vertex must lie on exactly two such (or open) edges; a seam
/// ending inside the surface or three regions meeting at a vertex is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Separate {
    pub materials: bool,
    pub smoothing: bool,
}

/// Why a mesh cannot be subdivided.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SubdivideError {
    #[error("edge ({0}, {1}) is shared by {2} faces (not a manifold surface)")]
    NonManifold(u32, u32, usize),
    #[error("vertex {0} is on {1} separated or open edges (a seam ending inside the surface or three regions meeting is not evaluated)")]
    SeamVertex(u32, u32),
    #[error("face {0} has {1} corners")]
    Degree(usize, usize),
    #[error("corner {0} uses vertex {1} of {2}")]
    Index(usize, u32, usize),
    #[error("{0} faces or vertices after subdivision, more than {MAX_ELEMENTS}")]
    TooLarge(usize),
    #[error("face starts do not cover the {0} corners")]
    Starts(usize),
    #[error("map channel {0} does not have one corner per face corner")]
    MapCorners(i32),
    #[error("an edge list of {0} edges that are not the {1} sides of the faces")]
    EdgeList(usize, usize),
}

/// Faces or vertices a subdivision may produce (16.7 million: a damaged
/// iteration count must not allocate without bound).
pub const MAX_ELEMENTS: usize = 1 << 24;

impl Polys {
    pub fn face_count(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    /// Checks face starts and every index, so the steps below index freely.
    pub fn validate(&self) -> Result<(), SubdivideError> {
        let nc = self.corners.len();
        if self.start.first() != Some(&0)
            || self.start.last() != Some(&nc)
            || self.material.len() != self.face_count()
            || self.smoothing.len() != self.face_count()
        {
            return Err(SubdivideError::Starts(nc));
        }
        for f in 0..self.face_count() {
            let d = self.start[f + 1].checked_sub(self.start[f]);
            match d {
                Some(d) if d >= 3 => {}
                _ => return Err(SubdivideError::Degree(f, d.unwrap_or(0))),
            }
        }
        check_indices(&self.corners, self.vertices.len())?;
        if let Some(list) = &self.edges {
            check_edge_list(&self.start, &self.corners, list)?;
        }
        for m in &self.maps {
            if m.corners.len() != nc {
                return Err(SubdivideError::MapCorners(m.channel));
            }
            check_indices(&m.corners, m.vertices.len())?;
        }
        Ok(())
    }

    /// One Catmull-Clark step: geometry strictly (a non-manifold edge is an
    /// error), maps leniently (an edge of any other count is a seam).
    pub fn subdivide(&self) -> Result<Polys, SubdivideError> {
        self.subdivide_with(Separate::default())
    }

    /// One step keeping the edges `sep` names sharp (see [`Separate`]).
    pub fn subdivide_with(&self, sep: Separate) -> Result<Polys, SubdivideError> {
        self.validate()?;
        let nc = self.corners.len();
        let grown = self.vertices.len() + nc + self.face_count();
        if nc > MAX_ELEMENTS || grown > MAX_ELEMENTS {
            return Err(SubdivideError::TooLarge(nc.max(grown)));
        }
        let sharp = |f1: usize, f2: usize| {
            (sep.materials && self.material[f1] != self.material[f2])
                || (sep.smoothing && self.smoothing[f1] & self.smoothing[f2] == 0)
        };
        let sharp: Option<&dyn Fn(usize, usize) -> bool> =
            (sep.materials || sep.smoothing).then_some(&sharp);
        let (vertices, corners) = step(
            &self.vertices,
            &self.start,
            &self.corners,
            self.edges.as_deref(),
            None,
            sharp,
        )?;
        let mut maps = Vec::with_capacity(self.maps.len());
        for m in &self.maps {
            let (vertices, corners) = step(
                &m.vertices,
                &self.start,
                &m.corners,
                None,
                Some(&self.corners),
                sharp,
            )?;
            maps.push(PolyMapFlat {
                channel: m.channel,
                vertices,
                corners,
            });
        }
        let mut material = Vec::with_capacity(nc);
        let mut smoothing = Vec::with_capacity(nc);
        for f in 0..self.face_count() {
            let d = self.start[f + 1] - self.start[f];
            material.extend(std::iter::repeat_n(self.material[f], d));
            smoothing.extend(std::iter::repeat_n(self.smoothing[f], d));
        }
        Ok(Polys {
            vertices,
            start: (0..=nc).map(|q| 4 * q).collect(),
            corners,
            material,
            smoothing,
            maps,
            // How Max orders the edges of its subdivided mesh is not measured
            // (every reference found has one iteration).
            edges: None,
        })
    }

    /// The triangle mesh Max outputs: each face fanned from its first corner
    /// (a quad split along corner 0–2), polygon sides visible, diagonals
    /// hidden.
    pub fn to_mesh(&self) -> Result<Mesh, SubdivideError> {
        self.triangles(|_| None)
    }

    /// The triangle mesh TurboSmooth outputs from the quads of one step of a
    /// mesh whose faces started at `parent_start`: quad q comes from the
    /// parent's corner q, and the quads of a parent's even corners (0, 2, …)
    /// split along corner 0–2 (corner – face point) as (0, 1, 2), (2, 3, 0),
    /// those of its odd corners along 1–3 (the two edge points) as
    /// (3, 0, 1), (1, 2, 3) — Max's order on all 5,376 triangles of the
    /// Cloth-saved inputs of couch.max and scene.max (radobaychev) and on
    /// bear.max's Unwrap cache. A face that is not a quad is fanned.
    pub fn to_mesh_alternating(&self, parent_start: &[usize]) -> Result<Mesh, SubdivideError> {
        if parent_start.last() != Some(&self.face_count()) {
            return Err(SubdivideError::Starts(self.face_count()));
        }
        let mut parent = 0;
        self.triangles(|q| Some(odd_corner(parent_start, &mut parent, q)))
    }

    /// The triangles of every face: a quad for which `odd` gives Some split
    /// alternately as in `to_mesh_alternating`, any other face fanned from
    /// corner 0; sides visible, diagonals hidden. `odd` is called once per
    /// face, in order.
    fn triangles(
        &self,
        mut odd: impl FnMut(usize) -> Option<bool>,
    ) -> Result<Mesh, SubdivideError> {
        self.validate()?;
        let tris = self.corners.len() - 2 * self.face_count();
        let mut faces = Vec::with_capacity(tris);
        let mut maps: Vec<MapChannel> = self
            .maps
            .iter()
            .map(|m| MapChannel {
                channel: m.channel,
                vertices: m.vertices.iter().map(|v| v.map(|x| x as f32)).collect(),
                faces: Vec::with_capacity(tris),
            })
            .collect();
        for f in 0..self.face_count() {
            let (s, e) = (self.start[f], self.start[f + 1]);
            let n = e - s;
            let split = odd(f).filter(|_| n == 4).map(quad_split);
            for i in 1..n - 1 {
                let local = match split {
                    Some(t) => t[i - 1],
                    None => [0, i, i + 1],
                };
                let mut flags = 0u16;
                for k in 0..3 {
                    if local[(k + 1) % 3] == (local[k] + 1) % n {
                        flags |= 1 << k;
                    }
                }
                faces.push(Face {
                    v: local.map(|c| self.corners[s + c]),
                    smoothing: self.smoothing[f],
                    material: self.material[f],
                    flags,
                });
                for (out, m) in maps.iter_mut().zip(&self.maps) {
                    out.faces.push(local.map(|c| m.corners[s + c]));
                }
            }
        }
        Ok(Mesh {
            vertices: self
                .vertices
                .iter()
                .map(|v| Vec3(v[0], v[1], v[2]))
                .collect(),
            faces,
            maps,
            ..Default::default()
        })
    }
}

/// TurboSmooth's two triangles of a quad from one step: for a parent's even
/// corner (0, 1, 2), (2, 3, 0); for an odd one (3, 0, 1), (1, 2, 3)
/// (`Polys::to_mesh_alternating`).
pub fn quad_split(odd: bool) -> [[usize; 3]; 2] {
    if odd {
        [[3, 0, 1], [1, 2, 3]]
    } else {
        [[0, 1, 2], [2, 3, 0]]
    }
}

/// Whether quad `q` of one step of a mesh whose faces started at
/// `parent_start` comes from an odd corner of its parent face: quad q is
/// the parent's corner q. `parent` is the face of quad q − 1 (0 at first),
/// advanced in place.
pub fn odd_corner(parent_start: &[usize], parent: &mut usize, q: usize) -> bool {
    while *parent + 1 < parent_start.len() && parent_start[*parent + 1] <= q {
        *parent += 1;
    }
    (q - parent_start.get(*parent).copied().unwrap_or(0)) % 2 == 1
}

fn check_indices(corners: &[u32], n: usize) -> Result<(), SubdivideError> {
    match corners.iter().enumerate().find(|(_, &v)| v as usize >= n) {
        Some((c, &v)) => Err(SubdivideError::Index(c, v, n)),
        None => Ok(()),
    }
}

/// An undirected side as one sortable key.
fn side_key(a: u32, b: u32) -> u64 {
    (u64::from(a.min(b)) << 32) | u64::from(a.max(b))
}

/// The sides of the faces, each once, sorted by key.
fn side_keys(start: &[usize], corners: &[u32]) -> Vec<u64> {
    let mut keys = Vec::with_capacity(corners.len());
    for f in 0..start.len().saturating_sub(1) {
        let (s, e) = (start[f], start[f + 1]);
        for c in s..e {
            let n = if c + 1 == e { s } else { c + 1 };
            keys.push(side_key(corners[c], corners[n]));
        }
    }
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The keys of `list` sorted, with each entry's index in the list.
fn list_keys(list: &[[u32; 2]]) -> Vec<(u64, u32)> {
    let mut keys: Vec<(u64, u32)> = list
        .iter()
        .enumerate()
        .map(|(i, e)| (side_key(e[0], e[1]), i as u32))
        .collect();
    keys.sort_unstable();
    keys
}

/// Err unless `list` holds each side of the faces exactly once.
fn check_edge_list(
    start: &[usize],
    corners: &[u32],
    list: &[[u32; 2]],
) -> Result<(), SubdivideError> {
    let sides = side_keys(start, corners);
    let given = list_keys(list);
    if sides.len() != given.len() || sides.iter().zip(&given).any(|(a, b)| *a != b.0) {
        return Err(SubdivideError::EdgeList(list.len(), sides.len()));
    }
    Ok(())
}

fn add(a: &mut [f64; 3], b: [f64; 3], k: f64) {
    for i in 0..3 {
        a[i] += k * b[i];
    }
}

/// One step on points `p` with faces `start`/`corners` and edge list `list`
/// (all validated by `Polys::validate`). New points: vertex points, then
/// face points, then edge points (in the order of `list`, else of first
/// use); new faces: per old corner, in corner order (see the module
/// comment).
fn step(
    p: &[[f64; 3]],
    start: &[usize],
    corners: &[u32],
    list: Option<&[[u32; 2]]>,
    geometry: Option<&[u32]>,
    sharp: Option<&dyn Fn(usize, usize) -> bool>,
) -> Result<(Vec<[f64; 3]>, Vec<u32>), SubdivideError> {
    // A map (its geometry's corners given) is lenient: an edge of any other
    // count than two is a border.
    let strict = geometry.is_none();
    let nf = start.len() - 1;
    let nc = corners.len();
    let nv = p.len();
    // Face of each corner and the next corner around its face.
    let mut face_of = vec![0u32; nc];
    let mut next = vec![0u32; nc];
    let mut face_pt = vec![[0.0; 3]; nf];
    for f in 0..nf {
        let (s, e) = (start[f], start[f + 1]);
        for c in s..e {
            face_of[c] = f as u32;
            next[c] = if c + 1 == e { s as u32 } else { c as u32 + 1 };
            add(
                &mut face_pt[f],
                p[corners[c] as usize],
                1.0 / (e - s) as f64,
            );
        }
    }
    // Edges: corners sorted by their undirected vertex pair.
    let key = |c: usize| side_key(corners[c], corners[next[c] as usize]);
    let mut order: Vec<u32> = (0..nc as u32).collect();
    order.sort_unstable_by_key(|&c| (key(c as usize), c));
    let mut edge_of = vec![0u32; nc];
    // Per edge: (a, b, position of its first corner in `order`, corner count).
    let mut edges: Vec<(u32, u32, usize, usize)> = Vec::new();
    let mut i = 0;
    while i < nc {
        let k = key(order[i] as usize);
        let mut j = i;
        while j < nc && key(order[j] as usize) == k {
            edge_of[order[j] as usize] = edges.len() as u32;
            j += 1;
        }
        let (a, b) = ((k >> 32) as u32, k as u32);
        if strict && j - i > 2 {
            return Err(SubdivideError::NonManifold(a, b, j - i));
        }
        edges.push((a, b, i, j - i));
        i = j;
    }
    // Number the edges as the list does (both sorted by key, the list
    // holding each side once: `check_edge_list` in `validate`), else by
    // first use in corner order.
    let mut rank = vec![u32::MAX; edges.len()];
    if let Some(list) = list {
        for (r, &(_, i)) in rank.iter_mut().zip(&list_keys(list)) {
            *r = i;
        }
    } else {
        let mut next_rank = 0u32;
        for &e in &edge_of {
            if rank[e as usize] == u32::MAX {
                rank[e as usize] = next_rank;
                next_rank += 1;
            }
        }
    }
    let ne = edges.len();
    let mut edge_pt = vec![[0.0; 3]; ne];
    let mut face_sum = vec![[0.0; 3]; nv];
    let mut face_n = vec![0u32; nv];
    let mut mid_sum = vec![[0.0; 3]; nv];
    let mut edge_n = vec![0u32; nv];
    let mut bnd_sum = vec![[0.0; 3]; nv];
    let mut bnd_n = vec![0u32; nv];
    // Of those, the sharp edges between two faces (a seam may end inside).
    let mut seam_n = vec![0u32; nv];
    for (e, &(a, b, first, count)) in edges.iter().enumerate() {
        let (pa, pb) = (p[a as usize], p[b as usize]);
        let mut mid = [0.0; 3];
        add(&mut mid, pa, 0.5);
        add(&mut mid, pb, 0.5);
        let out = &mut edge_pt[rank[e] as usize];
        // A map edge is inside only where its two corners run one geometric
        // edge: two faces meeting on map vertices only (a mirrored half
        // sharing its UVs) are each at a border of the map, as Max's
        // MeshSmooth keeps them (Spongie_Template's FBX: the island's
        // border stays on u = 1).
        let one_edge = |c1: usize, c2: usize| {
            geometry.is_none_or(|g| {
                let (n1, n2) = (next[c1] as usize, next[c2] as usize);
                side_key(g[c1], g[n1]) == side_key(g[c2], g[n2])
            })
        };
        let joined = count == 2 && one_edge(order[first] as usize, order[first + 1] as usize);
        // Map sides of several geometric edges on one pair of map vertices:
        // each is a border of its own.
        let sides = if joined || geometry.is_none() {
            1
        } else {
            count as u32
        };
        let faces = joined.then(|| {
            (
                face_of[order[first] as usize] as usize,
                face_of[order[first + 1] as usize] as usize,
            )
        });
        let seam = faces.is_some_and(|(f1, f2)| sharp.is_some_and(|s| s(f1, f2)));
        if let Some((f1, f2)) = faces.filter(|_| !seam) {
            add(out, pa, 0.25);
            add(out, pb, 0.25);
            add(out, face_pt[f1], 0.25);
            add(out, face_pt[f2], 0.25);
        } else {
            *out = mid;
            for (v, w) in [(a, pb), (b, pa)] {
                add(&mut bnd_sum[v as usize], w, f64::from(sides));
                bnd_n[v as usize] += sides;
                seam_n[v as usize] += u32::from(seam);
            }
        }
        for v in [a, b] {
            add(&mut mid_sum[v as usize], mid, 1.0);
            edge_n[v as usize] += 1;
        }
    }
    for (c, &v) in corners.iter().enumerate() {
        add(&mut face_sum[v as usize], face_pt[face_of[c] as usize], 1.0);
        face_n[v as usize] += 1;
    }
    let mut out = Vec::with_capacity(nv + nf + ne);
    for v in 0..nv {
        let x = p[v];
        // Where a seam ends inside the surface or three regions meet, the
        // regions' own curve rules disagree: what Max does there is not
        // measured.
        if strict && seam_n[v] > 0 && bnd_n[v] != 2 {
            return Err(SubdivideError::SeamVertex(v as u32, bnd_n[v]));
        }
        let q = match (bnd_n[v], edge_n[v], face_n[v]) {
            (0, n, nfv) if n >= 2 && nfv > 0 => {
                let n = f64::from(n);
                let mut q = [0.0; 3];
                add(&mut q, face_sum[v], 1.0 / (f64::from(face_n[v]) * n));
                add(&mut q, mid_sum[v], 2.0 / (f64::from(edge_n[v]) * n));
                add(&mut q, x, (n - 3.0) / n);
                q
            }
            // An open corner: a boundary vertex of one face stays (Max's
            // MeshSmooth on manSuite.max's Shirt and Tie, all 8 such
            // vertices; their 26 other boundary vertices follow the curve
            // rule).
            (2, _, 1) if seam_n[v] == 0 => x,
            (2, _, _) => {
                let mut q = [0.0; 3];
                add(&mut q, x, 0.75);
                add(&mut q, bnd_sum[v], 0.125);
                q
            }
            _ => x,
        };
        out.push(q);
    }
    out.extend_from_slice(&face_pt);
    out.extend_from_slice(&edge_pt);
    let mut quads = Vec::with_capacity(4 * nc);
    let first_edge = (nv + nf) as u32;
    for f in 0..nf {
        let (s, e) = (start[f], start[f + 1]);
        let fp = (nv + f) as u32;
        for c in s..e {
            let prev = if c == s { e - 1 } else { c - 1 };
            quads.extend([
                corners[c],
                first_edge + rank[edge_of[c] as usize],
                fp,
                first_edge + rank[edge_of[prev] as usize],
            ]);
        }
    }
    Ok((out, quads))
}

#[cfg(test)]
mod separate_tests {
    use super::*;

    /// The unit cube, its top face (z = 1) in material 1, the rest in 0.
    fn cube() -> Polys {
        Polys {
            vertices: vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [1.0, 1.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
                [1.0, 0.0, 1.0],
                [1.0, 1.0, 1.0],
                [0.0, 1.0, 1.0],
            ],
            start: vec![0, 4, 8, 12, 16, 20, 24],
            corners: vec![
                0, 3, 2, 1, // bottom
                4, 5, 6, 7, // top
                0, 1, 5, 4, // y = 0
                1, 2, 6, 5, // x = 1
                2, 3, 7, 6, // y = 1
                3, 0, 4, 7, // x = 0
            ],
            material: vec![0, 1, 0, 0, 0, 0],
            smoothing: vec![1; 6],
            maps: Vec::new(),
            edges: None,
        }
    }

    /// Separated by materials the top face's border is a crease: its edge
    /// points are the edges' midpoints and its corners follow the curve rule
    /// (¾·V + ⅛·both neighbours along the loop), as the top face alone would
    /// be subdivided; the vertices stay shared (V + E + F as without).
    #[test]
    fn a_material_seam_is_subdivided_as_each_side_s_border() {
        let p = cube();
        let plain = p.subdivide().expect("plain");
        let sep = p
            .subdivide_with(Separate {
                materials: true,
                smoothing: false,
            })
            .expect("separated");
        assert_eq!(plain.vertices.len(), 8 + 12 + 6);
        assert_eq!(plain.vertices.len(), sep.vertices.len());
        assert_eq!(plain.corners, sep.corners);
        let close = |a: [f64; 3], b: [f64; 3]| (0..3).all(|i| (a[i] - b[i]).abs() < 1e-12);
        // Corner (0, 0, 1): the curve rule along the top loop.
        assert!(
            close(sep.vertices[4], [0.125, 0.125, 1.0]),
            "{:?}",
            sep.vertices[4]
        );
        // Without the seam, Catmull-Clark pulls it in along z too.
        assert!(plain.vertices[4][2] < 0.95, "{:?}", plain.vertices[4]);
        // The top loop's edge points are midpoints.
        let has = |ps: &Polys, q: [f64; 3]| ps.vertices.iter().any(|&v| close(v, q));
        assert!(has(&sep, [0.5, 0.0, 1.0]));
        assert!(!has(&plain, [0.5, 0.0, 1.0]));
        // Separated by smoothing groups alone: every face shares group 1.
        let same = p
            .subdivide_with(Separate {
                materials: false,
                smoothing: true,
            })
            .expect("groups shared");
        assert_eq!(same.vertices, plain.vertices);
    }

    /// Two quads apart in space that share their four map vertices (a
    /// mirrored half laid on the same UVs): in the map, each quad's sides
    /// are borders of their own, so the map corners stay and the map edge
    /// points are midpoints — Spongie_Template's MeshSmoothed boxes
    /// (Box004/005, 720 UV corners) equal their FBX only so; taking the
    /// shared map edges as inside moved the island's border off u = 1.
    #[test]
    fn quads_sharing_map_vertices_but_no_edge_keep_their_map_borders() {
        let uv = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
        ];
        let p = Polys {
            vertices: vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [1.0, 1.0, 0.0],
                [0.0, 1.0, 0.0],
                [5.0, 0.0, 0.0],
                [6.0, 0.0, 0.0],
                [6.0, 1.0, 0.0],
                [5.0, 1.0, 0.0],
            ],
            start: vec![0, 4, 8],
            corners: vec![0, 1, 2, 3, 4, 5, 6, 7],
            material: vec![0, 0],
            smoothing: vec![1, 1],
            maps: vec![PolyMapFlat {
                channel: 1,
                vertices: uv.to_vec(),
                corners: vec![0, 1, 2, 3, 0, 1, 2, 3],
            }],
            edges: None,
        };
        let out = p.subdivide().expect("two quads");
        let map = &out.maps[0];
        // Map corners 0–3 stay where they were.
        assert_eq!(&map.vertices[..4], &uv[..]);
        // A face point per quad, then the four edge points: the square's
        // side midpoints.
        assert_eq!(map.vertices[4..6], [[0.5, 0.5, 0.0]; 2]);
        let mut mids: Vec<[f64; 3]> = map.vertices[6..].to_vec();
        mids.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        assert_eq!(
            mids,
            vec![
                [0.0, 0.5, 0.0],
                [0.5, 0.0, 0.0],
                [0.5, 1.0, 0.0],
                [1.0, 0.5, 0.0]
            ]
        );
    }

    /// Three regions meeting at a vertex (a fan of three triangles around
    /// vertex 0, each its own material, closed by no border): refused.
    #[test]
    fn three_regions_meeting_are_refused() {
        let p = Polys {
            vertices: vec![
                [0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [-1.0, -1.0, 0.0],
                [0.0, 0.0, -1.0],
            ],
            // A closed tetrahedron-like fan: 0 in the middle, 4 below.
            start: vec![0, 3, 6, 9, 12, 15, 18],
            corners: vec![0, 1, 2, 0, 2, 3, 0, 3, 1, 4, 2, 1, 4, 3, 2, 4, 1, 3],
            material: vec![0, 1, 2, 3, 3, 3],
            smoothing: vec![1; 6],
            maps: Vec::new(),
            edges: None,
        };
        let e = p
            .subdivide_with(Separate {
                materials: true,
                smoothing: false,
            })
            .expect_err("three regions at vertex 0");
        assert!(matches!(e, SubdivideError::SeamVertex(0, _)), "{e}");
    }
}

#[cfg(test)]
mod numbering_tests {
    use super::*;

    /// A quad (0, 1, 2, 3) and a triangle (2, 1, 4) sharing the side 1–2,
    /// with an MNMesh edge list in an order of its own.
    fn quad_and_triangle(edges: Option<Vec<[u32; 2]>>) -> Polys {
        Polys {
            vertices: vec![
                [0.0, 0.0, 0.0],
                [2.0, 0.0, 0.0],
                [2.0, 2.0, 0.0],
                [0.0, 2.0, 0.0],
                [4.0, 1.0, 0.0],
            ],
            start: vec![0, 4, 7],
            corners: vec![0, 1, 2, 3, 2, 1, 4],
            material: vec![0, 1],
            smoothing: vec![1, 1],
            maps: Vec::new(),
            edges,
        }
    }

    const LIST: [[u32; 2]; 6] = [[4, 2], [0, 1], [3, 0], [1, 2], [2, 3], [1, 4]];

    /// The rule measured on the Cloth-saved inputs of radobaychev's
    /// couch.max and scene.max (18 TurboSmooth nodes, 2,690 vertices and
    /// 5,376 triangles each, every index and corner equal) and on the Unwrap
    /// UVW caches above MeshSmooth (manSuite.max, woman.max, Spongie_guard):
    /// vertex points keep their indices, then the face points (quad 5,
    /// triangle 6), then the edge points in the edge list's order (7 + its
    /// index: (4, 2) → 7, (0, 1) → 8, (3, 0) → 9, (1, 2) → 10, (2, 3) → 11,
    /// (1, 4) → 12); corner c of a face gives the quad (c, edge c → c + 1,
    /// face point, edge c − 1 → c). Even corners of the parent split along
    /// corner – face point as (0, 1, 2), (2, 3, 0), odd ones along the two
    /// edge points as (3, 0, 1), (1, 2, 3); the diagonal hidden.
    #[test]
    fn points_and_triangles_are_numbered_as_max_numbers_them() {
        let p = quad_and_triangle(Some(LIST.to_vec()));
        let s = p.subdivide().expect("step");
        assert_eq!(
            s.corners,
            vec![
                0, 8, 5, 9, 1, 10, 5, 8, 2, 11, 5, 10, 3, 9, 5, 11, // quad
                2, 10, 6, 7, 1, 12, 6, 10, 4, 7, 6, 12, // triangle
            ]
        );
        // Positions follow the numbering: face points are centroids, the
        // open side (4, 2) has its midpoint, the shared one (1, 2) the
        // mean of its ends and both face points.
        let close = |a: [f64; 3], b: [f64; 3]| (0..3).all(|i| (a[i] - b[i]).abs() < 1e-12);
        assert!(close(s.vertices[5], [1.0, 1.0, 0.0]));
        assert!(close(s.vertices[6], [8.0 / 3.0, 1.0, 0.0]));
        assert!(close(s.vertices[7], [3.0, 1.5, 0.0]));
        assert!(close(
            s.vertices[10],
            [(2.0 + 2.0 + 1.0 + 8.0 / 3.0) / 4.0, 1.0, 0.0]
        ));
        let m = s.to_mesh_alternating(&p.start).expect("mesh");
        let tris: Vec<[u32; 3]> = m.faces.iter().map(|f| f.v).collect();
        assert_eq!(
            tris,
            vec![
                [0, 8, 5],
                [5, 9, 0],
                [8, 1, 10],
                [10, 5, 8],
                [2, 11, 5],
                [5, 10, 2],
                [11, 3, 9],
                [9, 5, 11],
                // The triangle's corners restart at even.
                [2, 10, 6],
                [6, 7, 2],
                [10, 1, 12],
                [12, 6, 10],
                [4, 7, 6],
                [6, 12, 4],
            ]
        );
        assert!(m.faces.iter().all(|f| f.flags == 0b011));
        assert_eq!(m.faces[8].material, 1);
    }

    /// Without a list the edges are numbered by first use in corner order:
    /// (0, 1) → 7, (1, 2) → 8, (2, 3) → 9, (3, 0) → 10, (1, 4) → 11,
    /// (4, 2) → 12. A list that is not the faces' sides is refused.
    #[test]
    fn first_use_without_a_list_and_a_wrong_list_is_refused() {
        let s = quad_and_triangle(None).subdivide().expect("step");
        assert_eq!(&s.corners[..8], &[0, 7, 5, 10, 1, 8, 5, 7]);
        assert_eq!(&s.corners[16..], &[2, 8, 6, 12, 1, 11, 6, 8, 4, 12, 6, 11]);
        assert_eq!(s.edges, None);
        let mut short = LIST.to_vec();
        short.pop();
        let e = quad_and_triangle(Some(short)).subdivide().unwrap_err();
        assert_eq!(e, SubdivideError::EdgeList(5, 6));
        let mut twice = LIST.to_vec();
        twice[0] = [0, 1];
        assert!(quad_and_triangle(Some(twice)).subdivide().is_err());
        // A parent layout that is not the quads' is refused.
        let s = quad_and_triangle(Some(LIST.to_vec()))
            .subdivide()
            .expect("step");
        assert!(s.to_mesh_alternating(&[0, 4]).is_err());
    }
}
