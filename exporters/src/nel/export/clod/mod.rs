//! `.clod`: the character LOD bank's source files (clodbank's clod_export.ms
//! → `NelExportLodCharacter` → `CExportNel::buildLodCharacter`,
//! export_lod_character.cpp). Root-level geometry nodes with CHARACTER_LOD
//! = "1" (not DONOTEXPORT, RklPatch, nel_ps or PACS primitives) become
//! `<name>.clod`, a `CLodCharacterShapeBuild`.
//!
//! The node must be skinned (Skin or Physique): its mesh with the skinning
//! modifier left out, in world space, goes through the skinned mesh build
//! and a one-LOD `CMeshMRM` (NLods 1, Divisor 1: no reduction, chosen by the
//! plug-in because it has no matrix blocks). The build takes that geometry's
//! vertices, skin weights and bone names, its UV set 0 and normals (0 and
//! +Z when absent), the triangles of every render pass in order, and the
//! texture info compiled from the passes of material 0 (`texture`).

pub mod texture;

use crate::error::{ExportError, ExportResult};
use maxfs_scene::eval::objects::normals::Weighting;

use super::properties::{id, NodeProperties};
use super::shape::{material_build, mesh_build, mrm_geom, skin_modifier, source, Era};
use super::{select, skinning, Context, ExportKind, Exports, Output};
use crate::nel::clod::{LodBuildTexture, LodCharacterShapeBuild, SkinWeight};
use crate::nel::shape::mrm::MeshMrmGeom;
use crate::nel::shape::vertex_buffer::ChannelData;
use crate::nel::stream::{Vec2, Vec3, F32};
use crate::nel::{write_nel, NelFile};

/// The export scripts run the plug-in at time 0.
const TIME_ZERO: i32 = 0;

/// The nodes clod_export.ms exports, in its order.
pub fn clod_nodes(ctx: &Context) -> Vec<usize> {
    select::tree_order(ctx.graph)
        .into_iter()
        .filter(|&n| select::category(ctx, n) == Some(select::superclass::GEOMETRY))
        .filter(|&n| select::parent_is_root(ctx, n))
        .filter(|&n| {
            select::object_class(ctx, n).is_none_or(|(c, _)| {
                c != select::RKL_PATCH
                    && c.0 != select::NEL_PS_PART_A
                    && c != select::NEL_PACS_BOX
                    && c != select::NEL_PACS_CYLINDER
            })
        })
        .filter(|&n| {
            let p = ctx.props.node(n);
            !p.script_is_one(id::DONTEXPORT) && p.script_is_one(id::CHARACTER_LOD)
        })
        .collect()
}

/// Appends one `<name>.clod` per character LOD node.
pub fn export(ctx: &Context, out: &mut Exports) {
    for node in clod_nodes(ctx) {
        let name = ctx.graph.node_name(node).to_string();
        match build(ctx, node).and_then(|b| {
            write_nel(&NelFile::LodCharacterShapeBuild(b)).map_err(ExportError::Write)
        }) {
            Ok(bytes) => out.outputs.push(Output {
                kind: ExportKind::Clod,
                with_coarse_mesh: false,
                name: format!("{name}.clod"),
                bytes,
            }),
            Err(e) => out.push_error(ExportKind::Clod, &name, e),
        }
    }
}

/// `buildLodCharacter` for one node.
pub fn build(ctx: &Context, node: usize) -> ExportResult<LodCharacterShapeBuild> {
    let skin_mod = skin_modifier(ctx, node)
        .ok_or_else(|| ExportError::refused("a character LOD must be skinned"))?;
    let binding = skinning::node_skin(ctx, node)
        .ok_or_else(|| ExportError::refused("a character LOD must be skinned"))?
        .map_err(|e| e.within("skinning"))?;
    let mesh = source::node_mesh(ctx, node, Some(skin_mod))?;
    let mats = material_build::build_materials(ctx, node);
    let weighting = Weighting::of_scene_version(ctx.graph.version);
    let to_world = ctx.eval.object_tm(node, TIME_ZERO);
    let mut mb = mesh_build::build(&mesh, &to_world, &mats, false, weighting)?;
    mb.skin = Some(mesh_build::SkinInput {
        weights: binding
            .weights
            .iter()
            .map(|w| std::array::from_fn(|k| (w.matrix_id[k], w.weight[k])))
            .collect(),
        bones: binding.bone_names,
    });
    // One LOD, no reduction (CMRMParameters: NLods 1, Divisor 1); the
    // distances only fill the level detail, which the build does not keep.
    let mut settings = mrm_geom::settings(&NodeProperties::default())?;
    settings.params.n_lods = 1;
    settings.params.divisor = 1;
    let geom = mrm_geom::build_geom(&mb, mats.materials.len(), &settings, Era::of(ctx))?.geom;
    from_geom(&geom)
}

fn floats<'a>(geom: &'a MeshMrmGeom, name: &str) -> Option<&'a [F32]> {
    let (_, data) = geom.lods.first()?;
    match data
        .vertices
        .channels
        .iter()
        .find(|c| c.value == name)
        .map(|c| &c.data)
    {
        Some(ChannelData::Float(v)) => Some(v),
        _ => None,
    }
}

/// The build from a one-LOD skinned MRM geometry.
pub fn from_geom(geom: &MeshMrmGeom) -> ExportResult<LodCharacterShapeBuild> {
    let n = geom.n_wedges as usize;
    let triples = |v: &[F32]| -> Vec<[f32; 3]> {
        v.chunks_exact(3)
            .map(|c| [c[0].get(), c[1].get(), c[2].get()])
            .collect()
    };
    let pos = floats(geom, "position")
        .map(triples)
        .ok_or_else(|| ExportError::invalid("the MRM has no positions"))?;
    let weights = geom.skin_weights.clone().unwrap_or_default();
    if geom.skinned.0 == 0 || pos.len() != n || weights.len() != n {
        return Err(ExportError::invalid(format!(
            "the one-LOD MRM is not skinned with one weight per vertex ({} positions, {} weights, {n} vertices)",
            pos.len(),
            weights.len()
        )));
    }
    let normals = floats(geom, "normal")
        .map(triples)
        .unwrap_or_else(|| vec![[0.0, 0.0, 1.0]; n]);
    let uvs: Vec<[f32; 2]> = floats(geom, "tex_coord0")
        .map(|v| {
            v.chunks_exact(2)
                .map(|c| [c[0].get(), c[1].get()])
                .collect()
        })
        .unwrap_or_else(|| vec![[0.0, 0.0]; n]);
    let lod = &geom
        .lods
        .first()
        .ok_or_else(|| ExportError::invalid("the MRM has no LOD"))?
        .0;
    let mut tris = Vec::new();
    let mut selected = Vec::new();
    for pass in &lod.rdr_pass {
        let idx = &pass.pblock.indexes;
        tris.extend_from_slice(idx);
        selected.extend(std::iter::repeat_n(pass.material_id == 0, idx.len() / 3));
    }
    let texture_info = texture::compile(&pos, &normals, &uvs, &tris, &selected)?;
    let v3 = Vec3::from;
    Ok(LodCharacterShapeBuild {
        version: 1,
        vertices: pos.iter().copied().map(v3).collect(),
        skin_weights: weights
            .iter()
            .map(|w| SkinWeight {
                influences: [(w.m0, w.w0), (w.m1, w.w1), (w.m2, w.w2), (w.m3, w.w3)],
            })
            .collect(),
        bones_names: geom.bones_name.clone().unwrap_or_default(),
        triangle_indices: tris,
        texture: Some(LodBuildTexture {
            uvs: uvs
                .iter()
                .map(|u| Vec2 {
                    u: F32::from_f32(u[0]),
                    v: F32::from_f32(u[1]),
                })
                .collect(),
            normals: normals.iter().copied().map(v3).collect(),
            width: texture::WIDTH,
            height: texture::HEIGHT,
            texture_info,
        }),
    })
}
