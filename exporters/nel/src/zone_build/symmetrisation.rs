//! `CZoneSymmetrisation` (NeL 3d/zone_symmetrisation.cpp): which tiles of a zone turn by
//! an extra half turn when the zone is mirrored ("goofy") so that they still meet their
//! neighbours across the zone border.
//!
//! Patches with an edge on the cell grid (found by mapping their corners back through
//! `to_original_space` and snapping them to `snap_cell` within `weld_threshold`) seed the
//! state of their border tiles; the state then floods through connected tiles of the same
//! tile set and rotation, toggling across patch edges whose frames turn by an odd number of
//! quarter turns. What NeL leaves to undefined behaviour (tiles past the bank, neighbour
//! indices past the zone, a division by a zero neighbour count) is refused here.

use super::matrix::Matrix;
use super::tile_bank::BankXRef;
use super::{PatchInfo, ZoneBuildError, TILE_LAYER_EMPTY};

/// `CZoneSymmetrisation::TState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileState {
    Nothing = 0,
    Regular = 1,
    Goofy = 2,
}

impl TileState {
    fn from_bits(b: u16) -> Self {
        match b & 3 {
            1 => TileState::Regular,
            2 => TileState::Goofy,
            // 3 is never written; NeL's enum cast would keep it, and every use compares
            // it with Regular / Goofy / Nothing, where it matches none.
            _ => TileState::Nothing,
        }
    }
}

/// `NL3D::CZoneSymmetrisation`: per patch, per tile, bits 0-5 the state of the three
/// layers, 6-7 the border state, 8-9 the oriented border state, 10 the corner flag.
#[derive(Debug, Clone, Default)]
pub struct ZoneSymmetrisation {
    states: Vec<Vec<u16>>,
    /// `CError::Errors`: patches whose border could not be classified (build goes on).
    pub errors: Vec<String>,
}

const BORDER_LAYER: usize = 3;
const ORIENTED_BORDER_LAYER: usize = 4;
const CORNER_BIT: u16 = 1 << 10;
/// NeL's "not snapped" grid index (`0x80000000`).
const NOT_SNAPPED: i32 = i32::MIN;

impl ZoneSymmetrisation {
    /// `getTileState(patch, tile, layer)`.
    pub fn tile_state(&self, patch: usize, tile: usize, layer: usize) -> TileState {
        let bits = self.states.get(patch).and_then(|p| p.get(tile)).copied();
        TileState::from_bits(bits.unwrap_or(0) >> (layer * 2))
    }

    fn raw(&mut self, patch: usize, tile: usize) -> Result<&mut u16, ZoneBuildError> {
        self.states
            .get_mut(patch)
            .and_then(|p| p.get_mut(tile))
            .ok_or_else(|| ZoneBuildError::Patch {
                patch,
                what: format!("symmetrisation: tile {tile} past the patch"),
            })
    }

    fn set_tile_state(
        &mut self,
        patch: usize,
        tile: usize,
        layer: usize,
        state: TileState,
    ) -> Result<(), ZoneBuildError> {
        let r = self.raw(patch, tile)?;
        *r &= !(3 << (layer * 2));
        *r |= (state as u16) << (layer * 2);
        Ok(())
    }

    fn corner(&self, patch: usize, tile: usize) -> bool {
        self.states
            .get(patch)
            .and_then(|p| p.get(tile))
            .is_some_and(|b| b & CORNER_BIT != 0)
    }

    /// `CZoneSymmetrisation::build`. Errors of single patches are collected in `errors`
    /// and do not fail the build (NeL returns true); a propagation error does.
    pub fn build(
        patches: &[PatchInfo],
        snap_cell: f32,
        weld_threshold: f32,
        bank: &BankXRef,
        to_original_space: &Matrix,
    ) -> Result<Self, ZoneBuildError> {
        let mut z = ZoneSymmetrisation {
            states: patches
                .iter()
                .map(|p| vec![0u16; usize::from(p.order_s) * usize::from(p.order_t)])
                .collect(),
            errors: Vec::new(),
        };
        for (i, p) in patches.iter().enumerate() {
            check_tiles(i, p)?;
            let grid = GridCorners::new(p, snap_cell, weld_threshold, to_original_space);
            let state = z.set_patch_tile_state(p, i, &grid, bank)?;
            if state.is_none() {
                z.errors.push(format!("Patch nb {i} is invalid"));
            }
            if !z.set_oriented_tile_state(p, i, &grid, bank)? {
                z.errors.push(format!("Patch nb {i} is invalid"));
            }
        }
        for force_regular in [false, true] {
            for (i, p) in patches.iter().enumerate() {
                for t in 0..usize::from(p.order_t) {
                    for s in 0..usize::from(p.order_s) {
                        z.propagate_tile_state(i, s, t, patches, bank, force_regular)?;
                    }
                }
            }
        }
        Ok(z)
    }

    /// `setTileState(patch, …)`: `Ok(None)` where NeL returns false, `Ok(Some(state))`
    /// otherwise. Tiles are set as NeL sets them up to the point it gives up.
    fn set_patch_tile_state(
        &mut self,
        p: &PatchInfo,
        id: usize,
        grid: &GridCorners,
        bank: &BankXRef,
    ) -> Result<Option<TileState>, ZoneBuildError> {
        let mut edge_state = [TileState::Nothing; 4];
        let (mut regular, mut goofy) = (false, false);
        let mut snapped = [false; 4];
        for i in 0..4 {
            match grid.edge_snap(i) {
                EdgeSnap::None => {}
                EdgeSnap::Both => return Ok(None),
                EdgeSnap::U => {
                    edge_state[i] = if i & 1 != 0 {
                        TileState::Goofy
                    } else {
                        TileState::Regular
                    }
                }
                EdgeSnap::V => {
                    edge_state[i] = if i & 1 != 0 {
                        TileState::Regular
                    } else {
                        TileState::Goofy
                    }
                }
            }
            if grid.edge_snap(i) != EdgeSnap::None {
                if edge_state[i] == TileState::Regular {
                    regular = true;
                } else {
                    goofy = true;
                }
                snapped[i] = true;
            }
        }
        if goofy && regular {
            return Ok(None);
        }
        if !goofy && !regular {
            return Ok(Some(TileState::Nothing));
        }
        let state = if regular {
            TileState::Regular
        } else {
            TileState::Goofy
        };
        for (i, _) in snapped.iter().enumerate().filter(|(_, &s)| s) {
            for tile in edge_tiles(p, i) {
                self.set_tile_state(id, tile, BORDER_LAYER, state)?;
                for layer in 0..3 {
                    let t = p.tiles[tile].tile[layer];
                    if t == TILE_LAYER_EMPTY {
                        continue;
                    }
                    let Some(set) = known_set(bank, t) else {
                        return Ok(None);
                    };
                    if !bank.oriented(set) {
                        self.set_tile_state(id, tile, layer, state)?;
                    }
                }
            }
        }
        Ok(Some(state))
    }

    /// `setOrientedTileState`: false where NeL returns false.
    fn set_oriented_tile_state(
        &mut self,
        p: &PatchInfo,
        id: usize,
        grid: &GridCorners,
        bank: &BankXRef,
    ) -> Result<bool, ZoneBuildError> {
        let mut snapped = [false; 4];
        for (i, s) in snapped.iter_mut().enumerate() {
            match grid.edge_snap(i) {
                EdgeSnap::None => {}
                EdgeSnap::Both => return Ok(false),
                EdgeSnap::U | EdgeSnap::V => *s = true,
            }
        }
        for i in (0..4).filter(|&i| snapped[i]) {
            let state = if i & 1 != 0 {
                TileState::Goofy
            } else {
                TileState::Regular
            };
            for tile in edge_tiles(p, i) {
                self.set_tile_state(id, tile, ORIENTED_BORDER_LAYER, state)?;
                for layer in 0..3 {
                    let t = p.tiles[tile].tile[layer];
                    if t == TILE_LAYER_EMPTY {
                        continue;
                    }
                    let Some(set) = known_set(bank, t) else {
                        return Ok(false);
                    };
                    if bank.oriented(set) {
                        self.set_tile_state(id, tile, layer, state)?;
                    }
                }
            }
        }
        let (s, t) = (usize::from(p.order_s), usize::from(p.order_t));
        for i in 0..4 {
            if snapped[i] && snapped[(i + 1) & 3] {
                let tile = match i {
                    0 => s * (t - 1),
                    1 => s * t - 1,
                    2 => s - 1,
                    _ => 0,
                };
                *self.raw(id, tile)? |= CORNER_BIT;
            }
        }
        Ok(true)
    }

    /// `propagateTileState`: floods the state of tile (s, t) of `patch` over the tiles
    /// of the same set and rotation (with `force_regular`, first sets a Nothing tile to
    /// Regular).
    fn propagate_tile_state(
        &mut self,
        patch: usize,
        s: usize,
        t: usize,
        patches: &[PatchInfo],
        bank: &BankXRef,
        force_regular: bool,
    ) -> Result<(), ZoneBuildError> {
        let bad = |what: String| ZoneBuildError::Patch { patch, what };
        for layer in 0..3 {
            let cur = &patches[patch];
            let tile = s + t * usize::from(cur.order_s);
            let tile_index = cur.tiles[tile].tile[layer];
            if tile_index == TILE_LAYER_EMPTY {
                continue;
            }
            let xr = bank.xref(usize::from(tile_index)).ok_or_else(|| {
                bad(format!(
                    "symmetrisation: tile {tile_index} is past the bank ({} tiles)",
                    bank.tile_count()
                ))
            })?;
            // An unknown tile set: NeL warns and skips the layer.
            let Some(set) = xr.set.filter(|&s| s < bank.tile_set_count()) else {
                continue;
            };
            let oriented = bank.oriented(set);
            if oriented && self.corner(patch, tile) {
                continue;
            }
            let mut node = FillNode {
                patch,
                s: s as u16,
                t: t as u16,
                edge: 0,
                rotate: cur.tiles[tile].tile_orient(layer),
                state: self.tile_state(patch, tile, layer),
            };
            let go = if force_regular {
                node.state == TileState::Nothing
            } else {
                node.state != TileState::Nothing
            };
            if !go {
                continue;
            }
            if force_regular {
                self.set_tile_state(patch, tile, layer, TileState::Regular)?;
                node.state = TileState::Regular;
            }
            let mut stack = vec![node];
            while let Some(mut cur) = stack.pop() {
                loop {
                    let cp = &patches[cur.patch];
                    let mut nb = FillNode { edge: 0, ..cur };
                    match cur.edge {
                        0 => nb.s = nb.s.wrapping_sub(1),
                        1 => nb.t = nb.t.wrapping_add(1),
                        2 => nb.s = nb.s.wrapping_add(1),
                        _ => nb.t = nb.t.wrapping_sub(1),
                    }
                    if nb.s >= u16::from(cp.order_s) || nb.t >= u16::from(cp.order_t) {
                        let position = match cur.edge {
                            0 => usize::from(nb.t),
                            1 => usize::from(nb.s),
                            2 => usize::from(cp.order_t) - usize::from(nb.t) - 1,
                            _ => usize::from(cp.order_s) - usize::from(nb.s) - 1,
                        };
                        match neighbor_tile(cur.patch, usize::from(cur.edge), position, patches)? {
                            Some((out, so, to)) => {
                                if out == cur.patch {
                                    return Err(bad(format!(
                                        "symmetrisation: patch {out} is bound to itself"
                                    )));
                                }
                                nb.patch = out;
                                nb.s = so as u16;
                                nb.t = to as u16;
                                let bi = &cp.bind_edges[usize::from(cur.edge)];
                                let edge_patch = (0..usize::from(bi.n_patchs).min(4))
                                    .find(|&k| usize::from(bi.next[k]) == out)
                                    .ok_or_else(|| {
                                        bad(format!(
                                            "symmetrisation: neighbour {out} is not in the bind list"
                                        ))
                                    })?;
                                nb.rotate =
                                    ((i32::from(cur.rotate) + 2 + i32::from(bi.edge[edge_patch])
                                        - i32::from(cur.edge))
                                        & 3) as u8;
                                if (nb.rotate ^ cur.rotate) & 1 != 0 {
                                    nb.state = if nb.state == TileState::Regular {
                                        TileState::Goofy
                                    } else {
                                        TileState::Regular
                                    };
                                }
                            }
                            None => {
                                cur.edge += 1;
                                if cur.edge < 4 {
                                    continue;
                                }
                                break;
                            }
                        }
                    }
                    let np = &patches[nb.patch];
                    let ntile = usize::from(nb.s) + usize::from(nb.t) * usize::from(np.order_s);
                    let mut found = None;
                    for nl in 0..3 {
                        let nti = np.tiles[ntile].tile[nl];
                        if nti == TILE_LAYER_EMPTY {
                            continue;
                        }
                        let nx = bank.xref(usize::from(nti)).ok_or_else(|| {
                            bad(format!("symmetrisation: tile {nti} is past the bank"))
                        })?;
                        if nx.set == Some(set) && nb.rotate == np.tiles[ntile].tile_orient(nl) {
                            found = Some(nl);
                            break;
                        }
                    }
                    match found {
                        Some(nl) if !(oriented && self.corner(nb.patch, ntile)) => {
                            let ns = self.tile_state(nb.patch, ntile, nl);
                            if ns == TileState::Nothing {
                                self.set_tile_state(nb.patch, ntile, nl, nb.state)?;
                                if cur.edge < 3 {
                                    cur.edge += 1;
                                    stack.push(cur);
                                }
                                cur = nb;
                            } else {
                                cur.edge += 1;
                            }
                        }
                        _ => cur.edge += 1,
                    }
                    if cur.edge >= 4 {
                        break;
                    }
                }
            }
        }
        Ok(())
    }
}

/// `CFillStackNode`.
#[derive(Debug, Clone, Copy)]
struct FillNode {
    patch: usize,
    s: u16,
    t: u16,
    edge: u8,
    rotate: u8,
    state: TileState,
}

/// The tile set of a tile the bank holds, `None` where NeL warns "unknown tileSet" (and
/// gives up on the patch).
fn known_set(bank: &BankXRef, tile: u16) -> Option<usize> {
    bank.xref(usize::from(tile))?
        .set
        .filter(|&s| s < bank.tile_set_count())
}

/// Tiles and colours the symmetrisation indexes must be there (build asserts the same).
fn check_tiles(i: usize, p: &PatchInfo) -> Result<(), ZoneBuildError> {
    let n = usize::from(p.order_s) * usize::from(p.order_t);
    if p.order_s == 0 || p.order_t == 0 || p.tiles.len() != n {
        return Err(ZoneBuildError::Count {
            patch: i,
            what: "tiles",
            got: p.tiles.len(),
            expected: n,
            order_s: p.order_s,
            order_t: p.order_t,
        });
    }
    Ok(())
}

/// The tiles along edge `i` of a patch, in NeL's walking order.
fn edge_tiles(p: &PatchInfo, i: usize) -> impl Iterator<Item = usize> {
    let (s, t) = (usize::from(p.order_s), usize::from(p.order_t));
    let (count, first, delta) = match i {
        0 => (t, 0, s),
        1 => (s, s * (t - 1), 1),
        2 => (t, s - 1, s),
        _ => (s, 0, 1),
    };
    (0..count).map(move |j| first + j * delta)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EdgeSnap {
    None,
    U,
    V,
    Both,
}

/// The grid indices of a patch's corners in the original space (`vertPosU/V`).
struct GridCorners {
    u: [i32; 4],
    v: [i32; 4],
}

impl GridCorners {
    fn new(p: &PatchInfo, snap_cell: f32, weld: f32, to_original: &Matrix) -> Self {
        let mut g = GridCorners {
            u: [NOT_SNAPPED; 4],
            v: [NOT_SNAPPED; 4],
        };
        for i in 0..4 {
            let o = to_original.mul_point(&p.patch.vertices[i]);
            let (mut u, mut v) = (o[0], o[1]);
            if snap_on_grid(&mut u, snap_cell, weld) {
                g.u[i] = ((u + 0.5) / snap_cell) as i32;
            }
            if snap_on_grid(&mut v, snap_cell, weld) {
                g.v[i] = ((v + 0.5) / snap_cell) as i32;
            }
        }
        g
    }

    /// Edge i (corner i to i+1) lies on a grid line of constant U, of constant V, both
    /// (degenerate: NeL gives up on the patch) or neither.
    fn edge_snap(&self, i: usize) -> EdgeSnap {
        let j = (i + 1) & 3;
        if self.u[i] == NOT_SNAPPED && self.v[i] == NOT_SNAPPED {
            return EdgeSnap::None;
        }
        let su = self.u[i] == self.u[j] && self.u[i] != NOT_SNAPPED;
        let sv = self.v[i] == self.v[j] && self.v[i] != NOT_SNAPPED;
        match (su, sv) {
            (true, true) => EdgeSnap::Both,
            (true, false) => EdgeSnap::U,
            (false, true) => EdgeSnap::V,
            (false, false) => EdgeSnap::None,
        }
    }
}

/// `CZoneSymmetrisation::snapOnGrid` (the same as `CZoneTemplate::snapOnGrid`): the
/// floor in double, rounded to float, then within `snap` of it or of the next line.
pub(crate) fn snap_on_grid(value: &mut f32, resolution: f32, snap: f32) -> bool {
    let floor = (f64::from(resolution) * (f64::from(*value / resolution)).floor()) as f32;
    let remainder = *value - floor;
    if remainder <= snap {
        *value = floor;
        true
    } else if resolution - remainder <= snap {
        *value = floor + resolution;
        true
    } else {
        false
    }
}

/// `CPatchInfo::getNeighborTile`: the tile across edge `edge` of patch `id` at `position`
/// (counted counter-clockwise along the edge), as (patch, s, t); `None` when the edge has
/// no neighbour or the neighbour's tiles do not line up with this one's.
pub fn neighbor_tile(
    id: usize,
    edge: usize,
    position: usize,
    patches: &[PatchInfo],
) -> Result<Option<(usize, usize, usize)>, ZoneBuildError> {
    let bad = |what: String| ZoneBuildError::Patch { patch: id, what };
    let me = &patches[id];
    let length = usize::from(if edge & 1 != 0 {
        me.order_s
    } else {
        me.order_t
    });
    let bind = &me.bind_edges[edge];
    let get = |p: u16| {
        patches
            .get(usize::from(p))
            .ok_or_else(|| bad(format!("edge {edge} binds patch {p}, past the zone")))
    };
    let place = |out: &PatchInfo, ne: u8, pos: usize| -> Result<(usize, usize), ZoneBuildError> {
        let (s, t) = (usize::from(out.order_s), usize::from(out.order_t));
        let r = match ne {
            0 => Some((0, pos)),
            1 => Some((pos, t - 1)),
            2 => (t > pos).then(|| (s - 1, t - pos - 1)),
            3 => (s > pos).then(|| (s - pos - 1, 0)),
            _ => None,
        };
        r.ok_or_else(|| bad(format!("edge {edge}: neighbour edge {ne} / position {pos}")))
    };
    match bind.n_patchs {
        n @ (1 | 2 | 4) => {
            let n = usize::from(n);
            let nlen = length / n;
            if nlen == 0 {
                return Err(bad(format!(
                    "edge {edge}: {n} neighbours along {length} tiles"
                )));
            }
            let neighbor = position / nlen;
            let npos = nlen - (position % nlen) - 1;
            let ne = bind.edge[neighbor];
            let out_id = bind.next[neighbor];
            let out = get(out_id)?;
            let real = usize::from(if ne & 1 != 0 {
                out.order_s
            } else {
                out.order_t
            });
            if real == nlen {
                let (s, t) = place(out, ne, npos)?;
                return Ok(Some((usize::from(out_id), s, t)));
            }
            Ok(None)
        }
        5 => {
            let out_id = bind.next[0];
            let ne = bind.edge[0];
            let out = get(out_id)?;
            let back = out
                .bind_edges
                .get(usize::from(ne))
                .ok_or_else(|| bad(format!("edge {edge}: neighbour edge {ne}")))?;
            let count = usize::from(back.n_patchs);
            let real = usize::from(if ne & 1 != 0 {
                out.order_s
            } else {
                out.order_t
            });
            if count == 0 {
                return Err(bad(format!(
                    "edge {edge}: neighbour edge {ne} binds nothing"
                )));
            }
            if real / count != length {
                return Ok(None);
            }
            let k = (0..count.min(4))
                .find(|&k| usize::from(back.next[k]) == id)
                .ok_or_else(|| bad(format!("edge {edge}: not found in its neighbour's binds")))?;
            let npos = ((k + 1) * (real / count))
                .checked_sub(position + 1)
                .ok_or_else(|| bad(format!("edge {edge}: position {position} past the edge")))?;
            let (s, t) = place(out, ne, npos)?;
            Ok(Some((usize::from(out_id), s, t)))
        }
        _ => Ok(None),
    }
}
