//! Asynchronous invocations (the Lambda developer guide, "Invoking a Lambda function
//! asynchronously", "Capturing records of Lambda asynchronous invocations"): an event handed to
//! a function (Invoke with `InvocationType: Event`, an SNS subscription, an EventBridge rule, a
//! Scheduler schedule ...) is accepted at once and goes to the function's own queue, here a
//! delivery of the engine on the virtual clock. Each attempt is one invocation the runtime runs
//! ([`crate::engine::delivery::Target::Invoke`]), all with the event's one request id; the
//! retries follow the function's event invoke configuration ([`AsyncRetry`]). When the
//! attempts are over, the invocation record goes to the OnSuccess or OnFailure destination (an
//! SQS queue, an SNS topic, an event bus, a function), and a failed event to the function's
//! dead-letter queue (SQS or SNS) with its RequestID, ErrorCode and ErrorMessage.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::run;
use crate::arn::Arn;
use crate::engine::delivery::{
    BY_AGE, Counters, Delivery, Ending, Failure, Follow, Keep, MessageAttributeValue, NoRetries,
    Outcome, Publisher, SqsMessage, Target,
};
use crate::engine::time::format_rfc3339;
use crate::error::AwsError;
use crate::services::Context;
use crate::services::events::store::HttpParameters;
use crate::services::target::{Buses, Payload, adapt};
use crate::state::lambda::invocations::{AsyncEvent, InvokeConfig};
use crate::state::lambda::retry::AsyncRetry;
use crate::state::{State, Step};
use serde_json::{Value, json};

/// The label of Lambda's deliveries, and the namespace of its metrics.
pub const SERVICE: &str = "lambda";
pub const NAMESPACE: &str = "AWS/Lambda";
/// AWS's limit on an asynchronous invocation's payload.
pub const MAX_EVENT_BYTES: usize = 1024 * 1024;
/// The longest ErrorMessage a dead letter carries.
const MAX_ERROR_MESSAGE: usize = 1024;

/// The event invoke configuration that applies to an invocation of `invoked` (a function ARN,
/// with the version or alias invoked): its own, else none.
pub fn config_for<'s>(e: &'s State, invoked: &str) -> Option<&'s InvokeConfig> {
    let key = invoked.strip_suffix(":$LATEST").unwrap_or(invoked);
    e.lambda.invoke_configs.get(key)
}

/// Accepts an event for the function `named` names (a name or an ARN, in `account` and
/// `region` when not an ARN), handed over by `publisher`: its request id. The invocations
/// follow on the virtual clock.
pub fn enqueue(
    e: &mut State,
    publisher: &Publisher,
    region: &str,
    named: &str,
    qualifier: Option<&str>,
    payload: String,
) -> Result<String, AwsError> {
    let f = run::runnable(e, &publisher.account, region, named, qualifier)?;
    let request_id = e.engine.rng.uuid();
    let config = config_for(e, &f.invoked_arn).cloned().unwrap_or_default();
    let defaults = AsyncRetry::default();
    let policy = AsyncRetry {
        max_retries: config.max_retries.unwrap_or(defaults.max_retries),
        max_age_ms: config
            .max_age_s
            .map_or(defaults.max_age_ms, |s| i64::from(s) * 1000),
    };
    let event = AsyncEvent {
        function: f.invoked_arn.clone(),
        request_id: request_id.clone(),
        payload: payload.clone(),
        host: publisher.host.clone(),
    };
    let target = Target::Invoke {
        function: f.invoked_arn.clone(),
        payload,
        request_id: request_id.clone(),
        host: publisher.host.clone(),
    };
    let delivery = Delivery::new(
        SERVICE,
        f.invoked_arn.clone(),
        "lambda".into(),
        request_id.clone(),
        target,
        policy,
        None,
    )
    .followed_by(Follow {
        keep: Keep::Always,
        then: Step::LambdaEventEnded(Box::new(event)),
    })
    .keeping_answer()
    .counted(Counters {
        namespace: NAMESPACE,
        resource: f.name,
        attempted: Some("Invocations"),
        failed: Some("Errors"),
        every_failure: true,
        dropped: Some("AsyncEventsDropped"),
        ..Counters::default()
    });
    e.deliver(delivery);
    Ok(request_id)
}

#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct EventInput {
    pub function_name: String,
    pub qualifier: Option<String>,
    /// Base64, as the front-end carries a blob payload.
    pub payload: Option<String>,
}

/// Invoke with `InvocationType: Event`: the event accepted (202), its invocations to follow.
/// The runtime checked the payload is JSON.
pub fn invoke_event(e: &mut State, cx: &Context, input: EventInput) -> Result<Value, AwsError> {
    use base64::Engine;
    let payload = match &input.payload {
        Some(b64) => base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|_| AwsError::internal("the payload is not base64"))?,
        None => Vec::new(),
    };
    if payload.len() > MAX_EVENT_BYTES {
        return Err(super::errors::user(
            "RequestTooLargeException",
            413,
            format!(
                "Request must be smaller than {MAX_EVENT_BYTES} bytes for the InvokeFunction \
                 operation"
            ),
        ));
    }
    let text = String::from_utf8_lossy(&payload);
    let payload = match text.trim().is_empty() {
        true => "{}".to_string(),
        false => text.into_owned(),
    };
    let publisher = Publisher {
        account: cx.account.clone(),
        host: cx.host.clone(),
    };
    let qualifier = input.qualifier.as_deref();
    enqueue(
        e,
        &publisher,
        &cx.region,
        &input.function_name,
        qualifier,
        payload,
    )?;
    Ok(json!({"StatusCode": 202}))
}

/// An event handed over to a function's queue by another service (an SNS subscription, a rule
/// target ...): accepted, or why not. A payload that is not JSON (an event stream's message
/// body, a template's text) is handed over as a JSON string, as an invocation's payload must be
/// JSON.
pub fn accept(
    e: &mut State,
    function: &str,
    publisher: &Publisher,
    payload: String,
) -> Result<(), Failure> {
    let payload = match serde_json::from_str::<serde::de::IgnoredAny>(&payload) {
        Ok(_) => payload,
        Err(_) => Value::String(payload).to_string(),
    };
    if payload.len() > MAX_EVENT_BYTES {
        return Err(Failure::TooLarge);
    }
    let region = Arn::region_of(function).to_string();
    match enqueue(e, publisher, &region, function, None, payload) {
        Ok(_) => Ok(()),
        Err(err) if err.code == "ResourceNotFoundException" => {
            Err(Failure::NotFound("ResourceNotFoundException"))
        }
        Err(_) => Err(Failure::InvalidParameter("InvalidRuntimeException")),
    }
}

/// How a delivery ended, as [`crate::engine::delivery::Work::Ended`] tells it: the ending, the
/// last attempt's outcome, the answer kept, the number of attempts and the limit that ended
/// the retries.
pub type How<'a> = (
    Ending,
    Option<&'a Outcome>,
    Option<String>,
    u32,
    Option<&'static str>,
);

/// The attempts of an asynchronous invocation are over: its record goes to its destination,
/// and a failed event to the function's dead-letter queue.
pub fn ended(e: &mut State, event: &AsyncEvent, how: How) {
    let (ending, last, answer, attempts, exhausted) = how;
    let success = ending == Ending::Delivered;
    let config = config_for(e, &event.function).cloned().unwrap_or_default();
    let function_error = last
        .and_then(Outcome::failure)
        .is_some_and(|f| f.code() == Some("Unhandled"));
    let status = match (success, function_error, last.and_then(Outcome::status)) {
        (true, _, _) | (_, true, _) => 200,
        (false, false, Some(status)) => status,
        (false, false, None) => 500,
    };
    let condition = match (success, exhausted) {
        (true, _) => "Success",
        (false, Some(BY_AGE)) => "EventAgeExceeded",
        (false, _) => "RetriesExhausted",
    };
    let version = executed_version(&event.function);
    let mut response = json!({"statusCode": status, "executedVersion": version});
    if function_error && let Some(map) = response.as_object_mut() {
        map.insert("functionError".into(), json!("Unhandled"));
    }
    let request_payload = serde_json::from_str::<Value>(&event.payload)
        .unwrap_or_else(|_| Value::String(event.payload.clone()));
    let mut record = json!({
        "version": "1.0",
        "timestamp": format_rfc3339(e.now()),
        "requestContext": {
            "requestId": event.request_id,
            "functionArn": event.function,
            "condition": condition,
            "approximateInvokeCount": attempts,
        },
        "requestPayload": request_payload,
        "responseContext": response,
    });
    if let (Some(map), Some(answer)) = (record.as_object_mut(), &answer) {
        let payload =
            serde_json::from_str::<Value>(answer).unwrap_or_else(|_| Value::String(answer.clone()));
        map.insert("responsePayload".into(), payload);
    }
    let destination = match success {
        true => config.on_success,
        false => config.on_failure,
    };
    if let Some(destination) = destination {
        send_record(e, event, &destination, success, record);
    }
    if !success {
        let message = error_message(answer.as_deref(), last);
        dead_letter(e, event, status, &message);
    }
}

/// The version that ran an invocation of `invoked`: its own qualifier when it names a version,
/// else `$LATEST`.
fn executed_version(invoked: &str) -> String {
    let unqualified = super::functions::unqualified_arn(invoked);
    match invoked
        .strip_prefix(unqualified)
        .and_then(|q| q.strip_prefix(':'))
    {
        Some(q) if q.chars().all(|c| c.is_ascii_digit()) => q.to_string(),
        _ => "$LATEST".to_string(),
    }
}

/// Who the records and dead letters of a function's invocations come from.
fn publisher_of(event: &AsyncEvent) -> Publisher {
    Publisher {
        account: Arn::account_of(&event.function).to_string(),
        host: event.host.clone(),
    }
}

/// Sends an invocation record to a destination, as AWS does: the record itself to a queue, a
/// topic or a function, and an event (`source: lambda`, `detail-type: Lambda Function
/// Invocation Result - Success` or `- Failure`, the record as its detail) to a bus.
fn send_record(e: &mut State, event: &AsyncEvent, destination: &str, success: bool, record: Value) {
    let publisher = publisher_of(event);
    let detail_type = match success {
        true => "Lambda Function Invocation Result - Success",
        false => "Lambda Function Invocation Result - Failure",
    };
    let bus_event = json!({
        "version": "0",
        "id": e.engine.rng.uuid(),
        "detail-type": detail_type,
        "source": "lambda",
        "account": publisher.account,
        "time": format_rfc3339(e.now()),
        "region": Arn::region_of(&event.function),
        "resources": [event.function],
        "detail": record,
    });
    let payload = Payload {
        event: bus_event.to_string(),
        ..Payload::of(record.to_string())
    };
    let buses = Buses {
        classic: true,
        custom: false,
    };
    let adapted = adapt(
        e,
        destination,
        &publisher,
        payload,
        buses,
        &HttpParameters::default(),
    );
    let delivery = Delivery::new(
        SERVICE,
        event.function.clone(),
        adapted.protocol,
        event.request_id.clone(),
        adapted.target,
        NoRetries,
        None,
    );
    e.deliver(delivery);
}

/// What a failed event's dead letter says went wrong: the function's errorMessage, or the
/// failure's code.
fn error_message(answer: Option<&str>, last: Option<&Outcome>) -> String {
    let from_answer = answer
        .and_then(|a| serde_json::from_str::<Value>(a).ok())
        .and_then(|v| {
            v.get("errorMessage")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
    let message = from_answer.unwrap_or_else(|| {
        last.and_then(Outcome::failure)
            .map_or_else(String::new, ToString::to_string)
    });
    message.chars().take(MAX_ERROR_MESSAGE).collect()
}

/// Writes a failed event to its function's dead-letter queue or topic, if it has one: the
/// event as the body, with the RequestID, ErrorCode and ErrorMessage attributes.
fn dead_letter(e: &mut State, event: &AsyncEvent, status: u16, message: &str) {
    let function = super::functions::unqualified_arn(&event.function);
    let Some(target) = e
        .lambda
        .functions
        .get(function)
        .and_then(|f| f.dead_letter.clone())
    else {
        return;
    };
    let mut attributes = std::collections::BTreeMap::new();
    attributes.insert(
        "RequestID".to_string(),
        MessageAttributeValue::string(&event.request_id),
    );
    attributes.insert(
        "ErrorCode".to_string(),
        MessageAttributeValue {
            data_type: "Number".into(),
            string_value: Some(status.to_string()),
            binary_value: None,
        },
    );
    if !message.is_empty() {
        attributes.insert(
            "ErrorMessage".to_string(),
            MessageAttributeValue::string(message),
        );
    }
    let publisher = publisher_of(event);
    let target = match Arn::service_of(&target) {
        "sns" => Target::Sns {
            topic_arn: target.clone(),
            publisher,
            body: event.payload.clone(),
            group_id: None,
            dedup_id: None,
            attributes,
        },
        _ => Target::Sqs {
            queue_arn: target.clone(),
            message: SqsMessage {
                body: event.payload.clone().into(),
                attributes,
                group_id: None,
                dedup_id: None,
                trace_header: None,
            },
        },
    };
    let protocol = Arn::service_of(target.name()).to_string();
    let delivery = Delivery::new(
        SERVICE,
        event.function.clone(),
        protocol,
        event.request_id.clone(),
        target,
        NoRetries,
        None,
    );
    e.deliver(delivery);
}
