"""FIFO queues over both protocols: order within a group, a group blocked while it has a message in
flight, deduplication (explicit and content-based) with its 5-minute window on the virtual clock,
deduplication scope, sequence numbers and FIFO-specific errors."""

import hashlib

from sqs_helpers import messages, raises_code, receive_all


def fifo(client, name, **attributes):
    attrs = {"FifoQueue": "true", **{k: str(v) for k, v in attributes.items()}}
    return client.create_queue(QueueName=name, Attributes=attrs)["QueueUrl"]


def test_fifo_attributes(sqs_any):
    queue_url = fifo(sqs_any, "attrs.fifo", ContentBasedDeduplication="true")
    attributes = sqs_any.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["All"])["Attributes"]
    assert attributes["FifoQueue"] == "true"
    assert attributes["ContentBasedDeduplication"] == "true"
    assert attributes["DeduplicationScope"] == "queue"
    assert attributes["FifoThroughputLimit"] == "perQueue"

    with raises_code("InvalidParameterValue", 400):  # a FIFO queue needs the .fifo suffix
        sqs_any.create_queue(QueueName="no-suffix", Attributes={"FifoQueue": "true"})
    with raises_code("InvalidParameterValue", 400):  # and a standard queue may not have it
        sqs_any.create_queue(QueueName="standard.fifo")
    with raises_code("InvalidAttributeValue", 400):
        sqs_any.set_queue_attributes(QueueUrl=queue_url, Attributes={"FifoQueue": "false"})


def test_order_within_groups_and_sequence_numbers(sqs_any):
    queue_url = fifo(sqs_any, "order.fifo", ContentBasedDeduplication="true")
    sends = [("A", "a1"), ("B", "b1"), ("A", "a2"), ("A", "a3"), ("B", "b2")]
    sequence = []
    for group, body in sends:
        sent = sqs_any.send_message(QueueUrl=queue_url, MessageBody=body, MessageGroupId=group)
        sequence.append(int(sent["SequenceNumber"]))
    assert sequence == sorted(sequence) and len(set(sequence)) == len(sequence)

    got = messages(
        sqs_any.receive_message(
            QueueUrl=queue_url, MaxNumberOfMessages=10, AttributeNames=["All"], WaitTimeSeconds=0
        )
    )
    assert len(got) == 5
    by_group = {}
    for m in got:
        by_group.setdefault(m["Attributes"]["MessageGroupId"], []).append(m["Body"])
    assert by_group == {"A": ["a1", "a2", "a3"], "B": ["b1", "b2"]}
    for m in got:
        assert m["Attributes"]["SequenceNumber"] == str(sequence[[b for _, b in sends].index(m["Body"])])
        assert m["Attributes"]["MessageDeduplicationId"] == hashlib.sha256(m["Body"].encode()).hexdigest()


def test_group_blocked_while_in_flight(sqs_any, control):
    queue_url = fifo(sqs_any, "blocking.fifo", ContentBasedDeduplication="true", VisibilityTimeout=30)
    for group, body in [("A", "a1"), ("A", "a2"), ("B", "b1"), ("B", "b2")]:
        sqs_any.send_message(QueueUrl=queue_url, MessageBody=body, MessageGroupId=group)

    first = messages(sqs_any.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=1, WaitTimeSeconds=0))
    assert [m["Body"] for m in first] == ["a1"]
    # A is blocked by a1 in flight: the next receive can only take B's head.
    second = messages(sqs_any.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=1, WaitTimeSeconds=0))
    assert [m["Body"] for m in second] == ["b1"]
    assert messages(sqs_any.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0)) == []

    # Deleting a1 frees A; B stays blocked by b1.
    sqs_any.delete_message(QueueUrl=queue_url, ReceiptHandle=first[0]["ReceiptHandle"])
    third = messages(sqs_any.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0))
    assert [m["Body"] for m in third] == ["a2"]

    # The visibility of a2 and b1 runs out: each group delivers again from its head, in order.
    control.advance(30)
    again = [m["Body"] for m in messages(
        sqs_any.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0)
    )]
    assert sorted(again) == ["a2", "b1", "b2"]
    assert again.index("b1") < again.index("b2")


def test_content_based_deduplication_window(sqs_any, control):
    queue_url = fifo(sqs_any, "dedup.fifo", ContentBasedDeduplication="true")
    first = sqs_any.send_message(QueueUrl=queue_url, MessageBody="same", MessageGroupId="g")
    duplicate = sqs_any.send_message(QueueUrl=queue_url, MessageBody="same", MessageGroupId="g")
    # Accepted, not enqueued, and answered with the original message's id.
    assert duplicate["MessageId"] == first["MessageId"]

    got = receive_all(sqs_any, queue_url)
    assert [m["Body"] for m in got] == ["same"]
    sqs_any.delete_message(QueueUrl=queue_url, ReceiptHandle=got[0]["ReceiptHandle"])

    # The id is remembered after the message is deleted, for the whole interval.
    control.advance(299)
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="same", MessageGroupId="g")
    assert receive_all(sqs_any, queue_url) == []

    control.advance(1)  # 5 minutes after the first send
    again = sqs_any.send_message(QueueUrl=queue_url, MessageBody="same", MessageGroupId="g")
    assert again["MessageId"] != first["MessageId"]
    assert [m["Body"] for m in receive_all(sqs_any, queue_url)] == ["same"]


def test_explicit_deduplication_ids(sqs_any):
    queue_url = fifo(sqs_any, "explicit.fifo", ContentBasedDeduplication="true")
    # An explicit id overrides the content hash: same body, two ids, two messages.
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="body", MessageGroupId="g", MessageDeduplicationId="one")
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="body", MessageGroupId="g", MessageDeduplicationId="two")
    # Same id, other body: a duplicate.
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="other", MessageGroupId="g", MessageDeduplicationId="one")
    got = receive_all(sqs_any, queue_url, AttributeNames=["MessageDeduplicationId"])
    assert [(m["Body"], m["Attributes"]["MessageDeduplicationId"]) for m in got] == [("body", "one"), ("body", "two")]


def test_deduplication_scope_message_group(sqs_any):
    queue_url = fifo(
        sqs_any,
        "scoped.fifo",
        DeduplicationScope="messageGroup",
        FifoThroughputLimit="perMessageGroupId",
    )
    for group in ("A", "B", "A"):
        sqs_any.send_message(QueueUrl=queue_url, MessageBody=group, MessageGroupId=group, MessageDeduplicationId="d")
    assert sorted(m["Body"] for m in receive_all(sqs_any, queue_url)) == ["A", "B"]

    queue_scoped = fifo(sqs_any, "queue-scoped.fifo")
    for group in ("A", "B"):
        sqs_any.send_message(QueueUrl=queue_scoped, MessageBody=group, MessageGroupId=group, MessageDeduplicationId="d")
    assert [m["Body"] for m in receive_all(sqs_any, queue_scoped)] == ["A"]


def test_fifo_batch_keeps_entry_order(sqs_any):
    queue_url = fifo(sqs_any, "batch.fifo", ContentBasedDeduplication="true")
    entries = [{"Id": f"e{i}", "MessageBody": f"m{i}", "MessageGroupId": "g"} for i in range(5)]
    # An entry without MessageGroupId fails the whole batch, with SendMessage's MissingParameter
    # (issue 33: moto's suite).
    with raises_code("MissingParameter", 400) as error:
        sqs_any.send_message_batch(QueueUrl=queue_url, Entries=entries + [{"Id": "no-group", "MessageBody": "lost"}])
    assert error.value.response["Error"]["Message"] == "The request must contain the parameter MessageGroupId."
    result = sqs_any.send_message_batch(QueueUrl=queue_url, Entries=entries)
    assert sorted(e["Id"] for e in result["Successful"]) == [f"e{i}" for i in range(5)]
    assert result.get("Failed", []) == []
    sequence = {e["Id"]: int(e["SequenceNumber"]) for e in result["Successful"]}
    assert [sequence[f"e{i}"] for i in range(5)] == sorted(sequence.values())
    assert [m["Body"] for m in receive_all(sqs_any, queue_url)] == [f"m{i}" for i in range(5)]


def test_fifo_send_errors(sqs_any):
    plain = fifo(sqs_any, "plain.fifo")
    with raises_code("MissingParameter", 400):
        sqs_any.send_message(QueueUrl=plain, MessageBody="b", MessageDeduplicationId="d")
    with raises_code("InvalidParameterValue", 400):  # no dedup id and no content-based dedup
        sqs_any.send_message(QueueUrl=plain, MessageBody="b", MessageGroupId="g")
    with raises_code("InvalidParameterValue", 400):  # no per-message delay on FIFO queues
        sqs_any.send_message(
            QueueUrl=plain, MessageBody="b", MessageGroupId="g", MessageDeduplicationId="d", DelaySeconds=5
        )
    with raises_code("InvalidParameterValue", 400):
        sqs_any.send_message(QueueUrl=plain, MessageBody="b", MessageGroupId="g" * 129, MessageDeduplicationId="d")
    assert receive_all(sqs_any, plain) == []

    standard = sqs_any.create_queue(QueueName="not-fifo")["QueueUrl"]
    with raises_code("InvalidParameterValue", 400):
        sqs_any.send_message(QueueUrl=standard, MessageBody="b", MessageDeduplicationId="d")


def test_receive_request_attempt_id_retries(sqs_any):
    queue_url = fifo(sqs_any, "attempts.fifo", ContentBasedDeduplication="true")
    for body in ("r1", "r2"):
        sqs_any.send_message(QueueUrl=queue_url, MessageBody=body, MessageGroupId="g")
    first = messages(
        sqs_any.receive_message(
            QueueUrl=queue_url, MaxNumberOfMessages=10, ReceiveRequestAttemptId="attempt-1", WaitTimeSeconds=0
        )
    )
    retry = messages(
        sqs_any.receive_message(
            QueueUrl=queue_url, MaxNumberOfMessages=10, ReceiveRequestAttemptId="attempt-1", WaitTimeSeconds=0
        )
    )
    assert [m["Body"] for m in first] == ["r1", "r2"]
    assert [(m["MessageId"], m["ReceiptHandle"]) for m in retry] == [
        (m["MessageId"], m["ReceiptHandle"]) for m in first
    ]
