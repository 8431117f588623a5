//! Reads, at a chamfered node's polygons, the map coordinates a ProBoolean
//! saved with its result (chunk 0x0150 keeps the operands' map channel 1):
//! `chamfer_map_probe FILE NODE AT K PROBOOLEAN`. The node's polygons after
//! the first K operations of the Edit Poly at stack index AT are placed in
//! world space; every ProBoolean vertex within 1e-3 of one of ours stands
//! for it, and each ProBoolean triangle whose three corners stand for
//! corners of one of our polygons gives those corners' channel-1
//! coordinates. One line per polygon: its index, its vertices and, per
//! corner, the coordinates found (several where triangles disagree, none
//! where the ProBoolean cut the polygon). Used for the chamfer map
//! measurements in docs/unseen-files.md ("Map channels of the standard
//! chamfer").

use std::collections::{BTreeSet, HashMap};

use maxfs_scene::eval::modifier::edit_poly_output_after as after;

fn main() {
    if let Err(e) = run() {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [file, name, at, k, pro] = a.as_slice() else {
        return Err("chamfer_map_probe FILE NODE AT K PROBOOLEAN".into());
    };
    let number = |s: &str| s.parse::<usize>().map_err(|e| format!("{s}: {e}"));
    let eval = maxfs_tests::eval_of(file)?;
    let o = maxfs_tests::node_named(&eval.graph, name);
    let p = maxfs_tests::node_named(&eval.graph, pro);
    let poly = after(&eval, o, number(at)?, 0, number(k)?).map_err(|e| e.to_string())?;
    let tm = eval.object_tm(o, 0);
    let ours: Vec<_> = poly
        .vertices
        .iter()
        .map(|&v| tm.transform_point(v))
        .collect();
    // The ProBoolean's own result, below any modifier on it.
    let pb = eval
        .base_mesh(p)
        .ok_or("the ProBoolean is not a mesh")?
        .map_err(|e| e.to_string())?;
    let ptm = eval.object_tm(p, 0);
    let map = pb
        .maps
        .iter()
        .find(|m| m.channel == 1)
        .ok_or("the ProBoolean holds no map channel 1")?;
    // ProBoolean vertex → ours.
    let mut stands = HashMap::new();
    for (j, &v) in pb.vertices.iter().enumerate() {
        let w = ptm.transform_point(v);
        if let Some(i) = ours.iter().position(|&q| q.minus(w).len() < 1e-3) {
            stands.insert(j as u32, i as u32);
        }
    }
    // Our vertex → the polygons using it.
    let mut using: HashMap<u32, BTreeSet<usize>> = HashMap::new();
    for (fi, f) in poly.faces.iter().enumerate() {
        for &v in &f.v {
            using.entry(v).or_default().insert(fi);
        }
    }
    let mut found: HashMap<(usize, u32), BTreeSet<(i64, i64)>> = HashMap::new();
    for (t, face) in pb.faces.iter().enumerate() {
        let Some(corners) = face
            .v
            .iter()
            .map(|j| stands.get(j).copied())
            .collect::<Option<Vec<u32>>>()
        else {
            continue;
        };
        let Some(mf) = map.faces.get(t) else {
            continue;
        };
        let sets: Vec<&BTreeSet<usize>> = corners.iter().filter_map(|v| using.get(v)).collect();
        let [s0, s1, s2] = sets.as_slice() else {
            continue;
        };
        for &fi in s0.iter().filter(|f| s1.contains(f) && s2.contains(f)) {
            for (&v, &m) in corners.iter().zip(mf) {
                let Some(uv) = map.vertices.get(m as usize) else {
                    continue;
                };
                // Kept to 1e-5 so equal coordinates print once.
                let key = |x: f32| (f64::from(x) * 1e5).round() as i64;
                found
                    .entry((fi, v))
                    .or_default()
                    .insert((key(uv[0]), key(uv[1])));
            }
        }
    }
    for (fi, f) in poly.faces.iter().enumerate() {
        let corners: Vec<String> =
            f.v.iter()
                .map(|&v| {
                    let uvs: Vec<String> = found
                        .get(&(fi, v))
                        .into_iter()
                        .flatten()
                        .map(|&(u, w)| format!("[{},{}]", u as f64 / 1e5, w as f64 / 1e5))
                        .collect();
                    format!("[{}]", uvs.join(","))
                })
                .collect();
        println!(
            "{{\"face\":{fi},\"v\":{:?},\"uv\":[{}]}}",
            f.v,
            corners.join(",")
        );
    }
    Ok(())
}
