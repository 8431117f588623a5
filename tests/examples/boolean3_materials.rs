//! Surveys the Max 2017+ Booleans of the given `.max` files for the material
//! question: per node, the material option (parameter 1: 0 apply operand
//! material, 1 retain original), the node's material (class, sub-material
//! count) and each operand's material ids as evaluated.
//! `cargo run --release -p maxfs-tests --example boolean3_materials -- FILE…`.
use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::objects::boolean;
use maxfs_scene::eval::render::material;

fn main() {
    for eval in maxfs_tests::each_eval(std::env::args().skip(1)) {
        for (node, name) in maxfs_tests::named_nodes(&eval) {
            let Some((_, base)) = eval.modifier_stack(node) else {
                continue;
            };
            if eval.graph.objects[base].class.as_ref().map(|c| c.class_id)
                != Some(boolean::BOOLEAN3)
            {
                continue;
            }
            let option = pblock::reference(&eval.graph, base, 0)
                .and_then(|pb| pblock::param_block2(eval.chunks(pb)).ok())
                .and_then(|b| {
                    b.params
                        .iter()
                        .find(|p| p.id == 1)
                        .map(|p| format!("{:?}", p.value))
                });
            let mat = material::node_material(&eval.graph, node)
                .and_then(|m| material::material(&eval, m))
                .map(|m| format!("{} {:?} subs {}", m.class, m.name, m.sub_materials.len()));
            let ids: Vec<String> = boolean::boolean3_operands(&eval, base, 0)
                .map(|ops| {
                    ops.iter()
                        .map(|(m, _)| {
                            let mut s: Vec<u16> = m.faces.iter().map(|f| f.material).collect();
                            s.sort();
                            s.dedup();
                            format!("{s:?}")
                        })
                        .collect()
                })
                .unwrap_or_default();
            println!("   {name}: option {option:?}; material {mat:?}; operand ids {ids:?}");
        }
    }
}
