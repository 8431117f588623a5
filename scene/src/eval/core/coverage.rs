//! What the evaluation does not compute, by class. An unsupported transform
//! controller evaluates as identity and an unsupported object has no mesh; this
//! list is how `info.json`, `maxfs check` and the exporters say so by name
//! instead of showing a plausible but wrong scene (Biped, IK chains, CAT, …).

use crate::eval::error::EvalErrorKind;
use crate::eval::EvalError;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::typed::schema::{DERIVED_OSM, DERIVED_WSM};
use crate::typed::ClassId;

use crate::eval::core::controller::Controller;
use crate::eval::core::transform::SceneEval;

/// Superclass of geometric objects: these should yield a mesh.
const SC_GEOMOBJECT: u32 = 0x10;
/// Superclass of shapes (splines): geometry once a modifier such as Extrude,
/// Lathe, Bevel or Sweep sits on them.
const SC_SHAPE: u32 = 0x40;
/// The target of a camera or light: geometry by superclass, never rendered.
const TARGET_OBJECT: ClassId = ClassId(0x1020, 0);
/// Controllers followed below one node's transform (damaged files may loop).
const MAX_CONTROLLERS: usize = 64;
/// Frames of the animation range a rig-placed node is checked at, at most
/// (a longer range is checked at this many evenly spread frames).
const MAX_RIG_SAMPLES: i64 = 1000;
/// Modifiers followed down one stack.
const MAX_STACK: usize = 256;
/// The deepest parent chain followed (deeper is a cycle in damaged data).
const MAX_CHAIN: usize = 512;

/// One class the evaluation does not handle, in one role, and where it is used.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Gap {
    /// "transform controller", "position controller", "rotation controller",
    /// "scale controller", "float controller", "inherited transform" (a
    /// parent's is not evaluated), "object", "modifier",
    /// "map channel"
    /// (mesh built, a channel a texture-coordinate modifier writes not), "material"
    /// (colours not decoded: exported with defaults), "normals" (specified
    /// normals left out), "mesh part" (a part a saved result standing in for
    /// the stack lacks: an Unwrap UVW cache's smoothing groups).
    pub role: &'static str,
    pub class: String,
    /// Names of the nodes affected, in scene order.
    pub nodes: Vec<String>,
}

impl Gap {
    /// Whether the gap is in how the nodes are placed (a controller of theirs
    /// or of an ancestor), not in what they show.
    pub fn places_nodes(&self) -> bool {
        self.role.ends_with("controller") || self.role == "inherited transform"
    }

    /// One line for `maxfs check`: `rotation controller "Biped SubAnim": 3 nodes (Bip01, …)`.
    pub fn summary(&self) -> String {
        let shown: Vec<&str> = self.nodes.iter().take(3).map(String::as_str).collect();
        let more = if self.nodes.len() > 3 { ", …" } else { "" };
        format!(
            "{} {:?} not evaluated: {} node{} ({}{more})",
            self.role,
            self.class,
            self.nodes.len(),
            if self.nodes.len() == 1 { "" } else { "s" },
            shown.join(", ")
        )
    }
}

/// Every unevaluated (role, class) of the scene with the nodes it affects.
/// `mesh_evaluated(node)` says whether the node's object and modifier stack
/// evaluate; it is passed in so that this list follows the mesh code rather
/// than repeating its class table.
pub fn gaps(eval: &SceneEval, mesh_evaluated: &dyn Fn(usize) -> MeshCoverage) -> Vec<Gap> {
    let mut by_key: BTreeMap<(&'static str, String), Vec<String>> = BTreeMap::new();
    for (idx, obj) in eval.graph.objects.iter().enumerate() {
        let Some(node) = &obj.node else { continue };
        let mut add = |role: &'static str, class: String| {
            let names = by_key.entry((role, class)).or_default();
            if names.last() != Some(&node.name) {
                names.push(node.name.clone());
            }
        };
        let mut own_tm_gap = false;
        if let Some(ctl) = eval.tm_controller(idx) {
            // Biped parts and Link Constraints are evaluated node by node
            // (rig_transform.rs): a gap names the reason of this node.
            let mut add_tm = |role: &'static str, class: String| {
                own_tm_gap = true;
                add(role, class)
            };
            match eval
                .direct_world(idx, 0)
                .map(|r| r.and_then(|_| rig_over_range(eval, idx)))
            {
                Some(Ok(())) => {}
                Some(Err(why)) => add_tm(
                    "transform controller",
                    format!("{} ({why})", class_name(eval, ctl)),
                ),
                None => controller_gaps(eval, ctl, "transform controller", 0, &mut add_tm),
            }
        }
        if !own_tm_gap {
            // Its own transform is evaluated, but a parent's is not: its world
            // transform is wrong too, so the node is named with the ancestor.
            let mut inherited = tm_gaps(eval, idx);
            if inherited.is_empty() {
                inherited.extend(rig_ancestor_gap(eval, idx));
            }
            for g in inherited {
                add("inherited transform", g);
            }
        }
        // A material whose colours are not decoded is exported with defaults.
        if let Some(m) = crate::eval::render::material::node_material(&eval.graph, idx) {
            for class in crate::eval::render::material::undecoded_classes(eval, m) {
                add("material", class);
            }
            if let Some(why) = crate::eval::objects::boolean::material_ids_gap(eval, idx, m) {
                add("material", why);
            }
        }
        match mesh_evaluated(idx) {
            MeshCoverage::Evaluated => {
                // Geometry kept, a channel left out by a texture-coordinate
                // modifier that is not evaluated (modifier/uv_only.rs).
                if let Some(Ok(mesh)) = eval.mesh(idx, 0) {
                    for r in &mesh.missing_maps {
                        add("map channel", r.describe());
                    }
                    if let Some(r) = &mesh.missing_normals {
                        add("normals", r.describe());
                    }
                    // Parts a saved result standing in for the stack lacks
                    // (modifier/unwrap_cache.rs).
                    for r in &mesh.missing_parts {
                        add("mesh part", r.describe());
                    }
                }
            }
            MeshCoverage::NotGeometry => {}
            MeshCoverage::Object(class) => add("object", class),
            MeshCoverage::Modifiers(classes) => {
                for class in classes {
                    add("modifier", class);
                }
            }
        }
    }
    by_key
        .into_iter()
        .map(|((role, class), nodes)| Gap { role, class, nodes })
        .collect()
}

/// How far the mesh of one node evaluates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MeshCoverage {
    Evaluated,
    /// Not a geometric object (camera, light, helper, spline, none).
    NotGeometry,
    /// The base object's class has no mesh evaluation.
    Object(String),
    /// Modifiers of the stack (their classes) that are not applied.
    Modifiers(Vec<String>),
}

/// The class name of object `idx`, or its index where it has none.
pub(crate) fn class_name(eval: &SceneEval, idx: usize) -> String {
    eval.graph
        .class(idx)
        .map_or_else(|| format!("object {idx}"), |c| c.name.clone())
}

fn controller_gaps(
    eval: &SceneEval,
    idx: usize,
    role: &'static str,
    depth: usize,
    add: &mut dyn FnMut(&'static str, String),
) {
    if depth > MAX_CONTROLLERS {
        return;
    }
    // IK goals and joints: evaluated when their chain solves (eval/ik/plug.rs);
    // where no solve gives the transform, the PRS it comes from is walked.
    match crate::eval::rigs::ik::plug::coverage(eval, idx) {
        Some(Ok(())) => {
            if let Some(src) = crate::eval::rigs::ik::plug::unsolved_source(eval, idx) {
                controller_gaps(eval, src, role, depth + 1, add);
            }
            return;
        }
        Some(Err(why)) => return add(role, format!("{} ({why})", class_name(eval, idx))),
        None => {}
    }
    let Some(ctl) = eval.controller(idx) else {
        let why = eval
            .controller_error(idx)
            .map(|e| e.to_string())
            .unwrap_or_default();
        add(
            role,
            format!("{} (unreadable: {why})", class_name(eval, idx)),
        );
        return;
    };
    let mut sub = |i: &Option<usize>, r: &'static str| {
        if let Some(i) = *i {
            controller_gaps(eval, i, r, depth + 1, add);
        }
    };
    match ctl {
        Controller::Unsupported { class } => add(role, class.clone()),
        Controller::Prs {
            position,
            rotation,
            scale,
        } => {
            sub(position, "position controller");
            sub(rotation, "rotation controller");
            sub(scale, "scale controller");
        }
        Controller::LookAt {
            position,
            roll,
            scale,
            ..
        } => {
            sub(position, "position controller");
            sub(roll, "float controller");
            sub(scale, "scale controller");
            refuse_nested_follow(eval, *position, "under a LookAt", role, add);
        }
        Controller::PositionXyz { axes }
        | Controller::ScaleXyz { axes }
        | Controller::EulerXyz { axes, .. } => {
            for a in axes {
                sub(a, "float controller");
            }
        }
        // Its percent is a float; its paths' shapes must interpolate.
        Controller::PathConstraint(p) => {
            for c in p.controllers() {
                sub(&Some(c), "float controller");
            }
            if let Err(why) = crate::eval::rigs::path_constraint::check(eval, p, 0) {
                add(role, format!("{} ({why})", class_name(eval, idx)));
            }
        }
        // The system's animated parameters are floats; the master must decode.
        Controller::SunSlave(s) => {
            for c in s.system.controllers() {
                sub(&Some(c), "float controller");
            }
            if let Err(why) = crate::eval::systems::sunlight::check_at(eval, s, 0) {
                add(role, format!("{} ({why})", class_name(eval, idx)));
            }
        }
        // A list's entries play the list's own part.
        Controller::List { .. } => {
            for i in ctl.children() {
                controller_gaps(eval, i, role, depth + 1, add);
            }
        }
        Controller::Float { .. }
        | Controller::Point3 { .. }
        | Controller::Rotation { .. }
        | Controller::Scale { .. } => {}
    }
}

/// A following Path Constraint `idx` under a LookAt: the LookAt sets the
/// rotation from its target after its position controller ran, an order
/// this evaluation does not follow, so it is named.
fn refuse_nested_follow(
    eval: &SceneEval,
    idx: Option<usize>,
    place: &str,
    role: &'static str,
    add: &mut dyn FnMut(&'static str, String),
) {
    if let Some(Controller::PathConstraint(p)) = idx.and_then(|i| eval.controller(i)) {
        if p.follow.is_some() {
            add(
                role,
                format!("Path Constraint (follow {place} is not evaluated)"),
            );
        }
    }
}

/// The modifiers of a node's stack, top first (derived objects keep them on
/// the lower reference slots and the object below on the highest).
pub fn modifiers(eval: &SceneEval, node: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let refs = |i: usize| eval.graph.objects.get(i).map(|o| &o.references);
    let Some(mut cur) = refs(node)
        .and_then(|r| r.iter().find(|r| r.slot == 1))
        .and_then(|r| usize::try_from(r.target).ok())
    else {
        return out;
    };
    for _ in 0..MAX_STACK {
        let Some(o) = eval.graph.objects.get(cur) else {
            break;
        };
        if !matches!(o.chunk_id, DERIVED_OSM | DERIVED_WSM) {
            break;
        }
        let targets: Vec<(u32, usize)> = o
            .references
            .iter()
            .filter_map(|r| Some((r.slot, usize::try_from(r.target).ok()?)))
            .collect();
        let Some(&(top_slot, base)) = targets.iter().max_by_key(|(s, _)| *s) else {
            break;
        };
        out.extend(
            targets
                .iter()
                .filter(|(s, _)| *s != top_slot)
                .map(|&(_, t)| t),
        );
        cur = base;
    }
    out
}

/// Whether the node's object is geometry that `base_mesh` cannot build.
pub fn base_object_coverage(eval: &SceneEval, node: usize) -> MeshCoverage {
    let Some(obj) = eval.node_object(node) else {
        return MeshCoverage::NotGeometry;
    };
    let Some(class) = eval.graph.class(obj) else {
        return MeshCoverage::NotGeometry;
    };
    if class.super_class == SC_SHAPE {
        return shape_coverage(eval, node);
    }
    if class.super_class != SC_GEOMOBJECT
        || class.class_id == TARGET_OBJECT
        || crate::eval::objects::file_link::is_block_head(eval, node)
    {
        return MeshCoverage::NotGeometry;
    }
    match eval.base_mesh(node) {
        Some(Ok(_)) => MeshCoverage::Evaluated,
        Some(Err(e)) => MeshCoverage::Object(object_gap(&class.name, &e)),
        None => MeshCoverage::Object(class.name.clone()),
    }
}

/// How an object that does not evaluate is named. A readable object using a
/// feature the evaluation does not build (a CAT bone's custom mesh, a
/// Boolean whose operand is an Arc) is partial, not damaged — also when the
/// refusal comes from a part inside it (an operand, nested Booleans).
fn object_gap(class: &str, e: &EvalError) -> String {
    if e.kind() == EvalErrorKind::NotEvaluated {
        format!("{class} ({e})")
    } else {
        format!("{class} (damaged: {e})")
    }
}

/// A shape is geometry under a modifier stack (an extruded spline) or when
/// it renders as a tube ("Enable In Renderer"); a bare path is not. When
/// such a shape does not evaluate, the shape (its class) or the modifier that
/// fails is named — never silently absent.
fn shape_coverage(eval: &SceneEval, node: usize) -> MeshCoverage {
    let class = eval
        .node_object(node)
        .map_or_else(|| "?".to_string(), |o| class_name(eval, o));
    match eval.mesh(node, 0) {
        None => MeshCoverage::NotGeometry,
        Some(Ok(_)) => MeshCoverage::Evaluated,
        Some(Err(msg)) => {
            if let Some(why) = msg.in_shape() {
                return MeshCoverage::Object(format!("{class} ({why})"));
            }
            let mods: Vec<String> = modifiers(eval, node)
                .into_iter()
                .map(|m| class_name(eval, m))
                .collect();
            match mods.iter().find(|name| names_modifier(&msg, name)) {
                Some(name) => MeshCoverage::Modifiers(vec![name.clone()]),
                None if mods.is_empty() => MeshCoverage::Object(format!("{class} ({msg})")),
                None => MeshCoverage::Modifiers(mods),
            }
        }
    }
}

/// Whether `e` is modifier `name`'s failure: a stack modifier's own error, or
/// a refusal that names it (an index edit above a Boolean is refused before
/// the stack runs, in the same words).
fn names_modifier(e: &EvalError, name: &str) -> bool {
    e.failing_modifier() == Some(name) || e.to_string().starts_with(&format!("modifier {name} ("))
}

/// Mesh coverage of a node: its base object, then its modifier stack as
/// [`SceneEval::mesh`] applies it (the first modifier it cannot apply, by class).
pub fn mesh_coverage(eval: &SceneEval, node: usize) -> MeshCoverage {
    match base_object_coverage(eval, node) {
        MeshCoverage::Evaluated => match eval.mesh(node, 0) {
            Some(Err(msg)) => {
                let failing = modifiers(eval, node)
                    .into_iter()
                    .map(|m| class_name(eval, m))
                    .find(|name| names_modifier(&msg, name));
                MeshCoverage::Modifiers(vec![failing.unwrap_or_else(|| msg.to_string())])
            }
            _ => MeshCoverage::Evaluated,
        },
        other => other,
    }
}

/// A rig-placed node (Biped, Link Constraint) may evaluate at frame 0 and not
/// inside the take (a key rule that is refused for one segment): it is
/// checked at every frame of the animation range, so a refusal anywhere in
/// the take is named, not only by the glTF or `.anim` sample that meets it.
fn rig_over_range(eval: &SceneEval, node: usize) -> Result<(), EvalError> {
    use crate::settings::{time_config, TimeConfig};
    let time = time_config(&eval.doc).unwrap_or(TimeConfig::DEFAULT);
    let step = i64::from(time.ticks_per_frame.max(1));
    let (start, end) = (i64::from(time.start), i64::from(time.end));
    if end <= start {
        return Ok(());
    }
    let frames = (end - start) / step + 1;
    let stride = (frames + MAX_RIG_SAMPLES - 1) / MAX_RIG_SAMPLES;
    let mut t = start;
    while t <= end {
        // Within i32: start and end are stored ticks.
        let tick = t as i32;
        if let Some(Err(why)) = eval.direct_world(node, tick) {
            return Err(EvalError::not_evaluated_why(
                format!("at tick {tick}"),
                why.to_string(),
            ));
        }
        t += step * stride.max(1);
    }
    Ok(())
}

/// The refusal of the nearest directly evaluated ancestor (a Biped part)
/// somewhere in the take: a node under it is wrong at those ticks too
/// (RabbitSkin's Hummer under Bip01 R Hand, refused between arm IK keys).
fn rig_ancestor_gap(eval: &SceneEval, node: usize) -> Option<String> {
    // A directly evaluated node (a rig part) does not inherit: its own gap
    // names it.
    if eval.direct_world(node, 0).is_some() {
        return None;
    }
    let mut cur = eval.graph.objects.get(node)?.node.as_ref()?.parent;
    for _ in 0..MAX_CHAIN {
        let n = cur.map(|p| p as usize)?;
        let info = eval.graph.objects.get(n)?.node.as_ref()?;
        if eval.direct_world(n, 0).is_some() {
            let why = rig_over_range(eval, n).err()?;
            let class = eval
                .tm_controller(n)
                .map_or_else(String::new, |c| class_name(eval, c));
            return Some(format!("{class} ({why}) on ancestor {:?}", info.name));
        }
        cur = info.parent.filter(|&p| p as usize != n);
    }
    None
}

/// [`gaps`] with the mesh coverage of this crate's evaluation.
pub fn scene_gaps(eval: &SceneEval) -> Vec<Gap> {
    gaps(eval, &|n| mesh_coverage(eval, n))
}

/// The unevaluated controller classes that a node's world TM depends on: those
/// of the nearest node up its parent chain (itself first) that has any, as
/// "class" or "class on ancestor \"name\"" strings; empty when `world_tm` is exact.
/// Rig nodes (Biped parts, Link Constraints) are asked at tick 0: see
/// [`tm_gaps_at`] for a given tick.
pub fn tm_gaps(eval: &SceneEval, node: usize) -> Vec<String> {
    tm_gaps_at(eval, node, 0)
}

/// [`tm_gaps`] at tick `t`: a Biped part may evaluate at one tick and be
/// refused at another (an IK segment, a biased key), so whatever uses a
/// node's world TM at `t` — Skin deforming at `t`, a sampled animation — asks
/// at `t` (biped-ld35/Yellow@Spawn's toes evaluate at 4 of its 41 frames).
pub fn tm_gaps_at(eval: &SceneEval, node: usize, t: i32) -> Vec<String> {
    let mut cur = Some(node);
    for _ in 0..MAX_CHAIN {
        let Some(n) = cur else { break };
        let Some(info) = eval.graph.objects.get(n).and_then(|o| o.node.as_ref()) else {
            break;
        };
        let mut out: Vec<String> = Vec::new();
        // A Biped part or Link Constraint gives its world TM directly
        // (rig_transform.rs): evaluated, the ancestors do not matter.
        let direct = eval.direct_world(n, t);
        if let Some(Ok(_)) = direct {
            return Vec::new();
        }
        if let (Some(Err(why)), Some(ctl)) = (direct, eval.tm_controller(n)) {
            let class = format!("{} ({why})", class_name(eval, ctl));
            out.push(if n == node {
                class
            } else {
                format!("{class} on ancestor {:?}", info.name)
            });
        } else if let Some(ctl) = eval.tm_controller(n) {
            let mut add = |_: &'static str, class: String| {
                let entry = if n == node {
                    class
                } else {
                    format!("{class} on ancestor {:?}", info.name)
                };
                if !out.contains(&entry) {
                    out.push(entry);
                }
            };
            controller_gaps(eval, ctl, "transform controller", 0, &mut add);
        }
        if !out.is_empty() {
            return out;
        }
        cur = info
            .parent
            .map(|p| p as usize)
            .filter(|&p| p != n && eval.graph.objects.get(p).is_some_and(|o| o.node.is_some()));
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_inside_an_object_is_not_damage() {
        // The seventh sweep's puzzle files: a Boolean whose operand B is an Arc.
        let inner = EvalError::not_evaluated("object class Arc").inside("Boolean operand B");
        assert_eq!(
            object_gap("Boolean", &inner),
            "Boolean (Boolean operand B: object class Arc is not evaluated)"
        );
        let bad = EvalError::malformed("", "5 corners").inside("Boolean operand A");
        assert_eq!(
            object_gap("Boolean", &bad),
            "Boolean (damaged: Boolean operand A: 5 corners)"
        );
    }
}
