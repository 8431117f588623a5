//! The Sunlight and Daylight systems: a master object (SunMaster) holds the
//! place, date and time; the light's transform controller (the "slave") asks
//! it for the light's matrix in its parent's frame — the Compass helper, whose
//! rotation is the north direction. Facts from the 3ds Max SDK sample
//! (`sunlight.cpp`, `sunclass.h`):
//!
//! - SunMaster chunks: 0x0120 city (8-bit C string), 0x0110 light node id,
//!   0x0100 the date epoch (`dateref`, s32 days), 0x00F0 (empty) present when
//!   date and time animate separately ("new animation").
//! - References: 0 its old ParamBlock, 1 the Compass node, 2 the manual
//!   position controller and 3 the manual multiplier (Daylight).
//! - ParamBlock versions 1 (Sunlight), 2 and 3 (Daylight) hold, by index:
//!   time of day (int seconds), date (float days after the epoch), latitude
//!   (°N), longitude (°W), orbital radius, time zone (hours), daylight saving,
//!   then the manual flag (2, 3) and sky cover (3). Date and time are animated
//!   by linear float controllers.
//! - The slave (chunk 0x4444: its id, 0 = the light's transform) gives
//!   `RotateX(π/2 − alt) · RotateZ(π − az)` placed at `radius ·
//!   (cos alt sin az, cos alt cos az, sin alt)`: on the sphere around the
//!   compass, its −Z axis at the centre.

use serde::Serialize;

use crate::eval::core::controller::{Controller, ListKind};
use crate::eval::core::keys::Words;
use crate::eval::core::math::{Mat43, Vec3};
use crate::eval::core::pblock::{self, Value};
use crate::eval::core::transform::SceneEval;
use crate::eval::systems::solar;
use crate::eval::EvalError;
use crate::typed::ClassId;

pub const SUNLIGHT: ClassId = ClassId(0x5897670e, 0x61b5008d);
pub const DAYLIGHT: ClassId = ClassId(0x18147db5, 0x20f17194);
pub const SUN_SLAVE: ClassId = ClassId(0x77e3272e, 0x13747060);
pub const DAYLIGHT_SLAVE: ClassId = ClassId(0x35924ed0, 0x59cf079c);
/// The old ParamBlock class.
const PARAM_BLOCK: ClassId = ClassId(8, 0);

const CITY_CHUNK: u16 = 0x0120;
const EPOCH_CHUNK: u16 = 0x0100;
const NEW_ANIMATION_CHUNK: u16 = 0x00f0;
const SLAVE_ID_CHUNK: u16 = 0x4444;
/// The old ParamBlock's version chunk.
const BLOCK_VERSION_CHUNK: u16 = 0x0005;
/// The slave id of the light's transform (others drive multipliers).
const LIGHT_TM: u32 = 0;
const SECONDS_PER_DAY: i64 = 86_400;

/// A system parameter: stored in the block, or driven by a float controller.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Param {
    Constant(f64),
    Controller(usize),
}

/// A decoded SunMaster.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SunSystem {
    /// The SunMaster object.
    pub master: usize,
    pub class: String,
    pub daylight: bool,
    pub block_version: u32,
    pub city: Option<String>,
    /// Day number (Julian date − 1721424.5) the date parameter counts from.
    pub epoch: i32,
    /// Date and time interpolated as one value (files without chunk 0x00F0).
    pub old_animation: bool,
    /// The Compass helper node (the light's parent).
    pub compass: Option<usize>,
    #[serde(flatten)]
    pub params: SunParams,
}

/// A system's place, date and time parameters, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SunParams {
    /// Seconds after midnight.
    pub time: Param,
    /// Days after the epoch.
    pub date: Param,
    pub latitude: Param,
    pub longitude: Param,
    pub radius: Param,
    pub zone: Param,
    pub dst: Param,
    pub manual: Option<Param>,
    pub sky: Option<Param>,
}

/// A slave transform controller and its system.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SunSlave {
    pub id: u32,
    pub system: SunSystem,
}

/// The system at one tick: local civil time, place and where the sun is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SunState {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    /// Degrees north.
    pub latitude: f64,
    /// Degrees west.
    pub longitude: f64,
    pub zone: i64,
    pub dst: bool,
    pub radius: f64,
    /// Degrees above the horizon.
    pub altitude: f64,
    /// Degrees from north (the compass's +Y) through east (+X).
    pub azimuth: f64,
}

pub fn is_slave(eval: &SceneEval, idx: usize) -> bool {
    matches!(eval.graph.class_id(idx), Some(SUN_SLAVE | DAYLIGHT_SLAVE))
}

pub fn is_master(eval: &SceneEval, idx: usize) -> bool {
    matches!(eval.graph.class_id(idx), Some(SUNLIGHT | DAYLIGHT))
}

fn leaf(eval: &SceneEval, idx: usize, id: u16) -> Option<&[u8]> {
    eval.chunks(idx)
        .iter()
        .find(|c| c.id == id)
        .and_then(|c| c.payload())
}

/// Decodes the SunMaster object `master`.
pub fn system(eval: &SceneEval, master: usize) -> Result<SunSystem, EvalError> {
    let at = || format!("Sunlight master {master}");
    let class = eval
        .graph
        .class(master)
        .ok_or_else(|| EvalError::reference(at(), "no such object"))?;
    let daylight = match class.class_id {
        SUNLIGHT => false,
        DAYLIGHT => true,
        _ => {
            return Err(EvalError::reference(
                at(),
                format!("a {} is not a Sunlight or Daylight system", class.name),
            ))
        }
    };
    let city = leaf(eval, master, CITY_CHUNK).map(|b| {
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        b[..end].iter().map(|&c| char::from(c)).collect::<String>()
    });
    let epoch = match leaf(eval, master, EPOCH_CHUNK) {
        Some(b) if b.len() == 4 => Words(b).i32(0),
        Some(b) => {
            return Err(EvalError::malformed(
                at(),
                format!("epoch chunk 0x0100 holds {} bytes, 4 expected", b.len()),
            ))
        }
        None => 0,
    };
    let old_animation = !eval
        .chunks(master)
        .iter()
        .any(|c| c.id == NEW_ANIMATION_CHUNK);
    let block = pblock::reference(&eval.graph, master, 0)
        .ok_or_else(|| EvalError::reference(at(), "no parameter block (reference 0)"))?;
    if eval.graph.class_id(block) != Some(PARAM_BLOCK) {
        return Err(EvalError::reference(
            at(),
            format!("reference 0 (object {block}) is not a ParamBlock"),
        ));
    }
    let block_version = match leaf(eval, block, BLOCK_VERSION_CHUNK) {
        Some([a, b, ..]) => u32::from(u16::from_le_bytes([*a, *b])),
        _ => {
            return Err(EvalError::malformed(
                at(),
                format!("ParamBlock {block} has no version chunk 0x0005"),
            ))
        }
    };
    // Version 0 (3D Studio VIZ) ordered its parameters differently and
    // negated the zone; no corpus file has it.
    let count = match block_version {
        1 => 7,
        2 => 8,
        3 => 9,
        v => {
            return Err(EvalError::not_evaluated_why(
                format!("{} parameter block version {v}", class.name),
                "only versions 1–3 are decoded",
            ))
        }
    };
    let params = pblock::param_block(eval.chunks(block))?;
    let param = |index: i32| -> Result<Param, EvalError> {
        let p = params.iter().find(|p| p.index == index).ok_or_else(|| {
            EvalError::malformed(at(), format!("ParamBlock {block} lacks parameter {index}"))
        })?;
        if let Some(slot) = p.ref_slot {
            return pblock::reference(&eval.graph, block, slot)
                .map(Param::Controller)
                .ok_or_else(|| {
                    EvalError::reference(
                        at(),
                        format!("parameter {index}: controller slot {slot} is empty"),
                    )
                });
        }
        match p.value {
            Value::Float(f) => Ok(Param::Constant(f64::from(f))),
            Value::Int(i) => Ok(Param::Constant(f64::from(i))),
            Value::Bool(b) => Ok(Param::Constant(f64::from(u8::from(b)))),
            _ => Err(EvalError::malformed(
                at(),
                format!("parameter {index} has no value"),
            )),
        }
    };
    Ok(SunSystem {
        master,
        class: class.name.clone(),
        daylight,
        block_version,
        city,
        epoch,
        old_animation,
        compass: pblock::reference(&eval.graph, master, 1),
        params: SunParams {
            time: param(0)?,
            date: param(1)?,
            latitude: param(2)?,
            longitude: param(3)?,
            radius: param(4)?,
            zone: param(5)?,
            dst: param(6)?,
            manual: if count >= 8 { Some(param(7)?) } else { None },
            sky: if count >= 9 { Some(param(8)?) } else { None },
        },
    })
}

/// Decodes a slave controller `idx` and its master.
pub fn slave(eval: &SceneEval, idx: usize) -> Result<SunSlave, EvalError> {
    let id = match leaf(eval, idx, SLAVE_ID_CHUNK) {
        Some(b) if b.len() == 4 => Words(b).u32(0),
        Some(b) => {
            return Err(EvalError::malformed(
                format!("Sunlight slave {idx}"),
                format!("id chunk 0x4444 holds {} bytes, 4 expected", b.len()),
            ))
        }
        None => LIGHT_TM,
    };
    let master = pblock::reference(&eval.graph, idx, 0).ok_or_else(|| {
        EvalError::reference(format!("Sunlight slave {idx}"), "no master (reference 0)")
    })?;
    Ok(SunSlave {
        id,
        system: system(eval, master)?,
    })
}

/// The controller cache's step for slaves: the decoded slave, or
/// [`Controller::Unsupported`] naming why it is not evaluated.
pub(crate) fn resolve(
    eval: &SceneEval,
    idx: usize,
    c: Controller,
) -> Result<Controller, EvalError> {
    if !is_slave(eval, idx) {
        return Ok(c);
    }
    match slave(eval, idx) {
        Ok(s) => Ok(Controller::SunSlave(Box::new(s))),
        Err(e) => match c {
            Controller::Unsupported { class } => Ok(Controller::Unsupported {
                class: format!("{class} ({e})"),
            }),
            other => Ok(other),
        },
    }
}

impl SunSystem {
    /// The float controllers driving its parameters.
    pub fn controllers(&self) -> Vec<usize> {
        [
            Some(self.params.time),
            Some(self.params.date),
            Some(self.params.latitude),
            Some(self.params.longitude),
            Some(self.params.radius),
            Some(self.params.zone),
            Some(self.params.dst),
            self.params.manual,
            self.params.sky,
        ]
        .into_iter()
        .flatten()
        .filter_map(|p| match p {
            Param::Controller(i) => Some(i),
            Param::Constant(_) => None,
        })
        .collect()
    }

    /// Whether the light is placed by hand (Daylight's manual mode) at `t`.
    pub fn manual_at(&self, eval: &SceneEval, t: i32) -> Result<bool, EvalError> {
        match self.params.manual {
            Some(p) => Ok(value(eval, p, t, "manual")? != 0.0),
            None => Ok(false),
        }
    }

    /// Place, local time and the sun's altitude and azimuth at tick `t`.
    pub fn state(&self, eval: &SceneEval, t: i32) -> Result<SunState, EvalError> {
        // Max reads both through float parameters: the date as a float, the
        // time of day converted to an int by truncation.
        let date = value(eval, self.params.date, t, "date")? as f32 as f64;
        let time = value(eval, self.params.time, t, "time")?.trunc() as i64;
        let (days, seconds) = if self.old_animation {
            (date, time)
        } else {
            ((date + 0.5).floor(), time.rem_euclid(SECONDS_PER_DAY))
        };
        let (year, month, day, hour, minute, second) = civil_time(days, seconds, self.epoch);
        let latitude = value(eval, self.params.latitude, t, "latitude")? as f32 as f64;
        let longitude = value(eval, self.params.longitude, t, "longitude")? as f32 as f64;
        let radius = value(eval, self.params.radius, t, "radius")? as f32 as f64;
        let zone = value(eval, self.params.zone, t, "time zone")?.trunc() as i64;
        let dst = value(eval, self.params.dst, t, "daylight saving")? != 0.0;
        let offset = zone + i64::from(dst);
        let sun = solar::sun_position(
            solar::rad(latitude),
            solar::rad(longitude),
            year,
            month,
            day,
            hour - offset,
            minute,
            second,
        );
        Ok(SunState {
            year,
            month,
            day,
            hour,
            minute,
            second,
            latitude,
            longitude,
            zone,
            dst,
            radius,
            altitude: solar::deg(sun.altitude),
            azimuth: solar::deg(sun.azimuth),
        })
    }
}

/// A parameter's value at `t`; a controller must be a float keyframer or a
/// float list (others are named by coverage, never read as 0).
fn value(eval: &SceneEval, p: Param, t: i32, what: &str) -> Result<f64, EvalError> {
    match p {
        Param::Constant(v) => Ok(v),
        Param::Controller(i) => match eval.controller(i) {
            Some(Controller::Float { .. })
            | Some(Controller::List {
                kind: ListKind::Float,
                ..
            }) => Ok(eval.float_at(Some(i), t, 0.0)),
            _ => Err(EvalError::not_evaluated_why(
                format!("Sunlight {what} controller (object {i})"),
                "not a float keyframer",
            )),
        },
    }
}

/// The local (year, month, day, hour, minute, second) of a date parameter in
/// days after `epoch` and a time of day in seconds, as SunMaster splits them:
/// the days rounded to the minute, their seconds dropped, the time of day
/// added with carries into the next day and month.
pub fn civil_time(days: f64, seconds: i64, epoch: i32) -> (i64, i64, i64, i64, i64, i64) {
    let days = days + 0.5 / (24.0 * 60.0);
    let whole = days.floor();
    let mut frac = days - whole;
    let (mut year, mut month, mut day) = solar::gregorian(whole + solar::EPOCH + f64::from(epoch));
    // Hours and minutes of the day fraction (Max's float steps).
    let h = (24.0 * frac).floor();
    frac -= f64::from(h as f32 / 24.0);
    let m = (1440.0 * frac).floor();
    let (mut hour, mut minute) = (h as i64, m as i64);
    let th = seconds / 3600;
    let tm = (seconds - th * 3600) / 60;
    let mut second = seconds - th * 3600 - tm * 60;
    hour += th;
    minute += tm;
    if second / 60 > 0 {
        minute += second / 60;
        second -= (second / 60) * 60;
    }
    if minute / 60 > 0 {
        hour += minute / 60;
        minute -= (minute / 60) * 60;
    }
    let extra_days = hour / 24;
    if extra_days > 0 {
        hour -= extra_days * 24;
        day += extra_days;
    }
    if day > solar::month_days(year, month) {
        day -= solar::month_days(year, month);
        month += 1;
    }
    if month > 12 {
        month -= 12;
        year += 1;
    }
    (year, month, day, hour, minute, second)
}

/// The light's matrix in its parent's (the compass's) frame at `t`.
pub fn local_tm(eval: &SceneEval, s: &SunSlave, t: i32) -> Result<Mat43, EvalError> {
    check_at(eval, s, t)?;
    let st = s.system.state(eval, t)?;
    Ok(light_tm(st.altitude, st.azimuth, st.radius))
}

/// The slave's matrix for an altitude and azimuth in degrees: Max computes
/// the angles in floats.
pub fn light_tm(altitude: f64, azimuth: f64, radius: f64) -> Mat43 {
    let alt = solar::rad(altitude) as f32;
    let az = solar::rad(azimuth) as f32;
    let pi = solar::MAX_PI_F32;
    let m = Mat43::rot_x(f64::from(pi / 2.0 - alt)).then(&Mat43::rot_z(f64::from(pi - az)));
    let d = solar::direction(f64::from(az), f64::from(alt));
    m.then(&Mat43::translation(Vec3(
        radius * d[0],
        radius * d[1],
        radius * d[2],
    )))
}

/// Why the slave's transform is not evaluated at `t`, if it is not.
pub fn check_at(eval: &SceneEval, s: &SunSlave, t: i32) -> Result<(), EvalError> {
    if s.id != LIGHT_TM {
        return Err(EvalError::not_evaluated_why(
            format!("{} slave {}", s.system.class, s.id),
            "it drives a multiplier, not a transform",
        ));
    }
    if s.system.manual_at(eval, t)? {
        return Err(EvalError::not_evaluated_why(
            format!("{} in manual mode", s.system.class),
            "the light's hand-set position controller is not read",
        ));
    }
    s.system.state(eval, t).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_time_splits_and_carries() {
        // Epoch 732118 is 2005-06-21 (JD 2453542.5).
        assert_eq!(civil_time(0.0, 32_400, 732_118), (2005, 6, 21, 9, 0, 0));
        assert_eq!(civil_time(10.0, 86_399, 732_118), (2005, 7, 1, 23, 59, 59));
        // Old animation: a fractional day adds its hours and minutes.
        assert_eq!(civil_time(0.25, 0, 732_118), (2005, 6, 21, 6, 0, 0));
    }

    #[test]
    fn light_sits_on_its_sphere_looking_at_the_centre() {
        let m = light_tm(30.0, 120.0, 100.0);
        let p = m.0[3];
        assert!((p.len() - 100.0).abs() < 1e-3);
        let z = m.0[2];
        assert!((z.dot(p.scale(0.01)) - 1.0).abs() < 1e-6);
        // Azimuth from +Y towards +X.
        assert!(p.0 > 0.0 && p.1 < 0.0 && p.2 > 0.0);
    }
}
