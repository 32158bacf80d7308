//! The layers point one way (docs/architecture.md): server → protocol → runtime → dispatch →
//! services → state → engine. This test reads the sources and fails when a layer imports one
//! above it, or when the engine uses an async runtime. Test code (a file's `#[cfg(test)] mod`
//! at its end, `tests.rs` and `*_tests.rs`) may drive a layer from above, as the runtime would. The engine is a crate of its own (crates/engine),
//! which the compiler already keeps from importing the root crate; the test also checks that
//! the manifests keep it that way.

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

/// The lines of the files under `dir` (`src/<layer>`, `crates/engine/src`) that mention any of
/// `forbidden`, comments and test code left out.
fn offending(dir: &str, forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut found = Vec::new();
    for file in sources(&root) {
        let name = file.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let text = fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let tests_start = lines
            .windows(2)
            .position(|w| {
                w[0].trim() == "#[cfg(test)]" && w[1].starts_with("mod ") && w[1].ends_with('{')
            })
            .unwrap_or(lines.len());
        for (n, line) in lines[..tests_start].iter().enumerate() {
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
        "switchyard::",
    ];
    // The delivery lines' tracing target is the module path they had in the root crate
    // (engine/log.rs): a string, not an import.
    let target = r#"target: "switchyard::engine::log","#;
    let found: Vec<String> = offending("crates/engine/src", &above)
        .into_iter()
        .filter(|line| !line.ends_with(target))
        .collect();
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_state_imports_no_service_and_no_layer_above_them() {
    let above = [
        "crate::services",
        "crate::dispatch",
        "crate::runtime",
        "crate::protocol",
        "crate::server",
        "crate::app",
        "tokio",
    ];
    let found = offending("src/state", &above);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_services_do_not_import_the_dispatcher_the_runtime_the_protocols_or_the_server() {
    let above = [
        "crate::dispatch",
        "crate::runtime",
        "crate::protocol",
        "crate::server",
        "crate::app",
        "tokio",
    ];
    let found = offending("src/services", &above);
    assert!(found.is_empty(), "{found:#?}");
    // The reading works: the services do import the state below them.
    assert!(!offending("src/services", &["crate::state"]).is_empty());
}

#[test]
fn the_dispatcher_does_not_import_the_runtime_the_protocols_or_the_server() {
    let above = [
        "crate::runtime",
        "crate::protocol",
        "crate::server",
        "tokio",
    ];
    let found = offending("src/dispatch", &above);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_runtime_does_not_import_the_protocols_or_the_server() {
    let found = offending("src/runtime", &["crate::protocol", "crate::server"]);
    assert!(found.is_empty(), "{found:#?}");
}

/// Every `Cargo.toml` of the repository, build output and hidden folders left out.
fn manifests(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                found.extend(manifests(&path));
            }
        } else if name == "Cargo.toml" {
            found.push(path);
        }
    }
    found
}

/// The packages a manifest depends on, in any dependency table (`[dependencies]`,
/// `[dev-dependencies]`, `[target.'…'.dependencies]`, ...; not `[workspace.dependencies]`, which
/// only declares versions): each entry's key, or its `package = "…"` when it renames one.
fn dependencies(manifest: &Path) -> Vec<String> {
    let text = fs::read_to_string(manifest).unwrap();
    let (mut found, mut in_table) = (Vec::new(), false);
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.starts_with('[') {
            let table = line.trim_matches(['[', ']']);
            in_table = table.ends_with("dependencies") && !table.starts_with("workspace");
        } else if in_table && let Some((key, value)) = line.split_once('=') {
            let key = key.trim().trim_end_matches(".workspace").trim_matches('"');
            let renamed = value
                .split_once("package")
                .and_then(|(_, rest)| rest.split('"').nth(1));
            found.push(renamed.unwrap_or(key).to_string());
        }
    }
    found
}

#[test]
fn only_the_root_crate_depends_on_the_engine_crate_and_the_engine_on_nothing_of_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let engine = root.join("crates/engine/Cargo.toml");
    let engine_deps = dependencies(&engine);
    assert!(
        engine_deps.contains(&"serde".to_string()),
        "dependencies not read: {engine_deps:?}"
    );
    assert!(
        !engine_deps.iter().any(|d| d.starts_with("switchyard")),
        "{engine_deps:?}"
    );
    let dependents: Vec<PathBuf> = manifests(root)
        .into_iter()
        .filter(|m| dependencies(m).iter().any(|d| d == "switchyard-engine"))
        .collect();
    assert_eq!(dependents, [root.join("Cargo.toml")]);
}
