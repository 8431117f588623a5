//! `CVertexBuffer` (header + vertex subsets) and `CIndexBuffer`.

use serde::Serialize;

use crate::stream::{opt, Bool, Serial, Stream, F32};
use crate::NelError;

/// Names of the 16 vertex value slots.
pub const VALUE_NAMES: [&str; 16] = [
    "position",
    "normal",
    "tex_coord0",
    "tex_coord1",
    "tex_coord2",
    "tex_coord3",
    "tex_coord4",
    "tex_coord5",
    "tex_coord6",
    "tex_coord7",
    "primary_color",
    "secondary_color",
    "weight",
    "palette_skin",
    "fog",
    "empty",
];

/// Bytes per value for each `TType` (Double1 .. UChar4).
const SIZE_TYPE: [usize; 13] = [8, 4, 2, 16, 8, 4, 24, 12, 6, 32, 16, 8, 4];

/// `CVertexBuffer::serialHeader`: which values are present and their types.
#[derive(Debug, Clone, Default, Serialize)]
pub struct VbHeader {
    pub version: u32,
    /// Version 0 only: the pre-2002 vertex format word (flags/types are derived from it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_flags: Option<u32>,
    pub flags: u16,
    /// Stored type byte of each of the 16 value slots (also for absent slots).
    pub types: [u8; 16],
    pub num_vertices: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vertex_color_format: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preferred_memory: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Serial for VbHeader {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.version(&mut self.version, 3, "CVertexBuffer header")?;
        if self.version < 1 {
            let mut old = self.old_flags.unwrap_or(0);
            s.ser(&mut old)?;
            self.old_flags = Some(old);
            let (flags, types) = remap_old_flags(old);
            self.flags = flags;
            self.types = types;
        } else {
            s.ser(&mut self.flags)?;
        }
        #[allow(clippy::needless_range_loop)]
        for i in 0..16 {
            if self.version >= 1 {
                s.ser(&mut self.types[i])?;
            }
            if self.flags & (1 << i) != 0 && self.types[i] as usize >= SIZE_TYPE.len() {
                return Err(s.err(format!(
                    "vertex value {} has unknown type {}",
                    VALUE_NAMES[i], self.types[i]
                )));
            }
        }
        s.ser(&mut self.num_vertices)?;
        opt(s, &mut self.vertex_color_format, self.version >= 2)?;
        opt(s, &mut self.preferred_memory, self.version >= 3)?;
        opt(s, &mut self.name, self.version >= 3)
    }
}

/// Default type of each value slot (`DefaultValueType`).
const DEFAULT_TYPES: [u8; 16] = [7, 7, 4, 4, 4, 4, 4, 4, 4, 4, 12, 12, 10, 12, 1, 1];

/// Flags and types of the pre-2002 vertex format word.
/// As in NeL, any weight bit also turns on the palette-skin value.
fn remap_old_flags(old: u32) -> (u16, [u8; 16]) {
    let mut flags = 0u16;
    let mut types = DEFAULT_TYPES;
    let map: [(u32, u16); 12] = [
        (0x1, 1 << 0),
        (0x20, 1 << 1),
        (0x40, 1 << 10),
        (0x80, 1 << 11),
        (0x100, 1 << 2),
        (0x200, 1 << 3),
        (0x400, 1 << 4),
        (0x800, 1 << 5),
        (0x1000, 1 << 6),
        (0x2000, 1 << 7),
        (0x4000, 1 << 8),
        (0x8000, 1 << 9),
    ];
    for (o, n) in map {
        if old & o != 0 {
            flags |= n;
        }
    }
    let mut weights = 0;
    for (i, bit) in [0x2u32, 0x4, 0x8, 0x10].iter().enumerate() {
        if old & bit != 0 {
            weights = i + 1;
        }
    }
    if weights > 0 {
        flags |= 1 << 12;
        types[12] = [1, 4, 7, 10][weights - 1];
    }
    if old & (0x10000 | 0x1E) != 0 {
        flags |= (1 << 13) | (1 << 12);
    }
    (flags, types)
}

impl VbHeader {
    /// Bytes per vertex.
    pub fn vertex_size(&self) -> usize {
        (0..16)
            .filter(|i| self.flags & (1 << i) != 0)
            .map(|i| SIZE_TYPE.get(self.types[i] as usize).copied().unwrap_or(0))
            .sum()
    }
}

/// Decoded components of one vertex value, all vertices in order.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum ChannelData {
    Float(Vec<F32>),
    Bytes(Vec<u8>),
    Short(Vec<i16>),
    /// Deprecated double types, kept as bit patterns.
    Double(Vec<u64>),
}

/// One present vertex value.
#[derive(Debug, Clone, Serialize)]
pub struct Channel {
    pub value: &'static str,
    pub components: u8,
    pub data: ChannelData,
}

/// A run of vertices (`serialSubset`): the whole buffer, or the wedges of one MRM lod.
#[derive(Debug, Clone, Default, Serialize)]
pub struct VbSubset {
    pub version: u32,
    pub count: usize,
    pub channels: Vec<Channel>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uv_routing: Option<[u8; 8]>,
}

fn type_info(t: u8) -> (u8, u8) {
    // (kind, components); kind 0 double, 1 float, 2 short, 3 uchar
    match t {
        0 => (0, 1),
        1 => (1, 1),
        2 => (2, 1),
        3 => (0, 2),
        4 => (1, 2),
        5 => (2, 2),
        6 => (0, 3),
        7 => (1, 3),
        8 => (2, 3),
        9 => (0, 4),
        10 => (1, 4),
        11 => (2, 4),
        _ => (3, 4),
    }
}

impl VbSubset {
    pub fn serial<S: Stream>(&mut self, s: &mut S, h: &VbHeader, n: usize) -> Result<(), NelError> {
        s.version(&mut self.version, 2, "CVertexBuffer subset")?;
        self.serial_vertices(s, h, n)?;
        opt(s, &mut self.uv_routing, self.version >= 2)
    }

    /// The interleaved vertices only (no version byte, no uv routing).
    pub fn serial_vertices<S: Stream>(
        &mut self,
        s: &mut S,
        h: &VbHeader,
        n: usize,
    ) -> Result<(), NelError> {
        let present: Vec<usize> = (0..16).filter(|i| h.flags & (1 << i) != 0).collect();
        if s.reading() {
            let vsize = h.vertex_size();
            let need = (n as u64) * vsize as u64;
            if need > s.remaining() as u64 {
                return Err(s.err(format!(
                    "{n} vertices of {vsize} bytes need {need} bytes, {} left",
                    s.remaining()
                )));
            }
            self.count = n;
            self.channels = present
                .iter()
                .map(|&i| {
                    let (kind, comps) = type_info(h.types[i]);
                    let cap = n * comps as usize;
                    Channel {
                        value: VALUE_NAMES[i],
                        components: comps,
                        data: match kind {
                            0 => ChannelData::Double(Vec::with_capacity(cap)),
                            1 => ChannelData::Float(Vec::with_capacity(cap)),
                            2 => ChannelData::Short(Vec::with_capacity(cap)),
                            _ => ChannelData::Bytes(Vec::with_capacity(cap)),
                        },
                    }
                })
                .collect();
            for _ in 0..n {
                for ch in self.channels.iter_mut() {
                    let c = ch.components as usize;
                    match &mut ch.data {
                        ChannelData::Float(v) => {
                            for _ in 0..c {
                                let mut x = F32::default();
                                s.ser(&mut x)?;
                                v.push(x);
                            }
                        }
                        ChannelData::Bytes(v) => {
                            let mut b = [0u8; 4];
                            s.raw(&mut b)?;
                            v.extend_from_slice(&b);
                        }
                        ChannelData::Short(v) => {
                            for _ in 0..c {
                                let mut x = 0i16;
                                s.ser(&mut x)?;
                                v.push(x);
                            }
                        }
                        ChannelData::Double(v) => {
                            for _ in 0..c {
                                let mut x = 0u64;
                                s.ser(&mut x)?;
                                v.push(x);
                            }
                        }
                    }
                }
            }
        } else {
            if self.count != n || self.channels.len() != present.len() {
                return Err(s.err("vertex subset does not match its header"));
            }
            for vi in 0..n {
                for ch in self.channels.iter_mut() {
                    let c = ch.components as usize;
                    let r = vi * c..vi * c + c;
                    let bad = || NelError::Model("vertex channel too short".into());
                    match &mut ch.data {
                        ChannelData::Float(v) => {
                            for x in v.get_mut(r).ok_or_else(bad)? {
                                s.ser(x)?;
                            }
                        }
                        ChannelData::Bytes(v) => {
                            let sl = v.get_mut(vi * 4..vi * 4 + 4).ok_or_else(bad)?;
                            s.raw(sl)?;
                        }
                        ChannelData::Short(v) => {
                            for x in v.get_mut(r).ok_or_else(bad)? {
                                s.ser(x)?;
                            }
                        }
                        ChannelData::Double(v) => {
                            for x in v.get_mut(r).ok_or_else(bad)? {
                                s.ser(x)?;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// `CVertexBuffer::serial` (version 2: header + one subset of all vertices).
#[derive(Debug, Clone, Default, Serialize)]
pub struct VertexBuffer {
    pub version: u32,
    pub header: VbHeader,
    pub vertices: VbSubset,
}

impl Serial for VertexBuffer {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CVertexBuffer", |s| {
            s.version(&mut self.version, 2, "CVertexBuffer")?;
            if self.version < 2 {
                // Old layout: format word, vertex count, vertices; palette skin from version 1.
                let mut old = self.header.old_flags.unwrap_or(0);
                s.ser(&mut old)?;
                let (mut flags, types) = remap_old_flags(old);
                if self.version < 1 {
                    flags &= !(1 << 13);
                }
                let num_vertices = self.header.num_vertices;
                self.header = VbHeader {
                    version: 0,
                    old_flags: Some(old),
                    flags,
                    types,
                    num_vertices,
                    ..Default::default()
                };
                s.ser(&mut self.header.num_vertices)?;
                let n = self.header.num_vertices as usize;
                let h = self.header.clone();
                return self.vertices.serial_vertices(s, &h, n);
            }
            s.ser(&mut self.header)?;
            let n = self.header.num_vertices as usize;
            let h = self.header.clone();
            self.vertices.serial(s, &h, n)
        })
    }
}

/// `CIndexBuffer` (also the old `CPrimitiveBlock`, version 0).
#[derive(Debug, Clone, Default, Serialize)]
pub struct IndexBuffer {
    pub version: u32,
    /// Version 0: line, triangle and quad lists, each as (count, capacity, indices).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub old_lists: Vec<(u32, u32, Vec<u32>)>,
    pub num_indexes: u32,
    pub capacity: u32,
    pub indexes: Vec<u32>,
    pub preferred_memory: u32,
    /// Version 1 only: one flag per preferred-memory kind.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub v1_flags: Vec<Bool>,
}

impl Serial for IndexBuffer {
    const MIN_SIZE: usize = 13;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CIndexBuffer", |s| {
            s.version(&mut self.version, 2, "CIndexBuffer")?;
            if self.version < 1 {
                s.vec_n(&mut self.old_lists, 3)?;
                return Ok(());
            }
            s.ser(&mut self.num_indexes)?;
            s.ser(&mut self.capacity)?;
            s.ser(&mut self.indexes)?;
            s.ser(&mut self.preferred_memory)?;
            if self.version == 1 {
                s.vec_n(&mut self.v1_flags, 5)?;
            }
            Ok(())
        })
    }
}
