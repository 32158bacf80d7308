//! The custom bus's state: buses with their retained events, subscribers with their settings
//! parsed once (patterns compiled, defaults filled in), tags, and the publish-time dedup window.
//! Plain data: it imports no operation, so the state can hold it.

use super::retry::SubscriberRetry;
use crate::engine::time::Millis;
use crate::state::match_index::{MatchIndex, Needs};
use crate::state::pattern::{EventPattern, strings_at};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// How long a dedup key suppresses repeats: 5 minutes from the entry it repeats.
pub const DEDUP_WINDOW_MS: Millis = 300_000;
/// Days a bus keeps its events when CreateEventBus gives no RetentionPeriodInDays (decision:
/// AWS documents the range 1-365 but no default; docs/custom-bus.md).
pub const DEFAULT_RETENTION_DAYS: i64 = 7;

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Store {
    /// Bus ARN → bus.
    pub buses: BTreeMap<String, Bus>,
    /// Subscriber ARN → subscriber.
    pub subscribers: BTreeMap<String, Subscriber>,
    /// Resource ARN → tags, in key order.
    pub tags: BTreeMap<String, BTreeMap<String, String>>,
    /// Dedup scope and key → (when the entry it repeats was accepted, that entry's event id).
    #[serde(with = "crate::pairs")]
    pub dedup: HashMap<DedupKey, (Millis, String)>,
    /// Bus ARN → its subscribers by what their EVENT filters require of an event's envelope
    /// (issue 17): [`Store::file_subscriber`] after a subscriber is made or its filters change,
    /// [`Store::remove_subscriber`] deletes one.
    #[serde(skip)]
    pub routes: BTreeMap<String, MatchIndex<String>>,
}

impl Store {
    /// Files subscriber `arn` for routing under what its filters require.
    pub fn file_subscriber(&mut self, arn: &str) {
        if let Some(s) = self.subscribers.get(arn) {
            let index = self.routes.entry(s.bus_arn.clone()).or_default();
            index.insert(s.arn.clone(), s.needs());
        }
    }

    /// Deletes subscriber `arn`, out of the routing index too.
    pub fn remove_subscriber(&mut self, arn: &str) -> Option<Subscriber> {
        let s = self.subscribers.remove(arn)?;
        if let Some(index) = self.routes.get_mut(&s.bus_arn) {
            index.remove(&s.arn);
        }
        Some(s)
    }

    /// The subscribers of a bus whose filters could match an event with one of these
    /// envelopes, in ARN order (the order they are delivered to).
    pub fn candidates(&self, bus_arn: &str, envelopes: &[Value]) -> Vec<&Subscriber> {
        let Some(index) = self.routes.get(bus_arn) else {
            return Vec::new();
        };
        let mut arns: Vec<&String> = envelopes
            .iter()
            .flat_map(|ev| index.candidates(|key| strings_at(ev, key)))
            .collect();
        arns.sort_unstable();
        arns.dedup();
        arns.into_iter()
            .filter_map(|arn| self.subscribers.get(arn))
            .collect()
    }
}

/// The scope of a dedup key: the bus, the publishing account and the event group (`None` for
/// ungrouped entries, which share one scope per account and bus).
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct DedupKey {
    pub bus_arn: String,
    pub account: String,
    pub group: Option<String>,
    pub key: String,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Bus {
    pub arn: String,
    pub name: String,
    pub account: String,
    pub region: String,
    pub description: Option<String>,
    pub retention_days: i64,
    pub created_at: Millis,
    pub modified_at: Millis,
    /// Every event the bus accepted within its retention period, in publish order.
    pub events: Vec<Retained>,
    /// The last SequenceNumber handed out.
    pub sequence: u64,
}

impl Bus {
    /// Forgets the events older than the retention period.
    pub fn expire(&mut self, now: Millis) {
        let keep_from = now - self.retention_days * 86_400_000;
        self.events.retain(|ev| ev.ingested_at >= keep_from);
    }
}

/// An event as the bus keeps it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Retained {
    pub id: String,
    /// The publishing account.
    pub account: String,
    pub region: String,
    pub source: String,
    pub detail_type: String,
    pub detail: serde_json::Value,
    pub resources: Vec<String>,
    /// The event's `time` (the entry's Time, or when it was published).
    pub time: Millis,
    pub group: Option<String>,
    pub dedup_id: Option<String>,
    pub ingested_at: Millis,
    /// The custom buses the event passed, this one included (loop detection).
    pub trail: Vec<String>,
    /// Its SequenceNumber on the bus (event streams keep their place by it).
    pub sequence: u64,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Subscriber {
    pub arn: String,
    pub name: String,
    pub account: String,
    pub region: String,
    /// The host clients reached the emulator at (for SNS targets' URLs).
    pub host: String,
    pub bus_arn: String,
    pub fifo: bool,
    pub point_in_time: Option<PointInTime>,
    pub filters: Vec<Filter>,
    pub invoke: Invoke,
    pub retry: SubscriberRetry,
    pub on_failure: Option<String>,
    pub description: Option<String>,
    pub created_at: Millis,
    pub modified_at: Millis,
}

impl Subscriber {
    /// What its filters require of an event's envelope, for the routing index: those of every
    /// EVENT filter together, as all must match (SYSTEM_METADATA filters are not looked up).
    pub fn needs(&self) -> Needs {
        let event_filters = self.filters.iter().filter(|f| f.scope != "SYSTEM_METADATA");
        let fields = event_filters.flat_map(|f| f.pattern.needs().into_iter().flatten());
        vec![fields.collect()]
    }

    /// Whether live events go to this subscriber: LATEST ones, and POINT_IN_TIME ones without an
    /// EndPoint (which go on from their replay to live traffic).
    pub fn live(&self) -> bool {
        self.point_in_time.as_ref().is_none_or(|p| p.end.is_none())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PointInTime {
    pub start: Option<Millis>,
    pub end: Option<Millis>,
}

/// Written as its text; read back, the pattern is compiled again.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(into = "RawFilter", try_from = "RawFilter")]
pub struct Filter {
    /// `EVENT` or `SYSTEM_METADATA`.
    pub scope: String,
    pub text: String,
    pub pattern: EventPattern,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Invoke {
    pub target_arn: String,
    pub role_arn: String,
    pub invocation_type: String,
    pub timeout_seconds: Option<i64>,
    pub max_batch_size: usize,
    pub input: Option<String>,
    pub transformer: Option<Transformer>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Transformer {
    pub paths: BTreeMap<String, String>,
    pub template: String,
}

/// [`Filter`] as a snapshot holds it.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct RawFilter {
    scope: String,
    text: String,
}

impl From<Filter> for RawFilter {
    fn from(f: Filter) -> Self {
        RawFilter {
            scope: f.scope,
            text: f.text,
        }
    }
}

impl TryFrom<RawFilter> for Filter {
    type Error = serde::de::value::Error;

    fn try_from(r: RawFilter) -> Result<Self, Self::Error> {
        let pattern = crate::state::pattern::as_text::compile(&r.text)?;
        Ok(Filter {
            scope: r.scope,
            text: r.text,
            pattern,
        })
    }
}
