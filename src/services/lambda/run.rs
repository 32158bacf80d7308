//! What the runtime needs to run a function: the configuration of the version an invocation
//! names, read from the store under the state's lock, as a plain value the runtime turns into
//! an execution environment's specification off it.
//! It must not depend on the runtime, the protocols or the server.

use super::access::invoke_allowed;
use super::errors::user as error;
use super::functions::runnable as runs;
use super::versions::{find_qualified, route, show, version_config};
use crate::error::AwsError;
use crate::state::State;
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
/// [`pick`], which draws). ResourceNotFoundException when there is none;
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

/// [`runnable`], an alias with a routing weight running its other version with the weight's
/// probability, drawn from the state's seeded generator (so that runs repeat).
pub fn pick(
    state: &mut State,
    account: &str,
    region: &str,
    named: &str,
    qualifier: Option<&str>,
) -> Result<Runnable, AwsError> {
    let (f, q) = find_qualified(state, account, region, named, qualifier)?;
    let routed = q
        .as_deref()
        .and_then(|q| f.aliases.get(q))
        .is_some_and(|a| !a.weights.is_empty());
    let draw = routed.then(|| state.engine.rng.next_f64());
    runnable_drawn(state, account, region, named, qualifier, draw)
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
