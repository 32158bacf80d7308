//! Changes to the state as values, for the journal of `--state-dir` (docs/state.md).
//!
//! The state is deterministic: its randomness comes from its seeded generator and its time from
//! the engine, so the same changes applied in the same order, each at the same virtual time, give
//! the same state, byte for byte. Everything that changes the state from outside (a request, the
//! answer of an HTTP delivery, an advance of the clock, a control call) is one [`Command`]; the
//! runtime journals each before it answers, and a restart applies the journal again with
//! [`super::Dispatch::apply`]. Timers need no command: they fire as time reaches them, the same way again.
//! It must not depend on the runtime, the protocols or the server.

use super::Dispatch;
use crate::engine::delivery::{DeliveryId, Failure, Outcome};
use crate::engine::faults::Fault;
use crate::engine::outbox::OutboxMessage;
use crate::engine::time::Millis;
use crate::error::AwsError;
use crate::services::events::{TriggerError, trigger_schedule};
use crate::services::sns::publish::{Prepared, SignAhead};
use crate::services::sqs::messages::{Wait, check_receive, receive_or_wait};
use crate::services::{Context, ServiceId, events, parse, sns, sqs};
use crate::state::State;
use crate::state::events::store::TokenRequest;
use crate::state::lambda::invocations::{InvocationRecord, Invoked};
use crate::state::sqs::shapes::{ReceiveMessageInput, ReceiveMessageOutput};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One change to the state from outside.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Command {
    /// An operation run in one piece under the lock ([`Dispatch::call`]).
    Call {
        cx: Context,
        service: ServiceId,
        operation: String,
        input: Value,
    },
    /// One look of ReceiveMessage at its queue (a long poll looks again when woken).
    Receive {
        cx: Context,
        input: Value,
        wait: Option<Wait>,
    },
    /// The first half of a Publish (`batch`: PublishBatch) to a standard topic: its ids drawn
    /// and its signatures settled, to be made off the lock.
    PublishPrepare { input: Value, batch: bool },
    /// The second half: the publish itself, with the ids the first half drew.
    Publish {
        cx: Context,
        input: Value,
        batch: bool,
        prepared: Vec<Option<Prepared>>,
    },
    /// How an HTTP delivery's attempt ended.
    Answered {
        delivery: DeliveryId,
        result: HttpResult,
    },
    /// How a Lambda invocation of a delivery (an asynchronous invocation's attempt, a mapping's
    /// batch) ended, with its record.
    Invoked {
        delivery: DeliveryId,
        invoked: Invoked,
        record: Option<InvocationRecord>,
    },
    /// The record of a synchronous Lambda invocation (Invoke, `RequestResponse`).
    InvocationRecorded { record: InvocationRecord },
    /// The answer to an OAuth token request of an EventBridge connection.
    TokenAnswered {
        request: TokenRequest,
        answer: Result<(u16, String), String>,
    },
    /// Virtual time moved to `to` (`clock/advance`).
    Advanced { to: Millis },
    /// `DELETE /_switchyard/deliveries`.
    ClearDeliveries,
    /// `DELETE /_switchyard/outbox`.
    ClearOutbox,
    /// LocalStack's clearing of its SMS or platform-endpoint messages.
    ClearOutboxWhere(OutboxSelection),
    /// `POST /_switchyard/faults` (the id is drawn from the state's generator).
    AddFault {
        target: String,
        status: u16,
        error_code: Option<String>,
        count: Option<u64>,
    },
    /// `DELETE /_switchyard/faults/{id}`.
    RemoveFault { id: String },
    /// `DELETE /_switchyard/faults`.
    ClearFaults,
    /// LocalStack's trigger of a scheduled rule.
    TriggerSchedule { arn: String },
}

/// The commands a request makes most, by reference: encoded as the [`Command`] they stand for,
/// without a copy of the request's input.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum CommandRef<'a> {
    Call {
        cx: &'a Context,
        service: ServiceId,
        operation: &'a str,
        input: &'a Value,
    },
    Receive {
        cx: &'a Context,
        input: &'a Value,
        wait: Option<Wait>,
    },
}

/// How an HTTP exchange ended, as the runtime saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum HttpResult {
    /// The endpoint answered: its status, its `Retry-After` in milliseconds, and its body.
    Answered {
        status: u16,
        retry_after: Option<Millis>,
        body: Option<String>,
    },
    /// No answer in time.
    Timeout,
    /// The TLS handshake failed.
    Tls,
    /// Refused or unreachable.
    Connection,
    /// The request could not be made (a URL that is no URL).
    InvalidEndpoint,
}

impl HttpResult {
    /// The attempt's outcome: 2xx delivered, 5xx and 429 retryable, other answers permanent,
    /// no answer retryable.
    pub fn outcome(&self) -> Outcome {
        match self {
            HttpResult::Answered { status, .. } => Outcome::from_status(*status),
            HttpResult::Timeout => Outcome::Retryable(Failure::Timeout),
            HttpResult::Tls => Outcome::Retryable(Failure::Tls),
            HttpResult::Connection => Outcome::Retryable(Failure::Connection),
            HttpResult::InvalidEndpoint => Outcome::Permanent(Failure::InvalidEndpoint),
        }
    }

    fn retry_after(&self) -> Option<Millis> {
        match self {
            HttpResult::Answered { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    fn body(&self) -> Option<String> {
        match self {
            HttpResult::Answered { body, .. } => body.clone(),
            _ => None,
        }
    }
}

/// Outbox messages of one protocol placed in one account and region (SMS by what sent them,
/// push by their endpoint), optionally of one target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutboxSelection {
    pub protocol: String,
    pub account: String,
    pub region: String,
    /// The phone number or endpoint ARN filter.
    pub target: Option<String>,
}

impl OutboxSelection {
    pub fn covers(&self, m: &OutboxMessage) -> bool {
        let placed = if self.protocol == "sms" {
            &m.source
        } else {
            &m.target
        };
        m.protocol == self.protocol
            && crate::arn::Arn::parse(placed)
                .is_some_and(|a| a.account == self.account && a.region == self.region)
            && self.target.as_ref().is_none_or(|t| *t == m.target)
    }
}

/// What applying a command answered, for the caller that made it.
#[derive(Debug)]
pub enum Applied {
    /// An operation's output, and the OAuth token requests it asked for.
    Output(Result<Value, AwsError>, Vec<TokenRequest>),
    /// A look of ReceiveMessage: its messages or `None` to wait, and the wait it settled.
    Received(Result<Option<ReceiveMessageOutput>, AwsError>, Option<Wait>),
    /// The first half of a publish: for each entry, its ids and what to sign ahead.
    Prepared(Vec<Option<(Prepared, Vec<SignAhead>)>>),
    /// How many timers fired.
    Fired(usize),
    /// A fault's id.
    FaultAdded(String),
    /// Whether there was something to remove.
    Removed(bool),
    /// A scheduled rule triggered: its event's id.
    Triggered(Result<String, TriggerError>),
    /// Done; nothing to answer.
    Done,
}

impl State {
    /// [`Dispatch::apply`].
    pub(super) fn apply_command(&mut self, command: Command) -> Applied {
        match command {
            Command::Call {
                cx,
                service,
                operation,
                input,
            } => {
                let output = self.call(&cx, service, &operation, input);
                Applied::Output(output, std::mem::take(&mut self.events.token_requests))
            }
            Command::Receive { cx, input, wait } => {
                let mut wait = wait;
                let received = parse::<ReceiveMessageInput>(input)
                    .and_then(|input| self.receive(&cx, &input, &mut wait));
                Applied::Received(received, wait)
            }
            Command::PublishPrepare { input, batch } => Applied::Prepared(if batch {
                parse(input)
                    .map(|input| sns::publish::prepare_batch(self, &input))
                    .unwrap_or_default()
            } else {
                parse(input)
                    .ok()
                    .map(|input| vec![sns::publish::prepare(self, &input)])
                    .unwrap_or_default()
            }),
            Command::Publish {
                cx,
                input,
                batch,
                prepared,
            } => {
                let output = if batch {
                    parse(input).and_then(|input| self.publish_batch(&cx, input, prepared))
                } else {
                    let prepared = prepared.into_iter().next().flatten();
                    parse(input).and_then(|input| self.publish(&cx, input, prepared))
                };
                Applied::Output(output, Vec::new())
            }
            Command::Answered { delivery, result } => {
                self.engine.answered(delivery, result.body());
                let (outcome, retry_after) = (result.outcome(), result.retry_after());
                self.engine.complete_after(delivery, outcome, retry_after);
                self.run_to_the_end();
                Applied::Done
            }
            Command::Invoked {
                delivery,
                invoked,
                record,
            } => {
                crate::services::lambda::run::invoked(self, delivery, invoked, record);
                self.run_to_the_end();
                Applied::Done
            }
            Command::InvocationRecorded { record } => {
                crate::services::lambda::run::keep(self, record);
                Applied::Done
            }
            Command::TokenAnswered { request, answer } => {
                events::connections::token_answered(self, &request, answer);
                Applied::Done
            }
            Command::Advanced { to } => Applied::Fired(self.run_until(to)),
            Command::ClearDeliveries => {
                self.engine.log.clear();
                Applied::Done
            }
            Command::ClearOutbox => {
                self.engine.outbox.clear();
                Applied::Done
            }
            Command::ClearOutboxWhere(selection) => {
                self.engine.outbox.retain(|m| !selection.covers(m));
                Applied::Done
            }
            Command::AddFault {
                target,
                status,
                error_code,
                count,
            } => {
                let id = self.engine.rng.uuid();
                self.engine.faults.add(Fault {
                    id: id.clone(),
                    target,
                    status,
                    error_code,
                    count,
                });
                Applied::FaultAdded(id)
            }
            Command::RemoveFault { id } => Applied::Removed(self.engine.faults.remove(&id)),
            Command::ClearFaults => {
                self.engine.faults.clear();
                Applied::Done
            }
            Command::TriggerSchedule { arn } => Applied::Triggered(trigger_schedule(self, &arn)),
        }
    }

    /// [`Dispatch::receive_look`].
    pub(super) fn receive(
        &mut self,
        cx: &Context,
        input: &ReceiveMessageInput,
        wait: &mut Option<Wait>,
    ) -> Result<Option<ReceiveMessageOutput>, AwsError> {
        let (key, max) = check_receive(cx, input)?;
        sqs::access::authorize_queue(self, cx, "ReceiveMessage", &input.queue_url)?;
        let received = receive_or_wait(self, &key, input, max, wait);
        self.run_to_the_end();
        Ok(received?)
    }

    /// Publish with the ids [`sns::publish::prepare`] drew, its cascade settled.
    fn publish(
        &mut self,
        cx: &Context,
        input: sns::shapes::PublishInput,
        prepared: Option<Prepared>,
    ) -> Result<Value, AwsError> {
        let output = sns::publish::publish(self, cx, input, prepared);
        self.run_to_the_end();
        encode(output?)
    }

    /// PublishBatch with the ids [`sns::publish::prepare_batch`] drew, its cascade settled.
    fn publish_batch(
        &mut self,
        cx: &Context,
        input: sns::shapes::PublishBatchInput,
        prepared: Vec<Option<Prepared>>,
    ) -> Result<Value, AwsError> {
        let output = sns::publish::publish_batch(self, cx, input, prepared);
        self.run_to_the_end();
        encode(output?)
    }
}

/// An output in the model's JSON form.
pub fn encode(output: impl Serialize) -> Result<Value, AwsError> {
    serde_json::to_value(output).map_err(|e| AwsError::internal(format!("encoding output: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cx() -> Context {
        Context {
            access_key: Some("test".into()),
            host: "localhost:4566".into(),
            ..Context::for_tests()
        }
    }

    #[test]
    fn a_command_by_reference_reads_back_as_the_command() {
        let input = json!({"QueueUrl": "q", "MessageBody": "hello"});
        let encoded = serde_json::to_string(&CommandRef::Call {
            cx: &cx(),
            service: ServiceId::Sqs,
            operation: "SendMessage",
            input: &input,
        })
        .unwrap();
        let read: Command = serde_json::from_str(&encoded).unwrap();
        let Command::Call {
            service,
            operation,
            input: read_input,
            cx: read_cx,
        } = read
        else {
            panic!("{encoded}")
        };
        assert_eq!(
            (service, operation.as_str(), read_input),
            (ServiceId::Sqs, "SendMessage", input.clone())
        );
        assert_eq!(read_cx.host, "localhost:4566");
        let wait = Some(Wait {
            deadline: 5,
            wall_seconds: 2,
        });
        let encoded = serde_json::to_string(&CommandRef::Receive {
            cx: &cx(),
            input: &input,
            wait,
        })
        .unwrap();
        let read: Command = serde_json::from_str(&encoded).unwrap();
        assert!(
            matches!(read, Command::Receive { wait: w, .. } if w == wait),
            "{encoded}"
        );
    }
}
