//! Max meshes to glTF vertex streams: object offset baked in, Z-up to Y-up,
//! smoothing-group normals, map channels 1..n as TEXCOORD_0..n−1, faces grouped
//! by material id.

use std::collections::{BTreeMap, HashMap};

use maxfs_scene::eval::objects::mesh::{Face, Mesh};
use maxfs_scene::eval::objects::normals::{self, Weighting};
use maxfs_scene::eval::{Mat43, Vec3};

use super::vertex_color;

/// A Max point (x, y, z) in glTF axes: (x, z, −y).
#[inline(never)]
pub fn to_yup(v: Vec3) -> Vec3 {
    Vec3(v.0, v.2, -v.1)
}

/// Vertex streams of one mesh, shared by its primitives.
#[derive(Debug, Default)]
pub struct Streams {
    pub positions: Vec<[f32; 3]>,
    /// The Max vertex each written vertex was split from (skin weights follow it).
    pub source: Vec<u32>,
    pub normals: Vec<[f32; 3]>,
    /// TEXCOORD_k from map channel k + 1, for the channels 1..n the mesh has
    /// without a gap (glTF numbers its sets without gaps).
    pub uvs: Vec<Vec<[f32; 2]>>,
    /// Texture channels (above 0) the mesh has but TEXCOORD cannot carry
    /// because a lower channel is missing.
    pub channels_left_out: Vec<i32>,
    /// COLOR_0 (RGBA) from the vertex colour and alpha channels, when the
    /// mesh has either (see `vertex_color`).
    pub colors: Option<Vec<[f32; 4]>>,
    /// `_ILLUMINATION` (RGB) from the illumination channel, when present.
    pub illumination: Option<Vec<[f32; 3]>>,
    /// Triangle indices by Max material id (ascending).
    pub groups: BTreeMap<u16, Vec<u32>>,
    /// Faces left out (vertex index out of range).
    pub skipped_faces: usize,
}

/// Corners (vertex indices), map corners per written channel, smoothing groups,
/// material id, edge-visibility flags.
type KeptFace = ([u32; 3], Vec<[u32; 3]>, u32, u16, u16);

#[inline(never)]
fn finite(v: Vec3) -> bool {
    v.0.is_finite() && v.1.is_finite() && v.2.is_finite()
}

#[inline(never)]
fn f32s(v: Vec3) -> [f32; 3] {
    [v.0 as f32, v.1 as f32, v.2 as f32]
}

/// Replaces the corner normals of the kept faces by the mesh's specified
/// normals where it has them (Max renders those): object-space normals go
/// through the offset's inverse transpose and the axis swap, and follow the
/// corner swap of a mirrored offset.
fn specified_override(
    corner: &mut [[normals::V3; 3]],
    kept_from: &[usize],
    mesh: &Mesh,
    offset: &Mat43,
    mirrored: bool,
) {
    let obj: Vec<normals::V3> = mesh.vertices.iter().map(|v| v.to_array()).collect();
    let Some(spec) = normals::specified_corners(&obj, mesh) else {
        return;
    };
    let Some(inv) = normals::inverse3(&offset.rows()) else {
        return;
    };
    for (out, &fi) in corner.iter_mut().zip(kept_from) {
        let Some(mut s) = spec.get(fi).copied() else {
            continue;
        };
        if mirrored {
            s.swap(1, 2);
        }
        for (n, s) in out.iter_mut().zip(s) {
            if let Some(s) = s {
                let t: normals::V3 =
                    std::array::from_fn(|j| s[0] * inv[j][0] + s[1] * inv[j][1] + s[2] * inv[j][2]);
                let y = to_yup(Vec3(t[0], t[1], t[2]));
                *n = normals::normalize([y.0, y.1, y.2]);
            }
        }
    }
}

/// Builds the streams of `mesh` placed by `offset` (the node's object offset),
/// in glTF axes, with the normals `weighting` of the Max that saved it.
#[inline(never)]
pub fn streams(mesh: &Mesh, offset: &Mat43, weighting: Weighting) -> Streams {
    let mirrored = offset.determinant3() < 0.0;
    let pos: Vec<Vec3> = mesh
        .vertices
        .iter()
        .map(|v| {
            let p = to_yup(offset.transform_point(*v));
            if finite(p) {
                p
            } else {
                Vec3::default()
            }
        })
        .collect();
    let nv = pos.len();
    let usable = |c: i32| {
        mesh.maps
            .iter()
            .find(|m| m.channel == c)
            .filter(|m| m.faces.len() == mesh.faces.len() && !m.vertices.is_empty())
    };
    let uv_maps: Vec<_> = (1..).map_while(usable).collect();
    // Colour channels ride along the texture channels: corners are split
    // where any of them differs (the tail of the per-corner map list).
    let colour_maps = vertex_color::colour_maps(mesh);
    let nuv = uv_maps.len();
    let all_maps: Vec<_> = uv_maps.iter().chain(&colour_maps).copied().collect();
    let mut out = Streams {
        uvs: vec![Vec::new(); uv_maps.len()],
        colors: colour_maps
            .iter()
            .any(|m| m.channel != vertex_color::ILLUMINATION)
            .then(Vec::new),
        illumination: colour_maps
            .iter()
            .any(|m| m.channel == vertex_color::ILLUMINATION)
            .then(Vec::new),
        channels_left_out: mesh
            .maps
            .iter()
            .map(|m| m.channel)
            .filter(|&c| c > uv_maps.len() as i32 + 1 && usable(c).is_some())
            .collect(),
        ..Streams::default()
    };
    // Faces kept, with corners in glTF winding order: (vertex, uv vertex).
    let mut faces: Vec<KeptFace> = Vec::new();
    // The mesh face each kept face came from.
    let mut kept_from: Vec<usize> = Vec::new();
    for (i, f) in mesh.faces.iter().enumerate() {
        if f.v.iter().any(|&v| v as usize >= nv) {
            out.skipped_faces += 1;
            continue;
        }
        kept_from.push(i);
        let mut v = f.v;
        let mut tv: Vec<[u32; 3]> = all_maps.iter().map(|m| m.faces[i]).collect();
        if mirrored {
            v.swap(1, 2);
            for t in &mut tv {
                t.swap(1, 2);
            }
        }
        // Turned over, the edges v0→v2 and v1→v0 trade visibility bits.
        let flags = if mirrored {
            (f.flags & !0b101) | ((f.flags & 1) << 2) | ((f.flags >> 2) & 1)
        } else {
            f.flags
        };
        faces.push((v, tv, f.smoothing, f.material, flags));
    }
    // Max's render normals (the rule the NeL shapes use too), on the placed
    // positions so a scaled offset shades as Max shows it.
    let p64: Vec<normals::V3> = pos.iter().map(|p| [p.0, p.1, p.2]).collect();
    let kept: Vec<Face> = faces
        .iter()
        .map(|(v, _, sg, mat, flags)| Face {
            v: *v,
            smoothing: *sg,
            material: *mat,
            flags: *flags,
        })
        .collect();
    let mut corner = normals::corner_normals(&p64, &kept, weighting);
    specified_override(&mut corner, &kept_from, mesh, offset, mirrored);
    let mut index_of: HashMap<(u32, Vec<u32>, [u32; 3]), u32> = HashMap::new();
    for (fi, (v, tv, _, mat, _)) in faces.iter().enumerate() {
        let mut tri = [0u32; 3];
        let face_n = normals::face_normal(&p64, &kept[fi]);
        for k in 0..3 {
            let vi = v[k];
            // glTF wants unit normals: a degenerate corner takes the face's,
            // a degenerate face +Y.
            let unit =
                |n: normals::V3| (n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1.0).abs() < 1e-6;
            let n = [corner[fi][k], face_n, [0.0, 1.0, 0.0]]
                .into_iter()
                .find(|n| unit(*n))
                .unwrap_or([0.0, 1.0, 0.0]);
            // + 0.0 turns −0.0 into 0.0: the same normal keys one vertex.
            let n = f32s(Vec3(n[0], n[1], n[2])).map(|c| c + 0.0);
            let uv: Vec<u32> = tv
                .iter()
                .zip(&all_maps)
                .map(|(t, m)| {
                    if (t[k] as usize) < m.vertices.len() {
                        t[k]
                    } else {
                        u32::MAX
                    }
                })
                .collect();
            let next = out.positions.len() as u32;
            let idx = *index_of
                .entry((vi, uv.clone(), n.map(f32::to_bits)))
                .or_insert(next);
            if idx == next {
                out.positions.push(f32s(pos[vi as usize]));
                out.source.push(vi);
                out.normals.push(n);
                let (rgba, illum) = vertex_color::corner(&colour_maps, &uv[nuv..]);
                if let Some(c) = &mut out.colors {
                    c.push(rgba);
                }
                if let (Some(c), Some(l)) = (&mut out.illumination, illum) {
                    c.push(l);
                }
                for ((set, m), &t) in out.uvs.iter_mut().zip(&uv_maps).zip(&uv) {
                    let t = m.vertices.get(t as usize).copied().unwrap_or([0.0; 3]);
                    let (u, w) = (t[0], 1.0 - t[1]);
                    set.push([
                        if u.is_finite() { u } else { 0.0 },
                        if w.is_finite() { w } else { 0.0 },
                    ]);
                }
            }
            tri[k] = idx;
        }
        out.groups.entry(*mat).or_default().extend_from_slice(&tri);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn face(v: [u32; 3], smoothing: u32) -> Face {
        Face {
            v,
            smoothing,
            material: 0,
            flags: 0,
        }
    }

    #[test]
    #[inline(never)]
    fn smoothing_groups_share_normals() {
        // Two triangles folded along the edge 0-1.
        let mesh = Mesh {
            vertices: vec![
                Vec3(0.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(0.0, 1.0, 0.0),
                Vec3(0.0, -1.0, 1.0),
            ],
            faces: vec![face([0, 1, 2], 1), face([1, 0, 3], 1)],
            maps: Vec::new(),
            ..Default::default()
        };
        let s = streams(&mesh, &Mat43::IDENTITY, Weighting::CornerAngle);
        assert_eq!(s.positions.len(), 4);
        let flat = streams(
            &Mesh {
                faces: vec![face([0, 1, 2], 0), face([1, 0, 3], 0)],
                ..mesh.clone()
            },
            &Mat43::IDENTITY,
            Weighting::CornerAngle,
        );
        assert_eq!(flat.positions.len(), 6);
        for n in s.normals.iter().chain(&flat.normals) {
            let l = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            assert!((l - 1.0).abs() < 1e-5);
        }
        // Max +Z face normal is glTF +Y.
        assert!((flat.normals[0][1] - 1.0).abs() < 1e-6);
    }

    /// Two flat triangles of one plane whose normals differ only in the
    /// sign of a zero share their two common corners.
    #[test]
    #[inline(never)]
    fn a_negative_zero_normal_is_the_same_normal() {
        let mesh = Mesh {
            vertices: vec![
                Vec3(0.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(0.0, 0.0, 1.0),
                Vec3(1.0, 0.0, 1.0),
            ],
            faces: vec![face([0, 1, 2], 0), face([3, 2, 1], 0)],
            maps: Vec::new(),
            ..Default::default()
        };
        let s = streams(&mesh, &Mat43::IDENTITY, Weighting::CornerAngle);
        assert_eq!(s.positions.len(), 4, "{:?}", s.normals);
    }

    #[test]
    #[inline(never)]
    fn map_channels_become_texcoord_sets_without_gaps() {
        use maxfs_scene::eval::objects::mesh::MapChannel;
        let map = |channel: i32, u: f32| MapChannel {
            channel,
            vertices: vec![[u, 0.25, 0.0], [u, 0.5, 0.0], [u, 0.75, 0.0]],
            faces: vec![[0, 1, 2]],
        };
        let mesh = Mesh {
            vertices: vec![
                Vec3(0.0, 0.0, 0.0),
                Vec3(1.0, 0.0, 0.0),
                Vec3(0.0, 1.0, 0.0),
            ],
            faces: vec![face([0, 1, 2], 1)],
            maps: vec![map(0, 9.0), map(1, 0.1), map(2, 0.2), map(4, 0.4)],
            ..Default::default()
        };
        let s = streams(&mesh, &Mat43::IDENTITY, Weighting::CornerAngle);
        // Channels 1 and 2 (V flipped); 4 is left out after the missing 3; the
        // vertex colour channel 0 is no TEXCOORD.
        assert_eq!(s.uvs.len(), 2);
        assert_eq!(s.uvs[0], [[0.1, 0.75], [0.1, 0.5], [0.1, 0.25]]);
        assert_eq!(s.uvs[1][0], [0.2, 0.75]);
        assert_eq!(s.channels_left_out, [4]);
    }
}
