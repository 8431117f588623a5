//! Edit Poly's smoothing-group operations: Set Smoothing (bits set and
//! cleared on the selected faces) and Auto Smooth.

use crate::eval::error::EvalError;
use crate::eval::objects::poly::PolyMesh;

use super::auto_smooth::{self, Input, Options};
use super::edit_poly_topo::check_selection;

fn selected(sel: &[bool], i: usize) -> bool {
    sel.get(i).copied().unwrap_or(false)
}

/// Set Smoothing: the selected faces gain the bits `set` and lose `clear`.
pub(super) fn set_smoothing(
    poly: &mut PolyMesh,
    sel: &[bool],
    set: u32,
    clear: u32,
) -> Result<(), EvalError> {
    check_selection(sel, poly.faces.len(), "faces")?;
    for (i, f) in poly.faces.iter_mut().enumerate() {
        if selected(sel, i) {
            f.smoothing = (f.smoothing & !clear) | set;
        }
    }
    Ok(())
}

/// Auto Smooth on the selected polygons by their (Newell) normals, Max's
/// rule as the Smooth modifier's (`auto_smooth`); faces outside the
/// selection keep their groups and the regions avoid their bits.
pub(super) fn auto_smooth(poly: &mut PolyMesh, sel: &[bool], angle: f64) -> Result<(), EvalError> {
    check_selection(sel, poly.faces.len(), "faces")?;
    let input = Input::polygons(
        poly,
        (0..poly.faces.len()).map(|i| selected(sel, i)).collect(),
    );
    let mut groups: Vec<u32> = poly.faces.iter().map(|f| f.smoothing).collect();
    let o = Options {
        angle,
        prevent_indirect: false,
    };
    auto_smooth::assign(&input, &mut groups, o)?;
    for (f, g) in poly.faces.iter_mut().zip(groups) {
        f.smoothing = g;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;
    use crate::eval::objects::poly::PolyFace;

    /// A strip of three quads folded by 30° and then by 90°.
    fn folded() -> PolyMesh {
        let (c, s) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
        let v = vec![
            Vec3(0.0, 0.0, 0.0),
            Vec3(0.0, 1.0, 0.0),
            Vec3(1.0, 0.0, 0.0),
            Vec3(1.0, 1.0, 0.0),
            Vec3(1.0 + c, 0.0, s),
            Vec3(1.0 + c, 1.0, s),
            Vec3(1.0 + c - s, 0.0, s + c),
            Vec3(1.0 + c - s, 1.0, s + c),
        ];
        PolyMesh {
            vertices: v,
            faces: vec![
                PolyFace::fan(vec![0, 2, 3, 1], 0, 0),
                PolyFace::fan(vec![2, 4, 5, 3], 0, 0),
                PolyFace::fan(vec![4, 6, 7, 5], 0, 1 << 4),
            ],
            maps: Vec::new(),
            edges: None,
            normals: None,
        }
    }

    #[test]
    fn regions_split_at_the_threshold_and_avoid_neighbours() {
        let mut m = folded();
        auto_smooth(&mut m, &[true; 3], 45f64.to_radians()).expect("smooth");
        let g: Vec<u32> = m.faces.iter().map(|f| f.smoothing).collect();
        assert_eq!(g[0], g[1]);
        assert_ne!(g[1] & g[2], g[1], "the 90° fold stays sharp: {g:?}");
        assert_eq!(g[0].count_ones(), 1);
        // An unselected face keeps its group and the region avoids it.
        let mut m = folded();
        auto_smooth(&mut m, &[true, true, false], 45f64.to_radians()).expect("smooth");
        assert_eq!(m.faces[2].smoothing, 1 << 4);
        assert_eq!(m.faces[0].smoothing, 1);
        set_smoothing(&mut m, &[false, true, false], 1 << 7, 1).expect("set");
        assert_eq!(m.faces[1].smoothing, 1 << 7);
    }
}
