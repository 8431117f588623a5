//! The Bone object (Max's procedural bone geometry, a ParamBlock2 primitive):
//! a box-like shaft from a small pyramid at the root to a tapered end along the
//! bone's local X, with optional fins, built from the parameters the way Max's
//! bone object lays out its vertices and faces (order, material ids and
//! smoothing groups), so that meshes of bone nodes are not missing.

use crate::eval::error::EvalError;
use crate::typed::ClassId;

use crate::eval::core::math::Vec3;
use crate::eval::objects::mesh::{Face, Mesh};
use crate::eval::objects::primitive::Params;

pub const BONE_OBJECT: ClassId = ClassId(0x28bf6e8d, 0x2ecca840);

/// Max refuses a full taper (a degenerate end), clamping to this.
const ALMOST_ONE: f64 = 0.999;
/// Edge visibility of a quad's two triangles: the diagonal (edge 1) is hidden.
const QUAD_EDGES: u16 = 0b101;
const ALL_EDGES: u16 = 0b111;

/// Parameter ids of the bone's block.
mod id {
    pub const WIDTH: usize = 0;
    pub const HEIGHT: usize = 1;
    pub const TAPER: usize = 2;
    pub const LENGTH: usize = 3;
    /// Side fins, then front fin, then back fin: on, size, start taper, end taper.
    pub const SIDE_FINS: usize = 4;
    pub const FRONT_FIN: usize = 8;
    pub const BACK_FIN: usize = 12;
}

/// One fin's size and tapers (fractions of its base edges).
struct Fin {
    size: f64,
    start: f64,
    end: f64,
}

fn fin(p: &Params, first: usize) -> Result<Option<Fin>, EvalError> {
    if !p.flag(first, false) {
        return Ok(None);
    }
    let (size, mut start, mut end) = (
        p.float(first + 1)?,
        p.float(first + 2)?,
        p.float(first + 3)?,
    );
    // Tapers that together exceed the edge share the excess equally.
    if start + end > ALMOST_ONE {
        let d = (ALMOST_ONE - start - end) * 0.5;
        start += d;
        end += d;
    }
    Ok(Some(Fin { size, start, end }))
}

/// Two triangles of quad (a, b, c, d): (a, d, b) and (c, b, d).
fn quad(faces: &mut Vec<Face>, [a, b, c, d]: [u32; 4], smoothing: u32, material: u16) {
    for v in [[a, d, b], [c, b, d]] {
        faces.push(Face {
            v,
            smoothing,
            material,
            flags: QUAD_EDGES,
        });
    }
}

/// The five faces of a box section from four base corners (0–3) to four far
/// corners (4–7) starting at `s`: end, top, right, left, bottom, each in its own
/// smoothing group (bits 0–4) with material ids 0–4.
fn section(faces: &mut Vec<Face>, s: u32) {
    let q = |a: u32, b: u32, c: u32, d: u32| [s + a, s + b, s + c, s + d];
    quad(faces, q(4, 5, 6, 7), 1 << 0, 0);
    quad(faces, q(1, 2, 6, 5), 1 << 1, 1);
    quad(faces, q(0, 1, 5, 4), 1 << 2, 2);
    quad(faces, q(7, 6, 2, 3), 1 << 3, 3);
    quad(faces, q(4, 7, 3, 0), 1 << 4, 4);
}

/// A fin on the shaft face (i0, i1, i2, i3): a box inset from the face's
/// borders, extruded along the face normal by `size`, its outer edge shortened
/// at the start and end by the tapers.
fn add_fin(v: &mut Vec<Vec3>, faces: &mut Vec<Face>, f: &Fin, [i0, i1, i2, i3]: [usize; 4]) {
    let (v0, v1, v2, v3) = (v[i0], v[i1], v[i2], v[i3]);
    let mid = |a: Vec3, b: Vec3| a.plus(b).scale(0.5);
    let horiz = mid(v3, v2).minus(mid(v1, v0));
    let vert = mid(v1, v2).minus(mid(v3, v0));
    let normal = horiz.cross(vert).normalized();
    // The border is a third of the root edge, at most half the face's length.
    let mut border = v1.minus(v0).len() / 3.0;
    if horiz.len() < border * 2.0 {
        border = horiz.len() * 0.5;
    }
    let toward = |a: Vec3, b: Vec3| a.plus(b.minus(a).normalized().scale(border));
    let (p0, p1, p2, p3) = (
        toward(v0, v3),
        toward(v1, v2),
        toward(v2, v1),
        toward(v3, v0),
    );
    // The middle third across the face.
    let third = |a: Vec3, b: Vec3| a.scale(2.0 / 3.0).plus(b.scale(1.0 / 3.0));
    let base = [third(p0, p1), third(p1, p0), third(p2, p3), third(p3, p2)];
    let top = base[2].minus(base[1]);
    let bottom = base[3].minus(base[0]);
    let out = normal.scale(f.size);
    let s = v.len() as u32;
    v.extend(base);
    v.push(base[0].plus(out).plus(bottom.scale(f.start)));
    v.push(base[1].plus(out).plus(top.scale(f.start)));
    v.push(base[2].plus(out).minus(top.scale(f.end)));
    v.push(base[3].plus(out).minus(bottom.scale(f.end)));
    section(faces, s);
}

/// The bone's mesh: width (0) along local Z, height (1) along Y, taper (2) of
/// the end section, length (3) along X; side fins (4–7), front fin (8–11), back
/// fin (12–15), each on/size/start taper/end taper. Vertices 0–3 are the shaft's
/// root corners at x = (width + height)/4, 4–7 its end corners at x = length,
/// 8 the pyramid apex at the origin; faces: the shaft section (10), the root
/// pyramid (4, material 5, smoothing groups 5–8), then the fins (10 faces and 8
/// vertices each). Generate Mapping Coords (16) asks Max for face mapping,
/// which is not produced here: the mesh then has no map channel.
pub fn bone_mesh(p: &Params) -> Result<Mesh, EvalError> {
    let (width, height) = (p.float(id::WIDTH)?, p.float(id::HEIGHT)?);
    let taper = p.float(id::TAPER)?.min(ALMOST_ONE);
    let length = p.float(id::LENGTH)?;
    if ![width, height, taper, length].iter().all(|x| x.is_finite()) {
        return Err(EvalError::malformed("", "bone with non-finite dimensions"));
    }
    let side = fin(p, id::SIDE_FINS)?;
    let front = fin(p, id::FRONT_FIN)?;
    let back = fin(p, id::BACK_FIN)?;
    let (w2, h2) = (width * 0.5, height * 0.5);
    let (ew2, eh2) = (w2 * (1.0 - taper), h2 * (1.0 - taper));
    let root = (w2 + h2) * 0.5;
    let mut v = vec![
        Vec3(root, -h2, w2),
        Vec3(root, h2, w2),
        Vec3(root, h2, -w2),
        Vec3(root, -h2, -w2),
        Vec3(length, -eh2, ew2),
        Vec3(length, eh2, ew2),
        Vec3(length, eh2, -ew2),
        Vec3(length, -eh2, -ew2),
        Vec3::default(),
    ];
    let mut faces = Vec::new();
    section(&mut faces, 0);
    for k in 0..4u32 {
        faces.push(Face {
            v: [8, k, (k + 1) % 4],
            smoothing: 1 << (5 + k),
            material: 5,
            flags: ALL_EDGES,
        });
    }
    if let Some(f) = &side {
        add_fin(&mut v, &mut faces, f, [0, 1, 5, 4]);
        add_fin(&mut v, &mut faces, f, [2, 3, 7, 6]);
    }
    if let Some(f) = &front {
        add_fin(&mut v, &mut faces, f, [1, 2, 6, 5]);
    }
    if let Some(f) = &back {
        add_fin(&mut v, &mut faces, f, [3, 0, 4, 7]);
    }
    Ok(Mesh {
        vertices: v,
        faces,
        maps: Vec::new(),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::Value;

    /// Width 4, height 6, taper `taper`, length 20, all three fins on with size
    /// 2 and tapers 0.1 / 0.2 (the corpus's bones have no fins).
    fn params(taper: f32, fins: bool) -> Params {
        let mut v = vec![
            Value::Float(4.0),
            Value::Float(6.0),
            Value::Float(taper),
            Value::Float(20.0),
        ];
        for _ in 0..3 {
            v.extend([
                Value::Bool(fins),
                Value::Float(2.0),
                Value::Float(0.1),
                Value::Float(0.2),
            ]);
        }
        v.push(Value::Bool(false));
        Params::from_values(v)
    }

    #[test]
    fn fins_stand_on_their_faces() {
        let m = bone_mesh(&params(0.5, true)).expect("bone");
        // 9 + 8 per fin (two side fins, front, back); 14 + 10 per fin.
        assert_eq!((m.vertices.len(), m.faces.len()), (9 + 4 * 8, 14 + 4 * 10));
        assert!(m
            .faces
            .iter()
            .all(|f| f.v.iter().all(|&i| (i as usize) < 41)));
        let v = &m.vertices;
        // Each fin (its face's corners) in build order.
        let faces = [[0, 1, 5, 4], [2, 3, 7, 6], [1, 2, 6, 5], [3, 0, 4, 7]];
        for (k, q) in faces.iter().enumerate() {
            let c = q.map(|i| v[i]);
            let n = c[1].minus(c[0]).cross(c[2].minus(c[0])).normalized();
            let fin = &v[9 + 8 * k..17 + 8 * k];
            for p in &fin[..4] {
                assert!(
                    p.minus(c[0]).dot(n).abs() < 1e-9,
                    "fin {k} base off its face"
                );
            }
            for p in &fin[4..] {
                assert!(
                    (p.minus(c[0]).dot(n).abs() - 2.0).abs() < 1e-9,
                    "fin {k} size"
                );
            }
            // The outer edge keeps 1 − 0.1 − 0.2 of the base edge (tapers in f32).
            let kept = 1.0 - f64::from(0.1f32) - f64::from(0.2f32);
            let (base, outer) = (fin[2].minus(fin[1]).len(), fin[6].minus(fin[5]).len());
            assert!(
                (outer - kept * base).abs() < 1e-9,
                "fin {k}: {outer} vs {base}"
            );
        }
    }

    #[test]
    fn full_taper_keeps_a_small_end() {
        let m = bone_mesh(&params(1.0, false)).expect("bone");
        assert_eq!((m.vertices.len(), m.faces.len()), (9, 14));
        let end = m.vertices[5];
        assert!((end.1 - 3.0 * (1.0 - ALMOST_ONE)).abs() < 1e-9, "{end:?}");
        assert!((end.2 - 2.0 * (1.0 - ALMOST_ONE)).abs() < 1e-9, "{end:?}");
    }
}
