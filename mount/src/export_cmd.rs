//! `maxfs export SRC... --out DIR [--kind shape,ig,…] [--layout flat|nel] [--gltf]`:
//! batch export, in parallel, of the same files the mount serves under
//! `shape/` and `export/` (one code path: `maxfs_fs::exports::ExportSet`).
//!
//! Incremental like the NeL build pipeline: a `<file>.max.tag` is written per
//! source that exported without a failed node. Its first line is the pipeline's
//! time stamp; the lines after it record what was exported (NeL kinds, glTF)
//! and by which maxfs version ([`Tag`]). A source whose tag is newer than the
//! source and records every requested output from this version is skipped; one
//! whose tag lacks some is exported for those only (`--force` re-exports all).

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use maxfs_exporters::nel::export::ExportKind;
use maxfs_fs::exports::{source_stem, ExportSet};
use maxfs_scene::Document;
use parking_lot::Mutex;
use rayon::prelude::*;
use serde::Serialize;

use crate::walk;

#[derive(clap::Args)]
pub struct ExportArgs {
    /// Files or directories (walked for *.max).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// NeL kinds to export, comma-separated: shape, ig, skel, anim, swt, cmb,
    /// pacs_prim, veget, zone, shape_anim, clod, ligozone. Default: all of them, unless only
    /// --gltf is given.
    #[arg(long, value_delimiter = ',')]
    pub kind: Vec<String>,
    /// Also write binary glTF 2.0 (`<file>.glb`).
    #[arg(long)]
    pub gltf: bool,
    /// Folder searched (recursively, ignoring case) for texture images after
    /// the stored path and the .max's own folder; repeatable. glTF only.
    #[arg(long, value_name = "DIR")]
    pub maps: Vec<PathBuf>,
    /// Folder searched (recursively, ignoring case) for the particle-system
    /// shapes (`.ps`) whose bounding boxes place FX instances in the clusters
    /// of instance groups, after the stored path and the .max's folder;
    /// repeatable.
    #[arg(long, value_name = "DIR")]
    pub ps_path: Vec<PathBuf>,
    /// The ecosystem's small tile bank (`.bank`) that zone symmetry / rotation
    /// (ligo transition bricks, ZONE_SYMMETRY / ZONE_ROTATE) go through; without
    /// it such zones are refused by name in errors.txt.
    #[arg(long, value_name = "FILE")]
    pub bank: Option<PathBuf>,
    /// Parallel jobs (default: one per core).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    /// Memory budget of one file's evaluated meshes, in MiB: a mesh that would
    /// take a file past it is refused naming the budget (the file is partial).
    /// The export holds at most jobs × this.
    #[arg(long, default_value_t = maxfs_scene::eval::DEFAULT_MESH_BUDGET >> 20)]
    pub meshes_mb: u64,
    /// Where `<file>.max.tag` files go (default: the output directory).
    #[arg(long)]
    pub tag_dir: Option<PathBuf>,
    /// Export even when the tag is newer than the source.
    #[arg(long)]
    pub force: bool,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write the JSON results to FILE (what `--json` prints), so a
    /// pipeline keeps them while the terminal shows progress and the summary.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Where the NeL files go under --out: `flat` (all in it) or `nel` (the
    /// export directories of the NeL build pipeline per kind:
    /// shape_not_optimized, shape_with_coarse_mesh, shape_anim, anim_export,
    /// skel, swt, ig_static_other, rbank_cmb_export, pacs_prim, veget, zone;
    /// docs/user-guide.md). glTF files stay in --out.
    #[arg(long, value_enum, default_value_t = Layout::Flat)]
    pub layout: Layout,
}

/// How `maxfs export` arranges its NeL outputs.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Flat,
    Nel,
}

#[derive(Serialize, Default)]
struct FileResult {
    path: String,
    /// "exported", "skipped" (tag newer than source), "partial" (some nodes
    /// failed, or the scene uses something not evaluated; no tag written) or
    /// "failed" (nothing exported).
    status: &'static str,
    outputs: Vec<OutputResult>,
    /// Nodes that could not be exported: `kind: node: reason`.
    node_errors: Vec<String>,
    /// What the evaluation does not compute in this scene (classes and the
    /// nodes using them, as `maxfs check --coverage` lists them): the outputs
    /// stand in for those nodes with less than Max shows, so the file is partial.
    unevaluated: Vec<String>,
    /// Embedded scripts that run commands a scene should not need (the 3ds
    /// Max malware families among them; `maxfs check` names them too). The
    /// export never runs them; the user should know the source carries them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unsafe_scripts: Vec<maxfs_scene::scripts::ScriptFinding>,
    warnings: Vec<String>,
    error: Option<String>,
    tag: Option<String>,
}

#[derive(Serialize)]
struct OutputResult {
    kind: &'static str,
    file: String,
    bytes: usize,
    /// False when another source of this run writes the same name and wins
    /// (the later source in path order, as the pipeline's last write).
    written: bool,
}

#[derive(Serialize, Default)]
struct Summary {
    files: usize,
    exported: usize,
    partial: usize,
    skipped: usize,
    failed: usize,
    outputs: usize,
    bytes: u64,
    per_kind: BTreeMap<&'static str, usize>,
    node_errors: usize,
    /// Files carrying embedded unsafe scripts.
    unsafe_scripts: usize,
    seconds: f64,
    files_per_second: f64,
    problems: Vec<String>,
}

/// Writes `data` to `dir/name` through a temporary file in `dir` and a rename,
/// so a reader (or a crash) never sees half a file.
fn write_atomic(dir: &Path, name: &str, data: &[u8]) -> std::io::Result<PathBuf> {
    let target = dir.join(name);
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(data)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map(|()| target)
}

/// Which source owns each output name in this run: the later source in path
/// order wins, whatever order the threads finish in.
#[derive(Default)]
struct Claims {
    owners: Mutex<HashMap<String, usize>>,
    /// (name, earlier source, later source) for every name written by two sources.
    shared: Mutex<Vec<(String, usize, usize)>>,
}

impl Claims {
    /// Writes `data` to `dir/name` unless a later source already wrote
    /// `key` (the path relative to the output root).
    fn write(
        &self,
        dir: &Path,
        key: &str,
        name: &str,
        source: usize,
        data: &[u8],
    ) -> std::io::Result<bool> {
        let mut m = self.owners.lock();
        let previous = m.get(key).copied();
        if let Some(owner) = previous.filter(|&o| o != source) {
            self.shared
                .lock()
                .push((key.to_string(), owner.min(source), owner.max(source)));
            if owner > source {
                return Ok(false);
            }
        }
        write_atomic(dir, name, data)?;
        m.insert(key.to_string(), source);
        Ok(true)
    }
}

struct Job<'a> {
    out: &'a Path,
    layout: Layout,
    tag_dir: &'a Path,
    kinds: &'a [ExportKind],
    gltf: bool,
    maps: &'a [PathBuf],
    ps_paths: &'a [PathBuf],
    bank: &'a Option<Arc<maxfs_exporters::nel::export::zone::TileBankFile>>,
    force: bool,
    claims: &'a Claims,
    /// Bytes of evaluated meshes one file may hold.
    mesh_bytes: u64,
}

fn modified(p: &Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

fn tag_name(p: &Path) -> String {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{name}.tag")
}

/// The version written into tags: outputs of another version are exported again.
pub const TOOL_VERSION: &str = concat!("maxfs ", env!("CARGO_PKG_VERSION"));

/// The tool line of a tag: the version, and the layout when it is not flat
/// (outputs written in another layout are not where this run expects them).
fn tool_id(layout: Layout) -> String {
    match layout {
        Layout::Flat => TOOL_VERSION.to_string(),
        Layout::Nel => format!("{TOOL_VERSION} layout nel"),
    }
}

/// What a tag records beyond its time stamp: the outputs exported for the
/// source and the tool that exported them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    pub tool: String,
    pub kinds: Vec<ExportKind>,
    pub gltf: bool,
}

impl Tag {
    /// The tag file's text: the pipeline's stamp line, then `tool`, `kinds`
    /// and `gltf` lines.
    pub fn render(&self, stamp: SystemTime) -> String {
        let kinds: Vec<&str> = ExportKind::ALL
            .iter()
            .filter(|k| self.kinds.contains(k))
            .map(|k| k.name())
            .collect();
        format!(
            "{}tool {}\nkinds {}\ngltf {}\n",
            humantime_utc(stamp),
            self.tool,
            kinds.join(","),
            if self.gltf { "yes" } else { "no" }
        )
    }

    /// Reads the record back; a tag without one (written by the pipeline's own
    /// exporter, or an older maxfs) records nothing.
    pub fn parse(text: &str) -> Tag {
        let mut tag = Tag {
            tool: String::new(),
            kinds: Vec::new(),
            gltf: false,
        };
        for line in text.lines().skip(1) {
            match line.split_once(' ') {
                Some(("tool", t)) => tag.tool = t.to_string(),
                Some(("kinds", k)) => {
                    tag.kinds = k.split(',').filter_map(ExportKind::from_name).collect()
                }
                Some(("gltf", g)) => tag.gltf = g == "yes",
                _ => {}
            }
        }
        tag
    }
}

/// What a fresh tag already covers of this run's request, when it was written
/// by this version for the source as it is now.
fn covered(job: &Job, p: &Path, tag: &Path) -> Option<Tag> {
    if job.force {
        return None;
    }
    let (src, t) = (modified(p)?, modified(tag)?);
    if t <= src {
        return None;
    }
    let rec = Tag::parse(&std::fs::read_to_string(tag).ok()?);
    (rec.tool == tool_id(job.layout)).then_some(rec)
}

fn export_one(job: &Job, index: usize, p: &Path) -> FileResult {
    let mut r = FileResult {
        path: p.display().to_string(),
        ..FileResult::default()
    };
    let tag = job.tag_dir.join(tag_name(p));
    let done = covered(job, p, &tag);
    let kinds: Vec<ExportKind> = job
        .kinds
        .iter()
        .copied()
        .filter(|k| !done.as_ref().is_some_and(|d| d.kinds.contains(k)))
        .collect();
    let gltf = job.gltf && !done.as_ref().is_some_and(|d| d.gltf);
    if done.is_some() && kinds.is_empty() && !gltf {
        r.status = "skipped";
        r.tag = Some(tag.display().to_string());
        return r;
    }
    let todo = Job {
        kinds: &kinds,
        gltf,
        ..*job
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        export_document(&todo, index, p, &mut r)
    }));
    let ok = match result {
        Ok(Ok(())) => true,
        Ok(Err(e)) => {
            r.error = Some(e);
            false
        }
        Err(_) => {
            r.error = Some("internal error (panic) while exporting".into());
            false
        }
    };
    r.status = if !ok {
        "failed"
    } else if r.node_errors.is_empty() && r.unevaluated.is_empty() {
        "exported"
    } else {
        "partial"
    };
    if r.status == "exported" {
        // The outputs a fresh tag recorded are still valid: the record grows.
        let mut record = done.unwrap_or(Tag {
            tool: tool_id(job.layout),
            kinds: Vec::new(),
            gltf: false,
        });
        // (`kinds` holds only what the record lacked.)
        record.kinds.extend(kinds.iter().copied());
        record.gltf |= gltf;
        let text = record.render(SystemTime::now());
        match write_atomic(job.tag_dir, &tag_name(p), text.as_bytes()) {
            Ok(t) => r.tag = Some(t.display().to_string()),
            Err(e) => {
                r.status = "failed";
                r.error = Some(format!("cannot write the tag {}: {e}", tag.display()));
            }
        }
    }
    r
}

fn export_document(job: &Job, index: usize, p: &Path, r: &mut FileResult) -> Result<(), String> {
    let doc = Document::open(p).map_err(|e| e.to_string())?;
    // One evaluation for every kind and the glTF: meshes are computed once.
    let eval = maxfs_scene::eval::SceneEval::from_document(doc)
        .map_err(|e| format!("scene not readable: {e}"))?;
    eval.set_mesh_budget(job.mesh_bytes);
    r.unevaluated = maxfs_scene::eval::core::coverage::scene_gaps(&eval)
        .iter()
        .map(|g| g.summary())
        .collect();
    r.unsafe_scripts = maxfs_scene::scripts::scan(&eval.doc, Some(&eval.graph));
    // Names written for this source: two outputs of one file under one name
    // (a per-node and the per-file .anim in a flat layout) would overwrite.
    let mut mine: Vec<String> = Vec::new();
    let mut collisions: Vec<String> = Vec::new();
    let mut write =
        |kind: &'static str, sub: &str, name: &str, data: &[u8]| -> Result<(), String> {
            let dir = job.out.join(sub);
            if !sub.is_empty() {
                std::fs::create_dir_all(&dir)
                    .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            }
            let key = if sub.is_empty() {
                name.to_string()
            } else {
                format!("{sub}/{name}")
            };
            if mine.contains(&key) {
                collisions.push(format!(
                "{kind}: {key}: another output of this file has the same name and is overwritten \
                 (use --layout nel)"
            ));
            }
            mine.push(key.clone());
            let written = job
                .claims
                .write(&dir, &key, name, index, data)
                .map_err(|e| format!("cannot write {}: {e}", dir.join(name).display()))?;
            r.outputs.push(OutputResult {
                kind,
                file: dir.join(name).display().to_string(),
                bytes: data.len(),
                written,
            });
            Ok(())
        };
    if !job.kinds.is_empty() {
        let options = maxfs_exporters::nel::export::ExportOptions {
            ps_search: Some(maxfs_exporters::gltf::TextureSearch {
                max_dir: p.parent().map(Path::to_path_buf),
                roots: job.ps_paths.to_vec(),
                log: None,
            }),
            bank: job.bank.clone(),
        };
        let set = ExportSet::build_with(&source_stem(p), &eval, job.kinds, &options);
        for f in &set.files {
            let sub = match job.layout {
                Layout::Flat => "",
                Layout::Nel => f.pipeline_dir(),
            };
            write(f.kind.name(), sub, &f.name, &f.bytes)?;
        }
        r.node_errors = set
            .errors
            .iter()
            .map(|e| format!("{}: {}: {}", e.kind.name(), e.node, e.reason))
            .collect();
    }
    if job.gltf {
        let search = maxfs_exporters::gltf::TextureSearch {
            max_dir: p.parent().map(Path::to_path_buf),
            roots: job.maps.to_vec(),
            log: None,
        };
        let e =
            maxfs_exporters::gltf::export_scene_with(&eval, &search).map_err(|e| e.to_string())?;
        write("gltf", "", &format!("{}.glb", source_stem(p)), &e.glb)?;
        r.warnings.extend(e.warnings.iter().cloned());
        // Left-out or approximated parts make the file partial (no tag), like
        // a NeL node error.
        r.node_errors.extend(e.gaps().map(|d| format!("gltf: {d}")));
    }
    r.node_errors.extend(collisions);
    Ok(())
}

/// `YYYY-MM-DD HH:MMGMT`, the tag text of the NeL pipeline.
fn humantime_utc(t: SystemTime) -> String {
    let t = time::OffsetDateTime::from(t);
    t.format(time::macros::format_description!(
        "[year]-[month]-[day] [hour]:[minute]GMT\n"
    ))
    .unwrap_or_else(|_| "1970-01-01 00:00GMT\n".into())
}

fn parse_kinds(args: &ExportArgs) -> Result<Vec<ExportKind>, String> {
    if args.kind.is_empty() {
        return Ok(if args.gltf {
            Vec::new()
        } else {
            ExportKind::ALL.to_vec()
        });
    }
    args.kind
        .iter()
        .map(|k| {
            ExportKind::from_name(k.trim()).ok_or_else(|| {
                let names: Vec<&str> = ExportKind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown kind {k:?} (expected one of {})", names.join(", "))
            })
        })
        .collect()
}

pub fn run(args: ExportArgs) -> ExitCode {
    let start = Instant::now();
    let kinds = match parse_kinds(&args) {
        Ok(k) => k,
        Err(e) => {
            eprintln!("maxfs export: {e}");
            return ExitCode::from(2);
        }
    };
    let tag_dir = args.tag_dir.clone().unwrap_or_else(|| args.out.clone());
    for d in [&args.out, &tag_dir] {
        if let Err(e) = std::fs::create_dir_all(d) {
            eprintln!("maxfs export: {}: {e}", d.display());
            return ExitCode::FAILURE;
        }
    }
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .build()
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("maxfs export: cannot start worker threads: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (files, problems) = walk::collect(&args.paths, &|p| walk::has_ext(p, "max"));
    let claims = Arc::new(Claims::default());
    let bank = match &args.bank {
        Some(b) => match maxfs_exporters::nel::export::zone::TileBankFile::load(b) {
            Ok(bank) => Some(Arc::new(bank)),
            Err(e) => {
                eprintln!("maxfs export: --bank: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => None,
    };
    let job = Job {
        out: &args.out,
        layout: args.layout,
        tag_dir: &tag_dir,
        kinds: &kinds,
        gltf: args.gltf,
        maps: &args.maps,
        ps_paths: &args.ps_path,
        bank: &bank,
        force: args.force,
        claims: &claims,
        mesh_bytes: args.meshes_mb.saturating_mul(1 << 20),
    };
    let pb = walk::progress(files.len() as u64, "exporting");
    let results: Vec<FileResult> = pool.install(|| {
        files
            .par_iter()
            .enumerate()
            .map(|(i, p)| {
                let r = export_one(&job, i, p);
                pb.inc(1);
                r
            })
            .collect()
    });
    pb.finish_and_clear();

    let mut summary = Summary {
        files: results.len(),
        problems,
        ..Summary::default()
    };
    for r in &results {
        match r.status {
            "exported" => summary.exported += 1,
            "partial" => summary.partial += 1,
            "skipped" => summary.skipped += 1,
            _ => summary.failed += 1,
        }
        summary.node_errors += r.node_errors.len();
        summary.unsafe_scripts += usize::from(!r.unsafe_scripts.is_empty());
        for o in &r.outputs {
            summary.outputs += 1;
            summary.bytes += o.bytes as u64;
            *summary.per_kind.entry(o.kind).or_default() += 1;
        }
    }
    let mut shared = std::mem::take(&mut *claims.shared.lock());
    shared.sort();
    for (name, earlier, later) in shared {
        let path = |i: usize| {
            files
                .get(i)
                .map_or_else(String::new, |p| p.display().to_string())
        };
        summary.problems.push(format!(
            "{name} is exported by {} and by {}; the later one is kept",
            path(earlier),
            path(later)
        ));
    }
    summary.seconds = start.elapsed().as_secs_f64();
    summary.files_per_second = if summary.seconds > 0.0 {
        (summary.files - summary.skipped) as f64 / summary.seconds
    } else {
        0.0
    };
    print_results(&args, &results, &summary);
    if let Some(path) = &args.report {
        let v = serde_json::json!({ "files": results, "summary": summary });
        let text = serde_json::to_string_pretty(&v).unwrap_or_default();
        if let Err(e) = std::fs::write(path, text + "\n") {
            eprintln!("maxfs export: --report {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    if summary.failed > 0 || summary.partial > 0 || !summary.problems.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn print_results(args: &ExportArgs, results: &[FileResult], summary: &Summary) {
    let mut out = std::io::stdout().lock();
    if args.json {
        let v = serde_json::json!({ "files": results, "summary": summary });
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&v).unwrap_or_default()
        );
        return;
    }
    for r in results {
        let label = match r.status {
            "exported" => "ok     ",
            "partial" => "PARTIAL",
            "skipped" => "skip   ",
            _ => "FAIL   ",
        };
        let bytes: usize = r.outputs.iter().map(|o| o.bytes).sum();
        let _ = match &r.error {
            Some(e) => writeln!(out, "{label} {}  {e}", r.path),
            None => writeln!(
                out,
                "{label} {}  [{} files, {bytes} bytes]",
                r.path,
                r.outputs.len()
            ),
        };
        for e in &r.node_errors {
            let _ = writeln!(out, "          node error: {e}");
        }
        for u in &r.unevaluated {
            let _ = writeln!(out, "          {u}");
        }
        for f in &r.unsafe_scripts {
            let _ = writeln!(out, "          unsafe script: {}", f.summary());
        }
    }
    for p in &summary.problems {
        let _ = writeln!(out, "problem: {p}");
    }
    let kinds: Vec<String> = summary
        .per_kind
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    let _ = writeln!(
        out,
        "{} files: {} exported, {} partial, {} skipped, {} failed; {} outputs ({}), {} bytes, \
         {} node errors in {:.2}s ({:.1} files/s)",
        summary.files,
        summary.exported,
        summary.partial,
        summary.skipped,
        summary.failed,
        summary.outputs,
        if kinds.is_empty() {
            "none".to_string()
        } else {
            kinds.join(", ")
        },
        summary.bytes,
        summary.node_errors,
        summary.seconds,
        summary.files_per_second
    );
    if summary.unsafe_scripts > 0 {
        let _ = writeln!(
            out,
            "{} files carry embedded scripts with unsafe commands (not run; do not open them in 3ds Max unprotected)",
            summary.unsafe_scripts
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_stamp_is_the_pipeline_format() {
        let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_796_000_000);
        // 2026-11-30 00:53 GMT
        let s = humantime_utc(t);
        assert_eq!(s, "2026-11-30 00:53GMT\n");
        assert_eq!(
            humantime_utc(SystemTime::UNIX_EPOCH),
            "1970-01-01 00:00GMT\n"
        );
    }
}
