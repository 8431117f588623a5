//! `CVertexBuffer` value flags and the default value types NeL's
//! `setVertexFormat` gives them, as the mesh build uses them.

use crate::nel::shape::vertex_buffer::VbHeader;

pub const POSITION: u16 = 1 << 0;
pub const NORMAL: u16 = 1 << 1;
pub const TEX_COORD0: u16 = 1 << 2;
pub const PRIMARY_COLOR: u16 = 1 << 10;
pub const WEIGHT: u16 = 1 << 12;
pub const PALETTE_SKIN: u16 = 1 << 13;

/// Texture stages (`CVertexBuffer::MaxStage`).
pub const MAX_STAGES: usize = 8;

/// `DefaultValueType`: Float3 position and normal, Float2 UVs, UChar4 colours,
/// Float4 weights, UChar4 palette, Float1 fog and the unused slot.
pub const DEFAULT_TYPES: [u8; 16] = [7, 7, 4, 4, 4, 4, 4, 4, 4, 4, 12, 12, 10, 12, 1, 1];

/// `CVertexBuffer::TPreferredMemory::StaticPreferred` as the export tools write it.
pub const STATIC_PREFERRED: u32 = 2;
/// `RAMPreferred`, used for skinned and morphed meshes.
pub const RAM_PREFERRED: u32 = 0;

/// The version-3 `CVertexBuffer` header the export writes: values `flags` of
/// the default types, `num_vertices` vertices, colours as RGBA (format 0),
/// memory `preferred`, no name.
pub fn header(flags: u16, num_vertices: u32, preferred: u32) -> VbHeader {
    VbHeader {
        version: 3,
        old_flags: None,
        flags,
        types: DEFAULT_TYPES,
        num_vertices,
        vertex_color_format: Some(0),
        preferred_memory: Some(preferred),
        name: Some(String::new()),
    }
}
