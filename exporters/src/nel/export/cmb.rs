//! `.cmb` (`NLPACS::CCollisionMeshBuild`): the collision meshes of a scene, one
//! file per instance-group name, as rbank's cmb_export.ms and the plug-in's
//! `createCollisionMeshBuildList` / `createCollisionMeshBuild`
//! (nel_mesh_lib/export_collision.cpp; seed S003 l.449-455) build them.
//!
//! - cmb_export.ms selects the `geometry` nodes whose COLLISION or
//!   COLLISION_EXTERIOR is "1"; the plug-in then keeps those whose COLLISION
//!   reads as the integer 1 (`getScriptAppData(.., BST_UNCHECKED) ==
//!   BST_CHECKED`) and groups them by raw IGNAME ("unknown_ig" when empty), in
//!   selection order. An exterior-only node is selected but never built: it is
//!   named in errors.txt.
//! - Per group, each node's evaluated mesh goes to world space through the
//!   object TM at time 0; faces keep their material id; the surface is -1 for
//!   an exterior node, else a running surface base + material id, the base
//!   growing by (largest material id of the node) + 1 after every node
//!   (+1 for an exterior node).
//! - Edge visibility is remapped: `Visibility[0]` ← EDGE_B, `[1]` ← EDGE_C,
//!   `[2]` ← EDGE_A (Max's face flags 2, 4, 1).
//! - Vertices of different nodes closer than 5 mm are welded to the lowest
//!   index (never within one node); faces that become degenerate are dropped
//!   (the plug-in warns; here each is an errors.txt line).
//! - `CCollisionMeshBuild::link` (exterior, then interior) must find no edge
//!   used twice on the same side; a group with such errors is not written.

use crate::error::{ExportError, ExportResult};
use std::collections::HashMap;

use maxfs_scene::eval::Mat43;

use super::properties::id;
use super::select::{self, superclass};
use super::{Context, ExportKind, Exports, Output};
use crate::nel::cmb::{CollisionFace, CollisionMeshBuild};
use crate::nel::stream::{Bool, Vec3};
use crate::nel::{write_nel, NelFile};

/// createCollisionMeshBuild's weld distance (metres, `CVector::norm`).
pub const WELD_THRESHOLD: f32 = 0.005;
/// Max's face flags: edge visibility of edges AB, BC, CA.
const EDGE_A: u16 = 1;
const EDGE_B: u16 = 2;
const EDGE_C: u16 = 4;
/// The IGNAME of nodes that have none.
const DEFAULT_IG: &str = "unknown_ig";
/// The plug-in warns when the group's bounding box is wider than this half size.
const MAX_HALF_SIZE: f32 = 255.0;

/// NeL's `fromString(string, int)`: leading blanks, an optional sign and
/// decimal digits; anything else is not a number (the default applies).
pub fn script_int(text: Option<&str>, default: i64) -> i64 {
    let Some(t) = text else { return default };
    let t = t.trim_start();
    let digits_end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
        .map_or(t.len(), |(i, _)| i);
    t[..digits_end].parse().unwrap_or(default)
}

/// One node's contribution: world vertices, faces, whether it is exterior.
pub struct NodeMesh {
    pub name: String,
    pub exterior: bool,
    pub vertices: Vec<[f32; 3]>,
    /// Vertex indices, Max face flags, material id.
    pub faces: Vec<([u32; 3], u16, u16)>,
}

/// What [`build`] reports besides the mesh: faces dropped as degenerate after
/// the weld (node, face index) and the link errors.
#[derive(Debug, Default)]
pub struct BuildReport {
    pub degenerate: Vec<(String, usize)>,
    pub link_errors: Vec<String>,
    pub too_large: bool,
}

/// The nodes cmb_export.ms selects, grouped as createCollisionMeshBuildList
/// does; exterior-only nodes are reported.
fn groups(ctx: &Context, out: &mut Exports) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for n in select::tree_order(ctx.graph) {
        if select::category(ctx, n) != Some(superclass::GEOMETRY) {
            continue;
        }
        let p = ctx.props.node(n);
        if !p.script_is_one(id::COLLISION) && !p.script_is_one(id::COLLISION_EXTERIOR) {
            continue;
        }
        if script_int(p.raw(id::COLLISION), 0) != 1 {
            out.push_error(
                ExportKind::Cmb,
                ctx.graph.node_name(n),
                "COLLISION_EXTERIOR without COLLISION: the plug-in selects the node but builds no collision from it",
            );
            continue;
        }
        let ig = match p.raw(id::IGNAME) {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => DEFAULT_IG.to_string(),
        };
        match groups.iter_mut().find(|(g, _)| *g == ig) {
            Some((_, nodes)) => nodes.push(n),
            None => groups.push((ig, vec![n])),
        }
    }
    groups
}

fn node_mesh(ctx: &Context, node: usize) -> ExportResult<NodeMesh> {
    let mesh = ctx.mesh0(node)?;
    let tm: Mat43 = ctx.eval.object_tm(node, 0);
    let vertices: Vec<[f32; 3]> = mesh
        .vertices
        .iter()
        .map(|v| {
            let w = tm.transform_point(*v);
            [w.0 as f32, w.1 as f32, w.2 as f32]
        })
        .collect();
    let n = vertices.len() as u32;
    if let Some(i) = mesh.faces.iter().position(|f| f.v.iter().any(|&v| v >= n)) {
        return Err(ExportError::invalid(format!(
            "face {i} refers to a vertex past the end ({n} vertices)"
        )));
    }
    let p = ctx.props.node(node);
    Ok(NodeMesh {
        name: ctx.graph.node_name(node).to_string(),
        exterior: script_int(p.raw(id::COLLISION_EXTERIOR), 0) != 0,
        vertices,
        faces: mesh
            .faces
            .iter()
            .map(|f| (f.v, f.flags, f.material))
            .collect(),
    })
}

/// Merges the nodes of one group into a collision mesh (createCollisionMeshBuild).
pub fn build(nodes: &[NodeMesh]) -> (CollisionMeshBuild, BuildReport) {
    let mut vertices: Vec<[f32; 3]> = Vec::new();
    let mut owner: Vec<usize> = Vec::new();
    let mut faces: Vec<CollisionFace> = Vec::new();
    let mut origin: Vec<(usize, usize)> = Vec::new();
    let mut total_surfaces: i64 = 0;
    for (k, m) in nodes.iter().enumerate() {
        let base = vertices.len() as u32;
        vertices.extend_from_slice(&m.vertices);
        owner.extend(std::iter::repeat_n(k, m.vertices.len()));
        let mut max_mat: i64 = 0;
        for (i, &(v, flags, mat)) in m.faces.iter().enumerate() {
            let mat = i64::from(mat);
            if !m.exterior {
                max_mat = max_mat.max(mat);
            }
            faces.push(CollisionFace {
                v: [v[0] + base, v[1] + base, v[2] + base],
                visibility: [
                    Bool(u8::from(flags & EDGE_B != 0)),
                    Bool(u8::from(flags & EDGE_C != 0)),
                    Bool(u8::from(flags & EDGE_A != 0)),
                ],
                surface: if m.exterior {
                    -1
                } else {
                    (total_surfaces + mat) as i32
                },
                material: mat as i32,
            });
            origin.push((k, i));
        }
        total_surfaces += max_mat + 1;
    }

    let remap = weld(&vertices, &owner);
    let mut welded: Vec<[f32; 3]> = Vec::new();
    let mut new_id = vec![0u32; vertices.len()];
    for i in 0..vertices.len() {
        if remap[i] == i {
            new_id[i] = welded.len() as u32;
            welded.push(vertices[i]);
        } else {
            new_id[i] = new_id[remap[i]];
        }
    }
    let mut report = BuildReport::default();
    let mut kept = Vec::with_capacity(faces.len());
    for (f, (k, i)) in faces.into_iter().zip(origin) {
        let v = f.v.map(|x| new_id[x as usize]);
        if v[0] == v[1] || v[1] == v[2] || v[2] == v[0] {
            report.degenerate.push((nodes[k].name.clone(), i));
            continue;
        }
        kept.push(CollisionFace { v, ..f });
    }
    if let Some(first) = welded.first() {
        let (mut lo, mut hi) = (*first, *first);
        for v in &welded {
            for a in 0..3 {
                lo[a] = lo[a].min(v[a]);
                hi[a] = hi[a].max(v[a]);
            }
        }
        report.too_large =
            (hi[0] - lo[0]) / 2.0 > MAX_HALF_SIZE || (hi[1] - lo[1]) / 2.0 > MAX_HALF_SIZE;
    }
    report.link_errors = link_errors(&kept);
    let cmb = CollisionMeshBuild {
        vertices: welded.into_iter().map(Vec3::from).collect(),
        faces: kept,
    };
    (cmb, report)
}

/// The weld of createCollisionMeshBuild: for each vertex i not yet welded, in
/// index order, every later vertex j of another node, not yet welded, within
/// [`WELD_THRESHOLD`] goes to i. The plug-in finds candidates through a
/// 1-metre quad grid of XY boxes; a hash of the same 1-metre cells gives the
/// same candidates (every vertex within the threshold lies in a cell the
/// vertex's ±threshold box touches). Returns, per vertex, the vertex it is
/// welded to (itself when kept).
pub fn weld(vertices: &[[f32; 3]], owner: &[usize]) -> Vec<usize> {
    let cell = |x: f32| (x.floor() as i64, 0);
    let mut grid: HashMap<(i64, i64), Vec<usize>> = HashMap::new();
    for (j, v) in vertices.iter().enumerate() {
        let (x0, x1) = (cell(v[0] - WELD_THRESHOLD).0, cell(v[0] + WELD_THRESHOLD).0);
        let (y0, y1) = (cell(v[1] - WELD_THRESHOLD).0, cell(v[1] + WELD_THRESHOLD).0);
        for x in x0..=x1 {
            for y in y0..=y1 {
                grid.entry((x, y)).or_default().push(j);
            }
        }
    }
    let mut remap: Vec<usize> = (0..vertices.len()).collect();
    for i in 0..vertices.len() {
        if remap[i] != i {
            continue;
        }
        let a = vertices[i];
        let key = (cell(a[0]).0, cell(a[1]).0);
        let Some(cands) = grid.get(&key) else {
            continue;
        };
        for &j in cands {
            if j <= i || owner[i] == owner[j] || remap[j] != j {
                continue;
            }
            let b = vertices[j];
            let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let norm = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            if norm <= WELD_THRESHOLD {
                remap[j] = i;
            }
        }
    }
    remap
}

/// `CCollisionMeshBuild::link(false)` then `link(true)`: within the exterior
/// faces, then within the interior ones, a directed edge used by two faces,
/// or an edge whose other side is used twice, is an error.
pub fn link_errors(faces: &[CollisionFace]) -> Vec<String> {
    let mut errors = Vec::new();
    for interior in [false, true] {
        // (va, vb) → (left face, right face)
        let mut edges: HashMap<(u32, u32), (usize, Option<usize>)> = HashMap::new();
        for (i, f) in faces.iter().enumerate() {
            if (f.surface >= 0) != interior {
                continue;
            }
            for j in 0..3 {
                let (va, vb) = (f.v[j], f.v[(j + 1) % 3]);
                if let Some((left, _)) = edges.get(&(va, vb)) {
                    errors.push(format!(
                        "edge ({va},{vb}) of face {i}: its left side is already face {left}"
                    ));
                } else if let Some((_, right)) = edges.get_mut(&(vb, va)) {
                    match right {
                        Some(r) => errors.push(format!(
                            "edge ({va},{vb}) of face {i}: its right side is already face {r}"
                        )),
                        None => *right = Some(i),
                    }
                } else {
                    edges.insert((va, vb), (i, None));
                }
            }
        }
    }
    errors
}

/// Writes one `<igname>.cmb` per group.
pub fn export(ctx: &Context, out: &mut Exports) {
    for (ig, nodes) in groups(ctx, out) {
        let mut meshes = Vec::new();
        let mut failed = false;
        for &n in &nodes {
            match node_mesh(ctx, n) {
                Ok(m) => meshes.push(m),
                Err(e) => {
                    out.push_error(ExportKind::Cmb, ctx.graph.node_name(n), e);
                    failed = true;
                }
            }
        }
        if failed {
            out.push_error(
                ExportKind::Cmb,
                &ig,
                "not written: a node of the group has no evaluated mesh",
            );
            continue;
        }
        let (cmb, report) = build(&meshes);
        for (node, face) in &report.degenerate {
            out.push_error(
                ExportKind::Cmb,
                node,
                format!("face {face} degenerate after the weld: dropped, as the plug-in does"),
            );
        }
        if report.too_large {
            out.push_error(
                ExportKind::Cmb,
                &ig,
                "warning: the bounding box exceeds 512 m (written anyway, as the plug-in does)",
            );
        }
        if !report.link_errors.is_empty() {
            out.push_error(
                ExportKind::Cmb,
                &ig,
                format!(
                    "not written: {} edge link errors (first: {})",
                    report.link_errors.len(),
                    report.link_errors[0]
                ),
            );
            continue;
        }
        let name = format!("{ig}.cmb");
        match write_nel(&NelFile::CollisionMeshBuild(cmb)) {
            Ok(bytes) => out.outputs.push(Output {
                kind: ExportKind::Cmb,
                with_coarse_mesh: false,
                name,
                bytes,
            }),
            Err(e) => out.push_error(ExportKind::Cmb, &ig, format!("cannot serialize: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// export_collision.cpp: vertices of different nodes within 5 mm weld to
    /// the lowest index; vertices of one node never weld; beyond 5 mm nothing.
    #[test]
    fn weld_rule() {
        let v = [
            [0.0, 0.0, 0.0],
            [0.004, 0.0, 0.0],  // same node as 0: kept
            [0.0, 0.0, 0.0049], // node 1: welds to 0
            [0.0, 0.0051, 0.0], // node 1: too far
            [0.999, 0.0, 0.0],
            [1.003, 0.0, 0.0], // node 2, other grid cell: welds to 4
        ];
        let owner = [0, 0, 1, 1, 1, 2];
        assert_eq!(weld(&v, &owner), vec![0, 1, 0, 3, 4, 4]);
    }

    fn face(v: [u32; 3], surface: i32) -> CollisionFace {
        CollisionFace {
            v,
            visibility: [Bool(1); 3],
            surface,
            material: 0,
        }
    }

    /// CCollisionMeshBuild::link: an edge used twice in the same direction is
    /// an error; exterior and interior faces are linked separately.
    #[test]
    fn link_rule() {
        let ok = [face([0, 1, 2], 0), face([2, 1, 3], 0)];
        assert!(link_errors(&ok).is_empty());
        let twice = [face([0, 1, 2], 0), face([0, 1, 3], 0)];
        assert_eq!(link_errors(&twice).len(), 1);
        let apart = [face([0, 1, 2], -1), face([0, 1, 3], 0)];
        assert!(link_errors(&apart).is_empty());
    }

    #[test]
    fn script_int_reads_like_nel() {
        assert_eq!(script_int(Some("1"), 0), 1);
        assert_eq!(script_int(Some(" 1"), 0), 1);
        assert_eq!(script_int(Some("1abc"), 0), 1);
        assert_eq!(script_int(Some("abc"), 7), 7);
        assert_eq!(script_int(None, 7), 7);
        assert_eq!(script_int(Some("-2"), 0), -2);
    }

    /// Surfaces: running base + material id, base += max id + 1 per node
    /// (+1 for an exterior node, whose faces read -1); visibility remap.
    #[test]
    fn surfaces_and_visibility() {
        let m = |name: &str, exterior, z: f32, faces| NodeMesh {
            name: name.into(),
            exterior,
            vertices: vec![[0.0, 0.0, z], [1.0, 0.0, z], [0.0, 1.0, z]],
            faces,
        };
        let a = m(
            "a",
            false,
            10.0,
            vec![([0, 1, 2], EDGE_A, 2), ([0, 2, 1], EDGE_B | EDGE_C, 0)],
        );
        let e = m("e", true, 20.0, vec![([0, 1, 2], 0, 5)]);
        let b = m("b", false, 30.0, vec![([0, 1, 2], 0, 0)]);
        let (cmb, rep) = build(&[a, e, b]);
        assert!(rep.degenerate.is_empty() && rep.link_errors.is_empty());
        let s: Vec<(i32, i32)> = cmb.faces.iter().map(|f| (f.surface, f.material)).collect();
        assert_eq!(s, [(2, 2), (0, 0), (-1, 5), (4, 0)]);
        let vis: Vec<[u8; 3]> = cmb
            .faces
            .iter()
            .map(|f| f.visibility.map(|b| b.0))
            .collect();
        assert_eq!(vis[0], [0, 0, 1]);
        assert_eq!(vis[1], [1, 1, 0]);
        assert_eq!(cmb.faces[3].v, [6, 7, 8]);
    }
}
