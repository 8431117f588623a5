//! What the zone symmetrisation asks of a tile bank (NeL tile_bank.cpp): the cross
//! reference from a tile number to its tile set, number and kind (`computeXRef`), whether a
//! set is oriented, and the 48 transition tiles with their border flags.

use super::super::bank::TileBank;
use super::ZoneBuildError;

/// `CTileBank::TTileType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileType {
    Tile128,
    Tile256,
    Transition,
}

/// `CTileSet::TFlagBorder` (`_1111 = 0, _0111, _1110, _0001, _1000, _0000`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagBorder {
    B1111,
    B0111,
    B1110,
    B0001,
    B1000,
    B0000,
}

use FlagBorder::*;

/// `CTileSet::TBorder`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Border {
    Top = 0,
    Bottom = 1,
    Left = 2,
    Right = 3,
}

/// `CTileSet::_TransitionFlags`: top, bottom, left, right of each of the 48 transitions.
const TRANSITION_FLAGS: [[FlagBorder; 4]; 48] = [
    [B0000, B1111, B0111, B0111],
    [B0111, B1111, B0111, B1111],
    [B0000, B0111, B0000, B0111],
    [B1110, B1110, B1111, B0000],
    [B1110, B1111, B1111, B0111],
    [B0000, B1110, B0111, B0000],
    [B0000, B1111, B0001, B0001],
    [B0000, B1000, B0001, B0000],
    [B1111, B1000, B1111, B1000],
    [B1000, B1000, B1111, B0000],
    [B1000, B0000, B1000, B0000],
    [B1111, B0001, B1000, B1111],
    [B0000, B1111, B0111, B0001],
    [B0000, B1111, B0001, B0111],
    [B0111, B1111, B0001, B1111],
    [B1110, B1000, B1111, B0000],
    [B1000, B1110, B1111, B0000],
    [B1111, B0001, B1110, B1111],
    [B1000, B0000, B1110, B0000],
    [B0000, B0111, B0000, B0001],
    [B1111, B1000, B1111, B1110],
    [B0111, B0000, B0000, B1000],
    [B0000, B1000, B0111, B0000],
    [B1111, B0111, B1000, B1111],
    [B1111, B0000, B1110, B1110],
    [B1111, B1110, B1111, B1110],
    [B1110, B0000, B1110, B0000],
    [B0111, B0111, B0000, B1111],
    [B1111, B0111, B1110, B1111],
    [B0111, B0000, B0000, B1110],
    [B1111, B0000, B1000, B1000],
    [B0001, B0000, B0000, B1000],
    [B0001, B1111, B0001, B1111],
    [B0001, B0001, B0000, B1111],
    [B0000, B0001, B0000, B0001],
    [B1000, B1111, B1111, B0001],
    [B1111, B0000, B1000, B1110],
    [B1111, B0000, B1110, B1000],
    [B1000, B1111, B1111, B0111],
    [B0001, B0111, B0000, B1111],
    [B0111, B0001, B0000, B1111],
    [B1111, B1110, B1111, B1000],
    [B0000, B0001, B0000, B0111],
    [B1110, B0000, B1000, B0000],
    [B0001, B1111, B0111, B1111],
    [B0000, B1110, B0001, B0000],
    [B0001, B0000, B0000, B1110],
    [B1110, B1111, B1111, B0001],
];

/// `CTileSet::getEdgeType`.
pub fn edge_type(transition: usize, where_: Border) -> FlagBorder {
    TRANSITION_FLAGS[transition % 48][where_ as usize]
}

/// `CTileSet::getInvertBorder`: the border read the other way.
pub fn invert_border(b: FlagBorder) -> FlagBorder {
    match b {
        B0001 => B1000,
        B0111 => B1110,
        B1000 => B0001,
        B1110 => B0111,
        other => other,
    }
}

/// `CTileSet::getOrientedBorder`: top and right borders are read inverted.
pub fn oriented_border(where_: Border, b: FlagBorder) -> FlagBorder {
    match where_ {
        Border::Left | Border::Bottom => b,
        Border::Top | Border::Right => invert_border(b),
    }
}

/// `CTileSet::getTransitionTile`: the first transition with these four borders.
pub fn transition_tile(
    top: FlagBorder,
    bottom: FlagBorder,
    left: FlagBorder,
    right: FlagBorder,
) -> Option<usize> {
    TRANSITION_FLAGS
        .iter()
        .position(|f| f == &[top, bottom, left, right])
}

/// One tile's cross reference (`CTileBank::CTileXRef`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileXRef {
    /// Tile set index; `None` for a tile no set lists (NeL's -1).
    pub set: Option<usize>,
    pub number: usize,
    pub kind: TileType,
}

/// The bank reduced to what zone transforms need.
#[derive(Debug, Clone, Default)]
pub struct BankXRef {
    xref: Vec<TileXRef>,
    /// `CTileSet::getOriented` of each set.
    oriented: Vec<bool>,
    /// The 48 transition tile numbers of each set.
    transitions: Vec<Vec<i32>>,
}

impl BankXRef {
    /// `CTileBank::computeXRef`: sets in order, 128 tiles, 256 tiles then transitions,
    /// a later listing overriding an earlier one. A set naming a tile the bank does not
    /// hold is refused (NeL would write out of its array).
    pub fn new(bank: &TileBank) -> Result<Self, ZoneBuildError> {
        let n = bank.tiles.len();
        let mut xref = vec![
            TileXRef {
                set: None,
                number: 0,
                kind: TileType::Tile128,
            };
            n
        ];
        let mut transitions = Vec::with_capacity(bank.tile_sets.len());
        for (s, set) in bank.tile_sets.iter().enumerate() {
            let lists = [
                (TileType::Tile128, set.tile128.clone()),
                (TileType::Tile256, set.tile256.clone()),
                (
                    TileType::Transition,
                    set.transitions.iter().map(|t| t.tile).collect(),
                ),
            ];
            for (kind, list) in &lists {
                for (number, &tile) in list.iter().enumerate() {
                    let slot = usize::try_from(tile)
                        .ok()
                        .and_then(|t| xref.get_mut(t))
                        .ok_or_else(|| {
                            ZoneBuildError::Bank(format!(
                                "tile set {s} ({:?}) lists tile {tile}, the bank holds {n}",
                                set.name
                            ))
                        })?;
                    *slot = TileXRef {
                        set: Some(s),
                        number,
                        kind: *kind,
                    };
                }
            }
            transitions.push(lists[2].1.clone());
        }
        Ok(BankXRef {
            xref,
            oriented: bank
                .tile_sets
                .iter()
                .map(|s| s.oriented.is_some_and(|b| b.0 != 0))
                .collect(),
            transitions,
        })
    }

    /// `getTileCount`.
    pub fn tile_count(&self) -> usize {
        self.xref.len()
    }

    /// `getTileSetCount`.
    pub fn tile_set_count(&self) -> usize {
        self.oriented.len()
    }

    /// `getTileXRef`; `None` past the bank (NeL asserts).
    pub fn xref(&self, tile: usize) -> Option<TileXRef> {
        self.xref.get(tile).copied()
    }

    /// `getTileSet(set)->getOriented()`.
    pub fn oriented(&self, set: usize) -> bool {
        self.oriented.get(set).copied().unwrap_or(false)
    }

    /// `getTileSet(set)->getTransition(t)->getTile()`.
    pub fn transition(&self, set: usize, t: usize) -> Option<i32> {
        self.transitions.get(set)?.get(t).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// tile_bank.cpp: every transition's borders find itself first (the table has no
    /// duplicate rows), and inverting twice is the identity.
    #[test]
    fn transition_table_is_a_bijection() {
        for (t, f) in TRANSITION_FLAGS.iter().enumerate() {
            assert_eq!(transition_tile(f[0], f[1], f[2], f[3]), Some(t));
            for b in f {
                assert_eq!(invert_border(invert_border(*b)), *b);
            }
        }
        assert_eq!(transition_tile(B1111, B1111, B1111, B1111), None);
    }
}
