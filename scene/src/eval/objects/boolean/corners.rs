//! The CSG result reduced to the vertices Max's Boolean keeps: the corners
//! of the result (where its flat pieces meet at an angle) and the operands'
//! own vertices on it. The BSP splitting leaves extra vertices along straight
//! edges and inside flat faces, which Max's results do not have (18 of the
//! 29 swept files with Booleans and Mesh Totals have Max's count this way,
//! Desk.max's Cabinets 16 where the splitting gave 37; street.max and
//! Robot.max keep some vertices more, not derived: docs/evaluation.md
//! "Boolean compound objects").
//!
//! Each flat piece (adjacent triangles in one plane with the same material,
//! smoothing groups and map vertices along their shared edges) is cut again
//! into triangles over its outline without the vertices that lie straight
//! along it or inside it; the vertices that stay keep their map vertices
//! (a piece has one per vertex: a map seam splits pieces). A piece is left
//! as it is where that cannot be done cleanly: an operand vertex inside it,
//! an outline touching itself, a cut whose area is not the piece's (within
//! what dropping vertices up to eps off a straight run moves), or a
//! triangle with collinear corners. The vertices of a piece left so stay in
//! its neighbours too, so that nothing cracks.

use std::collections::{HashMap, HashSet};

use crate::eval::core::math::Vec3;
use crate::eval::objects::mesh::{Face, Mesh};

/// Edge visibility bits of a face (sides 0–1, 1–2, 2–0).
const EDGE_BITS: u16 = 7;
/// A cut triangle whose doubled area is at most this times its longest side
/// squared has no reliable side (collinear corners): its piece is kept.
const SLIVER: f64 = 1e-9;

/// `mesh` with the vertices neither a corner nor in `kept` taken out where
/// its flat pieces allow it (module doc). `eps` is the CSG's weld distance.
pub(super) fn keep_corners(mesh: Mesh, kept: &[Vec3], eps: f64) -> Mesh {
    // Operand vertices stay (a cylinder's cap centre, a segment vertex along
    // a straight side): found once, for every round.
    let mut near = super::assemble::Welder::new(eps);
    for &p in kept {
        near.insert(p);
    }
    let operand: Vec<bool> = mesh
        .vertices
        .iter()
        .map(|&p| near.find(p).is_some())
        .collect();
    let mut pinned_regions = Vec::new();
    // Each failed cut pins its piece and the choice is made again, so that a
    // neighbour is never cut without a vertex the failed piece keeps.
    for _ in 0..64 {
        let pieces = Pieces::new(&mesh, &operand, eps, &pinned_regions);
        pinned_regions.clone_from(&pieces.pinned);
        match pieces.rebuild(&mesh) {
            Ok(out) => return out,
            Err(failed) => {
                for r in failed {
                    pinned_regions[r] = true;
                }
            }
        }
    }
    mesh
}

struct Pieces {
    eps: f64,
    /// Region of each face.
    region: Vec<usize>,
    /// Faces of each region, in mesh order.
    faces: Vec<Vec<usize>>,
    /// Regions left as they are.
    pinned: Vec<bool>,
    /// Vertices that must stay.
    keep: Vec<bool>,
    /// The boundary loops of each region (vertex indices, the region's
    /// winding), for the regions not pinned.
    loops: Vec<Vec<Vec<u32>>>,
    /// Unit normal of each region (its largest face's).
    normal: Vec<Vec3>,
}

fn find(owner: &mut [usize], mut f: usize) -> usize {
    while owner[f] != f {
        owner[f] = owner[owner[f]];
        f = owner[f];
    }
    f
}

fn face_normal(m: &Mesh, f: &Face) -> Vec3 {
    let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
    b.minus(a).cross(c.minus(a))
}

impl Pieces {
    fn new(m: &Mesh, operand: &[bool], eps: f64, pinned_before: &[bool]) -> Pieces {
        let nf = m.faces.len();
        let nv = m.vertices.len();
        let mut keep = operand.to_vec();
        // Edges and the faces running them.
        let mut edges: HashMap<(u32, u32), Vec<(usize, bool)>> = HashMap::new();
        for (fi, f) in m.faces.iter().enumerate() {
            for j in 0..3 {
                let (a, b) = (f.v[j], f.v[(j + 1) % 3]);
                edges
                    .entry((a.min(b), a.max(b)))
                    .or_default()
                    .push((fi, a < b));
            }
        }
        let normals: Vec<Vec3> = m.faces.iter().map(|f| face_normal(m, f)).collect();
        let mut owner: Vec<usize> = (0..nf).collect();
        // Each piece is measured against its largest face's plane, so that a
        // gently curved surface does not join face by face into one piece.
        let mut reference: Vec<usize> = (0..nf).collect();
        let mut sorted: Vec<_> = edges.iter().collect();
        sorted.sort_unstable_by_key(|e| *e.0);
        for (&(a, b), list) in sorted {
            if list.len() != 2 {
                // Open or shared by more than two faces: its ends stay.
                keep[a as usize] = true;
                keep[b as usize] = true;
                continue;
            }
            let ((f, fd), (g, gd)) = (list[0], list[1]);
            if fd == gd || f == g {
                keep[a as usize] = true;
                keep[b as usize] = true;
                continue;
            }
            let (ff, gf) = (&m.faces[f], &m.faces[g]);
            if ff.material != gf.material || ff.smoothing != gf.smoothing {
                continue;
            }
            let (rf, rg) = (find(&mut owner, f), find(&mut owner, g));
            if rf == rg {
                continue;
            }
            let (x, y) = (reference[rf], reference[rg]);
            let (big, small) = if normals[f].len() >= normals[g].len() {
                (f, g)
            } else {
                (g, f)
            };
            if !on_plane(m, big, small, &normals, eps)
                || !on_plane(m, x, g, &normals, eps)
                || !on_plane(m, y, f, &normals, eps)
                || !same_map_vertices(m, f, g, a, b)
            {
                continue;
            }
            let (root, other) = (rf.min(rg), rf.max(rg));
            owner[other] = root;
            reference[root] = if normals[x].len() >= normals[y].len() {
                x
            } else {
                y
            };
        }
        let mut index = HashMap::new();
        let mut region = vec![0; nf];
        let mut faces: Vec<Vec<usize>> = Vec::new();
        for (fi, slot) in region.iter_mut().enumerate() {
            let r = find(&mut owner, fi);
            let k = *index.entry(r).or_insert_with(|| {
                faces.push(Vec::new());
                faces.len() - 1
            });
            *slot = k;
            faces[k].push(fi);
        }
        let nr = faces.len();
        let mut pinned = vec![false; nr];
        for (r, p) in pinned.iter_mut().enumerate() {
            *p = pinned_before.get(r).copied().unwrap_or(false);
        }
        let mut normal = vec![Vec3(0.0, 0.0, 1.0); nr];
        let mut loops = vec![Vec::new(); nr];
        for r in 0..nr {
            let big = faces[r]
                .iter()
                .copied()
                .max_by(|&x, &y| normals[x].len().total_cmp(&normals[y].len()));
            let Some(big) = big else { continue };
            let n = normals[big].normalized();
            normal[r] = n;
            if pinned[r] || faces[r].len() < 2 || !n.0.is_finite() {
                continue;
            }
            let origin = m.vertices[m.faces[big].v[0] as usize];
            let flat = faces[r].iter().all(|&fi| {
                m.faces[fi]
                    .v
                    .iter()
                    .all(|&v| m.vertices[v as usize].minus(origin).dot(n).abs() <= eps)
            });
            if !flat {
                pinned[r] = true;
                continue;
            }
            match outline(m, &faces[r]) {
                Some(l) => loops[r] = l,
                None => pinned[r] = true,
            }
        }
        for r in 0..nr {
            if pinned[r] || faces[r].len() < 2 {
                for &fi in &faces[r] {
                    for &v in &m.faces[fi].v {
                        keep[v as usize] = true;
                    }
                }
            }
        }
        // A vertex on an outline stays unless the outline runs straight
        // through it, in every piece it bounds.
        let mut straight = vec![true; nv];
        for l in loops.iter().flatten() {
            let k = l.len();
            for i in 0..k {
                let (p, v, q) = (l[(i + k - 1) % k], l[i], l[(i + 1) % k]);
                if !between(
                    m.vertices[p as usize],
                    m.vertices[v as usize],
                    m.vertices[q as usize],
                    eps,
                ) {
                    straight[v as usize] = false;
                }
            }
        }
        for v in 0..nv {
            keep[v] = keep[v] || !straight[v];
        }
        Pieces {
            eps,
            region,
            faces,
            pinned,
            keep,
            loops,
            normal,
        }
    }

    /// The mesh with every region that loses a vertex cut again; Err with
    /// the regions whose cut failed.
    fn rebuild(&self, m: &Mesh) -> Result<Mesh, Vec<usize>> {
        let nr = self.faces.len();
        let mut new_faces: Vec<Option<Vec<Face>>> = vec![None; nr];
        let mut new_maps: Vec<Option<Vec<Vec<[u32; 3]>>>> = vec![None; nr];
        let mut failed = Vec::new();
        for r in 0..nr {
            if self.pinned[r] || self.faces[r].len() < 2 {
                continue;
            }
            let loses = self.faces[r]
                .iter()
                .any(|&fi| m.faces[fi].v.iter().any(|&v| !self.keep[v as usize]));
            if !loses {
                continue;
            }
            match self.cut(m, r) {
                Some((fs, maps)) => {
                    new_faces[r] = Some(fs);
                    new_maps[r] = Some(maps);
                }
                None => failed.push(r),
            }
        }
        if !failed.is_empty() {
            return Err(failed);
        }
        let mut faces = Vec::with_capacity(m.faces.len());
        let mut map_faces: Vec<Vec<[u32; 3]>> = vec![Vec::new(); m.maps.len()];
        let mut done = vec![false; nr];
        for (fi, f) in m.faces.iter().enumerate() {
            let r = self.region[fi];
            match &new_faces[r] {
                None => {
                    faces.push(*f);
                    for (c, ch) in m.maps.iter().enumerate() {
                        if let Some(mf) = ch.faces.get(fi) {
                            map_faces[c].push(*mf);
                        }
                    }
                }
                Some(fs) if !done[r] => {
                    done[r] = true;
                    faces.extend(fs.iter().copied());
                    if let Some(maps) = &new_maps[r] {
                        for (c, mf) in maps.iter().enumerate() {
                            map_faces[c].extend_from_slice(mf);
                        }
                    }
                }
                Some(_) => {}
            }
        }
        // Drop vertices no face uses, keeping the order.
        let mut used = vec![u32::MAX; m.vertices.len()];
        let mut vertices = Vec::new();
        for f in &mut faces {
            for c in &mut f.v {
                let slot = &mut used[*c as usize];
                if *slot == u32::MAX {
                    *slot = vertices.len() as u32;
                    vertices.push(m.vertices[*c as usize]);
                }
                *c = *slot;
            }
        }
        let mut out = m.clone();
        out.vertices = vertices;
        out.faces = faces;
        for (ch, mf) in out.maps.iter_mut().zip(map_faces) {
            ch.faces = mf;
        }
        Ok(out)
    }

    /// Region `r` cut into triangles over its outline without the vertices
    /// that go (None when the cut does not cover the piece exactly). The
    /// vertices that stay on a straight run of the outline (a neighbour's
    /// corner, an operand's vertex) are left out of the cut and then split
    /// the triangle that has their side, so no triangle is a sliver.
    #[allow(clippy::type_complexity)]
    fn cut(&self, m: &Mesh, r: usize) -> Option<(Vec<Face>, Vec<Vec<[u32; 3]>>)> {
        let n = self.normal[r];
        let u = perpendicular(n);
        let w = n.cross(u);
        let flat = |v: u32| {
            let p = m.vertices[v as usize];
            [p.dot(u), p.dot(w)]
        };
        let pos = |v: u32| m.vertices[v as usize];
        let area2 = |l: &[u32]| {
            let k = l.len();
            (0..k)
                .map(|i| {
                    let (a, b) = (flat(l[i]), flat(l[(i + 1) % k]));
                    a[0] * b[1] - b[0] * a[1]
                })
                .sum::<f64>()
        };
        let mut outer: Option<Vec<u32>> = None;
        let mut holes: Vec<Vec<u32>> = Vec::new();
        // The outline's sides are the piece's visible edges; the cuts inside
        // it are hidden, as Max hides the diagonals of a flat polygon.
        let mut sides: HashSet<(u32, u32)> = HashSet::new();
        // Vertices kept along each corner-to-corner side, in order.
        let mut along: HashMap<(u32, u32), Vec<u32>> = HashMap::new();
        let mut count = 0;
        let mut perimeter = 0.0;
        for l in &self.loops[r] {
            perimeter += (0..l.len())
                .map(|i| pos(l[(i + 1) % l.len()]).minus(pos(l[i])).len())
                .sum::<f64>();
            let kept: Vec<u32> = l
                .iter()
                .copied()
                .filter(|&v| self.keep[v as usize])
                .collect();
            let k = kept.len();
            count += k;
            sides.extend((0..k).map(|i| (kept[i], kept[(i + 1) % k])));
            let straight: Vec<bool> = (0..k)
                .map(|i| {
                    between(
                        pos(kept[(i + k - 1) % k]),
                        pos(kept[i]),
                        pos(kept[(i + 1) % k]),
                        self.eps,
                    )
                })
                .collect();
            let first = (0..k).find(|&i| !straight[i])?;
            let mut corners = Vec::new();
            let mut run = Vec::new();
            for j in 1..=k {
                let i = (first + j) % k;
                if straight[i] {
                    run.push(kept[i]);
                    continue;
                }
                let from = *corners.last().unwrap_or(&kept[first]);
                if !run.is_empty() {
                    along.insert((from, kept[i]), std::mem::take(&mut run));
                }
                corners.push(kept[i]);
            }
            if corners.len() < 3 {
                return None;
            }
            if area2(&corners) > 0.0 {
                if outer.is_some() {
                    return None;
                }
                outer = Some(corners);
            } else {
                holes.push(corners);
            }
        }
        let outer = outer?;
        // The piece's own area (twice), from its faces.
        let piece: f64 = self.faces[r]
            .iter()
            .map(|&fi| face_normal(m, &m.faces[fi]).dot(n))
            .sum();
        let mut ring: Vec<u32> = outer;
        let mut hole_starts = Vec::new();
        for h in &holes {
            hole_starts.push(ring.len());
            ring.extend_from_slice(h);
        }
        let points: Vec<[f64; 2]> = ring.iter().map(|&v| flat(v)).collect();
        let mut tris: Vec<usize> = Vec::new();
        earcut::Earcut::new().earcut(points.iter().copied(), &hole_starts, &mut tris);
        if tris.len() != 3 * (ring.len() + 2 * holes.len() - 2) {
            return None;
        }
        let src = &m.faces[self.faces[r][0]];
        let mut out = Vec::with_capacity(count + 2 * holes.len());
        let mut covered = 0.0;
        for t in tris.chunks_exact(3) {
            let mut v = [ring[t[0]], ring[t[1]], ring[t[2]]];
            let [a, b, c] = v.map(pos);
            if b.minus(a).cross(c.minus(a)).dot(n) < 0.0 {
                v.swap(1, 2);
            }
            // The triangle with the kept vertices of its outline sides, as a
            // fan from a corner whose own sides hold none.
            let side_points = |j: usize| along.get(&(v[j], v[(j + 1) % 3]));
            let apex =
                (0..3).find(|&j| side_points(j).is_none() && side_points((j + 2) % 3).is_none())?;
            let mut poly = Vec::new();
            for j in 0..3 {
                let x = (apex + j) % 3;
                poly.push(v[x]);
                if let Some(p) = side_points(x) {
                    poly.extend_from_slice(p);
                }
            }
            for k in 1..poly.len() - 1 {
                let f = [poly[0], poly[k], poly[k + 1]];
                let [a, b, c] = f.map(pos);
                let a2 = b.minus(a).cross(c.minus(a)).dot(n);
                let longest = [b.minus(a), c.minus(b), a.minus(c)]
                    .iter()
                    .map(|d| d.len())
                    .fold(0.0, f64::max);
                // Only a sliver without a reliable side fails: thin
                // triangles are real geometry on a large model.
                if a2 <= SLIVER * longest * longest {
                    return None;
                }
                covered += a2;
                let mut flags = src.flags & !EDGE_BITS;
                for j in 0..3 {
                    if sides.contains(&(f[j], f[(j + 1) % 3])) {
                        flags |= 1 << j;
                    }
                }
                out.push(Face {
                    v: f,
                    smoothing: src.smoothing,
                    material: src.material,
                    flags,
                });
            }
        }
        // Dropping a vertex up to eps off its outline's straight run moves
        // the area by at most eps times the run's length.
        if out.len() != count + 2 * holes.len() - 2
            || (covered - piece).abs() > 1e-6 * piece.abs() + 2.0 * self.eps * perimeter
        {
            return None;
        }
        // Each vertex keeps the map vertex it has throughout the piece.
        let mut maps = Vec::with_capacity(m.maps.len());
        for ch in &m.maps {
            let mut of: HashMap<u32, u32> = HashMap::new();
            for &fi in &self.faces[r] {
                let mf = ch.faces.get(fi)?;
                of.extend(m.faces[fi].v.iter().copied().zip(mf.iter().copied()));
            }
            let mf: Option<Vec<[u32; 3]>> = out
                .iter()
                .map(|f| Some([*of.get(&f.v[0])?, *of.get(&f.v[1])?, *of.get(&f.v[2])?]))
                .collect();
            maps.push(mf?);
        }
        Some((out, maps))
    }
}

/// Whether face `y` lies in face `x`'s plane (its corners within `eps`)
/// and faces the same way. `x` should be the larger: a sliver's own plane
/// says little.
fn on_plane(m: &Mesh, x: usize, y: usize, normals: &[Vec3], eps: f64) -> bool {
    let (nx, ny) = (normals[x], normals[y]);
    let finite = |n: Vec3| n.0.is_finite() && n.1.is_finite() && n.2.is_finite();
    if !finite(nx) || !finite(ny) || nx.len() <= 0.0 || nx.dot(ny) <= 0.0 {
        return false;
    }
    let n = nx.normalized();
    let o = m.vertices[m.faces[x].v[0] as usize];
    m.faces[y]
        .v
        .iter()
        .all(|&v| m.vertices[v as usize].minus(o).dot(n).abs() <= eps)
}

/// Whether `f` and `g` give the shared edge a–b the same map vertices in
/// every channel (no seam along it).
fn same_map_vertices(m: &Mesh, f: usize, g: usize, a: u32, b: u32) -> bool {
    let at = |fi: usize, ch: &[[u32; 3]], v: u32| {
        let j = m.faces[fi].v.iter().position(|&x| x == v)?;
        ch.get(fi).map(|mf| mf[j])
    };
    m.maps.iter().all(|c| {
        [a, b].iter().all(
            |&v| matches!((at(f, &c.faces, v), at(g, &c.faces, v)), (Some(x), Some(y)) if x == y),
        )
    })
}

/// The outline of a set of faces as closed vertex loops in the faces'
/// winding; None when a vertex starts two outline sides (the outline
/// touches itself).
fn outline(m: &Mesh, faces: &[usize]) -> Option<Vec<Vec<u32>>> {
    let mut sides: HashMap<(u32, u32), usize> = HashMap::new();
    for &fi in faces {
        let v = m.faces[fi].v;
        for j in 0..3 {
            *sides.entry((v[j], v[(j + 1) % 3])).or_default() += 1;
        }
    }
    let mut next: HashMap<u32, u32> = HashMap::new();
    for (&(a, b), &count) in &sides {
        if count != 1 {
            return None;
        }
        if sides.contains_key(&(b, a)) {
            continue;
        }
        if next.insert(a, b).is_some() {
            return None;
        }
    }
    let mut starts: Vec<u32> = next.keys().copied().collect();
    starts.sort_unstable();
    let mut seen: HashMap<u32, bool> = HashMap::new();
    let mut loops = Vec::new();
    for s in starts {
        if seen.contains_key(&s) {
            continue;
        }
        let mut l = Vec::new();
        let mut v = s;
        loop {
            if seen.insert(v, true).is_some() {
                return None;
            }
            l.push(v);
            v = *next.get(&v)?;
            if v == s {
                break;
            }
        }
        loops.push(l);
    }
    Some(loops)
}

/// Whether `v` lies on the open segment p–q (within `eps`).
fn between(p: Vec3, v: Vec3, q: Vec3, eps: f64) -> bool {
    let d = q.minus(p);
    let len2 = d.dot(d);
    if len2 <= 0.0 {
        return false;
    }
    let t = v.minus(p).dot(d) / len2;
    t > 0.0 && t < 1.0 && p.plus(d.scale(t)).minus(v).len() <= eps
}

/// A unit vector perpendicular to unit `n`.
fn perpendicular(n: Vec3) -> Vec3 {
    let a = if n.0.abs() < 0.6 {
        Vec3(1.0, 0.0, 0.0)
    } else {
        Vec3(0.0, 1.0, 0.0)
    };
    n.cross(a).normalized()
}
