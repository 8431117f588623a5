//! A cheap look at a `.max` container: the OLE directory, whether each stream is
//! stored gzip-compressed (its first two bytes), and the small
//! `\x05SummaryInformation` stream. Enough to list a file and size its plain
//! streams without reading or parsing the streams themselves.

use std::io::{Read, Seek};

use crate::container::{inflate, sniff};
use crate::error::MaxError;

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
    /// Stored gzip-compressed: the inflated size is unknown until the stream is read.
    pub compressed: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peek {
    pub clsid: [u8; 16],
    pub streams: Vec<PeekStream>,
    /// The `\x05SummaryInformation` stream (inflated), when the file has one.
    pub summary_information: Option<Vec<u8>>,
}

fn container_err(e: std::io::Error) -> MaxError {
    MaxError::Container(e.to_string())
}

fn stream_err(name: &str, e: std::io::Error) -> MaxError {
    MaxError::Stream {
        stream: name.to_string(),
        what: e.to_string(),
    }
}

/// Reads the OLE directory, two bytes of each stream, and the summary stream.
pub fn peek<R: Read + Seek>(mut reader: R) -> Result<Peek, MaxError> {
    let mut head = [0u8; 8];
    let mut n = 0;
    while n < head.len() {
        match reader.read(&mut head[n..]).map_err(container_err)? {
            0 => break,
            k => n += k,
        }
    }
    if let Some(kind) = sniff(&head[..n]) {
        return Err(MaxError::NotCompound(kind));
    }
    reader.rewind().map_err(container_err)?;
    let mut comp = cfb::CompoundFile::open(reader).map_err(container_err)?;
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
        let mut s = comp
            .open_stream(format!("/{name}"))
            .map_err(|e| stream_err(&name, e))?;
        let mut magic = [0u8; 2];
        let got = if stored_len >= 2 {
            s.read_exact(&mut magic).map_err(|e| stream_err(&name, e))?;
            2
        } else {
            0
        };
        let compressed = got == 2 && magic == GZIP_MAGIC;
        if name == SUMMARY_INFORMATION {
            s.rewind().map_err(|e| stream_err(&name, e))?;
            let mut data = Vec::with_capacity(stored_len.min(1 << 24) as usize);
            s.read_to_end(&mut data).map_err(|e| stream_err(&name, e))?;
            summary_information = Some(if compressed {
                inflate(&name, &data)?
            } else {
                data
            });
        }
        streams.push(PeekStream {
            name,
            stored_len,
            compressed,
        });
    }
    Ok(Peek {
        clsid,
        streams,
        summary_information,
    })
}
