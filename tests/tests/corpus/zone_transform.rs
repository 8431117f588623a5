//! Zone symmetry / rotation (`CPatchInfo::transform` + `CZoneSymmetrisation`) against NeL
//! itself, on every real zone of the corpus under all 8 transforms (mirror or not × 0..3
//! quarter turns) with the corpus tile bank (nel/snowballs/tiles/bank.bank).
//!
//! Both sides take the same steps (tests/oracle/landscape_oracle.cpp `transform`):
//! retrieve, drop border vertices and the binds naming another zone (the zone welder adds
//! them after export), move every control point through scale(1,-1,1)·rotateZ(π·r/2),
//! transform with the inverse as `toOriginalSpace` (cell 160, weld 1: ligoscape.cfg), build,
//! write. Masked, with why (as in `zone_build`): `CPatch::Flags` outside the smooth bits and
//! `PackedLightFactor` of light-less corners, which NeL leaves uninitialised.

use std::path::Path;

use maxfs_exporters::nel::{
    self,
    zone::Zone,
    zone_build::{
        self,
        tile_bank::BankXRef,
        transform::{transform, ZoneTransform},
    },
    NelFile,
};

const SMOOTH_MASK: u8 = 0x3c;
const CELL: f32 = 160.0;
const WELD: f32 = 1.0;

fn read_zone(bytes: &[u8], name: &str) -> Zone {
    match nel::read_nel(bytes, name).expect("zone reads") {
        NelFile::Zone(z) => z,
        _ => panic!("{name} is not a zone"),
    }
}

fn bank_path() -> std::path::PathBuf {
    maxfs_tests::corpus_dir().join("nel/snowballs/tiles/bank.bank")
}

pub fn corpus_bank() -> BankXRef {
    let p = bank_path();
    let bytes = std::fs::read(&p).expect("corpus tile bank");
    match nel::read_nel(&bytes, "bank.bank").expect("bank reads") {
        NelFile::TileBank(b) => BankXRef::new(&b).expect("bank xref"),
        _ => panic!("not a bank"),
    }
}

/// The steps of the oracle before `CPatchInfo::transform`.
pub fn prepared(zone: &Zone, how: ZoneTransform) -> Vec<zone_build::PatchInfo> {
    let info = zone_build::retrieve(zone).expect("retrieve");
    let m = how.matrix();
    let moving = how.symmetry || how.rotate != 0;
    let mut patches = info.patches;
    for pi in &mut patches {
        for b in &mut pi.bind_edges {
            if b.zone_id != zone.zone_id {
                b.n_patchs = 0;
                b.zone_id = zone.zone_id;
                b.next = [0; 4];
                b.edge = [0; 4];
            }
        }
        if moving {
            let p = &mut pi.patch;
            for v in p
                .vertices
                .iter_mut()
                .chain(&mut p.tangents)
                .chain(&mut p.interiors)
            {
                *v = m.mul_point(v);
            }
        }
    }
    patches
}

#[test]
fn transformed_zones_equal_nel_own_symmetrisation() {
    let files = maxfs_tests::files_with_ext(&maxfs_tests::corpus_dir(), &["zonel", "zone"]);
    assert!(!files.is_empty(), "no zone in the corpus");
    let bank = corpus_bank();
    let out = tempfile::tempdir().expect("tempdir");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("oracle/landscape.sh");
    let run = std::process::Command::new("bash")
        .arg(&script)
        .args(["transform"])
        .arg(bank_path())
        .args([CELL.to_string(), WELD.to_string()])
        .arg(out.path())
        .args(&files)
        .output()
        .expect("run the NeL landscape oracle");
    let report = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "NeL landscape oracle failed:\n{report}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let nel_failed: Vec<&str> = report.lines().filter(|l| l.starts_with("FAIL")).collect();
    let (mut cases, mut goofy, mut tiles_changed, mut refused_alike) = (0, 0, 0, 0);
    let mut transitions_replaced = 0;
    let mut failures = Vec::new();
    for p in &files {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let orig = read_zone(&std::fs::read(p).expect("read"), &name);
        for sym in [false, true] {
            for rot in 0..4u32 {
                let how = ZoneTransform {
                    symmetry: sym,
                    rotate: rot,
                };
                let tag = format!("s{}r{rot}", u8::from(sym));
                let nel_refused = nel_failed
                    .iter()
                    .any(|l| l.contains(&format!("/{name}\t{tag}")));
                let mut patches = prepared(&orig, how);
                let before: Vec<_> = patches.iter().map(|p| p.tiles.clone()).collect();
                if sym || rot != 0 {
                    match transform(
                        &mut patches,
                        &bank,
                        how,
                        CELL,
                        WELD,
                        &how.to_original_space(),
                    ) {
                        Ok(zs) => {
                            for (i, pi) in patches.iter().enumerate() {
                                for t in 0..pi.tiles.len() {
                                    for l in 0..3 {
                                        goofy += usize::from(
                                            zs.tile_state(i, t, l)
                                                == zone_build::symmetrisation::TileState::Goofy,
                                        );
                                    }
                                }
                            }
                        }
                        Err(e) if nel_refused => {
                            refused_alike += 1;
                            let _ = e;
                            continue;
                        }
                        Err(e) => {
                            failures.push(format!("{name} {tag}: we refuse ({e}), NeL does not"));
                            continue;
                        }
                    }
                }
                if nel_refused {
                    failures.push(format!("{name} {tag}: NeL refuses, we do not"));
                    continue;
                }
                for (a, b) in patches.iter().zip(&before) {
                    let s = usize::from(a.order_s);
                    for (k, x) in a.tiles.iter().enumerate() {
                        let (u, v) = (k % s, k / s);
                        let y = &b[if sym { s - u - 1 } else { u } + v * s];
                        tiles_changed += usize::from(x.tile != y.tile || x.flags != y.flags);
                        transitions_replaced += (0..3).filter(|&l| x.tile[l] != y.tile[l]).count();
                    }
                }
                let mut ours = zone_build::build(orig.zone_id, &patches, &[]).expect("build");
                let nel_bytes =
                    std::fs::read(out.path().join(format!("{name}.{tag}"))).expect("oracle output");
                let theirs = read_zone(&nel_bytes, &name);
                for (a, b) in ours.patches.iter_mut().zip(&theirs.patches) {
                    let (fa, fb) = (a.flags.unwrap_or(0), b.flags.unwrap_or(0));
                    a.flags = Some((fa & SMOOTH_MASK) | (fb & !SMOOTH_MASK));
                    if let (Some(ta), Some(tb)) =
                        (&mut a.tile_light_influences, &b.tile_light_influences)
                    {
                        for (x, y) in ta.iter_mut().zip(tb) {
                            if x.light == [0xff, 0xff] {
                                x.packed_light_factor = y.packed_light_factor;
                            }
                        }
                    }
                }
                let our_bytes = nel::write_nel(&NelFile::Zone(ours)).expect("write");
                cases += 1;
                if our_bytes != nel_bytes {
                    let at = our_bytes.iter().zip(&nel_bytes).position(|(a, b)| a != b);
                    failures.push(format!(
                        "{name} {tag}: {} vs {} bytes, first difference at {at:?}",
                        our_bytes.len(),
                        nel_bytes.len()
                    ));
                }
            }
        }
    }
    eprintln!(
        "zone transform vs NeL: {cases} zone transforms equal byte for byte ({} zones x 8), {refused_alike} refused by both; {goofy} goofy tile layers, {tiles_changed} tiles turned or replaced, {transitions_replaced} transition tile layers replaced by another transition",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        goofy > 0 && tiles_changed > 0 && transitions_replaced > 0,
        "the transforms did not exercise goofy tiles, rotations and transitions"
    );
}
