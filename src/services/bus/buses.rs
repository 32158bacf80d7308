//! Custom buses (CreateEventBus, GetEventBus, ListEventBuses, DeleteEventBus), the tags of
//! buses and subscribers, and how the custom bus's List operations page. A bus ARN is
//! `arn:aws:events:<region>:<account>:event-busv2/<name>/<id>` with a generated id (or the one a
//! `switchyard:id` tag pins, see docs/custom-bus.md).
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::store::{Bus, DEFAULT_RETENTION_DAYS};
use super::{V2Error, constraint, in_range, length};
use crate::arn::Arn;
use crate::services::events::checks::name_char;
use crate::services::events::times::epoch_seconds;
use crate::services::page::{Pager, Sizes, Tokens, size_rule};
use crate::services::{Context, SetMember};
use crate::state::State;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Buses an account may have in a region.
const MAX_BUSES: usize = 100;
/// Tags a resource may carry.
const MAX_TAGS: usize = 50;
/// The tag that pins a new resource's generated id (switchyard's own; kept as a normal tag).
pub const ID_TAG: &str = "switchyard:id";
const ID_ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
/// Length of generated bus and subscriber ids (25 characters, as AWS's are said to be).
const ID_LENGTH: usize = 25;

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Tag {
    pub key: String,
    pub value: String,
}

/// Checks a name against the model's length range and `[\.\-_A-Za-z0-9]+`.
pub fn check_name(value: &str, member: &str, max: usize) -> Result<(), V2Error> {
    length(value, member, 1, max)?;
    if !value.chars().all(name_char) {
        return Err(constraint(
            value,
            member,
            "Member must satisfy regular expression pattern: [\\.\\-_A-Za-z0-9]+",
        ));
    }
    Ok(())
}

/// Checks tags and answers the id a `switchyard:id` tag pins, if any.
pub fn check_tags(tags: &[Tag], member: &str) -> Result<Option<String>, V2Error> {
    if tags.len() > MAX_TAGS {
        return Err(constraint(
            format!("{} tags", tags.len()),
            member,
            &format!("Member must have length less than or equal to {MAX_TAGS}"),
        ));
    }
    let mut pinned = None;
    for tag in tags {
        length(&tag.key, &format!("{member}.member.key"), 1, 128)?;
        length(&tag.value, &format!("{member}.member.value"), 0, 256)?;
        if tag.key.starts_with("aws:") {
            return Err(V2Error::Validation(
                "Tag keys must not start with 'aws:'.".into(),
            ));
        }
        if tag.key == ID_TAG {
            let ok = (1..=64).contains(&tag.value.len())
                && tag.value.bytes().all(|b| b.is_ascii_alphanumeric());
            if !ok {
                return Err(V2Error::Validation(format!(
                    "Tag {ID_TAG} must be 1 to 64 letters and digits."
                )));
            }
            pinned = Some(tag.value.clone());
        }
    }
    Ok(pinned)
}

/// A new resource id: the pinned one, or 25 random letters and digits.
pub fn new_id(e: &mut State, pinned: Option<String>) -> String {
    pinned.unwrap_or_else(|| e.engine.rng.token(ID_ALPHABET, ID_LENGTH))
}

pub fn store_tags(e: &mut State, arn: &str, tags: Vec<Tag>) {
    if tags.is_empty() {
        return;
    }
    let stored = e.bus.tags.entry(arn.to_string()).or_default();
    stored.extend(tags.into_iter().map(|t| (t.key, t.value)));
}

pub fn bus_not_found(arn: &str) -> V2Error {
    V2Error::ResourceNotFound(format!("Event bus {arn} does not exist."))
}

/// The bus an ARN names, in the caller's account.
pub fn own_bus<'e>(e: &'e mut State, cx: &Context, arn: &str) -> Result<&'e mut Bus, V2Error> {
    match e.bus.buses.get_mut(arn) {
        Some(bus) if cx.owns(&bus.account, &bus.region) => Ok(bus),
        _ => Err(bus_not_found(arn)),
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateEventBusInput {
    pub name: String,
    pub retention_period_in_days: Option<i64>,
    pub description: Option<String>,
    #[serde(default)]
    pub tags: Vec<Tag>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateEventBusOutput {
    pub event_bus_arn: String,
}

pub fn create_event_bus(
    e: &mut State,
    cx: &Context,
    input: CreateEventBusInput,
) -> Result<CreateEventBusOutput, V2Error> {
    check_name(&input.name, "name", 256)?;
    let retention = input.retention_period_in_days;
    if let Some(days) = retention {
        in_range(days, "retentionPeriodInDays", 1, 365)?;
    }
    if let Some(d) = &input.description {
        length(d, "description", 0, 512)?;
    }
    let pinned = check_tags(&input.tags, "tags")?;
    let mine = |b: &&Bus| cx.owns(&b.account, &b.region);
    if e.bus
        .buses
        .values()
        .filter(mine)
        .any(|b| b.name == input.name)
    {
        return Err(V2Error::ResourceAlreadyExists(format!(
            "Event bus {} already exists.",
            input.name
        )));
    }
    if e.bus.buses.values().filter(mine).count() >= MAX_BUSES {
        return Err(V2Error::LimitExceeded(
            "The requested resource exceeds the maximum number allowed.".into(),
        ));
    }
    let id = new_id(e, pinned);
    let resource = format!("event-busv2/{}/{id}", input.name);
    let arn = Arn::new("events", &cx.region, &cx.account, &resource).text();
    let now = e.now();
    let bus = Bus {
        arn: arn.clone(),
        name: input.name,
        account: cx.account.clone(),
        region: cx.region.clone(),
        description: input.description,
        retention_days: retention.unwrap_or(DEFAULT_RETENTION_DAYS),
        created_at: now,
        modified_at: now,
        events: Vec::new(),
        sequence: 0,
    };
    e.bus.buses.insert(arn.clone(), bus);
    store_tags(e, &arn, input.tags);
    Ok(CreateEventBusOutput { event_bus_arn: arn })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct BusArnInput {
    pub event_bus_arn: String,
}

fn describe(bus: &Bus) -> Value {
    let mut out = json!({
        "EventBusArn": bus.arn,
        "Name": bus.name,
        "RetentionPeriodInDays": bus.retention_days,
        "State": "ACTIVE",
        "CreationTime": epoch_seconds(bus.created_at),
        "LastModifiedTime": epoch_seconds(bus.modified_at),
    });
    if let Some(d) = &bus.description {
        out.set("Description", json!(d));
    }
    out
}

pub fn get_event_bus(e: &mut State, cx: &Context, input: BusArnInput) -> Result<Value, V2Error> {
    own_bus(e, cx, &input.event_bus_arn).map(|bus| describe(bus))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListInput {
    pub name_prefix: Option<String>,
    pub next_token: Option<String>,
    pub max_results: Option<i64>,
}

/// How the custom bus's List operations (buses, subscribers, event streams) page: `MaxResults`
/// 1 to 100 (100 when absent), the last ARN of a page as its `NextToken`, any token taken.
const PAGER: Pager<V2Error> = Pager {
    sizes: Sizes::UpTo {
        max: 100,
        refuse: |n, max| constraint(n, "maxResults", &size_rule(n, max)),
    },
    tokens: Tokens::Key,
};

/// Whether a List call's NamePrefix lets `name` through (no prefix lets every name through).
pub fn has_prefix(name: &str, prefix: Option<&str>) -> bool {
    prefix.is_none_or(|p| name.starts_with(p))
}

/// One page of `items` (ARN-ordered, filtered) after `next_token`, answered as
/// `{"<list>": [...], "NextToken": "..."}`.
pub fn page(
    list: &str,
    items: Vec<(String, Value)>,
    next_token: Option<&str>,
    max_results: Option<i64>,
) -> Result<Value, V2Error> {
    PAGER.page_json(list, items, next_token, max_results)
}

pub fn list_event_buses(e: &mut State, cx: &Context, input: ListInput) -> Result<Value, V2Error> {
    if let Some(p) = &input.name_prefix {
        check_name(p, "namePrefix", 256)?;
    }
    let items = e
        .bus
        .buses
        .values()
        .filter(|b| cx.owns(&b.account, &b.region))
        .filter(|b| has_prefix(&b.name, input.name_prefix.as_deref()))
        .map(|b| {
            let mut summary = describe(b);
            if let Some(o) = summary.as_object_mut() {
                o.remove("StateReason");
            }
            (b.arn.clone(), summary)
        })
        .collect();
    page(
        "EventBuses",
        items,
        input.next_token.as_deref(),
        input.max_results,
    )
}

pub fn delete_event_bus(e: &mut State, cx: &Context, input: BusArnInput) -> Result<Value, V2Error> {
    let bus = own_bus(e, cx, &input.event_bus_arn)?;
    let (arn, name) = (bus.arn.clone(), bus.name.clone());
    if e.bus.subscribers.values().any(|s| s.bus_arn == arn) {
        return Err(V2Error::ResourceInUse(format!(
            "Event bus {name} has subscribers. Delete them before the event bus."
        )));
    }
    if e.streams.streams.values().any(|s| s.source.arn() == arn) {
        return Err(V2Error::ResourceInUse(format!(
            "Event bus {name} is the source of event streams. Delete them before the event bus."
        )));
    }
    e.bus.buses.remove(&arn);
    e.bus.tags.remove(&arn);
    e.bus.dedup.retain(|k, _| k.bus_arn != arn);
    Ok(json!({}))
}

/// The caller's bus, subscriber or event stream an ARN names, for the tag operations.
fn tagged_resource(e: &State, cx: &Context, arn: &str) -> Result<(), V2Error> {
    let bus = e.bus.buses.get(arn).map(|b| (&b.account, &b.region));
    let subscriber = e.bus.subscribers.get(arn).map(|s| (&s.account, &s.region));
    let stream = e.streams.streams.get(arn).map(|s| (&s.account, &s.region));
    match bus.or(subscriber).or(stream) {
        Some((account, region)) if cx.owns(account, region) => Ok(()),
        _ => Err(V2Error::ResourceNotFound(format!(
            "Resource {arn} does not exist."
        ))),
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TagResourceInput {
    pub resource_arn: String,
    pub tags: Vec<Tag>,
}

pub fn tag_resource(
    e: &mut State,
    cx: &Context,
    input: TagResourceInput,
) -> Result<Value, V2Error> {
    tagged_resource(e, cx, &input.resource_arn)?;
    check_tags(&input.tags, "tags")?;
    let current = e.bus.tags.get(&input.resource_arn);
    let mut merged: BTreeMap<String, String> = current.cloned().unwrap_or_default();
    merged.extend(input.tags.iter().map(|t| (t.key.clone(), t.value.clone())));
    if merged.len() > MAX_TAGS {
        return Err(V2Error::LimitExceeded(format!(
            "A resource can have at most {MAX_TAGS} tags."
        )));
    }
    e.bus.tags.insert(input.resource_arn, merged);
    Ok(json!({}))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UntagResourceInput {
    pub resource_arn: String,
    pub tag_keys: Vec<String>,
}

pub fn untag_resource(
    e: &mut State,
    cx: &Context,
    input: UntagResourceInput,
) -> Result<Value, V2Error> {
    tagged_resource(e, cx, &input.resource_arn)?;
    if let Some(tags) = e.bus.tags.get_mut(&input.resource_arn) {
        for key in &input.tag_keys {
            tags.remove(key);
        }
    }
    Ok(json!({}))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ResourceArnInput {
    pub resource_arn: String,
}

pub fn list_tags_for_resource(
    e: &mut State,
    cx: &Context,
    input: ResourceArnInput,
) -> Result<Value, V2Error> {
    tagged_resource(e, cx, &input.resource_arn)?;
    let tags: Vec<Tag> = e
        .bus
        .tags
        .get(&input.resource_arn)
        .into_iter()
        .flatten()
        .map(|(key, value)| Tag {
            key: key.clone(),
            value: value.clone(),
        })
        .collect();
    Ok(json!({ "Tags": tags }))
}
