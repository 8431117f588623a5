//! Decoding leaf payloads with exact consumption: a typed leaf that does not use
//! every byte of its chunk is an error, never a silent skip.

use std::fmt;

/// Reads little-endian values from a leaf payload, tracking the offset for errors.
pub struct LeafReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> LeafReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        LeafReader { data, pos: 0 }
    }

    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let left = self.data.len() - self.pos;
        if left < n {
            return Err(format!(
                "expected {n} bytes of {what} at payload offset {}, {left} left",
                self.pos
            ));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }

    pub fn u16(&mut self, what: &str) -> Result<u16, String> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub fn u32(&mut self, what: &str) -> Result<u32, String> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn i32(&mut self, what: &str) -> Result<i32, String> {
        Ok(self.u32(what)? as i32)
    }

    pub fn u64(&mut self, what: &str) -> Result<u64, String> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.data[self.pos..];
        self.pos = self.data.len();
        s
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Fails unless every byte was consumed.
    pub fn finish(self, what: &str) -> Result<(), String> {
        if self.pos == self.data.len() {
            Ok(())
        } else {
            Err(format!(
                "{what}: {} unread bytes at payload offset {}",
                self.data.len() - self.pos,
                self.pos
            ))
        }
    }
}

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
    pub fn read(r: &mut LeafReader) -> Result<ClassId, String> {
        Ok(ClassId(r.u32("class id a")?, r.u32("class id b")?))
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
        out.extend_from_slice(&self.1.to_le_bytes());
    }
}
