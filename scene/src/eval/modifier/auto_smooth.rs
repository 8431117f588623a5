//! Max's Auto Smooth (`Mesh::AutoSmooth`, `MNMesh::AutoSmooth`), shared by
//! the Smooth modifier (on triangles) and Edit Poly's Auto Smooth operation
//! (on polygons). Max's code is not public; the rule is built from its
//! documentation:
//!
//! - Two faces sharing an edge smooth together when the angle between their
//!   unit normals is no more than the threshold (3ds Max 8 user reference,
//!   "Smoothing": "less than or equal to the threshold"; the MAXScript
//!   reference says "less than"). The two readings differ only for an edge
//!   at exactly the threshold — a box's 90° edges under a 90° threshold —
//!   where Max's float arithmetic decides: such an edge is refused by name,
//!   not guessed (`AMBIGUOUS`).
//! - Faces joined through such edges form one region, and every face of a
//!   region carries a common smoothing bit; regions that share a vertex get
//!   different bits, so their normals stay apart. A region therefore also
//!   smooths across a sharp edge between two of its own faces (joined
//!   round about): the "leak" that Max's Prevent Indirect Smoothing exists
//!   for (MAXScript reference of the Smooth modifier, the SDK's
//!   `AutoSmooth` comment). How Max then re-deals the bits is not public, so
//!   with that option such a region is refused; without one it changes
//!   nothing and is evaluated.
//! - A region of one face gets no bit: its corners take its own normal
//!   either way, and it spends none of the 32 bits. A region whose
//!   neighbours already hold all 32 bits is refused (how Max shares a bit
//!   then is not public).
//! - Open edges join nothing; an edge of more than two faces joins each pair
//!   within the threshold. A face of no area has a zero normal, which makes
//!   90° with every neighbour (Max's normalize of a zero vector).
//!
//! The bits chosen are ours (lowest free bit, regions in order of their first
//! face); what they produce — which corners share a normal — is Max's rule.

use std::collections::HashMap;

use crate::eval::core::math::Vec3;
use crate::eval::error::EvalError;
use crate::eval::objects::poly::PolyMesh;

/// Edges this close (radians) to the threshold are refused as ambiguous: face
/// normals from f32 positions carry errors near 1e-7 rad.
const AMBIGUOUS: f64 = 1e-5;

/// Faces this close (radians) count as parallel: smoothed or not, their
/// corners get the same normals to that precision.
pub const PARALLEL: f64 = 2.0 * AMBIGUOUS;

/// The faces Auto Smooth sees: vertex loops, unit (or zero) normals, and
/// whether each takes part; faces not taking part keep `groups[i]`.
pub struct Input<'a> {
    pub loops: Vec<&'a [u32]>,
    pub normals: Vec<Vec3>,
    pub selected: Vec<bool>,
    pub vertex_count: usize,
}

impl<'a> Input<'a> {
    /// A polygon mesh's polygons, each by its (Newell) normal: Max smooths a
    /// polygon input as whole polygons.
    pub fn polygons(poly: &'a PolyMesh, selected: Vec<bool>) -> Input<'a> {
        Input {
            loops: poly.faces.iter().map(|f| &f.v[..]).collect(),
            normals: poly
                .faces
                .iter()
                .map(|f| newell(&poly.vertices, &f.v))
                .collect(),
            selected,
            vertex_count: poly.vertices.len(),
        }
    }
}

/// Options of the Smooth modifier and Edit Poly's operation.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Threshold in radians.
    pub angle: f64,
    pub prevent_indirect: bool,
}

/// A polygon's unit normal by Newell's sum over its edges (zero for a
/// polygon of no area), as Max's polygon normals; a triangle's is its plain
/// cross product's direction.
pub fn newell(vertices: &[Vec3], l: &[u32]) -> Vec3 {
    let at = |i: usize| {
        vertices
            .get(l[i % l.len()] as usize)
            .copied()
            .unwrap_or_default()
    };
    let mut n = Vec3::default();
    for j in 0..l.len() {
        n = n.plus(at(j).cross(at(j + 1)));
    }
    let len = n.len();
    if len > 0.0 {
        n.scale(1.0 / len)
    } else {
        n
    }
}

/// The angle between two unit (or zero) normals.
pub fn angle_between(a: Vec3, b: Vec3) -> f64 {
    a.dot(b).clamp(-1.0, 1.0).acos()
}

/// Whether two faces meeting at `angle` smooth together; `Err` when the
/// angle is too close to the threshold to tell Max's comparison.
pub fn smooth_edge(angle: f64, threshold: f64) -> Result<bool, EvalError> {
    // Under a threshold of about zero, faces either side of it are parallel
    // to within 2·AMBIGUOUS: joined or not, their normals agree that far.
    if threshold > PARALLEL && (angle - threshold).abs() <= AMBIGUOUS {
        return Err(EvalError::not_evaluated_why(
            format!(
                "auto smooth of an edge at {:.4}° under a {:.4}° threshold",
                angle.to_degrees(),
                threshold.to_degrees()
            ),
            "Max's float comparison at the threshold decides",
        ));
    }
    Ok(angle <= threshold)
}

fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// New smoothing groups of every face (`groups` holds the current ones; faces
/// not selected keep theirs).
pub fn assign(input: &Input, groups: &mut [u32], o: Options) -> Result<(), EvalError> {
    let n = input.loops.len();
    if input.normals.len() != n || input.selected.len() != n || groups.len() != n {
        return Err(EvalError::malformed(
            "",
            "auto smooth: face, normal and selection counts differ",
        ));
    }
    if !o.angle.is_finite() {
        return Err(EvalError::malformed(
            "",
            format!("auto smooth angle {}", o.angle),
        ));
    }
    let nv = input.vertex_count;
    let mut edge_faces: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    for (i, l) in input.loops.iter().enumerate() {
        if let Some(&v) = l.iter().find(|&&v| v as usize >= nv) {
            return Err(EvalError::malformed(
                format!("face {i}"),
                format!("vertex {v} beyond {nv}"),
            ));
        }
        for j in 0..l.len() {
            let (a, b) = (l[j], l[(j + 1) % l.len()]);
            if a != b {
                edge_faces.entry((a.min(b), a.max(b))).or_default().push(i);
            }
        }
    }
    // Regions by union-find over the smooth edges (root = smallest face).
    let mut parent: Vec<usize> = (0..n).collect();
    let mut sharp: Vec<(usize, usize)> = Vec::new();
    let mut edges: Vec<_> = edge_faces.into_iter().collect();
    edges.sort_unstable_by_key(|(k, _)| *k);
    for (_, faces) in &edges {
        for (x, &a) in faces.iter().enumerate() {
            for &b in &faces[x + 1..] {
                if a == b || !input.selected[a] || !input.selected[b] {
                    continue;
                }
                let angle = angle_between(input.normals[a], input.normals[b]);
                if smooth_edge(angle, o.angle)? {
                    let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                    parent[ra.max(rb)] = ra.min(rb);
                } else {
                    sharp.push((a, b));
                }
            }
        }
    }
    let region: Vec<usize> = (0..n).map(|i| root(&mut parent, i)).collect();
    if o.prevent_indirect {
        if let Some(&(a, b)) = sharp.iter().find(|(a, b)| region[*a] == region[*b]) {
            return Err(EvalError::not_evaluated_why(
                format!(
                    "prevent indirect smoothing (faces {a} and {b} meet across a sharp edge \
                     inside one smoothed region)"
                ),
                "how Max re-deals the region's bits is not public",
            ));
        }
    }
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in (0..n).filter(|&i| input.selected[i]) {
        members[region[i]].push(i);
        groups[i] = 0;
    }
    let mut vertex_faces: Vec<Vec<usize>> = vec![Vec::new(); nv];
    for (i, l) in input.loops.iter().enumerate() {
        for &v in l.iter() {
            let list = &mut vertex_faces[v as usize];
            if list.last() != Some(&i) {
                list.push(i);
            }
        }
    }
    for (r, faces) in members.iter().enumerate() {
        if faces.len() < 2 {
            continue;
        }
        let mut used = 0u32;
        for &f in faces {
            for &v in input.loops[f].iter() {
                for &g in &vertex_faces[v as usize] {
                    if region[g] != r || !input.selected[g] {
                        used |= groups[g];
                    }
                }
            }
        }
        let free = (!used).trailing_zeros();
        if free >= 32 {
            return Err(EvalError::not_evaluated_why(
                format!(
                    "auto smooth of a region (face {r} and {} more) whose neighbours hold all \
                     32 smoothing groups",
                    faces.len() - 1
                ),
                "how Max shares a group then is not public",
            ));
        }
        for &f in faces {
            groups[f] = 1 << free;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'a>(loops: &'a [Vec<u32>], normals: Vec<Vec3>, nv: usize) -> Input<'a> {
        Input {
            loops: loops.iter().map(Vec::as_slice).collect(),
            selected: vec![true; loops.len()],
            normals,
            vertex_count: nv,
        }
    }

    #[test]
    fn threshold_edges_are_refused_and_the_rest_compared_inclusively() {
        assert!(smooth_edge(0.5, 0.6).unwrap());
        assert!(!smooth_edge(0.6, 0.5).unwrap());
        let e = smooth_edge(std::f64::consts::FRAC_PI_2, 90f32.to_radians() as f64).unwrap_err();
        assert!(e.to_string().contains("threshold"), "{e}");
        assert!(
            (angle_between(Vec3(1.0, 0.0, 0.0), Vec3(0.0, 0.0, 0.0)) - std::f64::consts::FRAC_PI_2)
                .abs()
                < 1e-12
        );
    }

    #[test]
    fn a_fan_of_sharp_singletons_spends_no_bits_and_prevent_indirect_is_refused_only_when_it_matters(
    ) {
        // 40 triangles round a cone tip (vertex 0), each 60° from the next:
        // no region of more than one face, so no bit is needed.
        let loops: Vec<Vec<u32>> = (0..40).map(|i| vec![0, 1 + i, 1 + (i + 1) % 40]).collect();
        let normals: Vec<Vec3> = (0..40)
            .map(|i| {
                let a = f64::from(i) * 60f64.to_radians();
                Vec3(a.cos(), a.sin(), 0.0)
            })
            .collect();
        let mut g = vec![7u32; 40];
        let o = Options {
            angle: 30f64.to_radians(),
            prevent_indirect: true,
        };
        assert!(assign(&input(&loops, normals.clone(), 41), &mut g, o).is_ok());
        assert!(g.iter().all(|&x| x == 0));
        // Three faces round vertex 2, each 25° from the next, so faces 0 and
        // 2 meet at 50° across their shared edge: one region under 30° (the
        // leak), refused with prevent indirect. At 0°, 20°, 100° the third
        // face stands apart and there is nothing to prevent.
        let loops = vec![vec![0, 1, 2], vec![1, 3, 2], vec![3, 0, 2]];
        let d = |deg: f64| Vec3(deg.to_radians().cos(), deg.to_radians().sin(), 0.0);
        let normals = vec![d(0.0), d(20.0), d(100.0)];
        let normals2 = vec![d(0.0), d(25.0), d(50.0)];
        let mut g = vec![0u32; 3];
        let tight = Options {
            angle: 30f64.to_radians(),
            prevent_indirect: false,
        };
        assign(&input(&loops, normals2.clone(), 4), &mut g, tight).unwrap();
        assert_eq!((g[0], g[1], g[2]), (1, 1, 1), "the 50° edge leaks");
        let prevent = Options {
            prevent_indirect: true,
            ..tight
        };
        assert!(assign(&input(&loops, normals2, 4), &mut g, prevent)
            .unwrap_err()
            .to_string()
            .contains("indirect"));
        // No leak to prevent: evaluated the same with the option.
        let mut g = vec![0u32; 3];
        assign(&input(&loops, normals, 4), &mut g, prevent).unwrap();
        assert_eq!(g, [1, 1, 0]);
    }

    #[test]
    fn regions_sharing_a_vertex_take_different_bits_and_unselected_faces_are_avoided() {
        // Two flat pairs meeting at vertex 0 at 90°, and an unselected face
        // holding bit 2 (group value 2) at that vertex.
        let loops = vec![
            vec![0, 1, 2],
            vec![0, 2, 3],
            vec![0, 4, 5],
            vec![0, 5, 6],
            vec![0, 7, 8],
        ];
        let z = Vec3(0.0, 0.0, 1.0);
        let x = Vec3(1.0, 0.0, 0.0);
        let mut inp = input(&loops, vec![z, z, x, x, z], 9);
        inp.selected[4] = false;
        let mut g = vec![0, 0, 0, 0, 2];
        let o = Options {
            angle: 45f64.to_radians(),
            prevent_indirect: false,
        };
        assign(&inp, &mut g, o).unwrap();
        assert_eq!(g, [1, 1, 4, 4, 2]);
        // All 32 bits taken round the vertex: refused.
        let mut g = vec![0, 0, 0, 0, u32::MAX];
        assert!(assign(&inp, &mut g, o)
            .unwrap_err()
            .to_string()
            .contains("32"));
        // A vertex beyond the count is damage.
        let bad = vec![vec![0, 1, 99]];
        let inp = input(&bad, vec![z], 3);
        assert!(assign(&inp, &mut [0], o).is_err());
    }
}
