//! Replaying a topic's message archive to one subscription (its `ReplayPolicy`): the archived
//! messages, with their original ids, go through the subscription's filter policy to the engine.
//! Must not depend on the Publish, Subscribe or topic operations.

use super::archive::ArchivedMessage;
use super::delivery::{Message, delivery_for, passes_filter};
use crate::engine::time::format_rfc3339;
use crate::services::Context;
use crate::state::State;

/// Runs a subscription's replay: every retained message published in
/// `[StartingPoint, EndingPoint or now]` goes to that one subscription, in publish order (FIFO
/// lanes keep each group's order), through its filter policy, with the original MessageId,
/// SequenceNumber and Timestamp. Only confirmed subscriptions receive anything.
pub(super) fn replay(e: &mut State, cx: &Context, sub_arn: &str) {
    let now = e.now();
    let Some(sub) = e.sns.subscriptions.get(sub_arn).filter(|s| s.confirmed) else {
        return;
    };
    let Some(replay) = sub.replay.clone() else {
        return;
    };
    let topic_arn = sub.topic_arn.clone();
    let Some(archive) = e
        .sns
        .topics
        .get_mut(&topic_arn)
        .and_then(|t| t.archive.as_mut())
    else {
        return;
    };
    let until = replay.ending_at.map_or(now, |end| end.min(now));
    let messages = archive.between(replay.starting_at, until, now);
    for message in &messages {
        deliver_archived(e, cx, &topic_arn, sub_arn, message);
    }
}

/// Delivers one archived message to one subscription (a replay): the original MessageId,
/// SequenceNumber, Timestamp and FIFO ids, through the subscription's filter policy. Answers
/// whether it was handed to the engine.
pub(super) fn deliver_archived(
    e: &mut State,
    cx: &Context,
    topic_arn: &str,
    sub_arn: &str,
    archived: &ArchivedMessage,
) -> bool {
    let message = Message {
        id: archived.id.clone(),
        text: &archived.text,
        subject: archived.subject.as_deref(),
        structure: archived.structure.clone(),
        attributes: &archived.attributes,
        group_id: Some(&archived.group_id),
        dedup_id: archived.dedup_id.clone(),
        sequence_number: Some(archived.sequence_number),
        timestamp: format_rfc3339(archived.published_at),
        replayed: true,
        // An archived message keeps no trace header.
        trace_header: None,
    };
    let delivery = {
        let (Some(topic), Some(sub)) = (
            e.sns.topics.get(topic_arn),
            e.sns.subscriptions.get(sub_arn),
        ) else {
            return false;
        };
        if !passes_filter(sub, &message) {
            return false;
        }
        delivery_for(cx, topic, sub, &message, e.lambdas())
    };
    e.deliver(delivery);
    true
}
