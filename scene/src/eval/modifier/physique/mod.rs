//! Character Studio Physique: its per-vertex links decoded (`decode`), the
//! link → bone rules and the plug-in's top-4 weights (`links`), and the
//! result in the Skin shape (`Skin`: bones, per-vertex weights) so the
//! skinned-shape export and the json view treat Skin and Physique alike.
//!
//! The deformation (`deform`) is the blend the plug-in's export interface
//! gives (IPhyBlendedRigidVertex: bones and weights, each bone's node TM at
//! initialisation, `frames`), i.e. linear blend skinning from the stored bind
//! pose, as for Skin. For rigid links that is Physique's own result (a rigid
//! vertex follows its link's start node); for deformable links Physique
//! bends along a spline through the joints, which the blend approximates
//! (the FBX and NeL exporters make the same approximation).

pub mod decode;
pub mod deform;
pub mod frames;
pub mod links;
pub mod view;

use crate::chunk::Chunk;
use crate::eval::error::EvalError;
use crate::typed::ClassId;

use crate::eval::core::math::Mat43;
use crate::eval::core::transform::SceneEval;
use crate::eval::modifier::skin::{self, Skin, SkinBone, PHYSIQUE};

pub use decode::{Link, Local};
pub use frames::BindPose;
pub use links::Rig;

/// OSM superclass: Physique's class id alone also matches other classes.
const OSM_SUPER: u32 = 0x810;
/// Biped body (centre of mass) TM controller.
const BIPED_BODY: ClassId = ClassId(0x9156, 0);
/// The largest reference slot followed (a damaged slot must not allocate much).
const MAX_SLOTS: usize = 1 << 16;

/// Why Physique data cannot be used, with where it failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PhysiqueError {
    #[error("Physique: no {0}")]
    Missing(&'static str),
    #[error("Physique: vertex {vertex} has no link record (0x2506/0x0989)")]
    NoLinks { vertex: usize },
    #[error(
        "Physique: vertex {vertex}: link record 0x0989 of {len} bytes is not u32 n + n × 20 bytes"
    )]
    BadRecord { vertex: usize, len: usize },
    #[error("Physique: attach position 0x2807 of {len} bytes (expected 16)")]
    BadInitPosition { len: usize },
    #[error("Physique: attach position 0x2807 for vertex {index} of {vertices}")]
    InitPositionIndex { index: u32, vertices: usize },
    #[error("Physique: vertex {vertex} has a non-finite weight")]
    BadWeight { vertex: usize },
    #[error("Physique: link reference {link_ref} ends past the {slots} reference slots")]
    LinkOutOfRange { link_ref: i32, slots: usize },
    #[error("Physique: link reference {link_ref} ends at a bone without a parent")]
    NoLinkStart { link_ref: i32 },
    #[error("Physique: the modifier references no bone")]
    NoBones,
    #[error("Physique: the link-tree root has no node (ref[0] NULL, first bone has no parent)")]
    NoLinkRoot,
    #[error("Physique: reference slot {0} is out of range")]
    SlotOutOfRange(u32),
    #[error(
        "Physique: link table entry {slot} (0x3204/0x3206/0x2513) holds no affine 4×4 bone TM"
    )]
    BadLinkFrame { slot: usize },
    #[error("Physique: the link table has {links} entries for {slots} reference slots")]
    LinkTableCount { links: usize, slots: usize },
    #[error("Physique: bone node {node} is not in the reference table, so no initial TM is stored for it")]
    NoBindTm { node: usize },
    #[error("Physique: {vertices} vertices of link data, the mesh below has {mesh}")]
    VertexCount { vertices: usize, mesh: usize },
    // The inner error's own "Physique: " prefix is said once.
    #[error("Physique: vertex {vertex}: {}", .source.to_string().trim_start_matches("Physique: "))]
    Vertex {
        vertex: usize,
        #[source]
        source: Box<PhysiqueError>,
    },
}

/// The decoded Physique of one node.
#[derive(Debug, Clone, PartialEq)]
pub struct Physique {
    /// Object index of the Physique modifier.
    pub modifier: usize,
    /// The modifier's reference table by slot (bone node or NULL).
    pub refs: Vec<Option<usize>>,
    /// The stored links and attach positions.
    pub local: Local,
    /// Per vertex of the mesh below Physique: (bone node, weight), heaviest
    /// first, at most 4, summing to 1.
    pub weights: Vec<Vec<(usize, f32)>>,
    /// The stored bind pose (per-slot bone TMs, mesh TM), or why it cannot
    /// be read; only the deformation needs it.
    pub bind: Result<BindPose, PhysiqueError>,
}

impl Physique {
    /// The bone TM stored for `node` at initialisation (its first slot).
    pub fn bind_tm(&self, node: usize) -> Option<Mat43> {
        let slot = self.refs.iter().position(|r| *r == Some(node))?;
        self.bind.as_ref().ok()?.bones.get(slot).copied()
    }

    /// The same weights as a `Skin`: bones are the nodes used, in first-use
    /// order, each with the TM Physique stored for it when it has one, and
    /// the mesh TM at initialisation as `mesh_init_tm`.
    pub fn to_skin(&self) -> Skin {
        let mut nodes: Vec<usize> = Vec::new();
        let vertices = self
            .weights
            .iter()
            .map(|v| {
                v.iter()
                    .map(|&(n, w)| {
                        let i = nodes.iter().position(|&x| x == n).unwrap_or_else(|| {
                            nodes.push(n);
                            nodes.len() - 1
                        });
                        (i as u32, w)
                    })
                    .collect()
            })
            .collect();
        Skin {
            modifier: self.modifier,
            bones: nodes
                .into_iter()
                .map(|n| SkinBone {
                    node: Some(n),
                    init_tm: self.bind_tm(n),
                })
                .collect(),
            mesh_init_tm: self.bind.as_ref().ok().and_then(|b| b.mesh),
            vertices,
        }
    }

    /// `to_skin` with every bind TM present: what the deformation needs, or
    /// the first reason one is missing.
    pub fn bound_skin(&self) -> Result<Skin, PhysiqueError> {
        let bind = self.bind.as_ref().map_err(Clone::clone)?;
        if bind.mesh.is_none() {
            return Err(PhysiqueError::Missing(
                "mesh TM at initialisation (ModApp 0x2504/0x2502)",
            ));
        }
        let skin = self.to_skin();
        for b in &skin.bones {
            if let (Some(node), None) = (b.node, b.init_tm) {
                return Err(PhysiqueError::NoBindTm { node });
            }
        }
        Ok(skin)
    }
}

/// Resolves every vertex of `local` through `rig`.
pub fn resolve(local: &Local, rig: &Rig) -> Result<Vec<Vec<(usize, f32)>>, PhysiqueError> {
    local
        .vertices
        .iter()
        .enumerate()
        .map(|(v, l)| {
            rig.vertex(v, l).map_err(|e| match e {
                PhysiqueError::BadWeight { .. } => e,
                other => PhysiqueError::Vertex {
                    vertex: v,
                    source: Box::new(other),
                },
            })
        })
        .collect()
}

fn is_root_node(eval: &SceneEval, i: usize) -> bool {
    eval.graph
        .class(i)
        .is_some_and(|c| c.class_id == ClassId(2, 0))
}

/// The INode parent of a node, None at the top (below the scene root).
fn parent(eval: &SceneEval, node: usize) -> Option<usize> {
    let p = eval.graph.objects.get(node)?.node.as_ref()?.parent? as usize;
    (p != node
        && !is_root_node(eval, p)
        && eval.graph.objects.get(p).is_some_and(|o| o.node.is_some()))
    .then_some(p)
}

fn is_com(eval: &SceneEval, node: usize) -> bool {
    eval.tm_controller(node)
        .and_then(|c| eval.graph.objects.get(c))
        .and_then(|o| o.class.as_ref())
        .is_some_and(|c| c.class_id == BIPED_BODY)
}

/// The modifier's reference table by slot: a node target or None.
pub fn reference_table(
    eval: &SceneEval,
    modifier: usize,
) -> Result<Vec<Option<usize>>, PhysiqueError> {
    let obj = eval
        .graph
        .objects
        .get(modifier)
        .ok_or(PhysiqueError::Missing("modifier object"))?;
    let last = obj.references.iter().map(|r| r.slot).max();
    let Some(last) = last else {
        return Ok(Vec::new());
    };
    let len = (last as usize)
        .checked_add(1)
        .filter(|&n| n <= MAX_SLOTS)
        .ok_or(PhysiqueError::SlotOutOfRange(last))?;
    let mut refs = vec![None; len];
    for r in &obj.references {
        let t = usize::try_from(r.target)
            .ok()
            .filter(|&t| eval.graph.objects.get(t).is_some_and(|o| o.node.is_some()));
        if let Some(slot) = refs.get_mut(r.slot as usize) {
            *slot = t;
        }
    }
    Ok(refs)
}

/// Decodes Physique modifier `modifier` with its ModApp container.
pub fn decode_modifier(
    eval: &SceneEval,
    modifier: usize,
    mod_app: Option<&Chunk>,
) -> Result<Physique, PhysiqueError> {
    let refs = reference_table(eval, modifier)?;
    let app = mod_app.ok_or(PhysiqueError::Missing("ModApp for this node"))?;
    let local = decode::decode_mod_app(app)?;
    let parent = |n: usize| parent(eval, n);
    let com = |n: usize| is_com(eval, n);
    let rig = Rig {
        refs: &refs,
        parent: &parent,
        is_com: &com,
    };
    let weights = resolve(&local, &rig)?;
    let bind = frames::bone_tms(eval.chunks(modifier)).and_then(|bones| {
        if bones.len() != refs.len() {
            return Err(PhysiqueError::LinkTableCount {
                links: bones.len(),
                slots: refs.len(),
            });
        }
        Ok(BindPose {
            bones,
            mesh: frames::mesh_tm(app),
        })
    });
    Ok(Physique {
        modifier,
        refs,
        local,
        weights,
        bind,
    })
}

fn is_physique(eval: &SceneEval, m: usize) -> bool {
    eval.graph
        .class(m)
        .is_some_and(|c| c.class_id == PHYSIQUE && c.super_class == OSM_SUPER)
}

fn is_skin(eval: &SceneEval, m: usize) -> bool {
    eval.graph
        .class(m)
        .is_some_and(|c| c.class_id == skin::SKIN)
}

/// The Physique of a node: None when its stack holds none.
pub fn node_physique(eval: &SceneEval, node: usize) -> Option<Result<Physique, PhysiqueError>> {
    let m = skin::modifiers(eval, node)
        .into_iter()
        .find(|m| is_physique(eval, m.modifier))?;
    Some(decode_modifier(eval, m.modifier, m.mod_app))
}

/// Which skinning modifier a node's weights come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkinKind {
    Skin,
    Physique,
}

/// Every Skin and Physique of a node's stack, top first, each decoded to the
/// Skin shape (bones, per-vertex weights).
pub fn node_skinnings(
    eval: &SceneEval,
    node: usize,
) -> Vec<(SkinKind, usize, Result<Skin, EvalError>)> {
    skin::modifiers(eval, node)
        .into_iter()
        .filter_map(|m| decode_skinning(eval, m))
        .collect()
}

fn decode_skinning(
    eval: &SceneEval,
    m: skin::ModifierUse,
) -> Option<(SkinKind, usize, Result<Skin, EvalError>)> {
    if is_skin(eval, m.modifier) {
        let s = skin::decode_modifier(eval, m.modifier, m.mod_app);
        Some((SkinKind::Skin, m.modifier, s))
    } else if is_physique(eval, m.modifier) {
        let p = decode_modifier(eval, m.modifier, m.mod_app)
            .map(|p| p.to_skin())
            .map_err(EvalError::from);
        Some((SkinKind::Physique, m.modifier, p))
    } else {
        None
    }
}

/// The skinning of a node as the exporter takes it: the topmost Skin or
/// Physique of its stack (the modifier the shape export disables).
pub fn node_skinning(eval: &SceneEval, node: usize) -> Option<(SkinKind, Result<Skin, EvalError>)> {
    skin::modifiers(eval, node)
        .into_iter()
        .find_map(|m| decode_skinning(eval, m))
        .map(|(k, _, s)| (k, s))
}

#[cfg(test)]
mod tests;
