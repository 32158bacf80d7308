//! Schedule groups (with the `default` group every account and region has) and their tags.

use super::shapes::{
    CreateGroupInput, GroupName, ListGroupsInput, ResourceArn, TagResourceInput, UntagResourceInput,
};
use super::store::{Group, Scope, Timer};
use super::{check_name, conflict, date, not_found, validation};
use crate::arn::Arn;
use crate::engine::time::Millis;
use crate::error::AwsError;
use crate::services::page::{Pager, Sizes, Tokens, size_rule};
use crate::services::{Context, SetMember};
use crate::state::{State, Step};
use serde_json::{Value, json};
use std::collections::BTreeMap;

pub(super) const DEFAULT: &str = "default";
/// Schedule groups per account and region (AWS's quota, not adjustable).
const MAX_GROUPS: usize = 500;

pub(super) fn scope(cx: &Context) -> Scope {
    (cx.account.clone(), cx.region.clone())
}

pub(super) fn group_arn(cx: &Context, name: &str) -> String {
    let resource = format!("schedule-group/{name}");
    Arn::new("scheduler", &cx.region, &cx.account, &resource).text()
}

/// The groups of the caller's scope, the `default` group made on first use.
pub(super) fn groups<'a>(state: &'a mut State, cx: &Context) -> &'a mut BTreeMap<String, Group> {
    let now = state.now();
    let groups = state.scheduler.groups.entry(scope(cx)).or_default();
    groups.entry(DEFAULT.to_string()).or_insert_with(|| Group {
        arn: group_arn(cx, DEFAULT),
        created: now,
        modified: now,
        tags: Vec::new(),
        deleting: false,
    });
    groups
}

fn group_not_found(name: &str) -> AwsError {
    not_found(format!("Schedule group {name} does not exist."))
}

pub(super) fn create(
    state: &mut State,
    cx: &Context,
    input: CreateGroupInput,
) -> Result<Value, AwsError> {
    let CreateGroupInput { name, tags } = input;
    let name = name.as_str();
    check_name(name, "name")?;
    check_tags(&tags)?;
    let now = state.now();
    let groups = groups(state, cx);
    if groups.contains_key(name) {
        return Err(conflict(format!("Schedule group {name} already exists.")));
    }
    if groups.len() >= MAX_GROUPS {
        return Err(AwsError::new(
            "ServiceQuotaExceededException",
            402,
            format!("The quota of {MAX_GROUPS} schedule groups is reached."),
        ));
    }
    let arn = group_arn(cx, name);
    let group = Group {
        arn: arn.clone(),
        created: now,
        modified: now,
        tags,
        deleting: false,
    };
    groups.insert(name.to_string(), group);
    Ok(json!({ "ScheduleGroupArn": arn }))
}

fn summary(name: &str, group: &Group) -> Value {
    json!({
        "Arn": group.arn,
        "CreationDate": date(group.created),
        "LastModificationDate": date(group.modified),
        "Name": name,
        "State": if group.deleting { "DELETING" } else { "ACTIVE" },
    })
}

pub(super) fn get(state: &mut State, cx: &Context, input: GroupName) -> Result<Value, AwsError> {
    let name = input.name.as_str();
    let group = groups(state, cx)
        .get(name)
        .ok_or_else(|| group_not_found(name))?;
    Ok(summary(name, group))
}

/// The pager of Scheduler's List operations: `MaxResults` 1 to 100, opaque tokens.
pub(super) const PAGER: Pager<AwsError> = Pager {
    sizes: Sizes::UpTo {
        max: 100,
        refuse: |asked, max| {
            validation(crate::services::validation_message(
                asked,
                "maxResults",
                &size_rule(asked, max),
            ))
        },
    },
    tokens: Tokens::Base64Key(|| validation("The NextToken is not valid.")),
};

pub(super) fn list(
    state: &mut State,
    cx: &Context,
    input: ListGroupsInput,
) -> Result<Value, AwsError> {
    let prefix = input.name_prefix.as_deref().unwrap_or_default();
    let items = groups(state, cx)
        .iter()
        .filter(|(name, _)| name.starts_with(prefix))
        .map(|(name, group)| (name.clone(), summary(name, group)));
    let (page, next) = PAGER.page(items, input.next_token.as_deref(), input.max_results)?;
    let mut out = json!({ "ScheduleGroups": page });
    if let Some(token) = next {
        out.set("NextToken", json!(token));
    }
    Ok(out)
}

/// How long a deleted group stays `DELETING` before it and its schedules are gone (virtual
/// time; AWS deletes them asynchronously and names no duration).
pub(super) const DELETION_MS: Millis = 1_000;

/// Starts deleting a group: it is `DELETING` (its schedules may still run) until its timer
/// removes it and its schedules, [`DELETION_MS`] later.
pub(super) fn delete(state: &mut State, cx: &Context, input: GroupName) -> Result<Value, AwsError> {
    let name = input.name.as_str();
    if name == DEFAULT {
        return Err(validation("The default schedule group cannot be deleted."));
    }
    let now = state.now();
    let group = groups(state, cx)
        .get_mut(name)
        .ok_or_else(|| group_not_found(name))?;
    if group.deleting {
        return Err(being_deleted(name));
    }
    group.deleting = true;
    group.modified = now;
    let timer = Timer::GroupDeleted {
        scope: scope(cx),
        name: name.to_string(),
    };
    state.schedule(now + DELETION_MS, Step::Scheduler(timer));
    Ok(json!({}))
}

/// The ConflictException of a change to a group being deleted, or to a schedule in it.
pub(super) fn being_deleted(name: &str) -> AwsError {
    conflict(format!("Schedule group {name} is being deleted."))
}

/// A group's deletion is over: it and its schedules are gone.
pub(super) fn deleted(state: &mut State, scope: &Scope, name: &str) {
    if let Some(groups) = state.scheduler.groups.get_mut(scope) {
        groups.remove(name);
    }
    if let Some(all) = state.scheduler.schedules.get_mut(scope) {
        all.retain(|(group, _), _| group != name);
    }
}

/// The group a taggable ARN names (`arn:aws:scheduler:<region>:<account>:schedule-group/<name>`)
/// in the caller's scope.
/// `changing`: the caller changes it, which a group being deleted refuses.
fn tagged<'a>(
    state: &'a mut State,
    cx: &Context,
    arn: &str,
    changing: bool,
) -> Result<&'a mut Group, AwsError> {
    let name = Arn::parse(arn)
        .filter(|a| {
            a.partition == "aws"
                && a.service == "scheduler"
                && a.region == cx.region
                && a.account == cx.account
        })
        .and_then(|a| a.resource.strip_prefix("schedule-group/"))
        .filter(|n| !n.is_empty() && !n.contains('/'));
    let Some(name) = name else {
        return Err(validation(crate::services::validation_message(
            arn,
            "resourceArn",
            "Member must satisfy regular expression pattern: \
             arn:aws(-[a-z]+)?:scheduler:[a-z0-9\\-]+:\\d{12}:schedule-group\\/[0-9a-zA-Z-_.]+",
        )));
    };
    let group = groups(state, cx)
        .get_mut(name)
        .ok_or_else(|| group_not_found(name))?;
    if changing && group.deleting {
        return Err(being_deleted(name));
    }
    Ok(group)
}

fn check_tags(tags: &[(String, String)]) -> Result<(), AwsError> {
    if tags.len() > 200 {
        return Err(validation(crate::services::validation_message(
            format!("{} tags", tags.len()),
            "tags",
            "Member must have length less than or equal to 200",
        )));
    }
    Ok(())
}

pub(super) fn tag(
    state: &mut State,
    cx: &Context,
    input: TagResourceInput,
) -> Result<Value, AwsError> {
    let added = input.tags;
    check_tags(&added)?;
    let now = state.now();
    let group = tagged(state, cx, &input.resource_arn, true)?;
    for (key, value) in added {
        match group.tags.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => group.tags.push((key, value)),
        }
    }
    group.modified = now;
    Ok(json!({}))
}

pub(super) fn untag(
    state: &mut State,
    cx: &Context,
    input: UntagResourceInput,
) -> Result<Value, AwsError> {
    let keys = input.tag_keys;
    let group = tagged(state, cx, &input.resource_arn, true)?;
    group.tags.retain(|(k, _)| !keys.contains(k));
    Ok(json!({}))
}

pub(super) fn list_tags(
    state: &mut State,
    cx: &Context,
    input: ResourceArn,
) -> Result<Value, AwsError> {
    let group = tagged(state, cx, &input.resource_arn, false)?;
    let tags: Vec<Value> = group
        .tags
        .iter()
        .map(|(k, v)| json!({"Key": k, "Value": v}))
        .collect();
    Ok(json!({ "Tags": tags }))
}
