//! 3ds Max's own "Mesh Totals" (DocumentSummaryInformation, written at save:
//! vertices and faces of every geometry object in the scene) against the
//! evaluated meshes. Max counts an Editable Poly's faces as polygons and a
//! mesh's as triangles, so faces are checked as a bound (our triangles ≥ Max's
//! faces) and vertices exactly: a file whose geometry nodes all evaluate must
//! have Max's vertex total; any other file is explained by the nodes coverage
//! names as not evaluated, and its partial total stays within Max's.
//!
//! Bare renderable shapes (a spline rendered as a tube, no modifier) are left
//! out of the sum: Max's totals leave them out — 1st_island's four renderable
//! Lines and the renderable Arcs of animation and Villian add nothing to
//! those files' totals, which the other nodes alone match exactly.
//!
//! Known mismatches, listed so the test fails when they change either way
//! (and exempt from the faces bound): street.max's old Boolean (Max 3) and
//! Robot.max's Max 2017+ Booleans are kept to their corners (as Max's own
//! results are in the sweeps' Desk, Button, Turret, tube and puzzle files),
//! but Max kept more vertices in these two (docs/evaluation.md, "Boolean
//! compound objects"). (Can.max's Boolean
//! modifier has the same surface as its FBX but other vertices; the node's
//! mesh is its Unwrap UVW's cache, Max's own, so its total is exact.)
//! Kenjis_Room.max's
//! ProBooleans are Max's stored result, and its total is exact.

use std::path::Path;

use maxfs_scene::eval::core::coverage::{mesh_coverage, MeshCoverage};
use maxfs_scene::eval::SceneEval;
use maxfs_scene::Document;
use maxfs_tests::{corpus_dir, corpus_max_files};

/// Files whose evaluated vertex total is known to differ from Max's, and why.
const KNOWN: &[(&str, &str)] = &[
    (
        "ryzomcore/street.max",
        "old Boolean kept to its corners (Box02: 143 vertices, 120 of them corners), \
         where Max's result keeps 189: which other vertices Max keeps is not derived",
    ),
    (
        "prims-greejesh/Robot.max",
        "its 12 Max 2017+ Booleans (sphere − box) kept to their corners, 258 vertices \
         each, where Max's results keep 287 (29 more each, not derived)",
    ),
];

/// A shape without modifiers (geometry only when rendered as a tube).
fn bare_shape(eval: &SceneEval, node: usize) -> bool {
    eval.node_object(node)
        .is_some_and(|o| maxfs_scene::eval::objects::shape::is_shape_object(eval, o))
        && maxfs_scene::eval::core::coverage::modifiers(eval, node).is_empty()
}

/// (vertices, faces) from the "Mesh Totals" heading of summary_information.json.
fn max_totals(fs: &maxfs_fs::MaxFs, rel: &Path) -> Option<(usize, usize)> {
    let bytes = fs.read(&rel.join("json/summary_information.json")).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let text = v.to_string();
    let find = |key: &str| -> Option<usize> {
        let i = text.find(key)? + key.len();
        let digits: String = text[i..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        digits.parse().ok()
    };
    if !text.contains("Mesh Totals") {
        return None;
    }
    Some((find("Vertices: ")?, find("Faces: ")?))
}

#[test]
fn evaluated_totals_match_max_mesh_totals() {
    let fs = maxfs_fs::MaxFs::new(corpus_dir().join("max"), Default::default());
    let (mut exact, mut explained, mut without) = (0, 0, 0);
    let mut failures = Vec::new();
    for p in corpus_max_files() {
        let rel = p.strip_prefix(corpus_dir().join("max")).expect("in corpus");
        let Some((mv, mf)) = max_totals(&fs, rel) else {
            without += 1;
            continue;
        };
        let eval = SceneEval::from_document(Document::open(&p).expect("opens")).expect("scene");
        let (mut v, mut f, mut missing) = (0, 0, Vec::new());
        for (o, n) in eval.graph.nodes() {
            match mesh_coverage(&eval, o.index) {
                MeshCoverage::NotGeometry => {}
                MeshCoverage::Evaluated if bare_shape(&eval, o.index) => {}
                MeshCoverage::Evaluated => {
                    if let Some(Ok(m)) = eval.mesh(o.index, 0) {
                        v += m.vertices.len();
                        f += m.faces.len();
                    }
                }
                _ => missing.push(n.name.clone()),
            }
        }
        let line = format!(
            "{}: Max {mv} vertices / {mf} faces, ours {v} / {f}, {} nodes not evaluated",
            rel.display(),
            missing.len()
        );
        eprintln!("{line}");
        let known = KNOWN.iter().find(|(f, _)| Path::new(f) == rel);
        if missing.is_empty() {
            match (v == mv, known) {
                (true, None) => exact += 1,
                (false, Some((_, why))) => eprintln!("  known: {why}"),
                (true, Some(_)) => failures.push(format!("{line} (listed as known, now equal)")),
                (false, None) => failures.push(line.clone()),
            }
            if f < mf && known.is_none() {
                failures.push(format!("{line} (fewer triangles than Max's faces)"));
            }
        } else {
            explained += 1;
            match (v > mv, known) {
                (true, Some((_, why))) => eprintln!("  known: {why}"),
                (true, None) => failures.push(format!("{line} (more than Max's total)")),
                (false, Some(_)) => {
                    failures.push(format!("{line} (listed as known, now within Max's total)"))
                }
                (false, None) => {}
            }
        }
    }
    eprintln!(
        "{exact} files exact, {explained} explained by unevaluated nodes, {without} without totals"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(exact >= 50, "only {exact} files match Max's totals");
}
