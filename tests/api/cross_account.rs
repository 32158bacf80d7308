//! Account isolation: a request on another account's queue, topic or bus is decided by the
//! resource's policy, as AWS decides it (docs/policies.md). Account 111111111111 owns; account
//! 222222222222 asks.

use crate::harness::Harness;
use crate::sqs_queues::create;
use aws_sdk_sqs::error::ProvideErrorMetadata;
use aws_sdk_sqs::types::{
    ChangeMessageVisibilityBatchRequestEntry, DeleteMessageBatchRequestEntry, QueueAttributeName,
    SendMessageBatchRequestEntry,
};
use serde_json::{Value, json};
use std::fmt::Debug;

pub const OWNER: &str = "111111111111";
pub const OTHER: &str = "222222222222";
const SQS_DENIED: &str = "Access to the resource https://sqs.us-east-1.amazonaws.com/ is denied.";

/// The (code, message) of a call that must fail.
pub fn refusal<T: Debug, E: ProvideErrorMetadata + Debug>(
    result: Result<T, E>,
) -> (String, String) {
    let err = result.expect_err("the call is refused");
    (
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    )
}

fn sqs_denied() -> (String, String) {
    ("AccessDenied".into(), SQS_DENIED.into())
}

/// The owner's queue `name` with one message in it and a receipt handle the owner holds for it.
async fn owned_queue(h: &Harness, name: &str) -> (String, String) {
    let owner = h.sqs_as(OWNER, "us-east-1");
    let url = create(&owner, name, &[]).await;
    for body in ["first", "second"] {
        owner
            .send_message()
            .queue_url(&url)
            .message_body(body)
            .send()
            .await
            .unwrap();
    }
    let got = owner
        .receive_message()
        .queue_url(&url)
        .visibility_timeout(0)
        .send()
        .await
        .unwrap();
    let handle = got.messages.unwrap()[0].receipt_handle.clone().unwrap();
    (url, handle)
}

async fn set_policy(h: &Harness, url: &str, policy: Value) {
    h.sqs_as(OWNER, "us-east-1")
        .set_queue_attributes()
        .queue_url(url)
        .attributes(QueueAttributeName::Policy, policy.to_string())
        .send()
        .await
        .unwrap();
}

fn allow_all(resource: &str) -> Value {
    json!({"Version": "2012-10-17", "Statement": [{"Effect": "Allow",
        "Principal": {"AWS": format!("arn:aws:iam::{OTHER}:root")}, "Action": "sqs:*",
        "Resource": resource}]})
}

fn queue_arn(name: &str) -> String {
    format!("arn:aws:sqs:us-east-1:{OWNER}:{name}")
}

/// The owner-only actions: refused to the other account whatever the queue's policy says.
async fn assert_owner_only(h: &Harness, url: &str, name: &str) {
    let other = h.sqs_as(OTHER, "us-east-1");
    let attrs = other
        .set_queue_attributes()
        .queue_url(url)
        .attributes(QueueAttributeName::Policy, allow_all("*").to_string())
        .send()
        .await;
    assert_eq!(refusal(attrs), sqs_denied(), "SetQueueAttributes");
    let add = other
        .add_permission()
        .queue_url(url)
        .label("mine")
        .aws_account_ids(OTHER)
        .actions("*")
        .send()
        .await;
    assert_eq!(refusal(add), sqs_denied(), "AddPermission");
    let remove = other
        .remove_permission()
        .queue_url(url)
        .label("x")
        .send()
        .await;
    assert_eq!(refusal(remove), sqs_denied(), "RemovePermission");
    let tags = other.list_queue_tags().queue_url(url).send().await;
    assert_eq!(refusal(tags), sqs_denied(), "ListQueueTags");
    let tag = other.tag_queue().queue_url(url).tags("k", "v").send().await;
    assert_eq!(refusal(tag), sqs_denied(), "TagQueue");
    let untag = other
        .untag_queue()
        .queue_url(url)
        .tag_keys("k")
        .send()
        .await;
    assert_eq!(refusal(untag), sqs_denied(), "UntagQueue");
    let start = other
        .start_message_move_task()
        .source_arn(queue_arn(name))
        .send()
        .await;
    assert_eq!(refusal(start), sqs_denied(), "StartMessageMoveTask");
    let list = other
        .list_message_move_tasks()
        .source_arn(queue_arn(name))
        .send()
        .await;
    assert_eq!(refusal(list), sqs_denied(), "ListMessageMoveTasks");
    let delete = other.delete_queue().queue_url(url).send().await;
    assert_eq!(refusal(delete), sqs_denied(), "DeleteQueue");
}

#[tokio::test]
async fn another_accounts_queue_is_refused_without_a_policy() {
    let h = Harness::start().await;
    let (url, handle) = owned_queue(&h, "orders").await;
    let other = h.sqs_as(OTHER, "us-east-1");

    // By name, another account's queue the caller may not use does not exist.
    let found = other
        .get_queue_url()
        .queue_name("orders")
        .queue_owner_aws_account_id(OWNER)
        .send()
        .await;
    assert_eq!(
        refusal(found),
        (
            "AWS.SimpleQueueService.NonExistentQueue".into(),
            "The specified queue does not exist.".into()
        )
    );
    let denied = sqs_denied();
    let attrs = other.get_queue_attributes().queue_url(&url).send().await;
    assert_eq!(refusal(attrs), denied, "GetQueueAttributes");
    let send = other
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .send()
        .await;
    assert_eq!(refusal(send), denied, "SendMessage");
    let entry = SendMessageBatchRequestEntry::builder()
        .id("a")
        .message_body("x")
        .build()
        .unwrap();
    let batch = other
        .send_message_batch()
        .queue_url(&url)
        .entries(entry)
        .send()
        .await;
    assert_eq!(refusal(batch), denied, "SendMessageBatch");
    let receive = other.receive_message().queue_url(&url).send().await;
    assert_eq!(refusal(receive), denied, "ReceiveMessage");
    let delete = other
        .delete_message()
        .queue_url(&url)
        .receipt_handle(&handle)
        .send()
        .await;
    assert_eq!(refusal(delete), denied, "DeleteMessage");
    let entry = DeleteMessageBatchRequestEntry::builder()
        .id("a")
        .receipt_handle(&handle)
        .build()
        .unwrap();
    let delete = other
        .delete_message_batch()
        .queue_url(&url)
        .entries(entry)
        .send()
        .await;
    assert_eq!(refusal(delete), denied, "DeleteMessageBatch");
    let change = other
        .change_message_visibility()
        .queue_url(&url)
        .receipt_handle(&handle)
        .visibility_timeout(600)
        .send()
        .await;
    assert_eq!(refusal(change), denied, "ChangeMessageVisibility");
    let entry = ChangeMessageVisibilityBatchRequestEntry::builder()
        .id("a")
        .receipt_handle(&handle)
        .visibility_timeout(600)
        .build()
        .unwrap();
    let change = other
        .change_message_visibility_batch()
        .queue_url(&url)
        .entries(entry)
        .send()
        .await;
    assert_eq!(refusal(change), denied, "ChangeMessageVisibilityBatch");
    let purge = other.purge_queue().queue_url(&url).send().await;
    assert_eq!(refusal(purge), denied, "PurgeQueue");
    let sources = other
        .list_dead_letter_source_queues()
        .queue_url(&url)
        .send()
        .await;
    assert_eq!(refusal(sources), denied, "ListDeadLetterSourceQueues");
    assert_owner_only(&h, &url, "orders").await;

    // Nothing changed: the queue, its two messages (visible: the change was refused), no tag.
    let owner = h.sqs_as(OWNER, "us-east-1");
    let got = owner
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    assert_eq!(got.messages.unwrap().len(), 2);
    let tags = owner
        .list_queue_tags()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    assert!(tags.tags.is_none_or(|t| t.is_empty()));

    // The AWS Query answer: 403, AccessDenied, a Sender fault.
    let reply = h
        .query_at(
            &format!("/{OWNER}/orders"),
            &[("Action", "SendMessage"), ("MessageBody", "x")],
        )
        .await;
    assert_eq!(reply.status, 403, "{}", reply.body);
    assert!(
        reply
            .body
            .contains("<Type>Sender</Type><Code>AccessDenied</Code>"),
        "{}",
        reply.body
    );
    assert!(reply.body.contains(SQS_DENIED), "{}", reply.body);
}

#[tokio::test]
async fn a_policy_allowing_everything_grants_all_but_the_owners_actions() {
    let h = Harness::start().await;
    let (url, handle) = owned_queue(&h, "shared").await;
    set_policy(&h, &url, allow_all(&queue_arn("shared"))).await;
    let other = h.sqs_as(OTHER, "us-east-1");

    let found = other
        .get_queue_url()
        .queue_name("shared")
        .queue_owner_aws_account_id(OWNER)
        .send()
        .await
        .unwrap();
    assert_eq!(found.queue_url.as_deref(), Some(url.as_str()));
    let attrs = other
        .get_queue_attributes()
        .queue_url(&url)
        .attribute_names(QueueAttributeName::All)
        .send()
        .await
        .unwrap();
    assert_eq!(
        attrs.attributes.unwrap()[&QueueAttributeName::QueueArn],
        queue_arn("shared")
    );
    other
        .send_message()
        .queue_url(&url)
        .message_body("theirs")
        .send()
        .await
        .unwrap();
    let entry = SendMessageBatchRequestEntry::builder()
        .id("a")
        .message_body("batch")
        .build()
        .unwrap();
    let batch = other
        .send_message_batch()
        .queue_url(&url)
        .entries(entry)
        .send()
        .await
        .unwrap();
    assert_eq!(batch.successful.len(), 1);
    let entry = ChangeMessageVisibilityBatchRequestEntry::builder()
        .id("a")
        .receipt_handle(&handle)
        .visibility_timeout(0)
        .build()
        .unwrap();
    let change = other
        .change_message_visibility_batch()
        .queue_url(&url)
        .entries(entry)
        .send()
        .await
        .unwrap();
    assert_eq!(change.successful.len(), 1);
    other
        .change_message_visibility()
        .queue_url(&url)
        .receipt_handle(&handle)
        .visibility_timeout(0)
        .send()
        .await
        .unwrap();
    let got = other
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap()
        .messages
        .unwrap();
    let mut bodies: Vec<_> = got.iter().filter_map(|m| m.body.clone()).collect();
    bodies.sort();
    assert_eq!(bodies, ["batch", "first", "second", "theirs"]);
    other
        .delete_message()
        .queue_url(&url)
        .receipt_handle(got[0].receipt_handle.clone().unwrap())
        .send()
        .await
        .unwrap();
    let entry = DeleteMessageBatchRequestEntry::builder()
        .id("a")
        .receipt_handle(got[1].receipt_handle.clone().unwrap())
        .build()
        .unwrap();
    let deleted = other
        .delete_message_batch()
        .queue_url(&url)
        .entries(entry)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.successful.len(), 1);
    let sources = other
        .list_dead_letter_source_queues()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    assert!(sources.queue_urls.is_empty());
    other.purge_queue().queue_url(&url).send().await.unwrap();
    // The owner's actions stay the owner's.
    assert_owner_only(&h, &url, "shared").await;
    let owner = h.sqs_as(OWNER, "us-east-1");
    owner
        .list_queue_tags()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
}

#[tokio::test]
async fn a_send_permission_does_not_let_the_other_account_receive() {
    let h = Harness::start().await;
    let (url, _) = owned_queue(&h, "inbox").await;
    let owner = h.sqs_as(OWNER, "us-east-1");
    owner
        .add_permission()
        .queue_url(&url)
        .label("send-only")
        .aws_account_ids(OTHER)
        .actions("SendMessage")
        .send()
        .await
        .unwrap();
    let other = h.sqs_as(OTHER, "us-east-1");
    other
        .send_message()
        .queue_url(&url)
        .message_body("hello")
        .send()
        .await
        .unwrap();
    let entry = SendMessageBatchRequestEntry::builder()
        .id("a")
        .message_body("x")
        .build()
        .unwrap();
    other
        .send_message_batch()
        .queue_url(&url)
        .entries(entry)
        .send()
        .await
        .unwrap();
    let receive = other.receive_message().queue_url(&url).send().await;
    assert_eq!(refusal(receive), sqs_denied());
    let attrs = other.get_queue_attributes().queue_url(&url).send().await;
    assert_eq!(refusal(attrs), sqs_denied());
    // A third account gets nothing.
    let third = h.sqs_as("333333333333", "us-east-1");
    let send = third
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .send()
        .await;
    assert_eq!(refusal(send), sqs_denied());
    // Once removed, the send is refused too.
    owner
        .remove_permission()
        .queue_url(&url)
        .label("send-only")
        .send()
        .await
        .unwrap();
    let send = other
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .send()
        .await;
    assert_eq!(refusal(send), sqs_denied());
}

#[tokio::test]
async fn deny_wins_and_actions_match_by_wildcard() {
    let h = Harness::start().await;
    let (url, _) = owned_queue(&h, "guarded").await;
    let arn = queue_arn("guarded");
    set_policy(
        &h,
        &url,
        json!({"Statement": [
            {"Sid": "anyone-sends", "Effect": "Allow", "Principal": "*", "Action": "SQS:Send*",
             "Resource": "arn:aws:sqs:*:111111111111:guard*"},
            {"Sid": "them-everything", "Effect": "Allow", "Principal": {"AWS": OTHER},
             "Action": ["sqs:Receive*", "sqs:GetQueue*"], "Resource": arn},
            {"Sid": "but-not-third", "Effect": "Deny", "Principal": {"AWS": "*"},
             "Action": "*", "Resource": arn,
             "Condition": {"StringEquals": {"aws:PrincipalAccount": "333333333333"}}},
        ]}),
    )
    .await;
    let other = h.sqs_as(OTHER, "us-east-1");
    other
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .send()
        .await
        .unwrap();
    other
        .receive_message()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    other
        .get_queue_attributes()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    let purge = other.purge_queue().queue_url(&url).send().await;
    assert_eq!(refusal(purge), sqs_denied());
    // The third account is allowed to send by the first statement and denied by the last.
    let third = h.sqs_as("333333333333", "us-east-1");
    let send = third
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .send()
        .await;
    assert_eq!(refusal(send), sqs_denied());
    let fourth = h.sqs_as("444444444444", "us-east-1");
    fourth
        .send_message()
        .queue_url(&url)
        .message_body("x")
        .send()
        .await
        .unwrap();
    let receive = fourth.receive_message().queue_url(&url).send().await;
    assert_eq!(refusal(receive), sqs_denied());
}

#[tokio::test]
async fn a_move_task_of_another_account_cannot_be_cancelled() {
    let h = Harness::start().await;
    let owner = h.sqs_as(OWNER, "us-east-1");
    let dlq = create(&owner, "dlq", &[]).await;
    let redrive =
        json!({"deadLetterTargetArn": queue_arn("dlq"), "maxReceiveCount": 1}).to_string();
    create(&owner, "source", &[("RedrivePolicy", redrive.as_str())]).await;
    owner
        .send_message()
        .queue_url(&dlq)
        .message_body("dead")
        .send()
        .await
        .unwrap();
    set_policy(&h, &dlq, allow_all("*")).await;
    let task = owner
        .start_message_move_task()
        .source_arn(queue_arn("dlq"))
        .send()
        .await
        .unwrap()
        .task_handle
        .unwrap();
    let other = h.sqs_as(OTHER, "us-east-1");
    let cancel = other
        .cancel_message_move_task()
        .task_handle(&task)
        .send()
        .await;
    assert_eq!(refusal(cancel), sqs_denied());
    // The owner's own handle is not refused: its task has already finished.
    let cancel = owner
        .cancel_message_move_task()
        .task_handle(&task)
        .send()
        .await;
    assert_eq!(refusal(cancel).0, "ResourceNotFoundException");
}

fn sns_refused(action: &str, resource: &str) -> (String, String) {
    (
        "AuthorizationError".into(),
        format!(
            "User: arn:aws:iam::{OTHER}:root is not authorized to perform: {action} on resource: {resource} because no resource-based policy allows the {action} action"
        ),
    )
}

#[tokio::test]
async fn another_accounts_platform_applications_and_endpoints_are_refused() {
    let h = Harness::start().await;
    let owner = h.sns_as(OWNER, "us-east-1");
    let app = owner
        .create_platform_application()
        .name("app")
        .platform("GCM")
        .attributes("PlatformCredential", "server-key")
        .send()
        .await
        .unwrap()
        .platform_application_arn
        .unwrap();
    let endpoint = owner
        .create_platform_endpoint()
        .platform_application_arn(&app)
        .token("device-1")
        .send()
        .await
        .unwrap()
        .endpoint_arn
        .unwrap();
    let other = h.sns_as(OTHER, "us-east-1");
    let r = other
        .get_platform_application_attributes()
        .platform_application_arn(&app)
        .send()
        .await;
    assert_eq!(
        refusal(r),
        sns_refused("SNS:GetPlatformApplicationAttributes", &app)
    );
    let r = other
        .create_platform_endpoint()
        .platform_application_arn(&app)
        .token("device-2")
        .send()
        .await;
    assert_eq!(refusal(r), sns_refused("SNS:CreatePlatformEndpoint", &app));
    let r = other
        .delete_platform_application()
        .platform_application_arn(&app)
        .send()
        .await;
    assert_eq!(
        refusal(r),
        sns_refused("SNS:DeletePlatformApplication", &app)
    );
    let r = other
        .get_endpoint_attributes()
        .endpoint_arn(&endpoint)
        .send()
        .await;
    assert_eq!(
        refusal(r),
        sns_refused("SNS:GetEndpointAttributes", &endpoint)
    );
    let r = other.delete_endpoint().endpoint_arn(&endpoint).send().await;
    assert_eq!(refusal(r), sns_refused("SNS:DeleteEndpoint", &endpoint));
    let r = other
        .publish()
        .target_arn(&endpoint)
        .message("hello")
        .send()
        .await;
    assert_eq!(refusal(r), sns_refused("SNS:Publish", &endpoint));
    // Nothing of it happened: the owner still has both, and nothing was sent.
    owner
        .get_endpoint_attributes()
        .endpoint_arn(&endpoint)
        .send()
        .await
        .unwrap();
    let sent = h.control_get("outbox").await;
    assert_eq!(sent["messages"].as_array().map(Vec::len), Some(0), "{sent}");
}

/// Every topic operation by the other account, with what each must answer (`None`: it
/// succeeds). `grant` says whether the topic's policy grants the topic actions.
async fn sns_topic_operations(h: &Harness, topic: &str, subscription: &str, granted: bool) {
    let other = h.sns_as(OTHER, "us-east-1");
    let expect = |action: &str, resource: &str| {
        (!granted).then(|| sns_refused(&format!("SNS:{action}"), resource))
    };
    let outcome = |r: Result<(), aws_sdk_sns::Error>| {
        r.err().map(|e| {
            (
                e.code().unwrap_or_default().to_string(),
                e.message().unwrap_or_default().to_string(),
            )
        })
    };
    let r = other
        .get_topic_attributes()
        .topic_arn(topic)
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), expect("GetTopicAttributes", topic));
    let r = other
        .list_subscriptions_by_topic()
        .topic_arn(topic)
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), expect("ListSubscriptionsByTopic", topic));
    let r = other
        .publish()
        .topic_arn(topic)
        .message("hi")
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), expect("Publish", topic));
    let entry = aws_sdk_sns::types::PublishBatchRequestEntry::builder()
        .id("a")
        .message("hi")
        .build()
        .unwrap();
    let r = other
        .publish_batch()
        .topic_arn(topic)
        .publish_batch_request_entries(entry)
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), expect("Publish", topic));
    let r = other
        .subscribe()
        .topic_arn(topic)
        .protocol("email")
        .endpoint("them@example.com")
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), expect("Subscribe", topic));
    let r = other
        .set_topic_attributes()
        .topic_arn(topic)
        .attribute_name("DisplayName")
        .attribute_value("theirs")
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), expect("SetTopicAttributes", topic));
    let r = other
        .add_permission()
        .topic_arn(topic)
        .label("them")
        .aws_account_id(OTHER)
        .action_name("Publish")
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), expect("AddPermission", topic));
    let r = other
        .remove_permission()
        .topic_arn(topic)
        .label("them")
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), expect("RemovePermission", topic));
    // Tags and data protection stay the owner's; so does the owner's subscription.
    let owner_only =
        |action: &str, resource: &str| Some(sns_refused(&format!("SNS:{action}"), resource));
    let r = other
        .list_tags_for_resource()
        .resource_arn(topic)
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), owner_only("ListTagsForResource", topic));
    let tag = aws_sdk_sns::types::Tag::builder()
        .key("k")
        .value("v")
        .build()
        .unwrap();
    let r = other
        .tag_resource()
        .resource_arn(topic)
        .tags(tag)
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), owner_only("TagResource", topic));
    let r = other
        .untag_resource()
        .resource_arn(topic)
        .tag_keys("k")
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), owner_only("UntagResource", topic));
    let r = other
        .get_data_protection_policy()
        .resource_arn(topic)
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), owner_only("GetDataProtectionPolicy", topic));
    let r = other
        .put_data_protection_policy()
        .resource_arn(topic)
        .data_protection_policy("{}")
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), owner_only("PutDataProtectionPolicy", topic));
    let r = other
        .get_subscription_attributes()
        .subscription_arn(subscription)
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(
        outcome(r),
        owner_only("GetSubscriptionAttributes", subscription)
    );
    let r = other
        .set_subscription_attributes()
        .subscription_arn(subscription)
        .attribute_name("RawMessageDelivery")
        .attribute_value("true")
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(
        outcome(r),
        owner_only("SetSubscriptionAttributes", subscription)
    );
    let r = other
        .unsubscribe()
        .subscription_arn(subscription)
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), owner_only("Unsubscribe", subscription));
    let r = other
        .delete_topic()
        .topic_arn(topic)
        .send()
        .await
        .map(|_| ())
        .map_err(Into::into);
    assert_eq!(outcome(r), expect("DeleteTopic", topic));
}

/// The owner's topic `name` with one subscription of the owner's queue `<name>-q`.
async fn owned_topic(h: &Harness, name: &str) -> (String, String, String) {
    let sns = h.sns_as(OWNER, "us-east-1");
    let topic = sns
        .create_topic()
        .name(name)
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let queue = create(&h.sqs_as(OWNER, "us-east-1"), &format!("{name}-q"), &[]).await;
    let subscription = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint(queue_arn(&format!("{name}-q")))
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    (topic, subscription, queue)
}

#[tokio::test]
async fn another_accounts_topic_is_refused_under_the_default_policy() {
    let h = Harness::start().await;
    let (topic, subscription, _) = owned_topic(&h, "news").await;
    sns_topic_operations(&h, &topic, &subscription, false).await;
    // Nothing changed.
    let sns = h.sns_as(OWNER, "us-east-1");
    let attrs = sns
        .get_topic_attributes()
        .topic_arn(&topic)
        .send()
        .await
        .unwrap();
    assert_eq!(attrs.attributes.unwrap()["DisplayName"], "");
    let subs = sns
        .list_subscriptions_by_topic()
        .topic_arn(&topic)
        .send()
        .await
        .unwrap();
    assert_eq!(subs.subscriptions.unwrap().len(), 1);
}

#[tokio::test]
async fn a_topic_policy_grants_the_topic_actions_but_not_tags() {
    let h = Harness::start().await;
    let (topic, subscription, _) = owned_topic(&h, "open").await;
    let policy = json!({"Statement": [{"Effect": "Allow", "Principal": {"AWS": OTHER},
        "Action": "sns:*", "Resource": topic}]});
    h.sns_as(OWNER, "us-east-1")
        .set_topic_attributes()
        .topic_arn(&topic)
        .attribute_name("Policy")
        .attribute_value(policy.to_string())
        .send()
        .await
        .unwrap();
    // The last of them deletes the topic.
    sns_topic_operations(&h, &topic, &subscription, true).await;
    let gone = h
        .sns_as(OWNER, "us-east-1")
        .get_topic_attributes()
        .topic_arn(&topic)
        .send()
        .await;
    assert_eq!(refusal(gone).0, "NotFound");
}

#[tokio::test]
async fn a_topic_policy_deny_wins_over_its_allow() {
    let h = Harness::start().await;
    let (topic, _, _) = owned_topic(&h, "guarded").await;
    let policy = json!({"Statement": [
        {"Effect": "Allow", "Principal": "*", "Action": ["SNS:Publish", "SNS:Get*"], "Resource": topic},
        {"Effect": "Deny", "Principal": {"AWS": format!("arn:aws:iam::{OTHER}:root")},
         "Action": "sns:publish", "Resource": topic}]});
    h.sns_as(OWNER, "us-east-1")
        .set_topic_attributes()
        .topic_arn(&topic)
        .attribute_name("Policy")
        .attribute_value(policy.to_string())
        .send()
        .await
        .unwrap();
    let other = h.sns_as(OTHER, "us-east-1");
    other
        .get_topic_attributes()
        .topic_arn(&topic)
        .send()
        .await
        .unwrap();
    let publish = other.publish().topic_arn(&topic).message("x").send().await;
    assert_eq!(refusal(publish), sns_refused("SNS:Publish", &topic));
    h.sns_as("333333333333", "us-east-1")
        .publish()
        .topic_arn(&topic)
        .message("x")
        .send()
        .await
        .unwrap();
}

fn events_refused(action: &str, resource: &str) -> (String, String) {
    (
        "AccessDeniedException".into(),
        format!(
            "User: arn:aws:iam::{OTHER}:root is not authorized to perform: {action} on resource: {resource} because no resource-based policy allows the {action} action"
        ),
    )
}

/// The other account's calls on the owner's bus `bus` (an ARN) and its rule `rule`: what each
/// answers (`None`: it succeeds). `granted`: the bus policy grants the rule actions.
async fn events_operations(h: &Harness, bus: &str, rule: &str, granted: bool) {
    use aws_sdk_eventbridge::types::Target;
    let other = h.events_as(OTHER, "us-east-1");
    let rule_arn = format!("arn:aws:events:us-east-1:{OWNER}:rule/shared/{rule}");
    let expect = |action: &str, resource: &str| {
        (!granted).then(|| events_refused(&format!("events:{action}"), resource))
    };
    let outcome = |r: Result<(), aws_sdk_eventbridge::Error>| {
        r.err().map(|e| {
            (
                e.code().unwrap_or_default().to_string(),
                e.message().unwrap_or_default().to_string(),
            )
        })
    };
    macro_rules! call {
        ($request:expr) => {
            outcome($request.send().await.map(|_| ()).map_err(Into::into))
        };
    }
    let copy = other
        .put_rule()
        .name(rule)
        .event_bus_name(bus)
        .event_pattern(r#"{"source":[{"prefix":""}]}"#);
    assert_eq!(call!(copy), expect("PutRule", &rule_arn));
    let target = Target::builder()
        .id("t")
        .arn(queue_arn("bus-q"))
        .build()
        .unwrap();
    let put = other
        .put_targets()
        .rule(rule)
        .event_bus_name(bus)
        .targets(target);
    assert_eq!(call!(put), expect("PutTargets", &rule_arn));
    let list = other.list_targets_by_rule().rule(rule).event_bus_name(bus);
    assert_eq!(call!(list), expect("ListTargetsByRule", &rule_arn));
    let describe = other.describe_rule().name(rule).event_bus_name(bus);
    assert_eq!(call!(describe), expect("DescribeRule", &rule_arn));
    let disable = other.disable_rule().name(rule).event_bus_name(bus);
    assert_eq!(call!(disable), expect("DisableRule", &rule_arn));
    let enable = other.enable_rule().name(rule).event_bus_name(bus);
    assert_eq!(call!(enable), expect("EnableRule", &rule_arn));
    let rules = other.list_rules().event_bus_name(bus);
    assert_eq!(call!(rules), expect("ListRules", bus));
    let by_target = other
        .list_rule_names_by_target()
        .target_arn(queue_arn("bus-q"))
        .event_bus_name(bus);
    assert_eq!(call!(by_target), expect("ListRuleNamesByTarget", bus));
    let remove = other
        .remove_targets()
        .rule(rule)
        .event_bus_name(bus)
        .ids("t");
    assert_eq!(call!(remove), expect("RemoveTargets", &rule_arn));
    let delete = other.delete_rule().name(rule).event_bus_name(bus);
    assert_eq!(call!(delete), expect("DeleteRule", &rule_arn));
    // The bus itself stays the owner's.
    let owner_only = |action: &str| Some(events_refused(&format!("events:{action}"), bus));
    let permit = other
        .put_permission()
        .event_bus_name(bus)
        .action("events:PutEvents")
        .principal(OTHER)
        .statement_id("me");
    assert_eq!(call!(permit), owner_only("PutPermission"));
    let unpermit = other
        .remove_permission()
        .event_bus_name(bus)
        .statement_id("me");
    assert_eq!(call!(unpermit), owner_only("RemovePermission"));
    assert_eq!(
        call!(other.describe_event_bus().name(bus)),
        owner_only("DescribeEventBus")
    );
    assert_eq!(
        call!(other.update_event_bus().name(bus).description("mine")),
        owner_only("UpdateEventBus")
    );
    assert_eq!(
        call!(other.list_tags_for_resource().resource_arn(bus)),
        owner_only("ListTagsForResource")
    );
    let tag = aws_sdk_eventbridge::types::Tag::builder()
        .key("k")
        .value("v")
        .build()
        .unwrap();
    assert_eq!(
        call!(other.tag_resource().resource_arn(bus).tags(tag)),
        owner_only("TagResource")
    );
    assert_eq!(
        call!(other.untag_resource().resource_arn(bus).tag_keys("k")),
        owner_only("UntagResource")
    );
    assert_eq!(
        call!(
            other
                .create_archive()
                .archive_name("copy")
                .event_source_arn(bus)
        ),
        owner_only("CreateArchive")
    );
    assert_eq!(
        call!(other.delete_event_bus().name(bus)),
        owner_only("DeleteEventBus")
    );
}

/// The owner's bus `shared` (its ARN), with `policy` if given.
async fn owned_bus(h: &Harness, policy: Option<Value>) -> String {
    let owner = h.events_as(OWNER, "us-east-1");
    let bus = owner
        .create_event_bus()
        .name("shared")
        .send()
        .await
        .unwrap()
        .event_bus_arn
        .unwrap();
    if let Some(policy) = policy {
        owner
            .put_permission()
            .event_bus_name("shared")
            .policy(policy.to_string())
            .send()
            .await
            .unwrap();
    }
    bus
}

#[tokio::test]
async fn another_accounts_bus_and_rules_are_refused_without_a_policy() {
    let h = Harness::start().await;
    let bus = owned_bus(&h, None).await;
    let owner = h.events_as(OWNER, "us-east-1");
    owner
        .put_rule()
        .name("owners")
        .event_bus_name("shared")
        .event_pattern(r#"{"source":["x"]}"#)
        .send()
        .await
        .unwrap();
    events_operations(&h, &bus, "owners", false).await;
    // The owner's rule and bus are as they were.
    let rules = owner
        .list_rules()
        .event_bus_name("shared")
        .send()
        .await
        .unwrap()
        .rules
        .unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].state.as_ref().map(|s| s.as_str()), Some("ENABLED"));
    assert!(
        owner
            .describe_event_bus()
            .name("shared")
            .send()
            .await
            .unwrap()
            .policy
            .is_none()
    );
}

#[tokio::test]
async fn a_bus_policy_grants_rules_but_not_the_bus() {
    let h = Harness::start().await;
    let policy = json!({"Version": "2012-10-17", "Statement": [{"Sid": "rules", "Effect": "Allow",
        "Principal": {"AWS": format!("arn:aws:iam::{OTHER}:root")},
        "Action": ["events:*Rule*", "events:*Targets*"],
        "Resource": [format!("arn:aws:events:us-east-1:{OWNER}:rule/shared/*"),
                     format!("arn:aws:events:us-east-1:{OWNER}:event-bus/shared")]}]});
    let bus = owned_bus(&h, Some(policy)).await;
    events_operations(&h, &bus, "theirs", true).await;
    // Granted rule actions do not include PutEvents.
    let entry = aws_sdk_eventbridge::types::PutEventsRequestEntry::builder()
        .source("s")
        .detail_type("d")
        .detail("{}")
        .event_bus_name(&bus)
        .build();
    let put = h
        .events_as(OTHER, "us-east-1")
        .put_events()
        .entries(entry)
        .send()
        .await
        .unwrap();
    assert_eq!(
        put.entries.unwrap()[0].error_code(),
        Some("AccessDeniedException")
    );
}

/// An emulator with `--enforce-policies` on or off.
async fn enforcing(on: bool) -> Harness {
    Harness::with(switchyard::Config {
        enforce_policies: on,
        ..switchyard::Config::for_tests()
    })
    .await
}

/// The delivery log's attempt records of `source`.
async fn attempts(h: &Harness, source: &str) -> Vec<Value> {
    h.control_get(&format!("deliveries?source={source}&event=attempt"))
        .await["records"]
        .as_array()
        .unwrap()
        .clone()
}

async fn bodies(h: &Harness, account: &str, url: &str) -> Vec<String> {
    let got = h
        .sqs_as(account, "us-east-1")
        .receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    got.messages
        .unwrap_or_default()
        .into_iter()
        .filter_map(|m| m.body)
        .collect()
}

/// The queue policy AWS asks for an SNS topic's deliveries.
fn from_topic(queue: &str, topic: &str) -> Value {
    json!({"Statement": [{"Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"},
        "Action": "sqs:SendMessage", "Resource": queue,
        "Condition": {"ArnEquals": {"aws:SourceArn": topic}}}]})
}

/// Publishes `message` to the owner's topic of `h` and answers the subscription's attempts.
async fn publish(h: &Harness, topic: &str, subscription: &str, message: &str) -> Vec<Value> {
    h.sns_as(OWNER, "us-east-1")
        .publish()
        .topic_arn(topic)
        .message(message)
        .send()
        .await
        .unwrap();
    h.advance(3600.0).await;
    attempts(h, subscription).await
}

#[tokio::test]
async fn sns_to_sqs_in_one_account_needs_a_policy_only_when_enforced() {
    for enforce in [false, true] {
        let h = enforcing(enforce).await;
        let (topic, subscription, url) = owned_topic(&h, "orders").await;
        let sent = publish(&h, &topic, &subscription, "unchecked").await;
        if enforce {
            // Refused once, not retried, nothing delivered.
            assert_eq!(sent.len(), 1);
            assert_eq!(sent[0]["outcome"], "permanent");
            assert_eq!(sent[0]["errorCode"], "AccessDenied");
            assert!(bodies(&h, OWNER, &url).await.is_empty());
        } else {
            assert_eq!(sent[0]["outcome"], "delivered");
            assert_eq!(bodies(&h, OWNER, &url).await.len(), 1);
        }
        // With the policy AWS asks for, it is delivered either way; a policy for another
        // topic does not do.
        set_policy(
            &h,
            &url,
            from_topic(&queue_arn("orders-q"), &format!("{topic}-other")),
        )
        .await;
        let sent = publish(&h, &topic, &subscription, "wrong topic").await;
        assert_eq!(
            sent.last().unwrap()["outcome"],
            if enforce { "permanent" } else { "delivered" }
        );
        set_policy(&h, &url, from_topic(&queue_arn("orders-q"), &topic)).await;
        let sent = publish(&h, &topic, &subscription, "allowed").await;
        assert_eq!(sent.last().unwrap()["outcome"], "delivered");
        let got = bodies(&h, OWNER, &url).await;
        let messages: Vec<Value> = got
            .iter()
            .map(|b| serde_json::from_str(b).unwrap())
            .collect();
        assert!(
            messages.iter().any(|m| m["Message"] == "allowed"),
            "{got:?}"
        );
    }
}

/// The events the delivery log records for `source` (attempts, dead letters ...), in order.
async fn log_events(h: &Harness, source: &str) -> Vec<String> {
    h.control_get(&format!("deliveries?source={source}")).await["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["event"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn an_enforced_dead_letter_queue_needs_its_policy_too() {
    let h = enforcing(true).await;
    let (topic, subscription, _url) = owned_topic(&h, "refused").await;
    let dlq = create(&h.sqs_as(OWNER, "us-east-1"), "refused-dlq", &[]).await;
    h.sns_as(OWNER, "us-east-1")
        .set_subscription_attributes()
        .subscription_arn(&subscription)
        .attribute_name("RedrivePolicy")
        .attribute_value(json!({"deadLetterTargetArn": queue_arn("refused-dlq")}).to_string())
        .send()
        .await
        .unwrap();
    // The target queue has no policy: refused; the DLQ has none either: not written.
    publish(&h, &topic, &subscription, "lost").await;
    assert_eq!(
        log_events(&h, &subscription).await,
        ["attempt", "dlq-failed"]
    );
    assert!(bodies(&h, OWNER, &dlq).await.is_empty());
    // With the policy AWS asks of a subscription's DLQ, the dead letter is written.
    set_policy(&h, &dlq, from_topic(&queue_arn("refused-dlq"), &topic)).await;
    publish(&h, &topic, &subscription, "kept").await;
    assert_eq!(
        log_events(&h, &subscription).await[2..],
        ["attempt", "dead-lettered"]
    );
    let kept: Value = serde_json::from_str(&bodies(&h, OWNER, &dlq).await[0]).unwrap();
    assert_eq!(kept["Message"], "kept");
}

#[tokio::test]
async fn sns_to_another_accounts_queue_always_needs_its_policy() {
    let h = enforcing(false).await;
    let owner = h.sns_as(OWNER, "us-east-1");
    let topic = owner
        .create_topic()
        .name("fanout")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let theirs = create(&h.sqs_as(OTHER, "us-east-1"), "theirs", &[]).await;
    let their_arn = format!("arn:aws:sqs:us-east-1:{OTHER}:theirs");
    let subscription = owner
        .subscribe()
        .topic_arn(&topic)
        .protocol("sqs")
        .endpoint(&their_arn)
        .attributes("RawMessageDelivery", "true")
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    let sent = publish(&h, &topic, &subscription, "refused").await;
    assert_eq!((sent.len(), &sent[0]["outcome"]), (1, &json!("permanent")));
    assert!(bodies(&h, OTHER, &theirs).await.is_empty());
    h.sqs_as(OTHER, "us-east-1")
        .set_queue_attributes()
        .queue_url(&theirs)
        .attributes(
            QueueAttributeName::Policy,
            from_topic(&their_arn, &topic).to_string(),
        )
        .send()
        .await
        .unwrap();
    publish(&h, &topic, &subscription, "welcome").await;
    assert_eq!(bodies(&h, OTHER, &theirs).await, ["welcome"]);
}

#[tokio::test]
async fn eventbridge_rules_to_queues_and_topics_need_a_policy_when_enforced() {
    use aws_sdk_eventbridge::types::{PutEventsRequestEntry, Target};
    let h = enforcing(true).await;
    let events = h.events_as(OWNER, "us-east-1");
    let url = create(&h.sqs_as(OWNER, "us-east-1"), "rule-q", &[]).await;
    let sns = h.sns_as(OWNER, "us-east-1");
    let topic = sns
        .create_topic()
        .name("rule-t")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let rule = events
        .put_rule()
        .name("all")
        .event_pattern(r#"{"source":["shop"]}"#)
        .send()
        .await
        .unwrap()
        .rule_arn
        .unwrap();
    let targets = [
        Target::builder()
            .id("q")
            .arn(queue_arn("rule-q"))
            .build()
            .unwrap(),
        Target::builder().id("t").arn(&topic).build().unwrap(),
    ];
    events
        .put_targets()
        .rule("all")
        .set_targets(Some(targets.to_vec()))
        .send()
        .await
        .unwrap();
    let put = || async {
        let entry = PutEventsRequestEntry::builder()
            .source("shop")
            .detail_type("d")
            .detail("{}")
            .build();
        events.put_events().entries(entry).send().await.unwrap();
        h.advance(86_400.0).await;
    };
    put().await;
    for target in ["q", "t"] {
        let tried = attempts(&h, &format!("{rule}%23{target}")).await;
        assert_eq!(tried.len(), 1, "{target}: {tried:?}");
        assert_eq!(tried[0]["outcome"], "permanent", "{target}");
    }
    assert!(bodies(&h, OWNER, &url).await.is_empty());
    let from_rule = |action: &str, resource: &str| {
        json!({"Statement": [{"Effect": "Allow", "Principal": {"Service": "events.amazonaws.com"},
            "Action": action, "Resource": resource,
            "Condition": {"ArnEquals": {"aws:SourceArn": rule}}}]})
    };
    set_policy(&h, &url, from_rule("sqs:SendMessage", &queue_arn("rule-q"))).await;
    sns.set_topic_attributes()
        .topic_arn(&topic)
        .attribute_name("Policy")
        .attribute_value(from_rule("sns:Publish", &topic).to_string())
        .send()
        .await
        .unwrap();
    put().await;
    for target in ["q", "t"] {
        let tried = attempts(&h, &format!("{rule}%23{target}")).await;
        assert_eq!(tried.last().unwrap()["outcome"], "delivered", "{target}");
    }
    assert_eq!(bodies(&h, OWNER, &url).await.len(), 1);
}
