//! Edit Poly's Make Planar X / Y / Z (operations 76, 77, 78): the selected
//! vertices take the mean of their coordinate on that axis, as the SDK
//! sample's `PolyOpMakePlanarIn::Do` computes it (in single precision: a
//! float sum in vertex order, divided by the float count). Its soft
//! selection weights are taken when the operation is recorded and not saved
//! with it (`PolyOperation::SaveBasics` writes the selection, parameters and
//! matrices only), so a replay from the file moves the selected vertices
//! alone. Topology, maps and the edge numbering stay.

use crate::eval::error::EvalError;
use crate::eval::objects::poly::PolyMesh;

use super::edit_poly_topo::selected_indices;

/// Sets coordinate `axis` (0 x, 1 y, 2 z) of the selected vertices to their mean.
pub(super) fn make_planar(poly: &mut PolyMesh, sel: &[bool], axis: usize) -> Result<(), EvalError> {
    let chosen = selected_indices(sel, poly.vertices.len(), "vertices")?;
    if chosen.is_empty() {
        return Ok(());
    }
    let coordinate = |p: &crate::eval::core::math::Vec3| match axis {
        0 => p.0,
        1 => p.1,
        _ => p.2,
    };
    let mut sum = 0.0f32;
    let mut count = 0.0f32;
    for &i in &chosen {
        sum += coordinate(&poly.vertices[i]) as f32;
        count += 1.0;
    }
    let mean = f64::from(sum / count);
    for &i in &chosen {
        let p = &mut poly.vertices[i];
        match axis {
            0 => p.0 = mean,
            1 => p.1 = mean,
            _ => p.2 = mean,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;
    use crate::eval::objects::poly::PolyFace;

    fn quad() -> PolyMesh {
        PolyMesh {
            vertices: vec![
                Vec3(0.0, 0.0, 0.1),
                Vec3(1.0, 0.0, 0.2),
                Vec3(1.0, 1.0, 0.4),
                Vec3(0.0, 1.0, 5.0),
            ],
            faces: vec![PolyFace::fan(vec![0, 1, 2, 3], 0, 0)],
            maps: Vec::new(),
            edges: None,
            normals: None,
        }
    }

    #[test]
    fn the_selected_vertices_take_their_single_precision_mean() {
        let mut m = quad();
        make_planar(&mut m, &[true, true, true, false], 2).expect("planar");
        // (0.1f + 0.2f + 0.4f) / 3f in floats, not the double 0.2333….
        let mean = f64::from((0.1f32 + 0.2f32 + 0.4f32) / 3.0f32);
        for i in 0..3 {
            assert_eq!(m.vertices[i].2, mean);
        }
        assert_eq!(m.vertices[3], Vec3(0.0, 1.0, 5.0));
        assert_eq!((m.vertices[0].0, m.vertices[1].0), (0.0, 1.0));
        // Along x: the other coordinates stay.
        let mut m = quad();
        make_planar(&mut m, &[false, true, false, true], 0).expect("planar");
        assert_eq!(m.vertices[1], Vec3(0.5, 0.0, 0.2));
        assert_eq!(m.vertices[3], Vec3(0.5, 1.0, 5.0));
    }

    #[test]
    fn an_empty_selection_moves_nothing_and_a_missized_one_is_damage() {
        let mut m = quad();
        make_planar(&mut m, &[], 1).expect("planar");
        assert_eq!(m, quad());
        assert!(make_planar(&mut m, &[true; 3], 1).is_err());
    }
}
