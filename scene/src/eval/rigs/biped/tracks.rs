//! Biped keytracks: 13 (data, time) chunk pairs on the system object (seed §11,
//! 0x012c–0x014a). The time chunk holds a header (key count first) and one
//! record per key starting with the time in ticks and carrying the key's TCB
//! parameters at words 7–9 (Max UI units, 25 = default); the data chunk holds
//! the key count, a per-track header and one value record per key.
//!
//! Two layouts occur: Max 2009 files (RabbitSkin) have 7-word time headers and
//! 4-word arm/leg data headers; Max 2013 and later (biped-ld35, SeanConway)
//! have 10-word time headers and 6-word arm/leg data headers. The layout is
//! read off the group itself: an empty time chunk is exactly a header, and a
//! multi-key time chunk divides into whole records under only one of the two.

use crate::eval::error::EvalError;
use serde::Serialize;

use crate::chunk::Chunk;

/// Words before the first key in a time chunk: (old layout, new layout).
const TIME_HEADERS: [usize; 2] = [7, 10];
/// Words the new layout adds to the arm and leg data headers.
const LIMB_HEADER_EXTRA: usize = 2;
/// The smallest time record: time, index, 5 words, tension, continuity, bias.
const TIME_RECORD_MIN: usize = 10;

/// How a track's data chunk is laid out.
#[derive(Debug, Clone, Copy)]
enum Layout {
    /// `header` words (key count first), then one record per key.
    Records { header: usize },
    /// An arm or leg: `header` words in the old layout, 2 more in the new.
    Limb { header: usize },
    /// Two banks, each a key count then `record` words per key.
    TwoBanks { record: usize },
}

/// (data chunk, time chunk, name, layout) of each keytrack.
const TRACKS: [(u16, u16, &str, Layout); 13] = [
    (0x012c, 0x012d, "horizontal", Layout::Records { header: 1 }),
    (0x012e, 0x012f, "turn", Layout::Records { header: 3 }),
    (0x0130, 0x0131, "vertical", Layout::TwoBanks { record: 13 }),
    (0x0132, 0x0133, "pelvis", Layout::Records { header: 3 }),
    (0x0134, 0x0135, "right arm", Layout::Limb { header: 4 }),
    (0x0136, 0x0137, "left arm", Layout::Limb { header: 4 }),
    (0x0138, 0x0139, "right leg", Layout::Limb { header: 4 }),
    (0x013a, 0x013b, "left leg", Layout::Limb { header: 4 }),
    (0x013c, 0x013d, "spine", Layout::Records { header: 4 }),
    (0x013e, 0x013f, "head", Layout::Records { header: 3 }),
    (0x0142, 0x0143, "tail", Layout::Records { header: 4 }),
    (0x0147, 0x0148, "ponytail 1", Layout::Records { header: 4 }),
    (0x0149, 0x014a, "ponytail 2", Layout::Records { header: 4 }),
];

/// Time record word holding the per-link keyed mask (records of more than
/// 10 words, Max 2013+ layout only). Max 2009's longer records (RabbitSkin's
/// 44-word head records) hold no mask: after word [9] come two 17-word
/// blocks of floats (−320, 0, 320, 0, 0 three times, then 5, 5 — one block
/// per sub-track, head and neck), and NeoAxis's Rabbit.skeleton (exported
/// from that file) keys the neck at every head key of its "walk" take.
const LINK_MASK: usize = 10;

/// One key of a keytrack.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Key {
    pub time: i32,
    /// Time record words \[7\], \[8\], \[9\] as stored (UI units, 25 = default):
    /// tension, then words that act as bias (never other than 25 in the
    /// corpus) and continuity (measured: `motion::key_tcb`).
    pub tcb: [f32; 3],
    /// The key's value record from the data chunk, as f32.
    pub values: Vec<f32>,
    /// Word \[10\] of a longer time record in the Max 2013+ layout (the
    /// per-link tracks: tail, ponytails, head): a bit per link keyed at this
    /// key; `None` (every link keyed) in the Max 2009 layout. biped-ld35
    /// Yellow@Spawn's tail stores 7 (links 0–2) at every key but 4320, whose
    /// 3 leaves link 2 to its neighbouring keys (its FBX puts Bip01 Tail2
    /// elsewhere than that key's stored angles, while Tail and Tail1 match).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links_keyed: Option<u32>,
}

/// One decoded keytrack.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeyTrack {
    pub name: &'static str,
    /// The extra limb (record 0x0022 index) of an "extra limb" track.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limb: Option<usize>,
    pub data_chunk: String,
    pub time_chunk: String,
    /// Words of the data chunk's header (key count included).
    pub data_header: Vec<f32>,
    /// Words per time record (10, more for tracks with per-link parameters).
    pub time_record_words: usize,
    pub keys: Vec<Key>,
}

fn words(p: &[u8]) -> Vec<u32> {
    p.chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

fn f(w: u32) -> f32 {
    f32::from_bits(w)
}

/// Every keytrack present in `group` (the live record group); `what` names the
/// system object for errors. A track missing either chunk is absent.
pub fn decode(group: &[Chunk], what: &str) -> Result<Vec<KeyTrack>, EvalError> {
    let leaf = |id: u16| group.iter().find(|c| c.id == id).and_then(Chunk::payload);
    let mut out = Vec::new();
    let Some(new_layout) = layout_of(group) else {
        if TRACKS.iter().any(|t| leaf(t.1).is_some()) || leaf(EXTRA_TIME).is_some() {
            return Err(EvalError::malformed(
                what.to_string(),
                "keytrack time chunks fit neither the 7- nor the 10-word header layout",
            ));
        }
        return Ok(out);
    };
    let time_header = TIME_HEADERS[usize::from(new_layout)];
    for (data_id, time_id, name, layout) in TRACKS {
        let (Some(data), Some(time)) = (leaf(data_id), leaf(time_id)) else {
            continue;
        };
        let at = |id: u16, msg: String| {
            EvalError::malformed(format!("{what}: {name} keys (0x{id:04x})"), msg)
        };
        if data.len() % 4 != 0 || time.len() % 4 != 0 {
            return Err(at(
                data_id,
                format!("{} / {} bytes are not whole words", data.len(), time.len()),
            ));
        }
        let (tw, dw) = (words(time), words(data));
        let count = *tw
            .first()
            .ok_or_else(|| at(time_id, "empty time chunk".into()))? as usize;
        if tw.len() < time_header {
            return Err(at(
                time_id,
                format!("{} words, header needs {time_header}", tw.len()),
            ));
        }
        let body = tw.len() - time_header;
        let rec = match (count, body) {
            (0, 0) => TIME_RECORD_MIN,
            (0, _) => return Err(at(time_id, format!("no keys but {body} words of key data"))),
            (n, b) if b % n == 0 && b / n >= TIME_RECORD_MIN => b / n,
            (n, b) => {
                return Err(at(
                    time_id,
                    format!("{b} words do not hold {n} keys of {TIME_RECORD_MIN}+ words"),
                ))
            }
        };
        let layout = match layout {
            Layout::Limb { header } if new_layout => Layout::Records {
                header: header + LIMB_HEADER_EXTRA,
            },
            Layout::Limb { header } => Layout::Records { header },
            l => l,
        };
        let (header, values) = data_values(&dw, count, layout)
            .map_err(|m| m.inside(format!("{what}: {name} keys (0x{data_id:04x})")))?;
        let keys = (0..count)
            .map(|k| {
                let r = &tw[time_header + k * rec..time_header + (k + 1) * rec];
                Key {
                    time: r[0] as i32,
                    tcb: [f(r[7]), f(r[8]), f(r[9])],
                    values: values[k].clone(),
                    links_keyed: new_layout.then(|| r.get(LINK_MASK).copied()).flatten(),
                }
            })
            .collect();
        out.push(KeyTrack {
            name,
            limb: None,
            data_chunk: format!("0x{data_id:04x}"),
            time_chunk: format!("0x{time_id:04x}"),
            data_header: header.into_iter().map(f).collect(),
            time_record_words: rec,
            keys,
        });
    }
    if let (Some(data), Some(time)) = (leaf(EXTRA_DATA), leaf(EXTRA_TIME)) {
        out.extend(extra_tracks(&words(data), &words(time), time_header, what)?);
    }
    Ok(out)
}

/// The extra limbs' keys: data and time chunks (Max 2013+, biped-ld35/Yellow).
const EXTRA_DATA: u16 = 0x015f;
const EXTRA_TIME: u16 = 0x0160;
/// Words of an extra limb's data header (key count, angle-word count, 0, 0)
/// and of its value records beyond the angle words (their count word first,
/// four words after: the layout of the figure's 0x0073 blocks).
const EXTRA_DATA_HEADER: usize = 4;
const EXTRA_RECORD_EXTRA: usize = 5;
/// More extra limbs than Biped offers: damaged data.
const MAX_EXTRA_LIMBS: usize = 64;

/// One "extra limb" keytrack per limb: both chunks start with the limb
/// count; then per limb the data chunk holds [key count, angle words n, 0,
/// 0] and one (n + 5)-word record per key (in the figure's 0x0073 block
/// layout: n, the (a1, a2, a3) of each link, four words), the time chunk a
/// header of `time_header` words (key count first) and 10-word time records.
fn extra_tracks(
    dw: &[u32],
    tw: &[u32],
    time_header: usize,
    owner: &str,
) -> Result<Vec<KeyTrack>, EvalError> {
    let bad = |m: String| {
        EvalError::malformed(
            format!("{owner}: extra limb keys (0x{EXTRA_DATA:04x}/0x{EXTRA_TIME:04x})"),
            m,
        )
    };
    let count = *dw.first().ok_or_else(|| bad("empty data chunk".into()))? as usize;
    let tcount = *tw.first().ok_or_else(|| bad("empty time chunk".into()))? as usize;
    if count != tcount || count > MAX_EXTRA_LIMBS {
        return Err(bad(format!(
            "{count} limbs in the data chunk, {tcount} in the time chunk"
        )));
    }
    let (mut d, mut t) = (1usize, 1usize);
    let mut out = Vec::with_capacity(count);
    for limb in 0..count {
        let head = dw
            .get(d..d + EXTRA_DATA_HEADER)
            .ok_or_else(|| bad(format!("data chunk ends before limb {limb}'s header")))?;
        let (keys, angles) = (head[0] as usize, head[1] as usize);
        let th = tw
            .get(t..t + time_header)
            .ok_or_else(|| bad(format!("time chunk ends before limb {limb}'s header")))?;
        if th[0] as usize != keys {
            return Err(bad(format!(
                "limb {limb}: {keys} keys in the data chunk, {} in the time chunk",
                th[0]
            )));
        }
        let rec = angles
            .checked_add(EXTRA_RECORD_EXTRA)
            .filter(|_| angles.is_multiple_of(3))
            .ok_or_else(|| bad(format!("limb {limb}: {angles} angle words")))?;
        let dlen = keys.checked_mul(rec).filter(|&n| n <= dw.len());
        let tlen = keys.checked_mul(TIME_RECORD_MIN).filter(|&n| n <= tw.len());
        let (Some(dlen), Some(tlen)) = (dlen, tlen) else {
            return Err(bad(format!("limb {limb}: {keys} keys overrun the chunks")));
        };
        let (d0, t0) = (d + EXTRA_DATA_HEADER, t + time_header);
        let (Some(data), Some(time)) = (dw.get(d0..d0 + dlen), tw.get(t0..t0 + tlen)) else {
            return Err(bad(format!("limb {limb}: {keys} keys overrun the chunks")));
        };
        let keys = data
            .chunks_exact(rec)
            .zip(time.chunks_exact(TIME_RECORD_MIN))
            .map(|(v, r)| Key {
                time: r[0] as i32,
                tcb: [f(r[7]), f(r[8]), f(r[9])],
                values: v.iter().map(|&w| f(w)).collect(),
                links_keyed: None,
            })
            .collect();
        out.push(KeyTrack {
            name: "extra limb",
            limb: Some(limb),
            data_chunk: format!("0x{EXTRA_DATA:04x}"),
            time_chunk: format!("0x{EXTRA_TIME:04x}"),
            data_header: head.iter().map(|&w| f(w)).collect(),
            time_record_words: TIME_RECORD_MIN,
            keys,
        });
        (d, t) = (d0 + dlen, t0 + tlen);
    }
    if d != dw.len() || t != tw.len() {
        return Err(bad(format!(
            "{} data and {} time words after the last limb",
            dw.len() - d,
            tw.len() - t
        )));
    }
    Ok(out)
}

/// Whether the group uses the new (10-word time header) layout: decided by
/// the first time chunk that fits exactly one of the two; None when none does.
fn layout_of(group: &[Chunk]) -> Option<bool> {
    let fits = |tw: &[u32], h: usize| -> bool {
        let Some(&count) = tw.first() else {
            return false;
        };
        let count = count as usize;
        match tw.len().checked_sub(h) {
            None => false,
            Some(0) => count == 0,
            Some(b) => count > 0 && b % count == 0 && b / count >= TIME_RECORD_MIN,
        }
    };
    TRACKS.iter().find_map(|t| {
        let tw = words(group.iter().find(|c| c.id == t.1)?.payload()?);
        match (fits(&tw, TIME_HEADERS[0]), fits(&tw, TIME_HEADERS[1])) {
            (true, false) => Some(false),
            (false, true) => Some(true),
            _ => None,
        }
    })
}

/// Splits a data chunk into its header and `count` value records.
fn data_values(
    dw: &[u32],
    count: usize,
    layout: Layout,
) -> Result<(Vec<u32>, Vec<Vec<f32>>), EvalError> {
    let stored = *dw
        .first()
        .ok_or_else(|| EvalError::malformed("", "empty data chunk"))? as usize;
    if stored != count {
        return Err(EvalError::malformed(
            "",
            format!("{stored} keys, the time chunk has {count}"),
        ));
    }
    match layout {
        Layout::Records { header } => {
            let body = dw.len().checked_sub(header).ok_or_else(|| {
                EvalError::malformed("", format!("{} words, header needs {header}", dw.len()))
            })?;
            if count == 0 {
                return Ok((dw.to_vec(), Vec::new()));
            }
            if body == 0 || body % count != 0 {
                return Err(EvalError::malformed(
                    "",
                    format!("{body} words do not split into {count} keys"),
                ));
            }
            let rec = body / count;
            let vals = dw[header..]
                .chunks_exact(rec)
                .map(|r| r.iter().map(|&w| f(w)).collect())
                .collect();
            Ok((dw[..header].to_vec(), vals))
        }
        Layout::TwoBanks { record } => {
            let bank = count
                .checked_mul(record)
                .and_then(|b| b.checked_add(1))
                .ok_or_else(|| EvalError::malformed("", "key count overflows"))?;
            if dw.len() != 2 * bank {
                return Err(EvalError::malformed(
                    "",
                    format!(
                        "{} words, two banks of {count} × {record} need {}",
                        dw.len(),
                        2 * bank
                    ),
                ));
            }
            if dw[bank] as usize != count {
                return Err(EvalError::malformed(
                    "",
                    format!("second bank holds {} keys, not {count}", dw[bank]),
                ));
            }
            let vals = (0..count)
                .map(|k| {
                    let a = &dw[1 + k * record..1 + (k + 1) * record];
                    let b = &dw[bank + 1 + k * record..bank + 1 + (k + 1) * record];
                    a.iter().chain(b).map(|&w| f(w)).collect()
                })
                .collect();
            Ok((vec![dw[0]], vals))
        }
        Layout::Limb { .. } => Err(EvalError::malformed("", "limb layout not resolved")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn time_chunk(times: &[i32]) -> Vec<u32> {
        let mut t = vec![times.len() as u32, 0, 0, 0, 0, 1, 0, 0, 0, 0];
        for (i, &tk) in times.iter().enumerate() {
            t.extend([tk as u32, i as u32, 0, 0, 0, 0, 0]);
            t.extend([25f32.to_bits(), 25f32.to_bits(), 25f32.to_bits()]);
        }
        t
    }

    #[test]
    fn horizontal_keys() {
        let mut d = vec![2u32];
        d.extend((0..20).map(|i| (i as f32).to_bits()));
        // Two 10-word records fit only the new layout's 10-word header.
        let g = vec![
            Chunk::leaf(0x012c, bytes(&d)),
            Chunk::leaf(0x012d, bytes(&time_chunk(&[0, 160]))),
        ];
        let t = decode(&g, "obj").expect("decodes");
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].keys[1].time, 160);
        assert_eq!(t[0].keys[1].values[0], 10.0);
        assert_eq!(t[0].keys[0].tcb, [25.0; 3]);
        // A count that disagrees with the time chunk is an error naming the chunk.
        d[0] = 3;
        let g2 = vec![
            Chunk::leaf(0x012c, bytes(&d)),
            Chunk::leaf(0x012d, bytes(&time_chunk(&[0, 160]))),
        ];
        let e = decode(&g2, "obj").expect_err("count mismatch");
        assert!(
            e.to_string().contains("0x012c") && e.to_string().contains("horizontal"),
            "{e}"
        );
    }

    #[test]
    fn keys_without_values_are_an_error() {
        let g = vec![
            Chunk::leaf(0x012c, bytes(&[2])),
            Chunk::leaf(0x012d, bytes(&time_chunk(&[0, 160]))),
        ];
        let e = decode(&g, "obj").expect_err("no value records");
        assert!(e.to_string().contains("0x012c"), "{e}");
    }

    /// Two extra limbs of one and two keys (biped-ld35/Yellow's layout).
    #[test]
    fn extra_limb_keys() {
        let mut d = vec![2u32];
        let mut t = vec![2u32];
        for (limb, times) in [[0].as_slice(), &[0, 2240]].iter().enumerate() {
            d.extend([times.len() as u32, 6, 0, 0]);
            let tc = time_chunk(times);
            t.extend(&tc);
            for k in 0..times.len() {
                d.push(6);
                d.extend((0..10).map(|i| ((limb * 100 + k * 10 + i) as f32).to_bits()));
            }
        }
        let tr = extra_tracks(&d, &t, 10, "obj").expect("decodes");
        assert_eq!(tr.len(), 2);
        assert_eq!(tr[1].limb, Some(1));
        assert_eq!(tr[1].keys[1].time, 2240);
        assert_eq!(tr[1].keys[1].values[1], 110.0);
        for cut in 1..d.len() {
            assert!(extra_tracks(&d[..cut], &t, 10, "obj").is_err(), "cut {cut}");
        }
        let mut bad = d.clone();
        bad[2] = 7;
        assert!(extra_tracks(&bad, &t, 10, "obj").is_err());
    }

    #[test]
    fn damaged_counts_never_panic() {
        for count in [0u32, 1, 7, u32::MAX] {
            let mut t = time_chunk(&[0]);
            t[0] = count;
            let mut v = vec![count];
            v.extend([0u32; 26]);
            for id in [0x012c, 0x0130] {
                let g = vec![Chunk::leaf(id, bytes(&v)), Chunk::leaf(id + 1, bytes(&t))];
                let _ = decode(&g, "obj");
            }
        }
    }
}
