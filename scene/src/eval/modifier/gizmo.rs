//! Gizmos of modifiers that place themselves with a transform controller (UVW
//! Map, Mirror, Symmetry). The controller gives the gizmo in mod-context space;
//! the ModApp's 0x2510 holds the mod-context TM, which takes object space to
//! mod-context space. So `gizmo · inverse(mod context)` takes gizmo space to
//! object space, as Max's `CompMatrix` builds it.

use crate::chunk::Chunk;
use crate::eval::error::EvalError;

use super::{Applied, ModContext};
use crate::eval::core::keys::Words;
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::pblock;
use crate::eval::core::transform::invert;
use crate::eval::objects::primitive::{block_params, Params};

/// Mod-context TM inside a ModApp: 12 floats (three rows, translation) and a
/// u32 of identity flags.
const MOD_CONTEXT_TM: u16 = 0x2510;

/// The mod-context TM of a ModApp; identity when the ModApp keeps none (Max
/// then uses no mod-context transform).
pub(super) fn mod_context_tm(mod_app: Option<&Chunk>) -> Result<Mat43, EvalError> {
    let Some(c) = mod_app.and_then(|a| a.children().iter().find(|c| c.id == MOD_CONTEXT_TM)) else {
        return Ok(Mat43::IDENTITY);
    };
    let p = c
        .payload()
        .ok_or_else(|| EvalError::malformed("", "mod-context TM (0x2510) is a container"))?;
    if p.len() != 52 {
        return Err(EvalError::malformed(
            "mod-context TM (0x2510)",
            format!("{} bytes, 52 expected", p.len()),
        ));
    }
    let w = Words(p);
    let row = |r: usize| Vec3(w.f(3 * r), w.f(3 * r + 1), w.f(3 * r + 2));
    let m = Mat43([row(0), row(1), row(2), row(3)]);
    if m.0
        .iter()
        .any(|v| !(v.0.is_finite() && v.1.is_finite() && v.2.is_finite()))
    {
        return Err(EvalError::malformed(
            "",
            "mod-context TM (0x2510) is not finite",
        ));
    }
    Ok(m)
}

/// The object the modifier references in `slot`.
fn target(cx: &ModContext, m: &Applied, slot: u32, what: &str) -> Result<usize, EvalError> {
    pblock::reference(&cx.eval.graph, m.object, slot)
        .ok_or_else(|| EvalError::reference("", format!("no {what} (reference {slot})")))
}

/// Gizmo space → object space at `cx.t`: the gizmo controller in reference
/// `slot` (Position/Rotation/Scale), then the inverse mod-context TM.
pub(super) fn gizmo_to_object(cx: &ModContext, m: &Applied, slot: u32) -> Result<Mat43, EvalError> {
    let ctl = target(cx, m, slot, "gizmo controller")?;
    let g = cx.eval.prs_tm(ctl, cx.t).ok_or_else(|| {
        let class = cx.eval.graph.class(ctl).map_or("?", |c| c.name.as_str());
        EvalError::not_evaluated(format!("gizmo controller {class:?}"))
    })?;
    let mc = mod_context_tm(m.mod_app)?;
    Ok(g.then(&inverse(&mc, "mod-context TM")?))
}

/// The parameter values of the block in reference `slot`, at `cx.t`.
pub(super) fn params(cx: &ModContext, m: &Applied, slot: u32) -> Result<Params, EvalError> {
    block_params(cx.eval, target(cx, m, slot, "parameter block")?, cx.t)
}

/// Inverse of a gizmo matrix, refusing a flat one (its space has no inverse).
pub(super) fn inverse(m: &Mat43, what: &str) -> Result<Mat43, EvalError> {
    if m.determinant3().abs() < 1e-12 {
        return Err(EvalError::malformed("", format!("{what} is singular")));
    }
    Ok(invert(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mod_app(payload: Vec<u8>) -> Chunk {
        Chunk::container(0x2500, vec![Chunk::leaf(MOD_CONTEXT_TM, payload)])
    }

    #[test]
    fn mod_context_tm_reads_rows_and_refuses_damage() {
        let mut p = Vec::new();
        for x in [2.0f32, 0., 0., 0., 1., 0., 0., 0., 1., 5., 6., 7.] {
            p.extend(x.to_le_bytes());
        }
        p.extend(2u32.to_le_bytes());
        let m = mod_context_tm(Some(&mod_app(p.clone()))).unwrap();
        assert_eq!(m.transform_point(Vec3(1.0, 1.0, 1.0)), Vec3(7.0, 7.0, 8.0));
        assert_eq!(mod_context_tm(None).unwrap(), Mat43::IDENTITY);
        let short = mod_context_tm(Some(&mod_app(p[..48].to_vec()))).unwrap_err();
        assert!(short.to_string().contains("48 bytes"), "{short}");
        p[0..4].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(mod_context_tm(Some(&mod_app(p))).is_err());
        let flat = Mat43::scaling(Vec3(1.0, 0.0, 1.0));
        assert!(inverse(&flat, "gizmo")
            .unwrap_err()
            .to_string()
            .contains("singular"));
    }
}
