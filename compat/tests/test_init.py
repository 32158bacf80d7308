"""Start-up resources and scripts (docs/localstack.md, "Init scripts and resources").

A second switchyard, the binary compat/run built (COMPAT_SWITCHYARD_BIN), started with a resource
file and a ready.d directory whose script calls `awslocal` (switchyard's own, the v1 AWS CLI behind
it) with this suite's environment, where AWS_ENDPOINT_URL names the suite's main server: the
script must still reach the second one. boto3 then finds what the file and the script made, and
/_localstack/init shows both SUCCESSFUL.
"""

import os
import queue
import subprocess
import threading

import boto3
import pytest
import requests

from conftest import CLIENT_CONFIG, REGION

RESOURCES = """\
resources:
  - queue:
      QueueName: init-orders
      Attributes: {VisibilityTimeout: 45}
  - topic: {Name: init-events}
  - subscription:
      TopicArn: arn:aws:sns:us-east-1:000000000000:init-events
      Protocol: sqs
      Endpoint: arn:aws:sqs:us-east-1:000000000000:init-orders
      Attributes: {RawMessageDelivery: true}
  - rule:
      Name: init-rule
      EventPattern: {source: [init.shop]}
"""

SEED = """\
#!/bin/sh
set -e
awslocal sqs send-message --queue-url "$AWS_ENDPOINT_URL/000000000000/init-orders" --message-body seeded
awslocal sns create-topic --name made-by-script
"""


def first_lines(stream, n, timeout=60):
    """The first n lines of a process's stdout, read on a thread so a server that never gets
    ready fails the test instead of hanging it."""
    lines = queue.Queue()

    def read():
        for _ in range(n):
            lines.put(stream.readline().rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return [lines.get(timeout=timeout) for _ in range(n)]


@pytest.fixture
def initialised(tmp_path):
    binary = os.environ.get("COMPAT_SWITCHYARD_BIN")
    if not binary or not os.access(binary, os.X_OK):
        pytest.fail("COMPAT_SWITCHYARD_BIN names no switchyard binary (compat/run sets it)")
    resources = tmp_path / "resources.yaml"
    resources.write_text(RESOURCES)
    ready = tmp_path / "ready.d"
    ready.mkdir()
    seed = ready / "10-seed.sh"
    seed.write_text(SEED)
    seed.chmod(0o755)
    # A Python script (LocalStack runs them too): the standard library only, not executable.
    (ready / "20-seed.py").write_text(
        "import os, urllib.parse, urllib.request\n"
        "body = urllib.parse.urlencode({'Action': 'CreateTopic', 'Name': 'made-by-python'}).encode()\n"
        "urllib.request.urlopen(os.environ['AWS_ENDPOINT_URL'] + '/', data=body).read()\n")
    log = open(tmp_path / "switchyard.log", "w")
    server = subprocess.Popen(
        [binary, "--port", "0", "--clock", "manual", "--init-resources", str(resources), "--init", str(ready)],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    try:
        lines = first_lines(server.stdout, 2)
        assert lines[0].startswith("switchyard listening on http://"), (lines, (tmp_path / "switchyard.log").read_text())
        assert lines[1] == "Ready.", lines
        yield lines[0].removeprefix("switchyard listening on ")
    finally:
        server.terminate()
        server.wait(timeout=10)
        log.close()


def client(service, url):
    return boto3.client(service, endpoint_url=url, region_name=REGION, aws_access_key_id="test",
                        aws_secret_access_key="test", config=CLIENT_CONFIG)


def test_the_init_file_and_scripts_are_done_before_ready(initialised):
    url = initialised
    assert url != os.environ.get("AWS_ENDPOINT_URL"), "a second server"
    sqs, sns, events = client("sqs", url), client("sns", url), client("events", url)

    queue_url = sqs.get_queue_url(QueueName="init-orders")["QueueUrl"]
    attributes = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["VisibilityTimeout"])
    assert attributes["Attributes"] == {"VisibilityTimeout": "45"}

    # The script's message, sent with awslocal.
    messages = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in messages] == ["seeded"]

    topics = sorted(t["TopicArn"].rsplit(":", 1)[1] for t in sns.list_topics()["Topics"])
    assert topics == ["init-events", "made-by-python", "made-by-script"]
    sns.publish(TopicArn="arn:aws:sns:us-east-1:000000000000:init-events", Message="fanned")
    messages = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in messages] == ["fanned"]

    rule = events.describe_rule(Name="init-rule")
    assert rule["EventPattern"] == '{"source":["init.shop"]}'

    http = requests.Session()
    http.trust_env = False  # no proxies or netrc from the machine
    progress = http.get(url + "/_localstack/init", timeout=10).json()
    assert progress == {
        "completed": {"BOOT": True, "START": True, "READY": True, "SHUTDOWN": False},
        "scripts": [
            {"stage": "READY", "name": "resources.yaml", "state": "SUCCESSFUL"},
            {"stage": "READY", "name": "10-seed.sh", "state": "SUCCESSFUL"},
            {"stage": "READY", "name": "20-seed.py", "state": "SUCCESSFUL"},
        ],
    }
