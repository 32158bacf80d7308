//! The layers point one way (docs/architecture.md): server → protocol → runtime → state →
//! services → engine. This test reads the sources and fails when a layer imports one above it,
//! or when the engine uses an async runtime.

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    found
}

/// The lines of the files under `src/<layer>` that mention any of `forbidden`, comments left out.
fn offending(layer: &str, forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(layer);
    let mut found = Vec::new();
    for file in sources(&root) {
        let text = fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if forbidden.iter().any(|f| code.contains(f)) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn the_engine_imports_nothing_above_it_and_no_async_runtime() {
    let above = [
        "crate::services",
        "crate::state",
        "crate::runtime",
        "crate::protocol",
        "crate::server",
        "crate::app",
        "tokio",
    ];
    let found = offending("engine", &above);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn services_and_state_do_not_import_the_runtime_the_protocols_or_the_server() {
    let above = [
        "crate::runtime",
        "crate::protocol",
        "crate::server",
        "crate::app",
        "tokio",
    ];
    for layer in ["services", "state"] {
        let found = offending(layer, &above);
        assert!(found.is_empty(), "{layer}: {found:#?}");
    }
}

#[test]
fn the_runtime_does_not_import_the_protocols_or_the_server() {
    let found = offending("runtime", &["crate::protocol", "crate::server"]);
    assert!(found.is_empty(), "{found:#?}");
}
