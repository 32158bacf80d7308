"""SQS as AWS recorded it (issue 14), through boto3 over both protocols: FIFO group visibility
and order, receipt handles once outdated, queue names as QueueUrl, FIFO batches failing whole,
purge and deduplication, and the Query wire's edges."""

import requests

from sqs_helpers import bodies, counts, raises_code


def fifo(client, name, **attributes):
    attributes = {"FifoQueue": "true", "ContentBasedDeduplication": "true", **attributes}
    return client.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]


def send(client, queue_url, *messages):
    for group, body in messages:
        client.send_message(QueueUrl=queue_url, MessageBody=body, MessageGroupId=group)


def test_fifo_group_visibility_and_order(sqs_any, control):
    queue_url = fifo(sqs_any, "groups.fifo", VisibilityTimeout="30")
    send(sqs_any, queue_url, ("1", "g1-m1"), ("1", "g1-m2"), ("2", "g2-m1"))
    got = sqs_any.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=2)["Messages"]
    assert [m["Body"] for m in got] == ["g1-m1", "g1-m2"]
    # The first made visible again is served, behind group 2, while g1-m2 stays in flight.
    sqs_any.change_message_visibility(QueueUrl=queue_url, ReceiptHandle=got[0]["ReceiptHandle"], VisibilityTimeout=0)
    assert bodies(sqs_any.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=3)) == ["g2-m1", "g1-m1"]

    shared = fifo(sqs_any, "shared.fifo", VisibilityTimeout="1")
    send(sqs_any, shared, ("1", "a1"), ("1", "a2"), ("1", "a3"), ("2", "b1"), ("3", "c1"))
    assert bodies(sqs_any.receive_message(QueueUrl=shared, MaxNumberOfMessages=2)) == ["a1", "a2"]
    assert bodies(sqs_any.receive_message(QueueUrl=shared, MaxNumberOfMessages=1)) == ["b1"]
    control.advance(2)
    got = sqs_any.receive_message(QueueUrl=shared, MaxNumberOfMessages=10, VisibilityTimeout=0)
    assert bodies(got) == ["c1", "a1", "a2", "a3", "b1"]


def test_outdated_receipt_handles(sqs_any, control):
    queue_url = sqs_any.create_queue(QueueName="handles")["QueueUrl"]
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="m")
    first = sqs_any.receive_message(QueueUrl=queue_url, VisibilityTimeout=1)["Messages"][0]["ReceiptHandle"]
    control.advance(2)
    # An expired handle still changes the visibility of a standard queue's message...
    sqs_any.change_message_visibility(QueueUrl=queue_url, ReceiptHandle=first, VisibilityTimeout=0)
    second = sqs_any.receive_message(QueueUrl=queue_url)["Messages"][0]["ReceiptHandle"]
    assert second != first
    # ... and deletes it, received again since.
    sqs_any.delete_message(QueueUrl=queue_url, ReceiptHandle=first)
    assert counts(sqs_any, queue_url) == (0, 0, 0)
    with raises_code("InvalidParameterValue", 400) as error:
        sqs_any.change_message_visibility(QueueUrl=queue_url, ReceiptHandle=second, VisibilityTimeout=5)
    assert error.value.response["Error"]["Message"] == (
        f"Value {second} for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not "
        "available for visibility timeout change."
    )


def test_queue_names_batches_and_purge(sqs_any):
    sqs_any.create_queue(QueueName="named")
    assert sqs_any.send_message(QueueUrl="named", MessageBody="Using name instead of URL")["MD5OfMessageBody"] == (
        "86a83f96652a1bfad3891e7d523750cb"
    )
    queue_url = sqs_any.create_queue(QueueName="strict.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    entries = [
        {"Id": "a", "MessageBody": "x", "MessageGroupId": "g", "MessageDeduplicationId": "d1"},
        {"Id": "b", "MessageBody": "y", "MessageGroupId": "g"},
    ]
    with raises_code("InvalidParameterValue", 400) as error:
        sqs_any.send_message_batch(QueueUrl=queue_url, Entries=entries)
    assert error.value.response["Error"]["Message"] == (
        "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"
    )
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="one", MessageGroupId="g", MessageDeduplicationId="d")
    sqs_any.purge_queue(QueueUrl=queue_url)
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="two", MessageGroupId="g", MessageDeduplicationId="d")
    assert bodies(sqs_any.receive_message(QueueUrl=queue_url)) == ["two"]
    with raises_code("InvalidAttributeName", 400) as error:
        sqs_any.set_queue_attributes(QueueUrl=sqs_any.get_queue_url(QueueName="named")["QueueUrl"],
                                     Attributes={"FifoQueue": "true"})
    assert error.value.response["Error"]["Message"] == "Unknown Attribute FifoQueue."


def test_query_wire_edges(sqs):
    queue_url = sqs.create_queue(QueueName="edges")["QueueUrl"]
    r = requests.get(queue_url, params={"Action": "GetQueueAttributes", "AttributeName.1": "All"},
                     headers={"Accept": "application/json"}, timeout=30)
    assert r.status_code == 200, r.text
    attributes = r.json()["GetQueueAttributesResponse"]["GetQueueAttributesResult"]["Attributes"]
    assert {"Name": "VisibilityTimeout", "Value": "30"} in attributes
    for action in ("CreateQueue", "ListQueues"):
        r = requests.get(queue_url, params={"Action": action, "QueueName": "x"}, timeout=30)
        assert r.status_code == 400
        assert f"<Message>The action {action} is not valid for this endpoint.</Message>" in r.text
    r = requests.get(queue_url, timeout=30)
    assert r.status_code == 404 and "<UnknownOperationException" in r.text
    r = requests.get(queue_url, params={"Action": "ReceiveMessage"}, timeout=30)
    assert "<ReceiveMessageResult/>" in r.text.replace(" />", "/>")
