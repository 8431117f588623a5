//! Unit tests of what a mesh modifier on a shape receives: the rule pinned
//! by Source_of_power.max's Edit Poly offsets (points × sides vertices, no
//! cap vertices, for a shape shown as a tube in viewports but not renderable)
//! and the polygon form poly modifiers take of it; Max's documented filling
//! of a shape not shown as a tube.

use super::shape_input::{input_mesh, input_poly};
use crate::eval::core::math::Vec3;
use crate::eval::objects::shape::render_mesh::{RenderParams, Section};
use crate::eval::objects::shape::{PolyLine, PolyPt, ShapeEval};

fn line(n: usize, closed: bool) -> PolyLine {
    let pts = (0..n)
        .map(|i| {
            let a = i as f64 * 0.5;
            PolyPt {
                p: Vec3(10.0 * a.cos(), 10.0 * a.sin(), 0.0),
                knot: i % 3 == 0,
                smooth: true,
                material: 0,
            }
        })
        .collect();
    PolyLine { pts, closed }
}

/// Source_of_power's Lines: not renderable, shown in viewports, renderer's
/// 6 sides of 0.5, viewport's 12 sides (unused: "Use Viewport Settings" off).
fn settings(in_viewport: bool, use_viewport: bool) -> RenderParams {
    RenderParams {
        renderable: false,
        section: Section {
            thickness: 0.5,
            sides: 6,
            angle: 0.0,
            rectangular: false,
            width: 0.1,
            length: 0.1,
            rect_angle: 0.0,
        },
        mapping: false,
        auto_smooth: true,
        threshold: 100f64.to_radians(),
        in_viewport,
        use_viewport,
        viewport: Section {
            thickness: 1.0,
            sides: 12,
            angle: 0.0,
            rectangular: false,
            width: 0.1,
            length: 0.1,
            rect_angle: 0.0,
        },
    }
}

fn shape(lines: Vec<PolyLine>, render: RenderParams) -> ShapeEval {
    ShapeEval {
        class: "Line".to_string(),
        shape: None,
        polylines: lines,
        render,
    }
}

#[test]
fn shape_shown_as_a_tube_gives_points_times_sides_vertices_uncapped() {
    // Line001 / Line003: 11 and 14 points, 6 sides → 66 and 84 vertices;
    // Line001's 60 faces: 10 rows of 6 quads, no end caps.
    for n in [11, 14] {
        let s = shape(vec![line(n, false)], settings(true, false));
        let m = input_mesh(&s).expect("tube");
        assert_eq!(m.vertices.len(), n * 6);
        assert_eq!(m.faces.len(), (n - 1) * 6 * 2);
        let p = input_poly(&s).expect("polygons");
        assert_eq!(p.vertices.len(), n * 6);
        assert!(p.faces.iter().all(|f| f.v.len() == 4));
        assert_eq!(p.faces.len(), (n - 1) * 6);
        // Ring edges and edges along the path; no diagonal survives.
        assert_eq!(p.walked_edges().len(), n * 6 + (n - 1) * 6);
        assert_eq!(p.mn_edges().expect("numbered").len(), n * 6 + (n - 1) * 6);
        assert_eq!(p.to_mesh().expect("mesh").faces.len(), m.faces.len());
    }
}

#[test]
fn closed_spline_tube_is_quads_only_and_viewport_settings_apply() {
    let s = shape(vec![line(10, true)], settings(true, true));
    let p = input_poly(&s).expect("polygons");
    assert_eq!(p.vertices.len(), 10 * 12, "the viewport's 12 sides");
    assert!(p.faces.iter().all(|f| f.v.len() == 4));
    assert_eq!(p.faces.len(), 10 * 12);
}

#[test]
fn shape_not_shown_as_a_tube_is_filled_when_closed_and_bare_points_when_open() {
    // Renderable or not, without "Enable In Viewport" the closed polyline is
    // one polygon over its own points, the open one only vertices.
    for renderable in [false, true] {
        let mut r = settings(false, false);
        r.renderable = renderable;
        let s = shape(vec![line(8, true), line(5, false)], r);
        let m = input_mesh(&s).expect("filled");
        assert_eq!(m.vertices.len(), 8 + 5);
        assert_eq!(m.faces.len(), 8 - 2);
        // Facing +Z: every triangle counter-clockwise seen from above.
        for f in &m.faces {
            let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
            assert!(b.minus(a).cross(c.minus(a)).2 > 0.0);
        }
        let p = input_poly(&s).expect("polygons");
        assert_eq!(p.faces.len(), 1);
        assert_eq!(p.faces[0].v.len(), 8);
        assert_eq!(p.vertices.len(), 13);
        assert_eq!(p.walked_edges().len(), 8);
    }
}
