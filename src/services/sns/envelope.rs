//! The JSON documents SNS delivers: Notification (HTTP/S, SQS, email-json, Lambda, ...),
//! SubscriptionConfirmation, UnsubscribeConfirmation.
//!
//! Pure functions from fields to compact JSON text with AWS's key order; depends only on
//! `signing` (and a notification's blank signature, `crate::body`). Deciding URLs, ids,
//! timestamps and the signature version is the caller's job.
//!
//! Shapes:
//! https://docs.aws.amazon.com/sns/latest/dg/sns-message-and-json-formats.html

use std::collections::BTreeMap;

use crate::body::BLANK;
use crate::signature::{SIGNATURE_LEN, SignatureVersion, Signer, string_to_sign};

/// What a `Notification` says.
pub struct NotificationFields<'a> {
    pub message_id: &'a str,
    pub topic_arn: &'a str,
    pub subject: Option<&'a str>,
    pub message: &'a str,
    /// `"2026-11-30T07:00:00.000Z"`
    pub timestamp: &'a str,
    /// FIFO topics: present, and then no signature fields at all.
    pub sequence_number: Option<&'a str>,
    pub unsubscribe_url: &'a str,
    pub signing_cert_url: &'a str,
    /// name → (Type, Value): Number stays a string, Binary is Base64; absent when empty.
    pub message_attributes: &'a BTreeMap<String, (String, String)>,
}

/// What a `SubscriptionConfirmation` or `UnsubscribeConfirmation` says.
pub struct ConfirmationFields<'a> {
    pub message_id: &'a str,
    pub token: &'a str,
    pub topic_arn: &'a str,
    pub subscribe_url: &'a str,
    pub timestamp: &'a str,
    pub signing_cert_url: &'a str,
    /// Used in the `UnsubscribeConfirmation` message text.
    pub subscription_arn: &'a str,
}

/// A `Notification` document. Standard topics:
/// `Type, MessageId, TopicArn, Subject?, Message, Timestamp, SignatureVersion, Signature,
/// SigningCertURL, UnsubscribeURL, MessageAttributes?`. FIFO topics (`sequence_number` set):
/// `Type, MessageId, SequenceNumber, TopicArn, Subject?, Message, Timestamp, UnsubscribeURL,
/// MessageAttributes?` — unsigned, so `signer` and `version` are unused.
pub fn notification(signer: &Signer, version: SignatureVersion, f: &NotificationFields) -> String {
    let (mut doc, slot) = notification_draft(version, f);
    if let Some(at) = slot {
        let text = notification_string_to_sign(f);
        doc.replace_range(at..at + SIGNATURE_LEN, &signer.sign(version, &text));
    }
    doc
}

/// The [`notification`] with its signature left [`BLANK`], and where the blank starts (`None`
/// for FIFO topics, which sign nothing): to be signed when first read (`crate::body`).
pub fn notification_draft(
    version: SignatureVersion,
    f: &NotificationFields,
) -> (String, Option<usize>) {
    let mut o = JsonObject::new();
    o.field("Type", "Notification");
    o.field("MessageId", f.message_id);
    if let Some(seq) = f.sequence_number {
        o.field("SequenceNumber", seq);
    }
    o.field("TopicArn", f.topic_arn);
    if let Some(subject) = f.subject {
        o.field("Subject", subject);
    }
    o.field("Message", f.message);
    o.field("Timestamp", f.timestamp);
    let mut slot = None;
    if f.sequence_number.is_none() {
        o.field("SignatureVersion", version.as_str());
        o.field("Signature", BLANK);
        // The blank is Base64's padding character, which JSON writes as it is.
        slot = Some(o.buf.len() - 1 - SIGNATURE_LEN);
        o.field("SigningCertURL", f.signing_cert_url);
    }
    o.field("UnsubscribeURL", f.unsubscribe_url);
    if !f.message_attributes.is_empty() {
        let mut attrs = JsonObject::new();
        for (name, (data_type, value)) in f.message_attributes {
            let mut attr = JsonObject::new();
            attr.field("Type", data_type);
            attr.field("Value", value);
            attrs.raw(name, &attr.finish());
        }
        o.raw("MessageAttributes", &attrs.finish());
    }
    (o.finish(), slot)
}

/// A `SubscriptionConfirmation` document (sent at subscribe time).
pub fn subscription_confirmation(
    signer: &Signer,
    version: SignatureVersion,
    f: &ConfirmationFields,
) -> String {
    let message = format!(
        "You have chosen to subscribe to the topic {}.\nTo confirm the subscription, visit the SubscribeURL included in this message.",
        f.topic_arn
    );
    confirmation(signer, version, "SubscriptionConfirmation", &message, f)
}

/// An `UnsubscribeConfirmation` document (sent after the subscription is deleted; its
/// SubscribeURL and Token let the endpoint subscribe again).
pub fn unsubscribe_confirmation(
    signer: &Signer,
    version: SignatureVersion,
    f: &ConfirmationFields,
) -> String {
    let message = format!(
        "You have chosen to deactivate subscription {}.\nTo cancel this operation and restore the subscription, visit the SubscribeURL included in this message.",
        f.subscription_arn
    );
    confirmation(signer, version, "UnsubscribeConfirmation", &message, f)
}

/// Both confirmations share one shape: `Type, MessageId, Token, TopicArn, Message, SubscribeURL,
/// Timestamp, SignatureVersion, Signature, SigningCertURL`.
fn confirmation(
    signer: &Signer,
    version: SignatureVersion,
    kind: &str,
    message: &str,
    f: &ConfirmationFields,
) -> String {
    let text = confirmation_string_to_sign(kind, message, f);
    let mut o = JsonObject::new();
    o.field("Type", kind);
    o.field("MessageId", f.message_id);
    o.field("Token", f.token);
    o.field("TopicArn", f.topic_arn);
    o.field("Message", message);
    o.field("SubscribeURL", f.subscribe_url);
    o.field("Timestamp", f.timestamp);
    o.field("SignatureVersion", version.as_str());
    o.field("Signature", &signer.sign(version, &text));
    o.field("SigningCertURL", f.signing_cert_url);
    o.finish()
}

/// The string a `Notification` with these fields is signed over (`signing`).
fn notification_string_to_sign(f: &NotificationFields) -> String {
    crate::signature::notification_string_to_sign(
        f.message,
        f.message_id,
        f.subject,
        f.timestamp,
        f.topic_arn,
    )
}

/// Signed confirmation fields (docs/sns.md, "Signatures"): Message, MessageId, SubscribeURL,
/// Timestamp, Token, TopicArn, Type.
fn confirmation_string_to_sign(kind: &str, message: &str, f: &ConfirmationFields) -> String {
    string_to_sign(&[
        ("Message", Some(message)),
        ("MessageId", Some(f.message_id)),
        ("SubscribeURL", Some(f.subscribe_url)),
        ("Timestamp", Some(f.timestamp)),
        ("Token", Some(f.token)),
        ("TopicArn", Some(f.topic_arn)),
        ("Type", Some(kind)),
    ])
}

/// A compact JSON object written in insertion order (`serde_json::Map` would sort the keys).
struct JsonObject {
    buf: String,
}

impl JsonObject {
    fn new() -> Self {
        JsonObject {
            buf: String::from("{"),
        }
    }

    fn key(&mut self, name: &str) {
        if self.buf.len() > 1 {
            self.buf.push(',');
        }
        self.buf.push_str(&json_string(name));
        self.buf.push(':');
    }

    fn field(&mut self, name: &str, value: &str) {
        self.key(name);
        self.buf.push_str(&json_string(value));
    }

    /// `json` must already be valid JSON.
    fn raw(&mut self, name: &str, json: &str) {
        self.key(name);
        self.buf.push_str(json);
    }

    fn finish(mut self) -> String {
        self.buf.push('}');
        self.buf
    }
}

#[expect(clippy::expect_used, reason = "a str always serializes")]
fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("a str always serializes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use rsa::pkcs1v15::{Signature, VerifyingKey};
    use rsa::signature::Verifier as _;
    use serde_json::Value;

    const TOPIC: &str = "arn:aws:sns:us-east-1:000000000000:orders";
    const SUB: &str =
        "arn:aws:sns:us-east-1:000000000000:orders:2bcfbf39-05c3-41de-beaa-fcfcc21c8f55";
    const CERT_URL: &str = "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0123.pem";
    const UNSUB_URL: &str = "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-east-1:000000000000:orders:2bcfbf39-05c3-41de-beaa-fcfcc21c8f55";
    const SUB_URL: &str = "https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=arn:aws:sns:us-east-1:000000000000:orders&Token=2336412f37";

    fn no_attrs() -> &'static BTreeMap<String, (String, String)> {
        static EMPTY: BTreeMap<String, (String, String)> = BTreeMap::new();
        &EMPTY
    }

    fn fields<'a>(
        subject: Option<&'a str>,
        message: &'a str,
        attrs: &'a BTreeMap<String, (String, String)>,
    ) -> NotificationFields<'a> {
        NotificationFields {
            message_id: "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324",
            topic_arn: TOPIC,
            subject,
            message,
            timestamp: "2026-11-30T07:00:00.000Z",
            sequence_number: None,
            unsubscribe_url: UNSUB_URL,
            signing_cert_url: CERT_URL,
            message_attributes: attrs,
        }
    }

    fn confirmation_fields() -> ConfirmationFields<'static> {
        ConfirmationFields {
            message_id: "165545c9-2a5c-472c-8df2-7ff2be2b3b1b",
            token: "2336412f37",
            topic_arn: TOPIC,
            subscribe_url: SUB_URL,
            timestamp: "2026-11-30T07:00:00.000Z",
            signing_cert_url: CERT_URL,
            subscription_arn: SUB,
        }
    }

    fn signature_of(doc: &str) -> String {
        let v: Value = serde_json::from_str(doc).unwrap();
        v["Signature"].as_str().unwrap().to_owned()
    }

    /// What a subscriber does (AWS's documented recipe): decode the JSON, pick the fields for the
    /// message type, rebuild "name\nvalue\n" in that (already sorted) order from the decoded values,
    /// fetch the certificate, verify SHA1withRSA or SHA256withRSA per SignatureVersion.
    fn verify_like_a_subscriber(doc: &str, cert_pem: &str) {
        check_like_a_subscriber(doc, cert_pem)
            .unwrap_or_else(|e| panic!("signature does not verify: {e}\n{doc}"));
    }

    fn check_like_a_subscriber(doc: &str, cert_pem: &str) -> Result<(), rsa::signature::Error> {
        let v: Value = serde_json::from_str(doc).unwrap();
        let names: &[&str] = match v["Type"].as_str().unwrap() {
            "Notification" => &[
                "Message",
                "MessageId",
                "Subject",
                "Timestamp",
                "TopicArn",
                "Type",
            ],
            "SubscriptionConfirmation" | "UnsubscribeConfirmation" => &[
                "Message",
                "MessageId",
                "SubscribeURL",
                "Timestamp",
                "Token",
                "TopicArn",
                "Type",
            ],
            other => panic!("unexpected Type {other}"),
        };
        let mut text = String::new();
        for name in names {
            if let Some(value) = v.get(*name) {
                text.push_str(&format!("{name}\n{}\n", value.as_str().unwrap()));
            }
        }
        let public = super::super::signing::tests::certificate_public_key(cert_pem);
        let sig_bytes = base64::engine::general_purpose::STANDARD
            .decode(v["Signature"].as_str().unwrap())
            .unwrap();
        let sig = Signature::try_from(sig_bytes.as_slice()).unwrap();
        match v["SignatureVersion"].as_str().unwrap() {
            "1" => VerifyingKey::<sha1::Sha1>::new(public).verify(text.as_bytes(), &sig),
            "2" => VerifyingKey::<sha2::Sha256>::new(public).verify(text.as_bytes(), &sig),
            other => panic!("unexpected SignatureVersion {other}"),
        }
    }

    #[test]
    fn strings_to_sign_per_message_type() {
        let mut attrs = BTreeMap::new();
        attrs.insert("a".to_owned(), ("String".to_owned(), "b".to_owned()));
        let with_subject = fields(Some("S"), "M", &attrs);
        assert_eq!(
            notification_string_to_sign(&with_subject),
            concat!(
                "Message\nM\nMessageId\n22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324\nSubject\nS\n",
                "Timestamp\n2026-11-30T07:00:00.000Z\n",
                "TopicArn\narn:aws:sns:us-east-1:000000000000:orders\nType\nNotification\n"
            )
        );
        let without_subject = fields(None, "M", no_attrs());
        assert_eq!(
            notification_string_to_sign(&without_subject),
            concat!(
                "Message\nM\nMessageId\n22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324\n",
                "Timestamp\n2026-11-30T07:00:00.000Z\n",
                "TopicArn\narn:aws:sns:us-east-1:000000000000:orders\nType\nNotification\n"
            )
        );
        for kind in ["SubscriptionConfirmation", "UnsubscribeConfirmation"] {
            let want = format!(
                "Message\nhi\nMessageId\n165545c9-2a5c-472c-8df2-7ff2be2b3b1b\nSubscribeURL\n{SUB_URL}\n\
                 Timestamp\n2026-11-30T07:00:00.000Z\nToken\n2336412f37\nTopicArn\n{TOPIC}\nType\n{kind}\n"
            );
            assert_eq!(
                confirmation_string_to_sign(kind, "hi", &confirmation_fields()),
                want
            );
        }
    }

    #[test]
    fn notification_key_order_matches_aws() {
        let signer = Signer::load();
        let doc = notification(
            &signer,
            SignatureVersion::V1,
            &fields(Some("Order placed"), "hello", no_attrs()),
        );
        let sig = signature_of(&doc);
        let want = format!(
            concat!(
                r#"{{"Type":"Notification","MessageId":"22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324","#,
                r#""TopicArn":"arn:aws:sns:us-east-1:000000000000:orders","Subject":"Order placed","Message":"hello","#,
                r#""Timestamp":"2026-11-30T07:00:00.000Z","SignatureVersion":"1","Signature":"{}","#,
                r#""SigningCertURL":"{}","UnsubscribeURL":"{}"}}"#
            ),
            sig, CERT_URL, UNSUB_URL
        );
        assert_eq!(doc, want);
    }

    #[test]
    fn notification_without_subject_has_no_subject_key_and_attributes_last() {
        let signer = Signer::load();
        let mut attrs = BTreeMap::new();
        attrs.insert(
            "price".to_owned(),
            ("Number".to_owned(), "99.12".to_owned()),
        );
        attrs.insert("blob".to_owned(), ("Binary".to_owned(), "AgME".to_owned()));
        attrs.insert(
            "store".to_owned(),
            ("String".to_owned(), "example_corp".to_owned()),
        );
        let doc = notification(
            &signer,
            SignatureVersion::V2,
            &fields(None, "hello", &attrs),
        );
        let sig = signature_of(&doc);
        let want = format!(
            concat!(
                r#"{{"Type":"Notification","MessageId":"22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324","#,
                r#""TopicArn":"arn:aws:sns:us-east-1:000000000000:orders","Message":"hello","#,
                r#""Timestamp":"2026-11-30T07:00:00.000Z","SignatureVersion":"2","Signature":"{}","#,
                r#""SigningCertURL":"{}","UnsubscribeURL":"{}","#,
                r#""MessageAttributes":{{"blob":{{"Type":"Binary","Value":"AgME"}},"price":{{"Type":"Number","Value":"99.12"}},"store":{{"Type":"String","Value":"example_corp"}}}}}}"#
            ),
            sig, CERT_URL, UNSUB_URL
        );
        assert_eq!(doc, want);
        verify_like_a_subscriber(&doc, signer.certificate_pem());
    }

    #[test]
    fn fifo_notification_is_unsigned_and_carries_sequence_number() {
        let signer = Signer::load();
        let mut attrs = BTreeMap::new();
        attrs.insert("k".to_owned(), ("String".to_owned(), "v".to_owned()));
        let mut f = fields(Some("s"), "Test", &attrs);
        f.sequence_number = Some("10000000000000003000");
        let doc = notification(&signer, SignatureVersion::V2, &f);
        let want = format!(
            concat!(
                r#"{{"Type":"Notification","MessageId":"22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324","SequenceNumber":"10000000000000003000","#,
                r#""TopicArn":"arn:aws:sns:us-east-1:000000000000:orders","Subject":"s","Message":"Test","#,
                r#""Timestamp":"2026-11-30T07:00:00.000Z","UnsubscribeURL":"{}","#,
                r#""MessageAttributes":{{"k":{{"Type":"String","Value":"v"}}}}}}"#
            ),
            UNSUB_URL
        );
        assert_eq!(doc, want);
        let v: Value = serde_json::from_str(&doc).unwrap();
        for absent in ["SignatureVersion", "Signature", "SigningCertURL"] {
            assert!(v.get(absent).is_none(), "{absent}");
        }
    }

    const SUBSCRIBE_MESSAGE: &str = r"You have chosen to subscribe to the topic arn:aws:sns:us-east-1:000000000000:orders.\nTo confirm the subscription, visit the SubscribeURL included in this message.";
    const UNSUBSCRIBE_MESSAGE: &str = r"You have chosen to deactivate subscription arn:aws:sns:us-east-1:000000000000:orders:2bcfbf39-05c3-41de-beaa-fcfcc21c8f55.\nTo cancel this operation and restore the subscription, visit the SubscribeURL included in this message.";

    /// `doc` is the confirmation document `kind` AWS writes, with `message` (JSON-escaped) and
    /// signature version `version`.
    fn assert_confirmation(doc: &str, kind: &str, message: &str, version: &str) {
        let want = format!(
            concat!(
                r#"{{"Type":"{}","MessageId":"165545c9-2a5c-472c-8df2-7ff2be2b3b1b","Token":"2336412f37","#,
                r#""TopicArn":"arn:aws:sns:us-east-1:000000000000:orders","#,
                r#""Message":"{}","#,
                r#""SubscribeURL":"{}","Timestamp":"2026-11-30T07:00:00.000Z","SignatureVersion":"{}","Signature":"{}","SigningCertURL":"{}"}}"#
            ),
            kind,
            message,
            SUB_URL,
            version,
            signature_of(doc),
            CERT_URL
        );
        assert_eq!(doc, want);
    }

    #[test]
    fn subscription_confirmation_shape() {
        let signer = Signer::load();
        let doc = subscription_confirmation(&signer, SignatureVersion::V1, &confirmation_fields());
        assert_confirmation(&doc, "SubscriptionConfirmation", SUBSCRIBE_MESSAGE, "1");
    }

    #[test]
    fn unsubscribe_confirmation_shape() {
        let signer = Signer::load();
        let doc = unsubscribe_confirmation(&signer, SignatureVersion::V2, &confirmation_fields());
        assert_confirmation(&doc, "UnsubscribeConfirmation", UNSUBSCRIBE_MESSAGE, "2");
    }

    #[test]
    fn subscribers_can_verify_every_document_type_and_version() {
        let signer = Signer::load();
        let cert = signer.certificate_pem();
        for version in [SignatureVersion::V1, SignatureVersion::V2] {
            verify_like_a_subscriber(
                &notification(&signer, version, &fields(Some("subj"), "body", no_attrs())),
                cert,
            );
            verify_like_a_subscriber(
                &notification(&signer, version, &fields(None, "body", no_attrs())),
                cert,
            );
            verify_like_a_subscriber(
                &subscription_confirmation(&signer, version, &confirmation_fields()),
                cert,
            );
            verify_like_a_subscriber(
                &unsubscribe_confirmation(&signer, version, &confirmation_fields()),
                cert,
            );
        }
    }

    #[test]
    fn tampered_document_fails_verification() {
        let signer = Signer::load();
        let doc = notification(
            &signer,
            SignatureVersion::V1,
            &fields(None, "pay 10", no_attrs()),
        );
        check_like_a_subscriber(&doc, signer.certificate_pem()).unwrap();
        let tampered = doc.replace("pay 10", "pay 99");
        assert!(check_like_a_subscriber(&tampered, signer.certificate_pem()).is_err());
    }

    #[test]
    fn messages_are_json_escaped_and_signed_unescaped() {
        let signer = Signer::load();
        let message = "say \"hi\"\nback\\slash\ttab \u{1} ünïcödé 😀 </script>";
        let subject = "quote \" and ü";
        let doc = notification(
            &signer,
            SignatureVersion::V2,
            &fields(Some(subject), message, no_attrs()),
        );
        assert!(
            doc.contains(r#""Message":"say \"hi\"\nback\\slash\ttab \u0001 ünïcödé 😀 </script>""#),
            "{doc}"
        );
        assert!(doc.contains(r#""Subject":"quote \" and ü""#), "{doc}");
        assert!(!doc.contains('\n'), "compact, one line");
        let v: Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(v["Message"], message);
        assert_eq!(v["Subject"], subject);
        verify_like_a_subscriber(&doc, signer.certificate_pem());

        // the same holds for attribute names and values
        let mut attrs = BTreeMap::new();
        attrs.insert(
            "na\"me".to_owned(),
            ("String".to_owned(), "line\nbreak ✓".to_owned()),
        );
        let doc = notification(&signer, SignatureVersion::V1, &fields(None, "m", &attrs));
        let v: Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(v["MessageAttributes"]["na\"me"]["Value"], "line\nbreak ✓");
        verify_like_a_subscriber(&doc, signer.certificate_pem());
    }

    #[test]
    fn signature_ignores_unsigned_fields() {
        let signer = Signer::load();
        let mut attrs = BTreeMap::new();
        attrs.insert("a".to_owned(), ("String".to_owned(), "b".to_owned()));
        let plain = fields(None, "same", no_attrs());
        let mut other = fields(None, "same", &attrs);
        other.unsubscribe_url = "https://elsewhere/";
        other.signing_cert_url = "https://elsewhere/cert.pem";
        assert_eq!(
            signature_of(&notification(&signer, SignatureVersion::V1, &plain)),
            signature_of(&notification(&signer, SignatureVersion::V1, &other))
        );
    }
}
