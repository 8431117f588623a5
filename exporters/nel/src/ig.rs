//! `.ig`: `CInstanceGroup` — instances, point lights, surface lighting, clusters, portals.

use serde::Serialize;

use super::stream::{opt, AaBox, Bool, Plane, Quat, Rgba, Serial, Stream, Vec2, Vec3, F32};
use super::NelError;
use crate::{nel_struct, nel_versioned};

/// `CInstanceGroup::CInstance`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Instance {
    pub version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visible: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dont_cast_shadow_for_exterior: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dont_cast_shadow_for_interior: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_ambient_id: Option<u8>,
    /// Version 3+: avoid-precompute, dont-cast-shadow, static-light-enabled, sun, light0, light1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub static_light: Option<StaticLight>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dont_add_to_scene: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clusters: Option<Vec<u32>>,
    pub name: String,
    pub pos: Vec3,
    pub rot: Quat,
    pub scale: Vec3,
    pub parent: i32,
}

nel_struct!(
    /// Static lighting of an instance.
    StaticLight {
        avoid_static_light_pre_compute: Bool,
        dont_cast_shadow: Bool,
        static_light_enabled: Bool,
        sun_contribution: u8,
        light: [u8; 2],
    }
);

impl Serial for Instance {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 7, "CInstanceGroup::CInstance")?;
        let v = self.version;
        opt(s, &mut self.visible, v >= 7)?;
        opt(s, &mut self.dont_cast_shadow_for_exterior, v >= 6)?;
        opt(s, &mut self.dont_cast_shadow_for_interior, v >= 5)?;
        opt(s, &mut self.local_ambient_id, v >= 4)?;
        opt(s, &mut self.static_light, v >= 3)?;
        opt(s, &mut self.instance_name, v >= 2)?;
        opt(s, &mut self.dont_add_to_scene, v >= 2)?;
        opt(s, &mut self.clusters, v >= 1)?;
        s.ser(&mut self.name)?;
        s.ser(&mut self.pos)?;
        s.ser(&mut self.rot)?;
        s.ser(&mut self.scale)?;
        s.ser(&mut self.parent)
    }
}

/// `CPointLight`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PointLight {
    pub version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub add_ambient_with_sun: Option<Bool>,
    /// Version 1+: type, spot direction, spot angle begin/end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spot: Option<Spot>,
    pub position: Vec3,
    pub ambient: Rgba,
    pub diffuse: Rgba,
    pub specular: Rgba,
    pub attenuation_begin: F32,
    pub attenuation_end: F32,
}

nel_struct!(
    /// Light type and spot cone.
    Spot { light_type: u32, direction: Vec3, angle_begin: F32, angle_end: F32 }
);

impl Serial for PointLight {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 2, "CPointLight")?;
        opt(s, &mut self.add_ambient_with_sun, self.version >= 2)?;
        opt(s, &mut self.spot, self.version >= 1)?;
        s.ser(&mut self.position)?;
        s.ser(&mut self.ambient)?;
        s.ser(&mut self.diffuse)?;
        s.ser(&mut self.specular)?;
        s.ser(&mut self.attenuation_begin)?;
        s.ser(&mut self.attenuation_end)
    }
}

/// `CPointLightNamed`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PointLightNamed {
    pub version: u32,
    pub light: PointLight,
    pub animated_light: String,
    pub default_ambient: Rgba,
    pub default_diffuse: Rgba,
    pub default_specular: Rgba,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub light_group: Option<u32>,
}

impl Serial for PointLightNamed {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CPointLightNamed")?;
        s.ser(&mut self.light)?;
        s.ser(&mut self.animated_light)?;
        s.ser(&mut self.default_ambient)?;
        s.ser(&mut self.default_diffuse)?;
        s.ser(&mut self.default_specular)?;
        opt(s, &mut self.light_group, self.version >= 1)
    }
}

nel_versioned!(
    /// `CPointLightNamedArray::CPointLightGroup`.
    PointLightGroup(0) { animation_light: String, light_group: u32, start_id: u32, end_id: u32 }
);

/// `CPointLightNamedArray`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PointLightArray {
    pub version: u32,
    pub lights: Vec<PointLightNamed>,
    /// Version 0: name -> (start, end).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups_v0: Vec<(String, (u32, u32))>,
    pub groups: Vec<PointLightGroup>,
}

impl Serial for PointLightArray {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CPointLightNamedArray")?;
        s.field("lights", &mut self.lights)?;
        if self.version == 0 {
            s.field("groups_v0", &mut self.groups_v0)
        } else {
            s.field("groups", &mut self.groups)
        }
    }
}

/// `CSurfaceLightGrid::CCellCorner` (version 1 has the local ambient id first).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Corner {
    pub version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_ambient_id: Option<u8>,
    pub sun_contribution: u8,
    pub light: [u8; 2],
}

impl Serial for Corner {
    const MIN_SIZE: usize = 4;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CSurfaceLightGrid::CCellCorner")?;
        opt(s, &mut self.local_ambient_id, self.version >= 1)?;
        s.ser(&mut self.sun_contribution)?;
        s.ser(&mut self.light)
    }
}

nel_versioned!(
    /// `CSurfaceLightGrid`.
    SurfaceLightGrid(0) { origin: Vec2, width: u32, height: u32, cells: Vec<Corner> }
);
nel_versioned!(
    /// `CIGSurfaceLight::CRetrieverLightGrid`.
    RetrieverLightGrid(0) { grids: Vec<SurfaceLightGrid> }
);

/// `CIGSurfaceLight`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IgSurfaceLight {
    pub version: u32,
    pub cell_size: F32,
    pub oo_cell_size: F32,
    /// Version 1: retriever id -> grids; version 0 keyed by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub grids_v0: Vec<(String, RetrieverLightGrid)>,
    pub retriever_grids: Vec<(u32, RetrieverLightGrid)>,
}

impl Serial for IgSurfaceLight {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CIGSurfaceLight")?;
        s.ser(&mut self.cell_size)?;
        s.ser(&mut self.oo_cell_size)?;
        if self.version < 1 {
            s.field("grids_v0", &mut self.grids_v0)
        } else {
            s.field("retriever_grids", &mut self.retriever_grids)
        }
    }
}

/// `CCluster`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Cluster {
    pub version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub local_volume: Vec<Plane>,
    pub local_bbox: AaBox,
    pub father_visible: Bool,
    pub visible_from_father: Bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sound_group: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment_fx: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audible_from_father: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub father_audible: Option<Bool>,
}

impl Serial for Cluster {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 3, "CCluster")?;
        let v = self.version;
        opt(s, &mut self.name, v >= 1)?;
        s.ser(&mut self.local_volume)?;
        s.ser(&mut self.local_bbox)?;
        s.ser(&mut self.father_visible)?;
        s.ser(&mut self.visible_from_father)?;
        opt(s, &mut self.sound_group, v >= 2)?;
        opt(s, &mut self.environment_fx, v >= 2)?;
        opt(s, &mut self.audible_from_father, v >= 3)?;
        opt(s, &mut self.father_audible, v >= 3)
    }
}

/// `CPortal`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Portal {
    pub version: u32,
    pub local_poly: Vec<Vec3>,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occlusion_model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_occlusion_model: Option<String>,
}

impl Serial for Portal {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CPortal")?;
        s.ser(&mut self.local_poly)?;
        s.ser(&mut self.name)?;
        opt(s, &mut self.occlusion_model, self.version >= 1)?;
        opt(s, &mut self.open_occlusion_model, self.version >= 1)
    }
}

/// `CInstanceGroup` (`GRPT` magic).
#[derive(Debug, Clone, Default, Serialize)]
pub struct InstanceGroup {
    pub version: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub real_time_sun_contribution: Option<Bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub surface_light: Option<IgSurfaceLight>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point_lights: Option<PointLightArray>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub global_pos: Option<Vec3>,
    pub clusters: Vec<Cluster>,
    pub portals: Vec<Portal>,
    /// Portal indices of each cluster (stored after clusters and portals).
    pub cluster_portals: Vec<Vec<i32>>,
    pub instances: Vec<Instance>,
}

impl Serial for InstanceGroup {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CInstanceGroup", |s| {
            s.check(b"GRPT")?;
            s.version(&mut self.version, 5, "CInstanceGroup")?;
            let v = self.version;
            opt(s, &mut self.real_time_sun_contribution, v >= 5)?;
            opt(s, &mut self.surface_light, v >= 4)?;
            opt(s, &mut self.point_lights, v >= 3)?;
            opt(s, &mut self.global_pos, v >= 2)?;
            if v >= 1 {
                s.field("clusters", &mut self.clusters)?;
                s.field("portals", &mut self.portals)?;
                let n = self.clusters.len();
                s.vec_n(&mut self.cluster_portals, n)?;
                if s.reading() {
                    let np = self.portals.len() as i64;
                    for (ci, l) in self.cluster_portals.iter().enumerate() {
                        if let Some(bad) = l.iter().find(|&&p| p < 0 || p as i64 >= np) {
                            return Err(s.err(format!(
                                "cluster {ci} refers to portal {bad}, only {np} portals"
                            )));
                        }
                    }
                }
            }
            s.field("instances", &mut self.instances)
        })
    }
}
