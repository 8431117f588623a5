//! The FUSE floor of a whole-tree walk: a read-only filesystem that serves a
//! tree of the same shape and file sizes as a maxfs mount (the listing `find
//! MNT -printf '%y %s %P\n'` wrote) from a table in memory, files holding
//! zeros, with maxfs's kernel settings (READDIRPLUS always, OPEN/OPENDIR
//! answered ENOSYS, long lifetimes) and no work per request beyond the table
//! lookup. `scripts/bench-walk-floor.sh` times `find -type f` and `grep -rl`
//! over it next to the same walks over maxfs: what is left is what the
//! kernel's FUSE protocol costs for that many entries and bytes.
//!
//! Usage: walk_floor LISTING MOUNTPOINT (Ctrl-C or `umount` to stop).

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::io::BufRead;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, Generation, INodeNo, InitFlags,
    KernelConfig, LockOwner, OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyDirectoryPlus,
    ReplyEntry, ReplyOpen, Request,
};

const TTL: Duration = Duration::from_secs(3600);

struct Node {
    name: OsString,
    parent: u64,
    dir: bool,
    size: u64,
    children: Vec<u64>,
}

/// Inode `i + 1` is `nodes[i]`; the root is inode 1.
struct Floor {
    nodes: Vec<Node>,
    by_name: HashMap<(u64, OsString), u64>,
}

impl Floor {
    fn load(listing: &std::path::Path) -> std::io::Result<Floor> {
        let mut f = Floor {
            nodes: vec![Node {
                name: OsString::new(),
                parent: 1,
                dir: true,
                size: 0,
                children: Vec::new(),
            }],
            by_name: HashMap::new(),
        };
        let mut dirs: HashMap<PathBuf, u64> = HashMap::from([(PathBuf::new(), 1)]);
        for line in std::io::BufReader::new(std::fs::File::open(listing)?).lines() {
            let line = line?;
            let mut parts = line.splitn(3, ' ');
            let (Some(kind), Some(size), Some(path)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let size: u64 = size.parse().unwrap_or(0);
            if path.is_empty() {
                continue;
            }
            let path = PathBuf::from(path);
            // `find` lists a directory before what it holds.
            let parent = path
                .parent()
                .and_then(|p| dirs.get(p).copied())
                .ok_or_else(|| {
                    std::io::Error::other(format!("{}: parent not listed", path.display()))
                })?;
            let name = path.file_name().unwrap_or_default().to_os_string();
            let ino = f.nodes.len() as u64 + 1;
            let dir = kind == "d";
            f.nodes.push(Node {
                name: name.clone(),
                parent,
                dir,
                size: if dir { 0 } else { size },
                children: Vec::new(),
            });
            f.nodes[parent as usize - 1].children.push(ino);
            f.by_name.insert((parent, name), ino);
            if dir {
                dirs.insert(path, ino);
            }
        }
        Ok(f)
    }

    fn attr(&self, ino: u64) -> FileAttr {
        let n = &self.nodes[ino as usize - 1];
        let (dir, size) = (n.dir, n.size);
        let t = SystemTime::UNIX_EPOCH;
        FileAttr {
            ino: INodeNo(ino),
            size,
            blocks: size.div_ceil(512),
            atime: t,
            mtime: t,
            ctime: t,
            crtime: t,
            kind: if dir {
                FileType::Directory
            } else {
                FileType::RegularFile
            },
            perm: if dir { 0o555 } else { 0o444 },
            nlink: if dir { 2 } else { 1 },
            uid: 0,
            gid: 0,
            rdev: 0,
            flags: 0,
            blksize: 4096,
        }
    }

    fn node(&self, ino: INodeNo) -> Option<&Node> {
        self.nodes.get((ino.0 as usize).checked_sub(1)?)
    }
}

impl Filesystem for Floor {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        let _ = config.add_capabilities(InitFlags::FUSE_PARALLEL_DIROPS);
        let _ = config.add_capabilities(InitFlags::FUSE_DO_READDIRPLUS);
        let _ = config.add_capabilities(InitFlags::FUSE_AUTO_INVAL_DATA);
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        match self.by_name.get(&(parent.0, name.to_os_string())) {
            Some(&ino) => reply.entry(&TTL, &self.attr(ino), Generation(0)),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.node(ino) {
            Some(_) => reply.attr(&TTL, &self.attr(ino.0)),
            None => reply.error(Errno::ENOENT),
        }
    }

    fn open(&self, _req: &Request, _ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        reply.error(Errno::ENOSYS);
    }

    fn opendir(&self, _req: &Request, _ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        reply.error(Errno::ENOSYS);
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
        static ZEROS: [u8; 1 << 20] = [0; 1 << 20];
        let Some(n) = self.node(ino) else {
            return reply.error(Errno::ENOENT);
        };
        let len = n.size.saturating_sub(offset).min(u64::from(size)) as usize;
        reply.data(&ZEROS[..len.min(ZEROS.len())]);
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let Some(n) = self.node(ino) else {
            return reply.error(Errno::ENOENT);
        };
        let dots = [(ino.0, OsStr::new(".")), (n.parent, OsStr::new(".."))];
        let entries = dots.into_iter().chain(
            n.children
                .iter()
                .map(|&c| (c, self.nodes[c as usize - 1].name.as_os_str())),
        );
        for (i, (c, name)) in entries.enumerate().skip(offset as usize) {
            let kind = self.attr(c).kind;
            if reply.add(INodeNo(c), i as u64 + 1, kind, name) {
                break;
            }
        }
        reply.ok();
    }

    fn readdirplus(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectoryPlus,
    ) {
        let Some(n) = self.node(ino) else {
            return reply.error(Errno::ENOENT);
        };
        let dots = [(ino.0, OsStr::new(".")), (n.parent, OsStr::new(".."))];
        let entries = dots.into_iter().chain(
            n.children
                .iter()
                .map(|&c| (c, self.nodes[c as usize - 1].name.as_os_str())),
        );
        for (i, (c, name)) in entries.enumerate().skip(offset as usize) {
            let ttl = if i < 2 { Duration::ZERO } else { TTL };
            if reply.add(
                INodeNo(c),
                i as u64 + 1,
                name,
                &ttl,
                &self.attr(c),
                Generation(0),
            ) {
                break;
            }
        }
        reply.ok();
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, listing, mnt] = args.as_slice() else {
        eprintln!("usage: walk_floor LISTING MOUNTPOINT");
        std::process::exit(2);
    };
    let floor = Floor::load(std::path::Path::new(listing))?;
    eprintln!("walk_floor: {} entries; ready", floor.nodes.len());
    let config = maxfs::fuse::config(1);
    fuser::mount(floor, mnt, &config)
}
