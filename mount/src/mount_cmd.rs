//! `maxfs mount SRC MNT`: serve the tree in the foreground until SIGINT/SIGTERM
//! (or `umount MNT`), then unmount. A stale mount point (a previous maxfs died)
//! or one already in use is refused with a clear message; `--force` detaches it
//! lazily first.
#![allow(unsafe_code)] // umount2, signal masks and mallopt through libc

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use maxfs_fs::{MaxFs, Options};

use crate::fuse::{config, FuseOptions, MaxFuse};

#[derive(Args)]
pub struct MountArgs {
    /// The checkout to mirror (read-only).
    pub src: PathBuf,
    /// An empty directory to mount on.
    pub mnt: PathBuf,
    /// Memory budget of generated files (JSON views, info, thumbnails), in MiB.
    #[arg(long, default_value_t = 512)]
    pub cache_mb: u64,
    /// Memory budget of parsed .max files with their evaluation and exports, in MiB.
    #[arg(long, default_value_t = 1024)]
    pub documents_mb: u64,
    /// Memory budget of one file's evaluated meshes, in MiB: a mesh that would
    /// take a file past it is refused naming the budget (the file is partial).
    #[arg(long, default_value_t = maxfs_scene::eval::DEFAULT_MESH_BUDGET >> 20)]
    pub meshes_mb: u64,
    /// How many files may be evaluated at once (default: one per CPU); the
    /// other readers of generated files wait. Bounds the memory the mount
    /// uses while evaluating to this many --meshes-mb budgets.
    #[arg(long)]
    pub evaluations: Option<usize>,
    /// Folder searched (recursively, ignoring case) for the texture images
    /// `export/scene.glb` embeds, after the stored path and the .max's folder;
    /// repeatable.
    #[arg(long, value_name = "DIR")]
    pub maps: Vec<PathBuf>,
    /// Folder searched (recursively, ignoring case) for the particle-system
    /// shapes (`.ps`) whose bounding boxes place FX instances in the clusters
    /// of `export/*.ig`, after the stored path and the .max's folder; repeatable.
    #[arg(long, value_name = "DIR")]
    pub ps_path: Vec<PathBuf>,
    /// The ecosystem's small tile bank (`.bank`) that zone symmetry / rotation
    /// (ligo transition bricks, ZONE_SYMMETRY / ZONE_ROTATE) go through in
    /// `export/*.zone`; without it such zones are refused by name.
    #[arg(long, value_name = "FILE")]
    pub bank: Option<PathBuf>,
    /// Print the caches' statistics (hits, misses, evictions, bytes held per
    /// cache, parses) as one JSON line on stderr every SECS seconds and at unmount.
    #[arg(long, value_name = "SECS")]
    pub stats: Option<u64>,
    /// Keep generated exports and JSON views in DIR across mounts, keyed by each
    /// source's content hash and this build of maxfs (off by default). DIR must
    /// lie outside the source tree and the mount point.
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// FUSE worker threads (default and minimum: 16, or the number of CPUs if
    /// larger). A worker parsing a large file answers nothing else meanwhile;
    /// the others keep the mount responsive.
    #[arg(long)]
    pub threads: Option<usize>,
    /// How long, in seconds, the kernel may reuse what it learnt about real
    /// files, directories and `foo.max` directories: a source replaced or
    /// rewritten shows its new version within this time. 0 makes every access
    /// look at the source again (slower walks). Entries inside a `foo.max/`
    /// are versioned and always cached long.
    #[arg(long, default_value_t = 1.0, value_name = "SECS")]
    pub ttl: f64,
    /// Leave `chunks/` out of the listing of every `foo.max/` (it stays
    /// reachable by path): `find`, `du` and `grep -r` over the mount then skip
    /// the chunk trees, which are nearly all of the tree's entries.
    #[arg(long)]
    pub hide_chunks: bool,
    #[command(flatten)]
    pub limits: crate::limits::LimitArgs,
    /// Lazily unmount whatever is mounted on MNT (stale or live) before mounting.
    #[arg(long)]
    pub force: bool,
    /// Log more on stderr: -v info, -vv debug (every failed lookup), -vvv trace.
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub verbose: u8,
}

/// What is on a mount point before mounting.
#[derive(Debug, PartialEq, Eq)]
pub enum MountPointState {
    Free,
    /// A FUSE mount whose server is gone: "Transport endpoint is not connected".
    Stale,
    /// Something is mounted there: (file system type, source).
    Busy(String, String),
}

fn unescape_mountinfo(s: &str) -> String {
    // mountinfo escapes space, tab, newline and backslash as \ooo.
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            let v = (b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0');
            out.push(v);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The (type, source) of the mount on `mnt`, from /proc/self/mountinfo.
fn mounted_on(mnt: &Path) -> Option<(String, String)> {
    let info = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let want = mnt.to_string_lossy();
    info.lines().rev().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let point = unescape_mountinfo(left.split(' ').nth(4)?);
        if point != want {
            return None;
        }
        let mut r = right.split(' ');
        Some((r.next()?.to_string(), r.next().unwrap_or("").to_string()))
    })
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    }
}

/// Looks at a mount point without mounting.
pub fn inspect(mnt: &Path) -> std::io::Result<MountPointState> {
    match std::fs::metadata(mnt) {
        Err(e) if e.raw_os_error() == Some(libc::ENOTCONN) => Ok(MountPointState::Stale),
        Err(e) => Err(e),
        Ok(m) if !m.is_dir() => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a directory",
        )),
        Ok(_) => {
            let canon = std::fs::canonicalize(mnt).unwrap_or_else(|_| absolute(mnt));
            Ok(match mounted_on(&canon) {
                Some((t, s)) => MountPointState::Busy(t, s),
                None => MountPointState::Free,
            })
        }
    }
}

/// Detaches whatever is mounted on `mnt` (MNT_DETACH, like `umount -l`).
pub fn lazy_unmount(mnt: &Path) -> std::io::Result<()> {
    let c = std::ffi::CString::new(mnt.as_os_str().as_encoded_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    // SAFETY: c is a valid NUL-terminated path for the duration of the call.
    let r = unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Unmounts `mnt`, lazily when it is busy (a shell still inside it).
pub fn unmount(mnt: &Path) -> std::io::Result<()> {
    let c = std::ffi::CString::new(mnt.as_os_str().as_encoded_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    // SAFETY: as above.
    let r = unsafe { libc::umount2(c.as_ptr(), 0) };
    if r == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EBUSY) => lazy_unmount(mnt),
        Some(libc::EINVAL) => Ok(()), // not mounted any more
        _ => Err(e),
    }
}

/// Checks the mount point, detaching a stale or busy one when forced.
pub fn prepare(mnt: &Path, force: bool) -> Result<(), String> {
    let shown = mnt.display();
    match inspect(mnt).map_err(|e| format!("{shown}: {e}"))? {
        MountPointState::Free => Ok(()),
        MountPointState::Stale if force => {
            log::warn!("{shown}: detaching a stale mount (--force)");
            lazy_unmount(mnt).map_err(|e| format!("{shown}: cannot detach the stale mount: {e}"))
        }
        MountPointState::Stale => Err(format!(
            "{shown} is a stale FUSE mount (transport endpoint is not connected): a previous \
             maxfs exited without unmounting.\n  Fix: umount -l {shown}   (or fusermount -uz {shown}), \
             or run again with --force"
        )),
        MountPointState::Busy(t, s) if force => {
            log::warn!("{shown}: detaching {t} from {s} (--force)");
            lazy_unmount(mnt).map_err(|e| format!("{shown}: cannot detach: {e}"))
        }
        MountPointState::Busy(t, s) => Err(format!(
            "{shown} is already a mount point ({t} from {s}).\n  Fix: umount {shown} first, or run \
             again with --force to detach it lazily"
        )),
    }
}

fn termination_signals() -> libc::sigset_t {
    // SAFETY: plain libc signal-set manipulation on a local sigset_t.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut set, s);
        }
        set
    }
}

/// Blocks the termination signals in this thread and every thread it starts
/// later (the FUSE workers), so only the waiter below receives them.
fn block_signals() -> std::io::Result<()> {
    let set = termination_signals();
    // SAFETY: set is a valid, initialised sigset_t.
    if unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// A thread that waits for SIGINT/SIGTERM/SIGHUP and unmounts, which ends the session.
fn spawn_signal_waiter(
    mnt: PathBuf,
    mut unmounter: fuser::SessionUnmounter,
) -> std::io::Result<()> {
    let set = termination_signals();
    std::thread::Builder::new()
        .name("maxfs-signals".into())
        .spawn(move || loop {
            let mut sig: libc::c_int = 0;
            // SAFETY: set and sig are valid for the call.
            if unsafe { libc::sigwait(&set, &mut sig) } != 0 {
                continue;
            }
            log::info!("signal {sig}: unmounting {}", mnt.display());
            match unmounter.unmount().or_else(|_| lazy_unmount(&mnt)) {
                Ok(()) => break,
                Err(e) => log::error!("cannot unmount {}: {e}", mnt.display()),
            }
        })?;
    Ok(())
}

pub fn run(args: MountArgs) -> ExitCode {
    let src = match std::fs::canonicalize(&args.src) {
        Ok(p) if p.is_dir() => p,
        Ok(p) => {
            eprintln!("maxfs: {}: not a directory", p.display());
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("maxfs: {}: {e}", args.src.display());
            return ExitCode::FAILURE;
        }
    };
    let mnt = absolute(&args.mnt);
    if let Err(msg) = prepare(&mnt, args.force) {
        eprintln!("maxfs: {msg}");
        return ExitCode::FAILURE;
    }
    let mnt = std::fs::canonicalize(&mnt).unwrap_or(mnt);
    if src.starts_with(&mnt) || mnt.starts_with(&src) {
        eprintln!(
            "maxfs: the mount point {} and the source {} must not contain each other",
            mnt.display(),
            src.display()
        );
        return ExitCode::FAILURE;
    }
    let disk_cache = match &args.cache_dir {
        None => None,
        Some(dir) => {
            if absolute(dir).starts_with(&mnt) {
                eprintln!(
                    "maxfs: the cache directory {} must not be inside the mount point {}",
                    dir.display(),
                    mnt.display()
                );
                return ExitCode::FAILURE;
            }
            match maxfs_fs::disk_cache::DiskCache::open(dir, &src) {
                Ok(c) => Some(Arc::new(c)),
                Err(e) => {
                    eprintln!("maxfs: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    };
    tune_malloc();
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
        .max(crate::fuse::MIN_WORKERS);
    let ttl = match std::time::Duration::try_from_secs_f64(args.ttl) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("maxfs: --ttl {}: {e}", args.ttl);
            return ExitCode::FAILURE;
        }
    };
    let bank = match &args.bank {
        Some(b) => match maxfs_exporters::nel::export::zone::TileBankFile::load(b) {
            Ok(bank) => Some(Arc::new(bank)),
            Err(e) => {
                eprintln!("maxfs: --bank: {e}");
                return ExitCode::FAILURE;
            }
        },
        None => None,
    };
    let tree = Arc::new(MaxFs::new(
        src.clone(),
        Options {
            cache_bytes: args.cache_mb.saturating_mul(1 << 20),
            document_bytes: args.documents_mb.saturating_mul(1 << 20),
            inflate: args.limits.limits(),
            mesh_bytes: args.meshes_mb.saturating_mul(1 << 20),
            evaluations: args
                .evaluations
                .unwrap_or_else(maxfs_fs::eval_gate::default_permits),
            disk_cache,
            list_chunks: !args.hide_chunks,
            maps: args.maps.clone(),
            ps_paths: args.ps_path.clone(),
            bank,
        },
    ));
    if let Err(e) = block_signals() {
        eprintln!("maxfs: cannot install signal handling: {e}");
        return ExitCode::FAILURE;
    }
    let print_stats = {
        let tree = tree.clone();
        move || {
            eprintln!(
                "maxfs: stats: {}",
                serde_json::to_string(&tree.stats()).unwrap_or_default()
            )
        }
    };
    if let Some(secs) = args.stats {
        let print = print_stats.clone();
        let period = std::time::Duration::from_secs(secs.max(1));
        // Ends with the process; prints nothing but the line.
        std::thread::spawn(move || loop {
            std::thread::sleep(period);
            print();
        });
    }
    let mut binding = MaxFuse::with_options(tree.clone(), FuseOptions { ttl });
    // Without inotify (limit reached, no kernel support) changes show after --ttl.
    let watch = match crate::fuse::SourceWatch::new() {
        Ok(w) => {
            binding = binding.with_watch(w.clone());
            Some(w)
        }
        Err(e) => {
            log::warn!("no source watch ({e}): changed sources show after --ttl");
            None
        }
    };
    let prefill = binding.prefill();
    let mut session = match fuser::Session::new(binding, &mnt, &config(threads)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("maxfs: cannot mount on {}: {e}", mnt.display());
            return ExitCode::FAILURE;
        }
    };
    prefill.start(session.notifier());
    if let Some(w) = &watch {
        if let Err(e) = w.start(session.notifier(), tree) {
            log::warn!("no source watch ({e}): changed sources show after --ttl");
        }
    }
    if let Err(e) = spawn_signal_waiter(mnt.clone(), session.unmount_callable()) {
        eprintln!("maxfs: cannot install signal handling: {e}");
        return ExitCode::FAILURE;
    }
    // Always printed, whatever the log level: scripts wait for this line before
    // using the mount (the kernel holds requests until the session runs).
    eprintln!(
        "maxfs: ready: serving {} on {} (read-only, {threads} threads); Ctrl-C or `umount {}` to stop",
        src.display(),
        mnt.display(),
        mnt.display()
    );
    let result = session.run();
    if args.stats.is_some() {
        print_stats();
    }
    // The session unmounts when it ends; make sure nothing stays behind on errors.
    if matches!(
        inspect(&mnt),
        Ok(MountPointState::Busy(..)) | Ok(MountPointState::Stale)
    ) {
        let _ = unmount(&mnt);
    }
    match result {
        Ok(()) => {
            log::info!("unmounted {}", mnt.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("maxfs: {}: {e}", mnt.display());
            ExitCode::FAILURE
        }
    }
}

/// Allocator settings for a long-running mount that parses and drops documents:
/// - glibc gives each thread that allocates under contention its own arena, and
///   memory freed in one arena is only reused by that arena: two arenas keep
///   both threads of a small machine fast without multiplying the retained heap;
/// - a fixed mmap threshold (128 KiB) keeps large buffers of parsed documents
///   (stream data, payloads) in their own mappings, returned to the system when
///   the document LRU drops the document; the default threshold grows with such
///   buffers and then leaves them as holes in the heap.
///
/// After reading the whole corpus the mount stayed about 70 MB larger without each.
fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before the worker
    // threads start.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}
