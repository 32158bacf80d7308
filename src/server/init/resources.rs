//! The init resource file (`--init-resources FILE`, docs/localstack.md, "Init scripts and
//! resources"): queues, topics, subscriptions, buses, rules, targets, custom buses, subscribers,
//! event streams and any other operation, created in order through the same operations the APIs
//! run, before the ready line. JSON (`.json`) or YAML (`.yaml`, `.yml`).
//!
//! Each entry is one kind and the operation's request as the AWS API reference writes it
//! (`- queue: {QueueName: orders}`). Where the operation takes a string, a number or boolean is
//! taken as its text and a mapping or list as its JSON text, so attributes and event patterns
//! can be written as YAML. The file is read and checked against the service models before the
//! server binds its port; what only the services can check fails when the entry runs.

use crate::model::{Model, ShapeKind};
use crate::runtime::Runtime;
use crate::services::{Context, ServiceId};
use serde_json::{Map, Value};
use std::path::Path;

/// The kinds of entry: name, service, operation, and the member that names the resource.
const KINDS: [(&str, ServiceId, &str, &str); 9] = [
    ("queue", ServiceId::Sqs, "CreateQueue", "QueueName"),
    ("topic", ServiceId::Sns, "CreateTopic", "Name"),
    ("subscription", ServiceId::Sns, "Subscribe", "Endpoint"),
    ("bus", ServiceId::Events, "CreateEventBus", "Name"),
    ("rule", ServiceId::Events, "PutRule", "Name"),
    ("targets", ServiceId::Events, "PutTargets", "Rule"),
    ("custom-bus", ServiceId::EventsV2, "CreateEventBus", "Name"),
    (
        "subscriber",
        ServiceId::EventsV2,
        "CreateSubscriber",
        "Name",
    ),
    ("stream", ServiceId::EventsV2, "CreateEventStream", "Name"),
];

/// Any other operation: `- call: {service: sqs, operation: TagQueue, input: {...}}`.
const CALL: &str = "call";

/// A resource file, read and checked.
#[derive(Debug)]
pub(super) struct ResourceFile {
    entries: Vec<Entry>,
}

#[derive(Debug)]
struct Entry {
    /// How errors name it: `entry 3 (queue "orders")`.
    name: String,
    service: ServiceId,
    operation: String,
    input: Value,
    region: Option<String>,
    account: Option<String>,
}

/// Where entries that name no region or account go.
pub(super) struct Defaults<'a> {
    pub region: &'a str,
    pub account: &'a str,
    /// `host:port` of the URLs handed back (queue URLs) and kept (rules' message URLs), as a
    /// request's would be.
    pub host: &'a str,
}

impl ResourceFile {
    /// Reads and checks `path`; the error says what is wrong and where, without the file name.
    pub(super) fn load(path: &Path) -> Result<ResourceFile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let document: Value = match extension.to_ascii_lowercase().as_str() {
            "json" => serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?,
            "yaml" | "yml" => {
                serde_saphyr::from_str(&text).map_err(|e| format!("not YAML: {e}"))?
            }
            _ => return Err("the name must end in .json, .yaml or .yml".into()),
        };
        ResourceFile::parse(document)
    }

    fn parse(document: Value) -> Result<ResourceFile, String> {
        let Value::Object(mut top) = document else {
            return Err("expected a mapping with a `resources` list".into());
        };
        let region = take_string(&mut top, "region")?;
        let account = take_account(&mut top)?;
        let resources = top.remove("resources");
        if let Some(key) = top.keys().next() {
            return Err(format!(
                "unknown key {key:?}; the file has `resources` and optionally `region` and `account`"
            ));
        }
        let Some(Value::Array(resources)) = resources else {
            return Err("expected a `resources` list".into());
        };
        let entries = resources
            .into_iter()
            .enumerate()
            .map(|(i, value)| {
                let mut entry = Entry::parse(i + 1, value)?;
                entry.region = entry.region.or_else(|| region.clone());
                entry.account = entry.account.or_else(|| account.clone());
                Ok(entry)
            })
            .collect::<Result<_, String>>()?;
        Ok(ResourceFile { entries })
    }

    /// Runs the entries in order; stops at the first that fails, naming it.
    pub(super) async fn apply(&self, app: &Runtime, defaults: &Defaults<'_>) -> Result<(), String> {
        for entry in &self.entries {
            let cx = Context {
                request_id: app.request_id(),
                account: entry.account.as_deref().unwrap_or(defaults.account).into(),
                region: entry.region.as_deref().unwrap_or(defaults.region).into(),
                access_key: None,
                host: defaults.host.into(),
                queue_url_style: app.config.queue_url_style,
                trace_header: None,
            };
            let output = crate::runtime::call(
                app,
                &cx,
                entry.service,
                &entry.operation,
                entry.input.clone(),
            )
            .await
            .map_err(|e| format!("{}: {e}", entry.name))?;
            refused_targets(&output).map_err(|e| format!("{}: {e}", entry.name))?;
            tracing::info!(entry = %entry.name, output = %output, "init resource created");
        }
        Ok(())
    }
}

impl Entry {
    fn parse(number: usize, value: Value) -> Result<Entry, String> {
        let Value::Object(mut fields) = value else {
            return Err(format!(
                "entry {number}: expected a mapping of one kind ({}) to its request",
                kind_names()
            ));
        };
        let region =
            take_string(&mut fields, "region").map_err(|e| format!("entry {number}: {e}"))?;
        let account = take_account(&mut fields).map_err(|e| format!("entry {number}: {e}"))?;
        let mut fields = fields.into_iter();
        let (Some((kind, input)), None) = (fields.next(), fields.next()) else {
            return Err(format!(
                "entry {number}: expected exactly one kind ({}) besides `region` and `account`",
                kind_names()
            ));
        };
        let (service, operation, input, name) = if kind == CALL {
            call(number, input)?
        } else {
            let Some(&(_, service, operation, label)) = KINDS.iter().find(|k| k.0 == kind) else {
                return Err(format!(
                    "entry {number}: unknown kind {kind:?}; the kinds are {}",
                    kind_names()
                ));
            };
            let name = match input.get(label).and_then(Value::as_str) {
                Some(label) => format!("entry {number} ({kind} {label:?})"),
                None => format!("entry {number} ({kind})"),
            };
            (service, operation.to_string(), input, name)
        };
        let input = checked(service, &operation, input).map_err(|e| format!("{name}: {e}"))?;
        Ok(Entry {
            name,
            service,
            operation,
            input,
            region,
            account,
        })
    }
}

/// A `call` entry: its service, operation and input, and how errors name it.
fn call(number: usize, value: Value) -> Result<(ServiceId, String, Value, String), String> {
    let usage = "expected {service: <name>, operation: <Operation>, input: {...}}";
    let Value::Object(mut call) = value else {
        return Err(format!("entry {number} (call): {usage}"));
    };
    let service = take_string(&mut call, "service")?;
    let operation = take_string(&mut call, "operation")?;
    let input = call
        .remove("input")
        .unwrap_or_else(|| Value::Object(Map::new()));
    let (Some(service), Some(operation), true) = (service, operation, call.is_empty()) else {
        return Err(format!("entry {number} (call): {usage}"));
    };
    let name = format!("entry {number} (call {service} {operation})");
    let Some(id) = ServiceId::SERVING.into_iter().find(|s| s.name() == service) else {
        let names: Vec<_> = ServiceId::SERVING.iter().map(|s| s.name()).collect();
        return Err(format!(
            "{name}: unknown service; the services are {}",
            names.join(", ")
        ));
    };
    let model = id.model().expect("serving services have models");
    if !model.operations.contains_key(&operation) {
        return Err(format!("{name}: {service} has no operation {operation}"));
    }
    Ok((id, operation, input, name))
}

/// The input conformed to the operation's model and with every required member present.
fn checked(service: ServiceId, operation: &str, mut input: Value) -> Result<Value, String> {
    let model = service.model().expect("serving services have models");
    if let Some(shape) = model.operations[operation].input.as_ref() {
        conform(model, &shape.shape, &mut input, operation)?;
    }
    crate::protocol::check_required(service, operation, &input).map_err(|e| e.to_string())?;
    Ok(input)
}

/// Makes `value` fit `shape` where YAML and JSON write it otherwise: a number or boolean where
/// a string goes becomes its text, a mapping or list its JSON text. A member the shape does not
/// have is an error (a misspelt optional member would otherwise be dropped unnoticed).
fn conform(model: &Model, shape: &str, value: &mut Value, at: &str) -> Result<(), String> {
    let shape = model.shape(shape);
    match (shape.kind, value) {
        (ShapeKind::Structure, Value::Object(members)) => {
            for (name, member) in members.iter_mut() {
                let Some(r) = shape.members.get(name) else {
                    let known: Vec<&str> = shape.members.keys().map(String::as_str).collect();
                    return Err(format!(
                        "{at} has no member {name:?} (it has {})",
                        known.join(", ")
                    ));
                };
                conform(model, &r.shape, member, &format!("{at}.{name}"))?;
            }
            Ok(())
        }
        (ShapeKind::List, Value::Array(items)) => match &shape.member {
            Some(r) => items
                .iter_mut()
                .try_for_each(|item| conform(model, &r.shape, item, at)),
            None => Ok(()),
        },
        (ShapeKind::Map, Value::Object(entries)) => match &shape.value {
            Some(r) => entries
                .iter_mut()
                .try_for_each(|(key, v)| conform(model, &r.shape, v, &format!("{at}.{key}"))),
            None => Ok(()),
        },
        (
            ShapeKind::String,
            v @ (Value::Number(_) | Value::Bool(_) | Value::Object(_) | Value::Array(_)),
        ) => {
            *v = Value::String(v.to_string());
            Ok(())
        }
        (ShapeKind::Structure | ShapeKind::Map, _) => Err(format!("{at} must be a mapping")),
        (ShapeKind::List, _) => Err(format!("{at} must be a list")),
        _ => Ok(()),
    }
}

/// PutTargets answers 200 with the targets it refused; an init file wants them all.
fn refused_targets(output: &Value) -> Result<(), String> {
    let failed = output.get("FailedEntries").and_then(Value::as_array);
    let Some(first) = failed.and_then(|f| f.first()) else {
        return Ok(());
    };
    let field = |name: &str| first.get(name).and_then(Value::as_str).unwrap_or_default();
    Err(format!(
        "target {:?}: {}: {}",
        field("TargetId"),
        field("ErrorCode"),
        field("ErrorMessage")
    ))
}

fn take_string(map: &mut Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match map.remove(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!("`{key}` must be a string, not {other}")),
    }
}

/// An account id is 12 digits, written as a string: unquoted YAML reads `000000000000` as 0.
fn take_account(map: &mut Map<String, Value>) -> Result<Option<String>, String> {
    match map.remove("account") {
        None => Ok(None),
        Some(Value::String(s)) if s.len() == 12 && s.bytes().all(|b| b.is_ascii_digit()) => {
            Ok(Some(s))
        }
        Some(other) => Err(format!(
            "`account` must be 12 digits in quotes (\"000000000000\"), not {other}"
        )),
    }
}

fn kind_names() -> String {
    let mut names: Vec<&str> = KINDS.iter().map(|k| k.0).collect();
    names.push(CALL);
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(doc: Value) -> Result<ResourceFile, String> {
        ResourceFile::parse(doc)
    }

    #[test]
    fn entries_take_their_operation_and_yaml_scalars_become_strings() {
        let text = r#"
region: eu-west-1
resources:
  - queue:
      QueueName: orders
      Attributes:
        VisibilityTimeout: 30
        FifoQueue: false
        RedrivePolicy: {deadLetterTargetArn: "arn:aws:sqs:eu-west-1:000000000000:dlq", maxReceiveCount: 3}
  - rule:
      Name: big
      EventPattern: {source: [shop]}
    region: us-east-1
    account: "111122223333"
"#;
        let doc: Value = serde_saphyr::from_str(text).unwrap();
        let file = parse(doc).unwrap();
        let queue = &file.entries[0];
        assert_eq!(queue.name, r#"entry 1 (queue "orders")"#);
        assert_eq!(
            (queue.service, queue.operation.as_str()),
            (ServiceId::Sqs, "CreateQueue")
        );
        assert_eq!(
            queue.input,
            json!({"QueueName": "orders", "Attributes": {
                "VisibilityTimeout": "30",
                "FifoQueue": "false",
                "RedrivePolicy": r#"{"deadLetterTargetArn":"arn:aws:sqs:eu-west-1:000000000000:dlq","maxReceiveCount":3}"#,
            }})
        );
        assert_eq!(queue.region.as_deref(), Some("eu-west-1"));
        let rule = &file.entries[1];
        assert_eq!(rule.input["EventPattern"], json!(r#"{"source":["shop"]}"#));
        assert_eq!(rule.region.as_deref(), Some("us-east-1"));
        assert_eq!(rule.account.as_deref(), Some("111122223333"));
    }

    #[test]
    fn a_call_entry_runs_any_operation() {
        let file = parse(json!({"resources": [
            {"call": {"service": "sqs", "operation": "TagQueue",
                      "input": {"QueueUrl": "http://localhost:4566/000000000000/q", "Tags": {"team": "a"}}}},
        ]}))
        .unwrap();
        assert_eq!(file.entries[0].name, "entry 1 (call sqs TagQueue)");
        assert_eq!(file.entries[0].operation, "TagQueue");
    }

    #[test]
    fn mistakes_are_named_with_their_entry() {
        let cases = [
            (json!([]), "expected a mapping with a `resources` list"),
            (json!({"queues": []}), "unknown key \"queues\""),
            (
                json!({"resources": [{"queues": {"QueueName": "a"}}]}),
                "entry 1: unknown kind \"queues\"; the kinds are queue, topic,",
            ),
            (
                json!({"resources": [{"queue": {}, "topic": {}}]}),
                "entry 1: expected exactly one kind",
            ),
            (
                json!({"resources": [{"queue": {"QueueName": "a"}}, {"queue": {"QueueNmae": "b"}}]}),
                "entry 2 (queue): CreateQueue has no member \"QueueNmae\" (it has Attributes, QueueName, tags)",
            ),
            (
                json!({"resources": [{"topic": {"Attributes": {}}}]}),
                "entry 1 (topic): InvalidParameterException: Invalid parameter: Name Reason: no value for required parameter",
            ),
            (
                json!({"resources": [{"queue": {"QueueName": "a"}, "account": "0"}]}),
                "entry 1: `account` must be 12 digits",
            ),
            (
                json!({"resources": [{"targets": {"Rule": "r", "Targets": {"Id": "x"}}}]}),
                "entry 1 (targets \"r\"): PutTargets.Targets must be a list",
            ),
            (
                json!({"resources": [{"call": {"service": "s3", "operation": "CreateBucket"}}]}),
                "entry 1 (call s3 CreateBucket): unknown service",
            ),
            (
                json!({"resources": [{"call": {"service": "sqs", "operation": "CreateBucket"}}]}),
                "entry 1 (call sqs CreateBucket): sqs has no operation CreateBucket",
            ),
        ];
        for (doc, expected) in cases {
            let err = parse(doc.clone()).unwrap_err();
            assert!(err.starts_with(expected), "{doc}: {err}");
        }
    }
}
