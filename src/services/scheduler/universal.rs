//! Universal targets (`arn:aws:scheduler:::aws-sdk:<service>:<action>`): the target's Input is
//! the action's JSON request, and each attempt calls that operation of a service of this
//! emulator by name, as the schedule's account and region. Its error ends the attempt: a
//! server error is retried, anything else is not.

use crate::engine::delivery::{Failure, Publisher, Target};
use crate::services::target::Adapted;
use crate::services::{Context, ServiceId};
use crate::state::State;
use serde_json::Value;

/// The prefix of universal targets (`arn:aws:scheduler:::aws-sdk:<service>:<action>`).
pub const UNIVERSAL: &str = "arn:aws:scheduler:::aws-sdk:";

/// The service and operation a universal target names, if switchyard serves it
/// (`sqs:sendMessage` → SQS `SendMessage`).
pub fn resolve(arn: &str) -> Option<(ServiceId, String)> {
    let (service, action) = arn.strip_prefix(UNIVERSAL)?.split_once(':')?;
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
pub fn adapt(arn: &str, input: &str, publisher: Publisher, region: &str) -> Adapted {
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

/// Calls `operation` of the service named `service` with `input` (JSON text) as `publisher`
/// in `region`.
pub fn call_by_name(
    state: &mut State,
    service: &str,
    operation: &str,
    input: &str,
    publisher: Publisher,
    region: String,
) -> Result<(), Failure> {
    let service = ServiceId::SERVING
        .into_iter()
        .find(|s| s.name() == service)
        .ok_or(Failure::InvalidParameter("InvalidAction"))?;
    let input: Value = serde_json::from_str(input).map_err(|_| Failure::InvalidJson)?;
    if !input.is_object() {
        return Err(Failure::InvalidJson);
    }
    // The front-ends check required members before a service sees an input; so does this.
    // The ARN was resolved when the schedule was made, but a state read from a snapshot (or
    // another build's models) may name an operation this one lacks: that answers as an
    // unknown service does, not with a panic.
    let known = service
        .model()
        .and_then(|model| Some((model, model.operations.get(operation)?)));
    let (model, found) = known.ok_or(Failure::InvalidParameter("InvalidAction"))?;
    let shape = found.input.as_ref();
    let required = shape.map(|r| &model.shape(&r.shape).required);
    if required
        .into_iter()
        .flatten()
        .any(|m| input.get(m).is_none_or(Value::is_null))
    {
        return Err(Failure::InvalidParameter("ValidationException"));
    }
    let cx = Context {
        request_id: state.engine.rng.uuid(),
        account: publisher.account,
        region,
        access_key: None,
        host: publisher.host,
        queue_url_style: Default::default(),
        trace_header: None,
    };
    match state.call(&cx, service, operation, input) {
        Ok(_) => Ok(()),
        Err(err) if err.is_server_fault() => Err(Failure::Status(err.status)),
        Err(err) => Err(Failure::InvalidParameter(err.code)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(service: &str, operation: &str) -> Result<(), Failure> {
        let mut state = State::for_tests(0);
        let publisher = Publisher {
            account: "000000000000".into(),
            host: "localhost".into(),
        };
        call_by_name(
            &mut state,
            service,
            operation,
            "{}",
            publisher,
            "us-east-1".into(),
        )
    }

    #[test]
    fn an_unknown_operation_fails_as_an_unknown_service_does() {
        let unknown_service = call("nosuch", "ListQueues").unwrap_err();
        assert_eq!(unknown_service, Failure::InvalidParameter("InvalidAction"));
        assert_eq!(call("sqs", "NoSuchOperation").unwrap_err(), unknown_service);
        assert_eq!(call("sqs", "ListQueues"), Ok(()));
    }
}
