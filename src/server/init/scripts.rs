//! Init scripts (`--init PATH`, docs/localstack.md, "Init scripts and resources"): a script, or a
//! directory whose `*.sh` and `*.py` scripts run one after another as LocalStack runs `ready.d`:
//! in lexical order, a directory's own scripts before its subdirectories', depth first; a `.py`
//! script with `python3` (LocalStack runs them with its own Python), a `.sh` one as the program
//! its `#!` line names. They run
//! once the server answers, with the endpoint, region and test credentials in their environment
//! and an `awslocal` on their PATH; a script that fails is logged and marked ERROR, and the next
//! one runs. Their output goes to switchyard's stderr, so stdout keeps the ready line first.

use crate::runtime::Runtime;
use crate::runtime::init_status::ScriptState;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// A script found under the init path, and the name `/_localstack/init` lists it by.
#[derive(Debug)]
pub(super) struct Script {
    path: PathBuf,
    pub name: String,
}

/// The scripts `path` names: the file itself, or a directory's `*.sh` and `*.py`, in the order
/// they run.
pub(super) fn discover(path: &Path) -> Result<Vec<Script>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_dir() {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        return Ok(vec![Script {
            path: path.to_path_buf(),
            name,
        }]);
    }
    let mut found = Vec::new();
    walk(path, "", &mut found)?;
    Ok(found)
}

fn walk(dir: &Path, prefix: &str, found: &mut Vec<Script>) -> Result<(), String> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .and_then(|entries| entries.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    entries.sort_by_key(|e| e.file_name());
    let mut subdirectories = Vec::new();
    for entry in entries {
        let path = entry.path();
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        if path.is_dir() {
            subdirectories.push((path, name));
        } else if path.extension().is_some_and(|e| e == "sh" || e == "py") {
            found.push(Script { path, name });
        }
    }
    for (path, name) in subdirectories {
        walk(&path, &format!("{name}/"), found)?;
    }
    Ok(())
}

/// What the scripts' environment points at.
pub(super) struct Target<'a> {
    /// `http://host:port` the scripts reach the server at.
    pub url: &'a str,
    /// `host:port` of the same, for LocalStack's tools that read LOCALSTACK_HOST.
    pub host: &'a str,
    pub region: &'a str,
}

/// Runs `scripts` one after another (each listed in the status at `lines`), whatever each ends in.
pub(super) async fn run(app: &Runtime, scripts: &[Script], lines: &[usize], target: &Target<'_>) {
    if scripts.is_empty() {
        return;
    }
    let shim = Shim::write(target.host);
    for (script, &line) in scripts.iter().zip(lines) {
        super::set(app, line, ScriptState::Running);
        tracing::info!(script = %script.name, "init: running script");
        let state = match command(script, target, shim.as_ref()).status().await {
            Ok(exit) if exit.success() => {
                tracing::info!(script = %script.name, "init: script succeeded");
                ScriptState::Successful
            }
            Ok(exit) => {
                tracing::warn!(script = %script.name, %exit, "init: script failed (ERROR)");
                ScriptState::Error
            }
            Err(e) => {
                let hint = match e.kind() {
                    std::io::ErrorKind::PermissionDenied => " (is it executable? chmod +x it)",
                    _ if e.raw_os_error() == Some(ENOEXEC) => {
                        " (does it start with a #! line, e.g. #!/bin/sh?)"
                    }
                    _ => "",
                };
                tracing::warn!(script = %script.name, "init: script could not start (ERROR): {e}{hint}");
                ScriptState::Error
            }
        };
        super::set(app, line, state);
    }
}

/// errno's "Exec format error": a script without a `#!` line.
const ENOEXEC: i32 = 8;

fn command(script: &Script, target: &Target<'_>, shim: Option<&Shim>) -> tokio::process::Command {
    let mut command = match script.path.extension().is_some_and(|e| e == "py") {
        true => {
            let mut python = tokio::process::Command::new("python3");
            python.arg(&script.path);
            python
        }
        false => tokio::process::Command::new(&script.path),
    };
    command
        .stdin(Stdio::null())
        .stdout(stderr())
        .kill_on_drop(true)
        // The scripts talk to this server, whatever the machine's AWS settings say.
        .env("AWS_ENDPOINT_URL", target.url);
    let defaults = [
        ("AWS_DEFAULT_REGION", target.region),
        ("AWS_REGION", target.region),
        ("AWS_ACCESS_KEY_ID", "test"),
        ("AWS_SECRET_ACCESS_KEY", "test"),
        ("LOCALSTACK_HOST", target.host),
    ];
    for (name, value) in defaults {
        if std::env::var_os(name).is_none() {
            command.env(name, value);
        }
    }
    if let Some(shim) = shim {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let dirs = std::iter::once(shim.dir.clone()).chain(std::env::split_paths(&path));
        if let Ok(path) = std::env::join_paths(dirs) {
            command.env("PATH", path);
        }
    }
    command
}

/// Switchyard's stderr, where scripts' standard output goes too.
#[cfg(unix)]
fn stderr() -> Stdio {
    use std::os::fd::AsFd;
    std::io::stderr()
        .as_fd()
        .try_clone_to_owned()
        .map_or_else(|_| Stdio::null(), Stdio::from)
}

#[cfg(not(unix))]
fn stderr() -> Stdio {
    Stdio::null()
}

/// A directory holding `awslocal`, first on the scripts' PATH while they run: the AWS CLI
/// pointed at this server (`aws --endpoint-url $AWS_ENDPOINT_URL ...`), for the v1 CLI, which
/// does not read AWS_ENDPOINT_URL for every service. Removed when the scripts are done.
struct Shim {
    dir: PathBuf,
}

const AWSLOCAL: &str = r#"#!/bin/sh
# awslocal for switchyard's init scripts: the AWS CLI, pointed at this server.
if ! command -v aws >/dev/null 2>&1; then
    echo "awslocal: the AWS CLI (aws) is not on PATH; install it to use awslocal in init scripts" >&2
    exit 127
fi
exec aws --endpoint-url "$AWS_ENDPOINT_URL" "$@"
"#;

impl Shim {
    /// Writes the shim; without one (no writable temporary directory) scripts still run.
    fn write(host: &str) -> Option<Shim> {
        let unique = format!(
            "switchyard-init-{}-{}",
            std::process::id(),
            host.replace([':', '[', ']'], "-")
        );
        let dir = std::env::temp_dir().join(unique);
        let written = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(dir.join("awslocal"), AWSLOCAL))
            .and_then(|()| executable(&dir.join("awslocal")));
        match written {
            Ok(()) => Some(Shim { dir }),
            Err(e) => {
                tracing::warn!("init: cannot write awslocal to {}: {e}", dir.display());
                None
            }
        }
    }
}

impl Drop for Shim {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(unix)]
fn executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn executable(_: &Path) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_runs_its_own_scripts_first_then_its_subdirectories_in_order() {
        let root = std::env::temp_dir().join(format!("switchyard-discover-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for dir in ["b", "a/z", ""] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        for file in [
            "20-second.sh",
            "10-first.sh",
            "notes.txt",
            "seed.py",
            "a/1.sh",
            "a/z/0.sh",
            "b/0.sh",
        ] {
            std::fs::write(root.join(file), "#!/bin/sh\n").unwrap();
        }
        let names: Vec<String> = discover(&root)
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(
            names,
            [
                "10-first.sh",
                "20-second.sh",
                "seed.py",
                "a/1.sh",
                "a/z/0.sh",
                "b/0.sh"
            ]
        );
        let one = discover(&root.join("b/0.sh")).unwrap();
        assert_eq!(one[0].name, "0.sh");
        assert!(discover(&root.join("missing")).is_err());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
