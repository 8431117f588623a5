//! The stored records of a CAT rig (Character Animation Technologies, Max's
//! CAT plug-in): the CATParentTrans of the rig's CATParent node and the
//! CATClipMatrix3 ("LayerMatrix3") each bone keeps its setup pose and
//! animation layers in. Chunk ids and flag bits are the plug-in's (its SDK
//! sample: CATParentTrans, CATClipValue, CATClipMatrix3, CATClipValues.h).

use crate::chunk::Chunk;
use crate::eval::core::math::Mat43;
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use crate::eval::modifier::skin::matrix3;
use crate::typed::ClassId;

/// CATParentTrans (sc 0x9008): the CATParent node's controller.
pub const CAT_PARENT_TRANS: ClassId = ClassId(0x022d_5030, 0x4344_191c);
/// CATClipMatrix3, named "LayerMatrix3" in the class directory.
pub const CLIP_MATRIX3: ClassId = ClassId(0x18d0_26a1, 0x347d_1cf3);

/// The CAT bone controller classes of the corpus, by class id.
pub const BONE_CLASSES: [(ClassId, &str); 10] = [
    (ClassId(0x1cbb_1d2f, 0x30ea_5264), "HubTrans"),
    (ClassId(0x485a_734c, 0x7955_57cc), "CATBoneSegTrans"),
    (ClassId(0x4edf_6dde, 0x3d77_551c), "PalmTrans2"),
    (ClassId(0x1adf_2684, 0x2e3b_60d2), "CATDigitSegTrans"),
    (ClassId(0x542e_413e, 0x0824_1aa2), "CATSpineTrans2"),
    (ClassId(0x68c0_0456, 0x4556_34fe), "CATCollarBone"),
    (ClassId(0x0dab_5c9d, 0x5db5_6555), "ArbBone"),
    (ClassId(0x71af_1a7d, 0x71c0_5de1), "CATFootTrans2"),
    (ClassId(0x4903_24f3, 0x155b_0d26), "IKTarget Trans"),
    (ClassId(0x1f78_1be7, 0x1970_7e49), "CATBoneData"),
];
/// HubTrans: pelvis, ribcage, head.
pub const HUB_TRANS: ClassId = BONE_CLASSES[0].0;

// CATParentTrans chunks (its save enum: NUMCATCHARS = 0, SAVE_VERSION, FLAGS,
// CATUNITS, CATMODE, …, CATNAME = 11).
const CPT_VERSION: u16 = 1;
const CPT_UNITS: u16 = 3;
const CPT_MODE: u16 = 4;
const CPT_NAME: u16 = 11;
/// CATParentTrans reference 1: the Position/Rotation/Scale that places the
/// CATParent node (its GetValue is that controller's).
const CPT_PRS_REF: u32 = 1;

// CATClipValue chunks.
const CLIP_NUM_LAYERS: u16 = 1;
const CLIP_FLAGS: u16 = 3;
const CLIP_SETUP: u16 = 8;
const CLIP_CAT_PARENT_TRANS: u16 = 14;

/// Gets multiplied by the layer transform; in setup mode the bone's parent
/// matrix is the CATParent's.
pub const CLIP_HAS_TRANSFORM: u32 = 1 << 9;
pub const CLIP_SETUP_INHERITS_POS_FROM_CATPARENT: u32 = 1 << 16;
pub const CLIP_SETUP_INHERITS_ROT_FROM_CATPARENT: u32 = 1 << 17;
pub const CLIP_SETUP_FLIPROT_FROM_CATPARENT: u32 = 1 << 18;
pub const CLIP_SETUP_INHERITS_POS_FROM_PARENT: u32 = 1 << 19;
/// Animation applied relative to the setup pose.
pub const CLIP_RELATIVE_TO_SETUPPOSE: u32 = 1 << 27;
/// The setup value is an animated controller, not the stored matrix.
pub const CLIP_SETUPPOSE_CONTROLLER: u32 = 1 << 28;
pub const CLIP_KEYFREEFORM: u32 = 1 << 30;
pub const CLIP_DISABLE_LAYERS: u32 = 1 << 31;
/// The rules that take a setup value from somewhere other than the bone's own
/// stored matrix; the evaluated bones accept only those named per kind.
pub const CLIP_SETUP_RULES: u32 = CLIP_SETUP_INHERITS_POS_FROM_CATPARENT
    | CLIP_SETUP_INHERITS_ROT_FROM_CATPARENT
    | CLIP_SETUP_FLIPROT_FROM_CATPARENT
    | CLIP_SETUP_INHERITS_POS_FROM_PARENT
    | CLIP_SETUPPOSE_CONTROLLER
    | CLIP_KEYFREEFORM
    | CLIP_DISABLE_LAYERS;
/// What a limb's first bone carries (and its later bones do not): rotation
/// from the CATParent, flipped, position from the parent.
pub const CLIP_LIMB_ROOT_RULES: u32 = CLIP_SETUP_INHERITS_ROT_FROM_CATPARENT
    | CLIP_SETUP_FLIPROT_FROM_CATPARENT
    | CLIP_SETUP_INHERITS_POS_FROM_PARENT;

/// The rig's mode (CATParentTrans chunk 4, enum CATMode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatMode {
    /// Every bone at its setup pose, whatever the layers hold.
    Setup,
    /// The animation layers drive the bones (with IK, reach, layer blends).
    Animation(u32),
}

/// A decoded CATParentTrans.
#[derive(Debug, Clone, PartialEq)]
pub struct CatParent {
    /// The CATParentTrans object.
    pub controller: usize,
    pub name: String,
    /// CAT version that saved the rig (e.g. 3500).
    pub version: u32,
    /// Scene units per CAT unit: setup positions are stored in CAT units.
    pub units: f64,
    pub mode: CatMode,
    /// The PRS placing the CATParent node.
    pub prs: Option<usize>,
}

/// A decoded CATClipMatrix3 (a bone's layer controller).
#[derive(Debug, Clone, PartialEq)]
pub struct ClipMatrix {
    pub object: usize,
    pub flags: u32,
    pub layers: u32,
    /// The setup matrix, translation in CAT units (as stored).
    pub setup: Mat43,
    /// The rig's CATParentTrans.
    pub cat_parent_trans: usize,
}

pub(crate) fn leaf(chunks: &[Chunk], id: u16) -> Option<&[u8]> {
    chunks.iter().find(|c| c.id == id).and_then(Chunk::payload)
}

pub(crate) fn u32_of(p: Option<&[u8]>) -> Option<u32> {
    let b = p?.get(..4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

pub(crate) fn class_of(eval: &SceneEval, idx: usize) -> Option<ClassId> {
    eval.graph.class_id(idx)
}

/// The name of a CAT bone controller class; None for other classes.
pub fn bone_class(eval: &SceneEval, ctl: usize) -> Option<&'static str> {
    let id = class_of(eval, ctl)?;
    BONE_CLASSES
        .iter()
        .find(|(c, _)| *c == id)
        .map(|(_, name)| *name)
}

/// The CATParentTrans at `idx`; None when it is another class.
pub fn cat_parent(eval: &SceneEval, idx: usize) -> Option<Result<CatParent, EvalError>> {
    if class_of(eval, idx)? != CAT_PARENT_TRANS {
        return None;
    }
    let chunks = eval.chunks(idx);
    let at = format!("CATParentTrans {idx}");
    let units = match leaf(chunks, CPT_UNITS).and_then(|p| u32_of(Some(p))) {
        Some(bits) => f64::from(f32::from_bits(bits)),
        None => return Some(Err(EvalError::malformed(at, "no CAT units (chunk 3)"))),
    };
    if !units.is_finite() || units <= 0.0 {
        return Some(Err(EvalError::malformed(at, format!("CAT units {units}"))));
    }
    let mode = match u32_of(leaf(chunks, CPT_MODE)) {
        Some(0) => CatMode::Setup,
        Some(m) => CatMode::Animation(m),
        None => return Some(Err(EvalError::malformed(at, "no CAT mode (chunk 4)"))),
    };
    let name = leaf(chunks, CPT_NAME)
        .map(|p| {
            String::from_utf8_lossy(p)
                .trim_end_matches('\0')
                .to_string()
        })
        .unwrap_or_default();
    let prs = reference(eval, idx, CPT_PRS_REF);
    Some(Ok(CatParent {
        controller: idx,
        name,
        version: u32_of(leaf(chunks, CPT_VERSION)).unwrap_or(0),
        units,
        mode,
        prs,
    }))
}

/// Reference `slot` of object `idx`.
pub(crate) fn reference(eval: &SceneEval, idx: usize, slot: u32) -> Option<usize> {
    eval.graph
        .objects
        .get(idx)?
        .references
        .iter()
        .find(|r| r.slot == slot)
        .and_then(|r| usize::try_from(r.target).ok())
}

/// The CATClipMatrix3 a bone controller references (its layer transform).
pub fn layer_trans(eval: &SceneEval, ctl: usize) -> Option<usize> {
    eval.graph
        .objects
        .get(ctl)?
        .references
        .iter()
        .filter_map(|r| usize::try_from(r.target).ok())
        .find(|&t| class_of(eval, t) == Some(CLIP_MATRIX3))
}

/// The CATClipMatrix3 at `idx`.
pub fn clip_matrix(eval: &SceneEval, idx: usize) -> Result<ClipMatrix, EvalError> {
    let at = format!("CATClipMatrix3 {idx}");
    let chunks = eval.chunks(idx);
    let flags = u32_of(leaf(chunks, CLIP_FLAGS))
        .ok_or_else(|| EvalError::malformed(at.clone(), "no flags (chunk 3)"))?;
    let setup = leaf(chunks, CLIP_SETUP)
        .and_then(|p| p.get(..48))
        .and_then(matrix3)
        .ok_or_else(|| EvalError::malformed(at.clone(), "no setup matrix (chunk 8)"))?;
    let cpt = u32_of(leaf(chunks, CLIP_CAT_PARENT_TRANS))
        .and_then(|v| usize::try_from(v).ok())
        .filter(|&i| class_of(eval, i) == Some(CAT_PARENT_TRANS))
        .ok_or_else(|| EvalError::reference(at.clone(), "no CATParentTrans (chunk 14)"))?;
    let finite = setup.rows().iter().flatten().all(|v| v.is_finite());
    if !finite {
        return Err(EvalError::malformed(at, "setup matrix is not finite"));
    }
    Ok(ClipMatrix {
        object: idx,
        flags,
        layers: u32_of(leaf(chunks, CLIP_NUM_LAYERS)).unwrap_or(0),
        setup,
        cat_parent_trans: cpt,
    })
}

/// What every CAT bone controller saves through CATNodeControl/CATControl:
/// a top container (its class's chunk 0 or 1) holding the CATControl
/// container (chunk 1: 5 = CATParentTrans reference, 2 = flags) and the
/// bone's dimensions (chunk 10, three f32 in scene units).
#[derive(Debug, Clone, PartialEq)]
pub struct CatControl {
    pub cat_parent_trans: Option<usize>,
    /// CATControl flags (limits, inheritance, stretch).
    pub flags: Option<u32>,
    /// Width, depth and length of the bone (its length axis is X or Z).
    pub dims: Option<[f32; 3]>,
}

/// The CATControl/CATNodeControl records of controller `ctl`.
pub fn cat_control(eval: &SceneEval, ctl: usize) -> CatControl {
    let mut out = CatControl {
        cat_parent_trans: None,
        flags: None,
        dims: None,
    };
    for top in eval.chunks(ctl).iter().filter(|c| c.is_container()) {
        let Some(inner) = top
            .children()
            .iter()
            .find(|c| c.id == 1 && c.is_container())
        else {
            continue;
        };
        out.cat_parent_trans = u32_of(leaf(inner.children(), 5))
            .and_then(|v| usize::try_from(v).ok())
            .filter(|&i| class_of(eval, i) == Some(CAT_PARENT_TRANS));
        out.flags = u32_of(leaf(inner.children(), 2));
        out.dims = leaf(top.children(), 10).and_then(|p| {
            let f = |i: usize| {
                p.get(i * 4..i * 4 + 4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            };
            (p.len() == 12)
                .then(|| Some([f(0)?, f(1)?, f(2)?]))
                .flatten()
        });
        break;
    }
    out
}

/// The clip of CAT controller `ctl` when its setup value is its own stored
/// matrix (no transform, no setup rule); otherwise refused, naming `what`
/// ("a collarbone") at `at`.
pub fn plain_setup_clip(
    eval: &SceneEval,
    ctl: usize,
    at: &str,
    what: &str,
) -> Result<ClipMatrix, EvalError> {
    let layer = layer_trans(eval, ctl)
        .ok_or_else(|| EvalError::reference(at.to_string(), "no CATClipMatrix3"))?;
    let clip = clip_matrix(eval, layer)?;
    if clip.flags & (CLIP_HAS_TRANSFORM | CLIP_SETUP_RULES) != 0 {
        return Err(EvalError::not_evaluated_why(
            at.to_string(),
            format!(
                "{what} with layer flags {:#010x} is not evaluated",
                clip.flags
            ),
        ));
    }
    Ok(clip)
}
