//! UVW Map (0xf72b1, 0): mapping coordinates projected from a gizmo.
//!
//! Its old ParamBlock (reference 1) holds, by index: 0 mapping type, 1–3 U/V/W
//! tile, 4–6 U/V/W flip, 7 cap, 8 channel kind (0 map channel, 1 vertex colour),
//! 9 length, 10 width, 11 height, 12 alignment axis (0 X, 1 Y, 2 Z), 13 map
//! channel, 14 (unused), 15 real-world map size. Reference 0 is the gizmo
//! controller. The gizmo's map space is built as Max's `MappingMod::CompMatrix`:
//! size scale, alignment rotation, the "new map" rotation (an empty 0x0100 chunk
//! of the modifier), gizmo controller, inverse mod-context TM.

use super::uvw_project::{self as project, Projection};
use super::{gizmo, Applied, ModContext};
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{MapChannel, Mesh};
use crate::eval::objects::primitive::Params;

const GIZMO_SLOT: u32 = 0;
const PBLOCK_SLOT: u32 = 1;
/// Empty chunk saved by maps made after Max changed the gizmo orientation.
const NEW_MAP: u16 = 0x0100;
/// Highest map channel a Max mesh has (MAX_MESHMAPS − 1).
const MAX_CHANNEL: i64 = 99;

const PLANAR: i64 = 0;
const CYLINDRICAL: i64 = 1;
const SPHERICAL: i64 = 2;
const SHRINK_WRAP: i64 = 3;
const BOX: i64 = 4;
const FACE: i64 = 5;
const XYZ_TO_UVW: i64 = 6;
const TYPE_NAMES: [&str; 7] = [
    "planar",
    "cylindrical",
    "spherical",
    "shrink wrap",
    "box",
    "face",
    "XYZ to UVW",
];

/// Tile and flip of each mapped point. XYZ to UVW is the modifier's own
/// code (SDK mapmod.cpp: tile, then negate); the other types go through
/// Max's `UVWMapper::TileFlip`, which mirrors within the map: a flipped
/// coordinate x becomes 1 − x (danshaub's DoubleDoors.max: its box maps with
/// U and V flipped give the authors' FBX 1 − x where negation gives −x),
/// then tiles: (1 − x) · tile (danshaub's FirePit.max, V flipped and tiled
/// 0.5: its FBX holds (1 − v) / 2 on all 820 corners, not 1 − v / 2).
fn tile_flip(uvw: Vec3, tile: [f64; 3], flip: [bool; 3], negate: bool) -> [f32; 3] {
    let c = [uvw.0, uvw.1, uvw.2];
    let mut out = [0f32; 3];
    for k in 0..3 {
        out[k] = match (flip[k], negate) {
            (false, _) => c[k] * tile[k],
            (true, true) => -(c[k] * tile[k]),
            (true, false) => (1.0 - c[k]) * tile[k],
        } as f32;
    }
    out
}

/// The channel UVW Map writes: 0 for vertex colour, else its map channel.
pub(super) fn channel(p: &Params) -> Result<i32, EvalError> {
    match (p.int_or(8, 0) != 0, p.int_or(13, 1)) {
        (true, _) => Ok(0),
        // Max reads a stored 0 as channel 1 (files from before the parameter).
        (false, 0) => Ok(1),
        (false, c) if (1..=MAX_CHANNEL).contains(&c) => Ok(c as i32),
        (false, c) => Err(EvalError::malformed("", format!("map channel {c}"))),
    }
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    apply_to_faces(m, mesh, cx, None)
}

/// Per triangle of `mesh`, the first vertex of the polygon it comes from,
/// when the UVW Map's input is an MNMesh (an Edit Poly below it, or an
/// Editable Poly base, with only modifiers that keep the polygons between):
/// Max maps such a mesh polygon by polygon. None for a triangle mesh; an
/// error where the input is polygons but they do not account for the
/// triangles, since the triangle rule would then stand in unnamed.
fn polygon_leads(m: &Applied, mesh: &Mesh, cx: &ModContext) -> Result<Option<Vec<u32>>, EvalError> {
    let (stack, base, at) = cx.place(m)?;
    let below = stack.get(at + 1..).unwrap_or_default();
    let leads: Vec<u32> = match below
        .iter()
        .position(|b| !super::turbo_smooth::keeps_polygons(b))
    {
        Some(j) if below[j].class == super::EDIT_POLY => {
            super::edit_poly::polygons_from(&stack, at + 1 + j, base, cx)?
                .per_triangle(|_, f| f.v.first().copied())
                .into_iter()
                .flatten()
                .collect()
        }
        Some(_) => return Ok(None),
        None => {
            let class = super::base_class(cx, base)?;
            if class.class_id != crate::eval::objects::mesh::EDITABLE_POLY {
                return Ok(None);
            }
            let (_, loops) = crate::eval::objects::mesh::editable_poly(cx.eval.chunks(base))?;
            loops
                .iter()
                .flat_map(|p| {
                    let n = crate::eval::objects::mesh::triangle_count(p);
                    p.v.first()
                        .map(|&v| std::iter::repeat_n(v, n))
                        .into_iter()
                        .flatten()
                })
                .collect()
        }
    };
    if leads.len() != mesh.faces.len() {
        return Err(EvalError::not_evaluated_why(
            format!("{} on polygons", m.name),
            format!(
                "the polygons below give {} triangles, its input has {}",
                leads.len(),
                mesh.faces.len()
            ),
        ));
    }
    Ok(Some(leads))
}

/// UVW Map on the faces `only` selects (None: every face), as Max's
/// `Mesh::ApplyUVWMap` does with a face selection: each selected face gets
/// three new map vertices of its own, appended to the channel, and the map
/// vertices no face uses any more are then removed (order kept); the other
/// faces keep theirs. Pinned on danshaub's DoubleDoors.max, whose four box
/// maps on Edit Mesh polygon selections leave 158, 236 and 254 map vertices
/// exactly as the Edit Mesh above each recorded (its map delta's input
/// count). A selection of every face maps the whole mesh (JonathanDechelle's
/// Saw.max: an Editable Poly without channel 1, all its polygons selected,
/// planar map; Max's OBJ export holds our UVs on all 924 corners). Else a
/// channel the stack below does not have is refused: what Max gives the
/// unselected faces then is not pinned.
pub(super) fn apply_to_faces(
    m: &Applied,
    mesh: &mut Mesh,
    cx: &ModContext,
    only: Option<&[bool]>,
) -> Result<(), EvalError> {
    let p = gizmo::params(cx, m, PBLOCK_SLOT)?;
    let kind = p.int_or(0, PLANAR);
    let tile = [p.float_or(1, 1.0), p.float_or(2, 1.0), p.float_or(3, 1.0)];
    let flip = [p.flag(4, false), p.flag(5, false), p.flag(6, false)];
    let channel = channel(&p)?;
    if p.flag(15, false) {
        return Err(EvalError::not_evaluated("real-world map size"));
    }
    let projection = match kind {
        PLANAR => Projection::Planar,
        CYLINDRICAL => Projection::Cylindrical {
            cap: p.flag(7, false),
        },
        SPHERICAL => Projection::Spherical,
        SHRINK_WRAP => Projection::ShrinkWrap,
        BOX => Projection::Box,
        FACE => Projection::Face,
        XYZ_TO_UVW => Projection::Xyz,
        k => {
            let name = usize::try_from(k)
                .ok()
                .and_then(|i| TYPE_NAMES.get(i))
                .map_or_else(|| format!("type {k}"), |n| (*n).to_string());
            return Err(EvalError::not_evaluated(format!("{name} mapping")));
        }
    };
    // Face and XYZ mapping ignore the gizmo (mapmod.cpp's XYZ branch; face
    // coordinates are fixed per triangle).
    let to_map = match projection {
        Projection::Face | Projection::Xyz => Mat43::scaling(Vec3(1.0, 1.0, 1.0)),
        _ => gizmo::inverse(&map_to_object(cx, m, &p, kind)?, "UVW Map gizmo")?,
    };
    let negate = projection == Projection::Xyz;
    let leads = match projection {
        Projection::Cylindrical { .. } | Projection::Spherical => polygon_leads(m, mesh, cx)?,
        _ => None,
    };
    let (vertices, faces) = project::map(mesh, &to_map, projection, leads.as_deref(), |uvw| {
        tile_flip(uvw, tile, flip, negate)
    });
    if let Some(selected) = only {
        match mesh.maps.iter_mut().find(|c| c.channel == channel) {
            Some(old) => return map_selected(old, selected, &vertices, &faces),
            // Without the channel below, a selection of every face leaves
            // no face unmapped: the whole mesh's map, as below. (With it,
            // each face still gets map vertices of its own, as pinned on
            // partial selections.)
            None if selected.iter().all(|&s| s) => {}
            None => {
                return Err(EvalError::not_evaluated(format!(
                    "mapping a face selection where the stack below has no map channel {channel} \
                     (what Max gives the unselected faces is not pinned)"
                )))
            }
        }
    }
    mesh.maps.retain(|c| c.channel != channel);
    mesh.maps.push(MapChannel {
        channel,
        vertices,
        faces,
    });
    mesh.maps.sort_by_key(|c| c.channel);
    Ok(())
}

/// Gives each selected face of `old` three new map vertices with the values
/// the whole-mesh mapping (`vertices`, `faces`) has at its corners, then
/// drops the map vertices left unused.
fn map_selected(
    old: &mut MapChannel,
    selected: &[bool],
    vertices: &[[f32; 3]],
    faces: &[[u32; 3]],
) -> Result<(), EvalError> {
    if old.faces.len() != selected.len() || faces.len() != selected.len() {
        return Err(EvalError::malformed(
            "",
            format!(
                "map channel {} has {} faces, the selection {}",
                old.channel,
                old.faces.len(),
                selected.len()
            ),
        ));
    }
    for (f, _) in selected.iter().enumerate().filter(|(_, &s)| s) {
        let mut corners = [0u32; 3];
        for (k, c) in corners.iter_mut().enumerate() {
            let value = vertices
                .get(faces[f][k] as usize)
                .copied()
                .ok_or_else(|| EvalError::malformed("", "mapped corner out of range"))?;
            *c = u32::try_from(old.vertices.len())
                .map_err(|_| EvalError::malformed("", "too many map vertices"))?;
            old.vertices.push(value);
        }
        old.faces[f] = corners;
    }
    old.drop_unused_vertices();
    Ok(())
}

/// Map space → object space, as `MappingMod::CompMatrix` builds it: size ·
/// alignment · new-map turn · gizmo · inverse mod context (each step applied
/// before the ones on its right).
fn map_to_object(cx: &ModContext, m: &Applied, p: &Params, kind: i64) -> Result<Mat43, EvalError> {
    let mut tm = gizmo::gizmo_to_object(cx, m, GIZMO_SLOT)?;
    let new_map = cx
        .eval
        .chunks(m.object)
        .iter()
        .any(|c| c.id == NEW_MAP && c.payload().is_some_and(<[u8]>::is_empty));
    // Maps made since the chunk turn their icon: planar and box by half a
    // turn (undoing the half turn a new gizmo starts with), the wrapping
    // types by a quarter (their seam then faces the back, +Y).
    if new_map {
        match kind {
            PLANAR | BOX => tm = Mat43::rot_z(std::f64::consts::PI).then(&tm),
            CYLINDRICAL | SPHERICAL | SHRINK_WRAP => {
                tm = Mat43::rot_z(std::f64::consts::FRAC_PI_2).then(&tm)
            }
            _ => {}
        }
    }
    match p.int_or(12, 2) {
        0 => tm = Mat43::rot_y(-std::f64::consts::FRAC_PI_2).then(&tm),
        1 => tm = Mat43::rot_x(std::f64::consts::FRAC_PI_2).then(&tm),
        _ => {}
    }
    // The gizmo spans −1…1 across width (x) and length (y) for every type,
    // and −1…1 in height for spherical, shrink wrap and box; a cylinder's
    // height is not halved (map z spans −½…½ of it). Planar mapping never
    // reads the height, and a flat planar gizmo must still invert, so there a
    // zero height scales by 1.
    let (length, width, height) = (p.float_or(9, 1.0), p.float_or(10, 1.0), p.float_or(11, 1.0));
    let height = match kind {
        PLANAR if height == 0.0 => 1.0,
        SPHERICAL | SHRINK_WRAP | BOX => height * 0.5,
        _ => height,
    };
    let scale = Vec3(width * 0.5, length * 0.5, height);
    Ok(Mat43::scaling(scale).then(&tm))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flips_mirror_within_the_map_except_xyz_which_negates() {
        let p = Vec3(0.25, 0.75, 0.5);
        let flips = [true, false, true];
        assert_eq!(tile_flip(p, [1.0; 3], flips, false), [0.75, 0.75, 0.5]);
        assert_eq!(tile_flip(p, [2.0; 3], flips, true), [-0.5, 1.5, -1.0]);
        assert_eq!(tile_flip(p, [2.0; 3], [false; 3], false), [0.5, 1.5, 1.0]);
        // Mirrored, then tiled: FirePit.max's V flipped at tile 0.5 gives
        // its FBX (1 − v) / 2, where tiling first would give 1 − v / 2.
        assert_eq!(
            tile_flip(p, [1.0, 0.5, 1.0], [false, true, false], false),
            [0.25, 0.125, 0.5]
        );
    }

    /// Two quads (four triangles) sharing an edge, one map vertex per
    /// geometric vertex.
    fn strip() -> MapChannel {
        MapChannel {
            channel: 1,
            vertices: (0..6).map(|i| [i as f32, 0.0, 0.0]).collect(),
            faces: vec![[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4]],
        }
    }

    #[test]
    fn a_selected_face_gets_three_map_vertices_and_unused_ones_go() {
        let mut ch = strip();
        // The whole-mesh mapping: values 10 + the corner's map vertex.
        let mapped: Vec<[f32; 3]> = (0..6).map(|i| [10.0 + i as f32, 0.0, 0.0]).collect();
        let faces = ch.faces.clone();
        map_selected(&mut ch, &[false, false, true, true], &mapped, &faces).expect("maps");
        // Faces 2 and 3 took six new map vertices; old 2 and 5 were used by
        // them alone and are gone; the rest keep their order.
        assert_eq!(ch.vertices.len(), 6 - 2 + 6);
        assert_eq!(ch.faces[0], [0, 1, 3]);
        assert_eq!(ch.faces[1], [0, 3, 2]);
        assert_eq!(ch.faces[2], [4, 5, 6]);
        assert_eq!(ch.faces[3], [7, 8, 9]);
        let value = |t: u32| ch.vertices[t as usize][0];
        assert_eq!(ch.faces[2].map(value), [11.0, 12.0, 15.0]);
        assert_eq!(ch.faces[3].map(value), [11.0, 15.0, 14.0]);
        assert_eq!(ch.faces[0].map(value), [0.0, 1.0, 4.0]);
    }

    #[test]
    fn a_selection_of_another_size_is_refused() {
        let mut ch = strip();
        let faces = ch.faces.clone();
        let vertices = ch.vertices.clone();
        let e = map_selected(&mut ch, &[true], &vertices, &faces).unwrap_err();
        assert!(e.to_string().contains("4 faces, the selection 1"), "{e}");
    }
}
