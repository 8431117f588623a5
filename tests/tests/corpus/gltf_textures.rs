//! Texture images found and embedded: a temporary checkout holds a symlink to
//! the corpus's CubesImageFormat.max (Bitmaps B.jpg, A.png, B_2.bmp, Y.tga,
//! L.dds, O.tif, N.gif, UV_Checker.png) and images of a few pixels written by
//! this test — beside the .max, below it (other case), and in a separate map
//! root — while N.gif is missing and L.dds is a damaged DDS. The GLB must embed each found image as
//! PNG with the same pixels, and name every missing one in the warnings, the
//! material's `extras` and `export/errors.txt`.

use std::path::Path;

use image::{ImageFormat, RgbImage};
use maxfs_exporters::gltf::{export_file_with, glb};
use maxfs_fs::tree::{MaxFs, Options};
use maxfs_tests::corpus_dir;
use serde_json::Value;

/// A 3×2 image whose pixels differ by position and `seed`.
fn pixels(seed: u8) -> RgbImage {
    RgbImage::from_fn(3, 2, |x, y| {
        image::Rgb([
            seed.wrapping_mul(37).wrapping_add(x as u8 * 80),
            (y as u8) * 200 + 10,
            seed ^ 0x5a,
        ])
    })
}

fn write(path: &Path, seed: u8, format: ImageFormat) -> RgbImage {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    let img = pixels(seed);
    img.save_with_format(path, format).expect("image written");
    img
}

/// The PNG bytes embedded for material `name`'s base colour texture.
fn embedded_png(g: &Value, bin: &[u8], name: &str) -> Option<Vec<u8>> {
    let m = g["materials"]
        .as_array()?
        .iter()
        .find(|m| m["name"].as_str() == Some(name))?;
    let t = m["pbrMetallicRoughness"]["baseColorTexture"]["index"].as_u64()?;
    let img = &g["images"][g["textures"][t as usize]["source"].as_u64()? as usize];
    assert_eq!(img["mimeType"], "image/png", "{name}: image type");
    assert!(
        img.get("uri").is_none(),
        "{name}: embedded images have no uri"
    );
    let view = &g["bufferViews"][img["bufferView"].as_u64()? as usize];
    let off = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let len = view["byteLength"].as_u64()? as usize;
    Some(bin[off..off + len].to_vec())
}

#[test]
fn found_images_are_embedded_as_png_and_missing_ones_named() {
    let tmp = tempfile::tempdir().expect("tmp");
    let proj = tmp.path().join("proj");
    std::fs::create_dir_all(&proj).expect("mkdir");
    let max = proj.join("CubesImageFormat.max");
    std::os::unix::fs::symlink(corpus_dir().join("max/babylon/CubesImageFormat.max"), &max)
        .expect("symlink");
    let maps = tmp.path().join("shared_maps");
    // Lossless formats: the embedded PNG must hold exactly these pixels.
    let lossless = [
        ("A", write(&proj.join("A.png"), 1, ImageFormat::Png)),
        (
            "B_2",
            write(&proj.join("textures/B_2.bmp"), 2, ImageFormat::Bmp),
        ),
        (
            "Y",
            write(&proj.join("Textures/Deep/y.TGA"), 3, ImageFormat::Tga),
        ),
        ("O", write(&maps.join("cubes/O.tif"), 4, ImageFormat::Tiff)),
    ];
    // JPEG is lossy: the embedded pixels must equal the JPEG's decoded pixels.
    write(&proj.join("b.jpg"), 5, ImageFormat::Jpeg);
    std::fs::write(proj.join("L.dds"), b"DDS \x7c\0\0\0 not really").expect("dds");
    let jpeg = image::open(proj.join("b.jpg")).expect("jpeg").to_rgb8();

    let e = export_file_with(&max, std::slice::from_ref(&maps)).expect("export");
    let (json, bin) = glb::read(&e.glb).expect("glb");
    let g: Value = serde_json::from_slice(json).expect("json");
    let decode = |name: &str| {
        let png =
            embedded_png(&g, bin, name).unwrap_or_else(|| panic!("{name}: no embedded texture"));
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{name}: PNG signature");
        image::load_from_memory_with_format(&png, ImageFormat::Png)
            .expect("png decodes")
            .to_rgb8()
    };
    for (name, want) in &lossless {
        assert_eq!(&decode(name), want, "{name}: pixels");
    }
    assert_eq!(decode("B"), jpeg, "B: pixels of the JPEG");

    // Missing: N.gif. Present but not decodable (a DDS signature on a header
    // cut short): L.dds. UV_Checker.png's material is on no node: not exported,
    // not reported.
    let reported = |file: &str, why: &str| {
        e.warnings
            .iter()
            .any(|w| w.contains(file) && w.contains(why))
    };
    assert!(reported("N.gif", "not found"), "{:#?}", e.warnings);
    assert!(reported("L.dds", "cannot decode"), "{:#?}", e.warnings);
    assert!(!e.warnings.iter().any(|w| w.contains("UV_Checker")));
    let n = g["materials"]
        .as_array()
        .expect("materials")
        .iter()
        .find(|m| m["name"] == "N")
        .expect("material N");
    assert!(n["pbrMetallicRoughness"].get("baseColorTexture").is_none());
    assert!(
        n["extras"]["textures_not_embedded"][0]
            .as_str()
            .is_some_and(|s| s.contains("N.gif")),
        "{n}"
    );

    // The virtual tree (which shows symlinks as symlinks, so the .max becomes
    // a copy): scene.glb embeds the same images with the same map root, and
    // errors.txt names the missing ones.
    std::fs::remove_file(&max).expect("unlink");
    std::fs::copy(corpus_dir().join("max/babylon/CubesImageFormat.max"), &max).expect("copy");
    let tree = MaxFs::new(
        &proj,
        Options {
            maps: vec![maps.clone()],
            ..Options::default()
        },
    );
    let fs_glb = tree
        .read(Path::new("CubesImageFormat.max/export/scene.glb"))
        .expect("scene.glb");
    assert_eq!(fs_glb, e.glb, "fs scene.glb equals the library export");
    let errors = String::from_utf8(
        tree.read(Path::new("CubesImageFormat.max/export/errors.txt"))
            .expect("errors.txt"),
    )
    .expect("utf8");
    for missing in ["N.gif", "L.dds"] {
        assert!(
            errors
                .lines()
                .any(|l| l.starts_with("gltf\t") && l.contains(missing)),
            "{missing} not in errors.txt:\n{errors}"
        );
    }
    for found in ["A.png", "B.jpg", "B_2.bmp", "Y.tga", "O.tif"] {
        assert!(!errors.contains(found), "{found} listed:\n{errors}");
    }
    // Without the map root, O.tif is missing too.
    let e2 = export_file_with(&max, &[]).expect("export");
    assert!(e2.warnings.iter().any(|w| w.contains("O.tif")));
}
