//! Parametric primitives rebuilt from their parameters, with Max's vertex order,
//! face order and corner order, material ids, smoothing groups and — when the
//! object's "Generate Mapping Coords" is on — map channel 1 as Max generates it:
//! Box, Plane, Sphere, Cylinder, Cone, Pyramid, Torus, Tube, GeoSphere, Teapot, Hose, Capsule, OilTank,
//! Spindle, ChamferCyl, Prism, Gengon, L-Ext, C-Ext and Hedra. Exporters need the exact topology (UV
//! seams split vertices), so the layouts follow Max, not a convenient equivalent.

use crate::eval::error::EvalError;
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
pub const TORUS: ClassId = ClassId(0x20, 0);
pub const TUBE: ClassId = ClassId(0x7b21, 0);
pub const GEOSPHERE: ClassId = ClassId(0, 0x7f9e);
pub use capsule::CAPSULE;
pub use chamfercyl::CHAMFER_CYL;
pub use damper::DAMPER;
pub use extrusion::{C_EXT, L_EXT};
pub use gengon::GENGON;
pub use hedra::HEDRA;
pub use hose::HOSE;
pub use oiltank::OIL_TANK;
pub use prism::PRISM;
pub use spindle::SPINDLE;
pub use spring::SPRING;
pub use teapot::TEAPOT;

/// All three edges visible, as Max marks primitive faces.
pub(super) const ALL_EDGES: u16 = 7;
/// Segment counts beyond this are refused (damaged parameters).
pub(super) const MAX_SEGMENTS: i64 = 1000;
/// Quads a primitive may have (about 2 GB of faces and maps beyond this).
pub(super) const MAX_QUADS: usize = 1 << 21;

pub(super) fn check_quads(n: usize) -> Result<(), EvalError> {
    if n > MAX_QUADS {
        return Err(EvalError::malformed(
            format!("{n} quads"),
            "damaged segment counts",
        ));
    }
    Ok(())
}

/// Parameter values of an old ParamBlock by index (animated ones read their controller at t).
#[derive(Debug)]
pub struct Params {
    values: Vec<Value>,
    /// The object saved Max 2's empty "new map" chunk (0x0100): Torus and Tube
    /// then start their first segment a quarter turn earlier (on +Y).
    new_map: bool,
    /// The int chunk 0x0100 holds when it holds one: L-Ext and C-Ext save
    /// their "centre" creation method there beside an old ParamBlock.
    chunk_0100: Option<i32>,
    /// Max's "Real-World Map Size" switch of the object (`real_world`): the
    /// builders that honour it scale their channel 1 by the object's sizes.
    real_world: bool,
}

impl Params {
    /// Parameters from values by index (tests build them without a file).
    #[cfg(test)]
    pub(crate) fn from_values(v: Vec<Value>) -> Params {
        Params {
            values: v,
            new_map: true,
            chunk_0100: None,
            real_world: false,
        }
    }

    /// The same parameters with the real-world map size switch on (tests).
    #[cfg(test)]
    pub(crate) fn with_real_world(self) -> Params {
        Params {
            real_world: true,
            ..self
        }
    }

    /// Whether the object's real-world map size is on.
    pub fn real_world(&self) -> bool {
        self.real_world
    }

    /// The same parameters as an object without the "new map" chunk (tests).
    #[cfg(test)]
    pub(crate) fn without_new_map(self) -> Params {
        Params {
            new_map: false,
            ..self
        }
    }

    /// Whether the object carries the "new map" chunk 0x0100.
    pub fn new_map(&self) -> bool {
        self.new_map
    }

    /// The int in the object's chunk 0x0100, when it holds exactly one.
    pub fn chunk_0100(&self) -> Option<i32> {
        self.chunk_0100
    }

    /// The same parameters with an int in chunk 0x0100 (tests).
    #[cfg(test)]
    pub(crate) fn with_chunk_0100(self, v: i32) -> Params {
        Params {
            chunk_0100: Some(v),
            ..self
        }
    }

    pub fn float(&self, i: usize) -> Result<f64, EvalError> {
        match self.values.get(i) {
            Some(Value::Float(f)) => Ok(f64::from(*f)),
            Some(Value::Int(n)) => Ok(f64::from(*n)),
            other => Err(EvalError::malformed(
                format!("parameter {i}"),
                format!("expected a float, found {other:?}"),
            )),
        }
    }

    pub(crate) fn segments(&self, i: usize) -> Result<usize, EvalError> {
        let n = match self.values.get(i) {
            Some(Value::Int(n)) => i64::from(*n),
            Some(Value::Float(f)) => *f as i64,
            other => {
                return Err(EvalError::malformed(
                    format!("parameter {i}"),
                    format!("expected a segment count, found {other:?}"),
                ))
            }
        };
        if !(1..=MAX_SEGMENTS).contains(&n) {
            return Err(EvalError::malformed(
                format!("parameter {i}"),
                format!("{n} segments"),
            ));
        }
        Ok(n as usize)
    }
}

/// Superclass of ParamBlock2, which newer Max versions use for primitives.
pub(super) const SUPERCLASS_PB2: u32 = 0x82;

/// Reads the primitive's parameter block (reference 0: an old ParamBlock, or a
/// ParamBlock2 whose parameter ids follow the same order), resolving animated
/// values at `t`.
pub fn params(eval: &crate::eval::SceneEval, object: usize, t: i32) -> Result<Params, EvalError> {
    let pb = pblock::reference(&eval.graph, object, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    let mut p = block_params(eval, pb, t)?;
    let chunk = eval.chunks(object).iter().find(|c| c.id == NEW_MAP_CHUNK);
    p.new_map = chunk.is_some();
    p.chunk_0100 = chunk
        .and_then(|c| c.payload())
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(i32::from_le_bytes);
    p.real_world = real_world::is_on(eval, object);
    Ok(p)
}

/// Empty chunk an object saves when it was made after Max 2 changed the
/// mapping orientation (Torus and Tube turn their start by a quarter).
const NEW_MAP_CHUNK: u16 = 0x0100;

/// The values of parameter block object `pb` (old ParamBlock or ParamBlock2) by
/// index / id, animated ones read from their controller at `t`.
pub fn block_params(eval: &crate::eval::SceneEval, pb: usize, t: i32) -> Result<Params, EvalError> {
    let is_pb2 = eval
        .graph
        .class(pb)
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
        let i = usize::try_from(index)
            .map_err(|_| EvalError::malformed("", format!("parameter index {index}")))?;
        if i > 64 {
            return Err(EvalError::malformed("", format!("parameter index {i}")));
        }
        if values.len() <= i {
            values.resize(i + 1, Value::None);
        }
        values[i] = match (ref_slot, value) {
            (Some(slot), Value::None) => {
                let ctl = pblock::reference(&eval.graph, pb, slot);
                pblock::driven(eval, ctl, t).map_err(|e| e.inside(format!("parameter {i}")))?
            }
            (_, v) => v,
        };
    }
    Ok(Params {
        values,
        new_map: false,
        chunk_0100: None,
        real_world: false,
    })
}

impl Params {
    pub fn int_or(&self, i: usize, default: i64) -> i64 {
        match self.values.get(i) {
            Some(Value::Int(n)) => i64::from(*n),
            Some(Value::Float(f)) => *f as i64,
            Some(Value::Bool(b)) => i64::from(*b),
            _ => default,
        }
    }

    pub fn float_or(&self, i: usize, default: f64) -> f64 {
        self.float(i).unwrap_or(default)
    }

    /// Whether the block saved parameter `i` (a number or switch).
    pub fn has(&self, i: usize) -> bool {
        matches!(
            self.values.get(i),
            Some(Value::Int(_) | Value::Float(_) | Value::Bool(_))
        )
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
        TORUS,
        TUBE,
        GEOSPHERE,
        TEAPOT,
        HOSE,
        SPRING,
        DAMPER,
        CAPSULE,
        OIL_TANK,
        SPINDLE,
        CHAMFER_CYL,
        PRISM,
        L_EXT,
        C_EXT,
        GENGON,
        HEDRA,
    ]
    .contains(&class)
}

/// The mesh of a parametric primitive class (see [`is_primitive`]).
pub fn build(class: ClassId, p: &Params) -> Result<Mesh, EvalError> {
    match class {
        c if c == BOX => box_mesh(p),
        c if c == PLANE => plane_mesh(p),
        c if c == SPHERE => sphere_mesh(p),
        c if c == CYLINDER => cylinder_mesh(p, false),
        c if c == CONE => cylinder_mesh(p, true),
        c if c == PYRAMID => pyramid_mesh(p),
        c if c == BONE_OBJECT => crate::eval::objects::bone_object::bone_mesh(p),
        c if c == CHAMFER_BOX => crate::eval::objects::primitive_chamfer::chamfer_box(p),
        c if c == TORUS => torus_mesh(p),
        c if c == TUBE => tube_mesh(p),
        c if c == GEOSPHERE => geosphere_mesh(p),
        c if c == TEAPOT => teapot::teapot_mesh(p),
        c if c == HOSE => hose::hose_mesh(p),
        c if c == SPRING => spring::spring_mesh(p),
        c if c == DAMPER => damper::damper_mesh(p),
        c if c == CAPSULE => capsule::capsule_mesh(p),
        c if c == OIL_TANK => oiltank::oil_tank_mesh(p),
        c if c == SPINDLE => spindle::spindle_mesh(p),
        c if c == CHAMFER_CYL => chamfercyl::chamfer_cyl_mesh(p),
        c if c == PRISM => prism::prism_mesh(p),
        c if c == L_EXT => extrusion::l_ext_mesh(p),
        c if c == C_EXT => extrusion::c_ext_mesh(p),
        c if c == GENGON => gengon::gengon_mesh(p),
        c if c == HEDRA => hedra::hedra_mesh(p),
        c => Err(EvalError::reference(
            "",
            format!("class {c:?} is not a parametric primitive"),
        )),
    }
}

pub(super) fn face(v: [u32; 3], material: u16, smoothing: u32) -> Face {
    Face {
        v,
        smoothing,
        material,
        flags: ALL_EDGES,
    }
}

/// A face as the Extended Primitives' `AddFace` makes it: material 0, edge
/// visibility by kind (0: AB and BC, 1: BC and CA, 2: CA only, 3: CA and
/// AB, 4: all three).
pub(super) fn ext_face(v: [usize; 3], evis: u8, smoothing: u32) -> Face {
    Face {
        v: v.map(|i| i as u32),
        smoothing,
        material: 0,
        flags: match evis {
            0 => 0b011,
            1 => 0b110,
            2 => 0b100,
            3 => 0b101,
            _ => ALL_EDGES,
        },
    }
}

/// Map channel 1 from texture vertices (u, v) and one map face per mesh face.
pub(super) fn channel1(tv: Vec<[f32; 3]>, tf: Vec<[u32; 3]>) -> Vec<MapChannel> {
    vec![MapChannel {
        channel: 1,
        vertices: tv,
        faces: tf,
    }]
}

/// Channel 1 from texture vertices and faces built as indices, refusing a
/// face that points past the vertices (a builder's count mistake, never
/// written out as a broken map).
pub(super) fn checked_channel1(
    tv: Vec<[f32; 3]>,
    tf: Vec<[usize; 3]>,
) -> Result<MapChannel, EvalError> {
    if tf.iter().flatten().any(|&t| t >= tv.len()) {
        return Err(EvalError::malformed(
            "",
            "texture faces outside the texture vertices",
        ));
    }
    Ok(MapChannel {
        channel: 1,
        vertices: tv,
        faces: tf.into_iter().map(|t| t.map(|x| x as u32)).collect(),
    })
}

/// A grid of (nx+1)·(ny+1) vertices over [x0, x1]×[y0, y1] at height z, row by row.
pub(super) fn grid(
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

mod boxes;
mod capsule;
mod chamfercyl;
mod cylinder;
mod damper;
mod extrusion;
mod gengon;
mod geosphere;
mod hedra;
mod hose;
mod oiltank;
mod prism;
pub mod real_world;
mod sphere;
mod spindle;
mod spring;
mod teapot;
mod teapot_data;

#[cfg(test)]
/// A Plane's block by id (`gridobj.cpp`): 0 length (Y), 1 width (X), 2 width
/// segments, 3 length segments, 4 render density, 5 render scale, 6 mapping.
pub(crate) fn plane_params(l: f32, w: f32, ws: i32, ls: i32, scale: f32) -> Params {
    Params::from_values(vec![
        Value::Float(l),
        Value::Float(w),
        Value::Int(ws),
        Value::Int(ls),
        Value::Float(1.0),
        Value::Float(scale),
        Value::Bool(true),
    ])
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_geosphere_map;
#[cfg(test)]
mod tests_round;
mod torus;

pub use boxes::{box_mesh, plane_mesh, pyramid_mesh};
pub use cylinder::cylinder_mesh;
pub use geosphere::geosphere_mesh;
pub use sphere::sphere_mesh;
pub use torus::{torus_mesh, tube_mesh};
