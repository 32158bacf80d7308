//! Subscription operations: subscribe, confirm, unsubscribe, attributes and listings.
//! Must not depend on the Publish operations (`publish.rs`).

use super::access::{allows, refused};
use super::archive;
use super::confirmation::send_confirmation;
use super::context::parse_topic_arn;
use super::errors::{SnsError, invalid};
use super::filter::{FilterError, FilterPolicy, FilterScope, NESTED_IN_ATTRIBUTE_SCOPE};
use super::paging::page;
use super::protocol::Protocol;
use super::shapes::*;
use super::store::{Subscription, beginning_of};
use super::topics::topic_mut;
use crate::arn::Arn;
use crate::engine::time::Millis;
use crate::services::Context;
use crate::state::State;
use std::collections::BTreeMap;

/// Subscription attributes a client may set besides those with their own handling.
const PLAIN_ATTRIBUTES: [&str; 2] = ["DeliveryPolicy", "SubscriptionRoleArn"];

fn check_endpoint(protocol: Protocol, endpoint: &str, fifo_topic: bool) -> Result<(), SnsError> {
    let ok = match protocol {
        Protocol::Http => endpoint.starts_with("http://"),
        Protocol::Https => endpoint.starts_with("https://"),
        Protocol::Email | Protocol::EmailJson => endpoint.contains('@'),
        Protocol::Sms if !valid_sms_endpoint(endpoint) => {
            return Err(SnsError::InvalidParameter(format!(
                "Invalid SMS endpoint: {endpoint}"
            )));
        }
        Protocol::Sms => true,
        Protocol::Sqs => {
            let queue = Arn::parse(endpoint).is_some_and(|a| {
                a.partition == "aws" && a.service == "sqs" && !a.resource.contains(':')
            });
            if !queue {
                return Err(invalid("SQS endpoint ARN"));
            }
            if endpoint.ends_with(".fifo") && !fifo_topic {
                return Err(invalid(
                    "Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics",
                ));
            }
            true
        }
        Protocol::Lambda => endpoint.starts_with("arn:aws:lambda:"),
        Protocol::Firehose => endpoint.starts_with("arn:aws:firehose:"),
        Protocol::Application => {
            Arn::service_of(endpoint) == "sns" && Arn::resource_type(endpoint) == Some("endpoint")
        }
    };
    if !ok {
        return Err(invalid(
            "Endpoint Reason: Endpoint must match the specified protocol",
        ));
    }
    Ok(())
}

/// A phone number as Subscribe takes it: an optional `+`, then 7 to 15 digits that single `.`,
/// `-` or `/` may separate (AWS observed: LocalStack `test_subscribe_sms_obscure_phone_number`
/// subscribes `+12/34-567.890`-style numbers and `invalid-number` is refused; moto's tests refuse
/// `+15--551234567`, `+15551234567.` and `/+15551234567`).
fn valid_sms_endpoint(endpoint: &str) -> bool {
    let number = endpoint.strip_prefix('+').unwrap_or(endpoint);
    let separator = |b: u8| matches!(b, b'.' | b'-' | b'/');
    let bytes = number.as_bytes();
    let digits = bytes.iter().filter(|b| b.is_ascii_digit()).count();
    (7..=15).contains(&digits)
        && bytes.iter().all(|b| b.is_ascii_digit() || separator(*b))
        && bytes.first().is_some_and(u8::is_ascii_digit)
        && bytes.last().is_some_and(u8::is_ascii_digit)
        && !bytes
            .windows(2)
            .any(|w| matches!(w, [a, b] if separator(*a) && separator(*b)))
}

/// Applies one subscription attribute; `prefix` is "Attributes Reason: " inside Subscribe;
/// `archive_begins` is the topic's BeginningArchiveTime when it archives (for ReplayPolicy).
fn apply_attribute(
    sub: &mut Subscription,
    name: &str,
    value: &str,
    prefix: &str,
    fifo_topic: bool,
    archive_begins: Option<Millis>,
) -> Result<(), SnsError> {
    match name {
        // An empty policy stops the replay; the subscription goes on as usual.
        "ReplayPolicy" if value.is_empty() => {
            sub.replay = None;
            sub.attributes.remove(name);
        }
        "ReplayPolicy" => {
            let replay = archive::parse_replay_policy(value, fifo_topic, archive_begins)
                .map_err(|m| invalid(format!("{prefix}ReplayPolicy: {m}")))?;
            sub.replay = Some(replay);
            sub.attributes.insert(name.into(), value.into());
        }
        "RawMessageDelivery" => match value.to_ascii_lowercase().as_str() {
            "true" | "false" => sub.raw = value.eq_ignore_ascii_case("true"),
            _ => {
                return Err(invalid(format!(
                    "{prefix}RawMessageDelivery: Invalid value [{value}]. Must be true or false."
                )));
            }
        },
        "FilterPolicyScope" => {
            sub.filter_scope = match value {
                "MessageAttributes" => FilterScope::MessageAttributes,
                "MessageBody" => FilterScope::MessageBody,
                _ => {
                    return Err(invalid(format!(
                        "{prefix}FilterPolicyScope: Invalid value [{value}]. Please use either MessageBody or MessageAttributes"
                    )));
                }
            };
            if let Some((_, text)) = sub.filter.take() {
                sub.filter = Some((parse_filter(&text, sub.filter_scope, prefix)?, text));
            }
        }
        // An empty policy, or `{}`, removes the policy (AWS observed: `{}` is accepted).
        "FilterPolicy" if value.is_empty() || is_empty_object(value) => sub.filter = None,
        "FilterPolicy" => {
            sub.filter = Some((
                parse_filter(value, sub.filter_scope, prefix)?,
                value.to_string(),
            ))
        }
        "RedrivePolicy" if value.is_empty() => sub.redrive = None,
        "RedrivePolicy" => {
            let doc: serde_json::Value = serde_json::from_str(value).map_err(|e| {
                invalid(format!("{prefix}RedrivePolicy: failed to parse JSON. {e}"))
            })?;
            let arn = doc
                .get("deadLetterTargetArn")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default();
            // Six `:`-separated elements with `sqs` third, whatever the first: a wider rule
            // than Arn::parse, kept as it is.
            if Arn::element_count(arn) != 6 || Arn::element(arn, 2) != Some("sqs") {
                return Err(invalid(format!(
                    "{prefix}RedrivePolicy: deadLetterTargetArn is an invalid arn"
                )));
            }
            if fifo_topic
                && sub.protocol == Protocol::Sqs
                && sub.endpoint.ends_with(".fifo")
                && !arn.ends_with(".fifo")
            {
                return Err(invalid(format!(
                    "{prefix}RedrivePolicy: must use a FIFO queue as DLQ for a FIFO Subscription to a FIFO Topic."
                )));
            }
            sub.redrive = Some((arn.to_string(), value.to_string()));
        }
        "DeliveryPolicy" if !value.is_empty() => {
            super::delivery_policy::parse(value, super::delivery_policy::Level::Subscription)
                .map_err(|m| invalid(format!("{prefix}DeliveryPolicy: {m}")))?;
            sub.attributes.insert(name.into(), value.into());
        }
        _ if PLAIN_ATTRIBUTES.contains(&name) => {
            if value.is_empty() {
                sub.attributes.remove(name);
            } else {
                sub.attributes.insert(name.into(), value.into());
            }
        }
        _ => return Err(invalid("AttributeName")),
    }
    Ok(())
}

/// Whether a FilterPolicy is `{}` (with any spacing), which removes the policy.
fn is_empty_object(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .is_ok_and(|v| v.as_object().is_some_and(|o| o.is_empty()))
}

fn parse_filter(text: &str, scope: FilterScope, prefix: &str) -> Result<FilterPolicy, SnsError> {
    FilterPolicy::parse(text, scope).map_err(|e| match e {
        FilterError::Invalid(m) if m == NESTED_IN_ATTRIBUTE_SCOPE => invalid(m),
        FilterError::Invalid(m) => invalid(format!("{prefix}FilterPolicy: {m}")),
        FilterError::Limit(m) => {
            SnsError::FilterPolicyLimitExceeded(format!("Filter policy limit exceeded: {m}"))
        }
    })
}

/// SNS's default quotas: 200 filter policies per topic and 10,000 per account.
fn check_filter_quota(e: &State, topic_arn: &str, account: &str) -> Result<(), SnsError> {
    let filtered = || e.sns.subscriptions.values().filter(|s| s.filter.is_some());
    let on_topic = filtered().filter(|s| s.topic_arn == topic_arn).count();
    let in_account = filtered().filter(|s| s.owner == account).count();
    if on_topic >= 200 || in_account >= 10_000 {
        return Err(SnsError::FilterPolicyLimitExceeded(
            "Filter policy limit exceeded: the topic has 200 filter policies, or the account 10,000".into(),
        ));
    }
    Ok(())
}

pub(super) fn subscribe(
    e: &mut State,
    cx: &Context,
    input: SubscribeInput,
) -> Result<SubscriptionArnOutput, SnsError> {
    let now = e.now();
    if input
        .attributes
        .get("FilterPolicy")
        .is_some_and(|p| !p.is_empty() && !is_empty_object(p))
    {
        check_filter_quota(e, &input.topic_arn, &cx.account)?;
    }
    let topic = topic_mut(e, cx, &input.topic_arn)?;
    if !allows(topic, &cx.account, "SNS:Subscribe") {
        let arn = topic.arn.clone();
        return Err(refused(e, cx, "SNS:Subscribe", &arn));
    }
    let fifo_topic = topic.fifo;
    let archive_begins = beginning_of(topic, now);
    let endpoint = input.endpoint.unwrap_or_default();
    let protocol =
        subscribe_protocol(e, &input.protocol, &endpoint, &input.attributes, fifo_topic)?;
    let id = e.engine.rng.uuid();
    let token = new_token(e);
    let mut sub = Subscription {
        arn: format!("{}:{id}", input.topic_arn),
        topic_arn: input.topic_arn.clone(),
        owner: cx.account.clone(),
        principal: crate::services::iam::identity::caller_arn(e, cx),
        protocol,
        endpoint,
        confirmed: !protocol.needs_confirmation(),
        confirmation_authenticated: false,
        token,
        raw: false,
        filter: None,
        filter_scope: FilterScope::MessageAttributes,
        redrive: None,
        attributes: BTreeMap::new(),
        replay: None,
    };
    sub.confirmation_authenticated = sub.confirmed;
    apply_attributes(&mut sub, &input.attributes, fifo_topic, archive_begins)?;
    // Subscribing the same endpoint again answers the existing subscription.
    let existing = e
        .sns
        .subscriptions_of(&input.topic_arn)
        .find(|s| s.protocol == sub.protocol && s.endpoint == sub.endpoint);
    if let Some(existing) = existing {
        // Only the attributes the request names are compared, with the defaults of those it
        // leaves out (AWS observed, LocalStack `test_subscribe_idempotency`: subscribing again
        // with no attributes, or with FilterPolicyScope=MessageAttributes, answers the existing
        // subscription; RawMessageDelivery=false against true fails).
        let same = input
            .attributes
            .iter()
            .all(|(k, v)| same_value(&attribute_value(existing, k), v));
        if !same {
            return Err(invalid(
                "Attributes Reason: Subscription already exists with different attributes",
            ));
        }
        let arn = if existing.confirmed || input.return_subscription_arn {
            existing.arn.clone()
        } else {
            "pending confirmation".into()
        };
        return Ok(SubscriptionArnOutput {
            subscription_arn: arn,
        });
    }
    let (arn, confirmed) = (sub.arn.clone(), sub.confirmed);
    e.sns.subscriptions.insert(arn.clone(), sub);
    e.sns.file_subscription(&arn);
    if !confirmed {
        send_confirmation(e, cx, &arn, "SubscriptionConfirmation");
    }
    // "Messages can be replayed as soon as the subscription is created" (AWS subscriber page).
    super::replay::replay(e, cx, &arn);
    let shown = if confirmed || input.return_subscription_arn {
        arn
    } else {
        "pending confirmation".into()
    };
    Ok(SubscriptionArnOutput {
        subscription_arn: shown,
    })
}

/// The protocol a Subscribe names, checked against its endpoint, the topic (FIFO topics take
/// SQS only) and the attributes the protocol needs.
fn subscribe_protocol(
    e: &State,
    name: &str,
    endpoint: &str,
    attributes: &BTreeMap<String, String>,
    fifo_topic: bool,
) -> Result<Protocol, SnsError> {
    // Parsed once, here: the store keeps the protocol typed.
    let Some(protocol) = Protocol::from_name(&name.to_ascii_lowercase()) else {
        return Err(invalid(format!(
            "Amazon SNS does not support this protocol string: {name}"
        )));
    };
    check_endpoint(protocol, endpoint, fifo_topic)?;
    if protocol == Protocol::Application && !super::platform::endpoint_exists(e, endpoint) {
        return Err(invalid(format!(
            "Endpoint Reason: Endpoint does not exist for endpoint arn{endpoint}"
        )));
    }
    if fifo_topic && protocol != Protocol::Sqs {
        return Err(invalid(format!(
            "Invalid parameter: Endpoint Reason: FIFO topics only support SQS subscriptions, not {protocol}"
        )));
    }
    if protocol == Protocol::Firehose && !attributes.contains_key("SubscriptionRoleArn") {
        return Err(invalid(
            "Attributes Reason: SubscriptionRoleArn must be specified for firehose subscriptions",
        ));
    }
    Ok(protocol)
}

/// A new subscription's attributes as Subscribe gives them, FilterPolicyScope first: the
/// policy is parsed for its scope.
fn apply_attributes(
    sub: &mut Subscription,
    attributes: &BTreeMap<String, String>,
    fifo_topic: bool,
    archive_begins: Option<Millis>,
) -> Result<(), SnsError> {
    if let Some(scope) = attributes.get("FilterPolicyScope") {
        apply_attribute(
            sub,
            "FilterPolicyScope",
            scope,
            "Attributes Reason: ",
            fifo_topic,
            archive_begins,
        )?;
    }
    for (k, v) in attributes.iter().filter(|(k, _)| *k != "FilterPolicyScope") {
        apply_attribute(sub, k, v, "Attributes Reason: ", fifo_topic, archive_begins)?;
    }
    Ok(())
}

/// A confirmation token: 64 hex digits from the seeded generator.
fn new_token(e: &mut State) -> String {
    (0..4)
        .map(|_| format!("{:016x}", e.engine.rng.next_u64()))
        .collect()
}

/// What GetSubscriptionAttributes would say for `name` (empty when unset).
fn attribute_value(sub: &Subscription, name: &str) -> String {
    match name {
        "RawMessageDelivery" => sub.raw.to_string(),
        "FilterPolicy" => sub.filter.as_ref().map(|f| f.1.clone()).unwrap_or_default(),
        "FilterPolicyScope" => match sub.filter_scope {
            FilterScope::MessageAttributes => "MessageAttributes".into(),
            FilterScope::MessageBody => "MessageBody".into(),
        },
        "RedrivePolicy" => sub
            .redrive
            .as_ref()
            .map(|r| r.1.clone())
            .unwrap_or_default(),
        _ => sub.attributes.get(name).cloned().unwrap_or_default(),
    }
}

/// Equal attribute values: JSON documents by content, booleans without regard to case.
fn same_value(stored: &str, given: &str) -> bool {
    if stored == given || stored.eq_ignore_ascii_case(given) && matches!(stored, "true" | "false") {
        return true;
    }
    let json = |t: &str| serde_json::from_str::<serde_json::Value>(t).ok();
    matches!((json(stored), json(given)), (Some(a), Some(b)) if a.is_object() && a == b)
}

pub(super) fn confirm_subscription(
    e: &mut State,
    cx: &Context,
    input: ConfirmSubscriptionInput,
) -> Result<SubscriptionArnOutput, SnsError> {
    // Observed (docs/sns.md, "Visiting SubscribeURL"): a malformed or foreign-region topic ARN is
    // "Invalid parameter: Topic"; a token that is not hex is "Invalid token"; a hex token that
    // names no subscription is "Invalid parameter: Token".
    parse_topic_arn(cx, &input.topic_arn, "Topic").map_err(|_| invalid("Topic"))?;
    if input.token.is_empty() || !input.token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(SnsError::InvalidParameter("Invalid token".into()));
    }
    // An UnsubscribeConfirmation's token restores its subscription while the topic exists.
    let restored = e
        .sns
        .unsubscribed
        .get(&input.token)
        .is_some_and(|s| e.sns.topics.contains_key(&s.topic_arn));
    if let Some(sub) = e.sns.unsubscribed.remove(&input.token).filter(|_| restored) {
        let arn = sub.arn.clone();
        e.sns.subscriptions.insert(arn.clone(), sub);
        e.sns.file_subscription(&arn);
    }
    // The token names the subscription; the topic ARN only has to be well formed.
    let sub = e
        .sns
        .subscriptions
        .values_mut()
        .find(|s| s.token == input.token)
        .ok_or_else(|| invalid("Token"))?;
    sub.confirmed = true;
    // "true if the subscription confirmation request was authenticated" (SNS API model): a
    // signed ConfirmSubscription call is, a visit to the SubscribeURL is not.
    sub.confirmation_authenticated = cx.access_key.is_some();
    let arn = sub.arn.clone();
    e.sns.file_subscription(&arn);
    Ok(SubscriptionArnOutput {
        subscription_arn: arn,
    })
}

/// The subscription an ARN names: `arn:aws:sns:<region>:<account>:<topic>:<id>`, the resource
/// holding exactly one `:`.
fn subscription_mut<'e>(e: &'e mut State, arn: &str) -> Result<&'e mut Subscription, SnsError> {
    check_subscription_arn(arn)?;
    e.sns.subscriptions.get_mut(arn).ok_or_else(no_subscription)
}

/// As [`subscription_mut`], to read.
fn subscription_ref<'e>(e: &'e State, arn: &str) -> Result<&'e Subscription, SnsError> {
    check_subscription_arn(arn)?;
    e.sns.subscriptions.get(arn).ok_or_else(no_subscription)
}

fn check_subscription_arn(arn: &str) -> Result<(), SnsError> {
    // AWS's reason for too few elements (AWS observed, LocalStack
    // `test_unsubscribe_from_deleted_topic`), as for topic ARNs.
    let elements = Arn::element_count(arn);
    if elements < 6 {
        return Err(invalid(format!(
            "SubscriptionArn Reason: An ARN must have at least 6 elements, not {elements}"
        )));
    }
    let well_formed = Arn::parse(arn).is_some_and(|a| {
        a.partition == "aws" && a.service == "sns" && a.resource_parts().count() == 2
    });
    if !well_formed {
        return Err(invalid("SubscriptionArn"));
    }
    Ok(())
}

fn no_subscription() -> SnsError {
    SnsError::NotFound("Subscription does not exist".into())
}

pub(super) fn unsubscribe(
    e: &mut State,
    cx: &Context,
    input: SubscriptionArnInput,
) -> Result<Empty, SnsError> {
    // An ARN of six elements or more that names no subscription is refused naming the id, as
    // AWS answers Unsubscribe (LocalStack's AWS-validated unsubscribe; issue 33).
    if check_subscription_arn(&input.subscription_arn).is_err()
        && Arn::element_count(&input.subscription_arn) >= 6
    {
        return Err(invalid("SubscriptionId"));
    }
    // Unsubscribing twice succeeds (AWS observed: LocalStack `test_unsubscribe_idempotency`).
    let sub = match subscription_mut(e, &input.subscription_arn) {
        Err(SnsError::NotFound(_)) => return Ok(Empty {}),
        other => other?,
    };
    let (http, topic_arn) = (sub.protocol.is_http(), sub.topic_arn.clone());
    if http {
        // The endpoint hears of it with a token of its own (AWS observed: the
        // UnsubscribeConfirmation's Token is not the SubscriptionConfirmation's).
        let token = new_token(e);
        if let Some(sub) = e.sns.subscriptions.get_mut(&input.subscription_arn) {
            sub.token = token;
        }
        send_confirmation(e, cx, &input.subscription_arn, "UnsubscribeConfirmation");
    }
    e.sns
        .unfile_subscription(&topic_arn, &input.subscription_arn);
    if let Some(sub) = e
        .sns
        .subscriptions
        .remove(&input.subscription_arn)
        .filter(|_| http)
    {
        e.sns.unsubscribed.insert(sub.token.clone(), sub);
    }
    if let Some(topic) = e.sns.topics.get_mut(&topic_arn) {
        topic.subscriptions_deleted += 1;
    }
    Ok(Empty {})
}

pub(super) fn get_subscription_attributes(
    e: &mut State,
    _cx: &Context,
    input: SubscriptionArnInput,
) -> Result<AttributesOutput, SnsError> {
    let now = e.now();
    let sub = subscription_ref(e, &input.subscription_arn)?;
    let mut attributes: Attributes = sub.attributes.clone();
    attributes.insert("SubscriptionArn".into(), sub.arn.clone());
    attributes.insert("TopicArn".into(), sub.topic_arn.clone());
    attributes.insert("Owner".into(), sub.owner.clone());
    attributes.insert("Protocol".into(), sub.protocol.to_string());
    attributes.insert("Endpoint".into(), sub.endpoint.clone());
    attributes.insert("PendingConfirmation".into(), (!sub.confirmed).to_string());
    attributes.insert(
        "ConfirmationWasAuthenticated".into(),
        sub.confirmation_authenticated.to_string(),
    );
    attributes.insert("RawMessageDelivery".into(), sub.raw.to_string());
    attributes.insert("SubscriptionPrincipal".into(), sub.principal.clone());
    if let Some((_, text)) = &sub.filter {
        attributes.insert("FilterPolicy".into(), text.clone());
        let scope = match sub.filter_scope {
            FilterScope::MessageAttributes => "MessageAttributes",
            FilterScope::MessageBody => "MessageBody",
        };
        attributes.insert("FilterPolicyScope".into(), scope.into());
    }
    if let Some((_, text)) = &sub.redrive {
        attributes.insert("RedrivePolicy".into(), text.clone());
    }
    if let Some(replay) = &sub.replay {
        attributes.insert("ReplayStatus".into(), replay.status(now).into());
    }
    let http = sub.protocol.is_http();
    if let Some(topic) = e.sns.topics.get(&sub.topic_arn).filter(|_| http) {
        let effective = super::delivery::effective_policy(topic, sub).subscription_json();
        let effective: serde_json::Value = serde_json::from_str(&effective).unwrap_or_default();
        attributes.insert(
            "EffectiveDeliveryPolicy".into(),
            super::topics::ordered_json(&effective),
        );
    }
    Ok(AttributesOutput { attributes })
}

pub(super) fn set_subscription_attributes(
    e: &mut State,
    cx: &Context,
    input: SetSubscriptionAttributesInput,
) -> Result<Empty, SnsError> {
    let now = e.now();
    let topic_arn = subscription_mut(e, &input.subscription_arn)?
        .topic_arn
        .clone();
    let value = input.attribute_value.unwrap_or_default();
    let name = input.attribute_name;
    let sub = subscription_mut(e, &input.subscription_arn)?;
    if name == "FilterPolicy"
        && !value.is_empty()
        && !is_empty_object(&value)
        && sub.filter.is_none()
    {
        let owner = sub.owner.clone();
        check_filter_quota(e, &topic_arn, &owner)?;
    }
    let topic = e.sns.topics.get(&topic_arn);
    let fifo_topic = topic.is_some_and(|t| t.fifo);
    let archive_begins = topic.and_then(|t| beginning_of(t, now));
    let sub = subscription_mut(e, &input.subscription_arn)?;
    let applied = apply_attribute(sub, &name, &value, "", fifo_topic, archive_begins);
    // Filed again even when refused: a scope change that fails has dropped the policy.
    e.sns.file_subscription(&input.subscription_arn);
    applied?;
    // Setting a ReplayPolicy starts a replay, replacing any earlier one.
    if name == "ReplayPolicy" && !value.is_empty() {
        super::replay::replay(e, cx, &input.subscription_arn);
    }
    Ok(Empty {})
}

fn entry(s: &Subscription) -> SubscriptionEntry {
    SubscriptionEntry {
        subscription_arn: s.listed_arn().to_string(),
        owner: s.owner.clone(),
        protocol: s.protocol.to_string(),
        endpoint: s.endpoint.clone(),
        topic_arn: s.topic_arn.clone(),
    }
}

pub(super) fn list_subscriptions(
    e: &mut State,
    cx: &Context,
    input: NextTokenInput,
) -> Result<ListSubscriptionsOutput, SnsError> {
    // The ARNs of the caller's region and account: `arn:aws:sns:<region>:<account>:`.
    let prefix = Arn::new("sns", &cx.region, &cx.account, "").text();
    let mine = e
        .sns
        .subscriptions
        .iter()
        .filter(|(k, _)| k.starts_with(&prefix))
        .map(|(k, s)| (k, entry(s)));
    let (subscriptions, next_token) = page(mine, input.next_token.as_deref())?;
    Ok(ListSubscriptionsOutput {
        subscriptions,
        next_token,
    })
}

pub(super) fn list_subscriptions_by_topic(
    e: &mut State,
    cx: &Context,
    input: NextTokenInput,
) -> Result<ListSubscriptionsOutput, SnsError> {
    let topic_arn = input.topic_arn.clone().unwrap_or_default();
    topic_mut(e, cx, &topic_arn)?;
    let of_topic = e
        .sns
        .subscriptions
        .iter()
        .filter(|(_, s)| s.topic_arn == topic_arn)
        .map(|(k, s)| (k, entry(s)));
    let (subscriptions, next_token) = page(of_topic, input.next_token.as_deref())?;
    Ok(ListSubscriptionsOutput {
        subscriptions,
        next_token,
    })
}
