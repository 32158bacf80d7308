"""Helpers the EventBridge compat tests share (plain functions, not
fixtures): ARNs, an SQS queue EventBridge may send to, PutEvents of one entry, rules with one
target, the delivery log and faults of the control API, and errors as (code, message)."""

import json
from datetime import datetime, timezone

ACCOUNT = "000000000000"
REGION = "us-east-1"

# The envelope's keys in the order AWS writes them (docs/eventbridge.md), and with the
# `replay-name` of a replayed event, which AWS writes right after `region` (A8).
ENVELOPE_KEYS = ["version", "id", "detail-type", "source", "account", "time", "region", "resources", "detail"]
REPLAYED_KEYS = ENVELOPE_KEYS[:7] + ["replay-name"] + ENVELOPE_KEYS[7:]

# The six message attributes EventBridge adds to a dead-lettered event (A6).
DLQ_ATTRIBUTES = {
    "RULE_ARN",
    "TARGET_ARN",
    "ERROR_CODE",
    "ERROR_MESSAGE",
    "EXHAUSTED_RETRY_CONDITION",
    "RETRY_ATTEMPTS",
}
# The ERROR_CODE values AWS lists (eb-rule-dlq).
DLQ_ERROR_CODES = {
    "CONNECTION_FAILURE",
    "CROSS_ACCOUNT_INGESTION_FAILED",
    "CROSS_REGION_INGESTION_FAILED",
    "ERROR_FROM_TARGET",
    "EVENTS_IN_BATCH_REQUEST_REJECTED",
    "FAILED_TO_ASSUME_ROLE",
    "INTERNAL_ERROR",
    "INVALID_JSON",
    "INVALID_PARAMETER",
    "NO_PERMISSIONS",
    "NO_RESOURCE",
    "RESOURCE_ALREADY_EXISTS",
    "RESOURCE_LIMIT_EXCEEDED",
    "RESOURCE_MODIFICATION_COLLISION",
    "SDK_CLIENT_ERROR",
    "THIRD_ACCOUNT_HOP_DETECTED",
    "THIRD_REGION_HOP_DETECTED",
    "THROTTLING",
    "TIMEOUT",
    "TRANSIENT_ASSUME_ROLE",
    "UNKNOWN",
}

EVENT_TIME = "%Y-%m-%dT%H:%M:%SZ"
CLOCK_TIME = "%Y-%m-%dT%H:%M:%S.%fZ"


def bus_arn(name, account=ACCOUNT):
    return f"arn:aws:events:{REGION}:{account}:event-bus/{name}"


def rule_arn(name, bus="default", account=ACCOUNT):
    base = f"arn:aws:events:{REGION}:{account}:rule/"
    return base + (name if bus == "default" else f"{bus}/{name}")


def archive_arn(name, account=ACCOUNT):
    return f"arn:aws:events:{REGION}:{account}:archive/{name}"


def replay_arn(name, account=ACCOUNT):
    return f"arn:aws:events:{REGION}:{account}:replay/{name}"


def queue(sqs, name, **attributes):
    """An SQS queue (with `attributes`) whose policy lets the account's EventBridge rules send to
    it, as AWS requires (the emulator does not check it): (url, arn)."""
    url = sqs.create_queue(QueueName=name, Attributes={k: str(v) for k, v in attributes.items()})["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": "events.amazonaws.com"},
                "Action": "sqs:SendMessage",
                "Resource": arn,
                "Condition": {"ArnLike": {"aws:SourceArn": f"arn:aws:events:{REGION}:{ACCOUNT}:rule/*"}},
            }
        ],
    }
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"Policy": json.dumps(policy)})
    return url, arn


def ordered(body):
    """A JSON document's top-level keys in the order they were written, and the document."""
    pairs = json.loads(body, object_pairs_hook=lambda p: p)
    return [k for k, _ in pairs], json.loads(body)


def event_time(ms):
    """An instant (epoch milliseconds) as an event's `time`: whole seconds, no fraction."""
    return datetime.fromtimestamp(ms // 1000, tz=timezone.utc).strftime(EVENT_TIME)


def moment(ms):
    """An instant (epoch milliseconds) as the aware datetime boto3 takes for a timestamp."""
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc)


def ms_of(stamp):
    """A timestamp boto3 answered (an aware datetime) in epoch milliseconds."""
    return round(stamp.timestamp() * 1000)


def millis(text, fmt=CLOCK_TIME):
    return round(datetime.strptime(text, fmt).replace(tzinfo=timezone.utc).timestamp() * 1000)


def put(events, bus=None, source="shop", detail_type="OrderPlaced", detail=None, **extra):
    """PutEvents with one entry that must be accepted; returns its EventId."""
    entry = {"Source": source, "DetailType": detail_type, "Detail": json.dumps(detail or {}), **extra}
    if bus is not None:
        entry["EventBusName"] = bus
    out = events.put_events(Entries=[entry])
    assert out["FailedEntryCount"] == 0, out
    return out["Entries"][0]["EventId"]


def rule_to(events, name, target_arn, bus=None, pattern=None, **target):
    """A rule (pattern: source "shop" by default) with one target `t`; returns the rule ARN."""
    pattern = pattern or {"source": ["shop"]}
    kwargs = {"EventBusName": bus} if bus else {}
    arn = events.put_rule(Name=name, EventPattern=json.dumps(pattern), **kwargs)["RuleArn"]
    out = events.put_targets(Rule=name, Targets=[{"Id": "t", "Arn": target_arn, **target}], **kwargs)
    assert out["FailedEntryCount"] == 0, out
    return arn


def records(control, **filters):
    r = control.get("/deliveries", **filters)
    assert r.status_code == 200, r.text
    return r.json()["records"]


def fault(control, target, status=500, **extra):
    r = control.post("/faults", {"target": target, "status": status, **extra})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def dlq_attributes(message):
    return {k: v["StringValue"] for k, v in message["MessageAttributes"].items()}


def error_of(raised):
    """(code, message) of the ClientError caught by `raises_code(...) as raised`."""
    response = raised.value.response
    return response["Error"]["Code"], response["Error"]["Message"]
