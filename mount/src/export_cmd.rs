//! `maxfs export SRC... --out DIR --gltf`: writes `<name>.glb` for every `.max`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

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
    /// Write binary glTF 2.0 (.glb) files.
    #[arg(long)]
    pub gltf: bool,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Serialize)]
struct FileResult {
    path: String,
    output: Option<String>,
    bytes: usize,
    warnings: Vec<String>,
    error: Option<String>,
}

#[derive(Serialize)]
struct Summary {
    files: usize,
    exported: usize,
    failed: usize,
    warnings: usize,
    seconds: f64,
    problems: Vec<String>,
}

/// Writes `data` to `dir/name` through a temporary file in `dir` and a rename.
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

fn export_one(p: &Path, out: &Path) -> FileResult {
    let mut r = FileResult {
        path: p.display().to_string(),
        output: None,
        bytes: 0,
        warnings: Vec::new(),
        error: None,
    };
    let exported = std::panic::catch_unwind(|| maxfs_exporters::gltf::export_file(p))
        .unwrap_or_else(|_| Err("internal error (panic) while exporting".into()));
    match exported {
        Ok(e) => {
            let stem = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "scene".into());
            match write_atomic(out, &format!("{stem}.glb"), &e.glb) {
                Ok(t) => {
                    r.output = Some(t.display().to_string());
                    r.bytes = e.glb.len();
                }
                Err(err) => r.error = Some(format!("cannot write: {err}")),
            }
            r.warnings = e.warnings;
        }
        Err(e) => r.error = Some(e),
    }
    r
}

pub fn run(args: ExportArgs) -> ExitCode {
    let start = Instant::now();
    if !args.gltf {
        eprintln!("maxfs export: choose a format (--gltf)");
        return ExitCode::from(2);
    }
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        eprintln!("maxfs export: {}: {e}", args.out.display());
        return ExitCode::FAILURE;
    }
    let (files, problems) = walk::collect(&args.paths, &|p| walk::has_ext(p, "max"));
    let pb = walk::progress(files.len() as u64, "exporting");
    let results: Vec<FileResult> = files
        .par_iter()
        .map(|p| {
            let r = export_one(p, &args.out);
            pb.inc(1);
            r
        })
        .collect();
    pb.finish_and_clear();
    let failed = results.iter().filter(|r| r.error.is_some()).count();
    let summary = Summary {
        files: results.len(),
        exported: results.len() - failed,
        failed,
        warnings: results.iter().map(|r| r.warnings.len()).sum(),
        seconds: start.elapsed().as_secs_f64(),
        problems,
    };
    let mut out = std::io::stdout().lock();
    if args.json {
        let v = serde_json::json!({ "files": results, "summary": summary });
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&v).unwrap_or_default()
        );
    } else {
        for r in &results {
            let _ = match (&r.error, &r.output) {
                (Some(e), _) => writeln!(out, "FAIL  {}  {e}", r.path),
                (None, Some(o)) => writeln!(
                    out,
                    "ok    {} -> {o}  [{} bytes, {} warnings]",
                    r.path,
                    r.bytes,
                    r.warnings.len()
                ),
                (None, None) => writeln!(out, "FAIL  {}", r.path),
            };
        }
        for p in &summary.problems {
            let _ = writeln!(out, "problem: {p}");
        }
        let _ = writeln!(
            out,
            "{} files, {} exported, {} failed, {} warnings in {:.1}s",
            summary.files, summary.exported, summary.failed, summary.warnings, summary.seconds
        );
    }
    if failed > 0 || !summary.problems.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
