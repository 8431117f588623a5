//! Autodesk Material (class 0x1ed415e4, 0x213daaf8, Max 2015+): an Autodesk
//! asset (Generic, SolidGlass, Ceramic, WallPaint, Metal …) whose kind sits
//! in chunk 0x1210 and whose properties are self-describing PB2Parameter
//! objects (0x07d32009, 0x6187db21) found by name under reference 1's
//! "Parameters" group — the record shape of MAXtoA's aiPBParameter, read
//! with [`arnold::param`] (docs/max-format.md).
//!
//! The Generic kind is pinned by 3ds Max's FBX export of
//! MageMystery/WindowFrame.max (Mayionn/Projeto-de-Jogo-Ludico, Window.FBX):
//! its ADSKAssetReferences package lists the Generic asset by property name,
//! and the stored values equal them — Generic_Color = generic_diffuse,
//! Generic_Glossiness 50 = generic_glossiness 0.5 (a percentage), Bump_Amount
//! 1000 = generic_bump_amount 10, Transparency_Refraction = the refraction
//! index, Generic_Color_Option 1 = color_by_object (the node's own colour,
//! which a material record cannot hold: named as partial). Mapped as
//! Physical Material: base colour (option 0), glossiness (roughness = 1 −
//! glossiness), transparency (when enabled). Maps, reflectivity,
//! self-illumination, cutouts and any other option value are named as
//! partial.
//!
//! The other kinds met (session 29, InterierAR.max) are read by their
//! property names, as far as those say what Max renders: WallPaint and
//! Ceramic take `Wall_Paint_Color` / `Ceramic_Color` when their
//! `*_Color_Option` is 0 — the option's documented default ("Use Color"),
//! the value every such material of the public files holds, and the value
//! that means "the stored colour" for the Generic above; Metal is metallic;
//! SolidGlass is transparent with the roughness `Solid_Glass_Roughness`
//! (documented as the glass's roughness, 0‥0.1). What each kind derives
//! from an enumerated preset — a paint's or ceramic's finish (its gloss), a
//! metal's type (its colour), a glass's colour — is not stored as a value,
//! and which preset each number is, is not pinned: named in `unmapped`.
//! A kind whose properties are none of these stays undecoded.

use crate::eval::core::pblock;
use crate::eval::core::transform::SceneEval;
use crate::eval::render::arnold::{self, AiParam};
use crate::eval::render::material::Material;
use crate::eval::render::physical::Pbr;

/// Autodesk Material's class id.
pub const AUTODESK_MATERIAL: (u32, u32) = (0x1ed4_15e4, 0x213d_aaf8);
/// Its property records.
const PB2_PARAMETER: (u32, u32) = (0x07d3_2009, 0x6187_db21);
/// The chunk holding the asset kind (UTF-16).
const KIND: u16 = 0x1210;
/// ParamBlock2 type words of the records (docs/max-format.md).
const T_FLOAT: u32 = 0x00;
const T_INT: u32 = 0x01;
const T_BOOL: u32 = 0x04;
const T_FRGBA: u32 = 0x17;
/// Records read at most (damaged data).
const MAX_PARAMS: usize = 4096;

fn word(p: &AiParam, ty: u32) -> Option<[u8; 4]> {
    let v = p.value.as_ref()?;
    (p.ty == ty).then(|| v.get(..4)?.try_into().ok()).flatten()
}

fn find<'a>(ps: &'a [AiParam], name: &str) -> Option<&'a AiParam> {
    ps.iter().find(|p| p.name == name)
}

fn float(ps: &[AiParam], name: &str) -> Option<f32> {
    word(find(ps, name)?, T_FLOAT).map(f32::from_le_bytes)
}

fn int(ps: &[AiParam], name: &str) -> Option<i32> {
    word(find(ps, name)?, T_INT).map(i32::from_le_bytes)
}

fn boolean(ps: &[AiParam], name: &str) -> Option<bool> {
    word(find(ps, name)?, T_BOOL).map(|w| w != [0; 4])
}

fn colour(ps: &[AiParam], name: &str) -> Option<[f32; 3]> {
    let p = find(ps, name)?;
    let v = p.value.as_ref().filter(|_| p.ty == T_FRGBA)?;
    let f = |k: usize| -> Option<f32> {
        Some(f32::from_le_bytes(
            v.get(4 * k..4 * k + 4)?.try_into().ok()?,
        ))
    };
    Some([f(0)?, f(1)?, f(2)?])
}

/// A Generic asset's values as Physical Material's, and what they set that
/// the exports do not carry (see the module doc). `maps` names the texmap
/// parameters that hold a texmap.
pub fn generic(ps: &[AiParam], maps: &[String]) -> (Pbr, Vec<String>) {
    let mut unmapped = Vec::new();
    // Color By Object: "uses the object's 3ds Max wireframe color" (3ds Max's
    // help on Autodesk materials); the exporters take it per node.
    let by_object = int(ps, "Generic_Color_Option") == Some(1);
    let base_color = match int(ps, "Generic_Color_Option") {
        Some(0) | None => colour(ps, "Generic_Color"),
        Some(1) => None,
        Some(k) => {
            unmapped.push(format!(
                "Generic_Color_Option {k} (its meaning is not pinned)"
            ));
            None
        }
    };
    if let Some(k) = int(ps, "Generic_Glossiness_Option").filter(|&k| k != 0) {
        unmapped.push(format!(
            "Generic_Glossiness_Option {k} (its meaning is not pinned)"
        ));
    }
    let gloss = float(ps, "Generic_Glossiness").map(|g| g / 100.0);
    let transparency = match boolean(ps, "Transparency_Enable") {
        Some(true) => float(ps, "Transparency_Amount").map(|t| t / 100.0),
        _ => Some(0.0),
    };
    for (switch, what) in [
        ("Reflectivity_Enable", "reflectivity"),
        ("Self_Illumination_Enable", "self-illumination"),
        ("Cutouts_Enable", "cutouts"),
        ("Bump_Enable", "bump"),
        ("Round_Corners_Enable", "round corners"),
    ] {
        if boolean(ps, switch) == Some(true) {
            unmapped.push(format!("{what} (not read)"));
        }
    }
    for m in maps {
        unmapped.push(format!("{m} map (not read)"));
    }
    let pbr = Pbr {
        base_weight: Some(1.0),
        base_color,
        metalness: Some(0.0),
        roughness: gloss,
        roughness_inv: gloss.map(|_| true),
        transparency,
        colour_by_object: by_object,
        ..Pbr::default()
    };
    (pbr, unmapped)
}

/// The asset kinds decoded, told by their properties (the kind chunk holds
/// a library asset's name instead, e.g. "Glass-008" for a SolidGlass).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Generic,
    WallPaint,
    Ceramic,
    Metal,
    SolidGlass,
}

impl Kind {
    pub fn of(ps: &[AiParam]) -> Option<Kind> {
        [
            ("Generic_Color", Kind::Generic),
            ("Wall_Paint_Color", Kind::WallPaint),
            ("Ceramic_Color", Kind::Ceramic),
            ("Metal_Type", Kind::Metal),
            ("Solid_Glass_Color", Kind::SolidGlass),
        ]
        .into_iter()
        .find(|(n, _)| find(ps, n).is_some())
        .map(|(_, k)| k)
    }
}

/// Names the integer properties `names` as a preset whose meaning is not
/// pinned.
fn preset(ps: &[AiParam], what: &str, names: &[&str]) -> String {
    let vals: Vec<String> = names
        .iter()
        .filter_map(|n| int(ps, n).map(|v| format!("{n} {v}")))
        .collect();
    format!(
        "{what} ({}: which preset it is is not pinned)",
        vals.join(", ")
    )
}

/// A non-Generic kind's values as Physical Material's, and what is not
/// carried (see the module doc). `maps` names the texmap properties that
/// hold a texmap.
pub fn other_kind(kind: Kind, ps: &[AiParam], maps: &[String]) -> (Pbr, Vec<String>) {
    let mut unmapped = Vec::new();
    let mut pbr = Pbr {
        base_weight: Some(1.0),
        metalness: Some(0.0),
        transparency: Some(0.0),
        ..Pbr::default()
    };
    let option_colour =
        |option: &str, colour_name: &str, unmapped: &mut Vec<String>| match int(ps, option) {
            Some(0) => colour(ps, colour_name),
            Some(k) => {
                unmapped.push(format!("{option} {k} (its meaning is not pinned)"));
                None
            }
            None => {
                unmapped.push(format!("{option} absent"));
                None
            }
        };
    match kind {
        Kind::Generic => return generic(ps, maps),
        Kind::WallPaint => {
            pbr.base_color =
                option_colour("Wall_Paint_Color_Option", "Wall_Paint_Color", &mut unmapped);
            unmapped.push(preset(
                ps,
                "paint finish",
                &["Wall_Paint_Finish", "Wall_Paint_Application"],
            ));
        }
        Kind::Ceramic => {
            pbr.base_color = option_colour("Ceramic_Color_Option", "Ceramic_Color", &mut unmapped);
            unmapped.push(preset(
                ps,
                "ceramic finish",
                &["Ceramic_Type", "Ceramic_Finish"],
            ));
        }
        Kind::Metal => {
            pbr.metalness = Some(1.0);
            unmapped.push(preset(
                ps,
                "metal colour and finish",
                &["Metal_Type", "Metal_Finish"],
            ));
        }
        Kind::SolidGlass => {
            pbr.transparency = Some(1.0);
            pbr.roughness = float(ps, "Solid_Glass_Roughness");
            pbr.roughness_inv = pbr.roughness.map(|_| false);
            unmapped.push(preset(ps, "glass colour", &["Solid_Glass_Color"]));
        }
    }
    for (switch, what) in [
        ("Relief_Pattern_Enable", "relief pattern"),
        ("Finish_Bumps_Enable", "finish bumps"),
        ("Cutouts_Enable", "cutouts"),
        ("Round_Corners_Enable", "round corners"),
    ] {
        if boolean(ps, switch) == Some(true) {
            unmapped.push(format!("{what} (not read)"));
        }
    }
    for m in maps {
        unmapped.push(format!("{m} map (not read)"));
    }
    (pbr, unmapped)
}

fn kind(eval: &SceneEval, idx: usize) -> Option<String> {
    eval.chunks(idx)
        .iter()
        .find(|c| c.id == KIND)
        .and_then(|c| c.payload())
        .map(pblock::utf16)
}

/// Decodes Autodesk Material object `idx` into `m` (a kind not listed in
/// [`Kind`] keeps no values: reported as not evaluated).
pub fn autodesk_material(eval: &SceneEval, idx: usize, m: &mut Material) {
    let g = &eval.graph;
    let chunks = eval.chunks(idx);
    if m.name.is_empty() {
        if let Some(n) = chunks
            .iter()
            .filter(|c| c.id == 0x1100)
            .flat_map(|c| c.children())
            .find(|c| c.id == 0x4001)
            .and_then(|c| c.payload())
        {
            m.name = pblock::utf16(n);
        }
    }
    m.shader = kind(eval, idx);
    let is_param = |t: usize| {
        g.class(t)
            .is_some_and(|c| (c.class_id.0, c.class_id.1) == PB2_PARAMETER)
    };
    // Reference 1 (a PB2) → its "Parameters" record → one record per property.
    let Some(block) = pblock::reference(g, idx, 1) else {
        m.errors.push(format!(
            "Autodesk Material (object {idx}): no block on reference 1"
        ));
        return;
    };
    let mut ps = Vec::new();
    let mut maps = Vec::new();
    let groups: Vec<usize> = g.objects[block]
        .references
        .iter()
        .filter_map(|r| usize::try_from(r.target).ok())
        .filter(|&t| is_param(t))
        .collect();
    for grp in groups {
        let Some(gp) = arnold::param(eval.chunks(grp)) else {
            continue;
        };
        if gp.name != "Parameters" {
            continue;
        }
        for r in g.objects[grp].references.iter().take(MAX_PARAMS) {
            let Some(t) = usize::try_from(r.target).ok().filter(|&t| is_param(t)) else {
                continue;
            };
            let Some(p) = arnold::param(eval.chunks(t)) else {
                continue;
            };
            // A texmap property holds its map on the record's reference 0.
            if p.ty == 0x0f && pblock::reference(g, t, 0).is_some() {
                maps.push(p.name.clone());
            }
            ps.push(p);
        }
    }
    if ps.is_empty() {
        m.errors.push(format!(
            "Autodesk Material (object {idx}): no properties found"
        ));
        return;
    }
    let Some(k) = Kind::of(&ps) else {
        return;
    };
    let (pbr, unmapped) = other_kind(k, &ps, &maps);
    m.pbr = Some(pbr);
    m.unmapped.extend(unmapped);
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::eval::render::arnold::test_param as p;

    /// MageMystery/WindowFrame.max's Generic, as stored, against its FBX
    /// export's asset package: generic_diffuse (0, 0, 0), generic_glossiness
    /// 0.5, color_by_object 1, transparency 0.
    #[test]
    fn window_frame_generic() {
        let f = |x: f32| x.to_le_bytes();
        let ps = [
            p("Generic_Color_Option", T_INT, &[1i32.to_le_bytes()]),
            p("Generic_Color", T_FRGBA, &[f(0.0), f(0.0), f(0.0), f(1.0)]),
            p("Generic_Glossiness_Option", T_INT, &[0i32.to_le_bytes()]),
            p("Generic_Glossiness", T_FLOAT, &[f(50.0)]),
            p("Transparency_Enable", T_BOOL, &[[0; 4]]),
            p("Transparency_Amount", T_FLOAT, &[f(0.0)]),
            p("Self_Illumination_Enable", T_BOOL, &[[0; 4]]),
            p("Bump_Enable", T_BOOL, &[[0; 4]]),
        ];
        let (pbr, unmapped) = generic(&ps, &[]);
        assert_eq!(pbr.roughness, Some(0.5));
        assert_eq!(pbr.effective_roughness(), Some(0.5));
        assert_eq!(pbr.transparency, Some(0.0));
        // Colour by object: the FBX's generic_diffuse is not what Max shows;
        // each node's object colour is.
        assert_eq!(pbr.base_color, None);
        assert!(pbr.colour_by_object);
        assert!(unmapped.is_empty(), "{unmapped:?}");
    }

    /// Option 0 takes the stored colour (the asset's base definition beside
    /// it: color_by_object 0, generic_diffuse 0.315 grey).
    #[test]
    fn colour_option_zero_takes_the_colour() {
        let f = |x: f32| x.to_le_bytes();
        let ps = [
            p("Generic_Color_Option", T_INT, &[0i32.to_le_bytes()]),
            p(
                "Generic_Color",
                T_FRGBA,
                &[f(0.315), f(0.315), f(0.315), f(1.0)],
            ),
        ];
        let (pbr, unmapped) = generic(&ps, &["Generic_Image".into()]);
        assert_eq!(pbr.base_color, Some([0.315; 3]));
        assert!(!pbr.colour_by_object);
        assert_eq!(unmapped, ["Generic_Image map (not read)"]);
    }

    /// InterierAR.max's WallPaint as stored: Wall_Paint_Color_Option 0,
    /// Wall_Paint_Color (0.95, 0.95, 0.899), finish 0: the colour, and the
    /// finish named.
    #[test]
    fn interier_wall_paint() {
        let f = |x: f32| x.to_le_bytes();
        let ps = [
            p("Wall_Paint_Color_Option", T_INT, &[0i32.to_le_bytes()]),
            p(
                "Wall_Paint_Color",
                T_FRGBA,
                &[f(0.95), f(0.95), f(0.899), f(1.0)],
            ),
            p("Wall_Paint_Finish", T_INT, &[0i32.to_le_bytes()]),
            p("Wall_Paint_Application", T_INT, &[0i32.to_le_bytes()]),
            p("Round_Corners_Enable", T_BOOL, &[[0; 4]]),
        ];
        let k = Kind::of(&ps);
        assert_eq!(k, Some(Kind::WallPaint));
        let (pbr, unmapped) = other_kind(Kind::WallPaint, &ps, &[]);
        assert_eq!(pbr.base_color, Some([0.95, 0.95, 0.899]));
        assert_eq!(pbr.metalness, Some(0.0));
        assert_eq!(unmapped.len(), 1, "{unmapped:?}");
        assert!(unmapped[0].contains("Wall_Paint_Finish 0"), "{unmapped:?}");
    }

    /// InterierAR.max's "Glass-008" (a SolidGlass library asset): preset
    /// colour 3, roughness 0: transparent, the preset named.
    #[test]
    fn interier_solid_glass() {
        let f = |x: f32| x.to_le_bytes();
        let ps = [
            p("Solid_Glass_Color", T_INT, &[3i32.to_le_bytes()]),
            p(
                "Solid_Glass_Custom_Color_Option",
                T_INT,
                &[0i32.to_le_bytes()],
            ),
            p(
                "Solid_Glass_Custom_Color",
                T_FRGBA,
                &[f(0.87), f(0.87), f(0.87), f(1.0)],
            ),
            p("Solid_Glass_Roughness", T_FLOAT, &[f(0.0)]),
        ];
        assert_eq!(Kind::of(&ps), Some(Kind::SolidGlass));
        let (pbr, unmapped) = other_kind(Kind::SolidGlass, &ps, &[]);
        assert_eq!(pbr.transparency, Some(1.0));
        assert_eq!(pbr.base_color, None);
        assert_eq!(pbr.effective_roughness(), Some(0.0));
        assert_eq!(
            unmapped,
            ["glass colour (Solid_Glass_Color 3: which preset it is is not pinned)"]
        );
    }

    /// A colour option other than 0 is named, not read.
    #[test]
    fn ceramic_option_named() {
        let ps = [
            p("Ceramic_Color_Option", T_INT, &[2i32.to_le_bytes()]),
            p("Ceramic_Color", T_FRGBA, &[1f32.to_le_bytes(); 4]),
        ];
        let (pbr, unmapped) = other_kind(Kind::Ceramic, &ps, &[]);
        assert_eq!(pbr.base_color, None);
        assert!(
            unmapped[0].contains("Ceramic_Color_Option 2"),
            "{unmapped:?}"
        );
    }
}
