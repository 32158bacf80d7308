//! Amazon Resource Names: `arn:<partition>:<service>:<region>:<account>:<resource>`, parsed
//! (borrowing the text) and written in one place. Plain values; depends on nothing.
//!
//! The resource part keeps any further `:` or `/` (`sns:...:topic:subscription-id`,
//! `events:...:rule/bus/name`); the service that owns the ARN reads it.

use std::fmt;

/// The parts of an ARN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Arn<'a> {
    pub partition: &'a str,
    pub service: &'a str,
    pub region: &'a str,
    pub account: &'a str,
    pub resource: &'a str,
}

impl<'a> Arn<'a> {
    /// An ARN in the `aws` partition.
    pub(crate) fn new(
        service: &'a str,
        region: &'a str,
        account: &'a str,
        resource: &'a str,
    ) -> Self {
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
    pub(crate) fn text(&self) -> String {
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
    pub(crate) fn parse(text: &'a str) -> Option<Self> {
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
    pub(crate) fn service_of(text: &str) -> &str {
        Arn::parse(text).map_or("", |a| a.service)
    }

    /// The account of an ARN, `""` when `text` is not an ARN.
    pub(crate) fn account_of(text: &str) -> &str {
        Arn::parse(text).map_or("", |a| a.account)
    }

    /// The region of an ARN, `""` when `text` is not an ARN.
    pub(crate) fn region_of(text: &str) -> &str {
        Arn::parse(text).map_or("", |a| a.region)
    }

    /// The root identity of an account: `arn:aws:iam::<account>:root`.
    pub(crate) fn root(account: &str) -> String {
        Arn::new("iam", "", account, "root").to_string()
    }

    /// The `:`-separated parts of the resource (an SNS subscription's `topic:id` has two).
    pub(crate) fn resource_parts(&self) -> std::str::Split<'a, char> {
        self.resource.split(':')
    }

    /// The type of the resource of an ARN whose resource is `type/path` (`event-bus`, `rule`,
    /// `endpoint`, `api-destination`, ...); `None` when `text` is not an ARN or its resource
    /// has no `/`.
    pub(crate) fn resource_type(text: &str) -> Option<&str> {
        Some(Arn::parse(text)?.resource.split_once('/')?.0)
    }

    /// The path of the resource of an ARN whose resource is `kind/path` (`event-bus/b` gives
    /// `b`); `None` when `text` is not an ARN or its resource is of another type.
    pub(crate) fn resource_path<'t>(text: &'t str, kind: &str) -> Option<&'t str> {
        let (found, path) = Arn::parse(text)?.resource.split_once('/')?;
        (found == kind).then_some(path)
    }

    /// The ARN one resource part up, as a slice of `text`: an SNS subscription's
    /// `arn:aws:sns:<region>:<account>:<topic>:<id>` gives its topic's ARN. `None` when `text`
    /// is not an ARN or its resource is one part.
    pub(crate) fn parent(text: &str) -> Option<&str> {
        let arn = Arn::parse(text)?;
        let (_, last) = arn.resource.rsplit_once(':')?;
        Some(&text[..text.len() - last.len() - 1])
    }

    /// An ARN with what follows its first `#` left off: deliveries name their source as an ARN
    /// qualified so (an EventBridge rule's `<rule ARN>#<target id>`, a custom-bus subscriber's
    /// `<subscriber ARN>#<account>#<group>`); ARNs themselves hold no `#`.
    pub(crate) fn unqualified(text: &str) -> &str {
        text.split_once('#').map_or(text, |(arn, _)| arn)
    }

    // AWS's looser readings of a text that may not be an ARN at all. Some checks and messages
    // count or pick `:`-separated elements of whatever they are given ("An ARN must have at
    // least 6 elements, not 4"), wider rules than `parse`; they read the text here.

    /// How many `:`-separated elements `text` has (an ARN has at least six).
    pub(crate) fn element_count(text: &str) -> usize {
        text.split(':').count()
    }

    /// The `index`th (from 0) `:`-separated element of `text`, whatever the text: the account is
    /// element 4 of an ARN.
    pub(crate) fn element(text: &str, index: usize) -> Option<&str> {
        text.split(':').nth(index)
    }

    /// ARN matching as IAM's `ArnLike` does it: `pattern` and `arn` have as many elements (up to
    /// six, the sixth holding the rest) and each element of `arn` matches the pattern's
    /// (`element_matches(pattern element, element)`, the caller's wildcards); `"*"` alone matches
    /// anything.
    pub(crate) fn like(
        pattern: &str,
        arn: &str,
        element_matches: impl Fn(&str, &str) -> bool,
    ) -> bool {
        if pattern == "*" {
            return true;
        }
        let pattern: Vec<&str> = pattern.splitn(6, ':').collect();
        let arn: Vec<&str> = arn.splitn(6, ':').collect();
        pattern.len() == arn.len() && pattern.iter().zip(&arn).all(|(p, a)| element_matches(p, a))
    }
}

impl fmt::Display for Arn<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("arn")?;
        for part in [
            self.partition,
            self.service,
            self.region,
            self.account,
            self.resource,
        ] {
            f.write_str(":")?;
            f.write_str(part)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_type_is_what_comes_before_the_first_slash_of_the_resource() {
        let rule = "arn:aws:events:us-east-1:000000000000:rule/bus/r";
        assert_eq!(Arn::resource_type(rule), Some("rule"));
        let endpoint = "arn:aws:sns:us-east-1:000000000000:endpoint/GCM/app/1";
        assert_eq!(Arn::resource_type(endpoint), Some("endpoint"));
        // No `/` in the resource, a `/` before the resource, not an ARN.
        assert_eq!(Arn::resource_type("arn:aws:sqs:us-east-1:0:q"), None);
        assert_eq!(Arn::resource_type("arn:aws:events:a/b:0:bus"), None);
        assert_eq!(Arn::resource_type("event-bus/default"), None);
        assert_eq!(Arn::resource_path(rule, "rule"), Some("bus/r"));
        assert_eq!(Arn::resource_path(rule, "event-bus"), None);
    }

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

    #[test]
    fn reads_a_resource_in_parts_and_goes_one_part_up() {
        let sub = "arn:aws:sns:us-east-1:000000000000:orders:1b2c";
        let parsed = Arn::parse(sub).unwrap();
        assert_eq!(
            parsed.resource_parts().collect::<Vec<_>>(),
            ["orders", "1b2c"]
        );
        assert_eq!(
            Arn::parent(sub),
            Some("arn:aws:sns:us-east-1:000000000000:orders")
        );
        assert_eq!(Arn::parent("arn:aws:sns:us-east-1:0:orders"), None);
        assert_eq!(Arn::parent("topic:1b2c"), None);
        assert_eq!(
            Arn::unqualified("arn:aws:events:us-east-1:0:rule/r#target-1"),
            "arn:aws:events:us-east-1:0:rule/r"
        );
        assert_eq!(Arn::unqualified("arn:aws:sqs:r:a:q"), "arn:aws:sqs:r:a:q");
    }

    #[test]
    fn counts_and_picks_elements_of_any_text() {
        assert_eq!(Arn::element_count("arn:aws:sns:us-east-1:0"), 5);
        assert_eq!(Arn::element_count("arn:aws:sns:r:0:t:id"), 7);
        assert_eq!(Arn::element_count("mailto"), 1);
        assert_eq!(Arn::element("x:y:sqs:r:a:q", 2), Some("sqs"));
        assert_eq!(Arn::element("a:b:c:d:e", 4), Some("e"));
        assert_eq!(Arn::element("a:b", 4), None);
    }

    #[test]
    fn compares_like_arnlike() {
        let same = |p: &str, a: &str| p == "*" || p == a;
        let queue = "arn:aws:sqs:us-east-1:1:q:with:colons";
        assert!(Arn::like("*", "anything", same));
        assert!(Arn::like("arn:aws:sqs:*:1:q:with:colons", queue, same));
        // The sixth element holds the rest, colons included.
        assert!(!Arn::like("arn:aws:sqs:*:1:q", queue, same));
        assert!(!Arn::like("arn:aws:sqs:us-east-1", queue, same));
    }
}
