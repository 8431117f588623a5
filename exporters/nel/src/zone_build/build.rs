//! `CZone::build` and `CZone::retrieve`: patch descriptions to the stored zone and back.
//!
//! Float arithmetic follows NeL operation by operation (single precision, same order), so
//! the bounding box, bias, scale and packed coordinates come out bit-identical to what
//! NeL computes on an SSE build.

use super::super::ig::PointLightArray;
use super::super::stream::{AaBox, Vec3, F32};
use super::super::zone::{Patch, PatchConnect, Vec3s, Zone};
use super::lumels::{pack_shadow_map, reset_compressed_lumels, unpack_shadow_map};
use super::{BezierPatch, BorderVertex, BuildOptions, PatchInfo, Point, ZoneBuildError, ZoneInfo};

/// `NL3D_NOISE_MAX`: the bounding box is grown by this on every side for the noise
/// displacement (`CZone::computeBBScaleBias`).
const NOISE_MAX: f32 = 1.0;
/// `PatchScale = rmax / 32760`: NeL keeps a margin below 32767 against float imprecision.
const SCALE_DIVISOR: f32 = 32760.0;
/// Bits of `CPatch::Flags` that hold the four edge smooth flags (`NL_PATCH_SMOOTH_FLAG_MASK`).
pub(crate) const SMOOTH_FLAG_MASK: u8 = 0x3c;
/// `NL_PATCH_SMOOTH_FLAG_SHIFT`.
pub(crate) const SMOOTH_FLAG_SHIFT: u8 = 2;
/// `CPatch` stream version NeL writes (`CPatch::_Version`); older ones are read-only.
const CPATCH_VERSION: u32 = 7;
/// `CPatch` versions before this one predate the vegetable state; NeL's reader resets it.
const CPATCH_VEGETABLE_VERSION: u32 = 6;
/// `CZone::CPatchConnect` stream version NeL writes.
const PATCH_CONNECT_VERSION: u32 = 1;

/// `CZone::build(zoneId, patchs, borderVertices)` with NeL's defaults: current stream
/// versions, no lights, `NumVertices` from the patches' base vertices.
pub fn build(
    zone_id: u16,
    patches: &[PatchInfo],
    border_vertices: &[BorderVertex],
) -> Result<Zone, ZoneBuildError> {
    let info = ZoneInfo {
        zone_id,
        patches: patches.to_vec(),
        border_vertices: border_vertices.to_vec(),
        point_lights: None,
    };
    build_with(&info, &BuildOptions::default())
}

/// `CZone::build(const CZoneInfo &, numVertices)`.
///
/// Bits NeL leaves uninitialised are written as zero here: `CPatch::Flags` outside the
/// smooth-flag mask (NeL's `CPatch` constructor never sets `Flags`, build only rewrites
/// bits 2..5) and `PackedLightFactor` of reset light influences.
pub fn build_with(info: &ZoneInfo, opts: &BuildOptions) -> Result<Zone, ZoneBuildError> {
    if opts.patch_version != CPATCH_VERSION {
        return Err(ZoneBuildError::Zone(format!(
            "CPatch version {} cannot be written: NeL writes only version {CPATCH_VERSION} (older ones are read-only)",
            opts.patch_version
        )));
    }
    if !(3..=5).contains(&opts.zone_version) {
        return Err(ZoneBuildError::Zone(format!(
            "CZone version {} cannot be written: NeL reads 3..=5",
            opts.zone_version
        )));
    }
    let patches = &info.patches;
    for (j, pi) in patches.iter().enumerate() {
        check_patch(j, pi)?;
    }
    let (bb, bias, scale) = bb_scale_bias(patches.iter().map(|p| &p.patch));
    let mut out_patches = Vec::with_capacity(patches.len());
    let mut connects = Vec::with_capacity(patches.len());
    let mut max_vertex: i64 = -1;
    for pi in patches {
        let p = &pi.patch;
        let pack = |v: &Point| pack3(v, &bias, scale);
        let lumel_count = (pi.order_s as usize * 4) * (pi.order_t as usize * 4);
        let compressed_lumels = if pi.lumels.len() == lumel_count {
            pack_shadow_map(&pi.lumels, pi.order_s, pi.order_t)
        } else {
            reset_compressed_lumels(pi.order_s, pi.order_t)
        };
        let tli_count = (pi.order_s as usize / 2 + 1) * (pi.order_t as usize / 2 + 1);
        let tile_light_influences = if pi.tile_light_influences.len() == tli_count {
            pi.tile_light_influences.clone()
        } else {
            reset_tile_light_influences(pi.order_s, pi.order_t)
        };
        out_patches.push(Patch {
            version: opts.patch_version,
            vertices: p.vertices.each_ref().map(pack),
            tangents: p.tangents.each_ref().map(pack),
            interiors: p.interiors.each_ref().map(pack),
            tiles: pi.tiles.clone(),
            tile_colors_v6: Vec::new(),
            tile_colors: pi.tile_colors.clone(),
            order_s: pi.order_s,
            order_t: pi.order_t,
            compressed_lumels,
            noise_rotation: Some(pi.noise_rotation),
            corner_smooth_flag: Some(pi.corner_smooth_flag & 0x0f),
            flags: Some(SMOOTH_FLAG_MASK & (pi.flags << SMOOTH_FLAG_SHIFT)),
            tile_light_influences: Some(tile_light_influences),
        });
        for &b in &pi.base_vertices {
            max_vertex = max_vertex.max(b as i64);
        }
        connects.push(PatchConnect {
            version: PATCH_CONNECT_VERSION,
            old_order: None,
            error_size: F32::from_f32(pi.error_size),
            base_vertices: pi.base_vertices,
            bind_edges: pi.bind_edges.clone(),
        });
    }
    let num_vertices = ((max_vertex + 1) as u32).max(opts.num_vertices);
    let point_lights = opts
        .point_lights
        .clone()
        .or_else(|| info.point_lights.clone())
        .unwrap_or_else(|| PointLightArray {
            version: 1,
            ..Default::default()
        });
    let mut zone = Zone {
        version: opts.zone_version,
        zone_id: info.zone_id,
        zone_bb: bb,
        patch_bias: vec3(&bias),
        patch_scale: F32::from_f32(scale),
        num_vertices: num_vertices as i32,
        border_vertices: info.border_vertices.clone(),
        patches: out_patches,
        patch_connects: connects,
        point_lights: (opts.zone_version >= 4).then_some(point_lights),
    };
    check_light_indices(&mut zone)?;
    Ok(zone)
}

/// `CZone::retrieve(CZoneInfo &)`: unpacks coordinates and lumels, copies the rest.
pub fn retrieve(zone: &Zone) -> Result<ZoneInfo, ZoneBuildError> {
    if zone.patches.len() != zone.patch_connects.len() {
        return Err(ZoneBuildError::Connects {
            patches: zone.patches.len(),
            connects: zone.patch_connects.len(),
        });
    }
    let bias = [
        zone.patch_bias.x.get(),
        zone.patch_bias.y.get(),
        zone.patch_bias.z.get(),
    ];
    let scale = zone.patch_scale.get();
    let mut patches = Vec::with_capacity(zone.patches.len());
    for (j, (pa, pc)) in zone.patches.iter().zip(&zone.patch_connects).enumerate() {
        let unpack = |v: &Vec3s| unpack3(v, &bias, scale);
        let lumels =
            unpack_shadow_map(&pa.compressed_lumels, pa.order_s, pa.order_t).map_err(|e| {
                ZoneBuildError::Patch {
                    patch: j,
                    what: e.to_string(),
                }
            })?;
        // Files before CPatch version 7 keep the colours with an unused light vector;
        // NeL copies the leading 565 value of each.
        let tile_colors = if pa.version <= 6 {
            pa.tile_colors_v6
                .iter()
                .map(|c| super::TileColor {
                    color565: c.color565,
                })
                .collect()
        } else {
            pa.tile_colors.clone()
        };
        let mut tiles = pa.tiles.clone();
        if pa.version < CPATCH_VEGETABLE_VERSION {
            // CPatch::serial: tiles of older patches are read as "above water".
            for t in &mut tiles {
                t.set_vegetable_state(super::VegetableState::AboveWater);
            }
        }
        patches.push(PatchInfo {
            patch: BezierPatch {
                vertices: pa.vertices.each_ref().map(unpack),
                tangents: pa.tangents.each_ref().map(unpack),
                interiors: pa.interiors.each_ref().map(unpack),
            },
            order_s: pa.order_s,
            order_t: pa.order_t,
            error_size: pc.error_size.get(),
            base_vertices: pc.base_vertices,
            // Before CPatch version 4 NeL's reader sets every smooth flag.
            flags: (pa.flags.unwrap_or(SMOOTH_FLAG_MASK) & SMOOTH_FLAG_MASK) >> SMOOTH_FLAG_SHIFT,
            noise_rotation: pa.noise_rotation.unwrap_or(0),
            corner_smooth_flag: pa.corner_smooth_flag.unwrap_or(0),
            tiles,
            tile_colors,
            lumels,
            tile_light_influences: pa
                .tile_light_influences
                .clone()
                .unwrap_or_else(|| reset_tile_light_influences(pa.order_s, pa.order_t)),
            bind_edges: pc.bind_edges.clone(),
        });
    }
    Ok(ZoneInfo {
        zone_id: zone.zone_id,
        patches,
        border_vertices: zone.border_vertices.clone(),
        point_lights: zone.point_lights.clone(),
    })
}

/// The counts `CZone::build` asserts (tiles, colours) and the ones it relies on.
fn check_patch(j: usize, pi: &PatchInfo) -> Result<(), ZoneBuildError> {
    let (s, t) = (pi.order_s as usize, pi.order_t as usize);
    let count = |what, got, expected| {
        if got == expected {
            Ok(())
        } else {
            Err(ZoneBuildError::Count {
                patch: j,
                what,
                got,
                expected,
                order_s: pi.order_s,
                order_t: pi.order_t,
            })
        }
    };
    if s == 0 || t == 0 {
        return Err(ZoneBuildError::Order {
            patch: j,
            order_s: pi.order_s,
            order_t: pi.order_t,
        });
    }
    count("tiles", pi.tiles.len(), s * t)?;
    count("tile colors", pi.tile_colors.len(), (s + 1) * (t + 1))
}

/// Light indices of the influences must name a light of the zone (NeL asserts it).
fn check_light_indices(zone: &mut Zone) -> Result<(), ZoneBuildError> {
    let n = zone.point_lights.as_ref().map_or(0, |p| p.lights.len());
    for (j, pa) in zone.patches.iter().enumerate() {
        for tli in pa.tile_light_influences.iter().flatten() {
            for &l in &tli.light {
                if l == 0xff {
                    break;
                }
                if l as usize >= n {
                    return Err(ZoneBuildError::Patch {
                        patch: j,
                        what: format!("tile light influence names light {l} of {n}"),
                    });
                }
            }
        }
    }
    Ok(())
}

/// `CPatch::resetTileLightInfluences`: every corner without light. NeL leaves the packed
/// factor uninitialised; it is written as zero.
pub(crate) fn reset_tile_light_influences(
    order_s: u8,
    order_t: u8,
) -> Vec<super::TileLightInfluence> {
    let n = (order_s as usize / 2 + 1) * (order_t as usize / 2 + 1);
    vec![
        super::TileLightInfluence {
            light: [0xff, 0xff],
            packed_light_factor: 0,
        };
        n
    ]
}

/// The zone box over every control point, grown by the noise margin, and the bias/scale
/// of the 16-bit packing (`CZone::build` + `computeBBScaleBias`).
fn bb_scale_bias<'a>(
    patches: impl Iterator<Item = &'a BezierPatch> + Clone,
) -> (AaBox, Point, f32) {
    let mut center = patches.clone().next().map_or([0.0; 3], |p| p.vertices[0]);
    let mut half = [0.0f32; 3];
    for p in patches {
        for v in p.vertices.iter().chain(&p.tangents).chain(&p.interiors) {
            extend(&mut center, &mut half, v);
        }
    }
    for h in &mut half {
        *h += NOISE_MAX;
    }
    let rmax = max_f(max_f(half[0], half[1]), half[2]);
    let scale = rmax / SCALE_DIVISOR;
    let bb = AaBox {
        version: 0,
        center: vec3(&center),
        half_size: vec3(&half),
    };
    (bb, center, scale)
}

/// `CAABBox::extend`: min/max from centre ± half size, then centre = (min+max)·½ and
/// half = max − centre, exactly in that order.
fn extend(center: &mut Point, half: &mut Point, v: &Point) {
    for i in 0..3 {
        let bmin = min_f(center[i] - half[i], v[i]);
        let bmax = max_f(center[i] + half[i], v[i]);
        center[i] = (bmin + bmax) * 0.5;
        half[i] = bmax - center[i];
    }
}

/// `std::min(a, b)`: `b < a ? b : a` (NaN keeps `a`).
fn min_f(a: f32, b: f32) -> f32 {
    if b < a {
        b
    } else {
        a
    }
}

/// `std::max(a, b)`: `a < b ? b : a` (NaN keeps `a`).
fn max_f(a: f32, b: f32) -> f32 {
    if a < b {
        b
    } else {
        a
    }
}

/// `CVector3s::pack`: (v − bias) / scale, clamped to the i16 range, truncated.
pub(crate) fn pack3(v: &Point, bias: &Point, scale: f32) -> Vec3s {
    let c = |i: usize| {
        let r = (v[i] - bias[i]) / scale;
        // NLMISC::clamp(x, lo, hi): x<lo → lo, x>hi → hi; a NaN stays NaN (then 0 here).
        let r = r.clamp(-32768.0, 32767.0);
        r as i16
    };
    Vec3s {
        x: c(0),
        y: c(1),
        z: c(2),
    }
}

/// `CVector3s::unpack`: x·scale + bias.
pub(crate) fn unpack3(v: &Vec3s, bias: &Point, scale: f32) -> Point {
    [
        v.x as f32 * scale + bias[0],
        v.y as f32 * scale + bias[1],
        v.z as f32 * scale + bias[2],
    ]
}

fn vec3(p: &Point) -> Vec3 {
    Vec3 {
        x: F32::from_f32(p[0]),
        y: F32::from_f32(p[1]),
        z: F32::from_f32(p[2]),
    }
}

#[cfg(test)]
mod tests {
    use super::super::REFERENCE_EXPORTER_ZONE_VERSION;
    use super::*;
    use crate::{write_nel, NelFile};

    fn flat_patch(x0: f32) -> PatchInfo {
        let p = |x: f32, y: f32| [x0 + x, y, 0.0];
        PatchInfo {
            patch: BezierPatch {
                vertices: [p(0.0, 0.0), p(3.0, 0.0), p(3.0, 3.0), p(0.0, 3.0)],
                tangents: [
                    p(1.0, 0.0),
                    p(2.0, 0.0),
                    p(3.0, 1.0),
                    p(3.0, 2.0),
                    p(2.0, 3.0),
                    p(1.0, 3.0),
                    p(0.0, 2.0),
                    p(0.0, 1.0),
                ],
                interiors: [p(1.0, 1.0), p(2.0, 1.0), p(2.0, 2.0), p(1.0, 2.0)],
            },
            order_s: 2,
            order_t: 2,
            base_vertices: [0, 1, 2, 3],
            tiles: vec![Default::default(); 4],
            tile_colors: vec![Default::default(); 9],
            ..Default::default()
        }
    }

    /// Seed S003 l.299: the reference exporter serialized CZone version 5 and patched
    /// the version byte to 4; nothing else differs between the two versions.
    #[test]
    fn reference_version_differs_in_the_version_byte_only() {
        let patches = [flat_patch(0.0), flat_patch(3.0)];
        let info = ZoneInfo {
            zone_id: 3,
            patches: patches.to_vec(),
            ..Default::default()
        };
        let bytes = |v| {
            let opts = BuildOptions {
                zone_version: v,
                ..Default::default()
            };
            write_nel(&NelFile::Zone(build_with(&info, &opts).unwrap())).unwrap()
        };
        let (v5, v4) = (bytes(5), bytes(REFERENCE_EXPORTER_ZONE_VERSION));
        assert_eq!(v5.len(), v4.len());
        assert_eq!((v5[0], v4[0]), (5, 4));
        assert_eq!(v5[1..], v4[1..]);
    }

    /// NeL's rules on a zone small enough to follow by hand: the box spans x 0..6,
    /// y 0..3, z 0 plus the noise margin of 1, scale = max half size / 32760, and a
    /// corner at the box minimum packs to -(half - 1)/scale truncated toward zero.
    #[test]
    fn bbox_scale_and_packing_follow_nel() {
        let z = build(9, &[flat_patch(0.0), flat_patch(3.0)], &[]).unwrap();
        assert_eq!(z.zone_id, 9);
        assert_eq!(z.zone_bb.center.x.get(), 3.0);
        assert_eq!(z.zone_bb.center.y.get(), 1.5);
        assert_eq!(z.zone_bb.half_size.x.get(), 4.0);
        assert_eq!(z.zone_bb.half_size.y.get(), 2.5);
        assert_eq!(z.zone_bb.half_size.z.get(), 1.0);
        assert_eq!(z.patch_scale.get(), 4.0f32 / 32760.0);
        let s = z.patch_scale.get();
        assert_eq!(z.patches[0].vertices[0].x, ((0.0f32 - 3.0) / s) as i16);
        assert_eq!(z.patches[0].vertices[0].y, ((0.0f32 - 1.5) / s) as i16);
        assert_eq!(z.num_vertices, 4);
        assert_eq!(z.patches[0].compressed_lumels, vec![0; 4 * 8]);
        assert_eq!(
            z.patches[0].tile_light_influences.as_ref().unwrap().len(),
            4
        );
        let tiles_short = PatchInfo {
            tiles: vec![Default::default(); 3],
            ..flat_patch(0.0)
        };
        assert!(matches!(
            build(0, &[tiles_short], &[]),
            Err(ZoneBuildError::Count { what: "tiles", .. })
        ));
    }
}
