//! `.anim`: `CAnimation` and every track class (key framers, sampled, default).

use serde::Serialize;

use super::shape::material::{
    TrackDefaultBool, TrackDefaultFloat, TrackDefaultInt, TrackDefaultQuat, TrackDefaultRgba,
    TrackDefaultString, TrackDefaultVector,
};
use super::stream::{opt, Bool, PolyClass, Ptr, Quat, Rgba, Serial, Stream, Vec3, F32};
use super::NelError;
use crate::{nel_struct, nel_versioned};

nel_struct!(
    /// `CAngleAxis`.
    AngleAxis { axis: Vec3, angle: F32 }
);

/// Declares a generic key struct with a version byte and fields after the value.
macro_rules! key_struct {
    ($(#[$m:meta])* $name:ident { $($f:ident : $t:ty),* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Default, Serialize)]
        pub struct $name<V> { pub version: u32, pub value: V, $(pub $f: $t),* }
        impl<V: Serial> Serial for $name<V> {
            const MIN_SIZE: usize = 1 + V::MIN_SIZE $(+ <$t as Serial>::MIN_SIZE)*;
            fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
                s.version(&mut self.version, 0, stringify!($name))?;
                s.ser(&mut self.value)?;
                $( s.ser(&mut self.$f)?; )*
                Ok(())
            }
        }
    };
}
key_struct!(
    /// `CKeyTCB<T>` (also `CKeyTCBQuat` with an angle-axis value).
    KeyTcb { tension: F32, continuity: F32, bias: F32, ease_to: F32, ease_from: F32 }
);
key_struct!(
    /// `CKeyBezier<T>`: value, in/out tangents, step flag.
    KeyBezier { in_tan: V2, out_tan: V2, step: Bool }
);
key_struct!(
    /// `CKey<T>`: a plain key (constant and linear tracks).
    KeyPlain {}
);
key_struct!(
    /// `CKeyBezierQuat`: an absolute rotation, no tangents.
    KeyBezierQuat {}
);

/// Placeholder so the tangent type of `KeyBezier<V>` is `V` (see type aliases below).
pub type V2 = Tangent;

/// Tangent storage of bezier keys: same encoding as the value (float or vector).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Tangent {
    Float(F32),
    Vector(Vec3),
}

impl Default for Tangent {
    fn default() -> Self {
        Tangent::Float(F32::default())
    }
}

impl Serial for Tangent {
    const MIN_SIZE: usize = 4;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        match self {
            Tangent::Float(f) => s.ser(f),
            Tangent::Vector(v) => s.ser(v),
        }
    }
}

/// `ITrackKeyFramer<K>`: time -> key map, range and loop mode.
#[derive(Debug, Clone, Default, Serialize)]
pub struct KeyFramer<K> {
    pub version: u32,
    pub keys: Vec<(F32, K)>,
    pub range_lock: Bool,
    pub range_begin: F32,
    pub range_end: F32,
    pub loop_mode: Bool,
}

impl<K: Serial + Default> KeyFramer<K> {
    /// `init` prepares a default key (bezier tangents take the value's shape).
    fn serial_with<S: Stream>(&mut self, s: &mut S, init: impl Fn() -> K) -> Result<(), NelError> {
        s.version(&mut self.version, 0, "ITrackKeyFramer")?;
        let mut n = self.keys.len();
        s.count(&mut n, 4 + K::MIN_SIZE)?;
        if s.reading() {
            self.keys = Vec::with_capacity(n.min(1 << 16));
            for _ in 0..n {
                let mut t = F32::default();
                s.ser(&mut t)?;
                let mut k = init();
                s.ser(&mut k)?;
                self.keys.push((t, k));
            }
        } else {
            for (t, k) in self.keys.iter_mut() {
                s.ser(t)?;
                s.ser(k)?;
            }
        }
        s.ser(&mut self.range_lock)?;
        s.ser(&mut self.range_begin)?;
        s.ser(&mut self.range_end)?;
        s.ser(&mut self.loop_mode)
    }
}

nel_versioned!(
    /// `CTrackSampledCommon::CTimeBlock`.
    TimeBlock(0) { time_offset: u16, key_offset: u32, times: Vec<u8> }
);

/// `CTrackSampledCommon` fields.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SampledCommon {
    /// None for `CTrackSampledQuat` version 0 (the common part had no version then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    pub loop_mode: Bool,
    pub begin_time: F32,
    pub end_time: F32,
    pub total_range: F32,
    pub oo_total_range: F32,
    pub delta_time: F32,
    pub oo_delta_time: F32,
    pub time_blocks: Vec<TimeBlock>,
}

impl SampledCommon {
    fn serial_v<S: Stream>(&mut self, s: &mut S, versioned: bool) -> Result<(), NelError> {
        if versioned {
            let mut v = self.version.unwrap_or(0);
            s.version(&mut v, 0, "CTrackSampledCommon")?;
            self.version = Some(v);
        } else {
            self.version = None;
        }
        s.ser(&mut self.loop_mode)?;
        s.ser(&mut self.begin_time)?;
        s.ser(&mut self.end_time)?;
        s.ser(&mut self.total_range)?;
        s.ser(&mut self.oo_total_range)?;
        s.ser(&mut self.delta_time)?;
        s.ser(&mut self.oo_delta_time)?;
        s.field("time_blocks", &mut self.time_blocks)
    }
}

/// `CTrackSampledQuat`: quaternions packed as 4 x i16.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TrackSampledQuat {
    pub version: u32,
    pub common: SampledCommon,
    pub keys: Vec<[i16; 4]>,
}

/// `CTrackSampledVector`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TrackSampledVector {
    pub version: u32,
    pub common: SampledCommon,
    pub keys: Vec<Vec3>,
}

type Kf<K> = KeyFramer<K>;

/// Every track class.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "class", content = "track")]
pub enum Track {
    CTrackKeyFramerConstFloat(Kf<KeyPlain<F32>>),
    CTrackKeyFramerConstVector(Kf<KeyPlain<Vec3>>),
    CTrackKeyFramerConstQuat(Kf<KeyPlain<Quat>>),
    CTrackKeyFramerConstInt(Kf<KeyPlain<i32>>),
    CTrackKeyFramerConstRGBA(Kf<KeyPlain<Rgba>>),
    CTrackKeyFramerConstString(Kf<KeyPlain<String>>),
    CTrackKeyFramerConstBool(Kf<KeyPlain<Bool>>),
    CTrackKeyFramerLinearFloat(Kf<KeyPlain<F32>>),
    CTrackKeyFramerLinearVector(Kf<KeyPlain<Vec3>>),
    CTrackKeyFramerLinearQuat(Kf<KeyPlain<Quat>>),
    CTrackKeyFramerLinearInt(Kf<KeyPlain<i32>>),
    CTrackKeyFramerLinearRGBA(Kf<KeyPlain<Rgba>>),
    CTrackKeyFramerTCBFloat(Kf<KeyTcb<F32>>),
    CTrackKeyFramerTCBVector(Kf<KeyTcb<Vec3>>),
    CTrackKeyFramerTCBQuat(Kf<KeyTcb<AngleAxis>>),
    /// Int tracks store float TCB keys.
    CTrackKeyFramerTCBInt(Kf<KeyTcb<F32>>),
    /// RGBA tracks store vector TCB keys.
    CTrackKeyFramerTCBRGBA(Kf<KeyTcb<Vec3>>),
    CTrackKeyFramerBezierFloat(Kf<KeyBezier<F32>>),
    CTrackKeyFramerBezierVector(Kf<KeyBezier<Vec3>>),
    CTrackKeyFramerBezierQuat(Kf<KeyBezierQuat<Quat>>),
    CTrackKeyFramerBezierInt(Kf<KeyBezier<F32>>),
    CTrackKeyFramerBezierRGBA(Kf<KeyBezier<Vec3>>),
    CTrackDefaultFloat(TrackDefaultFloat),
    CTrackDefaultVector(TrackDefaultVector),
    CTrackDefaultQuat(TrackDefaultQuat),
    CTrackDefaultInt(TrackDefaultInt),
    CTrackDefaultString(TrackDefaultString),
    CTrackDefaultBool(TrackDefaultBool),
    CTrackDefaultRGBA(TrackDefaultRgba),
    CTrackSampledQuat(TrackSampledQuat),
    CTrackSampledVector(TrackSampledVector),
}

macro_rules! track_classes {
    ($($v:ident),*) => {
        fn track_create(class: &str) -> Option<Track> {
            Some(match class {
                $(stringify!($v) => Track::$v(Default::default()),)*
                _ => return None,
            })
        }
        fn track_name(t: &Track) -> &'static str {
            match t { $(Track::$v(_) => stringify!($v),)* }
        }
    };
}
track_classes!(
    CTrackKeyFramerConstFloat,
    CTrackKeyFramerConstVector,
    CTrackKeyFramerConstQuat,
    CTrackKeyFramerConstInt,
    CTrackKeyFramerConstRGBA,
    CTrackKeyFramerConstString,
    CTrackKeyFramerConstBool,
    CTrackKeyFramerLinearFloat,
    CTrackKeyFramerLinearVector,
    CTrackKeyFramerLinearQuat,
    CTrackKeyFramerLinearInt,
    CTrackKeyFramerLinearRGBA,
    CTrackKeyFramerTCBFloat,
    CTrackKeyFramerTCBVector,
    CTrackKeyFramerTCBQuat,
    CTrackKeyFramerTCBInt,
    CTrackKeyFramerTCBRGBA,
    CTrackKeyFramerBezierFloat,
    CTrackKeyFramerBezierVector,
    CTrackKeyFramerBezierQuat,
    CTrackKeyFramerBezierInt,
    CTrackKeyFramerBezierRGBA,
    CTrackDefaultFloat,
    CTrackDefaultVector,
    CTrackDefaultQuat,
    CTrackDefaultInt,
    CTrackDefaultString,
    CTrackDefaultBool,
    CTrackDefaultRGBA,
    CTrackSampledQuat,
    CTrackSampledVector
);

fn bez_f() -> KeyBezier<F32> {
    KeyBezier {
        in_tan: Tangent::Float(F32::default()),
        out_tan: Tangent::Float(F32::default()),
        ..Default::default()
    }
}
fn bez_v() -> KeyBezier<Vec3> {
    KeyBezier {
        in_tan: Tangent::Vector(Vec3::default()),
        out_tan: Tangent::Vector(Vec3::default()),
        ..Default::default()
    }
}

impl PolyClass for Track {
    const FAMILY: &'static str = "ITrack";
    fn create(class: &str) -> Option<Self> {
        track_create(class)
    }
    fn class_name(&self) -> &str {
        track_name(self)
    }
    fn serial_body<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        use Track::*;
        match self {
            CTrackKeyFramerConstFloat(t) | CTrackKeyFramerLinearFloat(t) => {
                t.serial_with(s, Default::default)
            }
            CTrackKeyFramerConstVector(t) | CTrackKeyFramerLinearVector(t) => {
                t.serial_with(s, Default::default)
            }
            CTrackKeyFramerConstQuat(t) | CTrackKeyFramerLinearQuat(t) => {
                t.serial_with(s, Default::default)
            }
            CTrackKeyFramerConstInt(t) | CTrackKeyFramerLinearInt(t) => {
                t.serial_with(s, Default::default)
            }
            CTrackKeyFramerConstRGBA(t) | CTrackKeyFramerLinearRGBA(t) => {
                t.serial_with(s, Default::default)
            }
            CTrackKeyFramerConstString(t) => t.serial_with(s, Default::default),
            CTrackKeyFramerConstBool(t) => t.serial_with(s, Default::default),
            CTrackKeyFramerTCBFloat(t) | CTrackKeyFramerTCBInt(t) => {
                t.serial_with(s, Default::default)
            }
            CTrackKeyFramerTCBVector(t) | CTrackKeyFramerTCBRGBA(t) => {
                t.serial_with(s, Default::default)
            }
            CTrackKeyFramerTCBQuat(t) => t.serial_with(s, Default::default),
            CTrackKeyFramerBezierFloat(t) | CTrackKeyFramerBezierInt(t) => t.serial_with(s, bez_f),
            CTrackKeyFramerBezierVector(t) | CTrackKeyFramerBezierRGBA(t) => {
                t.serial_with(s, bez_v)
            }
            CTrackKeyFramerBezierQuat(t) => t.serial_with(s, Default::default),
            CTrackDefaultFloat(t) => t.serial(s),
            CTrackDefaultVector(t) => t.serial(s),
            CTrackDefaultQuat(t) => t.serial(s),
            CTrackDefaultInt(t) => t.serial(s),
            CTrackDefaultString(t) => t.serial(s),
            CTrackDefaultBool(t) => t.serial(s),
            CTrackDefaultRGBA(t) => t.serial(s),
            CTrackSampledQuat(t) => {
                s.version(&mut t.version, 1, "CTrackSampledQuat")?;
                t.common.serial_v(s, t.version >= 1)?;
                s.field("keys", &mut t.keys)
            }
            CTrackSampledVector(t) => {
                s.version(&mut t.version, 0, "CTrackSampledVector")?;
                t.common.serial_v(s, true)?;
                s.field("keys", &mut t.keys)
            }
        }
    }
}

/// Element of `serialContPolyPtr`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(transparent)]
pub struct TrackPtr(pub Ptr<Track>);

impl Serial for TrackPtr {
    const MIN_SIZE: usize = 8;
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.poly(&mut self.0)
    }
}

/// `CAnimation`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Animation {
    pub version: u32,
    pub name: String,
    /// Track name -> index into `tracks`, in stored (sorted) order.
    pub id_by_name: Vec<(String, u32)>,
    pub tracks: Vec<TrackPtr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_end_time: Option<F32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sss_shapes: Option<Vec<String>>,
}

impl Serial for Animation {
    fn serial<S: Stream>(&mut self, s: &mut S) -> Result<(), NelError> {
        s.ctx("CAnimation", |s| {
            s.check(b"NEL_")?;
            s.check(b"ANIM")?;
            s.version(&mut self.version, 2, "CAnimation")?;
            s.ser(&mut self.name)?;
            s.field("id_by_name", &mut self.id_by_name)?;
            s.field("tracks", &mut self.tracks)?;
            opt(s, &mut self.min_end_time, self.version >= 1)?;
            opt(s, &mut self.sss_shapes, self.version >= 2)
        })
    }
}
