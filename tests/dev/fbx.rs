//! FBX loading shared by the corpus tests and the measurement examples,
//! included with `#[path]`: ufbx is a dev-dependency, so the maxfs_tests
//! library cannot hold it.

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
