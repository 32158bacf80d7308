//! The services: typed operations over the emulator's state, and what a service is ([`ServiceId`]:
//! its name, model and error wording). A service never sees HTTP, XML or JSON framing; it gets
//! the request context and its input in the model's JSON form. It must not depend on the
//! protocols (which detect the service of a request from the wire), the runtime or the server.
// What a client sends reaches this code: no `unwrap`, `expect` or indexing that could panic on
// it (tests may); each one left is allowed in place with the reason it cannot fail.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

pub mod bus;
pub mod deduplicated;
pub mod event;
pub mod events;
pub mod iam;
pub mod lambda;
pub use crate::state::lenient;
pub use crate::state::match_index;
pub mod page;
pub mod pipes;
pub mod policy;
pub mod scheduler;
pub mod sns;
pub mod sqs;
pub mod streams;
pub mod sts;
pub mod target;

use crate::error::AwsError;
use crate::model::{self, Model};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Who is calling, where, and for which request.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Context {
    pub request_id: String,
    pub account: String,
    pub region: String,
    pub access_key: Option<String>,
    /// `host[:port]` of the URLs handed back (queue URLs, SNS's SubscribeURL): `--hostname`
    /// if set, else the host the client addressed.
    pub host: String,
    /// The shape of the queue URLs handed back (`--queue-url-style`).
    pub queue_url_style: crate::config::QueueUrlStyle,
    /// The request's `X-Amzn-Trace-Id` header: SQS keeps it as a message's AWSTraceHeader, SNS
    /// passes it on to its SQS subscriptions.
    pub trace_header: Option<String>,
}

impl Context {
    /// Whether a resource of `account` in `region` is the caller's own, in the region it called.
    pub fn owns(&self, account: &str, region: &str) -> bool {
        self.account == account && self.region == region
    }

    /// The caller of the unit tests and the fuzz targets: account 000000000000 in us-east-1,
    /// unsigned, addressing `localhost`.
    #[doc(hidden)]
    pub fn for_tests() -> Context {
        Context {
            request_id: "r".into(),
            account: "000000000000".into(),
            region: "us-east-1".into(),
            access_key: None,
            host: "localhost".into(),
            queue_url_style: Default::default(),
            trace_header: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ServiceId {
    Sqs,
    Sts,
    Sns,
    Events,
    /// The custom event bus with subscribers (`AWSEventsV2`, API version 2025-05-15).
    EventsV2,
    /// IAM's roles and policies (global: signed for us-east-1, API version 2010-05-08).
    Iam,
    /// EventBridge Scheduler (restJson1, API version 2021-06-30).
    Scheduler,
    /// EventBridge Pipes (restJson1, API version 2015-10-07).
    Pipes,
    /// AWS Lambda (restJson1, API version 2015-03-31).
    Lambda,
}

impl ServiceId {
    /// The services that answer today (`/_switchyard/health`).
    pub const SERVING: [ServiceId; 9] = [
        ServiceId::Sqs,
        ServiceId::Sns,
        ServiceId::Events,
        ServiceId::EventsV2,
        ServiceId::Sts,
        ServiceId::Iam,
        ServiceId::Scheduler,
        ServiceId::Pipes,
        ServiceId::Lambda,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ServiceId::Sqs => "sqs",
            ServiceId::Sts => "sts",
            ServiceId::Sns => "sns",
            ServiceId::Events => "events",
            ServiceId::EventsV2 => "eventsv2",
            ServiceId::Iam => "iam",
            ServiceId::Scheduler => "scheduler",
            ServiceId::Pipes => "pipes",
            ServiceId::Lambda => "lambda",
        }
    }

    /// The model of a service that answers; `None` for those still to come.
    pub fn model(self) -> Option<&'static Model> {
        match self {
            ServiceId::Sqs => Some(&model::SQS),
            ServiceId::Sts => Some(&model::STS),
            ServiceId::Sns => Some(&model::SNS),
            ServiceId::Events => Some(&model::EVENTS),
            ServiceId::EventsV2 => Some(&model::EVENTSV2),
            ServiceId::Iam => Some(&model::IAM),
            ServiceId::Scheduler => Some(&model::SCHEDULER),
            ServiceId::Pipes => Some(&model::PIPES),
            ServiceId::Lambda => Some(&model::LAMBDA),
        }
    }

    /// The error for a Query `parameter` whose value is not UTF-8 once percent-decoded (`byte`
    /// is the first that breaks it), as each service words an invalid value. The JSON protocol
    /// refuses such bytes while parsing the body (SerializationException).
    pub fn not_utf8(self, parameter: &str, byte: u8) -> AwsError {
        let reason = format!("it is not UTF-8 (byte '#x{byte:X}')");
        match self {
            ServiceId::Sqs => sqs::not_utf8(parameter, byte),
            ServiceId::Sns => AwsError::client(
                "InvalidParameterException",
                format!("Invalid parameter: {parameter} Reason: {reason}"),
            ),
            ServiceId::Iam => AwsError::client(
                "InvalidInputException",
                format!("Invalid value for parameter {parameter}: {reason}."),
            ),
            _ => AwsError::client(
                "InvalidParameterValue",
                format!("Value for parameter {parameter} is invalid. Reason: {reason}."),
            ),
        }
    }

    /// Whether the operation names absent required members itself, listed with its other
    /// violations in one message as AWS lists them (EventBridge's CreateConnection), instead of
    /// `protocol::check_required` answering the first one alone.
    pub fn checks_required_itself(self, operation: &str) -> bool {
        matches!((self, operation), (ServiceId::Events, "CreateConnection"))
    }

    /// An error the service answers before its model's required members are checked, as AWS
    /// orders its checks (SNS's SetPlatformApplicationAttributes names a malformed ARN first).
    pub fn refused_before_required(self, operation: &str, input: &Value) -> Option<AwsError> {
        match self {
            ServiceId::Sns => sns::refused_before_required(operation, input),
            _ => None,
        }
    }

    /// The error for a missing required member, as each service words it. `path` leads from
    /// the input to the member (`["Entries", "1", "member", "Id"]`).
    pub fn missing_parameter(self, path: &[String], kind: crate::model::ShapeKind) -> AwsError {
        use crate::model::ShapeKind::{List, Map, Structure};
        let member = path.last().map_or("", String::as_str);
        if !matches!(
            self,
            ServiceId::Sns
                | ServiceId::Events
                | ServiceId::EventsV2
                | ServiceId::Iam
                | ServiceId::Scheduler
                | ServiceId::Pipes
                | ServiceId::Lambda
        ) {
            return AwsError::client(
                "MissingParameter",
                format!("The request must contain the parameter {member}."),
            );
        }
        // SNS: a missing top-level value is an InvalidParameter; anything nested, or a missing
        // list or map, fails the model's validation first.
        if self == ServiceId::Sns && path.len() == 1 && !matches!(kind, List | Map | Structure) {
            return AwsError::client(
                "InvalidParameterException",
                format!("Invalid parameter: {member} Reason: no value for required parameter"),
            );
        }
        let camel: Vec<String> = path
            .iter()
            .map(|p| {
                let mut p = p.clone();
                if let Some(first) = p.get_mut(..1) {
                    first.make_ascii_lowercase();
                }
                p
            })
            .collect();
        // SNS and IAM (Query) call it ValidationError; EventBridge (JSON) ValidationException.
        let code = if matches!(self, ServiceId::Sns | ServiceId::Iam) {
            "ValidationError"
        } else {
            "ValidationException"
        };
        AwsError::client(
            code,
            format!(
                "1 validation error detected: Value null at '{}' failed to satisfy constraint: Member must not be null",
                camel.join(".")
            ),
        )
    }
}

/// Decodes the typed input, runs `op`, and encodes its typed output.
pub fn typed<I, O, E>(input: Value, op: impl FnOnce(I) -> Result<O, E>) -> Result<Value, AwsError>
where
    I: DeserializeOwned,
    O: Serialize,
    E: Into<AwsError>,
{
    let input = parse(input)?;
    let output = op(input).map_err(Into::into)?;
    serde_json::to_value(output).map_err(|e| AwsError::internal(format!("encoding output: {e}")))
}

/// A service's `call`: its operations by name, each run by [`typed`] on its typed input with the
/// state and the request's context. `"Name" => module::function` runs
/// `module::function(e, cx, input)`; an operation that needs more is a closure `|e, cx, i| ...`.
/// An operation not in the table answers `otherwise(operation)`, by default [`not_yet`].
macro_rules! operations {
    ($(#[$doc:meta])* otherwise: $otherwise:path; $($name:literal => $op:expr),* $(,)?) => {
        $(#[$doc])*
        pub fn call(
            e: &mut $crate::state::State,
            cx: &$crate::services::Context,
            operation: &str,
            input: serde_json::Value,
        ) -> Result<serde_json::Value, $crate::error::AwsError> {
            match operation {
                $($name => $crate::services::typed(input, |i| ($op)(e, cx, i)),)*
                _ => Err($otherwise(operation)),
            }
        }
    };
    ($(#[$doc:meta])* $($name:literal => $op:expr),* $(,)?) => {
        $crate::services::operations! {
            $(#[$doc])* otherwise: $crate::services::not_yet; $($name => $op),*
        }
    };
}
pub(crate) use operations;

pub fn parse<I: DeserializeOwned>(input: Value) -> Result<I, AwsError> {
    serde_json::from_value(input)
        .map_err(|e| AwsError::serialization(format!("Invalid request: {e}.")))
}

/// A Coral-style validation message (the JSON services' ValidationException): "1 validation
/// error detected: Value 'x' at 'member' failed to satisfy constraint: <rule>".
pub fn validation_message(value: impl std::fmt::Display, member: &str, rule: &str) -> String {
    format!(
        "1 validation error detected: Value '{value}' at '{member}' failed to satisfy constraint: {rule}"
    )
}

/// An update's optional member: what the caller gave replaces what `slot` holds; a member left
/// out keeps it.
pub fn set_given<T>(slot: &mut Option<T>, given: Option<T>) {
    if given.is_some() {
        *slot = given;
    }
}

/// An operation the model has but switchyard does not answer yet.
pub fn not_yet(operation: &str) -> AwsError {
    AwsError::client(
        "InvalidAction",
        format!("The action {operation} is not supported by switchyard yet."),
    )
}

/// A member set on a JSON object made with `json!({...})`: as `value["Key"] = ...`, which would
/// panic on a value that is neither an object nor null.
pub trait SetMember {
    /// Sets `key` to `value`: in its place when the object has it, last when not. A value that
    /// is not an object is left as it is (the objects of answers always are).
    fn set(&mut self, key: &str, value: Value);
}

impl SetMember for Value {
    fn set(&mut self, key: &str, value: Value) {
        if let Some(members) = self.as_object_mut() {
            members.insert(key.to_owned(), value);
        }
    }
}
