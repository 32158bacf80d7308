"""SNS through boto3: topics (idempotent creation, attributes, tags, paging), errors with AWS's codes,
and an e-mail subscription confirmed with the token the emulator put in its outbox.

Deliveries to SQS are in test_sns_sqs.py, to a real HTTP endpoint in test_sns_http.py.
Facts: the SNS API reference and developer guide (docs/decisions.md, "SNS")."""

import json
import re

from sns_helpers import ACCOUNT, UUID, query_param, sqs_queue, topic_arn
from sqs_helpers import raises_code

# What AWS answers for a topic with no delivery policy (docs/sns.md, "Effective delivery policy").
DEFAULT_EFFECTIVE_DELIVERY_POLICY = {
    "http": {
        "defaultHealthyRetryPolicy": {
            "minDelayTarget": 20,
            "maxDelayTarget": 20,
            "numRetries": 3,
            "numMaxDelayRetries": 0,
            "numNoDelayRetries": 0,
            "numMinDelayRetries": 0,
            "backoffFunction": "linear",
        },
        "disableSubscriptionOverrides": False,
        "defaultRequestPolicy": {"headerContentType": "text/plain; charset=UTF-8"},
    }
}


# --- topics ---------------------------------------------------------------------------------------


def test_create_topic_is_idempotent(sns):
    arn = sns.create_topic(Name="orders")["TopicArn"]
    assert arn == topic_arn("orders")
    assert sns.create_topic(Name="orders")["TopicArn"] == arn

    # Same attributes: same topic; other attributes: AWS refuses.
    with_attrs = sns.create_topic(Name="billing", Attributes={"DisplayName": "Billing"})["TopicArn"]
    assert sns.create_topic(Name="billing", Attributes={"DisplayName": "Billing"})["TopicArn"] == with_attrs
    with raises_code("InvalidParameter", 400) as error:
        sns.create_topic(Name="billing", Attributes={"DisplayName": "Other"})
    assert error.value.response["Error"]["Message"] == (
        "Invalid parameter: Attributes Reason: Topic already exists with different attributes"
    )

    topics = [t["TopicArn"] for t in sns.list_topics()["Topics"]]
    assert sorted(topics) == sorted([arn, with_attrs])


def test_topic_attributes(sns):
    arn = sns.create_topic(Name="attrs")["TopicArn"]
    attributes = sns.get_topic_attributes(TopicArn=arn)["Attributes"]
    assert attributes["TopicArn"] == arn
    assert attributes["Owner"] == ACCOUNT
    assert attributes["DisplayName"] == ""
    assert attributes["SubscriptionsConfirmed"] == "0"
    assert attributes["SubscriptionsPending"] == "0"
    assert attributes["SubscriptionsDeleted"] == "0"
    assert json.loads(attributes["EffectiveDeliveryPolicy"]) == DEFAULT_EFFECTIVE_DELIVERY_POLICY
    assert "FifoTopic" not in attributes and "ContentBasedDeduplication" not in attributes
    policy = json.loads(attributes["Policy"])
    assert policy["Statement"], policy
    assert all(s["Effect"] == "Allow" and s["Resource"] == arn for s in policy["Statement"]), policy

    sns.set_topic_attributes(TopicArn=arn, AttributeName="DisplayName", AttributeValue="Orders desk")
    sns.set_topic_attributes(TopicArn=arn, AttributeName="SignatureVersion", AttributeValue="2")
    attributes = sns.get_topic_attributes(TopicArn=arn)["Attributes"]
    assert attributes["DisplayName"] == "Orders desk"
    assert attributes["SignatureVersion"] == "2"

    with raises_code("InvalidParameter", 400):  # FifoTopic is set at creation only
        sns.set_topic_attributes(TopicArn=arn, AttributeName="FifoTopic", AttributeValue="true")

    fifo = sns.create_topic(
        Name="attrs.fifo", Attributes={"FifoTopic": "true", "ContentBasedDeduplication": "true"}
    )["TopicArn"]
    assert fifo == topic_arn("attrs.fifo")
    attributes = sns.get_topic_attributes(TopicArn=fifo)["Attributes"]
    assert attributes["FifoTopic"] == "true"
    assert attributes["ContentBasedDeduplication"] == "true"


def test_subscription_counts(sns, sqs):
    arn = sns.create_topic(Name="counted")["TopicArn"]
    _, queue_arn = sqs_queue(sqs, "counted-q", arn)
    sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=queue_arn)
    sns.subscribe(TopicArn=arn, Protocol="email", Endpoint="ops@example.com")
    attributes = sns.get_topic_attributes(TopicArn=arn)["Attributes"]
    assert (attributes["SubscriptionsConfirmed"], attributes["SubscriptionsPending"]) == ("1", "1")


def test_tags(sns):
    arn = sns.create_topic(Name="tagged", Tags=[{"Key": "team", "Value": "payments"}])["TopicArn"]
    assert sns.list_tags_for_resource(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "payments"}]

    # Same tags: the same topic; other tags: refused.
    assert sns.create_topic(Name="tagged", Tags=[{"Key": "team", "Value": "payments"}])["TopicArn"] == arn
    with raises_code("InvalidParameter", 400) as error:
        sns.create_topic(Name="tagged", Tags=[{"Key": "team", "Value": "search"}])
    assert error.value.response["Error"]["Message"] == (
        "Invalid parameter: Tags Reason: Topic already exists with different tags"
    )

    sns.tag_resource(ResourceArn=arn, Tags=[{"Key": "env", "Value": "test"}, {"Key": "team", "Value": "core"}])
    tags = {t["Key"]: t["Value"] for t in sns.list_tags_for_resource(ResourceArn=arn)["Tags"]}
    assert tags == {"team": "core", "env": "test"}

    sns.untag_resource(ResourceArn=arn, TagKeys=["team"])
    assert sns.list_tags_for_resource(ResourceArn=arn)["Tags"] == [{"Key": "env", "Value": "test"}]

    with raises_code("ResourceNotFound", 404):
        sns.list_tags_for_resource(ResourceArn=topic_arn("nope"))


def test_list_topics_pages_by_100(sns):
    created = {sns.create_topic(Name=f"t{i:03d}")["TopicArn"] for i in range(101)}
    first = sns.list_topics()
    assert len(first["Topics"]) == 100
    assert first.get("NextToken")
    second = sns.list_topics(NextToken=first["NextToken"])
    assert len(second["Topics"]) == 1
    assert not second.get("NextToken")
    assert {t["TopicArn"] for t in first["Topics"] + second["Topics"]} == created


def test_delete_topic(sns, sqs):
    arn = sns.create_topic(Name="doomed")["TopicArn"]
    _, queue_arn = sqs_queue(sqs, "doomed-q", arn)
    sub = sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=queue_arn)["SubscriptionArn"]
    sns.delete_topic(TopicArn=arn)
    assert sns.list_topics()["Topics"] == []
    with raises_code("NotFound", 404):
        sns.get_topic_attributes(TopicArn=arn)
    # Its subscriptions go with it.
    assert sub not in [s["SubscriptionArn"] for s in sns.list_subscriptions()["Subscriptions"]]
    sns.delete_topic(TopicArn=arn)  # deleting a missing topic succeeds


# --- errors ---------------------------------------------------------------------------------------


def test_not_found(sns):
    missing = topic_arn("missing")
    with raises_code("NotFound", 404) as error:
        sns.get_topic_attributes(TopicArn=missing)
    assert error.value.response["Error"]["Message"] == "Topic does not exist"
    with raises_code("NotFound", 404):
        sns.publish(TopicArn=missing, Message="hello")
    with raises_code("NotFound", 404):
        sns.subscribe(TopicArn=missing, Protocol="email", Endpoint="a@example.com")
    with raises_code("NotFound", 404):
        sns.set_topic_attributes(TopicArn=missing, AttributeName="DisplayName", AttributeValue="x")
    with raises_code("NotFound", 404):
        sns.list_subscriptions_by_topic(TopicArn=missing)
    with raises_code("NotFound", 404) as error:
        sns.get_subscription_attributes(SubscriptionArn=missing + ":0b7b0c1e-6f3a-4c5d-9e8f-0a1b2c3d4e5f")
    assert error.value.response["Error"]["Message"] == "Subscription does not exist"


def test_invalid_parameters(sns, sqs):
    with raises_code("InvalidParameter", 400) as error:
        sns.create_topic(Name="bad name!")
    assert error.value.response["Error"]["Message"] == "Invalid parameter: Topic Name"
    with raises_code("InvalidParameter", 400):
        sns.create_topic(Name="x" * 257)
    with raises_code("InvalidParameter", 400):  # .fifo without FifoTopic=true
        sns.create_topic(Name="plain.fifo")
    with raises_code("InvalidParameter", 400):  # FifoTopic=true without .fifo
        sns.create_topic(Name="plain", Attributes={"FifoTopic": "true"})

    with raises_code("InvalidParameter", 400) as error:
        sns.get_topic_attributes(TopicArn="not-an-arn")
    assert error.value.response["Error"]["Message"] == (
        "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1"
    )

    arn = sns.create_topic(Name="valid")["TopicArn"]
    with raises_code("InvalidParameter", 400) as error:
        sns.subscribe(TopicArn=arn, Protocol="carrier-pigeon", Endpoint="coop")
    assert error.value.response["Error"]["Message"] == (
        "Invalid parameter: Amazon SNS does not support this protocol string: carrier-pigeon"
    )
    with raises_code("InvalidParameter", 400) as error:
        sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint="not-an-arn")
    assert error.value.response["Error"]["Message"] == "Invalid parameter: SQS endpoint ARN"

    with raises_code("InvalidParameter", 400) as error:
        sns.publish(TopicArn=arn, Message="")
    assert error.value.response["Error"]["Message"] == "Invalid parameter: Empty message"
    with raises_code("InvalidParameter", 400):  # over 256 KiB
        sns.publish(TopicArn=arn, Message="x" * (262_144 + 1))
    with raises_code("InvalidParameter", 400):  # MessageStructure=json needs a "default" entry
        sns.publish(TopicArn=arn, Message=json.dumps({"sqs": "only"}), MessageStructure="json")
    with raises_code("InvalidParameter", 400):  # dedup id on a standard topic
        sns.publish(TopicArn=arn, Message="m", MessageDeduplicationId="d1")
    with raises_code("ParameterValueInvalid", 400):
        sns.publish(
            TopicArn=arn, Message="m", MessageAttributes={"a": {"DataType": "Stringprefixed", "StringValue": "v"}}
        )
    with raises_code("ParameterValueInvalid", 400):
        sns.publish(TopicArn=arn, Message="m", MessageAttributes={"a": {"DataType": "String", "StringValue": ""}})

    _, queue_arn = sqs_queue(sqs, "valid-q", arn)
    sub = sns.subscribe(TopicArn=arn, Protocol="sqs", Endpoint=queue_arn)["SubscriptionArn"]
    with raises_code("InvalidParameter", 400) as error:
        sns.set_subscription_attributes(
            SubscriptionArn=sub, AttributeName="RawMessageDelivery", AttributeValue="maybe"
        )
    assert error.value.response["Error"]["Message"] == (
        "Invalid parameter: RawMessageDelivery: Invalid value [maybe]. Must be true or false."
    )
    with raises_code("InvalidParameter", 400) as error:
        sns.set_subscription_attributes(SubscriptionArn=sub, AttributeName="Color", AttributeValue="red")
    assert error.value.response["Error"]["Message"] == "Invalid parameter: AttributeName"
    with raises_code("InvalidParameter", 400):  # another subscription, other attributes
        sns.subscribe(
            TopicArn=arn, Protocol="sqs", Endpoint=queue_arn, Attributes={"RawMessageDelivery": "true"}
        )


# --- e-mail: confirmation token through the outbox ------------------------------------------------


def test_email_subscription_confirmed_from_outbox(sns, control):
    arn = sns.create_topic(Name="newsletter")["TopicArn"]
    address = "reader@example.com"
    answer = sns.subscribe(TopicArn=arn, Protocol="email", Endpoint=address)
    assert answer["SubscriptionArn"] == "pending confirmation"
    control.advance(0)

    listed = sns.list_subscriptions_by_topic(TopicArn=arn)["Subscriptions"]
    assert [(s["SubscriptionArn"], s["Protocol"], s["Endpoint"]) for s in listed] == [
        ("PendingConfirmation", "email", address)
    ]

    r = control.get("/outbox", protocol="email")
    assert r.status_code == 200, r.text
    sent = r.json()["messages"]
    assert len(sent) == 1, sent
    confirmation = sent[0]
    assert confirmation["protocol"] == "email"
    assert confirmation["target"] == address
    # The mail carries the SubscribeURL, whose Token confirms the subscription.
    urls = re.findall(r"\S+\?Action=ConfirmSubscription\S+", confirmation["body"])
    assert len(urls) == 1, confirmation["body"]
    assert query_param(urls[0], "TopicArn") == arn
    token = query_param(urls[0], "Token")

    with raises_code("InvalidParameter", 400):
        sns.confirm_subscription(TopicArn=arn, Token="randomtoken")

    sub = sns.confirm_subscription(TopicArn=arn, Token=token)["SubscriptionArn"]
    assert sub.startswith(arn + ":") and UUID.match(sub[len(arn) + 1 :]), sub
    attributes = sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]
    assert attributes["PendingConfirmation"] == "false"
    assert attributes["ConfirmationWasAuthenticated"] == "true"  # ConfirmSubscription was signed
    assert attributes["Protocol"] == "email"
    assert attributes["Endpoint"] == address
    assert attributes["TopicArn"] == arn
    assert attributes["Owner"] == ACCOUNT
    topic = sns.get_topic_attributes(TopicArn=arn)["Attributes"]
    assert (topic["SubscriptionsConfirmed"], topic["SubscriptionsPending"]) == ("1", "0")

    assert control.delete("/outbox").status_code in (200, 204)
    published = sns.publish(TopicArn=arn, Message="Issue 1 is out", Subject="Issue 1")
    control.advance(0)
    sent = control.get("/outbox", protocol="email").json()["messages"]
    assert len(sent) == 1, sent
    assert sent[0]["target"] == address
    assert sent[0]["messageId"] == published["MessageId"]
    assert sent[0]["body"] == "Issue 1 is out"
    assert sent[0]["source"] == sub


def test_email_json_confirmation_is_the_json_document(sns, control):
    arn = sns.create_topic(Name="feed")["TopicArn"]
    sns.subscribe(TopicArn=arn, Protocol="email-json", Endpoint="robot@example.com")
    control.advance(0)
    sent = control.get("/outbox", protocol="email-json").json()["messages"]
    assert len(sent) == 1, sent
    doc = json.loads(sent[0]["body"])
    assert doc["Type"] == "SubscriptionConfirmation"
    assert doc["TopicArn"] == arn
    assert query_param(doc["SubscribeURL"], "Token") == doc["Token"]
    sub = sns.confirm_subscription(TopicArn=arn, Token=doc["Token"])["SubscriptionArn"]
    assert sns.get_subscription_attributes(SubscriptionArn=sub)["Attributes"]["PendingConfirmation"] == "false"
