//! Dev tool for the Bevel modifier measurements: per mesh node of each file,
//! its base class, modifiers, vertices, triangles and polygons (triangles
//! joined across invisible edges: what Max's Mesh Totals counts for a
//! polygon object), then the polylines of each node with a Bevel (points,
//! closed, signed area). `bevel_probe FILE…`; with `SHAPES=1` bare shapes
//! and every shape's polylines too, `PTS=1` their points, `DUMP=NAME` that
//! node's distinct heights and (material, smoothing) counts instead.
//! Used for the Bevel measurements in docs/evaluation.md.
use maxfs_scene::eval::core::coverage::{mesh_coverage, MeshCoverage};
use maxfs_scene::eval::objects::mesh::Mesh;
use std::collections::HashMap;

/// Triangles merged across edges that are invisible on both sides.
fn polygons(m: &Mesh) -> usize {
    let n = m.faces.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut edges: HashMap<(u32, u32), usize> = HashMap::new();
    for (fi, f) in m.faces.iter().enumerate() {
        for e in 0..3 {
            if f.flags & (1 << e) != 0 {
                continue;
            }
            let (a, b) = (f.v[e], f.v[(e + 1) % 3]);
            let k = if a < b { (a, b) } else { (b, a) };
            if let Some(&g) = edges.get(&k) {
                let (x, y) = (find(&mut parent, fi), find(&mut parent, g));
                parent[x] = y;
            } else {
                edges.insert(k, fi);
            }
        }
    }
    (0..n).filter(|&i| find(&mut parent, i) == i).count()
}

fn main() {
    for eval in maxfs_tests::each_eval(std::env::args().skip(1)) {
        for (node, name) in maxfs_tests::named_nodes(&eval) {
            if matches!(mesh_coverage(&eval, node), MeshCoverage::NotGeometry)
                && std::env::var("SHAPES").is_err()
            {
                continue;
            }
            let mods: Vec<String> = eval
                .modifier_stack(node)
                .map(|(s, _)| s.iter().map(|m| m.name.to_string()).collect())
                .unwrap_or_default();
            let class = eval
                .node_object(node)
                .and_then(|o| eval.graph.objects[o].class.as_ref())
                .map(|c| c.name.clone())
                .unwrap_or_default();
            match eval.mesh(node, 0) {
                Some(Ok(m)) if std::env::var("DUMP").is_ok_and(|d| d == name) => {
                    let mut zs: Vec<i64> = m
                        .vertices
                        .iter()
                        .map(|v| (v.2 * 100.0).round() as i64)
                        .collect();
                    zs.sort();
                    zs.dedup();
                    println!(
                        "  {name}: {} distinct z: {:?}",
                        zs.len(),
                        &zs[..zs.len().min(40)]
                    );
                    let mut by: std::collections::BTreeMap<(u16, u32), usize> = Default::default();
                    for f in &m.faces {
                        *by.entry((f.material, f.smoothing)).or_default() += 1;
                    }
                    println!("  (material, smoothing) -> triangles: {by:?}");
                }
                Some(Ok(m)) => println!(
                    "  {name} [{class}] {mods:?}: {} vertices, {} triangles, {} polygons",
                    m.vertices.len(),
                    m.faces.len(),
                    polygons(&m)
                ),
                Some(Err(e)) => println!("  {name} [{class}] {mods:?}: {e}"),
                None => println!("  {name} [{class}] {mods:?}: no mesh"),
            }
            if mods.iter().any(|m| m == "Bevel") || std::env::var("SHAPES").is_ok() {
                if let Some(o) = eval.node_object(node) {
                    println!(
                        "    base pb2: {}",
                        maxfs_tests::param_block2_text(&eval, o, 3, false, " ")
                    );
                }
                if let Some(Ok(s)) = eval.shape(node, 0) {
                    for l in &s.polylines {
                        println!(
                            "    polyline {} points closed {} area {:.3}",
                            l.pts.len(),
                            l.closed,
                            l.signed_area_xy()
                        );
                        if std::env::var("PTS").is_ok() {
                            for q in &l.pts {
                                println!(
                                    "      {:e} {:e} {:e} smooth {}",
                                    q.p.0, q.p.1, q.p.2, q.smooth
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
