//! `.ligozone`: Ligo zone descriptions, written by NeL as XML (`CZoneTemplate`/mask, categories).
//! The text is the stored form (rewritten verbatim); `roxmltree` checks that it is well-formed
//! and gives the element tree for the JSON view.

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

/// Deeper trees than any NeL writer makes are refused before they cost stack.
const MAX_DEPTH: usize = 64;

impl LigoZone {
    pub fn read(bytes: &[u8]) -> Result<Self, NelError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| err(e.valid_up_to(), "XML text is not UTF-8"))?
            .to_string();
        let doc = roxmltree::Document::parse(&text).map_err(|e| {
            let pos = e.pos();
            err(offset_of(&text, pos.row, pos.col), &e.to_string())
        })?;
        let root = element(doc.root_element(), 0)?;
        Ok(LigoZone { text, root })
    }
    pub fn write(&self) -> Vec<u8> {
        self.text.as_bytes().to_vec()
    }
}

/// The element tree of the JSON view: names, attributes in document order, and
/// the element's own text with surrounding whitespace trimmed.
fn element(node: roxmltree::Node, depth: usize) -> Result<Element, NelError> {
    if depth > MAX_DEPTH {
        return Err(err(node.range().start, "elements nested too deeply"));
    }
    let mut e = Element {
        name: node.tag_name().name().to_string(),
        attributes: node
            .attributes()
            .map(|a| (a.name().to_string(), a.value().to_string()))
            .collect(),
        ..Default::default()
    };
    for child in node.children() {
        if child.is_element() {
            e.children.push(element(child, depth + 1)?);
        } else if let Some(t) = child.text().filter(|_| child.is_text()) {
            let t = t.trim();
            if !t.is_empty() {
                e.text.push_str(t);
            }
        }
    }
    Ok(e)
}

/// Byte offset of a 1-based (row, column) position, columns counted in characters.
fn offset_of(text: &str, row: u32, col: u32) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(row.saturating_sub(1) as usize)
        .map(str::len)
        .sum();
    let line = &text[line_start.min(text.len())..];
    line_start
        + line
            .char_indices()
            .nth(col.saturating_sub(1) as usize)
            .map_or(line.len(), |(i, _)| i)
}

fn err(offset: usize, what: &str) -> NelError {
    NelError::Format {
        offset,
        path: "ligozone".into(),
        what: what.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZONE: &str = r#"<?xml version="1.0"?>
<LIGO_ZONE VERSION="1">
  <!-- written by hand in the shape NeL's CZoneTemplate writes -->
  <VERTICES><ELM X="0" Y="0"/><ELM X="160" Y="0"/></VERTICES>
  <CATEGORIES><ELM NAME="material" VALUE="grass &amp; rock"/></CATEGORIES>
  <NOTE>  a zone  </NOTE>
</LIGO_ZONE>
"#;

    #[test]
    fn reads_the_tree_and_writes_the_text_verbatim() {
        let z = LigoZone::read(ZONE.as_bytes()).expect("well-formed");
        assert_eq!(z.write(), ZONE.as_bytes());
        assert_eq!(z.root.name, "LIGO_ZONE");
        assert_eq!(z.root.attributes, [("VERSION".into(), "1".into())]);
        let names: Vec<&str> = z.root.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["VERTICES", "CATEGORIES", "NOTE"]);
        assert_eq!(z.root.children[0].children.len(), 2);
        assert_eq!(
            z.root.children[1].children[0].attributes[1].1,
            "grass & rock"
        );
        assert_eq!(z.root.children[2].text, "a zone");
    }

    #[test]
    fn malformed_text_is_refused_at_its_offset() {
        let at = |t: &[u8]| match LigoZone::read(t) {
            Err(NelError::Format { offset, .. }) => offset,
            other => panic!("{:?}: {other:?}", String::from_utf8_lossy(t)),
        };
        // The offset of the closing tag that does not match.
        assert_eq!(at(b"<A>\n<B></C></A>"), 7);
        assert_eq!(at(b"<A x=1/>"), 5);
        assert_eq!(at(b"<A>\xff</A>"), 3);
        assert!(at(b"<A>") <= 3);
        assert!(at(b"<A/><B/>") >= 4);
        let deep = "<a>".repeat(MAX_DEPTH + 2) + &"</a>".repeat(MAX_DEPTH + 2);
        assert!(LigoZone::read(deep.as_bytes()).is_err());
    }
}
