//! The checks of what a message carries: its characters, its message attributes (names, types,
//! values) and FIFO tokens (MessageGroupId, MessageDeduplicationId, ReceiveRequestAttemptId).
//! Pure: it imports no operation and no state.

use super::SqsError;
use super::shapes::MessageAttributeValue;
use crate::error::AwsError;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use std::collections::BTreeMap;

/// The characters SQS accepts: #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF.
/// (The quotas page says others are rejected; the API reference says replaced. switchyard rejects.)
const ALLOWED: &str = "#x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF";

/// The first character of `text` outside [`ALLOWED`], as its code point.
fn disallowed(text: &str) -> Option<u32> {
    let allowed = |c: u32| {
        c == 0x9
            || c == 0xA
            || c == 0xD
            || (0x20..=0xD7FF).contains(&c)
            || (0xE000..=0xFFFD).contains(&c)
            || c >= 0x10000
    };
    text.chars().map(u32::from).find(|&c| !allowed(c))
}

/// A message body's characters: one outside the set is InvalidMessageContents.
pub(super) fn check_characters(text: &str) -> Result<(), SqsError> {
    disallowed(text).map_or(Ok(()), |c| Err(invalid_character(c)))
}

/// AWS's refusal of a message body holding `code` (a character, or a byte that is no UTF-8).
fn invalid_character(code: u32) -> SqsError {
    SqsError::InvalidMessageContents(format!(
        "Invalid binary character '#x{code:X}' was found in the message body, the set of allowed characters is {ALLOWED}"
    ))
}

/// The refusal of a Query `parameter` whose value is not UTF-8 once percent-decoded, `byte` being
/// the first that breaks it: a message body (`MessageBody`, `SendMessageBatchRequestEntry.N.MessageBody`)
/// is refused as a body with a character outside the allowed set, anything else as an invalid
/// value. Storing it with U+FFFD in place of the bytes would hand back another message.
pub fn not_utf8(parameter: &str, byte: u8) -> AwsError {
    if parameter == "MessageBody" || parameter.ends_with(".MessageBody") {
        return invalid_character(u32::from(byte)).into();
    }
    SqsError::InvalidParameterValue(format!(
        "Value for parameter {parameter} is invalid. Reason: it is not UTF-8 (byte '#x{byte:X}')."
    ))
    .into()
}

/// Letters and digits of any script (AWS accepts `attr.1øßä`), `_`, `-` and `.`.
fn valid_attribute_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    (1..=256).contains(&name.chars().count())
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || "_-.".contains(c))
        && !lower.starts_with("aws.")
        && !lower.starts_with("amazon.")
        && !name.starts_with('.')
        && !name.ends_with('.')
        && !name.contains("..")
}

/// Validates message attributes; answers the bytes they count toward the size limit.
pub(super) fn check_attributes(
    attributes: &BTreeMap<String, MessageAttributeValue>,
) -> Result<usize, SqsError> {
    if attributes.len() > 10 {
        return Err(SqsError::InvalidParameterValue(format!(
            "Number of message attributes [{}] exceeds the allowed maximum [10].",
            attributes.len()
        )));
    }
    let mut size = 0;
    for (name, value) in attributes {
        if !valid_attribute_name(name) {
            return Err(SqsError::InvalidParameterValue(format!(
                "Message (user) attribute name '{name}' is invalid. Attribute names can contain only A-Z, a-z, 0-9, \
                 underscore (_), hyphen (-), and period (.), must not start or end with a period, must not have \
                 consecutive periods, must not start with AWS. or Amazon., and can be up to 256 characters long."
            )));
        }
        let base = value.data_type.split('.').next().unwrap_or_default();
        let label_ok = value.data_type.len() <= 256 && !value.data_type.ends_with('.');
        let empty = || {
            SqsError::InvalidParameterValue(format!(
                "Message (user) attribute '{name}' must contain a non-empty value of type '{base}'."
            ))
        };
        match base {
            "String" | "Number" if label_ok => {
                let text = value
                    .string_value
                    .as_deref()
                    .filter(|s| !s.is_empty())
                    .ok_or_else(empty)?;
                // A value's characters are the body's, but AWS refuses them with
                // InvalidParameterValue, the code of every other attribute error.
                if let Some(c) = disallowed(text) {
                    return Err(SqsError::InvalidParameterValue(format!(
                        "Invalid binary character '#x{c:X}' was found in the message attribute '{name}' value, the set of allowed characters is {ALLOWED}"
                    )));
                }
                if base == "Number" && text.trim().parse::<f64>().map_or(true, |n| !n.is_finite()) {
                    return Err(SqsError::InvalidParameterValue(format!(
                        "Can't cast the value of message (user) attribute '{name}' to a number."
                    )));
                }
                size += text.len();
            }
            "Binary" if label_ok => {
                let raw = value
                    .binary_value
                    .as_deref()
                    .and_then(|b| B64.decode(b).ok())
                    .filter(|b| !b.is_empty());
                size += raw.ok_or_else(empty)?.len();
            }
            _ => {
                return Err(SqsError::InvalidParameterValue(format!(
                    "The type of message (user) attribute '{name}' is invalid. You must use only the following \
                     supported type prefixes: Binary, Number, String."
                )));
            }
        }
        size += name.len() + value.data_type.len();
    }
    Ok(size)
}

fn valid_fifo_token(text: &str) -> bool {
    (1..=128).contains(&text.len())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b.is_ascii_punctuation())
}

/// A FIFO token the request may give as parameter `name` (MessageGroupId,
/// MessageDeduplicationId, ReceiveRequestAttemptId), refused in AWS's words when malformed.
pub(super) fn check_fifo_token(name: &str, token: Option<&str>) -> Result<(), SqsError> {
    match token {
        Some(t) if !valid_fifo_token(t) => Err(invalid_value(
            name,
            t,
            &format!(
                "{name} can only include alphanumeric and punctuation characters. 1 to 128 in length."
            ),
        )),
        _ => Ok(()),
    }
}

/// SQS's InvalidParameterValue for `value` of parameter `name`, with the reason.
pub(super) fn invalid_value(name: &str, value: impl std::fmt::Display, reason: &str) -> SqsError {
    SqsError::InvalidParameterValue(format!(
        "Value {value} for parameter {name} is invalid. Reason: {reason}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_names_follow_the_rules() {
        for ok in ["a", "order.id", "x-y_z", &"n".repeat(256)] {
            assert!(valid_attribute_name(ok), "{ok}");
        }
        for bad in [
            "",
            ".a",
            "a.",
            "a..b",
            "AWS.x",
            "amazon.y",
            "sp ace",
            &"n".repeat(257),
        ] {
            assert!(!valid_attribute_name(bad), "{bad}");
        }
    }

    #[test]
    fn attribute_values_are_checked_by_type() {
        let one = |data_type: &str, s: Option<&str>, b: Option<&str>| {
            BTreeMap::from([(
                "a".to_string(),
                MessageAttributeValue {
                    data_type: data_type.into(),
                    string_value: s.map(str::to_string),
                    binary_value: b.map(str::to_string),
                },
            )])
        };
        assert!(check_attributes(&one("String", Some("x"), None)).is_ok());
        assert!(check_attributes(&one("Number.float", Some("1.5"), None)).is_ok());
        assert!(check_attributes(&one("Binary.png", None, Some("AAE="))).is_ok());
        assert!(check_attributes(&one("Number", Some("abc"), None)).is_err());
        assert!(check_attributes(&one("String", Some(""), None)).is_err());
        assert!(check_attributes(&one("Blob", Some("x"), None)).is_err());
        assert!(check_attributes(&one("Binary", None, Some("!!"))).is_err());
    }
}
