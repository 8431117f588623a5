//! Spline shapes of the corpus and the meshes made of them. No export of
//! these scenes exists and 3ds Max's Mesh Totals leave bare shapes out (the
//! renderable Lines of 1st_island and Arcs of animation / Villian: those
//! files' totals equal the other nodes' alone), while Sword's extruded Line
//! sits under an Edit Poly that is not evaluated. So the checks are the
//! file's own stored values and stated invariants:
//! - Sword's Line: 15 knots, closed (du = 1/15 in every knot, as Max
//!   parametrises a closed spline), 6 steps with optimize: 10 curved segments
//!   get 6 points each, the 5 straight ones none → 75 points; Extrude's
//!   3 units in 1 segment with morph caps → 150 vertices, 2·75 side and
//!   2·(75 − 2) cap triangles, a closed outward surface from z = 0 to 3.
//! - the renderable Lines (3 sides, thickness 0.51) and Arcs (rectangular
//!   0.989674 × 9.89674): one ring per point, every ring point at half the
//!   thickness from its path point (radial) or within the rectangle's half
//!   diagonal; the Arcs' points on their stored radius 4.453.
//! - the Eggs: the outline's widest span is the stored length.

use maxfs_scene::eval::core::memo::Stack;
use maxfs_scene::eval::objects::shape::{ShapeEval, ARC, EGG, LINE, SPLINE_SHAPE};
use maxfs_scene::eval::objects::surface_checks::{
    closed as closed_surface, signed_volume as volume,
};
use maxfs_scene::eval::{SceneEval, Vec3};
use maxfs_tests::{corpus_eval, named_nodes};

fn shapes(eval: &SceneEval) -> Vec<(usize, String, std::sync::Arc<ShapeEval>)> {
    named_nodes(eval)
        .into_iter()
        .filter_map(|(n, name)| {
            let s = eval.shape(n, 0)?;
            Some((n, name.clone(), s.unwrap_or_else(|e| panic!("{name}: {e}"))))
        })
        .collect()
}

fn class_of(eval: &SceneEval, node: usize) -> Option<maxfs_scene::typed::ClassId> {
    let obj = eval.node_object(node)?;
    eval.graph.objects[obj].class.as_ref().map(|c| c.class_id)
}

#[test]
fn sword_line_extrudes_to_a_closed_slab() {
    let eval = corpus_eval("max/prims-greejesh/Sword.max");
    let found = shapes(&eval);
    let (node, name, s) = found
        .iter()
        .find(|(n, _, _)| class_of(&eval, *n) == Some(LINE))
        .expect("the Line");
    let spline = &s.shape.as_ref().expect("Bezier").splines[0];
    assert_eq!((spline.knots.len(), spline.closed), (15, true), "{name}");
    assert_eq!(s.polylines.len(), 1);
    assert_eq!(s.polylines[0].pts.len(), 15 + 10 * 6);
    let (stack, _) = eval.modifier_stack(*node).expect("stack");
    let names: Vec<&str> = stack.iter().map(|a| a.name).collect();
    assert_eq!(names, ["Edit Poly", "Extrude"]);
    let mesh = eval
        .mesh_with(*node, 0, Stack::Without(stack[0].object))
        .expect("geometry")
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(mesh.vertices.len(), 150);
    assert_eq!(mesh.faces.len(), 2 * 75 + 2 * 73);
    assert!(closed_surface(&mesh), "{name}: closed surface");
    assert!(volume(&mesh) > 0.0, "{name}: faces point outwards");
    // Level 0 then level 3, each the polyline's points (run backwards when
    // the outline had to be turned counter-clockwise for capping).
    let pts = &s.polylines[0].pts;
    let forward = (0..75).all(|i| mesh.vertices[i].minus(pts[i].p).len() < 1e-9);
    let backward = (0..75).all(|i| mesh.vertices[i].minus(pts[74 - i].p).len() < 1e-9);
    assert!(forward || backward, "{name}: level 0 is the polyline");
    for i in 0..75 {
        let up = mesh.vertices[75 + i].minus(mesh.vertices[i]);
        assert!(
            up.minus(maxfs_scene::eval::core::math::Vec3(0.0, 0.0, 3.0))
                .len()
                < 1e-9
        );
    }
    // The whole stack still stops at the Edit Poly, named by coverage.
    if let Some(Err(e)) = eval.mesh(*node, 0) {
        assert!(e.to_string().starts_with("modifier Edit Poly"), "{e}");
    }
}

#[test]
fn renderable_lines_and_arcs_become_tubes() {
    let mut checked = (0, 0);
    for file in [
        "max/prims-pranto/1st_island.max",
        "max/prims-pranto/animation.max",
        "max/prims-pranto/Villian.max",
    ] {
        let eval = corpus_eval(file);
        for (node, name, s) in shapes(&eval) {
            let class = class_of(&eval, node);
            if !s.render.renderable {
                assert!(eval.mesh(node, 0).is_none(), "{name}: not geometry");
                continue;
            }
            let mesh = eval
                .mesh(node, 0)
                .expect("geometry")
                .unwrap_or_else(|e| panic!("{file} {name}: {e}"));
            let pts: Vec<_> = s.polylines.iter().flat_map(|l| l.pts.iter()).collect();
            let ring = if s.render.section.rectangular {
                4
            } else {
                s.render.section.sides as usize
            };
            assert_eq!(mesh.vertices.len(), pts.len() * ring, "{name}");
            assert!(closed_surface(&mesh), "{file} {name}: closed (capped) tube");
            assert!(volume(&mesh) > 0.0, "{file} {name}: outwards");
            // Each ring point lies at the section's radius from the axis of
            // the segments it joins (mitred where the path turns).
            let axes: Vec<Vec<(Vec3, Vec3)>> = s
                .polylines
                .iter()
                .map(|l| {
                    let n = l.pts.len();
                    (0..n)
                        .map(|i| {
                            let a = l.pts[i].p;
                            let b = if i + 1 < n {
                                l.pts[i + 1].p
                            } else if l.closed {
                                l.pts[0].p
                            } else {
                                a.plus(a.minus(l.pts[i - 1].p))
                            };
                            (a, b)
                        })
                        .collect()
                })
                .collect();
            let segments: Vec<(Vec3, Vec3)> = axes.into_iter().flatten().collect();
            let from_axis = |v: Vec3, (a, b): (Vec3, Vec3)| {
                let d = b.minus(a).normalized();
                let o = v.minus(a);
                o.minus(d.scale(o.dot(d))).len()
            };
            let want = if s.render.section.rectangular {
                (s.render.section.width.powi(2) + s.render.section.length.powi(2)).sqrt() / 2.0
            } else {
                s.render.section.thickness / 2.0
            };
            let mut worst = 0.0f64;
            for (i, v) in mesh.vertices.iter().enumerate() {
                let p = i / ring;
                let d = from_axis(*v, segments[p]);
                worst = worst.max((d - want).abs());
                // The ring before it along the path: same distance from
                // the segment arriving here (within a polyline).
                if p > 0 && segments[p - 1].1.minus(segments[p].0).len() < 1e-9 {
                    worst = worst.max((from_axis(*v, segments[p - 1]) - want).abs());
                }
            }
            assert!(worst < 1e-5 * want.max(1.0), "{name}: {worst} off {want}");
            if class == Some(LINE) {
                assert_eq!(
                    (s.render.section.sides, s.render.section.thickness as f32),
                    (3, 0.51)
                );
                checked.0 += 1;
            }
            if class == Some(ARC) {
                assert!(s.render.section.rectangular);
                assert!(
                    (s.render.section.width - 0.989674).abs() < 1e-6,
                    "{}",
                    s.render.section.width
                );
                assert!(
                    (s.render.section.length - 9.89674).abs() < 1e-5,
                    "{}",
                    s.render.section.length
                );
                // 4 knots, 3 curved segments, 6 steps.
                assert_eq!(pts.len(), 4 + 3 * 6);
                for p in &pts {
                    let r = (p.p.0 * p.p.0 + p.p.1 * p.p.1).sqrt();
                    assert!((r - 4.453).abs() < 4.453 * 5e-4, "{name}: radius {r}");
                }
                checked.1 += 1;
            }
        }
    }
    assert_eq!(checked, (4, 2), "1st_island's 4 Lines, the 2 Arcs");
}

#[test]
fn eggs_span_their_length_and_bare_splines_decode() {
    let eval = corpus_eval("max/prims-pranto/Villian.max");
    let mut eggs = 0;
    for (node, name, s) in shapes(&eval) {
        if class_of(&eval, node) != Some(EGG) {
            continue;
        }
        let obj = eval.node_object(node).expect("object");
        let pb = maxfs_scene::eval::core::pblock::reference(&eval.graph, obj, 3).expect("block");
        let p = maxfs_scene::eval::objects::primitive::block_params(&eval, pb, 0).expect("p");
        let length = p.float(1).expect("length");
        let outline = &s.polylines[0];
        assert!(outline.closed);
        let span = outline
            .pts
            .iter()
            .flat_map(|a| outline.pts.iter().map(move |b| a.p.minus(b.p).len()))
            .fold(0.0, f64::max);
        assert!(
            (span - length).abs() < 0.01 * length,
            "{name}: {span} vs {length}"
        );
        eggs += 1;
    }
    assert_eq!(eggs, 2);
    for (file, class, knots) in [
        ("max/misc/Key.max", SPLINE_SHAPE, 2),
        ("max/cat/LD33_Character.max", LINE, 5),
    ] {
        let eval = corpus_eval(file);
        let found = shapes(&eval);
        let (_, name, s) = found
            .iter()
            .find(|(n, _, _)| class_of(&eval, *n) == Some(class))
            .unwrap_or_else(|| panic!("{file}: no shape"));
        let b = s.shape.as_ref().expect("Bezier");
        assert_eq!(b.splines[0].knots.len(), knots, "{file} {name}");
        assert!(!b.splines[0].closed);
    }
}
