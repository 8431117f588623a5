//! Editable Poly's own Subdivision Surface rollout ("Use NURMS Subdivision"):
//! when it is on, the object hands the pipeline its NURMS-smoothed mesh, not
//! the stored cage, and Max's Mesh Totals count the smoothed mesh. The
//! object's ParamBlock2 (reference 0) holds it as id 0x17 (bool), with the
//! display iterations at 0x19 (int): in the sixth sweep's public files
//! (docs/unseen-files.md) the two Editable Poly scenes whose vertices fell
//! far short of Max's totals are the ones with 0x17 on, and no file whose
//! totals matched has it on. The subdivision is not built here: such an
//! object is refused by name rather than exported as its cage.

use crate::eval::core::pblock::{self, Value};
use crate::eval::error::EvalError;
use crate::eval::SceneEval;

/// ParamBlock2 ids of the Subdivision Surface rollout.
const USE_NURMS: u16 = 0x17;
const ITERATIONS: u16 = 0x19;

/// Err when the Editable Poly `obj` has Use NURMS Subdivision on. An object
/// without the block or the parameter (older saves), or with it off, passes.
/// The switch is not animatable, so no time is asked for.
pub fn check(eval: &SceneEval, obj: usize) -> Result<(), EvalError> {
    let Some(pb) = pblock::reference(&eval.graph, obj, 0) else {
        return Ok(());
    };
    let Ok(block) = pblock::param_block2(eval.chunks(pb)) else {
        return Ok(());
    };
    if !block
        .param(USE_NURMS)
        .is_some_and(|p| matches!(p.value, Value::Bool(true) | Value::Int(1..)))
    {
        return Ok(());
    }
    let iterations = match block.param(ITERATIONS).map(|p| &p.value) {
        Some(Value::Int(n)) => n.to_string(),
        _ => "?".to_string(),
    };
    Err(EvalError::not_evaluated_why(
        format!("Editable Poly's Use NURMS Subdivision ({iterations} iterations)"),
        "its subdivision surface is not built, and its cage is not what Max shows",
    ))
}
