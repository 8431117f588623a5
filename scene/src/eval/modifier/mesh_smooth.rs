//! MeshSmooth (0x32, 0x7f9e; MAXScript `meshsmooth`, classID #(50, 32670)).
//! Its NURMS method at the default weights and a smoothness of 1 is
//! Catmull-Clark of the input's polygons, evaluated by TurboSmooth's code
//! (`turbo_smooth`, `subdivide`); Classic and Quad Output move vertices by
//! Strength and Relax rules Max does not publish and are refused by name.
//!
//! ParamBlock2 in reference 0. Max's parameter ids are not published; they
//! are read from the documented properties and the values of every MeshSmooth
//! in the public files examined (13 instances, docs/evaluation.md):
//! - 9 subdivision method, the MAXScript `subdivMethod` (0 Classic, 1 Quad
//!   Output, 2 NURMS, default 2): the one integer holding 2, and 1 on the
//!   one modifier whose file uses Quad Output;
//! - 4 iterations (the viewport count): the one parameter that differs
//!   between the instances (1, 2, 3), checked by the Mesh Totals of the
//!   files it makes whole (none turns render iterations on);
//! - 13–16 use render iterations, render iterations, use render smoothness,
//!   render smoothness: a bool, int, bool, float run with the documented
//!   defaults false, 0, false, 1.0, in the documented order. Render values do
//!   not reach the saved mesh and are not read;
//! - 2 smoothness (default 1.0, the only other float at 1.0); below 1 NURMS
//!   adds faces only at sharp corners by a rule Max does not publish, so any
//!   other value is refused by name;
//! - 0 and 1 Strength (0.5) and Relax (0.0), used by Classic and Quad Output
//!   only ("unavailable with the NURMS type", 3ds Max 8 reference), not read.
//!
//! The remaining ids (the documented Apply To Whole Mesh, Old Style Mapping,
//! Smooth Result, Separate by Materials / Smoothing Groups, the input
//! conversion, update and soft-selection options) could not be told apart:
//! every instance holds the same value in each. The modifier is evaluated
//! only while each holds that value (`SETTLED`); another value is refused
//! naming the id, as its meaning decides the mesh. With those values the
//! result is the polygons' Catmull-Clark with one smoothing group, which the
//! Mesh Totals confirm (docs/evaluation.md).
//!
//! The per-node data (ModApp 0x2512) holds four Local Control tables
//! (0x0530–0x0560): a level count, then per level a record count and the
//! records, all counts zero when nothing was edited at the Local Control
//! level. Two layouts are read so that a refusal can say what was edited:
//! 0x0540 holds (control vertex, f32) records and 0x0560 (control vertex,
//! offset) records. The offsets are not applied: Max stores each in a frame
//! of its own vertex, whose z axis is the vertex's angle-weighted normal but
//! whose x axis is not derived (docs/evaluation.md). Any edit is refused.

use super::subdivide::Polys;
use super::turbo_smooth::{self, Settings};
use super::{Applied, ModContext, EDIT_MESH, UNWRAP_UVW};
use crate::chunk::Chunk;
use crate::eval::core::keys::Words;
use crate::eval::core::pblock;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Mesh, EDITABLE_MESH};
use crate::eval::objects::poly_make::as_max_converts;
use crate::eval::objects::primitive::{self, Params};
use crate::typed::ClassId;

pub const MESH_SMOOTH: ClassId = ClassId(0x32, 0x7f9e);

/// Max's iteration spinner stops at 10; more is damaged data.
const MAX_ITERATIONS: i64 = 10;

const ITERATIONS: usize = 4;
const METHOD: usize = 9;
const SMOOTHNESS: usize = 2;

/// The subdivision methods of `subdivMethod`.
const CLASSIC: i64 = 0;
const QUAD_OUTPUT: i64 = 1;
const NURMS: i64 = 2;

/// Parameters whose meaning is not established, with the value every
/// examined MeshSmooth holds (booleans as 0 / 1); a parameter missing from an
/// older file counts as holding it.
const SETTLED: [(usize, i64); 17] = [
    (3, 1),
    (5, 1),
    (6, 0),
    (7, 0),
    (8, 1),
    (10, 0),
    (11, 0),
    (12, 0),
    (17, 0),
    (18, 0),
    (19, 0),
    (20, 1),
    (21, 0),
    (25, 0),
    (26, 0),
    (28, 0),
    (29, 1),
];

/// Local Control tables of the per-node data.
const LOCAL_TABLES: [u16; 4] = [0x0530, 0x0540, 0x0550, 0x0560];

/// A u32 after the tables, 0 in every instance that has it.
const LOCAL_WORD: u16 = 0x0600;

/// A bit array (0x2700) over the control vertices: the Local Control
/// selection.
const LOCAL_SELECTION: u16 = 0x0608;

/// MeshSmooth's settings at a time, or why it is not evaluated.
fn settings(p: &Params) -> Result<Settings, EvalError> {
    let iterations = p.int_or(ITERATIONS, 0);
    if !(0..=MAX_ITERATIONS).contains(&iterations) {
        return Err(EvalError::malformed("", format!("{iterations} iterations")));
    }
    match p.int_or(METHOD, NURMS) {
        NURMS => {}
        CLASSIC => {
            return Err(EvalError::not_evaluated_why(
                "the Classic subdivision method",
                "its Strength / Relax vertex rule is not public",
            ))
        }
        QUAD_OUTPUT => {
            return Err(EvalError::not_evaluated_why(
                "the Quad Output subdivision method",
                "its Strength / Relax vertex rule is not public",
            ))
        }
        other => {
            return Err(EvalError::malformed(
                "",
                format!("subdivision method {other}"),
            ))
        }
    }
    let smoothness = p.float_or(SMOOTHNESS, 1.0);
    if smoothness != 1.0 {
        return Err(EvalError::not_evaluated_why(
            format!("NURMS smoothness {smoothness}"),
            "which corners it leaves unsubdivided is not public",
        ));
    }
    if let Some(&(id, want)) = SETTLED
        .iter()
        .find(|&&(id, want)| p.int_or(id, want) != want)
    {
        return Err(EvalError::not_evaluated_why(
            format!(
                "parameter {id} = {} (every known MeshSmooth holds {want})",
                p.int_or(id, want)
            ),
            "its meaning is not established",
        ));
    }
    Ok(Settings {
        iterations: iterations as u32,
        smooth_result: true,
        separate: Default::default(),
    })
}

/// Refuses Local Control edits: each table must be a count of levels and as
/// many zero counts.
fn check_local(local: Option<&Chunk>) -> Result<(), EvalError> {
    let Some(local) = local else {
        return Ok(());
    };
    for c in local.children() {
        if c.id == LOCAL_WORD {
            let p = super::payload(c)?;
            if p != [0; 4] {
                return Err(EvalError::not_evaluated_why(
                    format!("per-node data chunk {LOCAL_WORD:#06x} = {p:02x?}"),
                    "only 0 is seen (with empty Local Control tables)",
                ));
            }
            continue;
        }
        if c.id == LOCAL_SELECTION {
            // The control-vertex selection: it picks what Local Control edits
            // act on, which the empty tables show there are none of.
            super::bits(c)?;
            if c.children().len() != 1 {
                return Err(EvalError::not_evaluated(format!(
                    "per-node data chunk {LOCAL_SELECTION:#06x} with {} children",
                    c.children().len()
                )));
            }
            continue;
        }
        if !LOCAL_TABLES.contains(&c.id) {
            return Err(EvalError::not_evaluated(format!(
                "per-node data chunk {:#06x}",
                c.id
            )));
        }
        let p = super::payload(c)?;
        let w = Words(p);
        let ok = p.len() >= 4
            && p.len() % 4 == 0
            && w.u32(0) as usize == p.len() / 4 - 1
            && (1..p.len() / 4).all(|i| w.u32(i) == 0);
        if !ok {
            return Err(edited(c.id, p));
        }
    }
    Ok(())
}

/// Bytes per record of the Local Control tables whose layout is read.
fn record_size(table: u16) -> Option<usize> {
    match table {
        LOCAL_VALUES => Some(8),
        LOCAL_OFFSETS => Some(16),
        _ => None,
    }
}

/// Per-vertex values (0x0540): as table.max's MeshSmooth stores them, 132
/// control vertices at 0.0001 (which weight they are is not established).
const LOCAL_VALUES: u16 = 0x0540;

/// Per-vertex offsets (0x0560): Spongie's characters move 20 to 299 control
/// vertices by up to 13 units.
const LOCAL_OFFSETS: u16 = 0x0560;

/// One Local Control record: the control vertex and the floats after it.
type Edit = (u32, Vec<f64>);

/// The edits a Local Control table holds, per level.
fn local_edits(table: u16, p: &[u8]) -> Result<Vec<Vec<Edit>>, EvalError> {
    let damaged =
        |what: String| EvalError::malformed(format!("per-node data chunk {table:#06x}"), what);
    let size = record_size(table).ok_or_else(|| {
        EvalError::not_evaluated_why(
            format!("Local Control edits (chunk {table:#06x})"),
            "their layout is not decoded",
        )
    })?;
    if p.len() < 4 || !p.len().is_multiple_of(4) {
        return Err(damaged(format!("{} bytes", p.len())));
    }
    let w = Words(p);
    let words = p.len() / 4;
    // Max's iteration spinner stops at 10: the table has 11 levels.
    let levels = w.u32(0) as usize;
    if levels > MAX_ITERATIONS as usize + 1 {
        return Err(damaged(format!("{levels} levels")));
    }
    let mut at = 1;
    let mut out = Vec::with_capacity(levels);
    for level in 0..levels {
        if at >= words {
            return Err(damaged(format!(
                "level {level} past the end ({words} words)"
            )));
        }
        let n = w.u32(at) as usize;
        at += 1;
        let need = n.checked_mul(size / 4).filter(|k| at + k <= words);
        let Some(need) = need else {
            return Err(damaged(format!(
                "level {level}: {n} records of {size} bytes at word {at} of {words}"
            )));
        };
        let records = (0..n)
            .map(|k| {
                let r = at + k * size / 4;
                (w.u32(r), (r + 1..r + size / 4).map(|i| w.f(i)).collect())
            })
            .collect();
        at += need;
        out.push(records);
    }
    if at != words {
        return Err(damaged(format!("{} words after the levels", words - at)));
    }
    Ok(out)
}

/// The refusal of an edited Local Control table, naming what it holds.
fn edited(table: u16, p: &[u8]) -> EvalError {
    let levels = match local_edits(table, p) {
        Ok(l) => l,
        Err(e) => return e,
    };
    let counts: Vec<String> = levels
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.is_empty())
        .map(|(level, r)| {
            let first = r.first().map_or(0, |x| x.0);
            let last = r.last().map_or(0, |x| x.0);
            format!(
                "{} at level {level} (control vertices {first} … {last})",
                r.len()
            )
        })
        .collect();
    let (what, why) = if table == LOCAL_OFFSETS {
        (
            "vertex offsets",
            "each is stored in a frame of its vertex whose z axis is the vertex's \
             angle-weighted normal; the frame's x axis is not derived",
        )
    } else {
        (
            "per-vertex values",
            "which weight they are, and how NURMS applies it, is not derived",
        )
    };
    EvalError::not_evaluated_why(
        format!(
            "Local Control {what} (chunk {table:#06x}: {})",
            counts.join(", ")
        ),
        why,
    )
}

/// The ModApp's flag word (0x2513) bit that Max's saved Mesh Totals show
/// leaving the modifier out.
const MOD_APP_FLAGS: u16 = 0x2513;
const MOD_APP_LEFT_OUT: u32 = 0x20;

/// Refuses a MeshSmooth whose ModApp flag word (0x2513) has bit 0x20 set.
/// Evan-Barry's hand_back_unwrapped.max holds it (0x00040120) where its three
/// siblings with the same stack and parameters hold 0x00040140, and Max's
/// Mesh Totals there count the unsmoothed cage (173 = 123 + 50) where the
/// siblings count the smoothed mesh (530). What the bit means (a viewport
/// display state?) is not established, so the modifier is refused rather
/// than left out.
fn check_mod_app_flags(mod_app: Option<&Chunk>) -> Result<(), EvalError> {
    let Some(word) = mod_app
        .and_then(|a| a.children().iter().find(|c| c.id == MOD_APP_FLAGS))
        .and_then(Chunk::payload)
        .filter(|p| p.len() >= 4)
        .map(|p| Words(p).u32(0))
    else {
        return Ok(());
    };
    if word & MOD_APP_LEFT_OUT != 0 {
        return Err(EvalError::not_evaluated_why(
            format!("ModApp flag word {word:#010x} (chunk 0x2513, bit 0x20)"),
            "Max's Mesh Totals leave such a MeshSmooth out; the bit's meaning is not established",
        ));
    }
    Ok(())
}

/// Whether `m` sits on a triangle mesh whose edge visibility is Max's: the
/// modifier directly below it is an Unwrap UVW or an Edit Mesh, or nothing is
/// below it and its base object is an Editable Mesh (its saved faces carry
/// the visibility bits).
fn on_triangles(m: &Applied, cx: &ModContext) -> Result<bool, EvalError> {
    if cx.stack().is_none() {
        return Ok(false);
    }
    let (stack, base, at) = cx.place(m)?;
    let base_class = super::base_class(cx, base)?.class_id;
    Ok(is_triangle_input(
        stack.get(at + 1).map(|b| b.class),
        base_class,
    ))
}

/// The rule of `on_triangles` on the class directly below MeshSmooth (none
/// when it is the lowest modifier) and the base object's class.
fn is_triangle_input(below: Option<ClassId>, base: ClassId) -> bool {
    match below {
        Some(b) => b == UNWRAP_UVW || b == EDIT_MESH,
        None => base == EDITABLE_MESH,
    }
}

/// The polygons of a triangle mesh as MeshSmooth's "Operate On: Polygons"
/// sees them: the regions joined across hidden edges (`MakePolyMesh`).
fn hidden_edge_polygons(mesh: &Mesh) -> Result<Polys, EvalError> {
    let poly = as_max_converts(mesh)?;
    turbo_smooth::from_poly_mesh(&poly)
}

pub(super) fn apply(
    m: &Applied,
    local: Option<&Chunk>,
    mesh: &mut Mesh,
    cx: &ModContext,
) -> Result<(), EvalError> {
    let pb = pblock::reference(&cx.eval.graph, m.object, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    let s = settings(&primitive::block_params(cx.eval, pb, cx.t)?)?;
    check_local(local)?;
    check_mod_app_flags(m.mod_app)?;
    if s.iterations == 0 {
        return Ok(());
    }
    let (polys, left) = if on_triangles(m, cx)? {
        (hidden_edge_polygons(mesh)?, None)
    } else {
        turbo_smooth::polygon_input(m, mesh, cx)?
    };
    turbo_smooth::smooth_into(mesh, polys, left, s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::Value;
    use crate::eval::modifier::subdivide::Polys;

    /// A MeshSmooth block as every examined instance stores it.
    fn stored(iterations: i32, method: i32) -> Vec<Value> {
        let mut v = vec![Value::None; 30];
        v[0] = Value::Float(0.5);
        v[1] = Value::Float(0.0);
        v[2] = Value::Float(1.0);
        v[ITERATIONS] = Value::Int(iterations);
        v[METHOD] = Value::Int(method);
        v[13] = Value::Bool(false);
        v[14] = Value::Int(0);
        v[15] = Value::Bool(false);
        v[16] = Value::Float(1.0);
        v[22] = Value::Float(20.0);
        for (id, want) in SETTLED {
            v[id] = if matches!(id, 3 | 10 | 20 | 26 | 29) {
                Value::Int(want as i32)
            } else {
                Value::Bool(want != 0)
            };
        }
        v
    }

    #[test]
    fn nurms_at_the_stored_values_is_evaluated_and_the_rest_refused_by_name() {
        let s = settings(&Params::from_values(stored(2, 2))).unwrap();
        assert_eq!(
            s,
            Settings {
                iterations: 2,
                smooth_result: true,
                separate: Default::default(),
            }
        );
        for (method, word) in [(0, "Classic"), (1, "Quad Output")] {
            let e = settings(&Params::from_values(stored(1, method))).unwrap_err();
            assert!(e.to_string().contains(word), "{e}");
        }
        let mut v = stored(1, 2);
        v[SMOOTHNESS] = Value::Float(0.5);
        assert!(settings(&Params::from_values(v))
            .unwrap_err()
            .to_string()
            .contains("smoothness"));
        // Render values are not read.
        let mut v = stored(1, 2);
        v[13] = Value::Bool(true);
        v[14] = Value::Int(4);
        assert_eq!(settings(&Params::from_values(v)).unwrap().iterations, 1);
        // Any unidentified parameter off its known value is named.
        for (id, want) in SETTLED {
            let mut v = stored(1, 2);
            v[id] = Value::Int(want as i32 + 1);
            let e = settings(&Params::from_values(v)).unwrap_err();
            assert!(e.to_string().contains(&format!("parameter {id} ")), "{e}");
        }
        let mut v = stored(11, 2);
        assert!(settings(&Params::from_values(v.clone())).is_err());
        v[ITERATIONS] = Value::Int(-1);
        assert!(settings(&Params::from_values(v)).is_err());
    }

    #[test]
    fn local_control_tables_must_be_empty() {
        let table = |id: u16, words: &[u32]| {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            Chunk::leaf(id, bytes)
        };
        let zeros: Vec<u32> = std::iter::once(11).chain([0; 11]).collect();
        let ok = Chunk::container(
            0x2512,
            LOCAL_TABLES.iter().map(|&id| table(id, &zeros)).collect(),
        );
        check_local(Some(&ok)).unwrap();
        check_local(None).unwrap();
        // One value at level 1 (vertex 5 at 0.5).
        let mut edited = vec![11, 0, 1, 5, 0.5f32.to_bits()];
        edited.extend([0; 9]);
        let bad = Chunk::container(0x2512, vec![table(0x0540, &edited)]);
        let e = check_local(Some(&bad)).unwrap_err().to_string();
        assert!(
            e.contains("Local Control per-vertex values") && e.contains("1 at level 1"),
            "{e}"
        );
        // A count the table's words cannot hold is damaged data.
        let mut short_records = zeros.clone();
        short_records[3] = 2;
        let bad = Chunk::container(0x2512, vec![table(0x0540, &short_records)]);
        assert!(check_local(Some(&bad)).is_err());
        let short = Chunk::container(0x2512, vec![table(0x0530, &[11, 0])]);
        assert!(check_local(Some(&short)).is_err());
        let other = Chunk::container(0x2512, vec![table(0x0570, &[0])]);
        assert!(check_local(Some(&other)).is_err());
    }

    /// Spongie_guard.max's Box009 (rigsweep): 0x0560 holds 11 levels, two
    /// offsets at level 0 (control vertices 25 and 31), none above.
    #[test]
    fn local_control_offsets_are_decoded_and_refused_by_what_they_hold() {
        let mut words: Vec<u32> = vec![11, 2, 25];
        words.extend([-20.2514f32, 3.6881, -6.5146].map(f32::to_bits));
        words.push(31);
        words.extend([13.1066f32, 3.0409, 16.8859].map(f32::to_bits));
        words.extend([0; 10]);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let levels = local_edits(LOCAL_OFFSETS, &bytes).unwrap();
        assert_eq!(levels.len(), 11);
        assert_eq!(levels[0].len(), 2);
        assert_eq!(levels[0][1].0, 31);
        assert!((levels[0][1].1[2] - 16.8859).abs() < 1e-5);
        assert!(levels[1..].iter().all(Vec::is_empty));
        let e = check_local(Some(&Chunk::container(
            0x2512,
            vec![Chunk::leaf(LOCAL_OFFSETS, bytes.clone())],
        )))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("vertex offsets") && e.contains("2 at level 0"),
            "{e}"
        );
        assert!(e.contains("control vertices 25 … 31"), "{e}");
        // The same words as per-vertex values are not whole records.
        assert!(local_edits(LOCAL_VALUES, &bytes).is_err());
        // A count past the end, a level count past Max's 11, words left over.
        let mut long = words.clone();
        long[1] = 1_000_000;
        let b = |w: &[u32]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        assert!(local_edits(LOCAL_OFFSETS, &b(&long)).is_err());
        let mut levels12 = words.clone();
        levels12[0] = 12;
        assert!(local_edits(LOCAL_OFFSETS, &b(&levels12)).is_err());
        let mut extra = words.clone();
        extra.push(0);
        assert!(local_edits(LOCAL_OFFSETS, &b(&extra)).is_err());
        // A table whose layout is not read keeps the plain refusal.
        let other = b(&[11, 1, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        let e = edited(0x0530, &other).to_string();
        assert!(e.contains("layout is not decoded"), "{e}");
    }

    #[test]
    fn the_word_and_selection_after_the_tables_are_read() {
        let table = |id: u16, words: &[u32]| {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            Chunk::leaf(id, bytes)
        };
        let zeros: Vec<u32> = std::iter::once(11).chain([0; 11]).collect();
        // As Evan-Barry's hand files store them: 0x0600 = 0, then 123
        // control-vertex bits with one set.
        let selection = || {
            Chunk::container(
                LOCAL_SELECTION,
                vec![table(0x2700, &[123, 0, 0, 0x0001_0000, 0])],
            )
        };
        let with = |word: u32, sel: Chunk| {
            let mut c: Vec<Chunk> = LOCAL_TABLES.iter().map(|&id| table(id, &zeros)).collect();
            c.push(table(LOCAL_WORD, &[word]));
            c.push(sel);
            Chunk::container(0x2512, c)
        };
        check_local(Some(&with(0, selection()))).unwrap();
        let e = check_local(Some(&with(1, selection()))).unwrap_err();
        assert!(e.to_string().contains("0x0600"), "{e}");
        let two = Chunk::container(
            LOCAL_SELECTION,
            vec![table(0x2700, &[1, 0]), table(0x2700, &[1, 0])],
        );
        let e = check_local(Some(&with(0, two))).unwrap_err();
        assert!(e.to_string().contains("0x0608"), "{e}");
        // A bit array longer than its bytes is damaged data.
        let short = Chunk::container(LOCAL_SELECTION, vec![table(0x2700, &[123, 0])]);
        assert!(check_local(Some(&with(0, short))).is_err());
    }

    #[test]
    fn mod_app_flag_bit_0x20_is_refused_by_name() {
        let app = |word: u32| {
            Chunk::container(
                0x2500,
                vec![Chunk::leaf(MOD_APP_FLAGS, word.to_le_bytes().to_vec())],
            )
        };
        check_mod_app_flags(None).unwrap();
        check_mod_app_flags(Some(&app(0x0004_0140))).unwrap();
        let e = check_mod_app_flags(Some(&app(0x0004_0120))).unwrap_err();
        assert!(e.to_string().contains("0x2513"), "{e}");
    }

    /// A cube (corners ±1) as twelve triangles, each face's two sharing a
    /// hidden diagonal, as a triangle mesh below MeshSmooth holds it.
    fn cube_triangles() -> Mesh {
        use crate::eval::objects::mesh::Face;
        use crate::eval::objects::test_box::{box_corners, BOX_QUADS};
        let vertices = box_corners([-1.0; 3], [1.0; 3]);
        let mut faces = Vec::new();
        for q in BOX_QUADS {
            // (a b c) hides c→a, (a c d) hides a→c.
            faces.push(Face {
                v: [q[0], q[1], q[2]],
                smoothing: 0,
                material: 0,
                flags: 0b011,
            });
            faces.push(Face {
                v: [q[0], q[2], q[3]],
                smoothing: 0,
                material: 0,
                flags: 0b110,
            });
        }
        Mesh {
            vertices,
            faces,
            ..Mesh::default()
        }
    }

    #[test]
    fn a_triangle_mesh_is_smoothed_as_its_hidden_edge_polygons() {
        let polys = hidden_edge_polygons(&cube_triangles()).unwrap();
        assert_eq!(polys.start.len() - 1, 6, "six quads");
        assert_eq!(polys.corners.len(), 24);
        let s = Settings {
            iterations: 1,
            smooth_result: true,
            separate: Default::default(),
        };
        let m = turbo_smooth::smooth(polys, s).unwrap();
        // One step: V + E + F = 8 + 12 + 6 vertices, 24 quads.
        assert_eq!(m.vertices.len(), 26);
        assert_eq!(m.faces.len(), 48);
        // The cube's Catmull-Clark limit cage is symmetric: every vertex has
        // its mirror images and stays inside the cube.
        for v in &m.vertices {
            assert!(v.0.abs() <= 1.0 && v.1.abs() <= 1.0 && v.2.abs() <= 1.0);
            let has = |q: [f64; 3]| {
                m.vertices.iter().any(|w| {
                    (w.0 - q[0]).abs() < 1e-12
                        && (w.1 - q[1]).abs() < 1e-12
                        && (w.2 - q[2]).abs() < 1e-12
                })
            };
            assert!(has([-v.0, v.1, v.2]) && has([v.0, -v.1, v.2]) && has([v.0, v.1, -v.2]));
        }
        // Face centres of the cube move to Catmull-Clark's (±1 face point
        // stays on the face at distance 1): 6 of them at |coord| = 1.
        let face_points = m
            .vertices
            .iter()
            .filter(|v| {
                let a = [v.0.abs(), v.1.abs(), v.2.abs()];
                a.iter().filter(|&&x| (x - 1.0).abs() < 1e-12).count() == 1
                    && a.iter().filter(|&&x| x.abs() < 1e-12).count() == 2
            })
            .count();
        assert_eq!(face_points, 6);
        // Every edge visible: all polygons are triangles.
        let mut all_visible = cube_triangles();
        all_visible.faces.iter_mut().for_each(|f| f.flags = 0b111);
        let p = hidden_edge_polygons(&all_visible).unwrap();
        assert_eq!(p.start.len() - 1, 12);
    }

    /// Daminvar/Armagine's glove.max (Max 5): MeshSmooth as the only
    /// modifier on an Editable Mesh reads its triangles joined across hidden
    /// edges, as above an Unwrap UVW or an Edit Mesh; any other modifier
    /// below, or another base, is not this input.
    #[test]
    fn an_editable_mesh_right_below_is_read_as_hidden_edge_polygons() {
        use crate::eval::modifier::BEND;
        use crate::eval::objects::mesh::EDITABLE_POLY;
        assert!(is_triangle_input(None, EDITABLE_MESH));
        assert!(is_triangle_input(Some(UNWRAP_UVW), EDITABLE_POLY));
        assert!(is_triangle_input(Some(EDIT_MESH), EDITABLE_MESH));
        assert!(!is_triangle_input(Some(BEND), EDITABLE_MESH));
        assert!(!is_triangle_input(None, EDITABLE_POLY));
    }

    /// A box of 2 × 2 × 2 segments as Max's Editable Mesh stores it: 26
    /// vertices, 48 triangles, each pair of a quad joined by a hidden
    /// diagonal. One NURMS step over its 24 quads gives V + E + F vertices
    /// and 4 F quads, the counts Max's Mesh Totals hold for glove.max's two
    /// smoothed boxes (538 + 1072 + 536 = 2146 vertices and 2144 faces
    /// each, where its two boxes at 0 iterations count 536 polygons).
    #[test]
    fn a_segmented_box_smooths_to_v_plus_e_plus_f_vertices() {
        let mesh = segmented_box();
        assert_eq!((mesh.vertices.len(), mesh.faces.len()), (26, 48));
        let polys = hidden_edge_polygons(&mesh).unwrap();
        assert_eq!(polys.start.len() - 1, 24, "24 quads");
        assert_eq!(polys.corners.len(), 96);
        let s = Settings {
            iterations: 1,
            smooth_result: true,
            separate: Default::default(),
        };
        let m = turbo_smooth::smooth(polys, s).unwrap();
        // E = V + F − 2 = 26 + 24 − 2 = 48 edges.
        assert_eq!(m.vertices.len(), 26 + 48 + 24);
        assert_eq!(m.faces.len(), 2 * 96);
    }

    /// The box [-1, 1]³ with two segments on each side: a 3 × 3 vertex grid
    /// per side, shared along the box's edges, each grid square two
    /// triangles with the diagonal hidden.
    fn segmented_box() -> Mesh {
        use crate::eval::core::math::Vec3;
        use crate::eval::objects::mesh::Face;
        let mut vertices: Vec<Vec3> = Vec::new();
        let mut index = |p: [i32; 3]| -> u32 {
            let q = Vec3(f64::from(p[0]), f64::from(p[1]), f64::from(p[2]));
            match vertices.iter().position(|v| *v == q) {
                Some(i) => i as u32,
                None => {
                    vertices.push(q);
                    (vertices.len() - 1) as u32
                }
            }
        };
        let mut faces = Vec::new();
        // Each side: the axis it faces, its sign, and two in-plane axes
        // ordered so (u, v, normal) is right-handed.
        for (n, u, v) in [(0, 1, 2), (1, 2, 0), (2, 0, 1)] {
            for sign in [-1, 1] {
                for i in 0..2 {
                    for j in 0..2 {
                        let at = |a: i32, b: i32| {
                            let mut p = [0; 3];
                            p[n] = sign;
                            p[u] = a - 1;
                            p[v] = b - 1;
                            p
                        };
                        let mut c = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
                        if sign < 0 {
                            c.reverse();
                        }
                        let k = c.map(&mut index);
                        // Sides 0-1 and 1-2 shown, 2-0 (the diagonal) hidden.
                        for v in [[k[0], k[1], k[2]], [k[2], k[3], k[0]]] {
                            faces.push(Face {
                                v,
                                smoothing: 0,
                                material: 0,
                                flags: 0b011,
                            });
                        }
                    }
                }
            }
        }
        Mesh {
            vertices,
            faces,
            ..Mesh::default()
        }
    }

    /// A square pyramid (apex up) as four triangles and a quad base.
    fn pyramid() -> Polys {
        Polys {
            vertices: vec![
                [-1.0, -1.0, 0.0],
                [1.0, -1.0, 0.0],
                [1.0, 1.0, 0.0],
                [-1.0, 1.0, 0.0],
                [0.0, 0.0, 2.0],
            ],
            start: vec![0, 3, 6, 9, 12, 16],
            corners: vec![0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4, 0, 3, 2, 1],
            material: vec![1, 1, 1, 1, 2],
            smoothing: vec![0; 5],
            maps: Vec::new(),
            edges: None,
        }
    }

    #[test]
    fn nurms_of_a_pyramid_counts_symmetry_and_hull() {
        let s = Settings {
            iterations: 2,
            smooth_result: true,
            separate: Default::default(),
        };
        let polys = pyramid();
        let corners = polys.corners.len();
        let m = turbo_smooth::smooth(polys, s).unwrap();
        // 16 corners: 16 quads after one step, 64 after two, as triangles.
        assert_eq!(m.faces.len(), 2 * turbo_smooth::result_quads(corners, 2));
        assert_eq!(m.faces.len(), 128);
        // Closed, genus 0: V − E + F = 2 over the 64 quads (E = 128).
        assert_eq!(m.vertices.len(), 2 + 128 - 64);
        assert!(m.faces.iter().all(|f| f.smoothing == 1));
        // Inside the cage's hull: above the base, below the apex, and inside
        // each sloped face's plane (|x| + z/2 ≤ 1 and |y| + z/2 ≤ 1).
        for v in &m.vertices {
            assert!(v.2 >= -1e-12 && v.2 <= 2.0);
            assert!(v.0.abs() + v.2 / 2.0 <= 1.0 + 1e-12);
            assert!(v.1.abs() + v.2 / 2.0 <= 1.0 + 1e-12);
        }
        // Mirror symmetric in x and in y: every vertex has its mirror images.
        let has = |q: [f64; 3]| {
            m.vertices.iter().any(|v| {
                (v.0 - q[0]).abs() < 1e-9 && (v.1 - q[1]).abs() < 1e-9 && (v.2 - q[2]).abs() < 1e-9
            })
        };
        for v in &m.vertices {
            assert!(has([-v.0, v.1, v.2]) && has([v.0, -v.1, v.2]) && has([v.1, v.0, v.2]));
        }
    }

    /// A quad stored as two triangles (2, 3, 0), (0, 1, 2) with the
    /// diagonal 0–2 hidden: Max's conversion (`poly_make`) numbers the sides
    /// by first use over the triangles, (2, 3), (3, 0), (0, 1), (1, 2), the
    /// diagonal left out, and the edge points follow that order (as the
    /// Unwrap caches above MeshSmooth on Spongie_guard's Box011 and Box012
    /// show for all 223 edge points): corner 0's quad is (0, 5 + 2, 4,
    /// 5 + 1).
    #[test]
    fn a_converted_triangle_mesh_numbers_its_edges_by_first_use_over_triangles() {
        use crate::eval::core::math::Vec3;
        use crate::eval::objects::mesh::Face;
        let face = |v: [u32; 3], flags: u16| Face {
            v,
            smoothing: 1,
            material: 0,
            flags,
        };
        let mesh = Mesh {
            vertices: vec![
                Vec3(0.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(1.0, 1.0, 0.0),
                Vec3(0.0, 1.0, 0.0),
            ],
            faces: vec![face([2, 3, 0], 0b011), face([0, 1, 2], 0b011)],
            ..Default::default()
        };
        let polys = hidden_edge_polygons(&mesh).expect("one quad");
        assert_eq!(polys.face_count(), 1);
        assert_eq!(
            polys.edges.as_deref(),
            Some(&[[2, 3], [3, 0], [0, 1], [1, 2]][..])
        );
        let s = polys.subdivide().expect("step");
        let at = polys
            .corners
            .iter()
            .position(|&v| v == 0)
            .expect("corner 0");
        let q = &s.corners[4 * at..4 * at + 4];
        assert_eq!(q, &[0, 5 + 2, 4, 5 + 1]);
    }
}
