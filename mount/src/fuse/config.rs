//! Mount options and the worker count.

/// FUSE worker threads at least: a worker parsing a large file answers nothing
/// else until the parse ends, so with this many, several slow parses still
/// leave workers for an unrelated `ls` (an idle worker is one blocked read).
pub const MIN_WORKERS: usize = 16;

/// Mount options used by `maxfs mount` and the tests; `threads` below
/// [`MIN_WORKERS`] is raised to it.
pub fn config(threads: usize) -> fuser::Config {
    let mut c = fuser::Config::default();
    c.mount_options = vec![
        fuser::MountOption::RO,
        fuser::MountOption::FSName("maxfs".into()),
        fuser::MountOption::Subtype("maxfs".into()),
        fuser::MountOption::NoAtime,
    ];
    c.n_threads = Some(threads.max(MIN_WORKERS));
    c
}
