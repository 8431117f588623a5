//! Collecting the files a command works on from paths given on the command line.

use std::path::{Path, PathBuf};

/// Files named directly, plus files under named directories whose extension
/// matches `accept` (case-insensitive); sorted, deduplicated. Unreadable
/// directories are reported in the second list, never skipped silently.
pub fn collect(paths: &[PathBuf], accept: &dyn Fn(&Path) -> bool) -> (Vec<PathBuf>, Vec<String>) {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk_dir(p, accept, &mut files, &mut problems);
        } else if p.exists() {
            files.push(p.clone());
        } else {
            problems.push(format!("{}: no such file or directory", p.display()));
        }
    }
    files.sort();
    files.dedup();
    (files, problems)
}

fn walk_dir(
    dir: &Path,
    accept: &dyn Fn(&Path) -> bool,
    files: &mut Vec<PathBuf>,
    problems: &mut Vec<String>,
) {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) => {
            problems.push(format!("{}: {e}", dir.display()));
            return;
        }
    };
    for entry in rd {
        match entry {
            Ok(e) => {
                let p = e.path();
                match e.file_type() {
                    Ok(t) if t.is_dir() => walk_dir(&p, accept, files, problems),
                    Ok(_) if accept(&p) => files.push(p),
                    Ok(_) => {}
                    Err(err) => problems.push(format!("{}: {err}", p.display())),
                }
            }
            Err(err) => problems.push(format!("{}: {err}", dir.display())),
        }
    }
}

pub fn has_ext(p: &Path, ext: &str) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// A progress bar on stderr when it is a terminal, hidden otherwise.
pub fn progress(len: u64, what: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let pb = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} {msg} [{bar:40}] {pos}/{len} {elapsed_precise} eta {eta}",
    ) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(what.to_string());
    pb
}
