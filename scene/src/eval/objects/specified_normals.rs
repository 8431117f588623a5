//! User-specified normals of an Editable Mesh (Max's `MeshNormalSpec`, saved
//! beside the geometry as GeomBuffers child 0x23a0) — set by Edit Normals, by
//! importers (the Babylon models were imported with their own normals) or by
//! "Make Explicit". Max renders them instead of the smoothing-group normals, so
//! every exporter must too.
//!
//! Layout, as found in the files (the SDK names the fields, not the ids):
//! - 0x0130: u32, 1 (format version);
//! - 0x0100: u32 flags (0x01 built, 0x02 normals computed, 0x08 computed with
//!   corner-angle weights);
//! - 0x0110: u32 count, then `count` float triples — the normal pool;
//! - 0x0114: bit array (0x2700) over the pool: which normals are explicit
//!   (user-set) rather than computed from the faces that share them;
//! - 0x0118: bit array (0x2700) over the pool: the normals selected in Edit
//!   Normals (`mNormalSel`, declared after `mNormalExplicit` in the SDK
//!   header MNNormalSpec.h; KikoootheBB's Max 2022 characters hold one with
//!   every bit set and no 0x0114). A display and editing state: checked as a
//!   bit array, not used;
//! - 0x0120: u32 face count, then per stored face 0x0124 (u32 face index) and
//!   0x0128 { 0x0200: three u32 pool indices, 0x0210: u32 whose low byte holds
//!   one "specified" bit per corner (the upper bytes are unset padding) }.
//!
//! An Editable Poly stores the same layout (Max's `MNNormalSpec`) as
//! GeomBuffers child 0x0300, per polygon: 0x0200 holds the degree then that
//! many pool indices, 0x0210 a bit array (0x2700) of specified corners.
//!
//! A face corner that is not specified takes its smoothing-group normal.

use maxfs_file::reader::{ByteReader, ReadError};
use serde::Serialize;

use crate::chunk::Chunk;

use super::mesh::Face;
use super::normals::{face_normal, normalize, V3};

/// GeomBuffers child that holds an Editable Mesh's specified normals.
pub const MESH_NORMAL_SPEC: u16 = 0x23a0;
/// GeomBuffers child that holds an Editable Poly's specified normals.
pub const POLY_NORMAL_SPEC: u16 = 0x0300;

const VERSION: u16 = 0x0130;
const FLAGS: u16 = 0x0100;
const POOL: u16 = 0x0110;
const EXPLICIT: u16 = 0x0114;
const SELECTED: u16 = 0x0118;
const FACE_COUNT: u16 = 0x0120;
const FACE_INDEX: u16 = 0x0124;
const FACE: u16 = 0x0128;
const FACE_IDS: u16 = 0x0200;
const FACE_SPECIFIED: u16 = 0x0210;
const BIT_ARRAY: u16 = 0x2700;

/// Flag: the non-explicit normals in the pool were computed before saving.
const FLAG_COMPUTED: u32 = 0x02;
/// Flag: they were computed with corner-angle weights.
const FLAG_FACE_ANGLES: u32 = 0x08;

/// A decoded MNNormalSpec: the pool (its `faces` empty) and the pool index
/// of each specified corner of each polygon.
pub type PolySpec = (SpecifiedNormals, Vec<Vec<Option<u32>>>);

/// Why a `MeshNormalSpec` could not be decoded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpecError {
    #[error("specified normals, chunk {chunk:#06x}: {source}")]
    Read {
        chunk: u16,
        #[source]
        source: ReadError,
    },
    #[error("specified normals: {0}")]
    Layout(String),
}

/// Decoded specified normals: a pool and, per mesh face, the pool index of each
/// specified corner.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct SpecifiedNormals {
    /// The normal pool, object space, unit length as Max keeps them.
    pub normals: Vec<[f32; 3]>,
    /// Per pool normal: set by the user (kept as is) rather than computed.
    pub explicit: Vec<bool>,
    /// Per mesh face: pool index of each corner, `None` where the corner is
    /// not specified (smoothing groups decide it).
    pub faces: Vec<[Option<u32>; 3]>,
    /// The stored non-explicit normals are current (flag 0x02); otherwise
    /// they are recomputed ([`SpecifiedNormals::resolved`]).
    pub computed: bool,
    /// Non-explicit normals weight faces by corner angle (flag 0x08).
    pub face_angles: bool,
}

fn read_err(chunk: u16) -> impl Fn(ReadError) -> SpecError {
    move |source| SpecError::Read { chunk, source }
}

fn leaf(c: &Chunk) -> Result<&[u8], SpecError> {
    c.payload()
        .ok_or_else(|| SpecError::Layout(format!("chunk {:#06x} is a container", c.id)))
}

fn single_u32(c: &Chunk, what: &str) -> Result<u32, SpecError> {
    let mut r = ByteReader::new(leaf(c)?);
    let v = r.u32(what).map_err(read_err(c.id))?;
    r.finish(what).map_err(read_err(c.id))?;
    Ok(v)
}

/// The shared layout of MeshNormalSpec and MNNormalSpec: the pool, its flags
/// and explicit bits, and per face (of `degrees[i]` corners) the pool index
/// of each specified corner.
fn decode_spec(children: &[Chunk], degrees: &[usize], poly: bool) -> Result<PolySpec, SpecError> {
    let nfaces = degrees.len();
    let mut out = SpecifiedNormals::default();
    let mut faces: Vec<Vec<Option<u32>>> = degrees.iter().map(|&d| vec![None; d]).collect();
    let mut flags = None;
    let mut explicit: Option<Vec<bool>> = None;
    let mut face: Option<usize> = None;
    for c in children {
        match c.id {
            VERSION => {
                let v = single_u32(c, "version")?;
                if v != 1 {
                    return Err(SpecError::Layout(format!("version {v} (only 1 is known)")));
                }
            }
            FLAGS => flags = Some(single_u32(c, "flags")?),
            POOL => {
                let p = leaf(c)?;
                let mut r = ByteReader::new(p);
                let n = r.u32("normal count").map_err(read_err(POOL))? as usize;
                if n.checked_mul(12) != Some(r.remaining()) {
                    return Err(SpecError::Layout(format!(
                        "normal count {n} does not fill the {} bytes of 0x0110",
                        p.len()
                    )));
                }
                out.normals = Vec::with_capacity(n);
                for _ in 0..n {
                    let mut v = [0f32; 3];
                    for x in &mut v {
                        *x = r.f32("normal").map_err(read_err(POOL))?;
                    }
                    out.normals.push(v);
                }
            }
            EXPLICIT => explicit = Some(bit_array(c)?),
            // The normal selection changes no normal.
            SELECTED => {
                bit_array(c)?;
            }
            FACE_COUNT => {
                let n = single_u32(c, "face count")? as usize;
                if n != nfaces {
                    return Err(SpecError::Layout(format!(
                        "{n} normal faces for {nfaces} mesh faces"
                    )));
                }
            }
            FACE_INDEX => {
                let i = single_u32(c, "face index")? as usize;
                if i >= nfaces {
                    return Err(SpecError::Layout(format!(
                        "normal face {i} of {nfaces} faces"
                    )));
                }
                face = Some(i);
            }
            FACE => {
                let i = face.take().ok_or_else(|| {
                    SpecError::Layout("normal face record without its index (0x0124)".into())
                })?;
                faces[i] = face_record(c, i, degrees[i], poly)?;
            }
            other => {
                return Err(SpecError::Layout(format!("unknown chunk {other:#06x}")));
            }
        }
    }
    let flags = flags.ok_or_else(|| SpecError::Layout("no flags (0x0100)".into()))?;
    out.computed = flags & FLAG_COMPUTED != 0;
    out.face_angles = flags & FLAG_FACE_ANGLES != 0;
    let n = out.normals.len();
    // No 0x0114 at all: no normal is explicit (Max 2022's Nendoroid heads:
    // flags 0x0b, 98 pool normals, no corner specified — no 0x0210 — so
    // smoothing groups decide every corner). Fewer bits than a stored 0x0114
    // addresses stays an error.
    out.explicit = explicit.unwrap_or_else(|| vec![false; n]);
    // Max keeps the bit array's size when the pool shrinks (seen with 15 of
    // 315 bits past a 300-normal pool, all clear): bits past the pool
    // address no normal and are not read.
    out.explicit.truncate(n);
    if out.explicit.len() != n {
        return Err(SpecError::Layout(format!(
            "{} explicit bits for {n} normals",
            out.explicit.len()
        )));
    }
    if let Some((fi, id)) = faces.iter().enumerate().find_map(|(fi, f)| {
        f.iter()
            .flatten()
            .find(|&&id| id as usize >= n)
            .map(|id| (fi, *id))
    }) {
        return Err(SpecError::Layout(format!(
            "face {fi} uses normal {id} of {n}"
        )));
    }
    Ok((out, faces))
}

/// A bit array container (0x2700: u32 bit count, the bits LSB first).
fn bit_array(c: &Chunk) -> Result<Vec<bool>, SpecError> {
    let b = c
        .children()
        .iter()
        .find(|x| x.id == BIT_ARRAY)
        .ok_or_else(|| SpecError::Layout(format!("chunk {:#06x}: no bit array (0x2700)", c.id)))?;
    let p = leaf(b)?;
    let mut r = ByteReader::new(p);
    let n = r.u32("bit count").map_err(read_err(BIT_ARRAY))? as usize;
    let bytes = r.rest();
    if n.div_ceil(8) > bytes.len() {
        return Err(SpecError::Layout(format!(
            "{n} bits in {} bytes",
            bytes.len()
        )));
    }
    Ok((0..n).map(|i| bytes[i / 8] >> (i % 8) & 1 != 0).collect())
}

/// One 0x0128 record of a face of `degree` corners: pool indices (0x0200:
/// three for a mesh; degree then indices for a poly) and specified bits
/// (0x0210: a u32 whose low byte counts for a mesh; a bit array for a poly).
fn face_record(
    c: &Chunk,
    i: usize,
    degree: usize,
    poly: bool,
) -> Result<Vec<Option<u32>>, SpecError> {
    let mut ids: Option<Vec<u32>> = None;
    let mut specified: Option<Vec<bool>> = None;
    for x in c.children() {
        match x.id {
            FACE_IDS => {
                let mut r = ByteReader::new(leaf(x)?);
                if poly {
                    let d = r.u32("degree").map_err(read_err(FACE_IDS))? as usize;
                    if d != degree {
                        return Err(SpecError::Layout(format!(
                            "normal face {i}: degree {d} for a polygon of {degree}"
                        )));
                    }
                }
                let mut v = Vec::with_capacity(degree.min(r.remaining() / 4));
                for _ in 0..degree {
                    v.push(r.u32("normal index").map_err(read_err(FACE_IDS))?);
                }
                r.finish("normal indices").map_err(read_err(FACE_IDS))?;
                ids = Some(v);
            }
            FACE_SPECIFIED if poly => {
                let bits = bit_array(x)?;
                if bits.len() != degree {
                    return Err(SpecError::Layout(format!(
                        "normal face {i}: {} specified bits for {degree} corners",
                        bits.len()
                    )));
                }
                specified = Some(bits);
            }
            FACE_SPECIFIED => {
                let bits = single_u32(x, "specified bits")? & 0xff;
                if bits & !7 != 0 {
                    return Err(SpecError::Layout(format!(
                        "normal face {i}: unknown specified bits {bits:#04x}"
                    )));
                }
                specified = Some((0..3).map(|k| bits >> k & 1 != 0).collect());
            }
            other => {
                return Err(SpecError::Layout(format!(
                    "normal face {i}: unknown chunk {other:#06x}"
                )))
            }
        }
    }
    let ids = ids
        .ok_or_else(|| SpecError::Layout(format!("normal face {i}: no normal indices (0x0200)")))?;
    let specified = specified.unwrap_or_default();
    Ok(ids
        .iter()
        .enumerate()
        .map(|(k, &id)| specified.get(k).copied().unwrap_or(false).then_some(id))
        .collect())
}

impl SpecifiedNormals {
    /// Decodes the children of an Editable Mesh's 0x23a0 chunk for a mesh of
    /// `nfaces` triangles. Unknown chunks are errors: the layout is not guessed.
    pub fn decode(children: &[Chunk], nfaces: usize) -> Result<SpecifiedNormals, SpecError> {
        let (mut out, faces) = decode_spec(children, &vec![3; nfaces], false)?;
        out.faces = faces
            .into_iter()
            .map(|f| std::array::from_fn(|k| f.get(k).copied().flatten()))
            .collect();
        Ok(out)
    }

    /// Decodes the children of an Editable Poly's 0x0300 chunk for polygons
    /// of the given degrees: the pool (in `.0`, `faces` left empty) and the
    /// pool index of each polygon corner, to be split with the polygons'
    /// triangles.
    pub fn decode_poly(children: &[Chunk], degrees: &[usize]) -> Result<PolySpec, SpecError> {
        decode_spec(children, degrees, true)
    }

    /// The pool as Max renders it: explicit normals as stored; the others as
    /// stored when Max saved them computed, else recomputed from the faces
    /// that share them (`MeshNormalSpec::ComputeNormals`: the sum of their
    /// face normals, weighted by corner angle when flag 0x08 is set).
    pub fn resolved(&self, p: &[V3], faces: &[Face]) -> Vec<V3> {
        let stored = |n: &[f32; 3]| [n[0] as f64, n[1] as f64, n[2] as f64];
        if self.computed {
            return self.normals.iter().map(stored).collect();
        }
        let mut sum = vec![[0.0f64; 3]; self.normals.len()];
        for (f, ids) in faces.iter().zip(&self.faces) {
            let fnorm = face_normal(p, f);
            for (k, id) in ids.iter().enumerate() {
                let Some(s) = id.and_then(|id| sum.get_mut(id as usize)) else {
                    continue;
                };
                let w = if self.face_angles {
                    super::normals::corner_angle(p, f, k)
                } else {
                    1.0
                };
                for a in 0..3 {
                    s[a] += fnorm[a] * w;
                }
            }
        }
        self.normals
            .iter()
            .zip(sum)
            .zip(&self.explicit)
            .map(|((n, s), &e)| if e { stored(n) } else { normalize(s) })
            .collect()
    }

    /// Whether any face corner is specified.
    pub fn any(&self) -> bool {
        self.faces.iter().flatten().any(Option::is_some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32s(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A MeshNormalSpec of one triangle: two pool normals, the first explicit;
    /// corners 0 and 1 specified (with padding garbage above the bits).
    fn spec(flags: u32, ids: [u32; 3]) -> Vec<Chunk> {
        let mut pool = u32s(&[2]);
        for f in [0.0f32, 0.0, 1.0, 1.0, 0.0, 0.0] {
            pool.extend(f.to_le_bytes());
        }
        vec![
            Chunk::leaf(VERSION, u32s(&[1])),
            Chunk::leaf(FLAGS, u32s(&[flags])),
            Chunk::leaf(POOL, pool),
            Chunk::container(
                EXPLICIT,
                vec![Chunk::leaf(BIT_ARRAY, [u32s(&[2]), vec![1]].concat())],
            ),
            Chunk::leaf(FACE_COUNT, u32s(&[1])),
            Chunk::leaf(FACE_INDEX, u32s(&[0])),
            Chunk::container(
                FACE,
                vec![
                    Chunk::leaf(FACE_IDS, u32s(&ids)),
                    Chunk::leaf(FACE_SPECIFIED, u32s(&[0x3fee_6f03])),
                ],
            ),
        ]
    }

    fn tri() -> (Vec<V3>, Vec<Face>) {
        let p = vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let f = Face {
            v: [0, 1, 2],
            smoothing: 1,
            material: 0,
            flags: 0,
        };
        (p, vec![f])
    }

    #[test]
    fn decodes_pool_faces_and_specified_corners() {
        let s = SpecifiedNormals::decode(&spec(0x0b, [0, 1, 1]), 1).expect("decodes");
        assert_eq!(s.normals, [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]);
        assert_eq!(s.explicit, [true, false]);
        assert_eq!(s.faces, [[Some(0), Some(1), None]]);
        assert!(s.computed && s.face_angles);
        // Computed: the stored pool is what Max renders.
        let (p, f) = tri();
        assert_eq!(s.resolved(&p, &f)[1], [1.0, 0.0, 0.0]);
    }

    #[test]
    fn uncomputed_normals_are_rebuilt_from_their_faces() {
        let s = SpecifiedNormals::decode(&spec(0x01, [0, 1, 1]), 1).expect("decodes");
        let (p, f) = tri();
        let r = s.resolved(&p, &f);
        // Explicit normal kept, the other one is the face normal (+Z).
        assert_eq!(r, [[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]);
    }

    #[test]
    fn damaged_specs_are_errors() {
        let e = SpecifiedNormals::decode(&spec(0x0b, [0, 5, 1]), 1).unwrap_err();
        assert!(e.to_string().contains("face 0 uses normal 5 of 2"), "{e}");
        assert!(SpecifiedNormals::decode(&spec(0x0b, [0, 1, 1]), 2).is_err());
        let mut c = spec(0x0b, [0, 1, 1]);
        c.push(Chunk::leaf(0x0999, vec![]));
        let e = SpecifiedNormals::decode(&c, 1).unwrap_err();
        assert!(e.to_string().contains("unknown chunk 0x0999"), "{e}");
        let mut c = spec(0x0b, [0, 1, 1]);
        c[2] = Chunk::leaf(POOL, u32s(&[1_000_000]));
        assert!(SpecifiedNormals::decode(&c, 1).is_err());
        // Fewer explicit bits than normals.
        let mut c = spec(0x0b, [0, 1, 1]);
        c[3] = Chunk::container(
            EXPLICIT,
            vec![Chunk::leaf(BIT_ARRAY, [u32s(&[1]), vec![1]].concat())],
        );
        let e = SpecifiedNormals::decode(&c, 1).unwrap_err();
        assert!(
            e.to_string().contains("1 explicit bits for 2 normals"),
            "{e}"
        );
    }

    #[test]
    fn the_normal_selection_changes_no_normal() {
        // KikoootheBB's Dealer (fifteenth sweep): 0x0118 in place of 0x0114,
        // every bit set. With or without it the decoded normals are the same;
        // a damaged one is still an error.
        let plain = SpecifiedNormals::decode(&spec(0x0b, [0, 1, 1]), 1).expect("decodes");
        let mut c = spec(0x0b, [0, 1, 1]);
        let sel = Chunk::container(
            SELECTED,
            vec![Chunk::leaf(BIT_ARRAY, [u32s(&[2]), vec![3]].concat())],
        );
        c.insert(4, sel);
        assert_eq!(SpecifiedNormals::decode(&c, 1).expect("decodes"), plain);
        c[4] = Chunk::container(SELECTED, vec![]);
        assert!(SpecifiedNormals::decode(&c, 1).is_err());
    }

    #[test]
    fn no_explicit_chunk_means_no_explicit_normal() {
        // Nendoroid.max's head (sixth sweep): a pool, no 0x0114, and no
        // 0x0210 in the face records, so no corner is specified either.
        let mut c = spec(0x0b, [0, 1, 1]);
        c.remove(3);
        c[5] = Chunk::container(FACE, vec![Chunk::leaf(FACE_IDS, u32s(&[0, 1, 1]))]);
        let s = SpecifiedNormals::decode(&c, 1).expect("decodes");
        assert_eq!(s.explicit, [false, false]);
        assert_eq!(s.faces, [[None, None, None]]);
        assert!(!s.any());
    }

    #[test]
    fn explicit_bits_past_the_pool_are_not_read() {
        // Five bits for a pool of two, as Max leaves them after the pool shrank.
        let mut c = spec(0x0b, [0, 1, 1]);
        c[3] = Chunk::container(
            EXPLICIT,
            vec![Chunk::leaf(
                BIT_ARRAY,
                [u32s(&[5]), vec![0b0_0001]].concat(),
            )],
        );
        let s = SpecifiedNormals::decode(&c, 1).expect("decodes");
        assert_eq!(s.explicit, [true, false]);
    }
}
