//! Mirror (0xef92aa7c, 0x511bbe75): reflects the mesh through its gizmo.
//!
//! Old ParamBlock (reference 1), by index: 0 axis (0 X, 1 Y, 2 Z, 3 XY, 4 YZ,
//! 5 ZX), 1 copy, 2 offset; reference 0 is the gizmo controller. In gizmo space
//! the chosen axes are negated and then shifted by the offset (Max's
//! `MirrorDeformer`). With copy the original faces stay and reflected clones of
//! them and their vertices are appended; a one-axis mirror turns the reflected
//! faces over (their winding would otherwise face inwards).

use super::{gizmo, Applied, ModContext};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;

const GIZMO_SLOT: u32 = 0;
const PBLOCK_SLOT: u32 = 1;

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let p = gizmo::params(cx, m, PBLOCK_SLOT)?;
    let axis = p.int_or(0, 0);
    let copy = p.flag(1, false);
    let offset = p.float_or(2, 0.0);
    let mut scale = [1.0; 3];
    let mut shift = [0.0; 3];
    let axes: &[usize] = match axis {
        0 => &[0],
        1 => &[1],
        2 => &[2],
        3 => &[0, 1],
        4 => &[1, 2],
        5 => &[2, 0],
        a => return Err(EvalError::malformed("", format!("mirror axis {a}"))),
    };
    for &a in axes {
        scale[a] = -1.0;
        shift[a] = offset;
    }
    let to_object = gizmo::gizmo_to_object(cx, m, GIZMO_SLOT)?;
    let to_gizmo = gizmo::inverse(&to_object, "Mirror gizmo")?;
    let reflect = to_gizmo
        .then(&Mat43::scaling(Vec3(scale[0], scale[1], scale[2])))
        .then(&Mat43::translation(Vec3(shift[0], shift[1], shift[2])))
        .then(&to_object);
    let turn = axes.len() == 1;
    if copy {
        clone_reflected(mesh, &reflect, turn)
    } else {
        for v in &mut mesh.vertices {
            *v = reflect.transform_point(*v);
        }
        if turn {
            for f in 0..mesh.faces.len() {
                flip_face(mesh, f);
            }
        }
        Ok(())
    }
}

/// Appends a copy of every face and of the vertices they use, the copied
/// vertices moved by `reflect` and the copied faces turned over when `turn`.
/// Map channels get the copied faces over the same map vertices.
pub(super) fn clone_reflected(
    mesh: &mut Mesh,
    reflect: &Mat43,
    turn: bool,
) -> Result<(), EvalError> {
    mesh.check_map_faces()?;
    let nf = mesh.faces.len();
    let nv = mesh.vertices.len();
    let mut used = vec![false; nv];
    for f in &mesh.faces {
        for &v in &f.v {
            if let Some(u) = used.get_mut(v as usize) {
                *u = true;
            }
        }
    }
    let mut copy_of = vec![0u32; nv];
    for v in (0..nv).filter(|&v| used[v]) {
        copy_of[v] = u32::try_from(mesh.vertices.len())
            .map_err(|_| EvalError::limit("vertices", u32::MAX))?;
        let p = reflect.transform_point(mesh.vertices[v]);
        mesh.vertices.push(p);
    }
    for f in 0..nf {
        let mut face = mesh.faces[f];
        for k in 0..3 {
            face.v[k] = *copy_of.get(face.v[k] as usize).ok_or_else(|| {
                EvalError::reference("", format!("face {f} uses a missing vertex"))
            })?;
        }
        mesh.faces.push(face);
        for c in &mut mesh.maps {
            let t = c.faces[f];
            c.faces.push(t);
        }
        if turn {
            flip_face(mesh, nf + f);
        }
    }
    Ok(())
}

/// Turns face `f` over: corners 0 and 1 swap (in the map faces too), and so do
/// the visibility flags of the edges that follow them.
pub(super) fn flip_face(mesh: &mut Mesh, f: usize) {
    if let Some(face) = mesh.faces.get_mut(f) {
        face.v.swap(0, 1);
        let e = face.flags;
        face.flags = (e & !0b110) | ((e & 0b010) << 1) | ((e & 0b100) >> 1);
    }
    for c in &mut mesh.maps {
        if let Some(t) = c.faces.get_mut(f) {
            t.swap(0, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::mesh::{Face, MapChannel};

    fn tri() -> Mesh {
        Mesh {
            vertices: vec![
                Vec3(1.0, 0.0, 0.0),
                Vec3(2.0, 0.0, 0.0),
                Vec3(1.0, 1.0, 0.0),
            ],
            faces: vec![Face {
                v: [0, 1, 2],
                smoothing: 1,
                material: 3,
                flags: 0b011,
            }],
            maps: vec![MapChannel {
                channel: 1,
                vertices: vec![[0.0; 3]; 3],
                faces: vec![[0, 1, 2]],
            }],
            ..Default::default()
        }
    }

    #[test]
    fn clones_are_reflected_and_turned_over() {
        let mut m = tri();
        let reflect = Mat43::scaling(Vec3(-1.0, 1.0, 1.0));
        clone_reflected(&mut m, &reflect, true).unwrap();
        assert_eq!(m.vertices.len(), 6);
        assert_eq!(m.vertices[4], Vec3(-2.0, 0.0, 0.0));
        // Corners 0 and 1 swap; edge 1 (b–c) becomes edge 2 (c–b) and back.
        assert_eq!(m.faces[1].v, [4, 3, 5]);
        assert_eq!(m.faces[1].flags, 0b101);
        assert_eq!(m.maps[0].faces, [[0, 1, 2], [1, 0, 2]]);
        let mut bad = tri();
        bad.maps[0].faces.clear();
        assert!(clone_reflected(&mut bad, &reflect, true).is_err());
        let mut bad = tri();
        bad.faces[0].v[2] = 9;
        assert!(clone_reflected(&mut bad, &reflect, true).is_err());
    }
}
