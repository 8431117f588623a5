//! The CSG result as a Max mesh: union / subtraction / intersection of the
//! operand polygons, then welded corners, triangulated polygons and map channels.

use super::*;
use crate::eval::error::EvalError;

/// Combines two closed triangle meshes (same space) by `op`.
pub(super) fn csg(a: &Mesh, b: &Mesh, op: Op, budget: &Budget) -> Result<Mesh, EvalError> {
    for m in [a, b] {
        if m.faces.len() > MAX_INPUT_FACES {
            return Err(EvalError::limit(
                format!("Boolean operand of {} faces", m.faces.len()),
                MAX_INPUT_FACES,
            ));
        }
    }
    let size = extent(&[a, b]);
    let ctx = Ctx {
        eps: if size > 0.0 { size * REL_EPS } else { REL_EPS },
        polygons: Cell::new(0),
        work: &budget.work,
        edge_tests: &budget.edge_tests,
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
        Op::Union => union_into(&ctx, &mut ta, &mut tb)?,
        // A − B is the complement of (complement of A) ∪ B.
        Op::AMinusB | Op::BMinusA => {
            ta.invert();
            union_into(&ctx, &mut ta, &mut tb)?;
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
    let mesh = assemble(&ctx, ta.all(), &channels)?;
    // Max keeps the result's corners and the operands' own vertices only.
    let kept: Vec<Vec3> = a.vertices.iter().chain(&b.vertices).copied().collect();
    Ok(super::corners::keep_corners(mesh, &kept, ctx.eps))
}

/// Makes `ta` the union of the solids of `ta` and `tb` (`tb` is left
/// clipped): each tree is clipped to the other, and `ta` takes in the
/// polygons left of `tb`.
fn union_into(ctx: &Ctx, ta: &mut Bsp, tb: &mut Bsp) -> Result<(), EvalError> {
    ta.clip_to(ctx, tb)?;
    tb.clip_to(ctx, ta)?;
    tb.invert();
    tb.clip_to(ctx, ta)?;
    tb.invert();
    ta.build(ctx, tb.all())
}

// ---------------------------------------------------------------------------
// From split polygons to a conforming triangle mesh: weld equal positions,
// insert the vertices that lie on other polygons' edges (T-junctions left by
// the splits), and cut each convex polygon into triangles.

/// Welds positions within `eps` through a hash grid.
pub(super) struct Welder {
    pub(super) cell: f64,
    pub(super) grid: HashMap<(i64, i64, i64), Vec<u32>>,
    pub(super) points: Vec<Vec3>,
    pub(super) eps: f64,
}

impl Welder {
    pub(super) fn new(eps: f64) -> Welder {
        Welder {
            cell: (eps * 2.0).max(f64::MIN_POSITIVE),
            grid: HashMap::new(),
            points: Vec::new(),
            eps,
        }
    }

    pub(super) fn key(&self, p: Vec3) -> (i64, i64, i64) {
        let k = |x: f64| (x / self.cell).floor() as i64;
        (k(p.0), k(p.1), k(p.2))
    }

    /// A point within `eps` of `p`, if any.
    pub(super) fn find(&self, p: Vec3) -> Option<u32> {
        let (x, y, z) = self.key(p);
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    if let Some(list) = self.grid.get(&(x + dx, y + dy, z + dz)) {
                        if let Some(&i) = list
                            .iter()
                            .find(|&&i| self.points[i as usize].minus(p).len() <= self.eps)
                        {
                            return Some(i);
                        }
                    }
                }
            }
        }
        None
    }

    /// Adds `p` as a point of its own.
    pub(super) fn insert(&mut self, p: Vec3) -> u32 {
        let i = self.points.len() as u32;
        self.points.push(p);
        let k = self.key(p);
        self.grid.entry(k).or_default().push(i);
        i
    }

    /// The point `p` welds to, added when there is none.
    pub(super) fn index(&mut self, p: Vec3) -> u32 {
        match self.find(p) {
            Some(i) => i,
            None => self.insert(p),
        }
    }
}

pub(super) struct Corner {
    pub(super) v: u32,
    pub(super) uv: Vec<[f64; 3]>,
}

pub(super) fn assemble(ctx: &Ctx, polys: Vec<Poly>, channels: &[i32]) -> Result<Mesh, EvalError> {
    let eps = ctx.eps;
    let mut welder = Welder::new(eps);
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
    let mut tests = ctx.edge_tests.get();
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
            ctx.edge_tests.set(tests);
            if tests > MAX_EDGE_TESTS {
                return Err(EvalError::limit(
                    "Boolean: vertex-edge tests",
                    MAX_EDGE_TESTS,
                ));
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
            return Err(EvalError::malformed(
                "Boolean",
                format!("a polygon with {} corners after splitting", ring.len()),
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
        ..Default::default()
    })
}

/// Cuts a convex polygon (which may have straight-angle corners from the
/// T-junction repair) into triangles by clipping strictly convex corners.
pub(super) fn triangulate(
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
        push_triangle([&ring[p], &ring[i], &ring[q]], src, faces, corner_uv);
        ring.remove(i);
    }
}

/// Adds the triangle of three ring corners with `src`'s smoothing, material
/// and edge flags, and its corners' map coordinates: an ear and a fan piece
/// are the same kind of output face.
fn push_triangle(
    corners: [&Corner; 3],
    src: &Poly,
    faces: &mut Vec<Face>,
    corner_uv: &mut Vec<Vec<[f64; 3]>>,
) {
    faces.push(Face {
        v: corners.map(|c| c.v),
        smoothing: src.smoothing,
        material: src.material,
        flags: src.flags,
    });
    corner_uv.extend(corners.map(|c| c.uv.clone()));
}

/// A sliver (thinner than eps) may have no clean ear; a fan from a corner that
/// sees every other edge at a non-zero angle keeps every boundary edge whole.
/// False when no corner does.
pub(super) fn fan(
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
        push_triangle([&ring[c], &ring[x], &ring[y]], src, faces, corner_uv);
    }
    true
}
