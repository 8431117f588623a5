use maxfs_scene::{chunk, container::MaxFile};
fn main() {
    for a in std::env::args().skip(1) {
        match MaxFile::open(a.as_ref()) {
            Ok(f) => {
                println!("{a}: clsid {:02x?}", f.clsid);
                for s in &f.streams {
                    let r = chunk::parse(&s.data);
                    println!(
                        "  {:?} {} stored {} gz {} chunked {:?}",
                        s.name,
                        s.data.len(),
                        s.stored_len,
                        s.compressed,
                        r.as_ref()
                            .map(|c| (
                                c.len(),
                                chunk::count(c),
                                c.first().map(|x| format!("{:04x}", x.id))
                            ))
                            .map_err(|e| e.to_string())
                    );
                    if let Ok(c) = r {
                        assert_eq!(chunk::write(&c), s.data);
                    }
                }
            }
            Err(e) => println!("{a}: ERR {e}"),
        }
    }
}
