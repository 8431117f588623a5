//! `.pacs_prim`: `NLPACS::CPrimitiveBlock` (facts: `nel/src/pacs/primitive_block_pacs.cpp`),
//! binary form: check `PRBK`, version 0, primitive descriptions. NeL's tools also write this
//! class through its XML stream (`COXml`): that text form is read and written by
//! [`super::pacs_prim_xml`].

use serde::Serialize;

use super::stream::{opt, Bool, Serial, Stream, Vec3, F32};
use super::NelError;

/// `CPrimitiveDesc` (versions 0..1): a PACS move primitive description.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PrimitiveDesc {
    pub version: u32,
    /// Width and depth of a box; radius (first) of a cylinder.
    pub length: [F32; 2],
    pub height: F32,
    pub attenuation: F32,
    /// `UMovePrimitive::TType` (serialEnum: sint32).
    pub prim_type: i32,
    /// `UMovePrimitive::TReaction`.
    pub reaction: i32,
    /// `UMovePrimitive::TTrigger`.
    pub trigger: i32,
    pub obstacle: Bool,
    pub occlusion_mask: u32,
    pub collision_mask: u32,
    pub position: Vec3,
    pub orientation: F32,
    /// Version 1+.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_data: Option<u64>,
}

impl Serial for PrimitiveDesc {
    const MIN_SIZE: usize = 1 + 8 + 4 + 4 + 12 + 1 + 8 + 12 + 4;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 1, "CPrimitiveDesc")?;
        s.ser(&mut self.length)?;
        s.ser(&mut self.height)?;
        s.ser(&mut self.attenuation)?;
        s.ser(&mut self.prim_type)?;
        s.ser(&mut self.reaction)?;
        s.ser(&mut self.trigger)?;
        s.ser(&mut self.obstacle)?;
        s.ser(&mut self.occlusion_mask)?;
        s.ser(&mut self.collision_mask)?;
        s.ser(&mut self.position)?;
        s.ser(&mut self.orientation)?;
        opt(s, &mut self.user_data, self.version >= 1)
    }
}

/// `CPrimitiveBlock`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PrimitiveBlock {
    pub version: u32,
    pub primitives: Vec<PrimitiveDesc>,
}

impl Serial for PrimitiveBlock {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CPrimitiveBlock", |s| {
            s.check(b"PRBK")?;
            s.version(&mut self.version, 0, "CPrimitiveBlock")?;
            s.field("primitives", &mut self.primitives)
        })
    }
}

/// The XML form starts with `<` (after optional whitespace / BOM).
pub fn looks_like_xml(bytes: &[u8]) -> bool {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    b.iter()
        .find(|c| !c.is_ascii_whitespace())
        .is_some_and(|&c| c == b'<')
}
