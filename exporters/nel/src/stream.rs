//! NeL binary stream conventions (little-endian `IStream`), shared by every format.
//!
//! One `serial` method per structure drives both directions, as NeL's own `serial()`
//! does: the same code path reads and writes, so the two cannot drift apart.

use std::collections::HashSet;
use std::fmt;

use serde::{Serialize, Serializer};

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

/// A 32-bit float kept as its bit pattern, so NaN payloads and signed zeros survive.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct F32(pub u32);

impl F32 {
    pub fn get(self) -> f32 {
        f32::from_bits(self.0)
    }
    pub fn from_f32(v: f32) -> Self {
        F32(v.to_bits())
    }
}

impl fmt::Debug for F32 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.get())
    }
}

impl Serialize for F32 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.get();
        if v.is_finite() {
            // Shortest text that reads back to the same f32, then carried as f64.
            let txt = format!("{v}");
            let d: f64 = txt.parse().unwrap_or(v as f64);
            s.serialize_f64(d)
        } else {
            s.serialize_str(&format!("f32:0x{:08x}", self.0))
        }
    }
}

/// Bytes shown in JSON as a hex string (short opaque payloads).
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct Bytes(pub Vec<u8>);

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = String::with_capacity(self.0.len() * 2);
        for b in &self.0 {
            t.push_str(&format!("{b:02x}"));
        }
        s.serialize_str(&t)
    }
}

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

macro_rules! prim {
    ($t:ty, $n:expr) => {
        impl Serial for $t {
            const MIN_SIZE: usize = $n;
            fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
                let mut b = self.to_le_bytes();
                s.raw(&mut b)?;
                if s.reading() {
                    *self = <$t>::from_le_bytes(b);
                }
                Ok(())
            }
        }
    };
}
prim!(u8, 1);
prim!(i8, 1);
prim!(u16, 2);
prim!(i16, 2);
prim!(u32, 4);
prim!(i32, 4);
prim!(u64, 8);
prim!(i64, 8);

impl Serial for F32 {
    const MIN_SIZE: usize = 4;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ser(&mut self.0)
    }
}

/// NeL stores `bool` as one byte; any non-zero value is kept as is for exact rewrite.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Bool(pub u8);

impl Serialize for Bool {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 <= 1 {
            s.serialize_bool(self.0 != 0)
        } else {
            s.serialize_u8(self.0)
        }
    }
}

impl Bool {
    pub fn get(self) -> bool {
        self.0 != 0
    }
}

impl Serial for Bool {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ser(&mut self.0)
    }
}

impl Serial for String {
    const MIN_SIZE: usize = 4;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        if s.reading() {
            let mut n = 0;
            s.count(&mut n, 1)?;
            let mut v = Vec::new();
            s.raw_vec(&mut v, n)?;
            *self = decode_string(v);
            Ok(())
        } else {
            let mut v = string_bytes(self);
            let mut n = v.len();
            s.count(&mut n, 1)?;
            s.raw(&mut v)
        }
    }
}

/// First char of the private-use block that carries bytes that were not valid UTF-8.
const ESCAPE_BASE: u32 = 0xF780;

/// NeL strings are raw bytes (often Windows-1252 paths). Valid UTF-8 is kept as text;
/// each invalid byte becomes U+F780+byte so the string still writes back exactly.
fn decode_string(v: Vec<u8>) -> String {
    match String::from_utf8(v) {
        Ok(t) if !t.chars().any(is_escape) => t,
        Ok(t) => {
            // Text that already holds escape-range chars: escape their bytes too.
            let mut out = String::with_capacity(t.len() * 3);
            let mut buf = [0u8; 4];
            for c in t.chars() {
                if is_escape(c) {
                    for &b in c.encode_utf8(&mut buf).as_bytes() {
                        out.push(char::from_u32(ESCAPE_BASE + b as u32).unwrap_or('?'));
                    }
                } else {
                    out.push(c);
                }
            }
            out
        }
        Err(e) => {
            let bytes = e.into_bytes();
            let mut out = String::with_capacity(bytes.len());
            for chunk in bytes.utf8_chunks() {
                out.push_str(chunk.valid());
                for &b in chunk.invalid() {
                    out.push(char::from_u32(ESCAPE_BASE + b as u32).unwrap_or('?'));
                }
            }
            out
        }
    }
}

fn is_escape(c: char) -> bool {
    (ESCAPE_BASE..ESCAPE_BASE + 256).contains(&(c as u32))
}

/// Inverse of [`decode_string`].
fn string_bytes(t: &str) -> Vec<u8> {
    if !t
        .chars()
        .any(|c| (ESCAPE_BASE..ESCAPE_BASE + 256).contains(&(c as u32)))
    {
        return t.as_bytes().to_vec();
    }
    let mut out = Vec::with_capacity(t.len());
    let mut buf = [0u8; 4];
    for c in t.chars() {
        let u = c as u32;
        if (ESCAPE_BASE..ESCAPE_BASE + 256).contains(&u) {
            out.push((u - ESCAPE_BASE) as u8);
        } else {
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    out
}

impl<T: Serial + Default> Serial for Vec<T> {
    const MIN_SIZE: usize = 4;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.vec(self)
    }
}

impl<T: Serial, const N: usize> Serial for [T; N] {
    const MIN_SIZE: usize = T::MIN_SIZE * N;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.array(self)
    }
}

impl<A: Serial, B: Serial> Serial for (A, B) {
    const MIN_SIZE: usize = A::MIN_SIZE + B::MIN_SIZE;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        self.0.serial(s)?;
        self.1.serial(s)
    }
}

impl<A: Serial, B: Serial, C: Serial> Serial for (A, B, C) {
    const MIN_SIZE: usize = A::MIN_SIZE + B::MIN_SIZE + C::MIN_SIZE;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        self.0.serial(s)?;
        self.1.serial(s)?;
        self.2.serial(s)
    }
}

/// Declares a plain struct whose fields are serialized in order, with Serde output.
#[macro_export]
macro_rules! nel_struct {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $f:ident : $t:ty),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Default, serde::Serialize)]
        pub struct $name { $($(#[$fm])* pub $f: $t),* }
        impl $crate::stream::Serial for $name {
            const MIN_SIZE: usize = 0 $(+ <$t as $crate::stream::Serial>::MIN_SIZE)*;
            fn serial<S: $crate::stream::Stream>(&mut self, s: &mut S) -> Result<(), $crate::NelError> {
                $( s.ser(&mut self.$f)?; )*
                Ok(())
            }
        }
    };
}

/// Declares a struct that starts with a `serialVersion` fixed at one accepted maximum.
#[macro_export]
macro_rules! nel_versioned {
    ($(#[$m:meta])* $name:ident ($max:expr) { $($(#[$fm:meta])* $f:ident : $t:ty),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Default, serde::Serialize)]
        pub struct $name { pub version: u32, $($(#[$fm])* pub $f: $t),* }
        impl $crate::stream::Serial for $name {
            const MIN_SIZE: usize = 1 $(+ <$t as $crate::stream::Serial>::MIN_SIZE)*;
            fn serial<S: $crate::stream::Stream>(&mut self, s: &mut S) -> Result<(), $crate::NelError> {
                s.version(&mut self.version, $max, stringify!($name))?;
                $( s.ser(&mut self.$f)?; )*
                Ok(())
            }
        }
    };
}

// Common math types.
nel_struct!(
    /// `CVector`.
    Vec3 { x: F32, y: F32, z: F32 }
);
nel_struct!(
    /// `CUV` / `CVector2f`.
    Vec2 { u: F32, v: F32 }
);
nel_struct!(
    /// `CQuat`.
    Quat { x: F32, y: F32, z: F32, w: F32 }
);
nel_struct!(
    /// `CRGBA`.
    Rgba { r: u8, g: u8, b: u8, a: u8 }
);
nel_struct!(
    /// `CRGBAF`.
    RgbaF { r: F32, g: F32, b: F32, a: F32 }
);
nel_versioned!(
    /// `CAABBox` (also `CAABBoxExt`: the radius is not stored).
    AaBox(0) { center: Vec3, half_size: Vec3 }
);
nel_struct!(
    /// `CPlane`.
    Plane { a: F32, b: F32, c: F32, d: F32 }
);

/// `CMatrix`: version, state bits, then only the parts the state bits say are present.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Matrix {
    pub version: u32,
    pub state_bits: u32,
    pub scale33: F32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rot: Option<[F32; 9]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trans: Option<[F32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proj: Option<[F32; 4]>,
}

impl Serial for Matrix {
    const MIN_SIZE: usize = 9;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 0, "CMatrix")?;
        s.ser(&mut self.state_bits)?;
        s.ser(&mut self.scale33)?;
        let sb = self.state_bits;
        opt(s, &mut self.rot, sb & (2 | 4 | 8) != 0)?;
        opt(s, &mut self.trans, sb & 1 != 0)?;
        opt(s, &mut self.proj, sb & 16 != 0)
    }
}

/// Serialize an optional field that is present exactly when `present` holds.
pub fn opt<S: Stream, T: Serial + Default>(
    s: &mut S,
    v: &mut Option<T>,
    present: bool,
) -> Result<(), NelError> {
    if !present {
        if !s.reading() && v.is_some() {
            return Err(s.err("optional field set but its presence flag is off"));
        }
        *v = None;
        return Ok(());
    }
    if s.reading() {
        let mut t = T::default();
        t.serial(s)?;
        *v = Some(t);
        Ok(())
    } else {
        match v {
            Some(t) => t.serial(s),
            None => Err(s.err("optional field missing but its presence flag is on")),
        }
    }
}
