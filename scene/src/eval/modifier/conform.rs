//! The Conform modifier of Max 2024+ (conform.dlm, class (0xb00,
//! 0x57da4442)): moves the vertices of its input onto the surface of target
//! nodes picked in the scene, stopping a standoff distance short of it.
//!
//! Layout, read off Shotgun.max (three Conforms; MAXScript exposes the
//! modifier since 3ds Max 2024.2 but lists no parameter ids): reference 0 is
//! a ParamBlock2 whose parameter
//! - 0 is the method (MAXScript's `method`: 1 shrink wrap, as its example
//!   sets it; 0 on RubberGrip, which moves along an axis);
//! - 30 is the shrink-wrap direction (2: along the vertex normals, inwards);
//! - 5 is the standoff distance, in world units;
//! - 11 a node (unset in the corpus; MAXScript's look-at helper is the one
//!   node property);
//! - 24 a tab of sub-blocks, one per target: 0 a switch (on), 1 the node;
//! - 34 a NodeTransformMonitor per node the modifier is applied to;
//! - the others hold the one value measured (`CONSTANT`), their meaning not
//!   pinned: another value is refused rather than ignored.
//!
//! Rule (measured on Shotgun.max against the Unwrap UVW caches above the
//! Conforms, docs/evaluation.md): each vertex moves along a ray — the
//! reverse of its normal (the mean of the unit normals of the polygons
//! around it) for shrink wrap direction 2, the object's −z for the axis
//! method — to the first point where the ray meets a target's evaluated
//! mesh (every target's triangles, placed in the modified object's space),
//! less the standoff along the ray. The ray starts parameter 35's 1e-4 up
//! the object's z axis and the distance found applies from the vertex (so
//! Max's results match: Connection's flat hits are 1e-4 off without it).
//! Equal and corner-angle weights give the same normal on the measured
//! input, so an input where they differ is refused; so are rays that meet no
//! target, meet one from behind, or start nearer than the standoff, other
//! directions, and vertex normals of a triangle input (whose polygons are
//! not known).

use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::memo::Stack;
use crate::eval::core::pblock::{self, Known, ParamBlock2, Value};
use crate::eval::core::transform::invert;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::Mesh;
use crate::eval::objects::poly::PolyMesh;
use crate::typed::ClassId;

use super::edit_poly_topo::newell_normal;
use super::{Applied, ModContext};

pub const CONFORM: ClassId = ClassId(0xb00, 0x57da_4442);

const P_METHOD: u16 = 0;
const P_STANDOFF: u16 = 5;
const P_HELPER: u16 = 11;
const P_TARGETS: u16 = 24;
const P_SHRINK_DIRECTION: u16 = 30;
/// Target sub-block: the switch and the node.
const T_ON: u16 = 0;
const T_NODE: u16 = 1;

const P_BIAS: u16 = 35;

const METHOD_AXIS: i32 = 0;
const METHOD_SHRINK_WRAP: i32 = 1;
const SHRINK_ALONG_NORMALS: i32 = 2;

/// Parameters whose meaning is not pinned, with the one value Connection
/// (the Conform evaluated) holds.
const CONSTANT: [(u16, Known); 23] = [
    (3, Known::Int(0)),
    (12, Known::Int(3)),
    (13, Known::Int(2)),
    (25, Known::Int(0)),
    (4, Known::Float(100.0)),
    (6, Known::Float(25.0)),
    (18, Known::Float(0.0)),
    (19, Known::Float(100.0)),
    (20, Known::Float(25.0)),
    (P_BIAS, Known::Float(1e-4)),
    (37, Known::Float(1000.0)),
    (38, Known::Float(100.0)),
    (8, Known::Bool(false)),
    (9, Known::Bool(false)),
    (21, Known::Bool(false)),
    (32, Known::Bool(false)),
    (33, Known::Bool(false)),
    (36, Known::Bool(false)),
    (15, Known::Bool(true)),
    (22, Known::Bool(true)),
    (23, Known::Bool(true)),
    (29, Known::Bool(true)),
    (31, Known::Bool(true)),
];

/// Vertex normals by equal and by corner-angle weights agree within this
/// angle (radians), or the input is refused.
const SAME_NORMAL: f64 = 1e-5;
/// Vertices × target triangles tested at most (brute-force ray casts).
const MAX_TESTS: usize = 1 << 30;

/// The Conform on a triangle mesh: the axis method moves every vertex; the
/// vertex-normal direction is refused there, the polygons (and so Max's
/// vertex normals) not being known. (An Edit Poly above replays the Conform
/// on its polygons, `apply_poly`.)
pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let s = settings(m, cx)?;
    let Direction::Axis(axis) = s.direction else {
        return Err(EvalError::not_evaluated_why(
            "along the vertex normals of a triangle mesh",
            "Max's vertex normals there follow the input's polygons, measured on polygons only",
        ));
    };
    let dirs = vec![Some(axis); mesh.vertices.len()];
    conform(&mut mesh.vertices, &dirs, &s, cx)
}

/// The Conform applied to polygons (the input an Edit Poly above reads).
pub fn apply_poly(m: &Applied, poly: &mut PolyMesh, cx: &ModContext) -> Result<(), EvalError> {
    let s = settings(m, cx)?;
    let dirs = match s.direction {
        Direction::Axis(axis) => vec![Some(axis); poly.vertices.len()],
        Direction::InvertedNormals => vertex_normals(poly)?
            .into_iter()
            .map(|n| n.map(|n| n.scale(-1.0)))
            .collect(),
    };
    conform(&mut poly.vertices, &dirs, &s, cx)?;
    poly.normals = None;
    Ok(())
}

/// Moves each vertex along its direction (None: left alone) to the first
/// target surface its ray meets, less the standoff.
fn conform(
    vertices: &mut [Vec3],
    dirs: &[Option<Vec3>],
    s: &Settings,
    cx: &ModContext,
) -> Result<(), EvalError> {
    let tris = targets(s, cx)?;
    let tests = vertices.len().saturating_mul(tris.len());
    if tests > MAX_TESTS {
        return Err(EvalError::limit(
            "vertex × target triangle tests",
            MAX_TESTS,
        ));
    }
    let standoff = s.standoff / s.scale;
    for (i, (v, d)) in vertices.iter_mut().zip(dirs).enumerate() {
        let Some(dir) = *d else { continue };
        // The ray starts `bias` up the object's z axis (see the module
        // comment); the distance found applies from the vertex.
        let origin = v.plus(Vec3(0.0, 0.0, s.bias));
        let (t, facing) = first_hit(origin, dir, &tris).ok_or_else(|| {
            EvalError::not_evaluated(format!("vertex {i}: its ray meets no target"))
        })?;
        if facing >= 0.0 {
            return Err(EvalError::not_evaluated(format!(
                "vertex {i}: its ray meets a target from behind"
            )));
        }
        if t < standoff {
            return Err(EvalError::not_evaluated(format!(
                "vertex {i}: nearer the target than the standoff"
            )));
        }
        *v = v.plus(dir.scale(t - standoff));
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Direction {
    /// Along the reverse of each vertex's normal (shrink wrap, direction 2).
    InvertedNormals,
    /// Along one object-space axis (the axis method).
    Axis(Vec3),
}

struct Settings {
    direction: Direction,
    standoff: f64,
    /// Parameter 35: how far up the object's z axis the rays start.
    bias: f64,
    /// The modified node's object-space scale (uniform).
    scale: f64,
    /// The target nodes.
    nodes: Vec<usize>,
    /// Object space of the modified node at `t`.
    object_tm: Mat43,
}

fn value(pb: &ParamBlock2, id: u16) -> Result<&Value, EvalError> {
    let p = pb
        .param(id)
        .ok_or_else(|| EvalError::malformed("", format!("no parameter {id}")))?;
    if p.ref_slot.is_some() && !matches!(p.base_type(), 0x11 | 0x12 | 0x15) {
        return Err(EvalError::not_evaluated(format!(
            "parameter {id} driven by a controller"
        )));
    }
    Ok(&p.value)
}

fn int(pb: &ParamBlock2, id: u16) -> Result<i32, EvalError> {
    match value(pb, id)? {
        Value::Int(v) => Ok(*v),
        v => Err(EvalError::malformed("", format!("parameter {id}: {v:?}"))),
    }
}

fn settings(m: &Applied, cx: &ModContext) -> Result<Settings, EvalError> {
    let graph = &cx.eval.graph;
    let pb_obj = pblock::reference(graph, m.object, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    let pb = pblock::param_block2(cx.eval.chunks(pb_obj))?;
    let method = int(&pb, P_METHOD)?;
    let direction = match method {
        METHOD_AXIS => Direction::Axis(Vec3(0.0, 0.0, -1.0)),
        METHOD_SHRINK_WRAP => {
            let d = int(&pb, P_SHRINK_DIRECTION)?;
            if d != SHRINK_ALONG_NORMALS {
                return Err(EvalError::not_evaluated_why(
                    format!("shrink direction {d} (parameter {P_SHRINK_DIRECTION})"),
                    "only along the vertex normals (2) is measured against a reference",
                ));
            }
            Direction::InvertedNormals
        }
        _ => {
            return Err(EvalError::not_evaluated(format!(
                "method {method} (parameter {P_METHOD})"
            )))
        }
    };
    for (id, known) in CONSTANT {
        let v = value(&pb, id)?;
        if !known.matches(v) {
            return Err(EvalError::not_evaluated_why(
                format!("parameter {id} = {v:?}"),
                "its meaning is not known; only the measured value is evaluated",
            ));
        }
    }
    let standoff = match value(&pb, P_STANDOFF)? {
        Value::Float(f) if f.is_finite() && *f >= 0.0 => f64::from(*f),
        v => {
            return Err(EvalError::malformed(
                "",
                format!("standoff (parameter {P_STANDOFF}): {v:?}"),
            ))
        }
    };
    if matches!(direction, Direction::Axis(_)) && standoff != 0.0 {
        return Err(EvalError::not_evaluated_why(
            format!("a standoff ({standoff}) with the axis method"),
            "the standoff is measured with shrink wrap only",
        ));
    }
    let bias = match value(&pb, P_BIAS)? {
        Value::Float(f) => f64::from(*f),
        v => {
            return Err(EvalError::malformed(
                "",
                format!("parameter {P_BIAS}: {v:?}"),
            ))
        }
    };
    let helper = pb
        .param(P_HELPER)
        .and_then(|p| p.ref_slot)
        .and_then(|slot| pblock::reference(graph, pb_obj, slot));
    if helper.is_some() {
        return Err(EvalError::not_evaluated(format!(
            "a helper node (parameter {P_HELPER})"
        )));
    }
    let slots = match pb.param(P_TARGETS).map(|p| &p.value) {
        Some(Value::RefTab(s)) => s.clone(),
        Some(Value::IntTab(v)) if v.is_empty() => Vec::new(),
        v => {
            return Err(EvalError::malformed(
                "",
                format!("targets (parameter {P_TARGETS}): {v:?}"),
            ))
        }
    };
    let mut nodes = Vec::new();
    for (k, slot) in slots.into_iter().enumerate() {
        let at = || format!("target {k}");
        let sub = pblock::reference(graph, pb_obj, slot)
            .ok_or_else(|| EvalError::reference(at(), format!("no block (reference {slot})")))?;
        let tb = pblock::param_block2(cx.eval.chunks(sub)).map_err(|e| e.inside(at()))?;
        match value(&tb, T_ON).map_err(|e| e.inside(at()))? {
            Value::Bool(true) => {}
            Value::Bool(false) => {
                return Err(EvalError::not_evaluated(format!("{} switched off", at())))
            }
            v => return Err(EvalError::malformed(at(), format!("switch: {v:?}"))),
        }
        let node = tb
            .param(T_NODE)
            .and_then(|p| p.ref_slot)
            .and_then(|slot| pblock::reference(graph, sub, slot))
            .filter(|&n| graph.objects.get(n).is_some_and(|o| o.node.is_some()))
            .ok_or_else(|| EvalError::reference(at(), "no target node"))?;
        nodes.push(node);
    }
    if nodes.is_empty() {
        return Err(EvalError::not_evaluated("no target"));
    }
    let node = cx.node.ok_or_else(|| {
        EvalError::not_evaluated("on a compound object's operand (no node to place it)")
    })?;
    let object_tm = cx.eval.object_tm(node, cx.t);
    let scale = uniform_scale(&object_tm).ok_or_else(|| {
        EvalError::not_evaluated_why(
            "on a node whose object transform is not a uniform scale",
            "whether the standoff and normals are taken in object or world space is not measured",
        )
    })?;
    Ok(Settings {
        direction,
        standoff,
        bias,
        scale,
        nodes,
        object_tm,
    })
}

/// The scale of a transform whose axes are orthogonal and of one length.
fn uniform_scale(m: &Mat43) -> Option<f64> {
    let [x, y, z, _] = m.0;
    let s = x.len();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-5 * s;
    let ok = s > 0.0
        && close(y.len(), s)
        && close(z.len(), s)
        && close(x.dot(y) / s, 0.0)
        && close(y.dot(z) / s, 0.0)
        && close(z.dot(x) / s, 0.0);
    ok.then_some(s)
}

/// Every target's evaluated mesh as triangles in the modified node's object
/// space.
fn targets(s: &Settings, cx: &ModContext) -> Result<Vec<[Vec3; 3]>, EvalError> {
    let to_object = invert(&s.object_tm);
    let stack = if cx.stand_ins {
        Stack::Full
    } else {
        Stack::Replayed
    };
    let mut tris = Vec::new();
    for &n in &s.nodes {
        let name = cx
            .eval
            .graph
            .objects
            .get(n)
            .and_then(|o| o.node.as_ref())
            .map_or("?", |x| x.name.as_str());
        let at = || format!("target {name}");
        // A target that conforms itself could reach this node again: its
        // mesh would wait on the one being built.
        if Some(n) == cx.node
            || cx
                .eval
                .modifier_stack(n)
                .is_some_and(|(st, _)| st.iter().any(|a| a.class == CONFORM))
        {
            return Err(EvalError::not_evaluated(format!(
                "{}: a target with a Conform of its own",
                at()
            )));
        }
        let mesh = cx
            .eval
            .mesh_with(n, cx.t, stack)
            .ok_or_else(|| EvalError::not_evaluated(format!("{}: not a mesh", at())))?
            .map_err(|e| e.inside(at()))?;
        let tm = cx.eval.object_tm(n, cx.t).then(&to_object);
        let mirror = tm.determinant3() < 0.0;
        for f in &mesh.faces {
            let mut t = [0usize; 3];
            for (k, &v) in f.v.iter().enumerate() {
                t[k] = v as usize;
                if t[k] >= mesh.vertices.len() {
                    return Err(EvalError::malformed(at(), "a face beyond the vertices"));
                }
            }
            if mirror {
                t.swap(1, 2);
            }
            tris.push(t.map(|v| tm.transform_point(mesh.vertices[v])));
        }
    }
    Ok(tris)
}

/// Each vertex's unit normal: the mean of the unit normals of the polygons
/// around it (None for a vertex no polygon uses). Refused where weighting
/// the polygons by their corner angle at the vertex gives another direction.
fn vertex_normals(poly: &PolyMesh) -> Result<Vec<Option<Vec3>>, EvalError> {
    // Corners in range and degrees of three or more from here on.
    poly.validate()?;
    let nv = poly.vertices.len();
    let mut equal = vec![Vec3(0.0, 0.0, 0.0); nv];
    let mut angled = vec![Vec3(0.0, 0.0, 0.0); nv];
    let mut used = vec![false; nv];
    for (fi, f) in poly.faces.iter().enumerate() {
        let k = f.v.len();
        // In range: `validate` checked every corner.
        let at = |j: usize| poly.vertices[f.v[j % k] as usize];
        let n = newell_normal(poly, &f.v).ok_or_else(|| {
            EvalError::not_evaluated(format!("face {fi} has no normal (degenerate)"))
        })?;
        for j in 0..k {
            let x = f.v[j] as usize;
            let p = at(j);
            let a = at(j + k - 1).minus(p);
            let b = at(j + 1).minus(p);
            let angle = (a.dot(b) / (a.len() * b.len())).clamp(-1.0, 1.0).acos();
            equal[x] = equal[x].plus(n);
            angled[x] = angled[x].plus(n.scale(angle));
            used[x] = true;
        }
    }
    let mut out = Vec::with_capacity(nv);
    for i in 0..nv {
        if !used[i] {
            out.push(None);
            continue;
        }
        let (e, a) = (equal[i], angled[i]);
        if !(e.len() > 1e-12 && a.len() > 1e-12) {
            return Err(EvalError::not_evaluated(format!(
                "vertex {i}: its polygons' normals cancel out"
            )));
        }
        let (e, a) = (e.normalized(), a.normalized());
        if e.cross(a).len() > SAME_NORMAL || e.dot(a) < 0.0 {
            return Err(EvalError::not_evaluated_why(
                format!("vertex {i}: polygons meeting at unequal corner angles"),
                "whether Max weights its vertex normal by angle is not measured",
            ));
        }
        out.push(Some(e));
    }
    Ok(out)
}

/// The nearest hit with t > 0 of the ray `o + t·d` on `tris`, with the dot
/// of the triangle's normal and `d` (negative: met from the front).
fn first_hit(o: Vec3, d: Vec3, tris: &[[Vec3; 3]]) -> Option<(f64, f64)> {
    let mut best: Option<(f64, f64)> = None;
    for t in tris {
        let e1 = t[1].minus(t[0]);
        let e2 = t[2].minus(t[0]);
        let p = d.cross(e2);
        let det = e1.dot(p);
        if det.abs() < 1e-14 {
            continue;
        }
        let inv = 1.0 / det;
        let s = o.minus(t[0]);
        let u = s.dot(p) * inv;
        if !(0.0..=1.0).contains(&u) {
            continue;
        }
        let q = s.cross(e1);
        let v = d.dot(q) * inv;
        if v < 0.0 || u + v > 1.0 {
            continue;
        }
        let dist = e2.dot(q) * inv;
        if dist > 0.0 && best.is_none_or(|b| dist < b.0) {
            best = Some((dist, e1.cross(e2).dot(d)));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::poly::PolyFace;

    #[test]
    fn rays_hit_the_nearest_front_face() {
        let tri = [
            Vec3(-1.0, -1.0, 2.0),
            Vec3(1.0, -1.0, 2.0),
            Vec3(0.0, 1.0, 2.0),
        ];
        let far = tri.map(|v| v.plus(Vec3(0.0, 0.0, 3.0)));
        let (t, facing) = first_hit(Vec3(0.0, 0.0, 0.0), Vec3(0.0, 0.0, 1.0), &[far, tri]).unwrap();
        assert!((t - 2.0).abs() < 1e-12);
        // Counter-clockwise seen from below: its normal is +z, met from behind.
        assert!(facing > 0.0);
        assert!(first_hit(Vec3(5.0, 0.0, 0.0), Vec3(0.0, 0.0, 1.0), &[tri]).is_none());
    }

    #[test]
    fn vertex_normals_average_polygons_and_refuse_unequal_corners() {
        // Two unit quads at a right angle along the x axis.
        let poly = |verts: Vec<Vec3>, faces: Vec<Vec<u32>>| PolyMesh {
            vertices: verts,
            faces: faces.into_iter().map(|v| PolyFace::fan(v, 0, 0)).collect(),
            ..PolyMesh::default()
        };
        let v = vec![
            Vec3(0.0, 0.0, 0.0),
            Vec3(1.0, 0.0, 0.0),
            Vec3(1.0, 1.0, 0.0),
            Vec3(0.0, 1.0, 0.0),
            Vec3(1.0, 0.0, -1.0),
            Vec3(0.0, 0.0, -1.0),
        ];
        let p = poly(v.clone(), vec![vec![0, 1, 2, 3], vec![0, 5, 4, 1]]);
        let n = vertex_normals(&p).unwrap();
        let h = std::f64::consts::FRAC_1_SQRT_2;
        let n0 = n[0].unwrap();
        assert!(n0.minus(Vec3(0.0, -h, h)).len() < 1e-12, "{n0:?}");
        // A triangle beside the quad meets vertex 0 at 45° against 90°.
        let p = poly(v, vec![vec![0, 1, 2, 3], vec![0, 5, 4]]);
        assert!(vertex_normals(&p).is_err());
    }
}
