//! The NeL Edit Patch vertex mapper (`EPVertMapper::Save`, EPVM_DATA_CHUNK
//! 0x1000 inside VERTMAP_CHUNK 0x1130 of EditPatchData 0x1000 in the ModApp's
//! 0x2512): `int verts; EPMapVert[verts]; int vecs; EPMapVert[vecs]`, each
//! record `{BOOL originalStored; int vert; Point3 original; Point3 delta}`
//! (32 bytes; field order per seed S003 l.299 and editpat.h l.1288).

use serde::Serialize;

use crate::reader::{ByteReader, ReadError};

/// EditPatchData's chunk inside the ModApp data (np_epm_file.cpp EDITPATCHDATA_CHUNK).
pub const CHUNK_EDIT_PATCH_DATA: u16 = 0x1000;
/// VERTMAP_CHUNK (np_edit_patch_data.cpp).
pub const CHUNK_VERTMAP: u16 = 0x1130;
/// EPVM_DATA_CHUNK (np_ep_vert_mapper.cpp).
pub const CHUNK_EPVM_DATA: u16 = 0x1000;

const RECORD: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MapVert {
    /// BOOL (4 bytes), kept as stored.
    pub original_stored: u32,
    /// Output index; negative = unmapped (deleted).
    pub vert: i32,
    /// f32 bits.
    pub original: [u32; 3],
    pub delta: [u32; 3],
}

impl MapVert {
    pub fn delta(&self) -> [f32; 3] {
        self.delta.map(f32::from_bits)
    }
    pub fn original(&self) -> [f32; 3] {
        self.original.map(f32::from_bits)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct VertMapper {
    pub verts: Vec<MapVert>,
    pub vecs: Vec<MapVert>,
}

fn table(r: &mut ByteReader, what: &str) -> Result<Vec<MapVert>, ReadError> {
    let at = r.position();
    let n = r.i32(what)?;
    let n = usize::try_from(n)
        .ok()
        .filter(|n| n.saturating_mul(RECORD) <= r.remaining())
        .ok_or_else(|| ReadError::Invalid {
            what: what.into(),
            offset: at,
            detail: format!(
                "{n} records of {RECORD} bytes, {} bytes left",
                r.remaining()
            ),
        })?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(MapVert {
            original_stored: r.u32("originalStored")?,
            vert: r.i32("mapped index")?,
            original: [
                r.u32("original x")?,
                r.u32("original y")?,
                r.u32("original z")?,
            ],
            delta: [r.u32("delta x")?, r.u32("delta y")?, r.u32("delta z")?],
        });
    }
    Ok(v)
}

impl VertMapper {
    /// Decodes an EPVM_DATA_CHUNK payload.
    pub fn decode(payload: &[u8]) -> Result<VertMapper, ReadError> {
        let mut r = ByteReader::new(payload);
        let verts = table(&mut r, "vertex map count")?;
        let vecs = table(&mut r, "vector map count")?;
        r.finish("vertex mapper")?;
        Ok(VertMapper { verts, vecs })
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        for t in [&self.verts, &self.vecs] {
            out.extend_from_slice(&(t.len() as u32).to_le_bytes());
            for m in t {
                out.extend_from_slice(&m.original_stored.to_le_bytes());
                out.extend_from_slice(&m.vert.to_le_bytes());
                for w in m.original.iter().chain(&m.delta) {
                    out.extend_from_slice(&w.to_le_bytes());
                }
            }
        }
    }

    /// `EPVertMapper::UpdateAndApplyDeltas` on positions (np_ep_vert_mapper.cpp):
    /// a record `i` within the input's count that is mapped (`vert >= 0`) sets
    /// output `vert` to input `i` + delta; `output` starts as the modifier's
    /// final patch. A mapped record past the input's count is skipped when its
    /// original was never stored, and reported when it was (Max writes the zero
    /// point there); a target past the output's count is reported (Max shows a
    /// message box and grows the output).
    pub fn apply(
        table: &[MapVert],
        input: &[[f32; 3]],
        output: &mut [[f32; 3]],
    ) -> Result<usize, super::RklPatchError> {
        let mut moved = 0;
        let points = output.len();
        for (i, m) in table.iter().enumerate() {
            if m.vert < 0 {
                continue;
            }
            let src = match input.get(i) {
                Some(src) => src,
                None if m.original_stored == 0 => continue,
                None => {
                    return Err(super::RklPatchError::MapPastInput {
                        record: i,
                        points: input.len(),
                    })
                }
            };
            let dst = output
                .get_mut(m.vert as usize)
                .ok_or(super::RklPatchError::MapTarget {
                    record: i,
                    target: m.vert,
                    points,
                })?;
            let d = m.delta();
            *dst = [src[0] + d[0], src[1] + d[1], src[2] + d[2]];
            moved += 1;
        }
        Ok(moved)
    }
}
