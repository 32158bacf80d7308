//! SQS state: queues per (account, region, name) and their messages. Visibility, delay and
//! retention are timestamps compared with `now` when read; nothing here runs on its own.

use super::types::MessageAttributeValue;
use crate::engine::time::Millis;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use tokio::sync::Notify;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct QueueKey {
    pub account: String,
    pub region: String,
    pub name: String,
}

/// Queue settings parsed from its attributes (SQS's defaults where unset).
#[derive(Debug, Clone, PartialEq)]
pub struct QueueConfig {
    pub visibility_timeout_s: i64,
    pub delay_s: i64,
    pub retention_s: i64,
    pub maximum_message_size: i64,
    pub receive_wait_s: i64,
    pub fifo: bool,
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig {
            visibility_timeout_s: 30,
            delay_s: 0,
            retention_s: 345_600,
            maximum_message_size: 1_048_576,
            receive_wait_s: 0,
            fifo: false,
        }
    }
}

#[derive(Debug)]
pub struct Queue {
    pub key: QueueKey,
    pub arn: String,
    pub created_at: Millis,
    pub modified_at: Millis,
    /// The attributes as the creator gave them (idempotent CreateQueue compares these).
    pub attributes: BTreeMap<String, String>,
    pub config: QueueConfig,
    pub tags: BTreeMap<String, String>,
    messages: BTreeMap<u64, Message>,
    receipts: HashMap<String, u64>,
    next_seq: u64,
    /// Long polls of this queue wait on it.
    pub arrivals: Arc<Notify>,
}

#[derive(Debug, Clone)]
pub struct Message {
    pub id: String,
    pub body: String,
    pub md5_of_body: String,
    pub attributes: BTreeMap<String, MessageAttributeValue>,
    pub md5_of_attributes: Option<String>,
    pub sender_id: String,
    pub sent_at: Millis,
    pub visible_at: Millis,
    pub receive_count: u32,
    pub first_received_at: Option<Millis>,
    pub receipt: Option<String>,
}

impl Queue {
    pub fn new(
        key: QueueKey,
        now: Millis,
        attributes: BTreeMap<String, String>,
        config: QueueConfig,
    ) -> Self {
        let arn = format!("arn:aws:sqs:{}:{}:{}", key.region, key.account, key.name);
        Queue {
            key,
            arn,
            created_at: now,
            modified_at: now,
            attributes,
            config,
            tags: BTreeMap::new(),
            messages: BTreeMap::new(),
            receipts: HashMap::new(),
            next_seq: 0,
            arrivals: Arc::new(Notify::new()),
        }
    }

    pub fn push(&mut self, message: Message) {
        self.next_seq += 1;
        self.messages.insert(self.next_seq, message);
        self.arrivals.notify_waiters();
    }

    fn expire(&mut self, now: Millis) {
        let retention_ms = self.config.retention_s * 1000;
        let expired: Vec<u64> = self
            .messages
            .iter()
            .filter(|(_, m)| m.sent_at + retention_ms <= now)
            .map(|(s, _)| *s)
            .collect();
        for seq in expired {
            if let Some(receipt) = self.messages.remove(&seq).and_then(|m| m.receipt) {
                self.receipts.remove(&receipt);
            }
        }
    }

    /// Takes up to `max` visible messages, hiding each for `visibility_ms` under a new receipt
    /// handle made by `receipt`.
    pub fn receive(
        &mut self,
        now: Millis,
        max: usize,
        visibility_ms: i64,
        mut receipt: impl FnMut(&Message) -> String,
    ) -> Vec<Message> {
        self.expire(now);
        let mut out = Vec::new();
        for (seq, m) in self.messages.iter_mut() {
            if out.len() == max {
                break;
            }
            if m.visible_at > now {
                continue;
            }
            if let Some(old) = m.receipt.take() {
                self.receipts.remove(&old);
            }
            let handle = receipt(m);
            self.receipts.insert(handle.clone(), *seq);
            m.receipt = Some(handle);
            m.receive_count += 1;
            m.first_received_at.get_or_insert(now);
            m.visible_at = now + visibility_ms;
            out.push(m.clone());
        }
        out
    }

    /// When the next hidden (delayed or in-flight) message becomes visible.
    pub fn next_visible_at(&self, now: Millis) -> Option<Millis> {
        self.messages
            .values()
            .map(|m| m.visible_at)
            .filter(|&at| at > now)
            .min()
    }

    /// Deletes the message whose current receipt handle is `receipt`; an outdated handle
    /// deletes nothing, as in SQS.
    pub fn delete(&mut self, receipt: &str) {
        if let Some(seq) = self.receipts.remove(receipt) {
            self.messages.remove(&seq);
        }
    }
}

#[derive(Debug, Default)]
pub struct Store {
    pub queues: BTreeMap<QueueKey, Queue>,
}

impl Store {
    pub fn reset(&mut self) {
        for q in self.queues.values() {
            q.arrivals.notify_waiters();
        }
        self.queues.clear();
    }
}
