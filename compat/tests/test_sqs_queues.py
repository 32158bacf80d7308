"""SQS queue-level operations over both protocols: attributes (set, read back, computed counts on the
virtual clock), tags, permissions and PurgeQueue."""

import json

from sqs_helpers import ACCOUNT, arn, counts, messages, raises_code

DEFAULTS = {
    "DelaySeconds": "0",
    "MaximumMessageSize": "1048576",
    "MessageRetentionPeriod": "345600",
    "ReceiveMessageWaitTimeSeconds": "0",
    "VisibilityTimeout": "30",
    "SqsManagedSseEnabled": "true",
    "ApproximateNumberOfMessages": "0",
    "ApproximateNumberOfMessagesNotVisible": "0",
    "ApproximateNumberOfMessagesDelayed": "0",
}


def now_seconds(control):
    return control.clock()["epochMillis"] // 1000


def test_default_attributes(sqs_any, control):
    created_at = now_seconds(control)
    queue_url = sqs_any.create_queue(QueueName="defaults")["QueueUrl"]
    attributes = sqs_any.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["All"])["Attributes"]
    for name, value in DEFAULTS.items():
        assert attributes[name] == value, name
    assert attributes["QueueArn"] == arn("defaults")
    assert int(attributes["CreatedTimestamp"]) == created_at
    assert int(attributes["LastModifiedTimestamp"]) == created_at
    for absent in ("FifoQueue", "RedrivePolicy", "Policy", "KmsMasterKeyId"):
        assert absent not in attributes


def test_set_and_get_attributes(sqs_any, control):
    queue_url = sqs_any.create_queue(
        QueueName="settings", Attributes={"VisibilityTimeout": "45", "DelaySeconds": "5"}
    )["QueueUrl"]
    created = int(
        sqs_any.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["CreatedTimestamp"])["Attributes"][
            "CreatedTimestamp"
        ]
    )
    control.advance(100)
    sqs_any.set_queue_attributes(
        QueueUrl=queue_url,
        Attributes={
            "VisibilityTimeout": "120",
            "MessageRetentionPeriod": "86400",
            "MaximumMessageSize": "2048",
            "ReceiveMessageWaitTimeSeconds": "2",
            "DelaySeconds": "0",
        },
    )
    # Only the names asked for come back.
    attributes = sqs_any.get_queue_attributes(
        QueueUrl=queue_url,
        AttributeNames=[
            "VisibilityTimeout",
            "MessageRetentionPeriod",
            "MaximumMessageSize",
            "ReceiveMessageWaitTimeSeconds",
            "DelaySeconds",
            "CreatedTimestamp",
            "LastModifiedTimestamp",
        ],
    )["Attributes"]
    assert attributes == {
        "VisibilityTimeout": "120",
        "MessageRetentionPeriod": "86400",
        "MaximumMessageSize": "2048",
        "ReceiveMessageWaitTimeSeconds": "2",
        "DelaySeconds": "0",
        "CreatedTimestamp": str(created),
        "LastModifiedTimestamp": str(created + 100),
    }
    assert sqs_any.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"] == {
        "QueueArn": arn("settings")
    }


def test_attribute_errors(sqs_any):
    queue_url = sqs_any.create_queue(QueueName="attr-errors")["QueueUrl"]
    with raises_code("InvalidAttributeName", 400):
        sqs_any.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["Colour"])
    with raises_code("InvalidAttributeName", 400):
        sqs_any.set_queue_attributes(QueueUrl=queue_url, Attributes={"Colour": "blue"})
    with raises_code("InvalidAttributeName", 400):
        # FIFO-only attribute on a standard queue.
        sqs_any.set_queue_attributes(QueueUrl=queue_url, Attributes={"ContentBasedDeduplication": "true"})
    with raises_code("InvalidAttributeValue", 400):
        sqs_any.set_queue_attributes(QueueUrl=queue_url, Attributes={"VisibilityTimeout": "43201"})
    with raises_code("InvalidAttributeValue", 400):
        sqs_any.create_queue(QueueName="bad-delay", Attributes={"DelaySeconds": "901"})
    # A rejected change changes nothing.
    attributes = sqs_any.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["VisibilityTimeout"])
    assert attributes["Attributes"] == {"VisibilityTimeout": "30"}


def test_computed_counts_follow_the_clock(sqs_any, control):
    queue_url = sqs_any.create_queue(QueueName="counts")["QueueUrl"]
    assert counts(sqs_any, queue_url) == (0, 0, 0)

    sqs_any.send_message(QueueUrl=queue_url, MessageBody="now")
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="later", DelaySeconds=10)
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="also now")
    assert counts(sqs_any, queue_url) == (2, 0, 1)

    got = messages(sqs_any.receive_message(QueueUrl=queue_url, VisibilityTimeout=30, WaitTimeSeconds=0))
    assert len(got) == 1
    assert counts(sqs_any, queue_url) == (1, 1, 1)

    control.advance(10)  # the delay is over
    assert counts(sqs_any, queue_url) == (2, 1, 0)

    control.advance(20)  # 30 s after the receive: visible again
    assert counts(sqs_any, queue_url) == (3, 0, 0)

    got = messages(sqs_any.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0))
    assert len(got) == 3
    assert counts(sqs_any, queue_url) == (0, 3, 0)
    for m in got[:2]:
        sqs_any.delete_message(QueueUrl=queue_url, ReceiptHandle=m["ReceiptHandle"])
    assert counts(sqs_any, queue_url) == (0, 1, 0)


def test_queue_delay_and_retention(sqs_any, control):
    queue_url = sqs_any.create_queue(
        QueueName="delay-retention", Attributes={"DelaySeconds": "20", "MessageRetentionPeriod": "60"}
    )["QueueUrl"]
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="delayed")
    assert counts(sqs_any, queue_url) == (0, 0, 1)
    assert messages(sqs_any.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0)) == []
    control.advance(20)
    assert counts(sqs_any, queue_url) == (1, 0, 0)
    control.advance(41)  # 61 s after the send: past retention
    assert counts(sqs_any, queue_url) == (0, 0, 0)
    assert messages(sqs_any.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0)) == []


def test_tags(sqs_any):
    queue_url = sqs_any.create_queue(QueueName="tagged", tags={"team": "core", "env": "test"})["QueueUrl"]
    assert sqs_any.list_queue_tags(QueueUrl=queue_url)["Tags"] == {"team": "core", "env": "test"}

    sqs_any.tag_queue(QueueUrl=queue_url, Tags={"env": "prod", "cost-centre": "42"})
    assert sqs_any.list_queue_tags(QueueUrl=queue_url)["Tags"] == {
        "team": "core",
        "env": "prod",
        "cost-centre": "42",
    }

    sqs_any.untag_queue(QueueUrl=queue_url, TagKeys=["team", "not-there"])
    assert sqs_any.list_queue_tags(QueueUrl=queue_url)["Tags"] == {"env": "prod", "cost-centre": "42"}

    sqs_any.untag_queue(QueueUrl=queue_url, TagKeys=["env", "cost-centre"])
    assert sqs_any.list_queue_tags(QueueUrl=queue_url).get("Tags", {}) == {}

    untagged = sqs_any.create_queue(QueueName="untagged")["QueueUrl"]
    assert sqs_any.list_queue_tags(QueueUrl=untagged).get("Tags", {}) == {}


def policy(client, queue_url):
    attributes = client.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["Policy"]).get("Attributes", {})
    return json.loads(attributes["Policy"]) if "Policy" in attributes else None


def test_permissions(sqs_any):
    queue_url = sqs_any.create_queue(QueueName="shared-perms")["QueueUrl"]
    queue_arn = arn("shared-perms")
    assert policy(sqs_any, queue_url) is None

    sqs_any.add_permission(
        QueueUrl=queue_url, Label="one", AWSAccountIds=["111122223333"], Actions=["SendMessage"]
    )
    doc = policy(sqs_any, queue_url)
    assert doc["Version"] == "2008-10-17"
    assert doc["Statement"] == [
        {
            "Sid": "one",
            "Effect": "Allow",
            "Principal": {"AWS": "arn:aws:iam::111122223333:root"},
            "Action": "SQS:SendMessage",
            "Resource": queue_arn,
        }
    ]

    sqs_any.add_permission(
        QueueUrl=queue_url,
        Label="two",
        AWSAccountIds=["111122223333", "444455556666"],
        Actions=["ReceiveMessage", "DeleteMessage"],
    )
    statements = {s["Sid"]: s for s in policy(sqs_any, queue_url)["Statement"]}
    assert set(statements) == {"one", "two"}
    assert sorted(statements["two"]["Principal"]["AWS"]) == [
        "arn:aws:iam::111122223333:root",
        "arn:aws:iam::444455556666:root",
    ]
    assert sorted(statements["two"]["Action"]) == ["SQS:DeleteMessage", "SQS:ReceiveMessage"]
    assert statements["two"]["Resource"] == queue_arn

    with raises_code("InvalidParameterValue", 400):  # the label is taken
        sqs_any.add_permission(QueueUrl=queue_url, Label="one", AWSAccountIds=[ACCOUNT], Actions=["SendMessage"])

    with raises_code("OverLimit", 403):  # at most 7 actions in one permission
        sqs_any.add_permission(
            QueueUrl=queue_url,
            Label="greedy",
            AWSAccountIds=[ACCOUNT],
            Actions=[
                "SendMessage",
                "ReceiveMessage",
                "DeleteMessage",
                "ChangeMessageVisibility",
                "GetQueueAttributes",
                "GetQueueUrl",
                "ListDeadLetterSourceQueues",
                "PurgeQueue",
            ],
        )

    sqs_any.remove_permission(QueueUrl=queue_url, Label="one")
    assert [s["Sid"] for s in policy(sqs_any, queue_url)["Statement"]] == ["two"]

    with raises_code("InvalidParameterValue", 400):  # no such label
        sqs_any.remove_permission(QueueUrl=queue_url, Label="one")

    sqs_any.remove_permission(QueueUrl=queue_url, Label="two")
    remaining = policy(sqs_any, queue_url)
    assert remaining is None or remaining.get("Statement") == []


def test_purge_queue(sqs_any, control):
    queue_url = sqs_any.create_queue(QueueName="purged")["QueueUrl"]
    for i in range(3):
        sqs_any.send_message(QueueUrl=queue_url, MessageBody=f"m{i}")
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="delayed", DelaySeconds=30)
    assert len(messages(sqs_any.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0))) == 1
    assert counts(sqs_any, queue_url) == (2, 1, 1)

    sqs_any.purge_queue(QueueUrl=queue_url)
    assert counts(sqs_any, queue_url) == (0, 0, 0)

    control.advance(59)
    with raises_code("AWS.SimpleQueueService.PurgeQueueInProgress", 403) as error:
        sqs_any.purge_queue(QueueUrl=queue_url)
    assert isinstance(error.value, sqs_any.exceptions.PurgeQueueInProgress)

    control.advance(1)  # 60 s after the first purge
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="after")
    assert [m["Body"] for m in messages(sqs_any.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0))] == ["after"]
    sqs_any.purge_queue(QueueUrl=queue_url)
    assert counts(sqs_any, queue_url) == (0, 0, 0)


def test_queue_names(sqs_any):
    longest = "n" * 80
    assert sqs_any.create_queue(QueueName=longest)["QueueUrl"].endswith("/" + longest)
    assert sqs_any.create_queue(QueueName="A-b_9")["QueueUrl"].endswith("/A-b_9")
    for bad in ("n" * 81, "has space", "dot.ted", "slash/ed"):
        with raises_code("InvalidParameterValue", 400):
            sqs_any.create_queue(QueueName=bad)
    # Names are case-sensitive: another queue.
    assert sqs_any.create_queue(QueueName="a-B_9")["QueueUrl"].endswith("/a-B_9")
    assert len(sqs_any.list_queues()["QueueUrls"]) == 3
