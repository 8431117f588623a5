//! The two caches of the tree: parsed documents (a small LRU of per-file states)
//! and generated file contents (an LRU bounded by bytes), plus single flight so
//! that N readers of one not-yet-generated file cause one generation.

use std::collections::HashMap;
use std::hash::Hash;
use std::num::NonZeroUsize;
use std::sync::{Arc, OnceLock};

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

/// A count-bounded LRU whose values are created at most once per key even when
/// many threads ask at the same time (the value's own `OnceLock`s do the rest).
pub struct StateLru<K, V> {
    map: Mutex<LruCache<K, Arc<V>>>,
}

impl<K: Hash + Eq + Clone, V> StateLru<K, V> {
    pub fn new(capacity: usize) -> Self {
        let cap = NonZeroUsize::new(capacity.max(1)).unwrap_or(NonZeroUsize::MIN);
        StateLru {
            map: Mutex::new(LruCache::new(cap)),
        }
    }

    pub fn get_or_insert(&self, key: &K, make: impl FnOnce() -> V) -> Arc<V> {
        let mut map = self.map.lock();
        if let Some(v) = map.get(key) {
            return v.clone();
        }
        let v = Arc::new(make());
        map.put(key.clone(), v.clone());
        v
    }

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
