//! Subscribers (CreateSubscriber, GetSubscriber, ListSubscribers, UpdateSubscriber,
//! DeleteSubscriber): their settings checked against the model and parsed once, echoed back with
//! the defaults filled in. A POINT_IN_TIME subscriber replays the bus's retained events of its
//! window as it is created.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::buses::{Tag, check_name, check_tags, has_prefix, new_id, own_bus, page, store_tags};
use super::retry::{DEFAULT_MAX_AGE_SECONDS, DEFAULT_MAX_RETRIES, SubscriberRetry};
use super::store::{Filter, Invoke, PointInTime, Subscriber, Transformer};
use super::{V2Error, constraint, deliver, in_range, length, one_of};
use crate::arn::Arn;
use crate::services::event::input::{self, TargetInput};
use crate::services::event::pattern::EventPattern;
use crate::services::events::times::{epoch_seconds, millis_of};
use crate::services::{Context, SetMember, set_given};
use crate::state::State;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Subscribers an account may have on one bus.
const MAX_SUBSCRIBERS_PER_BUS: usize = 100;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateSubscriberInput {
    pub name: String,
    pub event_bus_arn: String,
    #[serde(rename = "Type")]
    pub kind: Option<String>,
    pub starting_position: Option<String>,
    pub point_in_time_configuration: Option<PointInTimeInput>,
    pub filter_configuration: Option<FilterConfigurationInput>,
    pub invoke_configuration: InvokeInput,
    pub retry_policy: Option<RetryPolicyInput>,
    pub on_failure_configuration: Option<OnFailureInput>,
    pub description: Option<String>,
    #[serde(default)]
    pub tags: Vec<Tag>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PointInTimeInput {
    pub point_type: String,
    pub starting_point: Option<Value>,
    pub end_point: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct FilterConfigurationInput {
    #[serde(default)]
    pub filters: Vec<FilterInput>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct FilterInput {
    pub scope: String,
    pub pattern: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct InvokeInput {
    pub target_arn: String,
    pub role_arn: String,
    pub invocation_type: Option<String>,
    pub invocation_timeout_seconds: Option<i64>,
    pub max_batch_size: Option<i64>,
    pub input: Option<String>,
    pub transformer: Option<TransformerInput>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TransformerInput {
    #[serde(default)]
    pub input_paths_map: BTreeMap<String, String>,
    pub input_template: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RetryPolicyInput {
    pub max_retry_attempts: Option<i64>,
    pub max_event_age_in_seconds: Option<i64>,
    pub retry_strategy: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct OnFailureInput {
    pub arn: Option<String>,
}

fn point_in_time(
    position: &str,
    config: Option<PointInTimeInput>,
) -> Result<Option<PointInTime>, V2Error> {
    let member = "pointInTimeConfiguration";
    let Some(config) = config else {
        if position == "POINT_IN_TIME" {
            return Err(V2Error::Validation(
                "PointInTimeConfiguration is required when StartingPosition is POINT_IN_TIME."
                    .into(),
            ));
        }
        return Ok(None);
    };
    if position != "POINT_IN_TIME" {
        return Err(V2Error::Validation(
            "PointInTimeConfiguration is allowed only when StartingPosition is POINT_IN_TIME."
                .into(),
        ));
    }
    one_of(
        &config.point_type,
        &format!("{member}.pointType"),
        &["TIMESTAMP"],
    )?;
    let time = |v: &Option<Value>, name: &str| match v {
        None => Ok(None),
        Some(v) => millis_of(v)
            .map(Some)
            .ok_or_else(|| V2Error::Validation(format!("{name} is not a valid timestamp."))),
    };
    let start = time(&config.starting_point, "StartingPoint")?;
    let end = time(&config.end_point, "EndPoint")?;
    if let (Some(s), Some(e)) = (start, end)
        && s > e
    {
        return Err(V2Error::Validation(
            "EndPoint must not be before StartingPoint.".into(),
        ));
    }
    Ok(Some(PointInTime { start, end }))
}

fn filters(config: Option<FilterConfigurationInput>) -> Result<Vec<Filter>, V2Error> {
    let list = config.map(|c| c.filters).unwrap_or_default();
    if list.len() > 2 {
        return Err(constraint(
            format!("{} filters", list.len()),
            "filterConfiguration.filters",
            "Member must have length less than or equal to 2",
        ));
    }
    let mut out: Vec<Filter> = Vec::new();
    for (i, f) in list.into_iter().enumerate() {
        let member = format!("filterConfiguration.filters.{}.member", i + 1);
        one_of(
            &f.scope,
            &format!("{member}.scope"),
            &["EVENT", "SYSTEM_METADATA"],
        )?;
        length(&f.pattern, &format!("{member}.pattern"), 1, 4096)?;
        if out.iter().any(|o| o.scope == f.scope) {
            return Err(V2Error::Validation(format!(
                "FilterConfiguration has more than one filter with Scope {}.",
                f.scope
            )));
        }
        let pattern =
            EventPattern::parse(&f.pattern).map_err(|e| V2Error::Validation(e.message()))?;
        out.push(Filter {
            scope: f.scope,
            text: f.pattern,
            pattern,
        });
    }
    Ok(out)
}

/// An ARN in the form the bus API accepts: a partition, a service and a resource (the region
/// and account may be empty).
pub(crate) fn parse_arn(arn: &str) -> Option<Arn<'_>> {
    Arn::parse(arn)
        .filter(|a| !a.partition.is_empty() && !a.service.is_empty() && !a.resource.is_empty())
}

fn invoke(input: InvokeInput) -> Result<Invoke, V2Error> {
    invoke_as(input, "invokeConfiguration")
}

/// Checks an InvokeConfiguration given as `member` (a subscriber's `invokeConfiguration`, an event
/// stream's `target`) and parses it.
pub(crate) fn invoke_as(input: InvokeInput, member: &str) -> Result<Invoke, V2Error> {
    length(&input.target_arn, &format!("{member}.targetArn"), 1, 1600)?;
    length(&input.role_arn, &format!("{member}.roleArn"), 1, 1600)?;
    let Some(target) = parse_arn(&input.target_arn) else {
        return Err(V2Error::Validation(format!(
            "Parameter TargetArn is not valid. Reason: Provided Arn is not in correct format. {}",
            input.target_arn
        )));
    };
    let role_ok = parse_arn(&input.role_arn).is_some_and(|a| {
        a.service == "iam" && a.resource.starts_with("role/") && a.resource.len() > 5
    });
    if !role_ok {
        return Err(V2Error::Validation(format!(
            "Parameter RoleArn is not valid. Reason: Provided Arn is not an IAM role ARN. {}",
            input.role_arn
        )));
    }
    let invocation_type = input
        .invocation_type
        .unwrap_or_else(|| "FIRE_AND_FORGET".into());
    one_of(
        &invocation_type,
        &format!("{member}.invocationType"),
        &["FIRE_AND_FORGET", "EVENT", "REQUEST_RESPONSE"],
    )?;
    if let Some(t) = input.invocation_timeout_seconds {
        in_range(t, &format!("{member}.invocationTimeoutSeconds"), 1, 900)?;
    }
    let max_batch_size = input.max_batch_size.unwrap_or(1);
    in_range(max_batch_size, &format!("{member}.maxBatchSize"), 1, 10)?;
    if input.input.is_some() && input.transformer.is_some() {
        return Err(V2Error::Validation(
            "Only one of Input or Transformer may be provided in InvokeConfiguration.".into(),
        ));
    }
    let to_bus = target.service == "events" && target.resource.starts_with("event-busv2/");
    if to_bus && (input.input.is_some() || input.transformer.is_some()) {
        return Err(V2Error::Validation(
            "Input and Transformer cannot be used when the target is an event bus.".into(),
        ));
    }
    if let Some(text) = &input.input {
        length(text, &format!("{member}.input"), 0, 8192)?;
        input::validate(&TargetInput::Constant(text)).map_err(|e| {
            V2Error::Validation(e.0.replace("targets.member.", &format!("{member}.")))
        })?;
    }
    let transformer = input.transformer.map(|t| Transformer {
        paths: t.input_paths_map,
        template: t.input_template,
    });
    if let Some(t) = &transformer {
        let how = TargetInput::Transformer {
            paths: &t.paths,
            template: &t.template,
        };
        input::validate(&how).map_err(|e| {
            V2Error::Validation(
                e.0.replace(
                    "targets.member.inputTransformer",
                    &format!("{member}.transformer"),
                )
                .replace("for target.", "in the Transformer."),
            )
        })?;
    }
    Ok(Invoke {
        target_arn: input.target_arn,
        role_arn: input.role_arn,
        invocation_type,
        timeout_seconds: input.invocation_timeout_seconds,
        max_batch_size: max_batch_size as usize,
        input: input.input,
        transformer,
    })
}

fn retry_policy(input: Option<RetryPolicyInput>) -> Result<SubscriberRetry, V2Error> {
    let Some(p) = input else {
        return Ok(SubscriberRetry::default());
    };
    let attempts = p
        .max_retry_attempts
        .unwrap_or(i64::from(DEFAULT_MAX_RETRIES));
    in_range(attempts, "retryPolicy.maxRetryAttempts", 0, 185)?;
    let age = p
        .max_event_age_in_seconds
        .unwrap_or(DEFAULT_MAX_AGE_SECONDS);
    in_range(age, "retryPolicy.maxEventAgeInSeconds", 60, 86_400)?;
    if let Some(s) = &p.retry_strategy {
        one_of(s, "retryPolicy.retryStrategy", &["ALL"])?;
    }
    Ok(SubscriberRetry {
        max_retries: attempts as u32,
        max_age_ms: age * 1000,
        ..SubscriberRetry::default()
    })
}

/// OnFailureConfiguration.Arn: an SQS queue ARN (`...:<name>` of 1-80 `[A-Za-z0-9_-]`, `.fifo`
/// allowed at the end).
fn on_failure(config: Option<OnFailureInput>) -> Result<Option<String>, V2Error> {
    let Some(arn) = config.and_then(|c| c.arn) else {
        return Ok(None);
    };
    let name = parse_arn(&arn)
        .filter(|a| a.service == "sqs")
        .map(|a| a.resource);
    let base = name.map(|n| n.strip_suffix(".fifo").unwrap_or(n));
    let ok = base.is_some_and(|b| {
        (1..=80).contains(&name.unwrap_or_default().len())
            && !b.is_empty()
            && b.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
    });
    if !ok {
        return Err(V2Error::Validation(format!(
            "Parameter OnFailureConfiguration.Arn is not valid. Reason: Provided Arn is not an SQS queue ARN. {arn}"
        )));
    }
    Ok(Some(arn))
}

pub fn subscriber_not_found(arn: &str) -> V2Error {
    V2Error::ResourceNotFound(format!("Subscriber {arn} does not exist."))
}

fn own_subscriber<'e>(
    e: &'e mut State,
    cx: &Context,
    arn: &str,
) -> Result<&'e mut Subscriber, V2Error> {
    match e.bus.subscribers.get_mut(arn) {
        Some(s) if cx.owns(&s.account, &s.region) => Ok(s),
        _ => Err(subscriber_not_found(arn)),
    }
}

pub fn create_subscriber(
    e: &mut State,
    cx: &Context,
    input: CreateSubscriberInput,
) -> Result<Value, V2Error> {
    check_name(&input.name, "name", 64)?;
    let kind = input.kind.unwrap_or_else(|| "UNORDERED".into());
    one_of(&kind, "type", &["UNORDERED", "FIFO"])?;
    let position = input.starting_position.unwrap_or_else(|| "LATEST".into());
    one_of(&position, "startingPosition", &["LATEST", "POINT_IN_TIME"])?;
    let point_in_time = point_in_time(&position, input.point_in_time_configuration)?;
    let filters = filters(input.filter_configuration)?;
    let fifo = kind == "FIFO";
    let invoke = invoke(input.invoke_configuration)?;
    let retry = retry_policy(input.retry_policy)?;
    let on_failure = on_failure(input.on_failure_configuration)?;
    if let Some(d) = &input.description {
        length(d, "description", 0, 512)?;
    }
    let pinned = check_tags(&input.tags, "tags")?;
    let bus_arn = own_bus(e, cx, &input.event_bus_arn)?.arn.clone();
    let mine = |s: &&Subscriber| cx.owns(&s.account, &s.region);
    if e.bus
        .subscribers
        .values()
        .filter(mine)
        .any(|s| s.name == input.name)
    {
        return Err(V2Error::ResourceAlreadyExists(format!(
            "Subscriber {} already exists.",
            input.name
        )));
    }
    let on_bus = e.bus.subscribers.values().filter(|s| s.bus_arn == bus_arn);
    if on_bus.count() >= MAX_SUBSCRIBERS_PER_BUS {
        return Err(V2Error::LimitExceeded(
            "The requested resource exceeds the maximum number allowed.".into(),
        ));
    }
    let id = new_id(e, pinned);
    let resource = format!("subscriber/{}/{id}", input.name);
    let arn = Arn::new("events", &cx.region, &cx.account, &resource).text();
    let now = e.now();
    let subscriber = Subscriber {
        arn: arn.clone(),
        name: input.name,
        account: cx.account.clone(),
        region: cx.region.clone(),
        host: cx.host.clone(),
        bus_arn,
        fifo,
        point_in_time,
        filters,
        invoke,
        retry,
        on_failure,
        description: input.description,
        created_at: now,
        modified_at: now,
    };
    e.bus.subscribers.insert(arn.clone(), subscriber.clone());
    e.bus.file_subscriber(&arn);
    store_tags(e, &arn, input.tags);
    if let Some(window) = point_in_time {
        deliver::replay(e, &subscriber, window);
    }
    Ok(json!({ "SubscriberArn": arn }))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SubscriberArnInput {
    pub subscriber_arn: String,
}

pub(crate) fn invoke_json(i: &Invoke) -> Value {
    let mut out = json!({
        "TargetArn": i.target_arn,
        "RoleArn": i.role_arn,
        "InvocationType": i.invocation_type,
    });
    if let Some(t) = i.timeout_seconds {
        out.set("InvocationTimeoutSeconds", json!(t));
    }
    out.set("MaxBatchSize", json!(i.max_batch_size));
    if let Some(text) = &i.input {
        out.set("Input", json!(text));
    }
    if let Some(t) = &i.transformer {
        out.set(
            "Transformer",
            json!({"InputPathsMap": t.paths, "InputTemplate": t.template}),
        );
    }
    out
}

fn describe(s: &Subscriber) -> Value {
    let mut out = json!({
        "SubscriberArn": s.arn,
        "Name": s.name,
        "EventBusArn": s.bus_arn,
        "Type": if s.fifo { "FIFO" } else { "UNORDERED" },
        "StartingPosition": if s.point_in_time.is_some() { "POINT_IN_TIME" } else { "LATEST" },
    });
    if let Some(p) = &s.point_in_time {
        let mut config = json!({"PointType": "TIMESTAMP"});
        if let Some(t) = p.start {
            config.set("StartingPoint", epoch_seconds(t));
        }
        if let Some(t) = p.end {
            config.set("EndPoint", epoch_seconds(t));
        }
        out.set("PointInTimeConfiguration", config);
    }
    let filters: Vec<Value> = s
        .filters
        .iter()
        .map(|f| json!({"Scope": f.scope, "Pattern": f.text}))
        .collect();
    out.set("FilterConfiguration", json!({ "Filters": filters }));
    out.set("InvokeConfiguration", invoke_json(&s.invoke));
    out.set(
        "RetryPolicy",
        json!({
            "MaxRetryAttempts": s.retry.max_retries,
            "MaxEventAgeInSeconds": s.retry.max_age_ms / 1000,
            "RetryStrategy": "ALL",
        }),
    );
    if let Some(arn) = &s.on_failure {
        out.set("OnFailureConfiguration", json!({ "Arn": arn }));
    }
    if let Some(d) = &s.description {
        out.set("Description", json!(d));
    }
    out.set("State", json!("RUNNING"));
    out.set("CreationTime", epoch_seconds(s.created_at));
    out.set("LastModifiedTime", epoch_seconds(s.modified_at));
    out
}

pub fn get_subscriber(
    e: &mut State,
    cx: &Context,
    input: SubscriberArnInput,
) -> Result<Value, V2Error> {
    own_subscriber(e, cx, &input.subscriber_arn).map(|s| describe(s))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListSubscribersInput {
    pub event_bus_arn: String,
    pub name_prefix: Option<String>,
    pub next_token: Option<String>,
    pub max_results: Option<i64>,
}

pub fn list_subscribers(
    e: &mut State,
    cx: &Context,
    input: ListSubscribersInput,
) -> Result<Value, V2Error> {
    if let Some(p) = &input.name_prefix {
        check_name(p, "namePrefix", 64)?;
    }
    let bus_arn = own_bus(e, cx, &input.event_bus_arn)?.arn.clone();
    let items = e
        .bus
        .subscribers
        .values()
        .filter(|s| s.bus_arn == bus_arn)
        .filter(|s| has_prefix(&s.name, input.name_prefix.as_deref()))
        .map(|s| {
            let mut summary = json!({
                "SubscriberArn": s.arn,
                "Name": s.name,
                "EventBusArn": s.bus_arn,
                "Type": if s.fifo { "FIFO" } else { "UNORDERED" },
                "TargetArn": s.invoke.target_arn,
                "State": "RUNNING",
                "CreationTime": epoch_seconds(s.created_at),
                "LastModifiedTime": epoch_seconds(s.modified_at),
            });
            if let Some(d) = &s.description {
                summary.set("Description", json!(d));
            }
            (s.arn.clone(), summary)
        })
        .collect();
    page(
        "Subscribers",
        items,
        input.next_token.as_deref(),
        input.max_results,
    )
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateSubscriberInput {
    pub subscriber_arn: String,
    pub filter_configuration: Option<FilterConfigurationInput>,
    pub invoke_configuration: Option<InvokeInput>,
    pub retry_policy: Option<RetryPolicyInput>,
    pub on_failure_configuration: Option<OnFailureInput>,
    pub description: Option<String>,
}

/// Replaces the settings the request gives; the others stay. Deliveries under way keep the
/// settings they started with.
pub fn update_subscriber(
    e: &mut State,
    cx: &Context,
    input: UpdateSubscriberInput,
) -> Result<Value, V2Error> {
    own_subscriber(e, cx, &input.subscriber_arn)?;
    let filters = input
        .filter_configuration
        .map(|f| filters(Some(f)))
        .transpose()?;
    let invoke = input.invoke_configuration.map(invoke).transpose()?;
    let retry = input
        .retry_policy
        .map(|r| retry_policy(Some(r)))
        .transpose()?;
    let on_failure = input
        .on_failure_configuration
        .map(|c| on_failure(Some(c)))
        .transpose()?;
    if let Some(d) = &input.description {
        length(d, "description", 0, 512)?;
    }
    let now = e.now();
    let s = own_subscriber(e, cx, &input.subscriber_arn)?;
    let refile = filters.is_some();
    if let Some(f) = filters {
        s.filters = f;
    }
    if let Some(i) = invoke {
        s.invoke = i;
    }
    if let Some(r) = retry {
        s.retry = r;
    }
    if let Some(o) = on_failure {
        s.on_failure = o;
    }
    set_given(&mut s.description, input.description);
    s.modified_at = now;
    let arn = s.arn.clone();
    if refile {
        e.bus.file_subscriber(&arn);
    }
    Ok(json!({ "SubscriberArn": arn }))
}

pub fn delete_subscriber(
    e: &mut State,
    cx: &Context,
    input: SubscriberArnInput,
) -> Result<Value, V2Error> {
    let arn = own_subscriber(e, cx, &input.subscriber_arn)?.arn.clone();
    e.bus.remove_subscriber(&arn);
    e.bus.tags.remove(&arn);
    Ok(json!({}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arns_need_a_partition_a_service_and_a_resource() {
        let arn = parse_arn("arn:aws:sqs:::q").unwrap();
        assert_eq!((arn.service, arn.region, arn.resource), ("sqs", "", "q"));
        for bad in [
            "arn::sqs:us-east-1:0:q",
            "arn:aws::us-east-1:0:q",
            "arn:aws:sqs:us-east-1:0:",
            "arn:aws:sqs:us-east-1:0",
            "urn:aws:sqs:us-east-1:0:q",
        ] {
            assert_eq!(parse_arn(bad), None, "{bad}");
        }
    }
}
