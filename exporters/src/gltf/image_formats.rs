//! Image formats the `image` crate does not read, decoded with dedicated
//! crates before the PNG re-encoding: Photoshop PSD (the flattened composite,
//! `psd`) and DirectDraw Surface DDS (first surface, top mip level; BC1–BC7 and
//! uncompressed layouts, `image_dds`). Both headers are checked against the
//! size limit before any pixel is decoded, and the third-party parsers run
//! under `catch_unwind`, so a damaged file is a decode error, never a panic.

/// A format handled here rather than by `image`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Extra {
    Psd,
    Dds,
}

/// The format of `data` when it is one of ours: by signature ("8BPS",
/// "DDS "), whatever the file's extension says.
pub(super) fn sniff(data: &[u8]) -> Option<Extra> {
    match data.get(..4)? {
        b"8BPS" => Some(Extra::Psd),
        b"DDS " => Some(Extra::Dds),
        _ => None,
    }
}

/// Why a PSD or DDS image could not be read; the third-party decoders'
/// own errors are kept as their text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImageFormatError {
    #[error("{0} bytes: header cut short")]
    HeaderShort(usize),
    #[error("PSD: {0} bytes: cut short")]
    PsdShort(usize),
    #[error("PSD: {0}")]
    Psd(String),
    #[error("DDS: {0}")]
    Dds(String),
    #[error("{0:?}: the decoder failed on damaged data")]
    Panicked(Extra),
    #[error("{w}×{h} is outside 1..{max} pixels a side")]
    Side { w: u32, h: u32, max: u32 },
    #[error("{w}×{h} is over the {budget} byte decode budget")]
    Budget { w: u32, h: u32, budget: u64 },
    #[error("PNG encoding: {0}")]
    Png(String),
}

/// Width and height from the header (PSD: big-endian height at 14, width at
/// 18; DDS: little-endian height at 12, width at 16).
pub(super) fn dimensions(kind: Extra, data: &[u8]) -> Result<(u32, u32), ImageFormatError> {
    let word = |at: usize, big: bool| {
        data.get(at..at + 4)
            .map(|b| {
                let b = [b[0], b[1], b[2], b[3]];
                if big {
                    u32::from_be_bytes(b)
                } else {
                    u32::from_le_bytes(b)
                }
            })
            .ok_or(ImageFormatError::HeaderShort(data.len()))
    };
    match kind {
        Extra::Psd => Ok((word(18, true)?, word(14, true)?)),
        Extra::Dds => Ok((word(16, false)?, word(12, false)?)),
    }
}

/// A PSD's composite image data is all there: the `psd` crate fills missing
/// pixels silently, so the section walk (header 26 bytes, then the lengths of
/// the colour-mode, resource and layer sections, u32 big-endian) and the
/// composite's size (raw: channels × height × width × depth / 8; RLE: a u16
/// byte count per channel row, then those bytes) are checked here.
fn psd_complete(data: &[u8]) -> Result<(), ImageFormatError> {
    let be16 = |at: usize| {
        data.get(at..at + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
    };
    let be32 = |at: usize| {
        data.get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let short = || ImageFormatError::PsdShort(data.len());
    if be16(4) != Some(1) {
        return Err(ImageFormatError::Psd(
            "only version 1 (not PSB) is read".into(),
        ));
    }
    let channels = be16(12).ok_or_else(short)? as usize;
    let (h, w) = (be32(14).ok_or_else(short)?, be32(18).ok_or_else(short)?);
    let depth = be16(22).ok_or_else(short)? as usize;
    let mut at = 26;
    for _ in 0..3 {
        at = be32(at)
            .and_then(|n| at.checked_add(4)?.checked_add(n))
            .ok_or_else(short)?;
    }
    let rows = channels * h;
    let need = match be16(at).ok_or_else(short)? {
        0 => rows * w * depth.div_ceil(8),
        1 => {
            let counts = at + 2;
            (0..rows).try_fold(2 * rows, |sum, r| {
                be16(counts + 2 * r)
                    .map(|c| sum + c as usize)
                    .ok_or_else(short)
            })?
        }
        c => {
            return Err(ImageFormatError::Psd(format!(
                "composite compression {c} is not read"
            )))
        }
    };
    let have = data.len() - (at + 2).min(data.len());
    if have < need {
        return Err(ImageFormatError::Psd(format!(
            "composite image needs {need} bytes, {have} stored"
        )));
    }
    Ok(())
}

/// Decodes `data` (a PSD or DDS whose dimensions were checked) to RGBA8.
pub(super) fn decode(kind: Extra, data: &[u8]) -> Result<image::DynamicImage, ImageFormatError> {
    if kind == Extra::Psd {
        psd_complete(data)?;
    }
    let run = || -> Result<image::RgbaImage, ImageFormatError> {
        match kind {
            Extra::Psd => {
                let psd =
                    psd::Psd::from_bytes(data).map_err(|e| ImageFormatError::Psd(e.to_string()))?;
                let (w, h) = (psd.width(), psd.height());
                image::RgbaImage::from_raw(w, h, psd.rgba())
                    .ok_or_else(|| ImageFormatError::Psd(format!("composite is not {w}×{h} RGBA")))
            }
            Extra::Dds => {
                let dds = image_dds::ddsfile::Dds::read(std::io::Cursor::new(data))
                    .map_err(|e| ImageFormatError::Dds(e.to_string()))?;
                image_dds::image_from_dds(&dds, 0).map_err(|e| ImageFormatError::Dds(e.to_string()))
            }
        }
    };
    match std::panic::catch_unwind(run) {
        Ok(r) => r.map(image::DynamicImage::ImageRgba8),
        Err(_) => Err(ImageFormatError::Panicked(kind)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_headers_are_errors() {
        assert_eq!(sniff(b"8BP"), None);
        assert_eq!(sniff(b"DDS \0"), Some(Extra::Dds));
        assert!(dimensions(Extra::Psd, b"8BPS\0\x01").is_err());
        let mut dds = b"DDS ".to_vec();
        dds.resize(20, 0xff);
        assert_eq!(dimensions(Extra::Dds, &dds), Ok((u32::MAX, u32::MAX)));
        // Truncated bodies fail to decode without a panic.
        assert!(decode(Extra::Dds, &dds).is_err());
        let mut psd = b"8BPS\0\x01\0\0\0\0\0\0\0\x03\0\0\0\x02\0\0\0\x02\0\x08\0\x03".to_vec();
        assert!(decode(Extra::Psd, &psd).is_err());
        psd.extend_from_slice(&[0, 0, 0, 0]);
        assert!(decode(Extra::Psd, &psd).is_err());
    }
}
