//! A primitive's "Real-World Map Size" switch (issue 19: no silent drops).
//! Max keeps it as AppData keyed by the object's own class and superclass,
//! sub id 0, an int; with it on, the generated channel 1 is in scene units.
//! The switch is turned on in corpus files and the coordinates checked
//! against the rules of the SDK samples written out here from the geometry
//! (`boxobj.cpp`: each side's grid spans the side's sizes, mirrored as the 0 …
//! 1 mapping is; `cyl.cpp`: the sides' cylindrical mapping times 2π·r and the
//! height, each cap mapped flat from the corner of its bounds; `gridobj.cpp`
//! and `torus.cpp` likewise). The
//! coordinates themselves are checked against Max's output outside the
//! corpus (docs/unseen-files.md, "Real-world map size": BitDefence's
//! cylinders through Unity's import, Buwaka's Door boxes through the map a
//! ProBoolean kept). A primitive whose scaled coordinates are not built
//! still has its channel left out by name — never the 0 … 1 coordinates of
//! the switch off, which would look valid — and a UVW Map above, which
//! writes the channel again, makes it whole.

use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::SceneEval;
use maxfs_tests::rewrite::SceneEdit;

fn flagged(file: &str, node: &str) -> SceneEval {
    let mut e = SceneEdit::open(file);
    let base = {
        let plain = maxfs_tests::corpus_eval(file);
        let idx = maxfs_tests::node_named(&plain.graph, node);
        let (_, base) = plain.modifier_stack(idx).expect("a stack");
        let c = plain.graph.objects[base].class.clone().expect("a class");
        (base, c.class_id, c.super_class)
    };
    e.add_appdata_bytes(base.0, (base.1, base.2), 0, 1u32.to_le_bytes().to_vec());
    SceneEval::from_document(e.finish()).expect("edited scene")
}

fn mesh_of(eval: &SceneEval, node: &str) -> std::sync::Arc<Mesh> {
    let idx = maxfs_tests::node_named(&eval.graph, node);
    assert!(
        eval.modifier_stack(idx).expect("a stack").0.is_empty(),
        "{node} is a bare primitive"
    );
    eval.mesh(idx, 0).expect("a mesh").expect("evaluates")
}

/// `node`'s base object's mesh as the file has it and with the switch
/// turned on (its geometry evaluated either way).
fn base_meshes(file: &str, node: &str) -> (std::sync::Arc<Mesh>, std::sync::Arc<Mesh>) {
    let base = |eval: &SceneEval, what: &str| {
        eval.base_mesh(maxfs_tests::node_named(&eval.graph, node))
            .expect("a mesh")
            .unwrap_or_else(|e| panic!("{node} {what}: {e}"))
    };
    let before = base(&maxfs_tests::corpus_eval(file), "evaluates");
    let after = base(&flagged(file, node), "evaluates with the switch on");
    (before, after)
}

/// Corner UVs of face `f` of channel 1.
fn corner_uvs(m: &Mesh, f: usize) -> [[f64; 2]; 3] {
    let ch = m.maps.iter().find(|c| c.channel == 1).expect("channel 1");
    ch.faces[f].map(|t| {
        let c = ch.vertices[t as usize];
        [f64::from(c[0]), f64::from(c[1])]
    })
}

#[test]
fn a_real_world_box_spans_each_side_in_scene_units() {
    const FILE: &str = "max/misc/Crate.max";
    let plain = mesh_of(&maxfs_tests::corpus_eval(FILE), "Box001");
    let eval = flagged(FILE, "Box001");
    let m = mesh_of(&eval, "Box001");
    assert!(m.missing_maps.is_empty(), "{:?}", m.missing_maps);
    assert_eq!((&m.vertices, &m.faces), (&plain.vertices, &plain.faces));
    // The box's extent from its vertices: x and y centred, z from 0.
    let span = |i: usize| {
        let (lo, hi) = m.vertices.iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| {
            let x = [v.0, v.1, v.2][i];
            (lo.min(x), hi.max(x))
        });
        (lo, hi - lo)
    };
    let ((x0, w), (y0, l), (z0, h)) = (span(0), span(1), span(2));
    assert!(w > 0.0 && l > 0.0 && h > 0.0);
    for (i, f) in m.faces.iter().enumerate() {
        let p = f.v.map(|v| m.vertices[v as usize]);
        let n = p[1].minus(p[0]).cross(p[2].minus(p[0]));
        let n = [n.0, n.1, n.2];
        let axis = (0..3)
            .max_by(|&a, &b| n[a].abs().total_cmp(&n[b].abs()))
            .expect("an axis");
        let negative = n[axis] < 0.0;
        for (c, uv) in p.iter().zip(corner_uvs(&m, i)) {
            let (fx, fy, fz) = ((c.0 - x0) / w, (c.1 - y0) / l, (c.2 - z0) / h);
            // boxobj.cpp: ±X sides (length × height), ±Y (width × height),
            // ±Z (width × length); U mirrored on −X, +Y and −Z.
            let want = match (axis, negative) {
                (0, false) => [fy * l, fz * h],
                (0, true) => [(1.0 - fy) * l, fz * h],
                (1, false) => [(1.0 - fx) * w, fz * h],
                (1, true) => [fx * w, fz * h],
                (_, false) => [fx * w, fy * l],
                (_, true) => [(1.0 - fx) * w, fy * l],
            };
            let tol = 1e-4 * (w + l + h);
            assert!(
                (uv[0] - want[0]).abs() < tol && (uv[1] - want[1]).abs() < tol,
                "face {i} corner {c:?}: {uv:?}, want {want:?}"
            );
        }
    }
}

#[test]
fn a_real_world_cylinder_scales_its_sides_and_maps_its_caps_flat() {
    const FILE: &str = "max/kenji-room/Kenjis_Wardrobe.max";
    const NODE: &str = "Cylinder003";
    let plain = mesh_of(&maxfs_tests::corpus_eval(FILE), NODE);
    let eval = flagged(FILE, NODE);
    let m = mesh_of(&eval, NODE);
    assert!(m.missing_maps.is_empty(), "{:?}", m.missing_maps);
    assert_eq!((&m.vertices, &m.faces), (&plain.vertices, &plain.faces));
    let h = m.vertices.iter().map(|v| v.2).fold(f64::MIN, f64::max);
    let r = m
        .vertices
        .iter()
        .map(|v| v.0.hypot(v.1))
        .fold(0.0, f64::max);
    let tol = 1e-4 * (r + h);
    // A cap face lies flat at z = 0 or z = h; the cap's bounds are those of
    // all its faces' vertices.
    let cap = |i: usize| {
        let z = m.faces[i].v.map(|v| m.vertices[v as usize].2);
        if z.iter().all(|&z| z.abs() < tol) {
            Some(false)
        } else if z.iter().all(|&z| (z - h).abs() < tol) {
            Some(true)
        } else {
            None
        }
    };
    let bounds = |top: bool| {
        let (mut min_x, mut min_y, mut max_y) = (f64::MAX, f64::MAX, f64::MIN);
        for (i, f) in m.faces.iter().enumerate() {
            if cap(i) == Some(top) {
                for &v in &f.v {
                    let p = m.vertices[v as usize];
                    (min_x, min_y, max_y) = (min_x.min(p.0), min_y.min(p.1), max_y.max(p.1));
                }
            }
        }
        (min_x, min_y, max_y)
    };
    let (bottom, top) = (bounds(false), bounds(true));
    let (mut caps, mut sides) = (0, 0);
    for (i, f) in m.faces.iter().enumerate() {
        let got = corner_uvs(&m, i);
        let was = corner_uvs(&plain, i);
        for k in 0..3 {
            let p = m.vertices[f.v[k] as usize];
            let want = match cap(i) {
                Some(false) => [p.0 - bottom.0, bottom.2 - p.1],
                Some(true) => [p.0 - top.0, p.1 - top.1],
                None => [was[k][0] * 2.0 * std::f64::consts::PI * r, was[k][1] * h],
            };
            assert!(
                (got[k][0] - want[0]).abs() < tol && (got[k][1] - want[1]).abs() < tol,
                "face {i} corner {k}: {:?}, want {want:?}",
                got[k]
            );
        }
        if cap(i).is_some() {
            caps += 1;
        } else {
            sides += 1;
        }
    }
    assert!(caps > 0 && sides > 0);
}

/// `gridobj.cpp`: the Plane's grid fractions times its width (U, along X) and
/// length (V, along Y), so each corner's UV is its position from the
/// plane's (−x, −y) corner in scene units; the geometry is unchanged.
#[test]
fn a_real_world_plane_spans_its_width_and_length_in_scene_units() {
    const FILE: &str = "max/kenji-room/house_thing.max";
    let (before, m) = base_meshes(FILE, "Plane001");
    assert!(m.missing_maps.is_empty(), "{:?}", m.missing_maps);
    assert_eq!((&m.vertices, &m.faces), (&before.vertices, &before.faces));
    let (min_x, min_y) = m
        .vertices
        .iter()
        .fold((f64::MAX, f64::MAX), |(x, y), v| (x.min(v.0), y.min(v.1)));
    let size = m
        .vertices
        .iter()
        .map(|v| (v.0 - min_x).max(v.1 - min_y))
        .fold(0.0, f64::max);
    assert!(size > 1.0, "a plane of some size ({size})");
    for f in 0..m.faces.len() {
        let uvs = corner_uvs(&m, f);
        for (k, &v) in m.faces[f].v.iter().enumerate() {
            let p = m.vertices[v as usize];
            let want = [p.0 - min_x, p.1 - min_y];
            assert!(
                (uvs[k][0] - want[0]).abs() < 1e-5 * size
                    && (uvs[k][1] - want[1]).abs() < 1e-5 * size,
                "face {f} corner {k}: {:?}, want {want:?}",
                uvs[k]
            );
        }
    }
}

/// `torus.cpp`: U runs along the ring, 2π·R·(1 − θ/2π) with θ the corner's
/// angle from the ring's start (−π/2, the new map's), and V around the tube,
/// 2π·r·β/2π with β the corner's angle about the tube's circle (rotation and
/// twist are 0 here); R and r come from the vertices. Both are compared
/// modulo their period: the seam's corners take either end.
#[test]
fn a_real_world_torus_runs_u_along_its_ring_in_scene_units() {
    const FILE: &str = "max/prims-greejesh/Robot.max";
    let (before, m) = base_meshes(FILE, "Torus001");
    assert!(m.missing_maps.is_empty(), "{:?}", m.missing_maps);
    assert_eq!((&m.vertices, &m.faces), (&before.vertices, &before.faces));
    let rho = |v: &maxfs_scene::eval::core::math::Vec3| v.0.hypot(v.1);
    let (lo, hi) = m.vertices.iter().fold((f64::MAX, f64::MIN), |(a, b), v| {
        (a.min(rho(v)), b.max(rho(v)))
    });
    let (big, small) = ((hi + lo) / 2.0, (hi - lo) / 2.0);
    assert!(big > 10.0 && small > 2.0, "R {big}, r {small}");
    let tau = std::f64::consts::TAU;
    let (ring, tube) = (tau * big, tau * small);
    let near = |got: f64, want: f64, period: f64| {
        let d = (got - want).rem_euclid(period);
        d.min(period - d) < 1e-4 * period
    };
    for f in 0..m.faces.len() {
        let uvs = corner_uvs(&m, f);
        for (k, &v) in m.faces[f].v.iter().enumerate() {
            let p = m.vertices[v as usize];
            let theta = ((-p.1).atan2(p.0) + std::f64::consts::FRAC_PI_2).rem_euclid(tau);
            let beta = p.2.atan2(rho(&p) - big).rem_euclid(tau);
            let want = [ring * (1.0 - theta / tau), tube * beta / tau];
            assert!(
                near(uvs[k][0], want[0], ring) && near(uvs[k][1], want[1], tube),
                "face {f} corner {k}: {:?}, want {want:?}",
                uvs[k]
            );
        }
    }
}

#[test]
fn a_real_world_mapped_teapot_names_its_channel_and_keeps_its_geometry() {
    // The Teapot's scaled coordinates are not built (no rule is written).
    const FILE: &str = "max/prims-pranto/Transition.max";
    let (before, after) = base_meshes(FILE, "Teapot001");
    assert!(before.maps.iter().any(|c| c.channel == 1));
    assert_eq!(after.vertices, before.vertices);
    assert_eq!(after.faces, before.faces);
    assert!(after.maps.iter().all(|c| c.channel != 1));
    let why = format!("{:?}", after.missing_maps);
    assert!(why.contains("real-world map size"), "{why}");
}

#[test]
fn a_uvw_map_above_a_real_world_mapped_primitive_writes_the_channel_again() {
    const FILE: &str = "max/kenji-room/house_thing.max";
    let plain = maxfs_tests::corpus_eval(FILE);
    let before = plain
        .mesh(maxfs_tests::node_named(&plain.graph, "Plane001"), 0)
        .expect("a mesh")
        .expect("evaluates");
    let eval = flagged(FILE, "Plane001");
    let after = eval
        .mesh(maxfs_tests::node_named(&eval.graph, "Plane001"), 0)
        .expect("a mesh")
        .expect("evaluates");
    assert!(after.missing_maps.is_empty(), "{:?}", after.missing_maps);
    assert_eq!(after.maps, before.maps);
}

/// `pyramid.cpp`: with width = depth (Babylon's pyramids, 1 × 1 × 2) every
/// side's U is its position along the base edge in scene units from the
/// side's left corner, V its height above the base; the base's U and V are
/// its x and −y from the (−x, +y) corner. Only the base centre's corner takes
/// the sample's (width/2, height/2).
#[test]
fn a_real_world_pyramid_spans_its_sides_and_base_in_scene_units() {
    const FILE: &str = "max/babylon/AnimatedMeshCameraLight.max";
    let (before, m) = base_meshes(FILE, "Pyramid003");
    assert!(m.missing_maps.is_empty(), "{:?}", m.missing_maps);
    assert_eq!((&m.vertices, &m.faces), (&before.vertices, &before.faces));
    let (w, h) = (1.0, 2.0);
    for f in 0..m.faces.len() {
        let uvs = corner_uvs(&m, f);
        let p3 = m.faces[f].v.map(|v| m.vertices[v as usize]);
        let base = p3.iter().all(|c| c.2.abs() < 1e-6);
        // The face's centre says which side it is on (one segment each).
        let n = (
            p3.iter().map(|c| c.0).sum::<f64>() / 3.0,
            p3.iter().map(|c| c.1).sum::<f64>() / 3.0,
        );
        for (k, c) in p3.iter().enumerate() {
            let want = if base {
                if c.0.abs() < 1e-9 && c.1.abs() < 1e-9 {
                    [w / 2.0, h / 2.0]
                } else {
                    [c.0 + w / 2.0, w / 2.0 - c.1]
                }
            } else {
                let along = if n.1.abs() > n.0.abs() {
                    // −Y side runs along +X, +Y mirrored.
                    if n.1 < 0.0 {
                        c.0 + w / 2.0
                    } else {
                        w / 2.0 - c.0
                    }
                } else if n.0 > 0.0 {
                    c.1 + w / 2.0
                } else {
                    w / 2.0 - c.1
                };
                // The apex sits at the middle of its side.
                if (c.2 - h).abs() < 1e-9 {
                    [w / 2.0, h]
                } else {
                    [along, c.2]
                }
            };
            assert!(
                (uvs[k][0] - want[0]).abs() < 1e-5 && (uvs[k][1] - want[1]).abs() < 1e-5,
                "face {f} corner {k} at {c:?}: {:?}, want {want:?}",
                uvs[k]
            );
        }
    }
}
