//! File names inside the virtual tree. Anything that comes from file contents
//! (stream names, node names) goes through here, so no name can escape its
//! directory, hide as `.`/`..`, or carry bytes a shell or terminal chokes on.

use std::collections::HashSet;

/// Escapes a stream name as `%XX`: control characters (Max's `\x05SummaryInformation`
/// becomes `%05SummaryInformation`), `/`, `%` itself (so escaping is reversible), and
/// a whole name of `.` or `..`.
pub fn escape_stream_name(name: &str) -> String {
    if name.is_empty() {
        return "%".to_string();
    }
    if name == "." || name == ".." {
        return name.bytes().map(|b| format!("%{b:02X}")).collect();
    }
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '\0'..='\u{1f}' | '\u{7f}' | '/' | '%' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// A display name made safe as one path component: `/`, NUL and control characters
/// become `_`, surrounding whitespace is trimmed, and empty, `.` and `..` become `_`.
pub fn sanitize(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| match c {
            '/' | '\\' | '\0'..='\u{1f}' | '\u{7f}' => '_',
            c => c,
        })
        .collect();
    let trimmed = cleaned.trim();
    match trimmed {
        "" | "." | ".." => "_".to_string(),
        t if t.chars().all(|c| c == '.') => "_".repeat(t.len()),
        t => t.to_string(),
    }
}

/// Hands out unique names within one directory: the first `box` stays `box`,
/// later ones become `box~2`, `box~3`, … in the order asked, so the result only
/// depends on the input order (deterministic across runs).
#[derive(Debug, Default)]
pub struct NameSet {
    taken: HashSet<String>,
}

impl NameSet {
    pub fn new() -> NameSet {
        NameSet::default()
    }

    /// `stem` + `ext` (ext includes its dot, or is empty), made unique.
    pub fn unique(&mut self, stem: &str, ext: &str) -> String {
        let stem = sanitize(stem);
        let first = format!("{stem}{ext}");
        if self.taken.insert(first.to_lowercase()) {
            return first;
        }
        (2u64..)
            .map(|n| format!("{stem}~{n}{ext}"))
            .find(|cand| self.taken.insert(cand.to_lowercase()))
            .unwrap_or(first)
    }
}

/// `NNNN-IIII` for a container chunk, `NNNN-IIII.bin` for a leaf: position among
/// siblings (at least 4 digits) and chunk id (4 hex digits).
pub fn chunk_name(index: usize, id: u16, leaf: bool) -> String {
    if leaf {
        format!("{index:04}-{id:04X}.bin")
    } else {
        format!("{index:04}-{id:04X}")
    }
}

/// Reads a chunk name back: (position, id, is leaf).
pub fn parse_chunk_name(name: &str) -> Option<(usize, u16, bool)> {
    let (stem, leaf) = match name.strip_suffix(".bin") {
        Some(s) => (s, true),
        None => (name, false),
    };
    let (pos, id) = stem.split_once('-')?;
    if pos.len() < 4 || id.len() != 4 || !pos.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let index: usize = pos.parse().ok()?;
    if chunk_name(index, 0, false)[..].len() - 5 != pos.len() {
        return None; // no leading-zero aliases: 00012 is not 0012
    }
    let id = u16::from_str_radix(id, 16).ok()?;
    if format!("{id:04X}") != stem[stem.len() - 4..] {
        return None; // lowercase hex is another name
    }
    Some((index, id, leaf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_names() {
        assert_eq!(
            escape_stream_name("\u{5}SummaryInformation"),
            "%05SummaryInformation"
        );
        assert_eq!(escape_stream_name("a/b%c"), "a%2Fb%25c");
        assert_eq!(escape_stream_name(".."), "%2E%2E");
        assert_eq!(escape_stream_name("Scene"), "Scene");
    }

    #[test]
    fn sanitized_names() {
        assert_eq!(sanitize("../evil/x"), ".._evil_x");
        assert_eq!(sanitize(".."), "_");
        assert_eq!(sanitize("."), "_");
        assert_eq!(sanitize("a\0b\nc"), "a_b_c");
        assert_eq!(sanitize("  "), "_");
        let mut set = NameSet::new();
        assert_eq!(set.unique("Box01", ".shape"), "Box01.shape");
        assert_eq!(set.unique("box01", ".shape"), "box01~2.shape");
        assert_eq!(set.unique("a/b", ""), "a_b");
        assert_eq!(set.unique("a_b", ""), "a_b~2");
        assert_eq!(set.unique("..", ""), "_");
    }

    #[test]
    fn chunk_names_round_trip() {
        assert_eq!(chunk_name(3, 0x2004, false), "0003-2004");
        assert_eq!(chunk_name(12345, 0xab, true), "12345-00AB.bin");
        assert_eq!(parse_chunk_name("0003-2004"), Some((3, 0x2004, false)));
        assert_eq!(
            parse_chunk_name("12345-00AB.bin"),
            Some((12345, 0xab, true))
        );
        assert_eq!(parse_chunk_name("0003-2004.bi"), None);
        assert_eq!(parse_chunk_name("00003-2004"), None);
        assert_eq!(parse_chunk_name("0003-20ab"), None);
        assert_eq!(parse_chunk_name("003-2004"), None);
    }
}
