//! The Khronos glTF validator (npm `gltf-validator`, installed by
//! scripts/gltf-validator.sh) over the GLB of every corpus `.max`, exported
//! with stand-in images so embedded PNGs are validated too. Any error fails
//! the test; a machine without node fails it with a message saying so (it
//! does not skip).

use std::path::Path;
use std::process::Command;

use maxfs_tests::corpus_max_files;

#[test]
fn khronos_validator_finds_no_error_in_any_corpus_glb() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let install = Command::new("bash")
        .arg(root.join("scripts/gltf-validator.sh"))
        .output()
        .expect("bash runs scripts/gltf-validator.sh");
    assert!(
        install.status.success(),
        "the Khronos glTF validator is not available (node and npm are needed; \
         scripts/gltf-validator.sh said: {})",
        String::from_utf8_lossy(&install.stderr).trim()
    );
    let dir = String::from_utf8(install.stdout).expect("utf8");
    let dir = dir.trim();
    let out = tempfile::tempdir().expect("tmp");
    let mut files = Vec::new();
    for (i, f) in corpus_max_files().iter().enumerate() {
        let e = maxfs_tests::export_with_stand_in_images(f);
        let p = out.path().join(format!(
            "{i:03}-{}.glb",
            f.file_stem().and_then(|s| s.to_str()).unwrap_or("scene")
        ));
        std::fs::write(&p, &e.glb).expect("glb written");
        files.push(p);
    }
    assert!(files.len() >= 70, "only {} corpus files", files.len());
    let run = Command::new("node")
        .arg(root.join("scripts/validate-gltf.mjs"))
        .args(&files)
        .env("GLTF_VALIDATOR_DIR", dir)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "validator failed to run: {stderr}");
    let summary: serde_json::Value = stderr
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no validator summary: {stderr}"));
    eprintln!("glTF validator: {summary}");
    assert_eq!(summary["files"].as_u64(), Some(files.len() as u64));
    assert_eq!(
        summary["errors"].as_u64(),
        Some(0),
        "validator errors:\n{stdout}"
    );
    // Warnings too (e.g. a skin's unused joint slot not set to zero): what
    // the validator flags, importers may mishandle. One kind is expected: a
    // normal-mapped material on a mesh without TANGENT (we write none; the
    // importer generates MikkTSpace tangents, as Max 2021+ bakes them).
    let tangents = summary["codes"]["MESH_PRIMITIVE_GENERATED_TANGENT_SPACE"]
        .as_u64()
        .unwrap_or(0);
    assert_eq!(
        summary["warnings"].as_u64().map(|w| w - tangents),
        Some(0),
        "validator warnings:\n{stdout}"
    );
}
