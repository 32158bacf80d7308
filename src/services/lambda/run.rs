//! What the runtime needs to run a function: the configuration of the version an invocation
//! names, read from the store under the state's lock, as a plain value the runtime turns into
//! an execution environment's specification off it.
//! It must not depend on the runtime, the protocols or the server.

use super::errors::user as error;
use super::functions::{find_in, runnable as runs};
use crate::engine::delivery::{DeliveryId, Failure, Outcome};
use crate::error::AwsError;
use crate::state::State;
use crate::state::lambda::invocations::{InvocationRecord, Invoked, MAX_RECORDS};
use std::collections::BTreeMap;

/// A function's version as an invocation runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Runnable {
    pub name: String,
    /// Unqualified.
    pub arn: String,
    /// What the caller named: the unqualified ARN, or the ARN with its version or alias.
    pub invoked_arn: String,
    /// The version that runs: `$LATEST`, `1` ...
    pub version: String,
    pub runtime: String,
    pub handler: String,
    /// The unpacked code folder.
    pub code_dir: String,
    /// The unpacked layers' folders, in the function's order.
    pub layer_dirs: Vec<String>,
    pub environment: BTreeMap<String, String>,
    pub memory: u32,
    /// Seconds.
    pub timeout: u32,
    pub region: String,
    pub account: String,
    /// Changes with code or configuration: environments of an older revision are not reused.
    pub revision: String,
    pub reserved_concurrency: Option<u32>,
}

/// The function (and version or alias) `named` names for a caller in `account` and `region`:
/// a name, a partial or a full ARN, with or without its qualifier; `qualifier` is Invoke's
/// `Qualifier` member. ResourceNotFoundException when there is none; InvalidRuntimeException
/// when switchyard cannot run its runtime.
pub fn runnable(
    state: &State,
    account: &str,
    region: &str,
    named: &str,
    qualifier: Option<&str>,
) -> Result<Runnable, AwsError> {
    let named = match qualifier {
        Some(q) => format!("{named}:{q}"),
        None => named.to_string(),
    };
    let f = find_in(state, account, region, &named)?;
    if !runs(f) {
        return Err(error(
            "InvalidRuntimeException",
            502,
            format!(
                "The runtime parameter of {} is not one switchyard runs locally \
                 (python3.*, nodejs*, provided*; docs/lambda.md).",
                f.runtime
            ),
        ));
    }
    Ok(Runnable {
        name: f.name.clone(),
        arn: f.arn.clone(),
        invoked_arn: match qualifier {
            Some(q) => format!("{}:{q}", f.arn),
            None => f.arn.clone(),
        },
        version: "$LATEST".into(),
        runtime: f.runtime.clone(),
        handler: f.handler.clone(),
        code_dir: f.code.dir().into(),
        layer_dirs: Vec::new(),
        environment: f.environment.clone(),
        memory: f.memory,
        timeout: f.timeout,
        region: f.region.clone(),
        account: f.account.clone(),
        revision: f.revision.clone(),
        reserved_concurrency: f.reserved_concurrency,
    })
}

/// How an invocation the runtime ran for delivery `delivery` (an asynchronous invocation's
/// attempt, a mapping's batch) ended: its record kept, and the attempt completed.
pub fn invoked(
    e: &mut State,
    delivery: DeliveryId,
    invoked: Invoked,
    record: Option<InvocationRecord>,
) {
    if let Some(record) = record {
        keep(e, record);
    }
    let (outcome, answer) = match invoked {
        Invoked::Response { payload } => (Outcome::Delivered { status: Some(200) }, Some(payload)),
        Invoked::FunctionError { payload, .. } => {
            (Outcome::Retryable(Failure::Function), Some(payload))
        }
        Invoked::Throttled => (Outcome::Retryable(Failure::Status(429)), None),
        Invoked::Gone { .. } => (
            Outcome::Permanent(Failure::NotFound("ResourceNotFoundException")),
            None,
        ),
    };
    e.engine.answered(delivery, answer);
    e.engine.complete(delivery, outcome);
}

/// Keeps the record of an invocation (the last [`MAX_RECORDS`]).
pub fn keep(e: &mut State, record: InvocationRecord) {
    let records = &mut e.lambda.invocations;
    records.push_back(record);
    while records.len() > MAX_RECORDS {
        records.pop_front();
    }
}

/// How the invocations a delivery makes are named in their records: `EventSourceMapping` for a
/// mapping's batches, `Event` for the attempts of an asynchronous invocation.
pub fn invocation_type(e: &State, delivery: DeliveryId) -> &'static str {
    match e.engine.delivery_source(delivery) {
        Some((_, source)) if source.contains(":event-source-mapping:") => "EventSourceMapping",
        _ => "Event",
    }
}
