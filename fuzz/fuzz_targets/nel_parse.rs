#![no_main]
//! Every NeL reader on arbitrary bytes: no panic, bounded work; what reads must rewrite exactly.
use libfuzzer_sys::fuzz_target;
use maxfs_exporters::nel;

fuzz_target!(|data: &[u8]| {
    for kind in nel::NelKind::ALL {
        if let Ok(f) = nel::read_kind(data, kind) {
            let out = nel::write_nel(&f).expect("a decoded file must encode");
            if let nel::NelFile::PrimitiveBlockXml(_) = f {
                // XML is read whatever its layout; its rewrite is COXml's layout, stable.
                let again = nel::read_kind(&out, kind).expect("our XML reads back");
                assert_eq!(nel::write_nel(&again).expect("encodes"), out, "XML rewrite unstable");
            } else {
                assert_eq!(out, data, "{kind:?} rewrite differs");
            }
            let _ = nel::json::to_json(&f, false);
        }
    }
});
