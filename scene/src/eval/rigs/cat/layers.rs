//! CAT's animation layers (docs/cat.md, "Animation layers"): the rig's
//! layer list (LayerRoot, CATClipRoot: one NLAInfo per layer with its name,
//! method and global weight track), each controller's per-layer weights
//! (LayerWeights, CATClipWeights) and how a CATClipMatrix3 or CATClipFloat
//! blends its layers at a tick (CATClipMatrix3::GetTransformation,
//! CATClipFloat::GetValue):
//!
//! - evaluation starts at the last enabled absolute layer whose weight is
//!   exactly 1 (layers below it cannot show; GetFirstActiveAbsLayer), or at
//!   layer 0; disabled layers and layers of weight ≤ 0 are skipped;
//! - an absolute layer's value replaces the result so far by its weight
//!   (matrices: BlendMat — translation and scale lerped, rotation slerped on
//!   the shorter arc; floats: `v += (layer − v)·w`);
//! - a relative ("Relative Local") layer applies its value on top of the
//!   result so far (matrices: `layer · result`, then blended by weight;
//!   floats: `v += layer·w`);
//! - a layer's weight: layer 0 always 1 under a weights controller; else
//!   the controller's local weight track times its parent weights', up to
//!   the layer's global weight (its NLAInfo weight track), clamped to 0..1;
//!   a controller without weights takes the global weight.
//!
//! Matrices are blended in the bone's local frame (the value relative to
//! the parent CAT builds): CAT blends world TMs, and with a parent without
//! scale both agree (slerp and lerp commute with the parent's rigid
//! transform). CATMotion layers (CAT's procedural walk cycle), "Relative
//! World" and ignored layers, solo, time warps and layer transforms with
//! scale are refused by name.

use super::records::{self, leaf, reference, u32_of, ClipMatrix};
use crate::eval::core::controller::Controller;
use crate::eval::core::math::{Mat43, Quat, Vec3};
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use crate::typed::ClassId;

/// LayerRoot (CATClipRoot): the rig's layer list.
pub const LAYER_ROOT: ClassId = ClassId(0x742d_30ac, 0x3798_4f09);
/// LayerInfo (NLAInfo): one layer's name, method, weight, time warp.
pub const LAYER_INFO: ClassId = ClassId(0x43bf_76ac, 0x60ab_5707);
/// CATMotionLayer: an NLAInfo whose layer CATMotion generates.
pub const CATMOTION_LAYER: ClassId = ClassId(0x4ceb_45bd, 0x0b9c_062e);
/// LayerWeights (CATClipWeights): a controller's local weight per layer.
pub const LAYER_WEIGHTS: ClassId = ClassId(0x72ed_43dc, 0x3ec9_6a0a);
/// CATClipFloat ("LayerFloat").
pub const LAYER_FLOAT: ClassId = ClassId(0x4058_5238, 0x2503_240d);

// CATClipRoot chunks (its save enum): 1 = layer count, 8 = selected layer,
// 14 = solo layer (−1: none).
const ROOT_NUM_LAYERS: u16 = 1;
const ROOT_SOLO: u16 = 14;
// NLAInfo chunks: 1 = name, 2 = flags (low 3 bits: the method), 5 = index.
const INFO_NAME: u16 = 1;
const INFO_FLAGS: u16 = 2;
// NLAInfo references.
const INFO_REF_WEIGHT: u32 = 0;
const INFO_REF_TIMING: u32 = 1;
const INFO_REF_TRANSFORM: u32 = 2;
/// NLAInfo flag: the layer is switched off.
const LAYER_DISABLE: u32 = 1 << 4;
// CATClipValue chunks: 7 = its weights controller (LayerWeights), 10 = the
// LayerRoot.
const CLIP_NUM_LAYERS: u16 = 1;
const CLIP_WEIGHTS: u16 = 7;
const CLIP_ROOT: u16 = 10;
/// How deep LayerWeights may nest before the data is called a cycle.
const MAX_WEIGHT_DEPTH: usize = 64;
/// A layer transform's scale must be 1 within this.
const UNIT_SCALE: f64 = 1e-6;

/// How a layer combines with the layers below it (NLAInfo flags & 7,
/// enum ClipLayerMethod).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// "Relative Local": applied on top of the result so far.
    Relative,
    /// Replaces the result so far by its weight.
    Absolute,
    Ignore,
    RelativeWorld,
    CatMotion,
}

impl Method {
    fn from_flags(flags: u32) -> Option<Method> {
        Some(match flags & 7 {
            0 => Method::Relative,
            1 => Method::Absolute,
            2 => Method::Ignore,
            3 => Method::RelativeWorld,
            4 => Method::CatMotion,
            _ => return None,
        })
    }
}

/// One layer of the rig (an NLAInfo or CATMotionLayer).
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    pub object: usize,
    pub name: String,
    pub method: Method,
    pub flags: u32,
    /// The global weight track (a float controller).
    pub weight: Option<usize>,
    pub timewarp: Option<usize>,
    /// The layer's transform (absolute layers; a PRS).
    pub transform: Option<usize>,
    /// A CATMotionLayer: its values come from CAT's walk-cycle engine.
    pub catmotion: bool,
}

impl Layer {
    pub fn enabled(&self) -> bool {
        self.flags & LAYER_DISABLE == 0
    }
}

/// The rig's layer list (a LayerRoot).
#[derive(Debug, Clone, PartialEq)]
pub struct LayerStack {
    pub root: usize,
    pub layers: Vec<Layer>,
    /// The solo layer, if one is soloed.
    pub solo: Option<u32>,
}

fn i32_of(p: Option<&[u8]>) -> Option<i32> {
    u32_of(p).map(|v| v as i32)
}

/// The LayerRoot at `root` with its layers.
pub fn layer_stack(eval: &SceneEval, root: usize) -> Result<LayerStack, EvalError> {
    let at = format!("LayerRoot {root}");
    if records::class_of(eval, root) != Some(LAYER_ROOT) {
        return Err(EvalError::reference(at, "not a LayerRoot"));
    }
    let chunks = eval.chunks(root);
    let n = i32_of(leaf(chunks, ROOT_NUM_LAYERS))
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| EvalError::malformed(at.clone(), "no layer count (chunk 1)"))?;
    let solo = i32_of(leaf(chunks, ROOT_SOLO)).and_then(|s| u32::try_from(s).ok());
    let mut layers = Vec::new();
    for i in 0..n {
        let info = reference(eval, root, i).ok_or_else(|| {
            EvalError::reference(at.clone(), format!("no layer info for layer {i}"))
        })?;
        let class = records::class_of(eval, info);
        if class != Some(LAYER_INFO) && class != Some(CATMOTION_LAYER) {
            return Err(EvalError::reference(
                at.clone(),
                format!("layer {i} is not a LayerInfo"),
            ));
        }
        let ic = eval.chunks(info);
        let flags = u32_of(leaf(ic, INFO_FLAGS)).ok_or_else(|| {
            EvalError::malformed(format!("LayerInfo {info}"), "no flags (chunk 2)")
        })?;
        let method = Method::from_flags(flags).ok_or_else(|| {
            EvalError::malformed(
                format!("LayerInfo {info}"),
                format!("layer method {flags:#x}"),
            )
        })?;
        let name = leaf(ic, INFO_NAME)
            .map(|p| {
                String::from_utf8_lossy(p)
                    .trim_end_matches('\0')
                    .to_string()
            })
            .unwrap_or_default();
        layers.push(Layer {
            object: info,
            name,
            method,
            flags,
            weight: reference(eval, info, INFO_REF_WEIGHT),
            timewarp: reference(eval, info, INFO_REF_TIMING),
            transform: reference(eval, info, INFO_REF_TRANSFORM),
            catmotion: class == Some(CATMOTION_LAYER),
        });
    }
    Ok(LayerStack { root, layers, solo })
}

/// What a layer controller (CATClipMatrix3, CATClipFloat) needs to blend:
/// the rig's layers, its own layer controllers and its weights.
struct Clip {
    object: usize,
    stack: LayerStack,
    /// Layer controllers, one per layer (references 0..n).
    controllers: Vec<Option<usize>>,
    /// Its LayerWeights, if any.
    weights: Option<usize>,
}

fn clip_of(eval: &SceneEval, object: usize, what: &str) -> Result<Clip, EvalError> {
    let at = format!("{what} {object}");
    let chunks = eval.chunks(object);
    let root = u32_of(leaf(chunks, CLIP_ROOT))
        .and_then(|v| usize::try_from(v).ok())
        .ok_or_else(|| EvalError::reference(at.clone(), "no LayerRoot (chunk 10)"))?;
    let stack = layer_stack(eval, root)?;
    let n = u32_of(leaf(chunks, CLIP_NUM_LAYERS))
        .ok_or_else(|| EvalError::malformed(at.clone(), "no layer count (chunk 1)"))?;
    if n as usize != stack.layers.len() {
        return Err(EvalError::malformed(
            at,
            format!(
                "{n} layers where its LayerRoot {root} has {}",
                stack.layers.len()
            ),
        ));
    }
    let weights = u32_of(leaf(chunks, CLIP_WEIGHTS))
        .and_then(|v| usize::try_from(v).ok())
        .filter(|&w| records::class_of(eval, w) == Some(LAYER_WEIGHTS));
    Ok(Clip {
        object,
        controllers: (0..n).map(|i| reference(eval, object, i)).collect(),
        stack,
        weights,
    })
}

fn refuse(at: &str, why: impl Into<String>) -> EvalError {
    EvalError::not_evaluated_why(at.to_string(), why.into())
}

fn float_track(
    eval: &SceneEval,
    ctl: usize,
    t: i32,
    at: &str,
    what: &str,
) -> Result<f64, EvalError> {
    let v = eval.float_at(Some(ctl), t, f64::NAN);
    if v.is_finite() {
        Ok(v)
    } else {
        Err(refuse(
            at,
            format!("a layer {what} that is not a float controller is not evaluated"),
        ))
    }
}

/// The global weight of layer `i` (its NLAInfo weight track).
fn global_weight(eval: &SceneEval, stack: &LayerStack, i: usize, t: i32) -> Result<f64, EvalError> {
    let layer = &stack.layers[i];
    let at = format!("LayerInfo {}", layer.object);
    match layer.weight {
        Some(w) => float_track(eval, w, t, &at, "weight"),
        None => Ok(0.0),
    }
}

/// CATClipWeights::GetWeight: layer 0 weighs 1; else the local weight
/// track times the parent weights' (or the global weight at the top),
/// clamped to 0..1.
fn weights_weight(
    eval: &SceneEval,
    weights: usize,
    stack: &LayerStack,
    i: usize,
    t: i32,
    depth: usize,
) -> Result<f64, EvalError> {
    if i == 0 {
        return Ok(1.0);
    }
    let at = format!("LayerWeights {weights}");
    if depth > MAX_WEIGHT_DEPTH {
        return Err(EvalError::limit(at, MAX_WEIGHT_DEPTH));
    }
    let local = match reference(eval, weights, i as u32) {
        Some(c) => float_track(eval, c, t, &at, "local weight")?,
        None => 1.0,
    };
    let parent = u32_of(leaf(eval.chunks(weights), CLIP_WEIGHTS))
        .and_then(|v| usize::try_from(v).ok())
        .filter(|&w| records::class_of(eval, w) == Some(LAYER_WEIGHTS));
    let above = match parent {
        Some(p) => weights_weight(eval, p, stack, i, t, depth + 1)?,
        None => global_weight(eval, stack, i, t)?,
    };
    Ok((local * above).clamp(0.0, 1.0))
}

impl Clip {
    fn at(&self, what: &str) -> String {
        format!("{what} {}", self.object)
    }

    fn weight(&self, eval: &SceneEval, i: usize, t: i32) -> Result<f64, EvalError> {
        match self.weights {
            Some(w) => weights_weight(eval, w, &self.stack, i, t, 0),
            None => global_weight(eval, &self.stack, i, t),
        }
    }

    /// The layers that contribute at `t`, bottom first, with their weights
    /// (GetFirstActiveAbsLayer, then the enabled layers of weight > 0);
    /// refused for what is not decoded.
    fn contributions(
        &self,
        eval: &SceneEval,
        t: i32,
        what: &str,
    ) -> Result<Vec<(usize, Method, f64, usize)>, EvalError> {
        let at = self.at(what);
        if let Some(s) = self.stack.solo {
            return Err(refuse(
                &at,
                format!("a soloed animation layer ({s}) is not evaluated"),
            ));
        }
        let n = self.stack.layers.len();
        // Each layer's weight once: the scan for the first layer and the
        // blend above it ask for some of the same.
        let mut weights: Vec<Option<f64>> = vec![None; n];
        let mut weight = |i: usize| -> Result<f64, EvalError> {
            if let Some(w) = weights[i] {
                return Ok(w);
            }
            let w = self.weight(eval, i, t)?;
            weights[i] = Some(w);
            Ok(w)
        };
        let mut first = 0;
        for i in (1..n).rev() {
            let l = &self.stack.layers[i];
            let present = self.controllers[i].is_some();
            if present && l.method == Method::Absolute && l.enabled() && weight(i)? == 1.0 {
                first = i;
                break;
            }
        }
        let mut out = Vec::new();
        for i in first..n {
            let l = &self.stack.layers[i];
            if !l.enabled() {
                continue;
            }
            let w = weight(i)?;
            if w <= 0.0 {
                continue;
            }
            let name = &l.name;
            if l.catmotion || l.method == Method::CatMotion {
                return Err(refuse(
                    &at,
                    format!(
                        "layer {i} \"{name}\" is a CATMotion layer (CAT's procedural walk \
                         cycle), not evaluated"
                    ),
                ));
            }
            if !matches!(l.method, Method::Absolute | Method::Relative) {
                return Err(refuse(
                    &at,
                    format!(
                        "layer {i} \"{name}\" of method {:?} is not evaluated (absolute and \
                         relative local layers are)",
                        l.method
                    ),
                ));
            }
            if l.timewarp.is_some() {
                return Err(refuse(
                    &at,
                    format!("layer {i} \"{name}\" has a time warp, not evaluated"),
                ));
            }
            let ctl = self.controllers[i].ok_or_else(|| {
                EvalError::reference(at.clone(), format!("no controller for layer {i}"))
            })?;
            out.push((i, l.method, w, ctl));
        }
        Ok(out)
    }
}

/// Matrix3 BlendMat: `a` moved towards `b` by `w` (translation and
/// per-axis scale lerped, rotation slerped on the shorter arc). Refused
/// (None) for a mirrored or degenerate matrix.
pub fn blend_mat(a: &Mat43, b: &Mat43, w: f64) -> Option<Mat43> {
    if w == 1.0 {
        return Some(*b);
    }
    if w == 0.0 {
        return Some(*a);
    }
    let (ta, qa, ka) = decompose(a)?;
    let (tb, qb, kb) = decompose(b)?;
    let lerp = |x: Vec3, y: Vec3| x.plus(y.minus(x).scale(w));
    let k = lerp(ka, kb);
    let r = qa.slerp(qb, w).to_rows();
    Some(Mat43([
        r[0].scale(k.0),
        r[1].scale(k.1),
        r[2].scale(k.2),
        lerp(ta, tb),
    ]))
}

/// Translation, rotation and per-row scale of a matrix without shear.
fn decompose(m: &Mat43) -> Option<(Vec3, Quat, Vec3)> {
    let k = Vec3(m.0[0].len(), m.0[1].len(), m.0[2].len());
    if !(k.0 > 0.0 && k.1 > 0.0 && k.2 > 0.0) || m.determinant3() <= 0.0 {
        return None;
    }
    let rows = [
        m.0[0].scale(1.0 / k.0),
        m.0[1].scale(1.0 / k.1),
        m.0[2].scale(1.0 / k.2),
    ];
    Some((m.0[3], Quat::from_rows(rows), k))
}

/// One step of CAT's matrix blend in the bone's local frame: `acc` after a
/// layer of `method` with value `value` and weight `w`.
pub fn apply_matrix_layer(acc: &Mat43, method: Method, value: &Mat43, w: f64) -> Option<Mat43> {
    let target = match method {
        Method::Absolute => *value,
        Method::Relative => value.then(acc),
        _ => return None,
    };
    blend_mat(acc, &target, w)
}

/// One step of CATClipFloat's blend.
pub fn apply_float_layer(acc: f64, method: Method, value: f64, w: f64) -> Option<f64> {
    match method {
        Method::Absolute => Some(acc + (value - acc) * w),
        Method::Relative => Some(acc + value * w),
        _ => None,
    }
}

/// The layer transform of an absolute layer at `t` (NLAInfo::GetTransform:
/// its position and rotation), applied to controllers flagged
/// HAS_TRANSFORM; identity without one. A transform with scale is refused.
fn layer_transform(eval: &SceneEval, layer: &Layer, t: i32, at: &str) -> Result<Mat43, EvalError> {
    let Some(tr) = layer.transform else {
        return Ok(Mat43::IDENTITY);
    };
    let Some(Controller::Prs {
        position,
        rotation,
        scale,
    }) = eval.controller(tr)
    else {
        return Err(refuse(
            at,
            "a layer transform that is not a Position/Rotation/Scale is not evaluated",
        ));
    };
    let s = eval.scale_tm(*scale, t);
    if (0..3).any(|r| (s.0[r].len() - 1.0).abs() > UNIT_SCALE) {
        return Err(refuse(at, "a scaled layer transform is not evaluated"));
    }
    Ok(eval
        .rotation_at(*rotation, t)
        .then(&Mat43::translation(eval.position_at(*position, t))))
}

/// The blended value at `t` of CATClipMatrix3 `clip` relative to the
/// parent CAT builds for it; `value_of` evaluates one layer controller.
pub fn matrix_value(
    eval: &SceneEval,
    clip: &ClipMatrix,
    t: i32,
    value_of: impl Fn(usize) -> Result<Mat43, EvalError>,
) -> Result<Mat43, EvalError> {
    let c = clip_of(eval, clip.object, "CATClipMatrix3")?;
    let at = c.at("CATClipMatrix3");
    let mut acc = Mat43::IDENTITY;
    for (i, method, w, ctl) in c.contributions(eval, t, "CATClipMatrix3")? {
        let mut value = value_of(ctl)?;
        if method == Method::Absolute && clip.flags & records::CLIP_HAS_TRANSFORM != 0 {
            value = value.then(&layer_transform(eval, &c.stack.layers[i], t, &at)?);
        }
        acc = apply_matrix_layer(&acc, method, &value, w).ok_or_else(|| {
            refuse(
                &at,
                format!(
                    "layer {i} holds a mirrored or degenerate matrix; its blend is not evaluated"
                ),
            )
        })?;
    }
    Ok(acc)
}

/// The blended value at `t` of CATClipFloat ("LayerFloat") `lf`, in
/// animation mode.
pub fn float_value(eval: &SceneEval, lf: usize, t: i32) -> Result<f64, EvalError> {
    let at = format!("LayerFloat {lf}");
    if records::class_of(eval, lf) != Some(LAYER_FLOAT) {
        return Err(EvalError::reference(at, "not a LayerFloat"));
    }
    let c = clip_of(eval, lf, "LayerFloat")?;
    let mut acc = 0.0;
    for (i, method, w, ctl) in c.contributions(eval, t, "LayerFloat")? {
        let v = float_track(eval, ctl, t, &at, &format!("{i}"))?;
        // contributions() passes absolute and relative layers only.
        acc = apply_float_layer(acc, method, v, w).unwrap_or(f64::NAN);
    }
    if acc.is_finite() {
        Ok(acc)
    } else {
        Err(EvalError::malformed(at, "a layer blend that is not finite"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &Mat43, b: &Mat43) -> f64 {
        let (a, b) = (a.rows(), b.rows());
        (0..4)
            .flat_map(|r| (0..3).map(move |c| (r, c)))
            .map(|(r, c)| (a[r][c] - b[r][c]).abs())
            .fold(0.0, f64::max)
    }

    fn tm(axis: Vec3, angle: f64, t: Vec3) -> Mat43 {
        Mat43::rotation(Quat::from_axis_angle(axis, angle)).then(&Mat43::translation(t))
    }

    /// An absolute layer at weight w turns and moves the result by w of the
    /// way: half of a 90° turn about Z is 45°, the translation halfway.
    #[test]
    fn absolute_layer_blends_by_weight() {
        let z = Vec3(0.0, 0.0, 1.0);
        let a = tm(z, 0.0, Vec3(0.0, 0.0, 0.0));
        let b = tm(z, std::f64::consts::FRAC_PI_2, Vec3(2.0, 4.0, 0.0));
        let half = apply_matrix_layer(&a, Method::Absolute, &b, 0.5).expect("blend");
        let want = tm(z, std::f64::consts::FRAC_PI_4, Vec3(1.0, 2.0, 0.0));
        assert!(close(&half, &want) < 1e-12, "{half:?}");
        // Weight 1 replaces, weight 0 keeps.
        let full = apply_matrix_layer(&a, Method::Absolute, &b, 1.0).expect("blend");
        assert!(close(&full, &b) < 1e-15);
        let none = apply_matrix_layer(&a, Method::Absolute, &b, 0.0).expect("blend");
        assert!(close(&none, &a) < 1e-15);
    }

    /// A relative layer applies its value on top (`layer · result`), then
    /// blends by weight: an identity layer changes nothing at any weight;
    /// a 60° turn at weight 1 adds 60° and at 0.5 adds 30°.
    #[test]
    fn relative_layer_applies_on_top() {
        let x = Vec3(1.0, 0.0, 0.0);
        let base = tm(x, 0.3, Vec3(1.0, -2.0, 3.0));
        for w in [0.25, 0.5, 1.0] {
            let same =
                apply_matrix_layer(&base, Method::Relative, &Mat43::IDENTITY, w).expect("blend");
            assert!(close(&same, &base) < 1e-12);
        }
        let turn = tm(x, 1.0471975511965976, Vec3::default());
        let full = apply_matrix_layer(&base, Method::Relative, &turn, 1.0).expect("blend");
        assert!(close(&full, &turn.then(&base)) < 1e-12);
        let half = apply_matrix_layer(&base, Method::Relative, &turn, 0.5).expect("blend");
        let want = tm(x, 0.5235987755982988, Vec3::default()).then(&base);
        assert!(close(&half, &want) < 1e-12, "{half:?}");
    }

    /// Scale is lerped per axis and applied before the rotation.
    #[test]
    fn blend_lerps_scale() {
        let a = Mat43::IDENTITY;
        let b = Mat43::scaling(Vec3(3.0, 1.0, 1.0));
        let m = blend_mat(&a, &b, 0.5).expect("blend");
        assert!(close(&m, &Mat43::scaling(Vec3(2.0, 1.0, 1.0))) < 1e-12);
        let mirrored = Mat43::scaling(Vec3(-1.0, 1.0, 1.0));
        assert!(blend_mat(&a, &mirrored, 0.5).is_none());
    }

    /// CATClipFloat: absolute `v += (layer − v)·w`, relative `v += layer·w`.
    #[test]
    fn float_layers_blend() {
        let v = apply_float_layer(0.0, Method::Absolute, 1.0, 1.0).expect("abs");
        assert_eq!(v, 1.0);
        let v = apply_float_layer(v, Method::Absolute, 3.0, 0.5).expect("abs");
        assert_eq!(v, 2.0);
        let v = apply_float_layer(v, Method::Relative, 0.5, 0.5).expect("rel");
        assert_eq!(v, 2.25);
        assert!(apply_float_layer(v, Method::CatMotion, 1.0, 1.0).is_none());
    }

    #[test]
    fn layer_methods_from_flags() {
        // Sparky's flags: 0x8001 "Animation Layer", 0x8000 "Adjustment
        // Layer", 0x8004 "CATMotion Layer" (bit 15: display ghost).
        assert_eq!(Method::from_flags(0x8001), Some(Method::Absolute));
        assert_eq!(Method::from_flags(0x8000), Some(Method::Relative));
        assert_eq!(Method::from_flags(0x8004), Some(Method::CatMotion));
        assert_eq!(Method::from_flags(7), None);
    }
}
