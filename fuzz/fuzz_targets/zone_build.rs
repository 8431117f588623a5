#![no_main]
//! Zone retrieve/build and the .ligozone reader on arbitrary bytes: no panic, bounded
//! work. Whatever reads as a zone is retrieved and rebuilt; a rebuilt zone must encode
//! and retrieve again. Whatever reads as a .ligozone is parsed as a zone bank element,
//! and an element that parses must write text that reads back to the same mask. The
//! bytes also read as a ligo brick outline (a vertex count, f32 vertices, u16 edge
//! pairs) for `CZoneTemplate` build and mask: no panic, a mask within its bound.
use libfuzzer_sys::fuzz_target;
use maxfs_exporters::nel::{self, ligozone::LigoZone, zone_build, NelFile, NelKind};

fuzz_target!(|data: &[u8]| {
    if let Ok(NelFile::Zone(z)) = nel::read_kind(data, NelKind::Zone) {
        if let Ok(info) = zone_build::retrieve(&z) {
            let opts = zone_build::BuildOptions {
                point_lights: info.point_lights.clone(),
                ..Default::default()
            };
            if let Ok(built) = zone_build::build_with(&info, &opts) {
                nel::write_nel(&NelFile::Zone(built.clone())).expect("a built zone encodes");
                zone_build::retrieve(&built).expect("a built zone retrieves");
            }
        }
    }
    if let Some((&n, rest)) = data.split_first() {
        let (vbytes, ebytes) = rest.split_at((usize::from(n) * 12).min(rest.len()));
        let f = |c: &[u8]| f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        let vertices: Vec<[f32; 3]> = vbytes
            .chunks_exact(12)
            .map(|c| [f(&c[0..4]), f(&c[4..8]), f(&c[8..12])])
            .collect();
        let edges: Vec<(usize, usize)> = ebytes
            .chunks_exact(4)
            .map(|c| {
                (
                    usize::from(u16::from_le_bytes([c[0], c[1]])),
                    usize::from(u16::from_le_bytes([c[2], c[3]])),
                )
            })
            .collect();
        use zone_build::zone_template;
        if let Ok(e) = zone_template::build(&vertices, &edges, 160.0, 1.0) {
            if let Ok((mask, w, h)) = zone_template::mask(&e) {
                assert_eq!(mask.len(), (w * h) as usize);
                assert!(w as i32 <= zone_template::MAX_SIDE && h as i32 <= zone_template::MAX_SIDE);
            }
        }
    }
    if let Ok(l) = LigoZone::read(data) {
        if let Ok(e) = zone_build::ligo::ZoneBankElement::from_ligozone(&l) {
            if let Ok(text) = e.to_xml() {
                let back = LigoZone::read(text.as_bytes()).expect("our text reads");
                let again = zone_build::ligo::ZoneBankElement::from_ligozone(&back)
                    .expect("our text parses");
                // Categories may merge on read (the reader trims text); the mask may not.
                assert_eq!(again.mask, e.mask);
            }
        }
    }
});
