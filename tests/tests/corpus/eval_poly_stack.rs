//! Symmetry and Smooth between two Edit Polys, evaluated on polygons as Max
//! does (a poly object passes polygons up the stack): Table.max (Box → Edit
//! Poly: …, Chamfer Edge → Symmetry → Smooth (auto smooth) → Edit Poly: two
//! Attaches → Unwrap UVW), against what 3ds Max saved of its own result and
//! its FBX of the scene:
//!
//! - the upper Edit Poly's saved selection sizes (394 vertices, 648 edges,
//!   258 faces; the replay checks them) and its hidden-vertex / hidden-face
//!   arrays, sized to its input (58 vertices, 48 faces: the Symmetry's
//!   output);
//! - the Unwrap UVW's cache of its input (0x0330 / 0x0870): every cached
//!   polygon is one of ours, corner positions in the same cyclic order and
//!   the same material, each at Max's index from Max's first corner, over
//!   Max's vertex indices (all 394 cached positions at their index: the
//!   Symmetry's numbering in symmetry_poly.rs);
//! - the FBX: vertex position sets both ways, the triangle count, and the
//!   corner normals (matched by position and face plane, written before
//!   the vertex order was Max's): on the top the Smooth's groups decide them, on the
//!   attached legs the explicit normals the Attaches' meshes stored (0x0300)
//!   or, where a corner has none, the face's own; the glTF streams carry
//!   the same;
//! - the Mesh Totals (eval_mesh_totals.rs: 394 vertices).

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::objects::normals;
use maxfs_tests::{corpus_dir, corpus_eval, le_words as words, node_index as node, unwrap_cache};

fn local(eval: &maxfs_scene::eval::SceneEval, o: usize, at: usize) -> &Chunk {
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    maxfs_tests::local_data(&stack[at])
}

fn bit_count(local: &Chunk, id: u16) -> u32 {
    let c = local
        .children()
        .iter()
        .find(|c| c.id == id)
        .expect("selection");
    let p = c.children().first().and_then(Chunk::payload).expect("bits");
    words(p)[0]
}

type P3 = [f64; 3];

fn dist(a: P3, b: P3) -> f64 {
    (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt()
}

/// Whether two position loops are the same cycle (up to the first corner).
fn same_cycle(a: &[P3], b: &[P3], tol: f64) -> bool {
    a.len() == b.len()
        && (0..a.len()).any(|r| (0..a.len()).all(|i| dist(a[(i + r) % a.len()], b[i]) <= tol))
}

#[test]
fn table_symmetry_and_smooth_on_polygons_match_max() {
    let eval = corpus_eval("max/max2024-rico/Table.max");
    let o = node(&eval, "Table");
    let (stack, _) = eval.modifier_stack(o).expect("stack");
    let names: Vec<_> = stack.iter().map(|m| m.name).collect();
    assert_eq!(
        names,
        ["Unwrap UVW", "Edit Poly", "Smooth", "Symmetry", "Edit Poly"]
    );
    // The upper Edit Poly's input is the Symmetry's (and Smooth's) output.
    let upper = local(&eval, o, 1);
    assert_eq!(
        [bit_count(upper, 0x0224), bit_count(upper, 0x0228)],
        [58, 48]
    );
    let poly = maxfs_scene::eval::modifier::edit_poly_output(&eval, o, 1, 0)
        .unwrap_or_else(|e| panic!("Table's upper Edit Poly: {e}"));
    assert_eq!(
        [
            poly.vertices.len(),
            poly.walked_edges().len(),
            poly.faces.len()
        ],
        [394, 648, 258]
    );
    let (cache, cached) = unwrap_cache(local(&eval, o, 0));
    assert_eq!((cache.len(), cached.len()), (394, 258));
    let size = 90.0; // the table's diagonal
    let tol = 1e-6 * size;
    let ours: Vec<Vec<P3>> = poly
        .faces
        .iter()
        .map(|f| {
            f.v.iter()
                .map(|&v| poly.vertices[v as usize].to_array())
                .collect()
        })
        .collect();
    // Max's face order and first corners: cached polygon i is our face i
    // from the same corner (the Connect Vertex / Connect Edge split rule).
    let in_order = (0..cached.len())
        .filter(|&i| {
            let theirs: Vec<P3> = cached[i].0.iter().map(|&v| cache[v as usize]).collect();
            ours[i].len() == theirs.len()
                && ours[i]
                    .iter()
                    .zip(&theirs)
                    .all(|(&a, &b)| dist(a, b) <= tol)
        })
        .count();
    assert_eq!(
        in_order,
        cached.len(),
        "polygons in Max's order from Max's first corner"
    );
    // Max's vertex numbering (the Symmetry's copies in CloneFaces' walk,
    // the survivor of each seam pair as symmetry_poly.rs says): every cached
    // position is ours at the same index, every cached polygon the same
    // vertex indices.
    let at_index = poly
        .vertices
        .iter()
        .zip(&cache)
        .filter(|(a, &b)| dist(a.to_array(), b) <= tol)
        .count();
    assert_eq!(at_index, cache.len(), "vertices at Max's index");
    let same_indices = poly
        .faces
        .iter()
        .zip(&cached)
        .filter(|(f, c)| f.v == c.0)
        .count();
    assert_eq!(
        same_indices,
        cached.len(),
        "polygons over Max's vertex indices"
    );
    let mut taken = vec![false; ours.len()];
    for (i, (corners, material)) in cached.iter().enumerate() {
        let theirs: Vec<P3> = corners.iter().map(|&v| cache[v as usize]).collect();
        let hit = (0..ours.len()).find(|&j| {
            !taken[j]
                && u32::from(poly.faces[j].material) == *material
                && same_cycle(&ours[j], &theirs, tol)
        });
        let j = hit.unwrap_or_else(|| panic!("cached polygon {i} {corners:?} is none of ours"));
        taken[j] = true;
    }

    // The evaluated node against the FBX.
    let mesh = eval
        .mesh(o, 0)
        .expect("a mesh object")
        .unwrap_or_else(|e| panic!("Table: {e}"));
    let scene = table_fbx();
    let fm = table_fbx_mesh(&scene);
    assert_eq!(mesh.vertices.len(), fm.num_vertices);
    assert_eq!(mesh.faces.len(), fm.num_triangles);
    let p: Vec<P3> = mesh.vertices.iter().map(|v| v.to_array()).collect();
    let fp: Vec<P3> = fm.vertices.iter().map(|v| [v.x, v.y, v.z]).collect();
    let nearest = |set: &[P3], q: P3| {
        set.iter()
            .map(|&x| dist(x, q))
            .fold(f64::INFINITY, f64::min)
    };
    let worst = p
        .iter()
        .map(|&q| nearest(&fp, q))
        .chain(fp.iter().map(|&q| nearest(&p, q)))
        .fold(0.0, f64::max);
    assert!(worst < tol, "vertex sets differ by {worst}");

    // The two Attaches' meshes (0x0238 → 0x0e00) carry specified normals
    // (0x0300): each polygon corner's normal from the stored pool.
    let mut spec_corners: Vec<(P3, P3)> = Vec::new();
    for att in local(&eval, o, 1)
        .children()
        .iter()
        .filter(|c| c.id == 0x0238)
    {
        let m = att
            .children()
            .iter()
            .find(|c| c.id == 0x0e00)
            .expect("attached mesh");
        let poly = maxfs_scene::eval::objects::mesh::mnmesh(m.children()).expect("mnmesh");
        let degrees: Vec<usize> = poly.faces.iter().map(|f| f.v.len()).collect();
        let ns = m
            .children()
            .iter()
            .find(|c| c.id == 0x0300)
            .expect("the attached mesh's specified normals");
        let (spec, corners) =
            maxfs_scene::eval::objects::specified_normals::SpecifiedNormals::decode_poly(
                ns.children(),
                &degrees,
            )
            .expect("normal spec");
        assert!(poly.faces.iter().all(|f| f.smoothing == 0));
        for (f, cs) in poly.faces.iter().zip(&corners) {
            for (&v, c) in f.v.iter().zip(cs) {
                let explicit = |c: &u32| spec.explicit.get(*c as usize) == Some(&true);
                if let Some(n) = c
                    .filter(explicit)
                    .and_then(|c| spec.normals.get(c as usize))
                {
                    spec_corners.push((poly.vertices[v as usize].to_array(), n.map(f64::from)));
                }
            }
        }
    }

    // Corner normals as the exporters take them: the specified normal where
    // a corner has one (the Attaches carry 0x0300 into the mesh), else the
    // smoothing groups'. Each FBX corner is compared with our corner at the
    // same place on the triangle whose plane is nearest the FBX triangle's.
    let mut cn = normals::corner_normals(
        &p,
        &mesh.faces,
        normals::Weighting::of_scene_version(eval.graph.version),
    );
    let spec = normals::specified_corners(&p, &mesh).expect("the Attaches' specified normals");
    for (out, s) in cn.iter_mut().zip(&spec) {
        for (n, s) in out.iter_mut().zip(s) {
            if let Some(s) = s {
                *n = *s;
            }
        }
    }
    // The glTF streams of the same mesh (Y-up: (x, y, z) is (x, z, −y)).
    let streams = maxfs_exporters::gltf::geometry::streams(
        &mesh,
        &maxfs_scene::eval::Mat43::IDENTITY,
        normals::Weighting::of_scene_version(eval.graph.version),
    );
    let yup = |a: P3| [a[0], a[2], -a[1]];
    let unit = |a: P3| {
        let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        a.map(|x| x / l)
    };
    let plane = |a: P3, b: P3, c: P3| {
        let (u, v) = (
            [0, 1, 2].map(|i| b[i] - a[i]),
            [0, 1, 2].map(|i| c[i] - a[i]),
        );
        unit([
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ])
    };
    let ours_plane: Vec<P3> = mesh
        .faces
        .iter()
        .map(|f| plane(p[f.v[0] as usize], p[f.v[1] as usize], p[f.v[2] as usize]))
        .collect();
    const NORMAL_TOL: f64 = 1e-3;
    let (mut worst_top, mut worst_legs, mut corners, mut off) = (0.0f64, 0.0f64, 0, [0usize; 2]);
    let (mut legs, mut legs_spec, mut legs_faceted, mut skipped) = (0, 0, 0, 0);
    let (mut gltf_off, mut explicit_not_shown) = (0, 0);
    // Positions held by two vertices (the chamfer's slid corners lie on
    // the far ends of their sides): corners there cannot be told apart by
    // position, so they are left out.
    let shared = |x: P3| p.iter().filter(|&&y| dist(x, y) < tol).count() > 1;
    for f in fm.faces.iter() {
        let idx: Vec<usize> = (f.index_begin..f.index_begin + f.num_indices)
            .map(|i| i as usize)
            .collect();
        assert_eq!(idx.len(), 3, "the FBX holds triangles");
        let q = idx.iter().map(|&i| fp[fm.vertex_indices[i] as usize]);
        let q: Vec<P3> = q.collect();
        let fplane = plane(q[0], q[1], q[2]);
        for (k, &i) in idx.iter().enumerate() {
            let n = fm.vertex_normal[i];
            let n = [n.x, n.y, n.z];
            corners += 1;
            if shared(q[k]) {
                skipped += 1;
                continue;
            }
            // Our corner at the same place whose triangle's plane is nearest.
            let best = mesh
                .faces
                .iter()
                .enumerate()
                .flat_map(|(t, tf)| (0..3).map(move |c| (t, tf.v[c] as usize, c)))
                .filter(|&(_, v, _)| dist(p[v], q[k]) < tol)
                .map(|(t, _, c)| {
                    // A triangle of no area has no plane: ranked last.
                    let d = dist(ours_plane[t], fplane);
                    (if d.is_nan() { 3.0 } else { d }, dist(cn[t][c], n))
                })
                .fold((f64::INFINITY, f64::INFINITY), |a, b| {
                    if b.0 < a.0 {
                        b
                    } else {
                        a
                    }
                })
                .1;
            // The Smooth's polygons: the table top (z in [-1.1, 0]); the
            // rest are the attached legs.
            let top = q.iter().all(|x| x[2] > -1.1);
            if best > NORMAL_TOL {
                off[usize::from(top)] += 1;
            }
            if top {
                worst_top = worst_top.max(best);
                continue;
            }
            legs += 1;
            let stored = |m: P3| {
                spec_corners
                    .iter()
                    .any(|&(x, sn)| dist(x, q[k]) < tol && dist(sn, m) < NORMAL_TOL)
            };
            // Each leg corner is an explicit normal the Attach stored, or
            // (its corner unspecified, the legs carry no smoothing group)
            // the face's own normal.
            if stored(n) {
                legs_spec += 1;
            } else if dist(fplane, n) < NORMAL_TOL {
                legs_faceted += 1;
            }
            if best <= NORMAL_TOL {
                worst_legs = worst_legs.max(best);
            } else if dist(fplane, n) < NORMAL_TOL
                && spec_corners.iter().any(|&(x, _)| dist(x, q[k]) < tol)
            {
                // The known gap: Max shows the face normal at a corner
                // whose stored normal is explicit (ours, from the pool).
                explicit_not_shown += 1;
            }
        }
    }
    // The glTF streams hold every corner of ours, with its normal — those
    // of triangles without area too, but where the corner has no normal at
    // all (the legs' collapsed ends: polygons without area, no smoothing
    // group), which glTF gives a stand-in.
    for (t, f) in mesh.faces.iter().enumerate() {
        for c in (0..3).filter(|&c| cn[t][c] != [0.0; 3]) {
            let (gq, gn) = (yup(p[f.v[c] as usize]), yup(cn[t][c]));
            if !streams
                .positions
                .iter()
                .zip(&streams.normals)
                .any(|(x, m)| dist(x.map(f64::from), gq) < tol && dist(m.map(f64::from), gn) < 1e-5)
            {
                gltf_off += 1;
            }
        }
    }
    eprintln!(
        "Table: 258 cached polygons matched, vertex sets within {worst:.2e}; \
         of {corners} FBX corners ({skipped} at shared positions left out), \
         off by more than {NORMAL_TOL}: {} on the top (worst {worst_top:.2e}), \
         {} on the legs (worst of the others {worst_legs:.2e}); \
         {gltf_off} of our corners without their glTF vertex",
        off[1], off[0]
    );
    eprintln!(
        "Table legs: {legs} FBX corners: {legs_spec} stored explicit normals \
         ({} explicit corners stored), {legs_faceted} faceted, of which \
         {explicit_not_shown} have an explicit normal stored",
        spec_corners.len()
    );
    assert!(legs > 0 && legs_spec > 0);
    assert_eq!(legs, legs_spec + legs_faceted, "leg corners unexplained");
    assert_eq!(off[1], 0, "top corners off by more than {NORMAL_TOL}");
    assert!(worst_top < 1e-4, "top corner normal off by {worst_top}");
    // The legs: every corner within NORMAL_TOL but 66 where this matcher (by
    // position and nearest plane) takes an unspecified corner for a
    // specified one: at those vertices a specified and an unspecified
    // polygon lie in one plane. Matched by index (the next test) every
    // corner is the FBX's. Counted so the test notices a change.
    assert_eq!(off[0], explicit_not_shown, "leg corners off otherwise");
    assert_eq!(explicit_not_shown, 66);
    assert_eq!(gltf_off, 0, "corners the glTF does not hold");
}

/// Table.max's texture coordinates: the Unwrap UVW on top replaces channel 1
/// (so the Chamfer Edge's underived map faces below it no longer matter), its
/// stored polygons over the vertex indices our Symmetry now numbers as Max
/// does. Checked against the FBX corner for corner: each FBX triangle lies in
/// the polygon of ours holding its three vertices (the FBX keeps Max's vertex
/// order), and each of its corners' UV is the one our triangles of that
/// polygon carry at the same vertex. The glTF's TEXCOORD_0 carries the same.
#[test]
fn table_uvs_match_fbx_corner_for_corner() {
    let eval = corpus_eval("max/max2024-rico/Table.max");
    let o = node(&eval, "Table");
    let mesh = eval
        .mesh(o, 0)
        .expect("a mesh object")
        .unwrap_or_else(|e| panic!("Table: {e}"));
    assert!(
        mesh.missing_maps.is_empty(),
        "channels named missing: {:?}",
        mesh.missing_maps
            .iter()
            .map(|m| m.describe())
            .collect::<Vec<_>>()
    );
    let ch = mesh
        .maps
        .iter()
        .find(|c| c.channel == 1)
        .expect("channel 1 from the Unwrap UVW");
    let poly = maxfs_scene::eval::modifier::edit_poly_output(&eval, o, 1, 0)
        .unwrap_or_else(|e| panic!("Table's upper Edit Poly: {e}"));
    // Our triangles come polygon by polygon, deg − 2 each.
    let mut first = Vec::with_capacity(poly.faces.len() + 1);
    first.push(0usize);
    for f in &poly.faces {
        first.push(first.last().expect("pushed") + f.v.len() - 2);
    }
    assert_eq!(first.last().copied(), Some(mesh.faces.len()));
    let uv_at = |p: usize, v: u32| -> Option<[f64; 2]> {
        (first[p]..first[p + 1]).find_map(|t| {
            let c = mesh.faces[t].v.iter().position(|&x| x == v)?;
            let tv = ch.vertices[ch.faces[t][c] as usize];
            Some([f64::from(tv[0]), f64::from(tv[1])])
        })
    };
    let scene = table_fbx();
    let fm = table_fbx_mesh(&scene);
    assert!(fm.vertex_uv.exists);
    assert_eq!(fm.num_vertices, mesh.vertices.len());
    // Our corner normals as the exporters take them (the specified normal
    // where a corner has one, else the smoothing groups').
    let p: Vec<P3> = mesh.vertices.iter().map(|v| v.to_array()).collect();
    let weighting = normals::Weighting::of_scene_version(eval.graph.version);
    let mut cn = normals::corner_normals(&p, &mesh.faces, weighting);
    let spec = normals::specified_corners(&p, &mesh).expect("the Attaches' specified normals");
    for (out, s) in cn.iter_mut().zip(&spec) {
        for (n, s) in out.iter_mut().zip(s) {
            if let Some(s) = s {
                *n = *s;
            }
        }
    }
    let normal_at = |p: usize, v: u32| -> Option<P3> {
        (first[p]..first[p + 1]).find_map(|t| {
            let c = mesh.faces[t].v.iter().position(|&x| x == v)?;
            Some(cn[t][c])
        })
    };
    // A polygon without area (the legs' collapsed ends) has no normal of
    // its own: the FBX writes (1, 0, 0) there; left out of the comparison.
    let area = |pf: &maxfs_scene::eval::objects::poly::PolyFace| {
        let q: Vec<P3> = pf.v.iter().map(|&x| p[x as usize]).collect();
        let mut n = [0.0f64; 3];
        for i in 0..q.len() {
            let (a, b) = (q[i], q[(i + 1) % q.len()]);
            n[0] += (a[1] - b[1]) * (a[2] + b[2]);
            n[1] += (a[2] - b[2]) * (a[0] + b[0]);
            n[2] += (a[0] - b[0]) * (a[1] + b[1]);
        }
        dist(n, [0.0; 3]) > 1e-9
    };
    let (mut normal_corners, mut normal_worst, mut flat) = (0usize, 0.0f64, 0usize);
    let (mut no_area_tri, mut no_area_worst) = (0usize, 0.0f64);
    let (mut corners, mut matched, mut worst) = (0usize, 0usize, 0.0f64);
    for f in fm.faces.iter() {
        let idx: Vec<usize> = (f.index_begin..f.index_begin + f.num_indices)
            .map(|i| i as usize)
            .collect();
        let v: Vec<u32> = idx.iter().map(|&i| fm.vertex_indices[i]).collect();
        // The polygon of ours running through the triangle's three vertices
        // in order.
        let forward = |p: &[u32]| {
            let at: Option<Vec<usize>> = v.iter().map(|x| p.iter().position(|y| y == x)).collect();
            at.is_some_and(|a| {
                (0..a.len())
                    .filter(|&k| a[k] < a[(k + 1) % a.len()])
                    .count()
                    == a.len() - 1
            })
        };
        let p_of = poly.faces.iter().position(|pf| forward(&pf.v));
        for (k, &i) in idx.iter().enumerate() {
            corners += 1;
            let Some(ours) = p_of.and_then(|p| uv_at(p, v[k])) else {
                continue;
            };
            let theirs = fm.vertex_uv[i];
            let d = (ours[0] - theirs.x).hypot(ours[1] - theirs.y);
            worst = worst.max(d);
            matched += 1;
            let pi = p_of.expect("matched");
            if !area(&poly.faces[pi]) {
                flat += 1;
                continue;
            }
            let n = fm.vertex_normal[i];
            let ours = normal_at(pi, v[k]).expect("a corner of ours");
            // A corner whose only triangles of ours have no area (the
            // chamfer's slid corners lie on their sides' far ends; Max's
            // diagonals give them triangles with area) takes the polygon's
            // normal (normals.rs): counted, and compared as the others.
            if (first[pi]..first[pi + 1]).all(|t| {
                let f = &mesh.faces[t];
                !f.v.contains(&v[k]) || {
                    let [a, b, c] = f.v.map(|x| p[x as usize]);
                    let (u, w) = (
                        [0, 1, 2].map(|i| b[i] - a[i]),
                        [0, 1, 2].map(|i| c[i] - a[i]),
                    );
                    let cr = [
                        u[1] * w[2] - u[2] * w[1],
                        u[2] * w[0] - u[0] * w[2],
                        u[0] * w[1] - u[1] * w[0],
                    ];
                    cr == [0.0; 3]
                }
            }) {
                no_area_tri += 1;
                no_area_worst = no_area_worst.max(dist(ours, [n.x, n.y, n.z]));
            }
            normal_worst = normal_worst.max(dist(ours, [n.x, n.y, n.z]));
            normal_corners += 1;
        }
    }
    // The glTF vertices: each corner of ours is one (Y-up position, UV with
    // v turned to glTF's top-left origin).
    let streams = maxfs_exporters::gltf::geometry::streams(
        &mesh,
        &maxfs_scene::eval::Mat43::IDENTITY,
        normals::Weighting::of_scene_version(eval.graph.version),
    );
    let uv0 = streams.uvs.first().expect("TEXCOORD_0");
    let mut gltf_off = 0;
    for (f, tf) in mesh.faces.iter().zip(&ch.faces) {
        for (&v, &t) in f.v.iter().zip(tf) {
            let q = mesh.vertices[v as usize].to_array();
            let q = [q[0], q[2], -q[1]];
            let uv = ch.vertices[t as usize];
            let hit = streams.positions.iter().zip(uv0).any(|(x, u)| {
                dist(x.map(f64::from), q) < 1e-4
                    && (f64::from(u[0]) - f64::from(uv[0])).abs() < 1e-6
                    && (f64::from(u[1]) - (1.0 - f64::from(uv[1]))).abs() < 1e-6
            });
            gltf_off += usize::from(!hit);
        }
    }
    eprintln!(
        "Table UVs: {matched} of {corners} FBX corners matched by polygon and vertex, \
         worst UV error {worst:.2e}; {gltf_off} of our corners without their glTF vertex; \
         normals at {normal_corners} corners, worst {normal_worst:.2e} ({flat} on polygons \
         without area left out; {no_area_tri} on our triangles without area only, worst \
         {no_area_worst:.2e})"
    );
    // Matched by index, every corner normal is the FBX's, the legs'
    // specified ones included (matched by position and plane, 66 corners
    // where a specified and an unspecified polygon lie in one plane at one
    // vertex were taken for each other: see the test above).
    assert!(normal_worst < 1e-4, "corner normal off by {normal_worst}");
    assert_eq!(normal_corners + flat, corners);
    // Among them the slid corner of 2 of the chamfer's 4 octagons (the
    // other two fan from it), met by 3 FBX triangles each.
    assert_eq!(no_area_tri, 6, "corners on our triangles without area only");
    assert!(no_area_worst < 1e-6, "their normals off by {no_area_worst}");
    assert_eq!(corners, fm.num_indices);
    assert_eq!(
        matched, corners,
        "FBX corners without a polygon corner of ours"
    );
    assert!(worst < 1e-5, "UV off by {worst}");
    assert_eq!(gltf_off, 0);
}

/// Sword.max's Line001 (Line → Extrude → Edit Poly): the polygon mesh the
/// Edit Poly receives from the Extrude is its triangle mesh joined across
/// hidden edges — one quad per side segment, one polygon per cap — as Max's
/// own records of the Edit Poly say: its Extrude Face (operation 1, after a
/// Transform with no offsets) saved a face selection of 77 (75 side quads and
/// 2 caps, not the 296 triangles), selecting faces 60–73, a strip of 14 side
/// quads whose outline has 30 vertices, and the Weld Vertex after it saved
/// vertex selections of 180 = 150 + 30.
#[test]
fn sword_extrude_reaches_edit_poly_as_polygons() {
    let eval = corpus_eval("max/prims-greejesh/Sword.max");
    let o = node(&eval, "Line001");
    let sel =
        |k| maxfs_scene::eval::modifier::edit_poly_operation_selection(&eval, o, 0, k).expect("op");
    assert!(sel(0).0.contains("Transform"), "{}", sel(0).0);
    let (name, faces) = sel(1);
    assert!(name.contains("Extrude Face"), "{name}");
    let (weld, verts) = sel(2);
    assert!(weld.contains("Weld Vertex"), "{weld}");
    assert_eq!((faces, verts), (77, 180));
    let poly = maxfs_scene::eval::modifier::edit_poly_output_after(&eval, o, 0, 0, 1)
        .unwrap_or_else(|e| panic!("Line001's Edit Poly input: {e}"));
    assert_eq!(poly.faces.len(), faces);
    // The 14 selected faces (60–73) are side quads; their outline's
    // vertices are the 30 the extrusion adds.
    let strip: Vec<&[u32]> = (60..74).map(|f| poly.faces[f].v.as_slice()).collect();
    assert!(strip.iter().all(|f| f.len() == 4));
    let mut edges = std::collections::HashMap::new();
    for f in &strip {
        for k in 0..4 {
            let (a, b) = (f[k], f[(k + 1) % 4]);
            *edges.entry((a.min(b), a.max(b))).or_insert(0) += 1;
        }
    }
    let mut outline: Vec<u32> = edges
        .iter()
        .filter(|(_, &n)| n == 1)
        .flat_map(|(&(a, b), _)| [a, b])
        .collect();
    outline.sort_unstable();
    outline.dedup();
    assert_eq!(poly.vertices.len() + outline.len(), verts);
    // Two caps of 75 corners, a quad per side segment; a closed surface.
    let mut degrees: Vec<usize> = poly.faces.iter().map(|f| f.v.len()).collect();
    degrees.sort_unstable();
    assert_eq!(degrees[..75], [4; 75]);
    assert_eq!(degrees[75..], [75, 75]);
    assert_eq!(poly.walked_edges().len(), 225);
    // The group extrusion and the rest replay (eval_edit_poly_group.rs).
    assert!(eval.mesh(o, 0).expect("a mesh object").is_ok());
}

/// The same-scene FBX 3ds Max saved of Table.max.
fn table_fbx() -> ufbx::SceneRoot {
    ufbx::load_file(
        corpus_dir()
            .join("ref/max2024-rico/Table.fbx")
            .to_str()
            .expect("path"),
        ufbx::LoadOpts::default(),
    )
    .expect("FBX loads")
}

/// The FBX's mesh of the node "Table".
fn table_fbx_mesh(scene: &ufbx::Scene) -> &ufbx::Mesh {
    scene
        .nodes
        .iter()
        .find(|n| n.element.name.as_ref() == "Table")
        .and_then(|n| n.mesh.as_deref())
        .expect("FBX mesh")
}
