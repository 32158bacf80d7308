//! Who may act on a queue of another account: the queue's Policy decides (AddPermission writes
//! its statements there), and some actions stay the owner's whatever it says. Also the check a
//! service's delivery to a queue passes (an SNS topic, an EventBridge rule).
//! It imports no operation: the state asks it before an operation runs.

use super::store::{Queue, QueueKey};
use super::{SqsError, key_from_url, urls};
use crate::error::AwsError;
use crate::services::Context;
use crate::services::policy::{self, Principal, Request};
use crate::state::State;
use serde_json::Value;

/// The actions SQS never grants another account, whatever the queue's policy says.
const OWNER_ONLY: &[&str] = &[
    "AddPermission",
    "RemovePermission",
    "CreateQueue",
    "DeleteQueue",
    "SetQueueAttributes",
    "ListQueueTags",
    "TagQueue",
    "UntagQueue",
    "ListQueues",
    "StartMessageMoveTask",
    "CancelMessageMoveTask",
    "ListMessageMoveTasks",
];

/// SQS's refusal of a request on a queue the caller may not use (403, `AccessDenied`).
pub fn access_denied(region: &str) -> AwsError {
    AwsError::new(
        "AccessDenied",
        403,
        format!("Access to the resource https://sqs.{region}.amazonaws.com/ is denied."),
    )
}

/// Whether the caller of `operation` (its input in the model's JSON form) may act on the queue
/// it names. A queue of the caller's own account always may; a queue that does not exist is
/// left for the operation to answer.
pub fn authorize(e: &State, cx: &Context, operation: &str, input: &Value) -> Result<(), AwsError> {
    let text = |name: &str| input.get(name).and_then(Value::as_str);
    match operation {
        // Another account's queue by name: one the caller may not see does not exist.
        "GetQueueUrl" => {
            let Some(owner) = text("QueueOwnerAWSAccountId").filter(|o| *o != cx.account) else {
                return Ok(());
            };
            let key = QueueKey {
                account: owner.into(),
                region: cx.region.clone(),
                name: text("QueueName").unwrap_or_default().into(),
            };
            match e.sqs.queues.get(&key) {
                Some(queue) if granted(queue, cx, operation) => Ok(()),
                Some(_) => Err(SqsError::QueueDoesNotExist.into()),
                None => Ok(()),
            }
        }
        "StartMessageMoveTask" | "ListMessageMoveTasks" => {
            let arns = [text("SourceArn"), text("DestinationArn")];
            foreign(cx, arns.into_iter().flatten())
        }
        "CancelMessageMoveTask" => {
            let handle = text("TaskHandle").unwrap_or_default();
            let task = e.sqs.tasks.iter().find(|t| t.handle == handle);
            foreign(cx, task.map(|t| t.source_arn.as_str()))
        }
        _ => text("QueueUrl").map_or(Ok(()), |url| authorize_queue(e, cx, operation, url)),
    }
}

/// Whether the caller of `operation` may act on the queue at `url`.
pub fn authorize_queue(
    e: &State,
    cx: &Context,
    operation: &str,
    url: &str,
) -> Result<(), AwsError> {
    // A queue of the caller's own account (a bare name is one) needs no look-up: most requests.
    let foreign = url.contains('/') && urls::account_of(url).is_some_and(|a| a != cx.account);
    if !foreign {
        return Ok(());
    }
    let Ok(key) = key_from_url(cx, url) else {
        return Ok(());
    };
    match e.sqs.queues.get(&key) {
        Some(queue) if key.account != cx.account && !granted(queue, cx, operation) => {
            Err(access_denied(&key.region))
        }
        _ => Ok(()),
    }
}

/// Refuses an owner-only action naming a queue of another account (by ARN).
fn foreign<'a>(cx: &Context, arns: impl IntoIterator<Item = &'a str>) -> Result<(), AwsError> {
    for arn in arns {
        if let Some(key) = QueueKey::from_arn(arn).filter(|k| k.account != cx.account) {
            return Err(access_denied(&key.region));
        }
    }
    Ok(())
}

/// Whether the queue's policy grants the caller `operation` (a batch is its single action's
/// permission). Owner-only actions are never granted.
fn granted(queue: &Queue, cx: &Context, operation: &str) -> bool {
    if OWNER_ONLY.contains(&operation) {
        return false;
    }
    let action = operation.strip_suffix("Batch").unwrap_or(operation);
    let request = Request {
        principal: Principal::Account(&cx.account),
        action: &format!("sqs:{action}"),
        resource: &queue.arn,
        source_arn: None,
    };
    policy::allows(queue.attributes.policy.as_ref(), &request)
}

/// Whether `service` (`sns.amazonaws.com`, `events.amazonaws.com`), delivering for the resource
/// `source_arn`, may send to the queue `queue_arn`: the queue's policy must allow it when the
/// source is of another account, or when `enforce` (`--enforce-policies`) asks it of all. A
/// queue that does not exist is left for the delivery to find.
pub fn delivery_allowed(
    e: &State,
    queue_arn: &str,
    service: &str,
    source_arn: &str,
    enforce: bool,
) -> bool {
    let Some(queue) = e.sqs.by_arn(queue_arn) else {
        return true;
    };
    let same_account = crate::arn::Arn::account_of(source_arn) == queue.key.account;
    if same_account && !enforce {
        return true;
    }
    let request = Request {
        principal: Principal::Service(service),
        action: "sqs:SendMessage",
        resource: &queue.arn,
        source_arn: Some(source_arn),
    };
    policy::allows(queue.attributes.policy.as_ref(), &request)
}
