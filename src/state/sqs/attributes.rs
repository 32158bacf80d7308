//! Queue attributes: parsed and validated once at the API boundary into [`QueueAttributes`],
//! rendered back as the strings SQS returns. Checks that need other queues (a redrive target's
//! existence, type and allow policy) are made by the operations that have the store.
//! Pure: it imports no operation and no state, only the engine's values and its own service's data.

use super::errors::SqsError;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum DedupScope {
    Queue,
    MessageGroup,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RedrivePolicy {
    pub dead_letter_target_arn: String,
    pub max_receive_count: u32,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum RedriveAllow {
    AllowAll,
    DenyAll,
    ByQueue(Vec<String>),
}

/// A queue's settable attributes, typed, with SQS's defaults.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QueueAttributes {
    pub delay_s: i64,
    pub maximum_message_size: i64,
    pub retention_s: i64,
    pub receive_wait_s: i64,
    pub visibility_timeout_s: i64,
    /// The policy document as given (AddPermission edits it).
    pub policy: Option<Value>,
    pub redrive: Option<(RedrivePolicy, String)>,
    pub redrive_allow: Option<(RedriveAllow, String)>,
    pub kms_master_key_id: Option<String>,
    pub kms_data_key_reuse_s: i64,
    pub sqs_managed_sse: bool,
    pub fifo: bool,
    pub content_based_dedup: bool,
    pub dedup_scope: DedupScope,
    pub per_group_throughput: bool,
}

impl Default for QueueAttributes {
    fn default() -> Self {
        QueueAttributes {
            delay_s: 0,
            maximum_message_size: 1_048_576,
            retention_s: 345_600,
            receive_wait_s: 0,
            visibility_timeout_s: 30,
            policy: None,
            redrive: None,
            redrive_allow: None,
            kms_master_key_id: None,
            kms_data_key_reuse_s: 300,
            sqs_managed_sse: true,
            fifo: false,
            content_based_dedup: false,
            dedup_scope: DedupScope::Queue,
            per_group_throughput: false,
        }
    }
}

/// Attribute names a client may set.
pub(crate) const SETTABLE: [&str; 15] = [
    "DelaySeconds",
    "MaximumMessageSize",
    "MessageRetentionPeriod",
    "Policy",
    "ReceiveMessageWaitTimeSeconds",
    "VisibilityTimeout",
    "RedrivePolicy",
    "RedriveAllowPolicy",
    "KmsMasterKeyId",
    "KmsDataKeyReusePeriodSeconds",
    "SqsManagedSseEnabled",
    "FifoQueue",
    "ContentBasedDeduplication",
    "DeduplicationScope",
    "FifoThroughputLimit",
];

/// Attribute names GetQueueAttributes knows besides the [`SETTABLE`] ones (and `All`): those SQS
/// keeps itself.
const READ_ONLY: [&str; 6] = [
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesNotVisible",
    "ApproximateNumberOfMessagesDelayed",
    "CreatedTimestamp",
    "LastModifiedTimestamp",
    "QueueArn",
];

/// Whether GetQueueAttributes knows attribute `name` (besides `All`).
pub(crate) fn readable(name: &str) -> bool {
    READ_ONLY.contains(&name) || SETTABLE.contains(&name)
}

const FIFO_ONLY: [&str; 3] = [
    "ContentBasedDeduplication",
    "DeduplicationScope",
    "FifoThroughputLimit",
];

fn invalid(name: &str, reason: Option<&str>) -> SqsError {
    SqsError::InvalidAttributeValue(match reason {
        Some(r) => format!("Invalid value for the parameter {name}. Reason: {r}"),
        None => format!("Invalid value for the parameter {name}."),
    })
}

fn boolean(name: &str, value: &str) -> Result<bool, SqsError> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(invalid(name, None)),
    }
}

fn ranged(name: &str, value: &str, lo: i64, hi: i64) -> Result<i64, SqsError> {
    value
        .trim()
        .parse::<i64>()
        .ok()
        .filter(|v| (lo..=hi).contains(v))
        .ok_or_else(|| invalid(name, None))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RedriveJson {
    dead_letter_target_arn: Option<String>,
    max_receive_count: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RedriveAllowJson {
    redrive_permission: Option<String>,
    source_queue_arns: Option<Vec<String>>,
}

/// `{"deadLetterTargetArn": "...", "maxReceiveCount": n}` (the count may be a string).
pub(crate) fn parse_redrive_policy(text: &str) -> Result<RedrivePolicy, SqsError> {
    let bad = |reason: &str| {
        SqsError::InvalidParameterValue(format!(
            "Value {text} for parameter RedrivePolicy is invalid. Reason: {reason}"
        ))
    };
    let json: RedriveJson =
        serde_json::from_str(text).map_err(|_| bad("Redrive policy is not a valid JSON map."))?;
    let arn = json.dead_letter_target_arn.ok_or_else(|| {
        bad("Redrive policy does not contain mandatory attribute: deadLetterTargetArn.")
    })?;
    let count = json.max_receive_count.ok_or_else(|| {
        bad("Redrive policy does not contain mandatory attribute: maxReceiveCount.")
    })?;
    let count = match &count {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.parse::<i64>().ok(),
        _ => None,
    };
    match count {
        Some(n) if (1..=1000).contains(&n) => Ok(RedrivePolicy {
            dead_letter_target_arn: arn,
            max_receive_count: n as u32,
        }),
        _ => Err(bad(
            "Invalid value for maxReceiveCount: valid values are from 1 to 1000 both inclusive.",
        )),
    }
}

pub(crate) fn parse_redrive_allow_policy(text: &str) -> Result<RedriveAllow, SqsError> {
    let bad = |reason: &str| invalid("RedriveAllowPolicy", Some(reason));
    let json: RedriveAllowJson = serde_json::from_str(text)
        .map_err(|_| bad("Redrive allow policy is not a valid JSON map."))?;
    let arns = json.source_queue_arns;
    match json.redrive_permission.as_deref() {
        Some("allowAll") | Some("denyAll") if arns.as_ref().is_some_and(|a| !a.is_empty()) => Err(
            bad("Only specify sourceQueueArns with redrivePermission set to byQueue."),
        ),
        Some("allowAll") => Ok(RedriveAllow::AllowAll),
        Some("denyAll") => Ok(RedriveAllow::DenyAll),
        Some("byQueue") => match arns {
            Some(a) if !a.is_empty() && a.len() <= 10 => Ok(RedriveAllow::ByQueue(a)),
            _ => Err(bad(
                "Specify between 1 and 10 sourceQueueArns with redrivePermission set to byQueue.",
            )),
        },
        _ => Err(bad(
            "Value for redrivePermission must be one of allowAll, denyAll, byQueue.",
        )),
    }
}

impl RedriveAllow {
    /// Whether a queue with `source_arn` may use the queue with this policy as its DLQ.
    pub fn allows(&self, source_arn: &str) -> bool {
        match self {
            RedriveAllow::AllowAll => true,
            RedriveAllow::DenyAll => false,
            RedriveAllow::ByQueue(arns) => arns.iter().any(|a| a == source_arn),
        }
    }
}

/// Whether attribute `name` may be given to a queue that is (or is being created as) FIFO or
/// not; `Err` is AWS's answer to one that may not.
fn check_name(name: &str, fifo: bool, creating: bool) -> Result<(), SqsError> {
    if !SETTABLE.contains(&name) {
        return Err(SqsError::InvalidAttributeName(format!(
            "Unknown Attribute {name}."
        )));
    }
    // A standard queue does not know ContentBasedDeduplication (nor FifoQueue once
    // created) and refuses the other FIFO-only attributes, in AWS's words for each.
    let unknown = name == "ContentBasedDeduplication" || (name == "FifoQueue" && !creating);
    if !fifo && unknown {
        return Err(SqsError::InvalidAttributeName(format!(
            "Unknown Attribute {name}."
        )));
    }
    if FIFO_ONLY.contains(&name) && !fifo {
        return Err(SqsError::InvalidAttributeName(format!(
            "You can specify the {name} only when FifoQueue is set to true."
        )));
    }
    Ok(())
}

impl QueueAttributes {
    /// Applies `given` (CreateQueue when `creating`, else SetQueueAttributes), validating each.
    pub fn apply(
        &mut self,
        given: &BTreeMap<String, String>,
        creating: bool,
    ) -> Result<(), SqsError> {
        let fifo = if creating {
            match given.get("FifoQueue") {
                Some(v) => boolean("FifoQueue", v)?,
                None => false,
            }
        } else {
            self.fifo
        };
        for (name, value) in given {
            check_name(name, fifo, creating)?;
            self.set(name, value, fifo, given)?;
        }
        if self.per_group_throughput && self.dedup_scope == DedupScope::Queue {
            return Err(invalid(
                "FifoThroughputLimit",
                Some(
                    "FifoThroughputLimit perMessageGroupId requires DeduplicationScope messageGroup.",
                ),
            ));
        }
        Ok(())
    }

    /// Sets the one attribute `name` (a settable one) to `value`; `given` is the whole request,
    /// for the attributes that depend on one another.
    fn set(
        &mut self,
        name: &str,
        value: &str,
        fifo: bool,
        given: &BTreeMap<String, String>,
    ) -> Result<(), SqsError> {
        match name {
            "DelaySeconds" => self.delay_s = ranged(name, value, 0, 900)?,
            "MaximumMessageSize" => {
                self.maximum_message_size = ranged(name, value, 1024, 1_048_576)?
            }
            "MessageRetentionPeriod" => self.retention_s = ranged(name, value, 60, 1_209_600)?,
            "ReceiveMessageWaitTimeSeconds" => self.receive_wait_s = ranged(name, value, 0, 20)?,
            "VisibilityTimeout" => self.visibility_timeout_s = ranged(name, value, 0, 43_200)?,
            "KmsDataKeyReusePeriodSeconds" => {
                self.kms_data_key_reuse_s = ranged(name, value, 60, 86_400)?
            }
            "Policy" if value.is_empty() => self.policy = None,
            "Policy" => {
                let doc: Value = serde_json::from_str(value).map_err(|_| invalid(name, None))?;
                if !doc.is_object() {
                    return Err(invalid(name, None));
                }
                self.policy = Some(doc);
            }
            "RedrivePolicy" if value.is_empty() => self.redrive = None,
            "RedrivePolicy" => {
                let policy = parse_redrive_policy(value)?;
                // Returned as AWS returns it: maxReceiveCount a number, even if given as a
                // string.
                let text = serde_json::json!({
                    "deadLetterTargetArn": policy.dead_letter_target_arn,
                    "maxReceiveCount": policy.max_receive_count,
                })
                .to_string();
                self.redrive = Some((policy, text))
            }
            "RedriveAllowPolicy" if value.is_empty() => self.redrive_allow = None,
            "RedriveAllowPolicy" => {
                self.redrive_allow = Some((parse_redrive_allow_policy(value)?, value.to_string()))
            }
            "KmsMasterKeyId" if value.is_empty() => self.kms_master_key_id = None,
            "KmsMasterKeyId" => {
                self.kms_master_key_id = Some(value.to_string());
                self.sqs_managed_sse = false;
            }
            "SqsManagedSseEnabled" => {
                self.sqs_managed_sse = boolean(name, value)?;
                if self.sqs_managed_sse
                    && self.kms_master_key_id.is_some()
                    && given.contains_key("KmsMasterKeyId")
                {
                    return Err(invalid(
                        name,
                        Some(
                            "You can use one type of server-side encryption (SSE) at one time. You can either enable KMS SSE or SQS SSE.",
                        ),
                    ));
                }
                if self.sqs_managed_sse {
                    self.kms_master_key_id = None;
                }
            }
            "FifoQueue" => {
                if boolean(name, value)? != fifo {
                    return Err(invalid(
                        name,
                        Some("Modifying queue type is not supported."),
                    ));
                }
                self.fifo = fifo;
            }
            "ContentBasedDeduplication" => self.content_based_dedup = boolean(name, value)?,
            "DeduplicationScope" => {
                self.dedup_scope = match value {
                    "queue" => DedupScope::Queue,
                    "messageGroup" => DedupScope::MessageGroup,
                    _ => return Err(invalid(name, None)),
                }
            }
            "FifoThroughputLimit" => {
                self.per_group_throughput = match value {
                    "perQueue" => false,
                    "perMessageGroupId" => true,
                    _ => return Err(invalid(name, None)),
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The settable attributes as SQS returns them.
    pub fn rendered(&self) -> BTreeMap<&'static str, String> {
        let mut out = BTreeMap::new();
        out.insert("DelaySeconds", self.delay_s.to_string());
        out.insert("MaximumMessageSize", self.maximum_message_size.to_string());
        out.insert("MessageRetentionPeriod", self.retention_s.to_string());
        out.insert(
            "ReceiveMessageWaitTimeSeconds",
            self.receive_wait_s.to_string(),
        );
        out.insert("VisibilityTimeout", self.visibility_timeout_s.to_string());
        out.insert("SqsManagedSseEnabled", self.sqs_managed_sse.to_string());
        if let Some(policy) = &self.policy {
            out.insert("Policy", policy.to_string());
        }
        if let Some((_, text)) = &self.redrive {
            out.insert("RedrivePolicy", text.clone());
        }
        if let Some((_, text)) = &self.redrive_allow {
            out.insert("RedriveAllowPolicy", text.clone());
        }
        if let Some(key) = &self.kms_master_key_id {
            out.insert("KmsMasterKeyId", key.clone());
            out.insert(
                "KmsDataKeyReusePeriodSeconds",
                self.kms_data_key_reuse_s.to_string(),
            );
        }
        if self.fifo {
            out.insert("FifoQueue", "true".into());
            out.insert(
                "ContentBasedDeduplication",
                self.content_based_dedup.to_string(),
            );
            let scope = match self.dedup_scope {
                DedupScope::Queue => "queue",
                DedupScope::MessageGroup => "messageGroup",
            };
            out.insert("DeduplicationScope", scope.into());
            let limit = if self.per_group_throughput {
                "perMessageGroupId"
            } else {
                "perQueue"
            };
            out.insert("FifoThroughputLimit", limit.into());
        }
        out
    }

    /// The first attribute of `given` whose value differs from this queue's (idempotent
    /// CreateQueue). Only the attributes given are compared: one left out, or given with the
    /// value the queue has (its default included), is no difference.
    pub fn first_difference(&self, given: &BTreeMap<String, String>) -> Option<String> {
        let current = self.rendered();
        let mut requested = self.clone();
        if requested.apply(given, true).is_err() {
            return given.keys().next().cloned();
        }
        let wanted = requested.rendered();
        given
            .keys()
            .find(|k| current.get(k.as_str()) != wanted.get(k.as_str()))
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn ranges_and_names() {
        let mut a = QueueAttributes::default();
        a.apply(
            &attrs(&[("VisibilityTimeout", "60"), ("DelaySeconds", "900")]),
            true,
        )
        .unwrap();
        assert_eq!((a.visibility_timeout_s, a.delay_s), (60, 900));
        for (k, v) in [
            ("VisibilityTimeout", "43201"),
            ("DelaySeconds", "-1"),
            ("MessageRetentionPeriod", "59"),
            ("MaximumMessageSize", "1023"),
            ("ReceiveMessageWaitTimeSeconds", "21"),
            ("SqsManagedSseEnabled", "maybe"),
        ] {
            let err = QueueAttributes::default()
                .apply(&attrs(&[(k, v)]), true)
                .unwrap_err();
            assert!(
                matches!(err, SqsError::InvalidAttributeValue(_)),
                "{k}={v}: {err:?}"
            );
        }
        let err = QueueAttributes::default()
            .apply(&attrs(&[("Colour", "1")]), true)
            .unwrap_err();
        assert_eq!(
            err,
            SqsError::InvalidAttributeName("Unknown Attribute Colour.".into())
        );
    }

    #[test]
    fn fifo_only_attributes_need_a_fifo_queue() {
        let err = QueueAttributes::default()
            .apply(&attrs(&[("FifoThroughputLimit", "perQueue")]), true)
            .unwrap_err();
        assert_eq!(
            err,
            SqsError::InvalidAttributeName(
                "You can specify the FifoThroughputLimit only when FifoQueue is set to true."
                    .into()
            )
        );
        let mut fifo = QueueAttributes::default();
        fifo.apply(
            &attrs(&[
                ("FifoQueue", "true"),
                ("DeduplicationScope", "messageGroup"),
                ("FifoThroughputLimit", "perMessageGroupId"),
            ]),
            true,
        )
        .unwrap();
        assert!(fifo.per_group_throughput);
        let err = fifo
            .apply(&attrs(&[("FifoQueue", "false")]), false)
            .unwrap_err();
        assert_eq!(err, SqsError::InvalidAttributeValue(
            "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.".into()));
    }

    #[test]
    fn redrive_policies() {
        let p = parse_redrive_policy(r#"{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":"3"}"#).unwrap();
        assert_eq!(p.max_receive_count, 3);
        assert!(
            parse_redrive_policy(r#"{"deadLetterTargetArn":"x","maxReceiveCount":0}"#).is_err()
        );
        assert!(parse_redrive_policy("nope").is_err());
        let allow = parse_redrive_allow_policy(
            r#"{"redrivePermission":"byQueue","sourceQueueArns":["a"]}"#,
        )
        .unwrap();
        assert!(allow.allows("a") && !allow.allows("b"));
        assert!(
            parse_redrive_allow_policy(
                r#"{"redrivePermission":"denyAll","sourceQueueArns":["a"]}"#
            )
            .is_err()
        );
        assert!(
            !parse_redrive_allow_policy(r#"{"redrivePermission":"denyAll"}"#)
                .unwrap()
                .allows("a")
        );
    }

    #[test]
    fn idempotent_create_compares_rendered_values() {
        let mut a = QueueAttributes::default();
        a.apply(&attrs(&[("VisibilityTimeout", "60")]), true)
            .unwrap();
        assert_eq!(
            a.first_difference(&attrs(&[("VisibilityTimeout", "60")])),
            None
        );
        assert_eq!(
            a.first_difference(&attrs(&[("VisibilityTimeout", "30")]))
                .as_deref(),
            Some("VisibilityTimeout")
        );
        // Left out, or given with the value the queue has: no difference.
        assert_eq!(a.first_difference(&attrs(&[])), None);
        assert_eq!(
            a.first_difference(&attrs(&[("DelaySeconds", "0"), ("FifoQueue", "false")])),
            None
        );
    }
}
