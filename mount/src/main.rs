//! The `maxfs` command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use maxfs::{export_cmd, logging, mount_cmd, tree_cmd};

mod check_cmd;
mod nel_cmd;

#[derive(Parser)]
#[command(name = "maxfs", version, about = "3ds Max .max files without 3ds Max")]
struct Cli {
    /// More log output on stderr (-v info, -vv debug, -vvv trace); `maxfs mount -v` also works.
    #[arg(short = 'v', long = "verbose", id = "log_verbose", action = clap::ArgAction::Count)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check that every .max reads and rewrites losslessly (T1, T2).
    Check(check_cmd::CheckArgs),
    /// Read NeL engine files: summary table, JSON view, or read/write round-trip check.
    Nel(nel_cmd::NelArgs),
    /// Mount a checkout read-only: every foo.max becomes a directory (foreground).
    Mount(mount_cmd::MountArgs),
    /// List a path of the virtual tree, e.g. `maxfs ls corpus/street.max/json`.
    Ls(tree_cmd::LsArgs),
    /// Print a file of the virtual tree, e.g. `maxfs cat corpus/street.max/json/nodes.json`.
    Cat(tree_cmd::CatArgs),
    /// Export each .max to NeL files and/or glTF: `maxfs export SRC... --out DIR [--kind shape,ig] [--gltf]`.
    Export(export_cmd::ExportArgs),
    /// A stable text summary of a .max, for `git diff` (see docs/user-guide.md).
    Textconv(tree_cmd::TextconvArgs),
}

fn main() -> ExitCode {
    // Behave like other Unix tools when the reader of stdout goes away (`| head`).
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    #[allow(unsafe_code)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let mount_verbosity = match &cli.command {
        Command::Mount(m) => m.verbose,
        _ => 0,
    };
    logging::init(cli.verbose.max(mount_verbosity));
    let mut stdout = std::io::stdout().lock();
    match cli.command {
        Command::Check(args) => check_cmd::run(args),
        Command::Export(args) => export_cmd::run(args),
        Command::Nel(args) => nel_cmd::run(args),
        Command::Mount(args) => mount_cmd::run(args),
        Command::Ls(args) => tree_cmd::ls(args, &mut stdout),
        Command::Cat(args) => tree_cmd::cat(args, &mut stdout),
        Command::Textconv(args) => tree_cmd::textconv(args, &mut stdout),
    }
}
