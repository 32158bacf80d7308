//! Publish and PublishBatch: a message to a topic (FIFO deduplication, sequence numbers, the
//! archive, the fan-out to every subscription), to a platform endpoint or to a phone number, and
//! the publishes other services of this emulator make. The checks live in `checks.rs`, the
//! delivery each subscription gets in `delivery.rs`; nothing below imports this file.

use super::access::{allows, refused};
use super::archive::ArchivedMessage;
use super::checks::{
    MAX_MESSAGE_BYTES, PublishBatchEntryRef, check_batch_entry, check_common, decoded_len,
};
use super::context::parse_topic_arn;
use super::delivery::{Message, delivery_for, passes_filter, structured_text};
use super::delivery_policy::Schedule;
use super::errors::{SnsError, invalid};
use super::shapes::*;
use super::store::Subscription;
use crate::arn::Arn;
use crate::engine::delivery::{Delivery, Failure, Publisher, Target};
use crate::engine::time::format_rfc3339;
use crate::error::AwsError;
use crate::services::Context;
use crate::services::deduplicated;
use crate::signature::SIGNER;
use crate::state::State;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashSet};

/// How long a FIFO deduplication id is remembered.
const DEDUP_INTERVAL_MS: i64 = 5 * 60 * 1000;

/// Publishes one message to a topic: checks, FIFO deduplication, fan-out.
fn publish_to_topic(
    e: &mut State,
    cx: &Context,
    topic_arn: &str,
    fields: &PublishBatchEntryRef,
    prepared: Option<Prepared>,
) -> Result<PublishOutput, SnsError> {
    let now = e.now();
    let topic = super::topics::topic_mut(e, cx, topic_arn)?;
    if !allows(topic, &cx.account, "SNS:Publish") {
        let arn = topic.arn.clone();
        return Err(refused(e, cx, "SNS:Publish", &arn));
    }
    let (structure, dedup_id) = check_common(fields, topic.fifo, topic.content_based_dedup)?;
    let (id, sequence_number, timestamp) = if topic.fifo {
        let key = (
            topic
                .dedup_per_group
                .then(|| fields.group_id.unwrap_or_default().to_string()),
            dedup_id.clone().unwrap_or_default(),
        );
        if topic.dedup.len() > 1024 {
            topic.dedup.retain(|_, (until, _, _)| *until > now);
        }
        let duplicate = topic
            .dedup
            .get(&key)
            .filter(|(until, _, _)| *until > now)
            .map(|(_, id, seq)| (id.clone(), *seq));
        if let Some((id, seq)) = duplicate {
            // A duplicate inside the interval: accepted, not delivered again.
            log_duplicate(e, topic_arn, &id);
            return Ok(PublishOutput {
                message_id: id,
                sequence_number: Some(seq.to_string()),
            });
        }
        topic.next_sequence_number += 1 + u128::from(now as u64 % 5);
        let sequence_number = Some(topic.next_sequence_number);
        let id = e.engine.rng.uuid();
        let topic = super::topics::topic_mut(e, cx, topic_arn)?;
        topic.dedup.insert(
            key,
            (
                now + DEDUP_INTERVAL_MS,
                id.clone(),
                topic.next_sequence_number,
            ),
        );
        if let Some(archive) = topic.archive.as_mut() {
            archive.record(
                ArchivedMessage {
                    id: id.clone(),
                    text: fields.message.to_string(),
                    subject: fields.subject.map(str::to_string),
                    structure: structure.clone(),
                    attributes: fields.attributes.clone(),
                    group_id: fields.group_id.unwrap_or_default().to_string(),
                    dedup_id: dedup_id.clone(),
                    sequence_number: topic.next_sequence_number,
                    published_at: now,
                },
                now,
            );
        }
        (id, sequence_number, None)
    } else {
        match prepared {
            Some(p) => (p.id, None, Some(p.timestamp)),
            None => (e.engine.rng.uuid(), None, None),
        }
    };
    fan_out(
        e,
        cx,
        topic_arn,
        fields,
        id,
        structure,
        dedup_id,
        sequence_number,
        timestamp,
    )
}

/// What Publish settles before it takes the engine's lock for the fan-out: the message id and
/// timestamp, so that the notification's signature is made outside the lock (RSA signing costs
/// a fraction of a millisecond; under the lock it would hold up every other request).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Prepared {
    pub id: String,
    pub timestamp: String,
}

/// Settles the id and timestamp of a publish to an existing standard (not FIFO) topic, and what
/// to sign for its notifications (one text, or one per protocol of a JSON structure): the runtime
/// signs them off the lock (with [`sign_ahead`]), and the fan-out then finds the signatures made.
/// `None` when there is nothing to sign ahead: no subscription of the topic gets a signed
/// notification, or the publish is bound to fail.
pub fn prepare(e: &mut State, input: &PublishInput) -> Option<(Prepared, Vec<SignAhead>)> {
    if input.target_arn.is_some() || input.phone_number.is_some() {
        return None;
    }
    prepare_entry(e, input.topic_arn.as_deref()?, &input.fields)
}

/// [`prepare`] for each entry of a PublishBatch, in order (`None` for an entry it leaves to the
/// fan-out); nothing for a batch the checks will refuse for its size.
pub fn prepare_batch(
    e: &mut State,
    input: &PublishBatchInput,
) -> Vec<Option<(Prepared, Vec<SignAhead>)>> {
    let entries = &input.publish_batch_request_entries;
    if entries.len() > 10 {
        return Vec::new();
    }
    entries
        .iter()
        .map(|entry| prepare_entry(e, &input.topic_arn, &entry.fields))
        .collect()
}

fn prepare_entry(
    e: &mut State,
    arn: &str,
    fields: &PublishFields,
) -> Option<(Prepared, Vec<SignAhead>)> {
    let topic = e.sns.topics.get(arn).filter(|t| !t.fifo)?;
    let version = topic.signature_version;
    let (message, subject) = (fields.message.as_str(), fields.subject.as_deref());
    let structure = match fields.message_structure.as_deref() {
        None => None,
        Some("json") => Some(serde_json::from_str::<Map<String, Value>>(message).ok()?),
        Some(_) => return None,
    };
    // The texts the signed notifications carry: each protocol's own with a JSON structure.
    let mut texts: Vec<&str> = Vec::new();
    let signed = e.sns.routes.get(arn).map(|r| &r.signed);
    debug_assert!(
        e.sns
            .subscriptions_of(arn)
            .filter(|s| s.confirmed && s.signs())
            .map(|s| &s.arn)
            .eq(signed.into_iter().flatten()),
        "the signed subscriptions filed for {arn} are not those of the topic"
    );
    for sub in signed
        .into_iter()
        .flatten()
        .filter_map(|sub| e.sns.subscriptions.get(sub))
    {
        let text = match &structure {
            Some(map) => structured_text(map, sub.protocol.as_str()),
            None => message,
        };
        if !texts.contains(&text) {
            texts.push(text);
        }
    }
    if texts.is_empty() {
        return None;
    }
    let (id, timestamp) = (e.engine.rng.uuid(), format_rfc3339(e.now()));
    let signs = texts
        .into_iter()
        .map(|text| SignAhead {
            version,
            text: crate::signature::string_to_sign(&[
                ("Message", Some(text)),
                ("MessageId", Some(&id)),
                ("Subject", subject),
                ("Timestamp", Some(&timestamp)),
                ("TopicArn", Some(arn)),
                ("Type", Some("Notification")),
            ]),
        })
        .collect();
    Some((Prepared { id, timestamp }, signs))
}

/// A notification's signature to make ahead of its publish (see [`prepare`]).
#[derive(Debug)]
pub struct SignAhead {
    version: crate::signature::SignatureVersion,
    text: String,
}

/// Signs ahead (a fraction of a millisecond of RSA: off the lock); the signer keeps the
/// signature.
pub fn sign_ahead(s: SignAhead) {
    let _ = SIGNER.sign(s.version, &s.text);
}

/// A duplicate suppressed at publish: one `deduplicated` record per subscription that would
/// have received it (docs/control-api.md, delivery log).
fn log_duplicate(e: &mut State, topic_arn: &str, message_id: &str) {
    let subscriptions: Vec<(String, String, String)> = e
        .sns
        .subscriptions_of(topic_arn)
        .filter(|s| s.confirmed)
        .map(|s| (s.arn.clone(), s.endpoint.clone(), s.protocol.to_string()))
        .collect();
    deduplicated::log(e, "sns", message_id, subscriptions);
}

#[allow(clippy::too_many_arguments)]
fn fan_out(
    e: &mut State,
    cx: &Context,
    topic_arn: &str,
    fields: &PublishBatchEntryRef,
    id: String,
    structure: Option<Map<String, Value>>,
    dedup_id: Option<String>,
    sequence_number: Option<u128>,
    timestamp: Option<String>,
) -> Result<PublishOutput, SnsError> {
    let message = Message {
        id: id.clone(),
        text: fields.message,
        subject: fields.subject,
        structure,
        attributes: fields.attributes,
        group_id: fields.group_id,
        dedup_id,
        sequence_number,
        timestamp: timestamp.unwrap_or_else(|| format_rfc3339(e.now())),
        replayed: false,
        trace_header: cx.trace_header.as_deref(),
    };
    e.engine
        .metrics
        .aws("AWS/SNS", "NumberOfMessagesPublished", topic_arn, 1);
    let (arns, ruled_out) = reached(e, topic_arn, &message);
    if ruled_out > 0 {
        e.engine.metrics.aws(
            "AWS/SNS",
            "NumberOfNotificationsFilteredOut",
            topic_arn,
            ruled_out,
        );
    }
    for arn in arns {
        let (Some(sub), Some(topic)) = (e.sns.subscriptions.get(&arn), e.sns.topics.get(topic_arn))
        else {
            continue;
        };
        if !passes_filter(sub, &message) {
            e.engine
                .metrics
                .aws("AWS/SNS", "NumberOfNotificationsFilteredOut", topic_arn, 1);
            continue;
        }
        let delivery = delivery_for(cx, topic, sub, &message, e.lambdas());
        e.deliver(delivery);
    }
    Ok(PublishOutput {
        message_id: id,
        sequence_number: sequence_number.map(|n| n.to_string()),
    })
}

/// The subscriptions of the topic a publish goes on to (confirmed, taking live messages, and
/// without a policy or named by the routing index), in ARN order, and how many confirmed ones
/// the index ruled out. Only the index's candidates and the subscriptions filed as `others` are
/// looked at: those ruled out are counted from how many are filed as `indexed`, so a publish
/// costs the same whatever the number of subscriptions whose policy does not match.
fn reached(e: &State, topic_arn: &str, message: &Message) -> (Vec<String>, u64) {
    let Some(routes) = e.sns.routes.get(topic_arn) else {
        debug_assert!(e.sns.subscriptions_of(topic_arn).next().is_none());
        return (Vec::new(), 0);
    };
    let candidates = filter_candidates(e, topic_arn, message);
    let now = e.now();
    let mut looked_at: Vec<&String> = candidates.iter().chain(&routes.others).collect();
    looked_at.sort_unstable();
    looked_at.dedup();
    let (mut arns, mut ruled_out, mut indexed_reached) = (Vec::new(), 0, 0);
    for sub in looked_at
        .into_iter()
        .filter_map(|arn| e.sns.subscriptions.get(arn))
    {
        if !sub.confirmed || sub.replay.as_ref().is_some_and(|r| !r.takes_live(now)) {
            continue;
        }
        if could_be_passed(sub, message, &candidates) {
            indexed_reached += u64::from(sub.filter.is_some() && sub.replay.is_none());
            arns.push(sub.arn.clone());
        } else {
            ruled_out += 1;
        }
    }
    ruled_out += routes.indexed.len() as u64 - indexed_reached;
    // Debug builds check what the routes give against a scan of every subscription.
    #[cfg(debug_assertions)]
    {
        let mut scan_ruled_out = 0;
        let scan: Vec<String> = e
            .sns
            .subscriptions_of(topic_arn)
            .filter(|s| s.confirmed)
            .filter(|s| s.replay.as_ref().is_none_or(|r| r.takes_live(now)))
            .filter(|s| {
                let named = could_be_passed(s, message, &candidates);
                scan_ruled_out += u64::from(!named);
                named
            })
            .map(|s| s.arn.clone())
            .collect();
        assert_eq!(
            (&arns, ruled_out),
            (&scan, scan_ruled_out),
            "the routes filed for {topic_arn} reach other subscriptions than a scan"
        );
    }
    (arns, ruled_out)
}

/// The subscriptions of the topic whose filter policy could pass the message (the topic's
/// routing index), sorted. A message with a JSON structure has a body per protocol, so every
/// body policy is tried.
fn filter_candidates(e: &State, topic_arn: &str, message: &Message) -> Vec<String> {
    let body = || {
        let parse = || serde_json::from_str(message.text).unwrap_or(Value::Null);
        message.structure.is_none().then(parse)
    };
    let found = e
        .sns
        .could_pass(topic_arn, || message.attribute_pairs(), body);
    found.into_iter().cloned().collect()
}

/// Whether `sub`'s filter policy is worth trying: it has none, or the routing index names it.
fn could_be_passed(sub: &Subscription, message: &Message, could_pass: &[String]) -> bool {
    let named = sub.filter.is_none() || could_pass.binary_search(&sub.arn).is_ok();
    // Debug builds check the index against the policy, so that a change not filed shows.
    debug_assert!(
        named || !passes_filter(sub, message),
        "subscription {} passes the message but its topic's index does not name it",
        sub.arn
    );
    named
}

pub fn publish(
    e: &mut State,
    cx: &Context,
    input: PublishInput,
    prepared: Option<Prepared>,
) -> Result<PublishOutput, SnsError> {
    let fields = view(&input.fields);
    let targets = [&input.topic_arn, &input.target_arn, &input.phone_number]
        .iter()
        .filter(|t| t.is_some())
        .count();
    if targets != 1 {
        return Err(invalid(
            "TopicArn or TargetArn Reason: no value for required parameter",
        ));
    }
    if let Some(phone) = &input.phone_number {
        return publish_sms(e, cx, phone, &fields);
    }
    let arn = input.topic_arn.or(input.target_arn).unwrap_or_default();
    if Arn::resource_type(&arn) == Some("endpoint") {
        // Mobile push to one platform endpoint, its account's alone (no resource policy); a
        // disabled one refuses before the message is read.
        if e.sns.platform.endpoints.contains_key(&arn) && Arn::account_of(&arn) != cx.account {
            return Err(refused(e, cx, "SNS:Publish", &arn));
        }
        super::platform::publishable_endpoint(e, cx, &arn)?;
        let (structure, _) = check_common(&fields, false, false)?;
        let message_id = super::platform::publish_to_endpoint(
            e,
            cx,
            &arn,
            fields.message,
            structure.as_ref(),
            fields.attributes,
        )?;
        return Ok(PublishOutput {
            message_id,
            sequence_number: None,
        });
    }
    parse_topic_arn(
        cx,
        &arn,
        if input.phone_number.is_none() {
            "TopicArn"
        } else {
            "TargetArn"
        },
    )?;
    publish_to_topic(e, cx, &arn, &fields, prepared)
}

/// A text message straight to a phone number: the outbox.
fn publish_sms(
    e: &mut State,
    cx: &Context,
    phone: &str,
    fields: &PublishBatchEntryRef,
) -> Result<PublishOutput, SnsError> {
    let digits = phone.strip_prefix('+').unwrap_or_default();
    if !(7..=15).contains(&digits.len()) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid(format!(
            "PhoneNumber Reason: {phone} is not valid to publish to"
        )));
    }
    check_common(fields, false, false)?;
    let id = e.engine.rng.uuid();
    // The message attributes ride along (LocalStack's SMS messages show them).
    let mut attributes = BTreeMap::new();
    if !fields.attributes.is_empty() {
        attributes.insert("MessageAttributes".to_string(), json!(fields.attributes));
    }
    let target = Target::Outbox {
        address: phone.to_string(),
        body: fields.message.to_string(),
        attributes,
    };
    let source = Arn::new("sns", &cx.region, &cx.account, phone).text();
    e.deliver(Delivery::new(
        "sns",
        source,
        "sms".into(),
        id.clone(),
        target,
        Schedule::CUSTOMER_MANAGED,
        None,
    ));
    Ok(PublishOutput {
        message_id: id,
        sequence_number: None,
    })
}

/// PublishBatch; `prepared` holds what [`prepare_batch`] settled, entry by entry (empty when
/// nothing was).
pub fn publish_batch(
    e: &mut State,
    cx: &Context,
    input: PublishBatchInput,
    prepared: Vec<Option<Prepared>>,
) -> Result<PublishBatchOutput, SnsError> {
    let topic = super::topics::topic_mut(e, cx, &input.topic_arn)?;
    if !allows(topic, &cx.account, "SNS:Publish") {
        let arn = topic.arn.clone();
        return Err(refused(e, cx, "SNS:Publish", &arn));
    }
    let (fifo, content_based) = (topic.fifo, topic.content_based_dedup);
    let entries = &input.publish_batch_request_entries;
    if entries.is_empty() {
        return Err(SnsError::EmptyBatchRequest(
            "The batch request doesn't contain any entries".into(),
        ));
    }
    if entries.len() > 10 {
        return Err(SnsError::TooManyEntriesInBatchRequest(
            "The batch request contains more entries than permissible.".into(),
        ));
    }
    let mut ids = HashSet::new();
    for entry in entries {
        if entry.id.is_empty() || entry.id.len() > 80 {
            return Err(SnsError::InvalidBatchEntryId(format!(
                "The Id of a batch entry in the batch request is too long: {}",
                entry.id
            )));
        }
        if !entry
            .id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(SnsError::InvalidBatchEntryId(format!(
                "The Id of a batch entry in the batch request contains an impermissible character: {}",
                entry.id
            )));
        }
        if !ids.insert(entry.id.as_str()) {
            return Err(SnsError::BatchEntryIdsNotDistinct(
                "Two or more batch entries in the request have the same Id.".into(),
            ));
        }
    }
    let total: usize = entries.iter().map(|x| size(&x.fields)).sum();
    if total > MAX_MESSAGE_BYTES {
        return Err(SnsError::BatchRequestTooLong(
            "The length of all the messages put together is more than the limit.".into(),
        ));
    }
    // Some faults of one entry fail the whole request (see `check_batch_entry`).
    for (i, entry) in entries.iter().enumerate() {
        check_batch_entry(&view(&entry.fields), fifo, content_based).map_err(|err| match err {
            SnsError::ValidationError(m) => SnsError::ValidationError(m.replace(
                "'messageAttributes.",
                &format!(
                    "'publishBatchRequestEntries.{}.member.messageAttributes.",
                    i + 1
                ),
            )),
            other => other,
        })?;
    }
    let mut out = PublishBatchOutput {
        successful: Vec::new(),
        failed: Vec::new(),
    };
    let mut prepared = prepared.into_iter();
    for entry in entries {
        let fields = view(&entry.fields);
        let prepared = prepared.next().flatten();
        match publish_to_topic(e, cx, &input.topic_arn, &fields, prepared) {
            Ok(r) => out.successful.push(PublishBatchResultEntry {
                id: entry.id.clone(),
                message_id: r.message_id,
                sequence_number: r.sequence_number,
            }),
            Err(err) => {
                let err = AwsError::from(err);
                let code = crate::model::SNS.query_code(err.code).to_string();
                out.failed.push(BatchResultErrorEntry {
                    id: entry.id.clone(),
                    code,
                    message: err.message,
                    sender_fault: err.status < 500,
                });
            }
        }
    }
    Ok(out)
}

/// The bytes an entry counts toward a batch's size limit: its message and its attributes' names,
/// types and values (binary ones decoded).
fn size(fields: &PublishFields) -> usize {
    let attribute = |(name, value): (&String, &MessageAttributeValue)| {
        name.len()
            + value.data_type.len()
            + value.string_value.as_ref().map_or(0, String::len)
            + value.binary_value.as_deref().map_or(0, decoded_len)
    };
    fields.message.len()
        + fields
            .message_attributes
            .iter()
            .map(attribute)
            .sum::<usize>()
}

/// The members of a Publish or a PublishBatch entry that the checks and the publish read.
fn view(fields: &PublishFields) -> PublishBatchEntryRef<'_> {
    PublishBatchEntryRef {
        message: &fields.message,
        subject: fields.subject.as_deref(),
        structure: fields.message_structure.as_deref(),
        attributes: &fields.message_attributes,
        group_id: fields.message_group_id.as_deref(),
        dedup_id: fields.message_deduplication_id.as_deref(),
    }
}

/// A publish made by another service of this emulator (an EventBridge rule target), acting as
/// `publisher`'s account. Fails as the publish would have: a missing topic, a topic policy that
/// refuses the account, or a message the topic refuses.
pub fn deliver_to_topic(
    e: &mut State,
    topic_arn: &str,
    publisher: &Publisher,
    body: &str,
    (group_id, dedup_id): (Option<String>, Option<String>),
    attributes: &BTreeMap<String, crate::engine::delivery::MessageAttributeValue>,
) -> Result<(), Failure> {
    let cx = Context {
        request_id: String::new(),
        account: publisher.account.clone(),
        region: Arn::region_of(topic_arn).to_string(),
        access_key: None,
        host: publisher.host.clone(),
        trace_header: None,
        queue_url_style: Default::default(),
    };
    let fields = PublishBatchEntryRef {
        message: body,
        subject: None,
        structure: None,
        attributes,
        group_id: group_id.as_deref(),
        dedup_id: dedup_id.as_deref(),
    };
    publish_to_topic(e, &cx, topic_arn, &fields, None)
        .map(|_| ())
        .map_err(|err| match err {
            SnsError::NotFound(_) | SnsError::ResourceNotFound(_) => Failure::NotFound("NotFound"),
            SnsError::AuthorizationError(_) => Failure::AccessDenied("AuthorizationError"),
            other => Failure::InvalidParameter(AwsError::from(other).code),
        })
}
