//! How long a restart takes on a large `--state-dir`: N queued 1 KiB messages (SendMessageBatch
//! over 64 connections) into an emulator keeping its state, then a stop and a start on the same
//! directory, timed until it answers; with the store's size on disk and a check that every
//! message is still there; then the state written as a snapshot file and read back, each timed.
//! See docs/benchmarks.md ("State directory", "State snapshots at depth").
//!
//! ```text
//! cargo run --release --example state_reload -- --messages 1000000
//! ```
//! Options: --messages N (a multiple of 10; 1000000), --dir DIR (a fresh temporary directory).

// A measurement reads wall time, which clippy.toml's virtual-clock rule forbids elsewhere.
#![allow(clippy::disallowed_methods)]

mod loadgen;

use loadgen::*;
use serde_json::json;
use std::time::Instant;

fn main() {
    check_options(&["messages", "dir"], "state_reload");
    let n: usize = arg("messages", 1_000_000);
    let dir: String = arg(
        "dir",
        std::env::temp_dir()
            .join(format!("switchyard-reload-{}", std::process::id()))
            .display()
            .to_string(),
    );
    let dir = std::path::PathBuf::from(dir);
    let _ = std::fs::remove_dir_all(&dir);
    let config = || switchyard::Config {
        state_dir: Some(dir.clone()),
        ..switchyard::Config::for_tests()
    };
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let filled = rt.block_on(async {
        let emulator = switchyard::Emulator::start(config()).await.expect("start");
        let addr = emulator.addr();
        let mut admin = Conn::open(addr).await;
        let created = admin
            .ok(&sqs_json("CreateQueue", json!({"QueueName": "reload"})))
            .await;
        let url = created["QueueUrl"].as_str().expect("QueueUrl").to_string();
        let started = Instant::now();
        let kib = "x".repeat(1024);
        fill_batches(addr, &url, n, &kib, 64, None)
            .await
            .expect("fill");
        let took = started.elapsed();
        emulator.stop().await.expect("stop");
        took
    });
    let size: u64 = std::fs::read_dir(&dir)
        .expect("state dir")
        .filter_map(|e| e.ok()?.metadata().ok())
        .map(|m| m.len())
        .sum();
    let (took, depth) = rt.block_on(async {
        let started = Instant::now();
        let emulator = switchyard::Emulator::start(config())
            .await
            .expect("restart");
        let mut admin = Conn::open(emulator.addr()).await;
        let took = started.elapsed();
        let url = format!("http://{}/000000000000/reload", emulator.addr());
        let input = json!({"QueueUrl": url, "AttributeNames": ["ApproximateNumberOfMessages"]});
        let attributes = admin.ok(&sqs_json("GetQueueAttributes", input)).await;
        let depth = attributes["Attributes"]["ApproximateNumberOfMessages"].clone();
        let started = Instant::now();
        let file = emulator.state_snapshot();
        let wrote = started.elapsed();
        let started = Instant::now();
        emulator
            .app()
            .read_snapshot(&file)
            .expect("the snapshot reads back");
        let read = started.elapsed();
        println!(
            "snapshot: {:.0} MB written in {:.2} s, read in {:.2} s",
            file.len() as f64 / 1e6,
            wrote.as_secs_f64(),
            read.as_secs_f64()
        );
        emulator.stop().await.expect("stop");
        (took, depth)
    });
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "{n} messages of 1 KiB: filled in {:.1} s ({:.0} messages/s); store {:.0} MiB; \
         restart until it answers {:.2} s; depth after the restart {depth}",
        filled.as_secs_f64(),
        n as f64 / filled.as_secs_f64(),
        size as f64 / (1 << 20) as f64,
        took.as_secs_f64(),
    );
}
