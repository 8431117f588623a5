//! Polygon forms of primitives, as a poly modifier (Edit Poly) receives them:
//! Max converts a primitive to a PolyObject with the primitive's own polygon
//! builder (`BuildCylinderPoly` for Cylinder, `BuildPolyBox` for Box), whose
//! vertex and face numbering the modifier's records index. Only the forms with
//! a published builder are rebuilt; any other primitive is an error naming it.

use crate::chunk::Chunk;
use crate::typed::ClassId;

use crate::eval::core::math::Vec3;
use crate::eval::objects::poly::{PolyFace, PolyMap, PolyMesh};
use crate::eval::objects::primitive::{Params, BOX, CYLINDER};

/// The polygon form of primitive `class` (`object` its own chunks).
pub fn build(class: ClassId, p: &Params, object: &[Chunk]) -> Result<PolyMesh, String> {
    match class {
        c if c == CYLINDER => cylinder(p),
        c if c == BOX => super::primitive_poly_box::poly_box(p, box_smoothing_fix(object)?),
        c => Err(format!(
            "the polygon form of primitive ({:#x}, {:#x}) is not evaluated",
            c.0, c.1
        )),
    }
}

/// The Box's "poly smoothing fix" (chunk 0x0100, one byte): Boxes saved since
/// Max 5.1 write it set, and their polygon form swaps the top and bottom
/// smoothing groups; a Box without the chunk keeps the old groups.
fn box_smoothing_fix(object: &[Chunk]) -> Result<bool, String> {
    match object.iter().find(|c| c.id == 0x0100) {
        None => Ok(false),
        Some(c) => match c.payload() {
            Some([b]) => Ok(*b != 0),
            other => Err(format!("Box smoothing fix chunk 0x0100: {other:?}")),
        },
    }
}

/// Cylinder (radius 0, height 1, height segments 2, cap segments 3, sides 4,
/// slice on 6, generate mapping coordinates 9) as `BuildCylinderPoly` makes it:
/// rings from the bottom starting on +X, no centre vertices; faces the side
/// quads row by row (material 2, smoothing group 4, whatever "smooth" says),
/// then the bottom cap as one polygon running backwards (material 1) and the
/// top cap (material 0), both in smoothing group 1. Cap segments above 1 and
/// slices are refused (not in the corpus).
///
/// Mapping is Max's cylindrical mapper with caps (the `UVWMapper` the builder
/// applies): on the sides U = ¾ + angle/2π wrapped above 1 and V = z/height, a
/// quad across the seam moving its corners above ½ down by 1 (as the triangle
/// form does); the caps are mapped flat, U = (1 − y/r)/2, V = (1 + x/r)/2 (the
/// mapper turns a quarter about Z).
fn cylinder(p: &Params) -> Result<PolyMesh, String> {
    let (r, h) = (p.float(0)?, p.float(1)?);
    let (hs, caps, n) = (p.segments(2)?, p.segments(3)?, p.segments(4)?);
    if n < 3 {
        return Err(format!("{n} sides"));
    }
    if caps != 1 {
        return Err(format!(
            "{caps} cap segments: the polygon cylinder is evaluated with 1"
        ));
    }
    if p.int_or(6, 0) != 0 {
        return Err("sliced cylinders are not supported yet".into());
    }
    if n * (hs + 1) > 1 << 21 {
        return Err(format!("{n} sides × {hs} segments: damaged counts"));
    }
    let mut vertices = Vec::with_capacity(n * (hs + 1));
    let mut angles = Vec::with_capacity(n);
    for row in 0..=hs {
        let z = h * row as f64 / hs as f64;
        for k in 0..n {
            let a = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
            vertices.push(Vec3(r * a.cos(), r * a.sin(), z));
        }
    }
    // Max accumulates the angle in single precision; that decides on which side
    // of the seam a vertex exactly on +Y lands (as in the triangle cylinder).
    let delta = (2.0 * std::f32::consts::PI) / n as f32;
    let mut acc = 0.0f32;
    for _ in 0..n {
        let u = 0.75 + f64::from(acc) / (2.0 * std::f64::consts::PI);
        angles.push(if u > 1.0 { u - 1.0 } else { u });
        acc += delta;
    }
    let at = |row: usize, k: usize| (row * n + k % n) as u32;
    let mut faces = Vec::with_capacity(n * hs + 2);
    let mut uv = crate::eval::objects::primitive::TexVerts::default();
    let mut map_faces = Vec::with_capacity(n * hs + 2);
    for row in 1..=hs {
        let (va, vb) = ((row - 1) as f64 / hs as f64, row as f64 / hs as f64);
        for k in 0..n {
            let v = vec![
                at(row - 1, k),
                at(row - 1, k + 1),
                at(row, k + 1),
                at(row, k),
            ];
            let us = [angles[k], angles[(k + 1) % n]];
            let seam = (us[0] - us[1]).abs() > 0.5;
            let fix = |u: f64| if seam && u > 0.5 { u - 1.0 } else { u };
            map_faces.push(vec![
                uv.at(fix(us[0]), va),
                uv.at(fix(us[1]), va),
                uv.at(fix(us[1]), vb),
                uv.at(fix(us[0]), vb),
            ]);
            faces.push(PolyFace::fan(v, 2, 1 << 3));
        }
    }
    let bottom: Vec<u32> = (0..n).rev().map(|k| at(0, k)).collect();
    let top: Vec<u32> = (0..n).map(|k| at(hs, k)).collect();
    for (cap, material) in [(bottom, 1u16), (top, 0u16)] {
        let cap_uv = |i: u32| {
            let c = vertices[i as usize];
            if r == 0.0 {
                (0.5, 0.5)
            } else {
                ((1.0 - c.1 / r) / 2.0, (1.0 + c.0 / r) / 2.0)
            }
        };
        map_faces.push(
            cap.iter()
                .map(|&i| {
                    let (u, v) = cap_uv(i);
                    uv.at(u, v)
                })
                .collect(),
        );
        faces.push(PolyFace::strip(cap, material, 1));
    }
    let maps = if p.flag(9, true) {
        vec![PolyMap {
            channel: 1,
            vertices: uv.list,
            faces: map_faces,
        }]
    } else {
        Vec::new()
    };
    Ok(PolyMesh {
        vertices,
        faces,
        maps,
    })
}
