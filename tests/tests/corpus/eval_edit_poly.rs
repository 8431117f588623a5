//! Edit Poly on the corpus: Barrel.max (Cylinder → Edit Poly with two vertex
//! moves and two material assignments) evaluates, Key.max's Edit Poly (on a
//! Plane) stops by name at a Split Edges.
//!
//! No external export of these files exists, so the checks use what the file
//! itself records apart from our replay: the vertex offsets stored in the
//! operations (read here straight from the chunks), the input bounding box the
//! ModApp keeps (0x2511), and the selection sizes the modifier saved for the
//! mesh it output.

use maxfs_exporters::nel::export::ExportKind;
use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::core::memo::Stack;
use maxfs_scene::eval::objects::{primitive, primitive_poly};
use maxfs_scene::eval::{SceneEval, Vec3};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;

fn open(rel: &str) -> Document {
    Document::open(&corpus_dir().join("max").join(rel)).expect("readable .max")
}

fn f32s(p: &[u8]) -> Vec<f64> {
    p.chunks_exact(4)
        .map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
        .collect()
}

fn child(c: &Chunk, id: u16) -> Option<&Chunk> {
    c.children().iter().find(|x| x.id == id)
}

/// Bit count of a saved bit array container (0x2700: u32 count, bits).
fn bit_count(c: &Chunk) -> usize {
    let p = child(c, 0x2700)
        .and_then(Chunk::payload)
        .expect("bit array");
    u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize
}

/// The bits of a saved bit array container.
fn bits(c: &Chunk) -> Vec<bool> {
    let p = child(c, 0x2700)
        .and_then(Chunk::payload)
        .expect("bit array");
    let n = bit_count(c);
    (0..n).map(|i| p[4 + i / 8] >> (i % 8) & 1 != 0).collect()
}

#[test]
fn barrel_cylinder_edit_poly() {
    let doc = open("misc/Barrel.max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let (doc, graph) = (&*eval.doc, &*eval.graph);
    let (node, _) = graph
        .nodes()
        .find(|(_, n)| n.name == "Cylinder001")
        .expect("Cylinder001");
    let (stack, _) = eval.modifier_stack(node.index).expect("stack");
    assert_eq!(
        stack.iter().map(|m| m.name).collect::<Vec<_>>(),
        ["Edit Poly"]
    );
    let mesh = eval
        .mesh(node.index, 0)
        .expect("a mesh")
        .expect("Edit Poly applies");

    // What the file records besides the operations' replay.
    let derived = graph.objects[node.index]
        .references
        .iter()
        .find(|r| r.slot == 1)
        .map(|r| r.target as usize)
        .expect("derived object");
    let mod_app = eval
        .chunks(derived)
        .iter()
        .find(|c| c.id == 0x2500)
        .expect("ModApp");
    let input_box = f32s(
        child(mod_app, 0x2511)
            .and_then(Chunk::payload)
            .expect("box"),
    );
    let local = child(mod_app, 0x2512).expect("local data");
    let saved_vertices = bit_count(child(local, 0x0200).expect("vertex selection"));
    let saved_faces = bit_count(child(local, 0x0220).expect("face selection"));
    let mut offsets = vec![Vec3::default(); saved_vertices];
    let mut transforms = 0;
    for data in local.children().iter().filter(|c| c.id == 0x0238) {
        let Some(p) = child(data, 0x12c4).and_then(Chunk::payload) else {
            continue;
        };
        let w = f32s(p);
        assert_eq!(w.len(), 3 * saved_vertices, "one offset per vertex");
        for (o, d) in offsets.iter_mut().zip(w.chunks_exact(3)) {
            *o = o.plus(Vec3(d[0], d[1], d[2]));
        }
        transforms += 1;
    }
    assert_eq!(transforms, 2);

    // 12 sides × 3 height segments, capped by two 12-gons: 48 vertices (the
    // modifier's saved selection size), 36 quads + 2 × 10 cap triangles.
    assert_eq!(saved_vertices, 48);
    assert_eq!(saved_faces, 38);
    assert_eq!(mesh.vertices.len(), saved_vertices);
    assert_eq!(mesh.faces.len(), 36 * 2 + 2 * 10);

    // The unmoved rings (bottom, top) span the input box the ModApp recorded.
    let (n, rows) = (12, 4);
    let r = mesh.vertices[0].0;
    let h = mesh.vertices[(rows - 1) * n].2;
    assert!(
        (r - input_box[3]).abs() < 1e-4,
        "radius {r} vs box {input_box:?}"
    );
    assert!(
        (h - input_box[5]).abs() < 1e-4,
        "height {h} vs box {input_box:?}"
    );
    // Every vertex is its ring position plus the stored offsets (rings 1 and 2
    // move: the barrel's bulge).
    let mut moved = 0;
    for (i, v) in mesh.vertices.iter().enumerate() {
        let (row, k) = (i / n, i % n);
        let a = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
        let base = Vec3(r * a.cos(), r * a.sin(), h * row as f64 / (rows - 1) as f64);
        let want = base.plus(offsets[i]);
        assert!(v.minus(want).len() < 1e-4, "vertex {i}: {v:?} vs {want:?}");
        if offsets[i].len() > 1.0 {
            moved += 1;
        }
    }
    assert_eq!(moved, 24);

    // Materials as the two Set Material ID operations leave them: sides 0 (all
    // 36 quads), top cap 1 (face 37); the bottom cap keeps the cylinder's 1.
    // Winding faces outwards, and the caps are covered exactly once.
    let mut cap_area = [0.0; 2];
    for f in &mesh.faces {
        let [a, b, c] = f.v.map(|i| mesh.vertices[i as usize]);
        let normal = b.minus(a).cross(c.minus(a));
        let zs = [a.2, b.2, c.2];
        if zs.iter().all(|&z| z == 0.0) || zs.iter().all(|&z| z == h) {
            let top = usize::from(a.2 == h);
            assert_eq!(f.material, 1, "cap material");
            assert!(normal.2.signum() == if top == 1 { 1.0 } else { -1.0 });
            cap_area[top] += normal.len() / 2.0;
        } else {
            assert_eq!(f.material, 0, "side material");
            let centre = a.plus(b).plus(c).scale(1.0 / 3.0);
            assert!(
                normal.dot(Vec3(centre.0, centre.1, 0.0)) > 0.0,
                "side faces outwards"
            );
        }
    }
    let polygon = 0.5 * n as f64 * r * r * (2.0 * std::f64::consts::PI / n as f64).sin();
    for area in cap_area {
        assert!(
            (area - polygon).abs() < 1e-6 * polygon,
            "{area} vs {polygon}"
        );
    }

    // Generated mapping: on the sides V runs with the ring of the vertex.
    let map = mesh.maps.iter().find(|m| m.channel == 1).expect("map 1");
    assert_eq!(map.faces.len(), mesh.faces.len());
    for (f, mf) in mesh.faces.iter().zip(&map.faces) {
        if f.material == 0 {
            for (&vi, &ti) in f.v.iter().zip(mf) {
                let row = vi as usize / n;
                let v = f64::from(map.vertices[ti as usize][1]);
                assert!((v - row as f64 / 3.0).abs() < 1e-6, "V of vertex {vi}: {v}");
            }
        }
    }

    // The NeL shape export now takes the node.
    let ex = maxfs_tests::export_doc("Barrel", doc, &[ExportKind::Shape]);
    assert!(ex.errors.is_empty(), "{}", ex.errors_text());
    assert!(ex.outputs.iter().any(|o| o.name == "cylinder001.shape"));
}

/// Key.max's Edit Poly works on its Plane's polygon form (3 × 3 segments:
/// the triangle mesh joined across its hidden diagonals, 16 vertices, 24
/// edges, 9 quads — counts from the Plane's parameters) and replays its
/// Extrude Edge of the single border edge 10 (8 → 4, height and width 0):
/// a wall plus a triangle at each end, against what Max saved — the sizes
/// (20 vertices, 31 edges, 12 faces; walls alone would give 18, 27, 10), the
/// Transforms' offsets (16 before, 20 after; they move 4 and 8 only, out to
/// the key's blade) and the last edge selection, edges 10 and 24–27: the five
/// edges that reach the blade, which in our numbering are edge 10 and the
/// four sides from the moved vertices to their copies left behind.
#[test]
fn key_edit_poly_extrudes_a_single_border_edge() {
    let doc = open("misc/Key.max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let graph = &*eval.graph;
    let (node, _) = graph
        .nodes()
        .find(|(_, n)| n.name == "Plane001")
        .expect("Plane001");
    let (stack, base) = eval.modifier_stack(node.index).expect("stack");
    let at = stack
        .iter()
        .position(|m| m.name == "Edit Poly")
        .expect("Edit Poly");
    let class = graph.objects[base].class.as_ref().expect("class");
    let p = primitive::params(&eval, base, 0).expect("params");
    let (ls, ws) = (p.int_or(2, 1) as usize, p.int_or(3, 1) as usize);
    let input = primitive_poly::build(class.class_id, &p, eval.chunks(base)).expect("polygon form");
    assert_eq!(
        (
            input.vertices.len(),
            input.mn_edges().expect("edges").len(),
            input.faces.len()
        ),
        ((ls + 1) * (ws + 1), ls * (ws + 1) + ws * (ls + 1), ls * ws)
    );
    assert_eq!((ls, ws), (3, 3));
    assert!(input.faces.iter().all(|f| f.v.len() == 4));

    // What Max saved: sizes, Transform offsets, the last edge selection.
    let local = stack[at]
        .mod_app
        .and_then(|a| child(a, 0x2512))
        .expect("local data");
    let saved = [0x0200, 0x0210, 0x0220].map(|id| bit_count(child(local, id).expect("selection")));
    assert_eq!(saved, [20, 31, 12]);
    let edge_sel = bits(child(local, 0x0210).expect("edge selection"));
    let mut before = vec![Vec3::default(); 16];
    let mut total = vec![Vec3::default(); 20];
    for data in local.children().iter().filter(|c| c.id == 0x0238) {
        let Some(p) = child(data, 0x12c4).and_then(Chunk::payload) else {
            continue;
        };
        let w = f32s(p);
        let n = w.len() / 3;
        assert!(n == 16 || n == 20, "{n} offsets");
        for (i, d) in w.chunks_exact(3).enumerate() {
            let d = Vec3(d[0], d[1], d[2]);
            if n == 16 {
                before[i] = before[i].plus(d);
            }
            total[i] = total[i].plus(d);
            // Only the edge's vertices ever move.
            assert!(d.len() == 0.0 || i == 4 || i == 8, "offset of vertex {i}");
        }
    }
    let sel: Vec<usize> = (0..edge_sel.len()).filter(|&i| edge_sel[i]).collect();
    assert_eq!(sel, [10, 24, 25, 26, 27]);

    let poly = maxfs_scene::eval::modifier::edit_poly_output(&eval, node.index, at, 0)
        .expect("Edit Poly output");
    let edges = poly.mn_edges().expect("edge numbering");
    assert_eq!([poly.vertices.len(), edges.len(), poly.faces.len()], saved);
    // Input vertices where the offsets put them; the four new ones where
    // 4 and 8 were when the edge was extruded (two copies each).
    for (i, v) in poly.vertices.iter().enumerate().take(16) {
        let want = input.vertices[i].plus(total[i]);
        assert!(v.minus(want).len() < 1e-4, "vertex {i}: {v:?} vs {want:?}");
    }
    let old = |i: usize| input.vertices[i].plus(before[i]);
    assert!(total[4].len() > 50.0 && total[8].len() > 50.0);
    let copies: Vec<usize> = (16..20)
        .map(|i| {
            [4, 8]
                .into_iter()
                .find(|&o| poly.vertices[i].minus(old(o)).len() < 1e-5)
                .unwrap_or_else(|| panic!("vertex {i} is no copy: {:?}", poly.vertices[i]))
        })
        .collect();
    assert_eq!(copies.iter().filter(|&&o| o == 4).count(), 2);
    // The edges that reach the moved vertices are the saved selection: the
    // extruded edge and, per end, two sides to copies at the old place.
    let reach: Vec<usize> = (0..edges.len())
        .filter(|&i| edges[i].contains(&4) || edges[i].contains(&8))
        .collect();
    assert_eq!(reach, sel);
    assert!(matches!(edges[10], [8, 4] | [4, 8]));
    for &e in &sel[1..] {
        let [a, b] = edges[e];
        let (moved, copy) = if a == 4 || a == 8 { (a, b) } else { (b, a) };
        assert_eq!(copies[copy as usize - 16], moved as usize, "edge {e}");
    }
    // Every side is run once each way or once (the border): one surface.
    let mut runs = std::collections::HashMap::new();
    for f in &poly.faces {
        for j in 0..f.v.len() {
            *runs.entry((f.v[j], f.v[(j + 1) % f.v.len()])).or_insert(0) += 1;
        }
    }
    assert!(runs.values().all(|&n| n == 1));
    // The node now evaluates: 7 quads, the two cut faces (pentagons), the
    // wall and the two end triangles.
    let mesh = eval
        .mesh(node.index, 0)
        .expect("a mesh result")
        .expect("the Edit Poly replays");
    assert_eq!(mesh.vertices.len(), 20);
    assert_eq!(mesh.faces.len(), 7 * 2 + 2 * 3 + 2 + 2);
}

/// WaterCooler01's Cylinder (version 1, 18 sides, 5 height and 4 cap
/// segments) as its Edit Poly receives it: its triangle mesh joined, 218
/// vertices (centres kept) and 234 polygons — the size of the face
/// selection Max saved with the first Extrude Face by Move (91), the first
/// operation that selects faces. The node stops, named, at that extrusion
/// of adjacent faces, whose counts in Max fit no known rule
/// (`eval_edit_poly_group.rs`).
#[test]
fn watercooler_cylinder_with_cap_segments_has_max_face_count() {
    let words = |p: &[u8]| -> Vec<u32> {
        p.chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    };
    let eval = SceneEval::from_document(open("max2024-rico/WaterCooler.max")).expect("scene");
    let (node, _) = eval
        .graph
        .nodes()
        .find(|(_, n)| n.name == "WaterCooler01")
        .expect("WaterCooler01");
    let (stack, base) = eval.modifier_stack(node.index).expect("stack");
    let class = eval.graph.objects[base].class.as_ref().expect("class");
    let p = primitive::params(&eval, base, 0).expect("params");
    let poly = primitive_poly::build(class.class_id, &p, eval.chunks(base)).expect("polygon form");
    assert_eq!((poly.vertices.len(), poly.faces.len()), (218, 234));
    let local = stack
        .iter()
        .rev()
        .find(|m| m.name == "Edit Poly")
        .and_then(|m| m.mod_app?.children().iter().find(|c| c.id == 0x2512))
        .expect("lowest Edit Poly's local data");
    let kids = local.children();
    let at = kids
        .iter()
        .position(|c| c.id == 0x0230 && c.payload().map(words) == Some(vec![91]))
        .expect("an Extrude Face by Move");
    let bits = kids[at..]
        .iter()
        .find(|c| c.id == 0x0234)
        .and_then(|c| c.children().iter().find(|c| c.id == 0x0600))
        .and_then(|c| c.children().iter().find(|c| c.id == 0x0400))
        .and_then(|c| c.children().iter().find(|c| c.id == 0x2700))
        .and_then(|c| c.payload())
        .expect("face selection");
    assert_eq!(words(&bits[..4])[0] as usize, poly.faces.len());
    let err = eval
        .mesh_with(node.index, 0, Stack::Replayed)
        .expect("a mesh result")
        .expect_err("refused");
    assert!(
        err.to_string().contains("Extrude Face by Move (91)"),
        "{err}"
    );
}

/// Chamfer Edge is refused naming the variant Max recorded: the node's error
/// carries the segment count, chamfer type, amount and edge count, each read
/// here from the operation's raw records (0x0410: u32 parameter id, value),
/// in the lowest Edit Poly holding one, which the stack meets first. (Extrude
/// Edge's refusal text is a unit test in edit_poly.rs: the corpus's border
/// extrusions replay, see `eval_edit_poly_create.rs`.)
#[test]
fn edge_chamfers_name_their_variant() {
    let words = |p: &[u8]| -> Vec<u32> {
        p.chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    };
    // Mug's, Can's and Table's chamfers replay (eval_edit_poly_ops,
    // eval_edit_poly_chamfer); WaterCooler's lowest Edit Poly stops at its
    // first Extrude Face by Move, before its chamfer.
    let cases = [(
        "max2024-rico/WaterCooler.max",
        "WaterCooler01",
        34,
        Some("Extrude Face by Move (91)"),
    )];
    for (rel, name, id, reason) in cases {
        let eval = SceneEval::from_document(open(rel)).expect("scene");
        let (node, _) = eval
            .graph
            .nodes()
            .find(|(_, n)| n.name == name)
            .unwrap_or_else(|| panic!("{rel}: no {name}"));
        let (stack, _) = eval.modifier_stack(node.index).expect("stack");
        // The operation's records: 0x0230 id, then 0x0234 → 0x0600 basics.
        let record = stack
            .iter()
            .rev()
            .filter(|m| m.name == "Edit Poly")
            .filter_map(|m| m.mod_app?.children().iter().find(|c| c.id == 0x2512))
            .find_map(|local| {
                let kids = local.children();
                let at = kids
                    .iter()
                    .position(|c| c.id == 0x0230 && c.payload().map(words) == Some(vec![id]))?;
                kids[at..].iter().find(|c| c.id == 0x0234)
            })
            .and_then(|c| c.children().iter().find(|c| c.id == 0x0600))
            .unwrap_or_else(|| panic!("{rel}: no operation {id}"));
        let mut params = std::collections::HashMap::new();
        let mut edges = 0u32;
        for b in record.children() {
            if b.id == 0x0410 {
                let w = words(b.payload().expect("parameter"));
                params.insert(w[0], w[1]);
            } else if b.id == 0x0400 {
                let bits = b
                    .children()
                    .iter()
                    .find(|c| c.id == 0x2700)
                    .and_then(|c| c.payload())
                    .expect("selection bits");
                edges = bits[4..].iter().map(|x| x.count_ones()).sum();
            }
        }
        let float = |p: u32| f32::from_bits(params[&p]);
        let segments = params[&86];
        assert_eq!(params[&108], 1, "{name}: a quad chamfer");
        let want = format!(
            "operation Chamfer Edge (34): quad chamfer with {segments} segments is not \
             evaluated ({edges} edges, amount {}, tension {}",
            float(35),
            float(109)
        );
        // The stack's own evaluation (the Unwrap UVW cache stands in for
        // the node's mesh: eval_unwrap_cache.rs).
        let err = eval
            .mesh_with(node.index, 0, Stack::Replayed)
            .expect("a mesh result")
            .expect_err("refused");
        eprintln!("{name}: {err}");
        // Stopped below the chamfer: only that reason is checked.
        if let Some(r) = reason.filter(|r| r.starts_with("Extrude Face")) {
            assert!(err.to_string().contains(r), "{name}: {err}");
            continue;
        }
        assert!(
            err.to_string().contains(&want),
            "{name}: {err}\nwanted {want}"
        );
        if let Some(r) = reason {
            assert!(err.to_string().contains(r), "{name}: {err}\nwanted {r}");
        }
    }
}
