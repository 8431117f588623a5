//! `CWaterShape` for nodes whose material is a NeL Material with `bWater`
//! on: what `CExportNel::buildWaterShape` (nel_mesh_lib/export_mesh.cpp)
//! writes. The surface is the convex hull of the node's vertices projected on
//! its local XY plane (NeL only renders convex water), the maps come from the
//! material's texture slots (1/2 env above water, 3/4 env under water, 5 bump,
//! 6 displace, 7 colour) and the scroll / scale / pool parameters from its
//! main block (seed S003 §10z: ids 0x09..0x12 of the main block).
//!
//! The shape is written as stream version 4, the version the plug-in era
//! wrote (seed S003 line 489: later trees write 7 and the exporter patched it
//! back to 4).

use thiserror::Error;

use super::material_build::{build_texture, NelParams};
use super::{decomp, local_matrix, source};
use crate::nel::export::Context;
use crate::nel::shape::material::{Texture, TextureBase, TextureBlend, TrackDefaultVector};
use crate::nel::shape::water::{Polygon2D, WaterShape};
use crate::nel::shape::Shape;
use crate::nel::stream::{Bool, Ptr, Vec2, F32};
use maxfs_scene::eval::render::material::{self as mtl, NEL_MATERIAL};

/// Bitmap texmap class (`BMTEX_CLASS_ID`): every water map must be one.
const BITMAP_TEX: [u32; 2] = [0x240, 0];
/// Vertices at most for `getBestTriplet`'s exhaustive O(n³) search.
pub const MAX_TRIPLET_VERTICES: usize = 600;
/// CWaterShape stream version the plug-in era wrote.
const WATER_SHAPE_VERSION: u32 = 4;

/// Why a water node is not exported (each is a NULL return of the plug-in,
/// or a part this exporter does not build).
#[derive(Debug, Error)]
pub enum WaterError {
    #[error("water shape: the node's material is not a single NeL material")]
    NotNelMaterial,
    #[error("water shape: texture slots 1 (env), 5 (bump) and 6 (displace) must be enabled (bEnableSlot_1/5/6)")]
    MissingSlots,
    #[error("water shape: {0} map (tTexture_{1}) is not a Bitmap texmap")]
    NotBitmap(&'static str, u32),
    #[error("water shape: bump map and displacement map are the same texture ({0})")]
    SameHeightMaps(String),
    #[error("water shape: material parameter {0} is not stored")]
    MissingParam(&'static str),
    #[error("water shape: diffuse map found, but the mesh has no mapping (map channel 1)")]
    ColorMapNoMapping,
    #[error("water shape: colour map: the mesh's map channel 1 is not evaluated ({0})")]
    ColorMapMissingChannel(String),
    #[error("water shape: colour map: vertex {0} has no texture vertex (channel 1 has {1}): the plug-in reads texture vertices by vertex index")]
    ColorMapTVertOutOfRange(usize, usize),
    #[error("water shape: colour map: {0}")]
    ColorMapPlacement(String),
    #[error(
        "water shape: colour map: the Bitmap's crop parameter {0} is not stored as a constant"
    )]
    ColorMapCrop(&'static str),
    #[error("water shape: colour map: the best vertex triplet of {0} vertices is searched exhaustively as NeL does; more than {MAX_TRIPLET_VERTICES} are not")]
    ColorMapTooManyVertices(usize),
    #[error(
        "water shape: colour map: the 3 best vertices are collinear in XY (no colour-map matrix)"
    )]
    ColorMapDegenerate,
    #[error("water shape: the convex hull needs at least 3 vertices, the mesh has {0}")]
    TooFewVertices(usize),
    #[error("water shape: mesh: {0}")]
    Mesh(#[source] Box<crate::error::ExportError>),
    #[error("water shape: mesh: convex hull: no next vertex (non-finite coordinates)")]
    HullNotFinite,
}

/// `hasWaterMaterial`: the node's material is a NeL Material (not a
/// Multi/Sub-Object) with `bWater` on.
pub fn has_water_material(ctx: &Context, node: usize) -> bool {
    mtl::node_material(ctx.graph, node)
        .and_then(|i| mtl::material(ctx.eval, i))
        .filter(|m| (m.class_id[0], m.class_id[1]) == NEL_MATERIAL)
        .is_some_and(|m| NelParams::of(ctx, &m).boolean("bWater", false))
}

/// `CPolygon2D::buildConvexHull`, step for step: start from the point of
/// lowest y, take the widest-angle pair around it, then wrap by the smallest
/// cosine between the previous edge and each remaining point (ties keep the
/// lowest index, as NeL's ordered set does).
///
/// Coincident points are merged first (the first occurrence kept): NeL's
/// wrap breaks on them — a null edge makes every candidate tie at cosine 0
/// and the outline can turn inwards (a Box's top and bottom project onto the
/// same corners). For inputs without them, the result is NeL's.
pub fn convex_hull(points: &[[f32; 2]]) -> Result<Vec<[f32; 2]>, WaterError> {
    let mut v: Vec<[f32; 2]> = Vec::with_capacity(points.len());
    let mut seen = std::collections::HashSet::new();
    for p in points {
        // -0.0 and 0.0 are the same point.
        let key = [(p[0] + 0.0).to_bits(), (p[1] + 0.0).to_bits()];
        if seen.insert(key) {
            v.push(*p);
        }
    }
    let n = v.len();
    if n < 3 {
        return Err(WaterError::TooFewVertices(n));
    }
    if n == 3 {
        return Ok(v);
    }
    let sub = |a: [f32; 2], b: [f32; 2]| [a[0] - b[0], a[1] - b[1]];
    // CVector2f::normed: a null vector stays null.
    let normed = |a: [f32; 2]| {
        let l = (a[0] * a[0] + a[1] * a[1]).sqrt();
        if l > 0.0 {
            [a[0] / l, a[1] / l]
        } else {
            a
        }
    };
    let dot = |a: [f32; 2], b: [f32; 2]| a[0] * b[0] + a[1] * b[1];
    let mut p_index = 0;
    for k in 1..n {
        if v[k][1] < v[p_index][1] {
            p_index = k;
        }
    }
    let p = v[p_index];
    let mut left: std::collections::BTreeSet<usize> = (0..n).collect();
    left.remove(&p_index);
    let mut best = 1.1f32;
    let (mut p1, mut p2) = (p_index, p_index);
    for k in (0..n).filter(|&k| k != p_index) {
        for l in (0..n).filter(|&l| l != p_index && l != k) {
            let c = dot(normed(sub(v[l], p)), normed(sub(v[k], p)));
            if c < best {
                p1 = l;
                p2 = k;
                best = c;
            }
        }
    }
    left.remove(&p2);
    let (mut prev, mut curr) = (p, v[p2]);
    let mut out = vec![v[p1], prev, curr];
    let mut step = 0usize;
    loop {
        let seg2 = normed(sub(prev, curr));
        let mut best = 1.1f32;
        let mut pick = None;
        for &i in &left {
            if step == 0 && i == p1 {
                continue;
            }
            let c = dot(normed(sub(v[i], curr)), seg2);
            if c < best {
                best = c;
                pick = Some(i);
            }
        }
        // NeL asserts a candidate exists; with NaN coordinates none does.
        let Some(i) = pick else {
            return Err(WaterError::HullNotFinite);
        };
        if i == p1 {
            return Ok(out);
        }
        prev = curr;
        curr = v[i];
        out.push(curr);
        step += 1;
        left.remove(&i);
    }
}

/// Whether a closed polygon is convex within `tol`: for every edge longer
/// than `tol`, every vertex lies on the inner side (the side of the
/// polygon's signed area) or within `tol` of the edge's line. A distance test
/// rather than turn signs, so near-coincident vertices (float noise in a
/// mesh) do not count as a dent.
pub fn is_convex(poly: &[[f32; 2]], tol: f64) -> bool {
    let n = poly.len();
    let p = |i: usize| [poly[i][0] as f64, poly[i][1] as f64];
    let area: f64 = (0..n)
        .map(|i| {
            let (a, b) = (p(i), p((i + 1) % n));
            a[0] * b[1] - b[0] * a[1]
        })
        .sum();
    let sign = if area < 0.0 { -1.0 } else { 1.0 };
    (0..n).all(|i| {
        let (a, b) = (p(i), p((i + 1) % n));
        let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
        let len = (ex * ex + ey * ey).sqrt();
        // An edge shorter than the tolerance has a noise direction.
        len <= tol
            || (0..n).all(|k| {
                let q = p(k);
                sign * (ex * (q[1] - a[1]) - ey * (q[0] - a[0])) / len >= -tol
            })
    })
}

/// Gives the maps of a water shape their stream ids in write order (the shape
/// is 1; env 0, env 1, bump 0, bump 1, colour, each depth first).
fn number_maps(w: &mut WaterShape) {
    fn walk(p: &mut Ptr<Texture>, next: &mut u64) {
        if let Ptr::Obj { id, obj } = p {
            *id = *next;
            *next += 1;
            if let Texture::CTextureBlend(b) = obj.as_mut() {
                for t in b.blend_tex.iter_mut() {
                    walk(t, next);
                }
            }
        }
    }
    let mut next = 2;
    for p in w.env_map.iter_mut().chain(w.bump_map.iter_mut()) {
        walk(p, &mut next);
    }
    walk(&mut w.color_map, &mut next);
}

/// The lowercase file name NeL shares a texture file by.
fn share_name(t: &Ptr<Texture>) -> Option<String> {
    match t.get() {
        Some(Texture::CTextureFile(f)) => Some(f.file_name.to_lowercase()),
        _ => None,
    }
}

/// `new CTextureBlend` with both textures set (blend factor 0, sharing on,
/// the ITexture defaults: repeat, auto format, trilinear).
fn blend(a: Ptr<Texture>, b: Ptr<Texture>) -> Ptr<Texture> {
    Ptr::Obj {
        id: 0,
        obj: Box::new(Texture::CTextureBlend(TextureBlend {
            version: 0,
            base: TextureBase::new_texture(),
            blend_tex: [a, b],
            sharing_enabled: Bool(1),
            blend_factor: 0,
        })),
    }
}

fn v2(u: f32, v: f32) -> Vec2 {
    Vec2 {
        u: F32::from_f32(u),
        v: F32::from_f32(v),
    }
}

/// What a water shape is made of, gathered from the node and its material.
#[derive(Debug, Clone)]
pub struct WaterInputs {
    /// The node's vertices in its own space (object offset applied).
    pub vertices: Vec<[f32; 3]>,
    /// Env map above water (slot 1) and its night partner (slot 2).
    pub env: (Ptr<Texture>, Option<Ptr<Texture>>),
    /// Env map under water (slot 3) and its partner (slot 4).
    pub env_under: Option<(Ptr<Texture>, Option<Ptr<Texture>>)>,
    /// Slot 6 (displacement) and slot 5 (bump).
    pub displace: Ptr<Texture>,
    pub bump: Ptr<Texture>,
    /// fDisplaceMapU/VScale, fDisplaceMapU/VSpeed, fBumpU/VScale, fBumpU/VSpeed.
    pub displace_scale: [f32; 2],
    pub displace_speed: [f32; 2],
    pub bump_scale: [f32; 2],
    pub bump_speed: [f32; 2],
    pub height_factor: f32,
    pub pool_id: u32,
    pub splash: bool,
    pub scene_env_map: [bool; 2],
    /// decompMatrix of the local matrix at time 0.
    pub defaults: decomp::Defaults,
    /// NEL3D_APPDATA_LOD_DIST_MAX.
    pub dist_max: f32,
    /// The diffuse colour map (slot 7), when the material has one.
    pub color_map: Option<ColorMapInputs>,
}

/// What the colour-map matrix is computed from.
#[derive(Debug, Clone)]
pub struct ColorMapInputs {
    pub texture: Ptr<Texture>,
    /// The mesh's texture vertices (map channel 1), which the plug-in reads
    /// by vertex index (`Mesh::getTVert(i)`).
    pub tverts: Vec<[f32; 3]>,
    /// The texmap's UV transform (`GetUVTransform`), rows applied to (u, v, w, 1).
    pub uv_matrix: [[f32; 3]; 4],
    /// Bitmap crop (u, v, w, h) when "apply" is on, else (0, 0, 1, 1).
    pub crop: [f32; 4],
}

/// The Bitmap's crop as buildWaterShape reads it: "apply" (block 0 param 6),
/// then "clipu", "clipv", "clipw", "cliph" (params 0..3) when it is on.
fn bitmap_crop(ctx: &Context, texmap: usize) -> Result<[f32; 4], WaterError> {
    use maxfs_scene::eval::core::pblock::{self, Value};
    let block = ctx.graph.objects.get(texmap).and_then(|o| {
        o.references
            .iter()
            .filter_map(|r| usize::try_from(r.target).ok())
            .filter_map(|t| pblock::param_block2(ctx.eval.chunks(t)).ok())
            .find(|pb| pb.block_id == 0)
    });
    let value = |id: u16| {
        block
            .as_ref()
            .and_then(|b| b.param(id))
            .map(|p| p.value.clone())
    };
    let apply = match value(6) {
        Some(Value::Bool(b)) => b,
        Some(Value::Int(i)) => i != 0,
        _ => return Err(WaterError::ColorMapCrop("apply")),
    };
    if !apply {
        return Ok([0.0, 0.0, 1.0, 1.0]);
    }
    let mut out = [0.0f32; 4];
    for (k, name) in ["clipu", "clipv", "clipw", "cliph"].into_iter().enumerate() {
        out[k] = match value(k as u16) {
            Some(Value::Float(f)) => f,
            _ => return Err(WaterError::ColorMapCrop(name)),
        };
    }
    Ok(out)
}

/// `CPolygon2D::getBestTriplet`: the first (i, j, k) in loop order whose
/// triangle has the largest area (|cross| in f32, strictly greater wins).
pub fn best_triplet(pts: &[[f32; 2]]) -> Result<[usize; 3], WaterError> {
    let n = pts.len();
    if n > MAX_TRIPLET_VERTICES {
        return Err(WaterError::ColorMapTooManyVertices(n));
    }
    let mut best = 0.0f32;
    let mut out = None;
    for i in 0..n {
        for j in (0..n).filter(|&j| j != i) {
            let v0 = [pts[j][0] - pts[i][0], pts[j][1] - pts[i][1]];
            for k in (0..n).filter(|&k| k != i && k != j) {
                let v1 = [pts[k][0] - pts[i][0], pts[k][1] - pts[i][1]];
                // (v0, 0) ^ (v1, 0) has only a z part; norm() = |z|.
                let area = (v0[0] * v1[1] - v0[1] * v1[0]).abs();
                if area > best {
                    best = area;
                    out = Some([i, j, k]);
                }
            }
        }
    }
    out.ok_or(WaterError::ColorMapDegenerate)
}

/// The colour-map matrix of buildWaterShape: B = C · A⁻¹ where A's columns
/// are the best triplet's node-space (x, y, 1) and C's their texture
/// coordinates through the UV transform, V flipped and cropped
/// (u·w + cu, (1 − v)·h + cv, 1); returns B's first two rows of columns
/// I, J, K (`setColorMapMat(B.getI().xy, B.getJ().xy, B.getK().xy)`).
pub fn color_map_matrix(
    vertices: &[[f32; 3]],
    c: &ColorMapInputs,
) -> Result<[[f32; 2]; 3], WaterError> {
    if c.tverts.is_empty() {
        return Err(WaterError::ColorMapNoMapping);
    }
    let xy: Vec<[f32; 2]> = vertices.iter().map(|v| [v[0], v[1]]).collect();
    let idx = best_triplet(&xy)?;
    let m = &c.uv_matrix;
    let mut uv = [[0.0f32; 2]; 3];
    for (s, &i) in idx.iter().enumerate() {
        let t = c
            .tverts
            .get(i)
            .ok_or(WaterError::ColorMapTVertOutOfRange(i, c.tverts.len()))?;
        // Point3 * Matrix3 (row vector).
        let u = t[0] * m[0][0] + t[1] * m[1][0] + t[2] * m[2][0] + m[3][0];
        let v = t[0] * m[0][1] + t[1] * m[1][1] + t[2] * m[2][1] + m[3][1];
        let [cu, cv, cw, ch] = c.crop;
        uv[s] = [u * cw + cu, (1.0 - v) * ch + cv];
    }
    // B maps each point's (x, y, 1) to its (u, v, 1): per output row, solve
    // α·x + β·y + γ = w at the three points (Cramer's rule, in f64: NeL
    // inverts A in f32, the difference is float noise). B's columns I, J, K
    // are (α, β, γ) of the u and v rows.
    let [(x0, y0), (x1, y1), (x2, y2)] = idx.map(|i| (xy[i][0] as f64, xy[i][1] as f64));
    let det = x0 * (y1 - y2) - y0 * (x1 - x2) + (x1 * y2 - x2 * y1);
    if det == 0.0 || !det.is_finite() {
        return Err(WaterError::ColorMapDegenerate);
    }
    let mut out = [[0.0f32; 2]; 3];
    for row in 0..2 {
        let [w0, w1, w2] = uv.map(|t| t[row] as f64);
        let alpha = w0 * (y1 - y2) - y0 * (w1 - w2) + (w1 * y2 - w2 * y1);
        let beta = x0 * (w1 - w2) - w0 * (x1 - x2) + (x1 * w2 - x2 * w1);
        let gamma = x0 * (y1 * w2 - y2 * w1) - y0 * (x1 * w2 - x2 * w1) + w0 * (x1 * y2 - x2 * y1);
        out[0][row] = (alpha / det) as f32;
        out[1][row] = (beta / det) as f32;
        out[2][row] = (gamma / det) as f32;
    }
    Ok(out)
}

/// `buildWaterShape` for `node`.
pub fn build(ctx: &Context, node: usize) -> Result<Shape, WaterError> {
    water_shape(inputs(ctx, node)?).map(Shape::CWaterShape)
}

/// Reads a water node's material and mesh, with the plug-in's refusals.
pub fn inputs(ctx: &Context, node: usize) -> Result<WaterInputs, WaterError> {
    let top = mtl::node_material(ctx.graph, node)
        .and_then(|i| mtl::material(ctx.eval, i))
        .filter(|m| (m.class_id[0], m.class_id[1]) == NEL_MATERIAL)
        .ok_or(WaterError::NotNelMaterial)?;
    let p = NelParams::of(ctx, &top);
    let enabled = |k: u32| p.boolean(&format!("bEnableSlot_{k}"), false);
    if !(enabled(1) && enabled(5) && enabled(6)) {
        return Err(WaterError::MissingSlots);
    }
    let map = |k: u32| p.texmap(&format!("tTexture_{k}"));
    let is_bitmap = |t: usize| {
        ctx.graph
            .class(t)
            .is_some_and(|c| [c.class_id.0, c.class_id.1] == BITMAP_TEX)
    };
    let required = |what: &'static str, k: u32| match map(k) {
        Some(t) if is_bitmap(t) => Ok(t),
        _ => Err(WaterError::NotBitmap(what, k)),
    };
    let displace = required("displace", 6)?;
    let bump = required("bump", 5)?;
    let env = required("env", 1)?;
    // Optional maps are checked only when their slot is enabled, but used
    // whenever present (export_mesh.cpp: the blend wraps slot 2 regardless of
    // its enable flag).
    let optional = |what: &'static str, k: u32| -> Result<Option<usize>, WaterError> {
        match map(k) {
            Some(t) if enabled(k) && !is_bitmap(t) => Err(WaterError::NotBitmap(what, k)),
            m => Ok(m),
        }
    };
    let diffuse = optional("diffuse", 7)?;
    let env2 = optional("refraction", 2)?;
    let under = optional("specular", 3)?;
    let under2 = optional("opacity", 4)?;
    let tex = |t: usize| build_texture(ctx, t).0;
    let float = |name: &'static str| p.float(name).ok_or(WaterError::MissingParam(name));
    if p.get("iWaterPoolID").is_none() {
        return Err(WaterError::MissingParam("iWaterPoolID"));
    }
    let mesh = source::node_mesh(ctx, node, None).map_err(|e| WaterError::Mesh(Box::new(e)))?;
    let to_local = ctx.eval.offset_tm(node);
    let vertices: Vec<[f32; 3]> = mesh
        .vertices
        .iter()
        .map(|&v| {
            let l = to_local.transform_point(v);
            [l.0 as f32, l.1 as f32, l.2 as f32]
        })
        .collect();
    let color_map = match diffuse {
        None => None,
        Some(t) => {
            let (texture, desc) = build_texture(ctx, t);
            if let Some(why) = desc.refused {
                return Err(WaterError::ColorMapPlacement(why));
            }
            if let Some(m) = mesh
                .missing_maps
                .iter()
                .find(|m| m.channel.is_none_or(|c| c == 1))
            {
                return Err(WaterError::ColorMapMissingChannel(m.describe()));
            }
            let tverts = mesh
                .maps
                .iter()
                .find(|m| m.channel == 1)
                .map(|m| m.vertices.clone())
                .unwrap_or_default();
            Some(ColorMapInputs {
                texture,
                tverts,
                uv_matrix: desc.uv_matrix,
                crop: bitmap_crop(ctx, t)?,
            })
        }
    };
    Ok(WaterInputs {
        vertices,
        color_map,
        env: (tex(env), env2.map(tex)),
        env_under: under.map(|u| (tex(u), under2.map(tex))),
        displace: tex(displace),
        bump: tex(bump),
        displace_scale: [float("fDisplaceMapUScale")?, float("fDisplaceMapVScale")?],
        displace_speed: [float("fDisplaceMapUSpeed")?, float("fDisplaceMapVSpeed")?],
        bump_scale: [float("fBumpUScale")?, float("fBumpVScale")?],
        bump_speed: [float("fBumpUSpeed")?, float("fBumpVSpeed")?],
        height_factor: p.float("fWaterHeightFactor").unwrap_or(1.0),
        pool_id: p.int("iWaterPoolID", 0) as u32,
        splash: p.boolean("bEnableWaterSplash", true),
        scene_env_map: [
            p.boolean("bWaterUseSceneEnvMapAbove", false),
            p.boolean("bWaterUseSceneEnvMapUnder", false),
        ],
        defaults: decomp::decompose(&local_matrix(ctx, node)),
        dist_max: ctx.props.node(node).lod_dist_max,
    })
}

/// The `CWaterShape` of gathered inputs: hull of the XY projection, maps
/// (a second env map wraps both in a `CTextureBlend`, the day/night pair),
/// height map 0 = displacement and 1 = bump, default tracks.
pub fn water_shape(i: WaterInputs) -> Result<WaterShape, WaterError> {
    if let (Some(a), Some(b)) = (share_name(&i.bump), share_name(&i.displace)) {
        if a == b {
            return Err(WaterError::SameHeightMaps(a));
        }
    }
    // The fixed projection matrix keeps x and y.
    let projected: Vec<[f32; 2]> = i.vertices.iter().map(|v| [v[0], v[1]]).collect();
    let hull = convex_hull(&projected)?;
    // CWaterShape's constructor matrix (identity columns) unless a colour
    // map sets it.
    let (color_map, cm) = match &i.color_map {
        None => (Ptr::Null, [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]),
        Some(c) => (c.texture.clone(), color_map_matrix(&i.vertices, c)?),
    };
    let pair = |(a, b): (Ptr<Texture>, Option<Ptr<Texture>>)| match b {
        None => a,
        Some(b) => blend(a, b),
    };
    let d = i.defaults;
    let vec3 = TrackDefaultVector::from;
    let vv = |a: [f32; 2]| v2(a[0], a[1]);
    let mut w = WaterShape {
        version: WATER_SHAPE_VERSION,
        poly: Polygon2D {
            version: 0,
            vertices: hull.iter().map(|&q| vv(q)).collect(),
        },
        water_pool_id: i.pool_id,
        env_map: [pair(i.env), i.env_under.map_or(Ptr::Null, pair)],
        bump_map: [i.displace, i.bump],
        color_map,
        height_map_scale: [vv(i.displace_scale), vv(i.bump_scale)],
        height_map_speed: [vv(i.displace_speed), vv(i.bump_speed)],
        color_map_mat_column0: vv(cm[0]),
        color_map_mat_column1: vv(cm[1]),
        color_map_mat_pos: vv(cm[2]),
        default_pos: vec3(d.pos),
        default_scale: vec3(d.scale),
        default_rot_quat: d.rot.into(),
        // CWaterShape's constructor value; the plug-in does not set it.
        transition_ratio: F32::from_f32(0.6),
        wave_height_factor: F32::from_f32(i.height_factor),
        compute_lightmap: Some(Bool(0)),
        // buildShape sets LOD_DIST_MAX on every single shape.
        dist_max: Some(F32::from_f32(i.dist_max)),
        splash_enabled: Some(Bool(i.splash as u8)),
        uses_scene_water_env_map: Some(i.scene_env_map.map(|b| Bool(b as u8))),
    };
    number_maps(&mut w);
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hull_of_a_square_with_an_inner_point() {
        let pts = [[0.0, 0.0], [1.0, 0.0], [0.5, 0.5], [1.0, 1.0], [0.0, 1.0]];
        let h = convex_hull(&pts).expect("hull");
        assert_eq!(h.len(), 4, "{h:?}");
        assert!(is_convex(&h, 0.0));
        assert!(!h.contains(&[0.5, 0.5]));
    }

    #[test]
    fn hull_refuses_degenerate_input() {
        assert_eq!(
            convex_hull(&[[0.0, 0.0]]).map_err(|e| e.to_string()),
            Err(WaterError::TooFewVertices(1).to_string())
        );
        let nan = [[f32::NAN; 2]; 5];
        assert!(convex_hull(&nan).is_err());
    }

    #[test]
    fn convexity_check() {
        assert!(is_convex(
            &[[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]],
            0.0
        ));
        let dent = [[0.0, 0.0], [2.0, 0.0], [1.0, 0.5], [2.0, 2.0], [0.0, 2.0]];
        assert!(!is_convex(&dent, 1e-6));
        // A dent of 1e-6 is noise at a tolerance of 1e-5.
        let noise = [
            [0.0, 0.0],
            [2.0, 0.0],
            [2.0 - 1e-6, 1.0],
            [2.0, 2.0],
            [0.0, 2.0],
        ];
        assert!(is_convex(&noise, 1e-5) && !is_convex(&noise, 1e-9));
    }
}
