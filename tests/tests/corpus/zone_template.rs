//! Ligo brick masks (`CZoneTemplate::build` + `getMask`) against NeL's own, on synthetic
//! bricks: polyominoes of 160 m cells cut into patches (a vertex every half or quarter
//! cell), their open edges listed counter-clockwise as a patch mesh lists them, with
//! vertices shuffled, jittered within the 1 m snap, interior vertices mixed in, and
//! mirrored copies (vertices mirrored, edges reversed, as `CMaxToLigo::buildZoneTemplate`
//! does for ZONE_SYMMETRY). Failing shapes (a hole, cells touching at a corner, an open
//! boundary, a vertex off its cell line, corners only, nothing on the grid, no corner,
//! two corners on one grid point, a skipped corner, a corner within the snap per axis but
//! not in distance) must fail with NeL's error code: nine distinct codes.
//! No corpus file holds a brick source: the shapes are the test's own, the expected
//! masks NeL's (tests/oracle/landscape_oracle.cpp `template`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use maxfs_exporters::nel::zone_build::zone_template;

const CELL: f32 = 160.0;
const SNAP: f32 = 1.0;

struct Brick {
    name: String,
    vertices: Vec<[f32; 3]>,
    edges: Vec<(usize, usize)>,
}

/// A deterministic pseudo-random sequence (xorshift), for shuffles and jitter.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn unit(&mut self) -> f32 {
        (self.next() % 10_000) as f32 / 10_000.0
    }
}

/// The open edges of a set of cells, `n` vertices per cell side, counter-clockwise.
fn brick(name: &str, cells: &[(i32, i32)], n: i32, jitter: f32, mirror: bool, seed: u64) -> Brick {
    let set: BTreeSet<(i32, i32)> = cells.iter().copied().collect();
    let mut segs = Vec::new();
    for &(cx, cy) in &set {
        let sides = [
            ((0, -1), (cx * n, cy * n), (1, 0)),
            ((1, 0), ((cx + 1) * n, cy * n), (0, 1)),
            ((0, 1), ((cx + 1) * n, (cy + 1) * n), (-1, 0)),
            ((-1, 0), (cx * n, (cy + 1) * n), (0, -1)),
        ];
        for ((dx, dy), (sx, sy), (mx, my)) in sides {
            if set.contains(&(cx + dx, cy + dy)) {
                continue;
            }
            for k in 0..n {
                segs.push((
                    (sx + mx * k, sy + my * k),
                    (sx + mx * (k + 1), sy + my * (k + 1)),
                ));
            }
        }
    }
    let mut rng = Rng(seed);
    let mut points: BTreeSet<(i32, i32)> = segs.iter().flat_map(|&(a, b)| [a, b]).collect();
    // Interior lattice points: vertices of inner patches, never on an open edge.
    for &(cx, cy) in &set {
        points.insert((cx * n + n / 2, cy * n + n / 2));
    }
    let mut order: Vec<(i32, i32)> = points.into_iter().collect();
    for i in (1..order.len()).rev() {
        order.swap(i, (rng.next() % (i as u64 + 1)) as usize);
    }
    let index: BTreeMap<(i32, i32), usize> =
        order.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    let width = set.iter().map(|c| c.0 + 1).max().unwrap_or(0) as f32 * CELL;
    let step = CELL / n as f32;
    let vertices = order
        .iter()
        .map(|&(i, j)| {
            let mut x = i as f32 * step + (rng.unit() - 0.5) * 2.0 * jitter;
            let y = j as f32 * step + (rng.unit() - 0.5) * 2.0 * jitter;
            if mirror {
                x = width - x;
            }
            [x, y, rng.unit() * 30.0]
        })
        .collect();
    let mut edges: Vec<(usize, usize)> = segs
        .iter()
        .map(|(a, b)| {
            let (a, b) = (index[a], index[b]);
            if mirror {
                (b, a)
            } else {
                (a, b)
            }
        })
        .collect();
    for i in (1..edges.len()).rev() {
        edges.swap(i, (rng.next() % (i as u64 + 1)) as usize);
    }
    Brick {
        name: name.to_string(),
        vertices,
        edges,
    }
}

fn bricks() -> Vec<Brick> {
    let shapes: [(&str, &[(i32, i32)]); 8] = [
        ("1x1", &[(0, 0)]),
        ("2x1", &[(0, 0), (1, 0)]),
        ("1x3", &[(0, 0), (0, 1), (0, 2)]),
        ("2x2", &[(0, 0), (1, 0), (0, 1), (1, 1)]),
        ("L", &[(0, 0), (1, 0), (0, 1)]),
        ("U", &[(0, 0), (1, 0), (2, 0), (0, 1), (2, 1)]),
        ("T", &[(0, 1), (1, 1), (2, 1), (1, 0)]),
        ("offset", &[(2, 1), (3, 1), (2, 2)]),
    ];
    let mut out = Vec::new();
    for (k, (name, cells)) in shapes.iter().enumerate() {
        for (n, jitter) in [(2, 0.0), (4, 0.4)] {
            for mirror in [false, true] {
                let tag = format!("{name} n{n} j{jitter} m{}", u8::from(mirror));
                out.push(brick(
                    &tag,
                    cells,
                    n,
                    jitter,
                    mirror,
                    7 + k as u64 * 31 + n as u64,
                ));
            }
        }
    }
    // Refusals.
    let hole_cells: Vec<(i32, i32)> = (0..3)
        .flat_map(|x| (0..3).map(move |y| (x, y)))
        .filter(|&c| c != (1, 1))
        .collect();
    out.push(brick("hole", &hole_cells, 2, 0.0, false, 3));
    out.push(brick("diagonal", &[(0, 0), (1, 1)], 2, 0.0, false, 5));
    let mut open = brick("open", &[(0, 0), (1, 0)], 2, 0.0, false, 9);
    open.edges.pop();
    out.push(open);
    let mut off = brick("off line", &[(0, 0)], 4, 0.0, false, 11);
    off.vertices.iter_mut().for_each(|v| {
        if v[1] == 0.0 && v[0] == 80.0 {
            v[1] = 6.0;
        }
    });
    out.push(off);
    out.push(brick("corners only", &[(0, 0), (1, 0)], 1, 0.0, false, 13));
    // No vertex on both lines, two corners on one grid point, a corner skipped, a
    // corner within the snap on each axis but not in distance.
    out.push(ring("off grid", &[(10., 10.), (20., 10.), (20., 20.)]));
    out.push(ring("no corner", &[(0., 10.), (0., 20.), (0., 30.)]));
    out.push(ring(
        "two corners",
        &[(0., 0.), (80., 0.), (0.5, 0.5), (0., 80.)],
    ));
    out.push(ring(
        "corner missing",
        &[
            (0., 0.),
            (80., 0.),
            (160., 0.),
            (160., 320.),
            (80., 320.),
            (0., 320.),
            (0., 160.),
        ],
    ));
    out.push(ring(
        "flat",
        &[
            (0., 0.),
            (80., 0.),
            (160.9, 0.9),
            (160., 80.),
            (160., 160.),
            (80., 160.),
            (0., 160.),
            (0., 80.),
        ],
    ));
    out
}

/// A closed boundary through `points` in order.
fn ring(name: &str, points: &[(f32, f32)]) -> Brick {
    let n = points.len();
    Brick {
        name: name.to_string(),
        vertices: points.iter().map(|&(x, y)| [x, y, 0.0]).collect(),
        edges: (0..n).map(|i| (i, (i + 1) % n)).collect(),
    }
}

fn ours(b: &Brick) -> String {
    match zone_template::build(&b.vertices, &b.edges, CELL, SNAP)
        .and_then(|e| zone_template::mask(&e))
    {
        Ok((mask, w, h)) => {
            let bits: String = mask.iter().map(|&m| if m { '1' } else { '0' }).collect();
            format!("OK {w} {h} {bits}")
        }
        Err(e) => format!("FAIL {}", e as i32),
    }
}

#[test]
fn brick_masks_equal_nel_zone_template() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle/landscape.sh");
    let mut ok = 0;
    let mut codes = BTreeSet::new();
    let mut failures = Vec::new();
    for (i, b) in bricks().iter().enumerate() {
        let mut text = String::new();
        for v in &b.vertices {
            text.push_str(&format!("v {:e} {:e} {:e}\n", v[0], v[1], v[2]));
        }
        for e in &b.edges {
            text.push_str(&format!("e {} {}\n", e.0, e.1));
        }
        let file = dir.path().join(format!("brick{i}.txt"));
        std::fs::write(&file, text).expect("write brick");
        let run = std::process::Command::new("bash")
            .arg(&script)
            .args(["template", &CELL.to_string(), &SNAP.to_string()])
            .arg(&file)
            .output()
            .expect("run the NeL landscape oracle");
        assert!(
            run.status.success(),
            "oracle: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let theirs = String::from_utf8_lossy(&run.stdout).trim().to_string();
        let mine = ours(b);
        if theirs.starts_with("OK") {
            ok += 1;
        } else {
            codes.insert(theirs.clone());
        }
        if mine != theirs {
            failures.push(format!("{}: ours {mine:?}, NeL {theirs:?}", b.name));
        }
    }
    eprintln!("brick masks vs NeL CZoneTemplate: {ok} masks equal, refusals {codes:?} equal");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every brick shape gives a mask; the refusals reach distinct NeL error codes.
    assert!(
        ok >= 32 && codes.len() >= 9,
        "{ok} masks, refusals {codes:?}"
    );
}
