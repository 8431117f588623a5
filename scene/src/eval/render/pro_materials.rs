//! ProMaterials (3ds Max 2009–2016's mental ray "Autodesk" materials: class
//! 0x7773160f with a second word per kind). They store their shader's
//! inputs by name, so nothing here rests on a parameter id.
//!
//! Reference 0 is a ParamBlock2 (block 0) whose RefTab holds three
//! mrPBParameter records (0x58f67d6c, 0x4fe30000; the record shape of
//! MAXtoA's aiPBParameter, read with [`arnold::param`]): "results",
//! "parameters" and "connections". "parameters" references one group per
//! rollout ("m" the material's own inputs, "o" ambient occlusion and round
//! corners, "p" performance, "i" self-illumination, "t" transparency …),
//! each referencing one record per input, named as the mental ray shader
//! declares it ("diffuse_color", "surf_gloss", "refr_ior" …). "connections"
//! holds, per group, "<input>.connected" (a switch) and "<input>.shader",
//! whose reference 0 is the texmap wired to that input (bmw 7 dour.max's
//! licence plates: "diffuse.connected" on, a Bitmap on "diffuse.shader").
//! docs/max-format.md lists what was read off the two public car files.
//!
//! Read by the inputs' names (docs/gltf-export.md has the mapping): Generic
//! — base colour `diffuse` (or its map), roughness 1 − `surf_gloss`,
//! transparency `transparency`; Metallic Paint and Plastic/Vinyl — base
//! colour `diffuse_color`; Mirror — base colour `tint_color`, metallic,
//! roughness 0; Metal — metallic; Solid Glass — fully transparent. What the
//! shader derives from an enumerated preset (a metal's kind, a plastic's or
//! paint's finish, a glass's colour) is not stored as a value, and which
//! preset each number stands for is not pinned: named in `unmapped`.

use crate::eval::core::pblock;
use crate::eval::core::transform::SceneEval;
use crate::eval::render::arnold::{self, AiParam};
use crate::eval::render::material::{self, MapRef, Material, SC_TEXMAP};
use crate::eval::render::physical::Pbr;

/// The first word of every ProMaterials class id.
pub const PRO_MATERIALS: u32 = 0x7773_160f;
/// Their parameter records.
const MR_PB_PARAMETER: (u32, u32) = (0x58f6_7d6c, 0x4fe3_0000);

/// The kinds decoded, by the second word of the class id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Generic,
    Metal,
    MetallicPaint,
    PlasticVinyl,
    SolidGlass,
    Mirror,
}

impl Kind {
    pub fn of(class_id: (u32, u32)) -> Option<Kind> {
        if class_id.0 != PRO_MATERIALS {
            return None;
        }
        Some(match class_id.1 {
            0xa560_5f30 => Kind::Generic,
            0xb954_4c13 => Kind::Metal,
            0xb961_7020 => Kind::MetallicPaint,
            0xc25e_a83b => Kind::PlasticVinyl,
            0x4d4e_b17c => Kind::SolidGlass,
            0xbb0e_4f26 => Kind::Mirror,
            _ => return None,
        })
    }
}

/// Record type words (ParamBlock2's).
const T_FLOAT: u32 = 0x00;
const T_INT: u32 = 0x01;
const T_BOOL: u32 = 0x04;
const T_WORLD: u32 = 0x07;
const T_TEXMAP: u32 = 0x0f;
const T_FRGBA: u32 = 0x17;
/// A group of records.
const T_GROUP: u32 = 0x15;
/// Records read at most per group (damaged data).
const MAX_RECORDS: usize = 1024;

/// A material's inputs by name, and the texmaps wired to them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inputs {
    pub params: Vec<AiParam>,
    /// (input name, texmap object) for every connected input.
    pub wired: Vec<(String, usize)>,
    /// Texmap inputs holding a texmap of their own (bump_map …).
    pub maps: Vec<(String, usize)>,
}

impl Inputs {
    fn get(&self, name: &str) -> Option<&AiParam> {
        self.params.iter().find(|p| p.name == name)
    }

    fn word(&self, name: &str, types: &[u32]) -> Option<[u8; 4]> {
        let p = self.get(name)?;
        let v = p.value.as_ref().filter(|_| types.contains(&p.ty))?;
        v.get(..4)?.try_into().ok()
    }

    pub fn float(&self, name: &str) -> Option<f32> {
        self.word(name, &[T_FLOAT, T_WORLD]).map(f32::from_le_bytes)
    }

    /// An integer or switch.
    pub fn int(&self, name: &str) -> Option<i32> {
        self.word(name, &[T_INT, T_BOOL]).map(i32::from_le_bytes)
    }

    pub fn colour(&self, name: &str) -> Option<[f32; 3]> {
        let p = self.get(name)?;
        let v = p.value.as_ref().filter(|_| p.ty == T_FRGBA)?;
        let f = |k: usize| -> Option<f32> {
            Some(f32::from_le_bytes(
                v.get(4 * k..4 * k + 4)?.try_into().ok()?,
            ))
        };
        Some([f(0)?, f(1)?, f(2)?])
    }

    fn wired_to(&self, name: &str) -> Option<usize> {
        self.wired.iter().find(|(n, _)| n == name).map(|(_, t)| *t)
    }
}

/// The values as Physical Material's, the maps carried (slot, texmap), and
/// what is set but not carried (see the module doc).
pub fn to_pbr(kind: Kind, inp: &Inputs) -> (Pbr, Vec<(String, usize)>, Vec<String>) {
    let mut unmapped = Vec::new();
    let mut maps = Vec::new();
    let mut pbr = Pbr {
        base_weight: Some(1.0),
        metalness: Some(0.0),
        transparency: Some(0.0),
        ..Pbr::default()
    };
    // The input carrying the base colour, per kind.
    let base = match kind {
        Kind::Generic => Some("diffuse"),
        Kind::MetallicPaint | Kind::PlasticVinyl => Some("diffuse_color"),
        Kind::Mirror => Some("tint_color"),
        Kind::Metal | Kind::SolidGlass => None,
    };
    if let Some(b) = base {
        pbr.base_color = inp.colour(b);
        if let Some(t) = inp.wired_to(b) {
            maps.push(("base_color".to_string(), t));
        }
    }
    let preset = |what: &str, inputs: &[&str]| -> String {
        let vals: Vec<String> = inputs
            .iter()
            .filter_map(|n| inp.int(n).map(|v| format!("{n} {v}")))
            .collect();
        format!(
            "{what} ({}: which preset it is is not pinned)",
            vals.join(", ")
        )
    };
    match kind {
        Kind::Generic => {
            pbr.roughness = inp.float("surf_gloss");
            pbr.roughness_inv = pbr.roughness.map(|_| true);
            pbr.transparency = inp.float("transparency").or(Some(0.0));
            for (input, what) in [
                ("self_illum_luminance", "self-illumination luminance"),
                ("refr_trans_weight", "translucency"),
            ] {
                if let Some(v) = inp.float(input).filter(|&v| v > 0.0) {
                    unmapped.push(format!("{what} {v} (not carried)"));
                }
            }
            if let Some(v) = inp.float("cutout_opacity").filter(|&v| v < 1.0) {
                unmapped.push(format!("cutout opacity {v} (not carried)"));
            }
        }
        Kind::MetallicPaint => {
            unmapped.push(preset("paint finish and gloss", &["type"]));
            if inp.int("flake_enable").is_some_and(|v| v != 0) {
                unmapped.push("metallic flakes (not carried)".into());
            }
        }
        Kind::PlasticVinyl => {
            unmapped.push(preset("plastic kind and finish", &["type", "application"]));
        }
        Kind::Metal => {
            pbr.metalness = Some(1.0);
            unmapped.push(preset("metal colour and finish", &["type", "application"]));
        }
        Kind::SolidGlass => {
            pbr.transparency = Some(1.0);
            unmapped.push(preset("glass colour", &["transmittance_color"]));
            if let Some(g) = inp.float("glossiness") {
                unmapped.push(format!("surface glossiness {g} (its scale is not pinned)"));
            }
        }
        Kind::Mirror => {
            pbr.metalness = Some(1.0);
            pbr.roughness = Some(0.0);
            pbr.roughness_inv = Some(false);
        }
    }
    if inp.int("roundcorners_on").is_some_and(|v| v != 0) {
        unmapped.push("round corners (not carried)".into());
    }
    let carried = base.into_iter().collect::<Vec<_>>();
    for (name, _) in &inp.wired {
        if !carried.contains(&name.as_str()) {
            unmapped.push(format!("{name} map (not exported)"));
        }
    }
    for (name, _) in &inp.maps {
        unmapped.push(format!("{name} map (not exported)"));
    }
    (pbr, maps, unmapped)
}

fn is_record(eval: &SceneEval, t: usize) -> bool {
    eval.graph
        .class(t)
        .is_some_and(|c| (c.class_id.0, c.class_id.1) == MR_PB_PARAMETER)
}

/// The records `idx` references, read.
fn children(eval: &SceneEval, idx: usize) -> Vec<(usize, AiParam)> {
    let Some(o) = eval.graph.objects.get(idx) else {
        return Vec::new();
    };
    o.references
        .iter()
        .take(MAX_RECORDS)
        .filter_map(|r| usize::try_from(r.target).ok())
        .filter(|&t| t != idx && is_record(eval, t))
        .filter_map(|t| arnold::param(eval.chunks(t)).map(|p| (t, p)))
        .collect()
}

fn texmap_on(eval: &SceneEval, record: usize) -> Option<usize> {
    pblock::reference(&eval.graph, record, 0)
        .filter(|&t| material::is_super_class(eval, t, SC_TEXMAP))
}

/// Reads the inputs of ProMaterials object `idx` (None: no "parameters"
/// record found).
pub fn inputs(eval: &SceneEval, idx: usize) -> Option<Inputs> {
    let block = pblock::reference(&eval.graph, idx, 0)?;
    let top = children(eval, block);
    let params_rec = top.iter().find(|(_, p)| p.name == "parameters")?.0;
    let mut inp = Inputs::default();
    for (g, gp) in children(eval, params_rec) {
        if gp.ty != T_GROUP {
            inp.params.push(gp);
            continue;
        }
        for (r, p) in children(eval, g) {
            if p.ty == T_TEXMAP {
                if let Some(t) = texmap_on(eval, r) {
                    inp.maps.push((p.name.clone(), t));
                }
            }
            inp.params.push(p);
        }
    }
    if let Some((conn, _)) = top.iter().find(|(_, p)| p.name == "connections") {
        for (s, _) in children(eval, *conn) {
            let recs = children(eval, s);
            for (_, p) in &recs {
                let Some(input) = p.name.strip_suffix(".connected") else {
                    continue;
                };
                let on =
                    p.ty == T_BOOL && p.value.as_deref().and_then(|v| v.get(..4)) != Some(&[0; 4]);
                let shader = format!("{input}.shader");
                let t = recs
                    .iter()
                    .find(|(_, q)| q.name == shader)
                    .and_then(|(r, _)| texmap_on(eval, *r));
                if let (true, Some(t)) = (on, t) {
                    inp.wired.push((input.to_string(), t));
                }
            }
        }
    }
    Some(inp)
}

/// Decodes ProMaterials object `idx` of `kind` into `m`.
pub fn pro_material(eval: &SceneEval, idx: usize, kind: Kind, m: &mut Material) {
    let Some(inp) = inputs(eval, idx) else {
        m.errors.push(format!(
            "{} (object {idx}): no \"parameters\" record on its block",
            m.class
        ));
        return;
    };
    let (pbr, maps, unmapped) = to_pbr(kind, &inp);
    m.pbr = Some(pbr);
    m.unmapped.extend(unmapped);
    for (slot, texmap) in maps {
        m.maps.push(MapRef {
            slot,
            texmap,
            enabled: Some(true),
            amount: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::eval::render::arnold::test_param as p;

    fn rgba(c: [f32; 3]) -> Vec<[u8; 4]> {
        vec![
            c[0].to_le_bytes(),
            c[1].to_le_bytes(),
            c[2].to_le_bytes(),
            1f32.to_le_bytes(),
        ]
    }

    /// bmw 7 dour.max's "Vehicle_Body" (Metallic Paint): diffuse_color
    /// (0.8, 0.1, 0), type 0, no flakes.
    #[test]
    fn metallic_paint_colour() {
        let inp = Inputs {
            params: vec![
                p("diffuse_color", T_FRGBA, &rgba([0.8, 0.1, 0.0])),
                p("type", T_INT, &[0i32.to_le_bytes()]),
                p("flake_enable", T_INT, &[0i32.to_le_bytes()]),
            ],
            ..Inputs::default()
        };
        let (pbr, maps, unmapped) = to_pbr(Kind::MetallicPaint, &inp);
        assert_eq!(pbr.base_color, Some([0.8, 0.1, 0.0]));
        assert_eq!(pbr.metalness, Some(0.0));
        assert!(maps.is_empty());
        assert_eq!(unmapped.len(), 1, "{unmapped:?}");
        assert!(unmapped[0].contains("type 0"), "{unmapped:?}");
    }

    /// bmw 7 dour.max's "License_Plate_Front" (Generic): diffuse wired to a
    /// Bitmap, surf_gloss 1, transparency 0, cutout opacity 1: whole.
    #[test]
    fn generic_with_diffuse_map() {
        let f = |x: f32| vec![x.to_le_bytes()];
        let inp = Inputs {
            params: vec![
                p("diffuse", T_FRGBA, &rgba([0.75; 3])),
                p("surf_gloss", T_FLOAT, &f(1.0)),
                p("transparency", T_FLOAT, &f(0.0)),
                p("refr_trans_weight", T_FLOAT, &f(0.0)),
                p("cutout_opacity", T_FLOAT, &f(1.0)),
                p("self_illum_luminance", T_FLOAT, &f(0.0)),
            ],
            wired: vec![("diffuse".into(), 436)],
            maps: Vec::new(),
        };
        let (pbr, maps, unmapped) = to_pbr(Kind::Generic, &inp);
        assert_eq!(pbr.base_color, Some([0.75; 3]));
        assert_eq!(pbr.effective_roughness(), Some(0.0));
        assert_eq!(pbr.transparency, Some(0.0));
        assert_eq!(maps, vec![("base_color".to_string(), 436)]);
        assert!(unmapped.is_empty(), "{unmapped:?}");
    }

    /// park car.max's "Mirror": tint (0.865, 0.91, 0.866), a perfect mirror.
    #[test]
    fn mirror_tint() {
        let inp = Inputs {
            params: vec![p("tint_color", T_FRGBA, &rgba([0.865, 0.91, 0.866]))],
            ..Inputs::default()
        };
        let (pbr, _, unmapped) = to_pbr(Kind::Mirror, &inp);
        assert_eq!(pbr.base_color, Some([0.865, 0.91, 0.866]));
        assert_eq!(pbr.metalness, Some(1.0));
        assert_eq!(pbr.effective_roughness(), Some(0.0));
        assert!(unmapped.is_empty(), "{unmapped:?}");
    }

    /// "Windows_Glass" (Solid Glass): transparent; the colour preset 0 and
    /// the glossiness are named.
    #[test]
    fn solid_glass_named_preset() {
        let inp = Inputs {
            params: vec![
                p("transmittance_color", T_INT, &[0i32.to_le_bytes()]),
                p("refr_ior", T_FLOAT, &[1.52f32.to_le_bytes()]),
                p("glossiness", T_FLOAT, &[0f32.to_le_bytes()]),
            ],
            ..Inputs::default()
        };
        let (pbr, _, unmapped) = to_pbr(Kind::SolidGlass, &inp);
        assert_eq!(pbr.transparency, Some(1.0));
        assert_eq!(pbr.base_color, None);
        assert_eq!(unmapped.len(), 2, "{unmapped:?}");
        assert!(
            unmapped[0].contains("transmittance_color 0"),
            "{unmapped:?}"
        );
    }

    #[test]
    fn kinds_by_class_id() {
        assert_eq!(Kind::of((PRO_MATERIALS, 0xbb0e_4f26)), Some(Kind::Mirror));
        assert_eq!(Kind::of((PRO_MATERIALS, 1)), None);
        assert_eq!(Kind::of((1, 0xbb0e_4f26)), None);
    }
}
