//! Audits the whole meshes of a `.max` against FBX files the authors exported
//! from the same scene: `cargo run --release -p maxfs-tests --example
//! fbx_topology_check -- <file.max> <file.fbx>…` (the `.max` evaluated once,
//! each FBX compared in turn). Max's FBX exporter writes a mesh's vertices in
//! Max's order, so for every FBX mesh node that is a node of the `.max`,
//! evaluated whole (`mesh_coverage` Evaluated: a refused node is out of scope)
//! and with as many vertices, it compares field by field:
//!
//! - `pos`: world-space positions at time 0, index-aligned, the largest
//!   distance relative to the FBX mesh's bounding-box diagonal (equal within
//!   1e-4). Where they are not index-aligned but equal as sets both ways, the
//!   node is `order` (our vertex numbering is not Max's) and nothing else is
//!   compared; otherwise it is `positions` (another save, or another pose).
//! - `faces`: each of our triangles is matched to an FBX polygon holding its
//!   three vertices in the same cyclic order (a polygon of n corners takes
//!   n − 2 of our triangles: Max's FBX polygons are its polygons, our
//!   triangles their triangulation, and which diagonal is not compared).
//!   Unmatched triangles of ours and polygon capacity left over are both
//!   counted; equal when both are 0.
//! - `winding`: triangles that match a polygon only in the reverse cyclic
//!   order (counted, and consumed, so they are not also counted as faces).
//!   Triangles with a repeated vertex are counted apart (`degenerate`):
//!   Max's FBX exporter leaves them out.
//! - `diagonals`: triangles of ours left over inside one polygon of ours
//!   (triangles joined across hidden edges) that FBX faces left over cover:
//!   the same polygon split along other diagonals (the surface differs only
//!   where the polygon is not planar).
//! - `mat`: Max writes the material slot, not the id, so our ids are equal
//!   when one FBX slot per id of ours explains every matched triangle (the
//!   triangles off the id's most common slot are counted). Not compared when
//!   the FBX has one material or none.
//! - `uv`: on every matched triangle, each corner's channel 1 UV against the
//!   UV of the FBX polygon's corner on the same vertex (its first UV set),
//!   equal within 1e-3; not compared when either side has no channel.
//!
//! One line per node: name, FBX file, verdict (`equal`, `differs <fields>`,
//! `count`, `order`, `positions`, `refused`, `no mesh object`), then the
//! fields' numbers; then one `summary` line per FBX with the file's own Mesh
//! Totals (summary information) and the FBX's vertex total, which tell
//! another save from an evaluation error. Used for the audit in
//! docs/unseen-files.md ("FBX audit of whole meshes"). With
//! `TOPOLOGY_CHECK_VERBOSE` set, each unmatched triangle and uncovered
//! polygon is printed.

#[path = "../dev/fbx.rs"]
mod fbx_dev;

use maxfs_scene::eval::core::coverage::{mesh_coverage, MeshCoverage};
use maxfs_scene::eval::objects::mesh::Mesh;
use std::collections::HashMap;

/// Relative position tolerance (of the mesh's diagonal).
const POS_TOL: f64 = 1e-4;
/// Absolute UV tolerance.
const UV_TOL: f64 = 1e-3;

fn dist(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f64>().sqrt()
}

/// The largest distance from a point of `a` to its nearest point of `b`.
fn nearest(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    a.iter()
        .map(|p| b.iter().map(|q| dist(p, q)).fold(f64::INFINITY, f64::min))
        .fold(0.0, f64::max)
}

/// Each FBX vertex's index among ours where the two are the same points in
/// another order: the nearest of ours within the tolerance, one each; `None`
/// where that is not a one-to-one match (coincident vertices).
fn by_position(theirs: &[[f64; 3]], ours: &[[f64; 3]], size: f64) -> Option<Vec<u32>> {
    let mut taken = vec![false; ours.len()];
    let mut out = Vec::with_capacity(theirs.len());
    for p in theirs {
        let (j, d) = ours.iter().enumerate().map(|(j, q)| (j, dist(p, q))).fold(
            (usize::MAX, f64::INFINITY),
            |a, b| if b.1 < a.1 { b } else { a },
        );
        if d / size > POS_TOL || taken.get(j).copied().unwrap_or(true) {
            return None;
        }
        taken[j] = true;
        out.push(u32::try_from(j).ok()?);
    }
    Some(out)
}

/// One FBX polygon: its corners' vertex indices, the corner index of its
/// first corner (for UVs), its material slot and how many of our triangles
/// it still takes.
struct Poly {
    v: Vec<u32>,
    first: usize,
    material: Option<u32>,
    left: usize,
}

#[derive(Default)]
struct Fields {
    pos: f64,
    tris: usize,
    fbx_tris: usize,
    unmatched: usize,
    uncovered: usize,
    flipped: usize,
    degenerate: usize,
    diagonals: usize,
    mat_off: Option<usize>,
    uv: Option<(usize, usize, f64)>,
    uv_note: String,
}

/// Each triangle's polygon (the smallest triangle index of the group joined
/// across hidden edges: Max's edge-visibility bits 0–2 clear).
fn our_polygons(mesh: &Mesh) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..mesh.faces.len()).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut hidden: HashMap<(u32, u32), usize> = HashMap::new();
    for (ti, face) in mesh.faces.iter().enumerate() {
        for j in 0..3 {
            if face.flags & (1 << j) != 0 {
                continue;
            }
            let (a, b) = (face.v[j], face.v[(j + 1) % 3]);
            let key = (a.min(b), a.max(b));
            if let Some(&other) = hidden.get(&key) {
                let (x, y) = (root(&mut parent, ti), root(&mut parent, other));
                parent[x.max(y)] = x.min(y);
            } else {
                hidden.insert(key, ti);
            }
        }
    }
    (0..parent.len()).map(|i| root(&mut parent, i)).collect()
}

/// Whether `c` follows `b` after `a` going round `poly` (the cyclic order
/// a → b → c), and whether all three are corners of it.
fn order(poly: &[u32], t: [u32; 3]) -> Option<bool> {
    let n = poly.len();
    let at = |x: u32| poly.iter().position(|&p| p == x);
    let (a, b, c) = (at(t[0])?, at(t[1])?, at(t[2])?);
    let db = (b + n - a) % n;
    let dc = (c + n - a) % n;
    Some(db < dc)
}

fn compare(name: &str, mesh: &Mesh, fm: &ufbx::Mesh, remap: Option<&[u32]>, f: &mut Fields) {
    let verbose = std::env::var_os("TOPOLOGY_CHECK_VERBOSE").is_some();
    let mut polys: Vec<Poly> = fm
        .faces
        .iter()
        .enumerate()
        .filter(|(_, face)| face.num_indices >= 3)
        .map(|(i, face)| {
            let b = face.index_begin as usize;
            let n = face.num_indices as usize;
            Poly {
                v: (b..b + n)
                    .map(|k| {
                        let v = fm.vertex_indices[k];
                        remap.and_then(|r| r.get(v as usize).copied()).unwrap_or(v)
                    })
                    .collect(),
                first: b,
                material: fm.face_material.get(i).copied(),
                left: n - 2,
            }
        })
        .collect();
    f.fbx_tris = polys.iter().map(|p| p.left).sum();
    f.tris = mesh.faces.len();
    let mut by_vertex: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, p) in polys.iter().enumerate() {
        for &v in &p.v {
            let e = by_vertex.entry(v).or_default();
            if e.last() != Some(&i) {
                e.push(i);
            }
        }
    }
    // Our triangle → the FBX polygon it lies in (same orientation), or None.
    let mut matched: Vec<Option<usize>> = vec![None; mesh.faces.len()];
    // Triangles accounted for without a polygon of the FBX (reversed, or
    // degenerate).
    let mut flipped = vec![false; mesh.faces.len()];
    for (ti, face) in mesh.faces.iter().enumerate() {
        let t = face.v;
        // A triangle with a repeated vertex has no area: Max's FBX exporter
        // writes none (teapot.max: its Mesh Totals count 6,400 faces, ours
        // too, the FBX 80 fewer), so it is counted, not matched.
        if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
            f.degenerate += 1;
            flipped[ti] = true;
            continue;
        }
        let cands = by_vertex.get(&t[0]).map(Vec::as_slice).unwrap_or(&[]);
        // Prefer a polygon of exactly these corners, then any with room.
        let mut best: Option<(usize, bool)> = None;
        for &pi in cands {
            let p = &polys[pi];
            if p.left == 0 {
                continue;
            }
            if let Some(same) = order(&p.v, t) {
                let better = match best {
                    None => true,
                    Some((bi, bs)) => {
                        (same && !bs) || (same == bs && p.v.len() < polys[bi].v.len())
                    }
                };
                if better {
                    best = Some((pi, same));
                }
            }
        }
        match best {
            Some((pi, true)) => {
                polys[pi].left -= 1;
                matched[ti] = Some(pi);
            }
            Some((pi, false)) => {
                polys[pi].left -= 1;
                f.flipped += 1;
                flipped[ti] = true;
                if verbose {
                    eprintln!(
                        "  {name} flipped triangle {ti} {t:?} in FBX polygon {:?}",
                        polys[pi].v
                    );
                }
            }
            None => {
                if verbose {
                    eprintln!("  {name} our triangle {ti} {t:?} in no FBX polygon");
                }
            }
        }
    }
    // Our triangles left over, and FBX capacity left over, inside one
    // polygon of ours (triangles joined across hidden edges): the same
    // polygon triangulated along other diagonals.
    let groups = our_polygons(mesh);
    let mut left_in: HashMap<usize, usize> = HashMap::new();
    for ti in 0..mesh.faces.len() {
        if matched[ti].is_none() && !flipped[ti] {
            *left_in.entry(groups[ti]).or_default() += 1;
        }
    }
    let mut group_vertices: HashMap<usize, std::collections::HashSet<u32>> = HashMap::new();
    for (ti, face) in mesh.faces.iter().enumerate() {
        if left_in.contains_key(&groups[ti]) {
            group_vertices.entry(groups[ti]).or_default().extend(face.v);
        }
    }
    for p in polys.iter_mut().filter(|p| p.left > 0) {
        for (g, need) in left_in.iter_mut() {
            if *need == 0 {
                continue;
            }
            let inside = group_vertices
                .get(g)
                .is_some_and(|vs| p.v.iter().all(|v| vs.contains(v)));
            if inside {
                let k = p.left.min(*need);
                p.left -= k;
                *need -= k;
                f.diagonals += k;
                if p.left == 0 {
                    break;
                }
            }
        }
    }
    f.unmatched = left_in.values().sum();
    for p in &polys {
        if p.left > 0 {
            f.uncovered += p.left;
            if verbose {
                eprintln!(
                    "  {name} FBX polygon {:?}: {} triangles not ours",
                    p.v, p.left
                );
            }
        }
    }
    // Material ids: one FBX slot per id of ours.
    let slots: std::collections::BTreeSet<u32> = polys.iter().filter_map(|p| p.material).collect();
    if slots.len() > 1 {
        let mut counts: HashMap<u16, HashMap<u32, usize>> = HashMap::new();
        for (ti, m) in matched.iter().enumerate() {
            if let Some(slot) = m.and_then(|pi| polys[pi].material) {
                *counts
                    .entry(mesh.faces[ti].material)
                    .or_default()
                    .entry(slot)
                    .or_default() += 1;
            }
        }
        f.mat_off = Some(
            counts
                .values()
                .map(|c| c.values().sum::<usize>() - c.values().max().copied().unwrap_or(0))
                .sum(),
        );
    }
    // UVs of channel 1 on the matched triangles.
    let ch = mesh.maps.iter().find(|c| c.channel == 1);
    match (ch, fm.vertex_uv.exists) {
        (Some(ch), true) => {
            let (mut corners, mut off, mut worst) = (0, 0, 0.0f64);
            for (ti, m) in matched.iter().enumerate() {
                let (Some(pi), Some(tf)) = (m, ch.faces.get(ti)) else {
                    continue;
                };
                let p = &polys[*pi];
                for (&v, &mi) in mesh.faces[ti].v.iter().zip(tf) {
                    let Some(t) = ch.vertices.get(mi as usize) else {
                        continue;
                    };
                    let d = p
                        .v
                        .iter()
                        .enumerate()
                        .filter(|(_, &pv)| pv == v)
                        .map(|(k, _)| {
                            let uv = fm.vertex_uv[p.first + k];
                            ((uv.x - f64::from(t[0])).powi(2) + (uv.y - f64::from(t[1])).powi(2))
                                .sqrt()
                        })
                        .fold(f64::INFINITY, f64::min);
                    corners += 1;
                    if d > UV_TOL {
                        off += 1;
                        if verbose {
                            let theirs: Vec<[f64; 2]> =
                                p.v.iter()
                                    .enumerate()
                                    .filter(|(_, &pv)| pv == v)
                                    .map(|(k, _)| {
                                        let uv = fm.vertex_uv[p.first + k];
                                        [uv.x, uv.y]
                                    })
                                    .collect();
                            eprintln!(
                                "  {name} triangle {ti} {:?} vertex {v}: ours {:?}, FBX polygon {:?} {theirs:?}",
                                mesh.faces[ti].v,
                                [t[0], t[1]],
                                p.v
                            );
                        }
                    }
                    worst = worst.max(d);
                }
            }
            f.uv = Some((corners, off, worst));
        }
        (None, true) => {
            f.uv_note = if mesh
                .missing_maps
                .iter()
                .any(|m| m.channel.is_none_or(|c| c == 1))
            {
                "uv: channel 1 refused by name".into()
            } else {
                "uv: no channel 1 (the FBX has one)".into()
            }
        }
        (Some(_), false) => f.uv_note = "uv: the FBX has none".into(),
        (None, false) => {}
    }
}

/// Max's own Mesh Totals of the file (vertices, faces), from its summary
/// information.
fn mesh_totals(max: &std::path::Path) -> Option<(usize, usize)> {
    let fs = maxfs_fs::MaxFs::new(max.parent()?.to_path_buf(), Default::default());
    let rel = std::path::Path::new(max.file_name()?).join("json/summary_information.json");
    let text = String::from_utf8_lossy(&fs.read(&rel).ok()?).into_owned();
    let find = |key: &str| -> Option<usize> {
        let i = text.find(key)? + key.len();
        text[i..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .ok()
    };
    text.contains("Mesh Totals")
        .then_some(())
        .and(Some((find("Vertices: ")?, find("Faces: ")?)))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: fbx_topology_check <file.max> <file.fbx>…");
        std::process::exit(2);
    }
    let eval = maxfs_tests::eval_or_exit(&args[1]);
    let metres = maxfs_scene::settings::system_unit(&eval.doc, &eval.graph)
        .map_or(0.0254, |u| u.metres_per_unit);
    let totals = mesh_totals(std::path::Path::new(&args[1]));
    let nodes: Vec<(usize, String)> = eval
        .graph
        .nodes()
        .map(|(o, n)| (o.index, n.name.clone()))
        .collect();
    for path in &args[2..] {
        let fbx = match fbx_dev::load_in_max_axes(path, metres) {
            Ok(s) => s,
            Err(e) => {
                println!("summary\t{}\t{path}\tFBX not read: {e}", args[1]);
                continue;
            }
        };
        let short = std::path::Path::new(path)
            .file_name()
            .map_or(path.clone(), |n| n.to_string_lossy().into_owned());
        let mut tally: std::collections::BTreeMap<&str, usize> = Default::default();
        let mut fbx_vertices = 0;
        for fnode in fbx.nodes.iter() {
            let Some(fm) = fnode.mesh.as_ref() else {
                continue;
            };
            fbx_vertices += fm.num_vertices;
            let name = fnode.element.name.to_string();
            let Some(&(o, _)) = nodes.iter().find(|(_, n)| *n == name) else {
                *tally.entry("not in the .max").or_default() += 1;
                continue;
            };
            let mut out = |verdict: &'static str, rest: String| {
                *tally.entry(verdict).or_default() += 1;
                println!("{name}\t{short}\t{verdict}\t{rest}");
            };
            match mesh_coverage(&eval, o) {
                MeshCoverage::Evaluated => {}
                MeshCoverage::NotGeometry => {
                    out("no mesh object", String::new());
                    continue;
                }
                other => {
                    out("refused", format!("{other:?}"));
                    continue;
                }
            }
            let mesh = match eval.mesh(o, 0) {
                Some(Ok(m)) => m,
                Some(Err(e)) => {
                    out("refused", e.to_string());
                    continue;
                }
                None => {
                    out("no mesh object", String::new());
                    continue;
                }
            };
            let theirs = fbx_dev::world_vertices(fnode, fm);
            let ours = fbx_dev::our_world_vertices(&eval, o, &mesh);
            if ours.len() != theirs.len() {
                out(
                    "count",
                    format!("ours {} / FBX {} vertices", ours.len(), theirs.len()),
                );
                continue;
            }
            if std::env::var_os("TOPOLOGY_CHECK_DUMP").is_some() {
                for (side, pts) in [("ours", &ours), ("fbx", &theirs)] {
                    for (i, p) in pts.iter().enumerate() {
                        eprintln!("dump\t{name}\t{side}\t{i}\t{}\t{}\t{}", p[0], p[1], p[2]);
                    }
                }
            }
            let size = fbx_dev::diagonal(&theirs).max(1e-12);
            let mut f = Fields {
                pos: ours
                    .iter()
                    .zip(&theirs)
                    .map(|(a, b)| dist(a, b))
                    .fold(0.0, f64::max)
                    / size,
                ..Default::default()
            };
            let mut bad = Vec::new();
            let mut remap = None;
            if f.pos > POS_TOL {
                let set = nearest(&ours, &theirs).max(nearest(&theirs, &ours)) / size;
                remap = (set <= POS_TOL)
                    .then(|| by_position(&theirs, &ours, size))
                    .flatten();
                if remap.is_none() {
                    let verdict = if set <= POS_TOL { "order" } else { "positions" };
                    out(
                        verdict,
                        format!(
                            "{} vertices, index-aligned {:.2e}, as sets {set:.2e} of size {size:.3}",
                            ours.len(),
                            f.pos
                        ),
                    );
                    continue;
                }
                bad.push("order");
                if std::env::var_os("TOPOLOGY_CHECK_VERBOSE").is_some() {
                    let r = remap.as_deref().unwrap_or(&[]);
                    let moved: Vec<String> = r
                        .iter()
                        .enumerate()
                        .filter(|(i, &j)| *i != j as usize)
                        .map(|(i, j)| format!("{i}->{j}"))
                        .collect();
                    eprintln!("  {name} FBX vertex -> ours: {}", moved.join(" "));
                }
            }
            compare(&name, &mesh, fm, remap.as_deref(), &mut f);
            if f.unmatched > 0 || f.uncovered > 0 {
                bad.push("faces");
            }
            if f.flipped > 0 {
                bad.push("winding");
            }
            if f.mat_off.is_some_and(|n| n > 0) {
                bad.push("mat");
            }
            if f.uv.is_some_and(|(_, off, _)| off > 0) {
                bad.push("uv");
            }
            let mat = f.mat_off.map_or("mat -".into(), |n| format!("mat off {n}"));
            let uv = f.uv.map_or(format!("uv - {}", f.uv_note), |(c, off, w)| {
                format!("uv {off}/{c} off (worst {w:.2e})")
            });
            let line = format!(
                "{} vertices pos {:.2e}\ttris ours {} / FBX {}: unmatched {}, uncovered {}, flipped {}, other diagonals {}, degenerate {}\t{mat}\t{uv}",
                ours.len(),
                f.pos,
                f.tris,
                f.fbx_tris,
                f.unmatched,
                f.uncovered,
                f.flipped,
                f.diagonals,
                f.degenerate
            );
            if f.diagonals > 0 {
                bad.push("diagonals");
            }
            if bad.is_empty() {
                out("equal", line);
            } else {
                *tally.entry("differs").or_default() += 1;
                println!("{name}\t{short}\tdiffers {}\t{line}", bad.join(","));
            }
        }
        let tally: Vec<String> = tally.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!(
            "summary\t{}\t{short}\t{}\tMesh Totals {}\tFBX mesh vertices {fbx_vertices}",
            args[1],
            tally.join(", "),
            totals.map_or("none".into(), |(v, f)| format!("{v} vertices / {f} faces")),
        );
    }
}
