//! The one little-endian byte reader of the file layer and of evaluation: every
//! read is bounds-checked and a failure says what was being read, at which
//! offset, and how many bytes were there.

/// Why bytes could not be read as expected. Offsets are relative to the slice
/// the reader was given (a chunk payload, a record); callers add the chunk path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    #[error("{what}: expected {wanted} bytes at offset {offset:#x}, {left} left")]
    Short {
        what: String,
        offset: usize,
        wanted: usize,
        left: usize,
    },
    #[error("{what}: {left} unread bytes at offset {offset:#x}")]
    Trailing {
        what: String,
        offset: usize,
        left: usize,
    },
    #[error("{what} at offset {offset:#x}: {detail}")]
    Invalid {
        what: String,
        offset: usize,
        detail: String,
    },
}

/// Reads little-endian values off a byte slice, front to back (`u32`, `take`…)
/// or at given offsets (`u32_at`…).
#[derive(Debug, Clone)]
pub struct ByteReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        ByteReader { data, pos: 0 }
    }

    /// The offset of the next read.
    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// An error about the value that starts at the current offset.
    pub fn invalid(&self, what: &str, detail: impl Into<String>) -> ReadError {
        ReadError::Invalid {
            what: what.into(),
            offset: self.pos,
            detail: detail.into(),
        }
    }

    pub fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ReadError> {
        let s = self.slice_at(self.pos, n, what)?;
        self.pos += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], ReadError> {
        let s = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub fn u8(&mut self, what: &str) -> Result<u8, ReadError> {
        Ok(self.take(1, what)?[0])
    }

    pub fn u16(&mut self, what: &str) -> Result<u16, ReadError> {
        self.array(what).map(u16::from_le_bytes)
    }

    pub fn u32(&mut self, what: &str) -> Result<u32, ReadError> {
        self.array(what).map(u32::from_le_bytes)
    }

    pub fn i32(&mut self, what: &str) -> Result<i32, ReadError> {
        self.array(what).map(i32::from_le_bytes)
    }

    pub fn u64(&mut self, what: &str) -> Result<u64, ReadError> {
        self.array(what).map(u64::from_le_bytes)
    }

    pub fn f32(&mut self, what: &str) -> Result<f32, ReadError> {
        self.array(what).map(f32::from_le_bytes)
    }

    /// Everything not read yet.
    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.data[self.pos..];
        self.pos = self.data.len();
        s
    }

    /// Fails unless every byte was consumed.
    pub fn finish(self, what: &str) -> Result<(), ReadError> {
        if self.pos == self.data.len() {
            Ok(())
        } else {
            Err(ReadError::Trailing {
                what: what.into(),
                offset: self.pos,
                left: self.data.len() - self.pos,
            })
        }
    }

    /// `n` bytes at offset `at`, without moving the reader.
    pub fn slice_at(&self, at: usize, n: usize, what: &str) -> Result<&'a [u8], ReadError> {
        at.checked_add(n)
            .and_then(|end| self.data.get(at..end))
            .ok_or_else(|| ReadError::Short {
                what: what.into(),
                offset: at,
                wanted: n,
                left: self.data.len().saturating_sub(at),
            })
    }

    fn array_at<const N: usize>(&self, at: usize, what: &str) -> Result<[u8; N], ReadError> {
        let s = self.slice_at(at, N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub fn u16_at(&self, at: usize, what: &str) -> Result<u16, ReadError> {
        self.array_at(at, what).map(u16::from_le_bytes)
    }

    pub fn u32_at(&self, at: usize, what: &str) -> Result<u32, ReadError> {
        self.array_at(at, what).map(u32::from_le_bytes)
    }

    pub fn u64_at(&self, at: usize, what: &str) -> Result<u64, ReadError> {
        self.array_at(at, what).map(u64::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_little_endian_and_names_short_reads() {
        let b = [1u8, 0, 0, 0, 2, 0, 0xff];
        let mut r = ByteReader::new(&b);
        assert_eq!(r.u32("count"), Ok(1));
        assert_eq!(r.u16("flags"), Ok(2));
        assert_eq!(
            r.u32("index"),
            Err(ReadError::Short {
                what: "index".into(),
                offset: 6,
                wanted: 4,
                left: 1
            })
        );
        assert_eq!(r.position(), 6, "a failed read moves nothing");
        assert_eq!(
            r.clone().finish("record").map_err(|e| e.to_string()),
            Err("record: 1 unread bytes at offset 0x6".into())
        );
        assert_eq!(r.u8("tail"), Ok(0xff));
        assert_eq!(r.finish("record"), Ok(()));
    }

    #[test]
    fn random_access_never_overflows() {
        let r = ByteReader::new(&[0u8; 8]);
        assert_eq!(r.u64_at(0, "x"), Ok(0));
        assert!(r.u32_at(6, "x").is_err());
        assert!(r.slice_at(usize::MAX, 2, "x").is_err());
    }
}
