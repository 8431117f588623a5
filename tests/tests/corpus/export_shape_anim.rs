//! The shape process's animation rules (issue 17 item 5): the per-node
//! `.anim` of AUTOMATIC_ANIMATION nodes (shape_export.ms, export_anim.cpp
//! `addAnimation`), texture-matrix tracks from StdUVGen controllers and the
//! static user texture matrix (export_material.cpp, export_anim.cpp
//! `addTexTracks`, seed S003 lines 336-344), and flags driven by an On/Off
//! controller read at t = 0 (S:343). No corpus file carries these settings,
//! so they are set in copies of real scenes through our own writers
//! (tests/src/rewrite.rs); values come from the Babylon glTF exports of the
//! same scenes, from the keys written here, or from NeL's own decomposition
//! of a texture matrix.

use maxfs_exporters::nel::anim::Track;
use maxfs_exporters::nel::export::properties::{id, NEL_CLASS_ID, NEL_SUPER_CLASS};
use maxfs_exporters::nel::export::shape::uv_matrix;
use maxfs_exporters::nel::export::{anim, ExportKind, Exports};
use maxfs_exporters::nel::shape::vertex_buffer::ChannelData;
use maxfs_exporters::nel::shape::{Shape, ShapeStream};
use maxfs_exporters::nel::{read_nel, write_nel, NelFile};
use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::render::material as mtl;
use maxfs_scene::typed::ClassId;
use maxfs_scene::Document;
use maxfs_tests::gltf_ref::{accessor, Gltf};
use maxfs_tests::rewrite::SceneEdit;

const LINEAR_FLOAT: ClassId = ClassId(0x2001, 0);
const ON_OFF: ClassId = ClassId(0x984b_8d27, 0x938f_3e43);
/// ClassDirectory dll index of classes built into Max.
const DLL_BUILTIN: i32 = -1;
const SC_FLOAT_CONTROL: u32 = 0x9003;

pub(super) fn appdata(e: &mut SceneEdit, node: usize, sub_id: u32, text: &str) {
    e.add_appdata(node, (NEL_CLASS_ID, NEL_SUPER_CLASS), sub_id, text);
}

pub(super) fn export(stem: &str, doc: &Document, kinds: &[ExportKind]) -> Exports {
    maxfs_tests::export_doc(stem, doc, kinds)
}

/// Reads an animation back, checks it rewrites to the same bytes, and
/// returns its tracks by name. With MAXFS_FX_OUT set, the bytes are also
/// written there (for the NeL oracle, /work/shared/oracles/nel/check.sh).
pub(super) fn tracks(bytes: &[u8], name: &str) -> Vec<(String, Track)> {
    if let Some(dir) = std::env::var_os("MAXFS_FX_OUT") {
        std::fs::write(std::path::Path::new(&dir).join(name), bytes).expect("writes");
    }
    let f = read_nel(bytes, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(write_nel(&f).expect("rewrite"), bytes, "{name}: rewrite");
    let NelFile::Animation(a) = f else {
        panic!("{name}: not an animation")
    };
    a.id_by_name
        .iter()
        .map(|(n, i)| {
            let t = a.tracks[*i as usize].0.get().cloned().expect("track");
            (n.clone(), t)
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-4 * a.abs().max(b.abs()).max(1.0)
}

/// AUTOMATIC_ANIMATION on the animated cube of AnimatedCubePosition and
/// AnimatedCubeRotation: one `<node name>.anim` each, in `shape/`, with the
/// node's tracks under bare names (scene = false, no prefix), matching the
/// Babylon glTF animation at its key times; a node with "0" or without the
/// AppData gets none (shape_export.ms isAnimToBeExported).
#[test]
fn automatic_animation_node_tracks_match_gltf() {
    let mut compared = 0;
    for (model, gltf) in [
        ("AnimatedCubePosition", "AnimatedCube/all_position.gltf"),
        ("AnimatedCubeRotation", "AnimatedCube/all_rotation.gltf"),
    ] {
        let rel = format!("max/babylon/{model}.max");
        let mut e = SceneEdit::open(&rel);
        let nodes: Vec<(usize, String)> = e
            .graph
            .nodes()
            .map(|(o, n)| (o.index, n.name.clone()))
            .collect();
        let gl = Gltf::open(gltf);
        let mut animated = Vec::new();
        for an in gl.g["animations"].as_array().into_iter().flatten() {
            for ch in an["channels"].as_array().into_iter().flatten() {
                let n = gl.node_name(ch["target"]["node"].as_u64().expect("node") as usize);
                if !animated.contains(&n) {
                    animated.push(n);
                }
            }
        }
        assert!(!animated.is_empty(), "{model}: no glTF animation");
        for (idx, name) in &nodes {
            if animated.contains(name) {
                appdata(&mut e, *idx, id::AUTOMATIC_ANIMATION, "1");
            } else {
                appdata(&mut e, *idx, id::AUTOMATIC_ANIMATION, "0");
            }
        }
        let doc = e.finish();
        let out = export(model, &doc, &[ExportKind::ShapeAnim]);
        assert!(out.errors.is_empty(), "{model}: {:?}", out.errors);
        let names: Vec<&str> = out.outputs.iter().map(|o| o.name.as_str()).collect();
        let want: Vec<String> = nodes
            .iter()
            .filter(|(_, n)| animated.contains(n))
            .map(|(_, n)| format!("{n}.anim"))
            .collect();
        assert_eq!(
            names, want,
            "{model}: one .anim per AUTOMATIC_ANIMATION node"
        );
        for o in &out.outputs {
            assert_eq!(o.kind.dir(), "shape");
            let node = o.name.trim_end_matches(".anim");
            let t = tracks(&o.bytes, &o.name);
            for an in gl.g["animations"].as_array().into_iter().flatten() {
                for ch in an["channels"].as_array().into_iter().flatten() {
                    let n = gl.node_name(ch["target"]["node"].as_u64().expect("node") as usize);
                    if n != node {
                        continue;
                    }
                    let what = ch["target"]["path"].as_str().unwrap_or_default();
                    let channel = match what {
                        "translation" => anim::POS,
                        "rotation" => anim::ROTQUAT,
                        _ => continue,
                    };
                    let (_, track) = t
                        .iter()
                        .find(|(k, _)| k == channel)
                        .unwrap_or_else(|| panic!("{model}: {node}: no bare {channel} track"));
                    let s = &an["samplers"][ch["sampler"].as_u64().expect("sampler") as usize];
                    let times = accessor(&gl.g, &gl.bin, s["input"].as_u64().expect("in") as usize);
                    let values =
                        accessor(&gl.g, &gl.bin, s["output"].as_u64().expect("out") as usize);
                    for (tm, v) in times.iter().zip(&values) {
                        let x = anim::linear_value(track, tm[0] as f32)
                            .unwrap_or_else(|| panic!("{model}: not a linear track"))
                            .map(f64::from);
                        let ok = if channel == anim::POS {
                            let g = [x[0], x[2], -x[1]];
                            (0..3).all(|i| close(g[i], v[i]))
                        } else {
                            let g = [x[0], x[2], -x[1], x[3]];
                            let d: f64 = (0..4).map(|i| g[i] * v[i]).sum();
                            (0..4).all(|i| (g[i] * d.signum() - v[i]).abs() <= 1e-4)
                        };
                        assert!(ok, "{model}: {node}.{channel} at {}: {x:?} vs {v:?}", tm[0]);
                        compared += 1;
                    }
                }
            }
        }
    }
    eprintln!("shape anim: {compared} samples compared");
    assert!(compared >= 20, "only {compared} samples");
}

/// neloid/block.max's Box01 NeL Material (no texture in the file) and the
/// Bitmap "top.tga" of misc/kwxport_cube.max (Max 2009: the path is stored
/// inline) to be copied into its tTexture_1: the main (37-parameter) and
/// texture (24-parameter) blocks, tTexture_1's reference slot, and in the
/// source file the Bitmap and its StdUVGen's old ParamBlock.
struct BlockMaterial {
    node: usize,
    name: String,
    main: usize,
    textures: usize,
    texture_slot: u32,
    bitmap: usize,
    uv_block: usize,
}

const BITMAP_SOURCE: &str = "max/misc/kwxport_cube.max";

fn block_material() -> BlockMaterial {
    let eval = maxfs_tests::corpus_eval("max/neloid/block.max");
    let node = eval
        .graph
        .nodes()
        .find(|(_, n)| n.name == "Box01")
        .map(|(o, _)| o.index)
        .expect("Box01");
    let mat = mtl::node_material(&eval.graph, node).expect("Box01 has a material");
    let m = mtl::material(&eval, mat).expect("decodes");
    let block = |count: u16| {
        m.blocks
            .iter()
            .find(|b| b.block.count == count)
            .unwrap_or_else(|| panic!("no {count}-parameter block"))
    };
    let tex = block(24);
    let texture_slot = tex
        .block
        .param(16)
        .and_then(|p| p.ref_slot)
        .expect("tTexture_1 is a reference slot");
    let src = maxfs_tests::corpus_eval(BITMAP_SOURCE);
    let assets = mtl::Assets::of(&src.doc);
    let bitmap = (0..src.graph.objects.len())
        .find(|&i| {
            mtl::texmap(&src, i, &assets)
                .is_some_and(|t| t.file.as_deref().is_some_and(|f| f.ends_with("top.tga")))
        })
        .expect("top.tga");
    let uvgen = maxfs_scene::eval::core::pblock::reference(&src.graph, bitmap, 0).expect("UVGen");
    let uv_block =
        maxfs_scene::eval::core::pblock::reference(&src.graph, uvgen, 0).expect("pblock");
    BlockMaterial {
        node,
        name: m.name.clone(),
        main: block(37).object,
        textures: tex.object,
        texture_slot,
        bitmap,
        uv_block,
    }
}

/// A copy of block.max with the Bitmap in Box01's tTexture_1 (slot 1 on);
/// returns the editor and the copied StdUVGen ParamBlock's index.
fn textured_block(b: &BlockMaterial) -> (SceneEdit, usize) {
    let mut e = SceneEdit::open("max/neloid/block.max");
    let mut src = SceneEdit::open(BITMAP_SOURCE);
    let map = e.transplant(&mut src, b.bitmap);
    let new = |old: usize| map.iter().find(|(o, _)| *o == old).map(|(_, n)| *n);
    e.set_reference(
        b.textures,
        b.texture_slot,
        new(b.bitmap).expect("bitmap") as i32,
    );
    e.set_pb2_constant(b.textures, 0, &1i32.to_le_bytes());
    let uv = new(b.uv_block).expect("the UVGen's ParamBlock is copied");
    (e, uv)
}

/// Sets StdUVGen parameter `index` of old ParamBlock `pb` to `v`, or, with
/// None, makes it controller-driven (its value chunk becomes an empty 0x0200).
pub(super) fn set_uv_param(e: &mut SceneEdit, pb: usize, index: i32, v: Option<f32>) {
    let chunks = e.object_chunks(pb);
    let out = chunks
        .into_iter()
        .map(|c| {
            let is_it = c.id == 0x0002
                && c.children().iter().any(|k| {
                    k.id == 0x0003 && k.payload().is_some_and(|p| p == index.to_le_bytes())
                });
            if !is_it {
                return c;
            }
            let kids = c
                .children()
                .iter()
                .map(|k| match (k.id, v) {
                    (0x0100, Some(v)) => Chunk::leaf(0x0100, v.to_le_bytes().to_vec()),
                    (0x0100, None) => Chunk::leaf(0x0200, Vec::new()),
                    _ => k.clone(),
                })
                .collect();
            Chunk::container(0x0002, kids)
        })
        .collect();
    e.set_object_chunks(pb, out);
}

fn class(e: &mut SceneEdit, id: ClassId, name: &str) -> u16 {
    e.class_index_of(id, SC_FLOAT_CONTROL)
        .unwrap_or_else(|| e.add_class(DLL_BUILTIN, id, SC_FLOAT_CONTROL, name))
}

/// A Linear Float controller with keys (ticks, value).
pub(super) fn linear_float(e: &mut SceneEdit, keys: &[(i32, f32)]) -> usize {
    let c = class(e, LINEAR_FLOAT, "Linear Float");
    let mut table = Vec::new();
    for (t, v) in keys {
        table.extend_from_slice(&t.to_le_bytes());
        table.extend_from_slice(&0u32.to_le_bytes());
        table.extend_from_slice(&v.to_le_bytes());
    }
    e.add_object(c, vec![Chunk::leaf(0x2511, table)])
}

/// An On/Off controller: initial state, key times (seed S003 line 343).
fn on_off(e: &mut SceneEdit, initial: bool, keys: &[i32]) -> usize {
    let c = class(e, ON_OFF, "On/Off");
    let mut chunks = vec![Chunk::leaf(0x0140, (initial as u32).to_le_bytes().to_vec())];
    for t in keys {
        chunks.push(Chunk::leaf(0x0100, t.to_le_bytes().to_vec()));
    }
    e.add_object(c, chunks)
}

pub(super) fn shape_of(out: &Exports, name: &str) -> maxfs_exporters::nel::shape::mesh::Mesh {
    let o = out
        .outputs
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no {name}: {:?}", out.errors));
    if let Some(dir) = std::env::var_os("MAXFS_FX_OUT") {
        std::fs::write(std::path::Path::new(&dir).join(name), &o.bytes).expect("writes");
    }
    let f = read_nel(&o.bytes, name).expect("reads");
    assert_eq!(write_nel(&f).expect("rewrites"), o.bytes);
    match f {
        NelFile::Shape(ShapeStream { shape }) => match shape.get() {
            Some(Shape::CMesh(m)) => m.clone(),
            other => panic!("{name}: not a CMesh: {other:?}"),
        },
        other => panic!("{name}: not a shape: {other:?}"),
    }
}

/// The block copy: U offset 0.25, U tiling 2, W angle 0.5, V offset driven
/// by a Linear Float controller (0 at tick 0, 1 at tick 16000), slot 1 on;
/// `tex_matrix` sets bExportTextureMatrix (main block id 36).
fn placed_block(tex_matrix: bool) -> (Document, BlockMaterial) {
    let b = block_material();
    let (mut e, uv) = textured_block(&b);
    e.set_pb2_constant(b.main, 36, &(tex_matrix as i32).to_le_bytes());
    set_uv_param(&mut e, uv, 0, Some(0.25));
    set_uv_param(&mut e, uv, 2, Some(2.0));
    set_uv_param(&mut e, uv, 6, Some(0.5));
    set_uv_param(&mut e, uv, 1, None);
    let ctl = linear_float(&mut e, &[(0, 0.0), (16000, 1.0)]);
    assert_eq!(e.append_reference(uv, ctl as i32), 0, "V Offset's slot");
    appdata(&mut e, b.node, id::AUTOMATIC_ANIMATION, "1");
    appdata(&mut e, b.node, id::EXPORT_ANIMATED_MATERIALS, "1");
    (e.finish(), b)
}

/// Deterministic damage to the constructed scene (the texture-matrix copy
/// with its controllers and AUTOMATIC_ANIMATION): byte edits in the part of
/// the Scene stream that holds the added objects (the tail) and anywhere
/// else. The shape and shape-animation exporters never panic, and whatever
/// they write reads back and rewrites identically.
#[test]
fn damaged_animation_scenes_export_cleanly() {
    let (doc, _) = placed_block(true);
    let (runs, anims) = damaged_exports(&doc, "block", 0x0005_eed0_fa11_u64);
    assert!(runs > 30 && anims > 10, "{runs} runs, {anims} animations");
}

/// 60 damaged copies of `doc` (1–6 random bytes each, alternately in the
/// last 2 KiB of the Scene stream, where added objects sit, and anywhere)
/// through the shape and shape-animation exporters: nothing panics, every
/// output reads back and rewrites identically, every error has a reason.
/// Returns (copies that still parse, animations written).
pub(super) fn damaged_exports(doc: &Document, stem: &str, seed: u64) -> (usize, usize) {
    let file = maxfs_scene::container::MaxFile::from_bytes(&doc_bytes(doc)).expect("reparses");
    let scene = file.stream("Scene").expect("Scene").data.to_vec();
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut anims, mut runs) = (0, 0);
    for i in 0..60 {
        let mut data = scene.clone();
        for _ in 0..1 + next() % 6 {
            let at = if i % 2 == 0 {
                data.len() - 1 - (next() % 2048.min(data.len() as u64)) as usize
            } else {
                (next() % data.len() as u64) as usize
            };
            data[at] = next() as u8;
        }
        let mut f = file.clone();
        if let Some(st) = f.streams.iter_mut().find(|st| st.name == "Scene") {
            st.data = data.into();
        }
        let Ok(bytes) = f.to_bytes() else { continue };
        let Ok(d) = Document::from_bytes(&bytes) else {
            continue;
        };
        runs += 1;
        let ex = export(stem, &d, &[ExportKind::Shape, ExportKind::ShapeAnim]);
        for o in &ex.outputs {
            let r = read_nel(&o.bytes, &o.name).unwrap_or_else(|e| panic!("{}: {e}", o.name));
            assert_eq!(write_nel(&r).expect("rewrites"), o.bytes, "{}", o.name);
            anims += usize::from(o.kind == ExportKind::ShapeAnim);
        }
        for e in &ex.errors {
            assert!(!e.reason.is_empty());
        }
    }
    (runs, anims)
}

/// The bytes of a document's file.
fn doc_bytes(doc: &Document) -> Vec<u8> {
    doc.file.to_bytes().expect("writes")
}

/// export_material.cpp: with bExportTextureMatrix the stage's placement
/// becomes the material's user texture matrix (uvMatrix2NelUVMatrix) and the
/// UVs stay as stored; without it the same matrix is baked into the UVs.
/// NeL's CMaterial::decompUserTexMat recovers the StdUVGen values from the
/// written matrix (offset 0.25 / 0, tiling 2 / 1, W angle 0.5: the values
/// set here, the V offset at tick 0), and CMaterialBase::copyFromMaterial
/// starts the material's animation defaults from them. The per-node .anim
/// holds `<material>.VTrans0`, a CTrackKeyFramerLinearFloat with the
/// controller's keys (export_anim.cpp addTexTracks), and no track for the
/// unanimated coordinates.
#[test]
fn texture_matrix_static_value_and_tracks() {
    let (doc, b) = placed_block(true);
    let out = export("block", &doc, &[ExportKind::Shape, ExportKind::ShapeAnim]);
    let with = shape_of(&out, "box01.shape");
    let base = with.base.as_ref().expect("base");
    let m = &base.materials[0];
    assert_ne!(
        m.flags & (1 << 20),
        0,
        "user texture matrix of stage 0 enabled"
    );
    assert_eq!(m.user_tex_mat.len(), 1);
    let d = uv_matrix::decomp_user_tex_mat(&m.user_tex_mat[0]);
    // decompUserTexMat reads the angle off the scaled I axis: with unequal
    // tiling it is atan2(tv·sin w, tu·cos w), not w.
    let w = (1.0f32 * 0.5f32.sin()).atan2(2.0 * 0.5f32.cos());
    for (k, (got, want)) in d.iter().zip([0.25f32, 0.0, w, 2.0, 1.0]).enumerate() {
        assert!((got - want).abs() < 1e-5, "component {k}: {d:?}");
    }
    let am = &base.animated_materials;
    assert_eq!(
        am.len(),
        1,
        "EXPORT_ANIMATED_MATERIALS: one animated material"
    );
    let t = &am[0].1.tex_anim_tracks[0];
    assert!((t.u_trans.value.get() - 0.25).abs() < 1e-5);
    assert!((t.u_scale.value.get() - 2.0).abs() < 1e-5);
    assert!((t.v_scale.value.get() - 1.0).abs() < 1e-5);

    // The same scene without the flag: the matrix is baked into the UVs.
    let (plain_doc, _) = placed_block(false);
    let plain = export("block", &plain_doc, &[ExportKind::Shape]);
    let baked = shape_of(&plain, "box01.shape");
    assert_eq!(
        baked.base.as_ref().expect("base").materials[0].flags & (1 << 20),
        0
    );
    let uv = |mesh: &maxfs_exporters::nel::shape::mesh::Mesh| -> Vec<[f32; 2]> {
        let geom = mesh.geom.as_ref().expect("geom");
        let tc = geom
            .vbuffer
            .vertices
            .channels
            .iter()
            .find(|c| c.value == "tex_coord0")
            .expect("tex_coord0");
        let ChannelData::Float(f) = &tc.data else {
            panic!("tex_coord0 not floats")
        };
        f.chunks_exact(2)
            .map(|p| [p[0].get(), p[1].get()])
            .collect()
    };
    let (raw, flat) = (uv(&with), uv(&baked));
    assert_eq!(raw.len(), flat.len());
    let r = m.user_tex_mat[0].rot.expect("rot").map(|x| x.get());
    let tr = m.user_tex_mat[0].trans.expect("trans").map(|x| x.get());
    for (a, b) in raw.iter().zip(&flat) {
        let x = r[0] * a[0] + r[1] * a[1] + tr[0];
        let y = r[3] * a[0] + r[4] * a[1] + tr[1];
        assert!(
            (x - b[0]).abs() < 1e-4 && (y - b[1]).abs() < 1e-4,
            "{a:?} → {b:?}"
        );
    }

    let anim = out
        .outputs
        .iter()
        .find(|o| o.kind == ExportKind::ShapeAnim)
        .unwrap_or_else(|| panic!("no .anim: {:?}", out.errors));
    assert_eq!(anim.name, "Box01.anim");
    let t = tracks(&anim.bytes, &anim.name);
    let names: Vec<&str> = t.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, [format!("{}.VTrans0", b.name)], "{names:?}");
    let Track::CTrackKeyFramerLinearFloat(k) = &t[0].1 else {
        panic!("not a linear float track: {:?}", t[0].1)
    };
    let keys: Vec<(f32, f32)> = k
        .keys
        .iter()
        .map(|(t, v)| (t.get(), v.value.get()))
        .collect();
    assert_eq!(keys, [(0.0, 0.0), (16000.0 / 4800.0, 1.0)]);
}

/// S:343: bExportTextureMatrix keyed with an On/Off controller is read at
/// tick 0 — its initial state toggled by each key at or before 0 — for the
/// material (user texture matrix) and for the tracks alike.
#[test]
fn on_off_controller_read_at_tick_zero() {
    for (initial, keys, on) in [
        (false, vec![0], true),
        (false, vec![160], false),
        (true, vec![], true),
        (true, vec![-160, 0], true),
    ] {
        let b = block_material();
        let (mut e, uv) = textured_block(&b);
        set_uv_param(&mut e, uv, 1, None);
        let ctl = linear_float(&mut e, &[(0, 0.0), (16000, 1.0)]);
        e.append_reference(uv, ctl as i32);
        e.unset_pb2_constant(b.main, 36);
        let flag = on_off(&mut e, initial, &keys);
        let slot = e.append_reference(b.main, flag as i32);
        appdata(&mut e, b.node, id::AUTOMATIC_ANIMATION, "1");
        appdata(&mut e, b.node, id::EXPORT_ANIMATED_MATERIALS, "1");
        let doc = e.finish();
        // The flag's record now owns the appended reference slot.
        let eval = maxfs_scene::eval::SceneEval::from_document(doc.clone()).expect("scene");
        let pb = maxfs_scene::eval::core::pblock::param_block2(eval.chunks(b.main)).expect("pb2");
        assert_eq!(pb.param(36).and_then(|p| p.ref_slot), Some(slot));
        let target = maxfs_scene::eval::core::pblock::reference(&eval.graph, b.main, slot);
        assert_eq!(target, Some(flag), "the flag's controller");
        let cls = eval.graph.objects[flag].class.as_ref().map(|c| c.class_id);
        assert_eq!(cls, Some(ON_OFF));
        assert_eq!(
            maxfs_exporters::nel::export::shape::nel_params::on_off_at_zero(eval.chunks(flag)),
            Some(on)
        );
        let out = export("block", &doc, &[ExportKind::Shape, ExportKind::ShapeAnim]);
        let shape = shape_of(&out, "box01.shape");
        let flags = shape.base.as_ref().expect("base").materials[0].flags;
        assert_eq!(flags & (1 << 20) != 0, on, "{initial} {keys:?}");
        let anim = out
            .outputs
            .iter()
            .find(|o| o.kind == ExportKind::ShapeAnim)
            .expect("anim");
        assert_eq!(
            tracks(&anim.bytes, &anim.name).len(),
            on as usize,
            "{initial} {keys:?}"
        );
    }
}
