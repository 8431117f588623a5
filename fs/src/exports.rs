//! The NeL exports of one `.max` as files: `shape/<node>.shape` and
//! `export/<name>.{ig,skel,anim,swt}` plus `export/errors.txt`. The mount,
//! `maxfs cat` and `maxfs export` all name and fill files through [`ExportSet`],
//! so the three always agree byte for byte.

use std::sync::Arc;

use maxfs_exporters::nel::export::{self, ExportKind, Exports, NodeError};
use maxfs_scene::eval::SceneEval;

use crate::names::NameSet;

/// Which directory of `foo.max/` a file lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExportDir {
    Shape,
    Export,
}

impl ExportDir {
    pub fn of(kind: ExportKind) -> ExportDir {
        match kind.dir() {
            "shape" => ExportDir::Shape,
            _ => ExportDir::Export,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ExportDir::Shape => "shape",
            ExportDir::Export => "export",
        }
    }
}

/// One exported file under its final (sanitized, unique) name.
#[derive(Debug, Clone)]
pub struct ExportFile {
    pub kind: ExportKind,
    pub dir: ExportDir,
    pub name: String,
    pub bytes: Arc<[u8]>,
    /// Shapes only: routed to the with-coarse-mesh directory (see [`pipeline_dir`]).
    pub with_coarse_mesh: bool,
}

impl ExportFile {
    /// The directory the NeL build pipeline's export step writes this file
    /// to, relative to a project's export root (`maxfs export --layout nel`).
    pub fn pipeline_dir(&self) -> &'static str {
        pipeline_dir(self.kind, self.with_coarse_mesh)
    }
}

/// Where each process of build_gamedata exports (the `*ExportDirectory`
/// names of the workspace `directories.py` templates, relative to the
/// project's `CommonPath`): shapes to `shape_not_optimized`, or to
/// `shape_with_coarse_mesh` when a LOD-set member is a coarse mesh
/// (shape_export.ms `haveCoarseMesh`); the shape process's animations to
/// `shape_anim`; igs to `ig_static_other` (the ig process sends the files of
/// its IgLandSourceDirectories to `ig_static_land`, which a single file does
/// not tell); collision meshes to `rbank_cmb_export`; character LODs to `clod_export`; the rest to the
/// directory named after the process.
pub fn pipeline_dir(kind: ExportKind, with_coarse_mesh: bool) -> &'static str {
    match kind {
        ExportKind::Shape if with_coarse_mesh => "shape_with_coarse_mesh",
        ExportKind::Shape => "shape_not_optimized",
        ExportKind::ShapeAnim => "shape_anim",
        ExportKind::Ig => "ig_static_other",
        ExportKind::Skel => "skel",
        ExportKind::Anim => "anim_export",
        ExportKind::Swt => "swt",
        ExportKind::Cmb => "rbank_cmb_export",
        ExportKind::PacsPrim => "pacs_prim",
        ExportKind::Veget => "veget",
        ExportKind::Zone => "zone",
        ExportKind::Clod => "clod_export",
        ExportKind::LigoZone => "ligozone",
    }
}

/// Every export of one source file, named for the tree.
#[derive(Debug, Clone, Default)]
pub struct ExportSet {
    pub files: Vec<ExportFile>,
    pub errors: Vec<NodeError>,
}

/// File name of the per-file error list under `export/`.
pub const ERRORS_TXT: &str = "errors.txt";

impl ExportSet {
    /// Exports every kind of `<stem>.max`.
    pub fn build(stem: &str, eval: &SceneEval) -> ExportSet {
        ExportSet::build_kinds(stem, eval, &ExportKind::ALL)
    }

    pub fn build_kinds(stem: &str, eval: &SceneEval, kinds: &[ExportKind]) -> ExportSet {
        ExportSet::from_exports(export::export(stem, eval, kinds))
    }

    /// [`ExportSet::build_kinds`] with the files the export may read.
    pub fn build_with(
        stem: &str,
        eval: &SceneEval,
        kinds: &[ExportKind],
        options: &export::ExportOptions,
    ) -> ExportSet {
        ExportSet::from_exports(export::export_with(stem, eval, kinds, options))
    }

    /// Names the outputs. Two outputs with the same name are what the NeL
    /// pipeline would write to the same path: the later one wins there, so it
    /// wins here too and the overwrite is reported. Names that only collide
    /// after sanitizing get a `~N` suffix instead.
    pub fn from_exports(exports: Exports) -> ExportSet {
        let Exports {
            outputs,
            mut errors,
        } = exports;
        let mut kept: Vec<export::Output> = Vec::with_capacity(outputs.len());
        for o in outputs {
            if let Some(prev) = kept
                .iter_mut()
                .find(|p| p.kind.dir() == o.kind.dir() && p.name == o.name)
            {
                errors.push(NodeError {
                    kind: o.kind,
                    node: o.name.clone(),
                    reason: "two nodes export under this name; the later one overwrites the \
                             earlier, as in the NeL pipeline"
                        .into(),
                });
                *prev = o;
            } else {
                kept.push(o);
            }
        }
        let mut shape_names = NameSet::new();
        let mut export_names = NameSet::new();
        // errors.txt is always listed under export/.
        export_names.unique("errors", ".txt");
        let files = kept
            .into_iter()
            .map(|o| {
                let dir = ExportDir::of(o.kind);
                let (stem, ext) = split_ext(&o.name);
                let names = match dir {
                    ExportDir::Shape => &mut shape_names,
                    ExportDir::Export => &mut export_names,
                };
                ExportFile {
                    kind: o.kind,
                    dir,
                    name: names.unique(stem, ext),
                    bytes: o.bytes.into(),
                    with_coarse_mesh: o.with_coarse_mesh,
                }
            })
            .collect();
        ExportSet { files, errors }
    }

    /// The files of one directory, in export order.
    pub fn in_dir(&self, dir: ExportDir) -> impl Iterator<Item = (usize, &ExportFile)> {
        self.files
            .iter()
            .enumerate()
            .filter(move |(_, f)| f.dir == dir)
    }

    pub fn find(&self, dir: ExportDir, name: &str) -> Option<usize> {
        self.files
            .iter()
            .position(|f| f.dir == dir && f.name == name)
    }

    /// `export/errors.txt`: `kind<TAB>node<TAB>reason` per line, empty when
    /// everything exported.
    pub fn errors_text(&self) -> Vec<u8> {
        Exports {
            outputs: Vec::new(),
            errors: self.errors.clone(),
        }
        .errors_text()
        .into_bytes()
    }
}

/// The serialized form of an [`ExportSet`] in the disk cache: a JSON index
/// (kinds, directories, names, lengths, errors) and the files' bytes after it.
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredSet {
    files: Vec<StoredFile>,
    errors: Vec<(String, String, String)>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct StoredFile {
    kind: String,
    name: String,
    len: u64,
    #[serde(default)]
    coarse: bool,
}

impl ExportSet {
    /// Bytes for the disk cache; [`ExportSet::from_bytes`] reads them back.
    pub fn to_bytes(&self) -> Vec<u8> {
        let index = StoredSet {
            files: self
                .files
                .iter()
                .map(|f| StoredFile {
                    kind: f.kind.name().into(),
                    name: f.name.clone(),
                    len: f.bytes.len() as u64,
                    coarse: f.with_coarse_mesh,
                })
                .collect(),
            errors: self
                .errors
                .iter()
                .map(|e| (e.kind.name().into(), e.node.clone(), e.reason.clone()))
                .collect(),
        };
        let json = serde_json::to_vec(&index).unwrap_or_default();
        let mut out = (json.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(&json);
        for f in &self.files {
            out.extend_from_slice(&f.bytes);
        }
        out
    }

    /// Reads [`ExportSet::to_bytes`]; `None` for anything else (the cache then
    /// rebuilds the set).
    pub fn from_bytes(b: &[u8]) -> Option<ExportSet> {
        let (len, rest) = b.split_first_chunk::<8>()?;
        let (json, mut data) =
            rest.split_at_checked(usize::try_from(u64::from_le_bytes(*len)).ok()?)?;
        let index: StoredSet = serde_json::from_slice(json).ok()?;
        let mut files = Vec::with_capacity(index.files.len().min(data.len() + 1));
        for f in index.files {
            let kind = ExportKind::from_name(&f.kind)?;
            let (bytes, rest) = data.split_at_checked(usize::try_from(f.len).ok()?)?;
            data = rest;
            files.push(ExportFile {
                kind,
                dir: ExportDir::of(kind),
                name: f.name,
                bytes: bytes.into(),
                with_coarse_mesh: f.coarse,
            });
        }
        if !data.is_empty() {
            return None;
        }
        let errors = index
            .errors
            .into_iter()
            .map(|(kind, node, reason)| {
                Some(NodeError {
                    kind: ExportKind::from_name(&kind)?,
                    node,
                    reason,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(ExportSet { files, errors })
    }
}

/// `box02.shape` → (`box02`, `.shape`); a name without extension keeps it empty.
fn split_ext(name: &str) -> (&str, &str) {
    match name.rfind('.') {
        Some(i) if i > 0 => (&name[..i], &name[i..]),
        _ => (name, ""),
    }
}

/// The stem the scripts use for per-file outputs: the source file name
/// without its `.max` extension.
pub fn source_stem(path: &std::path::Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(kind: ExportKind, name: &str, b: u8) -> export::Output {
        export::Output {
            kind,
            with_coarse_mesh: false,
            name: name.into(),
            bytes: vec![b],
        }
    }

    #[test]
    fn later_duplicate_wins_and_is_reported() {
        let set = ExportSet::from_exports(Exports {
            outputs: vec![
                out(ExportKind::Shape, "box.shape", 1),
                out(ExportKind::Shape, "box.shape", 2),
                out(ExportKind::Ig, "box.shape", 3),
            ],
            errors: vec![],
        });
        assert_eq!(set.files.len(), 2);
        assert_eq!(&*set.files[0].bytes, &[2]);
        assert_eq!(set.files[0].dir, ExportDir::Shape);
        assert_eq!(set.files[1].dir, ExportDir::Export);
        assert_eq!(set.errors.len(), 1);
        assert!(String::from_utf8_lossy(&set.errors_text()).starts_with("shape\tbox.shape\t"));
    }

    #[test]
    fn stored_form_reads_back_and_refuses_damage() {
        let set = ExportSet::from_exports(Exports {
            outputs: vec![
                out(ExportKind::Shape, "box.shape", 1),
                out(ExportKind::Skel, "bip01.skel", 2),
            ],
            errors: vec![NodeError {
                kind: ExportKind::Anim,
                node: "Bip01".into(),
                reason: "not evaluated".into(),
            }],
        });
        let b = set.to_bytes();
        let back = ExportSet::from_bytes(&b).expect("reads back");
        assert_eq!(back.files.len(), 2);
        assert_eq!(back.files[1].name, "bip01.skel");
        assert_eq!(back.files[1].dir, ExportDir::Export);
        assert_eq!(&*back.files[0].bytes, &[1]);
        assert_eq!(back.errors_text(), set.errors_text());
        for cut in 0..b.len() {
            assert!(ExportSet::from_bytes(&b[..cut]).is_none(), "cut at {cut}");
        }
    }

    #[test]
    fn names_from_content_are_sanitized_and_unique() {
        let set = ExportSet::from_exports(Exports {
            outputs: vec![
                out(ExportKind::Shape, "a/b.shape", 1),
                out(ExportKind::Shape, "a_b.shape", 2),
                out(ExportKind::Shape, "...shape", 3),
                out(ExportKind::Ig, "errors.txt", 4),
            ],
            errors: vec![],
        });
        let names: Vec<&str> = set.files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            ["a_b.shape", "a_b~2.shape", "_.shape", "errors~2.txt"]
        );
        for n in names {
            assert!(!n.contains('/') && n != "." && n != "..");
        }
    }
}
