//! Prints the 3ds Max material parameters an FBX carries (the
//! `3dsMax|…` properties Max's FBX exporter writes for Physical Material and
//! other scripted materials), by material: `fbx_material_props <file.fbx>
//! [name filter]`. An independent record of the values Max shows, used to
//! pin the parameter ids of the material decoders.

#[path = "../dev/fbx.rs"]
mod fbx_dev;

fn main() {
    let (fbx, _) = fbx_dev::fbx_or_exit("fbx_material_props <file.fbx> [filter]", 0);
    let filter = std::env::args().nth(2).unwrap_or_default();
    for m in fbx.materials.iter() {
        println!(
            "material {:?} shader {:?}",
            m.element.name.to_string(),
            m.shading_model_name.to_string()
        );
        for p in m.element.props.props.iter() {
            let name = p.name.to_string();
            if !name.starts_with("3dsMax|") || !name.contains(filter.as_str()) {
                continue;
            }
            let v = p.value_vec4;
            println!(
                "  {name} = {} {} {} {} int {} str {:?}",
                v.x,
                v.y,
                v.z,
                v.w,
                p.value_int,
                p.value_str.to_string()
            );
        }
    }
}
