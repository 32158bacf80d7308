//! How far start-up has got, in LocalStack's terms (docs/localstack.md, "Init scripts and
//! resources"): the four lifecycle stages and whether each has completed, and every init script
//! (and resource file) with its state. `GET /_localstack/init` and `GET /_localstack/init/<stage>`
//! answer it in the shape LocalStack documents.

use crate::server::control::{error, log_request, ok};
use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex, PoisonError};

/// LocalStack's lifecycle stages, in the order they happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Before the server runs (LocalStack's container boot).
    Boot,
    /// The server is starting.
    Start,
    /// Init is done: the ready line is out.
    Ready,
    /// The server is stopping.
    Shutdown,
}

impl Stage {
    pub const ALL: [Stage; 4] = [Stage::Boot, Stage::Start, Stage::Ready, Stage::Shutdown];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Boot => "BOOT",
            Stage::Start => "START",
            Stage::Ready => "READY",
            Stage::Shutdown => "SHUTDOWN",
        }
    }

    /// A stage by name, in any case (`/_localstack/init/ready`).
    pub fn parse(name: &str) -> Option<Stage> {
        Stage::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
    }
}

/// A script's state, as LocalStack names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptState {
    /// Found, not run yet.
    Unknown,
    Running,
    Successful,
    /// Exited non-zero, could not be started, or (a resource file) an entry failed.
    Error,
}

impl ScriptState {
    pub fn name(self) -> &'static str {
        match self {
            ScriptState::Unknown => "UNKNOWN",
            ScriptState::Running => "RUNNING",
            ScriptState::Successful => "SUCCESSFUL",
            ScriptState::Error => "ERROR",
        }
    }
}

#[derive(Debug, Clone)]
struct Script {
    stage: Stage,
    name: String,
    state: ScriptState,
}

#[derive(Debug, Default)]
struct Progress {
    /// Indexed like [`Stage::ALL`].
    completed: [bool; 4],
    scripts: Vec<Script>,
}

/// Start-up progress, shared between the init that fills it and the endpoint that reads it.
#[derive(Debug, Default)]
pub struct InitStatus {
    progress: Mutex<Progress>,
}

impl InitStatus {
    fn progress(&self) -> std::sync::MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn complete(&self, stage: Stage) {
        self.progress().completed[stage as usize] = true;
    }

    pub fn is_complete(&self, stage: Stage) -> bool {
        self.progress().completed[stage as usize]
    }

    /// Lists a script of `stage` as found (UNKNOWN); answers its index for [`InitStatus::set`].
    pub fn discovered(&self, stage: Stage, name: &str) -> usize {
        let mut progress = self.progress();
        progress.scripts.push(Script {
            stage,
            name: name.to_string(),
            state: ScriptState::Unknown,
        });
        progress.scripts.len() - 1
    }

    pub fn set(&self, script: usize, state: ScriptState) {
        if let Some(s) = self.progress().scripts.get_mut(script) {
            s.state = state;
        }
    }

    /// `GET /_localstack/init`: `{"completed": {"BOOT": .., ...}, "scripts": [..]}`.
    pub fn json(&self) -> Value {
        let progress = self.progress();
        let completed: serde_json::Map<String, Value> = Stage::ALL
            .iter()
            .map(|s| (s.name().to_string(), progress.completed[*s as usize].into()))
            .collect();
        let scripts: Vec<Value> = progress.scripts.iter().map(script_json).collect();
        json!({"completed": completed, "scripts": scripts})
    }

    /// `GET /_localstack/init/<stage>`: `{"completed": <bool>, "scripts": [..of that stage]}`.
    pub fn stage_json(&self, stage: Stage) -> Value {
        let progress = self.progress();
        let scripts: Vec<Value> = progress
            .scripts
            .iter()
            .filter(|s| s.stage == stage)
            .map(script_json)
            .collect();
        json!({"completed": progress.completed[stage as usize], "scripts": scripts})
    }
}

fn script_json(s: &Script) -> Value {
    json!({"stage": s.stage.name(), "name": s.name, "state": s.state.name()})
}

/// `/_localstack/init` and `/_localstack/init/<stage>`, read from `status`.
pub fn routes<S>(status: Arc<InitStatus>) -> Router<S> {
    Router::new()
        .route("/_localstack/init", get(all))
        .route("/_localstack/init/{stage}", get(one))
        .layer(axum::middleware::from_fn(log_request))
        .with_state(status)
}

async fn all(State(status): State<Arc<InitStatus>>) -> Response {
    ok(status.json())
}

async fn one(State(status): State<Arc<InitStatus>>, Path(stage): Path<String>) -> Response {
    match Stage::parse(&stage) {
        Some(stage) => ok(status.stage_json(stage)),
        None => error(
            StatusCode::NOT_FOUND,
            "NotFound",
            format!("No init stage {stage:?}; the stages are boot, start, ready and shutdown."),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_complete_and_scripts_move_through_their_states() {
        let status = InitStatus::default();
        status.complete(Stage::Boot);
        status.complete(Stage::Start);
        let a = status.discovered(Stage::Ready, "01-queues.sh");
        status.discovered(Stage::Ready, "02-topics.sh");
        status.set(a, ScriptState::Error);
        assert_eq!(
            status.json(),
            json!({
                "completed": {"BOOT": true, "START": true, "READY": false, "SHUTDOWN": false},
                "scripts": [
                    {"stage": "READY", "name": "01-queues.sh", "state": "ERROR"},
                    {"stage": "READY", "name": "02-topics.sh", "state": "UNKNOWN"},
                ],
            })
        );
        assert_eq!(
            status.stage_json(Stage::Boot),
            json!({"completed": true, "scripts": []})
        );
        assert_eq!(Stage::parse("ready"), Some(Stage::Ready));
        assert_eq!(Stage::parse("later"), None);
    }
}
