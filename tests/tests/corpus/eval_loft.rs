//! Loft (issue 19). The corpus holds none, so the test builds one through
//! our writer: prims-pranto/1st_island.max's Line002 (one curved segment, in
//! its XY plane) as the path and Sword.max's closed Line001 (15 knots,
//! transplanted, flattened onto its XY plane and drawn counter-clockwise) as
//! the cross-section, with the settings chunks every public Loft holds
//! (Buwaka/Level-editing-2's 19 Lofts: Max's defaults, values read off
//! those files). Expected values are geometric invariants of a sweep, not
//! our output: levels × section points vertices, each section perpendicular
//! to the path with its Y along the path's +Z, and a closed surface.

use std::collections::HashMap;

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::objects::{loft, shape};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::SceneEdit;

pub(crate) const PATH_FILE: &str = "max/prims-pranto/1st_island.max";
pub(crate) const PATH_NODE: &str = "Line002";
const SECTION_FILE: &str = "max/prims-greejesh/Sword.max";
const SECTION_NODE: &str = "Line001";
const LOFT: ClassId = ClassId(0x10b0, 0);
const GEOMOBJECT: u32 = 0x10;

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The Loft's settings chunks as Buwaka's Lofts hold them.
fn settings() -> Vec<Chunk> {
    let one = || words(&[1]);
    let zero = || words(&[0]);
    let mut c = vec![
        Chunk::leaf(0x08FC, words(&[200])),
        Chunk::leaf(0x08FF, words(&[2])),
        Chunk::leaf(0x096A, zero()),
        Chunk::leaf(0x0A8C, Vec::new()),
        Chunk::leaf(0x097E, one()),
        // One untransformed shape at the path's start, as the public
        // Lofts hold it.
        loft::PathShape {
            shape: 1,
            level: 0.0,
            matrix: loft::PathShape::IDENTITY,
            flags: 7,
            extra: vec![0; 12],
        }
        .to_chunk(),
        Chunk::leaf(0x0992, zero()),
        Chunk::leaf(0x099C, zero()),
        Chunk::leaf(0x09A6, one()),
        Chunk::leaf(0x0A50, 200f32.to_le_bytes().to_vec()),
        Chunk::leaf(0x0A5A, one()),
        Chunk::leaf(0x0A5F, zero()),
        Chunk::leaf(0x0A60, zero()),
        Chunk::leaf(0x0A61, zero()),
        Chunk::leaf(0x0A64, one()),
        Chunk::leaf(0x0A6E, one()),
        Chunk::leaf(0x0A78, zero()),
        Chunk::leaf(0x0A82, words(&[5, 5])),
        Chunk::leaf(0x0A96, words(&[0, 1, 1f32.to_bits(), 1f32.to_bits()])),
        Chunk::leaf(0x0A9B, zero()),
        Chunk::leaf(0x0A9C, one()),
        Chunk::leaf(0x0AA0, words(&[1, 1])),
        Chunk::leaf(0x0AAA, words(&[1, 1])),
        Chunk::leaf(0x0ABE, 10f32.to_le_bytes().to_vec()),
        Chunk::leaf(0x0AC3, one()),
        Chunk::leaf(0x0AC8, one()),
        Chunk::leaf(0x0AD2, zero()),
    ];
    for k in 0..5 {
        c.push(Chunk::leaf(0x0910, words(&[k])));
        c.push(Chunk::container(
            0x091A,
            vec![
                Chunk::leaf(0x03E8, one()),
                Chunk::leaf(0x03F2, zero()),
                Chunk::leaf(0x0406, words(&[1f32.to_bits(), 1f32.to_bits(), 0])),
                Chunk::leaf(0x0410, vec![0; 12]),
            ],
        ));
    }
    c.extend([
        Chunk::leaf(0x0900, Vec::new()),
        Chunk::leaf(0x0906, Vec::new()),
        Chunk::container(
            0x0AB4,
            vec![Chunk::leaf(0x03E8, 0.3f32.to_le_bytes().to_vec())],
        ),
        Chunk::leaf(0x0ADC, zero()),
        Chunk::leaf(0x0AE6, zero()),
        Chunk::leaf(0x0AF0, words(&[1, 1])),
        Chunk::leaf(0x0AFA, zero()),
    ]);
    c
}

/// The base object of node `name` (below its modifiers).
pub(crate) fn base_of(eval: &SceneEval, name: &str) -> usize {
    let node = maxfs_tests::node_index(eval, name);
    eval.modifier_stack(node).expect("a stack").1
}

/// Sword.max's closed Line001 transplanted into `e`, flattened onto its XY
/// plane (its knots 6 and 7 sit 0.12 and 0.06 off it) and drawn
/// counter-clockwise: the cross-section of the Loft and Sweep tests.
pub(crate) fn flat_section(e: &mut SceneEdit) -> usize {
    let section_src = base_of(&maxfs_tests::corpus_eval(SECTION_FILE), SECTION_NODE);
    let mut src = SceneEdit::open(SECTION_FILE);
    let section = e.transplant(&mut src, section_src)[0].1;
    // Flatten the section onto its XY plane (its knots 6 and 7 sit 0.12 and
    // 0.06 off it), and mirror it in X when it runs clockwise.
    let chunks = e.object_chunks(section);
    let knots = chunks
        .iter()
        .find(|c| c.id == 0x2000)
        .and_then(|c| c.children().iter().find(|c| c.id == 0x1010))
        .and_then(|c| c.children().iter().find(|c| c.id == 0x1010))
        .and_then(|c| c.children().iter().find(|c| c.id == 0x290a))
        .and_then(|c| c.payload())
        .expect("the Line's knots")
        .to_vec();
    let f = |b: &[u8], at: usize| f32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
    let pts: Vec<(f32, f32)> = knots
        .chunks_exact(52)
        .map(|k| (f(k, 12), f(k, 16)))
        .collect();
    let area: f32 = (0..pts.len())
        .map(|i| {
            let (a, b) = (pts[i], pts[(i + 1) % pts.len()]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum();
    let mut flat = knots.clone();
    for k in flat.chunks_exact_mut(52) {
        for at in [12, 24, 36] {
            k[at + 8..at + 12].copy_from_slice(&0f32.to_le_bytes());
            if area < 0.0 {
                let x = -f(k, at);
                k[at..at + 4].copy_from_slice(&x.to_le_bytes());
            }
        }
    }
    e.put_nested_leaf(section, &[0x2000, 0x1010, 0x1010], 0x290a, flat);
    section
}

/// 1st_island with Line002's node showing a Loft of its own line along the
/// transplanted section; the node, the path object and the section object.
fn edited() -> (SceneEval, usize, usize, usize) {
    let path_obj = base_of(&maxfs_tests::corpus_eval(PATH_FILE), PATH_NODE);
    let mut e = SceneEdit::open(PATH_FILE);
    let section = flat_section(&mut e);
    let dll = e.add_dll("Loft (synthetic)", "loftobj.dlo");
    let class = e.add_class(dll, LOFT, GEOMOBJECT, "Loft");
    let mut refs = vec![-1i32; 8];
    refs.extend([path_obj as i32, section as i32]);
    let mut chunks = vec![Chunk::leaf(
        0x2034,
        refs.iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>(),
    )];
    chunks.extend(settings());
    let loft = e.add_object(class, chunks);
    let node = e.node(PATH_NODE);
    e.set_reference(node, 1, loft as i32);
    let eval = SceneEval::from_document(e.finish()).expect("edited scene");
    (eval, node, path_obj, section)
}

#[test]
fn a_loft_sweeps_its_section_along_its_path() {
    let (eval, node, path_obj, section_obj) = edited();
    let mesh = eval
        .mesh(node, 0)
        .expect("a mesh")
        .expect("the Loft evaluates");
    let path = shape::eval_shape(&eval, path_obj, 0).expect("path");
    let path = &path.shape.as_ref().expect("splines").splines[0];
    let section = shape::eval_shape(&eval, section_obj, 0).expect("section");
    let section = &section.shape.as_ref().expect("splines").splines[0];
    // Path steps and shape steps 5: 6 levels per path segment plus the end,
    // 6 points per section segment.
    let levels = 6 * path.segments() + 1;
    let n = 6 * section.segments();
    assert_eq!(mesh.vertices.len(), levels * n);
    let (lo, hi) = section
        .knots
        .iter()
        .flat_map(|k| [k.point, k.in_vec, k.out_vec])
        .fold((f64::MAX, f64::MIN), |(lo, hi), p| {
            (lo.min(p.1), hi.max(p.1))
        });
    for level in 0..levels {
        // The path point and tangent there (one segment: u = level / 6).
        let u = level as f64 / 6.0;
        let c = path.segment(0);
        let v = 1.0 - u;
        let at = c[0]
            .scale(v * v * v)
            .plus(c[1].scale(3.0 * v * v * u))
            .plus(c[2].scale(3.0 * v * u * u))
            .plus(c[3].scale(u * u * u));
        let t = c[1]
            .minus(c[0])
            .scale(3.0 * v * v)
            .plus(c[2].minus(c[1]).scale(6.0 * v * u))
            .plus(c[3].minus(c[2]).scale(3.0 * u * u))
            .normalized();
        for p in &mesh.vertices[level * n..(level + 1) * n] {
            let d = p.minus(at);
            assert!(
                d.dot(t).abs() < 1e-9,
                "level {level}: off its plane by {}",
                d.dot(t)
            );
            // The section's Y runs along the path's +Z (the Bezier hull
            // bounds the section's points).
            assert!(
                d.2 >= lo - 1e-9 && d.2 <= hi + 1e-9,
                "level {level}: z {}",
                d.2
            );
        }
    }
    // Closed: every edge is used once in each direction (sides and caps).
    let mut edges: HashMap<(u32, u32), u32> = HashMap::new();
    for f in &mesh.faces {
        for e in 0..3 {
            *edges.entry((f.v[e], f.v[(e + 1) % 3])).or_default() += 1;
        }
    }
    for (&(a, b), &k) in &edges {
        assert_eq!(k, 1, "edge {a}-{b} used {k} times");
        assert_eq!(edges.get(&(b, a)), Some(&1), "edge {a}-{b} has no twin");
    }
    // Two triangles per side quad, n − 2 per cap.
    assert_eq!(mesh.faces.len(), 2 * n * (levels - 1) + 2 * (n - 2));
}
