//! Triangle meshes of Editable Mesh objects (GeomBuffers 0x08fe): vertices, faces
//! with smoothing groups and material ids, and map channels.

use crate::eval::error::EvalError;
use serde::Serialize;

use crate::chunk::Chunk;

mod dead;
mod legacy;

use crate::eval::core::keys::Words;
use crate::eval::core::math::Vec3;
use crate::eval::objects::specified_normals::{
    SpecifiedNormals, MESH_NORMAL_SPEC, POLY_NORMAL_SPEC,
};

/// Editable Poly class id.
pub const EDITABLE_POLY: crate::typed::ClassId = crate::typed::ClassId(0x1bf8338d, 0x192f6098);
/// Editable Mesh class id.
pub const EDITABLE_MESH: crate::typed::ClassId = crate::typed::ClassId(0xe44f10b3, 0);
/// Derived objects hold the base object in their last reference.
const GEOM_BUFFERS: u16 = 0x08fe;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Face {
    pub v: [u32; 3],
    pub smoothing: u32,
    pub material: u16,
    /// Edge visibility and other low flag bits.
    pub flags: u16,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MapChannel {
    /// 0 = vertex colour, 1.. = texture channels.
    pub channel: i32,
    pub vertices: Vec<[f32; 3]>,
    pub faces: Vec<[u32; 3]>,
}

impl MapChannel {
    /// Removes the map vertices no face uses, keeping the order of the
    /// others (Max's `DeleteIsoMapVerts`); a face naming a vertex the
    /// channel lacks keeps its index.
    pub fn drop_unused_vertices(&mut self) {
        drop_unreferenced(&mut self.vertices, self.faces.iter_mut().flatten());
    }
}

/// Removes the entries of `vertices` that no index names, keeping the order
/// of the others, and renumbers the indices to match; an index beyond
/// `vertices` is left as it is (what the mesh, polygon and map forms share).
pub fn drop_unreferenced<'a, T>(vertices: &mut Vec<T>, indices: impl Iterator<Item = &'a mut u32>) {
    let mut indices: Vec<&mut u32> = indices.collect();
    let mut used = vec![false; vertices.len()];
    for t in &indices {
        if let Some(u) = used.get_mut(**t as usize) {
            *u = true;
        }
    }
    let mut new_index = vec![0u32; used.len()];
    let mut next = 0u32;
    for (i, &u) in used.iter().enumerate() {
        new_index[i] = next;
        next += u32::from(u);
    }
    for t in &mut indices {
        **t = new_index.get(**t as usize).copied().unwrap_or(**t);
    }
    let mut u = used.iter();
    vertices.retain(|_| *u.next().unwrap_or(&false));
}

#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Mesh {
    pub vertices: Vec<Vec3>,
    pub faces: Vec<Face>,
    pub maps: Vec<MapChannel>,
    /// User-specified normals (Editable Mesh's MeshNormalSpec), per face;
    /// dropped by modifiers that change geometry or topology, as Max does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normals: Option<super::specified_normals::SpecifiedNormals>,
    /// Map channels a texture-coordinate-only modifier (UVW Map, Unwrap UVW)
    /// should have written but could not: the geometry is kept, the channel
    /// is absent (never the stale values below the modifier), and coverage,
    /// errors.txt and the exporters name it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing_maps: Vec<MissingMap>,
    /// Specified normals left out because an operation's effect on them is
    /// not derived: the geometry is kept and smoothing groups give the
    /// normals, and coverage, errors.txt and the exporters name it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_normals: Option<MissingNormals>,
    /// Parts of the mesh that a result Max saved stands in for but does not
    /// hold (an Unwrap UVW's cache of its input has no smoothing groups):
    /// absent, never invented, and named by coverage, errors.txt and the
    /// exporters.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing_parts: Vec<MissingPart>,
}

/// A part of the mesh left out (see [`Mesh::missing_parts`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MissingPart {
    /// What is missing ("smoothing groups").
    pub part: String,
    /// Where the mesh came from ("the Unwrap UVW cache").
    pub source: String,
    /// Why it is missing and what the cache stands in for.
    pub reason: String,
}

impl MissingPart {
    /// `smoothing groups of the Unwrap UVW cache: …`.
    pub fn describe(&self) -> String {
        format!("{} of {}: {}", self.part, self.source, self.reason)
    }
}

/// Specified normals left out by a modifier (see [`Mesh::missing_normals`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MissingNormals {
    /// The modifier's name on the stack ("Edit Poly").
    pub modifier: String,
    /// Why they are left out.
    pub reason: String,
}

impl MissingNormals {
    /// `specified normals of modifier Edit Poly: …`.
    pub fn describe(&self) -> String {
        format!(
            "specified normals of modifier {}: {}",
            self.modifier, self.reason
        )
    }
}

/// A map channel left out because the modifier that writes it is not evaluated.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MissingMap {
    /// The channel (0 vertex colour, 1.. texture); None when the modifier's
    /// own channel parameter could not be read (every channel it may write
    /// is then removed: see `modifier::uv_only`).
    pub channel: Option<i32>,
    /// The modifier's class name ("UVW Map").
    pub modifier: String,
    /// Why it is not evaluated.
    pub reason: String,
}

impl MissingMap {
    /// `channel 1 (UVW Map: box mapping is not evaluated)`.
    pub fn describe(&self) -> String {
        let ch = self.channel.map_or_else(
            || "its map channel".to_string(),
            |c| format!("map channel {c}"),
        );
        format!("{ch} of modifier {}: {}", self.modifier, self.reason)
    }
}

impl Mesh {
    /// Removes vertices no face uses, keeping the order of the others (the
    /// map channels are left as they are).
    pub fn drop_unused_vertices(&mut self) {
        drop_unreferenced(
            &mut self.vertices,
            self.faces.iter_mut().flat_map(|f| f.v.iter_mut()),
        );
    }

    /// Every map channel has one map face per mesh face — what the modifiers
    /// that copy or cut faces need before they touch the maps.
    pub fn check_map_faces(&self) -> Result<(), EvalError> {
        let nf = self.faces.len();
        match self.maps.iter().find(|c| c.faces.len() != nf) {
            Some(c) => Err(EvalError::malformed(
                "",
                format!(
                    "map channel {} has {} faces for {nf} mesh faces",
                    c.channel,
                    c.faces.len()
                ),
            )),
            None => Ok(()),
        }
    }
}

/// A u32 count followed by `count` records of `size` bytes, exactly.
fn counted<'a>(p: &'a [u8], size: usize, what: &str) -> Result<(usize, &'a [u8]), EvalError> {
    if p.len() < 4 {
        return Err(EvalError::malformed(
            what.to_string(),
            format!("{} bytes cannot hold a count", p.len()),
        ));
    }
    let n = Words(p).u32(0) as usize;
    let body = &p[4..];
    if n.checked_mul(size) != Some(body.len()) {
        return Err(EvalError::malformed(
            what.to_string(),
            format!(
                "count {n} × {size} bytes does not match the {} bytes stored",
                body.len()
            ),
        ));
    }
    Ok((n, body))
}

/// Map vertices (UVW) of Editable Mesh (0x2394) and Editable Poly (0x0128):
/// a count and float triples.
fn map_vertices(p: &[u8], what: &str) -> Result<Vec<[f32; 3]>, EvalError> {
    let (_, body) = counted(p, 12, what)?;
    Ok(body
        .chunks_exact(12)
        .map(|r| {
            let w = Words(r);
            [w.f(0) as f32, w.f(1) as f32, w.f(2) as f32]
        })
        .collect())
}

fn vertices(p: &[u8]) -> Result<Vec<Vec3>, EvalError> {
    let (_, body) = counted(p, 12, "vertices (0x0914)")?;
    Ok(body
        .chunks_exact(12)
        .map(|r| {
            let w = Words(r);
            Vec3(w.f(0), w.f(1), w.f(2))
        })
        .collect())
}

fn faces(p: &[u8], nverts: usize) -> Result<Vec<Face>, EvalError> {
    let (_, body) = counted(p, 20, "faces (0x0912)")?;
    body.chunks_exact(20)
        .enumerate()
        .map(|(i, r)| {
            let w = Words(r);
            let v = [w.u32(0), w.u32(1), w.u32(2)];
            if v.iter().any(|&x| x as usize >= nverts) {
                return Err(EvalError::malformed(
                    "",
                    format!("face {i} uses vertex {v:?} of {nverts}"),
                ));
            }
            let f = w.u32(4);
            Ok(Face {
                v,
                smoothing: w.u32(3),
                material: (f >> 16) as u16,
                flags: (f & 0xffff) as u16,
            })
        })
        .collect()
}

/// Decodes the GeomBuffers of an Editable Mesh object.
pub fn editable_mesh(object: &[Chunk]) -> Result<Mesh, EvalError> {
    let geom = object
        .iter()
        .find(|c| c.id == GEOM_BUFFERS)
        .ok_or_else(|| EvalError::malformed("", "no GeomBuffers (0x08fe) chunk"))?;
    mesh_buffers(geom.children())
}

/// Decodes a triangle mesh as `Mesh::Save` writes it (vertices 0x0914, faces
/// 0x0912, map channels 0x0959/0x2394/0x2396): an Editable Mesh's GeomBuffers,
/// or the result a ProBoolean caches.
pub fn mesh_buffers(geom: &[Chunk]) -> Result<Mesh, EvalError> {
    let leaf = |id: u16| geom.iter().find(|c| c.id == id).and_then(Chunk::payload);
    let vertices =
        vertices(leaf(0x0914).ok_or_else(|| EvalError::malformed("", "no vertex chunk 0x0914"))?)?;
    let faces = faces(
        leaf(0x0912).ok_or_else(|| EvalError::malformed("", "no face chunk 0x0912"))?,
        vertices.len(),
    )?;
    let mut maps = Vec::new();
    let mut missing_parts = Vec::new();
    let mut channel = None;
    let mut mverts: Option<Vec<[f32; 3]>> = None;
    for c in geom {
        match (c.id, c.payload()) {
            (0x0959, Some(p)) if p.len() == 4 => channel = Some(Words(p).i32(0)),
            (0x2394, Some(p)) => {
                mverts = Some(map_vertices(p, "map vertices (0x2394)")?);
            }
            (0x2396, Some(p)) => {
                let (_, body) = counted(p, 12, "map faces (0x2396)")?;
                let verts = mverts.take().unwrap_or_default();
                let mf: Vec<[u32; 3]> = body
                    .chunks_exact(12)
                    .map(|r| {
                        let w = Words(r);
                        [w.u32(0), w.u32(1), w.u32(2)]
                    })
                    .collect();
                let ch = channel.take().unwrap_or(1);
                let bad = mf
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.iter().any(|&i| i as usize >= verts.len()));
                if let Some((first, f)) = bad.clone().next() {
                    let why = format!(
                        "map face {first} uses map vertex {} of {} ({} of {} faces out of range)",
                        f.iter().max().copied().unwrap_or(0),
                        verts.len(),
                        bad.count(),
                        mf.len()
                    );
                    if !HIDDEN_CHANNELS.contains(&ch) {
                        return Err(EvalError::malformed(
                            format!("map channel {ch} (0x2396)"),
                            why,
                        ));
                    }
                    // Seen on a ProBoolean's cached result (clock.max, Max 2018):
                    // the alpha and illumination channels' last faces hold
                    // stray words (0xff515151 …) over all-zero map vertices,
                    // while the geometry and channels 0 and 1 are whole. The
                    // channel is left out and named; the mesh is kept.
                    missing_parts.push(MissingPart {
                        part: format!("map channel {ch} ({})", hidden_channel_name(ch)),
                        source: "the stored triangle mesh".to_string(),
                        reason: why,
                    });
                    continue;
                }
                maps.push(MapChannel {
                    channel: ch,
                    vertices: verts,
                    faces: mf,
                });
            }
            _ => {}
        }
    }
    let normals = match geom.iter().find(|c| c.id == MESH_NORMAL_SPEC) {
        Some(c) => {
            Some(SpecifiedNormals::decode(c.children(), faces.len()).map_err(EvalError::from)?)
        }
        None => None,
    };
    Ok(Mesh {
        vertices,
        faces,
        maps,
        normals,
        missing_maps: Vec::new(),
        missing_normals: None,
        missing_parts,
    })
}

/// Max's hidden map channels: −2 vertex alpha, −1 vertex illumination.
const HIDDEN_CHANNELS: [i32; 2] = [-2, -1];

fn hidden_channel_name(ch: i32) -> &'static str {
    if ch == -2 {
        "vertex alpha"
    } else {
        "vertex illumination"
    }
}

/// Bits of a poly face record that announce optional fields.
const POLY_EXTRA: u16 = 0x01;
const POLY_MATERIAL: u16 = 0x08;
const POLY_SMOOTHING: u16 = 0x10;
const POLY_CUTS: u16 = 0x20;

/// A polygon of an Editable Poly, before triangulation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Poly {
    pub v: Vec<u32>,
    pub material: u16,
    pub smoothing: u32,
    /// Diagonals (local corner a, local corner b) that cut the polygon into triangles.
    pub cuts: Vec<(u32, u32)>,
}

/// Reads little-endian fields off a byte slice with bounds checks.
struct Cursor<'a> {
    p: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], EvalError> {
        let s = self.p.get(self.at..self.at + n).ok_or_else(|| {
            EvalError::malformed(
                what.to_string(),
                format!(
                    "expected {n} bytes at offset {}, {} left",
                    self.at,
                    self.p.len() - self.at.min(self.p.len())
                ),
            )
        })?;
        self.at += n;
        Ok(s)
    }
    fn u32(&mut self, what: &str) -> Result<u32, EvalError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u16(&mut self, what: &str) -> Result<u16, EvalError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
}

/// The triangles an Editable Poly's selected polygons give (MNFace's MN_SEL
/// flag), one entry per triangle of the mesh [`editable_poly`] builds from
/// its GeomBuffers `geom`: each live polygon's flag repeated over its
/// triangles, in the same order. A face-level modifier above (UVW Map)
/// acts on these triangles.
pub fn poly_selected_triangles(geom: &[Chunk]) -> Result<Vec<bool>, EvalError> {
    let leaf = |id: u16| geom.iter().find(|c| c.id == id).and_then(Chunk::payload);
    let faces = leaf(0x011a).ok_or_else(|| {
        EvalError::not_evaluated_why(
            "a face selection",
            "the faces are in per-face records, whose flags are not read",
        )
    })?;
    let vertices = dead::poly_vertices(
        leaf(0x0100).ok_or_else(|| EvalError::malformed("", "no poly vertex chunk 0x0100"))?,
    )?;
    let mut out = Vec::new();
    for (poly, flags) in poly_faces_flagged(faces, vertices.len())? {
        // A dead polygon (no corners) gives no triangle (`dead::collapse`).
        let n = triangle_count(&poly);
        out.extend(std::iter::repeat_n(flags & MN_SEL != 0, n));
    }
    Ok(out)
}

/// Poly face records (0x011a): u32 corner count, corners, u16 field bits, then the
/// announced fields; an unknown bit is an error (the layout would desync).
fn poly_faces(p: &[u8], nverts: usize) -> Result<Vec<Poly>, EvalError> {
    Ok(poly_faces_flagged(p, nverts)?
        .into_iter()
        .map(|(poly, _)| poly)
        .collect())
}

/// MNFace's selection flag.
const MN_SEL: u32 = 1;

/// How many live polygons of an Editable Poly (its GeomBuffers `geom`) carry
/// MNFace's selection flag, which Max keeps whatever the sub-object level and
/// which a modifier acting on "the selected faces, if any" sees. None when
/// the faces are in the older per-face records, whose flags are not read.
pub fn selected_poly_faces(geom: &[Chunk]) -> Result<Option<usize>, EvalError> {
    let leaf = |id: u16| geom.iter().find(|c| c.id == id).and_then(Chunk::payload);
    let Some(faces) = leaf(0x011a) else {
        return Ok(None);
    };
    let vertices = dead::poly_vertices(
        leaf(0x0100).ok_or_else(|| EvalError::malformed("", "no poly vertex chunk 0x0100"))?,
    )?;
    Ok(Some(
        poly_faces_flagged(faces, vertices.len())?
            .iter()
            .filter(|(p, flags)| !p.v.is_empty() && flags & MN_SEL != 0)
            .count(),
    ))
}

/// The vertices an Editable Poly's MNMesh hands a deformer at its saved
/// selection level (`level`: 1 vertex, 2 edge, 3 face; MNMesh's MNM_SL_*):
/// the vertices flagged MN_SEL, the ends of the edges flagged so, or the
/// corners of the faces flagged so. One entry per live vertex, in the
/// numbering of the mesh built from the object (dead vertices dropped).
pub fn poly_selected_vertices(geom: &[Chunk], level: u32) -> Result<Vec<bool>, EvalError> {
    let leaf = |id: u16| geom.iter().find(|c| c.id == id).and_then(Chunk::payload);
    let raw =
        leaf(0x0100).ok_or_else(|| EvalError::malformed("", "no poly vertex chunk 0x0100"))?;
    let vertices = dead::poly_vertices(raw)?;
    let n = vertices.len();
    let mut sel = vec![false; n];
    match level {
        1 => {
            // The flags word leads each record; a live vertex has 12 bytes of
            // position after it (checked by `poly_vertices` above).
            let mut at = 4;
            for (i, v) in vertices.iter().enumerate() {
                let w = raw.get(at..at + 4).ok_or_else(|| {
                    EvalError::malformed("poly vertices (0x0100)", format!("vertex {i}"))
                })?;
                let flags = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                at += if v.is_some() { 16 } else { 4 };
                sel[i] = v.is_some() && flags & MN_SEL != 0;
            }
        }
        2 => {
            let p = leaf(0x010a).ok_or_else(|| {
                EvalError::not_evaluated_why("an edge selection", "no MNMesh edge list (0x010a)")
            })?;
            let (_, body) = counted(p, 12, "poly edges (0x010a)")?;
            for r in body.chunks_exact(12) {
                let w = Words(r);
                if w.u32(0) & MN_SEL == 0 || w.u32(0) & dead::MN_DEAD != 0 {
                    continue;
                }
                for v in [w.u32(1), w.u32(2)] {
                    let slot = sel.get_mut(v as usize).ok_or_else(|| {
                        EvalError::malformed("poly edges (0x010a)", format!("vertex {v} of {n}"))
                    })?;
                    *slot = true;
                }
            }
        }
        3 => {
            let faces = leaf(0x011a).ok_or_else(|| {
                EvalError::not_evaluated_why(
                    "a face selection",
                    "the faces are in per-face records, whose flags are not read",
                )
            })?;
            for (poly, flags) in poly_faces_flagged(faces, n)? {
                if flags & MN_SEL != 0 {
                    for &v in &poly.v {
                        sel[v as usize] = true;
                    }
                }
            }
        }
        _ => {
            return Err(EvalError::not_evaluated_why(
                format!("selection level {level}"),
                "not one of MNMesh's vertex, edge and face levels",
            ))
        }
    }
    // Renumber as `dead::collapse` does: live vertices keep their order.
    Ok(vertices
        .iter()
        .zip(sel)
        .filter(|(v, _)| v.is_some())
        .map(|(_, s)| s)
        .collect())
}

/// MNMesh's saved selection level (GeomBuffers 0x0130: 0 object, 1 vertex,
/// 2 edge, 3 face); 0 when not saved.
pub fn poly_selection_level(geom: &[Chunk]) -> Result<u32, EvalError> {
    match geom
        .iter()
        .find(|c| c.id == POLY_SEL_LEVEL)
        .and_then(Chunk::payload)
    {
        None => Ok(0),
        Some(p) if p.len() == 4 => Ok(Words(p).u32(0)),
        Some(p) => Err(EvalError::malformed(
            "poly selection level (0x0130)",
            format!("{} bytes", p.len()),
        )),
    }
}

/// GeomBuffers child holding MNMesh's selection level.
const POLY_SEL_LEVEL: u16 = 0x0130;

/// [`poly_faces`] with each face's MNFace flags (0 when not saved).
fn poly_faces_flagged(p: &[u8], nverts: usize) -> Result<Vec<(Poly, u32)>, EvalError> {
    let mut c = Cursor { p, at: 0 };
    let n = c.u32("poly face count")? as usize;
    // Each face takes at least 10 bytes: a deleted one's corner count, field
    // bits and flags.
    if n > p.len() / 10 {
        return Err(EvalError::malformed(
            "",
            format!("poly face count {n} cannot fit in {} bytes", p.len()),
        ));
    }
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let k = c.u32("corner count")? as usize;
        // A deleted face (MN_DEAD) is saved with no corners: checked below.
        if k != 0 && !(3..=p.len() / 4).contains(&k) {
            return Err(EvalError::malformed(
                format!("poly face {i}"),
                format!("{k} corners"),
            ));
        }
        let mut v = Vec::with_capacity(k);
        for _ in 0..k {
            let x = c.u32("corner")?;
            if x as usize >= nverts {
                return Err(EvalError::malformed(
                    format!("poly face {i}"),
                    format!("corner {x} of {nverts} vertices"),
                ));
            }
            v.push(x);
        }
        let bits = c.u16("face bits")?;
        if bits & !(POLY_EXTRA | POLY_MATERIAL | POLY_SMOOTHING | POLY_CUTS) != 0 {
            return Err(EvalError::malformed(
                format!("poly face {i}"),
                format!("unknown field bits {bits:#06x}"),
            ));
        }
        // The extra word is the face's MNFace flags.
        let flags = if bits & POLY_EXTRA != 0 {
            c.u32("face flags")?
        } else {
            0
        };
        if k == 0 {
            if flags & dead::MN_DEAD == 0 || bits & POLY_CUTS != 0 {
                return Err(EvalError::malformed(
                    format!("poly face {i}"),
                    format!("no corners, yet not deleted (flags {flags:#x}, bits {bits:#06x})"),
                ));
            }
        } else if flags & dead::MN_DEAD != 0 {
            return Err(EvalError::malformed(
                format!("poly face {i}"),
                format!("deleted, yet {k} corners"),
            ));
        }
        let material = if bits & POLY_MATERIAL != 0 {
            c.u16("material")?
        } else {
            0
        };
        let smoothing = if bits & POLY_SMOOTHING != 0 {
            c.u32("smoothing")?
        } else {
            0
        };
        let mut cuts = Vec::new();
        if bits & POLY_CUTS != 0 {
            for _ in 0..k - 3 {
                let (a, b) = (c.u32("cut start")?, c.u32("cut end")?);
                if a as usize >= k || b as usize >= k {
                    return Err(EvalError::malformed(
                        format!("poly face {i}"),
                        format!("cut ({a}, {b}) outside {k} corners"),
                    ));
                }
                cuts.push((a, b));
            }
        }
        out.push((
            Poly {
                v,
                material,
                smoothing,
                cuts,
            },
            flags,
        ));
    }
    if c.at != p.len() {
        return Err(EvalError::malformed(
            "poly faces",
            format!("{} bytes left after {n} faces", p.len() - c.at),
        ));
    }
    Ok(out)
}

/// Splits a polygon along its stored diagonals (local corner indices); without
/// diagonals, fans from corner 0.
pub fn triangulate(poly: &Poly) -> Vec<[u32; 3]> {
    triangle_corners(poly)
        .into_iter()
        .map(|t| t.map(|c| poly.v[c as usize]))
        .collect()
}

/// How many triangles [`triangulate`] makes of a polygon (none of a dead
/// one): what a per-polygon value is repeated over on the triangle mesh.
pub fn triangle_count(poly: &Poly) -> usize {
    triangle_corners(poly).len()
}

/// The triangles of [`triangulate`] as local corner indices, so that map faces
/// (one map vertex per polygon corner) split the same way. A cut (a, b)
/// leaves the part from a to b first, then the one from b back to a: the
/// order of Max's own output (docs/max-format.md, "Triangle order"), which
/// face-indexed modifiers above (Edit Mesh, Cloth) address.
fn triangle_corners(poly: &Poly) -> Vec<[u32; 3]> {
    let k = poly.v.len() as u32;
    let mut pieces: Vec<Vec<u32>> = vec![(0..k).collect()];
    for &(a, b) in &poly.cuts {
        let Some(pi) = pieces.iter().position(|p| p.contains(&a) && p.contains(&b)) else {
            continue;
        };
        let p = &pieces[pi];
        let (Some(ia), Some(ib)) = (
            p.iter().position(|&x| x == a),
            p.iter().position(|&x| x == b),
        ) else {
            continue;
        };
        let n = p.len();
        let span = (ib + n - ia) % n;
        if span < 2 || n - span < 2 {
            continue;
        }
        let from_a: Vec<u32> = (0..=span).map(|j| p[(ia + j) % n]).collect();
        let from_b: Vec<u32> = (0..=n - span).map(|j| p[(ib + j) % n]).collect();
        pieces[pi] = from_a;
        pieces.insert(pi + 1, from_b);
    }
    let mut tris = Vec::new();
    for p in pieces {
        for i in 1..p.len().saturating_sub(1) {
            tris.push([p[0], p[i], p[i + 1]]);
        }
    }
    tris
}

/// The dead-vertex collapse's renumbering: per stored vertex its index among
/// the live ones (None: dead); None when no vertex is dead.
type Renumbering = Option<Vec<Option<u32>>>;

/// Vertices, polygons and map channels, as [`mnmesh_buffers`] reads them,
/// and the renumbering that collapsed the dead vertices.
type MnBuffers = (Vec<Vec3>, Vec<Poly>, Vec<PolyMapData>, Renumbering);

/// The vertices (0x0100), polygons (0x011a) and map channels of MNMesh
/// buffers, as an Editable Poly and an Edit Poly Attach record store them.
fn mnmesh_buffers(geom: &[Chunk]) -> Result<MnBuffers, EvalError> {
    let leaf = |id: u16| geom.iter().find(|c| c.id == id).and_then(Chunk::payload);
    let vertices = dead::poly_vertices(
        leaf(0x0100).ok_or_else(|| EvalError::malformed("", "no poly vertex chunk 0x0100"))?,
    )?;
    let polys = match leaf(0x011a) {
        Some(p) => poly_faces(p, vertices.len())?,
        None => legacy::poly_faces(geom, vertices.len())?.ok_or_else(|| {
            EvalError::malformed(
                "",
                "no poly face chunk 0x011a, nor per-face records (0x0110)",
            )
        })?,
    };
    let maps = poly_maps(geom, &polys)?;
    dead::collapse(vertices, polys, maps)
}

/// Decodes the poly buffers of an Editable Poly and triangulates them.
pub fn editable_poly(object: &[Chunk]) -> Result<(Mesh, Vec<Poly>), EvalError> {
    editable_poly_renumbered(object).map(|(mesh, polys, _)| (mesh, polys))
}

/// An MNMesh's edge list ([`mnmesh_edges`]): none stored, or why it is not read.
pub type PolyEdges = Result<Option<Vec<[u32; 2]>>, EvalError>;

/// An Editable Poly's polygons and its edge list ([`mnmesh_edges`]; its
/// error apart, so that only edge operations refuse), the edges renumbered
/// as the polygons' dead vertices were collapsed.
pub fn editable_poly_edges(object: &[Chunk]) -> Result<(Vec<Poly>, PolyEdges), EvalError> {
    let (_, polys, live) = editable_poly_renumbered(object)?;
    Ok((polys, edges_renumbered(geom_buffers(object)?, live)))
}

/// [`editable_poly`] with the dead-vertex renumbering of its buffers.
fn editable_poly_renumbered(object: &[Chunk]) -> Result<(Mesh, Vec<Poly>, Renumbering), EvalError> {
    let geom = object
        .iter()
        .find(|c| c.id == GEOM_BUFFERS)
        .ok_or_else(|| EvalError::malformed("", "no GeomBuffers (0x08fe) chunk"))?;
    let (vertices, polys, poly_maps, live) = mnmesh_buffers(geom.children())?;
    let mut spec = match geom.children().iter().find(|c| c.id == POLY_NORMAL_SPEC) {
        Some(c) => {
            let degrees: Vec<usize> = polys.iter().map(|p| p.v.len()).collect();
            Some(SpecifiedNormals::decode_poly(c.children(), &degrees).map_err(EvalError::from)?)
        }
        None => None,
    };
    let mut faces = Vec::new();
    let mut maps: Vec<MapChannel> = poly_maps
        .iter()
        .map(|m| MapChannel {
            channel: m.channel,
            vertices: m.vertices.clone(),
            faces: Vec::new(),
        })
        .collect();
    for (i, p) in polys.iter().enumerate() {
        let n = p.v.len();
        for t in triangle_corners(p) {
            // As MNMesh::OutToTri: a polygon's sides are visible edges, its
            // diagonals hidden (Symmetry rebuilds the polygons from them).
            let mut flags = 0u16;
            for k in 0..3 {
                if t[(k + 1) % 3] as usize == (t[k] as usize + 1) % n {
                    flags |= 1 << k;
                }
            }
            faces.push(Face {
                v: t.map(|c| p.v[c as usize]),
                smoothing: p.smoothing,
                material: p.material,
                flags,
            });
            for (out, m) in maps.iter_mut().zip(&poly_maps) {
                out.faces.push(t.map(|c| m.faces[i][c as usize]));
            }
            // Specified normals split with the polygon, corner by corner.
            if let Some((out, corners)) = &mut spec {
                let f = corners.get(i);
                out.faces
                    .push(t.map(|c| f.and_then(|f| f.get(c as usize).copied().flatten())));
            }
        }
    }
    Ok((
        Mesh {
            vertices,
            faces,
            maps,
            normals: spec.map(|(n, _)| n),
            missing_maps: Vec::new(),
            missing_normals: None,
            missing_parts: Vec::new(),
        },
        polys,
        live,
    ))
}

/// Decodes an MNMesh's buffers (the children of an Editable Poly's GeomBuffers,
/// or of an Edit Poly Attach record) into the polygon form the poly modifiers
/// work on, each polygon triangulated along its stored diagonals, with its
/// specified normals (0x0300).
pub fn mnmesh(geom: &[Chunk]) -> Result<crate::eval::objects::poly::PolyMesh, EvalError> {
    use crate::eval::objects::poly::{PolyFace, PolyMap, PolyMesh};
    let (vertices, polys, maps, live) = mnmesh_buffers(geom)?;
    let maps = maps
        .into_iter()
        .map(|m| PolyMap {
            channel: m.channel,
            vertices: m.vertices,
            faces: m.faces,
        })
        .collect();
    let faces = polys
        .iter()
        .map(|p| PolyFace {
            v: p.v.clone(),
            tris: triangle_corners(p)
                .into_iter()
                .map(|t| t.map(|c| c as usize))
                .collect(),
            material: p.material,
            smoothing: p.smoothing,
        })
        .collect();
    let normals = match geom.iter().find(|c| c.id == POLY_NORMAL_SPEC) {
        Some(c) => {
            let degrees: Vec<usize> = polys.iter().map(|p| p.v.len()).collect();
            let (pool, faces) =
                SpecifiedNormals::decode_poly(c.children(), &degrees).map_err(EvalError::from)?;
            Some(crate::eval::objects::poly_normals::PolyNormals { pool, faces })
        }
        None => None,
    };
    let mut poly = PolyMesh {
        vertices,
        faces,
        maps,
        edges: None,
        normals,
    };
    poly.validate()?;
    // Only edge operations need the numbering; a list that is malformed or
    // not the faces' sides leaves it unknown, and those operations say so.
    if let Ok(Some(edges)) = edges_renumbered(geom, live) {
        let _ = poly.set_edges(edges);
    }
    Ok(poly)
}

/// MNMesh's edge list as stored beside its faces (0x010a): u32 count, then per
/// edge u32 flags and, unless the edge is dead (MN_DEAD), v1, v2 — a dead
/// edge is its flags word alone, as a dead vertex is. Edge operations of a
/// poly modifier select edges by their index in the list Max has after
/// `CollapseDeadStructs`: the live edges in order, their ends renumbered as
/// the dead vertices of 0x0100 are collapsed (`dead`).
pub fn mnmesh_edges(geom: &[Chunk]) -> Result<Option<Vec<[u32; 2]>>, EvalError> {
    // Live vertices renumbered in order, as the collapse renumbers them.
    let live = match geom.iter().find(|c| c.id == 0x0100) {
        Some(v) => dead::renumbering(&dead::poly_vertices(v.payload().unwrap_or_default())?),
        None => None,
    };
    edges_renumbered(geom, live)
}

/// [`mnmesh_edges`] with the dead-vertex renumbering already known (from
/// [`mnmesh_buffers`], which read the same vertex chunk).
fn edges_renumbered(geom: &[Chunk], live: Renumbering) -> Result<Option<Vec<[u32; 2]>>, EvalError> {
    const WHAT: &str = "poly edges (0x010a)";
    let Some(c) = geom.iter().find(|c| c.id == 0x010a) else {
        return Ok(None);
    };
    let p = c
        .payload()
        .ok_or_else(|| EvalError::malformed("", "poly edges (0x010a) is a container"))?;
    let mut cur = Cursor { p, at: 0 };
    let n = cur.u32(WHAT)? as usize;
    // Each edge takes at least its flags word.
    if n > p.len() / 4 {
        return Err(EvalError::malformed(
            WHAT,
            format!("count {n} cannot fit in {} bytes", p.len()),
        ));
    }
    let mut raw = Vec::with_capacity(n);
    for i in 0..n {
        let at = |e: EvalError| e.inside(format!("{WHAT}: count {n}, edge {i}"));
        if cur.u32("flags").map_err(at)? & dead::MN_DEAD != 0 {
            continue;
        }
        raw.push([cur.u32("v1").map_err(at)?, cur.u32("v2").map_err(at)?]);
    }
    if cur.at != p.len() {
        return Err(EvalError::malformed(
            WHAT,
            format!("{} bytes left after {n} edges", p.len() - cur.at),
        ));
    }
    let Some(live) = live else {
        return Ok(Some(raw));
    };
    raw.iter()
        .enumerate()
        .map(|(i, e)| {
            let to = |v: u32| live.get(v as usize).copied().flatten();
            match (to(e[0]), to(e[1])) {
                (Some(a), Some(b)) => Ok([a, b]),
                _ => Err(EvalError::malformed(
                    WHAT,
                    format!(
                        "live edge {i} ({}, {}) ends at a dead or missing vertex",
                        e[0], e[1]
                    ),
                )),
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// The GeomBuffers children of an Editable Poly object.
pub fn geom_buffers(object: &[Chunk]) -> Result<&[Chunk], EvalError> {
    object
        .iter()
        .find(|c| c.id == GEOM_BUFFERS)
        .map(Chunk::children)
        .ok_or_else(|| EvalError::malformed("", "no GeomBuffers (0x08fe) chunk"))
}

/// Poly map channel chunks (MNMesh's maps): 0x0120 holds the channel count, then
/// each stored channel is 0x0124 (channel number: −2 alpha, −1 illumination,
/// 0 vertex colour, 1.. texture), 0x0128 (u32 count, float3 map vertices) and
/// 0x012b (one record per polygon, no count: u32 degree, then that many map
/// vertex indices). Channels Max left empty are not stored.
const POLY_MAP_COUNT: u16 = 0x0120;
const POLY_MAP_CHANNEL: u16 = 0x0124;
const POLY_MAP_VERTICES: u16 = 0x0128;
const POLY_MAP_FACES: u16 = 0x012b;

/// One decoded poly map channel: a map face (corner list) per polygon.
struct PolyMapData {
    channel: i32,
    vertices: Vec<[f32; 3]>,
    faces: Vec<Vec<u32>>,
}

fn poly_maps(geom: &[Chunk], polys: &[Poly]) -> Result<Vec<PolyMapData>, EvalError> {
    let mut count: Option<i32> = None;
    let mut channel: Option<i32> = None;
    let mut verts: Option<Vec<[f32; 3]>> = None;
    let mut out: Vec<PolyMapData> = Vec::new();
    for c in geom {
        let Some(p) = c.payload() else { continue };
        match c.id {
            POLY_MAP_COUNT => {
                if p.len() != 4 {
                    return Err(EvalError::malformed(
                        "poly map count (0x0120)",
                        format!("{} bytes", p.len()),
                    ));
                }
                count = Some(Words(p).i32(0));
            }
            POLY_MAP_CHANNEL => {
                if p.len() != 4 {
                    return Err(EvalError::malformed(
                        "poly map channel (0x0124)",
                        format!("{} bytes", p.len()),
                    ));
                }
                let ch = Words(p).i32(0);
                let n = count.ok_or_else(|| {
                    EvalError::malformed(
                        "",
                        "poly map channel (0x0124) before the map count (0x0120)",
                    )
                })?;
                if !(-2..n).contains(&ch) {
                    return Err(EvalError::malformed(
                        "",
                        format!("poly map channel {ch} outside −2..{n}"),
                    ));
                }
                if out.iter().any(|m| m.channel == ch) {
                    return Err(EvalError::malformed(
                        "",
                        format!("poly map channel {ch} stored twice"),
                    ));
                }
                channel = Some(ch);
                verts = None;
            }
            POLY_MAP_VERTICES => {
                let ch = channel.ok_or_else(|| {
                    EvalError::malformed(
                        "",
                        "poly map vertices (0x0128) without a channel (0x0124)",
                    )
                })?;
                verts = Some(map_vertices(
                    p,
                    &format!("poly map {ch} vertices (0x0128)"),
                )?);
            }
            POLY_MAP_FACES => {
                let ch = channel.take().ok_or_else(|| {
                    EvalError::malformed("", "poly map faces (0x012b) without a channel (0x0124)")
                })?;
                let vertices = verts.take().ok_or_else(|| {
                    EvalError::malformed(format!("poly map {ch}"), "faces (0x012b) before vertices")
                })?;
                let faces = poly_map_faces(p, polys, vertices.len())
                    .map_err(|e| e.inside(format!("poly map {ch} faces (0x012b)")))?;
                out.push(PolyMapData {
                    channel: ch,
                    vertices,
                    faces,
                });
            }
            _ => {}
        }
    }
    if let Some(ch) = channel {
        return Err(EvalError::malformed(
            format!("poly map {ch}"),
            "no faces (0x012b)",
        ));
    }
    out.sort_by_key(|m| m.channel);
    Ok(out)
}

/// Map face records: one per polygon, each of the polygon's degree.
fn poly_map_faces(p: &[u8], polys: &[Poly], nverts: usize) -> Result<Vec<Vec<u32>>, EvalError> {
    let mut c = Cursor { p, at: 0 };
    let mut out = Vec::with_capacity(polys.len());
    for (i, poly) in polys.iter().enumerate() {
        let k = c.u32("map face degree")? as usize;
        if poly.v.is_empty() {
            // A deleted polygon keeps the map face it had: skipped, and
            // dropped with the polygon (dead::collapse).
            c.take(k.saturating_mul(4), "deleted polygon's map face")?;
            out.push(Vec::new());
            continue;
        }
        if k != poly.v.len() {
            return Err(EvalError::malformed(
                "",
                format!("map face {i} has {k} corners, its polygon {}", poly.v.len()),
            ));
        }
        let mut f = Vec::with_capacity(k);
        for _ in 0..k {
            let x = c.u32("map corner")?;
            if x as usize >= nverts {
                return Err(EvalError::malformed(
                    format!("map face {i}"),
                    format!("map vertex {x} of {nverts}"),
                ));
            }
            f.push(x);
        }
        out.push(f);
    }
    if c.at != p.len() {
        return Err(EvalError::malformed(
            "",
            format!(
                "{} bytes left after {} map faces",
                p.len() - c.at,
                polys.len()
            ),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poly(v: &[u32], cuts: &[(u32, u32)]) -> Poly {
        Poly {
            v: v.to_vec(),
            material: 0,
            smoothing: 0,
            cuts: cuts.to_vec(),
        }
    }

    /// GeomBuffers holding vertices 0, 2 and 3 live and 1 dead (its flags
    /// alone), and `edges` as stored.
    fn geom_with_edges(edges: &[u32]) -> Vec<Chunk> {
        let mut v = words(&[4, 0]);
        v.extend(words(&[0, 0, 0]));
        v.extend(words(&[dead::MN_DEAD]));
        for _ in 0..2 {
            v.extend(words(&[0, 0, 0, 0]));
        }
        vec![Chunk::leaf(0x0100, v), Chunk::leaf(0x010a, words(edges))]
    }

    #[test]
    fn dead_edges_are_their_flags_alone_and_ends_follow_the_vertex_collapse() {
        // As woman.max (sixteenth sweep) stores them: 352 edges in 4,096
        // bytes, 16 of them dead (flags 2 or 10, no ends).
        let live = geom_with_edges(&[4, 1, 0, 2, 10, 0, 2, 3, 0, 3, 0]);
        assert_eq!(
            mnmesh_edges(&live).expect("reads"),
            Some(vec![[0, 1], [1, 2], [2, 0]])
        );
        // A live edge on the dead vertex, a count past the bytes, bytes left.
        for bad in [
            &[1, 0, 0, 1][..],
            &[3, 0, 0, 2][..],
            &[1, 0, 0, 2, 7][..],
            &[u32::MAX][..],
        ] {
            let err = mnmesh_edges(&geom_with_edges(bad)).expect_err("refused");
            assert!(err.to_string().contains("0x010a"), "{err}");
        }
    }

    #[test]
    fn cuts_split_polygons_into_triangles() {
        // Quad 10-11-12-13 cut along local 1-3: triangles share the 11-13 diagonal.
        let t = triangulate(&poly(&[10, 11, 12, 13], &[(1, 3)]));
        assert_eq!(t, vec![[11, 12, 13], [13, 10, 11]]);
        // A cut stored the other way round starts from its first corner, as
        // the Cloth-saved input meshes of couch.max's BigPillows show.
        let t = triangulate(&poly(&[243, 1, 0, 394], &[(3, 1)]));
        assert_eq!(t, vec![[394, 243, 1], [1, 0, 394]]);
        let t = triangulate(&poly(&[244, 2, 1, 243], &[(2, 0)]));
        assert_eq!(t, vec![[1, 243, 244], [244, 2, 1]]);
        // Sorted diagonals of a hexagon: pieces in cut order.
        let t = triangulate(&poly(&[0, 1, 2, 3, 4, 5], &[(0, 2), (2, 4), (0, 4)]));
        assert_eq!(t, vec![[0, 1, 2], [2, 3, 4], [0, 2, 4], [4, 5, 0]]);
        // Pentagon with two cuts from corner 0.
        let t = triangulate(&poly(&[0, 1, 2, 3, 4], &[(0, 2), (0, 3)]));
        assert_eq!(t.len(), 3);
        let mut all: Vec<u32> = t.iter().flatten().copied().collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all, [0, 1, 2, 3, 4]);
        // No cuts: a fan.
        assert_eq!(
            triangulate(&poly(&[5, 6, 7, 8], &[])),
            vec![[5, 6, 7], [5, 7, 8]]
        );
    }

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A quad cut along local 1–3, with a map channel `ch` of four map vertices.
    fn quad_with_map(ch: i32, map_faces: &[u32]) -> Vec<Chunk> {
        let mut verts = words(&[4]);
        for i in 0..4u32 {
            verts.extend(words(&[0, i, 0, 0]));
        }
        let mut faces = words(&[1, 4, 0, 1, 2, 3]);
        faces.extend(POLY_CUTS.to_le_bytes());
        faces.extend(words(&[1, 3]));
        let mut mverts = words(&[4]);
        for i in 0..4u32 {
            mverts.extend(words(&[(i as f32).to_bits(), 0, 0]));
        }
        vec![Chunk::container(
            GEOM_BUFFERS,
            vec![
                Chunk::leaf(0x0100, verts),
                Chunk::leaf(0x011a, faces),
                Chunk::leaf(POLY_MAP_COUNT, words(&[2])),
                Chunk::leaf(POLY_MAP_CHANNEL, ch.to_le_bytes().to_vec()),
                Chunk::leaf(POLY_MAP_VERTICES, mverts),
                Chunk::leaf(POLY_MAP_FACES, words(map_faces)),
            ],
        )]
    }

    #[test]
    fn poly_map_faces_split_like_their_polygons() {
        let (m, _) = editable_poly(&quad_with_map(1, &[4, 3, 2, 1, 0])).expect("poly");
        assert_eq!(m.faces[0].v, [1, 2, 3]);
        assert_eq!(m.faces[1].v, [3, 0, 1]);
        assert_eq!(m.maps.len(), 1);
        assert_eq!(m.maps[0].channel, 1);
        // Map corner c of the polygon is map vertex 3 − c.
        assert_eq!(m.maps[0].faces, [[2, 1, 0], [0, 3, 2]]);
        // Hidden channels (−2 alpha) decode too.
        assert_eq!(
            editable_poly(&quad_with_map(-2, &[4, 0, 1, 2, 3]))
                .expect("alpha")
                .0
                .maps[0]
                .channel,
            -2
        );
    }

    /// One triangle as `Mesh::Save` writes it, with map channel `ch`: three
    /// zero map vertices and one map face `map_face`.
    fn triangle_with_map(ch: i32, map_face: [u32; 3]) -> Vec<Chunk> {
        let mut verts = words(&[3]);
        for i in 0..3u32 {
            verts.extend(words(&[(i as f32).to_bits(), 0, 0]));
        }
        let mut mverts = words(&[3]);
        mverts.extend(std::iter::repeat_n(0u8, 36));
        let mut mfaces = words(&[1]);
        mfaces.extend(words(&map_face));
        vec![
            Chunk::leaf(0x0914, verts),
            Chunk::leaf(0x0912, words(&[1, 0, 1, 2, 1, 7])),
            Chunk::leaf(0x0959, ch.to_le_bytes().to_vec()),
            Chunk::leaf(0x2394, mverts),
            Chunk::leaf(0x2396, mfaces),
        ]
    }

    #[test]
    fn a_stray_hidden_channel_is_named_and_the_mesh_kept() {
        // clock.max's ProBoolean: channel −2's last faces hold 0xff515151.
        let m = mesh_buffers(&triangle_with_map(-2, [0, 0xff51_5151, 1])).expect("mesh kept");
        assert_eq!(m.faces.len(), 1);
        assert!(m.maps.is_empty());
        assert_eq!(m.missing_parts.len(), 1);
        let why = m.missing_parts[0].describe();
        assert!(why.starts_with("map channel -2 (vertex alpha)"), "{why}");
        assert!(why.contains("map vertex 4283519313 of 3"), "{why}");
        // In range, the hidden channel is read as any other.
        let m = mesh_buffers(&triangle_with_map(-1, [0, 1, 2])).expect("mesh");
        assert_eq!((m.maps.len(), m.maps[0].channel), (1, -1));
        assert!(m.missing_parts.is_empty());
        // A texture channel out of range stays an error of the object.
        let err = mesh_buffers(&triangle_with_map(1, [0, 5, 1])).unwrap_err();
        assert!(err.to_string().contains("map vertex 5 of 3"), "{err}");
    }

    #[test]
    fn damaged_poly_maps_are_errors() {
        let err = |ch: i32, f: &[u32]| editable_poly(&quad_with_map(ch, f)).unwrap_err();
        assert!(err(1, &[3, 0, 1, 2])
            .to_string()
            .contains("3 corners, its polygon 4"));
        assert!(err(1, &[4, 0, 1, 2, 9])
            .to_string()
            .contains("map vertex 9 of 4"));
        assert!(err(1, &[4, 0, 1, 2]).to_string().contains("map corner"));
        assert!(err(1, &[4, 0, 1, 2, 3, 7])
            .to_string()
            .contains("4 bytes left"));
        assert!(err(2, &[4, 0, 1, 2, 3])
            .to_string()
            .contains("channel 2 outside"));
        assert!(err(-3, &[4, 0, 1, 2, 3])
            .to_string()
            .contains("channel -3 outside"));
    }

    #[test]
    fn damaged_poly_faces_are_errors() {
        let mut p = 1u32.to_le_bytes().to_vec();
        p.extend(3u32.to_le_bytes());
        for v in [0u32, 1, 9] {
            p.extend(v.to_le_bytes());
        }
        p.extend(0u16.to_le_bytes());
        assert!(poly_faces(&p, 3)
            .unwrap_err()
            .to_string()
            .contains("corner 9"));
        let n = p.len();
        p[n - 2] = 0x40;
        assert!(poly_faces(&p, 10)
            .unwrap_err()
            .to_string()
            .contains("unknown field bits"));
        assert!(poly_faces(&p[..7], 10).is_err());
    }
}
