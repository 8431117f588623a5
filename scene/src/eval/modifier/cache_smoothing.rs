//! Smoothing groups for an Unwrap UVW cache that stands in for the stack
//! below it, taken from our own evaluation of that stack.
//!
//! The cache holds Max's input to the Unwrap without smoothing groups. When
//! our evaluation of the stack below succeeded but numbers its vertices or
//! faces otherwise than Max (the Unwrap's map then cannot be laid on it), the
//! two are still the same surface: matched vertex by position and polygon by
//! its corner loop, every cached polygon finds exactly one of ours (or the
//! triangles ours split it into) with the same material id, and its smoothing
//! groups are ours. An Unwrap changes no smoothing group, so they are Max's
//! as far as ours are. Anything short of that one-to-one match (coincident
//! vertices, another triangulation, a face more or less, a material id that
//! differs) carries nothing and says why.

use std::collections::HashMap;

use crate::eval::core::math::Vec3;
use crate::eval::objects::mesh::Mesh;
use crate::eval::objects::poly::PolyMesh;

/// Our result of the stack below the Unwrap.
pub(super) enum Below<'a> {
    Mesh(&'a Mesh),
    Poly(&'a PolyMesh),
}

/// Why our result and the cache are not one surface renumbered: the first
/// difference found.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub(super) struct Mismatch(String);

/// Two vertices are one when closer than this fraction of the mesh's size
/// (the cache keeps f32 positions; our evaluation runs in f64).
const SAME_POINT: f64 = 1e-5;

/// Sets the smoothing groups of `cache`'s faces from `below`; Err (leaving
/// `cache` alone) with why when they do not match face for face.
pub(super) fn carry(cache: &mut PolyMesh, below: Below) -> Result<(), Mismatch> {
    let ours = match below {
        Below::Mesh(m) => &m.vertices,
        Below::Poly(p) => &p.vertices,
    };
    // Faces index their vertices freely below: check them once.
    let ours_inside = match below {
        Below::Mesh(m) => inside(m.faces.iter().flat_map(|f| f.v), m.vertices.len()),
        Below::Poly(p) => inside(
            p.faces.iter().flat_map(|f| f.v.iter().copied()),
            p.vertices.len(),
        ),
    };
    let cache_inside = inside(
        cache.faces.iter().flat_map(|f| f.v.iter().copied()),
        cache.vertices.len(),
    );
    if !ours_inside || !cache_inside {
        return Err(Mismatch("a face names a vertex past its mesh".into()));
    }
    if cache.faces.iter().any(|f| f.v.len() < 3) {
        return Err(Mismatch("a cached polygon has fewer than 3 corners".into()));
    }
    let places = Places::of(&cache.vertices, ours)?;
    let groups = match below {
        Below::Poly(p) => from_polygons(cache, p, &places)?,
        Below::Mesh(m) => from_triangles(cache, m, &places)?,
    };
    for (f, g) in cache.faces.iter_mut().zip(groups) {
        f.smoothing = g;
    }
    Ok(())
}

/// The vertices of both meshes by place: vertices closer than
/// [`SAME_POINT`] share one (coincident vertices, as along an unwelded seam,
/// are told apart by the polygons on them).
struct Places {
    cache: Vec<u32>,
    ours: Vec<u32>,
}

impl Places {
    /// Err unless both meshes have as many vertices at every place.
    fn of(cache: &[Vec3], ours: &[Vec3]) -> Result<Places, Mismatch> {
        if cache.len() != ours.len() {
            return Err(Mismatch(format!(
                "the cache has {} vertices, our result {}",
                cache.len(),
                ours.len()
            )));
        }
        let size = extent(cache).max(extent(ours));
        let tol = SAME_POINT * size.max(f64::MIN_POSITIVE);
        let cell = |p: Vec3| {
            [
                (p.0 / tol).floor() as i64,
                (p.1 / tol).floor() as i64,
                (p.2 / tol).floor() as i64,
            ]
        };
        let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::with_capacity(cache.len());
        let mut first: Vec<Vec3> = Vec::new();
        let mut place = |p: Vec3| -> u32 {
            let c = cell(p);
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        if let Some(list) = grid.get(&[c[0] + dx, c[1] + dy, c[2] + dz]) {
                            if let Some(&k) = list
                                .iter()
                                .find(|&&k| first[k as usize].minus(p).len() <= tol)
                            {
                                return k;
                            }
                        }
                    }
                }
            }
            let k = first.len() as u32;
            first.push(p);
            grid.entry(c).or_default().push(k);
            k
        };
        let cache: Vec<u32> = cache.iter().map(|&p| place(p)).collect();
        let ours: Vec<u32> = ours.iter().map(|&p| place(p)).collect();
        let mut count = vec![0i64; first.len()];
        for &k in &cache {
            count[k as usize] += 1;
        }
        for (i, &k) in ours.iter().enumerate() {
            count[k as usize] -= 1;
            if count[k as usize] < 0 {
                return Err(Mismatch(format!(
                    "our vertex {i} is at a place with fewer cached vertices"
                )));
            }
        }
        Ok(Places { cache, ours })
    }
}

/// Whether every vertex index is below `n`.
fn inside(mut v: impl Iterator<Item = u32>, n: usize) -> bool {
    v.all(|v| (v as usize) < n)
}

/// The largest coordinate span of `p`.
fn extent(p: &[Vec3]) -> f64 {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for v in p {
        for (k, x) in [v.0, v.1, v.2].into_iter().enumerate() {
            lo[k] = lo[k].min(x);
            hi[k] = hi[k].max(x);
        }
    }
    (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max)
}

/// A corner loop turned to start at its lowest vertex (same loop, same key).
fn loop_key(v: impl Iterator<Item = u32>) -> Vec<u32> {
    let mut v: Vec<u32> = v.collect();
    if let Some(start) = v
        .iter()
        .enumerate()
        .min_by_key(|(_, x)| **x)
        .map(|(i, _)| i)
    {
        v.rotate_left(start);
    }
    v
}

/// Smoothing groups per cached polygon from our polygons with the same loop
/// of places; polygons on the same places (coincident) must agree.
fn from_polygons(cache: &PolyMesh, ours: &PolyMesh, at: &Places) -> Result<Vec<u32>, Mismatch> {
    if cache.faces.len() != ours.faces.len() {
        return Err(Mismatch(format!(
            "the cache has {} polygons, our result {}",
            cache.faces.len(),
            ours.faces.len()
        )));
    }
    let mut index: HashMap<Vec<u32>, Vec<usize>> = HashMap::with_capacity(ours.faces.len());
    for (i, f) in ours.faces.iter().enumerate() {
        let key = loop_key(f.v.iter().map(|&v| at.ours[v as usize]));
        index.entry(key).or_default().push(i);
    }
    cache
        .faces
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let key = loop_key(f.v.iter().map(|&v| at.cache[v as usize]));
            let list = index
                .get_mut(&key)
                .filter(|l| !l.is_empty())
                .ok_or_else(|| Mismatch(format!("cached polygon {i} is none of ours")))?;
            let o = &ours.faces[list[0]];
            if list.iter().any(|&j| {
                (ours.faces[j].smoothing, ours.faces[j].material) != (o.smoothing, o.material)
            }) {
                return Err(Mismatch(format!(
                    "cached polygon {i} lies on coincident polygons of ours that differ"
                )));
            }
            list.pop();
            if o.material != f.material {
                return Err(Mismatch(format!(
                    "cached polygon {i} has material id {}, ours {}",
                    f.material, o.material
                )));
            }
            Ok(o.smoothing)
        })
        .collect()
}

/// Smoothing groups per cached polygon from the triangles of ours that lie
/// on its corners' places, turning its way: each polygon must get exactly
/// its degree − 2 triangles, all of one smoothing and material.
fn from_triangles(cache: &PolyMesh, ours: &Mesh, at: &Places) -> Result<Vec<u32>, Mismatch> {
    let want: usize = cache.faces.iter().map(|f| f.v.len() - 2).sum();
    if want != ours.faces.len() {
        return Err(Mismatch(format!(
            "the cache's polygons make {want} triangles, our result has {}",
            ours.faces.len()
        )));
    }
    let loops: Vec<Vec<u32>> = cache
        .faces
        .iter()
        .map(|f| f.v.iter().map(|&v| at.cache[v as usize]).collect())
        .collect();
    let mut incident: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, l) in loops.iter().enumerate() {
        for &k in l {
            let list = incident.entry(k).or_default();
            // A loop passing a place twice is listed once.
            if list.last() != Some(&i) {
                list.push(i);
            }
        }
    }
    let mut found: Vec<Option<(u32, u16)>> = vec![None; cache.faces.len()];
    let mut count = vec![0usize; cache.faces.len()];
    for (t, tri) in ours.faces.iter().enumerate() {
        let c = tri.v.map(|v| at.ours[v as usize]);
        let mut hits = incident
            .get(&c[0])
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .copied()
            .filter(|&p| turns_on(&loops[p], c));
        let p = hits
            .next()
            .ok_or_else(|| Mismatch(format!("our triangle {t} lies on no cached polygon")))?;
        if hits.next().is_some() {
            return Err(Mismatch(format!(
                "our triangle {t} lies on more than one cached polygon"
            )));
        }
        let mine = (tri.smoothing, tri.material);
        match found[p] {
            None => found[p] = Some(mine),
            Some(had) if had != mine => {
                return Err(Mismatch(format!(
                    "the triangles of cached polygon {p} differ in smoothing or material"
                )))
            }
            Some(_) => {}
        }
        count[p] += 1;
    }
    cache
        .faces
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if count[i] != f.v.len() - 2 {
                return Err(Mismatch(format!(
                    "cached polygon {i} ({} corners) gets {} of our triangles",
                    f.v.len(),
                    count[i]
                )));
            }
            let (smoothing, material) = found[i].unwrap_or_default();
            if material != f.material {
                return Err(Mismatch(format!(
                    "cached polygon {i} has material id {}, ours {material}",
                    f.material
                )));
            }
            Ok(smoothing)
        })
        .collect()
}

/// Whether triangle `c` runs through three distinct corners of loop `v` in
/// the loop's direction (corners compared by place, so a sliver polygon
/// whose corners share places still takes its degenerate triangles).
fn turns_on(v: &[u32], c: [u32; 3]) -> bool {
    let n = v.len();
    let at = |x: u32| {
        v.iter()
            .enumerate()
            .filter(move |(_, &y)| y == x)
            .map(|(i, _)| i)
    };
    at(c[0]).any(|a| {
        at(c[1]).any(|b| {
            at(c[2]).any(|d| {
                let (b, d) = ((b + n - a) % n, (d + n - a) % n);
                b > 0 && b < d
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::mesh::Face;
    use crate::eval::objects::poly::PolyFace;

    fn square() -> Vec<Vec3> {
        vec![
            Vec3(0.0, 0.0, 0.0),
            Vec3(1.0, 0.0, 0.0),
            Vec3(1.0, 1.0, 0.0),
            Vec3(0.0, 1.0, 0.0),
            Vec3(2.0, 0.0, 0.0),
            Vec3(2.0, 1.0, 0.0),
        ]
    }

    /// Two quads side by side, as the cache lists them (no smoothing).
    fn cache() -> PolyMesh {
        PolyMesh {
            vertices: square(),
            faces: vec![
                PolyFace::fan(vec![0, 1, 2, 3], 1, 0),
                PolyFace::fan(vec![1, 4, 5, 2], 2, 0),
            ],
            maps: Vec::new(),
            edges: None,
            normals: None,
        }
    }

    /// The same surface numbered otherwise: vertices reversed, faces swapped
    /// and started at another corner.
    fn renumbered(groups: [u32; 2], materials: [u16; 2]) -> PolyMesh {
        let mut v = square();
        v.reverse();
        let r = |i: u32| 5 - i;
        PolyMesh {
            vertices: v,
            faces: vec![
                PolyFace::fan(vec![r(4), r(5), r(2), r(1)], materials[1], groups[1]),
                PolyFace::fan(vec![r(2), r(3), r(0), r(1)], materials[0], groups[0]),
            ],
            maps: Vec::new(),
            edges: None,
            normals: None,
        }
    }

    #[test]
    fn polygons_renumbered_give_their_groups() {
        let mut c = cache();
        carry(&mut c, Below::Poly(&renumbered([4, 8], [1, 2]))).unwrap();
        assert_eq!(c.faces[0].smoothing, 4);
        assert_eq!(c.faces[1].smoothing, 8);
    }

    #[test]
    fn triangles_of_the_polygons_give_their_groups() {
        let ours = renumbered([4, 8], [1, 2]).to_mesh().unwrap();
        let mut c = cache();
        carry(&mut c, Below::Mesh(&ours)).unwrap();
        assert_eq!(c.faces[0].smoothing, 4);
        assert_eq!(c.faces[1].smoothing, 8);
    }

    #[test]
    fn a_material_that_differs_carries_nothing() {
        let mut c = cache();
        let e = carry(&mut c, Below::Poly(&renumbered([4, 8], [1, 3])))
            .unwrap_err()
            .to_string();
        assert!(e.contains("material id"), "{e}");
        assert!(c.faces.iter().all(|f| f.smoothing == 0));
    }

    #[test]
    fn a_triangle_across_two_polygons_carries_nothing() {
        // (The other diagonal of a quad still lies on it: smoothing groups
        // are the polygon's, so that matches.)
        let mut ours = cache().to_mesh().unwrap();
        ours.faces[0].v = [0, 1, 4];
        let mut c = cache();
        let e = carry(&mut c, Below::Mesh(&ours)).unwrap_err().to_string();
        assert!(e.contains("no cached polygon"), "{e}");
    }

    #[test]
    fn moved_or_coincident_vertices_carry_nothing() {
        let mut moved = renumbered([4, 8], [1, 2]);
        moved.vertices[0].0 += 0.01;
        let e = carry(&mut cache(), Below::Poly(&moved))
            .unwrap_err()
            .to_string();
        assert!(e.contains("fewer cached vertices"), "{e}");
        let mut twice = renumbered([4, 8], [1, 2]);
        twice.vertices[1] = twice.vertices[0];
        assert!(carry(&mut cache(), Below::Poly(&twice)).is_err());
    }

    /// The two quads apart along an unwelded seam (vertices 1 and 2 twice),
    /// with a sliver polygon closing the seam: coincident vertices are told
    /// apart by the polygons on them, and the sliver's degenerate triangles
    /// still land on it.
    #[test]
    fn coincident_vertices_and_slivers_match_by_their_polygons() {
        let mut v = square();
        v.push(v[1]);
        v.push(v[2]);
        let faces = |g: [u32; 3]| {
            vec![
                PolyFace::fan(vec![0, 1, 2, 3], 1, g[0]),
                PolyFace::fan(vec![6, 4, 5, 7], 1, g[1]),
                PolyFace::fan(vec![1, 6, 7, 2], 1, g[2]),
            ]
        };
        let mut c = PolyMesh {
            vertices: v.clone(),
            faces: faces([0; 3]),
            maps: Vec::new(),
            edges: None,
            normals: None,
        };
        // Ours: the seam's twins swapped in number, faces in another order.
        let mut ov = v;
        ov.swap(1, 6);
        ov.swap(2, 7);
        let swap = |x: u32| match x {
            1 => 6,
            6 => 1,
            2 => 7,
            7 => 2,
            x => x,
        };
        let mut of = faces([2, 4, 8]);
        for f in &mut of {
            f.v = f.v.iter().map(|&x| swap(x)).collect();
        }
        of.reverse();
        let ours = PolyMesh {
            vertices: ov,
            faces: of,
            maps: Vec::new(),
            edges: None,
            normals: None,
        };
        carry(&mut c, Below::Mesh(&ours.to_mesh().unwrap())).unwrap();
        assert_eq!(
            c.faces.iter().map(|f| f.smoothing).collect::<Vec<_>>(),
            [2, 4, 8]
        );
    }

    #[test]
    fn a_face_past_its_vertices_carries_nothing() {
        let mut ours = cache().to_mesh().unwrap();
        ours.faces[0].v[1] = 99;
        let e = carry(&mut cache(), Below::Mesh(&ours))
            .unwrap_err()
            .to_string();
        assert!(e.contains("past its mesh"), "{e}");
    }

    #[test]
    fn a_face_more_carries_nothing() {
        let mut ours = cache().to_mesh().unwrap();
        ours.faces.push(Face {
            v: [0, 1, 2],
            smoothing: 1,
            material: 1,
            flags: 0,
        });
        let e = carry(&mut cache(), Below::Mesh(&ours))
            .unwrap_err()
            .to_string();
        assert!(e.contains("make 4 triangles"), "{e}");
    }
}
