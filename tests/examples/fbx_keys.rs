//! Lists the animation keys an FBX stores for the nodes whose name contains
//! the pattern (property, axis, key count, key times in frames at 30 fps,
//! interpolation): tells exported-per-frame curves from reduced ones before an
//! FBX frame is taken as the exporter's sample of Max's pose.
//! `cargo run --release -p maxfs-tests --example fbx_keys -- <file.fbx> <pattern>`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: fbx_keys <file.fbx> <pattern>");
        std::process::exit(2);
    }
    let fbx = match ufbx::load_file(&args[1], ufbx::LoadOpts::default()) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{}: {e:?}", args[1]);
            std::process::exit(1);
        }
    };
    for layer in fbx.anim_layers.iter() {
        for ap in layer.anim_props.iter() {
            let name = ap.element.name.to_string();
            if !name.contains(args[2].as_str()) {
                continue;
            }
            for (axis, curve) in ap.anim_value.curves.iter().enumerate() {
                let Some(c) = curve else { continue };
                let keys: Vec<String> = c
                    .keyframes
                    .iter()
                    .map(|k| format!("{:.2}:{:.5}{:?}", k.time * 30.0, k.value, k.interpolation))
                    .collect();
                println!(
                    "{name} {} {axis} {} keys: {}",
                    ap.prop_name,
                    c.keyframes.len(),
                    keys.join(" ")
                );
            }
        }
    }
}
