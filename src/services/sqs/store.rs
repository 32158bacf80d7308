//! SQS state: queues per (account, region, name) and their messages. Visibility, delay,
//! retention and deduplication are timestamps compared with `now` when read; only move tasks
//! need timers.

use super::attributes::{DedupScope, QueueAttributes};
use super::errors::SqsError;
use super::shapes::MessageAttributeValue;
use crate::arn::Arn;
use crate::engine::time::Millis;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// How long a FIFO deduplication id and a ReceiveRequestAttemptId are remembered.
pub const DEDUP_INTERVAL_MS: Millis = 5 * 60 * 1000;
/// The longest a message may stay invisible after the receive that hid it.
pub const MAX_VISIBILITY_MS: Millis = 43_200 * 1000;
/// In-flight messages a standard queue holds before ReceiveMessage answers OverLimit.
pub const MAX_IN_FLIGHT: usize = 120_000;
/// The `visible_at` of a message an event stream holds while it delivers it: invisible until the
/// stream deletes or releases it, whatever the visibility timeout.
pub const HELD: Millis = Millis::MAX / 4;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct QueueKey {
    pub account: String,
    pub region: String,
    pub name: String,
}

impl QueueKey {
    pub fn arn(&self) -> String {
        Arn::new("sqs", &self.region, &self.account, &self.name).to_string()
    }

    /// `arn:<partition>:sqs:<region>:<account>:<name>` → its key; the region, account and name
    /// are not empty and the name holds no `:`.
    pub fn from_arn(arn: &str) -> Option<QueueKey> {
        let arn = Arn::parse(arn)?;
        let ok = arn.service == "sqs"
            && !arn.region.is_empty()
            && !arn.account.is_empty()
            && !arn.resource.is_empty()
            && !arn.resource.contains(':');
        ok.then(|| QueueKey {
            account: arn.account.into(),
            region: arn.region.into(),
            name: arn.resource.into(),
        })
    }
}

/// A message as sent, before the queue takes it.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub body: String,
    pub md5_of_body: String,
    pub attributes: BTreeMap<String, MessageAttributeValue>,
    pub md5_of_attributes: Option<String>,
    pub trace_header: Option<String>,
    pub md5_of_system_attributes: Option<String>,
    pub sender_id: Arc<str>,
    pub group_id: Option<String>,
    /// FIFO: the explicit or content-based deduplication id.
    pub dedup_id: Option<String>,
    pub delay_ms: Millis,
}

#[derive(Debug, Clone)]
pub struct Message {
    pub id: String,
    pub body: String,
    pub md5_of_body: String,
    pub attributes: BTreeMap<String, MessageAttributeValue>,
    pub trace_header: Option<String>,
    pub sender_id: Arc<str>,
    pub group_id: Option<String>,
    pub dedup_id: Option<String>,
    pub sequence_number: Option<u128>,
    pub dead_letter_source_arn: Option<Arc<str>>,
    pub sent_at: Millis,
    pub visible_at: Millis,
    pub receive_count: u32,
    pub first_received_at: Option<Millis>,
    /// The receive that holds it: a nonce for its receipt handle and when it happened.
    pub receipt: Option<(u64, Millis)>,
}

/// What SendMessage answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Sent {
    pub message_id: String,
    pub sequence_number: Option<u128>,
    /// A duplicate inside the deduplication interval: accepted, not enqueued.
    pub duplicate: bool,
}

#[derive(Debug, Clone)]
struct Dedup {
    until: Millis,
    message_id: String,
    sequence_number: Option<u128>,
}

#[derive(Debug, Clone)]
struct Attempt {
    until: Millis,
    /// (sequence in queue, receipt nonce, visible_at after that receive)
    taken: Vec<(u64, u64, Millis)>,
}

/// Messages handed out by one receive, with the sequence numbers that name them in handles.
#[derive(Debug, Default)]
pub struct Received {
    pub messages: Vec<(u64, Message)>,
    /// Messages past the redrive policy's maxReceiveCount, to go to the dead-letter queue.
    pub dead_lettered: Vec<Message>,
}

#[derive(Debug)]
pub struct Queue {
    pub key: QueueKey,
    pub arn: String,
    pub created_at: Millis,
    pub modified_at: Millis,
    pub attributes: QueueAttributes,
    pub tags: BTreeMap<String, String>,
    pub purged_at: Option<Millis>,
    messages: BTreeMap<u64, Message>,
    next_seq: u64,
    next_sequence_number: u128,
    dedup: HashMap<(Option<String>, String), Dedup>,
    attempts: HashMap<String, Attempt>,
    /// The earliest send time among dead-lettered messages here (they break send order).
    oldest_moved_sent_at: Option<Millis>,
    /// Received messages not yet known to be visible again (exact after `count_in_flight`).
    in_flight_hint: usize,
}

impl Queue {
    pub fn new(key: QueueKey, now: Millis, attributes: QueueAttributes) -> Self {
        Queue {
            arn: key.arn(),
            key,
            created_at: now,
            modified_at: now,
            attributes,
            tags: BTreeMap::new(),
            purged_at: None,
            messages: BTreeMap::new(),
            next_seq: 0,
            // FIFO sequence numbers are large, increasing and not consecutive, as in SQS.
            next_sequence_number: 18_000_000_000_000_000_000,
            dedup: HashMap::new(),
            attempts: HashMap::new(),
            oldest_moved_sent_at: None,
            in_flight_hint: 0,
        }
    }

    pub fn is_fifo(&self) -> bool {
        self.attributes.fifo
    }

    fn retention_ms(&self) -> Millis {
        self.attributes.retention_s * 1000
    }

    fn enqueue(&mut self, message: Message) {
        self.next_seq += 1;
        self.messages.insert(self.next_seq, message);
    }

    fn take_sequence_number(&mut self) -> u128 {
        self.next_sequence_number += 1 + u128::from(self.next_seq % 7);
        self.next_sequence_number
    }

    /// Takes a new message, or recognises a FIFO duplicate inside the deduplication interval.
    pub fn send(&mut self, now: Millis, id: String, m: Outgoing) -> Sent {
        let dedup_key = m.dedup_id.clone().map(|d| {
            let scope = match self.attributes.dedup_scope {
                DedupScope::Queue => None,
                DedupScope::MessageGroup => m.group_id.clone(),
            };
            (scope, d)
        });
        if let Some(key) = &dedup_key {
            if self.dedup.len() > 1024 {
                self.dedup.retain(|_, d| d.until > now);
            }
            if let Some(d) = self.dedup.get(key).filter(|d| d.until > now) {
                return Sent {
                    message_id: d.message_id.clone(),
                    sequence_number: d.sequence_number,
                    duplicate: true,
                };
            }
        }
        let sequence_number = self.is_fifo().then(|| self.take_sequence_number());
        if let Some(key) = dedup_key {
            let until = now + DEDUP_INTERVAL_MS;
            self.dedup.insert(
                key,
                Dedup {
                    until,
                    message_id: id.clone(),
                    sequence_number,
                },
            );
        }
        self.enqueue(Message {
            id: id.clone(),
            body: m.body,
            md5_of_body: m.md5_of_body,
            attributes: m.attributes,
            trace_header: m.trace_header,
            sender_id: m.sender_id,
            group_id: m.group_id,
            dedup_id: m.dedup_id,
            sequence_number,
            dead_letter_source_arn: None,
            sent_at: now,
            visible_at: now + m.delay_ms,
            receive_count: 0,
            first_received_at: None,
            receipt: None,
        });
        Sent {
            message_id: id,
            sequence_number,
            duplicate: false,
        }
    }

    /// Takes a message moved here from another queue (dead-lettering, move tasks).
    pub fn take_moved(&mut self, mut message: Message, now: Millis) {
        message.visible_at = now;
        message.receive_count = 0;
        message.first_received_at = None;
        message.receipt = None;
        if self.is_fifo() {
            // A FIFO dead-letter queue replaces the deduplication id with the message id.
            message.dedup_id = Some(message.id.clone());
            message.group_id.get_or_insert_with(|| message.id.clone());
            message.sequence_number = Some(self.take_sequence_number());
        } else {
            message.sequence_number = None;
        }
        if message.dead_letter_source_arn.is_some() {
            let oldest = self.oldest_moved_sent_at.get_or_insert(message.sent_at);
            *oldest = (*oldest).min(message.sent_at);
        }
        self.enqueue(message);
    }

    fn expired(&self, m: &Message, now: Millis) -> bool {
        m.sent_at + self.retention_ms() <= now
    }

    /// Drops messages past their retention period.
    fn expire(&mut self, now: Millis) {
        let retention = self.retention_ms();
        // Messages are mostly in send order: drop from the front, then sweep the rest when
        // moved (older) messages may hide behind newer ones.
        while let Some(entry) = self.messages.first_entry() {
            if entry.get().sent_at + retention > now {
                break;
            }
            entry.remove();
        }
        // Dead-lettered messages keep their original send time and may hide behind newer ones.
        if self
            .oldest_moved_sent_at
            .is_some_and(|at| at + retention <= now)
        {
            self.messages.retain(|_, m| m.sent_at + retention > now);
            self.oldest_moved_sent_at = self
                .messages
                .values()
                .filter(|m| m.dead_letter_source_arn.is_some())
                .map(|m| m.sent_at)
                .min();
        }
    }

    /// Hands out up to `max` visible messages, hiding each for `visibility_ms`. A message
    /// received `max_receives` times already goes to `dead_lettered` instead.
    pub fn receive(
        &mut self,
        now: Millis,
        max: usize,
        visibility_ms: Millis,
        max_receives: Option<u32>,
        attempt_id: Option<&str>,
        mut nonce: impl FnMut() -> u64,
    ) -> Result<Received, SqsError> {
        self.expire(now);
        if let Some(again) = attempt_id.and_then(|id| self.repeat_attempt(id, now, visibility_ms)) {
            return Ok(again);
        }
        if !self.is_fifo()
            && self.in_flight_hint >= MAX_IN_FLIGHT
            && self.count_in_flight(now) >= MAX_IN_FLIGHT
        {
            return Err(SqsError::OverLimit("Too many messages in flight.".into()));
        }
        let mut received = Received::default();
        let mut chosen: Vec<u64> = Vec::new();
        let mut to_dlq: Vec<u64> = Vec::new();
        if self.is_fifo() {
            // A group with a message in flight delivers nothing; a delayed message stops its
            // group there, so nothing overtakes it, while earlier messages still go out.
            let mut blocked: HashSet<&str> = self
                .messages
                .values()
                .filter(|m| m.visible_at > now && m.receipt.is_some())
                .filter_map(|m| m.group_id.as_deref())
                .collect();
            let mut groups: Vec<(&str, Vec<u64>)> = Vec::new();
            let mut index: HashMap<&str, usize> = HashMap::new();
            for (seq, m) in &self.messages {
                let group = m.group_id.as_deref().unwrap_or_default();
                if blocked.contains(group) {
                    continue;
                }
                if m.visible_at > now {
                    blocked.insert(group);
                    continue;
                }
                if max_receives.is_some_and(|n| m.receive_count >= n) {
                    to_dlq.push(*seq);
                    continue;
                }
                match index.get(group) {
                    Some(&i) => groups[i].1.push(*seq),
                    None => {
                        index.insert(group, groups.len());
                        groups.push((group, vec![*seq]));
                    }
                }
            }
            // As many of one group as possible, in order, then the next group.
            chosen.extend(groups.into_iter().flat_map(|(_, seqs)| seqs).take(max));
        } else {
            for (seq, m) in &self.messages {
                if chosen.len() == max {
                    break;
                }
                if m.visible_at > now {
                    continue;
                }
                if max_receives.is_some_and(|n| m.receive_count >= n) {
                    to_dlq.push(*seq);
                } else {
                    chosen.push(*seq);
                }
            }
        }
        for seq in to_dlq {
            if let Some(m) = self.messages.remove(&seq) {
                received.dead_lettered.push(m);
            }
        }
        for seq in chosen {
            let m = self.messages.get_mut(&seq).expect("chosen from the map");
            m.receive_count += 1;
            m.first_received_at.get_or_insert(now);
            m.visible_at = now + visibility_ms;
            m.receipt = Some((nonce(), now));
            received.messages.push((seq, m.clone()));
        }
        self.in_flight_hint += received.messages.len();
        if let Some(id) = attempt_id {
            let taken = received
                .messages
                .iter()
                .map(|(seq, m)| (*seq, m.receipt.map_or(0, |r| r.0), m.visible_at))
                .collect();
            self.attempts.retain(|_, a| a.until > now);
            self.attempts.insert(
                id.to_string(),
                Attempt {
                    until: now + DEDUP_INTERVAL_MS,
                    taken,
                },
            );
        }
        Ok(received)
    }

    /// A FIFO retry with the same ReceiveRequestAttemptId inside 5 minutes gets the same
    /// messages and receipt handles, visibility restarted, if none was deleted or changed.
    fn repeat_attempt(&mut self, id: &str, now: Millis, visibility_ms: Millis) -> Option<Received> {
        let attempt = self.attempts.get(id).filter(|a| a.until > now)?.clone();
        let unchanged = attempt.taken.iter().all(|(seq, nonce, visible_at)| {
            self.messages.get(seq).is_some_and(|m| {
                m.receipt.map(|r| r.0) == Some(*nonce) && m.visible_at == *visible_at
            })
        });
        if !unchanged {
            self.attempts.remove(id);
            return None;
        }
        let mut again = Received::default();
        let mut taken = Vec::new();
        for (seq, nonce, _) in attempt.taken {
            let m = self.messages.get_mut(&seq).expect("checked above");
            m.visible_at = now + visibility_ms;
            taken.push((seq, nonce, m.visible_at));
            again.messages.push((seq, m.clone()));
        }
        self.attempts.insert(
            id.to_string(),
            Attempt {
                until: attempt.until,
                taken,
            },
        );
        Some(again)
    }

    fn count_in_flight(&mut self, now: Millis) -> usize {
        self.in_flight_hint = self
            .messages
            .values()
            .filter(|m| m.receipt.is_some() && m.visible_at > now)
            .count();
        self.in_flight_hint
    }

    /// The message a receipt handle names, if that handle is still the current one.
    fn held(&mut self, seq: u64, nonce: u64) -> Option<&mut Message> {
        self.messages
            .get_mut(&seq)
            .filter(|m| m.receipt.is_some_and(|r| r.0 == nonce))
    }

    /// Deletes the message of a receipt handle. An outdated handle deletes nothing and succeeds
    /// on a standard queue; a FIFO queue calls it expired.
    pub fn delete(&mut self, seq: u64, nonce: u64, now: Millis) -> Result<(), Visibility> {
        let fifo = self.is_fifo();
        match self.held(seq, nonce) {
            Some(m) if fifo && m.visible_at <= now => Err(Visibility::Expired),
            Some(_) => {
                self.messages.remove(&seq);
                self.in_flight_hint = self.in_flight_hint.saturating_sub(1);
                Ok(())
            }
            None if fifo => Err(Visibility::Expired),
            None => Ok(()),
        }
    }

    /// Hides the message of a receipt handle for `timeout_ms` from now.
    pub fn change_visibility(
        &mut self,
        seq: u64,
        nonce: u64,
        now: Millis,
        timeout_ms: Millis,
    ) -> Result<(), Visibility> {
        let m = self.held(seq, nonce).ok_or(Visibility::Expired)?;
        if m.visible_at <= now {
            return Err(Visibility::NotInFlight);
        }
        let received_at = m.receipt.map_or(now, |r| r.1);
        if now + timeout_ms > received_at + MAX_VISIBILITY_MS {
            return Err(Visibility::BeyondLimit);
        }
        m.visible_at = now + timeout_ms;
        Ok(())
    }

    pub fn purge(&mut self) {
        self.messages.clear();
        self.in_flight_hint = 0;
    }

    /// (visible, in flight, delayed) messages now.
    pub fn counts(&self, now: Millis) -> (usize, usize, usize) {
        let (mut visible, mut in_flight, mut delayed) = (0, 0, 0);
        for m in self.messages.values().filter(|m| !self.expired(m, now)) {
            if m.visible_at <= now {
                visible += 1;
            } else if m.receipt.is_some() {
                in_flight += 1;
            } else {
                delayed += 1;
            }
        }
        (visible, in_flight, delayed)
    }

    /// When the next hidden (delayed or in-flight) message becomes visible; messages held by an
    /// event stream ([`HELD`]) only do when it releases them.
    pub fn next_visible_at(&self, now: Millis) -> Option<Millis> {
        self.messages
            .values()
            .map(|m| m.visible_at)
            .filter(|&at| at > now && at < HELD)
            .min()
    }

    /// Makes the message of a receipt handle visible again now (an event stream letting go of
    /// a message it held); an outdated handle changes nothing.
    pub fn release(&mut self, seq: u64, nonce: u64, now: Millis) {
        if let Some(m) = self.held(seq, nonce) {
            m.visible_at = now;
        }
    }

    /// Takes up to `max` visible messages out of the queue (move tasks).
    pub fn take_visible(&mut self, now: Millis, max: usize) -> Vec<Message> {
        self.expire(now);
        let seqs: Vec<u64> = self
            .messages
            .iter()
            .filter(|(_, m)| m.visible_at <= now)
            .map(|(s, _)| *s)
            .take(max)
            .collect();
        seqs.into_iter()
            .filter_map(|s| self.messages.remove(&s))
            .collect()
    }

    /// Puts messages taken by [`Queue::take_visible`] back, in their order.
    pub fn put_back(&mut self, messages: Vec<Message>) {
        for m in messages {
            self.enqueue(m);
        }
    }
}

/// Why a receipt handle was refused (ChangeMessageVisibility, FIFO DeleteMessage).
#[derive(Debug, PartialEq)]
pub enum Visibility {
    Expired,
    NotInFlight,
    BeyondLimit,
}

#[derive(Debug, Default)]
pub struct Store {
    pub queues: BTreeMap<QueueKey, Queue>,
    /// When queues were deleted: the name is not free again for 60 s.
    pub deleted_at: HashMap<QueueKey, Millis>,
    pub tasks: Vec<MoveTask>,
}

impl Store {
    pub fn reset(&mut self) {
        self.queues.clear();
        self.deleted_at.clear();
        self.tasks.clear();
    }

    pub fn by_arn(&self, arn: &str) -> Option<&Queue> {
        self.queues.get(&QueueKey::from_arn(arn)?)
    }

    pub fn by_arn_mut(&mut self, arn: &str) -> Option<&mut Queue> {
        self.queues.get_mut(&QueueKey::from_arn(arn)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue(fifo: bool) -> Queue {
        let attributes = QueueAttributes {
            fifo,
            ..QueueAttributes::default()
        };
        let key = QueueKey {
            account: "000000000000".into(),
            region: "us-east-1".into(),
            name: "q".into(),
        };
        Queue::new(key, 0, attributes)
    }

    fn out(body: &str, group: Option<&str>, dedup: Option<&str>) -> Outgoing {
        Outgoing {
            body: body.into(),
            md5_of_body: String::new(),
            attributes: BTreeMap::new(),
            md5_of_attributes: None,
            trace_header: None,
            md5_of_system_attributes: None,
            sender_id: Arc::from("000000000000"),
            group_id: group.map(str::to_string),
            dedup_id: dedup.map(str::to_string),
            delay_ms: 0,
        }
    }

    fn bodies(r: &Received) -> Vec<&str> {
        r.messages.iter().map(|(_, m)| m.body.as_str()).collect()
    }

    #[test]
    fn fifo_groups_block_while_in_flight_and_keep_order() {
        let mut q = queue(true);
        for (i, (body, group)) in [
            ("a1", "a"),
            ("b1", "b"),
            ("a2", "a"),
            ("b2", "b"),
            ("a3", "a"),
        ]
        .iter()
        .enumerate()
        {
            q.send(0, format!("id{i}"), out(body, Some(group), Some(body)));
        }
        let mut n = 0;
        let mut nonce = || {
            n += 1;
            n
        };
        let r = q.receive(0, 2, 30_000, None, None, &mut nonce).unwrap();
        assert_eq!(
            bodies(&r),
            ["a1", "a2"],
            "as many of one group as possible, in order"
        );
        let r = q.receive(0, 10, 30_000, None, None, &mut nonce).unwrap();
        assert_eq!(
            bodies(&r),
            ["b1", "b2"],
            "group a is blocked while a1 and a2 are in flight"
        );
        let (seq, m) = &q
            .receive(30_000, 10, 30_000, None, None, &mut nonce)
            .unwrap()
            .messages[0];
        assert_eq!(m.body, "a1", "visible again after the timeout, still first");
        let nonce_a1 = m.receipt.unwrap().0;
        assert!(q.delete(*seq, nonce_a1, 30_000).is_ok());
    }

    #[test]
    fn a_delayed_fifo_message_stops_its_group_without_blocking_earlier_ones() {
        let mut q = queue(true);
        q.send(0, "m1".into(), out("m1", Some("g"), Some("1")));
        let mut later = out("m2", Some("g"), Some("2"));
        later.delay_ms = 10_000;
        q.send(0, "m2".into(), later);
        q.send(0, "m3".into(), out("m3", Some("g"), Some("3")));
        q.send(0, "o1".into(), out("o1", Some("other"), Some("4")));
        let r = q.receive(0, 10, 30_000, None, None, || 1).unwrap();
        assert_eq!(
            bodies(&r),
            ["m1", "o1"],
            "m3 may not overtake the delayed m2"
        );
    }

    #[test]
    fn fifo_duplicates_inside_five_minutes_return_the_original() {
        let mut q = queue(true);
        let first = q.send(0, "m1".into(), out("x", Some("g"), Some("d")));
        let dup = q.send(
            DEDUP_INTERVAL_MS - 1,
            "m2".into(),
            out("x", Some("g"), Some("d")),
        );
        assert!(dup.duplicate);
        assert_eq!(dup.message_id, "m1");
        assert_eq!(dup.sequence_number, first.sequence_number);
        let later = q.send(
            DEDUP_INTERVAL_MS,
            "m3".into(),
            out("x", Some("g"), Some("d")),
        );
        assert!(!later.duplicate);
        assert!(later.sequence_number > first.sequence_number);
        assert_eq!(q.counts(DEDUP_INTERVAL_MS), (2, 0, 0));
    }

    #[test]
    fn dedup_scope_message_group_separates_groups() {
        let mut q = queue(true);
        q.attributes.dedup_scope = DedupScope::MessageGroup;
        q.send(0, "m1".into(), out("x", Some("g1"), Some("d")));
        assert!(
            !q.send(0, "m2".into(), out("x", Some("g2"), Some("d")))
                .duplicate
        );
        assert!(
            q.send(0, "m3".into(), out("x", Some("g1"), Some("d")))
                .duplicate
        );
    }

    #[test]
    fn messages_over_max_receives_are_dead_lettered() {
        let mut q = queue(false);
        q.send(0, "m1".into(), out("x", None, None));
        let mut nonce = || 1;
        for t in [0, 10, 20] {
            assert_eq!(
                q.receive(t, 1, 10, Some(3), None, &mut nonce)
                    .unwrap()
                    .messages
                    .len(),
                1
            );
        }
        let r = q.receive(30, 1, 10, Some(3), None, &mut nonce).unwrap();
        assert!(r.messages.is_empty());
        assert_eq!(r.dead_lettered.len(), 1);
        assert_eq!(q.counts(30), (0, 0, 0));
    }

    #[test]
    fn dead_lettered_messages_expire_by_their_original_send_time() {
        let mut dlq = queue(false);
        dlq.attributes.retention_s = 60;
        dlq.send(50_000, "newer".into(), out("newer", None, None));
        let mut old = queue(false);
        old.send(0, "old".into(), out("old", None, None));
        let mut moved = old.take_visible(10_000, 1).pop().unwrap();
        moved.dead_letter_source_arn = Some(Arc::from("arn:aws:sqs:us-east-1:000000000000:q"));
        dlq.take_moved(moved, 10_000);
        assert_eq!(dlq.counts(59_999), (2, 0, 0));
        let r = dlq.receive(60_000, 10, 0, None, None, || 1).unwrap();
        let bodies: Vec<_> = r.messages.iter().map(|(_, m)| m.body.as_str()).collect();
        assert_eq!(
            bodies,
            ["newer"],
            "the moved message expired 60 s after its first send"
        );
    }

    #[test]
    fn retention_expires_messages() {
        let mut q = queue(false);
        q.attributes.retention_s = 60;
        q.send(0, "m1".into(), out("x", None, None));
        assert_eq!(q.counts(59_999), (1, 0, 0));
        assert_eq!(q.counts(60_000), (0, 0, 0));
        assert!(
            q.receive(60_000, 1, 0, None, None, || 1)
                .unwrap()
                .messages
                .is_empty()
        );
    }

    #[test]
    fn visibility_changes_are_bounded_by_twelve_hours_from_the_receive() {
        let mut q = queue(false);
        q.send(0, "m1".into(), out("x", None, None));
        let r = q.receive(0, 1, 30_000, None, None, || 7).unwrap();
        let seq = r.messages[0].0;
        assert_eq!(q.change_visibility(seq, 8, 0, 10), Err(Visibility::Expired));
        assert_eq!(
            q.change_visibility(seq, 7, 1_000, MAX_VISIBILITY_MS),
            Err(Visibility::BeyondLimit)
        );
        assert_eq!(
            q.change_visibility(seq, 7, 1_000, MAX_VISIBILITY_MS - 1_000),
            Ok(())
        );
        assert_eq!(
            q.change_visibility(seq, 7, MAX_VISIBILITY_MS, 10),
            Err(Visibility::NotInFlight)
        );
    }

    #[test]
    fn arns_name_queues() {
        let k = QueueKey::from_arn("arn:aws:sqs:eu-west-1:111122223333:jobs.fifo").unwrap();
        assert_eq!(
            (k.region.as_str(), k.account.as_str(), k.name.as_str()),
            ("eu-west-1", "111122223333", "jobs.fifo")
        );
        assert_eq!(k.arn(), "arn:aws:sqs:eu-west-1:111122223333:jobs.fifo");
        assert!(QueueKey::from_arn("arn:aws:sns:eu-west-1:1:x").is_none());
        assert!(QueueKey::from_arn("arn:aws:sqs:eu-west-1:1").is_none());
        for refused in [
            "arn:aws:sqs:eu-west-1:1:q:x",
            "arn:aws:sqs::1:q",
            "arn:aws:sqs:eu-west-1::q",
            "arn:aws:sqs:eu-west-1:1:",
            "urn:aws:sqs:eu-west-1:1:q",
        ] {
            assert!(QueueKey::from_arn(refused).is_none(), "{refused}");
        }
        let other = QueueKey::from_arn("arn:aws-cn:sqs:cn-north-1:1:q").unwrap();
        assert_eq!(other.name, "q");
    }
}

/// A message held by its consumer, named by its place in the queue and the receive's nonce.
#[derive(Debug, Clone)]
pub struct Held {
    pub seq: u64,
    pub nonce: u64,
    pub message: Message,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    Running,
    Completed,
    Cancelled,
    Failed,
}

impl TaskStatus {
    pub fn name(self) -> &'static str {
        match self {
            TaskStatus::Running => "RUNNING",
            TaskStatus::Completed => "COMPLETED",
            TaskStatus::Cancelled => "CANCELLED",
            TaskStatus::Failed => "FAILED",
        }
    }
}

#[derive(Debug, Clone)]
pub struct MoveTask {
    pub id: u64,
    pub handle: String,
    pub source_arn: String,
    pub destination_arn: Option<String>,
    pub rate: Option<i64>,
    pub status: TaskStatus,
    pub moved: u64,
    pub to_move: u64,
    pub started_at: Millis,
    pub failure: Option<String>,
}
