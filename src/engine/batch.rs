//! Batch deliveries to SQS queues of this emulator: several messages handed over in one attempt
//! as SendMessageBatch would take them (per-message size check against the queue's
//! MaximumMessageSize, [`MAX_BATCH_BYTES`] for the whole batch), reporting which were refused.

use super::Engine;
use super::delivery::{Outcome, SqsMessage};
use crate::services::sqs;

/// One message of a [`Target::SqsBatch`], with the id its source knows it by.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchEntry {
    pub id: String,
    pub message: SqsMessage,
}

/// The error code of an attempt at a batch that the target took only in part.
pub const PARTIAL_BATCH_FAILURE: &str = "PARTIAL_BATCH_FAILURE";
/// The error code of a message or batch over the target's size limit.
pub const REQUEST_TOO_LARGE: &str = "REQUEST_TOO_LARGE";
/// The largest SendMessageBatch payload, all entries together (as large as one message may be).
pub const MAX_BATCH_BYTES: usize = 1024 * 1024;

impl Engine {
    /// Hands `entries` to queue `queue_arn` in one go, as SendMessageBatch would: the whole batch
    /// is refused when it is over [`MAX_BATCH_BYTES`] or the queue is missing, an entry when it
    /// is over the queue's MaximumMessageSize or the queue refuses it. Answers the outcome and
    /// the entries refused.
    pub(super) fn send_batch(
        &mut self,
        queue_arn: &str,
        entries: Vec<BatchEntry>,
    ) -> (Outcome, Vec<BatchEntry>) {
        let refused = |code: &str| Outcome::Permanent {
            status: None,
            error_code: Some(code.to_string()),
        };
        let total: usize = entries.iter().map(|e| sqs::message_size(&e.message)).sum();
        if total > MAX_BATCH_BYTES {
            return (refused(REQUEST_TOO_LARGE), entries);
        }
        let Some(limit) = sqs::maximum_message_size(self, queue_arn) else {
            return (refused("AWS.SimpleQueueService.NonExistentQueue"), entries);
        };
        let count = entries.len();
        let mut kept = Vec::new();
        let mut first_code = None;
        for entry in entries {
            let result = if sqs::message_size(&entry.message) > limit {
                Err(REQUEST_TOO_LARGE)
            } else {
                sqs::enqueue(self, queue_arn, entry.message.clone())
            };
            if let Err(code) = result {
                first_code.get_or_insert(code);
                kept.push(entry);
            }
        }
        let outcome = match (kept.len(), first_code) {
            (0, _) => Outcome::Delivered { status: None },
            (n, Some(code)) if n == count => refused(code),
            _ => refused(PARTIAL_BATCH_FAILURE),
        };
        (outcome, kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Settings;
    use std::collections::BTreeMap;

    fn entry(id: &str, body: String) -> BatchEntry {
        BatchEntry {
            id: id.into(),
            message: SqsMessage {
                body,
                attributes: BTreeMap::new(),
                group_id: None,
                dedup_id: None,
            },
        }
    }

    #[test]
    fn a_batch_is_refused_whole_or_in_part() {
        let mut e = Engine::new(Settings {
            start: 0,
            seed: 1,
            jitter: false,
            delivery_log_size: 10,
            lambda_endpoints: Default::default(),
        });
        let missing = "arn:aws:sqs:us-east-1:000000000000:nowhere";
        let (outcome, kept) = e.send_batch(missing, vec![entry("a", "x".into())]);
        assert_eq!(
            outcome.error_code(),
            Some("AWS.SimpleQueueService.NonExistentQueue")
        );
        assert_eq!(kept.len(), 1);
        let huge = vec![
            entry("a", "x".repeat(MAX_BATCH_BYTES / 2 + 1)),
            entry("b", "x".repeat(MAX_BATCH_BYTES / 2)),
        ];
        let (outcome, kept) = e.send_batch(missing, huge);
        assert_eq!(outcome.error_code(), Some(REQUEST_TOO_LARGE));
        assert_eq!(kept.len(), 2);
    }
}
