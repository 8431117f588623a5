//! Which nodes each build_gamedata export script visits, in which order, and
//! under which file names (nel/tools/build_gamedata/processes/*/maxscript).
//!
//! MAXScript's `objects`, `geometry`, `lights` and `helpers` collections walk
//! the node tree depth-first from the scene root, children in storage order
//! (S:463), filtered by the superclass of the node's base object; the file's
//! container order is not the visit order. `selectmore` keeps insertion order
//! (S:280), so a script that selects geometry, then lights, then helpers gets
//! them in that order.

use maxfs_scene::graph::SceneGraph;
use maxfs_scene::typed::ClassId;

use super::properties::id;
use super::Context;

/// Max superclass ids used by the MAXScript collections.
pub mod superclass {
    pub const GEOMETRY: u32 = 0x10;
    pub const CAMERA: u32 = 0x20;
    pub const LIGHT: u32 = 0x30;
    pub const SHAPE: u32 = 0x40;
    pub const HELPER: u32 = 0x70;
}

/// Target objects (of cameras and lights) are GeomObjects but not meshes; the
/// plug-in's isMesh excludes them (S:281) and so does `geometry` here.
pub const TARGET: ClassId = ClassId(0x1020, 0);
pub const RKL_PATCH: ClassId = ClassId(0x368c_679f, 0x711c_22ee);
/// nel_ps is matched on PartA only (export_nel.h).
pub const NEL_PS_PART_A: u32 = 0x58ce_2893;
pub const NEL_PACS_BOX: ClassId = ClassId(0x7f37_4277, 0x5d39_71df);
pub const NEL_PACS_CYLINDER: ClassId = ClassId(0x62a5_6810, 0x4b3d_601c);
pub use maxfs_scene::eval::core::transform::{NODE_FLAGS_CHUNK, NODE_HIDDEN};

/// A node an export script visits and the file name it writes for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    /// Index of the node in `SceneGraph::objects`.
    pub node: usize,
    /// Output file name as the script builds it (not sanitized).
    pub name: String,
    /// shape_export.ms haveCoarseMesh: a LOD slave is a coarse mesh, so the
    /// shape goes to the with-coarse-mesh directory.
    pub with_coarse_mesh: bool,
}

/// One instance group: its IGNAME and the nodes NelExportInstanceGroup gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgGroup {
    pub ig_name: String,
    /// `<igname>.ig`.
    pub file_name: String,
    /// Geometry, then lights, then helpers, each in tree order.
    pub nodes: Vec<usize>,
}

/// Nodes in MAXScript visit order: depth-first pre-order from the root node,
/// children in storage order. Nodes whose parent chain does not reach a root
/// (damaged files) follow, in storage order, so none is lost. The root itself
/// is not included (`objects` never yields it).
pub fn tree_order(graph: &SceneGraph) -> Vec<usize> {
    let n = graph.objects.len();
    let is_node = |i: usize| graph.objects.get(i).is_some_and(|o| o.node.is_some());
    let parent_of = |i: usize| -> Option<usize> {
        let p = graph.objects.get(i)?.node.as_ref()?.parent? as usize;
        (p != i && is_node(p)).then_some(p)
    };
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, o) in graph.objects.iter().enumerate() {
        if o.node.is_none() {
            continue;
        }
        match parent_of(i) {
            Some(p) => children[p].push(i),
            None => roots.push(i),
        }
    }
    let mut seen = vec![false; n];
    let mut out = Vec::new();
    for &r in &roots {
        let is_scene_root = graph.objects[r]
            .class
            .as_ref()
            .is_some_and(|c| c.class_id == ClassId(2, 0));
        // An explicit stack keeps deep hierarchies off the call stack.
        let mut stack: Vec<usize> = vec![r];
        while let Some(i) = stack.pop() {
            if seen[i] {
                continue;
            }
            seen[i] = true;
            if !(i == r && is_scene_root) {
                out.push(i);
            }
            stack.extend(children[i].iter().rev().copied().filter(|&c| !seen[c]));
        }
    }
    // Cycles in damaged files never reach a root: append them.
    out.extend((0..n).filter(|&i| is_node(i) && !seen[i] && !is_root_class(graph, i)));
    out
}

/// Whether object `i` is the scene root; a parent index past the object
/// list (damaged files) is not.
fn is_root_class(graph: &SceneGraph, i: usize) -> bool {
    graph.class(i).is_some_and(|c| c.class_id == ClassId(2, 0))
}

/// The class id and superclass of a node's base object.
pub fn object_class(ctx: &Context, node: usize) -> Option<(ClassId, u32)> {
    let obj = ctx.eval.node_object(node)?;
    let c = ctx.graph.objects.get(obj)?.class.as_ref()?;
    Some((c.class_id, c.super_class))
}

/// The MAXScript collection a node belongs to: its base object's superclass,
/// with target objects kept out of `geometry`.
pub fn category(ctx: &Context, node: usize) -> Option<u32> {
    let (cid, sc) = object_class(ctx, node)?;
    if sc == superclass::GEOMETRY && cid == TARGET {
        return None;
    }
    Some(sc)
}

fn name_of<'c>(ctx: &'c Context, node: usize) -> &'c str {
    ctx.graph
        .objects
        .get(node)
        .and_then(|o| o.node.as_ref())
        .map_or("", |n| n.name.as_str())
}

/// shape_export.ms `lowercase`: only A-Z are mapped.
pub fn script_lowercase(s: &str) -> String {
    s.chars().map(|c| c.to_ascii_lowercase()).collect()
}

/// `$'name'`: the first node in tree order whose name matches, ignoring case
/// (MAXScript path names are case-insensitive).
fn find_by_name(ctx: &Context, order: &[usize], name: &str) -> Option<usize> {
    order
        .iter()
        .copied()
        .find(|&i| name_of(ctx, i).eq_ignore_ascii_case(name))
}

/// The LOD slave names of a node as the scripts read them: LOD_NAME_COUNT
/// `as Integer`, then LOD_NAME + i for each.
fn script_lod_names(ctx: &Context, node: usize) -> Vec<String> {
    let p = ctx.props.node(node);
    let Some(count) = p.raw(id::LOD_NAME_COUNT) else {
        return Vec::new();
    };
    let count = count.trim().parse::<i64>().unwrap_or(0).clamp(0, 64) as u32;
    (0..count)
        .filter_map(|i| p.raw(id::LOD_NAME + i).map(str::to_string))
        .collect()
}

/// The top-level ancestor of a node (`getRoot`: stops below the scene root).
fn top_ancestor(ctx: &Context, node: usize) -> usize {
    let mut cur = node;
    for _ in 0..4096 {
        let parent = ctx
            .graph
            .objects
            .get(cur)
            .and_then(|o| o.node.as_ref())
            .and_then(|n| n.parent)
            .map(|p| p as usize)
            .filter(|&p| p != cur && !is_root_class(ctx.graph, p))
            .filter(|&p| ctx.graph.objects.get(p).is_some_and(|o| o.node.is_some()));
        match parent {
            Some(p) => cur = p,
            None => break,
        }
    }
    cur
}

/// shape_export.ms isToBeExported: not an accelerator, not RklPatch / nel_ps /
/// pacs primitives, and DONOTEXPORT, COLLISION, COLLISION_EXTERIOR not "1".
fn is_to_be_exported(ctx: &Context, node: usize) -> bool {
    let p = ctx.props.node(node);
    if p.script_is_accelerator() {
        return false;
    }
    if let Some((cid, _)) = object_class(ctx, node) {
        if cid == RKL_PATCH
            || cid.0 == NEL_PS_PART_A
            || cid == NEL_PACS_BOX
            || cid == NEL_PACS_CYLINDER
        {
            return false;
        }
    }
    ![id::DONTEXPORT, id::COLLISION, id::COLLISION_EXTERIOR]
        .iter()
        .any(|&k| p.script_is_one(k))
}

/// The nodes shape_export.ms exports, in its order: all of `geometry`, then
/// all of `shapes`; each named `lowercase(name).shape`. Nodes named "Bip…" or
/// under a "Bip…" root, excluded nodes and LOD slaves are skipped.
pub fn shape_nodes(ctx: &Context) -> Vec<Selected> {
    let order = tree_order(ctx.graph);
    let geometry: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| category(ctx, i) == Some(superclass::GEOMETRY))
        .collect();
    let shapes = order
        .iter()
        .copied()
        .filter(|&i| category(ctx, i) == Some(superclass::SHAPE));
    // LOD slaves are collected from geometry masters only, as the script does.
    let mut lods: Vec<usize> = Vec::new();
    for &g in &geometry {
        for name in script_lod_names(ctx, g) {
            if let Some(n) = find_by_name(ctx, &order, &name) {
                lods.push(n);
            }
        }
    }
    let have_coarse_mesh = |node: usize| {
        script_lod_names(ctx, node).iter().any(|name| {
            find_by_name(ctx, &order, name)
                .is_some_and(|n| ctx.props.node(n).raw(id::LOD_COARSE_MESH) == Some("1"))
        })
    };
    geometry
        .iter()
        .copied()
        .chain(shapes)
        .filter(|&i| {
            !name_of(ctx, i).starts_with("Bip")
                && !name_of(ctx, top_ancestor(ctx, i)).starts_with("Bip")
        })
        .filter(|&i| is_to_be_exported(ctx, i))
        .filter(|i| !lods.contains(i))
        .map(|i| Selected {
            node: i,
            name: format!("{}.shape", script_lowercase(name_of(ctx, i))),
            with_coarse_mesh: have_coarse_mesh(i),
        })
        .collect()
}

/// shape_export.ms isAnimToBeExported: nodes (all of `objects`) whose
/// AUTOMATIC_ANIMATION is set and not "0", exported as `<name>.anim` (name not
/// lowercased), excluding accelerators, pacs primitives and excluded nodes.
pub fn automatic_anim_nodes(ctx: &Context) -> Vec<Selected> {
    tree_order(ctx.graph)
        .into_iter()
        .filter(|&i| {
            let p = ctx.props.node(i);
            match p.raw(id::AUTOMATIC_ANIMATION) {
                None | Some("0") => return false,
                Some(_) => {}
            }
            if p.script_is_accelerator() {
                return false;
            }
            if let Some((cid, _)) = object_class(ctx, i) {
                if cid == NEL_PACS_BOX || cid == NEL_PACS_CYLINDER {
                    return false;
                }
            }
            ![id::DONTEXPORT, id::COLLISION, id::COLLISION_EXTERIOR]
                .iter()
                .any(|&k| p.script_is_one(k))
        })
        .map(|i| Selected {
            node: i,
            name: format!("{}.anim", name_of(ctx, i)),
            with_coarse_mesh: false,
        })
        .collect()
}

/// ig_export.ms: every distinct non-empty IGNAME in `objects` order (exact,
/// case-sensitive compare); per group the `geometry`, then `lights`, then
/// `helpers` nodes carrying that name, each pass in tree order.
pub fn ig_groups(ctx: &Context) -> Vec<IgGroup> {
    ig_groups_with(ctx, false)
}

/// [`ig_groups`] as nel_ligo_export.ms's own `getIg` reads IGNAME: lowercased
/// (`lowercase`, ASCII letters), so groups, members and file names are lowercase.
pub fn ig_groups_with(ctx: &Context, lowercase: bool) -> Vec<IgGroup> {
    let order = tree_order(ctx.graph);
    let ig_of = |i: usize| {
        ctx.props.node(i).raw(id::IGNAME).map(|s| {
            if lowercase {
                s.to_ascii_lowercase()
            } else {
                s.to_string()
            }
        })
    };
    let mut names: Vec<String> = Vec::new();
    for &i in &order {
        if let Some(ig) = ig_of(i) {
            if !ig.is_empty() && !names.contains(&ig) {
                names.push(ig);
            }
        }
    }
    names
        .into_iter()
        .map(|ig| {
            let member = |i: &usize| ig_of(*i).as_deref() == Some(ig.as_str());
            IgGroup {
                file_name: format!("{ig}.ig"),
                nodes: by_category(ctx, &order, member),
                ig_name: ig,
            }
        })
        .collect()
}

/// Every geometry, light and helper node (in that order), for exporting a
/// whole scene as one instance group, as the plug-in's "export instance group"
/// on a full selection does; used when a file carries no IGNAME.
pub fn scene_group_nodes(ctx: &Context) -> Vec<usize> {
    let order = tree_order(ctx.graph);
    by_category(ctx, &order, |_| true)
}

fn by_category(ctx: &Context, order: &[usize], member: impl Fn(&usize) -> bool) -> Vec<usize> {
    let mut out = Vec::new();
    for sc in [superclass::GEOMETRY, superclass::LIGHT, superclass::HELPER] {
        out.extend(
            order
                .iter()
                .copied()
                .filter(|&i| category(ctx, i) == Some(sc))
                .filter(|i| member(i)),
        );
    }
    out
}

/// skel_export.ms: `$Bip01` (first node named Bip01, any case), written as
/// `<maxfile>.skel`.
pub fn skel_root(ctx: &Context) -> Option<usize> {
    find_by_name(ctx, &tree_order(ctx.graph), "Bip01")
}

/// anim_export.ms: `$Bip01` first, then every node of `objects` whose
/// EXPORT_NODE_ANIMATION is "1" (selection order, no duplicates); written as
/// `<maxfile>.anim` when not empty.
pub fn anim_nodes(ctx: &Context) -> Vec<usize> {
    let order = tree_order(ctx.graph);
    let mut out: Vec<usize> = find_by_name(ctx, &order, "Bip01").into_iter().collect();
    for &i in &order {
        if ctx.props.node(i).script_is_one(id::EXPORT_NODE_ANIMATION) && !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// swt_export.ms: `max select all` (hidden nodes are not selected), then the
/// plug-in keeps the nodes with EXPORT_SWT set; written as `<maxfile>.swt`.
pub fn swt_nodes(ctx: &Context) -> Vec<usize> {
    tree_order(ctx.graph)
        .into_iter()
        .filter(|&i| !is_hidden(ctx, i) && ctx.props.node(i).export_swt)
        .collect()
}

/// MAXScript's `node.parent == undefined`: the parent is the scene root.
pub fn parent_is_root(ctx: &Context, n: usize) -> bool {
    let Some(p) = ctx
        .graph
        .objects
        .get(n)
        .and_then(|o| o.node.as_ref())
        .and_then(|i| i.parent)
    else {
        return true;
    };
    ctx.graph
        .class(p as usize)
        .is_none_or(|c| c.class_id == ClassId(2, 0))
}

/// Whether a node is hidden ([`SceneEval::is_hidden`](maxfs_scene::eval::SceneEval::is_hidden)).
pub fn is_hidden(ctx: &Context, node: usize) -> bool {
    ctx.eval.is_hidden(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use maxfs_scene::graph::{NodeInfo, ObjectClass, SceneObject};

    fn node(index: usize, parent: Option<u32>, root: bool) -> SceneObject {
        SceneObject {
            index,
            chunk_id: 0,
            class: Some(ObjectClass {
                class_id: if root { ClassId(2, 0) } else { ClassId(1, 0) },
                super_class: 1,
                name: String::new(),
                dll: "builtin".into(),
            }),
            references: Vec::new(),
            appdata: Vec::new(),
            node: Some(NodeInfo {
                version: None,
                parent,
                flags: None,
                name: format!("n{index}"),
                offset_position: None,
                offset_rotation: None,
                offset_scale: None,
                wire_colour: None,
                colour_by_layer: false,
            }),
            note_keys: Vec::new(),
        }
    }

    #[test]
    fn tree_order_is_depth_first_not_storage_order() {
        // Children of two parents interleave in storage order (S:463).
        let g = SceneGraph {
            version: 0,
            objects: vec![
                node(0, None, true),
                node(1, Some(0), false),
                node(2, Some(0), false),
                node(3, Some(1), false),
                node(4, Some(2), false),
                node(5, Some(1), false),
                // A cycle (damaged file): still listed, after the tree.
                node(6, Some(7), false),
                node(7, Some(6), false),
            ],
        };
        assert_eq!(tree_order(&g), vec![1, 3, 5, 2, 4, 6, 7]);
        // A parent past the object list (found by tests/examples/mutate_files
        // on a public file): neither the root nor a node, never an index.
        assert!(!is_root_class(&g, 20_502));
        let damaged = SceneGraph {
            version: 0,
            objects: vec![node(0, None, true), node(1, Some(20_502), false)],
        };
        assert_eq!(tree_order(&damaged), vec![1]);
    }

    #[test]
    fn script_lowercase_maps_ascii_only() {
        assert_eq!(script_lowercase("Box02_É"), "box02_É");
    }
}
