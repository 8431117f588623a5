//! `CFlareShape` for `nel_flare` nodes: what `CExportNel::buildFlare`
//! (nel_mesh_lib/export_flare.cpp) writes, from the scripted plug-in's
//! parameter block (scripts/startup/nel_flare.ms). The script declares its
//! 57 parameters without `id:` tags, so a parameter's id is its declaration
//! index (seed S003 line 491, pinned there on seven corpus flares); a value
//! the block does not store takes the script's declared default.
//!
//! Colours are converted as the plug-in does, `(uint)(255.f * c)`: plain
//! truncation, not the rounding of the material colours. Written as stream
//! version 5, the current `CFlareShape::serial`.

use thiserror::Error;

use super::super::Context;
use crate::nel::shape::flare::{
    Dazzle, Flare, FlareOcclusion, FlareShape, ViewDist, MAX_FLARE_NUM,
};
use crate::nel::shape::material::{Texture, TextureBase, TextureFile};
use crate::nel::shape::Shape;
use crate::nel::stream::{Bool, Ptr, Rgba, F32};
use maxfs_scene::eval::core::pblock::{self, ParamBlock2, Value};
use maxfs_scene::eval::render::material as mtl;

/// Current `CFlareShape` stream version.
const FLARE_SHAPE_VERSION: u32 = 5;

/// nel_flare.ms parameters in declaration order (= parameter ids).
pub const FLARE_PARAMS: [&str; 57] = [
    "texFileName0",
    "texFileName1",
    "texFileName2",
    "texFileName3",
    "texFileName4",
    "texFileName5",
    "texFileName6",
    "texFileName7",
    "texFileName8",
    "texFileName9",
    "flareUsed0",
    "flareUsed1",
    "flareUsed2",
    "flareUsed3",
    "flareUsed4",
    "flareUsed5",
    "flareUsed6",
    "flareUsed7",
    "flareUsed8",
    "flareUsed9",
    "size0",
    "size1",
    "size2",
    "size3",
    "size4",
    "size5",
    "size6",
    "size7",
    "size8",
    "size9",
    "pos0",
    "pos1",
    "pos2",
    "pos3",
    "pos4",
    "pos5",
    "pos6",
    "pos7",
    "pos8",
    "pos9",
    "ColorParam",
    "PersistenceParam",
    "Spacing",
    "AttenuationRange",
    "Attenuable",
    "FirstFlareKeepSize",
    "HasDazzle",
    "DazzleColor",
    "DazzleAttenuationRange",
    "MaxViewDist",
    "MaxViewDistRatio",
    "occlusionTestMesh",
    "occlusionTestMeshInheritScaleRot",
    "sizeDisappear",
    "angleDisappear",
    "scaleWhenDisappear",
    "lookAtMode",
];

/// Why a flare node is not exported.
#[derive(Debug, Error, PartialEq)]
pub enum FlareError {
    #[error("NeL flare: the object has no nel_flare parameter block (57 parameters)")]
    NoBlock,
    #[error("NeL flare: parameter block: {0}")]
    Block(maxfs_scene::eval::EvalError),
    #[error("NeL flare: parameter {0} is animated or of an undecoded type (type {1:#x})")]
    NotConstant(&'static str, u16),
    #[error("NeL flare: parameter {0} holds {1}, expected {2}")]
    WrongType(&'static str, String, &'static str),
}

/// A value as the script declares it (the default when the block does not
/// store the parameter).
#[derive(Debug, Clone, PartialEq)]
pub enum FlareValue {
    Float(f32),
    Bool(bool),
    Color([f32; 3]),
    Str(String),
}

/// pos0..pos9 defaults as the script writes them.
const POS_DEFAULTS: [f32; 10] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

/// nel_flare.ms's declared defaults, by id.
fn default_of(id: usize) -> FlareValue {
    use FlareValue as V;
    match id {
        0..=9 => V::Str(".tga".into()),
        10 => V::Bool(true),
        11..=19 => V::Bool(false),
        20..=29 => V::Float(1.0),
        30..=39 => V::Float(POS_DEFAULTS[id - 30]),
        40 | 47 => V::Color([1.0; 3]),
        41..=43 => V::Float(1.0),
        48 => V::Float(0.5),
        49 => V::Float(1000.0),
        50 => V::Float(0.9),
        51 => V::Str(String::new()),
        53 | 54 => V::Float(0.0),
        56 => V::Bool(true),
        // 44 Attenuable, 45 FirstFlareKeepSize, 46 HasDazzle, 52, 55.
        _ => V::Bool(false),
    }
}

/// The flare parameters by id, defaults filled in.
#[derive(Debug, Clone)]
pub struct FlareParams(pub Vec<FlareValue>);

impl FlareParams {
    /// Every parameter at its script default.
    pub fn defaults() -> FlareParams {
        FlareParams((0..FLARE_PARAMS.len()).map(default_of).collect())
    }

    /// The stored block's values over the defaults, checking each type
    /// against the declaration.
    pub fn from_block(pb: &ParamBlock2) -> Result<FlareParams, FlareError> {
        let mut p = FlareParams::defaults();
        for param in &pb.params {
            let id = param.id as usize;
            let (Some(&name), Some(slot)) = (FLARE_PARAMS.get(id), p.0.get_mut(id)) else {
                continue;
            };
            let got = match (&*slot, &param.value) {
                (_, Value::None) => return Err(FlareError::NotConstant(name, param.ty)),
                (FlareValue::Float(_), Value::Float(f)) => FlareValue::Float(*f),
                (FlareValue::Float(_), Value::Int(i)) => FlareValue::Float(*i as f32),
                (FlareValue::Bool(_), Value::Bool(b)) => FlareValue::Bool(*b),
                (FlareValue::Bool(_), Value::Int(i)) => FlareValue::Bool(*i != 0),
                (FlareValue::Color(_), Value::Vector(v)) => FlareValue::Color(*v),
                (FlareValue::Str(_), Value::String(s)) => FlareValue::Str(s.clone()),
                (want, other) => {
                    let w = match want {
                        FlareValue::Float(_) => "a float",
                        FlareValue::Bool(_) => "a boolean",
                        FlareValue::Color(_) => "a colour",
                        FlareValue::Str(_) => "a string",
                    };
                    return Err(FlareError::WrongType(name, format!("{other:?}"), w));
                }
            };
            *slot = got;
        }
        Ok(p)
    }

    fn get(&self, name: &str) -> &FlareValue {
        let id = FLARE_PARAMS.iter().position(|n| *n == name);
        // Every caller names a declared parameter.
        &self.0[id.unwrap_or(0)]
    }
    fn float(&self, name: &str) -> f32 {
        match self.get(name) {
            FlareValue::Float(f) => *f,
            _ => 0.0,
        }
    }
    fn boolean(&self, name: &str) -> bool {
        matches!(self.get(name), FlareValue::Bool(true))
    }
    fn color(&self, name: &str) -> [f32; 3] {
        match self.get(name) {
            FlareValue::Color(c) => *c,
            _ => [0.0; 3],
        }
    }
    fn string(&self, name: &str) -> &str {
        match self.get(name) {
            FlareValue::Str(s) => s,
            _ => "",
        }
    }
}

/// `(uint)(255.f * c)` per channel into a `CRGBA` (alpha 255): truncation
/// in f32, then the low byte as the `uint8` constructor keeps it.
pub fn flare_color(c: [f32; 3]) -> Rgba {
    let b = |x: f32| (255.0f32 * x) as u32 as u8;
    Rgba {
        r: b(c[0]),
        g: b(c[1]),
        b: b(c[2]),
        a: 255,
    }
}

/// `new CTextureFile(name)`: the ITexture defaults, degradation allowed.
fn texture_file(name: &str) -> Texture {
    Texture::CTextureFile(TextureFile {
        version: 1,
        base: TextureBase::new_texture(),
        file_name: name.to_string(),
        allow_degradation: Some(Bool(1)),
    })
}

/// `buildFlare` from the parameters and the node's LOD_DIST_MAX.
pub fn flare_shape(p: &FlareParams, dist_max: f32) -> FlareShape {
    let f = F32::from_f32;
    let attenuable = p.boolean("Attenuable");
    let dazzle = p.boolean("HasDazzle");
    let mut next_id = 2;
    let flares = (0..MAX_FLARE_NUM)
        .map(|k| {
            let texture = if p.boolean(&format!("flareUsed{k}")) {
                let name = mtl::file_base(p.string(&format!("texFileName{k}")));
                let id = next_id;
                next_id += 1;
                Ptr::Obj {
                    id,
                    obj: Box::new(texture_file(name)),
                }
            } else {
                Ptr::Null
            };
            Flare {
                texture,
                size: f(p.float(&format!("size{k}"))),
                pos: f(p.float(&format!("pos{k}"))),
            }
        })
        .collect();
    FlareShape {
        version: FLARE_SHAPE_VERSION,
        color: flare_color(p.color("ColorParam")),
        persistence: f(p.float("PersistenceParam")),
        spacing: f(p.float("Spacing")),
        attenuable: Bool(attenuable as u8),
        attenuation_range: attenuable.then(|| f(p.float("AttenuationRange"))),
        first_flare_keep_size: Bool(p.boolean("FirstFlareKeepSize") as u8),
        flares,
        // The plug-in never sets the infinite-distance flag: view distances
        // are always written.
        infinite_dist: Bool(0),
        view_dist: Some(ViewDist {
            max_view_dist: f(p.float("MaxViewDist")),
            max_view_dist_ratio: f(p.float("MaxViewDistRatio")),
        }),
        dazzle_enabled: Bool(dazzle as u8),
        dazzle: dazzle.then(|| Dazzle {
            color: flare_color(p.color("DazzleColor")),
            attenuation_range: f(p.float("DazzleAttenuationRange")),
        }),
        infinite_dist_again: Bool(0),
        dist_max: Some(f(dist_max)),
        occlusion: Some(FlareOcclusion {
            occlusion_test_mesh_name: mtl::file_base(p.string("occlusionTestMesh")).to_string(),
            scale_when_disappear: Bool(p.boolean("scaleWhenDisappear") as u8),
            size_disappear: f(p.float("sizeDisappear")),
            angle_disappear: f(p.float("angleDisappear")),
            occlusion_test_mesh_inherit_scale_rot: Bool(
                p.boolean("occlusionTestMeshInheritScaleRot") as u8,
            ),
            look_at_mode: Bool(p.boolean("lookAtMode") as u8),
        }),
    }
}

/// The nel_flare parameter block of object `obj`: the ParamBlock2 it
/// references that has the script's 57 parameters.
pub fn flare_params(ctx: &Context, obj: usize) -> Result<FlareParams, FlareError> {
    let o = ctx.graph.objects.get(obj).ok_or(FlareError::NoBlock)?;
    for r in &o.references {
        let Ok(t) = usize::try_from(r.target) else {
            continue;
        };
        let is_pb2 = ctx
            .graph
            .objects
            .get(t)
            .and_then(|x| x.class.as_ref())
            .is_some_and(|c| c.super_class == pblock::SC_PARAM_BLOCK2);
        if !is_pb2 {
            continue;
        }
        let pb = pblock::param_block2(ctx.eval.chunks(t)).map_err(FlareError::Block)?;
        if pb.count as usize == FLARE_PARAMS.len() {
            return FlareParams::from_block(&pb);
        }
    }
    Err(FlareError::NoBlock)
}

/// `buildFlare` for a node whose object is a nel_flare.
pub fn build(ctx: &Context, node: usize, obj: usize) -> Result<Shape, FlareError> {
    let p = flare_params(ctx, obj)?;
    Ok(Shape::CFlareShape(flare_shape(
        &p,
        ctx.props.node(node).lod_dist_max,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_truncates() {
        // 0.999 · 255 = 254.7: the plug-in keeps 254 where rounding gives 255.
        let c = flare_color([0.999, 0.5, 1.0]);
        assert_eq!((c.r, c.g, c.b, c.a), (254, 127, 255, 255));
    }

    #[test]
    fn defaults_follow_the_script() {
        let s = flare_shape(&FlareParams::defaults(), 1000.0);
        assert_eq!(s.version, 5);
        assert!(
            s.flares[0].texture.get().is_some(),
            "flareUsed0 defaults on"
        );
        assert!(s.flares[1..].iter().all(|f| f.texture.get().is_none()));
        assert_eq!(s.flares[3].pos.get(), 0.3f32);
        assert!(s.attenuation_range.is_none() && s.dazzle.is_none());
        assert_eq!(s.occlusion.as_ref().map(|o| o.look_at_mode.0), Some(1));
    }
}
