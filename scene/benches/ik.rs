//! IK solver throughput: HI limb solves per second (each swivel mode) and
//! spline IK solves of a 10-link chain along an open and a closed curve.
//! Pure solver cost — chains are built outside the timed loop.
//! Run: `cargo bench -p maxfs-scene --bench ik`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use maxfs_scene::eval::rigs::ik::hi_limb::{self, HiChain, HiGoal, Link, RootLink, Swivel};
use maxfs_scene::eval::rigs::ik::primitives::{p3, M3, P3};
use maxfs_scene::eval::rigs::ik::spline::{self, SplineChain, SplineJoint, SplinePath};

fn zero_map(e: P3) -> P3 {
    let n0 = p3(0.0, 0.0, -1.0);
    n0.minus(e.scale(n0.dot(e))).normalize()
}

fn arm() -> HiChain {
    let link = |axis, t: P3| Link {
        axis,
        dof_value: 0.0,
        init_value: 0.0,
        rigid_extend: M3::translation(t),
    };
    HiChain {
        root: RootLink {
            rot_xyz: P3::ZERO,
            init_xyz: P3::ZERO,
            rigid_extend: M3::translation(p3(3.0, 0.0, 0.0)),
        },
        links: vec![
            link(2, P3::ZERO),
            link(1, P3::ZERO),
            link(0, p3(0.0, 2.0, 0.0)),
        ],
    }
}

/// A helix of radius 4 and pitch 6 over u ∈ [0, 1] (one turn), or a circle.
struct Curve {
    closed: bool,
}

impl SplinePath for Curve {
    fn pos_at(&self, u: f32) -> P3 {
        let a = std::f32::consts::TAU * u;
        let z = if self.closed { 0.0 } else { 6.0 * u };
        p3(4.0 * a.cos(), 4.0 * a.sin(), z)
    }
    fn closed(&self) -> bool {
        self.closed
    }
}

fn ten_links() -> SplineChain {
    let start = p3(4.0, 0.0, 0.0);
    SplineChain {
        joints: (0..10)
            .map(|b| {
                let pivot = start.plus(p3(2.0 * b as f32, 0.0, 0.0));
                SplineJoint {
                    proximal_frame: M3::translation(pivot),
                    axes: *b"xyz",
                    angles: P3::ZERO,
                    pivot,
                    distal_end: pivot.plus(p3(2.0, 0.0, 0.0)),
                }
            })
            .collect(),
        parent_matrix: M3::IDENTITY,
        twist_parent: M3::IDENTITY,
        goal_object_tm: M3::IDENTITY,
        start_twist: 0.1,
        end_twist: 0.5,
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("ik");
    g.throughput(Throughput::Elements(1));
    let goal_tm = {
        let mut m = M3::rotate_axis(0, 0.3);
        m.set_row(3, p3(2.0, 3.0, 1.0));
        m
    };
    for (name, swivel) in [
        ("hi_limb/start_joint", Swivel::InStartJoint(0.7)),
        ("hi_limb/goal", Swivel::InGoal(0.7)),
        ("hi_limb/vh_target", Swivel::VhTarget(p3(0.0, 5.0, -5.0))),
    ] {
        let goal = HiGoal {
            goal: goal_tm,
            swivel,
            zero_map: &zero_map,
        };
        let mut chain = arm();
        g.bench_function(name, |b| {
            b.iter(|| {
                hi_limb::solve(black_box(&mut chain), black_box(&goal)).expect("solve");
                chain.root.rot_xyz
            })
        });
    }
    let up = |_: P3| P3::unit(2);
    let chain = ten_links();
    for (name, closed) in [("spline_10/open", false), ("spline_10/closed", true)] {
        let curve = Curve { closed };
        g.bench_function(name, |b| {
            b.iter(|| spline::solve(black_box(&chain), &curve, &up).expect("solve"))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
