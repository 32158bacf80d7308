//! Service operations by name: the synchronous dispatch from (service, operation) to the
//! operation's function over the state, and the settling of whatever it set off; and the
//! operations Scheduler's universal targets start, called by their names.
//! It must not depend on the runtime, the protocols or the server.

use super::Dispatch;
use crate::engine::delivery::{Failure, Publisher};
use crate::error::{Answer, AwsError};
use crate::services::{
    Context, ServiceId, bus, events, iam, lambda, pipes, scheduler, sns, sqs, streams, sts,
};
use crate::state::State;
use serde_json::Value;

/// A service's operations: `call` of the service's module.
pub(super) type ServiceCall = fn(&mut State, &Context, &str, Value) -> Answer;

/// The operations of `service` (the custom bus's API carries the event streams' too).
pub(super) fn service_call(service: ServiceId, operation: &str) -> ServiceCall {
    match service {
        ServiceId::Sqs => sqs::call,
        ServiceId::Sts => sts::call,
        ServiceId::Iam => iam::call,
        ServiceId::Sns => sns::call,
        ServiceId::Events => events::call,
        ServiceId::EventsV2 if streams::is_stream_operation(operation) => streams::call,
        ServiceId::EventsV2 => bus::call,
        ServiceId::Scheduler => scheduler::call,
        ServiceId::Pipes => pipes::call,
        ServiceId::Lambda => lambda::call,
    }
}

impl State {
    /// Whether the caller may run `operation` on the resource its input names: a resource of
    /// another account is the resource policy's to decide (docs/policies.md). Asked before the
    /// operation runs, under the same lock.
    pub(super) fn authorize(
        &self,
        cx: &Context,
        service: ServiceId,
        operation: &str,
        input: &Value,
    ) -> Result<(), AwsError> {
        match service {
            ServiceId::Sqs => sqs::access::authorize(self, cx, operation, input),
            ServiceId::Sns => sns::access::authorize(self, cx, operation, input),
            ServiceId::Events => events::access::authorize(self, cx, operation, input),
            _ => Ok(()),
        }
    }

    /// Calls `operation` of the service named `service` with `input` (JSON text) as `publisher`
    /// in `region`.
    pub(super) fn call_by_name(
        &mut self,
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
            request_id: self.engine.rng.uuid(),
            account: publisher.account,
            region,
            access_key: None,
            host: publisher.host,
            queue_url_style: Default::default(),
            trace_header: None,
        };
        match self.call(&cx, service, operation, input) {
            Ok(_) => Ok(()),
            Err(err) if err.is_server_fault() => Err(Failure::Status(err.status)),
            Err(err) => Err(Failure::InvalidParameter(err.code)),
        }
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
        state.call_by_name(service, operation, "{}", publisher, "us-east-1".into())
    }

    #[test]
    fn an_unknown_operation_fails_as_an_unknown_service_does() {
        let unknown_service = call("nosuch", "ListQueues").unwrap_err();
        assert_eq!(unknown_service, Failure::InvalidParameter("InvalidAction"));
        assert_eq!(call("sqs", "NoSuchOperation").unwrap_err(), unknown_service);
        assert_eq!(call("sqs", "ListQueues"), Ok(()));
    }
}
