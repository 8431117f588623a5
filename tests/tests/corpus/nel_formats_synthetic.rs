//! NeL formats with no corpus file (CWaterShape, CWaveMakerShape, CFlareShape, CTextureBlend,
//! CTextureBump (no corpus `.shape` holds either class),
//! CSegRemanenceShape, `.veget`, `.cmb`, `.pacs_prim`, `.clod`): values built here are written
//! by our writer, read back, re-written identically and compared field by field (through the
//! full JSON view, plus direct checks); every truncation gives a precise error, never a panic.

use maxfs_exporters::nel::clod::{
    BoneInfluence, LodAnim, LodBuildTexture, LodCharacterShape, LodCharacterShapeBuild,
    LodShapeUvNormals, PixelInfo, SkinWeight,
};
use maxfs_exporters::nel::cmb::{CollisionFace, CollisionMeshBuild};
use maxfs_exporters::nel::pacs_prim::{PrimitiveBlock, PrimitiveDesc};
use maxfs_exporters::nel::shape::flare::{Dazzle, Flare, FlareOcclusion, FlareShape, ViewDist};
use maxfs_exporters::nel::shape::material::Material;
use maxfs_exporters::nel::shape::material::{
    MaterialBase, TexEnv, Texture, TextureBase, TextureBlend, TextureBump, TextureFile,
    TrackDefaultFloat, TrackDefaultInt, TrackDefaultQuat, TrackDefaultRgba, TrackDefaultVector,
};
use maxfs_exporters::nel::shape::seg_remanence::SegRemanenceShape;
use maxfs_exporters::nel::shape::vertex_buffer::{
    Channel, ChannelData, VbHeader, VbSubset, VertexBuffer,
};
use maxfs_exporters::nel::shape::water::{Polygon2D, WaterShape, WaveMakerShape};
use maxfs_exporters::nel::shape::{Shape, ShapeStream};
use maxfs_exporters::nel::stream::{AaBox, Bool, Ptr, Quat, Rgba, Vec2, Vec3, F32};
use maxfs_exporters::nel::veget::VegetableShape;
use maxfs_exporters::nel::{self, NelFile, NelKind};

fn f(v: f32) -> F32 {
    F32::from_f32(v)
}
fn v3(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3 {
        x: f(x),
        y: f(y),
        z: f(z),
    }
}
fn v2(u: f32, v: f32) -> Vec2 {
    Vec2 { u: f(u), v: f(v) }
}
fn rgba(r: u8, g: u8, b: u8, a: u8) -> Rgba {
    Rgba { r, g, b, a }
}
fn tdv(x: f32, y: f32, z: f32) -> TrackDefaultVector {
    TrackDefaultVector {
        version: 0,
        value: v3(x, y, z),
    }
}
fn tdq() -> TrackDefaultQuat {
    TrackDefaultQuat {
        version: 0,
        value: Quat {
            x: f(0.0),
            y: f(0.0),
            z: f(-0.0),
            w: f(1.0),
        },
    }
}

fn texture(id: u64, name: &str) -> Ptr<Texture> {
    Ptr::Obj {
        id,
        obj: Box::new(Texture::CTextureFile(TextureFile {
            version: 1,
            base: TextureBase {
                version: 1,
                upload_format: 0,
                wrap_s: 1,
                wrap_t: 0,
                min_filter: 5,
                mag_filter: 1,
                load_grayscale_as_alpha: Some(Bool(1)),
            },
            file_name: name.to_string(),
            allow_degradation: Some(Bool(0)),
        })),
    }
}

/// Write, read back, write again: identical bytes, identical JSON view. Then every truncation
/// fails with an error that names an offset inside the prefix.
fn check(file: &NelFile, name: &str, kind: NelKind) -> (Vec<u8>, NelFile) {
    let bytes = nel::write_nel(file).expect("write");
    assert_eq!(nel::detect(&bytes, name), Some(kind), "{name}: detect");
    let back = nel::read_nel(&bytes, name).unwrap_or_else(|e| panic!("{name}: read back: {e}"));
    let again = nel::write_nel(&back).expect("re-write");
    assert_eq!(again, bytes, "{name}: re-write differs");
    let a = serde_json::to_value(file).expect("json");
    let b = serde_json::to_value(&back).expect("json");
    assert_eq!(a, b, "{name}: decoded fields differ");
    let sum = nel::nel_summary(&bytes, name).expect("summary");
    assert_eq!(sum.kind, kind);
    nel::nel_json(&bytes, name, false).expect("json view");
    for len in 0..bytes.len() {
        let r = nel::read_kind(&bytes[..len], kind);
        let Err(e) = r else {
            panic!("{name}: truncated to {len} bytes still reads");
        };
        let msg = e.to_string();
        let at = msg
            .rfind("offset 0x")
            .map(|i| &msg[i + 9..])
            .and_then(|t| {
                let h: String = t.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
                usize::from_str_radix(&h, 16).ok()
            })
            .unwrap_or_else(|| panic!("{name}: truncated to {len}: no offset in {msg:?}"));
        assert!(
            at <= len,
            "{name}: truncated to {len}: offset 0x{at:x} past the end: {msg}"
        );
    }
    // One byte too many is refused too.
    let mut long = bytes.clone();
    long.push(0);
    let e = nel::read_kind(&long, kind).expect_err("trailing byte");
    assert!(e.to_string().contains("1 unread bytes"), "{name}: {e}");
    (bytes, back)
}

fn shape_file(shape: Shape) -> NelFile {
    NelFile::Shape(ShapeStream {
        shape: Ptr::Obj {
            id: 1,
            obj: Box::new(shape),
        },
    })
}

fn shape_of(f: &NelFile) -> &Shape {
    match f {
        NelFile::Shape(s) => s.shape.get().expect("shape object"),
        other => panic!("not a shape: {other:?}"),
    }
}

fn water(version: u32) -> WaterShape {
    WaterShape {
        version,
        poly: Polygon2D {
            version: 0,
            vertices: vec![v2(0.0, 0.0), v2(10.0, 0.0), v2(10.0, 20.5), v2(0.0, 20.5)],
        },
        water_pool_id: 7,
        env_map: [
            texture(2, "water_env.tga"),
            texture(3, "water_env_night.tga"),
        ],
        bump_map: [texture(4, "water_bump.tga"), Ptr::Ref(4)],
        color_map: Ptr::Null,
        height_map_scale: [v2(1.0, 1.0), v2(0.5, 0.5)],
        height_map_speed: [v2(0.1, 0.0), v2(0.0, -0.2)],
        color_map_mat_column0: v2(1.0, 0.0),
        color_map_mat_column1: v2(0.0, 1.0),
        color_map_mat_pos: v2(0.25, 0.75),
        default_pos: tdv(100.0, 200.0, 3.0),
        default_scale: tdv(1.0, 1.0, 1.0),
        default_rot_quat: tdq(),
        transition_ratio: f(0.6),
        wave_height_factor: f(3.0),
        compute_lightmap: (version >= 1).then_some(Bool(1)),
        dist_max: (version >= 2).then_some(f(-1.0)),
        splash_enabled: (version >= 3).then_some(Bool(0)),
        uses_scene_water_env_map: (version >= 4).then_some([Bool(1), Bool(0)]),
    }
}

#[test]
fn water_shape() {
    for version in 0..=4 {
        let (bytes, back) = check(
            &shape_file(Shape::CWaterShape(water(version))),
            "lake.shape",
            NelKind::Shape,
        );
        let Shape::CWaterShape(w) = shape_of(&back) else {
            panic!("not a water shape");
        };
        assert_eq!(w.version, version);
        assert_eq!(w.poly.vertices.len(), 4);
        assert_eq!(w.poly.vertices[2].v.get(), 20.5);
        assert_eq!(w.water_pool_id, 7);
        assert!(matches!(w.bump_map[1], Ptr::Ref(4)));
        assert!(matches!(w.color_map, Ptr::Null));
        assert_eq!(w.wave_height_factor.get(), 3.0);
        assert_eq!(w.dist_max.map(|d| d.get()), (version >= 2).then_some(-1.0));
        assert_eq!(
            w.uses_scene_water_env_map.map(|u| u[0].0),
            (version >= 4).then_some(1)
        );
        assert_eq!(
            nel::shape_class_name(&bytes).as_deref(),
            Some("CWaterShape")
        );
    }
    let b = nel::write_nel(&shape_file(Shape::CWaterShape(water(5)))).expect("write");
    let msg = nel::read_nel(&b, "lake.shape")
        .expect_err("version 5 is unknown")
        .to_string();
    assert_eq!(
        msg,
        "IShape/CWaterShape: CWaterShape: unknown version 5 (this reader knows up to 4) at offset 0x1b"
    );
}

/// A water shape whose env maps are day/night `CTextureBlend`s and whose height maps are
/// `CTextureBump`s of every version (texture_blend.cpp v0, texture_bump.cpp v0..3).
#[test]
fn texture_blend_and_bump() {
    let base = |k: u32| match texture(0, "x") {
        Ptr::Obj { obj, .. } => match *obj {
            Texture::CTextureFile(mut t) => {
                t.base.wrap_s = k;
                t.base
            }
            _ => unreachable!("texture() builds a CTextureFile"),
        },
        _ => unreachable!("texture() builds an object"),
    };
    for bump_version in 0..=3u32 {
        let blend = |id: u64, day: &str, night: &str, factor: u16| Ptr::Obj {
            id,
            obj: Box::new(Texture::CTextureBlend(TextureBlend {
                version: 0,
                base: base(0),
                blend_tex: [texture(id + 1, day), texture(id + 2, night)],
                sharing_enabled: Bool(1),
                blend_factor: factor,
            })),
        };
        let bump = |id: u64, name: &str| Ptr::Obj {
            id,
            obj: Box::new(Texture::CTextureBump(TextureBump {
                version: bump_version,
                base: base(1),
                height_map: texture(id + 1, name),
                disable_sharing: Bool(0),
                old_absolute_offset: (bump_version >= 1).then_some(Bool(0)),
                force_normalize: (bump_version >= 2).then_some(Bool(1)),
            })),
        };
        let mut w = water(4);
        w.env_map = [
            blend(2, "day.tga", "night.tga", 256),
            blend(5, "uday.tga", "unight.tga", 3),
        ];
        w.bump_map = [bump(8, "displace.tga"), bump(10, "bump.tga")];
        let (_, back) = check(
            &shape_file(Shape::CWaterShape(w)),
            "lake.shape",
            NelKind::Shape,
        );
        let Shape::CWaterShape(w) = shape_of(&back) else {
            panic!("not a water shape");
        };
        let Some(Texture::CTextureBlend(b)) = w.env_map[1].get() else {
            panic!("env map 1 is not a blend");
        };
        assert_eq!(b.blend_factor, 3);
        let names: Vec<_> = b
            .blend_tex
            .iter()
            .map(|t| match t.get() {
                Some(Texture::CTextureFile(f)) => f.file_name.clone(),
                other => panic!("blend slot: {other:?}"),
            })
            .collect();
        assert_eq!(names, ["uday.tga", "unight.tga"]);
        let Some(Texture::CTextureBump(b)) = w.bump_map[0].get() else {
            panic!("height map 0 is not a bump");
        };
        assert_eq!(b.version, bump_version);
        assert_eq!(
            b.force_normalize.map(|x| x.0),
            (bump_version >= 2).then_some(1)
        );
    }
}

#[test]
fn wave_maker_shape() {
    let w = WaveMakerShape {
        version: 0,
        period: f(2.5),
        radius: f(4.0),
        intensity: f(0.75),
        pool_id: 3,
        impulsion_mode: Bool(1),
    };
    let (_, back) = check(
        &shape_file(Shape::CWaveMakerShape(w)),
        "wave.shape",
        NelKind::Shape,
    );
    let Shape::CWaveMakerShape(w) = shape_of(&back) else {
        panic!("not a wave maker");
    };
    assert_eq!((w.period.get(), w.pool_id, w.impulsion_mode.0), (2.5, 3, 1));
}

fn flare(version: u32, all_on: bool) -> FlareShape {
    let on = |b: bool| Bool(b as u8);
    FlareShape {
        version,
        color: rgba(255, 240, 200, 255),
        persistence: f(0.5),
        spacing: f(1.0),
        attenuable: on(all_on),
        attenuation_range: all_on.then_some(f(30.0)),
        first_flare_keep_size: on(all_on),
        flares: (0..10)
            .map(|k| Flare {
                texture: if k < 3 {
                    texture(10 + k, &format!("flare{k}.tga"))
                } else {
                    Ptr::Null
                },
                size: f(1.0 / (k as f32 + 1.0)),
                pos: f(k as f32 * 0.1),
            })
            .collect(),
        infinite_dist: on(!all_on),
        view_dist: all_on.then_some(ViewDist {
            max_view_dist: f(1000.0),
            max_view_dist_ratio: f(0.9),
        }),
        dazzle_enabled: on(all_on),
        dazzle: all_on.then_some(Dazzle {
            color: rgba(255, 255, 255, 128),
            attenuation_range: f(0.25),
        }),
        infinite_dist_again: on(!all_on),
        dist_max: (version >= 2).then_some(f(500.0)),
        occlusion: (version >= 4).then(|| FlareOcclusion {
            occlusion_test_mesh_name: "sun_occlusion.shape".into(),
            scale_when_disappear: Bool(1),
            size_disappear: f(0.1),
            angle_disappear: f(0.3),
            occlusion_test_mesh_inherit_scale_rot: Bool(0),
            look_at_mode: Bool(1),
        }),
    }
}

#[test]
fn flare_shape() {
    for version in 0..=5 {
        for all_on in [false, true] {
            let (_, back) = check(
                &shape_file(Shape::CFlareShape(flare(version, all_on))),
                "sun.shape",
                NelKind::Shape,
            );
            let Shape::CFlareShape(fl) = shape_of(&back) else {
                panic!("not a flare");
            };
            assert_eq!(fl.version, version);
            assert_eq!(fl.flares.len(), 10);
            assert!(fl.flares[2].texture.get().is_some());
            assert!(fl.flares[3].texture.get().is_none());
            assert_eq!(fl.attenuation_range.is_some(), all_on);
            assert_eq!(fl.view_dist.is_some(), all_on);
            assert_eq!(fl.dazzle.as_ref().map(|d| d.color.a), all_on.then_some(128));
            assert_eq!(fl.infinite_dist_again.0, !all_on as u8);
            assert_eq!(
                fl.occlusion
                    .as_ref()
                    .map(|o| o.occlusion_test_mesh_name.as_str()),
                (version >= 4).then_some("sun_occlusion.shape")
            );
        }
    }
    // A model whose flare count is not 10 is refused by the writer.
    let mut bad = flare(5, true);
    bad.flares.pop();
    let e = nel::write_nel(&shape_file(Shape::CFlareShape(bad))).expect_err("9 flares");
    assert!(e.to_string().contains("10 flares, model has 9"), "{e}");
}

fn material() -> Material {
    Material {
        version: 2,
        shader_type: 0,
        flags: 0x14,
        src_blend: 2,
        dst_blend: 3,
        z_function: 5,
        z_bias: f(0.0),
        color: rgba(128, 128, 128, 255),
        emissive: rgba(0, 0, 0, 255),
        ambient: rgba(26, 26, 26, 255),
        diffuse: rgba(128, 128, 128, 255),
        specular: rgba(11, 11, 11, 12),
        shininess: Some(f(22.6)),
        textures: vec![texture(20, "trail.tga"), Ptr::Null, Ptr::Null, Ptr::Null],
        tex_envs: (0..4)
            .map(|_| TexEnv {
                rgb: vec![1, 0, 0, 1, 0],
                alpha: vec![1, 0, 2, 1, 2],
                constant_color: rgba(255, 255, 255, 255),
            })
            .collect(),
        ..Default::default()
    }
}

fn seg_remanence(version: u32, animated: bool) -> SegRemanenceShape {
    SegRemanenceShape {
        version,
        num_slices: 16,
        slice_time: f(0.05),
        corners: vec![v3(0.0, 0.0, 0.0), v3(0.0, 0.0, 1.2), v3(0.0, 0.1, 1.5)],
        material: material(),
        bbox: AaBox {
            version: 0,
            center: v3(0.0, 0.05, 0.75),
            half_size: v3(0.0, 0.05, 0.75),
        },
        texture_shifting: Bool(1),
        animated_material: if animated {
            Ptr::Obj {
                id: 30,
                obj: Box::new(MaterialBase {
                    version: 1,
                    name: "trail_mat".into(),
                    ambient: TrackDefaultRgba {
                        version: 0,
                        value: rgba(1, 2, 3, 4),
                    },
                    diffuse: TrackDefaultRgba::default(),
                    specular: TrackDefaultRgba::default(),
                    shininess: TrackDefaultFloat {
                        version: 0,
                        value: f(10.0),
                    },
                    emissive: TrackDefaultRgba::default(),
                    opacity: TrackDefaultFloat {
                        version: 0,
                        value: f(1.0),
                    },
                    texture: TrackDefaultInt {
                        version: 0,
                        value: 0x7fff_ffff,
                    },
                    animated_textures: vec![],
                    tex_anim_tracks: vec![Default::default(); 4],
                }),
            }
        } else {
            Ptr::Null
        },
        roll_up_ratio: (version >= 1).then_some(f(1.5)),
        default_pos: (version >= 2).then(|| tdv(1.0, 2.0, 3.0)),
        default_rot_quat: (version >= 2).then(tdq),
        default_scale: (version >= 2).then(|| tdv(1.0, 1.0, 1.0)),
    }
}

#[test]
fn seg_remanence_shape() {
    for version in 0..=2 {
        for animated in [false, true] {
            let (_, back) = check(
                &shape_file(Shape::CSegRemanenceShape(seg_remanence(version, animated))),
                "sword_trail.shape",
                NelKind::Shape,
            );
            let Shape::CSegRemanenceShape(r) = shape_of(&back) else {
                panic!("not a seg remanence");
            };
            assert_eq!(r.num_slices, 16);
            assert_eq!(r.corners.len(), 3);
            assert_eq!(r.material.shininess.map(|s| s.get()), Some(22.6));
            assert_eq!(
                r.animated_material.get().map(|m| m.name.as_str()),
                animated.then_some("trail_mat")
            );
            assert_eq!(r.roll_up_ratio.is_some(), version >= 1);
            assert_eq!(r.default_scale.is_some(), version >= 2);
        }
    }
}

fn vertex_buffer() -> VertexBuffer {
    let n = 4usize;
    VertexBuffer {
        version: 2,
        header: VbHeader {
            version: 1,
            old_flags: None,
            flags: 0b111 | (1 << 10),
            types: [7, 7, 4, 4, 4, 4, 4, 4, 4, 4, 12, 12, 10, 12, 1, 1],
            num_vertices: n as u32,
            vertex_color_format: None,
            preferred_memory: None,
            name: None,
        },
        vertices: VbSubset {
            version: 1,
            count: n,
            channels: vec![
                Channel {
                    value: "position",
                    components: 3,
                    data: ChannelData::Float((0..n * 3).map(|i| f(i as f32 * 0.5)).collect()),
                },
                Channel {
                    value: "normal",
                    components: 3,
                    data: ChannelData::Float(
                        (0..n).flat_map(|_| [f(0.0), f(0.0), f(1.0)]).collect(),
                    ),
                },
                Channel {
                    value: "tex_coord0",
                    components: 2,
                    data: ChannelData::Float((0..n * 2).map(|i| f(i as f32 / 8.0)).collect()),
                },
                Channel {
                    value: "primary_color",
                    components: 4,
                    data: ChannelData::Bytes((0..n * 4).map(|i| (i * 17) as u8).collect()),
                },
            ],
            uv_routing: None,
        },
    }
}

#[test]
fn vegetable_shape() {
    for version in 0..=1 {
        let v = VegetableShape {
            version,
            lighted: Bool(1),
            double_sided: Bool(0),
            pre_compute_lighting: Bool(1),
            alpha_blend: Bool(0),
            bend_center_mode: 1,
            vb: vertex_buffer(),
            triangle_indices: vec![0, 1, 2, 2, 3, 0],
            best_sided_pre_compute_lighting: (version >= 1).then_some(Bool(1)),
        };
        let (bytes, back) = check(&NelFile::Vegetable(v), "fy_grass.veget", NelKind::Vegetable);
        assert_eq!(&bytes[1..17], b"NEL__VEGETABLE__");
        let NelFile::Vegetable(v) = back else {
            panic!("not a vegetable");
        };
        assert_eq!(v.vb.header.num_vertices, 4);
        assert_eq!(v.vb.vertices.channels.len(), 4);
        assert_eq!(v.triangle_indices, vec![0, 1, 2, 2, 3, 0]);
        assert_eq!(v.bend_center_mode, 1);
        assert_eq!(v.best_sided_pre_compute_lighting.is_some(), version >= 1);
    }
}

#[test]
fn collision_mesh_build() {
    let m = CollisionMeshBuild {
        vertices: vec![
            v3(0.0, 0.0, 0.0),
            v3(1.0, 0.0, 0.0),
            v3(1.0, 1.0, 0.0),
            v3(0.0, 1.0, 0.25),
        ],
        faces: vec![
            CollisionFace {
                v: [0, 1, 2],
                visibility: [Bool(1), Bool(0), Bool(1)],
                surface: -1,
                material: 3,
            },
            CollisionFace {
                v: [2, 3, 0],
                visibility: [Bool(2), Bool(1), Bool(0)],
                surface: 0,
                material: -7,
            },
        ],
    };
    let (bytes, back) = check(
        &NelFile::CollisionMeshBuild(m),
        "house.cmb",
        NelKind::CollisionMeshBuild,
    );
    assert_eq!(bytes.len(), 4 + 4 * 12 + 4 + 2 * 23);
    let NelFile::CollisionMeshBuild(m) = back else {
        panic!("not a cmb");
    };
    assert_eq!(m.vertices[3].z.get(), 0.25);
    assert_eq!(m.faces[0].surface, -1);
    assert_eq!(m.faces[1].material, -7);
    // A non-canonical bool byte is kept as is.
    assert_eq!(m.faces[1].visibility[0].0, 2);
}

#[test]
fn primitive_block() {
    let desc = |version: u32, k: f32| PrimitiveDesc {
        version,
        length: [f(0.5 * k), f(0.25 * k)],
        height: f(2.0),
        attenuation: f(0.9),
        prim_type: 1,
        reaction: 2,
        trigger: 4,
        obstacle: Bool(1),
        occlusion_mask: 0xffff_ffff,
        collision_mask: 0x10,
        position: v3(k, 2.0 * k, 0.0),
        orientation: f(1.57),
        user_data: (version >= 1).then_some(0x1234_5678_9abc_def0),
    };
    let b = PrimitiveBlock {
        version: 0,
        primitives: vec![desc(1, 1.0), desc(0, 2.0), desc(1, 3.0)],
    };
    let (bytes, back) = check(
        &NelFile::PrimitiveBlock(b),
        "barrel.pacs_prim",
        NelKind::PrimitiveBlock,
    );
    assert_eq!(&bytes[..4], b"PRBK");
    let NelFile::PrimitiveBlock(b) = back else {
        panic!("not a primitive block");
    };
    assert_eq!(b.primitives.len(), 3);
    assert_eq!(b.primitives[0].user_data, Some(0x1234_5678_9abc_def0));
    assert_eq!(b.primitives[1].user_data, None);
    assert_eq!(b.primitives[2].position.y.get(), 6.0);
    assert_eq!(b.primitives[2].occlusion_mask, 0xffff_ffff);

    // The XML form (NeL's COXml) reads into the same values and rewrites byte for byte.
    let xml = nel::pacs_prim_xml::write(&b);
    let back = nel::read_nel(&xml, "barrel.pacs_prim").expect("xml reads");
    let NelFile::PrimitiveBlockXml(x) = &back else {
        panic!("not the XML form");
    };
    assert_eq!(x.primitives.len(), 3);
    assert_eq!(x.primitives[1].user_data, None);
    assert_eq!(x.primitives[2].position.y.get(), 6.0);
    assert_eq!(nel::write_nel(&back).expect("writes"), xml);
    // A damaged document is a precise error.
    let e = nel::read_nel(
        b"<?xml version=\"1.0\"?>\n<PRIMITIVE_BLOCK/>",
        "x.pacs_prim",
    )
    .expect_err("no CHECK");
    assert!(e.to_string().contains("no <CHECK> element"), "{e}");
}

#[test]
fn lod_character_shape_build() {
    for version in 0..=1 {
        let b = LodCharacterShapeBuild {
            version,
            vertices: vec![v3(0.0, 0.0, 0.0), v3(0.0, 0.0, 1.8), v3(0.3, 0.0, 1.0)],
            skin_weights: (0..3)
                .map(|i| SkinWeight {
                    influences: [(i, f(0.75)), (i + 1, f(0.25)), (0, f(0.0)), (0, f(0.0))],
                })
                .collect(),
            bones_names: vec!["Bip01".into(), "Bip01 Pelvis".into(), "Bip01 Spine".into()],
            triangle_indices: vec![0, 1, 2],
            texture: (version >= 1).then(|| LodBuildTexture {
                uvs: vec![v2(0.0, 0.0), v2(1.0, 0.0), v2(0.5, 1.0)],
                normals: vec![v3(0.0, -1.0, 0.0); 3],
                width: 2,
                height: 1,
                texture_info: vec![
                    PixelInfo {
                        pos: v3(0.0, 0.0, 0.0),
                        normal: v3(0.0, -1.0, 0.0),
                    },
                    PixelInfo {
                        pos: v3(0.3, 0.0, 1.0),
                        normal: v3(1.0, 0.0, 0.0),
                    },
                ],
            }),
        };
        let (bytes, back) = check(
            &NelFile::LodCharacterShapeBuild(b),
            "fy_hom.clod",
            NelKind::LodCharacter,
        );
        assert_eq!(&bytes[..12], b"NEL_CLODBULD");
        let NelFile::LodCharacterShapeBuild(b) = back else {
            panic!("not a clod build");
        };
        assert_eq!(b.version, version);
        assert_eq!(b.skin_weights[2].influences[1].0, 3);
        assert_eq!(b.bones_names[1], "Bip01 Pelvis");
        assert_eq!(
            b.texture.as_ref().map(|t| t.texture_info.len()),
            (version >= 1).then_some(2)
        );
    }
}

#[test]
fn lod_character_shape() {
    for version in 0..=1 {
        let l = LodCharacterShape {
            version,
            name: "fy_hom_lod".into(),
            num_vertices: 3,
            num_triangles: 1,
            bones: vec![BoneInfluence {
                version: 0,
                name: "Bip01".into(),
                inf_vertices: vec![(0, f(1.0)), (2, f(0.5))],
            }],
            bone_map: vec![("Bip01".into(), 0)],
            triangle_indices: vec![0, 1, 2],
            anims: vec![LodAnim {
                version: 0,
                name: "idle".into(),
                num_keys: 2,
                anim_length: f(1.0),
                oo_anim_length: f(1.0),
                unpack_scale_factor: v3(0.001, 0.001, 0.001),
                keys: vec![
                    [1, -2, 3],
                    [4, 5, -6],
                    [0, 0, 0],
                    [7, 8, 9],
                    [-1, -1, -1],
                    [32767, -32768, 0],
                ],
            }],
            anim_map: vec![("idle".into(), 0)],
            uv_normals: (version >= 1).then(|| LodShapeUvNormals {
                uvs: vec![v2(0.0, 0.0); 3],
                normals: vec![v3(0.0, 0.0, 1.0); 3],
            }),
        };
        let (bytes, back) = check(
            &NelFile::LodCharacterShape(l),
            "fy_hom.clod",
            NelKind::LodCharacter,
        );
        assert_eq!(&bytes[..12], b"NEL_CLODSHAP");
        let NelFile::LodCharacterShape(l) = back else {
            panic!("not a clod shape");
        };
        assert_eq!(l.name, "fy_hom_lod");
        assert_eq!(l.anims[0].keys[5], [32767, -32768, 0]);
        assert_eq!(l.bones[0].inf_vertices[1].0, 2);
        assert_eq!(l.uv_normals.is_some(), version >= 1);
    }
}
