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
const PARAM_BLOCK2: ClassId = ClassId(0x82, 0);
/// The ParamBlock of modifiers older than ParamBlock2 (Relax, Bevel, Noise…).
const OLD_PARAM_BLOCK: ClassId = ClassId(0x8, 0);

/// A value of an old ParamBlock's parameter, stored as a 0x0002 entry of
/// its index and a value chunk whose id gives the type.
#[derive(Clone, Copy, Debug)]
pub enum OldParam {
    Float(f32),
    Int(i32),
    Point3([f32; 3]),
}

impl OldParam {
    fn chunk(self, index: usize) -> Chunk {
        let (id, bytes) = match self {
            OldParam::Float(v) => (0x0100, v.to_le_bytes().to_vec()),
            OldParam::Int(v) => (0x0101, v.to_le_bytes().to_vec()),
            OldParam::Point3(p) => (0x0103, p.iter().flat_map(|v| v.to_le_bytes()).collect()),
        };
        Chunk::container(
            0x0002,
            vec![
                Chunk::leaf(0x0003, (index as i32).to_le_bytes().to_vec()),
                Chunk::leaf(id, bytes),
            ],
        )
    }
}
/// Super class of object-space modifiers.
const OSM: u32 = 0x810;

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
        SceneEdit::from_file(MaxFile::open(&corpus_dir().join(rel)).expect("opens"))
    }

    /// Edits an already opened file (e.g. a synthetic source's bytes).
    pub fn from_file(file: MaxFile) -> SceneEdit {
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
        self.add_appdata_bytes(idx, class, sub_id, value);
    }

    /// Adds an AppData entry holding `value` as raw bytes (a plug-in's own
    /// data, such as an int flag) to object `idx`.
    pub fn add_appdata_bytes(
        &mut self,
        idx: usize,
        class: (ClassId, u32),
        sub_id: u32,
        value: Vec<u8>,
    ) {
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

    /// Sets leaf `id` inside the container reached from object `idx` through
    /// the container ids `path` (first match at each level), replacing the
    /// leaf or appending it.
    pub fn put_nested_leaf(&mut self, idx: usize, path: &[u16], id: u16, payload: Vec<u8>) {
        let mut cur = self.children(idx);
        for &p in path {
            let c = cur
                .iter_mut()
                .find(|c| c.id == p && c.is_container())
                .unwrap_or_else(|| panic!("object {idx} has no container {p:#06x} on {path:x?}"));
            let Body::Container(kids) = &mut c.body else {
                unreachable!("checked to be a container")
            };
            cur = kids;
        }
        match cur.iter_mut().find(|c| c.id == id && !c.is_container()) {
            Some(c) => c.body = Body::Leaf(payload.into()),
            None => cur.push(Chunk::leaf(id, payload)),
        }
    }

    /// Appends a class to the ClassDirectory stream (0x2040 entry: 0x2060
    /// header {dll index, class id, superclass}, 0x2042 UTF-16 name) and
    /// returns its index, the chunk id of objects of that class.
    pub fn add_class(&mut self, dll: i32, class: ClassId, super_class: u32, name: &str) -> u16 {
        let mut dir = self.class_directory();
        let index = dir.iter().filter(|c| c.id == 0x2040).count();
        let mut header = Vec::new();
        for w in [dll as u32, class.0, class.1, super_class] {
            header.extend_from_slice(&w.to_le_bytes());
        }
        let name: Vec<u8> = name.encode_utf16().flat_map(u16::to_le_bytes).collect();
        dir.push(Chunk::container(
            0x2040,
            vec![Chunk::leaf(0x2060, header), Chunk::leaf(0x2042, name)],
        ));
        self.set_class_directory(dir);
        u16::try_from(index).expect("class index fits a chunk id")
    }

    /// The class index (object chunk id) of the first class with this id.
    pub fn class_index(&self, class: ClassId) -> Option<u16> {
        self.class_where(|p| {
            p.len() >= 12 && p[4..8] == class.0.to_le_bytes() && p[8..12] == class.1.to_le_bytes()
        })
    }

    /// The class index of the class with this id and superclass (class ids
    /// are unique per superclass only).
    pub fn class_index_of(&self, class: ClassId, super_class: u32) -> Option<u16> {
        self.class_where(|p| {
            p.len() >= 16
                && p[4..8] == class.0.to_le_bytes()
                && p[8..12] == class.1.to_le_bytes()
                && p[12..16] == super_class.to_le_bytes()
        })
    }

    /// The index of the first ClassDirectory entry whose 0x2060 header
    /// (dll index, class id, superclass) satisfies `matches`.
    fn class_where(&self, matches: impl Fn(&[u8]) -> bool) -> Option<u16> {
        self.class_directory()
            .iter()
            .filter(|c| c.id == 0x2040)
            .position(|c| {
                c.children()
                    .iter()
                    .any(|k| k.id == 0x2060 && k.payload().is_some_and(&matches))
            })
            .map(|i| u16::try_from(i).expect("class index fits a chunk id"))
    }

    fn class_directory(&self) -> Vec<Chunk> {
        let s = self
            .file
            .streams
            .iter()
            .find(|s| s.name.starts_with("ClassDirectory"))
            .expect("class directory stream");
        chunk::parse(&s.data).expect("class directory parses")
    }

    fn set_class_directory(&mut self, dir: Vec<Chunk>) {
        let s = self
            .file
            .streams
            .iter_mut()
            .find(|s| s.name.starts_with("ClassDirectory"))
            .expect("class directory stream");
        s.data = chunk::write(&dir).into();
    }

    /// Appends an object (chunk id = its class index) to the scene and
    /// returns its index.
    pub fn add_object(&mut self, class_index: u16, children: Vec<Chunk>) -> usize {
        let Body::Container(objects) = &mut self.top[0].body else {
            panic!("scene root is not a container")
        };
        objects.push(Chunk::container(class_index, children));
        objects.len() - 1
    }

    /// Gives object `idx` the class of class-directory entry `class_index`
    /// (its chunk id), keeping its chunks.
    pub fn set_object_class(&mut self, idx: usize, class_index: u16) {
        let Body::Container(objects) = &mut self.top[0].body else {
            panic!("scene root is not a container")
        };
        objects[idx].id = class_index;
    }

    /// Appends an old ParamBlock holding `params` (index order) and returns
    /// its index; the scene must already use the class.
    pub fn add_old_param_block(&mut self, params: &[OldParam]) -> usize {
        let class = self
            .class_index_of(OLD_PARAM_BLOCK, 0x8)
            .expect("the scene has old ParamBlocks");
        let chunks = params.iter().enumerate().map(|(i, p)| p.chunk(i)).collect();
        self.add_object(class, chunks)
    }

    /// The chunks of object `idx` (a copy).
    pub fn object_chunks(&mut self, idx: usize) -> Vec<Chunk> {
        self.children(idx).clone()
    }

    /// The payload of object `idx`'s leaf chunk `id` (a copy), if it has one.
    pub fn leaf(&mut self, idx: usize, id: u16) -> Option<Vec<u8>> {
        self.children(idx)
            .iter()
            .find(|c| c.id == id && !c.is_container())
            .and_then(|c| c.payload().map(<[u8]>::to_vec))
    }

    /// Points reference `slot` of object `idx` at `target`, in whichever
    /// reference chunk the object stores (0x2034 array or 0x2035 pairs).
    pub fn set_reference(&mut self, idx: usize, slot: u32, target: i32) {
        let children = self.children(idx);
        let c = children
            .iter_mut()
            .find(|c| (c.id == 0x2034 || c.id == 0x2035) && !c.is_container())
            .unwrap_or_else(|| panic!("object {idx} has no reference chunk"));
        let mut words: Vec<i32> = c
            .payload()
            .expect("leaf")
            .chunks_exact(4)
            .map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        if c.id == 0x2034 {
            if words.len() <= slot as usize {
                words.resize(slot as usize + 1, -1);
            }
            words[slot as usize] = target;
        } else if let Some(pair) = words[1..].chunks_exact_mut(2).find(|p| p[0] == slot as i32) {
            pair[1] = target;
        } else {
            // A slot the object did not store (null references are left out).
            words.extend([slot as i32, target]);
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        c.body = Body::Leaf(bytes.into());
    }

    /// Replaces the chunks of object `idx`.
    pub fn set_object_chunks(&mut self, idx: usize, chunks: Vec<Chunk>) {
        *self.children(idx) = chunks;
    }

    /// Adds a reference from object `idx` to `target` after its last slot
    /// (creating its 0x2034 reference array when it has none) and returns
    /// the new slot.
    pub fn append_reference(&mut self, idx: usize, target: i32) -> u32 {
        let children = self.children(idx);
        let Some(c) = children
            .iter_mut()
            .find(|c| (c.id == 0x2034 || c.id == 0x2035) && !c.is_container())
        else {
            children.push(Chunk::leaf(0x2034, target.to_le_bytes().to_vec()));
            return 0;
        };
        let mut words: Vec<i32> = c
            .payload()
            .expect("leaf")
            .chunks_exact(4)
            .map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let slot = if c.id == 0x2034 {
            words.push(target);
            words.len() as u32 - 1
        } else {
            let next = words[1..]
                .chunks_exact(2)
                .map(|p| p[0] + 1)
                .max()
                .unwrap_or(0);
            words.extend([next, target]);
            next as u32
        };
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        c.body = Body::Leaf(bytes.into());
        slot
    }

    /// Turns ParamBlock2 `idx`'s constant parameter `id` into a
    /// controller-driven one (constant flag cleared, value dropped).
    pub fn unset_pb2_constant(&mut self, idx: usize, id: u16) {
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
        p.truncate(15);
        p[14] &= !0x40;
        c.body = Body::Leaf(p.into());
    }

    /// Turns ParamBlock2 `idx`'s controller-driven parameter `id` into a
    /// constant holding `value` (constant flag set, record header kept);
    /// the controller stays in the block's references, unused.
    pub fn make_pb2_constant(&mut self, idx: usize, id: u16, value: &[u8]) {
        let (c, h) = self.pb2_record(idx, id, 0);
        let mut p = c.payload().expect("leaf").to_vec();
        p.truncate(h);
        p[h - 1] |= 0x40;
        p.extend_from_slice(value);
        c.body = Body::Leaf(p.into());
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

    /// ParamBlock2 `idx`'s value record of parameter `id` holding at least
    /// `extra` bytes after its header, and that header's length: 0x000e /
    /// 0x100e records have 15 bytes, Max 3's 0x000a 11.
    fn pb2_record(&mut self, idx: usize, id: u16, extra: usize) -> (&mut Chunk, usize) {
        let hdr = |c: &Chunk| if c.id == 0x000a { 11 } else { 15 };
        let c = self
            .children(idx)
            .iter_mut()
            .find(|c| {
                matches!(c.id, 0x000e | 0x100e | 0x000a)
                    && c.payload().is_some_and(|p| {
                        p.len() >= hdr(c) + extra && u16::from_le_bytes([p[0], p[1]]) == id
                    })
            })
            .unwrap_or_else(|| panic!("ParamBlock2 {idx} has no record for parameter {id}"));
        let h = hdr(c);
        (c, h)
    }

    /// Sets the constant value of ParamBlock2 `idx`'s parameter `id` (a
    /// 0x000e / 0x100e record: 15 header bytes, or Max 3's 0x000a: 11, then
    /// the value) to `value`. The record must exist and hold a constant of
    /// the same width.
    pub fn set_pb2_constant(&mut self, idx: usize, id: u16, value: &[u8]) {
        let (c, h) = self.pb2_record(idx, id, 0);
        let mut p = c.payload().expect("leaf").to_vec();
        assert_eq!(p[h - 1] & 0x40, 0x40, "parameter {id} is not a constant");
        assert_eq!(p.len() - h, value.len(), "parameter {id}: value width");
        p.truncate(h);
        p.extend_from_slice(value);
        c.body = Body::Leaf(p.into());
    }

    /// Sets element `k` of ParamBlock2 `idx`'s tab parameter `id` (four-byte
    /// elements: a u32 count, then per element a flag byte and its value) to
    /// `value`. The element must exist and be stored, not driven.
    pub fn set_pb2_tab_word(&mut self, idx: usize, id: u16, k: usize, value: [u8; 4]) {
        let (c, h) = self.pb2_record(idx, id, 4);
        let mut p = c.payload().expect("leaf").to_vec();
        let n = u32::from_le_bytes([p[h], p[h + 1], p[h + 2], p[h + 3]]) as usize;
        assert!(k < n, "parameter {id}: element {k} of {n}");
        let at = h + 4 + k * 5;
        assert!(p.len() >= at + 5, "parameter {id}: elements of five bytes");
        p[at + 1..at + 5].copy_from_slice(&value);
        c.body = Body::Leaf(p.into());
    }

    /// Sets the constant string of ParamBlock2 `idx`'s parameter `id` to
    /// `text`, in the encoding the record stores (u32 byte count, then UTF-16
    /// when the stored text is, else 8-bit); the length may change. Records
    /// are 0x000e / 0x100e (15-byte header) or Max 3's 0x000a (11 bytes).
    pub fn set_pb2_string(&mut self, idx: usize, id: u16, text: &str) {
        let (c, h) = self.pb2_record(idx, id, 4);
        let mut p = c.payload().expect("leaf").to_vec();
        assert_eq!(p[h - 1] & 0x40, 0x40, "parameter {id} is not a constant");
        let n = u32::from_le_bytes([p[h], p[h + 1], p[h + 2], p[h + 3]]) as usize;
        let old = &p[h + 4..];
        assert!(n <= old.len(), "parameter {id}: string length {n}");
        let wide =
            n >= 2 && n.is_multiple_of(2) && old[..n].iter().skip(1).step_by(2).all(|&b| b == 0);
        let body: Vec<u8> = if wide {
            text.encode_utf16().flat_map(u16::to_le_bytes).collect()
        } else {
            text.as_bytes().to_vec()
        };
        p.truncate(h);
        p.extend_from_slice(&(body.len() as u32).to_le_bytes());
        p.extend_from_slice(&body);
        c.body = Body::Leaf(p.into());
    }

    /// Copies object `idx` of `src` with every object its references reach
    /// (nodes excepted: such references become −1) to the end of this
    /// scene, adding the classes it lacks, and returns the copy of `idx`.
    /// Reference targets and ParamBlock2 owners are renumbered. Returns
    /// (old index, new index) of every copied object, `idx` first.
    pub fn transplant(&mut self, src: &mut SceneEdit, idx: usize) -> Vec<(usize, usize)> {
        let mut order = vec![idx];
        let mut k = 0;
        while k < order.len() {
            let o = &src.graph.objects[order[k]];
            for r in &o.references {
                if let Ok(t) = usize::try_from(r.target) {
                    let is_node = src.graph.objects.get(t).is_some_and(|x| x.node.is_some());
                    if !is_node && !order.contains(&t) && t < src.graph.objects.len() {
                        order.push(t);
                    }
                }
            }
            k += 1;
        }
        let base = match &self.top[0].body {
            Body::Container(objects) => objects.len(),
            Body::Leaf(_) => panic!("scene root is not a container"),
        };
        let new_of = |old: i32| -> i32 {
            usize::try_from(old)
                .ok()
                .and_then(|o| order.iter().position(|&x| x == o))
                .map_or(-1, |p| (base + p) as i32)
        };
        for &old in &order {
            let class = src.graph.objects[old].class.clone().expect("class");
            let ci = self
                .class_index_of(class.class_id, class.super_class)
                .unwrap_or_else(|| {
                    self.add_class(-1, class.class_id, class.super_class, &class.name)
                });
            let chunks = src
                .object_chunks(old)
                .into_iter()
                .map(|mut c| {
                    if (c.id == 0x2034 || c.id == 0x2035) && !c.is_container() {
                        let mut words: Vec<i32> = c
                            .payload()
                            .expect("leaf")
                            .chunks_exact(4)
                            .map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                            .collect();
                        if c.id == 0x2034 {
                            words.iter_mut().for_each(|w| *w = new_of(*w));
                        } else {
                            for p in words[1..].chunks_exact_mut(2) {
                                p[1] = new_of(p[1]);
                            }
                        }
                        let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                        c.body = Body::Leaf(b.into());
                    } else if c.id == 0x0009 && !c.is_container() {
                        let mut h = c.payload().expect("leaf").to_vec();
                        if h.len() >= 16 {
                            let owner = i32::from_le_bytes([h[12], h[13], h[14], h[15]]);
                            h[12..16].copy_from_slice(&new_of(owner).to_le_bytes());
                            c.body = Body::Leaf(h.into());
                        }
                    }
                    c
                })
                .collect();
            self.add_object(ci, chunks);
        }
        order
            .iter()
            .enumerate()
            .map(|(k, &o)| (o, base + k))
            .collect()
    }

    /// Appends a DLL to the DllDirectory stream (0x2038 entry: 0x2039
    /// description, 0x2037 file name, UTF-16) and returns its index, what a
    /// class directory entry names as its DLL.
    pub fn add_dll(&mut self, description: &str, file_name: &str) -> i32 {
        let utf16 = |t: &str| -> Vec<u8> { t.encode_utf16().flat_map(u16::to_le_bytes).collect() };
        let s = self
            .file
            .streams
            .iter_mut()
            .find(|s| s.name == "DllDirectory")
            .expect("DllDirectory stream");
        let mut dlls = chunk::parse(&s.data).expect("DllDirectory parses");
        let index = dlls.iter().filter(|c| c.id == 0x2038).count() as i32;
        dlls.push(Chunk::container(
            0x2038,
            vec![
                Chunk::leaf(0x2039, utf16(description)),
                Chunk::leaf(0x2037, utf16(file_name)),
            ],
        ));
        s.data = chunk::write(&dlls).into();
        index
    }

    /// The object reference `slot` of object `idx` points to, read from its
    /// chunks as edited so far.
    pub fn current_reference(&mut self, idx: usize, slot: u32) -> usize {
        let c = self
            .children(idx)
            .iter()
            .find(|c| (c.id == 0x2034 || c.id == 0x2035) && !c.is_container())
            .unwrap_or_else(|| panic!("object {idx} has no reference chunk"));
        let words: Vec<i32> = c
            .payload()
            .expect("leaf")
            .chunks_exact(4)
            .map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let target = if c.id == 0x2034 {
            words.get(slot as usize).copied()
        } else {
            words[1..]
                .chunks_exact(2)
                .find(|p| p[0] == slot as i32)
                .map(|p| p[1])
        };
        target
            .and_then(|t| usize::try_from(t).ok())
            .unwrap_or_else(|| panic!("object {idx} has no reference {slot}"))
    }

    /// The chunks of a ParamBlock2 of the file with the plain 0x0009 header
    /// (some blocks carry an owner-class header 0x000b instead), as the
    /// template of a new block whose other chunks stay real.
    pub fn pb2_template(&mut self) -> Vec<Chunk> {
        let blocks: Vec<usize> = (0..self.graph.objects.len())
            .filter(|&i| {
                self.graph.objects[i]
                    .class
                    .as_ref()
                    .is_some_and(|c| c.class_id == PARAM_BLOCK2)
            })
            .collect();
        blocks
            .into_iter()
            .map(|i| self.object_chunks(i))
            .find(|c| c.iter().any(|k| k.id == 0x0009))
            .expect("a ParamBlock2 with a 0x0009 header")
    }

    /// Puts a new object-space modifier of class `class` (its DLL and
    /// ClassDirectory entries added) on top of `node`'s stack, its reference 0
    /// a new ParamBlock2 holding `values` (id, type, payload as stored).
    /// Returns the modifier's object index.
    pub fn add_pb2_modifier(
        &mut self,
        node: usize,
        class: ClassId,
        name: &str,
        dll_file: &str,
        values: &[(u16, u16, &[u8])],
    ) -> usize {
        let pb2_class = self.class_index(PARAM_BLOCK2).expect("ParamBlock2 objects");
        let template = self.pb2_template();
        let dll = self.add_dll(&format!("{name} (synthetic)"), dll_file);
        let class = self.add_class(dll, class, OSM, name);
        let count = self.graph.objects.len();
        let (modifier, block) = (count, count + 1);
        let added = self.add_object(
            class,
            vec![
                Chunk::leaf(0x2034, (block as i32).to_le_bytes().to_vec()),
                Chunk::container(0x39bf, vec![Chunk::leaf(0x0100, Vec::new())]),
            ],
        );
        assert_eq!(added, modifier);
        let added = self.add_object(pb2_class, param_block2(template, modifier as u32, values));
        assert_eq!(added, block);
        self.add_modifier(node, 0, modifier, Chunk::container(0x2512, Vec::new()));
        modifier
    }

    /// Puts a new object-space modifier of class `class` (its DLL and
    /// ClassDirectory entries added) into `node`'s stack at `at` (as
    /// [`SceneEdit::add_modifier`]: 0 = top), with the references `refs` in
    /// the sparse form Max saves (0x2035: a leading word, then slot, target
    /// pairs). Returns the modifier's object index.
    pub fn add_modifier_with_refs(
        &mut self,
        node: usize,
        at: usize,
        class: ClassId,
        name: &str,
        dll_file: &str,
        refs: &[i32],
    ) -> usize {
        let dll = self.add_dll(&format!("{name} (synthetic)"), dll_file);
        let class = self.add_class(dll, class, OSM, name);
        let modifier = self.add_object(
            class,
            vec![
                Chunk::leaf(
                    0x2035,
                    refs.iter()
                        .flat_map(|w| w.to_le_bytes())
                        .collect::<Vec<u8>>(),
                ),
                Chunk::container(0x39bf, vec![Chunk::leaf(0x0100, Vec::new())]),
            ],
        );
        self.add_modifier(node, at, modifier, Chunk::container(0x2512, Vec::new()));
        modifier
    }

    /// Adds an object-space modifier of `class` (from a new DLL entry
    /// `dll_file`) holding only Modifier::Save's own chunk (0x39bf with an
    /// empty 0x0100) into `node`'s stack at `at`, with empty local data: a
    /// modifier whose block and settings the tests leave out. Returns its
    /// object index.
    pub fn add_bare_modifier(
        &mut self,
        node: usize,
        at: usize,
        dll_file: &str,
        class: ClassId,
        name: &str,
    ) -> usize {
        let dll = self.add_dll("(synthetic)", dll_file);
        let class = self.add_class(dll, class, 0x810, name);
        let body = self.add_object(
            class,
            vec![Chunk::container(
                0x39bf,
                vec![Chunk::leaf(0x0100, Vec::new())],
            )],
        );
        self.add_modifier(node, at, body, Chunk::container(0x2512, Vec::new()));
        body
    }

    /// Puts modifier object `modifier` into node `node`'s object-space stack
    /// at position `at` (0 = top; the stack's length = just above the base
    /// object), with `local_data` as its per-node data (ModApp 0x2500: an
    /// identity mod-context TM 0x2510, an empty box 0x2511, the local data
    /// 0x2512, 0x2513). A node without a stack gets a derived object (0x2032)
    /// holding the modifier and its old object; one with a stack has the
    /// modifier inserted and the later slots moved down, in the reference
    /// form the derived object stores.
    pub fn add_modifier(&mut self, node: usize, at: usize, modifier: usize, local_data: Chunk) {
        let mut tm = Vec::new();
        for v in [
            1.0f32, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0,
        ] {
            tm.extend_from_slice(&v.to_le_bytes());
        }
        tm.extend_from_slice(&0u32.to_le_bytes());
        let mod_app = Chunk::container(
            0x2500,
            vec![
                Chunk::leaf(0x2510, tm),
                Chunk::leaf(0x2511, vec![0; 24]),
                local_data,
                Chunk::leaf(0x2513, 0u32.to_le_bytes().to_vec()),
            ],
        );
        // From the chunks as edited so far (the graph is the original's).
        let object = self.current_reference(node, 1);
        let is_derived = match &self.top[0].body {
            Body::Container(objects) => objects[object].id == 0x2032,
            Body::Leaf(_) => panic!("scene root is not a container"),
        };
        if !is_derived {
            assert_eq!(at, 0, "a new stack has one place");
            let mut refs = 0u32.to_le_bytes().to_vec();
            for (slot, target) in [(0u32, modifier as i32), (1, object as i32)] {
                refs.extend_from_slice(&slot.to_le_bytes());
                refs.extend_from_slice(&target.to_le_bytes());
            }
            let derived = self.add_object(
                0x2032,
                vec![
                    Chunk::leaf(0x2035, refs),
                    mod_app,
                    Chunk::container(0x2501, Vec::new()),
                ],
            );
            self.set_reference(node, 1, derived as i32);
            return;
        }
        let at_u32 = at as u32;
        let children = self.children(object);
        let r = children
            .iter_mut()
            .find(|c| (c.id == 0x2034 || c.id == 0x2035) && !c.is_container())
            .expect("derived object references");
        let words: Vec<i32> = r
            .payload()
            .expect("leaf")
            .chunks_exact(4)
            .map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let words = if r.id == 0x2034 {
            let mut w = words;
            assert!(at < w.len(), "position {at} is past the base object");
            w.insert(at, modifier as i32);
            w
        } else {
            let mut w = vec![words[0]];
            for p in words[1..].chunks_exact(2) {
                let slot = p[0] as u32;
                w.extend([if slot >= at_u32 { p[0] + 1 } else { p[0] }, p[1]]);
            }
            w.extend([at as i32, modifier as i32]);
            w
        };
        r.body = Body::Leaf(
            words
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect::<Vec<u8>>()
                .into(),
        );
        let pos = children
            .iter()
            .enumerate()
            .filter(|(_, c)| c.id == 0x2500)
            .nth(at)
            .map(|(i, _)| i)
            .or_else(|| children.iter().rposition(|c| c.id == 0x2500).map(|i| i + 1))
            .expect("derived object has ModApps");
        children.insert(pos, mod_app);
    }

    /// Writes the edited scene into the file and reopens it.
    pub fn finish(self) -> Document {
        let bytes = self.finish_file().to_bytes().expect("writes");
        Document::from_bytes(&bytes).expect("reopens")
    }

    /// The edited file (Scene stream rewritten), not yet reopened.
    pub fn finish_file(mut self) -> MaxFile {
        let data = chunk::write(&self.top);
        let s = self
            .file
            .streams
            .iter_mut()
            .find(|s| s.name == "Scene")
            .expect("Scene stream");
        s.data = data.into();
        self.file
    }
}

/// A ParamBlock2 made from `template` (a real block's chunks): its header
/// rewritten for `owner` and the count of `values`, its parameters replaced
/// by `values` (id, type, payload as stored).
pub fn param_block2(template: Vec<Chunk>, owner: u32, values: &[(u16, u16, &[u8])]) -> Vec<Chunk> {
    let values: Vec<(u16, u16, Option<&[u8]>)> = values
        .iter()
        .map(|&(id, ty, p)| (id, ty, Some(p)))
        .collect();
    param_block2_with(template, Some(owner), &values)
}

/// [`param_block2`] where a parameter may hold no constant value (`None`:
/// the record's value flag 0) and the owner may be left as the template's.
pub fn param_block2_with(
    template: Vec<Chunk>,
    owner: Option<u32>,
    values: &[(u16, u16, Option<&[u8]>)],
) -> Vec<Chunk> {
    let mut out = Vec::new();
    for c in template {
        match c.id {
            0x0009 => {
                let mut h = c.payload().expect("header").to_vec();
                h[10..12].copy_from_slice(&(values.len() as u16).to_le_bytes());
                if let Some(owner) = owner {
                    h[12..16].copy_from_slice(&owner.to_le_bytes());
                }
                out.push(Chunk::leaf(0x0009, h));
                for &(pid, ty, payload) in values {
                    let mut r = Vec::new();
                    r.extend_from_slice(&pid.to_le_bytes());
                    r.extend_from_slice(&ty.to_le_bytes());
                    r.extend_from_slice(&[0, 0, 0, 0, 0x82, 0, 0, 0, 0, 0]);
                    match payload {
                        Some(p) => {
                            r.push(0x40);
                            r.extend_from_slice(p);
                        }
                        None => r.push(0),
                    }
                    out.push(Chunk::leaf(0x000e, r));
                }
            }
            0x000e | 0x100e | 0x000a => {}
            _ => out.push(c),
        }
    }
    out
}

/// The first modifier local data (chunk 0x2512) among `chunks`, searched
/// depth first, that holds a child with id `holding`: 0x0230 finds an Edit
/// Poly's recorded operations, 0x0330 an Unwrap UVW's cached geometry. Tests
/// edit these records in place before writing the object back.
pub fn local_data_holding(chunks: &mut [Chunk], holding: u16) -> Option<&mut Vec<Chunk>> {
    for c in chunks.iter_mut() {
        let Body::Container(kids) = &mut c.body else {
            continue;
        };
        if c.id == 0x2512 && kids.iter().any(|k| k.id == holding) {
            return Some(kids);
        }
        if let Some(found) = local_data_holding(kids, holding) {
            return Some(found);
        }
    }
    None
}

/// A bit array as Max saves it (chunk 0x2700: the bit count, then 32-bit
/// words), `n` bits with those in `set` on.
pub fn bit_array(n: usize, set: &[usize]) -> Chunk {
    let mut words = vec![0u32; n.div_ceil(32)];
    for &i in set {
        words[i / 32] |= 1 << (i % 32);
    }
    let mut p = (n as u32).to_le_bytes().to_vec();
    p.extend(words.iter().flat_map(|w| w.to_le_bytes()));
    Chunk::leaf(0x2700, p)
}
