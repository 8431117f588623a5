//! Polygon meshes in the form of Max's MNMesh, which the poly modifiers (Edit
//! Poly) work on: faces of any degree with their own triangulation, MNMesh's
//! edge numbering (operation records select edges by it), and the output to a
//! triangle mesh as `MNMesh::OutToTri` does it (each face's triangles in face
//! order, outer edges visible, diagonals hidden).

use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Face, MapChannel, Mesh};
use crate::eval::objects::poly_normals::PolyNormals;

/// Faces of a degree beyond this are refused (damaged data).
pub const MAX_DEGREE: usize = 1 << 16;

/// One polygon: vertex loop, triangulation (corner index triples), material and
/// smoothing groups.
#[derive(Debug, Clone, PartialEq)]
pub struct PolyFace {
    pub v: Vec<u32>,
    pub tris: Vec<[usize; 3]>,
    pub material: u16,
    pub smoothing: u32,
}

impl PolyFace {
    /// A face triangulated as a fan from its first corner — the triangulation
    /// `MNFace::MakePoly` gives (quads split along corner 0–2).
    pub fn fan(v: Vec<u32>, material: u16, smoothing: u32) -> PolyFace {
        let tris = (1..v.len().saturating_sub(1))
            .map(|i| [0, i, i + 1])
            .collect();
        PolyFace {
            v,
            tris,
            material,
            smoothing,
        }
    }

    /// A convex face triangulated as a zig-zag strip between its two sides, so
    /// no corner takes more than three diagonals. Max triangulates convex caps
    /// with `MNMesh::BestConvexDiagonals`, whose exact choice is not public; this
    /// strip follows its stated aim (no vertex overused) but the diagonals are
    /// not verified against Max.
    pub fn strip(v: Vec<u32>, material: u16, smoothing: u32) -> PolyFace {
        let n = v.len();
        let mut tris = Vec::with_capacity(n.saturating_sub(2));
        if n >= 3 {
            tris.push([0, 1, n - 1]);
            let (mut l, mut r) = (1, n - 1);
            let mut left = true;
            while l + 1 < r {
                if left {
                    tris.push([l, l + 1, r]);
                    l += 1;
                } else {
                    tris.push([l, r - 1, r]);
                    r -= 1;
                }
                left = !left;
            }
        }
        PolyFace {
            v,
            tris,
            material,
            smoothing,
        }
    }
}

/// A map channel of a polygon mesh: one map face per face, same degrees.
#[derive(Debug, Clone, PartialEq)]
pub struct PolyMap {
    pub channel: i32,
    pub vertices: Vec<[f32; 3]>,
    pub faces: Vec<Vec<u32>>,
}

impl PolyMap {
    /// The map face of polygon `fi`; a map without one per polygon is damaged.
    pub fn face(&self, fi: usize) -> Result<&Vec<u32>, EvalError> {
        let ch = self.channel;
        self.faces.get(fi).ok_or_else(|| Self::short(ch, fi))
    }

    /// [`PolyMap::face`], to change in place.
    pub fn face_mut(&mut self, fi: usize) -> Result<&mut Vec<u32>, EvalError> {
        let ch = self.channel;
        self.faces.get_mut(fi).ok_or_else(|| Self::short(ch, fi))
    }

    fn short(channel: i32, fi: usize) -> EvalError {
        EvalError::malformed(
            format!("map channel {channel}"),
            format!("no map face for polygon {fi} (a map needs one per polygon)"),
        )
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolyMesh {
    pub vertices: Vec<Vec3>,
    pub faces: Vec<PolyFace>,
    pub maps: Vec<PolyMap>,
    /// MNMesh's edge list (v1, v2 as its first face runs it), when the order
    /// Max numbers the edges in is known: edge operations select by it. `None`
    /// after an operation whose effect on the numbering is not derived.
    pub edges: Option<Vec<[u32; 2]>>,
    /// Specified normals (MNNormalSpec), one record per face; `None` when
    /// every corner's normal comes from smoothing groups.
    pub normals: Option<PolyNormals>,
}

impl PolyMesh {
    /// Per vertex, whether a face uses it (a corner past the vertices marks
    /// nothing).
    pub fn used_vertices(&self) -> Vec<bool> {
        let mut used = vec![false; self.vertices.len()];
        for f in &self.faces {
            for &v in &f.v {
                if let Some(u) = used.get_mut(v as usize) {
                    *u = true;
                }
            }
        }
        used
    }
}

#[cfg(test)]
impl PolyMesh {
    /// A test mesh in the plane z = 0: `points` as (x, y), and faces as
    /// (corners, material, smoothing groups), each fanned from its first
    /// corner.
    pub(crate) fn planar(points: &[(f64, f64)], faces: &[(&[u32], u16, u32)]) -> PolyMesh {
        PolyMesh {
            vertices: points.iter().map(|&(x, y)| Vec3(x, y, 0.0)).collect(),
            faces: faces
                .iter()
                .map(|&(v, material, smoothing)| PolyFace::fan(v.to_vec(), material, smoothing))
                .collect(),
            ..PolyMesh::default()
        }
    }
}

/// The edges `MNMesh::FillInMesh` numbers for faces given as vertex loops:
/// faces in order, each face's sides from corner j to j+1, an edge numbered
/// when first met (checked against the edge lists Editable Polys store).
pub fn walk_edges<'a>(faces: impl IntoIterator<Item = &'a [u32]>) -> Vec<[u32; 2]> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for v in faces {
        let n = v.len();
        for j in 0..n {
            let (a, b) = (v[j], v[(j + 1) % n]);
            if seen.insert((a.min(b), a.max(b))) {
                out.push([a, b]);
            }
        }
    }
    out
}

/// The edges of a polygon mesh Max makes from a triangle mesh (`SetFromTri`,
/// `FillInMesh`, then `MakePolyMesh`, which merges faces across hidden edges
/// and drops vertices left inside a polygon): the triangles' edges in walk
/// order, without those hidden in every triangle that has them and without
/// those on a dropped vertex, the survivors keeping their order
/// (`CollapseDeadStructs`). `vertex` maps a triangle-mesh vertex to its
/// polygon-mesh index (`None`: dropped). Reproduces the edge indices Can.max's
/// Insert Vertex Edge records on its version-1 Cylinder.
pub fn triangle_walk_edges(
    faces: &[Face],
    vertex: &[Option<u32>],
) -> Result<Vec<[u32; 2]>, EvalError> {
    let mut order: Vec<[u32; 2]> = Vec::new();
    let mut index = std::collections::HashMap::new();
    let mut visible: Vec<bool> = Vec::new();
    for f in faces {
        for k in 0..3 {
            let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
            let i = *index.entry((a.min(b), a.max(b))).or_insert_with(|| {
                order.push([a, b]);
                visible.push(false);
                order.len() - 1
            });
            visible[i] |= f.flags & (1 << k) != 0;
        }
    }
    let map = |x: u32| -> Result<Option<u32>, EvalError> {
        vertex.get(x as usize).copied().ok_or_else(|| {
            EvalError::malformed("", format!("triangle vertex {x} beyond {}", vertex.len()))
        })
    };
    let mut out = Vec::new();
    for (e, vis) in order.into_iter().zip(visible) {
        if let (Some(a), Some(b), true) = (map(e[0])?, map(e[1])?, vis) {
            out.push([a, b]);
        }
    }
    Ok(out)
}

impl PolyMesh {
    /// Removes vertices no polygon uses, keeping the order of the others
    /// (the map channels are left as they are).
    pub fn drop_unused_vertices(&mut self) {
        super::mesh::drop_unreferenced(
            &mut self.vertices,
            self.faces.iter_mut().flat_map(|f| f.v.iter_mut()),
        );
    }

    /// The edges `FillInMesh` would number for the faces as they stand (see
    /// [`walk_edges`]); their count is the mesh's edge count whatever the order.
    pub fn walked_edges(&self) -> Vec<[u32; 2]> {
        walk_edges(self.faces.iter().map(|f| f.v.as_slice()))
    }

    /// True when every directed side of the faces is run once and its
    /// reverse once: a closed, consistently wound surface, what a
    /// topology-changing operation on a closed input has to leave.
    pub fn is_closed_surface(&self) -> bool {
        let mut runs = std::collections::HashSet::new();
        for f in &self.faces {
            for j in 0..f.v.len() {
                if !runs.insert((f.v[j], f.v[(j + 1) % f.v.len()])) {
                    return false;
                }
            }
        }
        runs.iter().all(|&(a, b)| runs.contains(&(b, a)))
    }

    /// MNMesh's edge list, or a named refusal when the order is not known:
    /// the mesh is sound, only what an edge index means is not established.
    pub fn mn_edges(&self) -> Result<&[[u32; 2]], EvalError> {
        self.edges.as_deref().ok_or_else(|| {
            EvalError::not_evaluated_why(
                "an edge operation",
                "Max's edge numbering of this mesh is not known",
            )
        })
    }

    /// Sets the edge list after checking it holds each side of every face once.
    pub fn set_edges(&mut self, edges: Vec<[u32; 2]>) -> Result<(), EvalError> {
        let mut walked: Vec<(u32, u32)> = self
            .walked_edges()
            .iter()
            .map(|e| (e[0].min(e[1]), e[0].max(e[1])))
            .collect();
        let mut given: Vec<(u32, u32)> = edges
            .iter()
            .map(|e| (e[0].min(e[1]), e[0].max(e[1])))
            .collect();
        walked.sort_unstable();
        given.sort_unstable();
        if walked != given {
            return Err(EvalError::malformed(
                "",
                format!(
                    "an edge list of {} edges that are not the {} sides of the faces",
                    edges.len(),
                    walked.len()
                ),
            ));
        }
        self.edges = Some(edges);
        Ok(())
    }

    /// Checks indices (vertices, map vertices, triangulation corners) so that
    /// later steps can index freely.
    pub fn validate(&self) -> Result<(), EvalError> {
        let nv = self.vertices.len();
        for (i, f) in self.faces.iter().enumerate() {
            if f.v.len() < 3 || f.v.len() > MAX_DEGREE {
                return Err(EvalError::malformed(
                    "",
                    format!("face {i} of degree {}", f.v.len()),
                ));
            }
            if f.v.iter().any(|&x| x as usize >= nv) {
                return Err(EvalError::malformed(
                    "",
                    format!("face {i} uses a vertex beyond {nv}"),
                ));
            }
            if f.tris.len() != f.v.len() - 2 || f.tris.iter().flatten().any(|&c| c >= f.v.len()) {
                return Err(EvalError::malformed(
                    format!("face {i}"),
                    "damaged triangulation",
                ));
            }
        }
        for m in &self.maps {
            if m.faces.len() != self.faces.len() {
                return Err(EvalError::malformed(
                    "",
                    format!("map {} has {} faces", m.channel, m.faces.len()),
                ));
            }
            for (f, mf) in self.faces.iter().zip(&m.faces) {
                if mf.len() != f.v.len() || mf.iter().any(|&x| x as usize >= m.vertices.len()) {
                    return Err(EvalError::malformed(
                        format!("map {}", m.channel),
                        "damaged map face",
                    ));
                }
            }
        }
        if let Some(n) = &self.normals {
            n.validate(self.faces.iter().map(|f| f.v.len()))?;
        }
        Ok(())
    }

    /// Drops the faces `keep` marks false (in order), with their map faces
    /// and specified normals.
    pub fn retain_faces(&mut self, keep: &[bool]) {
        let mut k = keep.iter();
        self.faces.retain(|_| *k.next().unwrap_or(&true));
        for m in &mut self.maps {
            let mut k = keep.iter();
            m.faces.retain(|_| *k.next().unwrap_or(&true));
        }
        if let Some(n) = &mut self.normals {
            let mut k = keep.iter();
            n.faces.retain(|_| *k.next().unwrap_or(&true));
        }
    }

    /// One value per triangle of [`Self::to_mesh`]: each face's value over
    /// its triangles, in face order (a face-level property carried onto
    /// the triangles).
    pub fn per_triangle<T: Clone>(&self, of: impl Fn(usize, &PolyFace) -> T) -> Vec<T> {
        let mut out = Vec::new();
        for (i, f) in self.faces.iter().enumerate() {
            out.extend(std::iter::repeat_n(of(i, f), f.tris.len()));
        }
        out
    }

    /// The triangle mesh Max outputs: each face's triangles in face order, an
    /// edge visible when it is a side of the polygon; a triangle corner takes
    /// its polygon corner's specified normal.
    pub fn to_mesh(&self) -> Result<Mesh, EvalError> {
        self.validate()?;
        let mut faces = Vec::new();
        let mut maps: Vec<MapChannel> = self
            .maps
            .iter()
            .map(|m| MapChannel {
                channel: m.channel,
                vertices: m.vertices.clone(),
                faces: Vec::new(),
            })
            .collect();
        let mut normals = self.normals.as_ref().map(|n| {
            let mut spec = n.pool.clone();
            spec.faces = Vec::new();
            spec
        });
        for (fi, f) in self.faces.iter().enumerate() {
            let n = f.v.len();
            for t in &f.tris {
                let mut flags = 0u16;
                for k in 0..3 {
                    if t[(k + 1) % 3] == (t[k] + 1) % n {
                        flags |= 1 << k;
                    }
                }
                faces.push(Face {
                    v: t.map(|c| f.v[c]),
                    smoothing: f.smoothing,
                    material: f.material,
                    flags,
                });
                for (out, m) in maps.iter_mut().zip(&self.maps) {
                    out.faces.push(t.map(|c| m.faces[fi][c]));
                }
                if let (Some(out), Some(n)) = (&mut normals, &self.normals) {
                    out.faces.push(t.map(|c| n.faces[fi][c]));
                }
            }
        }
        Ok(Mesh {
            vertices: self.vertices.clone(),
            faces,
            maps,
            normals,
            missing_maps: Vec::new(),
            missing_normals: None,
            missing_parts: Vec::new(),
        })
    }
}

/// The unit cube as six quads (bottom, then the sides from −Y round, then
/// top), each its own material and smoothing group, edges walked: the
/// input of the poly operations' unit tests.
#[cfg(test)]
pub(crate) fn unit_cube() -> PolyMesh {
    let p = |x: f64, y: f64, z: f64| Vec3(x, y, z);
    let faces = vec![
        vec![3, 2, 1, 0],
        vec![0, 1, 5, 4],
        vec![1, 2, 6, 5],
        vec![2, 3, 7, 6],
        vec![3, 0, 4, 7],
        vec![4, 5, 6, 7],
    ];
    let mut m = PolyMesh {
        vertices: vec![
            p(0.0, 0.0, 0.0),
            p(1.0, 0.0, 0.0),
            p(1.0, 1.0, 0.0),
            p(0.0, 1.0, 0.0),
            p(0.0, 0.0, 1.0),
            p(1.0, 0.0, 1.0),
            p(1.0, 1.0, 1.0),
            p(0.0, 1.0, 1.0),
        ],
        faces: faces
            .into_iter()
            .enumerate()
            .map(|(i, v)| PolyFace::fan(v, i as u16, 1 << i))
            .collect(),
        maps: Vec::new(),
        edges: None,
        normals: None,
    };
    m.edges = Some(m.walked_edges());
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_edge_numbering_is_a_named_refusal() {
        // Masher.max's Connect Edge (sixth sweep) stopped here: a refusal,
        // not an evaluation error (coverage counts the two apart).
        let err = PolyMesh::default().mn_edges().unwrap_err();
        assert_eq!(err.kind(), crate::eval::error::EvalErrorKind::NotEvaluated);
        assert!(err.to_string().contains("edge numbering"), "{err}");
    }

    #[test]
    fn strip_covers_the_polygon_once_and_keeps_winding() {
        for n in 3..=13 {
            let f = PolyFace::strip((0..n as u32).collect(), 0, 0);
            assert_eq!(f.tris.len(), n - 2);
            // Each side of the polygon is in exactly one triangle, forwards.
            let mut sides = vec![0; n];
            for t in &f.tris {
                assert!(
                    t[0] < t[1] && t[1] < t[2],
                    "{n}: {t:?} keeps the face's order"
                );
                for k in 0..3 {
                    if t[(k + 1) % 3] == (t[k] + 1) % n {
                        sides[t[k]] += 1;
                    }
                }
            }
            assert!(sides.iter().all(|&s| s == 1), "{n}: {sides:?}");
            // No corner is in more than four triangles (a fan puts n−2 on corner 0).
            let mut uses = vec![0; n];
            for c in f.tris.iter().flatten() {
                uses[*c] += 1;
            }
            assert!(uses.iter().all(|&u| u <= 4), "{n}: {uses:?}");
        }
    }

    #[test]
    fn mnmesh_edge_order_and_triangle_visibility() {
        // Two quads sharing the edge 1–4 of a 2×1 grid (vertices 0 1 2 / 3 4 5).
        let m = PolyMesh {
            vertices: vec![Vec3::default(); 6],
            faces: vec![
                PolyFace::fan(vec![0, 1, 4, 3], 0, 1),
                PolyFace::fan(vec![1, 2, 5, 4], 0, 1),
            ],
            maps: Vec::new(),
            edges: None,
            normals: None,
        };
        assert_eq!(
            m.walked_edges(),
            [[0, 1], [1, 4], [4, 3], [3, 0], [1, 2], [2, 5], [5, 4]]
        );
        let t = m.to_mesh().expect("mesh");
        assert_eq!(t.faces[0].v, [0, 1, 4]);
        assert_eq!(t.faces[0].flags, 0b011);
        assert_eq!(t.faces[1].v, [0, 4, 3]);
        assert_eq!(t.faces[1].flags, 0b110);
    }
}
