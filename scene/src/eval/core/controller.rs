//! Controllers decoded from scene objects: keyframers (linear, Bezier, TCB),
//! their composites (Position XYZ, Euler XYZ, PRS, LookAt), and their value at a time.

use crate::eval::error::EvalError;
use serde::Serialize;

use crate::chunk::Chunk;
use crate::graph::SceneObject;
use crate::typed::ClassId;

use crate::eval::core::keys::{self, BezKey, TcbKey, TcbRotKey, Words};
pub use crate::eval::core::list::ListKind;
use crate::eval::core::math::{Mat43, Quat, Vec3};
use crate::eval::core::script;

/// Class ids (part A; part B is 0 unless noted) of the controllers understood here.
pub mod class {
    use crate::typed::ClassId;
    pub const LINEAR_FLOAT: ClassId = ClassId(0x2001, 0);
    pub const LINEAR_POS: ClassId = ClassId(0x2002, 0);
    pub const LINEAR_ROT: ClassId = ClassId(0x2003, 0);
    pub const LINEAR_SCALE: ClassId = ClassId(0x2004, 0);
    pub const PRS: ClassId = ClassId(0x2005, 0);
    pub const LOOKAT: ClassId = ClassId(0x2006, 0);
    pub const BEZIER_FLOAT: ClassId = ClassId(0x2007, 0);
    pub const BEZIER_POS: ClassId = ClassId(0x2008, 0);
    pub const BEZIER_POINT3: ClassId = ClassId(0x200A, 0);
    pub const BEZIER_SCALE: ClassId = ClassId(0x2010, 0);
    pub const BEZIER_COLOR: ClassId = ClassId(0x2011, 0);
    pub const EULER_XYZ: ClassId = ClassId(0x2012, 0);
    /// Bezier RGBA Color (a Point4 controller: material colours with alpha).
    pub const BEZIER_RGBA: ClassId = ClassId(0x2013, 0);
    pub const TCB_FLOAT: ClassId = ClassId(0x442311, 0);
    pub const TCB_POS: ClassId = ClassId(0x442312, 0);
    pub const TCB_ROT: ClassId = ClassId(0x442313, 0);
    pub const TCB_POINT3: ClassId = ClassId(0x442314, 0);
    pub const TCB_SCALE: ClassId = ClassId(0x442315, 0);
    pub const POSITION_XYZ: ClassId = ClassId(0x118f7e02, 0xffee238a);
    pub const SCALE_XYZ: ClassId = ClassId(0x118f7c01, 0xfeee238b);
    pub const FLOAT_LIST: ClassId = ClassId(0x4b4b1000, 0);
    pub const POINT3_LIST: ClassId = ClassId(0x4b4b1001, 0);
    pub const POSITION_LIST: ClassId = ClassId(0x4b4b1002, 0);
    pub const ROTATION_LIST: ClassId = ClassId(0x4b4b1003, 0);
    pub const SCALE_LIST: ClassId = ClassId(0x4b4b1004, 0);
    pub const FLOAT_SCRIPT: ClassId = ClassId(0x498702e6, 0x71f11548);
    pub const POSITION_SCRIPT: ClassId = ClassId(0x5065767b, 0x683a42a5);
    pub const POINT3_SCRIPT: ClassId = ClassId(0x46972869, 0x2f7f05ce);
    pub const SCALE_SCRIPT: ClassId = ClassId(0x7c8f3a2a, 0x1e954d91);
}

/// Controller superclasses (`SClass_ID`).
mod super_class {
    pub const FLOAT: u32 = 0x9003;
    pub const POINT3: u32 = 0x9005;
    pub const POINT4: u32 = 0x9012;
    pub const MATRIX3: u32 = 0x9008;
    pub const POSITION: u32 = 0x900b;
    pub const ROTATION: u32 = 0x900c;
    pub const SCALE: u32 = 0x900d;
}

/// The superclass a controller class understood here belongs to. Class ids are
/// unique only within a superclass: (0x2011, 0) is Bezier Color among Point3
/// controllers and the Path Constraint among position controllers.
fn expected_super_class(id: ClassId) -> Option<u32> {
    use class::*;
    Some(match id {
        LINEAR_FLOAT | BEZIER_FLOAT | TCB_FLOAT | FLOAT_LIST | FLOAT_SCRIPT => super_class::FLOAT,
        BEZIER_POINT3 | BEZIER_COLOR | TCB_POINT3 | POINT3_LIST | POINT3_SCRIPT => {
            super_class::POINT3
        }
        LINEAR_POS | BEZIER_POS | TCB_POS | POSITION_XYZ | POSITION_LIST | POSITION_SCRIPT => {
            super_class::POSITION
        }
        LINEAR_ROT | TCB_ROT | EULER_XYZ | ROTATION_LIST => super_class::ROTATION,
        LINEAR_SCALE | BEZIER_SCALE | TCB_SCALE | SCALE_XYZ | SCALE_LIST | SCALE_SCRIPT => {
            super_class::SCALE
        }
        PRS | LOOKAT => super_class::MATRIX3,
        BEZIER_RGBA => super_class::POINT4,
        _ => return None,
    })
}

/// A keyframed N-dimensional value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "interpolation", rename_all = "lowercase")]
pub enum Track<const N: usize> {
    Constant {
        #[serde(with = "keys::arrays")]
        value: [f64; N],
    },
    Linear {
        keys: Vec<LinKey<N>>,
    },
    Bezier {
        keys: Vec<BezKey<N>>,
    },
    Tcb {
        keys: Vec<TcbKey<N>>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinKey<const N: usize> {
    pub time: i32,
    #[serde(with = "keys::arrays")]
    pub value: [f64; N],
}

impl<const N: usize> Track<N> {
    pub fn at(&self, t: i32) -> [f64; N] {
        match self {
            Track::Constant { value } => *value,
            Track::Linear { keys } => {
                keys::linear(keys, |k| k.time, |k| k.value, t).unwrap_or([0.0; N])
            }
            Track::Bezier { keys } => keys::bezier(keys, t).unwrap_or([0.0; N]),
            Track::Tcb { keys } => keys::tcb(keys, t).unwrap_or([0.0; N]),
        }
    }

    pub fn key_times(&self) -> Vec<i32> {
        match self {
            Track::Constant { .. } => Vec::new(),
            Track::Linear { keys } => keys.iter().map(|k| k.time).collect(),
            Track::Bezier { keys } => keys.iter().map(|k| k.time).collect(),
            Track::Tcb { keys } => keys.iter().map(|k| k.time).collect(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "interpolation", rename_all = "lowercase")]
pub enum RotTrack {
    Constant { value: Quat },
    Linear { keys: Vec<(i32, Quat)> },
    Tcb { keys: Vec<TcbRotKey> },
}

/// A decoded controller. Rotations are in the node convention (Max stores them
/// conjugated; they are conjugated back here).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum Controller {
    Float {
        class: String,
        track: Track<1>,
        range: Option<(i32, i32)>,
    },
    Point3 {
        class: String,
        track: Track<3>,
        range: Option<(i32, i32)>,
    },
    Rotation {
        class: String,
        track: RotTrack,
        range: Option<(i32, i32)>,
    },
    /// A scale value is scale factors along the axes of a rotated frame, the
    /// scale axis. `track` holds the factors; `axis` the axis rotation (node
    /// convention, like rotations; slerped between keys) is decoded but not
    /// applied: no reference in the corpus confirms how Max composes it
    /// (docs/evaluation.md, "Controllers").
    Scale {
        class: String,
        track: Track<3>,
        axis: RotTrack,
        range: Option<(i32, i32)>,
    },
    PositionXyz {
        axes: [Option<usize>; 3],
    },
    ScaleXyz {
        axes: [Option<usize>; 3],
    },
    EulerXyz {
        order: u32,
        axes: [Option<usize>; 3],
    },
    Prs {
        position: Option<usize>,
        rotation: Option<usize>,
        scale: Option<usize>,
    },
    LookAt {
        target: Option<usize>,
        position: Option<usize>,
        roll: Option<usize>,
        scale: Option<usize>,
    },
    /// A Path Constraint (eval/rigs/path_constraint.rs): sets the node's
    /// world position to a point along its paths.
    PathConstraint(crate::eval::rigs::path_constraint::PathConstraint),
    /// A Sunlight or Daylight slave (eval/systems/sunlight.rs): its system's
    /// master places the light.
    SunSlave(Box<crate::eval::systems::sunlight::SunSlave>),
    /// A list controller (eval/core/list.rs): entries combined in order.
    List {
        class: String,
        kind: ListKind,
        subs: Vec<Option<usize>>,
        /// Per entry, 1.0 = 100 %.
        weights: Vec<f64>,
        average: bool,
        /// The parameter block holding the weights (reference `count + 2`).
        weight_block: Option<usize>,
    },
    Unsupported {
        class: String,
    },
}

impl Controller {
    /// The times of the controller's own keys, in track order (none for a
    /// controller without a key track of its own).
    pub fn key_times(&self) -> Vec<i32> {
        match self {
            Controller::Float { track, .. } => track.key_times(),
            Controller::Point3 { track, .. } | Controller::Scale { track, .. } => track.key_times(),
            Controller::Rotation { track, .. } => track.key_times(),
            _ => Vec::new(),
        }
    }

    /// The sub-controllers this one combines, in reference order: the one walk
    /// coverage, the channel listing and the exporters share.
    pub fn children(&self) -> Vec<usize> {
        match self {
            Controller::Prs {
                position,
                rotation,
                scale,
            } => [*position, *rotation, *scale]
                .into_iter()
                .flatten()
                .collect(),
            Controller::LookAt {
                position,
                roll,
                scale,
                ..
            } => [*position, *roll, *scale].into_iter().flatten().collect(),
            Controller::PositionXyz { axes }
            | Controller::ScaleXyz { axes }
            | Controller::EulerXyz { axes, .. } => axes.iter().flatten().copied().collect(),
            Controller::List { subs, .. } => subs.iter().flatten().copied().collect(),
            Controller::PathConstraint(p) => p.controllers(),
            Controller::SunSlave(s) => s.system.controllers(),
            Controller::Float { .. }
            | Controller::Point3 { .. }
            | Controller::Rotation { .. }
            | Controller::Scale { .. }
            | Controller::Unsupported { .. } => Vec::new(),
        }
    }
}

/// A script controller's expression text.
const SCRIPT_TEXT: u16 = 0x5000;

/// Max 2017 and later wrap a keyframer's own chunks in a 0x7127 container.
const KEYFRAMER_WRAPPER: u16 = 0x7127;

fn leaf(chunks: &[Chunk], id: u16) -> Option<&[u8]> {
    chunks
        .iter()
        .find(|c| c.id == id)
        .and_then(Chunk::payload)
        .or_else(|| {
            chunks
                .iter()
                .filter(|c| c.id == KEYFRAMER_WRAPPER)
                .find_map(|w| leaf(w.children(), id))
        })
}

/// A key-less Point3-valued keyframer's value. Position controllers keep it
/// in 0x2503; Point3 and Color controllers in 0x2501 (12 bytes, where Float
/// keeps its one float). Each falls back to the other chunk so a writer that
/// swapped them still reads.
fn point3_default(id: ClassId, chunks: &[Chunk]) -> Option<[f64; 3]> {
    let (first, second) = match id {
        class::BEZIER_POINT3 | class::BEZIER_COLOR | class::TCB_POINT3 => (0x2501, 0x2503),
        _ => (0x2503, 0x2501),
    };
    leaf(chunks, first)
        .and_then(f32s::<3>)
        .or_else(|| leaf(chunks, second).and_then(f32s::<3>))
}

fn f32s<const N: usize>(p: &[u8]) -> Option<[f64; N]> {
    if p.len() != N * 4 {
        return None;
    }
    let w = Words(p);
    Some(w.fs(0))
}

fn range(chunks: &[Chunk]) -> Option<(i32, i32)> {
    let p = leaf(chunks, 0x3003)?;
    if p.len() != 8 {
        return None;
    }
    let w = Words(p);
    let (a, b) = (w.i32(0), w.i32(1));
    (a != i32::MIN || b != i32::MIN).then_some((a, b))
}

fn quat_stored(v: [f64; 4]) -> Quat {
    Quat {
        x: v[0],
        y: v[1],
        z: v[2],
        w: v[3],
    }
    .conjugate()
}

fn reference(o: &SceneObject, slot: u32) -> Option<usize> {
    o.references
        .iter()
        .find(|r| r.slot == slot)
        .and_then(|r| usize::try_from(r.target).ok())
}

fn linear_keys<const N: usize>(table: &[u8], size: usize) -> Result<Vec<LinKey<N>>, EvalError> {
    Ok(keys::records(table, size)?
        .map(|r| {
            let w = Words(r);
            LinKey {
                time: w.i32(0),
                value: w.fs(2),
            }
        })
        .collect())
}

/// Bezier float/point3 records: time, flags, value[N], in[N], out[N], in_len[N], out_len[N].
fn bezier_keys<const N: usize>(table: &[u8], size: usize) -> Result<Vec<BezKey<N>>, EvalError> {
    Ok(keys::records(table, size)?
        .map(|r| {
            let w = Words(r);
            BezKey {
                time: w.i32(0),
                flags: w.u32(1),
                value: w.fs(2),
                in_tan: w.fs(2 + N),
                out_tan: w.fs(2 + 2 * N),
                in_len: w.fs(2 + 3 * N),
                out_len: w.fs(2 + 4 * N),
            }
        })
        .collect())
}

/// A keyframer's track: its keys (`keyed`, from whichever key table it
/// holds), else the constant a key-less one stores (`stored`), else an error
/// naming the controller `name` and what it lacks (`missing`).
fn keyed_or_stored<const N: usize>(
    name: &str,
    keyed: Option<Track<N>>,
    stored: impl FnOnce() -> Option<[f64; N]>,
    missing: &str,
) -> Result<Track<N>, EvalError> {
    match keyed {
        Some(track) => Ok(track),
        None => Ok(Track::Constant {
            value: stored().ok_or_else(|| EvalError::malformed(name.to_string(), missing))?,
        }),
    }
}

/// The red, green and blue of an RGBA key.
fn rgb_key(k: BezKey<4>) -> BezKey<3> {
    let rgb = |v: [f64; 4]| [v[0], v[1], v[2]];
    BezKey {
        time: k.time,
        flags: k.flags,
        value: rgb(k.value),
        in_tan: rgb(k.in_tan),
        out_tan: rgb(k.out_tan),
        in_len: rgb(k.in_len),
        out_len: rgb(k.out_len),
    }
}

/// Bezier scale records: time, flags, s[3], q[4], then 7-float blocks for in/out
/// tangent and in/out length.
fn bezier_scale_keys(table: &[u8]) -> Result<Vec<BezKey<3>>, EvalError> {
    Ok(keys::records(table, 148)?
        .map(|r| {
            let w = Words(r);
            BezKey {
                time: w.i32(0),
                flags: w.u32(1),
                value: w.fs(2),
                in_tan: w.fs(2 + 7),
                out_tan: w.fs(2 + 14),
                in_len: w.fs(2 + 21),
                out_len: w.fs(2 + 28),
            }
        })
        .collect())
}

/// The scale-axis rotation of each scale key (words 5–8 of every record kind),
/// as a track slerped between keys; constant when every key has the same axis.
fn scale_axes(table: &[u8], size: usize) -> Result<RotTrack, EvalError> {
    let keys: Vec<(i32, Quat)> = keys::records(table, size)?
        .map(|r| {
            let w = Words(r);
            (w.i32(0), quat_stored(w.fs(5)))
        })
        .collect();
    Ok(match keys.first() {
        Some(&(_, q)) if keys.iter().all(|k| k.1 == q) => RotTrack::Constant { value: q },
        None => RotTrack::Constant {
            value: Quat::IDENTITY,
        },
        Some(_) => RotTrack::Linear { keys },
    })
}

fn tcb_keys<const N: usize>(
    table: &[u8],
    size: usize,
    tcb_at: usize,
) -> Result<Vec<TcbKey<N>>, EvalError> {
    Ok(keys::records(table, size)?
        .map(|r| {
            let w = Words(r);
            TcbKey {
                time: w.i32(0),
                value: w.fs(2),
                tension: w.f(tcb_at),
                continuity: w.f(tcb_at + 1),
                bias: w.f(tcb_at + 2),
                ease_in: w.f(tcb_at + 3),
                ease_out: w.f(tcb_at + 4),
            }
        })
        .collect())
}

/// Decodes the controller stored in object `o` (its chunks are `chunks`).
pub fn decode(o: &SceneObject, chunks: &[Chunk]) -> Result<Controller, EvalError> {
    use class::*;
    let Some(cls) = &o.class else {
        return Ok(Controller::Unsupported {
            class: "unknown".into(),
        });
    };
    let name = cls.name.clone();
    let id = cls.class_id;
    // Another superclass's class with the same id (0 = not recorded).
    if expected_super_class(id).is_some_and(|s| cls.super_class != 0 && cls.super_class != s) {
        return Ok(Controller::Unsupported { class: name });
    }
    let r = range(chunks);
    let table = |kid: u16| leaf(chunks, kid);
    let c = match id {
        LINEAR_FLOAT | BEZIER_FLOAT | TCB_FLOAT => {
            let keyed = match (id, table(0x2511), table(0x2525)) {
                (LINEAR_FLOAT, Some(t), _) => Some(Track::Linear {
                    keys: linear_keys(t, 12)?,
                }),
                (BEZIER_FLOAT, _, Some(t)) => Some(Track::Bezier {
                    keys: bezier_keys::<1>(t, 28)?,
                }),
                // Only a key-less TCB Float is read (its value in 0x2501, as
                // ATV.max's camera roll): no file seen holds its keys, so a
                // key table is refused rather than its value guessed.
                (TCB_FLOAT, _, _) => {
                    // Through `leaf`: Max 2017+ keep the table in the wrapper.
                    if let Some(k) = (0x2510..=0x252f).find(|&k| table(k).is_some()) {
                        return Err(EvalError::not_evaluated_why(
                            format!("{name} keys (chunk {k:#06x})"),
                            "no file seen holds a keyed TCB Float to pin the record layout",
                        ));
                    }
                    None
                }
                _ => None,
            };
            Controller::Float {
                track: keyed_or_stored(
                    &name,
                    keyed,
                    || leaf(chunks, 0x2501).and_then(f32s::<1>),
                    "a key-less keyframer with no stored value (4 bytes in chunk 0x2501)",
                )?,
                class: name,
                range: r,
            }
        }
        LINEAR_POS | BEZIER_POS | BEZIER_POINT3 | BEZIER_COLOR | TCB_POS | TCB_POINT3 => {
            let keyed = match (table(0x2513), table(0x2526), table(0x2521)) {
                (Some(t), _, _) => Some(Track::Linear {
                    keys: linear_keys(t, 20)?,
                }),
                (_, Some(t), _) => Some(Track::Bezier {
                    keys: bezier_keys::<3>(t, 80)?,
                }),
                (_, _, Some(t)) => Some(Track::Tcb {
                    keys: tcb_keys::<3>(t, 64, 5)?,
                }),
                _ => None,
            };
            Controller::Point3 {
                track: keyed_or_stored(
                    &name,
                    keyed,
                    || point3_default(id, chunks),
                    "a key-less keyframer with no stored value (12 bytes in chunk 0x2503 or 0x2501)",
                )?,
                class: name,
                range: r,
            }
        }
        // Keys as Bezier Color's with four components (100-byte records in
        // 0x2529, the key-less value 16 bytes in 0x2501; бочка.max's
        // animated Physical Material colours): the colour is its red, green
        // and blue, each interpolated on its own as every Bezier component
        // is, alpha left out.
        BEZIER_RGBA => {
            let keyed = match table(0x2529) {
                Some(t) => Some(Track::Bezier {
                    keys: bezier_keys::<4>(t, 100)?.into_iter().map(rgb_key).collect(),
                }),
                None => None,
            };
            Controller::Point3 {
                track: keyed_or_stored(
                    &name,
                    keyed,
                    || {
                        leaf(chunks, 0x2501)
                            .and_then(f32s::<4>)
                            .map(|v| [v[0], v[1], v[2]])
                    },
                    "a key-less RGBA keyframer with no stored value (16 bytes in chunk 0x2501)",
                )?,
                class: name,
                range: r,
            }
        }
        LINEAR_ROT | TCB_ROT => {
            let track = match (table(0x2514), table(0x2522)) {
                (Some(t), _) => RotTrack::Linear {
                    keys: keys::records(t, 24)?
                        .map(|rec| {
                            let w = Words(rec);
                            (w.i32(0), quat_stored(w.fs(2)))
                        })
                        .collect(),
                },
                (_, Some(t)) => {
                    let raw: Vec<TcbRotKey> = keys::records(t, 92)?
                        .map(|rec| {
                            let w = Words(rec);
                            let a: [f64; 3] = w.fs(11);
                            TcbRotKey {
                                time: w.i32(0),
                                quat: quat_stored(w.fs(2)),
                                tension: w.f(6),
                                continuity: w.f(7),
                                bias: w.f(8),
                                ease_in: w.f(9),
                                ease_out: w.f(10),
                                axis: Vec3(a[0], a[1], a[2]),
                                angle: w.f(14),
                            }
                        })
                        .collect();
                    RotTrack::Tcb { keys: raw }
                }
                _ => RotTrack::Constant {
                    value: leaf(chunks, 0x2504)
                        .and_then(f32s::<4>)
                        .map(quat_stored)
                        .unwrap_or_default(),
                },
            };
            Controller::Rotation {
                class: name,
                track,
                range: r,
            }
        }
        LINEAR_SCALE | BEZIER_SCALE | TCB_SCALE => {
            // Every scale record is {time, flags, s[3], q[4], …}: the axis at word 5.
            let (track, axis) = match (table(0x2515), table(0x2528), table(0x2523)) {
                (Some(t), _, _) => (
                    Track::Linear {
                        keys: linear_keys(t, 36)?,
                    },
                    scale_axes(t, 36)?,
                ),
                (_, Some(t), _) => (
                    Track::Bezier {
                        keys: bezier_scale_keys(t)?,
                    },
                    scale_axes(t, 148)?,
                ),
                (_, _, Some(t)) => (
                    Track::Tcb {
                        keys: tcb_keys::<3>(t, 112, 9)?,
                    },
                    scale_axes(t, 112)?,
                ),
                _ => {
                    let v = leaf(chunks, 0x2505).filter(|p| p.len() == 28).map(Words);
                    (
                        Track::Constant {
                            value: v.as_ref().map_or([1.0; 3], |w| w.fs::<3>(0)),
                        },
                        RotTrack::Constant {
                            value: v.map_or(Quat::IDENTITY, |w| quat_stored(w.fs(3))),
                        },
                    )
                }
            };
            Controller::Scale {
                class: name,
                track,
                axis,
                range: r,
            }
        }
        POSITION_XYZ => Controller::PositionXyz {
            axes: [reference(o, 0), reference(o, 1), reference(o, 2)],
        },
        SCALE_XYZ => Controller::ScaleXyz {
            axes: [reference(o, 0), reference(o, 1), reference(o, 2)],
        },
        EULER_XYZ => Controller::EulerXyz {
            order: leaf(chunks, 0x1003)
                .filter(|p| p.len() == 4)
                .map(|p| Words(p).u32(0))
                .unwrap_or(0),
            axes: [reference(o, 0), reference(o, 1), reference(o, 2)],
        },
        PRS => Controller::Prs {
            position: reference(o, 0),
            rotation: reference(o, 1),
            scale: reference(o, 2),
        },
        LOOKAT => Controller::LookAt {
            target: reference(o, 0),
            position: reference(o, 1),
            roll: reference(o, 2),
            scale: reference(o, 3),
        },
        FLOAT_LIST | POINT3_LIST | POSITION_LIST | ROTATION_LIST | SCALE_LIST => {
            let kind = ListKind::of(id).ok_or_else(|| EvalError::not_evaluated(name.clone()))?;
            crate::eval::core::list::decode(o, chunks, kind, name)?
        }
        FLOAT_SCRIPT | POSITION_SCRIPT | POINT3_SCRIPT | SCALE_SCRIPT => {
            script_controller(id, chunks, name, r)
        }
        ClassId(..) => Controller::Unsupported { class: name },
    };
    Ok(c)
}

/// A script controller whose text ends in a literal of its type holds that
/// value at every tick (eval/core/script.rs); any other is refused, with why.
fn script_controller(
    id: ClassId,
    chunks: &[Chunk],
    name: String,
    range: Option<(i32, i32)>,
) -> Controller {
    use script::Literal;
    let value = leaf(chunks, SCRIPT_TEXT)
        .ok_or_else(|| "no expression text (chunk 0x5000)".to_string())
        .and_then(|t| script::constant_value(&script::text_of(t)).map_err(|e| e.to_string()));
    match (id, value) {
        (class::FLOAT_SCRIPT, Ok(Literal::Number(v))) => Controller::Float {
            class: name,
            track: Track::Constant { value: [v] },
            range,
        },
        (class::SCALE_SCRIPT, Ok(Literal::Point3(v))) => Controller::Scale {
            class: name,
            track: Track::Constant { value: v },
            axis: RotTrack::Constant {
                value: Quat::IDENTITY,
            },
            range,
        },
        (class::POSITION_SCRIPT | class::POINT3_SCRIPT, Ok(Literal::Point3(v))) => {
            Controller::Point3 {
                class: name,
                track: Track::Constant { value: v },
                range,
            }
        }
        (_, Ok(_)) => Controller::Unsupported {
            class: format!("{name} (its script ends in a literal of another type)"),
        },
        (_, Err(why)) => Controller::Unsupported {
            class: format!("{name} ({why})"),
        },
    }
}

/// Euler angles to a rotation matrix for the given axis order (0 = XYZ).
pub fn euler_matrix(order: u32, a: [f64; 3]) -> Mat43 {
    let (x, y, z) = (Mat43::rot_x(a[0]), Mat43::rot_y(a[1]), Mat43::rot_z(a[2]));
    match order {
        1 => x.then(&z).then(&y),
        2 => y.then(&z).then(&x),
        3 => y.then(&x).then(&z),
        4 => z.then(&x).then(&y),
        5 => z.then(&y).then(&x),
        _ => x.then(&y).then(&z),
    }
}

impl RotTrack {
    pub fn at(&self, t: i32) -> Quat {
        match self {
            RotTrack::Constant { value } => *value,
            RotTrack::Linear { keys } => keys::linear_rot(keys, t).unwrap_or_default(),
            RotTrack::Tcb { keys } => keys::tcb_rot(keys, t).unwrap_or_default(),
        }
    }

    pub fn key_times(&self) -> Vec<i32> {
        match self {
            RotTrack::Constant { .. } => Vec::new(),
            RotTrack::Linear { keys } => keys.iter().map(|k| k.0).collect(),
            RotTrack::Tcb { keys } => keys.iter().map(|k| k.time).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::ObjectClass;

    fn keyless(class_id: ClassId, chunks: &[Chunk]) -> Result<Controller, EvalError> {
        let o = SceneObject {
            index: 0,
            chunk_id: 0,
            class: Some(ObjectClass {
                class_id,
                super_class: 0,
                name: "test".into(),
                dll: "builtin".into(),
            }),
            references: Vec::new(),
            appdata: Vec::new(),
            node: None,
            note_keys: Vec::new(),
        };
        decode(&o, chunks)
    }

    fn f32s_le(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn constant3(c: Result<Controller, EvalError>) -> [f64; 3] {
        match c {
            Ok(Controller::Point3 {
                track: Track::Constant { value },
                ..
            }) => value,
            other => panic!("{other:?}"),
        }
    }

    /// Point3 keyframers keep their value in 0x2501, position ones in 0x2503;
    /// both may sit inside the Max 2017+ 0x7127 wrapper.
    #[test]
    fn keyless_point3_values_come_from_their_own_chunk() {
        let both = [
            Chunk::leaf(0x2501, f32s_le(&[1.0, 2.0, 3.0])),
            Chunk::leaf(0x2503, f32s_le(&[4.0, 5.0, 6.0])),
        ];
        assert_eq!(
            constant3(keyless(class::BEZIER_POINT3, &both)),
            [1.0, 2.0, 3.0]
        );
        assert_eq!(
            constant3(keyless(class::BEZIER_POS, &both)),
            [4.0, 5.0, 6.0]
        );
        let wrapped = [Chunk::container(
            KEYFRAMER_WRAPPER,
            vec![Chunk::leaf(0x2501, f32s_le(&[7.0, 8.0, 9.0]))],
        )];
        assert_eq!(
            constant3(keyless(class::BEZIER_COLOR, &wrapped)),
            [7.0, 8.0, 9.0]
        );
    }

    /// бочка.max's (eighth sweep) Physical Material base colour: a Bezier
    /// RGBA Color with keys at 0 and 9280, and 0x2501 holding the value Max
    /// showed when it saved, the last key's.
    #[test]
    fn rgba_colour_keys_give_their_red_green_and_blue() {
        let key = |t: i32, v: [f32; 4]| {
            let mut r = t.to_le_bytes().to_vec();
            r.extend(0x1680u32.to_le_bytes());
            let mut f = v.to_vec();
            f.extend([0.0; 8]);
            f.extend([-1.0; 8]);
            f.extend([0.0; 3]);
            r.extend(f32s_le(&f));
            r
        };
        let last = [0.926, 0.701, 0.524, 1.0];
        let mut table = key(0, [0.5, 0.5, 0.5, 1.0]);
        table.extend(key(9280, last));
        let chunks = [
            Chunk::leaf(0x2501, f32s_le(&last)),
            Chunk::leaf(0x2529, table),
        ];
        let Ok(Controller::Point3 { track, .. }) = keyless(class::BEZIER_RGBA, &chunks) else {
            panic!("a colour track");
        };
        let close =
            |a: [f64; 3], b: [f32; 4]| (0..3).all(|i| (a[i] - f64::from(b[i])).abs() < 1e-6);
        assert!(close(track.at(0), [0.5, 0.5, 0.5, 1.0]));
        assert!(close(track.at(9280), last));
        let between = track.at(4640);
        assert!((0..3).all(|i| between[i] > 0.5 && between[i] < f64::from(last[i])));
        // Key-less: the stored value's red, green and blue.
        let keyless_value = [Chunk::leaf(0x2501, f32s_le(&[0.1, 0.2, 0.3, 0.4]))];
        let v = constant3(keyless(class::BEZIER_RGBA, &keyless_value));
        assert!(close(v, [0.1, 0.2, 0.3, 0.4]));
        assert!(keyless(
            class::BEZIER_RGBA,
            &[Chunk::leaf(0x2501, f32s_le(&[0.1; 3]))]
        )
        .is_err());
    }

    /// ATV.max's camera roll (nineteenth sweep): a key-less TCB Float, its
    /// value in 0x2501 beside the ORT and range chunks; a key table is
    /// refused by name, never read as the stored value.
    #[test]
    fn a_keyless_tcb_float_is_its_stored_value_and_keys_are_refused() {
        let chunks = [
            Chunk::leaf(0x2501, f32s_le(&[0.25])),
            Chunk::leaf(
                0x2500,
                [i32::MIN.to_le_bytes(), i32::MAX.to_le_bytes()].concat(),
            ),
            Chunk::leaf(0x2532, Vec::new()),
        ];
        match keyless(class::TCB_FLOAT, &chunks) {
            Ok(Controller::Float {
                track: Track::Constant { value },
                ..
            }) => assert_eq!(value, [0.25]),
            other => panic!("{other:?}"),
        }
        let keyed = [
            Chunk::leaf(0x2501, f32s_le(&[0.25])),
            Chunk::leaf(0x2520, vec![0; 40]),
        ];
        let e = keyless(class::TCB_FLOAT, &keyed).unwrap_err().to_string();
        assert!(e.contains("keys (chunk 0x2520)"), "{e}");
        // Inside Max 2017's keyframer wrapper too.
        let wrapped = [Chunk::container(
            KEYFRAMER_WRAPPER,
            vec![
                Chunk::leaf(0x2501, f32s_le(&[0.25])),
                Chunk::leaf(0x2520, vec![0; 40]),
            ],
        )];
        let e = keyless(class::TCB_FLOAT, &wrapped).unwrap_err().to_string();
        assert!(e.contains("keys (chunk 0x2520)"), "{e}");
    }

    /// No stored value is an error, not a zero.
    #[test]
    fn keyless_keyframers_without_a_value_are_malformed() {
        let short = [Chunk::leaf(0x2501, f32s_le(&[1.0]))];
        assert!(matches!(
            keyless(class::BEZIER_POINT3, &short),
            Err(EvalError::Malformed { .. })
        ));
        assert!(matches!(
            keyless(class::BEZIER_FLOAT, &[]),
            Err(EvalError::Malformed { .. })
        ));
        assert!(matches!(
            keyless(class::BEZIER_FLOAT, &short),
            Ok(Controller::Float {
                track: Track::Constant { value: [1.0] },
                ..
            })
        ));
    }
}
