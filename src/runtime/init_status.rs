//! Where the emulator stands in LocalStack's four lifecycle stages, and the init scripts of each
//! with their states: what `GET /_localstack/init` and `/_localstack/init/<stage>` answer
//! (docs/localstack.md). The mechanism that runs init scripts fills it in through
//! [`InitStatus::update`]; the server only reads it. With no scripts configured, the server marks
//! BOOT, START and READY completed once it listens, and SHUTDOWN stays to come.
//! Plain data behind its own small lock, apart from the state: a reset keeps it.

use std::sync::{Mutex, PoisonError};

/// LocalStack's lifecycle stages, in the order they happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// Before the emulator starts (LocalStack: in the container, before its runtime).
    Boot,
    /// The emulator is starting.
    Start,
    /// The emulator serves requests.
    Ready,
    /// The emulator is shutting down.
    Shutdown,
}

impl Stage {
    pub const ALL: [Stage; 4] = [Stage::Boot, Stage::Start, Stage::Ready, Stage::Shutdown];

    /// The name LocalStack gives it (`BOOT`, `START`, `READY`, `SHUTDOWN`).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Boot => "BOOT",
            Stage::Start => "START",
            Stage::Ready => "READY",
            Stage::Shutdown => "SHUTDOWN",
        }
    }

    /// The stage a name or path segment means, in any case (`ready`, `READY`).
    pub fn parse(name: &str) -> Option<Stage> {
        Stage::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
    }
}

/// A script's state, as LocalStack names them: found but not run yet, running, finished well,
/// failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptState {
    Unknown,
    Running,
    Successful,
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

/// One init script: its stage, its path under the init directory (`10-seed.sh`,
/// `more/30-last.sh`), or the resource file's name, and its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitScript {
    pub stage: Stage,
    pub name: String,
    pub state: ScriptState,
}

/// The stages completed so far and every script, in the order they run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InitProgress {
    /// Completed stages (a stage is completed when all its scripts have run).
    pub completed: Vec<Stage>,
    pub scripts: Vec<InitScript>,
}

impl InitProgress {
    pub fn is_completed(&self, stage: Stage) -> bool {
        self.completed.contains(&stage)
    }

    /// Marks `stage` completed (once).
    pub fn complete(&mut self, stage: Stage) {
        if !self.is_completed(stage) {
            self.completed.push(stage);
        }
    }

    /// Marks `last` and every stage before it completed.
    pub fn complete_until(&mut self, last: Stage) {
        for stage in Stage::ALL.into_iter().filter(|s| *s <= last) {
            self.complete(stage);
        }
    }

    pub fn scripts_of(&self, stage: Stage) -> impl Iterator<Item = &InitScript> {
        self.scripts.iter().filter(move |s| s.stage == stage)
    }
}

/// The init progress of a running emulator, shared between whoever runs the scripts and the
/// server that reports them.
#[derive(Debug, Default)]
pub struct InitStatus(Mutex<InitProgress>);

impl InitStatus {
    /// A copy of the progress now.
    pub fn read(&self) -> InitProgress {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Changes the progress: add scripts, set their states, complete stages.
    pub fn update<T>(&self, change: impl FnOnce(&mut InitProgress) -> T) -> T {
        change(&mut self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_parse_in_any_case_and_complete_once() {
        assert_eq!(Stage::parse("ready"), Some(Stage::Ready));
        assert_eq!(Stage::parse("SHUTDOWN"), Some(Stage::Shutdown));
        assert_eq!(Stage::parse("later"), None);
        let status = InitStatus::default();
        status.update(|p| {
            p.complete(Stage::Boot);
            p.complete(Stage::Boot);
            p.scripts.push(InitScript {
                stage: Stage::Ready,
                name: "seed.sh".into(),
                state: ScriptState::Unknown,
            });
        });
        let progress = status.read();
        assert_eq!(progress.completed, vec![Stage::Boot]);
        assert!(!progress.is_completed(Stage::Ready));
        assert_eq!(progress.scripts_of(Stage::Ready).count(), 1);
        assert_eq!(progress.scripts_of(Stage::Start).count(), 0);
    }
}
