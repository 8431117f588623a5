//! Materials (superclass 0xc00) and texmaps (superclass 0xc10): names, the Standard
//! material's colours and maps, Multi/Sub-Object, Bitmap textures with their UV
//! placement, and the parameter blocks of any other material (NeL Material …).
//!
//! Wiring, as found in the corpus (Max 3 … 2019):
//! - Standard (0x2, 0): reference 1 = Texmaps (0x1200, 0) holding map k on slot
//!   2k+1 (its amount controller on 2k); 2 = the shader (Blinn …) whose reference 0
//!   is a PB2 with the colours; 3..7 = PB2 blocks 0 shader (type, wire, two-sided,
//!   face map, faceted, shader name), 1 extended (opacity type, opacity, filter
//!   colour …), 2 sampling, 3 maps (enables, maps, amounts), 4 dynamics.
//! - Shader PB2 (Blinn, Phong, Metal): 0 ambient, 1 diffuse, 2 specular, 3/4/5
//!   locks, 6 use self-illumination colour, 7 self-illumination amount, 8
//!   self-illumination colour, 9 specular level, 10 glossiness, 11 soften.
//! - Multi/Sub-Object (0x200, 0): 0x4002 = count, references 1..N.
//! - Double Sided (0x210, 0): reference 0 = PB2 (0/1 facing and back material,
//!   2/3 facing and back enabled, 4 translucency in percent), references 1/2 =
//!   the facing and back materials.
//! - Bitmap (0x240, 0): reference 0 = StdUVGen (0x100, 0) → old pblock (0/1 U/V
//!   offset, 2/3 U/V tiling, 4/5/6 U/V/W angle); reference 1 = PB2 block 0 whose
//!   parameter 13 is the bitmap: the path sits inline in the following 0x0003
//!   container (up to Max 2014) or as an asset GUID resolved through the
//!   FileAssetMetaData2 (Max 2012–2014) or FileAssetMetaData3 (Max 2015+) stream.

use crate::eval::error::EvalError;
use serde::Serialize;

use crate::document::Document;
use crate::graph::SceneGraph;

use crate::eval::core::pblock::{self, utf16, ParamBlock2, Value};
use crate::eval::core::transform::SceneEval;
use crate::eval::render::arnold;
use crate::eval::render::physical::{self, Pbr, PHYSICAL};
use crate::eval::render::{
    arch_design, architectural, autodesk, corona, corona_physical, pro_materials, raytrace, vray,
};

pub const SC_MATERIAL: u32 = 0xc00;
pub const SC_TEXMAP: u32 = 0xc10;

/// The ParamBlock2 on reference 0 of material `idx` (`what` names it in
/// errors) and its object index; a missing or damaged block is recorded in
/// `m.errors` and gives None.
pub(crate) fn block0(
    eval: &SceneEval,
    idx: usize,
    what: &str,
    m: &mut Material,
) -> Option<(usize, ParamBlock2)> {
    let Some(pbi) = pblock::reference(&eval.graph, idx, 0) else {
        m.errors.push(format!(
            "{what} (object {idx}): no parameter block on reference 0"
        ));
        return None;
    };
    match pblock::param_block2(eval.chunks(pbi)) {
        Ok(mut pb) => {
            animated_at_0(eval, pbi, &mut pb, what, m);
            Some((pbi, pb))
        }
        Err(e) => {
            m.errors.push(format!("{what} block (object {pbi}): {e}"));
            None
        }
    }
}

/// Puts the time-0 value of each animated number or colour of block `pb`
/// (object `pbi`) in place, as Max shows the material at the start frame:
/// the decoders read constants, and an animated parameter would otherwise
/// fall back to its default unnamed (бочка.max's Physical Material keys
/// all of them). A controller that is not read is named in `m.unmapped`.
fn animated_at_0(eval: &SceneEval, pbi: usize, pb: &mut ParamBlock2, what: &str, m: &mut Material) {
    use pblock::ty;
    const NUMBERS: [u16; 8] = [
        ty::FLOAT,
        ty::ANGLE,
        ty::PCNT_FRAC,
        ty::WORLD,
        ty::COLOR_CHANNEL,
        ty::RGBA,
        ty::POINT3,
        ty::FRGBA,
    ];
    for p in &mut pb.params {
        let Some(slot) = p.ref_slot else { continue };
        if !matches!(p.value, Value::None) || p.is_tab() || !NUMBERS.contains(&p.base_type()) {
            continue;
        }
        let Some(ctl) = pblock::reference(&eval.graph, pbi, slot) else {
            continue;
        };
        // As the primitives read theirs (float tracks and float lists,
        // Point3 and colour tracks); a non-finite value is not taken.
        let value = pblock::driven(eval, Some(ctl), 0).ok().filter(|v| match v {
            Value::Float(x) => x.is_finite(),
            Value::Vector(c) => c.iter().all(|x| x.is_finite()),
            _ => false,
        });
        match value {
            Some(v) => p.value = v,
            None => m.unmapped.push(format!(
                "{what} parameter {} animated by {} (its value at frame 0 is not read)",
                p.id,
                crate::eval::core::coverage::class_name(eval, ctl)
            )),
        }
    }
}

/// Whether scene object `idx` exists and belongs to superclass `super_class`
/// (a reference slot may point at any kind of object).
pub(crate) fn is_super_class(
    eval: &crate::eval::core::transform::SceneEval,
    idx: usize,
    super_class: u32,
) -> bool {
    eval.graph
        .class(idx)
        .is_some_and(|c| c.super_class == super_class)
}
const STANDARD: (u32, u32) = (0x2, 0);
/// Standard's Strauss shader: its PB2 holds 0 colour, 1 glossiness, 2
/// metalness (MAXScript's documented order of the Strauss shader's values),
/// and its map channels start with Color, Glossiness, Metalness.
const STRAUSS: (u32, u32) = (0x2857_f450, 0);
const STRAUSS_SLOTS: [&str; 3] = ["diffuse", "glossiness", "metalness"];
const MULTI_SUB: (u32, u32) = (0x200, 0);
const DOUBLE_SIDED: (u32, u32) = (0x210, 0);
/// Blend (the SDK sample mixmat's "Mix"): block 0 holds 0 mix amount
/// (a fraction), 5 / 6 the two materials, 7 the mask map, 8 / 9 / 10 their
/// switches (1 / 2 the curve's lower and upper, 3 use curve).
const BLEND: (u32, u32) = (0x250, 0);
const BITMAP: (u32, u32) = (0x240, 0);
/// V-Ray's bitmap loader (VRayBitmap, once VRayHDRI).
const VRAY_BITMAP: (u32, u32) = (0x6769_144b, 0x02c1_017d);
/// VRayBitmap's image file name (block 0).
const VRAY_BITMAP_FILE: u16 = 0;
/// VRayBitmap's mapping type: 4 is "3ds Max standard" (a surface texture
/// placed by its UV generator); 0–3 are environment projections.
const VRAY_BITMAP_MAPPING: u16 = 2;
const VRAY_BITMAP_STANDARD: i32 = 4;
const TEXMAPS: (u32, u32) = (0x1200, 0);
const STD_UVGEN: (u32, u32) = (0x100, 0);
/// The UV generator's map channel (s32).
const UVGEN_CHANNEL: u16 = 0x900b;
/// The UV generator's tiling flags (u32; low bits as the SDK's U_WRAP 1,
/// V_WRAP 2, U_MIRROR 4, V_MIRROR 8).
const UVGEN_TILING: u16 = 0x9002;
pub const NEL_MATERIAL: (u32, u32) = (0x64c75fec, 0x222b9eb9);
/// Material name chunk (UTF-16) and the base container that may hold it.
const NAME: u16 = 0x4001;
const BASE: u16 = 0x4000;
/// The same base container as saved by Physical Material (Max 2017+).
const BASE_SCRIPTED: u16 = 0x0100;
/// The same as saved by V-Ray's materials (VRayMtl: "Material #330" of
/// LeadShuriken's 3dsMaxTestScene.max, the name its FBX export gives).
const BASE_VRAY: u16 = 0x5431;
/// The same as saved by CoronaMtl (Stibenet/3D-model's LowPoly/Store.max:
/// "Material #13" …, the Multi/Sub-Object's sub-materials).
const BASE_CORONA: u16 = 0x0fa0;
const SUB_COUNT: u16 = 0x4002;
/// Sub-materials followed at most (damaged counts).
const MAX_SUBS: u32 = 4096;
/// Bitmap parameter of the Bitmap texmap's PB2 (block 0).
const BITMAP_PARAM: u16 = 13;
/// Bitmap's `monoOutput` (0 RGB intensity, 1 alpha): the SDK sample's
/// parameter order (clipu … filtering, then monoOutput) and the corpus.
const BITMAP_MONO_OUTPUT: u16 = 9;

/// The Standard material's map slots, in Max's order.
pub const MAP_NAMES: [&str; 12] = [
    "ambient",
    "diffuse",
    "specular",
    "glossiness",
    "specular_level",
    "self_illumination",
    "opacity",
    "filter_color",
    "bump",
    "reflection",
    "refraction",
    "displacement",
];

/// The NeL Material's PB2 blocks in script declaration order.
pub const NEL_BLOCKS: [&str; 9] = [
    "nlbp", "main", "textures", "slot1", "slot2", "slot3", "slot4", "slot5", "slot6",
];

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapRef {
    /// Slot name ("diffuse" …) or `map<k>` beyond the twelve standard ones.
    pub slot: String,
    pub texmap: usize,
    pub enabled: Option<bool>,
    pub amount: Option<f32>,
}

/// A parameter block of a material, named when its role is known.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NamedBlock {
    pub name: String,
    pub object: usize,
    pub block: ParamBlock2,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DoubleSided {
    /// Material index of the facing and back sides (None: slot empty).
    pub facing: Option<usize>,
    pub back: Option<usize>,
    pub facing_on: bool,
    pub back_on: bool,
    /// 0..1 (Max shows percent): how much of the other side shows through.
    pub translucency: f32,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Material {
    pub index: usize,
    pub name: String,
    pub class: String,
    pub class_id: [u32; 2],
    pub shader: Option<String>,
    pub ambient: Option<[f32; 3]>,
    pub diffuse: Option<[f32; 3]>,
    pub specular: Option<[f32; 3]>,
    pub self_illum_color: Option<[f32; 3]>,
    pub use_self_illum_color: Option<bool>,
    /// 0..1.
    pub self_illum_amount: Option<f32>,
    /// 0..1 (Max shows percent).
    pub glossiness: Option<f32>,
    pub specular_level: Option<f32>,
    /// 0..1.
    pub opacity: Option<f32>,
    pub two_sided: Option<bool>,
    /// Physically based values (Physical Material and the scripted PBR
    /// materials delegating to it).
    pub pbr: Option<Pbr>,
    pub maps: Vec<MapRef>,
    /// Multi/Sub-Object: one entry per sub-material slot (None = empty).
    pub sub_materials: Vec<Option<usize>>,
    /// Double Sided: a material for the faces seen from the front and one
    /// for those seen from the back.
    pub double_sided: Option<DoubleSided>,
    /// Parameter blocks of materials whose values are not mapped above (NeL Material …).
    pub blocks: Vec<NamedBlock>,
    /// Why part of the material could not be decoded.
    pub errors: Vec<String>,
    /// Parameters set in the material that the exports do not carry (their
    /// ids not pinned, or no counterpart): coverage names the material as
    /// partially evaluated with these.
    pub unmapped: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct UvGen {
    pub u_offset: Option<f32>,
    pub v_offset: Option<f32>,
    pub u_tiling: Option<f32>,
    pub v_tiling: Option<f32>,
    /// Rotation about U, V and W, in radians as the pblock stores them.
    pub angle_uvw: [Option<f32>; 3],
    /// Map channel the texture reads (chunk 0x900b of the UV generator).
    pub channel: Option<i32>,
    /// Tiling flags (chunk 0x9002): bit 0 tile U, 1 tile V, 2 mirror U,
    /// 3 mirror V; higher bits are other generator state, kept as stored.
    pub tiling: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Texmap {
    pub index: usize,
    pub name: String,
    pub class: String,
    pub class_id: [u32; 2],
    /// Bitmap file path as stored (inline or from the asset metadata).
    pub file: Option<String>,
    /// Asset GUID of the bitmap (Max 2015+), lowercase hex as stored.
    pub asset: Option<String>,
    pub uv: Option<UvGen>,
    /// A Bitmap's mono output (what a float slot reads) is its alpha, not
    /// its RGB intensity (`monoOutput` 1, parameter 9 of its block).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub mono_from_alpha: bool,
    /// Other texmaps this one references (sub-maps), by reference slot order.
    pub sub_maps: Vec<usize>,
    pub errors: Vec<String>,
}

/// The asset table (FileAssetMetaData2 or 3 stream): GUID → (type, path).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Assets(pub Vec<([u8; 16], String, String)>);

impl Texmap {
    /// Whether this is Max's Bitmap (the texmap that holds an image file).
    pub fn is_bitmap(&self) -> bool {
        self.class_id == [BITMAP.0, BITMAP.1]
    }

    /// Records the asset `guid` naming the image, and the image's path from
    /// the file's asset table unless a path is stored inline; an asset the
    /// table does not list is an error, never an image silently missing.
    fn image_asset(&mut self, guid: &[u8; 16], assets: &Assets) {
        let hex: String = guid.iter().map(|b| format!("{b:02x}")).collect();
        if self.file.is_none() {
            self.file = assets.path(guid).map(str::to_string);
            if self.file.is_none() {
                self.errors.push(format!(
                    "its image is asset {hex} and the file's asset table holds no such asset"
                ));
            }
        }
        self.asset = Some(hex);
    }
}

impl Assets {
    /// Parses the asset table of a document (empty when absent or unreadable):
    /// FileAssetMetaData3 (Max 2015+) or FileAssetMetaData2 (Max 2012–2014).
    pub fn of(doc: &Document) -> Assets {
        let stream = |name: &str| doc.file.streams.iter().find(|s| s.name == name);
        if let Some(s) = stream("FileAssetMetaData3") {
            Assets::parse(&s.data)
        } else if let Some(s) = stream("FileAssetMetaData2") {
            Assets::parse_v2(&s.data)
        } else {
            Assets::default()
        }
    }

    /// FileAssetMetaData3 records: GUID (16 bytes), then three strings (type,
    /// path, resolved path), each a u32 count of UTF-16 units, the units and a
    /// u16 terminator. Stops at the first record that does not fit.
    pub fn parse(data: &[u8]) -> Assets {
        Assets::records(data, 3)
    }

    /// FileAssetMetaData2 records: as in version 3 without the resolved path.
    pub fn parse_v2(data: &[u8]) -> Assets {
        Assets::records(data, 2)
    }

    fn records(data: &[u8], strings: usize) -> Assets {
        fn string(d: &[u8], at: &mut usize) -> Option<String> {
            let n = u32::from_le_bytes(d.get(*at..*at + 4)?.try_into().ok()?) as usize;
            let bytes = n.checked_mul(2)?;
            let end = (*at + 4).checked_add(bytes)?.checked_add(2)?;
            let body = d.get(*at + 4..end - 2)?;
            *at = end;
            let units: Vec<u16> = body
                .chunks_exact(2)
                .map(|p| u16::from_le_bytes([p[0], p[1]]))
                .collect();
            Some(String::from_utf16_lossy(&units))
        }
        let mut out = Vec::new();
        let mut at = 0;
        while let Some(g) = data.get(at..at + 16) {
            let mut guid = [0u8; 16];
            guid.copy_from_slice(g);
            let mut p = at + 16;
            let (Some(kind), Some(path)) = (string(data, &mut p), string(data, &mut p)) else {
                break;
            };
            if strings == 3 && string(data, &mut p).is_none() {
                break;
            }
            out.push((guid, kind, path));
            at = p;
        }
        Assets(out)
    }

    pub fn path(&self, guid: &[u8; 16]) -> Option<&str> {
        self.0
            .iter()
            .find(|(g, _, _)| g == guid)
            .map(|(_, _, p)| p.as_str())
    }
}

/// The material-base name: 0x4001 inside the 0x4000 (0x0100 for Physical
/// Material, 0x5431 for V-Ray's, 0x0fa0 for Corona's) header container, else 0x4001 on the object. The header comes
/// first: Architectural keeps an 8-byte value of its own in a direct 0x4001
/// next to the header holding the name ("page 3view.max", "cube.max").
pub fn mtl_name(chunks: &[crate::chunk::Chunk]) -> Option<String> {
    let direct = || chunks.iter().find(|c| c.id == NAME);
    let nested = chunks
        .iter()
        .filter(|c| [BASE, BASE_SCRIPTED, BASE_VRAY, BASE_CORONA].contains(&c.id))
        .flat_map(|c| c.children())
        .find(|c| c.id == NAME);
    nested.or_else(direct).and_then(|c| c.payload()).map(utf16)
}

fn class_of(graph: &SceneGraph, idx: usize) -> Option<(u32, (u32, u32), &str)> {
    let c = graph.objects.get(idx)?.class.as_ref()?;
    Some((c.super_class, (c.class_id.0, c.class_id.1), c.name.as_str()))
}

/// References of `idx` that are ParamBlock2s, with their decoded blocks.
fn pb2_refs(
    eval: &SceneEval,
    idx: usize,
) -> Vec<(u32, usize, Result<ParamBlock2, crate::eval::EvalError>)> {
    let g: &SceneGraph = &eval.graph;
    let Some(o) = g.objects.get(idx) else {
        return Vec::new();
    };
    o.references
        .iter()
        .filter_map(|r| {
            let t = usize::try_from(r.target).ok()?;
            (class_of(g, t)?.0 == pblock::SC_PARAM_BLOCK2)
                .then(|| (r.slot, t, pblock::param_block2(eval.chunks(t))))
        })
        .collect()
}

/// A colour parameter of block `pb` (object `pbi`): its value, or, where it
/// is animated, its colour controller's value at time 0, read as every
/// animated parameter is ([`pblock::driven`]). A controller of another kind,
/// or an animated colour that is not finite, gives none (the material is
/// then named as not decoded).
fn colour(eval: &SceneEval, pbi: usize, pb: &ParamBlock2, id: u16) -> Option<[f32; 3]> {
    let p = pb.param(id)?;
    match p.value {
        Value::Vector(v) => Some(v),
        Value::None => {
            let ctl = pblock::reference(&eval.graph, pbi, p.ref_slot?)?;
            match pblock::driven(eval, Some(ctl), 0).ok()? {
                Value::Vector(c) => c.iter().all(|x| x.is_finite()).then_some(c),
                _ => None,
            }
        }
        _ => None,
    }
}

fn float(pb: &ParamBlock2, id: u16) -> Option<f32> {
    match pb.param(id)?.value {
        Value::Float(v) => Some(v),
        Value::Int(v) => Some(v as f32),
        _ => None,
    }
}

fn boolean(pb: &ParamBlock2, id: u16) -> Option<bool> {
    match pb.param(id)?.value {
        Value::Bool(v) => Some(v),
        Value::Int(v) => Some(v != 0),
        _ => None,
    }
}

fn string(pb: &ParamBlock2, id: u16) -> Option<String> {
    match &pb.param(id)?.value {
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

fn standard(eval: &SceneEval, m: &mut Material) {
    let g: &SceneGraph = &eval.graph;
    let idx = m.index;
    let mut maps_block = None;
    for (slot, obj, pb) in pb2_refs(eval, idx) {
        let pb = match pb {
            Ok(pb) => pb,
            Err(e) => {
                m.errors
                    .push(format!("reference {slot} (object {obj}): {e}"));
                continue;
            }
        };
        match pb.block_id {
            0 => {
                m.two_sided = boolean(&pb, 2);
                m.shader = string(&pb, 5).filter(|s| !s.is_empty());
            }
            1 => m.opacity = float(&pb, 1),
            3 => maps_block = Some(pb),
            _ => {}
        }
    }
    // The shader and its colour block.
    let strauss = pblock::reference(g, idx, 2)
        .is_some_and(|s| class_of(g, s).is_some_and(|c| c.1 == STRAUSS));
    if let Some(shader) = pblock::reference(g, idx, 2) {
        if let Some(pbi) = pblock::reference(g, shader, 0) {
            match pblock::param_block2(eval.chunks(pbi)) {
                Ok(pb) if strauss => {
                    m.diffuse = colour(eval, pbi, &pb, 0);
                    m.glossiness = float(&pb, 1);
                    if let Some(k) = float(&pb, 2).filter(|&k| k != 0.0) {
                        m.unmapped.push(format!(
                            "Strauss metalness {k} (Standard exports carry none)"
                        ));
                    }
                }
                Ok(pb) => {
                    m.ambient = colour(eval, pbi, &pb, 0);
                    m.diffuse = colour(eval, pbi, &pb, 1);
                    m.specular = colour(eval, pbi, &pb, 2);
                    m.use_self_illum_color = boolean(&pb, 6);
                    m.self_illum_amount = float(&pb, 7);
                    m.self_illum_color = colour(eval, pbi, &pb, 8);
                    m.specular_level = float(&pb, 9);
                    m.glossiness = float(&pb, 10);
                }
                Err(e) => m.errors.push(format!("shader block (object {pbi}): {e}")),
            }
        }
        if m.shader.is_none() {
            m.shader = class_of(g, shader).map(|c| c.2.to_string());
        }
    }
    // Maps: the Texmaps object holds map k on reference 2k+1.
    let (enables, amounts) = match maps_block.as_ref() {
        Some(pb) => (
            pb.param(0).map(|p| p.value.clone()),
            pb.param(2).map(|p| p.value.clone()),
        ),
        None => (None, None),
    };
    if let Some(tm) =
        pblock::reference(g, idx, 1).filter(|&t| class_of(g, t).is_some_and(|c| c.1 == TEXMAPS))
    {
        let refs = g
            .objects
            .get(tm)
            .map(|o| o.references.as_slice())
            .unwrap_or(&[]);
        for r in refs.iter().filter(|r| r.slot % 2 == 1) {
            let Ok(t) = usize::try_from(r.target) else {
                continue;
            };
            if class_of(g, t).map(|c| c.0) != Some(SC_TEXMAP) {
                continue;
            }
            let k = (r.slot / 2) as usize;
            let slot = if strauss {
                STRAUSS_SLOTS
                    .get(k)
                    .map_or_else(|| format!("strauss_map{k}"), |s| s.to_string())
            } else {
                MAP_NAMES
                    .get(k)
                    .map_or_else(|| format!("map{k}"), |s| s.to_string())
            };
            if strauss && k > 0 {
                m.unmapped
                    .push(format!("Strauss map channel {k} ({slot}) not exported"));
            }
            m.maps.push(MapRef {
                slot,
                texmap: t,
                enabled: match &enables {
                    Some(Value::IntTab(v)) => v.get(k).map(|&e| e != 0),
                    _ => None,
                },
                amount: match &amounts {
                    Some(Value::FloatTab(v)) => v.get(k).copied(),
                    _ => None,
                },
            });
        }
    }
}

fn double_sided(eval: &SceneEval, m: &mut Material) {
    let g: &SceneGraph = &eval.graph;
    let side = |slot: u32| {
        pblock::reference(g, m.index, slot)
            .filter(|&t| class_of(g, t).map(|c| c.0) == Some(SC_MATERIAL))
    };
    let (facing, back) = (side(1), side(2));
    let block = match pblock::reference(g, m.index, 0).map(|b| pblock::param_block2(eval.chunks(b)))
    {
        Some(Ok(b)) => b,
        Some(Err(e)) => {
            m.errors.push(format!("parameter block: {e}"));
            return;
        }
        None => {
            m.errors.push("no parameter block on reference 0".into());
            return;
        }
    };
    let float = |id| match block.param(id).map(|p| &p.value) {
        Some(Value::Float(v)) => Some(*v),
        _ => None,
    };
    let flag = |id| match block.param(id).map(|p| &p.value) {
        Some(Value::Bool(v)) => Some(*v),
        Some(Value::Int(v)) => Some(*v != 0),
        _ => None,
    };
    match (flag(2), flag(3), float(4)) {
        (Some(facing_on), Some(back_on), Some(t)) => {
            m.double_sided = Some(DoubleSided {
                facing,
                back,
                facing_on,
                back_on,
                translucency: t / 100.0,
            })
        }
        _ => m
            .errors
            .push("Double Sided block without side switches (2, 3) and translucency (4)".into()),
    }
}

/// Which of a Blend's two materials stands for it, glTF holding one
/// material per face: the mask's first material where a mask map is on (the
/// second shows through the mask's white), else the larger share of the mix.
#[derive(Debug, Clone, Copy, PartialEq)]
enum BlendPick {
    /// The first or second material alone, exactly (mix 0 or 1, no mask).
    Exact(usize),
    /// One of them, the other's share (a fraction) left out.
    Share(usize, f32),
    /// The first, the second mixed in by the mask map.
    Masked,
}

fn blend_pick(mix: f32, masked: bool) -> BlendPick {
    if masked {
        BlendPick::Masked
    } else if mix <= 0.0 {
        BlendPick::Exact(0)
    } else if mix >= 1.0 {
        BlendPick::Exact(1)
    } else if mix <= 0.5 {
        BlendPick::Share(0, mix)
    } else {
        BlendPick::Share(1, 1.0 - mix)
    }
}

/// A Blend exports as the material that stands for it ([`blend_pick`]),
/// adopted as the V-Ray wrapper adopts its base; what the pick leaves out
/// is named (`unmapped`), so coverage calls it partial.
fn blend(eval: &SceneEval, m: &mut Material) {
    let name_of = |i: usize| mtl_name(eval.chunks(i)).unwrap_or_else(|| format!("object {i}"));
    let Some((_, pb)) = block0(eval, m.index, "Blend", m) else {
        return;
    };
    let object = |id: u16| match pb.param(id).map(|p| &p.value) {
        Some(Value::Object(i)) => usize::try_from(*i).ok(),
        _ => None,
    };
    let on = |id: u16| {
        !matches!(
            pb.param(id).map(|p| &p.value),
            Some(Value::Bool(false)) | Some(Value::Int(0))
        )
    };
    let mix = match pb.param(0).map(|p| &p.value) {
        Some(Value::Float(v)) if v.is_finite() => *v,
        _ => 0.0,
    };
    let is_material = |i: usize| class_of(&eval.graph, i).map(|c| c.0) == Some(SC_MATERIAL);
    let slots = [
        object(5).filter(|&i| on(8) && is_material(i)),
        object(6).filter(|&i| on(9) && is_material(i)),
    ];
    let mask = object(7).filter(|&i| on(10) && class_of(&eval.graph, i).is_some());
    let mut notes = Vec::new();
    if matches!(
        pb.param(3).map(|p| &p.value),
        Some(Value::Bool(true)) | Some(Value::Int(1))
    ) {
        notes.push("Blend's mix curve (not exported)".to_string());
    }
    let (first, left) = match blend_pick(mix, mask.is_some()) {
        BlendPick::Exact(k) => (k, None),
        BlendPick::Share(k, share) => (k, Some(format!("{:.0}% mixed in", share * 100.0))),
        BlendPick::Masked => (0, Some("mixed in through the mask map".to_string())),
    };
    // A switched-off or empty slot leaves the other one to show.
    let (k, other) = match (slots[first], slots[1 - first]) {
        (Some(a), b) => (a, b),
        (None, Some(b)) => (b, None),
        (None, None) => {
            m.errors.push(format!(
                "Blend (object {}): neither material is set and on",
                m.index
            ));
            return;
        }
    };
    if let (Some(what), Some(o)) = (left, other) {
        notes.push(format!(
            "exported as its material {:?}; {:?} {what} (not exported)",
            name_of(k),
            name_of(o)
        ));
    }
    // A Blend inside decodes through `material` as any other; a cycle of
    // them ends at `material`'s nesting bound.
    let Some(inner) = material(eval, k) else {
        return;
    };
    adopt(m, inner);
    m.unmapped.splice(0..0, notes);
}

/// How deep `material` may call itself (a wrapper or Blend decoding the
/// material it stands for).
const MAX_NESTING: u32 = 32;

thread_local! {
    static NESTING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// One level of `material`'s nesting, given back when dropped.
struct Nesting;

impl Nesting {
    fn enter() -> Option<Nesting> {
        NESTING.with(|d| {
            (d.get() < MAX_NESTING).then(|| {
                d.set(d.get() + 1);
                Nesting
            })
        })
    }
}

impl Drop for Nesting {
    fn drop(&mut self) {
        NESTING.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// `m` takes what `inner` decoded (the material a wrapper or Blend stands
/// for), keeping its own index, name and class, and both errors.
pub(crate) fn adopt(m: &mut Material, inner: Material) {
    let mut errors = std::mem::take(&mut m.errors);
    errors.extend(inner.errors.iter().cloned());
    *m = Material {
        index: m.index,
        name: std::mem::take(&mut m.name),
        class: std::mem::take(&mut m.class),
        class_id: m.class_id,
        errors,
        ..inner
    };
}

fn multi(eval: &SceneEval, m: &mut Material) {
    let g: &SceneGraph = &eval.graph;
    let count = eval
        .chunks(m.index)
        .iter()
        .find(|c| c.id == SUB_COUNT)
        .and_then(|c| c.payload())
        .and_then(|p| p.get(..4))
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let n = match count {
        Some(n) if n > MAX_SUBS => {
            m.errors
                .push(format!("sub-material count {n} is beyond {MAX_SUBS}"));
            0
        }
        Some(n) => n,
        None => {
            // No count chunk: use the highest material reference.
            g.objects[m.index]
                .references
                .iter()
                .map(|r| r.slot)
                .max()
                .unwrap_or(0)
                .min(MAX_SUBS)
        }
    };
    m.sub_materials = (1..=n)
        .map(|s| {
            pblock::reference(g, m.index, s)
                .filter(|&t| class_of(g, t).map(|c| c.0) == Some(SC_MATERIAL))
        })
        .collect();
}

/// Decodes material object `idx` (superclass 0xc00).
pub fn material(eval: &SceneEval, idx: usize) -> Option<Material> {
    let g: &SceneGraph = &eval.graph;
    let (sc, cid, cname) = class_of(g, idx)?;
    if sc != SC_MATERIAL {
        return None;
    }
    let mut m = Material {
        index: idx,
        name: mtl_name(eval.chunks(idx)).unwrap_or_default(),
        class: cname.to_string(),
        class_id: [cid.0, cid.1],
        ..Material::default()
    };
    // Wrappers and Blends decode the material they stand for through here; a
    // cycle through both kinds (damaged data) must end, not overflow the stack.
    let Some(_depth) = Nesting::enter() else {
        m.errors.push(format!(
            "materials standing for one another nested deeper than {MAX_NESTING}"
        ));
        return Some(m);
    };
    match cid {
        STANDARD => standard(eval, &mut m),
        MULTI_SUB => multi(eval, &mut m),
        DOUBLE_SIDED => double_sided(eval, &mut m),
        BLEND => blend(eval, &mut m),
        PHYSICAL => physical::physical(eval, idx, &mut m),
        arnold::STANDARD_SURFACE => arnold::standard_surface(eval, idx, &mut m),
        arch_design::ARCH_DESIGN => arch_design::arch_design(eval, idx, &mut m),
        architectural::ARCHITECTURAL => architectural::architectural(eval, idx, &mut m),
        raytrace::RAYTRACE => raytrace::raytrace(eval, idx, &mut m),
        vray::VRAY_MTL => vray::vray_mtl(eval, idx, &mut m),
        vray::VRAY_MTL_WRAPPER => vray::wrapper(eval, idx, &mut m),
        vray::VRAY_2SIDED_MTL => vray::two_sided(eval, idx, &mut m),
        corona::CORONA_MTL => corona::corona_mtl(eval, idx, &mut m),
        corona::CORONA_PORTAL_MTL => corona::corona_portal(eval, idx, &mut m),
        corona_physical::CORONA_PHYSICAL_MTL => corona_physical::corona_physical(eval, idx, &mut m),
        autodesk::AUTODESK_MATERIAL => autodesk::autodesk_material(eval, idx, &mut m),
        _ if pro_materials::Kind::of(cid).is_some() => {
            if let Some(k) = pro_materials::Kind::of(cid) {
                pro_materials::pro_material(eval, idx, k, &mut m);
            }
        }
        _ => {
            let nel = cid == NEL_MATERIAL;
            for (k, (slot, obj, pb)) in pb2_refs(eval, idx).into_iter().enumerate() {
                match pb {
                    Ok(block) => m.blocks.push(NamedBlock {
                        name: match (nel, NEL_BLOCKS.get(k)) {
                            (true, Some(n)) => n.to_string(),
                            _ => format!("ref{slot}"),
                        },
                        object: obj,
                        block,
                    }),
                    Err(e) => m
                        .errors
                        .push(format!("reference {slot} (object {obj}): {e}")),
                }
            }
            // Scripted materials extend a built-in one held on reference 0: NeL
            // Material a Standard, the PBR materials a Physical Material whose
            // values the script keeps up to date.
            if let Some(d) = pblock::reference(g, idx, 0) {
                if class_of(g, d).is_some_and(|c| c.1 == PHYSICAL) {
                    physical::physical(eval, d, &mut m);
                }
                if class_of(g, d).is_some_and(|c| c.1 == STANDARD) {
                    let mut inner = Material {
                        index: d,
                        ..Material::default()
                    };
                    standard(eval, &mut inner);
                    m.shader = inner.shader;
                    m.ambient = inner.ambient;
                    m.diffuse = inner.diffuse;
                    m.specular = inner.specular;
                    m.self_illum_color = inner.self_illum_color;
                    m.use_self_illum_color = inner.use_self_illum_color;
                    m.self_illum_amount = inner.self_illum_amount;
                    m.glossiness = inner.glossiness;
                    m.specular_level = inner.specular_level;
                    m.opacity = inner.opacity;
                    m.two_sided = inner.two_sided;
                    m.maps = inner.maps;
                    m.errors.extend(inner.errors);
                    m.unmapped.extend(inner.unmapped);
                }
            }
        }
    }
    Some(m)
}

fn uvgen(eval: &SceneEval, idx: usize) -> Result<UvGen, EvalError> {
    let Some(pbi) = pblock::reference(&eval.graph, idx, 0) else {
        return Ok(UvGen::default());
    };
    let params = pblock::param_block(eval.chunks(pbi))?;
    let f = |i: i32| {
        params
            .iter()
            .find(|p| p.index == i)
            .and_then(|p| match p.value {
                Value::Float(v) => Some(v),
                _ => None,
            })
    };
    let channel = eval
        .chunks(idx)
        .iter()
        .find(|c| c.id == UVGEN_CHANNEL)
        .and_then(|c| c.payload())
        .filter(|p| p.len() == 4)
        .map(|p| i32::from_le_bytes([p[0], p[1], p[2], p[3]]));
    let tiling = eval
        .chunks(idx)
        .iter()
        .find(|c| c.id == UVGEN_TILING)
        .and_then(|c| c.payload())
        .filter(|p| p.len() == 4)
        .map(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]]));
    Ok(UvGen {
        channel,
        tiling,
        u_offset: f(0),
        v_offset: f(1),
        u_tiling: f(2),
        v_tiling: f(3),
        angle_uvw: [f(4), f(5), f(6)],
    })
}

/// Decodes texmap object `idx` (superclass 0xc10).
pub fn texmap(eval: &SceneEval, idx: usize, assets: &Assets) -> Option<Texmap> {
    let g: &SceneGraph = &eval.graph;
    let (sc, cid, cname) = class_of(g, idx)?;
    if sc != SC_TEXMAP {
        return None;
    }
    let mut t = Texmap {
        index: idx,
        name: mtl_name(eval.chunks(idx)).unwrap_or_default(),
        class: cname.to_string(),
        class_id: [cid.0, cid.1],
        ..Texmap::default()
    };
    for r in &g.objects[idx].references {
        let Ok(k) = usize::try_from(r.target) else {
            continue;
        };
        match class_of(g, k) {
            Some((SC_TEXMAP, _, _)) => t.sub_maps.push(k),
            // Bitmap's generator is its reference 0; VRayBitmap's follows
            // its block.
            Some((_, STD_UVGEN, _)) if r.slot == 0 || cid == VRAY_BITMAP => match uvgen(eval, k) {
                Ok(uv) => t.uv = Some(uv),
                Err(e) => t.errors.push(format!("UV generator (object {k}): {e}")),
            },
            _ => {}
        }
    }
    if cid == BITMAP {
        for (slot, obj, pb) in pb2_refs(eval, idx) {
            match pb {
                Ok(pb) if pb.block_id == 0 => {
                    if let Some(Value::Bitmap(name)) = pb.param(BITMAP_PARAM).map(|p| &p.value) {
                        t.file = name.clone();
                    }
                    t.mono_from_alpha = matches!(
                        pb.param(BITMAP_MONO_OUTPUT).map(|p| &p.value),
                        Some(Value::Int(1))
                    );
                    let guid = pblock::bitmap_container(eval.chunks(obj), BITMAP_PARAM)
                        .and_then(pblock::asset_guid);
                    if let Some(guid) = guid {
                        t.image_asset(&guid, assets);
                    }
                }
                Ok(_) => {}
                Err(e) => t
                    .errors
                    .push(format!("reference {slot} (object {obj}): {e}")),
            }
        }
    }
    if cid == VRAY_BITMAP {
        vray_bitmap(eval, idx, assets, &mut t);
    }
    Some(t)
}

/// The image of VRayBitmap `idx`: parameter 0 of its block, inline or as an
/// asset of the file's table. Ids read off the 661 VRayBitmaps of the sweeps
/// (sohaibshams' Exterior_Project, two more files): parameter 0 is the
/// file-name parameter (an empty inline name and an asset every time, each
/// asset a texture path of the file's table), 2 an integer 4 every time
/// (the mapping type; 4 is "3ds Max standard" in V-Ray's documented list,
/// the others environment projections), 1 a float 1.0 (the multiplier). An
/// image the table does not list, or another mapping type, leaves no file
/// and says why in `errors`.
fn vray_bitmap(eval: &SceneEval, idx: usize, assets: &Assets, t: &mut Texmap) {
    for (slot, obj, pb) in pb2_refs(eval, idx) {
        let pb = match pb {
            Ok(pb) if pb.block_id == 0 => pb,
            Ok(_) => continue,
            Err(e) => {
                t.errors
                    .push(format!("reference {slot} (object {obj}): {e}"));
                continue;
            }
        };
        let mapping = match pb.param(VRAY_BITMAP_MAPPING).map(|p| &p.value) {
            Some(Value::Int(m)) => *m,
            _ => VRAY_BITMAP_STANDARD,
        };
        if mapping != VRAY_BITMAP_STANDARD {
            t.errors.push(format!(
                "mapping type {mapping} (an environment projection, not \"3ds Max standard\")"
            ));
            return;
        }
        if let Some(Value::String(name)) = pb.param(VRAY_BITMAP_FILE).map(|p| &p.value) {
            if !name.is_empty() {
                t.file = Some(name.clone());
                return;
            }
        }
        if let Some(guid) = pblock::filename_asset(eval.chunks(obj), VRAY_BITMAP_FILE) {
            t.image_asset(&guid, assets);
        }
        return;
    }
}

/// The material of a node: its reference slot 3.
pub fn node_material(graph: &SceneGraph, node: usize) -> Option<usize> {
    pblock::reference(graph, node, 3)
        .filter(|&m| class_of(graph, m).map(|c| c.0) == Some(SC_MATERIAL))
}

/// Classes of the materials reachable from material `idx` (itself, or the
/// sub-materials of a Multi/Sub-Object, depth-limited) whose colours are not
/// decoded: neither Standard's shader colours nor Physical Material values.
/// Exports show these with default colours, so coverage names them. A
/// material decoded in part is named with what it sets that the exports do
/// not carry (`Material::unmapped`).
pub fn undecoded_classes(eval: &SceneEval, idx: usize) -> Vec<String> {
    fn push(out: &mut Vec<String>, entry: String) {
        if !out.contains(&entry) {
            out.push(entry);
        }
    }
    fn partial(m: &Material) -> Option<String> {
        (!m.unmapped.is_empty())
            .then(|| format!("{} (partially: {})", m.class, m.unmapped.join("; ")))
    }
    fn walk(eval: &SceneEval, idx: usize, depth: u32, out: &mut Vec<String>) {
        let Some(m) = material(eval, idx) else { return };
        if let Some(ds) = &m.double_sided {
            // A two-sided wrapper's own gaps (VRay2SidedMtl's translucency).
            if let Some(p) = partial(&m) {
                push(out, p);
            }
            if depth < 8 {
                let mut sides: Vec<usize> = [ds.facing, ds.back].into_iter().flatten().collect();
                sides.dedup();
                for s in sides {
                    walk(eval, s, depth + 1, out);
                }
            }
        } else if !m.sub_materials.is_empty() {
            if depth < 8 {
                for s in m.sub_materials.iter().flatten() {
                    walk(eval, *s, depth + 1, out);
                }
            }
        } else if m.diffuse.is_none() && m.pbr.is_none() {
            push(out, m.class);
        } else if let Some(p) = partial(&m) {
            push(out, p);
        }
    }
    let mut out = Vec::new();
    walk(eval, idx, 0, &mut out);
    out
}

/// Map slots whose Bitmaps the glTF export packs into one
/// metallic-roughness image (roughness in green, metalness in blue).
pub const PACKED_SLOTS: [&str; 2] = ["roughness", "metalness"];

/// The enabled maps of `maps` (by index) that the glTF export packs into
/// its metallic-roughness image: Bitmaps in `PACKED_SLOTS`, the second
/// placed as the first (one image holds both). The exporter names the
/// others, and any whose image it cannot find or read.
pub fn packed_maps(eval: &SceneEval, maps: &[MapRef]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let mut placed: Option<Option<UvGen>> = None;
    for slot in PACKED_SLOTS {
        let Some(i) = maps
            .iter()
            .position(|r| r.slot == slot && r.enabled != Some(false))
        else {
            continue;
        };
        let Some(t) = maps
            .get(i)
            .and_then(|r| texmap(eval, r.texmap, &Assets::default()))
        else {
            continue;
        };
        if t.class_id != [BITMAP.0, BITMAP.1] || t.mono_from_alpha {
            continue;
        }
        match &placed {
            Some(uv) if *uv != t.uv => continue,
            Some(_) => {}
            None => placed = Some(t.uv.clone()),
        }
        out.push(i);
    }
    out
}

/// The last path component of a file name, for either separator.
pub fn file_base(path: &str) -> &str {
    path.rsplit(['\\', '/']).next().unwrap_or(path)
}

#[cfg(test)]
mod tests {

    /// A wrapper standing for a Blend standing for the wrapper (damaged
    /// data) recurses through `material`: the nesting guard stops it at
    /// MAX_NESTING levels and gives every level back.
    #[test]
    fn material_nesting_is_bounded_and_given_back() {
        fn down() -> u32 {
            match Nesting::enter() {
                Some(_level) => 1 + down(),
                None => 0,
            }
        }
        assert_eq!(down(), MAX_NESTING);
        assert_eq!(down(), MAX_NESTING, "every level was given back");
        NESTING.with(|d| assert_eq!(d.get(), 0));
    }

    /// The material that stands for a Blend: exactly one at mix 0 or 1
    /// without a mask (Academia2013's bottles hold mix 0 and a mask map on
    /// all ten), the larger share otherwise, the first under a mask.
    #[test]
    fn a_blend_is_its_larger_share_or_its_first_material_under_a_mask() {
        assert_eq!(blend_pick(0.0, false), BlendPick::Exact(0));
        assert_eq!(blend_pick(1.0, false), BlendPick::Exact(1));
        assert_eq!(blend_pick(0.25, false), BlendPick::Share(0, 0.25));
        assert_eq!(blend_pick(0.75, false), BlendPick::Share(1, 0.25));
        assert_eq!(blend_pick(0.5, false), BlendPick::Share(0, 0.5));
        assert_eq!(blend_pick(0.0, true), BlendPick::Masked);
        assert_eq!(blend_pick(1.0, true), BlendPick::Masked);
    }
    use super::*;

    fn utf16z(s: &str) -> Vec<u8> {
        let mut v = (s.encode_utf16().count() as u32).to_le_bytes().to_vec();
        v.extend(s.encode_utf16().flat_map(u16::to_le_bytes));
        v.extend([0, 0]);
        v
    }

    #[test]
    fn asset_tables_of_both_versions() {
        let guid = [7u8; 16];
        let mut v2 = guid.to_vec();
        v2.extend(utf16z("Bitmap"));
        v2.extend(utf16z("C:\\maps\\crate.png"));
        let mut v3 = v2.clone();
        v3.extend(utf16z("D:\\resolved\\crate.png"));
        assert_eq!(
            Assets::parse_v2(&v2).path(&guid),
            Some("C:\\maps\\crate.png")
        );
        assert_eq!(Assets::parse(&v3).path(&guid), Some("C:\\maps\\crate.png"));
        // A version-2 table read as version 3 lacks its third string: nothing.
        assert!(Assets::parse(&v2).0.is_empty());
        // A truncated record ends the table.
        assert!(Assets::parse_v2(&v2[..v2.len() - 3]).0.is_empty());
    }
}
