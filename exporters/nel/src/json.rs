//! Deterministic JSON views: sorted keys, shortest float text, large arrays summarized.

use serde::Serialize;
use serde_json::{Map, Number, Value};

use super::NelError;

/// Arrays longer than this are replaced by a summary unless a full dump is asked for.
pub const SUMMARY_THRESHOLD: usize = 64;

/// Serialize `v` as pretty JSON; summarize long arrays unless `full`.
pub fn to_json<T: Serialize>(v: &T, full: bool) -> Result<String, NelError> {
    let mut val = serde_json::to_value(v).map_err(|e| NelError::Json(e.to_string()))?;
    if !full {
        summarize(&mut val);
    }
    let mut s = serde_json::to_string_pretty(&val).map_err(|e| NelError::Json(e.to_string()))?;
    s.push('\n');
    Ok(s)
}

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

fn summarize(v: &mut Value) {
    match v {
        Value::Array(a) => {
            if a.len() > SUMMARY_THRESHOLD {
                *v = summary_of(a);
            } else {
                a.iter_mut().for_each(summarize);
            }
        }
        Value::Object(m) => m.values_mut().for_each(summarize),
        _ => {}
    }
}

/// Numeric leaves of a value, by path ("" for a number, "x" for {x: ..}, "0" for [a, ..]).
fn leaves(v: &Value, prefix: &str, out: &mut Vec<(String, f64)>) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64() {
                out.push((prefix.to_string(), f));
            }
        }
        Value::Object(m) if prefix.matches('.').count() < 2 => {
            for (k, x) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                leaves(x, &p, out);
            }
        }
        Value::Array(a) if a.len() <= 16 && prefix.matches('.').count() < 2 => {
            for (i, x) in a.iter().enumerate() {
                let p = if prefix.is_empty() {
                    i.to_string()
                } else {
                    format!("{prefix}.{i}")
                };
                leaves(x, &p, out);
            }
        }
        _ => {}
    }
}

fn summary_of(a: &[Value]) -> Value {
    let text = serde_json::to_string(a).unwrap_or_default();
    let mut m = Map::new();
    m.insert("count".into(), Value::from(a.len()));
    m.insert(
        "fnv1a64".into(),
        Value::from(format!("{:016x}", fnv1a(text.as_bytes()))),
    );
    // Per-leaf bounds over elements (numbers, vectors, small structs of numbers).
    let mut mins: Vec<(String, f64)> = Vec::new();
    let mut maxs: Vec<f64> = Vec::new();
    let mut consistent = true;
    for (i, e) in a.iter().enumerate() {
        let mut l = Vec::new();
        leaves(e, "", &mut l);
        if i == 0 {
            maxs = l.iter().map(|x| x.1).collect();
            mins = l;
        } else if l.len() == mins.len() && l.iter().zip(&mins).all(|(x, y)| x.0 == y.0) {
            for (j, (_, f)) in l.iter().enumerate() {
                if *f < mins[j].1 {
                    mins[j].1 = *f;
                }
                if *f > maxs[j] {
                    maxs[j] = *f;
                }
            }
        } else {
            consistent = false;
            break;
        }
    }
    if consistent && !mins.is_empty() && mins.len() <= 32 {
        let num = |f: f64| {
            Number::from_f64(f)
                .map(Value::Number)
                .unwrap_or(Value::Null)
        };
        if mins.len() == 1 && mins[0].0.is_empty() {
            m.insert("min".into(), num(mins[0].1));
            m.insert("max".into(), num(maxs[0]));
        } else {
            let mut mn = Map::new();
            let mut mx = Map::new();
            for (j, (k, f)) in mins.iter().enumerate() {
                mn.insert(k.clone(), num(*f));
                mx.insert(k.clone(), num(maxs[j]));
            }
            m.insert("min".into(), Value::Object(mn));
            m.insert("max".into(), Value::Object(mx));
        }
    }
    m.insert("summarized".into(), Value::Bool(true));
    Value::Object(m)
}
