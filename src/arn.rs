//! Amazon Resource Names: `arn:<partition>:<service>:<region>:<account>:<resource>`, parsed
//! (borrowing the text) and written in one place. Plain values; depends on nothing.
//!
//! The resource part keeps any further `:` or `/` (`sns:...:topic:subscription-id`,
//! `events:...:rule/bus/name`); the service that owns the ARN reads it.

use std::fmt;

/// The parts of an ARN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arn<'a> {
    pub partition: &'a str,
    pub service: &'a str,
    pub region: &'a str,
    pub account: &'a str,
    pub resource: &'a str,
}

impl<'a> Arn<'a> {
    /// An ARN in the `aws` partition.
    pub fn new(service: &'a str, region: &'a str, account: &'a str, resource: &'a str) -> Self {
        Arn {
            partition: "aws",
            service,
            region,
            account,
            resource,
        }
    }

    /// The ARN as an owned string, sized once: what `to_string` gives, without the formatter
    /// (ARNs are written on hot paths: every enqueue, every event's bus).
    pub fn text(&self) -> String {
        let parts = [
            "arn",
            self.partition,
            self.service,
            self.region,
            self.account,
            self.resource,
        ];
        let mut text = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
        for (i, part) in parts.into_iter().enumerate() {
            if i > 0 {
                text.push(':');
            }
            text.push_str(part);
        }
        text
    }

    /// The parts of `text`, or `None` when it is not `arn:` followed by five `:`-separated
    /// parts (the last may hold more `:`).
    pub fn parse(text: &'a str) -> Option<Self> {
        let rest = text.strip_prefix("arn:")?;
        // The first four `:` of the rest end the four fields before the resource.
        let mut ends = [0usize; 4];
        let mut found = 0;
        for (i, b) in rest.bytes().enumerate() {
            if b == b':' {
                ends[found] = i;
                found += 1;
                if found == ends.len() {
                    break;
                }
            }
        }
        if found < ends.len() {
            return None;
        }
        Some(Arn {
            partition: &rest[..ends[0]],
            service: &rest[ends[0] + 1..ends[1]],
            region: &rest[ends[1] + 1..ends[2]],
            account: &rest[ends[2] + 1..ends[3]],
            resource: &rest[ends[3] + 1..],
        })
    }

    /// The service of an ARN (`sqs`, `sns`, `events`, `lambda`, ...), `""` when `text` is not
    /// an ARN.
    pub fn service_of(text: &str) -> &str {
        Arn::parse(text).map_or("", |a| a.service)
    }

    /// The account of an ARN, `""` when `text` is not an ARN.
    pub fn account_of(text: &str) -> &str {
        Arn::parse(text).map_or("", |a| a.account)
    }

    /// The region of an ARN, `""` when `text` is not an ARN.
    pub fn region_of(text: &str) -> &str {
        Arn::parse(text).map_or("", |a| a.region)
    }

    /// The root identity of an account: `arn:aws:iam::<account>:root`.
    pub fn root(account: &str) -> String {
        Arn::new("iam", "", account, "root").to_string()
    }
}

impl fmt::Display for Arn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Arn {
            partition,
            service,
            region,
            account,
            resource,
        } = self;
        for (i, part) in ["arn", partition, service, region, account, resource]
            .into_iter()
            .enumerate()
        {
            if i > 0 {
                f.write_str(":")?;
            }
            f.write_str(part)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_writes_back_every_form() {
        for (text, service, region, account, resource) in [
            (
                "arn:aws:sqs:us-east-1:000000000000:q.fifo",
                "sqs",
                "us-east-1",
                "000000000000",
                "q.fifo",
            ),
            (
                "arn:aws:sns:eu-west-1:111111111111:t:1b2c",
                "sns",
                "eu-west-1",
                "111111111111",
                "t:1b2c",
            ),
            (
                "arn:aws:events:us-east-1:0:rule/bus/r",
                "events",
                "us-east-1",
                "0",
                "rule/bus/r",
            ),
            (
                "arn:aws:iam::000000000000:root",
                "iam",
                "",
                "000000000000",
                "root",
            ),
        ] {
            let arn = Arn::parse(text).unwrap();
            assert_eq!(
                (arn.service, arn.region, arn.account, arn.resource),
                (service, region, account, resource)
            );
            assert_eq!(arn.to_string(), text);
            assert_eq!(arn.text(), text);
        }
        assert_eq!(Arn::root("000000000000"), "arn:aws:iam::000000000000:root");
    }

    #[test]
    fn refuses_what_is_not_an_arn() {
        for text in [
            "",
            "arn",
            "arn:aws:sqs:us-east-1",
            "urn:aws:sqs:r:a:q",
            "https://x",
        ] {
            assert_eq!(Arn::parse(text), None, "{text}");
        }
        assert_eq!(Arn::service_of("mailto:x"), "");
        assert_eq!(Arn::account_of("arn:aws:sqs:r:123:q"), "123");
    }
}
