"""EventBridge (the classic `events` API) through boto3: event buses (the default one included), their
resource policies and cross-account PutEvents, tags, rules and their paging, TestEventPattern,
PutEvents to SQS with the exact envelope, target input (InputPath, InputTransformer), a FIFO queue
target, an SNS topic target, a bus-to-bus target, retry policies and the dead-letter queue on the
manual clock, a scheduled rule over a virtual day, and bad input answered with AWS's codes and
messages.

Deliveries are awaited with `POST /_switchyard/clock/advance` (no sleeps); retries are observed in
`GET /_switchyard/deliveries` and forced with `POST /_switchyard/faults`. A 12-digit access key id
is the caller's account (README, "Another account, another region"), which is how the cross-account tests get a second account.
Archives and replays are in test_events_archives.py, connections and API destinations in
test_events_api_destinations.py."""

import hashlib
import json
import time
from datetime import datetime, timezone

import pytest
from sns_helpers import UUID, receive_and_delete, sqs_queue
from sqs_helpers import raises_code

from events_helpers import (
    ACCOUNT,
    ENVELOPE_KEYS,
    REGION,
    bus_arn,
    dlq_attributes,
    event_time,
    fault,
    millis,
    ordered,
    put,
    queue,
    records,
    rule_arn,
    rule_to,
)

OTHER = "111111111111"
THIRD = "222222222222"
DEFAULT_BUS = f"arn:aws:events:{REGION}:{ACCOUNT}:event-bus/default"


@pytest.fixture(scope="session")
def events(make_client):
    """EventBridge (AWS JSON 1.1) in the default account."""
    return make_client("events")


@pytest.fixture(scope="session")
def events_other(make_client):
    """EventBridge as account 111111111111 (a 12-digit access key id is the account)."""
    return make_client("events", aws_access_key_id=OTHER)


@pytest.fixture(scope="session")
def events_third(make_client):
    return make_client("events", aws_access_key_id=THIRD)


# --- event buses ----------------------------------------------------------------------------------


def test_default_bus(events):
    bus = events.describe_event_bus()
    assert (bus["Name"], bus["Arn"]) == ("default", DEFAULT_BUS)
    assert "Policy" not in bus
    assert events.describe_event_bus(Name="default")["Arn"] == DEFAULT_BUS
    assert events.describe_event_bus(Name=DEFAULT_BUS)["Name"] == "default"
    listed = events.list_event_buses()["EventBuses"]
    assert [(b["Name"], b["Arn"]) for b in listed] == [("default", DEFAULT_BUS)]
    with raises_code("ValidationException", 400) as error:
        events.delete_event_bus(Name="default")
    assert error.value.response["Error"]["Message"] == "Cannot delete event bus default."


def test_bus_create_describe_list_delete(events, control):
    now = control.clock()["epochMillis"]
    created = events.create_event_bus(Name="orders", Description="all the orders")
    assert created["EventBusArn"] == bus_arn("orders")
    with raises_code("ResourceAlreadyExistsException", 400) as error:
        events.create_event_bus(Name="orders")
    assert error.value.response["Error"]["Message"] == "Event bus orders already exists."

    bus = events.describe_event_bus(Name="orders")
    assert (bus["Name"], bus["Arn"], bus["Description"]) == ("orders", bus_arn("orders"), "all the orders")
    assert abs(bus["CreationTime"].timestamp() * 1000 - now) < 1000, (bus["CreationTime"], now)
    assert events.describe_event_bus(Name=bus_arn("orders"))["Name"] == "orders"

    events.create_event_bus(Name="orders-eu")
    events.create_event_bus(Name="payments")
    names = [b["Name"] for b in events.list_event_buses()["EventBuses"]]
    assert names == ["default", "orders", "orders-eu", "payments"]
    assert [b["Name"] for b in events.list_event_buses(NamePrefix="orders")["EventBuses"]] == ["orders", "orders-eu"]
    first = events.list_event_buses(Limit=3)
    assert [b["Name"] for b in first["EventBuses"]] == ["default", "orders", "orders-eu"]
    second = events.list_event_buses(Limit=3, NextToken=first["NextToken"])
    assert [b["Name"] for b in second["EventBuses"]] == ["payments"] and "NextToken" not in second

    events.delete_event_bus(Name="orders")
    with raises_code("ResourceNotFoundException", 400) as error:
        events.describe_event_bus(Name="orders")
    assert error.value.response["Error"]["Message"] == "Event bus orders does not exist."
    events.delete_event_bus(Name="orders")  # deleting it again succeeds, as in AWS
    assert [b["Name"] for b in events.list_event_buses()["EventBuses"]] == ["default", "orders-eu", "payments"]


def test_delete_event_bus_with_rules(events):
    """AWS refuses to delete a bus that still has rules: `ValidationException` "EventBus can't be
    deleted since it has rules." (HTTP 400; recorded from AWS in hashicorp/terraform-provider-aws
    issue 22131, serverless/serverless 8479, sst 4325)."""
    events.create_event_bus(Name="ruled")
    events.put_rule(Name="keep-me", EventBusName="ruled", EventPattern='{"source": ["shop"]}')
    with raises_code("ValidationException", 400) as error:
        events.delete_event_bus(Name="ruled")
    assert error.value.response["Error"]["Message"] == "EventBus can't be deleted since it has rules."
    assert events.describe_event_bus(Name="ruled")["Name"] == "ruled"
    assert [r["Name"] for r in events.list_rules(EventBusName="ruled")["Rules"]] == ["keep-me"]
    events.delete_rule(Name="keep-me", EventBusName="ruled")
    events.delete_event_bus(Name="ruled")
    with raises_code("ResourceNotFoundException", 400):
        events.describe_event_bus(Name="ruled")


def test_bus_policy_put_and_remove_permission(events):
    arn = events.create_event_bus(Name="shared")["EventBusArn"]
    events.put_permission(EventBusName="shared", Action="events:PutEvents", Principal=OTHER, StatementId="allow-other")
    events.put_permission(
        EventBusName="shared",
        Action="events:PutEvents",
        Principal="*",
        StatementId="my-org",
        Condition={"Type": "StringEquals", "Key": "aws:PrincipalOrgID", "Value": "o-1234567890"},
    )
    policy = json.loads(events.describe_event_bus(Name="shared")["Policy"])
    assert policy == {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "allow-other",
                "Effect": "Allow",
                "Principal": {"AWS": f"arn:aws:iam::{OTHER}:root"},
                "Action": "events:PutEvents",
                "Resource": arn,
            },
            {
                "Sid": "my-org",
                "Effect": "Allow",
                "Principal": "*",
                "Action": "events:PutEvents",
                "Resource": arn,
                "Condition": {"StringEquals": {"aws:PrincipalOrgID": "o-1234567890"}},
            },
        ],
    }
    # The default bus takes a policy too, and each bus keeps its own.
    events.put_permission(Action="events:PutEvents", Principal=THIRD, StatementId="third")
    default_policy = json.loads(events.describe_event_bus()["Policy"])
    assert [s["Sid"] for s in default_policy["Statement"]] == ["third"]
    assert default_policy["Statement"][0]["Resource"] == DEFAULT_BUS

    events.remove_permission(EventBusName="shared", StatementId="allow-other")
    policy = json.loads(events.describe_event_bus(Name="shared")["Policy"])
    assert [s["Sid"] for s in policy["Statement"]] == ["my-org"]
    with raises_code("ResourceNotFoundException", 400) as error:
        events.remove_permission(EventBusName="shared", StatementId="allow-other")
    assert error.value.response["Error"]["Message"] == "Statement with the provided id does not exist."
    events.remove_permission(EventBusName="shared", RemoveAllPermissions=True)
    assert "Policy" not in events.describe_event_bus(Name="shared")

    # A whole policy document in one call.
    document = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "whole",
                "Effect": "Allow",
                "Principal": {"AWS": f"arn:aws:iam::{OTHER}:root"},
                "Action": "events:PutEvents",
                "Resource": arn,
            }
        ],
    }
    events.put_permission(EventBusName="shared", Policy=json.dumps(document))
    assert json.loads(events.describe_event_bus(Name="shared")["Policy"]) == document


def test_cross_account_put_events_needs_the_bus_policy(events, events_other, events_third, sqs, control):
    arn = events.create_event_bus(Name="shared")["EventBusArn"]
    url, queue_arn = queue(sqs, "shared-q")
    rule_to(events, "from-partners", queue_arn, bus="shared", pattern={"source": ["partner"]})
    entry = {"Source": "partner", "DetailType": "Hello", "Detail": '{"n": 1}', "EventBusName": arn}

    denied = events_other.put_events(Entries=[entry])
    assert denied["FailedEntryCount"] == 1, denied
    assert denied["Entries"][0]["ErrorCode"] == "AccessDeniedException", denied
    assert "EventId" not in denied["Entries"][0]

    events.put_permission(EventBusName="shared", Action="events:PutEvents", Principal=OTHER, StatementId="other")
    allowed = events_other.put_events(Entries=[entry])
    assert allowed["FailedEntryCount"] == 0, allowed
    # Only the account the policy names: a third one is still refused.
    third = events_third.put_events(Entries=[entry])
    assert third["Entries"][0]["ErrorCode"] == "AccessDeniedException", third
    control.advance(0)

    got = receive_and_delete(sqs, url)
    assert len(got) == 1, got
    event = json.loads(got[0]["Body"])
    assert event["id"] == allowed["Entries"][0]["EventId"]
    assert event["account"] == OTHER  # the sender's account, not the bus owner's
    assert (event["source"], event["detail"]) == ("partner", {"n": 1})

    events.remove_permission(EventBusName="shared", StatementId="other")
    again = events_other.put_events(Entries=[entry])
    assert again["Entries"][0]["ErrorCode"] == "AccessDeniedException", again
    # The other account's own default bus is its own business.
    assert events_other.describe_event_bus()["Arn"] == bus_arn("default", OTHER)


def test_tags_on_buses_and_rules(events):
    arn = events.create_event_bus(Name="tagged", Tags=[{"Key": "team", "Value": "blue"}])["EventBusArn"]
    assert events.list_tags_for_resource(ResourceARN=arn)["Tags"] == [{"Key": "team", "Value": "blue"}]
    events.tag_resource(ResourceARN=arn, Tags=[{"Key": "env", "Value": "test"}, {"Key": "team", "Value": "red"}])
    tags = events.list_tags_for_resource(ResourceARN=arn)["Tags"]
    assert sorted((t["Key"], t["Value"]) for t in tags) == [("env", "test"), ("team", "red")]
    events.untag_resource(ResourceARN=arn, TagKeys=["team", "absent"])
    assert events.list_tags_for_resource(ResourceARN=arn)["Tags"] == [{"Key": "env", "Value": "test"}]

    rule = events.put_rule(
        Name="tagged-rule",
        EventBusName="tagged",
        EventPattern='{"source": ["shop"]}',
        Tags=[{"Key": "owner", "Value": "me"}],
    )["RuleArn"]
    assert events.list_tags_for_resource(ResourceARN=rule)["Tags"] == [{"Key": "owner", "Value": "me"}]
    events.tag_resource(ResourceARN=rule, Tags=[{"Key": "cost", "Value": "1"}])
    tags = events.list_tags_for_resource(ResourceARN=rule)["Tags"]
    assert sorted((t["Key"], t["Value"]) for t in tags) == [("cost", "1"), ("owner", "me")]

    with raises_code("ResourceNotFoundException", 400):
        events.list_tags_for_resource(ResourceARN=bus_arn("missing"))
    with raises_code("ResourceNotFoundException", 400):
        events.tag_resource(ResourceARN=rule_arn("missing"), Tags=[{"Key": "k", "Value": "v"}])
    # Deleting the bus deletes its tags: a new bus of that name starts bare.
    events.delete_rule(Name="tagged-rule", EventBusName="tagged")
    events.delete_event_bus(Name="tagged")
    events.create_event_bus(Name="tagged")
    assert events.list_tags_for_resource(ResourceARN=arn)["Tags"] == []


# --- rules and targets ----------------------------------------------------------------------------


def test_rules_crud_and_paging(events, sqs):
    events.create_event_bus(Name="orders")
    pattern = json.dumps({"source": ["shop"], "detail-type": ["OrderPlaced"]})
    for name in ["r-e", "r-a", "r-d", "other", "r-c", "r-b"]:
        arn = events.put_rule(Name=name, EventBusName="orders", EventPattern=pattern, Description=f"rule {name}")[
            "RuleArn"
        ]
        assert arn == rule_arn(name, "orders")

    rule = events.describe_rule(Name="r-a", EventBusName="orders")
    assert {k: v for k, v in rule.items() if k != "ResponseMetadata"} == {
        "Name": "r-a",
        "Arn": rule_arn("r-a", "orders"),
        "EventPattern": pattern,
        "State": "ENABLED",
        "Description": "rule r-a",
        "EventBusName": "orders",
        "CreatedBy": ACCOUNT,
    }
    # By ARN of the bus as well.
    assert events.describe_rule(Name="r-a", EventBusName=bus_arn("orders"))["Arn"] == rule_arn("r-a", "orders")

    names, token, pages = [], None, 0
    while True:
        paging = {"NextToken": token} if token else {}
        page = events.list_rules(EventBusName="orders", NamePrefix="r-", Limit=2, **paging)
        assert len(page["Rules"]) <= 2
        names += [r["Name"] for r in page["Rules"]]
        pages += 1
        token = page.get("NextToken")
        if not token:
            break
    assert names == ["r-a", "r-b", "r-c", "r-d", "r-e"] and pages == 3
    listed = events.list_rules(EventBusName="orders")["Rules"]
    assert [r["Name"] for r in listed] == ["other", "r-a", "r-b", "r-c", "r-d", "r-e"]
    assert listed[1] == {
        "Name": "r-a",
        "Arn": rule_arn("r-a", "orders"),
        "EventPattern": pattern,
        "State": "ENABLED",
        "Description": "rule r-a",
        "EventBusName": "orders",
    }
    assert events.list_rules()["Rules"] == []  # the default bus has none

    events.disable_rule(Name="r-b", EventBusName="orders")
    assert events.describe_rule(Name="r-b", EventBusName="orders")["State"] == "DISABLED"
    events.enable_rule(Name="r-b", EventBusName="orders")
    assert events.describe_rule(Name="r-b", EventBusName="orders")["State"] == "ENABLED"
    # PutRule replaces: what it leaves out (the description) is gone.
    events.put_rule(Name="r-b", EventBusName="orders", EventPattern=pattern, State="DISABLED")
    rule = events.describe_rule(Name="r-b", EventBusName="orders")
    assert rule["State"] == "DISABLED" and "Description" not in rule

    # Targets: put, list with paging, list rules by target, remove.
    url_a, arn_a = queue(sqs, "a")
    url_b, arn_b = queue(sqs, "b")
    out = events.put_targets(
        Rule="r-a",
        EventBusName="orders",
        Targets=[
            {"Id": "one", "Arn": arn_a},
            {"Id": "two", "Arn": arn_b, "RetryPolicy": {"MaximumRetryAttempts": 2, "MaximumEventAgeInSeconds": 120}},
            {"Id": "three", "Arn": arn_a, "Input": '{"k": 1}', "DeadLetterConfig": {"Arn": arn_b}},
        ],
    )
    assert (out["FailedEntryCount"], out["FailedEntries"]) == (0, [])
    events.put_targets(Rule="r-c", EventBusName="orders", Targets=[{"Id": "x", "Arn": arn_a}])
    first = events.list_targets_by_rule(Rule="r-a", EventBusName="orders", Limit=2)
    second = events.list_targets_by_rule(Rule="r-a", EventBusName="orders", Limit=2, NextToken=first["NextToken"])
    assert "NextToken" not in second
    targets = first["Targets"] + second["Targets"]
    assert targets == [
        {"Id": "one", "Arn": arn_a},
        {"Id": "two", "Arn": arn_b, "RetryPolicy": {"MaximumRetryAttempts": 2, "MaximumEventAgeInSeconds": 120}},
        {"Id": "three", "Arn": arn_a, "Input": '{"k": 1}', "DeadLetterConfig": {"Arn": arn_b}},
    ]
    assert events.list_rule_names_by_target(TargetArn=arn_a, EventBusName="orders")["RuleNames"] == ["r-a", "r-c"]
    assert events.list_rule_names_by_target(TargetArn=arn_b, EventBusName="orders")["RuleNames"] == ["r-a"]

    # Putting a target with an existing id replaces it.
    events.put_targets(Rule="r-a", EventBusName="orders", Targets=[{"Id": "one", "Arn": arn_b}])
    listed = events.list_targets_by_rule(Rule="r-a", EventBusName="orders")["Targets"]
    assert [(t["Id"], t["Arn"]) for t in listed] == [("one", arn_b), ("two", arn_b), ("three", arn_a)]

    out = events.remove_targets(Rule="r-a", EventBusName="orders", Ids=["one", "two", "three"])
    assert out["FailedEntryCount"] == 0, out
    assert events.list_targets_by_rule(Rule="r-a", EventBusName="orders")["Targets"] == []
    events.delete_rule(Name="r-a", EventBusName="orders")
    with raises_code("ResourceNotFoundException", 400):
        events.describe_rule(Name="r-a", EventBusName="orders")
    events.delete_rule(Name="r-a", EventBusName="orders")  # AWS: deleting again succeeds too
    assert [r["Name"] for r in events.list_rules(EventBusName="orders", NamePrefix="r-")["Rules"]] == [
        "r-b",
        "r-c",
        "r-d",
        "r-e",
    ]
    events.remove_targets(Rule="r-c", EventBusName="orders", Ids=["x"])
    for rule in events.list_rules(EventBusName="orders")["Rules"]:
        events.delete_rule(Name=rule["Name"], EventBusName="orders")
    assert events.list_rules(EventBusName="orders")["Rules"] == []
    events.delete_event_bus(Name="orders")


TEST_EVENT = {
    "id": "7bf73129-1428-4cd3-a780-95db273d1602",
    "detail-type": "EC2 Instance State-change Notification",
    "source": "aws.ec2",
    "account": "123456789012",
    "time": "2015-11-11T21:29:54Z",
    "region": "us-east-1",
    "resources": ["arn:aws:ec2:us-east-1:123456789012:instance/i-abcd1111"],
    "detail": {
        "instance-id": "i-abcd1111",
        "state": "pending",
        "count": 5,
        "ip": "10.0.0.42",
        "tags": ["web", "blue"],
        "file": "photo.PNG",
        "owner": None,
    },
}


@pytest.mark.parametrize(
    "pattern, matches",
    [
        ({"source": ["aws.ec2"]}, True),
        ({"source": ["aws.EC2"]}, False),  # exact and case-sensitive
        ({"source": ["aws.ec2"], "detail": {"state": ["running"]}}, False),
        ({"detail": {"state": ["running", "pending"]}}, True),
        ({"detail": {"tags": ["blue", "green"]}}, True),  # arrays match when they intersect
        ({"region": [{"prefix": "us-"}]}, True),
        ({"region": [{"prefix": "eu-"}]}, False),
        ({"detail": {"file": [{"suffix": ".png"}]}}, False),
        ({"detail": {"file": [{"suffix": {"equals-ignore-case": ".png"}}]}}, True),
        ({"detail-type": [{"equals-ignore-case": "ec2 instance state-change notification"}]}, True),
        ({"detail": {"state": [{"anything-but": ["running", "stopped"]}]}}, True),
        ({"detail": {"state": [{"anything-but": {"prefix": "pend"}}]}}, False),
        ({"detail": {"count": [{"numeric": [">", 0, "<=", 5]}]}}, True),
        ({"detail": {"count": [{"numeric": ["<", 5]}]}}, False),
        ({"detail": {"ip": [{"cidr": "10.0.0.0/24"}]}}, True),
        ({"detail": {"ip": [{"cidr": "10.0.1.0/24"}]}}, False),
        ({"detail": {"missing": [{"exists": False}], "state": [{"exists": True}]}}, True),
        ({"detail": {"owner": [None]}}, True),
        ({"detail": {"owner": [{"anything-but": ["x"]}]}}, True),  # null is anything but "x"
        ({"detail": {"owner": [""]}}, False),  # null and "" differ
        ({"source": [{"wildcard": "aws.*2"}]}, True),
        ({"$or": [{"detail": {"count": [{"numeric": [">", 10]}]}}, {"detail": {"state": ["pending"]}}]}, True),
        ({"$or": [{"detail": {"count": [{"numeric": [">", 10]}]}}, {"region": ["eu-west-1"]}]}, False),
    ],
)
def test_test_event_pattern(events, pattern, matches):
    out = events.test_event_pattern(EventPattern=json.dumps(pattern), Event=json.dumps(TEST_EVENT))
    assert out["Result"] is matches


def test_test_event_pattern_refuses_bad_input(events):
    event = json.dumps(TEST_EVENT)
    with raises_code("InvalidEventPatternException", 400) as error:
        events.test_event_pattern(EventPattern='{"source": []}', Event=event)
    message = error.value.response["Error"]["Message"]
    assert message == "Event pattern is not valid. Reason: Empty arrays are not allowed"
    without_id = json.dumps({k: v for k, v in TEST_EVENT.items() if k != "id"})
    with raises_code("ValidationException", 400):
        events.test_event_pattern(EventPattern='{"source": ["aws.ec2"]}', Event=without_id)


# --- PutEvents to targets -------------------------------------------------------------------------


def test_put_events_to_sqs_delivers_the_exact_envelope(events, sqs, control):
    url, arn = queue(sqs, "envelope-q")
    rule_to(events, "to-queue", arn, pattern={"source": ["shop"], "detail": {"total": [{"numeric": [">", 10]}]}})
    now = control.clock()["epochMillis"]  # the manual clock stands still: this is the PutEvents time
    detail = {
        "order": "o-1",
        "total": 42.5,
        "lines": [{"sku": "A", "qty": 2}],
        "note": 'ünï "quoted"',
        "zebra": True,
        "apple": None,
    }
    out = events.put_events(
        Entries=[
            {
                "Source": "shop",
                "DetailType": "OrderPlaced",
                "Detail": json.dumps(detail),
                "Resources": ["arn:aws:shop:::order/o-1", "arn:aws:shop:::customer/c-9"],
            },
            # Does not match (total too small): accepted, delivered nowhere.
            {"Source": "shop", "DetailType": "OrderPlaced", "Detail": '{"total": 3}'},
            # An explicit Time is the event's time.
            {
                "Source": "shop",
                "DetailType": "OrderPlaced",
                "Detail": '{"total": 11}',
                "Time": datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc),
            },
        ]
    )
    assert out["FailedEntryCount"] == 0, out
    ids = [e["EventId"] for e in out["Entries"]]
    assert all(UUID.match(i) for i in ids) and len(set(ids)) == 3, ids
    control.advance(0)

    got = receive_and_delete(sqs, url, AttributeNames=["All"], MessageAttributeNames=["All"])
    assert len(got) == 2, [m["Body"] for m in got]
    by_id = {json.loads(m["Body"])["id"]: m for m in got}
    assert set(by_id) == {ids[0], ids[2]}

    m = by_id[ids[0]]
    assert "MessageAttributes" not in m
    keys, event = ordered(m["Body"])
    assert keys == ENVELOPE_KEYS, keys
    assert event == {
        "version": "0",
        "id": ids[0],
        "detail-type": "OrderPlaced",
        "source": "shop",
        "account": ACCOUNT,
        "time": event_time(now),
        "region": REGION,
        "resources": ["arn:aws:shop:::order/o-1", "arn:aws:shop:::customer/c-9"],
        "detail": detail,
    }
    # The detail keeps its keys in the order they were sent.
    name, detail_pairs = json.loads(m["Body"], object_pairs_hook=lambda p: p)[-1]
    assert name == "detail" and [k for k, _ in detail_pairs] == list(detail), detail_pairs
    assert event["time"].endswith("Z") and len(event["time"]) == 20, event["time"]

    keys, timed = ordered(by_id[ids[2]]["Body"])
    assert keys == ENVELOPE_KEYS, keys
    assert timed["time"] == "2026-01-02T03:04:05Z"
    assert timed["resources"] == [] and timed["detail"] == {"total": 11}

    log = records(control, source=rule_arn("to-queue") + "#t")
    assert sorted(r["messageId"] for r in log) == sorted([ids[0], ids[2]])
    assert {(r["event"], r["outcome"], r["attempt"], r["target"]) for r in log} == {("attempt", "delivered", 1, arn)}


def test_disabled_rules_and_other_buses_get_nothing(events, sqs, control):
    url, arn = queue(sqs, "quiet-q")
    events.create_event_bus(Name="elsewhere")
    rule_to(events, "off", arn)
    events.disable_rule(Name="off")
    put(events)
    put(events, bus="elsewhere")  # no rule on that bus
    control.advance(0)
    assert receive_and_delete(sqs, url) == []
    events.enable_rule(Name="off")
    put(events)
    control.advance(0)
    assert len(receive_and_delete(sqs, url)) == 1


def test_input_path_input_and_input_transformer(events, sqs, control):
    names = ["whole", "detail", "string", "constant", "json-template", "text-template", "reserved"]
    queues = {n: queue(sqs, f"input-{n}") for n in names}
    # Five targets at most per rule: two rules.
    events.put_rule(Name="inputs", EventPattern='{"source": ["shop"]}')
    events.put_rule(Name="templates", EventPattern='{"source": ["shop"]}')
    transform_paths = {
        "order": "$.detail.order",
        "count": "$.detail.count",
        "who": "$.detail.customer.name",
        "first": "$.resources[0]",
    }
    out = events.put_targets(
        Rule="inputs",
        Targets=[
            {"Id": "whole", "Arn": queues["whole"][1], "InputPath": "$"},
            {"Id": "detail", "Arn": queues["detail"][1], "InputPath": "$.detail"},
            {"Id": "string", "Arn": queues["string"][1], "InputPath": "$.detail.customer.name"},
            {"Id": "constant", "Arn": queues["constant"][1], "Input": '{"fixed": [1, 2], "text": "same"}'},
        ],
    )
    assert out["FailedEntryCount"] == 0, out
    out = events.put_targets(
        Rule="templates",
        Targets=[
            {
                "Id": "json-template",
                "Arn": queues["json-template"][1],
                "InputTransformer": {
                    "InputPathsMap": transform_paths,
                    "InputTemplate": '{"order": <order>, "count": <count>, '
                    '"line": "<who> ordered <count> (<order>)", "first": <first>}',
                },
            },
            {
                "Id": "text-template",
                "Arn": queues["text-template"][1],
                "InputTransformer": {
                    "InputPathsMap": transform_paths,
                    "InputTemplate": '"<who> ordered <count> items"',
                },
            },
            {
                "Id": "reserved",
                "Arn": queues["reserved"][1],
                "InputTransformer": {
                    "InputPathsMap": {"order": "$.detail.order"},
                    "InputTemplate": '{"rule": <aws.events.rule-name>, "arn": <aws.events.rule-arn>, '
                    '"order": <order>, "event": <aws.events.event.json>}',
                },
            },
        ],
    )
    assert out["FailedEntryCount"] == 0, out
    detail = {"order": "o-7", "count": 3, "customer": {"name": "Alice", "tier": "gold"}}
    event_id = put(events, detail=detail, Resources=["arn:aws:shop:::order/o-7"])
    control.advance(0)

    def body(name):
        got = receive_and_delete(sqs, queues[name][0])
        assert len(got) == 1, (name, got)
        return got[0]["Body"]

    whole = body("whole")
    assert ordered(whole)[0] == ENVELOPE_KEYS and json.loads(whole)["id"] == event_id
    assert json.loads(body("detail")) == detail
    assert body("string") == '"Alice"'  # InputPath to a string delivers the JSON string
    assert body("constant") == '{"fixed": [1, 2], "text": "same"}'  # Input is delivered as given
    assert json.loads(body("json-template")) == {
        "order": "o-7",
        "count": 3,
        "line": "Alice ordered 3 (o-7)",
        "first": "arn:aws:shop:::order/o-7",
    }
    assert body("text-template") == '"Alice ordered 3 items"'
    reserved = json.loads(body("reserved"))
    assert reserved["rule"] == "templates" and reserved["arn"] == rule_arn("templates")
    assert reserved["order"] == "o-7"
    assert reserved["event"]["id"] == event_id and reserved["event"]["detail"] == detail


def test_input_settings_are_validated(events, sqs):
    _, arn = queue(sqs, "validated-q")
    events.put_rule(Name="checked", EventPattern='{"source": ["shop"]}')
    with raises_code("ValidationException", 400) as error:
        events.put_targets(Rule="checked", Targets=[{"Id": "t", "Arn": arn, "Input": "{}", "InputPath": "$.detail"}])
    assert error.value.response["Error"]["Message"] == (
        "Only one of Input, InputPath, or InputTransformer must be provided for target t."
    )
    with raises_code("ValidationException", 400) as error:
        events.put_targets(
            Rule="checked",
            Targets=[
                {
                    "Id": "t",
                    "Arn": arn,
                    "InputTransformer": {"InputPathsMap": {"a": "$.detail.a"}, "InputTemplate": '{"x": <b>}'},
                }
            ],
        )
    assert error.value.response["Error"]["Message"] == "InputTemplate for target t contains invalid placeholder b."
    assert events.list_targets_by_rule(Rule="checked")["Targets"] == []


def test_fifo_queue_target_with_message_group_and_content_dedup(events, sqs, control):
    url, arn = queue(sqs, "orders.fifo", FifoQueue="true", ContentBasedDeduplication="true")
    events.put_rule(Name="to-fifo", EventPattern='{"source": ["shop"]}')
    group = {"MessageGroupId": "orders"}
    out = events.put_targets(Rule="to-fifo", Targets=[{"Id": "t", "Arn": arn, "SqsParameters": group}])
    assert out["FailedEntryCount"] == 0, out
    assert events.list_targets_by_rule(Rule="to-fifo")["Targets"] == [
        {"Id": "t", "Arn": arn, "SqsParameters": {"MessageGroupId": "orders"}}
    ]
    ids = [put(events, detail={"n": n}) for n in range(3)]
    control.advance(0)
    got = receive_and_delete(sqs, url, AttributeNames=["All"])
    assert [json.loads(m["Body"])["id"] for m in got] == ids  # one group: in order
    for m in got:
        assert m["Attributes"]["MessageGroupId"] == "orders"
        # Content-based deduplication: the id is the SHA-256 of the body.
        assert m["Attributes"]["MessageDeduplicationId"] == hashlib.sha256(m["Body"].encode()).hexdigest()

    # A constant Input makes every body the same: SQS deduplicates them for five minutes.
    events.put_targets(
        Rule="to-fifo", Targets=[{"Id": "t", "Arn": arn, "Input": '{"ping": true}', "SqsParameters": group}]
    )
    put(events, detail={"n": 10})
    put(events, detail={"n": 11})
    control.advance(0)
    assert [m["Body"] for m in receive_and_delete(sqs, url)] == ['{"ping": true}']
    control.advance(301)
    put(events, detail={"n": 12})
    control.advance(0)
    assert [m["Body"] for m in receive_and_delete(sqs, url)] == ['{"ping": true}']


def test_sns_topic_target_reaches_an_sqs_subscriber(events, sns, sqs, control):
    topic = sns.create_topic(Name="order-events")["TopicArn"]
    url, queue_arn = sqs_queue(sqs, "order-events-q", topic)
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)
    rule_to(events, "to-topic", topic)
    event_id = put(events, detail={"order": "o-1"})
    control.advance(0)

    got = receive_and_delete(sqs, url)
    assert len(got) == 1, got
    notification = json.loads(got[0]["Body"])
    assert notification["Type"] == "Notification" and notification["TopicArn"] == topic
    keys, event = ordered(notification["Message"])
    assert keys == ENVELOPE_KEYS, keys
    assert event["id"] == event_id and event["detail"] == {"order": "o-1"}
    log = records(control, source=rule_arn("to-topic") + "#t")
    assert [(r["event"], r["outcome"], r["target"]) for r in log] == [("attempt", "delivered", topic)]


def test_bus_to_bus_target(events, sqs, control):
    events.create_event_bus(Name="inbound")
    url, arn = queue(sqs, "inbound-q")
    rule_to(events, "on-inbound", arn, bus="inbound", pattern={"source": ["shop"], "detail-type": ["OrderPlaced"]})
    role = f"arn:aws:iam::{ACCOUNT}:role/events-to-inbound"
    rule_to(events, "forward", bus_arn("inbound"), RoleArn=role)
    now = control.clock()["epochMillis"]
    event_id = put(events, detail={"order": "o-9"}, Resources=["arn:aws:shop:::order/o-9"])
    control.advance(0)

    got = receive_and_delete(sqs, url)
    assert len(got) == 1, got
    keys, event = ordered(got[0]["Body"])
    assert keys == ENVELOPE_KEYS, keys
    # The event arrives on the second bus as it was: same id, time, source, resources and detail.
    assert event == {
        "version": "0",
        "id": event_id,
        "detail-type": "OrderPlaced",
        "source": "shop",
        "account": ACCOUNT,
        "time": event_time(now),
        "region": REGION,
        "resources": ["arn:aws:shop:::order/o-9"],
        "detail": {"order": "o-9"},
    }
    log = records(control, source=rule_arn("forward") + "#t")
    assert [(r["event"], r["outcome"], r["target"]) for r in log] == [("attempt", "delivered", bus_arn("inbound"))]
    targets = events.list_targets_by_rule(Rule="forward")["Targets"]
    assert targets == [{"Id": "t", "Arn": bus_arn("inbound"), "RoleArn": role}]


# --- retries and the dead-letter queue on the manual clock ----------------------------------------


def failing_target(events, sqs, control, name, retry_policy):
    """A rule whose SQS target answers 500 on every attempt (a fault), with a DLQ.
    Returns (target url, target arn, dlq url, dlq arn, source of the delivery records)."""
    url, arn = queue(sqs, f"{name}-q")
    dlq_url, dlq_arn = queue(sqs, f"{name}-dlq")
    rule = rule_to(events, name, arn, RetryPolicy=retry_policy, DeadLetterConfig={"Arn": dlq_arn})
    fault(control, arn, 500)
    return url, arn, dlq_url, dlq_arn, rule + "#t"


def attempts_and_end(control, source):
    log = records(control, source=source)
    attempts = [r for r in log if r["event"] == "attempt"]
    ends = [r for r in log if r["event"] != "attempt"]
    return attempts, ends


def check_dlq(sqs, dlq_url, event_id, rule, target, condition, retries):
    got = receive_and_delete(sqs, dlq_url, MessageAttributeNames=["All"])
    assert len(got) == 1, got
    keys, event = ordered(got[0]["Body"])
    assert keys == ENVELOPE_KEYS and event["id"] == event_id, got[0]["Body"]
    attributes = dlq_attributes(got[0])
    assert set(attributes) == {
        "RULE_ARN",
        "TARGET_ARN",
        "ERROR_CODE",
        "ERROR_MESSAGE",
        "EXHAUSTED_RETRY_CONDITION",
        "RETRY_ATTEMPTS",
    }, attributes
    # AWS does not document the attributes' DataType; String (numbers as decimal text) is switchyard's.
    assert all(v["DataType"] == "String" for v in got[0]["MessageAttributes"].values())
    assert attributes["RULE_ARN"] == rule
    assert attributes["TARGET_ARN"] == target
    assert attributes["ERROR_CODE"] and attributes["ERROR_MESSAGE"], attributes
    assert attributes["EXHAUSTED_RETRY_CONDITION"] == condition
    assert attributes["RETRY_ATTEMPTS"] == str(retries)
    return attributes


def test_maximum_retry_attempts_then_dead_letter_queue(events, sqs, control):
    policy = {"MaximumRetryAttempts": 3}
    url, arn, dlq_url, dlq_arn, source = failing_target(events, sqs, control, "three-retries", policy)
    event_id = put(events, detail={"order": "o-1"})
    control.advance(0)
    attempts, ends = attempts_and_end(control, source)
    assert [(r["attempt"], r["outcome"], r["status"]) for r in attempts] == [(1, "retryable", 500)]
    assert ends == [] and attempts[0]["nextAttemptAt"] is not None

    control.advance(3600)
    attempts, ends = attempts_and_end(control, source)
    assert [(r["attempt"], r["outcome"], r["phase"]) for r in attempts] == [
        (1, "retryable", "initial"),
        (2, "retryable", "retry"),
        (3, "retryable", "retry"),
        (4, "retryable", "retry"),
    ]
    assert all(r["messageId"] == event_id and r["target"] == arn for r in attempts)
    assert attempts[-1]["nextAttemptAt"] is None
    # The waits grow (exponential backoff, AWS's intervals unpublished).
    waits = [r["delaySeconds"] for r in attempts[1:]]
    assert waits == sorted(waits) and waits[0] > 0, waits
    assert [(r["event"], r["target"]) for r in ends] == [("dead-lettered", dlq_arn)]
    assert ends[0]["at"] == attempts[-1]["at"]

    assert receive_and_delete(sqs, url) == []
    check_dlq(sqs, dlq_url, event_id, rule_arn("three-retries"), arn, "MaximumRetryAttempts", 3)


def test_maximum_event_age_stops_the_attempts(events, sqs, control):
    url, arn, dlq_url, _, source = failing_target(events, sqs, control, "one-minute", {"MaximumEventAgeInSeconds": 60})
    start = control.clock()["epochMillis"]
    event_id = put(events)
    control.advance(600)
    attempts, ends = attempts_and_end(control, source)
    ages = [millis(r["at"]) - start for r in attempts]
    assert len(attempts) >= 3, ages
    assert ages[0] == 0 and all(age <= 60_000 for age in ages), ages  # nothing once the event is 60 s old
    assert ages == sorted(ages) and [r["attempt"] for r in attempts] == list(range(1, len(attempts) + 1))
    assert attempts[-1]["nextAttemptAt"] is None
    assert [r["event"] for r in ends] == ["dead-lettered"]
    assert millis(ends[0]["at"]) - start <= 60_000
    check_dlq(sqs, dlq_url, event_id, rule_arn("one-minute"), arn, "MaximumEventAgeInSeconds", len(attempts) - 1)


def test_default_retry_policy_runs_24_hours_in_seconds(events, sqs, control):
    url, arn = queue(sqs, "day-long-q")
    dlq_url, dlq_arn = queue(sqs, "day-long-dlq")
    rule_to(events, "day-long", arn, DeadLetterConfig={"Arn": dlq_arn})  # no RetryPolicy: the default
    fault(control, arn, 500)
    start = control.clock()["epochMillis"]
    event_id = put(events)

    wall = time.monotonic()
    control.advance(25 * 3600)
    elapsed = time.monotonic() - wall
    assert elapsed < 20, f"25 virtual hours took {elapsed:.1f} s of wall time"

    attempts, ends = attempts_and_end(control, rule_arn("day-long") + "#t")
    ages = [millis(r["at"]) - start for r in attempts]
    day = 24 * 3600 * 1000
    # Exponential backoff then a steady interval over the day: well over a hundred attempts, the
    # last at most 24 hours after the event and close to that limit, none after it.
    assert 100 <= len(attempts) <= 186, len(attempts)
    assert ages[-1] <= day and ages[-1] >= day - 15 * 60 * 1000, ages[-1]
    assert all(r["outcome"] == "retryable" for r in attempts)
    assert [r["event"] for r in ends] == ["dead-lettered"]
    check_dlq(sqs, dlq_url, event_id, rule_arn("day-long"), arn, "MaximumEventAgeInSeconds", len(attempts) - 1)
    assert receive_and_delete(sqs, url) == []


def test_a_fault_that_clears_lets_a_retry_deliver(events, sqs, control):
    url, arn = queue(sqs, "flaky-q")
    dlq_url, dlq_arn = queue(sqs, "flaky-dlq")
    rule_to(events, "flaky", arn, RetryPolicy={"MaximumRetryAttempts": 5}, DeadLetterConfig={"Arn": dlq_arn})
    fault(control, arn, 503, count=2)
    event_id = put(events)
    control.advance(120)
    attempts, ends = attempts_and_end(control, rule_arn("flaky") + "#t")
    assert [(r["attempt"], r["outcome"]) for r in attempts] == [(1, "retryable"), (2, "retryable"), (3, "delivered")]
    assert ends == []
    got = receive_and_delete(sqs, url)
    assert [json.loads(m["Body"])["id"] for m in got] == [event_id]
    assert receive_and_delete(sqs, dlq_url) == []


def test_permanent_failure_goes_to_the_dlq_without_retries(events, sqs, control):
    url, arn = queue(sqs, "gone-q")
    dlq_url, dlq_arn = queue(sqs, "gone-dlq")
    rule_to(events, "gone", arn, DeadLetterConfig={"Arn": dlq_arn})
    sqs.delete_queue(QueueUrl=url)  # a target that no longer exists is not retried
    event_id = put(events)
    control.advance(600)
    attempts, ends = attempts_and_end(control, rule_arn("gone") + "#t")
    assert [(r["attempt"], r["outcome"]) for r in attempts] == [(1, "permanent")]
    assert [r["event"] for r in ends] == ["dead-lettered"]
    got = receive_and_delete(sqs, dlq_url, MessageAttributeNames=["All"])
    assert len(got) == 1 and json.loads(got[0]["Body"])["id"] == event_id
    attributes = dlq_attributes(got[0])
    assert attributes["ERROR_CODE"] == "NO_RESOURCE", attributes
    assert attributes["RETRY_ATTEMPTS"] == "0"


# --- scheduled rules ------------------------------------------------------------------------------


def test_rate_schedule_fires_every_hour_for_a_virtual_day(events, sqs, control):
    # Start on a whole hour, so that each firing is on its own hour exactly.
    now = control.clock()["epochMillis"]
    hour = 3600 * 1000
    control.advance((hour - now % hour) / 1000)
    start = control.clock()["epochMillis"]
    assert start % hour == 0, start

    url, arn = queue(sqs, "hourly-q")
    rule = events.put_rule(Name="hourly", ScheduleExpression="rate(1 hour)")["RuleArn"]
    assert rule == rule_arn("hourly")
    described = events.describe_rule(Name="hourly")
    assert described["ScheduleExpression"] == "rate(1 hour)" and "EventPattern" not in described
    events.put_targets(Rule="hourly", Targets=[{"Id": "t", "Arn": arn}])

    control.advance(24 * 3600)
    got = receive_and_delete(sqs, url)
    assert len(got) == 24, len(got)
    fired = []
    for m in got:
        keys, event = ordered(m["Body"])
        assert keys == ENVELOPE_KEYS, keys
        assert event["version"] == "0" and UUID.match(event["id"])
        assert event["detail-type"] == "Scheduled Event"
        assert event["source"] == "aws.events"
        assert (event["account"], event["region"]) == (ACCOUNT, REGION)
        assert event["resources"] == [rule]
        assert event["detail"] == {}
        fired.append(event["time"])
    assert len({json.loads(m["Body"])["id"] for m in got}) == 24
    assert sorted(fired) == [event_time(start + k * hour) for k in range(1, 25)], sorted(fired)

    # Disabled, it stops firing; the targets' log agrees with the queue.
    events.disable_rule(Name="hourly")
    control.advance(3 * 3600)
    assert receive_and_delete(sqs, url) == []
    log = records(control, source=rule + "#t")
    assert len(log) == 24 and all(r["outcome"] == "delivered" for r in log)


def test_scheduled_rule_stops_when_its_targets_are_removed(events, sqs, control):
    url, arn = queue(sqs, "minutely-q")
    events.put_rule(Name="minutely", ScheduleExpression="rate(5 minutes)")
    events.put_targets(Rule="minutely", Targets=[{"Id": "t", "Arn": arn}])
    control.advance(15 * 60)
    assert len(receive_and_delete(sqs, url)) == 3
    events.remove_targets(Rule="minutely", Ids=["t"])
    control.advance(15 * 60)
    assert receive_and_delete(sqs, url) == []
    events.delete_rule(Name="minutely")


# --- bad input ------------------------------------------------------------------------------------


def error_of(raised):
    response = raised.value.response
    return response["Error"]["Code"], response["Error"]["Message"]


def test_missing_bus_and_rule(events):
    with raises_code("ResourceNotFoundException", 400) as error:
        events.describe_event_bus(Name="nope")
    assert error_of(error)[1] == "Event bus nope does not exist."
    with raises_code("ResourceNotFoundException", 400) as error:
        events.put_rule(Name="r", EventBusName="nope", EventPattern='{"source": ["shop"]}')
    assert error_of(error)[1] == "Event bus nope does not exist."
    with raises_code("ResourceNotFoundException", 400) as error:
        events.list_rules(EventBusName="nope")
    assert error_of(error)[1] == "Event bus nope does not exist."

    with raises_code("ResourceNotFoundException", 400) as error:
        events.describe_rule(Name="ghost")
    assert error_of(error)[1] == "Rule ghost does not exist on EventBus default."
    events.create_event_bus(Name="orders")
    with raises_code("ResourceNotFoundException", 400) as error:
        events.describe_rule(Name="ghost", EventBusName="orders")
    assert error_of(error)[1] == "Rule ghost does not exist on EventBus orders."
    for call in (
        lambda: events.put_targets(Rule="ghost", Targets=[{"Id": "t", "Arn": "arn:aws:sqs:us-east-1:000000000000:q"}]),
        lambda: events.list_targets_by_rule(Rule="ghost"),
        lambda: events.remove_targets(Rule="ghost", Ids=["t"]),
        lambda: events.enable_rule(Name="ghost"),
        lambda: events.disable_rule(Name="ghost"),
    ):
        with raises_code("ResourceNotFoundException", 400) as error:
            call()
        assert error_of(error)[1] == "Rule ghost does not exist on EventBus default."


def test_delete_rule_with_targets(events, sqs):
    _, arn = queue(sqs, "kept-q")
    rule_to(events, "busy", arn)
    with raises_code("ValidationException", 400) as error:
        events.delete_rule(Name="busy")
    assert error_of(error)[1] == "Rule can't be deleted since it has targets."
    assert events.describe_rule(Name="busy")["Name"] == "busy"
    events.remove_targets(Rule="busy", Ids=["t"])
    events.delete_rule(Name="busy")


@pytest.mark.parametrize(
    "pattern, reason",
    [
        ('{"source": "shop"}', '"source" must be an object or an array'),
        ('{"source": []}', "Empty arrays are not allowed"),
        ('{"detail": {"n": [{"numeric": [">", "five"]}]}}', "Value of > must be numeric"),
        ('{"source": [{"EXISTS": true}]}', "Unrecognized match type EXISTS"),
        ('{"source": [{"prefix": ["a", "b"]}]}', "prefix match pattern must be a string"),
        ('{"source": [{"wildcard": "a**b"}]}', "Consecutive wildcard characters at pos 2"),
    ],
)
def test_invalid_event_pattern(events, pattern, reason):
    with raises_code("InvalidEventPatternException", 400) as error:
        events.put_rule(Name="bad", EventPattern=pattern)
    assert error_of(error)[1] == f"Event pattern is not valid. Reason: {reason}"
    with raises_code("InvalidEventPatternException", 400) as error:
        events.test_event_pattern(EventPattern=pattern, Event=json.dumps(TEST_EVENT))
    assert error_of(error)[1] == f"Event pattern is not valid. Reason: {reason}"
    assert events.list_rules()["Rules"] == []


def test_event_pattern_that_is_not_json(events):
    with raises_code("InvalidEventPatternException", 400) as error:
        events.put_rule(Name="bad", EventPattern='{"source": ["shop"]')
    assert error_of(error)[1].startswith("Event pattern is not valid. Reason: ")


# Refused by AWS with exactly this error (the rate list as recorded from AWS by localstack's
# test_events_schedule.py, validated; the cron list from the same file).
@pytest.mark.parametrize(
    "expression",
    [
        "rate(10 seconds)",
        "rate(10 years)",
        "rate(1 minutes)",  # singular unit needed when the value is 1
        "rate(1 hours)",
        "rate(1 days)",
        "rate(10 minute)",  # plural unit needed otherwise
        "rate(10 hour)",
        "rate(10 day)",
        "rate()",
        "rate(10)",
        "rate(10 minutess)",
        "rate(foo minutes)",
        "rate(0 minutes)",
        "rate(-10 minutes)",
        "rate(10 MINUTES)",
        "rate( 10 minutes )",
        " rate(10 minutes)",
        "cron(0 1 * * * *)",  # day-of-month and day-of-week cannot both be given
        "cron(7 20 * * NOT *)",
        "cron(INVALID)",
        "cron(0 dummy ? * MON-FRI *)",
        "cron(71 8 1 * ? *)",
        "every hour",
    ],
)
def test_invalid_schedule_expression(events, expression):
    with raises_code("ValidationException", 400) as error:
        events.put_rule(Name="bad-schedule", ScheduleExpression=expression)
    assert error_of(error)[1] == "Parameter ScheduleExpression is not valid."
    assert events.list_rules()["Rules"] == []


def test_valid_schedule_expressions(events):
    expressions = [
        "rate(1 minute)",
        "rate(5 minutes)",
        "rate(1 hour)",
        "rate(1 day)",
        "rate(2 days)",
        "cron(0 2 ? * SAT *)",
        "cron(0 12 * * ? *)",
        "cron(5,35 14 * * ? *)",
        "cron(15 10 ? * 6L 2002-2005)",  # years in the past are accepted
        "cron(0 2 ? * SAT#3 *)",
        "cron(* * ? * SAT#3 *)",
        "cron(0/5 5 ? JAN 1-5 2022)",
        "cron(0 18 ? * MON-FRI *)",
        "cron(0 8 1 * ? *)",
        "cron(0/15 * * * ? *)",
        "cron(0/5 8-17 ? * MON-FRI *)",
        "cron(0/30 20-23 ? * MON-FRI *)",
    ]
    for n, expression in enumerate(expressions):
        events.put_rule(Name=f"ok-{n}", ScheduleExpression=expression)
        assert events.describe_rule(Name=f"ok-{n}")["ScheduleExpression"] == expression
    listed = events.list_rules(NamePrefix="ok-")["Rules"]
    assert len(listed) == len(expressions) and all("EventPattern" not in r for r in listed)


def test_schedules_only_on_the_default_bus(events):
    events.create_event_bus(Name="custom")
    with raises_code("ValidationException", 400) as error:
        events.put_rule(Name="timed", EventBusName="custom", ScheduleExpression="rate(1 minute)")
    assert error_of(error)[1] == "ScheduleExpression is supported only on the default event bus."


def test_put_events_with_eleven_entries(events):
    """AWS validates before anything else and shows the entries in its own (Java) notation, as
    recorded from AWS in localstack's test_events.snapshot.json (2024-12-06)."""
    entry = {"Source": "shop", "DetailType": "OrderPlaced", "Detail": '{"n": 1}', "EventBusName": "default"}
    with raises_code("ValidationException", 400) as error:
        events.put_events(Entries=[entry] * 11)
    shown = (
        "PutEventsRequestEntry(time=null, source=shop, resources=null, detailType=OrderPlaced, "
        'detail={"n": 1}, eventBusName=default, traceHeader=null, kmsKeyIdentifier=null, internalMetadata=null)'
    )
    assert error_of(error)[1] == (
        f"1 validation error detected: Value '[{', '.join([shown] * 11)}]' at 'entries' "
        "failed to satisfy constraint: Member must have length less than or equal to 10"
    )


def test_put_events_entries_fail_one_by_one(events, sqs, control):
    url, arn = queue(sqs, "partial-q")
    rule_to(events, "partial", arn)
    good = {"Source": "shop", "DetailType": "OrderPlaced", "Detail": '{"ok": true}'}
    out = events.put_events(
        Entries=[
            {"DetailType": "OrderPlaced", "Detail": "{}"},
            good,
            {"Source": "shop", "Detail": "{}"},
            {"Source": "shop", "DetailType": "OrderPlaced"},
            {"Source": "shop", "DetailType": "OrderPlaced", "Detail": '{"not": json}'},
            {"Source": "shop", "DetailType": "OrderPlaced", "Detail": "[1, 2]"},
            {"Source": "shop", "DetailType": "OrderPlaced", "Detail": '"a string"'},
        ]
    )
    results = out["Entries"]
    assert out["FailedEntryCount"] == 6, out
    assert len(results) == 7
    assert list(results[1]) == ["EventId"] and UUID.match(results[1]["EventId"])
    failures = [(r.get("ErrorCode"), r.get("ErrorMessage")) for i, r in enumerate(results) if i != 1]
    assert failures == [
        ("InvalidArgument", "Parameter Source is not valid. Reason: Source is a required argument."),
        ("InvalidArgument", "Parameter DetailType is not valid. Reason: DetailType is a required argument."),
        ("InvalidArgument", "Parameter Detail is not valid. Reason: Detail is a required argument."),
        ("MalformedDetail", "Detail is malformed."),
        ("MalformedDetail", "Detail is malformed."),
        ("MalformedDetail", "Detail is malformed."),
    ]
    assert all("EventId" not in r for i, r in enumerate(results) if i != 1)
    control.advance(0)
    got = receive_and_delete(sqs, url)
    assert [json.loads(m["Body"])["id"] for m in got] == [results[1]["EventId"]]


def test_put_events_to_a_missing_bus_is_accepted_and_dropped(events, sqs, control):
    """AWS accepts an entry for a bus that does not exist (it gets an EventId, FailedEntryCount
    stays 0) and drops the event; the other entries are delivered (localstack
    test_put_events_nonexistent_event_bus, recorded from AWS 2024-12-06)."""
    url, arn = queue(sqs, "missing-bus-q")
    rule_to(events, "on-default", arn)
    out = events.put_events(
        Entries=[
            {"Source": "shop", "DetailType": "OrderPlaced", "Detail": '{"to": "default"}'},
            {"Source": "shop", "DetailType": "OrderPlaced", "Detail": '{"to": "nowhere"}', "EventBusName": "nope"},
        ]
    )
    assert out["FailedEntryCount"] == 0, out
    assert [list(e) for e in out["Entries"]] == [["EventId"], ["EventId"]], out
    control.advance(0)
    got = receive_and_delete(sqs, url)
    assert [json.loads(m["Body"])["detail"] for m in got] == [{"to": "default"}]
    with raises_code("ResourceNotFoundException", 400):
        events.describe_event_bus(Name="nope")


def test_target_ids_are_validated(events, sqs):
    _, arn = queue(sqs, "ids-q")
    events.put_rule(Name="ids", EventPattern='{"source": ["shop"]}')
    with raises_code("ValidationException", 400) as error:
        events.put_targets(Rule="ids", Targets=[{"Id": "!@#$@!#$", "Arn": arn}])
    assert error_of(error)[1] == (
        "1 validation error detected: Value '!@#$@!#$' at 'targets.1.member.id' failed to satisfy constraint: "
        "Member must satisfy regular expression pattern: [\\.\\-_A-Za-z0-9]+"
    )
    long_id = "t" * 65
    with raises_code("ValidationException", 400) as error:
        events.put_targets(Rule="ids", Targets=[{"Id": long_id, "Arn": arn}])
    assert error_of(error)[1] == (
        f"1 validation error detected: Value '{long_id}' at 'targets.1.member.id' failed to satisfy constraint: "
        "Member must have length less than or equal to 64"
    )


def test_target_settings_out_of_range(events, sqs):
    _, arn = queue(sqs, "range-q")
    events.put_rule(Name="ranged", EventPattern='{"source": ["shop"]}')
    # (Values under the minimum botocore refuses itself.)
    for policy, member in [
        ({"MaximumRetryAttempts": 186}, "retryPolicy.maximumRetryAttempts"),
        ({"MaximumEventAgeInSeconds": 86401}, "retryPolicy.maximumEventAgeInSeconds"),
    ]:
        with raises_code("ValidationException", 400) as error:
            events.put_targets(Rule="ranged", Targets=[{"Id": "t", "Arn": arn, "RetryPolicy": policy}])
        message = error_of(error)[1]
        assert message.startswith("1 validation error detected: Value '"), message
        assert f"at 'targets.1.member.{member}'" in message, message
    # Six targets on one rule: five is the limit.
    with raises_code("LimitExceededException", 400):
        events.put_targets(Rule="ranged", Targets=[{"Id": f"t{n}", "Arn": arn} for n in range(6)])
    assert events.list_targets_by_rule(Rule="ranged")["Targets"] == []
