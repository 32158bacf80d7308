"""SNS answers as AWS gives them, through boto3 (issue 14, items 6-10): error shapes without a Detail
element, SubscriptionPrincipal and FifoThroughputScope, CreateTopic on an existing topic, duplicate
tag keys, PublishBatch validation, filter policy limits and changes, platform endpoint and SMS
wording, the headers of HTTP deliveries, the UnsubscribeConfirmation's token and the subscription
counts.

The expected answers are AWS's, as recorded by LocalStack's AWS-validated SNS tests
(tests/aws/services/sns/test_sns.snapshot.json, test_sns_filter_policy.snapshot.json)."""

import json

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from sns_helpers import Recorder, http_get, receive_and_delete, sqs_queue


def error_of(call, **kwargs):
    """The parsed error of a call that must fail: boto3's `Error` dict and the HTTP status."""
    with pytest.raises(ClientError) as error:
        call(**kwargs)
    response = error.value.response
    return response["Error"], response["ResponseMetadata"]["HTTPStatusCode"]


def sender(code, message):
    """An SNS error as boto3 parses AWS's: Type, Code and Message, and no Detail."""
    return {"Type": "Sender", "Code": code, "Message": message}


@pytest.fixture
def endpoint():
    with Recorder() as recorder:
        yield recorder


# --- item 6: no Detail element ----------------------------------------------------------------------


def test_sns_errors_have_no_detail_and_sqs_errors_keep_it(sns, sqs_query):
    missing = "arn:aws:sns:us-east-1:000000000000:missing"
    assert error_of(sns.get_topic_attributes, TopicArn=missing) == (
        sender("NotFound", "Topic does not exist"),
        404,
    )
    assert error_of(sns.publish, TopicArn="bad", Message="m") == (
        sender("InvalidParameter", "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1"),
        400,
    )
    # SQS over Query keeps its empty Detail element (boto3 shows it as None).
    error, status = error_of(sqs_query.get_queue_url, QueueName="missing")
    assert status == 400 and "Detail" in error and error["Detail"] is None, error


# --- item 7: SubscriptionPrincipal, FifoThroughputScope ---------------------------------------------


def test_subscription_principal_is_the_callers_identity(make_client):
    for key in ["test", "111122223333"]:
        sns = make_client("sns", aws_access_key_id=key)
        sts = make_client("sts", aws_access_key_id=key)
        me = sts.get_caller_identity()
        topic = sns.create_topic(Name="principal")["TopicArn"]
        sub = sns.subscribe(TopicArn=topic, Protocol="sms", Endpoint="+15551234567")["SubscriptionArn"]
        attributes = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
        assert attributes["SubscriptionPrincipal"] == me["Arn"], (attributes, me)
        assert attributes["Owner"] == me["Account"]


def test_fifo_throughput_scope_is_shown_only_once_set(sns):
    arn = sns.create_topic(Name="scope.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    attributes = sns.get_topic_attributes(TopicArn=arn)["Attributes"]
    assert attributes["FifoTopic"] == "true"
    assert attributes["ContentBasedDeduplication"] == "false"
    assert "FifoThroughputScope" not in attributes, attributes

    sns.set_topic_attributes(TopicArn=arn, AttributeName="FifoThroughputScope", AttributeValue="MessageGroup")
    assert sns.get_topic_attributes(TopicArn=arn)["Attributes"]["FifoThroughputScope"] == "MessageGroup"

    given = sns.create_topic(
        Name="scoped.fifo", Attributes={"FifoTopic": "true", "FifoThroughputScope": "Topic"}
    )["TopicArn"]
    assert sns.get_topic_attributes(TopicArn=given)["Attributes"]["FifoThroughputScope"] == "Topic"


# --- item 8: CreateTopic, tags, PublishBatch, filter policies ---------------------------------------


def test_create_topic_on_an_existing_topic(sns):
    arn = sns.create_topic(Name="orders", Attributes={"DisplayName": "Orders"})["TopicArn"]
    # No attributes, the same ones, or FifoTopic=false on a standard topic: the same topic.
    assert sns.create_topic(Name="orders")["TopicArn"] == arn
    assert sns.create_topic(Name="orders", Attributes={"DisplayName": "Orders"})["TopicArn"] == arn
    assert sns.create_topic(Name="orders", Attributes={"FifoTopic": "false"})["TopicArn"] == arn
    assert error_of(sns.create_topic, Name="orders", Attributes={"DisplayName": "Other"}) == (
        sender("InvalidParameter", "Invalid parameter: Attributes Reason: Topic already exists with different attributes"),
        400,
    )
    # The topic is unchanged.
    assert sns.get_topic_attributes(TopicArn=arn)["Attributes"]["DisplayName"] == "Orders"

    tags = [{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}]
    tagged = sns.create_topic(Name="tagged", Tags=tags)["TopicArn"]
    for again in [tags, [tags[0]], []]:
        assert sns.create_topic(Name="tagged", Tags=again)["TopicArn"] == tagged
    assert error_of(sns.create_topic, Name="orders", Tags=[{"Key": "key1", "Value": "value1"}]) == (
        sender("InvalidParameter", "Invalid parameter: Tags Reason: Topic already exists with different tags"),
        400,
    )
    assert sns.list_tags_for_resource(ResourceArn=tagged)["Tags"] == tags


def test_duplicate_tag_keys_are_refused(sns):
    duplicated = [{"Key": "k1", "Value": "v1"}, {"Key": "k1", "Value": "v2"}]
    expected = (sender("InvalidParameter", "Invalid parameter: Duplicated keys are not allowed."), 400)
    assert error_of(sns.create_topic, Name="dup", Tags=duplicated) == expected
    arn = sns.create_topic(Name="dup")["TopicArn"]
    assert error_of(sns.tag_resource, ResourceArn=arn, Tags=duplicated) == expected
    assert sns.list_tags_for_resource(ResourceArn=arn)["Tags"] == []


def test_publish_batch_fifo_entry_without_group_fails_the_whole_request(sns, sqs):
    topic = sns.create_topic(
        Name="batch.fifo", Attributes={"FifoTopic": "true", "ContentBasedDeduplication": "true"}
    )["TopicArn"]
    queue, queue_arn = sqs_queue(sqs, "batch.fifo", topic, FifoQueue="true")
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn, Attributes={"RawMessageDelivery": "true"})
    entries = [{"Id": "1", "Message": "first", "MessageGroupId": "g"}, {"Id": "2", "Message": "second"}]
    assert error_of(sns.publish_batch, TopicArn=topic, PublishBatchRequestEntries=entries) == (
        sender("InvalidParameter", "Invalid parameter: The MessageGroupId parameter is required for FIFO topics"),
        400,
    )
    no_dedup = sns.create_topic(Name="nodedup.fifo", Attributes={"FifoTopic": "true"})["TopicArn"]
    assert error_of(
        sns.publish_batch, TopicArn=no_dedup, PublishBatchRequestEntries=[{"Id": "1", "Message": "m", "MessageGroupId": "g"}]
    ) == (
        sender(
            "InvalidParameter",
            "Invalid parameter: The topic should either have ContentBasedDeduplication enabled or "
            "MessageDeduplicationId provided explicitly",
        ),
        400,
    )
    # Nothing of the refused batch was published.
    assert receive_and_delete(sqs, queue) == []
    ok = sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[dict(entries[1], MessageGroupId="g")])
    assert [s["Id"] for s in ok["Successful"]] == ["2"] and ok["Failed"] == []
    assert [m["Body"] for m in receive_and_delete(sqs, queue)] == ["second"]


def test_publish_batch_validates_message_attribute_names(sns, make_client):
    topic = sns.create_topic(Name="batch-attributes")["TopicArn"]

    def entry(name, value):
        return [{"Id": "1", "Message": "m"}, {"Id": "2", "Message": "m", "MessageAttributes": {name: value}}]

    string = {"DataType": "String", "StringValue": "v"}
    cases = [
        ("attr^", "Invalid non-alphanumeric character '#x5E' was found in the message attribute name. Can only "
         "include alphanumeric characters, hyphens, underscores, or dots."),
        (".attr", "Invalid message attribute name starting with character '.' was found."),
        ("attr.", "Invalid message attribute name ending with character '.' was found."),
        ("at..tr", "Message attribute name can not have successive '.' character."),
        ("a" * 256, "Length of message attribute name must be less than 256 bytes."),
    ]
    for name, message in cases:
        assert error_of(sns.publish_batch, TopicArn=topic, PublishBatchRequestEntries=entry(name, string)) == (
            sender("ParameterValueInvalid", message),
            400,
        ), name
    # A value without a DataType (boto3 would refuse to send it; its checks are off here).
    unchecked = make_client(
        "sns", config=Config(retries={"mode": "standard", "max_attempts": 1}, parameter_validation=False)
    )
    assert error_of(
        unchecked.publish_batch, TopicArn=topic, PublishBatchRequestEntries=entry("attr1", {"StringValue": "v"})
    ) == (
        sender(
            "ValidationError",
            "1 validation error detected: Value null at "
            "'publishBatchRequestEntries.2.member.messageAttributes.attr1.member.dataType' failed to satisfy "
            "constraint: Member must not be null",
        ),
        400,
    )


def test_filter_policy_complexity_limit(sns, sqs):
    topic = sns.create_topic(Name="complex")["TopicArn"]
    _, queue_arn = sqs_queue(sqs, "complex", topic)

    def values(n, prefix="v"):
        return [f"{prefix}{i}" for i in range(n)]

    too_complex = [
        {"key": values(151)},
        {"a": values(10), "b": values(16)},
        {"$or": [{"a": values(100)}, {"b": values(51)}]},
    ]
    for policy in too_complex:
        assert error_of(
            sns.subscribe, TopicArn=topic, Protocol="sqs", Endpoint=queue_arn,
            Attributes={"FilterPolicy": json.dumps(policy)},
        ) == (
            sender("InvalidParameter", "Invalid parameter: Attributes Reason: FilterPolicy: Filter policy is too complex"),
            400,
        ), policy
    # 150 combinations are allowed.
    sub = sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=queue_arn,
        Attributes={"FilterPolicy": json.dumps({"a": values(10), "b": values(15)})},
    )["SubscriptionArn"]
    assert error_of(
        sns.set_subscription_attributes, SubscriptionArn=sub, AttributeName="FilterPolicy",
        AttributeValue=json.dumps({"key": values(151)}),
    ) == (sender("InvalidParameter", "Invalid parameter: FilterPolicy: Filter policy is too complex"), 400)

    # Nested (body) policies: a key n levels deep counts n times its values. AWS's example
    # (4 values three levels deep, 3 two levels deep: 3 x 4 x 2 x 3 = 72) is accepted; with a
    # third key of 3 values (216) AWS refused it.
    sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="FilterPolicyScope", AttributeValue="MessageBody")
    example = {
        "key_a": {"key_b": {"key_c": ["value_one", "value_two", "value_three", "value_four"]}},
        "key_d": {"key_e": ["value_one", "value_two", "value_three"]},
    }
    sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="FilterPolicy", AttributeValue=json.dumps(example))
    recorded = dict(example, key_f=["value_one", "value_two", "value_three"])
    assert error_of(
        sns.set_subscription_attributes, SubscriptionArn=sub, AttributeName="FilterPolicy",
        AttributeValue=json.dumps(recorded),
    ) == (sender("InvalidParameter", "Invalid parameter: FilterPolicy: Filter policy is too complex"), 400)
    assert json.loads(sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]["FilterPolicy"]) == example


def test_filter_policy_changes_apply_to_the_next_publish(sns, sqs):
    topic = sns.create_topic(Name="filtered")["TopicArn"]
    queue, queue_arn = sqs_queue(sqs, "filtered", topic)
    sub = sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=queue_arn,
        Attributes={"RawMessageDelivery": "true", "FilterPolicy": json.dumps({"color": ["red"]})},
    )["SubscriptionArn"]

    def publish(color):
        sns.publish(
            TopicArn=topic, Message=color, MessageAttributes={"color": {"DataType": "String", "StringValue": color}}
        )

    def bodies():
        return sorted(m["Body"] for m in receive_and_delete(sqs, queue))

    publish("red")
    publish("blue")
    assert bodies() == ["red"]

    sns.set_subscription_attributes(
        SubscriptionArn=sub, AttributeName="FilterPolicy", AttributeValue=json.dumps({"color": ["blue"]})
    )
    publish("red")
    publish("blue")
    assert bodies() == ["blue"]

    # "{}" is accepted and removes the policy: everything is delivered again.
    sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="FilterPolicy", AttributeValue="{}")
    attributes = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
    assert "FilterPolicy" not in attributes and "FilterPolicyScope" not in attributes, attributes
    publish("red")
    publish("green")
    assert bodies() == ["green", "red"]


# --- item 9: platform endpoints, SMS, Unsubscribe ---------------------------------------------------


def test_publish_to_a_disabled_endpoint_answers_before_reading_the_message(sns):
    app = sns.create_platform_application(
        Name="app", Platform="GCM", Attributes={"PlatformCredential": "server-key"}
    )["PlatformApplicationArn"]
    endpoint = sns.create_platform_endpoint(
        PlatformApplicationArn=app, Token="device-token", Attributes={"Enabled": "false"}
    )["EndpointArn"]
    expected = (sender("EndpointDisabled", "Endpoint is disabled"), 400)
    assert error_of(sns.publish, TargetArn=endpoint, Message="") == expected
    assert error_of(sns.publish, TargetArn=endpoint, Message="not json", MessageStructure="json") == expected
    sns.set_endpoint_attributes(EndpointArn=endpoint, Attributes={"Enabled": "true"})
    assert sns.publish(TargetArn=endpoint, Message="hello")["MessageId"]


def test_sms_endpoints(sns):
    topic = sns.create_topic(Name="texts")["TopicArn"]
    for number in ["+12/34-567.890", "+123123123"]:
        sub = sns.subscribe(TopicArn=topic, Protocol="sms", Endpoint=number)["SubscriptionArn"]
        assert sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]["Endpoint"] == number
    for bad in ["invalid-number", "NAA+15551234567", "+15--551234567", "+15551234567.", "/+15551234567", "+1a234"]:
        assert error_of(sns.subscribe, TopicArn=topic, Protocol="sms", Endpoint=bad) == (
            sender("InvalidParameter", f"Invalid SMS endpoint: {bad}"),
            400,
        ), bad


def test_set_sms_attributes_with_an_unknown_key(sns):
    assert error_of(sns.set_sms_attributes, attributes={"NotAnAttribute": "x"}) == (
        sender("InvalidParameter", "NotAnAttribute is not a valid attribute"),
        400,
    )
    assert "NotAnAttribute" not in sns.get_sms_attributes()["attributes"]


def test_unsubscribe_of_a_malformed_arn(sns):
    for arn, elements in [("randomarn", 1), ("arn:aws:sns:us-east-1", 4)]:
        expected = (
            sender(
                "InvalidParameter",
                f"Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not {elements}",
            ),
            400,
        )
        assert error_of(sns.unsubscribe, SubscriptionArn=arn) == expected
        assert error_of(sns.get_subscription_attributes, SubscriptionArn=arn) == expected


# --- item 10: HTTP deliveries, UnsubscribeConfirmation, counts --------------------------------------


def test_http_headers_unsubscribe_token_and_counts(sns, control, endpoint):
    topic = sns.create_topic(Name="hooks")["TopicArn"]

    def counts():
        a = sns.get_topic_attributes(TopicArn=topic)["Attributes"]
        return a["SubscriptionsConfirmed"], a["SubscriptionsPending"], a["SubscriptionsDeleted"]

    sns.subscribe(TopicArn=topic, Protocol="http", Endpoint=endpoint.url + "/hook")
    control.advance(0)
    [confirmation] = endpoint.take()
    common = {"accept-encoding", "connection", "content-length", "content-type", "host", "user-agent"}
    sns_headers = {"x-amz-sns-message-id", "x-amz-sns-message-type", "x-amz-sns-topic-arn"}
    assert set(confirmation.headers) == common | sns_headers, confirmation.headers
    assert confirmation.headers["accept-encoding"] == "gzip,deflate"
    assert confirmation.headers["user-agent"] == "Amazon Simple Notification Service Agent"
    assert confirmation.headers["x-amz-sns-message-type"] == "SubscriptionConfirmation"
    assert counts() == ("0", "1", "0")

    token = confirmation.json()["Token"]
    sub = sns.confirm_subscription(TopicArn=topic, Token=token)["SubscriptionArn"]
    assert counts() == ("1", "0", "0")

    sns.publish(TopicArn=topic, Message="hello")
    control.advance(0)
    [notification] = endpoint.take()
    assert set(notification.headers) == common | sns_headers | {"x-amz-sns-subscription-arn"}, notification.headers
    assert notification.headers["accept-encoding"] == "gzip,deflate"
    assert notification.headers["x-amz-sns-subscription-arn"] == sub

    sns.unsubscribe(SubscriptionArn=sub)
    control.advance(0)
    [goodbye] = endpoint.take()
    assert set(goodbye.headers) == common | sns_headers | {"x-amz-sns-subscription-arn"}, goodbye.headers
    doc = goodbye.json()
    assert doc["Type"] == "UnsubscribeConfirmation"
    # The UnsubscribeConfirmation carries a token of its own, in its SubscribeURL too.
    assert doc["Token"] and doc["Token"] != token
    assert doc["SubscribeURL"].endswith("&Token=" + doc["Token"])
    assert counts() == ("0", "0", "1")
    assert sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"] == []

    # Its SubscribeURL restores the subscription, which is delivered to again.
    r = http_get(doc["SubscribeURL"])
    assert r.status_code == 200, r.text
    assert sub in r.text
    assert [s["SubscriptionArn"] for s in sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]] == [sub]
    assert counts()[:2] == ("1", "0")
    sns.publish(TopicArn=topic, Message="welcome back")
    control.advance(0)
    [again] = endpoint.take()
    assert again.json()["Message"] == "welcome back"
