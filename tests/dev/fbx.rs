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
