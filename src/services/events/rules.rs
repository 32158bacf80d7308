//! Rules and their targets: PutRule with an event pattern and/or a schedule, enable, disable,
//! delete, list; PutTargets / RemoveTargets / ListTargetsByRule; TestEventPattern; and the
//! firing of scheduled rules on the virtual clock.
//! Operations over the state: they must not depend on the runtime, the protocols or the server.

use super::arns::rule_arn;
use super::buses::{Empty, Tag};
use super::checks::{check_name, name_char, parse_pattern};
use super::errors::{EventsError, constraint, managed};
use super::lookup::{self, page};
use super::schedule::Schedule;
use super::store::{Rule, Target, Timer};
use crate::arn::Arn;
use crate::engine::time::Millis;
use crate::services::Context;
use crate::services::event::envelope::envelope;
use crate::services::event::input::{self, TargetInput};
use crate::state::{State, Step};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Rules per event bus, and targets per rule (AWS's quotas).
const MAX_RULES: usize = 300;
const MAX_TARGETS: usize = 5;

fn not_found(name: &str, bus: &str) -> EventsError {
    EventsError::ResourceNotFound(format!("Rule {name} does not exist on EventBus {bus}."))
}

/// The rule a request names, on the bus it names.
fn rule_mut<'e>(
    e: &'e mut State,
    cx: &Context,
    name: &str,
    bus: Option<&str>,
) -> Result<&'e mut Rule, EventsError> {
    let (arn, bus_name) = {
        let bus = lookup::existing(e, cx, bus)?;
        (
            rule_arn(&bus.region, &bus.account, &bus.name, name),
            bus.name.clone(),
        )
    };
    e.events
        .rules
        .get_mut(&arn)
        .ok_or_else(|| not_found(name, &bus_name))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PutRuleInput {
    pub name: String,
    pub schedule_expression: Option<String>,
    pub event_pattern: Option<String>,
    pub state: Option<String>,
    pub description: Option<String>,
    pub role_arn: Option<String>,
    #[serde(default)]
    pub tags: Vec<Tag>,
    pub event_bus_name: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PutRuleOutput {
    pub rule_arn: String,
}

/// Sets up the next firing of a scheduled rule.
fn schedule_next(e: &mut State, rule_arn: &str, anchor: Millis) {
    let now = e.now();
    let Some(rule) = e.events.rules.get(rule_arn) else {
        return;
    };
    let Some((_, schedule)) = rule.schedule.as_ref().filter(|_| rule.enabled()) else {
        return;
    };
    if let Some(due) = schedule.next_after(now, anchor) {
        let timer = Timer::Schedule {
            rule_arn: rule_arn.to_string(),
            generation: rule.generation,
        };
        e.schedule(due, Step::Events(timer));
    }
}

pub(super) fn put_rule(
    e: &mut State,
    cx: &Context,
    input: PutRuleInput,
) -> Result<PutRuleOutput, EventsError> {
    check_name(&input.name, "name", 64, "[\\.\\-_A-Za-z0-9]+", name_char)?;
    if let Some(d) = &input.description
        && d.chars().count() > 512
    {
        return Err(constraint(
            d,
            "description",
            "Member must have length less than or equal to 512",
        ));
    }
    let state = input.state.unwrap_or_else(|| "ENABLED".into());
    if !matches!(
        state.as_str(),
        "ENABLED" | "DISABLED" | "ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS"
    ) {
        return Err(constraint(
            &state,
            "state",
            "Member must satisfy enum value set: [ENABLED, DISABLED, ENABLED_WITH_ALL_CLOUDTRAIL_MANAGEMENT_EVENTS]",
        ));
    }
    if input.event_pattern.is_none() && input.schedule_expression.is_none() {
        return Err(EventsError::Validation(
            "Parameter(s) EventPattern or ScheduleExpression must be specified.".into(),
        ));
    }
    let pattern = match input.event_pattern {
        Some(text) => {
            let compiled = parse_pattern(&text)?;
            Some((text, compiled))
        }
        None => None,
    };
    let (bus_arn, bus_name, arn) = {
        let bus = lookup::existing(e, cx, input.event_bus_name.as_deref())?;
        let arn = rule_arn(&bus.region, &bus.account, &bus.name, &input.name);
        (bus.arn.clone(), bus.name.clone(), arn)
    };
    let schedule = match input.schedule_expression {
        Some(text) => {
            if text.chars().count() > 256 {
                return Err(constraint(
                    &text,
                    "scheduleExpression",
                    "Member must have length less than or equal to 256",
                ));
            }
            let parsed = Schedule::parse(&text).map_err(|_| {
                EventsError::Validation("Parameter ScheduleExpression is not valid.".into())
            })?;
            if bus_name != "default" {
                return Err(EventsError::Validation(
                    "ScheduleExpression is supported only on the default event bus.".into(),
                ));
            }
            Some((text, parsed))
        }
        None => None,
    };
    let now = e.now();
    if let Some(existing) = e.events.rules.get_mut(&arn) {
        if existing.managed_by.is_some() {
            return Err(managed(&input.name));
        }
        // PutRule replaces the rule's settings; its targets and tags stay.
        existing.event_pattern = pattern;
        existing.schedule = schedule;
        existing.state = state;
        existing.description = input.description;
        existing.role_arn = input.role_arn;
        existing.generation += 1;
        existing.host = cx.host.clone();
        e.events.file_rule(&arn);
    } else {
        if e.events.rules_of(&bus_arn).count() >= MAX_RULES {
            return Err(EventsError::LimitExceeded(
                "The requested resource exceeds the maximum number allowed.".into(),
            ));
        }
        let rule = Rule {
            name: input.name,
            arn: arn.clone(),
            bus_name,
            bus_arn,
            account: cx.account.clone(),
            region: cx.region.clone(),
            event_pattern: pattern,
            schedule,
            state,
            description: input.description,
            role_arn: input.role_arn,
            managed_by: None,
            created_at: now,
            generation: 0,
            host: cx.host.clone(),
            targets: Vec::new(),
        };
        e.events.rules.insert(arn.clone(), rule);
        e.events.file_rule(&arn);
        if !input.tags.is_empty() {
            let tags = e.events.tags.entry(arn.clone()).or_default();
            tags.extend(input.tags.into_iter().map(|t| (t.key, t.value)));
        }
    }
    schedule_next(e, &arn, now);
    Ok(PutRuleOutput { rule_arn: arn })
}

/// A scheduled rule's firing: its `Scheduled Event` to its targets, and the next one set up.
pub(super) fn fire_schedule(e: &mut State, rule_arn: &str, generation: u64) {
    let Some(rule) = e.events.rules.get(rule_arn) else {
        return;
    };
    if rule.generation != generation || !rule.enabled() {
        return;
    }
    let rule = rule.clone();
    let now = e.now();
    send_scheduled_event(e, &rule);
    // A rate counts from when it was set; the firing just made is the anchor's next multiple.
    let Some((_, schedule)) = &rule.schedule else {
        return;
    };
    let anchor = match schedule {
        Schedule::Rate { every_ms } => now - every_ms,
        Schedule::Cron(_) => now,
    };
    schedule_next(e, rule_arn, anchor);
}

/// The rule's `Scheduled Event`, dated now, to its targets. Answers the event's id.
fn send_scheduled_event(e: &mut State, rule: &Rule) -> String {
    let id = e.engine.rng.uuid();
    let event = envelope(
        &id,
        "Scheduled Event",
        "aws.events",
        &rule.account,
        e.now(),
        &rule.region,
        std::slice::from_ref(&rule.arn),
        json!({}),
    );
    super::put_events::fire_rule(e, rule, &event);
    id
}

/// Why a rule cannot be fired on demand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriggerError {
    NoSuchRule,
    /// The rule has an event pattern and no schedule.
    NotScheduled,
    /// The rule is DISABLED: its timer would not fire either.
    Disabled,
}

/// Fires a scheduled rule now, as its timer would (LocalStack's developer endpoint
/// `/_aws/events/rules/<rule ARN>/trigger`): its `Scheduled Event` to its targets. Its schedule
/// keeps its own timing. Answers the event's id.
pub fn trigger_schedule(e: &mut State, rule_arn: &str) -> Result<String, TriggerError> {
    let rule = e
        .events
        .rules
        .get(rule_arn)
        .ok_or(TriggerError::NoSuchRule)?;
    if rule.schedule.is_none() {
        return Err(TriggerError::NotScheduled);
    }
    if !rule.enabled() {
        return Err(TriggerError::Disabled);
    }
    let rule = rule.clone();
    Ok(send_scheduled_event(e, &rule))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct RuleNameInput {
    pub name: String,
    pub event_bus_name: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct RuleOutput {
    pub name: String,
    pub arn: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_pattern: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule_expression: Option<String>,
    pub state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role_arn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub managed_by: Option<String>,
    pub event_bus_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_by: Option<String>,
}

fn rule_output(r: &Rule, with_creator: bool) -> RuleOutput {
    RuleOutput {
        name: r.name.clone(),
        arn: r.arn.clone(),
        event_pattern: r.event_pattern.as_ref().map(|(t, _)| t.clone()),
        schedule_expression: r.schedule.as_ref().map(|(t, _)| t.clone()),
        state: r.state.clone(),
        description: r.description.clone(),
        role_arn: r.role_arn.clone(),
        managed_by: r.managed_by.clone(),
        event_bus_name: r.bus_name.clone(),
        created_by: with_creator.then(|| r.account.clone()),
    }
}

pub(super) fn describe_rule(
    e: &mut State,
    cx: &Context,
    input: RuleNameInput,
) -> Result<RuleOutput, EventsError> {
    let rule = rule_mut(e, cx, &input.name, input.event_bus_name.as_deref())?;
    Ok(rule_output(rule, true))
}

pub(super) fn set_rule_state(
    e: &mut State,
    cx: &Context,
    input: RuleNameInput,
    state: &str,
) -> Result<Empty, EventsError> {
    let now = e.now();
    let rule = rule_mut(e, cx, &input.name, input.event_bus_name.as_deref())?;
    if rule.managed_by.is_some() {
        return Err(managed(&input.name));
    }
    if rule.state == state {
        return Ok(Empty {});
    }
    rule.state = state.to_string();
    rule.generation += 1;
    let arn = rule.arn.clone();
    schedule_next(e, &arn, now);
    Ok(Empty {})
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct DeleteRuleInput {
    pub name: String,
    pub event_bus_name: Option<String>,
    #[serde(default)]
    pub force: bool,
}

pub(super) fn delete_rule(
    e: &mut State,
    cx: &Context,
    input: DeleteRuleInput,
) -> Result<Empty, EventsError> {
    let arn = match rule_mut(e, cx, &input.name, input.event_bus_name.as_deref()) {
        // Deleting a rule that is not there succeeds; a missing bus does not.
        Err(EventsError::ResourceNotFound(m)) if m.starts_with("Rule ") => return Ok(Empty {}),
        Err(err) => return Err(err),
        Ok(rule) => {
            if rule.managed_by.is_some() && !input.force {
                return Err(managed(&input.name));
            }
            // Targets must go first; only a managed rule's (its service's) go with it, by Force.
            let forced = input.force && rule.managed_by.is_some();
            if !rule.targets.is_empty() && !forced {
                return Err(EventsError::Validation(
                    "Rule can't be deleted since it has targets.".into(),
                ));
            }
            rule.arn.clone()
        }
    };
    e.events.remove_rule(&arn);
    e.events.tags.remove(&arn);
    Ok(Empty {})
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListRulesInput {
    pub name_prefix: Option<String>,
    pub event_bus_name: Option<String>,
    pub next_token: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListRulesOutput {
    pub rules: Vec<RuleOutput>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

pub(super) fn list_rules(
    e: &mut State,
    cx: &Context,
    input: ListRulesInput,
) -> Result<ListRulesOutput, EventsError> {
    let bus_arn = lookup::existing(e, cx, input.event_bus_name.as_deref())?
        .arn
        .clone();
    let prefix = input.name_prefix.unwrap_or_default();
    let mut rules: Vec<(String, RuleOutput)> = e
        .events
        .rules_of(&bus_arn)
        .filter(|r| r.name.starts_with(&prefix))
        .map(|r| (r.name.clone(), rule_output(r, false)))
        .collect();
    rules.sort_by(|a, b| a.0.cmp(&b.0));
    let (rules, next_token) = page(rules, input.next_token.as_deref(), input.limit)?;
    Ok(ListRulesOutput { rules, next_token })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListRuleNamesByTargetInput {
    pub target_arn: String,
    pub event_bus_name: Option<String>,
    pub next_token: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListRuleNamesByTargetOutput {
    pub rule_names: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

pub(super) fn list_rule_names_by_target(
    e: &mut State,
    cx: &Context,
    input: ListRuleNamesByTargetInput,
) -> Result<ListRuleNamesByTargetOutput, EventsError> {
    let bus_arn = lookup::existing(e, cx, input.event_bus_name.as_deref())?
        .arn
        .clone();
    let mut names: Vec<(String, String)> = e
        .events
        .rules_of(&bus_arn)
        .filter(|r| r.targets.iter().any(|t| t.arn == input.target_arn))
        .map(|r| (r.name.clone(), r.name.clone()))
        .collect();
    names.sort();
    let (rule_names, next_token) = page(names, input.next_token.as_deref(), input.limit)?;
    Ok(ListRuleNamesByTargetOutput {
        rule_names,
        next_token,
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PutTargetsInput {
    pub rule: String,
    pub event_bus_name: Option<String>,
    pub targets: Vec<Value>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct FailedEntry {
    pub target_id: String,
    pub error_code: String,
    pub error_message: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct TargetsOutput {
    pub failed_entry_count: usize,
    pub failed_entries: Vec<FailedEntry>,
}

/// Checks one target's settings against the model's constraints (`targets.<n>.member...`).
fn check_target(n: usize, t: &Target) -> Result<(), EventsError> {
    let at = |member: &str| format!("targets.{n}.member.{member}");
    check_name(&t.id, &at("id"), 64, "[\\.\\-_A-Za-z0-9]+", name_char)?;
    if t.arn.is_empty() || t.arn.chars().count() > 1600 {
        return Err(constraint(
            &t.arn,
            &at("arn"),
            "Member must have length less than or equal to 1600",
        ));
    }
    if let Some(p) = &t.retry_policy {
        if let Some(n) = p.maximum_retry_attempts
            && !(0..=185).contains(&n)
        {
            let rule = if n < 0 {
                "Member must have value greater than or equal to 0"
            } else {
                "Member must have value less than or equal to 185"
            };
            return Err(constraint(
                &n.to_string(),
                &at("retryPolicy.maximumRetryAttempts"),
                rule,
            ));
        }
        if let Some(s) = p.maximum_event_age_in_seconds
            && !(60..=86_400).contains(&s)
        {
            let rule = if s < 60 {
                "Member must have value greater than or equal to 60"
            } else {
                "Member must have value less than or equal to 86400"
            };
            return Err(constraint(
                &s.to_string(),
                &at("retryPolicy.maximumEventAgeInSeconds"),
                rule,
            ));
        }
    }
    Ok(())
}

/// A target's input settings, checked as a whole request is (AWS answers ValidationException).
fn check_target_input(t: &Target) -> Result<(), EventsError> {
    let inputs = [
        t.input.is_some(),
        t.input_path.is_some(),
        t.input_transformer.is_some(),
    ];
    if inputs.iter().filter(|s| **s).count() > 1 {
        return Err(EventsError::Validation(input::exclusive_error(&t.id).0));
    }
    let how = if let Some(text) = &t.input {
        TargetInput::Constant(text)
    } else if let Some(path) = &t.input_path {
        TargetInput::Path(path)
    } else if let Some(tr) = &t.input_transformer {
        TargetInput::Transformer {
            paths: tr.paths(),
            template: &tr.input_template,
        }
    } else {
        TargetInput::Event
    };
    input::validate_target(&t.id, &how).map_err(|e| EventsError::Validation(e.0))
}

/// Checks that need the rule or the target's kind; a target failing them is a failed entry and
/// the others are still put.
fn check_target_use(rule: &Rule, t: &Target) -> Result<(), String> {
    let has_input = t.input.is_some() || t.input_path.is_some() || t.input_transformer.is_some();
    if let Some(dlq) = t.dead_letter_config.as_ref().and_then(|c| c.arn.as_ref())
        && !dlq.starts_with("arn:aws:sqs:")
    {
        return Err(format!(
            "Parameter DeadLetterConfig.Arn is not valid for target {}: it must be an SQS queue ARN.",
            t.id
        ));
    }
    let group = t
        .sqs_parameters
        .as_ref()
        .and_then(|p| p.message_group_id.as_ref());
    if t.arn.starts_with("arn:aws:sqs:") && t.arn.ends_with(".fifo") && group.is_none() {
        return Err(format!(
            "Parameter(s) SqsParameters must be specified for target: {}.",
            t.id
        ));
    }
    // The fifth `:`-separated element of any text, not only of an ARN (a target ARN is checked
    // for its length only): a wider rule than Arn::account_of, kept as it is.
    let other_account = Arn::element(&t.arn, 4).is_some_and(|a| a != rule.account);
    if Arn::resource_type(&t.arn) == Some("event-bus") && other_account && has_input {
        return Err(format!(
            "Input, InputPath and InputTransformer are not supported for cross-account event bus target {}.",
            t.id
        ));
    }
    Ok(())
}

pub(super) fn put_targets(
    e: &mut State,
    cx: &Context,
    input: PutTargetsInput,
) -> Result<TargetsOutput, EventsError> {
    check_name(&input.rule, "rule", 64, "[\\.\\-_A-Za-z0-9]+", name_char)?;
    if input.targets.is_empty() || input.targets.len() > 100 {
        return Err(constraint(
            &format!("{} targets", input.targets.len()),
            "targets",
            "Member must have length less than or equal to 100",
        ));
    }
    let mut targets = Vec::with_capacity(input.targets.len());
    for (i, raw) in input.targets.into_iter().enumerate() {
        let target: Target = serde_json::from_value(raw)
            .map_err(|err| EventsError::Validation(format!("Invalid target {}: {err}.", i + 1)))?;
        check_target(i + 1, &target)?;
        check_target_input(&target)?;
        targets.push(target);
    }
    let rule = rule_mut(e, cx, &input.rule, input.event_bus_name.as_deref())?;
    if rule.managed_by.is_some() {
        return Err(managed(&input.rule));
    }
    let mut failed = Vec::new();
    let mut accepted = Vec::new();
    for target in targets {
        match check_target_use(rule, &target) {
            Ok(()) => accepted.push(target),
            Err(message) => failed.push(FailedEntry {
                target_id: target.id,
                error_code: "ValidationException".into(),
                error_message: message,
            }),
        }
    }
    let mut ids: Vec<&str> = rule.targets.iter().map(|t| t.id.as_str()).collect();
    ids.extend(accepted.iter().map(|t| t.id.as_str()));
    ids.sort_unstable();
    ids.dedup();
    if ids.len() > MAX_TARGETS {
        return Err(EventsError::LimitExceeded(
            "The requested resource exceeds the maximum number allowed.".into(),
        ));
    }
    for target in accepted {
        match rule.targets.iter_mut().find(|t| t.id == target.id) {
            Some(existing) => *existing = target,
            None => rule.targets.push(target),
        }
    }
    Ok(TargetsOutput {
        failed_entry_count: failed.len(),
        failed_entries: failed,
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct RemoveTargetsInput {
    pub rule: String,
    pub event_bus_name: Option<String>,
    pub ids: Vec<String>,
    #[serde(default)]
    pub force: bool,
}

pub(super) fn remove_targets(
    e: &mut State,
    cx: &Context,
    input: RemoveTargetsInput,
) -> Result<TargetsOutput, EventsError> {
    if input.ids.is_empty() || input.ids.len() > 100 {
        return Err(constraint(
            &format!("{:?}", input.ids),
            "ids",
            "Member must have length less than or equal to 100",
        ));
    }
    let rule = rule_mut(e, cx, &input.rule, input.event_bus_name.as_deref())?;
    if rule.managed_by.is_some() && !input.force {
        return Err(managed(&input.rule));
    }
    // Ids the rule does not have are removed already: not a failure (as in AWS).
    rule.targets.retain(|t| !input.ids.contains(&t.id));
    Ok(TargetsOutput {
        failed_entry_count: 0,
        failed_entries: Vec::new(),
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListTargetsByRuleInput {
    pub rule: String,
    pub event_bus_name: Option<String>,
    pub next_token: Option<String>,
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListTargetsByRuleOutput {
    pub targets: Vec<Target>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

pub(super) fn list_targets_by_rule(
    e: &mut State,
    cx: &Context,
    input: ListTargetsByRuleInput,
) -> Result<ListTargetsByRuleOutput, EventsError> {
    let rule = rule_mut(e, cx, &input.rule, input.event_bus_name.as_deref())?;
    let targets: Vec<(String, Target)> = rule
        .targets
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("{i:08}"), t.clone()))
        .collect();
    let (targets, next_token) = page(targets, input.next_token.as_deref(), input.limit)?;
    Ok(ListTargetsByRuleOutput {
        targets,
        next_token,
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct TestEventPatternInput {
    pub event_pattern: String,
    pub event: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct TestEventPatternOutput {
    pub result: bool,
}

/// The fields TestEventPattern requires of its event (AWS refuses an event without them).
const EVENT_FIELDS: [&str; 6] = ["id", "account", "source", "time", "region", "detail-type"];

pub(super) fn test_event_pattern(
    input: TestEventPatternInput,
) -> Result<TestEventPatternOutput, EventsError> {
    let pattern = parse_pattern(&input.event_pattern)?;
    // One wording for text that is not a JSON object and for an event missing a required
    // field (both recorded from AWS).
    let event: Value = serde_json::from_str(&input.event)
        .ok()
        .filter(|e: &Value| e.is_object() && EVENT_FIELDS.iter().all(|f| e.get(*f).is_some()))
        .ok_or_else(|| EventsError::Validation("Parameter Event is not valid.".into()))?;
    Ok(TestEventPatternOutput {
        result: pattern.matches(&event),
    })
}
