//! Integration tests: protocol files.

/// Every example protocol in `protocols/` parses and validates.
#[test]
fn every_example_protocol_validates() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("protocols");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().and_then(|e| e.to_str()) == Some("toml") {
            pledge::protocol::load(&p).unwrap_or_else(|e| panic!("{}: {}", p.display(), e));
            n += 1;
        }
    }
    assert!(n >= 2, "expected at least two example protocols, found {}", n);
}
