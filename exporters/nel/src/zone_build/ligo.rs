//! Ligo bricks: the `.ligozone` description NeL's ligo plugin writes next to each brick
//! zone (`CZoneBankElement` through `COXml`), and the brick naming and category rules of
//! `nel_ligo_export.ms` / `NeLLigoExportZone` (seed S003 l.299).

use std::collections::BTreeMap;

use super::super::ligozone::{Element, LigoZone};
use super::ZoneBuildError;

/// `CZoneBankElement`: the categories (a `std::map`, so key-sorted, first insert wins) and
/// the cell mask of a brick.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ZoneBankElement {
    pub categories: BTreeMap<String, String>,
    /// Row-major, `size_x × size_y` cells; true where the brick covers the cell.
    pub mask: Vec<bool>,
    pub size_x: u8,
    pub size_y: u8,
}

impl ZoneBankElement {
    /// `CZoneBankElement::addCategory`: `std::map::insert`, so an existing key keeps its
    /// first value.
    pub fn add_category(&mut self, kind: &str, value: &str) {
        self.categories
            .entry(kind.to_string())
            .or_insert_with(|| value.to_string());
    }

    /// What `NeLLigoExportZone` stores for a brick: the script's properties, then
    /// `filled` (every mask cell set), `square` (width == height) and `size` ("WxH"), each
    /// key and value lowercased (`strlwr`, ASCII), added in that order.
    pub fn for_brick(
        mask: Vec<bool>,
        width: u8,
        height: u8,
        properties: &[(String, String)],
    ) -> Self {
        let mut e = ZoneBankElement {
            mask,
            size_x: width,
            size_y: height,
            ..Default::default()
        };
        let filled = if e.mask.iter().all(|&b| b) {
            "yes"
        } else {
            "no"
        };
        let square = if width == height { "yes" } else { "no" };
        let size = format!("{width}x{height}");
        let extra = [
            ("filled", filled),
            ("square", square),
            ("size", size.as_str()),
        ];
        let all = properties
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .chain(extra);
        for (k, v) in all {
            e.add_category(&k.to_ascii_lowercase(), &v.to_ascii_lowercase());
        }
        e
    }

    /// The `.ligozone` text, as `CZoneBankElement::serial` through `COXml` writes it
    /// (libxml2 `xmlSaveFormatFileTo`, indent 2; the mask node mixes the bit count text
    /// with the byte buffer, so libxml2 does not indent inside it).
    pub fn to_xml(&self) -> Result<String, ZoneBuildError> {
        let mut x = String::from("<?xml version=\"1.0\"?>\n<LIGOZONE>\n");
        x.push_str("  <VERSION>1</VERSION>\n");
        x.push_str("  <CHECK>\n    <S>LIGOZONE</S>\n  </CHECK>\n");
        x.push_str("  <CATEGORIES>\n");
        if self.categories.is_empty() {
            x.push_str("    <MAP size=\"0\"/>\n");
        } else {
            x.push_str(&format!("    <MAP size=\"{}\">\n", self.categories.len()));
            for (k, v) in &self.categories {
                for (tag, s) in [("KEY", k), ("ELM", v)] {
                    x.push_str(&format!(
                        "      <{tag}>\n        {}\n      </{tag}>\n",
                        s_node(s)?
                    ));
                }
            }
            x.push_str("    </MAP>\n");
        }
        x.push_str("  </CATEGORIES>\n");
        let n = i32::try_from(self.mask.len())
            .map_err(|_| ZoneBuildError::Zone("ligozone mask longer than i32".into()))?;
        x.push_str(&format!("  <MASK>{n}"));
        if n > 0 {
            x.push_str("<BUFFER>");
            for byte in pack_bits(&self.mask) {
                x.push_str(&format!("<ELM>{byte}</ELM>"));
            }
            x.push_str("</BUFFER>");
        }
        x.push_str("</MASK>\n</LIGOZONE>\n");
        Ok(x)
    }

    /// Reads a `.ligozone` back (NeL's `CZoneBankElement::serial` reading rules: version
    /// 1, the "LIGOZONE" check, the category map, the bit-packed mask). The size is not
    /// stored; NeL derives it from the `size` category, as this does.
    pub fn from_ligozone(z: &LigoZone) -> Result<Self, ZoneBuildError> {
        let bad = |what: &str| ZoneBuildError::Zone(format!("ligozone: {what}"));
        let root = &z.root;
        if root.name != "LIGOZONE" {
            return Err(bad("root element is not LIGOZONE"));
        }
        let child = |e: &'_ Element, name: &str| -> Result<Element, ZoneBuildError> {
            e.children
                .iter()
                .find(|c| c.name == name)
                .cloned()
                .ok_or_else(|| bad(&format!("no {name} in {}", e.name)))
        };
        if child(root, "VERSION")?.text != "1" {
            return Err(bad("version is not 1"));
        }
        if child(&child(root, "CHECK")?, "S")?.text != "LIGOZONE" {
            return Err(bad("check string is not LIGOZONE"));
        }
        let map = child(&child(root, "CATEGORIES")?, "MAP")?;
        let mut e = ZoneBankElement::default();
        let mut it = map.children.iter();
        while let Some(key) = it.next() {
            let elm = it.next().ok_or_else(|| bad("KEY without ELM"))?;
            if key.name != "KEY" || elm.name != "ELM" {
                return Err(bad("MAP holds something else than KEY/ELM pairs"));
            }
            let text = |x: &Element| child(x, "S").map(|s| s.text);
            e.add_category(&text(key)?, &text(elm)?);
        }
        let size_attr = map.attributes.iter().find(|(k, _)| k == "size");
        if size_attr.map(|(_, v)| v.as_str()) != Some(&e.categories.len().to_string()) {
            return Err(bad("MAP size attribute does not match its entries"));
        }
        let mask = child(root, "MASK")?;
        let n: usize = mask.text.parse().map_err(|_| bad("mask length"))?;
        let bytes: Vec<u8> = match mask.children.first() {
            Some(buf) => buf
                .children
                .iter()
                .map(|c| c.text.parse::<u8>())
                .collect::<Result<_, _>>()
                .map_err(|_| bad("mask byte"))?,
            None => Vec::new(),
        };
        if bytes.len() != n.div_ceil(8) {
            return Err(bad("mask buffer length does not match the bit count"));
        }
        e.mask = (0..n).map(|i| bytes[i / 8] >> (i % 8) & 1 != 0).collect();
        let size = e.categories.get("size").cloned().unwrap_or_default();
        let (w, h) = size.split_once('x').unwrap_or((&size, ""));
        e.size_x = w.parse().unwrap_or(0);
        e.size_y = h.parse().unwrap_or(0);
        Ok(e)
    }
}

/// `IStream::serialCont(vector<bool>)`: LSB first, 8 per byte.
fn pack_bits(mask: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; mask.len().div_ceil(8)];
    for (i, &b) in mask.iter().enumerate() {
        out[i / 8] |= u8::from(b) << (i % 8);
    }
    out
}

/// `<S>text</S>` (or `<S/>` when empty) with libxml2's escaping for a document without
/// an encoding: `& < >` as entities, CR and every non-ASCII character as `&#x..;`.
fn s_node(s: &str) -> Result<String, ZoneBuildError> {
    if s.is_empty() {
        return Ok("<S/>".into());
    }
    let mut t = String::from("<S>");
    for c in s.chars() {
        match c {
            '&' => t.push_str("&amp;"),
            '<' => t.push_str("&lt;"),
            '>' => t.push_str("&gt;"),
            '\r' => t.push_str("&#13;"),
            '\t' | '\n' => t.push(c),
            c if (c as u32) < 0x20 => {
                return Err(ZoneBuildError::Zone(format!(
                    "ligozone category {s:?} holds control character {:#x}, which XML cannot carry",
                    c as u32
                )))
            }
            c if c.is_ascii() => t.push(c),
            c => t.push_str(&format!("&#x{:X};", c as u32)),
        }
    }
    t.push_str("</S>");
    Ok(t)
}

/// What a ligo brick source file name says it is (`nel_ligo_export.ms`: the name is
/// split on '-'; `zonematerial-<mat>-<cell>`, `zonespecial-<name>`,
/// `zonetransition-<a>-<b>-<t>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrickSource {
    Material { material: String, cell: String },
    Special { name: String },
    Transition { a: String, b: String, t: String },
}

impl BrickSource {
    /// Classifies a source file stem (without `.max`); `None` for other files. The script
    /// splits the name on '-' (`filterString`, empty tokens dropped) and takes a file only
    /// when the token count is exactly 3 (`zonematerial`), 2 (`zonespecial`) or 4
    /// (`zonetransition`) and the first token is that word (MAXScript's string `==`,
    /// compared as stored): `zonematerial-jungle-jungle-2` is not a brick source.
    pub fn from_stem(stem: &str) -> Option<Self> {
        let tok: Vec<&str> = stem.split('-').filter(|t| !t.is_empty()).collect();
        let s = |i: usize| tok[i].to_string();
        match (tok.first().copied()?, tok.len()) {
            ("zonematerial", 3) => Some(BrickSource::Material {
                material: s(1),
                cell: s(2),
            }),
            ("zonespecial", 2) => Some(BrickSource::Special { name: s(1) }),
            ("zonetransition", 4) => Some(BrickSource::Transition {
                a: s(1),
                b: s(2),
                t: s(3),
            }),
            _ => None,
        }
    }

    /// The bricks this source exports: (brick name, properties before `passable`), one for
    /// a material or special zone, nine for a transition (slots 1..=9, named with slot−1).
    pub fn bricks(&self) -> Vec<(String, Vec<(String, String)>)> {
        let p = |k: &str, v: &str| (k.to_string(), v.to_string());
        match self {
            BrickSource::Material { material, cell } => {
                let name = format!("{material}-{cell}");
                vec![(
                    name.clone(),
                    vec![p("zone", &name), p("material", material)],
                )]
            }
            BrickSource::Special { name } => {
                vec![(
                    name.clone(),
                    vec![p("zone", name), p("material", "special")],
                )]
            }
            BrickSource::Transition { a, b, t } => (1..=9)
                .map(|slot| {
                    let name = format!("{a}-{b}-{t}-{}", slot - 1);
                    let ty = TRANSITION_TYPE[slot - 1];
                    let props = vec![
                        p("zone", &name),
                        p("transname", &format!("{a}-{b}")),
                        p("transtype", ty),
                        p("transtype", ty),
                        p("transnum", &TRANSITION_NUM_BIS[slot - 1].to_string()),
                    ];
                    (name, props)
                })
                .collect(),
        }
    }
}

/// `addProperties`: `passable` is "yes" when the node carries the ligo AppData
/// (1304892483), else "no"; appended after the script's own properties.
pub fn with_passable(mut props: Vec<(String, String)>, passable: bool) -> Vec<(String, String)> {
    let v = if passable { "yes" } else { "no" };
    props.push(("passable".into(), v.into()));
    props
}

/// AppData id whose presence marks a brick passable (`ligo_passable_app`).
pub const LIGO_PASSABLE_APPDATA: u32 = 1_304_892_483;

// nel_ligo_export.ms l.9-14: the 9 slots of a transition source, indexed slot-1.
/// `TransitionScale`: the slot is mirrored (scale [-1,1,1]).
pub const TRANSITION_SCALE: [bool; 9] =
    [false, false, false, false, true, false, false, false, false];
/// `TransitionRot`: quarter turns about Z.
pub const TRANSITION_ROT: [u8; 9] = [2, 1, 3, 0, 1, 3, 0, 0, 0];
/// `TransitionPos`: the slot's offset in cells.
pub const TRANSITION_POS: [[i32; 3]; 9] = [
    [0, 0, 0],
    [-1, 0, 0],
    [-1, -1, 0],
    [-1, -2, 0],
    [0, -2, 0],
    [0, -3, 0],
    [-1, -3, 0],
    [-2, -3, 0],
    [-3, -3, 0],
];
/// `TransitionIds`: slot (1-based) of each grid cell, rows by y; `None` where the script
/// has `undefinded` (an undefined variable, so the cell is refused).
pub const TRANSITION_IDS: [&[Option<u8>]; 4] = [
    &[Some(1), Some(2)],
    &[None, Some(3)],
    &[Some(5), Some(4)],
    &[Some(6), Some(7), Some(8), Some(9)],
];
/// `TransitionType`.
pub const TRANSITION_TYPE: [&str; 9] = [
    "CornerA", "CornerA", "Flat", "CornerA", "CornerB", "CornerB", "Flat", "Flat", "CornerB",
];
/// `TransitionNumBis`.
pub const TRANSITION_NUM_BIS: [u8; 9] = [5, 4, 2, 3, 7, 6, 0, 1, 8];

/// `getTransitionZoneCoordinates` + the `TransitionIds` lookup: the slot (1..=9) of a
/// transition zone whose bounding-box centre is (x, y), or `None` where the script
/// refuses the position. MaxScript's `as Integer` truncates toward zero.
pub fn transition_slot(center_x: f32, center_y: f32, cell_size: f32) -> Option<u8> {
    let x = (center_x / cell_size).trunc();
    let y = (center_y / cell_size).trunc();
    if !(x.is_finite() && y.is_finite()) || x < 0.0 || y < 0.0 {
        return None;
    }
    let row = TRANSITION_IDS.get(y as usize)?;
    row.get(x as usize).copied().flatten()
}

/// A Max `Matrix3` (row vectors: rows 0..2 are the axes, row 3 the translation).
pub type Matrix3 = [[f32; 3]; 4];

/// `buildTransitionMatrix mt slot cellSize`: the transform a transition slot's patch
/// mesh is exported with. The position is set aside, the matrix optionally mirrored
/// (`scale [-1,1,1]`: column 0 of every row negated) and turned by 90°·rot about Z
/// (`rotateZ`, row-vector convention), then translated by the slot offset·cellSize plus
/// the original position. `slot` is 1..=9.
pub fn transition_matrix(mt: &Matrix3, slot: usize, cell_size: f32) -> Option<Matrix3> {
    let i = slot.checked_sub(1).filter(|&i| i < 9)?;
    let mut m = *mt;
    let pos = m[3];
    m[3] = [0.0; 3];
    mirror_and_turn(&mut m, i);
    let off = TRANSITION_POS[i];
    for k in 0..3 {
        m[3][k] += off[k] as f32 * cell_size + pos[k];
    }
    Some(m)
}

/// `buildTransitionMatrixObj mt slot cellSize` without its last step (`mt * copyMt`):
/// `copyMt`, the move applied to every node of the slot's instance group. From
/// `transMatrix (TransitionPos·cellSize)`, translated by (−cell/2, −cell/2, 0),
/// mirrored with its translation (`scale copyMt [-1,1,1] true`), turned with its
/// translation (`rotateZ`), translated back by (cell/2, cell/2, 0): the slot's cell
/// offset, then the slot's mirror / turn about the centre of cell (0, 0).
pub fn transition_object_matrix(slot: usize, cell_size: f32) -> Option<Matrix3> {
    let i = slot.checked_sub(1).filter(|&i| i < 9)?;
    let half = cell_size / 2.0;
    let off = TRANSITION_POS[i];
    let mut m: Matrix3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0; 3]];
    for k in 0..3 {
        m[3][k] = off[k] as f32 * cell_size;
    }
    m[3][0] += -half;
    m[3][1] += -half;
    mirror_and_turn(&mut m, i);
    m[3][0] += half;
    m[3][1] += half;
    Some(m)
}

/// The slot's `scale [-1,1,1]` (column 0 of every row negated) when mirrored and
/// `rotateZ (90·rot)` (every row turned counter-clockwise, row-vector convention), both
/// applied to all four rows as Max's `Matrix3::Scale(s, TRUE)` / `RotateZ` do.
fn mirror_and_turn(m: &mut Matrix3, i: usize) {
    if TRANSITION_SCALE[i] {
        for row in m.iter_mut() {
            row[0] = -row[0];
        }
    }
    let rot = TRANSITION_ROT[i];
    if rot != 0 {
        let (s, c) = quarter_turn(rot);
        for row in m.iter_mut() {
            let (x, y) = (row[0], row[1]);
            row[0] = x * c - y * s;
            row[1] = x * s + y * c;
        }
    }
}

/// Sine and cosine of a quarter-turn multiple, exact (Max computes them in float from
/// 90°·rot; the exact values are what those round to except for the tiny residue of
/// cos 90°, which Max's own RotateZMatrix carries as ±4.4e-8).
fn quarter_turn(rot: u8) -> (f32, f32) {
    match rot % 4 {
        0 => (0.0, 1.0),
        1 => (1.0, 0.0),
        2 => (0.0, -1.0),
        _ => (-1.0, 0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expected text follows NeL's serializers rule by rule (zone_bank.cpp
    /// CZoneBankElement::serial; stream.cpp serialVersion → <VERSION>, serialCheck →
    /// <CHECK>, serialMap → <MAP size=".."> of <KEY>/<ELM>, strings → <S>, vector<bool>
    /// → count then <BUFFER> of LSB-first bytes; o_xml.cpp flush → xmlSaveFormatFileTo
    /// with indentation), for a 3×2 brick with mask 101101 (= 1+4+8+32 = 45).
    #[test]
    fn ligozone_text_follows_coxml() {
        let mask = vec![true, false, true, true, false, true];
        let props = with_passable(
            vec![
                ("zone".into(), "Foo".into()),
                ("material".into(), "grass".into()),
            ],
            true,
        );
        let e = ZoneBankElement::for_brick(mask, 3, 2, &props);
        let expected = "<?xml version=\"1.0\"?>
<LIGOZONE>
  <VERSION>1</VERSION>
  <CHECK>
    <S>LIGOZONE</S>
  </CHECK>
  <CATEGORIES>
    <MAP size=\"6\">
      <KEY>
        <S>filled</S>
      </KEY>
      <ELM>
        <S>no</S>
      </ELM>
      <KEY>
        <S>material</S>
      </KEY>
      <ELM>
        <S>grass</S>
      </ELM>
      <KEY>
        <S>passable</S>
      </KEY>
      <ELM>
        <S>yes</S>
      </ELM>
      <KEY>
        <S>size</S>
      </KEY>
      <ELM>
        <S>3x2</S>
      </ELM>
      <KEY>
        <S>square</S>
      </KEY>
      <ELM>
        <S>no</S>
      </ELM>
      <KEY>
        <S>zone</S>
      </KEY>
      <ELM>
        <S>foo</S>
      </ELM>
    </MAP>
  </CATEGORIES>
  <MASK>6<BUFFER><ELM>45</ELM></BUFFER></MASK>
</LIGOZONE>
";
        let text = e.to_xml().unwrap();
        assert_eq!(text, expected);
        let back = ZoneBankElement::from_ligozone(&LigoZone::read(text.as_bytes()).unwrap());
        assert_eq!(back.unwrap(), e);
    }

    #[test]
    fn first_category_value_wins_and_keys_sort_bytewise() {
        let mut e = ZoneBankElement::default();
        e.add_category("k", "first");
        e.add_category("k", "second");
        e.add_category("Zed", "1");
        e.add_category("zed", "2");
        let keys: Vec<_> = e.categories.keys().cloned().collect();
        assert_eq!(keys, ["Zed", "k", "zed"]);
        assert_eq!(e.categories["k"], "first");
    }

    /// nel_ligo_export.ms l.9-14 (seed S003 l.299: "zonetransition-<a>-<b>-<t> -> 9
    /// bricks via grid classification ((int)(center/cellSize) through the TransitionIds
    /// table)").
    #[test]
    fn transition_grid_follows_the_script_tables() {
        let cell = 160.0;
        let at = |x: f32, y: f32| transition_slot((x + 0.5) * cell, (y + 0.5) * cell, cell);
        assert_eq!(at(0.0, 0.0), Some(1));
        assert_eq!(at(1.0, 0.0), Some(2));
        assert_eq!(at(0.0, 1.0), None, "TransitionIds[2][1] is undefined");
        assert_eq!(at(1.0, 1.0), Some(3));
        assert_eq!(at(0.0, 2.0), Some(5));
        assert_eq!(at(1.0, 2.0), Some(4));
        for x in 0..4 {
            assert_eq!(at(x as f32, 3.0), Some(6 + x as u8));
        }
        assert_eq!(at(2.0, 0.0), None);
        assert_eq!(at(0.0, 4.0), None);
        // `as Integer` truncates toward zero: -0.5 cell is column 0.
        assert_eq!(transition_slot(-0.5 * cell, 0.5 * cell, cell), Some(1));
    }

    /// Slot 5 is the one mirrored slot (TransitionScale[5]) with one quarter turn
    /// (TransitionRot[5] = 1) at TransitionPos[5] = [0,-2,0].
    #[test]
    fn transition_matrix_mirrors_turns_and_places() {
        let id: Matrix3 = [
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
            [10.0, 20.0, 3.0],
        ];
        let m = transition_matrix(&id, 5, 160.0).unwrap();
        // Mirror: x axis → (-1,0,0); quarter turn CCW: (x,y) → (-y,x).
        assert_eq!(m[0], [0.0, -1.0, 0.0]);
        assert_eq!(m[1], [-1.0, 0.0, 0.0]);
        assert_eq!(m[2], [0.0, 0.0, 1.0]);
        assert_eq!(m[3], [10.0, 20.0 - 320.0, 3.0]);
        // Slot 4: no mirror, no turn, one cell left and two down.
        let m = transition_matrix(&id, 4, 160.0).unwrap();
        assert_eq!(m[0], [1.0, 0.0, 0.0]);
        assert_eq!(m[3], [10.0 - 160.0, 20.0 - 320.0, 3.0]);
        assert!(transition_matrix(&id, 0, 160.0).is_none());
        assert!(transition_matrix(&id, 10, 160.0).is_none());
    }

    /// buildTransitionMatrixObj's copyMt, step by step from the script: slot 5 (mirror,
    /// one quarter turn, TransitionPos [0,-2,0]): translation (0,-320) − (80,80) =
    /// (-80,-400), mirrored (80,-400), turned (x,y)→(−y,x): (400,80), + (80,80) = (480,160);
    /// axes: x → (−1,0) → (0,−1), y → (0,1) → (−1,0). Slot 1 (half turn, no offset):
    /// (−80,−80) → (80,80) → (160,160): a half turn about the cell centre.
    #[test]
    fn transition_object_matrix_follows_the_script() {
        let m = transition_object_matrix(5, 160.0).unwrap();
        assert_eq!(m[0], [0.0, -1.0, 0.0]);
        assert_eq!(m[1], [-1.0, 0.0, 0.0]);
        assert_eq!(m[2], [0.0, 0.0, 1.0]);
        assert_eq!(m[3], [480.0, 160.0, 0.0]);
        let m = transition_object_matrix(1, 160.0).unwrap();
        assert_eq!(m[0], [-1.0, 0.0, 0.0]);
        assert_eq!(m[1], [0.0, -1.0, 0.0]);
        assert_eq!(m[3], [160.0, 160.0, 0.0]);
        // Slot 9: no mirror, no turn, three cells left and down.
        let m = transition_object_matrix(9, 160.0).unwrap();
        assert_eq!(m[0], [1.0, 0.0, 0.0]);
        assert_eq!(m[3], [-480.0, -480.0, 0.0]);
        assert!(transition_object_matrix(0, 160.0).is_none());
        assert!(transition_object_matrix(10, 160.0).is_none());
    }

    #[test]
    fn brick_names_follow_the_file_name_protocol() {
        let m = BrickSource::from_stem("zonematerial-foret-25_a").unwrap();
        assert_eq!(
            m.bricks(),
            vec![(
                "foret-25_a".to_string(),
                vec![
                    ("zone".to_string(), "foret-25_a".to_string()),
                    ("material".to_string(), "foret".to_string())
                ]
            )]
        );
        let s = BrickSource::from_stem("zonespecial-pont").unwrap();
        assert_eq!(s.bricks()[0].1[1], ("material".into(), "special".into()));
        let t = BrickSource::from_stem("zonetransition-foret-prairie-2").unwrap();
        let b = t.bricks();
        assert_eq!(b.len(), 9);
        assert_eq!(b[4].0, "foret-prairie-2-4");
        assert_eq!(
            b[4].1,
            vec![
                ("zone".to_string(), "foret-prairie-2-4".to_string()),
                ("transname".to_string(), "foret-prairie".to_string()),
                ("transtype".to_string(), "CornerB".to_string()),
                ("transtype".to_string(), "CornerB".to_string()),
                ("transnum".to_string(), "7".to_string()),
            ]
        );
        assert!(BrickSource::from_stem("12_ab").is_none());
        // Seed S003 l.302: a dash in the cell name makes 4 tokens, which the script skips.
        assert!(BrickSource::from_stem("zonematerial-jungle-jungle-2").is_none());
        assert!(BrickSource::from_stem("zonespecial-a-b").is_none());
        assert!(BrickSource::from_stem("zonetransition-a-b").is_none());
        // filterString drops empty tokens.
        assert_eq!(
            BrickSource::from_stem("zonespecial--pont"),
            Some(BrickSource::Special {
                name: "pont".into()
            })
        );
    }

    #[test]
    fn escaping_follows_libxml2() {
        assert_eq!(
            s_node("a&b<c>\"d'é\tx").unwrap(),
            "<S>a&amp;b&lt;c&gt;\"d'&#xE9;\tx</S>"
        );
        assert_eq!(s_node("").unwrap(), "<S/>");
        assert!(s_node("a\u{1}").is_err());
    }
}
