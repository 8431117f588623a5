//! Edit Poly's Cap (operation 9; `edit_poly_cap.rs`). No corpus file
//! records one (the public files that do cannot be in CI; their sizes are in
//! docs/max-format.md), so a Cap is appended through the project's writer
//! to Shotgun.max's Rivet, whose Edit Poly (one Auto Smooth) Max left with
//! one open border loop of 18 edges, and the result is checked against what
//! Max saved of that Edit Poly's output (the Unwrap UVW above caches every
//! vertex and polygon): Max's polygons unchanged, one polygon appended that
//! runs Max's border loop the other way round, no vertex or edge added, the
//! mesh closed (Euler characteristic up by one), n − 2 triangles. A selected
//! edge with faces on both sides is refused by name.

use maxfs_scene::chunk::{Body, Chunk};
use maxfs_scene::eval::modifier::{edit_poly_output, edit_poly_output_after};
use maxfs_scene::eval::SceneEval;
use maxfs_tests::rewrite::SceneEdit;
use maxfs_tests::{corpus_eval, node_index, unwrap_cache, CachedPolygon};
use std::collections::{HashMap, HashSet};

const FILE: &str = "max/max2024-rico/Shotgun.max";
const CAP: u32 = 9;

fn u32s(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// An operation record as Max 2024 writes one whose record is the edge
/// selection only: 0x0230 id, 0x0234 → 0x0600 [0x0400 → 0x2700 bit array,
/// 0x0450 release 4, 0x0470 2].
fn cap_record(edges: usize, on: &[usize]) -> [Chunk; 2] {
    let mut bits = u32s(&[edges as u32]);
    bits.resize(4 + edges.div_ceil(8), 0);
    for &e in on {
        bits[4 + e / 8] |= 1 << (e % 8);
    }
    let basics = Chunk::container(
        0x0600,
        vec![
            Chunk::container(0x0400, vec![Chunk::leaf(0x2700, bits)]),
            Chunk::leaf(0x0450, u32s(&[4])),
            Chunk::leaf(0x0470, u32s(&[2])),
        ],
    );
    [
        Chunk::leaf(0x0230, u32s(&[CAP])),
        Chunk::container(0x0234, vec![basics]),
    ]
}

/// Appends `record` after the operations of the Edit Poly local data found
/// under `chunks` (the container holding 0x0230 records); how many got it.
fn append_operation(chunks: &mut [Chunk], record: &[Chunk]) -> usize {
    let mut n = 0;
    for c in chunks.iter_mut() {
        let Body::Container(kids) = &mut c.body else {
            continue;
        };
        if c.id == 0x2512 && kids.iter().any(|k| k.id == 0x0230) {
            kids.extend(record.iter().cloned());
            n += 1;
        } else {
            n += append_operation(kids, record);
        }
    }
    n
}

/// `FILE` with a Cap of `on` (of `edges`) appended to node `o`'s Edit Poly.
fn with_cap(o: usize, edges: usize, on: &[usize]) -> SceneEval {
    let mut e = SceneEdit::open(FILE);
    let derived = e.reference(o, 1);
    let mut chunks = e.object_chunks(derived);
    assert_eq!(append_operation(&mut chunks, &cap_record(edges, on)), 1);
    e.set_object_chunks(derived, chunks);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

/// The border loops of polygons (sides no polygon walks back), each in
/// its polygons' direction.
fn border_loops(polygons: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let mut sides = HashSet::new();
    for v in polygons {
        for j in 0..v.len() {
            sides.insert((v[j], v[(j + 1) % v.len()]));
        }
    }
    let next: HashMap<u32, u32> = sides
        .iter()
        .filter(|&&(a, b)| !sides.contains(&(b, a)))
        .copied()
        .collect();
    let mut seen = HashSet::new();
    let mut loops = Vec::new();
    let mut starts: Vec<u32> = next.keys().copied().collect();
    starts.sort_unstable();
    for s in starts {
        if seen.contains(&s) {
            continue;
        }
        let mut l = vec![s];
        seen.insert(s);
        let mut at = next[&s];
        while at != s {
            l.push(at);
            seen.insert(at);
            at = next[&at];
        }
        loops.push(l);
    }
    loops
}

/// Whether `a` is `b` read from some corner on.
fn same_cycle(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && (0..b.len()).any(|r| (0..a.len()).all(|k| a[k] == b[(r + k) % b.len()]))
}

#[test]
fn a_cap_closes_the_rivets_open_border_as_max_left_it() {
    let eval = corpus_eval(FILE);
    let o = node_index(&eval, "Rivet");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    assert_eq!(stack[0].name, "Unwrap UVW");
    assert_eq!(stack[1].name, "Edit Poly");
    let local = maxfs_tests::local_data(&stack[0]);
    // Max's output of the Edit Poly.
    let (cached, polygons): (Vec<[f64; 3]>, Vec<CachedPolygon>) = unwrap_cache(local);
    let max_faces: Vec<Vec<u32>> = polygons.into_iter().map(|(v, _)| v).collect();
    let loops = border_loops(&max_faces);
    assert_eq!(loops.len(), 1, "Max left one open loop");
    let open = &loops[0];
    assert_eq!(open.len(), 18);

    // Our replay before the Cap; one border edge picked by its number.
    let before = edit_poly_output(&eval, o, 1, 0).expect("the Rivet's Edit Poly");
    let numbering = before.edges.clone().expect("edge numbering known");
    let count = numbering.len();
    assert_eq!(count, before.walked_edges().len());
    let on_border = |[a, b]: [u32; 2]| {
        (0..open.len()).any(|j| {
            let (p, q) = (open[j], open[(j + 1) % open.len()]);
            (p, q) == (a, b) || (p, q) == (b, a)
        })
    };
    let picked: Vec<usize> = (0..count).filter(|&e| on_border(numbering[e])).collect();
    assert_eq!(picked.len(), 18);
    // The last of them alone: the whole loop is capped.
    let edited = with_cap(o, count, &picked[17..]);
    let ours = edit_poly_output_after(&edited, o, 1, 0, 2).expect("the capped Edit Poly");
    assert_eq!(ours.vertices.len(), cached.len(), "no vertex added");
    assert_eq!(ours.faces.len(), max_faces.len() + 1);
    for (i, (f, m)) in ours.faces.iter().zip(&max_faces).enumerate() {
        assert_eq!(&f.v, m, "Max's polygon {i}");
    }
    let cap = ours.faces.last().expect("the cap");
    let reversed: Vec<u32> = open.iter().rev().copied().collect();
    assert!(same_cycle(&cap.v, &reversed), "cap {:?}", cap.v);
    assert_eq!(cap.tris.len(), open.len() - 2);
    assert_eq!((cap.material, cap.smoothing), (0, 0));
    // No edge added; closed: V − E + F = 2 (Max's open mesh: 1).
    let e = ours.walked_edges().len();
    assert_eq!(e, count);
    assert!(border_loops(&ours.faces.iter().map(|f| f.v.clone()).collect::<Vec<_>>()).is_empty());
    let euler = |v: usize, e: usize, f: usize| v as i64 - e as i64 + f as i64;
    assert_eq!(
        euler(ours.vertices.len(), e, ours.faces.len()),
        euler(cached.len(), count, max_faces.len()) + 1
    );
    // Every selected edge of the loop gives the same single cap.
    let all = with_cap(o, count, &picked);
    let again = edit_poly_output_after(&all, o, 1, 0, 2).expect("capped");
    assert_eq!(again.faces, ours.faces);
    // The map channels are left out of the polygons (named on the mesh).
    assert!(!before.maps.is_empty());
    assert!(ours.maps.is_empty());
}

#[test]
fn a_cap_at_an_edge_between_two_faces_is_refused_by_name() {
    let eval = corpus_eval(FILE);
    let o = node_index(&eval, "Rivet");
    let before = edit_poly_output(&eval, o, 1, 0).expect("the Rivet's Edit Poly");
    let numbering = before.edges.clone().expect("edge numbering known");
    let mut sides = HashSet::new();
    for f in &before.faces {
        for j in 0..f.v.len() {
            sides.insert((f.v[j], f.v[(j + 1) % f.v.len()]));
        }
    }
    let inner = (0..numbering.len())
        .find(|&e| {
            let [a, b] = numbering[e];
            sides.contains(&(a, b)) && sides.contains(&(b, a))
        })
        .expect("an inner edge");
    let edited = with_cap(o, numbering.len(), &[inner]);
    let e = edit_poly_output_after(&edited, o, 1, 0, 2).expect_err("refused");
    let text = e.to_string();
    assert!(text.contains("operation Cap (9)"), "{text}");
    assert!(text.contains("a face on both sides"), "{text}");
}
