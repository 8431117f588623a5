//! Edit Mesh: the MeshDelta (0x4000) in the modifier's local data.

use crate::chunk::Chunk;
use crate::eval::error::EvalError;

use super::{bits, payload, records, u32_at, vec_at};
use crate::eval::core::keys::Words;
use crate::eval::objects::mesh::{Face, MapChannel, Mesh, MissingMap};

/// Face attribute bits of a MeshDelta face change (0x0220): edge visibility 0..2,
/// hidden 3, material id from bit 5; the apply mask uses bit 4 for the material.
const ATTRIB_EDGES: u32 = 0x7;
const ATTRIB_HIDDEN: u32 = 0x8;
const ATTRIB_MATID: u32 = 0x10;
const ATTRIB_MATID_SHIFT: u32 = 5;
/// Face flag bits: edges 0..2, hidden at bit 5 of Max's Face::flags.
const FACE_HIDDEN: u16 = 0x20;

/// A created vertex's source index for "cloned from no vertex".
const NO_SOURCE: u32 = u32::MAX;

/// Applies an Edit Mesh MeshDelta: created vertices are appended, then moves,
/// face corner remaps and attribute changes act on the input faces, created faces
/// are appended, and the deletion bit arrays (over input + created) go last with
/// the indices compacted. Map deltas set map vertex values and create or
/// rewire map faces. The map delta of a channel that a modifier below left
/// out by name (`mesh.missing_maps`: a UVW Map refused on a face selection)
/// is passed over: the channel stays out and named, the geometry does not
/// depend on it, named by the modifier's `name`.
pub(super) fn apply(name: &str, delta: &[Chunk], mesh: &mut Mesh) -> Result<(), EvalError> {
    let (nv, nf) = (mesh.vertices.len(), mesh.faces.len());
    let input = mesh.vertices.clone();
    let mut del_verts = Vec::new();
    let mut del_faces = Vec::new();
    let mut created_faces = Vec::new();
    let mut map_channel: Option<i32> = None;
    // The map delta's input map vertex and face counts (0x0324, 0x0328).
    let mut map_input: (Option<u32>, Option<u32>) = (None, None);
    // Map faces created per channel (0x0338).
    let mut created_map: Vec<(i32, usize)> = Vec::new();
    // Whether the current channel's input counts were checked.
    let mut map_checked = false;
    // Whether the current channel is one a modifier below left out by name.
    let mut map_left_out = false;
    for c in delta {
        match c.id {
            0x0100 | 0x0110 => {
                let want = if c.id == 0x0100 { nv } else { nf };
                let p = payload(c)?;
                if p.len() != 4 {
                    return Err(EvalError::malformed(
                        format!("chunk {:#06x}", c.id),
                        format!("{} bytes where a u32 count is expected", p.len()),
                    ));
                }
                if Words(p).u32(0) as usize != want {
                    // The primitive below was changed after the edits: Max
                    // fits the delta to the new input (MeshDelta's
                    // SetInVNum / SetInFNum), by a rule not derived here.
                    return Err(EvalError::not_evaluated_why(
                        format!(
                            "a delta made for {} input {} on {want}",
                            Words(p).u32(0),
                            if c.id == 0x0100 { "vertices" } else { "faces" }
                        ),
                        "the stack below was changed after the edits; how Max fits a delta \
                         to an input of another size is not derived",
                    ));
                }
            }
            // Created vertices are clones (MeshDelta's vClone): an input
            // vertex (its position as the stack below gives it, before the
            // moves) plus an offset, or, from no vertex (-1), a position. Checked on Evan-Barry's hand files: the
            // 115 created vertices land on the Unwrap UVW cache above
            // exactly (docs/evaluation.md).
            0x0130 => {
                for r in records(payload(c)?, 16, "created vertices")? {
                    let i = u32_at(r, 0);
                    if i == NO_SOURCE {
                        mesh.vertices.push(vec_at(r, 1));
                        continue;
                    }
                    let i = i as usize;
                    let from = input.get(i).ok_or_else(|| {
                        EvalError::malformed(
                            "",
                            format!("created vertex cloned from vertex {i} of {nv}"),
                        )
                    })?;
                    mesh.vertices.push(from.plus(vec_at(r, 1)));
                }
            }
            0x0140 => {
                for r in records(payload(c)?, 16, "vertex moves")? {
                    let i = u32_at(r, 0) as usize;
                    let v = mesh
                        .vertices
                        .get_mut(i)
                        .ok_or_else(|| EvalError::malformed("", format!("move of vertex {i}")))?;
                    *v = v.plus(vec_at(r, 1));
                }
            }
            0x0208 => {
                for r in records(payload(c)?, 24, "created faces")? {
                    let flags = u32_at(r, 5);
                    created_faces.push(Face {
                        v: [u32_at(r, 1), u32_at(r, 2), u32_at(r, 3)],
                        smoothing: u32_at(r, 4),
                        material: (flags >> 16) as u16,
                        flags: (flags & 0xffff) as u16,
                    });
                }
            }
            0x0210 => {
                for r in records(payload(c)?, 20, "face remaps")? {
                    let i = u32_at(r, 0) as usize;
                    let mask = u32_at(r, 1);
                    let f = mesh
                        .faces
                        .get_mut(i)
                        .ok_or_else(|| EvalError::malformed("", format!("remap of face {i}")))?;
                    for k in 0..3 {
                        if mask & 1 << k != 0 {
                            f.v[k] = u32_at(r, 2 + k);
                        }
                    }
                }
            }
            0x0220 => {
                for r in records(payload(c)?, 12, "face changes")? {
                    let (i, mask, val) = (u32_at(r, 0) as usize, u32_at(r, 1), u32_at(r, 2));
                    let f = mesh
                        .faces
                        .get_mut(i)
                        .ok_or_else(|| EvalError::malformed("", format!("change of face {i}")))?;
                    let edges = (mask & ATTRIB_EDGES) as u16;
                    f.flags = (f.flags & !edges) | (val as u16 & edges);
                    if mask & ATTRIB_HIDDEN != 0 {
                        f.flags &= !FACE_HIDDEN;
                        if val & ATTRIB_HIDDEN != 0 {
                            f.flags |= FACE_HIDDEN;
                        }
                    }
                    if mask & ATTRIB_MATID != 0 {
                        f.material = (val >> ATTRIB_MATID_SHIFT) as u16;
                    }
                }
            }
            // Smoothing changes (MeshDelta's fSmooth, meshdelta.h's
            // FaceSmooth: face, mask, value): the groups under the mask take
            // the value's bits.
            0x0230 => {
                for r in records(payload(c)?, 12, "smoothing changes")? {
                    let (i, mask, val) = (u32_at(r, 0) as usize, u32_at(r, 1), u32_at(r, 2));
                    let f = mesh.faces.get_mut(i).ok_or_else(|| {
                        EvalError::malformed("", format!("smoothing change of face {i}"))
                    })?;
                    f.smoothing = (f.smoothing & !mask) | (val & mask);
                }
            }
            0x0170 => del_verts = bits(c)?,
            0x0270 => del_faces = bits(c)?,
            // Selection level and the vertex/face/edge selections.
            0x0300 | 0x0400 | 0x0410 | 0x0420 | 0x0430 => {}
            0x0320 => {
                let p = payload(c)?;
                if p.len() != 4 {
                    return Err(EvalError::malformed("", "map delta channel"));
                }
                let ch = Words(p).i32(0);
                map_left_out = !mesh.maps.iter().any(|m| m.channel == ch)
                    && mesh
                        .missing_maps
                        .iter()
                        .any(|m| m.channel.is_none_or(|c| c == ch));
                if ch == 0 && !map_left_out && !mesh.maps.iter().any(|m| m.channel == 0) {
                    // Max starts a missing colour channel white, one colour per vertex.
                    mesh.maps.push(MapChannel {
                        channel: 0,
                        vertices: vec![[1.0; 3]; nv],
                        faces: mesh.faces.iter().map(|f| f.v).collect(),
                    });
                }
                map_channel = Some(ch);
                map_input = (None, None);
                map_checked = false;
            }
            // Input map vertex and face counts of the map delta.
            0x0324 | 0x0328 => {
                let p = payload(c)?;
                if p.len() != 4 {
                    return Err(EvalError::malformed("", format!("chunk {:#06x}", c.id)));
                }
                if c.id == 0x0324 {
                    map_input.0 = Some(Words(p).u32(0));
                } else {
                    map_input.1 = Some(Words(p).u32(0));
                }
            }
            0x0330 | 0x0334 | 0x0338 | 0x033b if map_left_out => {}
            0x0334 | 0x0338 | 0x033b => {
                let (ch, map) = delta_map(mesh, map_channel, "map records")?;
                if !map_checked {
                    // A delta made for another map than the one arriving
                    // (the stack below numbers its map vertices otherwise)
                    // costs the channel, named, not the geometry.
                    if let Err(e) = check_map_input(map_input, map, ch) {
                        mesh.maps.retain(|m| m.channel != ch);
                        mesh.missing_maps.retain(|m| m.channel != Some(ch));
                        mesh.missing_maps.push(MissingMap {
                            channel: Some(ch),
                            modifier: name.to_string(),
                            reason: e.to_string(),
                        });
                        map_left_out = true;
                        continue;
                    }
                    map_checked = true;
                }
                match c.id {
                    // Created map vertices: Point3s appended.
                    0x0334 => {
                        for r in records(payload(c)?, 12, "created map vertices")? {
                            let v = vec_at(r, 0);
                            map.vertices.push([v.0 as f32, v.1 as f32, v.2 as f32]);
                        }
                    }
                    // Created map faces: three map vertices each, appended
                    // in the order of the created faces.
                    0x0338 => {
                        let rs = records(payload(c)?, 12, "created map faces")?;
                        for r in &rs {
                            map.faces.push([u32_at(r, 0), u32_at(r, 1), u32_at(r, 2)]);
                        }
                        created_map.push((ch, rs.len()));
                    }
                    // Map face remaps: face, corner mask, three map vertices
                    // (the layout of the face remaps 0x0210).
                    _ => {
                        for r in records(payload(c)?, 20, "map face remaps")? {
                            let i = u32_at(r, 0) as usize;
                            let mask = u32_at(r, 1);
                            let f = map.faces.get_mut(i).ok_or_else(|| {
                                EvalError::malformed("", format!("map {ch} remap of face {i}"))
                            })?;
                            for (k, corner) in f.iter_mut().enumerate() {
                                if mask & 1 << k != 0 {
                                    *corner = u32_at(r, 2 + k);
                                }
                            }
                        }
                    }
                }
            }
            0x0330 => {
                let (ch, map) = delta_map(mesh, map_channel, "map vertex values")?;
                for r in records(payload(c)?, 16, "map vertex values")? {
                    let i = u32_at(r, 0) as usize;
                    let v = vec_at(r, 1);
                    *map.vertices.get_mut(i).ok_or_else(|| {
                        EvalError::malformed("", format!("map {ch} vertex {i}"))
                    })? = [v.0 as f32, v.1 as f32, v.2 as f32];
                }
            }
            other => {
                return Err(EvalError::not_evaluated(format!(
                    "MeshDelta record {other:#06x}"
                )))
            }
        }
    }
    let nv_all = mesh.vertices.len() as u32;
    if created_faces.iter().flat_map(|f| f.v).any(|i| i >= nv_all) {
        return Err(EvalError::malformed("", "created face beyond the vertices"));
    }
    if mesh.faces.iter().flat_map(|f| f.v).any(|i| i >= nv_all) {
        return Err(EvalError::malformed(
            "",
            "remapped face beyond the vertices",
        ));
    }
    for map in &mesh.maps {
        let made: usize = created_map
            .iter()
            .filter(|(ch, _)| *ch == map.channel)
            .map(|(_, n)| n)
            .sum();
        if made != created_faces.len() {
            return Err(EvalError::not_evaluated_why(
                format!(
                    "{} created faces with {made} created map faces in channel {}",
                    created_faces.len(),
                    map.channel
                ),
                "map faces of created faces come only from a map delta's 0x0338",
            ));
        }
        let nmv = map.vertices.len() as u32;
        if map.faces.iter().flatten().any(|&t| t >= nmv) {
            return Err(EvalError::malformed(
                "",
                format!("map {} face beyond its {nmv} vertices", map.channel),
            ));
        }
    }
    mesh.faces.extend(created_faces);
    if del_faces.iter().any(|&d| d) {
        let keep: Vec<bool> = (0..mesh.faces.len())
            .map(|i| !del_faces.get(i).copied().unwrap_or(false))
            .collect();
        let mut k = keep.iter();
        mesh.faces.retain(|_| *k.next().unwrap_or(&true));
        for map in &mut mesh.maps {
            if map.faces.len() == keep.len() {
                let mut k = keep.iter();
                map.faces.retain(|_| *k.next().unwrap_or(&true));
            }
        }
    }
    if del_verts.iter().any(|&d| d) {
        let mut remap = Vec::with_capacity(mesh.vertices.len());
        let mut kept = Vec::with_capacity(mesh.vertices.len());
        for (i, v) in mesh.vertices.iter().enumerate() {
            remap.push(kept.len() as u32);
            if !del_verts.get(i).copied().unwrap_or(false) {
                kept.push(*v);
            }
        }
        for f in &mut mesh.faces {
            for c in &mut f.v {
                if del_verts.get(*c as usize).copied().unwrap_or(false) {
                    return Err(EvalError::malformed(
                        "",
                        "a kept face uses a deleted vertex",
                    ));
                }
                *c = remap[*c as usize];
            }
        }
        mesh.vertices = kept;
    }
    Ok(())
}

/// The map delta's records apply to the map it was made for: its input
/// counts (0x0324, 0x0328) must be the channel's as it arrives.
fn check_map_input(
    input: (Option<u32>, Option<u32>),
    map: &MapChannel,
    ch: i32,
) -> Result<(), EvalError> {
    let have = (map.vertices.len(), map.faces.len());
    match input {
        (Some(v), Some(f)) if (v as usize, f as usize) == have => Ok(()),
        _ => Err(EvalError::malformed(
            "",
            format!(
                "map {ch} delta made for {:?} map vertices and {:?} faces, the stack below gives {} and {}",
                input.0, input.1, have.0, have.1
            ),
        )),
    }
}

/// The channel a map record of the delta applies to (the last 0x0320), and
/// that channel of the mesh.
fn delta_map<'m>(
    mesh: &'m mut Mesh,
    channel: Option<i32>,
    what: &str,
) -> Result<(i32, &'m mut MapChannel), EvalError> {
    let ch = channel.ok_or_else(|| EvalError::malformed("", format!("{what} before a channel")))?;
    let map = mesh
        .maps
        .iter_mut()
        .find(|m| m.channel == ch)
        .ok_or_else(|| EvalError::reference("", format!("map delta for missing channel {ch}")))?;
    Ok((ch, map))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::math::Vec3;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn f(x: f32) -> u32 {
        x.to_bits()
    }

    /// One triangle with channel 1 over three map vertices.
    fn triangle() -> Mesh {
        Mesh {
            vertices: vec![
                Vec3(0.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(0.0, 1.0, 0.0),
            ],
            faces: vec![Face {
                v: [0, 1, 2],
                smoothing: 1,
                material: 0,
                flags: 0b111,
            }],
            maps: vec![MapChannel {
                channel: 1,
                vertices: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                faces: vec![[0, 1, 2]],
            }],
            ..Mesh::default()
        }
    }

    /// A delta adding vertex 3 at (1, 1, 0) and face (1 3 2), with the map
    /// records `map` after channel 1's header.
    fn delta(map: Vec<Chunk>, counts: [u32; 2]) -> Vec<Chunk> {
        let mut d = vec![
            Chunk::leaf(0x0100, words(&[3])),
            Chunk::leaf(0x0110, words(&[1])),
            // A clone of vertex 1 (1, 0, 0) moved by (0, 1, 0).
            Chunk::leaf(0x0130, words(&[1, 1, f(0.0), f(1.0), f(0.0)])),
            Chunk::leaf(0x0208, words(&[1, 0, 1, 3, 2, 1, 0b111])),
            Chunk::leaf(0x0320, words(&[1])),
            Chunk::leaf(0x0324, words(&[counts[0]])),
            Chunk::leaf(0x0328, words(&[counts[1]])),
        ];
        d.extend(map);
        d
    }

    fn map_records() -> Vec<Chunk> {
        vec![
            // Map vertex 3 at (1, 1, 0).
            Chunk::leaf(0x0334, words(&[1, f(1.0), f(1.0), f(0.0)])),
            // The created face's map face.
            Chunk::leaf(0x0338, words(&[1, 1, 3, 2])),
            // Face 0's corner 0 moved to map vertex 3.
            Chunk::leaf(0x033b, words(&[1, 0, 0b001, 3, 0, 0])),
        ]
    }

    #[test]
    fn created_faces_take_the_map_deltas_faces() {
        let mut m = triangle();
        apply("Edit Mesh", &delta(map_records(), [3, 1]), &mut m).unwrap();
        assert_eq!(m.vertices.len(), 4);
        assert_eq!(m.faces.len(), 2);
        assert_eq!(m.faces[1].v, [1, 3, 2]);
        assert_eq!(m.vertices[3], Vec3(1.0, 1.0, 0.0));
        let map = &m.maps[0];
        assert_eq!(map.vertices.len(), 4);
        assert_eq!(map.vertices[3], [1.0, 1.0, 0.0]);
        assert_eq!(map.faces, vec![[3, 1, 2], [1, 3, 2]]);
    }

    /// Measured on danshaub/GameDevFinal's Lantern.max and Light Post.max
    /// (docs/unseen-files.md, fourteenth sweep): a UVW Map on an Edit Mesh
    /// face selection (refused, channel 1 left out by name) under an Edit
    /// Mesh whose delta holds channel 1's map records. The geometry is
    /// built; the channel stays out. Without the name the delta is refused.
    #[test]
    fn the_map_delta_of_a_channel_left_out_below_is_passed_over() {
        let mut m = triangle();
        m.maps.clear();
        m.missing_maps.push(MissingMap {
            channel: Some(1),
            modifier: "UVW Map".into(),
            reason: "acting on a face selection".into(),
        });
        let mut records = map_records();
        records.push(Chunk::leaf(0x0330, words(&[0, f(0.5), f(0.5), f(0.0)])));
        apply("Edit Mesh", &delta(records.clone(), [3, 1]), &mut m).unwrap();
        assert_eq!(m.vertices.len(), 4);
        assert_eq!(m.faces.len(), 2);
        assert_eq!(m.faces[1].v, [1, 3, 2]);
        assert!(m.maps.is_empty());
        // Not named below: a channel we lack is an error, not a pass.
        let mut bare = triangle();
        bare.maps.clear();
        let e = apply("Edit Mesh", &delta(records, [3, 1]), &mut bare).unwrap_err();
        assert!(e.to_string().contains("missing channel 1"), "{e}");
    }

    /// The layout of danshaub/GameDevFinal's thatchRoof.max (a count, then
    /// face, mask, value: 34 records, mask 0xffffffff, values 1 and 2).
    #[test]
    fn smoothing_changes_set_the_masked_groups() {
        let mut m = triangle();
        m.faces[0].smoothing = 0b1010;
        let d = vec![
            Chunk::leaf(0x0100, words(&[3])),
            Chunk::leaf(0x0110, words(&[1])),
            Chunk::leaf(0x0230, words(&[1, 0, 0b0110, 0b0101])),
        ];
        apply("Edit Mesh", &d, &mut m).unwrap();
        assert_eq!(m.faces[0].smoothing, 0b1100);
        let whole = vec![Chunk::leaf(0x0230, words(&[1, 0, u32::MAX, 2]))];
        apply("Edit Mesh", &whole, &mut m).unwrap();
        assert_eq!(m.faces[0].smoothing, 2);
        let beyond = vec![Chunk::leaf(0x0230, words(&[1, 1, u32::MAX, 2]))];
        assert!(apply("Edit Mesh", &beyond, &mut m).is_err());
    }

    #[test]
    fn map_records_for_another_input_or_missing_are_refused() {
        // Made for four map vertices: not this map. The channel leaves the
        // mesh, named; the geometry stays.
        let mut m = triangle();
        apply("Edit Mesh", &delta(map_records(), [4, 1]), &mut m).expect("geometry applies");
        assert!(m.maps.iter().all(|c| c.channel != 1));
        assert_eq!(m.missing_maps.len(), 1);
        assert!(
            m.missing_maps[0].reason.contains("map 1 delta made for"),
            "{:?}",
            m.missing_maps
        );
        // A created face with no created map face.
        let e = apply("Edit Mesh", &delta(Vec::new(), [3, 1]), &mut triangle()).unwrap_err();
        assert!(e.to_string().contains("created map faces"), "{e}");
        // A map face beyond the map vertices.
        let bad = vec![Chunk::leaf(0x0338, words(&[1, 1, 7, 2]))];
        let e = apply("Edit Mesh", &delta(bad, [3, 1]), &mut triangle()).unwrap_err();
        assert!(e.to_string().contains("beyond"), "{e}");
        // A remap of a face that does not exist.
        let bad = vec![
            Chunk::leaf(0x0338, words(&[1, 1, 0, 2])),
            Chunk::leaf(0x033b, words(&[1, 5, 1, 0, 0, 0])),
        ];
        assert!(apply("Edit Mesh", &delta(bad, [3, 1]), &mut triangle()).is_err());
        // From no vertex (-1): the offset is the position.
        let mut d = delta(map_records(), [3, 1]);
        d[2] = Chunk::leaf(0x0130, words(&[1, u32::MAX, f(1.0), f(1.0), f(0.0)]));
        let mut m = triangle();
        apply("Edit Mesh", &d, &mut m).unwrap();
        assert_eq!(m.vertices[3], Vec3(1.0, 1.0, 0.0));
        // A clone of a vertex the input does not have.
        let mut d = delta(map_records(), [3, 1]);
        d[2] = Chunk::leaf(0x0130, words(&[1, 9, 0, 0, 0]));
        let e = apply("Edit Mesh", &d, &mut triangle()).unwrap_err();
        assert!(e.to_string().contains("cloned from vertex 9"), "{e}");
    }
}
