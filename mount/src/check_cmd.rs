//! `maxfs check`: runs the fidelity gates on every `.max` under the given paths.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use maxfs_scene::check::{check_path, CheckOptions, CheckReport, Outcome};
use rayon::prelude::*;
use serde::Serialize;

use maxfs::walk;

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Files or directories (walked for *.max).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write each compound file and read it back (streams and CLSID must match).
    #[arg(long)]
    pub container: bool,
    /// Also evaluate every scene and list what it does not compute (Biped, IK,
    /// unevaluated modifiers …); such a file is "partial" and the run exits
    /// with status 2 when no file failed. Slower: the gates alone run at I/O
    /// speed.
    #[arg(long)]
    pub coverage: bool,
    /// Fail a file whose embedded scripts hold unsafe commands (startup
    /// folders, callbacks, system commands …); without it they are listed
    /// and counted but do not change the exit status.
    #[arg(long)]
    pub deny_scripts: bool,
    /// Print warnings (typed decodes kept raw, unknown versions) under each file.
    #[arg(long, short)]
    pub verbose: bool,
    #[command(flatten)]
    pub limits: maxfs::limits::LimitArgs,
}

#[derive(Serialize)]
struct FileResult {
    path: String,
    /// False when the file fails any gate or is not a readable `.max` at all.
    passed: bool,
    /// Why the file failed, in one line (absent when it passed).
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<String>,
    /// Passed the gates, but `--coverage` found something the evaluation does
    /// not compute (listed in `unevaluated`): its exports would be incomplete.
    partial: bool,
    #[serde(flatten)]
    report: CheckReport,
}

/// One line saying why a failed outcome failed.
fn why(o: &Outcome) -> Option<String> {
    match o {
        Outcome::Ok => None,
        Outcome::Fail(m) => Some(format!(
            "{} gate: stream {:?} differs at offset {:#x}",
            m.gate, m.stream, m.offset
        )),
        Outcome::NotACompoundFile(w) => Some(format!("not a .max compound file: {w}")),
        Outcome::Unsupported(w) => Some(format!("unsupported: {w}")),
        Outcome::Error(w) => Some(w.clone()),
    }
}

#[derive(Serialize, Default)]
struct Summary {
    files: usize,
    bytes: u64,
    seconds: f64,
    by_outcome: BTreeMap<String, usize>,
    by_version: BTreeMap<String, usize>,
    problems: Vec<String>,
    /// Files with embedded scripts holding unsafe commands.
    unsafe_scripts: usize,
}

/// The outcome's label, "partial" for a file that passed with evaluation gaps.
fn label(r: &FileResult) -> &'static str {
    if !r.passed && !r.report.outcome.is_failure() {
        "denied (scripts)"
    } else if r.partial {
        "partial"
    } else {
        r.report.outcome.label()
    }
}

fn line(r: &FileResult) -> String {
    let version = r.report.version_name.as_deref().unwrap_or("-");
    match &r.report.outcome {
        Outcome::Ok => format!(
            "{:<5} {}  [{version}, {} streams, {} chunks, {} typed values]",
            if !r.passed {
                "FAIL"
            } else if r.partial {
                "part"
            } else {
                "ok"
            },
            r.path,
            r.report.streams,
            r.report.chunks,
            r.report.typed_values
        ),
        Outcome::Fail(m) => format!(
            "FAIL  {}  {} stream {:?} offset {:#x}: expected [{}] got [{}] (len {} vs {})",
            r.path, m.gate, m.stream, m.offset, m.expected, m.actual, m.expected_len, m.actual_len
        ),
        o @ (Outcome::NotACompoundFile(w) | Outcome::Unsupported(w) | Outcome::Error(w)) => {
            format!("{:<5} {}  {w}", o.label(), r.path)
        }
    }
}

pub fn run(args: CheckArgs) -> ExitCode {
    let start = Instant::now();
    let (files, problems) = walk::collect(&args.paths, &|p| walk::has_ext(p, "max"));
    let pb = walk::progress(files.len() as u64, "checking");
    let limits = args.limits.limits();
    let results: Vec<FileResult> = files
        .par_iter()
        .map(|p| {
            // Read sector by sector: a huge (or sparse) file is never loaded whole.
            let options = CheckOptions {
                container: args.container,
                coverage: args
                    .coverage
                    .then_some(maxfs_scene::check::coverage as maxfs_scene::check::Coverage),
            };
            let report = check_path(p, options, &limits);
            pb.inc(1);
            let denied = args.deny_scripts && !report.unsafe_scripts.is_empty();
            FileResult {
                path: p.display().to_string(),
                passed: !report.outcome.is_failure() && !denied,
                why: why(&report.outcome).or_else(|| {
                    denied.then(|| {
                        format!(
                            "embedded scripts with unsafe commands ({}; --deny-scripts)",
                            report.unsafe_scripts.len()
                        )
                    })
                }),
                partial: !report.outcome.is_failure() && !report.unevaluated.is_empty(),
                report,
            }
        })
        .collect();
    pb.finish_and_clear();
    let mut summary = Summary {
        files: results.len(),
        seconds: start.elapsed().as_secs_f64(),
        problems,
        ..Summary::default()
    };
    for r in &results {
        summary.bytes += r.report.bytes;
        summary.unsafe_scripts += usize::from(!r.report.unsafe_scripts.is_empty());
        *summary.by_outcome.entry(label(r).to_string()).or_default() += 1;
        let v = r
            .report
            .version_name
            .clone()
            .unwrap_or_else(|| "no version".into());
        *summary.by_version.entry(v).or_default() += 1;
    }
    // Any file that is not ok fails the run (a CI gate must not pass broken
    // assets), and so does a path that could not be walked.
    let failed = results.iter().any(|r| !r.passed) || !summary.problems.is_empty();
    if args.json {
        let out = serde_json::json!({ "files": results, "summary": summary });
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
    } else {
        for r in &results {
            println!("{}", line(r));
            for u in &r.report.unevaluated {
                println!("      {u}");
            }
            for f in &r.report.unsafe_scripts {
                println!("      unsafe script: {}", f.summary());
            }
            if args.verbose {
                for w in &r.report.warnings {
                    println!("      warning: {w}");
                }
            }
        }
        for p in &summary.problems {
            println!("error {p}");
        }
        println!(
            "\n{} files, {:.1} MB of streams in {:.3} s",
            summary.files,
            summary.bytes as f64 / 1e6,
            summary.seconds
        );
        for (k, n) in &summary.by_outcome {
            println!("  {k:<20} {n}");
        }
        if summary.unsafe_scripts > 0 {
            println!(
                "  {:<20} {} (embedded scripts with unsafe commands: do not open them in 3ds Max unprotected)",
                "unsafe scripts", summary.unsafe_scripts
            );
        }
        println!("by version:");
        for (k, n) in &summary.by_version {
            println!("  {k:<30} {n}");
        }
    }
    if failed {
        ExitCode::FAILURE
    } else if results.iter().any(|r| r.partial) {
        // Distinct from a failure: the files are intact, the evaluation is not complete.
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}
