//! Max's `OrganizeCurves` for capping: which closed polylines nest in which
//! (projected on the shape's XY plane), and which must be reversed so that
//! outlines at an even depth run counter-clockwise and holes (odd depth)
//! clockwise seen from +Z — then the extruded sides face outwards.

use super::PolyLine;

/// Nesting of a shape's polylines.
#[derive(Debug, Clone, PartialEq)]
pub struct Hierarchy {
    /// Per polyline: how many closed polylines contain it (None: open).
    pub depth: Vec<Option<usize>>,
    /// Per polyline: the closed polyline directly containing it.
    pub parent: Vec<Option<usize>>,
}

impl Hierarchy {
    /// Cap regions: each closed polyline at an even depth with the closed
    /// polylines directly inside it (its holes).
    pub fn regions(&self) -> Vec<(usize, Vec<usize>)> {
        (0..self.depth.len())
            .filter(|&i| self.depth[i].is_some_and(|d| d % 2 == 0))
            .map(|i| {
                let holes = (0..self.depth.len())
                    .filter(|&j| self.parent[j] == Some(i) && self.depth[j].is_some())
                    .collect();
                (i, holes)
            })
            .collect()
    }
}

/// Whether point (x, y) is inside polygon `poly` (even-odd rule).
pub(crate) fn inside(poly: &PolyLine, x: f64, y: f64) -> bool {
    let n = poly.pts.len();
    let mut c = false;
    for i in 0..n {
        let a = poly.pts[i].p;
        let b = poly.pts[(i + n - 1) % n].p;
        if (a.1 > y) != (b.1 > y) && x < (b.0 - a.0) * (y - a.1) / (b.1 - a.1) + a.0 {
            c = !c;
        }
    }
    c
}

/// Polyline `a` lies inside closed polyline `b`: its first point does, or —
/// when that point is on `b`'s outline — most of its points do.
fn contains(b: &PolyLine, a: &PolyLine) -> bool {
    if b.pts.len() < 3 || a.pts.is_empty() {
        return false;
    }
    let votes = a.pts.iter().filter(|p| inside(b, p.p.0, p.p.1)).count();
    2 * votes > a.pts.len()
}

/// The nesting of `lines` and the lines reversed where their direction does
/// not suit their depth (open lines are left as they are).
pub fn organize(lines: &[PolyLine]) -> (Hierarchy, Vec<PolyLine>) {
    let n = lines.len();
    let closed = |i: usize| lines[i].closed && lines[i].pts.len() >= 3;
    let mut depth = vec![None; n];
    let mut parent = vec![None; n];
    for i in (0..n).filter(|&i| closed(i)) {
        let containers: Vec<usize> = (0..n)
            .filter(|&j| j != i && closed(j) && contains(&lines[j], &lines[i]))
            .collect();
        depth[i] = Some(containers.len());
        // The direct parent is the deepest container: the one inside most others.
        parent[i] = containers.iter().copied().max_by_key(|&j| {
            (0..n)
                .filter(|&k| k != j && closed(k) && contains(&lines[k], &lines[j]))
                .count()
        });
    }
    let organized = lines
        .iter()
        .enumerate()
        .map(|(i, l)| match depth[i] {
            Some(d) => {
                let ccw = l.signed_area_xy() > 0.0;
                if ccw == (d % 2 == 0) {
                    l.clone()
                } else {
                    l.reversed()
                }
            }
            None => l.clone(),
        })
        .collect();
    (Hierarchy { depth, parent }, organized)
}
