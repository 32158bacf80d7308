//! Looking at a queue's messages without touching them: for the LocalStack-compatible
//! `GET /_aws/sqs/messages` and the console. Reads only; no receive count, visibility or
//! expiry changes.

use super::{Message, Queue};
use crate::engine::time::Millis;

impl Queue {
    /// Every message still retained at `now`, in queue order (expired ones are left out, as a
    /// receive would drop them).
    pub fn peek(&self, now: Millis) -> impl Iterator<Item = &Message> {
        let retention_ms = self.attributes.retention_s * 1000;
        self.messages
            .values()
            .filter(move |m| m.sent_at + retention_ms > now)
    }
}
