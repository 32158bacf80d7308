//! Environments never outlive switchyard: stopped on shutdown and on stop_function, killed with
//! it even by `kill -9`, and the runtime loops end when the Runtime API is gone.

use super::*;
use std::process::{Command, Stdio};

/// The variable that makes [`holds_an_environment_until_killed`] run (in a child process).
const HELPER_DIR: &str = "SWITCHYARD_LAMBDA_KILL_TEST_DIR";

/// Not a test on its own: run by [`an_environment_dies_with_a_switchyard_killed_by_sigkill`] in a
/// process of its own, it starts an environment whose bootstrap writes its pid to a file and then
/// sleeps without ever talking to the Runtime API, and waits.
#[tokio::test]
#[ignore = "run by an_environment_dies_with_a_switchyard_killed_by_sigkill in a child process"]
async fn holds_an_environment_until_killed() {
    let Some(dir) = std::env::var_os(HELPER_DIR).map(PathBuf::from) else {
        return;
    };
    let envs = Environments::new(Settings {
        interpreters: BTreeMap::new(),
        idle: Duration::from_secs(60),
        work_dir: dir.join("work"),
    });
    let mut f = FunctionSpec {
        code: dir.join("code"),
        ..function(&Scratch::new("helper"), "provided.al2023", "h")
    };
    f.environment
        .insert("PIDFILE".into(), dir.join("pid").display().to_string());
    envs.invoke(&f, invocation("{}")).await;
}

#[tokio::test]
async fn an_environment_dies_with_a_switchyard_killed_by_sigkill() {
    let scratch = Scratch::new("kill9");
    // The bootstrap's pid is the environment's: `exec` keeps it.
    let bootstrap =
        "#!/bin/sh\necho $$ > \"$PIDFILE.tmp\"\nmv \"$PIDFILE.tmp\" \"$PIDFILE\"\nexec sleep 60\n";
    scratch.write("code/bootstrap", bootstrap, true);
    let name = "runtime::lambda::tests::lifetime::holds_an_environment_until_killed";
    let mut helper = Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--ignored", "--test-threads=1"])
        .env(HELPER_DIR, &scratch.0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid_file = scratch.0.join("pid");
    eventually("the environment starts", || pid_file.exists()).await;
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(!gone(pid), "the environment runs");
    helper.kill().unwrap(); // SIGKILL: no destructor, no shutdown
    helper.wait().unwrap();
    eventually("the environment dies with its parent", || gone(pid)).await;
}

#[tokio::test]
async fn the_loops_end_when_the_runtime_api_is_gone() {
    let scratch = Scratch::new("loops-end");
    std::fs::create_dir_all(scratch.0.join("code")).unwrap();
    let dir = scratch.0.join("loops");
    write_loops(&dir).unwrap();
    // A port nobody listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let node = std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("node"))
                .find(|n| n.is_file())
        })
        .expect("node on PATH");
    let runs = [
        (python(), dir.join(launch::PYTHON_LOOP_FILE)),
        (node, dir.join(launch::NODE_LOOP_FILE)),
    ];
    scratch.write("code/app.py", "def handler(e, c):\n    return e\n", false);
    scratch.write("code/app.js", "exports.handler = async (e) => e;\n", false);
    for (interpreter, script) in runs {
        let mut child = Command::new(&interpreter)
            .arg(&script)
            .current_dir(scratch.0.join("code"))
            .env("AWS_LAMBDA_RUNTIME_API", closed.to_string())
            .env("LAMBDA_TASK_ROOT", scratch.0.join("code"))
            .env("_HANDLER", "app.handler")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id();
        eventually("the loop ends", || matches!(child.try_wait(), Ok(Some(_)))).await;
        assert!(gone(pid), "{}", script.display());
    }
}

#[tokio::test]
async fn shutdown_and_stop_function_stop_busy_and_idle_environments() {
    let scratch = Scratch::new("stop");
    let code = "import os, time\ndef handler(event, context):\n    time.sleep(event['sleep'])\n    return os.getpid()\n";
    scratch.write("code/app.py", code, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let f = function(&scratch, "python3.12", "app.handler");
    let idle = response(&envs.invoke(&f, invocation(r#"{"sleep": 0}"#)).await)
        .as_u64()
        .unwrap();
    envs.stop_function(&f.function_arn).await;
    assert_eq!(envs.running(), 0);
    assert!(gone(idle as u32));
    // A busy environment: shutdown ends its invocation.
    let busy = envs.invoke(&f, invocation(r#"{"sleep": 30}"#));
    let stop = async {
        eventually("the invocation runs", || envs.running() == 1).await;
        crate::clock::Clock::sleep(Duration::from_millis(200)).await;
        envs.shutdown().await;
    };
    let (busy, ()) = tokio::join!(busy, stop);
    let error = function_error(&busy);
    assert_eq!(error["errorType"], "Runtime.ExitError");
    let message = error["errorMessage"].as_str().unwrap();
    assert!(
        message.ends_with("Runtime exited with error: signal: terminated"),
        "{message}"
    );
    assert_eq!(envs.running(), 0);
    let after = envs.invoke(&f, invocation(r#"{"sleep": 0}"#)).await;
    assert!(
        matches!(after.outcome, Outcome::NotStarted { .. }),
        "{:?}",
        after.outcome
    );
}

#[tokio::test]
async fn an_abandoned_invocation_frees_its_slot_and_kills_its_environment() {
    let scratch = Scratch::new("abandon");
    let code = "import os, time\ndef handler(event, context):\n    open('pid', 'w').write(str(os.getpid()))\n    time.sleep(30)\n";
    scratch.write("code/app.py", code, false);
    let envs = environments(&scratch, Duration::from_secs(60));
    let mut f = function(&scratch, "python3.12", "app.handler");
    f.max_environments = 1;
    let pid_file = scratch.0.join("code/pid");
    let given_up =
        crate::clock::Clock::within(Duration::from_secs(2), envs.invoke(&f, invocation("{}")))
            .await;
    assert!(given_up.is_none());
    assert_eq!(envs.running(), 0);
    let pid: u32 = std::fs::read_to_string(&pid_file).unwrap().parse().unwrap();
    eventually("the environment is killed", || gone(pid)).await;
}
