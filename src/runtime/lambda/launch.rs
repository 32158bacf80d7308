//! What an environment's process is: the program, its arguments and its environment variables.
//!
//! - `provided.al2023`, `provided.al2`, `provided`: the function's own `bootstrap` (AWS runs
//!   `/var/task/bootstrap`, else `/opt/bootstrap`). Layers are unpacked each in a folder of its
//!   own here, where AWS merges them into `/opt` in order (a later layer's file replacing an
//!   earlier one's), so the bootstrap of the last layer that has one stands for `/opt/bootstrap`.
//! - `python3.*`: switchyard's Python loop ([`PYTHON_LOOP`]), run by the interpreter named for
//!   the runtime in [`Settings::interpreters`] or `python3` on PATH, unbuffered (`-u`, as AWS's
//!   runtime makes stdout and stderr).
//! - `nodejs*`: switchyard's Node.js loop ([`NODE_LOOP`]), run by the interpreter named, or `node`.
//!
//! The environment is AWS's (the developer guide's "Using Lambda environment variables"), with the
//! paths of this machine: `LAMBDA_TASK_ROOT` is the code folder (also the working directory),
//! `LAMBDA_RUNTIME_DIR` the folder of switchyard's loops, `/opt` each layer's folder. Of the
//! parent's environment only `PATH` and `HOME` are kept. The function's own variables come on
//! top, except the keys AWS reserves, which stay switchyard's.

use super::{FunctionSpec, Settings};
use crate::clock::Clock;
use crate::engine::rng::Rng;
use crate::engine::time::format_rfc3339;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// switchyard's runtime loop for `python3.*` functions.
pub(super) const PYTHON_LOOP: &str = include_str!("python_loop.py");

/// switchyard's runtime loop for `nodejs*` functions.
pub(super) const NODE_LOOP: &str = include_str!("node_loop.mjs");

/// The file names the loops are written under, in `LAMBDA_RUNTIME_DIR`.
pub(super) const PYTHON_LOOP_FILE: &str = "python_loop.py";
pub(super) const NODE_LOOP_FILE: &str = "node_loop.mjs";

/// What the message of a missing interpreter suggests.
pub const INTERPRETER_HINT: &str = "name one with --lambda-runtime <runtime>=<interpreter>";

/// The keys AWS reserves ("Defined runtime environment variables"): a function's own variables
/// cannot set them.
const RESERVED: [&str; 18] = [
    "_HANDLER",
    "_X_AMZN_TRACE_ID",
    "AWS_DEFAULT_REGION",
    "AWS_REGION",
    "AWS_EXECUTION_ENV",
    "AWS_LAMBDA_FUNCTION_NAME",
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
    "AWS_LAMBDA_FUNCTION_VERSION",
    "AWS_LAMBDA_INITIALIZATION_TYPE",
    "AWS_LAMBDA_LOG_GROUP_NAME",
    "AWS_LAMBDA_LOG_STREAM_NAME",
    "AWS_ACCESS_KEY",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_LAMBDA_RUNTIME_API",
    "LAMBDA_TASK_ROOT",
    "LAMBDA_RUNTIME_DIR",
];

/// The kinds of runtime switchyard runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Family {
    Python,
    Node,
    Provided,
}

impl Family {
    pub(super) fn of(runtime: &str) -> Option<Family> {
        if runtime.starts_with("python3") {
            Some(Family::Python)
        } else if runtime.starts_with("nodejs") {
            Some(Family::Node)
        } else if runtime.starts_with("provided") {
            Some(Family::Provided)
        } else {
            None
        }
    }
}

/// Why a process cannot be started: `Outcome::NotStarted`'s fields.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Refused {
    pub error_type: String,
    pub message: String,
}

impl Refused {
    fn new(error_type: &str, message: String) -> Refused {
        Refused {
            error_type: error_type.to_string(),
            message,
        }
    }

    /// AWS's answer to a bootstrap it cannot run.
    pub(super) fn entrypoint(request_id: &str, cause: String) -> Refused {
        let message = format!("RequestId: {request_id} Error: {cause}");
        Refused::new("Runtime.InvalidEntrypoint", message)
    }
}

/// A process to start.
#[derive(Debug)]
pub(super) struct Launch {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub env: BTreeMap<String, String>,
    pub cwd: PathBuf,
}

/// The process of `function`'s environment: `api` is its Runtime API's `host:port`,
/// `runtime_dir` the folder the loops are written in.
pub(super) fn plan(
    settings: &Settings,
    function: &FunctionSpec,
    api: &str,
    runtime_dir: &Path,
    request_id: &str,
) -> Result<Launch, Refused> {
    let Some(family) = Family::of(&function.runtime) else {
        let message = format!(
            "switchyard runs python3.*, nodejs* and provided* functions on this machine; {} is not one of them",
            function.runtime
        );
        return Err(Refused::new("Runtime.InvalidRuntime", message));
    };
    let (program, args) = match family {
        Family::Provided => (bootstrap(function, request_id)?, Vec::new()),
        Family::Python => {
            let python = interpreter(settings, &function.runtime, "python3")?;
            let script = runtime_dir.join(PYTHON_LOOP_FILE);
            (python, vec!["-u".into(), script.into_os_string()])
        }
        Family::Node => {
            let node = interpreter(settings, &function.runtime, "node")?;
            (
                node,
                vec![runtime_dir.join(NODE_LOOP_FILE).into_os_string()],
            )
        }
    };
    Ok(Launch {
        program,
        args,
        env: environment(function, family, api, runtime_dir),
        cwd: function.code.clone(),
    })
}

/// The provided runtime's `bootstrap`: the code's, else the last layer's that has one.
fn bootstrap(function: &FunctionSpec, request_id: &str) -> Result<PathBuf, Refused> {
    let candidates: Vec<PathBuf> = std::iter::once(&function.code)
        .chain(function.layers.iter().rev())
        .map(|dir| dir.join("bootstrap"))
        .collect();
    let Some(found) = candidates.iter().find(|p| p.is_file()) else {
        let names: Vec<String> = candidates.iter().map(|p| p.display().to_string()).collect();
        let cause = format!("Couldn't find valid bootstrap(s): [{}]", names.join(" "));
        return Err(Refused::entrypoint(request_id, cause));
    };
    if !is_executable(found) {
        let cause = format!("fork/exec {}: permission denied", found.display());
        return Err(Refused::entrypoint(request_id, cause));
    }
    Ok(found.clone())
}

/// The interpreter of `runtime`: the one named for it (exact name first, then the longest name
/// it starts with: "python3.12", then "python3", then "python"), else `default` on PATH.
fn interpreter(settings: &Settings, runtime: &str, default: &str) -> Result<PathBuf, Refused> {
    let named = settings.interpreters.get(runtime).or_else(|| {
        settings
            .interpreters
            .iter()
            .filter(|(prefix, _)| runtime.starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, path)| path)
    });
    let Some(named) = named else {
        return on_path(Path::new(default)).ok_or_else(|| {
            let message = format!(
                "{default} was not found on PATH: install it, or {INTERPRETER_HINT} ({runtime})"
            );
            Refused::new("Runtime.InvalidRuntime", message)
        });
    };
    let found = match named.components().count() {
        1 => on_path(named),
        _ => Some(named.clone()).filter(|p| p.is_file() && is_executable(p)),
    };
    found.ok_or_else(|| {
        let message = format!(
            "the interpreter {} named for {runtime} was not found or is not executable",
            named.display()
        );
        Refused::new("Runtime.InvalidRuntime", message)
    })
}

/// `name` in the first folder of switchyard's PATH that has it as an executable file.
fn on_path(name: &Path) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file() && is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

/// The process's environment variables.
fn environment(
    function: &FunctionSpec,
    family: Family,
    api: &str,
    runtime_dir: &Path,
) -> BTreeMap<String, String> {
    let code = &function.code;
    let layers = &function.layers;
    let shown = |p: &Path| p.to_string_lossy().into_owned();
    let mut env = BTreeMap::new();
    // What a function may change.
    let parent_path = std::env::var("PATH").unwrap_or_default();
    let mut path: Vec<String> = std::env::split_paths(&parent_path)
        .filter(|p| !p.as_os_str().is_empty())
        .map(|p| shown(&p))
        .collect();
    path.extend(layers.iter().map(|l| shown(&l.join("bin"))));
    path.push(shown(&code.join("bin")));
    env.insert("PATH".into(), path.join(":"));
    let mut libraries = vec![shown(code), shown(&code.join("lib"))];
    libraries.extend(layers.iter().map(|l| shown(&l.join("lib"))));
    env.insert("LD_LIBRARY_PATH".into(), libraries.join(":"));
    if let Ok(home) = std::env::var("HOME") {
        env.insert("HOME".into(), home);
    }
    env.insert("LANG".into(), "en_US.UTF-8".into());
    env.insert("TZ".into(), ":UTC".into());
    env.insert("AWS_ENDPOINT_URL".into(), function.endpoint_url.clone());
    // A later layer's files stand over an earlier one's (AWS merges them into /opt in order):
    // the layers are searched last first.
    match family {
        Family::Python => {
            let mut dirs = vec![shown(code)];
            for layer in layers.iter().rev() {
                let python = layer.join("python");
                let site = python.join("lib").join(&function.runtime);
                dirs.push(shown(&site.join("site-packages")));
                dirs.push(shown(&python));
            }
            env.insert("PYTHONPATH".into(), dirs.join(":"));
        }
        Family::Node => {
            let major = function.runtime.trim_start_matches("nodejs");
            let major = major.split('.').next().unwrap_or_default();
            let mut dirs = Vec::new();
            for layer in layers.iter().rev() {
                let nodejs = layer.join("nodejs");
                dirs.push(shown(
                    &nodejs.join(format!("node{major}")).join("node_modules"),
                ));
                dirs.push(shown(&nodejs.join("node_modules")));
            }
            dirs.push(shown(code));
            env.insert("NODE_PATH".into(), dirs.join(":"));
        }
        Family::Provided => {}
    }
    for (key, value) in &function.environment {
        if !RESERVED.contains(&key.as_str()) {
            env.insert(key.clone(), value.clone());
        }
    }
    // What is switchyard's.
    let reserved = [
        ("_HANDLER", function.handler.clone()),
        ("LAMBDA_TASK_ROOT", shown(code)),
        ("LAMBDA_RUNTIME_DIR", shown(runtime_dir)),
        ("AWS_LAMBDA_RUNTIME_API", api.to_string()),
        ("AWS_LAMBDA_FUNCTION_NAME", function.function_name.clone()),
        ("AWS_LAMBDA_FUNCTION_VERSION", function.version.clone()),
        (
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE",
            function.memory_mb.to_string(),
        ),
        ("AWS_LAMBDA_INITIALIZATION_TYPE", "on-demand".to_string()),
        (
            "AWS_LAMBDA_LOG_GROUP_NAME",
            format!("/aws/lambda/{}", function.function_name),
        ),
        (
            "AWS_LAMBDA_LOG_STREAM_NAME",
            log_stream_name(&function.version),
        ),
        ("AWS_REGION", function.region.clone()),
        ("AWS_DEFAULT_REGION", function.region.clone()),
        ("AWS_ACCESS_KEY_ID", access_key(&function.account)),
        ("AWS_SECRET_ACCESS_KEY", "test".to_string()),
        ("AWS_SESSION_TOKEN", "test".to_string()),
    ];
    env.extend(reserved.map(|(k, v)| (k.to_string(), v)));
    // AWS leaves it out for the OS-only runtimes (the provided family).
    if family != Family::Provided {
        let execution = format!("AWS_Lambda_{}", function.runtime);
        env.insert("AWS_EXECUTION_ENV".into(), execution);
    }
    env
}

/// The function's access key: its account's id (switchyard takes a 12-digit key as the account
/// a request acts in), else `test`, like the secret key and the session token.
fn access_key(account: &str) -> String {
    match account.len() == 12 && account.bytes().all(|b| b.is_ascii_digit()) {
        true => account.to_string(),
        false => "test".to_string(),
    }
}

/// AWS's shape of a log stream's name: `2024/05/01/[$LATEST]` and 32 hex digits.
fn log_stream_name(version: &str) -> String {
    static STREAMS: AtomicU64 = AtomicU64::new(0);
    let now = Clock::wall_millis();
    let n = STREAMS.fetch_add(1, Ordering::Relaxed);
    let seed = (now as u64) ^ n.rotate_left(40) ^ u64::from(std::process::id()).rotate_left(20);
    let id = Rng::new(seed).uuid().replace('-', "");
    let day = format_rfc3339(now);
    let day = day.get(..10).unwrap_or_default().replace('-', "/");
    format!("{day}/[{version}]{id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(runtime: &str) -> FunctionSpec {
        FunctionSpec {
            function_name: "f".into(),
            function_arn: "arn:aws:lambda:us-east-1:111111111111:function:f".into(),
            invoked_arn: "arn:aws:lambda:us-east-1:111111111111:function:f".into(),
            version: "$LATEST".into(),
            runtime: runtime.into(),
            handler: "app.handler".into(),
            code: "/code".into(),
            layers: vec!["/layer1".into(), "/layer2".into()],
            environment: BTreeMap::from([
                ("MINE".to_string(), "1".to_string()),
                ("AWS_REGION".to_string(), "mars-1".to_string()),
                ("TZ".to_string(), "Europe/Paris".to_string()),
            ]),
            memory_mb: 256,
            timeout: std::time::Duration::from_secs(3),
            region: "eu-west-1".into(),
            account: "111111111111".into(),
            endpoint_url: "http://127.0.0.1:4566".into(),
            revision: "r1".into(),
            max_environments: 10,
        }
    }

    #[test]
    fn the_environment_is_aws_s_with_the_function_s_own_on_top_but_not_over_reserved_keys() {
        let env = environment(
            &spec("python3.12"),
            Family::Python,
            "127.0.0.1:9",
            Path::new("/rt"),
        );
        assert_eq!(env["_HANDLER"], "app.handler");
        assert_eq!(env["AWS_REGION"], "eu-west-1");
        assert_eq!(env["AWS_DEFAULT_REGION"], "eu-west-1");
        assert_eq!(env["TZ"], "Europe/Paris");
        assert_eq!(env["MINE"], "1");
        assert_eq!(env["LAMBDA_TASK_ROOT"], "/code");
        assert_eq!(env["LAMBDA_RUNTIME_DIR"], "/rt");
        assert_eq!(env["AWS_LAMBDA_RUNTIME_API"], "127.0.0.1:9");
        assert_eq!(env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"], "256");
        assert_eq!(env["AWS_LAMBDA_LOG_GROUP_NAME"], "/aws/lambda/f");
        assert_eq!(env["AWS_EXECUTION_ENV"], "AWS_Lambda_python3.12");
        assert_eq!(env["AWS_ACCESS_KEY_ID"], "111111111111");
        assert_eq!(env["AWS_SECRET_ACCESS_KEY"], "test");
        assert_eq!(env["AWS_ENDPOINT_URL"], "http://127.0.0.1:4566");
        assert_eq!(env["LANG"], "en_US.UTF-8");
        assert_eq!(
            env["PYTHONPATH"],
            "/code:/layer2/python/lib/python3.12/site-packages:/layer2/python:\
             /layer1/python/lib/python3.12/site-packages:/layer1/python"
        );
        assert!(env["PATH"].ends_with(":/layer1/bin:/layer2/bin:/code/bin"));
        assert_eq!(
            env["LD_LIBRARY_PATH"],
            "/code:/code/lib:/layer1/lib:/layer2/lib"
        );
        let stream = &env["AWS_LAMBDA_LOG_STREAM_NAME"];
        assert_eq!(stream.len(), "2024/05/01/[$LATEST]".len() + 32, "{stream}");
        assert!(stream.contains("/[$LATEST]"), "{stream}");
        assert!(!env.contains_key("USER"));

        let node = environment(&spec("nodejs20.x"), Family::Node, "a:1", Path::new("/rt"));
        assert_eq!(
            node["NODE_PATH"],
            "/layer2/nodejs/node20/node_modules:/layer2/nodejs/node_modules:\
             /layer1/nodejs/node20/node_modules:/layer1/nodejs/node_modules:/code"
        );
        let provided = environment(
            &spec("provided.al2023"),
            Family::Provided,
            "a:1",
            Path::new("/rt"),
        );
        assert!(!provided.contains_key("AWS_EXECUTION_ENV"));
        assert!(!provided.contains_key("PYTHONPATH"));
    }

    #[test]
    fn interpreters_are_chosen_by_exact_name_then_longest_prefix_then_path() {
        let settings = |pairs: &[(&str, &str)]| Settings {
            interpreters: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), PathBuf::from(v)))
                .collect(),
            idle: std::time::Duration::from_secs(1),
            work_dir: "/tmp".into(),
        };
        let sh = on_path(Path::new("sh")).unwrap();
        let sh = sh.to_str().unwrap();
        let chosen = interpreter(
            &settings(&[("python3.12", sh), ("python", "/nope")]),
            "python3.12",
            "x",
        );
        assert_eq!(chosen, Ok(PathBuf::from(sh)));
        let chosen = interpreter(
            &settings(&[("python3", sh), ("python", "/nope")]),
            "python3.13",
            "x",
        );
        assert_eq!(chosen, Ok(PathBuf::from(sh)));
        let chosen = interpreter(&settings(&[("python", "sh")]), "python3.13", "x");
        assert_eq!(chosen, Ok(PathBuf::from(sh)));
        let missing =
            interpreter(&settings(&[("python", "/nope/python")]), "python3.13", "x").unwrap_err();
        assert_eq!(missing.error_type, "Runtime.InvalidRuntime");
        assert!(
            missing.message.contains("/nope/python"),
            "{}",
            missing.message
        );
        let missing = interpreter(&settings(&[]), "python3.13", "no-such-python-here").unwrap_err();
        assert!(
            missing
                .message
                .starts_with("no-such-python-here was not found on PATH: install it"),
            "{}",
            missing.message
        );
    }

    #[test]
    fn only_the_three_families_run() {
        assert_eq!(Family::of("python3.9"), Some(Family::Python));
        assert_eq!(Family::of("nodejs22.x"), Some(Family::Node));
        assert_eq!(Family::of("provided.al2023"), Some(Family::Provided));
        assert_eq!(Family::of("java21"), None);
        let settings = Settings {
            interpreters: BTreeMap::new(),
            idle: std::time::Duration::from_secs(1),
            work_dir: "/tmp".into(),
        };
        let refused = plan(&settings, &spec("ruby3.3"), "a:1", Path::new("/rt"), "id").unwrap_err();
        assert_eq!(refused.error_type, "Runtime.InvalidRuntime");
        assert!(refused.message.contains("ruby3.3"));
    }
}
