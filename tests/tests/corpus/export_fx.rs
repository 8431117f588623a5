//! Water and flare shapes. No corpus file holds a water material or a
//! nel_flare, and no reference export of either exists, so each rule of the
//! plug-in (nel_mesh_lib/export_mesh.cpp `buildWaterShape`, export_flare.cpp
//! `buildFlare`, scripts/startup/nel_flare.ms, seed S003 lines 489-491) is
//! checked on its own: on copies of real scenes edited through our chunk and
//! container writers, on the real meshes of corpus nodes, and on parameter
//! blocks built here. Every shape reads back and rewrites byte-identically
//! through the NeL reader.

use maxfs_exporters::nel::export::shape::flare_build::{
    flare_color, flare_shape, FlareError, FlareParams, FLARE_PARAMS,
};
use maxfs_exporters::nel::export::shape::uv_matrix::placement_matrix;
use maxfs_exporters::nel::export::shape::water_build::{
    best_triplet, color_map_matrix, convex_hull, is_convex, water_shape, ColorMapInputs,
    WaterError, WaterInputs,
};
use maxfs_exporters::nel::export::shape::{decomp, shape_bytes};
use maxfs_exporters::nel::export::{Context, ExportKind};
use maxfs_exporters::nel::shape::material::{Texture, TextureBase, TextureFile};
use maxfs_exporters::nel::shape::{Shape, ShapeStream};
use maxfs_exporters::nel::stream::{Bool, Ptr};
use maxfs_exporters::nel::{read_nel, write_nel, NelFile};
use maxfs_scene::eval::core::pblock::{Param, ParamBlock2, Value};
use maxfs_scene::eval::render::material as mtl;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::corpus_dir;
use maxfs_tests::rewrite::SceneEdit;

/// Reads a shape back and checks it rewrites to the same bytes. With
/// MAXFS_FX_OUT set, the bytes are also written there (for the NeL oracle,
/// /work/shared/oracles/nel/check.sh).
fn round_trip(bytes: &[u8], name: &str) -> Shape {
    if let Some(dir) = std::env::var_os("MAXFS_FX_OUT") {
        std::fs::write(std::path::Path::new(&dir).join(name), bytes).expect("writes");
    }
    let f = read_nel(bytes, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(write_nel(&f).expect("rewrite"), bytes, "{name}: rewrite");
    match f {
        NelFile::Shape(ShapeStream { shape }) => shape
            .get()
            .cloned()
            .unwrap_or_else(|| panic!("{name}: empty shape")),
        other => panic!("{name}: not a shape: {other:?}"),
    }
}

fn write_shape(shape: Shape) -> Vec<u8> {
    write_nel(&NelFile::Shape(ShapeStream {
        shape: Ptr::Obj {
            id: 1,
            obj: Box::new(shape),
        },
    }))
    .expect("writes")
}

/// Every point lies inside the convex polygon (either winding), within `tol`.
fn inside(poly: &[[f32; 2]], p: [f32; 2], tol: f64) -> bool {
    let n = poly.len();
    let area: f64 = (0..n)
        .map(|i| {
            let (a, b) = (poly[i], poly[(i + 1) % n]);
            a[0] as f64 * b[1] as f64 - b[0] as f64 * a[1] as f64
        })
        .sum();
    let sign = if area < 0.0 { -1.0 } else { 1.0 };
    (0..n).all(|i| {
        let (a, b) = (poly[i], poly[(i + 1) % n]);
        let (ex, ey) = ((b[0] - a[0]) as f64, (b[1] - a[1]) as f64);
        let len = (ex * ex + ey * ey).sqrt();
        // An edge shorter than the tolerance has a noise direction.
        if len <= tol {
            return true;
        }
        let cross = ex * (p[1] - a[1]) as f64 - ey * (p[0] - a[0]) as f64;
        sign * cross / len >= -tol
    })
}

/// The node-space XY projection of every evaluated mesh in `rel`.
fn projected_meshes(rel: &str) -> Vec<(String, Vec<[f32; 2]>)> {
    let doc = Document::open(&corpus_dir().join(rel)).expect("opens");
    let eval = SceneEval::from_document(doc).expect("scene");
    let mut out = Vec::new();
    for (i, o) in eval.graph.objects.iter().enumerate() {
        let Some(n) = o.node.as_ref() else { continue };
        let Some(Ok(mesh)) = eval.mesh(i, 0) else {
            continue;
        };
        let tm = eval.offset_tm(i);
        let pts = mesh
            .vertices
            .iter()
            .map(|&v| {
                let l = tm.transform_point(v);
                [l.0 as f32, l.1 as f32]
            })
            .collect();
        out.push((format!("{rel}:{}", n.name), pts));
    }
    out
}

/// CPolygon2D::buildConvexHull (nel/src/misc/polygon.cpp) on the real meshes
/// of corpus nodes: a convex polygon made of mesh vertices that holds every
/// vertex (the plug-in's water outline, "only convex shapes").
#[test]
fn water_hull_of_corpus_meshes() {
    let files = [
        "max/neloid/block.max",
        "max/neloid/tile.max",
        "max/ryzomcore/street.max",
        "max/misc/Barrel.max",
        "max/misc/Crate.max",
        "max/misc/Key.max",
        "max/babylon/RiggedFigure.max",
    ];
    let mut checked = 0;
    for rel in files {
        for (name, pts) in projected_meshes(rel) {
            let hull = match convex_hull(&pts) {
                Ok(h) => h,
                // Fewer than 3 distinct points: no outline (a NeL assert).
                Err(WaterError::TooFewVertices(k)) if k < 3 && pts.len() < 3 => continue,
                Err(e) => panic!("{name}: {e}"),
            };
            // f32 noise: 1e-6 of the mesh's extent.
            let extent = pts
                .iter()
                .flat_map(|p| p.iter())
                .fold(0f64, |m, &c| m.max((c as f64).abs()));
            let tol = 1e-6 * extent.max(1.0);
            assert!(is_convex(&hull, tol), "{name}: hull not convex: {hull:?}");
            for q in &hull {
                assert!(pts.contains(q), "{name}: hull point {q:?} is not a vertex");
            }
            for p in &pts {
                assert!(
                    inside(&hull, *p, tol),
                    "{name}: vertex {p:?} outside the hull"
                );
            }
            checked += 1;
        }
    }
    eprintln!("water hull: {checked} corpus meshes checked");
    assert!(checked >= 20, "only {checked} meshes checked");
}

fn file_texture(name: &str) -> Ptr<Texture> {
    Ptr::Obj {
        id: 0,
        obj: Box::new(Texture::CTextureFile(TextureFile {
            version: 1,
            base: TextureBase {
                version: 1,
                upload_format: 0,
                wrap_s: 0,
                wrap_t: 0,
                min_filter: 5,
                mag_filter: 1,
                load_grayscale_as_alpha: Some(Bool(1)),
            },
            file_name: name.into(),
            allow_degradation: Some(Bool(1)),
        })),
    }
}

fn file_name(t: &Ptr<Texture>) -> String {
    match t.get() {
        Some(Texture::CTextureFile(f)) => f.file_name.clone(),
        other => panic!("not a file texture: {other:?}"),
    }
}

/// The water inputs of neloid/block.max's Box01 (its real mesh in node space
/// and its decomposed local matrix), with maps and parameters set here.
fn block_water_inputs() -> WaterInputs {
    let doc = Document::open(&corpus_dir().join("max/neloid/block.max")).expect("opens");
    let eval = SceneEval::from_document(doc).expect("scene");
    let node = eval
        .graph
        .objects
        .iter()
        .position(|o| o.node.as_ref().is_some_and(|n| n.name == "Box01"))
        .expect("Box01");
    let mesh = eval.mesh(node, 0).expect("mesh").expect("evaluates");
    let tm = eval.offset_tm(node);
    WaterInputs {
        vertices: mesh
            .vertices
            .iter()
            .map(|&v| {
                let l = tm.transform_point(v);
                [l.0 as f32, l.1 as f32, l.2 as f32]
            })
            .collect(),
        env: (file_texture("day.tga"), Some(file_texture("night.tga"))),
        env_under: Some((file_texture("under.tga"), None)),
        displace: file_texture("displace.tga"),
        bump: file_texture("bump.tga"),
        displace_scale: [2.0, 3.0],
        displace_speed: [0.25, -0.5],
        bump_scale: [4.0, 5.0],
        bump_speed: [0.125, 0.75],
        height_factor: 1.5,
        pool_id: 7,
        splash: true,
        scene_env_map: [false, true],
        defaults: decomp::decompose(&eval.local_tm(node, 0)),
        dist_max: 250.0,
        color_map: None,
    }
}

/// buildWaterShape's layout: version 4 (seed S003 line 489), height map 0 =
/// displacement (slot 6) and 1 = bump (slot 5) with their scale and speed,
/// a second env map wraps both in a CTextureBlend (day/night, line 489),
/// pool id, splash and scene env map flags, CWaterShape's transition ratio.
#[test]
fn water_shape_layout() {
    let inputs = block_water_inputs();
    let n_vertices = inputs.vertices.len();
    let w = water_shape(inputs.clone()).expect("water shape");
    let bytes = write_shape(Shape::CWaterShape(w));
    let Shape::CWaterShape(w) = round_trip(&bytes, "box01.shape") else {
        panic!("not a water shape");
    };
    assert_eq!(w.version, 4);
    assert_eq!(w.water_pool_id, 7);
    assert_eq!(file_name(&w.bump_map[0]), "displace.tga");
    assert_eq!(file_name(&w.bump_map[1]), "bump.tga");
    assert_eq!(
        [w.height_map_scale[0].u.get(), w.height_map_scale[0].v.get()],
        [2.0, 3.0]
    );
    assert_eq!(
        [w.height_map_speed[1].u.get(), w.height_map_speed[1].v.get()],
        [0.125, 0.75]
    );
    let Some(Texture::CTextureBlend(b)) = w.env_map[0].get() else {
        panic!("env map 0 is not a blend");
    };
    assert_eq!(
        [file_name(&b.blend_tex[0]), file_name(&b.blend_tex[1])],
        ["day.tga", "night.tga"]
    );
    assert_eq!((b.blend_factor, b.sharing_enabled.0), (0, 1));
    assert_eq!(file_name(&w.env_map[1]), "under.tga");
    assert!(matches!(w.color_map, Ptr::Null));
    assert_eq!(w.wave_height_factor.get(), 1.5);
    assert_eq!(w.transition_ratio.get(), 0.6);
    assert_eq!(w.dist_max.map(|d| d.get()), Some(250.0));
    assert_eq!(w.splash_enabled.map(|b| b.0), Some(1));
    assert_eq!(
        w.uses_scene_water_env_map.map(|u| [u[0].0, u[1].0]),
        Some([0, 1])
    );
    // The outline: convex, made of the box's vertices, holding all of them.
    let hull: Vec<[f32; 2]> = w
        .poly
        .vertices
        .iter()
        .map(|v| [v.u.get(), v.v.get()])
        .collect();
    assert!(is_convex(&hull, 1e-5), "{hull:?}");
    assert!(hull.len() >= 3 && hull.len() <= n_vertices);
    for v in &inputs.vertices {
        assert!(inside(&hull, [v[0], v[1]], 1e-4), "{v:?} outside {hull:?}");
    }
    // The same texture for bump and displacement is refused (the plug-in's
    // share-name check).
    let mut same = inputs;
    same.bump = file_texture("Displace.tga");
    assert_eq!(
        water_shape(same).err().map(|e| e.to_string()),
        Some(WaterError::SameHeightMaps("displace.tga".into()).to_string())
    );
}

/// The .max path on a copy of neloid/block.max: Box01's NeL material with
/// bWater on (main block id 6) is dispatched to the water builder, which
/// refuses as the plug-in does — first without texture slots 1, 5 and 6
/// enabled, then, with them enabled, without a Bitmap in slot 6.
#[test]
fn water_material_rules_on_block_copy() {
    let mut e = SceneEdit::open("max/neloid/block.max");
    let node = e.node("Box01");
    let mat = mtl::node_material(&e.graph, node).expect("Box01 has a material");
    let blocks: Vec<usize> = e.graph.objects[mat]
        .references
        .iter()
        .filter_map(|r| usize::try_from(r.target).ok())
        .collect();
    let find = |e: &mut SceneEdit, count: u16| {
        blocks
            .iter()
            .copied()
            .find(|&b| e.pb2_count(b) == Some(count))
            .unwrap_or_else(|| panic!("no {count}-parameter block"))
    };
    let main = find(&mut e, 37);
    let textures = find(&mut e, 24);
    let reason = |doc: &Document| {
        let ex = maxfs_tests::export_doc("block", doc, &[ExportKind::Shape]);
        ex.errors
            .iter()
            .find(|x| x.node == "Box01")
            .map(|x| x.reason.clone())
    };
    let plain = Document::open(&corpus_dir().join("max/neloid/block.max")).expect("opens");
    assert_eq!(reason(&plain), None, "Box01 exports as a mesh");

    e.set_pb2_constant(main, 6, &1i32.to_le_bytes());
    let mut e2 = SceneEdit::open("max/neloid/block.max");
    e2.set_pb2_constant(main, 6, &1i32.to_le_bytes());
    for id in [0u16, 4, 5] {
        e2.set_pb2_constant(textures, id, &1i32.to_le_bytes());
    }
    let water = e.finish();
    assert_eq!(
        reason(&water),
        Some(WaterError::MissingSlots.to_string()),
        "bWater without the required slots"
    );
    let slots = e2.finish();
    assert_eq!(
        reason(&slots),
        Some(WaterError::NotBitmap("displace", 6).to_string())
    );
}

fn param(id: u16, value: Value) -> Param {
    Param {
        id,
        ty: 0,
        flags: 0x40,
        value,
        ref_slot: None,
    }
}

/// nel_flare's parameters by declaration index (nel_flare.ms, seed S003
/// line 491), the truncating colour conversion, and buildFlare's rules:
/// attenuation range only when attenuable, dazzle only when enabled,
/// textures only for used flares with the directory dropped.
#[test]
fn flare_from_declared_parameters() {
    let id = |name: &str| {
        FLARE_PARAMS
            .iter()
            .position(|n| *n == name)
            .expect("declared") as u16
    };
    assert_eq!(id("ColorParam"), 40);
    assert_eq!(id("lookAtMode"), 56);
    let pb = ParamBlock2 {
        version: 0,
        block_id: 0,
        count: 57,
        owner: 0,
        params: vec![
            param(id("texFileName2"), Value::String("C:\\fx\\glow.tga".into())),
            param(id("flareUsed2"), Value::Bool(true)),
            param(id("size2"), Value::Float(2.5)),
            param(id("pos2"), Value::Float(0.75)),
            param(id("ColorParam"), Value::Vector([0.999, 0.5, 0.25])),
            param(id("Attenuable"), Value::Int(1)),
            param(id("AttenuationRange"), Value::Float(3.0)),
            param(id("HasDazzle"), Value::Bool(true)),
            param(id("DazzleColor"), Value::Vector([0.2, 0.4, 1.0])),
            param(id("MaxViewDist"), Value::Float(400.0)),
            param(
                id("occlusionTestMesh"),
                Value::String("d:/meshes/occ.shape".into()),
            ),
            param(id("lookAtMode"), Value::Bool(false)),
        ],
    };
    let p = FlareParams::from_block(&pb).expect("params");
    let bytes = write_shape(Shape::CFlareShape(flare_shape(&p, 120.0)));
    let Shape::CFlareShape(f) = round_trip(&bytes, "flare.shape") else {
        panic!("not a flare");
    };
    assert_eq!(f.version, 5);
    // (uint)(255.f * c): 254.745 → 254, 127.5 → 127, 63.75 → 63.
    assert_eq!(
        (f.color.r, f.color.g, f.color.b, f.color.a),
        (254, 127, 63, 255)
    );
    assert_eq!(f.attenuation_range.map(|r| r.get()), Some(3.0));
    let d = f.dazzle.as_ref().expect("dazzle");
    assert_eq!((d.color.r, d.color.g, d.color.b), (51, 102, 255));
    assert_eq!(d.attenuation_range.get(), 0.5, "script default");
    assert_eq!(file_name(&f.flares[2].texture), "glow.tga");
    assert_eq!(
        file_name(&f.flares[0].texture),
        ".tga",
        "flareUsed0 defaults on"
    );
    assert!(f.flares[1].texture.get().is_none());
    assert_eq!((f.flares[2].size.get(), f.flares[2].pos.get()), (2.5, 0.75));
    let v = f.view_dist.as_ref().expect("view distances");
    assert_eq!(
        (v.max_view_dist.get(), v.max_view_dist_ratio.get()),
        (400.0, 0.9)
    );
    assert_eq!(f.dist_max.map(|d| d.get()), Some(120.0));
    let o = f.occlusion.as_ref().expect("v4 part");
    assert_eq!(o.occlusion_test_mesh_name, "occ.shape");
    assert_eq!(o.look_at_mode.0, 0);
    assert_eq!(flare_color([1.0, 0.0, 0.5]).r, 255);

    // Off by default: no range, no dazzle part.
    let plain = flare_shape(&FlareParams::defaults(), 1000.0);
    assert!(plain.attenuation_range.is_none() && plain.dazzle.is_none());
    round_trip(&write_shape(Shape::CFlareShape(plain)), "plain.shape");

    // An animated parameter (no constant) or a wrong type is refused by name.
    let mut bad = pb.clone();
    bad.params[2].value = Value::None;
    assert!(matches!(
        FlareParams::from_block(&bad),
        Err(FlareError::NotConstant("size2", _))
    ));
    bad.params[2].value = Value::String("x".into());
    assert!(matches!(
        FlareParams::from_block(&bad),
        Err(FlareError::WrongType("size2", _, "a float"))
    ));
}

/// Every shape of the water copy still exports through shape_bytes for the
/// other nodes (the dispatch only takes bWater nodes).
#[test]
fn water_dispatch_leaves_other_nodes() {
    let doc = Document::open(&corpus_dir().join("max/ryzomcore/street.max")).expect("opens");
    let eval = SceneEval::from_document(doc).expect("scene");
    let ctx = Context::new("street", &eval);
    let node = eval
        .graph
        .objects
        .iter()
        .position(|o| o.node.as_ref().is_some_and(|n| n.name == "Sphere01"))
        .expect("Sphere01");
    let bytes = shape_bytes(&ctx, node).expect("exports");
    assert!(matches!(
        round_trip(&bytes, "sphere01.shape"),
        Shape::CMesh(_)
    ));
}

/// Deterministic mutations of the water copy's NeL material: random values
/// in its main and texture blocks' word constants (flags, pool id, scales,
/// shader and slot switches). The export never panics, refuses or exports
/// each node, and whatever it writes reads back and rewrites identically.
#[test]
fn water_material_mutations() {
    let base = SceneEdit::open("max/neloid/block.max");
    let node = base.node("Box01");
    let mat = mtl::node_material(&base.graph, node).expect("material");
    let blocks: Vec<usize> = base.graph.objects[mat]
        .references
        .iter()
        .filter_map(|r| usize::try_from(r.target).ok())
        .collect();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut refused = 0;
    for _ in 0..60 {
        let mut e = SceneEdit::open("max/neloid/block.max");
        let mut words: Vec<(usize, u16)> = Vec::new();
        for &b in &blocks {
            if matches!(e.pb2_count(b), Some(37) | Some(24)) {
                words.extend(e.pb2_word_constants(b).into_iter().map(|id| (b, id)));
            }
        }
        assert!(!words.is_empty(), "no word constants");
        // Water on, then a few random words.
        if let Some(&(main, _)) = words
            .iter()
            .find(|(b, id)| *id == 6 && e.pb2_count(*b) == Some(37))
        {
            e.set_pb2_constant(main, 6, &1i32.to_le_bytes());
        }
        for _ in 0..4 {
            let (b, id) = words[(next() % words.len() as u64) as usize];
            let v = match next() % 4 {
                0 => 1u32,
                1 => 0,
                2 => (next() as f32 * 1e-12).to_bits(),
                _ => next() as u32,
            };
            e.set_pb2_constant(b, id, &v.to_le_bytes());
        }
        let doc = e.finish();
        let ex = maxfs_tests::export_doc("block", &doc, &[ExportKind::Shape]);
        for o in &ex.outputs {
            round_trip(&o.bytes, &o.name);
        }
        refused += ex.errors.iter().filter(|x| x.node == "Box01").count();
    }
    assert!(refused > 0, "no mutation reached a refusal");
}

/// `CPolygon2D::getBestTriplet` (nel/src/misc/polygon.cpp): loops i, j ≠ i,
/// k ∉ {i, j} and keeps the first strictly largest |cross|: on a unit square
/// (0,1,2) has area 1 and the later (0,1,3), (0,2,3)… of the same area do
/// not replace it; an inner point never wins; collinear points give none.
#[test]
fn water_best_triplet_is_the_first_largest() {
    let square = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.5, 0.5]];
    assert_eq!(best_triplet(&square).expect("triplet"), [0, 1, 2]);
    let shifted = [[0.5, 0.5], [0.0, 0.0], [2.0, 0.0], [2.0, 1.0]];
    // Largest: the three corners (area 2), first reached from i = 1.
    assert_eq!(best_triplet(&shifted).expect("triplet"), [1, 2, 3]);
    assert!(matches!(
        best_triplet(&[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]),
        Err(WaterError::ColorMapDegenerate)
    ));
}

/// buildWaterShape's colour-map matrix (export_mesh.cpp): B = C·A⁻¹ maps a
/// vertex's node-space (x, y, 1) to its texture coordinate through the
/// texmap's UV transform, V flipped and cropped: (u·w + cu, (1 − v)·h + cv).
/// With texture vertices that are an affine function of x and y (a planar
/// mapping, one texture vertex per vertex as Max's Plane has), the matrix
/// built from the best triplet must map every vertex of the grid so, not
/// only the three it was built from.
#[test]
fn water_color_map_matrix_maps_every_vertex() {
    let mut vertices = Vec::new();
    let mut tverts = Vec::new();
    for j in 0..5 {
        for i in 0..7 {
            let (x, y) = (-30.0 + 10.0 * i as f32, 5.0 + 7.5 * j as f32);
            vertices.push([x, y, 2.0]);
            // A planar map: u along x, v along y, tilted a little.
            tverts.push([0.02 * x + 0.005 * y + 0.1, 0.03 * y - 0.004 * x, 0.0]);
        }
    }
    let uv_matrix = placement_matrix([0.25, -0.5], [2.0, 3.0], 0.4);
    let crop = [0.125, 0.25, 0.5, 0.75];
    let c = ColorMapInputs {
        texture: file_texture("colour.tga"),
        tverts: tverts.clone(),
        uv_matrix,
        crop,
    };
    let b = color_map_matrix(&vertices, &c).expect("matrix");
    for (v, t) in vertices.iter().zip(&tverts) {
        let m = &uv_matrix;
        let u = t[0] * m[0][0] + t[1] * m[1][0] + t[2] * m[2][0] + m[3][0];
        let w = t[0] * m[0][1] + t[1] * m[1][1] + t[2] * m[2][1] + m[3][1];
        let want = [u * crop[2] + crop[0], (1.0 - w) * crop[3] + crop[1]];
        for r in 0..2 {
            let got = b[0][r] * v[0] + b[1][r] * v[1] + b[2][r];
            assert!(
                (got - want[r]).abs() < 1e-4,
                "vertex {v:?}: row {r}: {got} vs {}",
                want[r]
            );
        }
    }
    // No texture vertices: the plug-in's "no mapping" NULL; a triplet vertex
    // beyond the texture vertices (read by vertex index) is refused.
    let none = ColorMapInputs {
        tverts: Vec::new(),
        ..c.clone()
    };
    assert!(matches!(
        color_map_matrix(&vertices, &none),
        Err(WaterError::ColorMapNoMapping)
    ));
    let short = ColorMapInputs {
        tverts: tverts[..3].to_vec(),
        ..c
    };
    assert!(matches!(
        color_map_matrix(&vertices, &short),
        Err(WaterError::ColorMapTVertOutOfRange(..))
    ));
}

/// The water shape with a colour map, on block.max's Box01 with its real
/// mesh and texture vertices (map channel 1, read by vertex index as the
/// plug-in does): the colour map is written, the matrix maps the best
/// triplet's vertices to their texture coordinates, and the file reads back,
/// rewrites identically, and NeL loads and rewrites it identically.
#[test]
fn water_shape_with_color_map() {
    let mut inputs = block_water_inputs();
    let doc = Document::open(&corpus_dir().join("max/neloid/block.max")).expect("opens");
    let eval = SceneEval::from_document(doc).expect("scene");
    let node = eval
        .graph
        .objects
        .iter()
        .position(|o| o.node.as_ref().is_some_and(|n| n.name == "Box01"))
        .expect("Box01");
    let mesh = eval.mesh(node, 0).expect("mesh").expect("evaluates");
    let tverts = mesh
        .maps
        .iter()
        .find(|m| m.channel == 1)
        .expect("Box01 has map channel 1")
        .vertices
        .clone();
    let crop = [0.0, 0.5, 1.0, 0.5];
    inputs.color_map = Some(ColorMapInputs {
        texture: file_texture("colour.tga"),
        tverts: tverts.clone(),
        uv_matrix: placement_matrix([0.0, 0.0], [1.0, 1.0], 0.0),
        crop,
    });
    let xy: Vec<[f32; 2]> = inputs.vertices.iter().map(|v| [v[0], v[1]]).collect();
    let tri = best_triplet(&xy).expect("triplet");
    let w = water_shape(inputs.clone()).expect("water shape");
    let bytes = write_shape(Shape::CWaterShape(w));
    let Shape::CWaterShape(w) = round_trip(&bytes, "box01_colour.shape") else {
        panic!("not a water shape");
    };
    assert_eq!(file_name(&w.color_map), "colour.tga");
    let col = |c: &maxfs_exporters::nel::stream::Vec2| [c.u.get(), c.v.get()];
    let b = [
        col(&w.color_map_mat_column0),
        col(&w.color_map_mat_column1),
        col(&w.color_map_mat_pos),
    ];
    for &i in &tri {
        let v = inputs.vertices[i];
        let t = tverts[i];
        let want = [t[0] * crop[2] + crop[0], (1.0 - t[1]) * crop[3] + crop[1]];
        for r in 0..2 {
            let got = b[0][r] * v[0] + b[1][r] * v[1] + b[2][r];
            assert!((got - want[r]).abs() < 1e-4, "{got} vs {}", want[r]);
        }
    }
    crate::export_remanence::nel_oracle(&[("box01_colour.shape".into(), bytes)]);
}
