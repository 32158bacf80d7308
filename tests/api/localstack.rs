//! LocalStack's developer endpoints (docs/localstack.md) as LocalStack users call them: raw HTTP
//! for the curl-like calls, the AWS SDK for Rust to make the resources they look at, and an SDK
//! pointed at `/_aws/sqs/messages` as its endpoint.

use crate::harness::{Harness, Reply};
use aws_sdk_sns::types::MessageAttributeValue as SnsAttribute;
use aws_sdk_sqs::types::{MessageAttributeValue, MessageSystemAttributeName};
use serde_json::{Value, json};
use switchyard::runtime::init_status::{InitScript, ScriptState, Stage};

async fn get(h: &Harness, path: &str) -> Reply {
    h.request("GET", path, &[], "").await
}

fn json_of(r: &Reply, status: u16) -> Value {
    assert_eq!(r.status, status, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("application/json"), "{r:?}");
    r.json()
}

/// A control-API-shaped error with this status and code.
fn refused(r: &Reply, status: u16, code: &str) {
    let body = json_of(r, status);
    assert_eq!(body["error"], code, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}

fn encoded(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[tokio::test]
async fn health_lists_the_services_localstack_names_and_head_answers_without_a_body() {
    let h = Harness::start().await;
    let body = json_of(&get(&h, "/_localstack/health").await, 200);
    assert_eq!(
        body,
        json!({
            "services": {"sqs": "running", "sns": "running", "events": "running",
                         "sts": "running", "iam": "running", "scheduler": "running",
                         "pipes": "running", "lambda": "running"},
            "edition": "community",
            "version": env!("CARGO_PKG_VERSION"),
        })
    );
    // LocalStack's `?reload` changes nothing here.
    assert_eq!(
        json_of(&get(&h, "/_localstack/health?reload").await, 200),
        body
    );
    let head = h.request("HEAD", "/_localstack/health", &[], "").await;
    assert_eq!((head.status, head.body.as_str()), (200, ""));
    // Restarting or killing through it is not served.
    let post = h
        .request("POST", "/_localstack/health", &[], r#"{"action":"kill"}"#)
        .await;
    refused(&post, 405, "MethodNotAllowed");
    h.assert_alive().await;
}

#[tokio::test]
async fn info_tells_switchyards_own_version_session_and_virtual_time() {
    let h = Harness::start().await;
    let info = json_of(&get(&h, "/_localstack/info").await, 200);
    assert_eq!(info["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(info["edition"], "community");
    assert_eq!(info["is_license_activated"], false);
    assert_eq!(info["system"], std::env::consts::OS);
    assert!(info["is_docker"].is_boolean(), "{info}");
    assert!(info["uptime"].is_u64(), "{info}");
    let session = info["session_id"].as_str().unwrap();
    assert_eq!(session.len(), 36, "a UUID: {session}");
    let machine = info["machine_id"].as_str().unwrap();
    assert!(machine.trim_start_matches("dkr_").len() == 12, "{machine}");
    // The server's time is the virtual clock's, in LocalStack's form (seconds, no zone).
    let now = h.control_get("clock").await["now"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(info["server_time_utc"], now[..19]);
    let later = h.advance(3600.0).await["now"].as_str().unwrap().to_string();
    let info = json_of(&get(&h, "/_localstack/info").await, 200);
    assert_eq!(info["server_time_utc"], later[..19]);
    assert_eq!(info["session_id"], session, "one session per run");
}

#[tokio::test]
async fn init_reports_the_stages_passed_and_the_scripts_an_init_mechanism_records() {
    let h = Harness::start().await;
    let body = json_of(&get(&h, "/_localstack/init").await, 200);
    assert_eq!(
        body,
        json!({"completed": {"BOOT": true, "START": true, "READY": true, "SHUTDOWN": false},
               "scripts": []})
    );
    assert_eq!(
        json_of(&get(&h, "/_localstack/init/ready").await, 200),
        json!({"completed": true, "scripts": []})
    );
    assert_eq!(
        json_of(&get(&h, "/_localstack/init/SHUTDOWN").await, 200),
        json!({"completed": false, "scripts": []})
    );
    refused(&get(&h, "/_localstack/init/later").await, 404, "NotFound");

    // What an init mechanism records shows per stage, in order.
    h.emulator.app().init.update(|p| {
        for (stage, name, state) in [
            (Stage::Ready, "01-queues.sh", ScriptState::Successful),
            (Stage::Ready, "02-topics.py", ScriptState::Error),
            (Stage::Shutdown, "bye.sh", ScriptState::Unknown),
        ] {
            p.scripts.push(InitScript {
                stage,
                name: name.into(),
                state,
            });
        }
    });
    let body = json_of(&get(&h, "/_localstack/init").await, 200);
    assert_eq!(
        body["scripts"],
        json!([
            {"stage": "READY", "name": "01-queues.sh", "state": "SUCCESSFUL"},
            {"stage": "READY", "name": "02-topics.py", "state": "ERROR"},
            {"stage": "SHUTDOWN", "name": "bye.sh", "state": "UNKNOWN"},
        ])
    );
    assert_eq!(
        json_of(&get(&h, "/_localstack/init/shutdown").await, 200),
        json!({"completed": false,
               "scripts": [{"stage": "SHUTDOWN", "name": "bye.sh", "state": "UNKNOWN"}]})
    );
    // A reset of the resources keeps it.
    h.control_post("reset", json!({})).await;
    assert_eq!(json_of(&get(&h, "/_localstack/init").await, 200), body);
}

#[tokio::test]
async fn unknown_developer_endpoints_and_methods_are_refused_in_json() {
    let h = Harness::start().await;
    for path in [
        "/_localstack",
        "/_localstack/diagnose",
        "/_localstack/state/reset",
        "/_aws",
        "/_aws/ses",
        "/_aws/lambda/runtimes",
    ] {
        refused(&get(&h, path).await, 404, "NotFound");
    }
    for (method, path) in [
        ("DELETE", "/_localstack/info"),
        ("PUT", "/_localstack/init"),
        ("DELETE", "/_aws/sqs/messages"),
        ("POST", "/_aws/sns/sms-messages"),
        ("PUT", "/_aws/sns/platform-endpoint-messages"),
        (
            "DELETE",
            "/_aws/sns/subscription-tokens/arn:aws:sns:us-east-1:000000000000:t:x",
        ),
        (
            "DELETE",
            "/_aws/events/rules/arn:aws:events:us-east-1:000000000000:rule/r/trigger",
        ),
    ] {
        let r = h.request(method, path, &[], "").await;
        refused(&r, 405, "MethodNotAllowed");
    }
    h.assert_alive().await;
}

async fn queue_with_two_messages(h: &Harness) -> String {
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("peek")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    sqs.send_message()
        .queue_url(&url)
        .message_body("first")
        .message_attributes(
            "kind",
            MessageAttributeValue::builder()
                .data_type("String")
                .string_value("order")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    sqs.send_message()
        .queue_url(&url)
        .message_body("second")
        .send()
        .await
        .unwrap();
    url
}

/// An SQS client whose endpoint is LocalStack's peek endpoint, as LocalStack documents using it.
fn peeking_client(h: &Harness) -> aws_sdk_sqs::Client {
    let config = aws_sdk_sqs::Config::builder()
        .behavior_version(aws_sdk_sqs::config::BehaviorVersion::latest())
        .endpoint_url(format!("{}/_aws/sqs/messages", h.url()))
        .region(aws_sdk_sqs::config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_sqs::config::Credentials::new(
            "test", "test", None, None, "test",
        ))
        .http_client(aws_smithy_http_client::Builder::new().build_http())
        .build();
    aws_sdk_sqs::Client::from_conf(config)
}

#[tokio::test]
async fn an_sdk_pointed_at_the_peek_endpoint_receives_every_message_without_touching_them() {
    let h = Harness::start().await;
    let url = queue_with_two_messages(&h).await;
    let peeked = peeking_client(&h)
        .receive_message()
        .queue_url(&url)
        .send()
        .await
        .unwrap();
    let messages = peeked.messages();
    let bodies: Vec<_> = messages.iter().map(|m| m.body().unwrap()).collect();
    assert_eq!(bodies, ["first", "second"]);
    for m in messages {
        assert_eq!(m.receipt_handle(), Some("SQS/BACKDOOR/ACCESS"));
        let attributes = m.attributes().unwrap();
        assert_eq!(
            attributes[&MessageSystemAttributeName::ApproximateReceiveCount],
            "0"
        );
        assert!(attributes.contains_key(&MessageSystemAttributeName::SentTimestamp));
    }
    // The message attributes come with their digest, which the SDK checks.
    let kind = &messages[0].message_attributes().unwrap()["kind"];
    assert_eq!(kind.string_value(), Some("order"));
    assert!(messages[0].md5_of_message_attributes().is_some());

    // Only ReceiveMessage is served there; nothing was sent.
    let err = peeking_client(&h)
        .send_message()
        .queue_url(&url)
        .message_body("sneaked in")
        .send()
        .await
        .unwrap_err();
    let err = err.into_service_error();
    assert_eq!(
        aws_sdk_sqs::error::ProvideErrorMetadata::code(&err),
        Some("InvalidRequest")
    );
    let missing = peeking_client(&h)
        .receive_message()
        .queue_url(url.replace("peek", "absent"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(missing.is_queue_does_not_exist(), "{missing:?}");

    // Nothing changed: the first receive is the first, and the backdoor handle opens nothing.
    let sqs = h.sqs();
    let got = sqs
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .message_system_attribute_names(MessageSystemAttributeName::All)
        .send()
        .await
        .unwrap();
    assert_eq!(got.messages().len(), 2);
    for m in got.messages() {
        let count = &m.attributes().unwrap()[&MessageSystemAttributeName::ApproximateReceiveCount];
        assert_eq!(count, "1");
    }
    let err = sqs
        .delete_message()
        .queue_url(&url)
        .receipt_handle("SQS/BACKDOOR/ACCESS")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(err.is_receipt_handle_is_invalid(), "{err:?}");
}

#[tokio::test]
async fn the_peek_endpoint_takes_a_query_form_post_and_refuses_other_actions() {
    let h = Harness::start().await;
    let url = queue_with_two_messages(&h).await;
    let r = h
        .query_at(
            "/_aws/sqs/messages",
            &[("Action", "ReceiveMessage"), ("QueueUrl", &url)],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        crate::harness::xml_texts(&r.body, "Body"),
        ["first", "second"]
    );
    assert_eq!(
        crate::harness::xml_texts(&r.body, "ReceiptHandle"),
        ["SQS/BACKDOOR/ACCESS", "SQS/BACKDOOR/ACCESS"]
    );
    assert!(crate::harness::xml_text(&r.body, "MD5OfMessageAttributes").is_some());
    // By path, with the flags in the query string and the form naming no queue.
    let path = "/_aws/sqs/messages/us-east-1/000000000000/peek?ShowInvisible=true";
    let r = h.query_at(path, &[("Action", "ReceiveMessage")]).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        crate::harness::xml_texts(&r.body, "Value")
            .iter()
            .filter(|v| *v == "true")
            .count(),
        2,
        "IsVisible of both: {}",
        r.body
    );

    let r = h
        .query_at(
            "/_aws/sqs/messages",
            &[
                ("Action", "SendMessage"),
                ("QueueUrl", &url),
                ("MessageBody", "x"),
            ],
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        crate::harness::xml_text(&r.body, "Code").as_deref(),
        Some("InvalidRequest")
    );
    let r = get(
        &h,
        &format!(
            "/_aws/sqs/messages?Action=DeleteQueue&QueueUrl={}",
            encoded(&url)
        ),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.body);
    // Both messages are still there, never received.
    let got = h
        .sqs()
        .receive_message()
        .queue_url(&url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    assert_eq!(got.messages().len(), 2);
}

async fn sns_publish_sms(h: &Harness, phone: &str, text: &str, sender: Option<&str>) -> String {
    let mut publish = h.sns().publish().phone_number(phone).message(text);
    if let Some(sender) = sender {
        publish = publish.message_attributes(
            "AWS.SNS.SMS.SenderID",
            SnsAttribute::builder()
                .data_type("String")
                .string_value(sender)
                .build()
                .unwrap(),
        );
    }
    publish.send().await.unwrap().message_id.unwrap()
}

#[tokio::test]
async fn sms_messages_are_the_outboxs_sms_grouped_by_phone_and_deleted_from_it() {
    let h = Harness::start().await;
    let sns = h.sns();
    let direct = sns_publish_sms(&h, "+15550100", "code 1234", Some("Shop")).await;
    // SNS's own per-message settings pass; other `AWS.` names stay reserved.
    let reserved = sns
        .publish()
        .phone_number("+15550100")
        .message("x")
        .message_attributes(
            "AWS.Custom",
            SnsAttribute::builder()
                .data_type("String")
                .string_value("v")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(
        reserved.is_invalid_parameter_value_exception(),
        "{reserved:?}"
    );
    let topic = sns
        .create_topic()
        .name("alerts")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let sub = sns
        .subscribe()
        .topic_arn(&topic)
        .protocol("sms")
        .endpoint("+15550199")
        .return_subscription_arn(true)
        .send()
        .await
        .unwrap()
        .subscription_arn
        .unwrap();
    let fanned = sns
        .publish()
        .topic_arn(&topic)
        .message("disk full")
        .subject("Alert")
        .send()
        .await
        .unwrap()
        .message_id
        .unwrap();
    // Another account's text is in its own view.
    h.sns_as("111122223333", "us-east-1")
        .publish()
        .phone_number("+15550100")
        .message("elsewhere")
        .send()
        .await
        .unwrap();

    let body = json_of(&get(&h, "/_aws/sns/sms-messages").await, 200);
    assert_eq!(
        body,
        json!({
            "sms_messages": {
                "+15550100": [{
                    "PhoneNumber": "+15550100", "TopicArn": null, "SubscriptionArn": null,
                    "MessageId": direct, "Message": "code 1234",
                    "MessageAttributes": {"AWS.SNS.SMS.SenderID": {"DataType": "String", "StringValue": "Shop"}},
                    "MessageStructure": null, "Subject": null,
                }],
                "+15550199": [{
                    "PhoneNumber": "+15550199", "TopicArn": topic, "SubscriptionArn": sub,
                    "MessageId": fanned, "Message": "disk full", "MessageAttributes": {},
                    "MessageStructure": null, "Subject": "Alert",
                }],
            },
            "region": "us-east-1",
        })
    );
    let other = json_of(
        &get(
            &h,
            "/_aws/sns/sms-messages?accountId=111122223333&phoneNumber=%2B15550100",
        )
        .await,
        200,
    );
    assert_eq!(
        other["sms_messages"]["+15550100"][0]["Message"],
        "elsewhere"
    );
    let empty = json_of(
        &get(&h, "/_aws/sns/sms-messages?region=eu-west-1").await,
        200,
    );
    assert_eq!(empty, json!({"sms_messages": {}, "region": "eu-west-1"}));
    let none = json_of(
        &get(&h, "/_aws/sns/sms-messages?phoneNumber=%2B15559999").await,
        200,
    );
    assert_eq!(none["sms_messages"], json!({"+15559999": []}));

    // DELETE one number: gone here and from the outbox; the rest stays.
    let r = h
        .request(
            "DELETE",
            "/_aws/sns/sms-messages?phoneNumber=%2B15550100",
            &[],
            "",
        )
        .await;
    assert_eq!((r.status, r.body.as_str()), (204, ""));
    let left = json_of(&get(&h, "/_aws/sns/sms-messages").await, 200);
    let numbers: Vec<_> = left["sms_messages"].as_object().unwrap().keys().collect();
    assert_eq!(numbers, ["+15550199"]);
    let outbox = h.control_get("outbox?protocol=sms").await;
    let targets: Vec<_> = outbox["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["target"].as_str().unwrap())
        .collect();
    assert_eq!(
        targets,
        ["+15550199", "+15550100"],
        "the other account's stays"
    );
    let r = h.request("DELETE", "/_aws/sns/sms-messages", &[], "").await;
    assert_eq!(r.status, 204);
    let cleared = json_of(&get(&h, "/_aws/sns/sms-messages").await, 200);
    assert_eq!(cleared, json!({"sms_messages": {}, "region": "us-east-1"}));
    assert_eq!(
        h.control_get("outbox?protocol=sms").await["messages"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn platform_endpoint_messages_group_pushes_by_endpoint() {
    let h = Harness::start().await;
    let sns = h.sns();
    let app = sns
        .create_platform_application()
        .name("app")
        .platform("GCM")
        .attributes("PlatformCredential", "server-key")
        .send()
        .await
        .unwrap()
        .platform_application_arn
        .unwrap();
    let endpoint = |token: &'static str| {
        let sns = sns.clone();
        let app = app.clone();
        async move {
            sns.create_platform_endpoint()
                .platform_application_arn(app)
                .token(token)
                .send()
                .await
                .unwrap()
                .endpoint_arn
                .unwrap()
        }
    };
    let (phone, tablet) = (endpoint("phone").await, endpoint("tablet").await);
    let pushed = sns
        .publish()
        .target_arn(&phone)
        .message(r#"{"default": "hi", "GCM": "{\"data\":{\"n\":1}}"}"#)
        .message_structure("json")
        .message_attributes(
            "priority",
            SnsAttribute::builder()
                .data_type("String")
                .string_value("high")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap()
        .message_id
        .unwrap();
    let topic = sns
        .create_topic()
        .name("news")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    sns.subscribe()
        .topic_arn(&topic)
        .protocol("application")
        .endpoint(&tablet)
        .send()
        .await
        .unwrap();
    sns.publish()
        .topic_arn(&topic)
        .message("headline")
        .send()
        .await
        .unwrap();

    let body = json_of(&get(&h, "/_aws/sns/platform-endpoint-messages").await, 200);
    assert_eq!(body["region"], "us-east-1");
    assert_eq!(
        body["platform_endpoint_messages"][&phone],
        json!([{
            "TargetArn": phone, "TopicArn": null, "Message": "{\"data\":{\"n\":1}}",
            "MessageAttributes": {"priority": {"DataType": "String", "StringValue": "high"}},
            "MessageStructure": null, "Subject": null, "MessageId": pushed,
        }])
    );
    let to_tablet = &body["platform_endpoint_messages"][&tablet];
    assert_eq!(to_tablet[0]["TopicArn"], topic);
    assert_eq!(to_tablet[0]["Message"], "headline");
    assert_eq!(to_tablet[0]["MessageAttributes"], Value::Null);

    let only = json_of(
        &get(
            &h,
            &format!(
                "/_aws/sns/platform-endpoint-messages?endpointArn={}",
                encoded(&tablet)
            ),
        )
        .await,
        200,
    );
    let keys: Vec<_> = only["platform_endpoint_messages"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, [&tablet]);
    let bad = get(
        &h,
        "/_aws/sns/platform-endpoint-messages?endpointArn=nonsense",
    )
    .await;
    refused(&bad, 400, "InvalidArgument");

    let r = h
        .request(
            "DELETE",
            &format!(
                "/_aws/sns/platform-endpoint-messages?endpointArn={}",
                encoded(&phone)
            ),
            &[],
            "",
        )
        .await;
    assert_eq!(r.status, 204);
    let left = json_of(&get(&h, "/_aws/sns/platform-endpoint-messages").await, 200);
    let keys: Vec<_> = left["platform_endpoint_messages"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, [&tablet]);
    let outbox = h.control_get("outbox?protocol=application").await;
    assert_eq!(outbox["messages"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn subscription_tokens_confirm_pending_subscriptions_by_hand() {
    let h = Harness::start().await;
    let sns = h.sns();
    let topic = sns
        .create_topic()
        .name("external")
        .send()
        .await
        .unwrap()
        .topic_arn
        .unwrap();
    let subscribe = |protocol: &'static str, endpoint: String| {
        let sns = sns.clone();
        let topic = topic.clone();
        async move {
            sns.subscribe()
                .topic_arn(topic)
                .protocol(protocol)
                .endpoint(endpoint)
                .return_subscription_arn(true)
                .send()
                .await
                .unwrap()
                .subscription_arn
                .unwrap()
        }
    };
    let pending = subscribe("email", "ops@example.com".into()).await;
    let path = format!("/_aws/sns/subscription-tokens/{pending}");
    let body = json_of(&get(&h, &path).await, 200);
    assert_eq!(body["subscription_arn"], pending);
    let token = body["subscription_token"].as_str().unwrap().to_string();
    // The token the confirmation message carried.
    let outbox = h.control_get("outbox?protocol=email").await;
    assert_eq!(outbox["messages"][0]["attributes"]["Token"], token);

    let attribute = |arn: String| {
        let sns = sns.clone();
        async move {
            sns.get_subscription_attributes()
                .subscription_arn(arn)
                .send()
                .await
                .unwrap()
                .attributes
                .unwrap()["PendingConfirmation"]
                .clone()
        }
    };
    assert_eq!(attribute(pending.clone()).await, "true");
    let confirmed = sns
        .confirm_subscription()
        .topic_arn(&topic)
        .token(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(confirmed.subscription_arn(), Some(pending.as_str()));
    assert_eq!(attribute(pending.clone()).await, "false");
    // As in LocalStack, the token stays readable (a second confirmation changes nothing);
    // percent-encoded ARNs are read too.
    let again = json_of(
        &get(
            &h,
            &format!("/_aws/sns/subscription-tokens/{}", encoded(&pending)),
        )
        .await,
        200,
    );
    assert_eq!(again["subscription_token"], token);

    // A subscription that never waited for confirmation has no token; nor has an unknown one.
    h.sqs().create_queue().queue_name("q").send().await.unwrap();
    let queued = subscribe("sqs", "arn:aws:sqs:us-east-1:000000000000:q".into()).await;
    for arn in [
        queued,
        format!("{topic}:00000000-0000-0000-0000-000000000000"),
    ] {
        let r = get(&h, &format!("/_aws/sns/subscription-tokens/{arn}")).await;
        assert_eq!(
            json_of(&r, 404),
            json!({"error": "The provided SubscriptionARN is not found", "subscription_arn": arn})
        );
    }
    let r = get(&h, "/_aws/sns/subscription-tokens/randomarnhere").await;
    assert_eq!(
        json_of(&r, 400),
        json!({"error": "The provided SubscriptionARN is invalid", "subscription_arn": "randomarnhere"})
    );
}

async fn scheduled_rule_to_queue(h: &Harness, name: &str) -> (String, String) {
    let url = h
        .sqs()
        .create_queue()
        .queue_name(name)
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    let events = h.events();
    let arn = events
        .put_rule()
        .name(name)
        .schedule_expression("rate(1 hour)")
        .send()
        .await
        .unwrap()
        .rule_arn
        .unwrap();
    events
        .put_targets()
        .rule(name)
        .targets(
            aws_sdk_eventbridge::types::Target::builder()
                .id("q")
                .arn(format!("arn:aws:sqs:us-east-1:000000000000:{name}"))
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
    (arn, url)
}

async fn bodies(h: &Harness, url: &str) -> Vec<Value> {
    let got = h
        .sqs()
        .receive_message()
        .queue_url(url)
        .max_number_of_messages(10)
        .send()
        .await
        .unwrap();
    let mut out = vec![];
    for m in got.messages() {
        out.push(serde_json::from_str(m.body().unwrap()).unwrap());
        h.sqs()
            .delete_message()
            .queue_url(url)
            .receipt_handle(m.receipt_handle().unwrap())
            .send()
            .await
            .unwrap();
    }
    out
}

#[tokio::test]
async fn triggering_a_scheduled_rule_delivers_its_scheduled_event_now() {
    let h = Harness::start().await;
    let (arn, url) = scheduled_rule_to_queue(&h, "hourly").await;
    let now = h.control_get("clock").await["now"]
        .as_str()
        .unwrap()
        .to_string();
    let r = get(&h, &format!("/_aws/events/rules/{arn}/trigger")).await;
    let answer = json_of(&r, 200);
    assert_eq!(answer["ruleArn"], arn);
    let got = bodies(&h, &url).await;
    assert_eq!(got.len(), 1);
    let event = &got[0];
    assert_eq!(event["id"], answer["eventId"]);
    assert_eq!(event["detail-type"], "Scheduled Event");
    assert_eq!(event["source"], "aws.events");
    assert_eq!(event["resources"], json!([arn]));
    assert_eq!(event["detail"], json!({}));
    assert_eq!(event["time"], format!("{}Z", &now[..19]));
    // POST works too, and the percent-encoded ARN.
    let r = h
        .request(
            "POST",
            &format!("/_aws/events/rules/{}/trigger", encoded(&arn)),
            &[],
            "",
        )
        .await;
    json_of(&r, 200);
    assert_eq!(bodies(&h, &url).await.len(), 1);
    // The schedule keeps its own timing: the hour still fires once.
    h.advance(3600.0).await;
    assert_eq!(bodies(&h, &url).await.len(), 1);
}

#[tokio::test]
async fn rules_that_cannot_be_triggered_are_refused() {
    let h = Harness::start().await;
    let (arn, url) = scheduled_rule_to_queue(&h, "nightly").await;
    let events = h.events();
    let pattern = events
        .put_rule()
        .name("orders")
        .event_pattern(r#"{"source":["shop"]}"#)
        .send()
        .await
        .unwrap()
        .rule_arn
        .unwrap();
    let trigger = |arn: &str| format!("/_aws/events/rules/{arn}/trigger");
    refused(&get(&h, &trigger(&pattern)).await, 404, "NotFound");
    let absent = arn.replace("nightly", "absent");
    refused(&get(&h, &trigger(&absent)).await, 404, "NotFound");
    refused(&get(&h, &trigger("nonsense")).await, 400, "InvalidArgument");
    let queue_arn = "arn:aws:sqs:us-east-1:000000000000:nightly";
    refused(&get(&h, &trigger(queue_arn)).await, 400, "InvalidArgument");
    refused(
        &get(&h, &format!("/_aws/events/rules/{arn}")).await,
        404,
        "NotFound",
    );
    events.disable_rule().name("nightly").send().await.unwrap();
    refused(&get(&h, &trigger(&arn)).await, 409, "RuleDisabled");
    assert!(bodies(&h, &url).await.is_empty());
    h.assert_alive().await;
}
