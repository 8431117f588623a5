//! glTF's one metallic-roughness image from Max's two maps.
//!
//! Max keeps roughness and metalness as two float map slots, each read as
//! the Bitmap's mono output (its default, "RGB Intensity": the mean of R, G
//! and B). glTF reads roughness from the green and metalness from the blue
//! channel of one `metallicRoughnessTexture`, so the two images are decoded
//! and packed into a new one, as Babylon's 3ds Max exporter does:
//! - size: the smallest width and the smallest height of the sources
//!   (Babylon's rule). A larger source is resampled to it (triangle filter)
//!   so its UV mapping is kept; Babylon reads it unscaled (a crop) and
//!   reports the size mismatch as an error;
//! - a glossiness source (the material's roughness is inverted) is inverted
//!   per texel (255 − v), as Babylon does;
//! - a channel without a map is 255, the material's scalar going into the
//!   glTF factor (factor × 1 = the value exactly; Babylon writes the
//!   quantized value into the texel instead);
//! - red is unused by glTF's metal/rough model: 0, as Babylon writes it
//!   without an occlusion map.

use image::{imageops, DynamicImage, GrayImage, RgbImage};

/// A map's image and whether its values are glossiness (inverted).
#[derive(Debug, Clone, Copy)]
pub(super) struct Source<'a> {
    pub image: &'a DynamicImage,
    pub invert: bool,
}

/// The mono output of Max's Bitmap (RGB intensity: the mean of R, G, B),
/// rounded to 8 bits.
fn intensity(img: &DynamicImage) -> GrayImage {
    let rgb = img.to_rgb8();
    let (w, h) = rgb.dimensions();
    GrayImage::from_fn(w, h, |x, y| {
        let [r, g, b] = rgb.get_pixel(x, y).0;
        let sum = u16::from(r) + u16::from(g) + u16::from(b);
        // Round half up: (sum + 1) / 3 rounds sum / 3 to nearest.
        image::Luma([((sum + 1) / 3) as u8])
    })
}

/// The packed image's size: the smallest width and height among the
/// sources (Babylon's `GetMinimalBitmapDimensions`); `None` without any.
pub(super) fn packed_size(sources: &[Option<Source>]) -> Option<(u32, u32)> {
    sources
        .iter()
        .flatten()
        .map(|s| (s.image.width(), s.image.height()))
        .reduce(|a, b| (a.0.min(b.0), a.1.min(b.1)))
}

/// One channel at `size`: the source's intensity, resampled when its size
/// differs, inverted for a glossiness; 255 without a source.
fn channel(src: Option<Source>, size: (u32, u32)) -> GrayImage {
    let Some(s) = src else {
        return GrayImage::from_pixel(size.0, size.1, image::Luma([255]));
    };
    let mut g = intensity(s.image);
    if g.dimensions() != size {
        g = imageops::resize(&g, size.0, size.1, imageops::FilterType::Triangle);
    }
    if s.invert {
        imageops::invert(&mut g);
    }
    g
}

/// The metallic-roughness image of a roughness and a metalness source
/// (either may be absent; `None` when both are): green roughness, blue
/// metalness, red 0.
pub(super) fn pack(roughness: Option<Source>, metalness: Option<Source>) -> Option<RgbImage> {
    let size = packed_size(&[roughness, metalness])?;
    let g = channel(roughness, size);
    let b = channel(metalness, size);
    Some(RgbImage::from_fn(size.0, size.1, |x, y| {
        image::Rgb([0, g.get_pixel(x, y).0[0], b.get_pixel(x, y).0[0]])
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rgb(w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 3]) -> DynamicImage {
        DynamicImage::ImageRgb8(RgbImage::from_fn(w, h, |x, y| image::Rgb(f(x, y))))
    }

    /// Roughness in green, metalness in blue, red 0; a colour source
    /// counts by its mean (Max's RGB intensity).
    #[test]
    fn channels_and_intensity() {
        let r = rgb(2, 1, |x, _| if x == 0 { [10, 20, 30] } else { [255; 3] });
        let m = rgb(2, 1, |x, _| if x == 0 { [0; 3] } else { [200, 100, 1] });
        let src = |image| Source {
            image,
            invert: false,
        };
        let p = pack(Some(src(&r)), Some(src(&m))).expect("packed");
        assert_eq!(p.dimensions(), (2, 1));
        assert_eq!(p.get_pixel(0, 0).0, [0, 20, 0]);
        // (200 + 100 + 1) / 3 = 100.33 → 100.
        assert_eq!(p.get_pixel(1, 0).0, [0, 255, 100]);
        // 2 / 3 rounds to 1; 1 / 3 to 0.
        let tiny = rgb(1, 1, |_, _| [1, 1, 0]);
        assert_eq!(intensity(&tiny).get_pixel(0, 0).0, [1]);
        let tinier = rgb(1, 1, |_, _| [1, 0, 0]);
        assert_eq!(intensity(&tinier).get_pixel(0, 0).0, [0]);
    }

    /// A glossiness source is inverted; a missing channel is 255 (its value
    /// goes into the glTF factor); no source at all packs nothing.
    #[test]
    fn glossiness_inverted_and_missing_channel_full() {
        let gl = rgb(1, 2, |_, y| [if y == 0 { 0 } else { 200 }; 3]);
        let p = pack(
            Some(Source {
                image: &gl,
                invert: true,
            }),
            None,
        )
        .expect("packed");
        assert_eq!(p.get_pixel(0, 0).0, [0, 255, 255]);
        assert_eq!(p.get_pixel(0, 1).0, [0, 55, 255]);
        let m = rgb(1, 1, |_, _| [40; 3]);
        let p = pack(
            None,
            Some(Source {
                image: &m,
                invert: true,
            }),
        )
        .expect("packed");
        // The inversion belongs to the source it is given with.
        assert_eq!(p.get_pixel(0, 0).0, [0, 255, 215]);
        assert!(pack(None, None).is_none());
    }

    /// Sizes differ: the smallest width and the smallest height (Babylon's
    /// rule), each source resampled to it — a uniform source stays uniform,
    /// and a dark/bright split stays one (not a crop to the dark half).
    #[test]
    fn smallest_size_resampled_not_cropped() {
        let r = rgb(8, 2, |x, _| [if x < 4 { 0 } else { 240 }; 3]);
        let m = rgb(2, 4, |_, _| [90; 3]);
        let src = |image| Source {
            image,
            invert: false,
        };
        let p = pack(Some(src(&r)), Some(src(&m))).expect("packed");
        assert_eq!(p.dimensions(), (2, 2));
        for y in 0..2 {
            // A crop would keep the dark left half only; resampled, the
            // left texel stays dark, the right bright (the triangle
            // filter blends across the split) and the mean is kept.
            let (l, r) = (p.get_pixel(0, y).0, p.get_pixel(1, y).0);
            assert!(l[1] < 60 && r[1] > 180, "{l:?} {r:?}");
            assert!((i32::from(l[1]) + i32::from(r[1]) - 240).abs() <= 2);
            assert_eq!((l[0], l[2], r[0], r[2]), (0, 90, 0, 90));
        }
    }
}
