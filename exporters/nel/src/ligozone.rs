//! `.ligozone`: Ligo zone descriptions, written by NeL as XML (`CZoneTemplate`/mask, categories).
//! The text is the stored form (rewritten verbatim); a small, strict parser checks that it is
//! well-formed and exposes the element tree for the JSON view.

use serde::Serialize;

use super::NelError;

/// One XML element.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Element {
    pub name: String,
    pub attributes: Vec<(String, String)>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Element>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
}

/// A Ligo zone file.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LigoZone {
    #[serde(skip)]
    pub text: String,
    pub root: Element,
}

const MAX_DEPTH: usize = 64;

impl LigoZone {
    pub fn read(bytes: &[u8]) -> Result<Self, NelError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| err(e.valid_up_to(), "XML text is not UTF-8"))?
            .to_string();
        let mut p = Parser {
            s: text.as_bytes(),
            i: 0,
        };
        p.skip_misc()?;
        let root = p.element(0)?;
        p.skip_misc()?;
        if p.i != p.s.len() {
            return Err(err(p.i, "content after the root element"));
        }
        Ok(LigoZone { text, root })
    }
    pub fn write(&self) -> Vec<u8> {
        self.text.as_bytes().to_vec()
    }
}

fn err(offset: usize, what: &str) -> NelError {
    NelError::Format {
        offset,
        path: "ligozone".into(),
        what: what.into(),
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn starts(&self, t: &str) -> bool {
        self.s[self.i..].starts_with(t.as_bytes())
    }
    fn skip_ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn skip_until(&mut self, end: &str) -> Result<(), NelError> {
        match find(&self.s[self.i..], end.as_bytes()) {
            Some(k) => {
                self.i += k + end.len();
                Ok(())
            }
            None => Err(err(self.i, &format!("missing {end:?}"))),
        }
    }
    /// Declarations, comments and whitespace between elements.
    fn skip_misc(&mut self) -> Result<(), NelError> {
        loop {
            self.skip_ws();
            if self.starts("<?") {
                self.skip_until("?>")?;
            } else if self.starts("<!--") {
                self.skip_until("-->")?;
            } else if self.starts("<!") {
                self.skip_until(">")?;
            } else {
                return Ok(());
            }
        }
    }
    fn name(&mut self) -> Result<String, NelError> {
        let st = self.i;
        while self.i < self.s.len()
            && !self.s[self.i].is_ascii_whitespace()
            && !b"/>=".contains(&self.s[self.i])
        {
            self.i += 1;
        }
        if st == self.i {
            return Err(err(st, "expected a name"));
        }
        Ok(String::from_utf8_lossy(&self.s[st..self.i]).into_owned())
    }
    fn element(&mut self, depth: usize) -> Result<Element, NelError> {
        if depth > MAX_DEPTH {
            return Err(err(self.i, "elements nested too deeply"));
        }
        if !self.starts("<") {
            return Err(err(self.i, "expected '<'"));
        }
        self.i += 1;
        let mut e = Element {
            name: self.name()?,
            ..Default::default()
        };
        loop {
            self.skip_ws();
            if self.starts("/>") {
                self.i += 2;
                return Ok(e);
            }
            if self.starts(">") {
                self.i += 1;
                break;
            }
            let k = self.name()?;
            self.skip_ws();
            if !self.starts("=") {
                return Err(err(self.i, "expected '=' after attribute name"));
            }
            self.i += 1;
            self.skip_ws();
            let q = *self
                .s
                .get(self.i)
                .ok_or_else(|| err(self.i, "unexpected end"))?;
            if q != b'"' && q != b'\'' {
                return Err(err(self.i, "expected a quoted attribute value"));
            }
            self.i += 1;
            let st = self.i;
            let len = self.s[st..]
                .iter()
                .position(|&c| c == q)
                .ok_or_else(|| err(st, "unterminated attribute value"))?;
            self.i = st + len + 1;
            e.attributes.push((
                k,
                String::from_utf8_lossy(&self.s[st..st + len]).into_owned(),
            ));
        }
        loop {
            let st = self.i;
            while self.i < self.s.len() && self.s[self.i] != b'<' {
                self.i += 1;
            }
            let t = String::from_utf8_lossy(&self.s[st..self.i]);
            if !t.trim().is_empty() {
                e.text.push_str(t.trim());
            }
            if self.i >= self.s.len() {
                return Err(err(self.i, &format!("element <{}> is not closed", e.name)));
            }
            if self.starts("</") {
                self.i += 2;
                let n = self.name()?;
                if n != e.name {
                    return Err(err(self.i, &format!("</{n}> closes <{}>", e.name)));
                }
                self.skip_ws();
                if !self.starts(">") {
                    return Err(err(self.i, "expected '>'"));
                }
                self.i += 1;
                return Ok(e);
            }
            if self.starts("<!--") || self.starts("<?") || self.starts("<!") {
                self.skip_misc()?;
                continue;
            }
            e.children.push(self.element(depth + 1)?);
        }
    }
}

fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}
