//! The solar position as the Sunlight and Daylight systems compute it (the
//! AutoVision routine of Max's `sunlight.dlo`, facts from the 3ds Max SDK
//! sample): a Keplerian Earth orbit with elements fixed at 1990, barycentric,
//! topocentric and aberration corrections, precession, a two-term nutation,
//! then the hour angle from a linear sidereal time. Angles in radians;
//! longitude is positive *west*, as Max stores it.
//!
//! Max's precession step scales each coordinate by its column sum of the
//! precession matrix instead of multiplying by the matrix. That is kept: the
//! altitude it gives matches a sun TM 3ds Max stored (CLR-HDRI-DAY.max) to
//! 4e-6°, where the textbook product is 0.06° off (tests/…/eval_sunlight.rs).

/// Max's `TWO_PI` (the routine converts degrees with it, not with `2π`).
#[allow(clippy::approx_constant)] // Max's own truncated value.
const TWO_PI: f64 = 6.283185307;
/// Max's `PI`, a float (`(float)3.1415926`): the quadrant rule and the
/// slave's matrix use it.
#[allow(clippy::approx_constant)] // Max's own truncated value.
pub const MAX_PI_F32: f32 = 3.1415926;
const MAX_PI: f64 = MAX_PI_F32 as f64;
/// Julian date of the day count's origin (1 January of year 0 less half a day).
pub const EPOCH: f64 = 1_721_424.5;
/// Obliquity of the ecliptic for J2000.0, degrees.
const OBLIQUITY: f64 = 23.439291;
/// Earth radius in astronomical units.
const EARTH_RADIUS_AU: f64 = 6_378_160.0 / 149_600.0e6;
/// Speed of light in astronomical units per day.
const LIGHT_AU_PER_DAY: f64 = 173.1421288;
/// Days before each month, common and leap years.
const MONTH_START: [[i64; 12]; 2] = [
    [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334],
    [0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335],
];

pub fn deg(r: f64) -> f64 {
    360.0 * r / TWO_PI
}

pub fn rad(d: f64) -> f64 {
    TWO_PI * d / 360.0
}

/// Days of years 1 … `year` (inclusive) in the Gregorian count.
fn days_through(year: i64) -> i64 {
    365 * year + year / 4 - year / 100 + year / 400
}

pub fn is_leap(year: i64) -> bool {
    days_through(year) - days_through(year - 1) == 366
}

/// Days in `month` (1–12) of `year`.
pub fn month_days(year: i64, month: i64) -> i64 {
    let leap = usize::from(is_leap(year));
    match month {
        12 => 31,
        1..=11 => MONTH_START[leap][month as usize] - MONTH_START[leap][month as usize - 1],
        _ => 31,
    }
}

/// The Julian date of 0h UT on a Gregorian date.
pub fn julian_date(year: i64, month: i64, day: i64) -> f64 {
    let leap = usize::from(is_leap(year));
    let before = MONTH_START[leap][(month.clamp(1, 12) - 1) as usize];
    (days_through(year - 1) + before + day) as f64 + EPOCH
}

/// The Gregorian (year, month, day) of a Julian date (the date whose 0h UT
/// is nearest, the rounding Max applies).
pub fn gregorian(jd: f64) -> (i64, i64, i64) {
    let jd = jd + 0.5;
    let whole = jd.trunc() as i64;
    let frac = jd - whole as f64;
    let b = if whole > 2_299_160 {
        let a = ((whole as f64 - 1_867_216.25) / 36_524.25).trunc() as i64;
        whole + 1 + a - a / 4
    } else {
        whole
    };
    let c = b + 1524;
    let d = ((c as f64 - 122.1) / 365.25).trunc() as i64;
    let e = (365.25 * d as f64).trunc() as i64;
    let g = ((c - e) as f64 / 30.6001).trunc() as i64;
    let day = ((c - e) as f64 + frac - (30.6001 * g as f64).trunc() + 0.5).trunc() as i64;
    let month = if g < 14 { g - 1 } else { g - 13 };
    let year = if month > 2 { d - 4716 } else { d - 4715 };
    (year, month, day)
}

/// Where the sun is for an observer, and its equatorial coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SunPosition {
    /// Above the horizon, radians.
    pub altitude: f64,
    /// From north through east, radians in [0, 2π).
    pub azimuth: f64,
    pub right_ascension: f64,
    pub declination: f64,
}

/// `atan(x / y)` brought into [0, 2π) by the signs of `x` and `y`.
fn quadrant(x: f64, y: f64) -> f64 {
    let base = (x / y).atan();
    if y <= 0.0 {
        base + MAX_PI
    } else if x <= 0.0 {
        base + 2.0 * MAX_PI
    } else {
        base
    }
}

/// Greenwich sidereal time, radians, at `jd` (of which `day_fraction` is
/// the part since 0h UT).
fn sidereal(jd: f64, day_fraction: f64) -> f64 {
    let hours = 6.6265313
        + 0.0657098243 * (jd - day_fraction - 2_447_891.5)
        + 1.00273791 * 24.0 * day_fraction;
    rad(hours * 15.0)
}

type V3 = [f64; 3];

/// Heliocentric ecliptic position and velocity of the Earth–Moon barycentre
/// from osculating elements (two element sets, switched at JD 2448020.5).
fn orbit(jd: f64) -> (V3, V3) {
    // (epoch, inclination°, node°, perihelion°, daily motion°, mean longitude°, a, e)
    let (epoch, i, node, peri, n, l, a, e) = if jd <= 2_447_920.5 + 100.0 {
        (
            2_447_920.5,
            0.00132,
            352.4,
            102.90260,
            0.9856049,
            128.12283,
            1.0000029,
            0.0167006,
        )
    } else {
        (
            2_448_120.5,
            0.00126,
            353.7,
            103.0005,
            0.9856094,
            325.24544,
            0.9999998,
            0.0166744,
        )
    };
    let (i, node, peri, n, l) = (rad(i), rad(node), rad(peri), rad(n), rad(l));
    let m = (jd - epoch) * n + l - peri;
    // Four Newton steps on Kepler's equation.
    let mut u = m;
    for _ in 0..4 {
        u += (u.sin() * e + m - u) / (1.0 - e * u.cos());
    }
    let du = n / (1.0 - e * u.cos());
    let k = ((1.0 + e) / (1.0 - e)).sqrt();
    let half = (u / 2.0).tan();
    let f = 2.0 * (k * half).atan();
    let df = k / (1.0 + (k * half).powi(2)) / (u / 2.0).cos().powi(2) * du;
    let r = a * (1.0 - e * e) / (1.0 + e * f.cos());
    let dr = a * (1.0 - e * e) * e * f.sin() / (1.0 + e * f.cos()).powi(2) * df;
    let (sa, ca) = (f + peri - node).sin_cos();
    let (sn, cn) = node.sin_cos();
    let (si, ci) = i.sin_cos();
    let dir = [ca * cn - sa * ci * sn, ca * sn + sa * ci * cn, sa * si];
    let turn = [
        -(sa * cn + ca * ci * sn),
        -(sa * sn - ca * ci * cn),
        ca * si,
    ];
    let pos = dir.map(|c| r * c);
    let vel = [0, 1, 2].map(|k| dr * dir[k] + r * turn[k] * df);
    (pos, vel)
}

/// Equatorial → ecliptic rotation about X by the J2000 obliquity (`sign` −1
/// the other way).
fn tilt(v: V3, sign: f64) -> V3 {
    let (s, c) = rad(OBLIQUITY).sin_cos();
    [v[0], v[1] * c + sign * v[2] * s, v[2] * c - sign * v[1] * s]
}

/// The precession matrix from J2000 to `jd`.
fn precession(jd: f64) -> [V3; 3] {
    let t = (jd - 2_451_545.0) / 36_525.0;
    let zeta = rad(((0.0000050 * t + 0.0000839) * t + 0.6406161) * t);
    let z = rad(((0.0000051 * t + 0.0003041) * t + 0.6406161) * t);
    let theta = rad(((-0.0000116 * t - 0.0001185) * t + 0.5567530) * t);
    let (sze, cze) = zeta.sin_cos();
    let (sz, cz) = z.sin_cos();
    let (st, ct) = theta.sin_cos();
    [
        [cze * ct * cz - sze * sz, cze * ct * sz + sze * cz, cze * st],
        [
            -sze * ct * cz - cze * sz,
            -sze * ct * sz + cze * cz,
            -sze * st,
        ],
        [-st * cz, -st * sz, ct],
    ]
}

/// Max's precession step: coordinate `k` times the sum of column `k`.
fn precess(v: V3, p: &[V3; 3]) -> V3 {
    [0, 1, 2].map(|k| v[k] * (p[0][k] + p[1][k] + p[2][k]))
}

/// The sun for an observer at `latitude` (north) and `longitude` (west),
/// radians, at a UT civil time. `hour` may leave 0–23 (a time zone applied to
/// a local hour): the day fraction then leaves [0, 1) as in Max.
#[allow(clippy::too_many_arguments)]
pub fn sun_position(
    latitude: f64,
    longitude: f64,
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
) -> SunPosition {
    let frac = (hour as f64 + minute as f64 / 60.0 + second as f64 / 3600.0) / 24.0;
    let jd = julian_date(year, month, day) + frac;
    let (mut earth, mut vel) = orbit(jd);
    // Earth from the Earth–Moon barycentre.
    let t = (jd - 2_451_545.0) / 36_525.0;
    let moon = rad(218.0 + 481_268.0 * t);
    let dmoon = rad(481_268.0 / 36_525.0);
    earth[0] -= 0.0000312 * moon.cos();
    earth[1] -= 0.0000312 * moon.sin();
    vel[0] += 0.0000312 * moon.sin() * dmoon;
    vel[1] -= 0.0000312 * moon.cos() * dmoon;
    // The observer on the Earth's surface.
    let lst = sidereal(jd, frac) - longitude;
    let spin = rad(1.00273791 * 24.0 * 15.0);
    let (sl, cl) = lst.sin_cos();
    let (sp, cp) = latitude.sin_cos();
    let site = tilt([cp * cl, cp * sl, sp].map(|c| EARTH_RADIUS_AU * c), 1.0);
    let site_vel = tilt(
        [-cp * sl * spin, cp * cl * spin, 0.0].map(|c| EARTH_RADIUS_AU * c),
        1.0,
    );
    for k in 0..3 {
        earth[k] += site[k];
        vel[k] += site_vel[k];
    }
    let p = precession(jd);
    let observer = precess(tilt(earth, -1.0), &p);
    // The sun at the origin, displaced by aberration.
    let distance = (earth[0].powi(2) + earth[1].powi(2) + earth[2].powi(2)).sqrt();
    let tau = distance / LIGHT_AU_PER_DAY;
    let sun = precess(tilt(vel.map(|v| v * tau), -1.0), &p);
    let d = [0, 1, 2].map(|k| sun[k] - observer[k]);
    let len = (d[0].powi(2) + d[1].powi(2) + d[2].powi(2)).sqrt();
    let mut dec = (d[2] / len).asin();
    let mut ra = quadrant(d[1], d[0]);
    // Nutation, two terms.
    let days = jd - 2_447_891.5;
    let gamma =
        -0.0048 * rad(318.5 - 0.053 * days).sin() - 0.0004 * rad(198.8 + 1.971 * days).sin();
    let eps = 0.0026 * rad(318.5 - 0.053 * days).cos() + 0.0002 * rad(198.8 + 1.971 * days).cos();
    let (se, ce) = rad(OBLIQUITY).sin_cos();
    let dra = (ce + se * ra.sin() * dec.tan()) * gamma - ra.cos() * dec.tan() * eps;
    let ddec = se * ra.cos() * gamma + ra.sin() * eps;
    ra += rad(dra);
    ra = quadrant(ra.sin(), ra.cos());
    dec += rad(ddec);
    // Horizontal coordinates.
    let h = sidereal(jd, frac) - longitude - ra;
    let east = -dec.cos() * h.sin();
    let north = dec.sin() * latitude.cos() - dec.cos() * h.cos() * latitude.sin();
    let up = dec.sin() * latitude.sin() + dec.cos() * h.cos() * latitude.cos();
    SunPosition {
        altitude: up.clamp(-1.0, 1.0).asin(),
        azimuth: quadrant(east, north),
        right_ascension: ra,
        declination: dec,
    }
}

/// Unit vector towards azimuth `az` (from +Y towards +X) and altitude `alt`.
pub fn direction(az: f64, alt: f64) -> [f64; 3] {
    let v = [alt.cos() * az.sin(), alt.cos() * az.cos(), alt.sin()];
    let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    if n > 0.0 {
        v.map(|c| c / n)
    } else {
        [0.0, 0.0, 1.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    #[test]
    fn calendar_round_trips() {
        // JD 2451544.5 is 2000-01-01 0h (a published epoch: J2000.0 is
        // JD 2451545.0, noon of that day).
        assert_eq!(julian_date(2000, 1, 1), 2_451_544.5);
        assert_eq!(gregorian(2_451_544.5), (2000, 1, 1));
        for jd in [2_453_542.5, 2_451_604.5, 2_460_000.5] {
            let (y, m, d) = gregorian(jd);
            assert_eq!(julian_date(y, m, d), jd);
        }
        assert!(is_leap(2000) && !is_leap(1900) && is_leap(2004));
        assert_eq!(month_days(2004, 2), 29);
        assert_eq!(month_days(2005, 12), 31);
    }

    #[test]
    fn quadrants_cover_the_circle() {
        assert!((quadrant(1.0, 1.0) - PI / 4.0).abs() < 1e-9);
        assert!((quadrant(1.0, -1.0) - 3.0 * PI / 4.0).abs() < 1e-6);
        assert!((quadrant(-1.0, 1.0) - 7.0 * PI / 4.0).abs() < 1e-6);
    }
}
