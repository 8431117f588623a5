//! OLE property sets ([MS-OLEPS]) as Max writes them in `\x05SummaryInformation`
//! and `\x05DocumentSummaryInformation`, and the thumbnail DIB inside the former.
//! Decoding is bounds-checked throughout: a damaged set yields an error, never a panic.

use crate::reader::{ByteReader, ReadError};

/// FMTID of the summary information section (F29F85E0-4FF9-1068-AB91-08002B27B3D9), as stored.
pub const FMTID_SUMMARY: [u8; 16] = [
    0xe0, 0x85, 0x9f, 0xf2, 0xf9, 0x4f, 0x68, 0x10, 0xab, 0x91, 0x08, 0x00, 0x2b, 0x27, 0xb3, 0xd9,
];
/// FMTID of the document summary section (D5CDD502-2E9C-101B-9397-08002B2CF9AE).
pub const FMTID_DOC_SUMMARY: [u8; 16] = [
    0x02, 0xd5, 0xcd, 0xd5, 0x9c, 0x2e, 0x1b, 0x10, 0x93, 0x97, 0x08, 0x00, 0x2b, 0x2c, 0xf9, 0xae,
];
/// FMTID of the user-defined section (D5CDD505-2E9C-101B-9397-08002B2CF9AE), where Max
/// keeps its custom file properties.
pub const FMTID_USER_DEFINED: [u8; 16] = [
    0x05, 0xd5, 0xcd, 0xd5, 0x9c, 0x2e, 0x1b, 0x10, 0x93, 0x97, 0x08, 0x00, 0x2b, 0x2c, 0xf9, 0xae,
];

/// PIDSI_THUMBNAIL: the clipboard-format preview in the summary section.
pub const PID_THUMBNAIL: u32 = 17;
/// Property 1 of every section: the code page of its 8-bit strings.
pub const PID_CODEPAGE: u32 = 1;
const CODEPAGE_UTF16: u16 = 1200;

const VT_VECTOR: u32 = 0x1000;

/// A property value, decoded by its VARIANT type.
#[derive(Debug, Clone, PartialEq)]
pub enum PropValue {
    Empty,
    I2(i16),
    I4(i32),
    Ui2(u16),
    Ui4(u32),
    I8(i64),
    Ui8(u64),
    R4(f32),
    R8(f64),
    Bool(bool),
    /// VT_LPSTR or VT_LPWSTR, decoded (trailing NULs removed).
    Str(String),
    /// VT_FILETIME: 100 ns ticks since 1601-01-01 (or a duration, for edit time).
    FileTime(u64),
    /// VT_CF: clipboard format tag (-1 = Windows format follows, -2 = Mac, -3 = FMTID,
    /// >0 = name length) and the data that follows it.
    ClipboardData {
        tag: i32,
        format: u32,
        data: Vec<u8>,
    },
    Blob(Vec<u8>),
    /// VT_CLSID, as stored (little-endian GUID).
    Clsid([u8; 16]),
    Vector(Vec<PropValue>),
    /// A type this decoder does not know: its VARIANT type and bytes up to the next property.
    Unknown {
        vt: u32,
        bytes: Vec<u8>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub id: u32,
    pub vt: u32,
    pub value: PropValue,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub fmtid: [u8; 16],
    pub properties: Vec<Property>,
    /// Property 0 of user-defined sections: property id → name.
    pub dictionary: Vec<(u32, String)>,
}

impl Section {
    pub fn get(&self, id: u32) -> Option<&PropValue> {
        self.properties
            .iter()
            .find(|p| p.id == id)
            .map(|p| &p.value)
    }

    pub fn codepage(&self) -> Option<u16> {
        match self.get(PID_CODEPAGE)? {
            PropValue::I2(v) => Some(*v as u16),
            PropValue::Ui2(v) => Some(*v),
            _ => None,
        }
    }

    /// The dictionary name of a property, when the section has one.
    pub fn name_of(&self, id: u32) -> Option<&str> {
        self.dictionary
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, n)| n.as_str())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct PropertySet {
    pub version: u16,
    /// OS kind (high word) and version (low word) of the writer.
    pub system_id: u32,
    pub clsid: [u8; 16],
    pub sections: Vec<Section>,
}

impl PropertySet {
    pub fn section(&self, fmtid: &[u8; 16]) -> Option<&Section> {
        self.sections.iter().find(|s| &s.fmtid == fmtid)
    }
}

/// Why a property set could not be decoded: the read that failed, inside the
/// section and property it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PropertySetError {
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error("{context}: {source}")]
    In {
        context: String,
        #[source]
        source: Box<PropertySetError>,
    },
}

impl PropertySetError {
    fn within(self, context: impl Into<String>) -> PropertySetError {
        PropertySetError::In {
            context: context.into(),
            source: Box::new(self),
        }
    }
}

fn invalid(at: usize, what: &str, detail: impl Into<String>) -> PropertySetError {
    PropertySetError::Read(ReadError::Invalid {
        what: what.into(),
        offset: at,
        detail: detail.into(),
    })
}

type Reader<'a> = ByteReader<'a>;

fn pad4(n: usize) -> usize {
    n.saturating_add(3) & !3
}

fn decode_8bit(b: &[u8], codepage: Option<u16>) -> String {
    // UTF-8 (65001) decodes as such; every other 8-bit code page is shown as Latin-1,
    // which is exact for ASCII and close for Windows-1252.
    let s = if codepage == Some(65001) {
        String::from_utf8_lossy(b).into_owned()
    } else {
        b.iter().map(|&c| c as char).collect()
    };
    s.trim_end_matches('\0').to_string()
}

fn decode_utf16(b: &[u8]) -> String {
    let units: Vec<u16> = b
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    String::from_utf16_lossy(&units)
        .trim_end_matches('\0')
        .to_string()
}

/// Decodes one typed value at `at`; returns it and the offset just past it (4-aligned).
fn value(
    r: &Reader,
    vt: u32,
    at: usize,
    end: usize,
    codepage: Option<u16>,
    depth: usize,
) -> Result<(PropValue, usize), PropertySetError> {
    if depth > 4 {
        return Err(invalid(at, "variant", "nested deeper than 4 levels"));
    }
    if vt & VT_VECTOR != 0 {
        let count = r.u32_at(at, "vector length")? as usize;
        let mut items = Vec::with_capacity(count.min(1024));
        let mut pos = at + 4;
        for _ in 0..count {
            if pos >= end {
                return Err(invalid(
                    at,
                    "vector",
                    format!("{count} items run past its property"),
                ));
            }
            let (item, next) = if vt & !VT_VECTOR == 12 {
                // VT_VARIANT: each item carries its own type.
                let ivt = r.u32_at(pos, "variant type")?;
                value(r, ivt, pos + 4, end, codepage, depth + 1)?
            } else {
                value(r, vt & !VT_VECTOR, pos, end, codepage, depth + 1)?
            };
            items.push(item);
            pos = next;
        }
        return Ok((PropValue::Vector(items), pos));
    }
    let v = match vt {
        0 | 1 => (PropValue::Empty, at),
        2 => (PropValue::I2(r.u16_at(at, "VT_I2")? as i16), at + 4),
        18 => (PropValue::Ui2(r.u16_at(at, "VT_UI2")?), at + 4),
        3 | 22 => (PropValue::I4(r.u32_at(at, "VT_I4")? as i32), at + 4),
        19 | 23 => (PropValue::Ui4(r.u32_at(at, "VT_UI4")?), at + 4),
        20 => (PropValue::I8(r.u64_at(at, "VT_I8")? as i64), at + 8),
        21 => (PropValue::Ui8(r.u64_at(at, "VT_UI8")?), at + 8),
        4 => (
            PropValue::R4(f32::from_bits(r.u32_at(at, "VT_R4")?)),
            at + 4,
        ),
        5 => (
            PropValue::R8(f64::from_bits(r.u64_at(at, "VT_R8")?)),
            at + 8,
        ),
        11 => (PropValue::Bool(r.u16_at(at, "VT_BOOL")? != 0), at + 4),
        64 => (PropValue::FileTime(r.u64_at(at, "VT_FILETIME")?), at + 8),
        72 => (
            PropValue::Clsid(
                r.slice_at(at, 16, "VT_CLSID")?
                    .try_into()
                    .map_err(|_| invalid(at, "VT_CLSID", "not 16 bytes"))?,
            ),
            at + 16,
        ),
        30 => {
            let n = r.u32_at(at, "VT_LPSTR length")? as usize;
            // The size counts bytes (not characters) even under code page 1200.
            if codepage == Some(CODEPAGE_UTF16) {
                let b = r.slice_at(at + 4, n, "VT_LPSTR (UTF-16)")?;
                (PropValue::Str(decode_utf16(b)), at + 4 + pad4(n))
            } else {
                let b = r.slice_at(at + 4, n, "VT_LPSTR")?;
                (PropValue::Str(decode_8bit(b, codepage)), at + 4 + pad4(n))
            }
        }
        31 => {
            let n = r.u32_at(at, "VT_LPWSTR length")? as usize;
            let b = r.slice_at(at + 4, n.saturating_mul(2), "VT_LPWSTR")?;
            (PropValue::Str(decode_utf16(b)), at + 4 + pad4(n * 2))
        }
        65 | 70 => {
            let n = r.u32_at(at, "VT_BLOB size")? as usize;
            let b = r.slice_at(at + 4, n, "VT_BLOB")?;
            (PropValue::Blob(b.to_vec()), at + 4 + pad4(n))
        }
        71 => {
            let cb = r.u32_at(at, "VT_CF size")? as usize;
            if cb < 4 {
                return Err(invalid(
                    at,
                    "VT_CF",
                    format!("size {cb} leaves no room for its format tag"),
                ));
            }
            let body = r.slice_at(at + 4, cb, "VT_CF data")?;
            let tag = i32::from_le_bytes([body[0], body[1], body[2], body[3]]);
            let (format, data) = if tag == -1 || tag == -2 {
                if body.len() < 8 {
                    return Err(invalid(at, "VT_CF", "clipboard format missing"));
                }
                (
                    u32::from_le_bytes([body[4], body[5], body[6], body[7]]),
                    &body[8..],
                )
            } else {
                (0, &body[4..])
            };
            (
                PropValue::ClipboardData {
                    tag,
                    format,
                    data: data.to_vec(),
                },
                at + 4 + pad4(cb),
            )
        }
        _ => {
            let b = r.slice_at(at, end.saturating_sub(at), "property")?;
            (
                PropValue::Unknown {
                    vt,
                    bytes: b.to_vec(),
                },
                end,
            )
        }
    };
    Ok(v)
}

fn dictionary(
    r: &Reader,
    at: usize,
    codepage: Option<u16>,
) -> Result<Vec<(u32, String)>, PropertySetError> {
    let count = r.u32_at(at, "dictionary count")? as usize;
    let mut out = Vec::with_capacity(count.min(1024));
    let mut pos = at + 4;
    for _ in 0..count {
        let id = r.u32_at(pos, "dictionary id")?;
        let n = r.u32_at(pos + 4, "dictionary name length")? as usize;
        pos += 8;
        if codepage == Some(CODEPAGE_UTF16) {
            let b = r.slice_at(pos, n.saturating_mul(2), "dictionary name")?;
            out.push((id, decode_utf16(b)));
            pos += pad4(n * 2);
        } else {
            let b = r.slice_at(pos, n, "dictionary name")?;
            out.push((id, decode_8bit(b, codepage)));
            pos += n;
        }
    }
    Ok(out)
}

fn section(r: &Reader, fmtid: [u8; 16], start: usize) -> Result<Section, PropertySetError> {
    let size = r.u32_at(start, "section size")? as usize;
    let count = r.u32_at(start + 4, "property count")? as usize;
    let sec = Reader::new(r.slice_at(start, size, "section")?);
    let mut offsets = Vec::with_capacity(count.min(4096));
    for i in 0..count {
        let id = sec.u32_at(8 + i * 8, "property id")?;
        let off = sec.u32_at(12 + i * 8, "property offset")? as usize;
        offsets.push((id, off));
    }
    // The codepage decides how strings (and the dictionary) are read.
    let codepage = offsets
        .iter()
        .find(|(id, _)| *id == PID_CODEPAGE)
        .and_then(|&(_, off)| {
            let vt = sec.u32_at(off, "type").ok()?;
            (vt == 2 || vt == 18)
                .then(|| sec.u16_at(off + 4, "codepage").ok())
                .flatten()
        });
    let mut sorted: Vec<usize> = offsets.iter().map(|&(_, o)| o).collect();
    sorted.sort_unstable();
    let mut properties = Vec::with_capacity(offsets.len());
    let mut dict = Vec::new();
    for &(id, off) in &offsets {
        let end = sorted.iter().copied().find(|&o| o > off).unwrap_or(size);
        if id == 0 {
            dict =
                dictionary(&sec, off, codepage).map_err(|e| e.within("property 0 (dictionary)"))?;
            continue;
        }
        let vt = sec.u32_at(off, "property type")?;
        let (value, _) = value(&sec, vt, off + 4, end, codepage, 0)
            .map_err(|e| e.within(format!("property {id} (type {vt:#x}) at {off:#x}")))?;
        properties.push(Property { id, vt, value });
    }
    Ok(Section {
        fmtid,
        properties,
        dictionary: dict,
    })
}

/// Decodes a property set stream.
pub fn parse_property_set(data: &[u8]) -> Result<PropertySet, PropertySetError> {
    let r = Reader::new(data);
    let order = r.u16_at(0, "byte order")?;
    if order != 0xFFFE {
        return Err(invalid(
            0,
            "byte order mark",
            format!("{order:#06x}, expected 0xfffe"),
        ));
    }
    let version = r.u16_at(2, "version")?;
    let system_id = r.u32_at(4, "system id")?;
    let mut clsid = [0u8; 16];
    clsid.copy_from_slice(r.slice_at(8, 16, "clsid")?);
    let count = r.u32_at(24, "section count")? as usize;
    if count > 16 {
        return Err(invalid(
            24,
            "section count",
            format!("{count}: a property set holds one or two"),
        ));
    }
    let mut sections = Vec::with_capacity(count);
    for i in 0..count {
        let mut fmtid = [0u8; 16];
        fmtid.copy_from_slice(r.slice_at(28 + i * 20, 16, "section fmtid")?);
        let off = r.u32_at(44 + i * 20, "section offset")? as usize;
        sections.push(section(&r, fmtid, off).map_err(|e| e.within(format!("section {i}")))?);
    }
    Ok(PropertySet {
        version,
        system_id,
        clsid,
        sections,
    })
}

/// Clipboard format numbers of a thumbnail.
const CF_METAFILEPICT: u32 = 3;
const CF_DIB: u32 = 8;

/// The thumbnail of a summary property set as a packed DIB (BITMAPINFOHEADER,
/// palette, pixels), when there is one: CF_DIB directly, or the DIB inside the
/// CF_METAFILEPICT metafile (found by its 40-byte header).
pub fn thumbnail_dib(set: &PropertySet) -> Option<&[u8]> {
    match set.section(&FMTID_SUMMARY)?.get(PID_THUMBNAIL)? {
        PropValue::ClipboardData {
            tag: -1,
            format,
            data,
        } => match *format {
            CF_DIB => Some(data),
            CF_METAFILEPICT => find_dib(data),
            _ => find_dib(data),
        },
        _ => None,
    }
}

/// Finds a plausible BITMAPINFOHEADER (biSize 40, 1 plane, a known bit depth,
/// sane dimensions) in a metafile and returns the DIB from there to the end.
pub fn find_dib(data: &[u8]) -> Option<&[u8]> {
    let le32 = |b: &[u8], at: usize| -> Option<u32> {
        b.get(at..at + 4)
            .map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]))
    };
    let le16 = |b: &[u8], at: usize| -> Option<u16> {
        b.get(at..at + 2).map(|x| u16::from_le_bytes([x[0], x[1]]))
    };
    (0..data.len().saturating_sub(40)).step_by(2).find_map(|i| {
        let width = le32(data, i + 4)? as i32;
        let height = le32(data, i + 8)? as i32;
        let ok = le32(data, i)? == 40
            && le16(data, i + 12)? == 1
            && matches!(le16(data, i + 14)?, 1 | 4 | 8 | 16 | 24 | 32)
            && (1..=8192).contains(&width)
            && height != 0
            && height.unsigned_abs() <= 8192;
        ok.then(|| &data[i..])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_sets_are_errors() {
        assert!(parse_property_set(&[]).is_err());
        assert!(parse_property_set(&[0xfe, 0xff, 0, 0]).is_err());
        let mut b = vec![0xfe, 0xff, 0, 0, 0, 0, 0, 0];
        b.extend_from_slice(&[0; 16]);
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&FMTID_SUMMARY);
        b.extend_from_slice(&0xffff_fff0u32.to_le_bytes());
        assert!(parse_property_set(&b).is_err());
    }
}
