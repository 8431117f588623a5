//! An Editable Poly with its own "Use NURMS Subdivision" on (ParamBlock2 id
//! 0x17, iterations 0x19) shows Max its smoothed mesh, not the stored cage,
//! and Max's Mesh Totals count that mesh (the sixth sweep's hat, sofa, cube
//! and cube game files: equal vertex and face totals; docs/unseen-files.md).
//! The corpus has no such object: CubesImageFormat's `B` is switched on
//! through the project's writer, and the result is checked against what
//! Catmull-Clark implies from the cage's own V / E / F (not against our
//! earlier output): the first step makes V + E + F vertices, one quad per
//! polygon corner and 2E + C edges, every later step V + E + F vertices and
//! four quads per quad; Euler's V − E + F is kept; every point is an average
//! of cage points, so it lies in the cage's bounding box. Settings that cannot
//! be reproduced are refused by name, and the size limit holds.

use std::collections::HashSet;

use maxfs_scene::eval::objects::mesh::{editable_poly, Mesh};
use maxfs_scene::eval::SceneEval;
use maxfs_tests::rewrite::SceneEdit;

const FILE: &str = "max/babylon/CubesImageFormat.max";
const USE_NURMS: u16 = 0x17;
const ITERATIONS: u16 = 0x19;
const SMOOTHNESS: u16 = 0x1a;
const SEPARATE_MATERIALS: u16 = 0x20;
const UPDATE: u16 = 0x21;

/// A ParamBlock2 id and the 4-byte constant written to it.
type Setting = (u16, [u8; 4]);

/// Undirected edges drawn visible (polygon sides; quads' diagonals are
/// hidden).
fn visible_edges(m: &Mesh) -> usize {
    let mut e = HashSet::new();
    for f in &m.faces {
        for k in 0..3 {
            if f.flags & (1 << k) != 0 {
                let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
                e.insert((a.min(b), a.max(b)));
            }
        }
    }
    e.len()
}

/// `B` with the given ParamBlock2 constants (4-byte values) set, evaluated.
fn edited(set: &[Setting]) -> (SceneEval, usize, usize) {
    let mut e = SceneEdit::open(FILE);
    let node = e.node("B");
    let poly = e.reference(node, 1);
    let pb = e.reference(poly, 0);
    for (id, v) in set {
        e.set_pb2_constant(pb, *id, v);
    }
    (
        SceneEval::from_document(e.finish()).expect("edited scene"),
        node,
        poly,
    )
}

#[test]
fn an_editable_poly_with_nurms_subdivision_on_is_its_smoothed_cage() {
    let on = 1u32.to_le_bytes();
    let (eval, node, poly) = edited(&[(USE_NURMS, on), (ITERATIONS, 2i32.to_le_bytes())]);
    let (cage, loops) = editable_poly(eval.chunks(poly)).expect("the stored cage");
    assert_eq!(cage.vertices.len(), 64, "the stored cage");
    let v = cage.vertices.len();
    let f = loops.len();
    let c: usize = loops.iter().map(|p| p.v.len()).sum();
    let e = {
        let mut s = HashSet::new();
        for p in &loops {
            for k in 0..p.v.len() {
                let (a, b) = (p.v[k], p.v[(k + 1) % p.v.len()]);
                s.insert((a.min(b), a.max(b)));
            }
        }
        s.len()
    };
    // Step 1 (any polygons), step 2 (quads).
    let (v1, e1, f1) = (v + e + f, 2 * e + c, c);
    let (v2, e2, f2) = (v1 + e1 + f1, 2 * e1 + 4 * f1, 4 * f1);

    let m = eval.mesh(node, 0).expect("a mesh").expect("evaluates");
    assert_eq!(m.vertices.len(), v2);
    assert_eq!(m.faces.len(), 2 * f2, "two triangles per quad");
    assert_eq!(visible_edges(&m), e2);
    assert_eq!(
        v2 as i64 - e2 as i64 + f2 as i64,
        v as i64 - e as i64 + f as i64,
        "Euler characteristic kept"
    );
    // Smooth Result (0x34, on in the file): one smoothing group.
    assert!(m.faces.iter().all(|t| t.smoothing == 1));
    let (lo, hi) =
        cage.vertices
            .iter()
            .fold(([f64::MAX; 3], [f64::MIN; 3]), |(mut lo, mut hi), p| {
                for (i, x) in [p.0, p.1, p.2].into_iter().enumerate() {
                    lo[i] = lo[i].min(x);
                    hi[i] = hi[i].max(x);
                }
                (lo, hi)
            });
    let tol = 1e-9 * (0..3).map(|i| hi[i] - lo[i]).fold(0.0, f64::max);
    assert!(m.vertices.iter().all(|p| {
        [p.0, p.1, p.2]
            .into_iter()
            .enumerate()
            .all(|(i, x)| x >= lo[i] - tol && x <= hi[i] + tol)
    }));
    // The surface is pulled in: not every point is on the cage's box.
    assert!(m.vertices.iter().any(|p| [p.0, p.1, p.2]
        .into_iter()
        .enumerate()
        .all(|(i, x)| x > lo[i] + tol && x < hi[i] - tol)));

    // Switched off again (the stored file): the cage.
    let (off, node, _) = edited(&[]);
    let m = off.mesh(node, 0).expect("a mesh").expect("evaluates");
    assert_eq!(m.vertices.len(), v);
}

#[test]
fn nurms_settings_that_cannot_be_reproduced_are_refused_by_name() {
    let on = (USE_NURMS, 1u32.to_le_bytes());
    let cases: [(Vec<Setting>, &str); 4] = [
        (
            vec![on, (SEPARATE_MATERIALS, 1u32.to_le_bytes())],
            "separate by materials",
        ),
        (
            vec![on, (SMOOTHNESS, 0.5f32.to_le_bytes())],
            "smoothness 0.5",
        ),
        (vec![on, (UPDATE, 2i32.to_le_bytes())], "update Manually"),
        // 66 polygons' 264 corners at 10 iterations: 264 · 4⁹ quads.
        (vec![on, (ITERATIONS, 10i32.to_le_bytes())], "1048576"),
    ];
    // nebula2's Box01 stores a per-vertex data channel (GeomBuffers 0x0210),
    // where MNMesh keeps NURMS weights; two UVW Maps above (a derived object:
    // references 0 and 1 the modifiers, 2 the Editable Poly).
    let mut e = SceneEdit::open("max/nebula2/example.max");
    let node = e.node("Box01");
    let derived = e.reference(node, 1);
    let poly = e.reference(derived, 2);
    let pb = e.reference(poly, 0);
    e.set_pb2_constant(pb, USE_NURMS, &1u32.to_le_bytes());
    let eval = SceneEval::from_document(e.finish()).expect("edited scene");
    let text = eval
        .mesh(node, 0)
        .expect("a result")
        .expect_err("refused")
        .to_string();
    assert!(text.contains("per-vertex data (0x0210)"), "{text}");
    // A modifier reading the polygon form above it: Kenjis_chair's Box001
    // (Editable Poly → TurboSmooth; derived object: reference 0 the
    // modifier, 1 the Editable Poly).
    let mut e = SceneEdit::open("max/kenji-room/Kenjis_chair.max");
    let node = e.node("Box001");
    let derived = e.reference(node, 1);
    let poly = e.reference(derived, 1);
    let pb = e.reference(poly, 0);
    e.set_pb2_constant(pb, USE_NURMS, &1u32.to_le_bytes());
    let eval = SceneEval::from_document(e.finish()).expect("edited scene");
    let text = eval
        .mesh(node, 0)
        .expect("a result")
        .expect_err("refused")
        .to_string();
    assert!(
        text.contains("TurboSmooth on an Editable Poly with Use NURMS Subdivision"),
        "{text}"
    );
    for (set, expect) in cases {
        let (eval, node, _) = edited(&set);
        let text = eval
            .mesh(node, 0)
            .expect("a result")
            .expect_err("refused")
            .to_string();
        assert!(
            text.contains("Use NURMS Subdivision") && text.contains(expect),
            "{expect}: {text}"
        );
    }
}
