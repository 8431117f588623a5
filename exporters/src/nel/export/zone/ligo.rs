//! Ligo brick export (build_gamedata `nel_ligo_export.ms` → `NeLLigoExportZone`,
//! ligo/plugin_max/script.cpp): a source named `zonematerial-<mat>-<cell>`,
//! `zonespecial-<name>` or `zonetransition-<a>-<b>-<t>` gives, per brick, the zone
//! (`RPatchMesh::exportZone` with zone id 0, symmetry / rotation through the tile bank)
//! and the `.ligozone` (`CZoneBankElement`: the script's categories, `passable`,
//! `filled` / `square` / `size`, and the cell mask of `CMaxToLigo::buildZoneTemplate` →
//! `CZoneTemplate::getMask`, or the bounding square with LIGO_USE_BOUNDINGBOX).
//!
//! A transition source places each of its (up to) nine RklPatch nodes by the centre of
//! its bounding box in the 4-row transition grid; each slot's node is exported through
//! `buildTransitionMatrix` (an instance with the slot's mirror / quarter turn set as
//! ZONE_SYMMETRY / ZONE_ROTATE). Refusals are the script's and the plug-in's, named in
//! errors.txt.

use crate::error::{ExportError, ExportResult};
use crate::nel::zone::Zone;
use crate::nel::zone_build::ligo::{
    transition_matrix, transition_slot, with_passable, BrickSource, ZoneBankElement,
    TRANSITION_ROT, TRANSITION_SCALE,
};
use crate::nel::zone_build::transform::ZoneTransform;
use crate::nel::zone_build::{retrieve, zone_template, Point};

use super::rules::{transform as point_tm, Matrix3};
use super::{
    build_zone, matrix3, node_name, node_rklpatch, node_transform, rklpatch_nodes, script_int,
    APPDATA_ZONE_ROTATE, APPDATA_ZONE_SYMMETRY, SNAP_CELL, WELD_THRESHOLD,
};
use crate::nel::export::properties::id;
use crate::nel::export::{Context, ExportKind, Exports, Output};

/// `ligoscape.cfg`: the cell size and snap the plug-in's `CLigoConfig` holds (the values
/// the direct export hard-codes, 160 and 1).
pub const CELL_SIZE: f32 = SNAP_CELL;
pub const SNAP: f32 = WELD_THRESHOLD;

/// One exported brick.
#[derive(Debug, Clone)]
pub struct Brick {
    pub name: String,
    pub zone: Zone,
    pub zone_bytes: Vec<u8>,
    pub element: ZoneBankElement,
    pub ligozone: String,
}

/// `DeleteDebugMarkersFn`: root children named `[NELLIGO]*` (`matchPattern`, which
/// ignores case) are deleted before the patches are selected.
fn is_debug_marker(ctx: &Context, node: usize) -> bool {
    let Some(n) = ctx.graph.objects[node].node.as_ref() else {
        return false;
    };
    let at_root = n.parent.is_none_or(|p| {
        ctx.graph
            .objects
            .get(p as usize)
            .and_then(|o| o.node.as_ref())
            .is_none_or(|pn| pn.parent.is_none())
    });
    at_root
        && n.name
            .get(..9)
            .is_some_and(|s| s.eq_ignore_ascii_case("[nelligo]"))
}

/// `selectAllPatch` after the debug markers are gone: the non-frozen RklPatch nodes.
fn selected_patches(ctx: &Context) -> Vec<usize> {
    rklpatch_nodes(ctx)
        .0
        .into_iter()
        .filter(|&n| !is_debug_marker(ctx, n))
        .collect()
}

/// The kind refusals are reported under: `.ligozone` when it was asked for.
fn error_kind(ligozone: bool) -> ExportKind {
    if ligozone {
        ExportKind::LigoZone
    } else {
        ExportKind::Zone
    }
}

/// Every brick of the file, as the outputs asked for (`zone`: the `.zone` files,
/// `ligozone`: the `.ligozone` files); refusals to errors.txt.
pub fn export(ctx: &Context, out: &mut Exports, src: &BrickSource, zone: bool, ligozone: bool) {
    let kind = error_kind(ligozone);
    for r in bricks(ctx, src) {
        match r {
            Ok(b) => {
                if zone {
                    out.outputs.push(Output {
                        kind: ExportKind::Zone,
                        with_coarse_mesh: false,
                        name: format!("{}.zone", b.name),
                        bytes: b.zone_bytes,
                    });
                }
                if ligozone {
                    out.outputs.push(Output {
                        kind: ExportKind::LigoZone,
                        with_coarse_mesh: false,
                        name: format!("{}.ligozone", b.name),
                        bytes: b.ligozone.into_bytes(),
                    });
                }
            }
            Err((node, e)) => out.push_error(kind, &node, e),
        }
    }
}

/// The bricks of a source, or per brick (node name, why not).
pub fn bricks(ctx: &Context, src: &BrickSource) -> Vec<Result<Brick, (String, ExportError)>> {
    let nodes = selected_patches(ctx);
    let stem = ctx.stem;
    match src {
        BrickSource::Material { .. } | BrickSource::Special { .. } => {
            let node = match nodes.as_slice() {
                [one] => *one,
                [] => {
                    return vec![Err((
                        String::new(),
                        ExportError::refused(format!(
                            "WARNING In file {stem}, no NelPatchMesh to export."
                        )),
                    ))]
                }
                many => {
                    let names: Vec<String> = many.iter().map(|&i| node_name(ctx, i)).collect();
                    return vec![Err((
                        names.join(", "),
                        ExportError::refused(format!(
                            "ERROR In file {stem}, multiple NelPatchMesh. Can't export."
                        )),
                    ))];
                }
            };
            let Some((name, props)) = src.bricks().into_iter().next() else {
                return Vec::new();
            };
            let node_label = node_name(ctx, node);
            let r = node_transform(ctx.props.node(node)).and_then(|how| {
                let tm = matrix3(&ctx.eval.object_tm(node, 0));
                let props = with_passable(props, ctx.props.node(node).ligo_passable);
                brick(ctx, node, &name, &props, &tm, how)
            });
            vec![r.map_err(|e| (node_label, e))]
        }
        BrickSource::Transition { .. } => transition_bricks(ctx, src),
    }
}

/// `node.center`: the centre of the node's world bounding box, here the box of every
/// control point (vertices, handles, interiors) through the object TM.
fn node_center(ctx: &Context, node: usize) -> ExportResult<(f32, f32)> {
    let p = node_rklpatch(ctx, node)?;
    let tm = matrix3(&ctx.eval.object_tm(node, 0));
    let mut lo = [f32::INFINITY; 2];
    let mut hi = [f32::NEG_INFINITY; 2];
    for q in p
        .verts
        .iter()
        .map(|v| v.pos())
        .chain(p.vecs.iter().map(|v| v.pos()))
    {
        let w = point_tm(q, &tm);
        for k in 0..2 {
            lo[k] = lo[k].min(w[k]);
            hi[k] = hi[k].max(w[k]);
        }
    }
    if lo[0] > hi[0] {
        return Err(ExportError::invalid("the patch mesh has no control point"));
    }
    Ok(((lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0))
}

/// Max's `Matrix3 * Matrix3` in single precision (row vectors: `a` first).
pub(crate) fn mul3(a: &Matrix3, b: &Matrix3) -> Matrix3 {
    let mut m = [[0.0f32; 3]; 4];
    for (r, row) in m.iter_mut().enumerate() {
        for (k, v) in row.iter_mut().enumerate() {
            *v = a[r][0] * b[0][k] + a[r][1] * b[1][k] + a[r][2] * b[2][k];
            if r == 3 {
                *v += b[3][k];
            }
        }
    }
    m
}

/// Where the EXPORT TRANSZONES loop put the patch nodes of a transition source.
pub struct TransitionPlacement {
    /// The node of each slot (index slot − 1).
    pub slots: [Option<usize>; 9],
    /// The script's `ok and findOne`: some patch node, and the last one placed was
    /// placed right. Without it neither the bricks nor the igs are exported.
    pub ok: bool,
    /// Per node refused: (node name, why).
    pub errors: Vec<(String, ExportError)>,
}

/// Each node's slot from its centre (the last node placed decides `ok`, as the
/// script's flag does).
pub fn transition_placement(ctx: &Context) -> TransitionPlacement {
    let stem = ctx.stem;
    let nodes = selected_patches(ctx);
    let mut errors = Vec::new();
    let mut slots: [Option<usize>; 9] = [None; 9];
    let mut ok = !nodes.is_empty();
    if nodes.is_empty() {
        errors.push((
            String::new(),
            ExportError::refused(format!(
                "In file {stem}, no NelPatchMesh (RklPatch node) to export."
            )),
        ));
    }
    for &n in &nodes {
        let name = node_name(ctx, n);
        let (cx, cy) = match node_center(ctx, n) {
            Ok(c) => c,
            Err(e) => {
                ok = false;
                errors.push((name, e));
                continue;
            }
        };
        let (x, y) = ((cx / CELL_SIZE).trunc(), (cy / CELL_SIZE).trunc());
        let in_grid = y >= 0.0
            && (y as usize) < 4
            && x >= 0.0
            && (x as usize) < [2, 2, 2, 4][(y as usize).min(3)];
        ok = true;
        match transition_slot(cx, cy, CELL_SIZE) {
            Some(s) => slots[usize::from(s) - 1] = Some(n),
            None if in_grid => {
                ok = false;
                errors.push((
                    name,
                    ExportError::invalid(format!(
                        "ERROR A zone is not at the right position in {stem}"
                    )),
                ));
            }
            None => {
                ok = false;
                errors.push((
                    name.clone(),
                    ExportError::invalid(format!(
                        "The zone {name} is not well positionned. Check the transition scheme."
                    )),
                ));
            }
        }
    }
    TransitionPlacement { slots, ok, errors }
}

/// The EXPORT TRANSZONES loop: the placement, then each filled slot through its
/// transition matrix.
fn transition_bricks(
    ctx: &Context,
    src: &BrickSource,
) -> Vec<Result<Brick, (String, ExportError)>> {
    let placed = transition_placement(ctx);
    let mut out: Vec<Result<Brick, (String, ExportError)>> =
        placed.errors.into_iter().map(Err).collect();
    if !placed.ok {
        return out;
    }
    for (i, (name, props)) in src.bricks().into_iter().enumerate() {
        let Some(n) = placed.slots[i] else { continue };
        let label = node_name(ctx, n);
        let r = transition_brick(ctx, n, i + 1, &name, props);
        out.push(r.map_err(|e| (label, e)));
    }
    out
}

/// The object TM of the script's instance of `node` in transition slot `slot` (1..=9):
/// the object offset (which `instance` keeps) times `buildTransitionMatrix` of the node
/// TM, in Max's single precision.
pub fn transition_object_tm(ctx: &Context, node: usize, slot: usize) -> ExportResult<Matrix3> {
    let node_tm = matrix3(&ctx.eval.world_tm(node, 0));
    let mt = transition_matrix(&node_tm, slot, CELL_SIZE)
        .ok_or_else(|| ExportError::invalid(format!("transition slot {slot}")))?;
    Ok(mul3(&matrix3(&ctx.eval.offset_tm(node)), &mt))
}

fn transition_brick(
    ctx: &Context,
    node: usize,
    slot: usize,
    name: &str,
    props: Vec<(String, String)>,
) -> ExportResult<Brick> {
    let p = ctx.props.node(node);
    // The script sets the slot's mirror / turn on an `instance` of the node; whether
    // that instance keeps the node's own ZONE_SYMMETRY / ZONE_ROTATE is not known.
    for (id, what) in [
        (APPDATA_ZONE_SYMMETRY, "ZONE_SYMMETRY"),
        (APPDATA_ZONE_ROTATE, "ZONE_ROTATE"),
    ] {
        if p.raw(id).is_some() {
            return Err(ExportError::refused(format!(
                "the transition node carries its own {what}: whether the script's instance keeps it is not known"
            )));
        }
    }
    let props = with_passable(props, p.ligo_passable);
    let tm = transition_object_tm(ctx, node, slot)?;
    let how = ZoneTransform {
        symmetry: TRANSITION_SCALE[slot - 1],
        rotate: u32::from(TRANSITION_ROT[slot - 1]),
    };
    brick(ctx, node, name, &props, &tm, how)
}

/// `NeLLigoExportZone` on one node placed by `tm` with `how` as its ZONE_SYMMETRY /
/// ZONE_ROTATE: the zone first (its failure is "can't export the Nel zone"), then the
/// mask, then the categories.
fn brick(
    ctx: &Context,
    node: usize,
    name: &str,
    props: &[(String, String)],
    tm: &Matrix3,
    how: ZoneTransform,
) -> ExportResult<Brick> {
    let p = node_rklpatch(ctx, node)?;
    let (zone, zone_bytes) = build_zone(ctx, &p, tm, 0, how).map_err(|e| ExportError::In {
        context: "Error: can't export the Nel zone".into(),
        source: Box::new(e),
    })?;
    let use_box = script_int(ctx.props.node(node).raw(id::LIGO_USE_BOUNDINGBOX), 0) != 0;
    let (mask, w, h) = if use_box {
        square_mask(&zone, CELL_SIZE)?
    } else {
        template_mask(&p, tm, how.symmetry)?
    };
    let (w, h) = (
        u8::try_from(w).map_err(|_| too_wide(w))?,
        u8::try_from(h).map_err(|_| too_wide(h))?,
    );
    let element = ZoneBankElement::for_brick(mask, w, h, props);
    let ligozone = element.to_xml()?;
    Ok(Brick {
        name: name.to_string(),
        zone,
        zone_bytes,
        element,
        ligozone,
    })
}

fn too_wide(n: u32) -> ExportError {
    ExportError::Limit(format!(
        "brick mask {n} cells wide: CZoneBankElement stores the size in a byte"
    ))
}

/// `CMaxToLigo::buildZoneTemplate` + `getMask`: the patch vertices through the object
/// TM, every edge with fewer than two patches as (v1, v2) — (v2, v1) on a mirrored node,
/// whose outline the mirror turned clockwise — into `CZoneTemplate::build`.
pub fn template_mask(
    p: &maxfs_scene::rklpatch::RklPatch,
    tm: &Matrix3,
    symmetry: bool,
) -> ExportResult<(Vec<bool>, u32, u32)> {
    let vertices: Vec<Point> = p.verts.iter().map(|v| point_tm(v.pos(), tm)).collect();
    let mut edges = Vec::new();
    for (k, e) in p.edges.iter().enumerate() {
        if e.patches.len() >= 2 {
            continue;
        }
        let (Ok(a), Ok(b)) = (usize::try_from(e.v1), usize::try_from(e.v2)) else {
            return Err(ExportError::invalid(format!(
                "patch edge {k} has vertex {} / {}",
                e.v1, e.v2
            )));
        };
        edges.push(if symmetry { (b, a) } else { (a, b) });
    }
    let template = zone_template::build(&vertices, &edges, CELL_SIZE, SNAP)
        .and_then(|t| zone_template::mask(&t))
        .map_err(|e| {
            let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
            for v in &vertices {
                for k in 0..2 {
                    lo[k] = lo[k].min(v[k]);
                    hi[k] = hi[k].max(v[k]);
                }
            }
            ExportError::invalid(format!(
                "ligo zone template: {e} (CLigoError {}); {} open edges, vertices in x {}..{}, y {}..{}",
                e as i32,
                edges.len(),
                lo[0],
                hi[0],
                lo[1],
                hi[1]
            ))
        })?;
    Ok(template)
}

/// `getSquareMask` (ligo script.cpp), for LIGO_USE_BOUNDINGBOX: the built zone's corners
/// rounded to cells, at least 1×1, every cell set. A corner left of or below the grid
/// (where NeL casts a negative float to `uint`) is refused.
pub fn square_mask(zone: &Zone, cell: f32) -> ExportResult<(Vec<bool>, u32, u32)> {
    let info = retrieve(zone)?;
    let (mut mx, mut my) = (1i64, 1i64);
    for pi in &info.patches {
        for v in &pi.patch.vertices {
            let (x, y) = ((v[0] + cell / 2.0) / cell, (v[1] + cell / 2.0) / cell);
            if !(x >= 0.0 && y >= 0.0 && x < 256.0 && y < 256.0) {
                return Err(ExportError::invalid(format!(
                    "bounding-box mask: corner ({}, {}) is outside cells 0..255",
                    v[0], v[1]
                )));
            }
            mx = mx.max(x as i64);
            my = my.max(y as i64);
        }
    }
    let (w, h) = (mx as u32, my as u32);
    Ok((vec![true; (w * h) as usize], w, h))
}
