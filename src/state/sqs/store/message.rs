//! A queued message, laid out to cost little beside its body: a queue holds a million of them.
//! The id is kept as the 16 bytes of its UUID, the body's MD5 as its 16 bytes, the body without
//! spare capacity, and what most messages lack (message attributes, a trace header, FIFO's
//! group, deduplication id, sequence number and visibility stamp) in one box made only when
//! needed. docs/benchmarks.md ("Memory at depth") has the figures.

use super::super::shapes::MessageAttributeValue;
use crate::engine::time::Millis;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// A message id: the UUID SQS gives as its 16 bytes, or any other text as it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageId {
    Uuid(uuid::Uuid),
    Text(Box<str>),
}

impl From<String> for MessageId {
    /// A lowercase hyphenated UUID is kept as its bytes (it prints back the same); any other
    /// text as it is.
    fn from(text: String) -> Self {
        let canonical = text.len() == 36 && !text.bytes().any(|b| b.is_ascii_uppercase());
        match uuid::Uuid::parse_str(&text) {
            Ok(id) if canonical => MessageId::Uuid(id),
            _ => MessageId::Text(text.into_boxed_str()),
        }
    }
}

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageId::Uuid(id) => fmt::Display::fmt(&id.hyphenated(), f),
            MessageId::Text(text) => f.write_str(text),
        }
    }
}

impl serde::Serialize for MessageId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for MessageId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(MessageId::from)
    }
}

/// A message body: text held without spare capacity, or an SNS notification signed when first
/// read.
pub use crate::body::Body;

/// What most messages lack, boxed apart so that a plain message does not carry its room.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Extra {
    pub(super) attributes: BTreeMap<String, MessageAttributeValue>,
    pub(super) trace_header: Option<String>,
    pub(super) group_id: Option<String>,
    pub(super) dedup_id: Option<String>,
    pub(super) sequence_number: Option<u128>,
    /// When `visible_at` was last set, in the queue's own count of such changes: orders FIFO
    /// groups whose messages became visible at the same instant (FIFO messages only).
    pub(super) visible_stamp: u64,
}

/// No message attributes.
static NO_ATTRIBUTES: BTreeMap<String, MessageAttributeValue> = BTreeMap::new();

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Message {
    pub id: MessageId,
    #[serde(with = "crate::body::stored")]
    pub body: Body,
    #[serde(with = "md5_hex")]
    pub(super) md5_of_body: [u8; 16],
    pub sender_id: Arc<str>,
    pub dead_letter_source_arn: Option<Arc<str>>,
    pub sent_at: Millis,
    pub visible_at: Millis,
    /// The receive that holds it: a nonce for its receipt handle and when it happened.
    pub receipt: Option<(u64, Millis)>,
    /// When it was first received; [`NEVER`] before.
    pub(super) first_received_at: Millis,
    pub receive_count: u32,
    /// Its send time is no earlier than that of every message before it in the queue that was
    /// in order too: retention expires these from the front (the others have an index).
    pub(super) in_order: bool,
    pub(super) extra: Option<Box<Extra>>,
}

/// A body's MD5 in a state snapshot: its lowercase hex, as the APIs write it.
mod md5_hex {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(md5: &[u8; 16], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(md5))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[u8; 16], D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
        let mut md5 = [0; 16];
        hex::decode_to_slice(&*text, &mut md5)
            .map_err(|_| serde::de::Error::custom("an MD5 is 32 hex digits"))?;
        Ok(md5)
    }
}

/// `first_received_at` of a message never received.
pub(super) const NEVER: Millis = Millis::MIN;

impl Message {
    /// The body's MD5 in lowercase hex (a notification not signed yet is signed now).
    pub fn md5_of_body(&self) -> String {
        crate::state::sqs::digest::lower_hex(&self.body.signed_md5().unwrap_or(self.md5_of_body))
    }

    pub fn first_received_at(&self) -> Option<Millis> {
        (self.first_received_at != NEVER).then_some(self.first_received_at)
    }

    pub fn attributes(&self) -> &BTreeMap<String, MessageAttributeValue> {
        self.extra
            .as_ref()
            .map_or(&NO_ATTRIBUTES, |x| &x.attributes)
    }

    /// The message attributes, taken out of the message.
    pub fn take_attributes(&mut self) -> BTreeMap<String, MessageAttributeValue> {
        self.extra
            .as_mut()
            .map(|x| std::mem::take(&mut x.attributes))
            .unwrap_or_default()
    }

    pub fn trace_header(&self) -> Option<&str> {
        self.extra.as_ref()?.trace_header.as_deref()
    }

    pub fn group_id(&self) -> Option<&str> {
        self.extra.as_ref()?.group_id.as_deref()
    }

    pub fn dedup_id(&self) -> Option<&str> {
        self.extra.as_ref()?.dedup_id.as_deref()
    }

    pub fn sequence_number(&self) -> Option<u128> {
        self.extra.as_ref()?.sequence_number
    }

    pub(super) fn visible_stamp(&self) -> u64 {
        self.extra.as_ref().map_or(0, |x| x.visible_stamp)
    }

    /// The box of what most messages lack, made when first needed.
    pub(super) fn extra_mut(&mut self) -> &mut Extra {
        self.extra.get_or_insert_with(Box::default)
    }

    /// Records a change of `visible_at` as the queue's `stamp`-th (FIFO messages).
    pub(super) fn set_stamp(&mut self, stamp: u64) {
        if let Some(x) = self.extra.as_mut() {
            x.visible_stamp = stamp;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_print_back_as_given() {
        for text in [
            "0f8fad5b-d9cb-469f-a165-70867728950e",
            "0F8FAD5B-D9CB-469F-A165-70867728950E",
            "0f8fad5bd9cb469fa16570867728950e",
            "m1",
            "",
        ] {
            assert_eq!(MessageId::from(text.to_string()).to_string(), text);
        }
        assert!(matches!(
            MessageId::from("0f8fad5b-d9cb-469f-a165-70867728950e".to_string()),
            MessageId::Uuid(_)
        ));
    }

    #[test]
    fn a_plain_message_stays_small() {
        // The body's allocation aside: docs/benchmarks.md ("Memory at depth").
        assert!(std::mem::size_of::<Message>() <= 152);
        assert_eq!(
            std::mem::size_of::<Option<Message>>(),
            std::mem::size_of::<Message>()
        );
    }
}
