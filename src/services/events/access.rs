//! Who may act on an event bus of another account, and on its rules: the bus's resource policy
//! decides (PutPermission writes its statements there). The bus's own settings, its policy,
//! its archives and the tags of its resources stay the owner's.
//! A leaf over the events store: it imports no operation of `events`.

use super::arns::{resolve_bus, rule_arn};
use super::errors::EventsError;
use super::store::Bus;
use crate::arn::Arn;
use crate::error::AwsError;
use crate::services::Context;
use crate::services::policy::{self, Principal, Request};
use crate::state::State;
use serde_json::Value;

/// Operations on a bus's rules and targets, which its policy may grant: the member naming the
/// rule, if any.
const RULE_ACTIONS: &[(&str, Option<&str>)] = &[
    ("PutRule", Some("Name")),
    ("DescribeRule", Some("Name")),
    ("EnableRule", Some("Name")),
    ("DisableRule", Some("Name")),
    ("DeleteRule", Some("Name")),
    ("PutTargets", Some("Rule")),
    ("RemoveTargets", Some("Rule")),
    ("ListTargetsByRule", Some("Rule")),
    ("ListRules", None),
    ("ListRuleNamesByTarget", None),
];

/// Operations that only the bus's owner may call, and the member naming the bus (or a
/// resource of its account).
const OWNER_ONLY: &[(&str, &str)] = &[
    ("PutPermission", "EventBusName"),
    ("RemovePermission", "EventBusName"),
    ("DescribeEventBus", "Name"),
    ("UpdateEventBus", "Name"),
    ("DeleteEventBus", "Name"),
    ("CreateArchive", "EventSourceArn"),
    ("StartReplay", "EventSourceArn"),
    ("TagResource", "ResourceARN"),
    ("UntagResource", "ResourceARN"),
    ("ListTagsForResource", "ResourceARN"),
];

/// EventBridge's refusal of `action` (`events:PutRule`) on `resource` to the caller.
pub fn refused(e: &State, cx: &Context, action: &str, resource: &str) -> EventsError {
    EventsError::AccessDenied(refusal(e, cx, action, resource))
}

/// The text of that refusal (PutEvents gives it as an entry's ErrorMessage): the caller is the
/// principal GetCallerIdentity names (`sts::caller_arn`).
pub fn refusal(e: &State, cx: &Context, action: &str, resource: &str) -> String {
    format!(
        "User: {} is not authorized to perform: {action} on resource: {resource} because no resource-based policy allows the {action} action",
        crate::services::iam::identity::caller_arn(e, cx)
    )
}

/// Whether the bus's policy lets `account` do `action` (`events:PutEvents`); the owner always
/// may.
pub fn allows(bus: &Bus, account: &str, action: &str) -> bool {
    if account == bus.account {
        return true;
    }
    let request = Request {
        principal: Principal::Account(account),
        action,
        resource: &bus.arn,
        source_arn: None,
    };
    policy::allows(bus.policy.as_ref(), &request)
}

/// Whether the caller of `operation` (its input in the model's JSON form) may act on the bus
/// it names. A bus that does not exist is left for the operation to answer.
pub fn authorize(e: &State, cx: &Context, operation: &str, input: &Value) -> Result<(), AwsError> {
    let text = |name: &str| input.get(name).and_then(Value::as_str);
    let action = format!("events:{operation}");
    if let Some((_, member)) = OWNER_ONLY.iter().find(|(op, _)| *op == operation) {
        let named = text(member).filter(|n| n.starts_with("arn:"));
        // An archive of a bus that does not exist is not found before it is denied (issue 33):
        // CreateArchive answers "Event bus <name> does not exist."
        let missing =
            |arn: &&str| operation == "CreateArchive" && !e.events.buses.contains_key(*arn);
        return match named.filter(|arn| Arn::account_of(arn) != cx.account && !missing(arn)) {
            Some(arn) => Err(refused(e, cx, &action, arn).into()),
            None => Ok(()),
        };
    }
    let Some((_, rule_member)) = RULE_ACTIONS.iter().find(|(op, _)| *op == operation) else {
        return Ok(());
    };
    let (bus_arn, _) = resolve_bus(cx, text("EventBusName"));
    let Some(bus) = e
        .events
        .buses
        .get(&bus_arn)
        .filter(|b| b.account != cx.account)
    else {
        return Ok(());
    };
    let resource = match rule_member.and_then(text) {
        Some(rule) => rule_arn(&bus.region, &bus.account, &bus.name, rule),
        None => bus.arn.clone(),
    };
    let request = Request {
        principal: Principal::Account(&cx.account),
        action: &action,
        resource: &resource,
        source_arn: None,
    };
    if policy::allows(bus.policy.as_ref(), &request) {
        Ok(())
    } else {
        Err(refused(e, cx, &action, &resource).into())
    }
}
