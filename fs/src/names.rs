//! File names inside the virtual tree. Anything that comes from file contents
//! (stream names, node names) goes through here, so no name can escape its
//! directory, hide as `.`/`..`, or carry bytes a shell or terminal chokes on.

use std::collections::HashSet;

/// Escapes a stream name as `%XX`: control characters (Max's `\x05SummaryInformation`
/// becomes `%05SummaryInformation`), `/`, the characters Windows refuses in a name
/// (`\:*?"<>|`, so a copy of the tree stays valid there), `%` itself (so escaping is
/// reversible), and a whole name of `.` or `..`.
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
            '\0'..='\u{1f}'
            | '\u{7f}'
            | '/'
            | '%'
            | '\\'
            | ':'
            | '*'
            | '?'
            | '"'
            | '<'
            | '>'
            | '|' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// A display name made safe as one path component on every OS, because exports
/// are copied to Windows and macOS checkouts: `/`, `\`, NUL, control characters
/// and the characters Windows refuses (`<>:"|?*`) become `_`; surrounding
/// whitespace and trailing dots (which Windows drops) are trimmed; a Windows
/// device name (`con`, `nul`, `com1`, `lpt¹` …, also before a dot as in
/// `aux.shape`) gets a `_` after it; empty, `.` and `..` become `_`; names
/// longer than [`MAX_NAME_BYTES`] are cut at a character boundary.
pub fn sanitize(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| match c {
            '/' | '\\' | '<' | '>' | ':' | '"' | '|' | '?' | '*' => '_',
            '\0'..='\u{1f}' | '\u{7f}' => '_',
            c => c,
        })
        .collect();
    let mut cleaned = cleaned;
    truncate_at_char(&mut cleaned, MAX_NAME_BYTES);
    let trimmed = cleaned.trim();
    let mut out = match trimmed {
        "" | "." | ".." => "_".to_string(),
        t if t.chars().all(|c| c == '.') => "_".repeat(t.len()),
        t => match t.trim_end_matches(['.', ' ']) {
            "" => "_".to_string(),
            t => t.to_string(),
        },
    };
    let base_len = out.find('.').unwrap_or(out.len());
    if is_windows_device(out[..base_len].trim_end()) {
        out.insert(base_len, '_');
    }
    out
}

/// The longest sanitized name, in bytes: room for a `~N` suffix and an
/// extension within the 255-byte (Linux) / 255-unit (Windows) component limit.
pub const MAX_NAME_BYTES: usize = 200;

/// Windows reserves these names (any case, with or without an extension).
fn is_windows_device(base: &str) -> bool {
    let lower = base.to_lowercase();
    if matches!(
        lower.as_str(),
        "con" | "prn" | "aux" | "nul" | "conin$" | "conout$"
    ) {
        return true;
    }
    let mut chars = lower.chars();
    let prefix: String = chars.by_ref().take(3).collect();
    let rest: Vec<char> = chars.collect();
    (prefix == "com" || prefix == "lpt")
        && rest.len() == 1
        && matches!(rest[0], '0'..='9' | '\u{b9}' | '\u{b2}' | '\u{b3}')
}

fn truncate_at_char(s: &mut String, max: usize) {
    if s.len() > max {
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
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
        assert_eq!(escape_stream_name("a:b?"), "a%3Ab%3F");
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

    /// Names Windows cannot store: reserved characters, device names (also with
    /// an extension), trailing dots and spaces; still unique afterwards.
    #[test]
    fn names_valid_on_windows() {
        assert_eq!(sanitize("a::b"), "a__b");
        assert_eq!(sanitize("x?"), "x_");
        assert_eq!(sanitize(r#"<a>|"b"*"#), "_a___b__");
        assert_eq!(sanitize("con"), "con_");
        assert_eq!(sanitize("CON"), "CON_");
        assert_eq!(sanitize("aux.shape"), "aux_.shape");
        assert_eq!(sanitize("Com1"), "Com1_");
        assert_eq!(sanitize("lpt\u{b9}"), "lpt\u{b9}_");
        assert_eq!(sanitize("com10"), "com10");
        assert_eq!(sanitize("console"), "console");
        assert_eq!(sanitize("box. . "), "box");
        assert_eq!(sanitize(". ."), "_");
        let long = "é".repeat(300);
        let cut = sanitize(&long);
        assert!(cut.len() <= MAX_NAME_BYTES && cut.chars().all(|c| c == 'é'));
        let mut set = NameSet::new();
        assert_eq!(set.unique("a::b", ".shape"), "a__b.shape");
        assert_eq!(set.unique("a__b", ".shape"), "a__b~2.shape");
        assert_eq!(set.unique("con", ".shape"), "con_.shape");
        assert_eq!(set.unique("x?", ".ig"), "x_.ig");
        assert_eq!(set.unique("x*", ".ig"), "x_~2.ig");
        // Stable: the same input order gives the same names.
        let mut again = NameSet::new();
        assert_eq!(again.unique("a::b", ".shape"), "a__b.shape");
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
