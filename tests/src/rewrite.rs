//! Building test inputs from real corpus files through the project's own
//! writers: the Scene stream is parsed into chunks, edited (AppData added to a
//! node, a leaf chunk replaced), written back with `chunk::write`, the file
//! rebuilt with `MaxFile::to_bytes` and reopened as a new document.

use maxfs_scene::chunk::{self, Body, Chunk};
use maxfs_scene::container::MaxFile;
use maxfs_scene::graph::SceneGraph;
use maxfs_scene::typed::ClassId;
use maxfs_scene::Document;

use crate::corpus_dir;

/// The AppData container of an animatable, its count header and entries.
const APPDATA: u16 = 0x2150;
const APPDATA_COUNT: u16 = 0x0100;
const APPDATA_ENTRY: u16 = 0x0110;
const APPDATA_KEY: u16 = 0x0120;
const APPDATA_VALUE: u16 = 0x0130;

/// A scene being edited: the graph of the original file (to find objects)
/// and the Scene stream's objects as chunks, in storage order.
pub struct SceneEdit {
    file: MaxFile,
    top: Vec<Chunk>,
    pub graph: SceneGraph,
}

impl SceneEdit {
    /// Opens `rel` under the corpus for editing.
    pub fn open(rel: &str) -> SceneEdit {
        let file = MaxFile::open(&corpus_dir().join(rel)).expect("opens");
        let graph = Document::from_file(file.clone())
            .typed()
            .scene
            .map(|g| (*g).clone())
            .expect("scene graph");
        let data = &file.stream("Scene").expect("Scene stream").data;
        let top = chunk::parse(data).expect("Scene parses");
        assert_eq!(top.len(), 1, "one scene root chunk");
        SceneEdit { file, top, graph }
    }

    /// The object index of the node named `name`.
    pub fn node(&self, name: &str) -> usize {
        self.graph
            .objects
            .iter()
            .position(|o| o.node.as_ref().is_some_and(|n| n.name == name))
            .unwrap_or_else(|| panic!("no node {name}"))
    }

    /// The object a reference slot of `idx` points to.
    pub fn reference(&self, idx: usize, slot: u32) -> usize {
        self.graph.objects[idx]
            .references
            .iter()
            .find(|r| r.slot == slot)
            .and_then(|r| usize::try_from(r.target).ok())
            .unwrap_or_else(|| panic!("object {idx} has no reference {slot}"))
    }

    fn children(&mut self, idx: usize) -> &mut Vec<Chunk> {
        let Body::Container(objects) = &mut self.top[0].body else {
            panic!("scene root is not a container")
        };
        match &mut objects[idx].body {
            Body::Container(c) => c,
            Body::Leaf(_) => panic!("object {idx} is not a container"),
        }
    }

    /// Adds an AppData entry (string value, NUL-terminated as MAXScript writes
    /// it) to object `idx`, creating its AppData container when needed.
    pub fn add_appdata(&mut self, idx: usize, class: (ClassId, u32), sub_id: u32, text: &str) {
        let mut value = text.as_bytes().to_vec();
        value.push(0);
        let mut key = Vec::new();
        for w in [class.0 .0, class.0 .1, class.1, sub_id, value.len() as u32] {
            key.extend_from_slice(&w.to_le_bytes());
        }
        let entry = Chunk::container(
            APPDATA_ENTRY,
            vec![
                Chunk::leaf(APPDATA_KEY, key),
                Chunk::leaf(APPDATA_VALUE, value),
            ],
        );
        let children = self.children(idx);
        if !children.iter().any(|c| c.id == APPDATA) {
            children.push(Chunk::container(
                APPDATA,
                vec![Chunk::leaf(APPDATA_COUNT, 0u32.to_le_bytes().to_vec())],
            ));
        }
        let Some(Body::Container(entries)) = children
            .iter_mut()
            .find(|c| c.id == APPDATA)
            .map(|c| &mut c.body)
        else {
            panic!("AppData of object {idx} is not a container")
        };
        entries.push(entry);
        let count = entries.iter().filter(|c| c.id == APPDATA_ENTRY).count() as u32;
        if let Some(h) = entries.iter_mut().find(|c| c.id == APPDATA_COUNT) {
            h.body = Body::Leaf(count.to_le_bytes().to_vec().into());
        }
    }

    /// Replaces the payload of object `idx`'s leaf chunk `id` (which must exist).
    pub fn set_leaf(&mut self, idx: usize, id: u16, payload: Vec<u8>) {
        let c = self
            .children(idx)
            .iter_mut()
            .find(|c| c.id == id && !c.is_container())
            .unwrap_or_else(|| panic!("object {idx} has no leaf {id:#06x}"));
        c.body = Body::Leaf(payload.into());
    }

    /// The parameter count of object `idx` when it is a ParamBlock2 (its
    /// 0x0009 header: u32 version, u16 block id, u16, u16, u16 count).
    pub fn pb2_count(&mut self, idx: usize) -> Option<u16> {
        let h = self.children(idx).iter().find(|c| c.id == 0x0009)?;
        let p = h.payload()?;
        Some(u16::from_le_bytes([*p.get(10)?, *p.get(11)?]))
    }

    /// Ids of ParamBlock2 `idx`'s constant parameters stored in 4 bytes
    /// (ints, bools, floats), in record order.
    pub fn pb2_word_constants(&mut self, idx: usize) -> Vec<u16> {
        self.children(idx)
            .iter()
            .filter(|c| c.id == 0x000e || c.id == 0x100e)
            .filter_map(|c| c.payload())
            .filter(|p| p.len() == 19 && p[14] & 0x40 != 0)
            .map(|p| u16::from_le_bytes([p[0], p[1]]))
            .collect()
    }

    /// Sets the constant value of ParamBlock2 `idx`'s parameter `id` (a
    /// 0x000e / 0x100e record: 15 header bytes, then the value) to `value`.
    /// The record must exist and hold a constant of the same width.
    pub fn set_pb2_constant(&mut self, idx: usize, id: u16, value: &[u8]) {
        let c = self
            .children(idx)
            .iter_mut()
            .find(|c| {
                (c.id == 0x000e || c.id == 0x100e)
                    && c.payload()
                        .is_some_and(|p| p.len() >= 15 && u16::from_le_bytes([p[0], p[1]]) == id)
            })
            .unwrap_or_else(|| panic!("ParamBlock2 {idx} has no record for parameter {id}"));
        let mut p = c.payload().expect("leaf").to_vec();
        assert_eq!(p[14] & 0x40, 0x40, "parameter {id} is not a constant");
        assert_eq!(p.len() - 15, value.len(), "parameter {id}: value width");
        p.truncate(15);
        p.extend_from_slice(value);
        c.body = Body::Leaf(p.into());
    }

    /// Writes the edited scene into the file and reopens it.
    pub fn finish(mut self) -> Document {
        let data = chunk::write(&self.top);
        let s = self
            .file
            .streams
            .iter_mut()
            .find(|s| s.name == "Scene")
            .expect("Scene stream");
        s.data = data.into();
        let bytes = self.file.to_bytes().expect("writes");
        Document::from_bytes(&bytes).expect("reopens")
    }
}
