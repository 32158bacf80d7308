"""Dead-letter queues over both protocols: redrive after maxReceiveCount on the virtual clock, the
DeadLetterQueueSourceArn, ListDeadLetterSourceQueues, RedrivePolicy/RedriveAllowPolicy checks, and
message move tasks (start, list, cancel) paced on the virtual clock."""

import json

import pytest

from sqs_helpers import arn, counts, messages, raises_code, receive_all


def redrive(dlq_name, max_receive_count):
    return json.dumps({"deadLetterTargetArn": arn(dlq_name), "maxReceiveCount": max_receive_count})


def make_pair(client, source="source", dlq="dlq", max_receive_count=2, visibility=10):
    dlq_url = client.create_queue(QueueName=dlq)["QueueUrl"]
    source_url = client.create_queue(
        QueueName=source,
        Attributes={"RedrivePolicy": redrive(dlq, max_receive_count), "VisibilityTimeout": str(visibility)},
    )["QueueUrl"]
    return source_url, dlq_url


def test_redrive_after_max_receive_count(sqs_any, control):
    source_url, dlq_url = make_pair(sqs_any, max_receive_count=2, visibility=10)
    policy = sqs_any.get_queue_attributes(QueueUrl=source_url, AttributeNames=["RedrivePolicy"])["Attributes"]
    assert json.loads(policy["RedrivePolicy"]) == {"deadLetterTargetArn": arn("dlq"), "maxReceiveCount": 2}

    attributes = {"kind": {"DataType": "String", "StringValue": "poison"}}
    sent = sqs_any.send_message(QueueUrl=source_url, MessageBody="poison pill", MessageAttributes=attributes)

    for count in (1, 2):
        got = messages(sqs_any.receive_message(QueueUrl=source_url, AttributeNames=["All"], WaitTimeSeconds=0))
        assert [m["Body"] for m in got] == ["poison pill"]
        assert got[0]["Attributes"]["ApproximateReceiveCount"] == str(count)
        control.advance(11)  # past the visibility timeout, not deleted: a failed receive

    # A third receive would exceed maxReceiveCount: the message goes to the DLQ instead.
    assert messages(sqs_any.receive_message(QueueUrl=source_url, WaitTimeSeconds=0)) == []
    assert counts(sqs_any, source_url) == (0, 0, 0)
    assert counts(sqs_any, dlq_url) == (1, 0, 0)

    got = messages(
        sqs_any.receive_message(
            QueueUrl=dlq_url, AttributeNames=["All"], MessageAttributeNames=["All"], WaitTimeSeconds=0
        )
    )
    assert len(got) == 1
    dead = got[0]
    assert dead["Body"] == "poison pill"
    assert dead["MessageId"] == sent["MessageId"]
    assert dead["MessageAttributes"] == attributes
    assert dead["Attributes"]["DeadLetterQueueSourceArn"] == arn("source")


def test_list_dead_letter_source_queues(sqs_any):
    source_url, dlq_url = make_pair(sqs_any)
    other_url = sqs_any.create_queue(QueueName="other-source", Attributes={"RedrivePolicy": redrive("dlq", 5)})["QueueUrl"]
    sqs_any.create_queue(QueueName="unrelated")

    assert sorted(sqs_any.list_dead_letter_source_queues(QueueUrl=dlq_url)["queueUrls"]) == sorted(
        [source_url, other_url]
    )
    page = sqs_any.list_dead_letter_source_queues(QueueUrl=dlq_url, MaxResults=1)
    assert len(page["queueUrls"]) == 1 and page["NextToken"]
    rest = sqs_any.list_dead_letter_source_queues(QueueUrl=dlq_url, MaxResults=1, NextToken=page["NextToken"])
    assert sorted(page["queueUrls"] + rest["queueUrls"]) == sorted([source_url, other_url])

    # Removing a redrive policy takes the queue off the list.
    sqs_any.set_queue_attributes(QueueUrl=other_url, Attributes={"RedrivePolicy": ""})
    assert sqs_any.list_dead_letter_source_queues(QueueUrl=dlq_url)["queueUrls"] == [source_url]
    assert sqs_any.list_dead_letter_source_queues(QueueUrl=source_url).get("queueUrls", []) == []


def test_redrive_policy_errors(sqs_any):
    sqs_any.create_queue(QueueName="std-dlq")
    sqs_any.create_queue(QueueName="fifo-dlq.fifo", Attributes={"FifoQueue": "true"})

    with raises_code("InvalidParameterValue", 400):  # the DLQ must exist
        sqs_any.create_queue(QueueName="src-1", Attributes={"RedrivePolicy": redrive("missing-dlq", 3)})
    with raises_code("InvalidParameterValue", 400):  # and be of the same type
        sqs_any.create_queue(QueueName="src-2", Attributes={"RedrivePolicy": redrive("fifo-dlq.fifo", 3)})
    with raises_code("InvalidParameterValue", 400):
        sqs_any.create_queue(
            QueueName="src-3.fifo",
            Attributes={"FifoQueue": "true", "RedrivePolicy": redrive("std-dlq", 3)},
        )
    with raises_code("InvalidParameterValue", 400):  # maxReceiveCount is 1 to 1000
        sqs_any.create_queue(QueueName="src-4", Attributes={"RedrivePolicy": redrive("std-dlq", 0)})
    assert sqs_any.list_queues(QueueNamePrefix="src-").get("QueueUrls", []) == []


def test_redrive_allow_policy(sqs_any):
    deny_url = sqs_any.create_queue(
        QueueName="deny-dlq", Attributes={"RedriveAllowPolicy": json.dumps({"redrivePermission": "denyAll"})}
    )["QueueUrl"]
    with raises_code("InvalidParameterValue", 400):
        sqs_any.create_queue(QueueName="denied", Attributes={"RedrivePolicy": redrive("deny-dlq", 3)})

    by_queue = json.dumps({"redrivePermission": "byQueue", "sourceQueueArns": [arn("allowed")]})
    sqs_any.create_queue(QueueName="picky-dlq", Attributes={"RedriveAllowPolicy": by_queue})
    sqs_any.create_queue(QueueName="allowed", Attributes={"RedrivePolicy": redrive("picky-dlq", 3)})
    with raises_code("InvalidParameterValue", 400):
        sqs_any.create_queue(QueueName="not-allowed", Attributes={"RedrivePolicy": redrive("picky-dlq", 3)})

    got = sqs_any.get_queue_attributes(QueueUrl=deny_url, AttributeNames=["RedriveAllowPolicy"])["Attributes"]
    assert json.loads(got["RedriveAllowPolicy"]) == {"redrivePermission": "denyAll"}

    with raises_code("InvalidAttributeValue", 400):
        sqs_any.set_queue_attributes(
            QueueUrl=deny_url,
            Attributes={"RedriveAllowPolicy": json.dumps({"redrivePermission": "allowAll", "sourceQueueArns": [arn("x")]})},
        )


def dead_letter(client, control, n, source="source", dlq="dlq"):
    """A source queue whose DLQ holds n dead letters (maxReceiveCount 1, each received once)."""
    source_url, dlq_url = make_pair(client, source, dlq, max_receive_count=1, visibility=10)
    for start in range(0, n, 10):
        client.send_message_batch(
            QueueUrl=source_url,
            Entries=[{"Id": f"m{i}", "MessageBody": f"dead {i}"} for i in range(start, min(n, start + 10))],
        )
    assert len(receive_all(client, source_url)) == n
    control.advance(11)
    assert receive_all(client, source_url) == []  # the second receive dead-letters them all
    assert counts(client, dlq_url) == (n, 0, 0)
    return source_url, dlq_url


def task(client, source_arn):
    results = client.list_message_move_tasks(SourceArn=source_arn)["Results"]
    assert len(results) == 1  # MaxResults defaults to 1: the most recent task
    return results[0]


def test_move_task_back_to_the_source_paced(sqs_any, control):
    source_url, dlq_url = dead_letter(sqs_any, control, 5)
    handle = sqs_any.start_message_move_task(SourceArn=arn("dlq"), MaxNumberOfMessagesPerSecond=2)["TaskHandle"]
    assert handle

    running = task(sqs_any, arn("dlq"))
    assert running["Status"] == "RUNNING"
    assert running["TaskHandle"] == handle
    assert running["SourceArn"] == arn("dlq")
    assert "DestinationArn" not in running
    assert running["MaxNumberOfMessagesPerSecond"] == 2
    assert running["ApproximateNumberOfMessagesToMove"] == 5
    assert running["ApproximateNumberOfMessagesMoved"] <= 2
    assert running["StartedTimestamp"] == control.clock()["epochMillis"]

    # Two a second: never more than that, however the steps fall.
    control.advance(1)
    moved = task(sqs_any, arn("dlq"))["ApproximateNumberOfMessagesMoved"]
    assert 2 <= moved <= 4
    assert counts(sqs_any, source_url)[0] == moved
    assert counts(sqs_any, dlq_url)[0] == 5 - moved

    control.advance(3)
    done = task(sqs_any, arn("dlq"))
    assert done["Status"] == "COMPLETED"
    assert done["ApproximateNumberOfMessagesMoved"] == 5
    assert "TaskHandle" not in done
    assert counts(sqs_any, dlq_url) == (0, 0, 0)

    back = receive_all(sqs_any, source_url, AttributeNames=["All"])
    assert sorted(m["Body"] for m in back) == [f"dead {i}" for i in range(5)]
    for m in back:  # moved messages are new messages, received for the first time
        assert m["Attributes"]["ApproximateReceiveCount"] == "1"
        assert "DeadLetterQueueSourceArn" not in m["Attributes"]


def test_move_task_to_a_destination_without_a_rate(sqs_any, control):
    _, dlq_url = dead_letter(sqs_any, control, 3)
    elsewhere = sqs_any.create_queue(QueueName="elsewhere")["QueueUrl"]
    sqs_any.start_message_move_task(SourceArn=arn("dlq"), DestinationArn=arn("elsewhere"))
    control.advance(1)
    done = task(sqs_any, arn("dlq"))
    assert done["Status"] == "COMPLETED"
    assert done["DestinationArn"] == arn("elsewhere")
    assert done["ApproximateNumberOfMessagesMoved"] == 3
    assert sorted(m["Body"] for m in receive_all(sqs_any, elsewhere)) == [f"dead {i}" for i in range(3)]
    assert counts(sqs_any, dlq_url) == (0, 0, 0)


def test_cancel_move_task(sqs_any, control):
    source_url, dlq_url = dead_letter(sqs_any, control, 10)
    handle = sqs_any.start_message_move_task(SourceArn=arn("dlq"), MaxNumberOfMessagesPerSecond=1)["TaskHandle"]

    with raises_code("InvalidParameterValue", 400):  # one running task per source
        sqs_any.start_message_move_task(SourceArn=arn("dlq"))

    control.advance(2)
    cancelled = sqs_any.cancel_message_move_task(TaskHandle=handle)
    moved = cancelled["ApproximateNumberOfMessagesMoved"]
    assert 1 <= moved <= 3

    listed = task(sqs_any, arn("dlq"))
    assert listed["Status"] in ("CANCELLING", "CANCELLED")
    control.advance(60)
    listed = task(sqs_any, arn("dlq"))
    assert listed["Status"] == "CANCELLED"
    assert listed["ApproximateNumberOfMessagesMoved"] == moved
    # Nothing moved after the cancel; what moved stays moved.
    assert counts(sqs_any, source_url)[0] == moved
    assert counts(sqs_any, dlq_url)[0] == 10 - moved

    with raises_code("ResourceNotFoundException", 404):  # only a running task can be cancelled
        sqs_any.cancel_message_move_task(TaskHandle=handle)

    # A new task may start now, and the list shows the newest first.
    sqs_any.start_message_move_task(SourceArn=arn("dlq"))
    control.advance(1)
    both = sqs_any.list_message_move_tasks(SourceArn=arn("dlq"), MaxResults=10)["Results"]
    assert [t["Status"] for t in both] == ["COMPLETED", "CANCELLED"]
    assert counts(sqs_any, source_url)[0] == 10


@pytest.mark.parametrize(
    "call, code, status",
    [
        (lambda c: c.start_message_move_task(SourceArn=arn("not-a-dlq")), "InvalidParameterValue", 400),
        (lambda c: c.start_message_move_task(SourceArn=arn("no-such-queue")), "ResourceNotFoundException", 404),
        (
            lambda c: c.start_message_move_task(SourceArn=arn("dlq"), DestinationArn=arn("no-such-queue")),
            "ResourceNotFoundException",
            404,
        ),
        (lambda c: c.start_message_move_task(SourceArn=arn("dlq"), MaxNumberOfMessagesPerSecond=501), "InvalidParameterValue", 400),
        (lambda c: c.cancel_message_move_task(TaskHandle="bm90LWEtaGFuZGxl"), "InvalidParameterValue", 400),
        (lambda c: c.list_message_move_tasks(SourceArn=arn("no-such-queue")), "ResourceNotFoundException", 404),
    ],
    ids=["not-a-dlq", "missing-source", "missing-destination", "rate-too-high", "bad-handle", "list-missing"],
)
def test_move_task_errors(sqs_any, call, code, status):
    make_pair(sqs_any)
    sqs_any.create_queue(QueueName="not-a-dlq")
    with raises_code(code, status):
        call(sqs_any)


def test_dead_letter_retention_counts_from_the_original_send(sqs_any, control):
    """Standard queues: moving to the DLQ keeps the message's enqueue time, so the DLQ's retention
    runs from the original send (SQS developer guide, dead-letter queues)."""
    dlq_url = sqs_any.create_queue(QueueName="short-dlq", Attributes={"MessageRetentionPeriod": "120"})["QueueUrl"]
    source_url = sqs_any.create_queue(
        QueueName="long-source",
        Attributes={"RedrivePolicy": redrive("short-dlq", 1), "VisibilityTimeout": "50"},
    )["QueueUrl"]
    sent_at = control.clock()["epochMillis"]
    sqs_any.send_message(QueueUrl=source_url, MessageBody="aging")
    assert len(receive_all(sqs_any, source_url)) == 1
    control.advance(50)
    assert receive_all(sqs_any, source_url) == []  # moved to the DLQ, 50 s after the send
    got = messages(
        sqs_any.receive_message(QueueUrl=dlq_url, AttributeNames=["SentTimestamp"], VisibilityTimeout=0, WaitTimeSeconds=0)
    )
    assert [m["Attributes"]["SentTimestamp"] for m in got] == [str(sent_at)]
    control.advance(71)  # 121 s after the send, 71 s after the move
    assert counts(sqs_any, dlq_url) == (0, 0, 0)
    assert receive_all(sqs_any, dlq_url) == []
