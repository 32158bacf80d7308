//! SNS state: topics and subscriptions per account and region, keyed by ARN; platform
//! applications and endpoints; SMS settings per account and region. Plain data: imports the
//! engine's time and the data modules (archive, filter, protocol, signing) only, never an operation.

use super::filter::{FilterPolicy, FilterScope, attribute_strings, body_strings};
use super::protocol::Protocol;
use crate::engine::time::Millis;
use crate::signature::SignatureVersion;
use crate::state::match_index::MatchIndex;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

type Attributes = BTreeMap<String, String>;

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Topic {
    pub arn: String,
    pub name: String,
    pub account: String,
    pub region: String,
    pub created_at: Millis,
    pub fifo: bool,
    pub content_based_dedup: bool,
    /// `Topic` (default) or `MessageGroup`: where FIFO deduplication ids are unique.
    pub dedup_per_group: bool,
    pub signature_version: SignatureVersion,
    /// The policy document; `None` is the default policy.
    pub policy: Option<Value>,
    /// Every other attribute as set (DisplayName, DeliveryPolicy, KmsMasterKeyId, ...).
    pub attributes: BTreeMap<String, String>,
    pub tags: Vec<(String, String)>,
    pub data_protection_policy: Option<String>,
    pub subscriptions_deleted: u64,
    /// FIFO: deduplication ids seen in the last 5 minutes → (until, message id, sequence number).
    #[serde(with = "crate::pairs")]
    pub dedup: HashMap<(Option<String>, String), (Millis, String, u128)>,
    pub next_sequence_number: u128,
    /// FIFO topics with an ArchivePolicy: the messages kept for replay.
    pub archive: Option<super::archive::Archive>,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Subscription {
    pub arn: String,
    pub topic_arn: String,
    pub owner: String,
    /// The subscriber's IAM principal (GetCallerIdentity's ARN for the Subscribe call).
    pub principal: String,
    /// Parsed once at Subscribe; serialized as its name (`sqs`, `email-json`, ...).
    pub protocol: Protocol,
    pub endpoint: String,
    pub confirmed: bool,
    pub confirmation_authenticated: bool,
    pub token: String,
    pub raw: bool,
    #[serde(with = "super::filter::as_text")]
    pub filter: Option<(FilterPolicy, String)>,
    pub filter_scope: FilterScope,
    /// The dead-letter queue ARN and the policy text as set.
    pub redrive: Option<(String, String)>,
    /// Every other attribute as set (DeliveryPolicy, SubscriptionRoleArn, ReplayPolicy, ...).
    pub attributes: BTreeMap<String, String>,
    /// The replay its ReplayPolicy started (FIFO topics with an archive).
    pub replay: Option<super::archive::Replay>,
}

impl Subscription {
    /// What `ListSubscriptions` shows for it.
    pub fn listed_arn(&self) -> &str {
        if self.confirmed {
            &self.arn
        } else {
            "PendingConfirmation"
        }
    }

    /// Whether a message to it carries a notification signed at publish (as `delivery.rs` builds
    /// them): Publish signs ahead, off the engine's lock, only for topics where one does. Raw
    /// deliveries are unsigned; e-mail-json and Lambda are always enveloped; SQS messages are
    /// signed when first read.
    pub fn signs(&self) -> bool {
        match self.protocol {
            Protocol::EmailJson | Protocol::Lambda => true,
            _ if self.raw => false,
            Protocol::Http | Protocol::Https | Protocol::Firehose => true,
            // An SQS message (its own queue's, or a dead letter) is signed when first read
            // (`crate::body`), not at publish.
            _ => false,
        }
    }
}

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Store {
    pub topics: BTreeMap<String, Topic>,
    pub subscriptions: BTreeMap<String, Subscription>,
    /// HTTP/S subscriptions unsubscribed, by the token of their UnsubscribeConfirmation: its
    /// SubscribeURL restores them ("To cancel this operation and restore the subscription, visit
    /// the SubscribeURL included in this message").
    pub unsubscribed: BTreeMap<String, Subscription>,
    pub platform: PlatformStore,
    pub sms: SmsStore,
    /// Topic ARN → its subscriptions with a filter policy, by what the policy requires (issue
    /// 17): [`Store::file_subscription`] after a subscription is made or its policy changes,
    /// [`Store::unfile_subscription`] when it goes.
    #[serde(skip)]
    pub routes: BTreeMap<String, Routes>,
}

/// One topic's subscriptions as a publish reaches them (issue 17): the filter policies, indexed
/// by scope (attribute policies are looked up in the message's attributes, body policies in its
/// body), and the confirmed subscriptions sorted by what a publish must do with them, so that
/// a publish looks at the subscriptions it may deliver to and not at the others.
#[derive(Debug, Default)]
pub struct Routes {
    pub attributes: MatchIndex<String>,
    pub body: MatchIndex<String>,
    /// Confirmed, with a filter policy, and no replay: reached through the index alone. Those
    /// the index rules out are counted (NumberOfNotificationsFilteredOut), not looked at.
    pub indexed: BTreeSet<String>,
    /// Every other confirmed subscription (no filter policy, or a replay that may end its live
    /// deliveries): looked at for every publish.
    pub others: BTreeSet<String>,
    /// Confirmed subscriptions whose notifications are signed: what a publish signs ahead.
    pub signed: BTreeSet<String>,
}

impl Routes {
    fn forget(&mut self, arn: &String) {
        self.attributes.remove(arn);
        self.body.remove(arn);
        self.indexed.remove(arn);
        self.others.remove(arn);
        self.signed.remove(arn);
    }
}

impl Store {
    pub fn reset(&mut self) {
        self.topics.clear();
        self.subscriptions.clear();
        self.unsubscribed.clear();
        self.platform.reset();
        self.sms.reset();
        self.routes.clear();
    }

    /// Files subscription `arn` under what its filter policy requires (or takes it out of the
    /// index when it has none: it then passes every message), and under what a publish does with
    /// it. Called whenever a subscription is made or restored, confirmed, or has an attribute set.
    pub fn file_subscription(&mut self, arn: &str) {
        let Some(sub) = self.subscriptions.get(arn) else {
            return;
        };
        let routes = self.routes.entry(sub.topic_arn.clone()).or_default();
        routes.forget(&sub.arn);
        if let Some((policy, _)) = &sub.filter {
            let index = match policy.scope() {
                FilterScope::MessageAttributes => &mut routes.attributes,
                FilterScope::MessageBody => &mut routes.body,
            };
            index.insert(sub.arn.clone(), policy.needs());
        }
        if sub.confirmed {
            if sub.filter.is_some() && sub.replay.is_none() {
                routes.indexed.insert(sub.arn.clone());
            } else {
                routes.others.insert(sub.arn.clone());
            }
            if sub.signs() {
                routes.signed.insert(sub.arn.clone());
            }
        }
    }

    /// Takes subscription `arn` of topic `topic_arn` out of the routing index.
    pub fn unfile_subscription(&mut self, topic_arn: &str, arn: &str) {
        if let Some(routes) = self.routes.get_mut(topic_arn) {
            routes.forget(&arn.to_string());
        }
    }

    /// The subscriptions of `topic_arn` whose filter policy could pass a message with these
    /// attributes and this body (`None`: a body per protocol, which is not looked up), sorted:
    /// every subscription with a policy that passes the message is among them.
    /// Each is asked for only when a policy of its scope is filed.
    pub fn could_pass(
        &self,
        topic_arn: &str,
        attributes: impl FnOnce() -> BTreeMap<String, (String, String)>,
        body: impl FnOnce() -> Option<Value>,
    ) -> Vec<&String> {
        let Some(routes) = self.routes.get(topic_arn) else {
            return Vec::new();
        };
        let mut arns = Vec::new();
        if !routes.attributes.is_empty() {
            let attributes = attributes();
            let found = routes
                .attributes
                .candidates(|key| attribute_strings(&attributes, key));
            arns.extend(found);
        }
        if !routes.body.is_empty() {
            arns.extend(match body() {
                Some(body) => routes.body.candidates(|key| body_strings(&body, key)),
                None => routes.body.all(),
            });
        }
        arns.sort_unstable();
        arns
    }

    pub fn subscriptions_of<'a>(
        &'a self,
        topic_arn: &'a str,
    ) -> impl Iterator<Item = &'a Subscription> + 'a {
        // A subscription's ARN is its topic's followed by `:<id>`: the topic's lie together.
        let prefix = format!("{topic_arn}:");
        self.subscriptions
            .range(prefix.clone()..)
            .take_while(move |(arn, _)| arn.starts_with(&prefix))
            .map(|(_, s)| s)
            .filter(move |s| s.topic_arn == topic_arn)
    }
}

/// The BeginningArchiveTime of a topic that archives.
pub fn beginning_of(topic: &Topic, now: Millis) -> Option<Millis> {
    topic.archive.as_ref().map(|a| a.beginning(now))
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct PlatformApplication {
    pub arn: String,
    pub name: String,
    pub platform: String,
    pub account: String,
    pub region: String,
    /// Kept to decide AuthenticationMethod, never returned (as in AWS).
    pub credential: String,
    pub principal: Option<String>,
    pub enabled: bool,
    /// Every other attribute as set (Event*, feedback roles, Apple team and bundle ids).
    pub attributes: Attributes,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct PlatformEndpoint {
    pub arn: String,
    pub application_arn: String,
    pub platform: String,
    /// Token, Enabled and CustomUserData (when set), as GetEndpointAttributes returns them.
    pub attributes: Attributes,
}

/// Platform applications and endpoints of every account and region, keyed by ARN.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct PlatformStore {
    pub applications: BTreeMap<String, PlatformApplication>,
    pub endpoints: BTreeMap<String, PlatformEndpoint>,
}

impl PlatformStore {
    pub fn reset(&mut self) {
        self.applications.clear();
        self.endpoints.clear();
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SandboxNumber {
    pub verified: bool,
    pub one_time_password: String,
}

/// The SMS settings of one account in one region.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SmsAccount {
    pub attributes: Attributes,
    pub opted_out: BTreeSet<String>,
    pub sandbox: BTreeMap<String, SandboxNumber>,
}

/// SMS settings keyed by (account, region).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct SmsStore {
    #[serde(with = "crate::pairs")]
    pub accounts: BTreeMap<(String, String), SmsAccount>,
}

impl SmsStore {
    pub fn reset(&mut self) {
        self.accounts.clear();
    }

    /// Puts `phone` on the opt-out list, as a recipient replying STOP would.
    pub fn opt_out(&mut self, account: &str, region: &str, phone: &str) {
        self.accounts
            .entry((account.to_string(), region.to_string()))
            .or_default()
            .opted_out
            .insert(phone.to_string());
    }
}
