//! The saved BezierShape of a SplineShape / Line (Editable Spline).
//!
//! The shape's data sits in a container 0x1010 — at the object's top level
//! (SplineShape) or inside its 0x2000 container (Line). Inside it, one 0x1010
//! container per spline: 0x2900 knot count (u32), 0x2904 (u32, 0 in every
//! corpus file, not used), 0x290a the knots, 0x290d closed (u32, 1 = closed).
//! Each knot is 52 bytes: knot type (i32), line type (i32), parameter (f32,
//! not used), knot point, in handle, out handle (three f32 each, absolute),
//! flags (u32; high word the material id). After the splines: 0x1050 steps
//! (i32; −1 adaptive), 0x1060 optimize (u32), then selections and display
//! settings, not used here. The handles are saved as Max computed them, so
//! corners and smooth knots need no recomputation (checked on Sword.max's
//! Line: corner handles a third of the way to corner neighbours).
//! A Master Point Controller with animated knots (its references) is refused.

use super::{
    BezierShape, Knot, KnotType, ShapeError, Spline, Steps, Straightness, MAX_KNOTS, MAX_STEPS,
};
use crate::chunk::Chunk;
use crate::eval::core::keys::Words;
use crate::eval::core::math::Vec3;
use crate::eval::core::transform::SceneEval;

const SHAPE_CONTAINER: u16 = 0x1010;
const SHAPE_WRAPPER: u16 = 0x2000;
const SPLINE: u16 = 0x1010;
const KNOT_COUNT: u16 = 0x2900;
const KNOTS: u16 = 0x290a;
const CLOSED: u16 = 0x290d;
const STEPS: u16 = 0x1050;
const OPTIMIZE: u16 = 0x1060;
const KNOT_BYTES: usize = 52;
/// Reference slot of a SplineShape's Master Point Controller.
const MASTER_SLOT: u32 = 1;

fn u32_of(c: &Chunk, what: &str) -> Result<u32, ShapeError> {
    match c.payload() {
        Some(p) if p.len() == 4 => Ok(Words(p).u32(0)),
        _ => Err(ShapeError::damaged(
            what,
            format!("chunk {:#06x} is not 4 bytes", c.id),
        )),
    }
}

/// The shape container of a SplineShape / Line object.
fn container(object: &[Chunk]) -> Option<&Chunk> {
    let top = |cs: &'_ [Chunk]| -> Option<usize> {
        cs.iter()
            .position(|c| c.id == SHAPE_CONTAINER && !c.children().is_empty())
    };
    if let Some(i) = top(object) {
        return object.get(i);
    }
    let wrapper = object
        .iter()
        .find(|c| c.id == SHAPE_WRAPPER && !c.children().is_empty())?;
    top(wrapper.children()).and_then(|i| wrapper.children().get(i))
}

fn knot(r: &[u8], what: &str) -> Result<Knot, ShapeError> {
    let w = Words(r);
    let v = |i: usize| Vec3(w.f(i), w.f(i + 1), w.f(i + 2));
    let kind = KnotType::from_i32(w.i32(0))
        .ok_or_else(|| ShapeError::damaged(what, format!("knot type {}", w.i32(0))))?;
    let line = match w.i32(1) {
        0 => false,
        1 => true,
        l => return Err(ShapeError::damaged(what, format!("line type {l}"))),
    };
    let k = Knot {
        kind,
        line,
        point: v(3),
        in_vec: v(6),
        out_vec: v(9),
        material: (w.u32(12) >> 16) as u16,
    };
    let finite = [k.point, k.in_vec, k.out_vec]
        .iter()
        .all(|p| p.0.is_finite() && p.1.is_finite() && p.2.is_finite());
    if !finite {
        return Err(ShapeError::damaged(what, "a knot is not finite"));
    }
    Ok(k)
}

fn spline(c: &Chunk, index: usize) -> Result<Spline, ShapeError> {
    let what = format!("spline {index}");
    let mut count = None;
    let mut data = None;
    let mut closed = false;
    for k in c.children() {
        match k.id {
            KNOT_COUNT => count = Some(u32_of(k, &what)? as usize),
            KNOTS => data = k.payload(),
            CLOSED => closed = u32_of(k, &what)? != 0,
            _ => {}
        }
    }
    let count = count.ok_or_else(|| ShapeError::damaged(&what, "no knot count (0x2900)"))?;
    let data = match (count, data) {
        (0, None) => &[][..],
        (_, Some(d)) => d,
        (_, None) => return Err(ShapeError::damaged(&what, "no knots (0x290a)")),
    };
    if count > MAX_KNOTS || count * KNOT_BYTES != data.len() {
        return Err(ShapeError::damaged(
            &what,
            format!("{count} knots in {} bytes", data.len()),
        ));
    }
    let knots = data
        .chunks_exact(KNOT_BYTES)
        .map(|r| knot(r, &what))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Spline { knots, closed })
}

/// The splines saved in BezierShape container `c` (its 0x1010 children).
pub(super) fn splines_in(c: &Chunk) -> Result<Vec<Spline>, ShapeError> {
    let mut splines = Vec::new();
    for k in c.children() {
        if k.id == SPLINE && !k.children().is_empty() {
            if splines.len() >= MAX_KNOTS {
                return Err(ShapeError::damaged("shape", "too many splines"));
            }
            splines.push(spline(k, splines.len())?);
        }
    }
    Ok(splines)
}

/// The splines and interpolation settings saved with a SplineShape / Line.
pub(super) fn decode(eval: &SceneEval, obj: usize) -> Result<BezierShape, ShapeError> {
    if let Some(master) = crate::eval::core::pblock::reference(&eval.graph, obj, MASTER_SLOT) {
        let animated = eval
            .graph
            .objects
            .get(master)
            .is_some_and(|m| m.references.iter().any(|r| r.target >= 0));
        if animated {
            return Err(ShapeError::NotEvaluated(
                "animated spline knots (Master Point Controller)".into(),
            ));
        }
    }
    decode_chunks(eval.chunks(obj))
}

pub(super) fn decode_chunks(object: &[Chunk]) -> Result<BezierShape, ShapeError> {
    let c = container(object)
        .ok_or_else(|| ShapeError::damaged("shape", "no BezierShape container (0x1010)"))?;
    let splines = splines_in(c)?;
    let mut steps = None;
    let mut optimize = None;
    for k in c.children() {
        match k.id {
            STEPS => steps = Some(u32_of(k, "steps")? as i32),
            OPTIMIZE => optimize = Some(u32_of(k, "optimize")? != 0),
            _ => {}
        }
    }
    let steps = match steps {
        Some(s) if s < 0 => Steps::Adaptive,
        Some(s) if i64::from(s) <= MAX_STEPS => Steps::Fixed(s as u32),
        Some(s) => return Err(ShapeError::damaged("shape", format!("{s} steps"))),
        None => return Err(ShapeError::damaged("shape", "no steps (0x1050)")),
    };
    Ok(BezierShape {
        splines,
        steps,
        optimize: optimize.unwrap_or(true),
        straightness: Straightness::Deviation,
    })
}

#[cfg(test)]
mod tests {
    //! The saved layout read back from chunks written here, and damaged
    //! variants (every byte count cut or grown, bad types) giving errors,
    //! never a panic.
    use super::*;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn knot(ktype: u32, x: f32, y: f32) -> Vec<u8> {
        let f = |v: f32| v.to_bits();
        words(&[
            ktype,
            0,
            0,
            f(x),
            f(y),
            0,
            f(x - 1.0),
            f(y),
            0,
            f(x + 1.0),
            f(y),
            0,
            3 << 16,
        ])
    }

    fn object(knots: Vec<u8>, count: u32, steps: u32) -> Vec<Chunk> {
        let spline = Chunk::container(
            SPLINE,
            vec![
                Chunk::leaf(KNOT_COUNT, words(&[count])),
                Chunk::leaf(0x2904, words(&[0])),
                Chunk::leaf(KNOTS, knots),
                Chunk::leaf(CLOSED, words(&[1])),
            ],
        );
        let shape = Chunk::container(
            SHAPE_CONTAINER,
            vec![
                spline,
                Chunk::leaf(STEPS, words(&[steps])),
                Chunk::leaf(OPTIMIZE, words(&[0])),
            ],
        );
        vec![Chunk::container(SHAPE_WRAPPER, vec![shape])]
    }

    #[test]
    fn saved_knots_read_back() {
        let mut k = knot(1, 0.0, 0.0);
        k.extend(knot(2, 4.0, 0.0));
        k.extend(knot(0, 4.0, 4.0));
        let s = decode_chunks(&object(k, 3, 5)).expect("shape");
        assert_eq!(s.steps, Steps::Fixed(5));
        assert!(!s.optimize);
        let sp = &s.splines[0];
        assert!(sp.closed);
        assert_eq!(sp.knots.len(), 3);
        assert_eq!(sp.knots[1].kind, KnotType::Bezier);
        assert_eq!(sp.knots[1].point, Vec3(4.0, 0.0, 0.0));
        assert_eq!(sp.knots[1].in_vec, Vec3(3.0, 0.0, 0.0));
        assert_eq!(sp.knots[1].out_vec, Vec3(5.0, 0.0, 0.0));
        assert_eq!(sp.knots[2].material, 3);
        assert_eq!(
            decode_chunks(&object(knot(1, 0.0, 0.0), 1, u32::MAX)).map(|s| s.steps),
            Ok(Steps::Adaptive)
        );
    }

    #[test]
    fn damaged_knots_are_errors() {
        let good = knot(1, 0.0, 0.0);
        for cut in 0..good.len() {
            assert!(decode_chunks(&object(good[..cut].to_vec(), 1, 6)).is_err());
        }
        let mut longer = good.clone();
        longer.push(0);
        assert!(decode_chunks(&object(longer, 1, 6)).is_err());
        assert!(decode_chunks(&object(good.clone(), 2, 6)).is_err());
        assert!(decode_chunks(&object(good.clone(), u32::MAX, 6)).is_err());
        assert!(decode_chunks(&object(knot(9, 0.0, 0.0), 1, 6)).is_err());
        assert!(decode_chunks(&object(knot(1, f32::NAN, 0.0), 1, 6)).is_err());
        assert!(decode_chunks(&object(good, 1, 1000)).is_err());
        assert!(decode_chunks(&[]).is_err());
    }
}
