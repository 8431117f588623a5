//! The Text shape (0x1993): its outlines come from the glyphs Max saved with
//! the object, so no font is needed to rebuild it.
//!
//! The object keeps a glyph cache: one 0x1030 container per distinct glyph,
//! holding 0x1000 its key (u32), 0x1010 its advance (f32) and 0x1020 a
//! BezierShape of its outline (0x1010 spline containers as a SplineShape
//! saves them) in units of a thousandth of the font's cell height (Arial's
//! x-height is 465 of them: 0.518 em of an em that is 1 / 1.117 of the cell).
//! Max 2020 and later save the text as UTF-16 (0x1015, u32 byte count, then
//! the string with its terminator), the font the same way (0x1005), and the
//! glyph sequence 0x1035 (u32 count, then per glyph the u32 glyph key and a
//! control byte: bit 1 a carriage return, bit 2 a line feed; the unused high
//! bits are 0xf8 in every file seen). Older files save font and text as
//! 8-bit strings (0x1000, 0x1010) and no sequence: Max then takes each
//! character code as the key (after `\U+XXXX` escapes) and clears bit 28 of
//! the cache's keys. The SDK sample's Save/Load give the other chunks: 0x1050
//! italic and 0x1060 underline (present or not), 0x2020 baseline-aligned
//! (present or not), 0x1080 the alignment (u32: left, centre, right,
//! justified), 0x2010 the text version (which only changes how Max builds a
//! glyph from a font: the cache makes it moot).
//!
//! References: 0 rendering block, 1 the text block (0 size, 1 kerning,
//! 2 leading), 2 the interpolation block. The layout is `text_layout.rs`.

use std::collections::HashMap;

use super::bezier_shape::splines_in;
use super::parametric::{block, interpolation};
use super::text_layout::{lay_out, Alignment, Glyph, Item, Settings};
use super::{BezierShape, ShapeError, Spline, Straightness};
use crate::chunk::Chunk;
use crate::eval::core::transform::SceneEval;

const GLYPH: u16 = 0x1030;
const GLYPH_KEY: u16 = 0x1000;
const GLYPH_ADVANCE: u16 = 0x1010;
const GLYPH_SHAPE: u16 = 0x1020;
const TEXT_UTF16: u16 = 0x1015;
const TEXT_8BIT: u16 = 0x1010;
const GLYPH_MAP: u16 = 0x1035;
const ITALIC: u16 = 0x1050;
const UNDERLINE: u16 = 0x1060;
const ALIGNMENT: u16 = 0x1080;
const BASELINE_ALIGNED: u16 = 0x2020;
const TEXT_BLOCK: u32 = 1;
/// Control bits of a glyph sequence entry.
const IS_CR: u8 = 1 << 1;
const IS_LF: u8 = 1 << 2;
/// The flag Max clears from cache keys when it rebuilds the sequence.
const OLD_KEY_FLAG: u32 = 0x1000_0000;
/// Characters of text read at most (damaged counts).
const MAX_CHARS: usize = 1 << 16;

fn u32_at(p: &[u8], at: usize) -> Option<u32> {
    let b = p.get(at..at + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn leaf(chunks: &[Chunk], id: u16) -> Option<&[u8]> {
    chunks
        .iter()
        .find(|c| c.id == id && !c.is_container())
        .and_then(|c| c.payload())
}

fn glyphs(object: &[Chunk], strip: bool) -> Result<HashMap<u32, Glyph>, ShapeError> {
    let mut out = HashMap::new();
    for (n, g) in object.iter().filter(|c| c.id == GLYPH).enumerate() {
        let what = format!("Text glyph {n}");
        let key = leaf(g.children(), GLYPH_KEY)
            .filter(|p| p.len() == 4)
            .and_then(|p| u32_at(p, 0))
            .ok_or_else(|| ShapeError::damaged(&what, "no 4-byte key (0x1000)"))?;
        let key = if strip { key & !OLD_KEY_FLAG } else { key };
        let advance = leaf(g.children(), GLYPH_ADVANCE)
            .filter(|p| p.len() == 4)
            .and_then(|p| u32_at(p, 0))
            .map(|w| f64::from(f32::from_bits(w)))
            .filter(|a| a.is_finite())
            .ok_or_else(|| ShapeError::damaged(&what, "no finite advance (0x1010)"))?;
        let shape = g
            .children()
            .iter()
            .find(|c| c.id == GLYPH_SHAPE && c.is_container())
            .ok_or_else(|| ShapeError::damaged(&what, "no outline (0x1020)"))?;
        let splines = splines_in(shape)?;
        // Max takes the first cached glyph of a key.
        out.entry(key).or_insert(Glyph { advance, splines });
    }
    Ok(out)
}

/// The string's units (UTF-16 or bytes), without the terminator.
fn text_units(object: &[Chunk]) -> Result<Vec<u32>, ShapeError> {
    let counted = |p: &[u8], what: &str| -> Result<Vec<u8>, ShapeError> {
        let n = u32_at(p, 0).ok_or_else(|| ShapeError::damaged(what, "no byte count"))? as usize;
        let body = p
            .get(4..4usize.saturating_add(n))
            .ok_or_else(|| ShapeError::damaged(what, format!("{n} bytes announced")))?;
        Ok(body.to_vec())
    };
    let mut units: Vec<u32> = if let Some(p) = leaf(object, TEXT_UTF16) {
        counted(p, "Text string (0x1015)")?
            .chunks_exact(2)
            .map(|u| u32::from(u16::from_le_bytes([u[0], u[1]])))
            .collect()
    } else {
        let p = leaf(object, TEXT_8BIT)
            .ok_or_else(|| ShapeError::damaged("Text", "no text string (0x1015 or 0x1010)"))?;
        counted(p, "Text string (0x1010)")?
            .iter()
            .map(|&b| u32::from(b))
            .collect()
    };
    if let Some(end) = units.iter().position(|&u| u == 0) {
        units.truncate(end);
    }
    Ok(units)
}

/// Max's `\U+XXXX` escape at `i`: the code and the units it takes.
fn escape(units: &[u32], i: usize) -> Option<(u32, usize)> {
    let is = |j: usize, c: &[u8]| {
        units
            .get(j)
            .is_some_and(|&u| c.iter().any(|&b| u == u32::from(b)))
    };
    if !(is(i, b"\\") && is(i + 1, b"Uu") && is(i + 2, b"+")) {
        return None;
    }
    let mut code = 0;
    for j in i + 3..i + 7 {
        let d = char::from_u32(*units.get(j)?)?;
        // Max's parser takes digits and A–F / a–f only.
        code = code * 16 + d.to_digit(16).filter(|_| d.is_ascii_hexdigit())?;
    }
    Some((code, 7))
}

/// The sequence Max lays out: the saved glyph sequence, or the characters
/// of the string where there is none.
fn items(object: &[Chunk]) -> Result<(Vec<Item>, bool), ShapeError> {
    if let Some(map) = leaf(object, GLYPH_MAP) {
        let n = u32_at(map, 0).unwrap_or(0) as usize;
        if n > MAX_CHARS || map.len() != 4 + 5 * n {
            return Err(ShapeError::damaged(
                "Text glyph sequence (0x1035)",
                format!("{n} entries in {} bytes", map.len()),
            ));
        }
        let mut out = Vec::with_capacity(n);
        for unit in 0..n {
            let at = 4 + 5 * unit;
            let key = u32_at(map, at).unwrap_or(0);
            let ctrl = map.get(at + 4).copied().unwrap_or(0);
            if ctrl & IS_CR != 0 {
                out.push(Item::LineBreak);
            } else if ctrl & IS_LF == 0 {
                out.push(Item::Glyph { key, unit });
            }
        }
        return Ok((out, false));
    }
    let units = text_units(object)?;
    if units.len() > MAX_CHARS {
        return Err(ShapeError::damaged(
            "Text",
            format!("{} characters", units.len()),
        ));
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < units.len() {
        let (code, used) = escape(&units, i).unwrap_or((units[i], 1));
        match code {
            13 => out.push(Item::LineBreak),
            10 => {}
            key => out.push(Item::Glyph { key, unit: i }),
        }
        i += used;
    }
    Ok((out, true))
}

/// Alignment and style flags as the object saved them.
fn style(object: &[Chunk]) -> Result<(Alignment, bool, bool, bool), ShapeError> {
    let word = leaf(object, ALIGNMENT)
        .filter(|p| p.len() == 4)
        .and_then(|p| u32_at(p, 0))
        .ok_or_else(|| ShapeError::NotEvaluated("Text without an alignment (0x1080)".into()))?;
    let alignment = Alignment::from_word(word).ok_or_else(|| {
        ShapeError::NotEvaluated(format!("Text alignment {word} (0x1080; Max knows 0 to 3)"))
    })?;
    let has = |id: u16| object.iter().any(|c| c.id == id);
    Ok((
        alignment,
        has(ITALIC),
        has(UNDERLINE),
        has(BASELINE_ALIGNED),
    ))
}

pub(super) fn build(eval: &SceneEval, obj: usize, t: i32) -> Result<BezierShape, ShapeError> {
    let p = block(eval, obj, TEXT_BLOCK, t)?;
    let splines = layout(
        eval.chunks(obj),
        p.float_or(0, 100.0),
        p.float_or(1, 0.0),
        p.float_or(2, 0.0),
    )?;
    let (steps, optimize) = interpolation(eval, obj, t)?;
    Ok(BezierShape {
        splines,
        steps,
        optimize,
        straightness: Straightness::Flatness,
    })
}

/// The text's splines in object space from the object's chunks.
fn layout(
    object: &[Chunk],
    size: f64,
    kerning: f64,
    leading: f64,
) -> Result<Vec<Spline>, ShapeError> {
    for (index, v) in [size, kerning, leading].into_iter().enumerate() {
        if !v.is_finite() {
            return Err(ShapeError::Param {
                index,
                why: format!("{v}"),
            });
        }
    }
    let (alignment, italic, underline, baseline_aligned) = style(object)?;
    let (items, from_string) = items(object)?;
    let cache = glyphs(object, from_string)?;
    let set = Settings {
        size,
        kerning,
        leading,
        alignment,
        italic,
        underline,
        baseline_aligned,
    };
    lay_out(&items, &cache, &set)
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
