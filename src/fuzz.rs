//! The fuzz targets of the hand-written parsers: each takes any bytes, feeds them to a parser the
//! way a request would, and checks what must hold whatever the input (no panic, no hang, and
//! where there is one, a round trip). Two harnesses run them: the cargo-fuzz crate in `fuzz/`
//! (libFuzzer, coverage-guided: the long runs, and the bounded run of the test command) and
//! `tests/fuzz.rs`, which replays the committed corpus and every input a fuzzer ever crashed on
//! (`fuzz/regressions/`) in the plain test suite. docs/fuzzing.md says how to run them.
//!
//! Inputs are split into fields at `\n`, so a corpus file reads as the request it stands for.
//! Not the library's API: public only so that the fuzz crate can reach it.

use crate::engine::time::{Millis, format_rfc3339, parse_rfc3339};
use crate::model::Model;
use crate::protocol::{check_required, query, rest_json, sigv4};
use crate::services::ServiceId;
use crate::services::event::pattern::EventPattern;
use crate::services::events::schedule::Schedule;
use crate::services::scheduler::expression::{Expression, Zone};
use crate::services::sns::filter::{FilterPolicy, FilterScope};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, Uri};
use std::collections::BTreeMap;
use std::time::{Duration, UNIX_EPOCH};

/// A fuzz target: any bytes in, a panic when something that must hold does not.
pub type Target = fn(&[u8]);

/// Every target by name, as `fuzz/fuzz_targets/` and `fuzz/corpus/` name them.
pub const TARGETS: [(&str, Target); 7] = [
    ("query", query),
    ("sigv4", sigv4),
    ("rest_json", rest_json),
    ("event_pattern", event_pattern),
    ("filter_policy", filter_policy),
    ("rfc3339", rfc3339),
    ("cron", cron),
];

/// The `n`th field of `data` between `\n`s, as text (bytes that are not UTF-8 replaced).
fn fields(data: &[u8]) -> Vec<String> {
    data.split(|&b| b == b'\n')
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect()
}

fn field(fields: &[String], n: usize) -> &str {
    fields.get(n).map_or("", String::as_str)
}

/// An AWS Query request: its first byte picks the service (SQS, SNS, IAM, STS), the rest is
/// the form. The operation is the form's `Action` when the model has it, else one picked by
/// the same byte; the form is decoded into that operation's input and its required members
/// checked, as the front-end does.
pub fn query(data: &[u8]) {
    let Some((&pick, form)) = data.split_first() else {
        return;
    };
    let services = [
        ServiceId::Sqs,
        ServiceId::Sns,
        ServiceId::Iam,
        ServiceId::Sts,
    ];
    let service = services[usize::from(pick) % services.len()];
    let mut params = query::Params::new();
    let _ = query::parse_params(&mut params, form);
    let Some(model) = service.model() else {
        return;
    };
    let operation = params
        .get("Action")
        .filter(|a| model.operations.contains_key(a.as_str()))
        .cloned()
        .or_else(|| nth_operation(model, usize::from(pick / 4)));
    let Some(operation) = operation else {
        return;
    };
    let Some(shape) = model.operations[operation.as_str()].input.as_ref() else {
        return;
    };
    if let Ok(input) = query::decode(model, &shape.shape, &params) {
        let _ = check_required(service, &operation, &input);
    }
}

fn nth_operation(model: &Model, n: usize) -> Option<String> {
    let count = model.operations.len();
    (count > 0).then(|| model.operations.keys().nth(n % count).cloned())?
}

/// A signed request: fields method, path and query, Authorization, X-Amz-Date, Host,
/// X-Amz-Content-Sha256, body. Its signature is read from the headers or the query, then
/// verified with the secret `test` at 2026-11-30T08:35:00Z (the corpus's signing time).
pub fn sigv4(data: &[u8]) {
    let f = fields(data);
    let method = Method::from_bytes(field(&f, 0).as_bytes()).unwrap_or(Method::POST);
    let target = field(&f, 1);
    let uri: Uri = target.parse().unwrap_or_else(|_| Uri::from_static("/"));
    let mut headers = HeaderMap::new();
    for (name, n) in [
        ("authorization", 2),
        ("x-amz-date", 3),
        ("host", 4),
        ("x-amz-content-sha256", 5),
    ] {
        if let Ok(value) = HeaderValue::from_str(field(&f, n))
            && !field(&f, n).is_empty()
        {
            headers.insert(HeaderName::from_static(name), value);
        }
    }
    let mut params = query::Params::new();
    let _ = query::parse_params(&mut params, uri.query().unwrap_or("").as_bytes());
    let Ok(Some(signature)) = sigv4::read(&headers, &params) else {
        return;
    };
    let body = field(&f, 6).as_bytes();
    let now = UNIX_EPOCH + Duration::from_secs(1_796_027_700);
    let _ = sigv4::verify(&signature, &method, &uri, &headers, body, "test", now);
}

/// A restJson1 request: fields service (`scheduler`, `pipes` or `lambda`), method, path, query
/// string, body, then `name: value` headers. Routed by method and path, then decoded and
/// checked; a Lambda function name in it is resolved as the operations resolve it.
pub fn rest_json(data: &[u8]) {
    let f = fields(data);
    let service = match field(&f, 0) {
        "pipes" => ServiceId::Pipes,
        "lambda" => ServiceId::Lambda,
        _ => ServiceId::Scheduler,
    };
    let Some(model) = service.model() else {
        return;
    };
    let method = Method::from_bytes(field(&f, 1).as_bytes()).unwrap_or(Method::GET);
    let mut headers = HeaderMap::new();
    for line in f.iter().skip(5) {
        if let Some((name, value)) = line.split_once(':')
            && let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(name.trim().as_bytes()),
                HeaderValue::from_str(value.trim()),
            )
        {
            headers.append(name, value);
        }
    }
    let Some((operation, labels)) = rest_json::route(model, &method, field(&f, 2)) else {
        return;
    };
    let request = rest_json::Request {
        labels: &labels,
        query: field(&f, 3),
        headers: &headers,
        body: field(&f, 4).as_bytes(),
    };
    if let Ok(input) = rest_json::decode(model, operation, &request) {
        let _ = check_required(service, operation, &input);
        if let Some(name) = input.get("FunctionName").and_then(|n| n.as_str()) {
            let _ = crate::services::lambda::functions::resolve(
                &crate::services::Context::for_tests(),
                name,
            );
        }
    }
}

/// An event pattern (the first field) and an event (the rest): a pattern that compiles is
/// matched against the event when the event is JSON, and asked what its routing index needs.
pub fn event_pattern(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (pattern, event) = text.split_once('\n').unwrap_or((&text, "{}"));
    let Ok(pattern) = EventPattern::parse(pattern) else {
        return;
    };
    let _ = pattern.needs();
    if let Ok(event) = serde_json::from_str(event) {
        let _ = pattern.matches(&event);
    }
}

/// An SNS filter policy: the first byte picks the scope (odd: the message body), the first
/// field is the policy, the rest the message: its body for the body scope, else
/// `name=Type:value` attribute lines.
pub fn filter_policy(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let (policy, message) = text.split_once('\n').unwrap_or((&text, ""));
    let scope = if pick % 2 == 1 {
        FilterScope::MessageBody
    } else {
        FilterScope::MessageAttributes
    };
    let Ok(policy) = FilterPolicy::parse(policy, scope) else {
        return;
    };
    let _ = policy.needs();
    match scope {
        FilterScope::MessageBody => {
            if let Ok(body) = serde_json::from_str(message) {
                let _ = policy.matches_body(&body);
            }
        }
        FilterScope::MessageAttributes => {
            let attributes: BTreeMap<String, (String, String)> = message
                .lines()
                .filter_map(|line| {
                    let (name, typed) = line.split_once('=')?;
                    let (kind, value) = typed.split_once(':')?;
                    Some((name.into(), (kind.into(), value.into())))
                })
                .collect();
            let _ = policy.matches_attributes(&attributes);
        }
    }
}

/// The instants whose years have four digits, 0000-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z.
/// The parser takes a few texts past either end (second 60 or an offset across the year 9999
/// or 0000, as AWS's parsers do), whose formatted years then have other widths.
const FOUR_DIGIT_YEARS: std::ops::RangeInclusive<Millis> =
    -62_167_219_200_000..=253_402_300_799_999;

/// An RFC 3339 timestamp: one that parses to an instant of a four-digit year formats back to
/// text that parses to the same instant.
pub fn rfc3339(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(ms) = parse_rfc3339(text).filter(|ms| FOUR_DIGIT_YEARS.contains(ms)) {
        let again = format_rfc3339(ms);
        assert_eq!(parse_rfc3339(&again), Some(ms), "{text:?} → {again:?}");
    }
}

/// A schedule expression: the first field is an EventBridge rule's `rate(...)`/`cron(...)` or a
/// Scheduler expression (with `at(...)`), the second a Scheduler time zone. Each one that parses
/// is asked for its next firings from a few instants, which must move forward.
pub fn cron(data: &[u8]) {
    let f = fields(data);
    let text = field(&f, 0);
    let starts: [Millis; 3] = [0, 1_796_027_700_000, 4_102_444_800_000];
    if let Ok(schedule) = Schedule::parse(text) {
        for start in starts {
            following(start, |after| schedule.next_after(after, start));
        }
    }
    let (Some(expression), Some(zone)) = (
        Expression::parse(text),
        Zone::named(Some(field(&f, 1))).or(Zone::named(None)),
    ) else {
        return;
    };
    for start in starts {
        following(start, |after| expression.next_after(after, start, &zone));
    }
}

/// Asks `next` for a few firings in turn from `start`; each must be after the one before.
fn following(start: Millis, next: impl Fn(Millis) -> Option<Millis>) {
    let mut after = start;
    for _ in 0..4 {
        let Some(at) = next(after) else {
            return;
        };
        assert!(at > after, "the next firing {at} is not after {after}");
        after = at;
    }
}
