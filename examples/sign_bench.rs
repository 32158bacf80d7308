//! SNS signatures without HTTP: the emulator's signer (RSA-2048, PKCS#1 v1.5) signing distinct
//! notification texts with SHA1 (SignatureVersion 1) and SHA256 (2), on one thread and then on
//! one thread per core at once. Prints the time a signature on the wall clock and on this
//! thread's CPU (the scheduler's own count, which a busy machine disturbs less), and the machine's
//! signing limit, which SNS Publish is measured against. See docs/benchmarks.md.
//!
//! ```text
//! cargo run --release --example sign_bench -- 2000
//! valgrind --tool=callgrind target/release/examples/sign_bench 20
//! ```

// A benchmark measures wall time, which clippy.toml's virtual-clock rule forbids everywhere else.
#![allow(clippy::disallowed_methods)]

use std::time::Instant;
use switchyard::services::sns::SIGNER;
use switchyard::services::sns::signing::SignatureVersion;

fn main() {
    let n: usize = match std::env::args().nth(1) {
        Some(n) => n.parse().expect("the number of signatures"),
        None => 2_000,
    };
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    for version in [SignatureVersion::V1, SignatureVersion::V2] {
        let (wall, cpu) = sign(version, n, "one");
        println!(
            "SignatureVersion {}: {:.1} µs a signature ({:.1} µs of CPU): {:.0} signatures/s on one core",
            version.as_str(),
            wall * 1e6,
            cpu * 1e6,
            1.0 / cpu
        );
        let started = Instant::now();
        std::thread::scope(|s| {
            for core in 0..cores {
                s.spawn(move || sign(version, n, &format!("core {core}")));
            }
        });
        let all = (n * cores) as f64 / started.elapsed().as_secs_f64();
        println!("  on {cores} threads at once: {all:.0} signatures/s (the signing limit)");
    }
}

/// Signs `n` texts no other call signs (the signer remembers recent ones), answering the
/// seconds a signature took on the wall clock and on this thread's CPU.
fn sign(version: SignatureVersion, n: usize, tag: &str) -> (f64, f64) {
    let text = |i: usize| {
        format!(
            "Message\nhello {tag} {i}\nMessageId\n{i:08}-0000-4000-8000-000000000000\nTimestamp\n2026-11-30T07:00:00.000Z\nTopicArn\narn:aws:sns:us-east-1:000000000000:bench\nType\nNotification\n"
        )
    };
    let (wall, cpu) = (Instant::now(), cpu_ns());
    for i in 0..n {
        std::hint::black_box(SIGNER.sign(version, &text(i)));
    }
    let per = |total: f64| total / n as f64;
    (
        per(wall.elapsed().as_secs_f64()),
        per((cpu_ns() - cpu) as f64 / 1e9),
    )
}

/// Nanoseconds this thread has spent on a CPU (Linux's `/proc/thread-self/schedstat`).
fn cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}
