//! The BSP trees of the CSG: planes, polygons with their map corners, splitting
//! and clipping within the work budget.

use super::*;
use crate::eval::error::EvalError;

#[derive(Debug, Clone, Copy)]
pub(super) struct Plane {
    pub(super) n: Vec3,
    pub(super) w: f64,
}

impl Plane {
    pub(super) fn flipped(self) -> Plane {
        Plane {
            n: self.n.scale(-1.0),
            w: -self.w,
        }
    }
}

#[derive(Debug, Clone)]
pub(super) struct Vert {
    pub(super) p: Vec3,
    /// One value per carried map channel.
    pub(super) uv: Vec<[f64; 3]>,
}

pub(super) fn lerp(a: &Vert, b: &Vert, t: f64) -> Vert {
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
pub(super) struct Poly {
    pub(super) verts: Vec<Vert>,
    pub(super) plane: Plane,
    pub(super) material: u16,
    pub(super) smoothing: u32,
    pub(super) flags: u16,
}

impl Poly {
    pub(super) fn flip(&mut self) {
        self.verts.reverse();
        self.plane = self.plane.flipped();
    }
}

pub(super) const COPLANAR: u8 = 0;
pub(super) const FRONT: u8 = 1;
pub(super) const BACK: u8 = 2;
pub(super) const SPANNING: u8 = 3;

pub(super) struct Ctx<'w> {
    pub(super) eps: f64,
    pub(super) polygons: Cell<usize>,
    pub(super) work: &'w Cell<u64>,
    /// The evaluation's vertex-edge tests (T-junction repair).
    pub(super) edge_tests: &'w Cell<u64>,
}

impl Ctx<'_> {
    /// Adds `n` vertex-plane tests (or tree-node visits) to the work of the
    /// evaluation; past [`MAX_WORK`], the Boolean is refused.
    pub(super) fn charge(&self, n: u64) -> Result<(), EvalError> {
        self.work.set(self.work.get().saturating_add(n));
        if self.work.get() > MAX_WORK {
            return Err(EvalError::limit(
                "Boolean: vertex-plane tests (operands too large or damaged)",
                MAX_WORK,
            ));
        }
        Ok(())
    }

    pub(super) fn count(&self, n: usize) -> Result<(), EvalError> {
        self.polygons.set(self.polygons.get() + n);
        if self.polygons.get() > MAX_POLYGONS {
            return Err(EvalError::limit(
                "Boolean: polygons after splitting",
                MAX_POLYGONS,
            ));
        }
        Ok(())
    }
}

/// Where a split sends a polygon.
pub(super) struct Sides<'a> {
    pub(super) coplanar_front: &'a mut Vec<Poly>,
    pub(super) coplanar_back: &'a mut Vec<Poly>,
    pub(super) front: &'a mut Vec<Poly>,
    pub(super) back: &'a mut Vec<Poly>,
}

pub(super) fn split(ctx: &Ctx, plane: Plane, poly: Poly, out: Sides) -> Result<(), EvalError> {
    ctx.charge(poly.verts.len() as u64)?;
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
pub(super) struct Node {
    pub(super) plane: Option<Plane>,
    pub(super) front: Option<usize>,
    pub(super) back: Option<usize>,
    pub(super) polys: Vec<Poly>,
}

/// A BSP tree in an arena, walked with explicit work lists (no recursion depth
/// limit on deep trees).
#[derive(Default)]
pub(super) struct Bsp {
    pub(super) nodes: Vec<Node>,
}

impl Bsp {
    pub(super) fn new(ctx: &Ctx, polys: Vec<Poly>) -> Result<Bsp, EvalError> {
        let mut b = Bsp {
            nodes: vec![Node::default()],
        };
        b.build(ctx, polys)?;
        Ok(b)
    }

    pub(super) fn build(&mut self, ctx: &Ctx, polys: Vec<Poly>) -> Result<(), EvalError> {
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
    pub(super) fn invert(&mut self) {
        for n in &mut self.nodes {
            n.polys.iter_mut().for_each(Poly::flip);
            n.plane = n.plane.map(Plane::flipped);
            std::mem::swap(&mut n.front, &mut n.back);
        }
    }

    /// The parts of `polys` outside this tree's solid.
    pub(super) fn clip_polygons(
        &self,
        ctx: &Ctx,
        polys: Vec<Poly>,
    ) -> Result<Vec<Poly>, EvalError> {
        let mut out = Vec::new();
        let mut work = vec![(0usize, polys)];
        while let Some((at, polys)) = work.pop() {
            // An empty list has nothing to clip: walking the subtree with it
            // would visit every node of `other` for each node of the tree
            // being clipped (clip_to hands every node's list over, most of
            // them empty after the first clip), nodes × nodes. Each visit
            // that remains is charged to the work budget with the splits it
            // makes.
            if polys.is_empty() {
                continue;
            }
            ctx.charge(1)?;
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

    pub(super) fn clip_to(&mut self, ctx: &Ctx, other: &Bsp) -> Result<(), EvalError> {
        for i in 0..self.nodes.len() {
            let polys = std::mem::take(&mut self.nodes[i].polys);
            self.nodes[i].polys = other.clip_polygons(ctx, polys)?;
        }
        Ok(())
    }

    pub(super) fn all(&self) -> Vec<Poly> {
        self.nodes.iter().flat_map(|n| n.polys.clone()).collect()
    }
}

/// Polygons of a mesh, with the values of `channels` at each corner.
pub(super) fn polygons(m: &Mesh, channels: &[i32]) -> Vec<Poly> {
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
pub(super) fn shared_channels(a: &Mesh, b: &Mesh) -> Vec<i32> {
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

pub(super) fn extent(meshes: &[&Mesh]) -> f64 {
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
