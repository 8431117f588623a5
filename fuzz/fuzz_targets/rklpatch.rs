//! RklPatch data on arbitrary bytes: the bytes are read as an RPO blob, as the
//! PatchMesh record leaves and as a NeL Edit Patch vertex mapper, and as a
//! chunk stream typed under the RklPatch schema whose objects are assembled
//! into the checked model, tessellated and run through the zone export rules;
//! the same chunk stream is read as a NeL Edit Patch / NeL Paint local data
//! (flags, vertex mapper, stored final patch and RPatchMesh).
//! Nothing may panic or allocate past what the input can hold; what decodes
//! must rebuild to the same bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use maxfs_exporters::nel::export::zone::rules::patch_infos;
use maxfs_scene::chunk;
use maxfs_scene::eval::objects::patch::tessellate;
use maxfs_scene::rklpatch::{PatchModData, PatchModKind, RPatchMesh, RklPatch, RpoBlob, VertMapper};
use maxfs_scene::typed::schema::RKLPATCH_SCHEMA;
use maxfs_scene::typed::TypedStream;

fuzz_target!(|data: &[u8]| run(data));

fn run(data: &[u8]) {
    if let Ok(b) = RpoBlob::decode(data) {
        let mut out = Vec::new();
        b.encode(&mut out);
        assert_eq!(out, data);
    }
    if let Ok(m) = VertMapper::decode(data) {
        let mut out = Vec::new();
        m.encode(&mut out);
        assert_eq!(out, data);
    }
    if let Ok(m) = RPatchMesh::decode(data) {
        let mut out = Vec::new();
        m.encode(&mut out);
        assert_eq!(out, data);
    }
    let Ok(chunks) = chunk::parse(data) else {
        return;
    };
    for kind in [PatchModKind::EditPatch, PatchModKind::Paint] {
        if let Ok(d) = PatchModData::read(kind, &chunks) {
            let _ = d.vert_mapper();
            if let Ok(m) = d.final_patch() {
                let _ = tessellate(&m);
            }
        }
    }
    let scene = vec![chunk::Chunk::container(0x2012, chunks)];
    let ts = TypedStream::parse("Scene", &scene, &[RKLPATCH_SCHEMA; 64]);
    assert_eq!(ts.to_bytes(), chunk::write(&scene));
    for obj in ts.nodes[0].children() {
        if let Ok(m) = RklPatch::from_object(obj.children()) {
            let _ = tessellate(&m);
            let id = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]];
            let _ = patch_infos(&m, &id, 0);
        }
    }
}
