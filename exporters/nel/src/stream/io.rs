//! The two directions of a stream: a bounds-checked reader over bytes and a writer.

use super::*;

/// Reads from a byte slice.
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    st: State,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Reader {
            data,
            pos: 0,
            st: State::default(),
        }
    }
    pub fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }
    /// Fail unless every byte was consumed.
    pub fn finish(&self) -> Result<(), NelError> {
        if self.pos != self.data.len() {
            return Err(NelError::Trailing {
                offset: self.pos,
                left: self.data.len() - self.pos,
            });
        }
        Ok(())
    }
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos.min(self.data.len())..]
    }
    pub fn data(&self) -> &'a [u8] {
        self.data
    }
    fn short(&self, need: usize) -> NelError {
        NelError::Format {
            offset: self.pos,
            path: self.st.path_string(),
            what: format!(
                "expected {need} bytes, {} left",
                self.data.len().saturating_sub(self.pos)
            ),
        }
    }
}

impl Stream for Reader<'_> {
    fn reading(&self) -> bool {
        true
    }
    fn pos(&self) -> usize {
        self.pos
    }
    fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }
    fn raw(&mut self, buf: &mut [u8]) -> Result<(), NelError> {
        let n = buf.len();
        if self.remaining() < n {
            return Err(self.short(n));
        }
        buf.copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(())
    }
    fn raw_vec(&mut self, v: &mut Vec<u8>, n: usize) -> Result<(), NelError> {
        if self.remaining() < n {
            return Err(self.short(n));
        }
        v.clear();
        v.extend_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(())
    }
    fn state(&mut self) -> &mut State {
        &mut self.st
    }
    fn state_ref(&self) -> &State {
        &self.st
    }
}

/// Writes into a growing byte vector.
#[derive(Default)]
pub struct Writer {
    pub out: Vec<u8>,
    st: State,
}

impl Writer {
    pub fn new() -> Self {
        Writer::default()
    }
    pub fn into_bytes(self) -> Vec<u8> {
        self.out
    }
}

impl Stream for Writer {
    fn reading(&self) -> bool {
        false
    }
    fn patch_u32(&mut self, at: usize, v: u32) {
        if let Some(dst) = self.out.get_mut(at..at + 4) {
            dst.copy_from_slice(&v.to_le_bytes());
        }
    }
    fn pos(&self) -> usize {
        self.out.len()
    }
    fn remaining(&self) -> usize {
        usize::MAX
    }
    fn raw(&mut self, buf: &mut [u8]) -> Result<(), NelError> {
        self.out.extend_from_slice(buf);
        Ok(())
    }
    fn raw_vec(&mut self, v: &mut Vec<u8>, n: usize) -> Result<(), NelError> {
        if v.len() != n {
            return Err(self.err(format!("byte buffer of {} bytes, expected {n}", v.len())));
        }
        self.out.extend_from_slice(v);
        Ok(())
    }
    fn state(&mut self) -> &mut State {
        &mut self.st
    }
    fn state_ref(&self) -> &State {
        &self.st
    }
}
