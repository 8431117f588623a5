//! Parameter blocks: ParamBlock2 (superclass 0x82) and the old ParamBlock
//! (superclass 0x8). Materials, texmaps, lights, cameras and many objects keep
//! their values there rather than in their own chunks.
//!
//! ParamBlock2: header chunk 0x0009 = {u32 version, u16 block id, u16, u16, u16
//! parameter count, u32 owner index}; each parameter is a record chunk — 0x000e
//! (Max 4 … 2016), 0x100e (Max 2017+, same layout) or 0x000a (Max 3, shorter
//! header) — {u16 id, u16 type, opaque bytes, u8 flags, payload}. Flag 0x40 marks
//! an inline constant. Tab parameters (type bit 0x800) hold a u32 count and per
//! element a flag byte and, unless a controller drives the element (its flag
//! lacks 0x40), a value. Reference-kind parameters (material, texmap, node,
//! reftarg), parameters and tab elements driven by a controller take the
//! block's reference slots in record order.
//!
//! Old ParamBlock: each parameter is a 0x0002 container holding 0x0003 (s32 index)
//! and a value chunk 0x0100 float, 0x0101 int, 0x0102 Point3, 0x0104 bool-like
//! int; an animated parameter has an empty 0x0200 (0x0201 for an int
//! parameter: the Sunlight system's time of day) instead and its controller is
//! the block's next reference, in parameter order.

use crate::eval::error::EvalError;
use serde::Serialize;

use crate::chunk::Chunk;
use crate::graph::SceneGraph;

use crate::eval::core::keys::Words;

pub const SC_PARAM_BLOCK2: u32 = 0x82;
pub const SC_PARAM_BLOCK: u32 = 0x8;

const PB2_HEADER: u16 = 0x0009;
/// The header of a block whose descriptor is another class's (a Boolean
/// modifier's operand blocks inside an operand's own Boolean modifier).
const PB2_HEADER_CLASS: u16 = 0x000b;
const PB2_RECORD: u16 = 0x000e;
const PB2_RECORD_2017: u16 = 0x100e;
const PB2_RECORD_MAX3: u16 = 0x000a;
/// Bytes before the payload of a record: 15 (0x000e/0x100e) or 11 (Max 3 0x000a).
const HEADER_MODERN: usize = 15;
const HEADER_MAX3: usize = 11;
const FLAG_CONSTANT: u8 = 0x40;
pub const TYPE_TAB: u16 = 0x800;
/// Tab elements decoded at most (damaged counts must not allocate).
const MAX_TAB: usize = 1 << 16;

/// ParamBlock2 parameter types (the low 11 bits of the type word).
pub mod ty {
    pub const FLOAT: u16 = 0;
    pub const INT: u16 = 1;
    pub const RGBA: u16 = 2;
    pub const POINT3: u16 = 3;
    pub const BOOL: u16 = 4;
    pub const ANGLE: u16 = 5;
    pub const PCNT_FRAC: u16 = 6;
    pub const WORLD: u16 = 7;
    pub const STRING: u16 = 8;
    pub const FILENAME: u16 = 9;
    pub const HSV: u16 = 10;
    pub const COLOR_CHANNEL: u16 = 11;
    pub const TIMEVALUE: u16 = 12;
    pub const RADIOBTN_INDEX: u16 = 13;
    pub const MTL: u16 = 14;
    pub const TEXMAP: u16 = 15;
    pub const BITMAP: u16 = 16;
    pub const NODE: u16 = 17;
    pub const REFTARG: u16 = 18;
    /// A 0-based index (Max's TYPE_INDEX; MAXScript shows it 1-based).
    pub const INDEX: u16 = 19;
    pub const MATRIX3: u16 = 20;
    /// A sub-block (the Max 2024 Boolean modifier keeps one per operand).
    pub const PBLOCK2: u16 = 21;
    /// Four-float colour (RGBA with alpha, Max 2017+ materials: Physical Material).
    pub const FRGBA: u16 = 23;
}

/// A parameter value a decoder accepts as the one its rule was measured
/// with: anything else is refused, naming the parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Known {
    Bool(bool),
    Int(i32),
    Float(f32),
}

impl Known {
    pub fn matches(self, v: &Value) -> bool {
        match (self, v) {
            (Known::Bool(a), Value::Bool(b)) => a == *b,
            (Known::Int(a), Value::Int(b)) => a == *b,
            (Known::Float(a), Value::Float(b)) => a == *b,
            _ => false,
        }
    }
}

/// A decoded parameter value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Value {
    Float(f32),
    Int(i32),
    Bool(bool),
    /// RGBA, Point3 and HSV parameters: three floats.
    Vector([f32; 3]),
    String(String),
    /// A reference-kind parameter stored inline (Max 3, or an empty slot):
    /// a scene object index or −1.
    Object(i32),
    /// A bitmap parameter: the file name when one could be found.
    Bitmap(Option<String>),
    FloatTab(Vec<f32>),
    IntTab(Vec<i32>),
    /// A tab of reference-kind elements (nodes, materials, …) stored as
    /// block references: per element, the block reference slot it owns.
    RefTab(Vec<u32>),
    VectorTab(Vec<[f32; 3]>),
    /// A number tab with elements a controller drives: per element its
    /// constant or the block reference slot of its controller.
    ControlledTab(Vec<TabElement>),
    /// Driven by a controller or a reference (see `ref_slot`), or a type not decoded.
    None,
}

/// One element of a [`Value::ControlledTab`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum TabElement {
    Float(f32),
    Int(i32),
    Vector([f32; 3]),
    /// Driven: the block reference slot of its controller.
    Slot(u32),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Param {
    pub id: u16,
    /// Full type word, tab bit included.
    pub ty: u16,
    pub flags: u8,
    pub value: Value,
    /// The block reference slot this parameter owns (controller or target).
    pub ref_slot: Option<u32>,
}

#[cfg(test)]
impl Param {
    /// A parameter with no flags and no controller, as the material
    /// decoders' unit tests write a stored block out.
    pub(crate) fn plain(id: u16, ty: u16, value: Value) -> Param {
        Param {
            id,
            ty,
            flags: 0,
            value,
            ref_slot: None,
        }
    }
}

impl Param {
    pub fn base_type(&self) -> u16 {
        self.ty & 0x7ff
    }
    pub fn is_tab(&self) -> bool {
        self.ty & TYPE_TAB != 0
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ParamBlock2 {
    pub version: u32,
    pub block_id: u16,
    /// Parameter count announced by the header.
    pub count: u16,
    pub owner: u32,
    pub params: Vec<Param>,
}

impl ParamBlock2 {
    pub fn param(&self, id: u16) -> Option<&Param> {
        self.params.iter().find(|p| p.id == id)
    }
}

fn is_ref_kind(base: u16) -> bool {
    matches!(
        base,
        ty::MTL | ty::TEXMAP | ty::NODE | ty::REFTARG | ty::PBLOCK2
    )
}

/// UTF-16LE text without its trailing NULs (unpaired surrogates replaced).
pub(crate) fn utf16(b: &[u8]) -> String {
    let units: Vec<u16> = b
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    String::from_utf16_lossy(&units)
        .trim_end_matches('\0')
        .to_string()
}

/// A length-prefixed string: u32 byte count then UTF-16 (newer files) or 8-bit text.
fn string(p: &[u8]) -> Result<String, EvalError> {
    if p.len() < 4 {
        return Err(EvalError::malformed(
            "string",
            format!("{} bytes cannot hold a length", p.len()),
        ));
    }
    let n = Words(p).u32(0);
    if n == u32::MAX {
        // An unset string.
        return Ok(String::new());
    }
    if n == u32::MAX - 1 && p.len() == 4 {
        // No inline text: a filename parameter of Max 2017+ whose value is an
        // asset reference (the block's 0x000f container holds its GUID).
        return Ok(String::new());
    }
    let n = n as usize;
    let body = &p[4..];
    if n > body.len() {
        return Err(EvalError::malformed(
            "string",
            format!("length {n} exceeds the {} bytes stored", body.len()),
        ));
    }
    let s = &body[..n];
    // Newer files store UTF-16 with an even length and zero high bytes for ASCII.
    let wide = n >= 2 && n.is_multiple_of(2) && s.iter().skip(1).step_by(2).all(|&b| b == 0);
    Ok(if wide {
        utf16(s)
    } else {
        String::from_utf8_lossy(s)
            .trim_end_matches('\0')
            .to_string()
    })
}

/// A tab parameter's value. Reference-kind elements that store only their
/// flag byte (Max 2017+ node tabs, Path Constraint's path list) are block
/// references: they take the next slots from `slot`, in element order.
fn tab(base: u16, p: &[u8], slot: &mut u32) -> Result<Value, EvalError> {
    if p.len() < 4 {
        return Err(EvalError::malformed(
            "tab",
            format!("{} bytes cannot hold a count", p.len()),
        ));
    }
    let n = Words(p).u32(0) as usize;
    let size = match base {
        ty::RGBA | ty::POINT3 | ty::HSV => 12,
        ty::FLOAT
        | ty::INT
        | ty::BOOL
        | ty::ANGLE
        | ty::PCNT_FRAC
        | ty::WORLD
        | ty::COLOR_CHANNEL
        | ty::TIMEVALUE
        | ty::RADIOBTN_INDEX
        | ty::INDEX
        | ty::MTL
        | ty::TEXMAP
        | ty::NODE
        | ty::REFTARG
        | ty::PBLOCK2 => 4,
        _ => return Ok(Value::None),
    };
    if n > MAX_TAB {
        return Err(EvalError::malformed(
            "tab",
            format!("count {n} is beyond {MAX_TAB}"),
        ));
    }
    let body = &p[4..];
    if is_ref_kind(base) && n > 0 && body.len() == n {
        let first = *slot;
        let count = n as u32;
        *slot = slot.saturating_add(count);
        return Ok(Value::RefTab(
            (first..first.saturating_add(count)).collect(),
        ));
    }
    // Per element a flag byte, then its value unless a controller drives it
    // (no FLAG_CONSTANT bit: MassFX's baked list weights, flags 0x80 and 0xa0);
    // a driven element takes the block's next reference slot.
    let mut elems = Vec::with_capacity(n);
    let mut at = 0usize;
    for i in 0..n {
        let Some(&flag) = body.get(at) else {
            return Err(EvalError::malformed(
                "tab",
                format!(
                    "element {i} of {n}: no flag byte ({} bytes stored)",
                    body.len()
                ),
            ));
        };
        at += 1;
        if flag & FLAG_CONSTANT == 0 {
            elems.push(TabElement::Slot(*slot));
            *slot = slot.saturating_add(1);
            continue;
        }
        let Some(e) = body.get(at..at + size) else {
            return Err(EvalError::malformed(
                "tab",
                format!(
                    "element {i} of {n}: {size} value bytes at {at}, {} stored",
                    body.len()
                ),
            ));
        };
        at += size;
        let w = Words(e);
        elems.push(match base {
            ty::RGBA | ty::POINT3 | ty::HSV => {
                TabElement::Vector([w.f(0) as f32, w.f(1) as f32, w.f(2) as f32])
            }
            ty::FLOAT | ty::ANGLE | ty::PCNT_FRAC | ty::WORLD | ty::COLOR_CHANNEL => {
                TabElement::Float(w.f(0) as f32)
            }
            _ => TabElement::Int(w.i32(0)),
        });
    }
    if elems.iter().any(|e| matches!(e, TabElement::Slot(_))) {
        return Ok(Value::ControlledTab(elems));
    }
    Ok(match base {
        ty::RGBA | ty::POINT3 | ty::HSV => Value::VectorTab(
            elems
                .iter()
                .filter_map(|e| match e {
                    TabElement::Vector(v) => Some(*v),
                    _ => None,
                })
                .collect(),
        ),
        ty::FLOAT | ty::ANGLE | ty::PCNT_FRAC | ty::WORLD | ty::COLOR_CHANNEL => Value::FloatTab(
            elems
                .iter()
                .filter_map(|e| match e {
                    TabElement::Float(v) => Some(*v),
                    _ => None,
                })
                .collect(),
        ),
        _ => Value::IntTab(
            elems
                .iter()
                .filter_map(|e| match e {
                    TabElement::Int(v) => Some(*v),
                    _ => None,
                })
                .collect(),
        ),
    })
}

fn constant(base: u16, p: &[u8]) -> Result<Value, EvalError> {
    let need = |n: usize| {
        if p.len() < n {
            Err(EvalError::malformed(
                "",
                format!("type {base:#x} needs {n} payload bytes, {} stored", p.len()),
            ))
        } else {
            Ok(Words(p))
        }
    };
    Ok(match base {
        ty::FLOAT | ty::ANGLE | ty::PCNT_FRAC | ty::WORLD | ty::COLOR_CHANNEL => {
            Value::Float(need(4)?.f(0) as f32)
        }
        ty::INT | ty::TIMEVALUE | ty::RADIOBTN_INDEX | ty::INDEX => Value::Int(need(4)?.i32(0)),
        ty::BOOL => Value::Bool(need(4)?.i32(0) != 0),
        // FRGBA's alpha (the fourth float) is not used by any decoded parameter.
        ty::RGBA | ty::POINT3 | ty::HSV | ty::FRGBA => {
            let w = need(if base == ty::FRGBA { 16 } else { 12 })?;
            Value::Vector([w.f(0) as f32, w.f(1) as f32, w.f(2) as f32])
        }
        ty::STRING | ty::FILENAME => Value::String(string(p)?),
        ty::MTL | ty::TEXMAP | ty::NODE | ty::REFTARG | ty::PBLOCK2 => {
            Value::Object(need(4)?.i32(0))
        }
        ty::BITMAP => Value::Bitmap(None),
        _ => Value::None,
    })
}

/// The file name a bitmap parameter's 0x0003 sibling container holds, if any:
/// a UTF-16 string chunk that looks like a path (Max 2017+ keep only an asset
/// GUID there, resolved by `asset_guid`).
fn bitmap_name(c: &Chunk) -> Option<String> {
    c.children().iter().find_map(|k| {
        let s = utf16(k.payload()?);
        let looks = s.contains('.') && (s.contains('\\') || s.contains('/') || s.len() > 4);
        (k.id != 0x1240 && looks && !s.chars().any(char::is_control)).then_some(s)
    })
}

/// The asset GUID (16 bytes) of a bitmap parameter's 0x0003 container: chunk
/// 0x1260 holding a 0x0002 leaf of 16 bytes.
pub fn asset_guid(c: &Chunk) -> Option<[u8; 16]> {
    let g = c.children().iter().find(|k| k.id == 0x1260)?;
    let leaf = g.children().iter().find(|k| k.id == 0x0002)?.payload()?;
    leaf.try_into().ok()
}

/// Decodes a ParamBlock2 from its object's chunks.
pub fn param_block2(chunks: &[Chunk]) -> Result<ParamBlock2, EvalError> {
    let mut pb = ParamBlock2::default();
    let header = chunks
        .iter()
        .find(|c| c.id == PB2_HEADER || c.id == PB2_HEADER_CLASS)
        .ok_or_else(|| EvalError::malformed("ParamBlock2", "no header chunk 0x0009"))?;
    let h = header.payload().ok_or_else(|| {
        EvalError::malformed(
            "ParamBlock2",
            format!("header {:#06x} is a container", header.id),
        )
    })?;
    // 0x000b: the descriptor's class id and superclass, then 0x0009's fields
    // from the block id on (no version).
    let (need, skip) = if header.id == PB2_HEADER {
        (16, 4)
    } else {
        (24, 12)
    };
    if h.len() < need {
        return Err(EvalError::malformed(
            "ParamBlock2",
            format!(
                "header {:#06x} holds {} bytes, {need} expected",
                header.id,
                h.len()
            ),
        ));
    }
    if header.id == PB2_HEADER {
        pb.version = Words(h).u32(0);
    }
    pb.block_id = u16::from_le_bytes([h[skip], h[skip + 1]]);
    pb.count = u16::from_le_bytes([h[skip + 6], h[skip + 7]]);
    pb.owner = Words(&h[skip + 8..]).u32(0);
    let mut slot = 0u32;
    for (i, c) in chunks.iter().enumerate() {
        let hdr = match c.id {
            PB2_RECORD | PB2_RECORD_2017 => HEADER_MODERN,
            PB2_RECORD_MAX3 => HEADER_MAX3,
            _ => continue,
        };
        let Some(p) = c.payload() else {
            continue;
        };
        if p.len() < hdr {
            return Err(EvalError::malformed(
                format!("ParamBlock2 record {i} ({:#06x})", c.id),
                format!("{} bytes, a {hdr}-byte header expected", p.len()),
            ));
        }
        let id = u16::from_le_bytes([p[0], p[1]]);
        let tyw = u16::from_le_bytes([p[2], p[3]]);
        let flags = p[hdr - 1];
        let payload = &p[hdr..];
        let base = tyw & 0x7ff;
        let ctx = |e: EvalError| e.inside(format!("ParamBlock2 parameter {id} (type {tyw:#x})"));
        let mut param = Param {
            id,
            ty: tyw,
            flags,
            value: Value::None,
            ref_slot: None,
        };
        if tyw & TYPE_TAB != 0 {
            param.value = tab(base, payload, &mut slot).map_err(ctx)?;
        } else {
            let is_const = flags & FLAG_CONSTANT != 0;
            if is_const && !payload.is_empty() {
                param.value = constant(base, payload).map_err(ctx)?;
            }
            // Inline reference constants (Max 3 storage indices) own no slot.
            let inline_ref = is_ref_kind(base) && is_const && !payload.is_empty();
            if !is_const || (is_ref_kind(base) && !inline_ref) {
                param.ref_slot = Some(slot);
                slot += 1;
            }
            if base == ty::BITMAP {
                let name = chunks.get(i + 1).filter(|n| n.id == 0x0003);
                param.value = Value::Bitmap(name.and_then(bitmap_name));
            }
        }
        pb.params.push(param);
    }
    Ok(pb)
}

/// The 0x0003 container that follows the bitmap parameter `id`, if any.
pub fn bitmap_container(chunks: &[Chunk], id: u16) -> Option<&Chunk> {
    let at = chunks.iter().position(|c| {
        matches!(c.id, PB2_RECORD | PB2_RECORD_2017 | PB2_RECORD_MAX3)
            && c.payload()
                .is_some_and(|p| p.len() >= 4 && u16::from_le_bytes([p[0], p[1]]) == id)
    })?;
    chunks.get(at + 1).filter(|c| c.id == 0x0003)
}

/// The asset GUID of file-name parameter `id` (Max 2015+): the 0x000F
/// container after its record holds it as a 16-byte 0x0002 leaf (V-Ray's
/// VRayBitmap stores its image so, with an empty inline name).
pub fn filename_asset(chunks: &[Chunk], id: u16) -> Option<[u8; 16]> {
    let at = chunks.iter().position(|c| {
        matches!(c.id, PB2_RECORD | PB2_RECORD_2017 | PB2_RECORD_MAX3)
            && c.payload()
                .is_some_and(|p| p.len() >= 4 && u16::from_le_bytes([p[0], p[1]]) == id)
    })?;
    let container = chunks.get(at + 1).filter(|c| c.id == 0x000f)?;
    let leaf = container.children().iter().find(|k| k.id == 0x0002)?;
    leaf.payload()?.try_into().ok()
}

/// One old-ParamBlock parameter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OldParam {
    pub index: i32,
    pub value: Value,
    /// Animated: the block reference slot of its controller.
    pub ref_slot: Option<u32>,
}

/// Decodes an old ParamBlock (superclass 0x8).
pub fn param_block(chunks: &[Chunk]) -> Result<Vec<OldParam>, EvalError> {
    let mut out = Vec::new();
    let mut slot = 0u32;
    for (k, c) in chunks.iter().filter(|c| c.id == 0x0002).enumerate() {
        let mut p = OldParam {
            index: k as i32,
            value: Value::None,
            ref_slot: None,
        };
        for v in c.children() {
            let data = v.payload().unwrap_or(&[]);
            let need = |n: usize| {
                if data.len() < n {
                    Err(EvalError::malformed(
                        format!("ParamBlock parameter {k}"),
                        format!(
                            "chunk {:#06x} holds {} bytes, {n} expected",
                            v.id,
                            data.len()
                        ),
                    ))
                } else {
                    Ok(Words(data))
                }
            };
            match v.id {
                0x0003 => p.index = need(4)?.i32(0),
                0x0100 => p.value = Value::Float(need(4)?.f(0) as f32),
                0x0101 | 0x0104 => p.value = Value::Int(need(4)?.i32(0)),
                0x0102 => {
                    let w = need(12)?;
                    p.value = Value::Vector([w.f(0) as f32, w.f(1) as f32, w.f(2) as f32]);
                }
                0x0200 | 0x0201 => {
                    p.ref_slot = Some(slot);
                    slot += 1;
                }
                _ => {}
            }
        }
        out.push(p);
    }
    Ok(out)
}

/// Whether object `idx` is a ParamBlock2: modifiers that know only the old
/// block's indices refuse one rather than read it by guessed ids.
pub fn is_param_block2(graph: &SceneGraph, idx: usize) -> bool {
    graph
        .class(idx)
        .is_some_and(|c| c.super_class == SC_PARAM_BLOCK2)
}

/// The target of reference `slot` of object `idx` (None when absent or −1).
pub fn reference(graph: &SceneGraph, idx: usize, slot: u32) -> Option<usize> {
    graph
        .objects
        .get(idx)?
        .references
        .iter()
        .find(|r| r.slot == slot)
        .and_then(|r| usize::try_from(r.target).ok())
        // A damaged file may name an object past its list.
        .filter(|&t| t < graph.objects.len())
}

/// The value at `t` of a parameter its controller `ctl` drives: a float
/// track (or a float list of them) or a Point3 track. Any other controller,
/// or one that is not decoded, is an error naming it: its value is not
/// known, and a stand-in (0, or the parameter's default) would be silently
/// wrong.
pub(crate) fn driven(
    eval: &crate::eval::SceneEval,
    ctl: Option<usize>,
    t: i32,
) -> Result<Value, EvalError> {
    use crate::eval::core::controller::Controller;
    // An empty slot is how a reference-kind parameter (a node, a material)
    // with nothing assigned is saved: no number is read from it.
    let Some(idx) = ctl else {
        return Ok(Value::Float(0.0));
    };
    if let Some(Controller::Point3 { track, .. }) = eval.controller(idx) {
        let v = track.at(t);
        return Ok(Value::Vector([v[0] as f32, v[1] as f32, v[2] as f32]));
    }
    numeric(eval, idx)?;
    Ok(Value::Float(eval.float_at(ctl, t, 0.0) as f32))
}

/// Whether controller `idx` is one `SceneEval::float_at` evaluates: a float
/// track, or a float list whose entries all are; else why not.
fn numeric(eval: &crate::eval::SceneEval, idx: usize) -> Result<(), EvalError> {
    use crate::eval::core::controller::{Controller, ListKind};
    match eval.controller(idx) {
        Some(Controller::Float { .. }) => Ok(()),
        Some(Controller::List {
            kind: ListKind::Float,
            subs,
            ..
        }) => subs.iter().flatten().try_for_each(|&s| numeric(eval, s)),
        Some(_) => Err(EvalError::not_evaluated(format!(
            "a parameter driven by {}",
            crate::eval::core::coverage::class_name(eval, idx)
        ))),
        None => Err(eval.controller_error(idx).unwrap_or_else(|| {
            EvalError::not_evaluated(format!("controller object {idx} (not decoded)"))
        })),
    }
}

/// A ParamBlock2 record chunk (id, type word, ten unread bytes, flags, then
/// the payload), for unit tests of the readers built on this module.
#[cfg(test)]
pub(crate) fn test_record(id: u16, tyw: u16, flags: u8, payload: &[u8]) -> Chunk {
    let mut v = Vec::new();
    v.extend(id.to_le_bytes());
    v.extend(tyw.to_le_bytes());
    v.extend([0u8; 10]);
    v.push(flags);
    v.extend(payload);
    Chunk::leaf(PB2_RECORD, v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: u16, tyw: u16, flags: u8, payload: &[u8]) -> Chunk {
        test_record(id, tyw, flags, payload)
    }

    fn header(count: u16) -> Chunk {
        let mut h = vec![4, 0, 0, 0, 2, 0, 0, 0, 0x28, 0x23];
        h.extend(count.to_le_bytes());
        h.extend(7u32.to_le_bytes());
        Chunk::leaf(PB2_HEADER, h)
    }

    #[test]
    fn decodes_constants_slots_and_tabs() {
        let mut tabp = 2u32.to_le_bytes().to_vec();
        tabp.extend([0x40, 0, 0, 0x80, 0x3f, 0x40, 0, 0, 0, 0x40]);
        let chunks = vec![
            header(4),
            rec(
                0,
                ty::RGBA,
                0x40,
                &[0, 0, 0x80, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0],
            ),
            rec(1, ty::FLOAT, 0x00, &[]),
            rec(2, ty::TEXMAP, 0x00, &[]),
            rec(3, ty::FLOAT | TYPE_TAB, 0x00, &tabp),
        ];
        let pb = param_block2(&chunks).unwrap();
        assert_eq!(pb.block_id, 2);
        assert_eq!(pb.owner, 7);
        assert_eq!(pb.params[0].value, Value::Vector([1.0, 0.0, 0.0]));
        assert_eq!(pb.params[1].ref_slot, Some(0));
        assert_eq!(pb.params[2].ref_slot, Some(1));
        assert_eq!(pb.params[3].value, Value::FloatTab(vec![1.0, 2.0]));
    }

    #[test]
    fn reference_tabs_take_block_slots_in_order() {
        // Path Constraint's block as animation.max stores it: an animated
        // percent (slot 0), an empty node parameter (slot 1), a float tab,
        // then a node tab whose one element is a flag byte only (slot 2);
        // a controller-driven float after it takes the next slot.
        let mut weights = 1u32.to_le_bytes().to_vec();
        weights.extend([0xc0, 0, 0, 0x48, 0x42]);
        let mut nodes = 2u32.to_le_bytes().to_vec();
        nodes.extend([0x40, 0x40]);
        let chunks = vec![
            header(5),
            rec(0, ty::PCNT_FRAC, 0x80, &[]),
            rec(1, ty::NODE, 0x40, &[]),
            rec(10, ty::FLOAT | TYPE_TAB, 0x80, &weights),
            rec(11, ty::NODE | TYPE_TAB, 0x00, &nodes),
            rec(12, ty::FLOAT, 0x00, &[]),
        ];
        let pb = param_block2(&chunks).unwrap();
        assert_eq!(pb.params[0].ref_slot, Some(0));
        assert_eq!(pb.params[1].ref_slot, Some(1));
        assert_eq!(pb.params[2].value, Value::FloatTab(vec![50.0]));
        assert_eq!(pb.params[3].value, Value::RefTab(vec![2, 3]));
        assert_eq!(pb.params[4].ref_slot, Some(4));
        // Node elements with 4-byte values stay inline (older layouts).
        let mut inline = 1u32.to_le_bytes().to_vec();
        inline.extend([0x40, 7, 0, 0, 0]);
        let pb = param_block2(&[header(1), rec(11, ty::NODE | TYPE_TAB, 0, &inline)]).unwrap();
        assert_eq!(pb.params[0].value, Value::IntTab(vec![7]));
    }

    #[test]
    fn controller_driven_tab_elements_take_block_slots() {
        // A list controller's weight block as MassFX's baking leaves it
        // (cube game.max, Max 2020): the weight tab's two elements are flag
        // bytes 0x80 without values, their Boolean Controllers the block's
        // references 0 and 1; the constant average switch owns no slot.
        let mut weights = 2u32.to_le_bytes().to_vec();
        weights.extend([0x80, 0x80]);
        let chunks = vec![
            header(2),
            rec(0, ty::FLOAT | TYPE_TAB, 0x00, &weights),
            rec(1, ty::BOOL, 0x40, &[0, 0, 0, 0]),
            rec(2, ty::FLOAT, 0x00, &[]),
        ];
        let pb = param_block2(&chunks).unwrap();
        assert_eq!(
            pb.params[0].value,
            Value::ControlledTab(vec![TabElement::Slot(0), TabElement::Slot(1)])
        );
        assert_eq!(pb.params[1].value, Value::Bool(false));
        assert_eq!(pb.params[2].ref_slot, Some(2));
        // Mixed: a constant (0x40 + value) between two driven elements (0xa0).
        let mut mixed = 3u32.to_le_bytes().to_vec();
        mixed.extend([0xa0, 0x40, 0, 0, 0, 0x3f, 0xa0]);
        let pb = param_block2(&[header(1), rec(0, ty::FLOAT | TYPE_TAB, 0, &mixed)]).unwrap();
        assert_eq!(
            pb.params[0].value,
            Value::ControlledTab(vec![
                TabElement::Slot(0),
                TabElement::Float(0.5),
                TabElement::Slot(1)
            ])
        );
        // A constant element cut short is an error naming it.
        let mut short = 2u32.to_le_bytes().to_vec();
        short.extend([0x80, 0x40, 0, 0]);
        let err = param_block2(&[header(1), rec(0, ty::FLOAT | TYPE_TAB, 0, &short)])
            .unwrap_err()
            .to_string();
        assert!(err.contains("element 1 of 2"), "{err}");
    }

    #[test]
    fn damaged_blocks_are_errors() {
        assert!(param_block2(&[]).is_err());
        let short = vec![header(1), Chunk::leaf(PB2_RECORD, vec![1, 2, 3])];
        assert!(param_block2(&short)
            .unwrap_err()
            .to_string()
            .contains("header expected"));
        let huge = vec![header(1), rec(0, ty::INT | TYPE_TAB, 0, &[0xff; 8])];
        assert!(param_block2(&huge).is_err());
        let badstr = vec![header(1), rec(0, ty::STRING, 0x40, &[0xff, 0, 0, 0, 65])];
        assert!(param_block2(&badstr)
            .unwrap_err()
            .to_string()
            .contains("exceeds"));
        // Length −2 without text (an asset-held filename) is no string; with
        // bytes after it, it stays an error.
        let asset = vec![
            header(1),
            rec(16, ty::FILENAME, 0x40, &[0xfe, 0xff, 0xff, 0xff]),
        ];
        assert_eq!(
            param_block2(&asset).unwrap().params[0].value,
            Value::String(String::new())
        );
        let asset_text = vec![
            header(1),
            rec(16, ty::FILENAME, 0x40, &[0xfe, 0xff, 0xff, 0xff, 65, 0]),
        ];
        assert!(param_block2(&asset_text)
            .unwrap_err()
            .to_string()
            .contains("exceeds"));
        let old = vec![Chunk::container(
            0x0002,
            vec![Chunk::leaf(0x0003, vec![0]), Chunk::leaf(0x0100, vec![])],
        )];
        assert!(param_block(&old).is_err());
    }
}
