//! The Boolean compound object (class "Boolean", (0x51db4f2f, 0x1c596b1a)):
//! two operand objects combined by mesh CSG.
//!
//! Layout, from the corpus (street.max, road_flag.max): reference 0 = operand A,
//! 1 = operand B (any object: a primitive, a derived object with its modifier
//! stack, another Boolean), 2 and 3 = the PRS controllers placing A and B in the
//! Boolean's object space, 4 = an old ParamBlock whose parameter 0 is the
//! operation: 0 union, 1 intersection, 2 A − B, 3 B − A (checked against the
//! reference NeL exports). Chunk 0x0100 (0x0c in every corpus Boolean, whatever
//! the operation) and 0x0140/0x0142/0x0144 are display/update flags; 0x0110 and
//! 0x0120 are the operand names; 0x0130/0x03E8 is a near-identity matrix (float
//! noise) that plays no part in the result.
//!
//! Max re-triangulates the result its own way; ours has the same surface but
//! different vertex and face indices, so index-based modifiers above a Boolean
//! cannot be applied ([`refuse_index_edits`]).

use std::cell::Cell;
use std::collections::HashMap;

use crate::typed::ClassId;

use crate::eval::core::controller::Controller;
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::pblock::{self, Value};
use crate::eval::modifier::{self, Applied};
use crate::eval::objects::mesh::{Face, MapChannel, Mesh};
use crate::eval::SceneEval;

pub const BOOLEAN: ClassId = ClassId(0x51db4f2f, 0x1c596b1a);

/// Nesting deeper than this is treated as a reference cycle in damaged data.
const MAX_DEPTH: usize = 32;
/// Booleans one evaluation may compute (operands shared by reference would
/// otherwise make damaged files exponential).
const MAX_BOOLEANS: usize = 256;
/// Faces an operand may bring in.
const MAX_INPUT_FACES: usize = 100_000;
/// Polygons the splitting may create in one Boolean before giving up.
const MAX_POLYGONS: usize = 1_000_000;
/// Vertex-against-plane tests of one evaluation's splitting, nested Booleans
/// included (about a second each 10⁸).
const MAX_WORK: u64 = 200_000_000;
/// Vertex-against-edge tests of the T-junction repair before giving up.
const MAX_EDGE_TESTS: u64 = 200_000_000;
/// Corners one split polygon may collect (triangulating it is cubic in them).
const MAX_RING: usize = 1024;
/// Map channels carried (0 = colour, 1..99 texture).
const MAX_CHANNEL: i32 = 99;
/// Distances below this fraction of the operands' size count as zero.
const REL_EPS: f64 = 1e-5;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Union,
    Intersection,
    AMinusB,
    BMinusA,
}

/// The operation of a Boolean object (its parameter block, reference 4).
pub fn operation(eval: &SceneEval, obj: usize) -> Result<Op, String> {
    let pb = pblock::reference(&eval.graph, obj, 4).ok_or("no parameter block (reference 4)")?;
    let params = pblock::param_block(eval.chunks(pb))?;
    let op = params
        .iter()
        .find(|p| p.index == 0)
        .ok_or("no operation parameter")?;
    match op.value {
        Value::Int(0) => Ok(Op::Union),
        Value::Int(1) => Ok(Op::Intersection),
        Value::Int(2) => Ok(Op::AMinusB),
        Value::Int(3) => Ok(Op::BMinusA),
        ref v => Err(format!("operation {v:?} is not evaluated")),
    }
}

/// Work counters shared by one evaluation and its nested Booleans.
struct Budget {
    booleans: Cell<usize>,
    /// Vertex-plane tests of all the splitting.
    work: Cell<u64>,
}

/// The mesh of Boolean object `obj` at time `t`, in its object space.
pub fn eval(se: &SceneEval, obj: usize, t: i32) -> Result<Mesh, String> {
    eval_at(
        se,
        obj,
        t,
        0,
        &Budget {
            booleans: Cell::new(0),
            work: Cell::new(0),
        },
    )
}

fn eval_at(se: &SceneEval, obj: usize, t: i32, depth: usize, b: &Budget) -> Result<Mesh, String> {
    if depth > MAX_DEPTH {
        return Err(format!("Booleans nested deeper than {MAX_DEPTH}"));
    }
    if b.booleans.get() >= MAX_BOOLEANS {
        return Err(format!("more than {MAX_BOOLEANS} Booleans in one object"));
    }
    b.booleans.set(b.booleans.get() + 1);
    let op = operation(se, obj)?;
    let mut meshes = Vec::with_capacity(2);
    for k in 0..2 {
        let which = ["A", "B"][k];
        let operand = pblock::reference(&se.graph, obj, k as u32)
            .ok_or_else(|| format!("no operand {which} (reference {k})"))?;
        let mut m = operand_mesh(se, operand, t, depth, b)
            .map_err(|e| format!("Boolean operand {which}: {e}"))?;
        let tm = pblock::reference(&se.graph, obj, 2 + k as u32)
            .map_or(Ok(Mat43::IDENTITY), |c| prs(se, c, t))
            .map_err(|e| format!("Boolean operand {which} transform: {e}"))?;
        transform(&mut m, &tm);
        meshes.push(m);
    }
    let b_mesh = meshes.pop().unwrap_or_default();
    let a_mesh = meshes.pop().unwrap_or_default();
    csg(&a_mesh, &b_mesh, op, &b.work)
}

/// A PRS controller's matrix at `t`.
fn prs(se: &SceneEval, ctl: usize, t: i32) -> Result<Mat43, String> {
    match se.controller(ctl) {
        Some(Controller::Prs {
            position,
            rotation,
            scale,
        }) => Ok(se
            .scale_tm(*scale, t)
            .then(&se.rotation_at(*rotation, t))
            .then(&Mat43::translation(se.position_at(*position, t)))),
        _ => Err(format!("object {ctl} is not a PRS controller")),
    }
}

fn transform(m: &mut Mesh, tm: &Mat43) {
    for v in &mut m.vertices {
        *v = tm.transform_point(*v);
    }
    if tm.determinant3() < 0.0 {
        // A mirroring placement turns the faces inside out; keep them facing out.
        for f in &mut m.faces {
            f.v.swap(1, 2);
        }
        for map in &mut m.maps {
            for f in &mut map.faces {
                f.swap(1, 2);
            }
        }
    }
}

/// An operand: its base object (nested Booleans recursively) with its modifier
/// stack applied.
fn operand_mesh(
    se: &SceneEval,
    obj: usize,
    t: i32,
    depth: usize,
    b: &Budget,
) -> Result<Mesh, String> {
    let (stack, base) = se
        .object_stack(obj)
        .ok_or("the operand's modifier stack is damaged")?;
    let class = se.graph.objects.get(base).and_then(|o| o.class.as_ref());
    let is_bool = class.is_some_and(|c| c.class_id == BOOLEAN);
    let mut m = if is_bool {
        eval_at(se, base, t, depth + 1, b)?
    } else {
        se.object_mesh(base, t).unwrap_or_else(|| {
            Err(format!(
                "object class {} is not evaluated",
                class.map_or("?", |c| c.name.as_str())
            ))
        })?
    };
    refuse_index_edits(&stack, is_bool)?;
    let cx = modifier::ModContext {
        eval: se,
        node: None,
        t,
    };
    for applied in stack.iter().rev() {
        modifier::apply(applied, &mut m, &cx)?;
    }
    Ok(m)
}

/// Edit Mesh and Unwrap UVW address vertices and faces by index; above a Boolean
/// those are indices of Max's triangulation of the result, which ours does not
/// reproduce, so applying them would silently edit the wrong elements.
pub fn refuse_index_edits(stack: &[Applied], base_is_boolean: bool) -> Result<(), String> {
    if !base_is_boolean {
        return Ok(());
    }
    for m in stack.iter().rev() {
        if m.class == modifier::EDIT_MESH || m.class == modifier::UNWRAP_UVW {
            let counts = delta_counts(m)
                .map(|(v, f)| format!(" (made for {v} vertices, {f} faces)"))
                .unwrap_or_default();
            return Err(format!(
                "modifier {} ({:#x}, {:#x}) on a Boolean: it edits vertices and faces by \
                 index in Max's triangulation of the Boolean result{counts}, which this \
                 evaluation does not reproduce (same surface, other triangles)",
                m.name, m.class.0, m.class.1
            ));
        }
    }
    Ok(())
}

/// The input vertex and face counts an Edit Mesh delta was made for.
fn delta_counts(m: &Applied) -> Option<(u32, u32)> {
    let delta = m
        .mod_app?
        .children()
        .iter()
        .find(|c| c.id == 0x2512)?
        .children()
        .iter()
        .find(|c| c.id == 0x4000)?;
    let count = |id: u16| {
        let p = delta.children().iter().find(|c| c.id == id)?.payload()?;
        Some(u32::from_le_bytes(p.get(..4)?.try_into().ok()?))
    };
    Some((count(0x0100)?, count(0x0110)?))
}

// ---------------------------------------------------------------------------
// CSG on polygons through BSP trees (the classic clip-to scheme): each operand's
// polygons are clipped against the other's tree; coplanar faces are kept on the
// side their normal points to, so shared faces survive once.

#[derive(Debug, Clone, Copy)]
struct Plane {
    n: Vec3,
    w: f64,
}

impl Plane {
    fn flipped(self) -> Plane {
        Plane {
            n: self.n.scale(-1.0),
            w: -self.w,
        }
    }
}

#[derive(Debug, Clone)]
struct Vert {
    p: Vec3,
    /// One value per carried map channel.
    uv: Vec<[f64; 3]>,
}

fn lerp(a: &Vert, b: &Vert, t: f64) -> Vert {
    Vert {
        p: a.p.plus(b.p.minus(a.p).scale(t)),
        uv: a
            .uv
            .iter()
            .zip(&b.uv)
            .map(|(x, y)| [0, 1, 2].map(|i| x[i] + (y[i] - x[i]) * t))
            .collect(),
    }
}

#[derive(Debug, Clone)]
struct Poly {
    verts: Vec<Vert>,
    plane: Plane,
    material: u16,
    smoothing: u32,
    flags: u16,
}

impl Poly {
    fn flip(&mut self) {
        self.verts.reverse();
        self.plane = self.plane.flipped();
    }
}

const COPLANAR: u8 = 0;
const FRONT: u8 = 1;
const BACK: u8 = 2;
const SPANNING: u8 = 3;

struct Ctx<'w> {
    eps: f64,
    polygons: Cell<usize>,
    work: &'w Cell<u64>,
}

impl Ctx<'_> {
    fn count(&self, n: usize) -> Result<(), String> {
        self.polygons.set(self.polygons.get() + n);
        if self.polygons.get() > MAX_POLYGONS {
            return Err(format!(
                "Boolean: more than {MAX_POLYGONS} polygons after splitting"
            ));
        }
        Ok(())
    }
}

/// Where a split sends a polygon.
struct Sides<'a> {
    coplanar_front: &'a mut Vec<Poly>,
    coplanar_back: &'a mut Vec<Poly>,
    front: &'a mut Vec<Poly>,
    back: &'a mut Vec<Poly>,
}

fn split(ctx: &Ctx, plane: Plane, poly: Poly, out: Sides) -> Result<(), String> {
    ctx.work.set(ctx.work.get() + poly.verts.len() as u64);
    if ctx.work.get() > MAX_WORK {
        return Err(format!(
            "Boolean: more than {MAX_WORK} vertex-plane tests (operands too large or damaged)"
        ));
    }
    let dists: Vec<f64> = poly
        .verts
        .iter()
        .map(|v| plane.n.dot(v.p) - plane.w)
        .collect();
    let types: Vec<u8> = dists
        .iter()
        .map(|&d| {
            if d < -ctx.eps {
                BACK
            } else if d > ctx.eps {
                FRONT
            } else {
                COPLANAR
            }
        })
        .collect();
    match types.iter().fold(0, |a, &t| a | t) {
        COPLANAR => {
            if plane.n.dot(poly.plane.n) > 0.0 {
                out.coplanar_front.push(poly)
            } else {
                out.coplanar_back.push(poly)
            }
        }
        FRONT => out.front.push(poly),
        BACK => out.back.push(poly),
        _ => {
            let n = poly.verts.len();
            let (mut f, mut b) = (Vec::new(), Vec::new());
            for i in 0..n {
                let j = (i + 1) % n;
                let (ti, tj) = (types[i], types[j]);
                let vi = &poly.verts[i];
                if ti != BACK {
                    f.push(vi.clone());
                }
                if ti != FRONT {
                    b.push(vi.clone());
                }
                if ti | tj == SPANNING {
                    let t = dists[i] / (dists[i] - dists[j]);
                    let v = lerp(vi, &poly.verts[j], t);
                    f.push(v.clone());
                    b.push(v);
                }
            }
            ctx.count(2)?;
            let piece = |verts| Poly {
                verts,
                plane: poly.plane,
                material: poly.material,
                smoothing: poly.smoothing,
                flags: poly.flags,
            };
            if f.len() >= 3 {
                out.front.push(piece(f));
            }
            if b.len() >= 3 {
                out.back.push(piece(b));
            }
        }
    }
    Ok(())
}

#[derive(Default)]
struct Node {
    plane: Option<Plane>,
    front: Option<usize>,
    back: Option<usize>,
    polys: Vec<Poly>,
}

/// A BSP tree in an arena, walked with explicit work lists (no recursion depth
/// limit on deep trees).
#[derive(Default)]
struct Bsp {
    nodes: Vec<Node>,
}

impl Bsp {
    fn new(ctx: &Ctx, polys: Vec<Poly>) -> Result<Bsp, String> {
        let mut b = Bsp {
            nodes: vec![Node::default()],
        };
        b.build(ctx, polys)?;
        Ok(b)
    }

    fn build(&mut self, ctx: &Ctx, polys: Vec<Poly>) -> Result<(), String> {
        let mut work = vec![(0usize, polys)];
        while let Some((at, polys)) = work.pop() {
            if polys.is_empty() {
                continue;
            }
            let plane = *self.nodes[at].plane.get_or_insert(polys[0].plane);
            let (mut cf, mut cb, mut front, mut back) = (vec![], vec![], vec![], vec![]);
            for p in polys {
                split(
                    ctx,
                    plane,
                    p,
                    Sides {
                        coplanar_front: &mut cf,
                        coplanar_back: &mut cb,
                        front: &mut front,
                        back: &mut back,
                    },
                )?;
            }
            self.nodes[at].polys.extend(cf);
            self.nodes[at].polys.extend(cb);
            for (list, is_front) in [(front, true), (back, false)] {
                if list.is_empty() {
                    continue;
                }
                let child = if is_front {
                    self.nodes[at].front
                } else {
                    self.nodes[at].back
                };
                let child = match child {
                    Some(c) => c,
                    None => {
                        self.nodes.push(Node::default());
                        let c = self.nodes.len() - 1;
                        if is_front {
                            self.nodes[at].front = Some(c);
                        } else {
                            self.nodes[at].back = Some(c);
                        }
                        c
                    }
                };
                work.push((child, list));
            }
        }
        Ok(())
    }

    /// Solid ↔ empty space.
    fn invert(&mut self) {
        for n in &mut self.nodes {
            n.polys.iter_mut().for_each(Poly::flip);
            n.plane = n.plane.map(Plane::flipped);
            std::mem::swap(&mut n.front, &mut n.back);
        }
    }

    /// The parts of `polys` outside this tree's solid.
    fn clip_polygons(&self, ctx: &Ctx, polys: Vec<Poly>) -> Result<Vec<Poly>, String> {
        let mut out = Vec::new();
        let mut work = vec![(0usize, polys)];
        while let Some((at, polys)) = work.pop() {
            let node = &self.nodes[at];
            let Some(plane) = node.plane else {
                out.extend(polys);
                continue;
            };
            let (mut front, mut back) = (vec![], vec![]);
            for p in polys {
                let (mut cf, mut cb) = (vec![], vec![]);
                split(
                    ctx,
                    plane,
                    p,
                    Sides {
                        coplanar_front: &mut cf,
                        coplanar_back: &mut cb,
                        front: &mut front,
                        back: &mut back,
                    },
                )?;
                front.extend(cf);
                back.extend(cb);
            }
            match node.front {
                Some(c) => work.push((c, front)),
                None => out.extend(front),
            }
            if let Some(c) = node.back {
                work.push((c, back));
            }
        }
        Ok(out)
    }

    fn clip_to(&mut self, ctx: &Ctx, other: &Bsp) -> Result<(), String> {
        for i in 0..self.nodes.len() {
            let polys = std::mem::take(&mut self.nodes[i].polys);
            self.nodes[i].polys = other.clip_polygons(ctx, polys)?;
        }
        Ok(())
    }

    fn all(&self) -> Vec<Poly> {
        self.nodes.iter().flat_map(|n| n.polys.clone()).collect()
    }
}

/// Polygons of a mesh, with the values of `channels` at each corner.
fn polygons(m: &Mesh, channels: &[i32]) -> Vec<Poly> {
    let maps: Vec<&MapChannel> = channels
        .iter()
        .filter_map(|c| m.maps.iter().find(|x| x.channel == *c))
        .collect();
    let mut out = Vec::with_capacity(m.faces.len());
    for (fi, f) in m.faces.iter().enumerate() {
        let Some(p) =
            f.v.iter()
                .map(|&i| m.vertices.get(i as usize).copied())
                .collect::<Option<Vec<Vec3>>>()
        else {
            continue;
        };
        let n = p[1].minus(p[0]).cross(p[2].minus(p[0]));
        if n.len() <= 0.0 || !n.len().is_finite() {
            continue;
        }
        let n = n.normalized();
        let verts = (0..3)
            .map(|k| Vert {
                p: p[k],
                uv: maps
                    .iter()
                    .map(|map| {
                        map.faces
                            .get(fi)
                            .and_then(|mf| map.vertices.get(mf[k] as usize))
                            .map_or([0.0; 3], |v| v.map(f64::from))
                    })
                    .collect(),
            })
            .collect();
        out.push(Poly {
            verts,
            plane: Plane { n, w: n.dot(p[0]) },
            material: f.material,
            smoothing: f.smoothing,
            flags: f.flags,
        });
    }
    out
}

/// Map channels both operands carry completely (one map face per face); the
/// others are dropped, as a channel missing on one side has no values there.
fn shared_channels(a: &Mesh, b: &Mesh) -> Vec<i32> {
    let complete = |m: &Mesh, c: i32| {
        m.maps.iter().any(|x| {
            x.channel == c
                && x.faces.len() == m.faces.len()
                && x.faces
                    .iter()
                    .flatten()
                    .all(|&i| (i as usize) < x.vertices.len())
        })
    };
    let mut ch: Vec<i32> = a
        .maps
        .iter()
        .map(|x| x.channel)
        .filter(|&c| (0..=MAX_CHANNEL).contains(&c) && complete(a, c) && complete(b, c))
        .collect();
    ch.sort_unstable();
    ch.dedup();
    ch
}

fn extent(meshes: &[&Mesh]) -> f64 {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for v in meshes.iter().flat_map(|m| &m.vertices) {
        for (k, x) in v.to_array().into_iter().enumerate() {
            if x.is_finite() {
                lo[k] = lo[k].min(x);
                hi[k] = hi[k].max(x);
            }
        }
    }
    (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max)
}

/// Combines two closed triangle meshes (same space) by `op`.
fn csg(a: &Mesh, b: &Mesh, op: Op, work: &Cell<u64>) -> Result<Mesh, String> {
    for m in [a, b] {
        if m.faces.len() > MAX_INPUT_FACES {
            return Err(format!(
                "Boolean operand of {} faces (more than {MAX_INPUT_FACES})",
                m.faces.len()
            ));
        }
    }
    let size = extent(&[a, b]);
    let ctx = Ctx {
        eps: if size > 0.0 { size * REL_EPS } else { REL_EPS },
        polygons: Cell::new(0),
        work,
    };
    let channels = shared_channels(a, b);
    let (pa, pb) = (polygons(a, &channels), polygons(b, &channels));
    ctx.count(pa.len() + pb.len())?;
    let (pa, pb) = if op == Op::BMinusA {
        (pb, pa)
    } else {
        (pa, pb)
    };
    let mut ta = Bsp::new(&ctx, pa)?;
    let mut tb = Bsp::new(&ctx, pb)?;
    match op {
        Op::Union => {
            ta.clip_to(&ctx, &tb)?;
            tb.clip_to(&ctx, &ta)?;
            tb.invert();
            tb.clip_to(&ctx, &ta)?;
            tb.invert();
            ta.build(&ctx, tb.all())?;
        }
        Op::AMinusB | Op::BMinusA => {
            ta.invert();
            ta.clip_to(&ctx, &tb)?;
            tb.clip_to(&ctx, &ta)?;
            tb.invert();
            tb.clip_to(&ctx, &ta)?;
            tb.invert();
            ta.build(&ctx, tb.all())?;
            ta.invert();
        }
        Op::Intersection => {
            ta.invert();
            tb.clip_to(&ctx, &ta)?;
            tb.invert();
            ta.clip_to(&ctx, &tb)?;
            tb.clip_to(&ctx, &ta)?;
            ta.build(&ctx, tb.all())?;
            ta.invert();
        }
    }
    assemble(&ctx, ta.all(), &channels)
}

// ---------------------------------------------------------------------------
// From split polygons to a conforming triangle mesh: weld equal positions,
// insert the vertices that lie on other polygons' edges (T-junctions left by
// the splits), and cut each convex polygon into triangles.

/// Welds positions within `eps` through a hash grid.
struct Welder {
    cell: f64,
    grid: HashMap<(i64, i64, i64), Vec<u32>>,
    points: Vec<Vec3>,
    eps: f64,
}

impl Welder {
    fn key(&self, p: Vec3) -> (i64, i64, i64) {
        let k = |x: f64| (x / self.cell).floor() as i64;
        (k(p.0), k(p.1), k(p.2))
    }

    fn index(&mut self, p: Vec3) -> u32 {
        let (x, y, z) = self.key(p);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    if let Some(list) = self.grid.get(&(x + dx, y + dy, z + dz)) {
                        for &i in list {
                            if self.points[i as usize].minus(p).len() <= self.eps {
                                return i;
                            }
                        }
                    }
                }
            }
        }
        let i = self.points.len() as u32;
        self.points.push(p);
        self.grid.entry((x, y, z)).or_default().push(i);
        i
    }
}

struct Corner {
    v: u32,
    uv: Vec<[f64; 3]>,
}

fn assemble(ctx: &Ctx, polys: Vec<Poly>, channels: &[i32]) -> Result<Mesh, String> {
    let eps = ctx.eps;
    let mut welder = Welder {
        cell: eps * 2.0,
        grid: HashMap::new(),
        points: Vec::new(),
        eps,
    };
    // Welded polygons, consecutive repeats removed.
    let mut welded: Vec<(Vec<Corner>, &Poly)> = Vec::with_capacity(polys.len());
    for p in &polys {
        if p.verts
            .iter()
            .any(|v| !v.p.0.is_finite() || !v.p.1.is_finite() || !v.p.2.is_finite())
        {
            continue;
        }
        let mut cs: Vec<Corner> = Vec::with_capacity(p.verts.len());
        for v in &p.verts {
            let i = welder.index(v.p);
            if cs.last().map(|c| c.v) != Some(i) {
                cs.push(Corner {
                    v: i,
                    uv: v.uv.clone(),
                });
            }
        }
        while cs.len() > 1 && cs.first().map(|c| c.v) == cs.last().map(|c| c.v) {
            cs.pop();
        }
        if cs.len() >= 3 {
            welded.push((cs, p));
        }
    }
    let points = welder.points;
    // T-junctions: vertices on an edge's open segment are inserted into it.
    let mut by_x: Vec<(f64, u32)> = points
        .iter()
        .enumerate()
        .map(|(i, p)| (p.0, i as u32))
        .collect();
    by_x.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut tests = 0u64;
    let mut faces = Vec::new();
    let mut corner_uv: Vec<Vec<[f64; 3]>> = Vec::new();
    for (cs, src) in &welded {
        let mut ring: Vec<Corner> = Vec::with_capacity(cs.len());
        for (k, a) in cs.iter().enumerate() {
            let b = &cs[(k + 1) % cs.len()];
            ring.push(Corner {
                v: a.v,
                uv: a.uv.clone(),
            });
            let (pa, pb) = (points[a.v as usize], points[b.v as usize]);
            let d = pb.minus(pa);
            let len2 = d.dot(d);
            if len2 <= 0.0 {
                continue;
            }
            let lo = pa.0.min(pb.0) - eps;
            let hi = pa.0.max(pb.0) + eps;
            let start = by_x.partition_point(|e| e.0 < lo);
            let mut on: Vec<(f64, u32)> = Vec::new();
            for &(x, i) in &by_x[start..] {
                if x > hi {
                    break;
                }
                tests += 1;
                if i == a.v || i == b.v {
                    continue;
                }
                let q = points[i as usize];
                let t = q.minus(pa).dot(d) / len2;
                if t <= 0.0 || t >= 1.0 {
                    continue;
                }
                if pa.plus(d.scale(t)).minus(q).len() <= eps {
                    on.push((t, i));
                }
            }
            if tests > MAX_EDGE_TESTS {
                return Err("Boolean: too many vertices to match against edges".into());
            }
            on.sort_by(|x, y| x.0.total_cmp(&y.0));
            for (t, i) in on {
                let uv =
                    a.uv.iter()
                        .zip(&b.uv)
                        .map(|(x, y)| [0, 1, 2].map(|c| x[c] + (y[c] - x[c]) * t))
                        .collect();
                ring.push(Corner { v: i, uv });
            }
        }
        if ring.len() > MAX_RING {
            return Err(format!(
                "Boolean: a polygon with {} corners after splitting",
                ring.len()
            ));
        }
        triangulate(&points, ring, src, eps, &mut faces, &mut corner_uv);
    }
    // Drop vertices no face uses, keeping the order.
    let mut used = vec![u32::MAX; points.len()];
    let mut vertices = Vec::new();
    for f in &mut faces {
        for c in &mut f.v {
            let slot = &mut used[*c as usize];
            if *slot == u32::MAX {
                *slot = vertices.len() as u32;
                vertices.push(points[*c as usize]);
            }
            *c = *slot;
        }
    }
    let maps = channels
        .iter()
        .enumerate()
        .map(|(k, &channel)| {
            let mut index: HashMap<[u64; 3], u32> = HashMap::new();
            let mut mv: Vec<[f32; 3]> = Vec::new();
            let mf = corner_uv
                .chunks_exact(3)
                .map(|tri| {
                    [0, 1, 2].map(|c| {
                        let v = tri[c].get(k).copied().unwrap_or([0.0; 3]).map(|x| x as f32);
                        *index
                            .entry(v.map(|x| u64::from(x.to_bits())))
                            .or_insert_with(|| {
                                mv.push(v);
                                (mv.len() - 1) as u32
                            })
                    })
                })
                .collect();
            MapChannel {
                channel,
                vertices: mv,
                faces: mf,
            }
        })
        .collect();
    Ok(Mesh {
        vertices,
        faces,
        maps,
    })
}

/// Cuts a convex polygon (which may have straight-angle corners from the
/// T-junction repair) into triangles by clipping strictly convex corners.
fn triangulate(
    points: &[Vec3],
    mut ring: Vec<Corner>,
    src: &Poly,
    eps: f64,
    faces: &mut Vec<Face>,
    corner_uv: &mut Vec<Vec<[f64; 3]>>,
) {
    let n = src.plane.n;
    let area = |a: u32, b: u32, c: u32| {
        let (pa, pb, pc) = (points[a as usize], points[b as usize], points[c as usize]);
        pb.minus(pa).cross(pc.minus(pb)).dot(n)
    };
    while ring.len() >= 3 {
        let k = ring.len();
        // The corner with the largest turn whose cut p–q passes no other corner
        // (cutting across a straight run would leave a T-junction).
        let on_cut = |p: usize, q: usize| {
            let (a, b) = (points[ring[p].v as usize], points[ring[q].v as usize]);
            let d = b.minus(a);
            let len2 = d.dot(d);
            ring.iter().enumerate().any(|(j, c)| {
                if j == p || j == q || len2 <= 0.0 {
                    return false;
                }
                let x = points[c.v as usize];
                let t = x.minus(a).dot(d) / len2;
                t > 0.0 && t < 1.0 && a.plus(d.scale(t)).minus(x).len() <= eps
            })
        };
        let turns: Vec<(usize, f64)> = (0..k)
            .map(|i| {
                let (p, c, q) = (ring[(i + k - 1) % k].v, ring[i].v, ring[(i + 1) % k].v);
                (i, area(p, c, q))
            })
            .filter(|&(_, a)| a > eps * eps)
            .collect();
        // Slivers thinner than eps may have no clean cut: then the widest corner
        // anyway (a hairline T-junction beats a hole).
        let widest = |list: &mut dyn Iterator<Item = (usize, f64)>| {
            list.max_by(|x: &(usize, f64), y: &(usize, f64)| x.1.total_cmp(&y.1))
        };
        let clean = widest(
            &mut turns
                .iter()
                .copied()
                .filter(|&(i, _)| !on_cut((i + k - 1) % k, (i + 1) % k)),
        );
        if clean.is_none() && fan(&ring, &area, eps, src, faces, corner_uv) {
            return;
        }
        let Some((i, a)) = clean.or_else(|| widest(&mut turns.iter().copied())) else {
            return;
        };
        let (p, q) = ((i + k - 1) % k, (i + 1) % k);
        if a <= eps * eps {
            return;
        }
        faces.push(Face {
            v: [ring[p].v, ring[i].v, ring[q].v],
            smoothing: src.smoothing,
            material: src.material,
            flags: src.flags,
        });
        corner_uv.push(ring[p].uv.clone());
        corner_uv.push(ring[i].uv.clone());
        corner_uv.push(ring[q].uv.clone());
        ring.remove(i);
    }
}

/// A sliver (thinner than eps) may have no clean ear; a fan from a corner that
/// sees every other edge at a non-zero angle keeps every boundary edge whole.
/// False when no corner does.
fn fan(
    ring: &[Corner],
    area: &dyn Fn(u32, u32, u32) -> f64,
    eps: f64,
    src: &Poly,
    faces: &mut Vec<Face>,
    corner_uv: &mut Vec<Vec<[f64; 3]>>,
) -> bool {
    let k = ring.len();
    let apex = (0..k)
        .map(|c| {
            let worst = (1..k - 1)
                .map(|j| area(ring[c].v, ring[(c + j) % k].v, ring[(c + j + 1) % k].v))
                .fold(f64::INFINITY, f64::min);
            (c, worst)
        })
        .max_by(|x, y| x.1.total_cmp(&y.1));
    let Some((c, worst)) = apex else { return false };
    if worst <= eps * eps {
        return false;
    }
    for j in 1..k - 1 {
        let (x, y) = ((c + j) % k, (c + j + 1) % k);
        faces.push(Face {
            v: [ring[c].v, ring[x].v, ring[y].v],
            smoothing: src.smoothing,
            material: src.material,
            flags: src.flags,
        });
        corner_uv.push(ring[c].uv.clone());
        corner_uv.push(ring[x].uv.clone());
        corner_uv.push(ring[y].uv.clone());
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(min: [f64; 3], max: [f64; 3]) -> Mesh {
        let v: Vec<Vec3> = (0..8)
            .map(|i| {
                Vec3(
                    if i & 1 != 0 { max[0] } else { min[0] },
                    if i & 2 != 0 { max[1] } else { min[1] },
                    if i & 4 != 0 { max[2] } else { min[2] },
                )
            })
            .collect();
        let quads = [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ];
        let mut faces = Vec::new();
        for (k, q) in quads.iter().enumerate() {
            for t in [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] {
                faces.push(Face {
                    v: t,
                    smoothing: 1 << k,
                    material: k as u16,
                    flags: 7,
                });
            }
        }
        Mesh {
            vertices: v,
            faces,
            maps: Vec::new(),
        }
    }

    fn run(a: &Mesh, b: &Mesh, op: Op) -> Result<Mesh, String> {
        csg(a, b, op, &Cell::new(0))
    }

    fn area(m: &Mesh) -> f64 {
        m.faces
            .iter()
            .map(|f| {
                let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
                b.minus(a).cross(c.minus(a)).len() / 2.0
            })
            .sum()
    }

    fn closed(m: &Mesh) -> bool {
        let mut edges: HashMap<(u32, u32), i32> = HashMap::new();
        for f in &m.faces {
            for k in 0..3 {
                let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
                *edges.entry((a.min(b), a.max(b))).or_default() += if a < b { 1 } else { -1 };
            }
        }
        edges.values().all(|&n| n == 0)
    }

    #[test]
    fn overlapping_cubes() {
        let a = cube([0.0; 3], [2.0; 3]);
        let b = cube([1.0; 3], [3.0; 3]);
        let u = run(&a, &b, Op::Union).unwrap();
        assert!(
            (area(&u) - (24.0 + 24.0 - 6.0)).abs() < 1e-9,
            "{}",
            area(&u)
        );
        assert!(closed(&u));
        let i = run(&a, &b, Op::Intersection).unwrap();
        assert!((area(&i) - 6.0).abs() < 1e-9);
        assert!(closed(&i));
        let d = run(&a, &b, Op::AMinusB).unwrap();
        assert!((area(&d) - 24.0).abs() < 1e-9);
        assert!(closed(&d));
        let d = run(&a, &b, Op::BMinusA).unwrap();
        assert!((area(&d) - 24.0).abs() < 1e-9);
        assert!(closed(&d));
    }

    #[test]
    fn coplanar_faces_merge() {
        // Two cubes side by side sharing the face x = 1 and the planes y, z.
        let a = cube([0.0; 3], [1.0; 3]);
        let b = cube([1.0, 0.0, 0.0], [2.0, 1.0, 1.0]);
        let u = run(&a, &b, Op::Union).unwrap();
        assert!((area(&u) - 10.0).abs() < 1e-9, "{}", area(&u));
        assert!(closed(&u));
        // A notch cut flush with the top face.
        let c = cube([0.25, 0.25, 0.5], [0.75, 0.75, 1.0]);
        let d = run(&a, &c, Op::AMinusB).unwrap();
        assert!((area(&d) - (6.0 + 4.0 * 0.25)).abs() < 1e-9, "{}", area(&d));
        assert!(closed(&d));
        assert!(d.faces.iter().any(|f| f.material == 1));
    }

    /// Map values follow the surface: with uvw = position on both operands, every
    /// corner of the result (split points and T-junction points included) must
    /// still carry its own position.
    #[test]
    fn map_channels_are_interpolated_at_splits() {
        let with_map = |mut m: Mesh| {
            m.maps.push(MapChannel {
                channel: 1,
                vertices: m
                    .vertices
                    .iter()
                    .map(|v| [v.0 as f32, v.1 as f32, v.2 as f32])
                    .collect(),
                faces: m.faces.iter().map(|f| f.v).collect(),
            });
            m
        };
        let a = with_map(cube([0.0; 3], [2.0; 3]));
        let b = with_map(cube([1.0, 0.5, 1.0], [3.0, 1.5, 3.0]));
        for op in [Op::Union, Op::AMinusB, Op::Intersection] {
            let r = run(&a, &b, op).unwrap();
            assert!(closed(&r), "{op:?}");
            let map = &r.maps[0];
            assert_eq!(map.faces.len(), r.faces.len());
            for (f, mf) in r.faces.iter().zip(&map.faces) {
                for (&v, &t) in f.v.iter().zip(mf) {
                    let p = r.vertices[v as usize];
                    let uv = map.vertices[t as usize];
                    let d = Vec3(uv[0].into(), uv[1].into(), uv[2].into()).minus(p);
                    assert!(d.len() < 1e-5, "{op:?}: {uv:?} at {p:?}");
                }
            }
        }
        // A channel one operand lacks is dropped.
        let r = run(&a, &cube([1.0; 3], [3.0; 3]), Op::Union).unwrap();
        assert!(r.maps.is_empty());
    }

    #[test]
    fn work_is_capped() {
        let a = cube([0.0; 3], [2.0; 3]);
        let b = cube([1.0; 3], [3.0; 3]);
        let e = csg(&a, &b, Op::Union, &Cell::new(MAX_WORK)).unwrap_err();
        assert!(e.contains("vertex-plane tests"), "{e}");
    }
}
