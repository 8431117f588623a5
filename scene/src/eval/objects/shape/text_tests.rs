//! Glyphs from UnityKursovoi's "Installation (older).max", Text001 ("посл.",
//! Arial Bold, size 1): п and "." as the file saves them, о, с, л with their
//! saved advances only (their outlines lie inside the line's extent). The
//! one-line case is checked against the vertices of the FBX 3ds Max exported
//! of the scene (Device_Installation.fbx, node Text001, object space, 6
//! digits); the other layouts against the rules of the SDK's Text sample
//! (text_layout.rs), stated here as relations between glyph positions.
use super::*;

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A corner-knot outline: points and their saved handles.
fn outline(knots: &[[f32; 6]]) -> Chunk {
    let mut data = Vec::new();
    for k in knots {
        let f = |v: f32| v.to_bits();
        data.extend(words(&[
            1,
            0,
            0,
            f(k[0]),
            f(k[1]),
            0,
            f(k[2]),
            f(k[3]),
            0,
            f(k[4]),
            f(k[5]),
            0,
            0,
        ]));
    }
    let spline = Chunk::container(
        0x1010,
        vec![
            Chunk::leaf(0x2900, words(&[knots.len() as u32])),
            Chunk::leaf(0x2904, words(&[0])),
            Chunk::leaf(0x290a, data),
            Chunk::leaf(0x290d, words(&[1])),
        ],
    );
    Chunk::container(GLYPH_SHAPE, vec![spline])
}

fn glyph(key: u32, advance: f32, knots: &[[f32; 6]]) -> Chunk {
    let shape = if knots.is_empty() {
        Chunk::container(GLYPH_SHAPE, vec![Chunk::leaf(0x1050, words(&[6]))])
    } else {
        outline(knots)
    };
    Chunk::container(
        GLYPH,
        vec![
            Chunk::leaf(GLYPH_KEY, words(&[key])),
            Chunk::leaf(GLYPH_ADVANCE, advance.to_le_bytes().to_vec()),
            shape,
        ],
    )
}

fn utf16(text: &str) -> Vec<u8> {
    let mut b: Vec<u8> = text.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    b.extend([0, 0]);
    let mut out = words(&[b.len() as u32]);
    out.extend(b);
    out
}

const PE: [[f32; 6]; 8] = [
    [59.0, 465.0, 59.0, 310.0, 196.66667, 465.0],
    [472.0, 465.0, 334.33334, 465.0, 472.0, 310.0],
    [472.0, 0.0, 472.0, 155.0, 431.0, 0.0],
    [349.0, 0.0, 390.0, 0.0, 349.0, 122.0],
    [349.0, 366.0, 349.0, 244.0, 293.33334, 366.0],
    [182.0, 366.0, 237.66667, 366.0, 182.0, 244.0],
    [182.0, 0.0, 182.0, 122.0, 141.0, 0.0],
    [59.0, 0.0, 100.0, 0.0, 59.0, 155.0],
];
const DOT: [[f32; 6]; 4] = [
    [64.0, 0.0, 105.0, 0.0, 64.0, 41.0],
    [64.0, 123.0, 64.0, 82.0, 105.0, 123.0],
    [187.0, 123.0, 146.0, 123.0, 187.0, 82.0],
    [187.0, 0.0, 187.0, 41.0, 146.0, 0.0],
];
/// Keys and advances as the file saves them.
const K_PE: u32 = 617;
const K_DOT: u32 = 17;
const ADV_PE: f64 = 541.0;
const ADV_DOT: f64 = 249.0;
/// Sequence entries: a glyph, a carriage return, a line feed (control
/// bytes as charger.max saves them; the keys of CR and LF are not used).
const PLAIN: u8 = 0xf8;
const CR: (u32, u8) = (3, 0xfb);
const LF: (u32, u8) = (3, 0xfd);
const KEYS: [u32; 5] = [617, 616, 619, 613, 17];

/// The text object's chunks for the sequence `seq`, alignment `align`,
/// baseline-aligned, with `extra` chunks (italic, underline) added.
fn object(text: &str, seq: &[(u32, u8)], align: u32, extra: &[u16]) -> Vec<Chunk> {
    let mut map = words(&[seq.len() as u32]);
    for &(k, c) in seq {
        map.extend(k.to_le_bytes());
        map.push(c);
    }
    let mut out = vec![
        Chunk::leaf(0x1005, utf16("Arial Bold")),
        Chunk::leaf(TEXT_UTF16, utf16(text)),
        glyph(617, 541.0, &PE),
        glyph(616, 547.0, &[]),
        glyph(619, 498.0, &[]),
        glyph(613, 569.0, &[]),
        glyph(17, 249.0, &DOT),
        Chunk::leaf(GLYPH_MAP, map),
    ];
    for &id in extra {
        out.push(Chunk::leaf(id, Vec::new()));
    }
    out.push(Chunk::leaf(ALIGNMENT, words(&[align])));
    out.push(Chunk::leaf(0x2010, words(&[2])));
    out
}

fn plain(keys: &[u32]) -> Vec<(u32, u8)> {
    keys.iter().map(|&k| (k, PLAIN)).collect()
}

fn posl(align: u32) -> Vec<Chunk> {
    object("посл.", &plain(&KEYS), align, &[BASELINE_ALIGNED])
}

/// Where a glyph's own origin landed: its first knot minus the glyph's
/// first saved point at the size's scale.
fn origin(s: &Spline, first: [f32; 6], scale: f64) -> (f64, f64) {
    let p = s.knots[0].point;
    (
        p.0 - f64::from(first[0]) * scale,
        p.1 - f64::from(first[1]) * scale,
    )
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn glyphs_are_laid_out_as_max_exported_them() {
    let splines = layout(&posl(0), 1.0, 0.0, 0.0).expect("laid out");
    assert_eq!(splines.len(), 2);
    // FBX Text001's corner vertices of п and ".", object space.
    let fbx_pe = [
        [-1.141498, 0.465],
        [-0.728498, 0.465],
        [-0.728498, 0.0],
        [-0.851498, 0.0],
        [-0.851498, 0.366],
        [-1.018498, 0.366],
        [-1.018498, 0.0],
        [-1.141498, 0.0],
    ];
    let fbx_dot = [
        [1.018502, 0.0],
        [1.018502, 0.123],
        [1.141502, 0.123],
        [1.141502, 0.0],
    ];
    for (s, want) in splines.iter().zip([&fbx_pe[..], &fbx_dot[..]]) {
        assert_eq!(s.knots.len(), want.len());
        for (k, w) in s.knots.iter().zip(want) {
            assert!(
                (k.point.0 - w[0]).abs() < 1e-5 && (k.point.1 - w[1]).abs() < 1e-5,
                "{:?} against the FBX's {w:?}",
                k.point
            );
            assert_eq!(k.point.2, 0.0);
        }
    }
    // Size scales about the pivot.
    let half = layout(&posl(0), 0.5, 0.0, 0.0).expect("laid out");
    let (a, b) = (splines[0].knots[0].point, half[0].knots[0].point);
    assert!((a.0 / 2.0 - b.0).abs() < 1e-12 && (a.1 / 2.0 - b.1).abs() < 1e-12);
    // One line is its own widest line: every alignment leaves it in place,
    // and leading does nothing.
    for align in 1..4 {
        assert_eq!(layout(&posl(align), 1.0, 0.0, 0.0), Ok(splines.clone()));
    }
    assert_eq!(layout(&posl(0), 1.0, 0.0, 7.0), Ok(splines));
}

#[test]
fn a_second_line_is_the_first_lowered_by_size_and_leading() {
    let seq = [
        (K_PE, PLAIN),
        (K_DOT, PLAIN),
        CR,
        LF,
        (K_PE, PLAIN),
        (K_DOT, PLAIN),
    ];
    let (size, leading) = (2.0, 0.5);
    let s = layout(
        &object("п.\r\nп.", &seq, 0, &[BASELINE_ALIGNED]),
        size,
        0.0,
        leading,
    )
    .expect("laid out");
    assert_eq!(s.len(), 4);
    for (a, b) in [(0, 2), (1, 3)] {
        for (ka, kb) in s[a].knots.iter().zip(&s[b].knots) {
            for (p, q) in [
                (ka.point, kb.point),
                (ka.in_vec, kb.in_vec),
                (ka.out_vec, kb.out_vec),
            ] {
                assert!(close(q.0, p.0) && close(q.1, p.1 - (size + leading)));
            }
        }
    }
    // Baseline-aligned: the first line's baseline stays on y = 0, and the
    // x middle of the control points is the pivot.
    let scale = size / 1000.0;
    assert!(close(origin(&s[0], PE[0], scale).1, 0.0));
    let xs = s
        .iter()
        .flat_map(|sp| sp.knots.iter())
        .flat_map(|k| [k.point.0, k.in_vec.0, k.out_vec.0]);
    let (lo, hi) = xs.fold((f64::MAX, f64::MIN), |(l, h), x| (l.min(x), h.max(x)));
    assert!(close(lo + hi, 0.0));
}

#[test]
fn kerning_moves_the_nth_glyph_by_n_times_the_kerning() {
    let seq = plain(&[K_PE, K_DOT, K_PE, K_DOT]);
    let firsts = [PE[0], DOT[0], PE[0], DOT[0]];
    let chunks = object("п.п.", &seq, 0, &[BASELINE_ALIGNED]);
    let origins = |k: f64| -> Vec<f64> {
        let s = layout(&chunks, 1.0, k, 0.0).expect("laid out");
        s.iter()
            .zip(firsts)
            .map(|(sp, f)| origin(sp, f, 1e-3).0)
            .collect()
    };
    let (flat, kerned) = (origins(0.0), origins(0.25));
    // Without kerning, each origin is the sum of the advances before it.
    let adv = [ADV_PE, ADV_DOT, ADV_PE];
    for n in 1..4 {
        let before: f64 = adv[..n].iter().sum::<f64>() * 1e-3;
        assert!(close(flat[n] - flat[0], before));
        assert!(close(kerned[n] - kerned[0], before + n as f64 * 0.25));
    }
}

/// Line 1 "пп." (width 1.331 at size 1) over line 2 `second`.
fn two_lines(second: &[u32], align: u32, extra: &[u16]) -> Vec<Spline> {
    let mut seq = plain(&[K_PE, K_PE, K_DOT]);
    seq.extend([CR, LF]);
    seq.extend(plain(second));
    let mut with = vec![BASELINE_ALIGNED];
    with.extend(extra);
    layout(&object("пп.\r\n..", &seq, align, &with), 1.0, 0.0, 0.0).expect("laid out")
}

const WIDE: f64 = (2.0 * ADV_PE + ADV_DOT) * 1e-3;

#[test]
fn alignment_places_each_line_against_the_widest() {
    let narrow = ADV_DOT * 1e-3;
    // Splines: п, п, . on line 1, then . on line 2.
    let starts = |s: &[Spline]| (origin(&s[0], PE[0], 1e-3).0, origin(&s[3], DOT[0], 1e-3).0);
    let (a, b) = starts(&two_lines(&[K_DOT], 0, &[]));
    assert!(close(a, b), "left: both lines start together");
    let (a, b) = starts(&two_lines(&[K_DOT], 1, &[]));
    assert!(
        close(a + WIDE / 2.0, b + narrow / 2.0),
        "centre: same middles"
    );
    let (a, b) = starts(&two_lines(&[K_DOT], 2, &[]));
    assert!(close(a + WIDE, b + narrow), "right: same ends");
    // Justified: the second line's glyphs spread to the widest line's width.
    let s = two_lines(&[K_DOT, K_DOT], 3, &[]);
    let first = origin(&s[0], PE[0], 1e-3).0;
    let (g0, g1) = (origin(&s[3], DOT[0], 1e-3).0, origin(&s[4], DOT[0], 1e-3).0);
    assert!(close(g0, first));
    assert!(close(g1 + narrow, first + WIDE));
    // The widest line itself is not spread.
    assert!(close(origin(&s[1], PE[0], 1e-3).0 - first, ADV_PE * 1e-3));
}

#[test]
fn italic_shears_each_glyph_about_its_baseline() {
    let shape = |extra: &[u16]| {
        let mut with = vec![BASELINE_ALIGNED];
        with.extend(extra);
        layout(&object("п", &plain(&[K_PE]), 0, &with), 1.0, 0.0, 0.0).expect("laid out")
    };
    let (up, it) = (shape(&[]), shape(&[ITALIC]));
    let shift = |i: usize| it[0].knots[i].point.0 - up[0].knots[i].point.0;
    for (i, k) in up[0].knots.iter().enumerate() {
        assert!(close(it[0].knots[i].point.1, k.point.1));
        // x gains 0.3 of the glyph's height above the baseline (up to the
        // centring, common to every point).
        assert!(close(
            shift(i) - shift(7),
            0.3 * (k.point.1 - up[0].knots[7].point.1)
        ));
    }
}

#[test]
fn underline_spans_each_line_below_its_baseline() {
    let s = two_lines(&[K_DOT], 0, &[UNDERLINE]);
    // п, п, ., underline; ., underline.
    assert_eq!(s.len(), 6);
    let cases = [
        (&s[3], origin(&s[0], PE[0], 1e-3), WIDE),
        (&s[5], origin(&s[4], DOT[0], 1e-3), ADV_DOT * 1e-3),
    ];
    for (u, (x0, y0), width) in cases {
        assert!(u.closed);
        let want = [
            (x0, y0 - 0.05),
            (x0, y0 - 0.1),
            (x0 + width, y0 - 0.1),
            (x0 + width, y0 - 0.05),
        ];
        assert_eq!(u.knots.len(), 4);
        for (i, (k, w)) in u.knots.iter().zip(want).enumerate() {
            assert!(
                close(k.point.0, w.0) && close(k.point.1, w.1),
                "{k:?} {w:?}"
            );
            assert_eq!(k.kind, super::super::KnotType::BezierCorner);
            // Handles a third of the way to each neighbour.
            let next = u.knots[(i + 1) % 4].point;
            let third = k.point.plus(next.minus(k.point).scale(1.0 / 3.0));
            assert!(close(k.out_vec.0, third.0) && close(k.out_vec.1, third.1));
        }
    }
    // The second line's baseline is one size lower.
    assert!(close(cases[1].1 .1, cases[0].1 .1 - 1.0));
    // Justified: every underline spans the widest line.
    let j = two_lines(&[K_DOT, K_DOT], 3, &[UNDERLINE]);
    let u = &j[6];
    assert!(close(u.knots[2].point.0 - u.knots[0].point.0, WIDE));
}

#[test]
fn without_baseline_alignment_the_box_is_centred_in_y() {
    let s = layout(&object("п", &plain(&[K_PE]), 0, &[]), 1.0, 0.0, 0.0).expect("laid out");
    let ys: Vec<f64> = s[0].knots.iter().map(|k| k.point.1).collect();
    let (lo, hi) = ys
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), &y| (l.min(y), h.max(y)));
    assert!(close(lo, -0.2325) && close(hi, 0.2325));
}

#[test]
fn old_files_key_glyphs_by_character_and_read_escapes() {
    // An 8-bit string with a `\U+XXXX` escape, a cache key with bit 28 set.
    let mut text = words(&[12]);
    text.extend(b"\\U+0011.\r\n.\0");
    let chunks = vec![
        Chunk::leaf(TEXT_8BIT, text),
        glyph(0x1000_0000 | K_DOT, 249.0, &DOT),
        Chunk::leaf(ALIGNMENT, words(&[0])),
        Chunk::leaf(BASELINE_ALIGNED, Vec::new()),
    ];
    let (seq, from_string) = items(&chunks).expect("items");
    assert!(from_string);
    let keys: Vec<Option<u32>> = seq
        .iter()
        .map(|i| match i {
            Item::Glyph { key, .. } => Some(*key),
            Item::LineBreak => None,
        })
        .collect();
    assert_eq!(keys, [Some(0x11), Some(0x2e), None, Some(0x2e)]);
    // "." is 0x2e, not saved: refused by name; "\U+0011" alone lays out.
    let refused = layout(&chunks, 1.0, 0.0, 0.0);
    assert!(matches!(refused, Err(ShapeError::NotEvaluated(t)) if t.contains("glyph 46")));
    let mut one = words(&[8]);
    one.extend(b"\\u+0011\0");
    let mut c = chunks.clone();
    c[0] = Chunk::leaf(TEXT_8BIT, one);
    assert_eq!(layout(&c, 1.0, 0.0, 0.0).map(|s| s.len()), Ok(1));
}

#[test]
fn unknown_settings_are_refused_by_name() {
    let text = |r: Result<Vec<Spline>, ShapeError>| match r {
        Err(ShapeError::NotEvaluated(t)) => t,
        other => panic!("{other:?}"),
    };
    assert!(text(layout(&posl(4), 1.0, 0.0, 0.0)).contains("alignment 4"));
    let mut none = posl(0);
    none.retain(|c| c.id != ALIGNMENT);
    assert!(text(layout(&none, 1.0, 0.0, 0.0)).contains("without an alignment"));
    let missing = object("посл.", &plain(&[617, 616, 619, 613, 99]), 0, &[]);
    assert!(text(layout(&missing, 1.0, 0.0, 0.0)).contains("glyph 99"));
    assert!(matches!(
        layout(&posl(0), f64::NAN, 0.0, 0.0),
        Err(ShapeError::Param { index: 0, .. })
    ));
}

#[test]
fn damaged_text_is_an_error_not_a_panic() {
    let whole = object(
        "п.\r\n.",
        &[(K_PE, PLAIN), (K_DOT, PLAIN), CR, LF, (K_DOT, PLAIN)],
        3,
        &[UNDERLINE, ITALIC],
    );
    // Every leaf cut short, one at a time.
    for i in 0..whole.len() {
        if let Some(p) = whole[i].payload() {
            for cut in 0..p.len() {
                let mut c = whole.clone();
                c[i] = Chunk::leaf(whole[i].id, p[..cut].to_vec());
                let _ = layout(&c, 1.0, 0.0, 0.0);
            }
        }
    }
    // A sequence whose count disagrees with its size.
    let mut bad = whole.clone();
    for c in &mut bad {
        if c.id == GLYPH_MAP {
            let mut p = c.payload().expect("map").to_vec();
            p[0] = 9;
            *c = Chunk::leaf(GLYPH_MAP, p);
        }
    }
    assert!(matches!(
        layout(&bad, 1.0, 0.0, 0.0),
        Err(ShapeError::Damaged { .. })
    ));
}
