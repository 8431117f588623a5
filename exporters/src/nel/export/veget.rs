//! `.veget` (`NL3D::CVegetableShape`): what veget_export.ms and the plug-in's
//! `buildVegetableShape` (nel_mesh_lib/export_vegetable.cpp; seed S003 l.641,
//! l.833) write for each vegetable node, and `CVegetableShape::build`
//! (nel/src/3d/vegetable_shape.cpp).
//!
//! - veget_export.ms visits the `geometry` nodes without a parent, not named
//!   "Bip01", not nel_ps, DONOTEXPORT not "1", VEGETABLE "1"; each is written
//!   as `<node name>.veget`.
//! - The node's mesh is built as for its `.shape` (the same CMesh build: node
//!   space, materials, normals); it must have UV1, one matrix block and one
//!   render pass, whose vertex buffer and triangles the vegetable takes.
//! - Flags from the node's AppData (integers as NeL's `fromString` reads them):
//!   alpha blend when VEGETABLE_ALPHA_BLEND is 0; then pre-computed lighting
//!   and double-sided, lighted unless ALPHA_BLEND_ON_LIGHTED is non-zero;
//!   otherwise lighted unless ALPHA_BLEND_OFF_LIGHTED is 2, pre-computed when
//!   it is 0, double-sided when ALPHA_BLEND_OFF_DOUBLE_SIDED is non-zero;
//!   best-sided lighting from FORCE_BEST_SIDED_LIGHTING when pre-computed;
//!   bend factor BEND_FACTOR (float, default 1), bend centre BEND_CENTER.
//! - `CVegetableShape::build`: lighted only with normals; alpha blend only
//!   double-sided and unlit or pre-computed; the vertex buffer keeps position,
//!   normal when lighted, UV0, and UV1.U = the bend weight (vertex colour red / 255 ×
//!   factor, or without colours z / max z, clamped at 0, × factor).

use super::cmb::script_int;
use super::properties::id;
use super::select::{self, superclass};
use super::shape::{geom_build, material_build, mesh_build, source, vertex_format as vf, Era};
use super::{Context, ExportKind, Exports, Output};
use crate::error::{ExportError, ExportResult};
use crate::nel::shape::vertex_buffer::{Channel, ChannelData, VbSubset, VertexBuffer};
use crate::nel::stream::{Bool, F32};
use crate::nel::veget::VegetableShape;
use crate::nel::{write_nel, NelFile};

/// NEL3D_APPDATA_BEND_FACTOR_DEFAULT.
const BEND_FACTOR_DEFAULT: f32 = 1.0;
const TEX_COORD1: u16 = 1 << 3;
/// nel_ps is matched on its class id PartA.
const NEL_PS_PART_A: u32 = select::NEL_PS_PART_A;

/// `CVegetableShapeBuild`'s options, as buildVegetableShape sets them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VegetableBuild {
    pub lighted: bool,
    pub double_sided: bool,
    pub pre_compute_lighting: bool,
    pub alpha_blend: bool,
    pub best_sided_pre_compute_lighting: bool,
    pub max_bend_weight: f32,
    pub bend_center_mode: i32,
}

/// NeL's `toFloatMax`: a decimal number (leading blanks allowed).
fn script_float(text: Option<&str>, default: f32) -> f32 {
    let Some(t) = text else { return default };
    let t = t.trim_start();
    let end = t
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == 'e'
                || c == 'E'
                || ((c == '-' || c == '+') && (i == 0 || t[..i].ends_with(['e', 'E']))))
        })
        .map_or(t.len(), |(i, _)| i);
    t[..end].parse().unwrap_or(default)
}

impl VegetableBuild {
    /// The options buildVegetableShape reads from the node's AppData.
    pub fn from_appdata(raw: impl Fn(u32) -> Option<String>) -> VegetableBuild {
        let int = |k: u32| script_int(raw(k).as_deref(), 0);
        let alpha_blend = int(id::VEGETABLE_ALPHA_BLEND) == 0;
        let (lighted, pre_compute_lighting, double_sided) = if alpha_blend {
            (int(id::VEGETABLE_ALPHA_BLEND_ON_LIGHTED) == 0, true, true)
        } else {
            let off = int(id::VEGETABLE_ALPHA_BLEND_OFF_LIGHTED);
            (
                off != 2,
                off == 0,
                int(id::VEGETABLE_ALPHA_BLEND_OFF_DOUBLE_SIDED) != 0,
            )
        };
        VegetableBuild {
            lighted,
            double_sided,
            pre_compute_lighting,
            alpha_blend,
            best_sided_pre_compute_lighting: pre_compute_lighting
                && int(id::VEGETABLE_FORCE_BEST_SIDED_LIGHTING) != 0,
            max_bend_weight: script_float(raw(id::BEND_FACTOR).as_deref(), BEND_FACTOR_DEFAULT),
            bend_center_mode: int(id::BEND_CENTER) as i32,
        }
    }
}

fn floats<'a>(vb: &'a VertexBuffer, value: &str) -> Option<&'a [F32]> {
    vb.vertices
        .channels
        .iter()
        .find(|c| c.value == value)
        .and_then(|c| match &c.data {
            ChannelData::Float(v) => Some(v.as_slice()),
            _ => None,
        })
}

/// `CVegetableShape::build` from a mesh vertex buffer and its triangles.
pub fn build(
    src: &VertexBuffer,
    triangles: &[u32],
    b: &VegetableBuild,
) -> ExportResult<VegetableShape> {
    let h = &src.header;
    if h.flags & vf::TEX_COORD0 == 0 {
        return Err(ExportError::refused("the vertex buffer has no UV1"));
    }
    let n = h.num_vertices as usize;
    let pos = floats(src, "position").filter(|p| p.len() == 3 * n);
    let pos =
        pos.ok_or_else(|| ExportError::refused("the vertex buffer has no float positions"))?;
    let uv = floats(src, "tex_coord0")
        .filter(|p| p.len() == 2 * n)
        .ok_or_else(|| ExportError::refused("the vertex buffer has no float UV1"))?;
    let lighted = b.lighted && h.flags & vf::NORMAL != 0;
    let normal = if lighted {
        Some(
            floats(src, "normal")
                .filter(|p| p.len() == 3 * n)
                .ok_or_else(|| ExportError::refused("the vertex buffer has no float normals"))?,
        )
    } else {
        None
    };
    let pre = lighted && b.pre_compute_lighting;
    let colour = (h.flags & vf::PRIMARY_COLOR != 0)
        .then(|| {
            src.vertices
                .channels
                .iter()
                .find(|c| c.value == "primary_color")
                .and_then(|c| match &c.data {
                    ChannelData::Bytes(v) if v.len() == 4 * n => Some(v.as_slice()),
                    _ => None,
                })
                .ok_or_else(|| ExportError::refused("the vertex colours are not RGBA bytes"))
        })
        .transpose()?;
    if let Some(i) = triangles.iter().find(|&&i| i as usize >= n) {
        return Err(ExportError::invalid(format!(
            "triangle index {i} past {n} vertices"
        )));
    }
    // Without colours the bend weight grows with z up to the highest vertex.
    let max_z = if colour.is_none() {
        let m = (0..n).map(|i| pos[3 * i + 2].get()).fold(0f32, f32::max);
        if m == 0.0 {
            1.0
        } else {
            m
        }
    } else {
        0.0
    };
    let bend: Vec<f32> = (0..n)
        .map(|i| match colour {
            Some(c) => (f32::from(c[4 * i]) / 255.0) * b.max_bend_weight,
            None => (pos[3 * i + 2].get() / max_z).max(0.0) * b.max_bend_weight,
        })
        .collect();
    let mut flags = vf::POSITION | vf::TEX_COORD0 | TEX_COORD1;
    let mut channels = vec![Channel {
        value: "position",
        components: 3,
        data: ChannelData::Float(pos.to_vec()),
    }];
    if let Some(nrm) = normal {
        flags |= vf::NORMAL;
        channels.push(Channel {
            value: "normal",
            components: 3,
            data: ChannelData::Float(nrm.to_vec()),
        });
    }
    channels.push(Channel {
        value: "tex_coord0",
        components: 2,
        data: ChannelData::Float(uv.to_vec()),
    });
    channels.push(Channel {
        value: "tex_coord1",
        components: 2,
        data: ChannelData::Float(
            bend.iter()
                .flat_map(|&w| [F32::from_f32(w), F32::from_f32(0.0)])
                .collect(),
        ),
    });
    let vb = VertexBuffer {
        version: 2,
        header: vf::header(flags, n as u32, vf::RAM_PREFERRED),
        vertices: VbSubset {
            version: 2,
            count: n,
            channels,
            uv_routing: Some([0, 1, 2, 3, 4, 5, 6, 7]),
        },
    };
    Ok(VegetableShape {
        version: 1,
        lighted: Bool(u8::from(lighted)),
        double_sided: Bool(u8::from(b.double_sided)),
        pre_compute_lighting: Bool(u8::from(pre)),
        alpha_blend: Bool(u8::from(
            b.alpha_blend && b.double_sided && (!lighted || pre),
        )),
        bend_center_mode: b.bend_center_mode,
        vb,
        triangle_indices: triangles.to_vec(),
        best_sided_pre_compute_lighting: Some(Bool(u8::from(
            pre && b.best_sided_pre_compute_lighting,
        ))),
    })
}

/// The nodes veget_export.ms exports, in its order.
pub fn vegetable_nodes(ctx: &Context) -> Vec<usize> {
    select::tree_order(ctx.graph)
        .into_iter()
        .filter(|&n| select::category(ctx, n) == Some(superclass::GEOMETRY))
        .filter(|&n| select::parent_is_root(ctx, n))
        .filter(|&n| ctx.graph.node_name(n) != "Bip01")
        .filter(|&n| select::object_class(ctx, n).is_none_or(|(c, _)| c.0 != NEL_PS_PART_A))
        .filter(|&n| {
            let p = ctx.props.node(n);
            !p.script_is_one(id::DONTEXPORT) && p.script_is_one(id::VEGETABLE)
        })
        .collect()
}

fn vegetable_bytes(ctx: &Context, node: usize) -> ExportResult<Vec<u8>> {
    let mesh = source::node_mesh(ctx, node, None)?;
    let mats = material_build::build_materials(ctx, node);
    if let Some(e) = mats.errors.first() {
        return Err(ExportError::refused(e.clone()));
    }
    let era = Era::of(ctx);
    let weighting =
        maxfs_scene::eval::objects::normals::Weighting::of_scene_version(ctx.graph.version);
    let to_node = ctx.eval.offset_tm(node);
    let mb = mesh_build::build(&mesh, &to_node, &mats, false, weighting)?;
    if mb.vertex_flags & vf::TEX_COORD0 == 0 {
        return Err(ExportError::refused(
            "can't build a vegetable mesh: it needs UV1 coordinates",
        ));
    }
    let geom = geom_build::build(&mb, mats.materials.len(), era)?.geom;
    if geom.matrix_blocks.len() != 1 {
        return Err(ExportError::refused(
            "a vegetable cannot be skinned (more than one matrix block)",
        ));
    }
    let passes = &geom.matrix_blocks[0].rdr_pass;
    if passes.len() != 1 {
        return Err(ExportError::refused(format!(
            "a vegetable must use one material: its mesh has {} render passes",
            passes.len()
        )));
    }
    let p = ctx.props.node(node);
    let opts = VegetableBuild::from_appdata(|k| p.raw(k).map(str::to_string));
    let shape = build(&geom.vbuffer, &passes[0].pblock.indexes, &opts)?;
    write_nel(&NelFile::Vegetable(shape)).map_err(ExportError::Write)
}

/// Appends one `<node>.veget` per vegetable node.
pub fn export(ctx: &Context, out: &mut Exports) {
    for node in vegetable_nodes(ctx) {
        let name = ctx.graph.node_name(node).to_string();
        match vegetable_bytes(ctx, node) {
            Ok(bytes) => out.outputs.push(Output {
                kind: ExportKind::Veget,
                with_coarse_mesh: false,
                name: format!("{name}.veget"),
                bytes,
            }),
            Err(e) => out.push_error(ExportKind::Veget, &name, e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(pairs: &[(u32, &str)]) -> VegetableBuild {
        VegetableBuild::from_appdata(|k| {
            pairs
                .iter()
                .find(|(i, _)| *i == k)
                .map(|(_, v)| v.to_string())
        })
    }

    /// export_vegetable.cpp: the defaults (nothing set) are alpha blend,
    /// lighted, pre-computed, double-sided, bend factor 1.
    #[test]
    fn appdata_flags() {
        let d = opts(&[]);
        assert!(d.alpha_blend && d.lighted && d.pre_compute_lighting && d.double_sided);
        assert!(!d.best_sided_pre_compute_lighting);
        assert_eq!(d.max_bend_weight, 1.0);
        let off = opts(&[
            (id::VEGETABLE_ALPHA_BLEND, "1"),
            (id::VEGETABLE_ALPHA_BLEND_OFF_LIGHTED, "2"),
            (id::BEND_FACTOR, "0.25"),
            (id::BEND_CENTER, "1"),
        ]);
        assert!(!off.alpha_blend && !off.lighted && !off.pre_compute_lighting && !off.double_sided);
        assert_eq!((off.max_bend_weight, off.bend_center_mode), (0.25, 1));
        let pre = opts(&[
            (id::VEGETABLE_ALPHA_BLEND, "1"),
            (id::VEGETABLE_ALPHA_BLEND_OFF_DOUBLE_SIDED, "1"),
            (id::VEGETABLE_FORCE_BEST_SIDED_LIGHTING, "1"),
        ]);
        assert!(pre.lighted && pre.pre_compute_lighting && pre.double_sided);
        assert!(pre.best_sided_pre_compute_lighting);
    }
}
