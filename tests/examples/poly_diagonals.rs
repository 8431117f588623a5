//! Which rule gives the diagonals 3ds Max stores for an Editable Poly's
//! polygons? `poly_diagonals [--dump] FILE_OR_DIR...`
//!
//! Every live polygon of degree ≥ 4 of every Editable Poly object (GeomBuffers
//! 0x011a with its 0x20 cut field, or the Max 5 per-face records' 0x0160) is
//! compared with candidate rules evaluated at the polygon's saved pose. The
//! counts are split by degree, planar or not (a corner farther than 1e-4 of
//! twice the polygon's radius from its Newell plane, the Unwrap UVW stand-in's
//! test), convex or not (in the Newell plane), and whether the stored
//! diagonals are the fan from corner 0 (`MNFace::MakePoly`'s, what primitive
//! builders and joins of triangle pairs leave) or something else, which Max
//! computed at some time. The Max SDK documents no rule: `BestConvexDiagonals`
//! is "a triangulation scheme optimized for convex polygons", `FindDiagonals`
//! a general one, replaced in Max 2023.1 / 2024 by `BuildDiagonals`
//! (triangulate.h), so the rules below are guesses to be measured.
//!
//! A rule "fits" a polygon when the stored triangulation is one it gives: for
//! the scored rules, when the stored triangulation's score equals the best
//! (within 1e-9 relative), ties counted apart. `--dump` prints one line per
//! polygon Max computed (not the fan from corner 0); `--detail` prints the
//! counts per fine class (degree, planar, convex, fan) after the summary.

use maxfs_scene::chunk::Chunk;
use maxfs_scene::eval::core::math::{newell, Vec3};
use std::collections::BTreeMap;

/// Planarity tolerance, as the Unwrap UVW stand-in's.
const PLANAR: f64 = 1e-4;
/// Enumerate every triangulation up to this degree (Catalan(8) = 1430).
const MAX_ENUM: usize = 10;

type Tri = [usize; 3];
/// Diagonals as (low, high) local corner pairs.
type Diagonals = Vec<(usize, usize)>;
/// Polygons of a class and the files holding them.
type ClassCount = (usize, BTreeMap<String, ()>);

struct Polygon {
    p: Vec<Vec3>,
    /// Stored diagonals, normalised (low, high) and sorted; None when the
    /// record carries no cut field.
    cuts: Option<Vec<(usize, usize)>>,
}

fn words(p: &[u8]) -> Vec<u32> {
    p.chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Raw MNMesh vertices (dead ones None) and polygons of 0x011a.
fn mnmesh_polys(geom: &[Chunk]) -> Option<Vec<Polygon>> {
    let leaf = |id: u16| geom.iter().find(|c| c.id == id).and_then(Chunk::payload);
    let vp = leaf(0x0100)?;
    let n = *words(vp.get(..4)?).first()? as usize;
    let mut verts = Vec::with_capacity(n);
    let mut at = 4;
    for _ in 0..n {
        let f = words(vp.get(at..at + 4)?)[0];
        at += 4;
        if f & 2 != 0 {
            verts.push(None);
        } else {
            let b = vp.get(at..at + 12)?;
            let g = |i: usize| f64::from(f32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]));
            verts.push(Some(Vec3(g(0), g(4), g(8))));
            at += 12;
        }
    }
    let fp = leaf(0x011a)?;
    let mut at = 0;
    let u32_at = |at: &mut usize| -> Option<u32> {
        let b = fp.get(*at..*at + 4)?;
        *at += 4;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let count = u32_at(&mut at)?;
    let mut out = Vec::new();
    for _ in 0..count {
        let k = u32_at(&mut at)? as usize;
        let mut v = Vec::with_capacity(k);
        for _ in 0..k {
            v.push(u32_at(&mut at)? as usize);
        }
        let b = fp.get(at..at + 2)?;
        let bits = u16::from_le_bytes([b[0], b[1]]);
        at += 2;
        if bits & !0x39 != 0 {
            return None;
        }
        let flags = if bits & 1 != 0 { u32_at(&mut at)? } else { 0 };
        if bits & 0x08 != 0 {
            at += 2;
        }
        if bits & 0x10 != 0 {
            at += 4;
        }
        let cuts = if bits & 0x20 != 0 {
            let mut c = Vec::new();
            for _ in 0..k.saturating_sub(3) {
                let a = u32_at(&mut at)? as usize;
                let b = u32_at(&mut at)? as usize;
                c.push((a.min(b), a.max(b)));
            }
            c.sort_unstable();
            Some(c)
        } else {
            None
        };
        if k < 4 || flags & 2 != 0 {
            continue;
        }
        let p: Option<Vec<Vec3>> = v.iter().map(|&x| verts.get(x).copied().flatten()).collect();
        out.push(Polygon { p: p?, cuts });
    }
    Some(out)
}

/// The Max 5 layout, through the library's decoder.
fn legacy_polys(object: &[Chunk]) -> Option<Vec<Polygon>> {
    let (mesh, polys) = maxfs_scene::eval::objects::mesh::editable_poly(object).ok()?;
    Some(
        polys
            .into_iter()
            .filter(|p| p.v.len() >= 4)
            .map(|p| {
                let pts = p.v.iter().map(|&x| mesh.vertices[x as usize]).collect();
                let mut c: Vec<(usize, usize)> = p
                    .cuts
                    .iter()
                    .map(|&(a, b)| (a.min(b) as usize, a.max(b) as usize))
                    .collect();
                c.sort_unstable();
                Polygon {
                    p: pts,
                    cuts: (!c.is_empty()).then_some(c),
                }
            })
            .collect(),
    )
}

fn centroid(p: &[Vec3]) -> Vec3 {
    p.iter()
        .fold(Vec3(0.0, 0.0, 0.0), |s, x| s.plus(*x))
        .scale(1.0 / p.len() as f64)
}

/// Largest distance of a corner from the Newell plane, over twice the
/// largest distance from the centroid.
fn off_plane(p: &[Vec3]) -> f64 {
    let n = newell(p);
    let c = centroid(p);
    let size = p.iter().map(|x| x.minus(c).len()).fold(0.0, f64::max);
    if n.len() <= 0.0 || size <= 0.0 {
        return 0.0;
    }
    let n = n.scale(1.0 / n.len());
    p.iter()
        .map(|x| x.minus(c).dot(n).abs())
        .fold(0.0, f64::max)
        / (2.0 * size)
}

/// Corners projected on the Newell plane, counter-clockwise.
fn project(p: &[Vec3]) -> Vec<(f64, f64)> {
    let n = newell(p).normalized();
    let a = if n.0.abs() < 0.9 {
        Vec3(1.0, 0.0, 0.0)
    } else {
        Vec3(0.0, 1.0, 0.0)
    };
    let u = a.minus(n.scale(a.dot(n))).normalized();
    let v = n.cross(u);
    p.iter().map(|x| (x.dot(u), x.dot(v))).collect()
}

fn orient(a: (f64, f64), b: (f64, f64), c: (f64, f64)) -> f64 {
    (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
}

fn convex(q: &[(f64, f64)]) -> bool {
    let k = q.len();
    (0..k).all(|i| orient(q[(i + k - 1) % k], q[i], q[(i + 1) % k]) > 0.0)
}

/// Diagonals of a triangulation, normalised and sorted.
fn diagonals(k: usize, tris: &[Tri]) -> Vec<(usize, usize)> {
    let mut d = Vec::new();
    for t in tris {
        for e in 0..3 {
            let (a, b) = (t[e].min(t[(e + 1) % 3]), t[e].max(t[(e + 1) % 3]));
            if b - a != 1 && !(a == 0 && b == k - 1) {
                d.push((a, b));
            }
        }
    }
    d.sort_unstable();
    d.dedup();
    d
}

/// The triangles of a diagonal set (None when it is not a triangulation).
fn triangles_of(k: usize, cuts: &[(usize, usize)]) -> Option<Vec<Tri>> {
    if cuts.len() != k - 3 {
        return None;
    }
    let mut pieces: Vec<Vec<usize>> = vec![(0..k).collect()];
    for &(a, b) in cuts {
        let pi = pieces
            .iter()
            .position(|p| p.contains(&a) && p.contains(&b))?;
        let p = pieces.swap_remove(pi);
        let ia = p.iter().position(|&x| x == a)?;
        let ib = p.iter().position(|&x| x == b)?;
        let (ia, ib) = (ia.min(ib), ia.max(ib));
        if ib - ia < 2 || ia + p.len() - ib < 2 {
            return None;
        }
        pieces.push(p[ia..=ib].to_vec());
        let mut rest = p[ib..].to_vec();
        rest.extend_from_slice(&p[..=ia]);
        pieces.push(rest);
    }
    let mut t = Vec::new();
    for p in pieces {
        if p.len() != 3 {
            return None;
        }
        let mut x = [p[0], p[1], p[2]];
        x.sort_unstable();
        t.push(x);
    }
    Some(t)
}

/// Every triangulation of corners lo..=hi (lo–hi an edge or a diagonal).
fn all_triangulations(lo: usize, hi: usize) -> Vec<Vec<Tri>> {
    if hi - lo < 2 {
        return vec![Vec::new()];
    }
    let mut out = Vec::new();
    for m in lo + 1..hi {
        let left = all_triangulations(lo, m);
        let right = all_triangulations(m, hi);
        for l in &left {
            for r in &right {
                let mut t = l.clone();
                t.extend_from_slice(r);
                t.push([lo, m, hi]);
                out.push(t);
            }
        }
    }
    out
}

fn tri_normal(p: &[Vec3], t: Tri) -> Vec3 {
    p[t[1]].minus(p[t[0]]).cross(p[t[2]].minus(p[t[0]]))
}

fn angle(a: Vec3, b: Vec3) -> f64 {
    let (la, lb) = (a.len(), b.len());
    if la <= 0.0 || lb <= 0.0 {
        return std::f64::consts::PI;
    }
    (a.dot(b) / (la * lb)).clamp(-1.0, 1.0).acos()
}

fn min_angle(p: &[Vec3], t: Tri) -> f64 {
    (0..3)
        .map(|i| {
            let (a, b, c) = (p[t[i]], p[t[(i + 1) % 3]], p[t[(i + 2) % 3]]);
            angle(b.minus(a), c.minus(a))
        })
        .fold(f64::INFINITY, f64::min)
}

/// Angles between the normals of triangles sharing a diagonal.
fn dihedrals(p: &[Vec3], k: usize, tris: &[Tri]) -> Vec<f64> {
    let mut out = Vec::new();
    for (a, b) in diagonals(k, tris) {
        let on: Vec<&Tri> = tris
            .iter()
            .filter(|t| t.contains(&a) && t.contains(&b))
            .collect();
        if let [x, y] = on[..] {
            out.push(angle(tri_normal(p, *x), tri_normal(p, *y)));
        }
    }
    out
}

/// A scored rule: lower is better.
type Score = fn(&[Vec3], &[(f64, f64)], usize, &[Tri]) -> f64;

fn score_rules() -> Vec<(&'static str, Score)> {
    vec![
        ("max min angle (3D)", |p, _, _, t| {
            -t.iter()
                .map(|&x| min_angle(p, x))
                .fold(f64::INFINITY, f64::min)
        }),
        ("min total diagonal length", |p, _, k, t| {
            diagonals(k, t)
                .iter()
                .map(|&(a, b)| p[a].minus(p[b]).len())
                .sum()
        }),
        ("max total diagonal length", |p, _, k, t| {
            -diagonals(k, t)
                .iter()
                .map(|&(a, b)| p[a].minus(p[b]).len())
                .sum::<f64>()
        }),
        ("min total area (3D)", |p, _, _, t| {
            t.iter().map(|&x| tri_normal(p, x).len()).sum()
        }),
        ("max total area (3D)", |p, _, _, t| {
            -t.iter().map(|&x| tri_normal(p, x).len()).sum::<f64>()
        }),
        ("min largest dihedral", |p, _, k, t| {
            dihedrals(p, k, t).into_iter().fold(0.0, f64::max)
        }),
        ("min sum of dihedrals", |p, _, k, t| {
            dihedrals(p, k, t).into_iter().sum()
        }),
        ("min sum of normal deviations", |p, _, _, t| {
            let n = newell(p);
            t.iter().map(|&x| angle(tri_normal(p, x), n)).sum()
        }),
        ("min largest normal deviation", |p, _, _, t| {
            let n = newell(p);
            t.iter()
                .map(|&x| angle(tri_normal(p, x), n))
                .fold(0.0, f64::max)
        }),
        ("max min angle (plane)", |_, q, _, t| {
            -t.iter()
                .map(|&x| {
                    (0..3)
                        .map(|i| {
                            let (a, b, c) = (q[x[i]], q[x[(i + 1) % 3]], q[x[(i + 2) % 3]]);
                            let (u, v) = ((b.0 - a.0, b.1 - a.1), (c.0 - a.0, c.1 - a.1));
                            let d = (u.0 * v.0 + u.1 * v.1)
                                / ((u.0.hypot(u.1)) * (v.0.hypot(v.1))).max(f64::MIN_POSITIVE);
                            d.clamp(-1.0, 1.0).acos()
                        })
                        .fold(f64::INFINITY, f64::min)
                })
                .fold(f64::INFINITY, f64::min)
        }),
    ]
}

/// A fan from corner s.
fn fan(k: usize, s: usize) -> Vec<(usize, usize)> {
    let mut d: Vec<(usize, usize)> = (2..k - 1)
        .map(|i| {
            let b = (s + i) % k;
            (s.min(b), s.max(b))
        })
        .collect();
    d.sort_unstable();
    d
}

/// A zig-zag strip whose first ear is corner s (as `PolyFace::strip` from 0).
fn strip(k: usize, s: usize, first_left: bool) -> Vec<(usize, usize)> {
    let r = |i: usize| (i + s) % k;
    let mut tris = vec![[r(0), r(1), r(k - 1)]];
    let (mut l, mut h) = (1, k - 1);
    let mut left = first_left;
    while l + 1 < h {
        if left {
            tris.push([r(l), r(l + 1), r(h)]);
            l += 1;
        } else {
            tris.push([r(l), r(h - 1), r(h)]);
            h -= 1;
        }
        left = !left;
    }
    diagonals(k, &tris)
}

/// Whether ring position `j` is a convex corner whose triangle with its two
/// ring neighbours holds no other ring vertex (in the projected plane).
fn is_ear(q: &[(f64, f64)], ring: &[usize], j: usize) -> bool {
    let k = ring.len();
    let (a, b, c) = (ring[(j + k - 1) % k], ring[j], ring[(j + 1) % k]);
    orient(q[a], q[b], q[c]) > 0.0
        && ring.iter().all(|&x| {
            [a, b, c].contains(&x)
                || !(orient(q[a], q[b], q[x]) >= 0.0
                    && orient(q[b], q[c], q[x]) >= 0.0
                    && orient(q[c], q[a], q[x]) >= 0.0)
        })
}

/// Ear clipping in the Newell plane: scan from ring position `start`; after a
/// clip, `restart` scans from the ring's start again, else from the clipped
/// ear's successor. `pick`: 0 first ear, 1 the ear with the smallest corner
/// angle, 2 the ear with the largest min angle.
fn ear_clip(
    q: &[(f64, f64)],
    start: usize,
    restart: bool,
    pick: u8,
) -> Option<Vec<(usize, usize)>> {
    let k0 = q.len();
    let mut ring: Vec<usize> = (0..k0).collect();
    let mut tris = Vec::new();
    let mut pos = start % k0;
    while ring.len() > 3 {
        let k = ring.len();
        let is_ear = |j: usize| is_ear(q, &ring, j);
        let ears: Vec<usize> = (0..k)
            .map(|i| (pos + i) % k)
            .filter(|&j| is_ear(j))
            .collect();
        let corner_angle = |j: usize| {
            let (a, b, c) = (q[ring[(j + k - 1) % k]], q[ring[j]], q[ring[(j + 1) % k]]);
            let (u, v) = ((a.0 - b.0, a.1 - b.1), (c.0 - b.0, c.1 - b.1));
            (u.0 * v.0 + u.1 * v.1) / (u.0.hypot(u.1) * v.0.hypot(v.1)).max(f64::MIN_POSITIVE)
        };
        let j = match pick {
            0 => *ears.first()?,
            // smallest angle = largest cosine
            1 => *ears
                .iter()
                .max_by(|&&x, &&y| corner_angle(x).total_cmp(&corner_angle(y)))?,
            _ => *ears
                .iter()
                .min_by(|&&x, &&y| corner_angle(x).total_cmp(&corner_angle(y)))?,
        };
        tris.push([ring[(j + k - 1) % k], ring[j], ring[(j + 1) % k]]);
        ring.remove(j);
        pos = if restart {
            start % ring.len()
        } else {
            j % ring.len()
        };
    }
    tris.push([ring[0], ring[1], ring[2]]);
    Some(diagonals(k0, &tris))
}

/// Greedy ear clipping in the Newell plane: at each step the valid ear whose
/// new diagonal scores lowest (`measure`: 0 its 3D length, 1 its squared
/// 3D length over the ear's area, i.e. the ear's flatness) is clipped, the
/// first in ring order on a tie. Also says whether some step was decided
/// by less than 1e-5 (relative): float noise then picks the ear.
fn greedy_ears(p: &[Vec3], q: &[(f64, f64)], measure: u8) -> Option<(Vec<(usize, usize)>, bool)> {
    let k0 = q.len();
    let mut ring: Vec<usize> = (0..k0).collect();
    let mut tris = Vec::new();
    let mut close = false;
    while ring.len() > 3 {
        let k = ring.len();
        let mut best: Option<(f64, usize)> = None;
        let mut second = f64::INFINITY;
        for j in 0..k {
            let (a, b, c) = (ring[(j + k - 1) % k], ring[j], ring[(j + 1) % k]);
            let ear = orient(q[a], q[b], q[c]) > 0.0
                && ring.iter().all(|&x| {
                    [a, b, c].contains(&x)
                        || !(orient(q[a], q[b], q[x]) >= 0.0
                            && orient(q[b], q[c], q[x]) >= 0.0
                            && orient(q[c], q[a], q[x]) >= 0.0)
                });
            if !ear {
                continue;
            }
            let d = p[a].minus(p[c]).len();
            let s = match measure {
                0 => d,
                _ => d * d / tri_normal(p, [a, b, c]).len().max(f64::MIN_POSITIVE),
            };
            // Opposite ears of a quad cut the same diagonal: no tie.
            let same = |bj: usize| {
                let (x, y) = (ring[(bj + k - 1) % k], ring[(bj + 1) % k]);
                (x.min(y), x.max(y)) == (a.min(c), a.max(c))
            };
            match best {
                Some((bs, bj)) if s >= bs => {
                    if !same(bj) {
                        second = second.min(s);
                    }
                }
                _ => {
                    if let Some((bs, bj)) = best {
                        if !same(bj) {
                            second = second.min(bs);
                        }
                    }
                    best = Some((s, j));
                }
            }
        }
        let (bs, j) = best?;
        if second.is_finite() && (second - bs).abs() <= 1e-5 * bs.abs().max(1e-30) {
            close = true;
        }
        tris.push([ring[(j + k - 1) % k], ring[j], ring[(j + 1) % k]]);
        ring.remove(j);
    }
    tris.push([ring[0], ring[1], ring[2]]);
    Some((diagonals(k0, &tris), close))
}

/// Alternating ear clipping in the Newell plane, the pattern Max's convex
/// caps show (every other corner cut off, round and round): from ring
/// position `start`, the first valid ear at or after the scan position is
/// clipped and the scan moves past the corner after it. Stops at four
/// corners left: the diagonals so far and the quad left (ring order).
fn alternating(q: &[(f64, f64)], start: usize) -> Option<(Diagonals, [usize; 4])> {
    let k0 = q.len();
    let mut ring: Vec<usize> = (0..k0).collect();
    let mut tris = Vec::new();
    let mut pos = start % k0;
    while ring.len() > 4 {
        let k = ring.len();
        let is_ear = |j: usize| is_ear(q, &ring, j);
        let j = (0..k).map(|i| (pos + i) % k).find(|&j| is_ear(j))?;
        tris.push([ring[(j + k - 1) % k], ring[j], ring[(j + 1) % k]]);
        ring.remove(j);
        pos = (j + 1) % ring.len();
    }
    let quad = [ring[0], ring[1], ring[2], ring[3]];
    Some((diagonals(k0, &tris), quad))
}

/// Whether `cuts` is `alternating(start)` finished with one of the quad's two
/// diagonals; whether with its shorter (3D) one; and how much the two
/// differ in length (relative).
fn alternating_fits(
    p: &[Vec3],
    q: &[(f64, f64)],
    start: usize,
    cuts: &[(usize, usize)],
) -> (bool, bool, f64) {
    let Some((d, quad)) = alternating(q, start) else {
        return (false, false, 0.0);
    };
    let k = q.len();
    let norm = |a: usize, b: usize| (a.min(b), a.max(b));
    let with = |x: (usize, usize)| {
        let mut all = d.clone();
        all.push(x);
        all.sort_unstable();
        all
    };
    let a = norm(quad[0], quad[2]);
    let b = norm(quad[1], quad[3]);
    // Diagonals of the big polygon only: sides of it are not diagonals.
    let side = |x: (usize, usize)| x.1 - x.0 == 1 || (x.0 == 0 && x.1 == k - 1);
    if side(a) || side(b) {
        return (false, false, 0.0);
    }
    let either = with(a) == cuts || with(b) == cuts;
    let la = p[a.0].minus(p[a.1]).len();
    let lb = p[b.0].minus(p[b.1]).len();
    let short = if la <= lb { a } else { b };
    let rel = (la - lb).abs() / la.max(lb).max(f64::MIN_POSITIVE);
    (either, with(short) == cuts, rel)
}

#[derive(Default, Clone)]
struct Tally {
    fit: usize,
    tied: usize,
    of: usize,
    files: BTreeMap<String, (usize, usize)>,
}

impl Tally {
    fn add(&mut self, file: &str, fit: bool, tied: bool) {
        self.of += 1;
        let e = self.files.entry(file.to_string()).or_default();
        e.1 += 1;
        if fit {
            self.fit += 1;
            e.0 += 1;
            if tied {
                self.tied += 1;
            }
        }
    }
}

#[derive(Default)]
struct Stats {
    /// (class key, rule) → tally
    rules: BTreeMap<(String, String), Tally>,
    classes: BTreeMap<String, ClassCount>,
}

fn expand(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for a in args {
        let p = std::path::Path::new(a);
        if p.is_dir() {
            for f in maxfs_tests::files_with_ext(p, &["max"]) {
                out.push(f.display().to_string());
            }
        } else {
            out.push(a.clone());
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dump = args.iter().any(|a| a == "--dump");
    let detail = args.iter().any(|a| a == "--detail");
    let files = expand(
        &args
            .into_iter()
            .filter(|a| a != "--dump" && a != "--detail")
            .collect::<Vec<_>>(),
    );
    let mut stats = Stats::default();
    let rules = score_rules();
    let mut enum_cache: BTreeMap<usize, Vec<Vec<Tri>>> = BTreeMap::new();
    let mut no_cut = 0usize;
    let mut objects = 0usize;
    let mut bad_cut = 0usize;
    for path in &files {
        let Ok(doc) = maxfs_scene::Document::open(std::path::Path::new(path)) else {
            continue;
        };
        let doc_version = doc.version().unwrap_or(0);
        let version = format!("{doc_version:#x}");
        let Ok(eval) = maxfs_scene::eval::SceneEval::from_document(doc) else {
            continue;
        };
        let name = std::path::Path::new(path)
            .file_name()
            .map_or(path.clone(), |n| n.to_string_lossy().into_owned());
        for (i, o) in eval.graph.objects.iter().enumerate() {
            let Some(c) = o.class.as_ref() else { continue };
            if c.class_id != maxfs_scene::eval::objects::mesh::EDITABLE_POLY {
                continue;
            }
            let ch = eval.chunks(i);
            let Ok(geom) = maxfs_scene::eval::objects::mesh::geom_buffers(ch) else {
                continue;
            };
            let polys = if geom.iter().any(|c| c.id == 0x011a) {
                mnmesh_polys(geom)
            } else {
                legacy_polys(ch)
            };
            let Some(polys) = polys else {
                eprintln!("{path}: object {i}: polygons not read");
                continue;
            };
            objects += 1;
            for (fi, poly) in polys.iter().enumerate() {
                let k = poly.p.len();
                let Some(cuts) = &poly.cuts else {
                    no_cut += 1;
                    continue;
                };
                let Some(stored_tris) = triangles_of(k, cuts) else {
                    bad_cut += 1;
                    continue;
                };
                let q = project(&poly.p);
                let off = off_plane(&poly.p);
                let planar = off <= PLANAR;
                let cvx = convex(&q);
                let is_fan0 = *cuts == fan(k, 0);
                let deg = if k >= 7 {
                    "7+".to_string()
                } else {
                    k.to_string()
                };
                let folded = stored_tris
                    .iter()
                    .any(|t| orient(q[t[0]], q[t[1]], q[t[2]]) <= 0.0);
                let key = format!(
                    "{} deg {deg} {} {}{}",
                    if is_fan0 { "fan0" } else { "COMPUTED" },
                    if planar { "planar" } else { "NONPLANAR" },
                    if cvx { "convex" } else { "concave" },
                    if folded { " stored-folded" } else { "" },
                );
                let ce = stats.classes.entry(key.clone()).or_default();
                ce.0 += 1;
                ce.1.insert(name.clone(), ());
                let mut results: Vec<(String, bool, bool)> = Vec::new();
                results.push(("fan from corner 0".into(), is_fan0, false));
                let fan_at: Vec<usize> = (0..k).filter(|&s| *cuts == fan(k, s)).collect();
                results.push((
                    "fan from some corner".into(),
                    !fan_at.is_empty(),
                    fan_at.len() > 1,
                ));
                let strip_at: Vec<String> = (0..k)
                    .flat_map(|s| [(s, true), (s, false)])
                    .filter(|&(s, l)| *cuts == strip(k, s, l))
                    .map(|(s, l)| format!("{s}{}", if l { "L" } else { "R" }))
                    .collect();
                results.push((
                    "strip from corner 0 (PolyFace::strip)".into(),
                    *cuts == strip(k, 0, true),
                    false,
                ));
                results.push((
                    "strip from some corner".into(),
                    !strip_at.is_empty(),
                    strip_at.len() > 1,
                ));
                if k == 4 {
                    let d02 = poly.p[0].minus(poly.p[2]).len();
                    let d13 = poly.p[1].minus(poly.p[3]).len();
                    let short = if d02 <= d13 { (0, 2) } else { (1, 3) };
                    let tie = (d02 - d13).abs() <= 1e-9 * d02.max(d13);
                    results.push(("quad: shorter diagonal".into(), cuts[0] == short, tie));
                }
                for start in [0usize, 1, 2] {
                    for restart in [true, false] {
                        for pick in [0u8, 1, 2] {
                            let r = ear_clip(&q, start, restart, pick);
                            let label = format!(
                                "ears from {start}, {}, {}",
                                if restart { "rescan" } else { "continue" },
                                ["first", "sharpest", "widest"][pick as usize]
                            );
                            results.push((label, r.as_ref() == Some(cuts), false));
                        }
                    }
                }
                if k >= 5 {
                    let fits: Vec<(bool, bool, f64)> = (0..k)
                        .map(|s| alternating_fits(&poly.p, &q, s, cuts))
                        .collect();
                    results.push(("alternating from 0, quad either".into(), fits[0].0, false));
                    // Tied here: the quad's diagonals within 1e-5 of each other.
                    results.push((
                        "alternating from 0, quad shorter".into(),
                        fits[0].1,
                        fits[0].2 <= 1e-5,
                    ));
                    results.push((
                        "alternating from 0, quad either, diagonals differ > 1e-5".into(),
                        fits[0].0 && fits[0].2 > 1e-5,
                        false,
                    ));
                    results.push((
                        "alternating from 0, quad shorter, diagonals differ > 1e-5".into(),
                        fits[0].1 && fits[0].2 > 1e-5,
                        false,
                    ));
                    let any = fits.iter().filter(|f| f.0).count();
                    results.push((
                        "alternating from some corner, quad either".into(),
                        any > 0,
                        any > 1,
                    ));
                    let any_s = fits.iter().filter(|f| f.1).count();
                    results.push((
                        "alternating from some corner, quad shorter".into(),
                        any_s > 0,
                        any_s > 1,
                    ));
                }
                for (m, label) in [
                    (0u8, "greedy ears: shortest diagonal"),
                    (1, "greedy ears: least flat"),
                ] {
                    let g = greedy_ears(&poly.p, &q, m);
                    let fit = g.as_ref().is_some_and(|(d, _)| d == cuts);
                    results.push((label.into(), fit, g.is_some_and(|(_, c)| c)));
                }
                if k <= MAX_ENUM {
                    let all = enum_cache
                        .entry(k)
                        .or_insert_with(|| {
                            all_triangulations(0, k - 1)
                                .into_iter()
                                .map(|mut t| {
                                    for x in &mut t {
                                        x.sort_unstable();
                                    }
                                    t
                                })
                                .collect()
                        })
                        .clone();
                    // Only triangulations whose triangles all turn the
                    // polygon's way in its plane compete.
                    let valid: Vec<&Vec<Tri>> = all
                        .iter()
                        .filter(|t| t.iter().all(|x| orient(q[x[0]], q[x[1]], q[x[2]]) > 0.0))
                        .collect();
                    for (label, f) in &rules {
                        let best = valid
                            .iter()
                            .map(|t| f(&poly.p, &q, k, t))
                            .fold(f64::INFINITY, f64::min);
                        let mine = f(&poly.p, &q, k, &stored_tris);
                        let tol = 1e-9 * best.abs().max(1e-30);
                        let n_best = valid
                            .iter()
                            .filter(|t| (f(&poly.p, &q, k, t) - best).abs() <= tol)
                            .count();
                        results.push((
                            label.to_string(),
                            (mine - best).abs() <= tol && !folded,
                            n_best > 1,
                        ));
                    }
                }
                // Coarse groups for the summary table.
                let new_max = doc_version >= 0x2028;
                let group = if folded {
                    "H folded".to_string()
                } else if k == 4 {
                    format!(
                        "{} {}",
                        if is_fan0 { "A quad 0-2" } else { "B quad 1-3" },
                        if planar { "planar" } else { "nonplanar" }
                    )
                } else if is_fan0 {
                    "C deg5+ fan0".to_string()
                } else {
                    format!(
                        "{} {} {}",
                        if new_max {
                            "E deg5+ other, Max2023+"
                        } else {
                            "D deg5+ other"
                        },
                        if planar { "planar" } else { "nonplanar" },
                        if cvx { "convex" } else { "concave" }
                    )
                };
                let ge = stats.classes.entry(format!("~{group}")).or_default();
                ge.0 += 1;
                ge.1.insert(name.clone(), ());
                for (label, fit, tied) in &results {
                    for kk in [key.clone(), format!("~{group}")] {
                        stats
                            .rules
                            .entry((kk, label.clone()))
                            .or_default()
                            .add(&name, *fit, *tied);
                    }
                }
                if dump && !is_fan0 {
                    let fits: Vec<&str> = results
                        .iter()
                        .filter(|r| r.1)
                        .map(|r| r.0.as_str())
                        .collect();
                    println!(
                        "DUMP\t{name}\t{version}\t{i}\t{fi}\tdeg {k}\toff {off:.2e}\t{}\t{cuts:?}\tfan at {fan_at:?}\tstrip at {strip_at:?}\t{}",
                        if cvx { "convex" } else { "concave" },
                        fits.join("; ")
                    );
                }
            }
        }
    }
    let mut all_files: Vec<&String> = stats
        .classes
        .iter()
        .filter(|(k, _)| !k.starts_with('~'))
        .flat_map(|(_, (_, f))| f.keys())
        .collect();
    all_files.sort();
    all_files.dedup();
    let measured: usize = stats
        .classes
        .iter()
        .filter(|(k, _)| !k.starts_with('~'))
        .map(|(_, (n, _))| n)
        .sum();
    println!(
        "measured {measured} polygons of degree >= 4 in {} files ({objects} Editable Poly objects)",
        all_files.len()
    );
    println!("polygons of degree >= 4 without a cut field: {no_cut}; cut fields that are no triangulation: {bad_cut}");
    // The summary: one column per coarse group, "fit/of (files all fit/files)".
    let groups: Vec<(&String, &ClassCount)> = stats
        .classes
        .iter()
        .filter(|(k, _)| k.starts_with('~'))
        .collect();
    println!(
        "\n| rule | {} |",
        groups
            .iter()
            .map(|(k, (n, f))| format!("{} ({n} in {} files)", &k[1..], f.len()))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|{}", "---|".repeat(groups.len()));
    let mut labels: Vec<&String> = stats.rules.keys().map(|(_, r)| r).collect();
    labels.sort();
    labels.dedup();
    for rule in labels {
        let cells: Vec<String> = groups
            .iter()
            .map(
                |(k, _)| match stats.rules.get(&((*k).clone(), rule.clone())) {
                    Some(t) => format!(
                        "{}/{} ({}/{})",
                        t.fit,
                        t.of,
                        t.files.values().filter(|(f, o)| f == o).count(),
                        t.files.len()
                    ),
                    None => "-".into(),
                },
            )
            .collect();
        println!("| {rule} | {} |", cells.join(" | "));
    }
    if !detail {
        return;
    }
    for (key, (n, files)) in &stats.classes {
        println!("\n## {key}: {n} polygons in {} files", files.len());
        for ((k2, rule), t) in &stats.rules {
            if k2 != key {
                continue;
            }
            let whole = t.files.values().filter(|(f, o)| f == o).count();
            println!(
                "  {rule:<40} {:>6} / {:<6} ({:>5.1} %) tied {:>5}  files all-fit {}/{}",
                t.fit,
                t.of,
                100.0 * t.fit as f64 / t.of.max(1) as f64,
                t.tied,
                whole,
                t.files.len()
            );
        }
    }
}
