//! Morpher (MorphR3): each of up to 100 channels stores per-point deltas
//! (target − base) / 100 and is driven by a percentage, so a point moves by
//! Σ delta · percent over the active channels.
//!
//! Layout (Max SDK sample `morpher`, checked on AnimatedMorphCube.max): the
//! modifier's chunk 0x0200 + i holds channel i: 0x0101 point count (0x0100 in
//! old files: two counts), 0x0160 deltas (Point3 each), 0x0110 selection bits,
//! 0x0120 name, 0x0130 params (active, modded, use-limit, use-selection: BOOL;
//! min, max: float; enabled: BOOL), 0x0180 progressive target count.
//! References: 0 = global ParamBlock (0 use limits, 1 min, 2 max, 3 use
//! vertex selection), 1 + i = channel i's ParamBlock whose parameter 0 is the
//! percentage (a float controller when animated), 101 + i = its target node.

use super::{bits, payload, vec_at, Applied, ModContext};
use crate::chunk::Chunk;
use crate::eval::core::controller::Controller;
use crate::eval::core::keys::Words;
use crate::eval::core::pblock::{self, Value};
use crate::eval::core::transform::SceneEval;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::eval::Vec3;

/// MR3_MC_SUBCHUNK and the channel count of the first bank.
const CHANNEL_BASE: u16 = 0x0200;
const CHANNELS: u16 = 100;
const POINT_COUNT_OLD: u16 = 0x0100;
const POINT_COUNT: u16 = 0x0101;
const SELECTION: u16 = 0x0110;
const NAME: u16 = 0x0120;
const PARAMS: u16 = 0x0130;
const DELTAS: u16 = 0x0160;
const PROGRESSIVE: u16 = 0x0180;

/// Global ParamBlock parameter indices (PB_OV_*).
const USE_LIMITS: i32 = 0;
const LIMIT_MIN: i32 = 1;
const LIMIT_MAX: i32 = 2;
const USE_SELECTION: i32 = 3;

/// One channel's stored state.
struct Channel<'a> {
    points: usize,
    chunks: &'a [Chunk],
    active: bool,
    use_limit: bool,
    use_sel: bool,
    min: f32,
    max: f32,
    enabled: bool,
}

/// Adds every active channel's weighted deltas to `mesh` at `cx.t`.
pub fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let eval = cx.eval;
    let t = cx.t;
    let global = pblock::reference(&eval.graph, m.object, 0);
    let gl_limits = old_param(eval, global, USE_LIMITS, t)?.unwrap_or(0.0) != 0.0;
    let gl_min = old_param(eval, global, LIMIT_MIN, t)?.unwrap_or(0.0);
    let gl_max = old_param(eval, global, LIMIT_MAX, t)?.unwrap_or(100.0);
    let mut out = mesh.vertices.clone();
    for Used {
        index,
        ch,
        deltas,
        sel,
    } in used_channels(eval, m.object, mesh.vertices.len(), t)?
    {
        let what = |e: EvalError| e.inside(format!("channel {}", index + 1));
        let pct = weight(eval, m.object, index, t).map_err(what)?;
        let pct = limited(pct, &ch, gl_limits.then_some((gl_min, gl_max)));
        for (k, p) in out.iter_mut().enumerate() {
            if sel
                .as_ref()
                .is_some_and(|s| !s.get(k).copied().unwrap_or(false))
            {
                continue;
            }
            *p = p.plus(vec_at(deltas, k * 3).scale(pct));
        }
    }
    mesh.vertices = out;
    Ok(())
}

/// A channel Morpher applies to a mesh, with its deltas and selection.
struct Used<'a> {
    index: u16,
    ch: Channel<'a>,
    /// `points` × Point3.
    deltas: &'a [u8],
    /// Per point, whether the channel moves it (None: all points).
    sel: Option<Vec<bool>>,
}

/// The channels Morpher `modifier` applies to `points` points at `t`, in
/// channel order. Max skips empty channels, channels built for another point
/// count (flagged invalid) and channels switched off; what it would apply but
/// this evaluation cannot (progressive targets, missing deltas) is an error.
fn used_channels(
    eval: &SceneEval,
    modifier: usize,
    points: usize,
    t: i32,
) -> Result<Vec<Used<'_>>, EvalError> {
    let global = pblock::reference(&eval.graph, modifier, 0);
    let gl_sel = old_param(eval, global, USE_SELECTION, t)?.unwrap_or(0.0) != 0.0;
    let mut out = Vec::new();
    for c in eval.chunks(modifier) {
        let Some(index) = c.id.checked_sub(CHANNEL_BASE).filter(|&i| i < CHANNELS) else {
            continue;
        };
        let ch = channel(index, c.children())?;
        if !ch.active || ch.points != points || !ch.enabled {
            continue;
        }
        let what = |e: EvalError| e.inside(format!("channel {}", index + 1));
        if leaf_u32(ch.chunks, PROGRESSIVE).map_err(what)?.unwrap_or(0) != 0 {
            return Err(what(EvalError::not_evaluated("progressive morph targets")));
        }
        let deltas = ch
            .chunks
            .iter()
            .find(|x| x.id == DELTAS)
            .ok_or_else(|| what(EvalError::malformed("", "no deltas (0x0160)")))
            .and_then(|x| payload(x).map_err(what))?;
        if deltas.len() != points * 12 {
            return Err(what(EvalError::malformed(
                "",
                format!("{} bytes of deltas for {points} points", deltas.len()),
            )));
        }
        let sel = if ch.use_sel || gl_sel {
            let s = ch
                .chunks
                .iter()
                .find(|x| x.id == SELECTION)
                .ok_or_else(|| {
                    what(EvalError::malformed(
                        "",
                        "uses a selection it does not store",
                    ))
                })?;
            Some(bits(s).map_err(what)?)
        } else {
            None
        };
        out.push(Used {
            index,
            ch,
            deltas,
            sel,
        });
    }
    Ok(out)
}

/// One Morpher channel as a blend shape: what an exporter writes as a morph
/// target (glTF) whose weight is [`channel_weight`] / 100.
#[derive(Debug, Clone, PartialEq)]
pub struct MorphChannel {
    /// Channel number from 0 (chunk 0x0200 + index, ParamBlock 1 + index).
    pub index: u16,
    /// The channel's name (0x0120), empty when not stored.
    pub name: String,
    /// Per point, the displacement at 100 % (object space, Max units); zero
    /// for points outside the channel's selection when it uses one.
    pub displacement: Vec<Vec3>,
    /// Key times (ticks) of the channel's percentage controller; empty when
    /// the percentage is constant.
    pub key_times: Vec<i32>,
    use_limit: bool,
    min: f32,
    max: f32,
}

/// The channels Morpher `modifier` applies to a mesh of `points` points, in
/// channel order: exactly the ones [`apply`] adds (active, enabled, built for
/// this point count). The displacement is linear in the weight, so the mesh
/// `apply` gives at `t` is the input plus Σ displacement · weight(t) / 100.
pub fn channels(
    eval: &SceneEval,
    modifier: usize,
    points: usize,
) -> Result<Vec<MorphChannel>, EvalError> {
    let mut out = Vec::new();
    for Used {
        index,
        ch,
        deltas,
        sel,
    } in used_channels(eval, modifier, points, 0)?
    {
        let what = |e: EvalError| e.inside(format!("channel {}", index + 1));
        let displacement = (0..points)
            .map(|k| {
                if sel
                    .as_ref()
                    .is_some_and(|s| !s.get(k).copied().unwrap_or(false))
                {
                    Vec3::default()
                } else {
                    vec_at(deltas, k * 3).scale(100.0)
                }
            })
            .collect();
        let name = match ch.chunks.iter().find(|x| x.id == NAME) {
            Some(n) => crate::typed::MaxString::decode(payload(n).map_err(what)?).text(),
            None => String::new(),
        };
        let key_times = pblock::reference(&eval.graph, modifier, u32::from(index) + 1)
            .and_then(|b| {
                let params = pblock::param_block(eval.chunks(b)).ok()?;
                let slot = params.iter().find(|p| p.index == 0)?.ref_slot?;
                let ctl = pblock::reference(&eval.graph, b, slot)?;
                match eval.controller(ctl) {
                    Some(Controller::Float { track, .. }) => Some(track.key_times()),
                    _ => None,
                }
            })
            .unwrap_or_default();
        out.push(MorphChannel {
            index,
            name,
            displacement,
            key_times,
            use_limit: ch.use_limit,
            min: ch.min,
            max: ch.max,
        });
    }
    Ok(out)
}

/// Channel `ch`'s percentage at `t` as [`apply`] uses it: its controller or
/// stored value, clamped to the limits in force.
pub fn channel_weight(
    eval: &SceneEval,
    modifier: usize,
    ch: &MorphChannel,
    t: i32,
) -> Result<f64, EvalError> {
    let global = pblock::reference(&eval.graph, modifier, 0);
    let gl_limits = old_param(eval, global, USE_LIMITS, t)?.unwrap_or(0.0) != 0.0;
    let gl_min = old_param(eval, global, LIMIT_MIN, t)?.unwrap_or(0.0);
    let gl_max = old_param(eval, global, LIMIT_MAX, t)?.unwrap_or(100.0);
    let what = |e: EvalError| e.inside(format!("channel {}", ch.index + 1));
    let pct = weight(eval, modifier, ch.index, t).map_err(what)?;
    let limits = Channel {
        points: 0,
        chunks: &[],
        active: true,
        use_limit: ch.use_limit,
        use_sel: false,
        min: ch.min,
        max: ch.max,
        enabled: true,
    };
    Ok(limited(pct, &limits, gl_limits.then_some((gl_min, gl_max))))
}

/// Whether modifier class `class`, above a Morpher, leaves its points where
/// the Morpher put them (same count, order and positions): selection, rigid
/// bodies and modifiers that write one map channel only (`uv_only`). Exporters keep
/// blend shapes live only then.
pub fn keeps_points(class: crate::typed::ClassId) -> bool {
    super::PASS_THROUGH.contains(&class) || super::uv_only::is_uv_only(class)
}

/// The percentage within the limits in force (the global ones when on, else
/// the channel's when on), which Max truncates to integers before clamping.
fn limited(pct: f64, ch: &Channel, global: Option<(f64, f64)>) -> f64 {
    let (lo, hi) = match global {
        Some((lo, hi)) => (lo, hi),
        None if ch.use_limit => (f64::from(ch.min), f64::from(ch.max)),
        None => return pct,
    };
    pct.min(hi.trunc()).max(lo.trunc())
}

fn leaf_u32(chunks: &[Chunk], id: u16) -> Result<Option<u32>, EvalError> {
    match chunks.iter().find(|c| c.id == id) {
        None => Ok(None),
        Some(c) => {
            let p = payload(c)?;
            if p.len() < 4 {
                return Err(EvalError::malformed(
                    format!("chunk {id:#06x}"),
                    format!("{} bytes", p.len()),
                ));
            }
            Ok(Some(Words(p).u32(0)))
        }
    }
}

fn channel(index: u16, chunks: &[Chunk]) -> Result<Channel<'_>, EvalError> {
    let what = |e: EvalError| e.inside(format!("channel {}", index + 1));
    let points = match leaf_u32(chunks, POINT_COUNT).map_err(what)? {
        Some(n) => n,
        None => leaf_u32(chunks, POINT_COUNT_OLD)
            .map_err(what)?
            .unwrap_or(0),
    } as usize;
    let params = match chunks.iter().find(|c| c.id == PARAMS) {
        Some(c) => payload(c).map_err(what)?,
        None => &[],
    };
    if params.len() < 28 {
        // No parameters: the channel was never filled.
        return Ok(Channel {
            points,
            chunks,
            active: false,
            use_limit: false,
            use_sel: false,
            min: 0.0,
            max: 100.0,
            enabled: false,
        });
    }
    let w = Words(params);
    Ok(Channel {
        points,
        chunks,
        active: w.u32(0) != 0,
        use_limit: w.u32(2) != 0,
        use_sel: w.u32(3) != 0,
        min: w.f(4) as f32,
        max: w.f(5) as f32,
        enabled: w.u32(6) != 0,
    })
}

/// Channel `index`'s percentage at `t`: parameter 0 of its ParamBlock
/// (reference 1 + index), animated or constant.
/// The controller animating channel `index`'s percentage (parameter 0 of its
/// ParamBlock, reference 1 + index), None when the percentage is constant.
pub fn weight_controller(eval: &SceneEval, modifier: usize, index: u16) -> Option<usize> {
    let block = pblock::reference(&eval.graph, modifier, u32::from(index) + 1)?;
    let params = pblock::param_block(eval.chunks(block)).ok()?;
    let slot = params.iter().find(|p| p.index == 0)?.ref_slot?;
    pblock::reference(&eval.graph, block, slot)
}

fn weight(eval: &SceneEval, modifier: usize, index: u16, t: i32) -> Result<f64, EvalError> {
    let block = pblock::reference(&eval.graph, modifier, u32::from(index) + 1)
        .ok_or_else(|| EvalError::malformed("", "no weight ParamBlock"))?;
    old_param(eval, Some(block), 0, t)?
        .ok_or_else(|| EvalError::malformed("", "no weight parameter"))
}

/// Parameter `index` of old ParamBlock `block` at `t`: its controller's value
/// when animated (an error when that controller is not a float track this
/// evaluation computes), else the stored value.
fn old_param(
    eval: &SceneEval,
    block: Option<usize>,
    index: i32,
    t: i32,
) -> Result<Option<f64>, EvalError> {
    let Some(block) = block else { return Ok(None) };
    let params = pblock::param_block(eval.chunks(block))?;
    let Some(p) = params.iter().find(|p| p.index == index) else {
        return Ok(None);
    };
    if let Some(slot) = p.ref_slot {
        if let Some(ctl) = pblock::reference(&eval.graph, block, slot) {
            return match eval.controller(ctl) {
                Some(Controller::Float { track, .. }) => Ok(Some(track.at(t)[0])),
                _ => Err(EvalError::not_evaluated(format!(
                    "parameter {index} is driven by {:?}, which",
                    eval.graph.class(ctl).map_or("?", |c| c.name.as_str())
                ))),
            };
        }
    }
    Ok(match p.value {
        Value::Float(f) => Some(f64::from(f)),
        Value::Int(i) => Some(f64::from(i)),
        Value::Bool(b) => Some(f64::from(u8::from(b))),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn params(active: u32, limit: u32, min: f32, max: f32, enabled: u32) -> Chunk {
        Chunk::leaf(
            PARAMS,
            words(&[active, 1, limit, 0, min.to_bits(), max.to_bits(), enabled]),
        )
    }

    #[test]
    fn channel_state_and_limits() {
        let kids = vec![
            Chunk::leaf(POINT_COUNT, words(&[8])),
            params(1, 1, -10.5, 50.9, 1),
        ];
        let ch = channel(0, &kids).expect("channel");
        assert_eq!(ch.points, 8);
        assert!(ch.active && ch.enabled && ch.use_limit && !ch.use_sel);
        // Channel limits, truncated: [-10, 50].
        assert_eq!(limited(75.0, &ch, None), 50.0);
        assert_eq!(limited(-20.0, &ch, None), -10.0);
        assert_eq!(limited(20.0, &ch, None), 20.0);
        // Global limits win over the channel's.
        assert_eq!(limited(75.0, &ch, Some((0.0, 100.0))), 75.0);
        assert_eq!(limited(-5.0, &ch, Some((0.0, 100.0))), 0.0);
        // Old files: 0x0100 holds two counts.
        let old = vec![Chunk::leaf(POINT_COUNT_OLD, words(&[5, 3]))];
        let ch = channel(1, &old).expect("old channel");
        assert_eq!(ch.points, 5);
        assert!(!ch.active, "no parameters: never filled");
        assert_eq!(limited(150.0, &ch, None), 150.0);
    }

    #[test]
    fn short_records_are_errors() {
        let kids = vec![Chunk::leaf(POINT_COUNT, vec![1u8, 0])];
        let e = channel(2, &kids).err().expect("short count");
        assert!(
            e.to_string()
                .starts_with("channel 3: chunk 0x0101: 2 bytes"),
            "{e}"
        );
    }
}
