//! A message body as the engine carries it and a queue keeps it: text, or an SNS `Notification`
//! whose signature is made when the body is first read.
//!
//! An RSA-2048 signature takes a fraction of a millisecond, many times the rest of a publish. A
//! notification for an SQS subscription is therefore written with its signature left blank (the
//! signature's length is fixed, so the body's size is known) and signed the first time someone
//! reads it: a ReceiveMessage, outside the engine's lock, or any other reader. PKCS#1 v1.5
//! signatures are deterministic, so the text read is byte for byte the text signing at publish
//! would have made (docs/decisions.md, "Signed when first read").
//! A leaf: it depends only on `signature`.

use crate::signature::{self, SIGNATURE_LEN, SignatureVersion};
use md5::{Digest as _, Md5};
use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// A message body: its text, or a notification signed when first read.
#[derive(Clone)]
pub enum Body {
    Text(Box<str>),
    Unsigned(Arc<Unsigned>),
}

/// A `Notification` document whose `Signature` is still blank.
pub struct Unsigned {
    /// The document, with [`SIGNATURE_LEN`] characters of blank at `slot`.
    draft: Box<str>,
    slot: usize,
    version: SignatureVersion,
    /// The signature and the MD5 of the signed text, once made.
    signed: OnceLock<(Box<str>, [u8; 16])>,
}

impl Unsigned {
    /// The signature and the signed text's MD5, made now if not yet.
    fn signed(&self) -> &(Box<str>, [u8; 16]) {
        self.signed.get_or_init(|| {
            let signature = signature::sign_notification(&self.draft, self.version)
                .filter(|s| s.len() == SIGNATURE_LEN)
                // Only a draft that is no Notification gets here, which `Body::unsigned` rules
                // out; its blank stays rather than a body of another length.
                .unwrap_or_else(|| self.draft[self.slot..self.slot + SIGNATURE_LEN].to_string());
            let (head, tail) = self.parts();
            let mut md5 = Md5::new();
            for part in [head, &signature, tail] {
                md5.update(part.as_bytes());
            }
            (signature.into_boxed_str(), md5.finalize().into())
        })
    }

    /// The document before and after the signature's place.
    fn parts(&self) -> (&str, &str) {
        (
            &self.draft[..self.slot],
            &self.draft[self.slot + SIGNATURE_LEN..],
        )
    }

    fn text(&self) -> String {
        let (head, tail) = self.parts();
        [head, &self.signed().0, tail].concat()
    }
}

/// What fills a signature's place until it is made.
pub const BLANK: &str = {
    const BYTES: [u8; SIGNATURE_LEN] = [b'='; SIGNATURE_LEN];
    match std::str::from_utf8(&BYTES) {
        Ok(blank) => blank,
        Err(_) => panic!("'=' is ASCII"),
    }
};

impl Body {
    /// The notification `draft`, whose signature's place is `BLANK` at `slot`, to be signed
    /// under `version` when first read. A draft that is not such a Notification stays text.
    pub fn unsigned(draft: String, slot: usize, version: SignatureVersion) -> Body {
        // A state file may say anything: a place past the end is no blank either.
        let end = slot.saturating_add(SIGNATURE_LEN);
        let blank = draft.get(slot..end) == Some(BLANK);
        if !blank {
            return Body::from(draft);
        }
        Body::Unsigned(Arc::new(Unsigned {
            draft: draft.into_boxed_str(),
            slot,
            version,
            signed: OnceLock::new(),
        }))
    }

    /// Its length in bytes, known without signing.
    pub fn len(&self) -> usize {
        match self {
            Body::Text(text) => text.len(),
            Body::Unsigned(u) => u.draft.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Its text, signed now if it was not yet (a fraction of a millisecond: not under the
    /// engine's lock on a busy path).
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Body::Text(text) => Cow::Borrowed(text),
            Body::Unsigned(u) => Cow::Owned(u.text()),
        }
    }

    /// Whether reading it would sign it now.
    pub fn needs_signing(&self) -> bool {
        matches!(self, Body::Unsigned(u) if u.signed.get().is_none())
    }

    /// Signs it now if it was not yet (for a caller that signs outside the engine's lock, ahead
    /// of reading).
    pub fn sign(&self) {
        if let Body::Unsigned(u) = self {
            u.signed();
        }
    }

    /// The MD5 of its text when it is a notification signed when read (made now if not yet);
    /// `None` for text, whose holder keeps its own.
    pub fn signed_md5(&self) -> Option<[u8; 16]> {
        match self {
            Body::Text(_) => None,
            Body::Unsigned(u) => Some(u.signed().1),
        }
    }
}

impl From<String> for Body {
    fn from(text: String) -> Self {
        Body::Text(text.into_boxed_str())
    }
}

impl From<&str> for Body {
    fn from(text: &str) -> Self {
        Body::Text(text.into())
    }
}

impl From<Body> for String {
    fn from(body: Body) -> Self {
        match body {
            Body::Text(text) => text.into_string(),
            Body::Unsigned(u) => u.text(),
        }
    }
}

impl PartialEq for Body {
    /// Equal texts; two unsigned bodies compare without signing.
    fn eq(&self, other: &Body) -> bool {
        match (self, other) {
            (Body::Text(a), Body::Text(b)) => a == b,
            (Body::Unsigned(a), Body::Unsigned(b)) => {
                (&a.draft, a.slot, a.version) == (&b.draft, b.slot, b.version)
            }
            _ => self.text() == other.text(),
        }
    }
}

impl Eq for Body {}

impl PartialEq<&str> for Body {
    fn eq(&self, other: &&str) -> bool {
        self.text() == *other
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Body::Text(text) => fmt::Debug::fmt(text, f),
            Body::Unsigned(u) => f
                .debug_struct("Unsigned")
                .field("draft", &u.draft)
                .field("version", &u.version)
                .finish_non_exhaustive(),
        }
    }
}

/// How a body is kept in a snapshot: text is a string; an unsigned notification stays unsigned
/// (its draft, the signature's place and version), so that writing one signs nothing and the
/// same state always writes the same bytes.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
enum Stored<'a> {
    Text(Cow<'a, str>),
    Unsigned {
        unsigned: Cow<'a, str>,
        signature_at: usize,
        signature_version: SignatureVersion,
    },
}

/// A body in a snapshot (`#[serde(with = "crate::body::stored")]`): see [`Stored`].
pub mod stored {
    use super::*;

    pub fn serialize<S: serde::Serializer>(body: &Body, s: S) -> Result<S::Ok, S::Error> {
        match body {
            Body::Text(text) => s.serialize_str(text),
            Body::Unsigned(u) => serde::Serialize::serialize(
                &Stored::Unsigned {
                    unsigned: Cow::Borrowed(&u.draft),
                    signature_at: u.slot,
                    signature_version: u.version,
                },
                s,
            ),
        }
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Body, D::Error> {
        serde::Deserialize::deserialize(d)
    }
}

/// As a reader sees it: its text (signed now if it was not yet).
impl serde::Serialize for Body {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

/// Its text, or its [`Stored`] form.
impl<'de> serde::Deserialize<'de> for Body {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Stored::deserialize(d)? {
            Stored::Text(text) => Body::from(text.into_owned()),
            Stored::Unsigned {
                unsigned,
                signature_at,
                signature_version,
            } => Body::unsigned(unsigned.into_owned(), signature_at, signature_version),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A Notification as SNS writes it for an SQS subscription, signed now or left blank.
    fn notification(signature: &str) -> String {
        format!(
            r#"{{"Type":"Notification","MessageId":"5a1b","TopicArn":"arn:aws:sns:us-east-1:000000000000:t","Subject":"hi \"you\"","Message":"héllo\nworld","Timestamp":"2026-12-04T00:00:00.000Z","SignatureVersion":"1","Signature":"{signature}","SigningCertURL":"http://localhost/cert.pem","UnsubscribeURL":"http://localhost/?Action=Unsubscribe"}}"#
        )
    }

    fn slot(doc: &str) -> usize {
        doc.find(BLANK).unwrap()
    }

    fn signed_now() -> String {
        let text = crate::signature::string_to_sign(&[
            ("Message", Some("héllo\nworld")),
            ("MessageId", Some("5a1b")),
            ("Subject", Some("hi \"you\"")),
            ("Timestamp", Some("2026-12-04T00:00:00.000Z")),
            ("TopicArn", Some("arn:aws:sns:us-east-1:000000000000:t")),
            ("Type", Some("Notification")),
        ]);
        notification(&crate::signature::SIGNER.sign(SignatureVersion::V1, &text))
    }

    #[test]
    fn a_body_signed_when_read_is_the_body_signed_when_written() {
        let draft = notification(BLANK);
        let body = Body::unsigned(draft.clone(), slot(&draft), SignatureVersion::V1);
        assert_eq!(body.len(), signed_now().len(), "the size is known unsigned");
        assert!(body.needs_signing());
        assert_eq!(body.text(), signed_now());
        assert!(!body.needs_signing());
        let md5: [u8; 16] = Md5::digest(signed_now().as_bytes()).into();
        assert_eq!(body.signed_md5(), Some(md5));
        assert_eq!(String::from(body), signed_now());
    }

    #[test]
    fn an_unsigned_body_stays_unsigned_in_a_snapshot() {
        let draft = notification(BLANK);
        let body = Body::unsigned(draft.clone(), slot(&draft), SignatureVersion::V2);
        body.sign();
        let mut written = Vec::new();
        stored::serialize(&body, &mut serde_json::Serializer::new(&mut written)).unwrap();
        let written = String::from_utf8(written).unwrap();
        assert!(written.contains(BLANK), "{written}");
        let read: Body = serde_json::from_str(&written).unwrap();
        assert!(read.needs_signing());
        assert_eq!(read, body);
        assert_eq!(read.text(), body.text());
        // Text is written as the string it is, as before unsigned bodies existed.
        let text: Body = serde_json::from_str(r#""plain""#).unwrap();
        assert_eq!(text, "plain");
        assert_eq!(serde_json::to_string(&text).unwrap(), r#""plain""#);
        // A reader sees the signed text.
        assert_eq!(serde_json::to_value(&body).unwrap(), json!(body.text()));
    }

    #[test]
    fn a_draft_without_its_blank_stays_text() {
        let body = Body::unsigned("{}".into(), 0, SignatureVersion::V1);
        assert!(matches!(body, Body::Text(_)));
        let draft = notification(BLANK);
        let body = Body::unsigned(draft.clone(), slot(&draft) + 1, SignatureVersion::V1);
        assert_eq!(body, draft.as_str());
        // From a state file that says anything.
        let file =
            json!({"unsigned": draft, "signature_at": usize::MAX, "signature_version": "V1"});
        let read: Body = serde_json::from_value(file).unwrap();
        assert_eq!(read, draft.as_str());
    }
}
