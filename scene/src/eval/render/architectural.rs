//! Architectural (class 0x13d11bbe, 0x691e3037, Max 6–2016).
//!
//! Reference 0 is one ParamBlock2 (block 0): 0 template name (string), 1 the
//! diffuse colour, 2 the index of refraction. Pinned by MAXScript's documented
//! defaults met in a material left at them ("page 3view.max" of
//! AmirHosein-Vahed/3DMax: diffuse (150, 150, 150) = 0.588, IOR 1.5): the
//! block's only colour and its only float at 1.5. Texmap parameters sit at
//! 129‥153 with on/off flags at id + 128 and amounts at id + 64.
//!
//! Shininess, transparency, translucency and luminance are among the
//! percentage and float parameters 5‥15 and 193‥217 whose order no reference
//! here pins (every public file holds them at equal values), and which texmap
//! id is which map is not pinned either: only the diffuse colour is mapped,
//! and the material is named as partially evaluated.

use crate::eval::core::pblock::{self, ParamBlock2, Value};
use crate::eval::core::transform::SceneEval;
use crate::eval::render::material::{MapRef, Material, SC_TEXMAP};
use crate::eval::render::physical::Pbr;

/// Architectural's class id.
pub const ARCHITECTURAL: (u32, u32) = (0x13d1_1bbe, 0x691e_3037);

const DIFFUSE: u16 = 1;

/// What is always left out (see the module doc).
pub const NOT_PINNED: &str = "shininess, transparency, translucency, luminance (ids not pinned)";

/// The block's diffuse colour as Physical Material's base colour.
pub fn to_pbr(pb: &ParamBlock2) -> Pbr {
    let base_color = match pb.param(DIFFUSE).map(|p| &p.value) {
        Some(Value::Vector(v)) => Some(*v),
        _ => None,
    };
    Pbr {
        base_weight: Some(1.0),
        base_color,
        ..Pbr::default()
    }
}

/// Decodes Architectural object `idx` into `m`.
pub fn architectural(eval: &SceneEval, idx: usize, m: &mut Material) {
    let g = &eval.graph;
    let Some((pbi, pb)) = crate::eval::render::material::block0(eval, idx, "Architectural", m)
    else {
        return;
    };
    m.pbr = Some(to_pbr(&pb));
    m.unmapped.push(NOT_PINNED.into());
    for p in &pb.params {
        if p.base_type() != pblock::ty::TEXMAP || p.is_tab() {
            continue;
        }
        let target = match (&p.value, p.ref_slot) {
            (_, Some(slot)) => pblock::reference(g, pbi, slot),
            (Value::Object(t), None) => usize::try_from(*t).ok(),
            _ => None,
        };
        let Some(t) =
            target.filter(|&t| crate::eval::render::material::is_super_class(eval, t, SC_TEXMAP))
        else {
            continue;
        };
        let slot = format!("map{}", p.id);
        m.unmapped
            .push(format!("{slot} map (which map it is is not pinned)"));
        m.maps.push(MapRef {
            slot,
            texmap: t,
            enabled: None,
            amount: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::Param;

    /// "page 3view.max" (AmirHosein-Vahed/3DMax, public): the documented
    /// default diffuse (150, 150, 150).
    #[test]
    fn documented_default_diffuse() {
        let pb = ParamBlock2 {
            params: vec![
                Param {
                    id: 0,
                    ty: 8,
                    flags: 0,
                    value: Value::String("User Defined".into()),
                    ref_slot: None,
                },
                Param {
                    id: 1,
                    ty: 2,
                    flags: 0,
                    value: Value::Vector([150.0 / 255.0; 3]),
                    ref_slot: None,
                },
                Param {
                    id: 2,
                    ty: 0,
                    flags: 0,
                    value: Value::Float(1.5),
                    ref_slot: None,
                },
            ],
            ..ParamBlock2::default()
        };
        let p = to_pbr(&pb);
        assert_eq!(p.base_color, Some([150.0 / 255.0; 3]));
        assert_eq!(p.transparency, None);
    }
}
