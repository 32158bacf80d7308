//! AWS Query as the older SDKs and the v1 CLI send it: form-encoded POSTs (and GETs), XML back.

use crate::harness::{Harness, xml_text, xml_texts};

#[tokio::test]
async fn sqs_over_query_round_trip() {
    let h = Harness::start().await;
    let r = h
        .query(&[
            ("Action", "CreateQueue"),
            ("Version", "2012-11-05"),
            ("QueueName", "legacy"),
            ("Attribute.1.Name", "VisibilityTimeout"),
            ("Attribute.1.Value", "45"),
        ])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("text/xml"));
    assert!(
        r.body
            .contains("<CreateQueueResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\">")
    );
    let url = xml_text(&r.body, "QueueUrl").unwrap();
    assert_eq!(url, format!("{}/000000000000/legacy", h.url()));
    assert!(xml_text(&r.body, "RequestId").is_some_and(|id| id.len() == 36));

    let body = "line1\r\nline2 <tag> & \"quoted\" ]]>";
    let r = h
        .query(&[
            ("Action", "SendMessage"),
            ("QueueUrl", &url),
            ("MessageBody", body),
            ("MessageAttribute.1.Name", "kind"),
            ("MessageAttribute.1.Value.DataType", "String"),
            ("MessageAttribute.1.Value.StringValue", "order"),
        ])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let md5 = xml_text(&r.body, "MD5OfMessageBody").unwrap();
    let id = xml_text(&r.body, "MessageId").unwrap();
    assert!(xml_text(&r.body, "MD5OfMessageAttributes").is_some());

    // The same queue through the JSON protocol sees the message the Query client sent.
    let r = h
        .query(&[
            ("Action", "ReceiveMessage"),
            ("QueueUrl", &url),
            ("AttributeName.1", "All"),
            ("MessageAttributeName.1", "All"),
        ])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        xml_text(&r.body, "Body").as_deref(),
        Some(body),
        "\\r survives XML parsing: {}",
        r.body
    );
    assert_eq!(xml_text(&r.body, "MD5OfBody"), Some(md5));
    assert_eq!(xml_text(&r.body, "MessageId"), Some(id));
    let names = xml_texts(&r.body, "Name");
    assert!(
        names.contains(&"ApproximateReceiveCount".to_string())
            && names.contains(&"kind".to_string()),
        "{names:?}"
    );
    assert_eq!(xml_text(&r.body, "StringValue").as_deref(), Some("order"));
    let receipt = xml_text(&r.body, "ReceiptHandle").unwrap();

    let r = h
        .query(&[
            ("Action", "DeleteMessage"),
            ("QueueUrl", &url),
            ("ReceiptHandle", &receipt),
        ])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("<DeleteMessageResponse"));

    let r = h
        .query(&[("Action", "ListQueues"), ("QueueNamePrefix", "leg")])
        .await;
    assert_eq!(xml_texts(&r.body, "QueueUrl"), std::slice::from_ref(&url));
    let r = h
        .query(&[("Action", "GetQueueUrl"), ("QueueName", "legacy")])
        .await;
    assert_eq!(xml_text(&r.body, "QueueUrl"), Some(url.clone()));
    let r = h
        .query(&[("Action", "DeleteQueue"), ("QueueUrl", &url)])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
}

#[tokio::test]
async fn query_requests_to_the_queue_url_and_by_get() {
    let h = Harness::start().await;
    h.sqs().create_queue().queue_name("q").send().await.unwrap();
    // Old SDKs post to the queue URL itself, without the QueueUrl parameter in some versions'
    // retries; the path alone routes to SQS.
    let r = h
        .query_at(
            "/000000000000/q",
            &[
                ("Action", "SendMessage"),
                ("QueueUrl", &format!("{}/000000000000/q", h.url())),
                ("MessageBody", "via path"),
            ],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let path = format!(
        "/?Action=ReceiveMessage&QueueUrl={}",
        form_urlencoded::byte_serialize(format!("{}/000000000000/q", h.url()).as_bytes())
            .collect::<String>()
    );
    let r = h.request("GET", &path, &[], "").await;
    assert_eq!(xml_text(&r.body, "Body").as_deref(), Some("via path"));
}

#[tokio::test]
async fn query_errors_are_xml_error_responses() {
    let h = Harness::start().await;
    let missing = format!("{}/000000000000/missing", h.url());
    let r = h
        .query(&[
            ("Action", "SendMessage"),
            ("QueueUrl", &missing),
            ("MessageBody", "x"),
        ])
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(r.header("content-type"), Some("text/xml"));
    assert!(
        r.body
            .contains("<ErrorResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\">"),
        "{}",
        r.body
    );
    assert_eq!(xml_text(&r.body, "Type").as_deref(), Some("Sender"));
    assert_eq!(
        xml_text(&r.body, "Code").as_deref(),
        Some("AWS.SimpleQueueService.NonExistentQueue")
    );
    // Query's own wording (AWS-recorded; JSON says "The specified queue does not exist.").
    assert_eq!(
        xml_text(&r.body, "Message").as_deref(),
        Some("The specified queue does not exist for this wsdl version.")
    );
    assert!(xml_text(&r.body, "RequestId").is_some());

    let r = h.query(&[("Action", "CreateQueue")]).await;
    assert_eq!(
        xml_text(&r.body, "Code").as_deref(),
        Some("MissingParameter")
    );
    assert_eq!(
        xml_text(&r.body, "Message").as_deref(),
        Some("The request must contain the parameter QueueName.")
    );

    let r = h
        .query(&[("Action", "Frobnicate"), ("Version", "2012-11-05")])
        .await;
    assert_eq!(r.status, 400);
    assert_eq!(xml_text(&r.body, "Code").as_deref(), Some("InvalidAction"));
}

#[tokio::test]
async fn json_errors_carry_the_query_error_header() {
    let h = Harness::start().await;
    let missing = format!("{{\"QueueUrl\":\"{}/000000000000/missing\"}}", h.url());
    let r = h.json("1.0", "AmazonSQS.ReceiveMessage", &missing).await;
    assert_eq!(r.status, 400);
    assert_eq!(
        r.header("x-amzn-query-error"),
        Some("AWS.SimpleQueueService.NonExistentQueue;Sender")
    );
    assert_eq!(r.json()["__type"], "com.amazonaws.sqs#QueueDoesNotExist");
    assert_eq!(r.json()["message"], "The specified queue does not exist.");
}

#[tokio::test]
async fn sts_get_caller_identity_over_query() {
    let h = Harness::start().await;
    let r = h
        .query(&[("Action", "GetCallerIdentity"), ("Version", "2011-06-15")])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("<GetCallerIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><GetCallerIdentityResult>"));
    assert_eq!(
        xml_text(&r.body, "Account").as_deref(),
        Some("000000000000")
    );
    assert_eq!(
        xml_text(&r.body, "Arn").as_deref(),
        Some("arn:aws:iam::000000000000:root")
    );
}

#[tokio::test]
async fn the_queue_url_path_names_the_queue_without_a_queue_url_parameter() {
    let h = Harness::start().await;
    h.sqs()
        .create_queue()
        .queue_name("raw")
        .send()
        .await
        .unwrap();
    let r = h
        .query_at(
            "/000000000000/raw",
            &[
                ("Action", "SendMessage"),
                ("Version", "2012-11-05"),
                ("MessageBody", "hi"),
            ],
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = h
        .request(
            "GET",
            "/000000000000/raw?Action=ReceiveMessage&Version=2012-11-05",
            &[],
            "",
        )
        .await;
    assert_eq!(
        xml_text(&r.body, "Body").as_deref(),
        Some("hi"),
        "{}",
        r.body
    );
    let r = h
        .request(
            "GET",
            "/000000000000/nope?Action=ReceiveMessage&Version=2012-11-05",
            &[],
            "",
        )
        .await;
    assert_eq!(
        xml_text(&r.body, "Code").as_deref(),
        Some("AWS.SimpleQueueService.NonExistentQueue")
    );
}
