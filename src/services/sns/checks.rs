//! What SNS checks in a message before it publishes it: the body and its size, the subject, the
//! message attributes, a JSON message structure and the FIFO group and deduplication ids.
//! Pure checks over the request's fields; must not depend on the store, the state or delivery.

use super::errors::{SnsError, invalid};
use super::shapes::MessageAttributeValue;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Largest message, attributes included (256 KiB).
pub(super) const MAX_MESSAGE_BYTES: usize = 262_144;

/// The reserved names SNS reads as per-message settings (SNS developer guide: the SMS sender
/// ID, type and maximum price, the origination number and entity and template ids, and the
/// mobile push settings such as `AWS.SNS.MOBILE.APNS.PUSH_TYPE`): a publish may carry them.
const SNS_SETTINGS: [&str; 3] = ["AWS.SNS.SMS.", "AWS.MM.SMS.", "AWS.SNS.MOBILE."];

fn value_invalid(message: String) -> SnsError {
    SnsError::ParameterValueInvalid(message)
}

/// Checks message attributes as SNS does; answers the bytes they count toward the size limit.
fn check_attributes(
    attributes: &BTreeMap<String, MessageAttributeValue>,
) -> Result<usize, SnsError> {
    let mut size = 0;
    for (name, value) in attributes {
        if name.len() >= 256 {
            return Err(value_invalid(
                "Length of message attribute name must be less than 256 bytes.".into(),
            ));
        }
        if let Some(c) = name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || "_-.".contains(*c)))
        {
            return Err(value_invalid(format!(
                "Invalid non-alphanumeric character '#x{:X}' was found in the message attribute name. Can only include \
                 alphanumeric characters, hyphens, underscores, or dots.",
                c as u32
            )));
        }
        if name.starts_with('.') {
            return Err(value_invalid(
                "Invalid message attribute name starting with character '.' was found.".into(),
            ));
        }
        if name.ends_with('.') {
            return Err(value_invalid(
                "Invalid message attribute name ending with character '.' was found.".into(),
            ));
        }
        if name.contains("..") {
            return Err(value_invalid(
                "Message attribute name can not have successive '.' character.".into(),
            ));
        }
        let lower = name.to_ascii_lowercase();
        let reserved = lower.starts_with("aws.") || lower.starts_with("amazon.");
        if reserved && !SNS_SETTINGS.iter().any(|p| name.starts_with(p)) {
            return Err(value_invalid(format!(
                "The message attribute name '{name}' is reserved."
            )));
        }
        if value.data_type.is_empty() {
            return Err(SnsError::ValidationError(format!(
                "1 validation error detected: Value null at 'messageAttributes.{name}.member.dataType' failed to satisfy \
                 constraint: Member must not be null"
            )));
        }
        let (base, label) = match value.data_type.split_once('.') {
            Some((base, label)) => (base, Some(label)),
            None => (value.data_type.as_str(), None),
        };
        let kind = match (base, label) {
            ("String", Some("Array")) => "String.Array",
            (_, Some("")) => "",
            ("String", _) => "String",
            ("Number", _) => "Number",
            ("Binary", _) => "Binary",
            _ => "",
        };
        let empty = || {
            value_invalid(format!(
                "The message attribute '{name}' must contain non-empty message attribute value for message attribute type '{base}'."
            ))
        };
        match kind {
            "String" | "String.Array" | "Number" => {
                if value.binary_value.is_some() && value.string_value.is_none() {
                    return Err(value_invalid(format!(
                        "The message attribute '{name}' with type '{base}' must use field 'String'."
                    )));
                }
                let text = value
                    .string_value
                    .as_deref()
                    .filter(|s| !s.is_empty())
                    .ok_or_else(empty)?;
                if kind == "Number" && text.trim().parse::<f64>().map_or(true, |n| !n.is_finite()) {
                    return Err(value_invalid(format!(
                        "Could not cast message attribute '{name}' value to number."
                    )));
                }
                if kind == "String.Array"
                    && !serde_json::from_str::<Value>(text).is_ok_and(|v| v.is_array())
                {
                    return Err(value_invalid(format!(
                        "The message attribute '{name}' with type 'String.Array' has an invalid value."
                    )));
                }
                size += text.len();
            }
            "Binary" => {
                if value.string_value.is_some() && value.binary_value.is_none() {
                    return Err(value_invalid(format!(
                        "The message attribute '{name}' with type 'Binary' must use field 'Binary'."
                    )));
                }
                // The decoded bytes count toward the limit.
                let encoded = value
                    .binary_value
                    .as_deref()
                    .filter(|b| !b.is_empty())
                    .ok_or_else(empty)?;
                size += decoded_len(encoded);
            }
            _ => {
                return Err(value_invalid(format!(
                    "The message attribute '{name}' has an invalid message attribute type, the set of supported type \
                     prefixes is Binary, Number, and String."
                )));
            }
        }
        size += name.len() + value.data_type.len();
    }
    Ok(size)
}

/// The bytes a Base64 text decodes to.
pub(super) fn decoded_len(encoded: &str) -> usize {
    let padding = encoded.bytes().rev().take_while(|b| *b == b'=').count();
    (encoded.len() / 4 * 3).saturating_sub(padding)
}

/// A checked message's JSON structure (if any) and deduplication id (FIFO).
pub(super) type Checked = (Option<Map<String, Value>>, Option<String>);

pub(super) fn check_common<'a>(
    fields: &'a PublishBatchEntryRef<'a>,
    fifo: bool,
    content_based: bool,
) -> Result<Checked, SnsError> {
    if fields.message.is_empty() {
        return Err(invalid("Empty message"));
    }
    let bad_subject =
        |s: &str| s.is_empty() || s.chars().count() >= 100 || s.chars().any(char::is_control);
    if fields.subject.is_some_and(bad_subject) {
        return Err(invalid("Subject"));
    }
    let size = fields.message.len() + check_attributes(fields.attributes)?;
    if size > MAX_MESSAGE_BYTES {
        return Err(invalid("Message too long"));
    }
    let structure = check_structure(fields.message, fields.structure)?;
    let dedup_id = check_fifo_ids(fields, fifo, content_based)?;
    Ok((structure, dedup_id))
}

/// A JSON `MessageStructure`: the message must be an object with a string `default`.
fn check_structure(
    message: &str,
    structure: Option<&str>,
) -> Result<Option<Map<String, Value>>, SnsError> {
    Ok(match structure {
        None => None,
        Some("json") => {
            let parsed: Value = serde_json::from_str(message)
                .map_err(|_| invalid("Message Structure - JSON message body failed to parse"))?;
            let map = parsed
                .as_object()
                .cloned()
                .ok_or_else(|| invalid("Message Structure - JSON message body failed to parse"))?;
            if !map.get("default").is_some_and(Value::is_string) {
                return Err(invalid(
                    "Message Structure - No default entry in JSON message body",
                ));
            }
            Some(map)
        }
        Some(other) => {
            return Err(invalid(format!(
                "MessageStructure Reason: Invalid value [{other}]. Must be json."
            )));
        }
    })
}

/// FIFO topics: a valid MessageGroupId, and a deduplication id given or made from the content;
/// standard topics take no deduplication id. Answers the deduplication id.
fn check_fifo_ids(
    fields: &PublishBatchEntryRef,
    fifo: bool,
    content_based: bool,
) -> Result<Option<String>, SnsError> {
    let valid_token = |t: &str| {
        (1..=128).contains(&t.len())
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b.is_ascii_punctuation())
    };
    if let Some(group) = fields.group_id.filter(|g| !valid_token(g)) {
        return Err(invalid(format!(
            "MessageGroupId Reason: {group} is not a valid message group id."
        )));
    }
    Ok(if fifo {
        if fields.group_id.is_none() {
            return Err(invalid(
                "The MessageGroupId parameter is required for FIFO topics",
            ));
        }
        match fields.dedup_id {
            Some(d) if !valid_token(d) => return Err(invalid("MessageDeduplicationId")),
            Some(d) => Some(d.to_string()),
            None if content_based => {
                Some(crate::services::sqs::sha256_hex(fields.message.as_bytes()))
            }
            None => {
                return Err(invalid(
                    "The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
                ));
            }
        }
    } else if fields.dedup_id.is_some() {
        return Err(invalid(
            "MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type",
        ));
    } else {
        None
    })
}

/// What fails a whole PublishBatch when one entry has it, as AWS answers (AWS observed, LocalStack
/// `test_publish_batch_exceptions`, `test_empty_or_wrong_message_attributes`): a bad message
/// attribute, a bad JSON structure, a FIFO entry without MessageGroupId or deduplication id.
/// Other faults of an entry (an empty message or subject) fail that entry only.
pub(super) fn check_batch_entry(
    fields: &PublishBatchEntryRef,
    fifo: bool,
    content_based: bool,
) -> Result<(), SnsError> {
    check_attributes(fields.attributes)?;
    check_structure(fields.message, fields.structure)?;
    check_fifo_ids(fields, fifo, content_based)?;
    Ok(())
}

/// The fields Publish and a PublishBatch entry share.
pub(super) struct PublishBatchEntryRef<'a> {
    pub(super) message: &'a str,
    pub(super) subject: Option<&'a str>,
    pub(super) structure: Option<&'a str>,
    pub(super) attributes: &'a BTreeMap<String, MessageAttributeValue>,
    pub(super) group_id: Option<&'a str>,
    pub(super) dedup_id: Option<&'a str>,
}
