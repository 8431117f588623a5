//! Symmetry (0x2d7e702b, 0xbe41a6e): keeps one side of a plane, adds its
//! mirror image and welds the two along the seam.
//!
//! ParamBlock2 (reference 0), by id: 0 axis (0 X, 1 Y, 2 Z), 1 slice, 2 weld,
//! 3 weld threshold, 4 flip; reference 1 is the gizmo controller. As Max's
//! `SymmetryMod`: the plane passes through the gizmo origin with the gizmo's
//! axis (negated by flip) as normal N, in object space; slicing removes what
//! lies below it (N·p < N·origin) and cuts the polygons that cross it
//! (`symmetry_slice`); the kept
//! faces are copied, reflected through the plane in gizmo space and turned
//! over; vertices within the threshold of the plane that lie within the
//! threshold of each other are welded to their mean.

use crate::eval::error::EvalError;
use std::collections::HashMap;

use super::mirror::clone_reflected;
use super::symmetry_slice::slice_below;
use super::{gizmo, Applied, ModContext};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::objects::mesh::Mesh;
use crate::eval::objects::primitive::Params;

const PBLOCK_SLOT: u32 = 0;
const GIZMO_SLOT: u32 = 1;

/// Symmetry's plane and options, in object space.
pub(super) struct Plane {
    /// Unit normal of the plane (the kept side is n·p ≥ offset).
    pub n: Vec3,
    pub offset: f64,
    /// The reflection through the plane in gizmo space, in object space.
    pub reflect: Mat43,
    pub slice: bool,
    pub weld: bool,
    pub threshold: f64,
}

/// Parameter ids of the block Max 2021 and later save (19 parameters): the
/// first five keep their meaning; 5 the mode (0 planar; radial otherwise),
/// 6–8 the planar X, Y and Z switches, 9–11 their flips, 18 a second weld
/// threshold. Measured on public Max 2023/2024 files (docs/unseen-files.md):
/// a node with X and Y on and Y flipped holds 246 vertices in Max's Mesh
/// Totals, one mirror on X alone 145.
const MODE: usize = 5;
const PLANAR: [usize; 3] = [6, 7, 8];
const PLANAR_FLIP: [usize; 3] = [9, 10, 11];
const THRESHOLD_2021: usize = 18;

/// Reads the planes and options from the parameter block and the gizmo: one
/// plane for the old block (0 axis, 4 flip); for Max 2021's block, one per
/// planar axis switched on, in X, Y, Z order, each applied to the result of
/// the one before (none: the modifier passes its input through).
pub(super) fn planes(m: &Applied, cx: &ModContext) -> Result<Vec<Plane>, EvalError> {
    let p = gizmo::params(cx, m, PBLOCK_SLOT)?;
    let to_object = gizmo::gizmo_to_object(cx, m, GIZMO_SLOT)?;
    let to_gizmo = gizmo::inverse(&to_object, "Symmetry gizmo")?;
    let (slice, weld) = (p.flag(1, true), p.flag(2, true));
    let threshold = p.float_or(3, 0.1).max(0.0);
    Ok(mirrors(&p)?
        .into_iter()
        .map(|(axis, flip)| Plane::on(axis, flip, &to_object, &to_gizmo, slice, weld, threshold))
        .collect())
}

/// The (gizmo axis, flip) of each mirror the block asks for, in the order
/// they apply; radial mode and two different thresholds are refused by name.
fn mirrors(p: &Params) -> Result<Vec<(usize, bool)>, EvalError> {
    if !p.has(PLANAR[0]) {
        let axis = match p.int_or(0, 0) {
            a @ 0..=2 => a as usize,
            a => return Err(EvalError::malformed("", format!("symmetry axis {a}"))),
        };
        return Ok(vec![(axis, p.flag(4, false))]);
    }
    match p.int_or(MODE, 0) {
        0 => {}
        mode => {
            return Err(EvalError::not_evaluated_why(
                "Symmetry",
                format!("mode {mode} (radial symmetry)"),
            ))
        }
    }
    let (first, second) = (p.float_or(3, 0.1), p.float_or(THRESHOLD_2021, 0.1));
    if (second - first).abs() > 1e-6 {
        return Err(EvalError::not_evaluated_why(
            "Symmetry",
            format!("its two weld thresholds differ ({first} and {second}): which one welds is not known"),
        ));
    }
    Ok((0..3)
        .filter(|&a| p.flag(PLANAR[a], false))
        .map(|a| (a, p.flag(PLANAR_FLIP[a], false)))
        .collect())
}

impl Plane {
    /// The plane through the gizmo origin normal to gizmo axis `axis`
    /// (negated by `flip`), in object space.
    fn on(
        axis: usize,
        flip: bool,
        to_object: &Mat43,
        to_gizmo: &Mat43,
        slice: bool,
        weld: bool,
        threshold: f64,
    ) -> Plane {
        let mut dir = [0.0; 3];
        dir[axis] = if flip { -1.0 } else { 1.0 };
        let n = to_object
            .transform_vector(Vec3(dir[0], dir[1], dir[2]))
            .normalized();
        let mut s = [1.0; 3];
        s[axis] = -1.0;
        Plane {
            n,
            offset: n.dot(to_object.0[3]),
            reflect: to_gizmo
                .then(&Mat43::scaling(Vec3(s[0], s[1], s[2])))
                .then(to_object),
            slice,
            weld,
            threshold,
        }
    }
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    for pl in planes(m, cx)? {
        mirror_about(mesh, &pl)?;
    }
    Ok(())
}

/// One plane's slice, mirror and weld.
fn mirror_about(mesh: &mut Mesh, pl: &Plane) -> Result<(), EvalError> {
    if pl.slice {
        slice_below(mesh, pl.n, pl.offset)?;
    }
    clone_reflected(mesh, &pl.reflect, true)?;
    if pl.weld {
        weld_seam(mesh, pl.n, pl.offset, pl.threshold);
    }
    Ok(())
}

/// Welds the seam as `MNMesh::WeldBorderVerts` does: only vertices on an open
/// edge and closer than `threshold` to the plane take part, and each welds to
/// the nearest other such vertex closer than `threshold` (a pair, to its
/// midpoint; the lower index survives). A vertex is never welded twice, so
/// near-plane vertices do not chain into one lump. Closer, not as close: a
/// threshold of 0 welds nothing, not even coincident pairs (the tenth sweep's
/// Headphones1.max: Max's Mesh Totals and the authors' FBX keep all 14 seam
/// pairs apart, 1,078 vertices, twice the 539 of the sliced half), as the
/// polygon form's weld (`symmetry_poly`) already compares.
fn weld_seam(mesh: &mut Mesh, n: Vec3, offset: f64, threshold: f64) {
    let mut uses: HashMap<(u32, u32), u32> = HashMap::new();
    for f in &mesh.faces {
        for k in 0..3 {
            let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
            *uses.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    let mut border = vec![false; mesh.vertices.len()];
    for (&(a, b), &count) in &uses {
        if count == 1 {
            border[a as usize] = true;
            border[b as usize] = true;
        }
    }
    let into = pair_seam(&mut mesh.vertices, &border, n, offset, threshold);
    for f in &mut mesh.faces {
        for v in &mut f.v {
            *v = into[*v as usize] as u32;
        }
    }
    let keep: Vec<bool> = mesh
        .faces
        .iter()
        .map(|f| f.v[0] != f.v[1] && f.v[1] != f.v[2] && f.v[2] != f.v[0])
        .collect();
    let mut k = keep.iter();
    mesh.faces.retain(|_| *k.next().unwrap_or(&false));
    for c in &mut mesh.maps {
        let mut k = keep.iter();
        c.faces.retain(|_| *k.next().unwrap_or(&false));
    }
    mesh.drop_unused_vertices();
}

/// The pairing of `weld_seam` on `vertices` (`border`: on an open edge):
/// moves each pair's survivor to the midpoint and returns, per vertex, the
/// vertex it becomes (itself when not welded).
pub(super) fn pair_seam(
    vertices: &mut [Vec3],
    border: &[bool],
    n: Vec3,
    offset: f64,
    threshold: f64,
) -> Vec<usize> {
    let targets: Vec<usize> = (0..vertices.len())
        .filter(|&i| {
            border.get(i).copied().unwrap_or(false)
                && (n.dot(vertices[i]) - offset).abs() < threshold
        })
        .collect();
    // Grid cells of the threshold's size: near vertices share or touch a cell.
    let cell = threshold.max(1e-9);
    let key = |p: Vec3| [p.0, p.1, p.2].map(|x| (x / cell).floor().clamp(-1e15, 1e15) as i64);
    let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
    for &i in &targets {
        grid.entry(key(vertices[i])).or_default().push(i);
    }
    let mut into: Vec<usize> = (0..vertices.len()).collect();
    let mut done = vec![false; vertices.len()];
    for &i in &targets {
        if done[i] {
            continue;
        }
        let p = vertices[i];
        let k = key(p);
        let mut best: Option<(f64, usize)> = None;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let Some(near) = grid.get(&[k[0] + dx, k[1] + dy, k[2] + dz]) else {
                        continue;
                    };
                    for &j in near {
                        let d = vertices[j].minus(p).len();
                        if j != i && !done[j] && d < threshold && best.is_none_or(|(bd, _)| d < bd)
                        {
                            best = Some((d, j));
                        }
                    }
                }
            }
        }
        if let Some((_, j)) = best {
            let (lo, hi) = (i.min(j), i.max(j));
            vertices[lo] = vertices[lo].plus(vertices[hi]).scale(0.5);
            into[hi] = lo;
            done[i] = true;
            done[j] = true;
        }
    }
    into
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::mesh::Face;

    #[test]
    fn slice_mirror_and_weld_a_quad_across_the_plane() {
        let face = |v| Face {
            v,
            smoothing: 0,
            material: 0,
            flags: 0b111,
        };
        let mut m = Mesh {
            vertices: vec![
                Vec3(-1.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(1.0, 1.0, 0.0),
                Vec3(-1.0, 1.0, 0.0),
            ],
            faces: vec![face([0, 1, 2]), face([0, 2, 3])],
            maps: Vec::new(),
            ..Default::default()
        };
        let n = Vec3(1.0, 0.0, 0.0);
        slice_below(&mut m, n, 0.0).unwrap();
        // Kept: 1, 2 and the cuts of edges 0–1, 0–2 and 2–3 (x = 0).
        assert_eq!(m.vertices.len(), 5);
        assert!(m.vertices.iter().all(|p| p.0 >= 0.0));
        assert_eq!(m.faces.len(), 3);
        clone_reflected(&mut m, &Mat43::scaling(Vec3(-1.0, 1.0, 1.0)), true).unwrap();
        weld_seam(&mut m, n, 0.0, 0.1);
        // The three seam vertices are shared by both halves.
        assert_eq!(m.vertices.len(), 7);
        assert_eq!(m.faces.len(), 6);
        let area: f64 = m
            .faces
            .iter()
            .map(|f| {
                let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
                b.minus(a).cross(c.minus(a)).len() / 2.0
            })
            .sum();
        assert!((area - 2.0).abs() < 1e-12, "{area}");
        for p in &m.vertices {
            assert!(m.vertices.iter().any(|q| *q == Vec3(-p.0, p.1, p.2)));
        }
        // A face over a missing vertex is an error, not a panic.
        let mut bad = m.clone();
        bad.faces[0].v[0] = 99;
        assert!(slice_below(&mut bad, n, 0.0).is_err());
    }

    /// A threshold of 0 welds nothing, even pairs at the same point (Max's
    /// Mesh Totals and FBX of the tenth sweep's Headphones1.max: every seam
    /// pair of its threshold-0 Symmetry stays two vertices).
    #[test]
    fn a_zero_threshold_welds_no_pair() {
        let face = |v: [u32; 3]| Face {
            v,
            smoothing: 0,
            material: 0,
            flags: 0b111,
        };
        let mut m = Mesh {
            vertices: vec![
                Vec3(0.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(0.0, 1.0, 0.0),
            ],
            faces: vec![face([0, 1, 2])],
            maps: Vec::new(),
            ..Default::default()
        };
        clone_reflected(&mut m, &Mat43::scaling(Vec3(-1.0, 1.0, 1.0)), true).unwrap();
        let n = Vec3(1.0, 0.0, 0.0);
        let mut welded = m.clone();
        weld_seam(&mut welded, n, 0.0, 0.1);
        assert_eq!(welded.vertices.len(), 4, "the two seam pairs weld at 0.1");
        weld_seam(&mut m, n, 0.0, 0.0);
        assert_eq!(m.vertices.len(), 6, "no pair welds at 0");
        assert_eq!(m.faces.len(), 2);
    }

    use crate::eval::core::pblock::Value;

    /// A Max 2021+ block: ids 0–4 as before, 5 mode, 6–8 planar X/Y/Z,
    /// 9–11 their flips, 18 the second threshold.
    fn block_2021(planar: [bool; 3], flip: [bool; 3], mode: i32, second: f32) -> Params {
        let mut v = vec![
            Value::Int(0),
            Value::Int(1),
            Value::Int(1),
            Value::Float(0.01),
            Value::Bool(false),
            Value::Int(mode),
        ];
        v.extend(planar.map(Value::Bool));
        v.extend(flip.map(Value::Bool));
        v.extend([
            Value::Int(2),
            Value::Bool(false),
            Value::Int(2),
            Value::Bool(false),
        ]);
        v.extend([Value::None, Value::Bool(false), Value::Float(second)]);
        Params::from_values(v)
    }

    #[test]
    fn the_2021_block_mirrors_on_each_planar_axis_switched_on() {
        let old = Params::from_values(vec![
            Value::Int(2),
            Value::Int(1),
            Value::Int(1),
            Value::Float(0.1),
            Value::Bool(true),
        ]);
        assert_eq!(mirrors(&old).unwrap(), [(2, true)]);
        let xy = block_2021([true, true, false], [false, true, false], 0, 0.01);
        assert_eq!(mirrors(&xy).unwrap(), [(0, false), (1, true)]);
        // Axis 0 of the old layout no longer decides: only Z is on.
        let z = block_2021([false, false, true], [false; 3], 0, 0.01);
        assert_eq!(mirrors(&z).unwrap(), [(2, false)]);
        let none = block_2021([false; 3], [false, false, true], 0, 0.01);
        assert!(mirrors(&none).unwrap().is_empty());
        let radial = block_2021([true, false, false], [false; 3], 1, 0.01);
        assert!(matches!(
            mirrors(&radial),
            Err(EvalError::NotEvaluated { .. })
        ));
        let two = block_2021([true, false, false], [false; 3], 0, 0.5);
        assert!(matches!(mirrors(&two), Err(EvalError::NotEvaluated { .. })));
    }

    #[test]
    fn mirrors_on_x_then_flipped_y_make_the_whole_square_from_one_quarter() {
        let face = |v| Face {
            v,
            smoothing: 0,
            material: 0,
            flags: 0b011,
        };
        // The quarter x ≥ 0, y ≤ 0 of the square [−1, 1]², as two triangles
        // facing +z.
        let mut m = Mesh {
            vertices: vec![
                Vec3(0.0, -1.0, 0.0),
                Vec3(1.0, -1.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(0.0, 0.0, 0.0),
            ],
            faces: vec![face([0, 1, 2]), face([0, 2, 3])],
            ..Mesh::default()
        };
        let id = Mat43::scaling(Vec3(1.0, 1.0, 1.0));
        for (axis, flip) in [(0, false), (1, true)] {
            let pl = Plane::on(axis, flip, &id, &id, true, true, 0.01);
            mirror_about(&mut m, &pl).unwrap();
        }
        // A 2 × 2 grid of quads: 9 vertices, 8 triangles, area 4, all facing +z.
        assert_eq!(m.vertices.len(), 9);
        assert_eq!(m.faces.len(), 8);
        let mut area = 0.0;
        for f in &m.faces {
            let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
            let n = b.minus(a).cross(c.minus(a));
            assert!(n.2 > 0.0, "{n:?}");
            area += n.len() / 2.0;
        }
        assert!((area - 4.0).abs() < 1e-12, "{area}");
        // Unflipped Y keeps y ≥ 0, where the quarter has only its edge: nothing
        // is left to mirror.
        let mut q = Mesh {
            vertices: vec![
                Vec3(0.0, -1.0, 0.0),
                Vec3(1.0, -1.0, 0.0),
                Vec3(1.0, -0.5, 0.0),
            ],
            faces: vec![face([0, 1, 2])],
            ..Mesh::default()
        };
        mirror_about(&mut q, &Plane::on(1, false, &id, &id, true, true, 0.01)).unwrap();
        assert!(q.faces.is_empty());
    }
}
