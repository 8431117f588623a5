//! How many files are evaluated at once. Each file's evaluated meshes are
//! bounded by its mesh budget, but every FUSE worker could be evaluating a
//! different file; the gate lets `permits` of them compute meshes at a time
//! (the others wait), so the mount's memory while evaluating is bounded by
//! `permits` × the per-file budget, whatever the number of workers.
//!
//! Only the computations that need nothing but the evaluated scene pass the
//! gate (the glTF build, the NeL export build, the JSON views and info.json).
//! A thread holding a permit therefore never waits for a stage whose builder
//! is waiting for a permit: the stages it may wait on (the document, the
//! typed layer, the scene graph, a mesh another permit holder is computing)
//! are built without one. A gated computation nested in another on the same
//! thread runs on the permit already held.

use std::cell::Cell;

use parking_lot::{Condvar, Mutex};

pub struct EvalGate {
    free: Mutex<usize>,
    freed: Condvar,
    permits: usize,
}

thread_local! {
    /// Whether this thread holds a permit.
    static HELD: Cell<bool> = const { Cell::new(false) };
}

/// Gives the permit back, also when the computation panics.
struct Permit<'a>(&'a EvalGate);

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        HELD.with(|h| h.set(false));
        *self.0.free.lock() += 1;
        self.0.freed.notify_one();
    }
}

impl EvalGate {
    /// A gate of `permits` (at least 1).
    pub fn new(permits: usize) -> EvalGate {
        let permits = permits.max(1);
        EvalGate {
            free: Mutex::new(permits),
            freed: Condvar::new(),
            permits,
        }
    }

    pub fn permits(&self) -> usize {
        self.permits
    }

    /// Runs `f` holding a permit (waiting for one if none is free), or on
    /// the one this thread already holds.
    pub fn run<T>(&self, f: impl FnOnce() -> T) -> T {
        if HELD.with(Cell::get) {
            return f();
        }
        let _permit = {
            let mut free = self.free.lock();
            while *free == 0 {
                self.freed.wait(&mut free);
            }
            *free -= 1;
            HELD.with(|h| h.set(true));
            Permit(self)
        };
        f()
    }
}

/// One per CPU: evaluation is CPU-bound, more at once only adds memory.
pub fn default_permits() -> usize {
    std::thread::available_parallelism().map_or(2, usize::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn no_more_than_the_permits_run_at_once() {
        let gate = Arc::new(EvalGate::new(2));
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (gate, running, most) = (gate.clone(), running.clone(), most.clone());
                std::thread::spawn(move || {
                    for _ in 0..20 {
                        gate.run(|| {
                            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                            most.fetch_max(now, Ordering::SeqCst);
                            std::thread::yield_now();
                            running.fetch_sub(1, Ordering::SeqCst);
                        });
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("worker");
        }
        let most = most.load(Ordering::SeqCst);
        assert!((1..=2).contains(&most), "{most}");
        assert_eq!(*gate.free.lock(), 2, "every permit came back");
    }

    #[test]
    fn nested_runs_use_the_permit_held() {
        let gate = EvalGate::new(1);
        assert_eq!(gate.run(|| gate.run(|| gate.run(|| 7))), 7);
        assert_eq!(*gate.free.lock(), 1);
    }

    #[test]
    fn a_panic_gives_the_permit_back() {
        let gate = EvalGate::new(1);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            gate.run(|| panic!("damaged file"));
        }));
        assert!(r.is_err());
        assert_eq!(gate.run(|| 3), 3, "not left waiting for a lost permit");
    }
}
