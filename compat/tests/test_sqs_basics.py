"""SQS basics through boto3 (AWS JSON 1.0 protocol): queues, messages, errors, visibility, long poll."""

import hashlib
import threading

import pytest
from botocore.exceptions import ClientError

DEFAULT_ACCOUNT = "000000000000"
NON_EXISTENT_QUEUE = "AWS.SimpleQueueService.NonExistentQueue"


def md5(text):
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def messages(response):
    return response.get("Messages", [])


def test_create_get_list_delete_queue(sqs, url):
    queue_url = sqs.create_queue(QueueName="basics-one")["QueueUrl"]
    assert queue_url == f"{url}/{DEFAULT_ACCOUNT}/basics-one"
    assert sqs.get_queue_url(QueueName="basics-one")["QueueUrl"] == queue_url

    other_url = sqs.create_queue(QueueName="other")["QueueUrl"]
    assert sqs.list_queues(QueueNamePrefix="basics")["QueueUrls"] == [queue_url]
    assert sorted(sqs.list_queues()["QueueUrls"]) == sorted([queue_url, other_url])

    sqs.delete_queue(QueueUrl=queue_url)
    assert sqs.list_queues(QueueNamePrefix="basics").get("QueueUrls", []) == []
    assert sqs.list_queues()["QueueUrls"] == [other_url]


def test_create_queue_is_idempotent(sqs):
    first = sqs.create_queue(QueueName="same")["QueueUrl"]
    assert sqs.create_queue(QueueName="same")["QueueUrl"] == first
    assert sqs.list_queues()["QueueUrls"] == [first]


def test_send_receive_delete_round_trip(sqs):
    queue_url = sqs.create_queue(QueueName="round-trip")["QueueUrl"]

    sent = sqs.send_message(QueueUrl=queue_url, MessageBody="hello")
    assert sent["MD5OfMessageBody"] == md5("hello") == "5d41402abc4b2a76b9719d911017c592"
    assert sent["MessageId"]

    received = messages(sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0))
    assert len(received) == 1
    message = received[0]
    assert message["Body"] == "hello"
    assert message["MessageId"] == sent["MessageId"]
    assert message["MD5OfBody"] == md5("hello")
    assert message["ReceiptHandle"]

    sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
    assert messages(sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0)) == []


def test_unicode_body(sqs):
    queue_url = sqs.create_queue(QueueName="unicode")["QueueUrl"]
    body = "héllo wörld — ✓ 日本語 🚀\n\ttab"

    sent = sqs.send_message(QueueUrl=queue_url, MessageBody=body)
    assert sent["MD5OfMessageBody"] == md5(body)

    received = messages(sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0))
    assert [m["Body"] for m in received] == [body]
    assert received[0]["MD5OfBody"] == md5(body)


def test_receive_from_deleted_queue_is_non_existent_queue(sqs):
    queue_url = sqs.create_queue(QueueName="gone")["QueueUrl"]
    sqs.delete_queue(QueueUrl=queue_url)

    with pytest.raises(ClientError) as error:
        sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0)
    # The code comes from the x-amzn-query-error header, the class from the JSON __type.
    assert error.value.response["Error"]["Code"] == NON_EXISTENT_QUEUE
    assert isinstance(error.value, sqs.exceptions.QueueDoesNotExist)


def test_receive_from_missing_queue_is_non_existent_queue(sqs, url):
    with pytest.raises(ClientError) as error:
        sqs.receive_message(QueueUrl=f"{url}/{DEFAULT_ACCOUNT}/never-created", WaitTimeSeconds=0)
    assert error.value.response["Error"]["Code"] == NON_EXISTENT_QUEUE
    assert isinstance(error.value, sqs.exceptions.QueueDoesNotExist)


def test_get_queue_url_of_missing_queue_is_non_existent_queue(sqs):
    with pytest.raises(ClientError) as error:
        sqs.get_queue_url(QueueName="never-created")
    assert error.value.response["Error"]["Code"] == NON_EXISTENT_QUEUE
    assert isinstance(error.value, sqs.exceptions.QueueDoesNotExist)


def test_visibility_timeout_on_manual_clock(sqs, control):
    queue_url = sqs.create_queue(QueueName="visibility")["QueueUrl"]
    sqs.send_message(QueueUrl=queue_url, MessageBody="again")

    first = messages(sqs.receive_message(QueueUrl=queue_url, VisibilityTimeout=30, WaitTimeSeconds=0))
    assert [m["Body"] for m in first] == ["again"]

    # Invisible for 30 virtual seconds, and virtual time does not move by itself.
    assert messages(sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0)) == []

    control.advance(31)
    third = messages(
        sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0, AttributeNames=["All"])
    )
    assert [m["Body"] for m in third] == ["again"]
    assert third[0]["Attributes"]["ApproximateReceiveCount"] == "2"


def test_long_poll_returns_a_message_sent_while_waiting(sqs):
    queue_url = sqs.create_queue(QueueName="long-poll")["QueueUrl"]
    outcome = {}

    def poll():
        try:
            outcome["response"] = sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=20)
        except Exception as e:  # reported by the main thread
            outcome["error"] = e

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    # Whether the send lands before or after the poll is registered, the poll must return it,
    # well before its 20 s wait is over.
    sqs.send_message(QueueUrl=queue_url, MessageBody="wake up")
    poller.join(timeout=10)

    assert not poller.is_alive(), "the long poll did not return within 10 s of the send"
    assert "error" not in outcome, outcome.get("error")
    assert [m["Body"] for m in messages(outcome["response"])] == ["wake up"]


def test_twelve_digit_access_key_is_the_account(make_client, sqs, url):
    other = make_client("sqs", aws_access_key_id="111122223333")
    queue_url = other.create_queue(QueueName="per-account")["QueueUrl"]
    assert "/111122223333/" in queue_url
    assert queue_url == f"{url}/111122223333/per-account"
    # Resources are per account: the default account does not see it.
    assert sqs.list_queues().get("QueueUrls", []) == []
