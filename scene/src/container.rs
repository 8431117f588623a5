//! The OLE compound-file envelope of a `.max`: root streams, the root CLSID, and
//! the gzip layer of files saved with "compress on save".

use std::io::{Cursor, Read, Seek, Write};

use crate::error::{MaxError, NotCompoundKind};

const OLE_MAGIC: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
const GZIP_MAGIC: [u8; 2] = [0x1F, 0x8B];

/// Inflated streams may not grow beyond this multiple of their stored size (plus
/// a floor): real Max streams compress 3–20×, a bomb compresses far more.
const INFLATE_RATIO_CAP: u64 = 64;
const INFLATE_FLOOR: u64 = 16 << 20;

/// One root-level stream, as the application sees it (inflated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stream {
    pub name: String,
    pub data: Vec<u8>,
    /// Stored gzip-compressed; written back compressed.
    pub compressed: bool,
    /// Size as stored in the container (before inflating).
    pub stored_len: u64,
}

/// The streams and class id of a compound file; nested storages are not used by Max.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaxFile {
    pub clsid: [u8; 16],
    pub streams: Vec<Stream>,
}

/// A root directory entry, listed without reading stream contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamInfo {
    pub name: String,
    pub stored_len: u64,
}

/// Names what a non-compound file is, from its first bytes.
pub fn sniff(head: &[u8]) -> Option<NotCompoundKind> {
    if head.starts_with(&OLE_MAGIC) {
        return None;
    }
    if head.is_empty() {
        return Some(NotCompoundKind::Empty);
    }
    if head.starts_with(b"version https://git-lfs") {
        return Some(NotCompoundKind::GitLfsPointer);
    }
    if head.starts_with(&GZIP_MAGIC) {
        return Some(NotCompoundKind::Gzip);
    }
    let text = head
        .iter()
        .take(512)
        .all(|&b| b == b'\n' || b == b'\r' || b == b'\t' || (0x20..0x7f).contains(&b));
    Some(if text {
        NotCompoundKind::Text
    } else {
        NotCompoundKind::Other
    })
}

fn container_err(e: std::io::Error) -> MaxError {
    MaxError::Container(e.to_string())
}

fn open_cfb<R: Read + Seek>(mut reader: R) -> Result<cfb::CompoundFile<R>, MaxError> {
    let mut head = [0u8; 512];
    let n = read_up_to(&mut reader, &mut head).map_err(container_err)?;
    if let Some(kind) = sniff(&head[..n]) {
        return Err(MaxError::NotCompound(kind));
    }
    reader.rewind().map_err(container_err)?;
    cfb::CompoundFile::open(reader).map_err(container_err)
}

fn read_up_to<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

fn root_streams<R: Read + Seek>(comp: &cfb::CompoundFile<R>) -> Result<Vec<StreamInfo>, MaxError> {
    let mut out = Vec::new();
    let entries = comp.read_root_storage();
    for e in entries {
        if e.is_stream() {
            out.push(StreamInfo {
                name: e.name().to_string(),
                stored_len: e.len(),
            });
        } else {
            return Err(MaxError::Unsupported(format!(
                "nested storage {:?}: .max files hold only root streams",
                e.name()
            )));
        }
    }
    Ok(out)
}

/// Lists the root streams and the class id, reading only the OLE directory.
pub fn list_streams<R: Read + Seek>(reader: R) -> Result<([u8; 16], Vec<StreamInfo>), MaxError> {
    let comp = open_cfb(reader)?;
    let clsid = comp.root_entry().clsid().to_bytes_le();
    Ok((clsid, root_streams(&comp)?))
}

/// Inflates a gzip stream, refusing output beyond the ratio cap.
pub fn inflate(name: &str, stored: &[u8]) -> Result<Vec<u8>, MaxError> {
    let cap = INFLATE_FLOOR.max((stored.len() as u64).saturating_mul(INFLATE_RATIO_CAP));
    let mut out = Vec::new();
    let mut dec = flate2::read::MultiGzDecoder::new(stored).take(cap + 1);
    dec.read_to_end(&mut out).map_err(|e| MaxError::Stream {
        stream: name.to_string(),
        what: format!("gzip data is damaged: {e}"),
    })?;
    if out.len() as u64 > cap {
        return Err(MaxError::Stream {
            stream: name.to_string(),
            what: format!("gzip data inflates beyond {cap} bytes"),
        });
    }
    Ok(out)
}

/// Reads one stream's stored bytes, inflating when it is gzip.
fn read_stream<R: Read + Seek>(
    comp: &mut cfb::CompoundFile<R>,
    info: &StreamInfo,
    file_len: u64,
) -> Result<Stream, MaxError> {
    // A stream cannot hold more bytes than the file; a larger size field is damage.
    if info.stored_len > file_len {
        return Err(MaxError::Stream {
            stream: info.name.clone(),
            what: format!(
                "directory says {} bytes but the file has only {file_len}",
                info.stored_len
            ),
        });
    }
    let mut s = comp
        .open_stream(format!("/{}", info.name))
        .map_err(|e| MaxError::Stream {
            stream: info.name.clone(),
            what: e.to_string(),
        })?;
    let mut stored = Vec::with_capacity(info.stored_len as usize);
    s.read_to_end(&mut stored).map_err(|e| MaxError::Stream {
        stream: info.name.clone(),
        what: e.to_string(),
    })?;
    let stored_len = stored.len() as u64;
    if stored.starts_with(&GZIP_MAGIC) {
        let data = inflate(&info.name, &stored)?;
        Ok(Stream {
            name: info.name.clone(),
            data,
            compressed: true,
            stored_len,
        })
    } else {
        Ok(Stream {
            name: info.name.clone(),
            data: stored,
            compressed: false,
            stored_len,
        })
    }
}

impl MaxFile {
    /// Reads every root stream of a compound file held in memory.
    pub fn from_bytes(bytes: &[u8]) -> Result<MaxFile, MaxError> {
        Self::from_reader(Cursor::new(bytes))
    }

    pub fn from_reader<R: Read + Seek>(mut reader: R) -> Result<MaxFile, MaxError> {
        let file_len = reader
            .seek(std::io::SeekFrom::End(0))
            .map_err(container_err)?;
        reader.rewind().map_err(container_err)?;
        let mut comp = open_cfb(reader)?;
        let clsid = comp.root_entry().clsid().to_bytes_le();
        let infos = root_streams(&comp)?;
        let mut streams = Vec::with_capacity(infos.len());
        for info in &infos {
            streams.push(read_stream(&mut comp, info, file_len)?);
        }
        Ok(MaxFile { clsid, streams })
    }

    pub fn open(path: &std::path::Path) -> Result<MaxFile, MaxError> {
        let bytes = std::fs::read(path).map_err(|source| MaxError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_bytes(&bytes)
    }

    pub fn stream(&self, name: &str) -> Option<&Stream> {
        self.streams.iter().find(|s| s.name == name)
    }

    /// Writes a compound file holding these streams and class id; streams that were
    /// stored compressed are gzip-compressed again.
    pub fn write<W: Read + Write + Seek>(&self, writer: W) -> std::io::Result<W> {
        let mut comp = cfb::CompoundFile::create(writer)?;
        comp.set_storage_clsid("/", uuid_from_bytes(self.clsid))?;
        for s in &self.streams {
            let mut out = comp.create_stream(format!("/{}", s.name))?;
            if s.compressed {
                let mut enc = flate2::write::GzEncoder::new(out, flate2::Compression::default());
                enc.write_all(&s.data)?;
                enc.finish()?.flush()?;
            } else {
                out.write_all(&s.data)?;
                out.flush()?;
            }
        }
        comp.flush()?;
        Ok(comp.into_inner())
    }

    pub fn to_bytes(&self) -> std::io::Result<Vec<u8>> {
        Ok(self.write(Cursor::new(Vec::new()))?.into_inner())
    }
}

fn uuid_from_bytes(b: [u8; 16]) -> uuid::Uuid {
    // The CLSID is stored as a little-endian GUID; cfb's Uuid is the RFC byte order.
    uuid::Uuid::from_bytes_le(b)
}
