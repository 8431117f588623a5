//! Decoding leaf payloads with exact consumption: a typed leaf that does not use
//! every byte of its chunk is an error, never a silent skip.

use std::fmt;

/// Leaf payloads are read with the file layer's one byte reader.
pub use crate::reader::ByteReader as LeafReader;
use crate::reader::ReadError;

/// A string as Max stored it. Kept as code units so invalid UTF-16 survives a rebuild.
#[derive(Clone, PartialEq, Eq, Default)]
pub enum MaxString {
    Utf16(Vec<u16>),
    Bytes(Vec<u8>),
    #[default]
    Empty,
}

impl MaxString {
    /// UTF-16 when the payload has an even length, 8-bit otherwise.
    pub fn decode(payload: &[u8]) -> MaxString {
        if payload.is_empty() {
            MaxString::Empty
        } else if payload.len().is_multiple_of(2) {
            MaxString::Utf16(
                payload
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .collect(),
            )
        } else {
            MaxString::Bytes(payload.to_vec())
        }
    }

    pub fn from_str_utf16(s: &str) -> MaxString {
        if s.is_empty() {
            MaxString::Empty
        } else {
            MaxString::Utf16(s.encode_utf16().collect())
        }
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            MaxString::Utf16(u) => u
                .iter()
                .for_each(|c| out.extend_from_slice(&c.to_le_bytes())),
            MaxString::Bytes(b) => out.extend_from_slice(b),
            MaxString::Empty => {}
        }
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::new();
        self.encode(&mut v);
        v
    }

    /// Display form: lossy decoding, trailing NULs removed.
    pub fn text(&self) -> String {
        let s = match self {
            MaxString::Utf16(u) => String::from_utf16_lossy(u),
            MaxString::Bytes(b) => b.iter().map(|&c| c as char).collect(),
            MaxString::Empty => String::new(),
        };
        s.trim_end_matches('\0').to_string()
    }
}

impl fmt::Debug for MaxString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.text())
    }
}

/// A Max class id: two 32-bit parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ClassId(pub u32, pub u32);

impl fmt::Display for ClassId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({:#010x}, {:#010x})", self.0, self.1)
    }
}

impl ClassId {
    pub fn read(r: &mut LeafReader) -> Result<ClassId, ReadError> {
        Ok(ClassId(r.u32("class id a")?, r.u32("class id b")?))
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
        out.extend_from_slice(&self.1.to_le_bytes());
    }
}
