//! `addMtlTracks`' colour part (export_anim.cpp): the controllers the
//! plug-in finds by name (`getControlerByName`: a material's ParamBlock2
//! parameters by internal name, then its sub-animatables depth first, the
//! first parameter of that name *with a controller* wins) become the
//! CAnimatedMaterial values `<mtl>.ambient`, `.diffuse`, `.specular`,
//! `.emissive` (from "selfIllumColor") and `.opacity`, when they have keys.
//!
//! Values are written as stored: colours in Max's 0–1 range (NeL's RGBA
//! keyframers scale by 255 when evaluated, track_keyframer.h copyToValue;
//! linear colour keys are cast to bytes, `(uint8)val`), the opacity as the
//! fraction the percentage parameter stores (NeL's range, ×255 into the
//! diffuse alpha by CAnimatedMaterial::update). The specular keys are
//! scaled by the material's specular level at the key's time
//! (`GetShinStr`): Bezier and TCB values multiplied, linear keys through
//! `CRGBA::modulateFromui` with `(uint8)(clamp(level, 0, 1) · 255)`.
//!
//! Where the parameters live: a Standard's shader (reference 2, Blinn,
//! Phong or Metal) holds a ParamBlock2 on its reference 0 with 0 ambient, 1
//! diffuse, 2 specular, 8 self-illumination colour, 9 specular level; the
//! extended block (reference 4, block 1) holds the opacity (id 1). A
//! Multi/Sub-Object's sub-animatables are its sub-materials, so the search
//! returns the first sub-material's controller of that name; a scripted
//! material's own parameters are named otherwise (NeL Material: cAmbient …),
//! so it reaches the Standard it delegates to on reference 0.

use maxfs_scene::eval::core::controller::Controller;
use maxfs_scene::eval::core::list::ListKind;
use maxfs_scene::eval::core::pblock::{self, ParamBlock2, Value};
use maxfs_scene::eval::render::material::{self as mtl, SC_MATERIAL};

use super::{add, class_of, color_track, float_track, Context};
use crate::error::{ExportError, ExportResult};
use crate::nel::anim::Track as NelTrack;

const STANDARD: (u32, u32) = (0x2, 0);
const MULTI_SUB: (u32, u32) = (0x200, 0);
const DOUBLE_SIDED: (u32, u32) = (0x210, 0);
/// Shaders whose colour block has the layout above (Max's shader classes).
const SHADERS: [(u32, u32); 3] = [(0x37, 0), (0x38, 0), (0x39, 0)];
/// Shader block: the specular level (percentage, stored as a fraction).
const SPECULAR_LEVEL: u16 = 9;
/// Material nesting the search follows at most.
const MAX_DEPTH: u32 = 8;

/// Where a named parameter lives in a Standard material.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    /// The shader's ParamBlock2, parameter id.
    Shader(u16),
    /// The extended ParamBlock2 (block 1), parameter id.
    Extended(u16),
}

/// `addMtlTracks`' values in its order: Max parameter name, CAnimatedMaterial
/// value name (animated_material.h), place.
const VALUES: [(&str, &str, Place); 5] = [
    ("ambient", "ambient", Place::Shader(0)),
    ("diffuse", "diffuse", Place::Shader(1)),
    ("specular", "specular", Place::Shader(2)),
    ("selfIllumColor", "emissive", Place::Shader(8)),
    ("opacity", "opacity", Place::Extended(1)),
];

/// The colour and opacity tracks of material `m` (object index), named
/// `<mtl_name><value>`; reasons for what cannot be exported go to `errors`.
pub(super) fn colour_tracks(
    ctx: &Context,
    m: usize,
    mtl_name: &str,
    tracks: &mut Vec<(String, NelTrack)>,
    errors: &mut Vec<String>,
) {
    for (max_name, nel_name, place) in VALUES {
        let name = format!("{mtl_name}{nel_name}");
        let ctl = match find(ctx, m, place, 0) {
            Ok(Some(f)) => f,
            Ok(None) => continue,
            Err(e) => {
                errors.push(format!("{name}: {e}"));
                continue;
            }
        };
        let track = match place {
            Place::Extended(_) => float_track(ctx, ctl.controller),
            Place::Shader(2) => {
                // desc.Material = (StdMat2*)&mtl: only a Standard answers GetShinStr.
                if class_of(ctx, m).map(|c| c.0) != Some(STANDARD) {
                    if may_be_keyed(ctx, ctl.controller) {
                        errors.push(format!(
                            "{name}: a keyed {max_name} under a material that is not a \
                             Standard (the plug-in reads the specular level through a \
                             Standard-material cast) is not exported"
                        ));
                    }
                    continue;
                }
                match specular_level(ctx, ctl.shader_block) {
                    Ok(level) => color_track(ctx, ctl.controller, Some(&level)),
                    Err(e) => {
                        if may_be_keyed(ctx, ctl.controller) {
                            errors.push(format!("{name}: {e}"));
                        }
                        continue;
                    }
                }
            }
            Place::Shader(_) => color_track(ctx, ctl.controller, None),
        };
        match track {
            Ok(Some(t)) => add(tracks, name, t),
            Ok(None) => {}
            Err(e) => errors.push(format!("{name}: {e}")),
        }
    }
}

/// Whether a controller has keys, or is one whose keys are not read (then
/// a skipped track would drop them silently).
fn may_be_keyed(ctx: &Context, ctl: usize) -> bool {
    match ctx.eval.controller(ctl) {
        Some(Controller::Float { .. } | Controller::Point3 { .. }) => super::keyed(ctx, ctl),
        _ => true,
    }
}

/// A parameter's controller and the shader block it was found in.
struct Found {
    controller: usize,
    shader_block: Option<usize>,
}

/// `getControlerByName` for one value, from material object `m`.
fn find(ctx: &Context, m: usize, place: Place, depth: u32) -> ExportResult<Option<Found>> {
    let Some((cid, sc)) = class_of(ctx, m) else {
        return Ok(None);
    };
    if sc != SC_MATERIAL || depth > MAX_DEPTH {
        return Ok(None);
    }
    match cid {
        STANDARD => standard(ctx, m, place),
        MULTI_SUB | DOUBLE_SIDED => {
            let subs = mtl::material(ctx.eval, m)
                .map(|x| super::sub_materials(&x))
                .unwrap_or_default();
            for s in subs {
                if let Some(f) = find(ctx, s, place, depth + 1)? {
                    return Ok(Some(f));
                }
            }
            Ok(None)
        }
        _ => match pblock::reference(ctx.graph, m, 0) {
            Some(d) if class_of(ctx, d).is_some_and(|c| c.0 == STANDARD) => standard(ctx, d, place),
            _ => Ok(None),
        },
    }
}

/// The controller of a Standard material's parameter, None when the
/// parameter is a constant.
fn standard(ctx: &Context, s: usize, place: Place) -> ExportResult<Option<Found>> {
    match place {
        Place::Shader(id) => {
            let Some(shader) = pblock::reference(ctx.graph, s, 2) else {
                return Ok(None);
            };
            let Some(b) = pblock::reference(ctx.graph, shader, 0) else {
                return Ok(None);
            };
            let pb = block(ctx, b, "shader block")?;
            if !class_of(ctx, shader).is_some_and(|c| SHADERS.contains(&c.0)) {
                // Another shader's block has its own layout: refuse its keys.
                let keyed = pb.params.iter().any(|p| {
                    p.ref_slot
                        .and_then(|slot| pblock::reference(ctx.graph, b, slot))
                        .is_some_and(|c| may_be_keyed(ctx, c))
                });
                let class = ctx.graph.class_name(shader);
                return if keyed {
                    Err(ExportError::refused(format!(
                        "shader {class:?}: its keyed parameters are not exported \
                         (parameter layout not known)"
                    )))
                } else {
                    Ok(None)
                };
            }
            Ok(controller(ctx, b, &pb, id).map(|c| Found {
                controller: c,
                shader_block: Some(b),
            }))
        }
        Place::Extended(id) => {
            let Some(b) = pblock::reference(ctx.graph, s, 4) else {
                return Ok(None);
            };
            let pb = block(ctx, b, "extended block")?;
            if pb.block_id != 1 {
                return Err(ExportError::refused(format!(
                    "reference 4 holds block {}, not the extended block",
                    pb.block_id
                )));
            }
            Ok(controller(ctx, b, &pb, id).map(|c| Found {
                controller: c,
                shader_block: None,
            }))
        }
    }
}

fn block(ctx: &Context, b: usize, what: &str) -> ExportResult<ParamBlock2> {
    pblock::param_block2(ctx.eval.chunks(b))
        .map_err(|e| ExportError::from(e).within(format!("{what} (object {b})")))
}

fn controller(ctx: &Context, b: usize, pb: &ParamBlock2, id: u16) -> Option<usize> {
    pb.param(id)
        .and_then(|p| p.ref_slot)
        .and_then(|slot| pblock::reference(ctx.graph, b, slot))
}

/// `GetShinStr(t)`: the shader block's specular level, constant or
/// evaluated from its float controller.
fn specular_level<'a>(
    ctx: &'a Context,
    shader_block: Option<usize>,
) -> ExportResult<Box<dyn Fn(i32) -> f32 + 'a>> {
    let Some(b) = shader_block else {
        return Err(ExportError::refused("specular level not found"));
    };
    let pb = block(ctx, b, "shader block")?;
    let Some(p) = pb.param(SPECULAR_LEVEL) else {
        return Err(ExportError::refused(
            "the shader block has no specular level",
        ));
    };
    let constant = match p.value {
        Value::Float(v) => Some(v),
        _ => None,
    };
    let ctl = controller(ctx, b, &pb, SPECULAR_LEVEL);
    match (constant, ctl) {
        (_, Some(c)) => match ctx.eval.controller(c) {
            Some(Controller::Float { .. })
            | Some(Controller::List {
                kind: ListKind::Float,
                ..
            }) => Ok(Box::new(move |t| ctx.eval.float_at(Some(c), t, 0.0) as f32)),
            Some(Controller::Unsupported { class }) => Err(ExportError::refused(format!(
                "the specular level's controller {class} is not evaluated"
            ))),
            _ => Err(ExportError::refused(
                "the specular level's controller is not a float controller",
            )),
        },
        (Some(v), None) => Ok(Box::new(move |_| v)),
        (None, None) => Err(ExportError::refused("the specular level is not decoded")),
    }
}
