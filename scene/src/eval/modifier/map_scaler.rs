//! MapScaler, the world-space modifier (MAXScript `MapScalerSpacewarpModifier`,
//! (0x0dadada2, 0)) and its object-space twin (`MapScalerOSM`,
//! (0x0dadada6, 0)): texture coordinates sized in scene units, so that a map
//! keeps its size as the object grows. Both write one map channel and leave
//! the geometry alone (Max's help and MAXScript reference), so they are
//! UV-only (`uv_only`): the mesh below is kept and the channel is named.
//!
//! How Max lays the coordinates out is not derived: "Wrap Texture" (on by
//! default and in every saved instance seen) unfolds the texture around the
//! object by a rule neither a public source nor a reference export gives,
//! and without it the per-face projection and its origin are not pinned by
//! any file either. So the channel is refused, never guessed.
//!
//! The world-space block is reference 2, a ParamBlock2 whose ids are read
//! off the two public files holding one (fibll/CG's Tisch.max and Set1.max,
//! eight instances) by type and default against the MAXScript property
//! list: 0 scale (float, 100), 1 Wrap Texture (bool), 2 Up Direction (radio
//! index), 3 map channel (int, 1), 4 U offset, 5 V offset (floats), 6 Wrap
//! using Smoothing Groups (bool). The object-space block's layout is not
//! seen; its channel is not read.

use super::gizmo;
use super::{Applied, ModContext};
use crate::eval::error::EvalError;
use crate::typed::ClassId;

/// MapScaler (world space).
pub const MAP_SCALER_WSM: ClassId = ClassId(0x0dad_ada2, 0);
/// MapScaler (object space).
pub const MAP_SCALER_OSM: ClassId = ClassId(0x0dad_ada6, 0);

/// The reference of the world-space modifier's ParamBlock2.
const BLOCK: u32 = 2;
const SCALE: usize = 0;
const WRAP: usize = 1;
const CHANNEL: usize = 3;

/// Max's texture channels (1..=99; 0 is vertex colour, which MapScaler does
/// not write).
const CHANNELS: std::ops::RangeInclusive<i32> = 1..=99;

/// What the world-space modifier's block holds: the scale, Wrap Texture,
/// the stored channel number and the channel it writes (where that number
/// is saved and a texture channel).
struct Settings {
    scale: f64,
    wrap: bool,
    stored_channel: i64,
    channel: Option<i32>,
}

/// The block of `m`, read once for both the UV-only rule ([`channel`]) and
/// the refusal's message ([`apply`]); None for the object-space modifier,
/// whose block's layout is not seen.
fn settings(m: &Applied, cx: &ModContext) -> Result<Option<Settings>, EvalError> {
    if m.class != MAP_SCALER_WSM {
        return Ok(None);
    }
    let p = gizmo::params(cx, m, BLOCK)?;
    let stored_channel = p.int_or(CHANNEL, 1);
    Ok(Some(Settings {
        scale: p.float_or(SCALE, 100.0),
        wrap: p.flag(WRAP, true),
        stored_channel,
        channel: p
            .has(CHANNEL)
            .then(|| i32::try_from(stored_channel).ok())
            .flatten()
            .filter(|c| CHANNELS.contains(c)),
    }))
}

/// The channel the modifier writes, where its block says it.
pub(super) fn channel(m: &Applied, cx: &ModContext) -> Option<i32> {
    settings(m, cx).ok()??.channel
}

/// Always a refusal naming the settings: the layout Max computes is not
/// derived (see the module comment). The caller keeps the geometry.
pub(super) fn apply(m: &Applied, cx: &ModContext) -> Result<(), EvalError> {
    let settings = match settings(m, cx)? {
        Some(s) => format!(
            " (scale {}, Wrap Texture {}, channel {})",
            s.scale,
            if s.wrap { "on" } else { "off" },
            s.stored_channel
        ),
        None => String::new(),
    };
    Err(EvalError::not_evaluated_why(
        format!("its texture layout{settings}"),
        "how MapScaler lays a texture out in scene units is not derived (no public source \
         or reference export gives it)",
    ))
}
