//! `json/patches.json`: every RklPatch node's patch mesh as the zone export
//! reads it (after the NeL Edit Patch / NeL Paint modifiers directly on it): per patch its
//! corners, tile counts, tiles (layers with tile number and rotation, case,
//! noise), tile colours as `#rrggbb`, edge flags; per vertex its position and
//! bind record. One object per line of interest, so `grep` and `diff` work.

use serde::Serialize;
use serde_json::{json, Value};

use maxfs_scene::eval::objects::patch;
use maxfs_scene::eval::SceneEval;
use maxfs_scene::rklpatch::{RklPatch, Tiles};

use crate::json;

#[derive(Serialize)]
struct NodePatches {
    node: String,
    index: usize,
    object: usize,
    /// The NeL Edit Patch and NeL Paint modifiers applied at the patch level,
    /// bottom first.
    patch_modifiers: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mesh: Option<Value>,
}

fn hex_color(c: u32) -> String {
    format!("#{:06x}", c & 0x00ff_ffff)
}

fn mesh_value(m: &RklPatch) -> Value {
    let rp = &m.rpo.mesh;
    let patches: Vec<Value> = m
        .patches
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let ui = rp.patches.get(i);
            let tiles: Value = match ui.map(|u| &u.tiles) {
                Some(Tiles::Desc(t)) => t
                    .iter()
                    .map(|d| {
                        json!({
                            "layers": d.num,
                            "case": d.flags.map(|f| f & 7),
                            "flags": d.flags,
                            "noise": d.noise,
                            "tiles": d.layers.iter().map(|l| json!([l.tile, l.rotate])).collect::<Vec<_>>(),
                        })
                    })
                    .collect(),
                Some(Tiles::Old(t)) => json!({ "old": t }),
                None => Value::Null,
            };
            json!({
                "patch": i,
                "type": p.kind,
                "vertices": p.v,
                "vectors": p.vec,
                "interiors": p.interior,
                "edges": p.edge,
                "smoothing": p.smooth,
                "nb_tiles": ui.map(|u| [u.nb_tiles_u, u.nb_tiles_v]),
                "order": ui.map(|u| [u.order_s(), u.order_t()]),
                "edge_flags": ui.and_then(|u| u.edge_flags),
                "tiles": tiles,
                "colors": ui.map(|u| u.colors.iter().map(|&c| hex_color(c)).collect::<Vec<_>>()),
            })
        })
        .collect();
    let vertices: Vec<Value> = m
        .verts
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let b = rp.vertices.get(i);
            json!({
                "vertex": i,
                "position": json::f32s_value(&v.pos()),
                "bind": b.filter(|b| b.binded != 0).map(|b| json!({
                    "type": b.bind_type2,
                    "patch": b.patch,
                    "edge": b.edge,
                    "primary_vertex": b.prim_vert,
                    "before": [b.before, b.before2],
                    "after": [b.after, b.after2],
                    "t": b.t,
                })),
            })
        })
        .collect();
    json!({
        "rpo_version": m.rpo.rpo_version,
        "rpatchmesh_version": rp.version,
        "counts": { "vertices": m.verts.len(), "vectors": m.vecs.len(), "edges": m.edges.len(), "patches": m.patches.len() },
        "tile_tessel_level": rp.tile_tessel_level,
        "mode_tile": rp.mode_tile,
        "keep_mapping": rp.keep_mapping,
        "transition_type": rp.transition_type,
        "sel_level": rp.sel_level,
        "patches": patches,
        "vertices": vertices,
        "edges": m.edges.iter().map(|e| json!({"v": [e.v1, e.v2], "vectors": [e.vec12, e.vec21], "patches": e.patches})).collect::<Vec<_>>(),
    })
}

pub fn render(eval: &SceneEval) -> Vec<u8> {
    let mut out = Vec::new();
    for o in &eval.graph.objects {
        let Some(node) = &o.node else { continue };
        let Some(base) = eval.node_object(o.index) else {
            continue;
        };
        if !patch::is_rklpatch(eval, base) {
            continue;
        }
        let applied = eval
            .modifier_stack(o.index)
            .map(|(a, _)| a)
            .unwrap_or_default();
        let mut entry = NodePatches {
            node: node.name.clone(),
            index: o.index,
            object: base,
            patch_modifiers: Vec::new(),
            error: None,
            mesh: None,
        };
        match patch::patch_stack(eval, base, &applied) {
            Ok((m, rest)) => {
                entry.patch_modifiers = applied[rest..]
                    .iter()
                    .rev()
                    .map(|a| a.name.to_string())
                    .collect();
                entry.mesh = Some(mesh_value(&m));
            }
            Err(e) => entry.error = Some(e.to_string()),
        }
        out.push(entry);
    }
    json::to_bytes(&json!({ "patches": json::value_f32(&out) }))
}
