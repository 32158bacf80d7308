//! The Pipes operations: settings checked against the model's limits and parsed once (filters
//! compiled, SQS source defaults filled in), echoed back as given, and the changes of state
//! (create, start, stop, update, delete) handed to `run`, which moves them on the virtual clock.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::errors::{PipesError, field};
use super::run::{self, refresh_all};
use super::store::{Filter, Pipe, PipeState, Settings, SqsSource};
use crate::arn::Arn;
use crate::services::event::pattern::EventPattern;
use crate::services::events::epoch_seconds;
use crate::services::page::{Pager, Sizes, Tokens, size_rule};
use crate::services::{Context, SetMember};
use crate::state::State;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Pipes an account may have in a region (AWS's default quota).
const MAX_PIPES: usize = 1000;
const MAX_TAGS: usize = 50;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct CreatePipeInput {
    pub name: String,
    pub description: Option<String>,
    pub desired_state: Option<String>,
    pub source: String,
    pub source_parameters: Option<Value>,
    pub enrichment: Option<String>,
    pub enrichment_parameters: Option<Value>,
    pub target: String,
    pub target_parameters: Option<Value>,
    pub role_arn: String,
    pub tags: Option<BTreeMap<String, String>>,
    pub log_configuration: Option<Value>,
    pub kms_key_identifier: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct UpdatePipeInput {
    pub name: String,
    pub description: Option<String>,
    pub desired_state: Option<String>,
    pub source_parameters: Option<Value>,
    pub enrichment: Option<String>,
    pub enrichment_parameters: Option<Value>,
    pub target: Option<String>,
    pub target_parameters: Option<Value>,
    pub role_arn: String,
    pub log_configuration: Option<Value>,
    pub kms_key_identifier: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct NameInput {
    pub name: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListPipesInput {
    pub name_prefix: Option<String>,
    pub desired_state: Option<String>,
    pub current_state: Option<String>,
    pub source_prefix: Option<String>,
    pub target_prefix: Option<String>,
    pub next_token: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct TagResourceInput {
    pub resource_arn: String,
    pub tags: BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct UntagResourceInput {
    pub resource_arn: String,
    #[serde(default)]
    pub tag_keys: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ResourceInput {
    pub resource_arn: String,
}

fn arn_of(cx: &Context, name: &str) -> String {
    let resource = format!("pipe/{name}");
    Arn::new("pipes", &cx.region, &cx.account, &resource).text()
}

fn not_found(name: &str) -> PipesError {
    PipesError::NotFound(format!("Pipe {name} does not exist."))
}

fn own<'e>(e: &'e mut State, cx: &Context, name: &str) -> Result<&'e mut Pipe, PipesError> {
    check_name(name, "name")?;
    e.pipes
        .pipes
        .get_mut(&arn_of(cx, name))
        .ok_or_else(|| not_found(name))
}

/// A change refused while another is under way.
fn busy(p: &Pipe) -> PipesError {
    conflict(
        p,
        format!(
            "Pipe {} cannot be changed while it is {}.",
            p.name,
            p.state.name()
        ),
    )
}

fn conflict(p: &Pipe, message: String) -> PipesError {
    PipesError::Conflict {
        message,
        pipe: p.name.clone(),
    }
}

fn length(value: &str, member: &str, min: usize, max: usize) -> Result<(), PipesError> {
    let n = value.chars().count();
    if n < min {
        let rule = format!("Member must have length greater than or equal to {min}");
        return Err(field(value, member, &rule));
    }
    if n > max {
        let rule = format!("Member must have length less than or equal to {max}");
        return Err(field(value, member, &rule));
    }
    Ok(())
}

fn check_name(name: &str, member: &str) -> Result<(), PipesError> {
    length(name, member, 1, 64)?;
    let ok = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_');
    if !name.bytes().all(ok) {
        let rule = "Member must satisfy regular expression pattern: [\\.\\-_A-Za-z0-9]+";
        return Err(field(name, member, rule));
    }
    Ok(())
}

/// An ARN as the model's `Arn` pattern takes it: `arn:aws…:<service>:<region>?:<account>?:…`.
fn check_arn(arn: &str, member: &str) -> Result<(), PipesError> {
    length(arn, member, 1, 1600)?;
    let parsed = Arn::parse(arn).filter(|a| {
        a.partition.starts_with("aws")
            && !a.service.is_empty()
            && (a.account.is_empty() || (a.account.len() == 12 && digits(a.account)))
            && !a.resource.is_empty()
    });
    if parsed.is_none() {
        let rule = "Member must satisfy regular expression pattern: arn:(aws[a-zA-Z0-9-]*):([a-zA-Z0-9\\-]+):([a-z]{2,4}((-gov)|(-de)|(-iso([a-z]?)))?-[a-z]+(-\\d{1})?)?:(\\d{12})?:(.+)";
        return Err(field(arn, member, rule));
    }
    Ok(())
}

fn digits(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit())
}

fn check_role(role: &str) -> Result<(), PipesError> {
    length(role, "roleArn", 1, 1600)?;
    let ok = Arn::parse(role).is_some_and(|a| {
        a.service == "iam"
            && a.region.is_empty()
            && a.account.len() == 12
            && digits(a.account)
            && a.resource.starts_with("role")
    });
    if !ok {
        let rule = "Member must satisfy regular expression pattern: arn:(aws[a-zA-Z-]*)?:iam::\\d{12}:role/?[a-zA-Z0-9+=,.@\\-_/]+";
        return Err(field(role, "roleArn", rule));
    }
    Ok(())
}

fn desired(state: Option<&str>, member: &str) -> Result<Option<PipeState>, PipesError> {
    match state {
        None => Ok(None),
        Some("RUNNING") => Ok(Some(PipeState::Running)),
        Some("STOPPED") => Ok(Some(PipeState::Stopped)),
        Some(other) => Err(field(
            other,
            member,
            "Member must satisfy enum value set: [RUNNING, STOPPED]",
        )),
    }
}

/// An integer member of `parent` in `min..=max`, if given.
fn ranged(
    parent: &Value,
    key: &str,
    member: &str,
    min: i64,
    max: i64,
) -> Result<Option<u32>, PipesError> {
    let Some(v) = parent.get(key).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let n = v
        .as_i64()
        .ok_or_else(|| field(v, member, "Member must be an integer"))?;
    if n < min {
        let rule = format!("Member must have value greater than or equal to {min}");
        return Err(field(n, member, &rule));
    }
    if n > max {
        let rule = format!("Member must have value less than or equal to {max}");
        return Err(field(n, member, &rule));
    }
    Ok(u32::try_from(n).ok())
}

/// SourceParameters: the SQS queue's batch settings over `old`, and the filters.
fn source_parameters(
    params: &Value,
    old: SqsSource,
) -> Result<(SqsSource, Option<Vec<Filter>>), PipesError> {
    let sqs = params.get("SqsQueueParameters").unwrap_or(&Value::Null);
    let prefix = "sourceParameters.sqsQueueParameters";
    let batch_size = ranged(sqs, "BatchSize", &format!("{prefix}.batchSize"), 1, 10_000)?;
    let window_member = format!("{prefix}.maximumBatchingWindowInSeconds");
    let window = ranged(
        sqs,
        "MaximumBatchingWindowInSeconds",
        &window_member,
        0,
        300,
    )?;
    let source = SqsSource {
        batch_size: batch_size.unwrap_or(old.batch_size),
        window_s: window.unwrap_or(old.window_s),
    };
    if source.batch_size > 10 && source.window_s == 0 {
        return Err(field(
            0,
            &window_member,
            "MaximumBatchingWindowInSeconds must be greater than 0 when BatchSize is greater than 10",
        ));
    }
    let filters = match params.get("FilterCriteria") {
        None | Some(Value::Null) => None,
        Some(criteria) => Some(filters(criteria)?),
    };
    Ok((source, filters))
}

fn filters(criteria: &Value) -> Result<Vec<Filter>, PipesError> {
    let member = "sourceParameters.filterCriteria.filters";
    let list = match criteria.get("Filters") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(other) => return Err(field(other, member, "Member must be a list")),
    };
    if list.len() > 5 {
        return Err(field(
            list.len(),
            member,
            "Member must have length less than or equal to 5",
        ));
    }
    let mut out = Vec::new();
    for (i, f) in list.iter().enumerate() {
        let Some(text) = f.get("Pattern").and_then(Value::as_str) else {
            continue;
        };
        let member = format!("{member}.{}.pattern", i + 1);
        length(text, &member, 0, 4096)?;
        let pattern = EventPattern::parse(text).map_err(|e| {
            let message = format!("Invalid FilterCriteria pattern: {}", e.message());
            PipesError::Field {
                message: format!("{message} (at '{member}')"),
                member: member.clone(),
                rule: message,
            }
        })?;
        out.push(Filter {
            text: text.to_string(),
            pattern,
        });
    }
    Ok(out)
}

/// TargetParameters and EnrichmentParameters: the limits of what this emulator reads of them.
fn check_parameters(target: &Value, enrichment: &Value) -> Result<(), PipesError> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    if let Some(t) = text(target, "InputTemplate") {
        length(&t, "targetParameters.inputTemplate", 0, 8192)?;
    }
    if let Some(t) = text(enrichment, "InputTemplate") {
        length(&t, "enrichmentParameters.inputTemplate", 0, 8192)?;
    }
    let sqs = target.get("SqsQueueParameters").unwrap_or(&Value::Null);
    for (key, member) in [
        ("MessageGroupId", "messageGroupId"),
        ("MessageDeduplicationId", "messageDeduplicationId"),
    ] {
        if let Some(v) = text(sqs, key) {
            length(
                &v,
                &format!("targetParameters.sqsQueueParameters.{member}"),
                0,
                100,
            )?;
        }
    }
    let bus = target
        .get("EventBridgeEventBusParameters")
        .unwrap_or(&Value::Null);
    if let Some(v) = text(bus, "DetailType") {
        length(
            &v,
            "targetParameters.eventBridgeEventBusParameters.detailType",
            1,
            128,
        )?;
    }
    if let Some(v) = text(bus, "Source") {
        length(
            &v,
            "targetParameters.eventBridgeEventBusParameters.source",
            1,
            256,
        )?;
    }
    Ok(())
}

/// The sources and enrichments this emulator runs; AWS's other kinds are refused up front
/// rather than accepted and never run.
fn check_kinds(source: Option<&str>, enrichment: Option<&str>) -> Result<(), PipesError> {
    if let Some(source) = source
        && Arn::service_of(source) != "sqs"
    {
        return Err(PipesError::Validation(format!(
            "Source {source} is not supported by switchyard: a pipe's source must be an SQS queue ARN."
        )));
    }
    if let Some(enrichment) = enrichment.filter(|e| !e.is_empty()) {
        let api = Arn::service_of(enrichment) == "events"
            && Arn::resource_type(enrichment) == Some("api-destination");
        if Arn::service_of(enrichment) != "lambda" && !api {
            return Err(PipesError::Validation(format!(
                "Enrichment {enrichment} is not supported by switchyard: use a Lambda function or an API destination."
            )));
        }
    }
    Ok(())
}

fn check_tags(tags: &BTreeMap<String, String>) -> Result<(), PipesError> {
    if tags.len() > MAX_TAGS {
        return Err(field(
            tags.len(),
            "tags",
            "Member must have length less than or equal to 50",
        ));
    }
    for (k, v) in tags {
        length(k, "tags", 1, 128)?;
        length(v, "tags", 0, 256)?;
    }
    Ok(())
}

pub(super) fn create_pipe(
    e: &mut State,
    cx: &Context,
    input: CreatePipeInput,
) -> Result<Value, PipesError> {
    check_name(&input.name, "name")?;
    check_arn(&input.source, "source")?;
    check_arn(&input.target, "target")?;
    if let Some(enrichment) = input.enrichment.as_deref().filter(|e| !e.is_empty()) {
        check_arn(enrichment, "enrichment")?;
    }
    check_role(&input.role_arn)?;
    if let Some(d) = &input.description {
        length(d, "description", 0, 512)?;
    }
    let desired_state = desired(input.desired_state.as_deref(), "desiredState")?;
    let source_parameters = input.source_parameters.unwrap_or_else(|| json!({}));
    let (sqs, filters) = source_parameters_of(&source_parameters)?;
    let target_parameters = input.target_parameters.unwrap_or_else(|| json!({}));
    let enrichment_parameters = input.enrichment_parameters.unwrap_or_else(|| json!({}));
    check_parameters(&target_parameters, &enrichment_parameters)?;
    check_kinds(Some(&input.source), input.enrichment.as_deref())?;
    let tags = input.tags.unwrap_or_default();
    check_tags(&tags)?;
    let arn = arn_of(cx, &input.name);
    if e.pipes.pipes.contains_key(&arn) {
        return Err(PipesError::Conflict {
            message: format!("Pipe {} already exists.", input.name),
            pipe: input.name,
        });
    }
    let mine = e
        .pipes
        .pipes
        .values()
        .filter(|p| cx.owns(&p.account, &p.region))
        .count();
    if mine >= MAX_PIPES {
        return Err(PipesError::Quota {
            message: format!("You have reached the quota of {MAX_PIPES} pipes."),
            pipe: input.name,
        });
    }
    let now = e.now();
    let settings = Settings {
        description: input.description,
        desired: desired_state.unwrap_or(PipeState::Running),
        role_arn: input.role_arn,
        source_parameters,
        sqs,
        filters,
        enrichment: input.enrichment.filter(|e| !e.is_empty()),
        enrichment_parameters,
        target: input.target,
        target_parameters,
        log_configuration: input.log_configuration,
        kms_key: input.kms_key_identifier,
    };
    let pipe = Pipe {
        arn: arn.clone(),
        name: input.name,
        account: cx.account.clone(),
        region: cx.region.clone(),
        host: cx.host.clone(),
        source: input.source,
        settings,
        tags,
        created_at: now,
        modified_at: now,
        state: PipeState::Creating,
        reason: None,
        settling: None,
        batch: None,
        poll_at: None,
        window_opened_at: None,
        batches_at: (0, 0),
    };
    let name = pipe.name.clone();
    e.pipes.pipes.insert(arn.clone(), pipe);
    run::begin(e, &arn, PipeState::Creating);
    begun(e, &arn, &name)
}

fn source_parameters_of(params: &Value) -> Result<(SqsSource, Vec<Filter>), PipesError> {
    let (sqs, filters) = source_parameters(params, SqsSource::default())?;
    Ok((sqs, filters.unwrap_or_default()))
}

/// What Create/Update/Start/Stop/DeletePipe answer: pipe `arn` once `run::begin` has changed
/// its state (it is there: begun changes never remove it).
fn begun(e: &State, arn: &str, name: &str) -> Result<Value, PipesError> {
    e.pipes
        .pipes
        .get(arn)
        .map(summary)
        .ok_or_else(|| not_found(name))
}

/// What Create/Update/Start/Stop/DeletePipe answer.
fn summary(p: &Pipe) -> Value {
    let desired = match p.state {
        PipeState::Deleting => "DELETED",
        _ => p.settings.desired.name(),
    };
    json!({
        "Arn": p.arn,
        "Name": p.name,
        "DesiredState": desired,
        "CurrentState": p.state.name(),
        "CreationTime": epoch_seconds(p.created_at),
        "LastModifiedTime": epoch_seconds(p.modified_at),
    })
}

pub(super) fn describe_pipe(
    e: &mut State,
    cx: &Context,
    input: NameInput,
) -> Result<Value, PipesError> {
    refresh_all(e);
    let p = own(e, cx, &input.name)?;
    let s = &p.settings;
    let mut out = summary(p);
    out.set("Source", json!(p.source));
    out.set("SourceParameters", s.source_parameters.clone());
    out.set("Target", json!(s.target));
    out.set("TargetParameters", s.target_parameters.clone());
    out.set("RoleArn", json!(s.role_arn));
    out.set("Tags", json!(p.tags));
    if let Some(d) = &s.description {
        out.set("Description", json!(d));
    }
    if let Some(r) = &p.reason {
        out.set("StateReason", json!(r));
    }
    if let Some(en) = &s.enrichment {
        out.set("Enrichment", json!(en));
        out.set("EnrichmentParameters", s.enrichment_parameters.clone());
    }
    if let Some(l) = &s.log_configuration {
        out.set("LogConfiguration", l.clone());
    }
    if let Some(k) = &s.kms_key {
        out.set("KmsKeyIdentifier", json!(k));
    }
    Ok(out)
}

pub(super) fn update_pipe(
    e: &mut State,
    cx: &Context,
    input: UpdatePipeInput,
) -> Result<Value, PipesError> {
    check_name(&input.name, "name")?;
    check_role(&input.role_arn)?;
    if let Some(t) = &input.target {
        check_arn(t, "target")?;
    }
    if let Some(en) = input.enrichment.as_deref().filter(|e| !e.is_empty()) {
        check_arn(en, "enrichment")?;
    }
    if let Some(d) = &input.description {
        length(d, "description", 0, 512)?;
    }
    let desired_state = desired(input.desired_state.as_deref(), "desiredState")?;
    check_kinds(None, input.enrichment.as_deref())?;
    let now = e.now();
    let p = own(e, cx, &input.name)?;
    if p.state.in_transition() {
        return Err(busy(p));
    }
    let mut s = p.settings.clone();
    if let Some(params) = &input.source_parameters {
        let (sqs, filters) = source_parameters(params, s.sqs)?;
        s.sqs = sqs;
        if let Some(filters) = filters {
            s.filters = filters;
        }
        merge(&mut s.source_parameters, params);
    }
    if let Some(t) = input.target_parameters {
        s.target_parameters = t;
    }
    if let Some(en) = input.enrichment_parameters {
        s.enrichment_parameters = en;
    }
    check_parameters(&s.target_parameters, &s.enrichment_parameters)?;
    if let Some(en) = input.enrichment {
        s.enrichment = Some(en).filter(|e| !e.is_empty());
    }
    if let Some(t) = input.target {
        s.target = t;
    }
    if let Some(d) = input.description {
        s.description = Some(d);
    }
    if let Some(state) = desired_state {
        s.desired = state;
    }
    if let Some(l) = input.log_configuration {
        s.log_configuration = Some(l);
    }
    if let Some(k) = input.kms_key_identifier {
        s.kms_key = Some(k).filter(|k| !k.is_empty());
    }
    s.role_arn = input.role_arn;
    p.settings = s;
    p.modified_at = now;
    let arn = arn_of(cx, &input.name);
    run::begin(e, &arn, PipeState::Updating);
    begun(e, &arn, &input.name)
}

/// UpdatePipe's SourceParameters over the stored ones, member by member.
fn merge(stored: &mut Value, update: &Value) {
    match (stored, update) {
        (Value::Object(old), Value::Object(new)) => {
            for (k, v) in new {
                merge(old.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

pub(super) fn delete_pipe(
    e: &mut State,
    cx: &Context,
    input: NameInput,
) -> Result<Value, PipesError> {
    let p = own(e, cx, &input.name)?;
    if p.state.in_transition() {
        return Err(busy(p));
    }
    let arn = p.arn.clone();
    run::begin(e, &arn, PipeState::Deleting);
    begun(e, &arn, &input.name)
}

pub(super) fn start_pipe(
    e: &mut State,
    cx: &Context,
    input: NameInput,
) -> Result<Value, PipesError> {
    turn(e, cx, &input.name, PipeState::Running)
}

pub(super) fn stop_pipe(
    e: &mut State,
    cx: &Context,
    input: NameInput,
) -> Result<Value, PipesError> {
    turn(e, cx, &input.name, PipeState::Stopped)
}

/// StartPipe (`desired` Running) and StopPipe (Stopped): refused while the pipe is changing,
/// already there, or failed to create; otherwise it begins Starting or Stopping.
fn turn(e: &mut State, cx: &Context, name: &str, desired: PipeState) -> Result<Value, PipesError> {
    let (verb, passing) = if desired == PipeState::Running {
        ("started", PipeState::Starting)
    } else {
        ("stopped", PipeState::Stopping)
    };
    let now = e.now();
    let p = own(e, cx, name)?;
    if p.state.in_transition() {
        return Err(busy(p));
    }
    if p.state == desired || p.state == PipeState::CreateFailed {
        let message = format!(
            "Pipe {} cannot be {verb} while it is {}.",
            p.name,
            p.state.name()
        );
        return Err(conflict(p, message));
    }
    p.settings.desired = desired;
    p.modified_at = now;
    let arn = p.arn.clone();
    run::begin(e, &arn, passing);
    begun(e, &arn, name)
}

fn refuse_size(asked: i64, max: usize) -> PipesError {
    field(asked, "limit", &size_rule(asked, max))
}

fn refuse_token() -> PipesError {
    PipesError::Validation("The NextToken is not valid.".into())
}

const PAGER: Pager<PipesError> = Pager {
    sizes: Sizes::UpTo {
        max: 100,
        refuse: refuse_size,
    },
    tokens: Tokens::Base64Key(refuse_token),
};

pub(super) fn list_pipes(
    e: &mut State,
    cx: &Context,
    input: ListPipesInput,
) -> Result<Value, PipesError> {
    if let Some(p) = &input.name_prefix {
        check_name(p, "namePrefix")?;
    }
    desired(input.desired_state.as_deref(), "desiredState")?;
    if let Some(t) = &input.next_token {
        length(t, "nextToken", 1, 2048)?;
    }
    refresh_all(e);
    let starts = |prefix: &Option<String>, text: &str| {
        prefix.as_ref().is_none_or(|p| text.starts_with(p.as_str()))
    };
    let items = e
        .pipes
        .pipes
        .values()
        .filter(|p| cx.owns(&p.account, &p.region))
        .filter(|p| starts(&input.name_prefix, &p.name))
        .filter(|p| starts(&input.source_prefix, &p.source))
        .filter(|p| starts(&input.target_prefix, &p.settings.target))
        .filter(|p| {
            input
                .desired_state
                .as_deref()
                .is_none_or(|d| d == p.settings.desired.name())
        })
        .filter(|p| {
            input
                .current_state
                .as_deref()
                .is_none_or(|c| c == p.state.name())
        })
        .map(|p| {
            let mut item = summary(p);
            item.set("Source", json!(p.source));
            item.set("Target", json!(p.settings.target));
            if let Some(r) = &p.reason {
                item.set("StateReason", json!(r));
            }
            if let Some(en) = &p.settings.enrichment {
                item.set("Enrichment", json!(en));
            }
            (p.name.clone(), item)
        });
    PAGER.page_json("Pipes", items, input.next_token.as_deref(), input.limit)
}

/// The pipe a tagging call names by ARN.
fn tagged<'e>(e: &'e mut State, cx: &Context, arn: &str) -> Result<&'e mut Pipe, PipesError> {
    length(arn, "resourceArn", 1, 1600)?;
    match e.pipes.pipes.get_mut(arn) {
        Some(p) if cx.owns(&p.account, &p.region) => Ok(p),
        _ => Err(PipesError::NotFound(format!(
            "Resource {arn} does not exist."
        ))),
    }
}

pub(super) fn tag_resource(
    e: &mut State,
    cx: &Context,
    input: TagResourceInput,
) -> Result<Value, PipesError> {
    check_tags(&input.tags)?;
    let p = tagged(e, cx, &input.resource_arn)?;
    let mut tags = p.tags.clone();
    tags.extend(input.tags);
    check_tags(&tags)?;
    p.tags = tags;
    Ok(json!({}))
}

pub(super) fn untag_resource(
    e: &mut State,
    cx: &Context,
    input: UntagResourceInput,
) -> Result<Value, PipesError> {
    let p = tagged(e, cx, &input.resource_arn)?;
    for key in &input.tag_keys {
        p.tags.remove(key);
    }
    Ok(json!({}))
}

pub(super) fn list_tags_for_resource(
    e: &mut State,
    cx: &Context,
    input: ResourceInput,
) -> Result<Value, PipesError> {
    let p = tagged(e, cx, &input.resource_arn)?;
    Ok(json!({ "tags": p.tags }))
}
