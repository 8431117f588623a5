//! Noise (0xf997b124, 0): refused by name with why.
//!
//! What is known (public Max SDK sample `noisemod.cpp`): a "simple" modifier
//! (gizmo and centre as in `simple_mod`) whose old ParamBlock (reference 2)
//! holds, by index, 0 seed, 1 scale, 2 fractal, 3 roughness, 4 iterations,
//! 5 animate noise, 6 frequency, 7 phase, 8 strength (X, Y, Z). Each point,
//! in gizmo space, moves by strength × (n(s.y, s.z, w), n(s.x, s.z, w),
//! n(s.x, s.y, w)) with s = p / scale + ½ and w = `Perm(seed)` (+ a phase
//! term when animated), n being Max's `noise3` or its `fBm1`. Those two live
//! in Max's core and their lattice tables are not public: Perlin's reference
//! gradient noise with tables from the Microsoft, glibc or ANSI C generators
//! (many seeds tried) does not give the vertices Max exported for the same
//! scene (docs/evaluation.md), so the modifier is refused rather than
//! approximated.

use super::{Applied, ModContext};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::typed::ClassId;

pub const NOISE: ClassId = ClassId(0xf997_b124, 0);

pub(super) fn apply(_m: &Applied, _mesh: &mut Mesh, _cx: &ModContext) -> Result<(), EvalError> {
    Err(EvalError::not_evaluated_why(
        "Max's noise function",
        "the lattice tables of Max's noise3 / fBm1 are not public and no tried table reproduces 3ds Max's output",
    ))
}
