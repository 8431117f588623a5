//! The GLB container (glTF 2.0 spec, "Binary glTF Layout"): a 12-byte header,
//! a JSON chunk padded with spaces and an optional BIN chunk padded with zeros.

const MAGIC: &[u8; 4] = b"glTF";
const JSON: &[u8; 4] = b"JSON";
const BIN: &[u8; 4] = b"BIN\0";

fn padded(len: usize) -> usize {
    len.div_ceil(4) * 4
}

/// Wraps a JSON document and its binary buffer into a .glb.
pub fn write(json: &[u8], bin: &[u8]) -> Vec<u8> {
    let json_len = padded(json.len());
    let bin_len = padded(bin.len());
    let total = 12 + 8 + json_len + if bin.is_empty() { 0 } else { 8 + bin_len };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json_len as u32).to_le_bytes());
    out.extend_from_slice(JSON);
    out.extend_from_slice(json);
    out.resize(20 + json_len, b' ');
    if !bin.is_empty() {
        out.extend_from_slice(&(bin_len as u32).to_le_bytes());
        out.extend_from_slice(BIN);
        out.extend_from_slice(bin);
        out.resize(total, 0);
    }
    out
}

/// Splits a .glb into its JSON and BIN chunks (for tests and tools).
/// Why bytes are not a GLB container.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GlbError {
    #[error("truncated at {0}")]
    Truncated(usize),
    #[error("not a glTF 2 binary of this length")]
    Header,
    #[error("bad JSON chunk")]
    Json,
    #[error("bad BIN chunk")]
    Bin,
}

pub fn read(glb: &[u8]) -> Result<(&[u8], &[u8]), GlbError> {
    let u32_at = |at: usize| -> Result<usize, GlbError> {
        glb.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or(GlbError::Truncated(at))
    };
    if glb.get(0..4) != Some(MAGIC) || u32_at(4)? != 2 || u32_at(8)? != glb.len() {
        return Err(GlbError::Header);
    }
    let json_len = u32_at(12)?;
    if glb.get(16..20) != Some(JSON) || 20 + json_len > glb.len() {
        return Err(GlbError::Json);
    }
    let json = &glb[20..20 + json_len];
    let rest = 20 + json_len;
    if rest == glb.len() {
        return Ok((json, &[]));
    }
    let bin_len = u32_at(rest)?;
    if glb.get(rest + 4..rest + 8) != Some(BIN) || rest + 8 + bin_len != glb.len() {
        return Err(GlbError::Bin);
    }
    Ok((json, &glb[rest + 8..]))
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip() {
        let g = super::write(b"{}", &[1, 2, 3, 4, 5]);
        assert_eq!(g.len(), 12 + 8 + 4 + 8 + 8);
        let (j, b) = super::read(&g).unwrap();
        assert_eq!(j, b"{}  ");
        assert_eq!(b, [1, 2, 3, 4, 5, 0, 0, 0]);
    }
}
