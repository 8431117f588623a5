//! The RklPatch layouts on bytes written field by field after NeL's
//! `RPatchMesh::Save` / `EPVertMapper::Save` (not through our encoder), the typed
//! round trip of a whole object, and damaged input.

use std::collections::HashMap;

use super::build::{build_quads, unbound, QuadInput};
use super::rpo::*;
use super::*;
use crate::chunk::{self, Chunk};
use crate::reader::ReadError;
use crate::typed::schema::RKLPATCH_SCHEMA;
use crate::typed::TypedStream;

/// A version-9 blob as RPatchMesh::Save writes it: one patch of 1×2 tiles
/// (NbTilesU 0, NbTilesV 1), 2 tiles, 6 colours, 4 edge flags; two vertices.
fn save_v9() -> Vec<u8> {
    let mut b = Vec::new();
    let i = |b: &mut Vec<u8>, v: i32| b.extend_from_slice(&v.to_le_bytes());
    i(&mut b, 0); // RPO version
    i(&mut b, 9); // RPatchMesh version
    i(&mut b, 1); // patches
    i(&mut b, 0); // NbTilesU
    i(&mut b, 1); // NbTilesV
    i(&mut b, 2); // tiles
    for t in 0..2u16 {
        b.extend_from_slice(&(t + 1).to_le_bytes()); // _Num
        b.extend_from_slice(&(0x0009u16 + t).to_le_bytes()); // _Flags
        b.push(5 + t as u8); // noise
        for k in 0..3 {
            b.push(0); // invert
            i(&mut b, if k == 0 { 17 + t as i32 } else { -1 }); // tile
            i(&mut b, k); // rotate
        }
    }
    i(&mut b, 6); // colours
    for c in 0..6 {
        i(&mut b, 0x00ff_0000 + c);
    }
    for e in 0..4 {
        i(&mut b, e & 1); // edge flags
    }
    i(&mut b, 2); // vertices
    for v in 0..2 {
        b.push(v as u8); // bBinded
        for w in [3, 2, 7, 1, 2, 3, 4, 5, 3, 9] {
            i(&mut b, w + v);
        }
    }
    i(&mut b, 2); // TileTesselLevel
    b.push(1); // ModeTile
    b.push(0); // KeepMapping
    i(&mut b, 1); // selLevel
    b
}

#[test]
fn v9_blob_decodes_field_by_field_and_rebuilds() {
    let bytes = save_v9();
    let blob = RpoBlob::decode(&bytes).unwrap();
    let m = &blob.mesh;
    assert_eq!((m.version, m.patches.len(), m.vertices.len()), (9, 1, 2));
    let p = &m.patches[0];
    assert_eq!((p.order_s(), p.order_t()), (Some(1), Some(2)));
    let Tiles::Desc(t) = &p.tiles else {
        panic!("v9 tiles are tile descs")
    };
    assert_eq!(t[1].num, 2);
    assert_eq!(t[1].flags, Some(0x000a));
    assert_eq!(t[1].noise, Some(6));
    assert_eq!(t[1].layers[0].tile, 18);
    assert_eq!(t[1].layers[2].tile, -1);
    assert_eq!(t[1].layers[2].rotate, 2);
    assert_eq!(p.colors[5], 0x00ff_0005);
    assert_eq!(p.edge_flags, Some([0, 1, 0, 1]));
    assert!(!p.edge_flag(0) && p.edge_flag(1));
    let v = m.vertices[1];
    assert_eq!((v.binded, v.bind_type, v.edge, v.patch), (1, 4, 3, 8));
    assert_eq!((v.t, v.bind_type2, v.prim_vert), (6, 4, 10));
    assert_eq!(
        (m.tile_tessel_level, m.mode_tile, m.keep_mapping),
        (2, 1, 0)
    );
    assert_eq!((m.transition_type, m.sel_level), (None, 1));
    let mut out = Vec::new();
    blob.encode(&mut out);
    assert_eq!(out, bytes);
}

/// Versions 1-8 (RPatchMesh::Load's switch): old tiles before 3, no flags
/// before 5, no noise before 9, no edge flags before 7, TransitionType only in 4.
#[test]
fn every_version_layout_reads_and_rebuilds() {
    for version in 1..=9u32 {
        let mut b = Vec::new();
        let i = |b: &mut Vec<u8>, v: i32| b.extend_from_slice(&v.to_le_bytes());
        i(&mut b, 0);
        i(&mut b, version as i32);
        i(&mut b, 1);
        i(&mut b, 0);
        i(&mut b, 0);
        i(&mut b, 1); // one tile
        if version < 3 {
            i(&mut b, 11);
            i(&mut b, 12);
        } else {
            b.extend_from_slice(&3u16.to_le_bytes());
            if version >= 5 {
                b.extend_from_slice(&1u16.to_le_bytes());
            }
            if version >= 9 {
                b.push(2);
            }
            for _ in 0..3 {
                b.push(0);
                i(&mut b, 4);
                i(&mut b, 1);
            }
        }
        i(&mut b, 4);
        for c in 0..4 {
            i(&mut b, c);
        }
        if version >= 7 {
            for _ in 0..4 {
                i(&mut b, 1);
            }
        }
        i(&mut b, 0); // no vertices
        i(&mut b, 3);
        b.extend_from_slice(&[1, 1]);
        if version == 4 {
            i(&mut b, 77);
        }
        i(&mut b, 0);
        let blob = RpoBlob::decode(&b).unwrap_or_else(|e| panic!("version {version}: {e}"));
        let p = &blob.mesh.patches[0];
        assert_eq!(matches!(p.tiles, Tiles::Old(_)), version < 3, "v{version}");
        assert_eq!(p.edge_flags.is_some(), version >= 7, "v{version}");
        assert_eq!(
            blob.mesh.transition_type,
            (version == 4).then_some(77),
            "v{version}"
        );
        if let Tiles::Desc(t) = &p.tiles {
            assert_eq!(t[0].flags.is_some(), version >= 5);
            assert_eq!(t[0].noise.is_some(), version >= 9);
        }
        let mut out = Vec::new();
        blob.encode(&mut out);
        assert_eq!(out, b, "v{version}");
    }
}

#[test]
fn damaged_blobs_fail_precisely_without_allocating() {
    let bytes = save_v9();
    for cut in 0..bytes.len() {
        assert!(RpoBlob::decode(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert!(matches!(
        RpoBlob::decode(&trailing),
        Err(ReadError::Trailing { .. })
    ));
    // A huge patch count is refused at its offset (12), before any allocation.
    let mut huge = bytes.clone();
    huge[8..12].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    match RpoBlob::decode(&huge) {
        Err(ReadError::Invalid { what, offset, .. }) => {
            assert_eq!((what.as_str(), offset), ("patch count", 8))
        }
        other => panic!("{other:?}"),
    }
    let mut v10 = bytes.clone();
    v10[4] = 10;
    assert!(RpoBlob::decode(&v10).is_err());
    let mut rpo1 = bytes;
    rpo1[0] = 1;
    assert!(RpoBlob::decode(&rpo1).is_err());
}

#[test]
fn vert_mapper_decodes_save_layout() {
    let mut b = Vec::new();
    let w = |b: &mut Vec<u8>, v: u32| b.extend_from_slice(&v.to_le_bytes());
    w(&mut b, 2);
    for k in 0..2u32 {
        w(&mut b, 1); // originalStored
        w(&mut b, if k == 0 { 1 } else { u32::MAX }); // vert (-1: unmapped)
        for c in [1.0f32, 2.0, 3.0, 0.5, 0.0, -1.0] {
            w(&mut b, c.to_bits());
        }
    }
    w(&mut b, 0);
    let m = VertMapper::decode(&b).unwrap();
    assert_eq!(m.verts[0].vert, 1);
    assert_eq!(m.verts[1].vert, -1);
    assert_eq!(m.verts[0].delta(), [0.5, 0.0, -1.0]);
    let mut out = Vec::new();
    m.encode(&mut out);
    assert_eq!(out, b);
    // Record 0 moves output 1 to input 0 + delta; record 1 is unmapped.
    let input = [[10.0, 0.0, 0.0], [20.0, 0.0, 0.0]];
    let mut output = input;
    assert_eq!(VertMapper::apply(&m.verts, &input, &mut output), Ok(1));
    assert_eq!(output, [[10.0, 0.0, 0.0], [10.5, 0.0, -1.0]]);
    assert!(VertMapper::apply(&m.verts, &input[..0], &mut output).is_err());
    assert!(VertMapper::decode(&b[..b.len() - 1]).is_err());
}

fn ui(nu: i32, nv: i32) -> UiPatch {
    let (s, t) = (1usize << nu, 1usize << nv);
    UiPatch {
        nb_tiles_u: nu,
        nb_tiles_v: nv,
        tiles: Tiles::Desc(
            (0..s * t)
                .map(|k| TileDesc {
                    num: 1,
                    flags: Some(0),
                    noise: Some(k as u8 & 7),
                    layers: [
                        TileLayer {
                            invert: 0,
                            tile: k as i32,
                            rotate: 0,
                        },
                        TileLayer {
                            invert: 0,
                            tile: -1,
                            rotate: 0,
                        },
                        TileLayer {
                            invert: 0,
                            tile: -1,
                            rotate: 0,
                        },
                    ],
                })
                .collect(),
        ),
        colors: vec![0x00ff_ffff; (s + 1) * (t + 1)],
        edge_flags: Some([0; 4]),
    }
}

/// Two flat 10×10 quads side by side sharing the edge 1-2.
pub(crate) fn two_quads() -> RklPatch {
    let lerp = |a: [f32; 3], b: [f32; 3], t: f32| {
        [
            a[0] + (b[0] - a[0]) * t,
            a[1] + (b[1] - a[1]) * t,
            a[2] + (b[2] - a[2]) * t,
        ]
    };
    let quad = |x0: f32, corners: [u32; 4]| {
        let v = [
            [x0, 0.0, 0.0],
            [x0 + 10.0, 0.0, 0.0],
            [x0 + 10.0, 10.0, 0.0],
            [x0, 10.0, 0.0],
        ];
        let mut tangents = [[0.0; 3]; 8];
        for i in 0..4 {
            tangents[2 * i] = lerp(v[i], v[(i + 1) % 4], 1.0 / 3.0);
            tangents[2 * i + 1] = lerp(v[i], v[(i + 1) % 4], 2.0 / 3.0);
        }
        let c = [x0 + 5.0, 5.0, 0.0];
        QuadInput {
            corners,
            vertices: v,
            tangents,
            interiors: v.map(|p| lerp(p, c, 1.0 / 3.0)),
            ui: ui(1, 0),
        }
    };
    build_quads(
        &[quad(0.0, [0, 1, 2, 3]), quad(10.0, [1, 4, 5, 2])],
        &HashMap::new(),
    )
}

fn object_scene(model: &RklPatch) -> (Vec<Chunk>, Vec<u32>) {
    let mut children = vec![Chunk::leaf(0x2035, 0u32.to_le_bytes().to_vec())];
    children.extend(model.to_chunks());
    children.push(Chunk::leaf(0x0100, vec![1, 2, 3])); // a Mesh cache chunk: stays raw
    let scene = vec![Chunk::container(
        0x2012,
        vec![Chunk::container(0, children)],
    )];
    (scene, vec![RKLPATCH_SCHEMA])
}

#[test]
fn object_types_rebuilds_and_reads_back() {
    let model = two_quads();
    assert_eq!(model.check(), Ok(()));
    assert_eq!((model.verts.len(), model.edges.len()), (6, 7));
    // The shared edge 1-2 lists both patches, and each patch sees its handles
    // in its own corner order.
    let shared = model.patches[0].edge[1] as usize;
    assert_eq!(model.patches[1].edge[3] as usize, shared);
    assert_eq!(model.edges[shared].patches, vec![0, 1]);
    assert_eq!(model.patches[0].vec[2], model.patches[1].vec[7]);

    let (scene, sc) = object_scene(&model);
    let ts = TypedStream::parse("Scene", &scene, &sc);
    assert!(ts.degraded.is_empty(), "{:?}", ts.degraded);
    assert_eq!(ts.to_bytes(), chunk::write(&scene));
    let obj = &ts.nodes[0].children()[0];
    let back = RklPatch::from_object(obj.children()).unwrap();
    assert_eq!(back, model);
    // Typed under a plain geometry superclass, the same chunks stay raw.
    let plain = TypedStream::parse("Scene", &scene, &[0x10]);
    assert!(RklPatch::from_object(plain.nodes[0].children()[0].children()).is_err());
}

/// Every byte of the object flipped and every truncation of each typed leaf:
/// typing never panics, always rebuilds the same bytes, and the model either
/// reads or names its error.
#[test]
fn damaged_objects_degrade_to_raw_and_rebuild() {
    let model = two_quads();
    let (scene, sc) = object_scene(&model);
    let bytes = chunk::write(&scene);
    for at in (0..bytes.len()).step_by(3) {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[at] ^= flip;
            let Ok(chunks) = chunk::parse(&b) else {
                continue;
            };
            let ts = TypedStream::parse("Scene", &chunks, &sc);
            assert_eq!(ts.to_bytes(), b, "flip {flip:#x} at {at}");
            if let Some(obj) = ts.nodes.first().and_then(|n| n.children().first()) {
                let _ = RklPatch::from_object(obj.children());
            }
        }
    }
    let bad = {
        let mut m = model.clone();
        m.patches[1].v[2] = 99;
        m
    };
    assert!(matches!(
        bad.check(),
        Err(RklPatchError::BadIndex { patch: 1, .. })
    ));
    let mut fewer = model;
    fewer.rpo.mesh.vertices.pop();
    assert!(matches!(
        fewer.check(),
        Err(RklPatchError::RpoMismatch { .. })
    ));
    let _ = unbound();
}

/// A NeL Edit Patch / NeL Paint local data written chunk by chunk after
/// `EditPatchData::Save` (flags DWORD, VERTMAP, FINALPATCH = PatchMesh chunks,
/// RFINALPATCH = RPatchMesh without the RPO word): read back, the final patch is
/// the model; the flags decide, the last flags chunk wins, old data is named.
#[test]
fn patch_modifier_local_data_reads_its_final_patch() {
    use super::mod_data::*;
    let model = two_quads();
    let mut rpatch = Vec::new();
    model.rpo.mesh.encode(&mut rpatch);
    // RFINALPATCH is the RPO blob's bytes after the RPO version word.
    let mut blob = Vec::new();
    model.rpo.encode(&mut blob);
    assert_eq!(rpatch, blob[4..]);
    let map = VertMapper::default();
    let data = mod_data::local_data_chunks(EPD_HASDATA, Some(&map), &model);
    assert_eq!(
        data.iter().map(|c| c.id).collect::<Vec<_>>(),
        [0x1015, 0x1130, 0x1140, 0x4001]
    );
    // FINALPATCH holds exactly the object's chunks after its RPO blob.
    let object = model.to_chunks();
    assert_eq!(data[2].children(), &object[1..]);
    for kind in [PatchModKind::EditPatch, PatchModKind::Paint] {
        let d = PatchModData::read(kind, &data).unwrap();
        assert!(d.has_data() && d.old_style().is_none());
        assert_eq!(d.final_patch().unwrap(), model);
        assert_eq!(d.vert_mapper().unwrap(), map);
    }
    // The last flags chunk wins (Load reads them in order).
    let mut later = data.clone();
    later.push(Chunk::leaf(0x1015, 0u32.to_le_bytes().to_vec()));
    assert!(!PatchModData::read(PatchModKind::Paint, &later)
        .unwrap()
        .has_data());
    // Old-style data: named; Paint knows only PatchChangeRecord.
    let mut old = data.clone();
    old.push(Chunk::leaf(0x20C0, vec![0; 4]));
    let e = PatchModData::read(PatchModKind::EditPatch, &old).unwrap();
    assert_eq!(
        e.old_style(),
        Some(RklPatchError::OldRecord {
            id: 0x20C0,
            name: "PVertWeldRecord"
        })
    );
    assert!(PatchModData::read(PatchModKind::Paint, &old)
        .unwrap()
        .old_style()
        .is_none());
    // A short flags chunk, a cut RPatchMesh, a missing FINALPATCH: errors.
    let mut short = data.clone();
    short[0] = Chunk::leaf(0x1015, vec![4, 0]);
    assert!(PatchModData::read(PatchModKind::Paint, &short).is_err());
    let mut cut = data.clone();
    cut[3] = Chunk::leaf(0x4001, rpatch[..rpatch.len() - 1].to_vec());
    let d = PatchModData::read(PatchModKind::Paint, &cut).unwrap();
    assert!(matches!(d.final_patch(), Err(RklPatchError::Read { .. })));
    let gone: Vec<Chunk> = data.iter().filter(|c| c.id != 0x1140).cloned().collect();
    let d = PatchModData::read(PatchModKind::Paint, &gone).unwrap();
    assert!(matches!(
        d.final_patch(),
        Err(RklPatchError::Missing { id: 0x1140, .. })
    ));
}

/// `UpdateAndApplyDeltas` past the input: a mapped record whose original was
/// never stored is skipped, one whose original was stored is reported (Max
/// writes the zero point); a target past the output is reported.
#[test]
fn vert_mapper_past_the_input_and_output() {
    let rec = |stored: u32, vert: i32| MapVert {
        original_stored: stored,
        vert,
        original: [0; 3],
        delta: [1.0f32, 0.0, 0.0].map(f32::to_bits),
    };
    let input = [[1.0, 2.0, 3.0]];
    let mut out = [[0.0; 3]; 2];
    assert_eq!(
        VertMapper::apply(&[rec(1, 1), rec(0, 0)], &input, &mut out),
        Ok(1)
    );
    assert_eq!(out, [[0.0; 3], [2.0, 2.0, 3.0]]);
    assert_eq!(
        VertMapper::apply(&[rec(1, 1), rec(1, 0)], &input, &mut out),
        Err(RklPatchError::MapPastInput {
            record: 1,
            points: 1
        })
    );
    assert_eq!(
        VertMapper::apply(&[rec(1, 2)], &input, &mut out),
        Err(RklPatchError::MapTarget {
            record: 0,
            target: 2,
            points: 2
        })
    );
}
