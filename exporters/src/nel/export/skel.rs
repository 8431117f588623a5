//! `.skel`: the `CSkeletonShape` NelExportSkeleton builds from a bone hierarchy
//! (nel_export_export.cpp exportSkeleton, export_skinning.cpp buildSkeleton).
//!
//! skel_export.ms exports `$Bip01`, in figure mode when it is a Biped (every
//! bone at its figure pose; a bone the figure evaluation refuses is a node
//! error naming why). Files without Bip01 export the skeleton their Skin
//! modifiers are bound to (`getSkeletonRootBone`), which is how non-biped
//! rigs are built (a Biped found that way is in figure mode too).
//! exportSkeleton passes no bind-pose map, so every bone's InvBindPos is the
//! inverse of its node TM at the export time (frame 0), not Skin's stored pose.

use crate::error::{ExportError, ExportResult};
use maxfs_scene::eval::core::controller::Controller;
use maxfs_scene::eval::core::transform::{invert, INHERIT_SCALE};
use maxfs_scene::eval::{Mat43, Quat, Vec3};

use super::skinning::{self, Skeleton};
use super::{select, Context, ExportKind, Exports, Output};
use crate::nel::shape::material::{TrackDefaultQuat, TrackDefaultVector};
use crate::nel::shape::{Shape, ShapeStream};
use crate::nel::skel::{BoneBase, SkeletonLod, SkeletonShape};
use crate::nel::stream::{self, Bool, Matrix, Ptr, F32};
use crate::nel::{read_kind, write_nel, NelFile, NelKind};

/// The time the export scripts run at (the scene's current frame, 0 in batch).
pub const EXPORT_TIME: i32 = 0;

/// CMatrix state bits (nel/src/misc/matrix.cpp).
const MAT_TRANS: u32 = 1;
const MAT_ROT: u32 = 2;
const MAT_SCALEANY: u32 = 8;
const MAT_VALIDPROJ: u32 = 128;

pub fn export(ctx: &Context, out: &mut Exports) {
    let Some(root) = skeleton_root(ctx) else {
        return;
    };
    let name = format!("{}.skel", ctx.stem);
    match build(ctx, root).and_then(|s| shape_bytes(s).map_err(ExportError::from)) {
        Ok(bytes) => out.outputs.push(Output {
            kind: ExportKind::Skel,
            with_coarse_mesh: false,
            name,
            bytes,
        }),
        Err(e) => out.push_error(ExportKind::Skel, ctx.graph.node_name(root), e),
    }
}

/// `$Bip01`, else the skeleton root of the first skinned node in tree order
/// (a Skin that cannot be read is the shape export's error, not the skeleton's).
fn skeleton_root(ctx: &Context) -> Option<usize> {
    if let Some(r) = select::skel_root(ctx) {
        return Some(r);
    }
    select::tree_order(ctx.graph).into_iter().find_map(|node| {
        match skinning::node_skin(ctx, node) {
            Some(Ok(b)) => Some(b.skeleton.root),
            _ => None,
        }
    })
}

/// Why a node's transform cannot be evaluated (a Biped part or Link
/// Constraint the scene does not evaluate, IK, CAT or any other controller
/// this crate does not decode), naming the controller class. Biped parts are
/// evaluated at the export time, or in figure mode inside
/// `SceneEval::in_figure_mode`.
pub fn unsupported_controller(ctx: &Context, node: usize) -> Option<String> {
    match ctx.eval.direct_world(node, EXPORT_TIME) {
        Some(Ok(_)) => return None,
        Some(Err(why)) => {
            let c = ctx
                .eval
                .tm_controller(node)
                .and_then(|c| ctx.graph.objects.get(c)?.class.as_ref())
                .map_or_else(|| "unknown".to_string(), |c| c.name.clone());
            return Some(format!("{c} controller is not evaluated ({why})"));
        }
        None => {}
    }
    let tm = ctx.eval.tm_controller(node)?;
    let class = |i: usize| {
        ctx.graph
            .class(i)
            .map_or_else(|| "unknown".to_string(), |c| c.name.clone())
    };
    // IK goals and joints evaluate when their chain solves (scene eval/ik/plug.rs).
    match maxfs_scene::eval::rigs::ik::plug::coverage(ctx.eval, tm) {
        Some(Ok(())) => return None,
        Some(Err(why)) => {
            return Some(format!("{} controller is not evaluated ({why})", class(tm)))
        }
        None => {}
    }
    let bad = |i: usize| match ctx.eval.controller(i) {
        None => Some(
            ctx.eval
                .controller_error(i)
                .map_or_else(|| class(i), |e| format!("{} ({e})", class(i))),
        ),
        Some(Controller::Unsupported { class }) => Some(class.clone()),
        // Evaluated in the scene (world TMs), but NeL tracks are built from
        // keyframers and a path-driven position is not one.
        Some(Controller::PathConstraint(_)) => Some(format!(
            "{} (a path-driven position is not exported to NeL tracks)",
            class(i)
        )),
        _ => None,
    };
    let mut todo = vec![tm];
    let mut seen = 0;
    while let Some(i) = todo.pop() {
        seen += 1;
        if seen > 64 {
            break;
        }
        if let Some(c) = bad(i) {
            return Some(format!("{c} controller is not evaluated"));
        }
        if let Some(
            c @ (Controller::Prs { .. }
            | Controller::PositionXyz { .. }
            | Controller::ScaleXyz { .. }
            | Controller::EulerXyz { .. }
            | Controller::List { .. }),
        ) = ctx.eval.controller(i)
        {
            todo.extend(c.children());
        }
    }
    None
}

/// `getLocalMatrix`: node TM relative to the parent node's TM.
pub fn local_matrix(ctx: &Context, node: usize, t: i32) -> Mat43 {
    let w = ctx.eval.world_tm(node, t);
    match skinning::parent(ctx.graph, node) {
        Some(p) => w.then(&invert(&ctx.eval.world_tm(p, t))),
        None => w,
    }
}

/// `decompMatrix`: scale, rotation (node convention, as `Mat43::rotation`)
/// and translation of an affine matrix; a mirrored matrix gets a negative scale.
pub fn decompose(m: &Mat43) -> (Vec3, Quat, Vec3) {
    let [a, b, c, t] = m.0;
    let f = if m.determinant3() < 0.0 { -1.0 } else { 1.0 };
    let s = Vec3(a.len() * f, b.len() * f, c.len() * f);
    let div = |v: Vec3, k: f64| if k != 0.0 { v.scale(1.0 / k) } else { v };
    let r = [div(a, s.0), div(b, s.1), div(c, s.2)];
    (s, quat_from_rows(&r), t)
}

/// The quaternion whose `to_rows` is `r` (Shoemake), with the component the
/// method solves for positive.
fn quat_from_rows(r: &[Vec3; 3]) -> Quat {
    // Column-vector matrix entries: m(i, j) = r[j][i].
    let m = |i: usize, j: usize| r[j].to_array()[i];
    let tr = m(0, 0) + m(1, 1) + m(2, 2);
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        Quat {
            w: 0.25 * s,
            x: (m(2, 1) - m(1, 2)) / s,
            y: (m(0, 2) - m(2, 0)) / s,
            z: (m(1, 0) - m(0, 1)) / s,
        }
    } else if m(0, 0) > m(1, 1) && m(0, 0) > m(2, 2) {
        let s = (1.0 + m(0, 0) - m(1, 1) - m(2, 2)).max(0.0).sqrt() * 2.0;
        Quat {
            w: (m(2, 1) - m(1, 2)) / s,
            x: 0.25 * s,
            y: (m(0, 1) + m(1, 0)) / s,
            z: (m(0, 2) + m(2, 0)) / s,
        }
    } else if m(1, 1) > m(2, 2) {
        let s = (1.0 + m(1, 1) - m(0, 0) - m(2, 2)).max(0.0).sqrt() * 2.0;
        Quat {
            w: (m(0, 2) - m(2, 0)) / s,
            x: (m(0, 1) + m(1, 0)) / s,
            y: 0.25 * s,
            z: (m(1, 2) + m(2, 1)) / s,
        }
    } else {
        let s = (1.0 + m(2, 2) - m(0, 0) - m(1, 1)).max(0.0).sqrt() * 2.0;
        Quat {
            w: (m(1, 0) - m(0, 1)) / s,
            x: (m(0, 2) + m(2, 0)) / s,
            y: (m(1, 2) + m(2, 1)) / s,
            z: 0.25 * s,
        }
    };
    q.normalized()
}

/// The NeL quaternion `decompMatrix` yields: Max's (x, y, z, −w) of its own
/// inverse-convention quaternion, i.e. ± the node-convention one; the sign
/// follows Max's solver (w < 0 when the trace is positive).
pub fn nel_rotation(m: &Mat43) -> Quat {
    let (_, q, _) = decompose(m);
    let [a, b, c, _] = m.0;
    let f = if m.determinant3() < 0.0 { -1.0 } else { 1.0 };
    let tr = a.0 / a.len().max(1e-300) + b.1 / b.len().max(1e-300) + c.2 / c.len().max(1e-300);
    if tr * f > 0.0 {
        -q
    } else {
        q
    }
}

pub fn f32v(v: f64) -> F32 {
    F32::from_f32(v as f32)
}

pub fn nel_vec(v: Vec3) -> stream::Vec3 {
    stream::Vec3 {
        x: f32v(v.0),
        y: f32v(v.1),
        z: f32v(v.2),
    }
}

pub fn nel_quat(q: Quat) -> stream::Quat {
    stream::Quat {
        x: f32v(q.x),
        y: f32v(q.y),
        z: f32v(q.z),
        w: f32v(q.w),
    }
}

/// `convertMatrix`: Max rows I, J, K become the columns of the NeL matrix;
/// state ROT|SCALEANY, TRANS when the position is not null.
pub fn nel_matrix(m: &Mat43, extra_bits: u32) -> Matrix {
    let r = m.rows();
    let rot: [F32; 9] = std::array::from_fn(|k| f32v(r[k % 3][k / 3]));
    let trans: [F32; 3] = std::array::from_fn(|i| f32v(r[3][i]));
    let has_trans = trans.iter().any(|x| x.get() != 0.0);
    Matrix {
        version: 0,
        state_bits: MAT_ROT | MAT_SCALEANY | extra_bits | if has_trans { MAT_TRANS } else { 0 },
        // Not uniform scale: the writer stores 1.
        scale33: F32::from_f32(1.0),
        rot: Some(rot),
        trans: has_trans.then_some(trans),
        proj: None,
    }
}

/// The matrix back as a Max row-vector transform (for checks and tests).
pub fn mat43_of(m: &Matrix) -> Mat43 {
    let r = m
        .rot
        .map(|r| r.map(|x| f64::from(x.get())))
        .unwrap_or([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    let t = m.trans.map_or([0.0; 3], |t| t.map(|x| f64::from(x.get())));
    Mat43([
        Vec3(r[0], r[3], r[6]),
        Vec3(r[1], r[4], r[7]),
        Vec3(r[2], r[5], r[8]),
        Vec3(t[0], t[1], t[2]),
    ])
}

/// InvBindPos: `convertMatrix(worldTM)` then `invert()`, which keeps the
/// state bits and adds VALIDPROJ (set on the source by testExpandProj).
fn inv_bind_pos(world: &Mat43) -> Matrix {
    let mut m = nel_matrix(&invert(world), MAT_VALIDPROJ);
    // invert() keeps the source's TRANS bit even when the inverse has none.
    if world.0[3] != Vec3::default() && m.trans.is_none() {
        m.trans = Some([F32::from_f32(0.0); 3]);
        m.state_bits |= MAT_TRANS;
    } else if world.0[3] == Vec3::default() && m.trans.is_some() {
        m.trans = None;
        m.state_bits &= !MAT_TRANS;
    }
    m
}

/// `getNELScaleReferenceNode`: with EXPORT_BONE_SCALE, the node named
/// `<name><EXPORT_BONE_SCALE_NAME_EXT>`.
fn scale_reference(ctx: &Context, node: usize) -> Option<usize> {
    let p = ctx.props.node(node);
    if !p.export_bone_scale || p.export_bone_scale_name_ext.is_empty() {
        return None;
    }
    let want = format!(
        "{}{}",
        ctx.graph.node_name(node),
        p.export_bone_scale_name_ext
    );
    select::tree_order(ctx.graph)
        .into_iter()
        .find(|&i| ctx.graph.node_name(i) == want)
}

/// Whether a bone does not inherit its father's scale
/// (getNELUnHeritFatherScale): always under a Biped father (Biped node TMs
/// carry no scale), and on a Biped node itself (its controller reports the
/// scale as not inherited: every Biped root of nel/ryzom_graphics has
/// UnheritScale); otherwise the TM controller's INHERIT_SCL_X/Y/Z flags (a
/// set bit = not inherited).
pub fn unherits_scale(ctx: &Context, node: usize) -> bool {
    let biped = |n: usize| skinning::biped_controller(ctx, n).is_some();
    if biped(node) || skinning::parent(ctx.graph, node).is_some_and(biped) {
        return true;
    }
    ctx.eval
        .inheritance_flags(node)
        .is_some_and(|f| f & INHERIT_SCALE != 0)
}

/// One `CBoneBase` as buildSkeleton fills it.
fn bone(ctx: &Context, sk: &Skeleton, id: usize) -> BoneBase {
    let b = &sk.bones[id];
    let t = EXPORT_TIME;
    let local = local_matrix(ctx, b.node, t);
    let (local_scale, _, local_pos) = decompose(&local);
    let mut rot = nel_rotation(&local);
    let mut pos = local_pos;
    // getNELUnHeritFatherScale (see `unherits_scale`). Unherited, the bone's
    // scale is the node TM's own (getNELBoneLocalScale).
    let unherit = unherits_scale(ctx, b.node);
    let scale = if unherit {
        decompose(&ctx.eval.world_tm(b.node, t)).0
    } else {
        local_scale
    };
    if id == 0 {
        pos = Vec3::default();
        rot = Quat::IDENTITY;
    }
    let world_node = scale_reference(ctx, b.node).unwrap_or(b.node);
    let world = ctx.eval.world_tm(world_node, t);
    let lod = ctx.props.node(b.node).bone_lod_distance.max(0.0);
    BoneBase {
        version: 2,
        name: b.name.clone(),
        inv_bind_pos: inv_bind_pos(&world),
        father_id: b.father,
        unherit_scale: Bool(unherit as u8),
        lod_disable_distance: Some(F32::from_f32(lod)),
        default_pos: TrackDefaultVector {
            version: 0,
            value: nel_vec(pos),
        },
        default_rot_euler: TrackDefaultVector {
            version: 0,
            value: nel_vec(Vec3::default()),
        },
        default_rot_quat: TrackDefaultQuat {
            version: 0,
            value: nel_quat(rot),
        },
        default_scale: TrackDefaultVector {
            version: 0,
            value: nel_vec(scale),
        },
        default_pivot: TrackDefaultVector {
            version: 0,
            value: nel_vec(Vec3::default()),
        },
        skin_scale: Some(nel_vec(Vec3(1.0, 1.0, 1.0))),
    }
}

/// `CSkeletonShape::build`: bone map by name and one LOD per distinct
/// disable distance (children never outlive their father).
pub fn shape_of(mut bones: Vec<BoneBase>) -> SkeletonShape {
    let n = bones.len();
    let mut map = std::collections::BTreeMap::new();
    for i in 0..n {
        map.insert(bones[i].name.clone().into_bytes(), i as u32);
        let mut d = bones[i].lod_disable_distance.map_or(0.0, F32::get).max(0.0);
        let father = bones[i].father_id;
        if father >= 0 && (father as usize) < i {
            let fd = bones[father as usize]
                .lod_disable_distance
                .map_or(0.0, F32::get);
            if fd != 0.0 {
                d = if d == 0.0 { fd } else { d.min(fd) };
            }
        }
        bones[i].lod_disable_distance = Some(F32::from_f32(d));
    }
    let mut dists: Vec<f32> = bones
        .iter()
        .map(|b| b.lod_disable_distance.map_or(0.0, F32::get))
        .filter(|&d| d > 0.0)
        .collect();
    dists.sort_by(f32::total_cmp);
    dists.dedup();
    let mut lods = vec![SkeletonLod {
        version: 0,
        distance: F32::from_f32(0.0),
        active_bones: vec![0xff; n],
    }];
    for &ld in &dists {
        lods.push(SkeletonLod {
            version: 0,
            distance: F32::from_f32(ld),
            active_bones: bones
                .iter()
                .map(|b| {
                    let d = b.lod_disable_distance.map_or(0.0, F32::get);
                    if ld >= d && d != 0.0 {
                        0
                    } else {
                        0xff
                    }
                })
                .collect(),
        });
    }
    SkeletonShape {
        version: 1,
        bones,
        // std::map<std::string, uint32>: byte order of the names.
        bone_map: map
            .into_iter()
            .map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), v))
            .collect(),
        lods: Some(lods),
    }
}

/// The skeleton shape of the hierarchy under `root`, or why it cannot be
/// built. A Biped root is exported in figure mode, as skel_export.ms sets
/// `figureMode = true` on `$Bip01` before NelExportSkeleton.
pub fn build(ctx: &Context, root: usize) -> ExportResult<SkeletonShape> {
    if skinning::biped_controller(ctx, root).is_some() {
        ctx.eval.in_figure_mode(|| build_at_pose(ctx, root))
    } else {
        build_at_pose(ctx, root)
    }
}

fn build_at_pose(ctx: &Context, root: usize) -> ExportResult<SkeletonShape> {
    let sk = skinning::skeleton(ctx.graph, root);
    for b in &sk.bones {
        if let Some(why) = unsupported_controller(ctx, b.node) {
            return Err(ExportError::refused(format!(
                "bone {:?}: {why}",
                ctx.graph.node_name(b.node)
            )));
        }
    }
    let bones = (0..sk.bones.len()).map(|i| bone(ctx, &sk, i)).collect();
    Ok(shape_of(bones))
}

/// Serializes a NeL file and checks that it reads back and re-serializes to
/// the same bytes, so every export is a file our own reader accepts.
pub fn checked_bytes(file: &NelFile, kind: NelKind) -> Result<Vec<u8>, crate::nel::NelError> {
    let bytes = write_nel(file)?;
    let again = write_nel(&read_kind(&bytes, kind)?)?;
    if again != bytes {
        return Err(crate::nel::NelError::Model(format!(
            "{} bytes re-serialize differently",
            kind.name()
        )));
    }
    Ok(bytes)
}

/// The `.skel` bytes: the skeleton inside a shape stream.
pub fn shape_bytes(s: SkeletonShape) -> Result<Vec<u8>, crate::nel::NelError> {
    let file = NelFile::Shape(ShapeStream {
        shape: Ptr::Obj {
            id: 1,
            obj: Box::new(Shape::CSkeletonShape(s)),
        },
    });
    checked_bytes(&file, NelKind::Skeleton)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quaternion_round_trip() {
        for q in [
            Quat::from_axis_angle(Vec3(1.0, 2.0, 3.0), 0.7),
            Quat::from_axis_angle(Vec3(0.0, 1.0, 0.0), 3.0),
            Quat::from_axis_angle(Vec3(1.0, 0.0, 0.1), -2.9),
        ] {
            let m = Mat43::scaling(Vec3(2.0, 3.0, 4.0))
                .then(&Mat43::rotation(q))
                .then(&Mat43::translation(Vec3(1.0, 2.0, 3.0)));
            let (s, r, t) = decompose(&m);
            assert!((s.0 - 2.0).abs() < 1e-9 && (s.2 - 4.0).abs() < 1e-9);
            assert!(r.dot(q).abs() > 1.0 - 1e-9, "{r:?} vs {q:?}");
            assert_eq!(t, Vec3(1.0, 2.0, 3.0));
            assert!(nel_rotation(&m).dot(q).abs() > 1.0 - 1e-9);
        }
    }

    #[test]
    fn lods_and_map() {
        let mk = |name: &str, father: i32, d: f32| BoneBase {
            version: 2,
            name: name.into(),
            father_id: father,
            lod_disable_distance: Some(F32::from_f32(d)),
            skin_scale: Some(nel_vec(Vec3(1.0, 1.0, 1.0))),
            ..Default::default()
        };
        let s = shape_of(vec![mk("b", -1, 10.0), mk("a", 0, 0.0), mk("c", 1, 20.0)]);
        assert_eq!(s.bone_map[0], ("a".to_string(), 1));
        let lods = s.lods.as_ref().expect("lods");
        assert_eq!(lods.len(), 2);
        assert_eq!(lods[1].active_bones, vec![0, 0, 0]);
        let m = nel_matrix(&Mat43::translation(Vec3(1.0, 0.0, 0.0)), 0);
        assert_eq!(m.state_bits, MAT_ROT | MAT_SCALEANY | MAT_TRANS);
        assert_eq!(mat43_of(&m), Mat43::translation(Vec3(1.0, 0.0, 0.0)));
        let bytes = shape_bytes(s).expect("writes and reads back");
        assert!(bytes.starts_with(b"SHAP"));
    }
}
