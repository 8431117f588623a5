//! PSD and DDS textures (issue 18 item 3): images the `image` crate does not
//! read, written by this test beside a corpus .max whose Bitmaps name them,
//! are embedded as PNG with the same pixels — a Photoshop composite (ld35's
//! Rainbow.psd) and a BC1 DirectDraw Surface (CubesImageFormat's L.dds), whose
//! expected pixels follow from the BC1 block definition (colour 0 / colour 1
//! per 2-bit index, RGB565 expanded to 8 bits).

use std::path::Path;

use image::{ImageFormat, Rgba, RgbaImage};
use maxfs_exporters::gltf::{export_file_with, glb};
use maxfs_tests::{corpus_dir, dds_bc1, psd_rgb};
use serde_json::Value;

/// The base colour image of material `name`, decoded from the GLB.
fn embedded(glb_bytes: &[u8], name: &str) -> RgbaImage {
    let (json, bin) = glb::read(glb_bytes).expect("glb");
    let g: Value = serde_json::from_slice(json).expect("json");
    let m = g["materials"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no material {name}"));
    let t = m["pbrMetallicRoughness"]["baseColorTexture"]["index"]
        .as_u64()
        .unwrap_or_else(|| panic!("{name}: no base colour texture: {m}"));
    let img = &g["images"][g["textures"][t as usize]["source"]
        .as_u64()
        .expect("source") as usize];
    assert_eq!(img["mimeType"], "image/png");
    let view = &g["bufferViews"][img["bufferView"].as_u64().expect("view") as usize];
    let off = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let len = view["byteLength"].as_u64().expect("length") as usize;
    image::load_from_memory_with_format(&bin[off..off + len], ImageFormat::Png)
        .expect("png")
        .to_rgba8()
}

fn project(max_rel: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().expect("tmp");
    let name = Path::new(max_rel).file_name().expect("name");
    let max = tmp.path().join(name);
    std::os::unix::fs::symlink(corpus_dir().join(max_rel), &max).expect("symlink");
    (tmp, max)
}

#[test]
fn psd_composite_is_embedded_with_its_pixels() {
    let (tmp, max) = project("max/ik-ld35/Green@Spawn.max");
    let want = image::RgbImage::from_fn(5, 3, |x, y| {
        image::Rgb([x as u8 * 50, y as u8 * 90 + 7, (x * y) as u8 * 20 + 1])
    });
    std::fs::write(tmp.path().join("Rainbow.psd"), psd_rgb(&want)).expect("psd");
    let e = export_file_with(&max, &[]).expect("export");
    assert!(
        !e.warnings.iter().any(|w| w.contains("Rainbow.psd")),
        "{:#?}",
        e.warnings
    );
    let got = embedded(&e.glb, "Rainbow");
    assert_eq!(got.dimensions(), want.dimensions());
    for (x, y, p) in want.enumerate_pixels() {
        let [r, g, b] = p.0;
        assert_eq!(*got.get_pixel(x, y), Rgba([r, g, b, 255]), "pixel {x},{y}");
    }
}

#[test]
fn bc1_dds_is_embedded_with_its_decoded_pixels() {
    let (tmp, max) = project("max/babylon/CubesImageFormat.max");
    // Two blocks side by side: a red/blue checker (indices 0/1), then green
    // (colour 1) throughout. Colour 0 > colour 1 selects BC1's opaque mode.
    let checker: u32 = (0..16).map(|i| (((i % 4) + (i / 4)) % 2) << (2 * i)).sum();
    let ones: u32 = (0..16).map(|i| 1 << (2 * i)).sum();
    let dds = dds_bc1(8, 4, &[(0xf800, 0x001f, checker), (0xffff, 0x07e0, ones)]);
    std::fs::write(tmp.path().join("L.dds"), dds).expect("dds");
    let e = export_file_with(&max, &[]).expect("export");
    assert!(
        !e.warnings.iter().any(|w| w.contains("L.dds")),
        "{:#?}",
        e.warnings
    );
    let got = embedded(&e.glb, "L");
    assert_eq!(got.dimensions(), (8, 4));
    for (x, y, p) in got.enumerate_pixels() {
        let want = if x >= 4 {
            [0, 255, 0, 255]
        } else if (x + y) % 2 == 0 {
            [255, 0, 0, 255]
        } else {
            [0, 0, 255, 255]
        };
        assert_eq!(p.0, want, "pixel {x},{y}");
    }
}

#[test]
fn damaged_psd_is_reported_by_name() {
    let (tmp, max) = project("max/ik-ld35/Green@Spawn.max");
    let mut psd = psd_rgb(&image::RgbImage::from_pixel(4, 4, image::Rgb([1, 2, 3])));
    psd.truncate(40);
    std::fs::write(tmp.path().join("Rainbow.psd"), psd).expect("psd");
    let e = export_file_with(&max, &[]).expect("export");
    assert!(
        e.warnings
            .iter()
            .any(|w| w.contains("Rainbow.psd") && w.contains("cannot decode")),
        "{:#?}",
        e.warnings
    );
}
