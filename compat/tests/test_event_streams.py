"""Event streams (issue 8) through boto3 with the model switchyard ships (compat/models/eventsv2),
against the emulator on its manual clock: BACKOFF_RETRY's four attempts 10-20 s apart then the
DLQ, EXPONENTIAL_DECAY_RETRY's day in seconds of wall time, ErrorsTolerance NONE blocking the
stream with nothing lost and a restart delivering in order, START_FAILED for a missing target, and
the errors of bad input (docs/event-streams.md).

compat/run starts switchyard with jitter on: BACKOFF_RETRY's waits are random within 10-20 s.
"""

import json
import time

import pytest
from botocore.exceptions import ClientError

from test_eventsv2 import ROLE, drain, eventsv2_client, make_queue


@pytest.fixture(scope="module")
def ev2(url):
    return eventsv2_client(url)


def create(ev2, name, source, target, **extra):
    return ev2.create_event_stream(Name=name, Source=source,
                                   Target={"TargetArn": target, "RoleArn": ROLE},
                                   **extra)["EventStreamArn"]


def fault(control, target, status=500):
    r = control.post("/faults", {"target": target, "status": status})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def records(control, arn):
    r = control.get("/deliveries", source=arn)
    assert r.status_code == 200, r.text
    return r.json()["records"]


def attempt_delays(control, arn):
    return [r["delaySeconds"] for r in records(control, arn) if r["event"] == "attempt"]


def counts(sqs, url):
    a = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return int(a["ApproximateNumberOfMessages"]), int(a["ApproximateNumberOfMessagesNotVisible"])


def test_backoff_retry_makes_four_attempts_ten_to_twenty_seconds_apart_then_dead_letters(
        ev2, sqs, control):
    src_url, src = make_queue(sqs, "streams-in")
    _, target = make_queue(sqs, "streams-out")
    dlq_url, dlq = make_queue(sqs, "streams-dlq")
    fault(control, target)
    arn = create(ev2, "orders", src, target, RunOptions={
        "RetryStrategy": {"PushRetryStrategy": "BACKOFF_RETRY"},
        "ErrorsTolerance": "ALL",
        "DeadLetterQueue": {"Arn": dlq},
    })
    assert arn == "arn:aws:events:us-east-1:000000000000:event-stream/orders"
    sqs.send_message(QueueUrl=src_url, MessageBody='{"order": 1}')
    assert ev2.get_event_stream(EventStreamArn=arn)["State"] == "RUNNING"
    control.advance(35)
    # Held by the stream past the queue's 30 s visibility timeout: nobody else gets it.
    assert counts(sqs, src_url) == (0, 1)
    control.advance(60)
    delays = attempt_delays(control, arn)
    assert len(delays) == 4 and delays[0] == 0
    assert all(10 <= d <= 20 for d in delays[1:]), delays
    assert records(control, arn)[-1]["event"] == "dead-lettered"
    assert [m["Body"] for m in drain(sqs, dlq_url)] == ['{"order": 1}']
    assert counts(sqs, src_url) == (0, 0)
    assert ev2.get_event_stream(EventStreamArn=arn)["State"] == "RUNNING"


def test_exponential_decay_runs_its_day_in_seconds_of_wall_time(ev2, sqs, control):
    src_url, src = make_queue(sqs, "decay-in")
    _, target = make_queue(sqs, "decay-out")
    fault(control, target, 503)
    arn = create(ev2, "decay", src, target, RunOptions={
        "RetryStrategy": {"PushRetryStrategy": "EXPONENTIAL_DECAY_RETRY"},
        "ErrorsTolerance": "ALL",
    })
    sqs.send_message(QueueUrl=src_url, MessageBody="tick")
    started = time.monotonic()
    control.advance(86_400)
    assert time.monotonic() - started < 10
    delays = attempt_delays(control, arn)
    assert delays == [0] + [2 ** n for n in range(9)] + [512] * 167
    assert sum(delays) == 86_015
    assert records(control, arn)[-1]["event"] == "discarded"


def test_errors_tolerance_none_blocks_and_a_restart_delivers_everything_in_order(ev2, sqs, control):
    src_url, src = make_queue(sqs, "ledger-in")
    out_url, target = make_queue(sqs, "ledger-out")
    fault_id = fault(control, target)
    arn = create(ev2, "ledger", src, target)
    stream = ev2.get_event_stream(EventStreamArn=arn)
    assert stream["RunOptions"] == {"RetryStrategy": {"PushRetryStrategy": "BACKOFF_RETRY"},
                                    "ErrorsTolerance": "NONE"}
    for n in range(1, 4):
        sqs.send_message(QueueUrl=src_url, MessageBody=f"m{n}")
    control.advance(100)
    stream = ev2.get_event_stream(EventStreamArn=arn)
    assert stream["State"] == "READY"
    assert "ErrorsTolerance is NONE" in stream["StateReason"]
    assert records(control, arn)[-1]["event"] == "blocked"
    assert len(attempt_delays(control, arn)) == 4
    assert counts(sqs, src_url) == (3, 0)
    assert control.delete(f"/faults/{fault_id}").status_code < 300
    assert ev2.start_event_stream(EventStreamArn=arn)["State"] == "STARTING"
    assert ev2.get_event_stream(EventStreamArn=arn)["State"] == "RUNNING"
    assert [m["Body"] for m in drain(sqs, out_url)] == ["m1", "m2", "m3"]
    assert counts(sqs, src_url) == (0, 0)
    assert ev2.stop_event_stream(EventStreamArn=arn)["State"] == "READY"
    listed = ev2.list_event_streams(NamePrefix="led")["EventStreams"]
    assert [(s["Name"], s["State"], s["TargetArn"]) for s in listed] == [("ledger", "READY", target)]


def test_a_missing_target_gives_start_failed(ev2, sqs, control):
    src_url, src = make_queue(sqs, "orphan-in")
    missing = "arn:aws:sqs:us-east-1:000000000000:orphan-out"
    arn = create(ev2, "orphan", src, missing, RunOptions={"ErrorsTolerance": "ALL"})
    stream = ev2.get_event_stream(EventStreamArn=arn)
    assert stream["State"] == "START_FAILED"
    assert missing in stream["StateReason"]
    sqs.send_message(QueueUrl=src_url, MessageBody="waiting")
    out_url, _ = make_queue(sqs, "orphan-out")
    ev2.start_event_stream(EventStreamArn=arn)
    assert ev2.get_event_stream(EventStreamArn=arn)["State"] == "RUNNING"
    assert [m["Body"] for m in drain(sqs, out_url)] == ["waiting"]


def test_a_bus_source_feeds_the_stream_through_its_filter(ev2, sqs, control):
    bus = ev2.create_event_bus(Name="shop")["EventBusArn"]
    out_url, target = make_queue(sqs, "big-orders")
    create(ev2, "big", bus, target,
           FilterPattern=json.dumps({"detail": {"total": [{"numeric": [">", 100]}]}}))
    entries = [{"Source": "shop", "DetailType": "Order", "Detail": json.dumps({"total": t})}
               for t in (5, 150)]
    ev2.put_events(EventBusArn=bus, Entries=entries)
    got = [json.loads(m["Body"]) for m in drain(sqs, out_url)]
    assert [e["detail"] for e in got] == [{"total": 150}]


def test_bad_input_gets_aws_error_codes(ev2, sqs):
    _, src = make_queue(sqs, "v-in")
    _, target = make_queue(sqs, "v-out")

    def code(**kwargs):
        with pytest.raises(ClientError) as err:
            ev2.create_event_stream(**kwargs)
        return err.value.response["Error"]["Code"], err.value.response["Error"]["Message"]

    invoke = {"TargetArn": target, "RoleArn": ROLE}
    missing = "arn:aws:sqs:us-east-1:000000000000:v-missing"
    assert code(Name="s", Source=missing, Target=invoke)[0] == "ResourceNotFoundException"
    c, message = code(Name="s", Source=src, Target=invoke,
                      RunOptions={"ErrorsTolerance": "SOMETIMES"})
    assert c == "ValidationException"
    assert message.startswith("1 validation error detected: Value 'SOMETIMES' at 'runOptions.errorsTolerance'")
    assert code(Name="s", Source=src, Target={"TargetArn": src, "RoleArn": ROLE})[0] == "ValidationException"
    assert code(Name="s", Source="arn:aws:s3:::bucket", Target=invoke)[0] == "ValidationException"
    ev2.create_event_stream(Name="s", Source=src, Target=invoke)
    assert code(Name="s", Source=src, Target=invoke)[0] == "ResourceAlreadyExistsException"
    with pytest.raises(ClientError) as err:
        ev2.get_event_stream(EventStreamArn="arn:aws:events:us-east-1:000000000000:event-stream/nope")
    assert err.value.response["Error"]["Code"] == "ResourceNotFoundException"
