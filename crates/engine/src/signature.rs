//! SNS message signatures: one RSA key whose certificate the emulator serves at SigningCertURL.
//!
//! Owns the committed test key (`signature/cert/`), the string-to-sign rule and the two signature
//! versions, signed with the system's OpenSSL (docs/decisions.md, "SNS signatures"). Knows
//! nothing of HTTP or the engine, and of JSON only enough to sign a Notification written without
//! its signature ([`sign_notification`]). A leaf below the services, so that a message body held
//! by the engine or a queue can be signed when it is first read (`crate::body`).
//!
//! Rules: https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html
//! PKCS#1 v1.5 signatures are deterministic, so the same message
//! always gets the same signature bytes.

use base64::Engine as _;
use openssl::hash::MessageDigest;
use openssl::pkey::{PKey, Private};
use openssl::x509::X509;
use sha2::{Digest as _, Sha256};
use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, PoisonError};

/// The committed key: a well-known test key, not a secret (see `cert/README.md`).
const KEY_PEM: &str = include_str!("signature/cert/signing-key.pem");
/// Self-signed certificate for [`KEY_PEM`], served at `SigningCertURL`.
const CERT_PEM: &str = include_str!("signature/cert/signing-cert.pem");

/// Signatures the cache keeps in each of its two generations: a signature made ahead outlives
/// at least this many later ones, far more than the publishes in flight at once.
const RECENT: usize = 1024;

/// The topic attribute `SignatureVersion`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum SignatureVersion {
    /// `"1"`: SHA1withRSA, AWS's default.
    V1,
    /// `"2"`: SHA256withRSA.
    V2,
}

impl SignatureVersion {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "1" => Some(Self::V1),
            "2" => Some(Self::V2),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::V1 => "1",
            Self::V2 => "2",
        }
    }

    fn digest(self) -> MessageDigest {
        match self {
            Self::V1 => MessageDigest::sha1(),
            Self::V2 => MessageDigest::sha256(),
        }
    }
}

/// A signed text in the cache: its version and the SHA-256 of the text (the texts themselves
/// can be 256 KiB messages).
type RecentKey = (SignatureVersion, [u8; 32]);

/// Signs SNS messages with the committed key.
pub struct Signer {
    key: PKey<Private>,
    certificate_name: String,
    /// Recent signatures: a publish fans out the same signed fields to every subscription (the
    /// subscription-specific fields are not signed), and Publish signs ahead, outside the engine's
    /// lock, for the fan-out under the lock to find.
    recent: Mutex<Recent>,
}

/// Two generations of signatures: when the current one is full it becomes the previous one, so
/// an entry is dropped only after [`RECENT`] newer ones.
#[derive(Default)]
struct Recent {
    current: HashMap<RecentKey, String>,
    previous: HashMap<RecentKey, String>,
}

impl Recent {
    fn get(&self, key: &RecentKey) -> Option<&String> {
        self.current.get(key).or_else(|| self.previous.get(key))
    }

    fn insert(&mut self, key: RecentKey, signature: String) {
        if self.current.len() >= RECENT {
            self.previous = std::mem::take(&mut self.current);
        }
        self.current.insert(key, signature);
    }
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signer")
            .field("certificate_name", &self.certificate_name)
            .finish_non_exhaustive()
    }
}

impl Signer {
    /// Parses the committed key and certificate. Panics only if the committed files are broken,
    /// which the unit tests rule out.
    pub fn load() -> Signer {
        let key = PKey::private_key_from_pem(KEY_PEM.as_bytes())
            .expect("committed SNS signing key is valid PKCS#8 PEM");
        let cert_der = X509::from_pem(CERT_PEM.as_bytes())
            .and_then(|cert| cert.to_der())
            .expect("committed SNS certificate is valid PEM");
        // AWS's names look like `SimpleNotificationService-9c6465fa7f48f5cacd23014631ec1136.pem`
        // (32 hex digits); ours are the first 16 bytes of the certificate's SHA-256, so the name
        // changes whenever the certificate does.
        let digest = Sha256::digest(&cert_der);
        let hex = hex::encode(&digest[..16]);
        Signer {
            key,
            certificate_name: format!("SimpleNotificationService-{hex}.pem"),
            recent: Mutex::new(Recent::default()),
        }
    }

    pub fn certificate_pem(&self) -> &str {
        CERT_PEM
    }

    /// The file name AWS uses: `SimpleNotificationService-<hex>.pem`.
    pub fn certificate_name(&self) -> &str {
        &self.certificate_name
    }

    /// Base64 signature of `string_to_sign` under `version` (RSASSA-PKCS1-v1_5), from the recent
    /// signatures when it was made lately.
    pub fn sign(&self, version: SignatureVersion, string_to_sign: &str) -> String {
        let key = (version, Sha256::digest(string_to_sign.as_bytes()).into());
        let recent = || self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(signature) = recent().get(&key) {
            return signature.clone();
        }
        // Signed without holding the cache's lock, so signatures are made in parallel.
        let signature = self.sign_uncached(version, string_to_sign);
        recent().insert(key, signature.clone());
        signature
    }

    /// Base64 signature of `string_to_sign`, made now (a fraction of a millisecond of RSA-2048).
    fn sign_uncached(&self, version: SignatureVersion, string_to_sign: &str) -> String {
        // OpenSSL fails here only when it cannot allocate; the key was checked when loaded.
        let bytes = openssl::sign::Signer::new(version.digest(), &self.key)
            .and_then(|mut signer| signer.sign_oneshot_to_vec(string_to_sign.as_bytes()))
            .expect("OpenSSL signs with the committed key");
        base64::engine::general_purpose::STANDARD.encode(bytes)
    }
}

/// The string AWS signs: for each (name, value) in `fields` that is present, `"name\nvalue\n"`,
/// names in byte order. Values are the original strings, not their JSON-escaped form.
pub fn string_to_sign(fields: &[(&str, Option<&str>)]) -> String {
    let mut present: Vec<(&str, &str)> = fields
        .iter()
        .filter_map(|&(name, value)| value.map(|v| (name, v)))
        .collect();
    present.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut out = String::with_capacity(present.iter().map(|(n, v)| n.len() + v.len() + 2).sum());
    for (name, value) in present {
        out.push_str(name);
        out.push('\n');
        out.push_str(value);
        out.push('\n');
    }
    out
}

/// The length of every signature's Base64 text: the committed key is RSA-2048, so a signature is
/// 256 bytes, 344 characters of Base64. A notification signed later keeps this many characters
/// for its signature, so that its size is known before.
pub const SIGNATURE_LEN: usize = 344;

/// The signed fields of a `Notification` document, read back from its JSON.
#[derive(serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct SignedFields {
    #[serde(rename = "Type")]
    kind: String,
    message_id: String,
    topic_arn: String,
    subject: Option<String>,
    message: String,
    timestamp: String,
}

/// The signature of the `Notification` document `doc` (its `Signature` may hold anything):
/// the string to sign is made from the document's own fields, so it is the signature the
/// document would have had if signed when written. `None` when `doc` is no Notification.
pub fn sign_notification(doc: &str, version: SignatureVersion) -> Option<String> {
    let f: SignedFields = serde_json::from_str(doc).ok()?;
    if f.kind != "Notification" {
        return None;
    }
    let text = notification_string_to_sign(
        &f.message,
        &f.message_id,
        f.subject.as_deref(),
        &f.timestamp,
        &f.topic_arn,
    );
    Some(SIGNER.sign(version, &text))
}

/// The string a `Notification` is signed over (docs/sns.md, "Signatures"): Message, MessageId,
/// Subject (if present), Timestamp, TopicArn, Type. MessageAttributes, UnsubscribeURL and
/// SigningCertURL are not signed.
pub fn notification_string_to_sign(
    message: &str,
    message_id: &str,
    subject: Option<&str>,
    timestamp: &str,
    topic_arn: &str,
) -> String {
    string_to_sign(&[
        ("Message", Some(message)),
        ("MessageId", Some(message_id)),
        ("Subject", subject),
        ("Timestamp", Some(timestamp)),
        ("TopicArn", Some(topic_arn)),
        ("Type", Some("Notification")),
    ])
}

/// The one signing key of the emulator (its certificate is served at SigningCertURL).
pub static SIGNER: LazyLock<Signer> = LazyLock::new(Signer::load);

/// The signer's tests, and with the `test-support` feature the helper the root crate's tests use
/// ([`tests::certificate_public_key`]).
#[cfg(any(test, feature = "test-support"))]
#[doc(hidden)]
pub mod tests {
    #[cfg(test)]
    use super::*;
    #[cfg(test)]
    use rsa::pkcs1v15::{Signature, VerifyingKey};
    #[cfg(test)]
    use rsa::pkcs8::DecodePrivateKey as _;
    use rsa::pkcs8::der::pem;
    use rsa::pkcs8::der::{Decode as _, Encode as _, Reader as _, SliceReader, asn1::AnyRef};
    use rsa::pkcs8::spki::SubjectPublicKeyInfoRef;
    #[cfg(test)]
    use rsa::signature::Verifier as _;
    #[cfg(test)]
    use sha1::Sha1;

    #[cfg(test)]
    fn b64(s: &str) -> Vec<u8> {
        base64::engine::general_purpose::STANDARD.decode(s).unwrap()
    }

    /// The public key inside the committed certificate, read the way a subscriber reads it:
    /// Certificate → tbsCertificate → subjectPublicKeyInfo (RFC 5280 §4.1).
    pub fn certificate_public_key(cert_pem: &str) -> rsa::PublicKey {
        let (_, der) = pem::decode_vec(cert_pem.as_bytes()).unwrap();
        let cert = AnyRef::from_der(&der).unwrap();
        let mut cert_fields = SliceReader::new(cert.value()).unwrap();
        let tbs: AnyRef<'_> = cert_fields.decode().unwrap();
        let mut r = SliceReader::new(tbs.value()).unwrap();
        // [0] version (present: v3), serialNumber, signature, issuer, validity, subject, spki
        for _ in 0..6 {
            let _: AnyRef<'_> = r.decode().unwrap();
        }
        let spki_any: AnyRef<'_> = r.decode().unwrap();
        let spki_der = spki_any.to_der().unwrap();
        let spki = SubjectPublicKeyInfoRef::from_der(&spki_der).unwrap();
        rsa::PublicKey::try_from(spki).unwrap()
    }

    #[test]
    fn committed_key_and_certificate_load_and_match() {
        let signer = Signer::load();
        let key = rsa::PrivateKey::from_pkcs8_pem(KEY_PEM).unwrap();
        assert_eq!(
            certificate_public_key(signer.certificate_pem()),
            *key.as_ref()
        );
        assert!(
            signer
                .certificate_pem()
                .starts_with("-----BEGIN CERTIFICATE-----\n")
        );
    }

    #[test]
    fn certificate_name_has_aws_shape() {
        let name = Signer::load().certificate_name().to_owned();
        let hex = name
            .strip_prefix("SimpleNotificationService-")
            .unwrap()
            .strip_suffix(".pem")
            .unwrap();
        assert_eq!(hex.len(), 32);
        assert!(
            hex.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        );
        assert_eq!(
            Signer::load().certificate_name(),
            name,
            "stable across loads"
        );
    }

    #[test]
    fn signature_version_round_trips() {
        for (s, v) in [("1", SignatureVersion::V1), ("2", SignatureVersion::V2)] {
            assert_eq!(SignatureVersion::parse(s), Some(v));
            assert_eq!(v.as_str(), s);
        }
        for bad in ["", "0", "3", " 1", "v1", "1.0"] {
            assert_eq!(SignatureVersion::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn string_to_sign_sorts_by_name_and_skips_absent() {
        type Fields<'a> = &'a [(&'a str, Option<&'a str>)];
        let cases: &[(Fields<'_>, &str)] = &[
            (&[], ""),
            (
                &[("Type", Some("Notification")), ("Message", Some("hi"))],
                "Message\nhi\nType\nNotification\n",
            ),
            (&[("Subject", None), ("Message", Some("m"))], "Message\nm\n"),
            // byte order: upper case before lower case, shorter prefix first
            (
                &[("b", Some("2")), ("B", Some("1")), ("Ba", Some("3"))],
                "B\n1\nBa\n3\nb\n2\n",
            ),
            // values are raw: newlines and quotes stay as they are
            (&[("Message", Some("a\n\"b\""))], "Message\na\n\"b\"\n"),
            (&[("Message", Some(""))], "Message\n\n"),
        ];
        for (fields, want) in cases {
            assert_eq!(string_to_sign(fields), *want, "{fields:?}");
        }
    }

    #[test]
    fn signatures_verify_with_the_certificate_key() {
        let signer = Signer::load();
        let public = certificate_public_key(signer.certificate_pem());
        let text = "Message\nhello ünïcödé\nMessageId\n1\nTimestamp\n2026-11-30T07:00:00.000Z\nTopicArn\narn\nType\nNotification\n";
        let v1 = b64(&signer.sign(SignatureVersion::V1, text));
        let v2 = b64(&signer.sign(SignatureVersion::V2, text));
        assert_eq!(v1.len(), 256);
        assert_eq!(v2.len(), 256);
        assert_ne!(v1, v2);

        let sha1_key = VerifyingKey::<Sha1>::new(public.clone());
        let sha256_key = VerifyingKey::<Sha256>::new(public);
        let sig1 = Signature::try_from(v1.as_slice()).unwrap();
        let sig2 = Signature::try_from(v2.as_slice()).unwrap();
        sha1_key.verify(text.as_bytes(), &sig1).unwrap();
        sha256_key.verify(text.as_bytes(), &sig2).unwrap();
        // each version uses its own digest, and a changed text fails
        assert!(sha256_key.verify(text.as_bytes(), &sig1).is_err());
        assert!(sha1_key.verify(text.as_bytes(), &sig2).is_err());
        assert!(sha1_key.verify(b"Message\nhello\n", &sig1).is_err());
    }

    /// The bytes are those of an independent implementation (the pure-Rust `rsa` crate, which
    /// signed them before OpenSSL did): PKCS#1 v1.5 leaves no choice.
    #[test]
    fn signatures_are_those_of_another_implementation() {
        let signer = Signer::load();
        let key = rsa::PrivateKey::from_pkcs8_pem(KEY_PEM).unwrap();
        let text = "Message\nhi\nType\nNotification\n";
        let sha1 = rsa::pkcs1v15::SigningKey::<Sha1>::new(key.clone());
        let sha256 = rsa::pkcs1v15::SigningKey::<Sha256>::new(key);
        use rsa::signature::{SignatureEncoding as _, Signer as _};
        assert_eq!(
            b64(&signer.sign(SignatureVersion::V1, text)),
            sha1.sign(text.as_bytes()).to_vec()
        );
        assert_eq!(
            b64(&signer.sign(SignatureVersion::V2, text)),
            sha256.sign(text.as_bytes()).to_vec()
        );
    }

    #[test]
    fn recent_signatures_outlive_a_generation() {
        let mut recent = Recent::default();
        let key = |n: usize| (SignatureVersion::V1, Sha256::digest(n.to_string()).into());
        for n in 0..=RECENT {
            recent.insert(key(n), n.to_string());
        }
        // the first generation is now the previous one: all of it is still found
        assert_eq!(recent.get(&key(0)).map(String::as_str), Some("0"));
        assert_eq!(recent.get(&key(RECENT)).map(String::as_str), Some("1024"));
        for n in RECENT + 1..2 * RECENT {
            recent.insert(key(n), n.to_string());
        }
        recent.insert(key(2 * RECENT), String::new());
        assert_eq!(recent.get(&key(0)), None, "dropped two generations later");
        assert!(recent.get(&key(RECENT)).is_some());
    }

    #[test]
    fn signatures_have_the_length_kept_for_them() {
        for version in [SignatureVersion::V1, SignatureVersion::V2] {
            assert_eq!(
                SIGNER.sign(version, "Type\nNotification\n").len(),
                SIGNATURE_LEN
            );
        }
    }

    #[test]
    fn signatures_are_deterministic() {
        let signer = Signer::load();
        for v in [SignatureVersion::V1, SignatureVersion::V2] {
            assert_eq!(signer.sign(v, "x\ny\n"), signer.sign(v, "x\ny\n"));
        }
    }
}
