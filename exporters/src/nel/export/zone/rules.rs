//! `RPatchMesh::exportZone` (nel_patch_lib/rpo2nel.cpp l.158-620) on the
//! decoded patch model: the triple-edge check, the world transform, orders,
//! 565 tile colours, smooth flags, the two bind passes and the tile fill, into
//! the `PatchInfo`s `CZone::build` takes. Each step names the source lines it
//! follows; where the C++ would read out of range (an assert, undefined
//! behaviour) the export is refused with the reason instead.

use crate::error::{ExportError, ExportResult};
use std::collections::HashMap;

use maxfs_scene::rklpatch::rpo::{UiPatch, VertexBind, BIND_25, BIND_75, BIND_SINGLE};
use maxfs_scene::rklpatch::{Patch, RklPatch, Tiles};

use crate::nel::zone_build::{
    BindInfo, PatchInfo, TileColor, TileElement, VegetableState, TILE_LAYER_EMPTY,
};

/// A Max `Matrix3` as stored: rows X, Y, Z axes and translation, in f32.
pub type Matrix3 = [[f32; 3]; 4];

/// `Point3 * Matrix3` in single precision, the SDK's operation order.
pub fn transform(p: [f32; 3], m: &Matrix3) -> [f32; 3] {
    let c = |k: usize| p[0] * m[0][k] + p[1] * m[1][k] + p[2] * m[2][k] + m[3][k];
    [c(0), c(1), c(2)]
}

/// `CRGBA(r, g, b).get565()` of a 0x00RRGGBB tile colour (rpo2nel.cpp l.363-366).
pub fn color565(c: u32) -> u16 {
    let (r, g, b) = ((c >> 16) & 0xff, (c >> 8) & 0xff, c & 0xff);
    (((r >> 3) << 11) | ((g >> 2) << 5) | (b >> 3)) as u16
}

/// The binding as `RPatchMesh::Load` keeps it in `bindingDesc`: a u8 bool, the
/// second typeBind word cut to u8, patch and edge cut to u16.
#[derive(Debug, Clone, Copy)]
struct Bind {
    binded: bool,
    kind: u32,
    patch: usize,
    edge: usize,
}

fn bind(v: &VertexBind) -> Bind {
    Bind {
        binded: v.binded != 0,
        kind: v.bind_type2 & 0xff,
        patch: (v.patch & 0xffff) as usize,
        edge: (v.edge & 0xffff) as usize,
    }
}

/// rpo2nel.cpp getCommonVertex: the first corner of `p1` that is a corner of `p2`.
fn common_vertex(p1: &Patch, p2: &Patch) -> Option<(i32, usize)> {
    (0..4)
        .find(|&i| p2.v.contains(&p1.v[i]))
        .map(|i| (p1.v[i], i))
}

/// getOtherBindedVertex: a corner of `p1` other than `other`, bound onto patch `p2`.
fn other_binded_vertex(
    m: &RklPatch,
    binds: &[Bind],
    p1: usize,
    p2: usize,
    other: usize,
) -> Option<i32> {
    let patch = &m.patches[p1];
    (0..4).find_map(|i| {
        let b = binds[patch.v[i] as usize];
        (b.binded && b.patch == p2 && i != other).then_some(patch.v[i])
    })
}

/// getEdge: the edge of `patch` joining vertices a and b.
fn edge_between(m: &RklPatch, patch: &Patch, a: i32, b: i32) -> Option<usize> {
    (0..4).find(|&i| {
        let e = &m.edges[patch.edge[i] as usize];
        (e.v1 == a && e.v2 == b) || (e.v2 == a && e.v1 == b)
    })
}

/// getCommonEdge: where `patch` uses edge `edge`.
fn common_edge(patch: &Patch, edge: i32) -> Option<usize> {
    (0..4).find(|&e| patch.edge[e] == edge)
}

/// Tile count exponent → OrderS/OrderT (`1 << NbTiles`, CZone accepts 2..16).
fn order(ui: &UiPatch, i: usize) -> ExportResult<(u8, u8)> {
    match (ui.order_s(), ui.order_t()) {
        (Some(s), Some(t)) if (2..=16).contains(&s) && (2..=16).contains(&t) => {
            Ok((s as u8, t as u8))
        }
        _ => Err(ExportError::invalid(format!(
            "patch {}: tile counts 2^{} x 2^{} are outside NeL's 2..16",
            i + 1,
            ui.nb_tiles_u,
            ui.nb_tiles_v
        ))),
    }
}

/// All of exportZone before `CZone::build`: the `PatchInfo` of every patch.
pub fn patch_infos(m: &RklPatch, tm: &Matrix3, zone_id: u16) -> ExportResult<Vec<PatchInfo>> {
    m.check()?;
    let rp = &m.rpo.mesh;
    if rp.version < 9 {
        // RPatchMesh::Load gives every tile a rand()&7 noise below version 9.
        return Err(ExportError::invalid(format!(
            "RPatchMesh version {} draws random tile noise when Max loads it; only version 9 exports reproducibly",
            rp.version
        )));
    }
    if m.patches.iter().any(|p| p.corners() != 4) {
        return Err(ExportError::invalid(
            "triangular patch: NeL zones are made of quad patches",
        ));
    }
    triple_edges(m)?;
    let binds: Vec<Bind> = rp.vertices.iter().map(bind).collect();
    let mut infos = Vec::with_capacity(m.patches.len());
    // rpo2nel.cpp l.300-398: geometry, orders, colours, smooth flags.
    for (i, p) in m.patches.iter().enumerate() {
        let ui = &rp.patches[i];
        let (order_s, order_t) = order(ui, i)?;
        let mut pi = PatchInfo::default();
        for j in 0..4 {
            pi.patch.vertices[j] = transform(m.verts[p.v[j] as usize].pos(), tm);
            pi.patch.interiors[j] = transform(m.vecs[p.interior[j] as usize].pos(), tm);
        }
        for j in 0..8 {
            pi.patch.tangents[j] = transform(m.vecs[p.vec[j] as usize].pos(), tm);
        }
        pi.order_s = order_s;
        pi.order_t = order_t;
        pi.bind_edges = std::array::from_fn(|_| BindInfo {
            version: 0,
            n_patchs: 0,
            zone_id,
            next: [0; 4],
            edge: [0; 4],
        });
        pi.base_vertices = p.v.map(|v| v as u16);
        let (s, t) = (usize::from(order_s), usize::from(order_t));
        if ui.colors.len() < (s + 1) * (t + 1) {
            return Err(ExportError::invalid(format!(
                "patch {}: {} tile colours for {} corners",
                i + 1,
                ui.colors.len(),
                (s + 1) * (t + 1)
            )));
        }
        pi.tile_colors = (0..(s + 1) * (t + 1))
            .map(|k| TileColor {
                color565: color565(ui.colors[k]),
            })
            .collect();
        pi.lumels = vec![255; (s * 4) * (t * 4)];
        for e in 0..4 {
            pi.set_smooth_flag(e, !ui.edge_flag(e));
        }
        infos.push(pi);
    }
    bind_pass_1(m, &binds, &mut infos)?;
    bind_pass_2(m, &mut infos)?;
    for (i, pi) in infos.iter_mut().enumerate() {
        fill_tiles(&rp.patches[i], i, pi)?;
    }
    Ok(infos)
}

/// rpo2nel.cpp l.213-268: an edge used by three patches or more is refused,
/// naming the patches (1-based, as the plug-in prints them).
fn triple_edges(m: &RklPatch) -> ExportResult<()> {
    let mut count: HashMap<(i32, i32), u32> = HashMap::new();
    let mut bad = std::collections::BTreeSet::new();
    for (i, p) in m.patches.iter().enumerate() {
        for e in 0..4 {
            let ed = &m.edges[p.edge[e] as usize];
            let n = count
                .entry((ed.v1.min(ed.v2), ed.v1.max(ed.v2)))
                .or_insert(0);
            *n += 1;
            if *n >= 3 {
                bad.insert(i + 1);
            }
        }
    }
    if bad.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = bad.iter().map(|p| format!("patch {p}")).collect();
    Err(ExportError::invalid(format!(
        "triple edge detected in {}",
        list.join(" ")
    )))
}

/// rpo2nel.cpp l.403-485: vertices bound onto another patch's edge fill that
/// edge's neighbour list (in 1/4, 1/2, 3/4 order) and point back from theirs.
fn bind_pass_1(m: &RklPatch, binds: &[Bind], infos: &mut [PatchInfo]) -> ExportResult<()> {
    let np = m.patches.len();
    for (src, sp) in m.patches.iter().enumerate() {
        for nv in 0..4 {
            let b = binds[sp.v[nv] as usize];
            if !b.binded {
                continue;
            }
            let (dst, dst_edge) = (b.patch, b.edge);
            if dst >= np || dst_edge >= 4 {
                return Err(ExportError::invalid(format!(
                    "patch {}: vertex {} is bound to patch {} edge {}, which does not exist",
                    src + 1,
                    sp.v[nv],
                    dst + 1,
                    dst_edge
                )));
            }
            let invalid = || ExportError::invalid(format!("patch {}: invalid bind", src + 1));
            let dp = &m.patches[dst];
            let (n, icv) = match b.kind {
                BIND_SINGLE => {
                    let (icv, order) = common_vertex(dp, sp).ok_or_else(invalid)?;
                    (if dst_edge == order { 0 } else { 1 }, icv)
                }
                BIND_25 => match other_binded_vertex(m, binds, src, dst, nv) {
                    Some(icv) => (1, icv),
                    None => (0, common_vertex(dp, sp).ok_or_else(invalid)?.0),
                },
                BIND_75 => match other_binded_vertex(m, binds, src, dst, nv) {
                    Some(icv) => (2, icv),
                    None => (3, common_vertex(dp, sp).ok_or_else(invalid)?.0),
                },
                _ => continue,
            };
            let src_edge = edge_between(m, sp, sp.v[nv], icv)
                .ok_or_else(|| ExportError::invalid(format!("patch {}: invalid edge", src + 1)))?;
            let d = &mut infos[dst].bind_edges[dst_edge];
            d.n_patchs = d.n_patchs.wrapping_add(1);
            d.edge[n] = src_edge as u8;
            d.next[n] = src as u16;
            let s = &mut infos[src].bind_edges[src_edge];
            s.n_patchs = 5;
            s.edge[0] = dst_edge as u8;
            s.next[0] = dst as u16;
        }
    }
    Ok(())
}

/// rpo2nel.cpp l.487-521 (Max ≥ 4): an edge shared by two patches binds them 1:1.
fn bind_pass_2(m: &RklPatch, infos: &mut [PatchInfo]) -> ExportResult<()> {
    for (i, p) in m.patches.iter().enumerate() {
        for e in 0..4 {
            let edge = &m.edges[p.edge[e] as usize];
            if edge.patches.len() <= 1 {
                continue;
            }
            let other = if edge.patches[1] != i as i32 {
                edge.patches[1]
            } else {
                edge.patches[0]
            };
            let op = usize::try_from(other)
                .ok()
                .and_then(|o| m.patches.get(o))
                .ok_or_else(|| {
                    ExportError::invalid(format!(
                        "patch {}: edge {e} lists patch {other}, which does not exist",
                        i + 1
                    ))
                })?;
            let ce = common_edge(op, p.edge[e]).ok_or_else(|| {
                ExportError::invalid(format!(
                    "patch {}: edge {e} is not an edge of its neighbour {}",
                    i + 1,
                    other + 1
                ))
            })?;
            let b = &mut infos[i].bind_edges[e];
            b.n_patchs = 1;
            b.next[0] = other as u16;
            b.edge[0] = ce as u8;
        }
    }
    Ok(())
}

/// rpo2nel.cpp l.523-585: layers past the tile's layer count are empty; layer
/// tile and rotation as `tileIndex` keeps them (Tile:16, Rotate:8); the 256
/// case from the flags; the sub-noise from the displace bits (which the v9
/// loader sets from the noise byte); vegetation above water.
fn fill_tiles(ui: &UiPatch, i: usize, pi: &mut PatchInfo) -> ExportResult<()> {
    let (s, t) = (usize::from(pi.order_s), usize::from(pi.order_t));
    let Tiles::Desc(tiles) = &ui.tiles else {
        return Err(ExportError::invalid(format!(
            "patch {}: pre-version-3 tiles",
            i + 1
        )));
    };
    if tiles.len() < s * t {
        return Err(ExportError::invalid(format!(
            "patch {}: {} tiles for {}x{}",
            i + 1,
            tiles.len(),
            s,
            t
        )));
    }
    pi.tiles = vec![TileElement::default(); s * t];
    for (d, el) in tiles.iter().zip(pi.tiles.iter_mut()) {
        // RPatchMesh::Load v9: _Flags, then setDisplace(noise) over bits 3-6.
        let flags = d.flags.unwrap_or(0);
        let noise = u16::from(d.noise.unwrap_or(0));
        let flags = (flags & !0x0078) | (noise << 3);
        let case = flags & 7;
        let displace = ((flags & 0x0078) >> 3) as u8;
        for l in 0..3 {
            if l >= usize::from(d.num) {
                el.tile[l] = TILE_LAYER_EMPTY;
            } else {
                el.tile[l] = (d.layers[l].tile & 0xffff) as u16;
                el.set_tile_orient(l, (d.layers[l].rotate as i8) as u8);
            }
        }
        if el.tile[0] == TILE_LAYER_EMPTY || case == 0 {
            el.set_tile_256_info(false, 0);
        } else {
            el.set_tile_256_info(true, (case - 1) as u8);
        }
        el.set_tile_sub_noise(displace);
        el.set_vegetable_state(VegetableState::AboveWater);
    }
    Ok(())
}
