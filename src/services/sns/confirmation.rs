//! The SubscriptionConfirmation and UnsubscribeConfirmation messages a subscription is sent: an
//! HTTP POST, or the outbox for e-mail and the other protocols, retried like any message. Must
//! not depend on the Subscribe or Publish operations.

use super::context::{base_url, signing_cert_url};
use super::delivery::{effective_policy, http_headers};
use super::delivery_policy::Schedule;
use super::envelope::{self, ConfirmationFields};
use super::protocol::Protocol;
use crate::engine::delivery::{Delivery, Target};
use crate::engine::time::format_rfc3339;
use crate::services::Context;
use crate::signature::SIGNER;
use crate::state::State;
use serde_json::json;
use std::collections::BTreeMap;

/// Sends a SubscriptionConfirmation or UnsubscribeConfirmation to the subscription's endpoint:
/// an HTTP POST, or the outbox for e-mail.
pub(super) fn send_confirmation(e: &mut State, cx: &Context, sub_arn: &str, kind: &str) {
    let Some(sub) = e.sns.subscriptions.get(sub_arn) else {
        return;
    };
    let Some(topic) = e.sns.topics.get(&sub.topic_arn) else {
        return;
    };
    let id = e.engine.rng.uuid();
    // The topic ARN as it is, colons included (docs/sns.md, "URL formats").
    let subscribe_url = format!(
        "{}/?Action=ConfirmSubscription&TopicArn={}&Token={}",
        base_url(cx),
        topic.arn,
        sub.token
    );
    let fields = ConfirmationFields {
        message_id: &id,
        token: &sub.token,
        topic_arn: &topic.arn,
        subscribe_url: &subscribe_url,
        timestamp: &format_rfc3339(e.now()),
        signing_cert_url: &signing_cert_url(cx),
        subscription_arn: &sub.arn,
    };
    let body = if kind == "SubscriptionConfirmation" {
        envelope::subscription_confirmation(&SIGNER, topic.signature_version, &fields)
    } else {
        envelope::unsubscribe_confirmation(&SIGNER, topic.signature_version, &fields)
    };
    let target = match sub.protocol {
        Protocol::Http | Protocol::Https => {
            let unsubscribing = kind == "UnsubscribeConfirmation";
            let headers = http_headers(
                kind,
                &id,
                &topic.arn,
                unsubscribing.then_some(sub.arn.as_str()),
                "text/plain; charset=UTF-8",
            );
            Target::Http {
                method: "POST".into(),
                url: sub.endpoint.clone(),
                headers,
                body,
            }
        }
        Protocol::EmailJson => Target::Outbox {
            address: sub.endpoint.clone(),
            body,
            attributes: BTreeMap::new(),
        },
        _ => {
            let text = format!(
                "You have chosen to subscribe to the topic:\n{}\n\nTo confirm this subscription, click or visit the link below \
                 (If this was in error no action is necessary):\n{subscribe_url}",
                topic.arn
            );
            let attributes = BTreeMap::from([
                ("Token".to_string(), json!(sub.token)),
                ("SubscribeURL".to_string(), json!(subscribe_url)),
            ]);
            Target::Outbox {
                address: sub.endpoint.clone(),
                body: text,
                attributes,
            }
        }
    };
    // Confirmations are retried like any message.
    let schedule =
        Schedule::fixed_for(sub.protocol).unwrap_or_else(|| effective_policy(topic, sub).healthy);
    let delivery = Delivery::new(
        "sns",
        sub.arn.clone(),
        sub.protocol.to_string(),
        id,
        target,
        schedule,
        None,
    );
    e.deliver(delivery);
}
