//! Laying out a Text shape's glyphs: lines, leading, kerning, alignment,
//! italic, underline and the final centring.
//!
//! The rules are those of the Text object's public 3ds Max SDK sample
//! (`samples/objects/text.cpp`, `TextObject::ConstructTextShape` and
//! `TextLine::Underline`; facts only, the code here is ours):
//! - the outlines are in thousandths of the size: scale = size / 1000;
//! - a glyph is sheared for italic (x += 0.3 y, in glyph units), scaled, then
//!   moved to the pen (x, line y); the pen then advances by the glyph's
//!   advance times the scale plus the kerning;
//! - a line break starts a new line at pen x 0, y lowered by size + leading;
//!   a line feed is skipped;
//! - each line's width is the pen x where it ended (the last line's only if
//!   that is not 0); the widest line is the first of the largest width, from
//!   −100 up;
//! - justified: every other line of two or more glyphs moves its k-th glyph
//!   (from 0) by k × (widest − width) / (glyphs − 1);
//! - underline: per line a closed four-corner spline from x 0 to the line's
//!   width (the widest when justified), between 50 and 100 thousandths of
//!   the size below the line's baseline, its handles a third of the way
//!   along each side, added after the line's glyphs;
//! - alignment moves each line by 0 (left, justified), (widest − width) / 2
//!   (centre) or widest − width (right);
//! - the whole shape is moved by minus the centre of its bounding box in x,
//!   and in y too unless the text is baseline-aligned.
//!
//! Measured here (not in the sample): the bounding box is that of the
//! control points (knots and handles), which the single-line texts of
//! UnityKursovoi's Installation FBX pin (docs/evaluation.md, "Text").

use std::collections::HashMap;

use super::{Knot, KnotType, ShapeError, Spline};
use crate::eval::core::math::Vec3;

/// Glyph outline units per unit of text size.
const UNITS_PER_SIZE: f64 = 1000.0;
/// Italic shear: glyph x gains this much of glyph y.
const ITALIC_SHEAR: f64 = 0.3;
/// The underline's top and bottom below the baseline, in glyph units.
const UNDERLINE_TOP: f64 = 50.0;
const UNDERLINE_BOTTOM: f64 = 100.0;
/// Where the widest-line search starts.
const NO_WIDTH: f64 = -100.0;

/// One cached glyph: its advance and outline, in glyph units.
pub(super) struct Glyph {
    pub advance: f64,
    pub splines: Vec<Spline>,
}

/// One entry of the text as Max lays it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Item {
    /// A glyph, by its key in the cache; `unit` names it in refusals.
    Glyph { key: u32, unit: usize },
    /// A carriage return: a new line.
    LineBreak,
}

/// Max's TEXTOBJ_LEFT … TEXTOBJ_JUSTIFIED (the saved alignment word 0…3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Alignment {
    Left,
    Center,
    Right,
    Justified,
}

impl Alignment {
    pub(super) fn from_word(w: u32) -> Option<Alignment> {
        Some(match w {
            0 => Alignment::Left,
            1 => Alignment::Center,
            2 => Alignment::Right,
            3 => Alignment::Justified,
            _ => return None,
        })
    }
}

/// Everything besides the glyphs that decides the layout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Settings {
    pub size: f64,
    pub kerning: f64,
    pub leading: f64,
    pub alignment: Alignment,
    pub italic: bool,
    pub underline: bool,
    pub baseline_aligned: bool,
}

/// One line being built: its splines, the spline count after each glyph,
/// its width and baseline.
#[derive(Default)]
struct Line {
    splines: Vec<Spline>,
    ends: Vec<usize>,
    width: f64,
    y: f64,
}

fn map_knots(s: &mut Spline, f: impl Fn(Vec3) -> Vec3) {
    for k in &mut s.knots {
        k.point = f(k.point);
        k.in_vec = f(k.in_vec);
        k.out_vec = f(k.out_vec);
    }
}

fn shift_x(splines: &mut [Spline], dx: f64) {
    if dx != 0.0 {
        for s in splines {
            map_knots(s, |v| Vec3(v.0 + dx, v.1, v.2));
        }
    }
}

/// The underline of a line `width` long whose baseline is at `y`.
fn underline(width: f64, y: f64, scale: f64) -> Spline {
    let top = y - UNDERLINE_TOP * scale;
    let bottom = y - UNDERLINE_BOTTOM * scale;
    let mut s = Spline {
        knots: vec![
            Knot::corner(Vec3(0.0, top, 0.0)),
            Knot::corner(Vec3(0.0, bottom, 0.0)),
            Knot::corner(Vec3(width, bottom, 0.0)),
            Knot::corner(Vec3(width, top, 0.0)),
        ],
        closed: true,
    };
    s.compute_corners();
    for k in &mut s.knots {
        k.kind = KnotType::BezierCorner;
    }
    s
}

/// The text's splines in object space.
pub(super) fn lay_out(
    items: &[Item],
    cache: &HashMap<u32, Glyph>,
    set: &Settings,
) -> Result<Vec<Spline>, ShapeError> {
    let scale = set.size / UNITS_PER_SIZE;
    let shear = if set.italic { ITALIC_SHEAR } else { 0.0 };
    let mut lines = vec![Line::default()];
    let (mut x, mut y) = (0.0f64, 0.0f64);
    let (mut widest, mut widest_line) = (NO_WIDTH, 0usize);
    for item in items {
        let line = lines.len() - 1;
        match *item {
            Item::LineBreak => {
                lines[line].width = x;
                lines[line].y = y;
                if x > widest {
                    widest = x;
                    widest_line = line;
                }
                x = 0.0;
                y -= set.size + set.leading;
                lines.push(Line::default());
            }
            Item::Glyph { key, unit } => {
                let g = cache.get(&key).ok_or_else(|| {
                    ShapeError::NotEvaluated(format!(
                        "Text character {unit}: glyph {key}, not saved with the object \
                         (Max would build it from the font)"
                    ))
                })?;
                let l = &mut lines[line];
                for s in &g.splines {
                    let mut s = s.clone();
                    map_knots(&mut s, |v| {
                        Vec3((v.0 + shear * v.1) * scale + x, v.1 * scale + y, v.2)
                    });
                    l.splines.push(s);
                }
                l.ends.push(l.splines.len());
                x += g.advance * scale + set.kerning;
            }
        }
    }
    if x != 0.0 {
        let line = lines.len() - 1;
        lines[line].width = x;
        lines[line].y = y;
        if x > widest {
            widest = x;
            widest_line = line;
        }
    }
    if set.alignment == Alignment::Justified {
        for (n, l) in lines.iter_mut().enumerate() {
            if n == widest_line || l.ends.len() < 2 {
                continue;
            }
            let step = (widest - l.width) / (l.ends.len() - 1) as f64;
            for k in 1..l.ends.len() {
                let (from, to) = (l.ends[k - 1], l.ends[k]);
                if let Some(glyph) = l.splines.get_mut(from..to) {
                    shift_x(glyph, step * k as f64);
                }
            }
        }
    }
    if set.underline {
        for l in &mut lines {
            let w = if set.alignment == Alignment::Justified {
                widest
            } else {
                l.width
            };
            l.splines.push(underline(w, l.y, scale));
        }
    }
    let mut out = Vec::new();
    for mut l in lines {
        let dx = match set.alignment {
            Alignment::Left | Alignment::Justified => 0.0,
            Alignment::Center => (widest - l.width) / 2.0,
            Alignment::Right => widest - l.width,
        };
        shift_x(&mut l.splines, dx);
        out.append(&mut l.splines);
    }
    centre(&mut out, set.baseline_aligned);
    Ok(out)
}

/// Moves the shape by minus the middle of its control points' box (x, and y
/// unless baseline-aligned).
fn centre(splines: &mut [Spline], baseline_aligned: bool) {
    let pts = || {
        splines
            .iter()
            .flat_map(|s| s.knots.iter())
            .flat_map(|k| [k.point, k.in_vec, k.out_vec])
    };
    let range = |f: fn(&Vec3) -> f64| {
        pts()
            .map(|v| f(&v))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| {
                (lo.min(c), hi.max(c))
            })
    };
    let (x0, x1) = range(|v| v.0);
    let (y0, y1) = range(|v| v.1);
    if !(x0.is_finite() && x1.is_finite() && y0.is_finite() && y1.is_finite()) {
        return;
    }
    let dx = (x0 + x1) / 2.0;
    let dy = if baseline_aligned {
        0.0
    } else {
        (y0 + y1) / 2.0
    };
    for s in splines {
        map_knots(s, |v| Vec3(v.0 - dx, v.1 - dy, v.2));
    }
}
