//! Partner event sources, both sides: the SaaS partner's operations (CreatePartnerEventSource,
//! DescribePartnerEventSource, ListPartnerEventSources, ListPartnerEventSourceAccounts,
//! DeletePartnerEventSource, PutPartnerEvents) and the customer's (DescribeEventSource,
//! ListEventSources, ActivateEventSource, DeactivateEventSource). The customer matches a source
//! with a partner event bus of the same name (CreateEventBus with EventSourceName, in `buses`).
//! Operations over the state: they must not depend on the runtime, the protocols or the server.
//!
//! A source's state is AWS's EventSourceState: `ACTIVE` while a matching bus exists and the
//! source is not deactivated, `PENDING` without a bus or while deactivated, `DELETED` once the
//! partner deleted it while the bus remains (a deleted source without a bus is gone).

use super::buses::Empty;
use super::errors::{EventsError, constraint};
use super::lookup::page;
use super::put_events::{Ingest, ingest};
use super::store::{PartnerSource, Store};
use super::times::{epoch_seconds, millis_of};
use crate::services::Context;
use crate::services::event::envelope::envelope;
use crate::state::State;
use serde::{Deserialize, Serialize};
use serde_json::Value;

const NAME_PATTERN: &str = "aws\\.partner(/[\\.\\-_A-Za-z0-9]+){2,}";
/// Entries PutPartnerEvents takes at most (the model's list limit).
const MAX_PARTNER_ENTRIES: usize = 20;

/// `aws.partner/<partner>/<at least one more segment>`, 1-256 characters.
fn check_source_name(name: &str, member: &str) -> Result<(), EventsError> {
    let segments: Vec<&str> = name.split('/').collect();
    let segment = |s: &&str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
    };
    let valid = name.chars().count() <= 256
        && match segments.as_slice() {
            ["aws.partner", rest @ ..] => rest.len() >= 2 && rest.iter().all(segment),
            _ => false,
        };
    if valid {
        return Ok(());
    }
    let rule = if name.is_empty() {
        "Member must have length greater than or equal to 1".to_string()
    } else if name.chars().count() > 256 {
        "Member must have length less than or equal to 256".to_string()
    } else {
        format!("Member must satisfy regular expression pattern: {NAME_PATTERN}")
    };
    Err(constraint(name, member, &rule))
}

fn check_account(account: &str) -> Result<(), EventsError> {
    if account.len() == 12 && account.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(());
    }
    Err(constraint(
        account,
        "account",
        "Member must satisfy regular expression pattern: \\d{12}",
    ))
}

fn not_found(name: &str) -> EventsError {
    EventsError::ResourceNotFound(format!("Event source {name} does not exist."))
}

/// The partner's name: the segment after `aws.partner/`.
fn partner_of(name: &str) -> &str {
    name.split('/').nth(1).unwrap_or(name)
}

/// The source's EventSourceState, seen from its customer's account.
fn state_of(e: &State, s: &PartnerSource) -> &'static str {
    let bus = Store::bus_arn(&s.region, &s.account, &s.name);
    match (e.events.buses.contains_key(&bus), s.deleted, s.deactivated) {
        (true, true, _) => "DELETED",
        (true, false, false) => "ACTIVE",
        _ => "PENDING",
    }
}

/// A source offered to the caller's account and still visible to it.
fn offered<'e>(e: &'e State, cx: &Context, name: &str) -> Result<&'e PartnerSource, EventsError> {
    e.events
        .partner_sources
        .get(&Store::partner_key(&cx.region, name))
        .filter(|s| s.account == cx.account && (!s.deleted || state_of(e, s) == "DELETED"))
        .ok_or_else(|| not_found(name))
}

/// A source the caller (the partner) made and has not deleted.
fn owned<'e>(e: &'e State, cx: &Context, name: &str) -> Option<&'e PartnerSource> {
    e.events
        .partner_sources
        .get(&Store::partner_key(&cx.region, name))
        .filter(|s| s.partner_account == cx.account && !s.deleted)
}

/// The sources of the caller's region whose names start with `prefix` (a List call's
/// NamePrefix).
fn sources_in<'e>(
    e: &'e State,
    cx: &'e Context,
    prefix: &'e str,
) -> impl Iterator<Item = &'e PartnerSource> + 'e {
    e.events
        .partner_sources
        .values()
        .filter(move |s| s.region == cx.region && s.name.starts_with(prefix))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PartnerSourceInput {
    pub name: String,
    pub account: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct CreatePartnerEventSourceOutput {
    pub event_source_arn: String,
}

pub(super) fn create_partner_event_source(
    e: &mut State,
    cx: &Context,
    input: PartnerSourceInput,
) -> Result<CreatePartnerEventSourceOutput, EventsError> {
    check_source_name(&input.name, "name")?;
    check_account(&input.account)?;
    let key = Store::partner_key(&cx.region, &input.name);
    if e.events
        .partner_sources
        .get(&key)
        .is_some_and(|s| !s.deleted)
    {
        return Err(EventsError::ResourceAlreadyExists(format!(
            "Event source {} already exists.",
            input.name
        )));
    }
    // The ARN has no account: the source is shared between partner and customer.
    let arn = format!("arn:aws:events:{}::event-source/{}", cx.region, input.name);
    let source = PartnerSource {
        name: input.name,
        arn: arn.clone(),
        region: cx.region.clone(),
        partner_account: cx.account.clone(),
        account: input.account,
        created_at: e.now(),
        deleted: false,
        deactivated: false,
    };
    e.events.partner_sources.insert(key, source);
    Ok(CreatePartnerEventSourceOutput {
        event_source_arn: arn,
    })
}

pub(super) fn delete_partner_event_source(
    e: &mut State,
    cx: &Context,
    input: PartnerSourceInput,
) -> Result<Empty, EventsError> {
    check_source_name(&input.name, "name")?;
    check_account(&input.account)?;
    let key = Store::partner_key(&cx.region, &input.name);
    let mine = owned(e, cx, &input.name).is_some_and(|s| s.account == input.account);
    if mine && let Some(source) = e.events.partner_sources.get_mut(&key) {
        source.deleted = true;
    }
    // A source without a matching bus is gone at once; with one, the bus sees it DELETED.
    let gone = e
        .events
        .partner_sources
        .get(&key)
        .is_some_and(|s| s.deleted && state_of(e, s) != "DELETED");
    if gone {
        e.events.partner_sources.remove(&key);
    }
    Ok(Empty {})
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct SourceNameInput {
    pub name: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PartnerEventSource {
    pub arn: String,
    pub name: String,
}

pub(super) fn describe_partner_event_source(
    e: &mut State,
    cx: &Context,
    input: SourceNameInput,
) -> Result<PartnerEventSource, EventsError> {
    check_source_name(&input.name, "name")?;
    let s = owned(e, cx, &input.name).ok_or_else(|| not_found(&input.name))?;
    Ok(PartnerEventSource {
        arn: s.arn.clone(),
        name: s.name.clone(),
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListInput {
    pub name_prefix: Option<String>,
    pub next_token: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListPartnerEventSourcesOutput {
    pub partner_event_sources: Vec<PartnerEventSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

pub(super) fn list_partner_event_sources(
    e: &mut State,
    cx: &Context,
    input: ListInput,
) -> Result<ListPartnerEventSourcesOutput, EventsError> {
    let prefix = input.name_prefix.unwrap_or_default();
    let items = sources_in(e, cx, &prefix)
        .filter(|s| owned(e, cx, &s.name).is_some())
        .map(|s| {
            let out = PartnerEventSource {
                arn: s.arn.clone(),
                name: s.name.clone(),
            };
            (s.name.clone(), out)
        })
        .collect();
    let (partner_event_sources, next_token) =
        page(items, input.next_token.as_deref(), input.limit)?;
    Ok(ListPartnerEventSourcesOutput {
        partner_event_sources,
        next_token,
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListAccountsInput {
    pub event_source_name: String,
    pub next_token: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PartnerEventSourceAccount {
    pub account: String,
    pub creation_time: Value,
    pub state: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListPartnerEventSourceAccountsOutput {
    pub partner_event_source_accounts: Vec<PartnerEventSourceAccount>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

pub(super) fn list_partner_event_source_accounts(
    e: &mut State,
    cx: &Context,
    input: ListAccountsInput,
) -> Result<ListPartnerEventSourceAccountsOutput, EventsError> {
    check_source_name(&input.event_source_name, "eventSourceName")?;
    let name = &input.event_source_name;
    let s = owned(e, cx, name).ok_or_else(|| not_found(name))?;
    let account = PartnerEventSourceAccount {
        account: s.account.clone(),
        creation_time: epoch_seconds(s.created_at),
        state: state_of(e, s).into(),
    };
    let items = vec![(s.account.clone(), account)];
    let (partner_event_source_accounts, next_token) =
        page(items, input.next_token.as_deref(), input.limit)?;
    Ok(ListPartnerEventSourceAccountsOutput {
        partner_event_source_accounts,
        next_token,
    })
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct EventSource {
    pub arn: String,
    pub created_by: String,
    pub creation_time: Value,
    pub name: String,
    pub state: String,
}

fn event_source(e: &State, s: &PartnerSource) -> EventSource {
    EventSource {
        arn: s.arn.clone(),
        created_by: partner_of(&s.name).into(),
        creation_time: epoch_seconds(s.created_at),
        name: s.name.clone(),
        state: state_of(e, s).into(),
    }
}

pub(super) fn describe_event_source(
    e: &mut State,
    cx: &Context,
    input: SourceNameInput,
) -> Result<EventSource, EventsError> {
    check_source_name(&input.name, "name")?;
    offered(e, cx, &input.name).map(|s| event_source(e, s))
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListEventSourcesOutput {
    pub event_sources: Vec<EventSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

pub(super) fn list_event_sources(
    e: &mut State,
    cx: &Context,
    input: ListInput,
) -> Result<ListEventSourcesOutput, EventsError> {
    let prefix = input.name_prefix.unwrap_or_default();
    let items = sources_in(e, cx, &prefix)
        .filter(|s| offered(e, cx, &s.name).is_ok())
        .map(|s| (s.name.clone(), event_source(e, s)))
        .collect();
    let (event_sources, next_token) = page(items, input.next_token.as_deref(), input.limit)?;
    Ok(ListEventSourcesOutput {
        event_sources,
        next_token,
    })
}

/// ActivateEventSource (`active`) or DeactivateEventSource. A deleted source cannot change
/// (InvalidStateException, the model's error for it).
pub(super) fn set_event_source_active(
    e: &mut State,
    cx: &Context,
    input: SourceNameInput,
    active: bool,
) -> Result<Empty, EventsError> {
    check_source_name(&input.name, "name")?;
    if offered(e, cx, &input.name)?.deleted {
        return Err(EventsError::InvalidState(format!(
            "Event source {} is deleted.",
            input.name
        )));
    }
    let key = Store::partner_key(&cx.region, &input.name);
    if let Some(source) = e.events.partner_sources.get_mut(&key) {
        source.deactivated = !active;
    }
    Ok(Empty {})
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PutPartnerEventsInput {
    pub entries: Vec<PartnerEntry>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PartnerEntry {
    pub source: Option<String>,
    pub detail_type: Option<String>,
    pub detail: Option<String>,
    #[serde(default)]
    pub resources: Vec<String>,
    pub time: Option<Value>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PartnerResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PutPartnerEventsOutput {
    pub failed_entry_count: usize,
    pub entries: Vec<PartnerResult>,
}

/// PutPartnerEvents: each entry's Source is one of the caller's partner event sources; the
/// event goes to the customer's matching bus while the source is ACTIVE there.
pub(super) fn put_partner_events(
    e: &mut State,
    cx: &Context,
    input: PutPartnerEventsInput,
) -> Result<PutPartnerEventsOutput, EventsError> {
    let count = input.entries.len();
    if count == 0 || count > MAX_PARTNER_ENTRIES {
        let rule = if count == 0 {
            "Member must have length greater than or equal to 1".to_string()
        } else {
            format!("Member must have length less than or equal to {MAX_PARTNER_ENTRIES}")
        };
        return Err(constraint("[...]", "entries", &rule));
    }
    let entries: Vec<PartnerResult> = input
        .entries
        .into_iter()
        .map(|entry| match put_partner_entry(e, cx, entry) {
            Ok(id) => PartnerResult {
                event_id: Some(id),
                error_code: None,
                error_message: None,
            },
            Err((code, message)) => PartnerResult {
                event_id: None,
                error_code: Some(code.into()),
                error_message: Some(message),
            },
        })
        .collect();
    Ok(PutPartnerEventsOutput {
        failed_entry_count: entries.iter().filter(|r| r.error_code.is_some()).count(),
        entries,
    })
}

fn put_partner_entry(
    e: &mut State,
    cx: &Context,
    entry: PartnerEntry,
) -> Result<String, (&'static str, String)> {
    let required = |value: Option<String>, name: &str| {
        value.filter(|v| !v.is_empty()).ok_or_else(|| {
            let reason =
                format!("Parameter {name} is not valid. Reason: {name} is a required argument.");
            ("InvalidArgument", reason)
        })
    };
    let source = required(entry.source, "Source")?;
    let detail_type = required(entry.detail_type, "DetailType")?;
    let detail = required(entry.detail, "Detail")?;
    let detail: Value = serde_json::from_str(&detail)
        .ok()
        .filter(Value::is_object)
        .ok_or(("MalformedDetail", "Detail is malformed.".to_string()))?;
    let Some(s) = owned(e, cx, &source) else {
        let denied = "Not authorized for the source.".to_string();
        return Err(("NotAuthorizedForSourceException", denied));
    };
    let (active, account, region) = (
        state_of(e, s) == "ACTIVE",
        s.account.clone(),
        s.region.clone(),
    );
    let time = match &entry.time {
        None => e.now(),
        Some(t) => millis_of(t).ok_or((
            "InvalidArgument",
            "Parameter Time is not valid. Reason: Time is not a valid timestamp.".to_string(),
        ))?,
    };
    let id = e.engine.rng.uuid();
    if active {
        let bus_arn = Store::bus_arn(&region, &account, &source);
        let event = envelope(
            &id,
            &detail_type,
            &source,
            &account,
            time,
            &region,
            &entry.resources,
            detail,
        );
        let how = Ingest {
            trail: vec![bus_arn.clone()],
            ..Ingest::default()
        };
        ingest(e, &bus_arn, event, how);
    }
    Ok(id)
}
