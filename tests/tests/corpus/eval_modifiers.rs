//! Gizmo-placed modifiers on the corpus: UVW Map (planar), Mirror and Symmetry.
//! No export of these nodes made by Max exists, so each result is checked against
//! what the modifier must do by definition: hand-computed planar coordinates, an
//! affine map of the right scale, a reflection through one plane, a mesh
//! symmetric about its plane with a welded seam.

use maxfs_scene::eval::core::math::{Mat43, Vec3};
use maxfs_scene::eval::modifier::{self, ModContext};
use maxfs_scene::eval::objects::mesh::{MapChannel, Mesh};
use maxfs_scene::eval::{objects::primitive, SceneEval};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;

/// The base mesh of `node` and the mesh after its stack (Skin left out, as the
/// NeL export does), with the names of the modifiers applied, bottom first.
fn evaluate(file: &str, node: &str) -> (Mesh, Mesh, Vec<String>) {
    with_eval(file, node, evaluate_in)
}

/// `evaluate` on node `idx` of `eval`.
fn evaluate_in(eval: &SceneEval, idx: usize) -> (Mesh, Mesh, Vec<String>) {
    let base = eval
        .base_mesh(idx)
        .expect("mesh object")
        .expect("base mesh");
    let (stack, _) = eval.modifier_stack(idx).expect("stack");
    let cx = ModContext {
        eval,
        node: Some(idx),
        t: 0,
        max_order: true,
        stand_ins: true,
        object: None,
    };
    let base = Mesh::clone(&base);
    let mut mesh = base.clone();
    let mut names = Vec::new();
    for m in stack.iter().rev().filter(|m| m.name != "Skin") {
        modifier::apply(m, &mut mesh, &cx).unwrap_or_else(|e| panic!("node {idx}: {e}"));
        names.push(m.name.to_string());
    }
    (base, mesh, names)
}

fn with_eval<R>(file: &str, node: &str, f: impl FnOnce(&SceneEval, usize) -> R) -> R {
    let doc = Document::open(&corpus_dir().join("max").join(file)).expect("opens");
    let eval = SceneEval::from_document(doc).expect("scene");
    let graph = &*eval.graph;
    let idx = graph
        .objects
        .iter()
        .position(|o| o.node.as_ref().is_some_and(|n| n.name == node))
        .unwrap_or_else(|| panic!("no node {node}"));
    f(&eval, idx)
}

fn channel(m: &Mesh, c: i32) -> &MapChannel {
    m.maps.iter().find(|x| x.channel == c).expect("map channel")
}

/// UVW Map's old ParamBlock (reference 1 of the modifier), bottom modifier first.
fn uvw_params(file: &str, node: &str) -> Vec<primitive::Params> {
    with_eval(file, node, |eval, idx| {
        let (stack, _) = eval.modifier_stack(idx).expect("stack");
        stack
            .iter()
            .rev()
            .map(|m| {
                let pb =
                    maxfs_scene::eval::core::pblock::reference(&eval.graph, m.object, 1).unwrap();
                primitive::block_params(eval, pb, 0).unwrap()
            })
            .collect()
    })
}

#[test]
fn planar_uvw_map_by_hand_on_nebula2_box01() {
    let (base, mesh, names) = evaluate("nebula2/example.max", "Box01");
    assert_eq!(names, ["UVW Map", "UVW Map"]);
    // The Editable Poly keeps its own channel 1, which the lower UVW Map replaces.
    assert_eq!(base.maps.iter().map(|c| c.channel).collect::<Vec<_>>(), [1]);
    assert_eq!(mesh.vertices, base.vertices);
    // Lower map: channel 1, tile 1; upper: channel 2, tile 5. Both are planar,
    // 96.32 wide (x) and 89.51 long (y), the gizmo centred on the object and
    // unturned: u = tile·(½ + x/width), v = tile·(½ + y/length).
    let p = uvw_params("nebula2/example.max", "Box01");
    let mut checked = 0;
    for (params, ch, tile) in [(&p[0], 1i32, 1.0), (&p[1], 2, 5.0)] {
        assert_eq!(params.int_or(0, -1), 0, "planar");
        assert_eq!(params.int_or(13, -1), i64::from(ch));
        assert_eq!(params.float(1).unwrap(), tile);
        let (length, width) = (params.float(9).unwrap(), params.float(10).unwrap());
        assert!((width - 96.3204).abs() < 1e-3 && (length - 89.5096).abs() < 1e-3);
        let map = channel(&mesh, ch);
        assert_eq!(map.vertices.len(), mesh.vertices.len());
        assert_eq!(
            map.faces,
            mesh.faces.iter().map(|f| f.v).collect::<Vec<_>>()
        );
        for (v, t) in mesh.vertices.iter().zip(&map.vertices) {
            let u = tile * (0.5 + v.0 / width);
            let w = tile * (0.5 + v.1 / length);
            assert!((f64::from(t[0]) - u).abs() < 1e-5, "{v:?} {t:?}");
            assert!((f64::from(t[1]) - w).abs() < 1e-5, "{v:?} {t:?}");
            assert_eq!(t[2], 0.0);
            checked += 1;
        }
    }
    assert_eq!(checked, 2 * 72);
    // Vertex 1 (−28.86724, −44.71009) by hand.
    let t1 = channel(&mesh, 1).vertices[1];
    let t2 = channel(&mesh, 2).vertices[1];
    assert!((t1[0] - 0.200_299_8).abs() < 1e-5 && (t1[1] - 0.000_499_7).abs() < 1e-5);
    assert!((t2[0] - 1.001_499).abs() < 1e-5 && (t2[1] - 0.002_498_5).abs() < 1e-5);
}

/// Least-squares affine fit uv ≈ a·p + b over all vertices: the gradient `a`
/// and the largest residual.
fn affine_fit(points: &[Vec3], values: &[f64]) -> (Vec3, f64) {
    let n = points.len() as f64;
    let mean = points
        .iter()
        .fold(Vec3::default(), |s, &p| s.plus(p))
        .scale(1.0 / n);
    let mv = values.iter().sum::<f64>() / n;
    // Normal equations on centred data: C·a = r.
    let mut c = [[0.0; 3]; 3];
    let mut r = [0.0; 3];
    for (p, &v) in points.iter().zip(values) {
        let d = p.minus(mean).to_array();
        for i in 0..3 {
            r[i] += d[i] * (v - mv);
            for j in 0..3 {
                c[i][j] += d[i] * d[j];
            }
        }
    }
    // A flat mesh leaves one direction free: regularise it away.
    for (i, row) in c.iter_mut().enumerate() {
        row[i] += 1e-9;
    }
    let m = Mat43([
        Vec3(c[0][0], c[0][1], c[0][2]),
        Vec3(c[1][0], c[1][1], c[1][2]),
        Vec3(c[2][0], c[2][1], c[2][2]),
        Vec3::default(),
    ]);
    let a = maxfs_scene::eval::core::transform::invert(&m).transform_vector(Vec3(r[0], r[1], r[2]));
    let worst = points
        .iter()
        .zip(values)
        .map(|(p, &v)| (a.dot(p.minus(mean)) + mv - v).abs())
        .fold(0.0, f64::max);
    (a, worst)
}

#[test]
fn planar_uvw_maps_are_affine_at_the_gizmo_scale_on_roof_merge() {
    let file = "compressed/roof_merge_M8.max";
    let mut checked = 0;
    for node in ["Z-RB3-ESTILE-SOURCE", "Z-RB3-STILE-SOURCE"] {
        let (_, mesh, names) = evaluate(file, node);
        assert_eq!(names, ["UVW Map", "UVW Map"]);
        for params in uvw_params(file, node) {
            assert_eq!(params.int_or(0, -1), 0, "planar");
            let ch = params.int_or(13, -1) as i32;
            let map = channel(&mesh, ch);
            assert_eq!(map.faces.len(), mesh.faces.len());
            let (length, width) = (params.float(9).unwrap(), params.float(10).unwrap());
            let (ut, vt) = (params.float(1).unwrap(), params.float(2).unwrap());
            let u: Vec<f64> = map.vertices.iter().map(|t| f64::from(t[0])).collect();
            let v: Vec<f64> = map.vertices.iter().map(|t| f64::from(t[1])).collect();
            let (gu, ru) = affine_fit(&mesh.vertices, &u);
            let (gv, rv) = affine_fit(&mesh.vertices, &v);
            // An unscaled gizmo: |∇u| = tile/width, |∇v| = tile/length, ∇u ⊥ ∇v.
            assert!(
                ru < 1e-4 && rv < 1e-4,
                "{node} ch {ch}: residuals {ru} {rv}"
            );
            assert!(
                (gu.len() - ut / width).abs() < 1e-6,
                "{node} {gu:?} {width}"
            );
            assert!(
                (gv.len() - vt / length).abs() < 1e-6,
                "{node} {gv:?} {length}"
            );
            assert!(gu.normalized().dot(gv.normalized()).abs() < 1e-4);
            assert!(map.vertices.iter().all(|t| t[2] == 0.0));
            checked += map.vertices.len();
        }
    }
    assert_eq!(checked, 2 * (2402 + 1606));
}

/// Normal of face `f` (not normalised).
fn normal(m: &Mesh, f: usize) -> Vec3 {
    let [a, b, c] = m.faces[f].v.map(|i| m.vertices[i as usize]);
    b.minus(a).cross(c.minus(a))
}

#[test]
fn mirror_with_copy_on_ld33_box002() {
    let (base, mesh, names) = evaluate("cat/LD33_Character.max", "Box002");
    assert_eq!(names, ["Mirror"]);
    let (n, nf) = (base.vertices.len(), base.faces.len());
    assert_eq!((n, nf), (158, 292));
    // Copy keeps the original and appends one reflected clone per vertex and face.
    assert_eq!(mesh.vertices.len(), 2 * n);
    assert_eq!(mesh.faces.len(), 2 * nf);
    assert_eq!(&mesh.vertices[..n], &base.vertices[..]);
    // Every clone is the reflection of its original through one plane: all the
    // differences are parallel (the plane normal) and all the midpoints lie on
    // the plane. The mirror axis is X, its gizmo at the object's origin.
    let axis = Vec3(1.0, 0.0, 0.0);
    for (p, q) in base.vertices.iter().zip(&mesh.vertices[n..]) {
        let d = q.minus(*p);
        assert!(d.cross(axis).len() < 1e-5, "{p:?} → {q:?}");
        assert!(
            p.plus(*q).scale(0.5).dot(axis).abs() < 1e-5,
            "{p:?} → {q:?}"
        );
    }
    // Vertices in the plane (x = 0) map onto themselves.
    let on_plane = base.vertices.iter().filter(|p| p.0 == 0.0).count();
    assert!(on_plane > 0);
    for (f, g) in base.faces.iter().zip(&mesh.faces[nf..]) {
        let mut a = f.v.map(|v| v + n as u32);
        let mut b = g.v;
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        assert_eq!((f.material, f.smoothing), (g.material, g.smoothing));
    }
    // One-axis mirrors turn the clones over, so they still face outwards: the
    // clone's normal is the reflected normal of the original.
    for f in 0..nf {
        let o = normal(&mesh, f);
        let reflected = Vec3(-o.0, o.1, o.2);
        let c = normal(&mesh, nf + f);
        if o.len() > 1e-9 {
            assert!(c.dot(reflected) > 0.0, "face {f}");
            assert!(c.minus(reflected).len() < 1e-6 * (1.0 + o.len()));
        }
    }
}

/// The Symmetry plane of `node`'s modifier in object space, from its gizmo
/// controller (reference 1) and the ModApp's mod-context TM: normal N (the
/// gizmo's axis) and offset N·origin.
fn symmetry_plane(file: &str, node: &str) -> (Vec3, f64) {
    with_eval(file, node, |eval, idx| {
        let (stack, _) = eval.modifier_stack(idx).unwrap();
        let m = stack.iter().find(|m| m.name == "Symmetry").unwrap();
        let ctl = maxfs_scene::eval::core::pblock::reference(&eval.graph, m.object, 1).unwrap();
        let g = eval.prs_tm(ctl, 0).expect("PRS gizmo");
        let tm = m
            .mod_app
            .unwrap()
            .children()
            .iter()
            .find(|c| c.id == 0x2510)
            .and_then(|c| c.payload())
            .unwrap();
        let f = |i: usize| f64::from(f32::from_le_bytes(tm[4 * i..4 * i + 4].try_into().unwrap()));
        let row = |r: usize| Vec3(f(3 * r), f(3 * r + 1), f(3 * r + 2));
        let mc = Mat43([row(0), row(1), row(2), row(3)]);
        let to_object = g.then(&maxfs_scene::eval::core::transform::invert(&mc));
        let n = to_object.transform_vector(Vec3(1.0, 0.0, 0.0)).normalized();
        (n, n.dot(to_object.0[3]))
    })
}

#[test]
fn symmetry_on_sean_conway_head_and_torso() {
    let file = "biped/SeanConway_Character.max";
    for node in ["Head", "Torso"] {
        let (base, mesh, names) = evaluate(file, node);
        assert_eq!(names, ["Symmetry"]);
        let (n, off) = symmetry_plane(file, node);
        let d = |p: Vec3| n.dot(p) - off;
        let reflect = |p: Vec3| p.minus(n.scale(2.0 * d(p)));
        let scale = mesh.vertices.iter().map(|p| p.len()).fold(1.0, f64::max);
        let tol = 1e-5 * scale;
        // Symmetric: every vertex's reflection is a vertex.
        for p in &mesh.vertices {
            let r = reflect(*p);
            assert!(
                mesh.vertices.iter().any(|q| q.minus(r).len() <= tol),
                "{node}: {p:?} has no mirror image"
            );
        }
        // Faces come in mirrored pairs.
        assert_eq!(mesh.faces.len() % 2, 0);
        // The kept side holds nothing from the sliced side: every vertex above
        // the plane is a vertex of the base mesh above it, or a cut point on it.
        for p in mesh.vertices.iter().filter(|p| d(**p) > 1e-4) {
            assert!(
                base.vertices.iter().any(|q| q.minus(*p).len() <= tol),
                "{node}: {p:?} is not a base vertex"
            );
        }
        // The seam is welded: no two vertices on open edges within the 0.1
        // threshold of the plane lie within it of each other (MNMesh::WeldBorderVerts
        // welds border vertices only, so a closed vertex near the plane stays).
        let mut edge_use = std::collections::HashMap::new();
        for f in &mesh.faces {
            for k in 0..3 {
                let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
                *edge_use.entry((a.min(b), a.max(b))).or_insert(0) += 1;
            }
        }
        let mut border = vec![false; mesh.vertices.len()];
        for (&(a, b), &c) in &edge_use {
            if c == 1 {
                border[a as usize] = true;
                border[b as usize] = true;
            }
        }
        let seam = mesh
            .vertices
            .iter()
            .enumerate()
            .filter(|&(i, p)| d(*p).abs() < 1e-4 && !border[i])
            .count();
        assert!(seam >= 4, "{node}: {seam} seam vertices");
        let open: Vec<Vec3> = (0..mesh.vertices.len())
            .filter(|&i| border[i] && d(mesh.vertices[i]).abs() <= 0.1)
            .map(|i| mesh.vertices[i])
            .collect();
        for (i, p) in open.iter().enumerate() {
            for q in &open[i + 1..] {
                assert!(q.minus(*p).len() > 0.1, "{node}: unwelded {p:?} {q:?}");
            }
        }
        // 3ds Max's own count: the Skin above the Symmetry stores one weight
        // list per vertex of the mesh it was applied to (Head 140, Torso 169).
        let skin = with_eval(file, node, |eval, idx| {
            maxfs_scene::eval::modifier::skin::node_skin(eval, idx)
                .expect("Skin")
                .expect("decodes")
                .vertices
                .len()
        });
        assert_eq!(mesh.vertices.len(), skin, "{node}: vertices vs Skin's");
        // Each seam edge is shared by a face on each side: no open seam.
        let on = |v: u32| d(mesh.vertices[v as usize]).abs() < 1e-4;
        let open_seam = edge_use
            .iter()
            .filter(|((a, b), &c)| on(*a) && on(*b) && c == 1)
            .count();
        assert_eq!(open_seam, 0, "{node}");
    }
}

/// A deformer or mapping above a Mesh Select acts on the selection it passes
/// up; meshes carry no selection, so a deformer's stack is refused, naming
/// both, instead of deforming every vertex, and a mapping's channel is left
/// out (named) with the geometry kept.
#[test]
fn selection_sensitive_modifiers_above_a_mesh_select_are_refused() {
    use maxfs_scene::eval::modifier::{Applied, BEND, UVW_MAP};
    use maxfs_scene::typed::ClassId;
    let doc = Document::open(&corpus_dir().join("max/ryzomcore/street.max")).expect("corpus file");
    let eval = SceneEval::from_document(doc).expect("scene");
    let cx = ModContext {
        eval: &eval,
        node: None,
        t: 0,
        max_order: true,
        stand_ins: true,
        object: None,
    };
    let select = Applied {
        object: 0,
        class: ClassId(0x73d8ff93, 0),
        name: "Mesh Select",
        mod_app: None,
    };
    let bend = Applied {
        object: 0,
        class: BEND,
        name: "Bend",
        mod_app: None,
    };
    let mut mesh = Mesh::default();
    let err = modifier::apply_stack(&[bend, select], &mut mesh, &cx)
        .expect_err("refused above a selection");
    assert!(
        err.to_string().contains("Bend") && err.to_string().contains("Mesh Select"),
        "{err}"
    );
    // A mapping only costs its channel: the geometry stays, the refusal is
    // recorded as the channel left out (modifier/uv_only.rs).
    let uvw = Applied {
        object: 0,
        class: UVW_MAP,
        name: "UVW Map",
        mod_app: None,
    };
    let mut mesh = Mesh::default();
    modifier::apply_stack(&[uvw, select], &mut mesh, &cx).expect("geometry kept");
    let [missing] = &mesh.missing_maps[..] else {
        panic!("one channel left out: {:?}", mesh.missing_maps)
    };
    assert_eq!(missing.modifier, "UVW Map");
    assert!(missing.reason.contains("Mesh Select"), "{missing:?}");
    // The selection alone changes nothing and is accepted.
    let mut mesh = Mesh::default();
    modifier::apply_stack(&[select], &mut mesh, &cx).expect("selection only");
}

/// A Symmetry's weld threshold of 0 welds nothing, not even the pairs that
/// meet on the plane: the tenth sweep's Headphones1.max (Editable Poly →
/// Symmetry, weld on, threshold 0) has 1,078 vertices in Max's Mesh Totals and
/// in the authors' FBX, twice its sliced half's 539, its 14 seam pairs apart
/// (docs/unseen-files.md). Sean Conway's Head with its threshold set to 0:
/// Max's own count at 0.1 is the Skin's 140 (every seam vertex welded), so at
/// 0 each seam vertex is two, at the same point.
#[test]
fn a_symmetry_threshold_of_zero_welds_no_seam_pair() {
    let file = "biped/SeanConway_Character.max";
    let node = "Head";
    let (n, off) = symmetry_plane(file, node);
    let d = |p: Vec3| n.dot(p) - off;
    let (_, welded, _) = evaluate(file, node);
    assert_eq!(welded.vertices.len(), 140, "Max's count (the Skin's)");
    let seam = welded
        .vertices
        .iter()
        .filter(|p| d(**p).abs() < 1e-4)
        .count();
    assert!(seam >= 4, "{seam} seam vertices");
    let pb = with_eval(file, node, |eval, idx| {
        let (stack, _) = eval.modifier_stack(idx).unwrap();
        let m = stack.iter().find(|m| m.name == "Symmetry").unwrap();
        maxfs_scene::eval::core::pblock::reference(&eval.graph, m.object, 0).unwrap()
    });
    let mut e = maxfs_tests::rewrite::SceneEdit::open(&format!("max/{file}"));
    let node_idx = e.node(node);
    e.set_pb2_constant(pb, 3, &0f32.to_le_bytes());
    let eval = SceneEval::from_document(e.finish()).expect("edited scene");
    let (_, mesh, _) = evaluate_in(&eval, node_idx);
    assert_eq!(mesh.vertices.len(), 140 + seam);
    let on: Vec<Vec3> = mesh
        .vertices
        .iter()
        .copied()
        .filter(|p| d(*p).abs() < 1e-4)
        .collect();
    assert_eq!(on.len(), 2 * seam);
    for p in &on {
        let same = on.iter().filter(|q| q.minus(*p).len() < 1e-6).count();
        assert_eq!(same, 2, "{p:?}: a seam vertex and its copy, unwelded");
    }
}
