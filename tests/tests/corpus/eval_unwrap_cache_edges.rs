//! Edge visibility of an Unwrap UVW cache standing in for the stack below
//! (issue 19, fifth sweep: Evan-Barry's hand files, where a MeshSmooth above
//! the cache subdivides the polygons its hidden edges bound). On a triangle
//! input each cached record is one input face and its flags mark the face's
//! hidden edges (bits 8–10, edges 0–2).
//!
//! The corpus holds no such cache, so misc/Crate.max's Box001 (a Box of 8
//! vertices and 12 triangles, each side a quad split by a hidden diagonal)
//! gets, through our writers, an Edit Mesh whose MeshDelta holds a record not
//! decoded (0x0444, made up: what the hand files' 0x0334 was before it was
//! decoded) and above it an Unwrap
//! UVW whose cache is the Box's own mesh with its hidden edges marked. The
//! Edit Mesh is refused, the cache stands in, and the mesh must come back
//! with the Box's triangles and edge visibility; a mark without its twin
//! changes nothing and is named.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::map_modifiers::{container, words};
use maxfs_tests::rewrite::SceneEdit;

const SOURCE: &str = "max/misc/Crate.max";
const NODE: &str = "Box001";
const OSM: u32 = 0x810;

fn node(eval: &SceneEval) -> usize {
    eval.graph
        .nodes()
        .find(|(_, x)| x.name == NODE)
        .map(|(o, _)| o.index)
        .expect("Box001")
}

fn plain() -> Mesh {
    let eval = maxfs_tests::corpus_eval(SOURCE);
    let m = eval
        .mesh(node(&eval), 0)
        .expect("a mesh")
        .expect("evaluates");
    (*m).clone()
}

/// The hidden-edge bits (8–10) of a face's visibility flags.
fn hidden_bits(flags: u16) -> u32 {
    (0..3)
        .filter(|k| flags & (1 << k) == 0)
        .map(|k| 1u32 << (8 + k))
        .sum()
}

/// Unwrap UVW local data caching `m` (one texture vertex per geometry
/// vertex), each record's flags given by `flags(face index)`.
fn cache_of(m: &Mesh, flags: impl Fn(usize) -> u32) -> Chunk {
    let mut geo = words(&[m.vertices.len() as u32]);
    let mut tv = words(&[m.vertices.len() as u32]);
    for v in &m.vertices {
        geo.extend(
            [v.0 as f32, v.1 as f32, v.2 as f32]
                .iter()
                .flat_map(|f| f.to_le_bytes()),
        );
        tv.extend([0.0f32; 6].iter().flat_map(|f| f.to_le_bytes()));
    }
    let mut faces = vec![m.faces.len() as u32];
    for (i, f) in m.faces.iter().enumerate() {
        faces.push(3);
        faces.extend(f.v);
        faces.extend([i as u32, u32::from(f.material), flags(i)]);
        faces.extend(f.v);
    }
    container(vec![
        Chunk::leaf(0x0860, tv),
        Chunk::leaf(0x0870, words(&faces)),
        Chunk::leaf(0x0330, geo),
    ])
}

/// Crate.max with Box001 under an undecodable Edit Mesh and the Unwrap
/// cache `cache`, evaluated.
fn stood_in(plain: &Mesh, cache: Chunk) -> Mesh {
    let mut e = SceneEdit::open(SOURCE);
    let n = e.node(NODE);
    let modifier_save = || Chunk::container(0x39bf, vec![Chunk::leaf(0x0100, Vec::new())]);
    let edit_mesh = e.add_class(-1, ClassId(0x50, 0), OSM, "Edit Mesh");
    let dll = e.add_dll("UVW Unwrap (synthetic)", "uvwunwrap.dlm");
    let unwrap = e.add_class(dll, ClassId(0x02df2e3a, 0x72ba4e1f), OSM, "Unwrap UVW");
    let delta = Chunk::container(
        0x4000,
        vec![
            Chunk::leaf(0x0100, words(&[plain.vertices.len() as u32])),
            Chunk::leaf(0x0110, words(&[plain.faces.len() as u32])),
            Chunk::leaf(0x0444, words(&[0])),
        ],
    );
    let em = e.add_object(edit_mesh, vec![modifier_save()]);
    e.add_modifier(n, 0, em, container(vec![delta]));
    let uw = e.add_object(unwrap, vec![modifier_save()]);
    e.add_modifier(n, 0, uw, cache);
    let eval = SceneEval::from_document(e.finish()).expect("edited scene");
    let (stack, _) = eval.modifier_stack(node(&eval)).expect("stack");
    let names: Vec<_> = stack.iter().map(|m| m.name).collect();
    assert_eq!(names, ["Unwrap UVW", "Edit Mesh"]);
    let m = eval
        .mesh(node(&eval), 0)
        .expect("a mesh")
        .expect("the cache stands in");
    assert!(
        m.missing_parts
            .iter()
            .any(|p| p.source.contains("Unwrap UVW cache") && p.reason.contains("0x0444")),
        "the cache stands in for the refused Edit Mesh: {:?}",
        m.missing_parts
    );
    (*m).clone()
}

#[test]
fn a_cached_triangle_mesh_keeps_its_hidden_edges() {
    let plain = plain();
    assert_eq!((plain.vertices.len(), plain.faces.len()), (8, 12));
    // Each side's diagonal is hidden from both of its triangles.
    let hidden: usize = plain
        .faces
        .iter()
        .map(|f| (0..3).filter(|k| f.flags & (1 << k) == 0).count())
        .sum();
    assert_eq!(hidden, 12);
    let m = stood_in(
        &plain,
        cache_of(&plain, |i| hidden_bits(plain.faces[i].flags)),
    );
    assert_eq!(m.vertices.len(), plain.vertices.len());
    assert_eq!(m.faces.len(), plain.faces.len());
    for (i, (a, b)) in m.faces.iter().zip(&plain.faces).enumerate() {
        assert_eq!(a.v, b.v, "face {i}");
        assert_eq!(a.flags & 0b111, b.flags & 0b111, "face {i} edge visibility");
    }
    assert!(!m.missing_parts.iter().any(|p| p.part == "edge visibility"));
}

#[test]
fn unpaired_or_absent_marks_leave_every_edge_visible() {
    let plain = plain();
    // No marks (what every corpus cache holds on a polygon input).
    let m = stood_in(&plain, cache_of(&plain, |_| 0));
    assert!(m.faces.iter().all(|f| f.flags & 0b111 == 0b111));
    assert!(!m.missing_parts.iter().any(|p| p.part == "edge visibility"));
    // Only the first triangle of each side marks its diagonal: no twin.
    let m = stood_in(
        &plain,
        cache_of(&plain, |i| {
            if i % 2 == 0 {
                hidden_bits(plain.faces[i].flags)
            } else {
                0
            }
        }),
    );
    assert!(m.faces.iter().all(|f| f.flags & 0b111 == 0b111));
    assert!(
        m.missing_parts.iter().any(|p| p.part == "edge visibility"),
        "{:?}",
        m.missing_parts
    );
}
