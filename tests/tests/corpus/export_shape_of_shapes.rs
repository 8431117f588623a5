//! NeL shapes of spline shapes under modifiers (sweep 12, session 29). A
//! shape under Extrude, Lathe or a mesh modifier is a mesh in Max's world
//! state, and the plug-in exports it as any mesh; the exporter used to refuse
//! every shape-based node, calling an extruded Line "a rendered spline" and a
//! shape whose modifier does not evaluate "object class … not evaluated".
//!
//! Reference: Max's own Mesh Totals of Sword.max (205 vertices: its Plane
//! and its extruded Line, written by Max at save). The refusal naming the
//! failing modifier is tested in export_shape.rs
//! (`spline_made_a_mesh_by_its_stack_exports`).

use maxfs_exporters::nel::export::{ExportKind, Exports};
use maxfs_exporters::nel::shape::vertex_buffer::ChannelData;
use maxfs_exporters::nel::shape::Shape;
use maxfs_exporters::nel::{read_nel, NelFile};
use maxfs_scene::Document;

fn export(stem: &str, doc: &Document) -> Exports {
    maxfs_tests::export_doc(stem, doc, &[ExportKind::Shape])
}

/// Distinct positions of a NeL shape's vertex buffer (NeL splits a vertex
/// per normal and UV, Max's Mesh Totals count each position once).
fn distinct_positions(bytes: &[u8], name: &str) -> usize {
    let file = read_nel(bytes, name).unwrap_or_else(|e| panic!("{name}: our reader: {e}"));
    let NelFile::Shape(s) = file else {
        panic!("{name}: not a shape file")
    };
    let Some(Shape::CMesh(mesh)) = s.shape.get() else {
        panic!("{name}: not a CMesh")
    };
    let geom = mesh
        .geom
        .as_ref()
        .unwrap_or_else(|| panic!("{name}: no geometry"));
    let channel = geom
        .vbuffer
        .vertices
        .channels
        .iter()
        .find(|c| c.value == "position")
        .unwrap_or_else(|| panic!("{name}: no position channel"));
    let ChannelData::Float(values) = &channel.data else {
        panic!("{name}: positions are not floats")
    };
    let mut seen: Vec<[u32; 3]> = values
        .chunks_exact(3)
        .map(|p| p.iter().map(|c| (f32::from_bits(c.0) + 0.0).to_bits()))
        .map(|mut c| [0; 3].map(|_| c.next().unwrap_or(0)))
        .collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

#[test]
fn an_extruded_line_exports_as_a_shape() {
    let path = maxfs_tests::corpus_dir().join("max/prims-greejesh/Sword.max");
    let doc = Document::open(&path).expect("readable .max");
    let ex = export("Sword", &doc);
    assert!(
        !ex.errors.iter().any(|e| e.node == "Line001"),
        "Line001 (Line, Extrude, Edit Poly) refused: {:?}",
        ex.errors
    );
    let count = |name: &str| {
        let o = ex
            .outputs
            .iter()
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("no {name}; errors {:?}", ex.errors));
        distinct_positions(&o.bytes, name)
    };
    // Max's Mesh Totals (DocumentSummaryInformation) of Sword.max.
    assert_eq!(count("line001.shape") + count("plane001.shape"), 205);
}
