#![no_main]
//! Zone retrieve/build and the .ligozone reader on arbitrary bytes: no panic, bounded
//! work. Whatever reads as a zone is retrieved and rebuilt; a rebuilt zone must encode
//! and retrieve again. Whatever reads as a .ligozone is parsed as a zone bank element,
//! and an element that parses must write text that reads back to the same mask.
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
