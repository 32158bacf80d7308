//! The environments run for real: Python (`python3` on PATH), Node.js (`node` on PATH) and
//! provided runtimes whose bootstrap is a Python script. Each test has its own folder and pool.

mod lifetime;
mod node;
mod provided;
mod python;

use super::*;
use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::AtomicU64;

/// A folder of the test's own, removed when it ends.
pub(super) struct Scratch(pub PathBuf);

impl Scratch {
    pub(super) fn new(name: &str) -> Scratch {
        static N: AtomicU64 = AtomicU64::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!(
            "switchyard-lambda-{name}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    /// Writes `text` to `name` under the folder (making its folders), executable if asked.
    pub(super) fn write(&self, name: &str, text: &str, executable: bool) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.0.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        let mode = if executable { 0o755 } else { 0o644 };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The real Python interpreter behind `python3` on PATH (which may be a pyenv shim: naming the
/// interpreter itself saves the shim's start on every cold start).
pub(super) fn python() -> PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON
        .get_or_init(|| {
            let out = std::process::Command::new("python3")
                .args(["-c", "import sys; print(sys.executable)"])
                .output()
                .expect("python3 on PATH");
            PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
        })
        .clone()
}

/// A pool whose loops go to `scratch`, with the machine's Python and `node` from PATH.
pub(super) fn environments(scratch: &Scratch, idle: Duration) -> Arc<Environments> {
    Environments::new(Settings {
        interpreters: BTreeMap::from([("python3".to_string(), python())]),
        idle,
        work_dir: scratch.0.join("work"),
    })
}

/// A function whose code is `scratch/code`.
pub(super) fn function(scratch: &Scratch, runtime: &str, handler: &str) -> FunctionSpec {
    let name = format!("fn-{}", scratch.0.file_name().unwrap().to_string_lossy());
    let arn = format!("arn:aws:lambda:us-east-1:000000000000:function:{name}");
    FunctionSpec {
        function_name: name,
        function_arn: arn.clone(),
        invoked_arn: arn,
        version: "$LATEST".into(),
        runtime: runtime.into(),
        handler: handler.into(),
        code: scratch.0.join("code"),
        layers: Vec::new(),
        environment: BTreeMap::new(),
        memory_mb: 128,
        timeout: Duration::from_secs(10),
        region: "us-east-1".into(),
        account: "000000000000".into(),
        endpoint_url: "http://127.0.0.1:4566".into(),
        // A new handler or runtime is a new configuration.
        revision: format!("{runtime} {handler}"),
        max_environments: 10,
    }
}

pub(super) fn invocation(payload: &str) -> Invocation {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::SeqCst);
    Invocation {
        request_id: format!("00000000-0000-4000-8000-{n:012}"),
        payload: payload.as_bytes().to_vec(),
        client_context: None,
        trace_id: None,
    }
}

/// The JSON the handler answered; panics with the log otherwise.
pub(super) fn response(invoked: &Invoked) -> Value {
    match &invoked.outcome {
        Outcome::Response(body) => serde_json::from_slice(body).unwrap(),
        other => panic!("not a response: {other:?}\n{}", invoked.log),
    }
}

/// The error document of a function error; panics with the log otherwise.
pub(super) fn function_error(invoked: &Invoked) -> Value {
    match &invoked.outcome {
        Outcome::FunctionError { payload, kind } => {
            assert_eq!(kind, "Unhandled");
            serde_json::from_slice(payload).unwrap()
        }
        other => panic!("not a function error: {other:?}\n{}", invoked.log),
    }
}

/// Waits (real time, bounded) until `check` holds.
pub(super) async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    for _ in 0..100 {
        if check() {
            return;
        }
        crate::clock::Clock::sleep(Duration::from_millis(50)).await;
    }
    panic!("{what}: not after 5 s");
}

/// The lines of a log from START to END, each without its newline.
pub(super) fn between_start_and_end(log: &str) -> Vec<&str> {
    let lines: Vec<&str> = log.lines().collect();
    let start = lines.iter().position(|l| l.starts_with("START ")).unwrap();
    let end = lines.iter().position(|l| l.starts_with("END ")).unwrap();
    lines[start + 1..end].to_vec()
}

/// Whether process `pid` is gone (or a zombie, dead but not yet reaped by whoever adopted it).
pub(super) fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

pub(super) fn is_dir(path: &Path) -> bool {
    path.is_dir()
}

/// The caller runs invocations on a multi-threaded runtime (spawned tasks, request handlers).
#[test]
fn the_pool_and_its_invocations_can_move_between_threads() {
    fn send_sync<T: Send + Sync>(_: &T) {}
    fn send<T: Send>(_: &T) {}
    let scratch = Scratch::new("send");
    let envs = environments(&scratch, Duration::from_secs(1));
    send_sync(&envs);
    let f = function(&scratch, "python3.12", "app.handler");
    send(&envs.invoke(&f, invocation("{}")));
    send(&envs.stop_function("arn"));
    send(&envs.shutdown());
}
