//! Direct zone export (`zone_export.ms` → `ExportRykolZone` →
//! `RPatchMesh::exportZone` → `CZone::build`): the file's one non-frozen
//! RklPatch node becomes `export/<maxfile>.zone`, its zone id taken from the
//! node name NN_AB (zone_export.ms findID).
//!
//! Refusals go to errors.txt: no RklPatch node in a file named like a zone,
//! two non-frozen RklPatch nodes (seed S003 l.299: the seed's port refuses
//! them; zone_export.ms would export the first one Max lists), a name findID
//! cannot read, DONTEXPORT, a modifier above the patch level, symmetry or
//! rotation without a tile bank (`--bank`), and every refusal of `rules`.
//!
//! A file named by the ligo protocol (`zonematerial-*`, `zonespecial-*`,
//! `zonetransition-*`) is a ligo brick source instead: `ligo` exports it.

pub mod ligo;
pub mod rules;

use crate::error::{ExportError, ExportResult};
use maxfs_scene::eval::core::math::Mat43;
use maxfs_scene::eval::objects::patch;

use super::properties::id;
use super::skel::checked_bytes;
use super::{Context, ExportKind, Exports, Output};
use crate::nel::zone::Zone;
use crate::nel::zone_build::tile_bank::BankXRef;
use crate::nel::zone_build::transform::{transform, ZoneTransform};
use crate::nel::zone_build::{build_with, BuildOptions, ZoneInfo};
use crate::nel::{NelFile, NelKind};
use maxfs_scene::rklpatch::RklPatch;

/// The cell size and weld threshold every zone export hands `CPatchInfo::transform`: the
/// direct export's literal `160, 1` (script.cpp ExportRykolZone) and the ligo plug-in's
/// `config.CellSize, config.Snap` (ligoscape.cfg: 160 and 1).
pub const SNAP_CELL: f32 = 160.0;
pub const WELD_THRESHOLD: f32 = 1.0;

/// The tile bank a symmetrised or turned zone is exported with (`NelSetTileBank`, the
/// ecosystem's small bank): where it was read from, and what the transform asks of it.
#[derive(Debug, Clone)]
pub struct TileBankFile {
    pub path: std::path::PathBuf,
    pub xref: BankXRef,
}

impl TileBankFile {
    /// Reads a `.bank` (`CTileBank::serial`) and computes its cross references.
    pub fn load(path: &std::path::Path) -> ExportResult<TileBankFile> {
        let bytes = std::fs::read(path)
            .map_err(|e| ExportError::invalid(format!("tile bank {}: {e}", path.display())))?;
        let name = path.file_name().map_or_else(
            || "bank.bank".to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        match crate::nel::read_nel(&bytes, &name)? {
            NelFile::TileBank(b) => Ok(TileBankFile {
                path: path.to_path_buf(),
                xref: BankXRef::new(&b)?,
            }),
            _ => Err(ExportError::invalid(format!(
                "{} is not a tile bank",
                path.display()
            ))),
        }
    }
}

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
pub(crate) fn script_int(text: Option<&str>, def: i64) -> i64 {
    let Some(t) = text else { return def };
    let t = t.trim_start();
    let end = t
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
        .map_or(t.len(), |(i, _)| i);
    t[..end].parse().unwrap_or(def)
}

/// The object TM as Max's single-precision Matrix3.
pub(crate) fn matrix3(m: &Mat43) -> rules::Matrix3 {
    m.0.map(|r| [r.0 as f32, r.1 as f32, r.2 as f32])
}

/// The zone kinds of one file: a ligo brick source exports its bricks (`.zone` and / or
/// `.ligozone` as asked), any other file its direct `.zone`.
pub fn export(ctx: &Context, out: &mut Exports, zone: bool, ligozone: bool) {
    if let Some(src) = crate::nel::zone_build::ligo::BrickSource::from_stem(ctx.stem) {
        ligo::export(ctx, out, &src, zone, ligozone);
    } else if zone {
        export_direct(ctx, out);
    }
}

/// The non-frozen RklPatch nodes and all RklPatch nodes of the file, in scene order.
pub(crate) fn rklpatch_nodes(ctx: &Context) -> (Vec<usize>, Vec<usize>) {
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
    let live = nodes
        .iter()
        .copied()
        .filter(|&i| !eval.chunks(i).iter().any(|c| c.id == FROZEN_CHUNK))
        .collect();
    (live, nodes)
}

pub(crate) fn node_name(ctx: &Context, i: usize) -> String {
    ctx.graph.objects[i]
        .node
        .as_ref()
        .map_or_else(String::new, |n| n.name.clone())
}

fn export_direct(ctx: &Context, out: &mut Exports) {
    let (live, nodes) = rklpatch_nodes(ctx);
    let name_of = |i: usize| node_name(ctx, i);
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
    let how = node_transform(props)?;
    let p = node_rklpatch(ctx, node)?;
    let tm = matrix3(&ctx.eval.object_tm(node, 0));
    let (_, bytes) = build_zone(ctx, &p, &tm, zone_id, how)?;
    Ok(bytes)
}

/// ZONE_SYMMETRY / ZONE_ROTATE as `getScriptAppData` reads them. A rotation outside 0..3
/// is refused: NeL would turn the matrix by it but the tiles by it modulo 4.
pub(crate) fn node_transform(
    props: &super::properties::NodeProperties,
) -> ExportResult<ZoneTransform> {
    let rotate = script_int(props.raw(APPDATA_ZONE_ROTATE), 0);
    let rotate = u32::try_from(rotate)
        .ok()
        .filter(|r| *r < 4)
        .ok_or_else(|| {
            ExportError::refused(format!(
                "ZONE_ROTATE {rotate} is outside 0..3: not evaluated"
            ))
        })?;
    Ok(ZoneTransform {
        symmetry: script_int(props.raw(APPDATA_ZONE_SYMMETRY), 0) != 0,
        rotate,
    })
}

/// The node's patch mesh at the patch level (NeL Edit Patch / NeL Paint applied); any
/// other modifier above is refused (ConvertToType to RklPatch would collapse it).
pub(crate) fn node_rklpatch(ctx: &Context, node: usize) -> ExportResult<std::sync::Arc<RklPatch>> {
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
    Ok(p)
}

/// `RPatchMesh::exportZone` from the patch mesh on: the patches through the object TM,
/// then for a mirrored or turned zone `CPatchInfo::transform` with the tile bank and
/// `toOriginalSpace = (scale(1,-1,1)·rotateZ(π·rotate/2))⁻¹` (rpo2nel.cpp l.585-600),
/// then `CZone::build` with no border vertices; stored with the reference version byte.
/// A rotation is kept as `getScriptAppData` reads it; `CPatchInfo::transform` masks it.
pub(crate) fn build_zone(
    ctx: &Context,
    p: &RklPatch,
    tm: &rules::Matrix3,
    zone_id: u16,
    how: ZoneTransform,
) -> ExportResult<(Zone, Vec<u8>)> {
    let mut patches = rules::patch_infos(p, tm, zone_id)?;
    if how.symmetry || how.rotate != 0 {
        let bank = ctx.bank.as_deref().ok_or_else(|| {
            ExportError::refused(format!(
                "zone symmetry {} / rotation {} needs the tile bank (CPatchInfo::transform): no bank given (--bank FILE)",
                u8::from(how.symmetry),
                how.rotate
            ))
        })?;
        transform(
            &mut patches,
            &bank.xref,
            how,
            SNAP_CELL,
            WELD_THRESHOLD,
            &how.to_original_space(),
        )
        .map_err(|e| ExportError::In {
            context: format!("can't transform the zone (bank {})", bank.path.display()),
            source: Box::new(e.into()),
        })?;
    }
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
    let bytes = checked_bytes(&NelFile::Zone(zone.clone()), NelKind::Zone)?;
    Ok((zone, bytes))
}

#[cfg(test)]
mod tests;
