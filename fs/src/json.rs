//! Deterministic JSON: pretty-printed, keys in a fixed order (struct order or
//! sorted maps), floats in their shortest round-trip form for their own width.

use serde::Serialize;
use serde_json::Value;

/// Pretty JSON with a trailing newline. Serialization of these plain data types cannot fail;
/// should it, the error is rendered as JSON instead.
pub fn to_bytes<T: Serialize>(v: &T) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(v)
        .unwrap_or_else(|e| format!("{{\"error\": {:?}}}", e.to_string()).into_bytes());
    out.push(b'\n');
    out
}

/// An f32 as JSON: the shortest decimal that reads back as the same f32 (0.1f32 → 0.1),
/// non-finite values as strings.
pub fn f32_value(f: f32) -> Value {
    if !f.is_finite() {
        return Value::String(format!("{f}"));
    }
    let text = format!("{f}");
    text.parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or(Value::Null, Value::Number)
}

/// Any serializable value as JSON with the float convention of the views:
/// a number that is exactly an f32 (values stored as f32 and widened, or
/// rounded to f32 precision by the evaluation) is written in its shortest f32
/// form, so 0.1f32 is `0.1`, not `0.10000000149011612`. Object keys come out
/// sorted, which keeps the order stable.
pub fn value_f32<T: Serialize>(v: &T) -> Value {
    let mut v = serde_json::to_value(v).unwrap_or_else(|e| {
        let mut m = serde_json::Map::new();
        m.insert("error".into(), Value::String(e.to_string()));
        Value::Object(m)
    });
    shorten_floats(&mut v);
    v
}

fn shorten_floats(v: &mut Value) {
    match v {
        Value::Number(n) if n.is_f64() => {
            if let Some(f) = n.as_f64() {
                let narrow = f as f32;
                if f64::from(narrow) == f {
                    *v = f32_value(narrow);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(shorten_floats),
        Value::Object(m) => m.values_mut().for_each(shorten_floats),
        _ => {}
    }
}

pub fn f32s_value(v: &[f32]) -> Value {
    Value::Array(v.iter().map(|&f| f32_value(f)).collect())
}

pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

pub fn id16(id: u16) -> String {
    format!("{id:#06x}")
}

pub fn id32(id: u32) -> String {
    format!("{id:#010x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_shortest() {
        assert_eq!(f32_value(0.1).to_string(), "0.1");
        assert_eq!(f32_value(1.0).to_string(), "1.0");
        assert_eq!(f32_value(-2.5e-8).to_string(), "-2.5e-8");
        assert_eq!(f32_value(f32::NAN).to_string(), "\"NaN\"");
    }

    #[test]
    fn widened_f32_are_shortest() {
        let v = value_f32(&(f64::from(0.1f32), 0.1f64, [f64::from(-2.5f32)], 3u32));
        assert_eq!(v.to_string(), "[0.1,0.1,[-2.5],3]");
    }
}
