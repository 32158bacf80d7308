"""The custom event bus (issue 7) through boto3 with the model switchyard ships
(compat/models/eventsv2, the `eventsv2` client found through botocore's data path), against the
emulator on its manual clock: buses and subscribers, the FIFO group proof, the default retry
policy's dead-letter record, CONTENT_BASED dedup at 299 s and 301 s, and redrive by replay.

compat/run starts switchyard with jitter on, so retry times here are checked against the schedule's
bounds (docs/custom-bus.md), not exact values.
"""

import datetime
import json
import os

import boto3
import botocore.session
import pytest

from conftest import CLIENT_CONFIG, REGION

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models")
ROLE = "arn:aws:iam::000000000000:role/EventBusDeliveryRole"
GENERIC = ("Delivery failed. Use this record's error code and request ID when investigating, "
           "and contact AWS Support if the failure persists.")


def eventsv2_client(url, access_key="test"):
    core = botocore.session.get_session()
    core.get_component("data_loader").search_paths.insert(0, MODELS)
    return boto3.session.Session(botocore_session=core).client(
        "eventsv2", endpoint_url=url, region_name=REGION, aws_access_key_id=access_key,
        aws_secret_access_key="test", config=CLIENT_CONFIG)


@pytest.fixture(scope="module")
def ev2(url):
    return eventsv2_client(url)


@pytest.fixture(scope="module")
def ev2_other(url):
    """The same API as account 111122223333 (a 12-digit access key is the account)."""
    return eventsv2_client(url, "111122223333")


def make_queue(sqs, name, **attributes):
    if name.endswith(".fifo"):
        attributes["FifoQueue"] = "true"
    url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return url, arn


def drain(sqs, url):
    out = []
    while True:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"],
                                  AttributeNames=["All"]).get("Messages", [])
        if not got:
            return out
        for m in got:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
        out.extend(got)


def entry(detail, group=None, **more):
    e = {"Source": "com.example.orders", "DetailType": "OrderPlaced", "Detail": json.dumps(detail)}
    if group:
        e["SystemMetadata"] = {"EventGroupId": group}
    e.update(more)
    return e


def put(ev2, bus, *entries, **kwargs):
    out = ev2.put_events(EventBusArn=bus, Entries=list(entries), **kwargs)
    assert out["FailedEntryCount"] == 0, out
    return out["Entries"]


def fault(control, target, status, **extra):
    r = control.post("/faults", dict(target=target, status=status, **extra))
    assert r.status_code == 201, r.text
    return r.json()["id"]


def log(control, source):
    r = control.get("/deliveries", source=source)
    assert r.status_code == 200, r.text
    return r.json()["records"]


def subscriber(ev2, name, bus, target, **settings):
    invoke = {"TargetArn": target, "RoleArn": ROLE}
    invoke.update(settings.pop("Invoke", {}))
    return ev2.create_subscriber(Name=name, EventBusArn=bus, InvokeConfiguration=invoke, **settings)["SubscriberArn"]


def test_buses_and_subscribers_with_their_defaults(ev2):
    bus = ev2.create_event_bus(Name="orders", Tags=[{"Key": "team", "Value": "a"}])["EventBusArn"]
    assert bus.startswith("arn:aws:events:us-east-1:000000000000:event-busv2/orders/")
    got = ev2.get_event_bus(EventBusArn=bus)
    assert (got["Name"], got["State"], got["RetentionPeriodInDays"]) == ("orders", "ACTIVE", 7)
    assert isinstance(got["CreationTime"], datetime.datetime)
    assert [b["EventBusArn"] for b in ev2.list_event_buses()["EventBuses"]] == [bus]

    sub = subscriber(ev2, "large-orders", bus, "arn:aws:sqs:us-east-1:000000000000:large-orders")
    assert sub.startswith("arn:aws:events:us-east-1:000000000000:subscriber/large-orders/")
    got = ev2.get_subscriber(SubscriberArn=sub)
    assert got["Type"] == "UNORDERED" and got["StartingPosition"] == "LATEST" and got["State"] == "RUNNING"
    assert got["RetryPolicy"] == {"MaxRetryAttempts": 5, "MaxEventAgeInSeconds": 300, "RetryStrategy": "ALL"}
    assert got["InvokeConfiguration"]["MaxBatchSize"] == 1
    assert [s["SubscriberArn"] for s in ev2.list_subscribers(EventBusArn=bus)["Subscribers"]] == [sub]
    assert ev2.list_tags_for_resource(ResourceArn=bus)["Tags"] == [{"Key": "team", "Value": "a"}]

    with pytest.raises(ev2.exceptions.ResourceAlreadyExistsException):
        ev2.create_event_bus(Name="orders")
    with pytest.raises(ev2.exceptions.ValidationException, match="PointInTimeConfiguration is required"):
        subscriber(ev2, "pit", bus, "arn:aws:sqs:us-east-1:000000000000:q", StartingPosition="POINT_IN_TIME")
    with pytest.raises(ev2.exceptions.ResourceInUseException):
        ev2.delete_event_bus(EventBusArn=bus)
    ev2.delete_subscriber(SubscriberArn=sub)
    ev2.delete_event_bus(EventBusArn=bus)
    with pytest.raises(ev2.exceptions.ResourceNotFoundException):
        ev2.get_event_bus(EventBusArn=bus)


def test_fifo_group_a_failing_holds_a_while_b_goes_then_a_in_order(ev2, ev2_other, sqs, control):
    bus = ev2.create_event_bus(Name="orders")["EventBusArn"]
    url, queue = make_queue(sqs, "orders.fifo")
    subscriber(ev2, "fifo", bus, queue, Type="FIFO")
    fault_id = fault(control, queue, 500)
    put(ev2, bus, entry({"n": "A1"}, "A"))
    control.delete(f"/faults/{fault_id}")
    put(ev2, bus, entry({"n": "B1"}, "B"), entry({"n": "A2"}, "A"), entry({"n": "B2"}, "B"))
    # The same EventGroupId from another account is another group.
    put(ev2_other, bus, entry({"n": "X1"}, "A"))
    control.advance(5)
    early = sorted((json.loads(m["Body"])["detail"]["n"], m["Attributes"]["MessageGroupId"]) for m in drain(sqs, url))
    assert early == [("B1", "B"), ("B2", "B"), ("X1", "A")]
    control.advance(15)  # A1's first retry comes 9 to 11 s after its attempt
    late = [json.loads(m["Body"])["detail"]["n"] for m in drain(sqs, url)]
    assert late == ["A1", "A2"]


def test_default_policy_against_a_500_ends_with_a_record_naming_the_limit_hit_first(ev2, sqs, control):
    bus = ev2.create_event_bus(Name="orders")["EventBusArn"]
    _, queue = make_queue(sqs, "large-orders")
    dlq_url, dlq = make_queue(sqs, "large-orders-dlq")
    sub = subscriber(ev2, "large-orders", bus, queue, OnFailureConfiguration={"Arn": dlq})
    fault(control, queue, 500)
    event_id = put(ev2, bus, entry({"orderId": 1001}, "order-1001"))[0]["EventId"]
    control.advance(400)
    attempts = [r for r in log(control, sub) if r["event"] == "attempt"]
    records = [json.loads(m["Body"]) for m in drain(sqs, dlq_url)]
    assert len(records) == 1
    record = records[0]
    # Attempts 1 + retries; the schedule waits about 10, 20, 40, 80, 160 s (±10 %).
    assert record["retryAttempts"] == len(attempts) - 1
    if record["exhaustedRetryCondition"] == "MaximumRetryAttempts":
        assert record["retryAttempts"] == 5
    else:
        assert record["exhaustedRetryCondition"] == "MaximumEventAgeInSeconds"
        assert record["retryAttempts"] == 4
    assert [k for k in record] == ["version", "busArn", "subscriberArn", "targetArn", "errorCode", "errorMessage",
                                   "exhaustedRetryCondition", "retryAttempts", "failedMessages"]
    assert (record["version"], record["busArn"], record["subscriberArn"], record["targetArn"]) == ("1.0", bus, sub, queue)
    assert (record["errorCode"], record["errorMessage"]) == ("INVOCATION_DEPENDENCY_INTERNAL", GENERIC)
    [failed] = record["failedMessages"]
    assert (failed["eventId"], failed["eventGroupId"], failed["deduplicationId"]) == (event_id, "order-1001", None)
    assert len(failed["targetRequestId"]) == 36


def test_content_based_dedup_suppresses_at_299_s_and_accepts_at_301_s(ev2, sqs, control):
    bus = ev2.create_event_bus(Name="orders")["EventBusArn"]
    url, queue = make_queue(sqs, "orders-q")
    sub = subscriber(ev2, "s", bus, queue)
    content = {"DeduplicationConfiguration": {"DeduplicationType": "CONTENT_BASED"}}
    order = entry({"orderId": 7}, "order-7")
    [first] = put(ev2, bus, order, **content)
    assert first["SuccessCode"] == "PUBLISHED"
    control.advance(299)
    [again] = put(ev2, bus, order, **content)
    assert (again["SuccessCode"], again["EventId"]) == ("DEDUPLICATED", first["EventId"])
    assert [r["messageId"] for r in log(control, sub) if r["event"] == "deduplicated"] == [first["EventId"]]
    control.advance(2)
    [later] = put(ev2, bus, order, **content)
    assert later["SuccessCode"] == "PUBLISHED" and later["EventId"] != first["EventId"]
    assert len(drain(sqs, url)) == 2


def test_redrive_delivers_exactly_the_failed_events_marked_replay(ev2, sqs, control):
    bus = ev2.create_event_bus(Name="orders")["EventBusArn"]
    url, queue = make_queue(sqs, "large-orders")
    dlq_url, dlq = make_queue(sqs, "large-orders-dlq")
    subscriber(ev2, "large-orders", bus, queue, Invoke={"MaxBatchSize": 2},
               RetryPolicy={"MaxRetryAttempts": 2}, OnFailureConfiguration={"Arn": dlq})
    put(ev2, bus, entry({"n": 0}, "order-1000"))
    assert len(drain(sqs, url)) == 1
    fault_id = fault(control, queue, 403, errorCode="ACCESS_DENIED")
    failed = [e["EventId"] for e in put(ev2, bus, entry({"n": 1}, "order-1001"), entry({"n": 2}, "order-1001"))]
    control.advance(60)
    # 1. The records: event ids and the earliest and latest timestamps.
    records = [json.loads(m["Body"]) for m in drain(sqs, dlq_url)]
    assert [r["errorCode"] for r in records] == ["ACCESS_DENIED"]
    ids = [m["eventId"] for r in records for m in r["failedMessages"]]
    assert ids == failed
    stamps = sorted(m["timestamp"] for r in records for m in r["failedMessages"])
    start = datetime.datetime.fromisoformat(stamps[0].replace("Z", "+00:00")).replace(microsecond=0)
    end = datetime.datetime.fromisoformat(stamps[-1].replace("Z", "+00:00")) + datetime.timedelta(seconds=1)
    # 2. Fix the cause. Live traffic goes on meanwhile.
    control.delete(f"/faults/{fault_id}")
    put(ev2, bus, entry({"n": 3}, "order-1001"))
    assert len(drain(sqs, url)) == 1
    # 3. The replay subscriber.
    redrive = subscriber(
        ev2, "redrive", bus, queue, StartingPosition="POINT_IN_TIME",
        PointInTimeConfiguration={"PointType": "TIMESTAMP", "StartingPoint": start, "EndPoint": end},
        FilterConfiguration={"Filters": [{"Scope": "SYSTEM_METADATA", "Pattern": json.dumps({"aws:EventId": ids})}]})
    control.advance(0)
    replayed = [json.loads(m["Body"]) for m in drain(sqs, url)]
    assert [(e["id"], e["system-metadata"]["aws:DeliveryType"]) for e in replayed] == [(i, "REPLAY") for i in failed]
    # 4. Clean up.
    ev2.delete_subscriber(SubscriberArn=redrive)
    assert drain(sqs, dlq_url) == []
