//! `maxfs nel`: summary, JSON view and round-trip check of NeL files.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use maxfs_exporters::nel;

#[derive(clap::Args)]
pub struct NelArgs {
    /// NeL files (or directories to walk).
    pub files: Vec<PathBuf>,
    /// Read each file, write it back and compare; exit non-zero on any mismatch or error.
    #[arg(long, conflicts_with = "json")]
    pub check: bool,
    /// Print the decoded file as JSON (one file).
    #[arg(long)]
    pub json: bool,
    /// With --json: dump large arrays in full instead of summarizing them.
    #[arg(long, requires = "json")]
    pub full: bool,
}

fn walk(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let Ok(rd) = std::fs::read_dir(p) else {
            return;
        };
        let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        entries.sort();
        for e in entries {
            if e.is_dir() {
                walk(&e, out);
            } else if e.extension().and_then(|x| x.to_str()).is_some_and(|x| {
                maxfs_exporters::nel::EXTENSIONS
                    .iter()
                    .any(|w| w.eq_ignore_ascii_case(x))
            }) {
                out.push(e);
            }
        }
    } else {
        out.push(p.to_path_buf());
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

pub fn run(args: NelArgs) -> ExitCode {
    let mut files = Vec::new();
    for f in &args.files {
        walk(f, &mut files);
    }
    if files.is_empty() {
        eprintln!("maxfs nel: no files given (or no NeL files found)");
        return ExitCode::from(2);
    }
    if args.json {
        return json(&files, args.full);
    }
    let bar = if std::io::stderr().is_terminal() && files.len() > 1 {
        let b = indicatif::ProgressBar::new(files.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {wide_msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        Some(b)
    } else {
        None
    };
    let mut out = std::io::stdout().lock();
    let (mut ok, mut bad) = (0usize, 0usize);
    for p in &files {
        if let Some(b) = &bar {
            b.set_message(p.display().to_string());
        }
        let line = match std::fs::read(p) {
            Err(e) => {
                bad += 1;
                format!("ERROR  {}: {e}", p.display())
            }
            Ok(bytes) if args.check => check_line(p, &bytes, &mut ok, &mut bad),
            Ok(bytes) => match nel::nel_summary(&bytes, &file_name(p)) {
                Ok(s) => {
                    ok += 1;
                    let counts: Vec<String> =
                        s.counts.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    format!(
                        "{:<8} {:<22} v{:<3} {:<40} {}",
                        s.kind.name(),
                        s.class,
                        s.version,
                        counts.join(" "),
                        p.display()
                    )
                }
                Err(e) => {
                    bad += 1;
                    format!("ERROR    {}: {e}", p.display())
                }
            },
        };
        if let Some(b) = &bar {
            b.suspend(|| {
                let _ = writeln!(out, "{line}");
            });
            b.inc(1);
        } else if writeln!(out, "{line}").is_err() {
            return ExitCode::from(1);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let verb = if args.check { "identical" } else { "read" };
    let _ = writeln!(out, "{} files: {ok} {verb}, {bad} failed", files.len());
    if bad > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn check_line(p: &Path, bytes: &[u8], ok: &mut usize, bad: &mut usize) -> String {
    let kind = nel::detect(bytes, &file_name(p)).map_or("?", |k| k.name());
    match nel::read_nel(bytes, &file_name(p)).and_then(|f| nel::write_nel(&f)) {
        Ok(out) if out == bytes => {
            *ok += 1;
            format!("OK     {kind:<8} {}", p.display())
        }
        Ok(out) => {
            *bad += 1;
            let at = out
                .iter()
                .zip(bytes)
                .position(|(a, b)| a != b)
                .unwrap_or(out.len().min(bytes.len()));
            format!(
                "DIFF   {kind:<8} {}: first difference at 0x{at:x} ({} bytes written, {} read)",
                p.display(),
                out.len(),
                bytes.len()
            )
        }
        Err(e) => {
            *bad += 1;
            format!("ERROR  {kind:<8} {}: {e}", p.display())
        }
    }
}

fn json(files: &[PathBuf], full: bool) -> ExitCode {
    let mut status = ExitCode::SUCCESS;
    for p in files {
        let r = std::fs::read(p)
            .map_err(|e| e.to_string())
            .and_then(|b| nel::nel_json(&b, &file_name(p), full).map_err(|e| e.to_string()));
        match r {
            Ok(j) => {
                if std::io::stdout().write_all(j.as_bytes()).is_err() {
                    return ExitCode::from(1);
                }
            }
            Err(e) => {
                eprintln!("maxfs nel: {}: {e}", p.display());
                status = ExitCode::from(1);
            }
        }
    }
    status
}
