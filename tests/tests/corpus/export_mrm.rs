//! MRM export (NEL3D_APPDATA_LOD_MRM) on real corpus meshes. No corpus node
//! asks for MRM, so the AppData is added to a copy of the scene graph (as the
//! plug-in's MAXScript would store it: the NeL AppData class, a string value)
//! and the same nodes are exported with and without it.
//!
//! Per node: the MRM reads back through our NeL reader and re-serializes
//! byte-identically; its finest LOD is the CMesh export's surface (same
//! triangles with the same materials); coarser LODs have fewer faces, in the
//! linear ratio `buildAllLods` asks for; every face, geomorph and LOD wedge
//! range is in bounds; every wedge lies in the mesh's bounding box; skinned
//! meshes keep weights summing to 1 on valid bones.

use std::collections::BTreeMap;
use std::path::Path;

use maxfs_exporters::nel::export::properties::{id, nel_entry};
use maxfs_exporters::nel::export::{shape, Context, Exports};
use maxfs_exporters::nel::shape::mesh::Mesh;
use maxfs_exporters::nel::shape::mrm::{MeshMrmGeom, MeshMrmSkinnedGeom, WedgeGeom};
use maxfs_exporters::nel::shape::multilod::MeshGeomClass;
use maxfs_exporters::nel::shape::vertex_buffer::{ChannelData, VbSubset};
use maxfs_exporters::nel::shape::Shape;
use maxfs_exporters::nel::{read_nel, write_nel, NelFile};
use maxfs_scene::graph::SceneGraph;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;

/// MRM parameters of one run: lods, divisor, skin reduction.
#[derive(Clone, Copy)]
struct Mrm {
    lods: u32,
    divisor: u32,
    reduction: u32,
}

fn export_graph(stem: &str, doc: &Document, graph: &SceneGraph) -> Exports {
    let eval = maxfs_tests::eval_with_graph(doc, maxfs_scene::graph::SceneGraph::clone(graph));
    let ctx = Context::new(stem, &eval);
    let mut out = Exports::default();
    shape::export(&ctx, &mut out);
    out
}

/// The file's shapes as exported, and again with MRM asked on every node.
fn exports(rel: &str, mrm: Mrm) -> (BTreeMap<String, Vec<u8>>, BTreeMap<String, Vec<u8>>) {
    let path = corpus_dir().join(rel);
    let doc = Document::open(&path).expect("readable .max");
    let typed = doc.typed();
    let graph = typed.scene.as_deref().expect("scene").clone();
    let stem = Path::new(rel)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("");
    let plain = export_graph(stem, &doc, &graph);
    let mut with = graph.clone();
    for o in with.objects.iter_mut().filter(|o| o.node.is_some()) {
        o.appdata.extend([
            nel_entry(id::LOD_MRM, "1"),
            nel_entry(id::LOD_NB_LOD, &mrm.lods.to_string()),
            nel_entry(id::LOD_DIVISOR, &mrm.divisor.to_string()),
            nel_entry(id::LOD_SKIN_REDUCTION, &mrm.reduction.to_string()),
        ]);
    }
    let mrm_out = export_graph(stem, &doc, &with);
    let map = |e: Exports| e.outputs.into_iter().map(|o| (o.name, o.bytes)).collect();
    assert!(
        mrm_out.errors.len() <= plain.errors.len(),
        "MRM refuses more nodes: {:?}",
        mrm_out.errors
    );
    (map(plain), map(mrm_out))
}

fn read_shape(bytes: &[u8], name: &str) -> Shape {
    let f = read_nel(bytes, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let again = write_nel(&f).expect("writes");
    assert!(
        again == bytes,
        "{name}: not byte-identical after a round trip"
    );
    match f {
        NelFile::Shape(s) => s.shape.get().cloned().expect("a shape"),
        _ => panic!("{name}: not a shape"),
    }
}

fn floats(sub: &VbSubset, value: &str) -> Vec<f32> {
    match sub
        .channels
        .iter()
        .find(|c| c.value == value)
        .map(|c| &c.data)
    {
        Some(ChannelData::Float(v)) => v.iter().map(|f| f.get()).collect(),
        _ => Vec::new(),
    }
}

type Tri = (u32, [[f32; 3]; 3]);

/// A triangle rotated so its smallest corner comes first (winding kept).
fn canonical(material: u32, mut t: [[f32; 3]; 3]) -> Tri {
    let lt = |a: &[f32; 3], b: &[f32; 3]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| x.total_cmp(y))
            .find(|o| o.is_ne())
            == Some(std::cmp::Ordering::Less)
    };
    let mut k = 0;
    for i in 1..3 {
        if lt(&t[i], &t[k]) {
            k = i;
        }
    }
    t.rotate_left(k);
    (material, t)
}

fn sorted(mut v: Vec<Tri>) -> Vec<Tri> {
    v.sort_by(|a, b| {
        a.0.cmp(&b.0).then_with(|| {
            a.1.iter()
                .flatten()
                .zip(b.1.iter().flatten())
                .map(|(x, y)| x.total_cmp(y))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal)
        })
    });
    v
}

/// The CMesh's triangles (positions) with their materials, and its box.
fn mesh_surface(m: &Mesh) -> (Vec<Tri>, [[f32; 3]; 2]) {
    let g = m.geom.as_ref().expect("geom");
    let p = floats(&g.vbuffer.vertices, "position");
    let at = |i: u32| -> [f32; 3] { std::array::from_fn(|k| p[3 * i as usize + k]) };
    let mut tris = Vec::new();
    for pass in g.matrix_blocks.iter().flat_map(|b| &b.rdr_pass) {
        for t in pass.pblock.indexes.chunks(3) {
            tris.push(canonical(pass.material_id, [at(t[0]), at(t[1]), at(t[2])]));
        }
    }
    let mut lo = [f32::MAX; 3];
    let mut hi = [f32::MIN; 3];
    for v in p.chunks(3) {
        for k in 0..3 {
            lo[k] = lo[k].min(v[k]);
            hi[k] = hi[k].max(v[k]);
        }
    }
    (sorted(tris), [lo, hi])
}

fn assert_same_surface(name: &str, ours: Vec<Tri>, reference: &[Tri], tol: f32) {
    let ours = sorted(ours);
    assert_eq!(ours.len(), reference.len(), "{name}: finest face count");
    for (a, b) in ours.iter().zip(reference) {
        assert_eq!(a.0, b.0, "{name}: material");
        for (x, y) in a.1.iter().flatten().zip(b.1.iter().flatten()) {
            assert!((x - y).abs() <= tol, "{name}: finest {a:?} vs mesh {b:?}");
        }
    }
}

/// What every MRM LOD list must satisfy; returns faces per LOD, coarsest first.
fn check_lods(name: &str, n_total: usize, lods: &[(u32, Vec<WedgeGeom>, Vec<u32>)]) -> Vec<usize> {
    let space = lods.iter().map(|l| l.1.len()).max().unwrap_or(0);
    let mut prev = 0;
    for (i, (n_wedges, geoms, idx)) in lods.iter().enumerate() {
        let n = *n_wedges as usize;
        assert!(n >= prev && n <= n_total, "{name} lod {i}: {n} wedges");
        prev = n;
        for g in geoms {
            for w in [g.start, g.end] {
                assert!(
                    (w as usize) >= space && (w as usize) < n,
                    "{name} lod {i}: geomorph {w}"
                );
            }
        }
        for &w in idx {
            assert!((w as usize) < n, "{name} lod {i}: index {w} of {n}");
            if (w as usize) < space {
                assert!(
                    (w as usize) < geoms.len(),
                    "{name} lod {i}: geomorph slot {w}"
                );
            }
        }
    }
    assert_eq!(prev, n_total, "{name}: the finest lod uses every wedge");
    lods.iter().map(|l| l.2.len() / 3).collect()
}

/// Face counts against `buildAllLods`' linear targets: each within the
/// faces one collapse removes (≤ 3 on these manifold meshes) below its target,
/// strictly increasing toward the full mesh.
fn check_ratio(name: &str, counts: &[usize], full: usize, mrm: Mrm) {
    let n = counts.len();
    assert_eq!(n as u32, mrm.lods, "{name}: lod count");
    assert_eq!(counts[n - 1], full, "{name}: finest lod is the full mesh");
    let base = (full / mrm.divisor as usize).max(4);
    for l in 0..n - 1 {
        let wanted = (base + (full.saturating_sub(base)) * l / (n - 1)).max(4);
        if full <= wanted {
            assert_eq!(counts[l], full, "{name} lod {l}: nothing to collapse");
            continue;
        }
        assert!(
            counts[l] <= wanted && counts[l] + 3 >= wanted,
            "{name} lod {l}: {} faces for a target of {wanted} ({counts:?})",
            counts[l]
        );
        assert!(counts[l] <= counts[l + 1], "{name}: {counts:?}");
    }
    eprintln!("{name}: faces per lod {counts:?}");
}

fn all_positions(lods: &[VbSubset]) -> Vec<[f32; 3]> {
    lods.iter()
        .flat_map(|s| {
            let p = floats(s, "position");
            p.chunks(3).map(|c| [c[0], c[1], c[2]]).collect::<Vec<_>>()
        })
        .collect()
}

fn in_box(name: &str, p: &[f32; 3], b: &[[f32; 3]; 2], tol: f32) {
    for k in 0..3 {
        let t = tol * (1.0 + b[0][k].abs().max(b[1][k].abs()));
        assert!(
            p[k] >= b[0][k] - t && p[k] <= b[1][k] + t,
            "{name}: wedge {p:?} outside {b:?}"
        );
    }
}

struct Stats {
    nodes: usize,
    /// Nodes written as CMeshMRMSkinned.
    packed: usize,
    wedges: usize,
    faces: usize,
}

/// Checks one CMeshMRMGeom against the node's CMesh.
fn check_geom(name: &str, g: &MeshMrmGeom, mesh: &Mesh, mrm: Mrm, st: &mut Stats) {
    let (reference, bbox) = mesh_surface(mesh);
    let subsets: Vec<VbSubset> = g.lods.iter().map(|(_, v)| v.vertices.clone()).collect();
    let pos = all_positions(&subsets);
    assert_eq!(pos.len(), g.n_wedges as usize, "{name}: wedges stored");
    let mut end = 0;
    for (info, (lod, _)) in g.lod_infos.iter().zip(&g.lods) {
        assert_eq!(info.start_add_wedge, end, "{name}: lod wedge ranges");
        assert_eq!(
            info.end_add_wedges, lod.n_wedges,
            "{name}: lod wedge ranges"
        );
        end = info.end_add_wedges;
    }
    let lods: Vec<(u32, Vec<WedgeGeom>, Vec<u32>)> = g
        .lods
        .iter()
        .map(|(l, _)| {
            let idx = l
                .rdr_pass
                .iter()
                .flat_map(|p| p.pblock.indexes.clone())
                .collect();
            (l.n_wedges, l.geomorphs.clone(), idx)
        })
        .collect();
    let counts = check_lods(name, pos.len(), &lods);
    check_ratio(name, &counts, reference.len(), mrm);
    assert_eq!(g.level_detail.max_face_used as usize, reference.len());
    assert_eq!(g.level_detail.min_face_used as usize, counts[0]);
    let space = lods.iter().map(|l| l.1.len()).max().unwrap_or(0);
    for p in &pos[space..] {
        in_box(name, p, &bbox, 1e-5);
    }
    // Finest surface: geomorph slots resolve to their finer (start) wedge.
    let (finest, _) = g.lods.last().expect("lods");
    let mut tris = Vec::new();
    for pass in &finest.rdr_pass {
        for t in pass.pblock.indexes.chunks(3) {
            let at = |w: u32| {
                let w = match finest.geomorphs.get(w as usize) {
                    Some(gm) if (w as usize) < space => gm.start,
                    _ => w,
                };
                pos[w as usize]
            };
            tris.push(canonical(pass.material_id, [at(t[0]), at(t[1]), at(t[2])]));
        }
    }
    assert_same_surface(name, tris, &reference, 1e-5);
    if g.skinned.get() {
        let bones = g.bones_name.as_ref().map_or(0, Vec::len) as u32;
        let sw = g.skin_weights.as_ref().expect("skin weights");
        assert_eq!(sw.len(), pos.len(), "{name}: one skin weight per wedge");
        for w in &sw[space..] {
            let s = w.w0.get() + w.w1.get() + w.w2.get() + w.w3.get();
            assert!((s - 1.0).abs() < 1e-5, "{name}: weights sum to {s}");
            for (m, x) in [(w.m0, w.w0), (w.m1, w.w1), (w.m2, w.w2), (w.m3, w.w3)] {
                assert!(x.get() == 0.0 || m < bones, "{name}: bone {m} of {bones}");
            }
        }
        for (l, _) in &g.lods {
            assert!(l.matrix_influences.iter().all(|&m| m < bones));
        }
    }
    st.nodes += 1;
    st.wedges += pos.len();
    st.faces += reference.len();
}

/// Checks one CMeshMRMSkinnedGeom (quantized) against the node's CMesh.
fn check_skinned(name: &str, g: &MeshMrmSkinnedGeom, mesh: &Mesh, mrm: Mrm, st: &mut Stats) {
    let (reference, bbox) = mesh_surface(mesh);
    let scale = g.vbuffer.decompact_scale.get();
    let pos: Vec<[f32; 3]> = g
        .vbuffer
        .packed_buffer
        .iter()
        .map(|v| v.pos.map(|x| f32::from(x) * scale))
        .collect();
    let lods: Vec<(u32, Vec<WedgeGeom>, Vec<u32>)> = g
        .lods
        .iter()
        .map(|l| {
            let idx = l
                .rdr_pass
                .iter()
                .flat_map(|p| p.pblock.iter().map(|&i| u32::from(i)))
                .collect();
            (l.n_wedges, l.geomorphs.clone(), idx)
        })
        .collect();
    let counts = check_lods(name, pos.len(), &lods);
    check_ratio(name, &counts, reference.len(), mrm);
    let space = lods.iter().map(|l| l.1.len()).max().unwrap_or(0);
    for p in &pos[space..] {
        in_box(name, p, &bbox, scale);
    }
    let finest = g.lods.last().expect("lods");
    let mut tris = Vec::new();
    for pass in &finest.rdr_pass {
        for t in pass.pblock.chunks(3) {
            let at = |w: u16| {
                let w = match finest.geomorphs.get(w as usize) {
                    Some(gm) if (w as usize) < space => gm.start as usize,
                    _ => w as usize,
                };
                pos[w]
            };
            tris.push(canonical(pass.material_id, [at(t[0]), at(t[1]), at(t[2])]));
        }
    }
    // Quantized positions: within half a step of the mesh's (and the sort of
    // a nearly-equal corner may rotate differently, so compare sorted corners).
    let corners = |v: &[Tri]| {
        let mut c: Vec<[i64; 3]> = v
            .iter()
            .flat_map(|t| t.1)
            .map(|p| p.map(|x| (x / scale).round() as i64))
            .collect();
        c.sort_unstable();
        c
    };
    let (a, b) = (corners(&tris), corners(&reference));
    assert_eq!(a.len(), b.len(), "{name}: finest face count");
    for (x, y) in a.iter().zip(&b) {
        assert!(
            x.iter().zip(y).all(|(p, q)| (p - q).abs() <= 1),
            "{name}: {x:?} vs {y:?}"
        );
    }
    let bones = g.bones_name.len();
    for v in &g.vbuffer.packed_buffer[space..] {
        let ws = [v.w0, v.w1, v.w2, v.w3];
        assert_eq!(
            ws.iter().map(|&w| u32::from(w)).sum::<u32>(),
            255,
            "{name}: weight sum"
        );
        for (m, w) in [(v.m0, v.w0), (v.m1, v.w1), (v.m2, v.w2), (v.m3, v.w3)] {
            assert!(
                w == 0 || (m as usize) < bones,
                "{name}: bone {m} of {bones}"
            );
        }
    }
    for l in &g.lods {
        assert!(l.matrix_influences.iter().all(|&m| (m as usize) < bones));
    }
    st.nodes += 1;
    st.packed += 1;
    st.wedges += pos.len();
    st.faces += reference.len();
}

fn run(rel: &str, mrm: Mrm) -> Stats {
    let (plain, with) = exports(rel, mrm);
    let mut st = Stats {
        nodes: 0,
        packed: 0,
        wedges: 0,
        faces: 0,
    };
    for (name, bytes) in &plain {
        let Shape::CMesh(mesh) = read_shape(bytes, name) else {
            continue;
        };
        let mrm_bytes = with
            .get(name)
            .unwrap_or_else(|| panic!("{rel}: no MRM {name}"));
        let label = format!("{rel}: {name}");
        match read_shape(mrm_bytes, name) {
            Shape::CMeshMRM(m) => {
                assert_eq!(
                    m.base.materials.len(),
                    mesh.base.as_ref().expect("base").materials.len()
                );
                check_geom(&label, &m.geom, &mesh, mrm, &mut st)
            }
            Shape::CMeshMRMSkinned(m) => check_skinned(&label, &m.geom, &mesh, mrm, &mut st),
            other => panic!("{label}: {}", other_name(&other)),
        }
    }
    eprintln!(
        "{rel}: {} nodes ({} CMeshMRMSkinned), {} faces, {} wedges",
        st.nodes, st.packed, st.faces, st.wedges
    );
    st
}

fn other_name(s: &Shape) -> String {
    use maxfs_exporters::nel::stream::PolyClass;
    s.class_name().to_string()
}

#[test]
fn street_meshes_as_mrm() {
    let st = run(
        "max/ryzomcore/street.max",
        Mrm {
            lods: 11,
            divisor: 20,
            reduction: 1,
        },
    );
    assert!(st.nodes >= 5, "{} nodes", st.nodes);
}

#[test]
fn neloid_block_as_mrm() {
    let st = run(
        "max/neloid/block.max",
        Mrm {
            lods: 4,
            divisor: 2,
            reduction: 1,
        },
    );
    assert!(st.nodes >= 1);
}

#[test]
fn rigged_models_as_skinned_mrm() {
    let mut packed = 0;
    for (model, reduction) in [("RiggedElf", 2), ("RiggedFigure", 0)] {
        let st = run(
            &format!("max/babylon/{model}.max"),
            Mrm {
                lods: 6,
                divisor: 10,
                reduction,
            },
        );
        assert!(st.nodes >= 1, "{model}");
        // Their materials have no texture: no UV set, so not CMeshMRMSkinned's
        // format (position, normal, UV 0) and they stay skinned CMeshMRM.
        packed += st.packed;
    }
    assert_eq!(packed, 0, "untextured skinned meshes are CMeshMRM");
}

/// A LOD set whose slave is an MRM: the slave's slot is a CMeshMRMGeom and
/// the slot's polygon-count line follows its level detail.
#[test]
fn multilod_with_an_mrm_slot() {
    let path = corpus_dir().join("max/ryzomcore/street.max");
    let doc = Document::open(&path).expect("street.max");
    let typed = doc.typed();
    let mut graph = typed.scene.as_deref().expect("scene").clone();
    maxfs_tests::street_lod_set(
        &mut graph,
        &[nel_entry(id::LOD_MRM, "1"), nel_entry(id::LOD_NB_LOD, "5")],
    );
    let out = export_graph("street", &doc, &graph);
    let o = out
        .outputs
        .iter()
        .find(|o| o.name == "sphere01.shape")
        .expect("sphere01.shape");
    let Shape::CMeshMultiLod(m) = read_shape(&o.bytes, &o.name) else {
        panic!("not a CMeshMultiLod");
    };
    assert_eq!(m.mesh_vector.len(), 2);
    let Some(MeshGeomClass::CMeshGeom(_)) = m.mesh_vector[0].mesh_geom.get() else {
        panic!("slot 0 is the master's CMeshGeom");
    };
    let Some(MeshGeomClass::CMeshMRMGeom(g)) = m.mesh_vector[1].mesh_geom.get() else {
        panic!("slot 1 is the slave's CMeshMRMGeom");
    };
    assert_eq!(g.lods.len(), 5);
    let ld = &g.level_detail;
    assert_eq!(ld.max_face_used, 224, "the sphere's full face count");
    let min = ld.min_face_used as f32;
    assert!(
        (8.0..=11.0).contains(&min),
        "about 224 / 20 faces at the coarsest lod: {min}"
    );
    // Last slot: start at 50 (level detail 150/195 ^ pow, +0.05), end at its
    // own coarsest count at 200.
    let level = ((200.0f32 - 50.0) * ld.oo_distance_delta.get()).powf(ld.distance_pow.get());
    let start = min + (level + 0.05) * (224.0 - min);
    let slot = &m.mesh_vector[1];
    assert_eq!(slot.end_polygon_count.get(), min);
    let a = (min - start) / (200.0 - 50.0);
    assert!((slot.a.get() - a).abs() < 1e-4, "a {} vs {a}", slot.a.get());
}

/// CMeshMRMSkinned on RiggedFigure's skinned mesh. The corpus has no textured
/// skinned mesh, so the exporter's mesh build gets one UV set (a planar
/// projection of each corner's vertex) to fit the packed format; the rest is
/// the real build (vertices, normals, skin weights, bones).
#[test]
fn packed_skinned_mrm_from_rigged_figure() {
    use maxfs_exporters::nel::export::shape::{
        material_build, mesh_build, mrm_geom, source, vertex_format as vf, Era,
    };
    use maxfs_exporters::nel::shape::mrm::MeshMrmSkinned;
    use maxfs_exporters::nel::shape::ShapeStream;
    use maxfs_exporters::nel::stream::Ptr;
    use maxfs_scene::eval::objects::normals::Weighting;

    let rel = "max/babylon/RiggedFigure.max";
    let path = corpus_dir().join(rel);
    let doc = Document::open(&path).expect("max");
    let typed = doc.typed();
    let graph = typed.scene.as_deref().expect("scene").clone();
    let eval = maxfs_tests::eval_with_graph(&doc, maxfs_scene::graph::SceneGraph::clone(&graph));
    let ctx = Context::new("RiggedFigure", &eval);
    let node = (0..graph.objects.len())
        .find(|&i| graph.objects[i].node.is_some() && shape::skin_modifier(&ctx, i).is_some())
        .expect("a skinned node");
    let name = format!(
        "{}.shape",
        graph.objects[node]
            .node
            .as_ref()
            .map_or(String::new(), |n| n.name.to_lowercase())
    );
    let skin = shape::skin_modifier(&ctx, node);
    let mesh = source::node_mesh(&ctx, node, skin).expect("mesh");
    let mats = material_build::build_materials(&ctx, node);
    let to_world = ctx.eval.object_tm(node, 0);
    let mut build =
        mesh_build::build(&mesh, &to_world, &mats, false, Weighting::CornerAngle).expect("build");
    build.skin = shape::skin_input(&ctx, node, None).and_then(Result::ok);
    let uv = |p: [f32; 3]| [p[0] * 0.01, p[2] * 0.01];
    build.vertex_flags |= vf::TEX_COORD0;
    for f in build.faces.iter_mut() {
        for c in f.corners.iter_mut() {
            c.uvs[0] = uv(build.vertices[c.vertex as usize]);
        }
    }
    assert!(mrm_geom::skinned_compatible(&build));
    let mut props = maxfs_exporters::nel::export::properties::NodeProperties::default();
    props.lod_nb_lod = 5;
    props.lod_divisor = 8;
    let settings = mrm_geom::settings(&props).expect("settings");
    let built = mrm_geom::build_skinned(&build, mats.materials.len(), &settings, Era::Current)
        .expect("CMeshMRMSkinnedGeom");
    assert!(built.used.iter().all(|&u| u), "every material is used");
    // The plain export of the same node gives the mesh base and the reference.
    let (plain, _) = exports(
        rel,
        Mrm {
            lods: 1,
            divisor: 1,
            reduction: 1,
        },
    );
    let Shape::CMesh(mesh) = read_shape(&plain[&name], &name) else {
        panic!("{name}: not a CMesh");
    };
    let shape = Shape::CMeshMRMSkinned(MeshMrmSkinned {
        version: 0,
        base: mesh.base.clone().expect("base"),
        geom: built.geom,
    });
    let bytes = write_nel(&NelFile::Shape(ShapeStream {
        shape: Ptr::Obj {
            id: 1,
            obj: Box::new(shape),
        },
    }))
    .expect("writes");
    let Shape::CMeshMRMSkinned(back) = read_shape(&bytes, &name) else {
        panic!("not a CMeshMRMSkinned");
    };
    let mrm = Mrm {
        lods: 5,
        divisor: 8,
        reduction: 1,
    };
    let mut st = Stats {
        nodes: 0,
        packed: 0,
        wedges: 0,
        faces: 0,
    };
    check_skinned(&name, &back.geom, &mesh, mrm, &mut st);
    // Finest wedges carry the UV of their position (quantized by 1/8192).
    let g = &back.geom;
    let scale = g.vbuffer.decompact_scale.get();
    let space = g.lods.iter().map(|l| l.geomorphs.len()).max().unwrap_or(0);
    let finest = g.lods.last().expect("lods");
    for &i in finest.rdr_pass.iter().flat_map(|p| &p.pblock) {
        let w = match finest.geomorphs.get(i as usize) {
            Some(gm) if (i as usize) < space => gm.start as usize,
            _ => i as usize,
        };
        let v = &g.vbuffer.packed_buffer[w];
        let want = uv(v.pos.map(|x| f32::from(x) * scale));
        let got = v.uv.map(|x| f32::from(x) / 8192.0);
        for k in 0..2 {
            assert!(
                (got[k] - want[k]).abs() <= 1.5 / 8192.0 + scale * 0.01,
                "uv {got:?} vs {want:?}"
            );
        }
    }
    eprintln!(
        "{name}: CMeshMRMSkinned, {} wedges, {} bones",
        st.wedges,
        g.bones_name.len()
    );
}
