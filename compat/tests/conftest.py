"""Fixtures for driving switchyard with boto3 and its control API (/_switchyard/, see docs/control-api.md).

The server is started by compat/run (manual clock, a delivery log of 200,000 records) and found
through SWITCHYARD_URL; the tests can also be run by hand against any switchyard started with
`--clock manual --delivery-log-size 200000`:

    SWITCHYARD_URL=http://127.0.0.1:4566 compat/.venv/bin/python -m pytest compat/tests

SQS is driven over both of its protocols: `sqs` speaks AWS JSON 1.0 (botocore's own model),
`sqs_query` AWS Query (the model in compat/models-query), and `sqs_any` runs a test once with each.
`sns` speaks AWS Query, SNS's only protocol.
"""

import os
from collections import deque

import boto3
import botocore.session
import pytest
import requests
from botocore.config import Config

REGION = "us-east-1"

# The last SQS model that used the AWS Query protocol (botocore 1.34.70), written by
# compat/fetch-query-model. A botocore session that searches this directory first speaks Query
# (form-encoded `Action=...` in, XML out) to SQS, as older SDKs and the older v1 CLI do.
QUERY_MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models-query")

# No retries: a compat test wants the server's first answer, not the one after a backoff.
# The read timeout stays above the longest long poll (20 s).
CLIENT_CONFIG = Config(retries={"mode": "standard", "max_attempts": 1}, read_timeout=40)


class Control:
    """A thin client for /_switchyard/: returns `requests` responses, plus a few shortcuts."""

    def __init__(self, url):
        self.base = url + "/_switchyard"
        self.http = requests.Session()
        self.http.trust_env = False  # no proxies or netrc from the machine

    def get(self, path, **params):
        return self.http.get(self.base + path, params=params, timeout=30)

    def post(self, path, body=None):
        return self.http.post(self.base + path, json={} if body is None else body, timeout=30)

    def delete(self, path):
        return self.http.delete(self.base + path, timeout=30)

    def reset(self):
        r = self.post("/reset")
        assert r.status_code == 200, f"POST /_switchyard/reset: {r.status_code} {r.text}"
        return r

    def clock(self):
        r = self.get("/clock")
        assert r.status_code == 200, f"GET /_switchyard/clock: {r.status_code} {r.text}"
        return r.json()

    def advance(self, seconds):
        r = self.post("/clock/advance", {"seconds": seconds})
        assert r.status_code == 200, f"POST /_switchyard/clock/advance: {r.status_code} {r.text}"
        return r.json()


@pytest.fixture(scope="session")
def url():
    return os.environ.get("SWITCHYARD_URL", "http://127.0.0.1:4566").rstrip("/")


@pytest.fixture(scope="session")
def control(url):
    return Control(url)


@pytest.fixture(autouse=True)
def reset(control):
    """Every test starts from an empty emulator (the clock keeps its time)."""
    control.reset()


@pytest.fixture(scope="session")
def make_client(url):
    """make_client(service, **overrides): a boto3 client for switchyard with dummy credentials."""

    def make(service, query=False, **overrides):
        """query=True: load the SQS model from compat/models-query (AWS Query protocol)."""
        kwargs = dict(
            endpoint_url=url,
            region_name=REGION,
            aws_access_key_id="test",
            aws_secret_access_key="test",
            config=CLIENT_CONFIG,
        )
        kwargs.update(overrides)
        core = botocore.session.get_session()
        if query:
            # botocore looks models up along these paths in order, its own data directory last.
            core.get_component("data_loader").search_paths.insert(0, QUERY_MODELS)
        client = boto3.session.Session(botocore_session=core).client(service, **kwargs)
        if query:
            protocol = client.meta.service_model.protocol
            assert protocol == "query", f"{QUERY_MODELS} not used: the {service} model says {protocol}"
        return client

    return make


@pytest.fixture(scope="session")
def sqs(make_client):
    """SQS over AWS JSON 1.0, as current boto3 speaks it."""
    return make_client("sqs")


@pytest.fixture(scope="session")
def sqs_query(make_client):
    """SQS over AWS Query (the botocore 1.34.70 model), as older SDKs speak it."""
    return make_client("sqs", query=True)


@pytest.fixture(params=["json", "query"])
def sqs_any(request):
    """The same scenario over both SQS protocols: AWS JSON 1.0 (`sqs`), then AWS Query (`sqs_query`)."""
    return request.getfixturevalue("sqs" if request.param == "json" else "sqs_query")


@pytest.fixture(scope="session")
def sns(make_client):
    """SNS over AWS Query (its only protocol)."""
    return make_client("sns")


@pytest.fixture(scope="session")
def sts(make_client):
    return make_client("sts")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Under compat/run: say how the AWS CLI scenario went, and on failure show the server log's
    tail, so both come just before pytest's own summary line."""
    results = os.environ.get("COMPAT_CLI_RESULTS")  # "sqs.sh=0 sqs-query.sh=1"
    if results is None and os.environ.get("COMPAT_CLI_STATUS") is not None:
        results = f"sqs.sh={os.environ['COMPAT_CLI_STATUS']}"
    for result in (results or "").split():
        scenario, _, status = result.partition("=")
        verdict = "passed" if status == "0" else f"FAILED (status {status})"
        terminalreporter.write_line(f"AWS CLI scenario compat/cli/{scenario}: {verdict}")
    log = os.environ.get("COMPAT_SERVER_LOG")
    if exitstatus != 0 and log and os.path.exists(log):
        with open(log, errors="replace") as f:
            tail = deque(f, maxlen=40)
        terminalreporter.section(f"last lines of {log}")
        terminalreporter.write("".join(tail))
