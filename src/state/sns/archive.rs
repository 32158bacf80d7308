//! Message archiving and replay for FIFO topics: the archive a topic's `ArchivePolicy` keeps, the
//! `ReplayPolicy` of a subscription and the replay it starts, all on the virtual clock. Plain data and
//! the parsing of the two policies: knows no wire format and imports no operation; replays run in
//! `replay.rs`.
//!
//! AWS: https://docs.aws.amazon.com/sns/latest/dg/fifo-message-archiving-replay.html and its
//! sub-pages for topic owners and subscribers; the attribute texts of the SNS API model.

use super::shapes::MessageAttributeValue;
use crate::engine::time::{Millis, format_rfc3339, parse_rfc3339};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, VecDeque};

const DAY_MS: i64 = 86_400_000;

/// One message as published to an archiving topic: what a replay rebuilds its deliveries from.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ArchivedMessage {
    pub id: String,
    pub text: String,
    pub subject: Option<String>,
    /// `MessageStructure=json`: the per-protocol messages.
    pub structure: Option<Map<String, Value>>,
    pub attributes: BTreeMap<String, MessageAttributeValue>,
    pub group_id: String,
    pub dedup_id: Option<String>,
    pub sequence_number: u128,
    pub published_at: Millis,
}

/// A topic's message archive. Retention is data: messages older than the retention period are
/// dropped whenever the archive is read or written, never by a timer.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Archive {
    /// `MessageRetentionPeriod`, 1 to 365 days.
    pub retention_days: i64,
    /// When archiving began: nothing published earlier can be replayed.
    pub started_at: Millis,
    /// In publish order (and so in sequence-number order per group).
    messages: VecDeque<ArchivedMessage>,
}

impl Archive {
    fn retention_ms(&self) -> i64 {
        self.retention_days * DAY_MS
    }

    /// `BeginningArchiveTime`: "the earliest starting point at which a message in the topic's
    /// archive can be replayed from … based on the configured message retention period" (SNS
    /// API model), so the later of when archiving began and `now` minus the retention period.
    pub fn beginning(&self, now: Millis) -> Millis {
        self.started_at.max(now - self.retention_ms())
    }

    fn expire(&mut self, now: Millis) {
        let horizon = now - self.retention_ms();
        while self
            .messages
            .front()
            .is_some_and(|m| m.published_at <= horizon)
        {
            self.messages.pop_front();
        }
    }

    pub fn record(&mut self, message: ArchivedMessage, now: Millis) {
        self.expire(now);
        self.messages.push_back(message);
    }

    /// The retained messages published in `[from, to]`, in publish order.
    pub fn between(&mut self, from: Millis, to: Millis, now: Millis) -> Vec<ArchivedMessage> {
        self.expire(now);
        self.messages
            .iter()
            .filter(|m| (from..=to).contains(&m.published_at))
            .cloned()
            .collect()
    }
}

/// Reads an `ArchivePolicy` value: `Some(days)` to archive, `None` for `""` or `{}`, which turn
/// archiving off ("inactive when the archive policy is set to an empty JSON object", AWS topic
/// owner page). Errors are the text after "ArchivePolicy: ".
pub(crate) fn parse_archive_policy(value: &str) -> Result<Option<i64>, String> {
    if value.trim().is_empty() {
        return Ok(None);
    }
    let doc: Value =
        serde_json::from_str(value).map_err(|_| "failed to parse JSON.".to_string())?;
    let map = doc
        .as_object()
        .ok_or_else(|| "failed to parse JSON.".to_string())?;
    if map.is_empty() {
        return Ok(None);
    }
    let days = match map.get("MessageRetentionPeriod") {
        None => return Err("MessageRetentionPeriod is required".into()),
        // AWS's examples write the number both as a JSON number and as a string.
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(s)) => s.trim().parse::<i64>().ok(),
        Some(_) => None,
    };
    match days {
        Some(d) if (1..=365).contains(&d) => Ok(Some(d)),
        _ => Err("MessageRetentionPeriod must be an integer number of days from 1 to 365".into()),
    }
}

/// Sets (or changes) a topic's archive. Changing the retention period keeps what is archived
/// and when archiving began.
pub(crate) fn set_policy(archive: &mut Option<Archive>, retention_days: i64, now: Millis) {
    match archive {
        Some(a) => a.retention_days = retention_days,
        None => {
            *archive = Some(Archive {
                retention_days,
                started_at: now,
                messages: VecDeque::new(),
            })
        }
    }
}

/// The replay a subscription's `ReplayPolicy` asks for.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Replay {
    pub starting_at: Millis,
    pub ending_at: Option<Millis>,
}

impl Replay {
    /// `ReplayStatus`. The replay's deliveries are handed to the engine the moment the policy is
    /// set, so it is `Completed` at once; a replay whose `EndingPoint` is still ahead is
    /// `In progress` until the virtual clock passes it (messages published until then still
    /// reach the subscription).
    pub fn status(&self, now: Millis) -> &'static str {
        match self.ending_at {
            Some(end) if end > now => "In progress",
            _ => "Completed",
        }
    }

    /// Whether a message published at `at` is delivered to the subscription as usual: with an
    /// ending point, "the subscription will no longer receive newly published messages" once
    /// the replay has completed (SNS API model, `ReplayStatus`).
    pub fn takes_live(&self, at: Millis) -> bool {
        self.ending_at.is_none_or(|end| at <= end)
    }
}

/// Reads a `ReplayPolicy` value for a subscription of a topic that is FIFO (`fifo`) and archives
/// since `beginning` (its BeginningArchiveTime, `None` without an archive). Errors are the text
/// after "ReplayPolicy: ".
pub(crate) fn parse_replay_policy(
    value: &str,
    fifo: bool,
    beginning: Option<Millis>,
) -> Result<Replay, String> {
    if !fifo {
        return Err("ReplayPolicy can only be set for subscriptions to FIFO topics".into());
    }
    let Some(beginning) = beginning else {
        return Err("the topic has no ArchivePolicy to replay messages from".into());
    };
    let doc: Value =
        serde_json::from_str(value).map_err(|_| "failed to parse JSON.".to_string())?;
    if !doc.is_object() {
        return Err("failed to parse JSON.".into());
    }
    if doc.get("PointType").and_then(Value::as_str) != Some("Timestamp") {
        return Err("PointType must be Timestamp".into());
    }
    let time = |key: &str| -> Result<Option<Millis>, String> {
        match doc.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_str()
                .and_then(parse_rfc3339)
                .map(Some)
                .ok_or_else(|| format!("{key} must be an ISO 8601 timestamp, not {v}")),
        }
    };
    let starting_at = time("StartingPoint")?.ok_or("StartingPoint is required")?;
    let ending_at = time("EndingPoint")?;
    if starting_at < beginning {
        return Err(format!(
            "StartingPoint must not be earlier than the topic's BeginningArchiveTime {}",
            format_rfc3339(beginning)
        ));
    }
    if ending_at.is_some_and(|end| end < starting_at) {
        return Err("EndingPoint must not be earlier than StartingPoint".into());
    }
    Ok(Replay {
        starting_at,
        ending_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn archive_policies() {
        let cases: [(&str, Result<Option<i64>, &str>); 9] = [
            ("", Ok(None)),
            ("{}", Ok(None)),
            (r#"{"MessageRetentionPeriod":30}"#, Ok(Some(30))),
            (r#"{"MessageRetentionPeriod":"365"}"#, Ok(Some(365))),
            (r#"{"MessageRetentionPeriod":1}"#, Ok(Some(1))),
            (
                r#"{"MessageRetentionPeriod":0}"#,
                Err("MessageRetentionPeriod must"),
            ),
            (
                r#"{"MessageRetentionPeriod":366}"#,
                Err("MessageRetentionPeriod must"),
            ),
            (r#"{"Other":1}"#, Err("MessageRetentionPeriod is required")),
            ("nope", Err("failed to parse JSON.")),
        ];
        for (value, want) in cases {
            match (parse_archive_policy(value), want) {
                (Ok(got), Ok(want)) => assert_eq!(got, want, "{value}"),
                (Err(got), Err(want)) => assert!(got.starts_with(want), "{value}: {got}"),
                (got, want) => panic!("{value}: {got:?} vs {want:?}"),
            }
        }
    }

    #[test]
    fn replay_policies() {
        let begin = parse_rfc3339("2026-01-01T00:00:00Z").unwrap();
        let ok = |v: &str| parse_replay_policy(v, true, Some(begin));
        assert_eq!(
            ok(r#"{"PointType":"Timestamp","StartingPoint":"2026-01-01T00:00:00Z"}"#),
            Ok(Replay {
                starting_at: begin,
                ending_at: None
            })
        );
        let errors = [
            (r#"{"PointType":"Timestamp"}"#, "StartingPoint is required"),
            (
                r#"{"PointType":"Sequence","StartingPoint":"2026-01-01T00:00:00Z"}"#,
                "PointType",
            ),
            (
                r#"{"PointType":"Timestamp","StartingPoint":"yesterday"}"#,
                "StartingPoint must be",
            ),
            (
                r#"{"PointType":"Timestamp","StartingPoint":"2025-12-31T23:59:59Z"}"#,
                "StartingPoint must not be earlier",
            ),
            (
                r#"{"PointType":"Timestamp","StartingPoint":"2026-01-02T00:00:00Z","EndingPoint":"2026-01-01T12:00:00Z"}"#,
                "EndingPoint must not be earlier",
            ),
            ("[]", "failed to parse JSON."),
        ];
        for (value, want) in errors {
            let got = ok(value).unwrap_err();
            assert!(got.starts_with(want), "{value}: {got}");
        }
        let any = r#"{"PointType":"Timestamp","StartingPoint":"2026-01-01T00:00:00Z"}"#;
        assert!(parse_replay_policy(any, false, Some(begin)).is_err());
        assert!(parse_replay_policy(any, true, None).is_err());
    }

    #[test]
    fn retention_and_beginning_follow_the_clock() {
        let mut archive = None;
        set_policy(&mut archive, 1, 1_000);
        let archive = archive.as_mut().unwrap();
        let message = |at: Millis| ArchivedMessage {
            id: at.to_string(),
            text: String::new(),
            subject: None,
            structure: None,
            attributes: BTreeMap::new(),
            group_id: "g".into(),
            dedup_id: None,
            sequence_number: at as u128,
            published_at: at,
        };
        archive.record(message(2_000), 2_000);
        archive.record(message(3_000), 3_000);
        assert_eq!(archive.beginning(3_000), 1_000);
        assert_eq!(archive.between(0, 10_000, 3_000).len(), 2);
        assert_eq!(archive.between(2_500, 10_000, 3_000).len(), 1);
        // A day after the first message it is gone, and the beginning has moved with the clock.
        let now = 2_000 + DAY_MS;
        assert_eq!(archive.beginning(now), 2_000);
        let left: Vec<String> = archive
            .between(0, now, now)
            .into_iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(left, ["3000"]);
    }
}
