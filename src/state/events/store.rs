//! EventBridge state: event buses, rules and their targets, archives, replays, connections and
//! API destinations, per account and region (each keyed by its ARN). Plain data; the operations
//! live in the sibling modules.
//! Plain data: it imports no operation, so the state can hold it.

use super::schedule::Schedule;
use crate::arn::Arn;
use crate::engine::time::Millis;
use crate::state::match_index::MatchIndex;
use crate::state::pattern::{EventPattern, strings_at};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Store {
    /// Bus ARN → bus. Every account and region has a `default` bus, made when first needed.
    pub buses: BTreeMap<String, Bus>,
    /// Rule ARN → rule.
    pub rules: BTreeMap<String, Rule>,
    pub archives: BTreeMap<String, Archive>,
    pub replays: BTreeMap<String, Replay>,
    /// `<region>:<account>:<name>` → connection (whose ARN ends in a generated id).
    pub connections: BTreeMap<String, Connection>,
    /// `<region>:<account>:<name>` → API destination.
    pub api_destinations: BTreeMap<String, ApiDestination>,
    /// Resource ARN → tags, in key order.
    pub tags: BTreeMap<String, BTreeMap<String, String>>,
    /// Token requests of OAuth connections waiting to be made by the runtime.
    pub token_requests: Vec<TokenRequest>,
    /// `<region>:<name>` → partner event source (a SaaS partner's, offered to one account).
    pub partner_sources: BTreeMap<String, PartnerSource>,
    /// Bus ARN → the rules events on it may match, by what their patterns require (issue 17):
    /// [`Store::file_rule`] after a rule is made or its pattern changes, [`Store::remove_rule`]
    /// deletes one.
    #[serde(skip)]
    pub routes: BTreeMap<String, MatchIndex<String>>,
}

/// A partner event source: made by a partner account for one customer account, which may
/// match it with a partner event bus of the same name.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct PartnerSource {
    pub name: String,
    pub arn: String,
    pub region: String,
    /// The partner's account, which made it.
    pub partner_account: String,
    /// The account it is offered to.
    pub account: String,
    pub created_at: Millis,
    /// DeletePartnerEventSource was called (the customer's matching bus, if any, stays).
    pub deleted: bool,
    /// DeactivateEventSource was called and ActivateEventSource not since.
    pub deactivated: bool,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Bus {
    pub name: String,
    pub arn: String,
    pub account: String,
    pub region: String,
    pub description: Option<String>,
    /// The resource policy (PutPermission statements or a whole Policy document).
    pub policy: Option<Value>,
    pub dead_letter_config: Option<Value>,
    pub kms_key_identifier: Option<String>,
    pub log_config: Option<Value>,
    pub created_at: Millis,
    pub modified_at: Millis,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Rule {
    pub name: String,
    pub arn: String,
    pub bus_name: String,
    pub bus_arn: String,
    pub account: String,
    pub region: String,
    /// The pattern as given (echoed back) and compiled.
    #[serde(with = "crate::state::pattern::as_text::option")]
    pub event_pattern: Option<(String, EventPattern)>,
    pub schedule: Option<(String, Schedule)>,
    pub state: String,
    pub description: Option<String>,
    pub role_arn: Option<String>,
    /// `prod.vhs.events.aws.internal` for the rules EventBridge makes itself (archives).
    pub managed_by: Option<String>,
    pub created_at: Millis,
    /// Counts changes, so that a scheduled firing set up by an older version of the rule lapses.
    pub generation: u64,
    /// The host clients reach the emulator at (for URLs in messages the targets get).
    pub host: String,
    pub targets: Vec<Target>,
}

impl Rule {
    pub fn enabled(&self) -> bool {
        self.state != "DISABLED"
    }
}

/// A rule target as PutTargets gave it; settings switchyard does not act on are kept and echoed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Target {
    pub id: String,
    pub arn: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role_arn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_transformer: Option<InputTransformer>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_policy: Option<RetryPolicy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dead_letter_config: Option<DeadLetterConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sqs_parameters: Option<SqsParameters>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_parameters: Option<HttpParameters>,
    /// EcsParameters, KinesisParameters, ...: kept as given.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct InputTransformer {
    /// As given (an empty map given is echoed as `{}`, as the archive's target shows it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_paths_map: Option<BTreeMap<String, String>>,
    pub input_template: String,
}

impl InputTransformer {
    /// The paths map, empty when none was given.
    pub fn paths(&self) -> &BTreeMap<String, String> {
        static NONE: BTreeMap<String, String> = BTreeMap::new();
        self.input_paths_map.as_ref().unwrap_or(&NONE)
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RetryPolicy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum_retry_attempts: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum_event_age_in_seconds: Option<i64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct DeadLetterConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arn: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SqsParameters {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_group_id: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct HttpParameters {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub path_parameter_values: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub header_parameters: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub query_string_parameters: BTreeMap<String, String>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Archive {
    pub name: String,
    pub arn: String,
    pub account: String,
    pub region: String,
    pub source_arn: String,
    /// The managed rule (`Events-Archive-<name>`) made on the source bus with the archive.
    pub rule_arn: String,
    pub description: Option<String>,
    #[serde(with = "crate::state::pattern::as_text::option")]
    pub event_pattern: Option<(String, EventPattern)>,
    /// 0: kept for ever.
    pub retention_days: i64,
    pub kms_key_identifier: Option<String>,
    pub state: String,
    pub created_at: Millis,
    /// In the order they reached the bus.
    pub events: Vec<ArchivedEvent>,
}

impl Archive {
    /// SizeBytes: the archived events' sizes added up.
    pub fn size_bytes(&self) -> usize {
        self.events.iter().map(|e| e.size).sum()
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ArchivedEvent {
    /// When the event reached the bus.
    pub ingested_at: Millis,
    /// Its `time` field.
    pub time: Millis,
    pub event: Value,
    /// The bytes of the event's JSON.
    pub size: usize,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Replay {
    pub name: String,
    pub arn: String,
    pub account: String,
    pub region: String,
    pub archive_arn: String,
    pub description: Option<String>,
    pub event_start: Millis,
    pub event_end: Millis,
    pub destination_arn: String,
    pub filter_arns: Vec<String>,
    pub state: String,
    pub state_reason: Option<String>,
    pub started_at: Millis,
    pub ended_at: Option<Millis>,
    pub last_replayed: Option<Millis>,
    /// The events still to send, oldest event time first.
    pub pending: std::collections::VecDeque<ArchivedEvent>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Connection {
    pub name: String,
    pub arn: String,
    pub account: String,
    pub region: String,
    pub description: Option<String>,
    pub authorization_type: String,
    /// AuthParameters as given, secrets included (DescribeConnection leaves them out).
    pub auth_parameters: AuthParameters,
    pub invocation_connectivity_parameters: Option<Value>,
    pub kms_key_identifier: Option<String>,
    pub state: String,
    pub state_reason: Option<String>,
    /// The access token of an OAuth connection's last successful token request.
    pub access_token: Option<String>,
    pub secret_arn: String,
    pub created_at: Millis,
    pub modified_at: Millis,
    pub last_authorized_at: Millis,
}

/// A connection's AuthParameters; every member optional, so that UpdateConnection's partial
/// form fits too (CreateConnection checks that the block of its AuthorizationType is complete).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AuthParameters {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic_auth_parameters: Option<BasicAuthParameters>,
    #[serde(
        rename = "OAuthParameters",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub oauth_parameters: Option<OAuthParameters>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_auth_parameters: Option<ApiKeyAuthParameters>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation_http_parameters: Option<ConnectionHttpParameters>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connectivity_parameters: Option<Value>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct BasicAuthParameters {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ApiKeyAuthParameters {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_value: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct OAuthParameters {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_parameters: Option<OAuthClientParameters>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_method: Option<String>,
    #[serde(
        rename = "OAuthHttpParameters",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub oauth_http_parameters: Option<ConnectionHttpParameters>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct OAuthClientParameters {
    #[serde(rename = "ClientID", default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
}

/// Headers, query string and body parameters a connection adds (to invocations, or to its
/// OAuth token request).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ConnectionHttpParameters {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub header_parameters: Vec<Parameter>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub query_string_parameters: Vec<Parameter>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub body_parameters: Vec<Parameter>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Parameter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_value_secret: Option<bool>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ApiDestination {
    pub name: String,
    pub arn: String,
    pub account: String,
    pub region: String,
    pub description: Option<String>,
    pub connection_arn: String,
    pub endpoint: String,
    pub http_method: String,
    pub rate_limit_per_second: u32,
    pub created_at: Millis,
    pub modified_at: Millis,
}

impl crate::state::placed::Placed for Bus {
    fn place(&self) -> (&str, &str) {
        (&self.account, &self.region)
    }
}

impl Store {
    /// The ARN of bus `name` in `region` and `account`.
    pub fn bus_arn(region: &str, account: &str, name: &str) -> String {
        Arn::new("events", region, account, &format!("event-bus/{name}")).text()
    }

    /// Makes sure `account` has its `default` bus in `region`.
    pub fn ensure_default(&mut self, region: &str, account: &str, now: Millis) {
        let arn = Store::bus_arn(region, account, "default");
        self.buses.entry(arn.clone()).or_insert_with(|| Bus {
            name: "default".into(),
            arn,
            account: account.into(),
            region: region.into(),
            description: None,
            policy: None,
            dead_letter_config: None,
            kms_key_identifier: None,
            log_config: None,
            created_at: now,
            modified_at: now,
        });
    }

    /// The key of partner event source `name` in `region`.
    pub fn partner_key(region: &str, name: &str) -> String {
        format!("{region}:{name}")
    }

    /// The rules of a bus, in name order.
    pub fn rules_of<'a>(&'a self, bus_arn: &'a str) -> impl Iterator<Item = &'a Rule> + 'a {
        self.rules.values().filter(move |r| r.bus_arn == bus_arn)
    }

    /// Files rule `arn` for routing under what its pattern requires, or takes it out when it
    /// has no pattern or EventBridge manages it (an archive's rule routes nothing).
    pub fn file_rule(&mut self, arn: &str) {
        let Some(rule) = self.rules.get(arn) else {
            return;
        };
        let index = self.routes.entry(rule.bus_arn.clone()).or_default();
        match &rule.event_pattern {
            Some((_, pattern)) if rule.managed_by.is_none() => {
                index.insert(arn.to_string(), pattern.needs())
            }
            _ => index.remove(&arn.to_string()),
        }
    }

    /// Deletes rule `arn`, out of the routing index too.
    pub fn remove_rule(&mut self, arn: &str) -> Option<Rule> {
        let rule = self.rules.remove(arn)?;
        if let Some(index) = self.routes.get_mut(&rule.bus_arn) {
            index.remove(&rule.arn);
        }
        Some(rule)
    }

    /// The rules of a bus whose pattern could match `event`, in name order (the order their
    /// targets are delivered in): every routable rule that matches is among them.
    pub fn candidates(&self, bus_arn: &str, event: &Value) -> Vec<&Rule> {
        let Some(index) = self.routes.get(bus_arn) else {
            return Vec::new();
        };
        let arns = index.candidates(|key| strings_at(event, key));
        let rules: Vec<&Rule> = arns.into_iter().filter_map(|a| self.rules.get(a)).collect();
        #[cfg(debug_assertions)]
        self.check_candidates(bus_arn, event, &rules);
        rules
    }

    /// Debug builds check each routing against a scan of every rule, so that a change to a rule
    /// that was not filed again shows in the tests.
    #[cfg(debug_assertions)]
    fn check_candidates(&self, bus_arn: &str, event: &Value, candidates: &[&Rule]) {
        for rule in self.rules_of(bus_arn) {
            let routable = rule.managed_by.is_none()
                && rule
                    .event_pattern
                    .as_ref()
                    .is_some_and(|(_, p)| p.matches(event));
            assert!(
                !routable || candidates.iter().any(|c| c.arn == rule.arn),
                "rule {} matches {event} but its bus's index does not name it",
                rule.arn
            );
        }
    }
}

/// Something EventBridge must do at a virtual instant.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Timer {
    /// A scheduled rule fires (if it still is the version that scheduled this).
    Schedule { rule_arn: String, generation: u64 },
    /// A replay takes its next step.
    Replay { replay_arn: String },
}

/// An OAuth client-credentials token request to make for a connection (outside the lock: the
/// runtime makes it and answers with `connections::token_answered`).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct TokenRequest {
    /// The connection's store key and ARN, so a connection changed meanwhile is left alone.
    pub key: String,
    pub arn: String,
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}
