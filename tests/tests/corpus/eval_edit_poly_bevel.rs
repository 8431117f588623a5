//! Edit Poly's Bevel (operation 32; docs/max-format.md, "Bevel"). No corpus
//! file bevels, so PictureFrame.max's Edit Poly has its two Extrude Face
//! records rewritten through the project's writer into Bevels of the same
//! type and height with no outline (parameters 36 / 37 / 120 become 38 / 39
//! / 121, and 40 = outline is added): the replay must give the mesh Max's
//! Unwrap UVW above cached of the Edit Poly's output, vertex for vertex and
//! polygon for polygon; with an outline, each bevelled border's sides move
//! by it in their planes.

use maxfs_scene::chunk::{Body, Chunk};
use maxfs_scene::eval::core::math::Vec3;
use maxfs_scene::eval::modifier::edit_poly_output;
use maxfs_scene::eval::SceneEval;
use maxfs_tests::rewrite::SceneEdit;
use maxfs_tests::{corpus_eval, node_named, unwrap_cache};

const FILE: &str = "max/max2024-rico/PictureFrame.max";
const EXTRUDE_FACE: u32 = 41;
const BEVEL: u32 = 32;

fn u32_of(p: &[u8]) -> Option<u32> {
    (p.len() >= 4).then(|| u32::from_le_bytes([p[0], p[1], p[2], p[3]]))
}

/// Turns every Extrude Face under `chunks` (an Edit Poly's local data) into
/// a Bevel with outline `outline`; returns how many.
fn to_bevels(chunks: &mut [Chunk], outline: f32) -> usize {
    let mut done = 0;
    let mut is_extrusion = false;
    for c in chunks.iter_mut() {
        if c.id == 0x0230 {
            is_extrusion = c.payload().and_then(u32_of) == Some(EXTRUDE_FACE);
            if is_extrusion {
                *c = Chunk::leaf(0x0230, BEVEL.to_le_bytes().to_vec());
            }
            continue;
        }
        let Body::Container(kids) = &mut c.body else {
            continue;
        };
        if c.id != 0x0234 || !is_extrusion {
            done += to_bevels(kids, outline);
            continue;
        }
        for b in kids.iter_mut().filter(|b| b.id == 0x0600) {
            let Body::Container(basics) = &mut b.body else {
                continue;
            };
            for r in basics.iter_mut().filter(|r| r.id == 0x0410) {
                let p = r.payload().expect("a parameter record").to_vec();
                let id = match u32_of(&p).expect("parameter id") {
                    36 => 38,
                    37 => 39,
                    120 => 121,
                    other => panic!("Extrude Face parameter {other}"),
                };
                let mut q = u32::to_le_bytes(id).to_vec();
                q.extend_from_slice(&p[4..]);
                *r = Chunk::leaf(0x0410, q);
            }
            let mut q = 40u32.to_le_bytes().to_vec();
            q.extend_from_slice(&outline.to_le_bytes());
            basics.push(Chunk::leaf(0x0410, q));
            done += 1;
        }
        is_extrusion = false;
    }
    done
}

/// PictureFrame with its extrusions recorded as Bevels of `outline`.
fn bevelled(o: usize, outline: f32) -> SceneEval {
    let mut e = SceneEdit::open(FILE);
    let derived = e.reference(o, 1);
    let mut chunks = e.object_chunks(derived);
    assert_eq!(
        to_bevels(&mut chunks, outline),
        2,
        "PictureFrame's two Extrude Faces"
    );
    e.set_object_chunks(derived, chunks);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

#[test]
fn a_bevel_without_outline_gives_what_max_cached_of_the_extrusion() {
    let saved = corpus_eval(FILE);
    let o = node_named(&saved.graph, "PictureFrame");
    let eval = bevelled(o, 0.0);
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    assert_eq!(
        stack.iter().map(|m| m.name).collect::<Vec<_>>(),
        ["Unwrap UVW", "Edit Poly"]
    );
    let local = maxfs_tests::local_data(&stack[0]);
    let (cached, polygons) = unwrap_cache(local);
    let ours = edit_poly_output(&eval, o, 1, 0).unwrap_or_else(|e| panic!("bevelled: {e}"));
    assert_eq!(ours.vertices.len(), cached.len(), "vertices");
    let size = 8.3; // the frame's diagonal
    for (i, (v, c)) in ours.vertices.iter().zip(&cached).enumerate() {
        let d = ((v.0 - c[0]).powi(2) + (v.1 - c[1]).powi(2) + (v.2 - c[2]).powi(2)).sqrt();
        assert!(d <= 1e-6 * size, "vertex {i}: {v:?} vs cached {c:?}");
    }
    assert_eq!(ours.faces.len(), polygons.len(), "polygons");
    for (i, (f, (corners, material))) in ours.faces.iter().zip(&polygons).enumerate() {
        assert_eq!(&f.v, corners, "polygon {i}");
        assert_eq!(u32::from(f.material), *material, "polygon {i}'s material");
    }
}

/// With an outline, the bevelled faces' new borders move in their planes
/// along the SDK's outline vectors (`MNFaceClusters::GetOutlineVectors`,
/// scaled so that each border edge moves by one unit per unit of outline):
/// against Max's cache of the extrusions, every polygon is the same, every
/// vertex off the two bevelled borders stays where Max put it, and each
/// side of a bevelled border is parallel to Max's, 0.25 farther in (outline
/// −0.25), in the face's plane. (The rule's values at right angles are
/// checked on RicoBarrett's Desk.max, docs/unseen-files.md.)
#[test]
fn a_bevel_outline_moves_each_border_side_by_the_outline_in_its_plane() {
    let saved = corpus_eval(FILE);
    let o = node_named(&saved.graph, "PictureFrame");
    let (stack, _) = saved.modifier_stack(o).expect("stack");
    let (cached, polygons) = unwrap_cache(maxfs_tests::local_data(&stack[0]));
    let eval = bevelled(o, -0.25);
    let ours = edit_poly_output(&eval, o, 1, 0).unwrap_or_else(|e| panic!("bevelled: {e}"));
    assert_eq!(ours.faces.len(), polygons.len(), "polygons");
    for (i, (f, (corners, _))) in ours.faces.iter().zip(&polygons).enumerate() {
        assert_eq!(&f.v, corners, "polygon {i}");
    }
    assert_eq!(ours.vertices.len(), cached.len(), "vertices");
    let c = |i: u32| {
        let p = cached[i as usize];
        Vec3(p[0], p[1], p[2])
    };
    let size = 8.3;
    let moved: Vec<bool> = ours
        .vertices
        .iter()
        .zip(&cached)
        .map(|(v, p)| v.minus(Vec3(p[0], p[1], p[2])).len() > 1e-6 * size)
        .collect();
    // The bevelled borders: the second bevel's cap (a polygon all of whose
    // corners moved) and the first bevel's new corners, whose cap a later
    // operation replaced: the extrusion appends them in its loop's order.
    let mut borders: Vec<Vec<u32>> = polygons
        .iter()
        .map(|(corners, _)| corners.clone())
        .filter(|f| f.iter().all(|&v| moved[v as usize]))
        .collect();
    assert_eq!(borders.len(), 1, "the second bevel's cap");
    let rest: Vec<u32> = (0..moved.len())
        .filter(|&i| moved[i])
        .map(|i| u32::try_from(i).expect("index"))
        .filter(|v| !borders[0].contains(v))
        .collect();
    assert_eq!(rest.len(), 4, "the first bevel's four new corners");
    borders.push(rest);
    assert_eq!(
        moved.iter().filter(|&&m| m).count(),
        8,
        "only the two borders' corners move"
    );
    let mut sides = 0;
    for f in &borders {
        let n = f.len();
        // Newell's normal of Max's face.
        let mut nrm = Vec3(0.0, 0.0, 0.0);
        for j in 0..n {
            nrm = nrm.plus(c(f[j]).cross(c(f[(j + 1) % n])));
        }
        let nrm = nrm.scale(1.0 / nrm.len());
        for j in 0..n {
            let (a, b) = (f[j], f[(j + 1) % n]);
            let side = c(b).minus(c(a));
            let inward = nrm.cross(side).scale(1.0 / side.len());
            for v in [a, b] {
                let d = ours.vertices[v as usize].minus(c(v));
                assert!(
                    d.dot(nrm).abs() < 1e-6 * size,
                    "vertex {v} leaves the plane"
                );
                assert!(
                    (d.dot(inward) - 0.25).abs() < 1e-6 * size,
                    "side {a}-{b}: moved {} inwards",
                    d.dot(inward)
                );
            }
            sides += 1;
        }
    }
    eprintln!("PictureFrame, outline -0.25: {sides} border sides each moved 0.25 inwards");
}
