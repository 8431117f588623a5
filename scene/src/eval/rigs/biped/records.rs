//! The figure records of a Biped system object (0x9155): the structure of
//! each limb and the figure-mode pose, as Character Studio saves them.
//!
//! The object holds several full record groups — saved copies come first — and
//! the live one is the last group, which starts at chunk 0x0190 and ends at
//! 0x0141. Within a group the records are float arrays; the ones the
//! evaluation reads are parsed into fields, the others are kept as floats so
//! `biped.json` shows every stored value.

use crate::eval::error::EvalError;
use serde::Serialize;

use crate::chunk::Chunk;

/// The chunk opening every record group.
pub const GROUP_START: u16 = 0x0190;
/// The chunk closing every record group.
pub const GROUP_END: u16 = 0x0141;

/// Spine structure: u32 flags, per-link lengths, 4×4 base-attach matrix (Y-up).
pub const SPINE: u16 = 0x000b;
/// Structural height of the figure (one f32).
pub const HEIGHT: u16 = 0x000c;
/// Neck structure: same shape as the spine's (on RabbitSkin its one length
/// is the Head's distance from the Neck in the Skin bind pose, 4.8748).
pub const NECK: u16 = 0x000d;
/// COM pose record: [0..3] V/H/T displacement, [4..6] position, [8..11] quaternion (Y-up).
pub const COM_POSE: u16 = 0x006c;

/// The names of the record ids seed §11 identifies; other ids show as "0x….".
pub fn record_name(id: u16) -> Option<&'static str> {
    Some(match id {
        SPINE => "spine structure",
        HEIGHT => "height",
        NECK => "neck structure",
        0x000e => "tail structure",
        0x000f => "leg structure",
        0x0010 => "arm structure",
        0x0013 => "ponytail 1 structure",
        0x0014 => "ponytail 2 structure",
        0x0064 => "head pose",
        0x0066 => "pelvis pose",
        0x0067 => "spine pose",
        0x0068 => "tail pose",
        0x0069 => "leg pose",
        0x006a => "arm pose",
        COM_POSE => "COM pose",
        0x006d => "ponytail 1 pose",
        0x006e => "ponytail 2 pose",
        0x00ca => "dynamics",
        0x01f4..=0x01fd => "link lengths",
        0x0258..=0x0261 => "pose snapshot",
        _ => return None,
    })
}

/// One stored record of the live group, as little-endian words.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    pub id: String,
    pub name: Option<&'static str>,
    /// The payload read as f32 (counts and flags show as tiny denormals).
    pub floats: Vec<f32>,
    /// Bytes after the last whole word, when the payload is not word-aligned.
    #[serde(skip_serializing_if = "is_zero")]
    pub trailing_bytes: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A linked chain's structure (spine, neck, tail, ponytails): link lengths and the
/// base-attach matrix, Y-up row vectors.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chain {
    pub lengths: Vec<f64>,
    /// Rows of the 4×4 base matrix (the last row is the base position).
    pub base: [[f64; 4]; 4],
}

/// The COM figure pose.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComPose {
    /// Vertical/Horizontal/Turn displacement from the figure COM, COM frame.
    pub displacement: [f64; 3],
    /// Figure position, Y-up (x, up, forward).
    pub position: [f64; 3],
    /// Figure rotation, Y-up, as stored (x, y, z, w).
    pub rotation: [f64; 4],
}

/// The live record group, parsed where the evaluation needs it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    pub height: Option<f64>,
    pub spine: Option<Chain>,
    pub neck: Option<Chain>,
    pub com: Option<ComPose>,
    pub records: Vec<Record>,
}

fn floats(p: &[u8]) -> Vec<f32> {
    p.chunks_exact(4)
        .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

/// The live group: the chunks from the last 0x0190 through the next 0x0141.
pub fn live_group(chunks: &[Chunk]) -> Option<&[Chunk]> {
    let start = chunks.iter().rposition(|c| c.id == GROUP_START)?;
    let rest = &chunks[start..];
    let end = rest
        .iter()
        .position(|c| c.id == GROUP_END)
        .unwrap_or(rest.len().saturating_sub(1));
    Some(&rest[..=end])
}

fn leaf(group: &[Chunk], id: u16) -> Option<&[u8]> {
    group.iter().find(|c| c.id == id).and_then(Chunk::payload)
}

/// Parses the live group; `what` names the object for errors.
pub fn figure(group: &[Chunk], what: &str) -> Result<Figure, EvalError> {
    let records = group
        .iter()
        .filter_map(|c| {
            let p = c.payload()?;
            Some(Record {
                id: format!("0x{:04x}", c.id),
                name: record_name(c.id),
                floats: floats(p),
                trailing_bytes: p.len() % 4,
            })
        })
        .collect();
    let height = match leaf(group, HEIGHT) {
        None => None,
        Some(p) => Some(f64::from(
            *exact::<1>(p, what, HEIGHT)?.first().unwrap_or(&0.0),
        )),
    };
    let spine = leaf(group, SPINE)
        .map(|p| chain(p, what, SPINE))
        .transpose()?;
    let neck = leaf(group, NECK)
        .map(|p| chain(p, what, NECK))
        .transpose()?;
    let com = match leaf(group, COM_POSE) {
        None => None,
        Some(p) => {
            let f = exact::<12>(p, what, COM_POSE)?;
            let d = |i: usize| f64::from(f[i]);
            Some(ComPose {
                displacement: [d(0), d(1), d(2)],
                position: [d(4), d(5), d(6)],
                rotation: [d(8), d(9), d(10), d(11)],
            })
        }
    };
    Ok(Figure {
        height,
        spine,
        neck,
        com,
        records,
    })
}

/// A record that must hold exactly N floats.
fn exact<const N: usize>(p: &[u8], what: &str, id: u16) -> Result<[f32; N], EvalError> {
    let f = floats(p);
    if p.len() != N * 4 {
        return Err(EvalError::malformed(
            what.to_string(),
            format!(
                "record 0x{id:04x} ({}) holds {} bytes, expected {}",
                record_name(id).unwrap_or("?"),
                p.len(),
                N * 4
            ),
        ));
    }
    let mut out = [0f32; N];
    out.copy_from_slice(&f);
    Ok(out)
}

/// A chain structure record: u32, n lengths, 16 matrix floats (n = words − 17).
fn chain(p: &[u8], what: &str, id: u16) -> Result<Chain, EvalError> {
    if !p.len().is_multiple_of(4) || p.len() < 17 * 4 {
        return Err(EvalError::malformed(
            what.to_string(),
            format!(
                "record 0x{id:04x} ({}) holds {} bytes, expected 17 + n words",
                record_name(id).unwrap_or("?"),
                p.len()
            ),
        ));
    }
    let f = floats(p);
    let n = f.len() - 17;
    let lengths = f[1..=n].iter().map(|&v| f64::from(v)).collect();
    let m = &f[n + 1..];
    let base = std::array::from_fn(|r| std::array::from_fn(|c| f64::from(m[r * 4 + c])));
    Ok(Chain { lengths, base })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(f: &[f32]) -> Vec<u8> {
        f.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn chain_lengths_and_base() {
        let mut f = vec![0.0, 1.5, 2.5];
        f.extend([1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
        f.extend([0.0, 0.0, 1.0, 0.0, 0.0, 7.5, 0.0, 1.0]);
        let c = chain(&words(&f), "t", SPINE).expect("chain");
        assert_eq!(c.lengths, vec![1.5, 2.5]);
        assert_eq!(c.base[3], [0.0, 7.5, 0.0, 1.0]);
        assert!(chain(&words(&f[..10]), "t", SPINE).is_err());
        assert!(chain(&[0u8; 69], "t", SPINE).is_err());
    }

    #[test]
    fn live_group_is_the_last() {
        let g = |id| Chunk::leaf(id, vec![0u8; 4]);
        let chunks = vec![
            g(GROUP_START),
            g(HEIGHT),
            g(GROUP_END),
            g(0x0108),
            g(GROUP_START),
            g(SPINE),
            g(GROUP_END),
            g(0x0104),
        ];
        let live = live_group(&chunks).expect("group");
        assert_eq!(live.len(), 3);
        assert_eq!(live[1].id, SPINE);
        assert!(live_group(&chunks[3..4]).is_none());
        // A bad COM record is an error naming the record.
        let bad = vec![g(GROUP_START), g(COM_POSE)];
        let e = figure(&bad, "obj 1").expect_err("short COM");
        assert!(
            e.to_string().contains("0x006c") && e.to_string().contains("48"),
            "{e}"
        );
    }
}
