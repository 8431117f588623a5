//! NeL (Ryzom Core engine) binary formats: byte-exact read and write, JSON views.
//!
//! Every format is a typed model whose `serial` method both reads and writes, following
//! NeL's own `IStream` convention; `write_nel(read_nel(x)) == x` for every supported file.

pub mod anim;
pub mod bank;
pub mod clod;
pub mod cmb;
pub mod ig;
pub mod json;
pub mod ligozone;
pub mod pacs;
pub mod pacs_prim;
pub mod ps;
pub mod shape;
pub mod skel;
pub mod stream;
pub mod swt;
pub mod veget;
pub mod zone;
pub mod zone_build;

use serde::Serialize;
use thiserror::Error;

use stream::{Reader, Serial, Writer};

/// Why a NeL file could not be read or written.
#[derive(Debug, Error)]
pub enum NelError {
    #[error("{path}: {what} (at offset 0x{offset:x})")]
    Format {
        offset: usize,
        path: String,
        what: String,
    },
    #[error("{path}: {class}: unknown version {version} (this reader knows up to {max}) at offset 0x{offset:x}"
    )]
    UnknownVersion {
        path: String,
        class: String,
        version: u32,
        max: u32,
        offset: usize,
    },
    #[error("{path}: unsupported {family} class {class:?} at offset 0x{offset:x}")]
    UnsupportedClass {
        class: String,
        family: &'static str,
        offset: usize,
        path: String,
    },
    #[error("{left} unread bytes after the end of the structure at offset 0x{offset:x}")]
    Trailing { offset: usize, left: usize },
    #[error("not a recognised NeL file: {0}")]
    Unrecognized(String),
    #[error("inconsistent model: {0}")]
    Model(String),
    #[error("JSON encoding failed: {0}")]
    Json(String),
}

/// Which NeL format a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum NelKind {
    /// `.shape` (also any shape stream that is not a skeleton or particle system).
    Shape,
    /// `.skel`.
    Skeleton,
    /// `.ps`.
    ParticleSystem,
    /// `.anim`.
    Animation,
    /// `.swt`.
    SkeletonWeight,
    /// `.ig`.
    InstanceGroup,
    /// `.zone`, `.zonel` (lit), `.zonew` (welded).
    Zone,
    /// `.bank`.
    TileBank,
    /// `.farbank`.
    TileFarBank,
    /// `.gr` (PACS global retriever).
    GlobalRetriever,
    /// `.ligozone` (XML).
    LigoZone,
    /// `.veget` (`CVegetableShape`).
    Vegetable,
    /// `.cmb` (PACS `CCollisionMeshBuild`).
    CollisionMeshBuild,
    /// `.pacs_prim` (PACS `CPrimitiveBlock`, binary form).
    PrimitiveBlock,
    /// `.clod` (`CLodCharacterShapeBuild`, or a built `CLodCharacterShape`).
    LodCharacter,
}

impl NelKind {
    /// Every format this crate reads.
    pub const ALL: [NelKind; 15] = [
        NelKind::Shape,
        NelKind::Skeleton,
        NelKind::ParticleSystem,
        NelKind::Animation,
        NelKind::SkeletonWeight,
        NelKind::InstanceGroup,
        NelKind::Zone,
        NelKind::TileBank,
        NelKind::TileFarBank,
        NelKind::GlobalRetriever,
        NelKind::LigoZone,
        NelKind::Vegetable,
        NelKind::CollisionMeshBuild,
        NelKind::PrimitiveBlock,
        NelKind::LodCharacter,
    ];

    /// Short lowercase name used in tables and tests.
    pub fn name(self) -> &'static str {
        match self {
            NelKind::Shape => "shape",
            NelKind::Skeleton => "skel",
            NelKind::ParticleSystem => "ps",
            NelKind::Animation => "anim",
            NelKind::SkeletonWeight => "swt",
            NelKind::InstanceGroup => "ig",
            NelKind::Zone => "zone",
            NelKind::TileBank => "bank",
            NelKind::TileFarBank => "farbank",
            NelKind::GlobalRetriever => "gr",
            NelKind::LigoZone => "ligozone",
            NelKind::Vegetable => "veget",
            NelKind::CollisionMeshBuild => "cmb",
            NelKind::PrimitiveBlock => "pacs_prim",
            NelKind::LodCharacter => "clod",
        }
    }
}

/// A decoded NeL file.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "format", content = "data", rename_all = "snake_case")]
pub enum NelFile {
    /// `.shape`, `.skel`, `.ps`: a shape stream.
    Shape(shape::ShapeStream),
    Animation(anim::Animation),
    SkeletonWeight(swt::SkeletonWeight),
    InstanceGroup(ig::InstanceGroup),
    Zone(zone::Zone),
    TileBank(bank::TileBank),
    TileFarBank(bank::TileFarBank),
    GlobalRetriever(pacs::GlobalRetriever),
    LigoZone(ligozone::LigoZone),
    Vegetable(veget::VegetableShape),
    CollisionMeshBuild(cmb::CollisionMeshBuild),
    PrimitiveBlock(pacs_prim::PrimitiveBlock),
    LodCharacterShapeBuild(clod::LodCharacterShapeBuild),
    LodCharacterShape(clod::LodCharacterShape),
}

/// File extensions of the formats read here: what a directory walk picks up
/// (every one of them is recognised by [`detect`] from the name alone).
pub const EXTENSIONS: &[&str] = &[
    "shape",
    "skel",
    "anim",
    "swt",
    "ig",
    "zone",
    "zonel",
    "zonew",
    "ps",
    "bank",
    "farbank",
    "gr",
    "ligozone",
    "veget",
    "cmb",
    "pacs_prim",
    "clod",
];

fn ext_of(file_name: &str) -> String {
    file_name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

/// Guess the format from the magic bytes, then the file extension.
pub fn detect(bytes: &[u8], file_name: &str) -> Option<NelKind> {
    let ext = ext_of(file_name);
    if bytes.starts_with(b"SHAP") {
        let class = shape_class_name(bytes).unwrap_or_default();
        return Some(match class.as_str() {
            "CSkeletonShape" => NelKind::Skeleton,
            "CParticleSystemShape" => NelKind::ParticleSystem,
            _ => match ext.as_str() {
                "skel" => NelKind::Skeleton,
                "ps" => NelKind::ParticleSystem,
                _ => NelKind::Shape,
            },
        });
    }
    if bytes.starts_with(b"NEL_ANIM") {
        return Some(NelKind::Animation);
    }
    if bytes.starts_with(b"SKWT") {
        return Some(NelKind::SkeletonWeight);
    }
    if bytes.starts_with(b"GRPT") {
        return Some(NelKind::InstanceGroup);
    }
    if bytes.starts_with(b"FAR_BANK") {
        return Some(NelKind::TileFarBank);
    }
    if bytes.get(4..8) == Some(b"BANK") && bytes.starts_with(&[4, 0, 0, 0]) {
        return Some(NelKind::TileBank);
    }
    if bytes.get(1..5) == Some(b"ZONE") {
        return Some(NelKind::Zone);
    }
    if bytes.get(1..17) == Some(veget::MAGIC) {
        return Some(NelKind::Vegetable);
    }
    if bytes.starts_with(b"PRBK") {
        return Some(NelKind::PrimitiveBlock);
    }
    if bytes.starts_with(b"NEL_CLOD") {
        return Some(NelKind::LodCharacter);
    }
    match ext.as_str() {
        "zone" | "zonel" | "zonew" => Some(NelKind::Zone),
        "gr" => Some(NelKind::GlobalRetriever),
        "ligozone" => Some(NelKind::LigoZone),
        "bank" => Some(NelKind::TileBank),
        "farbank" => Some(NelKind::TileFarBank),
        "anim" => Some(NelKind::Animation),
        "swt" => Some(NelKind::SkeletonWeight),
        "ig" => Some(NelKind::InstanceGroup),
        "shape" => Some(NelKind::Shape),
        "skel" => Some(NelKind::Skeleton),
        "ps" => Some(NelKind::ParticleSystem),
        "veget" => Some(NelKind::Vegetable),
        "cmb" => Some(NelKind::CollisionMeshBuild),
        "pacs_prim" => Some(NelKind::PrimitiveBlock),
        "clod" => Some(NelKind::LodCharacter),
        _ => None,
    }
}

/// Class name stored in a shape stream header, without decoding the rest.
pub fn shape_class_name(bytes: &[u8]) -> Option<String> {
    let n = u32::from_le_bytes(bytes.get(12..16)?.try_into().ok()?) as usize;
    let name = bytes.get(16..16usize.checked_add(n)?)?;
    Some(String::from_utf8_lossy(name).into_owned())
}

fn read_all<T: Serial + Default>(bytes: &[u8]) -> Result<T, NelError> {
    let mut r = Reader::new(bytes);
    let mut v = T::default();
    v.serial(&mut r)?;
    r.finish()?;
    Ok(v)
}

fn write_all<T: Serial + Clone>(v: &T) -> Result<Vec<u8>, NelError> {
    let mut w = Writer::new();
    // `serial` takes `&mut self` for both directions; writing never changes the model.
    let mut c = v.clone();
    c.serial(&mut w)?;
    Ok(w.into_bytes())
}

/// Decode a NeL file (format from [`detect`]).
pub fn read_nel(bytes: &[u8], file_name: &str) -> Result<NelFile, NelError> {
    let kind = detect(bytes, file_name).ok_or_else(|| {
        NelError::Unrecognized(format!("{file_name}: no known magic or extension"))
    })?;
    read_kind(bytes, kind)
}

/// Decode `bytes` as the given format.
pub fn read_kind(bytes: &[u8], kind: NelKind) -> Result<NelFile, NelError> {
    Ok(match kind {
        NelKind::Shape | NelKind::Skeleton | NelKind::ParticleSystem => {
            NelFile::Shape(read_all(bytes)?)
        }
        NelKind::Animation => NelFile::Animation(read_all(bytes)?),
        NelKind::SkeletonWeight => NelFile::SkeletonWeight(read_all(bytes)?),
        NelKind::InstanceGroup => NelFile::InstanceGroup(read_all(bytes)?),
        NelKind::Zone => NelFile::Zone(read_all(bytes)?),
        NelKind::TileBank => NelFile::TileBank(read_all(bytes)?),
        NelKind::TileFarBank => NelFile::TileFarBank(read_all(bytes)?),
        NelKind::GlobalRetriever => NelFile::GlobalRetriever(read_all(bytes)?),
        NelKind::LigoZone => NelFile::LigoZone(ligozone::LigoZone::read(bytes)?),
        NelKind::Vegetable => NelFile::Vegetable(read_all(bytes)?),
        NelKind::CollisionMeshBuild => NelFile::CollisionMeshBuild(read_all(bytes)?),
        NelKind::PrimitiveBlock => {
            if pacs_prim::looks_like_xml(bytes) {
                return Err(NelError::Format {
                    offset: 0,
                    path: "CPrimitiveBlock".into(),
                    what:
                        "XML form (written by NeL's COXml) is not supported, only the binary form"
                            .into(),
                });
            }
            NelFile::PrimitiveBlock(read_all(bytes)?)
        }
        NelKind::LodCharacter => {
            if bytes.get(8..12) == Some(b"SHAP") {
                NelFile::LodCharacterShape(read_all(bytes)?)
            } else {
                NelFile::LodCharacterShapeBuild(read_all(bytes)?)
            }
        }
    })
}

/// Encode a decoded NeL file back to bytes.
pub fn write_nel(file: &NelFile) -> Result<Vec<u8>, NelError> {
    match file {
        NelFile::Shape(x) => write_all(x),
        NelFile::Animation(x) => write_all(x),
        NelFile::SkeletonWeight(x) => write_all(x),
        NelFile::InstanceGroup(x) => write_all(x),
        NelFile::Zone(x) => write_all(x),
        NelFile::TileBank(x) => write_all(x),
        NelFile::TileFarBank(x) => write_all(x),
        NelFile::GlobalRetriever(x) => write_all(x),
        NelFile::LigoZone(x) => Ok(x.write()),
        NelFile::Vegetable(x) => write_all(x),
        NelFile::CollisionMeshBuild(x) => write_all(x),
        NelFile::PrimitiveBlock(x) => write_all(x),
        NelFile::LodCharacterShapeBuild(x) => write_all(x),
        NelFile::LodCharacterShape(x) => write_all(x),
    }
}

/// The JSON view of a NeL file; large arrays are summarized unless `full`.
pub fn nel_json(bytes: &[u8], file_name: &str, full: bool) -> Result<String, NelError> {
    let f = read_nel(bytes, file_name)?;
    json::to_json(&f, full)
}

/// One row of `maxfs nel`: what a file is and how big its main parts are.
#[derive(Debug, Clone, Serialize)]
pub struct NelSummary {
    pub kind: NelKind,
    /// Main class name (shape class, "CAnimation", "CZone", …).
    pub class: String,
    pub version: u32,
    /// Named counts, e.g. ("vertices", 1234).
    pub counts: Vec<(String, u64)>,
}

/// Summarize a NeL file (type, version, main counts).
pub fn nel_summary(bytes: &[u8], file_name: &str) -> Result<NelSummary, NelError> {
    let kind = detect(bytes, file_name).ok_or_else(|| {
        NelError::Unrecognized(format!("{file_name}: no known magic or extension"))
    })?;
    let f = read_nel(bytes, file_name)?;
    let (class, version, counts) = summary::of(&f);
    Ok(NelSummary {
        kind,
        class,
        version,
        counts,
    })
}

mod summary;

#[cfg(test)]
mod extension_tests {
    use super::*;

    #[test]
    fn every_walked_extension_is_detected_by_name() {
        for ext in EXTENSIONS {
            assert!(
                detect(&[], &format!("x.{ext}")).is_some(),
                "{ext} is walked but not detected"
            );
        }
    }
}
