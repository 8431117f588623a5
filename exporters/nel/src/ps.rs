//! `.ps`: `CParticleSystemShape`. The shape header is decoded; the particle-system
//! prototype inside it (a serialized `CParticleSystem` with dozens of located/bindable
//! classes) is kept as an opaque byte buffer — a listed exception (docs/nel-formats.md).

use serde::Serialize;

use super::shape::material::{TrackDefaultFloat, TrackDefaultQuat, TrackDefaultVector};
use super::stream::{opt, AaBox, Bool, Bytes, Serial, Stream, F32};
use super::NelError;

/// Summary of the opaque prototype, for the JSON view.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ProtoInfo {
    pub size: usize,
    /// Class names found in the prototype (`C…` strings with a u32 length prefix).
    pub classes: Vec<String>,
}

/// `CParticleSystemShape`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ParticleSystemShape {
    pub version: u32,
    #[serde(skip)]
    pub proto: Bytes,
    pub proto_info: ProtoInfo,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub user_param_default_tracks: Vec<TrackDefaultFloat>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_pos: Option<TrackDefaultVector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_scale: Option<TrackDefaultVector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_rot_quat: Option<TrackDefaultQuat>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_view_dist: Option<F32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destroy_when_out_of_frustum: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destroy_model_when_out_of_range: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub use_precomputed_bbox: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub precomputed_bbox: Option<AaBox>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sharing: Option<Bool>,
}

impl Serial for ParticleSystemShape {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 6, "CParticleSystemShape")?;
        let v = self.version;
        s.bytes(&mut self.proto.0)?;
        if s.reading() {
            self.proto_info = proto_info(&self.proto.0);
        }
        s.vec_n(
            &mut self.user_param_default_tracks,
            if v > 1 { 4 } else { 0 },
        )?;
        opt(s, &mut self.default_pos, v > 2)?;
        opt(s, &mut self.default_scale, v > 2)?;
        opt(s, &mut self.default_rot_quat, v > 2)?;
        opt(s, &mut self.max_view_dist, v > 3)?;
        opt(s, &mut self.destroy_when_out_of_frustum, v > 3)?;
        opt(s, &mut self.destroy_model_when_out_of_range, v > 3)?;
        opt(s, &mut self.use_precomputed_bbox, v > 4)?;
        let use_bb = self.use_precomputed_bbox.map(|b| b.get()).unwrap_or(false);
        opt(s, &mut self.precomputed_bbox, v > 4 && use_bb)?;
        opt(s, &mut self.sharing, v > 5)
    }
}

/// Class names stored in the prototype: length-prefixed ASCII identifiers starting with `C`.
fn proto_info(b: &[u8]) -> ProtoInfo {
    let mut classes = Vec::new();
    let mut i = 0;
    while i + 5 <= b.len() {
        let n = u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as usize;
        if (3..=64).contains(&n) && i + 4 + n <= b.len() {
            let t = &b[i + 4..i + 4 + n];
            if t[0] == b'C'
                && t.get(1).is_some_and(|c| c.is_ascii_uppercase())
                && t.iter()
                    .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b':')
            {
                let name = String::from_utf8_lossy(t).into_owned();
                if !classes.contains(&name) {
                    classes.push(name);
                }
                i += 4 + n;
                continue;
            }
        }
        i += 1;
    }
    classes.sort();
    ProtoInfo {
        size: b.len(),
        classes,
    }
}
