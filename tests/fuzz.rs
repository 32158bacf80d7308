//! The fuzz targets (`switchyard::fuzz`) over the committed corpus and every input a fuzzer
//! crashed on (`fuzz/regressions/<target>/`), in the plain test suite: a parser that panics on
//! one of them again fails here, without a fuzzer. The bounded fuzzer run of the test command
//! is `fuzz/run` (docs/fuzzing.md).

use std::fs;
use std::path::Path;

#[test]
fn every_target_takes_its_corpus_and_its_regressions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    for (name, target) in switchyard::fuzz::TARGETS {
        let corpus = root.join("corpus").join(name);
        let seeds = fs::read_dir(&corpus).map(Iterator::count).unwrap_or(0);
        assert!(
            seeds > 0,
            "{name} has no seed corpus in {}",
            corpus.display()
        );
        for dir in [corpus, root.join("regressions").join(name)] {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                let input = fs::read(&path).unwrap();
                let run = std::panic::catch_unwind(|| target(&input));
                assert!(run.is_ok(), "{name} panicked on {}", path.display());
            }
        }
    }
}
