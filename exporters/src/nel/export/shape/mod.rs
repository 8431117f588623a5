//! `.shape` export: what the NeL plug-in's `CExportNel::buildShape` writes for
//! each node the shape export script selects (export_mesh.cpp): a `CMesh`
//! built from the node's mesh and materials, with the node's local transform
//! as default tracks and its vertices in the node's own space.
//!
//! Skinned meshes (Skin modifier) are built in world space with matrix blocks.
//! LOD sets become `CMeshMultiLod` (multilod.rs) and LOD_MRM nodes progressive
//! meshes (`CMeshMRM` / `CMeshMRMSkinned`, mrm_geom.rs). Shape kinds the
//! plug-in builds from other data (particle systems, wave makers) are
//! refused per node with the reason; USE_REMANENCE nodes become
//! `CSegRemanenceShape` (remanence_build.rs), water nodes `CWaterShape`
//! (water_build.rs), nel_flare nodes `CFlareShape` (flare_build.rs). Nodes whose geometry the scene layer cannot evaluate
//! are refused the same way.

pub mod decomp;
pub mod flare_build;
pub mod geom_build;
pub mod material_build;
pub mod mesh_build;
pub mod morph_build;
pub mod mrm_build;
pub mod mrm_geom;
pub mod multilod;
pub mod nel_params;
pub mod remanence_build;
pub mod skin_build;
pub mod source;
pub mod stripify;
pub mod uv_matrix;
pub mod vertex_format;
pub mod water_build;

use maxfs_scene::eval::modifier::skin::Skin;
use maxfs_scene::eval::objects::normals::{Weighting, MAX5_SCENE_VERSION};
use maxfs_scene::eval::Mat43;

use super::properties::NodeProperties;
use super::{select, skinning, Context, ExportKind, Exports, Output};
use crate::error::{ExportError, ExportResult};
use crate::nel::shape::material::{Material, MaterialBase, TrackDefaultVector};
use crate::nel::shape::mesh::{Mesh as NelMesh, MeshBase, MeshVertexProgram, MeshVpWindTree};
use crate::nel::shape::mrm::{MeshMrm, MeshMrmGeom, MeshMrmSkinned, MeshMrmSkinnedGeom};
use crate::nel::shape::{Shape, ShapeStream};
use crate::nel::stream::{Bool, Ptr, Rgba, F32};
use crate::nel::{write_nel, NelFile};

/// Class ids the plug-in dispatches on before meshes (export_nel.h).
const NEL_PARTICLE_SYSTEM_A: u32 = 0x58ce_2893;
const NEL_WAVE_MAKER_A: u32 = 0x77e2_4828;
const NEL_FLARE_A: u32 = 0x4e91_3532;
/// Skin and Physique modifiers (skinning comes from them). The Skin id is the
/// one stored in the corpus files (sources-index.md gives 0x0095c6a3).
const SKIN: (u32, u32) = (0x0095_c723, 0x0001_5666);
const PHYSIQUE: (u32, u32) = (0x100, 0);
const PHYSIQUE_SUPERCLASS: u32 = 0x810;
/// CMeshBase version the references carry (NeL writes 10 and the export tools
/// patch it back to 9, S:312; versions 9 and 10 have the same fields).
const MESH_BASE_VERSION: u32 = 9;
/// The export scripts run the plug-in at time 0.
const TIME_ZERO: i32 = 0;

/// Which NeL/Max generation exported a file. The reference exports were made
/// by the Max that saved the file; Max 3/4-era files (2000-2002) went through
/// a Max whose render normals are unweighted and a NeL whose stripifier
/// chooses by cache misses alone (both measured on the street references);
/// later files get the current behaviour (measured on Max 2010 references).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Era {
    Legacy,
    Current,
}

impl Era {
    pub fn of(ctx: &Context) -> Era {
        if ctx.graph.version < MAX5_SCENE_VERSION {
            Era::Legacy
        } else {
            Era::Current
        }
    }
}

/// Appends one `.shape` per exported node, and an error for each node that
/// cannot be exported.
pub fn export(ctx: &Context, out: &mut Exports) {
    for sel in select::shape_nodes(ctx) {
        let node_name = node_name(ctx, sel.node);
        match shape_bytes(ctx, sel.node) {
            Ok(bytes) => {
                out.outputs.push(Output {
                    kind: ExportKind::Shape,
                    with_coarse_mesh: sel.with_coarse_mesh,
                    name: sel.name,
                    bytes,
                });
                // Written, but without what the plug-in adds there: named
                // so the file is partial.
                for gap in gaps(ctx, sel.node) {
                    out.push_error(ExportKind::Shape, &node_name, gap);
                }
            }
            Err(reason) => out.push_error(ExportKind::Shape, &node_name, reason),
        }
    }
}

/// What a written shape lacks that the plug-in would have done: a map
/// channel a texture-coordinate modifier was not evaluated for, the
/// interface-mesh border weld (INTERFACE_FILE), which the seed's exporter
/// also skips with a warning (S:568); the shape is written without it.
pub fn gaps(ctx: &Context, node: usize) -> Vec<String> {
    let props = ctx.props.node(node);
    let mut out = Vec::new();
    if !morph_build::targets(ctx, node).is_empty() {
        out.extend(morph_build::gaps(ctx, node));
    }
    // A channel a map modifier should have written: the shape's texture
    // coordinates that read it are 0, its vertex colours white.
    if let Some(Ok(mesh)) = ctx.eval.mesh(node, 0) {
        for r in &mesh.missing_maps {
            let what = match r.channel {
                Some(0) => "vertex colours read from it are white",
                _ => "texture coordinates read from it are 0",
            };
            out.push(format!("exported without {}: {what}", r.describe()));
        }
        if let Some(r) = &mesh.missing_normals {
            out.push(format!(
                "exported without {}: smoothing-group normals instead",
                r.describe()
            ));
        }
        for r in &mesh.missing_parts {
            out.push(format!("exported without {}", r.describe()));
        }
    }
    for m in material_build::pbr_only(ctx, node) {
        out.push(format!(
            "exported without the colours of its {m}: the NeL plug-in's material rules read Standard colours only, so the NeL material has their defaults"
        ));
    }
    if !props.interface_file.is_empty() {
        out.push(format!(
            "exported without its mesh interface (INTERFACE_FILE {:?}): border vertices are not welded and their normals not taken from the interface",
            props.interface_file
        ));
    }
    out
}

fn class_of(ctx: &Context, obj: usize) -> Option<((u32, u32), u32)> {
    let c = ctx.graph.objects.get(obj)?.class.as_ref()?;
    Some(((c.class_id.0, c.class_id.1), c.super_class))
}

/// The serialized shape of one node, or why the node is not exported.
pub fn shape_bytes(ctx: &Context, node: usize) -> ExportResult<Vec<u8>> {
    stream_bytes(build_shape(ctx, node, None)?)
}

/// The shape of skinned `node` with its weights taken from `skin` (a Skin
/// modifier's, or a Physique's through `Physique::to_skin`) instead of its
/// stack's topmost skinning modifier: both modifiers go through this one path.
pub fn skinned_shape_bytes(ctx: &Context, node: usize, skin: Skin) -> ExportResult<Vec<u8>> {
    stream_bytes(build_shape(ctx, node, Some(skin))?)
}

fn stream_bytes(shape: Shape) -> ExportResult<Vec<u8>> {
    let stream = ShapeStream {
        shape: Ptr::Obj {
            id: 1,
            obj: Box::new(shape),
        },
    };
    write_nel(&NelFile::Shape(stream)).map_err(ExportError::Write)
}

/// Refuses the shape kinds this exporter does not build, in the plug-in's
/// dispatch order.
fn check_kind(
    ctx: &Context,
    node: usize,
    props: &NodeProperties,
    over: Option<&Skin>,
) -> ExportResult<()> {
    if let Some(obj) = ctx.eval.node_object(node) {
        if let Some(((a, _), _)) = class_of(ctx, obj) {
            if a == NEL_PARTICLE_SYSTEM_A {
                return Err(ExportError::refused(
                    "NeL particle systems (nel_ps) are not exported as shapes",
                ));
            }
            if a == NEL_WAVE_MAKER_A {
                return Err(ExportError::refused("NeL wave makers are not exported"));
            }
        }
        if props.use_remanence {
            // build_shape dispatches remanence (remanence_build.rs).
            return Ok(());
        }
        if let Some(((a, _), _)) = class_of(ctx, obj) {
            if a == NEL_FLARE_A {
                // build_shape dispatches flares (flare_build.rs).
                return Ok(());
            }
        }
    }
    // Water comes next in buildShape's order, before anything mesh-specific
    // (skinning included): build_shape dispatches it.
    if water_build::has_water_material(ctx, node) {
        return Ok(());
    }
    if let Some(m) = skin_modifier(ctx, node) {
        match skin_input(ctx, node, over) {
            Some(Ok(_)) => {}
            Some(Err(e)) => {
                return Err(e.within(format!("skinned mesh ({})", source::class_label(ctx, m))))
            }
            None => {
                return Err(ExportError::refused(format!(
                    "skinned mesh ({}): skin weights are not decoded",
                    source::class_label(ctx, m)
                )))
            }
        }
    }
    Ok(())
}

/// `GetINodeByName` for a LOD slave name: the first node in tree order with
/// that name, case ignored as Max does.
pub(super) fn select_lod_node(ctx: &Context, name: &str) -> Option<usize> {
    select::tree_order(ctx.graph).into_iter().find(|&i| {
        ctx.graph
            .objects
            .get(i)
            .and_then(|o| o.node.as_ref())
            .is_some_and(|n| n.name.eq_ignore_ascii_case(name))
    })
}

/// The node's Skin or Physique modifier, if any.
pub fn skin_modifier(ctx: &Context, node: usize) -> Option<usize> {
    source::modifiers(ctx, node).into_iter().find(|&m| {
        class_of(ctx, m)
            .is_some_and(|(cid, sc)| cid == SKIN || (cid == PHYSIQUE && sc == PHYSIQUE_SUPERCLASS))
    })
}

/// Skinning input: per Max vertex up to four (skeleton bone id, weight)
/// pairs and the bone names, from the node's Skin modifier (skinning.rs).
/// The mesh build carries them (`MeshBuild::skin`) to the skinned geometry
/// build (`skin_build`, NeL's `CMeshGeom::buildSkin`).
pub fn skin_input(
    ctx: &Context,
    node: usize,
    over: Option<&Skin>,
) -> Option<ExportResult<mesh_build::SkinInput>> {
    let binding = match over {
        Some(s) => skinning::binding(ctx, node, s.clone()),
        None => skinning::node_skin(ctx, node)?,
    };
    let binding = match binding {
        Ok(b) => b,
        Err(e) => return Some(Err(e)),
    };
    let weights = binding
        .weights
        .iter()
        .map(|w| std::array::from_fn(|k| (w.matrix_id[k], w.weight[k])))
        .collect();
    Some(Ok(mesh_build::SkinInput {
        weights,
        bones: binding.bone_names,
    }))
}

fn build_shape(ctx: &Context, node: usize, over: Option<Skin>) -> ExportResult<Shape> {
    let props = ctx.props.node(node);
    check_kind(ctx, node, props, over.as_ref())?;
    // buildShape's order: particle system, wave maker (refused above), then
    // remanence, flare, water.
    if props.use_remanence {
        return Ok(remanence_build::build(ctx, node)?);
    }
    if let Some(obj) = ctx.eval.node_object(node) {
        if class_of(ctx, obj).is_some_and(|((a, _), _)| a == NEL_FLARE_A) {
            return Ok(flare_build::build(ctx, node, obj)?);
        }
    }
    if water_build::has_water_material(ctx, node) {
        return Ok(water_build::build(ctx, node)?);
    }
    // A skinned mesh is exported with its Skin disabled: the stack below it.
    let skin_mod = skin_modifier(ctx, node);
    // Morpher targets become blend shapes on the single-CMesh path only.
    let morph_targets = morph_build::targets(ctx, node);
    if !morph_targets.is_empty() && (props.lod_mrm || !props.lod_names.is_empty()) {
        return Err(ExportError::refused(
            "Morpher blend shapes on LOD_MRM or multi-LOD meshes (CMeshMRM) are not built",
        ));
    }
    let mesh = if morph_targets.is_empty() {
        source::node_mesh(ctx, node, skin_mod)?
    } else {
        source::node_mesh_morphed(ctx, node, skin_mod)?
    };
    let mats = material_build::build_materials(ctx, node);
    if let Some(e) = mats.errors.first() {
        return Err(ExportError::refused(e.clone()));
    }
    if mats.needs_vp {
        return Err(ExportError::refused(
            "per-pixel lighting materials (NeL shader 7/8) are not exported",
        ));
    }
    if !props.lod_names.is_empty() {
        if skin_mod.is_some() {
            return Err(ExportError::refused(
                "skinned multi-LOD meshes are not exported",
            ));
        }
        return multilod::build(ctx, node, Era::of(ctx));
    }
    if props.radial_normal_sm.iter().any(|s| !s.is_empty()) {
        return Err(ExportError::refused(
            "radial normals (RADIAL_NORMAL_SM_*) are not exported",
        ));
    }
    let vp_id = props.vertex_program_id;
    if vp_id != 0 && vp_id != 1 {
        return Err(ExportError::invalid(format!(
            "unknown vertex program id {vp_id}"
        )));
    }
    let mut mats = mats;
    if vp_id == 1 {
        mats.need_vertex_color = true;
    }
    // Vertices go to the node's space (the object offset), or to world space
    // for a skinned mesh (the skeleton places it).
    let to_node = match skin_mod {
        Some(_) => ctx.eval.object_tm(node, TIME_ZERO),
        None => ctx.eval.offset_tm(node),
    };
    let era = Era::of(ctx);
    let weighting = Weighting::of_scene_version(ctx.graph.version);
    let mut build = mesh_build::build(&mesh, &to_node, &mats, vp_id == 1, weighting)?;
    if skin_mod.is_some() {
        build.skin = skin_input(ctx, node, over.as_ref()).and_then(Result::ok);
    }
    let nmat = mats.materials.len();
    let wind = |vp: bool| {
        vp.then(|| Ptr::Obj {
            id: 0,
            obj: Box::new(MeshVertexProgram::CMeshVPWindTree(wind_tree(props))),
        })
    };
    // NEL3D_APPDATA_LOD_MRM: a progressive mesh, CMeshMRMSkinned when the
    // skinned mesh fits its packed format, CMeshMRM otherwise.
    let (mut geom, used) = if props.lod_mrm {
        let settings = mrm_geom::settings(props)?;
        if mrm_geom::skinned_compatible(&build) && vp_id != 1 {
            let b = mrm_geom::build_skinned(&build, nmat, &settings, era)?;
            (Geom::MrmSkinned(b.geom), b.used)
        } else {
            let mut b = mrm_geom::build_geom(&build, nmat, &settings, era)?;
            if let Some(vp) = wind(vp_id == 1) {
                b.geom.vertex_program = Some(vp);
            }
            (Geom::Mrm(b.geom), b.used)
        }
    } else {
        let built = geom_build::build(&build, nmat, era)?;
        let mut g = built.geom;
        if let Some(vp) = wind(vp_id == 1) {
            g.vertex_program = Some(vp);
        }
        if !morph_targets.is_empty() {
            let shapes = morph_build::blend_shapes(
                ctx,
                node,
                &build,
                &built.corner_vb,
                skin_mod.is_some(),
                weighting,
            );
            if let Some(m) = g.morpher.as_mut() {
                m.blend_shapes = shapes;
            }
        }
        (Geom::Mesh(g), built.used)
    };
    // optimizeMaterialUsage: drop unused materials, renumber the passes.
    let is_lightable = mats
        .materials
        .iter()
        .any(|m| m.shader_type != material_build::shader::LIGHT_MAP);
    let mut remap = vec![u32::MAX; nmat];
    let mut materials = Vec::new();
    for (i, m) in mats.materials.iter().cloned().enumerate() {
        if used.get(i).copied().unwrap_or(false) {
            remap[i] = materials.len() as u32;
            materials.push(m);
        }
    }
    geom.remap_materials(&remap);
    // EXPORT_ANIMATED_MATERIALS: every kept material with a name gets its
    // animation defaults (after optimizeMaterialUsage, keyed by the new id).
    let mut animated_materials: Vec<(u32, MaterialBase)> = Vec::new();
    if props.export_animated_materials {
        for (i, info) in mats.infos.iter().enumerate() {
            let Some(&dst) = remap.get(i).filter(|&&r| r != u32::MAX) else {
                continue;
            };
            if let (Some(m), false) = (materials.get(dst as usize), info.name.is_empty()) {
                animated_materials.push((dst, animated_material(&info.name, m)));
            }
        }
        animated_materials.sort_by_key(|(id, _)| *id);
    }
    let mut base = mesh_base(ctx, node, props, materials, is_lightable, !mats.needs_vp);
    base.animated_materials = animated_materials;
    base.animated_morph = morph_build::animated_morph(ctx, node);
    base.dist_max = Some(F32::from_f32(props.lod_dist_max));
    Ok(match geom {
        Geom::Mesh(mut g) => {
            number_pointers(&mut base, std::iter::once(&mut g));
            Shape::CMesh(NelMesh {
                version: 6,
                base: Some(base),
                geom: Some(g),
                old: None,
            })
        }
        Geom::Mrm(mut g) => {
            let next = number_pointers(&mut base, std::iter::empty());
            if let Some(Ptr::Obj { id, .. }) = g.vertex_program.as_mut() {
                *id = next;
            }
            Shape::CMeshMRM(MeshMrm {
                version: 0,
                base,
                geom: g,
            })
        }
        Geom::MrmSkinned(g) => {
            number_pointers(&mut base, std::iter::empty());
            Shape::CMeshMRMSkinned(MeshMrmSkinned {
                version: 0,
                base,
                geom: g,
            })
        }
    })
}

/// The geometry a single-node shape carries.
enum Geom {
    Mesh(crate::nel::shape::mesh::MeshGeom),
    Mrm(MeshMrmGeom),
    MrmSkinned(MeshMrmSkinnedGeom),
}

impl Geom {
    /// Renumbers every render pass's material through `remap` (old → new).
    fn remap_materials(&mut self, remap: &[u32]) {
        let apply = |id: &mut u32| {
            if let Some(&r) = remap.get(*id as usize) {
                *id = r;
            }
        };
        match self {
            Geom::Mesh(g) => g
                .matrix_blocks
                .iter_mut()
                .flat_map(|b| b.rdr_pass.iter_mut())
                .for_each(|p| apply(&mut p.material_id)),
            Geom::Mrm(g) => g
                .lods
                .iter_mut()
                .flat_map(|(l, _)| l.rdr_pass.iter_mut())
                .for_each(|p| apply(&mut p.material_id)),
            Geom::MrmSkinned(g) => g
                .lods
                .iter_mut()
                .flat_map(|l| l.rdr_pass.iter_mut())
                .for_each(|p| apply(&mut p.material_id)),
        }
    }
}

/// The mesh base of a node: default tracks from its local matrix at time 0,
/// its materials, and the flags its NeL AppData sets. `dist_max` stays at
/// NeL's -1 (the caller sets it for single meshes).
pub(super) fn mesh_base(
    ctx: &Context,
    node: usize,
    props: &NodeProperties,
    materials: Vec<Material>,
    is_lightable: bool,
    local_attenuation_allowed: bool,
) -> MeshBase {
    let d = decomp::decompose(&local_matrix(ctx, node));
    let v3 = TrackDefaultVector::from;
    MeshBase {
        version: MESH_BASE_VERSION,
        animated_morph: Vec::new(),
        default_pos: v3(d.pos),
        default_pivot: v3([0.0; 3]),
        default_rot_euler: v3([0.0; 3]),
        default_rot_quat: d.rot.into(),
        default_scale: v3(d.scale),
        materials,
        animated_materials: Vec::new(),
        light_infos: Vec::new(),
        light_infos_v7: Vec::new(),
        is_lightable: Some(Bool(is_lightable as u8)),
        use_lighting_local_attenuation: Some(Bool(
            (props.use_light_local_attenuation && local_attenuation_allowed) as u8,
        )),
        auto_anim: Some(Bool(props.automatic_animation as u8)),
        dist_max: Some(F32::from_f32(-1.0)),
        lod_character_texture: Some(Ptr::Null),
        collision_mesh_generation: Some(props.camera_collision_mesh_generation.clamp(0, 2) as u32),
    }
}

/// Gives each polymorphic object the id NeL's stream assigns: the shape is 1,
/// then objects count up in the order they are written (material textures,
/// then each geometry and its vertex program).
pub(super) fn number_pointers<'a>(
    base: &mut MeshBase,
    geoms: impl IntoIterator<Item = &'a mut crate::nel::shape::mesh::MeshGeom>,
) -> u64 {
    let mut next = 2u64;
    for m in base.materials.iter_mut() {
        next = number_textures_from(m, next);
    }
    for geom in geoms {
        if let Some(Ptr::Obj { id, .. }) = geom.vertex_program.as_mut() {
            *id = next;
            next += 1;
        }
    }
    next
}

/// Numbers a material's textures in write order from `next`; the next free id.
pub(super) fn number_textures_from(m: &mut Material, mut next: u64) -> u64 {
    for t in m.textures.iter_mut() {
        if let Ptr::Obj { id, .. } = t {
            *id = next;
            next += 1;
        }
    }
    next
}

/// `new CMaterialBase` (animated_material.cpp: ambient 64, diffuse 128,
/// specular 0, shininess 10, emissive 128, opacity 1, texture 0x7FFFFFFF,
/// identity texture tracks) with its name set.
pub(super) fn material_base_named(name: &str) -> MaterialBase {
    use crate::nel::shape::material::{TexAnimTracks, TrackDefaultInt};
    let grey = |v: u8| Rgba {
        r: v,
        g: v,
        b: v,
        a: 255,
    };
    MaterialBase {
        version: 1,
        name: name.to_string(),
        ambient: default_rgba(grey(64)),
        diffuse: default_rgba(grey(128)),
        specular: default_rgba(grey(0)),
        shininess: default_float(10.0),
        emissive: default_rgba(grey(128)),
        opacity: default_float(1.0),
        texture: TrackDefaultInt {
            version: 0,
            value: 0x7FFF_FFFF,
        },
        animated_textures: Vec::new(),
        tex_anim_tracks: (0..4)
            .map(|_| TexAnimTracks {
                version: 0,
                u_trans: default_float(0.0),
                v_trans: default_float(0.0),
                u_scale: default_float(1.0),
                v_scale: default_float(1.0),
            })
            .collect(),
    }
}

fn default_rgba(value: Rgba) -> crate::nel::shape::material::TrackDefaultRgba {
    crate::nel::shape::material::TrackDefaultRgba { version: 0, value }
}

fn default_float(v: f32) -> crate::nel::shape::material::TrackDefaultFloat {
    crate::nel::shape::material::TrackDefaultFloat {
        version: 0,
        value: F32::from_f32(v),
    }
}

/// `CMaterialBase::copyFromMaterial`: [`material_base_named`] with the
/// material's colours, shininess and opacity, and each stage with a user
/// texture matrix starting from its decomposition (decompUserTexMat).
pub(super) fn animated_material(name: &str, m: &Material) -> MaterialBase {
    let mut b = material_base_named(name);
    b.ambient = default_rgba(m.ambient.clone());
    b.diffuse = default_rgba(m.diffuse.clone());
    b.specular = default_rgba(m.specular.clone());
    b.shininess = default_float(m.shininess.map_or(10.0, |s| s.get()));
    b.emissive = default_rgba(m.emissive.clone());
    b.opacity = default_float(m.diffuse.a as f32 / 255.0);
    let mut enabled = 0;
    for (k, t) in b.tex_anim_tracks.iter_mut().enumerate() {
        if m.flags & (material_build::flag::USER_TEX_0 << k) == 0 {
            continue;
        }
        enabled += 1;
        if let Some(mat) = m.user_tex_mat.get(enabled - 1) {
            let [ut, vt, _, us, vs] = uv_matrix::decomp_user_tex_mat(mat);
            t.u_trans = default_float(ut);
            t.v_trans = default_float(vt);
            t.u_scale = default_float(us);
            t.v_scale = default_float(vs);
        }
    }
    b
}

/// `getLocalMatrix`: the node's matrix relative to its parent's, at time 0.
pub(super) fn local_matrix(ctx: &Context, node: usize) -> Mat43 {
    ctx.eval.local_tm(node, TIME_ZERO)
}

/// `CMeshVPWindTree` from the node's wind-tree AppData (export_mesh.cpp).
pub(super) fn wind_tree(p: &NodeProperties) -> MeshVpWindTree {
    let ticks = super::properties::VPWT_NUM_TICKS as f32;
    let f = F32::from_f32;
    let mut vp = MeshVpWindTree {
        version: 0,
        specular_lighting: Bool(p.vpwt_use_spec as u8),
        ..MeshVpWindTree::default()
    };
    for i in 0..3 {
        vp.frequency[i] = f(p.vpwt_frequency[i] as f32 / ticks * p.vpwt_freq_scale);
        vp.frequency_window[i] =
            f(p.vpwt_frequency_wind_factor[i] as f32 / ticks * p.vpwt_freq_scale);
        vp.power_xy[i] = f(p.vpwt_dist_xy[i] as f32 / ticks * p.vpwt_dist_scale);
        vp.power_z[i] = f(p.vpwt_dist_z[i] as f32 / ticks * p.vpwt_dist_scale);
        vp.bias[i] = f(p.vpwt_bias[i] as f32 / ticks * 4.0 - 2.0);
    }
    vp
}

/// The node's name as the shape file names it.
pub(super) fn node_name(ctx: &Context, node: usize) -> String {
    ctx.graph.node_name(node).to_string()
}
