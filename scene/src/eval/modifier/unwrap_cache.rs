//! Unwrap UVW's record of its input as the evaluation of the stack below it.
//!
//! Unwrap UVW (Max 2008 on) saves in its local data the geometry it was
//! applied to: 0x0330 (u32 count, one Point3 per vertex) and, in its polygon
//! records 0x0870, each polygon's geometry vertices and material id beside
//! its texture vertices (docs/max-format.md). That is Max's own result of the
//! stack below the Unwrap at the moment it last evaluated it. When that stack
//! cannot be evaluated here (a modifier or Edit Poly operation not replayed),
//! or its result has another topology than the one the Unwrap's map is
//! defined on, and nothing below the Unwrap can take another value at another
//! time (`core::still`), the cache stands in for that stack, as ProBoolean's
//! stored mesh stands in for its operands.
//!
//! What the cache does not hold is left out and named on the mesh
//! ([`Mesh::missing_parts`]): smoothing groups (none are saved: the mesh
//! gets none), map channels other than 1 that the stack below carried,
//! specified normals, and the diagonals of polygons that are not planar
//! (their triangles then fan from corner 0; a planar polygon's triangulation
//! does not change its surface). Edge visibility follows from the polygons
//! (sides visible, diagonals hidden) and material ids are stored. Cached
//! vertices no polygon uses are left out, the others keep their order: Max's
//! result has them not (Shotgun's Shells cache 612 vertices, 18 unused; Max's
//! Mesh Totals and the FBX count 594, the FBX in the cache's order without
//! them).

use crate::chunk::Chunk;
use crate::eval::core::math::Vec3;
use crate::eval::core::still;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{Mesh, MissingPart};
use crate::eval::objects::poly::{PolyFace, PolyMap, PolyMesh, MAX_DEGREE};

use super::cache_smoothing::{self, Below};
use super::unwrap::{stored, Polygon, HIDDEN_SHIFT};
use super::{uv_only, Applied, ModContext, LOCAL_DATA, UNWRAP_UVW};

/// The cached input's vertex positions (u32 count, Point3 each).
const GEOMETRY: u16 = 0x0330;
/// Vertices read at most (a damaged count must not allocate much).
const MAX_VERTICES: usize = 1 << 22;
/// A polygon whose corners lie farther than this fraction of its size from
/// its plane is not planar: its triangulation changes its surface.
const PLANAR: f64 = 1e-4;

/// Where the cache is named from.
const SOURCE: &str = "the Unwrap UVW cache of its input";

/// The stack below `stack[at]` (an Unwrap UVW, top first) replaced by the
/// Unwrap's cache, with channel 1 the Unwrap's map, and the parts the cache
/// lacks. `failed` is what it stands in for (the error of the stack below,
/// or the mismatch of its result). Err when it cannot stand in: no cache (the
/// original failure stands, unchanged), a damaged cache, or a stack below
/// that can change over time (the failure, with why the cache cannot stand
/// in).
pub(super) fn stand_in(
    stack: &[Applied],
    at: usize,
    base: usize,
    cx: &ModContext,
    failed: EvalError,
    ours: Option<Below>,
) -> Result<(PolyMesh, Vec<MissingPart>), EvalError> {
    let Some(m) = stack.get(at).filter(|m| m.class == UNWRAP_UVW) else {
        return Err(failed);
    };
    let local = m
        .mod_app
        .and_then(|a| a.children().iter().find(|c| c.id == LOCAL_DATA))
        .map_or(&[][..], Chunk::children);
    if !local.iter().any(|c| c.id == GEOMETRY) {
        return Err(failed);
    }
    let refused = |why: String| cannot_stand_in(failed.clone(), &why);
    if let Some(name) = left_out_below(stack, at, cx) {
        return Err(refused(format!(
            "it holds the stack below with {name} applied, which this evaluation leaves out"
        )));
    }
    let mut roots: Vec<usize> = stack[at + 1..].iter().map(|a| a.object).collect();
    roots.push(base);
    match still::first_varying(cx.eval, &roots, &holders(m, cx)) {
        Ok(None) => {}
        Ok(Some(why)) => {
            return Err(refused(format!(
                "the stack below can change over time ({why})"
            )))
        }
        Err(e) => return Err(refused(e.to_string())),
    }
    let Cached {
        mut poly,
        non_planar,
        folded,
        ..
    } = input(local, cx.eval.chunks(m.object)).map_err(|e| refused(e.to_string()))?;
    let stands_for = failed.to_string();
    let mut parts = Vec::new();
    // Our result of the stack below, when there is one, gives the groups
    // if it is the cache's surface renumbered (`cache_smoothing`).
    // Not through a Boolean we compute: its result has Max's vertices and
    // triangles (`boolean::corners`), but which smoothing groups Max gives
    // the operands' faces is not derived (Can.max: carried, 552 of the
    // FBX's 1,716 corner normals differed).
    let boolean = stack[at + 1..]
        .iter()
        .any(|a| a.class == super::boolean_mod::BOOLEAN_MOD)
        || super::base_class(cx, base)
            .is_ok_and(|c| crate::eval::objects::boolean::is_recomputed(c.class_id));
    let carried = ours
        .filter(|_| !boolean)
        .map(|b| cache_smoothing::carry(&mut poly, b));
    if !matches!(carried, Some(Ok(()))) {
        let unmatched = match carried {
            Some(Err(why)) => format!("; ours, renumbered, do not match it: {why}"),
            None if boolean => "; ours are not carried through a Boolean (which smoothing groups Max gives its operands' faces is not derived)".to_string(),
            _ => String::new(),
        };
        parts.push(MissingPart {
            part: "smoothing groups".into(),
            source: SOURCE.into(),
            reason: format!(
                "the cache holds none; it stands in for the stack below ({stands_for}){unmatched}"
            ),
        });
    }
    if non_planar > 0 {
        parts.push(MissingPart {
            part: "triangulation".into(),
            source: SOURCE.into(),
            reason: format!(
                "{non_planar} polygons are not planar and Max's diagonals are not in the cache (ours fan from corner 0)"
            ),
        });
    }
    if folded > 0 {
        parts.push(MissingPart {
            part: "triangulation".into(),
            source: SOURCE.into(),
            reason: format!(
                "{folded} polygons fold over themselves (no ear to clip) and Max's triangles are not in the cache (ours fan from corner 0)"
            ),
        });
    }
    let channels = channels_below(stack, at, base, cx);
    if !channels.is_empty() {
        parts.push(MissingPart {
            part: "map channels".into(),
            source: SOURCE.into(),
            reason: format!("the stack below carries {channels}, which the cache does not hold"),
        });
    }
    Ok((poly, parts))
}

/// The first modifier of the node's stack below `stack[at]` that `stack`
/// (a request leaving one out: the NeL export disables the Skin) lacks. The
/// cache is Max's result with every modifier below applied, so it cannot
/// stand in for a stack without one of them (Evan-Barry's Alien: an Unwrap
/// above MeshSmooth above the Skin cached the skinned, smoothed mesh).
fn left_out_below(stack: &[Applied], at: usize, cx: &ModContext) -> Option<String> {
    // A Boolean operand's stack is its derived object's, never filtered.
    let node = cx.node.filter(|_| cx.object.is_none())?;
    let (full, _) = cx.eval.modifier_stack(node)?;
    let unwrap = stack.get(at)?.object;
    let pos = full.iter().position(|a| a.object == unwrap)?;
    let kept = stack.get(at + 1..).unwrap_or(&[]);
    full.get(pos + 1..)?
        .iter()
        .find(|a| !kept.iter().any(|k| k.object == a.object))
        .map(|a| a.name.to_string())
}

/// `failed` with why the cache could not stand in for it; a modifier's
/// refusal stays that modifier's (coverage names it).
fn cannot_stand_in(failed: EvalError, why: &str) -> EvalError {
    let note = format!("{SOURCE} cannot stand in: {why}");
    match failed {
        EvalError::Modifier {
            name,
            class,
            source,
        } => EvalError::Modifier {
            name,
            class,
            source: Some(Box::new(EvalError::not_evaluated_why(
                source.map_or_else(|| "its class".to_string(), |s| s.to_string()),
                note,
            ))),
        },
        other => EvalError::not_evaluated_why(other.to_string(), note),
    }
}

/// The nodes the stack belongs to: the node evaluated and every node whose
/// stack holds this same modifier application (instances).
fn holders(m: &Applied, cx: &ModContext) -> Vec<usize> {
    let same = |a: &Applied| {
        a.object == m.object
            && match (a.mod_app, m.mod_app) {
                (Some(x), Some(y)) => std::ptr::eq(x, y),
                _ => false,
            }
    };
    let mut out: Vec<usize> = cx.node.into_iter().collect();
    for (o, _) in cx.eval.graph.nodes() {
        if out.contains(&o.index) {
            continue;
        }
        if let Some((stack, _)) = cx.eval.modifier_stack(o.index) {
            if stack.iter().any(same) {
                out.push(o.index);
            }
        }
    }
    out
}

/// Map channels other than 1 the stack below the Unwrap carries, which the
/// cache does not hold: the base object's and those a texture-coordinate
/// modifier below writes; "" when none.
fn channels_below(stack: &[Applied], at: usize, base: usize, cx: &ModContext) -> String {
    let mut channels: Vec<i32> = Vec::new();
    let mut unknown = Vec::new();
    match cx.eval.object_mesh_of(base, cx.t) {
        Some(Ok(mesh)) => channels.extend(mesh.maps.iter().map(|c| c.channel)),
        Some(Err(_)) => unknown.push("the base object's (not evaluated)".to_string()),
        None => {}
    }
    for a in &stack[at + 1..] {
        if uv_only::is_uv_only(a.class) {
            match uv_only::channel(a, cx) {
                Some(c) => channels.push(c),
                None => unknown.push(format!("{}'s (channel not read)", a.name)),
            }
        }
    }
    channels.retain(|&c| c != 1);
    channels.sort_unstable();
    channels.dedup();
    let mut out: Vec<String> = channels.iter().map(|c| format!("channel {c}")).collect();
    out.extend(unknown);
    out.join(", ")
}

/// What Unwrap UVW cached of its input, and how sure its triangles are.
#[derive(Debug)]
pub(super) struct Cached {
    /// Channel 1 its map, no smoothing groups.
    pub poly: PolyMesh,
    /// Polygons not planar: Max's diagonals are unknown, ours fan.
    pub non_planar: usize,
    /// Polygons folded over themselves (no ear to clip): fanned from corner 0.
    pub folded: usize,
    /// Triangles' edges the cache marks hidden (flags bits 8–10), as
    /// directed vertex pairs of `poly`.
    pub hidden: Vec<[u32; 2]>,
}

/// Hides the edges of `mesh` (the stand-in of Unwrap UVW `m`'s cache) that
/// the cache's triangles mark hidden: on a triangle-mesh input each record
/// is one input face, and its flags keep the face's edge visibility (bits
/// 8–10, edges 0–2; Evan-Barry's hand files: 248 marked edges, each the twin
/// of another, the diagonals of 124 quads). The mask is applied only when
/// every marked edge is a side of a face and its twin is marked too (an
/// interior edge hidden from both sides); otherwise the edges stay as the
/// polygons make them and the mesh says why.
pub(super) fn hide_edges(m: &Applied, cx: &ModContext, mesh: &mut Mesh) {
    let local = m
        .mod_app
        .and_then(|a| a.children().iter().find(|c| c.id == LOCAL_DATA))
        .map_or(&[][..], Chunk::children);
    let Ok(Cached { hidden, .. }) = input(local, cx.eval.chunks(m.object)) else {
        return;
    };
    if !hide_marked(&hidden, mesh) {
        mesh.missing_parts.push(MissingPart {
            part: "edge visibility".into(),
            source: SOURCE.into(),
            reason: format!(
                "{} edges marked hidden in the cache do not pair up as interior edges of its faces",
                hidden.len()
            ),
        });
    }
}

/// Clears the visibility of `mesh`'s face sides running along `hidden`
/// (directed vertex pairs); false, leaving `mesh` alone, when a pair is not
/// a face side or its twin is not marked too.
fn hide_marked(hidden: &[[u32; 2]], mesh: &mut Mesh) -> bool {
    use std::collections::HashSet;
    let set: HashSet<[u32; 2]> = hidden.iter().copied().collect();
    if !hidden.iter().all(|&[a, b]| set.contains(&[b, a])) {
        return false;
    }
    let mut slots = Vec::with_capacity(hidden.len());
    let mut found = HashSet::new();
    for (i, f) in mesh.faces.iter().enumerate() {
        for k in 0..3 {
            let e = [f.v[k], f.v[(k + 1) % 3]];
            if set.contains(&e) {
                slots.push((i, k));
                found.insert(e);
            }
        }
    }
    if found.len() != set.len() {
        return false;
    }
    for (i, k) in slots {
        mesh.faces[i].flags &= !(1 << k);
    }
    true
}

/// The polygon mesh Unwrap UVW cached of its input (`local`: its local data,
/// `own`: the modifier's chunks).
pub(super) fn input(local: &[Chunk], own: &[Chunk]) -> Result<Cached, EvalError> {
    let p = local
        .iter()
        .find(|c| c.id == GEOMETRY)
        .and_then(Chunk::payload)
        .ok_or_else(|| EvalError::malformed("", "no cached vertices (chunk 0x0330)"))?;
    let records = super::records(p, 12, "cached vertices (0x0330)")?;
    if records.len() > MAX_VERTICES {
        return Err(EvalError::limit("cached vertices", MAX_VERTICES));
    }
    let vertices: Vec<Vec3> = records
        .iter()
        .map(|r| {
            let v = super::vec_at(r, 0);
            Vec3(v.0 as f32 as f64, v.1 as f32 as f64, v.2 as f32 as f64)
        })
        .collect();
    let (map_vertices, polygons) = stored(local, own)?;
    let mut faces = Vec::with_capacity(polygons.len());
    let mut map_faces = Vec::with_capacity(polygons.len());
    let (mut non_planar, mut folded) = (0, 0);
    let mut hidden = Vec::new();
    for (
        i,
        Polygon {
            v,
            t,
            material,
            flags,
        },
    ) in polygons.into_iter().enumerate()
    {
        if v.len() == 3 {
            hidden.extend(
                (0..3)
                    .filter(|k| flags >> (HIDDEN_SHIFT + k) & 1 != 0)
                    .map(|k| [v[k as usize], v[(k as usize + 1) % 3]]),
            );
        }
        if v.len() > MAX_DEGREE {
            return Err(EvalError::limit("cached polygon degree", MAX_DEGREE));
        }
        let Some(corners) = v
            .iter()
            .map(|&x| vertices.get(x as usize).copied())
            .collect::<Option<Vec<Vec3>>>()
        else {
            return Err(EvalError::reference(
                format!("cached polygon {i}"),
                format!("a corner past the {} cached vertices", vertices.len()),
            ));
        };
        let material = u16::try_from(material).map_err(|_| {
            EvalError::malformed(
                format!("cached polygon {i}"),
                format!("material id {material}"),
            )
        })?;
        if !planar(&corners) {
            non_planar += 1;
        }
        // A polygon folded over itself still has its corners and map; its
        // surface is what the fan makes, named as a gap by the caller.
        let tris = triangulate(&corners).unwrap_or_else(|| {
            folded += 1;
            (1..corners.len().saturating_sub(1))
                .map(|k| [0, k, k + 1])
                .collect()
        });
        faces.push(PolyFace {
            v,
            tris,
            material,
            smoothing: 0,
        });
        map_faces.push(t);
    }
    // Vertices no polygon uses (dead ones of the MNMesh the Unwrap was
    // given) are not in Max's result: the others keep their order.
    let mut used = vec![false; vertices.len()];
    for f in &faces {
        for &v in &f.v {
            used[v as usize] = true;
        }
    }
    let mut renumber = vec![0u32; vertices.len()];
    let mut kept = Vec::with_capacity(vertices.len());
    for (i, p) in vertices.into_iter().enumerate() {
        if used[i] {
            renumber[i] = kept.len() as u32;
            kept.push(p);
        }
    }
    for f in &mut faces {
        for v in &mut f.v {
            *v = renumber[*v as usize];
        }
    }
    for e in &mut hidden {
        *e = e.map(|v| renumber[v as usize]);
    }
    let poly = PolyMesh {
        vertices: kept,
        faces,
        maps: vec![PolyMap {
            channel: 1,
            vertices: map_vertices,
            faces: map_faces,
        }],
        edges: None,
        normals: None,
    };
    poly.validate()?;
    Ok(Cached {
        poly,
        non_planar,
        folded,
        hidden,
    })
}

pub(super) use crate::eval::core::math::newell;

/// Whether every corner lies within [`PLANAR`] of the polygon's size from the
/// plane through its centroid along its Newell normal.
pub(super) fn planar(p: &[Vec3]) -> bool {
    if p.len() <= 3 {
        return true;
    }
    let n = newell(p);
    let len = n.len();
    let c = p
        .iter()
        .fold(Vec3(0.0, 0.0, 0.0), |s, x| s.plus(*x))
        .scale(1.0 / p.len() as f64);
    let size = p.iter().map(|x| x.minus(c).len()).fold(0.0, f64::max);
    if len <= 0.0 || size <= 0.0 {
        return true;
    }
    let n = n.scale(1.0 / len);
    p.iter()
        .all(|x| x.minus(c).dot(n).abs() <= PLANAR * 2.0 * size)
}

/// Triangles (corner index triples, in the polygon's order) covering a
/// polygon: ears clipped in its plane, the lowest convex corner first, so a
/// convex polygon fans from corner 0 (`MNFace::MakePoly`'s triangulation, and
/// the diagonal Max's FBX export shows on most cached quads). A polygon that
/// passes a vertex twice (a hole bridged to its outline) is clipped the
/// same way; a corner on a clipped ear's corner does not block it. Corners on
/// the line of their neighbours are clipped as zero-area triangles when no
/// ear is left. None when neither is left (a polygon folded over itself).
pub(super) fn triangulate(p: &[Vec3]) -> Option<Vec<[usize; 3]>> {
    let n = newell(p);
    let mut ring: Vec<usize> = (0..p.len()).collect();
    let mut tris = Vec::with_capacity(p.len().saturating_sub(2));
    let turn = |a: usize, b: usize, c: usize| p[b].minus(p[a]).cross(p[c].minus(p[b])).dot(n);
    let scale = n.len();
    let eps = 1e-12 * scale.max(f64::MIN_POSITIVE);
    while ring.len() > 3 {
        let k = ring.len();
        let corners = |j: usize| (ring[(j + k - 1) % k], ring[j], ring[(j + 1) % k]);
        // From corner 1: a convex polygon's first ear is 0 1 2.
        let order = || (1..k).chain(0..1);
        let ear = order()
            .find(|&j| {
                let (a, b, c) = corners(j);
                turn(a, b, c) > eps
                    && ring.iter().all(|&x| {
                        [a, b, c].contains(&x)
                            || [a, b, c].iter().any(|&y| p[y] == p[x])
                            || !inside(p, n, [a, b, c], x)
                    })
            })
            // Else a corner on the line of its neighbours (a doubled corner,
            // as Booleans leave): clipping it leaves the same outline, and
            // Max keeps such a polygon's zero-area triangles too.
            .or_else(|| {
                order().find(|&j| {
                    let (a, b, c) = corners(j);
                    turn(a, b, c).abs() <= eps
                })
            })?;
        let (a, b, c) = (ring[(ear + k - 1) % k], ring[ear], ring[(ear + 1) % k]);
        tris.push(sorted_cyclic(a, b, c));
        ring.remove(ear);
    }
    if ring.len() == 3 {
        tris.push(sorted_cyclic(ring[0], ring[1], ring[2]));
    }
    Some(tris)
}

/// A triangle's corners rotated to start at its lowest corner (same winding).
fn sorted_cyclic(a: usize, b: usize, c: usize) -> [usize; 3] {
    if a <= b && a <= c {
        [a, b, c]
    } else if b <= a && b <= c {
        [b, c, a]
    } else {
        [c, a, b]
    }
}

/// Whether corner `x` lies inside or on triangle `t` (seen along `n`).
fn inside(p: &[Vec3], n: Vec3, t: [usize; 3], x: usize) -> bool {
    let q = p[x];
    (0..3).all(|i| {
        let (a, b) = (p[t[i]], p[t[(i + 1) % 3]]);
        b.minus(a).cross(q.minus(a)).dot(n) >= 0.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> Vec3 {
        Vec3(x, y, 0.0)
    }

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A unit square cached as two triangles whose shared diagonal both
    /// mark hidden (flags bits 8–10, as on Evan-Barry's hand files).
    fn square_cache(flags: [u32; 2]) -> Vec<Chunk> {
        let mut geo = words(&[4]);
        let mut tv = words(&[4]);
        for (x, y) in [(0.0f32, 0.0f32), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
            geo.extend([x, y, 0.0].iter().flat_map(|f| f.to_le_bytes()));
            tv.extend(
                [x, y, 0.0, 0.0, 0.0, 0.0]
                    .iter()
                    .flat_map(|f| f.to_le_bytes()),
            );
        }
        // degree, texture vertices, face index, material, flags, vertices.
        let faces = words(&[
            2, 3, 0, 1, 2, 0, 0, flags[0], 0, 1, 2, 3, 0, 2, 3, 1, 0, flags[1], 0, 2, 3,
        ]);
        vec![
            Chunk::leaf(0x0860, tv),
            Chunk::leaf(0x0870, faces),
            Chunk::leaf(GEOMETRY, geo),
        ]
    }

    #[test]
    fn hidden_edge_flags_of_cached_triangles_hide_the_shared_diagonal() {
        // Triangle (0 1 2) hides its edge 2 (2→0), (0 2 3) its edge 0 (0→2).
        let c = input(&square_cache([0x400, 0x100]), &[]).expect("cache");
        assert_eq!(c.hidden, vec![[2, 0], [0, 2]]);
        let mut mesh = c.poly.to_mesh().expect("mesh");
        assert!(mesh.faces.iter().all(|f| f.flags & 0b111 == 0b111));
        assert!(hide_marked(&c.hidden, &mut mesh));
        let hidden: Vec<[u32; 2]> = mesh
            .faces
            .iter()
            .flat_map(|f| {
                (0..3)
                    .filter(|&k| f.flags & (1 << k) == 0)
                    .map(|k| [f.v[k], f.v[(k + 1) % 3]])
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(hidden.len(), 2);
        assert!(hidden.contains(&[2, 0]) && hidden.contains(&[0, 2]));
        // Joined across it, the two triangles are one quad.
        let poly = crate::eval::objects::poly_make::as_max_converts(&mesh).expect("joins");
        assert_eq!(poly.faces.len(), 1);
        assert_eq!(poly.faces[0].v.len(), 4);
    }

    #[test]
    fn a_hidden_mark_without_its_twin_changes_nothing() {
        // Only the first triangle marks the diagonal: no interior hidden edge.
        let c = input(&square_cache([0x400, 0]), &[]).expect("cache");
        let mut mesh = c.poly.to_mesh().expect("mesh");
        let before = mesh.faces.clone();
        assert!(!hide_marked(&c.hidden, &mut mesh));
        assert_eq!(mesh.faces, before);
        // A marked pair that is no face side is refused too.
        assert!(!hide_marked(&[[1, 3], [3, 1]], &mut mesh));
        assert_eq!(mesh.faces, before);
        // No marks: nothing to do.
        assert!(hide_marked(&[], &mut mesh));
    }

    #[test]
    fn a_convex_polygon_fans_from_corner_zero() {
        let sq = [v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0)];
        assert_eq!(triangulate(&sq), Some(vec![[0, 1, 2], [0, 2, 3]]));
        assert!(planar(&sq));
        let bent = [v(0.0, 0.0), v(1.0, 0.0), Vec3(1.0, 1.0, 0.5), v(0.0, 1.0)];
        assert!(!planar(&bent));
    }

    #[test]
    fn a_concave_polygon_is_covered_without_leaving_it() {
        // An L: the reflex corner 3 must not be fanned across.
        let l = [
            v(0.0, 0.0),
            v(2.0, 0.0),
            v(2.0, 1.0),
            v(1.0, 1.0),
            v(1.0, 2.0),
            v(0.0, 2.0),
        ];
        let t = triangulate(&l).expect("triangles");
        assert_eq!(t.len(), 4);
        let area: f64 = t
            .iter()
            .map(|&[a, b, c]| l[b].minus(l[a]).cross(l[c].minus(l[a])).2 / 2.0)
            .sum();
        assert!((area - 3.0).abs() < 1e-12, "area {area}");
        assert!(t
            .iter()
            .all(|&[a, b, c]| { l[b].minus(l[a]).cross(l[c].minus(l[a])).2 > 0.0 }));
    }

    #[test]
    fn a_hole_bridged_to_its_outline_is_covered() {
        // Square 0..4 with a square hole, bridged at corner 0: the loop runs
        // outline, bridge, hole (clockwise), back along the bridge.
        let p = [
            v(0.0, 0.0),
            v(4.0, 0.0),
            v(4.0, 4.0),
            v(0.0, 4.0),
            v(0.0, 0.0),
            v(1.0, 1.0),
            v(1.0, 3.0),
            v(3.0, 3.0),
            v(3.0, 1.0),
            v(1.0, 1.0),
        ];
        let t = triangulate(&p).expect("triangles");
        assert_eq!(t.len(), p.len() - 2);
        let area: f64 = t
            .iter()
            .map(|&[a, b, c]| p[b].minus(p[a]).cross(p[c].minus(p[a])).2 / 2.0)
            .sum();
        assert!((area - 12.0).abs() < 1e-9, "area {area}");
    }

    #[test]
    fn a_folded_polygon_is_fanned_and_counted() {
        fn words(w: &[u32]) -> Vec<u8> {
            w.iter().flat_map(|x| x.to_le_bytes()).collect()
        }
        // An outline crossing itself twice: each corner either turns against
        // the polygon's normal or holds another corner in its ear.
        let corners = [
            (2.0f32, 1.0f32),
            (3.0, 4.0),
            (0.0, 0.0),
            (4.0, 4.0),
            (4.0, 3.0),
            (1.0, 1.0),
        ];
        let as_vec: Vec<Vec3> = corners
            .iter()
            .map(|&(x, y)| v(x.into(), y.into()))
            .collect();
        assert_eq!(triangulate(&as_vec), None);
        let mut g = words(&[6]);
        for &(x, y) in &corners {
            g.extend(words(&[x.to_bits(), y.to_bits(), 0]));
        }
        let mut tv = words(&[6]);
        for i in 0..6u32 {
            tv.extend(words(&[(i as f32).to_bits(), 0, 0, 0, 0, 0]));
        }
        let star = Chunk::leaf(
            0x0870,
            words(&[1, 6, 0, 1, 2, 3, 4, 5, 0, 4, 0, 0, 1, 2, 3, 4, 5]),
        );
        let local = vec![Chunk::leaf(0x0860, tv), star, Chunk::leaf(GEOMETRY, g)];
        let cached = input(&local, &[]).expect("cache");
        assert_eq!(cached.folded, 1);
        assert_eq!(
            cached.poly.faces[0].tris,
            [[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 5]]
        );
    }

    #[test]
    fn a_damaged_cache_is_a_precise_error() {
        fn words(w: &[u32]) -> Vec<u8> {
            w.iter().flat_map(|x| x.to_le_bytes()).collect()
        }
        let geometry = |n: u32, points: usize| {
            let mut g = words(&[n]);
            for i in 0..points {
                g.extend(words(&[
                    (i as f32).to_bits(),
                    (i as f32 * 0.5).to_bits(),
                    0,
                ]));
            }
            Chunk::leaf(GEOMETRY, g)
        };
        let mut tv = words(&[3]);
        for i in 0..3u32 {
            tv.extend(words(&[(i as f32).to_bits(), 0, 0, 0, 0, 0]));
        }
        // One triangle on geometry vertices 0 1 2, material 4.
        let tri = |last: u32| Chunk::leaf(0x0870, words(&[1, 3, 0, 1, 2, 0, 4, 0, 0, 1, last]));
        let local = vec![Chunk::leaf(0x0860, tv.clone()), tri(2), geometry(3, 3)];
        let Cached { poly, .. } = input(&local, &[]).expect("cache");
        assert_eq!(poly.faces[0].v, [0, 1, 2]);
        assert_eq!(poly.faces[0].material, 4);
        assert_eq!(poly.faces[0].smoothing, 0);
        let mesh = poly.to_mesh().expect("mesh");
        assert_eq!(mesh.faces.len(), 1);
        assert_eq!(mesh.maps[0].channel, 1);
        // A corner past the cached vertices.
        let local = vec![Chunk::leaf(0x0860, tv.clone()), tri(7), geometry(3, 3)];
        let e = input(&local, &[]).expect_err("corner past the vertices");
        assert!(e.to_string().contains("past the 3 cached vertices"), "{e}");
        // A count the positions do not fill (truncated).
        let local = vec![Chunk::leaf(0x0860, tv.clone()), tri(2), geometry(5, 3)];
        let e = input(&local, &[]).expect_err("truncated");
        assert!(e.to_string().contains("0x0330"), "{e}");
        // Truncated polygons.
        let local = vec![
            Chunk::leaf(0x0860, tv),
            Chunk::leaf(0x0870, words(&[1, 3, 0, 1])),
            geometry(3, 3),
        ];
        assert!(input(&local, &[]).is_err());
    }
}
