//! The event fields of a PutEvents entry, as classic EventBridge and the custom bus both take them
//! (Source, DetailType, Detail, Time, Resources), how big they count, and the checks both apply
//! before an entry becomes an event. Each service wraps these fields in its own entry (the bus
//! name and trace header of classic EventBridge, the system metadata of the custom bus) and maps
//! a refusal to its own result entry. Pure: no store, no state, no wire format.

use crate::engine::time::Millis;
use crate::services::events::times::millis_of;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The fields that make the event, in the order the custom bus's validation message shows them.
#[derive(Debug, Default, Clone, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct EventFields {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Vec<String>>,
}

/// An entry that passed the checks: what its event is made of.
#[derive(Debug)]
pub struct Checked {
    pub source: String,
    pub detail_type: String,
    /// The Detail, parsed: always a JSON object.
    pub detail: Value,
    /// The entry's Time, or the time it was put when it gives none.
    pub time: Millis,
}

/// The answer to a PutEvents, the same shape on both buses.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct PutEventsOutput {
    pub failed_entry_count: usize,
    pub entries: Vec<ResultEntry>,
}

/// One entry's result: its event id, or an error code and message. Only the custom bus gives a
/// sequence number and a success code (PUBLISHED, DEDUPLICATED).
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct ResultEntry {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequence_number: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success_code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
}

impl ResultEntry {
    pub fn failed(code: &str, message: impl Into<String>) -> ResultEntry {
        ResultEntry {
            error_code: Some(code.into()),
            error_message: Some(message.into()),
            ..ResultEntry::default()
        }
    }
}

/// Why an entry was refused: AWS's error code and message for its result entry.
pub type Refusal = (&'static str, String);

impl EventFields {
    /// The entry's size as EventBridge counts it: 14 bytes for a Time, plus the UTF-8 bytes of
    /// Source, DetailType, Detail and every resource.
    pub fn size(&self) -> usize {
        let text = |s: &Option<String>| s.as_ref().map_or(0, String::len);
        let resources = self
            .resources
            .as_ref()
            .map_or(0, |r| r.iter().map(String::len).sum());
        usize::from(self.time.is_some()) * 14
            + text(&self.source)
            + text(&self.detail_type)
            + text(&self.detail)
            + resources
    }

    /// The checks in AWS's order: Source, DetailType and Detail given and not empty; Detail a
    /// JSON object that `detail_fits`; no `aws.` source; Time, when given, a timestamp.
    pub fn check(
        &self,
        now: Millis,
        detail_fits: impl Fn(&Value) -> bool,
    ) -> Result<Checked, Refusal> {
        let required = |value: &Option<String>, name: &str| match value.as_deref() {
            Some(v) if !v.is_empty() => Ok(v.to_string()),
            _ => Err((
                "InvalidArgument",
                format!("Parameter {name} is not valid. Reason: {name} is a required argument."),
            )),
        };
        let source = required(&self.source, "Source")?;
        let detail_type = required(&self.detail_type, "DetailType")?;
        let detail = required(&self.detail, "Detail")?;
        let detail = serde_json::from_str::<Value>(&detail)
            .ok()
            .filter(|d| d.is_object() && detail_fits(d))
            .ok_or(("MalformedDetail", "Detail is malformed.".to_string()))?;
        if source.starts_with("aws.") {
            return Err((
                "NotAuthorizedForSourceException",
                "Not authorized for the source.".into(),
            ));
        }
        let time = match &self.time {
            None => now,
            Some(t) => millis_of(t).ok_or((
                "InvalidArgument",
                "Parameter Time is not valid. Reason: Time is not a valid timestamp.".to_string(),
            ))?,
        };
        Ok(Checked {
            source,
            detail_type,
            detail,
            time,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(detail: &str) -> EventFields {
        EventFields {
            source: Some("app".into()),
            detail_type: Some("tick".into()),
            detail: Some(detail.into()),
            ..EventFields::default()
        }
    }

    #[test]
    fn sizes_count_what_aws_counts() {
        let mut entry = fields("{}");
        assert_eq!(entry.size(), 3 + 4 + 2);
        entry.time = Some(Value::from(0));
        entry.resources = Some(vec!["ab".into(), "c".into()]);
        assert_eq!(entry.size(), 3 + 4 + 2 + 14 + 3);
    }

    #[test]
    fn checks_run_in_aws_order() {
        let refused = |entry: &EventFields| entry.check(0, |_| true).unwrap_err();
        assert_eq!(refused(&EventFields::default()).0, "InvalidArgument");
        assert_eq!(refused(&fields("[1]")).0, "MalformedDetail");
        let aws = EventFields {
            source: Some("aws.s3".into()),
            ..fields("{}")
        };
        assert_eq!(refused(&aws).0, "NotAuthorizedForSourceException");
        let timed = EventFields {
            time: Some(Value::from("yesterday")),
            ..fields("{}")
        };
        assert_eq!(
            refused(&timed).1,
            "Parameter Time is not valid. Reason: Time is not a valid timestamp."
        );
        let picky = fields("{}").check(0, |_| false).unwrap_err();
        assert_eq!(picky.0, "MalformedDetail");
        let ok = fields(r#"{"n":1}"#).check(7, |_| true).unwrap();
        assert_eq!((ok.source.as_str(), ok.time), ("app", 7));
    }
}
