//! Container + chunk + typed parse of arbitrary bytes, two ways: as a whole
//! compound file, and as the body of each typed stream (which reaches the chunk
//! and typed layers without having to get through the OLE header first). Any
//! input that parses must round-trip: a FAIL outcome is a bug.
#![no_main]
use libfuzzer_sys::fuzz_target;
use maxfs_scene::check::{check_bytes, check_file, Outcome};
use maxfs_scene::container::{MaxFile, Stream};

fuzz_target!(|data: &[u8]| {
    let r = check_bytes(data, data.first() == Some(&0));
    assert!(!matches!(r.outcome, Outcome::Fail(_)), "{:?}", r.outcome);
    let names = ["Scene", "ClassDirectory3", "DllDirectory", "ClassData", "Config"];
    let streams = names
        .iter()
        .map(|n| Stream {
            name: n.to_string(),
            data: data.to_vec().into(),
            compressed: false,
            zstd: false,
            open_root: false,
            stored_len: data.len() as u64,
            error: None,
        })
        .collect();
    let r = check_file(MaxFile { clsid: [0; 16], streams }, false);
    assert!(!matches!(r.outcome, Outcome::Fail(_)), "{:?}", r.outcome);
});
