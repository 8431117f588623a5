//! `maxfs ls`, `maxfs cat` and `maxfs textconv`: the virtual tree without FUSE.
//! A path on the command line is a real path that may continue into a `.max`
//! file (`corpus/street.max/json/nodes.json`); the output is exactly what the
//! mount serves at that path.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use maxfs_fs::{Kind, MaxFs, Options};

#[derive(Args)]
pub struct LsArgs {
    /// Long format: kind, exact size, name.
    #[arg(short, long)]
    long: bool,
    /// Recursive: every path below PATH, relative to it; directories end in `/`.
    #[arg(short = 'R', long)]
    recursive: bool,
    /// One or more paths; with several, each listing is headed `PATH:` as ls does.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

#[derive(Args)]
pub struct CatArgs {
    /// For a NeL file (.shape, .skel, .anim, .ig, .zone, …): print it decoded as JSON.
    #[arg(long)]
    json: bool,
    /// With --json: print large arrays in full instead of summarized.
    #[arg(long, requires = "json")]
    full: bool,
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

#[derive(Args)]
pub struct TextconvArgs {
    /// A .max file (git passes a temporary copy).
    file: PathBuf,
}

/// Splits a command-line path into the tree root and the path below it: the root
/// is the directory holding the first `.max` component (or the path's parent).
pub fn split(path: &Path) -> std::io::Result<(PathBuf, PathBuf)> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()?.join(path)
    };
    let mut prefix = PathBuf::new();
    let comps: Vec<Component> = abs.components().collect();
    for (i, c) in comps.iter().enumerate() {
        prefix.push(c);
        let is_max = prefix
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("max"));
        if is_max && prefix.is_file() {
            // A command-line path may go through links (the tree never follows
            // them): root and name are those of the file the path reaches.
            let real = std::fs::canonicalize(&prefix)?;
            let root = real.parent().map(Path::to_path_buf).unwrap_or_default();
            let mut rel = PathBuf::from(real.file_name().unwrap_or_default());
            rel.extend(&comps[i + 1..]);
            return Ok((root, rel));
        }
    }
    // No `.max` on the way: a real path, taken as the file or directory it reaches.
    let abs = std::fs::canonicalize(&abs).unwrap_or(abs);
    match (abs.parent(), abs.file_name()) {
        (Some(parent), Some(name)) => Ok((parent.to_path_buf(), PathBuf::from(name))),
        _ => Ok((abs, PathBuf::new())),
    }
}

fn open_tree(path: &Path) -> Result<(MaxFs, PathBuf), String> {
    let (root, rel) = split(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((MaxFs::new(root, Options::default()), rel))
}

fn fail(path: &Path, e: impl std::fmt::Display) -> ExitCode {
    eprintln!("maxfs: {}: {e}", path.display());
    ExitCode::FAILURE
}

/// Every path below `rel` (depth first, sorted), as (relative path, kind, size).
pub fn walk(fs: &MaxFs, rel: &Path) -> Result<Vec<(PathBuf, Kind, u64)>, maxfs_fs::FsError> {
    let mut out = Vec::new();
    let top = fs.lookup(rel)?;
    walk_into(fs, &top, PathBuf::new(), &mut out)?;
    Ok(out)
}

fn walk_into(
    fs: &MaxFs,
    dir: &maxfs_fs::Entry,
    at: PathBuf,
    out: &mut Vec<(PathBuf, Kind, u64)>,
) -> Result<(), maxfs_fs::FsError> {
    for (name, _) in fs.list(dir)? {
        let e = match fs.child(dir, &name) {
            Ok(e) => e,
            Err(err) => {
                log::warn!("{}: {err}", at.join(&name).display());
                continue;
            }
        };
        let p = at.join(&name);
        out.push((p.clone(), e.kind, e.size));
        if e.kind == Kind::Dir {
            walk_into(fs, &e, p, out)?;
        }
    }
    Ok(())
}

fn show(name: &OsString) -> String {
    name.to_string_lossy().into_owned()
}

pub fn ls(args: LsArgs, out: &mut dyn Write) -> ExitCode {
    let mut code = ExitCode::SUCCESS;
    let many = args.paths.len() > 1;
    for (i, path) in args.paths.iter().enumerate() {
        let text = match ls_one(&args, path) {
            Ok(t) => t,
            Err(c) => {
                code = c;
                continue;
            }
        };
        let head = match (many, i) {
            (false, _) => String::new(),
            (true, 0) => format!("{}:\n", path.display()),
            (true, _) => format!("\n{}:\n", path.display()),
        };
        if let Err(e) = out
            .write_all(head.as_bytes())
            .and_then(|_| out.write_all(text.as_bytes()))
        {
            return fail(path, e);
        }
    }
    if let Err(e) = out.flush() {
        return fail(Path::new("stdout"), e);
    }
    code
}

/// The listing of one path, or the exit code after the error was printed.
fn ls_one(args: &LsArgs, path: &Path) -> Result<String, ExitCode> {
    let (fs, rel) = open_tree(path).map_err(|e| fail(path, e))?;
    let entry = fs.lookup(&rel).map_err(|e| fail(path, e))?;
    let line = |kind: Kind, size: u64, name: &str| -> String {
        if args.long {
            let k = match kind {
                Kind::Dir => 'd',
                Kind::File => '-',
                Kind::Symlink => 'l',
            };
            format!("{k} {size:>12} {name}\n")
        } else {
            format!("{name}\n")
        }
    };
    let mut text = String::new();
    if entry.kind != Kind::Dir {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        text.push_str(&line(entry.kind, entry.size, &name));
    } else if args.recursive {
        for (p, kind, size) in walk(&fs, &rel).map_err(|e| fail(path, e))? {
            let mut name = p.to_string_lossy().into_owned();
            if kind == Kind::Dir {
                name.push('/');
            }
            text.push_str(&line(kind, size, &name));
        }
    } else {
        for (name, kind) in fs.list(&entry).map_err(|e| fail(path, e))? {
            let size = if args.long {
                fs.child(&entry, &name)
                    .map_err(|e| fail(&path.join(&name), e))?
                    .size
            } else {
                0
            };
            let mut n = show(&name);
            if kind == Kind::Dir && args.long {
                n.push('/');
            }
            text.push_str(&line(kind, size, &n));
        }
    }
    Ok(text)
}

pub fn cat(args: CatArgs, out: &mut dyn Write) -> ExitCode {
    let mut code = ExitCode::SUCCESS;
    for path in &args.paths {
        let bytes =
            match open_tree(path).and_then(|(fs, rel)| fs.read(&rel).map_err(|e| e.to_string())) {
                Ok(b) => b,
                Err(e) => {
                    code = fail(path, e);
                    continue;
                }
            };
        let bytes = if args.json {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            match maxfs_exporters::nel::nel_json(&bytes, &name, args.full) {
                Ok(mut s) => {
                    if !s.ends_with('\n') {
                        s.push('\n');
                    }
                    s.into_bytes()
                }
                Err(e) => {
                    code = fail(path, e);
                    continue;
                }
            }
        } else {
            bytes
        };
        if let Err(e) = out.write_all(&bytes) {
            return fail(path, e);
        }
    }
    if let Err(e) = out.flush() {
        return fail(Path::new("stdout"), e);
    }
    code
}

pub fn textconv(args: TextconvArgs, out: &mut dyn Write) -> ExitCode {
    let bytes = match std::fs::read(&args.file) {
        Ok(b) => b,
        Err(e) => return fail(&args.file, e),
    };
    let name = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = maxfs_fs::textconv::textconv(&name, &bytes);
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&args.file, e),
    }
}
