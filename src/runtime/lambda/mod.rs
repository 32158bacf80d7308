//! Lambda's execution environments, run on this machine without containers: each is a child
//! process running the function's own code, talking to a Lambda Runtime API that switchyard
//! serves it. The Lambda API, the function store and the unpacking of code are the caller's;
//! this module is handed a function (its unpacked code folder, its configuration) and an
//! invocation, and answers what the handler answered, with the invocation's log.
//!
//! What AWS does (the Lambda developer guide: "Lambda execution environment", "Using the Lambda
//! runtime API for custom runtimes", "Defining Lambda function handlers in Python / Node.js",
//! "Using Lambda environment variables"), and what switchyard does for it:
//!
//! - **An environment** is a sandbox that runs one invocation at a time: an init phase (the
//!   runtime starts and loads the handler), then invocations, each fetched by the runtime from
//!   the Runtime API (`GET .../invocation/next`) and answered to it. Here it is a child process
//!   in a process group of its own, with AWS's environment variables (`launch.rs`), its working
//!   directory the code folder, and a Runtime API listener of its own on 127.0.0.1 (`api.rs`).
//! - **Runtimes.** `provided.al2023`, `provided.al2` and `provided` run the function's
//!   `bootstrap`, as AWS does; `python3.*` and `nodejs*` run switchyard's own runtime loops (a
//!   Python file and an ES module, written to [`Settings::work_dir`]) with the interpreter
//!   [`Settings::interpreters`] names, else `python3` or `node` on PATH. The interpreter is this
//!   machine's, whatever version the runtime name says. A runtime switchyard cannot start (a
//!   missing interpreter or bootstrap, a runtime of another language) is
//!   [`Outcome::NotStarted`], with AWS's `Runtime.InvalidEntrypoint` for a bootstrap.
//! - **Warm and cold starts.** AWS keeps an environment after an invocation and reuses it for
//!   the function's next one; it starts a new one when all are busy, up to the function's
//!   concurrency, and throttles beyond. So does switchyard (`pool.rs`): environments are kept by
//!   function ARN, version and revision (a revision changes with code or configuration, and an
//!   older one's environments are not reused), an idle one is stopped after [`Settings::idle`]
//!   (AWS's is a few minutes and unspecified), and [`FunctionSpec::max_environments`] caps them.
//! - **Logs.** AWS writes each invocation's lines between `START RequestId: <id> Version: <v>` and
//!   `END RequestId: <id>`, then a `REPORT` line with the duration, the billed duration (whole
//!   milliseconds, rounded up), the memory size, the peak memory used, and on a cold start the
//!   init's duration. switchyard does, from the process's stdout and stderr (`output.rs`); peak
//!   memory is the process's `VmHWM` on Linux, 0 elsewhere.
//! - **Errors** (`environment.rs`): the function's timeout is real time; a timed out
//!   environment is killed, as AWS's is; a runtime that exits under an invocation ends it with
//!   `Runtime.ExitError`. An error posted to `/init/error` (the loops post AWS's
//!   `Runtime.ImportModuleError`, `Runtime.UserCodeSyntaxError` ... there) answers the invocation
//!   waiting, and the environment is stopped: as AWS does, the next invocation runs the init
//!   again in a new one. An answer over 6 MB fails the invocation with
//!   `Function.ResponseSizeTooLarge` and the environment goes on.
//! - **Handlers** (the loops, `python_loop.py` and `node_loop.mjs`): the event is the payload
//!   decoded from JSON, the context has AWS's fields, the answer is the return value encoded
//!   (`None` / `undefined` is `null`), and an exception is AWS's error document. A Node.js
//!   handler with a callback answers when it calls it (AWS waits for the event loop to empty
//!   first, unless `callbackWaitsForEmptyEventLoop` is false).
//! - **Lifetime.** Environments never outlive switchyard: [`Environments::shutdown`] stops them
//!   (SIGTERM to the process group, SIGKILL after a short grace), a dropped environment is
//!   killed, and on Linux each child gets SIGKILL when switchyard dies, even by `kill -9`
//!   (`PR_SET_PDEATHSIG`, `sys.rs`); the runtime loops also end as soon as the Runtime API is gone.
//!
//! What switchyard does not do: isolate the function (it runs as switchyard's user, on this
//! machine's files and network), cap its memory (the memory size is only reported), freeze an
//! idle environment between invocations, run extensions, the Telemetry API or
//! `AWS_LAMBDA_EXEC_WRAPPER` scripts, or count the init in the billed duration.
//!
//! The runtime layer: it uses the clock and the engine's leaves, nothing of the protocols or the
//! server.

mod api;
mod environment;
mod launch;
mod output;
mod pool;
mod sys;

pub use api::MAX_RESPONSE_BYTES;
pub use launch::INTERPRETER_HINT;

use environment::Environment;
use launch::Refused;
use output::Report;
use pool::{Acquired, Key, Pool, Released};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

/// How long a stopped environment has between SIGTERM and SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_millis(500);

/// How environments are run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Interpreter per runtime name prefix or exact name ("python3.12" → a path), falling back to `python3` / `node` on PATH.
    pub interpreters: BTreeMap<String, PathBuf>,
    /// How long an idle warm environment is kept before it is stopped (real time).
    pub idle: Duration,
    /// A folder switchyard owns, where the runtime loops (bootstrap scripts) are written.
    pub work_dir: PathBuf,
}

/// The function an invocation is for, as its environment needs it.
#[derive(Debug, Clone)]
pub struct FunctionSpec {
    pub function_name: String,
    /// Unqualified.
    pub function_arn: String,
    /// What the caller named (qualified or not): `Lambda-Runtime-Invoked-Function-Arn`.
    pub invoked_arn: String,
    /// "$LATEST" or "1" ...
    pub version: String,
    /// "python3.12", "nodejs20.x", "provided.al2023", "provided.al2", ...
    pub runtime: String,
    /// "app.handler" (python/node); anything for provided.
    pub handler: String,
    /// The unpacked code folder (LAMBDA_TASK_ROOT).
    pub code: PathBuf,
    /// Unpacked layers, each laid out as AWS lays out /opt (python/, nodejs/node_modules, bin/,
    /// lib/), in order.
    pub layers: Vec<PathBuf>,
    /// The function's Environment.Variables.
    pub environment: BTreeMap<String, String>,
    pub memory_mb: u32,
    pub timeout: Duration,
    pub region: String,
    pub account: String,
    /// switchyard's own URL: AWS_ENDPOINT_URL in the environment.
    pub endpoint_url: String,
    /// Changes when code or configuration change: environments of an older revision are not
    /// reused (stopped when idle).
    pub revision: String,
    /// Concurrency cap for this function (reserved concurrency or the account's).
    pub max_environments: u32,
}

/// One invocation.
#[derive(Debug, Clone)]
pub struct Invocation {
    pub request_id: String,
    pub payload: Vec<u8>,
    /// Base64 JSON, passed (decoded) as Lambda-Runtime-Client-Context.
    pub client_context: Option<String>,
    pub trace_id: Option<String>,
}

/// How an invocation ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The handler's answer (bytes the runtime posted to /response).
    Response(Vec<u8>),
    /// A function error: AWS's error document ({"errorMessage","errorType","stackTrace"...}),
    /// and its type for the X-Amz-Function-Error header ("Unhandled").
    FunctionError { payload: Vec<u8>, kind: String },
    /// Every allowed environment is busy (TooManyRequestsException, Reason
    /// ReservedFunctionConcurrentInvocationLimitExceeded or ConcurrentInvocationLimitExceeded:
    /// the caller decides the reason).
    Throttled,
    /// The runtime could not be started at all: a missing interpreter, a bootstrap that is
    /// missing or not executable ... with a message naming the cause (the caller answers it as
    /// AWS would, e.g. Runtime.InvalidEntrypoint / a clear InvalidRuntime message).
    NotStarted { error_type: String, message: String },
}

/// An invocation's result.
#[derive(Debug, Clone)]
pub struct Invoked {
    pub outcome: Outcome,
    /// The invocation's log as AWS writes it: "START RequestId: <id> Version: <v>", what the
    /// function wrote (stdout and stderr lines), "END RequestId: <id>", "REPORT RequestId:
    /// <id>\tDuration: 12.34 ms\tBilled Duration: 13 ms\tMemory Size: 128 MB\tMax Memory Used:
    /// <n> MB\t(Init Duration: 123.45 ms when cold)".
    pub log: String,
    pub duration: Duration,
    pub cold: bool,
}

/// The pool of every function's environments.
pub struct Environments {
    settings: Settings,
    pool: Mutex<Pool<Environment>>,
    /// `LAMBDA_RUNTIME_DIR`, once the runtime loops are written there.
    runtime_dir: Mutex<Option<PathBuf>>,
    /// [`Environments::shutdown`] was called: nothing starts any more.
    closed: AtomicBool,
    this: Weak<Environments>,
}

impl pool::Alive for Environment {
    fn alive(&self) -> bool {
        Environment::alive(self)
    }
}

impl Environments {
    pub fn new(settings: Settings) -> Arc<Environments> {
        Arc::new_cyclic(|this| Environments {
            settings,
            pool: Mutex::new(Pool::new()),
            runtime_dir: Mutex::new(None),
            closed: AtomicBool::new(false),
            this: this.clone(),
        })
    }

    fn pool(&self) -> MutexGuard<'_, Pool<Environment>> {
        self.pool.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs one invocation: a warm idle environment of the same function and revision if there
    /// is one, else a new one (cold start) if fewer than max_environments are running for that
    /// function, else Outcome::Throttled at once.
    pub async fn invoke(&self, function: &FunctionSpec, invocation: Invocation) -> Invoked {
        let key = Key {
            function_arn: function.function_arn.clone(),
            version: function.version.clone(),
            revision: function.revision.clone(),
        };
        let (acquired, stale) = self.pool().acquire(&key, function.max_environments);
        stop_in_background(stale);
        let (id, warm) = match acquired {
            Acquired::Throttled => {
                return Invoked {
                    outcome: Outcome::Throttled,
                    log: String::new(),
                    duration: Duration::ZERO,
                    cold: false,
                };
            }
            Acquired::Warm { id, env } => (id, Some(env)),
            Acquired::Cold { id } => (id, None),
        };
        // From here the slot is this invocation's: if the caller gives up on it (the future is
        // dropped), the claim frees the slot and kills the environment.
        let mut claim = Claim {
            pool: self,
            id,
            armed: true,
        };
        let (env, cold) = match warm {
            Some(env) => (env, false),
            None => match self.start(id, function, &invocation.request_id).await {
                Ok(env) => (env, true),
                Err(refused) => {
                    drop(claim);
                    return not_started(function, &invocation.request_id, refused);
                }
            },
        };
        let ran = env.run(function, invocation, cold).await;
        claim.armed = false;
        self.release(id, ran.usable);
        Invoked {
            outcome: ran.outcome,
            log: ran.log,
            duration: ran.duration,
            cold,
        }
    }

    /// Starts the environment of slot `id`.
    async fn start(
        &self,
        id: u64,
        function: &FunctionSpec,
        request_id: &str,
    ) -> Result<Arc<Environment>, Refused> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(Refused {
                error_type: "ServiceException".into(),
                message: "switchyard is shutting down".into(),
            });
        }
        let runtime_dir = self.runtime_dir()?;
        let env = Environment::start(&self.settings, function, &runtime_dir, request_id).await?;
        if !self.pool().started(id, env.clone()) {
            // The function was stopped while it started.
            env.kill();
            return Err(Refused {
                error_type: "ResourceConflictException".into(),
                message: "The function was stopped while its environment started".into(),
            });
        }
        Ok(env)
    }

    /// The invocation in slot `id` ended: the environment is kept idle (and stopped after the idle
    /// time if unused), or stopped.
    fn release(&self, id: u64, usable: bool) {
        let released = self.pool().release(id, usable);
        match released {
            Released::Idle { uses } => {
                let this = self.this.clone();
                let idle = self.settings.idle;
                tokio::spawn(async move {
                    crate::clock::Clock::sleep(idle).await;
                    let Some(envs) = this.upgrade() else {
                        return;
                    };
                    let expired = envs.pool().expire(id, uses);
                    if let Some(env) = expired {
                        env.stop(STOP_GRACE).await;
                    }
                });
            }
            Released::Stop(env) => stop_in_background(env.into_iter().collect()),
            Released::Gone => {}
        }
    }

    /// The folder of the runtime loops, written the first time it is needed.
    fn runtime_dir(&self) -> Result<PathBuf, Refused> {
        let mut written = self
            .runtime_dir
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(dir) = written.as_ref() {
            return Ok(dir.clone());
        }
        let dir = self.settings.work_dir.join("lambda-runtime");
        write_loops(&dir).map_err(|e| Refused {
            error_type: "ServiceException".into(),
            message: format!(
                "switchyard could not write its runtime loops to {}: {e}",
                dir.display()
            ),
        })?;
        *written = Some(dir.clone());
        Ok(dir)
    }

    /// Stops every environment of a function (deleted or updated): the idle ones now (SIGTERM,
    /// then SIGKILL after [`STOP_GRACE`]), the busy ones when their invocation ends.
    pub async fn stop_function(&self, function_arn: &str) {
        let envs = self.pool().take_function(function_arn);
        stop_all(envs).await;
    }

    /// Stops every environment, busy ones included (their invocations end with
    /// `Runtime.ExitError`); new ones start as before (the emulator was reset).
    pub async fn stop_all(&self) {
        let envs = self.pool().take_all();
        stop_all(envs).await;
    }

    /// Stops every environment, busy ones included (their invocations end with
    /// `Runtime.ExitError`), and starts no more.
    pub async fn shutdown(&self) {
        self.closed.store(true, Ordering::SeqCst);
        let envs = self.pool().take_all();
        stop_all(envs).await;
    }

    /// Environments alive now, or starting (for tests and the console).
    pub fn running(&self) -> usize {
        self.pool().running()
    }
}

/// A slot taken by an invocation under way; dropped before it ends (the caller's future was
/// dropped), it removes the slot and kills its environment.
struct Claim<'a> {
    pool: &'a Environments,
    id: u64,
    /// The invocation has not ended.
    armed: bool,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let env = self.pool.pool().remove(self.id);
        if let Some(env) = env {
            env.kill();
        }
    }
}

/// Writes the runtime loops into `dir` (each through a temporary file, so that a process
/// starting meanwhile never reads half a file).
fn write_loops(dir: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let loops = [
        (launch::PYTHON_LOOP_FILE, launch::PYTHON_LOOP),
        (launch::NODE_LOOP_FILE, launch::NODE_LOOP),
    ];
    for (name, text) in loops {
        let path = dir.join(name);
        let temporary = dir.join(format!(".{name}.{}", std::process::id()));
        std::fs::write(&temporary, text)?;
        std::fs::rename(&temporary, &path)?;
    }
    Ok(())
}

fn stop_in_background(envs: Vec<Arc<Environment>>) {
    for env in envs {
        tokio::spawn(async move { env.stop(STOP_GRACE).await });
    }
}

async fn stop_all(envs: Vec<Arc<Environment>>) {
    let mut stopping = tokio::task::JoinSet::new();
    for env in envs {
        stopping.spawn(async move { env.stop(STOP_GRACE).await });
    }
    while stopping.join_next().await.is_some() {}
}

/// The answer to an invocation whose environment could not start, with its log.
fn not_started(function: &FunctionSpec, request_id: &str, refused: Refused) -> Invoked {
    let report = Report {
        request_id,
        duration: Duration::ZERO,
        memory_mb: function.memory_mb,
        max_memory_mb: 0,
        init: None,
        status: None,
    };
    let log = format!(
        "START RequestId: {request_id} Version: {}\n{}\n{}\nEND RequestId: {request_id}\n{}\n",
        function.version,
        refused.message,
        refused.error_type,
        report.line()
    );
    Invoked {
        outcome: Outcome::NotStarted {
            error_type: refused.error_type,
            message: refused.message,
        },
        log,
        duration: Duration::ZERO,
        cold: true,
    }
}

#[cfg(test)]
mod tests;
