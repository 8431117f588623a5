//! `CMesh::CMeshBuild` from a Max mesh, as `CExportNel::buildMeshInterface`
//! fills it: vertices in the node's space (the object offset applied), one
//! face per Max face with its NeL material, and per corner the render normal,
//! the UVs each material asks for and the vertex colour.

use crate::error::{ExportError, ExportResult};
use maxfs_scene::eval::objects::mesh::Mesh;
use maxfs_scene::eval::Mat43;

use super::material_build::{MaterialSet, UVGEN_MISSING};
use super::vertex_format as vf;
use crate::nel::stream::Rgba;
use maxfs_scene::eval::objects::normals::{self, V3};

/// One face corner (`CMesh::CCorner`).
#[derive(Debug, Clone)]
pub struct Corner {
    pub vertex: u32,
    pub normal: [f32; 3],
    pub uvs: [[f32; 2]; vf::MAX_STAGES],
    pub color: Rgba,
}

/// One face (`CMesh::CFace`).
#[derive(Debug, Clone)]
pub struct BuildFace {
    pub material: usize,
    pub corners: [Corner; 3],
}

/// Optional skinning input: per Max vertex up to 4 (bone index, weight), and
/// the bone names the indices refer to. Filled by the skinning support when a
/// node carries a Skin or Physique modifier.
#[derive(Debug, Clone, Default)]
pub struct SkinInput {
    pub weights: Vec<[(u32, f32); 4]>,
    pub bones: Vec<String>,
}

/// `CMesh::CMeshBuild`.
#[derive(Debug, Clone)]
pub struct MeshBuild {
    pub vertex_flags: u16,
    pub uv_routing: [u8; 8],
    pub vertices: Vec<[f32; 3]>,
    pub faces: Vec<BuildFace>,
    pub skin: Option<SkinInput>,
}

/// Inverse of the 3×3 part of a row-vector matrix, as rows (None when singular).
fn inverse3(m: &Mat43) -> Option<[[f64; 3]; 3]> {
    let r = m.rows();
    let det = m.determinant3();
    if det.abs() < 1e-300 || !det.is_finite() {
        return None;
    }
    let a = r[0];
    let b = r[1];
    let c = r[2];
    let cross = |x: [f64; 3], y: [f64; 3]| {
        [
            x[1] * y[2] - x[2] * y[1],
            x[2] * y[0] - x[0] * y[2],
            x[0] * y[1] - x[1] * y[0],
        ]
    };
    let c0 = cross(b, c);
    let c1 = cross(c, a);
    let c2 = cross(a, b);
    Some(std::array::from_fn(|i| {
        [c0[i] / det, c1[i] / det, c2[i] / det]
    }))
}

/// Builds the faces and corners of `mesh` placed by `to_export` (object space
/// to the node's space).
pub fn build(
    mesh: &Mesh,
    to_export: &Mat43,
    mats: &MaterialSet,
    vp_color_vertex: bool,
    weighting: normals::Weighting,
) -> ExportResult<MeshBuild> {
    let nv = mesh.vertices.len();
    if let Some((i, f)) = mesh
        .faces
        .iter()
        .enumerate()
        .find(|(_, f)| f.v.iter().any(|&v| v as usize >= nv))
    {
        return Err(ExportError::invalid(format!(
            "face {i} uses vertex {:?} of {nv}",
            f.v
        )));
    }
    let obj: Vec<V3> = mesh.vertices.iter().map(|v| v.to_array()).collect();
    let mut corner_normals = normals::corner_normals(&obj, &mesh.faces, weighting);
    // Specified normals (object space, as these) win where a corner has one.
    if let Some(spec) = normals::specified_corners(&obj, mesh) {
        for (out, s) in corner_normals.iter_mut().zip(spec) {
            for (n, s) in out.iter_mut().zip(s) {
                if let Some(s) = s {
                    *n = s;
                }
            }
        }
    }
    let inv = inverse3(to_export)
        .ok_or_else(|| ExportError::invalid("the object offset matrix is singular"))?;

    let color_map = mesh.maps.iter().find(|m| m.channel == 0);
    let mut flags = vf::POSITION | vf::NORMAL;
    if color_map.is_some() && mats.need_vertex_color {
        flags |= vf::PRIMARY_COLOR;
    }
    let mut used = 0u16;
    for (i, &r) in mats.uv_routing.iter().enumerate() {
        if r as usize == i {
            used |= 1 << i;
        }
    }
    flags |= used << 2;
    let mut uv_routing = [0u8; 8];
    for (i, r) in uv_routing.iter_mut().enumerate() {
        let m = mats.uv_routing.get(i).copied().unwrap_or(0xff);
        *r = if m == 0xff { i as u8 } else { m };
    }

    let vertices: Vec<[f32; 3]> = mesh
        .vertices
        .iter()
        .map(|v| {
            let p = to_export.transform_point(*v);
            [p.0 as f32, p.1 as f32, p.2 as f32]
        })
        .collect();

    let nmat = mats.materials.len().max(1);
    let mut faces = Vec::with_capacity(mesh.faces.len());
    for (fi, f) in mesh.faces.iter().enumerate() {
        let material = f.material as usize % nmat;
        let info = &mats.infos[material.min(mats.infos.len().saturating_sub(1))];
        let mat = &mats.materials[material];
        let lighted = mat.flags & super::material_build::flag::LIGHTING != 0;
        let corners: [Corner; 3] = std::array::from_fn(|k| {
            // Normal: plane transform by the inverse export matrix, renormalized.
            let n = corner_normals[fi][k];
            // The plane transform's last term (d · 0) is +0, so −0 never survives it.
            let t: V3 = std::array::from_fn(|j| {
                n[0] * inv[j][0] + n[1] * inv[j][1] + n[2] * inv[j][2] + 0.0
            });
            let t = normals::normalize(t);
            let normal = [t[0] as f32, t[1] as f32, t[2] as f32];
            let normal = normalize_f32(normal);
            let mut uvs = [[0.0f32; 2]; vf::MAX_STAGES];
            for (uv, desc) in info.remap.iter().enumerate().take(vf::MAX_STAGES) {
                let mut ch = desc.max_channel;
                if ch < 0 {
                    continue;
                }
                let has = |c: i32| mesh.maps.iter().any(|m| m.channel == c);
                if !has(ch) {
                    ch = desc.alternative;
                }
                if ch == UVGEN_MISSING || ch <= 0 {
                    continue;
                }
                let Some(map) = mesh.maps.iter().find(|m| m.channel == ch) else {
                    continue;
                };
                let Some(tv) = map
                    .faces
                    .get(fi)
                    .and_then(|mf| map.vertices.get(mf[k] as usize))
                else {
                    continue;
                };
                let m = if info.texture_matrix {
                    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0; 3]]
                } else {
                    desc.uv_matrix
                };
                let x = tv[0] * m[0][0] + tv[1] * m[1][0] + tv[2] * m[2][0] + m[3][0];
                let y = tv[0] * m[0][1] + tv[1] * m[1][1] + tv[2] * m[2][1] + m[3][1];
                let [cu, cv, cw, chh] = desc.crop;
                uvs[uv] = [x * cw + cu, (1.0 - y) * chh + cv];
            }
            let mut color = Rgba {
                r: 255,
                g: 255,
                b: 255,
                a: 255,
            };
            let vcol = |c: i32| {
                mesh.maps
                    .iter()
                    .find(|m| m.channel == c)
                    .and_then(|m| m.vertices.get(*m.faces.get(fi)?.get(k)? as usize))
                    .copied()
            };
            if info.alpha_vertex && flags & vf::PRIMARY_COLOR != 0 {
                if let Some(c) = vcol(info.alpha_vertex_channel) {
                    let s = (c[0] * 255.0 + 0.5) + (c[1] * 255.0 + 0.5) + (c[2] * 255.0 + 0.5);
                    color.a = (s / 3.0).clamp(0.0, 255.0) as u8;
                }
            }
            color.a = ((color.a as u32 * mat.diffuse.a as u32) / 255) as u8;
            if (info.color_vertex && flags & vf::PRIMARY_COLOR != 0) || vp_color_vertex {
                if let Some(c) = vcol(0) {
                    let b = |x: f32| (x * 255.0 + 0.5).clamp(0.0, 255.0) as u8;
                    color.r = b(c[0]);
                    color.g = b(c[1]);
                    color.b = b(c[2]);
                }
            }
            if !vp_color_vertex {
                let m = if lighted { &mat.diffuse } else { &mat.color };
                color.r = ((color.r as u32 * m.r as u32) >> 8) as u8;
                color.g = ((color.g as u32 * m.g as u32) >> 8) as u8;
                color.b = ((color.b as u32 * m.b as u32) >> 8) as u8;
            }
            Corner {
                vertex: f.v[k],
                normal,
                uvs,
                color,
            }
        });
        faces.push(BuildFace { material, corners });
    }
    Ok(MeshBuild {
        vertex_flags: flags,
        uv_routing,
        vertices,
        faces,
        skin: None,
    })
}

/// `CVector::normalize`: the norm through a wide sum and `sqrt`, then a
/// multiplication by its f32 reciprocal.
fn normalize_f32(v: [f32; 3]) -> [f32; 3] {
    let w = v.map(f64::from);
    let n = (w[0] * w[0] + w[1] * w[1] + w[2] * w[2]).sqrt() as f32;
    if n != 0.0 {
        let k = 1.0f32 / n;
        v.map(|x| x * k)
    } else {
        v
    }
}
