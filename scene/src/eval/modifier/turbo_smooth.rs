//! TurboSmooth (0x0d727b3e, 0x491d29a7): NURMS subdivision of the polygon
//! form of its input, which at Max's fixed weight of 1 is Catmull-Clark (see
//! `subdivide`).
//!
//! ParamBlock2 in reference 0, by id: 0 iterations (the viewport count, the
//! one Max's saved Mesh Totals use), 1 use render iterations, 2 render
//! iterations, 3 isoline display (display only: the mesh is the same), 4
//! smooth result (every face in smoothing group 1; off, a face keeps its
//! parent's groups), 5 separate by materials, 6 separate by smoothing groups,
//! 8 explicit normals (normals only). The separate-by options keep edges
//! between materials / groups sharp (`subdivide::Separate`). Material ids are carried from each face to its quads, map channels
//! subdivided on their own topology.
//!
//! TurboSmooth works on polygons: Max hands it the poly object of the stack
//! below. That form is rebuilt when the base object is an Editable Poly (its
//! stored polygons) and every modifier below only moves vertices or sets
//! smoothing groups or write map channels (the incoming triangle mesh then
//! still has the polygons' vertices and their triangles in polygon order), on
//! a primitive with a polygon builder (`primitive_poly`; below Bend, Taper or
//! Twist too), directly on a shape (`shape_input`), or above a modifier that
//! outputs polygons (`smooth_input`; right above a Symmetry, its polygons as
//! they are, `edit_poly::symmetry_polygons`). Anything else is an error
//! naming why.
//!
//! An Edit Poly (or TurboSmooth) above takes the result as polygons
//! (`apply_poly`): the quads in Max's numbering (`subdivide`).

use super::{smooth_input, uv_only, Applied, ModContext, BEND, MORPHER, TAPER, TWIST};
use crate::eval::core::pblock;
use crate::eval::error::EvalError;
use crate::eval::modifier::skin::SKIN;
use crate::eval::modifier::subdivide::{self, PolyMapFlat, Polys, Separate, SubdivideError};
use crate::eval::objects::mesh::{self, Mesh, MissingMap, Poly};
use crate::eval::objects::poly::{PolyFace, PolyMap, PolyMesh};
use crate::eval::objects::{poly_surface, primitive, primitive_poly};
use crate::typed::ClassId;

pub const TURBO_SMOOTH: ClassId = ClassId(0x0d72_7b3e, 0x491d_29a7);

/// Max's iteration spinner stops at 10; more is damaged data.
const MAX_ITERATIONS: i64 = 10;

/// Quads a TurboSmooth result may have here (about 100 MB of triangle mesh).
/// Max builds any count, but a mesh of millions of faces would exceed the
/// mount's memory budgets (measured: Kenjis_chair.max's two boxes at 9
/// iterations, 1.57 million quads each, took the mount to 1.3 GB), so a
/// larger result is refused by name, not truncated.
pub const MAX_SMOOTH_QUADS: usize = 1 << 20;

/// Modifiers that move vertices or set smoothing groups without touching
/// faces or maps' topology: below TurboSmooth they leave the polygon form of
/// the base object intact (Smooth sets one polygon's triangles alike: on
/// polygon input it works on the polygons, see `surface`). Cloth sets its
/// stored points on the input's topology (checked in `cloth`).
const VERTEX_ONLY: [ClassId; 8] = [
    super::relax::RELAX,
    BEND,
    TAPER,
    TWIST,
    SKIN,
    MORPHER,
    super::surface::SMOOTH,
    super::cloth::CLOTH,
];

/// Whether a modifier below a polygon consumer (TurboSmooth, Relax) keeps
/// the polygon form of what is under it: it moves vertices only, passes its
/// input through (`PASS_THROUGH`, Poly Select) or writes one map channel
/// (`uv_only`).
pub(super) fn keeps_polygons(b: &Applied) -> bool {
    VERTEX_ONLY.contains(&b.class)
        || super::PASS_THROUGH.contains(&b.class)
        || b.class == super::sub_selection::POLY_SELECT
        || uv_only::is_uv_only(b.class)
}

/// TurboSmooth's settings at a time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub iterations: u32,
    pub smooth_result: bool,
    /// Edges kept sharp (ParamBlock2 ids 5 and 6).
    pub separate: Separate,
}

fn settings(m: &Applied, cx: &ModContext) -> Result<Settings, EvalError> {
    let pb = pblock::reference(&cx.eval.graph, m.object, 0)
        .ok_or_else(|| EvalError::reference("", "no parameter block (reference 0)"))?;
    let p = primitive::block_params(cx.eval, pb, cx.t)?;
    let iterations = p.int_or(0, 1);
    if !(0..=MAX_ITERATIONS).contains(&iterations) {
        return Err(EvalError::malformed("", format!("{iterations} iterations")));
    }
    Ok(Settings {
        iterations: iterations as u32,
        smooth_result: p.flag(4, true),
        separate: Separate {
            materials: p.flag(5, false),
            smoothing: p.flag(6, false),
        },
    })
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let s = settings(m, cx)?;
    if s.iterations == 0 {
        return Ok(());
    }
    let (polys, left) = polygon_input(m, mesh, cx)?;
    smooth_into(mesh, polys, left, s)
}

/// Replaces `mesh` by `polys` smoothed with `s`, naming the map channel the
/// polygon form left out; more than MAX_SMOOTH_QUADS faces are refused
/// before any work. TurboSmooth and MeshSmooth end alike.
pub(super) fn smooth_into(
    mesh: &mut Mesh,
    polys: Polys,
    left: Option<MissingMap>,
    s: Settings,
) -> Result<(), EvalError> {
    let quads = result_quads(polys.corners.len(), s.iterations);
    if quads > MAX_SMOOTH_QUADS {
        return Err(EvalError::limit(
            format!("{} iterations give {quads} faces", s.iterations),
            MAX_SMOOTH_QUADS,
        ));
    }
    *mesh = smooth(polys, s)?;
    mesh.missing_maps.extend(left);
    Ok(())
}

/// Quads after `iterations` steps of a mesh with `corners` polygon corners:
/// each corner makes one quad, each quad four (saturating).
pub fn result_quads(corners: usize, iterations: u32) -> usize {
    (1..iterations).fold(corners, |q, _| q.saturating_mul(4))
}

/// `iterations` Catmull-Clark steps and the triangle mesh of the result,
/// its quads split as TurboSmooth splits them (`to_mesh_alternating`).
pub fn smooth(polys: Polys, s: Settings) -> Result<Mesh, EvalError> {
    let (polys, parent_start) = smooth_polys(polys, s)?;
    match parent_start {
        Some(parent) => polys.to_mesh_alternating(&parent),
        None => polys.to_mesh(),
    }
    .map_err(EvalError::from)
}

/// `iterations` steps with the settings' groups, and the face starts of the
/// mesh the last step subdivided (None without a step).
fn smooth_polys(mut polys: Polys, s: Settings) -> Result<(Polys, Option<Vec<usize>>), EvalError> {
    let mut parent_start = None;
    for _ in 0..s.iterations {
        let next = polys.subdivide_with(s.separate).map_err(EvalError::from)?;
        parent_start = Some(std::mem::replace(&mut polys, next).start);
    }
    if s.smooth_result {
        polys.smoothing.iter_mut().for_each(|g| *g = 1);
    }
    Ok((polys, parent_start))
}

/// TurboSmooth on the polygons an Edit Poly above it takes: the smoothed
/// quads in Max's numbering (`subdivide`), each split along the diagonal
/// TurboSmooth's triangle output uses, the two triangles in the other order
/// (measured on the Cloth-saved output of the Edit Poly above TurboSmooth on
/// dhsoncoder's Room.max Box002). The result's MNMesh edge list is not known
/// (edge records above are refused by name), nor are specified normals
/// kept.
pub(super) fn apply_poly(
    m: &Applied,
    poly: &PolyMesh,
    cx: &ModContext,
) -> Result<PolyMesh, EvalError> {
    let s = settings(m, cx)?;
    if s.iterations == 0 {
        return Ok(poly.clone());
    }
    let polys = from_poly_mesh(poly)?;
    let quads = result_quads(polys.corners.len(), s.iterations);
    if quads > MAX_SMOOTH_QUADS {
        return Err(EvalError::limit(
            format!("{} iterations give {quads} faces", s.iterations),
            MAX_SMOOTH_QUADS,
        ));
    }
    smoothed_poly(polys, s)
}

/// `polys` smoothed with `s` as the polygon mesh `apply_poly` describes.
fn smoothed_poly(polys: Polys, s: Settings) -> Result<PolyMesh, EvalError> {
    let (p, parent_start) = smooth_polys(polys, s)?;
    let parent_start = parent_start.unwrap_or_default();
    let mut parent = 0;
    let faces = (0..p.face_count())
        .map(|f| {
            let v = p.corners[p.start[f]..p.start[f + 1]].to_vec();
            let tris = if v.len() == 4 {
                // As an MNMesh face with the diagonal (2, 0) or (1, 3): the
                // piece from its first end first (Max's triangles of an Edit
                // Poly above, see docs/evaluation.md).
                let [a, b] =
                    subdivide::quad_split(subdivide::odd_corner(&parent_start, &mut parent, f));
                vec![b, a]
            } else {
                (1..v.len() - 1).map(|i| [0, i, i + 1]).collect()
            };
            PolyFace {
                v,
                tris,
                material: p.material[f],
                smoothing: p.smoothing[f],
            }
        })
        .collect();
    let maps = p
        .maps
        .iter()
        .map(|c| PolyMap {
            channel: c.channel,
            vertices: c.vertices.iter().map(|v| v.map(|x| x as f32)).collect(),
            faces: (0..p.face_count())
                .map(|f| c.corners[p.start[f]..p.start[f + 1]].to_vec())
                .collect(),
        })
        .collect();
    let out = PolyMesh {
        vertices: p
            .vertices
            .iter()
            .map(|v| crate::eval::core::math::Vec3(v[0], v[1], v[2]))
            .collect(),
        faces,
        maps,
        edges: None,
        normals: None,
    };
    out.validate()?;
    Ok(out)
}

/// Where the polygon form of a modifier's input comes from (see the module
/// comment).
pub(super) enum PolySource {
    /// An Editable Poly's stored polygons, whose triangles (in polygon
    /// order) are the incoming mesh's, and its stored MNMesh edge list
    /// (0x010a): the list, or why a stored one cannot be read (None: not
    /// stored).
    EditablePoly(Vec<Poly>, Option<Result<Vec<[u32; 2]>, String>>),
    /// A primitive with a polygon builder: its base object, and whether
    /// positional deformers lie between (`smooth_input::deformed_like`).
    Primitive(usize, bool),
    /// The polygons the modifier at this stack index outputs, read over the
    /// incoming triangles (`smooth_input::over_triangles`).
    Modifier(usize),
    /// A shape below, through point deformers only: its base object and
    /// the stack index where the deformers start (`shape_input`,
    /// `shape_deform`).
    Shape(usize, usize),
}

/// The source of the polygon form of `m`'s input, or why there is none.
pub(super) fn polygon_source(m: &Applied, cx: &ModContext) -> Result<PolySource, EvalError> {
    let who = m.name;
    let (stack, base, at) = cx.place(m)?;
    let below = &stack[at + 1..];
    // Vertex-moving and map-writing modifiers keep the triangles of the
    // polygons below them in polygon order.
    if let Some(j) = below.iter().position(|b| !keeps_polygons(b)) {
        return Ok(PolySource::Modifier(at + 1 + j));
    }
    if super::shape_deform::only_deformers_from(below, 0)
        && crate::eval::objects::shape::is_shape_object(cx.eval, base)
    {
        return Ok(PolySource::Shape(base, at + 1));
    }
    let class = super::base_class(cx, base)?;
    if class.class_id == mesh::EDITABLE_POLY {
        poly_surface::refuse_polygon_reader(cx.eval, base, cx.t, who)?;
        let object = cx.eval.chunks(base);
        let (loops, edges) = mesh::editable_poly_edges(object)?;
        let edges = edges.map_err(|e| e.to_string()).transpose();
        return Ok(PolySource::EditablePoly(loops, edges));
    }
    if primitive::is_primitive(class.class_id) {
        if let Some(b) = below
            .iter()
            .find(|b| !smooth_input::POSITIONAL.contains(&b.class))
        {
            return Err(EvalError::not_evaluated_why(
                format!("{who} on a {} below {}", class.name, b.name),
                "the polygon form is moved only by Bend, Taper, Twist and XForm",
            ));
        }
        return Ok(PolySource::Primitive(base, !below.is_empty()));
    }
    Err(EvalError::not_evaluated_why(
        format!("{who} on a {}", class.name),
        "its polygon form is not built",
    ))
}

/// Without Max's edge list the edge points are numbered by first use, which
/// need not be Max's numbering (faces keep their order: one per old
/// corner): the surface is the same, so that is kept only where nothing
/// above `m` addresses the result's vertices by number. Point deformers,
/// further smoothing and texture-coordinate modifiers that work per face
/// (UVW Map, UVW Xform, Unwrap UVW) do not.
fn numbering_unneeded(m: &Applied, cx: &ModContext, why: &str) -> Result<(), EvalError> {
    let (stack, _, at) = cx.place(m)?;
    let order_free = |a: &Applied| {
        super::moves_points_only(a.class)
            || [
                TURBO_SMOOTH,
                super::mesh_smooth::MESH_SMOOTH,
                super::UVW_MAP,
                super::UNWRAP_UVW,
                super::uvw_xform::UVW_XFORM,
                super::uvw_xform::UVW_XFORM2,
                super::MASSFX_RBODY,
                super::ARNOLD_PROPERTIES,
            ]
            .contains(&a.class)
    };
    match stack[..at].iter().rev().find(|a| !order_free(a)) {
        None => Ok(()),
        Some(a) => Err(EvalError::not_evaluated_why(
            format!("{} above {} on an Editable Poly", a.name, m.name),
            format!(
                "the Editable Poly's stored edge list is unusable ({why}), so Max's numbering of the subdivided vertices is unknown and {} addresses them by number",
                a.name
            ),
        )),
    }
}

/// The polygon form of a subdividing modifier's input, shared with
/// MeshSmooth, and the map channel its primitive's polygon form left out
/// (`primitive_poly::of_object`), to be named on the result.
pub(super) fn polygon_input(
    m: &Applied,
    mesh: &Mesh,
    cx: &ModContext,
) -> Result<(Polys, Option<MissingMap>), EvalError> {
    let mut left = None;
    let polys = polygon_form(m, mesh, cx, &mut left)?;
    Ok((polys, left))
}

fn polygon_form(
    m: &Applied,
    mesh: &Mesh,
    cx: &ModContext,
    left: &mut Option<MissingMap>,
) -> Result<Polys, EvalError> {
    match polygon_source(m, cx)? {
        PolySource::EditablePoly(loops, edges) => {
            let mut polys = from_triangles(mesh, &loops)?;
            // Max numbers the edge points by this list.
            let unusable = match edges {
                Some(Ok(list)) => {
                    polys.edges = Some(list);
                    match polys.validate() {
                        Err(e @ SubdivideError::EdgeList(..)) => {
                            polys.edges = None;
                            Some(e.to_string())
                        }
                        // Anything else is the subdivision's own error, below.
                        _ => None,
                    }
                }
                Some(Err(why)) => Some(why),
                None => None,
            };
            if let Some(why) = unusable {
                numbering_unneeded(m, cx, &why)?;
            }
            Ok(polys)
        }
        PolySource::Primitive(base, deformed) => {
            let class = super::base_class(cx, base)?;
            let (mut poly, p, missing) = primitive_poly::of_object(cx.eval, base, cx.t)?;
            *left = missing;
            if deformed {
                let tri = primitive::build(class.class_id, &p)?;
                poly = smooth_input::deformed_like(poly, &tri, mesh)
                    .map_err(|e| e.inside(class.name.to_string()))?;
            }
            from_poly_mesh(&poly)
        }
        PolySource::Shape(base, from) => {
            let node = cx.node.ok_or_else(|| {
                EvalError::not_evaluated(format!("{} on a compound object's operand", m.name))
            })?;
            let (stack, _) = cx
                .eval
                .modifier_stack(node)
                .ok_or_else(|| EvalError::malformed("", "the node has no modifier stack"))?;
            let shape = super::shape_deform::shape_below(&stack, from, base, cx)?;
            from_poly_mesh(&super::shape_input::input_poly(&shape)?)
        }
        PolySource::Modifier(from) => {
            let (stack, base, at) = cx.place(m)?;
            let name = stack.get(from).map_or("?", |b| b.name);
            // Right above a Symmetry: its polygons as they are. Its triangle
            // form numbers the copies otherwise, so they cannot be read over
            // the triangles, and it may cut polygons (any survivor of a
            // welded pair gives the same surface).
            if at + 1 == from && stack[from].class == super::SYMMETRY {
                let poly = super::edit_poly::symmetry_polygons(&stack, from, base, cx)
                    .map_err(|e| e.inside(format!("{} above {name}", m.name)))?;
                return from_poly_mesh(&poly);
            }
            smooth_input::over_triangles(&stack, from, base, mesh, cx).map_err(|e| {
                EvalError::not_evaluated_why(
                    format!("{} above {name}", m.name),
                    format!("the polygon form of its output is not rebuilt: {e}"),
                )
            })
        }
    }
}

/// Whether `mesh` has the k − 2 triangles per k-gon of `loops`, the
/// precondition of reading polygons back from triangles.
pub(super) fn check_triangle_count(mesh: &Mesh, loops: &[Poly]) -> Result<(), EvalError> {
    let tris: usize = loops.iter().map(|p| p.v.len().saturating_sub(2)).sum();
    if tris != mesh.faces.len() {
        return Err(EvalError::malformed(
            "",
            format!(
                "{} triangles for {} polygons that make {tris}",
                mesh.faces.len(),
                loops.len()
            ),
        ));
    }
    Ok(())
}

/// The polygons `loops` over `mesh`, whose triangles are the polygons'
/// triangles in polygon order (k − 2 per k-gon, as `editable_poly` and the
/// vertex-only modifiers leave them): positions, materials, smoothing groups
/// and map corners are read from the triangles.
pub fn from_triangles(mesh: &Mesh, loops: &[Poly]) -> Result<Polys, EvalError> {
    mesh.check_map_faces()?;
    check_triangle_count(mesh, loops)?;
    let nv = mesh.vertices.len();
    let mut out = Polys {
        vertices: mesh.vertices.iter().map(|v| v.to_array()).collect(),
        start: vec![0],
        maps: mesh
            .maps
            .iter()
            .map(|c| PolyMapFlat {
                channel: c.channel,
                vertices: c.vertices.iter().map(|v| v.map(f64::from)).collect(),
                corners: Vec::new(),
            })
            .collect(),
        ..Polys::default()
    };
    let mut t = 0;
    for (i, p) in loops.iter().enumerate() {
        let k = p.v.len();
        if k < 3 {
            return Err(EvalError::malformed(
                "",
                format!("polygon {i} has {k} corners"),
            ));
        }
        if p.v.iter().any(|&v| v as usize >= nv) {
            return Err(EvalError::malformed(
                "",
                format!("polygon {i} uses a vertex beyond {nv}"),
            ));
        }
        let first = &mesh.faces[t];
        out.material.push(first.material);
        out.smoothing.push(first.smoothing);
        out.corners.extend_from_slice(&p.v);
        out.start.push(out.corners.len());
        for (ch, map) in mesh.maps.iter().enumerate() {
            let mut corner = vec![u32::MAX; k];
            for (j, f) in mesh.faces[t..t + k - 2].iter().enumerate() {
                for (slot, &v) in f.v.iter().enumerate() {
                    let at = corner_of(&p.v, v).ok_or_else(|| {
                        EvalError::malformed(
                            format!("polygon {i}"),
                            format!("triangle vertex {v} not a corner"),
                        )
                    })?;
                    let mv = map.faces[t + j][slot];
                    if corner[at] != u32::MAX && corner[at] != mv {
                        return Err(EvalError::malformed(
                            format!("polygon {i}"),
                            format!(
                                "map channel {} gives corner {at} two map vertices",
                                map.channel
                            ),
                        ));
                    }
                    corner[at] = mv;
                }
            }
            if corner.contains(&u32::MAX) {
                return Err(EvalError::malformed(
                    format!("polygon {i}"),
                    "a corner is in none of its triangles",
                ));
            }
            out.maps[ch].corners.extend(corner);
        }
        t += k - 2;
    }
    out.validate().map_err(EvalError::from)?;
    Ok(out)
}

/// The corner of a polygon at vertex `v`; a polygon that passes a vertex twice
/// is ambiguous (None).
fn corner_of(loop_: &[u32], v: u32) -> Option<usize> {
    let mut it = loop_.iter().enumerate().filter(|(_, &x)| x == v);
    let first = it.next()?.0;
    it.next().is_none().then_some(first)
}

/// A `PolyMesh` (a primitive's polygon builder) in flat form.
pub fn from_poly_mesh(p: &PolyMesh) -> Result<Polys, EvalError> {
    p.validate()?;
    let mut out = Polys {
        vertices: p.vertices.iter().map(|v| v.to_array()).collect(),
        start: vec![0],
        ..Polys::default()
    };
    for f in &p.faces {
        out.corners.extend_from_slice(&f.v);
        out.start.push(out.corners.len());
        out.material.push(f.material);
        out.smoothing.push(f.smoothing);
    }
    out.maps = p
        .maps
        .iter()
        .map(|m| PolyMapFlat {
            channel: m.channel,
            vertices: m.vertices.iter().map(|v| v.map(f64::from)).collect(),
            corners: m.faces.iter().flatten().copied().collect(),
        })
        .collect();
    out.edges.clone_from(&p.edges);
    out.validate().map_err(EvalError::from)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;
    use crate::eval::objects::mesh::{Face, MapChannel};

    /// The cube [−1, 1]³ as six quads, outward.
    fn cube() -> Polys {
        use crate::eval::objects::test_box::{box_corners, BOX_QUADS};
        Polys {
            vertices: box_corners([-1.0; 3], [1.0; 3])
                .into_iter()
                .map(Vec3::to_array)
                .collect(),
            start: (0..=6).map(|f| 4 * f).collect(),
            corners: BOX_QUADS.iter().flatten().copied().collect(),
            material: (0..6).collect(),
            smoothing: vec![2; 6],
            maps: Vec::new(),
            edges: None,
        }
    }

    fn has(points: &[[f64; 3]], q: [f64; 3]) -> bool {
        points
            .iter()
            .any(|p| (0..3).all(|i| (p[i] - q[i]).abs() < 1e-12))
    }

    #[test]
    fn cube_step_has_the_textbook_points() {
        // One Catmull-Clark step of the cube: corners move to ±5/9, edge
        // points to (±3/4, ±3/4, 0), face points stay at the face centres;
        // V + E + F = 8 + 12 + 6 vertices and 24 quads.
        let s = cube().subdivide().unwrap();
        assert_eq!(s.vertices.len(), 26);
        assert_eq!(s.face_count(), 24);
        let k = 5.0 / 9.0;
        assert!(has(&s.vertices, [k, k, k]));
        assert!(has(&s.vertices, [-k, k, -k]));
        assert!(has(&s.vertices, [0.75, 0.75, 0.0]));
        assert!(has(&s.vertices, [0.0, -0.75, 0.75]));
        assert!(has(&s.vertices, [1.0, 0.0, 0.0]));
        // Each quad keeps its parent's material.
        assert_eq!(s.material.iter().filter(|&&m| m == 3).count(), 4);
    }

    #[test]
    fn counts_follow_euler_and_winding_is_kept() {
        // A closed genus-0 mesh of quads keeps V − E + F = 2 at every level:
        // with F quads, E = 2F, so V = F + 2.
        let mut p = cube();
        for level in 1..=4 {
            p = p.subdivide().unwrap();
            assert_eq!(p.face_count(), 6 * 4usize.pow(level));
            assert_eq!(p.vertices.len(), p.face_count() + 2);
        }
        // Every quad's normal points away from the centre (outward kept).
        for f in 0..p.face_count() {
            let c: Vec<[f64; 3]> = (0..4)
                .map(|i| p.vertices[p.corners[4 * f + i] as usize])
                .collect();
            let (a, b, d) = (
                Vec3(c[0][0], c[0][1], c[0][2]),
                Vec3(c[1][0], c[1][1], c[1][2]),
                Vec3(c[2][0], c[2][1], c[2][2]),
            );
            let n = b.minus(a).cross(d.minus(a));
            assert!(n.dot(a) > 0.0, "face {f} turned inward");
        }
        // The limit surface of the cube lies inside it and outside the
        // inscribed sphere's scaled copy: no point flies off.
        assert!(p
            .vertices
            .iter()
            .all(|v| v.iter().all(|x| x.abs() <= 1.0) && Vec3(v[0], v[1], v[2]).len() > 0.5));
    }

    #[test]
    fn result_size_is_predicted() {
        assert_eq!(result_quads(24, 1), 24);
        assert_eq!(result_quads(24, 9), 6 * 4usize.pow(9));
        assert_eq!(result_quads(usize::MAX / 2, 10), usize::MAX);
        let mut p = cube();
        for it in 1..=3 {
            p = p.subdivide().unwrap();
            assert_eq!(p.face_count(), result_quads(24, it));
        }
    }

    #[test]
    fn smooth_result_and_triangles() {
        let m = smooth(
            cube(),
            Settings {
                iterations: 2,
                smooth_result: true,
                separate: Default::default(),
            },
        )
        .unwrap();
        assert_eq!(m.vertices.len(), 98);
        assert_eq!(m.faces.len(), 2 * 96);
        assert!(m.faces.iter().all(|f| f.smoothing == 1));
        // Each triangle runs two quad sides then the hidden diagonal
        // (`to_mesh_alternating`): (0, 1, 2) and (2, 3, 0).
        assert_eq!(m.faces[0].flags, 0b011);
        assert_eq!(m.faces[1].flags, 0b011);
        assert_eq!(m.faces[1].v[2], m.faces[0].v[0]);
        let keep = smooth(
            cube(),
            Settings {
                iterations: 1,
                smooth_result: false,
                separate: Default::default(),
            },
        )
        .unwrap();
        assert!(keep.faces.iter().all(|f| f.smoothing == 2));
    }

    #[test]
    fn open_boundary_follows_the_curve_rule_and_damage_is_refused() {
        // Two quads side by side: the boundary vertex between them moves by
        // ¾·V + ⅛·neighbours, the open corners (one face each) stay, as Max's
        // MeshSmooth keeps them (docs/evaluation.md), edge points on the
        // border are midpoints, face points the centres.
        let strip = Polys {
            vertices: vec![
                [0.0, 0.0, 0.0],
                [4.0, 1.0, 0.0],
                [8.0, 0.0, 0.0],
                [0.0, 4.0, 0.0],
                [4.0, 4.0, 0.0],
                [8.0, 4.0, 0.0],
            ],
            start: vec![0, 4, 8],
            corners: vec![0, 1, 4, 3, 1, 2, 5, 4],
            material: vec![0; 2],
            smoothing: vec![0; 2],
            maps: Vec::new(),
            edges: None,
        };
        let s = strip.subdivide().unwrap();
        assert!(has(&s.vertices, [4.0, 0.75, 0.0]));
        assert_eq!(s.vertices[0], [0.0; 3]);
        assert_eq!(s.vertices[5], [8.0, 4.0, 0.0]);
        assert!(has(&s.vertices, [2.0, 0.5, 0.0]));
        assert!(has(&s.vertices, [2.0, 2.25, 0.0]));
        // One quad: every corner is an open corner.
        let quad = Polys {
            vertices: vec![
                [0.0, 0.0, 0.0],
                [4.0, 0.0, 0.0],
                [4.0, 4.0, 0.0],
                [0.0, 4.0, 0.0],
            ],
            start: vec![0, 4],
            corners: vec![0, 1, 2, 3],
            material: vec![0],
            smoothing: vec![0],
            maps: Vec::new(),
            edges: None,
        };
        let s = quad.subdivide().unwrap();
        assert_eq!(&s.vertices[..4], &quad.vertices[..]);
        assert!(has(&s.vertices, [2.0, 0.0, 0.0]));
        assert!(has(&s.vertices, [2.0, 2.0, 0.0]));
        // Three faces on one edge: not a surface.
        let mut fan = quad.clone();
        fan.vertices.extend([[2.0, 2.0, 3.0], [2.0, 2.0, -3.0]]);
        fan.corners.extend([1, 0, 4, 1, 0, 5]);
        fan.start.extend([7, 10]);
        fan.material.extend([0, 0]);
        fan.smoothing.extend([0, 0]);
        assert!(fan.subdivide().unwrap_err().to_string().contains("3 faces"));
        let mut bad = quad.clone();
        bad.corners[2] = 9;
        assert!(bad.subdivide().is_err());
        let mut bad = quad;
        bad.start = vec![0, 2, 4];
        assert!(bad.subdivide().is_err());
    }

    /// The polygons an Edit Poly above TurboSmooth takes: the quads in the
    /// numbering of `subdivide` (cube: corners 0–7, face points 8–13, edge
    /// points 14–25), each split along corner – face point for a parent's
    /// even corner and along its two edge points for an odd one, the piece
    /// from the diagonal's first end first: (2, 3, 0), (0, 1, 2) and
    /// (1, 2, 3), (3, 0, 1) — the triangles Max's Edit Poly above a
    /// TurboSmooth output on dhsoncoder's Room.max Box002 (all 3,888 of
    /// them, saved by the Cloth above).
    #[test]
    fn the_polygons_above_keep_the_numbering_and_max_s_diagonals() {
        let s = Settings {
            iterations: 1,
            smooth_result: true,
            separate: Default::default(),
        };
        let p = smoothed_poly(cube(), s).unwrap();
        assert_eq!(p.vertices.len(), 26);
        assert_eq!(p.faces.len(), 24);
        assert_eq!(p.faces[0].v[0], cube().corners[0]);
        assert_eq!(p.faces[0].v[2], 8);
        assert_eq!(p.faces[4].v[2], 9);
        assert!(p.faces.iter().all(|f| f.v[1] >= 14 && f.v[3] >= 14));
        assert_eq!(p.faces[0].tris, vec![[2, 3, 0], [0, 1, 2]]);
        assert_eq!(p.faces[1].tris, vec![[1, 2, 3], [3, 0, 1]]);
        assert_eq!(p.faces[2].tris, p.faces[0].tris);
        assert_eq!(p.faces[3].tris, p.faces[1].tris);
        assert_eq!(p.faces[4].tris, p.faces[0].tris);
        assert!(p.faces.iter().all(|f| f.smoothing == 1));
        assert_eq!(p.faces[5].material, 1);
        // Its triangles are TurboSmooth's own, two by two swapped.
        let m = smooth(cube(), s).unwrap();
        let t = p.to_mesh().unwrap();
        for q in 0..24 {
            assert_eq!(t.faces[2 * q].v, m.faces[2 * q + 1].v);
            assert_eq!(t.faces[2 * q + 1].v, m.faces[2 * q].v);
        }
        assert!(p.edges.is_none());
    }

    #[test]
    fn polygons_are_rebuilt_from_their_triangles_with_map_corners() {
        // A quad fanned from corner 0 and a triangle; a map channel whose
        // triangles agree on the quad's corners.
        let mesh = Mesh {
            vertices: vec![
                Vec3(0.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(1.0, 1.0, 0.0),
                Vec3(0.0, 1.0, 0.0),
                Vec3(2.0, 0.0, 0.0),
            ],
            faces: vec![
                Face {
                    v: [0, 1, 2],
                    smoothing: 4,
                    material: 7,
                    flags: 0,
                },
                Face {
                    v: [0, 2, 3],
                    smoothing: 4,
                    material: 7,
                    flags: 0,
                },
                Face {
                    v: [1, 4, 2],
                    smoothing: 1,
                    material: 2,
                    flags: 0,
                },
            ],
            maps: vec![MapChannel {
                channel: 1,
                vertices: vec![[0.0; 3]; 6],
                faces: vec![[0, 1, 2], [0, 2, 3], [4, 5, 2]],
            }],
            ..Default::default()
        };
        let loops = vec![
            Poly {
                v: vec![0, 1, 2, 3],
                material: 0,
                smoothing: 0,
                cuts: Vec::new(),
            },
            Poly {
                v: vec![1, 4, 2],
                material: 0,
                smoothing: 0,
                cuts: Vec::new(),
            },
        ];
        let p = from_triangles(&mesh, &loops).unwrap();
        assert_eq!(p.start, vec![0, 4, 7]);
        assert_eq!(p.material, vec![7, 2]);
        assert_eq!(p.maps[0].corners, vec![0, 1, 2, 3, 4, 5, 2]);
        let mut split = mesh.clone();
        split.maps[0].faces[1] = [0, 5, 3];
        assert!(from_triangles(&split, &loops)
            .unwrap_err()
            .to_string()
            .contains("two map vertices"));
        assert!(from_triangles(&mesh, &loops[..1]).is_err());
    }
}
