//! UVW Xform ((0x5f32de12, 0) and its Max 5.1+ class (0x5f32de13, 0), the
//! same modifier): tiles, flips, rotates and offsets the vertices of one map
//! channel.
//!
//! Its old ParamBlock (reference 0) holds, by index (the layout of the SDK
//! sample `uvwxform.cpp`): 0–2 U/V/W tile (0 read as 1), 3–5 U/V/W offset,
//! 6–8 U/V/W flip, 9 channel kind (0 map channel, 1 vertex colour), 10 map
//! channel (0 read as 1), 11 W angle (radians), 12 rotate about the map's
//! centre, 13 "entire object". Blocks saved before the last three (9 to 11
//! parameters) apply to the entire object. The transform, applied to each map
//! vertex in this order: rotation about W (about (½, ½, ½) when asked), flip
//! (u → 1 − u), tile, offset.
//!
//! Without "entire object" Max transforms only the faces selected in its
//! input when there are any (`HasSelectedFaces`, whatever the selection
//! level), splitting map vertices shared with unselected faces. Meshes here
//! carry no selection, so that case is evaluated only where the input is
//! known to have none: a procedural base object, or an Editable Poly none of
//! whose faces carries the selection flag, under modifiers that leave the
//! selection alone. Anything else is refused, and the channel is left out by
//! name ([`super::uv_only`]); the geometry stays.

use super::{gizmo, Applied, ModContext};
use crate::eval::error::EvalError;
use crate::eval::objects::mesh::{self, Mesh};
use crate::eval::objects::primitive::{self, Params};
use crate::typed::ClassId;

/// Max 5's class, loaded as the newer one.
pub const UVW_XFORM: ClassId = ClassId(0x5f32de12, 0);
/// The class Max has saved since 5.1.
pub const UVW_XFORM2: ClassId = ClassId(0x5f32de13, 0);

const PBLOCK_SLOT: u32 = 0;
/// Highest map channel a Max mesh has (MAX_MESHMAPS − 1).
const MAX_CHANNEL: i64 = 99;

/// The settings at a time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    pub tile: [f64; 3],
    pub offset: [f64; 3],
    pub flip: [bool; 3],
    pub channel: i32,
    pub angle: f64,
    pub about_centre: bool,
    pub entire_object: bool,
}

impl Settings {
    fn read(p: &Params) -> Result<Settings, EvalError> {
        let tile = |i| match p.float_or(i, 1.0) {
            0.0 => 1.0,
            x => x,
        };
        let channel = match (p.int_or(9, 0) != 0, p.int_or(10, 1)) {
            (true, _) => 0,
            (false, 0) => 1,
            (false, c) if (1..=MAX_CHANNEL).contains(&c) => c as i32,
            (false, c) => return Err(EvalError::malformed("", format!("map channel {c}"))),
        };
        Ok(Settings {
            tile: [tile(0), tile(1), tile(2)],
            offset: [p.float_or(3, 0.0), p.float_or(4, 0.0), p.float_or(5, 0.0)],
            flip: [p.flag(6, false), p.flag(7, false), p.flag(8, false)],
            channel,
            angle: p.float_or(11, 0.0),
            about_centre: p.flag(12, false),
            // Older blocks stop before it; Max loads them applying to all.
            entire_object: if p.has(13) { p.flag(13, false) } else { true },
        })
    }

    /// One map vertex transformed.
    pub fn map(&self, uvw: [f32; 3]) -> [f32; 3] {
        let mut p = uvw.map(f64::from);
        let centre = if self.about_centre { 0.5 } else { 0.0 };
        let (s, c) = self.angle.sin_cos();
        let (x, y) = (p[0] - centre, p[1] - centre);
        p = [x * c - y * s + centre, x * s + y * c + centre, p[2]];
        for (k, x) in p.iter_mut().enumerate() {
            if self.flip[k] {
                *x = 1.0 - *x;
            }
            *x = *x * self.tile[k] + self.offset[k];
        }
        p.map(|x| x as f32)
    }
}

fn settings(m: &Applied, cx: &ModContext) -> Result<Settings, EvalError> {
    Settings::read(&gizmo::params(cx, m, PBLOCK_SLOT)?)
}

/// The channel the modifier writes, when its block can be read.
pub(super) fn channel(m: &Applied, cx: &ModContext) -> Option<i32> {
    settings(m, cx).ok().map(|s| s.channel)
}

pub(super) fn apply(m: &Applied, mesh: &mut Mesh, cx: &ModContext) -> Result<(), EvalError> {
    let s = settings(m, cx)?;
    if !s.entire_object {
        if let Some(why) = selection_unknown(m, cx)? {
            return Err(EvalError::not_evaluated_why(
                "acting on the faces selected in its input (\"entire object\" off)",
                why,
            ));
        }
    }
    // Max leaves a mesh without the channel as it is.
    if let Some(map) = mesh.maps.iter_mut().find(|c| c.channel == s.channel) {
        for v in &mut map.vertices {
            *v = s.map(*v);
        }
    }
    Ok(())
}

/// Why the input's face selection is not known to be empty (None when it is).
fn selection_unknown(m: &Applied, cx: &ModContext) -> Result<Option<String>, EvalError> {
    let Some((stack, base, at)) = cx.place_of(m) else {
        return Ok(Some(
            "its place in a modifier stack is not known".to_string(),
        ));
    };
    if let Some(b) = stack[at + 1..]
        .iter()
        .find(|b| !super::leaves_selection_alone(b.class))
    {
        return Ok(Some(format!(
            "{} below may pass a face selection up",
            b.name
        )));
    }
    let class = super::base_class(cx, base)?;
    if class.class_id == mesh::EDITABLE_POLY {
        let geom = mesh::geom_buffers(cx.eval.chunks(base))?;
        return Ok(match mesh::selected_poly_faces(geom)? {
            Some(0) => None,
            Some(n) => Some(format!("its Editable Poly has {n} faces selected")),
            None => Some("its Editable Poly's face flags are not read".to_string()),
        });
    }
    Ok((!primitive::is_primitive(class.class_id)
        && !crate::eval::objects::shape::is_shape_object(cx.eval, base))
    .then(|| format!("the face selection of a {} is not read", class.name)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::core::pblock::Value;

    fn block(v: Vec<Value>) -> Settings {
        Settings::read(&Params::from_values(v)).expect("settings")
    }

    #[test]
    fn defaults_leave_coordinates_alone_and_old_blocks_apply_to_all() {
        let f = Value::Float;
        let old = block(vec![f(1.0), f(1.0), f(1.0), f(0.0), f(0.0), f(0.0)]);
        assert!(old.entire_object);
        assert_eq!(old.channel, 1);
        assert_eq!(old.map([0.25, 0.75, 0.0]), [0.25, 0.75, 0.0]);
        // Tiles of 0 read as 1, a map channel of 0 as 1.
        let mut v = vec![f(0.0); 9];
        v.extend([
            Value::Int(0),
            Value::Int(0),
            f(0.0),
            Value::Int(0),
            Value::Int(0),
        ]);
        let s = block(v);
        assert!(!s.entire_object);
        assert_eq!(s.tile, [1.0; 3]);
        assert_eq!(s.channel, 1);
    }

    #[test]
    fn flip_tile_offset_and_rotation_compose_in_max_order() {
        let f = Value::Float;
        let i = Value::Int;
        // U tile 2, V offset 0.5, U flip, rotation a quarter turn about the
        // centre, vertex colours.
        let s = block(vec![
            f(2.0),
            f(1.0),
            f(1.0),
            f(0.0),
            f(0.5),
            f(0.0),
            i(1),
            i(0),
            i(0),
            i(1),
            i(3),
            f(std::f32::consts::FRAC_PI_2),
            i(1),
            i(1),
        ]);
        assert_eq!(s.channel, 0);
        // (1, 0.5) turns to (0.5, 1) about (½, ½); flipped u 0.5; tiled 1.0;
        // v 1 offset to 1.5.
        let out = s.map([1.0, 0.5, 0.0]);
        assert!(
            (out[0] - 1.0).abs() < 1e-6 && (out[1] - 1.5).abs() < 1e-6,
            "{out:?}"
        );
        // The centre stays put under the turn.
        let c = block(vec![
            f(1.0),
            f(1.0),
            f(1.0),
            f(0.0),
            f(0.0),
            f(0.0),
            i(0),
            i(0),
            i(0),
            i(0),
            i(1),
            f(1.0),
            i(1),
            i(1),
        ]);
        let out = c.map([0.5, 0.5, 0.5]);
        assert!(out.iter().all(|x| (x - 0.5).abs() < 1e-6), "{out:?}");
    }
}
