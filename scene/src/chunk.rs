//! The chunk layer: every structured Max stream is a tree of `(id, size, payload)`
//! chunks. Parsing keeps order, duplicates and each header's width, so writing the
//! tree back reproduces the stream byte for byte.

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
    Leaf(Vec<u8>),
    Container(Vec<Chunk>),
}

impl Chunk {
    pub fn leaf(id: u16, data: Vec<u8>) -> Chunk {
        Chunk {
            id,
            wide: false,
            body: Body::Leaf(data),
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
    parse_level(data, 0, &ChunkPath::default(), 0)
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

fn read_header(data: &[u8], pos: usize) -> Result<Header, String> {
    let left = data.len() - pos;
    if left < NARROW_HEADER as usize {
        return Err(format!(
            "expected a 6-byte chunk header, {left} bytes left (trailing bytes)"
        ));
    }
    let id = u16::from_le_bytes([data[pos], data[pos + 1]]);
    let raw = u32::from_le_bytes([data[pos + 2], data[pos + 3], data[pos + 4], data[pos + 5]]);
    let h = if raw == 0 {
        if left < WIDE_HEADER as usize {
            return Err(format!(
                "chunk {id:04X}: size 0 announces a 64-bit size, {left} bytes left"
            ));
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
        return Err(format!(
            "chunk {id:04X}: size {} is smaller than its {}-byte header",
            h.total_len, h.header_len
        ));
    }
    if h.total_len > left as u64 {
        return Err(format!(
            "chunk {id:04X}: size {} runs past its parent ({left} bytes left)",
            h.total_len
        ));
    }
    Ok(h)
}

fn parse_level(
    data: &[u8],
    base: u64,
    path: &ChunkPath,
    depth: usize,
) -> Result<Vec<Chunk>, ChunkError> {
    if depth > MAX_DEPTH {
        return Err(ChunkError {
            path: path.clone(),
            offset: base,
            what: format!("nesting deeper than {MAX_DEPTH} levels"),
        });
    }
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let h = read_header(data, pos).map_err(|what| ChunkError {
            path: path.clone(),
            offset: base + pos as u64,
            what: format!("child {}: {what}", out.len()),
        })?;
        let start = pos + h.header_len as usize;
        let end = pos + h.total_len as usize;
        let payload = &data[start..end];
        let body = if h.container {
            let here = path.child(out.len(), h.id);
            Body::Container(parse_level(payload, base + start as u64, &here, depth + 1)?)
        } else {
            Body::Leaf(payload.to_vec())
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
    let body_len = c.body_len();
    let wide = c.wide || NARROW_HEADER + body_len > u64::from(!NARROW_CONTAINER);
    out.extend_from_slice(&c.id.to_le_bytes());
    if wide {
        let mut size = WIDE_HEADER + body_len;
        if c.is_container() {
            size |= WIDE_CONTAINER;
        }
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
    } else {
        let mut size = (NARROW_HEADER + body_len) as u32;
        if c.is_container() {
            size |= NARROW_CONTAINER;
        }
        out.extend_from_slice(&size.to_le_bytes());
    }
    match &c.body {
        Body::Leaf(d) => out.extend_from_slice(d),
        Body::Container(children) => {
            for ch in children {
                write_chunk(ch, out);
            }
        }
    }
}

/// Counts chunks in a tree (for reports).
pub fn count(chunks: &[Chunk]) -> usize {
    chunks.iter().map(|c| 1 + count(c.children())).sum()
}
