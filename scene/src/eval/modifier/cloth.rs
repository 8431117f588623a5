//! Cloth (0x67c1cd47, 0x7782f878): a simulation, so its result is what Max
//! saved, not something computed here. Each cloth object's ModApp local data
//! (0x2512) holds (docs/max-format.md, "Cloth modifier"; measured on
//! Kenjis_Sofa.max and on a public file, urun.max, whose one Cloth has four
//! objects):
//!
//! - 0x00CD the simulation states: u32 point count n, u32 state count k,
//!   then per state n positions and n velocities (float triples, object
//!   space). State 0 is the start state: the input's positions (to 5.7e-6
//!   and 7.6e-6) with zero velocities. Kenjis_Sofa's k = 2: state 1 is moved
//!   (the cushions puffed out by up to 1.6 units) with velocities near rest
//!   (≤ 0.14), a settled state, not one frame's step from rest, so which
//!   frames show it is not known. urun.max's draped cylinder has k = 1, its
//!   three other objects n = k = 0 (nothing saved).
//! - 0x02B2 the input mesh as `Mesh::Save` writes it: the topology the
//!   states belong to.
//! - 0x00D0 the object's index in the Cloth (0 … 3 on urun's four), 0x00CB
//!   its node's object index and a word not pinned, 0x02BC n again.
//!
//! At frame 0 (the file's current time and its Cloth's first frame) Max
//! shows the start state: the FBX the authors exported 32 s after the .max's
//! last save (and the earlier one in the corpus) holds state 0 for both
//! cushions to 1.8e-15, where the input's own positions are 5.7e-6 away. So
//! Cloth is evaluated at time 0 as state 0 on the input's topology (checked
//! against 0x02B2), and refused at any other time, for an object with no
//! saved state, and wherever the size is not 8 + k·n·24.

use super::{Applied, ModContext};
use crate::chunk::Chunk;
use crate::eval::core::keys::Words;
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{self, Mesh};
use crate::typed::ClassId;

pub const CLOTH: ClassId = ClassId(0x67c1_cd47, 0x7782_f878);

/// Local-data chunks: the states and the input mesh.
const STATES: u16 = 0x00cd;
const INPUT_MESH: u16 = 0x02b2;

/// Points a state may hold (a damaged count must not allocate much).
const MAX_POINTS: usize = 1 << 22;

/// One simulation state: positions and velocities, object space.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub positions: Vec<Vec3>,
    pub velocities: Vec<Vec3>,
}

/// Decodes 0x00CD: u32 n, u32 k, then k × (n positions, n velocities).
pub fn states(p: &[u8]) -> Result<Vec<State>, EvalError> {
    let what = "Cloth states (0x00CD)";
    if p.len() < 8 {
        return Err(EvalError::malformed(what, format!("{} bytes", p.len())));
    }
    let w = Words(p);
    let (n, k) = (w.u32(0) as usize, w.u32(1) as usize);
    let expected = n
        .checked_mul(k)
        .and_then(|x| x.checked_mul(24))
        .and_then(|x| x.checked_add(8));
    if n > MAX_POINTS || expected != Some(p.len()) {
        return Err(EvalError::malformed(
            what,
            format!("{k} states of {n} points in {} bytes", p.len()),
        ));
    }
    let body = Words(&p[8..]);
    let block = |b: usize| -> Vec<Vec3> {
        (0..n)
            .map(|i| {
                let at = (b * n + i) * 3;
                Vec3(body.f(at), body.f(at + 1), body.f(at + 2))
            })
            .collect()
    };
    Ok((0..k)
        .map(|s| State {
            positions: block(2 * s),
            velocities: block(2 * s + 1),
        })
        .collect())
}

fn leaf(local: &[Chunk], id: u16) -> Option<&[u8]> {
    local.iter().find(|c| c.id == id).and_then(Chunk::payload)
}

/// Cloth at time `cx.t`: its start state at time 0, refused otherwise.
pub(super) fn apply(
    m: &Applied,
    local: Option<&Chunk>,
    mesh: &mut Mesh,
    cx: &ModContext,
) -> Result<(), EvalError> {
    let local = local.ok_or_else(|| EvalError::malformed("", "no local data (0x2512)"))?;
    let local = super::local_chunks(local)?;
    if cx.t != 0 {
        return Err(EvalError::not_evaluated_why(
            format!("{} at time {} (ticks)", m.name, cx.t),
            "the file holds the simulation's start state, shown at frame 0, and one \
             settled state whose frames are not known",
        ));
    }
    let states = states(
        leaf(&local, STATES).ok_or_else(|| EvalError::malformed("", "no Cloth states (0x00CD)"))?,
    )?;
    let start = states.first().ok_or_else(|| {
        EvalError::not_evaluated_why(
            format!("{} on an object without a saved state", m.name),
            "its 0x00CD holds no state (the object was not simulated)",
        )
    })?;
    let stored = local
        .iter()
        .find(|c| c.id == INPUT_MESH)
        .ok_or_else(|| EvalError::malformed("", "no Cloth input mesh (0x02B2)"))?;
    let stored = mesh::mesh_buffers(stored.children()).map_err(|e| e.inside("0x02B2"))?;
    check_topology(mesh, &stored, start.positions.len())?;
    mesh.vertices.clone_from(&start.positions);
    Ok(())
}

/// The states belong to the mesh Cloth saved: the incoming mesh must have
/// its vertex count and faces, or the points would land on other vertices.
fn check_topology(mesh: &Mesh, stored: &Mesh, points: usize) -> Result<(), EvalError> {
    if mesh.vertices.len() != points || stored.vertices.len() != points {
        return Err(EvalError::not_evaluated_why(
            "Cloth on another input",
            format!(
                "{points} stored points, the saved input has {} vertices, this one {}",
                stored.vertices.len(),
                mesh.vertices.len()
            ),
        ));
    }
    let same = mesh.faces.len() == stored.faces.len()
        && mesh
            .faces
            .iter()
            .zip(&stored.faces)
            .all(|(a, b)| a.v == b.v);
    if !same {
        let first = mesh
            .faces
            .iter()
            .zip(&stored.faces)
            .position(|(a, b)| a.v != b.v)
            .unwrap_or(mesh.faces.len().min(stored.faces.len()));
        return Err(EvalError::not_evaluated_why(
            "Cloth on another input",
            format!(
                "the saved input's faces ({}) differ from this one's ({}) from face {first}",
                stored.faces.len(),
                mesh.faces.len()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn states_are_position_and_velocity_blocks() {
        let f = |x: f32| x.to_bits();
        // 2 points, 2 states.
        let mut w = vec![2, 2];
        w.extend([f(1.0), f(2.0), f(3.0), f(4.0), f(5.0), f(6.0)]);
        w.extend([0; 6]);
        w.extend([f(1.5), f(2.0), f(3.0), f(4.0), f(5.0), f(7.0)]);
        w.extend([f(0.5), 0, 0, 0, 0, f(1.0)]);
        let s = states(&bytes(&w)).expect("states");
        assert_eq!(s.len(), 2);
        assert_eq!(
            s[0].positions,
            vec![Vec3(1.0, 2.0, 3.0), Vec3(4.0, 5.0, 6.0)]
        );
        assert_eq!(s[0].velocities, vec![Vec3(0.0, 0.0, 0.0); 2]);
        assert_eq!(s[1].positions[1], Vec3(4.0, 5.0, 7.0));
        assert_eq!(s[1].velocities[0], Vec3(0.5, 0.0, 0.0));
    }

    #[test]
    fn a_size_off_the_layout_is_refused() {
        assert!(states(&bytes(&[2, 2, 0])).is_err());
        assert!(states(&bytes(&[0, 0])).expect("no state").is_empty());
        assert!(states(&bytes(&[3, 0])).expect("no state").is_empty());
        assert!(states(&bytes(&[u32::MAX, u32::MAX])).is_err());
        assert!(states(&[1, 2]).is_err());
    }
}
