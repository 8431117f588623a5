//! Which chunk ids mean what, per context. This is the single place that gives a
//! chunk a type; everything not named here stays raw and round-trips verbatim.

use super::tree::LeafKind;

/// Superclass of nodes (INode); their name/parent/transform chunks are typed.
pub const SUPERCLASS_NODE: u32 = 0x1;

/// Not a Max superclass: the schema key `directories::superclasses` gives the
/// RklPatch class (a geometry object, sc 0x10) so its chunks are typed without
/// touching other geometry classes that may reuse the ids.
pub const RKLPATCH_SCHEMA: u32 = 0x8000_0010;

/// Where in which stream a chunk sits, which decides how its children are typed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ctx<'a> {
    /// A stream with no typed schema: everything raw.
    Opaque,
    DllDirectory,
    DllEntry,
    ClassDirectory,
    ClassEntry,
    ClassData,
    ClassDataEntry,
    Config,
    ConfigTable,
    ConfigTableEntry,
    ConfigScript,
    ConfigScriptEntry,
    /// The recursive ConfigScript value container.
    ConfigMeta,
    TimeConfig,
    /// Top of the Scene stream: one container whose id is the Max version.
    SceneRoot(&'a [u32]),
    /// The scene class container: one child per object, id = class directory index.
    SceneClasses(&'a [u32]),
    /// A scene object of the given superclass (None when its class is unknown).
    Object(Option<u32>),
    AppData,
    AppDataEntry,
    NoteTrack,
    /// One RklPatch PatchMesh patch (0x0BF4).
    RklPatchPatch,
}

/// OSM and WSM derived objects have no class directory entry; their chunk ids are fixed.
pub const DERIVED_OSM: u16 = 0x2032;
pub const DERIVED_WSM: u16 = 0x2033;

impl<'a> Ctx<'a> {
    /// The context for a stream's top level; `superclasses` is indexed by class directory index.
    pub fn for_stream(name: &str, superclasses: &'a [u32]) -> Ctx<'a> {
        match name {
            "DllDirectory" => Ctx::DllDirectory,
            "ClassDirectory3" | "ClassDirectory2" | "ClassDirectory" => Ctx::ClassDirectory,
            "ClassData" => Ctx::ClassData,
            "Config" => Ctx::Config,
            "Scene" => Ctx::SceneRoot(superclasses),
            _ => Ctx::Opaque,
        }
    }

    /// The context of a child container, or None to keep it raw.
    pub fn container(&self, id: u16) -> Option<Ctx<'a>> {
        use Ctx::*;
        Some(match (self, id) {
            // Max 2023's zstd streams wrap a stream's top level in one container
            // (crate::zstd_stream); inside it the stream's own context holds.
            (DllDirectory, 0x2203) => DllDirectory,
            (ClassDirectory, 0x2204) => ClassDirectory,
            (ClassData, 0x2205) => ClassData,
            (Config, 0x2206) => Config,
            (DllDirectory, 0x2038) => DllEntry,
            (ClassDirectory, 0x2040) => ClassEntry,
            (ClassData, 0x2100) => ClassDataEntry,
            (Config, 0x20a0) => ConfigTable,
            (Config, 0x2180) => ConfigScript,
            (Config, 0x20b0) => TimeConfig,
            (ConfigTable, 0x0110) => ConfigTableEntry,
            (ConfigScript, 0x0040) => ConfigScriptEntry,
            (ConfigScriptEntry, 0x0007) | (ConfigMeta, 0x0007) => ConfigMeta,
            (SceneRoot(sc), _) => SceneClasses(sc),
            (SceneClasses(_), DERIVED_OSM | DERIVED_WSM) => Object(Some(0)),
            (SceneClasses(sc), _) => Object(sc.get(usize::from(id)).copied()),
            (Object(_), 0x2150) => AppData,
            (Object(_), 0x2140) => NoteTrack,
            (AppData, 0x0110) => AppDataEntry,
            (Object(Some(RKLPATCH_SCHEMA)), 0x0BF4) => RklPatchPatch,
            _ => return None,
        })
    }

    /// The layout of a child leaf, or None to keep it raw.
    pub fn leaf(&self, id: u16) -> Option<LeafKind> {
        use Ctx::*;
        use LeafKind as K;
        Some(match (self, id) {
            (DllDirectory, 0x21c0) => K::U32,
            (DllEntry, 0x2039 | 0x2037) => K::Str,
            (ClassEntry, 0x2060) => K::ClassHeader,
            (ClassEntry, 0x2042) => K::Str,
            (ClassDataEntry, 0x2110) => K::ClassIdSuper,
            (Config, 0x2090) => K::I32,
            (ConfigTable, 0x0100) => K::I32,
            (
                ConfigTableEntry,
                0x0100 | 0x0110 | 0x0120 | 0x0130 | 0x0140 | 0x0150 | 0x0160 | 0x0161 | 0x0170
                | 0x0180 | 0x0190 | 0x0200 | 0x0210 | 0x0220 | 0x0230 | 0x0240 | 0x0250 | 0x0270
                | 0x0280 | 0x0310 | 0x0320,
            ) => K::I32,
            (ConfigTableEntry, 0x0260) => K::I64,
            (ConfigTableEntry, 0x0290 | 0x0390) => K::Str,
            (ConfigScriptEntry, 0x0050) => K::SuperClassId,
            (ConfigMeta, 0x0001 | 0x0060) => K::U32,
            (ConfigMeta, 0x0003) => K::I32,
            (ConfigMeta, 0x0004) => K::F32,
            (ConfigMeta, 0x0005 | 0x0006) => K::MetaStr,
            (ConfigMeta, 0x0008) => K::F32s(3),
            (TimeConfig, 0x0010 | 0x0060 | 0x0070) => K::I32,
            (Object(_), 0x2034) => K::RefArray,
            (Object(_), 0x2035) => K::RefPairs,
            (Object(Some(SUPERCLASS_NODE)), 0x09ce) => K::U32,
            (Object(Some(SUPERCLASS_NODE)), 0x0960) => K::NodeParent,
            (Object(Some(SUPERCLASS_NODE)), 0x0962) => K::Str,
            (Object(Some(SUPERCLASS_NODE)), 0x096a) => K::F32s(3),
            (Object(Some(SUPERCLASS_NODE)), 0x096b) => K::F32s(4),
            (Object(Some(SUPERCLASS_NODE)), 0x096c) => K::F32s(7),
            (AppData, 0x0100) => K::U32,
            (AppDataEntry, 0x0120) => K::AppDataKey,
            (NoteTrack, 0x0130 | 0x0110) => K::U32,
            (NoteTrack, 0x0100) => K::I32,
            (NoteTrack, 0x0120) => K::Str,
            (Object(Some(RKLPATCH_SCHEMA)), 0x08FD) => K::Rpo,
            (Object(Some(RKLPATCH_SCHEMA)), 0x0BD6 | 0x0BC2 | 0x0BD1 | 0x0BEA) => K::U32,
            (Object(Some(RKLPATCH_SCHEMA)), 0x0BE0) => K::PatchVerts,
            (Object(Some(RKLPATCH_SCHEMA)), 0x0BCC) => K::PatchVecs,
            (Object(Some(RKLPATCH_SCHEMA)), 0x0BD2) => K::PatchEdges,
            (RklPatchPatch, 0x0100 | 0x0150 | 0x0160) => K::U32,
            (RklPatchPatch, 0x0110 | 0x0130 | 0x0140) => K::I32s(4),
            (RklPatchPatch, 0x0120) => K::I32s(8),
            _ => return None,
        })
    }
}
