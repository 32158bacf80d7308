"""EventBridge Pipes (issue 19) through boto3's own model (REST-JSON), against the emulator on its
manual clock: a queue read in batches with a batching window, filters that drop and delete, an
input template and FIFO ids, a failing target left to the source queue's redrive policy, an event
bus target, the states of create, stop, start and delete, and the errors of bad input
(docs/pipes.md).
"""

import json

import pytest
from botocore.exceptions import ClientError

from events_helpers import error_of
from test_eventsv2 import drain, make_queue

ROLE = "arn:aws:iam::000000000000:role/pipe"


@pytest.fixture(scope="module")
def pipes(make_client):
    return make_client("pipes")


def state(pipes, name):
    return pipes.describe_pipe(Name=name)["CurrentState"]


def counts(sqs, url):
    a = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return int(a["ApproximateNumberOfMessages"]), int(a["ApproximateNumberOfMessagesNotVisible"])


def test_a_queue_feeds_a_queue_in_batches(sqs, pipes, control):
    src_url, src = make_queue(sqs, "src")
    dst_url, dst = make_queue(sqs, "dst")
    out = pipes.create_pipe(Name="p", Source=src, Target=dst, RoleArn=ROLE,
                            SourceParameters={"SqsQueueParameters": {
                                "BatchSize": 2, "MaximumBatchingWindowInSeconds": 30}})
    assert out["CurrentState"] == "CREATING"
    control.advance(1)
    assert state(pipes, "p") == "RUNNING"
    sqs.send_message(QueueUrl=src_url, MessageBody="one")
    control.advance(29)
    assert drain(sqs, dst_url) == []
    sqs.send_message(QueueUrl=src_url, MessageBody="two")
    records = [json.loads(m["Body"]) for m in drain(sqs, dst_url)]
    assert [r["body"] for r in records] == ["one", "two"], "a full batch goes at once"
    assert {r["eventSource"] for r in records} == {"aws:sqs"}
    assert records[0]["eventSourceARN"] == src
    assert counts(sqs, src_url) == (0, 0)


def test_filters_templates_and_fifo_ids(sqs, pipes, control):
    src_url, src = make_queue(sqs, "src")
    dst_url, dst = make_queue(sqs, "dst.fifo", ContentBasedDeduplication="true")
    pipes.create_pipe(
        Name="orders", Source=src, Target=dst, RoleArn=ROLE,
        SourceParameters={"FilterCriteria": {"Filters": [{"Pattern": json.dumps({"body": {"kind": ["order"]}})}]}},
        TargetParameters={"InputTemplate": '{"order": <$.body.id>, "pipe": "<aws.pipes.pipe-name>"}',
                          "SqsQueueParameters": {"MessageGroupId": "$.body.customer"}})
    control.advance(1)
    for body in [{"kind": "order", "id": 1, "customer": "ann"}, {"kind": "noise"}]:
        sqs.send_message(QueueUrl=src_url, MessageBody=json.dumps(body))
    got = drain(sqs, dst_url)
    assert [m["Body"] for m in got] == ['{"order":1,"pipe":"orders"}']
    assert got[0]["Attributes"]["MessageGroupId"] == "ann"
    assert counts(sqs, src_url) == (0, 0), "the filtered-out message was deleted"


def test_a_failing_target_leaves_messages_to_the_redrive_policy(sqs, pipes, control):
    dlq_url, dlq = make_queue(sqs, "dlq")
    src_url, src = make_queue(sqs, "src", VisibilityTimeout="20",
                              RedrivePolicy=json.dumps({"deadLetterTargetArn": dlq, "maxReceiveCount": "3"}))
    _, dst = make_queue(sqs, "dst")
    pipe = pipes.create_pipe(Name="p", Source=src, Target=dst, RoleArn=ROLE)["Arn"]
    control.advance(1)
    r = control.post("/faults", {"target": dst, "status": 503})
    assert r.status_code == 201, r.text
    sqs.send_message(QueueUrl=src_url, MessageBody="m")
    assert counts(sqs, src_url) == (0, 1)
    control.advance(59)
    assert drain(sqs, dlq_url) == [], "three receives so far"
    control.advance(1)
    assert [m["Body"] for m in drain(sqs, dlq_url)] == ["m"]
    records = control.get("/deliveries", source=pipe).json()["records"]
    assert [r["status"] for r in records if r["event"] == "attempt"] == [503, 503, 503]


def test_an_event_bus_target_gets_an_event_per_message(sqs, pipes, make_client, control):
    events = make_client("events")
    src_url, src = make_queue(sqs, "src")
    out_url, out = make_queue(sqs, "out")
    events.put_rule(Name="all", EventPattern=json.dumps({"source": ["orders"]}))
    events.put_targets(Rule="all", Targets=[{"Id": "q", "Arn": out}])
    bus = "arn:aws:events:us-east-1:000000000000:event-bus/default"
    pipes.create_pipe(Name="p", Source=src, Target=bus, RoleArn=ROLE,
                      TargetParameters={"EventBridgeEventBusParameters": {"Source": "orders",
                                                                           "DetailType": "Order"}})
    control.advance(1)
    sqs.send_message(QueueUrl=src_url, MessageBody='{"id": 5}')
    got = [json.loads(m["Body"]) for m in drain(sqs, out_url)]
    assert len(got) == 1
    assert (got[0]["source"], got[0]["detail-type"]) == ("orders", "Order")
    assert got[0]["detail"]["body"] == '{"id": 5}'


def test_states_and_listing(sqs, pipes, control):
    _, src = make_queue(sqs, "src")
    _, dst = make_queue(sqs, "dst")
    for name in ["a", "b"]:
        pipes.create_pipe(Name=name, Source=src, Target=dst, RoleArn=ROLE, Tags={"team": "x"})
    control.advance(1)
    assert pipes.stop_pipe(Name="a")["CurrentState"] == "STOPPING"
    listed = pipes.list_pipes(CurrentState="STOPPING")["Pipes"]
    assert [p["Name"] for p in listed] == ["a"]
    control.advance(1)
    assert state(pipes, "a") == "STOPPED"
    assert pipes.start_pipe(Name="a")["CurrentState"] == "STARTING"
    control.advance(1)
    assert state(pipes, "a") == "RUNNING"
    arn = pipes.describe_pipe(Name="a")["Arn"]
    assert pipes.list_tags_for_resource(resourceArn=arn)["tags"] == {"team": "x"}
    pipes.delete_pipe(Name="b")
    control.advance(1)
    assert [p["Name"] for p in pipes.list_pipes()["Pipes"]] == ["a"]


def test_bad_input(sqs, pipes, control):
    _, src = make_queue(sqs, "src")
    _, dst = make_queue(sqs, "dst")

    def code(**kwargs):
        args = dict(Name="p", Source=src, Target=dst, RoleArn=ROLE)
        args.update(kwargs)
        with pytest.raises(ClientError) as e:
            pipes.create_pipe(**args)
        return e.value.response["Error"]["Code"], e.value.response["Error"]["Message"]

    with pytest.raises(ClientError) as e:
        pipes.create_pipe(Name="p", Source=src, Target=dst, RoleArn=ROLE,
                          SourceParameters={"SqsQueueParameters": {"MaximumBatchingWindowInSeconds": 301}})
    c, m = error_of(e)
    assert c == "ValidationException" and "maximumBatchingWindowInSeconds" in m, m
    # The model's fieldList names the member too.
    assert e.value.response["fieldList"] == [
        {"name": "sourceParameters.sqsQueueParameters.maximumBatchingWindowInSeconds",
         "message": "Member must have value less than or equal to 300"}]
    c, m = code(SourceParameters={"FilterCriteria": {"Filters": [{"Pattern": "{not json"}]}})
    assert c == "ValidationException" and "filterCriteria" in m, m
    pipes.create_pipe(Name="p", Source=src, Target=dst, RoleArn=ROLE)
    assert code()[0] == "ConflictException"
    with pytest.raises(ClientError) as e:
        pipes.update_pipe(Name="p", RoleArn=ROLE, Description="while CREATING")
    assert e.value.response["Error"]["Code"] == "ConflictException"
    assert (e.value.response["resourceId"], e.value.response["resourceType"]) == ("p", "pipe")
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 409
    with pytest.raises(ClientError) as e:
        pipes.describe_pipe(Name="missing")
    assert e.value.response["Error"]["Code"] == "NotFoundException"
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
