//! A triangle mesh as Max converts it to polygons for a poly modifier when
//! the object offers no polygon form of its own (ProBoolean, Extrude, Lathe,
//! Loft, a renderable shape, a triangle stack under Edit Poly or MeshSmooth):
//! `SetFromTri`, `FillInMesh`, then `MakePolyMesh`, replayed edge by edge.
//!
//! The edges are numbered as the triangles walk them (face order, side j →
//! j + 1, an edge numbered when first met, running as its first triangle
//! runs it). In that order each edge hidden in both its triangles joins the
//! faces on its two sides: the second one's other corners are spliced into
//! the first one's at that edge, and the second face dies. An edge whose two
//! sides are already one face stays, as a side met twice: that is how a
//! region with holes becomes one polygon, its outline bridged to each hole
//! along the hidden edges the walk meets last. Faces keep the place of the
//! surviving face, edges that of their first number (`CollapseDeadStructs`).
//!
//! Checked against Max's results on the public Buwaka/Level-editing-2 files
//! (docs/unseen-files.md, "ProBoolean below a poly modifier"): sidewalk
//! 03's Unwrap UVW cache above the Edit Poly on Box002 (280 vertices, 576
//! triangles) holds our 222 polygons, 220 corner for corner, in our order —
//! the two 34-gons with five bridged holes each included — and the other two
//! are what its Connect Vertex records cut ours into; level.max's cache over
//! Box001 holds, of the polygons whose vertices it did not move, 230 of ours
//! corner for corner (triangles, quads, a 9-triangle polygon) in our order;
//! the edge counts Max recorded (1148 on Box001, 536 on the doors' Box002
//! with 4 bridges, 4733 on Door9's Gate) are ours.
//!
//! Not pinned, refused by name: a vertex left inside a polygon (every edge
//! on it hidden: Max drops it, renumbering the vertices), a hidden edge of
//! more than two triangles or between triangles facing opposite ways. A map
//! channel whose two triangles disagree at a joined edge (a seam across a
//! hidden edge: which map vertex the polygon keeps is not known) is left out
//! and named; the others follow the corners. Each polygon keeps its triangles (the regions
//! are planar, so any triangulation gives the same surface; Max's own
//! diagonals are not derived) and the surviving triangle's material and
//! smoothing groups.

use std::collections::HashMap;

use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::eval::objects::poly::{PolyFace, PolyMap, PolyMesh};

/// A triangle corner: (triangle, corner).
type Slot = (usize, usize);

/// One edge as `FillInMesh` numbers it: its ends as the first triangle runs
/// them, its triangles with the side each runs it on, and whether any
/// triangle shows it.
struct Edge {
    v: [u32; 2],
    f1: Slot,
    f2: Option<Slot>,
    visible: bool,
}

/// The triangle walk's edges (see the module documentation).
fn walk(tri: &Mesh) -> Result<Vec<Edge>, EvalError> {
    let mut index: HashMap<(u32, u32), usize> = HashMap::new();
    let mut edges: Vec<Edge> = Vec::new();
    for (i, f) in tri.faces.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
            let shown = f.flags & (1 << k) != 0;
            match index.get(&(a.min(b), a.max(b))) {
                None => {
                    index.insert((a.min(b), a.max(b)), edges.len());
                    edges.push(Edge {
                        v: [a, b],
                        f1: (i, k),
                        f2: None,
                        visible: shown,
                    });
                }
                Some(&e) => {
                    let edge = &mut edges[e];
                    edge.visible |= shown;
                    if edge.f2.is_some() {
                        return Err(EvalError::not_evaluated_why(
                            format!("edge {a}–{b} of more than two triangles"),
                            "how Max's polygon conversion joins across it is not derived",
                        ));
                    }
                    edge.f2 = Some((i, k));
                }
            }
        }
    }
    Ok(edges)
}

/// The polygons Max makes of `tri` (see the module documentation): the
/// triangle mesh's vertices, its regions joined across hidden edges, the
/// edges numbered as Max numbers them; and the map channels left out, with
/// why (a seam across a joined edge).
pub(crate) fn make_poly_mesh(tri: &Mesh) -> Result<(PolyMesh, Vec<(i32, String)>), EvalError> {
    tri.check_map_faces()?;
    if tri.normals.is_some() {
        return Err(EvalError::not_evaluated_why(
            "specified normals of a triangle mesh converted to polygons",
            "which corners keep theirs when faces join is not derived",
        ));
    }
    let edges = walk(tri)?;
    let corner = |s: Slot| tri.faces[s.0].v[s.1];
    let mut faces: Vec<Option<Vec<Slot>>> = (0..tri.faces.len())
        .map(|i| Some((0..3).map(|c| (i, c)).collect()))
        .collect();
    let mut owner: Vec<usize> = (0..tri.faces.len()).collect();
    let mut members: Vec<Vec<usize>> = (0..tri.faces.len()).map(|i| vec![i]).collect();
    // A corner merged into another at a join → the corner it became.
    let mut merged: HashMap<Slot, Slot> = HashMap::new();
    let mut joins: Vec<(Slot, Slot)> = Vec::new();
    let mut kept = vec![true; edges.len()];
    for (ei, e) in edges.iter().enumerate() {
        let Some(f2) = e.f2 else { continue };
        if e.visible {
            continue;
        }
        let (a, b) = (root(&mut owner, e.f1.0), root(&mut owner, f2.0));
        if a == b {
            // Both sides are one face already: the edge stays (a bridge).
            continue;
        }
        let [x, y] = e.v;
        let fa = faces[a].take().unwrap_or_default();
        let fb = faces[b].take().unwrap_or_default();
        let j = side(&fa, x, y, &corner).ok_or_else(|| joining(x, y))?;
        let k = side(&fb, y, x, &corner).ok_or_else(|| joining(x, y))?;
        let (n, m) = (fa.len(), fb.len());
        for (from, to) in [(fb[k], fa[(j + 1) % n]), (fb[(k + 1) % m], fa[j])] {
            merged.insert(from, to);
            joins.push((from, to));
        }
        let mut joined = Vec::with_capacity(n + m - 2);
        joined.extend_from_slice(&fa[..=j]);
        joined.extend((2..m).map(|t| fb[(k + t) % m]));
        joined.extend_from_slice(&fa[j + 1..]);
        faces[a] = Some(joined);
        owner[b] = a;
        let gone = std::mem::take(&mut members[b]);
        members[a].extend(gone);
        kept[ei] = false;
    }
    let resolve = |mut s: Slot| {
        while let Some(&t) = merged.get(&s) {
            s = t;
        }
        s
    };
    // Channels whose two triangles disagree at a joined edge's end.
    let seams: Vec<(i32, String)> = tri
        .maps
        .iter()
        .filter_map(|m| {
            joins.iter().find_map(|&(from, to)| {
                let (mf, mt) = (m.faces[from.0][from.1], m.faces[to.0][to.1]);
                (mf != mt).then(|| {
                    (
                        m.channel,
                        format!(
                            "its map vertices {mt} and {mf} meet at vertex {} across a hidden \
                             edge, and which one Max's polygon conversion keeps is not derived",
                            corner(from)
                        ),
                    )
                })
            })
        })
        .collect();
    let mut out_faces = Vec::new();
    let mut slots_of = Vec::new();
    for (i, f) in faces.iter().enumerate() {
        let Some(slots) = f else { continue };
        let v: Vec<u32> = slots.iter().map(|&s| corner(s)).collect();
        let n = v.len();
        if let Some(c) = (0..n).find(|&c| v[(c + n - 1) % n] == v[(c + 1) % n]) {
            return Err(EvalError::not_evaluated_why(
                format!("vertex {} inside a polygon (every edge on it hidden)", v[c]),
                "Max's polygon conversion drops it, and its vertex numbering after is not derived",
            ));
        }
        let at: HashMap<Slot, usize> = slots.iter().enumerate().map(|(c, &s)| (s, c)).collect();
        let mut tris = Vec::with_capacity(members[i].len());
        let mut sorted = members[i].clone();
        sorted.sort_unstable();
        for t in sorted {
            let mut c3 = [0usize; 3];
            for (c, out) in c3.iter_mut().enumerate() {
                *out = *at.get(&resolve((t, c))).ok_or_else(|| {
                    EvalError::malformed("", format!("triangle {t} corner {c} lost in a join"))
                })?;
            }
            tris.push(c3);
        }
        let first = &tri.faces[i];
        out_faces.push(PolyFace {
            v,
            tris,
            material: first.material,
            smoothing: first.smoothing,
        });
        slots_of.push(slots.clone());
    }
    let maps = tri
        .maps
        .iter()
        .filter(|m| seams.iter().all(|(c, _)| *c != m.channel))
        .map(|m| PolyMap {
            channel: m.channel,
            vertices: m.vertices.clone(),
            faces: slots_of
                .iter()
                .map(|slots| slots.iter().map(|&(f, c)| m.faces[f][c]).collect())
                .collect(),
        })
        .collect();
    let mut poly = PolyMesh {
        vertices: tri.vertices.clone(),
        faces: out_faces,
        maps,
        edges: None,
        normals: None,
    };
    poly.validate()?;
    let numbered = edges
        .iter()
        .zip(&kept)
        .filter(|(_, &k)| k)
        .map(|(e, _)| e.v)
        .collect();
    poly.set_edges(numbered)?;
    Ok((poly, seams))
}

/// `tri` as Max converts a triangle mesh to polygons for a poly modifier
/// (`SetFromTri`, `MakePolyMesh`; replayed in `poly_make`): regions joined
/// across hidden edges, holes bridged, edges numbered as Max numbers them.
/// A map seam across a joined edge is refused: which map vertex the polygon
/// keeps is not derived. zveno.max's Rectangle037 (T26 PolygonStories,
/// docs/unseen-files.md) checks it: the thirteen sizes its first Edit Poly
/// saved all equal this conversion's (the per-region outline this replaced
/// gave 60 edges where Max saved 42).
pub(crate) fn as_max_converts(tri: &Mesh) -> Result<PolyMesh, EvalError> {
    let (poly, seams) = make_poly_mesh(tri)?;
    if let Some((channel, why)) = seams.into_iter().next() {
        return Err(EvalError::not_evaluated_why(
            format!("map channel {channel}"),
            why,
        ));
    }
    Ok(poly)
}

/// The face `f` has merged into.
fn root(owner: &mut [usize], mut f: usize) -> usize {
    while owner[f] != f {
        owner[f] = owner[owner[f]];
        f = owner[f];
    }
    f
}

/// The one corner of `face` from which it runs `x` → `y`.
fn side(face: &[Slot], x: u32, y: u32, corner: &impl Fn(Slot) -> u32) -> Option<usize> {
    let n = face.len();
    let mut found = (0..n).filter(|&j| corner(face[j]) == x && corner(face[(j + 1) % n]) == y);
    let j = found.next()?;
    found.next().is_none().then_some(j)
}

fn joining(x: u32, y: u32) -> EvalError {
    EvalError::not_evaluated_why(
        format!("hidden edge {x}–{y} between triangles facing opposite ways"),
        "how Max's polygon conversion joins across it is not derived",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;
    use crate::eval::objects::mesh::Face;

    fn face(v: [u32; 3], flags: u16) -> Face {
        Face {
            v,
            smoothing: 0,
            material: 0,
            flags,
        }
    }

    fn mesh(n: u32, faces: Vec<Face>) -> Mesh {
        Mesh {
            vertices: (0..n).map(|i| Vec3(f64::from(i), 0.0, 0.0)).collect(),
            faces,
            ..Mesh::default()
        }
    }

    /// Two quads across hidden diagonals and a lone triangle: each quad is
    /// its first triangle's corners with the second's far corner inserted,
    /// and the hidden diagonals leave the edge numbering.
    #[test]
    fn quads_join_across_their_diagonals() {
        let tri = mesh(
            6,
            vec![
                face([0, 1, 2], 0b011),
                face([0, 2, 3], 0b110),
                face([1, 4, 2], 0b111),
            ],
        );
        let (poly, _) = make_poly_mesh(&tri).expect("converts");
        let v: Vec<&[u32]> = poly.faces.iter().map(|f| f.v.as_slice()).collect();
        assert_eq!(v, [&[0, 1, 2, 3][..], &[1, 4, 2]]);
        assert_eq!(poly.faces[0].tris, [[0, 1, 2], [0, 2, 3]]);
        assert_eq!(
            poly.edges.as_deref(),
            Some(&[[0, 1], [1, 2], [2, 3], [3, 0], [1, 4], [4, 2]][..])
        );
    }

    /// A pentagon fan with hidden diagonals is one polygon keeping its
    /// triangles; a lone triangle stays one.
    #[test]
    fn fan_of_hidden_diagonals_is_one_polygon() {
        let tri = Mesh {
            vertices: (0..6).map(|i| Vec3(f64::from(i), 0.0, 0.0)).collect(),
            faces: vec![
                face([5, 0, 1], 0b111),
                face([0, 1, 2], 0b011),
                face([0, 2, 3], 0b010),
                face([0, 3, 4], 0b110),
            ],
            ..Mesh::default()
        };
        let poly = as_max_converts(&tri).expect("joined");
        assert_eq!(poly.faces.len(), 2);
        assert_eq!(poly.faces[0].v, [5, 0, 1]);
        assert_eq!(poly.faces[1].v, [0, 1, 2, 3, 4]);
        assert_eq!(poly.faces[1].tris, [[0, 1, 2], [0, 2, 3], [0, 3, 4]]);
    }

    /// A square with a square hole (vertices 0–3 outside, 4–7 inside), its
    /// eight triangles joined across hidden edges: one polygon whose outline
    /// runs into the hole and back along the one hidden edge the walk meets
    /// when both its sides are already that polygon, which stays an edge.
    #[test]
    fn a_hole_is_bridged_along_the_last_hidden_edge() {
        // Outer square 0 1 2 3 counter-clockwise, inner 4 5 6 7 (4 near 0).
        // Each side's trapezoid is two triangles; all the spokes are hidden.
        let tri = mesh(
            8,
            vec![
                face([0, 1, 5], 0b001),
                face([0, 5, 4], 0b010),
                face([1, 2, 6], 0b001),
                face([1, 6, 5], 0b010),
                face([2, 3, 7], 0b001),
                face([2, 7, 6], 0b010),
                face([3, 0, 4], 0b001),
                face([3, 4, 7], 0b010),
            ],
        );
        let (poly, _) = make_poly_mesh(&tri).expect("converts");
        assert_eq!(poly.faces.len(), 1);
        let f = &poly.faces[0];
        assert_eq!(f.v.len(), 10, "{:?}", f.v);
        assert_eq!(f.tris.len(), 8);
        // Eight sides plus the bridge, which the face runs both ways.
        let edges = poly.edges.as_deref().expect("numbered");
        assert_eq!(edges.len(), 9);
        let bridge = edges
            .iter()
            .find(|e| e[0] < 4 && e[1] >= 4 || e[0] >= 4 && e[1] < 4)
            .expect("a bridge");
        let n = f.v.len();
        let runs = |a: u32, b: u32| (0..n).any(|j| f.v[j] == a && f.v[(j + 1) % n] == b);
        assert!(runs(bridge[0], bridge[1]) && runs(bridge[1], bridge[0]));
    }

    /// A fan around a vertex whose every edge is hidden is refused by name.
    #[test]
    fn a_vertex_inside_a_polygon_is_refused() {
        let tri = mesh(
            4,
            vec![
                face([3, 0, 1], 0b010),
                face([3, 1, 2], 0b010),
                face([3, 2, 0], 0b010),
            ],
        );
        let e = make_poly_mesh(&tri).expect_err("refused");
        assert!(e.to_string().contains("inside a polygon"), "{e}");
    }
    /// Region 200 of Box002's ProBoolean in Buwaka's sidewalk 03.max (a
    /// quad with five square holes, 32 triangles, stored order and edge
    /// flags): Max's polygon, from the Unwrap UVW cache above the Edit Poly
    /// (docs/unseen-files.md), is one 34-gon bridged to the holes, from this
    /// first corner. The region's own triangles in their order give the same
    /// joins as the whole mesh: every edge it shares with others is visible.
    #[test]
    fn sidewalk_region_with_five_holes_is_maxs_polygon() {
        #[rustfmt::skip]
        let stored: [(u32, u32, u32, u16); 32] = [
            (279, 7, 275, 0b100), (4, 275, 7, 0b100), (4, 273, 275, 0b010), (6, 245, 5, 0b100),
            (6, 247, 245, 0b010), (7, 247, 6, 0b100), (7, 243, 247, 0b010), (7, 255, 243, 0b000),
            (7, 251, 255, 0b010), (7, 263, 251, 0b000), (7, 259, 263, 0b010), (7, 271, 259, 0b000),
            (7, 267, 271, 0b010), (245, 4, 5, 0b010), (241, 4, 245, 0b100), (255, 241, 243, 0b010),
            (253, 241, 255, 0b100), (253, 4, 241, 0b000), (249, 4, 253, 0b100), (263, 249, 251, 0b010),
            (261, 249, 263, 0b100), (261, 4, 249, 0b000), (257, 4, 261, 0b100), (271, 257, 259, 0b010),
            (269, 257, 271, 0b100), (269, 4, 257, 0b000), (265, 4, 269, 0b100), (4, 277, 273, 0b010),
            (265, 277, 4, 0b000), (265, 279, 277, 0b010), (267, 279, 265, 0b100), (7, 279, 267, 0b000),
        ];
        let tri = mesh(
            280,
            stored
                .iter()
                .map(|&(a, b, c, f)| face([a, b, c], f))
                .collect(),
        );
        let (poly, _) = make_poly_mesh(&tri).expect("converts");
        assert_eq!(poly.faces.len(), 1);
        #[rustfmt::skip]
        let max: [u32; 34] = [
            6, 7, 4, 277, 273, 275, 279, 267, 271, 269, 257, 259, 263, 261, 249, 251, 255, 253,
            241, 243, 247, 245, 241, 253, 249, 261, 257, 269, 265, 267, 279, 277, 4, 5,
        ];
        assert_eq!(poly.faces[0].v, max);
        // 24 sides and the 5 bridges.
        assert_eq!(poly.edges.as_ref().map(Vec::len), Some(29));
    }
}
