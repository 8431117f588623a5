//! Where each root stream's stored bytes lie in the compound file: the FAT and
//! mini-FAT chains resolved to runs of file offsets, so that a plain (not
//! gzip) stream can be served with `pread` from the source file itself, with
//! no copy of the file or of the stream in memory.
//!
//! The map is an optimisation beside the container reader (`cfb`), never a
//! second authority: anything unusual (a chain that loops, leaves the FAT,
//! ends early or points past the end of the file, a name met twice, a length
//! that disagrees with the directory the container reader saw) gives no map for
//! that stream or file, and the caller reads the stream through the container
//! as before. Bounded: the FAT, mini-FAT and directory are read sector by
//! sector, each chain is walked at most once per sector of the file.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};

/// Chain markers of the FAT (MS-CFB 2.3).
const ENDOFCHAIN: u32 = 0xFFFF_FFFE;
const MAXREGSECT: u32 = 0xFFFF_FFFA;
/// Header fields (MS-CFB 2.2).
const HEADER_LEN: usize = 512;
const DIFAT_IN_HEADER: usize = 109;
/// Directory entries are 128 bytes; object types (MS-CFB 2.6.1).
const DIR_ENTRY: usize = 128;
const TYPE_STREAM: u8 = 2;
const TYPE_ROOT: u8 = 5;
/// Runs a file may be mapped into, all streams together: past this (a file of
/// millions of scattered sectors) the streams are read through the container.
const MAX_RUNS: usize = 1 << 20;

/// Why a file's streams could not be mapped (the caller then reads them
/// through the container reader, which reports damage itself).
#[derive(Debug, thiserror::Error)]
pub enum MapError {
    #[error("cannot read the compound file: {0}")]
    Io(#[from] std::io::Error),
    #[error("compound file header: {0}")]
    Header(&'static str),
    #[error("{what} chain at sector {sector}: {why}")]
    Chain {
        what: &'static str,
        sector: u32,
        why: &'static str,
    },
    #[error("more than {MAX_RUNS} runs of sectors")]
    TooFragmented,
}

/// The stored bytes of one stream as runs of the file: (file offset, length),
/// in stream order, adding up to [`Extents::len`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extents {
    runs: Vec<(u64, u64)>,
    len: u64,
}

impl Extents {
    /// The stream's stored length.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Heap bytes held by the map.
    pub fn heap_bytes(&self) -> usize {
        self.runs.capacity() * std::mem::size_of::<(u64, u64)>()
    }

    /// Up to `len` bytes of the stream from `offset` (fewer at its end), read
    /// from `file`, the compound file the map was made from.
    pub fn read_at(
        &self,
        file: &std::fs::File,
        offset: u64,
        len: usize,
    ) -> std::io::Result<Vec<u8>> {
        let want = (len as u64).min(self.len.saturating_sub(offset));
        let mut out = vec![0u8; want as usize];
        let got = self.read_into(file, offset, &mut out)?;
        out.truncate(got);
        Ok(out)
    }

    /// The stream's first bytes (up to `out.len()`, within its first run)
    /// through any reader of the file the map was made from.
    pub fn read_head<R: Read + Seek>(&self, r: &mut R, out: &mut [u8]) -> std::io::Result<usize> {
        let Some(&(at, run)) = self.runs.first() else {
            return Ok(0);
        };
        let n = (out.len() as u64).min(run) as usize;
        r.seek(SeekFrom::Start(at))?;
        r.read_exact(&mut out[..n])?;
        Ok(n)
    }

    /// The whole stream through any reader of the file the map was made
    /// from (its length is bounded by the file: every run lies inside it).
    pub fn read_all<R: Read + Seek>(&self, r: &mut R) -> std::io::Result<Vec<u8>> {
        let mut out = vec![0u8; self.len as usize];
        let mut got = 0usize;
        for &(at, run) in &self.runs {
            r.seek(SeekFrom::Start(at))?;
            r.read_exact(&mut out[got..got + run as usize])?;
            got += run as usize;
        }
        Ok(out)
    }

    /// Fills `out` with the stream's bytes from `offset` (fewer at its end):
    /// the number of bytes read. Lets a server reuse one buffer for every
    /// read instead of faulting in fresh pages each time.
    pub fn read_into(
        &self,
        file: &std::fs::File,
        offset: u64,
        out: &mut [u8],
    ) -> std::io::Result<usize> {
        use std::os::unix::fs::FileExt;
        let want = (out.len() as u64).min(self.len.saturating_sub(offset)) as usize;
        let mut got = 0usize;
        // The run holding `offset`, then the ones after it.
        let mut start = 0u64;
        for &(at, run) in &self.runs {
            if got == want {
                break;
            }
            let end = start + run;
            let pos = offset + got as u64;
            if pos < end {
                let skip = pos - start;
                let n = (run - skip).min((want - got) as u64) as usize;
                file.read_exact_at(&mut out[got..got + n], at + skip)?;
                got += n;
            }
            start = end;
        }
        Ok(got)
    }
}

/// One sector-addressed view of the file.
struct Sectors<'r, R> {
    reader: &'r mut R,
    shift: u32,
    file_len: u64,
}

impl<R: Read + Seek> Sectors<'_, R> {
    fn size(&self) -> u64 {
        1u64 << self.shift
    }

    fn offset(&self, sector: u32) -> Option<u64> {
        (u64::from(sector) + 1).checked_mul(self.size())
    }

    /// Sector `s` whole; sectors that are not entirely inside the file fail.
    fn read(&mut self, s: u32, buf: &mut [u8]) -> Result<(), MapError> {
        let at = self
            .offset(s)
            .ok_or(MapError::Header("sector number overflows"))?;
        if at.saturating_add(buf.len() as u64) > self.file_len {
            return Err(MapError::Chain {
                what: "table",
                sector: s,
                why: "lies past the end of the file",
            });
        }
        self.reader.seek(SeekFrom::Start(at))?;
        self.reader.read_exact(buf)?;
        Ok(())
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u32::from_le_bytes)
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    b.get(at..at + 2)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u16::from_le_bytes)
}

/// Follows `table` from `start` for `count` entries; a chain that repeats a
/// sector, leaves the table or ends early is an error.
fn chain(table: &[u32], start: u32, count: u64, what: &'static str) -> Result<Vec<u32>, MapError> {
    let err = |sector, why| MapError::Chain { what, sector, why };
    if count > table.len() as u64 {
        return Err(err(start, "is longer than its table"));
    }
    let mut seen = vec![false; table.len()];
    let mut out = Vec::with_capacity(count as usize);
    let mut s = start;
    for _ in 0..count {
        let i = s as usize;
        if s > MAXREGSECT || i >= table.len() {
            return Err(err(s, "leaves its table or ends early"));
        }
        if std::mem::replace(&mut seen[i], true) {
            return Err(err(s, "loops"));
        }
        out.push(s);
        s = table[i];
    }
    Ok(out)
}

/// Adjacent pieces merged into runs.
fn push_run(runs: &mut Vec<(u64, u64)>, at: u64, len: u64) {
    match runs.last_mut() {
        Some((a, l)) if *a + *l == at => *l += len,
        _ => runs.push((at, len)),
    }
}

/// The runs of every root stream, by name (as the container reader decodes
/// names). `file_len` is the file's real length: a stream with a sector past
/// it is left out (the container reader reports it as truncated).
pub fn map_streams<R: Read + Seek>(
    reader: &mut R,
    file_len: u64,
) -> Result<HashMap<String, Extents>, MapError> {
    let mut head = [0u8; HEADER_LEN];
    reader.seek(SeekFrom::Start(0))?;
    reader.read_exact(&mut head)?;
    let major = u16_at(&head, 0x1A);
    let shift = u32::from(u16_at(&head, 0x1E));
    let mini_shift = u32::from(u16_at(&head, 0x20));
    if !matches!((major, shift), (3, 9) | (4, 12)) || mini_shift != 6 {
        return Err(MapError::Header("unsupported version or sector size"));
    }
    let mut sec = Sectors {
        reader,
        shift,
        file_len,
    };
    let size = sec.size() as usize;
    let per_sector = size / 4;
    let fat_count = u32_at(&head, 0x2C) as usize;
    // A FAT sector maps per_sector sectors: no more are needed than the file holds.
    if fat_count > (file_len / size as u64) as usize {
        return Err(MapError::Header("more FAT sectors than the file can hold"));
    }
    // The FAT sectors: 109 in the header, the rest along the DIFAT chain.
    let mut fat_sectors: Vec<u32> = (0..DIFAT_IN_HEADER.min(fat_count))
        .map(|k| u32_at(&head, 0x4C + 4 * k))
        .collect();
    let mut difat = u32_at(&head, 0x44);
    let mut buf = vec![0u8; size];
    let mut hops = 0usize;
    while fat_sectors.len() < fat_count {
        hops += 1;
        if difat > MAXREGSECT || hops > fat_count {
            return Err(MapError::Chain {
                what: "DIFAT",
                sector: difat,
                why: "ends early or loops",
            });
        }
        sec.read(difat, &mut buf)?;
        for k in 0..per_sector - 1 {
            if fat_sectors.len() < fat_count {
                fat_sectors.push(u32_at(&buf, 4 * k));
            }
        }
        difat = u32_at(&buf, size - 4);
    }
    let mut fat = Vec::with_capacity(fat_count * per_sector);
    for &s in &fat_sectors {
        sec.read(s, &mut buf)?;
        fat.extend((0..per_sector).map(|k| u32_at(&buf, 4 * k)));
    }
    // The directory.
    let dir_start = u32_at(&head, 0x30);
    let dir_len = {
        // The directory chain's length is not stored (version 3): walk it.
        let mut n = 0u64;
        let mut s = dir_start;
        while s <= MAXREGSECT {
            n += 1;
            if n > fat.len() as u64 {
                return Err(MapError::Chain {
                    what: "directory",
                    sector: dir_start,
                    why: "loops",
                });
            }
            s = *fat.get(s as usize).ok_or(MapError::Chain {
                what: "directory",
                sector: s,
                why: "leaves the FAT",
            })?;
        }
        if s != ENDOFCHAIN {
            return Err(MapError::Chain {
                what: "directory",
                sector: s,
                why: "does not end with ENDOFCHAIN",
            });
        }
        n
    };
    let mut entries: Vec<(String, u8, u32, u64)> = Vec::new();
    for s in chain(&fat, dir_start, dir_len, "directory")? {
        sec.read(s, &mut buf)?;
        for e in buf.chunks_exact(DIR_ENTRY) {
            let kind = e[0x42];
            if kind != TYPE_STREAM && kind != TYPE_ROOT {
                continue;
            }
            let name_len = (u16_at(e, 0x40) as usize / 2).saturating_sub(1).min(31);
            let units: Vec<u16> = (0..name_len).map(|k| u16_at(e, 2 * k)).collect();
            let mut len = u64::from(u32_at(e, 0x78));
            if major == 4 {
                len |= u64::from(u32_at(e, 0x7C)) << 32;
            }
            entries.push((String::from_utf16_lossy(&units), kind, u32_at(e, 0x74), len));
        }
    }
    let sectors_for = |len: u64, unit: u64| len.div_ceil(unit);
    let mut runs_total = 0usize;
    // The mini stream: the root entry's chain, as runs.
    let cutoff = u64::from(u32_at(&head, 0x38));
    let mut mini_runs: Option<Vec<(u64, u64)>> = None;
    let mut mini_fat: Vec<u32> = Vec::new();
    if let Some(&(_, _, start, len)) = entries.iter().find(|e| e.1 == TYPE_ROOT) {
        if len > 0 {
            let mut runs = Vec::new();
            for s in chain(&fat, start, sectors_for(len, size as u64), "mini stream")? {
                let at = sec
                    .offset(s)
                    .ok_or(MapError::Header("sector number overflows"))?;
                push_run(&mut runs, at, size as u64);
            }
            mini_runs = Some(runs);
            let mf_start = u32_at(&head, 0x3C);
            let mf_count = u64::from(u32_at(&head, 0x40));
            for s in chain(&fat, mf_start, mf_count, "mini FAT")? {
                sec.read(s, &mut buf)?;
                mini_fat.extend((0..per_sector).map(|k| u32_at(&buf, 4 * k)));
            }
        }
    }
    let mut out: HashMap<String, Extents> = HashMap::new();
    let mut twice = Vec::new();
    for (name, kind, start, len) in entries {
        if kind != TYPE_STREAM {
            continue;
        }
        let mut runs = Vec::new();
        let mapped = if len == 0 {
            Ok(())
        } else if len < cutoff {
            // Mini sectors (64 bytes) never straddle a regular sector, so
            // each lies inside one run of the mini stream.
            match &mini_runs {
                None => Err(()),
                Some(mini) => chain(&mini_fat, start, sectors_for(len, 64), "mini")
                    .map_err(|_| ())
                    .and_then(|ms| {
                        for m in ms {
                            let at = locate(mini, u64::from(m) * 64).ok_or(())?;
                            push_run(&mut runs, at, 64);
                        }
                        Ok(())
                    }),
            }
        } else {
            chain(&fat, start, sectors_for(len, size as u64), "stream")
                .map_err(|_| ())
                .and_then(|ss| {
                    for s in ss {
                        push_run(&mut runs, sec.offset(s).ok_or(())?, size as u64);
                    }
                    Ok(())
                })
        };
        if mapped.is_err() {
            continue;
        }
        clip(&mut runs, len);
        if runs.iter().any(|&(at, l)| at.saturating_add(l) > file_len) {
            continue;
        }
        runs_total += runs.len();
        if runs_total > MAX_RUNS {
            return Err(MapError::TooFragmented);
        }
        runs.shrink_to_fit();
        if out.insert(name.clone(), Extents { runs, len }).is_some() {
            twice.push(name);
        }
    }
    for name in twice {
        out.remove(&name);
    }
    Ok(out)
}

/// The file offset of byte `pos` of a stream laid out as `runs`.
fn locate(runs: &[(u64, u64)], pos: u64) -> Option<u64> {
    let mut start = 0u64;
    for &(at, len) in runs {
        if pos < start + len {
            return Some(at + (pos - start));
        }
        start += len;
    }
    None
}

/// Cuts `runs` to `len` bytes (the last sector of a stream is partly used).
fn clip(runs: &mut Vec<(u64, u64)>, len: u64) {
    let mut left = len;
    runs.retain_mut(|(_, l)| {
        let keep = left > 0;
        *l = (*l).min(left);
        left -= *l;
        keep
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container::{MaxFile, Stream};

    fn stream(name: &str, data: Vec<u8>) -> Stream {
        Stream {
            name: name.into(),
            stored_len: data.len() as u64,
            data: data.into(),
            compressed: false,
            zstd: false,
            open_root: false,
            error: None,
        }
    }

    /// Streams written by the container writer (`cfb`) read back through the
    /// map exactly as the container reader reads them: mini and regular
    /// streams, empty ones, several thousand sectors.
    #[test]
    fn map_reads_what_the_container_reader_reads() {
        let pattern = |n: usize, k: u8| {
            (0..n)
                .map(|i| (i as u8).wrapping_mul(k) ^ (i >> 9) as u8)
                .collect()
        };
        let file = MaxFile {
            clsid: [0; 16],
            streams: vec![
                stream("Small", pattern(100, 3)),
                stream("Empty", Vec::new()),
                stream("AtCutoff", pattern(4096, 5)),
                stream("Large", pattern(3_000_000, 7)),
                stream("Tiny", pattern(1, 11)),
                stream("JustUnder", pattern(4095, 13)),
            ],
        };
        let bytes = file.to_bytes().unwrap();
        let dir = std::env::temp_dir().join(format!("maxfs-sectors-{}", std::process::id()));
        std::fs::write(&dir, &bytes).unwrap();
        let f = std::fs::File::open(&dir).unwrap();
        let map = map_streams(&mut std::io::Cursor::new(&bytes), bytes.len() as u64).unwrap();
        let back = MaxFile::from_bytes(&bytes).unwrap();
        for s in &back.streams {
            let e = map
                .get(&s.name)
                .unwrap_or_else(|| panic!("{} not mapped", s.name));
            assert_eq!(e.len(), s.data.len() as u64, "{}", s.name);
            assert_eq!(
                e.read_at(&f, 0, usize::MAX >> 1).unwrap(),
                &s.data[..],
                "{}",
                s.name
            );
            // A piece across run boundaries, and past the end.
            if s.data.len() > 5000 {
                assert_eq!(e.read_at(&f, 4000, 70_000).unwrap(), &s.data[4000..74_000]);
            }
            assert!(e
                .read_at(&f, s.data.len() as u64 + 10, 10)
                .unwrap()
                .is_empty());
        }
        std::fs::remove_file(&dir).unwrap();
    }

    /// A FAT whose stream chain loops, or a file cut short, gives no map for
    /// the streams concerned: never wrong bytes, never a hang.
    #[test]
    fn damaged_chains_are_not_mapped() {
        let file = MaxFile {
            clsid: [0; 16],
            streams: vec![stream("Large", vec![7u8; 200_000])],
        };
        let bytes = file.to_bytes().unwrap();
        let map = map_streams(&mut std::io::Cursor::new(&bytes), bytes.len() as u64).unwrap();
        assert!(map.contains_key("Large"));
        // Cut the file in half: the stream's tail lies past the end.
        let half = &bytes[..bytes.len() / 2];
        if let Ok(m) = map_streams(&mut std::io::Cursor::new(half), half.len() as u64) {
            assert!(!m.contains_key("Large"));
        }
        // Point the FAT entry of the stream's second sector back at its first.
        let head = &bytes[..HEADER_LEN];
        let size = 1usize << u16_at(head, 0x1E);
        let fat_at = (u32_at(head, 0x4C) as usize + 1) * size;
        let first = (map["Large"].runs[0].0 as usize / size - 1) as u32;
        let mut looped = bytes.clone();
        looped[fat_at + 4 * (first as usize + 1)..][..4].copy_from_slice(&first.to_le_bytes());
        let m = map_streams(&mut std::io::Cursor::new(&looped), looped.len() as u64).unwrap();
        assert!(!m.contains_key("Large"));
    }
}
