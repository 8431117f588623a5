//! Particle systems (nel_ps nodes) in instance groups, as export_scene.cpp
//! `buildInstanceGroup` and export_misc.cpp `getNelObjectName` treat them.
//!
//! nel_ps (scripts/startup/nel_ps.ms, class (0x58ce2893, 0xbd2b74ef)) is a
//! scripted geometry plug-in extending Box: reference 0 is the delegate Box,
//! reference 1 its ParamBlock2 whose parameter 0 is `ps_file_name` (then
//! PSParam0-3 and PSTrigger). The instance's shape name is that file's name
//! without directory; with the clusterize flag the instance is tested for
//! clusters with the 8 corners of the `.ps` shape's bounding box
//! (`CParticleSystemShape::getAABBox`: the precomputed box, else the unit box
//! at the origin) placed by the node TM and re-boxed in world space
//! (`CAABBox::transformAABBox`; seed S003 line 464). The `.ps` file is the
//! stored path, else its name looked up beside the `.max` and below the
//! `--ps-path` folders; without it the plug-in falls back to the helper mesh
//! and says so, as this exporter does.

use maxfs_scene::eval::core::pblock::{self, Value};
use maxfs_scene::eval::Mat43;

use super::Context;
use crate::nel::shape::{Shape, ShapeStream};
use crate::nel::{read_nel, NelFile};

/// NEL_PARTICLE_SYSTEM_CLASS_ID: the plug-in tests class part A only.
pub const NEL_PARTICLE_SYSTEM_A: u32 = 0x58ce_2893;
const PARAM_BLOCK2: (u32, u32) = (0x82, 0);
/// Largest `.ps` file read (a damaged or foreign file must stay bounded).
const MAX_PS_BYTES: u64 = 256 << 20;

/// Whether `node`'s object is a NeL particle system.
pub fn is_particle_system(ctx: &Context, node: usize) -> bool {
    ctx.eval
        .node_object(node)
        .and_then(|o| ctx.graph.objects.get(o)?.class.as_ref())
        .is_some_and(|c| c.class_id.0 == NEL_PARTICLE_SYSTEM_A)
}

/// The stored `ps_file_name` of a particle-system node, if any.
pub fn ps_file_name(ctx: &Context, node: usize) -> Option<String> {
    if !is_particle_system(ctx, node) {
        return None;
    }
    let obj = ctx.eval.node_object(node)?;
    let refs = &ctx.graph.objects.get(obj)?.references;
    refs.iter()
        .filter_map(|r| usize::try_from(r.target).ok())
        .filter(|&b| {
            ctx.graph
                .class(b)
                .is_some_and(|c| (c.class_id.0, c.class_id.1) == PARAM_BLOCK2)
        })
        .find_map(|b| {
            let pb = pblock::param_block2(ctx.eval.chunks(b)).ok()?;
            match &pb.param(0)?.value {
                Value::String(s) => Some(s.clone()),
                _ => None,
            }
        })
}

/// `NLMISC::CFile::getFilename`: the name after the last `/` or `\`.
pub fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The world-space test points of a particle-system instance: the 8
/// corners of its `.ps` shape's box, or why the helper mesh stands in.
pub fn fx_corners(ctx: &Context, node: usize) -> Result<Vec<[f32; 3]>, String> {
    let stored = ps_file_name(ctx, node)
        .filter(|s| !s.is_empty())
        .ok_or("no ps_file_name")?;
    let search = ctx
        .ps_search
        .as_ref()
        .ok_or_else(|| format!("{stored}: no particle-system search folders (--ps-path)"))?;
    let path = search.resolve(&stored).map_err(|e| e.to_string())?;
    let len = std::fs::metadata(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    if len > MAX_PS_BYTES {
        return Err(format!("{}: {len} bytes is too large", path.display()));
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path.display().to_string();
    let pss = match read_nel(&bytes, &name).map_err(|e| e.to_string())? {
        NelFile::Shape(ShapeStream { shape }) => match shape.get() {
            Some(Shape::CParticleSystemShape(p)) => p.clone(),
            _ => return Err(format!("{name}: the shape is not a particle system")),
        },
        _ => return Err(format!("{name}: not a shape")),
    };
    let (center, half) = match (pss.use_precomputed_bbox, &pss.precomputed_bbox) {
        (Some(b), Some(bb)) if b.get() => (
            [bb.center.x.get(), bb.center.y.get(), bb.center.z.get()],
            [
                bb.half_size.x.get(),
                bb.half_size.y.get(),
                bb.half_size.z.get(),
            ],
        ),
        _ => ([0.0; 3], [1.0; 3]),
    };
    Ok(world_box_corners(&ctx.world_tm0(node), center, half))
}

/// `CAABBox::transformAABBox` of (center, half) by `tm`, then the 8 corners
/// of the result in the plug-in's order (bit 0 x, bit 1 y, bit 2 z).
pub fn world_box_corners(tm: &Mat43, center: [f32; 3], half: [f32; 3]) -> Vec<[f32; 3]> {
    let r = tm.rows();
    let corner = |k: usize, a: [f32; 3], b: [f32; 3]| -> [f32; 3] {
        [
            if k & 1 != 0 { b[0] } else { a[0] },
            if k & 2 != 0 { b[1] } else { a[1] },
            if k & 4 != 0 { b[2] } else { a[2] },
        ]
    };
    let lo: [f32; 3] = std::array::from_fn(|i| center[i] - half[i]);
    let hi: [f32; 3] = std::array::from_fn(|i| center[i] + half[i]);
    let placed: Vec<[f32; 3]> = (0..8)
        .map(|k| {
            let p = corner(k, lo, hi);
            std::array::from_fn(|i| {
                r[0][i] as f32 * p[0]
                    + r[1][i] as f32 * p[1]
                    + r[2][i] as f32 * p[2]
                    + r[3][i] as f32
            })
        })
        .collect();
    let mut min = placed[0];
    let mut max = placed[0];
    for t in &placed[1..] {
        for i in 0..3 {
            if t[i] < min[i] {
                min[i] = t[i];
            }
            if t[i] > max[i] {
                max[i] = t[i];
            }
        }
    }
    let c: [f32; 3] = std::array::from_fn(|i| (min[i] + max[i]) / 2.0);
    let h: [f32; 3] = std::array::from_fn(|i| (max[i] - min[i]) / 2.0);
    let minus: [f32; 3] = std::array::from_fn(|i| c[i] - h[i]);
    let plus: [f32; 3] = std::array::from_fn(|i| c[i] + h[i]);
    (0..8).map(|k| corner(k, minus, plus)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use maxfs_scene::eval::{Quat, Vec3};

    #[test]
    fn corners_of_a_turned_box_enclose_it() {
        let tm = Mat43::rotation(Quat::from_axis_angle(
            Vec3(0.0, 0.0, 1.0),
            std::f64::consts::FRAC_PI_4,
        ))
        .then(&Mat43::translation(Vec3(10.0, 0.0, 0.0)));
        let c = world_box_corners(&tm, [0.0; 3], [1.0, 1.0, 1.0]);
        let s = std::f32::consts::SQRT_2;
        assert!((c[0][0] - (10.0 - s)).abs() < 1e-5 && (c[7][0] - (10.0 + s)).abs() < 1e-5);
        assert!((c[0][1] + s).abs() < 1e-5 && (c[7][1] - s).abs() < 1e-5);
        assert_eq!((c[0][2], c[7][2]), (-1.0, 1.0));
    }

    #[test]
    fn file_names() {
        assert_eq!(file_name("C:\\fx\\snow.ps"), "snow.ps");
        assert_eq!(file_name("fx/a/b.ps"), "b.ps");
        assert_eq!(file_name("c.ps"), "c.ps");
    }
}
#[cfg(test)]
mod turned {
    /// A box turned about X (the corner maximising z is not the one
    /// maximising y).
    #[test]
    fn corners_under_a_turn_about_x() {
        use maxfs_scene::eval::{Mat43, Vec3};
        let tm = Mat43([
            Vec3(
                0.14142504320825064,
                2.3974602655549397e-9,
                -1.7483117829906407e-9,
            ),
            Vec3(
                -2.116294869472318e-9,
                0.1274187733515902,
                0.06136359388201848,
            ),
            Vec3(
                6.443338169284925e-9,
                -0.06136359396905536,
                0.12741877343312075,
            ),
            Vec3(1.999999761581428, -0.33552784515679746, 0.4700223325534407),
        ]);
        let c = super::world_box_corners(
            &tm,
            [0.43412971, -1.7666454, -4.056203],
            [23.417631, 23.549665, 11.056203],
        );
        // z spans both the low-y/low-z and the high-y/high-z corners.
        assert!(
            (c[0][2] + 3.009).abs() < 1e-3 && (c[7][2] - 2.699).abs() < 1e-3,
            "{c:?}"
        );
    }
}
