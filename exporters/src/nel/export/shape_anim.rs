//! The shape process's per-node `.anim`: shape_export.ms runs
//! `NelExportAnimation #(node) "<name>.anim" false` for every node with
//! AUTOMATIC_ANIMATION (select.rs `automatic_anim_nodes`), and the plug-in's
//! `addAnimation` (export_anim.cpp) writes, in this order:
//!
//! - the node's transform tracks (`pos`, `rotquat`, `scale`, anim.rs);
//! - with EXPORT_ANIMATED_MATERIALS, material tracks (`addMtlTracks`):
//!   sub-materials first, then, when the material's `bExportTextureMatrix`
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
//! when it has keys (`buildATrack` returns NULL otherwise). Material colour
//! and opacity tracks are not built: a keyed one refuses the file by name.

use crate::error::{ExportError, ExportResult};
use maxfs_scene::eval::core::controller::{Controller, Track};
use maxfs_scene::eval::core::keys::TICKS_PER_SECOND;
use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::render::light::SC_LIGHT;
use maxfs_scene::eval::render::material::{self as mtl, Material as MaxMaterial, NEL_MATERIAL};

use super::anim::{bezier_keys, framer, key_range, node_animation, plain, seconds, tcb_keys};
use super::shape::nel_params::NelParams;
use super::{select, Context, ExportKind, Exports, Output};
use crate::nel::anim::{Tangent, Track as NelTrack};
use crate::nel::stream::{Rgba, Vec3, F32};

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
/// Texture stages the plug-in walks (IDRV_MAT_MAXTEXTURES).
const MAX_STAGES: usize = 8;
/// Animated-light names the plug-in clears (`getAnimatedLight`).
const NOT_ANIMATED: [&str; 3] = ["Sun", "GlobalLight", "(Use NelLight Modifier)"];

pub fn export(ctx: &Context, out: &mut Exports) {
    for sel in select::automatic_anim_nodes(ctx) {
        let node = sel.node;
        let p = ctx.props.node(node);
        let prefix = if p.export_animation_prefixe_name {
            let n = if p.instance_name.is_empty() {
                ctx.graph.node_name(node).to_string()
            } else {
                p.instance_name.clone()
            };
            format!("{n}.")
        } else {
            String::new()
        };
        let (tracks, errors) = node_animation(ctx, node, &prefix, |tracks, errors| {
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
    for what in keyed_colours(ctx, m.index) {
        errors.push(format!(
            "material {:?}: the {what} track is not exported",
            m.name
        ));
    }
    for sub in m.sub_materials.iter().flatten() {
        if let Some(s) = mtl::material(ctx.eval, *sub) {
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
    m.sub_materials
        .iter()
        .flatten()
        .filter_map(|&s| mtl::material(ctx.eval, s))
        .find_map(|s| first_nel_material(ctx, &s, depth + 1))
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
/// (`(uint8)val`), TCB keys as vectors.
fn color_track(ctx: &Context, ctl: usize) -> ExportResult<Option<NelTrack>> {
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
    let v3 = |v: [f64; 3], k: f64| Vec3 {
        x: F32::from_f32((v[0] * k) as f32),
        y: F32::from_f32((v[1] * k) as f32),
        z: F32::from_f32((v[2] * k) as f32),
    };
    let per_second = TICKS_PER_SECOND as f64;
    Ok(Some(match track {
        Track::Constant { .. } => return Ok(None),
        Track::Linear { keys } => NelTrack::CTrackKeyFramerLinearRGBA(framer(
            keys.iter()
                .map(|k| {
                    let b = |x: f64| x as f32 as u8;
                    let c = Rgba {
                        r: b(k.value[0]),
                        g: b(k.value[1]),
                        b: b(k.value[2]),
                        a: 255,
                    };
                    (seconds(k.time), plain(c))
                })
                .collect(),
            r,
        )),
        Track::Bezier { keys } => NelTrack::CTrackKeyFramerBezierRGBA(framer(
            bezier_keys(keys, |v| v3(v, 1.0), |t| Tangent::Vector(v3(t, per_second))),
            r,
        )),
        Track::Tcb { keys } => {
            NelTrack::CTrackKeyFramerTCBRGBA(framer(tcb_keys(keys, |v| v3(v, 1.0)), r))
        }
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

/// The keyed colour and opacity parameters `addMtlTracks` would export of a
/// Standard material (shader block: 0 ambient, 1 diffuse, 2 specular, 8
/// self-illumination colour; extended block 1: opacity), or of the Standard
/// a scripted material (NeL Material) delegates to.
fn keyed_colours(ctx: &Context, m: usize) -> Vec<&'static str> {
    const STANDARD: (u32, u32) = (2, 0);
    let standard = if class_of(ctx, m).is_some_and(|(c, _)| c == STANDARD) {
        Some(m)
    } else {
        ctx.graph.objects.get(m).and_then(|o| {
            o.references
                .iter()
                .filter_map(|r| usize::try_from(r.target).ok())
                .find(|&t| class_of(ctx, t).is_some_and(|(c, _)| c == STANDARD))
        })
    };
    let Some(s) = standard else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut check = |block: Option<usize>, params: &[(u16, &'static str)]| {
        let Some(b) = block else { return };
        let Ok(pb) = pblock::param_block2(ctx.eval.chunks(b)) else {
            return;
        };
        for &(id, what) in params {
            let ctl = pb
                .param(id)
                .and_then(|p| p.ref_slot)
                .and_then(|slot| pblock::reference(ctx.graph, b, slot));
            if ctl.is_some_and(|c| keyed(ctx, c)) {
                out.push(what);
            }
        }
    };
    let shader =
        pblock::reference(ctx.graph, s, 2).and_then(|sh| pblock::reference(ctx.graph, sh, 0));
    check(
        shader,
        &[
            (0, "ambient"),
            (1, "diffuse"),
            (2, "specular"),
            (8, "self-illumination colour"),
        ],
    );
    check(pblock::reference(ctx.graph, s, 4), &[(1, "opacity")]);
    out
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
    match color_track(ctx, ctl) {
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
