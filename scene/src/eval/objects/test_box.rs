//! The box several object and modifier tests build on, so that its corner
//! numbering and winding are written once: corner `i` takes the maximum
//! along x, y, z where bit 0, 1, 2 of `i` is set.

use crate::eval::core::math::Vec3;

/// The box's six sides as quads of corner numbers, counter-clockwise seen
/// from outside: −z, +z, −y, +y, −x, +x.
pub const BOX_QUADS: [[u32; 4]; 6] = [
    [0, 2, 3, 1],
    [4, 5, 7, 6],
    [0, 1, 5, 4],
    [2, 6, 7, 3],
    [0, 4, 6, 2],
    [1, 3, 7, 5],
];

/// The eight corners of the box [min, max], numbered as [`BOX_QUADS`] reads them.
pub fn box_corners(min: [f64; 3], max: [f64; 3]) -> Vec<Vec3> {
    (0..8)
        .map(|i| {
            let pick = |axis: usize| {
                if i >> axis & 1 == 1 {
                    max[axis]
                } else {
                    min[axis]
                }
            };
            Vec3(pick(0), pick(1), pick(2))
        })
        .collect()
}
