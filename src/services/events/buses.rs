//! Event buses: the `default` bus of each account and region, custom buses, their resource
//! policies (PutPermission / RemovePermission, or a whole Policy) that decide who else may put
//! events on them, the tags of buses and rules, and how every classic List operation pages.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::checks::{check_name, name_char};
use super::errors::{EventsError, constraint, managed};
use super::lookup::{existing, page};
use super::store::{Bus, Store};
use super::times::epoch_seconds;
use crate::arn::Arn;
use crate::services::{Context, SetMember, set_given};
use crate::state::{State, placed_in};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Event buses an account may have in a region, `default` included.
const MAX_BUSES: usize = 100;

/// A bus name as CreateEventBus and DeleteEventBus take it: up to 256 of `[/.\-_A-Za-z0-9]`.
fn check_bus_name(name: &str) -> Result<(), EventsError> {
    let bus_name_char = |c| name_char(c) || c == '/';
    check_name(name, "name", 256, "[/\\.\\-_A-Za-z0-9]+", bus_name_char)
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct CreateEventBusInput {
    pub name: String,
    pub event_source_name: Option<String>,
    pub description: Option<String>,
    pub kms_key_identifier: Option<String>,
    pub dead_letter_config: Option<Value>,
    pub log_config: Option<Value>,
    #[serde(default)]
    pub tags: Vec<Tag>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct Tag {
    pub key: String,
    pub value: String,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct BusOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_bus_arn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kms_key_identifier: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dead_letter_config: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_config: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creation_time: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified_time: Option<Value>,
}

fn check_dead_letter_config(config: &Option<Value>) -> Result<(), EventsError> {
    let Some(arn) = config.as_ref().and_then(|c| c.get("Arn")) else {
        return Ok(());
    };
    match arn.as_str() {
        Some(a) if a.starts_with("arn:aws:sqs:") => Ok(()),
        _ => Err(EventsError::Validation(format!(
            "Parameter DeadLetterConfig.Arn is not valid. Reason: Provided Arn is not in correct format. {arn}"
        ))),
    }
}

/// A custom bus's name has no '/' and does not start with `aws.`; a partner bus's name is its
/// partner event source's (AWS: "Event bus name must match event source name"), and that source
/// must be offered to the caller and not deleted.
fn check_partner_bus(
    e: &State,
    cx: &Context,
    name: &str,
    source: Option<&str>,
) -> Result<(), EventsError> {
    let Some(source) = source else {
        if name.contains('/') {
            return Err(EventsError::Validation(
                "Event bus name must not contain '/'.".into(),
            ));
        }
        if name.starts_with("aws.") {
            return Err(EventsError::Validation(
                "Event bus name must not start with 'aws.'.".into(),
            ));
        }
        return Ok(());
    };
    if name != source {
        return Err(EventsError::Validation(
            "Event bus name must match event source name.".into(),
        ));
    }
    let offered = e
        .events
        .partner_sources
        .get(&Store::partner_key(&cx.region, source))
        .is_some_and(|s| s.account == cx.account && !s.deleted);
    if !offered {
        return Err(EventsError::ResourceNotFound(format!(
            "Event source {source} does not exist."
        )));
    }
    Ok(())
}

pub(super) fn create_event_bus(
    e: &mut State,
    cx: &Context,
    input: CreateEventBusInput,
) -> Result<BusOutput, EventsError> {
    check_bus_name(&input.name)?;
    check_partner_bus(e, cx, &input.name, input.event_source_name.as_deref())?;
    check_dead_letter_config(&input.dead_letter_config)?;
    let now = e.now();
    e.events.ensure_default(&cx.region, &cx.account, now);
    let arn = Store::bus_arn(&cx.region, &cx.account, &input.name);
    if e.events.buses.contains_key(&arn) {
        return Err(EventsError::ResourceAlreadyExists(format!(
            "Event bus {} already exists.",
            input.name
        )));
    }
    let owned = placed_in(e.events.buses.values(), &cx.account, &cx.region);
    if owned.count() >= MAX_BUSES {
        return Err(EventsError::LimitExceeded(
            "The requested resource exceeds the maximum number allowed.".into(),
        ));
    }
    e.events.buses.insert(
        arn.clone(),
        Bus {
            name: input.name,
            arn: arn.clone(),
            account: cx.account.clone(),
            region: cx.region.clone(),
            description: input.description.clone(),
            policy: None,
            dead_letter_config: input.dead_letter_config.clone(),
            kms_key_identifier: input.kms_key_identifier.clone(),
            log_config: input.log_config.clone(),
            created_at: now,
            modified_at: now,
        },
    );
    if !input.tags.is_empty() {
        let tags = e.events.tags.entry(arn.clone()).or_default();
        tags.extend(input.tags.into_iter().map(|t| (t.key, t.value)));
    }
    Ok(BusOutput {
        event_bus_arn: Some(arn),
        description: input.description,
        kms_key_identifier: input.kms_key_identifier,
        dead_letter_config: input.dead_letter_config,
        log_config: input.log_config,
        ..BusOutput::default()
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct BusNameInput {
    pub name: Option<String>,
}

fn describe(bus: &Bus) -> BusOutput {
    BusOutput {
        name: Some(bus.name.clone()),
        arn: Some(bus.arn.clone()),
        description: bus.description.clone(),
        kms_key_identifier: bus.kms_key_identifier.clone(),
        dead_letter_config: bus.dead_letter_config.clone(),
        log_config: bus.log_config.clone(),
        policy: bus.policy.as_ref().map(Value::to_string),
        creation_time: Some(epoch_seconds(bus.created_at)),
        last_modified_time: Some(epoch_seconds(bus.modified_at)),
        ..BusOutput::default()
    }
}

pub(super) fn describe_event_bus(
    e: &mut State,
    cx: &Context,
    input: BusNameInput,
) -> Result<BusOutput, EventsError> {
    existing(e, cx, input.name.as_deref()).map(|bus| describe(bus))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct UpdateEventBusInput {
    pub name: Option<String>,
    pub description: Option<String>,
    pub kms_key_identifier: Option<String>,
    pub dead_letter_config: Option<Value>,
    pub log_config: Option<Value>,
}

pub(super) fn update_event_bus(
    e: &mut State,
    cx: &Context,
    input: UpdateEventBusInput,
) -> Result<BusOutput, EventsError> {
    check_dead_letter_config(&input.dead_letter_config)?;
    let now = e.now();
    let bus = existing(e, cx, input.name.as_deref())?;
    set_given(&mut bus.description, input.description);
    set_given(&mut bus.kms_key_identifier, input.kms_key_identifier);
    set_given(&mut bus.dead_letter_config, input.dead_letter_config);
    set_given(&mut bus.log_config, input.log_config);
    bus.modified_at = now;
    let out = describe(bus);
    Ok(BusOutput {
        policy: None,
        creation_time: None,
        last_modified_time: None,
        ..out
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct DeleteEventBusInput {
    pub name: String,
}

#[derive(Debug, Serialize)]
pub(super) struct Empty {}

pub(super) fn delete_event_bus(
    e: &mut State,
    cx: &Context,
    input: DeleteEventBusInput,
) -> Result<Empty, EventsError> {
    check_bus_name(&input.name)?;
    if input.name == "default" {
        return Err(EventsError::Validation(
            "Cannot delete event bus default.".into(),
        ));
    }
    let arn = Store::bus_arn(&cx.region, &cx.account, &input.name);
    if e.events.rules_of(&arn).next().is_some() {
        return Err(EventsError::Validation(
            "EventBus can't be deleted since it has rules.".into(),
        ));
    }
    // Deleting a bus that is not there succeeds, as in AWS.
    if e.events.buses.remove(&arn).is_some() {
        e.events.tags.remove(&arn);
    }
    Ok(Empty {})
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListEventBusesInput {
    pub name_prefix: Option<String>,
    pub next_token: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListEventBusesOutput {
    pub event_buses: Vec<BusOutput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

pub(super) fn list_event_buses(
    e: &mut State,
    cx: &Context,
    input: ListEventBusesInput,
) -> Result<ListEventBusesOutput, EventsError> {
    let now = e.now();
    e.events.ensure_default(&cx.region, &cx.account, now);
    let prefix = input.name_prefix.unwrap_or_default();
    let mut buses: Vec<(String, BusOutput)> =
        placed_in(e.events.buses.values(), &cx.account, &cx.region)
            .filter(|b| b.name.starts_with(&prefix))
            .map(|b| {
                let out = BusOutput {
                    kms_key_identifier: None,
                    dead_letter_config: None,
                    log_config: None,
                    ..describe(b)
                };
                (b.name.clone(), out)
            })
            .collect();
    buses.sort_by(|a, b| a.0.cmp(&b.0));
    let (event_buses, next_token) = page(buses, input.next_token.as_deref(), input.limit)?;
    Ok(ListEventBusesOutput {
        event_buses,
        next_token,
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PutPermissionInput {
    pub event_bus_name: Option<String>,
    pub action: Option<String>,
    pub principal: Option<String>,
    pub statement_id: Option<String>,
    pub condition: Option<Condition>,
    pub policy: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct Condition {
    pub r#type: String,
    pub key: String,
    pub value: String,
}

pub(super) fn put_permission(
    e: &mut State,
    cx: &Context,
    input: PutPermissionInput,
) -> Result<Empty, EventsError> {
    let now = e.now();
    let bus = existing(e, cx, input.event_bus_name.as_deref())?;
    if let Some(text) = &input.policy {
        let policy: Value = serde_json::from_str(text)
            .ok()
            .filter(|p: &Value| p.get("Statement").is_some())
            .ok_or_else(|| {
                EventsError::Validation(
                    "Parameter Policy is not valid. Reason: Invalid JSON.".into(),
                )
            })?;
        if text.len() > 10_240 {
            return Err(EventsError::PolicyLengthExceeded(
                "The event bus policy is too long.".into(),
            ));
        }
        bus.policy = Some(policy);
        bus.modified_at = now;
        return Ok(Empty {});
    }
    let missing = |name: &str| {
        EventsError::Validation(format!(
            "Parameter {name} is not valid. Reason: {name} is required when Policy is not provided."
        ))
    };
    let action = input.action.ok_or_else(|| missing("Action"))?;
    let principal = input.principal.ok_or_else(|| missing("Principal"))?;
    let sid = input.statement_id.ok_or_else(|| missing("StatementId"))?;
    check_name(&sid, "statementId", 64, "[a-zA-Z0-9-_]+", |c| {
        c.is_ascii_alphanumeric() || c == '-' || c == '_'
    })?;
    if action != "events:PutEvents" {
        return Err(EventsError::Validation(format!(
            "Provided value in parameter 'action' is not supported: {action}"
        )));
    }
    let account_like = principal.len() == 12 && principal.bytes().all(|b| b.is_ascii_digit());
    if principal != "*" && !account_like {
        return Err(constraint(
            &principal,
            "principal",
            "Member must satisfy regular expression pattern: (\\d{12}|\\*)",
        ));
    }
    let mut statement = json!({
        "Sid": sid,
        "Effect": "Allow",
        "Principal": if principal == "*" { json!("*") } else { json!({"AWS": Arn::root(&principal)}) },
        "Action": action,
        "Resource": bus.arn,
    });
    if let Some(c) = input.condition {
        statement.set("Condition", json!({ c.r#type: { c.key: c.value } }));
    }
    let policy = bus
        .policy
        .get_or_insert_with(|| json!({"Version": "2012-10-17", "Statement": []}));
    let statements = policy.get_mut("Statement").and_then(Value::as_array_mut);
    let Some(statements) = statements else {
        return Err(EventsError::Validation(
            "The event bus policy has no Statement list.".into(),
        ));
    };
    // A statement id already in the policy is replaced (AWS-recorded: "put permission just
    // replaces the existing permission").
    let same_sid = |s: &&mut Value| s.get("Sid").and_then(Value::as_str) == Some(sid.as_str());
    match statements.iter_mut().find(same_sid) {
        Some(existing) => *existing = statement,
        None => statements.push(statement),
    }
    bus.modified_at = now;
    Ok(Empty {})
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct RemovePermissionInput {
    pub statement_id: Option<String>,
    #[serde(default)]
    pub remove_all_permissions: bool,
    pub event_bus_name: Option<String>,
}

pub(super) fn remove_permission(
    e: &mut State,
    cx: &Context,
    input: RemovePermissionInput,
) -> Result<Empty, EventsError> {
    let now = e.now();
    let bus = existing(e, cx, input.event_bus_name.as_deref())?;
    if input.remove_all_permissions {
        bus.policy = None;
        bus.modified_at = now;
        return Ok(Empty {});
    }
    let sid = input.statement_id.ok_or_else(|| {
        EventsError::Validation(
            "Parameter StatementId is not valid. Reason: StatementId is required when RemoveAllPermissions is not true."
                .into(),
        )
    })?;
    // AWS answers the same whether the bus has no policy or no such statement (recorded).
    let unknown =
        || EventsError::ResourceNotFound("Statement with the provided id does not exist.".into());
    let statements = bus
        .policy
        .as_mut()
        .and_then(|p| p["Statement"].as_array_mut())
        .ok_or_else(unknown)?;
    let before = statements.len();
    statements.retain(|s| s["Sid"] != sid.as_str());
    if statements.len() == before {
        return Err(unknown());
    }
    if statements.is_empty() {
        bus.policy = None;
    }
    bus.modified_at = now;
    Ok(Empty {})
}

pub(super) use super::access::allows;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct TagResourceInput {
    #[serde(rename = "ResourceARN")]
    pub resource_arn: String,
    pub tags: Vec<Tag>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct UntagResourceInput {
    #[serde(rename = "ResourceARN")]
    pub resource_arn: String,
    pub tag_keys: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListTagsForResourceInput {
    #[serde(rename = "ResourceARN")]
    pub resource_arn: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListTagsForResourceOutput {
    pub tags: Vec<Tag>,
}

/// A rule EventBridge manages (an archive's) takes no tag changes (ManagedRuleException names
/// TagResource and UntagResource).
fn unmanaged(e: &State, arn: &str) -> Result<(), EventsError> {
    match e.events.rules.get(arn) {
        Some(rule) if rule.managed_by.is_some() => Err(managed(&rule.name)),
        _ => Ok(()),
    }
}

/// Tags go on event buses and rules.
fn taggable(e: &mut State, cx: &Context, arn: &str) -> Result<(), EventsError> {
    let now = e.now();
    e.events.ensure_default(&cx.region, &cx.account, now);
    if e.events.buses.contains_key(arn) || e.events.rules.contains_key(arn) {
        return Ok(());
    }
    let typed = Arn::parse(arn).and_then(|a| a.resource.split_once('/'));
    let what = match typed {
        // AWS names the rule and its bus ("Rule r does not exist on EventBus default.").
        Some(("rule", path)) => {
            let (bus, name) = path.rsplit_once('/').unwrap_or(("default", path));
            format!("Rule {name} does not exist on EventBus {bus}.")
        }
        Some(("event-bus", name)) => format!("Event bus {name} does not exist."),
        _ => format!("Resource {arn} does not exist."),
    };
    Err(EventsError::ResourceNotFound(what))
}

const MAX_TAGS: usize = 50;

pub(super) fn tag_resource(
    e: &mut State,
    cx: &Context,
    input: TagResourceInput,
) -> Result<Empty, EventsError> {
    taggable(e, cx, &input.resource_arn)?;
    unmanaged(e, &input.resource_arn)?;
    for tag in &input.tags {
        check_name(&tag.key, "tags.member.key", 128, "any", |_| true)?;
        if tag.value.chars().count() > 256 {
            return Err(constraint(
                &tag.value,
                "tags.member.value",
                "Member must have length less than or equal to 256",
            ));
        }
    }
    let tags = e.events.tags.entry(input.resource_arn).or_default();
    let mut merged: BTreeMap<String, String> = tags.clone();
    merged.extend(input.tags.into_iter().map(|t| (t.key, t.value)));
    if merged.len() > MAX_TAGS {
        return Err(EventsError::LimitExceeded(
            "The requested resource exceeds the maximum number allowed.".into(),
        ));
    }
    *tags = merged;
    Ok(Empty {})
}

pub(super) fn untag_resource(
    e: &mut State,
    cx: &Context,
    input: UntagResourceInput,
) -> Result<Empty, EventsError> {
    taggable(e, cx, &input.resource_arn)?;
    unmanaged(e, &input.resource_arn)?;
    if let Some(tags) = e.events.tags.get_mut(&input.resource_arn) {
        for key in &input.tag_keys {
            tags.remove(key);
        }
    }
    Ok(Empty {})
}

pub(super) fn list_tags_for_resource(
    e: &mut State,
    cx: &Context,
    input: ListTagsForResourceInput,
) -> Result<ListTagsForResourceOutput, EventsError> {
    taggable(e, cx, &input.resource_arn)?;
    let tags = e
        .events
        .tags
        .get(&input.resource_arn)
        .map(|tags| {
            tags.iter()
                .map(|(k, v)| Tag {
                    key: k.clone(),
                    value: v.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(ListTagsForResourceOutput { tags })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bus(policy: Value) -> Bus {
        Bus {
            name: "b".into(),
            arn: "arn:aws:events:us-east-1:111111111111:event-bus/b".into(),
            account: "111111111111".into(),
            region: "us-east-1".into(),
            description: None,
            policy: Some(policy),
            dead_letter_config: None,
            kms_key_identifier: None,
            log_config: None,
            created_at: 0,
            modified_at: 0,
        }
    }

    #[test]
    fn bus_policies_decide_who_may_put_events() {
        let allow = |principal: Value| json!({"Statement": [{"Effect": "Allow", "Principal": principal, "Action": "events:PutEvents"}]});
        let cases = [
            (allow(json!("*")), "222222222222", true),
            (allow(json!({"AWS": "222222222222"})), "222222222222", true),
            (
                allow(json!({"AWS": ["arn:aws:iam::222222222222:root"]})),
                "222222222222",
                true,
            ),
            (allow(json!({"AWS": "333333333333"})), "222222222222", false),
            (json!({"Statement": []}), "222222222222", false),
            (
                json!({"Statement": [
                    {"Effect": "Allow", "Principal": "*", "Action": "events:*"},
                    {"Effect": "Deny", "Principal": {"AWS": "222222222222"}, "Action": "events:PutEvents"}
                ]}),
                "222222222222",
                false,
            ),
            (
                json!({"Statement": [{"Effect": "Allow", "Principal": "*", "Action": "events:PutEvents",
                    "Condition": {"StringEquals": {"aws:PrincipalOrgID": "o-1"}}}]}),
                "222222222222",
                false,
            ),
        ];
        for (policy, account, expected) in cases {
            assert_eq!(
                allows(&bus(policy.clone()), account, "events:PutEvents"),
                expected,
                "{policy}"
            );
        }
    }

    #[test]
    fn pages_follow_opaque_tokens() {
        let items: Vec<(String, u32)> = (0..5).map(|i| (format!("k{i}"), i)).collect();
        let (first, token) = page(items.clone(), None, Some(2)).unwrap();
        assert_eq!((first, token.as_deref()), (vec![0, 1], Some("azE=")));
        let (second, token) = page(items.clone(), token.as_deref(), Some(2)).unwrap();
        assert_eq!((second, token.as_deref()), (vec![2, 3], Some("azM=")));
        let (last, token) = page(items.clone(), token.as_deref(), Some(2)).unwrap();
        assert_eq!((last, token), (vec![4], None));
        let refused = page(items, Some("k1"), Some(2)).unwrap_err();
        assert_eq!(refused, EventsError::Validation("Invalid NextToken".into()));
    }
}
