//! `.ligozone` writer against NeL itself: tests/oracle/ligozone.sh writes a
//! `CZoneBankElement` with NeL's own `COXml` (libnelmisc + libnelligo of
//! /work/shared/oracles/nel) for synthetic bricks; our text must be byte-identical and
//! both must read back, through our reader, to the same element.

use std::path::Path;

use maxfs_exporters::nel::ligozone::LigoZone;
use maxfs_exporters::nel::zone_build::ligo::{with_passable, BrickSource, ZoneBankElement};

struct Case {
    stem: &'static str,
    slot: usize,
    passable: bool,
    width: u8,
    height: u8,
    mask: &'static str,
}

const CASES: &[Case] = &[
    Case {
        stem: "zonematerial-Foret-25_A",
        slot: 0,
        passable: true,
        width: 1,
        height: 1,
        mask: "1",
    },
    Case {
        stem: "zonematerial-prairie-12",
        slot: 0,
        passable: false,
        width: 2,
        height: 2,
        mask: "1101",
    },
    Case {
        stem: "zonespecial-Pont_Nord",
        slot: 0,
        passable: true,
        width: 3,
        height: 1,
        mask: "111",
    },
    Case {
        stem: "zonetransition-foret-prairie-2",
        slot: 4,
        passable: true,
        width: 3,
        height: 3,
        mask: "110111011",
    },
    Case {
        stem: "zonetransition-foret-prairie-2",
        slot: 8,
        passable: false,
        width: 4,
        height: 3,
        mask: "100000000001",
    },
];

#[test]
fn ligozone_text_is_what_nel_writes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle/ligozone.sh");
    for (n, c) in CASES.iter().enumerate() {
        let src = BrickSource::from_stem(c.stem).expect("brick source");
        let (name, props) = src.bricks().swap_remove(c.slot);
        let mask: Vec<bool> = c.mask.bytes().map(|b| b == b'1').collect();
        assert_eq!(mask.len(), c.width as usize * c.height as usize);
        let props = with_passable(props, c.passable);
        let ours = ZoneBankElement::for_brick(mask.clone(), c.width, c.height, &props);
        // What NeLLigoExportZone hands to addCategory, in its order (strlwr applied).
        let filled = if mask.iter().all(|&b| b) { "yes" } else { "no" };
        let square = if c.width == c.height { "yes" } else { "no" };
        let mut args: Vec<String> = props
            .iter()
            .map(|(k, v)| format!("{}={}", k.to_ascii_lowercase(), v.to_ascii_lowercase()))
            .collect();
        args.push(format!("filled={filled}"));
        args.push(format!("square={square}"));
        args.push(format!("size={}x{}", c.width, c.height));
        let out = dir.path().join(format!("{n}.ligozone"));
        let run = std::process::Command::new("bash")
            .arg(&script)
            .arg(&out)
            .arg(c.width.to_string())
            .arg(c.height.to_string())
            .arg(c.mask)
            .args(&args)
            .output()
            .expect("run the NeL ligozone oracle");
        assert!(
            run.status.success(),
            "NeL ligozone oracle failed: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let theirs = std::fs::read(&out).expect("oracle output");
        let text = ours.to_xml().expect("xml");
        assert_eq!(
            text,
            String::from_utf8_lossy(&theirs),
            "{name}: our .ligozone differs from NeL's"
        );
        let back = ZoneBankElement::from_ligozone(&LigoZone::read(&theirs).expect("read"))
            .expect("element");
        assert_eq!(back, ours, "{name}: read back");
    }
}
