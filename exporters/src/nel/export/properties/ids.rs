//! The AppData keys of the NeL plug-in: class, sub ids, accelerator flags.

use maxfs_scene::graph::AppDataEntry;
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
