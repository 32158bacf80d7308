//! What the runtime needs to run a function: the configuration of the version an invocation
//! names, read from the store under the state's lock, as a plain value the runtime turns into
//! an execution environment's specification off it.
//! It must not depend on the runtime, the protocols or the server.

use super::access::invoke_allowed;
use super::errors::user as error;
use super::functions::runnable as runs;
use super::versions::{find_qualified, route, show, version_config};
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
/// `Qualifier` member. An alias runs the version it points to (its routing weight is for
/// [`runnable_for`]). ResourceNotFoundException when there is none;
/// InvalidRuntimeException when switchyard cannot run its runtime; AccessDeniedException for
/// another account the function's policy does not allow, with `--enforce-policies`.
pub fn runnable(
    state: &State,
    account: &str,
    region: &str,
    named: &str,
    qualifier: Option<&str>,
) -> Result<Runnable, AwsError> {
    runnable_drawn(state, account, region, named, qualifier, None)
}

/// [`runnable`] for the invocation `request_id`: an alias with a routing weight runs its other
/// version with the weight's probability, chosen by the request id (so that a run repeats, and
/// every attempt of an asynchronous invocation runs the version its first ran).
pub fn runnable_for(
    state: &State,
    account: &str,
    region: &str,
    named: &str,
    qualifier: Option<&str>,
    request_id: &str,
) -> Result<Runnable, AwsError> {
    let draw = share_of(request_id);
    runnable_drawn(state, account, region, named, qualifier, Some(draw))
}

/// A request id as a number in [0, 1), spread evenly (FNV-1a).
fn share_of(id: &str) -> f64 {
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    (hash >> 11) as f64 / (1_u64 << 53) as f64
}

fn runnable_drawn(
    state: &State,
    account: &str,
    region: &str,
    named: &str,
    qualifier: Option<&str>,
    draw: Option<f64>,
) -> Result<Runnable, AwsError> {
    let (f, qualifier) = find_qualified(state, account, region, named, qualifier)?;
    let shown = show(f, qualifier.as_deref())?;
    let invoked_arn = shown.arn;
    let (config, version) = match route(f, qualifier.as_deref(), draw) {
        Some(version) => match version_config(f, &version) {
            Some(config) => (config, version),
            None => (shown.config, shown.version),
        },
        None => (shown.config, shown.version),
    };
    if f.account != account
        && !invoke_allowed(
            state,
            &invoked_arn,
            account,
            None,
            None,
            state.enforce_policies,
        )
    {
        return Err(error(
            "AccessDeniedException",
            403,
            format!(
                "User: arn:aws:iam::{account}:root is not authorized to perform: \
                 lambda:InvokeFunction on resource: {invoked_arn} because no resource-based \
                 policy allows the lambda:InvokeFunction action"
            ),
        ));
    }
    if !runs(config) {
        return Err(error(
            "InvalidRuntimeException",
            502,
            format!(
                "The runtime parameter of {} is not one switchyard runs locally \
                 (python3.*, nodejs*, provided*; docs/lambda.md).",
                config.runtime
            ),
        ));
    }
    Ok(Runnable {
        name: f.name.clone(),
        arn: f.arn.clone(),
        invoked_arn,
        version,
        runtime: config.runtime.clone(),
        handler: config.handler.clone(),
        code_dir: config.code.dir().into(),
        layer_dirs: config.layers.iter().map(|l| l.dir.clone()).collect(),
        environment: config.environment.clone(),
        memory: config.memory,
        timeout: config.timeout,
        region: f.region.clone(),
        account: f.account.clone(),
        revision: config.revision.clone(),
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
        Some((_, source))
            if crate::arn::Arn::parse(source)
                .is_some_and(|a| a.resource.starts_with("event-source-mapping:")) =>
        {
            "EventSourceMapping"
        }
        _ => "Event",
    }
}
