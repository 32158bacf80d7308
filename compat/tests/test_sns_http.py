"""SNS to a real HTTP endpoint: a tiny http.server on 127.0.0.1 in a thread is subscribed, receives
the SubscriptionConfirmation POST (signature verified), confirms by GET SubscribeURL, receives the
Notification (x-amz-sns-* headers checked, signature verified), then leaves through GET
UnsubscribeURL and receives the UnsubscribeConfirmation.

`POST /_switchyard/clock/advance {"seconds": 0}` returns only once in-flight HTTP deliveries have
finished, so after it the recorder holds everything that was sent (no sleeps)."""

import json
import xml.etree.ElementTree as ET
from urllib.parse import urlsplit

import pytest
from sns_helpers import ACCOUNT, TIMESTAMP, UUID, Recorder, http_get, query_param, verify_signature
from sqs_helpers import raises_code

NS = {"sns": "http://sns.amazonaws.com/doc/2010-03-31/"}
CONFIRMATION_ORDER = [
    "Type",
    "MessageId",
    "Token",
    "TopicArn",
    "Message",
    "SubscribeURL",
    "Timestamp",
    "SignatureVersion",
    "Signature",
    "SigningCertURL",
]


@pytest.fixture
def endpoint():
    with Recorder() as recorder:
        yield recorder


def ordered_keys(body):
    return [k for k, _ in json.loads(body, object_pairs_hook=lambda p: p)]


def only(requests, kind):
    assert len(requests) == 1, requests
    request = requests[0]
    assert request.method == "POST", request
    assert request.headers.get("x-amz-sns-message-type") == kind, request.headers
    return request


def check_confirmation(request, kind, topic, url, now, signature_version="1"):
    """The common checks of SubscriptionConfirmation and UnsubscribeConfirmation; returns the body."""
    doc = request.json()
    assert ordered_keys(request.body) == CONFIRMATION_ORDER, request.body
    assert doc["Type"] == kind
    assert UUID.match(doc["MessageId"]), doc
    assert request.headers["x-amz-sns-message-id"] == doc["MessageId"]
    assert request.headers["x-amz-sns-topic-arn"] == topic
    assert request.headers["content-type"] == "text/plain; charset=UTF-8"
    assert request.headers["user-agent"] == "Amazon Simple Notification Service Agent"
    assert doc["TopicArn"] == topic
    assert doc["Token"]
    subscribe_url = urlsplit(doc["SubscribeURL"])
    assert f"{subscribe_url.scheme}://{subscribe_url.netloc}" == url
    assert query_param(doc["SubscribeURL"], "Action") == "ConfirmSubscription"
    assert query_param(doc["SubscribeURL"], "TopicArn") == topic
    assert query_param(doc["SubscribeURL"], "Token") == doc["Token"]
    assert TIMESTAMP.match(doc["Timestamp"]) and doc["Timestamp"] == now
    verify_signature(doc, expected_version=signature_version)
    return doc


def test_http_subscribe_confirm_publish_unsubscribe(sns, control, endpoint, url):
    topic = sns.create_topic(Name="webhooks")["TopicArn"]
    hook = endpoint.url + "/hook"

    now = control.clock()["now"]
    answer = sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=hook)
    assert answer["SubscriptionArn"] == "pending confirmation"
    control.advance(0)

    # 1. The SubscriptionConfirmation, POSTed at subscribe time.
    request = only(endpoint.take(), "SubscriptionConfirmation")
    assert request.path == "/hook"
    assert "x-amz-sns-subscription-arn" not in request.headers  # absent on SubscriptionConfirmation
    confirmation = check_confirmation(request, "SubscriptionConfirmation", topic, url, now)
    assert confirmation["Message"] == (
        f"You have chosen to subscribe to the topic {topic}.\n"
        "To confirm the subscription, visit the SubscribeURL included in this message."
    )

    listed = sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]
    assert [(s["SubscriptionArn"], s["Protocol"], s["Endpoint"]) for s in listed] == [
        ("PendingConfirmation", "http", hook)
    ]
    topic_attributes = sns.get_topic_attributes(TopicArn=topic)["Attributes"]
    assert (topic_attributes["SubscriptionsConfirmed"], topic_attributes["SubscriptionsPending"]) == ("0", "1")

    # Nothing is delivered before confirmation.
    sns.publish(TopicArn=topic, Message="too early")
    control.advance(0)
    assert endpoint.take() == []

    # 2. Confirm the way a subscriber does: GET SubscribeURL (unsigned, from anywhere).
    r = http_get(confirmation["SubscribeURL"])
    assert r.status_code == 200, r.text
    root = ET.fromstring(r.text)
    assert root.tag == f"{{{NS['sns']}}}ConfirmSubscriptionResponse", r.text
    sub = root.findtext("sns:ConfirmSubscriptionResult/sns:SubscriptionArn", namespaces=NS)
    assert sub and sub.startswith(topic + ":") and UUID.match(sub[len(topic) + 1 :]), r.text
    assert root.findtext("sns:ResponseMetadata/sns:RequestId", namespaces=NS), r.text

    listed = sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]
    assert listed == [{"SubscriptionArn": sub, "Owner": ACCOUNT, "Protocol": "http", "Endpoint": hook, "TopicArn": topic}]
    attributes = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
    assert attributes["PendingConfirmation"] == "false"
    assert attributes["ConfirmationWasAuthenticated"] == "false"  # a plain GET is not authenticated
    assert attributes["Protocol"] == "http" and attributes["Endpoint"] == hook
    assert json.loads(attributes["EffectiveDeliveryPolicy"])["healthyRetryPolicy"]["numRetries"] == 3

    # 3. A notification.
    now = control.clock()["now"]
    published = sns.publish(
        TopicArn=topic,
        Message='{"order": 42, "note": "ünïcödé"}',
        Subject="Order 42",
        MessageAttributes={
            "kind": {"DataType": "String", "StringValue": "order"},
            "amount": {"DataType": "Number", "StringValue": "12.5"},
        },
    )
    control.advance(0)
    request = only(endpoint.take(), "Notification")
    assert request.path == "/hook"
    assert request.headers["x-amz-sns-message-id"] == published["MessageId"]
    assert request.headers["x-amz-sns-topic-arn"] == topic
    assert request.headers["x-amz-sns-subscription-arn"] == sub
    assert "x-amz-sns-rawdelivery" not in request.headers
    assert request.headers["content-type"] == "text/plain; charset=UTF-8"
    assert request.headers["user-agent"] == "Amazon Simple Notification Service Agent"
    doc = request.json()
    assert ordered_keys(request.body) == [
        "Type",
        "MessageId",
        "TopicArn",
        "Subject",
        "Message",
        "Timestamp",
        "SignatureVersion",
        "Signature",
        "SigningCertURL",
        "UnsubscribeURL",
        "MessageAttributes",
    ], request.body
    assert doc["Type"] == "Notification"
    assert doc["MessageId"] == published["MessageId"]
    assert doc["TopicArn"] == topic
    assert doc["Subject"] == "Order 42"
    assert doc["Message"] == '{"order": 42, "note": "ünïcödé"}'
    assert doc["Timestamp"] == now
    assert doc["MessageAttributes"] == {
        "amount": {"Type": "Number", "Value": "12.5"},
        "kind": {"Type": "String", "Value": "order"},
    }
    assert query_param(doc["UnsubscribeURL"], "SubscriptionArn") == sub
    verify_signature(doc, expected_version="1")

    # The delivery log shows it.
    records = control.get("/deliveries", messageId=published["MessageId"]).json()["records"]
    assert [(r["event"], r["source"], r["target"], r["protocol"], r["outcome"], r["status"]) for r in records] == [
        ("attempt", sub, hook, "http", "delivered", 200)
    ], records

    # 4. Leave through UnsubscribeURL; the endpoint hears an UnsubscribeConfirmation.
    now = control.clock()["now"]
    r = http_get(doc["UnsubscribeURL"])
    assert r.status_code == 200, r.text
    root = ET.fromstring(r.text)
    assert root.tag == f"{{{NS['sns']}}}UnsubscribeResponse", r.text
    control.advance(0)
    request = only(endpoint.take(), "UnsubscribeConfirmation")
    assert request.headers["x-amz-sns-subscription-arn"] == sub
    goodbye = check_confirmation(request, "UnsubscribeConfirmation", topic, url, now)
    assert goodbye["Message"] == (
        f"You have chosen to deactivate subscription {sub}.\n"
        "To cancel this operation and restore the subscription, visit the SubscribeURL included in this message."
    )

    assert sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"] == []
    with raises_code("NotFound", 404):
        sns.get_subscription_attributes(SubscriptionArn=sub)
    sns.publish(TopicArn=topic, Message="nobody listens")
    control.advance(0)
    assert endpoint.take() == []


def test_http_signature_version_2_and_confirm_subscription_action(sns, control, endpoint, url):
    topic = sns.create_topic(Name="webhooks-v2", Attributes={"SignatureVersion": "2"})["TopicArn"]
    hook = endpoint.url + "/v2"
    now = control.clock()["now"]
    sub = sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=hook, ReturnSubscriptionArn=True)["SubscriptionArn"]
    assert sub.startswith(topic + ":"), sub
    assert sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]["PendingConfirmation"] == "true"
    control.advance(0)
    confirmation = check_confirmation(
        only(endpoint.take(), "SubscriptionConfirmation"), "SubscriptionConfirmation", topic, url, now, "2"
    )

    # Confirm with the ConfirmSubscription action this time.
    assert sns.confirm_subscription(TopicArn=topic, Token=confirmation["Token"])["SubscriptionArn"] == sub
    attributes = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
    assert attributes["PendingConfirmation"] == "false"

    published = sns.publish(TopicArn=topic, Message="signed with SHA256")
    control.advance(0)
    request = only(endpoint.take(), "Notification")
    doc = request.json()
    assert doc["MessageId"] == published["MessageId"]
    assert "Subject" not in doc and "MessageAttributes" not in doc
    verify_signature(doc, expected_version="2")


def test_http_raw_delivery(sns, control, endpoint):
    topic = sns.create_topic(Name="raw-hook")["TopicArn"]
    hook = endpoint.url + "/raw"
    sub = sns.subscribe(
        TopicArn=topic,
        Protocol="http",
        Endpoint=hook,
        Attributes={"RawMessageDelivery": "true"},
        ReturnSubscriptionArn=True,
    )["SubscriptionArn"]
    control.advance(0)
    token = only(endpoint.take(), "SubscriptionConfirmation").json()["Token"]
    sns.confirm_subscription(TopicArn=topic, Token=token)

    published = sns.publish(
        TopicArn=topic,
        Message="just the body",
        Subject="dropped",
        MessageAttributes={"kind": {"DataType": "String", "StringValue": "x"}},
    )
    control.advance(0)
    request = only(endpoint.take(), "Notification")
    assert request.body == "just the body"
    assert request.headers["x-amz-sns-rawdelivery"] == "true"
    assert request.headers["x-amz-sns-message-id"] == published["MessageId"]
    assert request.headers["x-amz-sns-subscription-arn"] == sub
    assert request.headers["x-amz-sns-topic-arn"] == topic


def test_subscribe_url_errors(sns, control, endpoint):
    topic = sns.create_topic(Name="guarded")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=endpoint.url + "/g")
    control.advance(0)
    confirmation = only(endpoint.take(), "SubscriptionConfirmation").json()
    bad = confirmation["SubscribeURL"].replace(confirmation["Token"], "abc123")
    r = http_get(bad)
    assert r.status_code == 400, r.text
    root = ET.fromstring(r.text)
    error = root.find("{*}Error")
    assert error is not None, r.text
    assert error.findtext("{*}Type") == "Sender"
    assert error.findtext("{*}Code") == "InvalidParameter"
    assert error.findtext("{*}Message") == "Invalid parameter: Token"
    # Still pending.
    assert sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"][0]["SubscriptionArn"] == "PendingConfirmation"


def test_http_content_type_from_request_policies(sns, control, endpoint):
    """The effective headerContentType replaces text/plain on notifications (docs/sns.md,
    "Content type"): application/json from the topic's defaultRequestPolicy; text/csv, exactly as
    configured, from a raw subscription's own requestPolicy."""
    topic = sns.create_topic(Name="typed")["TopicArn"]
    sns.set_topic_attributes(
        TopicArn=topic,
        AttributeName="DeliveryPolicy",
        AttributeValue=json.dumps(
            {
                "http": {
                    "defaultHealthyRetryPolicy": {"minDelayTarget": 20, "maxDelayTarget": 20, "numRetries": 3},
                    "defaultRequestPolicy": {"headerContentType": "application/json"},
                }
            }
        ),
    )
    subs = {}
    for path, attributes in [
        ("/json", {}),
        (
            "/csv",
            {
                "RawMessageDelivery": "true",
                "DeliveryPolicy": json.dumps({"requestPolicy": {"headerContentType": "text/csv"}}),
            },
        ),
    ]:
        subs[path] = sns.subscribe(
            TopicArn=topic,
            Protocol="http",
            Endpoint=endpoint.url + path,
            Attributes=attributes,
            ReturnSubscriptionArn=True,
        )["SubscriptionArn"]
    control.advance(0)
    for request in endpoint.take():
        assert request.headers["x-amz-sns-message-type"] == "SubscriptionConfirmation", request
        sns.confirm_subscription(TopicArn=topic, Token=request.json()["Token"])

    sns.publish(TopicArn=topic, Message="a,b,c")
    control.advance(0)
    by_path = {r.path: r for r in endpoint.take()}
    assert set(by_path) == {"/json", "/csv"}, by_path
    assert by_path["/json"].headers["content-type"] == "application/json"
    assert by_path["/json"].json()["Message"] == "a,b,c"
    assert by_path["/csv"].headers["content-type"] == "text/csv"
    assert by_path["/csv"].body == "a,b,c"
