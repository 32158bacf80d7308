//! The `switchyard` binary as a user starts it: what it says when it cannot start.

use std::net::TcpListener;
use std::process::Command;

/// A port already taken: the binary names the address and suggests `--port 0`, and exits
/// with a failure (it does not hang or panic).
#[test]
fn a_port_in_use_names_the_address_and_suggests_port_zero() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_switchyard"))
        .args(["--host", "127.0.0.1", "--port", &port])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = format!("cannot listen on 127.0.0.1:{port}: the port is in use");
    assert!(stderr.contains(&expected), "{stderr}");
    assert!(stderr.contains("--port 0"), "{stderr}");
    assert!(out.stdout.is_empty(), "no ready line: {:?}", out.stdout);
}
