//! Finding a Bitmap's image file as 3ds Max and the NeL pipeline do, and
//! turning it into PNG bytes to embed in the GLB.
//!
//! A `.max` stores the path the artist picked (`C:\art\maps\crate.tga`), which
//! rarely exists where the file is read. Max then tries the same name in the
//! scene's folder and in its configured map paths; the NeL pipeline looks the
//! base name up in its search paths. Here, in order, on a case-insensitive
//! file system view (Windows paths):
//! 1. the stored path itself (with `\` as a separator);
//! 2. the stored path's trailing components below the `.max`'s folder, longest
//!    first (`maps/crate.tga`, then `crate.tga`): a checkout moved as a whole;
//! 3. the base name anywhere below the `.max`'s folder, then below each search
//!    root (`--maps DIR`), nearest first — bounded in depth and entries.
//!
//! glTF only knows PNG and JPEG; every image is decoded with the `image` crate
//! (TGA, BMP, JPEG, PNG, GIF, TIFF), or `image_formats` (PSD, DDS), and
//! re-encoded as PNG, so the pixels are kept and the GLB is self-contained.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::image_formats::{self, ImageFormatError};

/// Where image files are looked for.
#[derive(Debug, Clone, Default)]
pub struct TextureSearch {
    /// The folder of the `.max` being exported, when it has one.
    pub max_dir: Option<PathBuf>,
    /// Further folders searched (recursively) for a texture's base name.
    pub roots: Vec<PathBuf>,
    /// Every resolution made through this search, when set: what an export
    /// depends on outside its source (a cache of the export must check them).
    pub log: Option<ResolutionLog>,
}

/// One lookup: the stored path and the file it resolved to (`None`: not found).
pub type Resolution = (String, Option<PathBuf>);

/// The lookups made through a search, in the order first asked.
#[derive(Debug, Clone, Default)]
pub struct ResolutionLog(std::sync::Arc<std::sync::Mutex<Vec<Resolution>>>);

impl ResolutionLog {
    fn note(&self, stored: &str, found: Option<&Path>) {
        let mut v = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !v.iter().any(|(s, _)| s == stored) {
            v.push((stored.to_string(), found.map(Path::to_path_buf)));
        }
    }

    /// The resolutions made so far.
    pub fn entries(&self) -> Vec<Resolution> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

/// Directory levels searched below a folder for a base name.
const MAX_DEPTH: usize = 8;
/// Directory entries visited per searched folder tree (a huge root stays bounded).
const MAX_ENTRIES: usize = 200_000;
/// Largest image accepted (pixels per side) and decode allocation budget.
const MAX_SIDE: u32 = 16_384;
const MAX_ALLOC: u64 = 512 << 20;

/// Why a texture was not embedded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TextureError {
    #[error("not found (stored path {stored:?}; looked beside and below {searched})")]
    NotFound { stored: String, searched: String },
    #[error("{path}: cannot read: {reason}")]
    Read { path: String, reason: String },
    #[error("{path}: cannot decode as an image: {reason}")]
    Decode { path: String, reason: String },
}

/// The entry of `dir` named `name`, exact or else ignoring ASCII case.
fn child_ci(dir: &Path, name: &str) -> Option<PathBuf> {
    let exact = dir.join(name);
    if exact.exists() {
        return Some(exact);
    }
    let rd = std::fs::read_dir(dir).ok()?;
    let mut hits: Vec<PathBuf> = rd
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        })
        .map(|e| e.path())
        .collect();
    hits.sort();
    hits.into_iter().next()
}

/// `components` below `dir`, each matched ignoring case.
fn below_ci(dir: &Path, components: &[&str]) -> Option<PathBuf> {
    let mut cur = dir.to_path_buf();
    for c in components {
        cur = child_ci(&cur, c)?;
    }
    cur.is_file().then_some(cur)
}

/// The first file named `name` (ignoring case) below `root`, breadth first,
/// entries of a folder in name order.
fn find_below(root: &Path, name: &str) -> Option<PathBuf> {
    let mut level = vec![root.to_path_buf()];
    let mut visited = 0;
    for _ in 0..=MAX_DEPTH {
        let mut next = Vec::new();
        for dir in &level {
            let Ok(rd) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut entries: Vec<_> = rd.flatten().collect();
            visited += entries.len();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                let p = e.path();
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                if is_dir {
                    next.push(p);
                } else if e
                    .file_name()
                    .to_str()
                    .is_some_and(|n| n.eq_ignore_ascii_case(name))
                {
                    return Some(p);
                }
            }
            if visited > MAX_ENTRIES {
                return None;
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    None
}

impl TextureSearch {
    /// The image file of a Bitmap's stored path (noted in the log, if any).
    pub fn resolve(&self, stored: &str) -> Result<PathBuf, TextureError> {
        let r = self.find(stored);
        if let Some(log) = &self.log {
            log.note(stored, r.as_deref().ok());
        }
        r
    }

    fn find(&self, stored: &str) -> Result<PathBuf, TextureError> {
        let parts: Vec<&str> = stored
            .split(['\\', '/'])
            .filter(|c| !c.is_empty() && *c != ".")
            .collect();
        let not_found = || TextureError::NotFound {
            stored: stored.to_string(),
            searched: std::iter::once(self.max_dir.as_deref())
                .flatten()
                .chain(self.roots.iter().map(PathBuf::as_path))
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        };
        let Some(base) = parts.last().copied() else {
            return Err(not_found());
        };
        let direct = Path::new(&stored.replace('\\', "/")).to_path_buf();
        if direct.is_absolute() && direct.is_file() {
            return Ok(direct);
        }
        if let Some(dir) = &self.max_dir {
            // Trailing components, longest first; a drive ("C:") never matches a folder.
            for k in (0..parts.len()).rev() {
                let tail = &parts[k..];
                if tail.first().is_some_and(|c| c.ends_with(':') || *c == "..") {
                    continue;
                }
                if let Some(p) = below_ci(dir, tail) {
                    return Ok(p);
                }
            }
        }
        for root in self.max_dir.iter().chain(&self.roots) {
            if let Some(p) = find_below(root, base) {
                return Ok(p);
            }
        }
        Err(not_found())
    }
}

/// Decodes an image file and encodes it as PNG (same pixels, same channels
/// where PNG has them).
pub fn to_png(path: &Path) -> Result<Vec<u8>, TextureError> {
    let img = decode(path)?;
    png(&img).map_err(|e| TextureError::Decode {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}

/// Decodes an image file (within the size limits); float images come back
/// as 16-bit RGBA, which PNG holds.
pub fn decode(path: &Path) -> Result<image::DynamicImage, TextureError> {
    let shown = path.display().to_string();
    let data = std::fs::read(path).map_err(|e| TextureError::Read {
        path: shown.clone(),
        reason: e.to_string(),
    })?;
    let decode = |reason: String| TextureError::Decode {
        path: shown.clone(),
        reason,
    };
    if let Some(kind) = image_formats::sniff(&data) {
        let (w, h) = image_formats::dimensions(kind, &data).map_err(|e| decode(e.to_string()))?;
        check_size(w, h).map_err(|e| decode(e.to_string()))?;
        return image_formats::decode(kind, &data).map_err(|e| decode(e.to_string()));
    }
    let mut reader = image::ImageReader::new(std::io::Cursor::new(&data));
    // TGA has no signature: the extension decides, then the content may.
    match image::ImageFormat::from_path(path) {
        Ok(f) => reader.set_format(f),
        Err(_) => {
            reader = reader
                .with_guessed_format()
                .map_err(|e| decode(e.to_string()))?
        }
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits);
    let img = reader.decode().map_err(|e| decode(e.to_string()))?;
    Ok(match img {
        image::DynamicImage::ImageRgb32F(_) | image::DynamicImage::ImageRgba32F(_) => {
            image::DynamicImage::ImageRgba16(img.to_rgba16())
        }
        other => other,
    })
}

/// PNG bytes of a decoded image.
pub(super) fn png(img: &image::DynamicImage) -> Result<Vec<u8>, ImageFormatError> {
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png)
        .map_err(|e| ImageFormatError::Png(e.to_string()))?;
    Ok(out.into_inner())
}

/// Within the side limit and the decode budget (RGBA8).
fn check_size(w: u32, h: u32) -> Result<(), ImageFormatError> {
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
        return Err(ImageFormatError::Side {
            w,
            h,
            max: MAX_SIDE,
        });
    }
    if u64::from(w) * u64::from(h) * 4 > MAX_ALLOC {
        return Err(ImageFormatError::Budget {
            w,
            h,
            budget: MAX_ALLOC,
        });
    }
    Ok(())
}

/// Reads only an image's header: whether `to_png` can be expected to decode
/// it (format known, size within the limits). Cheap enough for listings.
pub fn probe(path: &Path) -> Result<(), TextureError> {
    let shown = path.display().to_string();
    let decode = |reason: String| TextureError::Decode {
        path: shown.clone(),
        reason,
    };
    let read = |e: std::io::Error| TextureError::Read {
        path: shown.clone(),
        reason: e.to_string(),
    };
    let mut head = Vec::with_capacity(32);
    std::io::Read::read_to_end(
        &mut std::io::Read::take(std::fs::File::open(path).map_err(read)?, 32),
        &mut head,
    )
    .map_err(read)?;
    if let Some(kind) = image_formats::sniff(&head) {
        let (w, h) = image_formats::dimensions(kind, &head).map_err(|e| decode(e.to_string()))?;
        return check_size(w, h).map_err(|e| decode(e.to_string()));
    }
    let mut reader = image::ImageReader::open(path).map_err(|e| TextureError::Read {
        path: shown.clone(),
        reason: e.to_string(),
    })?;
    match image::ImageFormat::from_path(path) {
        Ok(f) => reader.set_format(f),
        Err(_) => {
            reader = reader
                .with_guessed_format()
                .map_err(|e| decode(e.to_string()))?
        }
    }
    let (w, h) = reader
        .into_dimensions()
        .map_err(|e| decode(e.to_string()))?;
    if w > MAX_SIDE || h > MAX_SIDE {
        return Err(decode(format!(
            "{w}×{h} is over the {MAX_SIDE} pixel limit"
        )));
    }
    Ok(())
}

/// Resolved and converted textures of one export, by stored path.
#[derive(Debug, Default)]
pub struct TextureCache {
    done: BTreeMap<String, Result<(PathBuf, Vec<u8>), TextureError>>,
}

impl TextureCache {
    /// The PNG bytes of a stored path's image (resolved once per export).
    pub fn get(
        &mut self,
        search: &TextureSearch,
        stored: &str,
    ) -> &Result<(PathBuf, Vec<u8>), TextureError> {
        self.done.entry(stored.to_string()).or_insert_with(|| {
            let p = search.resolve(stored)?;
            let png = to_png(&p)?;
            Ok((p, png))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_windows_path_found_by_tail_and_name_ignoring_case() {
        let dir = tempfile::tempdir().expect("tmp");
        let maps = dir.path().join("Maps");
        std::fs::create_dir_all(maps.join("deep")).expect("mkdir");
        std::fs::write(maps.join("Crate.TGA"), b"x").expect("write");
        std::fs::write(maps.join("deep/wood.png"), b"x").expect("write");
        let s = TextureSearch {
            max_dir: Some(dir.path().to_path_buf()),
            ..Default::default()
        };
        assert_eq!(
            s.resolve(r"C:\art\maps\crate.tga").expect("tail"),
            maps.join("Crate.TGA")
        );
        assert_eq!(
            s.resolve(r"D:\elsewhere\WOOD.png").expect("below"),
            maps.join("deep/wood.png")
        );
        let e = s.resolve(r"C:\art\missing.tga").expect_err("missing");
        assert!(e.to_string().contains("missing.tga"), "{e}");
        assert!(s.resolve("").is_err());
    }
}
