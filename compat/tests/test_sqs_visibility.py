"""Visibility, message size, SSE attributes and concurrency over both protocols, on the virtual clock."""

import json
import threading
from concurrent.futures import ThreadPoolExecutor

from sqs_helpers import arn, counts, messages, raises_code, receive_all


def test_change_message_visibility_restarts_the_timer(sqs_any, control):
    queue_url = sqs_any.create_queue(QueueName="change-visibility")["QueueUrl"]
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="m")
    m = messages(sqs_any.receive_message(QueueUrl=queue_url, VisibilityTimeout=10, WaitTimeSeconds=0))[0]

    control.advance(8)
    sqs_any.change_message_visibility(QueueUrl=queue_url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=20)
    control.advance(19)  # 27 s after the receive, 19 s after the change: still hidden
    assert receive_all(sqs_any, queue_url) == []
    control.advance(1)
    again = receive_all(sqs_any, queue_url, VisibilityTimeout=30)
    assert [x["MessageId"] for x in again] == [m["MessageId"]]

    # Visibility 0 makes it visible at once.
    sqs_any.change_message_visibility(QueueUrl=queue_url, ReceiptHandle=again[0]["ReceiptHandle"], VisibilityTimeout=0)
    assert [x["MessageId"] for x in receive_all(sqs_any, queue_url)] == [m["MessageId"]]


def test_visibility_is_capped_at_twelve_hours_from_the_receive(sqs_any, control):
    queue_url = sqs_any.create_queue(QueueName="visibility-cap")["QueueUrl"]
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="m")
    m = messages(sqs_any.receive_message(QueueUrl=queue_url, VisibilityTimeout=600, WaitTimeSeconds=0))[0]
    control.advance(300)
    with raises_code("InvalidParameterValue", 400):  # 300 + 43,000 > 43,200
        sqs_any.change_message_visibility(QueueUrl=queue_url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=43_000)
    sqs_any.change_message_visibility(QueueUrl=queue_url, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=42_900)
    assert counts(sqs_any, queue_url) == (0, 1, 0)
    control.advance(42_900)
    assert counts(sqs_any, queue_url) == (1, 0, 0)


def test_queue_visibility_default_and_receive_override(sqs_any, control):
    queue_url = sqs_any.create_queue(QueueName="visibility-default", Attributes={"VisibilityTimeout": "5"})["QueueUrl"]
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="m")
    assert len(receive_all(sqs_any, queue_url)) == 1
    control.advance(5)
    assert len(receive_all(sqs_any, queue_url, VisibilityTimeout=100)) == 1
    control.advance(99)
    assert receive_all(sqs_any, queue_url) == []
    control.advance(1)
    got = receive_all(sqs_any, queue_url, AttributeNames=["ApproximateReceiveCount"])
    assert [m["Attributes"]["ApproximateReceiveCount"] for m in got] == ["3"]


def test_maximum_message_size(sqs_any):
    queue_url = sqs_any.create_queue(QueueName="small", Attributes={"MaximumMessageSize": "1024"})["QueueUrl"]
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="x" * 1024)
    with raises_code("InvalidParameterValue", 400):
        sqs_any.send_message(QueueUrl=queue_url, MessageBody="x" * 1025)
    with raises_code("InvalidParameterValue", 400):  # attributes count toward the size
        sqs_any.send_message(
            QueueUrl=queue_url,
            MessageBody="x" * 1000,
            MessageAttributes={"pad": {"DataType": "String", "StringValue": "y" * 100}},
        )
    assert [len(m["Body"]) for m in receive_all(sqs_any, queue_url)] == [1024]


def test_sse_attributes_are_stored_and_returned(sqs_any):
    queue_url = sqs_any.create_queue(
        QueueName="kms",
        Attributes={"KmsMasterKeyId": "alias/aws/sqs", "KmsDataKeyReusePeriodSeconds": "600"},
    )["QueueUrl"]
    attributes = sqs_any.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["All"])["Attributes"]
    assert attributes["KmsMasterKeyId"] == "alias/aws/sqs"
    assert attributes["KmsDataKeyReusePeriodSeconds"] == "600"
    assert attributes["SqsManagedSseEnabled"] == "false"

    sqs_any.set_queue_attributes(QueueUrl=queue_url, Attributes={"KmsMasterKeyId": "", "SqsManagedSseEnabled": "true"})
    attributes = sqs_any.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["All"])["Attributes"]
    assert "KmsMasterKeyId" not in attributes
    assert attributes["SqsManagedSseEnabled"] == "true"


def test_policy_attribute_round_trip(sqs_any):
    queue_url = sqs_any.create_queue(QueueName="policy")["QueueUrl"]
    document = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "topic",
                "Effect": "Allow",
                "Principal": {"Service": "sns.amazonaws.com"},
                "Action": "sqs:SendMessage",
                "Resource": arn("policy"),
            }
        ],
    }
    sqs_any.set_queue_attributes(QueueUrl=queue_url, Attributes={"Policy": json.dumps(document)})
    got = sqs_any.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["Policy"])["Attributes"]
    assert json.loads(got["Policy"]) == document
    with raises_code("InvalidAttributeValue", 400):
        sqs_any.set_queue_attributes(QueueUrl=queue_url, Attributes={"Policy": "{not json"})


def test_fifo_redrive_keeps_the_group(sqs_any, control):
    sqs_any.create_queue(QueueName="dead.fifo", Attributes={"FifoQueue": "true"})
    source_url = sqs_any.create_queue(
        QueueName="live.fifo",
        Attributes={
            "FifoQueue": "true",
            "ContentBasedDeduplication": "true",
            "VisibilityTimeout": "10",
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": arn("dead.fifo"), "maxReceiveCount": 1}),
        },
    )["QueueUrl"]
    dlq_url = sqs_any.get_queue_url(QueueName="dead.fifo")["QueueUrl"]
    for body in ("f1", "f2"):
        sqs_any.send_message(QueueUrl=source_url, MessageBody=body, MessageGroupId="grp")
    assert [m["Body"] for m in receive_all(sqs_any, source_url)] == ["f1", "f2"]
    control.advance(10)
    assert receive_all(sqs_any, source_url) == []
    dead = receive_all(sqs_any, dlq_url, AttributeNames=["All"])
    assert [m["Body"] for m in dead] == ["f1", "f2"]
    for m in dead:
        assert m["Attributes"]["MessageGroupId"] == "grp"
        assert m["Attributes"]["DeadLetterQueueSourceArn"] == arn("live.fifo")
        # A FIFO dead-letter queue replaces the deduplication id with the message id.
        assert m["Attributes"]["MessageDeduplicationId"] == m["MessageId"]


def test_parallel_senders_and_receivers_see_each_message_once(sqs, make_client):
    """JSON and Query clients at once on one queue: with the clock stopped no visibility timeout
    can run out, so every message must be received exactly once, and none lost."""
    queue_url = sqs.create_queue(QueueName="busy", Attributes={"VisibilityTimeout": "60"})["QueueUrl"]
    senders = [make_client("sqs", query=i % 2 == 1) for i in range(4)]
    receivers = [make_client("sqs", query=i % 2 == 0) for i in range(4)]
    per_sender = 50
    sent_all = threading.Event()
    received, lock = [], threading.Lock()

    def send(i):
        client = senders[i]
        for start in range(0, per_sender, 10):
            result = client.send_message_batch(
                QueueUrl=queue_url,
                Entries=[{"Id": f"e{j}", "MessageBody": f"s{i}-{j}"} for j in range(start, start + 10)],
            )
            assert not result.get("Failed"), result
        return per_sender

    def receive(i):
        client, mine = receivers[i], []
        for _ in range(10_000):  # bounded, so a misbehaving server fails the test instead of hanging it
            done = sent_all.is_set()
            got = messages(client.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0))
            mine.extend(m["Body"] for m in got)
            if got:
                result = client.delete_message_batch(
                    QueueUrl=queue_url,
                    Entries=[{"Id": str(k), "ReceiptHandle": m["ReceiptHandle"]} for k, m in enumerate(got)],
                )
                assert not result.get("Failed"), result
            elif done:
                break
        with lock:
            received.extend(mine)

    with ThreadPoolExecutor(max_workers=8) as pool:
        receiving = [pool.submit(receive, i) for i in range(4)]
        sending = [pool.submit(send, i) for i in range(4)]
        assert sum(f.result(timeout=60) for f in sending) == 4 * per_sender
        sent_all.set()
        for f in receiving:
            f.result(timeout=60)

    expected = sorted(f"s{i}-{j}" for i in range(4) for j in range(per_sender))
    assert len(received) == len(set(received)), "a message was received twice"
    assert sorted(received) == expected
    assert counts(sqs, queue_url) == (0, 0, 0)
