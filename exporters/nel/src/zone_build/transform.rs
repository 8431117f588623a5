//! `CPatchInfo::transform` (NeL 3d/zone.cpp): what a mirrored and/or turned zone needs
//! besides its moved vertices. A mirror reverses every patch (corners 0↔3, 1↔2, tangents,
//! interiors, tile colours and tile columns, smooth flags, bind lists and base vertices);
//! then every tile layer is turned (and for transition tiles, replaced by the transition
//! whose borders match after the turn) and the 256×256 quarter moved, through the tile
//! bank and the goofy/regular state of `CZoneSymmetrisation`.
//!
//! The vertices themselves are not moved here: the caller has already put them through the
//! mirrored / turned transform (the node's object TM in the exporter).

use super::matrix::Matrix;
use super::symmetrisation::{TileState, ZoneSymmetrisation};
use super::tile_bank::{
    edge_type, invert_border, oriented_border, transition_tile, BankXRef, Border, TileType,
};
use super::{PatchInfo, ZoneBuildError, TILE_LAYER_EMPTY};

/// How a zone is transformed: an optional mirror, then `rotate` quarter turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ZoneTransform {
    pub symmetry: bool,
    pub rotate: u32,
}

impl ZoneTransform {
    /// The `toOriginalSpace` matrix `RPatchMesh::exportZone` computes (rpo2nel.cpp):
    /// `(scale(1,-1,1) · rotateZ(π·rotate/2))⁻¹`, in NeL's float and double steps.
    pub fn to_original_space(&self) -> Matrix {
        let mut sym = Matrix::IDENTITY;
        if self.symmetry {
            sym.scale([1.0, -1.0, 1.0]);
        }
        let mut rot = Matrix::IDENTITY;
        rot.rotate_z(std::f32::consts::PI * self.rotate as f32 / 2.0);
        Matrix::mul(&sym, &rot).inverted()
    }

    /// The transform itself (the inverse of [`Self::to_original_space`] as NeL builds it).
    pub fn matrix(&self) -> Matrix {
        let mut sym = Matrix::IDENTITY;
        if self.symmetry {
            sym.scale([1.0, -1.0, 1.0]);
        }
        let mut rot = Matrix::IDENTITY;
        rot.rotate_z(std::f32::consts::PI * self.rotate as f32 / 2.0);
        Matrix::mul(&sym, &rot)
    }
}

/// `CPatchInfo::transform(patchInfo, zoneSymmetry, bank, symmetry, rotate, snapCell,
/// weldThreshold, toOriginalSpace)`. Returns the symmetrisation it built (its `errors` are
/// the patches NeL reports but does not refuse). An `Err` is where NeL returns false or
/// would read past its arrays.
pub fn transform(
    patches: &mut [PatchInfo],
    bank: &BankXRef,
    how: ZoneTransform,
    snap_cell: f32,
    weld_threshold: f32,
    to_original_space: &Matrix,
) -> Result<ZoneSymmetrisation, ZoneBuildError> {
    let zs =
        ZoneSymmetrisation::build(patches, snap_cell, weld_threshold, bank, to_original_space)?;
    let (symmetry, rotate) = (how.symmetry, how.rotate);
    if symmetry {
        for (i, pi) in patches.iter_mut().enumerate() {
            mirror_patch(i, pi)?;
        }
    }
    for (i, pi) in patches.iter_mut().enumerate() {
        let (s, t) = (usize::from(pi.order_s), usize::from(pi.order_t));
        let tiles = pi.tiles.clone();
        for v in 0..t {
            for u in 0..s {
                let u_sym = if symmetry { s - u - 1 } else { u };
                let src = u_sym + v * s;
                let mut el = tiles[src].clone();
                for l in 0..3 {
                    if el.tile[l] == TILE_LAYER_EMPTY {
                        continue;
                    }
                    let mut tile = u32::from(el.tile[l]);
                    let mut rotation = u32::from(el.tile_orient(l));
                    let goofy = symmetry && zs.tile_state(i, src, l) == TileState::Goofy;
                    let mut tile_rotate = rotate;
                    let fail = || ZoneBuildError::Patch {
                        patch: i,
                        what: format!(
                            "tile {} of layer {l}: no symmetrical / rotated tile in the bank",
                            el.tile[l]
                        ),
                    };
                    if !tile_symmetry_rotate(bank, tile, symmetry, &mut tile_rotate) {
                        return Err(fail());
                    }
                    transform_tile(
                        bank,
                        &mut tile,
                        &mut rotation,
                        symmetry,
                        4u32.wrapping_sub(tile_rotate) & 3,
                        goofy,
                    )
                    .ok_or_else(fail)?;
                    el.tile[l] = tile as u16;
                    el.set_tile_orient(l, rotation as u8);
                }
                if el.tile[0] != TILE_LAYER_EMPTY {
                    let (is256, mut uv_off) = el.tile_256_info();
                    if is256 {
                        let mut tile_rotate = rotate;
                        let rotation = u32::from(tiles[src].tile_orient(0));
                        let goofy = symmetry && zs.tile_state(i, src, 0) == TileState::Goofy;
                        tile_symmetry_rotate(
                            bank,
                            u32::from(el.tile[0]),
                            symmetry,
                            &mut tile_rotate,
                        );
                        transform_256_case(
                            &mut uv_off,
                            rotation,
                            symmetry,
                            4u32.wrapping_sub(tile_rotate) & 3,
                            goofy,
                        );
                        el.set_tile_256_info(true, uv_off);
                    }
                }
                pi.tiles[u + v * s] = el;
            }
        }
    }
    Ok(zs)
}

/// The mirror part of `transform` for one patch.
fn mirror_patch(i: usize, pi: &mut PatchInfo) -> Result<(), ZoneBuildError> {
    let p = &mut pi.patch;
    p.vertices.swap(0, 3);
    p.vertices.swap(1, 2);
    p.tangents.swap(0, 5);
    p.tangents.swap(1, 4);
    p.tangents.swap(2, 3);
    p.tangents.swap(6, 7);
    p.interiors.swap(0, 3);
    p.interiors.swap(1, 2);
    let (s, t) = (usize::from(pi.order_s), usize::from(pi.order_t));
    if pi.tile_colors.len() < (s + 1) * (t + 1) {
        return Err(ZoneBuildError::Count {
            patch: i,
            what: "tile colors",
            got: pi.tile_colors.len(),
            expected: (s + 1) * (t + 1),
            order_s: pi.order_s,
            order_t: pi.order_t,
        });
    }
    for v in 0..t + 1 {
        for u in 0..s / 2 + 1 {
            pi.tile_colors.swap(u + v * (s + 1), (s - u) + v * (s + 1));
        }
    }
    // NeL swaps the smooth flags of edges 0 and 2 into a value holding all four, but
    // clears only bits 0 and 1 before or-ing it in: bit 2 keeps its old value as well.
    let f = |e: usize| u8::from(pi.smooth_flag(e));
    let flags = (f(0) << 2) | f(2) | (f(1) << 1) | (f(3) << 3);
    pi.flags &= !3;
    pi.flags |= flags;
    pi.bind_edges.swap(0, 2);
    pi.base_vertices.swap(0, 3);
    pi.base_vertices.swap(1, 2);
    for (e, b) in pi.bind_edges.iter_mut().enumerate() {
        let n = usize::from(b.n_patchs);
        if n > 1 && n != 5 {
            if n > 4 {
                return Err(ZoneBuildError::Patch {
                    patch: i,
                    what: format!("edge {e} binds {n} patches (at most 4, or 5)"),
                });
            }
            b.next[..n].reverse();
            b.edge[..n].reverse();
        }
        let count = if n == 5 { 1 } else { n.min(4) };
        for k in 0..count {
            if b.edge[k] & 1 == 0 {
                b.edge[k] = (b.edge[k] + 2) & 3;
            }
        }
    }
    Ok(())
}

/// `CPatchInfo::getTileSymmetryRotate`: an oriented tile set keeps its rotation (the
/// rotation to apply becomes 0); false for a tile the bank does not know.
pub fn tile_symmetry_rotate(bank: &BankXRef, tile: u32, symmetry: bool, rotate: &mut u32) -> bool {
    if !(symmetry || *rotate != 0) {
        return true;
    }
    let Some(x) = bank.xref(tile as usize) else {
        return false;
    };
    let Some(set) = x.set.filter(|&s| s < bank.tile_set_count()) else {
        return false;
    };
    if bank.oriented(set) {
        *rotate = 0;
    }
    true
}

/// `CPatchInfo::transformTile`: a transition tile becomes the transition whose borders
/// match after the mirror and turn; every tile's rotation turns by `rotate` (plus a half
/// turn for a mirrored goofy tile). `None` where NeL returns false or finds no transition.
pub fn transform_tile(
    bank: &BankXRef,
    tile: &mut u32,
    rotation: &mut u32,
    symmetry: bool,
    rotate: u32,
    goofy: bool,
) -> Option<()> {
    if rotate == 0 && !symmetry {
        return Some(());
    }
    let x = bank.xref(*tile as usize)?;
    if x.kind == TileType::Transition {
        let set = x.set?;
        let number = x.number;
        let o = |b: Border| oriented_border(b, edge_type(number, b));
        let mut oriented = [
            o(Border::Left),
            o(Border::Bottom),
            o(Border::Right),
            o(Border::Top),
        ];
        if symmetry {
            if ((*rotation & 1) != 0) ^ goofy {
                let tmp = oriented[1];
                oriented[1] = invert_border(oriented[3]);
                oriented[3] = invert_border(tmp);
                oriented[2] = invert_border(oriented[2]);
                oriented[0] = invert_border(oriented[0]);
            } else {
                let tmp = oriented[0];
                oriented[0] = invert_border(oriented[2]);
                oriented[2] = invert_border(tmp);
                oriented[1] = invert_border(oriented[1]);
                oriented[3] = invert_border(oriented[3]);
            }
        }
        let r = rotate as usize;
        let edges = [
            oriented_border(Border::Left, oriented[r & 3]),
            oriented_border(Border::Bottom, oriented[(1 + r) & 3]),
            oriented_border(Border::Right, oriented[(2 + r) & 3]),
            oriented_border(Border::Top, oriented[(3 + r) & 3]),
        ];
        let t = transition_tile(edges[3], edges[1], edges[0], edges[2])?;
        *tile = u32::try_from(bank.transition(set, t)?).ok()?;
    }
    *rotation += rotate;
    if goofy && symmetry {
        *rotation += 2;
    }
    *rotation &= 3;
    Some(())
}

/// `CPatchInfo::transform256Case`: which quarter of a 256×256 tile a tile shows after the
/// mirror and turn.
pub fn transform_256_case(
    case256: &mut u8,
    rotation: u32,
    symmetry: bool,
    rotate: u32,
    goofy: bool,
) {
    if rotate == 0 && !symmetry {
        return;
    }
    if symmetry {
        *case256 = [3u8, 2, 1, 0][usize::from(*case256 & 3)];
        if goofy && rotation & 1 == 0 {
            *case256 += 2;
        }
        if !goofy && rotation & 1 != 0 {
            *case256 += 2;
        }
    }
    *case256 = case256.wrapping_sub(rotate as u8) & 3;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zone_build::BindInfo;

    /// zone.cpp `CPatchInfo::transform`: the mirror swaps edges 0 and 2 into bits 0..3 but
    /// clears only bits 0 and 1, so an old edge-2 flag survives in bit 2; a 1:2 bind list
    /// is reversed and even neighbour edges turn by two.
    #[test]
    fn mirror_keeps_nels_flag_quirk_and_reverses_binds() {
        let mut pi = PatchInfo {
            order_s: 2,
            order_t: 2,
            tile_colors: vec![Default::default(); 9],
            flags: 0b0100,
            ..Default::default()
        };
        pi.bind_edges[1] = BindInfo {
            n_patchs: 2,
            next: [7, 8, 0, 0],
            edge: [0, 3, 0, 0],
            ..Default::default()
        };
        mirror_patch(0, &mut pi).unwrap();
        // Edge 2's flag moves to bit 0 and stays in bit 2.
        assert_eq!(pi.flags, 0b0101);
        assert_eq!(pi.bind_edges[1].next[..2], [8, 7]);
        assert_eq!(pi.bind_edges[1].edge[..2], [3, 2]);
        let mut bad = pi.clone();
        bad.bind_edges[3].n_patchs = 6;
        assert!(mirror_patch(0, &mut bad).is_err());
    }

    /// transform256Case: the mirror maps quarter c to 3-c (plus two for a goofy even or a
    /// regular odd rotation), then each quarter turn subtracts one.
    #[test]
    fn case_256_follows_mirror_then_turn() {
        let run = |c: u8, rotation, sym, rot, goofy| {
            let mut c = c;
            transform_256_case(&mut c, rotation, sym, rot, goofy);
            c
        };
        assert_eq!(run(1, 0, false, 0, false), 1);
        assert_eq!(run(1, 0, false, 1, false), 0);
        assert_eq!(run(0, 0, false, 1, false), 3);
        assert_eq!(run(0, 0, true, 0, false), 3);
        assert_eq!(run(0, 1, true, 0, false), 1);
        assert_eq!(run(0, 0, true, 0, true), 1);
        assert_eq!(run(2, 1, true, 3, true), (1u8.wrapping_sub(3)) & 3);
    }
}
