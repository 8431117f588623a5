//! The chunk layer: every structured Max stream is a tree of `(id, size, payload)`
//! chunks. Parsing keeps order, duplicates and each header's width, so writing the
//! tree back reproduces the stream byte for byte.

use bytes::Bytes;

use crate::error::{ChunkError, ChunkPath};

/// Deepest nesting accepted; real files stay below 20.
pub const MAX_DEPTH: usize = 64;

const NARROW_HEADER: u64 = 6;
const WIDE_HEADER: u64 = 14;
const NARROW_CONTAINER: u32 = 0x8000_0000;
const WIDE_CONTAINER: u64 = 0x8000_0000_0000_0000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub id: u16,
    /// Read with the 14-byte header (u32 0 then u64 size); written back the same way.
    pub wide: bool,
    pub body: Body,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// Shares the stream's buffer: parsing copies nothing, cloning is cheap.
    Leaf(Bytes),
    Container(Vec<Chunk>),
}

impl Chunk {
    pub fn leaf(id: u16, data: impl Into<Bytes>) -> Chunk {
        Chunk {
            id,
            wide: false,
            body: Body::Leaf(data.into()),
        }
    }

    pub fn container(id: u16, children: Vec<Chunk>) -> Chunk {
        Chunk {
            id,
            wide: false,
            body: Body::Container(children),
        }
    }

    pub fn with_wide(mut self, wide: bool) -> Chunk {
        self.wide = wide;
        self
    }

    pub fn is_container(&self) -> bool {
        matches!(self.body, Body::Container(_))
    }

    pub fn children(&self) -> &[Chunk] {
        match &self.body {
            Body::Container(c) => c,
            Body::Leaf(_) => &[],
        }
    }

    pub fn payload(&self) -> Option<&[u8]> {
        match &self.body {
            Body::Leaf(d) => Some(d),
            Body::Container(_) => None,
        }
    }

    /// Bytes this chunk occupies when written, header included.
    pub fn encoded_len(&self) -> u64 {
        let header = if self.wide {
            WIDE_HEADER
        } else {
            NARROW_HEADER
        };
        header + self.body_len()
    }

    fn body_len(&self) -> u64 {
        match &self.body {
            Body::Leaf(d) => d.len() as u64,
            Body::Container(c) => c.iter().map(Chunk::encoded_len).sum(),
        }
    }
}

/// Parses a whole stream into its top-level chunks; every byte must belong to a chunk.
pub fn parse(data: &[u8]) -> Result<Vec<Chunk>, ChunkError> {
    parse_bytes(&Bytes::copy_from_slice(data))
}

/// As `parse`, with leaves sharing `data` instead of copying it.
pub fn parse_bytes(data: &Bytes) -> Result<Vec<Chunk>, ChunkError> {
    parse_level(data, 0, &mut Vec::new())
}

/// True when the stream is a well-formed, non-empty chunk tree.
pub fn is_chunked(data: &[u8]) -> bool {
    !data.is_empty() && parse(data).is_ok()
}

struct Header {
    id: u16,
    wide: bool,
    container: bool,
    header_len: u64,
    total_len: u64,
}

/// What is wrong with one chunk header (the caller adds where).
#[derive(Debug, thiserror::Error)]
enum HeaderError {
    #[error("expected a 6-byte chunk header, {left} bytes left (trailing bytes)")]
    Short { left: usize },
    #[error("chunk {id:04X}: size 0 announces a 64-bit size, {left} bytes left")]
    ShortWide { id: u16, left: usize },
    #[error("chunk {id:04X}: size {size} is smaller than its {header}-byte header")]
    Undersized { id: u16, size: u64, header: u64 },
    #[error("chunk {id:04X}: size {size} runs past its parent ({left} bytes left)")]
    Overrun { id: u16, size: u64, left: usize },
}

fn read_header(data: &[u8], pos: usize) -> Result<Header, HeaderError> {
    let left = data.len() - pos;
    if left < NARROW_HEADER as usize {
        return Err(HeaderError::Short { left });
    }
    let id = u16::from_le_bytes([data[pos], data[pos + 1]]);
    let raw = u32::from_le_bytes([data[pos + 2], data[pos + 3], data[pos + 4], data[pos + 5]]);
    let h = if raw == 0 {
        if left < WIDE_HEADER as usize {
            return Err(HeaderError::ShortWide { id, left });
        }
        let mut b = [0u8; 8];
        b.copy_from_slice(&data[pos + 6..pos + 14]);
        let raw = u64::from_le_bytes(b);
        Header {
            id,
            wide: true,
            container: raw & WIDE_CONTAINER != 0,
            header_len: WIDE_HEADER,
            total_len: raw & !WIDE_CONTAINER,
        }
    } else {
        Header {
            id,
            wide: false,
            container: raw & NARROW_CONTAINER != 0,
            header_len: NARROW_HEADER,
            total_len: u64::from(raw & !NARROW_CONTAINER),
        }
    };
    if h.total_len < h.header_len {
        return Err(HeaderError::Undersized {
            id,
            size: h.total_len,
            header: h.header_len,
        });
    }
    if h.total_len > left as u64 {
        return Err(HeaderError::Overrun {
            id,
            size: h.total_len,
            left,
        });
    }
    Ok(h)
}

/// `path` is the stack of (index, id) above this level; it becomes a ChunkPath
/// only when an error needs one.
fn parse_level(
    data: &Bytes,
    base: u64,
    path: &mut Vec<(usize, u16)>,
) -> Result<Vec<Chunk>, ChunkError> {
    if path.len() > MAX_DEPTH {
        return Err(ChunkError {
            path: ChunkPath(path.clone()),
            offset: base,
            what: format!("nesting deeper than {MAX_DEPTH} levels"),
        });
    }
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let h = read_header(data, pos).map_err(|what| ChunkError {
            path: ChunkPath(path.clone()),
            offset: base + pos as u64,
            what: format!("child {}: {what}", out.len()),
        })?;
        let start = pos + h.header_len as usize;
        let end = pos + h.total_len as usize;
        let payload = data.slice(start..end);
        let body = if h.container {
            path.push((out.len(), h.id));
            let children = parse_level(&payload, base + start as u64, path)?;
            path.pop();
            Body::Container(children)
        } else {
            Body::Leaf(payload)
        };
        out.push(Chunk {
            id: h.id,
            wide: h.wide,
            body,
        });
        pos = end;
    }
    Ok(out)
}

/// Serializes chunks; sizes are patched after each body is written. A narrow chunk
/// too big for 31 bits is written wide, as Max would have had to.
pub fn write(chunks: &[Chunk]) -> Vec<u8> {
    let mut out = Vec::with_capacity(chunks.iter().map(Chunk::encoded_len).sum::<u64>() as usize);
    for c in chunks {
        write_chunk(c, &mut out);
    }
    out
}

pub fn write_chunk(c: &Chunk, out: &mut Vec<u8>) {
    let at = begin_chunk(out, c.id, c.wide);
    match &c.body {
        Body::Leaf(d) => out.extend_from_slice(d),
        Body::Container(children) => {
            for ch in children {
                write_chunk(ch, out);
            }
        }
    }
    end_chunk(out, at, c.is_container());
}

/// Where a chunk being written starts, and whether its header is wide.
#[derive(Debug, Clone, Copy)]
pub struct Open {
    start: usize,
    wide: bool,
}

/// Writes a header with a placeholder size; `end_chunk` patches it once the body is out.
pub fn begin_chunk(out: &mut Vec<u8>, id: u16, wide: bool) -> Open {
    let start = out.len();
    out.extend_from_slice(&id.to_le_bytes());
    if wide {
        out.extend_from_slice(&[0; 12]);
    } else {
        out.extend_from_slice(&[0xFF; 4]);
    }
    Open { start, wide }
}

/// Patches the size of a chunk opened by `begin_chunk`, widening the header when
/// the body turned out too large for 31 bits.
pub fn end_chunk(out: &mut Vec<u8>, open: Open, container: bool) {
    let header = if open.wide {
        WIDE_HEADER
    } else {
        NARROW_HEADER
    } as usize;
    let body_len = (out.len() - open.start - header) as u64;
    let mut wide = open.wide;
    if !wide && !fits_narrow(body_len) {
        let at = open.start + 6;
        out.splice(at..at, [0u8; 8]);
        wide = true;
    }
    if wide {
        let mut size = WIDE_HEADER + body_len;
        if container {
            size |= WIDE_CONTAINER;
        }
        out[open.start + 2..open.start + 6].copy_from_slice(&0u32.to_le_bytes());
        out[open.start + 6..open.start + 14].copy_from_slice(&size.to_le_bytes());
    } else {
        let mut size = (NARROW_HEADER + body_len) as u32;
        if container {
            size |= NARROW_CONTAINER;
        }
        out[open.start + 2..open.start + 6].copy_from_slice(&size.to_le_bytes());
    }
}

/// Whether a chunk with this much payload can carry a 6-byte header (31-bit size).
fn fits_narrow(body_len: u64) -> bool {
    NARROW_HEADER + body_len <= u64::from(!NARROW_CONTAINER)
}

/// Counts chunks in a tree (for reports).
pub fn count(chunks: &[Chunk]) -> usize {
    chunks.iter().map(|c| 1 + count(c.children())).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn narrow(id: u16, container: bool, body: &[u8]) -> Vec<u8> {
        let mut v = id.to_le_bytes().to_vec();
        let mut size = 6 + body.len() as u32;
        if container {
            size |= NARROW_CONTAINER;
        }
        v.extend_from_slice(&size.to_le_bytes());
        v.extend_from_slice(body);
        v
    }

    fn wide(id: u16, container: bool, body: &[u8]) -> Vec<u8> {
        let mut v = id.to_le_bytes().to_vec();
        v.extend_from_slice(&0u32.to_le_bytes());
        let mut size = 14 + body.len() as u64;
        if container {
            size |= WIDE_CONTAINER;
        }
        v.extend_from_slice(&size.to_le_bytes());
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn wide_headers_round_trip() {
        let inner = wide(0x0100, false, &[1, 2, 3]);
        let bytes = wide(0x2004, true, &inner);
        let tree = parse(&bytes).expect("parses");
        assert_eq!(tree.len(), 1);
        assert!(tree[0].wide && tree[0].is_container());
        assert!(tree[0].children()[0].wide);
        assert_eq!(tree[0].children()[0].payload(), Some(&[1u8, 2, 3][..]));
        assert_eq!(write(&tree), bytes);
    }

    #[test]
    fn mixed_widths_in_one_container() {
        let mut body = narrow(0x0001, false, &[9]);
        body.extend(wide(0x0002, false, &[8, 7]));
        body.extend(narrow(0x0003, true, &wide(0x0004, false, &[])));
        body.extend(wide(0x0005, true, &narrow(0x0006, false, &[1, 1, 1, 1])));
        let bytes = narrow(0x2012, true, &body);
        let tree = parse(&bytes).expect("parses");
        let kids = tree[0].children();
        let widths: Vec<bool> = kids.iter().map(|c| c.wide).collect();
        assert_eq!(widths, [false, true, false, true]);
        assert!(kids[2].children()[0].wide);
        assert!(!kids[3].children()[0].wide);
        assert_eq!(write(&tree), bytes);
    }

    #[test]
    fn empty_leaf_and_empty_container_stay_distinct() {
        let mut bytes = narrow(0x0010, false, &[]);
        bytes.extend(narrow(0x0010, true, &[]));
        bytes.extend(wide(0x0011, false, &[]));
        bytes.extend(wide(0x0011, true, &[]));
        let tree = parse(&bytes).expect("parses");
        assert_eq!(tree[0].body, Body::Leaf(Bytes::new()));
        assert_eq!(tree[1].body, Body::Container(vec![]));
        assert_eq!(tree[2].body, Body::Leaf(Bytes::new()));
        assert_eq!(tree[3].body, Body::Container(vec![]));
        assert_eq!(write(&tree), bytes);
    }

    #[test]
    fn duplicates_and_order_are_kept() {
        let mut bytes = narrow(0x0962, false, &[1]);
        bytes.extend(narrow(0x0960, false, &[2]));
        bytes.extend(narrow(0x0962, false, &[3]));
        let tree = parse(&bytes).expect("parses");
        let ids: Vec<u16> = tree.iter().map(|c| c.id).collect();
        assert_eq!(ids, [0x0962, 0x0960, 0x0962]);
        assert_eq!(write(&tree), bytes);
    }

    #[test]
    fn truncation_is_an_error_with_offset() {
        let bytes = narrow(0x2004, true, &narrow(0x0001, false, &[1, 2, 3, 4]));
        for cut in 1..bytes.len() {
            let err = parse(&bytes[..cut]).expect_err("truncated stream must fail");
            assert!(
                err.offset <= cut as u64,
                "offset {} past cut {cut}",
                err.offset
            );
            assert!(!err.what.is_empty());
        }
    }

    #[test]
    fn child_running_past_parent_names_the_path() {
        // The container claims 4 bytes of payload but its child says 10.
        let mut child = narrow(0x0001, false, &[0; 4]);
        child[2] = 16; // child size 16 > the 10 bytes the parent holds
        let bytes = narrow(0x2004, true, &child);
        let err = parse(&bytes).expect_err("must fail");
        assert_eq!(err.path.to_string(), "/0000-2004");
        assert_eq!(err.offset, 6);
        assert!(err.what.contains("runs past its parent"), "{}", err.what);
    }

    #[test]
    fn trailing_bytes_and_tiny_sizes_are_errors() {
        let mut bytes = narrow(0x0001, false, &[1]);
        bytes.extend([0xAA, 0xBB]);
        let err = parse(&bytes).expect_err("trailing bytes");
        assert!(err.what.contains("trailing"), "{}", err.what);
        let mut small = narrow(0x0001, false, &[]);
        small[2] = 3;
        assert!(parse(&small)
            .expect_err("size < header")
            .what
            .contains("smaller"));
        let mut wide_small = wide(0x0001, false, &[]);
        wide_small[6] = 13;
        assert!(parse(&wide_small).is_err());
    }

    #[test]
    fn depth_limit_is_enforced() {
        let mut bytes = narrow(0x0001, false, &[]);
        for _ in 0..(MAX_DEPTH + 2) {
            bytes = narrow(0x0002, true, &bytes);
        }
        let err = parse(&bytes).expect_err("too deep");
        assert!(err.what.contains("nesting"), "{}", err.what);
        let mut ok = narrow(0x0001, false, &[]);
        for _ in 0..MAX_DEPTH {
            ok = narrow(0x0002, true, &ok);
        }
        assert_eq!(write(&parse(&ok).expect("at the limit")), ok);
    }

    #[test]
    fn oversized_narrow_chunk_needs_the_wide_header() {
        assert!(fits_narrow(0x7FFF_FFFF - 6));
        assert!(!fits_narrow(0x7FFF_FFFF - 5));
    }

    #[test]
    fn is_chunked_rejects_property_sets_and_empty() {
        assert!(!is_chunked(&[]));
        assert!(!is_chunked(&[0xFE, 0xFF, 0, 0, 6, 0, 2, 0]));
        assert!(is_chunked(&narrow(1, false, &[])));
    }
}
