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

#[macro_use]
mod decode;
mod ids;
mod scene;
#[cfg(test)]
mod tests;

use decode::*;
pub use ids::*;
pub use scene::SceneProperties;

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
