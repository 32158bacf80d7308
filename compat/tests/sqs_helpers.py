"""Small helpers the SQS compat tests share (not fixtures: plain functions)."""

import hashlib
import struct
from contextlib import contextmanager

import pytest
from botocore.exceptions import ClientError

ACCOUNT = "000000000000"
REGION = "us-east-1"


def md5(text):
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def md5_of_attributes(attributes):
    """MD5OfMessageAttributes as AWS computes it (SQS developer guide, "message metadata"): for each
    attribute in name order, length-prefixed name and DataType, a transport byte (1 string, 2 binary),
    then the length-prefixed value. botocore does not check it, so the tests do."""

    def field(data):
        return struct.pack(">I", len(data)) + data

    buffer = b""
    for name in sorted(attributes):
        value = attributes[name]
        buffer += field(name.encode("utf-8")) + field(value["DataType"].encode("utf-8"))
        if "BinaryValue" in value:
            raw = value["BinaryValue"]
            buffer += b"\x02" + field(raw if isinstance(raw, bytes) else raw.encode("utf-8"))
        else:
            buffer += b"\x01" + field(value["StringValue"].encode("utf-8"))
    return hashlib.md5(buffer).hexdigest()


def arn(name, account=ACCOUNT):
    return f"arn:aws:sqs:{REGION}:{account}:{name}"


def messages(response):
    return response.get("Messages", [])


def bodies(response):
    return [m["Body"] for m in messages(response)]


def receive_all(client, queue_url, **kwargs):
    """Short-polls until the queue answers nothing (the emulator returns every visible message).
    Gives up after 100 receives, so a message that stays visible fails the test instead of hanging it."""
    out = []
    for _ in range(100):
        got = messages(client.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0, **kwargs))
        if not got:
            return out
        out.extend(got)
    raise AssertionError(f"{queue_url} still had messages after 100 receives ({len(out)} received)")


def counts(client, queue_url):
    """(visible, in flight, delayed) from GetQueueAttributes."""
    a = client.get_queue_attributes(
        QueueUrl=queue_url,
        AttributeNames=[
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed",
        ],
    )["Attributes"]
    return (
        int(a["ApproximateNumberOfMessages"]),
        int(a["ApproximateNumberOfMessagesNotVisible"]),
        int(a["ApproximateNumberOfMessagesDelayed"]),
    )


@contextmanager
def raises_code(code, status=None):
    """Expects a ClientError whose response Error.Code is `code` (and HTTP status, if given)."""
    with pytest.raises(ClientError) as error:
        yield error
    response = error.value.response
    assert response["Error"]["Code"] == code, response
    if status is not None:
        assert response["ResponseMetadata"]["HTTPStatusCode"] == status, response
