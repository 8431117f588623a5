//! The Biped Object (class (0x9125, 0), superclass 0x10, biped.dlc): the
//! body part Character Studio draws for every node of a Biped (the blue
//! figure of the viewport), the COM and the footsteps node included.
//!
//! The object keeps no mesh in the file. Its own chunks (measured on the
//! eleven corpus and public rigs of Max 2009 to 2018/2019, docs/biped.md
//! "Biped Object geometry (session 30)"):
//! - 0x2602, 24 bytes: two floats whose meaning depends on the part (0.3, 0.3
//!   on a pelvis, 0.1, 0.4 on a classic hand, 8, 8 on the COM, stale bits on
//!   parts that do not use them), a zero float, then three u32: the **part
//!   shape** (4 COM, 10 footsteps, 1 head, 9 spine link, 11 foot, 15/16 thigh,
//!   17/18 calf, 19/20 upper arm, 21/22 forearm, 30 toe, 3 finger, 14 or 25
//!   pelvis, 0 a plain part …), the link's index in its chain and the
//!   chain's link count;
//! - 0x2603, u32: the body type, equal on every corpus node to its rig's
//!   system-object word 0x0115 (0 Skeleton, 1 Male, 2 Female, 3 Classic).
//!
//! Max builds the vertices from those words, the body type and the node's
//! object-offset scale inside the plug-in; no public source states that
//! construction and no export in the corpus or the sweeps holds one (FBX
//! writes Biped nodes as skeleton bones). The part is therefore refused,
//! naming its body type, never replaced by a guessed box.

use crate::chunk::Chunk;
use crate::eval::core::keys::Words;
use crate::eval::error::EvalError;
use crate::typed::ClassId;

pub const BIPED_OBJECT: ClassId = ClassId(0x9125, 0);

/// The part record: two floats, a zero float, shape, link, link count.
const PART: u16 = 0x2602;
/// The body type word.
const BODY_TYPE: u16 = 0x2603;
/// Size of the part record in every measured file.
const PART_SIZE: usize = 24;

/// What a Biped Object stores about its body part.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Part {
    /// The part shape the plug-in draws (0x2602 word \[3\]).
    pub shape: u32,
    /// The link's index in its chain and the chain's link count (words \[4\], \[5\]).
    pub link: u32,
    pub links: u32,
    /// The two leading floats, as stored (meaningful for some shapes only).
    pub params: [f64; 2],
    /// The body type (0x2603), when stored.
    pub body_type: Option<u32>,
}

/// The part a Biped Object's chunks describe; None when the part record is
/// absent or not of the measured size (its body type is then unknown too).
pub fn part(chunks: &[Chunk]) -> Option<Part> {
    let find = |id: u16| chunks.iter().rev().find(|c| c.id == id);
    let p = find(PART).and_then(Chunk::payload)?;
    if p.len() != PART_SIZE {
        return None;
    }
    let w = Words(p);
    let body_type = find(BODY_TYPE)
        .and_then(Chunk::payload)
        .filter(|b| b.len() == 4)
        .map(|b| Words(b).u32(0));
    Some(Part {
        shape: w.u32(3),
        link: w.u32(4),
        links: w.u32(5),
        params: [w.f(0), w.f(1)],
        body_type,
    })
}

/// The name Character Studio gives a body type word.
pub fn body_type_name(word: u32) -> Option<&'static str> {
    match word {
        0 => Some("Skeleton"),
        1 => Some("Male"),
        2 => Some("Female"),
        3 => Some("Classic"),
        _ => None,
    }
}

/// The Biped Object's mesh: refused, naming the body type (one refusal per
/// body type, so a rig's parts share one line of coverage).
pub fn eval(chunks: &[Chunk]) -> EvalError {
    let body = match part(chunks).and_then(|p| p.body_type) {
        Some(w) => match body_type_name(w) {
            Some(name) => format!("body type {w} ({name})"),
            None => format!("body type {w} (not a known body type)"),
        },
        None => "a body type not stored".to_string(),
    };
    EvalError::not_evaluated_why(
        format!("Biped body part of {body}"),
        "its mesh is built inside the plug-in and no reference export holds one",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(id: u16, data: Vec<u8>) -> Chunk {
        Chunk::leaf(id, data)
    }

    fn record(floats: [f32; 3], words: [u32; 3]) -> Vec<u8> {
        let mut v = Vec::new();
        for f in floats {
            v.extend_from_slice(&f.to_le_bytes());
        }
        for w in words {
            v.extend_from_slice(&w.to_le_bytes());
        }
        v
    }

    #[test]
    fn the_part_record_and_body_type_are_read() {
        // Player.max's Bip01 Pelvis: (0.3, 0.3, 0, 14, 1, 1), body type 3.
        let chunks = vec![
            leaf(PART, record([0.3, 0.3, 0.0], [14, 1, 1])),
            leaf(BODY_TYPE, 3u32.to_le_bytes().to_vec()),
        ];
        let p = part(&chunks).expect("part");
        assert_eq!((p.shape, p.link, p.links, p.body_type), (14, 1, 1, Some(3)));
        assert!((p.params[0] - 0.3).abs() < 1e-7);
        let e = eval(&chunks).to_string();
        assert!(e.contains("body type 3 (Classic)"), "{e}");
        assert_eq!(e.split(" is not evaluated").count(), 2, "{e}");
    }

    #[test]
    fn damaged_or_missing_records_are_still_refused_by_name() {
        let short = vec![leaf(PART, vec![1, 2, 3])];
        assert_eq!(part(&short), None);
        assert!(eval(&short).to_string().contains("a body type not stored"));
        let odd = vec![
            leaf(PART, record([0.0; 3], [9, 0, 3])),
            leaf(BODY_TYPE, 7u32.to_le_bytes().to_vec()),
        ];
        assert!(eval(&odd).to_string().contains("body type 7 (not a known"));
        assert!(eval(&[]).to_string().contains("not evaluated"));
    }
}
