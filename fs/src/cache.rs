//! The caches of the tree: per-file states (shared while referenced), parsed
//! documents with their evaluation and exports (an LRU bounded by the bytes
//! they hold, their only owner) and generated file contents (an LRU bounded by
//! bytes), with single flight so that N readers of one not-yet-loaded document
//! or not-yet-generated file cause one load or generation.

use std::collections::HashMap;
use std::hash::Hash;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};

use lru::LruCache;
use parking_lot::Mutex;

/// Identity of one version of a source file: a file replaced or rewritten while
/// mounted gets a new key, so nothing cached for the old bytes is served again.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DocKey {
    pub path: std::path::PathBuf,
    pub size: u64,
    /// Modification time in nanoseconds since the epoch (may be negative).
    pub mtime_ns: i128,
    /// Inode change time: catches a same-size rewrite within one mtime tick.
    pub ctime_ns: i128,
}

impl DocKey {
    pub fn of(path: &std::path::Path, meta: &std::fs::Metadata) -> DocKey {
        use std::os::unix::fs::MetadataExt;
        DocKey {
            path: path.to_path_buf(),
            size: meta.len(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
        }
    }
}

/// Per-file states by key: one value per key for as long as anything holds it
/// (so a long-lived reference, such as an inode, and a new lookup share it),
/// plus a small LRU of recently used ones kept alive when nothing else holds them.
pub struct StateRegistry<K, V> {
    inner: Mutex<Registry<K, V>>,
}

struct Registry<K, V> {
    live: HashMap<K, Weak<V>>,
    recent: LruCache<K, Arc<V>>,
    /// `live` is pruned of dead entries when it grows past this.
    prune_at: usize,
}

impl<K: Hash + Eq + Clone, V> StateRegistry<K, V> {
    pub fn new(recent: usize) -> Self {
        let cap = NonZeroUsize::new(recent.max(1)).unwrap_or(NonZeroUsize::MIN);
        StateRegistry {
            inner: Mutex::new(Registry {
                live: HashMap::new(),
                recent: LruCache::new(cap),
                prune_at: 64,
            }),
        }
    }

    pub fn get_or_insert(&self, key: &K, make: impl FnOnce() -> V) -> Arc<V> {
        let mut r = self.inner.lock();
        if let Some(v) = r.recent.get(key) {
            return v.clone();
        }
        let v = match r.live.get(key).and_then(Weak::upgrade) {
            Some(v) => v,
            None => {
                let v = Arc::new(make());
                r.live.insert(key.clone(), Arc::downgrade(&v));
                if r.live.len() > r.prune_at {
                    r.live.retain(|_, w| w.strong_count() > 0);
                    r.prune_at = (r.live.len() * 2).max(64);
                }
                v
            }
        };
        r.recent.put(key.clone(), v.clone());
        v
    }

    /// How many states are alive.
    pub fn len(&self) -> usize {
        let r = self.inner.lock();
        r.live.values().filter(|w| w.strong_count() > 0).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Hits, misses and evictions of a cache, and the bytes it holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub evictions: u64,
    pub entries: u64,
    pub bytes: u64,
    pub budget: u64,
}

/// Values whose size in memory can change after loading (a parsed file grows
/// as its typed layer, evaluation and exports are built).
pub trait Weigh {
    /// Bytes held now.
    fn bytes(&self) -> u64;
}

/// An LRU of loaded values bounded by the bytes they hold, with single flight:
/// concurrent callers of a missing key share one load. The LRU is the only
/// long-lived owner of the values; entries are weighed again whenever the cache
/// is trimmed, since they grow as later stages are built. The value in use is
/// never evicted by its own load, so one value larger than the budget is still
/// served (and evicted by the next load).
pub struct ByteLru<K, T> {
    budget: u64,
    map: Mutex<LruCache<K, Arc<OnceLock<T>>>>,
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: AtomicU64,
}

impl<K: Hash + Eq + Clone, T: Clone + Weigh> ByteLru<K, T> {
    pub fn new(budget_bytes: u64) -> Self {
        ByteLru {
            budget: budget_bytes,
            map: Mutex::new(LruCache::unbounded()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
        }
    }

    /// The value of `key`, loading it (once for all concurrent callers) if absent.
    pub fn get_or_load(&self, key: &K, load: impl FnOnce() -> T) -> T {
        let (slot, missed) = {
            let mut map = self.map.lock();
            match map.get(key) {
                Some(s) => (s.clone(), false),
                None => {
                    let s: Arc<OnceLock<T>> = Arc::default();
                    map.put(key.clone(), s.clone());
                    (s, true)
                }
            }
        };
        let counter = if missed { &self.misses } else { &self.hits };
        counter.fetch_add(1, Ordering::Relaxed);
        let v = slot.get_or_init(load).clone();
        if missed {
            self.trim();
        }
        v
    }

    /// The value of `key` if it is loaded; loads nothing.
    pub fn peek(&self, key: &K) -> Option<T> {
        self.map.lock().peek(key).and_then(|s| s.get().cloned())
    }

    /// Evicts least recently used values until the rest fit the budget. Call
    /// after a value grew (a stage of it was built).
    pub fn trim(&self) {
        let mut map = self.map.lock();
        let mut total: u64 = map
            .iter()
            .filter_map(|(_, s)| s.get())
            .map(Weigh::bytes)
            .sum();
        while total > self.budget && map.len() > 1 {
            match map.pop_lru() {
                Some((_, s)) => {
                    total = total.saturating_sub(s.get().map_or(0, Weigh::bytes));
                    self.evictions.fetch_add(1, Ordering::Relaxed);
                }
                None => break,
            }
        }
    }

    pub fn stats(&self) -> CacheStats {
        let map = self.map.lock();
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            entries: map.len() as u64,
            bytes: map
                .iter()
                .filter_map(|(_, s)| s.get())
                .map(Weigh::bytes)
                .sum(),
            budget: self.budget,
        }
    }

    /// Drops every value whose key matches (counted as evictions): a source
    /// known to have changed frees its old versions at once.
    pub fn remove_where(&self, mut gone: impl FnMut(&K) -> bool) {
        let mut map = self.map.lock();
        let keys: Vec<K> = map
            .iter()
            .map(|(k, _)| k)
            .filter(|k| gone(k))
            .cloned()
            .collect();
        for k in keys {
            map.pop(&k);
            self.evictions.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// How many values are held.
    pub fn len(&self) -> usize {
        self.map.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

type Slot<V, E> = Arc<OnceLock<Result<V, E>>>;
type Inflight<K, E> = Mutex<HashMap<K, Slot<Arc<[u8]>, E>>>;

/// Generated contents bounded by total bytes, with single flight: the first
/// caller of a missing key generates it while later callers of the same key
/// wait for that result instead of generating again.
pub struct ContentCache<K, E> {
    budget: u64,
    inner: Mutex<Inner<K>>,
    inflight: Inflight<K, E>,
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: AtomicU64,
}

struct Inner<K> {
    lru: LruCache<K, Arc<[u8]>>,
    bytes: u64,
}

impl<K: Hash + Eq + Clone, E: Clone> ContentCache<K, E> {
    pub fn new(budget_bytes: u64) -> Self {
        ContentCache {
            budget: budget_bytes,
            inner: Mutex::new(Inner {
                lru: LruCache::unbounded(),
                bytes: 0,
            }),
            inflight: Mutex::new(HashMap::new()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
        }
    }

    /// The cached bytes, or the result of `generate` run once for all concurrent callers.
    pub fn get_or_generate(
        &self,
        key: &K,
        generate: impl FnOnce() -> Result<Vec<u8>, E>,
    ) -> Result<Arc<[u8]>, E> {
        if let Some(v) = self.inner.lock().lru.get(key) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(v.clone());
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let slot = {
            let mut inflight = self.inflight.lock();
            // Re-check under the in-flight lock: a generation may have just finished.
            if let Some(v) = self.inner.lock().lru.get(key) {
                return Ok(v.clone());
            }
            inflight.entry(key.clone()).or_default().clone()
        };
        let mut mine = false;
        let result = slot
            .get_or_init(|| {
                mine = true;
                generate().map(Arc::from)
            })
            .clone();
        if mine {
            if let Ok(bytes) = &result {
                self.insert(key.clone(), bytes.clone());
            }
            self.inflight.lock().remove(key);
        }
        result
    }

    fn insert(&self, key: K, bytes: Arc<[u8]>) {
        let mut inner = self.inner.lock();
        let len = bytes.len() as u64;
        if len > self.budget {
            return; // served once, never kept
        }
        if let Some(old) = inner.lru.put(key, bytes) {
            inner.bytes -= old.len() as u64;
        }
        inner.bytes += len;
        while inner.bytes > self.budget {
            match inner.lru.pop_lru() {
                Some((_, v)) => {
                    inner.bytes -= v.len() as u64;
                    self.evictions.fetch_add(1, Ordering::Relaxed);
                }
                None => break,
            }
        }
    }

    /// Bytes currently held.
    pub fn bytes(&self) -> u64 {
        self.inner.lock().bytes
    }

    pub fn stats(&self) -> CacheStats {
        let inner = self.inner.lock();
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            entries: inner.lru.len() as u64,
            bytes: inner.bytes,
            budget: self.budget,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn budget_evicts_oldest() {
        let c: ContentCache<u32, ()> = ContentCache::new(10);
        c.get_or_generate(&1, || Ok(vec![0; 6])).unwrap();
        c.get_or_generate(&2, || Ok(vec![0; 4])).unwrap();
        assert_eq!(c.bytes(), 10);
        c.get_or_generate(&3, || Ok(vec![0; 5])).unwrap();
        assert_eq!(c.bytes(), 9);
        let regenerated = AtomicUsize::new(0);
        c.get_or_generate(&1, || {
            regenerated.fetch_add(1, Ordering::SeqCst);
            Ok(vec![0; 6])
        })
        .unwrap();
        assert_eq!(regenerated.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn single_flight() {
        let c: Arc<ContentCache<u32, ()>> = Arc::new(ContentCache::new(1 << 20));
        let runs = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let c = c.clone();
                let runs = runs.clone();
                std::thread::spawn(move || {
                    c.get_or_generate(&7, || {
                        runs.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(50));
                        Ok(vec![1, 2, 3])
                    })
                    .unwrap()
                })
            })
            .collect();
        for t in threads {
            assert_eq!(&*t.join().unwrap(), &[1, 2, 3]);
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }
}

#[cfg(test)]
mod byte_lru_tests {
    use super::*;

    #[derive(Clone)]
    struct Sized(u64);
    impl Weigh for Sized {
        fn bytes(&self) -> u64 {
            self.0
        }
    }

    #[test]
    fn evicts_by_bytes_and_keeps_an_oversized_value_alone() {
        let c: ByteLru<u32, Sized> = ByteLru::new(100);
        c.get_or_load(&1, || Sized(60));
        c.get_or_load(&2, || Sized(30));
        assert_eq!(c.len(), 2);
        c.get_or_load(&1, || Sized(0)); // hit: 1 is now most recent
        c.get_or_load(&3, || Sized(30)); // 120 > 100: evicts 2, the LRU
        assert!(c.peek(&2).is_none() && c.peek(&1).is_some() && c.peek(&3).is_some());
        c.get_or_load(&4, || Sized(500));
        assert_eq!(c.len(), 1, "an oversized value is held alone");
        let s = c.stats();
        assert_eq!((s.hits, s.misses, s.evictions), (1, 4, 3));
        assert_eq!(s.bytes, 500);
    }
}
