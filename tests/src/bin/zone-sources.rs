//! Writes the synthetic RklPatch zone source of every corpus zone (the sources
//! `export_zone.rs` checks, tests/src/zone_source.rs) as `DIR/<zone stem>.max`, for
//! measurements through the mount and `maxfs export` (scripts/bench-zone-mount.sh).
//! Usage: `zone-sources DIR`.

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1) else {
        eprintln!("usage: zone-sources DIR");
        return ExitCode::from(2);
    };
    let dir = std::path::PathBuf::from(dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("{}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    let sources = maxfs_tests::zone_source::corpus_zone_sources();
    for s in &sources {
        let p = dir.join(format!("{}.max", s.stem));
        if let Err(e) = std::fs::write(&p, &s.bytes) {
            eprintln!("{}: {e}", p.display());
            return ExitCode::FAILURE;
        }
    }
    println!(
        "{} zone sources written to {}",
        sources.len(),
        dir.display()
    );
    ExitCode::SUCCESS
}
