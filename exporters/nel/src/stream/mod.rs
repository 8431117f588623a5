//! NeL binary stream conventions (little-endian `IStream`), shared by every format.
//!
//! One `serial` method per structure drives both directions, as NeL's own `serial()`
//! does: the same code path reads and writes, so the two cannot drift apart.

use std::collections::HashSet;

use serde::Serialize;

use super::NelError;

/// Maximum nesting depth of structures (bounds recursion on hostile input).
pub const MAX_DEPTH: usize = 64;

/// One element of the context path shown in errors.
#[derive(Clone, Copy, Debug)]
enum Ctx {
    Name(&'static str),
    Index(usize),
}

/// Shared state of a stream: context path and the polymorphic-pointer id table.
#[derive(Default)]
pub struct State {
    path: Vec<Ctx>,
    seen_ids: HashSet<u64>,
}

impl State {
    fn path_string(&self) -> String {
        let mut out = String::new();
        for c in &self.path {
            match c {
                Ctx::Name(n) => {
                    if !out.is_empty() {
                        out.push('/');
                    }
                    out.push_str(n);
                }
                Ctx::Index(i) => {
                    out.push_str(&format!("[{i}]"));
                }
            }
        }
        out
    }
}

mod io;
mod values;

pub use io::{Reader, Writer};
pub use values::*;

/// Reading or writing side of a NeL stream.
pub trait Stream: Sized {
    fn reading(&self) -> bool;
    /// Current byte offset.
    fn pos(&self) -> usize;
    /// Bytes left to read (writers report `usize::MAX`).
    fn remaining(&self) -> usize;
    /// Transfer exactly `buf.len()` bytes.
    fn raw(&mut self, buf: &mut [u8]) -> Result<(), NelError>;
    /// Transfer a byte vector of known length.
    fn raw_vec(&mut self, v: &mut Vec<u8>, n: usize) -> Result<(), NelError>;
    /// Overwrite a u32 written earlier (writers only; readers ignore it).
    fn patch_u32(&mut self, _at: usize, _v: u32) {}
    #[doc(hidden)]
    fn state(&mut self) -> &mut State;
    #[doc(hidden)]
    fn state_ref(&self) -> &State;

    /// Build an error at the current position with the current context path.
    fn err(&self, what: impl Into<String>) -> NelError {
        NelError::Format {
            offset: self.pos(),
            path: self.state_ref().path_string(),
            what: what.into(),
        }
    }

    /// Build an error at a given offset with the current context path.
    fn err_at(&self, offset: usize, what: impl Into<String>) -> NelError {
        NelError::Format {
            offset,
            path: self.state_ref().path_string(),
            what: what.into(),
        }
    }

    /// Run `f` with `name` pushed on the context path.
    fn ctx<R>(
        &mut self,
        name: &'static str,
        f: impl FnOnce(&mut Self) -> Result<R, NelError>,
    ) -> Result<R, NelError> {
        if self.state_ref().path.len() >= MAX_DEPTH {
            return Err(self.err("structure nesting too deep"));
        }
        self.state().path.push(Ctx::Name(name));
        let r = f(self)?;
        self.state().path.pop();
        Ok(r)
    }

    fn ser<T: Serial>(&mut self, v: &mut T) -> Result<(), NelError> {
        v.serial(self)
    }

    /// Serialize a field under a context name.
    fn field<T: Serial>(&mut self, name: &'static str, v: &mut T) -> Result<(), NelError> {
        self.ctx(name, |s| v.serial(s))
    }

    /// `serialVersion`: u8, or 0xFF followed by a u32. Refuses versions above `max`.
    fn version(&mut self, v: &mut u32, max: u32, class: &'static str) -> Result<(), NelError> {
        if self.reading() {
            let at = self.pos();
            let mut b = 0u8;
            self.ser(&mut b)?;
            *v = if b == 0xFF {
                let mut w = 0u32;
                self.ser(&mut w)?;
                if w < 0xFF {
                    // NeL never writes this form, so it could not be rewritten identically.
                    return Err(self.err(format!("{class}: non-canonical escaped version {w}")));
                }
                w
            } else {
                b as u32
            };
            if *v > max {
                return Err(NelError::UnknownVersion {
                    path: self.state_ref().path_string(),
                    class: class.to_string(),
                    version: *v,
                    max,
                    offset: at,
                });
            }
            Ok(())
        } else if *v >= 0xFF {
            let mut b = 0xFFu8;
            self.ser(&mut b)?;
            self.ser(v)
        } else {
            let mut b = *v as u8;
            self.ser(&mut b)
        }
    }

    /// `serialCheck`: a fixed magic.
    fn check(&mut self, magic: &[u8; 4]) -> Result<(), NelError> {
        let mut b = *magic;
        let at = self.pos();
        self.raw(&mut b)?;
        if self.reading() && &b != magic {
            return Err(NelError::Format {
                offset: at,
                path: self.state_ref().path_string(),
                what: format!(
                    "expected magic {:?}, found {:?}",
                    String::from_utf8_lossy(magic),
                    String::from_utf8_lossy(&b)
                ),
            });
        }
        Ok(())
    }

    /// Read/write a u32 element count, checking it against the bytes left.
    fn count(&mut self, n: &mut usize, min_size: usize) -> Result<(), NelError> {
        let mut c = *n as u32;
        if !self.reading() && *n > u32::MAX as usize {
            return Err(self.err("container too large"));
        }
        self.ser(&mut c)?;
        if self.reading() {
            let need = (c as u64) * (min_size.max(1) as u64);
            if c as i32 >= 0 && need <= self.remaining() as u64 {
                *n = c as usize;
            } else if (c as i32) < 0 {
                return Err(self.err(format!("negative container length {}", c as i32)));
            } else {
                return Err(self.err(format!(
                    "container of {c} elements needs at least {need} bytes, {} left",
                    self.remaining()
                )));
            }
        }
        Ok(())
    }

    /// `serialCont`: u32 count then the elements.
    fn vec<T: Serial + Default>(&mut self, v: &mut Vec<T>) -> Result<(), NelError> {
        let mut n = v.len();
        self.count(&mut n, T::MIN_SIZE)?;
        if self.reading() {
            v.clear();
            v.reserve(n.min(1 << 16));
            for i in 0..n {
                let mut e = T::default();
                self.state().path.push(Ctx::Index(i));
                e.serial(self)?;
                self.state().path.pop();
                v.push(e);
            }
        } else {
            for (i, e) in v.iter_mut().enumerate() {
                self.state().path.push(Ctx::Index(i));
                e.serial(self)?;
                self.state().path.pop();
            }
        }
        Ok(())
    }

    /// Elements without a count (the count is known from elsewhere).
    fn vec_n<T: Serial + Default>(&mut self, v: &mut Vec<T>, n: usize) -> Result<(), NelError> {
        if self.reading() {
            let need = (n as u64) * (T::MIN_SIZE as u64);
            if need > self.remaining() as u64 {
                return Err(self.err(format!(
                    "{n} elements need at least {need} bytes, {} left",
                    self.remaining()
                )));
            }
            v.clear();
            v.reserve(n.min(1 << 16));
            for _ in 0..n {
                let mut e = T::default();
                e.serial(self)?;
                v.push(e);
            }
            Ok(())
        } else {
            if v.len() != n {
                return Err(self.err(format!("expected {n} elements, model has {}", v.len())));
            }
            for e in v.iter_mut() {
                e.serial(self)?;
            }
            Ok(())
        }
    }

    /// `serialCont` of bytes (`serialBuffer` with a u32 length).
    fn bytes(&mut self, v: &mut Vec<u8>) -> Result<(), NelError> {
        let mut n = v.len();
        self.count(&mut n, 1)?;
        self.raw_vec(v, n)
    }

    /// A polymorphic pointer (`serialPolyPtr`): u64 id; class name and object on first use.
    fn poly<T: PolyClass>(&mut self, p: &mut Ptr<T>) -> Result<(), NelError> {
        if self.reading() {
            let mut id = 0u64;
            self.ser(&mut id)?;
            if id == 0 {
                *p = Ptr::Null;
                return Ok(());
            }
            if self.state().seen_ids.contains(&id) {
                *p = Ptr::Ref(id);
                return Ok(());
            }
            self.state().seen_ids.insert(id);
            let at = self.pos();
            let mut name = String::new();
            self.ser(&mut name)?;
            let Some(mut obj) = T::create(&name) else {
                return Err(NelError::UnsupportedClass {
                    class: name,
                    family: T::FAMILY,
                    offset: at,
                    path: self.state_ref().path_string(),
                });
            };
            self.ctx(T::FAMILY, |s| obj.serial_body(s))?;
            *p = Ptr::Obj {
                id,
                obj: Box::new(obj),
            };
            Ok(())
        } else {
            match p {
                Ptr::Null => self.ser(&mut 0u64),
                Ptr::Ref(id) => self.ser(id),
                Ptr::Obj { id, obj } => {
                    self.ser(id)?;
                    let mut name = obj.class_name().to_string();
                    self.ser(&mut name)?;
                    obj.serial_body(self)
                }
            }
        }
    }

    /// A non-polymorphic pointer (`serialPtr`): u64 id, object inline on first use.
    fn ptr<T: Serial + Default>(&mut self, p: &mut Ptr<T>) -> Result<(), NelError> {
        if self.reading() {
            let mut id = 0u64;
            self.ser(&mut id)?;
            if id == 0 {
                *p = Ptr::Null;
            } else if self.state().seen_ids.contains(&id) {
                *p = Ptr::Ref(id);
            } else {
                self.state().seen_ids.insert(id);
                let mut obj = T::default();
                obj.serial(self)?;
                *p = Ptr::Obj {
                    id,
                    obj: Box::new(obj),
                };
            }
            Ok(())
        } else {
            match p {
                Ptr::Null => self.ser(&mut 0u64),
                Ptr::Ref(id) => self.ser(id),
                Ptr::Obj { id, obj } => {
                    self.ser(id)?;
                    obj.serial(self)
                }
            }
        }
    }

    /// A fixed-size array of serializable elements.
    fn array<T: Serial, const N: usize>(&mut self, a: &mut [T; N]) -> Result<(), NelError> {
        for e in a.iter_mut() {
            e.serial(self)?;
        }
        Ok(())
    }
}

/// A value that can be read from and written to a NeL stream.
pub trait Serial {
    /// Smallest encoded size in bytes; bounds container counts on untrusted input.
    const MIN_SIZE: usize = 1;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError>;
}

/// A closed set of classes behind a polymorphic pointer.
pub trait PolyClass: Sized {
    /// Name of the pointer family for error paths (e.g. "ITexture").
    const FAMILY: &'static str;
    fn create(class: &str) -> Option<Self>;
    fn class_name(&self) -> &str;
    fn serial_body<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError>;
}

/// A stored pointer: null, a back-reference to an object already in the stream, or an object.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ptr<T> {
    #[default]
    Null,
    Ref(u64),
    Obj {
        id: u64,
        obj: Box<T>,
    },
}

impl<T> Ptr<T> {
    pub fn get(&self) -> Option<&T> {
        match self {
            Ptr::Obj { obj, .. } => Some(obj),
            _ => None,
        }
    }
}
