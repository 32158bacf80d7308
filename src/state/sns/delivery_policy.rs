//! SNS delivery policies: the `DeliveryPolicy` documents of topics and subscriptions, validated
//! as the API does, and the four-phase retry schedule (immediate, pre-backoff, backoff,
//! post-backoff) with its four backoff functions. Pure: no engine, no I/O. The formulas are
//! written down in docs/sns-retries.md.

use super::protocol::Protocol;
use crate::engine::delivery::{Draw, Outcome, Retry, RetryPolicy};
use crate::engine::rng::Rng;
use crate::engine::time::Millis;
use serde_json::{Map, Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Backoff {
    Linear,
    Arithmetic,
    Geometric,
    Exponential,
}

impl Backoff {
    fn parse(s: &str) -> Option<Backoff> {
        // The AWS CDK sends these in upper case; SNS accepts either.
        match s.to_ascii_lowercase().as_str() {
            "linear" => Some(Backoff::Linear),
            "arithmetic" => Some(Backoff::Arithmetic),
            "geometric" => Some(Backoff::Geometric),
            "exponential" => Some(Backoff::Exponential),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Backoff::Linear => "linear",
            Backoff::Arithmetic => "arithmetic",
            Backoff::Geometric => "geometric",
            Backoff::Exponential => "exponential",
        }
    }

    /// The share of the way from the minimum to the maximum delay at `t` ∈ [0, 1].
    fn curve(self, t: f64) -> f64 {
        match self {
            Backoff::Linear => t,
            Backoff::Arithmetic => 1.0 - (1.0 - t).powi(2),
            Backoff::Geometric => 1.0 - (1.0 - t).powi(3),
            Backoff::Exponential => (1.0 - 2f64.powf(-10.0 * t)) / (1.0 - 2f64.powi(-10)),
        }
    }
}

/// A healthy-retry policy: how many retries follow a failed first attempt, and how far apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Schedule {
    pub min_delay_s: u32,
    pub max_delay_s: u32,
    pub num_retries: u32,
    pub num_no_delay_retries: u32,
    pub num_min_delay_retries: u32,
    pub num_max_delay_retries: u32,
    pub backoff: Backoff,
}

/// Where a retry falls in the schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Immediate,
    PreBackoff,
    Backoff,
    PostBackoff,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Immediate => "immediate",
            Phase::PreBackoff => "pre-backoff",
            Phase::Backoff => "backoff",
            Phase::PostBackoff => "post-backoff",
        }
    }
}

impl Schedule {
    /// HTTP/S when no policy says otherwise: 3 retries, 20 s apart.
    pub const HTTP_DEFAULT: Schedule = Schedule {
        min_delay_s: 20,
        max_delay_s: 20,
        num_retries: 3,
        num_no_delay_retries: 0,
        num_min_delay_retries: 0,
        num_max_delay_retries: 0,
        backoff: Backoff::Linear,
    };
    /// AWS-managed endpoints (SQS, Lambda, Firehose): 100,015 retries over about 23 days.
    pub const AWS_MANAGED: Schedule = Schedule {
        min_delay_s: 1,
        max_delay_s: 20,
        num_retries: 100_015,
        num_no_delay_retries: 3,
        num_min_delay_retries: 2,
        num_max_delay_retries: 100_000,
        backoff: Backoff::Exponential,
    };
    /// Customer-managed endpoints (e-mail, SMS, mobile push; Firehose throttling): 50 retries
    /// over about 6 hours.
    pub const CUSTOMER_MANAGED: Schedule = Schedule {
        min_delay_s: 10,
        max_delay_s: 600,
        num_retries: 50,
        num_no_delay_retries: 0,
        num_min_delay_retries: 2,
        num_max_delay_retries: 38,
        backoff: Backoff::Exponential,
    };

    /// The policy SNS fixes for a protocol, typed or by its name; `None` for HTTP/S, whose
    /// policy is configurable, and for a name that is no protocol.
    pub fn fixed_for(protocol: impl TryInto<Protocol>) -> Option<Schedule> {
        match protocol.try_into().ok()? {
            Protocol::Sqs | Protocol::Lambda | Protocol::Firehose => Some(Schedule::AWS_MANAGED),
            Protocol::Email | Protocol::EmailJson | Protocol::Sms | Protocol::Application => {
                Some(Schedule::CUSTOMER_MANAGED)
            }
            Protocol::Http | Protocol::Https => None,
        }
    }

    /// numRetries − numNoDelayRetries − numMinDelayRetries − numMaxDelayRetries.
    pub fn backoff_retries(&self) -> u32 {
        self.num_retries
            - self.num_no_delay_retries
            - self.num_min_delay_retries
            - self.num_max_delay_retries
    }

    /// The nominal delay of retry `k` (1 = the first retry) and its phase; `None` past the end.
    pub fn retry(&self, k: u32) -> Option<(Phase, Millis)> {
        if k == 0 || k > self.num_retries {
            return None;
        }
        let (lo, hi) = (self.min_delay_s as f64, self.max_delay_s as f64);
        let (n0, nmin, b) = (
            self.num_no_delay_retries,
            self.num_min_delay_retries,
            self.backoff_retries(),
        );
        let ms = |s: f64| (s * 1000.0).round() as Millis;
        Some(if k <= n0 {
            (Phase::Immediate, 0)
        } else if k <= n0 + nmin {
            (Phase::PreBackoff, ms(lo))
        } else if k <= n0 + nmin + b {
            let j = k - n0 - nmin;
            // The first backoff retry waits the minimum, the last the maximum.
            let t = if b <= 1 {
                0.0
            } else {
                (j - 1) as f64 / (b - 1) as f64
            };
            (Phase::Backoff, ms(lo + (hi - lo) * self.backoff.curve(t)))
        } else {
            (Phase::PostBackoff, ms(hi))
        })
    }

    /// The nominal time from the first attempt to the last retry.
    pub fn total_ms(&self) -> Millis {
        let (n0, nmin, b) = (
            self.num_no_delay_retries,
            self.num_min_delay_retries,
            self.backoff_retries(),
        );
        let backoff: Millis = (1..=b)
            .filter_map(|j| self.retry(n0 + nmin + j))
            .map(|(_, d)| d)
            .sum();
        Millis::from(nmin) * Millis::from(self.min_delay_s) * 1000
            + backoff
            + Millis::from(self.num_max_delay_retries) * Millis::from(self.max_delay_s) * 1000
    }

    fn to_json(self) -> Value {
        json!({
            "minDelayTarget": self.min_delay_s,
            "maxDelayTarget": self.max_delay_s,
            "numRetries": self.num_retries,
            "numMaxDelayRetries": self.num_max_delay_retries,
            "numNoDelayRetries": self.num_no_delay_retries,
            "numMinDelayRetries": self.num_min_delay_retries,
            "backoffFunction": self.backoff.name(),
        })
    }
}

impl RetryPolicy for Schedule {
    fn next(&self, attempts: u32, rng: &mut Rng, jitter: bool) -> Option<Retry> {
        let (phase, delay_ms) = self.retry(attempts)?;
        // Equal jitter on non-zero delays: half fixed, half random (AWS does not say which).
        let delay_ms = if jitter && delay_ms > 0 {
            delay_ms / 2 + (rng.next_f64() * (delay_ms - delay_ms / 2) as f64).round() as Millis
        } else {
            delay_ms
        };
        Some(Retry {
            delay_ms,
            phase: phase.name(),
        })
    }
}

/// SNS to Firehose: the AWS-managed schedule, except that throttling errors follow the
/// customer-managed one.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub struct Firehose;

impl RetryPolicy for Firehose {
    fn next(&self, attempts: u32, rng: &mut Rng, jitter: bool) -> Option<Retry> {
        Schedule::AWS_MANAGED.next(attempts, rng, jitter)
    }

    fn after(&self, attempts: u32, outcome: &Outcome, draw: &mut Draw) -> Option<Retry> {
        let throttled = match outcome {
            Outcome::Retryable(failure) => failure.throttled(),
            _ => false,
        };
        let schedule = if throttled {
            Schedule::CUSTOMER_MANAGED
        } else {
            Schedule::AWS_MANAGED
        };
        schedule.next(attempts, draw.rng, draw.jitter)
    }
}

/// The retry policy of a subscription: fixed by SNS for its protocol, else the HTTP/S policy in force.
pub fn policy_for(protocol: Protocol, http: Schedule) -> crate::state::Policy {
    match protocol {
        Protocol::Firehose => Firehose.into(),
        _ => Schedule::fixed_for(protocol).unwrap_or(http).into(),
    }
}

/// A subscription's `DeliveryPolicy`, or the `http` part of a topic's, parsed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Policy {
    pub healthy: Option<Schedule>,
    /// maxReceivesPerSecond.
    pub throttle: Option<u32>,
    pub content_type: Option<String>,
    /// Topic level: the topic's policy wins over its subscriptions'.
    pub disable_subscription_overrides: bool,
}

/// Where a policy document comes from: its JSON keys differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Topic,
    Subscription,
}

fn number(obj: &Map<String, Value>, path: &str, key: &str) -> Result<Option<u32>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_i64() {
            Some(n) if n >= 0 && n <= u32::MAX as i64 => Ok(Some(n as u32)),
            Some(_) => Err(format!("{path}.{key} must be greater than or equal to 0")),
            None => Err(format!("{path}.{key} must be an integer")),
        },
    }
}

fn schedule(obj: &Map<String, Value>, path: &str, http: bool) -> Result<Schedule, String> {
    let required = |key: &str| -> Result<u32, String> {
        number(obj, path, key)?.ok_or_else(|| format!("{path}.{key} must be specified"))
    };
    let (min, max, retries) = (
        required("minDelayTarget")?,
        required("maxDelayTarget")?,
        required("numRetries")?,
    );
    let count = |key: &str| number(obj, path, key).map(Option::unwrap_or_default);
    let (n0, nmin, nmax) = (
        count("numNoDelayRetries")?,
        count("numMinDelayRetries")?,
        count("numMaxDelayRetries")?,
    );
    let backoff = match obj.get("backoffFunction") {
        None | Some(Value::Null) => Backoff::Linear,
        Some(v) => v.as_str().and_then(Backoff::parse).ok_or_else(|| {
            format!(
                "{path}.backoffFunction must be one of linear, arithmetic, geometric, exponential"
            )
        })?,
    };
    if min < 1 {
        return Err(format!(
            "{path}.minDelayTarget must be greater than or equal to 1"
        ));
    }
    if max < min {
        return Err(format!(
            "{path}.maxDelayTarget must be greater than or equal to minDelayTarget"
        ));
    }
    if max > 3600 {
        return Err(format!(
            "{path}.maxDelayTarget must be less than or equal to 3600"
        ));
    }
    if retries > 100 {
        return Err(format!(
            "{path}.numRetries must be less than or equal to 100"
        ));
    }
    if u64::from(n0) + u64::from(nmin) + u64::from(nmax) > u64::from(retries) {
        return Err(format!(
            "{path}.numRetries must be greater than or equal to the sum of numNoDelayRetries, numMinDelayRetries and numMaxDelayRetries"
        ));
    }
    let s = Schedule {
        min_delay_s: min,
        max_delay_s: max,
        num_retries: retries,
        num_no_delay_retries: n0,
        num_min_delay_retries: nmin,
        num_max_delay_retries: nmax,
        backoff,
    };
    if http && s.total_ms() > 3_600_000 {
        return Err(format!(
            "{path}: total retry time must be less than or equal to 3600 seconds"
        ));
    }
    Ok(s)
}

/// Parses and validates a `DeliveryPolicy` document. The error is the text after
/// "Invalid parameter: DeliveryPolicy: " (the caller adds the prefix).
pub fn parse(text: &str, level: Level) -> Result<Policy, String> {
    let doc: Value =
        serde_json::from_str(text).map_err(|e| format!("failed to parse JSON. {e}"))?;
    let root = doc
        .as_object()
        .ok_or("failed to parse JSON. Expected a JSON object")?;
    let (body, prefix, keys) = match level {
        Level::Subscription => (
            root,
            "",
            ["healthyRetryPolicy", "throttlePolicy", "requestPolicy"],
        ),
        Level::Topic => match root.get("http") {
            None | Some(Value::Null) => return Ok(Policy::default()),
            Some(Value::Object(http)) => (
                http,
                "http.",
                [
                    "defaultHealthyRetryPolicy",
                    "defaultThrottlePolicy",
                    "defaultRequestPolicy",
                ],
            ),
            Some(_) => return Err("http must be a JSON object".into()),
        },
    };
    let object = |key: &str| match body.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(o)) => Ok(Some(o)),
        Some(_) => Err(format!("{prefix}{key} must be a JSON object")),
    };
    let mut policy = Policy::default();
    if let Some(h) = object(keys[0])? {
        policy.healthy = Some(schedule(h, &format!("{prefix}{}", keys[0]), true)?);
    }
    if let Some(t) = object(keys[1])? {
        let path = format!("{prefix}{}", keys[1]);
        policy.throttle = number(t, &path, "maxReceivesPerSecond")?;
        if policy.throttle == Some(0) {
            return Err(format!(
                "{path}.maxReceivesPerSecond must be greater than or equal to 1"
            ));
        }
    }
    if let Some(r) = object(keys[2])? {
        let path = format!("{prefix}{}", keys[2]);
        match r.get("headerContentType") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if !s.is_empty() => policy.content_type = Some(s.clone()),
            Some(_) => {
                return Err(format!(
                    "{path}.headerContentType must be a non-empty string"
                ));
            }
        }
    }
    if level == Level::Topic {
        policy.disable_subscription_overrides = body
            .get("disableSubscriptionOverrides")
            .and_then(Value::as_bool)
            .unwrap_or(false);
    }
    Ok(policy)
}

/// What is in force for one HTTP/S subscription: its own policy over the topic's (unless the
/// topic disables overrides), per sub-policy, then system defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Effective {
    pub healthy: Schedule,
    pub throttle: Option<u32>,
    pub content_type: String,
}

pub fn effective(topic: &Policy, subscription: &Policy) -> Effective {
    let (first, second) = if topic.disable_subscription_overrides {
        (topic, subscription)
    } else {
        (subscription, topic)
    };
    Effective {
        healthy: first
            .healthy
            .or(second.healthy)
            .unwrap_or(Schedule::HTTP_DEFAULT),
        throttle: first.throttle.or(second.throttle),
        content_type: first
            .content_type
            .clone()
            .or_else(|| second.content_type.clone())
            .unwrap_or_else(|| "text/plain; charset=UTF-8".into()),
    }
}

impl Effective {
    /// A subscription's `EffectiveDeliveryPolicy` attribute.
    pub fn subscription_json(&self) -> String {
        let throttle = self
            .throttle
            .map_or(Value::Null, |n| json!({"maxReceivesPerSecond": n}));
        json!({
            "healthyRetryPolicy": self.healthy.to_json(),
            "sicklyRetryPolicy": null,
            "throttlePolicy": throttle,
            "requestPolicy": {"headerContentType": self.content_type},
            "guaranteed": false,
        })
        .to_string()
    }

    /// A topic's `EffectiveDeliveryPolicy` attribute.
    pub fn topic_json(&self, disable_subscription_overrides: bool) -> String {
        let mut http = json!({
            "defaultHealthyRetryPolicy": self.healthy.to_json(),
            "disableSubscriptionOverrides": disable_subscription_overrides,
            "defaultRequestPolicy": {"headerContentType": self.content_type},
        });
        if let Some(n) = self.throttle
            && let Some(members) = http.as_object_mut()
        {
            members.insert(
                "defaultThrottlePolicy".into(),
                json!({"maxReceivesPerSecond": n}),
            );
        }
        json!({"http": http}).to_string()
    }
}

#[cfg(test)]
mod tests;

/// One attempt of a simulated schedule.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    pub attempt: u32,
    pub phase: &'static str,
    pub delay_seconds: f64,
    pub since_first_seconds: f64,
}

/// The attempts a schedule makes when every one fails, jitter off: the first attempt, then each
/// retry with its phase, nominal delay and time since the first attempt.
pub fn simulate(schedule: &Schedule) -> Vec<Attempt> {
    let mut rows = vec![Attempt {
        attempt: 1,
        phase: "initial",
        delay_seconds: 0.0,
        since_first_seconds: 0.0,
    }];
    let mut since: Millis = 0;
    let retries = (1..=schedule.num_retries).map_while(|k| Some((k, schedule.retry(k)?)));
    for (k, (phase, delay)) in retries {
        since += delay;
        rows.push(Attempt {
            attempt: k + 1,
            phase: phase.name(),
            delay_seconds: delay as f64 / 1000.0,
            since_first_seconds: since as f64 / 1000.0,
        });
    }
    rows
}

/// The schedule a subscription of `protocol` would follow under `policy` (a subscription-level
/// `DeliveryPolicy` document), validated as the API validates it. Only HTTP/S policies are
/// user-changeable; other protocols follow the policy SNS fixes for them.
pub fn schedule_for(protocol: &str, policy: Option<&str>) -> Result<Schedule, String> {
    // The name as Subscribe keeps it (lowercase); anything else is unknown.
    let Some(protocol) = Protocol::from_name(protocol) else {
        return Err(format!("unknown protocol {protocol}"));
    };
    if let Some(fixed) = Schedule::fixed_for(protocol) {
        return Ok(fixed);
    }
    let parsed = match policy {
        Some(text) => parse(text, Level::Subscription)
            .map_err(|m| format!("Invalid parameter: DeliveryPolicy: {m}"))?,
        None => Policy::default(),
    };
    Ok(effective(&Policy::default(), &parsed).healthy)
}

#[cfg(test)]
mod simulate_tests {
    use super::*;

    #[test]
    fn the_example_policy_makes_51_attempts() {
        let text = r#"{"healthyRetryPolicy":{"minDelayTarget":1,"maxDelayTarget":60,"numRetries":50,"numNoDelayRetries":3,"numMinDelayRetries":2,"numMaxDelayRetries":35,"backoffFunction":"exponential"}}"#;
        let rows = simulate(&schedule_for("https", Some(text)).unwrap());
        assert_eq!(rows.len(), 51);
        assert_eq!(rows[0].phase, "initial");
        assert_eq!(
            (rows[3].phase, rows[3].since_first_seconds),
            ("immediate", 0.0)
        );
        assert_eq!((rows[4].phase, rows[4].delay_seconds), ("pre-backoff", 1.0));
        assert_eq!(rows[50].since_first_seconds, 2592.662);
        assert_eq!(simulate(&schedule_for("sqs", None).unwrap()).len(), 100_016);
        assert!(
            schedule_for("https", Some("{"))
                .unwrap_err()
                .starts_with("Invalid parameter: DeliveryPolicy: failed to parse JSON.")
        );
    }
}
