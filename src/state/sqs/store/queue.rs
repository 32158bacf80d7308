//! What a queue does with its messages: sending (delay, FIFO deduplication), receiving
//! (visibility, FIFO groups, redrive counts), deleting, changing visibility, expiring by
//! retention, and handing messages to move tasks. Plain data behaviour over the store's types:
//! it must not depend on the state, the engine's scheduler or any SQS operation.

use super::message::{Extra, NEVER};
use super::*;

/// The 16 bytes of a body's MD5 from its lowercase hex, or digested from the body when the hex
/// is not one.
fn digest_bytes(hex_md5: &str, body: &str) -> [u8; 16] {
    let mut bytes = [0; 16];
    match hex::decode_to_slice(hex_md5, &mut bytes) {
        Ok(()) => bytes,
        Err(_) => super::super::digest::md5(body.as_bytes()),
    }
}

impl Queue {
    pub fn new(key: QueueKey, now: Millis, attributes: QueueAttributes) -> Self {
        let arn = key.arn();
        // FIFO sequence numbers are opaque, growing 20-digit decimals, as AWS's
        // (`18849496460467696128`): each queue starts at a place of its own in
        // 10000000000000000000..18000000000000000000, from its ARN and creation time (no draw
        // from the seeded generator, so other ids stay as they were). They stay below
        // u64::MAX, so a state snapshot read as plain JSON numbers keeps them exact.
        let start =
            u128::from(opaque(&[arn.as_bytes(), &now.to_be_bytes()])) % 8_000_000_000_000_000_000;
        Queue {
            arn,
            key,
            created_at: now,
            modified_at: now,
            attributes,
            tags: BTreeMap::new(),
            purged_at: None,
            messages: Slots::default(),
            body_bytes: 0,
            depth: Depth::default(),
            next_seq: 0,
            next_sequence_number: 10_000_000_000_000_000_000 + start,
            next_stamp: 0,
            dedup: HashMap::new(),
            attempts: HashMap::new(),
            last_sender: None,
        }
    }

    pub fn is_fifo(&self) -> bool {
        self.attributes.fifo
    }

    pub(super) fn retention_ms(&self) -> Millis {
        self.attributes.retention_s * 1000
    }

    fn take_stamp(&mut self) -> u64 {
        self.next_stamp += 1;
        self.next_stamp
    }

    /// The sequence number of message `id`: larger than every earlier one of this queue, by a
    /// step of 1 to 65536 that the message id decides (strictly increasing, not consecutive,
    /// 20 digits for as long as a queue can live).
    fn take_sequence_number(&mut self, id: &str) -> u128 {
        self.next_sequence_number += 1 + u128::from(opaque(&[id.as_bytes()]) % 65_536);
        self.next_sequence_number
    }

    /// Takes a new message, or recognises a FIFO duplicate inside the deduplication interval.
    pub fn send(&mut self, now: Millis, id: String, m: Outgoing) -> Sent {
        self.settle(now);
        if let Some(d) = m.dedup_id.as_deref() {
            if self.dedup.len() > 1024 {
                self.dedup.retain(|_, sent| {
                    sent.retain(|x| x.until > now);
                    !sent.is_empty()
                });
            }
            if let Some(x) = self.duplicate_of(d, m.group_id.as_deref(), now) {
                return Sent {
                    message_id: x.message_id.clone(),
                    sequence_number: x.sequence_number,
                    duplicate: true,
                };
            }
        }
        let sequence_number = self.is_fifo().then(|| self.take_sequence_number(&id));
        if let Some(d) = m.dedup_id.clone() {
            let by_group = self.attributes.dedup_scope == DedupScope::MessageGroup;
            let sent = self.dedup.entry(d).or_default();
            sent.retain(|x| x.until > now);
            sent.push(Dedup {
                group: m.group_id.clone(),
                until: now + DEDUP_INTERVAL_MS,
                message_id: id.clone(),
                sequence_number,
                by_group: Some(by_group),
            });
        }
        let visible_stamp = self.take_stamp();
        let plain = m.attributes.is_empty()
            && m.trace_header.is_none()
            && m.group_id.is_none()
            && m.dedup_id.is_none()
            && sequence_number.is_none();
        let extra = (!plain).then(|| {
            Box::new(Extra {
                attributes: m.attributes,
                trace_header: m.trace_header,
                group_id: m.group_id,
                dedup_id: m.dedup_id,
                sequence_number,
                visible_stamp,
            })
        });
        let md5_of_body = match &m.body {
            Body::Text(text) => digest_bytes(&m.md5_of_body, text),
            // Known once signed (`Message::md5_of_body`).
            Body::Unsigned(_) => [0; 16],
        };
        let sender_id = self.shared_sender(m.sender_id);
        self.enqueue(Message {
            id: MessageId::from(id.clone()),
            body: m.body,
            md5_of_body,
            sender_id,
            dead_letter_source_arn: None,
            sent_at: now,
            visible_at: now + m.delay_ms,
            receipt: None,
            first_received_at: NEVER,
            receive_count: 0,
            in_order: true,
            extra,
        });
        Sent {
            message_id: id,
            sequence_number,
            duplicate: false,
        }
    }

    /// The earlier send inside the deduplication interval that a message with deduplication id
    /// `d` in `group` repeats. Each send is deduplicated under the DeduplicationScope it was sent
    /// under until its interval ends: a scope changed since applies to later sends only
    /// (issue 33).
    fn duplicate_of(&self, d: &str, group: Option<&str>, now: Millis) -> Option<&Dedup> {
        let scope_now = self.attributes.dedup_scope == DedupScope::MessageGroup;
        self.dedup.get(d)?.iter().find(|x| {
            let by_group = x.by_group.unwrap_or(scope_now);
            x.until > now && (!by_group || x.group.as_deref() == group)
        })
    }

    /// Takes a message moved here from another queue (dead-lettering, move tasks).
    pub fn take_moved(&mut self, mut message: Message, now: Millis) {
        self.settle(now);
        message.visible_at = now;
        let stamp = self.take_stamp();
        message.receipt = None;
        // A dead letter keeps its ApproximateReceiveCount and first receive, as in SQS; a message
        // a move task sends on starts afresh.
        if message.dead_letter_source_arn.is_none() {
            message.receive_count = 0;
            message.first_received_at = NEVER;
        } else if self.is_fifo() {
            // "For FIFO queues, the enqueue timestamp resets when the message is moved to a
            // dead-letter queue" (SQS developer guide, dead-letter queue retention).
            message.sent_at = now;
        }
        if self.is_fifo() {
            // A FIFO dead-letter queue replaces the deduplication id with the message id.
            let id = message.id.to_string();
            let sequence_number = self.take_sequence_number(&id);
            let extra = message.extra_mut();
            extra.dedup_id = Some(id.clone());
            extra.group_id.get_or_insert(id);
            extra.sequence_number = Some(sequence_number);
        } else if let Some(extra) = message.extra.as_mut() {
            extra.sequence_number = None;
        }
        message.set_stamp(stamp);
        self.enqueue(message);
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
        self.settle(now);
        if let Some(again) = attempt_id.and_then(|id| self.repeat_attempt(id, now, visibility_ms)) {
            return Ok(again);
        }
        if !self.is_fifo() && self.in_flight() >= MAX_IN_FLIGHT {
            return Err(SqsError::OverLimit("Too many messages in flight.".into()));
        }
        let mut received = Received::default();
        let mut chosen: Vec<u64> = Vec::new();
        let mut to_dlq: Vec<u64> = Vec::new();
        if self.is_fifo() {
            let (groups, dead) = self.fifo_candidates(now, max_receives);
            to_dlq = dead;
            chosen.extend(groups.into_iter().flatten().take(max));
        } else {
            for (seq, m) in self.messages.iter() {
                if chosen.len() == max {
                    break;
                }
                if m.visible_at > now {
                    continue;
                }
                if max_receives.is_some_and(|n| m.receive_count >= n) {
                    to_dlq.push(seq);
                } else {
                    chosen.push(seq);
                }
            }
        }
        for seq in to_dlq {
            if let Some(m) = self.remove(seq) {
                received.dead_lettered.push(m);
            }
        }
        for seq in chosen {
            let stamp = self.take_stamp();
            let receipt = (nonce(), now);
            let m = self.change(seq, |m| {
                m.set_stamp(stamp);
                m.receive_count += 1;
                if m.first_received_at == NEVER {
                    m.first_received_at = now;
                }
                m.visible_at = now + visibility_ms;
                m.receipt = Some(receipt);
                m.clone()
            });
            // Chosen from the queue's messages just now: each is there.
            if let Some(m) = m {
                received.messages.push((seq, m));
            }
        }
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

    /// The messages a FIFO receive may hand out now, group by group, and those past
    /// `max_receives` on the way. A group is served from its first message in order up to its
    /// first hidden one (in flight or delayed): a message in flight holds back only itself and
    /// the messages of its group after it. Groups come in the order their first servable
    /// message became visible (sent, or made visible again), as SQS serves them: a group whose
    /// messages come back from a visibility timeout queues behind groups that waited meanwhile.
    fn fifo_candidates(&self, now: Millis, max_receives: Option<u32>) -> (Vec<Vec<u64>>, Vec<u64>) {
        let mut dead = Vec::new();
        let mut closed: HashSet<&str> = HashSet::new();
        // (visible since, its stamp, seqs) per group, in order of each group's first message.
        let mut groups: Vec<(Millis, u64, Vec<u64>)> = Vec::new();
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (seq, m) in self.messages.iter() {
            let group = m.group_id().unwrap_or_default();
            if closed.contains(group) {
                continue;
            }
            if m.visible_at > now {
                closed.insert(group);
                continue;
            }
            if max_receives.is_some_and(|n| m.receive_count >= n) {
                dead.push(seq);
                continue;
            }
            match index.get(group).and_then(|&i| groups.get_mut(i)) {
                Some((_, _, seqs)) => seqs.push(seq),
                None => {
                    index.insert(group, groups.len());
                    groups.push((m.visible_at, m.visible_stamp(), vec![seq]));
                }
            }
        }
        groups.sort_by_key(|(since, first, _)| (*since, *first));
        (groups.into_iter().map(|(_, _, seqs)| seqs).collect(), dead)
    }

    /// A FIFO retry with the same ReceiveRequestAttemptId inside 5 minutes gets the same
    /// messages and receipt handles, visibility restarted, if none was deleted or changed.
    fn repeat_attempt(&mut self, id: &str, now: Millis, visibility_ms: Millis) -> Option<Received> {
        let attempt = self.attempts.get(id).filter(|a| a.until > now)?.clone();
        let unchanged = attempt.taken.iter().all(|(seq, nonce, visible_at)| {
            self.messages.get(*seq).is_some_and(|m| {
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
            let stamp = self.take_stamp();
            let m = self.change(seq, |m| {
                m.set_stamp(stamp);
                m.visible_at = now + visibility_ms;
                m.clone()
            });
            // Each one is there: `unchanged` above.
            if let Some(m) = m {
                taken.push((seq, nonce, m.visible_at));
                again.messages.push((seq, m));
            }
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

    /// The message a receipt handle names, if that handle is still the current one.
    fn held(&self, seq: u64, nonce: u64) -> Option<&Message> {
        self.messages
            .get(seq)
            .filter(|m| m.receipt.is_some_and(|r| r.0 == nonce))
    }

    /// Deletes the message of a receipt handle. On a standard queue any handle the message was
    /// given deletes it, an older one too (SQS deletes a message received again by the handle of
    /// an earlier receive), and the handle of a message already gone succeeds; a FIFO queue
    /// takes only the current handle inside its visibility timeout and calls others expired.
    pub fn delete(&mut self, seq: u64, nonce: u64, now: Millis) -> Result<(), Visibility> {
        self.settle(now);
        if self.is_fifo() {
            match self.held(seq, nonce) {
                Some(m) if m.visible_at > now => {}
                _ => return Err(Visibility::Expired),
            }
        }
        self.remove(seq);
        Ok(())
    }

    /// Hides the message of a receipt handle for `timeout_ms` from now. A standard queue takes
    /// any handle of the message, expired or superseded by a later receive, as SQS does; a FIFO
    /// queue only the current one of a message in flight.
    pub fn change_visibility(
        &mut self,
        seq: u64,
        nonce: u64,
        now: Millis,
        timeout_ms: Millis,
    ) -> Result<(), Visibility> {
        self.settle(now);
        let fifo = self.is_fifo();
        let stamp = self.take_stamp();
        let m = self.messages.get(seq).ok_or(Visibility::Gone)?;
        if fifo {
            if m.receipt.is_none_or(|r| r.0 != nonce) {
                return Err(Visibility::Expired);
            }
            if m.visible_at <= now {
                return Err(Visibility::NotInFlight);
            }
        }
        let received_at = m.receipt.map_or(now, |r| r.1);
        if now + timeout_ms > received_at + MAX_VISIBILITY_MS {
            return Err(Visibility::BeyondLimit);
        }
        self.change(seq, |m| {
            m.visible_at = now + timeout_ms;
            m.set_stamp(stamp);
        });
        Ok(())
    }

    /// Deletes every message and forgets the deduplication history: after a purge, a message
    /// with a purged message's deduplication id is taken (as in SQS).
    pub fn purge(&mut self) {
        self.clear_messages();
        self.dedup.clear();
        self.attempts.clear();
    }

    /// Makes the message of a receipt handle visible again now (an event stream letting go of
    /// a message it held); an outdated handle changes nothing.
    pub fn release(&mut self, seq: u64, nonce: u64, now: Millis) {
        self.settle(now);
        let stamp = self.take_stamp();
        if self.held(seq, nonce).is_some() {
            self.change(seq, |m| {
                m.visible_at = now;
                m.set_stamp(stamp);
            });
        }
    }

    /// Takes up to `max` visible messages out of the queue (move tasks).
    pub fn take_visible(&mut self, now: Millis, max: usize) -> Vec<Message> {
        self.settle(now);
        let seqs: Vec<u64> = self
            .messages
            .iter()
            .filter(|(_, m)| m.visible_at <= now)
            .map(|(s, _)| s)
            .take(max)
            .collect();
        seqs.into_iter().filter_map(|s| self.remove(s)).collect()
    }

    /// The sender id of a message sent now, shared with the last message's when it is the same
    /// (a million messages of one sender hold one copy).
    fn shared_sender(&mut self, sender: Arc<str>) -> Arc<str> {
        match &self.last_sender {
            Some(last) if **last == *sender => last.clone(),
            _ => self.last_sender.insert(sender).clone(),
        }
    }

    /// Puts messages taken by [`Queue::take_visible`] back, in their order.
    pub fn put_back(&mut self, messages: Vec<Message>) {
        for m in messages {
            self.enqueue(m);
        }
    }
}

/// FNV-1a over `parts`: a fixed, well-spread 64-bit digest for numbers that must look opaque
/// but stay the same for the same inputs.
fn opaque(parts: &[&[u8]]) -> u64 {
    parts
        .iter()
        .flat_map(|p| p.iter())
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
}
