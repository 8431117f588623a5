//! Prints the self-describing PB2Parameter records (class 0x07d32009,
//! 0x6187db21) of every Autodesk Material (0x1ed415e4, 0x213daaf8) in the
//! given `.max` files: name, ParamBlock2 type word and raw first value, and
//! the material's chunk 0x1210 kind; and the mrPBParameter records
//! (0x58f67d6c, 0x4fe30000) of every ProMaterials material (0x7773160f, …).
//! `cargo run --release -p maxfs-tests
//! --example autodesk_params -- FILE…`. Used with 3ds Max's FBX export of the
//! same scene (its ADSKAssetReferences blob, an Autodesk asset package whose
//! objects.xml lists the asset's properties by name and value).

use maxfs_scene::eval::render::arnold;

const PB2_PARAMETER: (u32, u32) = (0x07d3_2009, 0x6187_db21);
/// mental ray's twin of the record (ProMaterials' parameters).
const MR_PB_PARAMETER: (u32, u32) = (0x58f6_7d6c, 0x4fe3_0000);
/// The ProMaterials family (mental ray "adsk" shaders as materials).
const PRO_MATERIALS: u32 = 0x7773_160f;

fn walk(eval: &maxfs_scene::eval::core::transform::SceneEval, idx: usize, depth: usize) {
    if depth > 6 {
        return;
    }
    let g = &eval.graph;
    let Some(o) = g.objects.get(idx) else { return };
    let is_param = o
        .class
        .as_ref()
        .is_some_and(|c| [PB2_PARAMETER, MR_PB_PARAMETER].contains(&(c.class_id.0, c.class_id.1)));
    if is_param {
        if let Some(p) = arnold::param(eval.chunks(idx)) {
            let v = p.value.as_deref().unwrap_or(&[]);
            let floats: Vec<f32> = v
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            let ints: Vec<i32> = v
                .chunks_exact(4)
                .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            println!(
                "{}{idx} {:?} ty {:#x} floats {floats:?} ints {ints:?}",
                "  ".repeat(depth),
                p.name,
                p.ty
            );
        }
    }
    for r in &o.references {
        if let Ok(t) = usize::try_from(r.target) {
            if t != idx {
                walk(eval, t, depth + 1);
            }
        }
    }
}

fn main() {
    for eval in maxfs_tests::each_eval(std::env::args().skip(1)) {
        for o in &eval.graph.objects {
            let Some(c) = o.class.as_ref() else { continue };
            if (c.class_id.0, c.class_id.1) != (0x1ed4_15e4, 0x213d_aaf8)
                && !(c.class_id.0 == PRO_MATERIALS && c.super_class == 0xc00)
            {
                continue;
            }
            let kind = eval
                .chunks(o.index)
                .iter()
                .find(|c| c.id == 0x1210)
                .and_then(|c| c.payload())
                .map(|b| {
                    let u: Vec<u16> = b
                        .chunks_exact(2)
                        .map(|x| u16::from_le_bytes([x[0], x[1]]))
                        .collect();
                    String::from_utf16_lossy(&u)
                });
            let name = maxfs_scene::eval::render::material::mtl_name(eval.chunks(o.index));
            println!(
                "-- material {name:?} kind {kind:?} class {:?} (object {})",
                c.name, o.index
            );
            walk(&eval, o.index, 0);
        }
    }
}
