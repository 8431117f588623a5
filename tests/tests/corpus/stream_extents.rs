//! Plain streams are served in place (issue 11): `streams/X` of a stream that
//! is not gzip-compressed is read from the source file along its sector chain,
//! without loading (or copying) the file. The reference for every byte is the
//! container reader (`cfb`, through `MaxFile`), which reads the same streams
//! its own way.

use std::path::Path;

use maxfs_fs::names::escape_stream_name;
use maxfs_fs::{MaxFs, Options};
use maxfs_scene::container::MaxFile;
use maxfs_tests::{corpus_dir, corpus_max_files};

#[test]
fn plain_streams_read_in_place_equal_the_container_reader() {
    let root = corpus_dir();
    let fs = MaxFs::new(&root, Options::default());
    let (mut plain, mut bytes) = (0usize, 0usize);
    let mut compressed = Vec::new();
    for path in corpus_max_files() {
        let file = MaxFile::open(&path).expect("corpus file opens");
        let rel = path.strip_prefix(&root).expect("under the corpus");
        for s in &file.streams {
            let at = rel.join("streams").join(escape_stream_name(&s.name));
            if s.compressed || s.error.is_some() {
                compressed.push((at, s.data.clone()));
                continue;
            }
            let got = fs
                .read(&at)
                .unwrap_or_else(|e| panic!("{}: {e}", at.display()));
            assert!(got == s.data, "{}: bytes differ", at.display());
            plain += 1;
            bytes += got.len();
        }
    }
    assert!(plain > 500, "{plain} plain streams");
    // Not one file was loaded to serve them: every plain stream of the corpus
    // was mapped and read in place.
    assert_eq!(
        fs.document_loads(),
        0,
        "{plain} plain streams, {bytes} bytes"
    );
    // Compressed streams still inflate through the load, and read the same.
    for (at, data) in &compressed {
        let got = fs.read(Path::new(at)).expect("compressed stream reads");
        assert!(got == *data, "{}: bytes differ", at.display());
    }
    assert!(fs.document_loads() > 0);
}

/// A source overwritten in place between the lookup and the read of a plain
/// stream gives an error, never bytes of the new file under the old version.
#[test]
fn a_rewritten_source_is_not_read_through_an_old_stream_entry() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = corpus_dir().join("max/ryzomcore/street.max");
    let copy = dir.path().join("s.max");
    std::fs::copy(&src, &copy).expect("copy");
    let fs = MaxFs::new(dir.path(), Options::default());
    let file = MaxFile::open(&src).expect("corpus");
    let s = file
        .streams
        .iter()
        .find(|s| !s.compressed && s.data.len() > 1000)
        .expect("a plain stream");
    let at = Path::new("s.max/streams").join(escape_stream_name(&s.name));
    let entry = fs.lookup(&at).expect("stream entry");
    assert_eq!(fs.read(&at).expect("reads"), s.data);
    // Same length, other bytes, a later mtime: an in-place rewrite.
    let mut other = std::fs::read(&copy).expect("read");
    for b in other.iter_mut() {
        *b = !*b;
    }
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&copy, &other).expect("rewrite in place");
    let content = fs.open(&entry).expect("opens");
    let read = content.read_at(0, 1 << 20);
    let checked = fs.check_unchanged(&entry, content.file().expect("read in place"));
    assert!(
        read.is_err() || checked.is_err(),
        "the old entry served the rewritten file"
    );
}
