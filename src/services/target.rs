//! The one target adapter: the ARN an EventBridge rule target, a custom-bus subscriber or an
//! event stream names, with what it is handed, becomes the engine's typed [`Target`] here and
//! nowhere else: an SQS queue (one message or a batch), an SNS topic, an event bus, an API
//! destination (a real HTTP request through its connection), a Lambda function (a real POST to
//! its `--lambda-endpoint` URL, or the outbox), or the outbox for anything that cannot exist
//! locally. Each caller keeps its own rules (retry policy, dead letters, codes) around it. SNS
//! builds its own targets by protocol but takes its Lambda one from here ([`lambda_with`]).
//! It reads the state (queues, topics, buses, API destinations) and must not depend on the runtime, the protocols or the server.

use crate::arn::Arn;
use crate::engine::delivery::{BatchEntry, Failure, Publisher, SqsMessage, Target};
use crate::services::bus;
use crate::services::events::connections::invocation::invocation;
use crate::services::events::store::HttpParameters;
use crate::state::State;
use std::collections::{BTreeMap, HashMap};

/// What a target is handed.
#[derive(Debug, Clone)]
pub struct Payload {
    /// The target input (the event, or what Input, InputPath or a transformer made of it).
    pub body: String,
    /// The whole event, as a bus target puts it on its bus, and the buses it already passed.
    pub event: String,
    pub trail: Vec<String>,
    /// For SQS targets: the message's attributes; for SQS and SNS FIFO targets, its group and
    /// deduplication id.
    pub attributes: BTreeMap<String, crate::engine::delivery::MessageAttributeValue>,
    pub group_id: Option<String>,
    pub dedup_id: Option<String>,
    /// For SQS targets that take batches (custom-bus subscribers): every message of the batch,
    /// `body` being the first's.
    pub batch: Option<Vec<BatchEntry>>,
}

impl Payload {
    /// A payload of `body` alone.
    pub fn of(body: String) -> Payload {
        Payload {
            body,
            event: String::new(),
            trail: Vec::new(),
            attributes: BTreeMap::new(),
            group_id: None,
            dedup_id: None,
            batch: None,
        }
    }
}

/// Which event buses a caller may forward to: classic EventBridge buses (`:event-bus/`), custom
/// buses (`:event-busv2/`), or both. Others go to the outbox as unknown targets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Buses {
    pub classic: bool,
    pub custom: bool,
}

/// A target ARN made a typed target.
#[derive(Debug)]
pub struct Adapted {
    /// How the delivery log names the target's protocol: `sqs`, `sns`, `event-bus`,
    /// `api-destination`, `lambda`, or the ARN's service.
    pub protocol: String,
    pub target: Target,
    /// An API destination's invocation rate limit: (key, requests per second).
    pub throttle: Option<(String, u32)>,
    /// Why the target cannot be invoked (an API destination missing or not authorized): every
    /// attempt fails so.
    pub unusable: Option<Failure>,
}

impl Adapted {
    /// Whether the target is a real HTTP endpoint (an API destination, a mapped Lambda).
    pub fn is_http(&self) -> bool {
        matches!(self.target, Target::Http { .. })
    }
}

/// Makes the target `arn` names, handed `payload` by `publisher`; `http` are the HTTP
/// parameters of an API destination target.
pub fn adapt(
    e: &State,
    arn: &str,
    publisher: &Publisher,
    payload: Payload,
    buses: Buses,
    http: &HttpParameters,
) -> Adapted {
    let adapted = |protocol: &str, target: Target| Adapted {
        protocol: protocol.to_string(),
        target,
        throttle: None,
        unusable: None,
    };
    let p = payload;
    match Arn::service_of(arn) {
        "sqs" => match p.batch {
            Some(entries) => adapted(
                "sqs",
                Target::SqsBatch {
                    queue_arn: arn.to_string(),
                    entries,
                },
            ),
            None => {
                let message = SqsMessage {
                    body: p.body.into(),
                    attributes: p.attributes,
                    group_id: p.group_id,
                    dedup_id: p.dedup_id,
                    trace_header: None,
                };
                let queue_arn = arn.to_string();
                adapted("sqs", Target::Sqs { queue_arn, message })
            }
        },
        "sns" => adapted(
            "sns",
            Target::Sns {
                topic_arn: arn.to_string(),
                publisher: publisher.clone(),
                body: p.body,
                group_id: p.group_id,
                dedup_id: p.dedup_id,
                attributes: BTreeMap::new(),
            },
        ),
        "events" if is_bus(arn, buses) => adapted(
            "event-bus",
            Target::Bus {
                bus_arn: arn.to_string(),
                publisher: publisher.clone(),
                event: p.event,
                trail: p.trail,
            },
        ),
        "events" if Arn::resource_type(arn) == Some("api-destination") => {
            match invocation(e, arn, http) {
                Ok(call) => Adapted {
                    throttle: call.rate_limit_per_second.map(|r| (arn.to_string(), r)),
                    ..adapted("api-destination", call.into_target(p.body))
                },
                Err(failure) => Adapted {
                    unusable: Some(failure),
                    ..adapted("api-destination", Target::outbox(arn, p.body))
                },
            }
        }
        "lambda" => adapted("lambda", lambda(e, arn, publisher, p.body)),
        other => adapted(other, Target::outbox(arn, p.body)),
    }
}

fn is_bus(arn: &str, buses: Buses) -> bool {
    if bus::is_bus_arn(arn) {
        buses.custom
    } else {
        buses.classic && Arn::resource_type(arn) == Some("event-bus")
    }
}

/// Where deliveries to Lambda functions go: the `--lambda-endpoint` URLs (function ARN → URL)
/// of functions the user runs, and the functions of this emulator.
#[derive(Clone, Copy)]
pub struct Lambdas<'a> {
    pub endpoints: &'a HashMap<String, String>,
    pub functions: &'a crate::state::lambda::store::Store,
}

impl State {
    pub fn lambdas(&self) -> Lambdas<'_> {
        Lambdas {
            endpoints: &self.lambda_endpoints,
            functions: &self.lambda,
        }
    }
}

/// A Lambda function as a target, handed `body` by `publisher`: a real POST to its
/// `--lambda-endpoint` URL when it has one, else an asynchronous invocation of the function of
/// this emulator (its own queue, retries and destinations), else the outbox.
pub fn lambda(e: &State, arn: &str, publisher: &Publisher, body: String) -> Target {
    lambda_with(e.lambdas(), arn, publisher, body, BTreeMap::new())
}

/// [`lambda`] for a caller that has only parts of the state, as SNS when it builds a delivery
/// from borrowed parts; `outbox_attributes` go with the event when it lands in the outbox (SNS's
/// Subject).
pub fn lambda_with(
    lambdas: Lambdas,
    arn: &str,
    publisher: &Publisher,
    body: String,
    outbox_attributes: BTreeMap<String, serde_json::Value>,
) -> Target {
    if let Some(url) = lambdas.endpoints.get(arn) {
        return Target::Http {
            method: "POST".into(),
            url: url.clone(),
            headers: vec![("Content-Type".into(), "application/json".into())],
            body,
        };
    }
    if lambdas
        .functions
        .functions
        .contains_key(crate::services::lambda::functions::unqualified_arn(arn))
    {
        return Target::Lambda {
            function: arn.to_string(),
            publisher: publisher.clone(),
            payload: body,
        };
    }
    Target::Outbox {
        address: arn.to_string(),
        body,
        attributes: outbox_attributes,
    }
}

/// An event handed to a bus it already passed (its `trail`) goes no further: LOOP_DETECTED, on
/// both kinds of bus.
pub fn refuse_loop(trail: &[String], bus_arn: &str) -> Result<(), Failure> {
    match trail.iter().any(|b| b == bus_arn) {
        true => Err(Failure::Loop("LOOP_DETECTED")),
        false => Ok(()),
    }
}

/// An event handed to a bus of this emulator, EventBridge's or a custom one: a target's
/// (`Target::Bus`) or a dead letter put on a bus.
pub struct Hop<'a> {
    pub bus_arn: &'a str,
    /// The account that puts it there.
    pub publisher: &'a Publisher,
    /// The event's JSON text.
    pub event: &'a str,
    /// The buses the event already passed.
    pub trail: Vec<String>,
}

/// Whether the target `arn` names exists or can be invoked (the checks of an event stream's
/// start): queues, topics and buses must exist, an API destination must be usable; Lambda
/// functions, Firehose streams and the like always can (a mapped URL or the outbox takes them).
pub fn exists(e: &State, arn: &str) -> bool {
    match Arn::service_of(arn) {
        "sqs" => e.sqs.by_arn(arn).is_some(),
        "sns" => e.sns.topics.contains_key(arn),
        "events" if bus::is_bus_arn(arn) => e.bus.buses.contains_key(arn),
        "events" if Arn::resource_type(arn) == Some("event-bus") => {
            e.events.buses.contains_key(arn)
        }
        "events" if Arn::resource_type(arn) == Some("api-destination") => {
            invocation(e, arn, &HttpParameters::default()).is_ok()
        }
        _ => true,
    }
}
