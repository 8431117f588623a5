//! NEL3D_APPDATA_* export properties per node, decoded with the defaults the NeL
//! plug-in passes to `getScriptAppData` (nel_mesh_lib/export_appdata.h,
//! export_script.cpp and the call sites), so every builder reads one typed value
//! instead of re-parsing AppData text.
//!
//! The plug-in and the export maxscripts read the same text differently: the
//! plug-in parses numbers (`"01"` is 1), the maxscripts compare strings
//! (`getappdata node id == "1"`). Both views are kept: the typed fields, and the
//! raw text through [`NodeProperties::raw`] for script-level tests.

use std::collections::BTreeMap;

use serde::Serialize;

use maxfs_scene::graph::{AppDataEntry, SceneGraph, SceneObject};
use maxfs_scene::typed::schema::{DERIVED_OSM, DERIVED_WSM};
use maxfs_scene::typed::ClassId;

/// MAXSCRIPT_UTILITY_CLASS_ID: the class every NeL AppData key is stored under.
pub const NEL_CLASS_ID: ClassId = ClassId(0x04d6_4858, 0x16d1_751d);
/// UTILITY_CLASS_ID, the superclass of the NeL keys.
pub const NEL_SUPER_CLASS: u32 = 0x1020;

/// A NeL AppData entry holding `text` as the plug-in stores it (NUL-ended
/// ASCII), for callers that give a scene NeL properties it does not have.
pub fn nel_entry(sub_id: u32, text: &str) -> AppDataEntry {
    let mut value = text.as_bytes().to_vec();
    value.push(0);
    AppDataEntry {
        class_id: NEL_CLASS_ID,
        super_class: NEL_SUPER_CLASS,
        sub_id,
        size: value.len() as u32,
        value,
    }
}

/// The AppData sub-ids (export_appdata.h, calc_lm.h, nel_patch_mesh.h, ligo).
pub mod id {
    pub const LOD_NAME_COUNT: u32 = 1_423_062_537;
    pub const LOD_NAME: u32 = 1_423_062_538;
    pub const LOD_NAME_COUNT_MAX: u32 = 10;
    pub const LOD_BLEND_IN: u32 = 1_423_062_548;
    pub const LOD_BLEND_OUT: u32 = 1_423_062_549;
    pub const LOD_COARSE_MESH: u32 = 1_423_062_550;
    pub const LOD_DYNAMIC_MESH: u32 = 1_423_062_551;
    pub const LOD_DIST_MAX: u32 = 1_423_062_552;
    pub const LOD_BLEND_LENGTH: u32 = 1_423_062_553;
    pub const LOD_MRM: u32 = 1_423_062_554;
    pub const LOD_SKIN_REDUCTION: u32 = 1_423_062_555;
    pub const LOD_NB_LOD: u32 = 1_423_062_556;
    pub const LOD_DIVISOR: u32 = 1_423_062_557;
    pub const LOD_DISTANCE_FINEST: u32 = 1_423_062_558;
    pub const LOD_DISTANCE_MIDDLE: u32 = 1_423_062_559;
    pub const LOD_DISTANCE_COARSEST: u32 = 1_423_062_560;
    pub const ACCEL: u32 = 1_423_062_561;
    pub const INSTANCE_NAME: u32 = 1_423_062_562;
    pub const DONT_ADD_TO_SCENE: u32 = 1_423_062_563;
    pub const IGNAME: u32 = 1_423_062_564;
    pub const DONTEXPORT: u32 = 1_423_062_565;
    pub const EXPORT_NOTE_TRACK: u32 = 1_423_062_566;
    pub const LUMELSIZEMUL: u32 = 1_423_062_567;
    pub const SOFTSHADOW_RADIUS: u32 = 1_423_062_568;
    pub const SOFTSHADOW_CONELENGTH: u32 = 1_423_062_569;
    pub const FLOATING_OBJECT: u32 = 1_423_062_570;
    pub const VEGETABLE: u32 = 1_423_062_580;
    pub const VEGETABLE_ALPHA_BLEND: u32 = 1_423_062_581;
    pub const VEGETABLE_ALPHA_BLEND_ON_LIGHTED: u32 = 1_423_062_582;
    pub const VEGETABLE_ALPHA_BLEND_OFF_LIGHTED: u32 = 1_423_062_583;
    pub const VEGETABLE_ALPHA_BLEND_OFF_DOUBLE_SIDED: u32 = 1_423_062_584;
    pub const BEND_CENTER: u32 = 1_423_062_585;
    pub const BEND_FACTOR: u32 = 1_423_062_586;
    pub const EXPORT_ANIMATED_MATERIALS: u32 = 1_423_062_587;
    pub const EXPORT_REALTIME_LIGHT: u32 = 1_423_062_588;
    pub const USE_LIGHT_LOCAL_ATTENUATION: u32 = 1_423_062_589;
    pub const EXPORT_LIGHTMAP_LIGHT: u32 = 1_423_062_590;
    pub const EXPORT_AS_SUN_LIGHT: u32 = 1_423_062_591;
    pub const VERTEXPROGRAM_ID: u32 = 1_423_062_592;
    pub const VPWT_FREQ: u32 = 1_423_062_593;
    pub const VPWT_FREQ_WD: u32 = 1_423_062_596;
    pub const VPWT_DIST_XY: u32 = 1_423_062_599;
    pub const VPWT_DIST_Z: u32 = 1_423_062_602;
    pub const VPWT_BIAS: u32 = 1_423_062_605;
    pub const VPWT_USE_SPEC: u32 = 1_423_062_608;
    pub const VPWT_FREQ_SCALE: u32 = 1_423_062_609;
    pub const VPWT_DIST_SCALE: u32 = 1_423_062_610;
    pub const EXPORT_SWT: u32 = 1_423_062_611;
    pub const EXPORT_SWT_WEIGHT: u32 = 1_423_062_612;
    pub const COLLISION: u32 = 1_423_062_613;
    pub const COLLISION_EXTERIOR: u32 = 1_423_062_614;
    pub const BONE_LOD_DISTANCE: u32 = 1_423_062_615;
    pub const VEGETABLE_FORCE_BEST_SIDED_LIGHTING: u32 = 1_423_062_616;
    pub const AUTOMATIC_ANIMATION: u32 = 1_423_062_617;
    pub const CHARACTER_LOD: u32 = 1_423_062_618;
    pub const EXPORT_BONE_SCALE: u32 = 1_423_062_619;
    pub const EXPORT_BONE_SCALE_NAME_EXT: u32 = 1_423_062_620;
    pub const USE_REMANENCE: u32 = 1_423_062_631;
    pub const REMANENCE_SLICE_NUMBER: u32 = 1_423_062_632;
    pub const REMANENCE_SAMPLING_PERIOD: u32 = 1_423_062_633;
    pub const REMANENCE_SHIFTING_TEXTURE: u32 = 1_423_062_634;
    pub const REMANENCE_ROLLUP_RATIO: u32 = 1_423_062_635;
    pub const LIGHT_DONT_CAST_SHADOW_INTERIOR: u32 = 1_423_062_636;
    pub const LIGHT_DONT_CAST_SHADOW_EXTERIOR: u32 = 1_423_062_637;
    pub const EXPORT_LMC_ENABLED: u32 = 1_423_062_638;
    pub const EXPORT_LMC_AMBIENT_START: u32 = 1_423_062_639;
    pub const EXPORT_LMC_DIFFUSE_START: u32 = 1_423_062_655;
    pub const EXPORT_LMC_MAX_LIGHT_GROUP: u32 = 16;
    pub const CAMERA_COLLISION_MESH_GENERATION: u32 = 1_423_062_671;
    pub const REALTIME_AMBIENT_ADD_SUN: u32 = 1_423_062_672;
    pub const INTERFACE_FILE: u32 = 1_423_062_700;
    pub const INTERFACE_THRESHOLD: u32 = 1_423_062_701;
    pub const GET_INTERFACE_NORMAL_FROM_SCENE_OBJECTS: u32 = 1_423_062_702;
    pub const EXPORT_NODE_ANIMATION: u32 = 1_423_062_800;
    pub const EXPORT_ANIMATION_PREFIXE_NAME: u32 = 1_423_062_801;
    pub const EXPORT_SSS_TRACK: u32 = 1_423_062_802;
    pub const INSTANCE_SHAPE: u32 = 1970;
    pub const OCC_MODEL: u32 = 84_682_540;
    pub const OPEN_OCC_MODEL: u32 = 84_682_541;
    pub const SOUND_GROUP: u32 = 84_682_542;
    pub const ENV_FX: u32 = 84_682_543;
    pub const RADIAL_NORMAL_SM: u32 = 2_089_254_647;
    pub const LM: u32 = 41_654_684;
    pub const LM_ANIMATED_LIGHT: u32 = 41_654_685;
    pub const LM_ANIMATED: u32 = 41_654_686;
    pub const LM_LIGHT_GROUP: u32 = 41_654_687;
    pub const ZONE_ROTATE: u32 = 1_266_703_978;
    pub const ZONE_SYMMETRY: u32 = 1_266_703_979;
    pub const LIGO_INSTANCE: u32 = 1_266_703_980;
    pub const LIGO_PASSABLE: u32 = 1_304_892_483;
    pub const LIGO_USE_BOUNDINGBOX: u32 = 1_342_141_818;
}

/// ACCEL bits (export_appdata.h).
pub mod accel {
    pub const TYPE_MASK: u32 = 3;
    pub const NOT_ACCELERATOR: u32 = 0;
    pub const PORTAL: u32 = 1;
    pub const CLUSTER: u32 = 2;
    pub const FATHER_VISIBLE: u32 = 4;
    pub const VISIBLE_FROM_FATHER: u32 = 8;
    pub const DYNAMIC_PORTAL: u32 = 16;
    pub const CLUSTERIZED: u32 = 32;
    pub const AUDIBLE_NOT_LIKE_VISIBLE: u32 = 64;
    pub const FATHER_AUDIBLE: u32 = 128;
    pub const AUDIBLE_FROM_FATHER: u32 = 256;
    /// NEL3D_APPDATA_ACCEL_DEFAULT.
    pub const DEFAULT: u32 = CLUSTERIZED;
}

/// `CVPWindTreeAppData::NumTicks`: the VPWT sliders count in these units.
pub const VPWT_NUM_TICKS: i32 = 1000;

/// The export properties of one node, every field at the plug-in's default
/// unless the node (or, for `instance_shape_object`, its object) sets it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeProperties {
    // LOD and MRM (export_mesh.cpp, export_lod.cpp)
    /// LOD slave names, LOD_NAME_COUNT entries of LOD_NAME + i (missing ones "").
    pub lod_names: Vec<String>,
    pub lod_blend_in: bool,
    pub lod_blend_out: bool,
    pub lod_coarse_mesh: bool,
    pub lod_dynamic_mesh: bool,
    pub lod_dist_max: f32,
    pub lod_blend_length: f32,
    pub lod_mrm: bool,
    pub lod_skin_reduction: i32,
    pub lod_nb_lod: i32,
    pub lod_divisor: i32,
    pub lod_distance_finest: f32,
    pub lod_distance_middle: f32,
    pub lod_distance_coarsest: f32,
    // Instance groups and accelerators (export_scene.cpp)
    /// ACCEL bit set; see [`accel`].
    pub accel: u32,
    pub instance_name: String,
    pub dont_add_to_scene: bool,
    pub ig_name: String,
    pub instance_shape: String,
    /// INSTANCE_SHAPE on the node's object (getNelObjectName reads it there too).
    pub instance_shape_object: Option<String>,
    pub occ_model: String,
    pub open_occ_model: String,
    pub sound_group: String,
    pub env_fx: String,
    pub camera_collision_mesh_generation: i32,
    // Export switches
    pub dont_export: bool,
    pub collision: bool,
    pub collision_exterior: bool,
    pub export_note_track: bool,
    pub export_sss_track: bool,
    pub export_node_animation: bool,
    pub export_animation_prefixe_name: bool,
    pub automatic_animation: bool,
    pub export_animated_materials: bool,
    pub floating_object: bool,
    pub character_lod: bool,
    // Skeleton
    pub export_swt: bool,
    pub export_swt_weight: f32,
    pub bone_lod_distance: f32,
    pub export_bone_scale: bool,
    pub export_bone_scale_name_ext: String,
    // Lighting and lightmaps
    /// LUMELSIZEMUL is read as text by the plug-in ("1.0") and parsed later.
    pub lumel_size_mul: f32,
    pub softshadow_radius: f32,
    pub softshadow_cone_length: f32,
    pub export_realtime_light: bool,
    pub use_light_local_attenuation: bool,
    pub export_lightmap_light: bool,
    pub export_as_sun_light: bool,
    pub light_dont_cast_shadow_interior: bool,
    pub light_dont_cast_shadow_exterior: bool,
    pub realtime_ambient_add_sun: bool,
    pub lm_animated_light: String,
    pub lm_animated: bool,
    pub lm_light_group: i32,
    pub lmc_enabled: bool,
    /// 16 light groups, RGBA.
    pub lmc_ambient: Vec<[u8; 4]>,
    pub lmc_diffuse: Vec<[u8; 4]>,
    // Vegetables
    pub vegetable: bool,
    pub vegetable_alpha_blend: i32,
    pub vegetable_alpha_blend_on_lighted: i32,
    pub vegetable_alpha_blend_off_lighted: i32,
    pub vegetable_alpha_blend_off_double_sided: bool,
    pub vegetable_force_best_sided_lighting: bool,
    pub bend_center: i32,
    pub bend_factor: f32,
    // Vertex programs (export_script.cpp getScriptAppDataVPWT)
    pub vertex_program_id: i32,
    pub vpwt_frequency: [i32; 3],
    pub vpwt_frequency_wind_factor: [i32; 3],
    pub vpwt_dist_xy: [i32; 3],
    pub vpwt_dist_z: [i32; 3],
    pub vpwt_bias: [i32; 3],
    pub vpwt_use_spec: bool,
    pub vpwt_freq_scale: f32,
    pub vpwt_dist_scale: f32,
    // Remanence (export_remanence.cpp)
    pub use_remanence: bool,
    pub remanence_slice_number: i32,
    pub remanence_sampling_period: f32,
    pub remanence_shifting_texture: bool,
    pub remanence_rollup_ratio: f32,
    // Meshes
    /// Radial normal node names for smoothing groups 28..31.
    pub radial_normal_sm: [String; 4],
    pub interface_file: String,
    pub interface_threshold: f32,
    pub get_interface_normal_from_scene_objects: bool,
    // Zones and ligo
    pub zone_rotate: i32,
    pub zone_symmetry: bool,
    pub ligo_instance: bool,
    /// True when the LIGO_PASSABLE key exists (its value is not read).
    pub ligo_passable: bool,
    pub ligo_use_boundingbox: bool,
    /// Field names set explicitly by an AppData entry, sorted by name.
    pub set: Vec<&'static str>,
    /// Values that could not be decoded (the default was kept) and unknown ids.
    pub warnings: Vec<String>,
    /// The NeL AppData text of the node as stored, for the maxscripts' string tests.
    #[serde(skip)]
    raw: BTreeMap<u32, String>,
}

impl Default for NodeProperties {
    fn default() -> Self {
        NodeProperties {
            lod_names: Vec::new(),
            lod_blend_in: true,
            lod_blend_out: true,
            lod_coarse_mesh: false,
            lod_dynamic_mesh: false,
            lod_dist_max: 1000.0,
            lod_blend_length: 5.0,
            lod_mrm: false,
            lod_skin_reduction: 1,
            lod_nb_lod: 11,
            lod_divisor: 20,
            lod_distance_finest: 5.0,
            lod_distance_middle: 30.0,
            lod_distance_coarsest: 200.0,
            accel: accel::DEFAULT,
            instance_name: String::new(),
            dont_add_to_scene: false,
            ig_name: String::new(),
            instance_shape: String::new(),
            instance_shape_object: None,
            occ_model: "no occlusion".into(),
            open_occ_model: "no occlusion".into(),
            sound_group: "no sound".into(),
            env_fx: "no fx".into(),
            camera_collision_mesh_generation: 0,
            dont_export: false,
            collision: false,
            collision_exterior: false,
            export_note_track: false,
            export_sss_track: false,
            export_node_animation: false,
            export_animation_prefixe_name: false,
            automatic_animation: false,
            export_animated_materials: false,
            floating_object: false,
            character_lod: false,
            export_swt: false,
            export_swt_weight: 0.0,
            bone_lod_distance: 0.0,
            export_bone_scale: false,
            export_bone_scale_name_ext: String::new(),
            lumel_size_mul: 1.0,
            softshadow_radius: 1.4,
            softshadow_cone_length: 15.0,
            export_realtime_light: true,
            use_light_local_attenuation: false,
            export_lightmap_light: true,
            export_as_sun_light: false,
            light_dont_cast_shadow_interior: false,
            light_dont_cast_shadow_exterior: false,
            realtime_ambient_add_sun: false,
            lm_animated_light: String::new(),
            lm_animated: false,
            lm_light_group: 0,
            lmc_enabled: false,
            lmc_ambient: vec![[0, 0, 0, 255]; id::EXPORT_LMC_MAX_LIGHT_GROUP as usize],
            lmc_diffuse: vec![[255, 255, 255, 255]; id::EXPORT_LMC_MAX_LIGHT_GROUP as usize],
            vegetable: false,
            vegetable_alpha_blend: 0,
            vegetable_alpha_blend_on_lighted: 0,
            vegetable_alpha_blend_off_lighted: 0,
            vegetable_alpha_blend_off_double_sided: false,
            vegetable_force_best_sided_lighting: false,
            bend_center: 0,
            bend_factor: 1.0,
            vertex_program_id: 0,
            // Level 0 only: frequency NumTicks/10, amplitude NumTicks/2.
            vpwt_frequency: [VPWT_NUM_TICKS / 10, 0, 0],
            vpwt_frequency_wind_factor: [0; 3],
            vpwt_dist_xy: [VPWT_NUM_TICKS / 2, 0, 0],
            vpwt_dist_z: [0; 3],
            vpwt_bias: [VPWT_NUM_TICKS / 2; 3],
            vpwt_use_spec: false,
            vpwt_freq_scale: 2.0,
            vpwt_dist_scale: 2.0,
            use_remanence: false,
            remanence_slice_number: 2,
            remanence_sampling_period: 0.02,
            remanence_shifting_texture: false,
            remanence_rollup_ratio: 1.0,
            radial_normal_sm: Default::default(),
            interface_file: String::new(),
            // export_mesh_interface.cpp reads -1 (the node dialog shows 0.1).
            interface_threshold: -1.0,
            get_interface_normal_from_scene_objects: false,
            zone_rotate: 0,
            zone_symmetry: false,
            ligo_instance: false,
            ligo_passable: false,
            ligo_use_boundingbox: false,
            set: Vec::new(),
            warnings: Vec::new(),
            raw: BTreeMap::new(),
        }
    }
}

/// The value text of an entry: the C string up to the first NUL, 8-bit.
/// `None` when the value is not NUL-terminated (the plug-in then uses the default).
fn c_text(v: &[u8]) -> Option<String> {
    if v.last() != Some(&0) {
        return None;
    }
    let end = v.iter().position(|&b| b == 0).unwrap_or(v.len());
    Some(v[..end].iter().map(|&b| b as char).collect())
}

/// Text of a value written as TCHAR by a Unicode Max (object INSTANCE_SHAPE):
/// UTF-16 when it looks like it, else the 8-bit C string.
fn any_text(v: &[u8]) -> Option<String> {
    if v.len() >= 4 && v.len().is_multiple_of(2) && v[1] == 0 && v[0] != 0 {
        let units: Vec<u16> = v
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .take_while(|&u| u != 0)
            .collect();
        return String::from_utf16(&units).ok();
    }
    c_text(v)
}

/// `sscanf("%d")`: optional blanks and sign, then digits; trailing text ignored
/// (NLMISC::fromString accepts "1.0" as 1).
fn parse_int(s: &str) -> Option<i32> {
    let t = s.trim_start();
    let (neg, rest) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits: &str = &rest[..rest.bytes().take_while(u8::is_ascii_digit).count()];
    if digits.is_empty() {
        return None;
    }
    let v: i64 = digits.parse().ok()?;
    let v = if neg { -v } else { v };
    i32::try_from(v).ok()
}

/// toFloatMax: a decimal float; a comma is accepted as decimal separator
/// (Max writes floats with the user's locale).
fn parse_float(s: &str) -> Option<f32> {
    let t = s.trim();
    t.parse::<f32>()
        .ok()
        .or_else(|| t.replace(',', ".").parse::<f32>().ok())
        .filter(|f| f.is_finite())
}

/// getScriptAppData for CRGBA: "%d %d %d %d", missing components 255, clamped.
fn parse_rgba(s: &str) -> [u8; 4] {
    let mut c = [255u8; 4];
    for (slot, word) in c.iter_mut().zip(s.split_whitespace()) {
        match parse_int(word) {
            Some(v) => *slot = v.clamp(0, 255) as u8,
            None => break,
        }
    }
    c
}

/// Decoding state of one node: records which fields were set and the warnings.
struct Decoder<'a> {
    p: &'a mut NodeProperties,
    id: u32,
    text: Option<String>,
}

impl Decoder<'_> {
    fn warn(&mut self, field: &str, what: &str) {
        let shown = self.text.as_deref().unwrap_or("<not NUL-terminated>");
        self.p.warnings.push(format!(
            "{field} (id {}): {what} {shown:?}; default kept",
            self.id
        ));
    }

    fn mark(&mut self, field: &'static str) {
        if !self.p.set.contains(&field) {
            self.p.set.push(field);
        }
    }

    fn int(&mut self, field: &'static str) -> Option<i32> {
        match self.text.as_deref().and_then(parse_int) {
            Some(v) => {
                self.mark(field);
                Some(v)
            }
            None => {
                self.warn(field, "not an integer:");
                None
            }
        }
    }

    /// A checkbox: the plug-in tests `!= BST_UNCHECKED` (or `== BST_CHECKED`,
    /// the same for the values the dialogs write).
    fn flag(&mut self, field: &'static str) -> Option<bool> {
        self.int(field).map(|v| v != 0)
    }

    fn float(&mut self, field: &'static str) -> Option<f32> {
        match self.text.as_deref().and_then(parse_float) {
            Some(v) => {
                self.mark(field);
                Some(v)
            }
            None => {
                self.warn(field, "not a number:");
                None
            }
        }
    }

    fn string(&mut self, field: &'static str) -> Option<String> {
        match self.text.clone() {
            Some(s) => {
                self.mark(field);
                Some(s)
            }
            None => {
                self.warn(field, "not a C string:");
                None
            }
        }
    }

    fn rgba(&mut self, field: &'static str) -> Option<[u8; 4]> {
        let s = self.string(field)?;
        Some(parse_rgba(&s))
    }
}

macro_rules! set {
    ($d:expr, $field:ident, $method:ident) => {
        if let Some(v) = $d.$method(stringify!($field)) {
            $d.p.$field = v;
        }
    };
}

fn is_nel(e: &AppDataEntry) -> bool {
    e.class_id == NEL_CLASS_ID && e.super_class == NEL_SUPER_CLASS
}

impl NodeProperties {
    /// Decodes the NeL AppData of a node; `object` is the node's (base) object,
    /// consulted only for INSTANCE_SHAPE as getNelObjectName does.
    pub fn decode(node: &SceneObject, object: Option<&SceneObject>) -> NodeProperties {
        let mut p = NodeProperties::default();
        let mut lod_count: Option<i32> = None;
        let mut lod_names: BTreeMap<u32, String> = BTreeMap::new();
        for e in node.appdata.iter().filter(|e| is_nel(e)) {
            let text = c_text(&e.value);
            if let Some(t) = &text {
                p.raw.insert(e.sub_id, t.clone());
            }
            let mut d = Decoder {
                p: &mut p,
                id: e.sub_id,
                text,
            };
            match e.sub_id {
                id::LOD_NAME_COUNT => {
                    if let Some(n) = d.int("lod_names") {
                        lod_count = Some(n);
                    }
                }
                i if (id::LOD_NAME..id::LOD_NAME + id::LOD_NAME_COUNT_MAX).contains(&i) => {
                    if let Some(s) = d.string("lod_names") {
                        lod_names.insert(i - id::LOD_NAME, s);
                    }
                }
                id::LOD_BLEND_IN => set!(d, lod_blend_in, flag),
                id::LOD_BLEND_OUT => set!(d, lod_blend_out, flag),
                id::LOD_COARSE_MESH => set!(d, lod_coarse_mesh, flag),
                id::LOD_DYNAMIC_MESH => set!(d, lod_dynamic_mesh, flag),
                id::LOD_DIST_MAX => set!(d, lod_dist_max, float),
                id::LOD_BLEND_LENGTH => set!(d, lod_blend_length, float),
                id::LOD_MRM => set!(d, lod_mrm, flag),
                id::LOD_SKIN_REDUCTION => set!(d, lod_skin_reduction, int),
                id::LOD_NB_LOD => set!(d, lod_nb_lod, int),
                id::LOD_DIVISOR => set!(d, lod_divisor, int),
                id::LOD_DISTANCE_FINEST => set!(d, lod_distance_finest, float),
                id::LOD_DISTANCE_MIDDLE => set!(d, lod_distance_middle, float),
                id::LOD_DISTANCE_COARSEST => set!(d, lod_distance_coarsest, float),
                id::ACCEL => {
                    if let Some(v) = d.int("accel") {
                        d.p.accel = v as u32;
                    }
                }
                id::INSTANCE_NAME => set!(d, instance_name, string),
                id::DONT_ADD_TO_SCENE => set!(d, dont_add_to_scene, flag),
                id::IGNAME => set!(d, ig_name, string),
                id::INSTANCE_SHAPE => set!(d, instance_shape, string),
                id::OCC_MODEL => set!(d, occ_model, string),
                id::OPEN_OCC_MODEL => set!(d, open_occ_model, string),
                id::SOUND_GROUP => set!(d, sound_group, string),
                id::ENV_FX => set!(d, env_fx, string),
                id::CAMERA_COLLISION_MESH_GENERATION => {
                    set!(d, camera_collision_mesh_generation, int)
                }
                id::DONTEXPORT => set!(d, dont_export, flag),
                id::COLLISION => set!(d, collision, flag),
                id::COLLISION_EXTERIOR => set!(d, collision_exterior, flag),
                id::EXPORT_NOTE_TRACK => set!(d, export_note_track, flag),
                id::EXPORT_SSS_TRACK => set!(d, export_sss_track, flag),
                id::EXPORT_NODE_ANIMATION => set!(d, export_node_animation, flag),
                id::EXPORT_ANIMATION_PREFIXE_NAME => set!(d, export_animation_prefixe_name, flag),
                id::AUTOMATIC_ANIMATION => set!(d, automatic_animation, flag),
                id::EXPORT_ANIMATED_MATERIALS => set!(d, export_animated_materials, flag),
                id::FLOATING_OBJECT => set!(d, floating_object, flag),
                id::CHARACTER_LOD => set!(d, character_lod, flag),
                id::EXPORT_SWT => set!(d, export_swt, flag),
                id::EXPORT_SWT_WEIGHT => set!(d, export_swt_weight, float),
                id::BONE_LOD_DISTANCE => set!(d, bone_lod_distance, float),
                id::EXPORT_BONE_SCALE => set!(d, export_bone_scale, flag),
                id::EXPORT_BONE_SCALE_NAME_EXT => set!(d, export_bone_scale_name_ext, string),
                id::LUMELSIZEMUL => set!(d, lumel_size_mul, float),
                id::SOFTSHADOW_RADIUS => set!(d, softshadow_radius, float),
                id::SOFTSHADOW_CONELENGTH => set!(d, softshadow_cone_length, float),
                id::EXPORT_REALTIME_LIGHT => set!(d, export_realtime_light, flag),
                id::USE_LIGHT_LOCAL_ATTENUATION => set!(d, use_light_local_attenuation, flag),
                id::EXPORT_LIGHTMAP_LIGHT => set!(d, export_lightmap_light, flag),
                id::EXPORT_AS_SUN_LIGHT => set!(d, export_as_sun_light, flag),
                id::LIGHT_DONT_CAST_SHADOW_INTERIOR => {
                    set!(d, light_dont_cast_shadow_interior, flag)
                }
                id::LIGHT_DONT_CAST_SHADOW_EXTERIOR => {
                    set!(d, light_dont_cast_shadow_exterior, flag)
                }
                id::REALTIME_AMBIENT_ADD_SUN => set!(d, realtime_ambient_add_sun, flag),
                id::LM => d.p.warnings.push(format!(
                    "NEL3D_APPDATA_LM (id {}) is a base id, not a property; ignored",
                    id::LM
                )),
                id::LM_ANIMATED_LIGHT => set!(d, lm_animated_light, string),
                id::LM_ANIMATED => set!(d, lm_animated, flag),
                id::LM_LIGHT_GROUP => set!(d, lm_light_group, int),
                id::EXPORT_LMC_ENABLED => set!(d, lmc_enabled, flag),
                i if (id::EXPORT_LMC_AMBIENT_START
                    ..id::EXPORT_LMC_AMBIENT_START + id::EXPORT_LMC_MAX_LIGHT_GROUP)
                    .contains(&i) =>
                {
                    if let Some(c) = d.rgba("lmc_ambient") {
                        d.p.lmc_ambient[(i - id::EXPORT_LMC_AMBIENT_START) as usize] = c;
                    }
                }
                i if (id::EXPORT_LMC_DIFFUSE_START
                    ..id::EXPORT_LMC_DIFFUSE_START + id::EXPORT_LMC_MAX_LIGHT_GROUP)
                    .contains(&i) =>
                {
                    if let Some(c) = d.rgba("lmc_diffuse") {
                        d.p.lmc_diffuse[(i - id::EXPORT_LMC_DIFFUSE_START) as usize] = c;
                    }
                }
                id::VEGETABLE => set!(d, vegetable, flag),
                id::VEGETABLE_ALPHA_BLEND => set!(d, vegetable_alpha_blend, int),
                id::VEGETABLE_ALPHA_BLEND_ON_LIGHTED => {
                    set!(d, vegetable_alpha_blend_on_lighted, int)
                }
                id::VEGETABLE_ALPHA_BLEND_OFF_LIGHTED => {
                    set!(d, vegetable_alpha_blend_off_lighted, int)
                }
                id::VEGETABLE_ALPHA_BLEND_OFF_DOUBLE_SIDED => {
                    set!(d, vegetable_alpha_blend_off_double_sided, flag)
                }
                id::VEGETABLE_FORCE_BEST_SIDED_LIGHTING => {
                    set!(d, vegetable_force_best_sided_lighting, flag)
                }
                id::BEND_CENTER => set!(d, bend_center, int),
                id::BEND_FACTOR => set!(d, bend_factor, float),
                id::VERTEXPROGRAM_ID => set!(d, vertex_program_id, int),
                i if (id::VPWT_FREQ..id::VPWT_FREQ + 15).contains(&i) => {
                    let k = (i - id::VPWT_FREQ) as usize;
                    let field = match k / 3 {
                        0 => "vpwt_frequency",
                        1 => "vpwt_frequency_wind_factor",
                        2 => "vpwt_dist_xy",
                        3 => "vpwt_dist_z",
                        _ => "vpwt_bias",
                    };
                    if let Some(v) = d.int(field) {
                        let arr = match k / 3 {
                            0 => &mut d.p.vpwt_frequency,
                            1 => &mut d.p.vpwt_frequency_wind_factor,
                            2 => &mut d.p.vpwt_dist_xy,
                            3 => &mut d.p.vpwt_dist_z,
                            _ => &mut d.p.vpwt_bias,
                        };
                        arr[k % 3] = v;
                    }
                }
                id::VPWT_USE_SPEC => set!(d, vpwt_use_spec, flag),
                id::VPWT_FREQ_SCALE => set!(d, vpwt_freq_scale, float),
                id::VPWT_DIST_SCALE => set!(d, vpwt_dist_scale, float),
                id::USE_REMANENCE => set!(d, use_remanence, flag),
                id::REMANENCE_SLICE_NUMBER => set!(d, remanence_slice_number, int),
                id::REMANENCE_SAMPLING_PERIOD => set!(d, remanence_sampling_period, float),
                id::REMANENCE_SHIFTING_TEXTURE => set!(d, remanence_shifting_texture, flag),
                id::REMANENCE_ROLLUP_RATIO => set!(d, remanence_rollup_ratio, float),
                i if (id::RADIAL_NORMAL_SM..id::RADIAL_NORMAL_SM + 4).contains(&i) => {
                    if let Some(s) = d.string("radial_normal_sm") {
                        d.p.radial_normal_sm[(i - id::RADIAL_NORMAL_SM) as usize] = s;
                    }
                }
                id::INTERFACE_FILE => set!(d, interface_file, string),
                id::INTERFACE_THRESHOLD => set!(d, interface_threshold, float),
                id::GET_INTERFACE_NORMAL_FROM_SCENE_OBJECTS => {
                    set!(d, get_interface_normal_from_scene_objects, flag)
                }
                id::ZONE_ROTATE => set!(d, zone_rotate, int),
                id::ZONE_SYMMETRY => set!(d, zone_symmetry, flag),
                id::LIGO_INSTANCE => set!(d, ligo_instance, flag),
                id::LIGO_PASSABLE => {
                    d.mark("ligo_passable");
                    d.p.ligo_passable = true;
                }
                id::LIGO_USE_BOUNDINGBOX => set!(d, ligo_use_boundingbox, flag),
                other => d.p.warnings.push(format!(
                    "AppData id {other} under the MAXScript utility class is not a NeL key (another script's); ignored"
                )),
            }
        }
        if let Some(n) = lod_count {
            // The plug-in reads LOD_NAME + i for i < count (at most 10), "" when missing.
            let n = n.clamp(0, id::LOD_NAME_COUNT_MAX as i32) as u32;
            p.lod_names = (0..n)
                .map(|i| lod_names.get(&i).cloned().unwrap_or_default())
                .collect();
        } else if !lod_names.is_empty() {
            p.warnings
                .push("LOD_NAME entries without LOD_NAME_COUNT; ignored".to_string());
        }
        if let Some(obj) = object {
            if let Some(e) = obj
                .appdata
                .iter()
                .find(|e| is_nel(e) && e.sub_id == id::INSTANCE_SHAPE)
            {
                match any_text(&e.value) {
                    Some(s) => {
                        p.instance_shape_object = Some(s);
                        if !p.set.contains(&"instance_shape_object") {
                            p.set.push("instance_shape_object");
                        }
                    }
                    None => p.warnings.push(format!(
                        "instance_shape_object (id {}): not text; ignored",
                        id::INSTANCE_SHAPE
                    )),
                }
            }
        }
        p.sort_set();
        p
    }

    /// Sorts `set` by name, like the keys of the JSON view, so it does not
    /// depend on the order of the entries in the file.
    fn sort_set(&mut self) {
        self.set.sort_unstable();
    }

    /// The stored text of a NeL key on the node, as `getappdata` returns it.
    pub fn raw(&self, id: u32) -> Option<&str> {
        self.raw.get(&id).map(String::as_str)
    }

    /// The maxscripts' test `getappdata node id == "1"`.
    pub fn script_is_one(&self, id: u32) -> bool {
        self.raw(id) == Some("1")
    }

    /// ACCEL & 3: 0 none, 1 portal, 2 cluster.
    pub fn accel_type(&self) -> u32 {
        self.accel & accel::TYPE_MASK
    }

    pub fn is_portal(&self) -> bool {
        self.accel_type() == accel::PORTAL
    }

    pub fn is_cluster(&self) -> bool {
        self.accel_type() == accel::CLUSTER
    }

    /// shape_export.ms isAccelerator: an ACCEL text other than "0" or "32".
    pub fn script_is_accelerator(&self) -> bool {
        matches!(self.raw(id::ACCEL), Some(a) if a != "0" && a != "32")
    }

    /// The NeL AppData keys present on the node, in id order.
    pub fn raw_entries(&self) -> impl Iterator<Item = (u32, &str)> {
        self.raw.iter().map(|(k, v)| (*k, v.as_str()))
    }
}

/// Decoded export properties of every object of a scene, indexed like
/// `SceneGraph::objects`; non-node objects get the defaults.
#[derive(Debug, Clone, Default)]
pub struct SceneProperties {
    nodes: Vec<Option<NodeProperties>>,
    default: NodeProperties,
}

/// The object a node shows, under any modifier stack (derived objects keep
/// their base object in their last reference).
fn base_object(graph: &SceneGraph, node: &SceneObject) -> Option<usize> {
    let mut cur = node
        .references
        .iter()
        .find(|r| r.slot == 1)
        .and_then(|r| usize::try_from(r.target).ok())?;
    for _ in 0..512 {
        let o = graph.objects.get(cur)?;
        if !matches!(o.chunk_id, DERIVED_OSM | DERIVED_WSM) {
            return Some(cur);
        }
        cur = o
            .references
            .iter()
            .filter(|r| r.target >= 0)
            .max_by_key(|r| r.slot)
            .and_then(|r| usize::try_from(r.target).ok())?;
    }
    None
}

impl SceneProperties {
    /// Decodes every node; only nodes carrying NeL AppData (node or object) cost
    /// more than a default value.
    pub fn of(graph: &SceneGraph) -> SceneProperties {
        let nodes = graph
            .objects
            .iter()
            .map(|o| {
                o.node.as_ref()?;
                let obj = base_object(graph, o).and_then(|i| graph.objects.get(i));
                let has_nel = o.appdata.iter().any(is_nel)
                    || obj.is_some_and(|ob| ob.appdata.iter().any(is_nel));
                Some(if has_nel {
                    NodeProperties::decode(o, obj)
                } else {
                    NodeProperties::default()
                })
            })
            .collect();
        SceneProperties {
            nodes,
            default: NodeProperties::default(),
        }
    }

    /// The properties of object `idx` (defaults for non-nodes and bad indices).
    pub fn node(&self, idx: usize) -> &NodeProperties {
        self.nodes
            .get(idx)
            .and_then(Option::as_ref)
            .unwrap_or(&self.default)
    }

    /// Whether `idx` is a node (has decoded properties of its own).
    pub fn is_node(&self, idx: usize) -> bool {
        matches!(self.nodes.get(idx), Some(Some(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_parsers() {
        assert_eq!(parse_int("10"), Some(10));
        assert_eq!(parse_int(" -3x"), Some(-3));
        assert_eq!(parse_int("1.0"), Some(1));
        assert_eq!(parse_int("abc"), None);
        assert_eq!(parse_float("1,5"), Some(1.5));
        assert_eq!(parse_float("nan"), None);
        assert_eq!(parse_rgba("1 2 300"), [1, 2, 255, 255]);
        assert_eq!(c_text(b"ab\0"), Some("ab".into()));
        assert_eq!(c_text(b"ab"), None);
    }

    fn entry(sub_id: u32, value: &[u8]) -> AppDataEntry {
        AppDataEntry {
            class_id: NEL_CLASS_ID,
            super_class: NEL_SUPER_CLASS,
            sub_id,
            size: value.len() as u32,
            value: value.to_vec(),
        }
    }

    fn node(appdata: Vec<AppDataEntry>) -> SceneObject {
        SceneObject {
            index: 0,
            chunk_id: 0,
            class: None,
            references: Vec::new(),
            appdata,
            node: None,
            note_keys: Vec::new(),
        }
    }

    #[test]
    fn decodes_values_and_keeps_defaults_on_bad_input() {
        let n = node(vec![
            entry(id::ACCEL, b"10\0"),
            entry(id::LOD_NAME_COUNT, b"2\0"),
            entry(id::LOD_NAME + 1, b"lod1\0"),
            entry(id::LOD_DIST_MAX, b"oops\0"),
            entry(id::IGNAME, b"street_ig"),
            entry(id::EXPORT_LMC_AMBIENT_START + 3, b"10 20 30\0"),
            entry(id::VPWT_BIAS + 2, b"7\0"),
            entry(id::DONTEXPORT, b"1\0"),
            entry(77, b"x\0"),
        ]);
        let mut obj = node(vec![entry(id::INSTANCE_SHAPE, b"s\0h\0a\0p\0e\0\0\0")]);
        obj.index = 1;
        let p = NodeProperties::decode(&n, Some(&obj));
        assert_eq!(p.accel, 10);
        assert!(p.is_cluster() && p.script_is_accelerator());
        assert_eq!(p.lod_names, vec![String::new(), "lod1".to_string()]);
        assert_eq!(p.lod_dist_max, 1000.0, "bad float keeps the default");
        assert_eq!(p.ig_name, "", "a value without NUL keeps the default");
        assert_eq!(p.lmc_ambient[3], [10, 20, 30, 255]);
        assert_eq!(p.vpwt_bias, [500, 500, 7]);
        assert!(p.dont_export && p.script_is_one(id::DONTEXPORT));
        assert_eq!(p.instance_shape_object.as_deref(), Some("shape"));
        assert_eq!(p.warnings.len(), 3, "{:?}", p.warnings);
        assert_eq!(
            p.set,
            [
                "accel",
                "dont_export",
                "instance_shape_object",
                "lmc_ambient",
                "lod_names",
                "vpwt_bias"
            ]
        );
    }
}
