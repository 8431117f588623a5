//! The FUSE binding: inode numbers and open handles over the virtual tree.
//!
//! An inode stands for one version of one path: a virtual file's inode changes
//! when its `.max` changes, so its bytes never change under an inode and the
//! page cache may be kept between opens. Entries inside a `.max` get long entry
//! and attribute lifetimes; real entries and `.max` directories get
//! [`FuseOptions::ttl`] (the CLI's `--ttl`, 1 s by default; zero in tests that
//! replace sources and look at once), after which a replaced source is seen.
//!
//! Fast paths (docs/architecture.md, "Kernel caching"):
//! - OPEN and OPENDIR are answered ENOSYS, so the kernel stops sending them
//!   (FUSE "no open"): a file's content is resolved by inode in READ, a
//!   directory is listed by inode in READDIR, and the kernel keeps page and
//!   directory caches across opens. Real files and directories stay fresh
//!   through FUSE_AUTO_INVAL_DATA: a changed mtime or size seen in an attribute
//!   refresh drops their cached pages.
//! - Every file's size is known at lookup (generated files are generated
//!   then), so no file needs FOPEN_DIRECT_IO.
//! - `source.max` is read through the source file, checked after each read
//!   against the version the entry was resolved from: a source overwritten in
//!   place gives EIO, never the old length with new bytes.
//!
//! The kernel may keep hundreds of thousands of inodes referenced (every chunk of
//! a walked corpus), so a row of the inode table is small: the compact entry
//! (per-file state + place id, no path copy, no parsed document) and a count.
#![allow(unsafe_code)] // getuid/getgid for the attributes

use std::collections::{HashMap, VecDeque};
use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use fuser::{
    AccessFlags, Errno, FileAttr, FileHandle, FileType, Filesystem, Generation, INodeNo, InitFlags,
    KernelConfig, LockOwner, Notifier, OpenAccMode, OpenFlags, ReplyAttr, ReplyData,
    ReplyDirectory, ReplyDirectoryPlus, ReplyEmpty, ReplyEntry, ReplyOpen, ReplyXattr, Request,
};
use maxfs_fs::{Content, Entry, EntryKey, FsError, Kind, KnownEntry, MaxFs, VirtualKey};
use parking_lot::Mutex;

mod config;
mod inodes;
mod watch;

pub use config::{config, MIN_WORKERS};
use inodes::{Inode, Inodes};
pub use watch::SourceWatch;

/// Tuning of the binding.
#[derive(Debug, Clone, Copy)]
pub struct FuseOptions {
    /// Entry and attribute lifetime of real entries and `foo.max` directories:
    /// how long the kernel may keep using them before asking again, so how long
    /// a replaced source may still show its previous version. Zero: every
    /// access sees the source as it is now (one `stat` per path component).
    pub ttl: Duration,
}

impl Default for FuseOptions {
    /// Zero lifetime: exact, what tests that change sources under a mount use.
    /// `maxfs mount` defaults to [`DEFAULT_TTL`].
    fn default() -> Self {
        FuseOptions {
            ttl: Duration::ZERO,
        }
    }
}

/// The lifetime `maxfs mount` gives real entries and `foo.max` directories
/// (libfuse's default too).
pub const DEFAULT_TTL: Duration = Duration::from_secs(1);
/// Lifetime of entries inside a `foo.max/`: they are immutable under their inode.
const TTL_IMMUTABLE: Duration = Duration::from_secs(3600);
/// Sibling prefill (see `MaxFuse::prefill_siblings`): chunks up to this size,
/// this many bytes per first read.
const PREFILL_EACH: u64 = 64 << 10;
const PREFILL_TOTAL: u64 = 1 << 20;
/// Preferred I/O size reported in st_blksize: `cat` and `cp` read this much at once.
const BLKSIZE: u32 = 128 * 1024;

/// The inode number of the root; others are `FIRST_INO + slot`.
const ROOT_INO: u64 = 1;
const FIRST_INO: u64 = 2;

/// A directory listing, served by offset to readdir; with the entries
/// resolved when READDIRPLUS asked for it.
type Listing = Vec<KnownEntry>;

/// A kept listing: (directory inode, entry identity, entries resolved, listing).
type RecentListing = (u64, EntryKey, bool, Arc<Listing>);

/// Listings kept between the READDIR calls of one walk of a directory (the
/// kernel asks for a large directory in page-sized pieces).
const RECENT_LISTINGS: usize = 8;

/// The sibling prefill of a mount (see `MaxFuse::prefill_siblings`).
#[derive(Default)]
pub struct Prefill {
    notifier: OnceLock<Notifier>,
    stored: AtomicU64,
}

impl Prefill {
    /// Starts storing siblings through the session's notifier.
    pub fn start(&self, notifier: Notifier) {
        let _ = self.notifier.set(notifier);
    }

    /// Files stored into the page cache so far.
    pub fn stored(&self) -> u64 {
        self.stored.load(Ordering::Relaxed)
    }
}

/// The mounted file system.
pub struct MaxFuse {
    fs: Arc<MaxFs>,
    options: FuseOptions,
    /// OPEN and OPENDIR answered ENOSYS (set at INIT when the kernel can
    /// invalidate cached pages of changed real files itself).
    no_open: bool,
    inodes: Mutex<Inodes>,
    /// The last few listings.
    listings: Mutex<VecDeque<RecentListing>>,
    /// Sibling chunks stored into the page cache with the first read in their
    /// directory, once the session's notifier is known.
    prefill: Arc<Prefill>,
    /// inotify on the real directories looked up (see [`SourceWatch`]).
    watch: Option<Arc<SourceWatch>>,
    uid: u32,
    gid: u32,
}

fn file_type(kind: Kind) -> FileType {
    match kind {
        Kind::Dir => FileType::Directory,
        Kind::File => FileType::RegularFile,
        Kind::Symlink => FileType::Symlink,
    }
}

fn errno(e: &FsError) -> Errno {
    Errno::from_i32(e.errno())
}

impl MaxFuse {
    /// The binding with [`FuseOptions::default`] (zero lifetimes).
    pub fn new(fs: Arc<MaxFs>) -> MaxFuse {
        MaxFuse::with_options(fs, FuseOptions::default())
    }

    pub fn with_options(fs: Arc<MaxFs>, options: FuseOptions) -> MaxFuse {
        // SAFETY: getuid/getgid cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        MaxFuse {
            fs,
            options,
            no_open: false,
            inodes: Mutex::new(Inodes::default()),
            listings: Mutex::new(VecDeque::new()),
            prefill: Arc::new(Prefill::default()),
            watch: None,
            uid,
            gid,
        }
    }

    /// Watches the real directories the kernel looks up with `watch`, whose
    /// events (started with [`SourceWatch::start`] once the session exists)
    /// drop the kernel's entries of changed sources at once.
    pub fn with_watch(mut self, watch: Arc<SourceWatch>) -> MaxFuse {
        self.watch = Some(watch);
        self
    }

    /// The sibling prefill: give it the session's notifier once the session
    /// exists (`prefill.start(session.notifier())`); without it every file is
    /// read by its own READ.
    pub fn prefill(&self) -> Arc<Prefill> {
        self.prefill.clone()
    }

    /// Hands the leaf chunks beside `e` to the kernel's page cache before the
    /// first read of `e` is answered: a whole-tree `grep -r` then reads one
    /// chunk per directory through READ instead of every chunk (one round trip
    /// each). Only siblings the kernel holds an inode for (listed by
    /// READDIRPLUS or looked up), each once per inode; their bytes never
    /// change under the inode.
    fn prefill_siblings(&self, e: &Entry) {
        let Some(n) = self.prefill.notifier.get() else {
            return;
        };
        for (s, blob) in self.fs.sibling_leaves(e, PREFILL_EACH, PREFILL_TOTAL) {
            let ino = {
                let mut t = self.inodes.lock();
                let Some(slot) = t.slot_of(&s) else { continue };
                let ino = FIRST_INO + u64::from(slot);
                match t.get_mut(ino) {
                    Some(i) if !i.stored => {
                        i.stored = true;
                        ino
                    }
                    _ => continue,
                }
            };
            // A refused store (inode evicted meanwhile) only means a READ later.
            if n.store(INodeNo(ino), 0, blob.as_slice()).is_ok() {
                self.prefill.stored.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    pub fn tree(&self) -> &Arc<MaxFs> {
        &self.fs
    }

    /// Inodes currently referenced by the kernel (the root not counted).
    pub fn inode_count(&self) -> usize {
        let t = self.inodes.lock();
        t.by_virtual.len() + t.by_real.len()
    }

    /// The inode of the entry (one version of one path), counting one more
    /// kernel reference.
    fn remember(&self, entry: &Entry) -> u64 {
        let mut t = self.inodes.lock();
        if let Some(slot) = t.slot_of(entry) {
            let ino = FIRST_INO + u64::from(slot);
            if let Some(i) = t.get_mut(ino) {
                i.lookups += 1;
                if !entry.is_immutable() {
                    i.entry = entry.clone();
                }
            }
            return ino;
        }
        let inode = Inode {
            entry: entry.clone(),
            lookups: 1,
            stored: false,
        };
        let slot = match t.free.pop() {
            Some(slot) => {
                t.slots[slot as usize] = Some(inode);
                slot
            }
            None => {
                let slot = u32::try_from(t.slots.len()).expect("fewer than 2^32 inodes");
                t.slots.push(Some(inode));
                slot
            }
        };
        t.insert_key(entry, slot);
        FIRST_INO + u64::from(slot)
    }

    /// The inode of an entry the kernel now holds (LOOKUP, or linked by
    /// READDIRPLUS): one more reference, and real directories watched.
    fn entered(&self, e: &Entry) -> u64 {
        let ino = self.remember(e);
        if let (Some(w), Some(p), Kind::Dir) = (&self.watch, e.real_path(), e.kind) {
            w.add(p, ino);
        }
        ino
    }

    /// Drops `n` kernel references of inode `ino` (its row goes with the last).
    fn forget_n(&self, ino: u64, n: u64) {
        if ino == ROOT_INO {
            return;
        }
        let mut t = self.inodes.lock();
        let gone = match t.get_mut(ino) {
            Some(i) => {
                i.lookups = i.lookups.saturating_sub(n);
                i.lookups == 0
            }
            None => false,
        };
        if gone {
            let slot = (ino - FIRST_INO) as u32;
            if let Some(i) = t.slots[slot as usize].take() {
                t.remove_key(&i.entry);
                t.free.push(slot);
            }
        }
    }

    fn forget_one(&self, ino: u64) {
        self.forget_n(ino, 1);
    }

    /// An inode number for a directory listing, without taking a reference: the
    /// kernel only shows it as d_ino; lookups assign the real one.
    fn listing_ino(dir: u64, name: &OsStr) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (dir, name).hash(&mut h);
        h.finish() | (1 << 63)
    }

    /// Attributes of an entry the kernel must look up before using (zero
    /// size; sent with zero lifetimes).
    fn placeholder(&self, ino: u64, kind: Kind) -> FileAttr {
        let perm = match kind {
            Kind::Dir => 0o555,
            Kind::File => 0o444,
            Kind::Symlink => 0o777,
        };
        self.file_attr(ino, kind, 0, SystemTime::UNIX_EPOCH, perm)
    }

    fn attr(&self, ino: u64, e: &Entry) -> FileAttr {
        self.file_attr(ino, e.kind, e.size, e.mtime(), e.perm())
    }

    fn file_attr(&self, ino: u64, kind: Kind, size: u64, mtime: SystemTime, perm: u16) -> FileAttr {
        FileAttr {
            ino: INodeNo(ino),
            size,
            blocks: size.div_ceil(512),
            atime: mtime,
            mtime,
            ctime: mtime,
            crtime: mtime,
            kind: file_type(kind),
            perm,
            nlink: if kind == Kind::Dir { 2 } else { 1 },
            uid: self.uid,
            gid: self.gid,
            rdev: 0,
            flags: 0,
            blksize: BLKSIZE,
        }
    }

    /// The inode's current entry. Entries inside a `.max` are reused as
    /// resolved; others are stat'ed again (one `stat`, not a path walk).
    fn resolve(&self, ino: INodeNo) -> Result<Entry, Errno> {
        if ino.0 == ROOT_INO {
            return self.fs.lookup(Path::new("")).map_err(|e| errno(&e));
        }
        let cached = {
            let t = self.inodes.lock();
            t.get(ino.0).ok_or(Errno::ENOENT)?.entry.clone()
        };
        if cached.is_immutable() {
            return Ok(cached);
        }
        self.fs.refresh(&cached).map_err(|e| errno(&e))
    }

    fn ttl(&self, e: &Entry) -> Duration {
        if e.is_immutable() {
            TTL_IMMUTABLE
        } else {
            self.options.ttl
        }
    }

    /// The listing of directory `ino` (`e`), `.` and `..` first, with the
    /// known entries when `plus`: taken afresh when the kernel starts reading the directory
    /// (offset 0), reused while it reads on in pieces (offsets stay consistent
    /// within one walk).
    fn listing(
        &self,
        ino: u64,
        e: &Entry,
        offset: u64,
        plus: bool,
    ) -> Result<Arc<Listing>, FsError> {
        let key = e.key();
        let found = |(i, k, p, _): &RecentListing| *i == ino && *k == key && (*p || !plus);
        if offset > 0 {
            if let Some((_, _, _, l)) = self.listings.lock().iter().find(|x| found(x)) {
                return Ok(l.clone());
            }
        }
        let entries: Listing = if plus {
            self.fs.list_known(e)?
        } else {
            self.fs
                .list(e)?
                .into_iter()
                .map(|(n, k)| (n, k, None))
                .collect()
        };
        let dots = [
            (OsString::from("."), Kind::Dir, None),
            (OsString::from(".."), Kind::Dir, None),
        ];
        let list = Arc::new(dots.into_iter().chain(entries).collect::<Listing>());
        let mut recent = self.listings.lock();
        recent.retain(|(i, k, _, _)| !(*i == ino && *k == key));
        if recent.len() >= RECENT_LISTINGS {
            recent.pop_front();
        }
        recent.push_back((ino, key, plus, list.clone()));
        Ok(list)
    }

    /// The listing READDIR / READDIRPLUS serve from `offset`; a failure is
    /// logged and answered as its errno.
    fn dir_listing(&self, ino: INodeNo, offset: u64, plus: bool) -> Result<Arc<Listing>, Errno> {
        let e = self.resolve(ino)?;
        self.listing(ino.0, &e, offset, plus).map_err(|err| {
            report("readdir", &e.describe(), &err);
            errno(&err)
        })
    }

    /// Answers a read of up to `size` bytes of file `e` from `offset`.
    fn read_entry(&self, e: &Entry, offset: u64, size: u32, reply: ReplyData) {
        let failed = |err: FsError, reply: ReplyData| {
            report("read", &e.describe(), &err);
            reply.error(errno(&err));
        };
        match self.fs.open(e) {
            Ok(Content::Bytes(b)) => reply.data(maxfs_fs::tree::slice_at(
                b.as_slice(),
                offset,
                size as usize,
            )),
            Ok(c @ (Content::File(_) | Content::Extents(..))) => READ_BUF.with_borrow_mut(|buf| {
                // One buffer per worker, grown to the largest read and kept:
                // a fresh buffer per read costs page faults and zeroing.
                let size = size as usize;
                if buf.len() < size {
                    buf.resize(size, 0);
                }
                let read = c
                    .read_into(offset, &mut buf[..size])
                    .map_err(FsError::from_io);
                // After the read: a source rewritten in place before or during
                // it shows here.
                let checked = match c.file() {
                    Some(f) => self.fs.check_unchanged(e, f),
                    None => Ok(()),
                };
                match read.and_then(|n| checked.map(|()| n)) {
                    Ok(n) => reply.data(&buf[..n]),
                    Err(err) => failed(err, reply),
                }
            }),
            Err(err) => failed(err, reply),
        }
    }
}

thread_local! {
    /// The worker's read buffer (see [`MaxFuse::read_entry`]).
    static READ_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Logs a failed request. Parse and generation failures were already warned
/// about, once per file version, where they happened (the fs layer); answering
/// the kernel's repeated requests for the same file adds only debug lines.
fn report(what: &str, at: &dyn std::fmt::Display, e: &FsError) {
    match e {
        FsError::NotFound | FsError::NotADirectory | FsError::IsADirectory | FsError::Failed(_) => {
            log::debug!("{what} {at}: {e}")
        }
        FsError::Io(..) => {
            let at = at.to_string();
            maxfs_fs::warn_once::warn(&at, &format!("{what} {at}: {e}"))
        }
    }
}

impl Filesystem for MaxFuse {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        let _ = config.set_max_readahead(1 << 20);
        // Lookups and listings in one directory run in parallel (optional).
        let _ = config.add_capabilities(InitFlags::FUSE_PARALLEL_DIROPS);
        // Listings carry attributes (always, not the adaptive mode: a walk
        // reads large directories in several pieces and each needs them).
        let _ = config.add_capabilities(InitFlags::FUSE_DO_READDIRPLUS);
        // A changed mtime or size seen in an attribute refresh drops the cached
        // pages and listing of a real file or directory (they keep their
        // inode). Only with it are OPEN/OPENDIR dropped: the kernel then keeps
        // every page cache across opens. Without it (old kernels) opens are
        // answered, without FOPEN_KEEP_CACHE for real files.
        self.no_open = config
            .add_capabilities(InitFlags::FUSE_AUTO_INVAL_DATA)
            .is_ok();
        if let Some(w) = &self.watch {
            w.add(self.fs.root(), ROOT_INO);
        }
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        let pentry = match self.resolve(parent) {
            Ok(p) => p,
            Err(e) => return reply.error(e),
        };
        match self.fs.child(&pentry, name) {
            Ok(e) => {
                let ino = self.entered(&e);
                reply.entry(&self.ttl(&e), &self.attr(ino, &e), Generation(0));
            }
            Err(err) => {
                let at = format!("{}/{}", pentry.describe(), name.to_string_lossy());
                report("lookup", &at, &err);
                reply.error(errno(&err));
            }
        }
    }

    fn forget(&self, _req: &Request, ino: INodeNo, nlookup: u64) {
        self.forget_n(ino.0, nlookup);
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.resolve(ino) {
            Ok(e) => reply.attr(&self.ttl(&e), &self.attr(ino.0, &e)),
            Err(err) => reply.error(err),
        }
    }

    fn readlink(&self, _req: &Request, ino: INodeNo, reply: ReplyData) {
        let e = match self.resolve(ino) {
            Ok(e) => e,
            Err(err) => return reply.error(err),
        };
        match self.fs.readlink(&e) {
            Ok(target) => reply.data(target.as_os_str().as_encoded_bytes()),
            Err(err) => {
                report("readlink", &e.describe(), &err);
                reply.error(errno(&err));
            }
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        // (The mount is read-only, so the kernel refuses writing opens itself.)
        if flags.acc_mode() != OpenAccMode::O_RDONLY || flags.0 & libc::O_TRUNC != 0 {
            return reply.error(Errno::EROFS);
        }
        let e = match self.resolve(ino) {
            Ok(r) => r,
            Err(err) => return reply.error(err),
        };
        if e.kind == Kind::Dir {
            return reply.error(Errno::EISDIR);
        }
        if self.no_open {
            // The kernel takes ENOSYS as success and sends no more OPEN (nor
            // RELEASE) for the rest of the mount, keeping cached pages across
            // opens; READ resolves the content by inode.
            return reply.error(Errno::ENOSYS);
        }
        // A virtual file never changes under its inode (its version is part of
        // the inode's identity); a real file may.
        let flags = if e.is_immutable() {
            fuser::FopenFlags::FOPEN_KEEP_CACHE
        } else {
            fuser::FopenFlags::empty()
        };
        reply.opened(FileHandle(0), flags);
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let e = match self.resolve(ino) {
            Ok(r) => r,
            Err(err) => return reply.error(err),
        };
        if offset == 0 {
            self.prefill_siblings(&e);
        }
        self.read_entry(&e, offset, size, reply);
    }

    fn lseek(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: i64,
        whence: i32,
        reply: fuser::ReplyLseek,
    ) {
        let size = match self.resolve(ino) {
            Ok(e) => e.size as i64,
            Err(err) => return reply.error(err),
        };
        // No holes: data runs from 0 to the end.
        match whence {
            libc::SEEK_DATA if (0..size).contains(&offset) => reply.offset(offset),
            libc::SEEK_HOLE if (0..size).contains(&offset) => reply.offset(size),
            libc::SEEK_DATA | libc::SEEK_HOLE => reply.error(Errno::from_i32(libc::ENXIO)),
            libc::SEEK_SET => reply.offset(offset),
            libc::SEEK_END => reply.offset(size + offset),
            _ => reply.error(Errno::EINVAL),
        }
    }

    fn release(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }

    fn flush(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lo: LockOwner,
        reply: ReplyEmpty,
    ) {
        // Nothing is ever written, so a close has nothing to flush. ENOSYS
        // makes the kernel stop sending FLUSH for the rest of the mount (it
        // treats it as success), which saves one synchronous round trip on
        // every close(2).
        reply.error(Errno::ENOSYS);
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        let e = match self.resolve(ino) {
            Ok(r) => r,
            Err(err) => return reply.error(err),
        };
        if e.kind != Kind::Dir {
            return reply.error(Errno::ENOTDIR);
        }
        if self.no_open {
            // As for files: no more OPENDIR/RELEASEDIR, and the kernel caches
            // listings (reset when the directory's mtime changes).
            return reply.error(Errno::ENOSYS);
        }
        reply.opened(FileHandle(0), fuser::FopenFlags::empty());
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let list = match self.dir_listing(ino, offset, false) {
            Ok(l) => l,
            Err(err) => return reply.error(err),
        };
        for (i, (name, kind, _)) in list.iter().enumerate().skip(offset as usize) {
            let child_ino = match i {
                0 => ino.0,
                1 => 1,
                _ => Self::listing_ino(ino.0, name),
            };
            if reply.add(INodeNo(child_ino), i as u64 + 1, file_type(*kind), name) {
                break;
            }
        }
        reply.ok();
    }

    /// READDIRPLUS: the listing with each entry's attributes, so a walk
    /// (`find`, `du`, `grep -r`) needs no LOOKUP per entry. An entry whose size
    /// is only known by generating it (a JSON view, `info.json`, the glTF) is
    /// handed out under a placeholder inode with zero lifetimes: the kernel
    /// looks it up before any use, so listing `json/` still evaluates nothing.
    fn readdirplus(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectoryPlus,
    ) {
        let list = match self.dir_listing(ino, offset, true) {
            Ok(l) => l,
            Err(err) => return reply.error(err),
        };
        for (i, (name, kind, known)) in list.iter().enumerate().skip(offset as usize) {
            // The kernel links no inode for the dots (and counts no reference),
            // so they take no table row; every other entry sent with an inode
            // number is linked (or forgotten) by the kernel, one reference each.
            let (child_ino, ttl, attr) = match i {
                0 | 1 => {
                    let n = if i == 0 { ino.0 } else { ROOT_INO };
                    (n, Duration::ZERO, self.placeholder(n, *kind))
                }
                _ => match known {
                    Some(c) => {
                        let n = self.entered(c);
                        (n, self.ttl(c), self.attr(n, c))
                    }
                    // Generated on demand, gone since the listing, or failing:
                    // the LOOKUP a tool makes next resolves or reports it.
                    None => {
                        let n = Self::listing_ino(ino.0, name);
                        (n, Duration::ZERO, self.placeholder(n, *kind))
                    }
                },
            };
            if reply.add(
                INodeNo(child_ino),
                i as u64 + 1,
                name,
                &ttl,
                &attr,
                Generation(0),
            ) {
                // Not sent: take back the reference counted above.
                if i > 1 {
                    self.forget_one(child_ino);
                }
                break;
            }
        }
        reply.ok();
    }

    fn releasedir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _flags: OpenFlags,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }

    fn access(&self, _req: &Request, ino: INodeNo, mask: AccessFlags, reply: ReplyEmpty) {
        if mask.contains(AccessFlags::W_OK) {
            return reply.error(Errno::EROFS);
        }
        match self.resolve(ino) {
            Ok(_) => reply.ok(),
            Err(e) => reply.error(e),
        }
    }

    fn getxattr(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _name: &OsStr,
        _size: u32,
        reply: ReplyXattr,
    ) {
        reply.error(Errno::NO_XATTR);
    }

    fn listxattr(&self, _req: &Request, _ino: INodeNo, size: u32, reply: ReplyXattr) {
        if size == 0 {
            reply.size(0);
        } else {
            reply.data(&[]);
        }
    }

    // Calls tools make routinely (Python's `open()` asks isatty through ioctl,
    // editors fsync, `select` polls): answered with the errno a plain read-only
    // file would give, without the default implementation's warning.

    fn ioctl(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _flags: fuser::IoctlFlags,
        _cmd: u32,
        _in_data: &[u8],
        _out_size: u32,
        reply: fuser::ReplyIoctl,
    ) {
        // Not a terminal, no device controls.
        reply.error(Errno::from_i32(libc::ENOTTY));
    }

    fn fsync(&self, _req: &Request, _ino: INodeNo, _fh: FileHandle, _ds: bool, reply: ReplyEmpty) {
        // Nothing is ever written, so everything is on disk already.
        reply.ok();
    }

    fn fsyncdir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _ds: bool,
        reply: ReplyEmpty,
    ) {
        reply.ok();
    }

    fn poll(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _ph: fuser::PollNotifier,
        _events: fuser::PollEvents,
        _flags: fuser::PollFlags,
        reply: fuser::ReplyPoll,
    ) {
        // ENOSYS makes the kernel treat every file as always ready (and stop asking).
        reply.error(Errno::ENOSYS);
    }

    fn bmap(&self, _req: &Request, _ino: INodeNo, _bs: u32, _idx: u64, reply: fuser::ReplyBmap) {
        reply.error(Errno::ENOSYS);
    }

    fn getlk(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lo: LockOwner,
        _start: u64,
        _end: u64,
        _typ: i32,
        _pid: u32,
        reply: fuser::ReplyLock,
    ) {
        // ENOSYS: the kernel keeps POSIX locks locally.
        reply.error(Errno::ENOSYS);
    }

    fn setlk(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _lo: LockOwner,
        _start: u64,
        _end: u64,
        _typ: i32,
        _pid: u32,
        _sleep: bool,
        reply: ReplyEmpty,
    ) {
        reply.error(Errno::ENOSYS);
    }

    fn copy_file_range(
        &self,
        _req: &Request,
        _ino_in: INodeNo,
        _fh_in: FileHandle,
        _off_in: u64,
        _ino_out: INodeNo,
        _fh_out: FileHandle,
        _off_out: u64,
        _len: u64,
        _flags: fuser::CopyFileRangeFlags,
        reply: fuser::ReplyWrite,
    ) {
        // The destination is on this file system, which is read-only.
        reply.error(Errno::EROFS);
    }

    // Everything that would change the tree: read-only file system.

    fn setattr(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        _size: Option<u64>,
        _atime: Option<fuser::TimeOrNow>,
        _mtime: Option<fuser::TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        reply.error(Errno::EROFS);
    }

    fn mknod(
        &self,
        _req: &Request,
        _p: INodeNo,
        _n: &OsStr,
        _m: u32,
        _u: u32,
        _r: u32,
        reply: ReplyEntry,
    ) {
        reply.error(Errno::EROFS);
    }

    fn mkdir(&self, _req: &Request, _p: INodeNo, _n: &OsStr, _m: u32, _u: u32, reply: ReplyEntry) {
        reply.error(Errno::EROFS);
    }

    fn unlink(&self, _req: &Request, _p: INodeNo, _n: &OsStr, reply: ReplyEmpty) {
        reply.error(Errno::EROFS);
    }

    fn rmdir(&self, _req: &Request, _p: INodeNo, _n: &OsStr, reply: ReplyEmpty) {
        reply.error(Errno::EROFS);
    }

    fn symlink(&self, _req: &Request, _p: INodeNo, _n: &OsStr, _t: &Path, reply: ReplyEntry) {
        reply.error(Errno::EROFS);
    }

    fn rename(
        &self,
        _req: &Request,
        _p: INodeNo,
        _n: &OsStr,
        _np: INodeNo,
        _nn: &OsStr,
        _f: fuser::RenameFlags,
        reply: ReplyEmpty,
    ) {
        reply.error(Errno::EROFS);
    }

    fn link(&self, _req: &Request, _i: INodeNo, _np: INodeNo, _nn: &OsStr, reply: ReplyEntry) {
        reply.error(Errno::EROFS);
    }

    fn write(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _offset: u64,
        _data: &[u8],
        _wf: fuser::WriteFlags,
        _flags: OpenFlags,
        _lo: Option<LockOwner>,
        reply: fuser::ReplyWrite,
    ) {
        reply.error(Errno::EROFS);
    }

    fn create(
        &self,
        _req: &Request,
        _p: INodeNo,
        _n: &OsStr,
        _m: u32,
        _u: u32,
        _f: i32,
        reply: fuser::ReplyCreate,
    ) {
        reply.error(Errno::EROFS);
    }

    fn setxattr(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _n: &OsStr,
        _v: &[u8],
        _f: i32,
        _pos: u32,
        reply: ReplyEmpty,
    ) {
        reply.error(Errno::EROFS);
    }

    fn removexattr(&self, _req: &Request, _ino: INodeNo, _n: &OsStr, reply: ReplyEmpty) {
        reply.error(Errno::EROFS);
    }

    fn fallocate(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _o: u64,
        _l: u64,
        _m: i32,
        reply: ReplyEmpty,
    ) {
        reply.error(Errno::EROFS);
    }
}
