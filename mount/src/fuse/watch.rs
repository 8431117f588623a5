//! Source watch (issue 13): inotify on every real directory the kernel has
//! looked up, so that a `.max` (or any file) written, replaced or renamed in
//! the checkout drops the kernel's cached entry for its name and its
//! directory's cached listing at once, instead of after the entry lifetime
//! (`--ttl`). The next lookup resolves the new version (a new per-file state,
//! so new inodes for everything inside `foo.max/`); the old version's parsed
//! document is dropped from the document cache.
//!
//! inotify through libc (no crate): one descriptor, one watch per directory
//! (inotify is not recursive; directories are added as they are looked up),
//! one thread that reads events and sends FUSE notifications. Lost events
//! (queue overflow) fall back to the entry lifetime, which still bounds how
//! long an old version shows.
#![allow(unsafe_code)] // inotify_init1, inotify_add_watch, read through libc

use std::collections::HashMap;
use std::ffi::{CString, OsStr};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fuser::{INodeNo, Notifier};
use maxfs_fs::MaxFs;
use parking_lot::Mutex;

/// What changes a name's entry or a directory's listing.
const MASK: u32 = libc::IN_CLOSE_WRITE
    | libc::IN_MODIFY
    | libc::IN_ATTRIB
    | libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO;

/// The inotify descriptor and, per watch, the directory and its inode number.
pub struct SourceWatch {
    fd: OwnedFd,
    dirs: Mutex<HashMap<i32, (PathBuf, u64)>>,
}

impl SourceWatch {
    pub fn new() -> std::io::Result<Arc<SourceWatch>> {
        // SAFETY: no pointers; the result is checked.
        let fd = unsafe { libc::inotify_init1(libc::IN_CLOEXEC) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Arc::new(SourceWatch {
            // SAFETY: a fresh descriptor owned by nothing else.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            dirs: Mutex::new(HashMap::new()),
        }))
    }

    /// Watches directory `path`, known to the kernel as inode `ino` (adding a
    /// directory again updates its inode). Failures (watch limit reached, the
    /// directory gone) leave that directory to the entry lifetime.
    pub fn add(&self, path: &Path, ino: u64) {
        let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
            return;
        };
        // SAFETY: `c` is a valid C string for the length of the call.
        let wd = unsafe { libc::inotify_add_watch(self.fd.as_raw_fd(), c.as_ptr(), MASK) };
        if wd >= 0 {
            self.dirs.lock().insert(wd, (path.to_path_buf(), ino));
        } else {
            log::debug!(
                "no watch on {}: {}",
                path.display(),
                std::io::Error::last_os_error()
            );
        }
    }

    /// Reads events until the descriptor fails, invalidating what each names.
    /// Runs on its own thread for the life of the mount.
    pub fn start(self: &Arc<Self>, notifier: Notifier, fs: Arc<MaxFs>) -> std::io::Result<()> {
        let me = self.clone();
        std::thread::Builder::new()
            .name("maxfs-watch".into())
            .spawn(move || me.run(&notifier, &fs))
            .map(|_| ())
    }

    fn run(&self, notifier: &Notifier, fs: &MaxFs) {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            // SAFETY: `buf` is valid for writes of its length.
            let n = unsafe {
                libc::read(
                    self.fd.as_raw_fd(),
                    buf.as_mut_ptr().cast::<libc::c_void>(),
                    buf.len(),
                )
            };
            if n < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return;
            }
            let mut at = 0usize;
            let n = n as usize;
            let head = std::mem::size_of::<libc::inotify_event>();
            while at + head <= n {
                // struct inotify_event { int wd; u32 mask; u32 cookie; u32 len; char name[]; }
                let field = |k: usize| {
                    u32::from_ne_bytes(buf[at + 4 * k..at + 4 * k + 4].try_into().unwrap_or([0; 4]))
                };
                let (wd, mask, len) = (field(0) as i32, field(1), field(3) as usize);
                let name_end = (at + head + len).min(n);
                let raw = &buf[at + head..name_end];
                let name = &raw[..raw.iter().position(|&b| b == 0).unwrap_or(raw.len())];
                self.event(notifier, fs, wd, mask, OsStr::from_bytes(name));
                at = name_end;
            }
        }
    }

    fn event(&self, notifier: &Notifier, fs: &MaxFs, wd: i32, mask: u32, name: &OsStr) {
        if mask & libc::IN_IGNORED != 0 {
            self.dirs.lock().remove(&wd);
            return;
        }
        let Some((dir, ino)) = self.dirs.lock().get(&wd).cloned() else {
            return;
        };
        if !name.is_empty() {
            fs.source_changed(&dir.join(name));
            // ENOENT when the kernel holds no entry for the name: nothing to drop.
            let _ = notifier.inval_entry(INodeNo(ino), name);
        }
        // The directory's attributes and cached listing (offset 0, to the end).
        let _ = notifier.inval_inode(INodeNo(ino), 0, 0);
    }
}
