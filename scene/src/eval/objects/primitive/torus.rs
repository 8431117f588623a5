//! Torus and Tube: both are a profile of `sides` vertices swept around Z in
//! `segments` steps, and Max lays both out the same way (3ds Max SDK sample
//! objects torus.cpp / tube.cpp, the source of the facts below).
//!
//! Sweep layout. The profile is repeated at `segments` angles (one more when
//! sliced: the slice's both ends get a profile). A point at angle `a` of radius
//! `r` lies at (r·cos a, −r·sin a): the sweep turns clockwise seen from +Z.
//! Without a slice the angles are `start + k·2π/segments`; `start` is 0, or
//! −π/2 (on +Y) for objects that carry the "new map" chunk 0x0100 (every
//! object made since Max 2). Faces: for each segment and each profile edge
//! (a = (k, j), b = (k+1, j), c = (k+1, j+1), d = (k, j+1), wrapping around
//! both ways unless sliced) the triangles (a, c, b) with edges 1 and 2 visible
//! and (a, d, c) with edges 0 and 1 visible. Sliced, the angles run from
//! −to to −from (normalised so that the sweep is at most 2π) and two centre
//! vertices close the ends with fans.
//!
//! Mapping: (sides + 1) × (segments + 1) texture vertices (U = j/sides,
//! V = k/segments; the last segment of a slice is dropped, so V stops below 1),
//! the two caps map their centres to (½, 1) and (½, 0).
//!
//! Real-world map size (`real_world.rs`; unsliced only, a slice's caps are
//! mapped by another routine): the grid turns a quarter — U runs along the
//! ring, 2π·r·(1 − k/segments) with r the Torus's radius 1 or the Tube's
//! larger radius, and V around the profile in scene units: the Torus's
//! 2π·radius 2 · j/sides, the Tube's summed lengths up the outer wall
//! (height), over the top (|radius 1 − radius 2|), down the inner wall and
//! over the bottom, each split evenly by its segments. Sums run in single
//! precision, as Max's do.

use super::*;
use crate::eval::error::EvalError;

/// Angles of the sweep: (start, step, number of profiles, sliced).
struct Sweep {
    start: f64,
    step: f64,
    profiles: usize,
    sliced: bool,
}

impl Sweep {
    /// `lo` is where a slice starts and `hi` where it ends (the caller derives
    /// both from the stored slice angles); `hi` is brought into [lo, lo + 2π] (equal: a whole turn).
    fn new(segs: usize, sliced: bool, lo: f64, mut hi: f64, new_map: bool) -> Sweep {
        use std::f64::consts::{FRAC_PI_2, TAU};
        let mut sweep = Sweep {
            start: 0.0,
            step: TAU / segs as f64,
            profiles: segs,
            sliced,
        };
        if sliced {
            // Max loops here; a bounded equivalent for any finite angle.
            if hi < lo {
                hi += ((lo - hi) / TAU).ceil() * TAU;
            }
            if hi > lo + TAU {
                hi -= ((hi - lo - TAU) / TAU).ceil() * TAU;
            }
            let total = if hi == lo { TAU } else { hi - lo };
            sweep.profiles = segs + 1;
            sweep.step = total / segs as f64;
            sweep.start = lo;
        }
        if new_map {
            sweep.start -= FRAC_PI_2;
        }
        sweep
    }

    fn angle(&self, k: usize) -> f64 {
        self.start + self.step * k as f64
    }
}

/// Faces, map and cap vertices of a sweep whose profiles (`sides` vertices
/// each) are already in `v`. `side` gives (material, smoothing) of the band
/// starting at (segment k, profile vertex j); `caps` the (material, material,
/// smoothing) of the two slice caps, whose centres are `centres`.
fn sweep_faces(
    mut v: Vec<Vec3>,
    sw: &Sweep,
    sides: usize,
    side: &dyn Fn(usize, usize) -> (u16, u32),
    caps: (u16, u16, u32),
    centres: [Vec3; 2],
    grid: Option<&dyn Fn(usize, usize) -> [f32; 2]>,
) -> Mesh {
    let segs = sw.profiles;
    let bands = segs - usize::from(sw.sliced);
    let at = |k: usize, j: usize| ((k % segs) * sides + j % sides) as u32;
    let mut faces = Vec::with_capacity(2 * sides * segs);
    for k in 0..bands {
        for j in 0..sides {
            let (a, b, c, d) = (at(k, j), at(k + 1, j), at(k + 1, j + 1), at(k, j + 1));
            let (material, smoothing) = side(k, j);
            for (tri, flags) in [([a, c, b], 0b110), ([a, d, c], 0b011)] {
                faces.push(Face {
                    v: tri,
                    smoothing,
                    material,
                    flags,
                });
            }
        }
    }
    if sw.sliced {
        let first = v.len() as u32;
        v.extend(centres);
        let last = segs - 1;
        for j in 0..sides {
            faces.push(Face {
                v: [first, at(0, j + 1), at(0, j)],
                smoothing: caps.2,
                material: caps.0,
                flags: 0b010,
            });
        }
        for j in 0..sides {
            faces.push(Face {
                v: [first + 1, at(last, j), at(last, j + 1)],
                smoothing: caps.2,
                material: caps.1,
                flags: 0b010,
            });
        }
    }
    let maps = if let Some(grid) = grid {
        let mut tv = Vec::with_capacity((sides + 1) * (bands + 1) + 2);
        for k in 0..=bands {
            for j in 0..=sides {
                let [u, v] = grid(k, j);
                tv.push([u, v, 0.0]);
            }
        }
        let row = sides + 1;
        let t = |k: usize, j: usize| (k * row + j) as u32;
        let mut tf = Vec::with_capacity(faces.len());
        for k in 0..bands {
            for j in 0..sides {
                tf.push([t(k, j), t(k + 1, j + 1), t(k + 1, j)]);
                tf.push([t(k, j), t(k, j + 1), t(k + 1, j + 1)]);
            }
        }
        if sw.sliced {
            let (c0, c1) = (tv.len() as u32, tv.len() as u32 + 1);
            tv.push([0.5, 1.0, 0.0]);
            tv.push([0.5, 0.0, 0.0]);
            for j in 0..sides {
                tf.push([c0, t(0, j + 1), t(0, j)]);
            }
            for j in 0..sides {
                tf.push([c1, t(segs - 1, j), t(segs - 1, j + 1)]);
            }
        }
        channel1(tv, tf)
    } else {
        Vec::new()
    };
    Mesh {
        vertices: v,
        faces,
        maps,
        ..Default::default()
    }
}

/// A point at `radius` and angle `a` of the sweep, at height `z`.
fn swept(radius: f64, a: f64, z: f64) -> Vec3 {
    Vec3(radius * a.cos(), -radius * a.sin(), z)
}

/// Torus: radius 1 (0), radius 2 (1), rotation (2), twist (3), segments (4),
/// sides (5), smooth (6: 0 none, 1 sides, 2 all, 3 segments), slice on (7),
/// slice from (8), slice to (9), generate mapping coordinates (10); angles in
/// radians. The profile is the tube circle of radius 2 around the ring of
/// radius 1, starting at `rotation + twist·(k+1)/segments` for profile k.
/// Smoothing: "sides" alternates groups 2 and 1 around the tube (group 4 for
/// the last side of an odd count), "segments" does the same along the ring,
/// "all" puts every face in group 1; faces are material 0, slice caps
/// materials 1 and 2 in group 8.
pub fn torus_mesh(p: &Params) -> Result<Mesh, EvalError> {
    let r1 = p.float(0)?.max(0.0);
    let r2 = p.float(1)?.max(0.0);
    let (rotation, twist) = (p.float_or(2, 0.0), p.float_or(3, 0.0));
    let segs = p.segments(4)?.max(3);
    let sides = p.segments(5)?.max(3);
    check_quads(segs * sides)?;
    let smooth = p.int_or(6, 2);
    let sliced = p.flag(7, false);
    let sw = Sweep::new(
        segs,
        sliced,
        -p.float_or(9, 0.0),
        -p.float_or(8, 0.0),
        p.new_map(),
    );
    let n = sw.profiles;
    let step2 = std::f64::consts::TAU / sides as f64;
    let mut v = Vec::with_capacity(n * sides + 2);
    for k in 0..n {
        let a = sw.angle(k);
        let a2 = rotation + twist * (k + 1) as f64 / n as f64;
        for j in 0..sides {
            let b = a2 + step2 * j as f64;
            v.push(swept(r1 + r2 * b.cos(), a, r2 * b.sin()));
        }
    }
    let alternate = |i: usize, count: usize| {
        if i == count - 1 && count % 2 == 1 {
            4
        } else if i % 2 == 1 {
            1
        } else {
            2
        }
    };
    let side = |k: usize, j: usize| {
        let group = match smooth {
            0 => 0,
            1 => alternate(j, sides),
            3 => alternate(k, n),
            _ => 1,
        };
        (0, group)
    };
    let centres = [swept(r1, sw.angle(0), 0.0), swept(r1, sw.angle(n - 1), 0.0)];
    let plain = unit_grid(sides, n);
    let (u_len, v_len) = (ring_length(r1), ring_length(r2));
    let real = |k: usize, j: usize| {
        [
            u_len * (1.0 - k as f32 / n as f32),
            v_len * j as f32 / sides as f32,
        ]
    };
    let grid: &dyn Fn(usize, usize) -> [f32; 2] = if p.real_world() && !sliced {
        &real
    } else {
        &plain
    };
    Ok(sweep_faces(
        v,
        &sw,
        sides,
        &side,
        (1, 2, 8),
        centres,
        p.flag(10, true).then_some(grid),
    ))
}

/// Tube: radius 1 (0), radius 2 (1), height (2), sides around (3), cap
/// segments (4), height segments (5), smooth (6), slice on (7), slice from
/// (8), slice to (9), generate mapping coordinates (10). The profile runs up
/// the outer wall, inwards over the top, down the inner wall and outwards
/// over the bottom: walls material 2 (outer) and 3 (inner) in group 2, top
/// material 0 and bottom 1 in group 4 (no groups when not smooth), slice caps
/// materials 4 and 5 in group 1 with their centres at mid-radius and
/// mid-height. When radius 1 < radius 2 or the height is negative (not both)
/// Max swaps the radii so that the faces stay outward.
pub fn tube_mesh(p: &Params) -> Result<Mesh, EvalError> {
    let (mut r1, mut r2) = (p.float(0)?.max(0.0), p.float(1)?.max(0.0));
    let h = p.float(2)?;
    let segs = p.segments(3)?.max(3);
    let caps = p.segments(4)?;
    let hs = p.segments(5)?;
    let smooth = p.flag(6, true);
    if (r1 < r2) != (h < 0.0) {
        std::mem::swap(&mut r1, &mut r2);
    }
    let sides = 2 * (hs + caps);
    check_quads(segs * sides)?;
    // The tube negates and swaps the slice angles where the torus only negates.
    let sw = Sweep::new(
        segs,
        p.flag(7, false),
        -p.float_or(8, 0.0),
        -p.float_or(9, 0.0),
        p.new_map(),
    );
    let n = sw.profiles;
    let mut v = Vec::with_capacity(n * sides + 2);
    for k in 0..n {
        let a = sw.angle(k);
        for j in 0..hs {
            v.push(swept(r1, a, j as f64 / hs as f64 * h));
        }
        for j in 0..caps {
            let u = j as f64 / caps as f64;
            v.push(swept(u * r2 + (1.0 - u) * r1, a, h));
        }
        for j in 0..hs {
            v.push(swept(r2, a, (1.0 - j as f64 / hs as f64) * h));
        }
        for j in 0..caps {
            let u = j as f64 / caps as f64;
            v.push(swept(u * r1 + (1.0 - u) * r2, a, 0.0));
        }
    }
    let side = |_: usize, j: usize| {
        let (material, group) = if j < hs {
            (2, 2)
        } else if j < hs + caps {
            (0, 4)
        } else if j < 2 * hs + caps {
            (3, 2)
        } else {
            (1, 4)
        };
        (material, if smooth { group } else { 0 })
    };
    let mid = (r1 + r2) / 2.0;
    let centres = [
        swept(mid, sw.angle(0), h / 2.0),
        swept(mid, sw.angle(n - 1), h / 2.0),
    ];
    let plain = unit_grid(sides, n);
    let profile = tube_profile_lengths(h as f32, (r1 - r2).abs() as f32, hs, caps);
    let u_len = ring_length(r1.max(r2));
    let real = |k: usize, j: usize| {
        let v = profile.get(j).copied().unwrap_or(0.0);
        [u_len * (1.0 - k as f32 / n as f32), v]
    };
    let grid: &dyn Fn(usize, usize) -> [f32; 2] = if p.real_world() && !sw.sliced {
        &real
    } else {
        &plain
    };
    Ok(sweep_faces(
        v,
        &sw,
        sides,
        &side,
        (4, 5, 1),
        centres,
        p.flag(10, true).then_some(grid),
    ))
}

/// The 0 … 1 grid: U = j/sides around the profile, V = k/profiles.
fn unit_grid(sides: usize, profiles: usize) -> impl Fn(usize, usize) -> [f32; 2] {
    move |k, j| {
        [
            (j as f64 / sides as f64) as f32,
            (k as f64 / profiles as f64) as f32,
        ]
    }
}

/// 2π·r in single precision, Max's real-world tile of a full turn.
fn ring_length(r: f64) -> f32 {
    2.0 * std::f32::consts::PI * r as f32
}

/// The Tube's real-world V of each profile vertex (and the closing one):
/// running sums over the outer wall, the top, the inner wall and the bottom,
/// each part's length split evenly by its segments, in Max's float order.
fn tube_profile_lengths(height: f32, width: f32, hs: usize, caps: usize) -> Vec<f32> {
    let mut out = Vec::with_capacity(2 * (hs + caps) + 1);
    let mut v0 = 0.0f32;
    out.push(0.0);
    for (len, n) in [(height, hs), (width, caps), (height, hs), (width, caps)] {
        let mut v = v0;
        for j in 1..=n {
            v = v0 + len * j as f32 / n as f32;
            out.push(v);
        }
        v0 = v;
    }
    out
}
