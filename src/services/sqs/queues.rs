//! Queue operations: create, find, list, delete, attributes, purge, tags, permissions and the
//! dead-letter source listing, and how SQS's List operations page.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::attributes::{QueueAttributes, RedrivePolicy, readable};
use super::checks::invalid_value;
use super::shapes::*;
use super::store::{Queue, QueueKey, Store};
use super::{Context, SqsError, key_from_url, queue_mut, queue_url, valid_name};
use crate::arn::Arn;
use crate::services::page::{Pager, Sizes, Tokens};
use crate::state::State;
use serde_json::{Value, json};

/// A deleted queue's name is not free again for this long.
const NAME_REUSE_MS: i64 = 60_000;
/// PurgeQueue may run once in this long.
const PURGE_INTERVAL_MS: i64 = 60_000;

/// A redrive policy must name an existing queue of the same type that accepts this source.
fn check_redrive(
    store: &Store,
    source: &QueueKey,
    fifo: bool,
    policy: &RedrivePolicy,
    text: &str,
) -> Result<(), SqsError> {
    let bad = |reason: &str| invalid_value("RedrivePolicy", text, reason);
    let dlq_key = QueueKey::from_arn(&policy.dead_letter_target_arn)
        .ok_or_else(|| bad("Dead-letter target does not exist."))?;
    if dlq_key.account != source.account || dlq_key.region != source.region {
        return Err(bad(
            "Dead-letter target must be in the same account and region as the source queue.",
        ));
    }
    let dlq = store
        .queues
        .get(&dlq_key)
        .ok_or_else(|| bad("Dead-letter target does not exist."))?;
    if dlq.is_fifo() != fifo {
        return Err(bad(
            "Dead-letter queue must be same type of queue as the source.",
        ));
    }
    if dlq
        .attributes
        .redrive_allow
        .as_ref()
        .is_some_and(|(allow, _)| !allow.allows(&source.arn()))
    {
        return Err(bad(
            "Queue ARN specified in the RedrivePolicy is not allowed by the dead-letter queue's RedriveAllowPolicy.",
        ));
    }
    Ok(())
}

pub(super) fn create_queue(
    e: &mut State,
    cx: &Context,
    input: CreateQueueInput,
) -> Result<QueueUrlOutput, SqsError> {
    let now = e.now();
    let name = input.queue_name;
    let mut attributes = QueueAttributes::default();
    attributes.apply(&input.attributes, true)?;
    // A standard queue's name knows no FifoQueue, not even "false" (recorded:
    // aws/aws-sdk-php#1331); FifoQueue "true" asks for a FIFO queue, whose name is then wrong.
    if !name.ends_with(".fifo") && !attributes.fifo && input.attributes.contains_key("FifoQueue") {
        return Err(SqsError::InvalidAttributeName(
            "Unknown Attribute FifoQueue.".into(),
        ));
    }
    if !valid_name(&name) || name.ends_with(".fifo") != attributes.fifo {
        // The reason follows the queue type asked for: a .fifo name without FifoQueue is a
        // standard queue's name with a '.' (recorded: boto/botocore#3058).
        let reason = if attributes.fifo {
            "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, \
             must end with .fifo suffix and be 1 to 80 in length."
        } else {
            "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"
        };
        return Err(SqsError::InvalidParameterValue(reason.into()));
    }
    check_tags(&input.tags, 0)?;
    let key = QueueKey {
        account: cx.account.clone(),
        region: cx.region.clone(),
        name,
    };
    if let Some(existing) = e.sqs.queues.get(&key) {
        if let Some(attr) = existing.attributes.first_difference(&input.attributes) {
            return Err(SqsError::QueueNameExists(format!(
                "A queue already exists with the same name and a different value for attribute {attr}"
            )));
        }
        return Ok(QueueUrlOutput {
            queue_url: queue_url(cx, &key),
        });
    }
    if e.sqs
        .deleted_at
        .get(&key)
        .is_some_and(|at| now < at + NAME_REUSE_MS)
    {
        return Err(SqsError::QueueDeletedRecently(
            "You must wait 60 seconds after deleting a queue before you can create another with the same name.".into(),
        ));
    }
    if let Some((policy, text)) = &attributes.redrive {
        check_redrive(&e.sqs, &key, attributes.fifo, policy, text)?;
    }
    let mut queue = Queue::new(key.clone(), now, attributes);
    queue.tags = input.tags;
    e.sqs.queues.insert(key.clone(), queue);
    e.sqs.deleted_at.remove(&key);
    Ok(QueueUrlOutput {
        queue_url: queue_url(cx, &key),
    })
}

pub(super) fn get_queue_url(
    e: &mut State,
    cx: &Context,
    input: GetQueueUrlInput,
) -> Result<QueueUrlOutput, SqsError> {
    let key = QueueKey {
        account: input
            .queue_owner_aws_account_id
            .unwrap_or_else(|| cx.account.clone()),
        region: cx.region.clone(),
        name: input.queue_name,
    };
    if !e.sqs.queues.contains_key(&key) {
        return Err(SqsError::QueueDoesNotExist);
    }
    Ok(QueueUrlOutput {
        queue_url: queue_url(cx, &key),
    })
}

/// How SQS's List operations page: `MaxResults` 1 to 1000, and without it the first 1000 queues
/// and no token; the base64 of a page's last queue name as its `NextToken`.
const PAGER: Pager<SqsError> = Pager {
    sizes: Sizes::Capped {
        max: 1000,
        refuse: |n, _| {
            invalid_value(
                "MaxResults",
                n,
                "MaxResults must be an integer between 1 and 1000.",
            )
        },
    },
    tokens: Tokens::Base64Key(|| {
        SqsError::InvalidParameterValue("Invalid NextToken value.".into())
    }),
};

/// A page of queue names after `token`, of at most `max` (MaxResults 1–1000), and the next token.
fn page<'a>(
    names: impl Iterator<Item = &'a QueueKey>,
    max: Option<i64>,
    token: Option<&str>,
) -> Result<(Vec<&'a QueueKey>, Option<String>), SqsError> {
    PAGER.page(names.map(|k| (k.name.as_str(), k)), token, max)
}

pub(super) fn list_queues(
    e: &mut State,
    cx: &Context,
    input: ListQueuesInput,
) -> Result<ListQueuesOutput, SqsError> {
    let prefix = input.queue_name_prefix.unwrap_or_default();
    let mine = e
        .sqs
        .queues
        .keys()
        .filter(|k| cx.owns(&k.account, &k.region) && k.name.starts_with(&prefix));
    let (items, next_token) = page(mine, input.max_results, input.next_token.as_deref())?;
    Ok(ListQueuesOutput {
        queue_urls: items.iter().map(|k| queue_url(cx, k)).collect(),
        next_token,
    })
}

pub(super) fn list_dead_letter_source_queues(
    e: &mut State,
    cx: &Context,
    input: ListDeadLetterSourceQueuesInput,
) -> Result<ListDeadLetterSourceQueuesOutput, SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    let arn = queue_mut(e, &key)?.arn.clone();
    let sources = e.sqs.queues.iter().filter(|(_, q)| {
        q.attributes
            .redrive
            .as_ref()
            .is_some_and(|(p, _)| p.dead_letter_target_arn == arn)
    });
    let (items, next_token) = page(
        sources.map(|(k, _)| k),
        input.max_results,
        input.next_token.as_deref(),
    )?;
    Ok(ListDeadLetterSourceQueuesOutput {
        queue_urls: items.iter().map(|k| queue_url(cx, k)).collect(),
        next_token,
    })
}

pub(super) fn delete_queue(
    e: &mut State,
    cx: &Context,
    input: QueueUrlInput,
) -> Result<Empty, SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    let queue = e
        .sqs
        .queues
        .remove(&key)
        .ok_or(SqsError::QueueDoesNotExist)?;
    e.wake_waiters(&queue.arn);
    e.sqs.deleted_at.insert(key, e.now());
    Ok(Empty {})
}

pub(super) fn get_queue_attributes(
    e: &mut State,
    cx: &Context,
    input: GetQueueAttributesInput,
) -> Result<AttributesOutput, SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    let now = e.now();
    let queue = queue_mut(e, &key)?;
    for name in &input.attribute_names {
        if name != "All" && !readable(name) {
            return Err(SqsError::InvalidAttributeName(format!(
                "Unknown Attribute {name}."
            )));
        }
    }
    let all = input.attribute_names.iter().any(|n| n == "All");
    queue.settle(now);
    let (visible, in_flight, delayed) = queue.counts(now);
    let mut values = queue.attributes.rendered();
    values.insert("ApproximateNumberOfMessages", visible.to_string());
    values.insert(
        "ApproximateNumberOfMessagesNotVisible",
        in_flight.to_string(),
    );
    values.insert("ApproximateNumberOfMessagesDelayed", delayed.to_string());
    values.insert("CreatedTimestamp", (queue.created_at / 1000).to_string());
    values.insert(
        "LastModifiedTimestamp",
        (queue.modified_at / 1000).to_string(),
    );
    values.insert("QueueArn", queue.arn.clone());
    let attributes = values
        .into_iter()
        .filter(|(k, _)| all || input.attribute_names.iter().any(|n| n == k))
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    Ok(AttributesOutput { attributes })
}

pub(super) fn set_queue_attributes(
    e: &mut State,
    cx: &Context,
    input: SetQueueAttributesInput,
) -> Result<Empty, SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    let now = e.now();
    let queue = queue_mut(e, &key)?;
    let mut updated = queue.attributes.clone();
    updated.apply(&input.attributes, false)?;
    if let Some((policy, text)) = updated
        .redrive
        .as_ref()
        .filter(|_| input.attributes.contains_key("RedrivePolicy"))
    {
        check_redrive(&e.sqs, &key, updated.fifo, policy, text)?;
    }
    let queue = queue_mut(e, &key)?;
    queue.attributes = updated;
    queue.modified_at = now;
    // A shorter wait or visibility may let long polls see messages now.
    let arn = queue.arn.clone();
    e.wake_waiters(&arn);
    Ok(Empty {})
}

pub(super) fn purge_queue(
    e: &mut State,
    cx: &Context,
    input: QueueUrlInput,
) -> Result<Empty, SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    let now = e.now();
    let queue = queue_mut(e, &key)?;
    if queue
        .purged_at
        .is_some_and(|at| now < at + PURGE_INTERVAL_MS)
    {
        return Err(SqsError::PurgeQueueInProgress(format!(
            "Only one PurgeQueue operation on {} is allowed every 60 seconds.",
            key.name
        )));
    }
    queue.purge();
    queue.purged_at = Some(now);
    Ok(Empty {})
}

fn check_tags(
    tags: &std::collections::BTreeMap<String, String>,
    existing: usize,
) -> Result<(), SqsError> {
    for (k, v) in tags {
        if k.is_empty() || k.chars().count() > 128 || v.chars().count() > 256 {
            return Err(SqsError::InvalidParameterValue(format!(
                "Tag key {k} is invalid: keys are 1 to 128 and values 0 to 256 characters long."
            )));
        }
    }
    if existing + tags.len() > 50 {
        return Err(SqsError::InvalidParameterValue(
            "Too many tags added for queue: a queue can have at most 50 tags.".into(),
        ));
    }
    Ok(())
}

pub(super) fn tag_queue(
    e: &mut State,
    cx: &Context,
    input: TagQueueInput,
) -> Result<Empty, SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    let queue = queue_mut(e, &key)?;
    let merged: std::collections::BTreeSet<_> =
        queue.tags.keys().chain(input.tags.keys()).collect();
    check_tags(&input.tags, merged.len() - input.tags.len())?;
    queue.tags.extend(input.tags);
    Ok(Empty {})
}

pub(super) fn untag_queue(
    e: &mut State,
    cx: &Context,
    input: UntagQueueInput,
) -> Result<Empty, SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    let queue = queue_mut(e, &key)?;
    for k in input.tag_keys {
        queue.tags.remove(&k);
    }
    Ok(Empty {})
}

pub(super) fn list_queue_tags(
    e: &mut State,
    cx: &Context,
    input: QueueUrlInput,
) -> Result<ListQueueTagsOutput, SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    Ok(ListQueueTagsOutput {
        tags: queue_mut(e, &key)?.tags.clone(),
    })
}

/// Actions a permission may grant (`SQS:` is added in the policy).
const ACTIONS: [&str; 9] = [
    "*",
    "SendMessage",
    "ReceiveMessage",
    "DeleteMessage",
    "ChangeMessageVisibility",
    "GetQueueAttributes",
    "GetQueueUrl",
    "ListDeadLetterSourceQueues",
    "PurgeQueue",
];

fn one_or_many(items: Vec<String>) -> Value {
    if items.len() == 1 {
        Value::String(items.into_iter().next().unwrap_or_default())
    } else {
        json!(items)
    }
}

pub(super) fn add_permission(
    e: &mut State,
    cx: &Context,
    input: AddPermissionInput,
) -> Result<Empty, SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    let now = e.now();
    let queue = queue_mut(e, &key)?;
    let label = &input.label;
    if label.is_empty()
        || label.len() > 80
        || !label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(invalid_value(
            "Label",
            label,
            "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length",
        ));
    }
    if input.aws_account_ids.is_empty() {
        return Err(SqsError::MissingParameter(
            "The request must contain the parameter AWSAccountIds.".into(),
        ));
    }
    if input.actions.is_empty() {
        return Err(SqsError::MissingParameter(
            "The request must contain the parameter Actions.".into(),
        ));
    }
    for action in &input.actions {
        if !ACTIONS.contains(&action.as_str()) {
            return Err(invalid_value(
                "ActionName",
                format!("SQS:{action}"),
                "Please refer to the appropriate WSDL for a list of valid actions.",
            ));
        }
    }
    if input.actions.len() > 7 {
        return Err(SqsError::OverLimit(
            "7 Actions were found, maximum allowed is 7."
                .replace("7 Actions", &format!("{} Actions", input.actions.len())),
        ));
    }
    let arn = queue.arn.clone();
    let mut policy = queue.attributes.policy.clone().unwrap_or_else(|| {
        json!({"Version": "2008-10-17", "Id": format!("{arn}/SQSDefaultPolicy"), "Statement": []})
    });
    let statements = policy.get_mut("Statement").and_then(Value::as_array_mut);
    let Some(statements) = statements else {
        return Err(SqsError::InvalidParameterValue(
            "The queue's Policy has no Statement list.".into(),
        ));
    };
    if statements
        .iter()
        .any(|s| s.get("Sid").and_then(Value::as_str) == Some(label))
    {
        return Err(invalid_value("Label", label, "Already exists."));
    }
    let principals = input.aws_account_ids.iter().map(|a| Arn::root(a)).collect();
    let actions = input.actions.iter().map(|a| format!("SQS:{a}")).collect();
    statements.push(json!({
        "Sid": label,
        "Effect": "Allow",
        "Principal": {"AWS": one_or_many(principals)},
        "Action": one_or_many(actions),
        "Resource": arn,
    }));
    queue.attributes.policy = Some(policy);
    queue.modified_at = now;
    Ok(Empty {})
}

pub(super) fn remove_permission(
    e: &mut State,
    cx: &Context,
    input: RemovePermissionInput,
) -> Result<Empty, SqsError> {
    let key = key_from_url(cx, &input.queue_url)?;
    let now = e.now();
    let queue = queue_mut(e, &key)?;
    let missing = || invalid_value("Label", &input.label, "can't find label.");
    let policy = queue.attributes.policy.as_mut().ok_or_else(missing)?;
    let statements = policy
        .get_mut("Statement")
        .and_then(Value::as_array_mut)
        .ok_or_else(missing)?;
    let before = statements.len();
    statements.retain(|s| s.get("Sid").and_then(Value::as_str) != Some(input.label.as_str()));
    if statements.len() == before {
        return Err(missing());
    }
    if statements.is_empty() {
        queue.attributes.policy = None;
    }
    queue.modified_at = now;
    Ok(Empty {})
}
