//! The XML form of `.pacs_prim`: what NeL's `COXml` stream writes for
//! `CPrimitiveBlock::serial` (the form the NeL exporter's
//! `exportPACSPrimitives` writes and `UPrimitiveBlock::createPrimitiveBlockFromFile`
//! loads through `CIXml`). Facts from `nel/src/misc/o_xml.cpp` and
//! `nel/include/nel/misc/stream.h`: `xmlPush(name)` opens an element,
//! `serialVersion` and `serialCheck` are `<VERSION>` / `<CHECK>` elements holding
//! the number, `serialCont` is `<VECTOR size="n">` with one `<ELM>` per element,
//! values inside one element are separated by one space; integers print as
//! `%u` / `%d`, floats as `%f` of the value widened to double, bools as 0/1; the
//! document is libxml2's formatted output (two-space indent, declaration
//! `<?xml version="1.0"?>`). The tests check the bytes against NeL's own COXml.

use super::pacs_prim::{PrimitiveBlock, PrimitiveDesc};
use super::stream::{Bool, Vec3, F32};
use super::NelError;

/// `NELID("KBRP")` as the number the XML stream prints for `serialCheck`.
const CHECK: u32 = u32::from_le_bytes(*b"PRBK");
/// Deepest element nesting accepted on reading (the format needs 5).
const MAX_DEPTH: usize = 16;

/// `%f` of a float widened to double: six decimals, exact binary value rounded.
fn f(v: F32) -> String {
    format!("{:.6}", f64::from(v.get()))
}

/// Writes the block as NeL's COXml does.
pub fn write(block: &PrimitiveBlock) -> Vec<u8> {
    let mut s = String::from("<?xml version=\"1.0\"?>\n<PRIMITIVE_BLOCK>\n");
    s.push_str(&format!("  <CHECK>{CHECK}</CHECK>\n"));
    s.push_str(&format!("  <VERSION>{}</VERSION>\n", block.version));
    s.push_str("  <PRIMITIVES>\n");
    if block.primitives.is_empty() {
        s.push_str("    <VECTOR size=\"0\"/>\n");
    } else {
        s.push_str(&format!(
            "    <VECTOR size=\"{}\">\n",
            block.primitives.len()
        ));
        for p in &block.primitives {
            s.push_str("      <ELM>\n");
            let mut el = |name: &str, text: String| {
                s.push_str(&format!("        <{name}>{text}</{name}>\n"));
            };
            el("VERSION", p.version.to_string());
            el("LENGTH", format!("{} {}", f(p.length[0]), f(p.length[1])));
            el("HEIGHT", f(p.height));
            el("ATTENUATION", f(p.attenuation));
            el("TYPE", p.prim_type.to_string());
            el("REACTION", p.reaction.to_string());
            el("TRIGGER", p.trigger.to_string());
            el("OBSTACLE", p.obstacle.0.to_string());
            el("OCCLUSION_MASK", p.occlusion_mask.to_string());
            el("COLLISION_MASK", p.collision_mask.to_string());
            el(
                "POSITION",
                format!(
                    "{} {} {}",
                    f(p.position.x),
                    f(p.position.y),
                    f(p.position.z)
                ),
            );
            el("ORIENTATION", f(p.orientation));
            if let Some(u) = p.user_data {
                el("USER_DATA", u.to_string());
            }
            s.push_str("      </ELM>\n");
        }
        s.push_str("    </VECTOR>\n");
    }
    s.push_str("  </PRIMITIVES>\n</PRIMITIVE_BLOCK>\n");
    s.into_bytes()
}

/// One parsed element: name, attributes, text content, child elements, and
/// the byte offset of its start tag (for errors).
#[derive(Debug, Default)]
struct Element {
    name: String,
    attrs: Vec<(String, String)>,
    text: String,
    children: Vec<Element>,
    offset: usize,
}

fn err(offset: usize, path: &str, what: impl Into<String>) -> NelError {
    NelError::Format {
        offset,
        path: format!("CPrimitiveBlock (XML) {path}"),
        what: what.into(),
    }
}

/// A small XML reader for the subset COXml writes: declaration, comments,
/// elements with double- or single-quoted attributes, text, the five
/// predefined entities. Anything else is an error with its offset.
struct Parser<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Parser<'a> {
    fn skip_ws(&mut self) {
        while self.pos < self.b.len() && self.b[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn starts(&self, s: &[u8]) -> bool {
        self.b[self.pos..].starts_with(s)
    }

    /// Skips `<?…?>` and `<!--…-->` at the current position.
    fn skip_misc(&mut self) -> Result<bool, NelError> {
        for (open, close) in [(&b"<?"[..], &b"?>"[..]), (b"<!--", b"-->")] {
            if self.starts(open) {
                let start = self.pos;
                let rest = &self.b[self.pos + open.len()..];
                let end = rest
                    .windows(close.len())
                    .position(|w| w == close)
                    .ok_or_else(|| err(start, "", "unterminated declaration or comment"))?;
                self.pos += open.len() + end + close.len();
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn name(&mut self) -> Result<String, NelError> {
        let start = self.pos;
        while self.pos < self.b.len()
            && (self.b[self.pos].is_ascii_alphanumeric() || b"_-.:".contains(&self.b[self.pos]))
        {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(err(start, "", "expected an element or attribute name"));
        }
        Ok(String::from_utf8_lossy(&self.b[start..self.pos]).into_owned())
    }

    fn text_until(&mut self, stop: u8) -> Result<String, NelError> {
        let start = self.pos;
        while self.pos < self.b.len() && self.b[self.pos] != stop {
            self.pos += 1;
        }
        let raw = std::str::from_utf8(&self.b[start..self.pos])
            .map_err(|_| err(start, "", "text is not UTF-8"))?;
        unescape(raw).ok_or_else(|| err(start, "", "unknown entity in text"))
    }

    fn element(&mut self, depth: usize) -> Result<Element, NelError> {
        if depth > MAX_DEPTH {
            return Err(err(self.pos, "", "elements nested too deep"));
        }
        let offset = self.pos;
        if !self.starts(b"<") {
            return Err(err(offset, "", "expected '<'"));
        }
        self.pos += 1;
        let mut el = Element {
            name: self.name()?,
            offset,
            ..Element::default()
        };
        loop {
            self.skip_ws();
            if self.starts(b"/>") {
                self.pos += 2;
                return Ok(el);
            }
            if self.starts(b">") {
                self.pos += 1;
                break;
            }
            let key = self.name()?;
            self.skip_ws();
            if !self.starts(b"=") {
                return Err(err(
                    self.pos,
                    &el.name,
                    "expected '=' after an attribute name",
                ));
            }
            self.pos += 1;
            self.skip_ws();
            let q = *self
                .b
                .get(self.pos)
                .ok_or_else(|| err(self.pos, &el.name, "end of file in a tag"))?;
            if q != b'"' && q != b'\'' {
                return Err(err(self.pos, &el.name, "attribute value is not quoted"));
            }
            self.pos += 1;
            let v = self.text_until(q)?;
            if self.pos >= self.b.len() {
                return Err(err(self.pos, &el.name, "unterminated attribute value"));
            }
            self.pos += 1;
            el.attrs.push((key, v));
        }
        loop {
            if self.pos >= self.b.len() {
                return Err(err(self.pos, &el.name, "end of file inside the element"));
            }
            if self.starts(b"</") {
                self.pos += 2;
                let close = self.name()?;
                self.skip_ws();
                if close != el.name || !self.starts(b">") {
                    return Err(err(self.pos, &el.name, format!("closed by </{close}>")));
                }
                self.pos += 1;
                return Ok(el);
            }
            if self.skip_misc()? {
                continue;
            }
            if self.starts(b"<") {
                let child = self.element(depth + 1)?;
                el.children.push(child);
            } else {
                let t = self.text_until(b'<')?;
                el.text.push_str(&t);
            }
        }
    }
}

fn unescape(s: &str) -> Option<String> {
    if !s.contains('&') {
        return Some(s.to_string());
    }
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let end = rest[i..].find(';')? + i;
        out.push(match &rest[i + 1..end] {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            "quot" => '"',
            "apos" => '\'',
            _ => return None,
        });
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

impl Element {
    fn child(&self, name: &str) -> Result<&Element, NelError> {
        self.children
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| err(self.offset, &self.name, format!("no <{name}> element")))
    }

    /// The whitespace-separated values of child `name`, exactly `n` of them.
    fn values(&self, name: &str, n: usize) -> Result<Vec<&str>, NelError> {
        let c = self.child(name)?;
        let v: Vec<&str> = c.text.split_whitespace().collect();
        if v.len() != n {
            return Err(err(
                c.offset,
                name,
                format!("{} values where {n} are expected", v.len()),
            ));
        }
        Ok(v)
    }

    fn num<T: std::str::FromStr>(&self, name: &str) -> Result<T, NelError> {
        let v = self.values(name, 1)?;
        self.parse(name, v[0])
    }

    fn parse<T: std::str::FromStr>(&self, name: &str, s: &str) -> Result<T, NelError> {
        s.parse().map_err(|_| {
            err(
                self.offset,
                &format!("{}/{name}", self.name),
                format!("{s:?} is not a {}", std::any::type_name::<T>()),
            )
        })
    }

    fn float(&self, name: &str, s: &str) -> Result<F32, NelError> {
        self.parse::<f32>(name, s).map(F32::from_f32)
    }
}

/// Reads the XML form written by [`write()`] or by NeL's COXml.
pub fn read(bytes: &[u8]) -> Result<PrimitiveBlock, NelError> {
    let b = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut p = Parser { b, pos: 0 };
    loop {
        p.skip_ws();
        if !p.skip_misc()? {
            break;
        }
    }
    let root = p.element(0)?;
    loop {
        p.skip_ws();
        if p.pos >= b.len() {
            break;
        }
        if !p.skip_misc()? {
            return Err(err(p.pos, "", "content after the root element"));
        }
    }
    if root.name != "PRIMITIVE_BLOCK" {
        return Err(err(
            root.offset,
            "",
            format!("root element <{}>, not <PRIMITIVE_BLOCK>", root.name),
        ));
    }
    let check: u32 = root.num("CHECK")?;
    if check != CHECK {
        return Err(err(
            root.offset,
            "CHECK",
            format!("{check}, expected {CHECK} (\"PRBK\")"),
        ));
    }
    let version: u32 = root.num("VERSION")?;
    if version > 0 {
        return Err(NelError::UnknownVersion {
            path: "CPrimitiveBlock (XML)".into(),
            class: "CPrimitiveBlock".into(),
            version,
            max: 0,
            offset: root.offset,
        });
    }
    let vector = root.child("PRIMITIVES")?.child("VECTOR")?;
    let size = vector
        .attrs
        .iter()
        .find(|(k, _)| k == "size")
        .ok_or_else(|| err(vector.offset, "VECTOR", "no size attribute"))?;
    let size: usize = vector.parse("size", &size.1)?;
    let elms: Vec<&Element> = vector.children.iter().filter(|c| c.name == "ELM").collect();
    if elms.len() != size {
        return Err(err(
            vector.offset,
            "VECTOR",
            format!("size {size} but {} <ELM> elements", elms.len()),
        ));
    }
    let mut primitives = Vec::with_capacity(size);
    for e in elms {
        primitives.push(desc(e)?);
    }
    Ok(PrimitiveBlock {
        version,
        primitives,
    })
}

fn desc(e: &Element) -> Result<PrimitiveDesc, NelError> {
    let version: u32 = e.num("VERSION")?;
    if version > 1 {
        return Err(NelError::UnknownVersion {
            path: "CPrimitiveBlock (XML)/ELM".into(),
            class: "CPrimitiveDesc".into(),
            version,
            max: 1,
            offset: e.offset,
        });
    }
    let len = e.values("LENGTH", 2)?;
    let pos = e.values("POSITION", 3)?;
    let obstacle: u8 = e.num("OBSTACLE")?;
    Ok(PrimitiveDesc {
        version,
        length: [e.float("LENGTH", len[0])?, e.float("LENGTH", len[1])?],
        height: e.float("HEIGHT", e.values("HEIGHT", 1)?[0])?,
        attenuation: e.float("ATTENUATION", e.values("ATTENUATION", 1)?[0])?,
        prim_type: e.num("TYPE")?,
        reaction: e.num("REACTION")?,
        trigger: e.num("TRIGGER")?,
        obstacle: Bool(obstacle),
        occlusion_mask: e.num("OCCLUSION_MASK")?,
        collision_mask: e.num("COLLISION_MASK")?,
        position: Vec3 {
            x: e.float("POSITION", pos[0])?,
            y: e.float("POSITION", pos[1])?,
            z: e.float("POSITION", pos[2])?,
        },
        orientation: e.float("ORIENTATION", e.values("ORIENTATION", 1)?[0])?,
        user_data: if version >= 1 {
            Some(e.num("USER_DATA")?)
        } else {
            None
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text of NeL's COXml for one primitive (captured from the oracle,
    /// tests/oracle/pacs_check.sh --xml): our writer gives the same bytes and
    /// the reader gives back the values.
    #[test]
    fn same_text_as_nel_coxml() {
        let nel = "<?xml version=\"1.0\"?>\n<PRIMITIVE_BLOCK>\n  <CHECK>1262637648</CHECK>\n  <VERSION>0</VERSION>\n  <PRIMITIVES>\n    <VECTOR size=\"1\">\n      <ELM>\n        <VERSION>1</VERSION>\n        <LENGTH>1.500000 2.250000</LENGTH>\n        <HEIGHT>3.000000</HEIGHT>\n        <ATTENUATION>0.500000</ATTENUATION>\n        <TYPE>1</TYPE>\n        <REACTION>48</REACTION>\n        <TRIGGER>3</TRIGGER>\n        <OBSTACLE>1</OBSTACLE>\n        <OCCLUSION_MASK>1</OCCLUSION_MASK>\n        <COLLISION_MASK>65535</COLLISION_MASK>\n        <POSITION>-12.345678 100000.500000 0.000000</POSITION>\n        <ORIENTATION>4.712389</ORIENTATION>\n        <USER_DATA>844433520132100</USER_DATA>\n      </ELM>\n    </VECTOR>\n  </PRIMITIVES>\n</PRIMITIVE_BLOCK>\n";
        let b = read(nel.as_bytes()).expect("reads");
        assert_eq!(b.primitives.len(), 1);
        let p = &b.primitives[0];
        assert_eq!(p.reaction, 0x30);
        assert_eq!(p.user_data, Some(0x0003_0002_0001_0004));
        assert_eq!(p.position.y.get(), 100000.5);
        assert_eq!(String::from_utf8(write(&b)).expect("utf8"), nel);
    }

    #[test]
    fn damaged_text_is_an_error_not_a_panic() {
        let good = write(&PrimitiveBlock {
            version: 0,
            primitives: vec![PrimitiveDesc {
                version: 1,
                user_data: Some(1),
                ..PrimitiveDesc::default()
            }],
        });
        assert!(read(&good).is_ok());
        for cut in 0..good.len() {
            let _ = read(&good[..cut]);
        }
        let bad = String::from_utf8(good)
            .expect("utf8")
            .replace("<CHECK>1262637648", "<CHECK>1");
        assert!(read(bad.as_bytes()).is_err());
        let deep = "<A>".repeat(100);
        assert!(read(deep.as_bytes()).is_err());
    }
}
