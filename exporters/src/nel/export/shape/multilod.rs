//! `CMeshMultiLod` for a node with LOD slaves (NEL3D_APPDATA_LOD_NAME_COUNT),
//! as `CExportNel::buildShape` / `buildMeshGeom` and `CMeshMultiLod::build`
//! make it: one `CMeshGeom` slot per LOD (the master first, then each named
//! slave found in the scene), all in the master's space, their materials
//! appended into one list (not optimized), slots sorted by distance, and each
//! slot's polygon-count line (A, B) from the triangle counts.
//!
//! A LOD with NEL3D_APPDATA_LOD_MRM gets a `CMeshMRMGeom` slot (mrm_geom.rs);
//! slot polygon counts then follow its level detail, as `getNumTriangles`.
//!
//! The corpus has no LOD sets; this follows the plug-in's sources. Coarse-mesh
//! LODs are refused.

use crate::error::{ExportError, ExportResult};
use maxfs_scene::eval::core::transform::invert;
use maxfs_scene::eval::objects::normals::Weighting;

use super::super::Context;
use super::{
    geom_build, local_matrix, material_build, mesh_base, mesh_build, mrm_geom, number_pointers,
    select_lod_node, source, wind_tree, Era,
};
use crate::nel::shape::mesh::{MeshGeom, MeshVertexProgram};
use crate::nel::shape::mrm::{LevelDetail, MeshMrmGeom};
use crate::nel::shape::multilod::{MeshGeomClass, MeshMultiLod, MeshSlot};
use crate::nel::shape::Shape;
use crate::nel::stream::{Bool, Ptr, F32};

/// `CMeshSlot` flags.
const BLEND_IN: u8 = 0x01;
const BLEND_OUT: u8 = 0x02;
const IS_OPAQUE: u8 = 0x08;
const IS_TRANSPARENT: u8 = 0x10;

struct Slot {
    geom: SlotGeom,
    dist_max: f32,
    blend_length: f32,
    flags: u8,
}

/// A slot's geometry: a plain mesh or an MRM.
#[derive(Clone)]
enum SlotGeom {
    Mesh(MeshGeom),
    Mrm(MeshMrmGeom),
}

impl SlotGeom {
    /// `getNumTriangles(dist)`: every pass of every block for a mesh; the
    /// level detail's estimate for an MRM.
    fn triangles(&self, dist: f32) -> f32 {
        match self {
            SlotGeom::Mesh(g) => g
                .matrix_blocks
                .iter()
                .flat_map(|b| &b.rdr_pass)
                .map(|p| p.pblock.num_indexes / 3)
                .sum::<u32>() as f32,
            SlotGeom::Mrm(g) => mrm_triangles(&g.level_detail, dist),
        }
    }
    fn vertex_program(&mut self) -> &mut Option<Ptr<MeshVertexProgram>> {
        match self {
            SlotGeom::Mesh(g) => &mut g.vertex_program,
            SlotGeom::Mrm(g) => &mut g.vertex_program,
        }
    }
}

/// Shift NeL adds to the level detail when estimating rendered faces
/// (`NL3D_MRM_LD_SHIFT_POLY_COUNT`).
const LD_SHIFT_POLY_COUNT: f32 = 0.05;

/// `CMRMLevelDetail::getNumTriangles`.
fn mrm_triangles(ld: &LevelDetail, dist: f32) -> f32 {
    let (fin, coarse) = (ld.distance_finest.get(), ld.distance_coarsest.get());
    let level = if dist <= fin {
        1.0
    } else if dist >= coarse {
        0.0
    } else {
        let d = (coarse - dist) * ld.oo_distance_delta.get();
        d.powf(ld.distance_pow.get())
    };
    let (min, max) = (ld.min_face_used as f32, ld.max_face_used as f32);
    if level <= 0.0 {
        min
    } else {
        min + (level + LD_SHIFT_POLY_COUNT) * (max - min)
    }
}

pub fn build(ctx: &Context, master: usize, era: Era) -> ExportResult<Shape> {
    let props = ctx.props.node(master);
    let weighting = Weighting::of_scene_version(ctx.graph.version);
    let parent = local_matrix(ctx, master);
    let to_parent = invert(&parent);
    let mut nodes = vec![master];
    nodes.extend(
        props
            .lod_names
            .iter()
            .filter_map(|n| select_lod_node(ctx, n)),
    );
    let mut materials = Vec::new();
    let mut names = Vec::new();
    let mut slots = Vec::new();
    let mut last_props = props;
    let mut needs_vp = false;
    for (k, &n) in nodes.iter().enumerate() {
        let p = ctx.props.node(n);
        last_props = p;
        let name = super::node_name(ctx, n);
        if p.lod_coarse_mesh {
            return Err(ExportError::refused(format!(
                "LOD {name}: coarse meshes are not exported"
            )));
        }
        if super::skin_modifier(ctx, n).is_some() {
            return Err(ExportError::refused(format!(
                "LOD {name}: skinned LODs are not exported"
            )));
        }
        let vp = p.vertex_program_id;
        if vp != 0 && vp != 1 {
            return Err(ExportError::invalid(format!(
                "LOD {name}: unknown vertex program id {vp}"
            )));
        }
        let mesh = source::node_mesh(ctx, n, None).map_err(|e| e.within(format!("LOD {name}")))?;
        let mut mats = material_build::build_materials(ctx, n);
        if let Some(e) = mats.errors.first() {
            return Err(ExportError::refused(format!("LOD {name}: {e}")));
        }
        needs_vp |= mats.needs_vp;
        if vp == 1 {
            mats.need_vertex_color = true;
        }
        // The LOD's vertices in the master's space: offset, the LOD's local
        // matrix, then the inverse of the master's.
        let to_export = if k == 0 {
            ctx.eval.offset_tm(n)
        } else {
            ctx.eval
                .offset_tm(n)
                .then(&local_matrix(ctx, n))
                .then(&to_parent)
        };
        let mut build = mesh_build::build(&mesh, &to_export, &mats, vp == 1, weighting)
            .map_err(|e| e.within(format!("LOD {name}")))?;
        let first = materials.len();
        for f in build.faces.iter_mut() {
            f.material += first;
        }
        let transparent = mats
            .materials
            .iter()
            .any(|m| m.flags & material_build::flag::BLEND != 0);
        let opaque = mats
            .materials
            .iter()
            .any(|m| m.flags & material_build::flag::BLEND == 0);
        names.extend(mats.infos.iter().map(|i| i.name.clone()));
        materials.extend(mats.materials);
        let mut geom = if p.lod_mrm {
            let settings = mrm_geom::settings(p).map_err(|e| e.within(format!("LOD {name}")))?;
            let b = mrm_geom::build_geom(&build, materials.len(), &settings, era)
                .map_err(|e| e.within(format!("LOD {name}")))?;
            SlotGeom::Mrm(b.geom)
        } else {
            SlotGeom::Mesh(
                geom_build::build(&build, materials.len(), era)
                    .map_err(|e| e.within(format!("LOD {name}")))?
                    .geom,
            )
        };
        if vp == 1 {
            *geom.vertex_program() = Some(Ptr::Obj {
                id: 0,
                obj: Box::new(MeshVertexProgram::CMeshVPWindTree(wind_tree(p))),
            });
        }
        let mut flags = 0;
        if p.lod_blend_in {
            flags |= BLEND_IN;
        }
        if p.lod_blend_out {
            flags |= BLEND_OUT;
        }
        if transparent {
            flags |= IS_TRANSPARENT;
        }
        if opaque {
            flags |= IS_OPAQUE;
        }
        slots.push(Slot {
            geom,
            dist_max: p.lod_dist_max,
            blend_length: p.lod_blend_length,
            flags,
        });
    }
    // Bubble sort by distance, as CMeshMultiLod::build does.
    for i in (1..slots.len()).rev() {
        for j in 0..i {
            if slots[j].dist_max > slots[j + 1].dist_max {
                slots.swap(j, j + 1);
            }
        }
    }
    let n = slots.len();
    let mut mesh_vector = Vec::with_capacity(n);
    for k in 0..n {
        let start_dist = if k == 0 { 0.0 } else { slots[k - 1].dist_max };
        let start_count = slots[k].geom.triangles(start_dist);
        let end_dist = slots[k].dist_max;
        let mut end_count = match slots.get(k + 1) {
            Some(next) => next.geom.triangles(end_dist),
            None => slots[k].geom.triangles(end_dist),
        };
        if k + 1 == n && start_count == end_count {
            end_count = start_count / 2.0;
        }
        let a = if end_dist == start_dist {
            0.0
        } else {
            (end_count - start_count) / (end_dist - start_dist)
        };
        let b = end_count - a * end_dist;
        mesh_vector.push((a, b, end_count));
    }
    let is_lightable = materials
        .iter()
        .any(|m| m.shader_type != material_build::shader::LIGHT_MAP);
    let mut base = mesh_base(ctx, master, props, materials, is_lightable, !needs_vp);
    // Only position, rotation, scale and collision are restored to the master's
    // after the LODs are built: the rest comes from the last LOD.
    base.use_lighting_local_attenuation = Some(Bool(
        (last_props.use_light_local_attenuation && !needs_vp) as u8,
    ));
    if props.export_animated_materials {
        base.animated_materials = names
            .iter()
            .enumerate()
            .filter(|(_, n)| !n.is_empty())
            .filter_map(|(i, n)| {
                let m = base.materials.get(i)?;
                Some((i as u32, super::animated_material(n, m)))
            })
            .collect();
    }
    let mut geoms: Vec<SlotGeom> = slots.iter().map(|s| s.geom.clone()).collect();
    // Ids: textures first, then each slot's geometry and its vertex program.
    let mut next = number_pointers(&mut base, std::iter::empty());
    let mut out = Vec::with_capacity(n);
    for ((slot, geom), (a, b, end)) in slots.iter().zip(geoms.iter_mut()).zip(mesh_vector) {
        let geom_id = next;
        next += 1;
        if let Some(Ptr::Obj { id, .. }) = geom.vertex_program().as_mut() {
            *id = next;
            next += 1;
        }
        let obj = match geom.clone() {
            SlotGeom::Mesh(g) => MeshGeomClass::CMeshGeom(g),
            SlotGeom::Mrm(g) => MeshGeomClass::CMeshMRMGeom(g),
        };
        out.push(MeshSlot {
            version: 0,
            mesh_geom: Ptr::Obj {
                id: geom_id,
                obj: Box::new(obj),
            },
            a: F32::from_f32(a),
            b: F32::from_f32(b),
            dist_max: F32::from_f32(slot.dist_max),
            end_polygon_count: F32::from_f32(end),
            blend_length: F32::from_f32(slot.blend_length),
            flags: slot.flags,
        });
    }
    Ok(Shape::CMeshMultiLod(MeshMultiLod {
        version: 0,
        base,
        static_lod: Bool(!props.lod_dynamic_mesh as u8),
        mesh_vector: out,
    }))
}
