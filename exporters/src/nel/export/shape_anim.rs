//! The shape process's per-node `.anim`: shape_export.ms runs
//! `NelExportAnimation #(node) "<name>.anim" false` for every node with
//! AUTOMATIC_ANIMATION (select.rs `automatic_anim_nodes`), and the plug-in's
//! `addAnimation` (export_anim.cpp) writes, in this order:
//!
//! - the node's transform tracks (`pos`, `rotquat`, `scale`, and a Target
//!   camera's `roll` and `target`, anim.rs);
//! - a Free or Target camera's FOV controller as `fov` (`addObjTracks`);
//! - with EXPORT_ANIMATED_MATERIALS, material tracks (`addMtlTracks`): the
//!   material's keyed colours and opacity (anim_mtl.rs), sub-materials
//!   next, then, when the material's `bExportTextureMatrix`
//!   is on at t = 0, per enabled stage the texmap's StdUVGen controllers
//!   "U Offset", "V Offset", "U Tiling", "V Tiling", "W Angle" as
//!   `<mtl>.UTrans<k>`, `.VTrans<k>`, `.UScale<k>`, `.VScale<k>`, `.WRot<k>`
//!   (CAnimatedMaterial names; seed S003 lines 336-343). A Multi/Sub-Object
//!   reads those flags through its first NeL sub-material (S:342);
//! - for a light with LM_ANIMATED, `LightmapController.<animated light>`
//!   from its colour controller (`addLightTracks`);
//! - for a Morpher, `<target>MorphFactor` per channel with a target node
//!   (`addMorphTracks`);
//! - its descendants' transform tracks as bone tracks.
//!
//! Track names carry no node prefix (scene = false) unless
//! EXPORT_ANIMATION_PREFIXE_NAME is set. A controller only becomes a track
//! when it has keys (`buildATrack` returns NULL otherwise).

use crate::error::{ExportError, ExportResult};
use maxfs_scene::eval::core::controller::{Controller, Track};
use maxfs_scene::eval::core::keys::TICKS_PER_SECOND;
use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::render::camera::SC_CAMERA;
use maxfs_scene::eval::render::light::SC_LIGHT;
use maxfs_scene::eval::render::material::{self as mtl, Material as MaxMaterial, NEL_MATERIAL};

use super::anim::{
    animation_prefix, bezier_keys, framer, key_range, node_animation, plain, seconds, tcb_keys,
};
use super::shape::nel_params::NelParams;
use super::{select, Context, ExportKind, Exports, Output};
use crate::nel::anim::{Tangent, Track as NelTrack};
use crate::nel::stream::{Rgba, Vec3, F32};

#[path = "anim_mtl.rs"]
mod mtl_values;

/// Superclass of UV generators (StdUVGen).
const SC_UVGEN: u32 = 0xc20;
/// StdUVGen old-ParamBlock indices and the CAnimatedMaterial value names.
const UV_COORDS: [(i32, &str); 5] = [
    (0, "UTrans"),
    (1, "VTrans"),
    (2, "UScale"),
    (3, "VScale"),
    (6, "WRot"),
];
/// Free (0x1001) and Target (0x1002) cameras.
const CAMERAS: [(u32, u32); 2] = [(0x1001, 0), (0x1002, 0)];
/// Texture stages the plug-in walks (IDRV_MAT_MAXTEXTURES).
const MAX_STAGES: usize = 8;
/// Animated-light names the plug-in clears (`getAnimatedLight`).
const NOT_ANIMATED: [&str; 3] = ["Sun", "GlobalLight", "(Use NelLight Modifier)"];

pub fn export(ctx: &Context, out: &mut Exports) {
    for sel in select::automatic_anim_nodes(ctx) {
        let node = sel.node;
        let p = ctx.props.node(node);
        let prefix = animation_prefix(ctx, node);
        let (tracks, errors) = node_animation(ctx, node, &prefix, |tracks, errors| {
            obj_tracks(ctx, node, &prefix, tracks, errors);
            if p.export_animated_materials {
                material_tracks(ctx, node, &prefix, tracks, errors);
            }
            light_tracks(ctx, node, tracks, errors);
            morph_tracks(ctx, node, &prefix, tracks, errors);
        });
        let name = ctx.graph.node_name(node).to_string();
        if !errors.is_empty() {
            out.push_error(ExportKind::ShapeAnim, &name, errors.join("; "));
            continue;
        }
        match super::anim::animation_bytes(tracks) {
            Ok(bytes) => out.outputs.push(Output {
                kind: ExportKind::ShapeAnim,
                with_coarse_mesh: false,
                name: sel.name,
                bytes,
            }),
            Err(e) => out.push_error(ExportKind::ShapeAnim, &name, e),
        }
    }
}

/// Adds `track` under `name` unless a track of that name exists (the
/// plug-in's `getTrackByName` check).
fn add(tracks: &mut Vec<(String, NelTrack)>, name: String, track: NelTrack) {
    if !tracks.iter().any(|(n, _)| *n == name) {
        tracks.push((name, track));
    }
}

fn class_of(ctx: &Context, obj: usize) -> Option<((u32, u32), u32)> {
    let c = ctx.graph.objects.get(obj)?.class.as_ref()?;
    Some(((c.class_id.0, c.class_id.1), c.super_class))
}

/// `addObjTracks`: the object's "FOV" controller as `fov`, values as stored
/// (radians, what CCamera's fov holds). Free and Target cameras keep it on
/// their old ParamBlock (reference 0) as parameter 0, the parameter Max
/// names "FOV"; another camera class (the Physical Camera keeps ParamBlock2s)
/// with a keyed parameter is refused by name.
fn obj_tracks(
    ctx: &Context,
    node: usize,
    prefix: &str,
    tracks: &mut Vec<(String, NelTrack)>,
    errors: &mut Vec<String>,
) {
    let Some(obj) = ctx.eval.node_object(node) else {
        return;
    };
    let Some((cid, sc)) = class_of(ctx, obj) else {
        return;
    };
    if sc != SC_CAMERA {
        return;
    }
    let name = format!("{prefix}fov");
    if !CAMERAS.contains(&cid) {
        let keyed_param = ctx
            .graph
            .objects
            .get(obj)
            .map(|o| o.references.as_slice())
            .unwrap_or(&[])
            .iter()
            .filter_map(|r| usize::try_from(r.target).ok())
            .filter(|&b| class_of(ctx, b).is_some_and(|(_, sc)| sc == pblock::SC_PARAM_BLOCK2))
            .any(|b| {
                pblock::param_block2(ctx.eval.chunks(b)).is_ok_and(|p| {
                    p.params.iter().any(|q| {
                        q.ref_slot
                            .and_then(|s| pblock::reference(ctx.graph, b, s))
                            .is_some_and(|c| keyed(ctx, c))
                    })
                })
            });
        if keyed_param {
            let class = ctx.graph.class_name(obj);
            errors.push(format!(
                "{name}: camera class {class:?} has keyed parameters; its field of view \
                 is not looked up"
            ));
        }
        return;
    }
    let Some(pb) = pblock::reference(ctx.graph, obj, 0) else {
        return;
    };
    let slot = match pblock::param_block(ctx.eval.chunks(pb)) {
        Ok(ps) => ps
            .into_iter()
            .find(|q| q.index == 0)
            .and_then(|q| q.ref_slot),
        Err(e) => {
            errors.push(format!("{name}: camera parameters: {e}"));
            return;
        }
    };
    let Some(ctl) = slot.and_then(|s| pblock::reference(ctx.graph, pb, s)) else {
        return;
    };
    match float_track(ctx, ctl) {
        Ok(Some(t)) => add(tracks, name, t),
        Ok(None) => {}
        Err(e) => errors.push(format!("{name}: {e}")),
    }
}

fn material_tracks(
    ctx: &Context,
    node: usize,
    prefix: &str,
    tracks: &mut Vec<(String, NelTrack)>,
    errors: &mut Vec<String>,
) {
    let top = mtl::node_material(ctx.graph, node).and_then(|i| mtl::material(ctx.eval, i));
    if let Some(top) = top {
        add_mtl_tracks(ctx, &top, prefix, tracks, errors, 0);
    }
}

fn add_mtl_tracks(
    ctx: &Context,
    m: &MaxMaterial,
    prefix: &str,
    tracks: &mut Vec<(String, NelTrack)>,
    errors: &mut Vec<String>,
    depth: u32,
) {
    if depth > 8 {
        return;
    }
    let mtl_name = format!("{prefix}{}.", m.name);
    mtl_values::colour_tracks(ctx, m.index, &mtl_name, tracks, errors);
    for sub in sub_materials(m) {
        if let Some(s) = mtl::material(ctx.eval, sub) {
            add_mtl_tracks(ctx, &s, prefix, tracks, errors, depth + 1);
        }
    }
    let Some(nel) = first_nel_material(ctx, m, 0) else {
        return;
    };
    let p = NelParams::of(ctx, &nel);
    if !p.boolean("bExportTextureMatrix", false) {
        return;
    }
    for stage in 0..MAX_STAGES {
        if !p.boolean(&format!("bEnableSlot_{}", stage + 1), false) {
            continue;
        }
        if let Some(tex) = p.texmap(&format!("tTexture_{}", stage + 1)) {
            tex_tracks(ctx, tex, stage, &mtl_name, tracks, errors);
        }
    }
}

/// The material itself when it is a NeL Material, else the first NeL
/// sub-material of a Multi/Sub-Object, depth first.
fn first_nel_material(ctx: &Context, m: &MaxMaterial, depth: u32) -> Option<MaxMaterial> {
    if (m.class_id[0], m.class_id[1]) == NEL_MATERIAL {
        return Some(m.clone());
    }
    if depth > 8 {
        return None;
    }
    sub_materials(m)
        .into_iter()
        .filter_map(|s| mtl::material(ctx.eval, s))
        .find_map(|s| first_nel_material(ctx, &s, depth + 1))
}

/// What Max's `GetSubMtl` enumerates: a Multi/Sub-Object's slots, a Double
/// Sided's facing then back material.
fn sub_materials(m: &MaxMaterial) -> Vec<usize> {
    match &m.double_sided {
        Some(ds) => [ds.facing, ds.back].into_iter().flatten().collect(),
        None => m.sub_materials.iter().flatten().copied().collect(),
    }
}

/// The UV generator under a texmap (a Bitmap's reference 0, a NeL Multi
/// Bitmap's delegate's): the first superclass-0xc20 object within three
/// references.
fn find_uvgen(ctx: &Context, obj: usize, depth: u32) -> Option<usize> {
    if class_of(ctx, obj).is_some_and(|(_, sc)| sc == SC_UVGEN) {
        return Some(obj);
    }
    if depth == 0 {
        return None;
    }
    ctx.graph
        .objects
        .get(obj)?
        .references
        .iter()
        .filter_map(|r| usize::try_from(r.target).ok())
        .find_map(|t| find_uvgen(ctx, t, depth - 1))
}

/// `addTexTracks`: the StdUVGen coordinate controllers with keys.
fn tex_tracks(
    ctx: &Context,
    texmap: usize,
    stage: usize,
    mtl_name: &str,
    tracks: &mut Vec<(String, NelTrack)>,
    errors: &mut Vec<String>,
) {
    let Some(uvgen) = find_uvgen(ctx, texmap, 3) else {
        return;
    };
    let Some(pb) = pblock::reference(ctx.graph, uvgen, 0) else {
        return;
    };
    let params = match pblock::param_block(ctx.eval.chunks(pb)) {
        Ok(p) => p,
        Err(e) => {
            errors.push(format!("texture placement of stage {stage}: {e}"));
            return;
        }
    };
    for (index, value_name) in UV_COORDS {
        let Some(slot) = params
            .iter()
            .find(|q| q.index == index)
            .and_then(|q| q.ref_slot)
        else {
            continue;
        };
        let Some(ctl) = pblock::reference(ctx.graph, pb, slot) else {
            continue;
        };
        let name = format!("{mtl_name}{value_name}{stage}");
        match float_track(ctx, ctl) {
            Ok(Some(t)) => add(tracks, name, t),
            Ok(None) => {}
            Err(e) => errors.push(format!("{name}: {e}")),
        }
    }
}

/// `buildATrack(typeFloat)`: Linear, Bezier and TCB float keyframers with
/// keys; values and Bezier tangents as stored (export_anim.cpp buildNelKey).
pub fn float_track(ctx: &Context, ctl: usize) -> ExportResult<Option<NelTrack>> {
    let (track, range) = match ctx.eval.controller(ctl) {
        Some(Controller::Float { track, range, .. }) => (track, *range),
        Some(Controller::Unsupported { class }) => {
            return Err(ExportError::refused(format!(
                "controller {class} is not exported"
            )))
        }
        Some(_) => return Err(ExportError::refused("not a float controller")),
        None => return Ok(None),
    };
    let Some(r) = key_range(&track.key_times(), range) else {
        return Ok(None);
    };
    let f = |v: [f64; 1]| F32::from_f32(v[0] as f32);
    Ok(Some(match track {
        Track::Constant { .. } => return Ok(None),
        Track::Linear { keys } => NelTrack::CTrackKeyFramerLinearFloat(framer(
            keys.iter()
                .map(|k| (seconds(k.time), plain(f(k.value))))
                .collect(),
            r,
        )),
        Track::Bezier { keys } => NelTrack::CTrackKeyFramerBezierFloat(framer(
            bezier_keys(keys, f, |t| Tangent::Float(f(t))),
            r,
        )),
        Track::Tcb { keys } => NelTrack::CTrackKeyFramerTCBFloat(framer(tcb_keys(keys, f), r)),
    }))
}

/// `buildATrack(typeColor)` of a Point3 / Color keyframer: Bezier keys as
/// vectors with tangents per second (×4800), linear keys cast to bytes
/// (`(uint8)val`), TCB keys as vectors. With `specular` (the material's
/// specular level at a tick, `desc.Specular`), Bezier and TCB values are
/// multiplied by it (tangents not) and linear keys modulated by
/// `(uint8)(clamp(level, 0, 1) · 255)` (`CRGBA::modulateFromui`, alpha too).
fn color_track(
    ctx: &Context,
    ctl: usize,
    specular: Option<&dyn Fn(i32) -> f32>,
) -> ExportResult<Option<NelTrack>> {
    let (track, range) = match ctx.eval.controller(ctl) {
        Some(Controller::Point3 { track, range, .. }) => (track, *range),
        Some(Controller::Unsupported { class }) => {
            return Err(ExportError::refused(format!(
                "controller {class} is not exported"
            )))
        }
        Some(_) => return Err(ExportError::refused("not a colour controller")),
        None => return Ok(None),
    };
    let Some(r) = key_range(&track.key_times(), range) else {
        return Ok(None);
    };
    // The float product buildNelKey computes: value (f32) × level (f32).
    let scale = |t: i32| specular.map_or(1.0f32, |s| s(t));
    let v3 = |v: [f64; 3], k: f32| Vec3 {
        x: F32::from_f32(v[0] as f32 * k),
        y: F32::from_f32(v[1] as f32 * k),
        z: F32::from_f32(v[2] as f32 * k),
    };
    let per_second = TICKS_PER_SECOND as f32;
    Ok(Some(match track {
        Track::Constant { .. } => return Ok(None),
        Track::Linear { keys } => NelTrack::CTrackKeyFramerLinearRGBA(framer(
            keys.iter()
                .map(|k| {
                    let b = |x: f64| x as f32 as u8;
                    let mut c = Rgba {
                        r: b(k.value[0]),
                        g: b(k.value[1]),
                        b: b(k.value[2]),
                        a: 255,
                    };
                    if let Some(s) = specular {
                        let a = (s(k.time).clamp(0.0, 1.0) * 255.0) as u8 as u32;
                        let m = |x: u8| ((x as u32 * a) >> 8) as u8;
                        c = Rgba {
                            r: m(c.r),
                            g: m(c.g),
                            b: m(c.b),
                            a: m(c.a),
                        };
                    }
                    (seconds(k.time), plain(c))
                })
                .collect(),
            r,
        )),
        Track::Bezier { keys } => NelTrack::CTrackKeyFramerBezierRGBA(framer(
            keys.iter()
                .flat_map(|k| {
                    let s = scale(k.time);
                    bezier_keys(
                        std::slice::from_ref(k),
                        |v| v3(v, s),
                        |t| Tangent::Vector(v3(t, per_second)),
                    )
                })
                .collect(),
            r,
        )),
        Track::Tcb { keys } => NelTrack::CTrackKeyFramerTCBRGBA(framer(
            keys.iter()
                .flat_map(|k| {
                    let s = scale(k.time);
                    tcb_keys(std::slice::from_ref(k), |v| v3(v, s))
                })
                .collect(),
            r,
        )),
    }))
}

/// Whether controller `ctl` has keys.
fn keyed(ctx: &Context, ctl: usize) -> bool {
    match ctx.eval.controller(ctl) {
        Some(Controller::Float { track, .. }) => !track.key_times().is_empty(),
        Some(Controller::Point3 { track, .. }) => !track.key_times().is_empty(),
        _ => false,
    }
}

/// `addLightTracks`: a light with LM_ANIMATED gets its colour controller as
/// `LightmapController.<animated light name>`.
fn light_tracks(
    ctx: &Context,
    node: usize,
    tracks: &mut Vec<(String, NelTrack)>,
    errors: &mut Vec<String>,
) {
    let p = ctx.props.node(node);
    let Some(obj) = ctx.eval.node_object(node) else {
        return;
    };
    let is_light = class_of(ctx, obj).is_some_and(|(_, sc)| sc == SC_LIGHT);
    if !is_light || !p.lm_animated {
        return;
    }
    let light = if NOT_ANIMATED.contains(&p.lm_animated_light.as_str()) {
        ""
    } else {
        p.lm_animated_light.as_str()
    };
    let name = format!("LightmapController.{light}");
    // The standard lights' colour: old ParamBlock (reference 0) index 0.
    let Some(pb) = pblock::reference(ctx.graph, obj, 0) else {
        return;
    };
    let slot = pblock::param_block(ctx.eval.chunks(pb))
        .ok()
        .and_then(|ps| ps.into_iter().find(|q| q.index == 0))
        .and_then(|q| q.ref_slot);
    let Some(ctl) = slot.and_then(|s| pblock::reference(ctx.graph, pb, s)) else {
        return;
    };
    match color_track(ctx, ctl, None) {
        Ok(Some(t)) => add(tracks, name, t),
        Ok(None) => {}
        Err(e) => errors.push(format!("{name}: {e}")),
    }
}

/// `addMorphTracks` (anim_morph.rs), shared with the scene `.anim`.
fn morph_tracks(
    ctx: &Context,
    node: usize,
    prefix: &str,
    tracks: &mut Vec<(String, NelTrack)>,
    errors: &mut Vec<String>,
) {
    let (found, failed) = super::anim::morph::tracks(ctx, node, prefix);
    for (name, t) in found {
        add(tracks, name, t);
    }
    errors.extend(failed);
}
