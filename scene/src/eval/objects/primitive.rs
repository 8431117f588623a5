//! Parametric primitives rebuilt from their parameters, with Max's vertex order,
//! face order and corner order, material ids, smoothing groups and — when the
//! object's "Generate Mapping Coords" is on — map channel 1 as Max generates it:
//! Box, Plane, Sphere, Cylinder and Cone. Exporters need the exact topology (UV
//! seams split vertices), so the layouts follow Max, not a convenient equivalent.

use crate::typed::ClassId;

use crate::eval::core::math::Vec3;
use crate::eval::core::pblock::{self, Value};
use crate::eval::objects::bone_object::BONE_OBJECT;
use crate::eval::objects::mesh::{Face, MapChannel, Mesh};

pub const BOX: ClassId = ClassId(0x10, 0);
pub const PLANE: ClassId = ClassId(0x081f1dfc, 0x77566f65);
pub const SPHERE: ClassId = ClassId(0x11, 0);
pub const CYLINDER: ClassId = ClassId(0x12, 0);
pub const CONE: ClassId = ClassId(0xa86c23dd, 0);
pub const PYRAMID: ClassId = ClassId(0x76bf318a, 0x4bf37b10);
/// Extended Primitives' ChamferBox (eval/primitive_chamfer.rs).
pub const CHAMFER_BOX: ClassId = ClassId(0x1ad73f40, 0x48ea0f97);

/// All three edges visible, as Max marks primitive faces.
const ALL_EDGES: u16 = 7;
/// Segment counts beyond this are refused (damaged parameters).
const MAX_SEGMENTS: i64 = 1000;
/// Quads a primitive may have (about 2 GB of faces and maps beyond this).
const MAX_QUADS: usize = 1 << 21;

fn check_quads(n: usize) -> Result<(), String> {
    if n > MAX_QUADS {
        return Err(format!("{n} quads: damaged segment counts"));
    }
    Ok(())
}

/// Parameter values of an old ParamBlock by index (animated ones read their controller at t).
#[derive(Debug)]
pub struct Params(Vec<Value>);

impl Params {
    /// Parameters from values by index (tests build them without a file).
    #[cfg(test)]
    pub(crate) fn from_values(v: Vec<Value>) -> Params {
        Params(v)
    }

    pub fn float(&self, i: usize) -> Result<f64, String> {
        match self.0.get(i) {
            Some(Value::Float(f)) => Ok(f64::from(*f)),
            Some(Value::Int(n)) => Ok(f64::from(*n)),
            other => Err(format!("parameter {i}: expected a float, found {other:?}")),
        }
    }

    pub(crate) fn segments(&self, i: usize) -> Result<usize, String> {
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
pub fn params(eval: &crate::eval::SceneEval, object: usize, t: i32) -> Result<Params, String> {
    let pb = pblock::reference(&eval.graph, object, 0).ok_or("no parameter block (reference 0)")?;
    block_params(eval, pb, t)
}

/// The values of parameter block object `pb` (old ParamBlock or ParamBlock2) by
/// index / id, animated ones read from their controller at `t`.
pub fn block_params(eval: &crate::eval::SceneEval, pb: usize, t: i32) -> Result<Params, String> {
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
                let ctl = pblock::reference(&eval.graph, pb, slot);
                Value::Float(eval.float_at(ctl, t, 0.0) as f32)
            }
            (_, v) => v,
        };
    }
    Ok(Params(values))
}

impl Params {
    pub fn int_or(&self, i: usize, default: i64) -> i64 {
        match self.0.get(i) {
            Some(Value::Int(n)) => i64::from(*n),
            Some(Value::Float(f)) => *f as i64,
            Some(Value::Bool(b)) => i64::from(*b),
            _ => default,
        }
    }

    pub fn float_or(&self, i: usize, default: f64) -> f64 {
        self.float(i).unwrap_or(default)
    }

    /// A boolean parameter; missing means `default` (older files stop before it).
    pub fn flag(&self, i: usize, default: bool) -> bool {
        self.int_or(i, i64::from(default)) != 0
    }
}

/// Whether `class` is a primitive this module rebuilds (the Bone object included).
pub fn is_primitive(class: ClassId) -> bool {
    [
        BOX,
        PLANE,
        SPHERE,
        CYLINDER,
        CONE,
        PYRAMID,
        BONE_OBJECT,
        CHAMFER_BOX,
    ]
    .contains(&class)
}

/// The mesh of a parametric primitive class (see [`is_primitive`]).
pub fn build(class: ClassId, p: &Params) -> Result<Mesh, String> {
    match class {
        c if c == BOX => box_mesh(p),
        c if c == PLANE => plane_mesh(p),
        c if c == SPHERE => sphere_mesh(p),
        c if c == CYLINDER => cylinder_mesh(p, false),
        c if c == CONE => cylinder_mesh(p, true),
        c if c == PYRAMID => pyramid_mesh(p),
        c if c == BONE_OBJECT => crate::eval::objects::bone_object::bone_mesh(p),
        c if c == CHAMFER_BOX => crate::eval::objects::primitive_chamfer::chamfer_box(p),
        c => Err(format!("class {c:?} is not a parametric primitive")),
    }
}

fn face(v: [u32; 3], material: u16, smoothing: u32) -> Face {
    Face {
        v,
        smoothing,
        material,
        flags: ALL_EDGES,
    }
}

/// Map channel 1 from texture vertices (u, v) and one map face per mesh face.
fn channel1(tv: Vec<[f32; 3]>, tf: Vec<[u32; 3]>) -> Vec<MapChannel> {
    vec![MapChannel {
        channel: 1,
        vertices: tv,
        faces: tf,
    }]
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
/// width/length/height (3, 4, 5), generate mapping coordinates (6). Bottom grid,
/// top grid, inner side rings; faces bottom, top, then the sides −Y, +X, +Y, −X.
///
/// Mapping: three texture grids — Y×Z for the ±X sides, X×Z for ±Y, X×Y for the
/// caps — each spanning 0..1; a face picks its grid by the dominant axis of its
/// normal and mirrors U on the −X, +Y and −Z faces so every side reads
/// unmirrored from outside (checked against 3ds Max's ASE export). A negative
/// height turns every face over (corners 1 and 2 swap).
pub fn box_mesh(p: &Params) -> Result<Mesh, String> {
    let (l, w, h) = (p.float(0)?, p.float(1)?, p.float(2)?);
    let (ws, ls, hs) = (p.segments(3)?, p.segments(4)?, p.segments(5)?);
    check_quads(2 * (ws * ls + hs * ls + ws * hs))?;
    let (x0, x1, y0, y1) = (-w / 2.0, w / 2.0, -l / 2.0, l / 2.0);
    let mut v = Vec::new();
    // Grid position (ix, iy, iz) of every vertex, for the mapping.
    let mut at: Vec<[usize; 3]> = Vec::new();
    let bottom = grid(&mut v, (x0, x1, ws), (y0, y1, ls), 0.0);
    let top = grid(&mut v, (x0, x1, ws), (y0, y1, ls), h);
    for iz in [0, hs] {
        for iy in 0..=ls {
            at.extend((0..=ws).map(|ix| [ix, iy, iz]));
        }
    }
    let row = ws + 1;
    let grid_at = |base: usize, ix: usize, iy: usize| (base + iy * row + ix) as u32;
    // The perimeter as grid positions, walking −Y, +X, +Y, −X from (x0, y0).
    let mut perimeter: Vec<(usize, usize)> = Vec::new();
    perimeter.extend((0..ws).map(|ix| (ix, 0)));
    perimeter.extend((0..ls).map(|iy| (ws, iy)));
    perimeter.extend((0..ws).map(|k| (ws - k, ls)));
    perimeter.extend((0..ls).map(|k| (0, ls - k)));
    let ring_len = perimeter.len();
    let mut rings: Vec<Vec<u32>> = vec![perimeter
        .iter()
        .map(|&(ix, iy)| grid_at(bottom, ix, iy))
        .collect()];
    for iz in 1..hs {
        let z = h * iz as f64 / hs as f64;
        let start = v.len() as u32;
        for &(ix, iy) in &perimeter {
            let b = &v[grid_at(bottom, ix, iy) as usize];
            v.push(Vec3(b.0, b.1, z));
            at.push([ix, iy, iz]);
        }
        rings.push((0..ring_len as u32).map(|k| start + k).collect());
    }
    rings.push(
        perimeter
            .iter()
            .map(|&(ix, iy)| grid_at(top, ix, iy))
            .collect(),
    );
    let mut faces = Vec::new();
    let mut quad = |a: u32, b: u32, c: u32, d: u32, material: u16, smoothing: u32| {
        faces.push(face([a, b, c], material, smoothing));
        faces.push(face([c, d, a], material, smoothing));
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
    let mut maps = if p.flag(6, true) {
        box_mapping(&v, &at, &faces, (ws, ls, hs))
    } else {
        Vec::new()
    };
    if h < 0.0 {
        // The top grid lies below the bottom one: Max turns every face over so
        // the box stays outward (checked against the FBX of Kenjis_Room's
        // Box007); the mapping is that of the unturned faces.
        for f in &mut faces {
            f.v.swap(1, 2);
            f.flags = (f.flags & !0b101) | (f.flags & 1) << 2 | (f.flags >> 2 & 1);
        }
        for m in &mut maps {
            for tf in &mut m.faces {
                tf.swap(1, 2);
            }
        }
    }
    Ok(Mesh {
        vertices: v,
        faces,
        maps,
    })
}

/// The Box's generated mapping (see [`box_mesh`]).
fn box_mapping(
    v: &[Vec3],
    at: &[[usize; 3]],
    faces: &[Face],
    (ws, ls, hs): (usize, usize, usize),
) -> Vec<MapChannel> {
    let mut tv = Vec::new();
    let mut push_grid = |nu: usize, nv: usize| {
        let base = tv.len();
        for j in 0..=nv {
            for i in 0..=nu {
                tv.push([
                    (i as f64 / nu as f64) as f32,
                    (j as f64 / nv as f64) as f32,
                    0.0,
                ]);
            }
        }
        base
    };
    let xbase = push_grid(ls, hs);
    let ybase = push_grid(ws, hs);
    let zbase = push_grid(ws, ls);
    let tf = faces
        .iter()
        .map(|f| {
            let [a, b, c] = f.v.map(|i| v[i as usize]);
            let n = b.minus(a).cross(c.minus(a));
            let abs = [n.0.abs(), n.1.abs(), n.2.abs()];
            // The dominant axis of the normal, ties to the lower axis.
            let axis = if abs[0] >= abs[1] && abs[0] >= abs[2] {
                0
            } else if abs[1] >= abs[2] {
                1
            } else {
                2
            };
            let negative = [n.0, n.1, n.2][axis] < 0.0;
            f.v.map(|i| {
                let [ix, iy, iz] = at[i as usize];
                let idx = match (axis, negative) {
                    (0, neg) => xbase + iz * (ls + 1) + if neg { ls - iy } else { iy },
                    (1, neg) => ybase + iz * (ws + 1) + if neg { ix } else { ws - ix },
                    (_, neg) => zbase + iy * (ws + 1) + if neg { ws - ix } else { ix },
                };
                idx as u32
            })
        })
        .collect();
    channel1(tv, tf)
}

/// Plane: length along Y (0), width along X (1), segments length/width (2, 3),
/// generate mapping coordinates (6); one smoothing group, material 0. Each grid
/// cell is split along its (x0, y0)–(x1, y1) diagonal; the mapping is the grid
/// itself over 0..1.
pub fn plane_mesh(p: &Params) -> Result<Mesh, String> {
    let (l, w) = (p.float(0)?, p.float(1)?);
    let (ls, ws) = (p.segments(2)?, p.segments(3)?);
    check_quads(ls * ws)?;
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
            let (b, c, d) = (a + 1, a + row + 1, a + row);
            faces.push(face([d, a, c], 0, 1));
            faces.push(face([b, c, a], 0, 1));
        }
    }
    let maps = if p.flag(6, true) {
        let mut tv = Vec::with_capacity(v.len());
        for iy in 0..=ls {
            for ix in 0..=ws {
                tv.push([
                    (ix as f64 / ws as f64) as f32,
                    (iy as f64 / ls as f64) as f32,
                    0.0,
                ]);
            }
        }
        channel1(tv, faces.iter().map(|f| f.v).collect())
    } else {
        Vec::new()
    };
    Ok(Mesh {
        vertices: v,
        faces,
        maps,
    })
}

/// The rings of a sphere (whole or hemisphere, sliced or not) from its
/// hemisphere and squash parameters.
struct SphereRings {
    whole: bool,
    /// The polar angle of the cut (π for a whole sphere).
    cut: f64,
    /// The polar angle between rings.
    delta: f64,
    rows: usize,
}

impl SphereRings {
    fn of(p: &Params, segs: usize) -> SphereRings {
        let hemi = p.float_or(3, 0.0);
        let whole = hemi < 0.00001;
        let cut = std::f64::consts::PI * (1.0 - hemi.clamp(0.0, 0.9999));
        let squash = p.int_or(4, 0) != 0;
        let delta = if !whole && squash {
            2.0 * cut / (segs - 2) as f64
        } else {
            2.0 * std::f64::consts::PI / segs as f64
        };
        // Max counts the rings in single precision: when the cut falls exactly
        // on a ring, that ring and the cut ring coincide.
        let rows = if whole || squash {
            segs / 2 - 1
        } else {
            (cut as f32 / delta as f32) as usize + 1
        };
        SphereRings {
            whole,
            cut,
            delta,
            rows,
        }
    }
}

/// Sphere: radius (0), segments (1), smooth (2), hemisphere (3), squash (4), base
/// to pivot (5), generate mapping coordinates (6), slice on (7). Built as Max
/// builds it: a north pole, `rows` rings from the top each starting on +Y and
/// turning towards −X, then the south pole — or, for a hemisphere, the centre
/// of the cut. Rings are 2π/segments apart in latitude (a squashed hemisphere
/// spreads `segments/2 − 1` rings over the kept part instead); a hemisphere's
/// last ring lies on the cut, (1 − hemisphere)·π from the pole. Faces: the top
/// fan, the bands (each quad split (a, b, c), (a, c, d) with the shared edge
/// hidden), the bottom fan; material id 1 and smoothing group 1 when smooth,
/// except a hemisphere's flat cap (material 0, group 2). Base to pivot lifts
/// the cut (or the south pole) to z = 0. Slices: see `sliced_sphere_mesh`.
///
/// Mapping: (rows + 2) rows of segments + 1 texture vertices, U = k/segments
/// around from +Y, V = 1 − 2·row/segments (linear in the row index whatever the
/// hemisphere or squash; Max lets the texture be cut with the sphere); the
/// poles get one texture vertex per segment, the seam column is doubled.
pub fn sphere_mesh(p: &Params) -> Result<Mesh, String> {
    let r = p.float(0)?;
    let segs = p.segments(1)?;
    if segs < 4 {
        return Err(format!("sphere with {segs} segments"));
    }
    if p.int_or(7, 0) != 0 {
        return sliced_sphere_mesh(p, r, segs);
    }
    let smoothing = |group: u32| if p.int_or(2, 1) != 0 { group } else { 0 };
    let base = 2.0 * std::f64::consts::PI / segs as f64;
    let SphereRings {
        whole,
        cut,
        delta,
        rows,
    } = SphereRings::of(p, segs);
    check_quads(rows * segs)?;
    let bottom_z = if whole { -r } else { cut.cos() * r };
    let lift = if p.int_or(5, 0) != 0 { -bottom_z } else { 0.0 };
    let mut v = vec![Vec3(0.0, 0.0, r + lift)];
    for ring in 1..=rows {
        let alt = if !whole && ring == rows {
            cut
        } else {
            delta * ring as f64
        };
        let (z, ring_r) = (alt.cos() * r, alt.sin() * r);
        for k in 0..segs {
            let a = std::f64::consts::FRAC_PI_2 + base * k as f64;
            v.push(Vec3(a.cos() * ring_r, a.sin() * ring_r, z + lift));
        }
    }
    let south = v.len() as u32;
    v.push(Vec3(0.0, 0.0, bottom_z + lift));
    let at = |ring: usize, k: usize| (1 + (ring - 1) * segs + k % segs) as u32;
    // Texture vertex of (row, k): row 0 the north pole, rows + 1 the bottom.
    let tat = |row: usize, k: usize| (row * (segs + 1) + k) as u32;
    let mut faces = Vec::new();
    let mut tf = Vec::new();
    let mut tri = |v: [u32; 3], t: [u32; 3], material: u16, smoothing: u32, flags: u16| {
        faces.push(Face {
            v,
            smoothing,
            material,
            flags,
        });
        tf.push(t);
    };
    for k in 0..segs {
        tri(
            [0, at(1, k), at(1, k + 1)],
            [tat(0, k), tat(1, k), tat(1, k + 1)],
            1,
            smoothing(1),
            ALL_EDGES,
        );
    }
    for ring in 1..rows {
        for k in 0..segs {
            let (a, b, c, d) = (
                at(ring, k),
                at(ring + 1, k),
                at(ring + 1, k + 1),
                at(ring, k + 1),
            );
            let (ta, tb, tc, td) = (
                tat(ring, k),
                tat(ring + 1, k),
                tat(ring + 1, k + 1),
                tat(ring, k + 1),
            );
            tri([a, b, c], [ta, tb, tc], 1, smoothing(1), 0b011);
            tri([a, c, d], [ta, tc, td], 1, smoothing(1), 0b110);
        }
    }
    let (cap_material, cap_group) = if whole { (1, 1) } else { (0, 2) };
    for k in 0..segs {
        tri(
            [south, at(rows, k + 1), at(rows, k)],
            [tat(rows + 1, k), tat(rows, k + 1), tat(rows, k)],
            cap_material,
            smoothing(cap_group),
            ALL_EDGES,
        );
    }
    let maps = if p.flag(6, true) {
        let mut tv = Vec::with_capacity((rows + 2) * (segs + 1));
        for row in 0..rows + 2 {
            for k in 0..=segs {
                tv.push([
                    (k as f64 / segs as f64) as f32,
                    (1.0 - 2.0 * row as f64 / segs as f64) as f32,
                    0.0,
                ]);
            }
        }
        channel1(tv, tf)
    } else {
        Vec::new()
    };
    Ok(Mesh {
        vertices: v,
        faces,
        maps,
    })
}

/// A sliced sphere (see [`sphere_mesh`] for the parameters; slice from 8, slice
/// to 9), as Max builds it: each ring holds `segments + 1` vertices from the
/// slice's start (slice to, measured from +Y) to its end, then a centre vertex
/// on the axis at the ring's height — except a hemisphere's last ring, whose
/// centre is the cut's centre. Fans and bands run around the ring and its
/// centre: the triangles or quads from the last ring vertex to the centre are
/// the end cut (material 2, smoothing bit 2), those from the centre back to the
/// first vertex the start cut (material 3, bit 3). Mapping follows Max's table:
/// per row, U over the swept fraction for the ring vertices, then three extra
/// texture vertices (U = 1, 0, 1) for the cut faces.
fn sliced_sphere_mesh(p: &Params, r: f64, segs: usize) -> Result<Mesh, String> {
    let tau = 2.0 * std::f64::consts::PI;
    let smoothing = |group: u32| if p.int_or(2, 1) != 0 { group } else { 0 };
    let (from, to) = (p.float(8)?, p.float(9)?);
    if !(from.is_finite() && to.is_finite()) {
        return Err("slice angles are not finite".into());
    }
    let mut total = (from - to).rem_euclid(tau);
    if total == 0.0 {
        total = tau;
    }
    let start = std::f64::consts::FRAC_PI_2 + to;
    let step = total / segs as f64;
    let SphereRings {
        whole,
        cut,
        delta,
        rows,
    } = SphereRings::of(p, segs);
    check_quads(rows * (segs + 2))?;
    let bottom_z = if whole { -r } else { cut.cos() * r };
    let lift = if p.int_or(5, 0) != 0 { -bottom_z } else { 0.0 };
    // Vertices per ring with its centre.
    let row = segs + 2;
    let mut v = vec![Vec3(0.0, 0.0, r + lift)];
    for ring in 1..=rows {
        let alt = if !whole && ring == rows {
            cut
        } else {
            delta * ring as f64
        };
        let (z, ring_r) = (alt.cos() * r, alt.sin() * r);
        for k in 0..=segs {
            let a = start + step * k as f64;
            v.push(Vec3(a.cos() * ring_r, a.sin() * ring_r, z + lift));
        }
        if whole || ring < rows {
            v.push(Vec3(0.0, 0.0, z + lift));
        }
    }
    let last = v.len() as u32;
    v.push(Vec3(0.0, 0.0, bottom_z + lift));
    let mut faces = Vec::new();
    let mut face = |v: [u32; 3], material: u16, smoothing: u32, flags: u16| {
        faces.push(Face {
            v,
            smoothing,
            material,
            flags,
        })
    };
    // Material and smoothing of position k around a ring (row − 2: end cut,
    // row − 1: start cut).
    let kind = |k: usize, plain: (u16, u32)| {
        if k == row - 2 {
            (2, smoothing(4))
        } else if k == row - 1 {
            (3, smoothing(8))
        } else {
            plain
        }
    };
    let sphere = (1, smoothing(1));
    for ix in 1..=row {
        let nc = if ix == row { 1 } else { ix + 1 };
        let (m, s) = kind(ix - 1, sphere);
        face([0, ix as u32, nc as u32], m, s, ALL_EDGES);
    }
    for ring in 1..rows {
        let jx = (ring - 1) * row + 1;
        for kx in 0..row {
            let na = jx + kx;
            let nb = na + row;
            let nc = if kx == row - 1 { jx + row } else { nb + 1 };
            let nd = if kx == row - 1 { jx } else { na + 1 };
            let (m, s) = kind(kx, sphere);
            let [na, nb, nc, nd] = [na, nb, nc, nd].map(|x| x as u32);
            face([na, nb, nc], m, s, 0b011);
            face([na, nc, nd], m, s, 0b110);
        }
    }
    let jx = (rows - 1) * row + 1;
    let bottom = if whole { row } else { row - 2 };
    for ix in 0..bottom {
        let nc = ix + jx;
        let nb = if whole && ix == bottom - 1 {
            jx
        } else {
            nc + 1
        };
        let (m, s) = if whole {
            kind(ix, sphere)
        } else {
            (0, smoothing(2))
        };
        face([last, nb as u32, nc as u32], m, s, ALL_EDGES);
    }
    let maps = if p.flag(6, true) {
        // Per row: segs + 1 ring texture vertices, then U = 1, 0, 1.
        let t1 = segs + 4;
        let mut tv = Vec::with_capacity((rows + 2) * t1);
        for r in 0..rows + 2 {
            let vv = (1.0 - 2.0 * r as f64 / segs as f64) as f32;
            for k in 0..=segs {
                tv.push([(step * k as f64 / tau) as f32, vv, 0.0]);
            }
            for u in [1.0, 0.0, 1.0] {
                tv.push([u, vv, 0.0]);
            }
        }
        let mut tf: Vec<[u32; 3]> = Vec::with_capacity(faces.len());
        let mut add = |a: usize, b: usize, c: usize| tf.push([a, b, c].map(|x| x as u32));
        for ix in 0..segs {
            add(ix, ix + t1, ix + t1 + 1);
        }
        // The two cut faces of the top fan share the row's U = 0 vertex.
        for ix in [segs + 1, segs + 2] {
            add(segs + 2, ix + t1, ix + t1 + 1);
        }
        for r in 1..rows {
            let mut cpt = r * t1;
            for kx in 0..row {
                if kx == segs {
                    cpt += 1;
                }
                let na = cpt + kx;
                add(na, na + t1, na + t1 + 1);
                add(na, na + t1 + 1, na + 1);
            }
        }
        let lastv = rows * t1;
        for j1 in lastv..lastv + segs {
            add(j1 + t1, j1 + 1, j1);
        }
        if whole {
            let first = lastv + segs + 1;
            let centre = first + t1 + 1;
            for j1 in [first, first + 1] {
                add(centre, j1 + 1, j1);
            }
        }
        channel1(tv, tf)
    } else {
        Vec::new()
    };
    Ok(Mesh {
        vertices: v,
        faces,
        maps,
    })
}

/// Cylinder (radius 0, height 1, height segments 2, cap segments 3, sides 4,
/// smooth 5, slice on 6, generate mapping coordinates 9) and Cone (radius 1 0,
/// radius 2 1, height 2, height segments 3, cap segments 4, sides 5, smooth 6,
/// slice on 7, generate mapping coordinates 10), laid out as Max's cylinder
/// builder does: bottom centre; `cap segments` bottom rings from the centre out
/// (the last is the rim); the height-segment rings between; `cap segments` top
/// rings from the rim in; top centre. Rings start on +X and turn towards +Y —
/// towards −Y for a negative height, which keeps the faces outward. A cone of
/// radius 0 keeps its collapsed ring. Faces: bottom fan (material 1), bands
/// (quads split (a, c, b), (a, d, c) with the diagonal hidden), top fan
/// (material 0); side bands are material 2 in smoothing group 4 when smooth,
/// cap fans and cap bands group 1 — the bottom cap's bands material 0 and the
/// top cap's material 1, as Max numbers them. Slices: see
/// `sliced_cylinder_mesh`.
///
/// Mapping: U runs around from +Y (U = ¾ on +X), V = z/height (0 and 1 on all
/// cap rings); each segment keeps the U of its end vertex, so the segment across
/// the seam starts below 0 or ends at 1 depending on float rounding (see below);
/// cap centres map to U = ½ and cap rings to their vertices' U (checked against
/// Babylon's glTF of Max cones with one cap segment).
pub fn cylinder_mesh(p: &Params, cone: bool) -> Result<Mesh, String> {
    let o = usize::from(cone);
    let r1 = p.float(0)?;
    let r2 = if cone { p.float(1)? } else { r1 };
    let h = p.float(1 + o)?;
    let hs = p.segments(2 + o)?;
    let caps = p.segments(3 + o)?;
    let n = p.segments(4 + o)?;
    if n < 3 {
        return Err(format!("{n} sides"));
    }
    let rings = hs - 1 + 2 * caps;
    check_quads(n * (rings + 1))?;
    if p.int_or(6 + o, 0) != 0 {
        return sliced_cylinder_mesh(p, o, (r1, r2, h), (hs, caps, n));
    }
    let smooth = p.flag(5 + o, true);
    // (radius, z, V) of every ring, bottom to top.
    let mut ring: Vec<(f64, f64, f64)> = Vec::with_capacity(rings);
    ring.extend((0..caps).map(|i| (r1 * (i + 1) as f64 / caps as f64, 0.0, 0.0)));
    ring.extend((1..hs).map(|i| {
        let f = i as f64 / hs as f64;
        (r1 * (1.0 - f) + r2 * f, h * f, f)
    }));
    ring.extend((0..caps).map(|i| (r2 * (1.0 - i as f64 / caps as f64), h, 1.0)));
    let step = if h < 0.0 { -1.0 } else { 1.0 } * 2.0 * std::f64::consts::PI / n as f64;
    let mut v = vec![Vec3::default()];
    for &(r, z, _) in &ring {
        for k in 0..n {
            let a = step * k as f64;
            v.push(Vec3(r * a.cos(), r * a.sin(), z));
        }
    }
    let top = v.len() as u32;
    v.push(Vec3(0.0, 0.0, h));
    let at = |row: usize, k: usize| (1 + row * n + k % n) as u32;
    // U of ring vertex k: ¾ + angle/2π, wrapped into [0, 1]. Max accumulates the
    // angle in single precision, which decides on which side of the seam a
    // vertex exactly on +Y lands. A ring of radius 0 (a cone's tip) maps to U = ½.
    let mut wrapped = Vec::with_capacity(n);
    let delta = step as f32;
    let mut angle = 0.0f32;
    for _ in 0..n {
        let u = 0.75 + f64::from(angle) / (2.0 * std::f64::consts::PI);
        wrapped.push(if u > 1.0 {
            u - 1.0
        } else if u < 0.0 {
            u + 1.0
        } else {
            u
        });
        angle += delta;
    }
    let u = |row: usize, k: usize| {
        if ring[row].0 == 0.0 {
            0.5
        } else {
            wrapped[k % n]
        }
    };
    let mut tv = TexVerts::default();
    let mut faces = Vec::new();
    let mut tf = Vec::new();
    // A face spanning the seam moves its corners above ½ down by 1.
    let mut tri = |vs: [u32; 3], uvs: [(f64, f64); 3], material: u16, smoothing: u32, flags| {
        let lo = uvs.iter().map(|c| c.0).fold(f64::INFINITY, f64::min);
        let hi = uvs.iter().map(|c| c.0).fold(f64::NEG_INFINITY, f64::max);
        let seam = hi - lo > 0.5;
        faces.push(Face {
            v: vs,
            smoothing,
            material,
            flags,
        });
        tf.push(uvs.map(|(u, v)| tv.at(if seam && u > 0.5 { u - 1.0 } else { u }, v)));
    };
    // Fan edges to the centre are hidden when cap rings subdivide the cap.
    let fan_edges = if caps > 1 { ALL_EDGES } else { 0b010 };
    for k in 0..n {
        tri(
            [0, at(0, k + 1), at(0, k)],
            [(0.5, 0.0), (u(0, k + 1), 0.0), (u(0, k), 0.0)],
            1,
            1,
            fan_edges,
        );
    }
    for row in 0..rings - 1 {
        let (va, vb) = (ring[row].2, ring[row + 1].2);
        let (material, smoothing) = if row + 1 < caps {
            (0, 1)
        } else if row + 1 >= caps + hs {
            (1, 1)
        } else {
            (2, if smooth { 0x08 } else { 0 })
        };
        for k in 0..n {
            let (a0, a1) = ((u(row, k), va), (u(row, k + 1), va));
            let (b0, b1) = ((u(row + 1, k), vb), (u(row + 1, k + 1), vb));
            tri(
                [at(row, k), at(row + 1, k + 1), at(row + 1, k)],
                [a0, b1, b0],
                material,
                smoothing,
                0b110,
            );
            tri(
                [at(row, k), at(row, k + 1), at(row + 1, k + 1)],
                [a0, a1, b1],
                material,
                smoothing,
                0b011,
            );
        }
    }
    let last = rings - 1;
    for k in 0..n {
        tri(
            [top, at(last, k), at(last, k + 1)],
            [(0.5, 1.0), (u(last, k), 1.0), (u(last, k + 1), 1.0)],
            0,
            1,
            fan_edges,
        );
    }
    let maps = if p.flag(9 + o, true) {
        channel1(tv.list, tf)
    } else {
        Vec::new()
    };
    Ok(Mesh {
        vertices: v,
        faces,
        maps,
    })
}

/// A sliced cylinder or cone (see [`cylinder_mesh`] for the parameters), laid
/// out as Max's builder does: each ring has `sides + 1` vertices from the slice's
/// start to its end (slice to → slice from, anticlockwise), preceded by a centre
/// vertex on the axis; the centres are spread evenly up the axis (ring i at
/// height·i/(rings − 1)) so that the two cut faces form grids. Faces: the bottom
/// fan (material 1), the bands — each with a first quad on the start cut
/// (material 3, smoothing bit 1) and a last on the end cut (material 4, bit 2) — and the top fan (material 0). Mapping (unverified: no corpus file
/// slices): U from each vertex's angle as for whole cylinders, centres at ½,
/// V = z/height.
fn sliced_cylinder_mesh(
    p: &Params,
    o: usize,
    (r1, r2, h): (f64, f64, f64),
    (hs, caps, n): (usize, usize, usize),
) -> Result<Mesh, String> {
    let smooth = p.flag(5 + o, true);
    let (from, to) = (p.float(7 + o)?, p.float(8 + o)?);
    if !(from.is_finite() && to.is_finite()) {
        return Err("slice angles are not finite".into());
    }
    // The swept angle from `to` anticlockwise to `from`, in (0, 2π].
    let tau = 2.0 * std::f64::consts::PI;
    let mut total = (from - to).rem_euclid(tau);
    if total == 0.0 {
        total = tau;
    }
    let points = n + 1;
    let mut delta = total / n as f64;
    let start = if h < 0.0 { to + total } else { to };
    if h < 0.0 {
        delta = -delta;
    }
    let rings = hs - 1 + 2 * caps;
    // (radius, z, V) of every ring, bottom to top.
    let mut ring: Vec<(f64, f64, f64)> = Vec::with_capacity(rings);
    ring.extend((0..caps).map(|i| (r1 * (i + 1) as f64 / caps as f64, 0.0, 0.0)));
    ring.extend((1..hs).map(|i| {
        let f = i as f64 / hs as f64;
        (r1 * (1.0 - f) + r2 * f, h * f, f)
    }));
    ring.extend((0..caps).map(|i| (r2 * (1.0 - i as f64 / caps as f64), h, 1.0)));
    let angle = |k: usize| start + delta * k as f64;
    let mut v = Vec::with_capacity(rings * (points + 1));
    for (i, &(r, z, _)) in ring.iter().enumerate() {
        let centre = if rings > 1 {
            h * i as f64 / (rings - 1) as f64
        } else {
            0.0
        };
        v.push(Vec3(0.0, 0.0, centre));
        for k in 0..points {
            let a = angle(k);
            v.push(Vec3(r * a.cos(), r * a.sin(), z));
        }
    }
    let row_len = points + 1;
    let centre = |row: usize| (row * row_len) as u32;
    let at = |row: usize, k: usize| (row * row_len + 1 + k) as u32;
    let u_of = |k: usize| (0.75 + angle(k) / tau).rem_euclid(1.0);
    // Corner (vertex, U) of ring `row`: k = None is the centre.
    let uv = |row: usize, k: Option<usize>| {
        let vv = if h == 0.0 {
            0.0
        } else {
            v[centre(row) as usize].2 / h
        };
        match k {
            Some(k) if ring[row].0 != 0.0 => (at(row, k), (u_of(k), ring[row].2)),
            Some(k) => (at(row, k), (0.5, ring[row].2)),
            None => (centre(row), (0.5, vv)),
        }
    };
    let mut tv = TexVerts::default();
    let mut faces = Vec::new();
    let mut tf = Vec::new();
    let mut tri = |c: [(u32, (f64, f64)); 3], material: u16, smoothing: u32, flags: u16| {
        let us = c.map(|x| x.1 .0);
        let seam = us.iter().cloned().fold(f64::MIN, f64::max)
            - us.iter().cloned().fold(f64::MAX, f64::min)
            > 0.5;
        faces.push(Face {
            v: c.map(|x| x.0),
            smoothing,
            material,
            flags,
        });
        tf.push(c.map(|(_, (u, w))| tv.at(if seam && u > 0.5 { u - 1.0 } else { u }, w)));
    };
    let inner = u16::from(caps > 1);
    for k in 0..n {
        let flags = if k == 0 {
            inner | 0b110
        } else if k == n - 1 {
            0b011
        } else {
            inner | 0b010 | (inner << 2)
        };
        tri(
            [uv(0, None), uv(0, Some(k + 1)), uv(0, Some(k))],
            1,
            1,
            flags,
        );
    }
    for row in 0..rings - 1 {
        let band = if row + 1 < caps {
            (0, 1)
        } else if row + 1 >= caps + hs {
            (1, 1)
        } else {
            (2, if smooth { 0x08 } else { 0 })
        };
        // Quad kx: 0 is the start cut (centre → first vertex), n + 1 the end cut.
        for kx in 0..=points {
            let (corner_a, corner_d) = match kx {
                0 => (None, Some(0)),
                k if k == points => (Some(points - 1), None),
                k => (Some(k - 1), Some(k)),
            };
            let (material, smoothing, cut) = match kx {
                0 => (3, 1 << 1, true),
                k if k == points => (4, 1 << 2, true),
                _ => (band.0, band.1, false),
            };
            let (a, d) = (uv(row, corner_a), uv(row, corner_d));
            let (b, c) = (uv(row + 1, corner_a), uv(row + 1, corner_d));
            let side = u16::from(!cut);
            tri([a, c, b], material, smoothing, (side << 1) | 0b100);
            tri([a, d, c], material, smoothing, side | 0b010);
        }
    }
    let last = rings - 1;
    for k in 0..n {
        let flags = if k == 0 {
            0b011
        } else if k == n - 1 {
            inner | 0b110
        } else {
            inner | 0b010 | (inner << 2)
        };
        tri(
            [uv(last, None), uv(last, Some(k)), uv(last, Some(k + 1))],
            0,
            1,
            flags,
        );
    }
    let maps = if p.flag(9 + o, true) {
        channel1(tv.list, tf)
    } else {
        Vec::new()
    };
    Ok(Mesh {
        vertices: v,
        faces,
        maps,
    })
}

/// Pyramid: width along X (0), depth along Y (1), height (2), segments width /
/// depth / height (3, 4, 5), generate mapping coordinates (6); only one segment
/// each (the only form in the corpus). Faces: the sides −Y, +X, +Y, −X as
/// (apex, base corner, next corner), then the base as four triangles around its
/// centre. Mapping: each side spans U 0..1 along its base edge with the apex at
/// (½, 1); the base is mapped from above, U = ½ + x/width, V = ½ − y/depth.
/// Face corners, positions and mapping are checked against Babylon's glTF; the
/// vertex numbering, material ids (0) and smoothing groups (one per side, one for
/// the base — flat shading as in the glTF normals) are not verified.
pub fn pyramid_mesh(p: &Params) -> Result<Mesh, String> {
    let (w, d, h) = (p.float(0)?, p.float(1)?, p.float(2)?);
    let segs = [p.segments(3)?, p.segments(4)?, p.segments(5)?];
    if segs != [1, 1, 1] {
        return Err(format!(
            "pyramid with {segs:?} segments is not supported yet"
        ));
    }
    let (x, y) = (w / 2.0, d / 2.0);
    let corners = [(-x, -y), (x, -y), (x, y), (-x, y)];
    let mut v = vec![Vec3(0.0, 0.0, h)];
    v.extend(corners.iter().map(|&(cx, cy)| Vec3(cx, cy, 0.0)));
    v.push(Vec3::default());
    let (apex, centre) = (0u32, 5u32);
    let mut tv = TexVerts::default();
    let mut faces = Vec::new();
    let mut tf = Vec::new();
    for k in 0..4u32 {
        let (a, b) = (1 + k, 1 + (k + 1) % 4);
        faces.push(face([apex, a, b], 0, 1 << k));
        tf.push([tv.at(0.5, 1.0), tv.at(0.0, 0.0), tv.at(1.0, 0.0)]);
    }
    let base_uv = |tv: &mut TexVerts, i: u32| {
        let c = v[i as usize];
        let (u, vv) = if w == 0.0 || d == 0.0 {
            (0.5, 0.5)
        } else {
            (0.5 + c.0 / w, 0.5 - c.1 / d)
        };
        tv.at(u, vv)
    };
    for k in 0..4u32 {
        let (a, b) = (1 + k, 1 + (k + 1) % 4);
        faces.push(face([a, centre, b], 0, 0x10));
        tf.push([
            base_uv(&mut tv, a),
            base_uv(&mut tv, centre),
            base_uv(&mut tv, b),
        ]);
    }
    let maps = if p.flag(6, true) {
        channel1(tv.list, tf)
    } else {
        Vec::new()
    };
    Ok(Mesh {
        vertices: v,
        faces,
        maps,
    })
}

/// Texture vertices shared by exact value, for generators whose seams are easier
/// to state per face than as a grid.
#[derive(Default)]
pub(crate) struct TexVerts {
    pub(crate) list: Vec<[f32; 3]>,
    index: std::collections::HashMap<(u32, u32), u32>,
}

impl TexVerts {
    pub(crate) fn at(&mut self, u: f64, v: f64) -> u32 {
        let uv = [u as f32, v as f32, 0.0];
        let list = &mut self.list;
        *self
            .index
            .entry((uv[0].to_bits(), uv[1].to_bits()))
            .or_insert_with(|| {
                list.push(uv);
                (list.len() - 1) as u32
            })
    }
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

    /// Sphere parameters: radius 10, `segs`, smooth, hemisphere, squash, base to
    /// pivot, mapping on, slice off.
    fn sphere(segs: i32, hemi: f32, squash: bool, pivot: bool) -> Mesh {
        let p = Params(vec![
            Value::Float(10.0),
            Value::Int(segs),
            Value::Bool(true),
            Value::Float(hemi),
            Value::Int(i32::from(squash)),
            Value::Bool(pivot),
            Value::Bool(true),
            Value::Bool(false),
        ]);
        sphere_mesh(&p).expect("sphere")
    }

    /// Every directed edge has exactly one opposite: closed, consistently wound.
    fn closed(m: &Mesh) -> bool {
        let mut edges = std::collections::HashMap::new();
        for f in &m.faces {
            for i in 0..3 {
                *edges.entry((f.v[i], f.v[(i + 1) % 3])).or_insert(0) += 1;
            }
        }
        edges
            .iter()
            .all(|(&(a, b), &n)| n == 1 && edges.get(&(b, a)) == Some(&1))
    }

    fn signed_volume(m: &Mesh) -> f64 {
        m.faces
            .iter()
            .map(|f| {
                let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    fn on_sphere(p: Vec3, centre_z: f64) -> bool {
        (Vec3(p.0, p.1, p.2 - centre_z).len() - 10.0).abs() < 1e-9
    }

    #[test]
    fn whole_sphere_with_odd_segments() {
        // segs/2 − 1 = 3 rings of 9, 2π/9 apart from the pole.
        let m = sphere(9, 0.0, false, false);
        assert_eq!((m.vertices.len(), m.faces.len()), (3 * 9 + 2, 2 * 3 * 9));
        assert!(m.vertices.iter().all(|&p| on_sphere(p, 0.0)));
        for ring in 1..=3 {
            let z = m.vertices[1 + (ring - 1) * 9].2;
            let expect = 10.0 * (2.0 * std::f64::consts::PI * ring as f64 / 9.0).cos();
            assert!((z - expect).abs() < 1e-9, "ring {ring}: {z}");
        }
        assert!(closed(&m) && signed_volume(&m) > 0.0);
        assert_eq!(m.maps[0].faces.len(), m.faces.len());
    }

    #[test]
    fn hemisphere_cut_and_cap() {
        // Keeping 60% of the height cuts at 0.6π from the pole: rings every π/8
        // up to 0.5π, then the cut ring; the cap is material 0, group 2.
        let m = sphere(16, 0.4, false, false);
        let rows = 5;
        assert_eq!(
            (m.vertices.len(), m.faces.len()),
            (rows * 16 + 2, 2 * rows * 16)
        );
        let cut_z = 10.0 * (0.6 * std::f64::consts::PI).cos();
        let (centre, rings) = m.vertices.split_last().expect("vertices");
        assert!((centre.2 - cut_z).abs() < 1e-6 && centre.0 == 0.0 && centre.1 == 0.0);
        assert!(rings.iter().all(|&p| on_sphere(p, 0.0)));
        assert!(rings[rings.len() - 16..]
            .iter()
            .all(|p| (p.2 - cut_z).abs() < 1e-6));
        let min_z = m.vertices.iter().map(|p| p.2).fold(f64::MAX, f64::min);
        assert!((min_z - cut_z).abs() < 1e-6);
        let cap = &m.faces[m.faces.len() - 16..];
        assert!(cap.iter().all(|f| f.material == 0 && f.smoothing == 2));
        assert!(m.faces[..m.faces.len() - 16]
            .iter()
            .all(|f| f.material == 1 && f.smoothing == 1));
        assert!(closed(&m) && signed_volume(&m) > 0.0);
        // Max's count when the cut falls on a ring: int(0.5π / (π/8)) + 1 = 5
        // rings, the last two at the same height.
        let half = sphere(16, 0.5, false, false);
        assert_eq!(half.vertices.len(), 5 * 16 + 2);
        assert!((half.vertices[1 + 3 * 16].2 - half.vertices[1 + 4 * 16].2).abs() < 1e-6);
    }

    #[test]
    fn squashed_hemisphere_and_base_to_pivot() {
        // Squash spreads segs/2 − 1 = 7 rings over the kept half: the last on z = 0.
        let m = sphere(16, 0.5, true, false);
        assert_eq!((m.vertices.len(), m.faces.len()), (7 * 16 + 2, 2 * 7 * 16));
        let (centre, rings) = m.vertices.split_last().expect("vertices");
        assert!(rings.iter().all(|&p| on_sphere(p, 0.0)));
        assert!(centre.2.abs() < 1e-6);
        assert!(rings[rings.len() - 16..].iter().all(|p| p.2.abs() < 1e-6));
        assert!(closed(&m) && signed_volume(&m) > 0.0);
        // Base to pivot puts the cut on z = 0 and the pole above it.
        let lifted = sphere(16, 0.4, false, true);
        // The cut as Max computes it from the stored (single-precision) fraction.
        let shift = -10.0 * ((1.0 - f64::from(0.4f32)) * std::f64::consts::PI).cos();
        let min_z = lifted.vertices.iter().map(|p| p.2).fold(f64::MAX, f64::min);
        assert!(min_z.abs() < 1e-6, "{min_z}");
        assert!((lifted.vertices[0].2 - (10.0 + shift)).abs() < 1e-6);
        assert!(lifted.vertices[..lifted.vertices.len() - 1]
            .iter()
            .all(|&p| on_sphere(p, shift)));
        // A whole sphere rests on its south pole.
        let whole = sphere(16, 0.0, false, true);
        assert!(whole.vertices.iter().all(|&p| on_sphere(p, 10.0)));
    }

    #[test]
    fn negative_height_box_stays_outward() {
        let boxp = |h: f32| {
            Params(vec![
                Value::Float(10.0),
                Value::Float(20.0),
                Value::Float(h),
                Value::Int(2),
                Value::Int(1),
                Value::Int(3),
                Value::Bool(true),
            ])
        };
        let up = box_mesh(&boxp(5.0)).expect("box");
        let down = box_mesh(&boxp(-5.0)).expect("box");
        assert!(closed(&up) && closed(&down));
        assert!((signed_volume(&up) - 1000.0).abs() < 1e-6);
        assert!((signed_volume(&down) - 1000.0).abs() < 1e-6);
        // Same faces turned over (corners 1 and 2). The mapping (per vertex,
        // checked against the FBX in eval_fbx_uv.rs) keeps one face per face.
        for (a, b) in up.faces.iter().zip(&down.faces) {
            assert_eq!([a.v[0], a.v[2], a.v[1]], b.v);
        }
        assert_eq!(down.maps[0].faces.len(), down.faces.len());
    }

    /// Cone parameters: radii 10 and `r2`, `height`, 4 height segments, `caps`
    /// cap segments, 8 sides, smooth, no slice, mapping on.
    fn cone(r2: f32, height: f32, caps: i32) -> Mesh {
        let p = Params(vec![
            Value::Float(10.0),
            Value::Float(r2),
            Value::Float(height),
            Value::Int(4),
            Value::Int(caps),
            Value::Int(8),
            Value::Bool(true),
            Value::Bool(false),
            Value::Float(0.0),
            Value::Float(0.0),
            Value::Bool(true),
        ]);
        cylinder_mesh(&p, true).expect("cone")
    }

    #[test]
    fn cap_segments_and_negative_height() {
        for (height, caps) in [(20.0f32, 3usize), (-20.0, 1), (-20.0, 2)] {
            let m = cone(5.0, height, caps as i32);
            let h = f64::from(height);
            // Rings: caps on each cap (rims included) and 3 between.
            let rings = 3 + 2 * caps;
            assert_eq!(
                (m.vertices.len(), m.faces.len()),
                (2 + 8 * rings, 2 * 8 * rings),
                "{height} {caps}"
            );
            assert!(closed(&m), "{height} {caps}");
            assert!(
                signed_volume(&m) > 0.0,
                "{height} {caps}: faces point inward"
            );
            for p in &m.vertices {
                let r = (p.0 * p.0 + p.1 * p.1).sqrt();
                let on_cap = p.2 == 0.0 || p.2 == h;
                let on_side = (r - (10.0 - 5.0 * p.2 / h)).abs() < 1e-9;
                assert!(on_cap || on_side, "{height} {caps}: {p:?}");
            }
            // Cap rings at radius i/caps of the rim.
            for i in 1..=caps {
                let ring = m.vertices[1 + (i - 1) * 8];
                assert!((ring.0 - 10.0 * i as f64 / caps as f64).abs() < 1e-9);
            }
            let sides = m.faces.iter().filter(|f| f.material == 2).count();
            assert_eq!(sides, 2 * 8 * 4);
            assert!(m
                .faces
                .iter()
                .all(|f| (f.material == 2) == (f.smoothing == 0x08)));
            assert_eq!(m.maps[0].faces.len(), m.faces.len());
        }
    }

    #[test]
    fn sliced_cylinders_and_cones() {
        // A cone sliced from 270° (from) to 30° (to): 240° swept anticlockwise
        // from 30°, in 8 sides of 30°.
        let (from, to) = (270f32.to_radians(), 30f32.to_radians());
        for (height, caps) in [(20.0f32, 1usize), (20.0, 2), (-20.0, 1)] {
            let p = Params(vec![
                Value::Float(10.0),
                Value::Float(5.0),
                Value::Float(height),
                Value::Int(4),
                Value::Int(caps as i32),
                Value::Int(8),
                Value::Bool(true),
                Value::Bool(true),
                Value::Float(from),
                Value::Float(to),
                Value::Bool(true),
            ]);
            let m = cylinder_mesh(&p, true).expect("sliced cone");
            let rings = 3 + 2 * caps;
            // Max's counts: (sides + 2) vertices per ring (centre included);
            // two fans of `sides` and (sides + 2) quads per band.
            assert_eq!(
                (m.vertices.len(), m.faces.len()),
                (rings * 10, 2 * 8 + 2 * 10 * (rings - 1)),
                "{height} {caps}"
            );
            assert!(closed(&m), "{height} {caps}");
            assert!(signed_volume(&m) > 0.0, "{height} {caps}: inward");
            // The rim's first and last vertices lie on the cut directions.
            let (first, last) = if height > 0.0 { (to, from) } else { (from, to) };
            let rim = &m.vertices[1 + 10 * (caps - 1)..];
            let dir = |p: Vec3| p.1.atan2(p.0).rem_euclid(std::f64::consts::TAU);
            assert!((dir(rim[0]) - f64::from(first)).abs() < 1e-6, "{height}");
            assert!((dir(rim[8]) - f64::from(last)).abs() < 1e-6, "{height}");
            // Every vertex lies inside the swept sector (or on the axis).
            for p in &m.vertices {
                if p.0.hypot(p.1) > 1e-9 {
                    let a = (dir(*p) - f64::from(to)).rem_euclid(std::f64::consts::TAU);
                    assert!(a <= f64::from(from - to) + 1e-6, "{p:?}");
                }
            }
            // The cut faces are planar: on the plane of the axis and their edge.
            for (material, angle) in [(3u16, first), (4, last)] {
                let (s, c) = f64::from(angle).sin_cos();
                let cut: Vec<&Face> = m.faces.iter().filter(|f| f.material == material).collect();
                assert_eq!(cut.len(), 2 * (rings - 1));
                for f in cut {
                    for i in f.v {
                        let p = m.vertices[i as usize];
                        assert!((p.0 * s - p.1 * c).abs() < 1e-9, "{material}: {p:?}");
                    }
                }
            }
            assert_eq!(m.maps[0].faces.len(), m.faces.len());
        }
    }

    #[test]
    fn sliced_spheres() {
        // 12 segments sliced from 200° (from) to 20° (to): 180° swept from +Y + 20°.
        let (from, to) = (200f32.to_radians(), 20f32.to_radians());
        for hemi in [0.0f32, 0.3] {
            let p = Params(vec![
                Value::Float(10.0),
                Value::Int(12),
                Value::Bool(true),
                Value::Float(hemi),
                Value::Int(0),
                Value::Bool(false),
                Value::Bool(true),
                Value::Bool(true),
                Value::Float(from),
                Value::Float(to),
            ]);
            let m = sphere_mesh(&p).expect("sliced sphere");
            // Max's counts: rows × (segs + 2) + 2 vertices and 2·rows·(segs + 2)
            // faces, one vertex and two faces fewer for a hemisphere.
            // 12 segments: 5 rings; cutting 30% off at 0.7π still needs 5.
            let rows = 5;
            let less = usize::from(hemi != 0.0);
            assert_eq!(
                (m.vertices.len(), m.faces.len()),
                (rows * 14 + 2 - less, 2 * rows * 14 - 2 * less),
                "{hemi}"
            );
            assert!(closed(&m), "{hemi}");
            assert!(signed_volume(&m) > 0.0, "{hemi}: inward");
            let start = std::f64::consts::FRAC_PI_2 + f64::from(to);
            let sweep = f64::from(from) - f64::from(to);
            for q in &m.vertices {
                let r = q.0.hypot(q.1);
                if r > 1e-9 {
                    assert!(on_sphere(*q, 0.0), "{q:?}");
                    let a = (q.1.atan2(q.0) - start).rem_euclid(std::f64::consts::TAU);
                    assert!(a <= sweep + 1e-6, "{hemi}: {q:?} outside the slice");
                }
            }
            // The cut faces lie on the planes of the axis and the cut directions.
            for (material, angle) in [(2u16, start + sweep), (3, start)] {
                let (s, c) = angle.sin_cos();
                let cut: Vec<&Face> = m.faces.iter().filter(|f| f.material == material).collect();
                assert!(!cut.is_empty());
                for f in cut {
                    for i in f.v {
                        let q = m.vertices[i as usize];
                        assert!((q.0 * s - q.1 * c).abs() < 1e-9, "{material}: {q:?}");
                    }
                }
            }
            let map = &m.maps[0];
            assert_eq!(map.faces.len(), m.faces.len());
            assert!(map
                .faces
                .iter()
                .flatten()
                .all(|&i| (i as usize) < map.vertices.len()));
        }
    }

    #[test]
    fn cylinder_and_cone_topology_and_mapping() {
        // Barrel.max's cylinder: radius, height, 3 height segments, 1 cap segment, 12 sides.
        let p = Params(vec![
            Value::Float(11.0),
            Value::Float(36.0),
            Value::Int(3),
            Value::Int(1),
            Value::Int(12),
            Value::Int(1),
            Value::Int(0),
            Value::Float(0.0),
            Value::Float(0.0),
            Value::Int(1),
        ]);
        let m = cylinder_mesh(&p, false).expect("cylinder");
        assert_eq!(
            (m.vertices.len(), m.faces.len()),
            (2 + 4 * 12, 12 + 2 * 3 * 12 + 12)
        );
        let map = &m.maps[0];
        assert_eq!(map.faces.len(), m.faces.len());
        // Every segment spans 1/12 in U, the seam segment included.
        for (f, tf) in m.faces.iter().zip(&map.faces).skip(12).take(72) {
            let us: Vec<f32> = tf.iter().map(|&i| map.vertices[i as usize][0]).collect();
            let span = us.iter().cloned().fold(f32::MIN, f32::max)
                - us.iter().cloned().fold(f32::MAX, f32::min);
            assert!((span - 1.0 / 12.0).abs() < 1e-5, "{f:?}: {us:?}");
        }
        // Damaged segment counts are refused, not allocated.
        let b = Params(vec![
            Value::Float(1.0),
            Value::Float(1.0),
            Value::Float(1.0),
            Value::Int(1000),
            Value::Int(1000),
            Value::Int(1000),
        ]);
        assert!(box_mesh(&b).is_err());
    }
}
