//! Compares the Boolean compounds of the given `.max` files with 3ds Max's own
//! Mesh Totals: per Boolean node, our vertex count, its corners
//! ([`maxfs_tests::corner_count`]), closedness and volume; per file, Max's
//! vertex total against the sum of the other nodes' vertices and the Boolean
//! nodes' corners.
//! `cargo run --release -p maxfs-tests --example boolean_corners -- FILE…`.
//! Used for the Boolean measurements in docs/unseen-files.md.
use maxfs_scene::eval::core::coverage::{mesh_coverage, MeshCoverage};
use maxfs_scene::eval::objects::boolean;

/// The text of the file's summary_information.json (empty if none).
fn summary(path: &str) -> String {
    let p = std::path::Path::new(path);
    let (Some(dir), Some(name)) = (p.parent(), p.file_name()) else {
        return String::new();
    };
    let fs = maxfs_fs::MaxFs::new(dir.to_path_buf(), Default::default());
    fs.read(&std::path::Path::new(name).join("json/summary_information.json"))
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

fn main() {
    for path in std::env::args().skip(1) {
        let text = summary(&path);
        let Some(eval) = maxfs_tests::each_eval([path]).next() else {
            continue;
        };
        let max_total = text
            .find("Mesh Totals")
            .and_then(|i| text[i..].find("Vertices: ").map(|j| i + j + 10))
            .map(|i| {
                text[i..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit())
                    .collect::<String>()
            });
        let (mut total, mut missing) = (0usize, 0usize);
        for (node, name) in maxfs_tests::named_nodes(&eval) {
            match mesh_coverage(&eval, node) {
                MeshCoverage::NotGeometry => continue,
                MeshCoverage::Evaluated => {}
                _ => {
                    missing += 1;
                    continue;
                }
            }
            let Some(Ok(m)) = eval.mesh(node, 0) else {
                missing += 1;
                continue;
            };
            let Some(base) = eval.modifier_stack(node).map(|(_, b)| b).filter(|&b| {
                eval.graph.objects[b]
                    .class
                    .as_ref()
                    .is_some_and(|c| boolean::is_recomputed(c.class_id))
            }) else {
                total += m.vertices.len();
                continue;
            };
            let kept: Vec<_> = boolean::boolean3_operands(&eval, base, 0)
                .map(|ops| ops.into_iter().flat_map(|(o, _)| o.vertices).collect())
                .unwrap_or_default();
            let corners = maxfs_tests::corner_count(&m, &kept);
            total += corners;
            let volume: f64 = m
                .faces
                .iter()
                .map(|f| {
                    let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
                    a.dot(b.cross(c)) / 6.0
                })
                .sum();
            println!(
                "   {name}: {} vertices, {corners} corners, {} triangles, volume {volume:.3}",
                m.vertices.len(),
                m.faces.len()
            );
        }
        println!("   Max {max_total:?} vertices; ours with corners {total}, {missing} nodes not evaluated");
    }
}
