//! `CTileElement` bit fields (NeL `tile_element.h`): per-layer rotation, the 256×256 tile
//! UV info, the sub-noise index and the micro-vegetation state, all packed in `Flags`.

use super::TileElement;

/// `NL_TILE_ELM_LAYER_EMPTY`: a layer without a tile.
pub const TILE_LAYER_EMPTY: u16 = 0xffff;

const ROTATE_MASK: u16 = 0x03;
const ROTATE_SIZE: u16 = 2;
const UVINFO_MASK: u16 = 0x07;
const UVINFO_OFFSET: u16 = 6;
const SUBNOISE_MASK: u16 = 0x0f;
const SUBNOISE_OFFSET: u16 = 9;
const VEGETABLE_MASK: u16 = 0x03;
const VEGETABLE_OFFSET: u16 = 13;

/// `CTileElement::TVegetableInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VegetableState {
    AboveWater = 0,
    UnderWater = 1,
    IntersectWater = 2,
    Disabled = 3,
}

impl TileElement {
    /// `getTileOrient(layer)`: rotation of layer 0..2, in quarter turns.
    pub fn tile_orient(&self, layer: usize) -> u8 {
        let at = ROTATE_SIZE * (layer.min(2) as u16);
        ((self.flags >> at) & ROTATE_MASK) as u8
    }
    /// `setTileOrient(layer, orient)`.
    pub fn set_tile_orient(&mut self, layer: usize, orient: u8) {
        let at = ROTATE_SIZE * (layer.min(2) as u16);
        self.flags = (self.flags & !(ROTATE_MASK << at)) | ((orient as u16 & ROTATE_MASK) << at);
    }
    /// `getTile256Info`: (is 256×256, UV offset 0..3).
    pub fn tile_256_info(&self) -> (bool, u8) {
        let info = (self.flags >> UVINFO_OFFSET) & UVINFO_MASK;
        (info & 4 != 0, (info & 3) as u8)
    }
    /// `setTile256Info`.
    pub fn set_tile_256_info(&mut self, is256: bool, uv_off: u8) {
        let info = (uv_off as u16 & 3) + if is256 { 4 } else { 0 };
        self.flags = (self.flags & !(UVINFO_MASK << UVINFO_OFFSET)) | (info << UVINFO_OFFSET);
    }
    /// `getTileSubNoise`.
    pub fn tile_sub_noise(&self) -> u8 {
        ((self.flags >> SUBNOISE_OFFSET) & SUBNOISE_MASK) as u8
    }
    /// `setTileSubNoise`.
    pub fn set_tile_sub_noise(&mut self, sub_noise: u8) {
        self.flags = (self.flags & !(SUBNOISE_MASK << SUBNOISE_OFFSET))
            | ((sub_noise as u16 & SUBNOISE_MASK) << SUBNOISE_OFFSET);
    }
    /// `getVegetableState`.
    pub fn vegetable_state(&self) -> VegetableState {
        match (self.flags >> VEGETABLE_OFFSET) & VEGETABLE_MASK {
            0 => VegetableState::AboveWater,
            1 => VegetableState::UnderWater,
            2 => VegetableState::IntersectWater,
            _ => VegetableState::Disabled,
        }
    }
    /// `setVegetableState`.
    pub fn set_vegetable_state(&mut self, state: VegetableState) {
        let mask = VEGETABLE_MASK << VEGETABLE_OFFSET;
        self.flags = (self.flags & !mask) | ((state as u16) << VEGETABLE_OFFSET);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit positions from NeL tile_element.h: rotate 2 bits per layer at 0, UV info 3 bits
    /// at 6, sub-noise 4 bits at 9, vegetable 2 bits at 13.
    #[test]
    fn fields_sit_where_nel_puts_them() {
        let mut t = TileElement::default();
        t.set_tile_orient(2, 3);
        assert_eq!(t.flags, 3 << 4);
        t.set_tile_256_info(true, 2);
        assert_eq!(t.flags, (3 << 4) | (6 << 6));
        t.set_tile_sub_noise(15);
        assert_eq!(t.flags, (3 << 4) | (6 << 6) | (15 << 9));
        t.set_vegetable_state(VegetableState::IntersectWater);
        assert_eq!(t.flags, (3 << 4) | (6 << 6) | (15 << 9) | (2 << 13));
        assert_eq!(t.tile_orient(2), 3);
        assert_eq!(t.tile_256_info(), (true, 2));
        assert_eq!(t.tile_sub_noise(), 15);
        assert_eq!(t.vegetable_state(), VegetableState::IntersectWater);
    }
}
