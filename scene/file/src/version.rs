//! Max release names of the Scene stream's root chunk id. Each name agrees
//! with the version Max wrote into DocumentSummaryInformation ("3ds Max
//! Version: 25.00" is 3ds Max 2023: releases from 10 on are named 1998 + N) in
//! the files that carry it (tests/tests/corpus/scene_corpus.rs); 0x2004 is
//! also written by Max 4 ("3ds max Version: 4.0") and 0x2028 by Max 2023
//! (nine files of four unrelated projects, docs/unseen-files.md); in the
//! fourth sweep's public files 0x2014 carries 14.00 (Max 2012, two files),
//! 0x2027 24.00 (Max 2022, five files of three projects) and 0x2029 both
//! 26.00 and 27.00 (Max 2024 and 2025, 45 and 7 files); in the sixth
//! sweep's 0x2013 carries 13.00 (Max 2011, eight files of two projects).

/// The release that writes this root chunk id, when known. Ids are sparse; an id
/// not listed is reported as unknown, never rejected.
pub fn release_name(id: u16) -> Option<&'static str> {
    Some(match id {
        0x2004 => "3ds Max 3/4",
        0x2006 => "3ds Max 4",
        0x2008 => "3ds Max 5",
        0x2009 => "3ds Max 6",
        0x200A => "3ds Max 7",
        0x200B => "3ds Max 8",
        0x200E => "3ds Max 9",
        0x200F => "3ds Max 2008",
        0x2011 => "3ds Max 2009",
        0x2012 => "3ds Max 2010",
        0x2013 => "3ds Max 2011",
        0x2014 => "3ds Max 2012",
        0x2017 => "3ds Max 2013",
        0x2019 => "3ds Max 2014",
        0x2020 => "3ds Max 2015",
        0x2021 => "3ds Max 2016",
        0x2022 => "3ds Max 2017",
        0x2023 => "3ds Max 2018/2019",
        0x2025 => "3ds Max 2020",
        0x2026 => "3ds Max 2021",
        0x2027 => "3ds Max 2022",
        0x2028 => "3ds Max 2023",
        0x2029 => "3ds Max 2024/2025",
        0x2031 => "3ds Max 2026",
        _ => return None,
    })
}

/// "3ds Max 2010 (0x2012)" or "unknown (0x2042)".
pub fn describe(id: u16) -> String {
    match release_name(id) {
        Some(n) => format!("{n} ({id:#06x})"),
        None => format!("unknown ({id:#06x})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Root chunk ids against the "3ds Max Version" Max wrote beside them in
    /// public files outside the corpus (docs/unseen-files.md, fourth and
    /// sixth sweeps):
    /// each name must contain the release 1998 + N.
    #[test]
    fn names_agree_with_versions_saved_in_public_files() {
        for (id, saved) in [
            (0x2013, 13),
            (0x2014, 14),
            (0x2027, 24),
            (0x2028, 25),
            (0x2029, 26),
            (0x2029, 27),
            (0x2031, 28),
        ] {
            let name = release_name(id).unwrap_or_else(|| panic!("{id:#06x} not named"));
            let year = (1998 + saved).to_string();
            assert!(
                name.trim_start_matches("3ds Max ")
                    .split('/')
                    .any(|r| r == year),
                "{id:#06x}: {name}, saved by {year}"
            );
        }
        assert_eq!(describe(0x2042), "unknown (0x2042)");
    }
}
