//! Max's colour map channels as glTF vertex attributes: vertex colour
//! (channel 0, RGB) and alpha (channel −2, its first component) become
//! `COLOR_0` (RGBA, white / opaque where one of the two is absent);
//! illumination (channel −1) has no glTF meaning and is written as the
//! application-specific attribute `_ILLUMINATION` (RGB).

use maxfs_scene::eval::objects::mesh::{MapChannel, Mesh};

/// Vertex colour, alpha and illumination channels.
pub const COLOUR: i32 = 0;
pub const ALPHA: i32 = -2;
pub const ILLUMINATION: i32 = -1;

/// The colour channels a mesh has with one map face per mesh face, in the
/// order [vertex colour, alpha, illumination] (absent ones skipped).
pub(super) fn colour_maps(mesh: &Mesh) -> Vec<&MapChannel> {
    [COLOUR, ALPHA, ILLUMINATION]
        .into_iter()
        .filter_map(|c| {
            mesh.maps
                .iter()
                .find(|m| m.channel == c)
                .filter(|m| m.faces.len() == mesh.faces.len() && !m.vertices.is_empty())
        })
        .collect()
}

/// Colour values of one corner: `maps` are the [`colour_maps`], `corner` the
/// corner's map vertex in each. Non-finite components read as 0; COLOR_0
/// is clamped to 0..1 (glTF's range), illumination kept as stored.
pub(super) fn corner(maps: &[&MapChannel], corner: &[u32]) -> ([f32; 4], Option<[f32; 3]>) {
    let mut rgba = [1.0f32; 4];
    let mut illum = None;
    for (m, &t) in maps.iter().zip(corner) {
        let v = m
            .vertices
            .get(t as usize)
            .copied()
            .unwrap_or([0.0; 3])
            .map(|x| if x.is_finite() { x } else { 0.0 });
        match m.channel {
            COLOUR => rgba[..3].copy_from_slice(&v),
            ALPHA => rgba[3] = v[0],
            _ => illum = Some(v),
        }
    }
    (rgba.map(|x| x.clamp(0.0, 1.0)), illum)
}
