//! Dumps every Unwrap UVW cache of its input (Max's own positions and
//! polygons of the stack below the Unwrap) in the given `.max` files, one
//! JSON line each: file, node, stack index, the stack's modifier names (top
//! first), positions, polygons as [vertices, material]. `cargo run --release
//! -p maxfs-tests --example unwrap_cache_dump -- FILE…`. Two caches around a
//! modifier are Max's input and output of it: used for the Symmetry slice
//! measurements in docs/unseen-files.md (Buwaka's doors and sidewalk 02).
use maxfs_tests::unwrap_cache;

fn main() {
    maxfs_tests::for_each_stack(std::env::args().skip(1), |path, _, _, name, stack, _| {
        let names: Vec<String> = stack.iter().map(|a| format!("{:?}", a.name)).collect();
        for (at, a) in stack.iter().enumerate() {
            if a.name != "Unwrap UVW" {
                continue;
            }
            let Some(local) = a
                .mod_app
                .and_then(|a| a.children().iter().find(|c| c.id == 0x2512))
            else {
                continue;
            };
            if !local.children().iter().any(|c| c.id == 0x0330) {
                continue;
            }
            let (pos, polys) = unwrap_cache(local);
            let pos: Vec<String> = pos
                .iter()
                .map(|p| format!("[{:?},{:?},{:?}]", p[0], p[1], p[2]))
                .collect();
            let polys: Vec<String> = polys
                .iter()
                .map(|(v, m)| format!("[{:?},{m}]", v))
                .collect();
            println!(
                "{{\"file\":{path:?},\"node\":{name:?},\"at\":{at},\"stack\":[{}],\"pos\":[{}],\"polys\":[{}]}}",
                names.join(","),
                pos.join(","),
                polys.join(",")
            );
        }
    });
}
