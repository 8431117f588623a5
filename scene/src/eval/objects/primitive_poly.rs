//! Polygon forms of primitives, as a poly modifier (Edit Poly) receives them:
//! Max converts a primitive to a PolyObject with the primitive's own polygon
//! builder (`BuildCylinderPoly` for Cylinder and Cone, `BuildPolyBox` for
//! Box; the Plane, Sphere, Torus and Tube, which have none, from their
//! triangles, as are OilTank, Spindle, Capsule, ChamferCyl, ChamferBox and
//! Pyramid), whose
//! vertex and face numbering the modifier's records index. Only the forms
//! whose builder or conversion is published are rebuilt; any other
//! primitive is an error naming it.

use crate::chunk::Chunk;
use crate::eval::error::EvalError;
use crate::typed::ClassId;

use crate::eval::core::math::Vec3;
use crate::eval::objects::mesh::MissingMap;
use crate::eval::objects::poly::{PolyFace, PolyMap, PolyMesh};
use crate::eval::objects::primitive::{
    Params, BOX, CAPSULE, CHAMFER_BOX, CHAMFER_CYL, CONE, CYLINDER, GEOSPHERE, OIL_TANK, PLANE,
    PYRAMID, SPHERE, SPINDLE, TORUS, TUBE,
};

/// The polygon form of primitive object `obj` at `t`, with the parameters it
/// was built from: what a poly modifier takes of it. Channel 1 is left out
/// when the object's real-world map size is on and this form does not scale
/// it (`primitive::real_world`): the third value names it, for the caller to
/// record on the mesh it makes.
pub fn of_object(
    eval: &crate::eval::SceneEval,
    obj: usize,
    t: i32,
) -> Result<(PolyMesh, Params, Option<MissingMap>), EvalError> {
    let class = eval
        .graph
        .class(obj)
        .ok_or_else(|| EvalError::malformed("", "base object without a class"))?;
    let p = super::primitive::params(eval, obj, t)?;
    let mut poly = build(class.class_id, &p, eval.chunks(obj))
        .map_err(|e| e.inside(class.name.to_string()))?;
    let left = super::primitive::real_world::strip_poly(eval, obj, class.class_id, &p, &mut poly);
    Ok((poly, p, left))
}

/// The polygon form of primitive `class` (`object` its own chunks).
pub fn build(class: ClassId, p: &Params, object: &[Chunk]) -> Result<PolyMesh, EvalError> {
    match class {
        // The Cone is the Cylinder's builder with two radii: same version
        // chunk, same polygons (its parameters one index further on).
        c if c == CYLINDER || c == CONE => {
            let cone = c == CONE;
            let o = usize::from(cone);
            let version = cylinder_version(object)?;
            if version == 1 && p.segments(3 + o)? > 1 && p.int_or(6 + o, 0) == 0 {
                return cylinder_from_triangles(p, cone);
            }
            let mut poly = cylinder(p, cone, version)?;
            match version {
                // `BuildCylinderPoly` ends with `MNMesh::FillInMesh` (Max SDK
                // sample cyl.cpp), which numbers the edges in face-walk order
                // (our faces and corners are the builder's): ccharri's
                // Rocket.max extrudes side quads from their lowest-numbered
                // side, as its 3DS export shows.
                0 => poly.edges = Some(poly.walked_edges()),
                1 => {
                    from_triangles_order(&mut poly)?;
                    if let Some(edges) = cylinder_triangle_edges(p, cone, &poly)? {
                        // A list that is not the faces' sides leaves it unknown.
                        let _ = poly.set_edges(edges);
                    }
                }
                v => {
                    return Err(EvalError::malformed(
                        "",
                        format!("Cylinder version {v} (chunk 0x0100) is not known"),
                    ))
                }
            }
            Ok(poly)
        }
        c if c == BOX => {
            // `BuildPolyBox` ends with `MNMesh::FillInMesh`, which numbers the
            // edges in face-walk order.
            let mut poly = super::primitive_poly_box::poly_box(p, box_smoothing_fix(object)?)?;
            poly.edges = Some(poly.walked_edges());
            Ok(poly)
        }
        // No polygon builder: the triangle mesh converted (quads per cell).
        c if c == PLANE => super::primitive_poly_converted::poly_plane(p),
        // A whole GeoSphere's triangles all have visible edges: each is its
        // own polygon, in triangle order. Max's records agree: symbol24's
        // hardcandy.max selects among 30 edges of a one-segment icosahedron,
        // and newwitchgirl.max's first operation among 80 faces of a
        // two-segment one, whose extrusion the next records follow (45
        // vertices, 83 faces). The hemisphere's base fan is not measured.
        c if c == GEOSPHERE => {
            if p.flag(3, false) {
                return Err(EvalError::not_evaluated_why(
                    "the polygon form of a GeoSphere hemisphere",
                    "no file shows how its base fan converts",
                ));
            }
            super::primitive_poly_converted::converted(&super::primitive::build(c, p)?)
        }
        c if c == SPHERE || c == TORUS || c == TUBE => {
            super::primitive_poly_converted::converted(&super::primitive::build(c, p)?)
        }
        // The SDK samples built on Capsule's layout (`oiltnk.cpp`, `spind.cpp`,
        // `scuba.cpp`, `chcyl.cpp`) hand a poly request to
        // `SimpleObject::ConvertToType`: their triangles converted as any
        // mesh's (`poly_make`), caps joined across their hidden edges.
        // Primitive3P4Lesson.max's three OilTanks (192 triangles, 108
        // polygons) replay their Edit Polys' selections to the sizes Max
        // recorded, up to a Connect Edge not evaluated. ChamferBox
        // (`chbox.cpp`) and Pyramid (`pyramid.cpp`) too, their triangles in
        // the samples' order with their hidden quad diagonals
        // (`primitive_chamfer`, `primitive::boxes`).
        c if c == OIL_TANK
            || c == SPINDLE
            || c == CAPSULE
            || c == CHAMFER_CYL
            || c == CHAMFER_BOX
            || c == PYRAMID =>
        {
            super::poly_make::as_max_converts(&super::primitive::build(c, p)?)
        }
        c => Err(EvalError::not_evaluated(format!(
            "the polygon form of primitive ({:#x}, {:#x})",
            c.0, c.1
        ))),
    }
}

/// The Box's "poly smoothing fix" (chunk 0x0100, one byte): Boxes saved since
/// Max 5.1 write it set, and their polygon form swaps the top and bottom
/// smoothing groups; a Box without the chunk keeps the old groups.
fn box_smoothing_fix(object: &[Chunk]) -> Result<bool, EvalError> {
    match object.iter().find(|c| c.id == 0x0100) {
        None => Ok(false),
        Some(c) => match c.payload() {
            Some([b]) => Ok(*b != 0),
            other => Err(EvalError::malformed(
                "Box smoothing fix chunk 0x0100",
                format!("{other:?}"),
            )),
        },
    }
}

/// The Cylinder's or Cone's version (chunk 0x0100, an i32; absent = 0). Version 0
/// builds its polygon form with `BuildCylinderPoly`; version 1 (Cylinders
/// made since Max fixed that builder, MAXX-29604) converts the triangle
/// mesh instead (`SetFromTri` + `MakePolyMesh`).
fn cylinder_version(object: &[Chunk]) -> Result<i32, EvalError> {
    match object.iter().find(|c| c.id == 0x0100) {
        None => Ok(0),
        Some(c) => match c.payload() {
            Some(&[a, b, c, d]) => Ok(i32::from_le_bytes([a, b, c, d])),
            other => Err(EvalError::malformed(
                "Cylinder / Cone version chunk 0x0100",
                format!("{other:?}"),
            )),
        },
    }
}

/// The polygons of a version-1 Cylinder, from the polygon builder's (sides,
/// bottom cap, top cap): merging the triangle mesh's faces gives the bottom cap
/// first (its triangles come first), then the sides, then the top cap, which
/// starts on the ring's last vertex — as Wire.max's Unwrap UVW cached the
/// polygons of its cylinder (all 218 faces, corner for corner, after 17
/// detaches and attaches). Map faces follow their faces.
fn from_triangles_order(poly: &mut PolyMesh) -> Result<(), EvalError> {
    let n = poly.faces.len();
    if n < 2 {
        return Err(EvalError::malformed(
            "",
            format!("a polygon cylinder of {n} faces"),
        ));
    }
    poly.faces[..n - 1].rotate_right(1);
    poly.faces[n - 1].v.rotate_right(1);
    let tris = poly.faces[n - 1].tris.clone();
    let deg = poly.faces[n - 1].v.len();
    poly.faces[n - 1].tris = tris.iter().map(|t| t.map(|c| (c + 1) % deg)).collect();
    for m in &mut poly.maps {
        if m.faces.len() != n {
            return Err(EvalError::malformed(
                "",
                format!("map {} has {} faces", m.channel, m.faces.len()),
            ));
        }
        m.faces[..n - 1].rotate_right(1);
        m.faces[n - 1].rotate_right(1);
    }
    Ok(())
}

/// A version-1 Cylinder with cap segments: its triangle mesh joined
/// (`poly_join`). Its cap fans keep their spokes visible, so they stay
/// triangles around the kept centre vertices, and every band (cap rings and
/// sides) becomes quads: bottom fan, bottom cap bands, sides, top cap bands,
/// top fan, in the triangle builder's order. Edges are numbered as the
/// triangle mesh walks them without the hidden diagonals.
fn cylinder_from_triangles(p: &Params, cone: bool) -> Result<PolyMesh, EvalError> {
    let tri = crate::eval::objects::primitive::cylinder_mesh(p, cone)?;
    let mut poly = super::poly_join::join_hidden_pairs(&tri)?;
    let identity: Vec<Option<u32>> = (0..tri.vertices.len() as u32).map(Some).collect();
    poly.set_edges(super::poly::triangle_walk_edges(&tri.faces, &identity)?)?;
    Ok(poly)
}

/// The edge numbering of a version-1 Cylinder's polygon form: that of the
/// triangle cylinder it is converted from (`poly::triangle_walk_edges`), whose
/// vertices are the polygon form's between a centre vertex on each cap (the
/// conversion drops them). `None` (numbering not known) when the triangle
/// mesh's ring vertices are not the polygon form's.
fn cylinder_triangle_edges(
    p: &Params,
    cone: bool,
    poly: &PolyMesh,
) -> Result<Option<Vec<[u32; 2]>>, EvalError> {
    let tri = crate::eval::objects::primitive::cylinder_mesh(p, cone)?;
    let n = poly.vertices.len();
    if tri.vertices.len() != n + 2
        || tri.vertices[1..=n]
            .iter()
            .zip(&poly.vertices)
            .any(|(a, b)| a.minus(*b).dot(a.minus(*b)) > 1e-12)
    {
        return Ok(None);
    }
    let vertex: Vec<Option<u32>> = (0..n + 2)
        .map(|i| (1..=n).contains(&i).then(|| (i - 1) as u32))
        .collect();
    super::poly::triangle_walk_edges(&tri.faces, &vertex).map(Some)
}

/// Cylinder (radius 0, height 1, height segments 2, cap segments 3, sides 4,
/// slice on 6, generate mapping coordinates 9) and Cone (radius 1 0, radius 2
/// 1, then the Cylinder's one index on) as `BuildCylinderPoly` makes them:
/// rings from the bottom starting on +X, radius going linearly from radius 1
/// to radius 2, no centre vertices; faces the side
/// quads row by row (material 2, smoothing group 4, whatever "smooth" says),
/// then the bottom cap as one polygon running backwards (material 1) and the
/// top cap (material 0), both in smoothing group 1. With c > 1 cap segments
/// (version 0; version 1 converts its triangles, `cylinder_from_triangles`)
/// each cap is c − 1 inner rings and a pole instead (`cap_rings`). Slices
/// are refused (not in the corpus), and so is a version-0 Cone with a point
/// for a cap (whether that builder keeps the collapsed ring is not known;
/// the triangle mesh version 1 converts keeps it).
///
/// Mapping is Max's cylindrical mapper with caps (the `UVWMapper` the builder
/// applies): on the sides U = ¾ + angle/2π wrapped above 1 and V = z/height, the
/// quad across the seam taking its second corners one turn up, next to its
/// first (unlike the triangle form, whose corners above ½ move down: the FBX
/// of Lantern.max, cat.max and man.max); the caps are mapped flat, U = (1 − y/r)/2, V = (1 + x/r)/2 (the
/// mapper turns a quarter about Z), r the larger radius of a Cone (the mapper
/// fits the object; no Cone reference holds that mapping).
///
/// A negative radius builds as 0, as in the triangle form (cone.cpp's
/// `BuildPoly` limits both radii to [0, 1e30] too).
fn cylinder(p: &Params, cone: bool, version: i32) -> Result<PolyMesh, EvalError> {
    let o = usize::from(cone);
    let limited = |i: usize| -> Result<f64, EvalError> { Ok(p.float(i)?.clamp(0.0, 1.0e30)) };
    let r1 = limited(0)?;
    let r2 = if cone { limited(1)? } else { r1 };
    let h = p.float(1 + o)?;
    let (hs, caps, n) = (p.segments(2 + o)?, p.segments(3 + o)?, p.segments(4 + o)?);
    if n < 3 {
        return Err(EvalError::malformed("", format!("{n} sides")));
    }
    if p.int_or(6 + o, 0) != 0 {
        return Err(EvalError::malformed(
            "",
            "sliced cylinders are not supported yet",
        ));
    }
    if version == 0 && (r1 == 0.0 || r2 == 0.0) {
        return Err(EvalError::not_evaluated(
            "the version-0 polygon form of a Cone with a radius of 0",
        ));
    }
    if n * (hs + 1 + 2 * caps) > 1 << 21 {
        return Err(EvalError::malformed(
            format!("{n} sides × {hs} segments, {caps} cap segments"),
            "damaged counts",
        ));
    }
    let r = if cone { r1.abs().max(r2.abs()) } else { r1 };
    let mut vertices = Vec::with_capacity(n * (hs + 1));
    let mut angles = Vec::with_capacity(n);
    for row in 0..=hs {
        let f = row as f64 / hs as f64;
        let (z, radius) = (h * f, r1 * (1.0 - f) + r2 * f);
        for k in 0..n {
            let a = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
            vertices.push(Vec3(radius * a.cos(), radius * a.sin(), z));
        }
    }
    // Max accumulates the angle in single precision; that decides on which side
    // of the seam a vertex exactly on +Y lands (as in the triangle cylinder).
    let delta = (2.0 * std::f32::consts::PI) / n as f32;
    let mut acc = 0.0f32;
    for _ in 0..n {
        let u = 0.75 + f64::from(acc) / (2.0 * std::f64::consts::PI);
        angles.push(if u > 1.0 { u - 1.0 } else { u });
        acc += delta;
    }
    let at = |row: usize, k: usize| (row * n + k % n) as u32;
    let mut faces = Vec::with_capacity(n * hs + 2);
    let mut uv = crate::eval::objects::primitive::TexVerts::default();
    let mut map_faces = Vec::with_capacity(n * hs + 2);
    for row in 1..=hs {
        let (va, vb) = ((row - 1) as f64 / hs as f64, row as f64 / hs as f64);
        for k in 0..n {
            let v = vec![
                at(row - 1, k),
                at(row - 1, k + 1),
                at(row, k + 1),
                at(row, k),
            ];
            // The quad's corners follow its first one across the seam.
            let u0 = angles[k];
            let u1 = crate::eval::modifier::uvw_project::beside(angles[(k + 1) % n], u0);
            map_faces.push(vec![
                uv.at(u0, va),
                uv.at(u1, va),
                uv.at(u1, vb),
                uv.at(u0, vb),
            ]);
            faces.push(PolyFace::fan(v, 2, 1 << 3));
        }
    }
    let caps_faces = if caps > 1 {
        cap_rings(&mut vertices, n, hs, caps, [r1, r2], h)
    } else {
        let bottom: Vec<u32> = (0..n).rev().map(|k| at(0, k)).collect();
        let top: Vec<u32> = (0..n).map(|k| at(hs, k)).collect();
        vec![PolyFace::strip(bottom, 1, 1), PolyFace::strip(top, 0, 1)]
    };
    for face in caps_faces {
        let cap_uv = |i: u32| {
            let c = vertices[i as usize];
            if r == 0.0 {
                (0.5, 0.5)
            } else {
                ((1.0 - c.1 / r) / 2.0, (1.0 + c.0 / r) / 2.0)
            }
        };
        map_faces.push(
            face.v
                .iter()
                .map(|&i| {
                    let (u, v) = cap_uv(i);
                    uv.at(u, v)
                })
                .collect(),
        );
        faces.push(face);
    }
    let maps = if p.flag(9 + o, true) {
        vec![PolyMap {
            channel: 1,
            vertices: uv.list,
            faces: map_faces,
        }]
    } else {
        Vec::new()
    };
    Ok(PolyMesh {
        vertices,
        faces,
        maps,
        edges: None,
        normals: None,
    })
}

/// The caps of a version-0 polygon cylinder of `caps` > 1 cap segments, as
/// the SDK sample cyl.cpp's `BuildCylinderPoly` makes them: after the side
/// rings, the bottom cap's `caps − 1` inner rings (outermost first, radius
/// radius 1 × (caps − i)/caps, starting on +X like the side rings) and its
/// pole at the origin, then the top cap's rings (radius 2) and its pole at
/// the height; faces the bottom cap's quads ring by ring from the rim inward
/// and its triangles to the pole (material 1), then the top cap's likewise
/// but turned the other way (material 0), all in smoothing group 1.
fn cap_rings(
    vertices: &mut Vec<Vec3>,
    n: usize,
    hs: usize,
    caps: usize,
    radii: [f64; 2],
    h: f64,
) -> Vec<PolyFace> {
    let n32 = n as u32;
    let mut faces = Vec::with_capacity(2 * caps * n);
    for (top, (radius, z)) in [(false, (radii[0], 0.0)), (true, (radii[1], h))] {
        let rim = if top { (n * hs) as u32 } else { 0 };
        let start = vertices.len() as u32;
        for i in 1..caps {
            let rad = radius * (caps - i) as f64 / caps as f64;
            for k in 0..n {
                let a = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                vertices.push(Vec3(rad * a.cos(), rad * a.sin(), z));
            }
        }
        let pole = vertices.len() as u32;
        vertices.push(Vec3(0.0, 0.0, z));
        // Ring 0 is the rim (a side row); ring i ≥ 1 the i-th inner ring.
        let ring = |i: usize, k: usize| -> u32 {
            let k = (k % n) as u32;
            if i == 0 {
                rim + k
            } else {
                start + (i as u32 - 1) * n32 + k
            }
        };
        for i in 1..caps {
            for k in 0..n {
                let (a0, a1, b0, b1) = (
                    ring(i - 1, k),
                    ring(i - 1, k + 1),
                    ring(i, k),
                    ring(i, k + 1),
                );
                let v = if top {
                    vec![a0, a1, b1, b0]
                } else {
                    vec![a1, a0, b0, b1]
                };
                faces.push(PolyFace::fan(v, u16::from(!top), 1));
            }
        }
        for k in 0..n {
            let (a0, a1) = (ring(caps - 1, k), ring(caps - 1, k + 1));
            let v = if top {
                vec![a0, a1, pole]
            } else {
                vec![a1, a0, pole]
            };
            faces.push(PolyFace::fan(v, u16::from(!top), 1));
        }
    }
    faces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::Value;

    /// Max's Edit Poly over Primitive3P4Lesson.max's OilTank001 (12 sides,
    /// one height segment, no blend) records 98 vertex offsets per Transform
    /// and selects among 204 edges for its first Connect Edge: the polygon
    /// form Max gave it. The SDK sample converts as any triangle mesh, its
    /// quads joined across their hidden diagonals, the pole fans kept.
    #[test]
    fn an_oil_tank_converts_to_the_polygons_max_recorded() {
        let p = Params::from_values(vec![
            Value::Float(10.0),
            Value::Float(3.0),
            Value::Float(25.0),
            Value::Int(0),
            Value::Float(0.0),
            Value::Int(12),
            Value::Int(1),
            Value::Int(1),
            Value::Int(0),
            Value::Float(0.0),
            Value::Float(0.0),
            Value::Int(1),
        ]);
        let poly = build(OIL_TANK, &p, &[]).expect("the OilTank's polygon form");
        assert_eq!(poly.vertices.len(), 98);
        assert_eq!(poly.mn_edges().expect("numbered").len(), 204);
        assert_eq!(poly.faces.len(), 108);
        let triangles = poly.faces.iter().filter(|f| f.v.len() == 3).count();
        assert_eq!((triangles, poly.faces.len() - triangles), (24, 84));
    }

    fn chamfer_box_params(segs: [i32; 4], dims: [f32; 4]) -> Params {
        let mut v: Vec<Value> = dims.into_iter().map(Value::Float).collect();
        v.extend(segs.map(Value::Int));
        v.extend([Value::Int(1), Value::Int(1)]);
        Params::from_values(v)
    }

    /// The face counts 3ds Max's Edit Polys recorded over ChamferBoxes (their
    /// first face selections' sizes): dhsoncoder's Basic-3D-Model Room.max,
    /// ChamferBox002 (segments 16 × 1 × 1, one fillet segment, the fillet
    /// above half the height): 146; maruzu's AnimacionDos "infografia
    /// chocolate.max", ChamferBox058 and others (1 × 1 × 1, three fillet
    /// segments): 114, and ChamferBox073/074 (7 × 4 × 1, three): 294. The
    /// triangles (284, 204, 564) join across the hidden quad diagonals.
    #[test]
    fn chamfer_boxes_convert_to_the_polygons_max_recorded() {
        for (segs, dims, triangles, polygons) in [
            (
                [16, 1, 1, 1],
                [55766.688, 23301.635, 1000.0, 2563.5366],
                284,
                146,
            ),
            (
                [1, 1, 1, 3],
                [0.6063347, 0.4584732, 0.39473593, 0.47830936],
                204,
                114,
            ),
            (
                [7, 4, 1, 3],
                [4.7914634, 2.6760466, 1.1641399, 1.1988983],
                564,
                294,
            ),
        ] {
            let p = chamfer_box_params(segs, dims);
            let tri = super::super::primitive::build(CHAMFER_BOX, &p).expect("the triangles");
            assert_eq!(tri.faces.len(), triangles, "{segs:?}");
            let poly = build(CHAMFER_BOX, &p, &[]).expect("the ChamferBox's polygon form");
            assert_eq!(poly.faces.len(), polygons, "{segs:?}");
            assert_eq!(poly.vertices.len(), tri.vertices.len(), "{segs:?}");
            // A closed surface: V − E + F = 2.
            let edges = poly.mn_edges().expect("numbered").len();
            assert_eq!(poly.vertices.len() + polygons, edges + 2, "{segs:?}");
        }
    }

    /// maruzu's AnimacionDos ciudad.max, Pyramid008 (20 × 20 × 20, one
    /// segment each) under TurboSmooth (two iterations) and an Edit Poly:
    /// the Edit Poly's first operation selects among 96 faces, the
    /// subdivision of 8 triangles (8 · 3 · 4). The sample's fans from the
    /// apex and the base's centre show every edge: 8 triangles, 6 vertices.
    #[test]
    fn a_pyramid_converts_to_the_polygons_max_recorded() {
        let p = Params::from_values(vec![
            Value::Float(20.0),
            Value::Float(20.0),
            Value::Float(20.0),
            Value::Int(1),
            Value::Int(1),
            Value::Int(1),
            Value::Int(1),
        ]);
        let poly = build(PYRAMID, &p, &[]).expect("the Pyramid's polygon form");
        assert_eq!(poly.vertices.len(), 6);
        assert_eq!(poly.faces.len(), 8);
        assert!(poly.faces.iter().all(|f| f.v.len() == 3));
        let corners: usize = poly.faces.iter().map(|f| f.v.len()).sum();
        assert_eq!(corners * 4, 96);
        assert_eq!(poly.mn_edges().expect("numbered").len(), 12);
    }

    fn cylinder_params(sides: i32) -> Params {
        cylinder_segments(sides, 1, 1)
    }

    fn cylinder_segments(sides: i32, height: i32, caps: i32) -> Params {
        Params::from_values(vec![
            Value::Float(1.0),
            Value::Float(2.0),
            Value::Int(height),
            Value::Int(caps),
            Value::Int(sides),
            Value::Int(1),
            Value::Int(0),
            Value::Float(0.0),
            Value::Float(0.0),
            Value::Int(1),
        ])
    }

    /// The version-0 polygon cylinder's side quad across the seam: its
    /// second corners follow the first, whose U is below 1, to above 1 — as
    /// the FBX of danshaub's Lantern.max (Cylinder001, 18 sides) and
    /// SnubbleJr's cat.max and man.max hold them, 0.972 and 1.028 where the
    /// triangle cylinder's rule gave −0.028 and 0.028.
    #[test]
    fn the_polygon_cylinder_quad_across_the_seam_follows_its_first_corner() {
        let poly = build(CYLINDER, &cylinder_params(18), &[]).expect("version 0");
        let map = &poly.maps[0];
        let us: Vec<Vec<f64>> = map.faces[..18]
            .iter()
            .map(|f| {
                f.iter()
                    .map(|&t| f64::from(map.vertices[t as usize][0]))
                    .collect()
            })
            .collect();
        // Every side quad spans one step of U, 1/18, none wrapped around.
        for u in &us {
            assert!((u[1] - u[0] - 1.0 / 18.0).abs() < 1e-6, "{u:?}");
            assert_eq!((u[0], u[1]), (u[3], u[2]));
        }
        // Quad 4 runs from 80° to 100°, across +Y where U wraps.
        assert!((us[4][0] - (0.75 + 4.0 / 18.0)).abs() < 1e-6);
        assert!(us[4][1] > 1.0);
    }

    /// A version-1 Cylinder with cap segments: 2 + sides × (height segments
    /// − 1 + 2 × caps) vertices, fans of triangles around both centres and
    /// quads elsewhere, closed (every edge in two faces).
    #[test]
    fn version_one_cylinder_with_cap_segments_is_its_triangles_joined() {
        let p = cylinder_segments(18, 5, 4);
        let v1 = [Chunk::leaf(0x0100, 1i32.to_le_bytes().to_vec())];
        let poly = build(CYLINDER, &p, &v1).expect("version 1");
        assert_eq!((poly.vertices.len(), poly.faces.len()), (218, 234));
        let degrees: Vec<usize> = poly.faces.iter().map(|f| f.v.len()).collect();
        assert!(degrees[..18].iter().all(|&d| d == 3));
        assert!(degrees[18..234 - 18].iter().all(|&d| d == 4));
        assert!(degrees[234 - 18..].iter().all(|&d| d == 3));
        assert!(poly.faces[..18].iter().all(|f| f.v[0] == 0));
        assert!(poly.faces[234 - 18..].iter().all(|f| f.v[0] == 217));
        // Euler: V − E + F = 2 for the closed cylinder.
        let edges = poly.mn_edges().expect("edges").len();
        assert_eq!(218 + 234 - edges, 2);
        poly.validate().expect("valid");
        assert_eq!(poly.maps[0].faces.len(), 234);
    }

    /// A version-0 Cylinder with cap segments has the SDK sample cyl.cpp's
    /// counts (`BuildCylinderPoly`: segs × (lsegs + 1) + 2 × (capsegs − 1) ×
    /// segs + 2 vertices, segs × lsegs + 2 × capsegs × segs faces) and its
    /// order: inner rings after the side rows, outermost first, each cap's
    /// pole after its rings; the bottom cap's faces facing down from the rim
    /// inward, the top cap's facing up; closed, every edge in two faces.
    #[test]
    fn version_0_cylinder_with_cap_segments_builds_as_the_sdk_sample() {
        let (segs, lsegs, caps) = (18usize, 5usize, 4usize);
        let p = cylinder_segments(segs as i32, lsegs as i32, caps as i32);
        let poly = build(CYLINDER, &p, &[]).expect("version 0");
        let nv = segs * (lsegs + 1) + 2 * (caps - 1) * segs + 2;
        let nf = segs * lsegs + 2 * caps * segs;
        assert_eq!((poly.vertices.len(), poly.faces.len()), (nv, nf));
        poly.validate().expect("valid");
        let edges = poly.mn_edges().expect("edges").len();
        assert_eq!(nv + nf - edges, 2, "closed: V − E + F = 2");
        // Cap rings: radius × (caps − i)/caps from +X; poles after each cap.
        let rim = segs * (lsegs + 1);
        let (r, h) = (p.float(0).expect("radius"), p.float(1).expect("height"));
        let first = poly.vertices[rim];
        assert!((first.0 - r * 0.75).abs() < 1e-9 && first.1.abs() < 1e-9 && first.2 == 0.0);
        let bottom_pole = rim + (caps - 1) * segs;
        assert_eq!(poly.vertices[bottom_pole], Vec3(0.0, 0.0, 0.0));
        assert_eq!(poly.vertices[nv - 1], Vec3(0.0, 0.0, h));
        // The first bottom cap face joins the rim to the first inner ring.
        let cap0 = &poly.faces[segs * lsegs];
        assert_eq!(cap0.v, vec![1, 0, rim as u32, rim as u32 + 1]);
        let normal_z = |f: &PolyFace| {
            let [a, b, c] = [f.v[0], f.v[1], f.v[2]].map(|i| poly.vertices[i as usize]);
            let (u, w) = (b.minus(a), c.minus(a));
            u.0 * w.1 - u.1 * w.0
        };
        for (i, f) in poly.faces.iter().enumerate().skip(segs * lsegs) {
            let bottom = i < segs * lsegs + caps * segs;
            assert_eq!(f.material, u16::from(bottom), "face {i}");
            assert!(
                if bottom {
                    normal_z(f) < 0.0
                } else {
                    normal_z(f) > 0.0
                },
                "face {i}"
            );
            assert_eq!(
                f.v.len(),
                if (i - segs * lsegs) % (caps * segs) >= (caps - 1) * segs {
                    3
                } else {
                    4
                }
            );
        }
        assert_eq!(poly.maps[0].faces.len(), nf);
    }

    /// A Cone's polygon form (version 1) has its triangle mesh's ring
    /// vertices in order (the triangle Cone is checked against Babylon's glTF
    /// of Max cones) and the Cylinder's polygons: a tip of radius 0 keeps its
    /// collapsed ring there, and version 0 refuses it.
    #[test]
    fn cone_is_the_cylinder_builder_with_two_radii() {
        let cone = |r2: f32| {
            Params::from_values(vec![
                Value::Float(7.0),
                Value::Float(r2),
                Value::Float(5.0),
                Value::Int(5),
                Value::Int(1),
                Value::Int(24),
                Value::Int(1),
                Value::Int(0),
                Value::Float(0.0),
                Value::Float(0.0),
                Value::Int(1),
            ])
        };
        let v1 = [Chunk::leaf(0x0100, 1i32.to_le_bytes().to_vec())];
        for r2 in [10.0, 0.0] {
            let p = cone(r2);
            let poly = build(CONE, &p, &v1).expect("version 1");
            let tri = crate::eval::objects::primitive::cylinder_mesh(&p, true).expect("cone");
            let n = poly.vertices.len();
            assert_eq!((n, poly.faces.len()), (24 * 6, 24 * 5 + 2));
            for (a, b) in poly.vertices.iter().zip(&tri.vertices[1..=n]) {
                assert!(a.minus(*b).dot(a.minus(*b)) < 1e-20, "{a:?} {b:?}");
            }
            assert!(poly.edges.is_some());
            poly.validate().expect("valid");
        }
        assert!(build(CONE, &cone(10.0), &[]).is_ok());
        assert!(build(CONE, &cone(0.0), &[]).is_err());
    }

    /// A whole GeoSphere's polygon form is its triangles (Euler: V − E + F
    /// = 2 with 10·n² + 2 vertices and 20·n² faces for an icosahedron of n
    /// segments); a hemisphere is refused.
    #[test]
    fn geosphere_polygons_are_its_triangles() {
        let geo = |segments: i32, hemi: bool| {
            Params::from_values(vec![
                Value::Float(10.0),
                Value::Int(segments),
                Value::Int(2),
                Value::Int(i32::from(hemi)),
                Value::Int(1),
                Value::Int(0),
                Value::Int(0),
            ])
        };
        for n in [1usize, 2, 4] {
            let poly = build(GEOSPHERE, &geo(n as i32, false), &[]).expect("whole sphere");
            let (v, f) = (poly.vertices.len(), poly.faces.len());
            assert_eq!((v, f), (10 * n * n + 2, 20 * n * n));
            assert!(poly.faces.iter().all(|f| f.v.len() == 3));
            let edges = poly.mn_edges().expect("edges").len();
            assert_eq!(edges, 30 * n * n);
            assert!(poly.edges.is_some());
            poly.validate().expect("valid");
        }
        assert!(build(GEOSPHERE, &geo(2, true), &[]).is_err());
    }

    #[test]
    fn a_version_0_cylinder_numbers_its_edges_as_fill_in_mesh_walks_them() {
        // cyl.cpp's BuildCylinderPoly ends with MNMesh::FillInMesh: faces in
        // order, sides from corner j to j + 1, an edge numbered when first
        // met. So a side quad after the first shares its left side (corner 3
        // → 0) with the quad before, where that side was numbered: it is the
        // quad's lowest-numbered side, but for the last quad, whose right
        // side (corner 1 → 2) the first quad numbered even earlier.
        let poly = build(CYLINDER, &cylinder_params(4), &[]).expect("version 0");
        let edges = poly.edges.as_ref().expect("numbered");
        let index = |a: u32, b: u32| {
            edges
                .iter()
                .position(|e| (e[0] == a && e[1] == b) || (e[0] == b && e[1] == a))
                .expect("a side")
        };
        assert_eq!(&edges[..4], [[0, 1], [1, 5], [5, 4], [4, 0]]);
        for k in 1..4u32 {
            let f = &poly.faces[k as usize].v;
            assert_eq!(f, &[k, (k + 1) % 4, 4 + (k + 1) % 4, 4 + k]);
            let sides: Vec<usize> = (0..4).map(|j| index(f[j], f[(j + 1) % 4])).collect();
            let lowest = (0..4).min_by_key(|&j| sides[j]).expect("four sides");
            assert_eq!(lowest, if k == 3 { 1 } else { 3 }, "quad {k}: {sides:?}");
        }
    }

    #[test]
    fn cylinder_face_order_follows_its_version_chunk() {
        let p = cylinder_params(4);
        let v0 = build(CYLINDER, &p, &[]).expect("version 0");
        let tops = |m: &PolyMesh| m.faces.iter().map(|f| f.v.clone()).collect::<Vec<_>>();
        // Sides, bottom cap (reversed ring), top cap.
        assert_eq!(tops(&v0)[4], [3, 2, 1, 0]);
        assert_eq!(tops(&v0)[5], [4, 5, 6, 7]);
        let v1 = build(
            CYLINDER,
            &p,
            &[Chunk::leaf(0x0100, 1i32.to_le_bytes().to_vec())],
        )
        .expect("version 1");
        let f = tops(&v1);
        assert_eq!(f[0], [3, 2, 1, 0]);
        assert_eq!(f[1], [0, 1, 5, 4]);
        assert_eq!(f[5], [7, 4, 5, 6]);
        assert_eq!(v1.maps[0].faces[5].len(), 4);
        v1.validate().expect("valid");
        // The top cap's triangles cover the same vertices as before.
        let tri_vertices = |m: &PolyMesh, i: usize| {
            let mut t: Vec<[u32; 3]> = m.faces[i]
                .tris
                .iter()
                .map(|t| {
                    let mut x = t.map(|c| m.faces[i].v[c]);
                    x.sort_unstable();
                    x
                })
                .collect();
            t.sort_unstable();
            t
        };
        assert_eq!(tri_vertices(&v0, 5), tri_vertices(&v1, 5));
        let v7 = build(
            CYLINDER,
            &p,
            &[Chunk::leaf(0x0100, 7i32.to_le_bytes().to_vec())],
        );
        assert!(v7.is_err());
    }
}
