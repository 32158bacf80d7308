//! Event source mappings for SQS queues (Create/Get/Update/Delete/ListEventSourceMapping(s)):
//! the checks Lambda makes and the answers it gives. A mapping's state moves on the virtual
//! clock: a change (Creating, Enabling, Disabling, Updating, Deleting) settles
//! [`TRANSITION_MS`] after it begins; an enabled mapping reads its queue as Lambda's pollers do
//! ([`super::poll`]).
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::errors::{invalid_parameter, user, validation};
use super::functions::{find, resolve};
use super::poll;
use crate::arn::Arn;
use crate::engine::time::Millis;
use crate::error::AwsError;
use crate::services::event::pattern::EventPattern;
use crate::services::{Context, SetMember};
use crate::state::lambda::mappings::{Mapping, MappingState, MappingTimer};
use crate::state::pattern::TextPattern;
use crate::state::{State, Step};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// How long a change of a mapping's state takes (virtual time).
pub const TRANSITION_MS: Millis = 1_000;
/// The largest batch of a standard queue, and of a FIFO queue.
const MAX_BATCH: i64 = 10_000;
const MAX_FIFO_BATCH: i64 = 10;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct FilterInput {
    pub pattern: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct FilterCriteria {
    #[serde(default)]
    pub filters: Vec<FilterInput>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ScalingConfig {
    pub maximum_concurrency: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateInput {
    pub event_source_arn: Option<String>,
    pub function_name: String,
    #[serde(flatten)]
    pub settings: MappingSettings,
    pub tags: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateInput {
    #[serde(rename = "UUID")]
    pub uuid: String,
    pub function_name: Option<String>,
    #[serde(flatten)]
    pub settings: MappingSettings,
}

/// The members CreateEventSourceMapping and UpdateEventSourceMapping share: how the mapping
/// polls and invokes.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct MappingSettings {
    pub enabled: Option<bool>,
    pub batch_size: Option<i64>,
    pub maximum_batching_window_in_seconds: Option<i64>,
    pub filter_criteria: Option<FilterCriteria>,
    pub function_response_types: Option<Vec<String>>,
    pub scaling_config: Option<ScalingConfig>,
}

#[derive(Debug, Deserialize)]
pub struct UuidInput {
    #[serde(rename = "UUID")]
    pub uuid: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListInput {
    pub event_source_arn: Option<String>,
    pub function_name: Option<String>,
    pub marker: Option<String>,
    pub max_items: Option<i64>,
}

fn not_found(uuid: &str) -> AwsError {
    user(
        "ResourceNotFoundException",
        404,
        format!("The resource you requested does not exist. (Service: Lambda, UUID: {uuid})"),
    )
}

/// The function a mapping names, as the mapping keeps it: its ARN with the version or alias
/// named, if any.
fn function_arn(state: &State, cx: &Context, name: &str) -> Result<(String, u32), AwsError> {
    let f = find(state, cx, name)?;
    let (arn, qualifier) = resolve(cx, name)?;
    let named = match qualifier.filter(|q| q != "$LATEST") {
        Some(q) => format!("{arn}:{q}"),
        None => arn,
    };
    Ok((named, f.timeout))
}

fn filters_of(criteria: Option<FilterCriteria>) -> Result<Option<Vec<TextPattern>>, AwsError> {
    let Some(criteria) = criteria else {
        return Ok(None);
    };
    let mut out = Vec::new();
    for f in criteria.filters {
        let text = f.pattern.unwrap_or_default();
        let pattern = EventPattern::parse(&text)
            .map_err(|_| invalid_parameter("Invalid filter pattern definition."))?;
        out.push(TextPattern { text, pattern });
    }
    Ok(Some(out))
}

fn response_types(types: Option<Vec<String>>) -> Result<Option<bool>, AwsError> {
    let Some(types) = types else {
        return Ok(None);
    };
    for t in &types {
        if t != "ReportBatchItemFailures" {
            return Err(validation(
                format!("[{t}]"),
                "functionResponseTypes",
                "Member must satisfy constraint: [Member must satisfy enum value set: \
                 [ReportBatchItemFailures]]",
            ));
        }
    }
    Ok(Some(!types.is_empty()))
}

fn concurrency(scaling: Option<ScalingConfig>) -> Result<Option<Option<u32>>, AwsError> {
    let Some(scaling) = scaling else {
        return Ok(None);
    };
    match scaling.maximum_concurrency {
        Some(n) if !(2..=1000).contains(&n) => {
            let rule = match n < 2 {
                true => "Member must have value greater than or equal to 2",
                false => "Member must have value less than or equal to 1000",
            };
            Err(validation(n, "scalingConfig.maximumConcurrency", rule))
        }
        n => Ok(Some(n.map(|n| n as u32))),
    }
}

/// The batch size and window checks Lambda makes for an SQS queue.
fn check_batch(size: i64, window: i64, fifo: bool) -> Result<(), AwsError> {
    if !(1..=MAX_BATCH).contains(&size) {
        let rule = match size < 1 {
            true => "Member must have value greater than or equal to 1",
            false => "Member must have value less than or equal to 10000",
        };
        return Err(validation(size, "batchSize", rule));
    }
    if !(0..=300).contains(&window) {
        let rule = match window < 0 {
            true => "Member must have value greater than or equal to 0",
            false => "Member must have value less than or equal to 300",
        };
        return Err(validation(window, "maximumBatchingWindowInSeconds", rule));
    }
    if fifo && size > MAX_FIFO_BATCH {
        return Err(invalid_parameter(format!(
            "BatchSize must be less than or equal to {MAX_FIFO_BATCH} for FIFO queues."
        )));
    }
    if fifo && window > 0 {
        return Err(invalid_parameter(
            "Batching window is not supported for FIFO queues",
        ));
    }
    if size > 10 && window == 0 {
        return Err(invalid_parameter(
            "Maximum batch window in seconds must be greater than 0 if maximum batch size is \
             greater than 10",
        ));
    }
    Ok(())
}

/// The queue's visibility timeout must be at least the function's timeout.
fn check_timeouts(visibility_s: i64, timeout_s: u32) -> Result<(), AwsError> {
    match visibility_s < i64::from(timeout_s) {
        true => Err(invalid_parameter(format!(
            "Queue visibility timeout: {visibility_s} seconds is less than Function timeout: \
             {timeout_s} seconds"
        ))),
        false => Ok(()),
    }
}

/// The queue `arn` names: its visibility timeout (seconds) and whether it is FIFO.
fn queue(state: &State, arn: &str) -> Result<(i64, bool), AwsError> {
    match state.sqs.by_arn(arn) {
        Some(q) => Ok((q.attributes.visibility_timeout_s, q.is_fifo())),
        None => Err(invalid_parameter(
            "Error occurred while ReceiveMessage. SQS Error Code: \
             AWS.SimpleQueueService.NonExistentQueue. SQS Error Message: The specified queue \
             does not exist or you do not have access to it.",
        )),
    }
}

pub fn create(state: &mut State, cx: &Context, input: CreateInput) -> Result<Value, AwsError> {
    let Some(source) = input.event_source_arn.filter(|s| !s.is_empty()) else {
        return Err(invalid_parameter(
            "Unrecognized event source, must be kinesis, dynamodb stream, sqs, msk, mq, \
             documentdb or self-managed kafka.",
        ));
    };
    if Arn::parse(&source).map(|a| a.service) != Some("sqs") {
        return Err(invalid_parameter(format!(
            "switchyard maps SQS queues to functions; {source} is not an SQS queue's ARN."
        )));
    }
    let (function, timeout) = function_arn(state, cx, &input.function_name)?;
    let (visibility, fifo) = queue(state, &source)?;
    let size = input.settings.batch_size.unwrap_or(10);
    let window = input
        .settings
        .maximum_batching_window_in_seconds
        .unwrap_or(0);
    check_batch(size, window, fifo)?;
    check_timeouts(visibility, timeout)?;
    let filters = filters_of(input.settings.filter_criteria)?.unwrap_or_default();
    let report = response_types(input.settings.function_response_types)?.unwrap_or(false);
    let max_concurrency = concurrency(input.settings.scaling_config)?.flatten();
    if let Some(other) = state
        .lambda
        .mappings
        .values()
        .find(|m| m.source == source && m.function == function)
    {
        return Err(user(
            "ResourceConflictException",
            409,
            format!(
                "An event source mapping with SQS arn (\" {source} \") and function (\" {} \") \
                 already exists. Please update or delete the existing mapping with UUID {}",
                input.function_name, other.uuid
            ),
        ));
    }
    let uuid = state.engine.rng.uuid();
    let arn = Arn::new(
        "lambda",
        &cx.region,
        &cx.account,
        &format!("event-source-mapping:{uuid}"),
    )
    .text();
    let mapping = Mapping {
        uuid: uuid.clone(),
        arn,
        account: cx.account.clone(),
        region: cx.region.clone(),
        host: cx.host.clone(),
        source,
        function,
        batch_size: size as u32,
        window_s: window as u32,
        filters,
        report_batch_item_failures: report,
        max_concurrency,
        enabled: input.settings.enabled.unwrap_or(true),
        state: MappingState::Creating,
        state_reason: "USER_INITIATED".into(),
        last_modified: state.now(),
        last_result: "No records processed".into(),
        tags: input.tags.unwrap_or_default(),
        settling: None,
        batches: BTreeMap::new(),
        poll_at: None,
        window_opened_at: None,
        batches_at: (0, 0),
    };
    state.lambda.mappings.insert(uuid.clone(), mapping);
    begin(state, &uuid, MappingState::Creating);
    answer_for(state, &uuid)
}

/// Begins a change of state: the mapping is in `to` now and settles [`TRANSITION_MS`] later.
fn begin(state: &mut State, uuid: &str, to: MappingState) {
    state.lambda.tokens += 1;
    let token = state.lambda.tokens;
    let Some(m) = state.lambda.mappings.get_mut(uuid) else {
        return;
    };
    m.state = to;
    m.settling = Some(token);
    m.last_modified = state.engine.now();
    let due = state.now() + TRANSITION_MS;
    let uuid = uuid.to_string();
    state.schedule(
        due,
        Step::LambdaMapping(MappingTimer::Settle { uuid, token }),
    );
}

/// A change of state is over: Deleting removes the mapping, the others settle where
/// `Enabled` says.
pub fn settle(state: &mut State, uuid: &str, token: u64) {
    let Some(m) = state.lambda.mappings.get_mut(uuid) else {
        return;
    };
    if m.settling != Some(token) {
        return;
    }
    m.settling = None;
    if m.state == MappingState::Deleting {
        state.lambda.mappings.remove(uuid);
        return;
    }
    m.state = match m.enabled {
        true => MappingState::Enabled,
        false => MappingState::Disabled,
    };
    if m.enabled {
        poll::schedule(state, uuid, state.now());
    }
}

fn answer(m: &Mapping) -> Value {
    let mut out = json!({
        "UUID": m.uuid,
        "BatchSize": m.batch_size,
        "MaximumBatchingWindowInSeconds": m.window_s,
        "EventSourceArn": m.source,
        "FunctionArn": m.function,
        "LastModified": m.last_modified as f64 / 1000.0,
        "State": m.state.name(),
        "StateTransitionReason": m.state_reason,
        "FunctionResponseTypes": match m.report_batch_item_failures {
            true => json!(["ReportBatchItemFailures"]),
            false => json!([]),
        },
        "EventSourceMappingArn": m.arn,
    });
    if !m.filters.is_empty() {
        let filters: Vec<Value> = m
            .filters
            .iter()
            .map(|f| json!({"Pattern": f.text}))
            .collect();
        out.set("FilterCriteria", json!({"Filters": filters}));
    }
    if let Some(n) = m.max_concurrency {
        out.set("ScalingConfig", json!({"MaximumConcurrency": n}));
    }
    out
}

fn answer_for(state: &State, uuid: &str) -> Result<Value, AwsError> {
    state
        .lambda
        .mappings
        .get(uuid)
        .map(answer)
        .ok_or_else(|| not_found(uuid))
}

/// The caller's mapping `uuid`.
fn mapping<'s>(state: &'s State, cx: &Context, uuid: &str) -> Result<&'s Mapping, AwsError> {
    state
        .lambda
        .mappings
        .get(uuid)
        .filter(|m| cx.owns(&m.account, &m.region))
        .ok_or_else(|| not_found(uuid))
}

pub fn get(state: &mut State, cx: &Context, input: UuidInput) -> Result<Value, AwsError> {
    mapping(state, cx, &input.uuid).map(answer)
}

fn in_use(uuid: &str, m: &Mapping) -> AwsError {
    user(
        "ResourceInUseException",
        400,
        format!(
            "Cannot update the event source mapping '{uuid}' because it is in use (state {}).",
            m.state.name()
        ),
    )
}

pub fn update(state: &mut State, cx: &Context, input: UpdateInput) -> Result<Value, AwsError> {
    let m = mapping(state, cx, &input.uuid)?;
    if matches!(
        m.state,
        MappingState::Creating | MappingState::Updating | MappingState::Deleting
    ) {
        return Err(in_use(&input.uuid, m));
    }
    let (old_function, old_size, old_window) = (m.function.clone(), m.batch_size, m.window_s);
    let source = m.source.clone();
    let (function, timeout) = match &input.function_name {
        Some(name) => function_arn(state, cx, name)?,
        None => {
            let f = find(state, cx, &old_function)?;
            (old_function, f.timeout)
        }
    };
    let (visibility, fifo) = queue(state, &source)?;
    let size = input.settings.batch_size.unwrap_or(i64::from(old_size));
    let window = input
        .settings
        .maximum_batching_window_in_seconds
        .unwrap_or(i64::from(old_window));
    check_batch(size, window, fifo)?;
    check_timeouts(visibility, timeout)?;
    let filters = filters_of(input.settings.filter_criteria)?;
    let report = response_types(input.settings.function_response_types)?;
    let max_concurrency = concurrency(input.settings.scaling_config)?;
    let Some(m) = state.lambda.mappings.get_mut(&input.uuid) else {
        return Err(not_found(&input.uuid));
    };
    m.function = function;
    m.batch_size = size as u32;
    m.window_s = window as u32;
    if let Some(filters) = filters {
        m.filters = filters;
    }
    if let Some(report) = report {
        m.report_batch_item_failures = report;
    }
    if let Some(n) = max_concurrency {
        m.max_concurrency = n;
    }
    let to = match input.settings.enabled {
        Some(true) if !m.enabled => MappingState::Enabling,
        Some(false) if m.enabled => MappingState::Disabling,
        _ => MappingState::Updating,
    };
    if let Some(enabled) = input.settings.enabled {
        m.enabled = enabled;
    }
    begin(state, &input.uuid, to);
    answer_for(state, &input.uuid)
}

pub fn delete(state: &mut State, cx: &Context, input: UuidInput) -> Result<Value, AwsError> {
    let m = mapping(state, cx, &input.uuid)?;
    if m.state == MappingState::Deleting {
        return Err(in_use(&input.uuid, m));
    }
    begin(state, &input.uuid, MappingState::Deleting);
    answer_for(state, &input.uuid)
}

pub fn list(state: &mut State, cx: &Context, input: ListInput) -> Result<Value, AwsError> {
    let max = match input.max_items {
        None => 100,
        Some(n) if (1..=10_000).contains(&n) => n.min(100) as usize,
        Some(n) => {
            return Err(validation(
                n,
                "maxItems",
                "Member must have value between 1 and 10000",
            ));
        }
    };
    let function = match &input.function_name {
        Some(name) => Some(function_arn(state, cx, name)?.0),
        None => None,
    };
    let all: Vec<&Mapping> = state
        .lambda
        .mappings
        .values()
        .filter(|m| cx.owns(&m.account, &m.region))
        .filter(|m| {
            input
                .event_source_arn
                .as_ref()
                .is_none_or(|s| *s == m.source)
        })
        .filter(|m| function.as_ref().is_none_or(|f| *f == m.function))
        .collect();
    let start = match &input.marker {
        Some(marker) => all
            .iter()
            .position(|m| m.uuid.as_str() > marker.as_str())
            .unwrap_or(all.len()),
        None => 0,
    };
    let page: Vec<Value> = all
        .iter()
        .skip(start)
        .take(max)
        .map(|m| answer(m))
        .collect();
    let mut out = json!({"EventSourceMappings": page});
    if start + max < all.len()
        && let Some(last) = all.get(start + max - 1)
    {
        out.set("NextMarker", json!(last.uuid));
    }
    Ok(out)
}

/// A mapping's timer is due.
pub fn fire(state: &mut State, timer: MappingTimer) {
    match timer {
        MappingTimer::Settle { uuid, token } => settle(state, &uuid, token),
        MappingTimer::Poll(uuid) => poll::poll(state, &uuid),
    }
}

pub use poll::{batch_ended, wake_all, wake_source};
