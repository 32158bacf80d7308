//! Universal targets (`arn:aws:scheduler:::aws-sdk:<service>:<action>`): the target's Input is
//! the action's JSON request, and each attempt calls that operation of a service of this
//! emulator by name, as the schedule's account and region. Its error ends the attempt: a
//! server error is retried, anything else is not.

use crate::arn::Arn;
use crate::engine::delivery::{Publisher, Target};
use crate::services::ServiceId;
use crate::services::target::Adapted;

/// Whether `arn` names a universal target (`arn:aws:scheduler:::aws-sdk:<service>:<action>`).
pub(super) fn is_universal(arn: &str) -> bool {
    service_action(arn).is_some()
}

/// The `<service>:<action>` of a universal target's ARN, as written.
fn service_action(arn: &str) -> Option<&str> {
    let arn = Arn::parse(arn)?;
    let unplaced = arn.region.is_empty() && arn.account.is_empty();
    if arn.partition != "aws" || arn.service != "scheduler" || !unplaced {
        return None;
    }
    arn.resource.strip_prefix("aws-sdk:")
}

/// The service and operation a universal target names, if switchyard serves it
/// (`sqs:sendMessage` → SQS `SendMessage`).
pub(super) fn resolve(arn: &str) -> Option<(ServiceId, String)> {
    let (service, action) = service_action(arn)?.split_once(':')?;
    let service = match service {
        "sqs" => ServiceId::Sqs,
        "sns" => ServiceId::Sns,
        "eventbridge" => ServiceId::Events,
        "sts" => ServiceId::Sts,
        "iam" => ServiceId::Iam,
        "scheduler" => ServiceId::Scheduler,
        _ => return None,
    };
    let mut chars = action.chars();
    let operation: String = chars
        .next()
        .map(|c| c.to_ascii_uppercase())
        .into_iter()
        .chain(chars)
        .collect();
    let known = service
        .model()
        .is_some_and(|m| m.operations.contains_key(&operation));
    known.then_some((service, operation))
}

/// The typed target of a universal target (its ARN checked when the schedule was made).
pub(super) fn adapt(arn: &str, input: &str, publisher: Publisher, region: &str) -> Adapted {
    let (service, operation) = resolve(arn).map_or_else(
        || (String::new(), String::new()),
        |(s, op)| (s.name().to_string(), op),
    );
    Adapted {
        protocol: "aws-sdk".into(),
        target: Target::Call {
            address: arn.to_string(),
            service,
            operation,
            input: input.to_string(),
            publisher,
            region: region.to_string(),
        },
        throttle: None,
        unusable: None,
    }
}
