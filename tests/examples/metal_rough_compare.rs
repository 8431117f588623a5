//! Compares the metallic-roughness image of a glTF material we export with
//! a reference image (another exporter's packing of the same maps):
//! `metal_rough_compare FILE.max MATERIAL REFERENCE_IMAGE [--maps DIR]…`.
//! Prints the sizes and, for the green (roughness) and blue (metalness)
//! channels, the largest and mean absolute texel difference and how many
//! texels differ by more than 2, 4 and 8 levels. With `--sources ROUGHNESS
//! METALNESS` it also measures the reference against those images' own
//! green and blue channels (the reference's error alone: its compression)
//! and how far the sources are from grey (intensity against G and B).

use maxfs_exporters::gltf::{self, glb};
use serde_json::Value;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, material, reference, rest @ ..] = args.as_slice() else {
        eprintln!("usage: metal_rough_compare FILE.max MATERIAL REFERENCE_IMAGE [--maps DIR]...");
        std::process::exit(2);
    };
    let roots: Vec<std::path::PathBuf> = rest
        .windows(2)
        .filter(|c| c[0] == "--maps")
        .map(|c| std::path::PathBuf::from(&c[1]))
        .collect();
    let sources = rest
        .windows(3)
        .find(|c| c[0] == "--sources")
        .map(|c| (c[1].clone(), c[2].clone()));
    let e = match gltf::export_file_with(std::path::Path::new(file), &roots) {
        Ok(e) => e,
        Err(err) => {
            eprintln!("{file}: {err}");
            std::process::exit(1);
        }
    };
    for w in &e.warnings {
        println!("warning: {w}");
    }
    let Ok((json, bin)) = glb::read(&e.glb) else {
        eprintln!("{file}: not a GLB");
        std::process::exit(1);
    };
    let g: Value = serde_json::from_slice(json).unwrap_or_default();
    let Some(m) = g["materials"]
        .as_array()
        .and_then(|a| a.iter().find(|m| m["name"] == material.as_str()))
    else {
        eprintln!("no material {material:?}");
        std::process::exit(1);
    };
    println!("material: {}", m["pbrMetallicRoughness"]);
    let ours = maxfs_tests::gltf_texture_image(
        &g,
        bin,
        &m["pbrMetallicRoughness"]["metallicRoughnessTexture"],
    );
    let Some(ours) = ours else {
        eprintln!("no metallic-roughness image");
        std::process::exit(1);
    };
    let theirs = match image::open(reference) {
        Ok(i) => i.to_rgb8(),
        Err(err) => {
            eprintln!("{reference}: {err}");
            std::process::exit(1);
        }
    };
    println!(
        "ours {:?}, reference {:?}",
        ours.dimensions(),
        theirs.dimensions()
    );
    for (name, c) in [("green (roughness)", 1), ("blue (metalness)", 2)] {
        let d = maxfs_tests::channel_difference(&ours, &theirs, c);
        println!(
            "{name}: max {} mean {:.3}; over 2: {}, over 4: {}, over 8: {} of {}",
            d.max, d.mean, d.over[0], d.over[1], d.over[2], d.count
        );
    }
    let Some((r, m)) = sources else { return };
    let (Ok(r), Ok(m)) = (image::open(&r), image::open(&m)) else {
        eprintln!("sources not readable");
        std::process::exit(1);
    };
    let (r, m) = (r.to_rgb8(), m.to_rgb8());
    let babylon = image::RgbImage::from_fn(r.width(), r.height(), |x, y| {
        let b = m.get_pixel_checked(x, y).map_or(0, |p| p.0[2]);
        image::Rgb([0, r.get_pixel(x, y).0[1], b])
    });
    for (name, c) in [
        ("reference vs sources' G", 1),
        ("reference vs sources' B", 2),
    ] {
        let d = maxfs_tests::channel_difference(&babylon, &theirs, c);
        println!(
            "{name}: max {} mean {:.3}; over 2: {}, over 4: {}, over 8: {}",
            d.max, d.mean, d.over[0], d.over[1], d.over[2]
        );
    }
    for (name, img) in [("roughness", &r), ("metalness", &m)] {
        let grey = img.pixels().fold(0u8, |a, p| {
            let [x, y, z] = p.0;
            a.max(x.abs_diff(y)).max(y.abs_diff(z))
        });
        println!("{name} source: largest channel spread {grey}");
    }
}
