//! What the web console reads besides the documented control API: `GET /_switchyard/resources`
//! (every resource of every account and region, read-only) and LocalStack's
//! `GET /_aws/sqs/messages` (a queue's messages without receiving them), through HTTP as the
//! console and LocalStack users call them; and the console's own files.

use crate::harness::Harness;
use serde_json::{Value, json};

async fn peek(h: &Harness, query: &str, json: bool) -> (u16, String) {
    let accept = [("accept", "application/json")];
    let headers: &[(&str, &str)] = if json { &accept } else { &[] };
    let r = h
        .request("GET", &format!("/_aws/sqs/messages{query}"), headers, "")
        .await;
    (r.status, r.body)
}

fn messages(doc: &Value) -> Vec<Value> {
    match &doc["ReceiveMessageResponse"]["ReceiveMessageResult"] {
        Value::Null => vec![],
        result => match &result["Message"] {
            Value::Array(list) => list.clone(),
            one => vec![one.clone()],
        },
    }
}

fn attribute(message: &Value, name: &str) -> Option<String> {
    message["Attribute"]
        .as_array()?
        .iter()
        .find(|a| a["Name"] == name)
        .map(|a| a["Value"].as_str().unwrap().to_string())
}

#[tokio::test]
async fn peeking_changes_nothing_and_shows_invisible_and_delayed_on_request() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let url = sqs
        .create_queue()
        .queue_name("peeked")
        .send()
        .await
        .unwrap();
    let url = url.queue_url().unwrap().to_string();
    for (body, delay) in [("one", 0), ("two", 0), ("three", 10)] {
        sqs.send_message()
            .queue_url(&url)
            .message_body(body)
            .delay_seconds(delay)
            .send()
            .await
            .unwrap();
    }
    let received = sqs.receive_message().queue_url(&url).send().await.unwrap();
    assert_eq!(received.messages()[0].body(), Some("one"));

    let q = format!("?QueueUrl={}", urlencoding(&url));
    let (status, body) = peek(&h, &q, true).await;
    assert_eq!(status, 200, "{body}");
    let listed = messages(&serde_json::from_str(&body).unwrap());
    // Only "two" is visible: a single message stands alone, as LocalStack renders it.
    assert_eq!(listed.len(), 1, "{body}");
    assert_eq!(listed[0]["Body"], "two");
    assert_eq!(listed[0]["MD5OfBody"], "b8a9f715dbb64fd5c56e7783c6820a61");
    assert!(attribute(&listed[0], "SenderId").is_some_and(|s| !s.is_empty()));
    assert_eq!(
        attribute(&listed[0], "ApproximateReceiveCount").as_deref(),
        Some("0")
    );
    assert!(attribute(&listed[0], "SentTimestamp").is_some());
    assert_eq!(attribute(&listed[0], "IsVisible"), None);

    let flags = format!("{q}&ShowInvisible=True&ShowDelayed=true");
    let (_, body) = peek(&h, &flags, true).await;
    let listed = messages(&serde_json::from_str(&body).unwrap());
    let seen: Vec<_> = listed
        .iter()
        .map(|m| {
            (
                m["Body"].as_str().unwrap().to_string(),
                attribute(m, "IsVisible").unwrap(),
                attribute(m, "IsDelayed").unwrap(),
                attribute(m, "ApproximateReceiveCount").unwrap(),
            )
        })
        .collect();
    let row = |b: &str, v: &str, d: &str, c: &str| (b.into(), v.into(), d.into(), c.into());
    assert_eq!(
        seen,
        vec![
            row("one", "false", "false", "1"),
            row("two", "true", "false", "0"),
            row("three", "false", "true", "0"),
        ]
    );

    // Nothing changed: "two" is still the next to receive, received for the first time.
    let next = sqs
        .receive_message()
        .queue_url(&url)
        .message_system_attribute_names(aws_sdk_sqs::types::MessageSystemAttributeName::All)
        .send()
        .await
        .unwrap();
    let m = &next.messages()[0];
    assert_eq!(m.body(), Some("two"));
    let count = m.attributes().unwrap();
    assert_eq!(
        count[&aws_sdk_sqs::types::MessageSystemAttributeName::ApproximateReceiveCount],
        "1"
    );
}

/// `QueueUrl` percent-encoded for a query string.
fn urlencoding(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[tokio::test]
async fn peeking_answers_xml_by_default_and_by_path_and_refuses_bad_queues() {
    let h = Harness::start().await;
    let sqs = h.sqs_as("111122223333", "eu-west-1");
    let url = sqs.create_queue().queue_name("xml").send().await.unwrap();
    let url = url.queue_url().unwrap().to_string();
    sqs.send_message()
        .queue_url(&url)
        .message_body("a<b")
        .message_attributes(
            "kind",
            aws_sdk_sqs::types::MessageAttributeValue::builder()
                .data_type("String")
                .string_value("order")
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();

    // The queue lives in eu-west-1 only: the QueueUrl (which names no region) still finds it.
    let (status, xml) = peek(&h, &format!("?QueueUrl={}", urlencoding(&url)), false).await;
    assert_eq!(status, 200, "{xml}");
    assert!(xml.contains("<ReceiveMessageResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\"><ReceiveMessageResult><Message>"), "{xml}");
    assert!(xml.contains("<Body>a&lt;b</Body>"), "{xml}");
    assert!(
        xml.contains("<Attribute><Name>ApproximateReceiveCount</Name><Value>0</Value></Attribute>"),
        "{xml}"
    );
    assert!(xml.contains("<MessageAttribute><Name>kind</Name><Value><DataType>String</DataType><StringValue>order</StringValue></Value></MessageAttribute>"), "{xml}");

    let (status, body) = peek(&h, "/eu-west-1/111122223333/xml", true).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(messages(&serde_json::from_str(&body).unwrap()).len(), 1);

    let error = |body: &str| -> Value {
        let doc: Value = serde_json::from_str(body).unwrap();
        doc["ErrorResponse"]["Error"]["Code"].clone()
    };
    let (status, body) = peek(&h, "/us-east-2/111122223333/xml", true).await;
    assert_eq!(
        (status, error(&body)),
        (400, json!("AWS.SimpleQueueService.NonExistentQueue"))
    );
    let (status, body) = peek(&h, "", true).await;
    assert_eq!(
        (status, error(&body)),
        (400, json!("AWS.SimpleQueueService.NonExistentQueue"))
    );
    let (status, body) = peek(
        &h,
        "?QueueUrl=http%3A%2F%2Flocalhost%3A4566%2Fnonsense",
        true,
    )
    .await;
    assert_eq!((status, error(&body)), (404, json!("InvalidAddress")));
    let (status, xml) = peek(
        &h,
        "?QueueUrl=http%3A%2F%2Flocalhost%2F000000000000%2Fnone",
        false,
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        xml.contains("<Code>AWS.SimpleQueueService.NonExistentQueue</Code>"),
        "{xml}"
    );
    // An empty queue: no result at all.
    sqs.purge_queue().queue_url(&url).send().await.unwrap();
    let (_, body) = peek(&h, "/eu-west-1/111122223333/xml", true).await;
    let doc: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        doc["ReceiveMessageResponse"]["ReceiveMessageResult"],
        Value::Null
    );
    h.assert_alive().await;
}

#[tokio::test]
async fn resources_lists_every_account_and_region_with_counts_and_links() {
    let h = Harness::start().await;
    let sqs = h.sqs();
    let dlq = sqs.create_queue().queue_name("dlq").send().await.unwrap();
    let redrive =
        r#"{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":"3"}"#;
    let main = sqs
        .create_queue()
        .queue_name("main")
        .attributes(
            aws_sdk_sqs::types::QueueAttributeName::RedrivePolicy,
            redrive,
        )
        .send()
        .await
        .unwrap();
    let main = main.queue_url().unwrap();
    sqs.send_message()
        .queue_url(main)
        .message_body("x")
        .send()
        .await
        .unwrap();
    sqs.send_message()
        .queue_url(main)
        .message_body("y")
        .delay_seconds(5)
        .send()
        .await
        .unwrap();
    sqs.receive_message().queue_url(main).send().await.unwrap();
    let _ = dlq;
    h.sqs_as("111122223333", "eu-west-1")
        .create_queue()
        .queue_name("elsewhere")
        .send()
        .await
        .unwrap();
    let sns = h.sns();
    let topic = sns.create_topic().name("orders").send().await.unwrap();
    let topic = topic.topic_arn().unwrap();
    sns.subscribe()
        .topic_arn(topic)
        .protocol("sqs")
        .endpoint("arn:aws:sqs:us-east-1:000000000000:main")
        .send()
        .await
        .unwrap();
    let events = h.events();
    events
        .put_rule()
        .name("hourly")
        .schedule_expression("rate(1 hour)")
        .send()
        .await
        .unwrap();

    let view = h.control_get("resources").await;
    assert_eq!(view["now"], h.control_get("clock").await["now"]);
    assert!(
        view["nextTimerAt"].is_string(),
        "the rule's firing is due: {view}"
    );
    let regions = view["regions"].as_array().unwrap();
    let places: Vec<_> = regions
        .iter()
        .map(|r| {
            (
                r["account"].as_str().unwrap(),
                r["region"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        places,
        [("000000000000", "us-east-1"), ("111122223333", "eu-west-1")]
    );
    let home = &regions[0];
    let queues = home["queues"].as_array().unwrap();
    let main = queues.iter().find(|q| q["name"] == "main").unwrap();
    assert_eq!(
        (
            main["visible"].clone(),
            main["inFlight"].clone(),
            main["delayed"].clone()
        ),
        (json!(0), json!(1), json!(1))
    );
    assert_eq!(
        main["deadLetterQueue"],
        "arn:aws:sqs:us-east-1:000000000000:dlq"
    );
    assert_eq!(main["maxReceiveCount"], 3);
    assert!(
        main["url"]
            .as_str()
            .unwrap()
            .ends_with("/000000000000/main")
    );
    let dlq = queues.iter().find(|q| q["name"] == "dlq").unwrap();
    assert_eq!(
        dlq["redriveSources"],
        json!(["arn:aws:sqs:us-east-1:000000000000:main"])
    );
    let topic_view = &home["topics"][0];
    assert_eq!(topic_view["arn"], topic);
    let sub = &topic_view["subscriptions"][0];
    assert_eq!(
        (sub["protocol"].clone(), sub["confirmed"].clone()),
        (json!("sqs"), json!(true))
    );
    let bus = &home["eventBuses"][0];
    assert_eq!(bus["name"], "default");
    assert_eq!(bus["rules"][0]["scheduleExpression"], "rate(1 hour)");
    assert_eq!(regions[1]["queues"][0]["name"], "elsewhere");
    for kind in ["customBuses", "eventStreams", "archives", "replays"] {
        assert_eq!(home[kind], json!([]), "{kind}");
    }
    // Read-only: looking changed no count.
    let again = h.control_get("resources").await;
    assert_eq!(again["regions"][0]["queues"], home["queues"]);
    let r = h.request("POST", "/_switchyard/resources", &[], "").await;
    assert_eq!(r.status, 405, "{}", r.body);
}

#[tokio::test]
async fn the_console_is_served_from_the_binary() {
    let h = Harness::start().await;
    for (path, kind) in [
        ("/_switchyard/ui", "text/html"),
        ("/_switchyard/ui/", "text/html"),
        ("/_switchyard/ui/app.js", "text/javascript"),
        ("/_switchyard/ui/timeline.js", "text/javascript"),
        ("/_switchyard/ui/forms.js", "text/javascript"),
        ("/_switchyard/ui/style.css", "text/css"),
    ] {
        let r = h.request("GET", path, &[], "").await;
        assert_eq!(r.status, 200, "{path}");
        assert!(
            r.header("content-type").unwrap().starts_with(kind),
            "{path}"
        );
        assert!(!r.body.contains("https://"), "{path} refers to the network");
    }
    let r = h
        .request("GET", "/_switchyard/ui/../Cargo.toml", &[], "")
        .await;
    assert_eq!(r.status, 404);
    let r = h
        .request("GET", "/_switchyard/ui/secret.txt", &[], "")
        .await;
    assert_eq!(
        (r.status, r.json()["error"].clone()),
        (404, json!("NotFound"))
    );
}
