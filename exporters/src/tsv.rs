//! Fields of the tab-separated `errors.txt`: node, material and class names
//! come from the file and may hold tabs, line breaks or other control
//! characters (a plug-in's class name saved with a leading carriage return),
//! which would split or corrupt a line. They are written escaped instead.

use std::borrow::Cow;

/// `s` with `\t`, `\n`, `\r` and `\\` escaped as in C and any other control
/// character as `\u{…}`, so one field stays on one line between two tabs.
pub fn field(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() || c == '\\') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::field;

    #[test]
    fn control_characters_are_escaped_and_plain_text_kept() {
        assert_eq!(field("Box001"), "Box001");
        assert_eq!(field("\rCoronaPhysicalMtl"), "\\rCoronaPhysicalMtl");
        assert_eq!(field("a\tb\nc\\d\u{7}"), "a\\tb\\nc\\\\d\\u{7}");
    }
}
