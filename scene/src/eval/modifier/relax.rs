//! Relax (class 0x64, 0x7f9e): Laplacian relaxation, each vertex moved
//! toward the average of its neighbours, as the public Max SDK sample
//! (relax.cpp, its old ParamBlock version) does it:
//!
//! - old ParamBlock (reference 0) by index: 0 Relax Value (clamped to
//!   −1 … 1), 1 Iterations, 2 Keep Boundary Pts Fixed, 3 Save Outer Corners
//!   (the index order of the sample's 3ds Max 2014 files, e.g. "soft
//!   chaire.max": 0.5, 1, on, off).
//! - A vertex's neighbours are the other corners of the faces around it,
//!   each once. On a triangle mesh (a TriObject, or any object that is not
//!   a poly object, converted to one) only neighbours joined to it by a
//!   visible edge enter the average; on a poly object every polygon
//!   neighbour does.
//! - A vertex with fewer face corners than neighbours (all neighbours,
//!   visible or not) lies on an open edge: with Keep Boundary Pts Fixed it
//!   stays.
//! - Each iteration moves every vertex from the previous iteration's
//!   positions: `p·(1 − r) + r·avg`.
//! - Save Outer Corners keeps every vertex whose corner angles sum to at
//!   most 2π (·0.99999), measured each iteration: on polygons by the
//!   sample's own angle sum; on triangles the sample calls Max's
//!   `Mesh::FindVertexAngles`, not public, so it is refused there.
//!
//! Max 2021's Relax (the sample's ParamBlock2 version) has the same ids in
//! a ParamBlock2 plus 4 Preserve Volume (default on) and iterates on two
//! buffers: a pass writes only the vertices that move, so one that stays
//! keeps the value it had two passes back. With Preserve Volume the Relax
//! Value is scaled by 0.707 and each pass is followed by one at
//! −0.97 × that value (the sample's "scale back").
//!
//! Relax acts on the vertex selection passed up the stack (the sample's
//! `VertexTempSel`: the vertices of the selected faces or edges at those
//! levels): an unselected vertex never moves, but it still enters its
//! neighbours' averages. Where `sub_selection` reads that selection it is
//! applied so; soft selection and unread selections are refused there by
//! name.

use super::turbo_smooth::keeps_polygons;
use super::{Applied, ModContext};
use crate::eval::core::math::Vec3;
use crate::eval::core::pblock;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{self, Mesh};
use crate::eval::objects::{poly_surface, primitive};
use crate::typed::ClassId;

pub const RELAX: ClassId = ClassId(0x64, 0x7f9e);

/// Relax's settings at a time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub value: f64,
    pub iterations: u32,
    pub keep_boundary: bool,
    pub save_outer_corners: bool,
    /// The ParamBlock2 version's passes (two buffers), and its Preserve
    /// Volume; None for the old version.
    pub preserve_volume: Option<bool>,
}

/// The vertices that stay an iteration, from its starting positions.
type KeptBy<'a> = dyn Fn(&[Vec3]) -> Vec<bool> + 'a;

/// Iterations beyond this are refused (each is a pass over the mesh).
const MAX_ITERATIONS: i64 = 100_000;

fn settings(m: &Applied, cx: &ModContext) -> Result<Settings, EvalError> {
    let pb = pblock::reference(&cx.eval.graph, m.object, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    let is_pb2 = pblock::is_param_block2(&cx.eval.graph, pb);
    let p = primitive::block_params(cx.eval, pb, cx.t)?;
    let iterations = p.int_or(1, 1).max(0);
    if iterations > MAX_ITERATIONS {
        return Err(EvalError::malformed("", format!("{iterations} iterations")));
    }
    Ok(Settings {
        value: p.float_or(0, 0.5).clamp(-1.0, 1.0),
        iterations: iterations as u32,
        keep_boundary: p.flag(2, false),
        save_outer_corners: p.flag(3, false),
        preserve_volume: is_pb2.then(|| p.flag(4, true)),
    })
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    apply_to(m, mesh, cx, None)
}

/// Relax moving only the `selected` vertices (one per vertex of `mesh`;
/// None: all of them).
pub(super) fn apply_to(
    m: &Applied,
    mesh: &mut Mesh,
    cx: &ModContext,
    selected: Option<&[bool]>,
) -> Result<(), EvalError> {
    let s = settings(m, cx)?;
    if s.iterations == 0 || s.value == 0.0 {
        return Ok(());
    }
    if selected.is_some_and(|v| v.len() != mesh.vertices.len()) {
        return Err(EvalError::malformed(
            "",
            "a vertex selection of another size than the mesh",
        ));
    }
    match input_polygons(m, mesh, cx)? {
        Some(loops) => relax_polygons(&mut mesh.vertices, &loops, s, selected),
        None => relax_triangles(mesh, s, selected),
    }
}

/// The polygons of a poly object reaching Relax (an Editable Poly with only
/// vertex-moving or map-writing modifiers between), or None for a triangle
/// mesh (a primitive, an Editable Mesh, an Edit Mesh's output).
fn input_polygons(
    m: &Applied,
    mesh: &Mesh,
    cx: &ModContext,
) -> Result<Option<Vec<Vec<u32>>>, EvalError> {
    let (stack, base, at) = cx.place(m)?;
    if let Some(b) = stack[at + 1..].iter().find(|b| !keeps_polygons(b)) {
        if b.class == super::EDIT_MESH {
            return Ok(None);
        }
        return Err(EvalError::not_evaluated_why(
            format!("Relax above {}", b.name),
            "whether it passes a poly object or triangles up is not established here",
        ));
    }
    let class = super::base_class(cx, base)?;
    if class.class_id == mesh::EDITABLE_MESH || primitive::is_primitive(class.class_id) {
        return Ok(None);
    }
    if class.class_id != mesh::EDITABLE_POLY {
        return Err(EvalError::not_evaluated_why(
            format!("Relax on a {}", class.name),
            "whether it reaches Relax as triangles or polygons is not established",
        ));
    }
    poly_surface::refuse_polygon_reader(cx.eval, base, cx.t, m.name)?;
    let (_, loops) = mesh::editable_poly(cx.eval.chunks(base))?;
    let n = mesh.vertices.len();
    if loops.iter().flat_map(|p| &p.v).any(|&v| v as usize >= n) {
        return Err(EvalError::malformed(
            "",
            format!("a polygon corner beyond the mesh's {n} vertices"),
        ));
    }
    Ok(Some(loops.into_iter().map(|p| p.v).collect()))
}

/// One vertex's neighbours (each once, in the order met) with whether an
/// average takes each, its number of face corners, and whether it is left
/// out of the selection Relax acts on (it stays; it is still a neighbour).
#[derive(Default, Clone)]
struct Around {
    nbor: Vec<u32>,
    counted: Vec<bool>,
    corners: usize,
    unselected: bool,
}

impl Around {
    /// Adds `v` (once); `counted` once any face offers it as counted.
    fn add(&mut self, v: u32, counted: bool) {
        match self.nbor.iter().position(|&x| x == v) {
            Some(k) => self.counted[k] |= counted,
            None => {
                self.nbor.push(v);
                self.counted.push(counted);
            }
        }
    }

    fn on_boundary(&self) -> bool {
        self.corners < self.nbor.len()
    }
}

fn check_corners(n: usize, corners: impl Iterator<Item = u32>) -> Result<(), EvalError> {
    for c in corners {
        if c as usize >= n {
            return Err(EvalError::malformed(
                "",
                format!("face corner {c} beyond the mesh's {n} vertices"),
            ));
        }
    }
    Ok(())
}

/// Marks the vertices outside `selected` (None: every vertex is selected).
fn mark_unselected(around: &mut [Around], selected: Option<&[bool]>) {
    if let Some(sel) = selected {
        for (a, &s) in around.iter_mut().zip(sel) {
            a.unselected = !s;
        }
    }
}

/// Relax on a triangle mesh: neighbours across visible edges averaged;
/// only the `selected` vertices move (None: all).
pub fn relax_triangles(
    mesh: &mut Mesh,
    s: Settings,
    selected: Option<&[bool]>,
) -> Result<(), EvalError> {
    if s.save_outer_corners {
        return Err(EvalError::not_evaluated_why(
            "Save Outer Corners on a triangle mesh",
            "Max's Mesh::FindVertexAngles, which picks the corners, is not public",
        ));
    }
    let n = mesh.vertices.len();
    check_corners(n, mesh.faces.iter().flat_map(|f| f.v))?;
    let mut around = vec![Around::default(); n];
    for f in &mesh.faces {
        for j in 0..3 {
            let a = &mut around[f.v[j] as usize];
            a.corners += 1;
            // Edge j runs from corner j to j+1; edge j+2 from j+2 back to j.
            a.add(f.v[(j + 1) % 3], f.flags >> j & 1 != 0);
            a.add(f.v[(j + 2) % 3], f.flags >> ((j + 2) % 3) & 1 != 0);
        }
    }
    mark_unselected(&mut around, selected);
    iterate(&mut mesh.vertices, &around, s, None);
    Ok(())
}

/// Relax on a poly object's polygons: every polygon neighbour averaged;
/// only the `selected` vertices move (None: all).
pub fn relax_polygons(
    vertices: &mut [Vec3],
    loops: &[Vec<u32>],
    s: Settings,
    selected: Option<&[bool]>,
) -> Result<(), EvalError> {
    let n = vertices.len();
    check_corners(n, loops.iter().flatten().copied())?;
    let mut around = vec![Around::default(); n];
    for p in loops {
        let deg = p.len();
        for j in 0..deg {
            let a = &mut around[p[j] as usize];
            a.corners += 1;
            a.add(p[(j + 1) % deg], true);
            a.add(p[(j + deg - 1) % deg], true);
        }
    }
    mark_unselected(&mut around, selected);
    let corners = |held: &[Vec3]| -> Vec<bool> {
        angle_sums(held, loops)
            .into_iter()
            .map(|a| a <= 2.0 * std::f64::consts::PI * 0.99999)
            .collect()
    };
    let kept: Option<&KeptBy<'_>> = if s.save_outer_corners {
        Some(&corners)
    } else {
        None
    };
    iterate(vertices, &around, s, kept);
    Ok(())
}

/// Every vertex's corner angles summed over the polygons (the sample's
/// rule: a corner with a zero-length side adds nothing).
fn angle_sums(p: &[Vec3], loops: &[Vec<u32>]) -> Vec<f64> {
    let mut sum = vec![0.0; p.len()];
    for l in loops {
        let deg = l.len();
        for j in 0..deg {
            let o = p[l[j] as usize];
            let d1 = p[l[(j + 1) % deg] as usize].minus(o);
            let d2 = p[l[(j + deg - 1) % deg] as usize].minus(o);
            let (n1, n2) = (d1.dot(d1).sqrt(), d2.dot(d2).sqrt());
            if n1 == 0.0 || n2 == 0.0 {
                continue;
            }
            let cs = d1.dot(d2) / (n1 * n2);
            if cs >= 1.0 {
                continue;
            }
            sum[l[j] as usize] += if cs <= -1.0 {
                std::f64::consts::PI
            } else {
                cs.acos()
            };
        }
    }
    sum
}

/// The iterations: every vertex from the previous positions; `kept` gives
/// the vertices that stay this iteration (Save Outer Corners). The old
/// version moves the mesh's own points, so a vertex that stays keeps its
/// current place; the ParamBlock2 version passes between two buffers.
fn iterate(vertices: &mut [Vec3], around: &[Around], s: Settings, kept: Option<&KeptBy<'_>>) {
    let Some(preserve) = s.preserve_volume else {
        for _ in 0..s.iterations {
            let held = vertices.to_vec();
            let stays = kept.map(|f| f(&held));
            pass(&held, vertices, around, s, s.value, stays.as_deref());
        }
        return;
    };
    // The sample scales in f32: 0.707 and −0.97 as floats.
    let relax = if preserve {
        s.value * f64::from(0.707f32)
    } else {
        s.value
    };
    let expand = relax * f64::from(-0.97f32);
    let mut source = vertices.to_vec();
    let mut dest = source.clone();
    for _ in 0..s.iterations {
        let stays = kept.map(|f| f(&source));
        pass(&source, &mut dest, around, s, relax, stays.as_deref());
        std::mem::swap(&mut source, &mut dest);
        if preserve {
            pass(&source, &mut dest, around, s, expand, stays.as_deref());
            std::mem::swap(&mut source, &mut dest);
        }
    }
    vertices.copy_from_slice(&source);
}

/// One pass at `r` from `held` into `out`: only the vertices that move are
/// written.
fn pass(
    held: &[Vec3],
    out: &mut [Vec3],
    around: &[Around],
    s: Settings,
    r: f64,
    stays: Option<&[bool]>,
) {
    for (i, a) in around.iter().enumerate() {
        if a.unselected || stays.is_some_and(|k| k[i]) {
            continue;
        }
        if a.nbor.is_empty() || (s.keep_boundary && a.on_boundary()) {
            continue;
        }
        let mut sum = Vec3(0.0, 0.0, 0.0);
        let mut act = 0usize;
        for (&v, _) in a.nbor.iter().zip(&a.counted).filter(|(_, &c)| c) {
            sum = sum.plus(held[v as usize]);
            act += 1;
        }
        if act == 0 {
            continue;
        }
        out[i] = held[i].scale(1.0 - r).plus(sum.scale(r / act as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::mesh::Face;

    const ALL_VISIBLE: u16 = 0b111;

    fn settings(value: f64, iterations: u32, keep_boundary: bool) -> Settings {
        Settings {
            value,
            iterations,
            keep_boundary,
            save_outer_corners: false,
            preserve_volume: None,
        }
    }

    fn mesh(vertices: &[[f64; 3]], faces: &[([u32; 3], u16)]) -> Mesh {
        Mesh {
            vertices: vertices.iter().map(|p| Vec3(p[0], p[1], p[2])).collect(),
            faces: faces
                .iter()
                .map(|&(v, flags)| Face {
                    v,
                    smoothing: 1,
                    material: 0,
                    flags,
                })
                .collect(),
            ..Mesh::default()
        }
    }

    /// An octahedron: every vertex's four neighbours average to the origin.
    fn octahedron() -> Mesh {
        let v = [
            [1.0, 0.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, -1.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, -1.0],
        ];
        let f = [
            [0, 2, 4],
            [2, 1, 4],
            [1, 3, 4],
            [3, 0, 4],
            [2, 0, 5],
            [1, 2, 5],
            [3, 1, 5],
            [0, 3, 5],
        ];
        mesh(&v, &f.map(|v| (v, ALL_VISIBLE)))
    }

    fn close(a: Vec3, b: [f64; 3]) -> bool {
        (a.0 - b[0]).abs() < 1e-12 && (a.1 - b[1]).abs() < 1e-12 && (a.2 - b[2]).abs() < 1e-12
    }

    #[test]
    fn a_closed_mesh_moves_toward_its_neighbours_average() {
        let before = octahedron();
        let mut m = before.clone();
        relax_triangles(&mut m, settings(0.5, 1, true), None).unwrap();
        for (a, b) in m.vertices.iter().zip(&before.vertices) {
            assert!(close(*a, b.scale(0.5).to_array()), "{a:?}");
        }
        assert_eq!(m.faces, before.faces);
        // Each iteration starts from the last: 0.5 · 0.5.
        let mut m = before.clone();
        relax_triangles(&mut m, settings(0.5, 2, false), None).unwrap();
        assert!(close(m.vertices[4], [0.0, 0.0, 0.25]));
        // A negative value pushes away from the average.
        let mut m = before;
        relax_triangles(&mut m, settings(-1.0, 1, false), None).unwrap();
        assert!(close(m.vertices[0], [2.0, 0.0, 0.0]));
    }

    /// A unit square of two triangles whose diagonal 0–2 is hidden.
    fn square() -> Mesh {
        let v = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
        ];
        // Edges 0–1, 1–2 visible, 2–0 hidden; then 0–2 hidden, 2–3, 3–0 visible.
        mesh(&v, &[([0, 1, 2], 0b011), ([0, 2, 3], 0b110)])
    }

    #[test]
    fn only_visible_edges_join_neighbours_and_open_edges_can_stay() {
        let mut m = square();
        relax_triangles(&mut m, settings(0.5, 1, true), None).unwrap();
        assert_eq!(
            m.vertices,
            square().vertices,
            "every vertex is on the open edge"
        );
        let mut m = square();
        relax_triangles(&mut m, settings(0.5, 1, false), None).unwrap();
        // Vertex 0's visible neighbours are 1 and 3 (not 2, across the hidden
        // diagonal): their average (0.5, 0.5) halfway.
        assert!(close(m.vertices[0], [0.25, 0.25, 0.0]));
        assert!(close(m.vertices[1], [0.75, 0.25, 0.0]));
        assert!(close(m.vertices[2], [0.75, 0.75, 0.0]));
    }

    #[test]
    fn polygons_average_their_polygon_neighbours() {
        let mut v = square().vertices;
        relax_polygons(&mut v, &[vec![0, 1, 2, 3]], settings(1.0, 1, false), None).unwrap();
        assert!(close(v[0], [0.5, 0.5, 0.0]));
        assert!(close(v[3], [0.5, 0.5, 0.0]));
        let mut v = square().vertices;
        relax_polygons(&mut v, &[vec![0, 1, 2, 3]], settings(1.0, 1, true), None).unwrap();
        assert_eq!(
            v,
            square().vertices,
            "the quad's corners are all on its open edge"
        );
    }

    #[test]
    fn save_outer_corners_keeps_convex_corners_of_polygons_and_is_refused_on_triangles() {
        let s = Settings {
            save_outer_corners: true,
            ..settings(0.5, 1, false)
        };
        // A flat open quad: every corner's angle sum is π/2, below 2π.
        let mut v = square().vertices;
        relax_polygons(&mut v, &[vec![0, 1, 2, 3]], s, None).unwrap();
        assert_eq!(v, square().vertices);
        let err = relax_triangles(&mut octahedron(), s, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("Save Outer Corners"), "{err}");
    }

    #[test]
    fn a_corner_beyond_the_vertices_is_an_error() {
        let mut m = square();
        m.faces[0].v[2] = 9;
        assert!(relax_triangles(&mut m, settings(0.5, 1, false), None).is_err());
    }

    #[test]
    fn preserve_volume_follows_each_pass_with_a_scaled_back_one() {
        let s = Settings {
            preserve_volume: Some(true),
            ..settings(0.5, 1, false)
        };
        // Octahedron: neighbours average to the origin, so each pass scales
        // the points: by 1 − r, then by 1 − (−0.97 r), r = 0.5 · 0.707.
        let mut m = octahedron();
        relax_triangles(&mut m, s, None).unwrap();
        let r = 0.5 * f64::from(0.707f32);
        let k = (1.0 - r) * (1.0 - r * f64::from(-0.97f32));
        assert!(close(m.vertices[0], [k, 0.0, 0.0]), "{:?}", m.vertices[0]);
        // Without it the ParamBlock2 version is the old one's pass.
        let mut m = octahedron();
        relax_triangles(
            &mut m,
            Settings {
                preserve_volume: Some(false),
                ..s
            },
            None,
        )
        .unwrap();
        assert!(close(m.vertices[0], [0.5, 0.0, 0.0]));
    }

    #[test]
    fn unselected_vertices_stay_but_still_pull_their_neighbours() {
        // Only the apex 4 of the octahedron is selected: it moves toward
        // the average of its neighbours 0–3 (the origin), which stay put,
        // so a second iteration halves it again from unmoved neighbours.
        let mut sel = vec![false; 6];
        sel[4] = true;
        let mut m = octahedron();
        relax_triangles(&mut m, settings(0.5, 2, false), Some(&sel)).unwrap();
        assert!(close(m.vertices[4], [0.0, 0.0, 0.25]));
        for (i, v) in m.vertices.iter().enumerate().filter(|&(i, _)| i != 4) {
            assert_eq!(*v, octahedron().vertices[i], "vertex {i} is not selected");
        }
        // On polygons: corner 0 of the open quad alone moves to the mean of
        // corners 1 and 3, which keep their places.
        let mut v = square().vertices;
        let sel = [true, false, false, false];
        relax_polygons(
            &mut v,
            &[vec![0, 1, 2, 3]],
            settings(1.0, 3, false),
            Some(&sel),
        )
        .unwrap();
        assert!(close(v[0], [0.5, 0.5, 0.0]));
        assert_eq!(v[1..], square().vertices[1..]);
    }
}
