//! The FUSE binding: inode numbers and open handles over the virtual tree.
//!
//! An inode stands for one version of one path: a virtual file's inode changes
//! when its `.max` changes, so its bytes never change under an inode and the
//! page cache may be kept between opens. Entry and attribute lifetimes are zero,
//! so a replaced source file is seen on the next access.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use fuser::{
    AccessFlags, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation,
    INodeNo, KernelConfig, LockOwner, OpenAccMode, OpenFlags, ReplyAttr, ReplyData, ReplyDirectory,
    ReplyEmpty, ReplyEntry, ReplyOpen, ReplyXattr, Request,
};
use maxfs_fs::{Content, Entry, FsError, Kind, MaxFs};
use parking_lot::Mutex;

/// Lifetime of real entries and `foo.max` directories: zero, so changes in the
/// source show on the next access.
const TTL: Duration = Duration::ZERO;
/// Lifetime of entries inside a `foo.max/`: they are immutable under their inode.
const TTL_IMMUTABLE: Duration = Duration::from_secs(3600);
/// Preferred I/O size reported in st_blksize: `cat` and `cp` read this much at once.
const BLKSIZE: u32 = 128 * 1024;

struct Inode {
    rel: PathBuf,
    version: u64,
    lookups: u64,
    /// The entry as last resolved; refreshed on use unless immutable.
    entry: Option<Entry>,
}

#[derive(Default)]
struct Inodes {
    by_ino: HashMap<u64, Inode>,
    by_key: HashMap<(PathBuf, u64), u64>,
    next: u64,
}

/// A directory listing taken at opendir, served by offset to readdir.
type Listing = Vec<(OsString, Kind)>;

/// The mounted file system.
pub struct MaxFuse {
    fs: Arc<MaxFs>,
    inodes: Mutex<Inodes>,
    files: Mutex<HashMap<u64, Arc<Content>>>,
    dirs: Mutex<HashMap<u64, Arc<Listing>>>,
    next_fh: AtomicU64,
    uid: u32,
    gid: u32,
}

fn errno(e: &FsError) -> Errno {
    Errno::from_i32(e.errno())
}

impl MaxFuse {
    pub fn new(fs: Arc<MaxFs>) -> MaxFuse {
        let mut inodes = Inodes {
            next: 2,
            ..Inodes::default()
        };
        inodes.by_ino.insert(
            1,
            Inode {
                rel: PathBuf::new(),
                version: 0,
                lookups: 1,
                entry: None,
            },
        );
        // SAFETY: getuid/getgid cannot fail and touch no memory.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        MaxFuse {
            fs,
            inodes: Mutex::new(inodes),
            files: Mutex::new(HashMap::new()),
            dirs: Mutex::new(HashMap::new()),
            next_fh: AtomicU64::new(1),
            uid,
            gid,
        }
    }

    pub fn tree(&self) -> &Arc<MaxFs> {
        &self.fs
    }

    fn rel_of(&self, ino: INodeNo) -> Option<(PathBuf, u64)> {
        self.inodes
            .lock()
            .by_ino
            .get(&ino.0)
            .map(|i| (i.rel.clone(), i.version))
    }

    /// The inode of (path, version), counting one more kernel reference.
    fn remember(&self, rel: PathBuf, entry: &Entry) -> u64 {
        let version = entry.version;
        let mut t = self.inodes.lock();
        if rel.as_os_str().is_empty() {
            return 1;
        }
        if let Some(&ino) = t.by_key.get(&(rel.clone(), version)) {
            if let Some(i) = t.by_ino.get_mut(&ino) {
                i.lookups += 1;
                i.entry = Some(entry.clone());
            }
            return ino;
        }
        let ino = t.next;
        t.next += 1;
        t.by_key.insert((rel.clone(), version), ino);
        t.by_ino.insert(
            ino,
            Inode {
                rel,
                version,
                lookups: 1,
                entry: Some(entry.clone()),
            },
        );
        ino
    }

    /// An inode number for a directory listing, without taking a reference: the
    /// kernel only shows it as d_ino; lookups assign the real one.
    fn listing_ino(rel: &Path) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        rel.hash(&mut h);
        h.finish() | (1 << 63)
    }

    fn attr(&self, ino: u64, e: &Entry) -> FileAttr {
        let (kind, nlink) = match e.kind {
            Kind::Dir => (FileType::Directory, 2),
            Kind::File => (FileType::RegularFile, 1),
        };
        FileAttr {
            ino: INodeNo(ino),
            size: e.size,
            blocks: e.size.div_ceil(512),
            atime: e.mtime,
            mtime: e.mtime,
            ctime: e.mtime,
            crtime: e.mtime,
            kind,
            perm: e.perm,
            nlink,
            uid: self.uid,
            gid: self.gid,
            rdev: 0,
            flags: 0,
            blksize: BLKSIZE,
        }
    }

    /// The inode's path, version and current entry. Entries inside a `.max` are
    /// reused as resolved; others are stat'ed again (one `stat`, not a path walk).
    fn resolve(&self, ino: INodeNo) -> Result<(PathBuf, u64, Entry), Errno> {
        let (rel, version, cached) = {
            let t = self.inodes.lock();
            let i = t.by_ino.get(&ino.0).ok_or(Errno::ENOENT)?;
            (i.rel.clone(), i.version, i.entry.clone())
        };
        let e = match cached {
            Some(e) if e.is_immutable() => Ok(e),
            Some(e) => self.fs.refresh(&e),
            None => self.fs.lookup(&rel),
        }
        .map_err(|e| errno(&e))?;
        Ok((rel, version, e))
    }

    fn ttl(e: &Entry) -> Duration {
        if e.is_immutable() {
            TTL_IMMUTABLE
        } else {
            TTL
        }
    }
}

fn report(what: &str, rel: &Path, e: &FsError) {
    match e {
        FsError::NotFound | FsError::NotADirectory | FsError::IsADirectory => {
            log::debug!("{what} {}: {e}", rel.display())
        }
        _ => log::warn!("{what} {}: {e}", rel.display()),
    }
}

impl Filesystem for MaxFuse {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        let _ = config.set_max_readahead(1 << 20);
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        let (prel, _, pentry) = match self.resolve(parent) {
            Ok(p) => p,
            Err(e) => return reply.error(e),
        };
        let rel = prel.join(name);
        match self.fs.child(&pentry, name) {
            Ok(e) => {
                let ino = self.remember(rel, &e);
                reply.entry(&Self::ttl(&e), &self.attr(ino, &e), Generation(0));
            }
            Err(err) => {
                report("lookup", &rel, &err);
                reply.error(errno(&err));
            }
        }
    }

    fn forget(&self, _req: &Request, ino: INodeNo, nlookup: u64) {
        if ino.0 == 1 {
            return;
        }
        let mut t = self.inodes.lock();
        let gone = match t.by_ino.get_mut(&ino.0) {
            Some(i) => {
                i.lookups = i.lookups.saturating_sub(nlookup);
                i.lookups == 0
            }
            None => false,
        };
        if gone {
            if let Some(i) = t.by_ino.remove(&ino.0) {
                t.by_key.remove(&(i.rel, i.version));
            }
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.resolve(ino) {
            Ok((_, _, e)) => reply.attr(&Self::ttl(&e), &self.attr(ino.0, &e)),
            Err(err) => reply.error(err),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        if flags.acc_mode() != OpenAccMode::O_RDONLY || flags.0 & libc::O_TRUNC != 0 {
            return reply.error(Errno::EROFS);
        }
        let (rel, version, e) = match self.resolve(ino) {
            Ok(r) => r,
            Err(err) => return reply.error(err),
        };
        match self.fs.open(&e) {
            Ok(content) => {
                // A virtual file is immutable under its inode when the version still matches.
                let keep = e.version != 0 && e.version == version;
                let fh = self.next_fh.fetch_add(1, Ordering::Relaxed);
                self.files.lock().insert(fh, Arc::new(content));
                let flags = if keep {
                    FopenFlags::FOPEN_KEEP_CACHE
                } else {
                    FopenFlags::empty()
                };
                reply.opened(FileHandle(fh), flags);
            }
            Err(err) => {
                report("open", &rel, &err);
                reply.error(errno(&err));
            }
        }
    }

    fn read(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let Some(content) = self.files.lock().get(&fh.0).cloned() else {
            return reply.error(Errno::EBADF);
        };
        match &*content {
            Content::Bytes(b) => reply.data(maxfs_fs::tree::slice_at(
                b.as_slice(),
                offset,
                size as usize,
            )),
            c => match c.read_at(offset, size as usize) {
                Ok(d) => reply.data(&d),
                Err(e) => reply.error(Errno::from_i32(e.raw_os_error().unwrap_or(libc::EIO))),
            },
        }
    }

    fn lseek(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        offset: i64,
        whence: i32,
        reply: fuser::ReplyLseek,
    ) {
        let Some(content) = self.files.lock().get(&fh.0).cloned() else {
            return reply.error(Errno::EBADF);
        };
        let size = match &*content {
            Content::Bytes(b) => b.as_slice().len() as i64,
            Content::File(f) => match f.metadata() {
                Ok(m) => m.len() as i64,
                Err(_) => return reply.error(Errno::EIO),
            },
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
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        self.files.lock().remove(&fh.0);
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
        reply.ok();
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        let (rel, _, e) = match self.resolve(ino) {
            Ok(r) => r,
            Err(err) => return reply.error(err),
        };
        match self.fs.list(&e) {
            Ok(list) => {
                let fh = self.next_fh.fetch_add(1, Ordering::Relaxed);
                self.dirs.lock().insert(fh, Arc::new(list));
                reply.opened(FileHandle(fh), FopenFlags::empty());
            }
            Err(err) => {
                report("opendir", &rel, &err);
                reply.error(errno(&err));
            }
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let Some(list) = self.dirs.lock().get(&fh.0).cloned() else {
            return reply.error(Errno::EBADF);
        };
        let rel = self.rel_of(ino).map(|(r, _)| r).unwrap_or_default();
        let dots = [
            (OsString::from("."), Kind::Dir),
            (OsString::from(".."), Kind::Dir),
        ];
        for (i, (name, kind)) in dots
            .iter()
            .chain(list.iter())
            .enumerate()
            .skip(offset as usize)
        {
            let child_ino = match i {
                0 => ino.0,
                1 => 1,
                _ => Self::listing_ino(&rel.join(name)),
            };
            let ft = if *kind == Kind::Dir {
                FileType::Directory
            } else {
                FileType::RegularFile
            };
            if reply.add(INodeNo(child_ino), i as u64 + 1, ft, name) {
                break;
            }
        }
        reply.ok();
    }

    fn releasedir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        reply: ReplyEmpty,
    ) {
        self.dirs.lock().remove(&fh.0);
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

/// Mount options used by `maxfs mount` and the tests.
pub fn config(threads: usize) -> fuser::Config {
    let mut c = fuser::Config::default();
    c.mount_options = vec![
        fuser::MountOption::RO,
        fuser::MountOption::FSName("maxfs".into()),
        fuser::MountOption::Subtype("maxfs".into()),
        fuser::MountOption::NoAtime,
    ];
    c.n_threads = Some(threads.max(1));
    c
}
