//! A cheap look at a `.max` container: the OLE directory, whether each stream is
//! stored gzip-compressed (its first two bytes), and the small
//! `\x05SummaryInformation` stream. Enough to list a file and size its plain
//! streams without reading or parsing the streams themselves.

use std::io::{Read, Seek};

use crate::container::{inflate, open_cfb};
use crate::error::MaxError;
use crate::sectors::{map_streams, Extents};
use crate::zstd_stream;

const GZIP_MAGIC: [u8; 2] = [0x1F, 0x8B];

/// Name of the stream that holds the summary property set (and the thumbnail).
pub const SUMMARY_INFORMATION: &str = "\u{5}SummaryInformation";
/// Name of the stream that holds the document summary property sets.
pub const DOCUMENT_SUMMARY_INFORMATION: &str = "\u{5}DocumentSummaryInformation";

/// One root stream as seen by [`peek`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeekStream {
    pub name: String,
    pub stored_len: u64,
    /// Stored gzip- or zstd-compressed: the inflated size is unknown until the stream is read.
    pub compressed: bool,
    /// Where the stored bytes lie in the file, when every sector of the stream
    /// is present and its chain is sound (see [`crate::sectors`]).
    pub extents: Option<Extents>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peek {
    pub clsid: [u8; 16],
    pub streams: Vec<PeekStream>,
    /// The `\x05SummaryInformation` stream (inflated), when the file has one.
    pub summary_information: Option<Vec<u8>>,
}

/// Reads the OLE directory, two bytes of each stream, and the summary stream.
/// A stream that cannot be read here (missing sectors of a truncated file,
/// damaged summary gzip) is listed all the same: the full read names its error.
pub fn peek<R: Read + Seek>(mut reader: R) -> Result<Peek, MaxError> {
    // The map is optional: a file it cannot read is read through the container.
    let mut map = reader
        .seek(std::io::SeekFrom::End(0))
        .ok()
        .and_then(|len| map_streams(&mut reader, len).ok())
        .unwrap_or_default();
    // The gzip magic of each mapped stream, read through its map: the
    // container reader would buffer the whole stream to hand out two bytes.
    let mut heads: std::collections::HashMap<String, [u8; 2]> = std::collections::HashMap::new();
    for (name, x) in &map {
        let mut magic = [0u8; 2];
        if x.len() >= 2 && x.read_head(&mut reader, &mut magic).is_ok() {
            heads.insert(name.clone(), magic);
        }
    }
    // Likewise the summary stream (bounded: every run lies inside the file).
    let mut summary_mapped = map
        .get(SUMMARY_INFORMATION)
        .map(|x| x.read_all(&mut reader));
    let (mut comp, past) = open_cfb(&mut reader)?;
    let clsid = comp.root_entry().clsid().to_bytes_le();
    let mut entries = Vec::new();
    for e in comp.read_root_storage() {
        if !e.is_stream() {
            return Err(MaxError::Unsupported(format!(
                "nested storage {:?}: .max files hold only root streams",
                e.name()
            )));
        }
        entries.push((e.name().to_string(), e.len()));
    }
    let mut streams = Vec::with_capacity(entries.len());
    let mut summary_information = None;
    for (name, stored_len) in entries {
        past.reset();
        let mapped = map.get(&name).is_some_and(|e| e.len() == stored_len);
        let (got, magic) = match heads.get(&name) {
            Some(m) if mapped => (true, *m),
            _ => {
                let mut magic = [0u8; 2];
                let got = match comp.open_stream(format!("/{name}")) {
                    Ok(mut s) if stored_len >= 2 => s.read_exact(&mut magic).is_ok(),
                    _ => false,
                };
                (got, magic)
            }
        };
        let zstd_base = zstd_stream::base_name(&name, &magic)
            .filter(|_| got && !past.touched())
            .map(str::to_string);
        let compressed = got && !past.touched() && (magic == GZIP_MAGIC || zstd_base.is_some());
        if name == SUMMARY_INFORMATION && stored_len <= past.real {
            past.reset();
            let data = match summary_mapped.take().filter(|_| mapped) {
                Some(d) => d,
                None => comp.open_stream(format!("/{name}")).and_then(|mut s| {
                    let mut data = Vec::with_capacity(stored_len as usize);
                    s.read_to_end(&mut data).map(|_| data)
                }),
            };
            summary_information = match data {
                Ok(d) if !past.touched() && compressed => inflate(&name, &d).ok(),
                Ok(d) if !past.touched() => Some(d),
                _ => None,
            };
        }
        // Only a map that agrees with the container reader's directory is kept.
        let extents = map.remove(&name).filter(|e| e.len() == stored_len);
        streams.push(PeekStream {
            // The name the full read gives it (a zstd stream's without its suffix).
            name: zstd_base.unwrap_or(name),
            stored_len,
            compressed,
            extents,
        });
    }
    Ok(Peek {
        clsid,
        streams,
        summary_information,
    })
}
