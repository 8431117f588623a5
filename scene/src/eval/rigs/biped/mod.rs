//! Character Studio Biped: the system object (0x9155) that owns a rig's figure
//! and keytracks, and the controllers that tie nodes to it — the COM
//! Vertical/Horizontal/Turn controller (0x9156), one BipSlave/BipDriven
//! controller (0x9154) per body part, and Footsteps (0x3011). Every one of them
//! references its system object as reference 0, so a file may hold several rigs.
//! Layouts: seed §11 (docs/evaluation.md, "Biped").

pub mod arms;
pub mod chains;
pub mod extra;
pub mod extremities;
pub mod figure;
pub mod leg_ik;
pub mod motion;
pub mod records;
pub mod tracks;

use crate::eval::error::EvalError;
use serde::Serialize;

use crate::chunk::Chunk;
use crate::typed::ClassId;

use crate::eval::core::transform::SceneEval;

pub use records::Figure;
pub use tracks::KeyTrack;

/// The Biped system object (sc 0x60).
pub const SYSTEM: ClassId = ClassId(0x9155, 0);
/// BipSlave Control (BipDriven Control from Max 2022): one body part.
pub const SLAVE: ClassId = ClassId(0x9154, 0);
/// Vertical/Horizontal/Turn: the COM node's controller.
pub const COM: ClassId = ClassId(0x9156, 0);
/// Footsteps: the footstep node's controller.
pub const FOOTSTEPS: ClassId = ClassId(0x3011, 0);

/// A BipSlave controller's (limb id, link index).
const BONE_ID: u16 = 0x0200;
/// System object: link count per limb id (u32 each).
const LINK_COUNTS: u16 = 0x0100;
/// System object: the node of each body part (u32 storage indices).
const NODE_TABLE: u16 = 0x0110;
/// System object: body type (0 skeleton, 1 male, 2 female, 3 classic).
const BODY_TYPE: u16 = 0x0115;
/// System object: link-parent inverse TM (Matrix3).
const LINK_PARENT_INVERSE: u16 = 0x0112;
/// System object: the COM's current-position frame (4×4, Y-up).
const CURRENT_FRAME: u16 = 0x0104;
/// System object: the Move All reference frame (4×4, Y-up).
const MOVE_ALL: u16 = 0x0117;
/// System object: the figure-mode flag (u32, 1 = saved in figure mode; seed
/// §10p, pinned by an isolation diff in Max 9).
const FIGURE_MODE: u16 = 0x0109;

/// Names of the limb ids of chunk 0x0200 (biped.getIdLink, 0-based), seed §11.
pub fn limb_name(id: u32) -> Option<&'static str> {
    Some(match id {
        0 => "left arm",
        1 => "right arm",
        2 => "left fingers",
        3 => "right fingers",
        4 => "left leg",
        5 => "right leg",
        6 => "left toes",
        7 => "right toes",
        8 => "spine",
        9 => "tail",
        10 => "head",
        11 => "pelvis",
        12 => "prop 1",
        13 => "prop 2",
        14 => "prop 3",
        15 => "footsteps",
        16 => "neck",
        17 => "ponytail 1",
        18 => "ponytail 2",
        22 => "right finger nub",
        23 => "left finger nub",
        24 => "left toe nub",
        25 => "right toe nub",
        26 => "tail nub",
        27 => "head nub",
        28 => "ponytail 1 nub",
        29 => "neck nub",
        200..=263 => "extra limb",
        400..=463 => "extra limb nub",
        _ => return None,
    })
}

/// What a node is in its rig.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Role {
    /// The center of mass (Bip01), driven by Vertical/Horizontal/Turn.
    Com,
    /// A body part: limb id and link index (chunk 0x0200).
    Part {
        limb: u32,
        link: u32,
    },
    Footsteps,
}

/// One node of a rig.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bone {
    pub node: usize,
    pub name: String,
    pub controller: usize,
    #[serde(flatten)]
    pub role: Role,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limb_name: Option<&'static str>,
    /// The parent node (storage index) and its name.
    pub parent: Option<usize>,
    pub parent_name: Option<String>,
    /// The body part's length: the X scale of its object offset (node chunk
    /// 0x096c), which scales the Biped Object's body-part mesh along the
    /// part (its Y and Z scales are not widths: docs/biped.md, "Biped
    /// Object geometry (session 30)"). A nub sits this far
    /// along its parent's X axis (NeoAxis Rabbit.skeleton: HeadNub 42.688 from
    /// the head, Toe0Nub 12.087 from the toe).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<f64>,
}

/// The rig-wide settings stored on the system object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Structure {
    pub body_type: Option<u32>,
    /// Links per limb id (0x0100), in limb-id order.
    pub link_counts: Vec<u32>,
    /// Body-part nodes (0x0110), storage indices.
    pub node_table: Vec<u32>,
    /// Link-parent inverse TM, Max rows.
    pub link_parent_inverse: Option<[[f64; 3]; 4]>,
    /// COM current-position frame, Y-up rows.
    pub current_frame: Option<[[f64; 4]; 4]>,
    /// Move All frame, Y-up rows.
    pub move_all: Option<[[f64; 4]; 4]>,
    /// Saved in figure mode (0x0109 = 1): the rig shows its figure at every tick.
    pub figure_mode: bool,
}

/// One Biped rig: its system object and everything decoded from it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rig {
    pub system: usize,
    pub structure: Structure,
    pub figure: Figure,
    pub bones: Vec<Bone>,
    /// The base layer's keytracks.
    pub tracks: Vec<KeyTrack>,
    /// The animation layers above the base layer, bottom first (`motion`:
    /// their COM turn offsets compose onto the base turn).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<Layer>,
}

/// An animation layer above the base: its name (0x0168) and keytracks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Layer {
    pub name: Option<String>,
    pub tracks: Vec<KeyTrack>,
}

fn reference0(eval: &SceneEval, idx: usize) -> Option<usize> {
    eval.graph
        .objects
        .get(idx)?
        .references
        .iter()
        .find(|r| r.slot == 0)
        .and_then(|r| usize::try_from(r.target).ok())
}

/// The rig a Biped controller belongs to and the role it gives its node;
/// None for any other controller. A BipSlave without a readable 0x0200 is an
/// error naming the controller.
pub fn controller_role(eval: &SceneEval, ctl: usize) -> Option<Result<(usize, Role), EvalError>> {
    let class = eval.graph.class_id(ctl)?;
    let role = if class == COM {
        Ok(Role::Com)
    } else if class == FOOTSTEPS {
        Ok(Role::Footsteps)
    } else if class == SLAVE {
        bone_id(eval.chunks(ctl))
            .map(|(limb, link)| Role::Part { limb, link })
            .ok_or_else(|| {
                EvalError::malformed(
                    format!("BipSlave controller {ctl}"),
                    "no 8-byte (limb, link) chunk 0x0200",
                )
            })
    } else {
        return None;
    };
    Some(role.and_then(|r| {
        let sys = reference0(eval, ctl)
            .filter(|&s| eval.graph.class_id(s) == Some(SYSTEM))
            .ok_or_else(|| {
                EvalError::reference(
                    format!("Biped controller {ctl}"),
                    "reference 0 is not a Biped system object",
                )
            })?;
        Ok((sys, r))
    }))
}

fn bone_id(chunks: &[Chunk]) -> Option<(u32, u32)> {
    let p = chunks.iter().find(|c| c.id == BONE_ID)?.payload()?;
    let w: [u8; 8] = p.try_into().ok()?;
    Some((
        u32::from_le_bytes([w[0], w[1], w[2], w[3]]),
        u32::from_le_bytes([w[4], w[5], w[6], w[7]]),
    ))
}

fn u32s(p: &[u8]) -> Vec<u32> {
    p.chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

fn f32s(p: &[u8]) -> Vec<f64> {
    p.chunks_exact(4)
        .map(|w| f64::from(f32::from_le_bytes([w[0], w[1], w[2], w[3]])))
        .collect()
}

/// A top-level chunk of the system object holding exactly `n` words.
fn words_of(
    chunks: &[Chunk],
    id: u16,
    n: usize,
    what: &str,
) -> Result<Option<Vec<f64>>, EvalError> {
    let Some(p) = chunks
        .iter()
        .rev()
        .find(|c| c.id == id)
        .and_then(Chunk::payload)
    else {
        return Ok(None);
    };
    if p.len() != n * 4 {
        return Err(EvalError::malformed(
            what.to_string(),
            format!(
                "chunk 0x{id:04x} holds {} bytes, expected {}",
                p.len(),
                n * 4
            ),
        ));
    }
    Ok(Some(f32s(p)))
}

fn rows4(v: &[f64]) -> [[f64; 4]; 4] {
    std::array::from_fn(|r| std::array::from_fn(|c| v[r * 4 + c]))
}

/// Decodes the rig of system object `system`.
pub fn rig(eval: &SceneEval, system: usize) -> Result<Rig, EvalError> {
    let what = format!("Biped system object {system}");
    if eval.graph.class_id(system) != Some(SYSTEM) {
        return Err(EvalError::malformed(
            what.to_string(),
            "not a Biped system object",
        ));
    }
    let chunks = eval.chunks(system);
    let top_u32s = |id: u16| {
        chunks
            .iter()
            .rev()
            .find(|c| c.id == id)
            .and_then(Chunk::payload)
            .map(u32s)
    };
    let body_type = match top_u32s(BODY_TYPE) {
        None => None,
        Some(v) if v.len() == 1 => Some(v[0]),
        Some(v) => {
            return Err(EvalError::malformed(
                what.to_string(),
                format!("body type 0x0115 holds {} words", v.len()),
            ))
        }
    };
    let structure = Structure {
        body_type,
        link_counts: top_u32s(LINK_COUNTS).unwrap_or_default(),
        node_table: top_u32s(NODE_TABLE).unwrap_or_default(),
        link_parent_inverse: words_of(chunks, LINK_PARENT_INVERSE, 12, &what)?
            .map(|v| std::array::from_fn(|r| std::array::from_fn(|c| v[r * 3 + c]))),
        current_frame: words_of(chunks, CURRENT_FRAME, 16, &what)?.map(|v| rows4(&v)),
        move_all: words_of(chunks, MOVE_ALL, 16, &what)?.map(|v| rows4(&v)),
        figure_mode: top_u32s(FIGURE_MODE).is_some_and(|v| v == [1]),
    };
    // The base layer's group holds the figure and the base keytracks (the
    // upper layers' figure records are the same; Player@Idle's differ only
    // in the current-pose matrix of 0x0065 and the snapshot twins).
    let groups = records::layer_groups(chunks, &what)?;
    let group = *groups.first().ok_or_else(|| {
        EvalError::malformed(what.to_string(), "no figure record group (0x0190 … 0x0141)")
    })?;
    let figure = records::figure(group, &what)?;
    let tracks = tracks::decode(group, &what)?;
    let layers = groups[1..]
        .iter()
        .map(|g| {
            Ok(Layer {
                name: records::layer_name(g),
                tracks: tracks::decode(g, &what)?,
            })
        })
        .collect::<Result<Vec<_>, EvalError>>()?;
    Ok(Rig {
        system,
        structure,
        figure,
        bones: bones(eval, system),
        tracks,
        layers,
    })
}

/// The nodes whose TM controller belongs to rig `system`, in scene order.
fn bones(eval: &SceneEval, system: usize) -> Vec<Bone> {
    let graph: &crate::graph::SceneGraph = &eval.graph;
    let name =
        |i: usize| -> Option<String> { Some(graph.objects.get(i)?.node.as_ref()?.name.clone()) };
    graph
        .nodes()
        .filter_map(|(o, n)| {
            let ctl = eval.tm_controller(o.index)?;
            let (sys, role) = controller_role(eval, ctl)?.ok()?;
            (sys == system).then(|| {
                let parent = n
                    .parent
                    .map(|p| p as usize)
                    .filter(|&p| graph.objects.get(p).is_some_and(|x| x.node.is_some()));
                Bone {
                    node: o.index,
                    name: n.name.clone(),
                    controller: ctl,
                    role,
                    limb_name: match role {
                        Role::Part { limb, .. } => limb_name(limb),
                        _ => None,
                    },
                    parent,
                    parent_name: parent.and_then(name),
                    length: n.offset_scale.map(|s| f64::from(s[0])),
                }
            })
        })
        .collect()
}

/// Every Biped system object of the scene, in scene order.
pub fn systems(eval: &SceneEval) -> Vec<usize> {
    (0..eval.graph.objects.len())
        .filter(|&i| eval.graph.class_id(i) == Some(SYSTEM))
        .collect()
}

/// Every rig of the scene, each decoded or the reason it could not be.
pub fn rigs(eval: &SceneEval) -> Vec<Result<Rig, EvalError>> {
    systems(eval).into_iter().map(|s| rig(eval, s)).collect()
}

/// One entry of `biped.json`: a decoded rig, or why its system object could not be read.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum RigView {
    Rig(Box<Rig>),
    Error { system: usize, error: String },
}

/// The rigs of the scene as `biped.json` lists them.
pub fn view(eval: &SceneEval) -> Vec<RigView> {
    systems(eval)
        .into_iter()
        .map(|s| match rig(eval, s) {
            Ok(r) => RigView::Rig(Box::new(r)),
            Err(error) => RigView::Error {
                system: s,
                error: error.to_string(),
            },
        })
        .collect()
}
