//! `CMeshMRMGeom::build` and `CMeshMRMSkinnedGeom::build`: the exporter's
//! mesh build turned into NeL's MRM base mesh (`buildMrmBaseMesh`: one
//! wedge per vertex and attribute value), run through the progressive-mesh
//! builder (mrm_build.rs), then laid out as NeL stores it (`buildMeshBuildMrm`):
//! the wedges as one vertex buffer split per LOD, per LOD one render pass per
//! used material (stripified), the geomorphs, and for skinned meshes the
//! matrices and wedges each LOD influences; bone ids are compacted in order
//! of first use over the wedges, as NeL does after the build.

use crate::error::{ExportError, ExportResult};
use std::collections::{BTreeSet, HashMap};

use super::geom_build::{bbox, fits_16_bit_indices, index_buffer};
use super::mesh_build::MeshBuild;
use super::mrm_build::{
    self, BaseMesh, Corner, Face, FinalMesh, Params, SkinReduction, MAX_ATTRIB,
};
use super::stripify;
use super::vertex_format as vf;
use super::Era;
use crate::nel::export::properties::NodeProperties;
use crate::nel::shape::mesh::MeshMorpher;
use crate::nel::shape::mrm::{
    LevelDetail, LodInfo, LodVertexData, MeshMrmGeom, MeshMrmSkinnedGeom, MrmLod, MrmRdrPass,
    MrmSkinnedLod, MrmSkinnedRdrPass, PackedVertex, PackedVertexBuffer,
    SkinWeight as NelSkinWeight, VertexBlock, WedgeGeom,
};
use crate::nel::shape::vertex_buffer::{Channel, ChannelData, VbSubset, VALUE_NAMES};
use crate::nel::stream::{Bool, Ptr, F32};

/// `NL3D_MESH_SKIN_MANAGER_MAXVERTICES`: larger meshes stay `CMeshMRM`.
const SKINNED_MAX_VERTICES: usize = 5000;
/// `CPackedVertex` quantization factors (mesh_mrm_skinned.h).
const WEIGHT_FACTOR: f32 = 255.0;
const UV_FACTOR: f32 = 8192.0;
const NORMAL_FACTOR: f32 = 32767.0;
const DEFAULT_POS_SCALE: f32 = 8.0 / 32767.0;

/// The node's MRM parameters (`buildMRMParameters`) and distances.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub params: Params,
    pub finest: f32,
    pub middle: f32,
    pub coarsest: f32,
}

/// Reads the LOD_* AppData; refuses what NeL asserts on.
pub fn settings(p: &NodeProperties) -> ExportResult<Settings> {
    let skin_reduction = match p.lod_skin_reduction {
        0 => SkinReduction::Min,
        1 => SkinReduction::Max,
        2 => SkinReduction::Best,
        x => {
            return Err(ExportError::invalid(format!(
                "MRM skin reduction {x} is not 0, 1 or 2"
            )))
        }
    };
    let n_lods = u32::try_from(p.lod_nb_lod)
        .ok()
        .filter(|&n| (1..=mrm_build::MAX_LODS).contains(&n))
        .ok_or_else(|| {
            ExportError::invalid(format!(
                "MRM lod count {} is outside 1..={}",
                p.lod_nb_lod,
                mrm_build::MAX_LODS
            ))
        })?;
    let divisor = u32::try_from(p.lod_divisor)
        .ok()
        .filter(|&d| d >= 1)
        .ok_or_else(|| ExportError::invalid(format!("MRM divisor {} is below 1", p.lod_divisor)))?;
    let (finest, middle, coarsest) = (
        p.lod_distance_finest,
        p.lod_distance_middle,
        p.lod_distance_coarsest,
    );
    if !(finest >= 0.0 && middle > finest && coarsest > middle) {
        return Err(ExportError::invalid(format!(
            "MRM distances {finest}, {middle}, {coarsest} are not 0 <= finest < middle < coarsest"
        )));
    }
    Ok(Settings {
        params: Params {
            n_lods,
            divisor,
            skin_reduction,
        },
        finest,
        middle,
        coarsest,
    })
}

/// `CMeshMRMSkinned::isCompatible`: skinned, position + normal + one UV set
/// only, and few enough vertices for the skin manager.
pub fn skinned_compatible(build: &MeshBuild) -> bool {
    build.skin.is_some()
        && vb_flags(build) == vf::POSITION | vf::NORMAL | vf::TEX_COORD0
        && build.vertices.len() <= SKINNED_MAX_VERTICES
}

/// The vertex format the MRM keeps: position, normal, colour and UVs (skin
/// weights live beside the vertex buffer).
fn vb_flags(build: &MeshBuild) -> u16 {
    let uvs: u16 = ((1 << vf::MAX_STAGES) - 1) << 2;
    vf::POSITION | (build.vertex_flags & (vf::NORMAL | vf::PRIMARY_COLOR | uvs))
}

/// `buildMrmBaseMesh`: per attribute, one wedge per (vertex, value).
pub fn base_mesh(build: &MeshBuild) -> ExportResult<BaseMesh> {
    let flags = vb_flags(build);
    let mut kinds: Vec<Kind> = Vec::new();
    if flags & vf::NORMAL != 0 {
        kinds.push(Kind::Normal);
    }
    if flags & vf::PRIMARY_COLOR != 0 {
        kinds.push(Kind::Color);
    }
    for k in 0..vf::MAX_STAGES {
        if flags & (vf::TEX_COORD0 << k) != 0 {
            kinds.push(Kind::Uv(k));
        }
    }
    let na = kinds.len();
    if na > MAX_ATTRIB {
        return Err(ExportError::limit(format!(
            "{na} vertex attributes (at most {MAX_ATTRIB})"
        )));
    }
    let skin = match &build.skin {
        Some(s) => {
            if s.weights.len() != build.vertices.len() {
                return Err(ExportError::invalid(format!(
                    "invalid skeleton: {} skin weights for {} vertices",
                    s.weights.len(),
                    build.vertices.len()
                )));
            }
            if let Some(i) = s.weights.iter().position(|w| w.iter().all(|x| x.1 <= 0.0)) {
                return Err(ExportError::invalid(format!(
                    "vertex {i} has no skin weight"
                )));
            }
            Some(
                s.weights
                    .iter()
                    .map(|w| mrm_build::SkinWeight {
                        matrix: w.map(|x| x.0),
                        weight: w.map(|x| x.1),
                    })
                    .collect(),
            )
        }
        None => None,
    };
    let mut attribs: Vec<Vec<[f32; 4]>> = vec![Vec::new(); na];
    let mut maps: Vec<HashMap<(u32, [u32; 4]), u32>> = vec![HashMap::new(); na];
    let bits = |x: f32| if x == 0.0 { 0 } else { x.to_bits() };
    let mut faces = Vec::with_capacity(build.faces.len());
    for f in &build.faces {
        let corners = std::array::from_fn(|k| {
            let c = &f.corners[k];
            let mut out = Corner {
                vertex: c.vertex,
                attribs: [0; MAX_ATTRIB],
            };
            for (a, kind) in kinds.iter().enumerate() {
                let v = match kind {
                    Kind::Normal => [c.normal[0], c.normal[1], c.normal[2], 0.0],
                    Kind::Color => [c.color.r, c.color.g, c.color.b, c.color.a].map(f32::from),
                    Kind::Uv(s) => [c.uvs[*s][0], c.uvs[*s][1], 0.0, 0.0],
                };
                let next = attribs[a].len() as u32;
                let id = *maps[a].entry((c.vertex, v.map(bits))).or_insert(next);
                if id == next {
                    attribs[a].push(v);
                }
                out.attribs[a] = id;
            }
            out
        });
        faces.push(Face {
            material: f.material,
            corners,
        });
    }
    Ok(BaseMesh {
        vertices: build.vertices.clone(),
        skin,
        num_attribs: na,
        attribs,
        faces,
    })
}

enum Kind {
    Normal,
    Color,
    Uv(usize),
}

/// `CMRMLevelDetail` with `compileDistanceSetup`, face counts from the
/// coarsest and finest LODs.
fn level_detail(s: &Settings, min_faces: usize, max_faces: usize) -> LevelDetail {
    let oo = 1.0f32 / (s.coarsest - s.finest);
    let d_middle = (s.coarsest - s.middle) * oo;
    let pow = (0.5f64.ln() / f64::from(d_middle.ln())) as f32;
    LevelDetail {
        max_face_used: max_faces as u32,
        min_face_used: min_faces as u32,
        distance_finest: F32::from_f32(s.finest),
        distance_middle: F32::from_f32(s.middle),
        distance_coarsest: F32::from_f32(s.coarsest),
        oo_distance_delta: F32::from_f32(oo),
        distance_pow: F32::from_f32(pow),
    }
}

/// Per LOD, one stripified index list per material, ascending.
fn passes(lod: &mrm_build::Lod, nmat: usize, era: Era) -> Vec<(u32, Vec<u32>)> {
    let mut by_mat: Vec<Vec<u32>> = vec![Vec::new(); nmat.max(1)];
    for (m, w) in &lod.faces {
        if let Some(p) = by_mat.get_mut(*m) {
            p.extend_from_slice(w);
        }
    }
    by_mat
        .into_iter()
        .enumerate()
        .filter(|(_, p)| !p.is_empty())
        .map(|(m, p)| {
            let idx = stripify::optimize_triangles(&p, stripify::CACHE_SIZE, era == Era::Current);
            (m as u32, idx)
        })
        .collect()
}

/// Wedges each LOD's faces reach (geomorph slots through both ends), by
/// number of matrices used, sorted; and the matrices they use in order.
fn influences(fm: &FinalMesh, lod: &mrm_build::Lod) -> ([Vec<u32>; 4], Vec<u32>) {
    let mut seen = BTreeSet::new();
    let mut inf: [Vec<u32>; 4] = Default::default();
    let mut add = |w: u32, inf: &mut [Vec<u32>; 4]| {
        if seen.insert(w) {
            let n = fm.wedges.get(w as usize).map_or(1, |x| x.n_skin_mat_used);
            inf[n.clamp(1, 4) - 1].push(w);
        }
    };
    for (_, tri) in &lod.faces {
        for &w in tri {
            if (w as usize) < fm.n_geom_space {
                if let Some(&(s, e)) = lod.geomorphs.get(w as usize) {
                    add(s, &mut inf);
                    add(e, &mut inf);
                }
            } else {
                add(w, &mut inf);
            }
        }
    }
    for v in inf.iter_mut() {
        v.sort_unstable();
    }
    let mut matrices: Vec<u32> = Vec::new();
    for (k, list) in inf.iter().enumerate() {
        for &w in list {
            if let Some(wedge) = fm.wedges.get(w as usize) {
                for j in 0..=k {
                    let m = wedge.skin.matrix[j];
                    if wedge.skin.weight[j] > 0.0 && !matrices.contains(&m) {
                        matrices.push(m);
                    }
                }
            }
        }
    }
    (inf, matrices)
}

/// `buildSkinVertexBlocks`: runs of consecutive influenced wedges.
fn vertex_blocks(n_wedges: usize, inf: &[Vec<u32>; 4]) -> Vec<VertexBlock> {
    let mut used = vec![false; n_wedges];
    for &w in inf.iter().flatten() {
        if let Some(u) = used.get_mut(w as usize) {
            *u = true;
        }
    }
    let mut out: Vec<VertexBlock> = Vec::new();
    let mut open = false;
    for (i, &u) in used.iter().enumerate() {
        match (u, open) {
            (true, true) => {
                if let Some(b) = out.last_mut() {
                    b.n_vertices += 1;
                }
            }
            (true, false) => {
                out.push(VertexBlock {
                    vertex_start: i as u32,
                    n_vertices: 1,
                });
                open = true;
            }
            (false, _) => open = false,
        }
    }
    out
}

/// Bone ids compacted in order of first use over `ids` (each wedge's active
/// matrices, the first always), with the names they take.
struct BoneRemap {
    map: HashMap<u32, u32>,
    names: Vec<String>,
}

impl BoneRemap {
    fn new() -> Self {
        BoneRemap {
            map: HashMap::new(),
            names: Vec::new(),
        }
    }
    fn local(&mut self, global: u32, names: &[String]) -> ExportResult<u32> {
        if let Some(&l) = self.map.get(&global) {
            return Ok(l);
        }
        let name = names.get(global as usize).ok_or_else(|| {
            ExportError::invalid(format!("skin bone id {global} of {} bones", names.len()))
        })?;
        let l = self.names.len() as u32;
        self.map.insert(global, l);
        self.names.push(name.clone());
        Ok(l)
    }
}

/// What both MRM geometries share: the built mesh and per-material use.
pub struct Built<G> {
    pub geom: G,
    pub used: Vec<bool>,
}

fn run(build: &MeshBuild, s: &Settings) -> ExportResult<(FinalMesh, BaseMesh)> {
    let base = base_mesh(build)?;
    let fm = mrm_build::build(&base, &s.params)?;
    Ok((fm, base))
}

fn used_materials(fm: &FinalMesh, nmat: usize) -> Vec<bool> {
    let mut used = vec![false; nmat.max(1)];
    for lod in &fm.lods {
        for (m, _) in &lod.faces {
            if let Some(u) = used.get_mut(*m) {
                *u = true;
            }
        }
    }
    used
}

/// `CMeshMRMGeom::build` for `nmat` materials.
pub fn build_geom(
    build: &MeshBuild,
    nmat: usize,
    s: &Settings,
    era: Era,
) -> ExportResult<Built<MeshMrmGeom>> {
    let empty = build.vertices.is_empty() || build.faces.is_empty();
    let flags = vb_flags(build);
    let mut header = vf::header(flags, 0, vf::RAM_PREFERRED);
    let mut geom = MeshMrmGeom {
        version: 5,
        bones_name: Some(Vec::new()),
        vertex_program: Some(Ptr::Null),
        morpher: Some(MeshMorpher {
            version: 0,
            blend_shapes: Vec::new(),
        }),
        skinned: Bool(0),
        bbox: bbox(&[]),
        level_detail: level_detail(s, 0, 0),
        lod_infos: Vec::new(),
        n_wedges: 0,
        vb_header: header.clone(),
        skin_weights: Some(Vec::new()),
        shadow_vertices: Some(Vec::new()),
        shadow_triangles: Some(Vec::new()),
        lods: Vec::new(),
    };
    if empty {
        return Ok(Built {
            geom,
            used: vec![false; nmat.max(1)],
        });
    }
    let (fm, _) = run(build, s)?;
    fits_16_bit_indices(fm.wedges.len(), "MRM wedges")?;
    let skinned = fm.skinned;
    let names: &[String] = build.skin.as_ref().map_or(&[], |x| x.bones.as_slice());
    // Bone compaction over every wedge (geomorph slots use matrix 0).
    let mut remap = BoneRemap::new();
    let mut skin_weights = Vec::new();
    if skinned {
        for w in &fm.wedges {
            let mut m = w.skin.matrix;
            for (j, id) in m.iter_mut().enumerate() {
                if w.skin.weight[j] > 0.0 || j == 0 {
                    *id = remap.local(*id, names)?;
                }
            }
            let f = |x: f32| F32::from_f32(x);
            skin_weights.push(NelSkinWeight {
                m0: m[0],
                w0: f(w.skin.weight[0]),
                m1: m[1],
                w1: f(w.skin.weight[1]),
                m2: m[2],
                w2: f(w.skin.weight[2]),
                m3: m[3],
                w3: f(w.skin.weight[3]),
            });
        }
    }
    header.num_vertices = fm.wedges.len() as u32;
    let mut prev = 0usize;
    let mut lods = Vec::with_capacity(fm.lods.len());
    let mut infos = Vec::with_capacity(fm.lods.len());
    for lod in &fm.lods {
        let (inf, matrices) = if skinned {
            influences(&fm, lod)
        } else {
            (Default::default(), Vec::new())
        };
        let matrix_influences = matrices
            .iter()
            .map(|&m| remap.local(m, names))
            .collect::<Result<Vec<_>, _>>()?;
        let blocks = vertex_blocks(lod.n_wedges, &inf);
        let rdr_pass = passes(lod, nmat, era)
            .into_iter()
            .map(|(m, idx)| MrmRdrPass {
                version: 0,
                material_id: m,
                pblock: index_buffer(idx),
            })
            .collect();
        let (a, b) = (prev, lod.n_wedges.max(prev));
        infos.push(LodInfo {
            version: 0,
            start_add_wedge: a as u32,
            end_add_wedges: b as u32,
        });
        prev = b;
        lods.push((
            MrmLod {
                version: 2,
                n_wedges: lod.n_wedges as u32,
                rdr_pass,
                geomorphs: lod
                    .geomorphs
                    .iter()
                    .map(|&(start, end)| WedgeGeom { start, end })
                    .collect(),
                matrix_influences,
                influenced_vertices: inf,
                skin_vertex_blocks: Some(blocks),
            },
            LodVertexData {
                version: 1,
                vertices: subset(&fm, a..b, flags, build.uv_routing),
                skin_weights: Vec::new(),
            },
        ));
    }
    let faces = |l: Option<&mrm_build::Lod>| l.map_or(0, |l| l.faces.len());
    geom.level_detail = level_detail(s, faces(fm.lods.first()), faces(fm.lods.last()));
    geom.bones_name = Some(remap.names);
    geom.skinned = Bool(skinned as u8);
    geom.bbox = bbox(&build.vertices);
    geom.lod_infos = infos;
    geom.n_wedges = fm.wedges.len() as u32;
    geom.vb_header = header;
    geom.skin_weights = Some(skin_weights);
    geom.lods = lods;
    Ok(Built {
        geom,
        used: used_materials(&fm, nmat),
    })
}

/// The wedges `range` as a vertex buffer subset.
fn subset(fm: &FinalMesh, range: std::ops::Range<usize>, flags: u16, routing: [u8; 8]) -> VbSubset {
    let ws = fm.wedges.get(range).unwrap_or(&[]);
    let f = F32::from_f32;
    // Attribute slot of each value, in buildMrmBaseMesh's order.
    let mut att = 0usize;
    let mut slot_of = [usize::MAX; 16];
    if flags & vf::NORMAL != 0 {
        slot_of[1] = att;
        att += 1;
    }
    if flags & vf::PRIMARY_COLOR != 0 {
        slot_of[10] = att;
        att += 1;
    }
    for k in 0..vf::MAX_STAGES {
        if flags & (vf::TEX_COORD0 << k) != 0 {
            slot_of[2 + k] = att;
            att += 1;
        }
    }
    let mut channels = Vec::new();
    for (slot, &value) in VALUE_NAMES.iter().enumerate() {
        if flags & (1 << slot) == 0 {
            continue;
        }
        let a = slot_of[slot].min(MAX_ATTRIB - 1);
        let (components, data) = match slot {
            0 => (
                3,
                ChannelData::Float(ws.iter().flat_map(|w| w.pos.map(f)).collect()),
            ),
            1 => (
                3,
                ChannelData::Float(
                    ws.iter()
                        .flat_map(|w| [w.attribs[a][0], w.attribs[a][1], w.attribs[a][2]].map(f))
                        .collect(),
                ),
            ),
            2..=9 => (
                2,
                ChannelData::Float(
                    ws.iter()
                        .flat_map(|w| [w.attribs[a][0], w.attribs[a][1]].map(f))
                        .collect(),
                ),
            ),
            10 => (
                4,
                ChannelData::Bytes(
                    ws.iter()
                        // attToColor: clamped, truncated.
                        .flat_map(|w| w.attribs[a].map(|x| x.clamp(0.0, 255.0) as u8))
                        .collect(),
                ),
            ),
            _ => continue,
        };
        channels.push(Channel {
            value,
            components,
            data,
        });
    }
    VbSubset {
        version: 2,
        count: ws.len(),
        channels,
        uv_routing: Some(routing),
    }
}

/// `floor(x + 0.5)` clamped to i16, as the packed vertex setters round.
fn pack16(x: f32) -> i16 {
    (x + 0.5).floor().clamp(-32768.0, 32767.0) as i16
}

/// `CMeshMRMSkinnedGeom::build`: the same MRM with quantized vertices.
pub fn build_skinned(
    build: &MeshBuild,
    nmat: usize,
    s: &Settings,
    era: Era,
) -> ExportResult<Built<MeshMrmSkinnedGeom>> {
    let mut geom = MeshMrmSkinnedGeom {
        version: 0,
        bones_name: Vec::new(),
        bbox: bbox(&[]),
        level_detail: level_detail(s, 0, 0),
        vbuffer: PackedVertexBuffer {
            version: 0,
            packed_buffer: Vec::new(),
            decompact_scale: F32::from_f32(DEFAULT_POS_SCALE),
        },
        shadow_vertices: Vec::new(),
        shadow_triangles: Vec::new(),
        lods: Vec::new(),
    };
    if build.vertices.is_empty() || build.faces.is_empty() {
        return Ok(Built {
            geom,
            used: vec![false; nmat.max(1)],
        });
    }
    let (fm, _) = run(build, s)?;
    if !fm.skinned {
        return Err(ExportError::invalid("CMeshMRMSkinned needs skin weights"));
    }
    fits_16_bit_indices(fm.wedges.len(), "MRM wedges")?;
    let names: &[String] = build.skin.as_ref().map_or(&[], |x| x.bones.as_slice());
    // Decompaction scale: the largest coordinate over 32767, at least the default.
    let mut scale = DEFAULT_POS_SCALE;
    if let Some(first) = fm.wedges.first() {
        let (mut lo, mut hi) = (first.pos, first.pos);
        for w in &fm.wedges[1..] {
            for k in 0..3 {
                lo[k] = lo[k].min(w.pos[k]);
                hi[k] = hi[k].max(w.pos[k]);
            }
        }
        let width = lo.iter().chain(&hi).fold(0.0f32, |m, x| m.max(x.abs()));
        scale = scale.max(width / 32767.0);
    }
    let mut remap = BoneRemap::new();
    let mut packed = Vec::with_capacity(fm.wedges.len());
    for (i, w) in fm.wedges.iter().enumerate() {
        let n = w.attribs[0];
        let uv = w.attribs[1];
        let mut mats = [0u8; 4];
        let mut ws = [0u8; 4];
        let mut sum = 0i32;
        for j in 0..4 {
            let m = w.skin.matrix[j];
            mats[j] = u8::try_from(m).map_err(|_| {
                ExportError::limit(format!(
                    "skin bone id {m} does not fit CMeshMRMSkinned's 8 bits"
                ))
            })?;
            ws[j] = (w.skin.weight[j] * WEIGHT_FACTOR + 0.5)
                .floor()
                .clamp(0.0, 255.0) as u8;
            sum += i32::from(ws[j]);
        }
        let first = i32::from(ws[0]) + 255 - sum;
        if !(1..=255).contains(&first) {
            return Err(ExportError::invalid(format!(
                "wedge {i}: skin weights sum to {sum}/255"
            )));
        }
        ws[0] = first as u8;
        for j in 0..4 {
            if ws[j] > 0 || j == 0 {
                mats[j] = remap.local(u32::from(mats[j]), names)? as u8;
            }
        }
        packed.push(PackedVertex {
            version: 0,
            pos: w.pos.map(|x| pack16(x / scale)),
            normal: [n[0], n[1], n[2]].map(|x| pack16(x * NORMAL_FACTOR)),
            uv: [uv[0], uv[1]].map(|x| pack16(x * UV_FACTOR)),
            m0: mats[0],
            w0: ws[0],
            m1: mats[1],
            w1: ws[1],
            m2: mats[2],
            w2: ws[2],
            m3: mats[3],
            w3: ws[3],
        });
    }
    for lod in &fm.lods {
        let (inf, matrices) = influences(&fm, lod);
        // Matrices no packed vertex kept are dropped, as NeL does.
        let matrix_influences = matrices
            .iter()
            .filter_map(|m| remap.map.get(m).copied())
            .collect();
        let rdr_pass = passes(lod, nmat, era)
            .into_iter()
            .map(|(m, idx)| MrmSkinnedRdrPass {
                version: 0,
                material_id: m,
                pblock: idx.into_iter().map(|i| i as u16).collect(),
            })
            .collect();
        geom.lods.push(MrmSkinnedLod {
            version: 0,
            n_wedges: lod.n_wedges as u32,
            rdr_pass,
            geomorphs: lod
                .geomorphs
                .iter()
                .map(|&(start, end)| WedgeGeom { start, end })
                .collect(),
            matrix_influences,
            influenced_vertices: inf,
        });
    }
    let faces = |l: Option<&mrm_build::Lod>| l.map_or(0, |l| l.faces.len());
    geom.level_detail = level_detail(s, faces(fm.lods.first()), faces(fm.lods.last()));
    geom.bones_name = remap.names;
    geom.bbox = bbox(&build.vertices);
    geom.vbuffer = PackedVertexBuffer {
        version: 0,
        packed_buffer: packed,
        decompact_scale: F32::from_f32(scale),
    };
    Ok(Built {
        geom,
        used: used_materials(&fm, nmat),
    })
}
