//! Queue URLs in the shapes LocalStack's `SQS_ENDPOINT_STRATEGY` names, written for the host URLs
//! carry (the one the client used, or `--hostname`) and read back in any shape from any host:
//!
//! | shape | URL |
//! |---|---|
//! | standard | `http://sqs.<region>.<domain>/<account>/<name>` |
//! | domain | `http://<region>.queue.<domain>/<account>/<name>` (`http://queue.<domain>/…` in us-east-1) |
//! | path | `http://<host>/queue/<region>/<account>/<name>` |
//! | off (legacy) | `http://<host>/<account>/<name>` |
//!
//! Plain string work over `host[:port]` and paths: no HTTP.

use super::store::QueueKey;
use super::valid_name;
use crate::config::QueueUrlStyle;
use crate::text::{self, split_at};

/// The domain of LocalStack's host names: it and every name under it resolve to 127.0.0.1, so
/// regional names under it reach an emulator on this machine without any DNS set-up.
pub const LOCALSTACK_DOMAIN: &str = "localhost.localstack.cloud";

/// The region the legacy domain names mean without a region of their own (`queue.<domain>`).
const US_EAST_1: &str = "us-east-1";

/// What a queue URL names. `region` is `None` where the URL carries none (the legacy shape on a
/// host without a region): the caller's region applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Address<'a> {
    pub region: Option<&'a str>,
    pub account: &'a str,
    pub name: &'a str,
}

/// `host[:port]` → (host, `:port` or ""); an IPv6 literal stays whole in its brackets.
pub fn split_authority(authority: &str) -> (&str, &str) {
    let at = if authority.starts_with('[') {
        authority.find(']').map(|i| i + 1)
    } else {
        authority.bytes().rposition(|b| b == b':')
    };
    match at {
        Some(i)
            if authority[i..].len() > 1
                && authority[i..].starts_with(':')
                && authority[i + 1..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            (&authority[..i], &authority[i..])
        }
        _ => (authority, ""),
    }
}

/// The shape of a host name (without its port).
#[derive(Debug, PartialEq, Eq)]
enum Shape<'a> {
    /// `sqs.<region>.<domain>`.
    Standard { region: &'a str, domain: &'a str },
    /// `<region>.queue.<domain>`, or `queue.<domain>` for us-east-1.
    Domain { region: &'a str, domain: &'a str },
    /// Any other name.
    Plain,
}

fn shape(host: &str) -> Shape<'_> {
    let (first, rest) = split_at(host, b'.').unwrap_or((host, ""));
    if first == "sqs"
        && let Some((region, domain)) = split_at(rest, b'.')
        && is_region(region)
        && !domain.is_empty()
    {
        return Shape::Standard { region, domain };
    }
    if first == "queue" && !rest.is_empty() {
        return Shape::Domain {
            region: US_EAST_1,
            domain: rest,
        };
    }
    match split_at_queue_label(host) {
        Some((region, domain)) if is_region(region) && !domain.is_empty() => {
            Shape::Domain { region, domain }
        }
        _ => Shape::Plain,
    }
}

/// `host` around its first `.queue.` label (a search for dots: host names are short).
fn split_at_queue_label(host: &str) -> Option<(&str, &str)> {
    let dots = host.bytes().enumerate().filter(|(_, b)| *b == b'.');
    dots.map(|(i, _)| i).find_map(|i| {
        let domain = host[i + 1..].strip_prefix("queue.")?;
        Some((&host[..i], domain))
    })
}

/// Whether a host label reads as a region (`us-east-1`, `us-gov-west-1`, `eu-central-2`): lower
/// case letters, digits and hyphens, starting with a letter and ending in a digit.
fn is_region(label: &str) -> bool {
    label.contains('-')
        && label.starts_with(|c: char| c.is_ascii_lowercase())
        && label.ends_with(|c: char| c.is_ascii_digit())
        && label
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The region a host names (`sqs.<region>.<domain>`, `<region>.queue.<domain>`, and
/// `queue.<domain>` for us-east-1), if it names one: AWS's regional endpoints and LocalStack's
/// names under `localhost.localstack.cloud` alike.
pub fn host_region(authority: &str) -> Option<&str> {
    match shape(split_authority(authority).0) {
        Shape::Standard { region, .. } | Shape::Domain { region, .. } => Some(region),
        Shape::Plain => None,
    }
}

/// The domain regional names go under for a host: the one a regional name already has;
/// `localhost.localstack.cloud` for `localhost` and IP addresses, which cannot carry names
/// below them; any other name as it is (as LocalStack does with `LOCALSTACK_HOST`).
fn domain_of(host: &str) -> &str {
    match shape(host) {
        Shape::Standard { domain, .. } | Shape::Domain { domain, .. } => domain,
        Shape::Plain if host == "localhost" || is_ip(host) => LOCALSTACK_DOMAIN,
        Shape::Plain => host,
    }
}

fn is_ip(host: &str) -> bool {
    host.starts_with('[') || host.parse::<std::net::IpAddr>().is_ok()
}

/// The URL of queue `key` in `style`, for a client that reaches this emulator at `authority`
/// (`host[:port]`). The port always stays the one in `authority`.
pub fn queue_url(style: QueueUrlStyle, authority: &str, key: &QueueKey) -> String {
    let (host, port) = split_authority(authority);
    let style = match (style, shape(host)) {
        (QueueUrlStyle::Auto | QueueUrlStyle::Dynamic, Shape::Standard { .. }) => {
            QueueUrlStyle::Standard
        }
        (QueueUrlStyle::Auto | QueueUrlStyle::Dynamic, Shape::Domain { .. }) => {
            QueueUrlStyle::Domain
        }
        (QueueUrlStyle::Auto, Shape::Plain) => QueueUrlStyle::Off,
        (QueueUrlStyle::Dynamic, Shape::Plain) => QueueUrlStyle::Path,
        (style, _) => style,
    };
    let QueueKey {
        account,
        region,
        name,
    } = key;
    match style {
        QueueUrlStyle::Standard => {
            format!(
                "http://sqs.{region}.{}{port}/{account}/{name}",
                domain_of(host)
            )
        }
        QueueUrlStyle::Domain => {
            let prefix = if region == US_EAST_1 {
                String::new()
            } else {
                format!("{region}.")
            };
            format!(
                "http://{prefix}queue.{}{port}/{account}/{name}",
                domain_of(host)
            )
        }
        QueueUrlStyle::Path => format!("http://{authority}/queue/{region}/{account}/{name}"),
        QueueUrlStyle::Auto | QueueUrlStyle::Dynamic | QueueUrlStyle::Off => {
            format!("http://{authority}/{account}/{name}")
        }
    }
}

/// The queue a path names: `/<account>/<name>` or `/queue/<region>/<account>/<name>`, with or
/// without a trailing `/`.
pub fn parse_path(path: &str) -> Option<Address<'_>> {
    let path = path.strip_prefix('/')?;
    let path = path.strip_suffix('/').unwrap_or(path);
    // At most four segments name a queue; a fifth names none.
    let (segments, count) = text::first_parts::<4>(path, b'/');
    let (region, account, name) = match *segments.get(..count)? {
        [account, name] => (None, account, name),
        ["queue", region, account, name] if is_path_region(region) => (Some(region), account, name),
        _ => return None,
    };
    let account_ok = account.len() == 12 && account.bytes().all(|b| b.is_ascii_digit());
    (account_ok && valid_name(name)).then_some(Address {
        region,
        account,
        name,
    })
}

/// A region in a path: a non-empty run of lower case letters, digits and hyphens.
fn is_path_region(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The queue a URL names, in any shape from any host; a URL without a scheme is read as a path.
/// The region is the path's, else the host's, else `None`.
pub fn parse(url: &str) -> Option<Address<'_>> {
    let (authority, path) = split_url(url);
    let mut address = parse_path(path)?;
    address.region = address.region.or_else(|| host_region(authority));
    Some(address)
}

/// The account of the queue a URL names (as [`parse`], without reading the host).
pub fn account_of(url: &str) -> Option<&str> {
    parse_path(split_url(url).1).map(|a| a.account)
}

/// A URL's authority and path; a URL without a scheme is all path.
fn split_url(url: &str) -> (&str, &str) {
    let colons = url.bytes().enumerate().filter(|(_, b)| *b == b':');
    let scheme_end = colons
        .map(|(i, _)| i)
        .find(|i| url[*i..].starts_with("://"));
    match scheme_end {
        Some(i) => {
            let rest = &url[i + 3..];
            let slash = rest.bytes().position(|b| b == b'/');
            slash.map_or((rest, ""), |i| rest.split_at(i))
        }
        None => ("", url),
    }
}

/// Whether `path` is one that names a queue under `/queue/`, well formed or not: such a path is
/// meant for SQS, and one that names no queue is an address SQS does not serve.
pub fn is_under_queue(path: &str) -> bool {
    path == "/queue" || path.starts_with("/queue/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(region: &str) -> QueueKey {
        QueueKey {
            account: "000000000000".into(),
            region: region.into(),
            name: "q".into(),
        }
    }

    #[test]
    fn authorities_split_at_their_port() {
        assert_eq!(split_authority("localhost:4566"), ("localhost", ":4566"));
        assert_eq!(split_authority("localhost"), ("localhost", ""));
        assert_eq!(split_authority("[::1]:4566"), ("[::1]", ":4566"));
        assert_eq!(split_authority("[::1]"), ("[::1]", ""));
        assert_eq!(split_authority("host:"), ("host:", ""));
    }

    #[test]
    fn host_names_name_their_region() {
        let cases = [
            (
                "sqs.eu-west-1.localhost.localstack.cloud:4566",
                Some("eu-west-1"),
            ),
            (
                "eu-west-1.queue.localhost.localstack.cloud:4566",
                Some("eu-west-1"),
            ),
            ("queue.localhost.localstack.cloud:4566", Some("us-east-1")),
            ("sqs.us-gov-west-1.amazonaws.com", Some("us-gov-west-1")),
            ("us-west-2.queue.amazonaws.com", Some("us-west-2")),
            ("localhost.localstack.cloud:4566", None),
            ("localhost:4566", None),
            ("switchyard:4566", None),
            ("sqs.localhost.localstack.cloud", None),
            ("sqs.eu-west-1", None),
            ("queue", None),
            ("127.0.0.1:4566", None),
        ];
        for (authority, region) in cases {
            assert_eq!(host_region(authority), region, "{authority}");
        }
    }

    #[test]
    fn each_style_has_its_shape() {
        let k = key("eu-west-1");
        let url = |style, authority| queue_url(style, authority, &k);
        use QueueUrlStyle::*;
        assert_eq!(
            url(Standard, "localhost:4566"),
            "http://sqs.eu-west-1.localhost.localstack.cloud:4566/000000000000/q"
        );
        assert_eq!(
            url(Standard, "127.0.0.1:4566"),
            "http://sqs.eu-west-1.localhost.localstack.cloud:4566/000000000000/q"
        );
        assert_eq!(
            url(Standard, "switchyard:4566"),
            "http://sqs.eu-west-1.switchyard:4566/000000000000/q"
        );
        assert_eq!(
            url(Standard, "us-east-1.queue.example.test"),
            "http://sqs.eu-west-1.example.test/000000000000/q"
        );
        assert_eq!(
            url(Domain, "localhost:4566"),
            "http://eu-west-1.queue.localhost.localstack.cloud:4566/000000000000/q"
        );
        assert_eq!(
            queue_url(Domain, "localhost:4566", &key("us-east-1")),
            "http://queue.localhost.localstack.cloud:4566/000000000000/q"
        );
        assert_eq!(
            url(Path, "localhost:4566"),
            "http://localhost:4566/queue/eu-west-1/000000000000/q"
        );
        assert_eq!(
            url(Off, "localhost:4566"),
            "http://localhost:4566/000000000000/q"
        );
    }

    #[test]
    fn auto_and_dynamic_keep_the_shape_of_the_host() {
        let k = key("eu-west-1");
        use QueueUrlStyle::*;
        for style in [Auto, Dynamic] {
            assert_eq!(
                queue_url(style, "sqs.eu-west-1.localhost.localstack.cloud:4566", &k),
                "http://sqs.eu-west-1.localhost.localstack.cloud:4566/000000000000/q"
            );
            assert_eq!(
                queue_url(style, "queue.localhost.localstack.cloud:4566", &k),
                "http://eu-west-1.queue.localhost.localstack.cloud:4566/000000000000/q"
            );
        }
        for (style, want) in [
            (Auto, "http://switchyard:4566/000000000000/q"),
            (
                Dynamic,
                "http://switchyard:4566/queue/eu-west-1/000000000000/q",
            ),
        ] {
            assert_eq!(queue_url(style, "switchyard:4566", &k), want);
        }
    }

    #[test]
    fn every_shape_reads_back() {
        let at = |region| Address {
            region,
            account: "000000000000",
            name: "q.fifo",
        };
        let cases = [
            ("http://localhost:4566/000000000000/q.fifo", at(None)),
            ("http://localhost:4566/000000000000/q.fifo/", at(None)),
            ("/000000000000/q.fifo", at(None)),
            (
                "http://sqs.eu-west-1.localhost.localstack.cloud:4566/000000000000/q.fifo",
                at(Some("eu-west-1")),
            ),
            (
                "https://ap-south-1.queue.localhost.localstack.cloud/000000000000/q.fifo",
                at(Some("ap-south-1")),
            ),
            (
                "http://queue.localhost.localstack.cloud:4566/000000000000/q.fifo",
                at(Some("us-east-1")),
            ),
            (
                "http://localhost:4566/queue/eu-west-1/000000000000/q.fifo",
                at(Some("eu-west-1")),
            ),
            // The path's region wins over the host's.
            (
                "http://sqs.us-west-2.localhost.localstack.cloud/queue/eu-west-1/000000000000/q.fifo",
                at(Some("eu-west-1")),
            ),
        ];
        for (url, address) in cases {
            assert_eq!(parse(url), Some(address), "{url}");
        }
    }

    #[test]
    fn malformed_urls_name_no_queue() {
        for bad in [
            "",
            "http://localhost:4566",
            "http://localhost:4566/",
            "http://localhost:4566/orders",
            "http://localhost:4566/12/orders",
            "http://localhost:4566/000000000000/",
            "http://localhost:4566/000000000000/a b",
            "http://localhost:4566/000000000000/a/b",
            "http://localhost:4566/000000000000/.fifo",
            "http://localhost:4566/queue/000000000000/q",
            "http://localhost:4566/queue//000000000000/q",
            "http://localhost:4566/queue/EU-WEST-1/000000000000/q",
            "http://localhost:4566/queue/eu-west-1/000000000000/q/x",
            "http://localhost:4566/other/eu-west-1/000000000000/q",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn what_is_under_queue() {
        assert!(is_under_queue("/queue"));
        assert!(is_under_queue("/queue/eu-west-1"));
        assert!(!is_under_queue("/queues"));
        assert!(!is_under_queue("/000000000000/queue"));
    }
}
