//! The delivery log summed up on an axis of virtual time (`GET /_switchyard/deliveries/timeline`):
//! one lane per (source, message), each lane's records counted into bins of a window, so that a
//! schedule of 100,000 attempts over 23 days is drawn from a few hundred bins rather than from its
//! records, and a narrower window (a zoom) gives finer bins down to single records.
//!
//! One pass over the log, borrowing its records: nothing is allocated per record, only per lane,
//! per non-empty bin and per kind of record in a bin.
//! Part of the engine: it depends on nothing above it.

use super::log::{DeliveryLog, DeliveryRecord, rfc3339, rfc3339_opt};
use super::time::Millis;
use serde::Serialize;
use std::collections::HashMap;

/// How the bins divide the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// Equal spans of time.
    Linear,
    /// Equal spans of ln(1 + milliseconds since the window's start): the first bins hold
    /// milliseconds, the last ones hours, as on a logarithmic axis.
    Log,
}

/// What to sum up, and how finely.
#[derive(Debug, Clone)]
pub struct TimelineQuery<'q> {
    pub source: Option<&'q str>,
    pub target: Option<&'q str>,
    pub message_id: Option<&'q str>,
    /// The window; by default from the first to the last matching record.
    pub from: Option<Millis>,
    pub to: Option<Millis>,
    pub bins: u32,
    pub scale: Scale,
    /// A bin holding at most this many records lists them.
    pub detail: usize,
    /// A window holding at most this many records lists them all, whatever the bins hold.
    pub exact: usize,
    /// The most lanes answered: those with the latest records.
    pub lanes: usize,
}

/// Records of one kind in a bin: the same event, phase and outcome.
#[derive(Debug, Serialize)]
pub struct Kind {
    pub event: &'static str,
    pub phase: &'static str,
    pub outcome: Option<&'static str>,
    pub count: u64,
}

/// The records of a lane whose time falls in bin `index` of the window.
#[derive(Debug, Serialize)]
pub struct Bin<'a> {
    pub index: u32,
    pub count: u64,
    #[serde(serialize_with = "rfc3339")]
    pub first: Millis,
    #[serde(serialize_with = "rfc3339")]
    pub last: Millis,
    pub kinds: Vec<Kind>,
    /// Every record of the bin when it holds few (see [`TimelineQuery::detail`]), else none.
    pub records: Vec<&'a DeliveryRecord>,
}

/// One message of one source: its totals in the log, its ends, and its bins in the window.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Lane<'a> {
    pub source: &'a str,
    pub target: &'a str,
    pub protocol: &'a str,
    pub message_id: &'a str,
    /// Records of the lane in the log, in the window or not.
    pub records: u64,
    pub attempts: u64,
    /// Attempts made before the lane's first record in the log: they fell out of the bounded log
    /// (or it was emptied since).
    pub dropped_attempts: u32,
    pub first: &'a DeliveryRecord,
    pub last: &'a DeliveryRecord,
    pub first_attempt: Option<&'a DeliveryRecord>,
    pub last_attempt: Option<&'a DeliveryRecord>,
    /// The last dead-letter write, failed write, discard or block: how the lane ended.
    pub ending: Option<&'a DeliveryRecord>,
    /// Records of the lane before and after the window.
    pub before: u64,
    pub after: u64,
    pub bins: Vec<Bin<'a>>,
    #[serde(skip)]
    seen_last: usize,
}

/// The answer: the window, the log's bounds and the lanes.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Timeline<'a> {
    #[serde(serialize_with = "rfc3339_opt")]
    pub from: Option<Millis>,
    #[serde(serialize_with = "rfc3339_opt")]
    pub to: Option<Millis>,
    pub scale: Scale,
    pub bins: u32,
    /// Matching records in the log, and those of them in the window.
    pub records: u64,
    pub in_window: u64,
    /// Whether every record in the window is listed in its bin.
    pub exact: bool,
    /// The log's bound (`--delivery-log-size`) and the records it has let go to stay in it.
    pub capacity: usize,
    pub evicted: u64,
    pub lanes_total: usize,
    pub lanes: Vec<Lane<'a>>,
}

/// Where a time falls among the bins.
struct Axis {
    from: Millis,
    to: Millis,
    bins: u32,
    scale: Scale,
    /// The window's width in the scale's own unit: milliseconds, or ln(1 + milliseconds).
    width: f64,
}

impl Axis {
    fn new(from: Millis, to: Millis, bins: u32, scale: Scale) -> Axis {
        let span = (to - from).max(1) as f64;
        let width = match scale {
            Scale::Linear => span,
            Scale::Log => span.ln_1p(),
        };
        Axis {
            from,
            to,
            bins: bins.max(1),
            scale,
            width,
        }
    }

    fn bin(&self, at: Millis) -> u32 {
        let offset = (at - self.from) as f64;
        let position = match self.scale {
            Scale::Linear => offset,
            Scale::Log => offset.ln_1p(),
        };
        ((position / self.width * f64::from(self.bins)) as u32).min(self.bins - 1)
    }
}

impl<'q> TimelineQuery<'q> {
    fn matches(&self, r: &DeliveryRecord) -> bool {
        let eq = |want: Option<&str>, have: &str| want.is_none_or(|w| w == have);
        eq(self.source, &r.source)
            && eq(self.target, &r.target)
            && eq(self.message_id, &r.message_id)
    }
}

/// Ends of a lane: how a delivery stopped being tried.
fn is_ending(event: &str) -> bool {
    matches!(
        event,
        "dead-lettered" | "dlq-failed" | "discarded" | "blocked"
    )
}

impl DeliveryLog {
    /// The lanes and bins of `q` over this log, as `GET /_switchyard/deliveries/timeline` answers.
    pub fn timeline<'a>(&'a self, q: &TimelineQuery<'_>) -> Timeline<'a> {
        let from = q
            .from
            .or_else(|| self.iter().find(|r| q.matches(r)).map(|r| r.at));
        let to =
            q.to.or_else(|| self.iter().rev().find(|r| q.matches(r)).map(|r| r.at));
        let mut timeline = Timeline {
            from,
            to,
            scale: q.scale,
            bins: q.bins,
            records: 0,
            in_window: 0,
            exact: true,
            capacity: self.capacity(),
            evicted: self.evicted(),
            lanes_total: 0,
            lanes: Vec::new(),
        };
        let (Some(from), Some(to)) = (from, to) else {
            return timeline;
        };
        let axis = Axis::new(from, to, q.bins, q.scale);
        let mut lanes: Vec<Lane<'a>> = Vec::new();
        let mut index: HashMap<(&'a str, &'a str), usize> = HashMap::new();
        let mut current: Option<usize> = None;
        for (seq, r) in self.iter().enumerate() {
            if !q.matches(r) {
                continue;
            }
            timeline.records += 1;
            // Records of one message usually come in runs: look the lane up only when it changes.
            let at = match current {
                Some(i) if lanes[i].source == r.source && lanes[i].message_id == r.message_id => i,
                _ => *index
                    .entry((r.source.as_str(), r.message_id.as_str()))
                    .or_insert_with(|| {
                        lanes.push(Lane::new(r));
                        lanes.len() - 1
                    }),
            };
            current = Some(at);
            let lane = &mut lanes[at];
            lane.add(r, seq);
            if r.at < axis.from {
                lane.before += 1;
            } else if r.at > axis.to {
                lane.after += 1;
            } else {
                timeline.in_window += 1;
                let listing = timeline.in_window as usize <= q.exact;
                lane.bin(axis.bin(r.at), r, listing, q.detail);
            }
        }
        timeline.exact = timeline.in_window as usize <= q.exact;
        if !timeline.exact {
            for bin in lanes.iter_mut().flat_map(|l| l.bins.iter_mut()) {
                if bin.count as usize > q.detail {
                    bin.records = Vec::new();
                }
            }
        }
        timeline.lanes_total = lanes.len();
        if lanes.len() > q.lanes {
            // Keep the lanes with the latest records, in the order they began.
            let mut latest: Vec<usize> = (0..lanes.len()).collect();
            latest.sort_by_key(|&i| std::cmp::Reverse(lanes[i].seen_last));
            let mut keep = vec![false; lanes.len()];
            for &i in latest.iter().take(q.lanes) {
                keep[i] = true;
            }
            let mut flags = keep.into_iter();
            lanes.retain(|_| flags.next().unwrap_or(false));
        }
        timeline.lanes = lanes;
        timeline
    }
}

impl<'a> Lane<'a> {
    fn new(r: &'a DeliveryRecord) -> Lane<'a> {
        Lane {
            source: &r.source,
            target: &r.target,
            protocol: &r.protocol,
            message_id: &r.message_id,
            records: 0,
            attempts: 0,
            // An attempt record counts itself; any other counts the attempts made so far.
            dropped_attempts: r.attempt.saturating_sub(u32::from(r.event == "attempt")),
            first: r,
            last: r,
            first_attempt: None,
            last_attempt: None,
            ending: None,
            before: 0,
            after: 0,
            bins: Vec::new(),
            seen_last: 0,
        }
    }

    fn add(&mut self, r: &'a DeliveryRecord, seq: usize) {
        self.records += 1;
        self.last = r;
        self.seen_last = seq;
        if r.event == "attempt" {
            self.attempts += 1;
            self.first_attempt.get_or_insert(r);
            self.last_attempt = Some(r);
        } else if is_ending(r.event) {
            self.ending = Some(r);
        }
    }

    /// Counts `r` into bin `index`; lists it while the window is small (`listing`) or the bin
    /// holds at most `detail` records.
    fn bin(&mut self, index: u32, r: &'a DeliveryRecord, listing: bool, detail: usize) {
        // The log is in time order, so a record's bin is the last one or a new one after it.
        let at = match self.bins.iter().rposition(|b| b.index <= index) {
            Some(i) if self.bins[i].index == index => i,
            found => {
                let i = found.map_or(0, |i| i + 1);
                self.bins.insert(
                    i,
                    Bin {
                        index,
                        count: 0,
                        first: r.at,
                        last: r.at,
                        kinds: Vec::new(),
                        records: Vec::new(),
                    },
                );
                i
            }
        };
        let bin = &mut self.bins[at];
        bin.count += 1;
        bin.first = bin.first.min(r.at);
        bin.last = bin.last.max(r.at);
        match bin
            .kinds
            .iter_mut()
            .find(|k| k.event == r.event && k.phase == r.phase && k.outcome == r.outcome)
        {
            Some(kind) => kind.count += 1,
            None => bin.kinds.push(Kind {
                event: r.event,
                phase: r.phase,
                outcome: r.outcome,
                count: 1,
            }),
        }
        if listing || bin.count as usize <= detail {
            bin.records.push(r);
        } else if !bin.records.is_empty() {
            bin.records = Vec::new();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(at: Millis, attempt: u32, event: &'static str, message: &str) -> DeliveryRecord {
        DeliveryRecord {
            at,
            event,
            source: "sub".into(),
            target: "t".into(),
            protocol: "sqs".into(),
            message_id: message.into(),
            attempt,
            phase: if attempt == 1 { "initial" } else { "retry" },
            delay_seconds: 0.0,
            outcome: (event == "attempt").then_some("retryable"),
            status: Some(500),
            error_code: None,
            next_attempt_at: None,
        }
    }

    fn query(bins: u32, scale: Scale) -> TimelineQuery<'static> {
        TimelineQuery {
            source: Some("sub"),
            target: None,
            message_id: None,
            from: None,
            to: None,
            bins,
            scale,
            detail: 2,
            exact: 0,
            lanes: 10,
        }
    }

    /// Attempts 1..=n of message `m`, one a second from `start`, then a dead-letter record.
    fn schedule(log: &mut DeliveryLog, m: &str, start: Millis, n: u32) {
        for attempt in 1..=n {
            log.push(record(
                start + Millis::from(attempt - 1) * 1000,
                attempt,
                "attempt",
                m,
            ));
        }
        log.push(record(
            start + Millis::from(n - 1) * 1000,
            n,
            "dead-lettered",
            m,
        ));
    }

    #[test]
    fn bins_count_every_record_and_list_only_the_sparse_ones() {
        let mut log = DeliveryLog::new(1000);
        schedule(&mut log, "a", 0, 100);
        let t = log.timeline(&query(10, Scale::Linear));
        assert_eq!((t.records, t.in_window, t.exact), (101, 101, false));
        let lane = &t.lanes[0];
        assert_eq!((lane.attempts, lane.dropped_attempts), (100, 0));
        assert_eq!(lane.ending.map(|r| r.event), Some("dead-lettered"));
        assert_eq!(lane.bins.len(), 10);
        assert_eq!(lane.bins.iter().map(|b| b.count).sum::<u64>(), 101);
        assert!(lane.bins.iter().all(|b| b.records.is_empty()));
        let last = &lane.bins[9];
        assert_eq!(last.kinds.len(), 2, "retries and the dead letter");
        // A window of the first 1.5 s: two records, listed.
        let zoom = TimelineQuery {
            from: Some(0),
            to: Some(1500),
            ..query(10, Scale::Linear)
        };
        let t = log.timeline(&zoom);
        let lane = &t.lanes[0];
        assert_eq!((lane.before, lane.after, t.in_window), (0, 99, 2));
        let listed: Vec<_> = lane
            .bins
            .iter()
            .map(|b| (b.index, b.records.len()))
            .collect();
        assert_eq!(listed, [(0, 1), (6, 1)]);
    }

    #[test]
    fn a_log_scale_gives_the_first_milliseconds_bins_of_their_own() {
        let mut log = DeliveryLog::new(1000);
        for (at, attempt) in [(0, 1), (1, 2), (10, 3), (86_400_000, 4)] {
            log.push(record(at, attempt, "attempt", "a"));
        }
        let t = log.timeline(&query(100, Scale::Log));
        let bins: Vec<_> = t.lanes[0].bins.iter().map(|b| b.index).collect();
        assert_eq!(bins.len(), 4, "{bins:?}");
        assert_eq!(*bins.last().unwrap(), 99);
        let t = log.timeline(&query(100, Scale::Linear));
        assert_eq!(t.lanes[0].bins.len(), 2);
    }

    #[test]
    fn a_lane_whose_start_left_the_log_says_how_many_attempts_went() {
        let mut log = DeliveryLog::new(50);
        schedule(&mut log, "a", 0, 60);
        let t = log.timeline(&query(5, Scale::Linear));
        assert_eq!(t.evicted, 11);
        let lane = &t.lanes[0];
        assert_eq!(lane.first.attempt, 12);
        assert_eq!((lane.dropped_attempts, lane.attempts), (11, 49));
    }

    #[test]
    fn lanes_beyond_the_limit_are_the_oldest_and_left_out() {
        let mut log = DeliveryLog::new(1000);
        for (i, m) in ["a", "b", "c"].into_iter().enumerate() {
            schedule(&mut log, m, i as Millis * 10_000, 3);
        }
        let t = log.timeline(&TimelineQuery {
            lanes: 2,
            exact: 100,
            ..query(10, Scale::Linear)
        });
        assert_eq!(t.lanes_total, 3);
        let ids: Vec<_> = t.lanes.iter().map(|l| l.message_id).collect();
        assert_eq!(ids, ["b", "c"]);
        assert!(t.exact);
        assert!(
            t.lanes
                .iter()
                .flat_map(|l| &l.bins)
                .all(|b| b.records.len() as u64 == b.count)
        );
    }
}
