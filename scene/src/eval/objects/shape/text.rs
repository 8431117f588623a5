//! The Text shape (0x1993): its outlines come from the glyphs Max saved with
//! the object, so no font is needed to rebuild it.
//!
//! The object keeps a glyph cache: one 0x1030 container per distinct glyph,
//! holding 0x1000 its key (u32), 0x1010 its advance (f32) and 0x1020 a
//! BezierShape of its outline (0x1010 spline containers as a SplineShape
//! saves them) in units of a thousandth of the font's cell height (Arial's
//! x-height is 465 of them: 0.518 em of an em that is 1 / 1.117 of the cell).
//! Max 2020 and later save the text as UTF-16 (0x1015, u32 byte count, then
//! the string with its terminator), the font the same way (0x1005), and a
//! map 0x1035 from each UTF-16 unit of the text to a glyph index (u32 count,
//! then per unit the u32 glyph key and one byte, 0xf8 in every file seen).
//! Older files save font and text as 8-bit strings (0x1000, 0x1010) and key
//! the cache by character code.
//!
//! Layout, measured against the FBX 3ds Max exported of UnityKursovoi's
//! Installation (14 texts of one line, sizes 0.5 and 1, Arial Bold, Cyrillic,
//! digits, ▲ and Ω; docs/evaluation.md "Text"): glyph outlines scaled by
//! size / 1000, each placed at the sum of the advances before it, the line
//! then moved so the x middle of its control points is the pivot; the
//! baseline stays on y = 0. Multi-line text, a kerning other than 0 and the
//! style chunks with values other than those files' (0x1080 = 0, 0x2010 = 2)
//! are refused by name: their effect is not pinned by any reference.
//!
//! References: 0 rendering block, 1 the text block (0 size, 1 kerning,
//! 2 leading), 2 the interpolation block.

use std::collections::HashMap;

use super::bezier_shape::splines_in;
use super::parametric::{block, interpolation};
use super::{BezierShape, ShapeError, Spline};
use crate::chunk::Chunk;
use crate::eval::core::math::Vec3;
use crate::eval::core::transform::SceneEval;

const GLYPH: u16 = 0x1030;
const GLYPH_KEY: u16 = 0x1000;
const GLYPH_ADVANCE: u16 = 0x1010;
const GLYPH_SHAPE: u16 = 0x1020;
const TEXT_UTF16: u16 = 0x1015;
const TEXT_8BIT: u16 = 0x1010;
const GLYPH_MAP: u16 = 0x1035;
const STYLE: u16 = 0x1080;
const LAYOUT: u16 = 0x2010;
const TEXT_BLOCK: u32 = 1;
/// Glyph outline units per unit of text size.
const UNITS_PER_SIZE: f64 = 1000.0;
/// Characters of text read at most (damaged counts).
const MAX_CHARS: usize = 1 << 16;

/// One cached glyph: its advance and outline, in glyph units.
struct Glyph {
    advance: f64,
    splines: Vec<Spline>,
}

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

fn glyphs(object: &[Chunk]) -> Result<HashMap<u32, Glyph>, ShapeError> {
    let mut out = HashMap::new();
    for (n, g) in object.iter().filter(|c| c.id == GLYPH).enumerate() {
        let what = format!("Text glyph {n}");
        let key = leaf(g.children(), GLYPH_KEY)
            .filter(|p| p.len() == 4)
            .and_then(|p| u32_at(p, 0))
            .ok_or_else(|| ShapeError::damaged(&what, "no 4-byte key (0x1000)"))?;
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
        if out.insert(key, Glyph { advance, splines }).is_some() {
            return Err(ShapeError::damaged(&what, format!("key {key} saved twice")));
        }
    }
    Ok(out)
}

/// Text units, glyph keys and map flags, one each per unit.
type TextUnits = (Vec<u32>, Vec<u32>, Vec<u8>);

/// The text as units (UTF-16 or bytes), the glyph key of each and its map
/// flag byte (0xf8 for every character of the one-line texts measured; a
/// line break in charger.max has 0xfb; Max 5 files have no map: 0xf8).
fn text_and_keys(object: &[Chunk]) -> Result<TextUnits, ShapeError> {
    let counted = |p: &[u8], what: &str| -> Result<Vec<u8>, ShapeError> {
        let n = u32_at(p, 0).ok_or_else(|| ShapeError::damaged(what, "no byte count"))? as usize;
        let body = p
            .get(4..4usize.saturating_add(n))
            .ok_or_else(|| ShapeError::damaged(what, format!("{n} bytes announced")))?;
        Ok(body.to_vec())
    };
    if let Some(p) = leaf(object, TEXT_UTF16) {
        let body = counted(p, "Text string (0x1015)")?;
        let mut units: Vec<u32> = body
            .chunks_exact(2)
            .map(|u| u32::from(u16::from_le_bytes([u[0], u[1]])))
            .collect();
        while units.last() == Some(&0) {
            units.pop();
        }
        let map = leaf(object, GLYPH_MAP)
            .ok_or_else(|| ShapeError::damaged("Text", "no glyph map (0x1035)"))?;
        let n = u32_at(map, 0).unwrap_or(0) as usize;
        if n > MAX_CHARS || map.len() != 4 + 5 * n {
            return Err(ShapeError::damaged(
                "Text glyph map (0x1035)",
                format!("{n} entries in {} bytes", map.len()),
            ));
        }
        if n != units.len() {
            return Err(ShapeError::damaged(
                "Text glyph map (0x1035)",
                format!("{n} entries for {} characters", units.len()),
            ));
        }
        let mut keys = Vec::with_capacity(n);
        let mut flags = Vec::with_capacity(n);
        for i in 0..n {
            let at = 4 + 5 * i;
            flags.push(map.get(at + 4).copied().unwrap_or(0));
            keys.push(u32_at(map, at).unwrap_or(0));
        }
        return Ok((units, keys, flags));
    }
    let p = leaf(object, TEXT_8BIT)
        .ok_or_else(|| ShapeError::damaged("Text", "no text string (0x1015 or 0x1010)"))?;
    let mut body = counted(p, "Text string (0x1010)")?;
    while body.last() == Some(&0) {
        body.pop();
    }
    let units: Vec<u32> = body.iter().map(|&b| u32::from(b)).collect();
    let flags = vec![0xf8; units.len()];
    Ok((units.clone(), units, flags))
}

/// The style chunks as every measured file saved them, or a refusal naming them.
fn check_style(object: &[Chunk]) -> Result<(), ShapeError> {
    let word = |id: u16| {
        leaf(object, id)
            .filter(|p| p.len() == 4)
            .and_then(|p| u32_at(p, 0))
    };
    let style = word(STYLE);
    let layout = word(LAYOUT);
    if style != Some(0) || layout != Some(2) {
        let show = |w: Option<u32>| w.map_or_else(|| "absent".to_string(), |v| v.to_string());
        return Err(ShapeError::NotEvaluated(format!(
            "Text with style chunks 0x1080 = {}, 0x2010 = {} (only 0 and 2 are measured)",
            show(style),
            show(layout)
        )));
    }
    Ok(())
}

pub(super) fn build(eval: &SceneEval, obj: usize, t: i32) -> Result<BezierShape, ShapeError> {
    let p = block(eval, obj, TEXT_BLOCK, t)?;
    let splines = layout(eval.chunks(obj), p.float_or(0, 100.0), p.float_or(1, 0.0))?;
    let (steps, optimize) = interpolation(eval, obj, t)?;
    Ok(BezierShape {
        splines,
        steps,
        optimize,
    })
}

/// The text's splines in object space from the object's chunks.
fn layout(object: &[Chunk], size: f64, kerning: f64) -> Result<Vec<Spline>, ShapeError> {
    check_style(object)?;
    if !size.is_finite() {
        return Err(ShapeError::Param {
            index: 0,
            why: format!("size {size}"),
        });
    }
    if kerning != 0.0 {
        return Err(ShapeError::NotEvaluated(format!(
            "Text with kerning {kerning} (only 0 is measured)"
        )));
    }
    let (units, keys, flags) = text_and_keys(object)?;
    let lines = 1 + units
        .iter()
        .enumerate()
        .filter(|&(i, &u)| u == 0x0a || (u == 0x0d && units.get(i + 1) != Some(&0x0a)))
        .count();
    if lines > 1 {
        return Err(ShapeError::NotEvaluated(format!(
            "Text of {lines} lines (line spacing and alignment are not measured)"
        )));
    }
    if let Some((i, f)) = flags.iter().enumerate().find(|(_, &f)| f != 0xf8) {
        return Err(ShapeError::NotEvaluated(format!(
            "Text glyph map entry {i} with flag {f:#04x} (only 0xf8 is measured)"
        )));
    }
    let cache = glyphs(object)?;
    let scale = size / UNITS_PER_SIZE;
    let mut splines = Vec::new();
    let mut pen = 0.0;
    for (i, key) in keys.iter().enumerate() {
        let g = cache.get(key).ok_or_else(|| {
            ShapeError::damaged(
                "Text",
                format!(
                    "character {i} (U+{:04X}): glyph {key} is not saved",
                    units[i]
                ),
            )
        })?;
        let at = |v: Vec3| Vec3((v.0 + pen) * scale, v.1 * scale, v.2 * scale);
        for s in &g.splines {
            let mut s = s.clone();
            for k in &mut s.knots {
                k.point = at(k.point);
                k.in_vec = at(k.in_vec);
                k.out_vec = at(k.out_vec);
            }
            splines.push(s);
        }
        pen += g.advance;
    }
    let xs = splines
        .iter()
        .flat_map(|s| s.knots.iter())
        .flat_map(|k| [k.point.0, k.in_vec.0, k.out_vec.0]);
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    if lo.is_finite() && hi.is_finite() {
        let mid = (lo + hi) / 2.0;
        for k in splines.iter_mut().flat_map(|s| s.knots.iter_mut()) {
            k.point.0 -= mid;
            k.in_vec.0 -= mid;
            k.out_vec.0 -= mid;
        }
    }
    Ok(splines)
}

#[cfg(test)]
mod tests {
    //! UnityKursovoi's "Installation (older).max", Text001 ("посл.", Arial
    //! Bold, size 1): the glyphs of п and "." as the file saves them, о, с, л
    //! with their saved advances only (their outlines lie inside the line's
    //! extent), checked against the vertices of the FBX 3ds Max exported of
    //! the scene (Device_Installation.fbx, node Text001, in the object's
    //! space; printed to 6 digits there).
    use super::*;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A corner-knot outline: points and their saved handles.
    fn outline(knots: &[[f32; 6]]) -> Chunk {
        let mut data = Vec::new();
        for k in knots {
            let f = |v: f32| v.to_bits();
            data.extend(words(&[
                1,
                0,
                0,
                f(k[0]),
                f(k[1]),
                0,
                f(k[2]),
                f(k[3]),
                0,
                f(k[4]),
                f(k[5]),
                0,
                0,
            ]));
        }
        let spline = Chunk::container(
            0x1010,
            vec![
                Chunk::leaf(0x2900, words(&[knots.len() as u32])),
                Chunk::leaf(0x2904, words(&[0])),
                Chunk::leaf(0x290a, data),
                Chunk::leaf(0x290d, words(&[1])),
            ],
        );
        Chunk::container(GLYPH_SHAPE, vec![spline])
    }

    fn glyph(key: u32, advance: f32, knots: &[[f32; 6]]) -> Chunk {
        let shape = if knots.is_empty() {
            Chunk::container(GLYPH_SHAPE, vec![Chunk::leaf(0x1050, words(&[6]))])
        } else {
            outline(knots)
        };
        Chunk::container(
            GLYPH,
            vec![
                Chunk::leaf(GLYPH_KEY, words(&[key])),
                Chunk::leaf(GLYPH_ADVANCE, advance.to_le_bytes().to_vec()),
                shape,
            ],
        )
    }

    fn utf16(text: &str) -> Vec<u8> {
        let mut b: Vec<u8> = text.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
        b.extend([0, 0]);
        let mut out = words(&[b.len() as u32]);
        out.extend(b);
        out
    }

    fn posl(text: &str, keys: &[u32]) -> Vec<Chunk> {
        let pe = [
            [59.0, 465.0, 59.0, 310.0, 196.66667, 465.0],
            [472.0, 465.0, 334.33334, 465.0, 472.0, 310.0],
            [472.0, 0.0, 472.0, 155.0, 431.0, 0.0],
            [349.0, 0.0, 390.0, 0.0, 349.0, 122.0],
            [349.0, 366.0, 349.0, 244.0, 293.33334, 366.0],
            [182.0, 366.0, 237.66667, 366.0, 182.0, 244.0],
            [182.0, 0.0, 182.0, 122.0, 141.0, 0.0],
            [59.0, 0.0, 100.0, 0.0, 59.0, 155.0],
        ];
        let dot = [
            [64.0, 0.0, 105.0, 0.0, 64.0, 41.0],
            [64.0, 123.0, 64.0, 82.0, 105.0, 123.0],
            [187.0, 123.0, 146.0, 123.0, 187.0, 82.0],
            [187.0, 0.0, 187.0, 41.0, 146.0, 0.0],
        ];
        let mut map = words(&[keys.len() as u32]);
        for k in keys {
            map.extend(k.to_le_bytes());
            map.push(0xf8);
        }
        vec![
            Chunk::leaf(0x1005, utf16("Arial Bold")),
            Chunk::leaf(TEXT_UTF16, utf16(text)),
            glyph(617, 541.0, &pe),
            glyph(616, 547.0, &[]),
            glyph(619, 498.0, &[]),
            glyph(613, 569.0, &[]),
            glyph(17, 249.0, &dot),
            Chunk::leaf(GLYPH_MAP, map),
            Chunk::leaf(STYLE, words(&[0])),
            Chunk::leaf(LAYOUT, words(&[2])),
        ]
    }

    const KEYS: [u32; 5] = [617, 616, 619, 613, 17];

    #[test]
    fn glyphs_are_laid_out_as_max_exported_them() {
        let splines = layout(&posl("посл.", &KEYS), 1.0, 0.0).expect("laid out");
        assert_eq!(splines.len(), 2);
        // FBX Text001's corner vertices of п and ".", object space.
        let fbx_pe = [
            [-1.141498, 0.465],
            [-0.728498, 0.465],
            [-0.728498, 0.0],
            [-0.851498, 0.0],
            [-0.851498, 0.366],
            [-1.018498, 0.366],
            [-1.018498, 0.0],
            [-1.141498, 0.0],
        ];
        let fbx_dot = [
            [1.018502, 0.0],
            [1.018502, 0.123],
            [1.141502, 0.123],
            [1.141502, 0.0],
        ];
        for (s, want) in splines.iter().zip([&fbx_pe[..], &fbx_dot[..]]) {
            assert_eq!(s.knots.len(), want.len());
            for (k, w) in s.knots.iter().zip(want) {
                assert!(
                    (k.point.0 - w[0]).abs() < 1e-5 && (k.point.1 - w[1]).abs() < 1e-5,
                    "{:?} against the FBX's {w:?}",
                    k.point
                );
                assert_eq!(k.point.2, 0.0);
            }
        }
        // Size scales about the pivot.
        let half = layout(&posl("посл.", &KEYS), 0.5, 0.0).expect("laid out");
        let (a, b) = (splines[0].knots[0].point, half[0].knots[0].point);
        assert!((a.0 / 2.0 - b.0).abs() < 1e-12 && (a.1 / 2.0 - b.1).abs() < 1e-12);
    }

    #[test]
    fn unmeasured_settings_are_refused_by_name() {
        let chunks = posl("посл.", &KEYS);
        let text = |r: Result<Vec<Spline>, ShapeError>| match r {
            Err(ShapeError::NotEvaluated(t)) => t,
            other => panic!("{other:?}"),
        };
        assert!(text(layout(&chunks, 1.0, 0.5)).contains("kerning 0.5"));
        let two = posl("по\r\nс", &[617, 616, 17, 17, 619]);
        assert!(text(layout(&two, 1.0, 0.0)).contains("2 lines"));
        let mut italic = chunks.clone();
        italic.retain(|c| c.id != STYLE);
        italic.push(Chunk::leaf(STYLE, words(&[1])));
        assert!(text(layout(&italic, 1.0, 0.0)).contains("0x1080 = 1"));
        let mut flagged = chunks.clone();
        for c in &mut flagged {
            if c.id == GLYPH_MAP {
                let mut p = c.payload().expect("map").to_vec();
                p[4 + 5 * 2 + 4] = 0xfb;
                *c = Chunk::leaf(GLYPH_MAP, p);
            }
        }
        assert!(text(layout(&flagged, 1.0, 0.0)).contains("entry 2 with flag 0xfb"));
    }

    #[test]
    fn damaged_text_is_an_error_not_a_panic() {
        // A glyph the map names but the cache lacks.
        let missing = posl("посл.", &[617, 616, 619, 613, 99]);
        assert!(matches!(
            layout(&missing, 1.0, 0.0),
            Err(ShapeError::Damaged { .. })
        ));
        // A map for fewer characters than the text.
        let short = posl("посл.", &KEYS[..4]);
        assert!(layout(&short, 1.0, 0.0).is_err());
        // Every leaf cut short, one at a time.
        let whole = posl("посл.", &KEYS);
        for i in 0..whole.len() {
            if let Some(p) = whole[i].payload() {
                for cut in 0..p.len() {
                    let mut c = whole.clone();
                    c[i] = Chunk::leaf(whole[i].id, p[..cut].to_vec());
                    let _ = layout(&c, 1.0, 0.0);
                }
            }
        }
    }
}
