//! Parametric primitives rebuilt from their parameters, with Max's vertex order,
//! face order, material ids and smoothing groups: Box and Plane.

use crate::typed::ClassId;

use super::math::Vec3;
use super::mesh::{Face, Mesh};
use super::pblock::{self, Value};

pub const BOX: ClassId = ClassId(0x10, 0);
pub const PLANE: ClassId = ClassId(0x081f1dfc, 0x77566f65);

/// All three edges visible, as Max marks primitive faces.
const ALL_EDGES: u16 = 7;
/// Segment counts beyond this are refused (damaged parameters).
const MAX_SEGMENTS: i64 = 1000;

/// Parameter values of an old ParamBlock by index (animated ones read their controller at t).
pub struct Params(Vec<Value>);

impl Params {
    fn float(&self, i: usize) -> Result<f64, String> {
        match self.0.get(i) {
            Some(Value::Float(f)) => Ok(f64::from(*f)),
            Some(Value::Int(n)) => Ok(f64::from(*n)),
            other => Err(format!("parameter {i}: expected a float, found {other:?}")),
        }
    }

    fn segments(&self, i: usize) -> Result<usize, String> {
        let n = match self.0.get(i) {
            Some(Value::Int(n)) => i64::from(*n),
            Some(Value::Float(f)) => *f as i64,
            other => {
                return Err(format!(
                    "parameter {i}: expected a segment count, found {other:?}"
                ))
            }
        };
        if !(1..=MAX_SEGMENTS).contains(&n) {
            return Err(format!("parameter {i}: {n} segments"));
        }
        Ok(n as usize)
    }
}

/// Superclass of ParamBlock2, which newer Max versions use for primitives.
const SUPERCLASS_PB2: u32 = 0x82;

/// Reads the primitive's parameter block (reference 0: an old ParamBlock, or a
/// ParamBlock2 whose parameter ids follow the same order), resolving animated
/// values at `t`.
pub fn params(eval: &super::SceneEval, object: usize, t: i32) -> Result<Params, String> {
    let pb = pblock::reference(eval.graph, object, 0).ok_or("no parameter block (reference 0)")?;
    let is_pb2 = eval
        .graph
        .objects
        .get(pb)
        .and_then(|o| o.class.as_ref())
        .is_some_and(|c| c.super_class == SUPERCLASS_PB2);
    let list: Vec<(i64, Value, Option<u32>)> = if is_pb2 {
        pblock::param_block2(eval.chunks(pb))?
            .params
            .into_iter()
            .map(|p| (i64::from(p.id), p.value, p.ref_slot))
            .collect()
    } else {
        pblock::param_block(eval.chunks(pb))?
            .into_iter()
            .map(|p| (i64::from(p.index), p.value, p.ref_slot))
            .collect()
    };
    let mut values = Vec::new();
    for (index, value, ref_slot) in list {
        let i = usize::try_from(index).map_err(|_| format!("parameter index {index}"))?;
        if i > 64 {
            return Err(format!("parameter index {i}"));
        }
        if values.len() <= i {
            values.resize(i + 1, Value::None);
        }
        values[i] = match (ref_slot, value) {
            (Some(slot), Value::None) => {
                let ctl = pblock::reference(eval.graph, pb, slot);
                Value::Float(eval.float_at(ctl, t, 0.0) as f32)
            }
            (_, v) => v,
        };
    }
    Ok(Params(values))
}

/// A grid of (nx+1)·(ny+1) vertices over [x0, x1]×[y0, y1] at height z, row by row.
fn grid(
    v: &mut Vec<Vec3>,
    (x0, x1, nx): (f64, f64, usize),
    (y0, y1, ny): (f64, f64, usize),
    z: f64,
) -> usize {
    let start = v.len();
    for iy in 0..=ny {
        for ix in 0..=nx {
            v.push(Vec3(
                x0 + (x1 - x0) * ix as f64 / nx as f64,
                y0 + (y1 - y0) * iy as f64 / ny as f64,
                z,
            ));
        }
    }
    start
}

/// Box: length along Y (0), width along X (1), height along Z (2), segments
/// width/length/height (3, 4, 5). Bottom grid, inner side rings, top grid; faces
/// bottom, top, then the sides −Y, +X, +Y, −X.
pub fn box_mesh(p: &Params) -> Result<Mesh, String> {
    let (l, w, h) = (p.float(0)?, p.float(1)?, p.float(2)?);
    let (ws, ls, hs) = (p.segments(3)?, p.segments(4)?, p.segments(5)?);
    let (x0, x1, y0, y1) = (-w / 2.0, w / 2.0, -l / 2.0, l / 2.0);
    let mut v = Vec::new();
    let bottom = grid(&mut v, (x0, x1, ws), (y0, y1, ls), 0.0);
    let row = ws + 1;
    let grid_at = |base: usize, ix: usize, iy: usize| (base + iy * row + ix) as u32;
    // Perimeter of a grid, walking −Y, +X, +Y, −X from (x0, y0).
    let perimeter = |base: usize| -> Vec<u32> {
        let mut p = Vec::new();
        p.extend((0..ws).map(|ix| grid_at(base, ix, 0)));
        p.extend((0..ls).map(|iy| grid_at(base, ws, iy)));
        p.extend((0..ws).map(|k| grid_at(base, ws - k, ls)));
        p.extend((0..ls).map(|k| grid_at(base, 0, ls - k)));
        p
    };
    let ring_len = 2 * (ws + ls);
    let mut rings: Vec<Vec<u32>> = vec![perimeter(bottom)];
    for iz in 1..hs {
        let z = h * iz as f64 / hs as f64;
        let start = v.len() as u32;
        let base = &rings[0];
        let pts: Vec<Vec3> = base
            .iter()
            .map(|&i| Vec3(v[i as usize].0, v[i as usize].1, z))
            .collect();
        v.extend(pts);
        rings.push((0..ring_len as u32).map(|k| start + k).collect());
    }
    let top = grid(&mut v, (x0, x1, ws), (y0, y1, ls), h);
    rings.push(perimeter(top));
    let mut faces = Vec::new();
    let mut quad = |a: u32, b: u32, c: u32, d: u32, material: u16, smoothing: u32| {
        faces.push(Face {
            v: [a, b, c],
            smoothing,
            material,
            flags: ALL_EDGES,
        });
        faces.push(Face {
            v: [c, d, a],
            smoothing,
            material,
            flags: ALL_EDGES,
        });
    };
    for iy in 0..ls {
        for ix in 0..ws {
            let a = grid_at(bottom, ix, iy);
            quad(a, a + row as u32, a + row as u32 + 1, a + 1, 1, 0x02);
        }
    }
    for iy in 0..ls {
        for ix in 0..ws {
            let a = grid_at(top, ix, iy);
            quad(a, a + 1, a + row as u32 + 1, a + row as u32, 0, 0x04);
        }
    }
    // Side k of the perimeter: (material, smoothing) for −Y, +X, +Y, −X.
    let sides = [(4u16, 0x08u32), (3, 0x10), (5, 0x20), (2, 0x40)];
    let side_of = |k: usize| {
        if k < ws {
            0
        } else if k < ws + ls {
            1
        } else if k < 2 * ws + ls {
            2
        } else {
            3
        }
    };
    for z in 0..hs {
        let (lo, hi) = (&rings[z], &rings[z + 1]);
        for k in 0..ring_len {
            let n = (k + 1) % ring_len;
            let (m, s) = sides[side_of(k)];
            quad(lo[k], lo[n], hi[n], hi[k], m, s);
        }
    }
    Ok(Mesh {
        vertices: v,
        faces,
        maps: Vec::new(),
    })
}

/// Plane: length along Y (0), width along X (1), segments length/width (2, 3);
/// one smoothing group, material 0.
pub fn plane_mesh(p: &Params) -> Result<Mesh, String> {
    let (l, w) = (p.float(0)?, p.float(1)?);
    let (ls, ws) = (p.segments(2)?, p.segments(3)?);
    let mut v = Vec::new();
    grid(
        &mut v,
        (-w / 2.0, w / 2.0, ws),
        (-l / 2.0, l / 2.0, ls),
        0.0,
    );
    let row = (ws + 1) as u32;
    let mut faces = Vec::new();
    for iy in 0..ls as u32 {
        for ix in 0..ws as u32 {
            let a = iy * row + ix;
            for tri in [[a, a + 1, a + row + 1], [a + row + 1, a + row, a]] {
                faces.push(Face {
                    v: tri,
                    smoothing: 1,
                    material: 0,
                    flags: ALL_EDGES,
                });
            }
        }
    }
    Ok(Mesh {
        vertices: v,
        faces,
        maps: Vec::new(),
    })
}

pub const SPHERE: ClassId = ClassId(0x11, 0);

impl Params {
    fn int_or(&self, i: usize, default: i64) -> i64 {
        match self.0.get(i) {
            Some(Value::Int(n)) => i64::from(*n),
            Some(Value::Float(f)) => *f as i64,
            Some(Value::Bool(b)) => i64::from(*b),
            _ => default,
        }
    }

    fn float_or(&self, i: usize, default: f64) -> f64 {
        self.float(i).unwrap_or(default)
    }
}

/// Sphere: radius (0), segments (1), smooth (2), hemisphere (3), squash (4), base
/// to pivot (5), slice on (7). North pole, rings from the top, south pole; one
/// smoothing group when smooth, material id 1. Hemispheres and slices are refused
/// (no corpus file uses them, and their topology is not verified).
pub fn sphere_mesh(p: &Params) -> Result<Mesh, String> {
    let r = p.float(0)?;
    let segs = p.segments(1)?;
    if segs < 4 {
        return Err(format!("sphere with {segs} segments"));
    }
    if p.float_or(3, 0.0) != 0.0 {
        return Err("hemisphere spheres are not supported yet".into());
    }
    if p.int_or(7, 0) != 0 {
        return Err("sliced spheres are not supported yet".into());
    }
    let smoothing = if p.int_or(2, 1) != 0 { 1 } else { 0 };
    let z0 = if p.int_or(5, 0) != 0 { r } else { 0.0 };
    let rings = segs / 2;
    let mut v = vec![Vec3(0.0, 0.0, r + z0)];
    for ring in 1..rings {
        let th = std::f64::consts::PI * ring as f64 / rings as f64;
        for k in 0..segs {
            let ph = 2.0 * std::f64::consts::PI * k as f64 / segs as f64;
            v.push(Vec3(
                r * th.sin() * ph.cos(),
                r * th.sin() * ph.sin(),
                r * th.cos() + z0,
            ));
        }
    }
    let south = v.len() as u32;
    v.push(Vec3(0.0, 0.0, -r + z0));
    let at = |ring: usize, k: usize| (1 + (ring - 1) * segs + k % segs) as u32;
    let mut faces = Vec::new();
    let mut tri = |a: u32, b: u32, c: u32| {
        faces.push(Face {
            v: [a, b, c],
            smoothing,
            material: 1,
            flags: ALL_EDGES,
        })
    };
    for k in 0..segs {
        tri(0, at(1, k), at(1, k + 1));
    }
    for ring in 1..rings - 1 {
        for k in 0..segs {
            let (a, b, c, d) = (
                at(ring, k),
                at(ring + 1, k),
                at(ring + 1, k + 1),
                at(ring, k + 1),
            );
            tri(a, b, c);
            tri(c, d, a);
        }
    }
    for k in 0..segs {
        tri(south, at(rings - 1, k + 1), at(rings - 1, k));
    }
    Ok(Mesh {
        vertices: v,
        faces,
        maps: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_max() {
        // Max's default 32-segment sphere has 482 vertices and 960 faces.
        let p = Params(vec![Value::Float(10.0), Value::Int(32), Value::Int(1)]);
        let s = sphere_mesh(&p).expect("sphere");
        assert_eq!((s.vertices.len(), s.faces.len()), (482, 960));
        // A 2×3×4-segment box: 2·(2·3) + 2·(3·4) + 2·(2·4) quads.
        let b = Params(vec![
            Value::Float(3.0),
            Value::Float(2.0),
            Value::Float(4.0),
            Value::Int(2),
            Value::Int(3),
            Value::Int(4),
        ]);
        let m = box_mesh(&b).expect("box");
        assert_eq!(m.faces.len(), 2 * (2 * (6 + 12 + 8)));
        // Every vertex is used and every face index is in range.
        let mut used = vec![false; m.vertices.len()];
        m.faces
            .iter()
            .flat_map(|f| f.v)
            .for_each(|i| used[i as usize] = true);
        assert!(used.iter().all(|&u| u));
        assert!(sphere_mesh(&Params(vec![Value::Float(1.0), Value::Int(100_000)])).is_err());
    }
}
