//! Archives: CreateArchive, DescribeArchive, UpdateArchive, DeleteArchive, ListArchives, and
//! the capture of the events put on a bus into that bus's archives; replays live in
//! [`replays`]. Knows no wire format.
//!
//! An archive comes with a managed rule on its bus, `Events-Archive-<name>` (ManagedBy
//! `prod.vhs.events.aws.internal`), whose pattern is the archive's with `"replay-name":
//! [{"exists": false}]` added: AWS makes one so that replayed events are not archived again
//! (eb-archive). Its one target is AWS's: `arn:aws:events:<region>:::` with an input transformer
//! naming the archive ([`archive_target`]). That target is shown, never invoked: an event is
//! archived when the rule matches it (`capture`), so a replayed event is never archived.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

pub(super) mod replays;

use super::arns::rule_arn;
use super::buses::Empty;
use super::checks::{check_name, name_char, parse_pattern};
use super::errors::{EventsError, constraint};
use super::lookup::{self, page};
use super::store::{Archive, ArchivedEvent, InputTransformer, Rule, Target};
use super::times::epoch_seconds;
use crate::arn::Arn;
use crate::engine::time::{Millis, parse_rfc3339};
use crate::services::event::pattern::EventPattern;
use crate::services::{Context, set_given};
use crate::state::State;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

const NAME_PATTERN: &str = "[\\.\\-_A-Za-z0-9]+";
/// The `ManagedBy` of an archive's rule, as AWS shows it.
const MANAGED_BY: &str = "prod.vhs.events.aws.internal";
const DAY_MS: Millis = 86_400_000;
const ARCHIVE_STATES: &str =
    "[ENABLED, DISABLED, CREATING, UPDATING, CREATE_FAILED, UPDATE_FAILED]";

fn archive_arn(cx: &Context, name: &str) -> String {
    let resource = format!("archive/{name}");
    Arn::new("events", &cx.region, &cx.account, &resource).text()
}

fn archive_not_found(name: &str) -> EventsError {
    EventsError::ResourceNotFound(format!("Archive {name} does not exist."))
}

/// The name at the end of an ARN's resource path (`archive/<name>`, `rule/<bus>/<name>`,
/// `event-bus/<name>` → `<name>`); of a text that is not an ARN, what follows its last `/`.
fn arn_name(arn: &str) -> &str {
    let path = Arn::parse(arn).map_or(arn, |a| a.resource);
    path.rsplit('/').next().unwrap_or(path)
}

fn check_description(text: &Option<String>) -> Result<(), EventsError> {
    match text {
        Some(d) if d.chars().count() > 512 => Err(constraint(
            d,
            "description",
            "Member must have length less than or equal to 512",
        )),
        _ => Ok(()),
    }
}

fn check_enum(value: &Option<String>, allowed: &str) -> Result<(), EventsError> {
    match value {
        Some(v) if !allowed[1..allowed.len() - 1].split(", ").any(|s| s == v) => Err(constraint(
            v,
            "state",
            &format!("Member must satisfy enum value set: {allowed}"),
        )),
        _ => Ok(()),
    }
}

/// What CreateArchive and UpdateArchive may set, checked; answers the compiled pattern.
fn check_settings(
    settings: &ArchiveSettings,
) -> Result<Option<(String, EventPattern)>, EventsError> {
    check_description(&settings.description)?;
    if let Some(days) = settings.retention_days.filter(|d| *d < 0) {
        return Err(constraint(
            &days.to_string(),
            "retentionDays",
            "Member must have value greater than or equal to 0",
        ));
    }
    if let Some(key) = &settings.kms_key_identifier {
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '/' | ':');
        if key.chars().count() > 2048 || !key.chars().all(allowed) {
            return Err(constraint(
                key,
                "kmsKeyIdentifier",
                "Member must satisfy regular expression pattern: ^[a-zA-Z0-9_\\-/:]*$",
            ));
        }
    }
    let pattern = settings.event_pattern.as_deref();
    pattern
        .map(|text| parse_pattern(text).map(|p| (text.to_string(), p)))
        .transpose()
}

/// The managed rule's pattern: the archive's (a JSON object) with `replay-name` required absent.
fn managed_pattern(archive_pattern: Option<&str>) -> String {
    let mut fields = archive_pattern
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
        .and_then(|v| match v {
            Value::Object(fields) => Some(fields),
            _ => None,
        })
        .unwrap_or_default();
    fields.insert("replay-name".into(), json!([{"exists": false}]));
    Value::Object(fields).to_string()
}

/// The managed rule's pattern, as text and compiled.
fn managed_rule_pattern(
    archive_pattern: Option<&str>,
) -> Result<(String, EventPattern), EventsError> {
    let text = managed_pattern(archive_pattern);
    let compiled = EventPattern::parse(&text)
        .map_err(|err| EventsError::InvalidEventPattern(err.message()))?;
    Ok((text, compiled))
}

/// The target AWS gives an archive's rule: the rule's name as its id, the region's EventBridge
/// as its ARN, and an input transformer naming the archive (its ARN and an id of this
/// incarnation) around the event and its ingestion time.
fn archive_target(rule_name: &str, region: &str, archive_arn: &str, incarnation: &str) -> Target {
    let template = format!(
        "{{\"archive-arn\": \"{archive_arn}:{incarnation}\", \"event\": <aws.events.event.json>, \"ingestion-time\": <aws.events.event.ingestion-time>}}"
    );
    Target {
        id: rule_name.into(),
        arn: format!("arn:aws:events:{region}:::"),
        role_arn: None,
        input: None,
        input_path: None,
        input_transformer: Some(InputTransformer {
            input_paths_map: Some(Default::default()),
            input_template: template,
        }),
        retry_policy: None,
        dead_letter_config: None,
        sqs_parameters: None,
        http_parameters: None,
        other: Default::default(),
    }
}

/// Whether an event that reached an archive at `ingested_at` is still kept at `now`.
fn kept(ingested_at: Millis, retention_days: i64, now: Millis) -> bool {
    retention_days <= 0 || now < ingested_at + retention_days * DAY_MS
}

/// Drops the events past the archive's retention.
fn prune(archive: &mut Archive, now: Millis) {
    let days = archive.retention_days;
    // Events are in arrival order: the expired ones lead.
    let expired = archive
        .events
        .partition_point(|ev| !kept(ev.ingested_at, days, now));
    archive.events.drain(..expired);
}

/// A bus of the caller's, named by its ARN: (ARN, name).
fn own_bus(e: &mut State, cx: &Context, arn: &str) -> Result<(String, String), EventsError> {
    let now = e.now();
    e.events.ensure_default(&cx.region, &cx.account, now);
    match e.events.buses.get(arn) {
        Some(bus) if cx.owns(&bus.account, &bus.region) => Ok((bus.arn.clone(), bus.name.clone())),
        _ => Err(lookup::not_found(
            Arn::resource_path(arn, "event-bus").unwrap_or(arn),
        )),
    }
}

/// The archive a request names, with its expired events dropped.
fn archive_mut<'e>(
    e: &'e mut State,
    cx: &Context,
    name: &str,
) -> Result<&'e mut Archive, EventsError> {
    check_name(name, "archiveName", 48, NAME_PATTERN, name_char)?;
    let now = e.now();
    let archive = e
        .events
        .archives
        .get_mut(&archive_arn(cx, name))
        .ok_or_else(|| archive_not_found(name))?;
    prune(archive, now);
    Ok(archive)
}

/// Keeps `event` (just put on `bus_arn`) in every archive of that bus whose managed rule matches
/// it: the archive's pattern, and no `replay-name` (a replayed event another bus forwarded here).
pub(super) fn capture(e: &mut State, bus_arn: &str, event: &Value, size: usize) {
    let now = e.now();
    let time = event
        .get("time")
        .and_then(Value::as_str)
        .and_then(parse_rfc3339)
        .unwrap_or(now);
    let store = &mut e.events;
    let rules = &store.rules;
    for archive in store.archives.values_mut() {
        if archive.source_arn != bus_arn || archive.state != "ENABLED" {
            continue;
        }
        prune(archive, now);
        let matches = rules
            .get(&archive.rule_arn)
            .filter(|r| r.enabled())
            .and_then(|r| r.event_pattern.as_ref())
            .is_some_and(|(_, p)| p.matches(event));
        if matches {
            archive.events.push(ArchivedEvent {
                ingested_at: now,
                time,
                event: event.clone(),
                size,
            });
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct CreateArchiveInput {
    pub archive_name: String,
    pub event_source_arn: String,
    #[serde(flatten)]
    pub settings: ArchiveSettings,
}

/// The members CreateArchive and UpdateArchive share: what an archive keeps and how.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ArchiveSettings {
    pub description: Option<String>,
    pub event_pattern: Option<String>,
    pub retention_days: Option<i64>,
    pub kms_key_identifier: Option<String>,
}

/// CreateArchive's and UpdateArchive's answer.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ArchiveStateOutput {
    pub archive_arn: String,
    pub state: String,
    pub creation_time: Value,
}

pub(super) fn create_archive(
    e: &mut State,
    cx: &Context,
    input: CreateArchiveInput,
) -> Result<ArchiveStateOutput, EventsError> {
    let name = input.archive_name;
    check_name(&name, "archiveName", 48, NAME_PATTERN, name_char)?;
    let pattern = check_settings(&input.settings)?;
    let (bus_arn, bus_name) = own_bus(e, cx, &input.event_source_arn)?;
    let arn = archive_arn(cx, &name);
    if e.events.archives.contains_key(&arn) {
        return Err(EventsError::ResourceAlreadyExists(format!(
            "Archive {name} already exists."
        )));
    }
    let rule_name = format!("Events-Archive-{name}");
    // The bus is the caller's: its region and account are the caller's.
    let rule_arn = rule_arn(&cx.region, &cx.account, &bus_name, &rule_name);
    let rule_pattern = managed_rule_pattern(pattern.as_ref().map(|(text, _)| text.as_str()))?;
    let now = e.now();
    let target = archive_target(&rule_name, &cx.region, &arn, &e.engine.rng.uuid());
    e.events.rules.insert(
        rule_arn.clone(),
        Rule {
            name: rule_name,
            arn: rule_arn.clone(),
            bus_name,
            bus_arn: bus_arn.clone(),
            account: cx.account.clone(),
            region: cx.region.clone(),
            event_pattern: Some(rule_pattern),
            schedule: None,
            state: "ENABLED".into(),
            description: None,
            role_arn: None,
            managed_by: Some(MANAGED_BY.into()),
            created_at: now,
            generation: 0,
            host: cx.host.clone(),
            targets: vec![target],
        },
    );
    e.events.archives.insert(
        arn.clone(),
        Archive {
            name,
            arn: arn.clone(),
            account: cx.account.clone(),
            region: cx.region.clone(),
            source_arn: bus_arn,
            rule_arn,
            description: input.settings.description,
            event_pattern: pattern,
            retention_days: input.settings.retention_days.unwrap_or(0),
            kms_key_identifier: input.settings.kms_key_identifier,
            state: "ENABLED".into(),
            created_at: now,
            events: Vec::new(),
        },
    );
    Ok(ArchiveStateOutput {
        archive_arn: arn,
        state: "ENABLED".into(),
        creation_time: epoch_seconds(now),
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ArchiveNameInput {
    pub archive_name: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct DescribeArchiveOutput {
    pub archive_arn: String,
    pub archive_name: String,
    pub event_source_arn: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_pattern: Option<String>,
    pub state: String,
    pub retention_days: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kms_key_identifier: Option<String>,
    pub size_bytes: usize,
    pub event_count: usize,
    pub creation_time: Value,
}

pub(super) fn describe_archive(
    e: &mut State,
    cx: &Context,
    input: ArchiveNameInput,
) -> Result<DescribeArchiveOutput, EventsError> {
    let a = archive_mut(e, cx, &input.archive_name)?;
    Ok(DescribeArchiveOutput {
        archive_arn: a.arn.clone(),
        archive_name: a.name.clone(),
        event_source_arn: a.source_arn.clone(),
        description: a.description.clone(),
        event_pattern: a.event_pattern.as_ref().map(|(text, _)| text.clone()),
        state: a.state.clone(),
        retention_days: a.retention_days,
        kms_key_identifier: a.kms_key_identifier.clone(),
        size_bytes: a.size_bytes(),
        event_count: a.events.len(),
        creation_time: epoch_seconds(a.created_at),
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct UpdateArchiveInput {
    pub archive_name: String,
    #[serde(flatten)]
    pub settings: ArchiveSettings,
}

pub(super) fn update_archive(
    e: &mut State,
    cx: &Context,
    input: UpdateArchiveInput,
) -> Result<ArchiveStateOutput, EventsError> {
    let pattern = check_settings(&input.settings)?;
    let rule_pattern = pattern
        .as_ref()
        .map(|(text, _)| managed_rule_pattern(Some(text)))
        .transpose()?;
    let archive = archive_mut(e, cx, &input.archive_name)?;
    set_given(&mut archive.description, input.settings.description);
    if let Some(days) = input.settings.retention_days {
        archive.retention_days = days;
    }
    set_given(
        &mut archive.kms_key_identifier,
        input.settings.kms_key_identifier,
    );
    if pattern.is_some() {
        archive.event_pattern = pattern;
    }
    let out = ArchiveStateOutput {
        archive_arn: archive.arn.clone(),
        state: archive.state.clone(),
        creation_time: epoch_seconds(archive.created_at),
    };
    let rule_arn = archive.rule_arn.clone();
    if let (Some(rule), Some(rule_pattern)) = (e.events.rules.get_mut(&rule_arn), rule_pattern) {
        rule.event_pattern = Some(rule_pattern);
        rule.generation += 1;
    }
    Ok(out)
}

pub(super) fn delete_archive(
    e: &mut State,
    cx: &Context,
    input: ArchiveNameInput,
) -> Result<Empty, EventsError> {
    let arn = archive_mut(e, cx, &input.archive_name)?.arn.clone();
    if let Some(archive) = e.events.archives.remove(&arn) {
        let managed = e.events.rules.get(&archive.rule_arn);
        if managed.is_some_and(|r| r.managed_by.as_deref() == Some(MANAGED_BY)) {
            e.events.rules.remove(&archive.rule_arn);
        }
    }
    Ok(Empty {})
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListArchivesInput {
    pub name_prefix: Option<String>,
    pub event_source_arn: Option<String>,
    pub state: Option<String>,
    pub next_token: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ArchiveSummary {
    pub archive_name: String,
    pub event_source_arn: String,
    pub state: String,
    pub retention_days: i64,
    pub size_bytes: usize,
    pub event_count: usize,
    pub creation_time: Value,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListArchivesOutput {
    pub archives: Vec<ArchiveSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

pub(super) fn list_archives(
    e: &mut State,
    cx: &Context,
    input: ListArchivesInput,
) -> Result<ListArchivesOutput, EventsError> {
    let filters = [
        input.name_prefix.is_some(),
        input.event_source_arn.is_some(),
        input.state.is_some(),
    ];
    if filters.iter().filter(|f| **f).count() > 1 {
        return Err(EventsError::Validation(
            "At most one filter is allowed for ListArchives. Use either : State, EventSourceArn, or NamePrefix."
                .into(),
        ));
    }
    check_enum(&input.state, ARCHIVE_STATES)?;
    if let Some(arn) = &input.event_source_arn {
        own_bus(e, cx, arn)?;
    }
    let now = e.now();
    let prefix = input.name_prefix.unwrap_or_default();
    let mut archives: Vec<(String, ArchiveSummary)> = e
        .events
        .archives
        .values_mut()
        .filter(|a| cx.owns(&a.account, &a.region))
        .filter(|a| a.name.starts_with(&prefix))
        .filter(|a| input.state.as_ref().is_none_or(|s| *s == a.state))
        .filter(|a| {
            input
                .event_source_arn
                .as_ref()
                .is_none_or(|s| *s == a.source_arn)
        })
        .map(|a| {
            prune(a, now);
            let summary = ArchiveSummary {
                archive_name: a.name.clone(),
                event_source_arn: a.source_arn.clone(),
                state: a.state.clone(),
                retention_days: a.retention_days,
                size_bytes: a.size_bytes(),
                event_count: a.events.len(),
                creation_time: epoch_seconds(a.created_at),
            };
            (a.name.clone(), summary)
        })
        .collect();
    archives.sort_by(|a, b| a.0.cmp(&b.0));
    let (archives, next_token) = page(archives, input.next_token.as_deref(), input.limit)?;
    Ok(ListArchivesOutput {
        archives,
        next_token,
    })
}

/// A replay's next step.
pub(super) fn step_replay(e: &mut State, replay_arn: &str) {
    replays::step(e, replay_arn);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An archive holding events of these (event time, arrival time) pairs, in that order.
    pub(super) fn archive_with(events: &[(Millis, Millis)]) -> Archive {
        Archive {
            name: "a".into(),
            arn: "arn".into(),
            account: "000000000000".into(),
            region: "us-east-1".into(),
            source_arn: "bus".into(),
            rule_arn: "rule".into(),
            description: None,
            event_pattern: None,
            retention_days: 0,
            kms_key_identifier: None,
            state: "ENABLED".into(),
            created_at: 0,
            events: events
                .iter()
                .map(|&(time, ingested_at)| ArchivedEvent {
                    ingested_at,
                    time,
                    event: json!({"time": time}),
                    size: 10,
                })
                .collect(),
        }
    }

    #[test]
    fn pruning_drops_the_events_past_retention_and_keeps_the_rest() {
        let mut a = archive_with(&[(5, 0), (1, 1_000), (9, 2_000)]);
        prune(&mut a, 100 * DAY_MS);
        assert_eq!(a.events.len(), 3);
        a.retention_days = 1;
        prune(&mut a, DAY_MS + 1_000);
        let left: Vec<Millis> = a.events.iter().map(|e| e.ingested_at).collect();
        assert_eq!((left, a.size_bytes()), (vec![2_000], 10));
    }

    #[test]
    fn retention_counts_whole_days_from_arrival_and_zero_keeps_for_ever() {
        let cases = [
            (0, 0, 10 * 365 * DAY_MS, true),
            (1, 0, DAY_MS - 1, true),
            (1, 0, DAY_MS, false),
            (3, 1_000, 3 * DAY_MS + 999, true),
            (3, 1_000, 3 * DAY_MS + 1_000, false),
        ];
        for (days, at, now, expected) in cases {
            assert_eq!(kept(at, days, now), expected, "{days} {at} {now}");
        }
    }

    #[test]
    fn the_managed_rule_pattern_adds_replay_name_to_the_archive_pattern() {
        assert_eq!(
            managed_pattern(None),
            r#"{"replay-name":[{"exists":false}]}"#
        );
        assert_eq!(
            managed_pattern(Some(r#"{"source": ["shop"], "detail": {"n": [1]}}"#)),
            r#"{"source":["shop"],"detail":{"n":[1]},"replay-name":[{"exists":false}]}"#
        );
        let pattern = EventPattern::parse(&managed_pattern(Some(r#"{"source":["shop"]}"#)))
            .expect("valid pattern");
        assert!(pattern.matches(&json!({"source": "shop"})));
        assert!(!pattern.matches(&json!({"source": "shop", "replay-name": "r"})));
        assert!(!pattern.matches(&json!({"source": "other"})));
    }
}
