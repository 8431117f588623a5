//! Embedded MAXScript that 3ds Max would run from a scene: script controllers,
//! scripted custom attributes and persistent callbacks keep their source text in
//! the file, and a known family of 3ds Max malware (Autodesk's "ALC", which names
//! its functions `…CleanBeta` / `…Alpha`) spreads through exactly such text on
//! hidden helper nodes. A studio checking its checkout wants to know before
//! anyone opens the file in Max, so every text leaf of every chunk stream is
//! searched for the commands 3ds Max's Safe Scene Script Execution blocks or
//! that such malware needs (startup folders, callbacks, system commands, .NET,
//! file writes, base64-hidden code). Nothing is executed or rewritten.

use std::collections::{BTreeSet, HashMap, VecDeque};

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use serde::Serialize;

use crate::chunk::Chunk;
use crate::document::Document;
use crate::graph::SceneGraph;

/// One text leaf holding commands an embedded script should not need.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScriptFinding {
    pub stream: String,
    /// The leaf's path as the mount names it under `chunks/<stream>/`
    /// (position then hex id per level, e.g. `0000-2023/0452-0014/0011-5000.bin`).
    pub chunk: String,
    /// Class of the scene object holding the text (e.g. "Scale Script"), when
    /// the leaf is inside one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Nodes whose references reach that object (the script runs when they
    /// are evaluated).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<String>,
    /// Length of the leaf in bytes.
    pub bytes: usize,
    /// What the text does, one phrase per kind of command found.
    pub indicators: Vec<&'static str>,
    /// Known malware families whose identifiers the text holds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub known_malware: Vec<&'static str>,
}

impl ScriptFinding {
    /// One line for `maxfs check` and error lists.
    pub fn summary(&self) -> String {
        let mut s = format!("{} chunk {}", self.stream, self.chunk);
        if let Some(c) = &self.class {
            s.push_str(&format!(" ({c}"));
            if !self.nodes.is_empty() {
                s.push_str(&format!(" on {}", self.nodes.join(", ")));
            }
            s.push(')');
        }
        s.push_str(&format!(
            ", {} bytes: {}",
            self.bytes,
            self.indicators.join("; ")
        ));
        if !self.known_malware.is_empty() {
            s.push_str(&format!(
                " — known 3ds Max malware: {}",
                self.known_malware.join(", ")
            ));
        }
        s
    }
}

/// Lower-case needles and what finding one means.
const INDICATORS: &[(&str, &str)] = &[
    (
        "callbacks.addscript",
        "registers scripts to run on scene events (callbacks.addScript)",
    ),
    (
        "#startupscripts",
        "reaches the startup-script folders (runs in every later session)",
    ),
    (
        "#userstartupscripts",
        "reaches the startup-script folders (runs in every later session)",
    ),
    ("doscommand", "runs system commands"),
    ("shelllaunch", "runs system commands"),
    ("createoleobject", "runs system commands"),
    ("registry.", "edits the Windows registry"),
    ("python.execute", "runs Python"),
    ("python.import", "runs Python"),
    ("dotnetobject", "creates .NET objects"),
    ("dotnetclass", "creates .NET objects"),
    ("frombase64string", "decodes hidden (base64) text"),
    ("deletefile", "writes or deletes files"),
    ("createfile", "writes or deletes files"),
    ("copyfile", "writes or deletes files"),
    ("renamefile", "writes or deletes files"),
    ("savemaxfile", "re-saves scene files"),
    ("wscript.shell", "runs system commands"),
    ("system.diagnostics.process", "runs system commands"),
    ("cmd.exe", "runs system commands"),
    ("powershell", "runs system commands"),
    (
        "registertimecallback",
        "registers scripts to run on time changes (registerTimeCallback)",
    ),
    ("loadassembly", "loads .NET assemblies"),
];

/// Identifiers of known families (lower case) and the family's name: their
/// global names, callback ids and the file names their droppers write (the
/// public list 3dsmaxedai/hk-max-virus-signatures, 2026-06, adds CRP, ADSL,
/// Alienbrains, ADR and the HTTP / injector spreaders). ALC's variants
/// (…CleanAlpha, …Alpha) are not told apart: ALC's own script clears their
/// globals by name, so their names alone do not say which variant a file holds.
const FAMILIES: &[(&str, &str)] = &[
    ("cleanbeta", "ALC"),
    ("physxcrtrbkinfo", "ALC"),
    ("autodesklicserstuck", "ALC"),
    ("physxpluginmfx", "PhysXPluginMfx"),
    ("physxpluginstl", "PhysXPluginMfx"),
    ("crp_bscript", "CRP"),
    ("crp9_alc", "CRP"),
    ("crossscenestuff", "CRP"),
    ("adsl_bscript", "ADSL"),
    ("adsl.dms", "ADSL"),
    ("mscprop", "Alienbrains"),
    ("propparameterlocal", "Alienbrains"),
    ("propertyparameterslocal", "Alienbrains"),
    ("thisadrmodel", "ADR"),
    ("thisadralert", "ADR"),
    ("b64_strhttppost", "HTTP-upload spreader"),
    ("fnhttppost", "HTTP-upload spreader"),
    ("manafilename", "file-injecting spreader"),
    ("3d.znzmo", "znzmo adware"),
    ("znzmo.com", "znzmo adware"),
];

/// Leaves shorter than this cannot hold a command worth reporting.
const MIN_TEXT: usize = 10;

/// Every text leaf of `doc` with commands of `INDICATORS`; `graph` (the Scene
/// stream's objects) names the class and nodes of each.
pub fn scan(doc: &Document, graph: Option<&SceneGraph>) -> Vec<ScriptFinding> {
    let Some(needles) = needles() else {
        return Vec::new();
    };
    // Built at the first finding: most files have none.
    let mut owners: Option<NodeOwners> = None;
    let mut out = Vec::new();
    let mut wide_text = Vec::new();
    for s in &doc.streams {
        let Some(chunks) = s.chunks() else {
            continue;
        };
        let mut path = Vec::new();
        walk(chunks, &mut path, &mut |path, data| {
            if data.len() < MIN_TEXT {
                return;
            }
            // One case-insensitive pass over the leaf as stored; UTF-16 text
            // is searched through its low bytes.
            let text = if is_utf16(data) {
                wide_text.clear();
                wide_text.extend(data.chunks_exact(2).map(|p| p[0]));
                &wide_text[..]
            } else {
                data
            };
            if !looks_like_text(text) {
                return;
            }
            let mut indicators: Vec<&'static str> = Vec::new();
            let mut known: Vec<&'static str> = Vec::new();
            for m in needles.find_overlapping_iter(text) {
                let i = m.pattern().as_usize();
                let (list, what) = match INDICATORS.get(i) {
                    Some((_, what)) => (&mut indicators, *what),
                    None => match FAMILIES.get(i - INDICATORS.len()) {
                        Some((_, family)) => (&mut known, *family),
                        None => continue,
                    },
                };
                if !list.contains(&what) {
                    list.push(what);
                }
            }
            if indicators.is_empty() {
                return;
            }
            // Report in the tables' order, whatever order the text has.
            indicators.sort_by_key(|w| INDICATORS.iter().position(|(_, x)| x == w));
            known.sort_by_key(|w| FAMILIES.iter().position(|(_, x)| x == w));
            // The Scene stream's first level is the version chunk; its
            // children are the objects references point at.
            let object = (s.name == "Scene" && path.len() > 2).then(|| path[1].0);
            let class = object
                .and_then(|i| graph?.objects.get(i)?.class.as_ref())
                .map(|c| c.name.clone());
            let nodes = match (object, graph) {
                (Some(i), Some(g)) => owners
                    .get_or_insert_with(|| NodeOwners::new(g))
                    .nodes_of(i, g),
                _ => Vec::new(),
            };
            out.push(ScriptFinding {
                stream: s.name.clone(),
                chunk: format!(
                    "{}.bin",
                    path.iter()
                        .map(|(i, id)| format!("{i:04}-{id:04X}"))
                        .collect::<Vec<_>>()
                        .join("/")
                ),
                class,
                nodes,
                bytes: data.len(),
                indicators,
                known_malware: known,
            });
        });
    }
    out
}

/// Called with a leaf's (position, id) path and payload.
type LeafVisitor<'a> = dyn FnMut(&[(usize, u16)], &[u8]) + 'a;

/// Calls `f` with the (position, id) path and payload of every leaf.
fn walk(chunks: &[Chunk], path: &mut Vec<(usize, u16)>, f: &mut LeafVisitor) {
    for (i, c) in chunks.iter().enumerate() {
        path.push((i, c.id));
        match c.payload() {
            Some(data) => f(path, data),
            None => walk(c.children(), path, f),
        }
        path.pop();
    }
}

/// UTF-16LE text, as Max 2013+ stores strings: every odd byte zero over the
/// leaf's first bytes. Shared with the script controllers' evaluation
/// (`eval::core::script`), so both read a leaf's text alike.
pub fn is_utf16(data: &[u8]) -> bool {
    let probe = &data[..data.len().min(64) & !1];
    data.len().is_multiple_of(2)
        && probe.len() >= 8
        && probe.chunks_exact(2).all(|p| p[1] == 0 && p[0] != 0)
}

/// Most of the leaf's first bytes are printable ASCII or line breaks.
/// Skips the meshes, key tables and bitmaps that make up nearly all of a
/// file (their floats and indices are mostly not printable) while keeping
/// text behind a short binary header, such as a parameter block's string.
fn looks_like_text(text: &[u8]) -> bool {
    let head = &text[..text.len().min(TEXT_PROBE)];
    let printable = head
        .iter()
        .filter(|&&b| (0x20..0x7f).contains(&b) || matches!(b, b'\t' | b'\n' | b'\r'))
        .count();
    printable * 4 >= head.len() * 3
}

/// Bytes `looks_like_text` judges a leaf by.
const TEXT_PROBE: usize = 256;

/// One automaton over `INDICATORS` then `FAMILIES`, ignoring ASCII case;
/// built once (the needles are constants, so building cannot fail in
/// practice, and a failure only disables the scan).
fn needles() -> Option<&'static AhoCorasick> {
    static NEEDLES: std::sync::OnceLock<Option<AhoCorasick>> = std::sync::OnceLock::new();
    NEEDLES
        .get_or_init(|| {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .kind(Some(AhoCorasickKind::DFA))
                .build(INDICATORS.iter().chain(FAMILIES).map(|(n, _)| n))
                .ok()
        })
        .as_ref()
}

/// Which nodes reach each object through their references (controllers sit
/// below a node's transform, objects below its modifiers).
struct NodeOwners {
    referenced_by: HashMap<usize, Vec<usize>>,
}

impl NodeOwners {
    fn new(graph: &SceneGraph) -> NodeOwners {
        let mut referenced_by: HashMap<usize, Vec<usize>> = HashMap::new();
        for o in &graph.objects {
            for r in &o.references {
                if let Ok(t) = usize::try_from(r.target) {
                    referenced_by.entry(t).or_default().push(o.index);
                }
            }
        }
        NodeOwners { referenced_by }
    }

    /// Node names reaching `object`, sorted; a breadth-first walk up the
    /// references that stops at nodes (a node's parent is not an owner).
    fn nodes_of(&self, object: usize, graph: &SceneGraph) -> Vec<String> {
        let mut seen = BTreeSet::from([object]);
        let mut queue = VecDeque::from([object]);
        let mut names = BTreeSet::new();
        while let Some(i) = queue.pop_front() {
            if graph.objects.get(i).is_some_and(|o| o.node.is_some()) {
                names.insert(graph.node_name(i).to_string());
                continue;
            }
            for &up in self.referenced_by.get(&i).map_or(&[][..], |v| v) {
                if seen.insert(up) {
                    queue.push_back(up);
                }
            }
        }
        names.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{self, Chunk};
    use crate::container::{MaxFile, Stream};

    fn doc_with(leaves: Vec<Chunk>) -> Document {
        let scene = chunk::write(&[Chunk::container(
            0x2023,
            vec![Chunk::container(0x0014, leaves)],
        )]);
        let len = scene.len() as u64;
        Document::from_file(MaxFile {
            clsid: [0; 16],
            streams: vec![Stream {
                name: "Scene".into(),
                data: scene.into(),
                compressed: false,
                zstd: false,
                open_root: false,
                stored_len: len,
                error: None,
            }],
        })
    }

    fn utf16(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(|u| u.to_le_bytes()).collect()
    }

    #[test]
    fn a_controller_doing_arithmetic_is_not_reported() {
        let d = doc_with(vec![Chunk::leaf(
            0x5000,
            b"sin(F*10.0) * 2.5 + dependsOn $Box01".to_vec(),
        )]);
        assert!(scan(&d, None).is_empty());
    }

    #[test]
    fn commands_are_found_in_single_byte_and_utf16_text() {
        let d = doc_with(vec![
            Chunk::leaf(0x5000, b"x = 1\nShellLaunch \"cmd.exe\" \"\"".to_vec()),
            Chunk::leaf(
                0x5001,
                utf16("callbacks.addScript #filePostOpen \"f()\" id:#x persistent:true; getDir #userStartupScripts"),
            ),
        ]);
        let found = scan(&d, None);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].chunk, "0000-2023/0000-0014/0000-5000.bin");
        assert_eq!(found[0].indicators, vec!["runs system commands"]);
        assert_eq!(found[1].chunk, "0000-2023/0000-0014/0001-5001.bin");
        assert_eq!(found[1].indicators.len(), 2);
        assert!(found[1].known_malware.is_empty());
    }

    #[test]
    fn a_known_family_is_named() {
        let d = doc_with(vec![Chunk::leaf(
            0x5000,
            b"fn runMainCleanBeta=(deleteFile (getDir #startupScripts + \"\\\\x.ms\"))".to_vec(),
        )]);
        let found = scan(&d, None);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].known_malware, vec!["ALC"]);
        assert!(found[0].summary().contains("known 3ds Max malware: ALC"));
    }

    /// Each family is named by its own identifiers only.
    #[test]
    fn families_are_told_apart() {
        let scan_one = |text: &[u8]| {
            let found = scan(&doc_with(vec![Chunk::leaf(0x5000, text.to_vec())]), None);
            assert_eq!(found.len(), 1, "{}", String::from_utf8_lossy(text));
            found[0].known_malware.clone()
        };
        assert_eq!(
            scan_one(b"global ADSL_BScript; callbacks.addScript #filePostOpen \"x()\""),
            vec!["ADSL"]
        );
        assert_eq!(
            scan_one(b"persistent global CRP_BScript = \"x\"; callbacks.addScript #filePostSave CRP_BScript"),
            vec!["CRP"]
        );
        // Without a command, a family name alone is not a finding.
        assert!(scan(
            &doc_with(vec![Chunk::leaf(
                0x5000,
                b"a note about thisADRModel only".to_vec()
            )]),
            None
        )
        .is_empty());
    }

    #[test]
    fn shell_launchers_are_commands() {
        let d = doc_with(vec![Chunk::leaf(
            0x5000,
            b"(dotNetClass \"System.Diagnostics.Process\").Start \"powershell\"".to_vec(),
        )]);
        let found = scan(&d, None);
        assert_eq!(found.len(), 1);
        assert!(found[0].indicators.contains(&"runs system commands"));
    }
}
