//! Editable Poly's own Subdivision Surface rollout ("Use NURMS Subdivision"):
//! when it is on, the object hands the pipeline its NURMS-smoothed mesh, not
//! the stored cage, and Max's Mesh Totals count the smoothed mesh (the sixth
//! sweep's hat, sofa, cube and cube game files, docs/unseen-files.md). The
//! surface is TurboSmooth's Catmull-Clark on the object's stored polygons
//! (`modifier::turbo_smooth`, one implementation).
//!
//! The object's ParamBlock2 (reference 0) holds the rollout under the ids of
//! the SDK's `epolyParameters` order (iEPoly.h), which the stored types and
//! defaults match one for one: 0x17 use NURMS (bool), 0x19 iterations (int,
//! animatable), 0x1a smoothness (1.0), 0x1b / 0x1c render iterations /
//! smoothness and 0x1d / 0x1e whether they are used (render only: the
//! viewport mesh, which Mesh Totals count, uses 0x19), 0x1f / 0x20 separate by
//! smoothing groups / materials, 0x21 update (0 Always, 1 When Rendering, 2
//! Manually), 0x34 smooth result, 0x58 isoline display and 0x4f show cage
//! (display only: the mesh is the same). What cannot be reproduced is refused
//! by name: a smoothness below 1 (which corners NURMS then leaves alone is not
//! public), the separate-by options (they keep edges sharp), an update other
//! than Always (the mesh Max shows is the last one it computed), stored
//! per-vertex or per-edge data (where weights and creases live), a modifier
//! that reads the polygon form of its input above it (Edit Poly,
//! TurboSmooth, MeshSmooth), and a result above TurboSmooth's
//! `MAX_SMOOTH_QUADS`.

use crate::eval::core::pblock::{self, Value};
use crate::eval::error::EvalError;
use crate::eval::modifier::turbo_smooth::{self, Settings, MAX_SMOOTH_QUADS};
use crate::eval::objects::mesh::{self, Mesh};
use crate::eval::SceneEval;

/// ParamBlock2 ids of the Subdivision Surface rollout (`epolyParameters`).
const USE_NURMS: u16 = 0x17;
const IGNORE_SELECTION: u16 = 0x18;
const ITERATIONS: u16 = 0x19;
const SMOOTHNESS: u16 = 0x1a;
const SEPARATE_SMOOTHING: u16 = 0x1f;
const SEPARATE_MATERIALS: u16 = 0x20;
const UPDATE: u16 = 0x21;
const SMOOTH_RESULT: u16 = 0x34;

/// GeomBuffers children holding one per-vertex (0x0210: u32, then a float
/// per vertex; mok010's radio.max, 1,380 vertices) or per-edge (0x0250: u32,
/// then a float per edge; vv-23's Apollo.max, 90 edges) data channel, beside
/// their channel counts 0x0200 / 0x0240. MNMesh keeps NURMS vertex weights
/// and edge creases in such channels; which channel a chunk holds is not
/// decoded, so any of them is refused with NURMS on (no NURMS object in the
/// sweeps has one).
const VERTEX_DATA: u16 = 0x0210;
const EDGE_DATA: u16 = 0x0250;

/// Max's iteration spinner stops at 10; more is damaged data.
const MAX_ITERATIONS: i64 = 10;

/// Reads one rollout value at `t`: a constant, or the controller in the
/// block's reference slot (iterations and smoothness are animatable).
struct Block<'a> {
    eval: &'a SceneEval,
    pb: usize,
    block: pblock::ParamBlock2,
    t: i32,
}

impl Block<'_> {
    fn number(&self, id: u16) -> Option<f64> {
        let p = self.block.param(id)?;
        match (&p.value, p.ref_slot) {
            (Value::Int(n), _) => Some(f64::from(*n)),
            (Value::Float(f), _) => Some(f64::from(*f)),
            (Value::Bool(b), _) => Some(f64::from(u8::from(*b))),
            (Value::None, Some(slot)) => {
                let ctl = pblock::reference(&self.eval.graph, self.pb, slot);
                Some(self.eval.float_at(ctl, self.t, 0.0))
            }
            _ => None,
        }
    }

    fn flag(&self, id: u16, default: bool) -> bool {
        self.number(id).map_or(default, |v| v != 0.0)
    }
}

/// The subdivision Max applies to Editable Poly `obj` at `t`: None when Use
/// NURMS Subdivision is off or not saved (older files), an error naming a
/// setting that cannot be reproduced.
pub fn settings(eval: &SceneEval, obj: usize, t: i32) -> Result<Option<Settings>, EvalError> {
    let Some(pb) = pblock::reference(&eval.graph, obj, 0) else {
        return Ok(None);
    };
    let Ok(block) = pblock::param_block2(eval.chunks(pb)) else {
        return Ok(None);
    };
    let b = Block { eval, pb, block, t };
    if !b.flag(USE_NURMS, false) {
        return Ok(None);
    }
    let what = |s: &str| format!("Editable Poly's Use NURMS Subdivision with {s}");
    let iterations = b
        .number(ITERATIONS)
        .ok_or_else(|| EvalError::malformed("Use NURMS Subdivision", "no iterations (0x19)"))?
        .round() as i64;
    if !(0..=MAX_ITERATIONS).contains(&iterations) {
        return Err(EvalError::malformed(
            "Use NURMS Subdivision",
            format!("{iterations} iterations"),
        ));
    }
    let smoothness = b.number(SMOOTHNESS).unwrap_or(1.0);
    let full = (smoothness - 1.0).abs() <= 1e-6;
    if !full {
        return Err(EvalError::not_evaluated_why(
            what(&format!("smoothness {smoothness}")),
            "which vertices NURMS leaves alone below 1 is not public",
        ));
    }
    if b.flag(SEPARATE_SMOOTHING, false) {
        return Err(EvalError::not_evaluated(what(
            "separate by smoothing groups",
        )));
    }
    if b.flag(SEPARATE_MATERIALS, false) {
        return Err(EvalError::not_evaluated(what("separate by materials")));
    }
    if b.flag(IGNORE_SELECTION, false) {
        return Err(EvalError::not_evaluated(what("parameter 0x18 set")));
    }
    match b.number(UPDATE).map_or(0, |v| v as i64) {
        0 => {}
        u => {
            let name = if u == 1 { "When Rendering" } else { "Manually" };
            return Err(EvalError::not_evaluated_why(
                what(&format!("update {name}")),
                "the mesh Max shows is the last one it computed",
            ));
        }
    }
    Ok(Some(Settings {
        iterations: iterations as u32,
        smooth_result: b.flag(SMOOTH_RESULT, true),
        separate: Default::default(),
    }))
}

/// The mesh Editable Poly `obj` hands the pipeline at `t`: its stored cage,
/// or with Use NURMS Subdivision on, the cage's polygons subdivided.
pub fn eval(eval: &SceneEval, obj: usize, t: i32) -> Result<Mesh, EvalError> {
    let (cage, loops) = mesh::editable_poly(eval.chunks(obj))?;
    let Some(s) = settings(eval, obj, t)? else {
        return Ok(cage);
    };
    if s.iterations == 0 {
        return Ok(cage);
    }
    let geom = mesh::geom_buffers(eval.chunks(obj))?;
    if let Some(c) = geom
        .iter()
        .find(|c| c.id == VERTEX_DATA || c.id == EDGE_DATA)
    {
        let what = if c.id == VERTEX_DATA {
            "vertex"
        } else {
            "edge"
        };
        return Err(EvalError::not_evaluated_why(
            format!(
                "Editable Poly's Use NURMS Subdivision with per-{what} data ({:#06x})",
                c.id
            ),
            "vertex weights and edge creases change the surface and are not applied",
        ));
    }
    let corners = loops.iter().map(|p| p.v.len()).sum();
    let quads = turbo_smooth::result_quads(corners, s.iterations);
    if quads > MAX_SMOOTH_QUADS {
        return Err(EvalError::limit(
            format!(
                "Editable Poly's Use NURMS Subdivision: {} iterations give {quads} faces",
                s.iterations
            ),
            MAX_SMOOTH_QUADS,
        ));
    }
    let polys = turbo_smooth::from_triangles(&cage, &loops)?;
    turbo_smooth::smooth(polys, s).map_err(|e| e.inside("Use NURMS Subdivision"))
}

/// Err when a modifier `who` that reads the polygon form of its input sits
/// on Editable Poly `base` with Use NURMS Subdivision on: the subdivided
/// polygons' numbering in Max (which an Edit Poly's records index) is not
/// known, and the stored polygons are not its input.
pub fn refuse_polygon_reader(
    eval: &SceneEval,
    base: usize,
    t: i32,
    who: &str,
) -> Result<(), EvalError> {
    match settings(eval, base, t)? {
        Some(s) if s.iterations > 0 => Err(EvalError::not_evaluated_why(
            format!("{who} on an Editable Poly with Use NURMS Subdivision"),
            "the subdivided polygons are its input, and their numbering in Max is not known",
        )),
        _ => Ok(()),
    }
}
