//! `CBBClusterShape`: billboard clusters from the Werewolf/Snowballs branch of NeL.
//! Not part of Ryzom Core; layout from the public Werewolf sources (nel/tools snowballs era).

use serde::Serialize;

use super::material::Material;
use crate::stream::{opt, PolyClass, Ptr, Rgba, Serial, Stream, Vec2, Vec3, F32};
use crate::NelError;

const USE_BB_COLORS: u32 = 0x10;
const USE_BB_SIZES: u32 = 0x20;
const USE_BB_ORIENTATIONS: u32 = 0x40;
const AXIS_CONSTRAINED: u32 = 3;

/// `CBBClusterShape::CBBSlot`: one lod of billboards.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BbSlot {
    pub version: u32,
    pub dist_max: F32,
    pub a: F32,
    pub b: F32,
    pub end_polygon_count: F32,
    pub blend_length: F32,
    pub flags: u32,
    pub num_bbs: i32,
    pub compare_distance: F32,
    pub bb_radius: Vec2,
    pub alignment: u32,
    pub positions: Vec<Vec3>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colors: Option<Vec<Rgba>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<Vec2>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orientations: Option<Vec<F32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constrain_axes: Option<Vec<Vec3>>,
}

impl Serial for BbSlot {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CBBClusterShape::CBBSlot")?;
        s.ser(&mut self.dist_max)?;
        s.ser(&mut self.a)?;
        s.ser(&mut self.b)?;
        s.ser(&mut self.end_polygon_count)?;
        s.ser(&mut self.blend_length)?;
        s.ser(&mut self.flags)?;
        s.ser(&mut self.num_bbs)?;
        s.ser(&mut self.compare_distance)?;
        s.ser(&mut self.bb_radius)?;
        s.ser(&mut self.alignment)?;
        s.ser(&mut self.positions)?;
        let f = self.flags;
        opt(s, &mut self.colors, f & USE_BB_COLORS != 0)?;
        opt(s, &mut self.sizes, f & USE_BB_SIZES != 0)?;
        opt(s, &mut self.orientations, f & USE_BB_ORIENTATIONS != 0)?;
        opt(
            s,
            &mut self.constrain_axes,
            self.alignment == AXIS_CONSTRAINED,
        )
    }
}

/// The only class stored in the slot list.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "class")]
pub enum BbSlotClass {
    #[serde(rename = "CBBClusterShape::CBBSlot")]
    Slot(BbSlot),
}

impl PolyClass for BbSlotClass {
    const FAMILY: &'static str = "CBBClusterShape::CBBSlot";
    fn create(class: &str) -> Option<Self> {
        (class == "CBBClusterShape::CBBSlot").then(|| BbSlotClass::Slot(Default::default()))
    }
    fn class_name(&self) -> &str {
        "CBBClusterShape::CBBSlot"
    }
    fn serial_body<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        let BbSlotClass::Slot(x) = self;
        x.serial(s)
    }
}

/// Pointer element for `serialContPolyPtr`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(transparent)]
pub struct SlotPtr(pub Ptr<BbSlotClass>);

impl Serial for SlotPtr {
    const MIN_SIZE: usize = 8;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.poly(&mut self.0)
    }
}

/// `CBBClusterShape`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BbClusterShape {
    pub version: u32,
    pub dist_max: F32,
    pub material: Material,
    pub radius: F32,
    pub lods: Vec<SlotPtr>,
}

impl Serial for BbClusterShape {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CBBClusterShape")?;
        s.ser(&mut self.dist_max)?;
        s.field("material", &mut self.material)?;
        s.ser(&mut self.radius)?;
        s.field("lods", &mut self.lods)
    }
}
