//! `.pacs_prim` (`NLPACS::CPrimitiveBlock`): the PACS primitives of a scene, as
//! pacs_prim_export.ms and the plug-in's `buildPrimitiveBlock` /
//! `exportPACSPrimitives` (nel_mesh_lib/export_collision.cpp,
//! nel_export/nel_export_collision.cpp; seed S003 l.449) write them.
//!
//! - The script selects the `geometry` nodes whose class is the scripted
//!   plug-in nel_pacs_box or nel_pacs_cylinder and writes one
//!   `<maxfile>.pacs_prim` per file, none when there is no primitive.
//! - These plug-ins extend Box / Cylinder: reference 0 is the delegate
//!   primitive (its dimensions), reference 1 a ParamBlock2 whose twelve
//!   parameters have no explicit ids, so their ids are the declaration order
//!   of nel_pacs_box.ms / nel_pacs_cylinder.ms ([`param`]).
//! - Box: Length = (width, length), Height = height, orientation = getZRot of
//!   the node TM's I axis (2π for an unrotated box: the plug-in's
//!   `sina > 0 ? acos : 2π − acos`). Cylinder: Length = (radius, 0),
//!   orientation 0. Position = the node TM's translation, time 0.
//! - Reaction = (radio button − 1) << 4, the plug-in's own cast: "Stop" (4th
//!   button) gives 0x30, not UMovePrimitive::Stop (0x40) — kept as written.
//!   Trigger = enter 0x100 | exit 0x200 | overlap 0x400; UserData = the four
//!   user data words at bits 0, 16, 32, 48 (OR-ed).
//! - A node that is not one of these objects directly (a modifier on top:
//!   `GetObjectRef` is then the derived object) or misses a parameter fails
//!   the whole block, as in the plug-in (no file; each node named).
//! - Written in NeL's XML form (COXml), the form the plug-in writes and
//!   `UPrimitiveBlock::createPrimitiveBlockFromFile` loads.

use crate::error::{ExportError, ExportResult};
use maxfs_scene::eval::core::pblock::{self, Value};
use maxfs_scene::eval::objects::primitive;

use super::select::{self, superclass, NEL_PACS_BOX, NEL_PACS_CYLINDER};
use super::{Context, ExportKind, Exports, Output};
use crate::nel::pacs_prim::{PrimitiveBlock, PrimitiveDesc};
use crate::nel::stream::{Bool, Vec3, F32};
use crate::nel::{write_nel, NelFile};

/// Parameter ids of the scripted plug-ins' block (declaration order).
pub mod param {
    pub const REACTION: u16 = 0;
    pub const ENTER_TRIGGER: u16 = 1;
    pub const EXIT_TRIGGER: u16 = 2;
    pub const OVERLAP_TRIGGER: u16 = 3;
    pub const COLLISION_MASK: u16 = 4;
    pub const OCCLUSION_MASK: u16 = 5;
    pub const OBSTACLE: u16 = 6;
    pub const ABSORBTION: u16 = 7;
    pub const USER_DATA0: u16 = 8;
    /// Number of declared parameters.
    pub const COUNT: u16 = 12;
    /// Declared names, by id (for errors).
    pub const NAMES: [&str; 12] = [
        "Reaction",
        "EnterTrigger",
        "ExitTrigger",
        "OverlapTrigger",
        "CollisionMask",
        "OcclusionMask",
        "Obstacle",
        "Absorbtion",
        "UserData0",
        "UserData1",
        "UserData2",
        "UserData3",
    ];
}

/// UMovePrimitive::TType.
const ORIENTED_BOX: i32 = 0;
const ORIENTED_CYLINDER: i32 = 1;
/// UMovePrimitive::TTrigger bits.
const ENTER_TRIGGER: i32 = 0x100;
const EXIT_TRIGGER: i32 = 0x200;
const OVERLAP_TRIGGER: i32 = 0x400;
/// Box parameters: length, width, height; Cylinder: radius, height.
const BOX_LENGTH: usize = 0;
const BOX_WIDTH: usize = 1;
const BOX_HEIGHT: usize = 2;
const CYL_RADIUS: usize = 0;
const CYL_HEIGHT: usize = 1;
/// NLMISC::Pi.
const PI: f64 = std::f64::consts::PI;

/// CExportNel::getZRot: the angle of `i` projected on XY, measured from X;
/// in (0, 2π], 2π when `i` is along +X.
pub fn z_rot(i: [f32; 3]) -> f32 {
    let n = (i[0] * i[0] + i[1] * i[1]).sqrt();
    let (x, y) = if n > 0.0 {
        (i[0] / n, i[1] / n)
    } else {
        (i[0], i[1])
    };
    let a = f64::from(x).acos();
    if y > 0.0 {
        a as f32
    } else {
        (2.0 * PI - a) as f32
    }
}

/// The twelve parameter values of one primitive, by id.
pub struct Params(Vec<Value>);

impl Params {
    fn get(&self, id: u16) -> ExportResult<&Value> {
        match self.0.get(id as usize) {
            Some(Value::None) | None => Err(ExportError::invalid(format!(
                "parameter {} (id {id}) is missing",
                param::NAMES.get(id as usize).unwrap_or(&"?")
            ))),
            Some(v) => Ok(v),
        }
    }

    fn int(&self, id: u16) -> ExportResult<i64> {
        match self.get(id)? {
            Value::Int(n) => Ok(i64::from(*n)),
            Value::Bool(b) => Ok(i64::from(*b)),
            v => Err(ExportError::invalid(format!(
                "parameter {} is not an integer: {v:?}",
                param::NAMES[id as usize]
            ))),
        }
    }

    fn float(&self, id: u16) -> ExportResult<f32> {
        match self.get(id)? {
            Value::Float(f) => Ok(*f),
            v => Err(ExportError::invalid(format!(
                "parameter {} is not a float: {v:?}",
                param::NAMES[id as usize]
            ))),
        }
    }
}

/// The primitive description from the plug-in's parameters, the delegate's
/// dimensions and the node TM (rows: I, J, K, translation).
pub fn describe(
    is_box: bool,
    p: &Params,
    dims: &[f32],
    node_tm: [[f32; 3]; 4],
) -> ExportResult<PrimitiveDesc> {
    let dim = |i: usize| {
        dims.get(i).copied().ok_or_else(|| {
            ExportError::invalid(format!("the delegate primitive has no parameter {i}"))
        })
    };
    let (length, height, orientation, prim_type) = if is_box {
        (
            [dim(BOX_WIDTH)?, dim(BOX_LENGTH)?],
            dim(BOX_HEIGHT)?,
            z_rot(node_tm[0]),
            ORIENTED_BOX,
        )
    } else {
        (
            [dim(CYL_RADIUS)?, 0.0],
            dim(CYL_HEIGHT)?,
            0.0,
            ORIENTED_CYLINDER,
        )
    };
    let reaction = p.int(param::REACTION)?;
    let flag = |id, bit| p.int(id).map(|v| if v != 0 { bit } else { 0 });
    let trigger = flag(param::ENTER_TRIGGER, ENTER_TRIGGER)?
        | flag(param::EXIT_TRIGGER, EXIT_TRIGGER)?
        | flag(param::OVERLAP_TRIGGER, OVERLAP_TRIGGER)?;
    let mut user = 0u64;
    for k in 0..4u16 {
        // A MAXScript integer is a 32-bit int read into a uint.
        let v = p.int(param::USER_DATA0 + k)? as i32 as u32;
        user |= u64::from(v) << (16 * k);
    }
    let f = F32::from_f32;
    Ok(PrimitiveDesc {
        version: 1,
        length: [f(length[0]), f(length[1])],
        height: f(height),
        attenuation: f(p.float(param::ABSORBTION)?),
        prim_type,
        reaction: ((reaction as i32).wrapping_sub(1)).wrapping_shl(4),
        trigger,
        obstacle: Bool(u8::from(p.int(param::OBSTACLE)? != 0)),
        occlusion_mask: p.int(param::OCCLUSION_MASK)? as i32 as u32,
        collision_mask: p.int(param::COLLISION_MASK)? as i32 as u32,
        position: Vec3 {
            x: f(node_tm[3][0]),
            y: f(node_tm[3][1]),
            z: f(node_tm[3][2]),
        },
        orientation: f(orientation),
        user_data: Some(user),
    })
}

/// The PACS primitive nodes pacs_prim_export.ms selects, in order.
pub fn primitive_nodes(ctx: &Context) -> Vec<usize> {
    select::tree_order(ctx.graph)
        .into_iter()
        .filter(|&n| select::category(ctx, n) == Some(superclass::GEOMETRY))
        .filter(|&n| {
            select::object_class(ctx, n)
                .is_some_and(|(c, _)| c == NEL_PACS_BOX || c == NEL_PACS_CYLINDER)
        })
        .collect()
}

fn node_desc(ctx: &Context, node: usize) -> ExportResult<PrimitiveDesc> {
    let obj = ctx
        .eval
        .node_object(node)
        .ok_or_else(|| ExportError::invalid("no object"))?;
    let direct = pblock::reference(ctx.graph, node, 1);
    if direct != Some(obj) {
        return Err(ExportError::refused("a modifier sits on the PACS primitive: the plug-in's GetObjectRef is not a PACS primitive"));
    }
    let class = ctx
        .graph
        .class(obj)
        .ok_or_else(|| ExportError::invalid("no class"))?;
    let is_box = class.class_id == NEL_PACS_BOX;
    let delegate = pblock::reference(ctx.graph, obj, 0)
        .ok_or_else(|| ExportError::invalid("no delegate primitive (reference 0)"))?;
    let block = pblock::reference(ctx.graph, obj, 1)
        .ok_or_else(|| ExportError::invalid("no parameter block (reference 1)"))?;
    let dims = primitive::params(ctx.eval, delegate, 0)
        .map_err(|e| ExportError::from(e).within("delegate primitive"))?;
    let dims: Vec<f32> = (0..3).map(|i| dims.float_or(i, f64::NAN) as f32).collect();
    // Every parameter is declared `animatable:false`: values are stored inline.
    let pb = pblock::param_block2(ctx.eval.chunks(block))
        .map_err(|e| ExportError::from(e).within("parameter block"))?;
    let mut values = vec![Value::None; param::COUNT as usize];
    for q in pb.params {
        if let Some(v) = values.get_mut(q.id as usize) {
            *v = q.value;
        }
    }
    let r = ctx.eval.world_tm(node, 0).rows();
    let row = |i: usize| [r[i][0] as f32, r[i][1] as f32, r[i][2] as f32];
    describe(
        is_box,
        &Params(values),
        &dims,
        [row(0), row(1), row(2), row(3)],
    )
}

/// Writes `<maxfile>.pacs_prim` when the file has PACS primitives.
pub fn export(ctx: &Context, out: &mut Exports) {
    let nodes = primitive_nodes(ctx);
    if nodes.is_empty() {
        return;
    }
    let mut primitives = Vec::new();
    let mut failed = false;
    for n in nodes {
        match node_desc(ctx, n) {
            Ok(d) => primitives.push(d),
            Err(e) => {
                failed = true;
                out.push_error(ExportKind::PacsPrim, ctx.graph.node_name(n), e);
            }
        }
    }
    let name = format!("{}.pacs_prim", ctx.stem);
    if failed {
        out.push_error(
            ExportKind::PacsPrim,
            &name,
            "not written: a primitive failed, and the plug-in then writes no block",
        );
        return;
    }
    let block = PrimitiveBlock {
        version: 0,
        primitives,
    };
    match write_nel(&NelFile::PrimitiveBlockXml(block)) {
        Ok(bytes) => out.outputs.push(Output {
            kind: ExportKind::PacsPrim,
            with_coarse_mesh: false,
            name,
            bytes,
        }),
        Err(e) => out.push_error(
            ExportKind::PacsPrim,
            &name,
            format!("cannot serialize: {e}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// export_collision.cpp getZRot: +X gives 2π (sin is not > 0), +Y π/2, −Y 3π/2.
    #[test]
    fn z_rot_quirk() {
        assert_eq!(z_rot([1.0, 0.0, 0.0]), (2.0 * PI) as f32);
        assert!((z_rot([0.0, 2.0, 0.3]) - (PI / 2.0) as f32).abs() < 1e-6);
        assert!((z_rot([0.0, -1.0, 0.0]) - (1.5 * PI) as f32).abs() < 1e-6);
    }

    fn params(reaction: i32, triggers: [bool; 3]) -> Params {
        let mut v = vec![
            Value::Int(reaction),
            Value::Bool(triggers[0]),
            Value::Bool(triggers[1]),
            Value::Bool(triggers[2]),
            Value::Int(7),
            Value::Int(1),
            Value::Bool(true),
            Value::Float(0.5),
        ];
        v.extend([1, 2, 3, 4].map(Value::Int));
        Params(v)
    }

    /// The reaction quirk: "Stop" (button 4) is (4 − 1) << 4 = 0x30.
    #[test]
    fn reaction_and_triggers() {
        let tm = [
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 2.0, 3.0],
        ];
        let d = describe(
            true,
            &params(4, [true, false, true]),
            &[10.0, 20.0, 30.0],
            tm,
        )
        .expect("ok");
        assert_eq!(d.reaction, 0x30);
        assert_eq!(d.trigger, 0x500);
        assert_eq!(d.user_data, Some(0x0004_0003_0002_0001));
        assert_eq!(
            [d.length[0].get(), d.length[1].get(), d.height.get()],
            [20.0, 10.0, 30.0]
        );
        let c = describe(false, &params(1, [false; 3]), &[5.0, 8.0, f32::NAN], tm).expect("ok");
        assert_eq!(
            (c.reaction, c.trigger, c.prim_type),
            (0, 0, ORIENTED_CYLINDER)
        );
        assert_eq!(
            [c.length[0].get(), c.length[1].get(), c.height.get()],
            [5.0, 0.0, 8.0]
        );
        assert_eq!(c.orientation.get(), 0.0);
        let mut missing = params(1, [false; 3]);
        missing.0.truncate(11);
        missing.0.resize(12, Value::None);
        assert!(describe(true, &missing, &[1.0, 1.0, 1.0], tm)
            .expect_err("missing")
            .to_string()
            .contains("UserData3"));
    }
}
