//! Per-frame `.anim` samples at the file's frame rate. LightOrientation.max is a
//! 24 fps scene (frame = 200 ticks) whose animation range starts at frame 1;
//! its Euler XYZ rotations are sampled into linear NeL keys. The Babylon.js
//! exporter's glTF of the same file keys those channels on Max's frames (its
//! times count from the range start): each of its key times must be one of our
//! sample times, which a 30 fps step (160 ticks) misses.

use maxfs_exporters::nel::anim::Track;
use maxfs_exporters::nel::export::ExportKind;
use maxfs_exporters::nel::{read_nel, NelFile};
use maxfs_scene::{settings, Document};
use maxfs_tests::corpus_dir;
use maxfs_tests::gltf_ref::{accessor, Gltf};

/// Key times (seconds) of a linear NeL track.
fn key_times(t: &Track) -> Option<Vec<f64>> {
    let times: Vec<f32> = match t {
        Track::CTrackKeyFramerLinearQuat(f) => f.keys.iter().map(|k| k.0.get()).collect(),
        Track::CTrackKeyFramerLinearVector(f) => f.keys.iter().map(|k| k.0.get()).collect(),
        _ => return None,
    };
    Some(times.into_iter().map(f64::from).collect())
}

#[test]
fn sampled_anim_keys_fall_on_the_files_frames() {
    let model = "LightOrientation";
    let doc = Document::open(&corpus_dir().join(format!("max/babylon/{model}.max"))).expect("max");
    let typed = doc.typed();
    let graph = typed.scene.as_ref().expect("scene");
    let time = settings::time_config(&doc).expect("time configuration");
    assert_eq!((time.frame_rate, time.start), (24, 200));
    let out = maxfs_tests::export_doc(model, &doc, &[ExportKind::Anim]);
    let o = out.outputs.first().expect("an .anim");
    let NelFile::Animation(a) = read_nel(&o.bytes, &o.name).expect("anim reads") else {
        panic!("not an animation");
    };
    let gl = Gltf::open("LightOrientation/LightOrientation.gltf");
    let (mut compared, mut failures) = (0, Vec::new());
    for an in gl.g["animations"].as_array().into_iter().flatten() {
        for ch in an["channels"].as_array().into_iter().flatten() {
            if ch["target"]["path"] != "rotation" {
                continue;
            }
            let name = gl.node_name(ch["target"]["node"].as_u64().expect("node") as usize);
            if !graph.nodes().any(|(_, n)| n.name == name) {
                continue;
            }
            let track_name = format!("{name}.rotquat");
            let Some(track) = a
                .id_by_name
                .iter()
                .find(|(n, _)| *n == track_name)
                .and_then(|(_, i)| a.tracks.get(*i as usize)?.0.get())
            else {
                failures.push(format!("no track {track_name}"));
                continue;
            };
            let ours = key_times(track).expect("a sampled (linear) rotation track");
            // Every sample is on a 24 fps frame.
            for t in &ours {
                let frames = t * 24.0;
                if (frames - frames.round()).abs() > 1e-3 {
                    failures.push(format!("{track_name}: sample at {t} s is not on a frame"));
                }
            }
            let s = &an["samplers"][ch["sampler"].as_u64().expect("sampler") as usize];
            for t in accessor(&gl.g, &gl.bin, s["input"].as_u64().expect("in") as usize) {
                let want = f64::from(time.start) / 4800.0 + t[0];
                compared += 1;
                if !ours.iter().any(|x| (x - want).abs() < 1e-5) {
                    failures.push(format!("{track_name}: no sample at {want} s"));
                }
            }
        }
    }
    eprintln!("anim frame rate: {compared} reference key times found among our samples");
    assert!(compared >= 20, "only {compared} key times compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
