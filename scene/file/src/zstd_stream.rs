//! The zstd layer of files saved compressed by 3ds Max 2023 (the version seen): each
//! compressed root stream is stored as `<name>_Compressed` holding two 0xFF
//! bytes and one zstd frame (the older gzip layer keeps the stream's name).
//! Measured on five public Max 2023 files (docs/unseen-files.md, eighth sweep):
//! every stream but the summary property sets, `SaveConfigData` and
//! `FileAssetMetaData3` is stored so, and inflates to the usual chunk tree.

use crate::error::MaxError;

/// What Max appends to a stream's name when it stores the stream as zstd.
pub const SUFFIX: &str = "_Compressed";
/// What precedes the zstd frame in such a stream.
pub const PREFIX: [u8; 2] = [0xFF, 0xFF];
const FRAME_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Whether a stream's only top chunk `id` is the container Max 2023's zstd
/// saves wrap a directory or Config stream's entries in (0x2203
/// DllDirectory, 0x2204 ClassDirectory3, 0x2205 ClassData, 0x2206 Config);
/// every reader of those entries looks inside it.
pub fn is_entry_wrapper(id: u16) -> bool {
    (0x2200..=0x22ff).contains(&id)
}

/// The stream's own name when `name` and its first bytes `head` mark a zstd
/// stream (the frame's magic is checked when the stream is inflated).
pub fn base_name<'a>(name: &'a str, head: &[u8]) -> Option<&'a str> {
    let base = name.strip_suffix(SUFFIX)?;
    (!base.is_empty() && head.starts_with(&PREFIX)).then_some(base)
}

/// Inflates a zstd stream's stored bytes (prefix included), refusing output
/// beyond `cap`; `budget` names the file's budget when it is the limit.
pub fn inflate_capped(
    name: &str,
    stored: &[u8],
    cap: u64,
    budget: Option<&str>,
) -> Result<Vec<u8>, MaxError> {
    let err = |what: String| MaxError::Stream {
        stream: name.to_string(),
        what,
    };
    let frame = stored
        .strip_prefix(&PREFIX)
        .filter(|f| f.starts_with(&FRAME_MAGIC))
        .ok_or_else(|| {
            let head: Vec<String> = stored.iter().take(6).map(|b| format!("{b:02x}")).collect();
            err(format!(
                "stored as {SUFFIX} but not two 0xff bytes and a zstd frame (first bytes {})",
                head.join(" ")
            ))
        })?;
    let mut source = frame;
    let dec = ruzstd::decoding::StreamingDecoder::new(&mut source)
        .map_err(|e| err(format!("zstd frame header is damaged: {e}")))?;
    let out = crate::container::read_capped(name, "zstd", dec, cap, budget)?;
    if !source.is_empty() {
        // One frame is all Max writes; bytes after it would be lost on rewrite.
        return Err(err(format!("{} bytes follow the zstd frame", source.len())));
    }
    Ok(out)
}

/// Max writes a zstd stream's root chunk before it knows its size: the header
/// holds a marker instead, 0xFFFFFFFF in a 6-byte header or 1 then eight 0xFF
/// bytes in a 14-byte one (all 35 streams of the five files measured, and only
/// their single root chunk). Replaces the marker with the size the root spans
/// (the rest of the stream, as a container), the header keeping its width, so
/// the chunk layer reads the usual tree; false when there is no marker.
pub fn close_root(data: &mut [u8]) -> bool {
    let len = data.len() as u64;
    if data.len() >= 14 && data[2..6] == [1, 0, 0, 0] && data[6..14] == [0xFF; 8] {
        data[2..6].copy_from_slice(&0u32.to_le_bytes());
        data[6..14].copy_from_slice(&(len | 1 << 63).to_le_bytes());
        return true;
    }
    if data.len() >= 6 && data[2..6] == [0xFF; 4] && len <= 0x7FFF_FFFF {
        data[2..6].copy_from_slice(&(len as u32 | 1 << 31).to_le_bytes());
        return true;
    }
    false
}

/// Puts back the marker [`close_root`] replaced.
fn reopen_root(data: &mut [u8]) {
    if data.len() >= 14 && data[2..6] == [0, 0, 0, 0] {
        data[2..6].copy_from_slice(&1u32.to_le_bytes());
        data[6..14].copy_from_slice(&[0xFF; 8]);
    } else if data.len() >= 6 {
        data[2..6].copy_from_slice(&[0xFF; 4]);
    }
}

/// The stored form of `data`: the prefix and one zstd frame; `open_root` puts
/// back Max's size marker in the root chunk's header.
pub fn deflate(data: &[u8], open_root: bool) -> Vec<u8> {
    let mut plain = data.to_vec();
    if open_root {
        reopen_root(&mut plain);
    }
    let mut out = PREFIX.to_vec();
    ruzstd::encoding::compress(
        &plain[..],
        &mut out,
        ruzstd::encoding::CompressionLevel::Fastest,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_round_trips_through_its_stored_form() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let stored = deflate(&data, false);
        assert_eq!(base_name("Scene_Compressed", &stored), Some("Scene"));
        assert_eq!(
            inflate_capped("Scene", &stored, 1 << 20, None).unwrap(),
            data
        );
    }

    #[test]
    fn the_container_reads_writes_and_peeks_a_zstd_stream_under_its_own_name() {
        use crate::container::{MaxFile, Stream};
        let scene: Vec<u8> = (0..50_000u32).map(|i| (i % 13) as u8).collect();
        let file = MaxFile {
            clsid: [0; 16],
            streams: vec![Stream {
                name: "Scene".into(),
                stored_len: 0,
                data: scene.clone().into(),
                compressed: true,
                zstd: true,
                open_root: false,
                error: None,
            }],
        };
        let bytes = file.to_bytes().unwrap();
        let back = MaxFile::from_bytes(&bytes).unwrap();
        let s = back.stream("Scene").expect("read under its own name");
        assert_eq!(
            (s.compressed, s.zstd, &s.data[..]),
            (true, true, &scene[..])
        );
        let peeked = crate::peek::peek(std::io::Cursor::new(&bytes)).unwrap();
        let names: Vec<_> = peeked
            .streams
            .iter()
            .map(|p| (p.name.as_str(), p.compressed))
            .collect();
        assert_eq!(names, [("Scene", true)]);
    }

    #[test]
    fn the_root_size_marker_is_closed_and_put_back() {
        // Max's forms: a 6-byte header (ClassDirectory3 …) and a 14-byte one (Scene).
        let narrow = [
            &[0x04, 0x22, 0xff, 0xff, 0xff, 0xff][..],
            &[0x40, 0x20, 6, 0, 0, 0],
        ]
        .concat();
        let wide = [
            &[0x28, 0x20, 1, 0, 0, 0][..],
            &[0xff; 8],
            &[0x00, 0x00, 6, 0, 0, 0],
        ]
        .concat();
        for stored in [narrow, wide] {
            let mut data = stored.clone();
            assert!(close_root(&mut data));
            let tree = crate::chunk::parse(&data).expect("a chunk tree");
            assert_eq!((tree.len(), tree[0].children().len()), (1, 1));
            assert!(!close_root(&mut data.clone()), "closed once");
            let back = inflate_capped("s", &deflate(&data, true), 1 << 20, None).unwrap();
            assert_eq!(back, stored);
        }
    }

    #[test]
    fn only_the_suffix_and_prefix_together_mark_a_zstd_stream() {
        assert_eq!(base_name("Scene", &[0xff, 0xff]), None);
        assert_eq!(base_name("Scene_Compressed", &[0x1f, 0x8b]), None);
        assert_eq!(base_name("_Compressed", &[0xff, 0xff]), None);
    }

    #[test]
    fn damage_and_bombs_are_named() {
        let stored = deflate(&vec![7u8; 1 << 16], false);
        let over = inflate_capped("Scene", &stored, 1000, None).unwrap_err();
        assert!(
            over.to_string().contains("inflates beyond 1000 bytes"),
            "{over}"
        );
        let mut trailing = stored.clone();
        trailing.extend_from_slice(b"xyz");
        let t = inflate_capped("Scene", &trailing, 1 << 20, None).unwrap_err();
        assert!(
            t.to_string().contains("3 bytes follow the zstd frame"),
            "{t}"
        );
        let bad = inflate_capped("Scene", &[0xff, 0xff, 1, 2, 3, 4], 1 << 20, None).unwrap_err();
        assert!(
            bad.to_string()
                .contains("not two 0xff bytes and a zstd frame"),
            "{bad}"
        );
        let mut cut = stored;
        cut.truncate(cut.len() / 2);
        assert!(inflate_capped("Scene", &cut, 1 << 20, None).is_err());
    }
}
