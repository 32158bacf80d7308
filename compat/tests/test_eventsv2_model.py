"""The eventsv2 model (compat/models/eventsv2/2025-05-15/service-2.json) as real clients read it.

AWS ships no botocore model for the custom event bus API (`aws eventsv2`, SDK id `eventbridgev2`,
API version 2025-05-15), so switchyard ships one: AWS JSON 1.1, `X-Amz-Target: AWSEventsV2.<Op>`,
SigV4 signing name `events`. These tests need no emulator:

- boto3, with AWS_DATA_PATH=compat/models, builds each operation's request; a `before-send` handler
  records it and answers with a canned response, so the wire shape (target header, content type,
  credential scope, JSON body) and the response parsing are checked offline;
- the AWS CLI v1, after `aws configure add-model` into a throwaway HOME, runs the redrive example of
  docs/custom-bus.md (the spec's, word for word) against a small HTTP server started here.

Run: cd compat && .venv/bin/python -m pytest tests/test_eventsv2_model.py -q
"""

import datetime
import http.server
import json
import os
import re
import subprocess
import sys
import threading

import boto3
import botocore.exceptions
import pytest
from botocore.awsrequest import AWSResponse
from botocore.config import Config

COMPAT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(COMPAT_DIR)
MODELS_DIR = os.path.join(COMPAT_DIR, "models")
MODEL_PATH = os.path.join(MODELS_DIR, "eventsv2", "2025-05-15", "service-2.json")
VENV_BIN = os.path.dirname(os.path.abspath(sys.executable))  # compat/.venv/bin when run as documented

REGION = "us-east-1"
ENDPOINT = "http://eventsv2.test.invalid"  # never contacted: before-send answers every boto3 request
CONTENT_TYPE = "application/x-amz-json-1.1"
SCOPE = re.compile(r"Credential=test/\d{8}/us-east-1/events/aws4_request, ")

BUS_ARN = "arn:aws:events:us-east-1:111122223333:event-busv2/orders/EXAMPLE1234567890abcdef"
SUB_ARN = "arn:aws:events:us-east-1:111122223333:subscriber/large-orders/EXAMPLEabcdef1234567890"
STREAM_ARN = "arn:aws:events:us-east-1:111122223333:event-stream/orders-to-audit"
QUEUE_ARN = "arn:aws:sqs:us-east-1:111122223333:large-orders"
DLQ_ARN = "arn:aws:sqs:us-east-1:111122223333:large-orders-dlq"
ROLE_ARN = "arn:aws:iam::111122223333:role/EventBusDeliveryRole"

# docs/custom-bus.md ("Redrive walk-through"), exactly as printed there (test_redrive_example_is_the_spec_text
# checks that it still is).
REDRIVE_EXAMPLE = r"""aws eventsv2 create-subscriber \
    --name redrive-2026-09-16 \
    --event-bus-arn arn:aws:events:us-east-1:111122223333:event-busv2/orders/EXAMPLE1234567890abcdef \
    --starting-position POINT_IN_TIME \
    --point-in-time-configuration '{ "PointType": "TIMESTAMP", "StartingPoint": "2026-09-16T18:40:00Z", "EndPoint": "2026-09-16T18:41:00Z" }' \
    --filter-configuration '{ "Filters": [ { "Scope": "SYSTEM_METADATA", "Pattern": "{\"aws:EventId\":[\"a1b2c3d4-...\",\"e5f6a7b8-...\"]}" } ] }' \
    --invoke-configuration '{ "TargetArn": "arn:aws:sqs:us-east-1:111122223333:large-orders", "RoleArn": "arn:aws:iam::111122223333:role/EventBusDeliveryRole" }'"""

# The README-style registration command, run from the repository root.
ADD_MODEL = (
    "aws configure add-model --service-model file://compat/models/eventsv2/2025-05-15/service-2.json "
    "--service-name eventsv2"
)


def epoch(text):
    """An RFC 3339 UTC time as the epoch seconds botocore puts on the wire for a JSON 1.1 timestamp."""
    return int(datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())


def utc(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


# ------------------------------------------------------------------------------------------ fixtures


@pytest.fixture(autouse=True)
def reset():
    """Replaces conftest's autouse `reset`: nothing here talks to an emulator."""
    yield


@pytest.fixture(scope="module")
def model():
    with open(MODEL_PATH) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """boto3 client for `eventsv2`, found through AWS_DATA_PATH; the user's ~/.aws is not read."""
    home = tmp_path_factory.mktemp("boto3-home")
    with pytest.MonkeyPatch.context() as mp:
        for name in list(os.environ):
            if name.startswith("AWS_"):
                mp.delenv(name)
        mp.setenv("AWS_DATA_PATH", MODELS_DIR)
        mp.setenv("AWS_CONFIG_FILE", str(home / "config"))
        mp.setenv("AWS_SHARED_CREDENTIALS_FILE", str(home / "credentials"))
        client = boto3.session.Session().client(
            "eventsv2",
            region_name=REGION,
            endpoint_url=ENDPOINT,
            aws_access_key_id="test",
            aws_secret_access_key="test",
            # One attempt: a canned throttling error must surface, not be retried into the next answer.
            config=Config(retries={"mode": "standard", "total_max_attempts": 1}),
        )
    return client


class _Raw:
    """Just enough of a urllib3 response for botocore's AWSResponse."""

    def __init__(self, body):
        self._body = body

    def stream(self, **_kwargs):
        yield self._body


class Wire:
    """Records each request the client would send and answers it with the next canned response."""

    def __init__(self):
        self.requests = []
        self.responses = []

    def answer(self, body, status=200):
        self.responses.append((status, json.dumps(body).encode()))

    def __call__(self, request, **_kwargs):
        self.requests.append(request)
        status, body = self.responses.pop(0) if self.responses else (200, b"{}")
        return AWSResponse(request.url, status, {"Content-Type": CONTENT_TYPE}, _Raw(body))

    @property
    def last(self):
        assert self.requests, "no request was sent"
        return self.requests[-1]


@pytest.fixture
def wire(client):
    wire = Wire()
    client.meta.events.register("before-send", wire, unique_id="eventsv2-wire")
    yield wire
    client.meta.events.unregister("before-send", unique_id="eventsv2-wire")


def header(request, name):
    value = request.headers[name]
    return value.decode() if isinstance(value, bytes) else value


# ------------------------------------------------------------------------------------------ the model


def test_metadata_is_aws_json_1_1_signed_as_events(model, client):
    meta = model["metadata"]
    assert meta["protocol"] == "json" and meta["protocols"] == ["json"]
    assert meta["jsonVersion"] == "1.1"
    assert meta["targetPrefix"] == "AWSEventsV2"
    assert meta["apiVersion"] == "2025-05-15"
    assert meta["signingName"] == "events" and meta["endpointPrefix"] == "events"
    assert meta["serviceId"] == "EventBridgeV2"
    assert client.meta.service_model.signing_name == "events"
    assert client.meta.service_model.api_version == "2025-05-15"


OPERATIONS = {
    # issue 7: custom event bus with subscribers
    "CreateEventBus", "GetEventBus", "ListEventBuses", "DeleteEventBus",
    "CreateSubscriber", "GetSubscriber", "ListSubscribers", "UpdateSubscriber", "DeleteSubscriber",
    "PutEvents",
    # issue 8: event streams
    "CreateEventStream", "GetEventStream", "ListEventStreams", "UpdateEventStream",
    "StartEventStream", "StopEventStream", "DeleteEventStream",
    # tagging
    "TagResource", "UntagResource", "ListTagsForResource",
}


def test_operations(model):
    assert set(model["operations"]) == OPERATIONS


def test_every_shape_reference_resolves_and_errors_are_exceptions(model):
    shapes = model["shapes"]
    for name, shape in shapes.items():
        refs = []
        if shape["type"] == "structure":
            refs = [m["shape"] for m in shape["members"].values()]
            assert set(shape.get("required", [])) <= set(shape["members"]), name
        elif shape["type"] == "list":
            refs = [shape["member"]["shape"]]
        elif shape["type"] == "map":
            refs = [shape["key"]["shape"], shape["value"]["shape"]]
        for ref in refs:
            assert ref in shapes, f"{name} refers to missing shape {ref}"
    for op in model["operations"].values():
        assert op["http"] == {"method": "POST", "requestUri": "/"}
        for error in op["errors"]:
            assert shapes[error["shape"]].get("exception") is True
    for error in ("ResourceNotFoundException", "ResourceAlreadyExistsException", "ValidationException",
                  "LimitExceededException", "ConcurrentModificationException", "InternalException",
                  "ThrottlingException"):
        assert shapes[error]["exception"] is True
    assert shapes["InternalException"].get("fault") is True


def test_operations_and_their_inputs_are_documented(model):
    """`aws eventsv2 help` and `aws eventsv2 <command> help` read from these strings."""
    assert model["documentation"].strip()
    for name, op in model["operations"].items():
        assert op.get("documentation", "").strip(), name
        for member, ref in model["shapes"][op["input"]["shape"]]["members"].items():
            assert ref.get("documentation", "").strip(), f"{name}.{member}"


def _member(model, shape_name, path):
    """The shape at a dotted member path; lists are stepped through."""
    shape = model["shapes"][shape_name]
    for part in path.split("."):
        while shape["type"] == "list":
            shape = model["shapes"][shape["member"]["shape"]]
        assert shape["type"] == "structure", f"{shape_name}.{path}: {part} is not in a structure"
        assert part in shape["members"], f"{shape_name}.{path}: no member {part}"
        shape = model["shapes"][shape["members"][part]["shape"]]
    return shape


# Every field the three spec files name, where the model has to have it.
SPEC_FIELDS = [
    ("CreateSubscriberRequest", "Type", "string"),
    ("CreateSubscriberRequest", "StartingPosition", "string"),
    ("CreateSubscriberRequest", "PointInTimeConfiguration.PointType", "string"),
    ("CreateSubscriberRequest", "PointInTimeConfiguration.StartingPoint", "timestamp"),
    ("CreateSubscriberRequest", "PointInTimeConfiguration.EndPoint", "timestamp"),
    ("CreateSubscriberRequest", "FilterConfiguration.Filters.Scope", "string"),
    ("CreateSubscriberRequest", "FilterConfiguration.Filters.Pattern", "string"),
    ("CreateSubscriberRequest", "InvokeConfiguration.TargetArn", "string"),
    ("CreateSubscriberRequest", "InvokeConfiguration.RoleArn", "string"),
    ("CreateSubscriberRequest", "InvokeConfiguration.InvocationType", "string"),
    ("CreateSubscriberRequest", "InvokeConfiguration.InvocationTimeoutSeconds", "integer"),
    ("CreateSubscriberRequest", "InvokeConfiguration.MaxBatchSize", "integer"),
    ("CreateSubscriberRequest", "InvokeConfiguration.Input", "string"),
    ("CreateSubscriberRequest", "InvokeConfiguration.Transformer.InputPathsMap", "map"),
    ("CreateSubscriberRequest", "InvokeConfiguration.Transformer.InputTemplate", "string"),
    ("CreateSubscriberRequest", "RetryPolicy.MaxRetryAttempts", "integer"),
    ("CreateSubscriberRequest", "RetryPolicy.MaxEventAgeInSeconds", "integer"),
    ("CreateSubscriberRequest", "RetryPolicy.RetryStrategy", "string"),
    ("CreateSubscriberRequest", "OnFailureConfiguration.Arn", "string"),
    ("GetSubscriberResponse", "State", "string"),
    ("GetSubscriberResponse", "CreationTime", "timestamp"),
    ("PutEventsRequest", "Entries.SystemMetadata.EventGroupId", "string"),
    ("PutEventsRequest", "Entries.SystemMetadata.DeduplicationId", "string"),
    ("PutEventsRequest", "DeduplicationConfiguration.DeduplicationType", "string"),
    ("PutEventsResponse", "FailedEntryCount", "integer"),
    ("PutEventsResponse", "Entries.SuccessCode", "string"),
    ("PutEventsResponse", "Entries.ErrorCode", "string"),
    ("PutEventsResponse", "Entries.ErrorMessage", "string"),
    ("CreateEventStreamRequest", "RunOptions.RetryStrategy.PushRetryStrategy", "string"),
    ("CreateEventStreamRequest", "RunOptions.ErrorsTolerance", "string"),
    ("CreateEventStreamRequest", "RunOptions.DeadLetterQueue.Arn", "string"),
    ("GetEventStreamResponse", "State", "string"),
]


@pytest.mark.parametrize("shape,path,kind", SPEC_FIELDS, ids=[f"{s}.{p}" for s, p, _ in SPEC_FIELDS])
def test_spec_fields_exist(model, shape, path, kind):
    assert _member(model, shape, path)["type"] == kind


ENUMS = {
    "OrderingType": {"UNORDERED", "FIFO"},
    "StartingPosition": {"LATEST", "POINT_IN_TIME"},
    "PointType": {"TIMESTAMP"},
    "FilterScope": {"EVENT", "SYSTEM_METADATA"},
    "InvocationType": {"FIRE_AND_FORGET", "REQUEST_RESPONSE", "EVENT"},
    "RetryStrategy": {"ALL"},
    "DeduplicationType": {"CONTENT_BASED"},
    "SuccessCode": {"PUBLISHED", "DEDUPLICATED"},
    "PushRetryStrategy": {"BACKOFF_RETRY", "EXPONENTIAL_DECAY_RETRY"},
    "ErrorsTolerance": {"ALL", "NONE"},
    "EventStreamState": {"RUNNING", "READY", "STARTING", "START_FAILED"},
    "SubscriberState": {"RUNNING", "STOPPED"},
}


@pytest.mark.parametrize("shape", sorted(ENUMS))
def test_enums(model, shape):
    assert set(model["shapes"][shape]["enum"]) == ENUMS[shape]


@pytest.mark.parametrize("shape,path,low,high", [
    ("RetryPolicy", "MaxRetryAttempts", 0, 185),
    ("RetryPolicy", "MaxEventAgeInSeconds", 60, 86400),
    ("CreateEventBusRequest", "RetentionPeriodInDays", 1, 365),
    ("ListEventBusesRequest", "MaxResults", 1, 100),
    ("PutEventsRequest", "Entries", 1, 10),
])
def test_ranges(model, shape, path, low, high):
    target = _member(model, shape, path)
    assert (target.get("min"), target.get("max")) == (low, high)


# ------------------------------------------------------------------------------------------ boto3 on the wire

T0 = "2026-09-16T18:40:00Z"
T1 = "2026-09-16T18:41:00Z"
INVOKE = {"TargetArn": QUEUE_ARN, "RoleArn": ROLE_ARN}
FULL_INVOKE = {
    "TargetArn": QUEUE_ARN,
    "RoleArn": ROLE_ARN,
    "InvocationType": "REQUEST_RESPONSE",
    "InvocationTimeoutSeconds": 10,
    "MaxBatchSize": 5,
    "Transformer": {"InputPathsMap": {"order": "$.detail.orderId"}, "InputTemplate": '{"order": <order>}'},
}
RUN_OPTIONS = {
    "RetryStrategy": {"PushRetryStrategy": "EXPONENTIAL_DECAY_RETRY"},
    "ErrorsTolerance": "ALL",
    "DeadLetterQueue": {"Arn": DLQ_ARN},
}
TAGS = [{"Key": "team", "Value": "orders"}]

# (operation, python kwargs, expected JSON body; None = same as kwargs, canned response)
CASES = [
    ("CreateEventBus",
     dict(Name="orders", RetentionPeriodInDays=7, Description="Order events", Tags=TAGS), None,
     {"EventBusArn": BUS_ARN}),
    ("GetEventBus", dict(EventBusArn=BUS_ARN), None,
     {"EventBusArn": BUS_ARN, "Name": "orders", "RetentionPeriodInDays": 7, "State": "ACTIVE",
      "CreationTime": epoch(T0), "LastModifiedTime": epoch(T1)}),
    ("ListEventBuses", dict(NamePrefix="ord", MaxResults=10, NextToken="t1"), None,
     {"EventBuses": [{"EventBusArn": BUS_ARN, "Name": "orders"}], "NextToken": "t2"}),
    ("DeleteEventBus", dict(EventBusArn=BUS_ARN), None, {}),
    ("CreateSubscriber",
     dict(Name="large-orders", EventBusArn=BUS_ARN, Type="FIFO", StartingPosition="POINT_IN_TIME",
          PointInTimeConfiguration={"PointType": "TIMESTAMP", "StartingPoint": utc(T0), "EndPoint": utc(T1)},
          FilterConfiguration={"Filters": [{"Scope": "EVENT", "Pattern": '{"source":["shop"]}'}]},
          InvokeConfiguration=FULL_INVOKE,
          RetryPolicy={"MaxRetryAttempts": 185, "MaxEventAgeInSeconds": 86400, "RetryStrategy": "ALL"},
          OnFailureConfiguration={"Arn": DLQ_ARN}, Description="big ones", Tags=TAGS),
     dict(Name="large-orders", EventBusArn=BUS_ARN, Type="FIFO", StartingPosition="POINT_IN_TIME",
          PointInTimeConfiguration={"PointType": "TIMESTAMP", "StartingPoint": epoch(T0), "EndPoint": epoch(T1)},
          FilterConfiguration={"Filters": [{"Scope": "EVENT", "Pattern": '{"source":["shop"]}'}]},
          InvokeConfiguration=FULL_INVOKE,
          RetryPolicy={"MaxRetryAttempts": 185, "MaxEventAgeInSeconds": 86400, "RetryStrategy": "ALL"},
          OnFailureConfiguration={"Arn": DLQ_ARN}, Description="big ones", Tags=TAGS),
     {"SubscriberArn": SUB_ARN}),
    ("GetSubscriber", dict(SubscriberArn=SUB_ARN), None,
     {"SubscriberArn": SUB_ARN, "Name": "large-orders", "EventBusArn": BUS_ARN, "Type": "UNORDERED",
      "StartingPosition": "LATEST", "InvokeConfiguration": INVOKE,
      "RetryPolicy": {"MaxRetryAttempts": 5, "MaxEventAgeInSeconds": 300, "RetryStrategy": "ALL"},
      "State": "RUNNING", "CreationTime": epoch(T0), "LastModifiedTime": epoch(T0)}),
    ("ListSubscribers", dict(EventBusArn=BUS_ARN, MaxResults=1), None,
     {"Subscribers": [{"SubscriberArn": SUB_ARN, "Name": "large-orders", "State": "RUNNING"}]}),
    ("UpdateSubscriber",
     dict(SubscriberArn=SUB_ARN, RetryPolicy={"MaxRetryAttempts": 0}, OnFailureConfiguration={},
          FilterConfiguration={"Filters": []}, InvokeConfiguration=INVOKE, Description="d"), None,
     {"SubscriberArn": SUB_ARN}),
    ("DeleteSubscriber", dict(SubscriberArn=SUB_ARN), None, {}),
    ("PutEvents",
     dict(EventBusArn=BUS_ARN,
          Entries=[{"Source": "shop", "DetailType": "OrderPlaced", "Detail": '{"orderId":"1001"}',
                    "Time": utc(T0), "Resources": [QUEUE_ARN],
                    "SystemMetadata": {"EventGroupId": "order-1001", "DeduplicationId": "k-1"}},
                   {"Source": "shop", "DetailType": "OrderPlaced", "Detail": "{}"}],
          DeduplicationConfiguration={"DeduplicationType": "CONTENT_BASED"}),
     dict(EventBusArn=BUS_ARN,
          Entries=[{"Source": "shop", "DetailType": "OrderPlaced", "Detail": '{"orderId":"1001"}',
                    "Time": epoch(T0), "Resources": [QUEUE_ARN],
                    "SystemMetadata": {"EventGroupId": "order-1001", "DeduplicationId": "k-1"}},
                   {"Source": "shop", "DetailType": "OrderPlaced", "Detail": "{}"}],
          DeduplicationConfiguration={"DeduplicationType": "CONTENT_BASED"}),
     {"FailedEntryCount": 0,
      "Entries": [{"EventId": "e-1", "SuccessCode": "PUBLISHED"}, {"EventId": "e-0", "SuccessCode": "DEDUPLICATED"}]}),
    ("CreateEventStream",
     dict(Name="orders-to-audit", Source=QUEUE_ARN, FilterPattern='{"source":["shop"]}', Target=INVOKE,
          RunOptions=RUN_OPTIONS, Description="audit", Tags=TAGS), None,
     {"EventStreamArn": STREAM_ARN}),
    ("GetEventStream", dict(EventStreamArn=STREAM_ARN), None,
     {"EventStreamArn": STREAM_ARN, "Name": "orders-to-audit", "Source": QUEUE_ARN, "Target": INVOKE,
      "RunOptions": RUN_OPTIONS, "State": "READY", "StateReason": "blocked", "CreationTime": epoch(T0),
      "LastModifiedTime": epoch(T1)}),
    ("ListEventStreams", dict(NamePrefix="orders", NextToken="t", MaxResults=100), None,
     {"EventStreams": [{"EventStreamArn": STREAM_ARN, "Name": "orders-to-audit", "State": "RUNNING"}]}),
    ("UpdateEventStream",
     dict(EventStreamArn=STREAM_ARN, RunOptions={"ErrorsTolerance": "NONE"}, Target=INVOKE, FilterPattern="{}",
          Description="d"), None,
     {"EventStreamArn": STREAM_ARN}),
    ("StartEventStream", dict(EventStreamArn=STREAM_ARN), None, {"EventStreamArn": STREAM_ARN, "State": "STARTING"}),
    ("StopEventStream", dict(EventStreamArn=STREAM_ARN), None, {"EventStreamArn": STREAM_ARN, "State": "READY"}),
    ("DeleteEventStream", dict(EventStreamArn=STREAM_ARN), None, {}),
    ("TagResource", dict(ResourceArn=SUB_ARN, Tags=TAGS), None, {}),
    ("UntagResource", dict(ResourceArn=SUB_ARN, TagKeys=["team"]), None, {}),
    ("ListTagsForResource", dict(ResourceArn=STREAM_ARN), None, {"Tags": TAGS}),
]


def test_every_operation_has_a_wire_case():
    assert {case[0] for case in CASES} == OPERATIONS


def _snake(operation):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", operation).lower()


@pytest.mark.parametrize("operation,kwargs,body,canned", CASES, ids=[case[0] for case in CASES])
def test_request_on_the_wire(client, wire, operation, kwargs, body, canned):
    wire.answer(canned)
    result = getattr(client, _snake(operation))(**kwargs)
    request = wire.last
    assert request.method == "POST"
    assert request.url == ENDPOINT + "/"
    assert header(request, "X-Amz-Target") == f"AWSEventsV2.{operation}"
    assert header(request, "Content-Type") == CONTENT_TYPE
    assert SCOPE.search(header(request, "Authorization")), header(request, "Authorization")
    assert json.loads(request.body) == (kwargs if body is None else body)
    assert result["ResponseMetadata"]["HTTPStatusCode"] == 200


def test_response_timestamps_are_parsed(client, wire):
    """Times travel as epoch seconds (JSON 1.1 default) and come back as datetimes."""
    wire.answer({"SubscriberArn": SUB_ARN, "State": "RUNNING", "CreationTime": epoch(T0),
                 "PointInTimeConfiguration": {"PointType": "TIMESTAMP", "StartingPoint": epoch(T0) + 0.5}})
    got = client.get_subscriber(SubscriberArn=SUB_ARN)
    assert got["CreationTime"] == utc(T0)
    assert got["PointInTimeConfiguration"]["StartingPoint"] == utc(T0) + datetime.timedelta(milliseconds=500)


def test_put_events_results(client, wire):
    wire.answer({"FailedEntryCount": 1, "Entries": [
        {"EventId": "e-1", "SequenceNumber": "1", "SuccessCode": "PUBLISHED"},
        {"ErrorCode": "ValidationException", "ErrorMessage": "Detail is not a JSON object"},
    ]})
    got = client.put_events(EventBusArn=BUS_ARN, Entries=[
        {"Source": "shop", "DetailType": "OrderPlaced", "Detail": "{}"},
        {"Source": "shop", "DetailType": "OrderPlaced", "Detail": "[]"},
    ])
    assert got["FailedEntryCount"] == 1
    assert got["Entries"][0]["SuccessCode"] == "PUBLISHED"
    assert got["Entries"][1]["ErrorCode"] == "ValidationException"


@pytest.mark.parametrize("code", ["ResourceNotFoundException", "ResourceAlreadyExistsException", "ValidationException",
                                  "ResourceInUseException", "LimitExceededException", "ConcurrentModificationException",
                                  "ThrottlingException"])
def test_errors_map_to_modeled_exceptions(client, wire, code):
    wire.answer({"__type": code, "message": "nope"}, status=400)
    with pytest.raises(getattr(client.exceptions, code)) as caught:
        client.delete_event_bus(EventBusArn=BUS_ARN)
    assert caught.value.response["Error"] == {"Code": code, "Message": "nope"}


MISSING = [
    ("create_event_bus", dict()),
    ("get_event_bus", dict()),
    ("create_subscriber", dict(Name="s", EventBusArn=BUS_ARN)),                      # no InvokeConfiguration
    ("create_subscriber", dict(Name="s", EventBusArn=BUS_ARN, InvokeConfiguration={"TargetArn": QUEUE_ARN})),
    ("create_subscriber", dict(EventBusArn=BUS_ARN, InvokeConfiguration=INVOKE)),   # no Name
    ("create_subscriber", dict(Name="s", EventBusArn=BUS_ARN, InvokeConfiguration=INVOKE,
                               FilterConfiguration={"Filters": [{"Pattern": "{}"}]})),
    ("create_subscriber", dict(Name="s", EventBusArn=BUS_ARN, InvokeConfiguration=INVOKE,
                               PointInTimeConfiguration={"StartingPoint": utc(T0)})),
    ("create_subscriber", dict(Name="s", EventBusArn=BUS_ARN, InvokeConfiguration=INVOKE,
                               RetryPolicy={"MaxRetryAttempts": -1})),
    ("create_subscriber", dict(Name="s", EventBusArn=BUS_ARN, InvokeConfiguration=INVOKE,
                               RetryPolicy={"MaxEventAgeInSeconds": 59})),
    ("list_subscribers", dict()),
    ("update_subscriber", dict(Description="d")),
    ("put_events", dict(EventBusArn=BUS_ARN)),
    ("put_events", dict(EventBusArn=BUS_ARN, Entries=[])),
    ("put_events", dict(EventBusArn=BUS_ARN, Entries=[{"Source": "shop", "Detail": "{}"}])),
    ("put_events", dict(EventBusArn=BUS_ARN, Entries=[{"Source": "s", "DetailType": "t", "Detail": "{}"}],
                        DeduplicationConfiguration={})),
    ("create_event_stream", dict(Name="x", Source=QUEUE_ARN)),
    ("create_event_stream", dict(Name="x", Source=QUEUE_ARN, Target=INVOKE, RunOptions={"RetryStrategy": {}})),
    ("start_event_stream", dict()),
    ("tag_resource", dict(ResourceArn=SUB_ARN)),
]


@pytest.mark.parametrize("method,kwargs", MISSING, ids=[f"{m}-{i}" for i, (m, _) in enumerate(MISSING)])
def test_invalid_parameters_are_rejected_client_side(client, wire, method, kwargs):
    with pytest.raises(botocore.exceptions.ParamValidationError):
        getattr(client, method)(**kwargs)
    assert wire.requests == []


# ------------------------------------------------------------------------------------------ the AWS CLI


def test_redrive_example_is_the_spec_text():
    # docs/custom-bus.md carries the spec's redrive command word for word.
    with open(os.path.join(REPO_ROOT, "docs", "custom-bus.md")) as f:
        text = f.read()
    blocks = re.findall(r"```\n(aws eventsv2 create-subscriber.*?)\n```", text, re.S)
    assert blocks == [REDRIVE_EXAMPLE]


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Records every request; answers like a tiny eventsv2 endpoint."""

    ANSWERS = {
        "AWSEventsV2.CreateSubscriber": {
            "SubscriberArn": "arn:aws:events:us-east-1:111122223333:subscriber/redrive-2026-09-16/EXAMPLEredrive0000000001"},
        "AWSEventsV2.PutEvents": {"FailedEntryCount": 0, "Entries": [{"EventId": "e-1", "SuccessCode": "PUBLISHED"}]},
    }

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.recorded.append({"path": self.path, "headers": dict(self.headers), "body": body})
        answer = json.dumps(self.ANSWERS.get(self.headers.get("X-Amz-Target"), {})).encode()
        self.send_response(200)
        self.send_header("Content-Type", CONTENT_TYPE)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *_args):
        pass


@pytest.fixture
def endpoint():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.recorded = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def cli_env(tmp_path_factory):
    """The CLI's environment: a fresh HOME with the model added, dummy credentials, us-east-1."""
    if not os.path.exists(os.path.join(VENV_BIN, "aws")):
        pytest.skip(f"no AWS CLI next to {sys.executable}")
    home = tmp_path_factory.mktemp("cli-home")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("AWS_") and k.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")}
    env.update(
        HOME=str(home),
        PATH=VENV_BIN + os.pathsep + env.get("PATH", "/usr/bin:/bin"),
        AWS_ACCESS_KEY_ID="test",
        AWS_SECRET_ACCESS_KEY="test",
        AWS_DEFAULT_REGION=REGION,
        AWS_MAX_ATTEMPTS="1",
    )
    done = subprocess.run(["bash", "-c", ADD_MODEL], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    added = home / ".aws" / "models" / "eventsv2" / "2025-05-15" / "service-2.json"
    with open(added) as a, open(MODEL_PATH) as b:
        assert json.load(a) == json.load(b)
    return env


def run_cli(env, command, url, cwd):
    done = subprocess.run(["bash", "-c", f"{command} --endpoint-url {url}"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"exit {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}"
    return done


def check_wire(recorded, operation):
    assert recorded["path"] == "/"
    assert recorded["headers"]["X-Amz-Target"] == f"AWSEventsV2.{operation}"
    assert recorded["headers"]["Content-Type"] == CONTENT_TYPE
    assert SCOPE.search(recorded["headers"]["Authorization"]), recorded["headers"]["Authorization"]
    return json.loads(recorded["body"])


def test_cli_runs_the_redrive_example_word_for_word(cli_env, endpoint, tmp_path):
    url = f"http://127.0.0.1:{endpoint.server_address[1]}"
    done = run_cli(cli_env, REDRIVE_EXAMPLE, url, tmp_path)
    assert len(endpoint.recorded) == 1
    body = check_wire(endpoint.recorded[0], "CreateSubscriber")
    assert body == {
        "Name": "redrive-2026-09-16",
        "EventBusArn": BUS_ARN,
        "StartingPosition": "POINT_IN_TIME",
        "PointInTimeConfiguration": {"PointType": "TIMESTAMP", "StartingPoint": epoch("2026-09-16T18:40:00Z"),
                                     "EndPoint": epoch("2026-09-16T18:41:00Z")},
        "FilterConfiguration": {"Filters": [
            {"Scope": "SYSTEM_METADATA", "Pattern": '{"aws:EventId":["a1b2c3d4-...","e5f6a7b8-..."]}'}]},
        "InvokeConfiguration": {"TargetArn": "arn:aws:sqs:us-east-1:111122223333:large-orders",
                                "RoleArn": "arn:aws:iam::111122223333:role/EventBusDeliveryRole"},
    }
    assert json.loads(done.stdout) == _Recorder.ANSWERS["AWSEventsV2.CreateSubscriber"]


def test_cli_put_events_with_content_based_dedup_shorthand(cli_env, endpoint, tmp_path):
    """docs/custom-bus.md ("Dedup at publish"): `--deduplication-configuration DeduplicationType=CONTENT_BASED`,
    with `SystemMetadata.EventGroupId` / `SystemMetadata.DeduplicationId` on the entries."""
    url = f"http://127.0.0.1:{endpoint.server_address[1]}"
    command = (
        f"aws eventsv2 put-events --event-bus-arn {BUS_ARN} "
        "--entries '[{\"Source\": \"shop\", \"DetailType\": \"OrderPlaced\", \"Detail\": \"{\\\"orderId\\\":\\\"1001\\\"}\", "
        "\"SystemMetadata\": {\"EventGroupId\": \"order-1001\", \"DeduplicationId\": \"idem-1001\"}}]' "
        "--deduplication-configuration DeduplicationType=CONTENT_BASED"
    )
    run_cli(cli_env, command, url, tmp_path)
    body = check_wire(endpoint.recorded[0], "PutEvents")
    assert body == {
        "EventBusArn": BUS_ARN,
        "Entries": [{"Source": "shop", "DetailType": "OrderPlaced", "Detail": '{"orderId":"1001"}',
                     "SystemMetadata": {"EventGroupId": "order-1001", "DeduplicationId": "idem-1001"}}],
        "DeduplicationConfiguration": {"DeduplicationType": "CONTENT_BASED"},
    }


def test_cli_help_renders_the_model_docs(cli_env, tmp_path):
    """`aws eventsv2 <command> help` shows the model's documentation (rendered with groff, as the CLI does)."""
    if not any(os.access(os.path.join(d, "groff"), os.X_OK) for d in cli_env["PATH"].split(os.pathsep)):
        pytest.skip("groff not installed; the CLI cannot render help")
    env = dict(cli_env, PAGER="cat", MANPAGER="cat")
    done = subprocess.run(["bash", "-c", "aws eventsv2 create-subscriber help"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    text = re.sub(r".\x08", "", done.stdout)  # drop groff's overstrike bold
    assert "--point-in-time-configuration" in text
    assert "POINT_IN_TIME" in text and "SYSTEM_METADATA" in text
