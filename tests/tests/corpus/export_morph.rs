//! Morpher blend shapes in the NeL export of babylon/AnimatedMorphCube.max:
//! each Morpher node's `.shape` carries one `CBlendShape` per channel with a
//! target node, and its deltas, built from the target nodes' own meshes, must
//! equal what the Morpher itself stored for the channel at 100 % (its
//! per-point deltas, an independent record of the same targets) minus the
//! channels already applied at time 0; the `.anim` carries one
//! `<target>MorphFactor` track per animated channel whose keys are the
//! channel's percentages. (The same Morpher channels are checked against
//! Babylon's glTF morph targets in gltf_morph.rs.)

use maxfs_exporters::nel::anim::Track as NelTrack;
use maxfs_exporters::nel::export::ExportKind;
use maxfs_exporters::nel::shape::mesh::Mesh as NelMesh;
use maxfs_exporters::nel::shape::vertex_buffer::ChannelData;
use maxfs_exporters::nel::shape::Shape;
use maxfs_exporters::nel::{read_nel, NelFile};
use maxfs_scene::eval::modifier::{morpher, MORPHER};
use maxfs_scene::eval::{Stack, Vec3};

const FILE: &str = "max/babylon/AnimatedMorphCube.max";

fn v3(v: &maxfs_exporters::nel::stream::Vec3) -> Vec3 {
    Vec3(
        f64::from(v.x.get()),
        f64::from(v.y.get()),
        f64::from(v.z.get()),
    )
}

/// (seconds, value) of a float keyframer.
fn float_keys(t: &NelTrack) -> Vec<(f64, f64)> {
    let k = |x: &maxfs_exporters::nel::stream::F32| f64::from(x.get());
    match t {
        NelTrack::CTrackKeyFramerBezierFloat(kf) => kf
            .keys
            .iter()
            .map(|(t, key)| (k(t), k(&key.value)))
            .collect(),
        NelTrack::CTrackKeyFramerLinearFloat(kf) => kf
            .keys
            .iter()
            .map(|(t, key)| (k(t), k(&key.value)))
            .collect(),
        NelTrack::CTrackKeyFramerTCBFloat(kf) => kf
            .keys
            .iter()
            .map(|(t, key)| (k(t), k(&key.value)))
            .collect(),
        other => panic!("not a float keyframer: {other:?}"),
    }
}

#[test]
fn morpher_channels_become_blend_shapes_and_morph_factor_tracks() {
    let eval = maxfs_tests::corpus_eval(FILE);
    let doc = eval.doc.clone();
    let out = maxfs_tests::export_doc(
        "AnimatedMorphCube",
        &doc,
        &[ExportKind::Shape, ExportKind::Anim],
    );
    let (mut nodes, mut checked_vertices, mut factor_tracks) = (0, 0, 0);
    let anim_out = out
        .outputs
        .iter()
        .find(|o| o.kind == ExportKind::Anim)
        .expect("an .anim");
    let anim_file = read_nel(&anim_out.bytes, &anim_out.name).expect("reads");
    let NelFile::Animation(anim) = &anim_file else {
        panic!("not an animation")
    };
    for (node, name) in maxfs_tests::named_nodes(&eval) {
        let Some((stack, _)) = eval.modifier_stack(node) else {
            continue;
        };
        let Some(m) = stack.iter().find(|a| a.class == MORPHER).map(|a| a.object) else {
            continue;
        };
        let mesh = eval
            .mesh_with(node, 0, Stack::Full)
            .expect("object")
            .expect("the morphed mesh evaluates");
        let channels = morpher::channels(&eval, m, mesh.vertices.len()).expect("channels");
        let weights0: Vec<f64> = channels
            .iter()
            .map(|c| morpher::channel_weight(&eval, m, c, 0).expect("weight"))
            .collect();
        let offset = eval.offset_tm(node);
        let size = mesh
            .vertices
            .iter()
            .map(|p| offset.transform_point(*p).len())
            .fold(0.0, f64::max);
        let shape_name = format!("{}.shape", name.to_lowercase());
        let o = out
            .outputs
            .iter()
            .find(|o| o.name == shape_name)
            .unwrap_or_else(|| panic!("{name}: no shape; errors {:?}", out.errors));
        let file = read_nel(&o.bytes, &o.name).expect("reads");
        let cmesh: &NelMesh = match &file {
            NelFile::Shape(s) => match s.shape.get() {
                Some(Shape::CMesh(m)) => m,
                other => panic!("{name}: {other:?}"),
            },
            _ => panic!("not a shape"),
        };
        let geom = cmesh.geom.as_ref().expect("geom");
        let shapes = &geom.morpher.as_ref().expect("morpher").blend_shapes;
        let morph_names: Vec<&str> = cmesh
            .base
            .as_ref()
            .expect("base")
            .animated_morph
            .iter()
            .map(|m| m.name.as_str())
            .collect();
        let targets: Vec<(u16, String)> = (0..100u32)
            .filter_map(|i| {
                let r = eval.graph.objects[m]
                    .references
                    .iter()
                    .find(|r| r.slot == 101 + i)?;
                let t = usize::try_from(r.target).ok()?;
                Some((i as u16, eval.graph.node_name(t).to_string()))
            })
            .collect();
        assert!(!targets.is_empty(), "{name}: the Morpher has targets");
        assert_eq!(
            morph_names,
            targets.iter().map(|t| t.1.as_str()).collect::<Vec<_>>(),
            "{name}: animated morph names"
        );
        assert_eq!(
            shapes.len(),
            targets.len(),
            "{name}: one blend shape per target"
        );
        let positions: Vec<Vec3> = match geom
            .vbuffer
            .vertices
            .channels
            .iter()
            .find(|c| c.value == "position")
            .map(|c| &c.data)
        {
            Some(ChannelData::Float(v)) => v
                .chunks(3)
                .map(|c| {
                    Vec3(
                        f64::from(c[0].get()),
                        f64::from(c[1].get()),
                        f64::from(c[2].get()),
                    )
                })
                .collect(),
            other => panic!("positions: {other:?}"),
        };
        for ((ch_index, target), bs) in targets.iter().zip(shapes) {
            assert_eq!(&bs.name, target);
            let ch = channels
                .iter()
                .find(|c| c.index == *ch_index)
                .expect("the target's channel is applied");
            assert_eq!(
                bs.delta_pos.len(),
                bs.vert_refs.len(),
                "{target}: one delta per kept vertex"
            );
            for (i, p) in positions.iter().enumerate() {
                // The Max vertex at this VB position.
                let v = (0..mesh.vertices.len())
                    .min_by(|&a, &b| {
                        let da = offset.transform_point(mesh.vertices[a]).minus(*p).len();
                        let db = offset.transform_point(mesh.vertices[b]).minus(*p).len();
                        da.total_cmp(&db)
                    })
                    .expect("vertices");
                // The channel at 100 % minus the channels applied at time 0.
                let mut want = ch.displacement[v];
                for (c, w) in channels.iter().zip(&weights0) {
                    want = want.minus(c.displacement[v].scale(w / 100.0));
                }
                let want = offset.transform_vector(want);
                let got = bs
                    .vert_refs
                    .iter()
                    .position(|&r| r as usize == i)
                    .map(|j| v3(&bs.delta_pos[j]))
                    .unwrap_or_default();
                assert!(
                    got.minus(want).len() < 1e-4 * size,
                    "{name}/{target} VB vertex {i}: {got:?} vs {want:?}"
                );
                checked_vertices += 1;
            }
            // The factor track: keys at the channel's key times, in percent.
            if !ch.key_times.is_empty() {
                let track_name = format!("{name}.{target}MorphFactor");
                let id = anim
                    .id_by_name
                    .iter()
                    .find(|e| e.0 == track_name)
                    .unwrap_or_else(|| panic!("no track {track_name}"))
                    .1 as usize;
                let keys = float_keys(anim.tracks[id].0.get().expect("track"));
                assert_eq!(keys.len(), ch.key_times.len(), "{track_name}");
                for (&(s, value), &t) in keys.iter().zip(&ch.key_times) {
                    assert!((s - f64::from(t) / 4800.0).abs() < 1e-6);
                    let want = morpher::channel_weight(&eval, m, ch, t).expect("weight");
                    assert!(
                        (value - want).abs() < 1e-4,
                        "{track_name} at {t}: {value} vs {want}"
                    );
                }
                factor_tracks += 1;
            }
        }
        nodes += 1;
    }
    assert_eq!(nodes, 2, "the two Morpher nodes");
    assert!(
        checked_vertices > 0 && factor_tracks > 0,
        "{checked_vertices} {factor_tracks}"
    );
}
