"""LocalStack's host names and queue URL shapes with boto3 (docs/localstack.md, "Host names and queue URLs").

Queue URLs come back in the host the client used; a queue created through one host name is used
through URLs of every other shape; Query requests sent to a queue's URL (as `curl` sends them)
are served. `*.localhost.localstack.cloud` resolves only where there is DNS, so these clients
connect to the emulator's address and name the host they addressed in the `Host` header, through
botocore's `before-send` event, as a client that resolved the name would.
"""

import pytest
import requests
from botocore.exceptions import ClientError

from sqs_helpers import ACCOUNT

STANDARD_EU = "sqs.eu-west-1.localhost.localstack.cloud"
DOMAIN_EU = "eu-west-1.queue.localhost.localstack.cloud"


@pytest.fixture(params=["json", "query"])
def protocol(request):
    return request.param


@pytest.fixture
def sqs_at(make_client, protocol):
    """sqs_at(host, region): an SQS client (over `protocol`) signed for `region` that reaches the
    emulator as `host`."""

    def make(host, region="us-east-1"):
        client = make_client("sqs", query=protocol == "query", region_name=region)

        def as_host(request, **_):
            request.headers["Host"] = host

        client.meta.events.register("before-send.sqs", as_host)
        return client

    return make


@pytest.fixture
def port(url):
    return url.rsplit(":", 1)[1]


@pytest.fixture
def http():
    session = requests.Session()
    session.trust_env = False  # no proxies from the machine
    return session


def test_queue_urls_come_back_in_the_host_the_client_used(sqs_at, port):
    cases = [
        (f"localhost:{port}", "us-east-1", f"http://localhost:{port}/{ACCOUNT}/q"),
        ("switchyard:4566", "us-east-1", f"http://switchyard:4566/{ACCOUNT}/q"),
        (f"{STANDARD_EU}:{port}", "eu-west-1", f"http://{STANDARD_EU}:{port}/{ACCOUNT}/q"),
        (f"{DOMAIN_EU}:{port}", "eu-west-1", f"http://{DOMAIN_EU}:{port}/{ACCOUNT}/q"),
    ]
    for host, region, expected in cases:
        sqs = sqs_at(host, region)
        assert sqs.create_queue(QueueName="q")["QueueUrl"] == expected, host
        assert sqs.get_queue_url(QueueName="q")["QueueUrl"] == expected, host
        assert sqs.list_queues(QueueNamePrefix="q")["QueueUrls"] == [expected], host


def test_a_queue_made_through_one_host_name_is_used_through_every_shape(sqs_at, port, http, url):
    # Made by a client in eu-west-1 that reached the emulator as sqs.eu-west-1.localhost.localstack.cloud.
    maker = sqs_at(f"{STANDARD_EU}:{port}", "eu-west-1")
    made = maker.create_queue(QueueName="orders")["QueueUrl"]
    assert made == f"http://{STANDARD_EU}:{port}/{ACCOUNT}/orders"
    # A queue of the same name in us-east-1, which the legacy shape names for a us-east-1 client.
    plain = sqs_at(f"127.0.0.1:{port}")
    plain.create_queue(QueueName="orders")

    shapes = [
        made,
        f"http://{DOMAIN_EU}:4566/{ACCOUNT}/orders",
        f"http://localhost:4566/queue/eu-west-1/{ACCOUNT}/orders",
        f"https://sqs.eu-west-1.amazonaws.com/{ACCOUNT}/orders",
    ]
    for shape in shapes:
        plain.send_message(QueueUrl=shape, MessageBody=shape)
    attributes = plain.get_queue_attributes(QueueUrl=shapes[2], AttributeNames=["QueueArn"])
    assert attributes["Attributes"]["QueueArn"] == f"arn:aws:sqs:eu-west-1:{ACCOUNT}:orders"

    got = maker.receive_message(QueueUrl=f"http://localhost:4566/{ACCOUNT}/orders", MaxNumberOfMessages=10)
    assert sorted(m["Body"] for m in got["Messages"]) == sorted(shapes)
    assert "Messages" not in plain.receive_message(QueueUrl=f"http://localhost:4566/{ACCOUNT}/orders")

    # LocalStack's queue peek takes the regional URL too.
    r = http.get(
        f"{url}/_aws/sqs/messages",
        params={"QueueUrl": shapes[1], "ShowInvisible": "true"},
        headers={"Accept": "application/json"},
        timeout=30,
    )
    assert r.status_code == 200, r.text
    listed = r.json()["ReceiveMessageResponse"]["ReceiveMessageResult"]["Message"]
    assert sorted(m["Body"] for m in listed) == sorted(shapes)


def test_curl_style_requests_to_queue_urls_are_served(http, url, port, sqs_at):
    sqs = sqs_at(f"localhost:{port}", "eu-west-1")
    queue_url = sqs.create_queue(QueueName="curl")["QueueUrl"]
    sends = [
        (f"{url}/queue/eu-west-1/{ACCOUNT}/curl", {}),
        (f"{url}/{ACCOUNT}/curl", {"Host": f"{STANDARD_EU}:{port}"}),
        (f"{url}/{ACCOUNT}/curl", {"Host": f"{DOMAIN_EU}:{port}"}),
    ]
    for i, (target, headers) in enumerate(sends):
        r = http.get(target, params={"Action": "SendMessage", "MessageBody": f"m{i}"}, headers=headers, timeout=30)
        assert r.status_code == 200, f"{target} {headers}: {r.text}"
        assert "<MessageId>" in r.text
        r = http.post(target, data={"Action": "SendMessage", "MessageBody": f"p{i}"}, headers=headers, timeout=30)
        assert r.status_code == 200, f"{target} {headers}: {r.text}"
    got = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)
    assert sorted(m["Body"] for m in got["Messages"]) == ["m0", "m1", "m2", "p0", "p1", "p2"]


def test_urls_that_name_no_queue_get_aws_errors(http, url, sqs_at, port):
    sqs = sqs_at(f"127.0.0.1:{port}")
    sqs.create_queue(QueueName="q")
    for bad in [
        f"http://localhost:4566/queue/eu-west-1/{ACCOUNT}/q",
        f"http://{STANDARD_EU}:4566/{ACCOUNT}/q",
        f"http://localhost:4566/queue/{ACCOUNT}/q",
        "http://whatever-incorrect-queue-address",
    ]:
        with pytest.raises(ClientError) as e:
            sqs.send_message(QueueUrl=bad, MessageBody="x")
        assert e.value.response["Error"]["Code"] == "AWS.SimpleQueueService.NonExistentQueue", bad
        assert isinstance(e.value, sqs.exceptions.QueueDoesNotExist), bad
    r = http.post(f"{url}/queue/eu-west-1/{ACCOUNT}", data={"Action": "SendMessage", "MessageBody": "x"}, timeout=30)
    assert r.status_code == 404, r.text
    assert "<Code>InvalidAddress</Code>" in r.text
    assert f"/queue/eu-west-1/{ACCOUNT} is not valid for this endpoint." in r.text
