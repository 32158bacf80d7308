//! One execution environment: a child process in a process group of its own, its Runtime API
//! listener, the reader of its output, and the task that waits for it to exit. Dropped, it
//! kills its process group.
//!
//! An invocation has two phases, as AWS's has:
//! - init, from the process's start (or the invocation's arrival at a warm environment) until the
//!   runtime fetches the event with `/next`. A cold start's init may take 10 seconds, and the
//!   function's timeout more (AWS runs an init that took longer again within the invocation,
//!   under the function's timeout): past that it fails as a timeout.
//! - the invocation, from `/next` until the runtime answers, limited by the function's timeout
//!   (in real time: a function's own clock runs in real time). A timeout kills the environment,
//!   as AWS's does, and ends the invocation with AWS's error document
//!   `{"errorMessage": "<time> <request id> Task timed out after 3.00 seconds"}`.
//!
//! A process that exits (or is killed) while an invocation is under way ends it with
//! `Runtime.ExitError` (`RequestId: <id> Error: Runtime exited with error: exit status 1`, or
//! `signal: killed`), in AWS's words.

use super::api::{self, Exchange, MAX_RESPONSE_BYTES, Reply, Task};
use super::launch::{Family, Launch, Refused};
use super::output::{self, Output, Report};
use super::sys::{self, Signal};
use super::{FunctionSpec, Invocation, Outcome};
use crate::clock::{Clock, Stopwatch};
use crate::engine::time::format_rfc3339;
use bytes::Bytes;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tokio::task::AbortHandle;

/// How long a cold start's init may take before the function's timeout starts counting too.
pub(super) const INIT_LIMIT: Duration = Duration::from_secs(10);

/// A running environment.
pub(super) struct Environment {
    /// The child's pid, which is also its process group's id.
    pub pid: u32,
    exchange: Arc<Exchange>,
    output: Arc<Output>,
    /// The child's exit status, once it has exited (and been reaped).
    exit: watch::Receiver<Option<ExitStatus>>,
    /// When the process was started: a cold start's Init Duration runs from here.
    spawned: Stopwatch,
    /// The Runtime API server and the output reader, stopped with the environment.
    tasks: [AbortHandle; 2],
}

/// How an invocation ended.
pub(super) struct Ran {
    pub outcome: Outcome,
    pub log: String,
    pub duration: Duration,
    /// The environment can take another invocation.
    pub usable: bool,
}

/// What ended a wait.
enum Ending {
    Reply(Reply),
    Exited(ExitStatus),
    TimedOut,
}

impl Environment {
    /// Starts `function`'s environment: its Runtime API listener, then its process (the loops are
    /// in `runtime_dir`). `request_id` is the invocation it starts for (AWS names it in the
    /// errors of a runtime that cannot start). Must be called from an async task (a runtime
    /// worker thread: see [`sys::die_with_parent`]).
    pub(super) async fn start(
        settings: &super::Settings,
        function: &FunctionSpec,
        runtime_dir: &std::path::Path,
        request_id: &str,
    ) -> Result<Arc<Environment>, Refused> {
        let unavailable = |what: &str, e: std::io::Error| Refused {
            error_type: "ServiceException".into(),
            message: format!("switchyard could not {what} for the function's environment: {e}"),
        };
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| unavailable("open the Runtime API listener", e))?;
        let address = listener
            .local_addr()
            .map_err(|e| unavailable("open the Runtime API listener", e))?;
        let launch = super::launch::plan(
            settings,
            function,
            &address.to_string(),
            runtime_dir,
            request_id,
        )?;
        let (reader, writer) = std::io::pipe().map_err(|e| unavailable("make a pipe", e))?;
        let spawned = Clock::stopwatch();
        let child = {
            let mut command = command(&launch);
            let stdout = writer
                .try_clone()
                .map_err(|e| unavailable("make a pipe", e))?;
            command
                .stdout(Stdio::from(stdout))
                .stderr(Stdio::from(writer));
            command.spawn()
            // The command, and with it this process's copies of the pipe's write end, is dropped
            // here: the pipe closes when the child and its children have all closed theirs.
        };
        let family = Family::of(&function.runtime);
        let mut child = child.map_err(|e| refused_spawn(&launch, family, request_id, e))?;
        let Some(pid) = child.id() else {
            return Err(unavailable(
                "start the process",
                std::io::ErrorKind::NotFound.into(),
            ));
        };
        let output = Output::new(reader.into()).map_err(|e| unavailable("read the output", e))?;
        let exchange = Exchange::new(output.clone());
        let server = tokio::spawn(api::serve(listener, exchange.clone()));
        let reader = tokio::spawn(output.clone().read_all());
        let (exited, exit) = watch::channel(None);
        tokio::spawn(async move {
            let status = child.wait().await;
            // What the runtime started in its group goes with it.
            sys::signal_group(pid, Signal::Kill);
            let status = status.unwrap_or_else(|_| killed());
            let _ = exited.send(Some(status));
        });
        Ok(Arc::new(Environment {
            pid,
            exchange,
            output,
            exit,
            spawned,
            tasks: [server.abort_handle(), reader.abort_handle()],
        }))
    }

    /// The process has not exited.
    pub(super) fn alive(&self) -> bool {
        self.exit.borrow().is_none()
    }

    /// Kills the process group now (SIGKILL).
    pub(super) fn kill(&self) {
        if self.alive() {
            sys::signal_group(self.pid, Signal::Kill);
        }
    }

    /// Asks the process group to stop (SIGTERM), and kills it after `grace`.
    pub(super) async fn stop(&self, grace: Duration) {
        if !self.alive() {
            return;
        }
        sys::signal_group(self.pid, Signal::Terminate);
        let mut exit = self.exit.clone();
        if Clock::within(grace, exited(&mut exit)).await.is_none() {
            self.kill();
            let _ = Clock::within(grace, exited(&mut exit)).await;
        }
    }

    /// Runs one invocation of `function` here; `cold` when this environment was started for it.
    pub(super) async fn run(
        &self,
        function: &FunctionSpec,
        invocation: Invocation,
        cold: bool,
    ) -> Ran {
        let request_id = invocation.request_id.clone();
        let (replies_tx, mut replies) = mpsc::unbounded_channel();
        let task = Task {
            request_id: request_id.clone(),
            payload: Bytes::from(invocation.payload),
            invoked_arn: function.invoked_arn.clone(),
            client_context: invocation.client_context.map(decode_client_context),
            trace_id: invocation.trace_id,
            timeout: function.timeout,
            replies: replies_tx,
        };
        let mut log = Log {
            request_id: &request_id,
            function,
            before: String::new(),
            failure: Vec::new(),
            init: None,
            status: None,
        };
        let offered = Clock::stopwatch();
        if let Err(document) = self.exchange.offer(task) {
            // The runtime reported an init error: every invocation here fails with it.
            let outcome = function_error(document.to_vec());
            return self.finish(log, outcome, offered.elapsed(), true);
        }
        let init_limit = match cold {
            true => INIT_LIMIT + function.timeout,
            false => function.timeout,
        };
        let (ending, invoked) = match self.wait(&mut replies, init_limit).await {
            Ending::Reply(Reply::Picked { before }) => {
                log.before = before;
                log.init = cold.then(|| self.spawned.elapsed());
                let invoked = Clock::stopwatch();
                (self.wait(&mut replies, function.timeout).await, invoked)
            }
            other => (other, offered),
        };
        let duration = invoked.elapsed();
        let (outcome, usable) = match ending {
            Ending::Reply(Reply::Response(body)) => (Outcome::Response(body.to_vec()), true),
            Ending::Reply(Reply::Error(document)) => (function_error(document.to_vec()), true),
            // AWS starts the next invocation's environment anew, init and all.
            Ending::Reply(Reply::InitError(document)) => (function_error(document.to_vec()), false),
            Ending::Reply(Reply::TooLarge) => (too_large(), true),
            // A second /next cannot hand out this invocation again.
            Ending::Reply(Reply::Picked { .. }) => (exit_error(&mut log, "unknown"), false),
            Ending::Exited(status) => (exit_error(&mut log, &exit_text(status)), false),
            Ending::TimedOut => {
                let line = format!(
                    "{} {} Task timed out after {:.2} seconds",
                    format_rfc3339(Clock::wall_millis()),
                    request_id,
                    function.timeout.as_secs_f64()
                );
                let document = serde_json::json!({ "errorMessage": line });
                log.failure.push(line);
                log.status = Some("timeout".into());
                (function_error(document.to_string().into_bytes()), false)
            }
        };
        if !usable {
            self.exchange.forget(&request_id);
        }
        self.finish(log, outcome, duration, usable)
    }

    /// Waits for the runtime's next reply, the process's exit, or `limit`.
    async fn wait(&self, replies: &mut mpsc::UnboundedReceiver<Reply>, limit: Duration) -> Ending {
        let mut exit = self.exit.clone();
        tokio::select! {
            // A runtime that answers and then exits has answered.
            biased;
            Some(reply) = replies.recv() => Ending::Reply(reply),
            status = exited(&mut exit) => Ending::Exited(status),
            () = Clock::sleep(limit) => Ending::TimedOut,
        }
    }

    /// The invocation's log and result; a failed environment is killed.
    fn finish(&self, log: Log<'_>, outcome: Outcome, duration: Duration, usable: bool) -> Ran {
        let max_memory_mb = output::max_memory_mb(self.pid);
        let during = self.output.take(true);
        if !usable {
            self.kill();
        }
        let report = Report {
            request_id: log.request_id,
            duration,
            memory_mb: log.function.memory_mb,
            max_memory_mb,
            init: log.init,
            status: log.status.as_deref(),
        };
        let mut text = log.before;
        text.push_str(&format!(
            "START RequestId: {} Version: {}\n",
            log.request_id, log.function.version
        ));
        text.push_str(&during);
        for line in &log.failure {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(&format!("END RequestId: {}\n", log.request_id));
        text.push_str(&report.line());
        text.push('\n');
        Ran {
            outcome,
            log: text,
            duration,
            usable: usable && self.alive(),
        }
    }
}

impl Drop for Environment {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
        self.kill();
    }
}

/// What an invocation's log holds besides the process's lines.
struct Log<'a> {
    request_id: &'a str,
    function: &'a FunctionSpec,
    /// The lines written before the event was handed out.
    before: String,
    /// switchyard's own lines about a failure (a timeout, an exit), before END.
    failure: Vec<String>,
    /// The init's duration, on a cold start.
    init: Option<Duration>,
    /// REPORT's status, when the invocation failed so.
    status: Option<String>,
}

/// Resolves with the process's exit status once it has exited.
async fn exited(exit: &mut watch::Receiver<Option<ExitStatus>>) -> ExitStatus {
    match exit.wait_for(Option::is_some).await {
        Ok(status) => (*status).unwrap_or_else(killed),
        // The waiting task is gone (the runtime is shutting down): as good as killed.
        Err(_) => killed(),
    }
}

fn killed() -> ExitStatus {
    use std::os::unix::process::ExitStatusExt;
    ExitStatus::from_raw(libc::SIGKILL)
}

/// The process of `launch`, in a process group of its own, killed with switchyard.
fn command(launch: &Launch) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(&launch.program);
    command
        .args(&launch.args)
        .env_clear()
        .envs(&launch.env)
        .current_dir(&launch.cwd)
        .stdin(Stdio::null())
        .process_group(0)
        .kill_on_drop(true);
    sys::die_with_parent(&mut command);
    command
}

/// Why the process of `launch` could not be started, as AWS says it of a bootstrap (Go's
/// `fork/exec <path>: <reason>`), or of an interpreter.
fn refused_spawn(
    launch: &Launch,
    family: Option<Family>,
    request_id: &str,
    e: std::io::Error,
) -> Refused {
    let reason = e.to_string();
    let reason = reason
        .split(" (os error")
        .next()
        .unwrap_or_default()
        .to_lowercase();
    let program = launch.program.display();
    match family {
        Some(Family::Provided) => {
            Refused::entrypoint(request_id, format!("fork/exec {program}: {reason}"))
        }
        _ => Refused {
            error_type: "Runtime.InvalidRuntime".into(),
            message: format!("the interpreter {program} could not be started: {reason}"),
        },
    }
}

/// An `Invocation`'s client context is base64 JSON (the Invoke API's `X-Amz-Client-Context`);
/// the runtime gets the JSON.
fn decode_client_context(encoded: String) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(encoded.as_bytes())
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or(encoded)
}

fn function_error(payload: Vec<u8>) -> Outcome {
    Outcome::FunctionError {
        payload,
        kind: "Unhandled".into(),
    }
}

fn too_large() -> Outcome {
    let document = serde_json::json!({
        "errorMessage": format!(
            "Response payload size exceeded maximum allowed payload size ({MAX_RESPONSE_BYTES} bytes)."
        ),
        "errorType": "Function.ResponseSizeTooLarge",
    });
    function_error(document.to_string().into_bytes())
}

/// AWS's `Runtime.ExitError`, with its lines in the log.
fn exit_error(log: &mut Log<'_>, how: &str) -> Outcome {
    let message = format!(
        "RequestId: {} Error: Runtime exited with error: {how}",
        log.request_id
    );
    log.failure.push(message.clone());
    log.failure.push("Runtime.ExitError".into());
    log.status = Some("error\tError Type: Runtime.ExitError".into());
    let document = serde_json::json!({ "errorType": "Runtime.ExitError", "errorMessage": message });
    function_error(document.to_string().into_bytes())
}

/// An exit status as AWS (Go) writes it: `exit status 1`, `signal: killed`.
fn exit_text(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    let Some(signal) = status.signal() else {
        return "unknown".into();
    };
    let name = match signal {
        libc::SIGHUP => "hangup",
        libc::SIGINT => "interrupt",
        libc::SIGQUIT => "quit",
        libc::SIGILL => "illegal instruction",
        libc::SIGABRT => "aborted",
        libc::SIGBUS => "bus error",
        libc::SIGFPE => "floating point exception",
        libc::SIGKILL => "killed",
        libc::SIGSEGV => "segmentation fault",
        libc::SIGPIPE => "broken pipe",
        libc::SIGALRM => "alarm clock",
        libc::SIGTERM => "terminated",
        other => return format!("signal: signal {other}"),
    };
    format!("signal: {name}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn exit_statuses_read_as_go_writes_them() {
        assert_eq!(exit_text(ExitStatus::from_raw(1 << 8)), "exit status 1");
        assert_eq!(
            exit_text(ExitStatus::from_raw(libc::SIGKILL)),
            "signal: killed"
        );
        assert_eq!(
            exit_text(ExitStatus::from_raw(libc::SIGSEGV)),
            "signal: segmentation fault"
        );
    }

    #[test]
    fn a_client_context_reaches_the_runtime_as_json() {
        assert_eq!(decode_client_context("eyJhIjoxfQ==".into()), r#"{"a":1}"#);
        assert_eq!(decode_client_context("not base64!".into()), "not base64!");
    }
}
