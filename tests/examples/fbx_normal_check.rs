//! Compares the corner normals our smoothing groups give with those of an
//! FBX the authors exported from the same scene: `fbx_normal_check
//! <file.max> <file.fbx>`. For every FBX mesh node whose name is a node of
//! the .max and whose mesh we evaluate with as many vertices: each FBX
//! polygon corner is matched to a triangle of ours on the same places (world
//! space, 1e-5 of the mesh's size) and the angle between the two normals
//! taken; one line per node (worst angle, corners over 1°, corners not
//! matched), then a summary. Smoothing groups are not in an FBX whole, but
//! the normals Max exports follow from them, or from the specified normals
//! where a corner has one. With `NORMAL_CHECK_VERBOSE` set, each corner not
//! matched is printed with the FBX polygon and our face on its places.

#[path = "../dev/fbx.rs"]
mod fbx_dev;

use maxfs_scene::eval::core::math::Mat43;
use maxfs_scene::eval::objects::normals;
use std::collections::HashMap;

fn main() {
    let (eval, fbx) = fbx_dev::max_and_fbx_or_exit("fbx_normal_check <file.max> <file.fbx>");
    let args: Vec<String> = std::env::args().collect();
    let weighting = normals::Weighting::of_scene_version(eval.graph.version);
    let (mut nodes_equal, mut nodes_compared) = (0, 0);
    for fnode in fbx.nodes.iter() {
        let Some(fm) = fnode.mesh.as_ref() else {
            continue;
        };
        let name = fnode.element.name.to_string();
        let Some((o, _)) = eval.graph.nodes().find(|(_, n)| n.name == name) else {
            continue;
        };
        let o = o.index;
        let Some(Ok(mesh)) = eval.mesh(o, 0) else {
            println!("{name}\tnot evaluated");
            continue;
        };
        let tm = eval.object_tm(o, 0);
        let ours = fbx_dev::our_world_vertices(&eval, o, &mesh);
        let theirs = fbx_dev::world_vertices(fnode, fm);
        if ours.len() != theirs.len() {
            println!(
                "{name}\tvertex counts differ: ours {} / FBX {}",
                ours.len(),
                theirs.len()
            );
            continue;
        }
        let size = fbx_dev::diagonal(&theirs).max(1e-12);
        let tol = 1e-5 * size;
        // Places: one id per point, shared by both meshes.
        let mut places: Vec<[f64; 3]> = Vec::new();
        let mut grid: HashMap<[i64; 3], Vec<usize>> = HashMap::new();
        let mut place = |p: [f64; 3]| -> usize {
            let c = p.map(|x| (x / tol).floor() as i64);
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for dz in -1..=1 {
                        if let Some(l) = grid.get(&[c[0] + dx, c[1] + dy, c[2] + dz]) {
                            if let Some(&k) = l.iter().find(|&&k| dist(places[k], p) <= tol) {
                                return k;
                            }
                        }
                    }
                }
            }
            places.push(p);
            grid.entry(c).or_default().push(places.len() - 1);
            places.len() - 1
        };
        let ours_at: Vec<usize> = ours.iter().map(|&p| place(p)).collect();
        let theirs_at: Vec<usize> = theirs.iter().map(|&p| place(p)).collect();
        // Max computes normals in object space; the node's TM turns them.
        let local: Vec<[f64; 3]> = mesh.vertices.iter().map(|v| v.to_array()).collect();
        let mut normals = normals::corner_normals(&local, &mesh.faces, weighting);
        // Specified normals (Editable Mesh / Poly, Edit Normals) replace the
        // smoothing-group ones where a corner has one, as Max renders them.
        if let Some(spec) = normals::specified_corners(&local, &mesh) {
            for (out, s) in normals.iter_mut().zip(spec) {
                for (o, n) in out.iter_mut().zip(s) {
                    if let Some(n) = n {
                        *o = n;
                    }
                }
            }
        }
        let mut by_place: HashMap<usize, Vec<usize>> = HashMap::new();
        for (t, f) in mesh.faces.iter().enumerate() {
            for &v in &f.v {
                by_place.entry(ours_at[v as usize]).or_default().push(t);
            }
        }
        let nm = ufbx::matrix_for_normals(&fnode.geometry_to_world);
        let (mut worst, mut over, mut unmatched, mut corners, mut degenerate) =
            (0.0f64, 0, 0, 0, 0);
        let (mut smooth, mut one_sided) = (0, 0);
        for f in fm.faces.iter() {
            let range = f.index_begin..f.index_begin + f.num_indices;
            let poly: Vec<usize> = range
                .clone()
                .map(|i| theirs_at[fm.vertex_indices[i as usize] as usize])
                .collect();
            for i in range {
                corners += 1;
                let at = theirs_at[fm.vertex_indices[i as usize] as usize];
                let n = ufbx::transform_direction(&nm, fm.vertex_normal[i as usize]);
                let theirs_n = unit([n.x, n.y, n.z]);
                let fnorm = face_normal(&poly.iter().map(|&k| places[k]).collect::<Vec<_>>());
                if dot(fnorm, fnorm).sqrt() / 2.0 < 1e-10 * size * size {
                    // A polygon without area has no normal to compare.
                    degenerate += 1;
                    continue;
                }
                let facing = |t: usize| {
                    let p: Vec<[f64; 3]> =
                        mesh.faces[t].v.iter().map(|&v| ours[v as usize]).collect();
                    dot(unit(face_normal(&p)), unit(fnorm))
                };
                // A triangle of ours, facing the same way, whose three places
                // are corners of this polygon.
                let hit = by_place.get(&at).and_then(|ts| {
                    ts.iter().copied().find(|&t| {
                        mesh.faces[t]
                            .v
                            .iter()
                            .all(|&v| poly.contains(&ours_at[v as usize]))
                            && facing(t) > 0.0
                    })
                });
                // Else (the FBX split a quad along the other diagonal) a
                // triangle of ours on this corner in the FBX polygon's plane.
                let hit = hit.or_else(|| {
                    by_place
                        .get(&at)
                        .and_then(|ts| ts.iter().copied().find(|&t| facing(t) > 0.99985))
                });
                let Some(t) = hit else {
                    unmatched += 1;
                    if std::env::var_os("NORMAL_CHECK_VERBOSE").is_some() {
                        let turned = by_place.get(&at).and_then(|ts| {
                            ts.iter().copied().find(|&t| {
                                mesh.faces[t]
                                    .v
                                    .iter()
                                    .all(|&v| poly.contains(&ours_at[v as usize]))
                            })
                        });
                        eprintln!(
                            "  {name} unmatched corner at place {at} of FBX polygon {poly:?}: ours {}",
                            match turned {
                                Some(t) => format!("face {t} facing {:.3}", facing(t)),
                                None => "no face on the polygon's places".to_string(),
                            }
                        );
                    }
                    continue;
                };
                let k = mesh.faces[t]
                    .v
                    .iter()
                    .position(|&v| ours_at[v as usize] == at)
                    .unwrap_or(0);
                let o = unit(tm_dir(&tm, normals[t][k]));
                let angle = dot(o, theirs_n).clamp(-1.0, 1.0).acos().to_degrees();
                // Corners whose normal is not their polygon's: smoothed, so
                // the smoothing groups decide them.
                let theirs_smooth = dot(unit(fnorm), theirs_n) < 1f64.to_radians().cos();
                if theirs_smooth {
                    smooth += 1;
                }
                // Smoothed on one side only: the groups differ (a smoothed
                // corner on both sides may still differ by the diagonals).
                let tp: Vec<[f64; 3]> = mesh.faces[t].v.iter().map(|&v| ours[v as usize]).collect();
                let ours_smooth = dot(unit(face_normal(&tp)), o) < 1f64.to_radians().cos();
                if ours_smooth != theirs_smooth {
                    one_sided += 1;
                }
                worst = worst.max(angle);
                if angle > 1.0 {
                    over += 1;
                    if std::env::var_os("VERBOSE").is_some() {
                        println!(
                            "  corner at {:?} of FBX polygon {:?} (area {:.3e}): ours {o:?} FBX {theirs_n:?} ({angle:.2}°)",
                            places[at],
                            poly,
                            face_normal(&poly.iter().map(|&k| places[k]).collect::<Vec<_>>())
                                .iter()
                                .map(|x| x * x)
                                .sum::<f64>()
                                .sqrt()
                                / 2.0
                        );
                    }
                }
            }
        }
        nodes_compared += 1;
        if over == 0 && unmatched == 0 {
            nodes_equal += 1;
        }
        println!(
            "{name}\t{corners} corners ({smooth} smoothed, {one_sided} smoothed on one side only)\tworst {worst:.3}°\tover 1°: {over}\tunmatched {unmatched}\ton polygons without area {degenerate}"
        );
    }
    println!(
        "summary\t{}\tnodes compared {nodes_compared}, every corner within 1° {nodes_equal}",
        args[1]
    );
}

fn tm_dir(tm: &Mat43, n: [f64; 3]) -> [f64; 3] {
    // Normals turn with the inverse transpose: the cofactor matrix of the
    // node's axes (det · M⁻ᵀ) keeps the direction.
    let [x, y, z, _] = tm.0;
    let c = [y.cross(z), z.cross(x), x.cross(y)];
    c[0].scale(n[0])
        .plus(c[1].scale(n[1]))
        .plus(c[2].scale(n[2]))
        .to_array()
}

/// Newell's normal of a loop (length twice its area).
fn face_normal(p: &[[f64; 3]]) -> [f64; 3] {
    let mut n = [0.0; 3];
    for (i, a) in p.iter().enumerate() {
        let b = p[(i + 1) % p.len()];
        n[0] += (a[1] - b[1]) * (a[2] + b[2]);
        n[1] += (a[2] - b[2]) * (a[0] + b[0]);
        n[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    n
}

fn unit(v: [f64; 3]) -> [f64; 3] {
    let l = dot(v, v).sqrt().max(1e-300);
    v.map(|x| x / l)
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}
