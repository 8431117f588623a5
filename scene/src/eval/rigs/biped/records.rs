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
/// Extra-limb structure (Max 2013+ "Xtra" limbs): the limbs, their links,
/// base matrices, parents and names ([`ExtraLimb`]).
pub const EXTRA_STRUCTURE: u16 = 0x0022;
/// Extra-limb figure pose: per limb its angle-word count, (a1, a2, a3) per
/// link and four more words.
pub const EXTRA_POSE: u16 = 0x0073;
/// More extra limbs, or links per extra limb, than Biped offers: damaged data.
const MAX_EXTRA_LIMBS: usize = 64;
const MAX_EXTRA_LINKS: usize = 64;
/// Longest extra-limb name read (UTF-16 units).
const MAX_NAME: usize = 1024;

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
        EXTRA_STRUCTURE => "extra limb structure",
        EXTRA_POSE => "extra limb pose",
        0x0266 => "extra limb pose snapshot",
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

/// One extra limb of record 0x0022 (limb id 200 + its index on its links'
/// BipSlave controllers, 400 + index on its nub). biped-ld35/Yellow holds
/// two, the ears "Xtra01" (right) and "Xtra01Opp" (left), each two links
/// of 24.87 on the head.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExtraLimb {
    pub name: String,
    /// Link lengths (one per link; the record stores 3 angle words per link).
    pub lengths: Vec<f64>,
    /// Rows of the 4×4 base matrix in the parent's frame, Y-up rows like a
    /// chain structure's (the last row is the base position).
    pub base: [[f64; 4]; 4],
    /// The body part it hangs on: limb id and link (Yellow: the head, 10 / 0).
    pub parent_limb: u32,
    pub parent_link: u32,
    /// The two words between the parent and the name (Yellow: 0, 1), not read.
    pub flags: [u32; 2],
    /// Words stored before this limb's record (none before the first;
    /// Yellow: 2, 1 before the second), not read.
    pub lead: Vec<u32>,
}

/// The live record group, parsed where the evaluation needs it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    pub height: Option<f64>,
    pub spine: Option<Chain>,
    pub neck: Option<Chain>,
    pub com: Option<ComPose>,
    /// Extra limbs (0x0022), in limb-index order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extra_limbs: Vec<ExtraLimb>,
    /// Bytes of 0x0022 after the last limb's name (Yellow: 6), not read.
    #[serde(skip_serializing_if = "is_zero")]
    pub extra_trailing_bytes: usize,
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

/// System-object chunk before the layer groups: (layer count, active layer).
pub const LAYERS: u16 = 0x0108;
/// A layer's name inside its group (u32 length, UTF-16): "Original" for the
/// base layer, "Layer 1" … for the others.
pub const LAYER_NAME: u16 = 0x0168;
/// More animation layers than a Biped is ever given: damaged data.
const MAX_LAYERS: u32 = 256;

/// The record group of each animation layer, the base layer first. The
/// groups after chunk 0x0108 are the layers; its first word counts them
/// (one on every corpus rig but biped-ld35/Player@Idle, which holds the base
/// layer "Original" and "Layer 1": (2, 1)). Without 0x0108 the live group
/// is the one layer. A count that does not match the groups stored after
/// it is an error naming the chunk.
pub fn layer_groups<'a>(chunks: &'a [Chunk], what: &str) -> Result<Vec<&'a [Chunk]>, EvalError> {
    let Some(at) = chunks.iter().rposition(|c| c.id == LAYERS) else {
        return Ok(live_group(chunks).into_iter().collect());
    };
    let count = chunks[at]
        .payload()
        .and_then(|p| p.get(..4))
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .filter(|&n| (1..=MAX_LAYERS).contains(&n))
        .ok_or_else(|| {
            EvalError::malformed(
                what.to_string(),
                format!("layer chunk 0x{LAYERS:04x} holds no layer count in 1..={MAX_LAYERS}"),
            )
        })?;
    let mut groups = Vec::new();
    let mut rest = &chunks[at + 1..];
    while let Some(start) = rest.iter().position(|c| c.id == GROUP_START) {
        let tail = &rest[start..];
        let end = tail.iter().position(|c| c.id == GROUP_END).ok_or_else(|| {
            EvalError::malformed(
                what.to_string(),
                format!(
                    "layer group {} has no end chunk 0x{GROUP_END:04x}",
                    groups.len()
                ),
            )
        })?;
        groups.push(&tail[..=end]);
        rest = &tail[end + 1..];
    }
    if groups.len() != count as usize {
        return Err(EvalError::malformed(
            what.to_string(),
            format!(
                "layer chunk 0x{LAYERS:04x} counts {count} layers, {} record groups follow it",
                groups.len()
            ),
        ));
    }
    Ok(groups)
}

/// A layer's name (chunk 0x0168), when stored and readable.
pub fn layer_name(group: &[Chunk]) -> Option<String> {
    let p = leaf(group, LAYER_NAME)?;
    let n = u32::from_le_bytes(p.get(..4)?.try_into().ok()?) as usize;
    let units: Vec<u16> = p
        .get(4..4 + n.checked_mul(2)?)?
        .chunks_exact(2)
        .map(|u| u16::from_le_bytes([u[0], u[1]]))
        .collect();
    String::from_utf16(&units).ok()
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
    let (extra_limbs, extra_trailing_bytes) = match leaf(group, EXTRA_STRUCTURE) {
        None => (Vec::new(), 0),
        Some(p) => extra_limbs(p, what)?,
    };
    Ok(Figure {
        height,
        spine,
        neck,
        com,
        extra_limbs,
        extra_trailing_bytes,
        records,
    })
}

/// A little-endian reader over a record's bytes whose errors say what ran out.
struct Reader<'a> {
    p: &'a [u8],
    at: usize,
    /// The object, for errors.
    owner: &'a str,
}

impl Reader<'_> {
    /// An error in record 0x0022 of the object.
    fn err(&self, m: String) -> EvalError {
        EvalError::malformed(
            self.owner.to_string(),
            format!("record 0x{EXTRA_STRUCTURE:04x} (extra limb structure): {m}"),
        )
    }

    fn bytes(&mut self, n: usize, what: &str) -> Result<&[u8], EvalError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.p.len());
        let Some(end) = end else {
            return Err(self.err(format!(
                "{} bytes end before {what} at byte {}",
                self.p.len(),
                self.at
            )));
        };
        let b = &self.p[self.at..end];
        self.at = end;
        Ok(b)
    }

    fn u32(&mut self, what: &str) -> Result<u32, EvalError> {
        let b = self.bytes(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn f32(&mut self, what: &str) -> Result<f64, EvalError> {
        Ok(f64::from(f32::from_bits(self.u32(what)?)))
    }
}

/// Record 0x0022: a u32 limb count, then per limb — after two words the
/// second record of Yellow has in front of it (2, 1; kept in `lead`) — its
/// angle-word count (3 per link), the link lengths, the 4×4 base matrix, the
/// parent's limb id and link, two words, and the name (u32 length, UTF-16).
/// Bytes after the last name are counted, not read.
/// `owner` names the object for errors.
pub fn extra_limbs(p: &[u8], owner: &str) -> Result<(Vec<ExtraLimb>, usize), EvalError> {
    let mut r = Reader { p, at: 0, owner };
    let count = r.u32("the limb count")? as usize;
    if count > MAX_EXTRA_LIMBS {
        return Err(r.err(format!("{count} extra limbs")));
    }
    let mut out = Vec::with_capacity(count);
    for k in 0..count {
        let lead = if k == 0 {
            Vec::new()
        } else {
            vec![r.u32("a limb's lead words")?, r.u32("a limb's lead words")?]
        };
        let words = r.u32("a limb's angle-word count")? as usize;
        if words == 0 || !words.is_multiple_of(3) || words / 3 > MAX_EXTRA_LINKS {
            return Err(r.err(format!(
                "extra limb {k} has {words} angle words, not 3 per link"
            )));
        }
        let lengths = (0..words / 3)
            .map(|_| r.f32("the link lengths"))
            .collect::<Result<Vec<_>, _>>()?;
        let mut m = [0.0; 16];
        for v in &mut m {
            *v = r.f32("the base matrix")?;
        }
        let base = std::array::from_fn(|i| std::array::from_fn(|j| m[i * 4 + j]));
        let parent_limb = r.u32("the parent limb")?;
        let parent_link = r.u32("the parent link")?;
        let flags = [r.u32("the limb flags")?, r.u32("the limb flags")?];
        let chars = r.u32("the name length")? as usize;
        if chars > MAX_NAME {
            return Err(r.err(format!("extra limb {k} name of {chars} characters")));
        }
        let units: Vec<u16> = r
            .bytes(2 * chars, "the limb name")?
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        out.push(ExtraLimb {
            name: String::from_utf16_lossy(&units),
            lengths,
            base,
            parent_limb,
            parent_link,
            flags,
            lead,
        });
    }
    Ok((out, p.len() - r.at))
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

    /// The layout of biped-ld35/Yellow's two ears, and damaged copies of it.
    #[test]
    fn extra_limbs_decode_and_damage_is_an_error() {
        let mut w: Vec<u8> = Vec::new();
        let u = |w: &mut Vec<u8>, v: u32| w.extend(v.to_le_bytes());
        let f = |w: &mut Vec<u8>, v: f32| w.extend(v.to_le_bytes());
        u(&mut w, 2);
        for (k, name) in ["Xtra01", "Xtra01Opp"].iter().enumerate() {
            if k == 1 {
                u(&mut w, 2);
                u(&mut w, 1);
            }
            u(&mut w, 6);
            f(&mut w, 24.5);
            f(&mut w, 20.0);
            for i in 0..16 {
                f(&mut w, if i % 5 == 0 { 1.0 } else { 0.0 });
            }
            for v in [10, 0, 0, 1, name.len() as u32] {
                u(&mut w, v);
            }
            w.extend(name.encode_utf16().flat_map(u16::to_le_bytes));
        }
        w.extend([1, 0, 0, 0, 0, 0]);
        let (limbs, trailing) = extra_limbs(&w, "t").expect("decodes");
        assert_eq!(limbs.len(), 2);
        assert_eq!(trailing, 6);
        assert_eq!(limbs[1].name, "Xtra01Opp");
        assert_eq!(limbs[1].lead, vec![2, 1]);
        assert_eq!(limbs[0].lengths, vec![24.5, 20.0]);
        assert_eq!((limbs[0].parent_limb, limbs[0].parent_link), (10, 0));
        for cut in 0..w.len() - 6 {
            assert!(extra_limbs(&w[..cut], "t").is_err(), "cut at {cut}");
        }
        let mut bad = w.clone();
        bad[4] = 7;
        let e = extra_limbs(&bad, "t").unwrap_err().to_string();
        assert!(e.contains("7 angle words") && e.contains("0x0022"), "{e}");
    }

    #[test]
    fn layers_are_the_groups_after_0x0108() {
        let g = |id| Chunk::leaf(id, vec![0u8; 4]);
        let name: Vec<u8> = [7u32.to_le_bytes().to_vec()]
            .into_iter()
            .chain("Layer 1".encode_utf16().map(|u| u.to_le_bytes().to_vec()))
            .flatten()
            .collect();
        let count = |n: u32| Chunk::leaf(LAYERS, [n.to_le_bytes(), 1u32.to_le_bytes()].concat());
        let mut chunks = vec![g(GROUP_START), g(HEIGHT), g(GROUP_END), count(2)];
        chunks.extend([g(GROUP_START), g(SPINE), g(GROUP_END)]);
        chunks.extend([g(GROUP_START), Chunk::leaf(LAYER_NAME, name), g(GROUP_END)]);
        chunks.push(g(0x0104));
        let layers = layer_groups(&chunks, "t").expect("two layers");
        assert_eq!(layers.len(), 2);
        assert_eq!(layers[0][1].id, SPINE);
        assert_eq!(layer_name(layers[1]).as_deref(), Some("Layer 1"));
        assert_eq!(layer_name(layers[0]), None);
        chunks[3] = count(3);
        let e = layer_groups(&chunks, "t").unwrap_err().to_string();
        assert!(e.contains("counts 3 layers, 2"), "{e}");
        chunks[3] = count(0);
        assert!(layer_groups(&chunks, "t").is_err());
        // Without 0x0108 the live group is the one layer.
        assert_eq!(layer_groups(&chunks[..3], "t").expect("one").len(), 1);
        // A group cut before its end is an error.
        assert!(layer_groups(&[count(1), g(GROUP_START)], "t").is_err());
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
