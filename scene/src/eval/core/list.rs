//! List controllers (Float, Point3, Position, Rotation and Scale List): a
//! stack of sub-controllers whose values combine, as Max builds them for
//! "Freeze Transform" (a frozen value under an animated zero one) and for
//! every constraint added from the Animation menu (the constraint under the
//! old keyframer).
//!
//! Stored (Max 6 on, read off the corpus's animation.max): chunk 0x1010 the
//! entry count, 0x1020 the active entry (an editing choice, not evaluated),
//! one 0x1040 name per entry; reference `i < count` the entries, then two
//! empty slots, then at `count + 2` a ParamBlock2 whose parameter 0 is the
//! weight table (1.0 = 100 %) and parameter 1 the "average" switch.
//!
//! Values combine as the entries apply themselves one after the other in
//! relative mode (the SDK's `CTRL_RELATIVE`): positions, Point3 and floats add
//! up, each scaled by its weight (divided by the weights' sum when averaging);
//! rotations and scales pre-multiply, so entry *i + 1* acts inside the frame
//! entry *i* leaves (the animated rotation of a frozen node turns about its
//! frozen axes). A weighted rotation or scale blends towards identity by a rule
//! no file here shows, so such lists are refused by name rather than guessed.

use crate::chunk::Chunk;
use crate::eval::core::controller::Track;
use crate::eval::core::controller::{class, Controller};
use crate::eval::core::keys::Words;
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::pblock::{self, TabElement, Value};
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use crate::graph::SceneObject;
use serde::Serialize;

/// More entries than any list an artist builds: a larger count is damage.
const MAX_ENTRIES: u32 = 1024;
/// Lists inside lists deeper than this (or in a loop, which only damage
/// makes) are refused: evaluation recurses once per level.
const MAX_NESTING: usize = 16;

/// What a list combines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ListKind {
    Float,
    Point3,
    Position,
    Rotation,
    Scale,
}

impl ListKind {
    pub fn of(id: crate::typed::ClassId) -> Option<ListKind> {
        Some(match id {
            class::FLOAT_LIST => ListKind::Float,
            class::POINT3_LIST => ListKind::Point3,
            class::POSITION_LIST => ListKind::Position,
            class::ROTATION_LIST => ListKind::Rotation,
            class::SCALE_LIST => ListKind::Scale,
            _ => return None,
        })
    }
}

/// The entries of a list controller object, with every weight 100 % until
/// [`resolve`] reads the weight block.
pub(crate) fn decode(
    o: &SceneObject,
    chunks: &[Chunk],
    kind: ListKind,
    name: String,
) -> Result<Controller, EvalError> {
    let count = count(chunks)?;
    let slot = |s: u32| {
        o.references
            .iter()
            .find(|r| r.slot == s)
            .and_then(|r| usize::try_from(r.target).ok())
    };
    Ok(Controller::List {
        class: name,
        kind,
        subs: (0..count).map(slot).collect(),
        weights: vec![1.0; count as usize],
        average: false,
        weight_block: slot(count + 2),
    })
}

fn count(chunks: &[Chunk]) -> Result<u32, EvalError> {
    let count = match chunks
        .iter()
        .find(|c| c.id == 0x1010)
        .and_then(Chunk::payload)
    {
        Some(p) if p.len() == 4 => Words(p).u32(0),
        Some(p) => {
            return Err(EvalError::malformed(
                "list count (0x1010)",
                format!("{} bytes, expected 4", p.len()),
            ))
        }
        // An empty list stores no count.
        None => 0,
    };
    if count > MAX_ENTRIES {
        return Err(EvalError::limit("list controller entries", MAX_ENTRIES));
    }
    Ok(count)
}

/// Whether the lists reachable from list `idx` through list entries end
/// within [`MAX_NESTING`] levels without coming back: walked on the graph
/// alone, since decoding an entry here would re-enter the controller cache.
fn nesting_ends(eval: &SceneEval, idx: usize) -> bool {
    let is_list = |j: usize| {
        eval.graph
            .class(j)
            .is_some_and(|c| ListKind::of(c.class_id).is_some())
    };
    let mut level = vec![idx];
    for _ in 0..MAX_NESTING {
        let mut next = Vec::new();
        for &j in &level {
            let Ok(n) = count(eval.chunks(j)) else {
                continue;
            };
            for s in 0..n {
                if let Some(k) = pblock::reference(&eval.graph, j, s).filter(|&k| is_list(k)) {
                    if k == idx {
                        return false;
                    }
                    next.push(k);
                }
            }
        }
        if next.is_empty() {
            return true;
        }
        next.sort_unstable();
        next.dedup();
        level = next;
    }
    false
}

/// Reads a list's weights and average switch from its parameter block, and
/// turns what is not evaluated into [`Controller::Unsupported`] naming why.
pub(crate) fn resolve(
    eval: &SceneEval,
    idx: usize,
    c: Controller,
) -> Result<Controller, EvalError> {
    let Controller::List {
        class,
        kind,
        subs,
        mut weights,
        mut average,
        weight_block,
    } = c
    else {
        return Ok(c);
    };
    let refuse = |why: &str| {
        Ok(Controller::Unsupported {
            class: format!("{class} ({why})"),
        })
    };
    if !nesting_ends(eval, idx) {
        return refuse("lists nested in a loop or too deep are not evaluated");
    }
    // Lists from before weights (no block) take every entry whole.
    let Some(pb) = weight_block else {
        return Ok(Controller::List {
            class,
            kind,
            subs,
            weights,
            average,
            weight_block,
        });
    };
    let block = pblock::param_block2(eval.chunks(pb))?;
    if let Some(p) = block.param(0) {
        match &p.value {
            Value::FloatTab(w) if w.len() == subs.len() => {
                weights = w.iter().map(|&x| f64::from(x)).collect();
            }
            Value::ControlledTab(w) if w.len() == subs.len() => {
                let mut out = Vec::with_capacity(w.len());
                for e in w {
                    match held_weight(eval, pb, *e)? {
                        Some(x) => out.push(x),
                        None => return refuse("animated weights are not evaluated"),
                    }
                }
                weights = out;
            }
            Value::FloatTab(w) => {
                return Err(EvalError::malformed(
                    "list weights (parameter 0)",
                    format!("{} weights for {} entries", w.len(), subs.len()),
                ))
            }
            Value::ControlledTab(w) => {
                return Err(EvalError::malformed(
                    "list weights (parameter 0)",
                    format!("{} weights for {} entries", w.len(), subs.len()),
                ))
            }
            _ => return refuse("animated or undecoded weights are not evaluated"),
        }
    }
    if let Some(p) = block.param(1) {
        average = match p.value {
            Value::Bool(b) => b,
            Value::Int(i) => i != 0,
            _ => return refuse("an animated average switch is not evaluated"),
        };
    }
    if let Some(w) = weights.iter().find(|w| !w.is_finite()) {
        return Err(EvalError::malformed("list weights", format!("weight {w}")));
    }
    // 0 % leaves an entry out and 100 % applies it whole whatever the blend.
    let on_or_off = weights.iter().all(|&w| w == 1.0 || w == 0.0);
    if matches!(kind, ListKind::Rotation | ListKind::Scale) && (!on_or_off || average) {
        return refuse("weights other than 0 % or 100 % or averaging are not evaluated");
    }
    if average && weights.iter().sum::<f64>() == 0.0 {
        return refuse("averaging over weights that sum to 0 is not evaluated");
    }
    Ok(Controller::List {
        class,
        kind,
        subs,
        weights,
        average,
        weight_block: Some(pb),
    })
}

/// The weight a controller-driven tab element holds for the whole animation:
/// a constant float track, or a Boolean Controller without keys (MassFX's
/// baking switches the old entry off and its baked one on with these). None
/// when it varies; an element without its controller is damage.
fn held_weight(eval: &SceneEval, block: usize, e: TabElement) -> Result<Option<f64>, EvalError> {
    let slot = match e {
        TabElement::Float(x) => return Ok(Some(f64::from(x))),
        TabElement::Slot(s) => s,
        TabElement::Int(_) | TabElement::Vector(_) => {
            return Err(EvalError::malformed(
                "list weights",
                "a weight that is not a float",
            ))
        }
    };
    let Some(c) = pblock::reference(&eval.graph, block, slot) else {
        return Err(EvalError::reference(
            "list weights",
            format!("weight controller slot {slot} of block {block} is empty"),
        ));
    };
    if crate::eval::rigs::ik::chain::is_boolean_controller(eval, c) {
        return crate::eval::rigs::ik::chain::keyless_boolean(eval, c).map(|v| v.map(f64::from));
    }
    Ok(match eval.controller(c) {
        Some(Controller::Float {
            track: Track::Constant { value },
            ..
        }) => Some(value[0]),
        _ => None,
    })
}

/// Whether entry `i` of a rotation or scale list applies (its weight is
/// 100 %; `resolve` refuses any weight but 0 % and 100 % there).
pub fn applies(weights: &[f64], i: usize) -> bool {
    weights.get(i).is_none_or(|&w| w != 0.0)
}

/// The entries of a rotation or scale list that apply ([`applies`]), in order.
pub fn applied<'a>(
    subs: &'a [Option<usize>],
    weights: &'a [f64],
) -> impl Iterator<Item = Option<usize>> + 'a {
    subs.iter()
        .enumerate()
        .filter(|(i, _)| applies(weights, *i))
        .map(|(_, s)| *s)
}

/// The weight each entry's value is scaled by: its own, over the sum when averaging.
pub fn factors(weights: &[f64], average: bool) -> Vec<f64> {
    let sum: f64 = weights.iter().sum();
    weights
        .iter()
        .map(|&w| if average { w / sum } else { w })
        .collect()
}

/// Weighted sum of the entries' vector values.
pub fn sum(values: &[Vec3], weights: &[f64], average: bool) -> Vec3 {
    values
        .iter()
        .zip(factors(weights, average))
        .fold(Vec3::default(), |acc, (v, f)| {
            Vec3(acc.0 + f * v.0, acc.1 + f * v.1, acc.2 + f * v.2)
        })
}

/// Entries pre-multiplied in order: entry 0 outermost, the last acting first
/// on a point (row vectors: `M_last · … · M_0`).
pub fn stack(matrices: &[Mat43]) -> Mat43 {
    matrices.iter().fold(Mat43::IDENTITY, |acc, m| m.then(&acc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Quat;

    fn apply(m: &Mat43, v: Vec3) -> Vec3 {
        m.transform_point(v)
    }

    fn close(a: Vec3, b: Vec3) -> bool {
        (a.0 - b.0).abs() < 1e-12 && (a.1 - b.1).abs() < 1e-12 && (a.2 - b.2).abs() < 1e-12
    }

    #[test]
    fn positions_add_up_by_weight() {
        let v = [Vec3(1.0, 2.0, 3.0), Vec3(10.0, 0.0, -4.0)];
        assert!(close(sum(&v, &[1.0, 1.0], false), Vec3(11.0, 2.0, -1.0)));
        // 50 % of the second entry.
        assert!(close(sum(&v, &[1.0, 0.5], false), Vec3(6.0, 2.0, 1.0)));
        // Averaged: (1·a + 3·b) / 4.
        assert!(close(sum(&v, &[1.0, 3.0], true), Vec3(7.75, 0.5, -2.25)));
    }

    #[test]
    fn a_later_rotation_turns_inside_the_frame_of_an_earlier_one() {
        // Freeze Transform: entry 0 the frozen 90° about X, entry 1 the
        // animated 90° about Z, which turns about the frozen Z (world −Y).
        let s = std::f64::consts::FRAC_1_SQRT_2;
        let frozen = Mat43::rotation(Quat {
            x: s,
            y: 0.0,
            z: 0.0,
            w: s,
        });
        let animated = Mat43::rotation(Quat {
            x: 0.0,
            y: 0.0,
            z: s,
            w: s,
        });
        let m = stack(&[frozen, animated]);
        for v in [
            Vec3(1.0, 0.0, 0.0),
            Vec3(0.0, 1.0, 0.0),
            Vec3(0.0, 0.0, 1.0),
        ] {
            // The animated turn first, then the frozen one carries it.
            assert!(close(apply(&m, v), apply(&frozen, apply(&animated, v))));
        }
        // Not the other order: the two turns do not commute.
        let x = Vec3(1.0, 0.0, 0.0);
        assert!(!close(apply(&m, x), apply(&animated, apply(&frozen, x))));
        // Stacking nothing leaves a point where it is; one entry is itself.
        assert!(close(
            apply(&stack(&[]), Vec3(1.0, 2.0, 3.0)),
            Vec3(1.0, 2.0, 3.0)
        ));
        let y = Vec3(0.0, 1.0, 0.0);
        assert!(close(apply(&stack(&[frozen]), y), apply(&frozen, y)));
    }
}
