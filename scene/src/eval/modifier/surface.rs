//! Normal (0xf8614, 0) and Smooth (0xf8613, 0), Max's surface modifiers
//! (public Max SDK sample source of both):
//!
//! - Normal: old ParamBlock (reference 0) by index, 0 unify, 1 flip. Flip
//!   turns every face over as Max's `Mesh::FlipNormal` does — corners 0 and
//!   1 swap, so edge A stays and edges B and C trade visibility; every map
//!   channel's face swaps the same corners. Unify (Max's `UnifyNormals`,
//!   which reorients faces by their neighbours) is not evaluated.
//! - Smooth: ParamBlock2 (reference 0) by id, 0 auto smooth, 1 threshold
//!   (radians), 2 smoothing bits, 3 prevent indirect. Without auto smooth
//!   every face's smoothing groups become the bits; with it the groups follow
//!   the angles between the faces' normals (`auto_smooth`): the SDK sample's
//!   `ModifyObject` calls `MNMesh::AutoSmooth` on a poly object (an Editable
//!   Poly, with only vertex-moving modifiers below: its polygons are
//!   rebuilt) and `Mesh::AutoSmooth(threshold, useSel, prevent)` on a
//!   triangle mesh.
//!
//! - Material (0xf8612, 0): old ParamBlock (reference 0) by index, 0 the
//!   material ID as the user sees it (1-based). Every face takes ID − 1,
//!   clamped to 0..=0xffff (the sample's `MatMod::ModifyObject`, which sets
//!   `setFaceMtlIndex` on a triangle mesh and the polygons' `material` on a
//!   poly object alike).
//!
//! All three act on the face selection passed up the stack, so above a live
//! sub-object selection they are refused by name (`sub_selection`; Smooth
//! uses it at face levels only and smooths every face otherwise).

use super::auto_smooth::{self, Input, Options};
use super::turbo_smooth::{self, PolySource};
use super::{Applied, ModContext};
use crate::eval::core::pblock;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Mesh, Poly};
use crate::eval::objects::normals;
use crate::eval::objects::poly::PolyMesh;
use crate::eval::objects::primitive::block_params;
use crate::typed::ClassId;

pub const NORMAL: ClassId = ClassId(0xf8614, 0);
pub const SMOOTH: ClassId = ClassId(0xf8613, 0);
pub const MATERIAL: ClassId = ClassId(0xf8612, 0);

fn params(
    m: &Applied,
    cx: &ModContext,
) -> Result<crate::eval::objects::primitive::Params, EvalError> {
    let pb = pblock::reference(&cx.eval.graph, m.object, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    block_params(cx.eval, pb, cx.t)
}

/// Turns every face over (Max's `Mesh::FlipNormal` on each face).
pub fn flip_faces(mesh: &mut Mesh) {
    for f in &mut mesh.faces {
        f.v.swap(0, 1);
        let (b, c) = (f.flags >> 1 & 1, f.flags >> 2 & 1);
        f.flags = (f.flags & !0b110) | c << 1 | b << 2;
    }
    for ch in &mut mesh.maps {
        for f in &mut ch.faces {
            f.swap(0, 1);
        }
    }
}

pub(super) fn apply_normal(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let p = params(m, cx)?;
    if p.flag(0, false) {
        return Err(EvalError::not_evaluated_why(
            "unify",
            "Max's UnifyNormals is not public",
        ));
    }
    if p.flag(1, true) {
        mesh.check_map_faces()?;
        flip_faces(mesh);
    }
    Ok(())
}

/// The face material index Material's parameter (the 1-based ID the user
/// sees) gives.
pub fn material_index(id: i64) -> u16 {
    (id - 1).clamp(0, 0xffff) as u16
}

pub(super) fn apply_material(
    m: &Applied,
    mesh: &mut Mesh,
    cx: &ModContext,
) -> Result<(), EvalError> {
    let id = material_index(params(m, cx)?.int_or(0, 1));
    for f in &mut mesh.faces {
        f.material = id;
    }
    Ok(())
}

pub(super) fn apply_smooth(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let p = params(m, cx)?;
    if p.flag(0, false) {
        let o = Options {
            angle: p.float_or(1, std::f64::consts::FRAC_PI_6),
            prevent_indirect: p.flag(3, false),
        };
        // Max's Smooth runs `MNMesh::AutoSmooth` on a poly object's
        // polygons and `Mesh::AutoSmooth` on triangles.
        if let Ok(PolySource::EditablePoly(loops, _)) = turbo_smooth::polygon_source(m, cx) {
            return auto_smooth_polygons(mesh, &loops, o);
        }
        return auto_smooth_mesh(mesh, o);
    }
    let bits = p.int_or(2, 0) as u32;
    for f in &mut mesh.faces {
        f.smoothing = bits;
    }
    Ok(())
}

/// Smooth on a polygon mesh (its input as an Edit Poly above sees it): Max's
/// Smooth on a poly object runs `MNMesh::AutoSmooth` on the polygons and
/// passes polygons up. Polygon (Newell) normals, regions joined across
/// polygon sides (`auto_smooth`); without auto smooth every polygon takes
/// the bits.
pub(super) fn apply_smooth_poly(
    m: &Applied,
    poly: &mut PolyMesh,
    cx: &ModContext,
) -> Result<(), EvalError> {
    let p = params(m, cx)?;
    if !p.flag(0, false) {
        let bits = p.int_or(2, 0) as u32;
        poly.faces.iter_mut().for_each(|f| f.smoothing = bits);
        return Ok(());
    }
    poly.validate()?;
    let o = Options {
        angle: p.float_or(1, std::f64::consts::FRAC_PI_6),
        prevent_indirect: p.flag(3, false),
    };
    let input = Input::polygons(poly, vec![true; poly.faces.len()]);
    let mut groups = vec![0u32; poly.faces.len()];
    auto_smooth::assign(&input, &mut groups, o)?;
    for (f, g) in poly.faces.iter_mut().zip(groups) {
        f.smoothing = g;
    }
    Ok(())
}

/// Max's `Mesh::AutoSmooth` on every triangle, by the triangles' own normals.
///
/// When the input came from polygons, newer Smooth modifiers smooth the
/// polygon form instead (`MNMesh::AutoSmooth`, polygon normals); the two agree
/// while every polygon's triangles lie within the threshold of each other,
/// which is checked across each hidden (diagonal) edge: a polygon folded
/// beyond it is refused rather than split.
pub fn auto_smooth_mesh(mesh: &mut Mesh, o: Options) -> Result<(), EvalError> {
    let p: Vec<[f64; 3]> = mesh.vertices.iter().map(|v| v.to_array()).collect();
    let normals: Vec<crate::eval::core::math::Vec3> = mesh
        .faces
        .iter()
        .map(|f| {
            let [x, y, z] = normals::face_normal(&p, f);
            crate::eval::core::math::Vec3(x, y, z)
        })
        .collect();
    check_flat_polygons(mesh, &normals, o.angle)?;
    let input = Input {
        loops: mesh.faces.iter().map(|f| &f.v[..]).collect(),
        normals,
        selected: vec![true; mesh.faces.len()],
        vertex_count: mesh.vertices.len(),
    };
    let mut groups: Vec<u32> = mesh.faces.iter().map(|f| f.smoothing).collect();
    auto_smooth::assign(&input, &mut groups, o)?;
    for (f, g) in mesh.faces.iter_mut().zip(groups) {
        f.smoothing = g;
    }
    Ok(())
}

/// Max's `MNMesh::AutoSmooth` on an Editable Poly's polygons `loops` (the
/// Smooth sample's branch for polygon input): polygon (Newell) normals,
/// regions joined across polygon edges, each triangle taking its polygon's
/// groups. `mesh` holds the polygons' triangles in polygon order (k − 2 per
/// k-gon), as the Editable Poly and vertex-only modifiers leave them.
pub fn auto_smooth_polygons(mesh: &mut Mesh, loops: &[Poly], o: Options) -> Result<(), EvalError> {
    if let Some(i) = loops.iter().position(|p| p.v.len() < 3) {
        return Err(EvalError::malformed(
            format!("polygon {i}"),
            format!("{} corners", loops[i].v.len()),
        ));
    }
    turbo_smooth::check_triangle_count(mesh, loops)?;
    let input = Input {
        loops: loops.iter().map(|p| &p.v[..]).collect(),
        normals: loops
            .iter()
            .map(|p| auto_smooth::newell(&mesh.vertices, &p.v))
            .collect(),
        selected: vec![true; loops.len()],
        vertex_count: mesh.vertices.len(),
    };
    let mut groups = vec![0u32; loops.len()];
    auto_smooth::assign(&input, &mut groups, o)?;
    let mut t = 0;
    for (p, g) in loops.iter().zip(groups) {
        let k = p.v.len() - 2;
        mesh.faces[t..t + k]
            .iter_mut()
            .for_each(|f| f.smoothing = g);
        t += k;
    }
    Ok(())
}

/// Refuses a hidden edge (a polygon's diagonal) whose two triangles meet
/// beyond the threshold (see `auto_smooth_mesh`).
fn check_flat_polygons(
    mesh: &Mesh,
    normals: &[crate::eval::core::math::Vec3],
    angle: f64,
) -> Result<(), EvalError> {
    let mut hidden: std::collections::HashMap<(u32, u32), usize> = Default::default();
    for (i, f) in mesh.faces.iter().enumerate() {
        for k in 0..3 {
            if f.flags >> k & 1 != 0 {
                continue;
            }
            let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
            if let Some(&j) = hidden.get(&(b, a)) {
                let between = auto_smooth::angle_between(normals[i], normals[j]);
                if between > auto_smooth::PARALLEL && !auto_smooth::smooth_edge(between, angle)? {
                    return Err(EvalError::not_evaluated_why(
                        format!(
                            "auto smooth of a polygon folded by {:.2}° across its diagonal \
                             (faces {j} and {i})",
                            between.to_degrees()
                        ),
                        "Max smooths a polygon input as whole polygons",
                    ));
                }
            } else {
                hidden.insert((a, b), i);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::mesh::{Face, MapChannel};

    /// A closed prism of `n` sides (radius 1, height 2) as Max triangulates
    /// it: each side quad and each cap fan split with hidden diagonals.
    fn prism(n: u32) -> Mesh {
        let mut vertices = Vec::new();
        for z in [-1.0, 1.0] {
            for i in 0..n {
                let a = std::f64::consts::TAU * f64::from(i) / f64::from(n);
                vertices.push(crate::eval::core::math::Vec3(a.cos(), a.sin(), z));
            }
        }
        let face = |v: [u32; 3], flags: u16| Face {
            v,
            smoothing: 0,
            material: 0,
            flags,
        };
        let mut faces = Vec::new();
        for i in 0..n {
            let j = (i + 1) % n;
            faces.push(face([i, j, n + j], 0b011));
            faces.push(face([n + j, n + i, i], 0b011));
        }
        for i in 1..n - 1 {
            faces.push(face([0, i + 1, i], 0b010));
            faces.push(face([n, n + i, n + i + 1], 0b010));
        }
        Mesh {
            vertices,
            faces,
            ..Mesh::default()
        }
    }

    fn corner_normals(m: &Mesh) -> Vec<[[f64; 3]; 3]> {
        let p: Vec<[f64; 3]> = m.vertices.iter().map(|v| v.to_array()).collect();
        normals::corner_normals(&p, &m.faces, normals::Weighting::CornerAngle)
    }

    #[test]
    fn auto_smooth_gives_the_normals_the_angle_rule_predicts() {
        let o = |deg: f64| Options {
            angle: deg.to_radians(),
            prevent_indirect: false,
        };
        // A box (4 sides, 90° apart) at 30°: six flat faces, every corner
        // normal is its face's, and sides and caps share no group.
        let mut cube = prism(4);
        auto_smooth_mesh(&mut cube, o(30.0)).unwrap();
        let p: Vec<[f64; 3]> = cube.vertices.iter().map(|v| v.to_array()).collect();
        for (f, c) in cube.faces.iter().zip(corner_normals(&cube)) {
            let n = normals::face_normal(&p, f);
            assert!(c
                .iter()
                .all(|x| (0..3).all(|k| (x[k] - n[k]).abs() < 1e-12)));
        }
        // The same box at exactly 90° is Max's float comparison's call.
        assert!(auto_smooth_mesh(&mut prism(4), o(90.0)).is_err());
        // Threshold 0: all faces hard (coplanar triangles give one normal).
        let mut hard = prism(12);
        auto_smooth_mesh(&mut hard, o(0.0)).unwrap();
        let p: Vec<[f64; 3]> = hard.vertices.iter().map(|v| v.to_array()).collect();
        for (f, c) in hard.faces.iter().zip(corner_normals(&hard)) {
            let n = normals::face_normal(&p, f);
            assert!(c.iter().all(|x| (0..3).all(|k| (x[k] - n[k]).abs() < 1e-9)));
        }
        // A 12-sided cylinder at 45°: the sides (30° apart) smooth into radial
        // normals — the hand-computed average of the two side faces at a
        // vertex points at it from the axis — and the caps (90°) stay flat.
        let mut cyl = prism(12);
        auto_smooth_mesh(&mut cyl, o(45.0)).unwrap();
        let sides = cyl.faces[0].smoothing;
        assert_ne!(sides, 0);
        assert!(cyl.faces[..24].iter().all(|f| f.smoothing == sides));
        assert!(cyl.faces[24..].iter().all(|f| f.smoothing & sides == 0));
        for (f, c) in cyl.faces.iter().zip(corner_normals(&cyl)) {
            for (k, x) in c.iter().enumerate() {
                let v = cyl.vertices[f.v[k] as usize];
                let want = if f.smoothing == sides {
                    [v.0, v.1, 0.0]
                } else {
                    [0.0, 0.0, v.2]
                };
                assert!(
                    (0..3).all(|i| (x[i] - want[i]).abs() < 1e-9),
                    "{x:?} {want:?}"
                );
            }
        }
        // 12 sides at 30° exactly: refused, not guessed.
        assert!(auto_smooth_mesh(&mut prism(12), o(30.0)).is_err());
        // A quad folded 40° across its hidden diagonal under 30°: refused.
        let mut fold = prism(4);
        fold.vertices[5].2 = 3.0;
        let e = auto_smooth_mesh(&mut fold, o(20.0)).unwrap_err();
        assert!(e.to_string().contains("diagonal"), "{e}");
    }

    /// Polygons `loops` over `vertices` and their fan triangles in polygon
    /// order, as an Editable Poly hands them up the stack.
    fn fanned(
        vertices: Vec<crate::eval::core::math::Vec3>,
        loops: &[Vec<u32>],
    ) -> (Mesh, Vec<Poly>) {
        let mut faces = Vec::new();
        for l in loops {
            for k in 1..l.len() - 1 {
                faces.push(Face {
                    v: [l[0], l[k], l[k + 1]],
                    smoothing: 0,
                    material: 0,
                    flags: 0,
                });
            }
        }
        let polys = loops
            .iter()
            .map(|l| Poly {
                v: l.clone(),
                material: 0,
                smoothing: 0,
                cuts: Vec::new(),
            })
            .collect();
        let mesh = Mesh {
            vertices,
            faces,
            ..Mesh::default()
        };
        (mesh, polys)
    }

    #[test]
    fn polygon_input_is_smoothed_by_whole_polygons() {
        let o = |deg: f64| Options {
            angle: deg.to_radians(),
            prevent_indirect: false,
        };
        // A 12-sided prism as polygons: 12 side quads (30° apart) and two
        // 12-gon caps. At 45° the sides form one region with one bit; each
        // cap is a region of one polygon and gets none, whatever its 10
        // triangles' own normals would give.
        let n = 12u32;
        let prism = prism(n);
        let mut loops: Vec<Vec<u32>> = (0..n)
            .map(|i| vec![i, (i + 1) % n, n + (i + 1) % n, n + i])
            .collect();
        loops.push((0..n).rev().collect());
        loops.push((n..2 * n).collect());
        let (mut mesh, polys) = fanned(prism.vertices.clone(), &loops);
        mesh.faces.iter_mut().for_each(|f| f.smoothing = 8);
        auto_smooth_polygons(&mut mesh, &polys, o(45.0)).unwrap();
        let sides = mesh.faces[0].smoothing;
        assert_ne!(sides, 0);
        assert!(mesh.faces[..24].iter().all(|f| f.smoothing == sides));
        assert!(mesh.faces[24..].iter().all(|f| f.smoothing == 0));
        // A box whose top quad is folded 30.5° across its diagonal: the
        // triangle rule refuses it under 30°; as polygons it is one face of
        // its own (its Newell normal is more than 30° from each side's), and
        // its two triangles share a group.
        let p = |x: f64, y: f64, z: f64| crate::eval::core::math::Vec3(x, y, z);
        let vertices = vec![
            p(-1.0, -1.0, -1.0),
            p(1.0, -1.0, -1.0),
            p(1.0, 1.0, -1.0),
            p(-1.0, 1.0, -1.0),
            p(-1.0, -1.0, 1.0),
            p(1.0, -1.0, 1.0),
            p(1.0, 1.0, 1.8),
            p(-1.0, 1.0, 1.0),
        ];
        let loops = vec![
            vec![0, 3, 2, 1],
            vec![4, 5, 6, 7],
            vec![0, 1, 5, 4],
            vec![1, 2, 6, 5],
            vec![2, 3, 7, 6],
            vec![3, 0, 4, 7],
        ];
        let (mut mesh, polys) = fanned(vertices, &loops);
        // As triangles with each quad's diagonal hidden.
        let mut tris = mesh.clone();
        tris.faces.iter_mut().enumerate().for_each(|(i, f)| {
            f.flags = if i % 2 == 0 { 0b011 } else { 0b110 };
        });
        assert!(auto_smooth_mesh(&mut tris, o(15.0))
            .unwrap_err()
            .to_string()
            .contains("diagonal"));
        auto_smooth_polygons(&mut mesh, &polys, o(15.0)).unwrap();
        assert!(mesh.faces.iter().all(|f| f.smoothing == 0));
        // Under 80° the top (Newell normal (−1.6, −1.6, 8)) joins the −x and
        // −y sides at 78.9° and so makes one region with them (leaking across
        // their 90° edge); the other sides and the bottom stay apart. A
        // polygon's triangles always agree.
        let (mut mesh, polys) = fanned(mesh.vertices.clone(), &loops);
        auto_smooth_polygons(&mut mesh, &polys, o(80.0)).unwrap();
        let g: Vec<u32> = (0..6).map(|k| mesh.faces[2 * k].smoothing).collect();
        for (k, &gk) in g.iter().enumerate() {
            assert_eq!(gk, mesh.faces[2 * k + 1].smoothing);
        }
        assert_ne!(g[1], 0);
        assert_eq!((g[2], g[5]), (g[1], g[1]));
        assert_eq!((g[0], g[3], g[4]), (0, 0, 0));
        // Damaged input: a polygon of two corners, or too few triangles.
        let mut bad = polys.clone();
        bad[0].v.truncate(2);
        assert!(auto_smooth_polygons(&mut mesh, &bad, o(30.0)).is_err());
        assert!(auto_smooth_polygons(&mut mesh, &polys[..5], o(30.0)).is_err());
    }

    #[test]
    fn flipping_reverses_winding_and_keeps_edges_with_their_vertices() {
        let mut m = Mesh {
            vertices: vec![Default::default(); 3],
            faces: vec![Face {
                v: [0, 1, 2],
                smoothing: 1,
                material: 4,
                // Edge A (0-1) and edge B (1-2) visible, C (2-0) hidden.
                flags: 0b011,
            }],
            maps: vec![MapChannel {
                channel: 1,
                vertices: vec![[0.0; 3]; 3],
                faces: vec![[5, 6, 7]],
            }],
            ..Default::default()
        };
        flip_faces(&mut m);
        let f = m.faces[0];
        assert_eq!(f.v, [1, 0, 2]);
        // Edge 1-2 is now edge C (2-1 … 0): visible; edge 0-2 is B: hidden.
        assert_eq!(f.flags, 0b101);
        assert_eq!((f.smoothing, f.material), (1, 4));
        assert_eq!(m.maps[0].faces[0], [6, 5, 7]);
        flip_faces(&mut m);
        assert_eq!((m.faces[0].v, m.faces[0].flags), ([0, 1, 2], 0b011));
    }
}
