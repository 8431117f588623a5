//! The values every format serializes: floats kept as their bits, NeL booleans and
//! strings, containers, matrices, optional fields and the structure macros.

use std::fmt;

use serde::{Serialize, Serializer};

use super::*;

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
impl From<[f32; 3]> for Vec3 {
    fn from(a: [f32; 3]) -> Vec3 {
        Vec3 {
            x: F32::from_f32(a[0]),
            y: F32::from_f32(a[1]),
            z: F32::from_f32(a[2]),
        }
    }
}

/// From `[x, y, z, w]`.
impl From<[f32; 4]> for Quat {
    fn from(a: [f32; 4]) -> Quat {
        Quat {
            x: F32::from_f32(a[0]),
            y: F32::from_f32(a[1]),
            z: F32::from_f32(a[2]),
            w: F32::from_f32(a[3]),
        }
    }
}
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
