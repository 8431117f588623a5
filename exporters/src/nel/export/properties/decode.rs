//! Reading AppData values as the plug-in does: C strings, its number parsing, colours.

use super::*;

/// The value text of an entry: the C string up to the first NUL, 8-bit.
/// `None` when the value is not NUL-terminated (the plug-in then uses the default).
pub(super) fn c_text(v: &[u8]) -> Option<String> {
    if v.last() != Some(&0) {
        return None;
    }
    let end = v.iter().position(|&b| b == 0).unwrap_or(v.len());
    Some(v[..end].iter().map(|&b| b as char).collect())
}

/// Text of a value written as TCHAR by a Unicode Max (object INSTANCE_SHAPE):
/// UTF-16 when it looks like it, else the 8-bit C string.
pub(super) fn any_text(v: &[u8]) -> Option<String> {
    if v.len() >= 4 && v.len().is_multiple_of(2) && v[1] == 0 && v[0] != 0 {
        let units: Vec<u16> = v
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .take_while(|&u| u != 0)
            .collect();
        return String::from_utf16(&units).ok();
    }
    c_text(v)
}

/// `sscanf("%d")`: optional blanks and sign, then digits; trailing text ignored
/// (NLMISC::fromString accepts "1.0" as 1).
pub(super) fn parse_int(s: &str) -> Option<i32> {
    let t = s.trim_start();
    let (neg, rest) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits: &str = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
    if digits.is_empty() {
        return None;
    }
    let v: i64 = digits.parse().ok()?;
    let v = if neg { -v } else { v };
    i32::try_from(v).ok()
}

/// toFloatMax: a decimal float; a comma is accepted as decimal separator
/// (Max writes floats with the user's locale).
pub(super) fn parse_float(s: &str) -> Option<f32> {
    let t = s.trim();
    t.parse::<f32>()
        .ok()
        .or_else(|| t.replace(',', ".").parse::<f32>().ok())
        .filter(|f| f.is_finite())
}

/// getScriptAppData for CRGBA: "%d %d %d %d", missing components 255, clamped.
pub(super) fn parse_rgba(s: &str) -> [u8; 4] {
    let mut c = [255u8; 4];
    for (slot, word) in c.iter_mut().zip(s.split_whitespace()) {
        match parse_int(word) {
            Some(v) => *slot = v.clamp(0, 255) as u8,
            None => break,
        }
    }
    c
}

/// Decoding state of one node: records which fields were set and the warnings.
pub(super) struct Decoder<'a> {
    pub(super) p: &'a mut NodeProperties,
    pub(super) id: u32,
    pub(super) text: Option<String>,
}

impl Decoder<'_> {
    pub(super) fn warn(&mut self, field: &str, what: &str) {
        let shown = self.text.as_deref().unwrap_or("<not NUL-terminated>");
        self.p.warnings.push(format!(
            "{field} (id {}): {what} {shown:?}; default kept",
            self.id
        ));
    }

    pub(super) fn mark(&mut self, field: &'static str) {
        if !self.p.set.contains(&field) {
            self.p.set.push(field);
        }
    }

    pub(super) fn int(&mut self, field: &'static str) -> Option<i32> {
        match self.text.as_deref().and_then(parse_int) {
            Some(v) => {
                self.mark(field);
                Some(v)
            }
            None => {
                self.warn(field, "not an integer:");
                None
            }
        }
    }

    /// A checkbox: the plug-in tests `!= BST_UNCHECKED` (or `== BST_CHECKED`,
    /// the same for the values the dialogs write).
    pub(super) fn flag(&mut self, field: &'static str) -> Option<bool> {
        self.int(field).map(|v| v != 0)
    }

    pub(super) fn float(&mut self, field: &'static str) -> Option<f32> {
        match self.text.as_deref().and_then(parse_float) {
            Some(v) => {
                self.mark(field);
                Some(v)
            }
            None => {
                self.warn(field, "not a number:");
                None
            }
        }
    }

    pub(super) fn string(&mut self, field: &'static str) -> Option<String> {
        match self.text.clone() {
            Some(s) => {
                self.mark(field);
                Some(s)
            }
            None => {
                self.warn(field, "not a C string:");
                None
            }
        }
    }

    pub(super) fn rgba(&mut self, field: &'static str) -> Option<[u8; 4]> {
        let s = self.string(field)?;
        Some(parse_rgba(&s))
    }
}

macro_rules! set {
    ($d:expr, $field:ident, $method:ident) => {
        if let Some(v) = $d.$method(stringify!($field)) {
            $d.p.$field = v;
        }
    };
}

pub(super) fn is_nel(e: &AppDataEntry) -> bool {
    e.class_id == NEL_CLASS_ID && e.super_class == NEL_SUPER_CLASS
}
