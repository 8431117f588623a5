//! Edit Poly operations on a primitive's polygon form and on smoothing groups,
//! against references apart from our replay:
//!
//! - PictureFrame.max (Box → Edit Poly: Inset, two Extrude Face, Attach,
//!   Detach + Delete, Attach → Unwrap UVW): the geometry the Unwrap UVW saved
//!   of its input (chunk 0x0330: every vertex position, in order; 0x0870: every
//!   polygon's vertices) and the authors' FBX (vertex positions in order,
//!   triangle count, the normal at every polygon corner — which also pins the
//!   smoothing groups of the extruded walls);
//! - Shotgun.max's Rivet (Editable Poly → Unwrap UVW → Edit Poly: Auto Smooth
//!   at 45° → Unwrap UVW): corner normals equal those of the FBX node exported
//!   from it, which differ from those of the file's other Rivets (copies
//!   without the Auto Smooth) at 60 corners.
//!
//! Shotgun.max's Connection (Box → Edit Poly: Delete Face → Conform → …) is
//! checked whole in eval_conform.rs.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::objects::normals;
use maxfs_scene::eval::{SceneEval, Stack};
use maxfs_scene::typed::ClassId;
use maxfs_tests::rewrite::{local_data_holding, SceneEdit};
use maxfs_tests::{corpus_dir, corpus_eval, le_words as words, node_index as node, unwrap_cache};

fn fbx(rel: &str) -> ufbx::SceneRoot {
    ufbx::load_file(
        corpus_dir().join("ref").join(rel).to_str().expect("path"),
        ufbx::LoadOpts::default(),
    )
    .expect("fbx loads")
}

/// The mesh of the FBX node `name`.
fn fbx_mesh<'a>(scene: &'a ufbx::Scene, name: &str) -> &'a ufbx::Mesh {
    scene
        .nodes
        .iter()
        .find(|n| n.element.name.as_ref() == name)
        .and_then(|n| n.mesh.as_ref())
        .unwrap_or_else(|| panic!("FBX mesh {name}"))
}

/// Our corner normals, per polygon of the FBX mesh (whose polygons are Max's,
/// in order; ours are each polygon's triangles in order): the worst distance
/// over all FBX corners, how many corners, and how many of them the FBX
/// smooths (a normal off its polygon's plane normal). `ours_of` gives our
/// vertex for an FBX vertex.
fn corner_normals_against(
    eval: &SceneEval,
    mesh: &Mesh,
    fm: &ufbx::Mesh,
    ours_of: impl Fn(u32) -> u32,
) -> (f64, usize, usize) {
    let p: Vec<[f64; 3]> = mesh.vertices.iter().map(|v| [v.0, v.1, v.2]).collect();
    let ours = normals::corner_normals(
        &p,
        &mesh.faces,
        normals::Weighting::of_scene_version(eval.graph.version),
    );
    let (mut worst, mut corners, mut smoothed, mut tri) = (0.0f64, 0, 0, 0usize);
    for f in fm.faces.iter() {
        let tris = tri..tri + f.num_indices as usize - 2;
        tri = tris.end;
        let at = |k: u32| fm.vertices[fm.vertex_indices[(f.index_begin + k) as usize] as usize];
        let plane = {
            let (a, b, c) = (at(0), at(1), at(2));
            let (u, w) = (
                [b.x - a.x, b.y - a.y, b.z - a.z],
                [c.x - a.x, c.y - a.y, c.z - a.z],
            );
            let x = [
                u[1] * w[2] - u[2] * w[1],
                u[2] * w[0] - u[0] * w[2],
                u[0] * w[1] - u[1] * w[0],
            ];
            let l = (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt().max(1e-300);
            x.map(|y| y / l)
        };
        for i in f.index_begin..f.index_begin + f.num_indices {
            let v = ours_of(fm.vertex_indices[i as usize]);
            let n = fm.vertex_normal[i as usize];
            if plane[0] * n.x + plane[1] * n.y + plane[2] * n.z < 0.9998 {
                smoothed += 1;
            }
            let t = tris
                .clone()
                .find(|&t| mesh.faces[t].v.contains(&v))
                .unwrap_or_else(|| panic!("no triangle of polygon on vertex {v}"));
            let k = mesh.faces[t]
                .v
                .iter()
                .position(|&x| x == v)
                .expect("corner");
            let o = ours[t][k];
            let d = ((o[0] - n.x).powi(2) + (o[1] - n.y).powi(2) + (o[2] - n.z).powi(2)).sqrt();
            worst = worst.max(d);
            corners += 1;
        }
    }
    assert_eq!(tri, mesh.faces.len(), "triangles per polygon");
    (worst, corners, smoothed)
}

#[test]
fn picture_frame_matches_the_unwrap_cache_and_the_fbx() {
    let eval = corpus_eval("max/max2024-rico/PictureFrame.max");
    let o = node(&eval, "PictureFrame");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    assert_eq!(
        stack.iter().map(|m| m.name).collect::<Vec<_>>(),
        ["Unwrap UVW", "Edit Poly"]
    );
    let mesh = eval
        .mesh(o, 0)
        .expect("a mesh object")
        .unwrap_or_else(|e| panic!("PictureFrame: {e}"));
    // What Unwrap UVW saved of its input, read here from the chunks.
    let local = maxfs_tests::local_data(&stack[0]);
    let (cached, polygons) = unwrap_cache(local);
    assert_eq!(mesh.vertices.len(), cached.len(), "vertex count");
    let size = 8.3; // the frame's diagonal
    for (i, (v, c)) in mesh.vertices.iter().zip(&cached).enumerate() {
        let d = ((v.0 - c[0]).powi(2) + (v.1 - c[1]).powi(2) + (v.2 - c[2]).powi(2)).sqrt();
        assert!(d <= 1e-6 * size, "vertex {i}: {v:?} vs cached {c:?}");
    }
    // Our triangles run through the cached polygons in order.
    let mut tri = 0;
    for (p, (corners, _)) in polygons.iter().enumerate() {
        for _ in 0..corners.len() - 2 {
            let t = mesh.faces[tri].v;
            let pos: Vec<usize> = t
                .iter()
                .map(|x| {
                    corners
                        .iter()
                        .position(|c| c == x)
                        .expect("corner of the polygon")
                })
                .collect();
            let rising = [pos[0] < pos[1], pos[1] < pos[2], pos[2] < pos[0]];
            assert_eq!(
                rising.iter().filter(|&&r| r).count(),
                2,
                "polygon {p}: {t:?} winds back"
            );
            tri += 1;
        }
    }
    assert_eq!(tri, mesh.faces.len(), "every triangle in a cached polygon");

    let scene = fbx("max2024-rico/PictureFrame.fbx");
    let fm = fbx_mesh(&scene, "PictureFrame");
    assert_eq!(fm.num_vertices, mesh.vertices.len());
    assert_eq!(fm.num_triangles, mesh.faces.len());
    for (i, (v, f)) in mesh.vertices.iter().zip(fm.vertices.iter()).enumerate() {
        let d = ((v.0 - f.x).powi(2) + (v.1 - f.y).powi(2) + (v.2 - f.z).powi(2)).sqrt();
        assert!(d <= 1e-6 * size, "vertex {i}: {v:?} vs FBX {f:?}");
    }
    let (worst, corners, _) = corner_normals_against(&eval, &mesh, fm, |v| v);
    eprintln!("PictureFrame: {corners} corner normals, worst {worst:.2e} from the FBX");
    assert_eq!(corners, 120);
    assert!(worst < 1e-4, "corner normal off by {worst}");
}

#[test]
fn rivet_auto_smooth_gives_the_fbx_normals() {
    let eval = corpus_eval("max/max2024-rico/Shotgun.max");
    let scene = fbx("max2024-rico/Shotgun.fbx");
    let fbx_rivets: Vec<&ufbx::Mesh> = scene
        .nodes
        .iter()
        .filter(|n| n.element.name.as_ref() == "Rivet")
        .filter_map(|n| n.mesh.as_deref())
        .collect();
    assert_eq!(fbx_rivets.len(), 3);
    let smoothed = eval
        .graph
        .nodes()
        .find(|(o, n)| {
            n.name == "Rivet"
                && eval
                    .modifier_stack(o.index)
                    .is_some_and(|(s, _)| s.iter().any(|m| m.name == "Edit Poly"))
        })
        .map(|(o, _)| o.index)
        .expect("the Rivet with the Edit Poly");
    let mesh = eval
        .mesh(smoothed, 0)
        .expect("a mesh object")
        .unwrap_or_else(|e| panic!("Rivet: {e}"));
    let copy = eval
        .mesh(node(&eval, "Rivet001"), 0)
        .expect("a mesh object")
        .expect("Rivet001 evaluates");
    let mut matched = 0;
    for fm in &fbx_rivets {
        let (ours, corners, _) = corner_normals_against(&eval, &mesh, fm, |v| v);
        let (theirs, _, _) = corner_normals_against(&eval, &copy, fm, |v| v);
        eprintln!(
            "FBX Rivet: {corners} corners, Auto Smooth worst {ours:.2e}, the copy {theirs:.2e}"
        );
        if ours < 1e-4 {
            // The node exported with the Auto Smooth: the copy's groups differ.
            assert!(theirs > 0.1, "the copy matches too: the check cannot fail");
            matched += 1;
        }
    }
    assert_eq!(matched, 1, "one FBX Rivet is the auto-smoothed one");
}

/// Wire.max: Cylinder (version chunk 1: its polygon form is the triangle
/// mesh's, merged) → Edit Poly (17 × detach + delete, 17 attaches) → Physique
/// → Unwrap UVW. The Edit Poly's output equals what the Unwrap UVW cached of
/// its input polygon for polygon (the bottom cap first, the top cap starting
/// on the ring's last vertex), and vertex for vertex up to Physique's
/// deformation of the bind pose (1e-5 of the size).
#[test]
fn wire_edit_poly_equals_the_unwrap_cache() {
    let eval = corpus_eval("max/max2024-rico/Wire.max");
    let o = node(&eval, "Wire");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let names: Vec<_> = stack.iter().map(|m| m.name).collect();
    assert_eq!(names, ["Skin", "Unwrap UVW", "Physique", "Edit Poly"]);
    let poly = maxfs_scene::eval::modifier::edit_poly_output(&eval, o, 3, 0)
        .unwrap_or_else(|e| panic!("Wire's Edit Poly: {e}"));
    let local = maxfs_tests::local_data(&stack[1]);
    let (cached, polygons) = unwrap_cache(local);
    assert_eq!(polygons.len(), poly.faces.len(), "polygon count");
    for (i, (f, (corners, _))) in poly.faces.iter().zip(&polygons).enumerate() {
        assert_eq!(&f.v, corners, "polygon {i}");
    }
    assert_eq!(cached.len(), poly.vertices.len());
    let (lo, hi) = cached
        .iter()
        .fold(([f64::MAX; 3], [f64::MIN; 3]), |(lo, hi), c| {
            (
                [lo[0].min(c[0]), lo[1].min(c[1]), lo[2].min(c[2])],
                [hi[0].max(c[0]), hi[1].max(c[1]), hi[2].max(c[2])],
            )
        });
    let size = ((hi[0] - lo[0]).powi(2) + (hi[1] - lo[1]).powi(2) + (hi[2] - lo[2]).powi(2)).sqrt();
    let worst = poly
        .vertices
        .iter()
        .zip(&cached)
        .map(|(v, c)| ((v.0 - c[0]).powi(2) + (v.1 - c[1]).powi(2) + (v.2 - c[2]).powi(2)).sqrt())
        .fold(0.0, f64::max);
    eprintln!(
        "Wire: {} polygons equal, vertices worst {worst:.2e} of size {size:.1}",
        poly.faces.len()
    );
    assert!(worst <= 1e-5 * size, "worst vertex {worst} of size {size}");
}

/// Mug.max: Cylinder → Edit Poly (Inset and extrusion of the top cap, a quad
/// Chamfer Edge of 2 segments on the bottom cap's border, Attach, Delete Face
/// of the bottom cap, Transforms) → Unwrap UVW. The Edit Poly's output equals
/// what the Unwrap UVW cached of its input, vertex for vertex (0x0330) and
/// polygon for polygon (0x0870: the extrusions' loops start at the top cap's
/// lowest-numbered side, the chamfer's rows in Max's order); the node's mesh
/// equals the authors' FBX (positions in order, triangle count, the normal at
/// every polygon corner: the chamfer's smoothing) and Max's Mesh Totals (354
/// vertices, from DocumentSummaryInformation), and takes the Unwrap's map.
#[test]
fn mug_chamfer_matches_the_unwrap_cache_and_the_fbx() {
    let eval = corpus_eval("max/max2024-rico/Mug.max");
    let o = node(&eval, "Mug");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let names: Vec<_> = stack.iter().map(|m| m.name).collect();
    assert_eq!(names, ["Unwrap UVW", "Edit Poly", "Edit Poly"]);
    let poly = maxfs_scene::eval::modifier::edit_poly_output(&eval, o, 1, 0)
        .unwrap_or_else(|e| panic!("Mug's Edit Poly: {e}"));
    let local = maxfs_tests::local_data(&stack[0]);
    let (cached, polygons) = unwrap_cache(local);
    assert_eq!(polygons.len(), poly.faces.len(), "polygon count");
    for (i, (f, (corners, material))) in poly.faces.iter().zip(&polygons).enumerate() {
        assert_eq!(&f.v, corners, "polygon {i}");
        assert_eq!(u32::from(f.material), *material, "polygon {i}'s material");
    }
    assert_eq!(cached.len(), poly.vertices.len());
    // Mesh Totals: "Vertices: 354".
    assert_eq!(poly.vertices.len(), 354);
    let size = 4.4; // the mug's diagonal
    let worst = poly
        .vertices
        .iter()
        .zip(&cached)
        .map(|(v, c)| ((v.0 - c[0]).powi(2) + (v.1 - c[1]).powi(2) + (v.2 - c[2]).powi(2)).sqrt())
        .fold(0.0, f64::max);

    let mesh = eval
        .mesh(o, 0)
        .expect("a mesh object")
        .unwrap_or_else(|e| panic!("Mug: {e}"));
    assert!(mesh.missing_maps.is_empty(), "{:?}", mesh.missing_maps);
    assert!(mesh.maps.iter().any(|m| m.channel == 1), "the Unwrap's map");
    let scene = fbx("max2024-rico/Mug.fbx");
    let fm = fbx_mesh(&scene, "Mug");
    assert_eq!(fm.num_vertices, mesh.vertices.len());
    assert_eq!(fm.num_triangles, mesh.faces.len());
    let fbx_worst = mesh
        .vertices
        .iter()
        .zip(fm.vertices.iter())
        .map(|(v, f)| ((v.0 - f.x).powi(2) + (v.1 - f.y).powi(2) + (v.2 - f.z).powi(2)).sqrt())
        .fold(0.0, f64::max);
    // The FBX holds triangles (Max's, whose diagonals may differ from ours):
    // each corner's normal against the nearest of ours at the same vertex.
    let p: Vec<[f64; 3]> = mesh.vertices.iter().map(|v| [v.0, v.1, v.2]).collect();
    let ours = normals::corner_normals(
        &p,
        &mesh.faces,
        normals::Weighting::of_scene_version(eval.graph.version),
    );
    let mut at_vertex: Vec<Vec<[f64; 3]>> = vec![Vec::new(); mesh.vertices.len()];
    for (f, n) in mesh.faces.iter().zip(&ours) {
        for k in 0..3 {
            at_vertex[f.v[k] as usize].push(n[k]);
        }
    }
    // Known difference, not the chamfer's: the walls the extrusion made
    // inside the mug (vertices 85..=118 of the ring the Inset and the
    // extrusion made) are smoothed together in Max's normals, where our
    // extrusion gives walls no smoothing group (PictureFrame's walls, meeting
    // at right angles, are flat in its FBX; the rule is not derived).
    let (mut normal_worst, mut corners, mut walls) = (0.0f64, 0, 0);
    for i in 0..fm.vertex_indices.len() {
        let v = fm.vertex_indices[i] as usize;
        let n = fm.vertex_normal[i];
        let d = at_vertex[v]
            .iter()
            .map(|o| ((o[0] - n.x).powi(2) + (o[1] - n.y).powi(2) + (o[2] - n.z).powi(2)).sqrt())
            .fold(f64::INFINITY, f64::min);
        corners += 1;
        if d > 1e-4 && (85..=118).contains(&v) && n.z.abs() < 1e-6 {
            walls += 1;
            continue;
        }
        normal_worst = normal_worst.max(d);
    }
    assert_eq!(walls, 102, "corners of the inner walls off");
    eprintln!(
        "Mug: cache worst {worst:.2e}, FBX positions worst {fbx_worst:.2e} of size {size}, \
         {corners} corner normals worst {normal_worst:.2e} but {walls} on the inner walls"
    );
    assert!(worst <= 1e-6 * size, "cache: worst vertex {worst}");
    assert!(fbx_worst <= 1e-6 * size, "FBX: worst vertex {fbx_worst}");
    assert!(normal_worst < 1e-4, "corner normal off by {normal_worst}");
}

/// An Edit Poly above a modifier that writes one map channel and nothing else
/// (UVW Map, UVW Xform …) takes the polygons below it; the channel, whose
/// values on polygons are not derived, leaves them and is named. Found on
/// danshaub's guard tower (fifth sweep, docs/unseen-files.md: Edit Polys
/// above UVW Maps on Cylinders, refused until then; both nodes now stop at
/// the Shell above them). The corpus has no such stack, so Shotgun's
/// Rivet (Unwrap UVW → Edit Poly → Unwrap UVW → Editable Poly) gets its bottom
/// Unwrap turned into a UVW Xform through the project's writer: the Edit
/// Poly's output must still be what Max cached of it in the top Unwrap,
/// polygon for polygon and vertex for vertex.
#[test]
fn edit_poly_takes_the_polygons_below_a_uv_only_modifier() {
    const SHOTGUN: &str = "max/max2024-rico/Shotgun.max";
    let before = corpus_eval(SHOTGUN);
    let rivet = before
        .graph
        .nodes()
        .find(|(o, n)| {
            n.name == "Rivet"
                && before
                    .modifier_stack(o.index)
                    .is_some_and(|(s, _)| s.iter().any(|m| m.name == "Edit Poly"))
        })
        .map(|(o, _)| o.index)
        .expect("the Rivet with the Edit Poly");
    let bottom = {
        let (stack, _) = before.modifier_stack(rivet).expect("stack");
        let names: Vec<_> = stack.iter().map(|m| m.name).collect();
        assert_eq!(names, ["Unwrap UVW", "Edit Poly", "Unwrap UVW"]);
        stack[2].object
    };
    let mut e = SceneEdit::open(SHOTGUN);
    let derived = e.reference(rivet, 1);
    let slot = e.graph.objects[derived]
        .references
        .iter()
        .find(|r| usize::try_from(r.target).ok() == Some(bottom))
        .map(|r| r.slot)
        .expect("the derived object references the bottom Unwrap");
    let xform = e.add_class(-1, ClassId(0x5f32de12, 0), 0x810, "UVW Xform");
    let chunks = e.object_chunks(bottom);
    let copy = e.add_object(xform, chunks);
    e.set_reference(derived, slot, i32::try_from(copy).expect("index"));
    let eval = SceneEval::from_document(e.finish()).expect("edited scene");
    let (stack, _) = eval.modifier_stack(rivet).expect("stack");
    let names: Vec<_> = stack.iter().map(|m| m.name).collect();
    assert_eq!(names, ["Unwrap UVW", "Edit Poly", "UVW Xform"]);

    let poly = maxfs_scene::eval::modifier::edit_poly_output(&eval, rivet, 1, 0)
        .unwrap_or_else(|e| panic!("Rivet's Edit Poly: {e}"));
    let local = maxfs_tests::local_data(&stack[0]);
    let (cached, polygons) = maxfs_tests::unwrap_cache(local);
    assert_eq!(polygons.len(), poly.faces.len(), "polygon count");
    for (i, (f, (v, _))) in poly.faces.iter().zip(&polygons).enumerate() {
        assert_eq!(&f.v, v, "polygon {i}");
    }
    assert_eq!(cached.len(), poly.vertices.len());
    let worst = poly
        .vertices
        .iter()
        .zip(&cached)
        .map(|(v, c)| {
            let d = [v.0 - c[0], v.1 - c[1], v.2 - c[2]];
            (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
        })
        .fold(0.0, f64::max);
    eprintln!(
        "Rivet over a UVW Xform: {} polygons equal, vertices worst {worst:.2e}",
        poly.faces.len()
    );
    assert!(worst <= 1e-5, "worst vertex {worst}");
    // The stack's own evaluation (the top Unwrap's cache not standing in,
    // as it does for the whole stack): the UVW Xform writes channel 1 (its
    // block's default), which the Edit Poly's polygons leave out, named, and
    // the top Unwrap writes again, so nothing is missing at the top.
    let mesh = eval
        .mesh_with(rivet, 0, Stack::Replayed)
        .expect("a mesh object")
        .unwrap_or_else(|e| panic!("Rivet: {e}"));
    assert!(mesh.missing_maps.is_empty(), "{:?}", mesh.missing_maps);
    assert!(mesh.maps.iter().any(|c| c.channel == 1));
    assert!(mesh.missing_parts.is_empty(), "{:?}", mesh.missing_parts);
}

/// PictureFrame.max with its Unwrap's cache renumbered: vertices in reverse
/// order (0x0330 and every polygon's geometry corners in 0x0870), and, with
/// `moved`, one cached vertex moved by a tenth of the frame.
fn picture_frame_renumbered(moved: bool) -> SceneEval {
    let file = "max/max2024-rico/PictureFrame.max";
    let plain = corpus_eval(file);
    let o = node(&plain, "PictureFrame");
    let mut e = SceneEdit::open(file);
    let derived = e.reference(o, 1);
    let mut chunks = e.object_chunks(derived);
    let local = local_data_holding(&mut chunks, 0x0330).expect("the Unwrap's local data");
    let find =
        |local: &Vec<Chunk>, id: u16| local.iter().position(|c| c.id == id).expect("cached chunk");
    let g = find(local, 0x0330);
    let geom = local[g].payload().expect("0x0330 leaf").to_vec();
    let n = words(&geom[..4])[0] as usize;
    let mut points: Vec<&[u8]> = geom[4..].chunks_exact(12).collect();
    points.reverse();
    let mut out = geom[..4].to_vec();
    for (i, p) in points.iter().enumerate() {
        let mut p = p.to_vec();
        if moved && i == 0 {
            let x = f32::from_le_bytes([p[0], p[1], p[2], p[3]]) + 0.83;
            p[..4].copy_from_slice(&x.to_le_bytes());
        }
        out.extend(p);
    }
    local[g] = Chunk::leaf(0x0330, out);
    let f = find(local, 0x0870);
    let mut w = words(local[f].payload().expect("0x0870 leaf"));
    let mut at = 1;
    for _ in 0..w[0] {
        let deg = w[at] as usize;
        for x in &mut w[at + 4 + deg..at + 4 + 2 * deg] {
            *x = (n - 1) as u32 - *x;
        }
        at += 1 + 2 * deg + 3;
    }
    local[f] = Chunk::leaf(
        0x0870,
        w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
    );
    e.set_object_chunks(derived, chunks);
    SceneEval::from_document(e.finish()).expect("edited scene")
}

/// Where the Unwrap's cache stands in because our result of the stack below
/// is numbered otherwise (here: the cache renumbered), the smoothing groups
/// the cache lacks come from our result matched polygon by polygon
/// (modifier/cache_smoothing.rs): every FBX corner normal — 24 of them
/// smoothed across the extruded walls — is ours again, at the cache's
/// numbering. With one cached vertex moved the two no longer match, and the
/// groups are named missing with why.
#[test]
fn a_renumbered_unwrap_cache_takes_our_smoothing_groups() {
    let eval = picture_frame_renumbered(false);
    let o = node(&eval, "PictureFrame");
    let mesh = eval.mesh(o, 0).expect("a mesh object").expect("evaluated");
    assert!(mesh.missing_parts.is_empty(), "{:?}", mesh.missing_parts);
    let scene = fbx("max2024-rico/PictureFrame.fbx");
    let fm = fbx_mesh(&scene, "PictureFrame");
    let n = fm.num_vertices;
    assert_eq!(mesh.vertices.len(), n);
    // The cache's order is the FBX's reversed.
    for (i, v) in mesh.vertices.iter().enumerate() {
        let f = fm.vertices[n - 1 - i];
        let d = ((v.0 - f.x).powi(2) + (v.1 - f.y).powi(2) + (v.2 - f.z).powi(2)).sqrt();
        assert!(d <= 1e-6 * 8.3, "vertex {i}: {v:?} vs FBX {f:?}");
    }
    let last = n as u32 - 1;
    let (worst, _, smoothed) = corner_normals_against(&eval, &mesh, fm, |v| last - v);
    eprintln!("renumbered PictureFrame: {smoothed} smoothed FBX corners, worst normal {worst:.2e}");
    assert!(
        smoothed > 0,
        "the FBX shows no smoothing: the check would not see the groups"
    );
    assert!(worst < 1e-4, "corner normal off by {worst}");

    let eval = picture_frame_renumbered(true);
    let mesh = eval
        .mesh(node(&eval, "PictureFrame"), 0)
        .expect("a mesh object")
        .expect("evaluated");
    let part = mesh
        .missing_parts
        .iter()
        .find(|p| p.part == "smoothing groups")
        .expect("smoothing groups named missing");
    assert!(
        part.reason.contains("do not match it") && part.reason.contains("fewer cached vertices"),
        "{}",
        part.reason
    );
    assert!(mesh.faces.iter().all(|f| f.smoothing == 0));
}
