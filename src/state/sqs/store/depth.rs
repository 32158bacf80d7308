//! A queue's counts kept as its messages come, change and go, so that GetQueueAttributes, the
//! console and move tasks count in constant time whatever the depth. Every message enters,
//! changes and leaves through [`Queue::enqueue`], [`Queue::change`] and [`Queue::remove`],
//! which keep the counts as of `settled_at`; what time alone changes (a delay or a visibility
//! timeout running out, retention) is in two indexes by time, which [`Queue::settle`] applies
//! as the clock moves. Work follows changes, never the number of messages.

use super::message::Message;
use super::*;

/// The count a message is in.
#[derive(Debug, Clone, Copy)]
enum Class {
    Visible,
    InFlight,
    Delayed,
}

/// Which count a message is in at `at`.
fn class(m: &Message, at: Millis) -> Class {
    match (m.visible_at <= at, m.receipt.is_some()) {
        (true, _) => Class::Visible,
        (false, true) => Class::InFlight,
        (false, false) => Class::Delayed,
    }
}

/// Messages visible, in flight and delayed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counts {
    visible: usize,
    in_flight: usize,
    delayed: usize,
}

impl Counts {
    fn of(&mut self, class: Class) -> &mut usize {
        match class {
            Class::Visible => &mut self.visible,
            Class::InFlight => &mut self.in_flight,
            Class::Delayed => &mut self.delayed,
        }
    }

    fn add(&mut self, class: Class) {
        *self.of(class) += 1;
    }

    fn sub(&mut self, class: Class) {
        *self.of(class) -= 1;
    }
}

/// The queue's kept counts and the indexes by time they need.
///
/// A state snapshot holds `settled_at`, the cursor and the last send time; the counts and the
/// indexes come from the messages again ([`Queue::recount`]).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Depth {
    /// Messages visible, in flight and delayed at `settled_at`.
    #[serde(skip)]
    kept: Counts,
    settled_at: Millis,
    /// (visible_at, place) of every message hidden at `settled_at`.
    #[serde(skip)]
    hidden: BTreeSet<(Millis, u64)>,
    /// (sent_at, place) of every message not in send order (dead letters keep their send time,
    /// messages put back by a move task theirs): retention expires these by this index.
    #[serde(skip)]
    out_of_order: BTreeSet<(Millis, u64)>,
    /// Every message in send order before this place has expired or is gone: the retention
    /// sweep resumes here.
    expiry_cursor: u64,
    /// The send time of the last message in send order.
    last_in_order: Millis,
}

impl Queue {
    /// Counts the messages and indexes them by time again, as [`Queue::enqueue`] did when they
    /// came (a queue read back from a state snapshot), and shares the sender ids of messages in
    /// a row from the same sender again.
    pub fn recount(&mut self) {
        let d = &mut self.depth;
        (d.kept, d.hidden, d.out_of_order) = Default::default();
        let mut last_sender: Option<Arc<str>> = self.last_sender.clone();
        let mut body_bytes = 0;
        for (seq, m) in self.messages.iter_mut() {
            d.kept.add(class(m, d.settled_at));
            if m.visible_at > d.settled_at {
                d.hidden.insert((m.visible_at, seq));
            }
            if !m.in_order {
                d.out_of_order.insert((m.sent_at, seq));
            }
            body_bytes += m.body.len();
            match &last_sender {
                Some(last) if **last == *m.sender_id => m.sender_id = last.clone(),
                _ => last_sender = Some(m.sender_id.clone()),
            }
        }
        self.body_bytes = body_bytes;
    }

    /// Puts `m` at the end of the queue.
    pub(super) fn enqueue(&mut self, mut m: Message) {
        self.next_seq += 1;
        let seq = self.next_seq;
        let d = &mut self.depth;
        m.in_order = m.sent_at >= d.last_in_order;
        if m.in_order {
            d.last_in_order = m.sent_at;
        } else {
            d.out_of_order.insert((m.sent_at, seq));
        }
        d.kept.add(class(&m, d.settled_at));
        if m.visible_at > d.settled_at {
            d.hidden.insert((m.visible_at, seq));
        }
        self.body_bytes += m.body.len();
        self.messages.insert(seq, m);
    }

    /// Takes the message at `seq` out of the queue.
    pub(super) fn remove(&mut self, seq: u64) -> Option<Message> {
        let m = self.messages.remove(seq)?;
        let d = &mut self.depth;
        d.kept.sub(class(&m, d.settled_at));
        if m.visible_at > d.settled_at {
            d.hidden.remove(&(m.visible_at, seq));
        }
        if !m.in_order {
            d.out_of_order.remove(&(m.sent_at, seq));
        }
        self.body_bytes -= m.body.len();
        crate::memory::freed(m.body.len() + std::mem::size_of::<Message>());
        if self.messages.len() == 0 {
            crate::memory::emptied();
        }
        Some(m)
    }

    /// Changes the message at `seq` with `f` (its visibility, receipt or receive count, never
    /// its send time or body), keeping the counts.
    pub(super) fn change<R>(&mut self, seq: u64, f: impl FnOnce(&mut Message) -> R) -> Option<R> {
        let d = &mut self.depth;
        let m = self.messages.get_mut(seq)?;
        let (before, hidden_at, sent_at) = (class(m, d.settled_at), m.visible_at, m.sent_at);
        let answer = f(m);
        debug_assert_eq!(m.sent_at, sent_at, "a change keeps the send time");
        let after = class(m, d.settled_at);
        d.kept.sub(before);
        d.kept.add(after);
        if hidden_at != m.visible_at {
            if hidden_at > d.settled_at {
                d.hidden.remove(&(hidden_at, seq));
            }
            if m.visible_at > d.settled_at {
                d.hidden.insert((m.visible_at, seq));
            }
        }
        Some(answer)
    }

    /// Brings the counts to `now`: drops the messages past retention and counts the hidden
    /// ones whose time has come as visible. Costs what changed since the last settle.
    pub fn settle(&mut self, now: Millis) {
        // At the same instant too: a message may come in past retention already (a dead letter
        // keeps its send time).
        if now < self.depth.settled_at {
            return;
        }
        let retention = self.retention_ms();
        let mut expired = Vec::new();
        let mut cursor = self.next_seq + 1;
        for (seq, m) in self.messages.iter_from(self.depth.expiry_cursor) {
            if !m.in_order {
                continue;
            }
            if m.sent_at + retention > now {
                cursor = seq;
                break;
            }
            expired.push(seq);
        }
        self.depth.expiry_cursor = cursor;
        for seq in expired {
            self.remove(seq);
        }
        while let Some(&(sent_at, seq)) = self.depth.out_of_order.first()
            && sent_at + retention <= now
        {
            self.remove(seq);
        }
        let d = &mut self.depth;
        while let Some(&(at, seq)) = d.hidden.first()
            && at <= now
        {
            d.hidden.pop_first();
            if let Some(m) = self.messages.get(seq) {
                d.kept.sub(class(m, d.settled_at));
                d.kept.add(Class::Visible);
            }
        }
        d.settled_at = now;
    }

    /// (visible, in flight, delayed) messages now: the kept counts, with what time changed
    /// since the last settle (without settling: readers hold the queue shared).
    pub fn counts(&self, now: Millis) -> (usize, usize, usize) {
        let d = &self.depth;
        let mut c = d.kept;
        if now >= d.settled_at {
            let retention = self.retention_ms();
            let expired = |m: &Message| m.sent_at + retention <= now;
            let in_order = self.messages.iter_from(d.expiry_cursor).map(|(_, m)| m);
            for m in in_order.filter(|m| m.in_order).take_while(|m| expired(m)) {
                c.sub(class(m, d.settled_at));
            }
            let expired_out_of_order = d
                .out_of_order
                .iter()
                .take_while(|(sent_at, _)| sent_at + retention <= now);
            for m in self.indexed(expired_out_of_order) {
                c.sub(class(m, d.settled_at));
            }
            for m in self.indexed(d.hidden.range(..=(now, u64::MAX))) {
                if !expired(m) {
                    c.sub(class(m, d.settled_at));
                    c.add(Class::Visible);
                }
            }
        }
        #[cfg(debug_assertions)]
        self.check_counts(now, c);
        (c.visible, c.in_flight, c.delayed)
    }

    /// Messages in flight now, once settled.
    pub(super) fn in_flight(&self) -> usize {
        self.depth.kept.in_flight
    }

    /// When the next hidden (delayed or in-flight) message becomes visible; messages held by an
    /// event stream ([`HELD`]) only do when it releases them.
    pub fn next_visible_at(&self, now: Millis) -> Option<Millis> {
        let (at, _) = self.depth.hidden.range((now + 1, 0)..).next()?;
        (*at < HELD).then_some(*at)
    }

    /// Forgets every message at once.
    pub(super) fn clear_messages(&mut self) {
        let bytes = self.body_bytes + self.messages.len() * size_of::<Message>();
        self.messages.clear();
        self.body_bytes = 0;
        crate::memory::freed(bytes);
        let d = &mut self.depth;
        d.kept = Counts::default();
        d.hidden.clear();
        d.out_of_order.clear();
        d.expiry_cursor = self.next_seq + 1;
    }

    /// The messages of the entries of an index by time (each one's message is in the queue).
    fn indexed<'q>(
        &'q self,
        entries: impl Iterator<Item = &'q (Millis, u64)>,
    ) -> impl Iterator<Item = &'q Message> {
        entries.filter_map(|&(_, seq)| self.messages.get(seq))
    }

    /// Debug builds recount small queues message by message at every count, and check the
    /// indexes, so that any test that counts proves the kept counts right.
    #[cfg(debug_assertions)]
    fn check_counts(&self, now: Millis, counted: Counts) {
        if self.messages.len() > 10_000 {
            return;
        }
        let d = &self.depth;
        let retention = self.retention_ms();
        let mut recount = Counts::default();
        for m in self.messages.values() {
            if m.sent_at + retention > now {
                recount.add(class(m, now));
            }
        }
        assert_eq!(counted, recount, "kept counts against a recount at {now}");
        let hidden: BTreeSet<(Millis, u64)> = self
            .messages
            .iter()
            .filter(|(_, m)| m.visible_at > d.settled_at)
            .map(|(seq, m)| (m.visible_at, seq))
            .collect();
        assert_eq!(hidden, d.hidden, "the index of hidden messages");
        let out_of_order: BTreeSet<(Millis, u64)> = self
            .messages
            .iter()
            .filter(|(_, m)| !m.in_order)
            .map(|(seq, m)| (m.sent_at, seq))
            .collect();
        assert_eq!(out_of_order, d.out_of_order, "the index of out-of-order");
    }
}

/// A queue deleted (or the state reset) frees its messages as a purge does.
impl Drop for Queue {
    fn drop(&mut self) {
        self.clear_messages();
    }
}
