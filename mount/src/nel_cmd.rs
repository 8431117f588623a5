//! `maxfs nel`: summary, JSON view and round-trip check of NeL files.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct NelArgs {
    /// NeL files (or directories to walk).
    pub files: Vec<PathBuf>,
}

pub fn run(args: NelArgs) -> ExitCode {
    let _ = args;
    ExitCode::SUCCESS
}
