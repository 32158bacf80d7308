//! Lambda's Invoke as the runtime runs it: the function looked up under the state's lock, its
//! handler run off it in an execution environment (`lambda/`), the answer made as AWS makes it
//! (the payload, `X-Amz-Function-Error`, `X-Amz-Log-Result` for `LogType: Tail`,
//! `X-Amz-Executed-Version`: the version that ran, an alias's routed one). `InvocationType:
//! DryRun` checks and answers 204; an `Event` invocation, once checked, goes back to the caller
//! (`calls.rs`) to be queued in the state as an operation of its own. Also the invocations that
//! deliveries ask for ([`crate::engine::Effect::Invoke`]), and their records.
//! It must not depend on the protocols or the server.

use super::Runtime;
use super::lambda::{FunctionSpec, Invocation, Outcome};
use crate::arn::Arn;
use crate::dispatch::commands::Command;
use crate::engine::delivery::DeliveryId;
use crate::error::AwsError;
use crate::services::Context;
use crate::services::lambda::run::{self, Runnable};
use crate::state::lambda::invocations::{InvocationRecord, Invoked};
use base64::Engine;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

/// AWS's limit on a synchronous invocation's request payload (and its answer's).
pub(super) const MAX_PAYLOAD: usize = 6 * 1024 * 1024;
/// The bytes of the log `LogType: Tail` returns, at the most: its end.
const TAIL: usize = 4 * 1024;

#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct InvokeInput {
    function_name: String,
    qualifier: Option<String>,
    invocation_type: Option<String>,
    log_type: Option<String>,
    client_context: Option<String>,
    /// Base64, as the front-end carries a blob payload.
    payload: Option<String>,
}

use crate::services::lambda::errors::user as error;

/// What an Invoke comes to: the answer of an invocation run here, or an `Event` invocation
/// checked, whose input goes to the state as an operation of its own (the function's queue, on
/// the virtual clock: a change of the state, journaled).
pub(super) enum Handled {
    Answered(Value),
    Queued(Value),
}

pub(super) async fn invoke(rt: &Runtime, cx: &Context, input: Value) -> Result<Handled, AwsError> {
    let raw = input.clone();
    let input: InvokeInput = crate::services::parse(input)?;
    let payload = match &input.payload {
        Some(b64) => base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|_| AwsError::internal("the payload is not base64"))?,
        None => Vec::new(),
    };
    if payload.len() > MAX_PAYLOAD {
        return Err(error(
            "RequestTooLargeException",
            413,
            format!(
                "Request must be smaller than {MAX_PAYLOAD} bytes for the InvokeFunction \
                 operation"
            ),
        ));
    }
    let payload = if payload.iter().all(u8::is_ascii_whitespace) {
        b"{}".to_vec()
    } else {
        if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(&payload) {
            return Err(error(
                "InvalidRequestContentException",
                400,
                format!("Could not parse request body into json: {e}"),
            ));
        }
        payload
    };
    let kind = input
        .invocation_type
        .as_deref()
        .unwrap_or("RequestResponse");
    if !matches!(kind, "RequestResponse" | "Event" | "DryRun") {
        return Err(error(
            "InvalidParameterValueException",
            400,
            format!("Unsupported invocation type {kind}"),
        ));
    }
    if kind == "Event" {
        return Ok(Handled::Queued(raw));
    }
    // From the runtime's own generator: a synchronous invocation changes nothing in the state
    // (its record comes after, as a command of its own).
    let request_id = rt.request_id();
    let (spec, reserved, started_at) = {
        let state = rt.state_async().await?;
        let f = run::runnable_for(
            &state,
            &cx.account,
            &cx.region,
            &input.function_name,
            input.qualifier.as_deref(),
            &request_id,
        )?;
        let reserved = f.reserved_concurrency;
        (spec_of(f, &cx.host), reserved, state.now())
    };
    if reserved == Some(0) {
        return Err(throttled(reserved));
    }
    if kind == "DryRun" {
        return Ok(Handled::Answered(json!({"StatusCode": 204})));
    }
    let invocation = Invocation {
        request_id,
        payload,
        client_context: input.client_context,
        trace_id: None,
    };
    let request_id = invocation.request_id.clone();
    let invoked = rt.environments().invoke(&spec, invocation).await;
    log(&spec, &invoked);
    let record = record_of(&spec, &request_id, "RequestResponse", started_at, &invoked);
    let _ = rt.run(Command::InvocationRecorded { record }).await;
    answer(
        invoked,
        &spec.version,
        input.log_type.as_deref() == Some("Tail"),
        reserved,
    )
    .map(Handled::Answered)
}

/// An invocation a delivery asked for ([`crate::engine::Effect::Invoke`]).
pub(super) struct DeliveryCall {
    pub delivery: DeliveryId,
    pub function: String,
    pub payload: String,
    pub request_id: String,
    pub host: String,
}

impl Runtime {
    /// Runs the invocation a delivery asked for: how it ended, and its record.
    pub(super) async fn invoke_for_delivery(
        &self,
        call: DeliveryCall,
    ) -> (Invoked, Option<InvocationRecord>) {
        let found = {
            let state = self.state();
            let arn = Arn::parse(&call.function);
            let (account, region) = arn.map_or(("", ""), |a| (a.account, a.region));
            let kind = run::invocation_type(&state, call.delivery);
            let id = &call.request_id;
            run::runnable_for(&state, account, region, &call.function, None, id).map(|f| {
                (
                    f.reserved_concurrency,
                    spec_of(f, &call.host),
                    kind,
                    state.now(),
                )
            })
        };
        let (spec, kind, started_at) = match found {
            Err(e) => return (Invoked::Gone { message: e.message }, None),
            Ok((Some(0), ..)) => return (Invoked::Throttled, None),
            Ok((_, spec, kind, at)) => (spec, kind, at),
        };
        let invocation = Invocation {
            request_id: call.request_id.clone(),
            payload: call.payload.into_bytes(),
            client_context: None,
            trace_id: None,
        };
        let invoked = self.environments().invoke(&spec, invocation).await;
        log(&spec, &invoked);
        let record = record_of(&spec, &call.request_id, kind, started_at, &invoked);
        let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
        let result = match invoked.outcome {
            Outcome::Response(bytes) => Invoked::Response {
                payload: text(bytes),
            },
            Outcome::FunctionError { payload, .. } => Invoked::FunctionError {
                error_type: record.error_type.clone().unwrap_or_default(),
                payload: text(payload),
            },
            Outcome::NotStarted {
                error_type,
                message,
            } => Invoked::FunctionError {
                payload: json!({"errorMessage": message, "errorType": error_type}).to_string(),
                error_type,
            },
            Outcome::Throttled => Invoked::Throttled,
        };
        (result, Some(record))
    }
}

/// The record of an invocation, as the control API and the console list it.
fn record_of(
    spec: &FunctionSpec,
    request_id: &str,
    kind: &str,
    started_at: crate::engine::time::Millis,
    invoked: &super::lambda::Invoked,
) -> InvocationRecord {
    let (result, error_type) = match &invoked.outcome {
        Outcome::Response(_) => ("Success", None),
        Outcome::FunctionError { payload, .. } => (
            "Unhandled",
            serde_json::from_slice::<Value>(payload).ok().and_then(|v| {
                v.get("errorType")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            }),
        ),
        Outcome::NotStarted { error_type, .. } => ("Unhandled", Some(error_type.clone())),
        Outcome::Throttled => ("Throttled", None),
    };
    let log = invoked.log.as_bytes();
    let tail = log.get(log.len().saturating_sub(TAIL)..).unwrap_or(log);
    InvocationRecord {
        request_id: request_id.to_string(),
        function: spec.invoked_arn.clone(),
        version: spec.version.clone(),
        invocation_type: kind.to_string(),
        started_at,
        duration_us: u64::try_from(invoked.duration.as_micros()).unwrap_or(u64::MAX),
        result: result.to_string(),
        error_type,
        log_tail: String::from_utf8_lossy(tail).into_owned(),
    }
}

/// An execution environment's specification for a function's version, with switchyard's own
/// URL (`host`) as the function's `AWS_ENDPOINT_URL`.
pub(super) fn spec_of(f: Runnable, host: &str) -> FunctionSpec {
    FunctionSpec {
        function_name: f.name,
        function_arn: f.arn,
        invoked_arn: f.invoked_arn,
        version: f.version,
        runtime: f.runtime,
        handler: f.handler,
        code: f.code_dir.into(),
        layers: f.layer_dirs.into_iter().map(Into::into).collect(),
        environment: f.environment,
        memory_mb: f.memory,
        timeout: Duration::from_secs(u64::from(f.timeout)),
        region: f.region,
        account: f.account,
        endpoint_url: format!("http://{host}"),
        revision: f.revision,
        max_environments: f
            .reserved_concurrency
            .unwrap_or(crate::services::lambda::ACCOUNT_CONCURRENCY),
    }
}

fn throttled(reserved: Option<u32>) -> AwsError {
    let reason = if reserved.is_some() {
        "ReservedFunctionConcurrentInvocationLimitExceeded"
    } else {
        "ConcurrentInvocationLimitExceeded"
    };
    crate::services::lambda::errors::throttled(reason)
}

/// The invocation's log lines in switchyard's own log, under the function's name.
fn log(spec: &FunctionSpec, invoked: &super::lambda::Invoked) {
    for line in invoked.log.lines() {
        tracing::info!(target: "switchyard::lambda", function = %spec.function_name, "{line}");
    }
}

/// Invoke's answer for a synchronous invocation of `version` (`X-Amz-Executed-Version`).
fn answer(
    invoked: super::lambda::Invoked,
    version: &str,
    tail: bool,
    reserved: Option<u32>,
) -> Result<Value, AwsError> {
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let (payload, function_error) = match invoked.outcome {
        Outcome::Response(bytes) => (bytes, None),
        Outcome::FunctionError { payload, kind } => (payload, Some(kind)),
        Outcome::NotStarted {
            error_type,
            message,
        } => (
            json!({"errorMessage": message, "errorType": error_type})
                .to_string()
                .into_bytes(),
            Some("Unhandled".to_string()),
        ),
        Outcome::Throttled => return Err(throttled(reserved)),
    };
    let mut out = json!({
        "StatusCode": 200,
        "ExecutedVersion": version,
        "Payload": b64(&payload),
    });
    if let Some(map) = out.as_object_mut() {
        if let Some(kind) = function_error {
            map.insert("FunctionError".into(), json!(kind));
        }
        if tail {
            let log = invoked.log.as_bytes();
            let start = log.len().saturating_sub(TAIL);
            map.insert(
                "LogResult".into(),
                json!(b64(log.get(start..).unwrap_or(log))),
            );
        }
    }
    Ok(out)
}

/// The environments every function of this runtime runs in, made on first use.
impl Runtime {
    pub fn environments(&self) -> Arc<super::lambda::Environments> {
        self.lambda
            .get_or_init(|| {
                super::lambda::Environments::new(super::lambda::Settings {
                    interpreters: self.config.lambda_interpreters.iter().cloned().collect(),
                    idle: Duration::from_secs(600),
                    work_dir: self.code_root().with_file_name("runtime"),
                })
            })
            .clone()
    }
}

impl Runtime {
    /// Stops every Lambda execution environment (the emulator is stopping).
    pub async fn stop_functions(&self) {
        if let Some(environments) = self.lambda.get() {
            environments.shutdown().await;
        }
    }

    /// Stops the environments of a function deleted.
    pub async fn stop_function(&self, function_arn: &str) {
        if let Some(environments) = self.lambda.get() {
            environments.stop_function(function_arn).await;
        }
    }
}
