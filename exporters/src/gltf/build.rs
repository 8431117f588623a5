//! Builds the glTF JSON model and its binary buffer from an evaluated scene.
//!
//! The functions here are `#[inline(never)]`: with everything inlined into
//! `build`, rustc 1.95's LLVM crashed (SIGSEGV) compiling this crate in release.

use crate::error::{ExportError, ExportResult};
use std::collections::BTreeMap;

use gltf_json as json;
use json::extensions::scene::khr_lights_punctual as khr;
use json::validation::{Checked::Valid, USize64};
use json::Index;
use maxfs_scene::eval::render::material::{self as mtl, Assets};
use maxfs_scene::eval::{core::channels, render::camera, render::light, Mat43, SceneEval};
use serde_json::json as value;

pub use super::axes::to_gltf;
use super::axes::{clamp01, decompose, f3, metres, trs_locals};
use super::geometry;
use super::texture_transform;
use super::textures::{TextureCache, TextureSearch};

/// Max cameras and lights look down local −Z with +Y up; after the axis change
/// that is local −Y with −Z up. This child rotation (−90° about X) turns glTF's
/// −Z / +Y onto those.
const LOOK_FIX: [f32; 4] = [
    -std::f32::consts::FRAC_1_SQRT_2,
    0.0,
    0.0,
    std::f32::consts::FRAC_1_SQRT_2,
];
/// Material map slots written to glTF (base colour and emissive textures).
pub const EXPORTED_SLOTS: &[&str] = &["diffuse", "self_illumination", "base_color", "emit_color"];
/// Max's default render aspect (640 × 480): cameras store a horizontal FOV.
const ASPECT: f64 = 4.0 / 3.0;

/// How Max's units and time map onto glTF's metres and seconds.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    /// Metres per Max unit (the file's system unit).
    pub metres: f64,
    /// The file's frame rate and animation range: the sampling step, and the
    /// timeline written to the scene's `extras`.
    pub time: maxfs_scene::settings::TimeConfig,
}

/// Standard's glossiness when a material stores none (Max's default, 10).
const DEFAULT_GLOSSINESS: f32 = 0.1;

/// What a glTF material is made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum MaterialKey {
    /// A Max material and, when its colour is the node's, that colour.
    Max(usize, Option<[u8; 3]>),
    /// No material: the node's object colour.
    ObjectColour([u8; 3]),
}

/// The largest transform value a node is written with: f32 holds it with
/// room for the scale's column lengths.
const LARGEST_STORED: f64 = 1e30;

/// The model under construction and its binary buffer.
pub(super) struct Builder<'a> {
    pub(super) eval: &'a SceneEval,
    pub(super) assets: &'a Assets,
    pub(super) scale: Scale,
    pub(super) root: json::Root,
    pub(super) bin: Vec<u8>,
    pub(super) warnings: Vec<String>,
    /// Geometry nodes whose mesh is left out (also in `warnings`).
    pub(super) dropped: Vec<String>,
    /// What the model shows otherwise than Max would (also in `warnings`).
    pub(super) approximated: Vec<String>,
    /// glTF materials by Max material and, for one whose colour is the
    /// node's (Color By Object), that colour.
    pub(super) materials: BTreeMap<MaterialKey, Option<Index<json::Material>>>,
    /// Per Max material: whether its colour is each node's object colour.
    pub(super) by_object: BTreeMap<usize, bool>,
    /// Textures by stored path and wrap modes; embedded images by stored path.
    pub(super) images: BTreeMap<String, Index<json::Texture>>,
    pub(super) image_of: BTreeMap<String, Index<json::Image>>,
    pub(super) search: &'a TextureSearch,
    pub(super) textures: TextureCache,
    /// Per node (object index): the shear its glTF TRS leaves out, built into
    /// its mesh (see [`trs_locals`]).
    pub(super) residual: BTreeMap<usize, Mat43>,
    /// Meshes with animated morph weights, written with the clip (morph.rs).
    pub(super) morphs: Vec<super::morph::Pending>,
    /// Per Max node (object index) whose mesh a child node carries (a hidden
    /// node with children, visibility.rs): that glTF node.
    pub(super) mesh_node: BTreeMap<usize, u32>,
}

impl Builder<'_> {
    #[inline(never)]
    pub(super) fn view(
        &mut self,
        bytes: &[u8],
        target: Option<json::buffer::Target>,
    ) -> Index<json::buffer::View> {
        self.bin.resize(self.bin.len().div_ceil(4) * 4, 0);
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: Default::default(),
        })
    }

    #[inline(never)]
    pub(super) fn accessor(
        &mut self,
        view: Index<json::buffer::View>,
        count: usize,
        component: json::accessor::ComponentType,
        ty: json::accessor::Type,
        min_max: Option<(serde_json::Value, serde_json::Value)>,
    ) -> Index<json::Accessor> {
        let (min, max) = min_max.map_or((None, None), |(a, b)| (Some(a), Some(b)));
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Valid(json::accessor::GenericComponentType(component)),
            extensions: None,
            extras: Default::default(),
            type_: Valid(ty),
            min,
            max,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    #[inline(never)]
    pub(super) fn floats<const N: usize>(
        &mut self,
        data: &[[f32; N]],
        bounds: bool,
        target: bool,
    ) -> Index<json::Accessor> {
        let bytes: Vec<u8> = data
            .iter()
            .flatten()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let view = self.view(&bytes, target.then_some(json::buffer::Target::ArrayBuffer));
        let mm = bounds.then(|| {
            let mut lo = [f32::INFINITY; N];
            let mut hi = [f32::NEG_INFINITY; N];
            for v in data {
                for k in 0..N {
                    lo[k] = lo[k].min(v[k]);
                    hi[k] = hi[k].max(v[k]);
                }
            }
            (value!(lo.to_vec()), value!(hi.to_vec()))
        });
        let ty = match N {
            1 => json::accessor::Type::Scalar,
            2 => json::accessor::Type::Vec2,
            3 => json::accessor::Type::Vec3,
            _ => json::accessor::Type::Vec4,
        };
        self.accessor(view, data.len(), json::accessor::ComponentType::F32, ty, mm)
    }

    #[inline(never)]
    fn indices(&mut self, idx: &[u32]) -> Index<json::Accessor> {
        let bytes: Vec<u8> = idx.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes, Some(json::buffer::Target::ElementArrayBuffer));
        self.accessor(
            view,
            idx.len(),
            json::accessor::ComponentType::U32,
            json::accessor::Type::Scalar,
            None,
        )
    }

    /// The glTF texture of a Bitmap's stored path with the sampler wrap modes
    /// of its placement: its image found and embedded as PNG (once per path),
    /// or the reason it could not be (then no texture is written).
    #[inline(never)]
    fn texture(
        &mut self,
        stored: &str,
        wrap: [json::texture::WrappingMode; 2],
    ) -> ExportResult<Index<json::Texture>> {
        let name = mtl::file_base(stored).to_string();
        self.texture_from(stored, name, wrap, |b| {
            match b.textures.get(b.search, stored) {
                Ok((_, png)) => Ok(png.clone()),
                Err(e) => Err(ExportError::Texture(e.clone())),
            }
        })
    }

    /// The glTF texture of the PNG image `png` makes, embedded once per
    /// `key` (a stored path, or what a made image is made of) under `name`,
    /// sampled with wrap modes `wrap` (one texture per key and modes).
    #[inline(never)]
    pub(super) fn texture_from(
        &mut self,
        key: &str,
        name: String,
        wrap: [json::texture::WrappingMode; 2],
        png: impl FnOnce(&mut Self) -> ExportResult<Vec<u8>>,
    ) -> ExportResult<Index<json::Texture>> {
        let tkey = format!("{key}\u{0}{wrap:?}");
        if let Some(t) = self.images.get(&tkey) {
            return Ok(*t);
        }
        let image = match self.image_of.get(key) {
            Some(i) => *i,
            None => {
                let png = png(self)?;
                let view = self.view(&png, None);
                let i = self.root.push(json::Image {
                    buffer_view: Some(view),
                    mime_type: Some(json::image::MimeType("image/png".into())),
                    name: Some(name),
                    uri: None,
                    extensions: None,
                    extras: Default::default(),
                });
                self.image_of.insert(key.to_string(), i);
                i
            }
        };
        let sampler = self.sampler(wrap);
        let t = self.root.push(json::Texture {
            name: None,
            sampler: Some(sampler),
            source: image,
            extensions: None,
            extras: Default::default(),
        });
        self.images.insert(tkey, t);
        Ok(t)
    }

    /// The sampler of wrap modes `wrap` (one per combination).
    fn sampler(&mut self, wrap: [json::texture::WrappingMode; 2]) -> Index<json::texture::Sampler> {
        let [s, t] = wrap.map(texture_transform::checked);
        if let Some(i) = self
            .root
            .samplers
            .iter()
            .position(|x| x.wrap_s == s && x.wrap_t == t)
        {
            return Index::new(i as u32);
        }
        self.root.push(json::texture::Sampler {
            wrap_s: s,
            wrap_t: t,
            ..Default::default()
        })
    }

    /// The texture of a material slot's enabled Bitmap and the TEXCOORD set its
    /// map channel is written as (channel k → set k − 1). A Bitmap whose image
    /// is not found or not readable gives `Err` (file name and reason). Its
    /// placement (offset, tiling, W angle) becomes `KHR_texture_transform`
    /// and its tile/mirror flags the sampler's wrap modes; U/V angles, which
    /// glTF cannot hold, are named in the warnings.
    #[inline(never)]
    pub(super) fn map_texture(
        &mut self,
        m: &mtl::Material,
        slot: &str,
    ) -> Option<ExportResult<json::texture::Info>> {
        let r = m
            .maps
            .iter()
            .find(|r| r.slot == slot && r.enabled != Some(false))?;
        self.texmap_texture(m, slot, r.texmap)
    }

    /// The stored file of a material slot's enabled Bitmap.
    fn map_file(&self, m: &mtl::Material, slot: &str) -> Option<String> {
        let r = m
            .maps
            .iter()
            .find(|r| r.slot == slot && r.enabled != Some(false))?;
        mtl::texmap(self.eval, r.texmap, self.assets)?.file
    }

    /// As `map_texture`, for texmap object `texmap` (a Bitmap) of slot `slot`.
    pub(super) fn texmap_texture(
        &mut self,
        m: &mtl::Material,
        slot: &str,
        texmap: usize,
    ) -> Option<ExportResult<json::texture::Info>> {
        let t = mtl::texmap(self.eval, texmap, self.assets)?;
        let Some(stored) = t.file.clone().filter(|f| !mtl::file_base(f).is_empty()) else {
            return Some(Err(no_image(slot, &t)));
        };
        let shown = mtl::file_base(&stored).to_string();
        Some(
            self.placed_texture(m, slot, &t, &shown, |b, wrap| b.texture(&stored, wrap))
                .map_err(|e| e.within(format!("{slot} map {shown:?}"))),
        )
    }

    /// The texture info of an image placed as Bitmap `t` places it (slot
    /// `slot`, shown as `shown` in warnings): its TEXCOORD set, its offset,
    /// tiling and W angle as `KHR_texture_transform`, its tile/mirror flags
    /// as the wrap modes given to `make`, which makes the texture.
    pub(super) fn placed_texture(
        &mut self,
        m: &mtl::Material,
        slot: &str,
        t: &mtl::Texmap,
        shown: &str,
        make: impl FnOnce(
            &mut Self,
            [json::texture::WrappingMode; 2],
        ) -> ExportResult<Index<json::Texture>>,
    ) -> ExportResult<json::texture::Info> {
        let set =
            t.uv.as_ref()
                .and_then(|u| u.channel)
                .and_then(|c| u32::try_from(c - 1).ok())
                .unwrap_or(0);
        let place = t.uv.as_ref().map(texture_transform::placement);
        let wrap = place
            .as_ref()
            .map_or([json::texture::WrappingMode::Repeat; 2], |p| p.wrap);
        for u in place.iter().flat_map(|p| &p.unsupported) {
            self.approximate(format!(
                "material {:?}: {slot} map {shown:?}: {u} not exported (glTF rotates UVs about W only)",
                m.name,
            ));
        }
        let transform = place
            .as_ref()
            .and_then(texture_transform::Placement::extension);
        if transform.is_some()
            && !self
                .root
                .extensions_used
                .iter()
                .any(|e| e == "KHR_texture_transform")
        {
            self.root
                .extensions_used
                .push("KHR_texture_transform".into());
        }
        make(self, wrap).map(|index| json::texture::Info {
            index,
            tex_coord: set,
            extensions: transform.map(|tt| json::extensions::texture::Info {
                texture_transform: Some(tt),
                ..Default::default()
            }),
            extras: Default::default(),
        })
    }

    /// The Max material shading faces of material id `id` under material
    /// `idx`: Multi/Sub-Object resolved (sub-material `id mod count`).
    fn leaf_material(&self, idx: usize, id: u16) -> Option<usize> {
        let mut cur = idx;
        for _ in 0..8 {
            let m = mtl::material(self.eval, cur)?;
            if m.sub_materials.is_empty() {
                break;
            }
            cur = m.sub_materials[id as usize % m.sub_materials.len()]?;
        }
        Some(cur)
    }

    /// The glTF material of Max material `idx` at face material id `id`
    /// (Multi/Sub-Object: sub-material `id mod count`; Double Sided: its
    /// facing material, the back side being a primitive of its own, see
    /// [`Self::sides`]) on node `node` (`None`: no node, as in
    /// [`materials_only`](super::pbr::materials_only)).
    #[inline(never)]
    pub(super) fn material(
        &mut self,
        idx: usize,
        id: u16,
        node: Option<usize>,
    ) -> Option<Index<json::Material>> {
        let cur = self.leaf_material(idx, id)?;
        let colour = node.filter(|_| self.is_by_object(cur)).and_then(|n| {
            maxfs_scene::eval::render::object_colour::object_colour(self.eval, n).map(|c| c.0)
        });
        if let Some(done) = self.materials.get(&MaterialKey::Max(cur, colour)) {
            return *done;
        }
        let m = mtl::material(self.eval, cur)?;
        // A Double Sided whose side leads back to it (damaged data) meets
        // this entry and gets no material, instead of recursing for ever.
        self.materials.insert(MaterialKey::Max(cur, colour), None);
        let made = match &m.double_sided {
            Some(ds) => match ds.facing {
                Some(f) => self.material(f, id, node),
                None => {
                    self.approximate(format!(
                        "material {:?}: Double Sided without a facing material: written without material",
                        m.name
                    ));
                    None
                }
            },
            None => m.sub_materials.is_empty().then(|| self.pbr(&m, colour)),
        };
        self.materials.insert(MaterialKey::Max(cur, colour), made);
        made
    }

    /// The material of a node without one: Max's default Standard material
    /// (glossiness 10, nothing else set) in the node's object colour. One per
    /// colour; `None` when the node's colour is not stored.
    fn object_colour_material(&mut self, node: usize) -> Option<Index<json::Material>> {
        let (c, _) = maxfs_scene::eval::render::object_colour::object_colour(self.eval, node)?;
        let key = MaterialKey::ObjectColour(c);
        if let Some(done) = self.materials.get(&key) {
            return *done;
        }
        let standard = mtl::Material {
            name: format!("object colour {} {} {}", c[0], c[1], c[2]),
            diffuse: Some(c.map(|v| f32::from(v) / 255.0)),
            ..Default::default()
        };
        let made = self.pbr(&standard, None);
        self.materials.insert(key, Some(made));
        Some(made)
    }

    /// Whether Max material `leaf` takes each node's object colour.
    fn is_by_object(&mut self, leaf: usize) -> bool {
        if let Some(&b) = self.by_object.get(&leaf) {
            return b;
        }
        let b = mtl::material(self.eval, leaf)
            .and_then(|m| m.pbr)
            .is_some_and(|p| p.colour_by_object);
        self.by_object.insert(leaf, b);
        b
    }

    /// Max's Double Sided material shades the faces seen from the front with
    /// its facing material and those seen from the back with its back
    /// material. glTF shades one side per primitive, so the back is the same
    /// triangles turned over (reversed winding, negated normals) with the back
    /// material, as Babylon's exporter writes it. `None`: not Double Sided.
    fn sides(&self, idx: usize, id: u16) -> Option<mtl::DoubleSided> {
        let leaf = self.leaf_material(idx, id)?;
        mtl::material(self.eval, leaf)?.double_sided
    }

    /// `colour`: the node's object colour, for a material whose colour is
    /// the node's.
    #[inline(never)]
    fn pbr(&mut self, m: &mtl::Material, colour: Option<[u8; 3]>) -> Index<json::Material> {
        if let Some(p) = &m.pbr {
            let p = match p.on_node(colour) {
                Some(p) => p,
                None => {
                    self.approximate(format!(
                        "material {:?}: its colour is each node's object colour, and no node colour is known here: default colour",
                        m.name
                    ));
                    p.clone()
                }
            };
            return self.physical(m, &p);
        }
        if m.diffuse.is_none() {
            self.approximate(format!(
                "material {:?}: class {:?} not decoded: exported with default colours",
                m.name, m.class
            ));
        }
        let diffuse = m.diffuse.unwrap_or([0.5; 3]).map(clamp01);
        let opacity = clamp01(m.opacity.unwrap_or(1.0));
        let mut missing = Vec::new();
        let base_tex = taken(self.map_texture(m, "diffuse"), &mut missing);
        let em_tex = taken(self.map_texture(m, "self_illumination"), &mut missing);
        let normal = taken(self.normal_map(m), &mut missing);
        for e in &missing {
            self.warnings
                .push(format!("material {:?}: texture not embedded: {e}", m.name));
        }
        self.name_standard_maps_left_out(m);
        // An enabled opacity map makes the material blended; glTF takes alpha
        // from the base colour image, so an opacity image other than the
        // diffuse one is not carried and is named.
        let opacity_map = m
            .maps
            .iter()
            .any(|r| r.slot == "opacity" && r.enabled != Some(false));
        if opacity_map && self.map_file(m, "opacity") != self.map_file(m, "diffuse") {
            self.approximate(format!(
                "material {:?}: opacity map differs from the diffuse map: alpha taken from the diffuse image",
                m.name
            ));
        }
        let base = if base_tex.is_some() {
            [1.0; 3]
        } else {
            diffuse
        };
        let emissive = if em_tex.is_some() {
            [1.0; 3]
        } else if m.use_self_illum_color == Some(true) {
            m.self_illum_color.unwrap_or([0.0; 3]).map(clamp01)
        } else {
            let k = clamp01(m.self_illum_amount.unwrap_or(0.0));
            diffuse.map(|c| c * k)
        };
        let roughness = 1.0 - clamp01(m.glossiness.unwrap_or(DEFAULT_GLOSSINESS));
        self.root.push(json::Material {
            name: Some(m.name.clone()),
            alpha_mode: Valid(if opacity < 1.0 || opacity_map {
                json::material::AlphaMode::Blend
            } else {
                json::material::AlphaMode::Opaque
            }),
            double_sided: m.two_sided == Some(true),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor([
                    base[0], base[1], base[2], opacity,
                ]),
                base_color_texture: base_tex,
                metallic_factor: json::material::StrengthFactor(0.0),
                roughness_factor: json::material::StrengthFactor(roughness),
                ..Default::default()
            },
            emissive_factor: json::material::EmissiveFactor(emissive),
            emissive_texture: em_tex,
            normal_texture: normal,
            extras: if missing.is_empty() {
                None
            } else {
                serde_json::value::to_raw_value(&value!({ "textures_not_embedded": missing.iter().map(ToString::to_string).collect::<Vec<_>>() })).ok()
            },
            ..Default::default()
        })
    }

    /// Names the enabled maps of a Standard material the glTF does not carry:
    /// every slot but diffuse, self-illumination, opacity (the material's
    /// alpha) and bump (a Normal Bump is the normal texture, another bump is
    /// named by `normal_map`); an ambient map that is the diffuse map (Max's
    /// lock) is carried with it.
    fn name_standard_maps_left_out(&mut self, m: &mtl::Material) {
        let diffuse = m
            .maps
            .iter()
            .find(|r| r.slot == "diffuse" && r.enabled != Some(false))
            .map(|r| r.texmap);
        let mut named = Vec::new();
        for r in m.maps.iter().filter(|r| r.enabled != Some(false)) {
            let carried = matches!(
                r.slot.as_str(),
                "diffuse" | "self_illumination" | "opacity" | "bump"
            ) || (r.slot == "ambient" && Some(r.texmap) == diffuse);
            if !carried && !named.contains(&r.slot) {
                named.push(r.slot.clone());
            }
        }
        for slot in named {
            self.approximate(format!(
                "material {:?}: {slot} map not exported (no glTF counterpart as stored)",
                m.name
            ));
        }
    }

    /// The vertex-normal weighting of the Max that saved the scene.
    pub(super) fn weighting(&self) -> maxfs_scene::eval::objects::normals::Weighting {
        maxfs_scene::eval::objects::normals::Weighting::of_scene_version(self.eval.graph.version)
    }

    /// Records something the model shows otherwise than Max would (a part
    /// left out or baked); the export is then partial, not complete.
    pub(super) fn approximate(&mut self, line: String) {
        self.warnings.push(line.clone());
        self.approximated.push(line);
    }

    /// Records a geometry node left out of the model, by name and why.
    fn drop_mesh(&mut self, name: &str, why: &str) {
        let line = format!("{name}: mesh not exported: {why}");
        self.warnings.push(line.clone());
        self.dropped.push(line);
    }

    #[inline(never)]
    fn mesh(&mut self, node: usize, name: &str) -> Option<Index<json::Mesh>> {
        // Morpher kept live: the mesh at 0 % plus targets (morph.rs).
        let morph = super::morph::plan(self, node, name);
        // The whole modifier stack at time 0: what Max shows at the start frame.
        let evaluated = match &morph {
            Some(p) => Some(Ok(p.base.clone())),
            None => self.eval.mesh(node, 0),
        };
        let Some(result) = evaluated else {
            // No mesh: say so when the node is geometry Max would render
            // (an unsupported primitive, an extruded spline), never drop it silently.
            use maxfs_scene::eval::core::coverage::{mesh_coverage, MeshCoverage};
            let why = match mesh_coverage(self.eval, node) {
                MeshCoverage::Object(class) => format!("object {class} is not evaluated"),
                MeshCoverage::Modifiers(classes) => {
                    format!("modifiers {classes:?} are not evaluated")
                }
                MeshCoverage::Evaluated | MeshCoverage::NotGeometry => return None,
            };
            self.drop_mesh(name, &why);
            return None;
        };
        let mesh = match result {
            Ok(m) => m,
            Err(e) => {
                self.drop_mesh(name, &e.to_string());
                return None;
            }
        };
        for r in &mesh.missing_maps {
            self.approximate(format!("{name}: exported without {}", r.describe()));
        }
        if let Some(r) = &mesh.missing_normals {
            self.approximate(format!(
                "{name}: exported without {} (smoothing-group normals instead)",
                r.describe()
            ));
        }
        for r in &mesh.missing_parts {
            self.approximate(format!("{name}: exported without {}", r.describe()));
        }
        let offset = match self.residual.get(&node) {
            Some(x) => self.eval.offset_tm(node).then(x),
            None => self.eval.offset_tm(node),
        };
        let s = geometry::streams(&mesh, &offset, self.weighting());
        // No vertices, no mesh: then no targets (nor weights animation) either.
        let morph = morph
            .filter(|_| !s.positions.is_empty())
            .map(|p| super::morph::targets(self, node, p, &s, &offset));
        self.write_mesh_with(node, name, s, &[], morph)
    }

    /// [`write_mesh`](Self::write_mesh) without morph targets.
    pub(super) fn write_mesh(
        &mut self,
        node: usize,
        name: &str,
        s: geometry::Streams,
        extra: &[(json::mesh::Semantic, Index<json::Accessor>)],
    ) -> Option<Index<json::Mesh>> {
        self.write_mesh_with(node, name, s, extra, None)
    }

    /// Writes vertex streams (Max units, glTF axes) as the glTF mesh of
    /// `node`, one primitive per material id; `extra` attributes (a skin's
    /// JOINTS_0 / WEIGHTS_0) are shared by every primitive, and so are the
    /// `morph` targets (morph.rs).
    #[inline(never)]
    fn write_mesh_with(
        &mut self,
        node: usize,
        name: &str,
        mut s: geometry::Streams,
        extra: &[(json::mesh::Semantic, Index<json::Accessor>)],
        morph: Option<super::morph::Written>,
    ) -> Option<Index<json::Mesh>> {
        let metres = self.scale.metres;
        for p in &mut s.positions {
            *p = p.map(|v| (f64::from(v) * metres) as f32);
        }
        if s.skipped_faces > 0 {
            self.approximate(format!(
                "{name}: {} faces with out-of-range vertices left out",
                s.skipped_faces
            ));
        }
        if s.positions.is_empty() {
            return None;
        }
        let pos = self.floats(&s.positions, true, true);
        let nrm = self.floats(&s.normals, false, true);
        if !s.channels_left_out.is_empty() {
            self.approximate(format!(
                "{name}: map channels {:?} not exported (TEXCOORD sets stop at the first missing channel, {})",
                s.channels_left_out,
                s.uvs.len() + 1
            ));
        }
        let uvs: Vec<_> = s.uvs.iter().map(|u| self.floats(u, false, true)).collect();
        // Vertex colour / alpha → COLOR_0, illumination → _ILLUMINATION.
        let colours = s.colors.as_ref().map(|c| self.floats(c, false, true));
        let illumination = s.illumination.as_ref().map(|c| self.floats(c, false, true));
        let material = mtl::node_material(&self.eval.graph, node);
        // Max renders a node without material in its object colour; a mesh
        // with vertex colours shows those instead (COLOR_0 on glTF's white).
        let plain = match (material, &colours) {
            (None, None) => self.object_colour_material(node),
            _ => None,
        };
        let mut primitives = Vec::new();
        let mut back_normals = None;
        for (id, idx) in &s.groups {
            let sides = material.and_then(|m| self.sides(m, *id));
            // (faces, normals accessor, material) per primitive of this group.
            let mut parts = Vec::new();
            match &sides {
                None => parts.push((
                    idx.clone(),
                    nrm,
                    material
                        .and_then(|m| self.material(m, *id, Some(node)))
                        .or(plain),
                )),
                Some(ds) => {
                    if ds.translucency > 0.0 {
                        self.approximate(format!(
                            "{name}: Double Sided translucency {}% not carried (each side opaque to the other)",
                            ds.translucency * 100.0
                        ));
                    }
                    match ds.facing.filter(|_| ds.facing_on) {
                        Some(f) => {
                            parts.push((idx.clone(), nrm, self.material(f, *id, Some(node))))
                        }
                        None => self.approximate(format!(
                            "{name}: Double Sided facing side off or empty: front faces left out"
                        )),
                    }
                    match ds.back.filter(|_| ds.back_on) {
                        Some(b) => {
                            let turned: Vec<u32> = idx
                                .chunks_exact(3)
                                .flat_map(|t| [t[0], t[2], t[1]])
                                .collect();
                            let normals = *back_normals.get_or_insert_with(|| {
                                let flipped: Vec<[f32; 3]> =
                                    s.normals.iter().map(|n| n.map(|v| -v)).collect();
                                self.floats(&flipped, false, true)
                            });
                            parts.push((turned, normals, self.material(b, *id, Some(node))));
                        }
                        None => self.approximate(format!(
                            "{name}: Double Sided back side off or empty: back faces left out"
                        )),
                    }
                }
            }
            for (faces, normals, mat) in parts {
                let indices = self.indices(&faces);
                let mut attributes = BTreeMap::new();
                attributes.insert(Valid(json::mesh::Semantic::Positions), pos);
                attributes.insert(Valid(json::mesh::Semantic::Normals), normals);
                for (k, uv) in uvs.iter().enumerate() {
                    attributes.insert(Valid(json::mesh::Semantic::TexCoords(k as u32)), *uv);
                }
                for (sem, acc) in extra {
                    attributes.insert(Valid(sem.clone()), *acc);
                }
                if let Some(c) = colours {
                    attributes.insert(Valid(json::mesh::Semantic::Colors(0)), c);
                }
                if let Some(c) = illumination {
                    attributes.insert(
                        Valid(json::mesh::Semantic::Extras("ILLUMINATION".into())),
                        c,
                    );
                }
                primitives.push(json::mesh::Primitive {
                    attributes,
                    extensions: None,
                    extras: Default::default(),
                    indices: Some(indices),
                    material: mat,
                    mode: Valid(json::mesh::Mode::Triangles),
                    targets: morph.as_ref().map(|m| m.targets.clone()),
                });
            }
        }
        let (weights, extras) = morph.map_or((None, None), |m| (Some(m.weights), m.extras));
        Some(self.root.push(json::Mesh {
            extensions: None,
            extras,
            name: Some(name.to_string()),
            primitives,
            weights,
        }))
    }

    /// A child node carrying a camera or light, turned to look down −Z.
    #[inline(never)]
    fn look_child(&mut self, name: String) -> json::Node {
        json::Node {
            name: Some(name),
            rotation: Some(json::scene::UnitQuaternion(LOOK_FIX)),
            ..Default::default()
        }
    }

    #[inline(never)]
    fn camera(&mut self, obj: usize, name: &str) -> Option<json::Node> {
        let c = camera::camera(self.eval, obj)?;
        let fov = c
            .fov
            .map(f64::from)
            .filter(|f| f.is_finite() && *f > 1e-4 && *f < std::f64::consts::PI)
            .unwrap_or(std::f64::consts::FRAC_PI_4);
        let yfov = 2.0 * ((fov / 2.0).tan() / ASPECT).atan();
        let znear = c
            .near_clip
            .filter(|v| v.is_finite() && *v > 0.0)
            .unwrap_or(0.1)
            * self.scale.metres as f32;
        let zfar = c
            .far_clip
            .map(|v| v * self.scale.metres as f32)
            .filter(|v| v.is_finite() && *v > znear);
        let cam = self.root.push(json::Camera {
            name: Some(name.to_string()),
            orthographic: None,
            perspective: Some(json::camera::Perspective {
                aspect_ratio: Some(ASPECT as f32),
                yfov: yfov as f32,
                zfar,
                znear,
                extensions: None,
                extras: Default::default(),
            }),
            type_: Valid(json::camera::Type::Perspective),
            extensions: None,
            extras: Default::default(),
        });
        let mut n = self.look_child(format!("{name}_camera"));
        n.camera = Some(cam);
        Some(n)
    }

    #[inline(never)]
    fn light(&mut self, obj: usize, name: &str) -> Option<json::Node> {
        let l = light::light(self.eval, obj)?;
        let (ty, spot) = match l.kind.as_str() {
            "omni" => (khr::Type::Point, None),
            "directional" => (khr::Type::Directional, None),
            "spot" => {
                let half = |d: Option<f32>, def: f32| {
                    d.filter(|v| v.is_finite())
                        .unwrap_or(def)
                        .to_radians()
                        .clamp(0.0, 179.0f32.to_radians())
                        / 2.0
                };
                let outer = half(l.falloff, 45.0).max(1e-3);
                let inner = half(l.hotspot, 43.0).min(outer * 0.999);
                (
                    khr::Type::Spot,
                    Some(khr::Spot {
                        inner_cone_angle: inner,
                        outer_cone_angle: outer,
                    }),
                )
            }
            other => {
                self.approximate(format!("{name}: {other} light ({}) not exported", l.class));
                return None;
            }
        };
        let light = khr::Light {
            color: l
                .color
                .unwrap_or([1.0; 3])
                .map(|c| if c.is_finite() { c.max(0.0) } else { 1.0 }),
            extensions: None,
            extras: Default::default(),
            intensity: l
                .multiplier
                .filter(|v| v.is_finite())
                .unwrap_or(1.0)
                .max(0.0),
            name: Some(name.to_string()),
            // Max lights nothing past the far attenuation end when it is on;
            // glTF's `range` is that cut-off (directional lights have none).
            range: (l.use_far_atten == Some(true) && ty != khr::Type::Directional)
                .then(|| l.far_atten.map(|a| a[1] * self.scale.metres as f32))
                .flatten()
                .filter(|r| r.is_finite() && *r > 0.0),
            spot,
            type_: Valid(ty),
        };
        let lights = &mut self
            .root
            .extensions
            .get_or_insert_with(Default::default)
            .khr_lights_punctual
            .get_or_insert_with(Default::default)
            .lights;
        lights.push(light);
        let index = Index::new((lights.len() - 1) as u32);
        let mut n = self.look_child(format!("{name}_light"));
        n.extensions = Some(json::extensions::scene::Node {
            khr_lights_punctual: Some(khr::KhrLightsPunctual { light: index }),
            ..Default::default()
        });
        Some(n)
    }
}

/// The value of a texture lookup that succeeded; a failed one (an image not
/// found or not readable) is kept in `missing` to be named.
pub(super) fn taken<T>(r: Option<ExportResult<T>>, missing: &mut Vec<ExportError>) -> Option<T> {
    match r? {
        Ok(v) => Some(v),
        Err(e) => {
            missing.push(e);
            None
        }
    }
}

/// Why an enabled map of slot `slot` gives no image: its texmap's own
/// errors (an asset the file does not list, an environment projection), a
/// Bitmap without an image, or a procedural or compositing map, which glTF
/// cannot hold and which is not baked.
pub(super) fn no_image(slot: &str, t: &mtl::Texmap) -> ExportError {
    let what = format!("{slot} map {:?} ({})", t.name, t.class);
    if !t.errors.is_empty() {
        ExportError::invalid(format!("{what}: {}", t.errors.join("; ")))
    } else if t.is_bitmap() {
        ExportError::refused(format!("{what}: a Bitmap without an image"))
    } else if !t.sub_maps.is_empty() {
        ExportError::refused(format!(
            "{what}: a map combining {} other maps (glTF holds one image per slot; it is not baked)",
            t.sub_maps.len()
        ))
    } else {
        ExportError::refused(format!(
            "{what}: a procedural map (glTF holds images; it is not baked)"
        ))
    }
}

fn parents(eval: &SceneEval, nodes: &[usize]) -> Vec<Option<usize>> {
    let pos: BTreeMap<usize, usize> = nodes.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let mut parent: Vec<Option<usize>> = nodes
        .iter()
        .map(|&n| {
            eval.graph.objects[n]
                .node
                .as_ref()
                .and_then(|i| i.parent)
                .and_then(|p| pos.get(&(p as usize)).copied())
        })
        .collect();
    for i in 0..nodes.len() {
        let mut cur = parent[i];
        let mut steps = 0;
        while let Some(p) = cur {
            steps += 1;
            if p == i || steps > nodes.len() {
                parent[i] = None;
                break;
            }
            cur = parent[p];
        }
    }
    parent
}

/// A built model before it is packed into a GLB.
pub(super) struct Built {
    pub root: json::Root,
    pub bin: Vec<u8>,
    pub warnings: Vec<String>,
    /// Geometry nodes left out.
    pub dropped: Vec<String>,
    /// Parts left out or baked otherwise.
    pub approximated: Vec<String>,
}

/// The model, its binary buffer and what it leaves out or approximates.
#[inline(never)]
pub(super) fn build(
    eval: &SceneEval,
    assets: &Assets,
    scale: Scale,
    search: &TextureSearch,
) -> Built {
    let mut b = Builder {
        eval,
        assets,
        scale,
        root: json::Root {
            asset: json::Asset {
                generator: Some(format!("maxfs {}", env!("CARGO_PKG_VERSION"))),
                version: "2.0".into(),
                ..Default::default()
            },
            ..Default::default()
        },
        bin: Vec::new(),
        warnings: Vec::new(),
        dropped: Vec::new(),
        approximated: Vec::new(),
        materials: BTreeMap::new(),
        by_object: BTreeMap::new(),
        images: BTreeMap::new(),
        image_of: BTreeMap::new(),
        search,
        textures: TextureCache::default(),
        residual: BTreeMap::new(),
        morphs: Vec::new(),
        mesh_node: BTreeMap::new(),
    };
    let max_nodes: Vec<usize> = eval.graph.nodes().map(|(o, _)| o.index).collect();
    let parent = parents(eval, &max_nodes);
    let animated: BTreeMap<usize, Vec<i32>> = channels::animation(eval)
        .into_iter()
        .map(|a| {
            let mut t: Vec<i32> = a
                .channels
                .iter()
                .flat_map(|c| c.key_times.clone())
                .collect();
            t.sort_unstable();
            t.dedup();
            (a.index, t)
        })
        .collect();
    // Skin bones a rig moves without keys are sampled too (rig_motion.rs).
    let mut animated = animated;
    let driven = super::rig_motion::driven_bones(eval, &max_nodes, &animated, scale.time);
    animated.extend(driven);
    let (locals, residual) = trs_locals(eval, &max_nodes, &parent, &animated);
    b.residual = residual;
    // Max nodes are glTF nodes 0..n, in storage order; camera and light children follow.
    let mut nodes: Vec<json::Node> = Vec::new();
    let mut extra: Vec<(usize, json::Node)> = Vec::new();
    let mut skinned: Vec<(String, super::skin::Skinned)> = Vec::new();
    let mut skinned_of: Vec<usize> = Vec::new();
    for (i, &n) in max_nodes.iter().enumerate() {
        let name = eval.graph.objects[n]
            .node
            .as_ref()
            .map(|x| x.name.clone())
            .unwrap_or_default();
        let mut m = metres(to_gltf(&locals[i]), scale.metres);
        // A damaged file can hold a transform no f32 holds (NaN, 1e300; a
        // scale's column lengths overflow near f32::MAX): JSON has no such
        // number, so the node is placed at its parent, named.
        if !m
            .iter()
            .flatten()
            .all(|v| v.is_finite() && v.abs() < LARGEST_STORED)
        {
            b.approximate(format!(
                "{name}: transform not exported: a value is not finite or beyond 1e30 (a damaged file); the node is placed at its parent"
            ));
            m = to_gltf(&Mat43::IDENTITY);
        }
        let (t, r, s, exact) = decompose(&m);
        let mut node = json::Node {
            name: Some(name.clone()),
            ..Default::default()
        };
        // A shear is carried by the node's residual (trs_locals): always TRS.
        if exact || animated.contains_key(&n) || b.residual.contains_key(&n) {
            node.translation = Some(f3(t));
            node.rotation = Some(json::scene::UnitQuaternion(r.map(|v| v as f32)));
            node.scale = Some(f3(s));
        } else {
            let mut mm = [0f32; 16];
            for c in 0..4 {
                for rr in 0..3 {
                    let v = m[rr][c];
                    mm[c * 4 + rr] = if v.is_finite() { v as f32 } else { 0.0 };
                }
            }
            mm[15] = 1.0;
            node.matrix = Some(mm);
        }
        let dropped_before = b.dropped.len();
        match super::skin::skinned(&mut b, n, &name, &max_nodes, &parent) {
            Some(sk) => {
                skinned.push((name.clone(), sk));
                skinned_of.push(n);
            }
            None => node.mesh = b.mesh(n, &name),
        }
        // What this node lacks, on the node itself, for importers and scripts.
        let mut gaps: Vec<String> = b.dropped[dropped_before..].to_vec();
        // A transform not evaluated places the node (and its subtree) otherwise
        // than Max would: named in the warnings too, so errors.txt lists it.
        for g in maxfs_scene::eval::core::coverage::tm_gaps(eval, n) {
            let line = format!("{name}: transform not evaluated: {g}");
            b.approximate(line.clone());
            gaps.push(line);
        }
        if !gaps.is_empty() {
            node.extras =
                serde_json::value::to_raw_value(&value!({ "maxfs_unevaluated": gaps })).ok();
        }
        if let Some(obj) = eval.node_object(n) {
            if let Some(c) = b.camera(obj, &name) {
                extra.push((i, c));
            }
            if let Some(l) = b.light(obj, &name) {
                extra.push((i, l));
            }
        }
        nodes.push(node);
    }
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); nodes.len()];
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = p {
            children[*p].push(i as u32);
        }
    }
    for (owner, node) in extra {
        children[owner].push(nodes.len() as u32);
        nodes.push(node);
    }
    for (node, ch) in nodes.iter_mut().zip(children) {
        if !ch.is_empty() {
            node.children = Some(ch.into_iter().map(Index::new).collect());
        }
    }
    let mut roots: Vec<Index<json::Node>> = (0..max_nodes.len())
        .filter(|&i| parent[i].is_none())
        .map(|i| Index::new(i as u32))
        .collect();
    // Skinned meshes: untransformed root nodes after everything else.
    let skins: BTreeMap<usize, u32> = (skinned_of.into_iter())
        .enumerate()
        .map(|(k, n)| (n, (nodes.len() + k) as u32))
        .collect();
    let (skin_nodes, skin_roots) = super::skin::place(&mut b, skinned, nodes.len());
    nodes.extend(skin_nodes);
    roots.extend(skin_roots);
    for n in nodes {
        b.root.push(n);
    }
    super::pbr::volume_thickness(&mut b.root);
    // A scene without nodes is written as none: glTF forbids an empty
    // `nodes` list, and the `gltf` crate cannot read a scene without one.
    if !roots.is_empty() {
        let scene = b.root.push(json::Scene {
            extensions: None,
            extras: Default::default(),
            name: Some("Scene".into()),
            nodes: roots,
        });
        b.root.scene = Some(scene);
    }
    super::visibility::apply(&mut b, &max_nodes, &parent, &skins);
    super::anim::animations(&mut b, &max_nodes, &animated);
    name_transform_gaps(&mut b);
    if b.root.extensions.is_some() {
        b.root.extensions_used.push("KHR_lights_punctual".into());
    }
    if !b.bin.is_empty() {
        b.bin.resize(b.bin.len().div_ceil(4) * 4, 0);
        b.root.push(json::Buffer {
            byte_length: USize64::from(b.bin.len()),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
    }
    Built {
        root: b.root,
        bin: b.bin,
        warnings: b.warnings,
        dropped: b.dropped,
        approximated: b.approximated,
    }
}

/// Names every node whose transform is not evaluated at some tick the model
/// does not sample (a nub under a refused foot, a child of a hand refused at
/// one tick) as `maxfs check` names it: such a node is placed otherwise than
/// Max would, and errors.txt must say so.
fn name_transform_gaps(b: &mut Builder) {
    for g in maxfs_scene::eval::core::coverage::scene_gaps(b.eval) {
        if !g.places_nodes() {
            continue;
        }
        for name in &g.nodes {
            let prefix = format!("{name}: transform not evaluated");
            if !b.approximated.iter().any(|a| a.starts_with(&prefix)) {
                b.approximate(format!("{prefix}: {} {:?}", g.role, g.class));
            }
        }
    }
}
