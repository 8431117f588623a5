//! Triangulation of a cap region (an outline with holes) without new
//! vertices, for Max's "morph" capping: a region of n points with h holes
//! always gives n + 2h − 2 triangles, as Max's capper does. Which diagonals
//! are chosen is ours (Max's capper is not public): holes are bridged to the
//! outline at the nearest visible point, then ears are clipped.

/// Twice the signed area of triangle (a, b, c).
fn cross(a: (f64, f64), b: (f64, f64), c: (f64, f64)) -> f64 {
    (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
}

fn in_triangle(p: (f64, f64), a: (f64, f64), b: (f64, f64), c: (f64, f64)) -> bool {
    cross(a, b, p) > 0.0 && cross(b, c, p) > 0.0 && cross(c, a, p) > 0.0
}

/// Proper crossing of segments (p, q) and (r, s) (shared end points do not count).
fn segments_cross(p: (f64, f64), q: (f64, f64), r: (f64, f64), s: (f64, f64)) -> bool {
    let d1 = cross(p, q, r);
    let d2 = cross(p, q, s);
    let d3 = cross(r, s, p);
    let d4 = cross(r, s, q);
    (d1 > 0.0) != (d2 > 0.0)
        && d1 != 0.0
        && d2 != 0.0
        && (d3 > 0.0) != (d4 > 0.0)
        && d3 != 0.0
        && d4 != 0.0
}

/// Triangles of a region: `outer` counter-clockwise, each hole clockwise;
/// indices count the outline's points first, then each hole's in order.
pub fn triangulate(outer: &[(f64, f64)], holes: &[Vec<(f64, f64)>]) -> Vec<[usize; 3]> {
    let mut pts: Vec<(f64, f64)> = outer.to_vec();
    let mut ring: Vec<usize> = (0..outer.len()).collect();
    let mut hole_rings: Vec<Vec<usize>> = Vec::new();
    for h in holes {
        let base = pts.len();
        pts.extend_from_slice(h);
        hole_rings.push((base..base + h.len()).collect());
    }
    // Bridge holes, rightmost first, each to the nearest ring point whose
    // bridge crosses no edge of the ring or of the holes still open.
    hole_rings.sort_by(|a, b| {
        let mx = |r: &Vec<usize>| r.iter().map(|&i| pts[i].0).fold(f64::MIN, f64::max);
        mx(b).total_cmp(&mx(a))
    });
    for hi in 0..hole_rings.len() {
        let hole = hole_rings[hi].clone();
        if hole.is_empty() {
            continue;
        }
        let m_pos = (0..hole.len())
            .max_by(|&a, &b| pts[hole[a]].0.total_cmp(&pts[hole[b]].0))
            .unwrap_or(0);
        let m = pts[hole[m_pos]];
        let edges = |r: &[usize]| -> Vec<(usize, usize)> {
            (0..r.len()).map(|i| (r[i], r[(i + 1) % r.len()])).collect()
        };
        let mut all_edges = edges(&ring);
        for other in &hole_rings[hi..] {
            all_edges.extend(edges(other));
        }
        let visible = |p: (f64, f64)| {
            all_edges
                .iter()
                .all(|&(a, b)| !segments_cross(m, p, pts[a], pts[b]))
        };
        let dist = |i: usize| {
            let p = pts[ring[i]];
            (p.0 - m.0).powi(2) + (p.1 - m.1).powi(2)
        };
        let mut order: Vec<usize> = (0..ring.len()).collect();
        order.sort_by(|&a, &b| dist(a).total_cmp(&dist(b)));
        let p_pos = order
            .iter()
            .copied()
            .find(|&i| visible(pts[ring[i]]))
            .unwrap_or(order.first().copied().unwrap_or(0));
        let mut merged = Vec::with_capacity(ring.len() + hole.len() + 2);
        merged.extend_from_slice(&ring[..=p_pos]);
        for k in 0..=hole.len() {
            merged.push(hole[(m_pos + k) % hole.len()]);
        }
        merged.push(ring[p_pos]);
        merged.extend_from_slice(&ring[p_pos + 1..]);
        ring = merged;
    }
    clip_ears(&pts, ring)
}

/// Ear clipping of one simple (possibly bridged) counter-clockwise ring.
fn clip_ears(pts: &[(f64, f64)], mut ring: Vec<usize>) -> Vec<[usize; 3]> {
    let mut out = Vec::with_capacity(ring.len().saturating_sub(2));
    while ring.len() > 3 {
        let n = ring.len();
        let is_ear = |i: usize| {
            let (a, b, c) = (ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]);
            if cross(pts[a], pts[b], pts[c]) <= 0.0 {
                return false;
            }
            ring.iter().all(|&v| {
                v == a
                    || v == b
                    || v == c
                    || pts[v] == pts[a]
                    || pts[v] == pts[b]
                    || pts[v] == pts[c]
                    || !in_triangle(pts[v], pts[a], pts[b], pts[c])
            })
        };
        // Degenerate input (collinear or self-touching points) may have no
        // proper ear: then the most convex corner is cut, so that the count
        // stays n − 2 whatever the input.
        let i = (0..n).find(|&i| is_ear(i)).unwrap_or_else(|| {
            (0..n)
                .max_by(|&x, &y| {
                    let area = |i: usize| {
                        cross(
                            pts[ring[(i + n - 1) % n]],
                            pts[ring[i]],
                            pts[ring[(i + 1) % n]],
                        )
                    };
                    area(x).total_cmp(&area(y))
                })
                .unwrap_or(0)
        });
        out.push([ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]]);
        ring.remove(i);
    }
    if ring.len() == 3 {
        out.push([ring[0], ring[1], ring[2]]);
    }
    out
}
