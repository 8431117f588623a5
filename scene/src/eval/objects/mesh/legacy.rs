//! Editable Poly faces as 3ds Max 5 and earlier save them: no packed face
//! record (0x011a) but one chunk pair per face inside GeomBuffers — the face
//! count (0x0110), then for each face its index (0x0114) and a container
//! (0x0118) holding the MNFace fields one chunk each. Seen in every Editable
//! Poly of a 223-file Max 5 game project (docs/unseen-files.md); vertices
//! (0x0100) and map channels (0x0120…0x012b) keep the later layout.

use crate::chunk::Chunk;
use crate::eval::core::keys::Words;
use crate::eval::error::EvalError;

use super::Poly;

/// GeomBuffers children of the per-face layout.
const FACE_COUNT: u16 = 0x0110;
const FACE_INDEX: u16 = 0x0114;
const FACE: u16 = 0x0118;
/// Children of one face container.
const FACE_FLAGS: u16 = 0x0100;
const FACE_CORNERS: u16 = 0x0110;
const FACE_MATERIAL: u16 = 0x0130;
const FACE_SMOOTHING: u16 = 0x0140;
const FACE_CUTS: u16 = 0x0160;
/// MNFace flag of a deleted face awaiting collapse (mnmesh.h MN_DEAD).
const MN_DEAD: u32 = 1 << 1;

/// The polygons of the per-face layout, or `None` when GeomBuffers has no face
/// count (0x0110) either.
pub(super) fn poly_faces(geom: &[Chunk], nverts: usize) -> Result<Option<Vec<Poly>>, EvalError> {
    let Some(count) = geom.iter().find(|c| c.id == FACE_COUNT) else {
        return Ok(None);
    };
    let p = count.payload().filter(|p| p.len() == 4).ok_or_else(|| {
        EvalError::malformed("poly face count (0x0110)", "expected a 4-byte leaf")
    })?;
    let n = Words(p).u32(0) as usize;
    // Each face takes an index leaf and a container: the count cannot exceed them.
    if n > geom.len() {
        return Err(EvalError::malformed(
            "",
            format!(
                "poly face count {n} (0x0110) exceeds the {} chunks stored",
                geom.len()
            ),
        ));
    }
    let mut out = Vec::with_capacity(n);
    let mut index: Option<usize> = None;
    for c in geom {
        match c.id {
            FACE_INDEX => {
                let p = c.payload().filter(|p| p.len() == 4).ok_or_else(|| {
                    EvalError::malformed("poly face index (0x0114)", "expected a 4-byte leaf")
                })?;
                let i = Words(p).u32(0) as usize;
                if i != out.len() || index.is_some() {
                    return Err(EvalError::malformed(
                        "",
                        format!(
                            "poly face index {i} (0x0114) where face {} was expected",
                            out.len()
                        ),
                    ));
                }
                index = Some(i);
            }
            FACE if c.payload().is_none() => {
                let i = index.take().ok_or_else(|| {
                    EvalError::malformed(
                        "",
                        format!(
                            "poly face {} (0x0118) without its index (0x0114)",
                            out.len()
                        ),
                    )
                })?;
                if i >= n {
                    return Err(EvalError::malformed(
                        "",
                        format!("poly face {i} beyond the face count {n}"),
                    ));
                }
                out.push(
                    face(c.children(), nverts).map_err(|e| e.inside(format!("poly face {i}")))?,
                );
            }
            _ => {}
        }
    }
    if let Some(i) = index {
        return Err(EvalError::malformed(
            "",
            format!("poly face index {i} (0x0114) without its face (0x0118)"),
        ));
    }
    if out.len() != n {
        return Err(EvalError::malformed(
            "",
            format!(
                "poly face count {n} (0x0110) but {} faces stored",
                out.len()
            ),
        ));
    }
    Ok(Some(out))
}

/// One face container: corners are required; material, smoothing group and
/// diagonals default to none when absent. The edge bit arrays (0x0114, 0x0118
/// children) carry selection and visibility only and are not read.
fn face(fields: &[Chunk], nverts: usize) -> Result<Poly, EvalError> {
    let leaf = |id: u16| -> Result<Option<&[u8]>, EvalError> {
        match fields.iter().find(|c| c.id == id) {
            None => Ok(None),
            Some(c) => c.payload().map(Some).ok_or_else(|| {
                EvalError::malformed(
                    "",
                    format!("field {id:#06x} is a container, expected a leaf"),
                )
            }),
        }
    };
    if let Some(p) = leaf(FACE_FLAGS)? {
        if p.len() != 4 {
            return Err(EvalError::malformed(
                "flags (0x0100)",
                format!("{} bytes", p.len()),
            ));
        }
        if Words(p).u32(0) & MN_DEAD != 0 {
            // A dead face still owns a map face; dropping it would need the
            // same drop in every map channel. Never seen: refused by name.
            return Err(EvalError::not_evaluated("deleted (MN_DEAD) face"));
        }
    }
    let p = leaf(FACE_CORNERS)?.ok_or_else(|| EvalError::malformed("", "no corners (0x0110)"))?;
    if p.len() < 4 {
        return Err(EvalError::malformed(
            "corners (0x0110)",
            format!("{} bytes", p.len()),
        ));
    }
    let w = Words(p);
    let k = w.u32(0) as usize;
    if k < 3 || p.len() != 4 + 4 * k {
        return Err(EvalError::malformed(
            "corners (0x0110)",
            format!("degree {k} in {} bytes", p.len()),
        ));
    }
    let v: Vec<u32> = (1..=k).map(|i| w.u32(i)).collect();
    if let Some(&x) = v.iter().find(|&&x| x as usize >= nverts) {
        return Err(EvalError::malformed(
            "",
            format!("corner {x} of {nverts} vertices"),
        ));
    }
    let material = match leaf(FACE_MATERIAL)? {
        None => 0,
        Some(p) if p.len() == 2 => u16::from_le_bytes([p[0], p[1]]),
        Some(p) => {
            return Err(EvalError::malformed(
                "material (0x0130)",
                format!("{} bytes", p.len()),
            ))
        }
    };
    let smoothing = match leaf(FACE_SMOOTHING)? {
        None => 0,
        Some(p) if p.len() == 4 => Words(p).u32(0),
        Some(p) => {
            return Err(EvalError::malformed(
                "smoothing (0x0140)",
                format!("{} bytes", p.len()),
            ))
        }
    };
    let mut cuts = Vec::new();
    if let Some(p) = leaf(FACE_CUTS)? {
        // Degree − 3 diagonals, two local corners each.
        if p.len() != 8 * (k - 3) {
            return Err(EvalError::malformed(
                "diagonals (0x0160)",
                format!("{} bytes for a {k}-corner face", p.len()),
            ));
        }
        let w = Words(p);
        for d in 0..k - 3 {
            let (a, b) = (w.u32(2 * d), w.u32(2 * d + 1));
            if a as usize >= k || b as usize >= k {
                return Err(EvalError::malformed(
                    "",
                    format!("diagonal ({a}, {b}) outside {k} corners"),
                ));
            }
            cuts.push((a, b));
        }
    }
    Ok(Poly {
        v,
        material,
        smoothing,
        cuts,
    })
}

#[cfg(test)]
mod tests {
    use super::super::{editable_poly, POLY_CUTS, POLY_MATERIAL, POLY_SMOOTHING};
    use super::*;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// Four vertices (flags + xyz) in the poly vertex chunk 0x0100.
    fn vertices() -> Chunk {
        let mut v = words(&[4]);
        for i in 0..4u32 {
            v.extend(words(&[0, (i as f32).to_bits(), 0, 0]));
        }
        Chunk::leaf(0x0100, v)
    }

    /// One face container as a Max 5 file stores it (fields in the order seen
    /// there: flags, corners, edge bit arrays, material, smoothing, diagonals).
    fn face_chunk(flags: u32, v: &[u32], mtl: Option<u16>, sg: u32, cuts: &[u32]) -> Chunk {
        let mut kids = vec![
            Chunk::leaf(FACE_FLAGS, words(&[flags])),
            Chunk::leaf(FACE_CORNERS, words(&[&[v.len() as u32], v].concat())),
            Chunk::container(0x0118, vec![Chunk::leaf(0x2700, words(&[4, 0xffff_ffff]))]),
            Chunk::container(0x0114, vec![Chunk::leaf(0x2700, words(&[4, 0]))]),
        ];
        if let Some(m) = mtl {
            kids.push(Chunk::leaf(FACE_MATERIAL, m.to_le_bytes().to_vec()));
        }
        kids.push(Chunk::leaf(FACE_SMOOTHING, words(&[sg])));
        if !cuts.is_empty() {
            kids.push(Chunk::leaf(FACE_CUTS, words(cuts)));
        }
        Chunk::container(FACE, kids)
    }

    /// GeomBuffers of a quad (cut along local corners 0–2, material 1,
    /// smoothing 4) and a triangle (material absent, smoothing 2), with map
    /// channel 1, in the per-face layout.
    fn legacy_geom(faces: Vec<Chunk>, count: u32) -> Vec<Chunk> {
        let mut kids = vec![vertices(), Chunk::leaf(FACE_COUNT, words(&[count]))];
        for (i, f) in faces.into_iter().enumerate() {
            kids.push(Chunk::leaf(FACE_INDEX, words(&[i as u32])));
            kids.push(f);
        }
        let mut mverts = words(&[4]);
        for i in 0..4u32 {
            mverts.extend(words(&[(i as f32).to_bits(), 0, 0]));
        }
        kids.extend([
            Chunk::leaf(0x0120, words(&[2])),
            Chunk::leaf(0x0124, words(&[1])),
            Chunk::leaf(0x0128, mverts),
            Chunk::leaf(0x012b, words(&[4, 0, 2, 3, 1, 3, 3, 2, 1])),
        ]);
        vec![Chunk::container(0x08fe, kids)]
    }

    fn two_faces() -> Vec<Chunk> {
        vec![
            face_chunk(9, &[0, 2, 3, 1], Some(1), 4, &[0, 2]),
            face_chunk(0, &[3, 2, 1], None, 2, &[]),
        ]
    }

    /// The same two polygons in the packed record (0x011a) of Max 6 and later.
    fn packed_geom() -> Vec<Chunk> {
        let mut f = words(&[2, 4, 0, 2, 3, 1]);
        f.extend((POLY_MATERIAL | POLY_SMOOTHING | POLY_CUTS).to_le_bytes());
        f.extend(1u16.to_le_bytes());
        f.extend(words(&[4, 0, 2]));
        f.extend(words(&[3, 3, 2, 1]));
        f.extend(POLY_SMOOTHING.to_le_bytes());
        f.extend(words(&[2]));
        let legacy = legacy_geom(Vec::new(), 0);
        let kids: Vec<Chunk> = legacy[0]
            .children()
            .iter()
            .filter(|c| c.id != FACE_COUNT)
            .cloned()
            .chain([Chunk::leaf(0x011a, f)])
            .collect();
        vec![Chunk::container(0x08fe, kids)]
    }

    #[test]
    fn per_face_records_read_as_the_packed_record() {
        let (old, old_polys) = editable_poly(&legacy_geom(two_faces(), 2)).expect("Max 5 layout");
        let (new, new_polys) = editable_poly(&packed_geom()).expect("packed layout");
        assert_eq!(old_polys, new_polys);
        assert_eq!(old, new);
        // The quad is cut along its stored diagonal, not fanned.
        assert_eq!(old_polys[0].cuts, [(0, 2)]);
        assert_eq!(old.faces.len(), 3);
        assert_eq!(old.faces[0].v, [0, 2, 3]);
        assert_eq!(old.faces[1].v, [3, 1, 0]);
        assert_eq!((old.faces[0].material, old.faces[0].smoothing), (1, 4));
        assert_eq!((old.faces[2].material, old.faces[2].smoothing), (0, 2));
        assert_eq!(old.maps[0].faces.len(), 3);
    }

    #[test]
    fn damaged_per_face_records_are_errors() {
        let err = |faces: Vec<Chunk>, n: u32| editable_poly(&legacy_geom(faces, n)).unwrap_err();
        assert!(err(two_faces(), 3)
            .to_string()
            .contains("count 3 (0x0110) but 2 faces"));
        assert!(err(two_faces(), 1)
            .to_string()
            .contains("beyond the face count 1"));
        assert!(err(two_faces(), 999).to_string().contains("exceeds"));
        let dead = vec![face_chunk(2, &[0, 1, 2], None, 0, &[])];
        assert!(err(dead, 1).to_string().contains("MN_DEAD"));
        let far = vec![face_chunk(0, &[0, 1, 7], None, 0, &[])];
        assert!(err(far, 1).to_string().contains("corner 7 of 4"));
        let short_cut = vec![face_chunk(0, &[0, 1, 2, 3], None, 0, &[0, 2, 1, 3])];
        assert!(err(short_cut, 1)
            .to_string()
            .contains("diagonals (0x0160): 16 bytes"));
        let bad_cut = vec![face_chunk(0, &[0, 1, 2, 3], None, 0, &[0, 5])];
        assert!(err(bad_cut, 1).to_string().contains("outside 4 corners"));
        // Faces out of order, and a container without its index.
        let mut g = legacy_geom(two_faces(), 2);
        let crate::chunk::Body::Container(kids) = &mut g[0].body else {
            panic!("GeomBuffers is a container");
        };
        kids.swap(2, 3);
        assert!(editable_poly(&g)
            .unwrap_err()
            .to_string()
            .contains("without its index"));
    }
}
