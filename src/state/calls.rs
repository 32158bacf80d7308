//! Service operations by name: the synchronous dispatch from (service, operation) to the
//! operation's function over the state, and the settling of whatever it set off.
//! It must not depend on the runtime, the protocols or the server.

use super::State;
use crate::error::AwsError;
use crate::services::{
    Context, ServiceId, bus, events, iam, pipes, scheduler, sns, sqs, streams, sts,
};
use serde_json::Value;

impl State {
    /// Runs `operation` of `service` on its input (the model's JSON form), then whatever it set
    /// off (in-process deliveries, arrivals).
    pub fn call(
        &mut self,
        cx: &Context,
        service: ServiceId,
        operation: &str,
        input: Value,
    ) -> Result<Value, AwsError> {
        self.authorize(cx, service, operation, &input)?;
        let output = match service {
            ServiceId::Sqs => sqs::call(self, cx, operation, input),
            ServiceId::Sts => sts::call(self, cx, operation, input),
            ServiceId::Iam => iam::call(self, cx, operation, input),
            ServiceId::Sns => sns::call(self, cx, operation, input),
            ServiceId::Events => events::call(self, cx, operation, input),
            ServiceId::EventsV2 if streams::is_stream_operation(operation) => {
                streams::call(self, cx, operation, input)
            }
            ServiceId::EventsV2 => bus::call(self, cx, operation, input),
            ServiceId::Scheduler => scheduler::call(self, cx, operation, input),
            ServiceId::Pipes => pipes::call(self, cx, operation, input),
        };
        self.settle();
        output
    }

    /// Whether the caller may run `operation` on the resource its input names: a resource of
    /// another account is the resource policy's to decide (docs/policies.md). Asked before the
    /// operation runs, under the same lock.
    fn authorize(
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
}
