//! The fidelity gates. T1: chunk tree → bytes is identical for every chunk-formatted
//! stream. T2: typed parse → rebuild from typed values → bytes identical. Optionally
//! the container gate: write the compound file, read it back, same streams and CLSID.
//!
//! Normalizations allowed by the gates: none.

use serde::Serialize;

use std::sync::Arc;

use crate::chunk;
use crate::container::MaxFile;
use crate::document::{Document, Typed};
use crate::error::MaxError;

/// First differing byte between what was read and what was rebuilt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    pub gate: &'static str,
    pub stream: String,
    pub offset: u64,
    /// Original bytes around the offset (8 each side), hex.
    pub expected: String,
    /// Rebuilt bytes around the offset, hex.
    pub actual: String,
    pub expected_len: u64,
    pub actual_len: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", content = "detail", rename_all = "kebab-case")]
pub enum Outcome {
    Ok,
    NotACompoundFile(String),
    Unsupported(String),
    Error(String),
    Fail(Mismatch),
}

impl Outcome {
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::NotACompoundFile(_) => "not-a-compound-file",
            Outcome::Unsupported(_) => "unsupported",
            Outcome::Error(_) => "error",
            Outcome::Fail(_) => "FAIL",
        }
    }

    /// Anything but `Ok` fails the check: a file named `.max` that is not a
    /// readable compound file (empty, text, an LFS pointer) is a broken asset too.
    pub fn is_failure(&self) -> bool {
        !matches!(self, Outcome::Ok)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckReport {
    #[serde(flatten)]
    pub outcome: Outcome,
    /// Scene root chunk id.
    pub version: Option<u16>,
    pub version_name: Option<String>,
    pub streams: usize,
    pub chunk_streams: usize,
    pub chunks: usize,
    /// Leaves decoded into typed values and re-encoded by T2.
    pub typed_values: usize,
    /// Bytes of stream data checked (inflated).
    pub bytes: u64,
    /// Typed decodes that failed and fell back to raw, and scene-graph problems.
    pub warnings: Vec<String>,
    /// Classes the evaluation does not compute (Biped, IK, CAT, Boolean, …),
    /// one line per role and class with the nodes affected.
    pub unevaluated: Vec<String>,
    /// Text leaves holding commands an embedded script should not need
    /// (startup folders, callbacks, system commands …; `scripts.rs`).
    pub unsafe_scripts: Vec<crate::scripts::ScriptFinding>,
}

fn hex_window(b: &[u8], at: usize) -> String {
    let lo = at.saturating_sub(8);
    let hi = (at + 8).min(b.len());
    b.get(lo..hi)
        .unwrap_or(&[])
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Compares two byte strings; None when equal.
pub fn compare(
    gate: &'static str,
    stream: &str,
    expected: &[u8],
    actual: &[u8],
) -> Option<Mismatch> {
    if expected == actual {
        return None;
    }
    let at = expected
        .iter()
        .zip(actual)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(actual.len()));
    Some(Mismatch {
        gate,
        stream: stream.to_string(),
        offset: at as u64,
        expected: hex_window(expected, at),
        actual: hex_window(actual, at),
        expected_len: expected.len() as u64,
        actual_len: actual.len() as u64,
    })
}

fn error_outcome(e: &MaxError) -> Outcome {
    match e {
        MaxError::NotCompound(k) => Outcome::NotACompoundFile(k.to_string()),
        MaxError::Unsupported(w) => Outcome::Unsupported(w.clone()),
        other => Outcome::Error(other.to_string()),
    }
}

/// Lists what an evaluation of the scene does not compute. The file layer knows
/// nothing of evaluation, so the caller plugs it in (`maxfs_scene::check::coverage`).
pub type Coverage = fn(Arc<Document>, Arc<Typed>) -> Vec<String>;

/// What a check runs besides T1 and T2.
#[derive(Debug, Clone, Copy, Default)]
pub struct CheckOptions {
    /// Write the compound file and read it back.
    pub container: bool,
    /// Evaluate the scene and list what it does not compute (`unevaluated`).
    /// Off by default: the gates run at I/O speed, evaluation does not.
    pub coverage: Option<Coverage>,
}

/// Runs T1 and T2 (and the container gate when asked) on one file's bytes.
pub fn check_bytes(bytes: &[u8], container_gate: bool) -> CheckReport {
    check_bytes_with(
        bytes,
        CheckOptions {
            container: container_gate,
            coverage: None,
        },
    )
}

/// Runs the gates `options` asks for on one file's bytes.
pub fn check_bytes_with(bytes: &[u8], options: CheckOptions) -> CheckReport {
    match MaxFile::from_bytes(bytes) {
        Ok(file) => check_file_with(file, options),
        Err(e) => CheckReport::with_outcome(error_outcome(&e)),
    }
}

/// Runs the gates on a file on disk, read sector by sector within `limits`.
pub fn check_path(
    path: &std::path::Path,
    options: CheckOptions,
    limits: &crate::container::InflateLimits,
) -> CheckReport {
    match MaxFile::open_with(path, limits) {
        Ok(file) => check_file_with(file, options),
        Err(e) => CheckReport::with_outcome(error_outcome(&e)),
    }
}

impl CheckReport {
    /// A report for a file that never got as far as the gates.
    pub fn with_outcome(outcome: Outcome) -> CheckReport {
        CheckReport {
            outcome,
            version: None,
            version_name: None,
            streams: 0,
            chunk_streams: 0,
            chunks: 0,
            typed_values: 0,
            bytes: 0,
            warnings: Vec::new(),
            unevaluated: Vec::new(),
            unsafe_scripts: Vec::new(),
        }
    }
}

/// Runs the gates on a compound file already read.
pub fn check_file(file: MaxFile, container_gate: bool) -> CheckReport {
    check_file_with(
        file,
        CheckOptions {
            container: container_gate,
            coverage: None,
        },
    )
}

/// Runs the gates `options` asks for on a compound file already read.
pub fn check_file_with(file: MaxFile, options: CheckOptions) -> CheckReport {
    let doc = Document::from_file(file);
    let mut report = CheckReport::with_outcome(Outcome::Ok);
    report.streams = doc.streams.len();
    report.version = doc.version();
    report.version_name = report.version.map(crate::version::describe);
    report.bytes = doc.file.streams.iter().map(|s| s.data.len() as u64).sum();
    // The gates run on the streams that were read; one that was not fails the file.
    let failed: Vec<String> = doc
        .file
        .failed_streams()
        .map(|(_, why)| why.to_string())
        .collect();
    report.outcome = run_gates(doc, options, &mut report);
    if !failed.is_empty() {
        report.outcome = Outcome::Error(failed.join("; "));
    }
    report
}

fn run_gates(doc: Document, options: CheckOptions, report: &mut CheckReport) -> Outcome {
    for (s, sd) in doc.file.streams.iter().zip(&doc.streams) {
        if let Some(chunks) = sd.chunks() {
            report.chunk_streams += 1;
            report.chunks += chunk::count(chunks);
            if let Some(m) = compare("T1", &s.name, &s.data, &chunk::write(chunks)) {
                return Outcome::Fail(m);
            }
        }
    }
    let typed = doc.typed();
    // Before the typed gate: a file that fails it is still worth the warning.
    report.unsafe_scripts = crate::scripts::scan(&doc, typed.scene.as_deref().ok());
    for ts in &typed.streams {
        report.typed_values += ts.typed_values();
        let Some(original) = doc.file.stream(&ts.name) else {
            continue;
        };
        if let Some(m) = compare("T2", &ts.name, &original.data, &ts.to_bytes()) {
            return Outcome::Fail(m);
        }
        for d in &ts.degraded {
            report.warnings.push(format!(
                "{}: chunk {}: kept raw: {}",
                ts.name, d.path, d.what
            ));
        }
    }
    if let Err(e) = &typed.scene {
        return Outcome::Error(e.to_string());
    }
    if let Some(v) = report.version {
        if crate::version::release_name(v).is_none() {
            report
                .warnings
                .push(format!("unknown Scene version id {v:#06x}"));
        }
    }
    if options.container {
        if let Some(m) = container_roundtrip(&doc.file) {
            return Outcome::Fail(m);
        }
    }
    if let Some(coverage) = options.coverage {
        report.unevaluated = coverage(Arc::new(doc), Arc::new(typed));
    }
    Outcome::Ok
}

/// Writes the compound file, reads it back, and compares streams and CLSID.
pub fn container_roundtrip(file: &MaxFile) -> Option<Mismatch> {
    let written = match file.to_bytes() {
        Ok(b) => b,
        Err(e) => {
            return Some(mismatch_note(
                "container",
                "",
                &format!("write failed: {e}"),
            ))
        }
    };
    let back = match MaxFile::from_bytes(&written) {
        Ok(b) => b,
        Err(e) => {
            return Some(mismatch_note(
                "container",
                "",
                &format!("re-read failed: {e}"),
            ))
        }
    };
    if let Some(m) = compare("container", "CLSID", &file.clsid, &back.clsid) {
        return Some(m);
    }
    let names = |f: &MaxFile| {
        let mut v: Vec<String> = f.streams.iter().map(|s| s.name.clone()).collect();
        v.sort();
        v
    };
    if names(file) != names(&back) {
        return Some(mismatch_note(
            "container",
            "",
            &format!(
                "stream list differs: {:?} vs {:?}",
                names(file),
                names(&back)
            ),
        ));
    }
    for s in &file.streams {
        let b = back.stream(&s.name)?;
        if let Some(m) = compare("container", &s.name, &s.data, &b.data) {
            return Some(m);
        }
        if (s.compressed, s.zstd) != (b.compressed, b.zstd) {
            return Some(mismatch_note(
                "container",
                &s.name,
                "compression flag not preserved",
            ));
        }
    }
    None
}

fn mismatch_note(gate: &'static str, stream: &str, what: &str) -> Mismatch {
    Mismatch {
        gate,
        stream: stream.to_string(),
        offset: 0,
        expected: String::new(),
        actual: what.to_string(),
        expected_len: 0,
        actual_len: 0,
    }
}
