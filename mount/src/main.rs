//! The `maxfs` command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod check_cmd;
mod nel_cmd;
mod walk;

#[derive(Parser)]
#[command(name = "maxfs", version, about = "3ds Max .max files without 3ds Max")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check that every .max reads and rewrites losslessly (T1, T2).
    Check(check_cmd::CheckArgs),
    /// Read NeL engine files: summary table, JSON view, or read/write round-trip check.
    Nel(nel_cmd::NelArgs),
}

fn main() -> ExitCode {
    // Behave like other Unix tools when the reader of stdout goes away (`| head`).
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => check_cmd::run(args),
        Command::Nel(args) => nel_cmd::run(args),
    }
}
