//! The saved viewport preview: a packed DIB (from the summary property set) to PNG.

/// The parts of a BITMAPINFOHEADER needed to decode the pixels.
struct Dib<'a> {
    width: usize,
    height: usize,
    bottom_up: bool,
    bits: u16,
    palette: &'a [u8],
    pixels: &'a [u8],
    stride: usize,
}

fn le32(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..at + 4)
        .map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]]))
}

fn le16(b: &[u8], at: usize) -> Option<u16> {
    b.get(at..at + 2).map(|x| u16::from_le_bytes([x[0], x[1]]))
}

/// Why a saved preview cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DibError {
    #[error("DIB header: {0} bytes, need 40")]
    ShortHeader(usize),
    #[error("DIB header size {0}, expected 40 or more")]
    HeaderSize(usize),
    #[error("DIB of {0}×{1} pixels")]
    Dimensions(i32, i32),
    #[error("DIB compression {0} is not supported")]
    Compression(u32),
    #[error("DIB with {0} bits per pixel")]
    Bits(u16),
    #[error("DIB palette runs past the data")]
    Palette,
    #[error("DIB pixels: need {need} bytes, have {have}")]
    Pixels { need: usize, have: usize },
    #[error("PNG encoding: {0}")]
    Png(String),
}

fn parse(dib: &[u8]) -> Result<Dib<'_>, DibError> {
    let short = || DibError::ShortHeader(dib.len());
    let size = le32(dib, 0).ok_or_else(short)? as usize;
    if size < 40 {
        return Err(DibError::HeaderSize(size));
    }
    let width = le32(dib, 4).ok_or_else(short)? as i32;
    let height = le32(dib, 8).ok_or_else(short)? as i32;
    let bits = le16(dib, 14).ok_or_else(short)?;
    let compression = le32(dib, 16).ok_or_else(short)?;
    let clr_used = le32(dib, 32).ok_or_else(short)? as usize;
    if !(1..=16384).contains(&width) || height == 0 || height.unsigned_abs() > 16384 {
        return Err(DibError::Dimensions(width, height));
    }
    if compression != 0 && !(compression == 3 && matches!(bits, 16 | 32)) {
        return Err(DibError::Compression(compression));
    }
    let masks = if compression == 3 { 12 } else { 0 };
    let colors = match bits {
        1 | 4 | 8 => {
            if clr_used == 0 {
                1usize << bits
            } else {
                clr_used.min(256)
            }
        }
        16 | 24 | 32 => 0,
        b => return Err(DibError::Bits(b)),
    };
    let pal_start = size + masks;
    let pix_start = pal_start + colors * 4;
    let palette = dib.get(pal_start..pix_start).ok_or(DibError::Palette)?;
    let w = width as usize;
    let h = height.unsigned_abs() as usize;
    let stride = (w * usize::from(bits)).div_ceil(32) * 4;
    let pixels = dib
        .get(pix_start..pix_start + stride * h)
        .ok_or_else(|| DibError::Pixels {
            need: stride * h,
            have: dib.len().saturating_sub(pix_start),
        })?;
    Ok(Dib {
        width: w,
        height: h,
        bottom_up: height > 0,
        bits,
        palette,
        pixels,
        stride,
    })
}

/// Checks that a DIB can be converted, without converting it.
pub fn check_dib(dib: &[u8]) -> Result<(), DibError> {
    parse(dib).map(|_| ())
}

/// Converts a packed DIB to an 8-bit RGB PNG (top row first).
pub fn dib_to_png(dib: &[u8]) -> Result<Vec<u8>, DibError> {
    let d = parse(dib)?;
    let mut rgb = Vec::with_capacity(d.width * d.height * 3);
    for y in 0..d.height {
        let row = if d.bottom_up { d.height - 1 - y } else { y };
        let line = &d.pixels[row * d.stride..(row + 1) * d.stride];
        for x in 0..d.width {
            let px = match d.bits {
                24 => [line[x * 3 + 2], line[x * 3 + 1], line[x * 3]],
                32 => [line[x * 4 + 2], line[x * 4 + 1], line[x * 4]],
                16 => {
                    let v = u16::from_le_bytes([line[x * 2], line[x * 2 + 1]]);
                    let c = |s: u16| (((v >> s) & 31) as u32 * 255 / 31) as u8;
                    [c(10), c(5), c(0)]
                }
                bits => {
                    let per = 8 / usize::from(bits);
                    let byte = line[x / per];
                    let shift = 8 - usize::from(bits) * (x % per + 1);
                    let idx = usize::from((byte >> shift) & ((1u16 << bits) - 1) as u8);
                    match d.palette.get(idx * 4..idx * 4 + 3) {
                        Some(p) => [p[2], p[1], p[0]],
                        None => [0, 0, 0],
                    }
                }
            };
            rgb.extend_from_slice(&px);
        }
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, d.width as u32, d.height as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let png = |e: png::EncodingError| DibError::Png(e.to_string());
        let mut w = enc.write_header().map_err(png)?;
        w.write_image_data(&rgb).map_err(png)?;
        w.finish().map_err(png)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_by_two_24_bit() {
        let mut dib = Vec::new();
        for v in [40u32, 2, 2] {
            dib.extend_from_slice(&v.to_le_bytes());
        }
        dib.extend_from_slice(&1u16.to_le_bytes());
        dib.extend_from_slice(&24u16.to_le_bytes());
        dib.extend_from_slice(&[0; 24]);
        // bottom row: blue, green; top row: red, white (rows padded to 8 bytes)
        dib.extend_from_slice(&[255, 0, 0, 0, 255, 0, 0, 0]);
        dib.extend_from_slice(&[0, 0, 255, 255, 255, 255, 0, 0]);
        let png = dib_to_png(&dib).unwrap();
        let dec = png::Decoder::new(std::io::Cursor::new(png));
        let mut r = dec.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        r.next_frame(&mut buf).unwrap();
        assert_eq!(
            &buf[..12],
            &[255, 0, 0, 255, 255, 255, 0, 0, 255, 0, 255, 0]
        );
        assert!(dib_to_png(&dib[..50]).is_err());
    }
}
