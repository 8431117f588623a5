//! The sub-object selection a stack passes up to a modifier. In Max a
//! deformer (Bend, XForm, FFD …) moves only the vertices of the selection
//! the layers below leave live, and a mapping or topology modifier (UVW Map,
//! Mirror, Slice, Cap Holes …) acts on the selected faces: an Editable Poly
//! or Editable Mesh left at a sub-object level, or an Edit Poly, Edit Mesh,
//! Mesh Select or Poly Select modifier left at one, sets that selection; at
//! object level the whole object is used.
//!
//! Where the selection is read (an Editable Poly's MNMesh flags at its saved
//! level, its selected polygons' triangles for UVW Map, or the bits an Edit
//! Poly saves sized to its output, read over our replay of that output; soft
//! selection off, with only modifiers that keep the vertices and the
//! selection between it and a deformer), the deformer
//! moves the selected vertices and leaves the others exactly where they were.
//! Everything else (a selection of Edit Mesh, Mesh Select, Poly Select,
//! Select By Channel or an Editable Mesh, an Edit Poly passing up the stack's
//! selection, soft selection, a selection passed through a modifier whose
//! effect on it is not known, a modifier other than a point deformer or
//! Relax) is refused by name.

use crate::chunk::Chunk;
use crate::eval::core::pblock;
use crate::eval::error::EvalError;
use crate::eval::objects::mesh;
use crate::typed::ClassId;

use super::{Applied, ModContext};

/// Poly Select and Mesh Select.
pub(super) const POLY_SELECT: ClassId = ClassId(0x7ce5_206b, 0x3118_1505);
pub(super) const MESH_SELECT: ClassId = ClassId(0x73d8_ff93, 0);
/// Select By Channel (chaninfo.dlu): selects vertices from a stored channel;
/// its selection and level are not read.
pub(super) const SELECT_BY_CHANNEL: ClassId = ClassId(0x31f9_c666, 0x03b4_a588);

/// Modifier chunk holding the sub-object level of Edit Poly, Poly Select and
/// Mesh Select (0 object; Edit Poly / Poly Select 1 vertex, 2 edge, 3 border,
/// 4 face, 5 element; Mesh Select 1 vertex, 2 edge, 3 face, 4 polygon,
/// 5 element).
const MODIFIER_LEVEL: u16 = 0x0100;
/// Edit Mesh's sub-object level (u16; 0 object, 1 vertex, 2 edge, 3 face,
/// 4 polygon, 5 element).
const EDIT_MESH_LEVEL: u16 = 0x2800;
/// Editable Mesh: the Mesh's selLevel in its GeomBuffers (MESH_OBJECT 1,
/// MESH_VERTEX 2, MESH_FACE 4, MESH_EDGE 8: mesh.h bits).
const MESH_SEL_LEVEL: u16 = 0x092a;
const MESH_FACE_SELECTION: u16 = 0x092d;
const GEOM_BUFFERS: u16 = 0x08fe;
/// Editable Poly's parameter block: `ep_ss_use` (iEPoly.h), soft selection.
const EP_SS_USE: u16 = 4;

/// A sub-object selection left live below a modifier.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Live {
    /// The layer that set it ("Editable Poly", "Edit Poly" …).
    pub layer: String,
    /// Its level, as a word ("vertex", "face" …).
    pub level: &'static str,
    /// The selected vertices, when read.
    pub vertices: Vertices,
    /// At a face level of a layer whose face bits are read: the selected
    /// faces (one per triangle of the mesh it leaves), or why not.
    pub faces: Option<Faces>,
}

/// The faces of a live selection.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Faces {
    Read(Vec<bool>),
    Unread(String),
}

/// The vertices of a live selection.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Vertices {
    /// One per vertex of the mesh entering the modifier: whether selected.
    Read(Vec<bool>),
    /// Not read, and why.
    Unread(String),
}

/// What a selection-sensitive modifier acts on.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Target {
    /// The whole object (no sub-object selection is live).
    Whole,
    /// Only these vertices (one per vertex of its input).
    Vertices(Vec<bool>),
    /// Only these faces (one per face of its input): a mapping modifier.
    Faces(Vec<bool>),
}

/// What modifier `i` of `applied` (top first) acts on: the whole object, the
/// selected vertices (point deformers only), or an error naming the
/// modifier, the layer and why the selection is not applied.
pub(super) fn target(
    applied: &[Applied],
    i: usize,
    base: Option<usize>,
    cx: &ModContext,
    vertex_count: usize,
    face_count: usize,
) -> Result<Target, EvalError> {
    let m = &applied[i];
    let Some(live) = live_below(applied, i, base, cx) else {
        return Ok(Target::Whole);
    };
    let refuse = |why: String| {
        m.error(Some(EvalError::not_evaluated_why(
            format!(
                "acting on the {} selection that {} leaves live",
                live.level, live.layer
            ),
            why,
        )))
    };
    // Smooth uses the selection at face levels only (`useSel` is
    // `selLevel == MESH_FACE` in the SDK sample smooth.cpp): at vertex and
    // edge levels it smooths every face.
    if m.class == super::surface::SMOOTH && ["vertex", "edge", "border"].contains(&live.level) {
        return Ok(Target::Whole);
    }
    // UVW Map uses the selection at face levels only: at vertex and edge
    // levels it maps the whole object (the SDK sample mapmod.cpp copies to
    // "all mesh" when `selLevel != MESH_FACE` and skips an MNMesh's
    // unselected faces only at MNM_SL_FACE; its mappers take no selection).
    if m.class == super::UVW_MAP && ["vertex", "edge", "border"].contains(&live.level) {
        return Ok(Target::Whole);
    }
    // UVW Map maps the selected faces (`uvw_map::apply_to_faces`).
    if m.class == super::UVW_MAP && FACE_LEVELS.contains(&live.level) {
        return match live.faces {
            Some(Faces::Read(f)) if f.len() == face_count => Ok(Target::Faces(f)),
            Some(Faces::Read(f)) => Err(refuse(format!(
                "the selection holds {} faces, the mesh {face_count}",
                f.len()
            ))),
            Some(Faces::Unread(why)) => Err(refuse(why)),
            None => Err(refuse(format!(
                "the face selection of {} is not read",
                live.layer
            ))),
        };
    }
    // Relax moves only the selected vertices too (the SDK sample skips the
    // others each iteration; `relax::apply_to`).
    if !super::moves_points_only(m.class) && m.class != super::relax::RELAX {
        return Err(refuse(format!(
            "{} on a sub-object selection is not evaluated (only point deformers and Relax are)",
            m.name
        )));
    }
    match live.vertices {
        Vertices::Read(v) if v.len() == vertex_count => Ok(Target::Vertices(v)),
        Vertices::Read(v) => Err(refuse(format!(
            "the selection holds {} vertices, the mesh {vertex_count}",
            v.len()
        ))),
        Vertices::Unread(why) => Err(refuse(why)),
    }
}

/// Moves back the vertices a deformer was not to move: `before` are the
/// positions it got, `selected` the vertices it acts on.
pub(super) fn keep_unselected(
    before: &[crate::eval::core::math::Vec3],
    after: &mut [crate::eval::core::math::Vec3],
    selected: &[bool],
) {
    for ((a, b), s) in after.iter_mut().zip(before).zip(selected) {
        if !s {
            *a = *b;
        }
    }
}

/// The selection live below modifier `i`, walking up from the base object.
/// A layer at object level, or none, leaves no selection.
fn live_below(applied: &[Applied], i: usize, base: Option<usize>, cx: &ModContext) -> Option<Live> {
    let mut live = base.and_then(|b| of_base(cx, b));
    for (j, a) in applied.iter().enumerate().skip(i + 1).rev() {
        if let Some(level) = modifier_level(a, cx) {
            live = level.map(|word| {
                let (vertices, faces) = if a.class == super::EDIT_POLY {
                    edit_poly_selection(applied, j, base, cx, word)
                } else {
                    (
                        Vertices::Unread(format!(
                            "the selection of modifier {} is not read",
                            a.name
                        )),
                        (a.class == super::EDIT_MESH && FACE_LEVELS.contains(&word))
                            .then(|| edit_mesh_faces(a)),
                    )
                };
                Live {
                    layer: a.name.to_string(),
                    level: word,
                    vertices,
                    faces,
                }
            });
        } else if super::leaves_selection_alone(a.class) || super::moves_points_only(a.class) {
            // Deformers and mapping modifiers keep the vertices, their
            // numbering and the selection.
        } else if let Some(l) = live.as_mut() {
            if matches!(l.faces, Some(Faces::Read(_))) {
                l.faces = Some(Faces::Unread(format!(
                    "the selection passes through {}, whose effect on it is not known",
                    a.name
                )));
            }
            if matches!(l.vertices, Vertices::Read(_)) {
                l.vertices = Vertices::Unread(format!(
                    "the selection passes through {}, whose effect on it is not known",
                    a.name
                ));
            }
        }
    }
    live
}

/// The levels at which a selection is of faces (Edit Mesh: face, polygon,
/// element; each selects triangles).
const FACE_LEVELS: [&str; 3] = ["face", "polygon", "element"];

/// The MeshDelta's face selection (0x0420; 0x0400 and 0x0410 hold the vertex
/// and edge bits), which `meshdelta.h` indexes over the Edit Mesh's output.
const MESH_DELTA_FACE_SELECTION: u16 = 0x0420;

/// The faces an Edit Mesh leaves selected: the bits its MeshDelta saves.
fn edit_mesh_faces(a: &Applied) -> Faces {
    let saved = a
        .mod_app
        .and_then(|m| m.children().iter().find(|c| c.id == super::LOCAL_DATA))
        .and_then(|l| l.children().iter().find(|c| c.id == super::MESH_DELTA))
        .and_then(|d| {
            d.children()
                .iter()
                .find(|c| c.id == MESH_DELTA_FACE_SELECTION)
        });
    saved_faces(saved, MESH_DELTA_FACE_SELECTION)
}

/// The face bits of selection chunk `id`, when found and readable.
fn saved_faces(found: Option<&Chunk>, id: u16) -> Faces {
    match found.map(super::bits) {
        Some(Ok(b)) => Faces::Read(b),
        Some(Err(e)) => Faces::Unread(format!("its saved face selection: {e}")),
        None => Faces::Unread(format!("no saved face selection (0x{id:04x})")),
    }
}

/// Edit Poly's parameter block (iEPolyMod.h's `epolyModParameters`, whose
/// `epm_current_operation` is the 12 the replay reads): whether the modifier
/// passes up the selection of the stack below instead of its own, and soft
/// selection.
const EPM_STACK_SELECTION: u16 = 4;
const EPM_SS_USE: u16 = 5;

/// The selection the Edit Poly at `applied[j]` leaves at `level`: the
/// vertex, edge or face bits it saves in its local data (0x0200, 0x0210,
/// 0x0220), sized to its output, read over our replay of that output (its
/// vertices, MNMesh's edge list where known, its polygons' corners). As
/// vertices, and at face levels as the triangles of the mesh it hands up
/// (each polygon's in polygon order, `PolyMesh::to_mesh`), which a UVW Map
/// maps.
fn edit_poly_selection(
    applied: &[Applied],
    j: usize,
    base: Option<usize>,
    cx: &ModContext,
    level: &str,
) -> (Vertices, Option<Faces>) {
    let at_faces = ["face", "element"].contains(&level);
    let unread = |why: String| {
        (
            Vertices::Unread(why.clone()),
            at_faces.then_some(Faces::Unread(why)),
        )
    };
    let a = &applied[j];
    let flag = |id: u16| -> Option<bool> {
        let pb = pblock::reference(&cx.eval.graph, a.object, 0)?;
        let block = pblock::param_block2(cx.eval.chunks(pb)).ok()?;
        match block.param(id)?.value {
            pblock::Value::Bool(b) => Some(b),
            pblock::Value::Int(v) => Some(v != 0),
            _ => None,
        }
    };
    match (flag(EPM_STACK_SELECTION), flag(EPM_SS_USE)) {
        (Some(false), Some(false)) => {}
        (Some(true), _) => {
            return unread(
                "it passes up the stack's selection below it (epm_stack_selection)".to_string(),
            )
        }
        (_, Some(true)) => {
            return unread("soft selection is on; its weights are not derived".into())
        }
        _ => {
            return unread(
                "its stack-selection and soft-selection settings are not read".to_string(),
            )
        }
    }
    let id = match level {
        "vertex" => 0x0200,
        "edge" | "border" => 0x0210,
        "face" | "element" => 0x0220,
        _ => return unread(format!("its {level} level is not known")),
    };
    let Some(base) = base else {
        return unread("the stack's base object is not known here".to_string());
    };
    let saved = a
        .mod_app
        .and_then(|m| m.children().iter().find(|c| c.id == super::LOCAL_DATA))
        .and_then(|l| l.children().iter().find(|c| c.id == id));
    let bits = match saved.map(super::bits) {
        Some(Ok(b)) => b,
        Some(Err(e)) => return unread(format!("its saved selection: {e}")),
        None => return unread(format!("no saved {level} selection (0x{id:04x})")),
    };
    let poly = match super::edit_poly::polygons_from(applied, j, base, cx) {
        Ok(p) => p,
        Err(e) => return unread(format!("its output is not evaluated: {e}")),
    };
    let mut out = vec![false; poly.vertices.len()];
    let mismatch = |n: usize, what: &str| {
        unread(format!(
            "its saved selection holds {} {what}, our replay {n}",
            bits.len()
        ))
    };
    match id {
        0x0200 if bits.len() == out.len() => (Vertices::Read(bits), None),
        0x0200 => mismatch(out.len(), "vertices"),
        0x0210 => {
            // Edge bits index MNMesh's edge list, known only where the
            // replay kept Max's numbering.
            let Some(edges) = poly.edges.as_ref() else {
                return unread("its output's edge numbering is not known".to_string());
            };
            if bits.len() != edges.len() {
                return mismatch(edges.len(), "edges");
            }
            for (e, _) in edges.iter().zip(&bits).filter(|(_, &s)| s) {
                for &v in e {
                    if let Some(x) = out.get_mut(v as usize) {
                        *x = true;
                    }
                }
            }
            (Vertices::Read(out), None)
        }
        _ => {
            if bits.len() != poly.faces.len() {
                return mismatch(poly.faces.len(), "faces");
            }
            let triangles = polygon_selection_on_triangles(&poly, &bits);
            for (f, &s) in poly.faces.iter().zip(&bits) {
                if s {
                    for &v in &f.v {
                        if let Some(x) = out.get_mut(v as usize) {
                            *x = true;
                        }
                    }
                }
            }
            (Vertices::Read(out), Some(Faces::Read(triangles)))
        }
    }
}

/// Per-polygon selection bits as the triangles `PolyMesh::to_mesh` makes:
/// each polygon's bit over its triangles, in polygon order.
fn polygon_selection_on_triangles(
    poly: &crate::eval::objects::poly::PolyMesh,
    bits: &[bool],
) -> Vec<bool> {
    poly.per_triangle(|i, _| bits.get(i).copied().unwrap_or(false))
}

/// The level a selection-setting modifier leaves: Some(None) at object
/// level, Some(Some(word)) at a sub-object level; None for other modifiers.
fn modifier_level(a: &Applied, cx: &ModContext) -> Option<Option<&'static str>> {
    let chunks = cx.eval.chunks(a.object);
    let (id, words): (u16, &[&'static str]) =
        if a.class == super::EDIT_POLY || a.class == POLY_SELECT {
            (
                MODIFIER_LEVEL,
                &["vertex", "edge", "border", "face", "element"],
            )
        } else if a.class == MESH_SELECT {
            (
                MODIFIER_LEVEL,
                &["vertex", "edge", "face", "polygon", "element"],
            )
        } else if a.class == super::EDIT_MESH {
            (
                EDIT_MESH_LEVEL,
                &["vertex", "edge", "face", "polygon", "element"],
            )
        } else if a.class == SELECT_BY_CHANNEL {
            return Some(Some("sub-object (level not read)"));
        } else if a.class == super::edit_normals::EDIT_NORMALS {
            // It sets the mesh's selection level to object (`selLevel` in
            // the SDK sample EditNormals.cpp's ModifyTriObject / ModifyPolyObject).
            return Some(None);
        } else {
            return None;
        };
    let level = chunks
        .iter()
        .find(|c| c.id == id)
        .and_then(Chunk::payload)
        .and_then(|p| match p.len() {
            2 => Some(u32::from(u16::from_le_bytes([p[0], p[1]]))),
            4 => Some(u32::from_le_bytes([p[0], p[1], p[2], p[3]])),
            _ => None,
        });
    Some(match level {
        Some(0) => None,
        Some(l) => Some(words.get(l as usize - 1).copied().unwrap_or("unknown")),
        // No level saved: not known to be object level.
        None => Some("sub-object (level not read)"),
    })
}

/// The selection an Editable Poly or Editable Mesh base object leaves live.
fn of_base(cx: &ModContext, base: usize) -> Option<Live> {
    let class = cx.eval.graph.objects.get(base)?.class.as_ref()?;
    let chunks = cx.eval.chunks(base);
    let geom = chunks
        .iter()
        .find(|c| c.id == GEOM_BUFFERS)
        .map_or(&[][..], Chunk::children);
    if class.class_id == mesh::EDITABLE_POLY {
        let layer = "Editable Poly".to_string();
        let level = match mesh::poly_selection_level(geom) {
            Ok(0) => return None,
            Ok(l) => l,
            Err(e) => {
                return Some(Live {
                    layer,
                    level: "sub-object (level not read)",
                    vertices: Vertices::Unread(e.to_string()),
                    faces: None,
                })
            }
        };
        let word = ["vertex", "edge", "face"]
            .get(level as usize - 1)
            .copied()
            .unwrap_or("unknown");
        let vertices = match soft_selection(cx, base) {
            Some(false) => match mesh::poly_selected_vertices(geom, level) {
                Ok(v) => Vertices::Read(v),
                Err(e) => Vertices::Unread(e.to_string()),
            },
            Some(true) => {
                Vertices::Unread("soft selection is on; its weights are not derived".to_string())
            }
            None => {
                Vertices::Unread("its soft selection setting (ep_ss_use) is not read".to_string())
            }
        };
        // At face level the MNFace selection flags, over the triangles of
        // the mesh the object gives (`mesh::poly_selected_triangles`).
        let faces = (level == 3).then(|| match mesh::poly_selected_triangles(geom) {
            Ok(f) => Faces::Read(f),
            Err(e) => Faces::Unread(e.to_string()),
        });
        return Some(Live {
            layer,
            level: word,
            vertices,
            faces,
        });
    }
    if class.class_id == mesh::EDITABLE_MESH {
        let level = geom
            .iter()
            .find(|c| c.id == MESH_SEL_LEVEL)
            .and_then(Chunk::payload)
            .filter(|p| p.len() == 4)
            .map(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]]));
        let word = match level {
            Some(1) => return None,
            Some(2) => "vertex",
            Some(4) => "face",
            Some(8) => "edge",
            Some(_) => "unknown",
            None => "sub-object (level not read)",
        };
        // The Mesh's faceSel (0x092d beside vertSel 0x092c and edgeSel
        // 0x092e), saved as a bit array over its faces.
        let faces = (word == "face").then(|| {
            saved_faces(
                geom.iter().find(|c| c.id == MESH_FACE_SELECTION),
                MESH_FACE_SELECTION,
            )
        });
        return Some(Live {
            layer: "Editable Mesh".to_string(),
            level: word,
            vertices: Vertices::Unread(
                "an Editable Mesh's selection and soft selection are not read".to_string(),
            ),
            faces,
        });
    }
    None
}

/// Whether an Editable Poly's soft selection is on (`ep_ss_use` of its
/// parameter block); None when no parameter block with it is found.
fn soft_selection(cx: &ModContext, base: usize) -> Option<bool> {
    let graph = &cx.eval.graph;
    graph.objects.get(base)?.references.iter().find_map(|r| {
        let t = usize::try_from(r.target).ok()?;
        let c = graph.objects.get(t)?.class.as_ref()?;
        if c.super_class != pblock::SC_PARAM_BLOCK2 {
            return None;
        }
        let pb = pblock::param_block2(cx.eval.chunks(t)).ok()?;
        match pb.param(EP_SS_USE)?.value {
            pblock::Value::Bool(b) => Some(b),
            pblock::Value::Int(v) => Some(v != 0),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::objects::poly::{PolyFace, PolyMesh};

    #[test]
    fn polygon_bits_select_each_of_their_triangles_in_order() {
        // A triangle, a pentagon (3 triangles) and a quad (2): the mesh Edit
        // Poly hands up has 6 triangles, and a UVW Map on its face selection
        // maps the selected polygons' triangles.
        let p = crate::eval::core::math::Vec3(0.0, 0.0, 0.0);
        let poly = PolyMesh {
            vertices: vec![p; 8],
            faces: vec![
                PolyFace::fan(vec![0, 1, 2], 0, 0),
                PolyFace::fan(vec![0, 2, 3, 4, 5], 0, 0),
                PolyFace::fan(vec![5, 6, 7, 0], 0, 0),
            ],
            maps: Vec::new(),
            edges: None,
            normals: None,
        };
        let mesh = poly.to_mesh().expect("triangles");
        let sel = polygon_selection_on_triangles(&poly, &[false, true, false]);
        assert_eq!(sel.len(), mesh.faces.len());
        assert_eq!(sel, [false, true, true, true, false, false]);
        let sel = polygon_selection_on_triangles(&poly, &[true, false, true]);
        assert_eq!(sel, [true, false, false, false, true, true]);
    }
}
