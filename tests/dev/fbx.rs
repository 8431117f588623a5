//! FBX loading shared by the corpus tests and the measurement examples,
//! included with `#[path]`: ufbx is a dev-dependency, so the maxfs_tests
//! library cannot hold it.

use maxfs_scene::eval::{Mat43, Vec3};

/// The FBX scene at `path` in Max's axes (right-handed Z-up) and in `metres`
/// per unit, or ufbx's description of why it does not load.
pub fn load_in_max_axes(path: &str, metres: f64) -> Result<ufbx::SceneRoot, String> {
    let opts = ufbx::LoadOpts {
        target_axes: ufbx::CoordinateAxes {
            right: ufbx::CoordinateAxis::PositiveX,
            up: ufbx::CoordinateAxis::PositiveZ,
            front: ufbx::CoordinateAxis::NegativeY,
        },
        target_unit_meters: metres,
        space_conversion: ufbx::SpaceConversion::ModifyGeometry,
        ..Default::default()
    };
    ufbx::load_file(path, opts).map_err(|e| e.description.to_string())
}

/// The `.max` and the FBX a measuring example is given (`<file.max>
/// <file.fbx>`), the FBX in Max's axes and the scene's unit; prints `usage`
/// or the error and exits otherwise.
#[allow(dead_code)]
pub fn max_and_fbx_or_exit(usage: &str) -> (maxfs_scene::eval::SceneEval, ufbx::SceneRoot) {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: {usage}");
        std::process::exit(2);
    }
    let eval = maxfs_tests::eval_or_exit(&args[1]);
    let metres = maxfs_scene::settings::system_unit(&eval.doc, &eval.graph)
        .map_or(0.0254, |u| u.metres_per_unit);
    match load_in_max_axes(&args[2], metres) {
        Ok(s) => (eval, s),
        Err(e) => {
            eprintln!("{}: {e}", args[2]);
            std::process::exit(1);
        }
    }
}

/// The FBX a measuring example is given alone (`<file.fbx>` then `extra`
/// arguments, then an optional metres per unit, default the inch), in Max's
/// axes; prints `usage` or the error and exits otherwise. Returns the scene
/// and the `extra` arguments.
#[allow(dead_code)]
pub fn fbx_or_exit(usage: &str, extra: usize) -> (ufbx::SceneRoot, Vec<String>) {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 2 + extra {
        eprintln!("usage: {usage}");
        std::process::exit(2);
    }
    let metres = args
        .get(2 + extra)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0254);
    match load_in_max_axes(&args[1], metres) {
        Ok(s) => (s, args[2..2 + extra].to_vec()),
        Err(e) => {
            eprintln!("{}: {e}", args[1]);
            std::process::exit(1);
        }
    }
}

/// A ufbx matrix as Max's row-vector form (its rows are ufbx's columns).
#[allow(dead_code)]
pub fn to_mat(m: &ufbx::Matrix) -> Mat43 {
    Mat43([
        Vec3(m.m00, m.m10, m.m20),
        Vec3(m.m01, m.m11, m.m21),
        Vec3(m.m02, m.m12, m.m22),
        Vec3(m.m03, m.m13, m.m23),
    ])
}

/// The FBX's axes without Max's bone stretch. The `B_*` bones are Max bones
/// with Freeze Length off: when a child bone moves away (B_Head as the spine
/// bends), Max scales the parent's X axis by the stretch (B_Spine1 × 1.136 at
/// Red@Run tick 320), and the FBX's scale inheritance then shears the
/// children's axes (B_Head's Y axis 0.13 off perpendicular at that tick, its X
/// axis exact). The Biped bones themselves never stretch, and bone stretch is
/// not evaluated here (it is the node's, not the rig's), so both sides are
/// compared on the axes orthonormalized X first (Gram–Schmidt) — X keeps its
/// direction, Y loses only the shear — and on positions, which stretch does
/// not move.
#[allow(dead_code)]
pub fn unstretched(m: &Mat43) -> Mat43 {
    let [a, b, c, p] = m.0;
    let x = a.normalized();
    let y = b.minus(x.scale(x.dot(b))).normalized();
    let z = x.cross(y);
    // A mirrored bone keeps its handedness.
    let z = if z.dot(c) < 0.0 { z.scale(-1.0) } else { z };
    Mat43([x, y, z, p])
}

/// Whether an FBX ancestor of `node` is stretched (its X axis scaled by more
/// than 1e-5) at the evaluated time. The FBX of a stretched bone's children
/// is no reference: the exporter wrote their local transforms without the
/// parent's stretch and FBX's scale inheritance re-applies it, pushing and
/// shearing them (Red@Run tick 320: B_Spine1 × 1.136 moves B_Head 3.9 units
/// further from the spine while its X axis stays exact to 8e-6, and the
/// wing bones under it by 2.4) — in Max the Link Constraint gives these
/// bones their world TM directly, whatever their parent's stretch. Such
/// bone·frames are counted in the report, not compared.
#[allow(dead_code)]
pub fn stretched_ancestor(node: &ufbx::Node) -> bool {
    let mut p = node.parent.as_ref();
    let mut depth = 0;
    while let Some(n) = p {
        let m = &n.node_to_world;
        let x = (m.m00 * m.m00 + m.m10 * m.m10 + m.m20 * m.m20).sqrt();
        if (x - 1.0).abs() > 1e-5 {
            return true;
        }
        depth += 1;
        if depth > 256 {
            return false;
        }
        p = n.parent.as_ref();
    }
    false
}

/// An FBX mesh's vertices in world space (Max's axes when the scene was
/// loaded with [`load_in_max_axes`]).
#[allow(dead_code)]
pub fn world_vertices(node: &ufbx::Node, mesh: &ufbx::Mesh) -> Vec<[f64; 3]> {
    mesh.vertices
        .iter()
        .map(|v| {
            let w = ufbx::transform_position(&node.geometry_to_world, *v);
            [w.x, w.y, w.z]
        })
        .collect()
}

/// Our evaluated mesh of node `o` in world space at time 0 (its object TM
/// applied), to compare with [`world_vertices`].
#[allow(dead_code)]
pub fn our_world_vertices(
    eval: &maxfs_scene::eval::SceneEval,
    o: usize,
    mesh: &maxfs_scene::eval::objects::mesh::Mesh,
) -> Vec<[f64; 3]> {
    let tm = eval.object_tm(o, 0);
    mesh.vertices
        .iter()
        .map(|v| tm.transform_point(*v).to_array())
        .collect()
}

/// The length of the bounding box diagonal of `pts`: the size mesh
/// comparisons measure their differences against.
#[allow(dead_code)]
pub fn diagonal(pts: &[[f64; 3]]) -> f64 {
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for p in pts {
        for i in 0..3 {
            lo[i] = lo[i].min(p[i]);
            hi[i] = hi[i].max(p[i]);
        }
    }
    (0..3).map(|i| (hi[i] - lo[i]).powi(2)).sum::<f64>().sqrt()
}
