//! The whole pipeline on arbitrary bytes: container, chunks, typed scene,
//! evaluation and every NeL exporter (every kind, so also the shape paths the
//! NeL AppData selects: water with its colour map, flares, segment remanence
//! on spline shapes). Whatever is exported must be a NeL file
//! that our reader takes and rewrites identically; nothing may panic. The file is
//! exported under one of three names (by the input's length): a plain one, and the ligo
//! brick protocols (`zonematerial-…`: brick zone, mask, igs; `zonetransition-…`: slot
//! placement, mirrored / turned bricks, igs moved by buildTransitionMatrixObj).
#![no_main]
use libfuzzer_sys::fuzz_target;
use maxfs_exporters::nel::{self, export};
use maxfs_scene::Document;

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = Document::from_bytes(data) else {
        return;
    };
    let Ok(eval) = maxfs_scene::eval::SceneEval::from_document(doc) else {
        return;
    };
    let stem = ["fuzz", "zonematerial-foret-a1", "zonetransition-foret-prairie-2"][data.len() % 3];
    let out = export::export(stem, &eval, &export::ExportKind::ALL);
    for o in &out.outputs {
        let f = nel::read_nel(&o.bytes, &o.name).expect("exported file reads back");
        assert_eq!(nel::write_nel(&f).expect("rewrite"), o.bytes, "{}", o.name);
    }
});
