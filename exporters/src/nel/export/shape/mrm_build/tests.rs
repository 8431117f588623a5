//! The builder on small meshes with known collapse results.

use super::*;

/// A w×h grid of quads in the XY plane, one attribute (a flat normal).
fn grid(w: u32, h: u32) -> BaseMesh {
    let mut m = BaseMesh {
        num_attribs: 1,
        ..Default::default()
    };
    for y in 0..=h {
        for x in 0..=w {
            m.vertices.push([x as f32, y as f32, 0.0]);
        }
    }
    m.attribs.push(vec![[0.0, 0.0, 1.0, 0.0]; m.vertices.len()]);
    let id = |x: u32, y: u32| y * (w + 1) + x;
    let corner = |v: u32| Corner {
        vertex: v,
        attribs: std::array::from_fn(|a| if a == 0 { v } else { 0 }),
    };
    for y in 0..h {
        for x in 0..w {
            let (a, b, c, d) = (id(x, y), id(x + 1, y), id(x + 1, y + 1), id(x, y + 1));
            for t in [[a, b, c], [a, c, d]] {
                m.faces.push(Face {
                    material: 0,
                    corners: t.map(corner),
                });
            }
        }
    }
    m
}

fn params(n: u32, d: u32) -> Params {
    Params {
        n_lods: n,
        divisor: d,
        skin_reduction: SkinReduction::Max,
    }
}

/// Every index of the final mesh in range, and the finest LOD = the input.
fn check_final(m: &BaseMesh, f: &FinalMesh) {
    for (l, lod) in f.lods.iter().enumerate() {
        assert!(lod.n_wedges <= f.wedges.len());
        assert!(lod.geomorphs.len() <= f.n_geom_space);
        for g in &lod.geomorphs {
            assert!((g.0 as usize) < lod.n_wedges && (g.1 as usize) < lod.n_wedges);
            assert!(g.0 as usize >= f.n_geom_space && g.1 as usize >= f.n_geom_space);
        }
        for (_, w) in &lod.faces {
            for &i in w {
                assert!((i as usize) < lod.n_wedges, "lod {l} wedge {i}");
                if (i as usize) < f.n_geom_space {
                    assert!((i as usize) < lod.geomorphs.len(), "lod {l} geomorph {i}");
                }
            }
        }
        if l > 0 {
            assert!(lod.n_wedges >= f.lods[l - 1].n_wedges);
        }
    }
    let finest = f.lods.last().expect("a lod");
    assert_eq!(finest.faces.len(), m.faces.len());
    for ((_, w), face) in finest.faces.iter().zip(&m.faces) {
        for (&i, c) in w.iter().zip(&face.corners) {
            // Finest positions: the start wedge of a geomorph, or the wedge.
            let i = i as usize;
            let i = if i < f.n_geom_space {
                finest.geomorphs[i].0 as usize
            } else {
                i
            };
            assert_eq!(f.wedges[i].pos, m.vertices[c.vertex as usize]);
        }
    }
}

#[test]
fn grid_reduces_in_the_asked_ratio() {
    let m = grid(10, 10);
    let f = build(&m, &params(5, 10)).expect("builds");
    check_final(&m, &f);
    let counts: Vec<usize> = f.lods.iter().map(|l| l.faces.len()).collect();
    // 200 faces, coarsest 20, linear in between; a collapse removes 1-2 faces.
    assert_eq!(counts.len(), 5);
    assert_eq!(counts[4], 200);
    for (l, &c) in counts.iter().enumerate().take(4) {
        let wanted = 20 + 180 * l / 4;
        assert!(c <= wanted && c + 2 >= wanted, "lod {l}: {c} for {wanted}");
    }
    assert!(f.n_geom_space > 0);
}

#[test]
fn single_triangle_cannot_collapse_below_four() {
    let m = BaseMesh {
        vertices: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        num_attribs: 0,
        faces: vec![Face {
            material: 0,
            corners: std::array::from_fn(|k| Corner {
                vertex: k as u32,
                attribs: [0; MAX_ATTRIB],
            }),
        }],
        ..Default::default()
    };
    let f = build(&m, &params(3, 20)).expect("builds");
    check_final(&m, &f);
    assert!(f.lods.iter().all(|l| l.faces.len() == 1));
    assert_eq!(f.n_geom_space, 0);
    assert_eq!(f.wedges.len(), 3);
}

#[test]
fn degenerate_faces_do_not_hang() {
    let mut m = grid(3, 3);
    // Faces with repeated vertices, and one with all three the same.
    let c = |v: u32| Corner {
        vertex: v,
        attribs: std::array::from_fn(|a| if a == 0 { v } else { 0 }),
    };
    m.faces.push(Face {
        material: 0,
        corners: [c(0), c(0), c(5)],
    });
    m.faces.push(Face {
        material: 0,
        corners: [c(6), c(6), c(6)],
    });
    let f = build(&m, &params(4, 4)).expect("builds");
    check_final(&m, &f);
    assert!(f.lods[0].faces.len() < m.faces.len());
}

#[test]
fn disjoint_triangles_keep_their_silhouette() {
    // Six separate triangles: every vertex is open, so collapses move
    // vertices onto existing ones and no LOD leaves the input's box.
    let mut m = BaseMesh::default();
    for i in 0..6u32 {
        let o = i as f32 * 3.0;
        m.vertices
            .extend([[o, 0.0, 0.0], [o + 1.0, 0.0, 0.0], [o, 1.0, 0.5]]);
        m.faces.push(Face {
            material: 0,
            corners: std::array::from_fn(|k| Corner {
                vertex: 3 * i + k as u32,
                attribs: [0; MAX_ATTRIB],
            }),
        });
    }
    let f = build(&m, &params(3, 2)).expect("builds");
    check_final(&m, &f);
    assert!(f.lods[0].faces.len() <= 4);
    for w in &f.wedges[f.n_geom_space..] {
        assert!(w.pos[0] >= 0.0 && w.pos[0] <= 16.0 && w.pos[1] <= 1.0);
    }
}

#[test]
fn skin_weights_stay_normalized() {
    let mut m = grid(6, 6);
    let n = m.vertices.len();
    m.skin = Some(
        (0..n)
            .map(|i| SkinWeight {
                matrix: [(i % 3) as u32, ((i + 1) % 3) as u32, 0, 0],
                weight: [0.25, 0.75, 0.0, 0.0],
            })
            .collect(),
    );
    for red in [SkinReduction::Min, SkinReduction::Max, SkinReduction::Best] {
        let p = Params {
            skin_reduction: red,
            ..params(4, 8)
        };
        let f = build(&m, &p).expect("builds");
        check_final(&m, &f);
        for w in &f.wedges[f.n_geom_space..] {
            let s: f32 = w.skin.weight.iter().sum();
            assert!((s - 1.0).abs() < 1e-5, "{s}");
            assert!(w.skin.weight.windows(2).all(|p| p[0] >= p[1]));
            assert!(w.n_skin_mat_used >= 1);
        }
    }
}

#[test]
fn bad_parameters_and_indices_are_refused() {
    let m = grid(2, 2);
    assert!(build(&m, &params(0, 20)).is_err());
    assert!(build(&m, &params(MAX_LODS + 1, 20)).is_err());
    assert!(build(&m, &params(3, 0)).is_err());
    let mut bad = m.clone();
    bad.faces[0].corners[0].vertex = 99;
    assert!(build(&bad, &params(3, 2))
        .unwrap_err()
        .to_string()
        .contains("vertex 99"));
    let mut bad = m;
    bad.faces[0].corners[0].attribs[0] = 99;
    assert!(build(&bad, &params(3, 2))
        .unwrap_err()
        .to_string()
        .contains("wedge 99"));
}
