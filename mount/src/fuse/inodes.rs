//! The inode table: one small row per (path version) the kernel references.

use super::*;

pub(super) struct Inode {
    /// The entry as last resolved; refreshed on use unless immutable.
    pub(super) entry: Entry,
    pub(super) lookups: u64,
    /// Its bytes were handed to the kernel's page cache with a sibling's read.
    pub(super) stored: bool,
}

/// Inodes other than the root, in slots reused after the kernel forgets them.
#[derive(Default)]
pub(super) struct Inodes {
    pub(super) slots: Vec<Option<Inode>>,
    pub(super) free: Vec<u32>,
    /// Slots of entries inside `.max` files (nearly all of them; 20-byte rows).
    pub(super) by_virtual: HashMap<VirtualKey, u32>,
    /// Slots of real files and directories.
    pub(super) by_real: HashMap<EntryKey, u32>,
}

impl Inodes {
    pub(super) fn slot_of(&self, e: &Entry) -> Option<u32> {
        match e.virtual_key() {
            Some(k) => self.by_virtual.get(&k).copied(),
            None => self.by_real.get(&e.key()).copied(),
        }
    }

    pub(super) fn insert_key(&mut self, e: &Entry, slot: u32) {
        match e.virtual_key() {
            Some(k) => self.by_virtual.insert(k, slot),
            None => self.by_real.insert(e.key(), slot),
        };
    }

    pub(super) fn remove_key(&mut self, e: &Entry) {
        match e.virtual_key() {
            Some(k) => self.by_virtual.remove(&k),
            None => self.by_real.remove(&e.key()),
        };
    }

    pub(super) fn get(&self, ino: u64) -> Option<&Inode> {
        let slot = usize::try_from(ino.checked_sub(FIRST_INO)?).ok()?;
        self.slots.get(slot)?.as_ref()
    }

    pub(super) fn get_mut(&mut self, ino: u64) -> Option<&mut Inode> {
        let slot = usize::try_from(ino.checked_sub(FIRST_INO)?).ok()?;
        self.slots.get_mut(slot)?.as_mut()
    }
}
