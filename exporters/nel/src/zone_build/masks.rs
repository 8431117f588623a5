//! Bytes a reference zone holds that no rule produces: what the 2004-era NeL left
//! uninitialised when the reference exporter built its zones (seed S003 l.299: "The
//! reference files still carry the garbage, so the comparator masks: CTileElement
//! empty-layer rotate bits + bit 15, CPatch::Flags outside the 0x3c smooth mask,
//! PackedLightFactor, unused CBindInfo slots (valid = NPatchs==5 ? 1 : NPatchs)").
//!
//! [`mask_uninitialised`] zeroes exactly those bits so two zones can be compared with
//! everything else exact.

use super::super::zone::{BindInfo, Zone};
use super::build::SMOOTH_FLAG_MASK;
use super::TILE_LAYER_EMPTY;

/// `CTileElement::Flags` bit 15: no field uses it.
const TILE_UNUSED_BIT: u16 = 0x8000;

/// Zeroes every bit of `zone` that the seed lists as uninitialised in reference zones.
pub fn mask_uninitialised(zone: &mut Zone) {
    for p in &mut zone.patches {
        if let Some(f) = &mut p.flags {
            *f &= SMOOTH_FLAG_MASK;
        }
        for t in &mut p.tiles {
            t.flags &= !TILE_UNUSED_BIT;
            for layer in 0..3 {
                if t.tile[layer] == TILE_LAYER_EMPTY {
                    t.set_tile_orient(layer, 0);
                }
            }
        }
        for tli in p.tile_light_influences.iter_mut().flatten() {
            if tli.light[0] == 0xff {
                tli.packed_light_factor = 0;
            }
        }
    }
    for c in &mut zone.patch_connects {
        for b in &mut c.bind_edges {
            mask_bind(b);
        }
    }
}

/// Slots of `Next`/`Edge` past the valid ones: NPatchs 5 ("I am one of the small
/// patches bound to a bigger one") uses slot 0 only, otherwise NPatchs slots.
fn mask_bind(b: &mut BindInfo) {
    let valid = if b.n_patchs == 5 {
        1
    } else {
        b.n_patchs as usize
    }
    .min(4);
    for i in valid..4 {
        b.next[i] = 0;
        b.edge[i] = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zone::{Patch, PatchConnect, TileElement, TileLightInfluence};

    #[test]
    fn only_the_listed_bits_are_masked() {
        let mut z = Zone::default();
        z.patches.push(Patch {
            flags: Some(0xff),
            tiles: vec![TileElement {
                flags: 0xffff,
                tile: [12, TILE_LAYER_EMPTY, TILE_LAYER_EMPTY],
            }],
            tile_light_influences: Some(vec![
                TileLightInfluence {
                    light: [0xff, 0xff],
                    packed_light_factor: 0x5a,
                },
                TileLightInfluence {
                    light: [1, 0xff],
                    packed_light_factor: 0x5a,
                },
            ]),
            ..Default::default()
        });
        let bind = |n| BindInfo {
            version: 0,
            n_patchs: n,
            zone_id: 7,
            next: [1, 2, 3, 4],
            edge: [1, 2, 3, 0],
        };
        z.patch_connects.push(PatchConnect {
            bind_edges: [bind(0), bind(2), bind(5), bind(4)],
            ..Default::default()
        });
        mask_uninitialised(&mut z);
        let p = &z.patches[0];
        assert_eq!(p.flags, Some(0x3c));
        // Layer 0 keeps its rotation (bits 0-1); layers 1, 2 (bits 2-5) and bit 15 go.
        assert_eq!(p.tiles[0].flags, 0x7fc3);
        let tli = p.tile_light_influences.as_ref().unwrap();
        assert_eq!(tli[0].packed_light_factor, 0);
        assert_eq!(tli[1].packed_light_factor, 0x5a);
        let b = &z.patch_connects[0].bind_edges;
        assert_eq!((b[0].next, b[0].edge), ([0; 4], [0; 4]));
        assert_eq!((b[1].next, b[1].edge), ([1, 2, 0, 0], [1, 2, 0, 0]));
        assert_eq!((b[2].next, b[2].edge), ([1, 0, 0, 0], [1, 0, 0, 0]));
        assert_eq!((b[3].next, b[3].edge), ([1, 2, 3, 4], [1, 2, 3, 0]));
        assert_eq!(b[1].zone_id, 7);
    }
}
