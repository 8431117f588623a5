//! The geometry of CAT rig bones: CATBone (limb, spine, palm, digit and extra
//! bones) and HubObject (pelvis, ribcage, head). Both are procedural boxes
//! sized by their ParamBlock2 (CAT units times the rig's CAT units), laid out
//! the way the CAT plug-in's BuildMesh lays them out (vertex order, faces,
//! smoothing groups, material ids, edge visibility), so that CAT bones have
//! the mesh Max shows. A bone may instead carry a custom mesh (saved in the
//! object's own chunks); no corpus file has one, so it is refused by name.
//!
//! Object chunks (CATObject::Save): 0x0040 = CAT version, 0x0002 = custom
//! vertex count, 0x0004 = custom face count, 0x0008 = custom vertices,
//! 0x0010 = custom faces, 0x0020 = flags (1<<1 use the custom mesh, 1<<2 a
//! custom mesh is available, 1<<3 the length runs along X, else along Z).

use crate::chunk::Chunk;
use crate::eval::error::EvalError;
use crate::typed::ClassId;

use crate::eval::core::math::Vec3;
use crate::eval::objects::mesh::{Face, Mesh};
use crate::eval::objects::primitive::Params;

pub const CAT_BONE: ClassId = ClassId(0x2e6a_0c09, 0x43d5_c9c0);
pub const HUB_OBJECT: ClassId = ClassId(0x73dc_4833, 0x65c9_3caa);

/// CATObject's flags chunk and bits.
const FLAGS_CHUNK: u16 = 0x0020;
const FLAG_USE_CUSTOM_MESH: u32 = 1 << 1;
const FLAG_LENGTH_AXIS_X: u32 = 1 << 3;

/// Parameter ids shared by both blocks (0 is the owning controller).
const P_CAT_UNITS: usize = 1;
const P_LENGTH: usize = 2;
const P_WIDTH: usize = 3;
/// CATBone: depth; HubObject: height.
const P_DEPTH_OR_HEIGHT: usize = 4;
/// HubObject only: the pivot's offsets, fractions of the length and height.
const P_PIVOT_Y: usize = 5;
const P_PIVOT_Z: usize = 6;

/// The box's twelve faces as CAT's MakeFace gets them: corners, edge
/// visibility (AB, BC, CA), smoothing group index, material id. The same
/// table serves both classes; it is Max's own Box layout.
const FACES: [([u32; 3], [bool; 3], u32, u16); 12] = [
    ([0, 2, 3], [true, true, false], 1, 1),
    ([3, 1, 0], [true, true, false], 1, 1),
    ([4, 5, 7], [true, true, false], 2, 0),
    ([7, 6, 4], [true, true, false], 2, 0),
    ([0, 1, 5], [true, true, false], 3, 4),
    ([5, 4, 0], [true, true, false], 3, 4),
    ([1, 3, 7], [true, true, false], 4, 3),
    ([7, 5, 1], [true, true, false], 4, 3),
    ([3, 2, 6], [true, true, false], 5, 5),
    ([6, 7, 3], [true, true, false], 5, 5),
    ([2, 0, 4], [true, true, false], 6, 2),
    ([4, 6, 2], [true, true, false], 6, 2),
];

/// Whether `class` is a CAT bone object this module builds.
pub fn is_cat_object(class: ClassId) -> bool {
    class == CAT_BONE || class == HUB_OBJECT
}

/// The CATObject flags (chunk 0x0020; absent means 0, as CATObject::Init).
pub fn flags(chunks: &[Chunk]) -> Result<u32, EvalError> {
    let Some(c) = chunks.iter().find(|c| c.id == FLAGS_CHUNK) else {
        return Ok(0);
    };
    let p = c
        .payload()
        .ok_or_else(|| EvalError::malformed("CAT object flags 0x0020", "a container"))?;
    let b: [u8; 4] = p.try_into().map_err(|_| {
        EvalError::malformed(
            "CAT object flags 0x0020",
            format!("{} bytes, 4 expected", p.len()),
        )
    })?;
    Ok(u32::from_le_bytes(b))
}

/// The mesh of CAT object `class` from its object chunks and parameters.
pub fn mesh(class: ClassId, chunks: &[Chunk], p: &Params) -> Result<Mesh, EvalError> {
    let flags = flags(chunks)?;
    if flags & FLAG_USE_CUSTOM_MESH != 0 {
        return Err(EvalError::not_evaluated_why(
            "a CAT bone's custom mesh",
            "no corpus file holds one to check its layout",
        ));
    }
    let along_x = flags & FLAG_LENGTH_AXIS_X != 0;
    let f = |i: usize| p.float(i).map(|v| v as f32);
    let units = f(P_CAT_UNITS)?;
    let (length, width, third) = (f(P_LENGTH)?, f(P_WIDTH)?, f(P_DEPTH_OR_HEIGHT)?);
    let corners = if class == HUB_OBJECT {
        hub_corners(
            along_x,
            length * units,
            width * units,
            third * units,
            f(P_PIVOT_Y)?,
            f(P_PIVOT_Z)?,
        )
    } else if class == CAT_BONE {
        bone_corners(along_x, length * units, width * units, third * units)
    } else {
        return Err(EvalError::reference(
            "",
            format!("class {class:?} is not a CAT bone object"),
        ));
    };
    if corners.iter().flatten().any(|v| !v.is_finite()) {
        return Err(EvalError::malformed("", "CAT bone with non-finite size"));
    }
    Ok(box_mesh(corners))
}

/// CATBone::BuildMesh: a box from the root (0) to the length, width and depth
/// centred on the other two axes.
fn bone_corners(along_x: bool, length: f32, width: f32, depth: f32) -> [[f32; 3]; 8] {
    let (w, d, l) = (width / 2.0, depth / 2.0, length);
    if along_x {
        [
            [0.0, -d, w],
            [0.0, -d, -w],
            [0.0, d, w],
            [0.0, d, -w],
            [l, -d, w],
            [l, -d, -w],
            [l, d, w],
            [l, d, -w],
        ]
    } else {
        [
            [-w, -d, 0.0],
            [w, -d, 0.0],
            [-w, d, 0.0],
            [w, d, 0.0],
            [-w, -d, l],
            [w, -d, l],
            [-w, d, l],
            [w, d, l],
        ]
    }
}

/// HubObject::BuildMesh: a box centred on the hub's origin, shifted along
/// the length and height by half the pivot fractions (which are not scaled
/// by the CAT units).
fn hub_corners(
    along_x: bool,
    length: f32,
    width: f32,
    height: f32,
    pivot_y: f32,
    pivot_z: f32,
) -> [[f32; 3]; 8] {
    let w = width / 2.0;
    let (py, pz) = (pivot_y / 2.0, pivot_z / 2.0);
    let (y0, y1) = (-length * (0.5 + py), length * (0.5 - py));
    let (h0, h1) = (-height * (0.5 + pz), height * (0.5 - pz));
    if along_x {
        [
            [h0, y0, w],
            [h0, y0, -w],
            [h0, y1, w],
            [h0, y1, -w],
            [h1, y0, w],
            [h1, y0, -w],
            [h1, y1, w],
            [h1, y1, -w],
        ]
    } else {
        [
            [-w, y0, h0],
            [w, y0, h0],
            [-w, y1, h0],
            [w, y1, h0],
            [-w, y0, h1],
            [w, y0, h1],
            [-w, y1, h1],
            [w, y1, h1],
        ]
    }
}

fn box_mesh(corners: [[f32; 3]; 8]) -> Mesh {
    let faces = FACES
        .iter()
        .map(|&(v, [ab, bc, ca], group, material)| Face {
            v,
            smoothing: 1 << group,
            material,
            flags: u16::from(ab) | u16::from(bc) << 1 | u16::from(ca) << 2,
        })
        .collect();
    Mesh {
        vertices: corners.iter().map(|&c| Vec3::from_f32(c)).collect(),
        faces,
        maps: Vec::new(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::Value;

    fn params(v: [f32; 7]) -> Params {
        let mut values = vec![Value::None];
        values.extend(v[1..].iter().map(|&x| Value::Float(x)));
        Params::from_values(values)
    }

    fn flags_chunk(bits: u32) -> Vec<Chunk> {
        vec![Chunk::leaf(FLAGS_CHUNK, bits.to_le_bytes().to_vec())]
    }

    /// Every face's normal points out of the box (CAT's winding is Max's
    /// Box's), whichever the length axis.
    #[test]
    fn faces_point_outwards() {
        for (class, p) in [
            (CAT_BONE, params([0.0, 0.5, 10.0, 4.0, 6.0, 0.0, 0.0])),
            (HUB_OBJECT, params([0.0, 0.5, 10.0, 4.0, 6.0, -0.3, 0.2])),
        ] {
            for bits in [0, FLAG_LENGTH_AXIS_X] {
                let m = mesh(class, &flags_chunk(bits), &p).expect("box");
                assert_eq!((m.vertices.len(), m.faces.len()), (8, 12));
                let c = m
                    .vertices
                    .iter()
                    .fold(Vec3::default(), |a, &v| a.plus(v))
                    .scale(1.0 / 8.0);
                for f in &m.faces {
                    let [a, b, d] = f.v.map(|i| m.vertices[i as usize]);
                    let n = b.minus(a).cross(d.minus(a));
                    assert!(n.dot(a.minus(c)) > 0.0, "{class:?} {bits}: {f:?}");
                }
            }
        }
    }

    /// Sizes in CAT units times the CAT units; the bone starts at its root,
    /// the hub is centred but for its pivot fractions.
    #[test]
    fn extents_follow_the_parameters() {
        let extent = |m: &Mesh, k: usize| {
            let v = m.vertices.iter().map(|v| [v.0, v.1, v.2][k]);
            (
                v.clone().fold(f64::MAX, f64::min),
                v.fold(f64::MIN, f64::max),
            )
        };
        let x = flags_chunk(FLAG_LENGTH_AXIS_X);
        let bone = mesh(CAT_BONE, &x, &params([0.0, 0.5, 10.0, 4.0, 6.0, 0.0, 0.0])).unwrap();
        assert_eq!(extent(&bone, 0), (0.0, 5.0));
        assert_eq!(extent(&bone, 1), (-1.5, 1.5));
        assert_eq!(extent(&bone, 2), (-1.0, 1.0));
        let z = mesh(CAT_BONE, &[], &params([0.0, 0.5, 10.0, 4.0, 6.0, 0.0, 0.0])).unwrap();
        assert_eq!(extent(&z, 2), (0.0, 5.0));
        assert_eq!(extent(&z, 0), (-1.0, 1.0));
        let hub = params([0.0, 0.5, 10.0, 4.0, 6.0, -0.5, 0.5]);
        let h = mesh(HUB_OBJECT, &x, &hub).unwrap();
        // Length 5 from −5·0.25 to 5·0.75; height 3 from −3·0.75 to 3·0.25.
        assert_eq!(extent(&h, 1), (-1.25, 3.75));
        assert_eq!(extent(&h, 0), (-2.25, 0.75));
        assert_eq!(extent(&h, 2), (-1.0, 1.0));
    }

    #[test]
    fn a_custom_mesh_is_refused_and_bad_flags_are_errors() {
        let p = params([0.0, 0.5, 10.0, 4.0, 6.0, 0.0, 0.0]);
        let e = mesh(CAT_BONE, &flags_chunk(FLAG_USE_CUSTOM_MESH), &p).unwrap_err();
        assert!(matches!(e, EvalError::NotEvaluated { .. }), "{e}");
        let short = vec![Chunk::leaf(FLAGS_CHUNK, vec![1, 2])];
        assert!(mesh(CAT_BONE, &short, &p).is_err());
    }
}
