//! `CSegRemanenceShape` (a weapon trail) for nodes with USE_REMANENCE: what
//! `CExportNel::buildRemanence` (nel_mesh_lib/export_remanence.cpp) writes.
//!
//! The node must be a spline shape with exactly one curve of at least one
//! segment; each end of each segment (`InterpPiece3D` at 0 and 1, i.e. the
//! knots, seed S003 §10z-dix: "p0 is the knot point") becomes a corner, in the
//! node's own space (objectTM · inverse(nodeTM), the object offset). The
//! slice count, sampling period, roll-up ratio and texture shifting come from
//! the node's AppData with the plug-in's fallbacks; the material is the
//! node's single NeL material (more than one refuses the node, as the
//! plug-in does); with EXPORT_ANIMATED_MATERIALS the shape names it as its
//! animated material. The default tracks are decompMatrix of the local
//! matrix; the bounding box stays CSegRemanenceShape's constructor box (the
//! plug-in never sets it).
//!
//! The spline comes from the scene layer's shape evaluation: the stack above
//! it (which the plug-in's `EvalWorldState` would apply) is not evaluated on
//! splines, so a remanence node with modifiers is refused by name.

use thiserror::Error;

use super::material_build::{build_materials, MaterialSet};
use super::{decomp, local_matrix, material_base_named, number_textures_from, source};
use crate::nel::export::properties::NodeProperties;
use crate::nel::export::Context;
use crate::nel::shape::material::Material;
use crate::nel::shape::seg_remanence::SegRemanenceShape;
use crate::nel::shape::Shape;
use crate::nel::stream::{AaBox, Bool, Ptr, F32};
use maxfs_scene::eval::objects::shape::Spline;
use maxfs_scene::eval::Mat43;

/// CSegRemanenceShape stream version (2: default tracks).
const SEG_REMANENCE_VERSION: u32 = 2;
/// The plug-in's fallbacks (export_remanence.cpp).
pub const DEFAULT_SLICES: u32 = 2;
pub const DEFAULT_SAMPLING_PERIOD: f32 = 0.02;
pub const DEFAULT_ROLLUP_RATIO: f32 = 1.0;
/// CSegRemanenceShape's constructor box: centre 0, half size 3.
const CTOR_BOX_HALF_SIZE: f32 = 3.0;

/// Why a remanence node is not exported: the plug-in's NULL returns, or
/// what this exporter cannot evaluate.
#[derive(Debug, Error)]
pub enum RemanenceError {
    #[error("remanent segment: the node should have a single material, it has {0}")]
    NotOneMaterial(usize),
    #[error("remanent segment: material: {0}")]
    Material(String),
    #[error("remanent segment: can't get curves from a {0} (not a spline shape)")]
    NotAShape(String),
    #[error("remanent segment: the shape should contain one curve with at least one segment; it has {curves} curve(s), the first with {segments} segment(s)")]
    NotOneCurve { curves: usize, segments: usize },
    #[error("remanent segment: {0}: the shape's Bezier splines are not evaluated")]
    NoBezier(String),
    #[error("remanent segment: modifier {0} on the spline is not evaluated on shapes")]
    Modifier(String),
    #[error("remanent segment: shape: {0}")]
    Shape(#[source] maxfs_scene::eval::EvalError),
    #[error("remanent segment: REMANENCE_SLICE_NUMBER {0} is negative (the plug-in would store it as {n} slices)", n = *.0 as u32)]
    NegativeSlices(i32),
    #[error("remanent segment: {0} is not a number")]
    NotFinite(&'static str),
}

/// The trail parameters, after the plug-in's fallbacks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RemanenceParams {
    pub slices: u32,
    pub sampling_period: f32,
    pub rollup_ratio: f32,
    pub texture_shifting: bool,
}

impl RemanenceParams {
    /// REMANENCE_SLICE_NUMBER (≤ 2 → 2), REMANENCE_SAMPLING_PERIOD (≤ 0 →
    /// 0.02), REMANENCE_ROLLUP_RATIO (≤ 0 → 1), REMANENCE_SHIFTING_TEXTURE
    /// (≠ 0). A negative slice count, which the plug-in turns into an
    /// unsigned count of billions, and NaN values (which pass its `<= 0`
    /// tests and trip NeL's asserts) are refused.
    pub fn from_props(p: &NodeProperties) -> Result<RemanenceParams, RemanenceError> {
        if p.remanence_slice_number < 0 {
            return Err(RemanenceError::NegativeSlices(p.remanence_slice_number));
        }
        let finite = |v: f32, what| {
            if v.is_nan() {
                Err(RemanenceError::NotFinite(what))
            } else {
                Ok(v)
            }
        };
        let period = finite(p.remanence_sampling_period, "REMANENCE_SAMPLING_PERIOD")?;
        let rollup = finite(p.remanence_rollup_ratio, "REMANENCE_ROLLUP_RATIO")?;
        Ok(RemanenceParams {
            slices: (p.remanence_slice_number as u32).max(DEFAULT_SLICES),
            sampling_period: if period <= 0.0 {
                DEFAULT_SAMPLING_PERIOD
            } else {
                period
            },
            rollup_ratio: if rollup <= 0.0 {
                DEFAULT_ROLLUP_RATIO
            } else {
                rollup
            },
            texture_shifting: p.remanence_shifting_texture,
        })
    }
}

/// The corners of a spline: the start of the first segment, then the end of
/// each segment (a closed spline comes back to its first knot), placed by
/// `to_local` and converted to f32.
pub fn corners(spline: &Spline, to_local: &Mat43) -> Vec<[f32; 3]> {
    let n = spline.segments();
    (0..=n)
        .map(|k| {
            let p = if k == 0 {
                spline.segment(0)[0]
            } else {
                spline.segment(k - 1)[3]
            };
            let l = to_local.transform_point(p);
            [l.0 as f32, l.1 as f32, l.2 as f32]
        })
        .collect()
}

/// What a remanence shape is made of.
#[derive(Debug, Clone)]
pub struct RemanenceInputs {
    pub params: RemanenceParams,
    /// At least two corners (one segment).
    pub corners: Vec<[f32; 3]>,
    pub material: Material,
    /// The material's name, with EXPORT_ANIMATED_MATERIALS.
    pub animated_material: Option<String>,
    pub defaults: decomp::Defaults,
}

/// The shape, with its stream ids numbered (the shape is 1, then the
/// material's textures, then the animated material).
pub fn seg_remanence_shape(i: RemanenceInputs) -> SegRemanenceShape {
    let mut material = i.material;
    let next = number_textures_from(&mut material, 2);
    let animated_material = match i.animated_material {
        // setAnimatedMaterial: a CMaterialBase with its constructor defaults
        // and only the name set.
        Some(name) => Ptr::Obj {
            id: next,
            obj: Box::new(material_base_named(&name)),
        },
        None => Ptr::Null,
    };
    let d = i.defaults;
    SegRemanenceShape {
        version: SEG_REMANENCE_VERSION,
        num_slices: i.params.slices,
        slice_time: F32::from_f32(i.params.sampling_period),
        corners: i.corners.iter().map(|&c| c.into()).collect(),
        material,
        bbox: AaBox {
            version: 0,
            center: [0.0; 3].into(),
            half_size: [CTOR_BOX_HALF_SIZE; 3].into(),
        },
        texture_shifting: Bool(i.params.texture_shifting as u8),
        animated_material,
        roll_up_ratio: Some(F32::from_f32(i.params.rollup_ratio)),
        default_pos: Some(d.pos.into()),
        default_rot_quat: Some(d.rot.into()),
        default_scale: Some(d.scale.into()),
    }
}

/// `buildRemanence` for `node`.
pub fn build(ctx: &Context, node: usize) -> Result<Shape, RemanenceError> {
    inputs(ctx, node).map(|i| Shape::CSegRemanenceShape(seg_remanence_shape(i)))
}

/// Reads a remanence node's parameters, material and spline, with the
/// plug-in's refusals in its order (material first, then the curve).
pub fn inputs(ctx: &Context, node: usize) -> Result<RemanenceInputs, RemanenceError> {
    let props = ctx.props.node(node);
    let params = RemanenceParams::from_props(props)?;
    let MaterialSet {
        mut materials,
        infos,
        errors,
        ..
    } = build_materials(ctx, node);
    if materials.len() != 1 {
        return Err(RemanenceError::NotOneMaterial(materials.len()));
    }
    if let Some(e) = errors.into_iter().next() {
        return Err(RemanenceError::Material(e));
    }
    let material = materials.remove(0);
    let spline = node_spline(ctx, node)?;
    let corners = corners(&spline, &ctx.eval.offset_tm(node));
    let animated_material = props
        .export_animated_materials
        .then(|| infos.into_iter().next().map(|i| i.name))
        .flatten();
    Ok(RemanenceInputs {
        params,
        corners,
        material,
        animated_material,
        defaults: decomp::decompose(&local_matrix(ctx, node)),
    })
}

/// The node's one spline at time 0, or why there is none.
fn node_spline(ctx: &Context, node: usize) -> Result<Spline, RemanenceError> {
    let base = ctx
        .eval
        .node_object(node)
        .ok_or_else(|| RemanenceError::NotAShape("node without an object".into()))?;
    let Some(shape) = ctx.eval.shape(node, 0) else {
        return Err(RemanenceError::NotAShape(source::class_label(ctx, base)));
    };
    if let Some(&m) = source::modifiers(ctx, node).first() {
        return Err(RemanenceError::Modifier(source::class_label(ctx, m)));
    }
    let shape = shape.map_err(RemanenceError::Shape)?;
    let Some(bezier) = shape.shape.as_ref() else {
        return Err(RemanenceError::NoBezier(shape.class.clone()));
    };
    match bezier.splines.as_slice() {
        [one] if one.segments() > 0 => Ok(one.clone()),
        all => Err(RemanenceError::NotOneCurve {
            curves: all.len(),
            segments: all.first().map_or(0, Spline::segments),
        }),
    }
}
