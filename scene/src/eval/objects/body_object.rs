//! Body Object (class (0x25292bc6, 0x17f40588), body_object.dlo): Max's solid
//! (B-rep) object from the nPower Solids plugin. Max does not rebuild its
//! triangles from the solid when it loads the scene from scratch; the object
//! saves the viewport mesh it last tessellated.
//!
//! Layout, from the six DIALux furniture files of LeadShuriken's
//! 3D-Max-Scripts-Examples (Max 2011, 10 Body Objects):
//! - 0x0105 the solid itself (a B-rep blob of 10–40 KB, not read);
//! - 0x0140 the tessellated mesh as `Mesh::Save` writes it (vertices 0x0914,
//!   faces 0x0912, map channel 0x0959/0x2394/0x2396, specified normals
//!   0x23a0): its vertex and face counts sum to the files' Mesh Totals
//!   exactly, every vertex split per planar face, welded by position a
//!   closed surface with positive volume;
//! - 0x0146 the wire edges drawn in the viewport (a count, float points and
//!   per polyline a point count and an id), not part of the mesh;
//! - 0x0107 the solid's bounds (six doubles, min then max) and 0x0149 the
//!   same rounded to floats, which the stored mesh's bounds equal to the
//!   last float bit in all ten objects;
//! - 0x0130 the interval the saved mesh is valid over, FOREVER
//!   (0x80000000, 0x7fffffff) in all ten.
//!
//! The stored mesh is the evaluation when its validity is FOREVER, no
//! controller below the object varies (`core::still`, as for ProBoolean's
//! stored result) and it lies inside the stored bounds (a mesh outside them
//! would belong to another solid). Anything else is refused by name; so is
//! an Edit Poly above a Body Object (its polygon form, which nPower builds
//! from the solid's faces, is not in the file).

use crate::chunk::Chunk;
use crate::eval::core::keys::Words;
use crate::eval::core::still;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{self, Mesh};
use crate::eval::SceneEval;
use crate::typed::ClassId;

pub const BODY_OBJECT: ClassId = ClassId(0x25292bc6, 0x17f40588);

/// The container holding the mesh Max tessellated from the solid.
const MESH: u16 = 0x0140;
/// The interval the stored mesh is valid over (two i32 times).
const VALIDITY: u16 = 0x0130;
/// The solid's bounds rounded to floats (six f64: min xyz, max xyz).
const BOUNDS: u16 = 0x0149;
/// Max's FOREVER interval: TIME_NegInfinity, TIME_PosInfinity.
const FOREVER: (i32, i32) = (i32::MIN, i32::MAX);
/// How far, relative to the bounds' largest extent, a vertex may lie outside
/// them (the stored bounds are the float-rounded solid's; the ten measured
/// meshes stay inside to the last float bit).
const BOUNDS_TOLERANCE: f64 = 1e-5;

/// The Body Object's mesh: the one Max stored with it.
pub fn eval(se: &SceneEval, obj: usize) -> Result<Mesh, EvalError> {
    let mesh = decode(se.chunks(obj))?;
    if let Some(why) = still::first_varying(se, &[obj], &[])? {
        return Err(EvalError::not_evaluated_why(
            format!("Body Object with animated parameters ({why})"),
            "its stored mesh holds one moment only",
        ));
    }
    Ok(mesh)
}

/// The stored mesh of a Body Object's chunks, after the checks that it
/// stands for the object at every time.
pub(crate) fn decode(chunks: &[Chunk]) -> Result<Mesh, EvalError> {
    let find = |id: u16| chunks.iter().find(|c| c.id == id);
    let stored = find(MESH)
        .filter(|c| c.is_container())
        .ok_or_else(|| EvalError::malformed("", "Body Object without its stored mesh (0x0140)"))?;
    let validity = find(VALIDITY).and_then(Chunk::payload).ok_or_else(|| {
        EvalError::malformed("", "Body Object without its mesh validity (0x0130)")
    })?;
    if validity.len() != 8 {
        return Err(EvalError::malformed(
            "Body Object mesh validity (0x0130)",
            format!("{} bytes, not two times (8)", validity.len()),
        ));
    }
    let w = Words(validity);
    let interval = (w.i32(0), w.i32(1));
    if interval != FOREVER {
        return Err(EvalError::not_evaluated_why(
            format!(
                "a Body Object whose stored mesh is valid over [{}, {}] only (0x0130)",
                interval.0, interval.1
            ),
            "the mesh at other times would be tessellated from the solid",
        ));
    }
    let bounds = bounds(
        find(BOUNDS)
            .and_then(Chunk::payload)
            .ok_or_else(|| EvalError::malformed("", "Body Object without its bounds (0x0149)"))?,
    )?;
    let m = mesh::mesh_buffers(stored.children())
        .map_err(|e| e.inside("Body Object stored mesh (0x0140)"))?;
    check_inside(&m, &bounds)?;
    Ok(m)
}

/// The bounds chunk: min then max corner, as doubles.
fn bounds(p: &[u8]) -> Result<[[f64; 3]; 2], EvalError> {
    if p.len() != 48 {
        return Err(EvalError::malformed(
            "Body Object bounds (0x0149)",
            format!("{} bytes, not six doubles (48)", p.len()),
        ));
    }
    let d = |i: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&p[i * 8..i * 8 + 8]);
        f64::from_le_bytes(b)
    };
    let b = [[d(0), d(1), d(2)], [d(3), d(4), d(5)]];
    if b.iter().flatten().any(|x| !x.is_finite()) || (0..3).any(|k| b[0][k] > b[1][k]) {
        return Err(EvalError::malformed(
            "Body Object bounds (0x0149)",
            format!("not a box: min {:?}, max {:?}", b[0], b[1]),
        ));
    }
    Ok(b)
}

/// Refuses a stored mesh reaching outside the solid's stored bounds.
fn check_inside(m: &Mesh, b: &[[f64; 3]; 2]) -> Result<(), EvalError> {
    let extent = (0..3).map(|k| b[1][k] - b[0][k]).fold(0.0, f64::max);
    let tol = extent * BOUNDS_TOLERANCE;
    for (i, v) in m.vertices.iter().enumerate() {
        let p = [v.0, v.1, v.2];
        let outside = (0..3).any(|k| {
            let x = p[k];
            !x.is_finite() || x < b[0][k] - tol || x > b[1][k] + tol
        });
        if outside {
            return Err(EvalError::malformed(
                "Body Object stored mesh (0x0140)",
                format!(
                    "vertex {i} at {p:?} lies outside the solid's bounds \
                     (0x0149: min {:?}, max {:?})",
                    b[0], b[1]
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn floats(f: &[f32]) -> Vec<u8> {
        f.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn doubles(d: &[f64]) -> Vec<u8> {
        d.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A tetrahedron on the unit corner, as `Mesh::Save` writes it.
    fn tetra() -> Chunk {
        let mut verts = words(&[4]);
        verts.extend(floats(&[0., 0., 0., 1., 0., 0., 0., 1., 0., 0., 0., 1.]));
        let mut faces = words(&[4]);
        for f in [[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]] {
            faces.extend(words(&[f[0], f[1], f[2], 1, (1 << 16) | 7]));
        }
        Chunk::container(
            MESH,
            vec![Chunk::leaf(0x0914, verts), Chunk::leaf(0x0912, faces)],
        )
    }

    fn forever() -> Chunk {
        Chunk::leaf(VALIDITY, words(&[0x8000_0000, 0x7fff_ffff]))
    }

    fn unit_bounds() -> Chunk {
        Chunk::leaf(BOUNDS, doubles(&[0., 0., 0., 1., 1., 1.]))
    }

    /// The chunks as the file holds them: written and read back.
    fn stored(chunks: Vec<Chunk>) -> Vec<Chunk> {
        chunk::parse(&chunk::write(&chunks)).expect("parses")
    }

    fn err(chunks: Vec<Chunk>) -> String {
        decode(&stored(chunks)).unwrap_err().to_string()
    }

    #[test]
    fn the_stored_mesh_is_the_evaluation() {
        let m = decode(&stored(vec![
            Chunk::leaf(0x0105, vec![0u8; 16]),
            tetra(),
            Chunk::leaf(0x0146, vec![0u8; 36]),
            unit_bounds(),
            forever(),
        ]))
        .expect("decodes");
        assert_eq!((m.vertices.len(), m.faces.len()), (4, 4));
        assert_eq!(m.faces[2].v, [1, 2, 3]);
        assert_eq!((m.faces[0].material, m.faces[0].flags), (1, 7));
    }

    #[test]
    fn missing_or_damaged_parts_are_named() {
        let e = err(vec![unit_bounds(), forever()]);
        assert!(e.contains("without its stored mesh (0x0140)"), "{e}");
        let e = err(vec![
            Chunk::leaf(MESH, vec![0u8; 8]),
            unit_bounds(),
            forever(),
        ]);
        assert!(e.contains("without its stored mesh (0x0140)"), "{e}");
        let e = err(vec![tetra(), unit_bounds()]);
        assert!(e.contains("validity (0x0130)"), "{e}");
        let e = err(vec![tetra(), forever()]);
        assert!(e.contains("bounds (0x0149)"), "{e}");
        let e = err(vec![
            tetra(),
            unit_bounds(),
            Chunk::leaf(VALIDITY, words(&[0x8000_0000])),
        ]);
        assert!(e.contains("4 bytes, not two times"), "{e}");
        let e = err(vec![
            tetra(),
            Chunk::leaf(BOUNDS, doubles(&[0., 0., 0., 1., 1.])),
            forever(),
        ]);
        assert!(e.contains("40 bytes, not six doubles"), "{e}");
        let e = err(vec![
            tetra(),
            Chunk::leaf(BOUNDS, doubles(&[0., 0., f64::NAN, 1., 1., 1.])),
            forever(),
        ]);
        assert!(e.contains("not a box"), "{e}");
    }

    #[test]
    fn a_mesh_valid_for_a_while_only_is_refused() {
        let e = err(vec![
            tetra(),
            unit_bounds(),
            Chunk::leaf(VALIDITY, words(&[0, 4800])),
        ]);
        assert!(e.contains("valid over [0, 4800] only"), "{e}");
        assert!(e.contains("is not evaluated"), "{e}");
    }

    #[test]
    fn a_mesh_outside_the_bounds_is_refused() {
        let e = err(vec![
            tetra(),
            Chunk::leaf(BOUNDS, doubles(&[0., 0., 0., 1., 0.5, 1.])),
            forever(),
        ]);
        assert!(
            e.contains("vertex 2 at [0.0, 1.0, 0.0] lies outside"),
            "{e}"
        );
        // Within float rounding of the bounds is inside.
        let m = decode(&stored(vec![
            tetra(),
            Chunk::leaf(BOUNDS, doubles(&[0., 0., 0., 1., 1. - 1e-7, 1.])),
            forever(),
        ]));
        assert!(m.is_ok());
    }

    #[test]
    fn truncated_files_are_errors_never_panics() {
        let bytes = chunk::write(&[tetra(), unit_bounds(), forever()]);
        for len in 0..bytes.len() {
            if let Ok(chunks) = chunk::parse(&bytes[..len]) {
                assert!(decode(&chunks).is_err(), "cut at {len} decoded");
            }
        }
        // A short vertex or face list inside the mesh.
        let cut = |id: u16| {
            let mut m = tetra();
            if let chunk::Body::Container(kids) = &mut m.body {
                for k in kids.iter_mut().filter(|k| k.id == id) {
                    let p = k.payload().expect("leaf").to_vec();
                    *k = Chunk::leaf(id, p[..p.len() - 3].to_vec());
                }
            }
            err(vec![m, unit_bounds(), forever()])
        };
        let e = cut(0x0914);
        assert!(e.contains("vertices (0x0914)"), "{e}");
        let e = cut(0x0912);
        assert!(e.contains("faces (0x0912)"), "{e}");
    }
}
