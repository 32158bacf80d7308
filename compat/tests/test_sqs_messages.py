"""SQS messages over both protocols: message attributes of every data type and their MD5 digests,
the AWSTraceHeader system attribute, system attributes on receive, and the three batch operations
with their per-entry failures and whole-batch errors."""

import base64

import pytest
from botocore.config import Config

from sqs_helpers import md5, md5_of_attributes, messages, raises_code, receive_all

ATTRIBUTES = {
    "text": {"DataType": "String", "StringValue": "héllo ✓"},
    "count": {"DataType": "Number", "StringValue": "42"},
    "ratio": {"DataType": "Number.float", "StringValue": "-3.25e10"},
    "blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01\x02\xff binary"},
    "image": {"DataType": "Binary.png", "BinaryValue": b"\x89PNG\r\n\x1a\n"},
    "order.id": {"DataType": "String.uuid", "StringValue": "6f1c8a43-0a51-4d6f-9c3e-3b9c1b1f0d2e"},
}


def test_md5_of_attributes_matches_the_published_vectors():
    """The helper the tests check the server with, against the vectors in the spec (D4)."""
    one = {"attribName1": {"DataType": "String", "StringValue": "attribValue 1"}}
    two = {"customNumberTypeAttrib": {"DataType": "Number.float", "StringValue": "4563442423554324324264524243.32543234"}}
    three = {"binaryAttribute": {"DataType": "Binary", "BinaryValue": b"Hello binary world!"}}
    assert md5_of_attributes(one) == "19e27d4e946b072f3f58da80d94fd778"
    assert md5_of_attributes(two) == "9fe1b90bbd9965bdf77bac517c7d2495"
    assert md5_of_attributes(three) == "31a92b15d92f8db860eda32aceb656c3"
    assert md5_of_attributes({**one, **two, **three}) == "c932db14a896c663f83c260297d594ff"


def test_message_attributes_of_every_type(sqs_any):
    queue_url = sqs_any.create_queue(QueueName="attributes")["QueueUrl"]
    body = "with attributes"
    sent = sqs_any.send_message(QueueUrl=queue_url, MessageBody=body, MessageAttributes=ATTRIBUTES)
    assert sent["MD5OfMessageBody"] == md5(body)
    assert sent["MD5OfMessageAttributes"] == md5_of_attributes(ATTRIBUTES)

    got = messages(
        sqs_any.receive_message(QueueUrl=queue_url, MessageAttributeNames=["All"], WaitTimeSeconds=0)
    )
    assert len(got) == 1
    m = got[0]
    assert m["Body"] == body
    assert m["MD5OfBody"] == md5(body)
    assert m["MessageAttributes"] == ATTRIBUTES
    assert m["MD5OfMessageAttributes"] == md5_of_attributes(ATTRIBUTES)


@pytest.mark.parametrize(
    "names, expected",
    [
        (["text", "count"], {"text", "count"}),
        ([".*"], set(ATTRIBUTES)),
        (["order.*"], {"order.id"}),
        (["nothing-like-it"], set()),
    ],
)
def test_message_attribute_selection(sqs_any, names, expected):
    queue_url = sqs_any.create_queue(QueueName="attribute-selection")["QueueUrl"]
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="b", MessageAttributes=ATTRIBUTES)
    m = messages(sqs_any.receive_message(QueueUrl=queue_url, MessageAttributeNames=names, WaitTimeSeconds=0))[0]
    returned = m.get("MessageAttributes", {})
    assert set(returned) == expected
    if expected:
        # The digest covers what was returned, so a client can check what it got.
        assert m["MD5OfMessageAttributes"] == md5_of_attributes(returned)


def test_no_attributes_unless_asked(sqs_any):
    queue_url = sqs_any.create_queue(QueueName="attributes-unasked")["QueueUrl"]
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="b", MessageAttributes=ATTRIBUTES)
    m = messages(sqs_any.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0))[0]
    assert "MessageAttributes" not in m
    assert "Attributes" not in m


@pytest.mark.parametrize(
    "attributes",
    [
        {"n": {"DataType": "Number", "StringValue": "not a number"}},
        {"s": {"DataType": "String", "StringValue": ""}},
        {"t": {"DataType": "Blob", "StringValue": "x"}},
        {"AWS.reserved": {"DataType": "String", "StringValue": "x"}},
        {f"a{i}": {"DataType": "String", "StringValue": "x"} for i in range(11)},
    ],
    ids=["not-a-number", "empty", "unknown-type", "reserved-name", "eleven"],
)
def test_invalid_message_attributes(sqs_any, attributes):
    queue_url = sqs_any.create_queue(QueueName="bad-attributes")["QueueUrl"]
    with raises_code("InvalidParameterValue", 400):
        sqs_any.send_message(QueueUrl=queue_url, MessageBody="b", MessageAttributes=attributes)
    assert messages(sqs_any.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0)) == []


def test_aws_trace_header_and_system_attributes(sqs_any, control):
    queue_url = sqs_any.create_queue(QueueName="system-attributes")["QueueUrl"]
    trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
    system = {"AWSTraceHeader": {"DataType": "String", "StringValue": trace}}
    sent_at = control.clock()["epochMillis"]
    sent = sqs_any.send_message(QueueUrl=queue_url, MessageBody="traced", MessageSystemAttributes=system)
    assert sent["MD5OfMessageSystemAttributes"] == md5_of_attributes(system)

    control.advance(5)
    m = messages(sqs_any.receive_message(QueueUrl=queue_url, AttributeNames=["All"], WaitTimeSeconds=0))[0]
    attributes = m["Attributes"]
    assert attributes["AWSTraceHeader"] == trace
    assert attributes["SentTimestamp"] == str(sent_at)
    assert attributes["ApproximateFirstReceiveTimestamp"] == str(sent_at + 5000)
    assert attributes["ApproximateReceiveCount"] == "1"
    assert attributes["SenderId"]
    assert "MessageGroupId" not in attributes  # a standard queue

    control.advance(30)
    m = messages(
        sqs_any.receive_message(
            QueueUrl=queue_url, AttributeNames=["ApproximateReceiveCount", "AWSTraceHeader"], WaitTimeSeconds=0
        )
    )[0]
    assert m["Attributes"] == {"ApproximateReceiveCount": "2", "AWSTraceHeader": trace}


def test_json_client_selects_system_attributes_by_their_new_name(sqs):
    queue_url = sqs.create_queue(QueueName="system-attribute-names")["QueueUrl"]
    sqs.send_message(QueueUrl=queue_url, MessageBody="b")
    m = messages(
        sqs.receive_message(QueueUrl=queue_url, MessageSystemAttributeNames=["SentTimestamp"], WaitTimeSeconds=0)
    )[0]
    assert set(m["Attributes"]) == {"SentTimestamp"}


def test_send_message_batch_with_per_entry_failures(sqs_any):
    queue_url = sqs_any.create_queue(QueueName="batch-send")["QueueUrl"]
    attributes = {"k": {"DataType": "String", "StringValue": "v"}}
    result = sqs_any.send_message_batch(
        QueueUrl=queue_url,
        Entries=[
            {"Id": "ok-1", "MessageBody": "first", "MessageAttributes": attributes},
            {"Id": "bad-delay", "MessageBody": "never", "DelaySeconds": 901},
            {"Id": "bad-chars", "MessageBody": "nul \x00 here"},
            {"Id": "ok-2", "MessageBody": "second", "DelaySeconds": 10},
        ],
    )
    successful = {e["Id"]: e for e in result["Successful"]}
    failed = {e["Id"]: e for e in result["Failed"]}
    assert set(successful) == {"ok-1", "ok-2"}
    assert set(failed) == {"bad-delay", "bad-chars"}
    assert successful["ok-1"]["MD5OfMessageBody"] == md5("first")
    assert successful["ok-1"]["MD5OfMessageAttributes"] == md5_of_attributes(attributes)
    assert successful["ok-2"]["MD5OfMessageBody"] == md5("second")
    assert successful["ok-1"]["MessageId"] != successful["ok-2"]["MessageId"]
    assert failed["bad-delay"]["Code"] == "InvalidParameterValue"
    assert failed["bad-delay"]["SenderFault"] is True
    assert failed["bad-delay"]["Message"]
    assert failed["bad-chars"]["Code"] == "InvalidMessageContents"
    assert failed["bad-chars"]["SenderFault"] is True

    # Only the accepted entries were enqueued: one now, one delayed.
    assert [m["Body"] for m in receive_all(sqs_any, queue_url)] == ["first"]


def test_delete_and_change_visibility_batches(sqs_any, control):
    queue_url = sqs_any.create_queue(QueueName="batch-receipts")["QueueUrl"]
    sqs_any.send_message_batch(
        QueueUrl=queue_url, Entries=[{"Id": f"m{i}", "MessageBody": f"body {i}"} for i in range(4)]
    )
    got = receive_all(sqs_any, queue_url, VisibilityTimeout=30)
    assert sorted(m["Body"] for m in got) == [f"body {i}" for i in range(4)]
    handles = {m["Body"]: m["ReceiptHandle"] for m in got}

    result = sqs_any.change_message_visibility_batch(
        QueueUrl=queue_url,
        Entries=[
            {"Id": "now", "ReceiptHandle": handles["body 0"], "VisibilityTimeout": 0},
            {"Id": "later", "ReceiptHandle": handles["body 1"], "VisibilityTimeout": 300},
            {"Id": "bogus", "ReceiptHandle": "not-a-handle", "VisibilityTimeout": 0},
            {"Id": "too-long", "ReceiptHandle": handles["body 2"], "VisibilityTimeout": 43_201},
        ],
    )
    assert sorted(e["Id"] for e in result["Successful"]) == ["later", "now"]
    failed = {e["Id"]: e for e in result["Failed"]}
    assert set(failed) == {"bogus", "too-long"}
    assert failed["bogus"]["Code"] == "ReceiptHandleIsInvalid"
    assert failed["bogus"]["SenderFault"] is True
    assert failed["too-long"]["Code"] == "InvalidParameterValue"

    # "body 0" is visible at once; 2 and 3 after their 30 s; 1 only after 300 s.
    again = receive_all(sqs_any, queue_url, VisibilityTimeout=600)
    assert [m["Body"] for m in again] == ["body 0"]
    control.advance(30)
    again += receive_all(sqs_any, queue_url, VisibilityTimeout=600)
    assert sorted(m["Body"] for m in again) == ["body 0", "body 2", "body 3"]

    latest = {m["Body"]: m["ReceiptHandle"] for m in again}
    result = sqs_any.delete_message_batch(
        QueueUrl=queue_url,
        Entries=[
            {"Id": "d0", "ReceiptHandle": latest["body 0"]},
            {"Id": "d2", "ReceiptHandle": latest["body 2"]},
            {"Id": "d3", "ReceiptHandle": latest["body 3"]},
            {"Id": "bogus", "ReceiptHandle": "not-a-handle"},
        ],
    )
    assert sorted(e["Id"] for e in result["Successful"]) == ["d0", "d2", "d3"]
    assert [(e["Id"], e["Code"], e["SenderFault"]) for e in result["Failed"]] == [
        ("bogus", "ReceiptHandleIsInvalid", True)
    ]

    control.advance(300)
    left = receive_all(sqs_any, queue_url)
    assert [m["Body"] for m in left] == ["body 1"]


@pytest.fixture(scope="module", params=["json", "query"])
def unvalidated(request, make_client):
    """A client that lets through what botocore would refuse itself, so the server answers."""
    return make_client("sqs", query=request.param == "query", config=Config(
        parameter_validation=False, retries={"mode": "standard", "max_attempts": 1}))


def batches(entries):
    """The same entries for each batch operation (send, delete, change visibility)."""
    return [
        ("send_message_batch", [{"Id": i, "MessageBody": "b"} for i in entries]),
        ("delete_message_batch", [{"Id": i, "ReceiptHandle": "h"} for i in entries]),
        ("change_message_visibility_batch", [{"Id": i, "ReceiptHandle": "h", "VisibilityTimeout": 1} for i in entries]),
    ]


@pytest.mark.parametrize(
    "ids, code",
    [
        ([f"id{i}" for i in range(11)], "AWS.SimpleQueueService.TooManyEntriesInBatchRequest"),
        ([], "AWS.SimpleQueueService.EmptyBatchRequest"),
        (["same", "other", "same"], "AWS.SimpleQueueService.BatchEntryIdsNotDistinct"),
        (["has space"], "AWS.SimpleQueueService.InvalidBatchEntryId"),
        (["x" * 81], "AWS.SimpleQueueService.InvalidBatchEntryId"),
    ],
    ids=["eleven", "empty", "repeated", "bad-char", "too-long"],
)
def test_whole_batch_errors(unvalidated, ids, code):
    queue_url = unvalidated.create_queue(QueueName="batch-errors")["QueueUrl"]
    for operation, entries in batches(ids):
        with raises_code(code, 400) as error:
            getattr(unvalidated, operation)(QueueUrl=queue_url, Entries=entries)
        shape = code.rsplit(".", 1)[1]
        assert isinstance(error.value, getattr(unvalidated.exceptions, shape)), operation
    # No entry of a rejected batch was sent.
    assert messages(unvalidated.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0)) == []


def test_batch_request_too_long(sqs_any):
    queue_url = sqs_any.create_queue(QueueName="batch-too-long")["QueueUrl"]
    big = "x" * (200 * 1024)
    entries = [{"Id": f"e{i}", "MessageBody": big} for i in range(6)]  # 1,228,800 bytes
    with raises_code("AWS.SimpleQueueService.BatchRequestTooLong", 400):
        sqs_any.send_message_batch(QueueUrl=queue_url, Entries=entries)
    assert messages(sqs_any.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0)) == []


def test_binary_attribute_round_trip_is_exact(sqs_any):
    queue_url = sqs_any.create_queue(QueueName="binary")["QueueUrl"]
    raw = bytes(range(256))
    attributes = {"all-bytes": {"DataType": "Binary", "BinaryValue": raw}}
    sent = sqs_any.send_message(QueueUrl=queue_url, MessageBody=base64.b64encode(raw).decode(), MessageAttributes=attributes)
    assert sent["MD5OfMessageAttributes"] == md5_of_attributes(attributes)
    m = messages(sqs_any.receive_message(QueueUrl=queue_url, MessageAttributeNames=["All"], WaitTimeSeconds=0))[0]
    assert m["MessageAttributes"]["all-bytes"]["BinaryValue"] == raw
    assert m["MessageAttributes"]["all-bytes"]["DataType"] == "Binary"


@pytest.mark.parametrize(
    "body",
    [
        "markup <b>&amp;</b> \"quoted\" 'single' ]]>",
        "line\r\nbreaks\rand\ttabs\n",
        "héllo wörld — ✓ 日本語 🚀 \U0010fffd",
        "  leading and trailing spaces  ",
    ],
    ids=["markup", "control-whitespace", "unicode", "spaces"],
)
def test_bodies_survive_both_wires_exactly(sqs_any, body):
    """XML (Query) must escape what its parsers would otherwise change, \\r and markup included."""
    queue_url = sqs_any.create_queue(QueueName="exact-bodies")["QueueUrl"]
    attributes = {"echo": {"DataType": "String", "StringValue": body}}
    sent = sqs_any.send_message(QueueUrl=queue_url, MessageBody=body, MessageAttributes=attributes)
    assert sent["MD5OfMessageBody"] == md5(body)
    assert sent["MD5OfMessageAttributes"] == md5_of_attributes(attributes)
    m = messages(sqs_any.receive_message(QueueUrl=queue_url, MessageAttributeNames=["All"], WaitTimeSeconds=0))[0]
    assert m["Body"] == body
    assert m["MD5OfBody"] == md5(body)
    assert m["MessageAttributes"] == attributes
    assert m["MD5OfMessageAttributes"] == md5_of_attributes(attributes)
