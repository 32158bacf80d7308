//! The protocols a subscription delivers over, as Subscribe accepts them: parsed once there and
//! kept typed in the store, written back as the same lowercase names in every answer, log line
//! and state snapshot. A leaf: plain values, no import.

use std::fmt;

/// A subscription's protocol. Serialized as SNS names it (`http`, `email-json`, ...), so state
/// snapshots and the durable store hold the same text as when the store kept a string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    Http,
    Https,
    Email,
    EmailJson,
    Sms,
    Sqs,
    Application,
    Lambda,
    Firehose,
}

impl Protocol {
    /// Every protocol SNS accepts.
    pub const ALL: [Protocol; 9] = [
        Protocol::Http,
        Protocol::Https,
        Protocol::Email,
        Protocol::EmailJson,
        Protocol::Sms,
        Protocol::Sqs,
        Protocol::Application,
        Protocol::Lambda,
        Protocol::Firehose,
    ];

    /// Its name as SNS writes it (the `Protocol` attribute, the key of a JSON message structure).
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Http => "http",
            Protocol::Https => "https",
            Protocol::Email => "email",
            Protocol::EmailJson => "email-json",
            Protocol::Sms => "sms",
            Protocol::Sqs => "sqs",
            Protocol::Application => "application",
            Protocol::Lambda => "lambda",
            Protocol::Firehose => "firehose",
        }
    }

    /// The protocol named exactly `name` (lowercase; Subscribe lowercases what it is given).
    pub fn from_name(name: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.as_str() == name)
    }

    /// HTTP or HTTPS: a real POST, with a delivery policy of its own.
    pub fn is_http(self) -> bool {
        matches!(self, Protocol::Http | Protocol::Https)
    }

    /// Whether subscriptions over it wait for their endpoint to confirm them (HTTP/S and
    /// e-mail); the others are confirmed at once.
    pub fn needs_confirmation(self) -> bool {
        matches!(
            self,
            Protocol::Http | Protocol::Https | Protocol::Email | Protocol::EmailJson
        )
    }
}

/// A protocol by its exact name ([`Protocol::from_name`]).
impl TryFrom<&str> for Protocol {
    type Error = UnknownProtocol;

    fn try_from(name: &str) -> Result<Protocol, UnknownProtocol> {
        Protocol::from_name(name).ok_or(UnknownProtocol)
    }
}

/// A name that is no protocol of SNS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownProtocol;

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_text_and_serde() {
        for p in Protocol::ALL {
            assert_eq!(Protocol::from_name(p.as_str()), Some(p));
            assert_eq!(p.to_string(), p.as_str());
            // The serialized form is the name, as the store's string was.
            let json = serde_json::to_string(&p).unwrap();
            assert_eq!(json, format!("\"{}\"", p.as_str()));
            assert_eq!(serde_json::from_str::<Protocol>(&json).unwrap(), p);
        }
        assert_eq!(Protocol::from_name("email-json"), Some(Protocol::EmailJson));
        assert_eq!(Protocol::from_name("SQS"), None);
        assert_eq!(Protocol::from_name("ftp"), None);
        assert_eq!(Protocol::try_from("lambda"), Ok(Protocol::Lambda));
        assert_eq!(Protocol::try_from("Lambda"), Err(UnknownProtocol));
    }

    #[test]
    fn http_and_email_wait_for_confirmation() {
        let waiting: Vec<&str> = Protocol::ALL
            .into_iter()
            .filter(|p| p.needs_confirmation())
            .map(Protocol::as_str)
            .collect();
        assert_eq!(waiting, ["http", "https", "email", "email-json"]);
        assert!(Protocol::Https.is_http() && !Protocol::Sqs.is_http());
    }
}
