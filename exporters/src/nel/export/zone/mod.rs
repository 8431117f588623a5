//! Direct zone export (`zone_export.ms` → `ExportRykolZone` →
//! `RPatchMesh::exportZone` → `CZone::build`): the file's one non-frozen
//! RklPatch node becomes `export/<maxfile>.zone`, its zone id taken from the
//! node name NN_AB (zone_export.ms findID).
//!
//! Refusals go to errors.txt: no RklPatch node in a file named like a zone,
//! two non-frozen RklPatch nodes (seed S003 l.299: the seed's port refuses
//! them; zone_export.ms would export the first one Max lists), a name findID
//! cannot read, DONTEXPORT, a modifier above the patch level, symmetry or
//! rotation (they need the tile bank), and every refusal of `rules`.

pub mod rules;

use crate::error::{ExportError, ExportResult};
use maxfs_scene::eval::core::math::Mat43;
use maxfs_scene::eval::objects::patch;

use super::properties::id;
use super::skel::checked_bytes;
use super::{Context, ExportKind, Exports, Output};
use crate::nel::zone_build::{build_with, BuildOptions, ZoneInfo};
use crate::nel::{NelFile, NelKind};

/// `NEL3D_APPDATA_ZONE_ROTATE` / `_SYMMETRY` (nel_patch_mesh.h l.80-81).
pub const APPDATA_ZONE_ROTATE: u32 = 1_266_703_978;
pub const APPDATA_ZONE_SYMMETRY: u32 = 1_266_703_979;
/// The CZone version the reference exporter wrote (seed S003 l.299: v4; NeL
/// today writes 5, and the two serialize the same fields).
pub const ZONE_VERSION: u32 = crate::nel::zone_build::REFERENCE_EXPORTER_ZONE_VERSION;
/// Node chunk present on frozen nodes (seed S003 l.299).
const FROZEN_CHUNK: u16 = 0x0976;

/// zone_export.ms findID: `NN_AB` → (NN-1)·256 + (A-'A')·26 + (B-'A').
/// filterString drops empty tokens; the letters are the first two characters
/// of the second token, found case-insensitively (MAXScript findString); the
/// number is the first token `as integer`. Anything else makes the script
/// throw, which the exporter reports. The result is cut to CZone's uint16, as
/// the plug-in's `int` → `uint16` call does.
pub fn zone_id(name: &str) -> ExportResult<u16> {
    let tokens: Vec<&str> = name.split('_').filter(|t| !t.is_empty()).collect();
    let bad = |why: &str| ExportError::invalid(format!("node name {name:?} is not NN_AB ({why})"));
    let (Some(num), Some(letters)) = (tokens.first(), tokens.get(1)) else {
        return Err(bad("two '_'-separated parts expected"));
    };
    let num: i64 = maxscript_integer(num).ok_or_else(|| bad("the first part is not an integer"))?;
    let mut chars = letters.chars();
    let letter = |c: Option<char>| {
        c.filter(char::is_ascii_alphabetic)
            .map(|c| i64::from(c.to_ascii_uppercase() as u8 - b'A'))
    };
    let (Some(a), Some(b)) = (letter(chars.next()), letter(chars.next())) else {
        return Err(bad("the second part does not start with two letters"));
    };
    Ok(((num - 1) * 256 + a * 26 + b) as u16)
}

/// MAXScript `"…" as integer`: optional sign and decimal digits, nothing else.
fn maxscript_integer(s: &str) -> Option<i64> {
    let t = s.strip_prefix('+').unwrap_or(s);
    let digits = t.strip_prefix('-').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 12 {
        return None;
    }
    t.parse().ok()
}

/// `getScriptAppData(node, id, def)`: sscanf "%d" of the stored text.
fn script_int(text: Option<&str>, def: i64) -> i64 {
    let Some(t) = text else { return def };
    let t = t.trim_start();
    let end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
        .map_or(t.len(), |(i, _)| i);
    t[..end].parse().unwrap_or(def)
}

/// The object TM as Max's single-precision Matrix3.
fn matrix3(m: &Mat43) -> rules::Matrix3 {
    m.0.map(|r| [r.0 as f32, r.1 as f32, r.2 as f32])
}

pub fn export(ctx: &Context, out: &mut Exports) {
    let eval = ctx.eval;
    let nodes: Vec<usize> = ctx
        .graph
        .objects
        .iter()
        .filter(|o| o.node.is_some())
        .filter(|o| {
            eval.node_object(o.index)
                .is_some_and(|b| patch::is_rklpatch(eval, b))
        })
        .map(|o| o.index)
        .collect();
    let name_of = |i: usize| {
        ctx.graph.objects[i]
            .node
            .as_ref()
            .map_or_else(String::new, |n| n.name.clone())
    };
    let live: Vec<usize> = nodes
        .iter()
        .copied()
        .filter(|&i| !eval.chunks(i).iter().any(|c| c.id == FROZEN_CHUNK))
        .collect();
    let node = match live.as_slice() {
        [one] => *one,
        [] if !nodes.is_empty() => {
            let names: Vec<String> = nodes.iter().map(|&i| name_of(i)).collect();
            out.push_error(
                ExportKind::Zone,
                "",
                format!(
                    "every RklPatch node is frozen ({}): no zone to export",
                    names.join(", ")
                ),
            );
            return;
        }
        [] => {
            if zone_id(ctx.stem).is_ok() {
                out.push_error(
                    ExportKind::Zone,
                    "",
                    "no zone found in project: no RklPatch node",
                );
            }
            return;
        }
        many => {
            let names: Vec<String> = many.iter().map(|&i| name_of(i)).collect();
            out.push_error(
                ExportKind::Zone,
                "",
                format!(
                    "{} non-frozen RklPatch nodes ({}): a zone file holds one",
                    many.len(),
                    names.join(", ")
                ),
            );
            return;
        }
    };
    let name = name_of(node);
    match zone_bytes(ctx, node, &name) {
        Ok(bytes) => out.outputs.push(Output {
            kind: ExportKind::Zone,
            with_coarse_mesh: false,
            name: format!("{}.zone", ctx.stem),
            bytes,
        }),
        Err(e) => out.push_error(ExportKind::Zone, &name, e),
    }
}

/// The `.zone` of one RklPatch node.
pub fn zone_bytes(ctx: &Context, node: usize, name: &str) -> ExportResult<Vec<u8>> {
    let props = ctx.props.node(node);
    if script_int(props.raw(id::DONTEXPORT), 0) != 0 {
        return Err(ExportError::refused("DONTEXPORT is set"));
    }
    let zone_id = zone_id(name)?;
    if script_int(props.raw(APPDATA_ZONE_SYMMETRY), 0) != 0
        || script_int(props.raw(APPDATA_ZONE_ROTATE), 0) != 0
    {
        return Err(ExportError::refused(
            "zone symmetry / rotation needs the tile bank (CPatchInfo::transform): not evaluated",
        ));
    }
    let (p, rest) = patch::node_patch(ctx.eval, node)
        .ok_or_else(|| ExportError::refused("not an RklPatch node"))??;
    if rest > 0 {
        let (applied, _) = ctx
            .eval
            .modifier_stack(node)
            .ok_or_else(|| ExportError::refused("no modifier stack"))?;
        let names: Vec<&str> = applied[..rest].iter().map(|a| a.name).collect();
        return Err(ExportError::refused(format!(
            "modifiers above the patch level ({}) turn the RklPatch into another object: not evaluated",
            names.join(", ")
        )));
    }
    let tm = matrix3(&ctx.eval.object_tm(node, 0));
    let patches = rules::patch_infos(&p, &tm, zone_id)?;
    let info = ZoneInfo {
        zone_id,
        patches,
        border_vertices: Vec::new(),
        point_lights: None,
    };
    let opts = BuildOptions {
        zone_version: ZONE_VERSION,
        ..BuildOptions::default()
    };
    let zone = build_with(&info, &opts)?;
    Ok(checked_bytes(&NelFile::Zone(zone), NelKind::Zone)?)
}

#[cfg(test)]
mod tests;
