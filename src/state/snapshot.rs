//! State snapshots: the whole [`State`] as one JSON document, written and read back, for
//! `GET`/`POST /_switchyard/state`, `switchyard --state-file` and the journal's checkpoints
//! (docs/control-api.md, "State snapshots").
//!
//! ```json
//! {"format": "switchyard-state", "version": 1, "savedAt": "<RFC 3339, virtual>", "state": {...}}
//! ```
//!
//! `state` holds the engine (virtual time, the random generator, every timer with its sequence
//! number, deliveries under way, the delivery log, outbox, faults and metrics) and every
//! service's store. What is derived is left out and made again on reading: the routing indexes
//! of rules, filter policies and subscribers, compiled patterns (kept as their text), a queue's
//! counts and indexes by time. What belongs to the running process is not in the file either:
//! `--lambda-endpoint` and `--enforce-policies` are given to [`State::read_snapshot`].
//!
//! A state read back behaves as the one written would have: the same ids from the generator,
//! the same timers in the same order, the same next delivery id. HTTP attempts that were sent
//! and not answered when the snapshot was taken are sent again ([`Engine::resume`]).
//! It must not depend on the runtime, the protocols or the server.
//!
//! [`Engine::resume`]: crate::engine::Engine::resume

use super::State;
use crate::engine::time::format_rfc3339;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::io::{self, Write};

/// The last instant virtual time may reach, as `runtime::LATEST` says (9999-12-31T23:59:59.999Z).
const LATEST: crate::engine::time::Millis = 253_402_300_799_999;

/// The `format` of a snapshot file.
pub(crate) const FORMAT: &str = "switchyard-state";
/// The one `version` this build writes and reads; a file of another version is refused.
pub(crate) const VERSION: u64 = 1;

/// Why a snapshot cannot be read. Its text names the cause, for an answer or an error message.
#[derive(Debug, Clone, PartialEq)]
pub enum SnapshotError {
    /// The bytes are not a JSON document (or it ends early: a truncated file).
    NotJson(String),
    /// A JSON document, but not a switchyard state: not an object, or no or another `format`,
    /// or no `state`.
    NotAState(String),
    /// A switchyard state of a version this build does not read.
    Version(String),
    /// The value at `path` (`state.sqs.queues[0]...`) is not what a state holds there.
    Invalid { path: String, message: String },
    /// The file was read and put in place, but the state directory (`--state-dir`) could not
    /// keep it: not the file's fault.
    NotKept(String),
}

impl fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotError::NotJson(why) => write!(f, "not a JSON document: {why}"),
            SnapshotError::NotAState(why) => write!(f, "not a switchyard state: {why}"),
            SnapshotError::Version(v) => write!(
                f,
                "version {v} is not supported: this switchyard reads version {VERSION}"
            ),
            SnapshotError::Invalid { path, message } => {
                write!(f, "the value at {path} is invalid: {message}")
            }
            SnapshotError::NotKept(why) => write!(f, "the state directory did not keep it: {why}"),
        }
    }
}

impl std::error::Error for SnapshotError {}

/// The top of a file, read first: what it claims to be, the state skipped over.
#[derive(Deserialize)]
struct Header {
    format: Option<Value>,
    version: Option<Value>,
    state: Option<IgnoredAny>,
}

/// The file read in full once its header is right.
#[derive(Deserialize)]
struct File {
    state: State,
}

impl State {
    /// Writes the state as a snapshot file to `w` (buffer it: the state is written in many small
    /// pieces). The state is not changed.
    pub fn write_snapshot(&self, w: impl Write) -> io::Result<()> {
        let mut w = w;
        write!(
            w,
            r#"{{"format":"{FORMAT}","version":{VERSION},"savedAt":"{}","state":"#,
            format_rfc3339(self.now())
        )?;
        serde_json::to_writer(&mut w, self)?;
        w.write_all(b"}")?;
        w.flush()
    }

    /// The state as a snapshot file.
    pub fn snapshot(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        #[expect(
            clippy::expect_used,
            reason = "writing into a Vec cannot fail, and every map of the state is written with \
                      string keys or as pairs (`crate::pairs`), which serde_json always writes"
        )]
        self.write_snapshot(&mut bytes)
            .expect("writing to memory does not fail");
        bytes
    }

    /// A state read from a snapshot file, with the running process's settings that a file does
    /// not hold (`--lambda-endpoint`, `--enforce-policies`) and the settle it runs cascades with
    /// (as [`State::new`]). Its effects (HTTP attempts awaiting their answer, sent again) wait in
    /// [`State::take_effects`].
    pub fn read_snapshot(
        bytes: &[u8],
        lambda_endpoints: HashMap<String, String>,
        enforce_policies: bool,
        settle: super::Settle,
    ) -> Result<State, SnapshotError> {
        let header: Header = serde_json::from_slice(bytes).map_err(|e| match e.classify() {
            serde_json::error::Category::Data => SnapshotError::NotAState(
                "the file is not a JSON object with \"format\", \"version\" and \"state\"".into(),
            ),
            serde_json::error::Category::Eof => {
                SnapshotError::NotJson(format!("it ends early (truncated?): {e}"))
            }
            _ => SnapshotError::NotJson(e.to_string()),
        })?;
        match header.format {
            Some(Value::String(f)) if f == FORMAT => {}
            Some(other) => {
                return Err(SnapshotError::NotAState(format!(
                    "\"format\" is {other}, not \"{FORMAT}\""
                )));
            }
            None => return Err(SnapshotError::NotAState("no \"format\"".into())),
        }
        match header.version {
            Some(Value::Number(n)) if n.as_u64() == Some(VERSION) => {}
            Some(other) => return Err(SnapshotError::Version(other.to_string())),
            None => return Err(SnapshotError::NotAState("no \"version\"".into())),
        }
        if header.state.is_none() {
            return Err(SnapshotError::NotAState("no \"state\"".into()));
        }
        let file: File = serde_json::from_slice(bytes).map_err(|e| SnapshotError::Invalid {
            path: path_at(bytes, e.line(), e.column()),
            message: strip_position(&e.to_string()),
        })?;
        let mut state = file.state;
        // Virtual time goes no further than the clock API lets it (`runtime::LATEST`), nor
        // before 1970, so that the times it counts on from there stay in range.
        if !(0..=LATEST).contains(&state.now()) {
            return Err(SnapshotError::Invalid {
                path: "state.engine.now".into(),
                message: format!("{} is not a time from 1970 to 9999", state.now()),
            });
        }
        state.lambda_endpoints = lambda_endpoints;
        state.enforce_policies = enforce_policies;
        state.settle_with(settle);
        state.rebuild();
        Ok(state)
    }

    /// Makes again what a snapshot leaves out: the routing indexes, the queues' counts, and the
    /// HTTP attempts awaiting their answer.
    fn rebuild(&mut self) {
        let rules: Vec<String> = self.events.rules.keys().cloned().collect();
        for arn in rules {
            self.events.file_rule(&arn);
        }
        let subscribers: Vec<String> = self.bus.subscribers.keys().cloned().collect();
        for arn in subscribers {
            self.bus.file_subscriber(&arn);
        }
        let subscriptions: Vec<String> = self.sns.subscriptions.keys().cloned().collect();
        for arn in subscriptions {
            self.sns.file_subscription(&arn);
        }
        for queue in self.sqs.queues.values_mut() {
            queue.recount();
        }
        self.engine.resume();
    }
}

/// serde_json's message without its " at line L column C".
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// The path (`state.sqs.queues[0][1].attributes`) of the value at `line` and `column` (1-based,
/// as serde_json counts) of a well-formed JSON document.
fn path_at(bytes: &[u8], line: usize, column: usize) -> String {
    let mut offset = 0;
    for _ in 1..line {
        let rest = bytes.get(offset..).unwrap_or_default();
        match rest.iter().position(|&b| b == b'\n') {
            Some(n) => offset += n + 1,
            None => break,
        }
    }
    let end = (offset + column).min(bytes.len());
    // The open containers down to `end`: an object's last key, an array's index.
    enum Level {
        Object(Option<String>),
        Array(usize),
    }
    let mut stack: Vec<Level> = Vec::new();
    let mut i = 0;
    let mut expecting_key = false;
    while let Some(&byte) = bytes.get(i).filter(|_| i < end) {
        match byte {
            b'{' => {
                stack.push(Level::Object(None));
                expecting_key = true;
            }
            b'[' => {
                stack.push(Level::Array(0));
                expecting_key = false;
            }
            b'}' | b']' => {
                stack.pop();
                expecting_key = false;
            }
            b',' => match stack.last_mut() {
                Some(Level::Array(n)) => *n += 1,
                Some(Level::Object(_)) => expecting_key = true,
                None => {}
            },
            b'"' => {
                let start = i + 1;
                i += 1;
                while let Some(&b) = bytes.get(i).filter(|&&b| b != b'"') {
                    i += if b == b'\\' { 2 } else { 1 };
                }
                if expecting_key {
                    let key = bytes.get(start..i.min(bytes.len())).unwrap_or_default();
                    let key = String::from_utf8_lossy(key);
                    if let Some(Level::Object(k)) = stack.last_mut() {
                        *k = Some(key.into_owned());
                    }
                    expecting_key = false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for level in &stack {
        match level {
            Level::Object(Some(key)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Level::Object(None) => {}
            Level::Array(n) => path.push_str(&format!("[{n}]")),
        }
    }
    if path.is_empty() {
        path.push_str("the top");
    }
    path
}

#[cfg(test)]
mod tests;
