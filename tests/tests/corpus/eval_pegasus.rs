//! Per-frame values that a MaxScript dumped inside 3ds Max (ref/pegasus-csv), one
//! CSV per target object, against our evaluation of the same scene. The columns,
//! as worked out from the data:
//! - position X/Y/Z: the camera's world position;
//! - orientation X/Y/Z: the angles (degrees) between the camera's local Z axis
//!   (it looks down −Z) and the world X, Y, Z axes;
//! - distance: how far the camera's view ray travels before it hits the object
//!   (Max's IntersectRay: the evaluated mesh's triangles, but the true sphere for
//!   a Sphere primitive);
//! - angle X/Y/Z: asin of each component of (surface normal at the hit − the
//!   camera's Z axis), in degrees: the script's "Perpendicular Value"
//!   (pegasus1982/maxscript-animation-exporter, ms-anim-exporter.ms from commit
//!   848053e on: `diff = i.dir - cam.dir`, `asin diff[k]`, with `i` the ray
//!   IntersectRay returns). The normal is the hit face's for a mesh and the true
//!   sphere's for a Sphere primitive, as for the distance.
//!
//! Plane001-output.csv has no source file in the corpus.

use maxfs_scene::eval::core::transform::invert;
use maxfs_scene::eval::{SceneEval, Vec3};
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;

/// Ticks per frame at the files' 30 frames per second.
const TICKS_PER_FRAME: i32 = 160;

fn rows(csv: &str) -> Vec<Vec<f64>> {
    csv.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split(',')
                .map(|w| w.trim().parse().expect("number"))
                .collect()
        })
        .collect()
}

/// Distance along the ray `p + t·d` (d unit) to the nearest triangle and that
/// triangle's unit normal (counter-clockwise winding), if any.
fn ray_hit(p: Vec3, d: Vec3, tris: &[[Vec3; 3]]) -> Option<(f64, Vec3)> {
    let mut best: Option<(f64, Vec3)> = None;
    for [a, b, c] in tris {
        let (e1, e2) = (b.minus(*a), c.minus(*a));
        let h = d.cross(e2);
        let det = e1.dot(h);
        if det.abs() < 1e-12 {
            continue;
        }
        let s = p.minus(*a);
        let u = s.dot(h) / det;
        let q = s.cross(e1);
        let v = d.dot(q) / det;
        let t = e2.dot(q) / det;
        if u >= -1e-9
            && v >= -1e-9
            && u + v <= 1.0 + 1e-9
            && t > 0.0
            && best.is_none_or(|(x, _)| t < x)
        {
            best = Some((t, e1.cross(e2).normalized()));
        }
    }
    best
}

/// Distance along the ray `p + t·d` (d unit) to a sphere, if it is hit.
fn sphere_hit(p: Vec3, d: Vec3, centre: Vec3, r: f64) -> Option<f64> {
    let o = p.minus(centre);
    let b = o.dot(d);
    let disc = b * b - (o.dot(o) - r * r);
    (disc >= 0.0).then(|| -b - disc.sqrt()).filter(|&t| t > 0.0)
}

/// Compares every frame; returns the number of values compared.
fn check(max: &str, camera: &str, object: &str, csv: &str) -> usize {
    let corpus = corpus_dir();
    let doc = Document::open(&corpus.join(max)).expect("max");
    let eval = SceneEval::from_document(doc).expect("scene");
    let graph = &*eval.graph;
    let find = |name: &str| {
        graph
            .nodes()
            .find(|(_, n)| n.name == name)
            .unwrap_or_else(|| panic!("{name}"))
            .0
            .index
    };
    let (cam, obj) = (find(camera), find(object));
    let is_sphere = eval
        .node_object(obj)
        .and_then(|o| graph.objects[o].class.as_ref())
        .is_some_and(|c| c.class_id == maxfs_scene::eval::objects::primitive::SPHERE);
    let text = std::fs::read_to_string(corpus.join("ref/pegasus-csv").join(csv)).expect("csv");
    let mut compared = 0;
    let mut failures = Vec::new();
    for (frame, row) in rows(&text).iter().enumerate() {
        assert_eq!(row.len(), 10, "{csv}: frame {frame}: columns");
        let t = frame as i32 * TICKS_PER_FRAME;
        let world = eval.world_tm(cam, t);
        let r = world.rows();
        let pos = Vec3(r[3][0], r[3][1], r[3][2]);
        let z = Vec3(r[2][0], r[2][1], r[2][2]).normalized();
        let mut want = |what: &str, ours: f64, theirs: f64, tol: f64| {
            compared += 1;
            if (ours - theirs).abs() > tol {
                failures.push(format!(
                    "{csv} frame {frame} {what}: ours {ours}, csv {theirs}"
                ));
            }
        };
        for (i, axis) in ["X", "Y", "Z"].iter().enumerate() {
            let scale = row[i].abs().max(1.0);
            want(
                &format!("position {axis}"),
                pos.to_array()[i],
                row[i],
                2e-3 * scale,
            );
            let angle = z.to_array()[i].clamp(-1.0, 1.0).acos().to_degrees();
            want(&format!("orientation {axis}"), angle, row[3 + i], 2e-2);
        }
        let mesh = eval
            .mesh(obj, t)
            .expect("a mesh object")
            .expect("mesh evaluates");
        let otm = eval.object_tm(obj, t);
        let hit = if is_sphere {
            // In object space: the poles (first and last vertex) give centre and radius.
            let (n, s) = (mesh.vertices[0], mesh.vertices[mesh.vertices.len() - 1]);
            let inv = invert(&otm);
            let (po, dir) = (
                inv.transform_point(pos),
                inv.transform_vector(z.scale(-1.0)),
            );
            let dir = dir.normalized();
            let centre = n.plus(s).scale(0.5);
            sphere_hit(po, dir, centre, n.minus(s).len() / 2.0).map(|k| {
                let at = po.plus(dir.scale(k));
                // Normals go by the inverse transpose of the object matrix.
                let no = at.minus(centre).normalized();
                let r = inv.rows();
                let nw = Vec3(
                    Vec3(r[0][0], r[0][1], r[0][2]).dot(no),
                    Vec3(r[1][0], r[1][1], r[1][2]).dot(no),
                    Vec3(r[2][0], r[2][1], r[2][2]).dot(no),
                );
                (otm.transform_point(at).minus(pos).len(), nw.normalized())
            })
        } else {
            let tris: Vec<[Vec3; 3]> = mesh
                .faces
                .iter()
                .map(|f| f.v.map(|i| otm.transform_point(mesh.vertices[i as usize])))
                .collect();
            ray_hit(pos, z.scale(-1.0), &tris)
        };
        match hit {
            Some((d, normal)) => {
                want("distance", d, row[6], 2e-4 * row[6].abs().max(1.0));
                let diff = normal.minus(z).to_array();
                for (i, axis) in ["X", "Y", "Z"].iter().enumerate() {
                    let angle = diff[i].clamp(-1.0, 1.0).asin().to_degrees();
                    want(&format!("angle {axis}"), angle, row[7 + i], 1e-2);
                }
            }
            None => failures.push(format!("{csv} frame {frame}: the view ray misses")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    compared
}

#[test]
fn pegasus_box_camera_per_frame() {
    // 101 frames × (3 positions + 3 orientations + distance + 3 angles).
    assert_eq!(
        check(
            "max/pegasus/1.max",
            "Camera001",
            "Box001",
            "Box001-output.csv"
        ),
        101 * 10
    );
}

#[test]
fn pegasus_sphere_physical_camera_per_frame() {
    assert_eq!(
        check(
            "max/pegasus/TestScene.max",
            "PhysCamera001",
            "Sphere001",
            "Sphere001-output.csv"
        ),
        101 * 10
    );
}
