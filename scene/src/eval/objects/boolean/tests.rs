//! Boolean operations on small solids with known volumes and topology.

use super::*;

fn cube(min: [f64; 3], max: [f64; 3]) -> Mesh {
    use crate::eval::objects::test_box::{box_corners, BOX_QUADS};
    let v = box_corners(min, max);
    let mut faces = Vec::new();
    for (k, q) in BOX_QUADS.iter().enumerate() {
        for t in [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] {
            faces.push(Face {
                v: t,
                smoothing: 1 << k,
                material: k as u16,
                flags: 7,
            });
        }
    }
    Mesh {
        vertices: v,
        faces,
        maps: Vec::new(),
        ..Default::default()
    }
}

fn run(a: &Mesh, b: &Mesh, op: Op) -> Result<Mesh, crate::eval::EvalError> {
    csg(a, b, op, &Budget::default())
}

fn area(m: &Mesh) -> f64 {
    m.faces
        .iter()
        .map(|f| {
            let [a, b, c] = f.v.map(|i| m.vertices[i as usize]);
            b.minus(a).cross(c.minus(a)).len() / 2.0
        })
        .sum()
}

fn closed(m: &Mesh) -> bool {
    let mut edges: HashMap<(u32, u32), i32> = HashMap::new();
    for f in &m.faces {
        for k in 0..3 {
            let (a, b) = (f.v[k], f.v[(k + 1) % 3]);
            *edges.entry((a.min(b), a.max(b))).or_default() += if a < b { 1 } else { -1 };
        }
    }
    edges.values().all(|&n| n == 0)
}

#[test]
fn overlapping_cubes() {
    let a = cube([0.0; 3], [2.0; 3]);
    let b = cube([1.0; 3], [3.0; 3]);
    let u = run(&a, &b, Op::Union).unwrap();
    assert!(
        (area(&u) - (24.0 + 24.0 - 6.0)).abs() < 1e-9,
        "{}",
        area(&u)
    );
    assert!(closed(&u));
    let i = run(&a, &b, Op::Intersection).unwrap();
    assert!((area(&i) - 6.0).abs() < 1e-9);
    assert!(closed(&i));
    let d = run(&a, &b, Op::AMinusB).unwrap();
    assert!((area(&d) - 24.0).abs() < 1e-9);
    assert!(closed(&d));
    let d = run(&a, &b, Op::BMinusA).unwrap();
    assert!((area(&d) - 24.0).abs() < 1e-9);
    assert!(closed(&d));
}

#[test]
fn coplanar_faces_merge() {
    // Two cubes side by side sharing the face x = 1 and the planes y, z.
    let a = cube([0.0; 3], [1.0; 3]);
    let b = cube([1.0, 0.0, 0.0], [2.0, 1.0, 1.0]);
    let u = run(&a, &b, Op::Union).unwrap();
    assert!((area(&u) - 10.0).abs() < 1e-9, "{}", area(&u));
    assert!(closed(&u));
    // A notch cut flush with the top face.
    let c = cube([0.25, 0.25, 0.5], [0.75, 0.75, 1.0]);
    let d = run(&a, &c, Op::AMinusB).unwrap();
    assert!((area(&d) - (6.0 + 4.0 * 0.25)).abs() < 1e-9, "{}", area(&d));
    assert!(closed(&d));
    assert!(d.faces.iter().any(|f| f.material == 1));
}

/// Max's result keeps only the corners where the result's flat pieces meet
/// and the operands' own vertices (module `corners`): counted here from the
/// solids' geometry.
#[test]
fn the_result_keeps_only_its_corners() {
    let a = cube([0.0; 3], [2.0; 3]);
    let b = cube([1.0; 3], [3.0; 3]);
    // Each cube less the corner inside the other, and the six points where
    // the edges from those corners pierce the other cube.
    let u = run(&a, &b, Op::Union).unwrap();
    assert_eq!(u.vertices.len(), 7 + 7 + 6);
    assert_eq!(run(&a, &b, Op::Intersection).unwrap().vertices.len(), 8);
    for op in [Op::AMinusB, Op::BMinusA] {
        let d = run(&a, &b, op).unwrap();
        assert_eq!(d.vertices.len(), 7 + 1 + 6, "{op:?}");
        assert!(closed(&d), "{op:?}");
    }
    // A notch flush with the top: the cube's 8, the notch's floor and the
    // 4 points where its sides meet the top.
    let unit = cube([0.0; 3], [1.0; 3]);
    let notch = cube([0.25, 0.25, 0.5], [0.75, 0.75, 1.0]);
    let d = run(&unit, &notch, Op::AMinusB).unwrap();
    assert_eq!(d.vertices.len(), 16);
    assert!((area(&d) - 7.0).abs() < 1e-9, "{}", area(&d));
    // The top is a square with a square hole: 8 corners, 8 triangles.
    let top: Vec<&Face> = d
        .faces
        .iter()
        .filter(|f| f.v.iter().all(|&v| d.vertices[v as usize].2 == 1.0))
        .collect();
    assert_eq!(top.len(), 8);
    // A cavity flush with two faces (Desk.max's Cabinets: Max's 16).
    let cavity = cube([0.3, 0.2, 0.0], [1.0, 0.8, 0.6]);
    let d = run(&unit, &cavity, Op::AMinusB).unwrap();
    assert_eq!(d.vertices.len(), 16);
    assert!(closed(&d));
}

/// Map values follow the surface: with uvw = position on both operands, every
/// corner of the result (split points and T-junction points included) must
/// still carry its own position.
#[test]
fn map_channels_are_interpolated_at_splits() {
    let with_map = |mut m: Mesh| {
        m.maps.push(MapChannel {
            channel: 1,
            vertices: m
                .vertices
                .iter()
                .map(|v| [v.0 as f32, v.1 as f32, v.2 as f32])
                .collect(),
            faces: m.faces.iter().map(|f| f.v).collect(),
        });
        m
    };
    let a = with_map(cube([0.0; 3], [2.0; 3]));
    let b = with_map(cube([1.0, 0.5, 1.0], [3.0, 1.5, 3.0]));
    for op in [Op::Union, Op::AMinusB, Op::Intersection] {
        let r = run(&a, &b, op).unwrap();
        assert!(closed(&r), "{op:?}");
        let map = &r.maps[0];
        assert_eq!(map.faces.len(), r.faces.len());
        for (f, mf) in r.faces.iter().zip(&map.faces) {
            for (&v, &t) in f.v.iter().zip(mf) {
                let p = r.vertices[v as usize];
                let uv = map.vertices[t as usize];
                let d = Vec3(uv[0].into(), uv[1].into(), uv[2].into()).minus(p);
                assert!(d.len() < 1e-5, "{op:?}: {uv:?} at {p:?}");
            }
        }
    }
    // A channel one operand lacks is dropped.
    let r = run(&a, &cube([1.0; 3], [3.0; 3]), Op::Union).unwrap();
    assert!(r.maps.is_empty());
}

#[test]
fn work_is_capped() {
    let a = cube([0.0; 3], [2.0; 3]);
    let b = cube([1.0; 3], [3.0; 3]);
    let spent = Budget::default();
    spent.work.set(MAX_WORK);
    let e = csg(&a, &b, Op::Union, &spent).unwrap_err();
    assert!(e.to_string().contains("vertex-plane tests"), "{e}");
}

/// The T-junction repair's tests are counted over the whole evaluation, as
/// the splitting's are: 256 nested damaged Booleans cannot spend the cap 256
/// times.
#[test]
fn edge_tests_are_shared_by_the_booleans_of_one_evaluation() {
    let a = cube([0.0; 3], [2.0; 3]);
    let b = cube([1.0; 3], [3.0; 3]);
    let fresh = Budget::default();
    run(&a, &b, Op::Union).unwrap();
    csg(&a, &b, Op::Union, &fresh).unwrap();
    let one = fresh.edge_tests.get();
    assert!(one > 0);
    csg(&a, &b, Op::Union, &fresh).unwrap();
    assert_eq!(
        fresh.edge_tests.get(),
        2 * one,
        "the second Boolean adds to the first's"
    );
    let spent = Budget::default();
    spent.edge_tests.set(MAX_EDGE_TESTS);
    let e = csg(&a, &b, Op::Union, &spent).unwrap_err();
    assert!(e.to_string().contains("vertex-edge tests"), "{e}");
}

/// A closed UV sphere of `rings` bands and `segments` sectors (triangle fans
/// at the poles, two triangles per quad between), centred on `c`.
fn sphere(c: [f64; 3], r: f64, rings: u32, segments: u32) -> Mesh {
    let point = |th: f64, ph: f64| {
        Vec3(
            c[0] + r * th.sin() * ph.cos(),
            c[1] + r * th.sin() * ph.sin(),
            c[2] + r * th.cos(),
        )
    };
    // 0 = north pole, 1 = south pole, then the inner rings.
    let mut vertices = vec![point(0.0, 0.0), point(std::f64::consts::PI, 0.0)];
    for i in 1..rings {
        let th = std::f64::consts::PI * f64::from(i) / f64::from(rings);
        for j in 0..segments {
            let ph = 2.0 * std::f64::consts::PI * f64::from(j) / f64::from(segments);
            vertices.push(point(th, ph));
        }
    }
    let at = |i: u32, j: u32| match i {
        0 => 0,
        i if i == rings => 1,
        i => 2 + (i - 1) * segments + j % segments,
    };
    let mut faces = Vec::new();
    let mut push = |v: [u32; 3]| {
        faces.push(Face {
            v,
            smoothing: 1,
            material: 0,
            flags: 7,
        })
    };
    for i in 0..rings {
        for j in 0..segments {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            if i > 0 {
                push([a, b, d]);
            }
            if i + 1 < rings {
                push([b, c, d]);
            }
        }
    }
    Mesh {
        vertices,
        faces,
        maps: Vec::new(),
        ..Default::default()
    }
}

/// Clipping one BSP tree to another hands each node's polygons to the other
/// tree; a node without polygons must not walk it. Most nodes hold none after
/// the first clip of a CSG, and each such walk visits every node of the other
/// tree: nodes × nodes visits that no budget counted (half a minute for two
/// operands of a few thousand faces in a public file, Spongie_merchant.max).
/// Here every node of one sphere's tree is emptied and the tree clipped to the
/// other sphere's: nothing is left to clip, so no work may be charged; the
/// walks with polygons are charged one unit per node visited.
#[test]
fn clipping_walks_only_with_polygons() {
    let a = sphere([0.0; 3], 1.0, 24, 32);
    let b = sphere([0.6, 0.3, 0.2], 1.0, 24, 32);
    let work = Cell::new(0);
    let edge_tests = Cell::new(0);
    let ctx = Ctx {
        eps: REL_EPS,
        polygons: Cell::new(0),
        work: &work,
        edge_tests: &edge_tests,
    };
    let mut ta = Bsp::new(&ctx, polygons(&a, &[])).unwrap();
    let tb = Bsp::new(&ctx, polygons(&b, &[])).unwrap();
    assert!(
        ta.nodes.len() > 500 && tb.nodes.len() > 500,
        "{} {}",
        ta.nodes.len(),
        tb.nodes.len()
    );
    for n in &mut ta.nodes {
        n.polys.clear();
    }
    let built = work.get();
    ta.clip_to(&ctx, &tb).unwrap();
    assert_eq!(
        work.get(),
        built,
        "an empty tree's clip walked the other tree"
    );
    // A triangle above the whole of b stops at the root (in front of its
    // plane, which has no front child on a convex solid): one visit and three
    // vertex-plane tests are charged.
    let above = polygons(&sphere([0.0, 0.0, 5.0], 1.0, 24, 32), &[]).swap_remove(0);
    let before = work.get();
    let out = tb.clip_polygons(&ctx, vec![above]).unwrap();
    assert_eq!((out.len(), work.get() - before), (1, 4));
    // And the whole CSG of the two spheres is still a closed solid.
    for op in [Op::Union, Op::AMinusB, Op::Intersection] {
        assert!(closed(&run(&a, &b, op).unwrap()), "{op:?}");
    }
}
