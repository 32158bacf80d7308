"""LocalStack's developer endpoints (docs/localstack.md) as LocalStack users call them: `requests`
for the curl-like calls, boto3 to make the resources and, pointed at /_aws/sqs/messages, to peek."""

import json
import urllib.parse

import pytest
import requests

ACCOUNT = "000000000000"


@pytest.fixture(scope="session")
def http(url):
    """GET/POST/DELETE on the emulator's port, no proxies from the machine."""
    session = requests.Session()
    session.trust_env = False

    def call(method, path, **kwargs):
        return session.request(method, url + path, timeout=30, **kwargs)

    return call


@pytest.fixture(scope="session")
def events(make_client):
    return make_client("events")


def error_of(response, status):
    assert response.status_code == status, f"{response.status_code} {response.text}"
    body = response.json()
    assert body["error"] and body["message"], body
    return body["error"]


def test_health_info_and_init(http, control):
    health = http("GET", "/_localstack/health")
    assert health.status_code == 200, health.text
    assert health.json() == {
        "services": {s: "running" for s in ("sqs", "sns", "events", "sts", "iam", "scheduler", "pipes", "lambda")},
        "edition": "community",
        "version": control.get("/health").json()["version"],
    }
    head = http("HEAD", "/_localstack/health")
    assert (head.status_code, head.content) == (200, b"")
    assert error_of(http("POST", "/_localstack/health", json={"action": "restart"}), 405) == "MethodNotAllowed"

    info = http("GET", "/_localstack/info").json()
    assert set(info) == {
        "version", "edition", "is_license_activated", "session_id", "machine_id", "system",
        "is_docker", "server_time_utc", "uptime",
    }
    assert info["server_time_utc"] == control.clock()["now"][:19]
    control.advance(60)
    assert http("GET", "/_localstack/info").json()["server_time_utc"] == control.clock()["now"][:19]

    assert http("GET", "/_localstack/init").json() == {
        "completed": {"BOOT": True, "START": True, "READY": True, "SHUTDOWN": False},
        "scripts": [],
    }
    assert http("GET", "/_localstack/init/Start").json() == {"completed": True, "scripts": []}
    assert error_of(http("GET", "/_localstack/init/later"), 404) == "NotFound"
    assert error_of(http("GET", "/_localstack/diagnose"), 404) == "NotFound"


@pytest.fixture
def peek_queue(sqs):
    url = sqs.create_queue(QueueName="boto-peek")["QueueUrl"]
    sqs.send_message(
        QueueUrl=url,
        MessageBody="first",
        MessageAttributes={"kind": {"DataType": "String", "StringValue": "order"}},
    )
    sqs.send_message(QueueUrl=url, MessageBody="second")
    sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=60)
    return url


@pytest.mark.parametrize("query", [False, True], ids=["json", "query"])
def test_boto3_pointed_at_the_peek_endpoint_receives_without_side_effects(make_client, url, sqs, peek_queue, query):
    peeker = make_client("sqs", query=query, endpoint_url=url + "/_aws/sqs/messages")
    got = peeker.receive_message(QueueUrl=peek_queue)["Messages"]
    assert [m["Body"] for m in got] == ["first", "second"]
    assert {m["ReceiptHandle"] for m in got} == {"SQS/BACKDOOR/ACCESS"}
    assert got[0]["MessageAttributes"] == {"kind": {"DataType": "String", "StringValue": "order"}}
    assert got[0]["Attributes"]["ApproximateReceiveCount"] == "0"
    assert got[0]["Attributes"]["SenderId"]
    with pytest.raises(peeker.exceptions.ClientError) as refused:
        peeker.delete_queue(QueueUrl=peek_queue)
    assert refused.value.response["Error"]["Code"] == "InvalidRequest"
    with pytest.raises(peeker.exceptions.QueueDoesNotExist):
        peeker.receive_message(QueueUrl=peek_queue.replace("boto-peek", "absent"))
    # Nothing changed: the queue is still there and its messages are received for the first time.
    received = sqs.receive_message(
        QueueUrl=peek_queue, MaxNumberOfMessages=10, MessageSystemAttributeNames=["ApproximateReceiveCount"]
    )["Messages"]
    assert sorted(m["Body"] for m in received) == ["first", "second"]
    assert {m["Attributes"]["ApproximateReceiveCount"] for m in received} == {"1"}


def test_the_peek_endpoint_by_path_with_invisible_and_delayed(http, sqs, peek_queue):
    sqs.receive_message(QueueUrl=peek_queue, MaxNumberOfMessages=1)
    path = f"/_aws/sqs/messages/us-east-1/{ACCOUNT}/boto-peek"
    listed = http("GET", path, params={"ShowInvisible": "true", "ShowDelayed": "true"}, headers={"Accept": "application/json"})
    assert listed.status_code == 200, listed.text
    messages = listed.json()["ReceiveMessageResponse"]["ReceiveMessageResult"]["Message"]
    flags = {
        m["Body"]: {a["Name"]: a["Value"] for a in m["Attribute"] if a["Name"] in ("IsVisible", "IsDelayed")}
        for m in messages
    }
    assert flags == {
        "first": {"IsVisible": "false", "IsDelayed": "false"},
        "second": {"IsVisible": "true", "IsDelayed": "false"},
        "later": {"IsVisible": "false", "IsDelayed": "true"},
    }
    xml = http("GET", "/_aws/sqs/messages", params={"QueueUrl": peek_queue})
    assert xml.headers["Content-Type"].startswith("text/xml")
    assert xml.text.count("<ReceiptHandle>SQS/BACKDOOR/ACCESS</ReceiptHandle>") == 1, xml.text
    missing = http("GET", f"/_aws/sqs/messages/us-east-1/{ACCOUNT}/absent", headers={"Accept": "application/json"})
    assert missing.status_code == 400
    assert missing.json()["ErrorResponse"]["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue"


def test_sms_messages_view_and_clear_the_outbox(http, sns, control):
    sns.publish(
        PhoneNumber="+15550177",
        Message="code 7",
        MessageAttributes={"AWS.SNS.SMS.SMSType": {"DataType": "String", "StringValue": "Transactional"}},
    )
    topic = sns.create_topic(Name="boto-alerts")["TopicArn"]
    sub = sns.subscribe(TopicArn=topic, Protocol="sms", Endpoint="+15550178", ReturnSubscriptionArn=True)[
        "SubscriptionArn"
    ]
    sns.publish(TopicArn=topic, Message="disk full", Subject="Alert")
    listed = http("GET", "/_aws/sns/sms-messages").json()
    assert listed["region"] == "us-east-1"
    direct, = listed["sms_messages"]["+15550177"]
    assert direct["Message"] == "code 7" and direct["TopicArn"] is None
    assert direct["MessageAttributes"] == {"AWS.SNS.SMS.SMSType": {"DataType": "String", "StringValue": "Transactional"}}
    fanned, = listed["sms_messages"]["+15550178"]
    assert (fanned["TopicArn"], fanned["SubscriptionArn"], fanned["Subject"]) == (topic, sub, "Alert")

    assert http("GET", "/_aws/sns/sms-messages", params={"region": "eu-west-1"}).json() == {
        "sms_messages": {},
        "region": "eu-west-1",
    }
    cleared = http("DELETE", "/_aws/sns/sms-messages", params={"phoneNumber": "+15550177"})
    assert (cleared.status_code, cleared.text) == (204, "")
    assert list(http("GET", "/_aws/sns/sms-messages").json()["sms_messages"]) == ["+15550178"]
    assert [m["target"] for m in control.get("/outbox", protocol="sms").json()["messages"]] == ["+15550178"]
    # And the other way round: emptying the outbox empties the view.
    control.delete("/outbox")
    assert http("GET", "/_aws/sns/sms-messages").json()["sms_messages"] == {}
    assert error_of(http("PUT", "/_aws/sns/sms-messages"), 405) == "MethodNotAllowed"


def test_platform_endpoint_messages(http, sns):
    app = sns.create_platform_application(Name="boto-app", Platform="GCM", Attributes={"PlatformCredential": "key"})
    endpoint = sns.create_platform_endpoint(PlatformApplicationArn=app["PlatformApplicationArn"], Token="device")[
        "EndpointArn"
    ]
    message_id = sns.publish(TargetArn=endpoint, Message="ping")["MessageId"]
    listed = http("GET", "/_aws/sns/platform-endpoint-messages", params={"endpointArn": endpoint}).json()
    assert listed == {
        "platform_endpoint_messages": {
            endpoint: [
                {
                    "TargetArn": endpoint,
                    "TopicArn": None,
                    "Message": "ping",
                    "MessageAttributes": None,
                    "MessageStructure": None,
                    "Subject": None,
                    "MessageId": message_id,
                }
            ]
        },
        "region": "us-east-1",
    }
    assert http("DELETE", "/_aws/sns/platform-endpoint-messages").status_code == 204
    assert http("GET", "/_aws/sns/platform-endpoint-messages").json()["platform_endpoint_messages"] == {}
    assert error_of(http("GET", "/_aws/sns/platform-endpoint-messages", params={"endpointArn": "x"}), 400) == "InvalidArgument"


def test_subscription_tokens(http, sns, sqs):
    topic = sns.create_topic(Name="boto-external")["TopicArn"]
    pending = sns.subscribe(TopicArn=topic, Protocol="email-json", Endpoint="ops@example.com", ReturnSubscriptionArn=True)[
        "SubscriptionArn"
    ]
    answer = http("GET", f"/_aws/sns/subscription-tokens/{pending}").json()
    assert answer["subscription_arn"] == pending
    sns.confirm_subscription(TopicArn=topic, Token=answer["subscription_token"])
    attributes = sns.get_subscription_attributes(SubscriptionArn=pending)["Attributes"]
    assert attributes["PendingConfirmation"] == "false"
    quoted = urllib.parse.quote(pending, safe="")
    assert http("GET", f"/_aws/sns/subscription-tokens/{quoted}").json() == answer

    queue_arn = sqs.get_queue_attributes(
        QueueUrl=sqs.create_queue(QueueName="boto-tokens")["QueueUrl"], AttributeNames=["QueueArn"]
    )["Attributes"]["QueueArn"]
    confirmed_at_once = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn, ReturnSubscriptionArn=True)[
        "SubscriptionArn"
    ]
    for arn in (confirmed_at_once, topic + ":nope"):
        r = http("GET", f"/_aws/sns/subscription-tokens/{arn}")
        assert (r.status_code, r.json()) == (
            404,
            {"error": "The provided SubscriptionARN is not found", "subscription_arn": arn},
        )
    r = http("GET", "/_aws/sns/subscription-tokens/randomarnhere")
    assert (r.status_code, r.json()) == (
        400,
        {"error": "The provided SubscriptionARN is invalid", "subscription_arn": "randomarnhere"},
    )


def test_trigger_a_scheduled_rule(http, events, sqs, control):
    url = sqs.create_queue(QueueName="boto-ticks")["QueueUrl"]
    rule = events.put_rule(Name="boto-hourly", ScheduleExpression="rate(1 hour)")["RuleArn"]
    events.put_targets(Rule="boto-hourly", Targets=[{"Id": "q", "Arn": f"arn:aws:sqs:us-east-1:{ACCOUNT}:boto-ticks"}])
    fired = http("POST", f"/_aws/events/rules/{rule}/trigger")
    assert fired.status_code == 200, fired.text
    (message,) = sqs.receive_message(QueueUrl=url)["Messages"]
    event = json.loads(message["Body"])
    assert (event["id"], event["detail-type"], event["source"], event["resources"]) == (
        fired.json()["eventId"],
        "Scheduled Event",
        "aws.events",
        [rule],
    )
    pattern = events.put_rule(Name="boto-orders", EventPattern='{"source": ["shop"]}')["RuleArn"]
    assert error_of(http("GET", f"/_aws/events/rules/{pattern}/trigger"), 404) == "NotFound"
    assert error_of(http("GET", f"/_aws/events/rules/{rule}x/trigger"), 404) == "NotFound"
    assert error_of(http("GET", "/_aws/events/rules/nonsense/trigger"), 400) == "InvalidArgument"
    events.disable_rule(Name="boto-hourly")
    assert error_of(http("GET", f"/_aws/events/rules/{rule}/trigger"), 409) == "RuleDisabled"
