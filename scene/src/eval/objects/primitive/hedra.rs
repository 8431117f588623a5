//! Hedra ((0xf21c5e23, 0); Extended Primitives), built as the public Max SDK
//! sample `hedraobj.cpp` / `mkhedra.cpp` builds it (the code here is ours):
//! a Wythoff construction on the spherical triangle of the family's
//! symmetry group.
//!
//! Old ParamBlock by index: 0 radius, 1 family (0 tetra, 1 cube/octa, 2
//! dodeca/icosa, 3 star 1, 4 star 2), 2/3 P and Q (0…1, scaled down to a
//! sum of 1), 4/5/6 axis scale P, Q, R, 7 vertices (0 basic, 1 centre, 2
//! centre and sides), 8 generate mapping.
//!
//! The starting triangle has corners R = (0, 0, 1), P = (sin q, 0, cos q)
//! and Q = (0, sin p, cos p) (q and p the triangle's sides from its angles
//! π/P-order and π/Q-order); the vertex is the normalised (Q·sin q,
//! P·sin p, 1 + Q(cos q − 1) + P(cos p − 1)). Max walks the reflections
//! with a stack (Q, then P, then R pushed), registering every reflected
//! vertex on the way (points within 0.01 are one) and each corner as the
//! first triangle reaching it. Polygons: around each R corner (4 vertices;
//! skipped when P or Q is 0), each P corner (P-order pairs; skipped when
//! P = 0 and Q = 1) and each Q corner (skipped when P = 1 and Q = 0), faced
//! outwards, with side midpoints for "centre and sides", fanned from their
//! first vertex — or from their centre (scaled by the axis scale when that
//! is not 1, all edges then visible) for centre vertices, star polygons and
//! scaled axes. Material id 0 / 1 / 2 for R / P / Q polygons (axis scale
//! P applies to R's, Q to P's, R to Q's, as Max indexes them); smoothing
//! none. Mapping: three texture vertices per face, the face's points
//! projected along its dominant normal axis and divided by the mesh's size.

use super::Params;
use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Face, MapChannel, Mesh};
use crate::typed::ClassId;
use std::f64::consts::PI;

pub const HEDRA: ClassId = ClassId(0xf21c5e23, 0);

/// P and Q orders (numerator / denominator) per family.
const P_ORDER: [(u32, u32); 5] = [(3, 1), (3, 1), (3, 1), (3, 1), (5, 1)];
const Q_ORDER: [(u32, u32); 5] = [(3, 1), (4, 1), (5, 1), (5, 2), (5, 2)];

#[derive(Clone, Copy)]
struct Tri {
    p: [[f64; 3]; 3],
    v: [f64; 3],
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn normalised(n: [f64; 3]) -> [f64; 3] {
    let s = dot(n, n).sqrt();
    if s > 0.0 {
        n.map(|x| x / s)
    } else {
        [1.0, 0.0, 0.0]
    }
}

fn reflect(p: [f64; 3], n: [f64; 3]) -> [f64; 3] {
    let d = dot(p, n);
    [
        p[0] - 2.0 * d * n[0],
        p[1] - 2.0 * d * n[1],
        p[2] - 2.0 * d * n[2],
    ]
}

fn same(a: [f64; 3], b: [f64; 3]) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= 0.01)
}

#[derive(Default)]
struct Builder {
    verts: Vec<[f64; 3]>,
    /// Per corner kind (R, P, Q): the corner points and their first triangle.
    axes: [Vec<([f64; 3], Tri)>; 3],
    regtris: Vec<[usize; 3]>,
    faces: Vec<Face>,
}

impl Builder {
    fn vert(&mut self, p: [f64; 3]) -> usize {
        if let Some(i) = self.verts.iter().position(|&q| same(p, q)) {
            return i;
        }
        self.verts.push(p);
        self.verts.len() - 1
    }

    /// Reflects corner `k` of `t` across the plane of the other two.
    fn refl(&mut self, t: &Tri, k: usize) -> Tri {
        let (a, b) = match k {
            0 => (1, 2),
            1 => (0, 2),
            _ => (0, 1),
        };
        let n = normalised(cross(t.p[a], t.p[b]));
        let mut r = *t;
        r.p[k] = reflect(t.p[k], n);
        r.v = reflect(t.v, n);
        self.vert(r.v);
        r
    }

    fn reg_tri(&mut self, t: &Tri) -> bool {
        let mut nax = [0; 3];
        for (k, slot) in nax.iter_mut().enumerate() {
            let list = &mut self.axes[k];
            *slot = match list.iter().position(|(q, _)| same(t.p[k], *q)) {
                Some(i) => i,
                None => {
                    list.push((t.p[k], *t));
                    list.len() - 1
                }
            };
        }
        if self.regtris.contains(&nax) || self.regtris.len() >= 120 {
            return false;
        }
        self.regtris.push(nax);
        true
    }
}

pub fn hedra_mesh(p: &Params) -> Result<Mesh, EvalError> {
    let radius = p.float_or(0, 0.0).clamp(0.0, 1e30);
    let family = p.int_or(1, 0).clamp(0, 4) as usize;
    // Max limits and rescales in single precision.
    let mut fp = (p.float_or(2, 0.0) as f32).clamp(0.0, 1.0);
    let mut fq = (p.float_or(3, 0.0) as f32).clamp(0.0, 1.0);
    let scale = [4, 5, 6].map(|i| p.float_or(i, 1.0) as f32);
    let vts = p.int_or(7, 0).clamp(0, 2);
    let mapping = p.flag(8, true);
    if !(radius.is_finite()
        && fp.is_finite()
        && fq.is_finite()
        && scale.iter().all(|s| s.is_finite()))
    {
        return Err(EvalError::malformed("", "a parameter is not finite"));
    }
    if fp + fq > 1.0 {
        let s = 1.0 / (fp + fq);
        fp *= s;
        fq *= s;
    }
    let (cp, cq) = (f64::from(fp), f64::from(fq));
    let ((np, dp), (nq, dq)) = (P_ORDER[family], Q_ORDER[family]);
    let pang = PI * f64::from(dp) / f64::from(np);
    let qang = PI * f64::from(dq) / f64::from(nq);
    let cosp = pang.cos() / qang.sin();
    let cosq = qang.cos() / pang.sin();
    let sinp = (1.0 - cosp * cosp).sqrt();
    let sinq = (1.0 - cosq * cosq).sqrt();
    let t0 = Tri {
        p: [[0.0, 0.0, 1.0], [sinq, 0.0, cosq], [0.0, sinp, cosp]],
        v: normalised([
            cq * sinq,
            cp * sinp,
            1.0 + cq * (cosq - 1.0) + cp * (cosp - 1.0),
        ]),
    };
    let mut b = Builder::default();
    b.vert(t0.v);
    // The reflection walk: a stack, Q then P then R pushed (R popped first).
    let mut stack = vec![(t0, 3usize)];
    while let Some((t, op)) = stack.pop() {
        if !b.reg_tri(&t) {
            continue;
        }
        for k in [2, 1, 0] {
            if op != k {
                let r = b.refl(&t, k);
                stack.push((r, k));
            }
        }
        if stack.len() > 10_000 {
            return Err(EvalError::malformed(
                "",
                "Hedra reflection walk does not end",
            ));
        }
    }
    let mut do_axis = [true; 3];
    let star = [false, dp > 1, dq > 1];
    if cp == 0.0 || cq == 0.0 {
        do_axis[0] = false;
    }
    if cp == 0.0 && cq == 1.0 {
        do_axis[1] = false;
    }
    if cp == 1.0 && cq == 0.0 {
        do_axis[2] = false;
    }
    let nsides = [4, np as usize, nq as usize];
    for ax in 0..3 {
        if !do_axis[ax] {
            continue;
        }
        let starters: Vec<Tri> = b.axes[ax].iter().map(|(_, t)| *t).collect();
        for mut t in starters {
            let mut pol: Vec<usize> = Vec::new();
            let out = |b: &mut Builder, v: [f64; 3], pol: &mut Vec<usize>| {
                let n = b.vert(v);
                if !pol.contains(&n) {
                    pol.push(n);
                }
            };
            if ax == 0 {
                out(&mut b, t.v, &mut pol);
                for k in [1, 2, 1] {
                    t = b.refl(&t, k);
                    out(&mut b, t.v, &mut pol);
                }
            } else {
                let first = if ax == 1 { 2 } else { 1 };
                for _ in 0..nsides[ax] {
                    t = b.refl(&t, first);
                    out(&mut b, t.v, &mut pol);
                    t = b.refl(&t, 0);
                    out(&mut b, t.v, &mut pol);
                }
            }
            out_poly(&mut b, pol, ax, vts, star[ax], scale[ax])?;
        }
    }
    let vertices: Vec<Vec3> = b
        .verts
        .iter()
        .map(|q| Vec3(radius * q[0], radius * q[1], radius * q[2]))
        .collect();
    let mut mesh = Mesh {
        vertices,
        faces: b.faces,
        ..Mesh::default()
    };
    if mapping {
        mesh.maps.push(face_box_map(&mesh)?);
    }
    Ok(mesh)
}

fn out_poly(
    b: &mut Builder,
    mut pol: Vec<usize>,
    ax: usize,
    vts: i64,
    star: bool,
    scale: f32,
) -> Result<(), EvalError> {
    if pol.len() < 3 {
        return Err(EvalError::not_evaluated_why(
            "this Hedra",
            format!("a polygon of {} vertices", pol.len()),
        ));
    }
    // Face it away from the origin.
    let [p0, p1, p2] = [pol[0], pol[1], pol[2]].map(|i| b.verts[i]);
    let d01 = [p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]];
    let d12 = [p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]];
    if dot(cross(d01, d12), p1) < 0.0 {
        pol.reverse();
    }
    if vts == 2 {
        // Side midpoints, registered from the last side back to the first.
        let n = pol.len();
        let mut out = vec![0; 2 * n];
        let mut next = pol[0];
        for i in (0..n).rev() {
            let (a, c) = (b.verts[pol[i]], b.verts[next]);
            out[2 * i] = pol[i];
            out[2 * i + 1] = b.vert([
                (a[0] + c[0]) * 0.5,
                (a[1] + c[1]) * 0.5,
                (a[2] + c[2]) * 0.5,
            ]);
            next = pol[i];
        }
        pol = out;
    }
    let material = ax as u16;
    let face = |v: [usize; 3], flags: u16| Face {
        v: v.map(|i| i as u32),
        smoothing: 0,
        material,
        flags,
    };
    let n = pol.len();
    if vts > 0 || star || scale != 1.0 {
        let mut sum = [0.0; 3];
        for &i in &pol {
            for (s, x) in sum.iter_mut().zip(b.verts[i]) {
                *s += x;
            }
        }
        let mut c = sum.map(|x| x / n as f64);
        let flags = if scale != 1.0 {
            c = c.map(|x| x * f64::from(scale));
            0b111
        } else {
            0b010
        };
        let nc = b.vert(c);
        for i in 0..n {
            b.faces.push(face([nc, pol[i], pol[(i + 1) % n]], flags));
        }
    } else {
        for i in 1..n - 1 {
            let flags = u16::from(i == 1) | 0b010 | (u16::from(i == n - 2) << 2);
            b.faces.push(face([pol[0], pol[i], pol[i + 1]], flags));
        }
    }
    Ok(())
}

/// Max's per-face box mapping: each face's corners projected along its
/// dominant normal axis, divided by the mesh's extent on each axis.
fn face_box_map(m: &Mesh) -> Result<MapChannel, EvalError> {
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for q in &m.vertices {
        for (k, x) in [q.0, q.1, q.2].into_iter().enumerate() {
            lo[k] = lo[k].min(x);
            hi[k] = hi[k].max(x);
        }
    }
    let width = [0, 1, 2].map(|k| hi[k] - lo[k]);
    if m.vertices.is_empty() || width.iter().any(|&w| w <= 0.0) {
        return Err(EvalError::not_evaluated_why(
            "a flat Hedra's mapping",
            "Max divides by its zero size",
        ));
    }
    let mut tv = Vec::with_capacity(3 * m.faces.len());
    let mut tf = Vec::with_capacity(m.faces.len());
    for f in &m.faces {
        let v = f.v.map(|i| {
            let q = m.vertices[i as usize];
            [q.0, q.1, q.2]
        });
        let e1 = [v[1][0] - v[0][0], v[1][1] - v[0][1], v[1][2] - v[0][2]];
        let e2 = [v[2][0] - v[1][0], v[2][1] - v[1][1], v[2][2] - v[1][2]];
        let n = normalised(cross(e1, e2));
        let mut ax = 0;
        if n[1].abs() > n[ax].abs() {
            ax = 1;
        }
        if n[2].abs() > n[ax].abs() {
            ax = 2;
        }
        let (i1, i2) = ((ax + 1) % 3, (ax + 2) % 3);
        let start = tv.len() as u32;
        for q in v {
            tv.push([
                (q[i1] / width[i1]) as f32,
                (q[i2] / width[i2]) as f32,
                (q[ax] / width[ax]) as f32,
            ]);
        }
        tf.push([start, start + 1, start + 2]);
    }
    Ok(MapChannel {
        channel: 1,
        vertices: tv,
        faces: tf,
    })
}

#[cfg(test)]
mod tests {
    //! Invariants from the families' known solids: counts of the Platonic
    //! and Archimedean solids the parameters name, a closed outward surface,
    //! every basic vertex on the radius, the material per polygon kind.
    use super::*;
    use crate::eval::core::pblock::Value;
    use crate::eval::objects::surface_checks::{closed, signed_volume};

    fn params(family: i32, p: f32, q: f32, vts: i32) -> Params {
        Params::from_values(vec![
            Value::Float(5.0),
            Value::Int(family),
            Value::Float(p),
            Value::Float(q),
            Value::Float(1.0),
            Value::Float(1.0),
            Value::Float(1.0),
            Value::Int(vts),
            Value::Int(1),
        ])
    }

    #[test]
    fn known_solids() {
        // (family, p, q) → (vertices, faces as triangles).
        for (f, p, q, nv, nf) in [
            (0, 1.0, 0.0, 4, 4),   // tetrahedron
            (0, 0.0, 1.0, 4, 4),   // the dual tetrahedron
            (0, 0.0, 0.0, 6, 8),   // octahedron (rectified tetrahedron)
            (1, 0.0, 0.0, 12, 20), // cuboctahedron: 8 triangles, 6 squares
            (1, 1.0, 0.0, 6, 8),   // octahedron
            (1, 0.0, 1.0, 8, 12),  // cube
            (2, 1.0, 0.0, 12, 20), // icosahedron
            (2, 0.0, 1.0, 20, 36), // dodecahedron
            (2, 0.0, 0.0, 30, 56), // icosidodecahedron: 20 triangles, 12 pentagons
        ] {
            let m = hedra_mesh(&params(f, p, q, 0)).expect("mesh");
            assert_eq!((m.vertices.len(), m.faces.len()), (nv, nf), "{f} {p} {q}");
            assert!(closed(&m), "{f} {p} {q}");
            assert!(signed_volume(&m) > 0.0);
            for v in &m.vertices {
                assert!(((v.0 * v.0 + v.1 * v.1 + v.2 * v.2).sqrt() - 5.0).abs() < 1e-9);
            }
            m.check_map_faces().expect("map");
            assert_eq!(m.maps[0].vertices.len(), 3 * nf);
        }
    }

    #[test]
    fn centres_sides_and_materials() {
        // Cube with centre vertices: 8 + 6 centres, 6 × 4 triangles.
        let m = hedra_mesh(&params(1, 0.0, 1.0, 1)).expect("mesh");
        assert_eq!((m.vertices.len(), m.faces.len()), (14, 24));
        assert!(closed(&m) && signed_volume(&m) > 0.0);
        // With side midpoints: + 12 edge midpoints, 6 × 8 triangles.
        let m = hedra_mesh(&params(1, 0.0, 1.0, 2)).expect("mesh");
        assert_eq!((m.vertices.len(), m.faces.len()), (26, 48));
        assert!(closed(&m));
        // Cuboctahedron: triangles and squares carry different material ids.
        let m = hedra_mesh(&params(1, 0.0, 0.0, 0)).expect("mesh");
        let mut ids: Vec<u16> = m.faces.iter().map(|f| f.material).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 2);
        assert!(ids.iter().all(|&i| i == 1 || i == 2));
    }
}
