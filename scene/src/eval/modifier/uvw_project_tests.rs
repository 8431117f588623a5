//! Invariants of UVW Map's projections on synthetic meshes (no file holds a
//! reference for every type; the corpus-independent checks against game
//! files exported from the same scenes are in docs/evaluation.md).

use super::*;
use crate::eval::objects::mesh::Face;

fn face(v: [u32; 3], flags: u16) -> Face {
    Face {
        v,
        smoothing: 0,
        material: 0,
        flags,
    }
}

fn mesh(vertices: Vec<Vec3>, faces: Vec<Face>) -> Mesh {
    Mesh {
        vertices,
        faces,
        ..Mesh::default()
    }
}

fn identity() -> Mat43 {
    Mat43::scaling(Vec3(1.0, 1.0, 1.0))
}

fn plain(x: Vec3) -> [f32; 3] {
    [x.0 as f32, x.1 as f32, x.2 as f32]
}

/// Per face, the UVW of each corner.
fn corner_uvw(m: &Mesh, p: Projection) -> Vec<[[f32; 3]; 3]> {
    let (v, f) = map(m, &identity(), p, None, plain);
    f.iter().map(|t| t.map(|i| v[i as usize])).collect()
}

/// A cube of side 2 centred on the origin (the box gizmo's extent), as 12
/// outward triangles, two per side with the side's diagonal hidden.
fn cube() -> Mesh {
    use crate::eval::objects::test_box::{box_corners, BOX_QUADS};
    let v = box_corners([-1.0; 3], [1.0; 3]);
    let mut f = Vec::new();
    for [a, b, c, d] in BOX_QUADS {
        f.push(face([a, b, c], 0b011));
        f.push(face([c, d, a], 0b011));
    }
    mesh(v, f)
}

#[test]
fn box_mapping_gives_every_side_of_an_aligned_box_the_unit_square() {
    let m = cube();
    let uvw = corner_uvw(&m, Projection::Box);
    for pair in uvw.chunks(2) {
        let mut seen: Vec<[i32; 2]> = pair
            .iter()
            .flatten()
            .map(|c| {
                assert!(c.iter().all(|x| *x == 0.0 || *x == 1.0), "{c:?}");
                [c[0] as i32, c[1] as i32]
            })
            .collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen, [[0, 0], [0, 1], [1, 0], [1, 1]]);
    }
}

#[test]
fn box_mapping_reads_unmirrored_from_outside() {
    // On every side, (u, v) turns the same way as the outward normal: the
    // triangle's winding in UV space is counter-clockwise.
    let m = cube();
    for t in corner_uvw(&m, Projection::Box) {
        let area =
            (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[2][0] - t[0][0]) * (t[1][1] - t[0][1]);
        assert!(area > 0.0, "{t:?}");
    }
}

/// A closed cylinder of radius 1 and height 1 centred on the origin (the
/// cylindrical gizmo's extent), `n` sides, with caps.
fn cylinder(n: usize) -> Mesh {
    let mut v = Vec::new();
    for k in 0..n {
        let a = TAU * k as f64 / n as f64 + 0.1;
        v.push(Vec3(a.cos(), a.sin(), -0.5));
        v.push(Vec3(a.cos(), a.sin(), 0.5));
    }
    let (bottom, top) = (v.len() as u32, v.len() as u32 + 1);
    v.push(Vec3(0.0, 0.0, -0.5));
    v.push(Vec3(0.0, 0.0, 0.5));
    let mut f = Vec::new();
    for k in 0..n as u32 {
        let (a, b) = (2 * k, 2 * ((k + 1) % n as u32));
        f.push(face([a, b, b + 1], 0b011));
        f.push(face([b + 1, a + 1, a], 0b011));
        f.push(face([b, a, bottom], 0b111));
        f.push(face([a + 1, b + 1, top], 0b111));
    }
    mesh(v, f)
}

#[test]
fn cylindrical_u_is_the_angle_and_v_the_height_with_the_seam_split() {
    let m = cylinder(16);
    let uvw = corner_uvw(&m, Projection::Cylindrical { cap: false });
    for (f, t) in m.faces.iter().zip(&uvw) {
        let span = t.iter().map(|c| c[0]).fold(f32::MIN, f32::max)
            - t.iter().map(|c| c[0]).fold(f32::MAX, f32::min);
        assert!(span < 0.5, "{t:?}");
        for (k, c) in t.iter().enumerate() {
            let p = m.vertices[f.v[k] as usize];
            assert!((f64::from(c[1]) - (p.2 + 0.5)).abs() < 1e-6);
            if p.0 != 0.0 || p.1 != 0.0 {
                let u = p.1.atan2(p.0) / TAU + 0.5;
                let d = f64::from(c[0]) - u;
                assert!((d - d.round()).abs() < 1e-6 && d.round().abs() <= 1.0);
            }
        }
    }
    // The faces across the seam hold corners moved down by 1.
    assert!(uvw.iter().flatten().any(|c| c[0] < 0.0));
}

#[test]
fn a_polygon_across_the_seam_follows_its_first_corner() {
    // The side quad of a cylinder from just before the seam (U 0.97) to just
    // after it (U 0.03), as two triangles. Mapped as triangles, the high
    // corners move down; mapped as a polygon whose first corner is the high
    // one (guardTower.max's cylinders under an Edit Poly, against their FBX),
    // the low corners move up to it.
    let a = |u: f64| (u - 0.5) * TAU;
    let (a0, a1) = (a(0.97), a(0.03));
    let m = mesh(
        vec![
            Vec3(a0.cos(), a0.sin(), -0.5),
            Vec3(a1.cos(), a1.sin(), -0.5),
            Vec3(a1.cos(), a1.sin(), 0.5),
            Vec3(a0.cos(), a0.sin(), 0.5),
        ],
        vec![face([0, 1, 2], 0b011), face([0, 2, 3], 0b110)],
    );
    let cyl = Projection::Cylindrical { cap: false };
    let us = |leads: Option<&[u32]>| {
        let (v, f) = map(&m, &identity(), cyl, leads, plain);
        f.iter()
            .map(|t| t.map(|i| (v[i as usize][0] * 100.0).round() / 100.0))
            .collect::<Vec<_>>()
    };
    assert_eq!(us(None), [[-0.03, 0.03, 0.03], [-0.03, 0.03, -0.03]]);
    assert_eq!(us(Some(&[0, 0])), [[0.97, 1.03, 1.03], [0.97, 1.03, 0.97]]);
    // A polygon whose first corner is the low one keeps the triangle rule's
    // values.
    assert_eq!(
        us(Some(&[1, 1])),
        [[-0.03, 0.03, 0.03], [-0.03, 0.03, -0.03]]
    );
}

#[test]
fn cylinder_caps_are_planar_with_cap_on() {
    let m = cylinder(12);
    let uvw = corner_uvw(&m, Projection::Cylindrical { cap: true });
    for (f, t) in m.faces.iter().zip(&uvw) {
        let cap = f.v.iter().any(|&i| i as usize >= 24);
        if !cap {
            continue;
        }
        for (k, c) in t.iter().enumerate() {
            let p = m.vertices[f.v[k] as usize];
            // Both caps as seen from +z (Chair.FBX: the bottom cap is not
            // mirrored).
            assert!((f64::from(c[0]) - (0.5 + 0.5 * p.0)).abs() < 1e-6, "{t:?}");
            assert!((f64::from(c[1]) - (0.5 + 0.5 * p.1)).abs() < 1e-6);
        }
    }
}

#[test]
fn spherical_v_is_the_latitude() {
    let p = [
        Vec3(1.0, 0.0, 0.0),
        Vec3(0.0, 1.0, 1.0),
        Vec3(0.0, 0.0, -2.0),
    ];
    let m = mesh(p.to_vec(), vec![face([0, 1, 2], 0b111)]);
    let t = corner_uvw(&m, Projection::Spherical)[0];
    assert!((t[0][1] - 0.5).abs() < 1e-6);
    assert!((t[1][1] - 0.75).abs() < 1e-6);
    assert!(t[2][1].abs() < 1e-6);
    // The pole takes the mean u of the other corners.
    assert!((t[2][0] - (t[0][0] + t[1][0]) / 2.0).abs() < 1e-6);
}

#[test]
fn shrink_wrap_puts_the_top_pole_at_the_centre_and_the_bottom_on_the_circle() {
    let p = [
        Vec3(0.0, 0.0, 1.0),
        Vec3(1.0, 0.0, 0.0),
        Vec3(0.0, 1e-9, -1.0),
    ];
    let m = mesh(p.to_vec(), vec![face([0, 1, 2], 0b111)]);
    let t = corner_uvw(&m, Projection::ShrinkWrap)[0];
    assert_eq!([t[0][0], t[0][1]], [0.5, 0.5]);
    assert!((t[1][0] - 0.75).abs() < 1e-6 && (t[1][1] - 0.5).abs() < 1e-6);
    let r = ((t[2][0] - 0.5).powi(2) + (t[2][1] - 0.5).powi(2)).sqrt();
    assert!((r - 0.5).abs() < 1e-6);
}

#[test]
fn face_mapping_gives_each_quad_the_whole_square() {
    let m = cube();
    let uvw = corner_uvw(&m, Projection::Face);
    for (pair, faces) in uvw.chunks(2).zip(m.faces.chunks(2)) {
        // The shared diagonal's two vertices get the same UV in both halves.
        let (a, c) = (faces[0].v[0], faces[0].v[2]);
        let at =
            |t: &[[f32; 3]; 3], f: &Face, v: u32| t[f.v.iter().position(|&x| x == v).unwrap_or(0)];
        assert_eq!(at(&pair[0], &faces[0], a), at(&pair[1], &faces[1], a));
        assert_eq!(at(&pair[0], &faces[0], c), at(&pair[1], &faces[1], c));
        let mut seen: Vec<[i32; 2]> = pair
            .iter()
            .flatten()
            .map(|c| [c[0] as i32, c[1] as i32])
            .collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen, [[0, 0], [0, 1], [1, 0], [1, 1]]);
    }
}

#[test]
fn texture_vertices_are_shared_where_the_value_is() {
    let m = cube();
    let (v, f) = map(&m, &identity(), Projection::Planar, None, plain);
    // Planar: one texture vertex per geometry vertex.
    assert_eq!(v.len(), 8);
    assert_eq!(f.len(), 12);
    // Face mapping: one texture vertex per (geometry vertex, square corner),
    // so a cube corner on three sides has at most three.
    let (v, _) = map(&m, &identity(), Projection::Face, None, plain);
    assert!(v.len() > 8 && v.len() <= 24, "{}", v.len());
}

/// A cone side's triangle (normal ≈ (1, 0, −0.6): mostly +x in object
/// space) under a box gizmo three wide and one high, as boat.max's Cone001
/// has it: Max reads the side from the normal carried as a vector, (0.67,
/// 0, −1.2), so −z; the mapped triangle's own normal would say +x. The
/// authors' FBX holds the −z values on all 2,280 corners.
#[test]
fn box_side_follows_the_object_normal_carried_into_map_space() {
    let m = mesh(
        vec![
            Vec3(7.0, 0.0, 0.0),
            Vec3(6.761481, 1.8117334, 0.0),
            Vec3(7.3410363, 1.9670247, 1.0),
        ],
        vec![face([0, 1, 2], 0)],
    );
    let to_map = Mat43::scaling(Vec3(1.0 / 1.5, 1.0 / 1.5, 1.0 / 0.5));
    let (v, f) = map(&m, &to_map, Projection::Box, None, plain);
    let uv = f[0].map(|i| v[i as usize]);
    // Side −z: u = ½ − ½x, v = ½ + ½y in map space.
    for (k, p) in m.vertices.iter().enumerate() {
        let q = to_map.transform_point(*p);
        assert!(
            (f64::from(uv[k][0]) - (0.5 - 0.5 * q.0)).abs() < 1e-6,
            "{uv:?}"
        );
        assert!(
            (f64::from(uv[k][1]) - (0.5 + 0.5 * q.1)).abs() < 1e-6,
            "{uv:?}"
        );
    }
}
