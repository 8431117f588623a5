//! `NLLIGO::CZoneTemplate` (ligo/zone_template.cpp, zone_edge.cpp): the outline of a ligo
//! brick from its open patch edges, cut at the cell corners into unit edges, and the cell
//! mask `getMask` fills from them (the `.ligozone` `<MASK>`).
//!
//! The open edges whose ends both lie on a cell line (within `snap`) are chained into one
//! closed loop; each run between two cell corners becomes a `CZoneEdge` one cell long with
//! its direction (0 = +X, 1 = +Y, 2 = −X, 3 = −Y) and start cell. Failures carry NeL's
//! `CLigoError` main error code; where NeL would index past its arrays (a corner one
//! cell off diagonally, a mask walk leaving the box) the build is refused with
//! `UnknownError`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::matrix::Matrix;
use super::symmetrisation::snap_on_grid;
use super::Point;

/// `CLigoError::TError` values a template build can end with (the discriminants are
/// NeL's, ligo_error.h: 5, 6 and 8–11 are vertex notes or other builders' codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("no vertex on the cell grid (NoEdgeVertices)")]
    NoEdgeVertices = 1,
    #[error("the boundary is not closed (OpenedEdge)")]
    OpenedEdge = 2,
    #[error("more than one boundary (MultipleEdge)")]
    MultipleEdge = 3,
    #[error("boundary vertices leave their cell line (VertexList)")]
    VertexList = 4,
    #[error("a boundary run is not one cell long (FlatZone)")]
    FlatZone = 7,
    #[error("no cell corner on the boundary (NoCornerFound)")]
    NoCornerFound = 12,
    #[error("two boundary corners on the same grid point (TwoCornerVertices)")]
    TwoCornerVertices = 13,
    #[error("a cell corner is missing on the boundary (CornerIsMissing)")]
    CornerIsMissing = 14,
    #[error("a vertex starts or ends two boundary edges (VertexAlreadyUsed)")]
    VertexAlreadyUsed = 15,
    #[error("boundary the ligo template cannot represent (UnknownError)")]
    UnknownError = 16,
}

/// `CZoneEdge`: one cell-long run of the boundary.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoneEdge {
    /// The run's vertices in the edge frame (start at the origin, end at (cell, 0)).
    pub vertices: Vec<Point>,
    /// Their vertex indices.
    pub ids: Vec<u32>,
    pub rotation: u32,
    pub offset_x: i32,
    pub offset_y: i32,
}

const SNAPPED_X: u8 = 1;
const SNAPPED_Y: u8 = 2;

fn is_snapped(v: f32, cell: f32, snap: f32) -> bool {
    let mut s = v;
    snap_on_grid(&mut s, cell, snap)
}

/// `getSnappedIndex`: the cell line a snapped value sits on.
fn snapped_index(v: f32, cell: f32, snap: f32) -> i32 {
    let mut s = v;
    snap_on_grid(&mut s, cell, snap);
    ((s / cell) + 0.5).floor() as i32
}

/// `CVector::norm` in float.
fn norm(v: Point) -> f32 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// `CZoneTemplate::build(vertices, indexes, config, errors)`: the boundary edges, in
/// NeL's order (starting with the edge whose start is lowest in X, then highest in Y).
pub fn build(
    vertices: &[Point],
    open_edges: &[(usize, usize)],
    cell: f32,
    snap: f32,
) -> Result<Vec<ZoneEdge>, TemplateError> {
    let flags: Vec<u8> = vertices
        .iter()
        .map(|v| {
            (u8::from(is_snapped(v[0], cell, snap)) * SNAPPED_X)
                | (u8::from(is_snapped(v[1], cell, snap)) * SNAPPED_Y)
        })
        .collect();
    let flag = |i: usize| flags.get(i).copied().ok_or(TemplateError::UnknownError);
    let mut pair: BTreeMap<usize, usize> = BTreeMap::new();
    let mut reverse: BTreeMap<usize, usize> = BTreeMap::new();
    for &(a, b) in open_edges {
        let (fa, fb) = (flag(a)?, flag(b)?);
        if fa != 0 && fb != 0 && fa & fb != 0 {
            if pair.contains_key(&a) || reverse.contains_key(&b) {
                return Err(TemplateError::VertexAlreadyUsed);
            }
            pair.insert(a, b);
            reverse.insert(b, a);
        }
    }
    if pair.is_empty() {
        return Err(TemplateError::NoEdgeVertices);
    }
    // Chain the edges into lists (NeL pushes each new list at the front).
    let mut lists: VecDeque<VecDeque<usize>> = VecDeque::new();
    while let Some((&first, &second)) = pair.iter().next() {
        let mut list = VecDeque::from([first, second]);
        pair.remove(&first);
        reverse.remove(&second);
        let mut next = second;
        while let Some(n) = pair.remove(&next) {
            list.push_back(n);
            reverse.remove(&n);
            next = n;
        }
        if next != first {
            let mut cur = first;
            while let Some(prev) = reverse.remove(&cur) {
                list.push_front(prev);
                pair.remove(&prev);
                cur = prev;
            }
        }
        lists.push_front(list);
    }
    let mut main = None;
    for l in &lists {
        if l.front() != l.back() {
            main = Some(TemplateError::OpenedEdge);
        }
    }
    if lists.len() > 1 {
        main = Some(TemplateError::MultipleEdge);
    }
    if let Some(e) = main {
        return Err(e);
    }
    let mut list: Vec<usize> = lists.pop_front().into_iter().flatten().collect();
    // Vertices of a run along X must stay on their X line (NeL checks X only).
    let mut previous = *list.last().ok_or(TemplateError::UnknownError)?;
    for &next in &list[1..] {
        if flags[previous] & flags[next] & SNAPPED_X != 0
            && snapped_index(vertices[previous][0], cell, snap)
                != snapped_index(vertices[next][0], cell, snap)
        {
            return Err(TemplateError::VertexList);
        }
        previous = next;
    }
    list.remove(0);
    let corner = |i: usize| flags[i] & (SNAPPED_X | SNAPPED_Y) == SNAPPED_X | SNAPPED_Y;
    let first = list
        .iter()
        .position(|&v| corner(v))
        .ok_or(TemplateError::NoCornerFound)?;
    let n = list.len();
    let mut edges = Vec::new();
    let mut run = vec![list[first]];
    let mut at = (first + 1) % n;
    loop {
        run.push(list[at]);
        if corner(list[at]) {
            edges.push(zone_edge(vertices, &run, cell, snap)?);
            if at == first {
                break;
            }
            run = vec![list[at]];
        }
        at = (at + 1) % n;
    }
    // The edge starting lowest in X (then highest in Y) comes first.
    let mut best = (i32::MAX, i32::MIN, usize::MAX);
    for (k, e) in edges.iter().enumerate() {
        let pos = edge_matrix(e, cell).mul_point(&e.vertices[0]);
        let (x, y) = (
            snapped_index(pos[0], cell, snap),
            snapped_index(pos[1], cell, snap),
        );
        if x < best.0 || (x == best.0 && y > best.1) {
            best = (x, y, k);
        }
    }
    edges.rotate_left(best.2);
    Ok(edges)
}

/// One run between two corners: its direction, its start cell, and `CZoneEdge::build`'s
/// check that it starts at the origin and ends one cell further in its own frame.
fn zone_edge(
    vertices: &[Point],
    run: &[usize],
    cell: f32,
    snap: f32,
) -> Result<ZoneEdge, TemplateError> {
    let (a, b) = (vertices[run[0]], vertices[run[run.len() - 1]]);
    let (sx, sy) = (
        snapped_index(a[0], cell, snap),
        snapped_index(a[1], cell, snap),
    );
    let (ex, ey) = (
        snapped_index(b[0], cell, snap),
        snapped_index(b[1], cell, snap),
    );
    if sx == ex && sy == ey {
        return Err(TemplateError::TwoCornerVertices);
    }
    // In i64: a coordinate far off the grid saturates the index to the i32 range.
    let (dx, dy) = (i64::from(ex) - i64::from(sx), i64::from(ey) - i64::from(sy));
    if dx.abs() > 1 || dy.abs() > 1 {
        return Err(TemplateError::CornerIsMissing);
    }
    let rotation = match (dx, dy) {
        (1, 0) => 0,
        (0, 1) => 1,
        (-1, 0) => 2,
        (0, -1) => 3,
        _ => return Err(TemplateError::UnknownError),
    };
    let mut mat = Matrix::IDENTITY;
    mat.rotate_z(rotation as f32 * std::f32::consts::PI / 2.0);
    mat.set_pos([a[0], a[1], 0.0]);
    let mat = mat.inverted();
    let local: Vec<Point> = run.iter().map(|&i| mat.mul_point(&vertices[i])).collect();
    let (f, l) = (local[0], local[local.len() - 1]);
    if norm([f[0], f[1], 0.0]) > snap || norm([l[0] - cell, l[1], 0.0]) > snap {
        return Err(TemplateError::FlatZone);
    }
    Ok(ZoneEdge {
        vertices: local,
        ids: run.iter().map(|&i| i as u32).collect(),
        rotation,
        offset_x: sx,
        offset_y: sy,
    })
}

/// `CZoneEdge::buildMatrix`.
fn edge_matrix(e: &ZoneEdge, cell: f32) -> Matrix {
    let mut m = Matrix::IDENTITY;
    m.rotate_z(std::f32::consts::PI * e.rotation as f32 / 2.0);
    m.set_pos([cell * e.offset_x as f32, cell * e.offset_y as f32, 0.0]);
    m
}

/// The widest mask side: a brick's size is stored in a byte (`CZoneBankElement::_SizeX`),
/// and the bound keeps a hostile outline from allocating without limit.
pub const MAX_SIDE: i32 = 255;

/// `CZoneTemplate::getMask`: (mask row-major, width, height). The cells along the
/// boundary are found from each edge's direction, then every cell reachable from them
/// without crossing the boundary in one of the four directions. A cell outside the box
/// (where NeL indexes past its array) or a side over [`MAX_SIDE`] is `UnknownError`.
pub fn mask(edges: &[ZoneEdge]) -> Result<(Vec<bool>, u32, u32), TemplateError> {
    const ADD: [(i32, i32); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];
    const CELL: [(i32, i32); 4] = [(0, 0), (-1, 0), (-1, -1), (0, -1)];
    const MOVE: [(i32, i32); 4] = [(0, -1), (1, 0), (0, 1), (-1, 0)];
    let unknown = TemplateError::UnknownError;
    let (mut x_max, mut y_max) = (i32::MIN, i32::MIN);
    for e in edges {
        let r = *ADD.get(e.rotation as usize).ok_or(unknown)?;
        x_max = x_max.max(e.offset_x.checked_add(r.0).ok_or(unknown)?);
        y_max = y_max.max(e.offset_y.checked_add(r.1).ok_or(unknown)?);
    }
    if !(1..=MAX_SIDE).contains(&x_max) || !(1..=MAX_SIDE).contains(&y_max) {
        return Err(unknown);
    }
    let (w, h) = (x_max, y_max);
    let index = |x: i32, y: i32| {
        (0..w)
            .contains(&x)
            .then_some(())
            .filter(|_| (0..h).contains(&y))
            .map(|_| (x + y * w) as usize)
            .ok_or(unknown)
    };
    let mut edge_bits = vec![0u32; (w * h) as usize];
    let mut cells = BTreeSet::new();
    for e in edges {
        let c = CELL[e.rotation as usize];
        let x = e.offset_x.checked_add(c.0).ok_or(unknown)?;
        let y = e.offset_y.checked_add(c.1).ok_or(unknown)?;
        edge_bits[index(x, y)?] |= 1 << e.rotation;
        cells.insert((x, y));
    }
    let mut inner = BTreeSet::new();
    for &(cx, cy) in &cells {
        for (dir, m) in MOVE.iter().enumerate() {
            let (mut x, mut y) = (cx, cy);
            while edge_bits[index(x, y)?] & (1 << dir) == 0 {
                x += m.0;
                y += m.1;
                index(x, y)?;
                inner.insert((x, y));
            }
        }
    }
    let mut out = vec![false; (w * h) as usize];
    for (x, y) in cells.into_iter().chain(inner) {
        out[index(x, y)?] = true;
    }
    Ok((out, w as u32, h as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2×1 brick whose boundary runs counter-clockwise through a vertex every half
    /// cell: two edges along the bottom, one up, two back along the top, one down; the
    /// mask is the two cells. Its start is the lowest X with the highest Y: (0, 1), going
    /// down. Corners alone are refused: consecutive vertices both on X lines must share
    /// one (VertexList), the rule NeL applies to X only.
    #[test]
    fn rectangle_gives_its_cells() {
        let ring = [
            (0., 0.),
            (80., 0.),
            (160., 0.),
            (240., 0.),
            (320., 0.),
            (320., 80.),
            (320., 160.),
            (240., 160.),
            (160., 160.),
            (80., 160.),
            (0., 160.),
            (0., 80.),
        ];
        let v: Vec<Point> = ring.iter().map(|&(x, y)| [x, y, 0.0]).collect();
        let e: Vec<(usize, usize)> = (0..12).map(|i| (i, (i + 1) % 12)).collect();
        let edges = build(&v, &e, 160.0, 1.0).unwrap();
        assert_eq!(edges.len(), 6);
        assert_eq!(
            (edges[0].offset_x, edges[0].offset_y, edges[0].rotation),
            (0, 1, 3)
        );
        assert_eq!(mask(&edges).unwrap(), (vec![true, true], 2, 1));
        let open: Vec<(usize, usize)> = e[..11].to_vec();
        assert_eq!(build(&v, &open, 160.0, 1.0), Err(TemplateError::OpenedEdge));
        assert_eq!(
            build(&v, &[], 160.0, 1.0),
            Err(TemplateError::NoEdgeVertices)
        );
        let corners: Vec<Point> = [(0., 0.), (160., 0.), (160., 160.), (0., 160.)]
            .iter()
            .map(|&(x, y)| [x, y, 0.0])
            .collect();
        let e4: Vec<(usize, usize)> = (0..4).map(|i| (i, (i + 1) % 4)).collect();
        assert_eq!(
            build(&corners, &e4, 160.0, 1.0),
            Err(TemplateError::VertexList)
        );
    }

    /// Hostile outlines end in an error, never a panic or an unbounded mask: indices past
    /// the vertex list, NaN and infinite coordinates, corners ±1e30 apart (indices
    /// saturated at the i32 ends), a brick 1000 cells wide, a brick left of the origin.
    #[test]
    fn hostile_outlines_are_refused() {
        // A `w` × 1 cell rectangle from x0, a vertex every half cell, counter-clockwise.
        let rect = |x0: f32, w: usize| -> (Vec<Point>, Vec<(usize, usize)>) {
            let mut p: Vec<(f32, f32)> = (0..2 * w).map(|i| (i as f32 * 80.0, 0.0)).collect();
            p.extend([(w as f32 * 160.0, 0.0), (w as f32 * 160.0, 80.0)]);
            p.extend((0..2 * w).map(|i| ((2 * w - i) as f32 * 80.0, 160.0)));
            p.extend([(0.0, 160.0), (0.0, 80.0)]);
            let n = p.len();
            let v = p.iter().map(|&(x, y)| [x0 + x, y, 0.0]).collect();
            (v, (0..n).map(|i| (i, (i + 1) % n)).collect())
        };
        let (v, ring) = rect(0.0, 1);
        assert_eq!(
            build(&v, &[(0, 1), (1, 99)], 160.0, 1.0),
            Err(TemplateError::UnknownError)
        );
        let mut nan = v.clone();
        nan[3] = [f32::NAN, f32::INFINITY, 0.0];
        assert!(build(&nan, &ring, 160.0, 1.0).is_err());
        let far: Vec<Point> = [(-1e30, -1e30), (1e30, -1e30), (1e30, 1e30), (-1e30, 1e30)]
            .iter()
            .map(|&(x, y)| [x, y, 0.0])
            .collect();
        let e4: Vec<(usize, usize)> = (0..4).map(|i| (i, (i + 1) % 4)).collect();
        assert!(build(&far, &e4, 160.0, 1.0).is_err());
        // 1000 cells a side, and one cell left of the origin: valid outlines, no mask.
        for (x0, w) in [(0.0, 1000), (-160.0, 1)] {
            let (v, e) = rect(x0, w);
            let edges = match build(&v, &e, 160.0, 1.0) {
                Ok(e) => e,
                Err(e) => panic!("the outline itself is valid: {e}"),
            };
            assert_eq!(mask(&edges), Err(TemplateError::UnknownError));
        }
    }

    /// Mutation sweep: 20000 corruptions of a valid 3×2 outline (coordinates replaced by
    /// grid values, values within or just past the snap, huge, NaN; edges redirected,
    /// reversed, dropped or duplicated) never panic, and every mask that comes out has
    /// `w·h` cells within the bound.
    #[test]
    fn mutated_outlines_never_panic() {
        let mut p: Vec<(f32, f32)> = (0..6).map(|i| (i as f32 * 80.0, 0.0)).collect();
        p.extend([(480.0, 0.0), (480.0, 80.0), (480.0, 160.0), (480.0, 240.0)]);
        p.extend((0..6).map(|i| ((6 - i) as f32 * 80.0, 320.0)));
        p.extend([(0.0, 320.0), (0.0, 240.0), (0.0, 160.0), (0.0, 80.0)]);
        let base: Vec<Point> = p.iter().map(|&(x, y)| [x, y, 0.0]).collect();
        let n = base.len();
        let ring: Vec<(usize, usize)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
        assert!(build(&base, &ring, 160.0, 1.0)
            .and_then(|e| mask(&e))
            .is_ok());
        let values = [
            0.0,
            160.0,
            -160.0,
            80.0,
            0.999,
            1.001,
            159.0,
            161.5,
            1e30,
            -1e30,
            3.4e38,
            f32::NAN,
            f32::INFINITY,
            -0.0,
            40_960.0,
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as usize
        };
        let mut masks = 0;
        for _ in 0..20_000 {
            let (mut v, mut e) = (base.clone(), ring.clone());
            for _ in 0..1 + next() % 3 {
                match next() % 6 {
                    0 | 1 => {
                        let k = next() % n;
                        v[k][next() % 2] = values[next() % values.len()];
                    }
                    2 => {
                        let k = next() % e.len();
                        e[k].1 = next() % (n + 2);
                    }
                    3 => {
                        let k = next() % e.len();
                        e[k] = (e[k].1, e[k].0);
                    }
                    4 => {
                        e.remove(next() % e.len());
                    }
                    _ => {
                        let k = next() % e.len();
                        e.push(e[k]);
                    }
                }
                if e.is_empty() {
                    break;
                }
            }
            if let Ok((m, w, h)) = build(&v, &e, 160.0, 1.0).and_then(|e| mask(&e)) {
                assert_eq!(m.len(), (w * h) as usize);
                assert!(w as i32 <= MAX_SIDE && h as i32 <= MAX_SIDE);
                masks += 1;
            }
        }
        assert!(masks > 0);
    }
}
