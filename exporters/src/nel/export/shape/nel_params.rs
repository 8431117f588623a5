//! The NeL Material's parameters by name (nel_material.ms, script version
//! 14), as `getValueByNameUsingParamBlock2` reads them at time 0: the stored
//! constant, else the value at tick 0 of the controller that drives the
//! parameter (artists key flags such as bExportTextureMatrix with an On/Off
//! controller, seed S003 line 343), else the script default.

use maxfs_scene::eval::core::controller::Controller;
use maxfs_scene::eval::core::pblock::{self, ParamBlock2, Value};
use maxfs_scene::eval::render::material::Material as MaxMaterial;

use super::super::Context;

/// The On/Off controller (Max's boolean controller), class id part A.
pub const ON_OFF_A: u32 = 0x984b_8d27;
/// Its chunks: the state before the first key (u32), and one key time (s32) each.
const ON_OFF_INITIAL: u16 = 0x0140;
const ON_OFF_KEY: u16 = 0x0100;
/// Max 2017 and later wrap a controller's own chunks in this container.
const CONTROLLER_WRAPPER: u16 = 0x7127;

/// The state of an On/Off controller at tick 0: its initial state toggled by
/// every key at or before 0 (seed S003 line 343; pipeline_max scene_lib
/// `onOffControllerAt0`). None when the initial state is not stored.
pub fn on_off_at_zero(chunks: &[maxfs_scene::chunk::Chunk]) -> Option<bool> {
    let mut initial = None;
    let mut toggles = 0usize;
    let mut visit = |c: &maxfs_scene::chunk::Chunk| {
        let Some(p) = c.payload().filter(|p| p.len() == 4) else {
            return;
        };
        let w = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
        match c.id {
            ON_OFF_INITIAL => initial = Some(w != 0),
            ON_OFF_KEY if (w as i32) <= 0 => toggles += 1,
            _ => {}
        }
    };
    for c in chunks {
        if c.id == CONTROLLER_WRAPPER {
            c.children().iter().for_each(&mut visit);
        } else {
            visit(c);
        }
    }
    initial.map(|s| s ^ (toggles % 2 == 1))
}

/// A controller-driven parameter's value at tick 0: an On/Off controller's
/// state, a float controller's value; `Value::None` (the script default
/// applies) for anything else.
fn at_zero(ctx: &Context, ctl: Option<usize>) -> Value {
    let Some(ctl) = ctl else { return Value::None };
    let class = ctx.graph.class(ctl).map(|c| c.class_id.0);
    if class == Some(ON_OFF_A) {
        return on_off_at_zero(ctx.eval.chunks(ctl)).map_or(Value::None, Value::Bool);
    }
    match ctx.eval.controller(ctl) {
        Some(Controller::Float { .. }) => {
            let v = ctx.eval.float_at(Some(ctl), 0, f64::NAN);
            if v.is_finite() {
                Value::Float(v as f32)
            } else {
                Value::None
            }
        }
        _ => Value::None,
    }
}

/// The NeL Material's parameter names by block, script version 14
/// (nel_material.ms). Blocks are recognised by their parameter count, since
/// files saved by older script versions lack the first block.
const NLBP: [&str; 10] = [
    "bTwoSided",
    "cAmbient",
    "cDiffuse",
    "pOpacity",
    "cSpecular",
    "pSpecularLevel",
    "pGlossiness",
    "cSelfIllumColor",
    "pSelfIllumAmount",
    "bUseSelfIllumColor",
];
const MAIN: [&str; 37] = [
    "bLightMap",
    "bUnlighted",
    "bStainedGlassWindow",
    "bAlphaTest",
    "bForceZWrite",
    "bForceNoZWrite",
    "bWater",
    "bWaterUseSceneEnvMapAbove",
    "bWaterUseSceneEnvMapUnder",
    "fBumpUScale",
    "fBumpVScale",
    "fBumpUSpeed",
    "fBumpVSpeed",
    "fDisplaceMapUScale",
    "fDisplaceMapVScale",
    "fDisplaceMapUSpeed",
    "fDisplaceMapVSpeed",
    "fWaterHeightFactor",
    "iWaterPoolID",
    "bCalcWaterLightmap",
    "bEnableWaterSplash",
    "bColorVertex",
    "bAlphaVertex",
    "iAlphaVertexChannel",
    "bAlphaBlend",
    "iBlendSrcFunc",
    "iBlendDestFunc",
    "iShader",
    "fZBias",
    "iLightMapChannel",
    "iShaderType",
    "bUserColor",
    "bSpecular",
    "bNormalShader",
    "bPerPixelLightingShader",
    "cUserColor",
    "bExportTextureMatrix",
];
const SLOT: [&str; 19] = [
    "cConstant",
    "iRgbOperation",
    "iRgbBlendSource",
    "iRgbArg0",
    "iRgbArg1",
    "iRgbArg2",
    "iRgbArg0Operand",
    "iRgbArg1Operand",
    "iRgbArg2Operand",
    "iAlphaOperation",
    "iAlphaBlendSource",
    "iAlphaArg0",
    "iAlphaArg1",
    "iAlphaArg2",
    "iAlphaArg0Operand",
    "iAlphaArg1Operand",
    "iAlphaArg2Operand",
    "iTextureShader",
    "iConstantAlpha",
];

/// Parameter values of a NeL Material by name, with the script defaults
/// where the file does not store a value.
pub struct NelParams<'a> {
    ctx: &'a Context<'a>,
    /// (name, value, block object, reference slot).
    values: Vec<(String, Value, usize, Option<u32>)>,
}

impl<'a> NelParams<'a> {
    pub fn of(ctx: &'a Context<'a>, m: &MaxMaterial) -> NelParams<'a> {
        let mut values = Vec::new();
        let mut slot = 0;
        for b in &m.blocks {
            let pb: &ParamBlock2 = &b.block;
            let (names, suffix): (&[&str], String) = match pb.count {
                10 => (&NLBP, String::new()),
                37 => (&MAIN, String::new()),
                24 => (&[], String::new()),
                19 => {
                    slot += 1;
                    (&SLOT, format!("_{slot}"))
                }
                _ => continue,
            };
            for p in &pb.params {
                let name = if pb.count == 24 {
                    let i = p.id as usize;
                    match i / 8 {
                        0 => format!("bEnableSlot_{}", i % 8 + 1),
                        1 => format!("bTexGen_{}", i % 8 + 1),
                        _ => format!("tTexture_{}", i % 8 + 1),
                    }
                } else {
                    match names.get(p.id as usize) {
                        Some(n) => format!("{n}{suffix}"),
                        None => continue,
                    }
                };
                let value = match (&p.value, p.ref_slot) {
                    (Value::None, Some(slot)) => {
                        at_zero(ctx, pblock::reference(ctx.graph, b.object, slot))
                    }
                    (v, _) => v.clone(),
                };
                values.push((name, value, b.object, p.ref_slot));
            }
        }
        NelParams { ctx, values }
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values
            .iter()
            .find(|(n, ..)| n == name)
            .map(|(_, v, ..)| v)
    }

    pub fn int(&self, name: &str, default: i32) -> i32 {
        match self.get(name) {
            Some(Value::Int(v)) => *v,
            Some(Value::Bool(b)) => *b as i32,
            Some(Value::Float(f)) => *f as i32,
            _ => default,
        }
    }

    pub fn boolean(&self, name: &str, default: bool) -> bool {
        self.int(name, default as i32) != 0
    }

    pub fn float(&self, name: &str) -> Option<f32> {
        match self.get(name) {
            Some(Value::Float(v)) => Some(*v),
            Some(Value::Int(v)) => Some(*v as f32),
            _ => None,
        }
    }

    pub fn color(&self, name: &str) -> Option<[f32; 3]> {
        match self.get(name) {
            Some(Value::Vector(v)) => Some(*v),
            _ => None,
        }
    }

    /// A texmap parameter: the object it points at.
    pub fn texmap(&self, name: &str) -> Option<usize> {
        let (_, v, obj, slot) = self.values.iter().find(|(n, ..)| n == name)?;
        match v {
            Value::Object(i) if *i >= 0 => Some(*i as usize),
            _ => slot.and_then(|s| pblock::reference(self.ctx.graph, *obj, s)),
        }
    }
}
