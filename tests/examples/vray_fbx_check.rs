//! Compares the VRayMtl / VRayMtlWrapper materials of a `.max` with 3ds
//! Max's own FBX export of the same scene, which lists every ParamBlock2
//! parameter by name in block order (`3dsMax|basic|diffuse` …): per
//! material of the same name, the stored parameters side by side with the
//! FBX's (position, id, name, both values) and our decoded values against
//! the named ones. `cargo run --release -p maxfs-tests --example
//! vray_fbx_check -- FILE.max FILE.fbx`. The public pair used for
//! scene/src/eval/render/vray.rs: LeadShuriken/3D-Max-Scripts-Examples'
//! LightMapping/LightScaleTestProject/Assets/UnityLightIntTest/
//! 3dsMaxTestScene.max and its Temp/MaxExportedFBXFile.fbx.

use maxfs_scene::eval::core::pblock::{self, Value};
use maxfs_scene::eval::render::material;
use maxfs_scene::eval::render::vray::{VRAY_MTL, VRAY_MTL_WRAPPER};

/// The FBX parameters of one material in file order (ufbx sorts its
/// property list, so the retained DOM is read): (group|name, numbers).
fn fbx_params(m: &ufbx::Material) -> Vec<(String, Vec<f64>)> {
    let Some(dom) = m.element.dom_node.as_ref() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for p70 in dom.children.iter().filter(|c| c.name == "Properties70") {
        for p in p70.children.iter().filter(|c| c.name == "P") {
            let vals: Vec<&ufbx::DomValue> = p.values.iter().collect();
            let Some(name) = vals.first().map(|v| v.value_str.to_string()) else {
                continue;
            };
            let Some(rest) = name.strip_prefix("3dsMax|").filter(|r| r.contains('|')) else {
                continue;
            };
            let nums = vals
                .iter()
                .skip(4)
                .filter(|v| v.type_ == ufbx::DomValueType::Number)
                .map(|v| v.value_float)
                .collect();
            out.push((rest.to_string(), nums));
        }
    }
    out
}

fn stored(v: &Value) -> Vec<f64> {
    match v {
        Value::Float(x) => vec![f64::from(*x)],
        Value::Int(x) => vec![f64::from(*x)],
        Value::Bool(x) => vec![f64::from(u8::from(*x))],
        Value::Vector(c) => c.iter().map(|&x| f64::from(x)).collect(),
        _ => Vec::new(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [max, fbx] = args.as_slice() else {
        eprintln!("usage: vray_fbx_check FILE.max FILE.fbx");
        std::process::exit(2);
    };
    let eval = match maxfs_tests::eval_of(max) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{max}: {e}");
            std::process::exit(1);
        }
    };
    let opts = ufbx::LoadOpts {
        retain_dom: true,
        ..Default::default()
    };
    let scene = match ufbx::load_file(fbx, opts).map_err(|e| e.description.to_string()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{fbx}: {e}");
            std::process::exit(1);
        }
    };
    let mut mismatches = 0;
    for o in &eval.graph.objects {
        let Some(c) = o.class.as_ref() else { continue };
        let cid = (c.class_id.0, c.class_id.1);
        if cid != VRAY_MTL && cid != VRAY_MTL_WRAPPER {
            continue;
        }
        let Some(m) = material::material(&eval, o.index) else {
            continue;
        };
        let Some(fm) = scene
            .materials
            .iter()
            .find(|f| f.element.name.to_string() == m.name)
        else {
            println!("-- {:?} ({}): not in the FBX", m.name, c.name);
            continue;
        };
        println!("-- {:?} ({})", m.name, c.name);
        // Stored parameters in reference order, then block order.
        let mut ours = Vec::new();
        for r in &o.references {
            let Ok(t) = usize::try_from(r.target) else {
                continue;
            };
            if let Ok(pb) = pblock::param_block2(eval.chunks(t)) {
                ours.extend(pb.params.into_iter().map(|p| (p.id, stored(&p.value))));
            }
        }
        let theirs = fbx_params(fm);
        println!("   stored {} parameters, FBX {}", ours.len(), theirs.len());
        for (k, (name, fv)) in theirs.iter().enumerate() {
            let (id, ov) = ours.get(k).cloned().unwrap_or((u16::MAX, Vec::new()));
            let same = fv.is_empty()
                || (ov.len() == fv.len() && ov.iter().zip(fv).all(|(a, b)| (a - b).abs() < 1e-4));
            if !same {
                mismatches += 1;
            }
            println!(
                "   {k:>3} id {id:>5} {name:<52} ours {ov:?} fbx {fv:?}{}",
                if same { "" } else { "  MISMATCH" }
            );
        }
        let named = |n: &str| theirs.iter().find(|(k, _)| k.ends_with(n)).map(|x| &x.1);
        // The wrapper's FBX lists its own parameters only.
        if let (Some(p), Some(want)) = (&m.pbr, named("|diffuse")) {
            let base = p.base_color.map(|c| c.map(f64::from).to_vec());
            let ok = base.as_ref() == Some(want);
            mismatches += usize::from(!ok);
            println!("   decoded base colour {base:?} vs basic|diffuse: {ok}");
        }
        println!(
            "   decoded maps {:?}",
            m.maps
                .iter()
                .map(|r| (r.slot.as_str(), r.texmap))
                .collect::<Vec<_>>()
        );
        println!("   unmapped {:?} errors {:?}", m.unmapped, m.errors);
    }
    println!("mismatches: {mismatches}");
}
