//! Probe for checking Edit Poly replays against meshes Max saved elsewhere
//! (docs/unseen-files.md, "Standard chamfer of edges sharing no vertex"):
//! `chamfer_probe FILE MODE NODE …`, one JSON line:
//! `base` / `basemap` — the node's base mesh in world space (with map
//! channel 1), `final` — its evaluated mesh in world space, `after AT K` —
//! the polygons (object space, edges, channel 1) after the first K
//! operations of the Edit Poly at stack index AT; `saved AT` prints the
//! sizes that Edit Poly saved (0x0200 / 0x0210 / 0x0220), `offsets AT K` the
//! vertex offsets operation K (a Transform) recorded, one line per vertex.

use maxfs_scene::eval::core::math::Vec3;
use maxfs_scene::eval::modifier::edit_poly_output_after as after;

fn main() {
    if let Err(e) = run() {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

fn list<T: std::fmt::Debug>(items: &[T]) -> String {
    let s: Vec<String> = items.iter().map(|x| format!("{x:?}")).collect();
    format!("[{}]", s.join(","))
}

fn channel_1<T: std::fmt::Debug>(
    maps: impl Iterator<Item = (i32, String, Vec<T>)>,
) -> (String, String) {
    maps.into_iter()
        .find(|(c, _, _)| *c == 1)
        .map(|(_, v, f)| (v, list(&f)))
        .unwrap_or_else(|| ("[]".into(), "[]".into()))
}

fn run() -> Result<(), String> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [file, mode, name, rest @ ..] = a.as_slice() else {
        return Err("chamfer_probe FILE MODE NODE [AT [K]]".into());
    };
    let eval = maxfs_tests::eval_of(file)?;
    let o = maxfs_tests::node_named(&eval.graph, name);
    let tm = eval.object_tm(o, 0);
    let world = |ps: &[Vec3]| {
        let s: Vec<String> = ps
            .iter()
            .map(|&p| {
                let w = tm.transform_point(p);
                format!("[{},{},{}]", w.0, w.1, w.2)
            })
            .collect();
        format!("[{}]", s.join(","))
    };
    let arg = |i: usize| -> Result<usize, String> {
        rest.get(i)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("argument {} missing", i + 4))
    };
    match mode.as_str() {
        "base" | "basemap" | "final" => {
            let m = if mode == "final" {
                eval.mesh(o, 0)
            } else {
                eval.base_mesh(o)
            }
            .ok_or("no mesh")?
            .map_err(|e| e.to_string())?;
            let faces: Vec<[u32; 3]> = m.faces.iter().map(|f| f.v).collect();
            let (mv, mf) = channel_1(
                m.maps
                    .iter()
                    .map(|c| (c.channel, list(&c.vertices), c.faces.clone())),
            );
            println!(
                "{{\"v\":{},\"f\":{},\"mv\":{mv},\"mf\":{mf}}}",
                world(&m.vertices),
                list(&faces)
            );
        }
        "after" => {
            let m = after(&eval, o, arg(0)?, 0, arg(1)?).map_err(|e| e.to_string())?;
            let faces: Vec<&Vec<u32>> = m.faces.iter().map(|f| &f.v).collect();
            let (mv, mf) = channel_1(
                m.maps
                    .iter()
                    .map(|c| (c.channel, list(&c.vertices), c.faces.clone())),
            );
            let p: Vec<[f64; 3]> = m.vertices.iter().map(|p| [p.0, p.1, p.2]).collect();
            println!(
                "{{\"v\":{},\"f\":{},\"e\":{},\"mv\":{mv},\"mf\":{mf}}}",
                list(&p),
                list(&faces),
                list(m.edges.as_deref().unwrap_or(&[]))
            );
        }
        "saved" => {
            let (stack, _) = eval.modifier_stack(o).ok_or("no modifier stack")?;
            let local = stack
                .get(arg(0)?)
                .and_then(|m| m.mod_app)
                .and_then(|m| m.children().iter().find(|c| c.id == 0x2512))
                .ok_or("no local data")?;
            for c in local.children() {
                if [0x0200, 0x0210, 0x0220].contains(&c.id) {
                    let p = c
                        .children()
                        .iter()
                        .find(|x| x.id == 0x2700)
                        .and_then(|x| x.payload())
                        .unwrap_or(&[]);
                    let w = maxfs_tests::le_words(p);
                    println!("{:#06x} {:?}", c.id, w.first());
                }
            }
        }
        "offsets" => {
            let d = maxfs_scene::eval::modifier::edit_poly_operation_offset_values(
                &eval,
                o,
                arg(0)?,
                arg(1)?,
            )
            .map_err(|e| e.to_string())?;
            for (i, v) in d.iter().enumerate() {
                println!("{i} {} {} {}", v.0, v.1, v.2);
            }
        }
        other => {
            return Err(format!(
                "mode {other}: base, basemap, final, after, saved, offsets"
            ))
        }
    }
    Ok(())
}
