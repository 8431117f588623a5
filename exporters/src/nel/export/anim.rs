//! `.anim`: the `CAnimation` NelExportAnimation writes (nel_export_export.cpp
//! exportAnim, export_anim.cpp addAnimation / addNodeTracks / buildATrack).
//!
//! Node transform tracks ("scale", "rotquat", "pos", added in that order, and
//! for a Target camera "roll" and "target"; material, light, morph, particle
//! and note tracks are not exported). Keyframe
//! controllers become the matching `CTrackKeyFramer*` with the exporter's key
//! conversions: linear rotations negate w, TCB rotations negate the angle,
//! Bezier position tangents ×4800, times in seconds (ticks / 4800).
//!
//! The plug-in writes nothing for Euler XYZ, Position XYZ and Scale XYZ
//! ("may be supported in future"), which is what current Max creates by
//! default; rather than drop those channels, they are sampled once per frame
//! at the file's frame rate (and at every sub-controller key) into linear
//! keyframers, so the values match Max at every sample.
//!
//! Selection: anim_export.ms (`$Bip01` and EXPORT_NODE_ANIMATION nodes, tracks
//! of each node and, as bone tracks `<child>.<channel>`, of its descendants).
//! A file that selects nothing exports, in tree order, every node with an
//! animated transform under the scene-animation names `<node>.<channel>`.

use crate::error::{ExportError, ExportResult};
use maxfs_scene::eval::core::controller::{Controller, RotTrack, Track};
use maxfs_scene::eval::core::keys::{BezKey, TcbKey, TANGENT_STEP, TICKS_PER_SECOND};
use maxfs_scene::eval::render::camera::SC_CAMERA;
use maxfs_scene::eval::{Quat, Vec3};
use maxfs_scene::settings::{self, TimeConfig};

use super::skel::{checked_bytes, f32v, nel_quat, nel_vec, unsupported_controller};
use super::{select, skinning, Context, ExportKind, Exports, Output};
use crate::nel::anim::{
    AngleAxis, Animation, KeyBezier, KeyFramer, KeyPlain, KeyTcb, Tangent, Track as NelTrack,
    TrackPtr,
};
use crate::nel::stream::{Bool, Ptr, F32};
use crate::nel::{NelFile, NelKind};

#[path = "anim_biped.rs"]
mod biped;
#[path = "anim_ik.rs"]
mod ik;
#[path = "anim_morph.rs"]
pub(super) mod morph;

/// Samples per sampled channel at most (a damaged range must not allocate without bound).
const MAX_SAMPLES: usize = 1 << 16;

/// `ITransformable` channel names.
pub const SCALE: &str = "scale";
pub const ROTQUAT: &str = "rotquat";
pub const POS: &str = "pos";
/// `CCamera` value names (camera.h).
pub const ROLL: &str = "roll";
pub const TARGET: &str = "target";
/// `LOOKAT_CAM_CLASS_ID`: the Target camera, what `isCamera` accepts.
const LOOKAT_CAMERA: (u32, u32) = (0x1002, 0);

pub(super) fn seconds(t: i32) -> F32 {
    F32::from_f32(t as f32 / TICKS_PER_SECOND as f32)
}

/// What the plug-in puts before a node's channel names: with "export
/// animation prefixe name" its instance name (the node's name when empty)
/// and a dot, else nothing. The .anim and the shape animation share it.
pub(super) fn animation_prefix(ctx: &Context, node: usize) -> String {
    let p = ctx.props.node(node);
    if p.export_animation_prefixe_name {
        let n = if p.instance_name.is_empty() {
            ctx.graph.node_name(node).to_string()
        } else {
            p.instance_name.clone()
        };
        format!("{n}.")
    } else {
        String::new()
    }
}

pub fn export(ctx: &Context, out: &mut Exports) {
    let time = settings::time_config(ctx.doc);
    let mut b = Builder::new(ctx, &time);
    let selected = select::anim_nodes(ctx);
    if selected.is_empty() {
        for node in select::tree_order(ctx.graph) {
            let prefix = format!("{}.", ctx.graph.node_name(node));
            if animated(ctx, node) {
                b.node_tracks(node, &prefix);
            }
            b.morph_tracks(node, &prefix);
        }
    } else {
        for &node in &selected {
            let prefix = animation_prefix(ctx, node);
            b.add_animation(node, &prefix);
        }
    }
    for (node, e) in std::mem::take(&mut b.errors) {
        out.push_error(ExportKind::Anim, ctx.graph.node_name(node), e);
    }
    if let (true, Err(e)) = (b.sampled.get(), &time) {
        out.push_error(
            ExportKind::Anim,
            "",
            format!("time configuration not decoded ({e}): composite channels sampled at 30 fps"),
        );
    }
    if b.tracks.is_empty() {
        return;
    }
    match animation_bytes(b.tracks) {
        Ok(bytes) => out.outputs.push(Output {
            kind: ExportKind::Anim,
            with_coarse_mesh: false,
            name: format!("{}.anim", ctx.stem),
            bytes,
        }),
        Err(e) => out.push_error(ExportKind::Anim, "", e),
    }
}

/// A `CAnimation` (version 2) holding `tracks` in insertion order, its name
/// map sorted as `std::map` sorts, serialized and read back.
pub fn animation_bytes(tracks: Vec<(String, NelTrack)>) -> ExportResult<Vec<u8>> {
    let mut anim = Animation {
        version: 2,
        name: String::new(),
        id_by_name: Vec::new(),
        tracks: Vec::new(),
        min_end_time: Some(F32::from_f32(-f32::MAX)),
        sss_shapes: Some(Vec::new()),
    };
    let mut names: Vec<(String, u32)> = Vec::new();
    for (i, (name, track)) in tracks.into_iter().enumerate() {
        names.push((name, i as u32));
        anim.tracks.push(TrackPtr(Ptr::Obj {
            id: i as u64 + 1,
            obj: Box::new(track),
        }));
    }
    // std::map<std::string, uint32>: byte order.
    names.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    anim.id_by_name = names;
    Ok(checked_bytes(
        &NelFile::Animation(anim),
        NelKind::Animation,
    )?)
}

/// `addAnimation` for one selected node, as NelExportAnimation runs it for
/// the shape process (export_anim.cpp): the node's transform tracks, then
/// the tracks `extra` adds (materials, lights, morph factors), then its
/// descendants' as bone tracks. Returns the tracks and the reasons of
/// channels that could not be exported.
pub fn node_animation(
    ctx: &Context,
    node: usize,
    prefix: &str,
    extra: impl FnOnce(&mut Vec<(String, NelTrack)>, &mut Vec<String>),
) -> (Vec<(String, NelTrack)>, Vec<String>) {
    let time = settings::time_config(ctx.doc);
    let mut b = Builder::new(ctx, &time);
    b.prepare_biped(node);
    b.node_tracks(node, prefix);
    let mut more = Vec::new();
    extra(&mut b.tracks, &mut more);
    b.bone_tracks(node, prefix, 0);
    let mut errors: Vec<String> = b
        .errors
        .into_iter()
        .map(|(n, e)| format!("{}: {e}", ctx.graph.node_name(n)))
        .collect();
    errors.extend(more);
    if let (true, Err(e)) = (b.sampled.get(), &time) {
        errors.push(format!(
            "time configuration not decoded ({e}): composite channels sampled at 30 fps"
        ));
    }
    (b.tracks, errors)
}

/// Whether any controller of the node's transform has keys.
pub fn animated(ctx: &Context, node: usize) -> bool {
    let Some(tm) = ctx.eval.tm_controller(node) else {
        return false;
    };
    if ik::is_ik(ctx, node) {
        return true;
    }
    let mut todo = vec![tm];
    let mut budget = 64;
    while let Some(i) = todo.pop() {
        budget -= 1;
        if budget == 0 {
            break;
        }
        match ctx.eval.controller(i) {
            Some(c) if !c.key_times().is_empty() => return true,
            Some(c) => todo.extend(children(c)),
            None => {}
        }
    }
    false
}

fn children(c: &Controller) -> Vec<usize> {
    c.children()
}

#[derive(Clone, Copy, PartialEq)]
enum Channel {
    Scale,
    Rot,
    Pos,
}

struct Builder<'c, 'a> {
    ctx: &'c Context<'a>,
    tracks: Vec<(String, NelTrack)>,
    errors: Vec<(usize, String)>,
    /// The file's frame step: composite channels are sampled once per frame.
    ticks_per_frame: i32,
    /// Whether any channel was sampled (the frame step mattered).
    sampled: std::cell::Cell<bool>,
    /// The Biped sampling of the hierarchy being exported (`anim_biped.rs`).
    biped: Option<biped::Sampling>,
}

impl<'c, 'a> Builder<'c, 'a> {
    fn new<E>(ctx: &'c Context<'a>, time: &Result<TimeConfig, E>) -> Self {
        Builder {
            ctx,
            tracks: Vec::new(),
            errors: Vec::new(),
            ticks_per_frame: time
                .as_ref()
                .map_or(TimeConfig::DEFAULT.ticks_per_frame, |t| t.ticks_per_frame),
            sampled: std::cell::Cell::new(false),
            biped: None,
        }
    }
    /// `addAnimation`: the node's tracks, then its descendants' as bone tracks.
    /// Biped bones under a Biped root are reported once, on the root.
    fn add_animation(&mut self, node: usize, prefix: &str) {
        let first_error = self.errors.len();
        self.prepare_biped(node);
        self.node_tracks(node, prefix);
        self.morph_tracks(node, prefix);
        self.bone_tracks(node, prefix, first_error);
    }

    /// The Biped sampling of `node`'s hierarchy, shared by its bone tracks.
    fn prepare_biped(&mut self, node: usize) {
        let kids = skinning::children(self.ctx.graph);
        let mut hierarchy = vec![node];
        let mut i = 0;
        while i < hierarchy.len() && hierarchy.len() < MAX_SAMPLES {
            let n = hierarchy[i];
            hierarchy.extend(
                kids.get(n)
                    .into_iter()
                    .flatten()
                    .copied()
                    .filter(|&c| c != node),
            );
            i += 1;
        }
        hierarchy.sort_unstable();
        hierarchy.dedup();
        self.biped = biped::sampling(self.ctx, &hierarchy);
    }

    /// `addBoneTracks` of every descendant of `node`, depth first.
    fn bone_tracks(&mut self, node: usize, prefix: &str, first_error: usize) {
        let kids = skinning::children(self.ctx.graph);
        let mut stack: Vec<usize> = kids
            .get(node)
            .into_iter()
            .flatten()
            .rev()
            .copied()
            .collect();
        let mut seen = std::collections::HashSet::new();
        while let Some(c) = stack.pop() {
            if !seen.insert(c) {
                continue;
            }
            let name = format!("{prefix}{}.", self.ctx.graph.node_name(c));
            self.node_tracks(c, &name);
            stack.extend(kids.get(c).into_iter().flatten().rev().copied());
        }
        let biped = |e: &(usize, String)| e.1.starts_with("Biped controller");
        let n = self.errors[first_error..]
            .iter()
            .filter(|e| biped(e))
            .count();
        if n > 1 {
            let mut kept: Vec<(usize, String)> = Vec::new();
            for e in self.errors.drain(first_error..) {
                if !biped(&e) {
                    kept.push(e);
                } else if !kept.iter().any(biped) {
                    kept.push((e.0, format!("{} ({n} Biped bones, no track written)", e.1)));
                }
            }
            self.errors.extend(kept);
        }
    }

    /// `addMorphTracks`: the node's Morpher percentages (first name wins).
    fn morph_tracks(&mut self, node: usize, prefix: &str) {
        let (tracks, errors) = morph::tracks(self.ctx, node, prefix);
        for (name, t) in tracks {
            if !self.tracks.iter().any(|(n, _)| *n == name) {
                self.tracks.push((name, t));
            }
        }
        self.errors.extend(errors.into_iter().map(|e| (node, e)));
    }

    /// `addNodeTracks`: scale, rotation, position of the TM controller.
    fn node_tracks(&mut self, node: usize, prefix: &str) {
        let ctx = self.ctx;
        if ik::is_ik(ctx, node) {
            for (full, t) in ik::tracks(ctx, node, prefix) {
                if !self.tracks.iter().any(|(n, _)| *n == full) {
                    self.tracks.push((full, t));
                }
            }
            return;
        }
        if let Some(c) = skinning::biped_controller(ctx, node) {
            let tracks = match &self.biped {
                Some(s) => biped::tracks(ctx, node, prefix, s),
                None => Err(ExportError::refused(c)),
            };
            match tracks {
                Ok(ts) => {
                    for (full, t) in ts {
                        if !self.tracks.iter().any(|(n, _)| *n == full) {
                            self.tracks.push((full, t));
                        }
                    }
                }
                Err(why) => self
                    .errors
                    .push((node, format!("Biped controller is not evaluated ({why})"))),
            }
            return;
        }
        if let Some(why) = unsupported_controller(ctx, node) {
            if animated(ctx, node) {
                self.errors.push((node, why));
            }
            return;
        }
        let Some(tm) = ctx.eval.tm_controller(node) else {
            return;
        };
        let (pos, rot, scale) = match ctx.eval.controller(tm) {
            Some(Controller::Prs {
                position,
                rotation,
                scale,
            }) => (*position, *rotation, *scale),
            Some(Controller::LookAt {
                position, scale, ..
            }) => (*position, None, *scale),
            _ => return,
        };
        for (ch, ctl, name) in [
            (Channel::Scale, scale, SCALE),
            (Channel::Rot, rot, ROTQUAT),
            (Channel::Pos, pos, POS),
        ] {
            let Some(ctl) = ctl else { continue };
            let full = format!("{prefix}{name}");
            if self.tracks.iter().any(|(n, _)| *n == full) {
                continue;
            }
            if let Some(t) = self.track(ch, ctl) {
                self.tracks.push((full, t));
            }
        }
        if let Some(Controller::LookAt { target, roll, .. }) = ctx.eval.controller(tm) {
            self.camera_tracks(node, prefix, *target, *roll);
        }
    }

    /// addNodeTracks for a Target camera (`isCamera`: the object converts
    /// to a LookAt camera): the LookAt's roll controller as `roll` (a float
    /// track, radians as stored) and the target node's position controller
    /// as `target` (converted as `pos`).
    fn camera_tracks(
        &mut self,
        node: usize,
        prefix: &str,
        target: Option<usize>,
        roll: Option<usize>,
    ) {
        let ctx = self.ctx;
        let is_camera = ctx.eval.node_object(node).is_some_and(|o| {
            ctx.graph
                .objects
                .get(o)
                .and_then(|x| x.class.as_ref())
                .is_some_and(|c| {
                    c.super_class == SC_CAMERA && (c.class_id.0, c.class_id.1) == LOOKAT_CAMERA
                })
        });
        if !is_camera {
            return;
        }
        let name = format!("{prefix}{ROLL}");
        if let Some(r) = roll.filter(|_| !self.tracks.iter().any(|(n, _)| *n == name)) {
            match super::shape_anim::float_track(ctx, r) {
                Ok(Some(t)) => self.tracks.push((name, t)),
                Ok(None) => {}
                Err(e) => self.errors.push((node, format!("{name}: {e}"))),
            }
        }
        let name = format!("{prefix}{TARGET}");
        let position = target
            .and_then(|t| ctx.eval.tm_controller(t))
            .and_then(|tm| match ctx.eval.controller(tm) {
                Some(Controller::Prs { position, .. } | Controller::LookAt { position, .. }) => {
                    *position
                }
                _ => None,
            });
        if let Some(p) = position.filter(|_| !self.tracks.iter().any(|(n, _)| *n == name)) {
            if let Some(t) = self.track(Channel::Pos, p) {
                self.tracks.push((name, t));
            }
        }
    }

    fn track(&self, ch: Channel, ctl: usize) -> Option<NelTrack> {
        let c = self.ctx.eval.controller(ctl)?;
        match (ch, c) {
            (Channel::Rot, Controller::Rotation { track, range, .. }) => rot_track(track, *range),
            (Channel::Pos | Channel::Scale, Controller::Point3 { track, range, .. }) => {
                vector_track(track, *range, ch == Channel::Pos)
            }
            (Channel::Pos | Channel::Scale, Controller::Scale { track, range, .. }) => {
                vector_track(track, *range, false)
            }
            (
                _,
                Controller::EulerXyz { .. }
                | Controller::PositionXyz { .. }
                | Controller::ScaleXyz { .. }
                | Controller::List { .. },
            ) => self.sampled(ch, ctl, c),
            _ => None,
        }
    }

    /// Per-frame linear keys of a composite controller, over its keys' range.
    fn sampled(&self, ch: Channel, ctl: usize, c: &Controller) -> Option<NelTrack> {
        self.sampled.set(true);
        let frame = self.ticks_per_frame.max(1);
        let ev = &self.ctx.eval;
        // Keys anywhere below: a list's entries may be per-axis controllers.
        let mut times = Vec::new();
        let mut todo = children(c);
        let mut seen = 0;
        while let Some(i) = todo.pop() {
            seen += 1;
            if seen > 64 {
                break;
            }
            if let Some(sub) = ev.controller(i) {
                times.extend(sub.key_times());
                todo.extend(children(sub));
            }
        }
        times.sort_unstable();
        times.dedup();
        let (&first, &last) = (times.first()?, times.last()?);
        let mut t = first.saturating_sub(first.rem_euclid(frame));
        while t < last && times.len() < MAX_SAMPLES {
            if t > first {
                times.push(t);
            }
            let Some(next) = t.checked_add(frame) else {
                break;
            };
            t = next;
        }
        times.sort_unstable();
        times.dedup();
        let range = (first, last);
        Some(match ch {
            Channel::Rot => {
                let mut prev: Option<Quat> = None;
                let keys = times
                    .iter()
                    .map(|&t| {
                        let m = ev.rotation_at(Some(ctl), t);
                        let (_, mut q, _) = super::skel::decompose(&m);
                        q = q.closest_to(prev);
                        prev = Some(q);
                        (seconds(t), plain(nel_quat(q)))
                    })
                    .collect();
                NelTrack::CTrackKeyFramerLinearQuat(framer(keys, range))
            }
            Channel::Pos | Channel::Scale => {
                let keys = times
                    .iter()
                    .map(|&t| {
                        let v = if ch == Channel::Pos {
                            ev.position_at(Some(ctl), t)
                        } else {
                            ev.scale_at(Some(ctl), t)
                        };
                        (seconds(t), plain(nel_vec(v)))
                    })
                    .collect();
                NelTrack::CTrackKeyFramerLinearVector(framer(keys, range))
            }
        })
    }
}

pub(super) fn plain<V>(value: V) -> KeyPlain<V> {
    KeyPlain { version: 0, value }
}

/// Max Bezier keys as NeL's (`buildNelKey`): `value` converts a value,
/// `tangent` a tangent; the step flag from the out-tangent type.
pub(super) fn bezier_keys<const N: usize, V>(
    keys: &[BezKey<N>],
    value: impl Fn([f64; N]) -> V,
    tangent: impl Fn([f64; N]) -> Tangent,
) -> Vec<(F32, KeyBezier<V>)> {
    keys.iter()
        .map(|k| {
            (
                seconds(k.time),
                KeyBezier {
                    version: 0,
                    value: value(k.value),
                    in_tan: tangent(k.in_tan),
                    out_tan: tangent(k.out_tan),
                    step: Bool((k.out_type() == TANGENT_STEP) as u8),
                },
            )
        })
        .collect()
}

/// Max TCB keys as NeL's: `value` converts a value; tension, continuity,
/// bias and eases as stored.
pub(super) fn tcb_keys<const N: usize, V>(
    keys: &[TcbKey<N>],
    value: impl Fn([f64; N]) -> V,
) -> Vec<(F32, KeyTcb<V>)> {
    keys.iter()
        .map(|k| {
            (
                seconds(k.time),
                KeyTcb {
                    version: 0,
                    value: value(k.value),
                    tension: f32v(k.tension),
                    continuity: f32v(k.continuity),
                    bias: f32v(k.bias),
                    ease_to: f32v(k.ease_in),
                    ease_from: f32v(k.ease_out),
                },
            )
        })
        .collect()
}

/// `createKeyFramer`: range unlocked to the controller's range (its key range
/// when it has none); loop mode off (the out-of-range type is not decoded).
pub(super) fn framer<K>(keys: Vec<(F32, K)>, range: (i32, i32)) -> KeyFramer<K> {
    KeyFramer {
        version: 0,
        keys,
        range_lock: Bool(0),
        range_begin: seconds(range.0),
        range_end: seconds(range.1),
        loop_mode: Bool(0),
    }
}

pub(super) fn key_range(times: &[i32], range: Option<(i32, i32)>) -> Option<(i32, i32)> {
    let (&a, &b) = (times.first()?, times.last()?);
    Some(range.unwrap_or((a, b)))
}

fn negated_w(q: Quat) -> Quat {
    // Linear rotation keys: NeL (x, y, z, −w) of Max's stored quaternion,
    // which is the conjugate of the node-convention one.
    let s = q.conjugate();
    Quat {
        x: s.x,
        y: s.y,
        z: s.z,
        w: -s.w,
    }
}

fn rot_track(track: &RotTrack, range: Option<(i32, i32)>) -> Option<NelTrack> {
    let r = key_range(&track.key_times(), range)?;
    Some(match track {
        RotTrack::Constant { .. } => return None,
        RotTrack::Linear { keys } => NelTrack::CTrackKeyFramerLinearQuat(framer(
            keys.iter()
                .map(|(t, q)| (seconds(*t), plain(nel_quat(negated_w(*q)))))
                .collect(),
            r,
        )),
        RotTrack::Tcb { keys } => NelTrack::CTrackKeyFramerTCBQuat(framer(
            keys.iter()
                .map(|k| {
                    (
                        seconds(k.time),
                        KeyTcb {
                            version: 0,
                            value: AngleAxis {
                                axis: nel_vec(k.axis),
                                angle: f32v(-k.angle),
                            },
                            tension: f32v(k.tension),
                            continuity: f32v(k.continuity),
                            bias: f32v(k.bias),
                            ease_to: f32v(k.ease_in),
                            ease_from: f32v(k.ease_out),
                        },
                    )
                })
                .collect(),
            r,
        )),
    })
}

fn v3(a: [f64; 3]) -> crate::nel::stream::Vec3 {
    nel_vec(Vec3(a[0], a[1], a[2]))
}

/// Position/point3 and scale keyframers. Bezier position tangents are per
/// tick in Max and per second in NeL (×4800); scale tangents are copied.
fn vector_track(track: &Track<3>, range: Option<(i32, i32)>, per_second: bool) -> Option<NelTrack> {
    let r = key_range(&track.key_times(), range)?;
    let k = if per_second {
        TICKS_PER_SECOND as f64
    } else {
        1.0
    };
    Some(match track {
        Track::Constant { .. } => return None,
        Track::Linear { keys } => NelTrack::CTrackKeyFramerLinearVector(framer(
            keys.iter()
                .map(|x| (seconds(x.time), plain(v3(x.value))))
                .collect(),
            r,
        )),
        Track::Bezier { keys } => NelTrack::CTrackKeyFramerBezierVector(framer(
            bezier_keys(keys, v3, |t| Tangent::Vector(v3(t.map(|v| v * k)))),
            r,
        )),
        Track::Tcb { keys } => NelTrack::CTrackKeyFramerTCBVector(framer(tcb_keys(keys, v3), r)),
    })
}

/// The value of an exported linear track at `t` seconds (for checks and tests;
/// other interpolations are NeL's own and are not re-implemented here).
pub fn linear_value(track: &NelTrack, t: f32) -> Option<[f32; 4]> {
    fn seg<K>(keys: &[(F32, K)], t: f32) -> Option<(usize, usize, f32)> {
        let n = keys.len();
        let first = keys.first()?.0.get();
        if t <= first {
            return Some((0, 0, 0.0));
        }
        if t >= keys[n - 1].0.get() {
            return Some((n - 1, n - 1, 0.0));
        }
        let i = keys.partition_point(|k| k.0.get() <= t).max(1) - 1;
        let (a, b) = (keys[i].0.get(), keys[i + 1].0.get());
        Some((i, i + 1, (t - a) / (b - a)))
    }
    match track {
        NelTrack::CTrackKeyFramerLinearVector(f) => {
            let (i, j, u) = seg(&f.keys, t)?;
            let (a, b) = (&f.keys[i].1.value, &f.keys[j].1.value);
            let l = |x: F32, y: F32| x.get() + (y.get() - x.get()) * u;
            Some([l(a.x, b.x), l(a.y, b.y), l(a.z, b.z), 0.0])
        }
        NelTrack::CTrackKeyFramerLinearQuat(f) => {
            let (i, j, u) = seg(&f.keys, t)?;
            let g = |q: &crate::nel::stream::Quat| Quat {
                x: q.x.get().into(),
                y: q.y.get().into(),
                z: q.z.get().into(),
                w: q.w.get().into(),
            };
            let q = g(&f.keys[i].1.value).slerp(g(&f.keys[j].1.value), u.into());
            Some([q.x as f32, q.y as f32, q.z as f32, q.w as f32])
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_rotation_negates_w() {
        let q = Quat::from_axis_angle(Vec3(0.0, 0.0, 1.0), 0.5);
        let n = negated_w(q);
        // Same rotation up to sign: (−x, −y, −z, −w) of the node quaternion.
        assert!((n.dot(q) + 1.0).abs() < 1e-12);
    }

    #[test]
    fn linear_sampling() {
        let f = framer(
            vec![
                (seconds(0), plain(v3([0.0, 0.0, 0.0]))),
                (seconds(4800), plain(v3([2.0, 4.0, 6.0]))),
            ],
            (0, 4800),
        );
        let t = NelTrack::CTrackKeyFramerLinearVector(f);
        assert_eq!(linear_value(&t, 0.5), Some([1.0, 2.0, 3.0, 0.0]));
        assert_eq!(linear_value(&t, 9.0), Some([2.0, 4.0, 6.0, 0.0]));
    }
}
