//! Symmetry on a polygon mesh, as it reaches an Edit Poly above it: Max's
//! Symmetry works on the MNMesh of a poly object and passes polygons up, so
//! an Edit Poly (or Smooth) above it sees the mirrored polygons, not their
//! triangles.
//!
//! The same plane and slice as on triangles (`symmetry`): faces wholly below
//! the plane go, and so do faces lying in it; vertices no face uses any more
//! are removed (the survivors keep their order). Then, as Max's SymmetryMod
//! does on an MNMesh (`MNMesh::CloneFaces`, `FlipElementNormals`):
//!
//! - every kept face gets a turned-over copy, appended in face order; it
//!   keeps its first corner and the rest run backwards (MNFace::Flip;
//!   Table.max's Unwrap UVW cache holds [0, 3, 10, 29] and its mirror
//!   [0, 29, 28, 27]); its triangles follow. Map faces turn over the same
//!   way, over the same map vertices;
//! - the reflected copies of the vertices are appended in the order the
//!   faces (in order, each from its first corner, before turning over) first
//!   meet them, as CloneFaces creates them;
//! - the seam welds each copy to its own source (a copied corner whose
//!   source lies on an open side, within the threshold), both at their
//!   midpoint; the pairs are taken in the copies' order, and a pair whose
//!   source shares an open side with a vertex already welded keeps the copy,
//!   one that does not keeps the source (so the first pair of a seam keeps
//!   the source, the rest the copies). Dead vertices close up in order; a
//!   face left with a repeated corner loses it.
//!
//! Checked on Table.max: all 394 vertex positions and 258 polygons the
//! Unwrap UVW above cached are ours at the same index (before this
//! numbering, 338 positions). The pairing (copy to its own source) is the
//! SymmetryMod SDK sample's weld of mirrored pairs; the survivor rule is
//! what that one seam (six vertices, one loop) shows, as `MNMesh::
//! WeldBorderVerts` is not public. "The first weld keeps the source, every
//! later one the copy" fits it as well: the two differ where a later pair
//! has no welded neighbour yet (a second seam loop, or a walk that reaches
//! the seam elsewhere first).
//!
//! Not derived: the numbering past a polygon that crosses the plane, so an
//! Edit Poly above refuses it; TurboSmooth and MeshSmooth right above
//! (`apply_any_numbering`) take the slice with any survivor. Two pairs of
//! Unwrap UVW caches around a Symmetry (Buwaka's door lights, sidewalk 02's
//! Lofts: 17 and 62 cut vertices) pin the slice itself: a cut vertex is
//! made once per crossing side, faces in order, within a face the side
//! leaving the kept half first; the cut polygon's part holding corner 0
//! keeps its index (starting at corner 0), the other part, from the first
//! cut vertex on, is appended; dead vertices and faces close up after the
//! weld (kept vertices, then cut vertices, then copies). With that, every
//! polygon Max cached is ours — but only given which of each welded pair of
//! cut vertices survives, and that is not pinned: 5 of 17 and 27 of 62
//! sources survive, in runs along the seam that the survivor rule above
//! (from Table.max) gets right for only 13 and 33 of them, so the copies'
//! numbering above a cut is unknown (docs/unseen-files.md, "Symmetry
//! slicing polygons").
//! The edge numbering is left unknown.

use std::collections::HashMap;

use super::symmetry::Plane;
use super::symmetry_slice::ON_PLANE;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::{PolyFace, PolyMesh};

/// Slices, mirrors and welds `poly` about `pl`; a polygon across the plane
/// is refused (the numbering above a cut is not known).
pub(super) fn apply(poly: &mut PolyMesh, pl: &Plane) -> Result<(), EvalError> {
    apply_with(poly, pl, false)
}

/// As `apply`, but polygons across the plane are cut, for a consumer whose
/// result does not depend on vertex numbering (TurboSmooth, MeshSmooth
/// right above): the surface and its topology are the same whichever vertex
/// of a welded pair of cut vertices survives, so the Table.max survivor
/// rule of `weld` is used as it stands.
pub(super) fn apply_any_numbering(poly: &mut PolyMesh, pl: &Plane) -> Result<(), EvalError> {
    apply_with(poly, pl, true)
}

fn apply_with(poly: &mut PolyMesh, pl: &Plane, cut: bool) -> Result<(), EvalError> {
    poly.validate()?;
    if pl.slice {
        slice(poly, pl, cut)?;
    }
    let source = mirror(poly, pl)?;
    if pl.weld {
        weld(poly, pl, &source);
    }
    poly.edges = None;
    Ok(())
}

/// Which side of the plane a distance is on (0: on it, within MNMesh's
/// tolerance).
fn side(d: f64) -> i32 {
    if d > ON_PLANE {
        1
    } else if d < -ON_PLANE {
        -1
    } else {
        0
    }
}

/// Removes the faces below the plane and those lying in it, then the
/// vertices left unused. A polygon across the plane is refused, or with
/// `cut` sliced as measured (docs/unseen-files.md, "Symmetry slicing
/// polygons"): one cut vertex per crossing side, made when its first
/// polygon is cut (polygons in order, within one the side leaving the kept
/// half first), appended after the kept vertices; the part holding corner 0
/// keeps the polygon's index, starting at corner 0, the other part, from its
/// first cut vertex on, is appended after all faces; the part below goes.
fn slice(poly: &mut PolyMesh, pl: &Plane, cut: bool) -> Result<(), EvalError> {
    let dist: Vec<f64> = poly
        .vertices
        .iter()
        .map(|&p| pl.n.dot(p) - pl.offset)
        .collect();
    let sides: Vec<i32> = dist.iter().map(|&d| side(d)).collect();
    let nf = poly.faces.len();
    let mut keep = Vec::with_capacity(nf);
    let mut cuts = Cuts::new(poly.maps.len());
    let mut appended: Vec<(PolyFace, Vec<Vec<u32>>)> = Vec::new();
    for i in 0..nf {
        let s: Vec<i32> = poly.faces[i].v.iter().map(|&v| sides[v as usize]).collect();
        let above = s.iter().any(|&x| x > 0);
        if !(above && s.iter().any(|&x| x < 0)) {
            keep.push(above);
            continue;
        }
        if !cut {
            return Err(EvalError::not_evaluated_why(
                format!(
                    "slicing polygon {i} ({} corners) across the plane",
                    poly.faces[i].v.len()
                ),
                "which of each welded pair of cut vertices Max keeps, and so its vertex numbering, is not derived",
            ));
        }
        let (part, maps, holds_corner_0) = cut_polygon(poly, i, &s, &dist, &mut cuts)
            .map_err(|e| e.inside(format!("polygon {i}")))?;
        let f = &poly.faces[i];
        let face = PolyFace::fan(part, f.material, f.smoothing);
        if holds_corner_0 {
            poly.faces[i] = face;
            for (m, mf) in poly.maps.iter_mut().zip(maps) {
                m.faces[i] = mf;
            }
            keep.push(true);
        } else {
            keep.push(false);
            appended.push((face, maps));
        }
    }
    for (face, maps) in appended {
        poly.faces.push(face);
        for (m, mf) in poly.maps.iter_mut().zip(maps) {
            m.faces.push(mf);
        }
        keep.push(true);
    }
    retain_faces(poly, &keep);
    poly.drop_unused_vertices();
    Ok(())
}

/// The cut vertices made so far, per crossing side (lower index first), in
/// the geometry and in each map channel.
struct Cuts {
    geometry: HashMap<(u32, u32), u32>,
    maps: Vec<HashMap<(u32, u32), u32>>,
}

impl Cuts {
    fn new(maps: usize) -> Cuts {
        Cuts {
            geometry: HashMap::new(),
            maps: vec![HashMap::new(); maps],
        }
    }
}

/// The part of polygon `i` above the plane (vertex loop, map loops) and
/// whether it holds corner 0; `s` are its corners' sides. A polygon whose
/// corners change side more than twice (it leaves the kept half twice) is
/// refused: how Max splits it into three or more parts is not measured.
#[allow(clippy::type_complexity)]
fn cut_polygon(
    poly: &mut PolyMesh,
    i: usize,
    s: &[i32],
    dist: &[f64],
    cuts: &mut Cuts,
) -> Result<(Vec<u32>, Vec<Vec<u32>>, bool), EvalError> {
    let v = poly.faces[i].v.clone();
    let n = v.len();
    let signs: Vec<i32> = s.iter().copied().filter(|&x| x != 0).collect();
    let changes = (0..signs.len())
        .filter(|&k| signs[k] != signs[(k + 1) % signs.len()])
        .count();
    if changes != 2 {
        return Err(EvalError::not_evaluated_why(
            format!("slicing a polygon that crosses the plane {} times", changes),
            "only a polygon cut into two parts is measured",
        ));
    }
    let map_loops: Vec<Vec<u32>> = poly
        .maps
        .iter()
        .map(|m| m.face(i).cloned())
        .collect::<Result<_, _>>()?;
    if map_loops.iter().any(|l| l.len() != n) {
        return Err(EvalError::malformed(
            "",
            "a map face's corner count differs",
        ));
    }
    // The crossing sides, the one leaving the kept half made first.
    let mut crossing: Vec<usize> = (0..n).filter(|&j| s[j] * s[(j + 1) % n] < 0).collect();
    crossing.sort_by_key(|&j| s[j] < 0);
    let mut made: HashMap<usize, (u32, Vec<u32>)> = HashMap::new();
    for &j in &crossing {
        let (a, b) = (j, (j + 1) % n);
        let c = cut_vertex(poly, cuts, (v[a], v[b]), dist, &map_loops, (a, b))?;
        made.insert(j, c);
    }
    // The loop with its cut vertices; side 0 marks where it splits.
    let mut items: Vec<(i32, u32, Vec<u32>)> = Vec::with_capacity(n + 2);
    for j in 0..n {
        items.push((s[j], v[j], map_loops.iter().map(|l| l[j]).collect()));
        if let Some((cv, cm)) = made.get(&j) {
            items.push((0, *cv, cm.clone()));
        }
    }
    let len = items.len();
    // The part above: from the split point right before its run of kept
    // corners to the first one after it that leads below (a corner on the
    // plane between kept corners does not split it).
    let start = (0..len)
        .find(|&k| items[k].0 == 0 && items[(k + 1) % len].0 > 0 && sign_near(&items, k, -1) < 0)
        .ok_or_else(|| EvalError::malformed("", "no kept run"))?;
    let mut part = vec![start];
    let mut k = (start + 1) % len;
    while !(items[k].0 == 0 && sign_near(&items, k, 1) < 0) {
        part.push(k);
        k = (k + 1) % len;
        if k == start {
            return Err(EvalError::malformed("", "no end to the kept run"));
        }
    }
    part.push(k);
    let holds_corner_0 = s[0] > 0 || start == 0;
    if s[0] > 0 {
        let at = part.iter().position(|&x| x == 0).unwrap_or(0);
        part.rotate_left(at);
    }
    let vloop = part.iter().map(|&x| items[x].1).collect();
    let mloops = (0..map_loops.len())
        .map(|c| part.iter().map(|&x| items[x].2[c]).collect())
        .collect();
    Ok((vloop, mloops, holds_corner_0))
}

/// The side of the first corner off the plane after (`step` 1) or before
/// (`step` −1) loop item `k`.
fn sign_near(items: &[(i32, u32, Vec<u32>)], k: usize, step: isize) -> i32 {
    let len = items.len() as isize;
    (1..len)
        .map(|d| items[(k as isize + step * d).rem_euclid(len) as usize].0)
        .find(|&x| x != 0)
        .unwrap_or(0)
}

/// The vertex (and map vertices) where side `ends` (corners `at` of the
/// polygon's map loops) crosses the plane, made once per side, interpolated
/// from the end with the lower index so both polygons of a side agree.
fn cut_vertex(
    poly: &mut PolyMesh,
    cuts: &mut Cuts,
    ends: (u32, u32),
    dist: &[f64],
    map_loops: &[Vec<u32>],
    at: (usize, usize),
) -> Result<(u32, Vec<u32>), EvalError> {
    let swap = ends.0 > ends.1;
    let (lo, hi) = if swap { (ends.1, ends.0) } else { ends };
    let (dlo, dhi) = (dist[lo as usize], dist[hi as usize]);
    let t = dlo / (dlo - dhi);
    let v = match cuts.geometry.get(&(lo, hi)) {
        Some(&v) => v,
        None => {
            let (p, q) = (poly.vertices[lo as usize], poly.vertices[hi as usize]);
            let v = u32::try_from(poly.vertices.len())
                .map_err(|_| EvalError::limit("vertices", u32::MAX))?;
            poly.vertices.push(p.plus(q.minus(p).scale(t)));
            cuts.geometry.insert((lo, hi), v);
            v
        }
    };
    let mut mv = Vec::with_capacity(map_loops.len());
    for (c, (m, l)) in poly.maps.iter_mut().zip(map_loops).enumerate() {
        let (a, b) = (l[at.0], l[at.1]);
        let (mlo, mhi) = if swap { (b, a) } else { (a, b) };
        let id = match cuts.maps[c].get(&(mlo, mhi)) {
            Some(&x) => x,
            None => {
                let get = |x: u32| {
                    m.vertices.get(x as usize).copied().ok_or_else(|| {
                        EvalError::reference(
                            "",
                            format!("map channel {} vertex {x} missing", m.channel),
                        )
                    })
                };
                let (p, q) = (get(mlo)?, get(mhi)?);
                let lerp = |x: f32, y: f32| x + (y - x) * t as f32;
                let x = u32::try_from(m.vertices.len())
                    .map_err(|_| EvalError::limit("map vertices", u32::MAX))?;
                m.vertices
                    .push([lerp(p[0], q[0]), lerp(p[1], q[1]), lerp(p[2], q[2])]);
                cuts.maps[c].insert((mlo, mhi), x);
                x
            }
        };
        mv.push(id);
    }
    Ok((v, mv))
}

fn retain_faces(poly: &mut PolyMesh, keep: &[bool]) {
    let mut k = keep.iter();
    poly.faces.retain(|_| *k.next().unwrap_or(&false));
    for m in &mut poly.maps {
        let mut k = keep.iter();
        m.faces.retain(|_| *k.next().unwrap_or(&false));
    }
}

/// A face turned over as MNFace::Flip does, over the vertices `copy` gives:
/// corner 0 stays, corner k moves to n − k; the triangles follow with their
/// winding reversed.
fn flipped(f: &PolyFace, copy: impl Fn(u32) -> u32) -> PolyFace {
    let n = f.v.len();
    let at = |k: usize| (n - k) % n;
    PolyFace {
        v: (0..n).map(|k| copy(f.v[at(k)])).collect(),
        tris: f
            .tris
            .iter()
            .map(|t| [at(t[0]), at(t[2]), at(t[1])])
            .collect(),
        material: f.material,
        smoothing: f.smoothing,
    }
}

fn flip_corners(c: &[u32]) -> Vec<u32> {
    let n = c.len();
    (0..n).map(|k| c[(n - k) % n]).collect()
}

/// Appends the reflected vertices and turned-over faces. The copies are
/// numbered as `MNMesh::CloneFaces` creates them: faces in order, each face's
/// corners in its own (unturned) order, a vertex copied when first met.
/// Returns, per copy (from the first appended index), its source vertex.
fn mirror(poly: &mut PolyMesh, pl: &Plane) -> Result<Vec<u32>, EvalError> {
    let nv = u32::try_from(poly.vertices.len())
        .ok()
        .filter(|n| n.checked_mul(2).is_some())
        .ok_or_else(|| EvalError::limit("vertices", u32::MAX / 2))?;
    let mut copy: Vec<Option<u32>> = vec![None; poly.vertices.len()];
    let mut source: Vec<u32> = Vec::new();
    for f in &poly.faces {
        for &v in &f.v {
            if copy[v as usize].is_none() {
                copy[v as usize] = Some(nv + source.len() as u32);
                source.push(v);
            }
        }
    }
    let copies: Vec<_> = source
        .iter()
        .map(|&v| pl.reflect.transform_point(poly.vertices[v as usize]))
        .collect();
    poly.vertices.extend(copies);
    let faces: Vec<PolyFace> = poly
        .faces
        .iter()
        .map(|f| flipped(f, |v| copy[v as usize].unwrap_or(v)))
        .collect();
    poly.faces.extend(faces);
    for m in &mut poly.maps {
        let faces: Vec<Vec<u32>> = m.faces.iter().map(|c| flip_corners(c)).collect();
        m.faces.extend(faces);
    }
    Ok(source)
}

/// Welds each copy on the seam to its own source (the pairs Max's Symmetry
/// welds: a copied corner whose source lies on an open side, within the
/// threshold of it), both at their midpoint, and tidies the faces after it.
///
/// Which of a pair survives follows Table.max's Unwrap UVW cache (all 58
/// positions of the Symmetry's output at Max's index): the pairs are taken
/// in the copies' order; a pair whose source shares an open side with a
/// vertex already welded keeps the copy (the weld runs on along the seam),
/// one that does not keeps the source.
fn weld(poly: &mut PolyMesh, pl: &Plane, source: &[u32]) {
    let first_copy = poly.vertices.len() - source.len();
    let mut uses: HashMap<(u32, u32), u32> = HashMap::new();
    for f in &poly.faces[..poly.faces.len() / 2] {
        let n = f.v.len();
        for j in 0..n {
            let (a, b) = (f.v[j], f.v[(j + 1) % n]);
            *uses.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    // Open sides of the source half, per vertex its neighbours along them.
    let mut open: HashMap<u32, Vec<u32>> = HashMap::new();
    for (&(a, b), &count) in &uses {
        if count == 1 {
            open.entry(a).or_default().push(b);
            open.entry(b).or_default().push(a);
        }
    }
    let mut into: Vec<usize> = (0..poly.vertices.len()).collect();
    let mut welded = vec![false; poly.vertices.len()];
    for (k, &s) in source.iter().enumerate() {
        let c = first_copy + k;
        let s = s as usize;
        let Some(neighbours) = open.get(&(s as u32)) else {
            continue;
        };
        let (ps, pc) = (poly.vertices[s], poly.vertices[c]);
        if pc.minus(ps).len() >= pl.threshold {
            continue;
        }
        let mid = ps.plus(pc).scale(0.5);
        let runs_on = neighbours.iter().any(|&n| welded[n as usize]);
        let (keep, gone) = if runs_on { (c, s) } else { (s, c) };
        poly.vertices[keep] = mid;
        into[gone] = keep;
        welded[s] = true;
    }
    let mut keep = Vec::with_capacity(poly.faces.len());
    for (i, f) in poly.faces.iter_mut().enumerate() {
        f.v.iter_mut().for_each(|v| *v = into[*v as usize] as u32);
        let n = f.v.len();
        let repeated: Vec<usize> = (0..n).filter(|&j| f.v[j] == f.v[(j + 1) % n]).collect();
        if repeated.is_empty() {
            keep.push(true);
            continue;
        }
        // A side collapsed: the corner goes (the triangulation is refanned).
        let kept: Vec<usize> = (0..n).filter(|j| !repeated.contains(j)).collect();
        let v: Vec<u32> = kept.iter().map(|&j| f.v[j]).collect();
        keep.push(v.len() >= 3);
        *f = PolyFace::fan(v, f.material, f.smoothing);
        for m in &mut poly.maps {
            if let Some(mf) = m.faces.get_mut(i) {
                *mf = kept.iter().filter_map(|&j| mf.get(j).copied()).collect();
            }
        }
    }
    retain_faces(poly, &keep);
    poly.drop_unused_vertices();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::{Mat43, Vec3};

    /// The plane x = 0, mirroring across X, slicing, welding at 0.1.
    fn x_plane(weld: bool) -> Plane {
        Plane {
            n: Vec3(1.0, 0.0, 0.0),
            offset: 0.0,
            reflect: Mat43::scaling(Vec3(-1.0, 1.0, 1.0)),
            slice: true,
            weld,
            threshold: 0.1,
        }
    }

    /// Quads over `vertices`, material 0, smoothing group 1.
    fn quad_mesh(vertices: Vec<Vec3>, quads: &[[u32; 4]]) -> PolyMesh {
        PolyMesh {
            vertices,
            faces: quads
                .iter()
                .map(|q| PolyFace::fan(q.to_vec(), 0, 1))
                .collect(),
            ..PolyMesh::default()
        }
    }

    #[test]
    fn a_half_box_open_on_the_plane_mirrors_into_a_closed_box() {
        // A unit box's +X half (x from 0 to 1), open on x = 0: four quads.
        let vertices = vec![
            Vec3(0.0, 0.0, 0.0),
            Vec3(1.0, 0.0, 0.0),
            Vec3(1.0, 1.0, 0.0),
            Vec3(0.0, 1.0, 0.0),
            Vec3(0.0, 0.0, 1.0),
            Vec3(1.0, 0.0, 1.0),
            Vec3(1.0, 1.0, 1.0),
            Vec3(0.0, 1.0, 1.0),
            Vec3(-5.0, 0.0, 0.0), // used by nothing: dropped
        ];
        let quads = [
            [0, 3, 2, 1],
            [4, 5, 6, 7],
            [0, 1, 5, 4],
            [1, 2, 6, 5],
            [2, 3, 7, 6],
        ];
        let mut poly = quad_mesh(vertices, &quads);
        let pl = x_plane(true);
        apply(&mut poly, &pl).unwrap();
        // 8 + 8 copies − 4 welded on the seam.
        assert_eq!(poly.vertices.len(), 12);
        assert_eq!(poly.faces.len(), 10);
        // Closed: every side on exactly two faces, run both ways.
        let mut sides: HashMap<(u32, u32), i32> = HashMap::new();
        for f in &poly.faces {
            for j in 0..4 {
                *sides.entry((f.v[j], f.v[(j + 1) % 4])).or_default() += 1;
            }
        }
        assert!(sides.keys().all(|&(a, b)| sides.get(&(b, a)) == Some(&1)));
        // Max's numbering: the originals left (0, 1, 2, 5, 6), then the
        // copies as face 0 [0, 3, 2, 1] and face 1 [4, 5, 6, 7] first meet
        // them. On the seam 0 welds first and keeps its original; 3, 4 and
        // 7 each share an open side with a vertex already welded and keep
        // their copies.
        let expected = [
            (0.0, 0.0, 0.0),
            (1.0, 0.0, 0.0),
            (1.0, 1.0, 0.0),
            (1.0, 0.0, 1.0),
            (1.0, 1.0, 1.0),
            (0.0, 1.0, 0.0),
            (-1.0, 1.0, 0.0),
            (-1.0, 0.0, 0.0),
            (0.0, 0.0, 1.0),
            (-1.0, 0.0, 1.0),
            (-1.0, 1.0, 1.0),
            (0.0, 1.0, 1.0),
        ]
        .map(|(x, y, z)| Vec3(x, y, z));
        assert_eq!(poly.vertices, expected);
        // The copy of face 0 keeps its first corner (welded into 0) and runs
        // backwards: [0, 1', 2', 3'].
        assert_eq!(poly.faces[5].v, [0, 7, 6, 5]);
        // A polygon across the plane is refused by name.
        let mut across = PolyMesh {
            vertices: vec![
                Vec3(-1.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(1.0, 1.0, 0.0),
            ],
            faces: vec![PolyFace::fan(vec![0, 1, 2], 0, 0)],
            ..PolyMesh::default()
        };
        let e = apply(&mut across, &pl).unwrap_err().to_string();
        assert!(e.contains("slicing polygon 0"), "{e}");
    }

    /// A closed box x ∈ [−1, 3] across the plane x = 0 (four quads cut, one
    /// of them starting below it), sliced, mirrored and welded, then one
    /// TurboSmooth step: the box x ∈ [−3, 3] with its cut ring welded, and
    /// its subdivision closed and symmetric about the plane.
    #[test]
    fn a_sliced_box_turbo_smooths_closed_and_symmetric() {
        use crate::eval::modifier::subdivide::Separate;
        use crate::eval::modifier::turbo_smooth::{from_poly_mesh, smooth, Settings};
        let vertices = (0..8)
            .map(|i| {
                let x = if i & 1 != 0 { 3.0 } else { -1.0 };
                let y = if i & 2 != 0 { 1.0 } else { -1.0 };
                let z = if i & 4 != 0 { 1.0 } else { -1.0 };
                Vec3(x, y, z)
            })
            .collect();
        // Outward quads; the first two side quads start at x = 3, the other
        // two at x = −1 (their kept part is appended).
        let quads = [
            [1, 3, 7, 5],
            [0, 4, 6, 2],
            [1, 5, 4, 0],
            [3, 2, 6, 7],
            [0, 2, 3, 1],
            [4, 5, 7, 6],
        ];
        let mut poly = quad_mesh(vertices, &quads);
        let pl = x_plane(true);
        // Refused where the numbering matters.
        let e = apply(&mut poly.clone(), &pl).unwrap_err().to_string();
        assert!(e.contains("slicing polygon 2"), "{e}");
        apply_any_numbering(&mut poly, &pl).unwrap();
        // 4 kept + 4 cut, doubled, less the 4 welded cut pairs; 5 faces
        // (the +x cap and four cut sides), doubled.
        assert_eq!(poly.vertices.len(), 12);
        assert_eq!(poly.faces.len(), 10);
        assert!(poly.faces.iter().all(|f| f.v.len() == 4));
        // The kept vertices first, in order; four on the seam.
        let kept = [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)];
        assert_eq!(poly.vertices[..4], kept.map(|(y, z)| Vec3(3.0, y, z)));
        assert_eq!(poly.vertices.iter().filter(|p| p.0 == 0.0).count(), 4);
        // The side starting at corner 0 above keeps its index (2 and 3 are
        // the cut sides starting at x = 3 after the dropped −x cap).
        assert_eq!(poly.faces[1].v[0], 0);
        let euler = |v: usize, corners: &[Vec<u32>]| {
            let mut edges = std::collections::HashSet::new();
            for c in corners {
                for j in 0..c.len() {
                    let (a, b) = (c[j], c[(j + 1) % c.len()]);
                    edges.insert((a.min(b), a.max(b)));
                }
            }
            v as i64 - edges.len() as i64 + corners.len() as i64
        };
        let loops: Vec<Vec<u32>> = poly.faces.iter().map(|f| f.v.clone()).collect();
        assert_eq!(euler(poly.vertices.len(), &loops), 2);
        let polys = from_poly_mesh(&poly).unwrap();
        let settings = Settings {
            iterations: 1,
            smooth_result: true,
            separate: Separate::default(),
        };
        let mesh = smooth(polys, settings).unwrap();
        // V + E + F = 12 + 20 + 10 points, one quad per corner (40).
        assert_eq!(mesh.vertices.len(), 42);
        assert_eq!(mesh.faces.len(), 80);
        let tris: Vec<Vec<u32>> = mesh.faces.iter().map(|f| f.v.to_vec()).collect();
        // Closed: every triangle side on two triangles, run both ways.
        let mut sides = std::collections::HashMap::new();
        for t in &tris {
            for j in 0..3 {
                *sides.entry((t[j], t[(j + 1) % 3])).or_insert(0) += 1;
            }
        }
        assert!(sides.keys().all(|&(a, b)| sides.get(&(b, a)) == Some(&1)));
        assert_eq!(euler(mesh.vertices.len(), &tris), 2);
        // Symmetric about x = 0: every point's mirror is a point.
        for p in &mesh.vertices {
            let m = Vec3(-p.0, p.1, p.2);
            assert!(
                mesh.vertices.iter().any(|q| q.minus(m).len() < 1e-12),
                "{p:?}"
            );
        }
        // The +x cap's face point stays on it; its corners move in.
        let xs = mesh.vertices.iter().map(|p| p.0);
        assert!((xs.fold(f64::MIN, f64::max) - 3.0).abs() < 1e-12);
        assert!(!mesh.vertices.contains(&Vec3(3.0, 1.0, 1.0)));
        assert!(mesh.vertices.iter().any(|p| p.0.abs() < 1e-12));
    }

    /// A corner on the plane between kept corners does not split the kept
    /// part: the notched pentagon A(1, 0) B(0, 1) C(1, 2) D(−1, 3) E(−1, −1)
    /// keeps [A, B, C, cut of C–D, cut of E–A].
    #[test]
    fn a_corner_on_the_plane_inside_the_kept_part_stays_in_it() {
        let mut poly = PolyMesh {
            vertices: [
                (1.0, 0.0),
                (0.0, 1.0),
                (1.0, 2.0),
                (-1.0, 3.0),
                (-1.0, -1.0),
            ]
            .map(|(x, y)| Vec3(x, y, 0.0))
            .to_vec(),
            faces: vec![PolyFace::fan(vec![0, 1, 2, 3, 4], 0, 0)],
            ..PolyMesh::default()
        };
        let pl = x_plane(false);
        slice(&mut poly, &pl, true).unwrap();
        assert_eq!(poly.faces.len(), 1);
        assert_eq!(poly.faces[0].v, [0, 1, 2, 3, 4]);
        assert_eq!(poly.vertices[3], Vec3(0.0, 2.5, 0.0));
        assert_eq!(poly.vertices[4], Vec3(0.0, -0.5, 0.0));
    }
}
