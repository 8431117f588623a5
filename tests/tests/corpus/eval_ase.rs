//! Node transforms and animation against 3ds Max's own ASCII export (.ASE) of the
//! same files; the ASE prints 4 decimals, so values are compared to that precision.

use maxfs_scene::eval::core::transform::invert;
use maxfs_scene::eval::{Mat43, Quat, SceneEval, Vec3};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;

/// One `*NODE_TM` block: node name and the four matrix rows.
#[derive(Debug)]
struct AseTm {
    name: String,
    rows: [[f64; 3]; 4],
}

fn floats(line: &str) -> Vec<f64> {
    line.split_whitespace()
        .skip(1)
        .filter_map(|w| w.parse().ok())
        .collect()
}

fn parse_tms(text: &str) -> Vec<AseTm> {
    let mut out = Vec::new();
    let mut cur: Option<AseTm> = None;
    for line in text.lines().map(str::trim) {
        if line.starts_with("*NODE_TM") {
            cur = Some(AseTm {
                name: String::new(),
                rows: [[0.0; 3]; 4],
            });
        } else if let Some(tm) = cur.as_mut() {
            if let Some(n) = line.strip_prefix("*NODE_NAME ") {
                tm.name = n.trim_matches('"').to_string();
            }
            let mut done = false;
            for (k, tag) in ["*TM_ROW0", "*TM_ROW1", "*TM_ROW2", "*TM_ROW3"]
                .iter()
                .enumerate()
            {
                if line.starts_with(tag) {
                    let f = floats(line);
                    tm.rows[k] = [f[0], f[1], f[2]];
                    done = k == 3;
                }
            }
            if done {
                out.extend(cur.take());
            }
        }
    }
    out
}

fn close(a: &Mat43, b: &[[f64; 3]; 4], scale: f64) -> bool {
    let r = a.rows();
    (0..4).all(|i| (0..3).all(|j| (r[i][j] - b[i][j]).abs() <= 6e-5 * scale.max(1.0)))
}

fn check(max: &str, ase: &str) {
    let corpus = corpus_dir();
    let doc = Document::open(&corpus.join(max)).expect("max opens");
    let eval = SceneEval::from_document(doc).expect("scene");
    let graph = &*eval.graph;
    let text = std::fs::read_to_string(corpus.join(ase)).expect("ase");
    let tms = parse_tms(&text);
    assert!(!tms.is_empty());
    let mut bad = Vec::new();
    for tm in &tms {
        let Some((o, _)) = graph.nodes().find(|(_, n)| n.name == tm.name) else {
            bad.push(format!("{}: no such node", tm.name));
            continue;
        };
        let w = eval.world_tm(o.index, 0);
        let scale = tm.rows[3].iter().fold(1.0f64, |m, v| m.max(v.abs()));
        if !close(&w, &tm.rows, scale) {
            bad.push(format!(
                "{}: ours {:?} ase {:?}",
                tm.name,
                w.rows(),
                tm.rows
            ));
        }
    }
    assert!(bad.is_empty(), "{max}:\n{}", bad.join("\n"));
}

/// Per-node samples of `*TM_ANIMATION`: (ticks, values) for position and rotation.
#[derive(Debug, Default)]
struct AseAnim {
    name: String,
    pos: Vec<(i32, [f64; 3])>,
    /// Axis-angle rotation since the previous sample (the first is absolute).
    rot: Vec<(i32, [f64; 4])>,
}

fn parse_anims(text: &str) -> Vec<AseAnim> {
    let mut out = Vec::new();
    let mut cur: Option<AseAnim> = None;
    for line in text.lines().map(str::trim) {
        if line.starts_with("*TM_ANIMATION") {
            out.extend(cur.take());
            cur = Some(AseAnim::default());
        } else if let Some(a) = cur.as_mut() {
            if let Some(n) = line.strip_prefix("*NODE_NAME ") {
                a.name = n.trim_matches('"').to_string();
            } else if line.starts_with("*CONTROL_POS_SAMPLE") {
                let f = floats(line);
                a.pos.push((f[0] as i32, [f[1], f[2], f[3]]));
            } else if line.starts_with("*CONTROL_ROT_SAMPLE") {
                let f = floats(line);
                a.rot.push((f[0] as i32, [f[1], f[2], f[3], f[4]]));
            }
        }
    }
    out.extend(cur);
    out
}

/// The 3×3 part of `m` with unit rows (scale removed), translation dropped.
fn unit_rows(m: &Mat43) -> Mat43 {
    let r = m.rows();
    let n = |i: usize| {
        let l = (r[i][0] * r[i][0] + r[i][1] * r[i][1] + r[i][2] * r[i][2]).sqrt();
        Vec3(r[i][0] / l, r[i][1] / l, r[i][2] / l)
    };
    Mat43([n(0), n(1), n(2), Vec3::default()])
}

/// Angle of the rotation taking `a`'s 3×3 part to `b`'s (scale removed): zero
/// only when the two rotations are the same (axis and angle).
fn relative_angle(a: &Mat43, b: &Mat43) -> f64 {
    let (ra, rb) = (unit_rows(a).rows(), unit_rows(b).rows());
    // trace(ra^T rb) = sum of row dot products.
    let tr: f64 = (0..3)
        .map(|i| (0..3).map(|j| ra[i][j] * rb[i][j]).sum::<f64>())
        .sum();
    ((tr - 1.0) / 2.0).clamp(-1.0, 1.0).acos()
}

/// An ASE `*CONTROL_ROT_SAMPLE` (axis, angle) as a row-vector rotation. The
/// exporter writes Max's quaternion convention, the inverse of the node
/// rotation (docs/evaluation.md): the angle is negated. A relative sample
/// applies after the previous rotation (`previous · sample`).
fn ase_rotation(r: &[f64; 4]) -> Mat43 {
    Mat43::rotation(Quat::from_axis_angle(Vec3(r[0], r[1], r[2]), -r[3]))
}

fn check_anim(max: &str, ase: &str) -> usize {
    let corpus = corpus_dir();
    let doc = Document::open(&corpus.join(max)).expect("max opens");
    let eval = SceneEval::from_document(doc).expect("scene");
    let graph = &*eval.graph;
    let text = std::fs::read_to_string(corpus.join(ase)).expect("ase");
    let mut compared = 0;
    let mut bad = Vec::new();
    for a in parse_anims(&text) {
        let (o, _) = graph
            .nodes()
            .find(|(_, n)| n.name == a.name)
            .unwrap_or_else(|| panic!("{}: no node", a.name));
        for (t, p) in &a.pos {
            let ours = eval.local_tm(o.index, *t).0[3].to_array();
            compared += 1;
            if (0..3).any(|k| (ours[k] - p[k]).abs() > 6e-5 * p[k].abs().max(1.0)) {
                bad.push(format!("{} pos at {t}: ours {ours:?} ase {p:?}", a.name));
            }
        }
        // Full rotations, axis and angle (a sign error about any axis shows):
        // the first sample absolute, each later one relative to the previous.
        let at = |t: i32| unit_rows(&eval.local_tm(o.index, t));
        if let Some((t, r)) = a.rot.first() {
            let e = relative_angle(&at(*t), &ase_rotation(r));
            compared += 1;
            if e > 3e-4 {
                bad.push(format!("{} rotation at {t}: off by {e:.5} rad", a.name));
            }
        }
        for w in a.rot.windows(2) {
            let (t0, t1) = (w[0].0, w[1].0);
            let ours = invert(&at(t0)).then(&at(t1));
            let e = relative_angle(&ours, &ase_rotation(&w[1].1));
            compared += 1;
            if e > 1.5e-4 {
                bad.push(format!(
                    "{} rotation {t0}->{t1}: off by {e:.5} rad (ase axis {:?} angle {})",
                    a.name,
                    &w[1].1[..3],
                    w[1].1[3]
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{max}: {} of {compared} samples differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
    compared
}

#[test]
fn rotating_cube_animation() {
    let n = check_anim("max/assimp/RotatingCube.max", "ref/assimp/RotatingCube.ASE");
    assert!(n > 100);
}

#[test]
fn camera_roll_animation() {
    let n = check_anim(
        "max/assimp/CameraRollAnim.max",
        "ref/assimp/CameraRollAnim.ase",
    );
    assert!(n > 50);
}

#[test]
fn rotating_cube_node_tm() {
    check("max/assimp/RotatingCube.max", "ref/assimp/RotatingCube.ASE");
}

#[test]
fn camera_roll_anim_node_tm() {
    check(
        "max/assimp/CameraRollAnim.max",
        "ref/assimp/CameraRollAnim.ase",
    );
}

#[test]
fn views_list_transforms_and_keyed_channels() {
    let corpus = corpus_dir();
    let doc = Document::open(&corpus.join("max/assimp/RotatingCube.max")).expect("opens");
    let eval = SceneEval::from_document(doc).expect("scene");
    let nodes = maxfs_fs::views::scene_summary::node_transforms(&eval);
    let text = std::fs::read_to_string(corpus.join("ref/assimp/RotatingCube.ASE")).expect("ase");
    let ase = parse_tms(&text);
    let box01 = nodes.iter().find(|n| n.name == "Box01").expect("Box01");
    assert_eq!(box01.controller.as_deref(), Some("Position/Rotation/Scale"));
    let want = &ase
        .iter()
        .find(|t| t.name == "Box01")
        .expect("ase Box01")
        .rows;
    assert!(
        box01.transform_gaps.is_empty(),
        "{:?}",
        box01.transform_gaps
    );
    let world = box01.world.expect("Box01's world TM is evaluated");
    for (ours, theirs) in world.iter().zip(want) {
        for (a, b) in ours.iter().zip(theirs) {
            assert!((a - b).abs() < 1e-4, "{ours:?} vs {theirs:?}");
        }
    }
    let anim = maxfs_scene::eval::core::channels::animation(&eval);
    let b = anim
        .iter()
        .find(|a| a.name == "Box01")
        .expect("Box01 is animated");
    let ch: Vec<&str> = b.channels.iter().map(|c| c.channel.as_str()).collect();
    assert!(ch.contains(&"rotation.x"), "{ch:?}");
    let rx = b
        .channels
        .iter()
        .find(|c| c.channel == "rotation.x")
        .expect("rotation.x");
    assert!(rx.key_times.len() >= 2);
    let json = serde_json::to_string(&anim).expect("serializes");
    assert!(json.contains("\"interpolation\":\"bezier\""), "{json}");
}

/// One `*GEOMOBJECT` mesh: world-space vertices and faces (a, b, c, smoothing bits, material id).
struct AseMesh {
    name: String,
    vertices: Vec<[f64; 3]>,
    faces: Vec<([u32; 3], u32, u16)>,
}

fn parse_meshes(text: &str) -> Vec<AseMesh> {
    let mut out = Vec::new();
    let mut cur: Option<AseMesh> = None;
    for line in text.lines().map(str::trim) {
        if [
            "*CAMERAOBJECT",
            "*LIGHTOBJECT",
            "*HELPEROBJECT",
            "*SHAPEOBJECT",
        ]
        .iter()
        .any(|t| line.starts_with(t))
        {
            out.extend(cur.take());
        } else if line.starts_with("*GEOMOBJECT") {
            out.extend(cur.take());
            cur = Some(AseMesh {
                name: String::new(),
                vertices: Vec::new(),
                faces: Vec::new(),
            });
        } else if let Some(m) = cur.as_mut() {
            if let Some(n) = line
                .strip_prefix("*NODE_NAME ")
                .filter(|_| m.name.is_empty())
            {
                m.name = n.trim_matches('"').to_string();
            } else if line.starts_with("*MESH_VERTEX ") {
                let f = floats(line);
                m.vertices.push([f[1], f[2], f[3]]);
            } else if line.starts_with("*MESH_FACE ") {
                let w: Vec<&str> = line.split_whitespace().collect();
                let at = |tag: &str| w.iter().position(|x| *x == tag).map(|i| w[i + 1]);
                let idx = |tag: &str| {
                    at(tag)
                        .and_then(|x| x.parse::<u32>().ok())
                        .expect("face index")
                };
                // "*MESH_SMOOTHING 2,5" lists groups (1-based); empty means none.
                let sm = at("*MESH_SMOOTHING")
                    .filter(|s| !s.starts_with('*'))
                    .map(|s| {
                        s.split(',')
                            .filter_map(|g| g.parse::<u32>().ok())
                            .fold(0, |b, g| b | 1 << (g - 1))
                    })
                    .unwrap_or(0);
                let mat = at("*MESH_MTLID")
                    .and_then(|x| x.parse().ok())
                    .expect("mtlid");
                m.faces.push(([idx("A:"), idx("B:"), idx("C:")], sm, mat));
            }
        }
    }
    out.extend(cur);
    out
}

fn check_meshes(max: &str, ase: &str) -> usize {
    let corpus = corpus_dir();
    let doc = Document::open(&corpus.join(max)).expect("max opens");
    let eval = SceneEval::from_document(doc).expect("scene");
    let graph = &*eval.graph;
    let text = std::fs::read_to_string(corpus.join(ase)).expect("ase");
    let meshes = parse_meshes(&text);
    assert!(!meshes.is_empty());
    for m in &meshes {
        let (o, _) = graph.nodes().find(|(_, n)| n.name == m.name).expect("node");
        let mesh = eval
            .base_mesh(o.index)
            .expect("a mesh object")
            .expect("decodes");
        let otm = eval.object_tm(o.index, 0);
        assert_eq!(
            mesh.vertices.len(),
            m.vertices.len(),
            "{}: vertex count",
            m.name
        );
        for (i, (v, want)) in mesh.vertices.iter().zip(&m.vertices).enumerate() {
            let w = otm.transform_point(*v).to_array();
            let scale = want.iter().fold(1.0f64, |a, b| a.max(b.abs()));
            assert!(
                (0..3).all(|k| (w[k] - want[k]).abs() <= 6e-5 * scale),
                "{}: vertex {i}: ours {w:?} ase {want:?}",
                m.name
            );
        }
        let ours: Vec<([u32; 3], u32, u16)> = mesh
            .faces
            .iter()
            .map(|f| (f.v, f.smoothing, f.material))
            .collect();
        assert_eq!(
            ours, m.faces,
            "{}: faces (corners, smoothing, material)",
            m.name
        );
    }
    meshes.len()
}

#[test]
fn rotating_cube_mesh() {
    assert_eq!(
        check_meshes("max/assimp/RotatingCube.max", "ref/assimp/RotatingCube.ASE"),
        1
    );
}

#[test]
fn camera_roll_anim_mesh() {
    assert_eq!(
        check_meshes(
            "max/assimp/CameraRollAnim.max",
            "ref/assimp/CameraRollAnim.ase"
        ),
        1
    );
}
