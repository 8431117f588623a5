//! Instance groups of current-era files (issue 17 item 7): the fields the
//! plug-in's `buildInstanceGroup` (export_scene.cpp) sets and the current
//! serializers write (scene_group.cpp CInstance v7, cluster.cpp CCluster v3,
//! portal.cpp CPortal v1), particle-system instance names
//! (export_misc.cpp getNelObjectName, scripts/startup/nel_ps.ms) and the FX
//! cluster test with the `.ps` bounding box (seed S003 lines 281, 464). No
//! corpus scene carries these settings: they are written into a copy of
//! babylon/LightOrientation.max (Max 2017+) through our writers; the `.ps` files are real
//! ones from the corpus (nel/snowballs/particle).

use maxfs_exporters::nel::export::ig_fx;
use maxfs_exporters::nel::export::properties::{id, NEL_CLASS_ID, NEL_SUPER_CLASS};
use maxfs_exporters::nel::export::{Context, ExportKind};
use maxfs_exporters::nel::ig::InstanceGroup;
use maxfs_exporters::nel::shape::{Shape, ShapeStream};
use maxfs_exporters::nel::{read_nel, write_nel, NelFile};
use maxfs_scene::chunk::Chunk;
use maxfs_scene::typed::ClassId;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use maxfs_tests::rewrite::SceneEdit;

const SRC: &str = "max/babylon/LightOrientation.max";
const NEL_PS: ClassId = ClassId(0x58ce_2893, 0xbd2b_74ef);
const PARAM_BLOCK2: ClassId = ClassId(0x82, 0);
const DLL_MAXSCRIPT: i32 = -2;
const GEOMETRY: u32 = 0x10;
/// Target objects are geometry to Max but not meshes to the plug-in.
const TARGET: ClassId = ClassId(0x1020, 0);
/// ParamBlock2 type words (pblock.rs `ty`).
const STRING: u16 = 8;
const FLOAT: u16 = 0;
const BOOL: u16 = 4;

fn appdata(e: &mut SceneEdit, node: usize, sub_id: u32, text: &str) {
    e.add_appdata(node, (NEL_CLASS_ID, NEL_SUPER_CLASS), sub_id, text);
}

/// The geometry nodes of the scene, in storage order.
fn geometry(e: &SceneEdit) -> Vec<(usize, String)> {
    let eval = maxfs_tests::corpus_eval(SRC);
    e.graph
        .nodes()
        .filter(|(o, _)| {
            eval.node_object(o.index)
                .and_then(|b| eval.graph.objects.get(b)?.class.as_ref())
                .is_some_and(|c| c.super_class == GEOMETRY && c.class_id != TARGET)
        })
        .map(|(o, n)| (o.index, n.name.clone()))
        .collect()
}

fn the_ig(doc: &Document) -> (Vec<(String, String)>, InstanceGroup) {
    let ex = maxfs_tests::export_doc("LightOrientation", doc, &[ExportKind::Ig]);
    let o = ex
        .outputs
        .iter()
        .find(|o| o.name == "scene.ig")
        .unwrap_or_else(|| panic!("no scene.ig: {:?}", ex.errors));
    if let Some(dir) = std::env::var_os("MAXFS_FX_OUT") {
        std::fs::write(std::path::Path::new(&dir).join("scene.ig"), &o.bytes).expect("writes");
    }
    let f = read_nel(&o.bytes, &o.name).expect("reads");
    assert_eq!(
        write_nel(&f).expect("rewrites"),
        o.bytes,
        "re-serialization"
    );
    let NelFile::InstanceGroup(ig) = f else {
        panic!("not an instance group")
    };
    let errors = ex
        .errors
        .iter()
        .map(|e| (e.node.clone(), e.reason.clone()))
        .collect();
    (errors, ig)
}

/// buildInstanceGroup on a current-era file: CInstance 7 with Visible
/// (CAMERA_COLLISION_MESH_GENERATION != 3) and DontCastShadowForInterior /
/// Exterior from their AppData; the cluster (ACCEL 2) in CCluster 3 with its
/// SOUND_GROUP, ENV_FX "no fx" written as none, and audibility separated from
/// visibility by ACCEL bit 64 (father audible 128, audible from father 256).
#[test]
fn current_era_instance_and_cluster_fields() {
    let mut e = SceneEdit::open(SRC);
    let geo = geometry(&e);
    assert!(geo.len() >= 3, "{geo:?}");
    let (cluster, a, b) = (geo[0].0, geo[1].0, geo[2].0);
    for (n, _) in &geo {
        appdata(&mut e, *n, id::IGNAME, "scene");
    }
    // Cluster: father visible (4), audible not like visible (64), audible
    // from father (256): father audible off though father visible is on.
    appdata(&mut e, cluster, id::ACCEL, &(2 + 4 + 64 + 256).to_string());
    appdata(&mut e, cluster, id::SOUND_GROUP, "cave");
    appdata(&mut e, cluster, id::ENV_FX, "no fx");
    appdata(&mut e, a, id::CAMERA_COLLISION_MESH_GENERATION, "3");
    appdata(&mut e, a, id::LIGHT_DONT_CAST_SHADOW_INTERIOR, "1");
    appdata(&mut e, b, id::LIGHT_DONT_CAST_SHADOW_EXTERIOR, "1");
    let (_, ig) = the_ig(&e.finish());
    assert_eq!(ig.clusters.len(), 1);
    let c = &ig.clusters[0];
    assert_eq!(c.version, 3);
    assert_eq!(c.name.as_deref(), Some(geo[0].1.as_str()));
    assert_eq!(c.sound_group.as_deref(), Some("cave"));
    assert_eq!(c.environment_fx.as_deref(), Some(""));
    assert_eq!((c.father_visible.0, c.visible_from_father.0), (1, 0));
    assert_eq!(c.father_audible.map(|x| x.0), Some(0));
    assert_eq!(c.audible_from_father.map(|x| x.0), Some(1));
    let inst = |name: &str| {
        ig.instances
            .iter()
            .find(|i| i.instance_name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("no instance {name}"))
    };
    let (ia, ib) = (inst(&geo[1].1), inst(&geo[2].1));
    assert_eq!(ia.version, 7);
    let flags = |i: &maxfs_exporters::nel::ig::Instance| {
        [
            i.visible.map(|x| x.0),
            i.dont_cast_shadow_for_interior.map(|x| x.0),
            i.dont_cast_shadow_for_exterior.map(|x| x.0),
        ]
    };
    assert_eq!(flags(ia), [Some(0), Some(1), Some(0)]);
    assert_eq!(flags(ib), [Some(1), Some(0), Some(1)]);
    assert_eq!(
        ig.instances.len(),
        geo.len() - 1,
        "the cluster is no instance"
    );
}

/// A ParamBlock2 holding nel_ps's parameters (ps_file_name, PSParam0-3,
/// PSTrigger), built on a block of the file so its other chunks are real.
fn ps_block(e: &mut SceneEdit, owner: u32, file: &str) -> Vec<Chunk> {
    let template = e.pb2_template();
    let mut s = (file.len() as u32 + 1).to_le_bytes().to_vec();
    s.extend_from_slice(file.as_bytes());
    s.push(0);
    let values: Vec<(u16, u16, Vec<u8>)> = vec![
        (0, STRING, s),
        (1, FLOAT, 0f32.to_le_bytes().to_vec()),
        (2, FLOAT, 0f32.to_le_bytes().to_vec()),
        (3, FLOAT, 0f32.to_le_bytes().to_vec()),
        (4, FLOAT, 0f32.to_le_bytes().to_vec()),
        (5, BOOL, 0i32.to_le_bytes().to_vec()),
    ];
    let values: Vec<(u16, u16, &[u8])> = values.iter().map(|(p, t, v)| (*p, *t, &v[..])).collect();
    maxfs_tests::rewrite::param_block2(template, owner, &values)
}

/// Turns node `n` into a nel_ps whose delegate is its current object.
fn make_ps(e: &mut SceneEdit, n: usize, file: &str) {
    let delegate = e.reference(n, 1);
    let pb2 = e.class_index(PARAM_BLOCK2).expect("ParamBlock2 class");
    let cls = e.add_class(DLL_MAXSCRIPT, NEL_PS, GEOMETRY, "nel_ps");
    let count = e.graph.objects.len();
    let refs: Vec<u8> = [delegate as i32, count as i32 + 1]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    assert_eq!(e.add_object(cls, vec![Chunk::leaf(0x2034, refs)]), count);
    let block = ps_block(e, count as u32, file);
    assert_eq!(e.add_object(pb2, block), count + 1);
    e.set_reference(n, 1, count as i32);
}

/// getNelObjectName names a particle-system instance after its
/// ps_file_name without directory; the clusterize test uses the 8 corners
/// of the `.ps` shape's box (CParticleSystemShape::getAABBox) placed by the
/// node TM and re-boxed in world space (CAABBox::transformAABBox), found by
/// name below the --ps-path folders; without them the helper is tested and
/// the file says so.
#[test]
fn particle_system_instances() {
    let stored = "C:\\graphics\\sfx\\snow.ps";
    let mut e = SceneEdit::open(SRC);
    let geo = geometry(&e);
    let (ps_node, ps_name) = geo[1].clone();
    for (n, _) in &geo {
        appdata(&mut e, *n, id::IGNAME, "scene");
    }
    appdata(&mut e, geo[0].0, id::ACCEL, "2");
    make_ps(&mut e, ps_node, stored);
    let doc = e.finish();
    let (errors, ig) = the_ig(&doc);
    let inst = ig
        .instances
        .iter()
        .find(|i| i.instance_name.as_deref() == Some(ps_name.as_str()))
        .expect("the particle system's instance");
    assert_eq!(inst.name, "snow.ps");
    // No search folders: the helper stands in, and the file says why.
    assert!(
        errors.iter().any(|(n, r)| *n == ps_name
            && r.contains("particle system")
            && r.contains("--ps-path")),
        "{errors:?}"
    );

    // With the corpus particle folder: the box of the real snow.ps.
    let eval = maxfs_scene::eval::SceneEval::from_document(doc).expect("scene");
    let mut ctx = Context::new("LightOrientation", &eval);
    ctx.ps_search = Some(maxfs_exporters::gltf::TextureSearch {
        max_dir: None,
        roots: vec![corpus_dir().join("nel/snowballs")],
        log: None,
    });
    let corners = ig_fx::fx_corners(&ctx, ps_node).expect("corners");

    let bytes =
        std::fs::read(corpus_dir().join("nel/snowballs/particle/snow.ps")).expect("snow.ps");
    let NelFile::Shape(ShapeStream { shape }) = read_nel(&bytes, "snow.ps").expect("reads") else {
        panic!("not a shape")
    };
    let Some(Shape::CParticleSystemShape(p)) = shape.get() else {
        panic!("not a particle system")
    };
    let (c, h) = match (&p.use_precomputed_bbox, &p.precomputed_bbox) {
        (Some(u), Some(b)) if u.get() => (
            [b.center.x.get(), b.center.y.get(), b.center.z.get()],
            [
                b.half_size.x.get(),
                b.half_size.y.get(),
                b.half_size.z.get(),
            ],
        ),
        _ => ([0.0; 3], [1.0; 3]),
    };
    // Every corner of the shape's box, placed by the node's world TM, lies
    // in the world box the 8 test points span, and touches each of its faces.
    let tm = eval.world_tm(ps_node, 0);
    let lo: Vec<f32> = (0..3)
        .map(|i| corners.iter().map(|p| p[i]).fold(f32::MAX, f32::min))
        .collect();
    let hi: Vec<f32> = (0..3)
        .map(|i| corners.iter().map(|p| p[i]).fold(f32::MIN, f32::max))
        .collect();
    let mut touch = [[false; 2]; 3];
    for k in 0..8 {
        let q = [
            c[0] + if k & 1 != 0 { h[0] } else { -h[0] },
            c[1] + if k & 2 != 0 { h[1] } else { -h[1] },
            c[2] + if k & 4 != 0 { h[2] } else { -h[2] },
        ];
        let w = tm.transform_point(maxfs_scene::eval::Vec3(
            q[0] as f64,
            q[1] as f64,
            q[2] as f64,
        ));
        for (i, x) in [w.0, w.1, w.2].into_iter().enumerate() {
            let tol = 1e-4 * (1.0 + x.abs()) as f32;
            assert!(
                x as f32 >= lo[i] - tol && x as f32 <= hi[i] + tol,
                "{x} outside {lo:?} {hi:?}: {corners:?} from {c:?} ± {h:?}"
            );
            touch[i][0] |= (x as f32 - lo[i]).abs() <= tol;
            touch[i][1] |= (x as f32 - hi[i]).abs() <= tol;
        }
    }
    assert!(touch.iter().flatten().all(|&t| t), "{touch:?}");
}

/// A kept export set (`--cache-dir`) depends on the `.ps` shapes its
/// particle-system instances read: served from disk while the lookups hold,
/// built again when a `.ps` appears beside the source or goes away.
#[test]
fn kept_exports_follow_the_ps_files_beside_the_source() {
    let src = tempfile::tempdir().expect("tempdir");
    let cache = tempfile::tempdir().expect("tempdir");
    let mut e = SceneEdit::open(SRC);
    let geo = geometry(&e);
    for (n, _) in &geo {
        appdata(&mut e, *n, id::IGNAME, "scene");
    }
    let ps_name = geo[1].1.clone();
    make_ps(&mut e, geo[1].0, "C:\\graphics\\sfx\\snow.ps");
    let bytes = e.finish_file().to_bytes().expect("writes");
    std::fs::write(src.path().join("Lit.max"), bytes).expect("write source");
    let tree = || {
        let disk = maxfs_fs::disk_cache::DiskCache::open(cache.path(), src.path()).expect("cache");
        maxfs_fs::MaxFs::new(
            src.path(),
            maxfs_fs::Options {
                disk_cache: Some(std::sync::Arc::new(disk)),
                ..maxfs_fs::Options::default()
            },
        )
    };
    let errors = std::path::Path::new("Lit.max/export/errors.txt");
    let built = |fs: &maxfs_fs::MaxFs| {
        fs.generation_counts()
            .iter()
            .filter(|(k, _)| k.ends_with("/export"))
            .map(|(_, n)| *n)
            .sum::<u64>()
    };
    let missing = |text: &str| {
        text.lines()
            .any(|l| l.contains(&ps_name) && l.contains("no bounding box of the particle system"))
    };

    let first = tree();
    let text = String::from_utf8(first.read(errors).expect("errors")).expect("utf-8");
    assert_eq!(built(&first), 1);
    assert!(missing(&text), "{text}");
    let second = tree();
    assert_eq!(second.read(errors).expect("errors"), text.as_bytes());
    assert_eq!(built(&second), 0, "unchanged: served from disk");

    // The .ps appears beside the source: built again, and found.
    std::fs::copy(
        corpus_dir().join("nel/snowballs/particle/snow.ps"),
        src.path().join("snow.ps"),
    )
    .expect("copy snow.ps");
    let third = tree();
    let found = String::from_utf8(third.read(errors).expect("errors")).expect("utf-8");
    assert_eq!(built(&third), 1, "a new .ps makes the kept exports stale");
    assert!(!missing(&found), "{found}");
    let fourth = tree();
    fourth.read(errors).expect("errors");
    assert_eq!(built(&fourth), 0, "unchanged .ps: served from disk");

    // Taken away again: stale, and the helper stands in once more.
    std::fs::remove_file(src.path().join("snow.ps")).expect("remove");
    let fifth = tree();
    let again = String::from_utf8(fifth.read(errors).expect("errors")).expect("utf-8");
    assert_eq!(built(&fifth), 1);
    assert_eq!(again, text);
}
