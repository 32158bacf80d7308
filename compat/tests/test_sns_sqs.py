"""SNS to SQS through boto3: the notification envelope field by field with its signature verified as
AWS documents it (SignatureVersion 1 and 2), raw message delivery, FIFO topic to FIFO queue with
deduplication on the virtual clock, filter policies (attributes and body scope) and PublishBatch.

Deliveries are awaited with `POST /_switchyard/clock/advance {"seconds": 0}` (no sleeps)."""

import hashlib
import json
from urllib.parse import urlsplit

import pytest
from cryptography.hazmat.primitives import hashes
from sns_helpers import (
    ACCOUNT,
    TIMESTAMP,
    UUID,
    http_get,
    query_param,
    receive_and_delete,
    signature_fails,
    sqs_queue,
    topic_arn,
    verify_signature,
)
from sqs_helpers import md5, md5_of_attributes, raises_code

MESSAGE = 'Hello "world"\nline two, ünïcödé \\ </xml> & more'

# One attribute of each type (and a custom label), as published ...
ATTRIBUTES = {
    "text": {"DataType": "String", "StringValue": "plain value"},
    "price": {"DataType": "Number", "StringValue": "99.12"},
    "blob": {"DataType": "Binary", "BinaryValue": b"\x02\x03\x04"},
    "tags": {"DataType": "String.Array", "StringValue": '["a", "b", 3]'},
    "labelled": {"DataType": "String.custom", "StringValue": "with label"},
}
# ... as they appear in the envelope (docs/sns.md, "Message envelopes"): Number stays a string,
# Binary is Base64.
ENVELOPE_ATTRIBUTES = {
    "text": {"Type": "String", "Value": "plain value"},
    "price": {"Type": "Number", "Value": "99.12"},
    "blob": {"Type": "Binary", "Value": "AgME"},
    "tags": {"Type": "String.Array", "Value": '["a", "b", 3]'},
    "labelled": {"Type": "String.custom", "Value": "with label"},
}

STANDARD_ORDER = [
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
]
FIFO_ORDER = ["Type", "MessageId", "SequenceNumber", "TopicArn", "Subject", "Message", "Timestamp", "UnsubscribeURL", "MessageAttributes"]


def envelope(message):
    """The SQS body as an SNS notification, keys in the order they were written."""
    pairs = json.loads(message["Body"], object_pairs_hook=lambda p: p)
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), keys
    doc = json.loads(message["Body"])
    return doc, keys


def in_order(keys, order):
    return [k for k in order if k in keys] == keys


def subscribe_queue(sns, sqs, topic, name, **attributes):
    queue_url, queue_arn = sqs_queue(sqs, name, topic, **({"FifoQueue": "true"} if name.endswith(".fifo") else {}))
    sub = sns.subscribe(
        TopicArn=topic,
        Protocol="sqs",
        Endpoint=queue_arn,
        Attributes={k: v for k, v in attributes.items()},
        ReturnSubscriptionArn=True,
    )["SubscriptionArn"]
    return queue_url, queue_arn, sub


# --- the envelope and its signature ---------------------------------------------------------------


def test_envelope_field_by_field_and_signature_v1(sns, sqs, control, url):
    topic = sns.create_topic(Name="orders")["TopicArn"]
    queue_url, queue_arn, sub = subscribe_queue(sns, sqs, topic, "orders-q")
    assert sub.startswith(topic + ":") and UUID.match(sub[len(topic) + 1 :]), sub

    attributes = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
    assert attributes["SubscriptionArn"] == sub
    assert attributes["TopicArn"] == topic
    assert attributes["Protocol"] == "sqs"
    assert attributes["Endpoint"] == queue_arn
    assert attributes["Owner"] == ACCOUNT
    assert attributes["PendingConfirmation"] == "false"
    assert attributes["RawMessageDelivery"] == "false"
    listed = sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]
    assert listed == [{"SubscriptionArn": sub, "Owner": ACCOUNT, "Protocol": "sqs", "Endpoint": queue_arn, "TopicArn": topic}]
    # Subscribing the same endpoint again is idempotent.
    assert sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)["SubscriptionArn"] == sub
    assert sns.list_subscriptions()["Subscriptions"] == listed

    now = control.clock()["now"]  # the manual clock stands still: this is the publish time
    published = sns.publish(TopicArn=topic, Message=MESSAGE, Subject="Order shipped", MessageAttributes=ATTRIBUTES)
    assert UUID.match(published["MessageId"]), published
    assert "SequenceNumber" not in published
    control.advance(0)

    got = receive_and_delete(sqs, queue_url, MessageAttributeNames=["All"], AttributeNames=["All"])
    assert len(got) == 1, got
    m = got[0]
    assert "MessageAttributes" not in m  # the attributes travel inside the envelope
    assert m["MD5OfBody"] == md5(m["Body"])
    doc, keys = envelope(m)
    assert keys == STANDARD_ORDER, keys
    assert doc["Type"] == "Notification"
    assert doc["MessageId"] == published["MessageId"]
    assert doc["TopicArn"] == topic
    assert doc["Subject"] == "Order shipped"
    assert doc["Message"] == MESSAGE
    assert TIMESTAMP.match(doc["Timestamp"]) and doc["Timestamp"] == now, (doc["Timestamp"], now)
    assert doc["SignatureVersion"] == "1"
    cert_url = urlsplit(doc["SigningCertURL"])
    assert f"{cert_url.scheme}://{cert_url.netloc}" == url
    assert cert_url.path.startswith("/SimpleNotificationService-") and cert_url.path.endswith(".pem"), cert_url
    unsubscribe = urlsplit(doc["UnsubscribeURL"])
    assert f"{unsubscribe.scheme}://{unsubscribe.netloc}" == url and unsubscribe.path == "/"
    assert query_param(doc["UnsubscribeURL"], "Action") == "Unsubscribe"
    assert query_param(doc["UnsubscribeURL"], "SubscriptionArn") == sub
    assert doc["MessageAttributes"] == ENVELOPE_ATTRIBUTES

    verify_signature(doc, expected_version="1")
    assert signature_fails(doc, hashes.SHA256())  # version 1 is SHA1, not SHA256
    for field, value in [("Message", MESSAGE + "!"), ("Subject", "Order lost"), ("Timestamp", "2000-01-01T00:00:00.000Z")]:
        assert signature_fails({**doc, field: value}, hashes.SHA1()), f"a changed {field} still verified"
    # Unsigned fields may change without breaking the signature.
    verify_signature({**doc, "UnsubscribeURL": "elsewhere", "MessageAttributes": {}})


def test_signature_version_2(sns, sqs, control):
    topic = sns.create_topic(Name="signed")["TopicArn"]
    queue_url, _, _ = subscribe_queue(sns, sqs, topic, "signed-q")
    sns.set_topic_attributes(TopicArn=topic, AttributeName="SignatureVersion", AttributeValue="2")
    assert sns.get_topic_attributes(TopicArn=topic)["Attributes"]["SignatureVersion"] == "2"

    published = sns.publish(TopicArn=topic, Message="no subject here")
    control.advance(0)
    got = receive_and_delete(sqs, queue_url)
    assert len(got) == 1, got
    doc, keys = envelope(got[0])
    assert "Subject" not in doc and "MessageAttributes" not in doc
    assert in_order(keys, STANDARD_ORDER), keys
    assert doc["MessageId"] == published["MessageId"]
    verify_signature(doc, expected_version="2")
    assert signature_fails(doc, hashes.SHA1())  # version 2 is SHA256, not SHA1

    # Back to version 1.
    sns.set_topic_attributes(TopicArn=topic, AttributeName="SignatureVersion", AttributeValue="1")
    sns.publish(TopicArn=topic, Message="again", Subject="s")
    control.advance(0)
    doc, _ = envelope(receive_and_delete(sqs, queue_url)[0])
    verify_signature(doc, expected_version="1")


def test_message_structure_json(sns, sqs, control):
    topic = sns.create_topic(Name="structured")["TopicArn"]
    queue_url, _, _ = subscribe_queue(sns, sqs, topic, "structured-q")
    sns.publish(
        TopicArn=topic,
        MessageStructure="json",
        Message=json.dumps({"default": "for everyone", "sqs": "for queues", "email": "for mail"}),
    )
    control.advance(0)
    doc, _ = envelope(receive_and_delete(sqs, queue_url)[0])
    assert doc["Message"] == "for queues"
    verify_signature(doc)


# --- raw message delivery -------------------------------------------------------------------------


def test_raw_delivery_maps_attributes(sns, sqs, control):
    topic = sns.create_topic(Name="raw")["TopicArn"]
    queue_url, _, sub = subscribe_queue(sns, sqs, topic, "raw-q", RawMessageDelivery="true")
    assert sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]["RawMessageDelivery"] == "true"

    sns.publish(TopicArn=topic, Message=MESSAGE, Subject="ignored when raw", MessageAttributes=ATTRIBUTES)
    control.advance(0)
    got = receive_and_delete(sqs, queue_url, MessageAttributeNames=["All"])
    assert len(got) == 1, got
    m = got[0]
    assert m["Body"] == MESSAGE
    assert m["MD5OfBody"] == md5(MESSAGE)
    received = {
        name: {k: v for k, v in value.items() if k in ("DataType", "StringValue", "BinaryValue")}
        for name, value in m["MessageAttributes"].items()
    }
    assert received == ATTRIBUTES
    assert m["MD5OfMessageAttributes"] == md5_of_attributes(ATTRIBUTES)

    # Turned off again: the envelope comes back.
    sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="RawMessageDelivery", AttributeValue="false")
    sns.publish(TopicArn=topic, Message="wrapped")
    control.advance(0)
    doc, _ = envelope(receive_and_delete(sqs, queue_url)[0])
    assert doc["Type"] == "Notification" and doc["Message"] == "wrapped"


# --- FIFO topic to FIFO queue ---------------------------------------------------------------------


def test_fifo_topic_to_fifo_queue(sns, sqs, control):
    topic = sns.create_topic(
        Name="orders.fifo", Attributes={"FifoTopic": "true", "ContentBasedDeduplication": "true"}
    )["TopicArn"]
    fifo_url, _, _ = subscribe_queue(sns, sqs, topic, "orders-q.fifo")
    # A standard queue may subscribe to a FIFO topic too; it sees SNS's own deduplication.
    std_url, _, _ = subscribe_queue(sns, sqs, topic, "orders-std")

    sent = [
        ("Test", "g1", None, sns.publish(TopicArn=topic, Message="Test", MessageGroupId="g1", Subject="first")),
        ("second", "g1", None, sns.publish(TopicArn=topic, Message="second", MessageGroupId="g1")),
        ("other", "g2", "explicit-1", sns.publish(TopicArn=topic, Message="other", MessageGroupId="g2", MessageDeduplicationId="explicit-1")),
    ]
    for *_, answer in sent:
        assert UUID.match(answer["MessageId"]) and answer["SequenceNumber"].isdigit(), answer
    sequence = [int(answer["SequenceNumber"]) for *_, answer in sent]
    assert sequence[0] < sequence[1], sequence  # increasing within a group

    # Duplicates within 5 minutes are accepted but not delivered: same body (content-based) in the
    # same or another group (topic-wide deduplication scope), or the same explicit id.
    for kwargs in [
        dict(Message="Test", MessageGroupId="g1"),
        dict(Message="Test", MessageGroupId="g3"),
        dict(Message="different body", MessageGroupId="g2", MessageDeduplicationId="explicit-1"),
    ]:
        assert sns.publish(TopicArn=topic, **kwargs)["MessageId"]
    control.advance(0)

    fifo_got = receive_and_delete(sqs, fifo_url, AttributeNames=["All"], MessageAttributeNames=["All"])
    assert len(fifo_got) == 3, [m["Body"] for m in fifo_got]
    by_group = {}
    for m in fifo_got:
        doc, keys = envelope(m)
        by_group.setdefault(m["Attributes"]["MessageGroupId"], []).append(doc["Message"])
        assert in_order(keys, FIFO_ORDER), keys
        # FIFO notifications are not signed.
        assert not {"SignatureVersion", "Signature", "SigningCertURL"} & set(keys), keys
        body, group, dedup, answer = next(s for s in sent if s[0] == doc["Message"])
        assert doc["Type"] == "Notification"
        assert doc["MessageId"] == answer["MessageId"]
        assert doc["SequenceNumber"] == answer["SequenceNumber"]
        assert doc["TopicArn"] == topic
        assert query_param(doc["UnsubscribeURL"], "Action") == "Unsubscribe"
        assert m["Attributes"]["MessageGroupId"] == group
        assert m["Attributes"]["MessageDeduplicationId"] == (dedup or hashlib.sha256(body.encode()).hexdigest())
        if body == "Test":
            assert doc["Subject"] == "first"
    assert by_group == {"g1": ["Test", "second"], "g2": ["other"]}

    std_got = receive_and_delete(sqs, std_url, AttributeNames=["All"])
    assert sorted(envelope(m)[0]["Message"] for m in std_got) == ["Test", "other", "second"]
    for m in std_got:
        assert "MessageGroupId" not in m["Attributes"], m["Attributes"]  # not passed to standard queues

    # Still inside the 5-minute window (299 s after the first publish): still a duplicate.
    control.advance(299)
    sns.publish(TopicArn=topic, Message="Test", MessageGroupId="g1")
    control.advance(0)
    assert receive_and_delete(sqs, std_url) == []
    assert receive_and_delete(sqs, fifo_url) == []

    # Past the window: delivered again, with a later sequence number.
    control.advance(2)
    again = sns.publish(TopicArn=topic, Message="Test", MessageGroupId="g1")
    control.advance(0)
    fifo_again = receive_and_delete(sqs, fifo_url, AttributeNames=["All"])
    assert [envelope(m)[0]["MessageId"] for m in fifo_again] == [again["MessageId"]]
    assert int(again["SequenceNumber"]) > sequence[1]
    assert len(receive_and_delete(sqs, std_url)) == 1


def test_fifo_duplicate_recorded_in_delivery_log(sns, sqs, control):
    """docs/control-api.md: the delivery log records `deduplicated` (suppressed as a duplicate at publish)."""
    topic = sns.create_topic(
        Name="logged.fifo", Attributes={"FifoTopic": "true", "ContentBasedDeduplication": "true"}
    )["TopicArn"]
    queue_url, _, _ = subscribe_queue(sns, sqs, topic, "logged-q.fifo")
    first = sns.publish(TopicArn=topic, Message="once", MessageGroupId="g")
    duplicate = sns.publish(TopicArn=topic, Message="once", MessageGroupId="g")
    control.advance(0)
    assert [envelope(m)[0]["MessageId"] for m in receive_and_delete(sqs, queue_url)] == [first["MessageId"]]
    r = control.get("/deliveries", event="deduplicated")
    assert r.status_code == 200, r.text
    records = r.json()["records"]
    assert records and all(rec["event"] == "deduplicated" for rec in records), records
    assert duplicate["MessageId"] in {rec["messageId"] for rec in records} or first["MessageId"] in {
        rec["messageId"] for rec in records
    }, records


def test_fifo_order_within_a_group(sns, sqs, control):
    topic = sns.create_topic(
        Name="ordered.fifo", Attributes={"FifoTopic": "true", "ContentBasedDeduplication": "true"}
    )["TopicArn"]
    queue_url, _, _ = subscribe_queue(sns, sqs, topic, "ordered-q.fifo")
    bodies = [f"step-{i}" for i in range(8)]
    for body in bodies:
        sns.publish(TopicArn=topic, Message=body, MessageGroupId="only")
    control.advance(0)
    got = []
    for _ in range(20):  # one group: each receive hands out the next messages in order
        batch = receive_and_delete(sqs, queue_url)
        if not batch:
            break
        got.extend(envelope(m)[0]["Message"] for m in batch)
    assert got == bodies


def test_fifo_errors(sns, sqs):
    fifo = sns.create_topic(Name="strict.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    with raises_code("InvalidParameter", 400) as error:
        sns.publish(TopicArn=fifo, Message="m", MessageDeduplicationId="d")
    assert error.value.response["Error"]["Message"] == (
        "Invalid parameter: The MessageGroupId parameter is required for FIFO topics"
    )
    with raises_code("InvalidParameter", 400) as error:  # no content-based dedup and no explicit id
        sns.publish(TopicArn=fifo, Message="m", MessageGroupId="g")
    assert error.value.response["Error"]["Message"] == (
        "Invalid parameter: The topic should either have ContentBasedDeduplication enabled "
        "or MessageDeduplicationId provided explicitly"
    )
    assert sns.publish(TopicArn=fifo, Message="m", MessageGroupId="g", MessageDeduplicationId="d")["SequenceNumber"]

    standard = sns.create_topic(Name="loose")["TopicArn"]
    _, fifo_queue_arn = sqs_queue(sqs, "loose-q.fifo", standard, FifoQueue="true")
    with raises_code("InvalidParameter", 400):  # FIFO queues can not subscribe to standard topics
        sns.subscribe(TopicArn=standard, Protocol="sqs", Endpoint=fifo_queue_arn)


# --- filter policies ------------------------------------------------------------------------------


def test_filter_policy_on_attributes(sns, sqs, control):
    topic = sns.create_topic(Name="filtered")["TopicArn"]
    policy = {"color": ["red", "blue"], "size": [{"numeric": [">", 10, "<=", 100]}]}
    filtered_url, _, sub = subscribe_queue(sns, sqs, topic, "filtered-q", FilterPolicy=json.dumps(policy))
    everything_url, _, _ = subscribe_queue(sns, sqs, topic, "everything-q")
    attributes = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
    assert json.loads(attributes["FilterPolicy"]) == policy

    def attrs(color=None, size=None, color_type="String"):
        out = {}
        if color is not None:
            out["color"] = {"DataType": color_type, "StringValue": color}
        if size is not None:
            out["size"] = {"DataType": "Number", "StringValue": str(size)}
        return out

    cases = [
        ("red-50", attrs("red", 50), True),
        ("green-50", attrs("green", 50), False),
        ("blue-500", attrs("blue", 500), False),
        ("no-attributes", {}, False),
        ("only-color", attrs("red"), False),
        ("array-11", attrs('["green", "red"]', 11, "String.Array"), True),
        ("blue-100", attrs("blue", 100), True),
    ]
    ids = {}
    for body, message_attributes, _ in cases:
        ids[body] = sns.publish(TopicArn=topic, Message=body, MessageAttributes=message_attributes)["MessageId"]
    control.advance(0)

    delivered = sorted(envelope(m)[0]["Message"] for m in receive_and_delete(sqs, filtered_url))
    assert delivered == sorted(body for body, _, passes in cases if passes)
    assert len(receive_and_delete(sqs, everything_url)) == len(cases)

    # A filtered-out message is not a failed delivery.
    for body, _, passes in cases:
        if not passes:
            records = control.get("/deliveries", messageId=ids[body]).json()["records"]
            assert [r for r in records if r["source"] == sub] == [], records


def test_filter_policy_on_body(sns, sqs, control):
    topic = sns.create_topic(Name="bodies")["TopicArn"]
    policy = {"order": {"kind": [{"prefix": "big"}], "total": [{"numeric": [">=", 100]}]}}
    queue_url, _, sub = subscribe_queue(
        sns, sqs, topic, "bodies-q", FilterPolicyScope="MessageBody", FilterPolicy=json.dumps(policy)
    )
    attributes = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
    assert attributes["FilterPolicyScope"] == "MessageBody"
    assert json.loads(attributes["FilterPolicy"]) == policy

    passing = json.dumps({"order": {"kind": "big-box", "total": 150, "extra": True}})
    for body in [
        passing,
        json.dumps({"order": {"kind": "small", "total": 150}}),
        json.dumps({"order": {"kind": "bigger", "total": 5}}),
        json.dumps({"kind": "big", "total": 500}),
        "not json at all",
    ]:
        # Attributes do not matter in body scope.
        sns.publish(TopicArn=topic, Message=body, MessageAttributes={"kind": {"DataType": "String", "StringValue": "big"}})
    control.advance(0)
    assert [envelope(m)[0]["Message"] for m in receive_and_delete(sqs, queue_url)] == [passing]

    # Changing the policy takes effect for the next publish.
    sns.set_subscription_attributes(
        SubscriptionArn=sub, AttributeName="FilterPolicy", AttributeValue=json.dumps({"kind": [{"anything-but": ["big"]}]})
    )
    sns.publish(TopicArn=topic, Message=json.dumps({"kind": "small"}))
    sns.publish(TopicArn=topic, Message=json.dumps({"kind": "big"}))
    control.advance(0)
    assert [json.loads(envelope(m)[0]["Message"]) for m in receive_and_delete(sqs, queue_url)] == [{"kind": "small"}]


def test_filter_policy_errors(sns, sqs):
    topic = sns.create_topic(Name="picky")["TopicArn"]
    _, queue_arn = sqs_queue(sqs, "picky-q", topic)
    with raises_code("InvalidParameter", 400):
        sns.subscribe(
            TopicArn=topic,
            Protocol="sqs",
            Endpoint=queue_arn,
            Attributes={"FilterPolicy": json.dumps({"a": [{"wrong-operator": 1}]})},
        )
    sub = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn, ReturnSubscriptionArn=True)["SubscriptionArn"]
    with raises_code("InvalidParameter", 400) as error:
        sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="FilterPolicyScope", AttributeValue="Everything")
    assert error.value.response["Error"]["Message"] == (
        "Invalid parameter: FilterPolicyScope: Invalid value [Everything]. Please use either MessageBody or MessageAttributes"
    )
    with raises_code("InvalidParameter", 400) as error:
        sns.set_subscription_attributes(
            SubscriptionArn=sub,
            AttributeName="FilterPolicy",
            AttributeValue=json.dumps({k: ["x"] for k in "abcdef"}),
        )
    assert error.value.response["Error"]["Message"] == (
        "Invalid parameter: FilterPolicy: Filter policy can not have more than 5 keys"
    )
    with raises_code("InvalidParameter", 400):  # nested policy in attribute scope
        sns.set_subscription_attributes(
            SubscriptionArn=sub, AttributeName="FilterPolicy", AttributeValue=json.dumps({"a": {"b": ["c"]}})
        )


# --- PublishBatch ---------------------------------------------------------------------------------


def test_publish_batch(sns, sqs, control):
    topic = sns.create_topic(Name="batched")["TopicArn"]
    queue_url, _, _ = subscribe_queue(sns, sqs, topic, "batched-q")
    entries = [
        {"Id": "one", "Message": "first"},
        {
            "Id": "two",
            "Message": "second",
            "Subject": "Second",
            "MessageAttributes": {"k": {"DataType": "String", "StringValue": "v"}},
        },
        {"Id": "three-_3", "Message": "third"},
    ]
    answer = sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=entries)
    assert answer.get("Failed", []) == []
    ids = {e["Id"]: e["MessageId"] for e in answer["Successful"]}
    assert set(ids) == {"one", "two", "three-_3"}
    assert len(set(ids.values())) == 3 and all(UUID.match(i) for i in ids.values())
    control.advance(0)

    docs = {}
    for m in receive_and_delete(sqs, queue_url):
        doc, keys = envelope(m)
        assert in_order(keys, STANDARD_ORDER), keys
        verify_signature(doc)
        docs[doc["MessageId"]] = doc
    assert set(docs) == set(ids.values())
    assert docs[ids["one"]]["Message"] == "first" and "Subject" not in docs[ids["one"]]
    assert docs[ids["two"]]["Subject"] == "Second"
    assert docs[ids["two"]]["MessageAttributes"] == {"k": {"Type": "String", "Value": "v"}}
    assert docs[ids["three-_3"]]["Message"] == "third"


def test_publish_batch_fifo(sns, sqs, control):
    topic = sns.create_topic(
        Name="batched.fifo", Attributes={"FifoTopic": "true", "ContentBasedDeduplication": "true"}
    )["TopicArn"]
    queue_url, _, _ = subscribe_queue(sns, sqs, topic, "batched-q.fifo")
    entries = [{"Id": f"e{i}", "Message": f"m{i}", "MessageGroupId": "g"} for i in range(4)]
    entries.append({"Id": "dup", "Message": "m0", "MessageGroupId": "g"})  # a duplicate of e0
    answer = sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=entries)
    assert answer.get("Failed", []) == []
    successful = {e["Id"]: e for e in answer["Successful"]}
    assert set(successful) == {e["Id"] for e in entries}
    sequence = [int(successful[f"e{i}"]["SequenceNumber"]) for i in range(4)]
    assert sequence == sorted(sequence) and len(set(sequence)) == 4
    control.advance(0)
    got = []
    for _ in range(10):
        batch = receive_and_delete(sqs, queue_url)
        if not batch:
            break
        got.extend(envelope(m)[0]["Message"] for m in batch)
    assert got == ["m0", "m1", "m2", "m3"]


def test_publish_batch_errors(sns):
    topic = sns.create_topic(Name="batch-errors")["TopicArn"]
    with raises_code("TooManyEntriesInBatchRequest", 400):
        sns.publish_batch(
            TopicArn=topic, PublishBatchRequestEntries=[{"Id": f"e{i}", "Message": "m"} for i in range(11)]
        )
    with raises_code("BatchEntryIdsNotDistinct", 400):
        sns.publish_batch(
            TopicArn=topic, PublishBatchRequestEntries=[{"Id": "same", "Message": "a"}, {"Id": "same", "Message": "b"}]
        )
    with raises_code("InvalidBatchEntryId", 400):
        sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[{"Id": "not valid!", "Message": "m"}])
    with raises_code("BatchRequestTooLong", 400):
        sns.publish_batch(
            TopicArn=topic,
            PublishBatchRequestEntries=[
                {"Id": "a", "Message": "x" * 131_072},
                {"Id": "b", "Message": "x" * 131_073},
            ],
        )
    with raises_code("NotFound", 404):
        sns.publish_batch(TopicArn=topic_arn("missing"), PublishBatchRequestEntries=[{"Id": "a", "Message": "m"}])


@pytest.mark.parametrize("raw", ["false", "true"])
def test_unsubscribe_stops_delivery(sns, sqs, control, raw):
    topic = sns.create_topic(Name="leaving")["TopicArn"]
    queue_url, _, sub = subscribe_queue(sns, sqs, topic, "leaving-q", RawMessageDelivery=raw)
    sns.publish(TopicArn=topic, Message="before")
    sns.unsubscribe(SubscriptionArn=sub)
    sns.publish(TopicArn=topic, Message="after")
    control.advance(0)
    got = receive_and_delete(sqs, queue_url)
    assert len(got) == 1
    assert (got[0]["Body"] if raw == "true" else envelope(got[0])[0]["Message"]) == "before"
    assert sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"] == []
    with raises_code("NotFound", 404):
        sns.get_subscription_attributes(SubscriptionArn=sub)


def test_publish_by_target_arn_and_unsubscribe_url(sns, sqs, control):
    topic = sns.create_topic(Name="targeted")["TopicArn"]
    queue_url, _, sub = subscribe_queue(sns, sqs, topic, "targeted-q")
    published = sns.publish(TargetArn=topic, Message="via TargetArn")
    control.advance(0)
    got = receive_and_delete(sqs, queue_url)
    assert len(got) == 1
    doc, _ = envelope(got[0])
    assert doc["MessageId"] == published["MessageId"] and doc["Message"] == "via TargetArn"

    # The UnsubscribeURL in the envelope works with a plain GET.
    r = http_get(doc["UnsubscribeURL"])
    assert r.status_code == 200, r.text
    assert "UnsubscribeResponse" in r.text, r.text
    assert sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"] == []
    with raises_code("NotFound", 404):
        sns.get_subscription_attributes(SubscriptionArn=sub)


def test_subject_rules(sns):
    topic = sns.create_topic(Name="subjects")["TopicArn"]
    assert sns.publish(TopicArn=topic, Message="m", Subject="x" * 99)["MessageId"]
    for subject in ["", "two\nlines", "x" * 100]:
        with raises_code("InvalidParameter", 400):
            sns.publish(TopicArn=topic, Message="m", Subject=subject)
