//! The Loft compound object (class 0x10b0, 0): a cross-section shape swept
//! along a path shape.
//!
//! Layout, from the Lofts of Buwaka/Level-editing-2 (12 files, 19 Lofts):
//! references 0–7 are the eight deformation curves ("Deform Curve" 0x1036),
//! 8 the path's shape object and 9 the cross-section's (the shape objects
//! themselves, not their nodes: the Loft sits in the path's object space).
//! Further shapes on the path are references 10, 11, … (one per distinct
//! shape object: MAXScript gives a Loft one sub-anim per shape object).
//! Chunk 0x08FF counts these shape references (path included: 2 with one
//! shape, 3 in GreejeshGajera's Loft_1/Loft_2 with two shape objects, 6 in
//! Loft_3/Loft_4 and Toothpaste with five), 0x097E the shapes placed on the
//! path and 0x0988 is one such placement (`PathShape`). The skin, surface
//! and path settings are top-level chunks with ids not documented publicly;
//! every public single-shape Loft found so far holds the same values (Max's
//! defaults: shape and path steps 5, both caps, morph capping, no mapping,
//! no deformation), so only Lofts whose settings chunks hold exactly these
//! values are evaluated (`DEFAULTS`); any other value is refused naming its
//! chunk, as is more than one shape on the path (Max's Mesh Totals pin only
//! the counts there, docs/evaluation.md) and a shape transformed on the path.
//!
//! The mesh, as the Unwrap UVW caches of its input pin it (Door9.max's
//! "Light Left", sidewalk 03.max's Loft001, vertex for vertex):
//! - the path (one open spline) is divided at its knots and, in each
//!   segment, at 5 more points evenly spaced in the Bezier parameter;
//! - at each level the section (one closed spline, interpolated with 5 steps
//!   per segment, no optimisation) is placed with its pivot on the path, its
//!   local Z along the path's tangent, its local Y along the path's local +Z
//!   (the path must lie in a plane parallel to its XY plane) and its X = Y × Z;
//! - at a knot between two segments the tangent is the chord between the
//!   points 0.01 of a segment before and after it (Door9's smooth knot, where
//!   the exact derivative is 2.4e-3 rad off); elsewhere the derivative;
//! - vertices level by level, each level the section's points in order;
//!   per band and section segment the quad (a, b, c, d) = (i, i+1, i+1 a
//!   level up, i a level up) as triangles (a, b, c) and (c, d, a) with the
//!   diagonal hidden (Max's poly conversion gives the cache's quads), material
//!   0; then the start cap (facing back along the path, material 1) and the
//!   end cap (material 0), morph caps over the levels' own points.
//!
//! "Constant cross-section" (on in every public Loft): at each inner level the
//! section's X is scaled by 1 / cos(θ/2), θ the turn between the path's
//! chords to the previous and the next level (Door9's rings widen by 1.0009
//! to 1.0252 exactly so). A path turning by more than 1° at a knot (a real
//! corner) is refused: no reference shows where Max puts the shape there.

use crate::chunk::Chunk;
use crate::eval::core::math::Vec3;
use crate::eval::core::pblock;
use crate::eval::error::EvalError;
use crate::eval::modifier::extrude;
use crate::eval::objects::mesh::{Face, Mesh};
use crate::eval::objects::shape::{self, BezierShape, PolyLine, Spline, Steps, Straightness};
use crate::eval::SceneEval;
use crate::typed::ClassId;

pub const LOFT: ClassId = ClassId(0x10b0, 0);

/// Reference slot of the path shape.
const PATH_REF: u32 = 8;
/// Reference slot of the (single) cross-section shape.
const SHAPE_REF: u32 = 9;
/// Shape and path steps of every evaluated Loft (chunk 0x0A82).
const STEPS: u32 = 5;
/// Half-width, in segment parameter, of the chord giving the tangent at an
/// inner knot.
const KNOT_CHORD: f64 = 0.01;
/// Largest turn of the path at a knot (between the segments' tangents there)
/// accepted: Door9's "Light Left" turns by 0.94° at a corner knot; sharper
/// corners are not in any reference.
const MAX_CORNER_TURN: f64 = std::f64::consts::PI / 180.0;
/// Mesh vertices a Loft may make at most (damaged shapes).
const MAX_VERTICES: usize = 1 << 23;
/// Material (0-based) of the side faces, the start cap and the end cap, as the
/// caches hold them.
const SIDE_MATERIAL: u16 = 0;
const START_MATERIAL: u16 = 1;
const END_MATERIAL: u16 = 0;

/// Top-level settings chunks and the payload every evaluated Loft holds
/// (the public Lofts' values, Max's defaults).
const DEFAULTS: &[(u16, &[u8])] = &[
    (0x08FC, &[0xc8, 0, 0, 0]),
    (0x096A, &[0, 0, 0, 0]),
    (0x0A8C, &[]),
    (0x0992, &[0, 0, 0, 0]),
    (0x099C, &[0, 0, 0, 0]),
    (0x09A6, &[1, 0, 0, 0]),
    (0x0A50, &[0, 0, 0x48, 0x43]),
    (0x0A5A, &[1, 0, 0, 0]),
    (0x0A5F, &[0, 0, 0, 0]),
    (0x0A60, &[0, 0, 0, 0]),
    (0x0A61, &[0, 0, 0, 0]),
    (0x0A64, &[1, 0, 0, 0]),
    (0x0A6E, &[1, 0, 0, 0]),
    (0x0A78, &[0, 0, 0, 0]),
    (0x0A82, &[5, 0, 0, 0, 5, 0, 0, 0]),
    (
        0x0A96,
        &[0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0x80, 0x3f],
    ),
    (0x0A9B, &[0, 0, 0, 0]),
    (0x0A9C, &[1, 0, 0, 0]),
    (0x0AA0, &[1, 0, 0, 0, 1, 0, 0, 0]),
    (0x0AAA, &[1, 0, 0, 0, 1, 0, 0, 0]),
    (0x0ABE, &[0, 0, 0x20, 0x41]),
    (0x0AC3, &[1, 0, 0, 0]),
    (0x0AC8, &[1, 0, 0, 0]),
    (0x0AD2, &[0, 0, 0, 0]),
    (0x0900, &[]),
    (0x0906, &[]),
    (0x0ADC, &[0, 0, 0, 0]),
    (0x0AE6, &[0, 0, 0, 0]),
    (0x0AF0, &[1, 0, 0, 0, 1, 0, 0, 0]),
    (0x0AFA, &[0, 0, 0, 0]),
];

/// Chunks of the five deformation records (0x0091A after an index 0x0910)
/// as every evaluated Loft holds them; 0x041A is left out (it holds
/// uninitialised memory: pointers that differ between saves).
const DEFORM_DEFAULTS: &[(u16, &[u8])] = &[
    (0x03E8, &[1, 0, 0, 0]),
    (0x03F2, &[0, 0, 0, 0]),
    (0x0406, &[0, 0, 0x80, 0x3f, 0, 0, 0x80, 0x3f, 0, 0, 0, 0]),
    (0x0410, &[0; 12]),
];

/// Whether `class` is the Loft compound object.
pub fn is_loft(class: ClassId) -> bool {
    class == LOFT
}

fn refuse(what: String) -> EvalError {
    EvalError::not_evaluated_why(
        what,
        "only the settings of the public Lofts Max's results were checked against are evaluated",
    )
}

/// Checks that the Loft's settings chunks hold the verified values;
/// `shape_refs` is the number of its shape references (path included).
fn check_settings(chunks: &[Chunk], shape_refs: usize) -> Result<(), EvalError> {
    let shapes = path_shapes(chunks)?;
    let count = |id: u16| {
        chunks
            .iter()
            .find(|c| c.id == id)
            .and_then(Chunk::payload)
            .and_then(|p| p.try_into().ok())
            .map(u32::from_le_bytes)
    };
    if count(0x097E) != Some(shapes.len() as u32) {
        return Err(EvalError::malformed(
            "Loft",
            format!(
                "chunk 0x097E = {:?} for {} shapes on the path (chunk 0x0988)",
                count(0x097E),
                shapes.len()
            ),
        ));
    }
    if count(0x08FF) != Some(shape_refs as u32) {
        return Err(EvalError::malformed(
            "Loft",
            format!(
                "chunk 0x08FF = {:?} for {shape_refs} shape references",
                count(0x08FF)
            ),
        ));
    }
    check_path_shapes(&shapes)?;
    let mut deform = 0;
    for c in chunks {
        match c.id {
            // References, flags (0x204B; 0x2045 in the files of Max 8, where
            // every object of gitsheny's test.max carries it), the
            // shape-placement record (0x0974: a matrix Max keeps for the
            // shape at level 0; the mesh follows the path, not it), the
            // custom-attribute container, and the shape counts and list
            // checked above.
            0x2034 | 0x204B | 0x2045 | 0x2150 | 0x0974 | 0x0988 | 0x097E | 0x08FF => {}
            0x0AB4 => {
                let v = c
                    .children()
                    .iter()
                    .find(|k| k.id == 0x03E8)
                    .and_then(Chunk::payload);
                if v != Some(&[0x9a, 0x99, 0x99, 0x3e][..]) {
                    return Err(refuse(format!("Loft with chunk 0x0AB4 = {v:02x?}")));
                }
            }
            0x0910 => {
                let p = c.payload().unwrap_or(&[]);
                if p != (deform as u32).to_le_bytes() {
                    return Err(refuse(format!("Loft with deformation record {p:02x?}")));
                }
                deform += 1;
            }
            0x091A => {
                for (id, want) in DEFORM_DEFAULTS {
                    let got = c
                        .children()
                        .iter()
                        .find(|k| k.id == *id)
                        .and_then(Chunk::payload);
                    if got != Some(*want) {
                        return Err(refuse(format!(
                            "Loft with deformation settings (chunk 0x091A/{id:#06x} = {got:02x?})"
                        )));
                    }
                }
            }
            id => match DEFAULTS.iter().find(|(d, _)| *d == id) {
                Some((_, want)) => {
                    let got = c.payload().unwrap_or(&[]);
                    if got != *want {
                        return Err(refuse(format!(
                            "Loft with setting chunk {id:#06x} = {got:02x?} (checked: {want:02x?})"
                        )));
                    }
                }
                None => return Err(refuse(format!("Loft with chunk {id:#06x}"))),
            },
        }
    }
    if deform != 5 {
        return Err(refuse(format!("Loft with {deform} deformation records")));
    }
    Ok(())
}

/// One shape placed on the Loft's path (chunk 0x0988: 0x03E8 { 0x03ED
/// { 0x03E8 matrix, 0x03F2 flags }, 0x03F2 shape, 0x03FC }, 0x03F2 level).
#[derive(Debug, Clone, PartialEq)]
pub struct PathShape {
    /// Which shape: 1 for reference 9, 2 for reference 10, …
    pub shape: u32,
    /// Where on the path, as a fraction of it (0 = its start).
    pub level: f32,
    /// The shape's own transform on the path (a 3×4 matrix, rows X, Y, Z,
    /// translation), as rotating or scaling the shape at the Loft's Shape
    /// sub-object level leaves it.
    pub matrix: [f32; 12],
    /// Max's matrix flags: 1 no translation, 2 no rotation, 4 no scale
    /// (7 with the identity, 3 in Loft_4's shape scaled by 1.153, 1.153,
    /// 0.867, 0 in the rotated ones).
    pub flags: u32,
    /// Chunk 0x03FC (12 zero bytes in every public Loft).
    pub extra: Vec<u8>,
}

impl PathShape {
    /// The identity placement the public single-shape Lofts hold (flags 7).
    pub const IDENTITY: [f32; 12] = [1., 0., 0., 0., 1., 0., 0., 0., 1., 0., 0., 0.];

    /// The placement as chunk 0x0988, as Max writes it (the inverse of
    /// [`path_shapes`]; tests build Lofts with it).
    pub fn to_chunk(&self) -> Chunk {
        let m: Vec<u8> = self.matrix.iter().flat_map(|v| v.to_le_bytes()).collect();
        let transform = Chunk::container(
            0x03ED,
            vec![
                Chunk::leaf(0x03E8, m),
                Chunk::leaf(0x03F2, self.flags.to_le_bytes().to_vec()),
            ],
        );
        let entry = Chunk::container(
            0x03E8,
            vec![
                transform,
                Chunk::leaf(0x03F2, self.shape.to_le_bytes().to_vec()),
                Chunk::leaf(0x03FC, self.extra.clone()),
            ],
        );
        Chunk::container(
            0x0988,
            vec![
                entry,
                Chunk::leaf(0x03F2, self.level.to_le_bytes().to_vec()),
            ],
        )
    }

    /// Whether the shape sits on the path untransformed.
    pub fn untransformed(&self) -> bool {
        self.flags & 7 == 7 && self.matrix == Self::IDENTITY
    }
}

fn child(c: &Chunk, id: u16) -> Option<&Chunk> {
    c.children().iter().find(|k| k.id == id)
}

fn word(c: Option<&Chunk>) -> Option<[u8; 4]> {
    c.and_then(Chunk::payload).and_then(|p| p.try_into().ok())
}

/// The shapes on the path, in the order of their 0x0988 chunks.
pub fn path_shapes(chunks: &[Chunk]) -> Result<Vec<PathShape>, EvalError> {
    let bad = |what: &str| EvalError::malformed("Loft shape list (chunk 0x0988)", what.to_string());
    chunks
        .iter()
        .filter(|c| c.id == 0x0988)
        .map(|c| {
            let entry = child(c, 0x03E8).ok_or_else(|| bad("no entry 0x03E8"))?;
            let tm = child(entry, 0x03ED).ok_or_else(|| bad("no transform 0x03ED"))?;
            let m = child(tm, 0x03E8)
                .and_then(Chunk::payload)
                .filter(|p| p.len() == 48)
                .ok_or_else(|| bad("transform matrix not 48 bytes"))?;
            let mut matrix = [0f32; 12];
            for (v, b) in matrix.iter_mut().zip(m.chunks_exact(4)) {
                *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            Ok(PathShape {
                shape: word(child(entry, 0x03F2))
                    .map(u32::from_le_bytes)
                    .ok_or_else(|| bad("no shape index"))?,
                level: word(child(c, 0x03F2))
                    .map(f32::from_le_bytes)
                    .ok_or_else(|| bad("no path level"))?,
                matrix,
                flags: word(child(tm, 0x03F2))
                    .map(u32::from_le_bytes)
                    .ok_or_else(|| bad("no transform flags"))?,
                extra: child(entry, 0x03FC)
                    .and_then(Chunk::payload)
                    .unwrap_or(&[])
                    .to_vec(),
            })
        })
        .collect()
}

/// The placements the evaluator follows: one untransformed shape at the
/// path's start (every single-shape public Loft Max's results were checked
/// against).
fn check_path_shapes(shapes: &[PathShape]) -> Result<(), EvalError> {
    match shapes {
        [one] => {
            if !one.untransformed() {
                return Err(EvalError::not_evaluated_why(
                    format!(
                        "Loft whose shape is transformed on the path (chunk 0x0988 matrix {:?}, flags {})",
                        one.matrix, one.flags
                    ),
                    "no reference shows how Max applies a shape's own rotation or scale on the path",
                ));
            }
            if one.shape != 1 || one.level != 0.0 || one.extra != [0; 12] {
                return Err(refuse(format!(
                    "Loft whose shape list (chunk 0x0988) differs from a single shape at level 0 ({one:?})"
                )));
            }
            Ok(())
        }
        [] => Err(EvalError::malformed(
            "Loft",
            "no shape on the path (chunk 0x0988)",
        )),
        many => {
            let levels: Vec<String> = many
                .iter()
                .map(|s| format!("shape {} at {:.2}%", s.shape, f64::from(s.level) * 100.0))
                .collect();
            Err(EvalError::not_evaluated_why(
                format!(
                    "Loft with {} shapes on the path ({})",
                    many.len(),
                    levels.join(", ")
                ),
                "the sections Max makes between two shapes and from shapes of differing point counts are not pinned by any reference (Max's Mesh Totals pin only the counts)",
            ))
        }
    }
}

/// The one spline of shape object `obj` (Lofts of several splines refused).
fn single_spline(se: &SceneEval, obj: usize, t: i32, what: &str) -> Result<Spline, EvalError> {
    let s = shape::eval_shape(se, obj, t).map_err(|e| EvalError::from(e).inside(what))?;
    let b = s.shape.as_ref().ok_or_else(|| {
        EvalError::not_evaluated(format!("Loft {what} of class {} (no splines)", s.class))
    })?;
    match b.splines.as_slice() {
        [one] => Ok(one.clone()),
        many => Err(EvalError::not_evaluated(format!(
            "Loft {what} of {} splines",
            many.len()
        ))),
    }
}

fn bezier(c: &[Vec3; 4], u: f64) -> Vec3 {
    let v = 1.0 - u;
    c[0].scale(v * v * v)
        .plus(c[1].scale(3.0 * v * v * u))
        .plus(c[2].scale(3.0 * v * u * u))
        .plus(c[3].scale(u * u * u))
}

fn bezier_derivative(c: &[Vec3; 4], u: f64) -> Vec3 {
    let v = 1.0 - u;
    c[1].minus(c[0])
        .scale(3.0 * v * v)
        .plus(c[2].minus(c[1]).scale(6.0 * v * u))
        .plus(c[3].minus(c[2]).scale(3.0 * u * u))
}

/// An open path's points: segment `i` at parameter `u` (a straight "line"
/// segment is its chord).
struct Path<'a> {
    s: &'a Spline,
}

impl Path<'_> {
    fn controls(&self, i: usize) -> ([Vec3; 4], bool) {
        (self.s.segment(i), self.s.knots[i].line)
    }

    fn point(&self, i: usize, u: f64) -> Vec3 {
        let (c, line) = self.controls(i);
        if line {
            c[0].plus(c[3].minus(c[0]).scale(u))
        } else {
            bezier(&c, u)
        }
    }

    fn derivative(&self, i: usize, u: f64) -> Vec3 {
        let (c, line) = self.controls(i);
        let d = if line {
            c[3].minus(c[0])
        } else {
            bezier_derivative(&c, u)
        };
        if d.len() > 0.0 {
            d
        } else {
            // A handle on its knot: the direction the curve leaves in.
            c[3].minus(c[0])
        }
    }
}

/// The mesh of Loft object `obj` at `t`, in its (the path's) object space.
pub fn eval(se: &SceneEval, obj: usize, t: i32) -> Result<Mesh, EvalError> {
    let refs = &se
        .graph
        .objects
        .get(obj)
        .ok_or_else(|| EvalError::reference("", format!("no object {obj}")))?
        .references;
    let shape_refs = refs
        .iter()
        .filter(|r| r.slot >= PATH_REF && r.target >= 0)
        .count();
    check_settings(se.chunks(obj), shape_refs)?;
    if let Some(r) = refs.iter().find(|r| r.slot > SHAPE_REF && r.target >= 0) {
        return Err(EvalError::not_evaluated(format!(
            "Loft with a reference in slot {} (more than one shape on the path)",
            r.slot
        )));
    }
    let path_obj = pblock::reference(&se.graph, obj, PATH_REF)
        .ok_or_else(|| EvalError::reference("", "no path (reference 8)"))?;
    let shape_obj = pblock::reference(&se.graph, obj, SHAPE_REF)
        .ok_or_else(|| EvalError::reference("", "no shape (reference 9)"))?;
    let path = single_spline(se, path_obj, t, "path")?;
    let section = single_spline(se, shape_obj, t, "shape")?;
    build(&path, &section)
}

/// Builds the Loft mesh of `section` swept along `path` (see the module
/// documentation).
pub fn build(path: &Spline, section: &Spline) -> Result<Mesh, EvalError> {
    if path.closed {
        return Err(EvalError::not_evaluated("Loft along a closed path"));
    }
    if path.knots.len() < 2 {
        return Err(EvalError::malformed(
            "path",
            format!("{} knots", path.knots.len()),
        ));
    }
    if !section.closed {
        return Err(EvalError::not_evaluated("Loft of an open shape"));
    }
    // The path in a plane parallel to its XY plane: "up" is its +Z.
    let size = path
        .knots
        .iter()
        .flat_map(|k| [k.point, k.in_vec, k.out_vec])
        .map(|p| p.len())
        .fold(0.0, f64::max)
        .max(1e-30);
    let z0 = path.knots[0].point.2;
    if path
        .knots
        .iter()
        .flat_map(|k| [k.point, k.in_vec, k.out_vec])
        .any(|p| (p.2 - z0).abs() > 1e-6 * size)
    {
        return Err(EvalError::not_evaluated_why(
            "Loft along a path that leaves its XY plane",
            "how Max orients the shape about such a path is not verified",
        ));
    }
    let lines = BezierShape {
        splines: vec![section.clone()],
        steps: Steps::Fixed(STEPS),
        optimize: false,
        straightness: Straightness::Deviation,
    }
    .polylines()
    .map_err(|e| EvalError::from(e).inside("Loft shape"))?;
    let line: PolyLine = match lines.as_slice() {
        [l] if l.pts.len() >= 3 => l.clone(),
        _ => return Err(EvalError::malformed("Loft shape", "fewer than 3 points")),
    };
    let ssize = line.pts.iter().map(|p| p.p.len()).fold(0.0, f64::max);
    if line
        .pts
        .iter()
        .any(|p| p.p.2.abs() > 1e-6 * ssize.max(1e-30))
    {
        return Err(EvalError::not_evaluated(
            "Loft of a shape not in its XY plane",
        ));
    }
    if line.signed_area_xy() <= 0.0 {
        return Err(EvalError::not_evaluated_why(
            "Loft of a shape drawn clockwise",
            "the side and cap orientation Max gives it is not verified",
        ));
    }
    let p = Path { s: path };
    let segs = path.segments();
    let per = STEPS as usize + 1;
    let mut levels: Vec<(Vec3, Vec3)> = Vec::new();
    let up = Vec3(0.0, 0.0, 1.0);
    for i in 0..segs {
        for j in 0..per {
            let u = j as f64 / per as f64;
            let at = p.point(i, u);
            let tangent = if j == 0 && i > 0 {
                // An inner knot: the chord across it.
                let din = p.derivative(i - 1, 1.0).normalized();
                let dout = p.derivative(i, 0.0).normalized();
                let turn = din.dot(dout).clamp(-1.0, 1.0).acos();
                if turn > MAX_CORNER_TURN || !turn.is_finite() {
                    return Err(EvalError::not_evaluated_why(
                        format!(
                            "Loft whose path turns by {:.2}° at its knot {i}",
                            turn.to_degrees()
                        ),
                        "how Max places the shape at a path corner is not verified",
                    ));
                }
                p.point(i, KNOT_CHORD)
                    .minus(p.point(i - 1, 1.0 - KNOT_CHORD))
            } else {
                p.derivative(i, u)
            };
            levels.push((at, tangent));
        }
    }
    levels.push((p.point(segs - 1, 1.0), p.derivative(segs - 1, 1.0)));
    let n = line.pts.len();
    if n.saturating_mul(levels.len()) > MAX_VERTICES {
        return Err(EvalError::limit("Loft vertices", MAX_VERTICES));
    }
    let mut mesh = Mesh::default();
    for (k, (at, tangent)) in levels.iter().enumerate() {
        let z = tangent.normalized();
        if tangent.len() == 0.0 || z.2.abs() > 1e-6 {
            return Err(EvalError::not_evaluated(
                "Loft along a path with a degenerate tangent",
            ));
        }
        let y = up;
        let x = y.cross(z).normalized();
        // Constant cross-section: the section widened across the bend by
        // 1 / cos(half the turn between the path's chords either side).
        let stretch = match (k.checked_sub(1), levels.get(k + 1)) {
            (Some(prev), Some((next, _))) => {
                let a = at.minus(levels[prev].0).normalized();
                let b = next.minus(*at).normalized();
                let half = a.dot(b).clamp(-1.0, 1.0).acos() / 2.0;
                1.0 / half.cos()
            }
            _ => 1.0,
        };
        if !stretch.is_finite() {
            return Err(EvalError::malformed("Loft path", "two levels coincide"));
        }
        for q in &line.pts {
            mesh.vertices
                .push(at.plus(x.scale(q.p.0 * stretch)).plus(y.scale(q.p.1)));
        }
    }
    let n32 = n as u32;
    for level in 0..levels.len() - 1 {
        let base = (level * n) as u32;
        for i in 0..n32 {
            let a = base + i;
            let b = base + (i + 1) % n32;
            let (c, d) = (b + n32, a + n32);
            for v in [[a, b, c], [c, d, a]] {
                mesh.faces.push(Face {
                    v,
                    smoothing: 1,
                    material: SIDE_MATERIAL,
                    flags: 0b011,
                });
            }
        }
    }
    let (hier, organized) = shape::organize(std::slice::from_ref(&line));
    if organized.len() != 1 || organized[0].pts != line.pts {
        return Err(EvalError::malformed(
            "Loft shape",
            "its outline is reordered for capping",
        ));
    }
    let last = levels.len() - 1;
    for (start, material) in [(true, START_MATERIAL), (false, END_MATERIAL)] {
        let level = if start { 0 } else { last };
        extrude::cap(
            &mut mesh,
            &organized,
            &hier,
            |_, k| (level * n + k) as u32,
            start,
            material,
        );
    }
    Ok(mesh)
}

/// The Loft's mesh as a poly modifier above it receives it: Max converts its
/// triangles as any mesh's (`SetFromTri`, `MakePolyMesh`), the side quads
/// joined across their hidden diagonals and each cap one polygon.
pub fn as_poly(tri: &Mesh) -> Result<crate::eval::objects::poly::PolyMesh, EvalError> {
    crate::eval::objects::poly_make::as_max_converts(tri).map_err(|e| e.inside("Loft"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::shape::Knot;
    use std::collections::HashMap;

    /// A square of side 2 about the origin, counter-clockwise, corner knots.
    fn square() -> Spline {
        let mut s = Spline {
            knots: [(1.0, -1.0), (1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0)]
                .iter()
                .map(|&(x, y)| Knot::corner(Vec3(x, y, 0.0)))
                .collect(),
            closed: true,
        };
        s.compute_corners();
        s
    }

    /// An open path in its XY plane: a straight segment then a quarter turn.
    fn path() -> Spline {
        let mut a = Knot::corner(Vec3(0.0, 0.0, 0.0));
        a.out_vec = Vec3(10.0, 0.0, 0.0);
        let b = Knot::bezier(
            Vec3(30.0, 0.0, 0.0),
            Vec3(20.0, 0.0, 0.0),
            Vec3(40.0, 0.0, 0.0),
        );
        let c = Knot::bezier(
            Vec3(50.0, 20.0, 0.0),
            Vec3(50.0, 10.0, 0.0),
            Vec3(50.0, 30.0, 0.0),
        );
        Spline {
            knots: vec![a, b, c],
            closed: false,
        }
    }

    #[test]
    fn levels_times_points_vertices_and_a_closed_surface() {
        let m = build(&path(), &square()).expect("loft");
        // 2 segments × 6 levels + the end; 4 segments × 6 points per section.
        let (levels, n) = (13, 24);
        assert_eq!(m.vertices.len(), levels * n);
        // Sides: 2 triangles per quad; each cap a triangulated 24-gon.
        assert_eq!(m.faces.len(), 2 * n * (levels - 1) + 2 * (n - 2));
        // Closed: every edge is used once in each direction.
        let mut edges: HashMap<(u32, u32), i32> = HashMap::new();
        for f in &m.faces {
            for e in 0..3 {
                *edges.entry((f.v[e], f.v[(e + 1) % 3])).or_default() += 1;
            }
        }
        for (&(a, b), &k) in &edges {
            assert_eq!(k, 1, "edge {a}-{b}");
            assert_eq!(edges.get(&(b, a)), Some(&1), "edge {a}-{b} has no twin");
        }
    }

    #[test]
    fn sections_are_perpendicular_to_the_path_and_upright() {
        let p = path();
        let m = build(&p, &square()).expect("loft");
        let n = 24;
        let path = Path { s: &p };
        for level in 0..13 {
            let (i, j) = (level / 6, level % 6);
            let (i, u) = if i == 2 {
                (1, 1.0)
            } else {
                (i, j as f64 / 6.0)
            };
            let at = path.point(i, u);
            let t = path.derivative(i, u).normalized();
            let ring = &m.vertices[level * n..(level + 1) * n];
            for v in ring {
                let d = v.minus(at);
                // Inside a segment the section is exactly perpendicular; at
                // the smooth knot 1 (level 6) the tangent is the chord.
                let tol = if level == 6 { 1e-2 } else { 1e-9 };
                assert!(d.dot(t).abs() < tol, "level {level}: {}", d.dot(t));
                // Within the square's half-diagonal of the path (widened
                // on the curve by the constant cross-section, by little).
                assert!(d.len() <= 2f64.sqrt() * 1.05);
            }
            // The section's +Y (its knot 1 at (1, 1)) keeps to the path's +Z.
            let k1 = ring[6].minus(at);
            assert!((k1.2 - 1.0).abs() < 1e-9, "level {level}: {k1:?}");
        }
    }

    #[test]
    fn the_section_faces_outwards_and_the_caps_away_from_the_path() {
        let p = path();
        let m = build(&p, &square()).expect("loft");
        let normal = |f: &Face| {
            let [a, b, c] = f.v.map(|k| m.vertices[k as usize]);
            b.minus(a).cross(c.minus(a))
        };
        // The first side triangle: on the square's +X side at the start,
        // which the path's frame puts on the path's +Y (X = Z × tangent).
        let n0 = normal(&m.faces[0]);
        assert!(n0.1 > 0.0 && n0.0.abs() < 1e-9, "{n0:?}");
        let caps = &m.faces[2 * 24 * 12..];
        let (start, end) = caps.split_at(22);
        // Every cap triangle faces away from the path (none the wrong way;
        // triangles of points on one side of the square are flat).
        assert!(start.iter().all(|f| normal(f).0 <= 1e-9 && f.material == 1));
        assert!(end.iter().all(|f| normal(f).1 >= -1e-9 && f.material == 0));
        let area = |fs: &[Face]| {
            fs.iter()
                .fold(Vec3(0.0, 0.0, 0.0), |a, f| a.plus(normal(f)))
        };
        // Twice the square's area (4), along −X at the start and +Y at the end.
        assert!((area(start).0 + 8.0).abs() < 1e-9, "{:?}", area(start));
        assert!((area(end).1 - 8.0 * 1.0).abs() < 1e-9, "{:?}", area(end));
    }

    /// One 0x0988 placement as the files hold it.
    fn placement(shape: u32, level: f32, matrix: [f32; 12], flags: u32) -> Chunk {
        PathShape {
            shape,
            level,
            matrix,
            flags,
            extra: vec![0; 12],
        }
        .to_chunk()
    }

    const IDENTITY: [f32; 12] = PathShape::IDENTITY;

    /// GreejeshGajera's Loft_2.max: Circle (shape 1) and Rectangle (shape 2,
    /// turned by 21.2° and 22.4°) alternating at path levels 0 to 1; Max's
    /// Mesh Totals (600 vertices) pin only the counts, so it stays refused,
    /// naming every placement.
    #[test]
    fn several_shapes_on_the_path_are_decoded_and_refused_by_name() {
        let (c1, s1) = (0.9323_f32, 0.3618_f32);
        let (c2, s2) = (0.9248_f32, 0.3804_f32);
        let turned = |c: f32, s: f32| [c, s, 0., -s, c, 0., 0., 0., 1., 0., 0., 0.];
        let mut chunks = vec![
            Chunk::leaf(0x08FF, 3u32.to_le_bytes().to_vec()),
            Chunk::leaf(0x097E, 5u32.to_le_bytes().to_vec()),
        ];
        chunks.push(placement(1, 0.0, IDENTITY, 7));
        chunks.push(placement(2, 0.25, turned(c1, s1), 0));
        chunks.push(placement(1, 0.5, IDENTITY, 7));
        chunks.push(placement(2, 0.75, turned(c2, s2), 0));
        chunks.push(placement(1, 1.0, IDENTITY, 7));
        let shapes = path_shapes(&chunks).expect("decoded");
        let got: Vec<(u32, f32, bool)> = shapes
            .iter()
            .map(|s| (s.shape, s.level, s.untransformed()))
            .collect();
        assert_eq!(
            got,
            [
                (1, 0.0, true),
                (2, 0.25, false),
                (1, 0.5, true),
                (2, 0.75, false),
                (1, 1.0, true)
            ]
        );
        let e = check_settings(&chunks, 3).expect_err("refused");
        assert!(
            e.to_string().contains("Loft with 5 shapes on the path (shape 1 at 0.00%, shape 2 at 25.00%, shape 1 at 50.00%, shape 2 at 75.00%, shape 1 at 100.00%)"),
            "{e}"
        );
        // 0x08FF counts the shape references (path included): a count that
        // disagrees with the references is named.
        let e = check_settings(&chunks, 2).expect_err("refused");
        assert!(e.to_string().contains("0x08FF"), "{e}");
    }

    /// gitsheny's test.max: its one shape rotated and scaled (by about
    /// 0.2) on the path, flags 0; Loft_4's shape scaled only has flags 3.
    #[test]
    fn a_shape_transformed_on_the_path_is_refused() {
        let m = [
            0.1172, -0.03796, -0.1114, 0.02998, 0.1617, -0.02354, 0.1139, -0.003498, 0.1209, 0.,
            0., 0.,
        ];
        let chunks = vec![
            Chunk::leaf(0x08FF, 2u32.to_le_bytes().to_vec()),
            Chunk::leaf(0x097E, 1u32.to_le_bytes().to_vec()),
            placement(1, 0.0, m, 0),
        ];
        let e = check_settings(&chunks, 2).expect_err("refused");
        assert!(e.to_string().contains("transformed on the path"), "{e}");
        let scaled = [1.153, 0., 0., 0., 1.153, 0., 0., 0., 0.8674, 0., 0., 0.];
        assert!(
            !path_shapes(&[placement(4, 0.52, scaled, 3)]).expect("decoded")[0].untransformed()
        );
        assert!(
            path_shapes(&[placement(1, 0.0, IDENTITY, 7)]).expect("decoded")[0].untransformed()
        );
    }

    #[test]
    fn a_path_leaving_its_plane_is_refused() {
        let mut p = path();
        p.knots[2].point.2 = 5.0;
        let e = build(&p, &square()).expect_err("refused");
        assert!(e.to_string().contains("leaves its XY plane"), "{e}");
    }

    #[test]
    fn a_sharp_corner_is_refused() {
        let mut p = path();
        p.knots[1].kind = crate::eval::objects::shape::KnotType::Corner;
        p.knots[1].out_vec = Vec3(30.0, 10.0, 0.0);
        let e = build(&p, &square()).expect_err("refused");
        assert!(e.to_string().contains("turns by"), "{e}");
    }
}
