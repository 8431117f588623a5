//! The caches of the tree: per-file states (shared while referenced), parsed
//! documents (a small LRU, their only owner) and generated file contents (an LRU
//! bounded by bytes), with single flight so that N readers of one not-yet-loaded
//! document or not-yet-generated file cause one load or generation.

use std::collections::HashMap;
use std::hash::Hash;
use std::num::NonZeroUsize;
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

/// A count-bounded LRU of loaded values with single flight: concurrent callers
/// of a missing key share one load. The LRU is the only long-lived owner of the
/// values, so at most `capacity` of them stay in memory (plus those a caller is
/// using right now).
pub struct LoadLru<K, T> {
    map: Mutex<LruCache<K, Arc<OnceLock<T>>>>,
}

impl<K: Hash + Eq + Clone, T: Clone> LoadLru<K, T> {
    pub fn new(capacity: usize) -> Self {
        let cap = NonZeroUsize::new(capacity.max(1)).unwrap_or(NonZeroUsize::MIN);
        LoadLru {
            map: Mutex::new(LruCache::new(cap)),
        }
    }

    /// The value of `key`, loading it (once for all concurrent callers) if absent.
    pub fn get_or_load(&self, key: &K, load: impl FnOnce() -> T) -> T {
        let slot = {
            let mut map = self.map.lock();
            match map.get(key) {
                Some(s) => s.clone(),
                None => {
                    let s: Arc<OnceLock<T>> = Arc::default();
                    map.put(key.clone(), s.clone());
                    s
                }
            }
        };
        slot.get_or_init(load).clone()
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
        }
    }

    /// The cached bytes, or the result of `generate` run once for all concurrent callers.
    pub fn get_or_generate(
        &self,
        key: &K,
        generate: impl FnOnce() -> Result<Vec<u8>, E>,
    ) -> Result<Arc<[u8]>, E> {
        if let Some(v) = self.inner.lock().lru.get(key) {
            return Ok(v.clone());
        }
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
                Some((_, v)) => inner.bytes -= v.len() as u64,
                None => break,
            }
        }
    }

    /// Bytes currently held.
    pub fn bytes(&self) -> u64 {
        self.inner.lock().bytes
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
