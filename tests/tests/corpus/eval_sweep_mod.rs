//! Sweep modifier (issue 19 item 7): the corpus holds none, so the test puts
//! one through our writer on 1st_island.max's open Line002 (in its XY
//! plane), its section Sword.max's closed Line001 (transplanted and
//! flattened as the Loft test does). Expected values come from the rules
//! the public files pin (docs/evaluation.md, "Sweep"), not from our output:
//! one level per path polyline point holding every section point
//! (Gate.max's FBX, Sweep_Bridge.max's Mesh Totals), each level square to
//! the path's chord at an open end, the section's Y along the path's +Z and
//! its X along T × Z, both mirrors turning the section by 180° before the X
//! offset (Sweep_Frame.max), each outline capped without new vertices
//! (n − 2 triangles), and a closed, consistently facing surface.

use maxfs_scene::eval::objects::surface_checks::{
    closed as closed_and_consistent, signed_volume as volume,
};

use maxfs_scene::eval::core::math::Vec3;
use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::objects::shape;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;

use crate::eval_loft::{base_of, flat_section, PATH_FILE, PATH_NODE};

const SWEEP: ClassId = ClassId(0x25eb_c866, 0x1f88_220f);
/// ParamBlock2 value types: float, int, bool, angle, radio button, index.
const FLOAT: u16 = 0;
const INT: u16 = 1;
const BOOL: u16 = 4;
const ANGLE: u16 = 5;
const RADIO: u16 = 13;
const INDEX: u16 = 19;

/// How the test's Sweep is set.
#[derive(Clone, Copy)]
struct Set {
    /// None: the custom section; Some(k): built-in k with the section at
    /// reference k + 2.
    built_in: Option<i32>,
    mirrors: (bool, bool),
    x_offset: f32,
    /// The section's reference slot when not the one the choice reads.
    slot: Option<u32>,
}

const PLAIN: Set = Set {
    built_in: None,
    mirrors: (false, false),
    x_offset: 0.0,
    slot: None,
};

/// 1st_island with a Sweep on Line002 (its settings otherwise Gate.max's);
/// the evaluation, the node, the path object and the section object.
fn edited(set: Set) -> (SceneEval, usize, usize, usize) {
    let path_obj = base_of(&maxfs_tests::corpus_eval(PATH_FILE), PATH_NODE);
    let mut e = SceneEdit::open(PATH_FILE);
    let node = e.node(PATH_NODE);
    let b = |v: bool| i32::from(v).to_le_bytes();
    let i = |v: i32| v.to_le_bytes();
    let f = |v: f32| v.to_le_bytes();
    let values: Vec<(u16, u16, [u8; 4])> = vec![
        (1, BOOL, b(false)),
        (3, INDEX, i(set.built_in.unwrap_or(0))),
        (4, RADIO, i(i32::from(set.built_in.is_none()))),
        (5, BOOL, b(set.mirrors.0)),
        (6, BOOL, b(set.mirrors.1)),
        (7, FLOAT, f(set.x_offset)),
        (8, FLOAT, f(0.0)),
        (9, ANGLE, f(0.0)),
        (12, BOOL, b(false)),
        (13, BOOL, b(false)),
        (14, BOOL, b(true)),
        (15, BOOL, b(true)),
        (16, BOOL, b(false)),
        (17, INT, i(-1)),
        (18, BOOL, b(true)),
        (19, BOOL, b(true)),
        (20, BOOL, b(true)),
        (21, RADIO, i(2)),
    ];
    let params: Vec<(u16, u16, &[u8])> =
        values.iter().map(|(id, t, v)| (*id, *t, &v[..])).collect();
    // The modifier first: its new objects are numbered from the file's.
    let sweep = e.add_pb2_modifier(node, SWEEP, "Sweep", "sweep.dlm", &params);
    let section = flat_section(&mut e);
    let slot = set.slot.unwrap_or(set.built_in.map_or(1, |k| k as u32 + 2));
    e.set_reference(sweep, slot, section as i32);
    let eval = SceneEval::from_document(e.finish()).expect("edited scene");
    (eval, node, path_obj, section)
}

/// The mesh of the edited node, and the path's and section's polyline points.
fn swept(set: Set) -> (std::sync::Arc<Mesh>, Vec<Vec3>, Vec<Vec3>) {
    let (eval, node, path_obj, section_obj) = edited(set);
    let mesh = eval
        .mesh(node, 0)
        .expect("a mesh")
        .expect("the Sweep evaluates");
    let path = shape::eval_shape(&eval, path_obj, 0).expect("path");
    let section = shape::eval_shape(&eval, section_obj, 0).expect("section");
    assert_eq!((path.polylines.len(), section.polylines.len()), (1, 1));
    assert!(!path.polylines[0].closed && section.polylines[0].closed);
    let pts = |l: &shape::PolyLine| l.pts.iter().map(|p| p.p).collect::<Vec<_>>();
    (mesh, pts(&path.polylines[0]), pts(&section.polylines[0]))
}

#[test]
fn an_open_line_swept_by_a_custom_section() {
    let (mesh, path, section) = swept(PLAIN);
    let (levels, n) = (path.len(), section.len());
    assert_eq!(mesh.vertices.len(), levels * n);
    // Two triangles per band and section segment, n − 2 per cap.
    assert_eq!(mesh.faces.len(), 2 * n * (levels - 1) + 2 * (n - 2));
    assert!(closed_and_consistent(&mesh));
    // The section runs counter-clockwise: the faces look outwards.
    assert!(volume(&mesh) > 0.0);
    let up = Vec3(0.0, 0.0, 1.0);
    for (level, at, chord) in [
        (0, path[0], path[1].minus(path[0])),
        (
            levels - 1,
            path[levels - 1],
            path[levels - 1].minus(path[levels - 2]),
        ),
    ] {
        // Square to the end chord: each section point (x, y) at at + x·X + y·Z.
        let t = chord.normalized();
        let x = t.cross(up).normalized();
        for (q, v) in section
            .iter()
            .zip(&mesh.vertices[level * n..(level + 1) * n])
        {
            let want = at.plus(x.scale(q.0)).plus(up.scale(q.1));
            assert!(
                v.minus(want).len() < 1e-9,
                "level {level}: {v:?} for {want:?}"
            );
        }
    }
}

#[test]
fn both_mirrors_and_an_x_offset() {
    let set = Set {
        mirrors: (true, true),
        x_offset: 7.5,
        ..PLAIN
    };
    let (mesh, path, section) = swept(set);
    let (levels, n) = (path.len(), section.len());
    assert_eq!(mesh.vertices.len(), levels * n);
    // The section turned by 180° keeps its winding: still outwards.
    assert!(closed_and_consistent(&mesh) && volume(&mesh) > 0.0);
    let up = Vec3(0.0, 0.0, 1.0);
    let x = path[1].minus(path[0]).normalized().cross(up).normalized();
    for (q, v) in section.iter().zip(&mesh.vertices[..n]) {
        let want = path[0].plus(x.scale(7.5 - q.0)).plus(up.scale(-q.1));
        assert!(v.minus(want).len() < 1e-6, "{v:?} for {want:?}");
    }
}

#[test]
fn the_current_built_in_section_is_the_one_swept() {
    // Index 3 (Cylinder) reads reference 5: the same section there gives
    // the custom section's mesh.
    let (custom, _, _) = swept(PLAIN);
    let built_in = Set {
        built_in: Some(3),
        ..PLAIN
    };
    let (mesh, _, _) = swept(built_in);
    assert_eq!(mesh.vertices, custom.vertices);
    assert_eq!(mesh.faces.len(), custom.faces.len());
}

#[test]
fn unpinned_settings_are_refused_by_name() {
    for (set, want) in [
        (
            Set {
                mirrors: (true, false),
                ..PLAIN
            },
            "one mirror alone",
        ),
        (
            // Index 0 (Angle) with no shape at reference 2.
            Set {
                built_in: Some(0),
                slot: Some(1),
                ..PLAIN
            },
            "built-in Angle section",
        ),
    ] {
        let (eval, node, ..) = edited(set);
        let err = match eval.mesh(node, 0) {
            Some(Err(e)) => e.to_string(),
            Some(Ok(_)) => panic!("{want}: evaluated"),
            None => panic!("{want}: no mesh"),
        };
        assert!(err.contains(want), "{err}");
    }
}
