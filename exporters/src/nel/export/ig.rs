//! `.ig` instance groups as `CExportNel::buildInstanceGroup`
//! (nel_mesh_lib/export_scene.cpp) and `CInstanceGroup::build`
//! (nel/src/3d/scene_group.cpp) make them: one `<igname>.ig` per distinct
//! IGNAME (ig_export.ms), from the group's geometry, lights and helpers.
//!
//! A file without any IGNAME exports nothing under ig_export.ms; artists then
//! export the whole scene from the plug-in panel under the file's name, which
//! is what the reference `street.ig` is. So a file that carries NeL export
//! properties but no IGNAME is exported as `<maxfile>.ig` from every
//! geometry, light and helper node; files with no NeL property export no ig.
//!
//! Versions are the current serializers' whatever Max saved the file: the
//! version written is the plug-in's (today's NeL), not the scene's, and NeL
//! reads and rewrites exactly these (the oracle test). So CInstanceGroup 5,
//! CInstance 7 with Visible — false when CAMERA_COLLISION_MESH_GENERATION is
//! 3 — and DontCastShadowForInterior / Exterior from LIGHT_DONT_CAST_SHADOW_*;
//! CCluster 3 with the SOUND_GROUP and ENV_FX names ("no sound" / "no fx"
//! mean none) and the audibility flags, equal to the visibility ones unless
//! ACCEL bit 64 separates them; CPortal 1 with OCC_MODEL / OPEN_OCC_MODEL,
//! "no occlusion" meaning none), as export_scene.cpp `buildInstanceGroup`
//! sets them; CPointLightNamedArray 1 and CIGSurfaceLight 1 (point lights:
//! ig_lights.rs). The Max 3-era reference street.ig has the older versions.
//!
//! A particle system (nel_ps) instance is named after its `ps_file_name`
//! (`getNelObjectName`), and is tested for clusters with the 8 corners of its
//! `.ps` shape's bounding box placed in the world (ig_fx.rs).

use crate::error::{ExportError, ExportResult};
use maxfs_scene::eval::{objects::mesh, objects::primitive, Controller, Mat43, Vec3 as V3};
use maxfs_scene::typed::ClassId;

use super::ig_volume::{occlusion, plane, portal_poly, portal_poly_ok, ClusterBuild};
use super::properties::accel;
use super::select::{self, superclass};
use super::{Context, ExportKind, Exports, Output};
use crate::nel::ig::{Cluster, IgSurfaceLight, Instance, InstanceGroup, Portal, StaticLight};
use crate::nel::stream::{AaBox, Bool, Vec3, F32};
use crate::nel::{write_nel, NelFile};

/// DUMMY_CLASS_ID: isDummy tests the class PartA only.
const DUMMY_PART_A: u32 = 0x0087_6234;

/// The versions the reference .ig files carry.
pub const IG_VERSION: u32 = 5;
pub const INSTANCE_VERSION: u32 = 7;
pub const CLUSTER_VERSION: u32 = 3;
pub const PORTAL_VERSION: u32 = 1;

/// Writes every instance group of the file.
pub fn export(ctx: &Context, out: &mut Exports) {
    if let Some(src) = crate::nel::zone_build::ligo::BrickSource::from_stem(ctx.stem) {
        ligo_brick_igs(ctx, &src, out);
        return;
    }
    let groups = select::ig_groups(ctx);
    if groups.is_empty() {
        // Only files prepared for NeL (some node sets a NeL property) get the
        // whole-scene group; other scenes have no instance group to export.
        let prepared = (0..ctx.graph.objects.len()).any(|i| !ctx.props.node(i).set.is_empty());
        let nodes = select::scene_group_nodes(ctx);
        if !prepared || nodes.is_empty() {
            return;
        }
        let name = format!("{}.ig", ctx.stem);
        emit(ctx, &name, &nodes, out);
        return;
    }
    for g in groups {
        emit(ctx, &g.file_name, &g.nodes, out);
    }
}

/// nel_ligo_export.ms `exportInstanceGroupFromZone` on a ligo brick source: IGNAME
/// lowercased (its own `getIg`), every named group of a material or special source
/// (`igName` ""), no whole-scene group. A transition source, once its patch nodes are
/// placed (the script's `ok and findOne`), exports in each slot 1..=9 only the group
/// named after that slot's brick, every node of it (geometry, lights, helpers) first
/// moved by `buildTransitionMatrixObj` (`node.transform = node.transform * copyMt`);
/// groups named after no brick are exported by no slot (the script's rule) and listed.
fn ligo_brick_igs(
    ctx: &Context,
    src: &crate::nel::zone_build::ligo::BrickSource,
    out: &mut Exports,
) {
    use crate::nel::zone_build::ligo::BrickSource;
    let groups = select::ig_groups_with(ctx, true);
    match src {
        BrickSource::Material { .. } | BrickSource::Special { .. } => {
            for g in groups {
                emit(ctx, &g.file_name, &g.nodes, out);
            }
        }
        BrickSource::Transition { .. } => transition_brick_igs(ctx, src, &groups, out),
    }
}

/// The transition half of [`ligo_brick_igs`].
fn transition_brick_igs(
    ctx: &Context,
    src: &crate::nel::zone_build::ligo::BrickSource,
    groups: &[select::IgGroup],
    out: &mut Exports,
) {
    use crate::nel::zone_build::ligo::transition_object_matrix;
    let bricks: Vec<String> = src
        .bricks()
        .into_iter()
        .map(|(n, _)| n.to_ascii_lowercase())
        .collect();
    let placed = super::zone::ligo::transition_placement(ctx).ok;
    // Every node some slot moves: Max carries a moved node's children along, so a node
    // under another moved node would be moved twice; such groups are refused.
    let mut moved: Vec<usize> = groups
        .iter()
        .filter(|g| bricks.contains(&g.ig_name))
        .flat_map(|g| g.nodes.iter().copied())
        .collect();
    moved.sort_unstable();
    moved.dedup();
    for g in groups {
        let Some(slot) = bricks.iter().position(|b| *b == g.ig_name).map(|i| i + 1) else {
            out.push_error(
                ExportKind::Ig,
                &g.file_name,
                "IGNAME names no brick of this transition source: nel_ligo_export.ms exports it from no slot",
            );
            continue;
        };
        if !placed {
            out.push_error(
                ExportKind::Ig,
                &g.file_name,
                "the transition source's patch nodes are not placed (see the zone errors): nel_ligo_export.ms exports no ig then",
            );
            continue;
        }
        if let Some(&n) = g.nodes.iter().find(|&&n| has_ancestor_in(ctx, n, &moved)) {
            out.push_error(
                ExportKind::Ig,
                &g.file_name,
                format!(
                    "node {} has a parent moved by buildTransitionMatrixObj too (Max carries children along, so the script moves it twice): not reproduced",
                    ctx.graph.node_name(n)
                ),
            );
            continue;
        }
        let Some(by) = transition_object_matrix(slot, super::zone::ligo::CELL_SIZE) else {
            out.push_error(
                ExportKind::Ig,
                &g.file_name,
                format!("transition slot {slot} has no buildTransitionMatrixObj"),
            );
            continue;
        };
        let mut nodes = g.nodes.clone();
        nodes.sort_unstable();
        let mut moved_ctx = ctx.clone();
        moved_ctx.moved = Some(super::Moved { nodes, by });
        emit(&moved_ctx, &g.file_name, &g.nodes, out);
    }
}

/// Whether a parent, grand-parent, … of `node` is one of `set` (sorted).
fn has_ancestor_in(ctx: &Context, node: usize, set: &[usize]) -> bool {
    let mut cur = node;
    for _ in 0..ctx.graph.objects.len() {
        match parent_node(ctx, cur) {
            Some(p) if set.binary_search(&p).is_ok() => return true,
            Some(p) => cur = p,
            None => return false,
        }
    }
    false
}

fn emit(ctx: &Context, name: &str, nodes: &[usize], out: &mut Exports) {
    let mut warnings = Vec::new();
    let ig = build(ctx, nodes, &mut warnings);
    for (node, w) in warnings {
        out.push_error(ExportKind::Ig, &node, w);
    }
    match write_nel(&NelFile::InstanceGroup(ig)) {
        // S:320: a later group with the same file name replaces the earlier one.
        Ok(bytes) => {
            out.outputs
                .retain(|o| !(o.kind == ExportKind::Ig && o.name == name));
            out.outputs.push(Output {
                kind: ExportKind::Ig,
                with_coarse_mesh: false,
                name: name.to_string(),
                bytes,
            });
        }
        Err(e) => out.push_error(ExportKind::Ig, name, format!("cannot serialize: {e}")),
    }
}

/// isMesh: the object converts to a triangle mesh (geometry, targets
/// excluded) and COLLISION is not checked.
fn is_mesh(ctx: &Context, node: usize) -> bool {
    select::category(ctx, node) == Some(superclass::GEOMETRY) && !ctx.props.node(node).collision
}

fn is_dummy(ctx: &Context, node: usize) -> bool {
    select::object_class(ctx, node).is_some_and(|(cid, _)| cid.0 == DUMMY_PART_A)
}

/// RPO::isZone: the object is an RklPatch.
fn is_zone(ctx: &Context, node: usize) -> bool {
    select::object_class(ctx, node).is_some_and(|(cid, _)| cid == select::RKL_PATCH)
}

/// ACCEL as buildInstanceGroup reads it (default 32 = clusterized).
fn accel_of(ctx: &Context, node: usize) -> u32 {
    ctx.props.node(node).accel
}

fn is_instance(ctx: &Context, node: usize) -> bool {
    accel_of(ctx, node) & accel::TYPE_MASK == 0
        && !is_zone(ctx, node)
        && (is_mesh(ctx, node) || is_dummy(ctx, node))
}

fn parent_node(ctx: &Context, node: usize) -> Option<usize> {
    let p = ctx.graph.objects.get(node)?.node.as_ref()?.parent? as usize;
    let po = ctx.graph.objects.get(p)?;
    po.node.as_ref()?;
    let is_root = po
        .class
        .as_ref()
        .is_some_and(|c| c.class_id == maxfs_scene::typed::ClassId(2, 0));
    (!is_root && p != node).then_some(p)
}

fn f3(v: V3) -> [f32; 3] {
    [v.0 as f32, v.1 as f32, v.2 as f32]
}

/// decompMatrix: position, NeL rotation (Max's decomp_affine quaternion with
/// w negated) and scale of a local matrix without shear — the same
/// decomposition as the shape's default tracks.
fn decomp(m: &Mat43) -> ([f32; 3], [f32; 4], [f32; 3]) {
    let d = super::shape::decomp::decompose(m);
    (d.pos, d.rot, d.scale)
}

/// World-space vertices and triangles of a node.
type WorldMesh = (Vec<[f32; 3]>, Vec<[u32; 3]>);

/// The node's mesh in world space (createMeshBuild + convertToWorldCoordinate):
/// the modifier stack applied, vertices through the object TM at time 0.
fn world_mesh(ctx: &Context, node: usize) -> ExportResult<WorldMesh> {
    let mesh = ctx.mesh0(node)?;
    let tm = ctx.object_tm0(node);
    let verts = mesh
        .vertices
        .iter()
        .map(|v| f3(tm.transform_point(*v)))
        .collect::<Vec<_>>();
    let n = verts.len() as u32;
    let faces: Vec<[u32; 3]> = mesh.faces.iter().map(|f| f.v).collect();
    if faces.iter().any(|f| f.iter().any(|&i| i >= n)) {
        return Err(ExportError::invalid("face refers to a vertex past the end"));
    }
    Ok((verts, faces))
}

/// A Boolean compound (DEI.dlo) whose evaluation fails (an operand kind or a
/// stack the scene layer refuses): for the cluster test only, its operands'
/// vertices stand in for the result's (a Boolean's vertices are operand
/// vertices plus points on operand surfaces, so the clusters touched are the
/// same unless an operand pokes out of the result).
const BOOLEAN: ClassId = ClassId(0x51db_4f2f, 0x1c59_6b1a);
/// Operands and their transform controllers sit in references 0/1 and 2/3.
const BOOLEAN_DEPTH: usize = 32;

fn boolean_vertices(ctx: &Context, node: usize) -> Option<Vec<[f32; 3]>> {
    let obj = ctx.eval.node_object(node)?;
    let mut out = Vec::new();
    operand_vertices(ctx, obj, &Mat43::IDENTITY, 0, &mut out)?;
    let tm = ctx.object_tm0(node);
    Some(out.into_iter().map(|v| f3(tm.transform_point(v))).collect())
}

fn operand_vertices(
    ctx: &Context,
    obj: usize,
    tm: &Mat43,
    depth: usize,
    out: &mut Vec<V3>,
) -> Option<()> {
    if depth > BOOLEAN_DEPTH {
        return None;
    }
    let o = ctx.graph.objects.get(obj)?;
    let class = o.class.as_ref()?.class_id;
    let target = |slot: u32| {
        o.references
            .iter()
            .find(|r| r.slot == slot)
            .and_then(|r| usize::try_from(r.target).ok())
    };
    if class == BOOLEAN {
        for i in 0..2 {
            let operand = target(i)?;
            let local = prs_matrix(ctx, target(2 + i));
            operand_vertices(ctx, operand, &local.then(tm), depth + 1, out)?;
        }
        return Some(());
    }
    let mesh = if primitive::is_primitive(class) {
        primitive::params(ctx.eval, obj, 0)
            .and_then(|p| primitive::build(class, &p))
            .ok()?
    } else if class == mesh::EDITABLE_MESH {
        mesh::editable_mesh(ctx.eval.chunks(obj)).ok()?
    } else if class == mesh::EDITABLE_POLY {
        mesh::editable_poly(ctx.eval.chunks(obj)).ok()?.0
    } else {
        return None;
    };
    out.extend(mesh.vertices.iter().map(|v| tm.transform_point(*v)));
    Some(())
}

/// The matrix of a PRS controller at time 0 (scale, then rotation, then position).
fn prs_matrix(ctx: &Context, ctl: Option<usize>) -> Mat43 {
    match ctl.and_then(|c| ctx.eval.controller(c)) {
        Some(Controller::Prs {
            position,
            rotation,
            scale,
        }) => ctx
            .eval
            .scale_tm(*scale, 0)
            .then(&ctx.eval.rotation_at(*rotation, 0))
            .then(&Mat43::translation(ctx.eval.position_at(*position, 0))),
        _ => Mat43::IDENTITY,
    }
}

/// buildInstanceGroup over `nodes` (in selection order). Problems the
/// plug-in only warns about come back as (node, message).
pub fn build(
    ctx: &Context,
    nodes: &[usize],
    warnings: &mut Vec<(String, String)>,
) -> InstanceGroup {
    let mut warn =
        |node: usize, msg: String| warnings.push((ctx.graph.node_name(node).to_string(), msg));
    let instances_nodes: Vec<usize> = nodes
        .iter()
        .copied()
        .filter(|&n| is_instance(ctx, n))
        .collect();
    let nb_instance = instances_nodes.len();

    // Instances: names, flags, parents, transforms.
    let mut instances: Vec<Instance> = Vec::with_capacity(nb_instance);
    for &n in &instances_nodes {
        let p = ctx.props.node(n);
        let instance_name = if p.instance_name.is_empty() {
            ctx.graph.node_name(n).to_string()
        } else {
            p.instance_name.clone()
        };
        // The parent index counts only isMesh nodes (not dummies) of the
        // selection, and compares with the instance count: replicated as is.
        let parent = match parent_node(ctx, n) {
            None => -1,
            Some(par) => {
                let mut k = 0usize;
                for &n2 in nodes {
                    if accel_of(ctx, n2) & accel::TYPE_MASK == 0
                        && !is_zone(ctx, n2)
                        && is_mesh(ctx, n2)
                    {
                        if n2 == par {
                            break;
                        }
                        k += 1;
                    }
                }
                if k == nb_instance {
                    -1
                } else {
                    k as i32
                }
            }
        };
        let local = ctx.local_tm0(n);
        let (pos, rot, scale) = decomp(&local);
        let flag = |on: bool| Some(Bool(u8::from(on)));
        instances.push(Instance {
            version: INSTANCE_VERSION,
            visible: flag(p.camera_collision_mesh_generation != 3),
            dont_cast_shadow_for_exterior: flag(p.light_dont_cast_shadow_exterior),
            dont_cast_shadow_for_interior: flag(p.light_dont_cast_shadow_interior),
            local_ambient_id: Some(0xFF),
            // SunContribution and Light[] are never set by the exporter (the
            // reference holds uninitialized bytes there); 0 here.
            static_light: Some(StaticLight {
                avoid_static_light_pre_compute: Bool(0),
                dont_cast_shadow: Bool(0),
                static_light_enabled: Bool(0),
                sun_contribution: 0,
                light: [0, 0],
            }),
            instance_name: Some(instance_name),
            dont_add_to_scene: Some(Bool(u8::from(p.dont_add_to_scene))),
            clusters: Some(Vec::new()),
            name: object_name(ctx, n),
            pos: Vec3::from(pos),
            rot: rot.into(),
            scale: Vec3::from(scale),
            parent,
        });
    }

    // Clusters, in selection order.
    let mut clusters: Vec<(ClusterBuild, Cluster)> = Vec::new();
    for &n in nodes {
        let a = accel_of(ctx, n);
        if a & accel::TYPE_MASK != accel::CLUSTER || is_zone(ctx, n) || !is_mesh(ctx, n) {
            continue;
        }
        let mut cb = ClusterBuild::default();
        match world_mesh(ctx, n) {
            Ok((v, faces)) => {
                for f in &faces {
                    let [a0, a1, a2] = f.map(|i| v[i as usize]);
                    if !cb.make_volume(a0, a1, a2) {
                        warn(n, "the cluster is not convex".into());
                    }
                }
            }
            Err(e) => warn(n, format!("cluster mesh: {e}")),
        }
        let p = ctx.props.node(n);
        let named = |v: &str, none: &str| {
            if v == none {
                String::new()
            } else {
                v.to_string()
            }
        };
        let father_visible = a & accel::FATHER_VISIBLE != 0;
        let visible_from_father = a & accel::VISIBLE_FROM_FATHER != 0;
        let like_visible = a & accel::AUDIBLE_NOT_LIKE_VISIBLE == 0;
        let father_audible = if like_visible {
            father_visible
        } else {
            a & accel::FATHER_AUDIBLE != 0
        };
        let audible_from_father = if like_visible {
            visible_from_father
        } else {
            a & accel::AUDIBLE_FROM_FATHER != 0
        };
        let c = Cluster {
            version: CLUSTER_VERSION,
            sound_group: Some(named(&p.sound_group, "no sound")),
            environment_fx: Some(named(&p.env_fx, "no fx")),
            father_audible: Some(Bool(u8::from(father_audible))),
            audible_from_father: Some(Bool(u8::from(audible_from_father))),
            name: Some(ctx.graph.node_name(n).to_string()),
            local_volume: cb.planes.iter().map(plane).collect(),
            local_bbox: AaBox {
                version: 0,
                center: Vec3::from(cb.bbox.center),
                half_size: Vec3::from(cb.bbox.half),
            },
            father_visible: Bool(u8::from(father_visible)),
            visible_from_father: Bool(u8::from(visible_from_father)),
        };
        clusters.push((cb, c));
    }

    // Portals, in selection order.
    let mut portals: Vec<(Vec<[f32; 3]>, Portal)> = Vec::new();
    for &n in nodes {
        let a = accel_of(ctx, n);
        if a & accel::TYPE_MASK != accel::PORTAL || is_zone(ctx, n) || !is_mesh(ctx, n) {
            continue;
        }
        let mut polyv: Vec<[f32; 3]> = Vec::new();
        match world_mesh(ctx, n) {
            Ok((v, faces)) if !faces.is_empty() => {
                polyv = portal_poly(&faces)
                    .into_iter()
                    .map(|i| v[i as usize])
                    .collect();
            }
            Ok(_) => warn(n, "the portal has no faces".into()),
            Err(e) => warn(n, format!("portal mesh: {e}")),
        }
        let ok = portal_poly_ok(&polyv);
        if !ok {
            warn(n, "the portal is not convex or not planar".into());
        }
        let name = if a & accel::DYNAMIC_PORTAL != 0 {
            let p = ctx.props.node(n);
            if p.instance_name.is_empty() {
                ctx.graph.node_name(n).to_string()
            } else {
                p.instance_name.clone()
            }
        } else {
            String::new()
        };
        let in_clusters = clusters
            .iter()
            .filter(|(cb, _)| polyv.iter().all(|&p| cb.is_in(p)))
            .count();
        if in_clusters != 2 {
            warn(
                n,
                format!("the portal has not 2 clusters but {in_clusters}"),
            );
        }
        let poly = if ok { polyv } else { Vec::new() };
        portals.push((
            poly.clone(),
            Portal {
                version: PORTAL_VERSION,
                local_poly: poly.into_iter().map(Vec3::from).collect(),
                name,
                occlusion_model: Some(occlusion(&ctx.props.node(n).occ_model)),
                open_occlusion_model: Some(occlusion(&ctx.props.node(n).open_occ_model)),
            },
        ));
    }

    // Instances to clusters: any test vertex inside the cluster volume.
    for (inst, &n) in instances.iter_mut().zip(&instances_nodes) {
        if accel_of(ctx, n) & accel::CLUSTERIZED == 0 {
            continue;
        }
        let fx = if super::ig_fx::is_particle_system(ctx, n) {
            match super::ig_fx::fx_corners(ctx, n) {
                Ok(c) => Some(c),
                Err(e) => {
                    warn(
                        n,
                        format!(
                            "no bounding box of the particle system from its shape ({e}): \
                             the helper's mesh is tested instead"
                        ),
                    );
                    None
                }
            }
        } else {
            None
        };
        let verts = if let Some(c) = fx {
            c
        } else if is_mesh(ctx, n) {
            match world_mesh(ctx, n) {
                Ok((v, _)) => v,
                Err(e) => match boolean_vertices(ctx, n) {
                    Some(v) => v,
                    None => {
                        warn(n, format!("mesh for cluster test: {e}"));
                        Vec::new()
                    }
                },
            }
        } else {
            Vec::new()
        };
        let list: Vec<u32> = clusters
            .iter()
            .enumerate()
            .filter(|(_, (cb, _))| verts.iter().any(|&v| cb.is_in(v)))
            .map(|(k, _)| k as u32)
            .collect();
        if !clusters.is_empty() && list.is_empty() {
            warn(
                n,
                "not attached to any cluster but its clusterize flag is set".into(),
            );
        }
        inst.clusters = Some(list);
    }

    // Point lights and the sun flag (ig_lights.rs).
    let (point_lights, sun) = super::ig_lights::build(ctx, nodes, &mut warn);

    // CInstanceGroup::build: link each portal to the clusters holding all its points.
    let mut cluster_portals: Vec<Vec<i32>> = vec![Vec::new(); clusters.len()];
    for (pi, (poly, _)) in portals.iter().enumerate() {
        for (ci, (cb, _)) in clusters.iter().enumerate() {
            if poly.iter().all(|&p| cb.is_in(p)) {
                cluster_portals[ci].push(pi as i32);
            }
        }
    }

    InstanceGroup {
        version: IG_VERSION,
        real_time_sun_contribution: Some(Bool(u8::from(sun))),
        // Version 1, as NeL (and so today's plug-in) writes it: NeL reads a
        // version 0 grid map (keyed by name) by discarding it.
        surface_light: Some(IgSurfaceLight {
            version: 1,
            cell_size: F32::from_f32(1.0),
            oo_cell_size: F32::from_f32(1.0),
            ..Default::default()
        }),
        point_lights: Some(point_lights),
        global_pos: Some(Vec3::from([0.0; 3])),
        clusters: clusters.into_iter().map(|(_, c)| c).collect(),
        portals: portals.into_iter().map(|(_, p)| p).collect(),
        cluster_portals,
        instances,
    }
}

/// getNelObjectName: a particle system's `ps_file_name` without directory,
/// else INSTANCE_SHAPE of the node when set and not empty (the node name
/// when empty), else the object's INSTANCE_SHAPE file name, else the node
/// name.
fn object_name(ctx: &Context, node: usize) -> String {
    if let Some(ps) = super::ig_fx::ps_file_name(ctx, node) {
        return super::ig_fx::file_name(&ps).to_string();
    }
    let p = ctx.props.node(node);
    let name = ctx.graph.node_name(node).to_string();
    if p.set.contains(&"instance_shape") {
        return if p.instance_shape.is_empty() {
            name
        } else {
            p.instance_shape.clone()
        };
    }
    match &p.instance_shape_object {
        Some(s) if !s.is_empty() => s
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(s.as_str())
            .to_string(),
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use maxfs_scene::eval::Quat as MQuat;

    /// NeL's CQuat → column-vector matrix element (row, col).
    fn quat_matrix(q: [f32; 4]) -> [[f64; 3]; 3] {
        let [x, y, z, w] = q.map(f64::from);
        MQuat { x, y, z, w }.to_column_matrix()
    }

    #[test]
    fn decomp_identity_and_rotations() {
        let (p, r, s) = decomp(&Mat43::translation(V3(1.0, 2.0, 3.0)));
        assert_eq!(p, [1.0, 2.0, 3.0]);
        assert_eq!(s, [1.0, 1.0, 1.0]);
        let z = (-0.0f32).to_bits();
        assert_eq!(r.map(f32::to_bits), [z, z, z, (-1.0f32).to_bits()]);
        for (axis, angle) in [
            (V3(0.0, 0.0, 1.0), 0.7),
            (V3(1.0, 0.0, 0.0), 3.0),
            (V3(0.3, -0.5, 0.8).normalized(), 2.9),
        ] {
            let m = Mat43::scaling(V3(2.0, 3.0, 0.5))
                .then(&Mat43::rotation(MQuat::from_axis_angle(axis, angle)));
            let (_, q, s) = decomp(&m);
            assert!((s[0] - 2.0).abs() < 1e-5 && (s[1] - 3.0).abs() < 1e-5);
            let qm = quat_matrix(q);
            let rows = m.rows();
            for i in 0..3 {
                for j in 0..3 {
                    // NeL's matrix is the transpose of Max's row layout.
                    let want = rows[j][i] / f64::from(s[j]);
                    assert!((qm[i][j] - want).abs() < 1e-5, "{axis:?} {angle}: {qm:?}");
                }
            }
        }
    }

    #[test]
    fn portal_polygon_from_two_triangles() {
        // A quad 0-1-2-3 split along 0-2, as Max's Plane object does.
        let poly = portal_poly(&[[0, 1, 2], [2, 3, 0]]);
        assert_eq!(poly, vec![0, 1, 2, 3]);
        assert!(portal_poly(&[]).is_empty());
        let square = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
        ];
        assert!(portal_poly_ok(&square));
        assert!(!portal_poly_ok(&square[..2]));
    }

    #[test]
    fn cluster_volume_of_a_cube() {
        let v = |x: f32, y: f32, z: f32| [x, y, z];
        let c = [
            v(0.0, 0.0, 0.0),
            v(1.0, 0.0, 0.0),
            v(1.0, 1.0, 0.0),
            v(0.0, 1.0, 0.0),
            v(0.0, 0.0, 1.0),
            v(1.0, 0.0, 1.0),
            v(1.0, 1.0, 1.0),
            v(0.0, 1.0, 1.0),
        ];
        // Outward-facing triangles (counter-clockwise seen from outside).
        let faces = [
            [0, 2, 1],
            [0, 3, 2],
            [4, 5, 6],
            [4, 6, 7],
            [0, 1, 5],
            [0, 5, 4],
            [1, 2, 6],
            [1, 6, 5],
            [2, 3, 7],
            [2, 7, 6],
            [3, 0, 4],
            [3, 4, 7],
        ];
        let mut cb = ClusterBuild::default();
        for f in faces {
            assert!(cb.make_volume(c[f[0]], c[f[1]], c[f[2]]));
        }
        assert_eq!(cb.planes.len(), 6);
        assert!(cb.is_in([0.5, 0.5, 0.5]));
        assert!(!cb.is_in([1.5, 0.5, 0.5]));
        assert_eq!(cb.bbox.center, [0.5, 0.5, 0.5]);
        assert_eq!(cb.bbox.half, [0.5, 0.5, 0.5]);
    }
}
