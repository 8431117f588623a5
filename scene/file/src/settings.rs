//! Scene-wide settings 3ds Max saves with every file: the system unit (what one
//! stored unit of length measures) and the time configuration (frame rate and
//! animation range). Exporters need both: glTF is in metres and seconds, and
//! per-frame sampling must step by the file's frame, not an assumed 30 fps.
//!
//! Where they are (docs/max-format.md, "Scene settings"):
//! - the system unit is chunk 0x8520 of the Scene object (class (0x2222, 0)):
//!   `{i32 unit type, f32 scale}`, "1 unit = scale × unit";
//! - the time configuration is Config stream chunk 0x20b0: 0x0010 frame rate,
//!   0x0050 animation range start, 0x0060 range end, 0x0070 time slider (ticks).

use serde::Serialize;

use crate::chunk::Chunk;
use crate::document::Document;
use crate::graph::SceneGraph;
use crate::typed::ClassId;

/// Max's time unit: 4800 ticks per second at every frame rate.
pub const TICKS_PER_SECOND: i32 = 4800;
/// The Scene object: the root of the reference hierarchy, one per file.
pub const SCENE_CLASS: ClassId = ClassId(0x2222, 0);
/// Scene object chunk: the system unit type and scale.
const UNITS_CHUNK: u16 = 0x8520;
/// Config stream chunk holding the time configuration.
const TIME_CONFIG: u16 = 0x20b0;
const FRAME_RATE: u16 = 0x0010;
const RANGE_START: u16 = 0x0050;
const RANGE_END: u16 = 0x0060;
const SLIDER: u16 = 0x0070;

/// Max's system unit types (`UNITS_INCHES` … `UNITS_KILOMETERS`): name and metres.
const UNIT_TYPES: [(&str, f64); 7] = [
    ("inches", 0.0254),
    ("feet", 0.3048),
    ("miles", 1609.344),
    ("millimeters", 0.001),
    ("centimeters", 0.01),
    ("meters", 1.0),
    ("kilometers", 1000.0),
];

/// The system unit: every coordinate stored in the file is in this unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SystemUnit {
    /// Max's unit type code (0 inches, 1 feet, 2 miles, 3 mm, 4 cm, 5 m, 6 km).
    pub unit_type: i32,
    pub unit: &'static str,
    /// "1 unit = `scale` × `unit`" (Units Setup → System Unit Scale).
    pub scale: f64,
    /// Metres per stored unit: `scale` × the unit's length.
    pub metres_per_unit: f64,
}

/// The time configuration (Time Configuration dialog).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TimeConfig {
    pub frame_rate: u32,
    /// 4800 / frame rate: the tick step of one frame.
    pub ticks_per_frame: i32,
    /// Animation range, in ticks.
    pub start: i32,
    pub end: i32,
    /// The time slider position when the file was saved, in ticks.
    pub current: i32,
}

impl TimeConfig {
    /// Max's default (NTSC, 30 fps, frames 0–100), for files without one.
    pub const DEFAULT: TimeConfig = TimeConfig {
        frame_rate: 30,
        ticks_per_frame: 160,
        start: 0,
        end: 16000,
        current: 0,
    };
}

/// The chunks of the Scene stream's root container: one per scene object.
fn scene_objects(doc: &Document) -> &[Chunk] {
    doc.stream("Scene")
        .and_then(|s| s.chunks())
        .and_then(|c| c.first())
        .map(Chunk::children)
        .unwrap_or(&[])
}

/// Why a scene setting could not be read: what is missing, or where the data
/// is not what the layout says and what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingsError {
    #[error("Scene stream: no Scene object (class 0x2222,0)")]
    NoSceneObject,
    #[error("Scene stream, object {object}: no units chunk 0x8520")]
    NoUnits { object: usize },
    #[error("Scene stream, object {object}, chunk 0x8520: {why}")]
    Units { object: usize, why: ValueError },
    #[error("no chunk-formatted Config stream")]
    NoConfig,
    #[error("Config stream: no time configuration chunk 0x20b0")]
    NoTimeConfig,
    #[error("Config stream, chunk 0x20b0: {0}")]
    Time(ValueError),
}

/// What is wrong inside one settings chunk.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValueError {
    #[error("no leaf {0:#06x}")]
    Missing(u16),
    #[error("{at}{len} bytes, expected {expected}")]
    Size {
        /// `leaf 0x....: ` when the value is a leaf of the chunk.
        at: String,
        len: usize,
        expected: usize,
    },
    #[error("unknown unit type {0}")]
    UnitType(i32),
    #[error("unit scale {0} is not a positive number")]
    Scale(f64),
    #[error("frame rate {0} out of 1..=4800")]
    FrameRate(i32),
    #[error("animation range ends ({end}) before it starts ({start})")]
    Range { start: i32, end: i32 },
}

/// The system unit of a scene, from the Scene object's chunk 0x8520. An error
/// names what is missing or malformed (stream, object, chunk, size).
pub fn system_unit(doc: &Document, graph: &SceneGraph) -> Result<SystemUnit, SettingsError> {
    let object = graph
        .objects
        .iter()
        .position(|o| o.class.as_ref().is_some_and(|c| c.class_id == SCENE_CLASS))
        .ok_or(SettingsError::NoSceneObject)?;
    let chunks = scene_objects(doc)
        .get(object)
        .map(Chunk::children)
        .unwrap_or(&[]);
    let data = chunks
        .iter()
        .find(|c| c.id == UNITS_CHUNK)
        .and_then(Chunk::payload)
        .ok_or(SettingsError::NoUnits { object })?;
    decode_unit(data).map_err(|why| SettingsError::Units { object, why })
}

/// `{i32 unit type, f32 scale}`.
pub fn decode_unit(data: &[u8]) -> Result<SystemUnit, ValueError> {
    let w: [u8; 8] = data.try_into().map_err(|_| ValueError::Size {
        at: String::new(),
        len: data.len(),
        expected: 8,
    })?;
    let unit_type = i32::from_le_bytes([w[0], w[1], w[2], w[3]]);
    let scale = f64::from(f32::from_le_bytes([w[4], w[5], w[6], w[7]]));
    let (unit, metres) = usize::try_from(unit_type)
        .ok()
        .and_then(|i| UNIT_TYPES.get(i))
        .copied()
        .ok_or(ValueError::UnitType(unit_type))?;
    if !(scale.is_finite() && scale > 0.0) {
        return Err(ValueError::Scale(scale));
    }
    Ok(SystemUnit {
        unit_type,
        unit,
        scale,
        metres_per_unit: scale * metres,
    })
}

/// The time configuration, from Config stream chunk 0x20b0. An error names
/// what is missing or malformed.
pub fn time_config(doc: &Document) -> Result<TimeConfig, SettingsError> {
    let chunks = doc
        .stream("Config")
        .and_then(|s| s.chunks())
        .ok_or(SettingsError::NoConfig)?;
    // Max 2023's zstd Config wraps its chunks in one container.
    let chunks = match chunks {
        [w] if crate::zstd_stream::is_entry_wrapper(w.id) && w.is_container() => w.children(),
        c => c,
    };
    let tc = chunks
        .iter()
        .find(|c| c.id == TIME_CONFIG)
        .ok_or(SettingsError::NoTimeConfig)?;
    decode_time(tc.children()).map_err(SettingsError::Time)
}

/// The time configuration from the children of a 0x20b0 chunk.
pub fn decode_time(children: &[Chunk]) -> Result<TimeConfig, ValueError> {
    let i32_of = |id: u16| -> Result<i32, ValueError> {
        let d = children
            .iter()
            .find(|c| c.id == id)
            .and_then(Chunk::payload)
            .ok_or(ValueError::Missing(id))?;
        let w: [u8; 4] = d.try_into().map_err(|_| ValueError::Size {
            at: format!("leaf {id:#06x}: "),
            len: d.len(),
            expected: 4,
        })?;
        Ok(i32::from_le_bytes(w))
    };
    let fps = i32_of(FRAME_RATE)?;
    let frame_rate = u32::try_from(fps)
        .ok()
        .filter(|&f| f > 0 && f <= TICKS_PER_SECOND as u32)
        .ok_or(ValueError::FrameRate(fps))?;
    let (start, end) = (i32_of(RANGE_START)?, i32_of(RANGE_END)?);
    if end < start {
        return Err(ValueError::Range { start, end });
    }
    Ok(TimeConfig {
        frame_rate,
        ticks_per_frame: TICKS_PER_SECOND / frame_rate as i32,
        start,
        end,
        current: i32_of(SLIDER)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(id: u16, v: i32) -> Chunk {
        Chunk::leaf(id, v.to_le_bytes().to_vec())
    }

    #[test]
    fn unit_types_and_scale() {
        let u = |t: i32, s: f32| {
            let mut d = t.to_le_bytes().to_vec();
            d.extend_from_slice(&s.to_le_bytes());
            decode_unit(&d)
        };
        let inch = u(0, 1.0).expect("inches");
        assert_eq!((inch.unit, inch.metres_per_unit), ("inches", 0.0254));
        assert_eq!(u(4, 1.0).expect("cm").metres_per_unit, 0.01);
        assert!((u(5, 2.5).expect("m").metres_per_unit - 2.5).abs() < 1e-12);
        assert_eq!(u(7, 1.0).unwrap_err(), ValueError::UnitType(7));
        assert!(u(-1, 1.0).is_err());
        assert_eq!(u(5, 0.0).unwrap_err(), ValueError::Scale(0.0));
        assert!(u(5, f32::NAN).is_err());
        assert!(decode_unit(&[0; 7])
            .unwrap_err()
            .to_string()
            .contains("7 bytes"));
    }

    #[test]
    fn time_configuration_inside_a_zstd_config_wrapper() {
        let tc = Chunk::container(
            TIME_CONFIG,
            vec![
                leaf(FRAME_RATE, 30),
                leaf(RANGE_START, 0),
                leaf(RANGE_END, 16000),
                leaf(SLIDER, 0),
            ],
        );
        let config = crate::chunk::write(&[Chunk::container(0x2206, vec![tc])]);
        let file = crate::container::MaxFile {
            clsid: [0; 16],
            streams: vec![crate::container::Stream {
                name: "Config".into(),
                stored_len: config.len() as u64,
                data: config.into(),
                compressed: false,
                zstd: false,
                open_root: false,
                error: None,
            }],
        };
        let t = time_config(&Document::from_file(file)).expect("time configuration");
        assert_eq!((t.ticks_per_frame, t.end), (160, 16000));
    }

    #[test]
    fn time_configuration() {
        let tc = |fps: i32, start: i32, end: i32| {
            decode_time(&[
                leaf(FRAME_RATE, fps),
                leaf(RANGE_START, start),
                leaf(RANGE_END, end),
                leaf(SLIDER, 0),
            ])
        };
        let t = tc(24, 200, 20000).expect("24 fps");
        assert_eq!((t.ticks_per_frame, t.start, t.end), (200, 200, 20000));
        assert_eq!(tc(25, 0, 0).expect("25").ticks_per_frame, 192);
        assert_eq!(tc(0, 0, 1).unwrap_err(), ValueError::FrameRate(0));
        assert!(tc(4801, 0, 1).is_err());
        assert_eq!(
            tc(30, 10, 0).unwrap_err(),
            ValueError::Range { start: 10, end: 0 }
        );
        assert!(decode_time(&[leaf(FRAME_RATE, 30)])
            .unwrap_err()
            .to_string()
            .contains("0x0050"));
        let short = [Chunk::leaf(FRAME_RATE, vec![30u8, 0])];
        assert!(decode_time(&short)
            .unwrap_err()
            .to_string()
            .contains("2 bytes"));
    }
}
