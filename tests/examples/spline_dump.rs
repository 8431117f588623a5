//! Dev tool: the Bezier splines of the shape under node NODE, as built
//! before interpolation (knots, handles, steps), one JSON document, then
//! the old ParamBlock (reference 1) values of each modifier on the node and
//! the shape's render settings: `spline_dump FILE NODE`. Used for
//! docs/evaluation.md's adaptive-interpolation measurements.

use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::objects::primitive::block_params;
use maxfs_scene::eval::objects::shape;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let [file, name] = a.as_slice() else {
        eprintln!("spline_dump FILE NODE");
        std::process::exit(2);
    };
    let eval = maxfs_tests::eval_or_exit(file);
    let node = maxfs_tests::node_named(&eval.graph, name);
    let Some(obj) = eval.node_object(node) else {
        eprintln!("{name}: no object");
        std::process::exit(1);
    };
    match shape::bezier_shape(&eval, obj, 0) {
        Ok(s) => println!("{}", serde_json::to_string(&s).unwrap_or_default()),
        Err(e) => {
            eprintln!("{name}: {e}");
            std::process::exit(1);
        }
    }
    if let Some((stack, _)) = eval.modifier_stack(node) {
        for m in &stack {
            let values: Vec<String> = pblock::reference(&eval.graph, m.object, 1)
                .and_then(|pb| block_params(&eval, pb, 0).ok())
                .map(|p| {
                    (0..16)
                        .map(|i| format!("{i}:{}", p.float_or(i, f64::NAN)))
                        .collect()
                })
                .unwrap_or_default();
            let pb2 = maxfs_tests::param_block2_text(&eval, m.object, 0, false, " ");
            eprintln!("modifier {} {} | {pb2}", m.name, values.join(" "));
        }
    }
    match shape::render_mesh::RenderParams::read(&eval, obj, 0) {
        Ok(r) => eprintln!("render {r:?}"),
        Err(e) => eprintln!("render error {e}"),
    }
}
