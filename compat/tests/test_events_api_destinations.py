"""EventBridge connections and API destinations through boto3, invoking HTTP receivers this test
starts itself (http.server in a thread, on 127.0.0.1, recording method, path, headers and body and
answering a status the test sets): connections of each authorization type (BASIC, API_KEY, and
OAUTH_CLIENT_CREDENTIALS with a second local server as the token endpoint) described without their
secrets, listed, updated, deauthorized and deleted; API destinations created, described, listed,
updated and deleted; a rule target with HttpParameters and the exact request it makes; the
InvocationRateLimitPerSecond pacing invocations on the virtual clock; a failing endpoint retried
under the target's RetryPolicy then dead-lettered with the six DLQ attributes; and bad input.

switchyard takes http:// endpoints as well as https:// ones (docs/decisions.md), so the receivers
need no certificate. `POST /_switchyard/clock/advance` returns only once the HTTP requests the
advance triggered have been answered: after it, the receivers hold everything that was sent."""

import base64
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

import pytest
from botocore.config import Config
from events_helpers import (
    ACCOUNT,
    DLQ_ATTRIBUTES,
    DLQ_ERROR_CODES,
    ENVELOPE_KEYS,
    REGION,
    dlq_attributes,
    error_of,
    millis,
    ordered,
    put,
    queue,
    records,
    rule_arn,
)
from sns_helpers import UUID, receive_and_delete
from sqs_helpers import raises_code

ROLE = f"arn:aws:iam::{ACCOUNT}:role/events-invoke-api-destinations"
USER_AGENT = "Amazon/EventBridge/ApiDestinations"
JSON_UTF8 = "application/json; charset=utf-8"
CONNECTION_ARN = re.compile(rf"^arn:aws:events:{REGION}:{ACCOUNT}:connection/(?P<name>[^/]+)/[-0-9a-f]{{36}}$")
DESTINATION_ARN = re.compile(rf"^arn:aws:events:{REGION}:{ACCOUNT}:api-destination/(?P<name>[^/]+)/[-0-9a-f]{{36}}$")
SECRET_ARN = re.compile(
    rf"^arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:"
    r"events!connection/(?P<name>[^/]+)/[-0-9a-f]{36}-[A-Za-z0-9]{6}$"
)
# The keys AWS answers, as LocalStack recorded them from AWS (test_api_destinations_and_connection).
CONNECTION_SUMMARY_KEYS = {
    "AuthorizationType",
    "ConnectionArn",
    "ConnectionState",
    "CreationTime",
    "LastAuthorizedTime",
    "LastModifiedTime",
    "Name",
}
DESTINATION_KEYS = {
    "ApiDestinationArn",
    "ApiDestinationState",
    "ConnectionArn",
    "CreationTime",
    "HttpMethod",
    "InvocationEndpoint",
    "InvocationRateLimitPerSecond",
    "LastModifiedTime",
    "Name",
}


@pytest.fixture(scope="session")
def events(make_client):
    return make_client("events")


@pytest.fixture(scope="session")
def events_unchecked(make_client):
    """EventBridge without botocore's own checks, to send values under a member's minimum."""
    config = Config(retries={"mode": "standard", "max_attempts": 1}, read_timeout=40, parameter_validation=False)
    return make_client("events", config=config)


# --- local HTTP receivers -------------------------------------------------------------------------


class Request:
    def __init__(self, method, target, headers, body):
        self.method = method
        self.target = target  # path and query, as on the request line
        split = urlsplit(target)
        self.path = split.path
        self.query = parse_qsl(split.query, keep_blank_values=True)
        self.header_list = headers  # [(name, value)] as received
        self.headers = {k.lower(): v for k, v in headers}
        self.body = body

    def json(self):
        return json.loads(self.body)

    def values(self, name):
        return [v for k, v in self.header_list if k.lower() == name.lower()]

    def __repr__(self):
        return f"<{self.method} {self.target} {self.body[:120]!r}>"


class Receiver:
    """An HTTP endpoint on 127.0.0.1 that records every request and answers `status` with `body`
    (and any extra `headers`)."""

    def __init__(self, status=200, body="", content_type="application/json"):
        self.requests = []
        self.lock = threading.Lock()
        self.status, self.body, self.content_type, self.headers = status, body, content_type, {}
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _record(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8") if length else ""
                with receiver.lock:
                    receiver.requests.append(Request(self.command, self.path, list(self.headers.items()), body))
                    status, answer, content_type = receiver.status, receiver.body, receiver.content_type
                    extra = dict(receiver.headers)
                data = answer.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _record

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def answer(self, status, body="", headers=None):
        with self.lock:
            self.status, self.body, self.headers = status, body, dict(headers or {})

    def take(self):
        """The requests recorded so far, and forget them."""
        with self.lock:
            out, self.requests = self.requests, []
        return out

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def tokens():
    """An OAuth token endpoint: answers a client-credentials token."""
    r = Receiver(body=json.dumps({"access_token": "at-42", "token_type": "Bearer", "expires_in": 3600}))
    yield r
    r.close()


# --- helpers --------------------------------------------------------------------------------------


def basic(user, password, **extra):
    return {"BasicAuthParameters": {"Username": user, "Password": password}, **extra}


def api_key(name, value, **extra):
    return {"ApiKeyAuthParameters": {"ApiKeyName": name, "ApiKeyValue": value}, **extra}


def oauth(endpoint, client_id="client-1", secret="client-secret-1", **extra):
    parameters = {
        "AuthorizationEndpoint": endpoint,
        "HttpMethod": "POST",
        "ClientParameters": {"ClientID": client_id, "ClientSecret": secret},
        **extra,
    }
    return {"OAuthParameters": parameters}


def connection(events, name, kind, auth, **extra):
    out = events.create_connection(Name=name, AuthorizationType=kind, AuthParameters=auth, **extra)
    assert CONNECTION_ARN.match(out["ConnectionArn"]).group("name") == name, out
    return out["ConnectionArn"]


def destination(events, name, connection_arn, endpoint, method="POST", **extra):
    out = events.create_api_destination(
        Name=name, ConnectionArn=connection_arn, InvocationEndpoint=endpoint, HttpMethod=method, **extra
    )
    assert DESTINATION_ARN.match(out["ApiDestinationArn"]).group("name") == name, out
    return out["ApiDestinationArn"]


def rule_with(events, *targets, name="to-api"):
    """A rule on the default bus (source "shop") with these targets (each given its Id)."""
    events.put_rule(Name=name, EventPattern=json.dumps({"source": ["shop"]}))
    out = events.put_targets(Rule=name, Targets=list(targets))
    assert out["FailedEntryCount"] == 0, out
    return rule_arn(name)


def api_target(arn, target_id="api", **extra):
    return {"Id": target_id, "Arn": arn, "RoleArn": ROLE, **extra}


def basic_header(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def check_eventbridge_headers(request):
    """The headers EventBridge adds to every request to an API destination (eb-api-destinations,
    "Headers included in requests": spec A10)."""
    h = request.headers
    assert h.get("user-agent") == USER_AGENT, request.header_list
    assert h.get("content-type") == JSON_UTF8, request.header_list
    assert h.get("range") == "bytes=0-1048575", request.header_list
    assert h.get("accept-encoding") == "gzip,deflate", request.header_list
    assert h.get("connection") == "close", request.header_list
    assert h.get("content-length") == str(len(request.body.encode("utf-8"))), request.header_list
    assert h.get("host", "").startswith("127.0.0.1:"), request.header_list


def fields(response):
    return {k: v for k, v in response.items() if k != "ResponseMetadata"}


def attempts(control, source):
    return [r for r in records(control, source=source) if r["event"] == "attempt"]


# --- connections ----------------------------------------------------------------------------------


def test_connections_of_each_auth_type_without_their_secrets(events, tokens):
    invocation = {
        "HeaderParameters": [
            {"Key": "x-team", "Value": "payments", "IsValueSecret": False},
            {"Key": "x-signing-key", "Value": "header-secret", "IsValueSecret": True},
        ],
        "QueryStringParameters": [{"Key": "tenant", "Value": "t1", "IsValueSecret": False}],
        "BodyParameters": [{"Key": "token", "Value": "body-secret", "IsValueSecret": True}],
    }
    created = events.create_connection(
        Name="basic-conn",
        Description="basic auth",
        AuthorizationType="BASIC",
        AuthParameters=basic("svc", "password-secret", InvocationHttpParameters=invocation),
    )
    # As AWS answers it (recorded): no LastAuthorizedTime yet.
    assert fields(created).keys() == {"ConnectionArn", "ConnectionState", "CreationTime", "LastModifiedTime"}
    assert created["ConnectionState"] == "AUTHORIZED"
    basic_arn = created["ConnectionArn"]
    key_arn = connection(events, "key-conn", "API_KEY", api_key("x-api-key", "key-secret"))
    oauth_created = events.create_connection(
        Name="oauth-conn",
        AuthorizationType="OAUTH_CLIENT_CREDENTIALS",
        AuthParameters=oauth(tokens.url + "/oauth2/token"),
    )
    # AWS answers AUTHORIZING (recorded); switchyard has made the token request by then.
    assert oauth_created["ConnectionState"] == "AUTHORIZING"
    assert len(tokens.take()) == 1

    d = events.describe_connection(Name="basic-conn")
    assert d["AuthParameters"] == {
        "BasicAuthParameters": {"Username": "svc"},
        "InvocationHttpParameters": {
            "HeaderParameters": [
                {"Key": "x-team", "Value": "payments", "IsValueSecret": False},
                {"Key": "x-signing-key", "IsValueSecret": True},
            ],
            "QueryStringParameters": [{"Key": "tenant", "Value": "t1", "IsValueSecret": False}],
            "BodyParameters": [{"Key": "token", "IsValueSecret": True}],
        },
    }
    assert (d["Name"], d["ConnectionArn"], d["AuthorizationType"], d["ConnectionState"]) == (
        "basic-conn",
        basic_arn,
        "BASIC",
        "AUTHORIZED",
    )
    assert d["Description"] == "basic auth"
    assert SECRET_ARN.match(d["SecretArn"]).group("name") == "basic-conn", d["SecretArn"]
    assert {"CreationTime", "LastAuthorizedTime", "LastModifiedTime"} <= set(d)

    d_key = events.describe_connection(Name="key-conn")
    assert d_key["AuthParameters"] == {"ApiKeyAuthParameters": {"ApiKeyName": "x-api-key"}}
    assert (d_key["AuthorizationType"], d_key["ConnectionState"]) == ("API_KEY", "AUTHORIZED")
    d_oauth = events.describe_connection(Name="oauth-conn")
    assert d_oauth["AuthParameters"] == {
        "OAuthParameters": {
            "AuthorizationEndpoint": tokens.url + "/oauth2/token",
            "HttpMethod": "POST",
            "ClientParameters": {"ClientID": "client-1"},
        }
    }
    assert (d_oauth["AuthorizationType"], d_oauth["ConnectionState"]) == ("OAUTH_CLIENT_CREDENTIALS", "AUTHORIZED")
    shown = json.dumps([d, d_key, d_oauth], default=str)
    for secret in ["password-secret", "header-secret", "body-secret", "key-secret", "client-secret-1", "at-42"]:
        assert secret not in shown, secret

    listed = events.list_connections()["Connections"]
    assert [c["Name"] for c in listed] == ["basic-conn", "key-conn", "oauth-conn"]
    assert all(set(c) == CONNECTION_SUMMARY_KEYS for c in listed), listed
    assert [c["AuthorizationType"] for c in listed] == ["BASIC", "API_KEY", "OAUTH_CLIENT_CREDENTIALS"]
    names = lambda out: [c["Name"] for c in out["Connections"]]  # noqa: E731
    assert names(events.list_connections(NamePrefix="key")) == ["key-conn"]
    assert names(events.list_connections(ConnectionState="AUTHORIZED")) == ["basic-conn", "key-conn", "oauth-conn"]
    assert names(events.list_connections(ConnectionState="DEAUTHORIZED")) == []
    first = events.list_connections(Limit=2)
    assert names(first) == ["basic-conn", "key-conn"]
    assert names(events.list_connections(Limit=2, NextToken=first["NextToken"])) == ["oauth-conn"]

    # UpdateConnection: the answer as AWS recorded it, the new user shown, still no password.
    updated = events.update_connection(
        Name="basic-conn", AuthorizationType="BASIC", AuthParameters=basic("new-user", "new-password")
    )
    assert fields(updated).keys() == {
        "ConnectionArn",
        "ConnectionState",
        "CreationTime",
        "LastAuthorizedTime",
        "LastModifiedTime",
    }
    assert (updated["ConnectionArn"], updated["ConnectionState"]) == (basic_arn, "AUTHORIZED")
    d = events.describe_connection(Name="basic-conn")
    assert d["AuthParameters"]["BasicAuthParameters"] == {"Username": "new-user"}
    assert d["AuthParameters"]["InvocationHttpParameters"]["QueryStringParameters"][0]["Key"] == "tenant"
    events.update_connection(Name="basic-conn", Description="renamed user")
    assert events.describe_connection(Name="basic-conn")["Description"] == "renamed user"

    # DeleteConnection answers DELETING (recorded), then the connection is gone.
    deleted = events.delete_connection(Name="key-conn")
    assert fields(deleted).keys() == {
        "ConnectionArn",
        "ConnectionState",
        "CreationTime",
        "LastAuthorizedTime",
        "LastModifiedTime",
    }
    assert (deleted["ConnectionArn"], deleted["ConnectionState"]) == (key_arn, "DELETING")
    with raises_code("ResourceNotFoundException", 400) as error:
        events.describe_connection(Name="key-conn")
    assert error_of(error)[1] == "Failed to describe the connection(s). Connection 'key-conn' does not exist."
    assert names(events.list_connections()) == ["basic-conn", "oauth-conn"]


def test_api_destinations_create_describe_list_update_delete(events):
    conn = connection(events, "c", "API_KEY", api_key("x-api-key", "k"))
    other = connection(events, "other", "BASIC", basic("u", "p"))
    created = events.create_api_destination(
        Name="orders-api",
        ConnectionArn=conn,
        InvocationEndpoint="https://example.com/api",
        HttpMethod="POST",
        Description="Test API destination",
    )
    assert fields(created).keys() == {"ApiDestinationArn", "ApiDestinationState", "CreationTime", "LastModifiedTime"}
    assert created["ApiDestinationState"] == "ACTIVE"
    arn = created["ApiDestinationArn"]
    assert DESTINATION_ARN.match(arn).group("name") == "orders-api"
    d = fields(events.describe_api_destination(Name="orders-api"))
    assert set(d) == DESTINATION_KEYS | {"Description"}
    assert d == {
        "ApiDestinationArn": arn,
        "ApiDestinationState": "ACTIVE",
        "ConnectionArn": conn,
        "CreationTime": created["CreationTime"],
        "Description": "Test API destination",
        "HttpMethod": "POST",
        "InvocationEndpoint": "https://example.com/api",
        "InvocationRateLimitPerSecond": 300,  # AWS's default (recorded)
        "LastModifiedTime": created["LastModifiedTime"],
        "Name": "orders-api",
    }
    destination(events, "audit-api", other, "https://example.com/audit/*", "PUT", InvocationRateLimitPerSecond=5)

    listed = events.list_api_destinations()["ApiDestinations"]
    assert [x["Name"] for x in listed] == ["audit-api", "orders-api"]
    assert all(set(x) == DESTINATION_KEYS for x in listed), listed
    assert (listed[0]["HttpMethod"], listed[0]["InvocationRateLimitPerSecond"]) == ("PUT", 5)
    names = lambda out: [x["Name"] for x in out["ApiDestinations"]]  # noqa: E731
    assert names(events.list_api_destinations(NamePrefix="orders")) == ["orders-api"]
    assert names(events.list_api_destinations(ConnectionArn=other)) == ["audit-api"]
    first = events.list_api_destinations(Limit=1)
    assert names(first) == ["audit-api"]
    assert names(events.list_api_destinations(Limit=1, NextToken=first["NextToken"])) == ["orders-api"]

    updated = events.update_api_destination(
        Name="orders-api",
        ConnectionArn=other,
        HttpMethod="PUT",
        InvocationEndpoint="https://example.com/api/v2",
        Description="Updated API destination",
        InvocationRateLimitPerSecond=10,
    )
    assert fields(updated).keys() == {"ApiDestinationArn", "ApiDestinationState", "CreationTime", "LastModifiedTime"}
    assert (updated["ApiDestinationArn"], updated["ApiDestinationState"]) == (arn, "ACTIVE")
    d = events.describe_api_destination(Name="orders-api")
    assert (d["ConnectionArn"], d["HttpMethod"], d["InvocationEndpoint"], d["Description"]) == (
        other,
        "PUT",
        "https://example.com/api/v2",
        "Updated API destination",
    )
    assert d["InvocationRateLimitPerSecond"] == 10

    # A destination whose connection cannot authorize is INACTIVE.
    events.deauthorize_connection(Name="other")
    assert events.describe_api_destination(Name="orders-api")["ApiDestinationState"] == "INACTIVE"
    assert {x["Name"]: x["ApiDestinationState"] for x in events.list_api_destinations()["ApiDestinations"]} == {
        "audit-api": "INACTIVE",
        "orders-api": "INACTIVE",
    }

    assert fields(events.delete_api_destination(Name="orders-api")) == {}
    with raises_code("ResourceNotFoundException", 400) as error:
        events.describe_api_destination(Name="orders-api")
    assert error_of(error)[1] == (
        "Failed to describe the api-destination(s). An api-destination 'orders-api' does not exist."
    )
    assert names(events.list_api_destinations()) == ["audit-api"]


# --- invocations ----------------------------------------------------------------------------------


def test_the_exact_request_of_a_basic_auth_destination_with_http_parameters(events, sqs, control, receiver):
    invocation = {
        "HeaderParameters": [
            {"Key": "x-team", "Value": "payments", "IsValueSecret": False},
            {"Key": "x-signing-key", "Value": "hidden", "IsValueSecret": True},
            {"Key": "x-shared", "Value": "from-connection", "IsValueSecret": False},
        ],
        "QueryStringParameters": [
            {"Key": "tenant", "Value": "t1", "IsValueSecret": False},
            {"Key": "shared", "Value": "connection", "IsValueSecret": False},
        ],
    }
    conn = connection(events, "payments", "BASIC", basic("svc", "s3cret", InvocationHttpParameters=invocation))
    api = destination(events, "orders-api", conn, receiver.url + "/orders/*/items/*", "PUT")
    copy_url, copy_arn = queue(sqs, "copy-q")
    http = {
        "PathParameterValues": ["o-17", "item 3"],
        "HeaderParameters": {"x-shared": "from-target", "x-request-source": "rule"},
        "QueryStringParameters": {"shared": "target", "view": "full"},
    }
    rule = rule_with(events, api_target(api, HttpParameters=http), {"Id": "copy", "Arn": copy_arn})
    assert events.list_targets_by_rule(Rule="to-api")["Targets"][0] == api_target(api, HttpParameters=http)

    event_id = put(events, detail={"order": 17, "note": "ünï"}, Resources=["arn:aws:shop:::order/o-17"])
    control.advance(0)

    got = receiver.take()
    assert len(got) == 1, got
    r = got[0]
    assert r.method == "PUT"
    # Each `*` takes the next path parameter; the connection's query parameters come first, and
    # where both set one (or a header) the connection's wins (API_CreateConnectionAuthRequestParameters).
    assert r.path == "/orders/o-17/items/item%203", r.target
    assert r.query == [("tenant", "t1"), ("shared", "connection"), ("view", "full")], r.target
    check_eventbridge_headers(r)
    assert r.values("authorization") == [basic_header("svc", "s3cret")]
    assert r.values("x-team") == ["payments"]
    assert r.values("x-signing-key") == ["hidden"]  # secret in describe, sent all the same
    assert r.values("x-shared") == ["from-connection"]
    assert r.values("x-request-source") == ["rule"]
    assert r.values("user-agent") == [USER_AGENT]

    # The body is the event, exactly as an SQS target of the same rule receives it.
    copies = receive_and_delete(sqs, copy_url)
    assert len(copies) == 1
    assert r.body == copies[0]["Body"]
    keys, event = ordered(r.body)
    assert keys == ENVELOPE_KEYS, keys
    assert event["id"] == event_id and UUID.match(event_id)
    assert (event["source"], event["detail-type"]) == ("shop", "OrderPlaced")
    assert event["detail"] == {"order": 17, "note": "ünï"}
    assert event["resources"] == ["arn:aws:shop:::order/o-17"]

    log = attempts(control, rule + "#api")
    assert [(x["protocol"], x["outcome"], x["status"], x["attempt"], x["messageId"]) for x in log] == [
        ("api-destination", "delivered", 200, 1, event_id)
    ]
    assert log[0]["target"].startswith(receiver.url + "/orders/o-17/items/item%203"), log[0]["target"]


def test_an_api_key_destination_sends_the_key_header(events, control, receiver):
    conn = connection(events, "keyed", "API_KEY", api_key("x-api-key", "k-123"))
    api = destination(events, "lookup", conn, receiver.url + "/hook", "PATCH")
    rule_with(events, api_target(api))
    event_id = put(events, detail={"a": 1})
    control.advance(0)
    got = receiver.take()
    assert len(got) == 1, got
    r = got[0]
    assert (r.method, r.target) == ("PATCH", "/hook")
    assert r.values("x-api-key") == ["k-123"]
    assert r.values("authorization") == []
    check_eventbridge_headers(r)
    assert r.json()["id"] == event_id and r.json()["detail"] == {"a": 1}


def test_an_oauth_connection_gets_a_token_then_sends_it_as_bearer(events, control, receiver, tokens):
    extra = {
        "OAuthHttpParameters": {
            "HeaderParameters": [{"Key": "x-tenant", "Value": "t1", "IsValueSecret": False}],
            "QueryStringParameters": [{"Key": "audience", "Value": "orders-api", "IsValueSecret": False}],
            "BodyParameters": [{"Key": "scope", "Value": "orders:write", "IsValueSecret": True}],
        }
    }
    conn = connection(events, "partner", "OAUTH_CLIENT_CREDENTIALS", oauth(tokens.url + "/oauth2/token", **extra))

    # The client-credentials request (RFC 6749 4.4.2; AWS does not document its exact form).
    got = tokens.take()
    assert len(got) == 1, got
    t = got[0]
    assert (t.method, t.path, t.query) == ("POST", "/oauth2/token", [("audience", "orders-api")])
    assert t.values("authorization") == [basic_header("client-1", "client-secret-1")]
    assert t.headers.get("content-type") == "application/x-www-form-urlencoded"
    assert t.values("x-tenant") == ["t1"]
    assert parse_qsl(t.body) == [("grant_type", "client_credentials"), ("scope", "orders:write")]
    d = events.describe_connection(Name="partner")
    assert d["ConnectionState"] == "AUTHORIZED"
    assert d["AuthParameters"]["OAuthParameters"]["OAuthHttpParameters"]["BodyParameters"] == [
        {"Key": "scope", "IsValueSecret": True}
    ]

    api = destination(events, "partner-api", conn, receiver.url + "/events")
    assert events.describe_api_destination(Name="partner-api")["ApiDestinationState"] == "ACTIVE"
    rule_with(events, api_target(api))
    put(events, detail={"n": 1})
    put(events, detail={"n": 2})
    # switchyard spaces a destination's invocations 1/InvocationRateLimitPerSecond apart (3 ms at
    # the default 300): the second one needs the virtual clock to move on a little.
    control.advance(1)
    got = receiver.take()
    assert len(got) == 2, got
    assert all(r.values("authorization") == ["Bearer at-42"] for r in got)
    for r in got:
        check_eventbridge_headers(r)
    assert tokens.take() == []  # one token serves every invocation

    # A token endpoint that refuses leaves the connection AUTHORIZING (as AWS reported one whose
    # endpoint did not authorize it), with the reason; its destination is INACTIVE.
    tokens.answer(401, json.dumps({"error": "invalid_client"}))
    refused = events.create_connection(
        Name="refused",
        AuthorizationType="OAUTH_CLIENT_CREDENTIALS",
        AuthParameters=oauth(tokens.url + "/oauth2/token", secret="wrong"),
    )
    assert refused["ConnectionState"] == "AUTHORIZING"
    d = events.describe_connection(Name="refused")
    assert d["ConnectionState"] == "AUTHORIZING", d
    assert d["StateReason"] == "The authorization endpoint answered HTTP status 401.", d
    destination(events, "refused-api", refused["ConnectionArn"], receiver.url + "/events")
    assert events.describe_api_destination(Name="refused-api")["ApiDestinationState"] == "INACTIVE"


def test_the_rate_limit_paces_invocations_on_the_virtual_clock(events, control, receiver):
    conn = connection(events, "c", "API_KEY", api_key("x-api-key", "k"))
    api = destination(events, "slow", conn, receiver.url + "/slow", InvocationRateLimitPerSecond=1)
    rule = rule_with(events, api_target(api))
    entries = [{"Source": "shop", "DetailType": "OrderPlaced", "Detail": json.dumps({"n": n})} for n in range(3)]
    out = events.put_events(Entries=entries)
    assert out["FailedEntryCount"] == 0, out

    # One invocation per virtual second.
    seen = []
    control.advance(0)
    for second in range(3):
        got = receiver.take()
        assert len(got) == 1, (second, got)
        seen.append(got[0].json()["detail"]["n"])
        control.advance(1)
    assert receiver.take() == []
    assert sorted(seen) == [0, 1, 2]

    log = records(control, source=rule + "#api")
    held = [r for r in log if r["event"] == "throttled"]
    tries = [r for r in log if r["event"] == "attempt"]
    assert len(tries) == 3 and len(held) == 2, log
    # Held back is not a retry: every attempt is the first of its event.
    assert all(r["attempt"] == 1 and r["outcome"] == "delivered" for r in tries), tries
    at = [millis(r["at"]) for r in tries]
    assert [t - at[0] for t in at] == [0, 1000, 2000], at
    # Each held-back invocation went when its throttled record said it would.
    assert sorted(millis(r["nextAttemptAt"]) for r in held) == at[1:]


def test_a_failing_endpoint_is_retried_then_dead_lettered(events, sqs, control, receiver):
    receiver.answer(500)
    conn = connection(events, "c", "BASIC", basic("u", "p"))
    api = destination(events, "flaky", conn, receiver.url + "/flaky")
    dlq_url, dlq_arn = queue(sqs, "api-dlq")
    policy = {"MaximumRetryAttempts": 2, "MaximumEventAgeInSeconds": 3600}
    rule = rule_with(events, api_target(api, RetryPolicy=policy, DeadLetterConfig={"Arn": dlq_arn}))
    event_id = put(events, detail={"order": 9})
    control.advance(3600)

    got = receiver.take()
    assert len(got) == 3, got  # the first attempt and two retries, each the same event
    assert all(r.json()["id"] == event_id for r in got)
    log = records(control, source=rule + "#api")
    tries = [r for r in log if r["event"] == "attempt"]
    assert [(r["attempt"], r["phase"], r["outcome"], r["status"]) for r in tries] == [
        (1, "initial", "retryable", 500),
        (2, "retry", "retryable", 500),
        (3, "retry", "retryable", 500),
    ]
    assert [(r["event"], r["target"]) for r in log if r["event"] != "attempt"] == [("dead-lettered", dlq_arn)]

    dead = receive_and_delete(sqs, dlq_url, MessageAttributeNames=["All"])
    assert len(dead) == 1, dead
    keys, event = ordered(dead[0]["Body"])
    assert keys == ENVELOPE_KEYS and event["id"] == event_id
    attributes = dlq_attributes(dead[0])
    assert set(attributes) == DLQ_ATTRIBUTES, attributes
    assert attributes["RULE_ARN"] == rule
    assert attributes["TARGET_ARN"] == api
    assert attributes["ERROR_CODE"] in DLQ_ERROR_CODES, attributes
    assert attributes["ERROR_MESSAGE"], attributes
    assert attributes["EXHAUSTED_RETRY_CONDITION"] == "MaximumRetryAttempts"
    assert attributes["RETRY_ATTEMPTS"] == "2"

    # 429 is retried too; other 4xx are not (eb-api-destinations / spec A6).
    receiver.answer(429)
    put(events, detail={"order": 10})
    control.advance(3600)
    assert len(receiver.take()) == 3
    receiver.answer(400)
    refused = put(events, detail={"order": 11})
    control.advance(3600)
    assert len(receiver.take()) == 1
    dead = receive_and_delete(sqs, dlq_url, MessageAttributeNames=["All"])
    by_id = {json.loads(m["Body"])["id"]: dlq_attributes(m) for m in dead}
    assert len(by_id) == 2 and by_id[refused]["RETRY_ATTEMPTS"] == "0", by_id


def test_retry_after_is_honoured(events, sqs, control, receiver):
    """eb-api-destinations, "API destination error codes": "EventBridge API destinations read the
    standard HTTP response header Retry-After to find out how long to wait before making a
    follow-up request. EventBridge chooses the more conservative value between the defined retry
    policy and the Retry-After header. If Retry-After value is negative, EventBridge stops retrying
    delivery for that event." """
    conn = connection(events, "c", "API_KEY", api_key("x-api-key", "k"))
    api = destination(events, "busy", conn, receiver.url + "/busy")
    dlq_url, dlq_arn = queue(sqs, "busy-dlq")
    policy = {"MaximumRetryAttempts": 1, "MaximumEventAgeInSeconds": 3600}
    rule = rule_with(events, api_target(api, RetryPolicy=policy, DeadLetterConfig={"Arn": dlq_arn}))

    # Retry-After: 120 is longer than the policy's first backoff: the retry waits 120 s.
    receiver.answer(503, headers={"Retry-After": "120"})
    put(events, detail={"n": 1})
    control.advance(0)
    assert len(receiver.take()) == 1
    first = attempts(control, rule + "#api")
    assert len(first) == 1 and first[0]["nextAttemptAt"], first
    assert millis(first[0]["nextAttemptAt"]) - millis(first[0]["at"]) >= 120_000, first
    control.advance(119)
    assert receiver.take() == [], "retried before Retry-After"
    control.advance(600)
    assert len(receiver.take()) == 1
    tries = attempts(control, rule + "#api")
    assert len(tries) == 2 and tries[1]["delaySeconds"] >= 120, tries
    assert len(receive_and_delete(sqs, dlq_url)) == 1  # one retry allowed, both failed

    # A negative Retry-After ends the retries at once.
    control.delete("/deliveries")
    receiver.answer(503, headers={"Retry-After": "-1"})
    event_id = put(events, detail={"n": 2})
    control.advance(3600)
    assert len(receiver.take()) == 1
    dead = receive_and_delete(sqs, dlq_url, MessageAttributeNames=["All"])
    assert [json.loads(m["Body"])["id"] for m in dead] == [event_id]
    assert dlq_attributes(dead[0])["RETRY_ATTEMPTS"] == "0"


def test_a_deauthorized_connection_sends_nothing_until_given_credentials(events, sqs, control, receiver):
    conn = connection(events, "c", "BASIC", basic("u", "old"))
    api = destination(events, "api", conn, receiver.url + "/hook")
    dlq_url, dlq_arn = queue(sqs, "deauth-dlq")
    rule = rule_with(events, api_target(api, DeadLetterConfig={"Arn": dlq_arn}))

    out = events.deauthorize_connection(Name="c")
    assert fields(out).keys() == {
        "ConnectionArn",
        "ConnectionState",
        "CreationTime",
        "LastAuthorizedTime",
        "LastModifiedTime",
    }
    assert (out["ConnectionArn"], out["ConnectionState"]) == (conn, "DEAUTHORIZING")
    d = events.describe_connection(Name="c")
    assert d["ConnectionState"] == "DEAUTHORIZED"
    assert d["AuthParameters"] == {"BasicAuthParameters": {"Username": "u"}}
    assert events.describe_api_destination(Name="api")["ApiDestinationState"] == "INACTIVE"
    assert [c["Name"] for c in events.list_connections(ConnectionState="DEAUTHORIZED")["Connections"]] == ["c"]

    # An event now is not sent: it goes to the DLQ at once, not retried.
    event_id = put(events, detail={"n": 1})
    control.advance(600)
    assert receiver.take() == []
    dead = receive_and_delete(sqs, dlq_url, MessageAttributeNames=["All"])
    assert [json.loads(m["Body"])["id"] for m in dead] == [event_id]
    attributes = dlq_attributes(dead[0])
    assert attributes["ERROR_CODE"] == "NO_PERMISSIONS", attributes
    assert (attributes["TARGET_ARN"], attributes["RETRY_ATTEMPTS"]) == (api, "0")
    assert [(r["attempt"], r["outcome"]) for r in attempts(control, rule + "#api")] == [(1, "permanent")]

    # The password is gone: an update must give it back.
    with raises_code("ValidationException", 400) as error:
        events.update_connection(Name="c", AuthParameters={"BasicAuthParameters": {"Username": "u"}})
    assert error_of(error)[1] == "Parameter BasicAuthParameters is not valid. Reason: Missing required field(s)."
    updated = events.update_connection(Name="c", AuthParameters=basic("u", "new"))
    assert updated["ConnectionState"] == "AUTHORIZED"
    assert events.describe_api_destination(Name="api")["ApiDestinationState"] == "ACTIVE"
    put(events, detail={"n": 2})
    control.advance(0)
    got = receiver.take()
    assert len(got) == 1 and got[0].values("authorization") == [basic_header("u", "new")], got


# --- bad input ------------------------------------------------------------------------------------


def test_bad_connection_input(events):
    # AWS-recorded wording (LocalStack's test_api_destinations_and_connection.snapshot.json).
    with raises_code("ValidationException", 400) as error:
        events.create_connection(Name="c", AuthorizationType="INVALID_AUTH_TYPE", AuthParameters={})
    assert error_of(error)[1] == (
        "1 validation error detected: Value 'INVALID_AUTH_TYPE' at 'authorizationType' failed to satisfy "
        "constraint: Member must satisfy enum value set: [BASIC, OAUTH_CLIENT_CREDENTIALS, API_KEY]"
    )
    with raises_code("ValidationException", 400) as error:
        events.create_connection(
            Name="Invalid Name With Spaces!",
            AuthorizationType="API_KEY",
            AuthParameters=api_key("ApiKey", "secret", InvocationHttpParameters={}),
        )
    assert error_of(error)[1] == (
        "1 validation error detected: Value 'Invalid Name With Spaces!' at 'name' failed to satisfy constraint: "
        "Member must satisfy regular expression pattern: [\\.\\-_A-Za-z0-9]+"
    )

    # The parameters must fit the authorization type.
    with raises_code("ValidationException", 400) as error:
        events.create_connection(Name="c", AuthorizationType="BASIC", AuthParameters=api_key("k", "v"))
    assert error_of(error)[1] == "Parameter BasicAuthParameters is not valid. Reason: Missing required field(s)."
    with raises_code("ValidationException", 400) as error:
        events.create_connection(
            Name="c", AuthorizationType="BASIC", AuthParameters={**basic("u", "p"), **api_key("k", "v")}
        )
    assert error_of(error)[1] == (
        "Parameter ApiKeyAuthParameters is not valid. Reason: Only BasicAuthParameters may be given for "
        "authorization type BASIC."
    )
    with raises_code("ValidationException", 400) as error:
        events.create_connection(
            Name="c", AuthorizationType="OAUTH_CLIENT_CREDENTIALS", AuthParameters=oauth("auth.example.com")
        )
    assert error_of(error)[1] == (
        "Parameter AuthorizationEndpoint is not valid. Reason: Endpoint 'auth.example.com' is invalid, "
        "please provide a valid HTTPS endpoint URL."
    )
    # A password the model's pattern refuses; the message leaves the secret out.
    with raises_code("ValidationException", 400) as error:
        events.create_connection(Name="c", AuthorizationType="BASIC", AuthParameters=basic("u", "a:b"))
    message = error_of(error)[1]
    assert message.startswith(
        "1 validation error detected: Value at 'authParameters.basicAuthParameters.password' failed to satisfy "
        "constraint: Member must satisfy regular expression pattern: "
    ), message
    assert "a:b" not in message
    assert events.list_connections()["Connections"] == []

    connection(events, "c", "BASIC", basic("u", "p"))
    with raises_code("ResourceAlreadyExistsException", 400) as error:
        events.create_connection(Name="c", AuthorizationType="BASIC", AuthParameters=basic("u", "p"))
    assert error_of(error)[1] == "Connection 'c' already exists."
    for verb, call in [
        ("describe", lambda: events.describe_connection(Name="nope")),
        ("update", lambda: events.update_connection(Name="nope", Description="x")),
        ("delete", lambda: events.delete_connection(Name="nope")),
        ("deauthorize", lambda: events.deauthorize_connection(Name="nope")),
    ]:
        with raises_code("ResourceNotFoundException", 400) as error:
            call()
        assert error_of(error)[1] == f"Failed to {verb} the connection(s). Connection 'nope' does not exist."


def test_bad_api_destination_input(events, events_unchecked):
    conn = connection(events, "c", "BASIC", basic("u", "p"))
    # AWS-recorded wording (LocalStack's test_api_destinations_and_connection.snapshot.json).
    with raises_code("ValidationException", 400) as error:
        events.create_api_destination(
            Name="d",
            ConnectionArn="invalid-connection-arn",
            HttpMethod="INVALID_METHOD",
            InvocationEndpoint="invalid-endpoint",
        )
    assert error_of(error)[1] == (
        "2 validation errors detected: Value 'invalid-connection-arn' at 'connectionArn' failed to satisfy "
        "constraint: Member must satisfy regular expression pattern: "
        "^arn:aws([a-z]|\\-)*:events:([a-z]|\\d|\\-)*:([0-9]{12})?:"
        "connection\\/[\\.\\-_A-Za-z0-9]+\\/[\\-A-Za-z0-9]+$; "
        "Value 'INVALID_METHOD' at 'httpMethod' failed to satisfy constraint: Member must satisfy enum value set: "
        "[HEAD, POST, PATCH, DELETE, PUT, GET, OPTIONS]"
    )
    with raises_code("ValidationException", 400) as error:
        events.create_api_destination(
            Name="Invalid Name With Spaces!",
            ConnectionArn=conn,
            HttpMethod="POST",
            InvocationEndpoint="https://example.com/api",
        )
    assert error_of(error)[1] == (
        "1 validation error detected: Value 'Invalid Name With Spaces!' at 'name' failed to satisfy constraint: "
        "Member must satisfy regular expression pattern: [\\.\\-_A-Za-z0-9]+"
    )

    with raises_code("ValidationException", 400) as error:
        destination(events, "d", conn, "ftp://example.com/api")
    assert error_of(error)[1] == (
        "Failed to create the api-destination(s). Parameter InvocationEndpoint is not valid. Reason: Endpoint "
        "'ftp://example.com/api' is invalid, please provide a valid HTTPS endpoint URL."
    )
    with raises_code("ValidationException", 400) as error:
        events_unchecked.create_api_destination(
            Name="d",
            ConnectionArn=conn,
            HttpMethod="POST",
            InvocationEndpoint="https://example.com/api",
            InvocationRateLimitPerSecond=0,
        )
    assert error_of(error)[1] == (
        "1 validation error detected: Value '0' at 'invocationRateLimitPerSecond' failed to satisfy constraint: "
        "Member must have value greater than or equal to 1"
    )
    ghost = conn.replace("/c/", "/ghost/")
    with raises_code("ResourceNotFoundException", 400) as error:
        destination(events, "d", ghost, "https://example.com/api")
    assert error_of(error)[1] == "Failed to create the api-destination(s). Connection 'ghost' does not exist."
    assert events.list_api_destinations()["ApiDestinations"] == []

    destination(events, "d", conn, "https://example.com/api")
    with raises_code("ResourceAlreadyExistsException", 400) as error:
        destination(events, "d", conn, "https://example.com/api")
    assert error_of(error)[1] == "An api-destination 'd' already exists."
    with raises_code("ResourceNotFoundException", 400) as error:
        events.update_api_destination(Name="d", ConnectionArn=ghost)
    assert error_of(error)[1] == "Failed to update the api-destination(s). Connection 'ghost' does not exist."
    for verb, call in [
        ("describe", lambda: events.describe_api_destination(Name="nope")),
        ("update", lambda: events.update_api_destination(Name="nope", HttpMethod="PUT")),
        ("delete", lambda: events.delete_api_destination(Name="nope")),
    ]:
        with raises_code("ResourceNotFoundException", 400) as error:
            call()
        assert error_of(error)[1] == (
            f"Failed to {verb} the api-destination(s). An api-destination 'nope' does not exist."
        )
