"""The control API under /_switchyard/ (docs/control-api.md), with the server on a manual clock."""

import re
from datetime import datetime, timedelta, timezone

RFC3339_MILLIS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


def parse_time(text):
    assert RFC3339_MILLIS.match(text), f"not RFC 3339 UTC with milliseconds: {text!r}"
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)


def format_time(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def epoch_millis(moment):
    return round(moment.timestamp() * 1000)


def assert_json(response, status):
    assert response.status_code == status, f"{response.status_code} {response.text}"
    assert response.headers.get("Content-Type", "").startswith("application/json"), response.headers
    return response.json()


def assert_error(response, status):
    body = assert_json(response, status)
    assert isinstance(body.get("error"), str) and body["error"], body
    assert isinstance(body.get("message"), str), body
    return body


def test_health(control):
    body = assert_json(control.get("/health"), 200)
    assert body["status"] == "ok"
    assert isinstance(body["version"], str) and body["version"]
    assert "sqs" in body["services"]
    assert body["clock"]["mode"] == "manual"


def test_clock_in_manual_mode(control):
    clock = assert_json(control.get("/clock"), 200)
    assert clock["mode"] == "manual"
    assert isinstance(clock["factor"], (int, float))
    assert type(clock["epochMillis"]) is int
    assert epoch_millis(parse_time(clock["now"])) == clock["epochMillis"]
    # Manual time only moves when told.
    assert control.clock()["epochMillis"] == clock["epochMillis"]


def test_advance_by_seconds(control):
    before = control.clock()
    body = assert_json(control.post("/clock/advance", {"seconds": 90}), 200)
    parse_time(body["now"])
    assert type(body["fired"]) is int
    after = control.clock()
    assert after["epochMillis"] - before["epochMillis"] == 90_000
    assert body["now"] == after["now"]


def test_advance_until(control):
    before = parse_time(control.clock()["now"])
    target = format_time(before + timedelta(hours=1, milliseconds=250))
    body = assert_json(control.post("/clock/advance", {"until": target}), 200)
    assert body["now"] == target
    assert control.clock()["now"] == target


def test_advance_by_negative_seconds_is_rejected(control):
    before = control.clock()
    assert_error(control.post("/clock/advance", {"seconds": -1}), 400)
    assert control.clock()["epochMillis"] == before["epochMillis"]


def test_advance_until_the_past_is_rejected(control):
    before = control.clock()
    past = format_time(parse_time(before["now"]) - timedelta(seconds=1))
    assert_error(control.post("/clock/advance", {"until": past}), 400)
    assert control.clock()["epochMillis"] == before["epochMillis"]


def test_reset_removes_queues_and_keeps_the_clock(control, sqs):
    sqs.create_queue(QueueName="doomed")
    control.advance(5)
    before = control.clock()

    assert assert_json(control.post("/reset"), 200) == {}

    assert sqs.list_queues().get("QueueUrls", []) == []
    assert control.clock() == before


def test_deliveries_and_outbox_start_empty(control):
    assert assert_json(control.get("/deliveries"), 200) == {"records": []}
    assert assert_json(control.get("/outbox"), 200) == {"messages": []}


def fault_ids(listing):
    # docs/control-api.md: GET /_switchyard/faults answers {"faults": [...]}.
    faults = listing["faults"]
    assert isinstance(faults, list), f"no list of faults in {listing!r}"
    return [fault["id"] for fault in faults]


def test_faults_add_list_delete(control):
    target = "arn:aws:sqs:us-east-1:000000000000:x"
    created = assert_json(control.post("/faults", {"target": target, "status": 500}), 201)
    fault_id = created["id"]
    assert isinstance(fault_id, str) and fault_id

    assert fault_ids(assert_json(control.get("/faults"), 200)) == [fault_id]

    deleted = control.delete(f"/faults/{fault_id}")
    assert deleted.status_code == 200, f"{deleted.status_code} {deleted.text}"
    assert fault_ids(assert_json(control.get("/faults"), 200)) == []


def test_metrics_are_prometheus_text(control):
    response = control.get("/metrics")
    assert response.status_code == 200, f"{response.status_code} {response.text}"
    assert response.headers.get("Content-Type", "").startswith("text/plain"), response.headers
