//! `maxfs mount --cache-dir`: a cache directory inside the served sources (which
//! maxfs never writes to) or inside the mount point is refused before anything
//! is created or mounted.

use std::process::Command;

#[test]
fn cache_dir_inside_the_sources_or_the_mount_point_is_refused() {
    let src = tempfile::tempdir().expect("tempdir");
    let mnt = tempfile::tempdir().expect("tempdir");
    for (dir, what) in [
        (src.path().join("cache"), "inside the source tree"),
        (mnt.path().join("cache"), "inside the mount point"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_maxfs"))
            .arg("mount")
            .arg(src.path())
            .arg(mnt.path())
            .arg("--cache-dir")
            .arg(&dir)
            .output()
            .expect("run maxfs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{what}: {stderr}");
        assert!(stderr.contains(what), "{what}: {stderr}");
        assert!(!dir.exists(), "{what}: nothing created");
    }
}
