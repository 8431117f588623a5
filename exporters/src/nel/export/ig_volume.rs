//! The geometry of instance-group accelerators: CCluster's convex volume
//! (`makeVolume`, `isIn`) and bounding box, the portal polygon stitched from
//! a mesh's faces and `CPortal::setPoly`'s planarity test, as
//! buildInstanceGroup (export_scene.cpp) and cluster.cpp / portal.cpp build
//! them, in f32 like NeL.

use crate::nel::stream::{Plane, F32};

/// CLUSTERPRECISION (cluster.cpp): how far outside a plane still counts as in.
const CLUSTER_PRECISION: f32 = 0.005;
/// PORTALPRECISION (portal.cpp): how far off its plane a portal vertex may be.
const PORTAL_PRECISION: f32 = 0.005;

pub(super) fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

pub(super) fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

pub(super) fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// A NeL CPlane in f32: a·x + b·y + c·z + d.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pl(pub(super) [f32; 4]);

impl Pl {
    /// CPlane::make(p0, p1, p2) then normalize().
    pub(super) fn make(p0: [f32; 3], p1: [f32; 3], p2: [f32; 3]) -> Pl {
        let v = cross(sub(p1, p0), sub(p2, p1));
        let n = dot(v, v).sqrt();
        let v = if n != 0.0 {
            [v[0] / n, v[1] / n, v[2] / n]
        } else {
            v
        };
        let mut p = [v[0], v[1], v[2], -dot(v, p1)];
        let n = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        if n != 0.0 {
            let o = 1.0 / n;
            p.iter_mut().for_each(|x| *x *= o);
        }
        Pl(p)
    }

    pub(super) fn eval(&self, p: [f32; 3]) -> f32 {
        self.0[0] * p[0] + self.0[1] * p[1] + self.0[2] * p[2] + self.0[3]
    }
}

/// CAABBox as center and half size, extended the NeL way (through min/max).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Bx {
    pub(super) center: [f32; 3],
    pub(super) half: [f32; 3],
}

impl Bx {
    pub(super) fn extend(&mut self, v: [f32; 3]) {
        let mut mn = sub(self.center, self.half);
        let mut mx = [
            self.center[0] + self.half[0],
            self.center[1] + self.half[1],
            self.center[2] + self.half[2],
        ];
        for i in 0..3 {
            mn[i] = mn[i].min(v[i]);
            mx[i] = mx[i].max(v[i]);
        }
        for i in 0..3 {
            self.center[i] = (mn[i] + mx[i]) / 2.0;
            self.half[i] = mx[i] - self.center[i];
        }
    }
}

/// A cluster under construction: CCluster::makeVolume.
#[derive(Default)]
pub(super) struct ClusterBuild {
    pub(super) planes: Vec<Pl>,
    pub(super) bbox: Bx,
}

impl ClusterBuild {
    pub(super) fn make_volume(&mut self, p1: [f32; 3], p2: [f32; 3], p3: [f32; 3]) -> bool {
        // A plane already in the volume: nothing to add.
        if self.planes.iter().any(|pl| {
            pl.eval(p1).abs() < CLUSTER_PRECISION
                && pl.eval(p2).abs() < CLUSTER_PRECISION
                && pl.eval(p3).abs() < CLUSTER_PRECISION
        }) {
            return true;
        }
        // A triangle entirely outside one plane: the volume is not convex.
        if self.planes.iter().any(|pl| {
            pl.eval(p1) > CLUSTER_PRECISION
                && pl.eval(p2) > CLUSTER_PRECISION
                && pl.eval(p3) > CLUSTER_PRECISION
        }) {
            return false;
        }
        self.planes.push(Pl::make(p1, p2, p3));
        if self.planes.len() == 1 {
            self.bbox.center = p1;
        } else {
            self.bbox.extend(p1);
        }
        self.bbox.extend(p2);
        self.bbox.extend(p3);
        true
    }

    pub(super) fn is_in(&self, p: [f32; 3]) -> bool {
        self.planes.iter().all(|pl| pl.eval(p) <= CLUSTER_PRECISION)
    }
}

/// The portal polygon from its triangles, as buildInstanceGroup grows it:
/// start from face 0 and insert the third corner of any face sharing an edge
/// with the polygon, restarting the scan after each insertion.
pub(super) fn portal_poly(faces: &[[u32; 3]]) -> Vec<u32> {
    let Some(first) = faces.first() else {
        return Vec::new();
    };
    let mut poly: Vec<u32> = first.to_vec();
    let mut checked = vec![false; faces.len()];
    checked[0] = true;
    let mut j = 0;
    // Each insertion checks one face, so at most faces.len() restarts.
    let mut budget = faces.len().saturating_mul(faces.len()).saturating_add(16);
    while j < faces.len() && budget > 0 {
        budget -= 1;
        if !checked[j] {
            let f = faces[j];
            let mut hit = None;
            'k: for k in 0..3 {
                for m in 0..poly.len() {
                    let next = poly[(m + 1) % poly.len()];
                    if (f[k] == poly[m] && f[(k + 1) % 3] == next)
                        || (f[(k + 1) % 3] == poly[m] && f[k] == next)
                    {
                        hit = Some((k, m));
                        break 'k;
                    }
                }
            }
            if let Some((k, m)) = hit {
                poly.insert(m + 1, f[(k + 2) % 3]);
                checked[j] = true;
                // The C++ sets j = 0 and the loop increment makes it 1.
                j = 1;
                continue;
            }
        }
        j += 1;
    }
    poly
}

/// CPortal::setPoly: at least 3 points, all within PORTALPRECISION of the
/// plane of the first three.
pub(super) fn portal_poly_ok(poly: &[[f32; 3]]) -> bool {
    if poly.len() < 3 {
        return false;
    }
    let pl = Pl::make(poly[0], poly[1], poly[2]);
    poly[3..]
        .iter()
        .all(|&p| pl.eval(p).abs() <= PORTAL_PRECISION)
}

/// An occlusion model name as CPortal stores it ("no occlusion": none).
pub(super) fn occlusion(name: &str) -> String {
    if name == "no occlusion" {
        String::new()
    } else {
        name.to_string()
    }
}

pub(super) fn plane(p: &Pl) -> Plane {
    Plane {
        a: F32::from_f32(p.0[0]),
        b: F32::from_f32(p.0[1]),
        c: F32::from_f32(p.0[2]),
        d: F32::from_f32(p.0[3]),
    }
}
