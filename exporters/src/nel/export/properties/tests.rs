//! Decoding of AppData values against the plug-in's defaults and parsing.

use super::*;

#[test]
fn scalar_parsers() {
    assert_eq!(parse_int("10"), Some(10));
    assert_eq!(parse_int(" -3x"), Some(-3));
    assert_eq!(parse_int("1.0"), Some(1));
    assert_eq!(parse_int("abc"), None);
    assert_eq!(parse_float("1,5"), Some(1.5));
    assert_eq!(parse_float("nan"), None);
    assert_eq!(parse_rgba("1 2 300"), [1, 2, 255, 255]);
    assert_eq!(c_text(b"ab\0"), Some("ab".into()));
    assert_eq!(c_text(b"ab"), None);
}

fn entry(sub_id: u32, value: &[u8]) -> AppDataEntry {
    AppDataEntry {
        class_id: NEL_CLASS_ID,
        super_class: NEL_SUPER_CLASS,
        sub_id,
        size: value.len() as u32,
        value: value.to_vec(),
    }
}

fn node(appdata: Vec<AppDataEntry>) -> SceneObject {
    SceneObject {
        index: 0,
        chunk_id: 0,
        class: None,
        references: Vec::new(),
        appdata,
        node: None,
        note_keys: Vec::new(),
    }
}

#[test]
fn decodes_values_and_keeps_defaults_on_bad_input() {
    let n = node(vec![
        entry(id::ACCEL, b"10\0"),
        entry(id::LOD_NAME_COUNT, b"2\0"),
        entry(id::LOD_NAME + 1, b"lod1\0"),
        entry(id::LOD_DIST_MAX, b"oops\0"),
        entry(id::IGNAME, b"street_ig"),
        entry(id::EXPORT_LMC_AMBIENT_START + 3, b"10 20 30\0"),
        entry(id::VPWT_BIAS + 2, b"7\0"),
        entry(id::DONTEXPORT, b"1\0"),
        entry(77, b"x\0"),
    ]);
    let mut obj = node(vec![entry(id::INSTANCE_SHAPE, b"s\0h\0a\0p\0e\0\0\0")]);
    obj.index = 1;
    let p = NodeProperties::decode(&n, Some(&obj));
    assert_eq!(p.accel, 10);
    assert!(p.is_cluster() && p.script_is_accelerator());
    assert_eq!(p.lod_names, vec![String::new(), "lod1".to_string()]);
    assert_eq!(p.lod_dist_max, 1000.0, "bad float keeps the default");
    assert_eq!(p.ig_name, "", "a value without NUL keeps the default");
    assert_eq!(p.lmc_ambient[3], [10, 20, 30, 255]);
    assert_eq!(p.vpwt_bias, [500, 500, 7]);
    assert!(p.dont_export && p.script_is_one(id::DONTEXPORT));
    assert_eq!(p.instance_shape_object.as_deref(), Some("shape"));
    assert_eq!(p.warnings.len(), 3, "{:?}", p.warnings);
    assert_eq!(
        p.set,
        [
            "accel",
            "dont_export",
            "instance_shape_object",
            "lmc_ambient",
            "lod_names",
            "vpwt_bias"
        ]
    );
}
