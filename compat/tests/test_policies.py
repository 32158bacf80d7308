"""Account isolation through boto3 (docs/policies.md): another account's queue, topic or bus is
the resource policy's to grant, owner-only actions stay refused, a send permission is not a
receive permission, and a topic of one account delivers to another's queue only by its policy."""

import json

import pytest

from conftest import REGION
from sqs_helpers import raises_code

OWNER = "111111111111"
OTHER = "222222222222"
SQS_DENIED = f"Access to the resource https://sqs.{REGION}.amazonaws.com/ is denied."


@pytest.fixture
def as_account(make_client):
    return lambda service, account, **kw: make_client(service, aws_access_key_id=account, **kw)


def test_sqs_queue_of_another_account_by_policy(as_account):
    owner, other = as_account("sqs", OWNER), as_account("sqs", OTHER)
    url = owner.create_queue(QueueName="guarded")["QueueUrl"]
    owner.send_message(QueueUrl=url, MessageBody="secret")
    with raises_code("AWS.SimpleQueueService.NonExistentQueue", 400):
        other.get_queue_url(QueueName="guarded", QueueOwnerAWSAccountId=OWNER)
    for call in (
        lambda: other.receive_message(QueueUrl=url),
        lambda: other.send_message(QueueUrl=url, MessageBody="x"),
        lambda: other.get_queue_attributes(QueueUrl=url),
        lambda: other.purge_queue(QueueUrl=url),
    ):
        with raises_code("AccessDenied", 403) as error:
            call()
        assert error.value.response["Error"]["Message"] == SQS_DENIED

    # A send permission lets it send, not receive.
    owner.add_permission(QueueUrl=url, Label="send", AWSAccountIds=[OTHER], Actions=["SendMessage"])
    other.send_message(QueueUrl=url, MessageBody="theirs")
    with raises_code("AccessDenied", 403):
        other.receive_message(QueueUrl=url)
    # Allowing everything leaves the owner's actions to the owner.
    policy = {"Statement": [{"Effect": "Allow", "Principal": {"AWS": OTHER}, "Action": "sqs:*"}]}
    owner.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps(policy)})
    got = other.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert sorted(m["Body"] for m in got) == ["secret", "theirs"]
    with raises_code("AccessDenied", 403):
        other.set_queue_attributes(QueueUrl=url, Attributes={"Policy": ""})
    with raises_code("AccessDenied", 403):
        other.delete_queue(QueueUrl=url)


def test_sqs_query_protocol_refusal(as_account):
    owner = as_account("sqs", OWNER)
    other = as_account("sqs", OTHER, query=True)
    url = owner.create_queue(QueueName="guarded-query")["QueueUrl"]
    with raises_code("AccessDenied", 403) as error:
        other.send_message(QueueUrl=url, MessageBody="x")
    assert error.value.response["Error"]["Message"] == SQS_DENIED


def test_sns_topic_of_another_account(as_account):
    owner, other = as_account("sns", OWNER), as_account("sns", OTHER)
    topic = owner.create_topic(Name="news")["TopicArn"]
    with raises_code("AuthorizationError", 403) as error:
        other.get_topic_attributes(TopicArn=topic)
    assert error.value.response["Error"]["Message"] == (
        f"User: arn:aws:iam::{OTHER}:root is not authorized to perform: SNS:GetTopicAttributes "
        f"on resource: {topic} because no resource-based policy allows the SNS:GetTopicAttributes action"
    )
    with raises_code("AuthorizationError", 403):
        other.delete_topic(TopicArn=topic)
    owner.add_permission(TopicArn=topic, Label="read", AWSAccountId=[OTHER], ActionName=["GetTopicAttributes"])
    assert other.get_topic_attributes(TopicArn=topic)["Attributes"]["TopicArn"] == topic
    with raises_code("AuthorizationError", 403):
        other.publish(TopicArn=topic, Message="x")


def test_sns_delivers_to_another_accounts_queue_by_its_policy(as_account, control):
    sns, sqs = as_account("sns", OWNER), as_account("sqs", OTHER)
    topic = sns.create_topic(Name="fanout")["TopicArn"]
    url = sqs.create_queue(QueueName="theirs")["QueueUrl"]
    queue = f"arn:aws:sqs:{REGION}:{OTHER}:theirs"
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue, Attributes={"RawMessageDelivery": "true"})
    sns.publish(TopicArn=topic, Message="refused")
    control.advance(3600)
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    policy = {"Statement": [{"Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"},
                             "Action": "sqs:SendMessage", "Resource": queue,
                             "Condition": {"ArnEquals": {"aws:SourceArn": topic}}}]}
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps(policy)})
    sns.publish(TopicArn=topic, Message="welcome")
    assert [m["Body"] for m in sqs.receive_message(QueueUrl=url)["Messages"]] == ["welcome"]


def test_eventbridge_rules_on_another_accounts_bus(as_account):
    owner, other = as_account("events", OWNER), as_account("events", OTHER)
    bus = f"arn:aws:events:{REGION}:{OWNER}:event-bus/default"
    owner.list_rules()  # the owner's default bus
    with raises_code("AccessDeniedException", 400) as error:
        other.put_rule(Name="copy", EventBusName=bus, EventPattern='{"source":[{"prefix":""}]}')
    rule = f"arn:aws:events:{REGION}:{OWNER}:rule/copy"
    assert error.value.response["Error"]["Message"] == (
        f"User: arn:aws:iam::{OTHER}:root is not authorized to perform: events:PutRule on resource: "
        f"{rule} because no resource-based policy allows the events:PutRule action"
    )
    with raises_code("AccessDeniedException", 400):
        other.put_permission(EventBusName=bus, Action="events:PutEvents", Principal=OTHER, StatementId="me")
    policy = {"Statement": [{"Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{OTHER}:root"},
                             "Action": "events:PutRule", "Resource": f"arn:aws:events:{REGION}:{OWNER}:rule/*"}]}
    owner.put_permission(Policy=json.dumps(policy))
    other.put_rule(Name="copy", EventBusName=bus, EventPattern='{"source":["shop"]}')
    with raises_code("AccessDeniedException", 400):
        other.list_rules(EventBusName=bus)
