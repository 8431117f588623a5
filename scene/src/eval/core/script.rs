//! The value of a MAXScript script controller (Float / Position / Point3 /
//! Scale Script, class ids from the SDK's `iscriptctrl.h`) when it does not
//! depend on MAXScript running: its expression text (chunk 0x5000) is a
//! sequence whose value is its last top-level expression, so a script whose
//! last expression is a literal number or `[x, y, z]` has that value at
//! every tick. That covers the default text Max writes into a new script
//! controller (the value it replaced, e.g. `[1,1,1]`) and the hidden helpers
//! the "ALC" malware plants, whose Scale Script defines and calls functions
//! and ends in `[1,1,1]`. Nothing is executed: any other last expression
//! (a variable, a call, arithmetic) is refused by name with its text.
//! Assumed, not verified against Max: a statement before the last one that
//! throws at run time does not change the value.

use std::fmt;

/// A literal a script controller can evaluate to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Literal {
    Number(f64),
    Point3([f64; 3]),
}

/// Why a script's value is not known without running it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotConstant(pub String);

impl fmt::Display for NotConstant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open(char),
    Close(char),
    Semi,
    Newline,
    Comma,
    Minus,
    Plus,
    Number(f64),
    /// A number with a suffix or in another base (`10f`, `0x1f`): a value,
    /// but not one read here.
    OtherNumber,
    Ident(String),
    /// A string, name, path or other operand that ends an expression.
    Atom,
    /// Any other operator (`=`, `*`, `.`, `<` …): an expression goes on.
    Op,
}

/// Decodes the stored text: UTF-16LE (Max 2013+, told apart as the
/// unsafe-script scan tells it) or single-byte.
pub fn text_of(data: &[u8]) -> String {
    if crate::scripts::is_utf16(data) {
        let units: Vec<u16> = data
            .chunks_exact(2)
            .map(|p| u16::from_le_bytes([p[0], p[1]]))
            .collect();
        String::from_utf16_lossy(&units)
    } else {
        String::from_utf8_lossy(data).into_owned()
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || !c.is_ascii()
}

fn tokens(text: &str) -> Result<Vec<Tok>, NotConstant> {
    let cs: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let unterminated = |what: &str| NotConstant(format!("the text ends inside {what}"));
    while i < cs.len() {
        let c = cs[i];
        let next = cs.get(i + 1).copied();
        match c {
            '\n' => {
                out.push(Tok::Newline);
                i += 1;
            }
            c if c.is_whitespace() => i += 1,
            // A backslash ending a line continues it.
            '\\' if cs[i + 1..]
                .iter()
                .take_while(|&&c| c != '\n')
                .all(|c| c.is_whitespace()) =>
            {
                i += 1;
                while i < cs.len() && cs[i] != '\n' {
                    i += 1;
                }
                i += 1;
            }
            '-' if next == Some('-') => {
                while i < cs.len() && cs[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let end = (i + 2..cs.len().saturating_sub(1))
                    .find(|&j| cs[j] == '*' && cs[j + 1] == '/')
                    .ok_or_else(|| unterminated("a /* comment"))?;
                i = end + 2;
            }
            '"' => {
                i += 1;
                loop {
                    match cs.get(i) {
                        None => return Err(unterminated("a string")),
                        Some('\\') => i += 2,
                        Some('"') => break,
                        Some(_) => i += 1,
                    }
                }
                i += 1;
                out.push(Tok::Atom);
            }
            '@' if next == Some('"') => {
                let end = (i + 2..cs.len())
                    .find(|&j| cs[j] == '"')
                    .ok_or_else(|| unterminated("a verbatim string"))?;
                i = end + 1;
                out.push(Tok::Atom);
            }
            '\'' => {
                let end = (i + 1..cs.len())
                    .find(|&j| cs[j] == '\'')
                    .ok_or_else(|| unterminated("a quoted name"))?;
                i = end + 1;
                out.push(Tok::Atom);
            }
            '#' if matches!(next, Some('(') | Some('{')) => {
                out.push(Tok::Open(next.unwrap_or('(')));
                i += 2;
            }
            '#' | '$' => {
                i += 1;
                if cs.get(i) == Some(&'\'') {
                    let end = (i + 1..cs.len())
                        .find(|&j| cs[j] == '\'')
                        .ok_or_else(|| unterminated("a quoted name"))?;
                    i = end + 1;
                } else {
                    while i < cs.len()
                        && (is_ident_char(cs[i]) || (c == '$' && "/*?.".contains(cs[i])))
                    {
                        i += 1;
                    }
                }
                out.push(Tok::Atom);
            }
            '(' | '[' | '{' => {
                out.push(Tok::Open(c));
                i += 1;
            }
            ')' | ']' | '}' => {
                out.push(Tok::Close(c));
                i += 1;
            }
            ';' => {
                out.push(Tok::Semi);
                i += 1;
            }
            ',' => {
                out.push(Tok::Comma);
                i += 1;
            }
            '-' => {
                out.push(Tok::Minus);
                i += 1;
            }
            '+' => {
                out.push(Tok::Plus);
                i += 1;
            }
            c if c.is_ascii_digit() || (c == '.' && next.is_some_and(|n| n.is_ascii_digit())) => {
                let start = i;
                while i < cs.len() && (cs[i].is_ascii_digit() || cs[i] == '.') {
                    i += 1;
                }
                if i < cs.len() && (cs[i] == 'e' || cs[i] == 'E') {
                    let mut j = i + 1;
                    if j < cs.len() && (cs[j] == '+' || cs[j] == '-') {
                        j += 1;
                    }
                    if j < cs.len() && cs[j].is_ascii_digit() {
                        i = j;
                        while i < cs.len() && cs[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                }
                let plain: String = cs[start..i].iter().collect();
                if i < cs.len() && is_ident_char(cs[i]) {
                    while i < cs.len() && is_ident_char(cs[i]) {
                        i += 1;
                    }
                    out.push(Tok::OtherNumber);
                } else {
                    out.push(plain.parse::<f64>().map_or(Tok::OtherNumber, Tok::Number));
                }
            }
            c if is_ident_char(c) => {
                let start = i;
                while i < cs.len() && is_ident_char(cs[i]) {
                    i += 1;
                }
                out.push(Tok::Ident(cs[start..i].iter().collect()));
            }
            _ => {
                out.push(Tok::Op);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Words after which an expression is not finished, so a line break does not
/// end the statement.
const CONTINUING: &[&str] = &[
    "and",
    "as",
    "at",
    "by",
    "case",
    "catch",
    "collect",
    "coordsys",
    "do",
    "else",
    "exit",
    "fn",
    "for",
    "function",
    "global",
    "if",
    "in",
    "local",
    "mapped",
    "not",
    "of",
    "or",
    "persistent",
    "return",
    "then",
    "to",
    "try",
    "undo",
    "when",
    "where",
    "while",
    "with",
];

/// Whether a statement whose last token is `t` is complete at a line break.
fn ends_expression(t: &Tok) -> bool {
    match t {
        Tok::Close(_) | Tok::Number(_) | Tok::OtherNumber | Tok::Atom => true,
        Tok::Ident(w) => !CONTINUING.contains(&w.to_ascii_lowercase().as_str()),
        _ => false,
    }
}

/// The tokens of the last top-level statement of `toks`, and whether a line
/// break (not a `;`) ends the statement before it.
fn last_statement(toks: &[Tok]) -> Result<(&[Tok], bool), NotConstant> {
    let mut depth = 0usize;
    let mut start = 0;
    let mut last: &[Tok] = &[];
    let (mut by_newline, mut last_by_newline) = (false, false);
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Open(_) => depth += 1,
            Tok::Close(_) => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| NotConstant("a bracket closes that was not opened".into()))?
            }
            Tok::Semi if depth == 0 => {
                if i > start {
                    last = &toks[start..i];
                    last_by_newline = by_newline;
                }
                start = i + 1;
                by_newline = false;
            }
            Tok::Newline if depth == 0 => {
                let before = &toks[start..i];
                let complete = before.last().is_some_and(ends_expression);
                // `else` / `catch` on the next line belong to the statement above.
                let resumes = toks[i + 1..]
                    .iter()
                    .find(|t| **t != Tok::Newline)
                    .is_some_and(|t| {
                        matches!(t, Tok::Ident(w) if ["else", "catch"]
                            .contains(&w.to_ascii_lowercase().as_str()))
                    });
                if before.is_empty() {
                    start = i + 1;
                } else if complete && !resumes {
                    last = before;
                    last_by_newline = by_newline;
                    start = i + 1;
                    by_newline = true;
                }
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(NotConstant("a bracket is not closed".into()));
    }
    let tail: Vec<usize> = (start..toks.len())
        .filter(|&i| toks[i] != Tok::Newline)
        .collect();
    if !tail.is_empty() {
        last = &toks[start..];
        last_by_newline = by_newline;
    }
    Ok((last, last_by_newline))
}

fn number(toks: &[Tok]) -> Option<(f64, usize)> {
    match toks {
        [Tok::Minus, Tok::Number(v), ..] => Some((-v, 2)),
        [Tok::Plus, Tok::Number(v), ..] => Some((*v, 2)),
        [Tok::Number(v), ..] => Some((*v, 1)),
        _ => None,
    }
}

/// A literal exactly filling `toks`, looking inside one `( … )` block.
fn literal(toks: &[Tok], depth: usize) -> Option<Literal> {
    let toks: Vec<Tok> = toks
        .iter()
        .filter(|t| **t != Tok::Newline)
        .cloned()
        .collect();
    if let Some((v, n)) = number(&toks) {
        return (n == toks.len()).then_some(Literal::Number(v));
    }
    match toks.first() {
        Some(Tok::Open('[')) => {
            let mut v = [0.0; 3];
            let mut at = 1;
            for (k, slot) in v.iter_mut().enumerate() {
                let (x, n) = number(&toks[at..])?;
                *slot = x;
                at += n;
                let sep = if k == 2 { Tok::Close(']') } else { Tok::Comma };
                if toks.get(at) != Some(&sep) {
                    return None;
                }
                at += 1;
            }
            (at == toks.len()).then_some(Literal::Point3(v))
        }
        Some(Tok::Open('(')) if toks.last() == Some(&Tok::Close(')')) && depth < 64 => {
            let inner = &toks[1..toks.len() - 1];
            let (last, by_newline) = last_statement(inner).ok()?;
            if by_newline && matches!(last.first(), Some(Tok::Minus | Tok::Plus)) {
                return None;
            }
            literal(last, depth + 1)
        }
        _ => None,
    }
}

/// The script's value when its last top-level expression is a literal.
pub fn constant_value(text: &str) -> Result<Literal, NotConstant> {
    let toks = tokens(text)?;
    let (last, by_newline) = last_statement(&toks)?;
    if last.is_empty() {
        return Err(NotConstant("the script is empty".into()));
    }
    if by_newline && matches!(last.first(), Some(Tok::Minus | Tok::Plus)) {
        return Err(NotConstant(
            "its last line starts with a sign, which may continue the line above".into(),
        ));
    }
    literal(last, 0).ok_or_else(|| {
        let shown: String = text
            .trim_end()
            .chars()
            .rev()
            .take(60)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        NotConstant(format!(
            "its value is a MAXScript expression, not a constant (ends `{}`)",
            shown.split_whitespace().collect::<Vec<_>>().join(" ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_texts_are_their_value() {
        assert_eq!(constant_value("[1,1,1]"), Ok(Literal::Point3([1.0; 3])));
        assert_eq!(constant_value("0.0"), Ok(Literal::Number(0.0)));
        assert_eq!(
            constant_value(" [-2.5, 1e2, .5] \r\n"),
            Ok(Literal::Point3([-2.5, 100.0, 0.5]))
        );
        assert_eq!(constant_value("-3"), Ok(Literal::Number(-3.0)));
    }

    #[test]
    fn the_last_top_level_expression_is_the_value() {
        let alc = "\r\r\n/**/(global a, b)\r\r\nfn f=(x = #($'q', $r*); \"s;[0,0,0]\")\r\r\n\
                   (f(); -- [2,2,2]\r\n b = 1);[1,1,1];\r\r\n\r\r\n";
        assert_eq!(constant_value(alc), Ok(Literal::Point3([1.0; 3])));
        assert_eq!(
            constant_value("x = 2\nfoo x\n( 7 )"),
            Ok(Literal::Number(7.0))
        );
        assert_eq!(
            constant_value("if t then (1)\nelse\n(\n  [3,4,5]\n)\n\n([0,1,0])"),
            Ok(Literal::Point3([0.0, 1.0, 0.0]))
        );
    }

    #[test]
    fn computed_values_are_refused() {
        for s in [
            "pos1 = rootPos.pos\nres = rot.y\nres",
            "sin (F * 5)",
            "[1,1,1] * 2",
            "x = 1 +\n2",
            "if a then 1 else\n2",
            "if a then 1\nelse 2",
            "10f",
            "[1,1]",
            "",
            "(1",
            "\"unterminated",
            "foo\n-1",
        ] {
            assert!(constant_value(s).is_err(), "{s:?}");
        }
    }

    #[test]
    fn utf16_text_is_decoded() {
        let b: Vec<u8> = "[0,0,1]"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        assert_eq!(text_of(&b), "[0,0,1]");
        assert_eq!(text_of(b"[0,0,1]"), "[0,0,1]");
    }
}
