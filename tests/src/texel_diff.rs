//! Reading an embedded glTF image back and comparing channels of two
//! images texel by texel (packed-texture tests and the comparison example).

use serde_json::Value;

/// The decoded RGB image of glTF texture info `info` (`{"index": …}`) whose
/// image is embedded in buffer view of `bin` (a GLB's binary chunk).
pub fn gltf_texture_image(g: &Value, bin: &[u8], info: &Value) -> Option<image::RgbImage> {
    let tex = &g["textures"][usize::try_from(info["index"].as_u64()?).ok()?];
    let img = &g["images"][usize::try_from(tex["source"].as_u64()?).ok()?];
    let view = &g["bufferViews"][usize::try_from(img["bufferView"].as_u64()?).ok()?];
    let at = usize::try_from(view["byteOffset"].as_u64().unwrap_or(0)).ok()?;
    let len = usize::try_from(view["byteLength"].as_u64()?).ok()?;
    let bytes = bin.get(at..at.checked_add(len)?)?;
    image::load_from_memory(bytes).ok().map(|i| i.to_rgb8())
}

/// Absolute texel differences of one channel of two images of one size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChannelDifference {
    pub max: u8,
    pub mean: f64,
    /// Texels differing by more than 2, 4 and 8 levels.
    pub over: [usize; 3],
    pub count: usize,
}

/// Channel `c` of `a` against `b`, over the texels both have (the sizes
/// are the caller's to check).
pub fn channel_difference(a: &image::RgbImage, b: &image::RgbImage, c: usize) -> ChannelDifference {
    let (w, h) = (a.width().min(b.width()), a.height().min(b.height()));
    let mut d = ChannelDifference {
        max: 0,
        mean: 0.0,
        over: [0; 3],
        count: 0,
    };
    let mut sum = 0u64;
    for y in 0..h {
        for x in 0..w {
            let (p, q) = (a.get_pixel(x, y).0, b.get_pixel(x, y).0);
            let e = p[c].abs_diff(q[c]);
            d.max = d.max.max(e);
            sum += u64::from(e);
            for (k, t) in [2u8, 4, 8].into_iter().enumerate() {
                d.over[k] += usize::from(e > t);
            }
            d.count += 1;
        }
    }
    d.mean = if d.count == 0 {
        0.0
    } else {
        sum as f64 / d.count as f64
    };
    d
}
