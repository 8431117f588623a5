//! JSON shapes of the evaluated scene: node transforms (`json/nodes.json`'s
//! transforms) and per-mesh summaries (`json/meshes.json`). Formatting lives
//! here, in fs; the evaluated scene only answers queries.

use serde::Serialize;

use maxfs_scene::eval::core::coverage;
use maxfs_scene::eval::{Mat43, SceneEval};

#[derive(Debug, Clone, Serialize)]
pub struct NodeTransform {
    pub index: usize,
    pub name: String,
    pub parent: Option<u32>,
    pub hidden: bool,
    pub frozen: bool,
    /// Parent-relative matrix at t = 0, rows (Max row-vector convention);
    /// `None` when the node's own transform controller is not evaluated.
    pub local: Option<[[f64; 3]; 4]>,
    /// `None` when the node's or an ancestor's transform is not evaluated.
    pub world: Option<[[f64; 3]; 4]>,
    /// Why `local` or `world` is missing (the coverage gap texts); empty when
    /// both are evaluated. A matrix is never shown in place of a gap.
    pub transform_gaps: Vec<String>,
    pub object_offset: [[f64; 3]; 4],
    /// TM controller class, e.g. "Position/Rotation/Scale".
    pub controller: Option<String>,
    /// The node's visibility track, when it has one.
    pub visibility: Option<Visibility>,
}

/// A node's visibility track: its value at t = 0 (1 shown, 0 hidden from
/// renders) and whether it changes over time, or why it is not evaluated.
#[derive(Debug, Clone, Serialize)]
pub struct Visibility {
    pub value: Option<f64>,
    pub animated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

fn rows(m: &Mat43) -> [[f64; 3]; 4] {
    // Round away float noise below f32 precision so the JSON is stable.
    m.rows().map(|r| r.map(|v| (v as f32) as f64 + 0.0))
}

pub fn node_transforms(eval: &SceneEval) -> Vec<NodeTransform> {
    eval.graph
        .nodes()
        .map(|(o, n)| {
            let gaps = coverage::tm_gaps(eval, o.index);
            // Gaps of an ancestor leave the node's own local matrix valid.
            let own_gap = gaps.iter().any(|g| !g.contains(" on ancestor "));
            (o, n, gaps, own_gap)
        })
        .map(|(o, n, gaps, own_gap)| NodeTransform {
            index: o.index,
            name: n.name.clone(),
            parent: n.parent,
            hidden: eval.is_hidden(o.index),
            frozen: eval.chunks(o.index).iter().any(|c| c.id == 0x0976),
            local: (!own_gap).then(|| rows(&eval.local_tm(o.index, 0))),
            world: gaps.is_empty().then(|| rows(&eval.world_tm(o.index, 0))),
            transform_gaps: gaps,
            object_offset: rows(&eval.offset_tm(o.index)),
            controller: eval
                .tm_controller(o.index)
                .and_then(|c| eval.graph.objects.get(c))
                .and_then(|c| c.class.as_ref())
                .map(|c| c.name.clone()),
            visibility: eval.visibility(o.index, 0).map(|v| match v {
                Ok((value, animated)) => Visibility {
                    value: Some(value),
                    animated,
                    error: None,
                },
                Err(e) => Visibility {
                    value: None,
                    animated: false,
                    error: Some(e.to_string()),
                },
            }),
        })
        .collect()
}

#[derive(Debug, Clone, Serialize)]
pub struct MeshSummary {
    pub index: usize,
    pub name: String,
    /// Class of the base object.
    pub object_class: Option<String>,
    /// A modifier stack is present.
    pub has_modifiers: bool,
    /// The modifiers of the stack, top first.
    pub modifiers: Vec<String>,
    /// The counts below are of the mesh with its stack applied (false: of the base
    /// object, because the stack could not be applied — see `error`).
    pub evaluated: bool,
    pub vertices: usize,
    pub faces: usize,
    /// Object-space bounds (min, max).
    pub bounds: Option<([f64; 3], [f64; 3])>,
    pub map_channels: Vec<i32>,
    pub material_ids: Vec<u16>,
    pub smoothing_groups: u32,
    /// Why the mesh or its modifier stack could not be evaluated (names the modifier).
    pub error: Option<String>,
}

/// Per mesh node: counts, bounds, channels and material ids of the evaluated mesh
/// at t = 0 (or of the base object when the stack cannot be applied).
pub fn meshes(eval: &SceneEval) -> Vec<MeshSummary> {
    let mut out = Vec::new();
    for (o, n) in eval.graph.nodes() {
        let Some((stack, obj)) = eval.modifier_stack(o.index) else {
            continue;
        };
        // A shape's mesh (extruded or rendered as a tube) has no base mesh:
        // the shape's stack makes it.
        let shape_mesh = eval
            .graph
            .objects
            .get(obj)
            .is_some_and(|_| maxfs_scene::eval::objects::shape::is_shape_object(eval, obj));
        let base = if shape_mesh {
            match eval.mesh(o.index, 0) {
                Some(m) => m,
                None => continue,
            }
        } else {
            let Some(base) = eval.base_mesh(o.index) else {
                continue;
            };
            base
        };
        let class = eval.graph.objects[obj]
            .class
            .as_ref()
            .map(|c| c.name.clone());
        let mut s = MeshSummary {
            index: o.index,
            name: n.name.clone(),
            object_class: class,
            has_modifiers: !stack.is_empty(),
            modifiers: stack.iter().map(|m| m.name.to_string()).collect(),
            evaluated: false,
            vertices: 0,
            faces: 0,
            bounds: None,
            map_channels: Vec::new(),
            material_ids: Vec::new(),
            smoothing_groups: 0,
            error: None,
        };
        let result = match (stack.is_empty() || shape_mesh, base) {
            (true, base) => base.map(|m| (m, true)),
            (false, Err(e)) => Err(e),
            (false, Ok(base)) => match eval.mesh(o.index, 0) {
                Some(Ok(m)) => Ok((m, true)),
                Some(Err(e)) => {
                    s.error = Some(e.to_string());
                    Ok((base, false))
                }
                None => Ok((base, false)),
            },
        };
        match result {
            Ok((m, evaluated)) => {
                s.evaluated = evaluated;
                s.vertices = m.vertices.len();
                s.faces = m.faces.len();
                s.bounds = m.vertices.iter().fold(None, |b, v| {
                    let v = v.to_array();
                    Some(match b {
                        None => (v, v),
                        Some((lo, hi)) => (
                            std::array::from_fn(|i| f64::min(lo[i], v[i])),
                            std::array::from_fn(|i| f64::max(hi[i], v[i])),
                        ),
                    })
                });
                s.map_channels = m.maps.iter().map(|c| c.channel).collect();
                let mut ids: Vec<u16> = m.faces.iter().map(|f| f.material).collect();
                ids.sort_unstable();
                ids.dedup();
                s.material_ids = ids;
                s.smoothing_groups = m.faces.iter().fold(0, |a, f| a | f.smoothing);
            }
            Err(e) => s.error = Some(e.to_string()),
        }
        out.push(s);
    }
    out
}
