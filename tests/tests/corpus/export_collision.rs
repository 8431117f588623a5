//! `.cmb`, `.pacs_prim` and `.veget` exports. The corpus holds no collision,
//! PACS or vegetable node and no reference export of these kinds, so the
//! nodes are made in copies of real scenes through the project's own writers
//! (AppData for COLLISION / VEGETABLE, a nel_pacs_box / nel_pacs_cylinder
//! object with its ParamBlock2 for PACS), exported, and checked rule by rule
//! against the plug-in sources (nel_mesh_lib/export_collision.cpp,
//! export_vegetable.cpp, nel_pacs_box.ms / nel_pacs_cylinder.ms; seed S003
//! l.449-455, 641, 833), against 3ds Max's own ASCII export of the same scene
//! (RotatingCube.ASE: world vertices, face order, edge visibility, material
//! ids) and against NeL itself (tests/oracle/pacs_check.sh: NeL loads every
//! output and writes it back identically, links the collision mesh, writes
//! the same XML from the same primitives and builds the same vegetable).

use std::path::Path;
use std::process::Command;

use maxfs_exporters::nel::cmb::CollisionMeshBuild;
use maxfs_exporters::nel::export::pacs_prim::param;
use maxfs_exporters::nel::export::properties::{id, NEL_CLASS_ID, NEL_SUPER_CLASS};
use maxfs_exporters::nel::export::{ExportKind, Exports};
use maxfs_exporters::nel::pacs_prim::PrimitiveBlock;
use maxfs_exporters::nel::veget::VegetableShape;
use maxfs_exporters::nel::{read_nel, write_nel, NelFile};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use maxfs_tests::nel_nodes::{make_pacs, pacs_values, NEL_PACS_BOX, NEL_PACS_CYLINDER};
use maxfs_tests::rewrite::SceneEdit;

fn with_appdata(rel: &str, add: &[(&str, u32, &str)]) -> Document {
    let mut e = SceneEdit::open(rel);
    for (node, sub_id, text) in add {
        let idx = e.node(node);
        e.add_appdata(idx, (NEL_CLASS_ID, NEL_SUPER_CLASS), *sub_id, text);
    }
    e.finish()
}

fn export(doc: &Document, stem: &str, kinds: &[ExportKind]) -> Exports {
    maxfs_tests::export_doc(stem, doc, kinds)
}

/// Every output reads back through our NeL reader and rewrites byte for byte.
fn reread(o: &maxfs_exporters::nel::export::Output) -> NelFile {
    let f = read_nel(&o.bytes, &o.name).unwrap_or_else(|e| panic!("{}: {e}", o.name));
    assert_eq!(
        write_nel(&f).expect("rewrites"),
        o.bytes,
        "{}: rewrite",
        o.name
    );
    f
}

/// tests/oracle/pacs_check.sh on `files`: one line per file.
fn oracle(files: &[(&str, &[u8])]) -> Vec<String> {
    maxfs_tests::oracle::check("pacs_check.sh", files, "OK\t")
}

fn oracle_script() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle/pacs_check.sh")
}

/// One `*MESH_FACE`: vertex indices, edge visibility AB, BC, CA, material id.
struct AseFace {
    v: [u32; 3],
    vis: [u8; 3],
    mtl: i32,
}

/// World vertices and faces of the first GEOMOBJECT of an ASE file, and its
/// node TM rows.
fn ase_mesh(text: &str) -> (Vec<[f64; 3]>, Vec<AseFace>, [[f64; 3]; 4]) {
    let mut verts = Vec::new();
    let mut faces = Vec::new();
    let mut tm = [[0.0; 3]; 4];
    let num = |w: &str| w.trim_end_matches(':').parse::<f64>().expect("number");
    for line in text.lines().map(str::trim) {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.first().copied() {
            Some("*MESH_VERTEX") => verts.push([num(w[2]), num(w[3]), num(w[4])]),
            Some("*MESH_FACE") => {
                let after = |tag: &str| {
                    let i = w.iter().position(|x| *x == tag).expect(tag);
                    num(w[i + 1])
                };
                faces.push(AseFace {
                    v: [after("A:") as u32, after("B:") as u32, after("C:") as u32],
                    vis: [after("AB:") as u8, after("BC:") as u8, after("CA:") as u8],
                    mtl: after("*MESH_MTLID") as i32,
                });
            }
            Some(t @ ("*TM_ROW0" | "*TM_ROW1" | "*TM_ROW2" | "*TM_ROW3")) if faces.is_empty() => {
                let k = (t.as_bytes()[7] - b'0') as usize;
                tm[k] = [num(w[1]), num(w[2]), num(w[3])];
            }
            _ => {}
        }
    }
    (verts, faces, tm)
}

fn rotating_cube_ase() -> String {
    std::fs::read_to_string(corpus_dir().join("ref/assimp/RotatingCube.ASE")).expect("ASE")
}

fn cmb_of(ex: &Exports, name: &str) -> CollisionMeshBuild {
    let o = ex
        .outputs
        .iter()
        .find(|o| o.kind == ExportKind::Cmb && o.name == name)
        .unwrap_or_else(|| panic!("no {name}: {}", ex.errors_text()));
    match reread(o) {
        NelFile::CollisionMeshBuild(m) => m,
        _ => panic!("{name} is not a collision mesh"),
    }
}

/// Each directed edge of the faces (optionally only interior or exterior)
/// has exactly one reverse: the surface is closed.
fn closed(m: &CollisionMeshBuild, interior: bool) -> bool {
    let mut edges = std::collections::HashMap::new();
    for f in m.faces.iter().filter(|f| (f.surface >= 0) == interior) {
        for j in 0..3 {
            *edges.entry((f.v[j], f.v[(j + 1) % 3])).or_insert(0) += 1;
        }
    }
    edges
        .iter()
        .all(|(&(a, b), &n)| n == 1 && edges.get(&(b, a)) == Some(&1))
}

/// export_collision.cpp on RotatingCube's box against Max's own ASE export:
/// vertices in world space (object TM, time 0), faces in Max's order with
/// their material ids, surface = material id for the only node,
/// Visibility[0..2] = Max's BC, CA, AB flags; "unknown_ig" without IGNAME;
/// a closed box gives a closed collision surface that NeL links without error.
#[test]
fn cmb_box_matches_max_ascii_export() {
    let doc = with_appdata(
        "max/assimp/RotatingCube.max",
        &[("Box01", id::COLLISION, "1")],
    );
    let ex = export(&doc, "RotatingCube", &[ExportKind::Cmb]);
    assert!(ex.errors.is_empty(), "{}", ex.errors_text());
    let m = cmb_of(&ex, "unknown_ig.cmb");
    let (verts, faces, _) = ase_mesh(&rotating_cube_ase());
    assert_eq!(m.vertices.len(), verts.len());
    for (i, (v, a)) in m.vertices.iter().zip(&verts).enumerate() {
        let v = [v.x.get(), v.y.get(), v.z.get()].map(f64::from);
        // The ASE prints 4 decimals.
        assert!(
            (0..3).all(|k| (v[k] - a[k]).abs() <= 1e-4 * a[k].abs().max(1.0)),
            "vertex {i}: {v:?} vs {a:?}"
        );
    }
    assert_eq!(m.faces.len(), faces.len());
    for (i, (f, a)) in m.faces.iter().zip(&faces).enumerate() {
        assert_eq!(f.v, a.v, "face {i}");
        let vis = f.visibility.map(|b| b.0);
        assert_eq!(
            vis,
            [a.vis[1], a.vis[2], a.vis[0]],
            "face {i}: visibility remap (B, C, A)"
        );
        assert_eq!((f.material, f.surface), (a.mtl, a.mtl), "face {i}");
    }
    assert!(
        closed(&m, true),
        "a closed box gives a closed collision surface"
    );
    let line = &oracle(&[("unknown_ig.cmb", &ex.outputs[0].bytes)])[0];
    assert!(line.contains("link_errors=0 open_edges=0"), "{line}");
}

/// createCollisionMeshBuildList / createCollisionMeshBuild on street.max:
/// one file per raw IGNAME in selection order; an exterior node's faces read
/// surface -1 and add 1 to the running surface base, an interior node adds
/// its largest material id + 1; a COLLISION_EXTERIOR-only node is selected
/// by cmb_export.ms but skipped by the plug-in (named in errors.txt); nodes
/// without COLLISION are not collision. The vertices are the nodes' world
/// vertices with the cross-node 5 mm weld, checked against a brute-force
/// weld of the same vertices.
#[test]
fn cmb_groups_surfaces_and_weld() {
    let add = [
        ("cluster01", id::COLLISION, "1"),
        ("cluster01", id::IGNAME, "Indoor"),
        ("cluster02", id::COLLISION, "1"),
        ("cluster02", id::IGNAME, "Indoor"),
        ("cluster02", id::COLLISION_EXTERIOR, "1"),
        ("Sphere01", id::COLLISION, "1"),
        ("Sphere01", id::IGNAME, "Indoor"),
        ("Sphere02", id::COLLISION, "1"),
        ("Sphere03", id::COLLISION_EXTERIOR, "1"),
    ];
    let doc = with_appdata("max/ryzomcore/street.max", &add);
    let ex = export(&doc, "street", &[ExportKind::Cmb]);
    let names: Vec<&str> = ex.outputs.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        ["Indoor.cmb", "unknown_ig.cmb"],
        "{}",
        ex.errors_text()
    );
    assert_eq!(ex.errors.len(), 1, "{}", ex.errors_text());
    assert_eq!(ex.errors[0].node, "Sphere03");

    let eval = SceneEval::from_document(doc.clone()).expect("eval");
    let node = |n: &str| {
        eval.graph
            .objects
            .iter()
            .position(|o| o.node.as_ref().is_some_and(|x| x.name == n))
            .expect(n)
    };
    // The group's nodes in the scripts' order, their world vertices and faces.
    let members = ["cluster01", "cluster02", "Sphere01"];
    let mut verts: Vec<[f32; 3]> = Vec::new();
    let mut owner = Vec::new();
    let mut faces = Vec::new();
    let mut base = 0i32;
    for (k, name) in members.iter().enumerate() {
        let n = node(name);
        let mesh = eval.mesh(n, 0).expect("mesh").expect("evaluates");
        let tm = eval.object_tm(n, 0);
        let first = verts.len() as u32;
        verts.extend(mesh.vertices.iter().map(|v| {
            let w = tm.transform_point(*v);
            [w.0 as f32, w.1 as f32, w.2 as f32]
        }));
        owner.extend(std::iter::repeat_n(k, mesh.vertices.len()));
        let exterior = *name == "cluster02";
        let max_mat = mesh
            .faces
            .iter()
            .map(|f| i32::from(f.material))
            .max()
            .unwrap_or(0);
        for f in &mesh.faces {
            let surface = if exterior {
                -1
            } else {
                base + i32::from(f.material)
            };
            faces.push((f.v.map(|v| v + first), surface, i32::from(f.material)));
        }
        base += if exterior { 1 } else { max_mat + 1 };
    }
    // Brute-force weld: j goes to the first earlier kept vertex of another
    // node within 5 mm.
    let mut to = (0..verts.len()).collect::<Vec<_>>();
    for j in 0..verts.len() {
        for i in 0..j {
            let d: f32 = (0..3)
                .map(|a| (verts[i][a] - verts[j][a]).powi(2))
                .sum::<f32>()
                .sqrt();
            if to[i] == i && owner[i] != owner[j] && d <= 0.005 {
                to[j] = i;
                break;
            }
        }
    }
    let kept: Vec<usize> = (0..verts.len()).filter(|&i| to[i] == i).collect();
    let new_id = |i: usize| kept.iter().position(|&k| k == to[i]).expect("kept") as u32;
    let m = cmb_of(&ex, "Indoor.cmb");
    let got: Vec<[f32; 3]> = m
        .vertices
        .iter()
        .map(|v| [v.x.get(), v.y.get(), v.z.get()])
        .collect();
    let want: Vec<[f32; 3]> = kept.iter().map(|&i| verts[i]).collect();
    assert_eq!(got, want);
    let want_faces: Vec<([u32; 3], i32, i32)> = faces
        .iter()
        .map(|(v, s, mat)| (v.map(|x| new_id(x as usize)), *s, *mat))
        .filter(|(v, _, _)| v[0] != v[1] && v[1] != v[2] && v[2] != v[0])
        .collect();
    let got_faces: Vec<([u32; 3], i32, i32)> = m
        .faces
        .iter()
        .map(|f| (f.v, f.surface, f.material))
        .collect();
    assert_eq!(got_faces, want_faces);
    let welded = verts.len() - kept.len();
    eprintln!(
        "street Indoor.cmb: {} vertices, {welded} welded, {} faces",
        verts.len(),
        m.faces.len()
    );
    // Closed sources (boxes, spheres) give closed interior and exterior surfaces.
    assert!(closed(&m, true) && closed(&m, false));
    let lines = oracle(&[
        ("Indoor.cmb", &ex.outputs[0].bytes),
        ("unknown_ig.cmb", &ex.outputs[1].bytes),
    ]);
    assert!(
        lines.iter().all(|l| l.contains("link_errors=0")),
        "{lines:?}"
    );
}

fn pacs_block_of(ex: &Exports, name: &str) -> (PrimitiveBlock, Vec<u8>) {
    let o = ex
        .outputs
        .iter()
        .find(|o| o.kind == ExportKind::PacsPrim && o.name == name)
        .unwrap_or_else(|| panic!("no {name}: {}", ex.errors_text()));
    assert!(o
        .bytes
        .starts_with(b"<?xml version=\"1.0\"?>\n<PRIMITIVE_BLOCK>"));
    match reread(o) {
        NelFile::PrimitiveBlockXml(b) => (b, o.bytes.clone()),
        _ => panic!("{name} is not the XML form"),
    }
}

/// buildPrimitiveBlock on a PACS Box made from RotatingCube's Box01: size
/// from the delegate Box (width, length; height) — checked against the box's
/// extent in Max's ASE export —, position and getZRot of the node TM's I axis
/// against the ASE node TM, the parameters in declaration order, the
/// reaction quirk ((4 − 1) << 4 = 0x30, not UMovePrimitive::Stop), trigger
/// bits, user data words; `<maxfile>.pacs_prim` in NeL's XML form, which NeL
/// loads and writes back identically and writes identically from the binary
/// form of the same block.
#[test]
fn pacs_box_from_parameters() {
    let mut e = SceneEdit::open("max/assimp/RotatingCube.max");
    let n = e.node("Box01");
    let bx = e.reference(n, 1);
    make_pacs(
        &mut e,
        "Box01",
        NEL_PACS_BOX,
        "PACS Box",
        bx,
        &pacs_values(),
    );
    let doc = e.finish();
    let ex = export(
        &doc,
        "RotatingCube",
        &[ExportKind::PacsPrim, ExportKind::Shape],
    );
    assert!(
        ex.errors.iter().all(|e| e.kind != ExportKind::PacsPrim),
        "{}",
        ex.errors_text()
    );
    let (b, xml) = pacs_block_of(&ex, "RotatingCube.pacs_prim");
    assert_eq!(b.primitives.len(), 1);
    let p = &b.primitives[0];
    let (verts, _, tm) = ase_mesh(&rotating_cube_ase());
    // Box extents along the node's axes (the ASE TM rows), from the world vertices.
    let extent = |axis: usize| {
        let a = tm[axis];
        let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        let d: Vec<f64> = verts
            .iter()
            .map(|v| (0..3).map(|k| (v[k] - tm[3][k]) * a[k] / n).sum())
            .collect();
        d.iter().cloned().fold(f64::MIN, f64::max) - d.iter().cloned().fold(f64::MAX, f64::min)
    };
    let near = |a: f32, b: f64| (f64::from(a) - b).abs() <= 2e-4 * b.abs().max(1.0);
    assert!(
        near(p.length[0].get(), extent(0)),
        "width {} vs {}",
        p.length[0].get(),
        extent(0)
    );
    assert!(
        near(p.length[1].get(), extent(1)),
        "length {} vs {}",
        p.length[1].get(),
        extent(1)
    );
    assert!(
        near(p.height.get(), extent(2)),
        "height {} vs {}",
        p.height.get(),
        extent(2)
    );
    let pos = [p.position.x, p.position.y, p.position.z];
    for (k, v) in pos.iter().enumerate() {
        assert!(near(v.get(), tm[3][k]), "position {k}");
    }
    let i = tm[0];
    let a = (i[0] / (i[0] * i[0] + i[1] * i[1]).sqrt()).acos();
    let zrot = if i[1] > 0.0 {
        a
    } else {
        2.0 * std::f64::consts::PI - a
    };
    assert!(
        near(p.orientation.get(), zrot),
        "orientation {} vs {zrot}",
        p.orientation.get()
    );
    assert_eq!(p.prim_type, 0, "_2DOrientedBox");
    assert_eq!(p.reaction, 0x30, "(Reaction − 1) << 4");
    assert_eq!(p.trigger, 0x100 | 0x400, "EnterTrigger | OverlapTrigger");
    assert_eq!(
        (p.obstacle.0, p.collision_mask, p.occlusion_mask),
        (0, 0x12, 3)
    );
    assert_eq!(p.attenuation.get(), 0.25);
    assert_eq!(p.user_data, Some(0x0004_0003_0002_0001));
    assert_eq!(p.version, 1);
    // A PACS primitive is not a shape (shape_export.ms tests only DONOTEXPORT / COLLISION,
    // and the PACS plug-in class is not evaluated: named, never silently dropped).
    assert!(
        ex.outputs.iter().all(|o| o.kind != ExportKind::Shape)
            || ex.errors.iter().any(|e| e.node == "Box01")
    );

    // NeL: loads our XML; from the binary form of the same block NeL's COXml writes our bytes.
    let bin = write_nel(&NelFile::PrimitiveBlock(b.clone())).expect("binary");
    let lines = oracle(&[("x.pacs_prim", &xml), ("b.pacs_prim", &bin)]);
    assert!(
        lines[0].contains("reaction=48 trigger=1280"),
        "{}",
        lines[0]
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let (bp, xp) = (
        dir.path().join("b.pacs_prim"),
        dir.path().join("nel.pacs_prim"),
    );
    std::fs::write(&bp, &bin).expect("write");
    let st = Command::new("bash")
        .arg(oracle_script())
        .arg("--xml")
        .arg(&bp)
        .arg(&xp)
        .status()
        .expect("oracle");
    assert!(st.success());
    assert_eq!(
        std::fs::read(&xp).expect("NeL's XML"),
        xml,
        "NeL's COXml text"
    );
}

/// Barrel.max with a PACS Cylinder of `values` made from Cylinder001's
/// cylinder (the object below its modifier): the scene, the node, the
/// node's derived object and the cylinder.
fn barrel_pacs_cylinder(values: &[(u16, u16, [u8; 4])]) -> (SceneEdit, [usize; 3]) {
    let mut e = SceneEdit::open("max/misc/Barrel.max");
    let n = e.node("Cylinder001");
    let derived = e.reference(n, 1);
    let cyl = e.reference(derived, 1);
    make_pacs(
        &mut e,
        "Cylinder001",
        NEL_PACS_CYLINDER,
        "PACS Cyl",
        cyl,
        values,
    );
    (e, [n, derived, cyl])
}

/// A PACS Cylinder made from Barrel's Cylinder001 (its modifier stack left
/// out): Length = (radius, 0), Height = height — 3ds Max's stored values in
/// the Cylinder's parameter block —, orientation 0, _2DOrientedCylinder.
/// A PACS primitive under a modifier fails the whole block, as in the plug-in.
#[test]
fn pacs_cylinder_and_refusal() {
    let (e, [n, _, cyl]) = barrel_pacs_cylinder(&pacs_values());
    let doc = e.finish();
    let eval = SceneEval::from_document(doc.clone()).expect("eval");
    let stored =
        maxfs_scene::eval::core::pblock::reference(&eval.graph, cyl, 0).expect("cylinder block");
    let pb = maxfs_scene::eval::core::pblock::param_block2(eval.chunks(stored))
        .map(|b| {
            b.params
                .into_iter()
                .map(|p| (p.id as usize, p.value))
                .collect::<Vec<_>>()
        })
        .or_else(|_| {
            maxfs_scene::eval::core::pblock::param_block(eval.chunks(stored))
                .map(|v| v.into_iter().map(|p| (p.index as usize, p.value)).collect())
        })
        .expect("stored parameters");
    let stored_float = |i: usize| match pb.iter().find(|(k, _)| *k == i).map(|(_, v)| v) {
        Some(maxfs_scene::eval::core::pblock::Value::Float(f)) => *f,
        v => panic!("parameter {i}: {v:?}"),
    };
    let ex = export(&doc, "Barrel", &[ExportKind::PacsPrim]);
    let (b, xml) = pacs_block_of(&ex, "Barrel.pacs_prim");
    let p = &b.primitives[0];
    assert_eq!(p.prim_type, 1, "_2DOrientedCylinder");
    // The XML form keeps six decimals (`%f`).
    let xml_eq = |a: f32, b: f32| (a - b).abs() <= 5e-7 + 1e-7 * b.abs();
    assert!(xml_eq(p.length[0].get(), stored_float(0)) && p.length[1].get() == 0.0);
    assert!(xml_eq(p.height.get(), stored_float(1)));
    assert_eq!(p.orientation.get(), 0.0);
    let w = eval.world_tm(n, 0).rows()[3];
    let pos = [p.position.x.get(), p.position.y.get(), p.position.z.get()];
    assert!(
        (0..3).all(|k| xml_eq(pos[k], w[k] as f32)),
        "{pos:?} vs {w:?}"
    );
    oracle(&[("c.pacs_prim", &xml)]);

    // Under its modifier (the node still shows the derived object) it fails the block.
    let (mut e, [n, derived, _]) = barrel_pacs_cylinder(&pacs_values());
    e.set_reference(n, 1, derived as i32);
    e.set_reference(derived, 1, (e.graph.objects.len()) as i32);
    let ex = export(&e.finish(), "Barrel", &[ExportKind::PacsPrim]);
    assert!(ex.outputs.is_empty());
    assert!(
        ex.errors_text().contains("modifier"),
        "{}",
        ex.errors_text()
    );
    // A missing parameter is named.
    let mut v = pacs_values();
    v.retain(|(pid, _, _)| *pid != param::ABSORBTION);
    let (e, _) = barrel_pacs_cylinder(&v);
    let ex = export(&e.finish(), "Barrel", &[ExportKind::PacsPrim]);
    assert!(ex.outputs.is_empty());
    assert!(
        ex.errors_text().contains("Absorbtion"),
        "{}",
        ex.errors_text()
    );
}

/// AppData entries to add: node, NeL key, text.
type AppData<'a> = &'a [(&'a str, u32, &'a str)];

fn veget_of(ex: &Exports, name: &str) -> (VegetableShape, Vec<u8>) {
    let o = ex
        .outputs
        .iter()
        .find(|o| o.kind == ExportKind::Veget && o.name == name)
        .unwrap_or_else(|| panic!("no {name}: {}", ex.errors_text()));
    match reread(o) {
        NelFile::Vegetable(v) => (v, o.bytes.clone()),
        _ => panic!("{name} is not a vegetable"),
    }
}

/// buildVegetableShape + CVegetableShape::build on Crate.max's Box001 with
/// VEGETABLE set: the vegetable NeL itself builds from our `.shape` of the
/// same node (its vertex buffer and only pass, with the flags the plug-in
/// derives from the AppData) is byte-identical to ours, for the default
/// flags (alpha blend, lighted, pre-computed) and for an unlit opaque
/// single-sided vegetable with a bend factor and bend centre; UV1 is the bend
/// weight z / max z × factor.
#[test]
fn veget_matches_nel_build() {
    let cases: [(AppData, [&str; 7]); 2] = [
        (&[], ["1", "1", "1", "1", "0", "1", "0"]),
        (
            &[
                ("Box001", id::VEGETABLE_ALPHA_BLEND, "1"),
                ("Box001", id::VEGETABLE_ALPHA_BLEND_OFF_LIGHTED, "2"),
                ("Box001", id::BEND_FACTOR, "0.5"),
                ("Box001", id::BEND_CENTER, "1"),
            ],
            ["0", "0", "0", "0", "0", "0.5", "1"],
        ),
    ];
    for (extra, flags) in cases {
        let mut add = vec![("Box001", id::VEGETABLE, "1")];
        add.extend_from_slice(extra);
        let doc = with_appdata("max/misc/Crate.max", &add);
        let ex = export(&doc, "Crate", &[ExportKind::Veget, ExportKind::Shape]);
        assert!(
            ex.errors.iter().all(|e| e.node != "Box001"),
            "{}",
            ex.errors_text()
        );
        let (v, bytes) = veget_of(&ex, "Box001.veget");
        let shape = ex
            .outputs
            .iter()
            .find(|o| o.name == "box001.shape")
            .expect("shape");
        let dir = tempfile::tempdir().expect("tempdir");
        let (sp, vp) = (
            dir.path().join("box001.shape"),
            dir.path().join("nel.veget"),
        );
        std::fs::write(&sp, &shape.bytes).expect("write");
        let st = Command::new("bash")
            .arg(oracle_script())
            .arg("--veget")
            .arg(&sp)
            .arg(&vp)
            .args(flags)
            .status()
            .expect("oracle");
        assert!(st.success(), "NeL builds the vegetable");
        assert_eq!(
            std::fs::read(&vp).expect("NeL's veget"),
            bytes,
            "flags {flags:?}"
        );
        oracle(&[("Box001.veget", &bytes)]);
        assert_eq!(v.alpha_blend.0, u8::from(extra.is_empty()));
        assert_eq!(v.lighted.0, u8::from(extra.is_empty()));
        assert_eq!(v.bend_center_mode, i32::from(!extra.is_empty()));
    }
    // Only scene-root nodes are visited (a vegetable under a parent is not);
    // street's nodes have no UVs: each is named, not dropped.
    let mut e = SceneEdit::open("max/ryzomcore/street.max");
    let candidates = ["Sphere01", "Box02", "cluster01"];
    let mut at_root = 0;
    for n in candidates {
        let i = e.node(n);
        let parent = e.graph.objects[i]
            .node
            .as_ref()
            .and_then(|x| x.parent)
            .expect("parent");
        let root = e.graph.objects[parent as usize]
            .class
            .as_ref()
            .is_some_and(|c| c.class_id == ClassId(2, 0));
        at_root += usize::from(root);
        e.add_appdata(i, (NEL_CLASS_ID, NEL_SUPER_CLASS), id::VEGETABLE, "1");
    }
    let ex = export(&e.finish(), "street", &[ExportKind::Veget]);
    let names: Vec<&str> = ex.outputs.iter().map(|o| o.name.as_str()).collect();
    eprintln!("street vegetables: {names:?}; errors: {}", ex.errors_text());
    assert_eq!(
        names.len() + ex.errors.len(),
        at_root,
        "each selected node is an output or an error"
    );
}
