//! Warnings about a source file are logged once per version of the file: the
//! same failure is met again by every lookup, open and listing that touches the
//! file, and repeating it buries the one line that matters.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

use parking_lot::Mutex;

/// Distinct warnings remembered; past this the set starts afresh (a warning may
/// then be repeated once, memory stays bounded).
const REMEMBERED: usize = 100_000;

fn seen() -> &'static Mutex<HashSet<u64>> {
    static SEEN: OnceLock<Mutex<HashSet<u64>>> = OnceLock::new();
    SEEN.get_or_init(|| Mutex::new(HashSet::new()))
}

/// Logs `what` as a warning unless it was logged before for the same `version`
/// (a file's version key, e.g. its `DocKey`: path, size and times).
pub fn warn(version: &impl Hash, what: &str) {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    version.hash(&mut h);
    what.hash(&mut h);
    let id = h.finish();
    let first = {
        let mut s = seen().lock();
        if s.len() >= REMEMBERED {
            s.clear();
        }
        s.insert(id)
    };
    if first {
        log::warn!("{what}");
    } else {
        log::debug!("(again) {what}");
    }
}
