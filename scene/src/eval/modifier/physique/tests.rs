//! Physique decode on payloads built through the chunk writer.

use super::decode::decode_mod_app;
use super::links::top_normalised;
use super::*;
use crate::chunk::{self, Chunk};

/// One 0x2506 vertex container with its 0x0989 record.
fn vertex(links: &[(i32, f32)]) -> Chunk {
    let mut p = (links.len() as u32).to_le_bytes().to_vec();
    for &(r, w) in links {
        p.extend(r.to_le_bytes());
        for x in [0.01f32, 0.08, 90.0, w] {
            p.extend(x.to_le_bytes());
        }
    }
    Chunk::container(0x2506, vec![Chunk::leaf(0x0989, p)])
}

fn init_pos(i: u32, z: f32) -> Chunk {
    let mut p = i.to_le_bytes().to_vec();
    for x in [0.0f32, 0.0, z] {
        p.extend(x.to_le_bytes());
    }
    Chunk::leaf(0x2807, p)
}

/// A ModApp written with the project's chunk writer and read back.
fn mod_app(vertices: &[&[(i32, f32)]]) -> Chunk {
    let mut kids: Vec<Chunk> = vertices.iter().map(|v| vertex(v)).collect();
    kids.extend((0..vertices.len() as u32).map(|i| init_pos(i, i as f32)));
    let app = Chunk::container(
        0x2500,
        vec![Chunk::container(
            0x2512,
            vec![Chunk::container(0x2504, kids)],
        )],
    );
    let bytes = chunk::write(&[app]);
    chunk::parse(&bytes)
        .expect("written ModApp parses")
        .remove(0)
}

/// The pantabottes armour's Physique table (seed S:559, S:837): 87 slots,
/// 16 NULL, Pelvis first; node ids are slot + 100, the COM (Bip01) is 99.
struct Armour {
    refs: Vec<Option<usize>>,
    parents: std::collections::HashMap<usize, usize>,
    names: std::collections::HashMap<usize, &'static str>,
}

const NULLS: [usize; 16] = [
    5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 74, 86,
];
const COM: usize = 99;

fn armour() -> Armour {
    let named: &[(usize, &str, Option<usize>)] = &[
        (0, "Bip01 Pelvis", None),
        (1, "Bip01 Spine", Some(0)),
        (2, "Bip01 Spine1", Some(1)),
        (76, "Bip01 L Thigh", Some(0)),
        (77, "Bip01 L Calf", Some(76)),
        (78, "Bip01 L Foot", Some(77)),
        (79, "Bip01 L Toe0", Some(78)),
        (82, "Bip01 R Thigh", Some(0)),
        (83, "Bip01 R Calf", Some(82)),
        (84, "Bip01 R Foot", Some(83)),
        (85, "Bip01 R Toe0", Some(84)),
    ];
    let mut refs = Vec::new();
    let mut parents = std::collections::HashMap::new();
    let mut names = std::collections::HashMap::new();
    names.insert(COM, "Bip01");
    for slot in 0..87usize {
        if NULLS.contains(&slot) {
            refs.push(None);
            continue;
        }
        let node = slot + 100;
        refs.push(Some(node));
        match named.iter().find(|n| n.0 == slot) {
            Some(&(_, name, p)) => {
                names.insert(node, name);
                parents.insert(node, p.map_or(COM, |p| p + 100));
            }
            None => {
                // Other bones hang off the previous slot (or the Pelvis after a NULL).
                let p = if slot > 0 && !NULLS.contains(&(slot - 1)) {
                    slot - 1 + 100
                } else {
                    100
                };
                parents.insert(node, p);
                names.insert(node, "other");
            }
        }
    }
    Armour {
        refs,
        parents,
        names,
    }
}

fn with_rig<T>(a: &Armour, f: impl FnOnce(&Rig) -> T) -> T {
    let parent = |n: usize| a.parents.get(&n).copied();
    let com = |n: usize| n == COM;
    f(&Rig {
        refs: &a.refs,
        parent: &parent,
        is_com: &com,
    })
}

#[test]
fn pantabottes_worked_example() {
    let a = armour();
    assert_eq!(a.refs.len(), 87);
    assert_eq!(a.refs.iter().filter(|r| r.is_none()).count(), 16);
    let name = |n: usize| a.names[&n];
    with_rig(&a, |rig| {
        // The seed's four link references.
        assert_eq!(name(rig.bone(-1).expect("-1")), "Bip01 Pelvis");
        assert_eq!(name(rig.bone(-77).expect("-77")), "Bip01 L Thigh");
        assert_eq!(name(rig.bone(-83).expect("-83")), "Bip01 R Thigh");
        assert_eq!(name(rig.bone(84).expect("+84")), "Bip01 R Calf");
        // Root attachment: the link-tree root, ref[0].
        assert_eq!(name(rig.bone(0).expect("0")), "Bip01 Pelvis");
    });
    let app = mod_app(&[
        &[(-1, 1.0)],
        &[(-1, 0.5), (-77, 0.3), (-83, 0.2)],
        // The knee cross-link pair (rigid R Thigh, deformable R Calf).
        &[(-83, 0.3), (84, 0.7)],
        &[(-2, 1.0)],
        // Single-link records are rigid whatever weight they store.
        &[(-78, 0.0)],
        &[(-79, 1.0)],
        // Five links: the lightest (the earlier of two ties) is dropped.
        &[(-85, 0.4), (-79, 0.1), (-1, 0.2), (-2, 0.1), (0, 0.2)],
    ]);
    let local = decode_mod_app(&app).expect("decodes");
    assert_eq!(local.vertices.len(), 7);
    assert_eq!(local.init_positions[3].map(|p| p.2), Some(3.0));
    let w = with_rig(&a, |rig| resolve(&local, rig)).expect("resolves");
    let named: Vec<Vec<(&str, f32)>> = w
        .iter()
        .map(|v| v.iter().map(|&(n, x)| (name(n), x)).collect())
        .collect();
    let expect: [&[(&str, f32)]; 6] = [
        &[("Bip01 Pelvis", 1.0)],
        &[
            ("Bip01 Pelvis", 0.5),
            ("Bip01 L Thigh", 0.3),
            ("Bip01 R Thigh", 0.2),
        ],
        &[("Bip01 R Calf", 0.7), ("Bip01 R Thigh", 0.3)],
        &[("Bip01 Spine", 1.0)],
        &[("Bip01 L Calf", 1.0)],
        &[("Bip01 L Foot", 1.0)],
    ];
    for (v, e) in expect.iter().enumerate() {
        assert_eq!(named[v].len(), e.len(), "vertex {v}");
        for (got, want) in named[v].iter().zip(e.iter()) {
            assert_eq!(got.0, want.0, "vertex {v}");
            assert!(
                (got.1 - want.1).abs() < 1e-6,
                "vertex {v}: {got:?} vs {want:?}"
            );
        }
    }
    let five: Vec<&str> = named[6].iter().map(|x| x.0).collect();
    assert_eq!(
        five,
        [
            "Bip01 R Foot",
            "Bip01 Pelvis",
            "Bip01 Pelvis",
            "Bip01 Spine"
        ]
    );
    let s: f32 = named[6].iter().map(|x| x.1).sum();
    assert!((s - 1.0).abs() < 1e-6);
    assert!((named[6][0].1 - 0.4 / 0.9).abs() < 1e-6);
    let used: std::collections::BTreeSet<usize> = w.iter().flatten().map(|x| x.0).collect();
    assert_eq!(used.len(), 8, "the seed's 8 bones used");
}

#[test]
fn chain_boundaries_com_and_root() {
    let a = armour();
    with_rig(&a, |rig| {
        // Link 19 ends at the NULL slot 20: the link-tree root.
        assert_eq!(rig.bone(-20).expect("null end"), 100);
        // Link 20 starts after the NULL: ends at ref[21], deforms by its parent.
        assert_eq!(rig.bone(-21).expect("chain start"), a.parents[&121]);
        // Past the table.
        assert!(matches!(
            rig.bone(-88),
            Err(PhysiqueError::LinkOutOfRange { slots: 87, .. })
        ));
        assert!(rig.bone(i32::MAX).is_err());
        assert!(rig.bone(i32::MIN).is_err());
        // A record without links goes to the skeleton root (the COM here).
        assert_eq!(rig.vertex(0, &[]).expect("empty"), vec![(COM, 1.0)]);
    });
    // COM start: deformable links skip it to the bone the sub-rig hangs
    // from, rigid ones keep it.
    let refs = [Some(1), Some(2), Some(3)];
    let parents = [None, Some(0), Some(1), Some(2)];
    let parent = |n: usize| parents.get(n).copied().flatten();
    let com = |n: usize| n == 1;
    let rig = Rig {
        refs: &refs,
        parent: &parent,
        is_com: &com,
    };
    assert_eq!(rig.bone(1).expect("deformable"), 0);
    assert_eq!(rig.bone(-1).expect("rigid"), 1);
    // ref[0] NULL: the root is the parent of the first non-NULL ref.
    let refs = [None, Some(2)];
    let rig = Rig {
        refs: &refs,
        parent: &parent,
        is_com: &com,
    };
    assert_eq!(rig.link_root().expect("root"), 1);
}

#[test]
fn damaged_records_are_precise_errors() {
    let good = mod_app(&[&[(-1, 1.0)]]);
    // A record whose count does not match its size.
    let mut p = 2u32.to_le_bytes().to_vec();
    p.extend([0u8; 20]);
    let bad = Chunk::container(
        0x2500,
        vec![Chunk::container(
            0x2512,
            vec![Chunk::container(
                0x2504,
                vec![Chunk::container(0x2506, vec![Chunk::leaf(0x0989, p)])],
            )],
        )],
    );
    assert_eq!(
        decode_mod_app(&bad),
        Err(PhysiqueError::BadRecord { vertex: 0, len: 24 })
    );
    let huge = u32::MAX.to_le_bytes().to_vec();
    let bad = Chunk::container(
        0x2500,
        vec![Chunk::container(
            0x2512,
            vec![Chunk::container(
                0x2504,
                vec![Chunk::container(0x2506, vec![Chunk::leaf(0x0989, huge)])],
            )],
        )],
    );
    assert!(decode_mod_app(&bad).is_err());
    assert!(decode_mod_app(&Chunk::container(0x2500, vec![])).is_err());
    // An attach position for a vertex that does not exist.
    let mut kids = good.children()[0].children()[0].children().to_vec();
    kids.push(init_pos(7, 0.0));
    assert!(matches!(
        decode::decode_vertex_data(&kids),
        Err(PhysiqueError::InitPositionIndex {
            index: 7,
            vertices: 1
        })
    ));
    // Non-finite weights in a blended record.
    let nan = decode_mod_app(&mod_app(&[&[(-1, f32::NAN), (-2, 0.5)]])).expect("decodes");
    let a = armour();
    assert!(with_rig(&a, |rig| resolve(&nan, rig)).is_err());
}

#[test]
fn top_four_ties_keep_the_later() {
    let w = top_normalised(vec![(0, 0.1), (1, 0.4), (2, 0.2), (3, 0.1), (4, 0.2)]);
    assert_eq!(w.iter().map(|x| x.0).collect::<Vec<_>>(), [1, 4, 2, 3]);
}

/// A link table written with the chunk writer: one 0x3204 per slot whose
/// 0x3206/0x2513/0x3000 holds the bone TM; a table entry without it, or a
/// matrix that is not affine, is refused with its slot.
#[test]
fn link_table_bind_tms() {
    use super::frames::{bone_tms, matrix4};
    fn m4(t: [f32; 3], last: f32) -> Vec<u8> {
        let rows = [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [t[0], t[1], t[2], last],
        ];
        rows.iter()
            .flatten()
            .flat_map(|x: &f32| x.to_le_bytes())
            .collect()
    }
    let entry = |m: Vec<u8>| {
        Chunk::container(
            0x3204,
            vec![Chunk::container(
                0x3206,
                vec![Chunk::container(0x2513, vec![Chunk::leaf(0x3000, m)])],
            )],
        )
    };
    let table = |entries: Vec<Chunk>| {
        let c = Chunk::container(0x2703, vec![Chunk::container(0x2704, entries)]);
        chunk::parse(&chunk::write(&[c])).expect("parses")
    };
    let ok = table(vec![
        entry(m4([0.0; 3], 1.0)),
        entry(m4([2.5, 0.0, 1.0], 1.0)),
    ]);
    let tms = bone_tms(&ok).expect("decodes");
    assert_eq!(tms.len(), 2);
    assert_eq!(tms[1].0[3], crate::eval::core::math::Vec3(2.5, 0.0, 1.0));
    let bad = table(vec![entry(m4([0.0; 3], 1.0)), entry(m4([0.0; 3], 0.5))]);
    assert_eq!(bone_tms(&bad), Err(PhysiqueError::BadLinkFrame { slot: 1 }));
    assert!(matrix4(&[0u8; 60]).is_none());
    assert_eq!(
        bone_tms(&[]),
        Err(PhysiqueError::Missing("link table (0x2703/0x2704)"))
    );
}
