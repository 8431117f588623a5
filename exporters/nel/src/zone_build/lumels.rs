//! The compressed shadow map of a patch (`CPatch::packShadowMap` / `unpackShadowMap`):
//! 4×4 lumel blocks of 8 bytes, two alpha end points and sixteen 3-bit codes, like a DXT5
//! alpha block.
//!
//! NeL decompresses with two different interpolation tables: the block unpacker (used by
//! `unpackShadowMap` and by the packer's error estimate) multiplies by 256ths and shifts,
//! while the packer's candidate values divide by 7 or 5. Both are kept as NeL has them,
//! since the choice between the two end-point orders depends on them.

/// Bytes of one compressed 4×4 block (`NL_BLOCK_LUMEL_COMPRESSED_SIZE`).
const BLOCK: usize = 8;
/// Lumels along a tile edge (`NL_LUMEL_BY_TILE`).
const LUMEL_BY_TILE: usize = 4;

/// Weights of the packer's candidate values (`NL3DDecompressLumelFactor*`).
const F0_CASE0: [u32; 8] = [7, 0, 6, 5, 4, 3, 2, 1];
const F1_CASE0: [u32; 8] = [0, 7, 1, 2, 3, 4, 5, 6];
const F0_CASE1: [u32; 6] = [5, 0, 4, 3, 2, 1];
const F1_CASE1: [u32; 6] = [0, 5, 1, 2, 3, 4];

/// Blocks along S and T for a patch of this order.
fn blocks(order_s: u8, order_t: u8) -> (usize, usize) {
    (order_s as usize, order_t as usize)
}

/// `CPatch::resetCompressedLumels`: every block zero (no shadow).
pub(crate) fn reset_compressed_lumels(order_s: u8, order_t: u8) -> Vec<u8> {
    let (bs, bt) = blocks(order_s, order_t);
    vec![0; bs * bt * BLOCK]
}

/// `CPatch::unpackLumelBlock`: sixteen lumels from one 8-byte block.
fn unpack_block(src: &[u8; BLOCK]) -> [u8; 16] {
    let (a0, a1) = (src[0] as u32, src[1] as u32);
    let v = |w0: u32, w1: u32| ((a0 * w0 + a1 * w1) >> 8) as u8;
    let values: [u8; 8] = if a0 > a1 {
        [
            a0 as u8,
            a1 as u8,
            v(219, 37),
            v(183, 73),
            v(146, 110),
            v(110, 146),
            v(73, 183),
            v(37, 219),
        ]
    } else {
        [
            a0 as u8,
            a1 as u8,
            v(205, 51),
            v(154, 102),
            v(102, 154),
            v(51, 205),
            0,
            255,
        ]
    };
    let mut out = [0u8; 16];
    for half in 0..2 {
        let b = &src[2 + half * 3..5 + half * 3];
        let mut bits = ((b[0] as u32) << 16) | ((b[1] as u32) << 8) | b[2] as u32;
        for k in 0..8 {
            out[half * 8 + k] = values[((bits >> 21) & 7) as usize];
            bits <<= 3;
        }
    }
    out
}

/// `CPatch::packLumelBlock` with the given end points.
fn pack_block(source: &[u8; 16], alpha0: u8, alpha1: u8) -> [u8; BLOCK] {
    let (a0, a1) = (alpha0 as u32, alpha1 as u32);
    let mut value = [0u8; 8];
    for (i, v) in value.iter_mut().enumerate() {
        *v = if a0 > a1 {
            ((F0_CASE0[i] * a0 + F1_CASE0[i] * a1) / 7) as u8
        } else if i < 6 {
            ((F0_CASE1[i] * a0 + F1_CASE1[i] * a1) / 5) as u8
        } else if i == 6 {
            0
        } else {
            255
        };
    }
    let mut dest = [0u8; BLOCK];
    dest[0] = alpha0;
    dest[1] = alpha1;
    // Sixteen 3-bit codes, most significant first, from byte 2 on.
    for (i, &s) in source.iter().enumerate() {
        let mut best_dist = u32::MAX;
        let mut best = 0u32;
        for (code, &v) in value.iter().enumerate() {
            let dist = (s as i32 - v as i32).unsigned_abs();
            if dist < best_dist {
                best_dist = dist;
                best = code as u32;
            }
            if dist == 0 {
                break;
            }
        }
        let bit = i * 3;
        let word =
            ((dest[2 + bit / 8] as u32) << 8) | dest.get(3 + bit / 8).copied().unwrap_or(0) as u32;
        let word = word | (best << (13 - bit % 8));
        dest[2 + bit / 8] = (word >> 8) as u8;
        if let Some(next) = dest.get_mut(3 + bit / 8) {
            *next = word as u8;
        }
    }
    dest
}

/// `CPatch::evalLumelBlock`: summed absolute error.
fn eval_block(original: &[u8; 16], unpacked: &[u8; 16]) -> u32 {
    original
        .iter()
        .zip(unpacked)
        .map(|(&a, &b)| (a as i32 - b as i32).unsigned_abs())
        .sum()
}

/// `CPatch::packShadowMap`: `lumels` holds (order_s·4)×(order_t·4) values, line first.
/// Each block is packed with (min, max) and with (max, min) end points and the one that
/// unpacks closer to the source is kept (the first on a tie).
pub(crate) fn pack_shadow_map(lumels: &[u8], order_s: u8, order_t: u8) -> Vec<u8> {
    let (bs, bt) = blocks(order_s, order_t);
    let width = bs * LUMEL_BY_TILE;
    let mut out = Vec::with_capacity(bs * bt * BLOCK);
    for by in 0..bt {
        for bx in 0..bs {
            let mut block = [0u8; 16];
            for v in 0..4 {
                for u in 0..4 {
                    let idx = (by * 4 + v) * width + bx * 4 + u;
                    block[v * 4 + u] = lumels.get(idx).copied().unwrap_or(0);
                }
            }
            let lo = block.iter().copied().min().unwrap_or(0);
            let hi = block.iter().copied().max().unwrap_or(0);
            let first = pack_block(&block, lo, hi);
            let e1 = eval_block(&block, &unpack_block(&first));
            let second = pack_block(&block, hi, lo);
            let e2 = eval_block(&block, &unpack_block(&second));
            out.extend_from_slice(if e2 < e1 { &second } else { &first });
        }
    }
    out
}

/// A compressed shadow map whose size does not match its patch's order.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("compressed lumels hold {got} bytes, expected {expected} for order {order_s}x{order_t}")]
pub(crate) struct LumelSizeError {
    got: usize,
    expected: usize,
    order_s: u8,
    order_t: u8,
}

/// `CPatch::unpackShadowMap`: (order_s·4)×(order_t·4) lumels, line first. A compressed
/// buffer of the wrong size is refused (NeL would read past it).
pub(crate) fn unpack_shadow_map(
    compressed: &[u8],
    order_s: u8,
    order_t: u8,
) -> Result<Vec<u8>, LumelSizeError> {
    let (bs, bt) = blocks(order_s, order_t);
    let expected = bs * bt * BLOCK;
    if compressed.len() != expected {
        return Err(LumelSizeError {
            got: compressed.len(),
            expected,
            order_s,
            order_t,
        });
    }
    let width = bs * LUMEL_BY_TILE;
    let mut out = vec![0u8; width * bt * LUMEL_BY_TILE];
    for (n, chunk) in compressed.chunks_exact(BLOCK).enumerate() {
        let (by, bx) = (n / bs, n % bs);
        let mut b = [0u8; BLOCK];
        b.copy_from_slice(chunk);
        let block = unpack_block(&b);
        for v in 0..4 {
            for u in 0..4 {
                out[(by * 4 + v) * width + bx * 4 + u] = block[v * 4 + u];
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NeL's packer writes code i of 16 at bit 3·i from the top of byte 2 on; the block
    /// unpacker reads them back in the same order (two 24-bit halves).
    #[test]
    fn codes_are_written_where_the_unpacker_reads_them() {
        // Alpha 0 > alpha 1: value[code] hits each code once with these sources.
        let (a0, a1) = (210u8, 0u8);
        let mut src = [0u8; 16];
        for (i, s) in src.iter_mut().enumerate() {
            let code = i % 8;
            *s = ((F0_CASE0[code] * a0 as u32 + F1_CASE0[code] * a1 as u32) / 7) as u8;
        }
        let packed = pack_block(&src, a0, a1);
        // 0,1,2,...,7,0,1,...,7 as 3-bit codes: 000 001 010 011 100 101 110 111 twice.
        assert_eq!(
            &packed[2..],
            &[
                0b0000_0101,
                0b0011_1001,
                0b0111_0111,
                0b0000_0101,
                0b0011_1001,
                0b0111_0111
            ]
        );
    }

    #[test]
    fn flat_maps_survive_pack_and_unpack() {
        for level in [0u8, 17, 128, 255] {
            let lumels = vec![level; (2 * 4) * (4 * 4)];
            let packed = pack_shadow_map(&lumels, 2, 4);
            assert_eq!(packed.len(), 2 * 4 * BLOCK);
            assert_eq!(unpack_shadow_map(&packed, 2, 4).unwrap(), lumels);
        }
    }

    #[test]
    fn wrong_sizes_are_refused() {
        assert!(unpack_shadow_map(&[0; 7], 2, 2).is_err());
        assert_eq!(reset_compressed_lumels(2, 2).len(), 32);
    }
}
