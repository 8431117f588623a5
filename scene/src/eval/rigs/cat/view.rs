//! `json/cat.json`: the CAT rigs of a scene as stored — each CATParent with
//! its units and mode, and its bones with their controller class, layer
//! controller (flags by name, setup matrix in scene units, layer count),
//! dimensions, and whether their world TM is evaluated or why not; and the
//! rig's animation layers (LayerRoot: name, method, global weight at 0).
//! docs/cat.md says what each field means.

use serde::Serialize;

use super::records::{self, CatMode};
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;

#[derive(Debug, Serialize)]
pub struct CatView {
    pub rigs: Vec<RigView>,
}

/// One CATParent, or why its CATParentTrans could not be read.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum RigView {
    Rig(Box<RigInfo>),
    Error { controller: usize, error: String },
}

#[derive(Debug, Serialize)]
pub struct RigInfo {
    /// The CATParentTrans object index.
    pub controller: usize,
    /// The CATParent node (None when no node uses the controller).
    pub node: Option<usize>,
    pub name: String,
    pub version: u32,
    /// Scene units per CAT unit (setup positions are stored in CAT units).
    pub units: f64,
    /// "setup" or "animation".
    pub mode: &'static str,
    /// The animation layers (its LayerRoot, CATParentTrans reference 2),
    /// bottom first; empty when they cannot be read (`layers_error`).
    pub layers: Vec<LayerView>,
    pub layers_error: Option<String>,
    pub bones: Vec<BoneView>,
}

/// One animation layer (an NLAInfo or CATMotionLayer).
#[derive(Debug, Serialize)]
pub struct LayerView {
    pub object: usize,
    pub name: String,
    /// "absolute", "relative local", "relative world", "ignore" or
    /// "catmotion".
    pub method: &'static str,
    pub enabled: bool,
    /// Its global weight track's value at tick 0 (None: not a float).
    pub weight_at_0: Option<f64>,
}

fn layer_views(eval: &SceneEval, cpt: usize) -> Result<Vec<LayerView>, EvalError> {
    use super::layers::{self, Method};
    let root = records::reference(eval, cpt, 2).ok_or_else(|| {
        EvalError::reference(
            format!("CATParentTrans {cpt}"),
            "no LayerRoot (reference 2)",
        )
    })?;
    let stack = layers::layer_stack(eval, root)?;
    Ok(stack
        .layers
        .iter()
        .map(|l| LayerView {
            object: l.object,
            name: l.name.clone(),
            method: match l.method {
                Method::Absolute => "absolute",
                Method::Relative => "relative local",
                Method::RelativeWorld => "relative world",
                Method::Ignore => "ignore",
                Method::CatMotion => "catmotion",
            },
            enabled: l.enabled(),
            weight_at_0: Some(eval.float_at(l.weight, 0, f64::NAN)).filter(|v| v.is_finite()),
        })
        .collect())
}

#[derive(Debug, Serialize)]
pub struct BoneView {
    pub node: usize,
    pub name: String,
    /// The parent node's name (CAT links its bones as Max nodes too).
    pub parent: Option<String>,
    /// The transform controller's class (HubTrans, CATBoneSegTrans, …).
    pub class: &'static str,
    /// Width, depth, length in scene units (CATNodeControl chunk 10).
    pub dims: Option<[f32; 3]>,
    /// The CATClipMatrix3 holding the setup pose and layers (limb and spine
    /// bones keep theirs in their limb/spine data instead: None).
    pub layer_controller: Option<usize>,
    pub layers: Option<u32>,
    /// Its flags by name (CLIP_FLAG_* without the prefix).
    pub layer_flags: Vec<&'static str>,
    /// The setup matrix, translation in scene units (rows: X, Y, Z, position).
    pub setup: Option<[[f32; 3]; 4]>,
    /// Whether the world TM is evaluated; else the reason.
    pub evaluated: bool,
    pub refused: Option<String>,
}

const FLAG_NAMES: [(u32, &str); 10] = [
    (records::CLIP_HAS_TRANSFORM, "HAS_TRANSFORM"),
    (
        records::CLIP_SETUP_INHERITS_POS_FROM_CATPARENT,
        "SETUP_INHERITS_POS_FROM_CATPARENT",
    ),
    (
        records::CLIP_SETUP_INHERITS_ROT_FROM_CATPARENT,
        "SETUP_INHERITS_ROT_FROM_CATPARENT",
    ),
    (
        records::CLIP_SETUP_FLIPROT_FROM_CATPARENT,
        "SETUP_FLIPROT_FROM_CATPARENT",
    ),
    (
        records::CLIP_SETUP_INHERITS_POS_FROM_PARENT,
        "SETUP_INHERITS_POS_FROM_PARENT",
    ),
    (1 << 20, "INHERIT_POS"),
    (1 << 21, "INHERIT_ROT"),
    (1 << 22, "INHERIT_SCL"),
    (records::CLIP_RELATIVE_TO_SETUPPOSE, "RELATIVE_TO_SETUPPOSE"),
    (records::CLIP_SETUPPOSE_CONTROLLER, "SETUPPOSE_CONTROLLER"),
];

fn f32_rows(m: &crate::eval::core::math::Mat43) -> [[f32; 3]; 4] {
    m.rows().map(|r| r.map(|v| v as f32))
}

/// The whole view (empty `rigs` without CAT).
pub fn view(eval: &SceneEval) -> CatView {
    let objects = &eval.graph.objects;
    let nodes: Vec<(usize, usize)> = objects
        .iter()
        .enumerate()
        .filter(|(_, o)| o.node.is_some())
        .filter_map(|(i, _)| Some((i, eval.tm_controller(i)?)))
        .collect();
    let mut rigs = Vec::new();
    for (cpt, _) in objects.iter().enumerate() {
        let Some(cp) = records::cat_parent(eval, cpt) else {
            continue;
        };
        let cp = match cp {
            Ok(cp) => cp,
            Err(e) => {
                rigs.push(RigView::Error {
                    controller: cpt,
                    error: e.to_string(),
                });
                continue;
            }
        };
        let node = nodes.iter().find(|(_, c)| *c == cpt).map(|(n, _)| *n);
        let bones = nodes
            .iter()
            .filter_map(|&(n, ctl)| {
                let class = records::bone_class(eval, ctl)?;
                let control = records::cat_control(eval, ctl);
                let layer = records::layer_trans(eval, ctl);
                let clip = layer.and_then(|l| records::clip_matrix(eval, l).ok());
                let owner = clip
                    .as_ref()
                    .map(|c| c.cat_parent_trans)
                    .or(control.cat_parent_trans);
                (owner == Some(cpt)).then_some(())?;
                let world = eval.direct_world(n, 0);
                Some(BoneView {
                    node: n,
                    name: eval.graph.node_name(n).to_string(),
                    parent: eval
                        .parent_node(n)
                        .map(|p| eval.graph.node_name(p).to_string()),
                    class,
                    dims: control.dims,
                    layer_controller: layer,
                    layers: clip.as_ref().map(|c| c.layers),
                    layer_flags: clip
                        .as_ref()
                        .map(|c| {
                            FLAG_NAMES
                                .iter()
                                .filter(|(b, _)| c.flags & b != 0)
                                .map(|(_, n)| *n)
                                .collect()
                        })
                        .unwrap_or_default(),
                    setup: clip
                        .as_ref()
                        .map(|c| f32_rows(&super::setup_in(&c.setup, cp.units))),
                    evaluated: matches!(world, Some(Ok(_))),
                    refused: match world {
                        Some(Err(e)) => Some(e.to_string()),
                        _ => None,
                    },
                })
            })
            .collect();
        let layers = layer_views(eval, cpt);
        let layers_error = layers.as_ref().err().map(|e| e.to_string());
        rigs.push(RigView::Rig(Box::new(RigInfo {
            controller: cpt,
            node,
            name: cp.name.clone(),
            version: cp.version,
            units: cp.units,
            mode: match cp.mode {
                CatMode::Setup => "setup",
                CatMode::Animation(_) => "animation",
            },
            layers: layers.unwrap_or_default(),
            layers_error,
            bones,
        })));
    }
    CatView { rigs }
}
