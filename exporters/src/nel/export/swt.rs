//! `.swt`: the `CSkeletonWeight` NelExportSkeletonWeight writes
//! (nel_export_swt.cpp exportSWT) for the nodes swt_export.ms selects: per node
//! with EXPORT_SWT set, `<name>.rotquat`, `<name>.pos`, `<name>.scale`, each
//! weighted EXPORT_SWT_WEIGHT; nothing when no node has EXPORT_SWT.

use super::skel::checked_bytes;
use super::{select, Context, ExportKind, Exports, Output};
use crate::nel::stream::F32;
use crate::nel::swt::{SkeletonWeight, WeightNode};
use crate::nel::{NelFile, NelKind};

pub fn export(ctx: &Context, out: &mut Exports) {
    let nodes: Vec<(String, f32)> = select::swt_nodes(ctx)
        .into_iter()
        .map(|i| {
            let name = ctx.graph.node_name(i).to_string();
            (name, ctx.props.node(i).export_swt_weight)
        })
        .collect();
    if nodes.is_empty() {
        return;
    }
    match checked_bytes(
        &NelFile::SkeletonWeight(build(&nodes)),
        NelKind::SkeletonWeight,
    ) {
        Ok(bytes) => out.outputs.push(Output {
            kind: ExportKind::Swt,
            with_coarse_mesh: false,
            name: format!("{}.swt", ctx.stem),
            bytes,
        }),
        Err(e) => out.push_error(ExportKind::Swt, "", e.to_string()),
    }
}

/// The weight list: three channels per node, in the plug-in's order.
pub fn build(nodes: &[(String, f32)]) -> SkeletonWeight {
    let elements = nodes
        .iter()
        .flat_map(|(name, w)| {
            ["rotquat", "pos", "scale"].map(|ch| WeightNode {
                version: 0,
                name: format!("{name}.{ch}"),
                weight: F32::from_f32(*w),
            })
        })
        .collect();
    SkeletonWeight {
        version: 0,
        elements,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_channels_per_node_round_trip() {
        let s = build(&[("Bip01 Spine".into(), 0.5), ("Bip01 Head".into(), 1.0)]);
        assert_eq!(s.elements.len(), 6);
        assert_eq!(s.elements[1].name, "Bip01 Spine.pos");
        assert_eq!(s.elements[5].weight.get(), 1.0);
        let bytes =
            checked_bytes(&NelFile::SkeletonWeight(s), NelKind::SkeletonWeight).expect("writes");
        assert!(bytes.starts_with(b"SKWT"));
    }
}
