//! Seed-only rules of the direct zone export, each test naming the line it follows.

use super::rules::{color565, patch_infos, transform};
use super::*;

/// zone_export.ms findID, restated by seed S003 l.298 ((num-1)*256 +
/// (L1-'A')*26 + (L2-'A'+1) - 1) and sources-index §12.
#[test]
fn zone_id_follows_find_id() {
    assert_eq!(zone_id("1_AA").ok(), Some(0));
    assert_eq!(zone_id("1_AB").ok(), Some(1));
    assert_eq!(zone_id("1_BA").ok(), Some(26));
    assert_eq!(zone_id("2_AA").ok(), Some(256));
    assert_eq!(
        zone_id("12_ab").ok(),
        Some(11 * 256 + 1),
        "findString is case-insensitive"
    );
    assert_eq!(zone_id("6_AR").ok(), Some(5 * 256 + 17));
    assert_eq!(
        zone_id("3_AQx").ok(),
        Some(2 * 256 + 16),
        "letters past the second are ignored"
    );
    assert_eq!(
        zone_id("__3__AQ").ok(),
        Some(2 * 256 + 16),
        "filterString drops empty tokens"
    );
    for bad in ["", "12", "AB_12", "12_A", "12_A1", "x12_AB", "1.5_AB"] {
        assert!(zone_id(bad).is_err(), "{bad:?}");
    }
    // CZone::build takes a uint16: 0_AA = -256 wraps as the plug-in's int does.
    assert_eq!(zone_id("0_AA").ok(), Some(65280));
}

/// rpo2nel.cpp l.363-366: CRGBA(r, g, b).get565().
#[test]
fn tile_colours_are_565() {
    assert_eq!(color565(0x00ff_ffff), 0xffff);
    assert_eq!(color565(0x0000_0000), 0);
    assert_eq!(color565(0x00f8_0000), 0xf800);
    assert_eq!(color565(0x0000_fc00), 0x07e0);
    assert_eq!(color565(0x0000_00f8), 0x001f);
    assert_eq!(
        color565(0xff12_3456),
        color565(0x0012_3456),
        "alpha byte ignored"
    );
}

#[test]
fn script_appdata_reads_like_sscanf() {
    assert_eq!(script_int(Some("1"), 0), 1);
    assert_eq!(script_int(Some(" 3x"), 0), 3);
    assert_eq!(script_int(Some("x"), 7), 7);
    assert_eq!(script_int(None, 0), 0);
}

/// rpo2nel.cpp l.300-321: v = v * objectTM(0), single precision.
#[test]
fn points_go_through_the_object_tm() {
    let tm = [
        [0.0, 1.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0],
        [10.0, 20.0, 30.0],
    ];
    assert_eq!(transform([1.0, 2.0, 3.0], &tm), [8.0, 21.0, 33.0]);
}

fn two_quads() -> maxfs_scene::rklpatch::RklPatch {
    use maxfs_scene::rklpatch::build::{build_quads, QuadInput};
    use maxfs_scene::rklpatch::rpo::*;
    let ui = UiPatch {
        nb_tiles_u: 1,
        nb_tiles_v: 1,
        tiles: Tiles::Desc(
            (0..4)
                .map(|k| TileDesc {
                    num: if k == 3 { 0 } else { 1 },
                    flags: Some(if k == 1 { 2 } else { 0 }),
                    noise: Some(k as u8 + 4),
                    layers: [
                        TileLayer {
                            invert: 0,
                            tile: 40 + k,
                            rotate: k + 1,
                        },
                        TileLayer {
                            invert: 0,
                            tile: 7,
                            rotate: 0,
                        },
                        TileLayer {
                            invert: 0,
                            tile: 7,
                            rotate: 0,
                        },
                    ],
                })
                .collect(),
        ),
        colors: (0..9).map(|c| c * 0x0010_1010).collect(),
        edge_flags: Some([1, 0, 0, 0]),
    };
    let quad = |x0: f32, corners: [u32; 4]| {
        let v = [
            [x0, 0.0, 0.0],
            [x0 + 10.0, 0.0, 0.0],
            [x0 + 10.0, 10.0, 0.0],
            [x0, 10.0, 0.0],
        ];
        let mut tangents = [[0.0f32; 3]; 8];
        for i in 0..4 {
            let (a, b) = (v[i], v[(i + 1) % 4]);
            tangents[2 * i] = [a[0] + (b[0] - a[0]) / 3.0, a[1] + (b[1] - a[1]) / 3.0, 0.0];
            tangents[2 * i + 1] = [
                a[0] + 2.0 * (b[0] - a[0]) / 3.0,
                a[1] + 2.0 * (b[1] - a[1]) / 3.0,
                0.0,
            ];
        }
        QuadInput {
            corners,
            vertices: v,
            tangents,
            interiors: v,
            ui: ui.clone(),
        }
    };
    build_quads(
        &[quad(0.0, [0, 1, 2, 3]), quad(10.0, [1, 4, 5, 2])],
        &Default::default(),
    )
}

/// rpo2nel.cpp l.487-521 (pass 2), l.379-394 (smooth flags), l.523-585 (tile fill).
#[test]
fn shared_edges_smooth_flags_and_tiles() {
    let m = two_quads();
    let id = [
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 0.0, 0.0],
    ];
    let infos = patch_infos(&m, &id, 300).unwrap();
    // Patch 0's edge 1 (corners 1-2) is patch 1's edge 3.
    let b = &infos[0].bind_edges[1];
    assert_eq!(
        (b.n_patchs, b.next[0], b.edge[0], b.zone_id),
        (1, 1, 3, 300)
    );
    let b = &infos[1].bind_edges[3];
    assert_eq!((b.n_patchs, b.next[0], b.edge[0]), (1, 0, 1));
    assert_eq!(infos[0].bind_edges[0].n_patchs, 0);
    // Edge flag bit set → getEdgeFlag true → smooth flag (bit) left clear.
    assert_eq!(infos[0].flags, 0b1110);
    assert_eq!((infos[0].order_s, infos[0].order_t), (2, 2));
    assert_eq!(infos[0].tile_colors[8].color565, color565(8 * 0x0010_1010));
    let t = &infos[0].tiles;
    assert_eq!(t[0].tile, [40, 0xffff, 0xffff]);
    assert_eq!(t[0].tile_orient(0), 1);
    assert_eq!(
        t[1].tile_256_info(),
        (true, 1),
        "case 2 → 256 info (true, 1)"
    );
    assert_eq!(t[0].tile_256_info(), (false, 0));
    assert_eq!(t[3].tile, [0xffff; 3], "_Num 0: every layer empty");
    assert_eq!(t[2].tile_sub_noise(), 6, "v9 noise byte is the displace");
    assert_eq!(infos[0].lumels.len(), 64);
    assert_eq!(infos[1].base_vertices, [1, 4, 5, 2]);
}

/// rpo2nel.cpp l.213-268: a third patch on one edge is refused, 1-based.
#[test]
fn triple_edges_are_refused() {
    let mut m = two_quads();
    let mut third = m.patches[1].clone();
    third.edge = m.patches[1].edge;
    m.patches.push(third);
    m.rpo.mesh.patches.push(m.rpo.mesh.patches[1].clone());
    let id = [
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 0.0, 0.0],
    ];
    let e = patch_infos(&m, &id, 0).unwrap_err();
    assert!(
        e.to_string().starts_with("triple edge detected in patch 3"),
        "{e}"
    );
}

/// RPatchMesh::Load below version 9 draws rand()&7 noise: refused.
#[test]
fn old_versions_are_refused() {
    let mut m = two_quads();
    m.rpo.mesh.version = 8;
    let id = [
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 0.0, 0.0],
    ];
    assert!(patch_infos(&m, &id, 0)
        .unwrap_err()
        .to_string()
        .contains("random tile noise"));
}
