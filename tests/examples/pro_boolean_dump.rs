//! Dumps every ProBoolean's stored result mesh (Max's own) in the given
//! `.max` files as one JSON line each: file, node, modifier names (top
//! first), positions, triangles as [a, b, c, edge visibility bits].
//! `cargo run --release -p maxfs-tests --example pro_boolean_dump -- FILE…`.
//! Used, with `unwrap_cache_dump`, for the ProBoolean-to-polygons
//! measurements in docs/unseen-files.md.
use maxfs_scene::eval::objects::boolean::{self, PRO_BOOLEAN};

fn main() {
    maxfs_tests::for_each_stack(
        std::env::args().skip(1),
        |path, eval, _, name, stack, base| {
            if eval
                .graph
                .objects
                .get(base)
                .and_then(|b| b.class.as_ref())
                .map(|c| c.class_id)
                != Some(PRO_BOOLEAN)
            {
                return;
            }
            let names: Vec<String> = stack.iter().map(|a| format!("{:?}", a.name)).collect();
            let mesh = match boolean::eval(eval, base, 0) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("{path}: {name}: {e}");
                    return;
                }
            };
            let pos: Vec<String> = mesh
                .vertices
                .iter()
                .map(|p| format!("[{:?},{:?},{:?}]", p.0, p.1, p.2))
                .collect();
            let tris: Vec<String> = mesh
                .faces
                .iter()
                .map(|f| format!("[{},{},{},{}]", f.v[0], f.v[1], f.v[2], f.flags & 7))
                .collect();
            println!(
                "{{\"file\":{path:?},\"node\":{name:?},\"stack\":[{}],\"pos\":[{}],\"tris\":[{}]}}",
                names.join(","),
                pos.join(","),
                tris.join(",")
            );
        },
    );
}
