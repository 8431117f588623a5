//! The OLE compound-file envelope of a `.max`: root streams, the root CLSID, and
//! the gzip (or, from Max 2023, zstd) layer of files saved with "compress on save".

use std::io::{Cursor, Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::{MaxError, NotCompoundKind};
use crate::zstd_stream;

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
    /// Shared: the chunk trees of the document and every reader of the stream
    /// borrow these bytes instead of copying them.
    pub data: bytes::Bytes,
    /// Stored gzip-compressed; written back compressed.
    pub compressed: bool,
    /// Stored as `<name>_Compressed`, two 0xFF bytes and a zstd frame (Max
    /// 2023 and later, [`crate::zstd_stream`]); `compressed` is set too.
    pub zstd: bool,
    /// A zstd stream whose root chunk header held Max's size marker
    /// ([`crate::zstd_stream::close_root`]): `data` holds the size, writing
    /// puts the marker back.
    pub open_root: bool,
    /// Size as stored in the container (before inflating).
    pub stored_len: u64,
    /// Why this stream could not be read (its sectors lie past the end of a
    /// truncated file, its gzip data is damaged or over a limit); `data` is
    /// then empty. The other streams of the file are read all the same.
    pub error: Option<String>,
}

/// Limits on the bytes one file may inflate (its gzip streams together), so a
/// small hostile file (many gzip bombs under the per-stream cap) cannot make
/// a reader allocate without bound. The budget of a file is
/// `min(max, max(floor, ratio × file size))`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InflateLimits {
    pub ratio: u64,
    pub floor: u64,
    pub max: u64,
}

impl Default for InflateLimits {
    /// 64 × the file size, at least 64 MiB, at most 1 GiB: real compressed
    /// files inflate 3–20× (the corpus's largest, 5×).
    fn default() -> Self {
        InflateLimits {
            ratio: 64,
            floor: 64 << 20,
            max: 1 << 30,
        }
    }
}

impl InflateLimits {
    /// The inflate budget of a file of `file_len` bytes.
    pub fn budget(&self, file_len: u64) -> u64 {
        file_len
            .saturating_mul(self.ratio)
            .max(self.floor)
            .min(self.max)
    }

    fn describe(&self, file_len: u64) -> String {
        format!(
            "{} bytes (the file's decompression budget: {} × its {} bytes, at least {}, at most {})",
            self.budget(file_len),
            self.ratio,
            file_len,
            self.floor,
            self.max
        )
    }
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

/// A reader over a compound file that may be truncated: reads past its real
/// end return zeros up to `padded` and raise `past_end`, so the directory can
/// be read and every stream whose sectors are all present still served.
pub(crate) struct Tail<R> {
    inner: R,
    real: u64,
    padded: u64,
    pos: u64,
    /// Where `inner` stands, when known (saves a seek per sequential read).
    at: Option<u64>,
    past_end: Arc<AtomicBool>,
}

impl<R: Read + Seek> Read for Tail<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pos >= self.real {
            let n = (self.padded.saturating_sub(self.pos)).min(buf.len() as u64) as usize;
            if n > 0 {
                self.past_end.store(true, Ordering::Relaxed);
                buf[..n].fill(0);
                self.pos += n as u64;
            }
            return Ok(n);
        }
        let want = (self.real - self.pos).min(buf.len() as u64) as usize;
        if self.at != Some(self.pos) {
            self.at = None;
            self.inner.seek(SeekFrom::Start(self.pos))?;
        }
        let n = self.inner.read(&mut buf[..want])?;
        self.pos += n as u64;
        self.at = Some(self.pos);
        Ok(n)
    }
}

impl<R: Read + Seek> Seek for Tail<R> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        let pos = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.padded.checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = pos.ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek out of range")
        })?;
        Ok(self.pos)
    }
}

/// Whether reads went past the real end of a truncated file since the last reset.
#[derive(Clone)]
pub(crate) struct PastEnd {
    flag: Arc<AtomicBool>,
    /// The real length of the file, and the length it claims (equal when whole).
    pub real: u64,
    pub claimed: u64,
}

impl PastEnd {
    pub fn reset(&self) {
        self.flag.store(false, Ordering::Relaxed);
    }
    pub fn touched(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
    /// The error of a stream that needed missing sectors.
    pub fn missing(&self) -> String {
        format!(
            "its sectors lie past the end of the file (truncated: {} of {} bytes)",
            self.real, self.claimed
        )
    }
}

/// The length a compound file needs: the header sector plus every sector up
/// to the last one its FAT marks as used. None when the header or a FAT sector
/// is unusable or missing (then nothing can be served from a truncated file).
/// FAT sectors listed beyond the header's 109 (a DIFAT chain, files over
/// 7 MiB with 512-byte sectors) are not followed.
fn claimed_len<R: Read + Seek>(reader: &mut R, head: &[u8], real: u64) -> Option<u64> {
    let u32_at = |b: &[u8], at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
    };
    let shift = u16::from_le_bytes(head.get(0x1E..0x20)?.try_into().ok()?);
    if shift != 9 && shift != 12 {
        return None;
    }
    let sector = 1u64 << shift;
    let fat_sectors = u32_at(head, 0x2C)? as usize;
    if fat_sectors == 0 || fat_sectors > 109 {
        return None;
    }
    let mut buf = vec![0u8; sector as usize];
    let mut last_used = None;
    for k in 0..fat_sectors {
        let id = u64::from(u32_at(head, 0x4C + 4 * k)?);
        let at = (id + 1).checked_mul(sector)?;
        if at.checked_add(sector)? > real {
            return None;
        }
        reader.seek(SeekFrom::Start(at)).ok()?;
        reader.read_exact(&mut buf).ok()?;
        for (j, e) in buf.chunks_exact(4).enumerate() {
            if e != [0xFF; 4] {
                last_used = Some(k as u64 * (sector / 4) + j as u64);
            }
        }
    }
    last_used?.checked_add(2)?.checked_mul(sector)
}

/// Opens the compound file; a truncated one is opened as if padded with zeros
/// to the length its header claims (at most twice its real length), provided
/// the header, FAT and directory are all within the bytes present.
pub(crate) fn open_cfb<R: Read + Seek>(
    reader: &mut R,
) -> Result<(cfb::CompoundFile<Tail<&mut R>>, PastEnd), MaxError> {
    let real = reader.seek(SeekFrom::End(0)).map_err(container_err)?;
    reader.rewind().map_err(container_err)?;
    let mut head = [0u8; 512];
    let n = read_up_to(reader, &mut head).map_err(container_err)?;
    if let Some(kind) = sniff(&head[..n]) {
        return Err(MaxError::NotCompound(kind));
    }
    let past = |claimed| PastEnd {
        flag: Arc::new(AtomicBool::new(false)),
        real,
        claimed,
    };
    let probe = past(real);
    // (A first open decides whether the file is whole; the borrow checker
    // wants the reader back before the open that is kept.)
    let err = match cfb::CompoundFile::open(Tail {
        inner: &mut *reader,
        real,
        padded: real,
        pos: 0,
        at: None,
        past_end: probe.flag.clone(),
    }) {
        Ok(_) => None,
        Err(e) => Some(container_err(e)),
    };
    let claimed = match err {
        None => real,
        Some(e) => match claimed_len(reader, &head[..n], real) {
            Some(c) if c > real => c,
            _ => return Err(e),
        },
    };
    let past = past(claimed);
    let comp = cfb::CompoundFile::open(Tail {
        inner: reader,
        real,
        padded: claimed,
        pos: 0,
        at: None,
        past_end: past.flag.clone(),
    })
    .map_err(container_err)?;
    // The FAT and directory must be whole: only stream sectors may be missing.
    if past.touched() {
        return Err(MaxError::Container(format!(
            "the file is truncated ({real} of {claimed} bytes) inside its sector tables"
        )));
    }
    Ok((comp, past))
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
pub fn list_streams<R: Read + Seek>(
    mut reader: R,
) -> Result<([u8; 16], Vec<StreamInfo>), MaxError> {
    let (comp, _) = open_cfb(&mut reader)?;
    let clsid = comp.root_entry().clsid().to_bytes_le();
    Ok((clsid, root_streams(&comp)?))
}

/// The per-stream cap of a gzip stream of `stored` bytes.
fn stream_cap(stored: usize) -> u64 {
    INFLATE_FLOOR.max((stored as u64).saturating_mul(INFLATE_RATIO_CAP))
}

/// Inflates a gzip stream, refusing output beyond the ratio cap.
pub fn inflate(name: &str, stored: &[u8]) -> Result<Vec<u8>, MaxError> {
    inflate_capped(name, stored, stream_cap(stored.len()), None)
}

/// Inflates at most `cap` bytes; `budget` names the file's budget when it,
/// rather than the per-stream cap, is the limit.
fn inflate_capped(
    name: &str,
    stored: &[u8],
    cap: u64,
    budget: Option<&str>,
) -> Result<Vec<u8>, MaxError> {
    read_capped(
        name,
        "gzip",
        flate2::read::MultiGzDecoder::new(stored),
        cap,
        budget,
    )
}

/// Reads a decoder's output, refusing more than `cap` bytes; `budget` names
/// the file's budget when it is the limit, `kind` the compression.
pub(crate) fn read_capped(
    name: &str,
    kind: &str,
    decoder: impl Read,
    cap: u64,
    budget: Option<&str>,
) -> Result<Vec<u8>, MaxError> {
    let err = |what: String| MaxError::Stream {
        stream: name.to_string(),
        what,
    };
    let mut out = Vec::new();
    decoder
        .take(cap.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| err(format!("{kind} data is damaged: {e}")))?;
    if out.len() as u64 > cap {
        return Err(err(match budget {
            Some(b) => format!("{kind} data inflates beyond what is left of {b}"),
            None => format!("{kind} data inflates beyond {cap} bytes"),
        }));
    }
    Ok(out)
}

/// What is left of a file's inflate budget while its streams are read.
struct Budget {
    left: u64,
    what: String,
}

fn stream_error(name: &str, e: impl std::fmt::Display) -> MaxError {
    MaxError::Stream {
        stream: name.to_string(),
        what: e.to_string(),
    }
}

/// Reads one stream's stored bytes, inflating when it is gzip.
fn read_stream<R: Read + Seek>(
    comp: &mut cfb::CompoundFile<R>,
    info: &StreamInfo,
    past: &PastEnd,
    budget: &mut Budget,
) -> Result<Stream, MaxError> {
    // A stream cannot hold more bytes than the file; a larger size field is damage.
    if info.stored_len > past.claimed {
        return Err(stream_error(
            &info.name,
            format!(
                "directory says {} bytes but the file has only {}",
                info.stored_len, past.claimed
            ),
        ));
    }
    past.reset();
    let mut s = comp
        .open_stream(format!("/{}", info.name))
        .map_err(|e| stream_error(&info.name, e))?;
    let mut stored = Vec::with_capacity(info.stored_len.min(past.real) as usize);
    s.read_to_end(&mut stored)
        .map_err(|e| stream_error(&info.name, e))?;
    if past.touched() {
        return Err(stream_error(&info.name, past.missing()));
    }
    let stored_len = stored.len() as u64;
    // Inflated size allowed: the stream's own cap, or what the budget has left.
    let cap = stream_cap(stored.len());
    let (cap, over) = if budget.left < cap {
        (budget.left, Some(budget.what.as_str()))
    } else {
        (cap, None)
    };
    if let Some(base) = zstd_stream::base_name(&info.name, &stored) {
        let mut data = zstd_stream::inflate_capped(&info.name, &stored, cap, over)?;
        budget.left = budget.left.saturating_sub(data.len() as u64);
        let open_root = zstd_stream::close_root(&mut data);
        return Ok(Stream {
            name: base.to_string(),
            data: data.into(),
            compressed: true,
            zstd: true,
            open_root,
            stored_len,
            error: None,
        });
    }
    if stored.starts_with(&GZIP_MAGIC) {
        let data = inflate_capped(&info.name, &stored, cap, over)?;
        budget.left = budget.left.saturating_sub(data.len() as u64);
        Ok(Stream {
            name: info.name.clone(),
            data: data.into(),
            compressed: true,
            zstd: false,
            open_root: false,
            stored_len,
            error: None,
        })
    } else {
        Ok(Stream {
            name: info.name.clone(),
            data: stored.into(),
            compressed: false,
            zstd: false,
            open_root: false,
            stored_len,
            error: None,
        })
    }
}

impl MaxFile {
    /// Reads every root stream of a compound file held in memory.
    pub fn from_bytes(bytes: &[u8]) -> Result<MaxFile, MaxError> {
        Self::from_reader(Cursor::new(bytes))
    }

    pub fn from_reader<R: Read + Seek>(reader: R) -> Result<MaxFile, MaxError> {
        Self::from_reader_with(reader, &InflateLimits::default())
    }

    /// Reads every root stream within the inflate `limits`. Only a file whose
    /// container cannot be opened is an error; a stream that cannot be read
    /// is kept with its [`Stream::error`] and the others are read.
    pub fn from_reader_with<R: Read + Seek>(
        mut reader: R,
        limits: &InflateLimits,
    ) -> Result<MaxFile, MaxError> {
        let (mut comp, past) = open_cfb(&mut reader)?;
        let clsid = comp.root_entry().clsid().to_bytes_le();
        let infos = root_streams(&comp)?;
        let mut budget = Budget {
            left: limits.budget(past.real),
            what: limits.describe(past.real),
        };
        let mut streams = Vec::with_capacity(infos.len());
        for info in &infos {
            streams.push(
                read_stream(&mut comp, info, &past, &mut budget).unwrap_or_else(|e| Stream {
                    name: info.name.clone(),
                    data: bytes::Bytes::new(),
                    compressed: false,
                    zstd: false,
                    open_root: false,
                    stored_len: info.stored_len,
                    error: Some(e.to_string()),
                }),
            );
        }
        Ok(MaxFile { clsid, streams })
    }

    /// Reads a file held in memory within the inflate `limits`.
    pub fn from_bytes_with(bytes: &[u8], limits: &InflateLimits) -> Result<MaxFile, MaxError> {
        Self::from_reader_with(Cursor::new(bytes), limits)
    }

    /// The streams that could not be read, with why.
    pub fn failed_streams(&self) -> impl Iterator<Item = (&str, &str)> {
        self.streams
            .iter()
            .filter_map(|s| Some((s.name.as_str(), s.error.as_deref()?)))
    }

    /// Reads a file from disk within the inflate `limits`, a sector at a time
    /// (the file is not loaded whole; only its streams are held).
    pub fn open_with(path: &std::path::Path, limits: &InflateLimits) -> Result<MaxFile, MaxError> {
        let file = std::fs::File::open(path).map_err(|source| MaxError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_reader_with(std::io::BufReader::new(file), limits)
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
        if let Some((name, why)) = self.failed_streams().next() {
            // Writing it empty would lose it silently.
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("stream {name} was not read ({why})"),
            ));
        }
        let mut comp = cfb::CompoundFile::create(writer)?;
        comp.set_storage_clsid("/", uuid_from_bytes(self.clsid))?;
        for s in &self.streams {
            if s.zstd {
                let mut out = comp.create_stream(format!("/{}{}", s.name, zstd_stream::SUFFIX))?;
                out.write_all(&zstd_stream::deflate(&s.data, s.open_root))?;
                out.flush()?;
                continue;
            }
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
