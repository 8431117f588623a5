//! Probes the HI chain's preferred-pose plane against an FBX of the same take
//! (docs/ik.md, "Residual: B-R-FootFront"): `cargo run --release -p
//! maxfs-tests --example ik_plane_probe -- <file.max> <file.FBX>`.
//!
//! For each HI chain it prints the rest geometry in chain-root space (the
//! start joint's parent frame at the start joint's rest offset), then, at
//! every FBX frame, the FBX chain plane's normal against what rule B of the
//! default zero plane map gives for several candidate poles `n0` (the swivel
//! applied), as the knee's distance from the FBX knee. Last, the pole that
//! fits every frame best: rule B puts `n0` in the plane of `e` and the chain
//! normal, so `n0` is the null vector of the frames' `e × n`.

use maxfs_scene::eval::core::pblock;
use maxfs_scene::eval::rigs::ik::chain::scene_chains;
use maxfs_scene::eval::{Mat43, SceneEval, Vec3};
use maxfs_scene::Document;

fn from_fbx(x: f64, y: f64, z: f64) -> Vec3 {
    Vec3(x, -z, y)
}

fn v(p: maxfs_scene::eval::rigs::ik::primitives::P3) -> Vec3 {
    Vec3(p.x.into(), p.y.into(), p.z.into())
}

fn rot(p: Vec3, axis: Vec3, a: f64) -> Vec3 {
    // Right-hand rotation of p about unit axis by a.
    let (s, c) = a.sin_cos();
    p.scale(c)
        .plus(axis.cross(p).scale(s))
        .plus(axis.scale(axis.dot(p) * (1.0 - c)))
}

fn zero_map(n0: Vec3, e: Vec3) -> Vec3 {
    n0.minus(e.scale(n0.dot(e))).normalized()
}

/// Rows of a Mat43 in a frame (unit axes, origin).
fn rel(frame: &[Vec3; 4], p: Vec3, point: bool) -> Vec3 {
    let d = if point { p.minus(frame[3]) } else { p };
    let u = |a: Vec3| a.scale(1.0 / a.len());
    Vec3(d.dot(u(frame[0])), d.dot(u(frame[1])), d.dot(u(frame[2])))
}

fn rows(m: &Mat43) -> [Vec3; 4] {
    [m.0[0], m.0[1], m.0[2], m.0[3]]
}

/// The smallest-eigenvalue eigenvector of a symmetric 3×3 (Jacobi).
fn null_vector(m: [[f64; 3]; 3]) -> (Vec3, [f64; 3]) {
    let mut a = m;
    let mut vecs = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _ in 0..100 {
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q].abs() < 1e-300 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            let mut b = a;
            for k in 0..3 {
                b[k][p] = c * a[k][p] - s * a[k][q];
                b[k][q] = s * a[k][p] + c * a[k][q];
            }
            let mut d = b;
            for k in 0..3 {
                d[p][k] = c * b[p][k] - s * b[q][k];
                d[q][k] = s * b[p][k] + c * b[q][k];
            }
            a = d;
            for row in &mut vecs {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    let ev = [a[0][0], a[1][1], a[2][2]];
    let i = (0..3).min_by(|&x, &y| ev[x].total_cmp(&ev[y])).unwrap_or(0);
    (Vec3(vecs[0][i], vecs[1][i], vecs[2][i]), ev)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: ik_plane_probe <file.max> <file.FBX>");
        std::process::exit(2);
    }
    let doc = Document::open(std::path::Path::new(&args[1])).expect("open");
    let eval = SceneEval::from_document(doc).expect("scene");
    let fbx = ufbx::load_file(&args[2], ufbx::LoadOpts::default()).expect("FBX");
    let stack = &fbx.anim_stacks[0];
    let frames = ((stack.time_end - stack.time_begin) * 30.0).round() as i32;
    for (_, chain) in scene_chains(&eval) {
        let Ok(chain) = chain else { continue };
        if chain.joints.len() != 3 {
            continue;
        }
        let name = |n: usize| eval.graph.node_name(n).to_string();
        let parent = eval.graph.objects[chain.joints[0]]
            .node
            .as_ref()
            .and_then(|n| n.parent)
            .expect("parent") as usize;
        println!(
            "== chain {} : {:?} (parent {}) swivel {} {:?} vh {:?}",
            name(chain.goal_node),
            chain.joints.iter().map(|&j| name(j)).collect::<Vec<_>>(),
            name(parent),
            chain.swivel_default.to_degrees(),
            chain.swivel_space,
            chain.vh_target,
        );
        for (k, (&j, (pos, r))) in chain.joints.iter().zip(&chain.rest).enumerate() {
            let ik = eval.tm_controller(j).expect("ctl");
            let fk = pblock::reference(&eval.graph, ik, 1).expect("fk");
            let fk0 = eval.prs_tm(fk, 0).expect("fk prs");
            println!(
                "  joint {k} {}: rest pos {:?} rot {:?} deg; FK local at 0: {:?}",
                name(j),
                v(*pos).to_array(),
                v(*r).scale(180.0 / std::f64::consts::PI).to_array(),
                fk0.rows()
            );
        }
        let hc = chain.hi_chain().expect("hi chain");
        let elbow = v(hc.first_joint());
        let wrist = v(hc.end_effector());
        let n_rest = wrist.normalized().cross(elbow.normalized()).normalized();
        let ee0 = wrist.normalized();
        // Start joint's rest rotation (chain-root space) rows.
        let [(_, r0), (_, r1), (end_pos, _)] = chain.rest[..] else {
            continue;
        };
        let start_rot = maxfs_scene::eval::core::controller::euler_matrix(
            0,
            [r0.x.into(), r0.y.into(), r0.z.into()],
        );
        let mid_rot = maxfs_scene::eval::core::controller::euler_matrix(
            0,
            [r1.x.into(), r1.y.into(), r1.z.into()],
        );
        let mid_world = mid_rot.then(&start_rot);
        let sx = start_rot.0[0].normalized();
        let sy = start_rot.0[1].normalized();
        let sz = start_rot.0[2].normalized();
        let mz = mid_world.0[2].normalized();
        let my = mid_world.0[1].normalized();
        println!(
            "  rest: elbow {:?} wrist {:?} n_rest {:?}",
            elbow.to_array(),
            wrist.to_array(),
            n_rest.to_array()
        );
        println!(
            "  start axes X {:?} Y {:?} Z {:?}; middle Z {:?}; end offset {:?}",
            sx.to_array(),
            sy.to_array(),
            sz.to_array(),
            mz.to_array(),
            v(end_pos).to_array()
        );
        // The end of the end joint's bone, if it has a child (pivot vs tip).
        let mut candidates: Vec<(&str, Vec3)> = vec![
            ("rest plane", n_rest),
            ("start Z", sz),
            ("-start Z", sz.scale(-1.0)),
            ("middle Z", mz),
            ("-middle Z", mz.scale(-1.0)),
            ("-start X", sx.scale(-1.0)),
            ("X x ee0", sx.cross(ee0).normalized()),
            ("ee0 x X", ee0.cross(sx).normalized()),
            ("middle Y", my),
            ("-middle Y", my.scale(-1.0)),
        ];
        let elbow_dir = elbow.normalized();
        candidates.push((
            "start X x mid X",
            sx.cross(mid_world.0[0].normalized()).normalized(),
        ));
        candidates.push(("ee0 x elbow", ee0.cross(elbow_dir).normalized()));
        // Fit: rows e × n over the frames.
        let mut fit = [[0.0f64; 3]; 3];
        let mut per_frame = Vec::new();
        for f in 0..=frames {
            let time = stack.time_begin + f64::from(f) / 30.0;
            let t = (time * 4800.0).round() as i32;
            let ev = ufbx::evaluate_scene(&fbx, &stack.anim, time, ufbx::EvaluateOpts::default())
                .expect("evaluate");
            let fw = |n: usize| {
                let nm = name(n);
                let node = ev.find_node(nm.as_str()).expect("FBX node");
                let m = &node.node_to_world;
                [
                    from_fbx(m.m00, m.m10, m.m20),
                    from_fbx(m.m01, m.m11, m.m21),
                    from_fbx(m.m02, m.m12, m.m22),
                    from_fbx(m.m03, m.m13, m.m23),
                ]
            };
            let fp = fw(parent);
            let ours_p = rows(&eval.world_tm(parent, t));
            let up = (0..4)
                .map(|i| ours_p[i].minus(fp[i]).len())
                .fold(0f64, f64::max);
            let root = rel(&fp, fw(chain.joints[0])[3], true);
            let knee = rel(&fp, fw(chain.joints[1])[3], true).minus(root);
            let end = rel(&fp, fw(chain.joints[2])[3], true).minus(root);
            let e = end.normalized();
            let n = end.cross(knee).normalized();
            let swivel = match chain.swivel {
                Some(c) => eval.float_at(Some(c), t, f64::from(chain.swivel_default)),
                None => f64::from(chain.swivel_default),
            };
            println!(
                "   swivel f{f}: {:.6} deg (controller {:?})",
                swivel.to_degrees(),
                chain
                    .swivel
                    .and_then(|c| eval.graph.objects[c].class.as_ref().map(|k| k.name.clone()))
            );
            // The normal before the swivel (start-joint space swivel).
            let n_unswiv = rot(n, e, -swivel);
            if let Err(e) = chain.solve_at(&eval, t) {
                println!("   solve f{f}: {e}");
            }
            let ours = eval.world_tm(chain.joints[1], t).0[3];
            let ours_knee = rel(&ours_p, ours, true).minus(root);
            let c = e.cross(n_unswiv);
            let ca = c.to_array();
            for (row, ci) in fit.iter_mut().zip(ca) {
                for (cell, cj) in row.iter_mut().zip(ca) {
                    *cell += ci * cj;
                }
            }
            let r_knee = knee.minus(e.scale(knee.dot(e))).len();
            // The knee's local rotation in the FBX (rows: its axes in the
            // start joint's frame), as axis and angle.
            let fs = fw(chain.joints[0]);
            let fm = fw(chain.joints[1]);
            let unit = |a: Vec3| a.normalized();
            let m: Vec<Vec3> = (0..3)
                .map(|i| {
                    let a = unit(fm[i]);
                    Vec3(a.dot(unit(fs[0])), a.dot(unit(fs[1])), a.dot(unit(fs[2])))
                })
                .collect();
            // Row-vector matrix: column form C = Mᵀ, axis from C's skew part.
            let c = |i: usize, j: usize| m[j].to_array()[i];
            let ax = Vec3(c(2, 1) - c(1, 2), c(0, 2) - c(2, 0), c(1, 0) - c(0, 1));
            let tr = c(0, 0) + c(1, 1) + c(2, 2);
            let ang = ax.len().atan2(tr - 1.0);
            // The end offset seen from the knee in the start frame.
            let fe = fw(chain.joints[2]);
            let off = fe[3].minus(fm[3]);
            let off_s = Vec3(
                off.dot(unit(fs[0])),
                off.dot(unit(fs[1])),
                off.dot(unit(fs[2])),
            );
            let ow_s = rows(&eval.world_tm(chain.joints[0], t));
            let ow_m = rows(&eval.world_tm(chain.joints[1], t));
            let om: Vec<Vec3> = (0..3)
                .map(|i| {
                    let a = unit(ow_m[i]);
                    Vec3(
                        a.dot(unit(ow_s[0])),
                        a.dot(unit(ow_s[1])),
                        a.dot(unit(ow_s[2])),
                    )
                })
                .collect();
            let eul = |m: &[Vec3]| {
                let mm = maxfs_scene::eval::rigs::ik::primitives::M3::from_3x3([
                    m[0].to_array(),
                    m[1].to_array(),
                    m[2].to_array(),
                ]);
                v(mm.to_euler_xyz())
                    .scale(180.0 / std::f64::consts::PI)
                    .to_array()
            };
            let ooff = ow_s.iter().take(0).fold(
                eval.world_tm(chain.joints[2], t).0[3].minus(ow_m[3]),
                |a, _| a,
            );
            let ooff_s = Vec3(
                ooff.dot(unit(ow_s[0])),
                ooff.dot(unit(ow_s[1])),
                ooff.dot(unit(ow_s[2])),
            );
            // FBX knee rotation relative to ours (in the knee's frame).
            let rel_rot: Vec<Vec3> = (0..3)
                .map(|i| {
                    let a = unit(fm[i]);
                    Vec3(
                        a.dot(unit(ow_m[0])),
                        a.dot(unit(ow_m[1])),
                        a.dot(unit(ow_m[2])),
                    )
                })
                .collect();
            if f == 0 {
                for (lbl, m) in [("parent", &fp), ("start", &fs), ("knee", &fm), ("end", &fe)] {
                    println!(
                        "  FBX {lbl} axis lengths {:.6} {:.6} {:.6}, dots {:.2e} {:.2e} {:.2e}",
                        m[0].len(),
                        m[1].len(),
                        m[2].len(),
                        unit(m[0]).dot(unit(m[1])),
                        unit(m[0]).dot(unit(m[2])),
                        unit(m[1]).dot(unit(m[2]))
                    );
                }
            }
            let local = |child: &[Vec3; 4], par: &[Vec3; 4]| -> Vec<[f64; 3]> {
                (0..4)
                    .map(|i| {
                        let a = if i == 3 {
                            child[3].minus(par[3])
                        } else {
                            unit(child[i])
                        };
                        [
                            a.dot(unit(par[0])),
                            a.dot(unit(par[1])),
                            a.dot(unit(par[2])),
                        ]
                    })
                    .collect()
            };
            let ow_e = rows(&eval.world_tm(chain.joints[2], t));
            println!(
                "DUMP {} {f} {{\"fbx\": [{:?}, {:?}, {:?}], \"ours\": [{:?}, {:?}, {:?}]}}",
                chain.joints[0],
                local(&fs, &fp),
                local(&fm, &fs),
                local(&fe, &fm),
                local(&ow_s, &ours_p),
                local(&ow_m, &ow_s),
                local(&ow_e, &ow_m)
            );
            println!(
                "   knee f{f:3}: euler xyz fbx {:>8.3?} ours {:>8.3?}; ours knee->end {:>8.4?}; fbx knee in ours' knee frame {:>8.3?}",
                eul(&m),
                eul(&om),
                ooff_s.to_array(),
                eul(&rel_rot)
            );
            println!(
                "   knee f{f:3}: axis {:>8.5?} angle {:8.3} deg; knee->end in start frame {:>8.4?}",
                ax.normalized().to_array(),
                ang.to_degrees(),
                off_s.to_array()
            );
            per_frame.push((f, t, up, e, n_unswiv, knee, ours_knee, r_knee, end.len()));
        }
        let (best, ev) = null_vector(fit);
        let best = if best.dot(n_rest) < 0.0 {
            best.scale(-1.0)
        } else {
            best
        };
        println!(
            "  fitted n0 {:?} (eigenvalues {:?}); angle to rest plane {:.3} deg, to ee0 {:.3} deg",
            best.to_array(),
            ev,
            best.dot(n_rest).clamp(-1.0, 1.0).acos().to_degrees(),
            best.dot(ee0).clamp(-1.0, 1.0).acos().to_degrees()
        );
        println!(
            "  fitted n0 in start frame: {:?}; in middle frame {:?}",
            [best.dot(sx), best.dot(sy), best.dot(sz)],
            [
                best.dot(mid_world.0[0].normalized()),
                best.dot(my),
                best.dot(mz)
            ]
        );
        candidates.push(("fitted", best));
        let chain_len = elbow.len() + wrist.minus(elbow).len();
        for (label, n0) in &candidates {
            let mut worst = 0f64;
            let mut worst_f = 0;
            for &(f, _, up, e, n, _, _, r, _) in &per_frame {
                if up > 1e-2 {
                    continue;
                }
                let pred = zero_map(*n0, e);
                let ang = pred.cross(n).dot(e).atan2(pred.dot(n));
                let err = 2.0 * r * (ang / 2.0).sin().abs();
                if err > worst {
                    worst = err;
                    worst_f = f;
                }
            }
            println!(
                "  {label:18} n0 {:>7.4?}: worst knee {worst:.4} ({:.2e} of chain) at frame {worst_f}",
                n0.to_array(),
                worst / chain_len
            );
        }
        for &(f, t, up, e, n, knee, ours_knee, _, d) in &per_frame {
            let pred = zero_map(n_rest, e);
            let ang = pred.cross(n).dot(e).atan2(pred.dot(n));
            println!(
                "   f{f:3} t{t:6} up {up:.1e} reach {:.3} e·ee0 {:.4} swivel(fbx vs rest rule) {:7.3} deg knee ours-fbx {:.4}",
                d / chain_len,
                e.dot(ee0),
                ang.to_degrees(),
                ours_knee.minus(knee).len()
            );
        }
    }
}
