"""Fixtures for driving switchyard with boto3 and its control API (/_switchyard/, see CONTROL_API.md).

The server is started by compat/run (manual clock) and found through SWITCHYARD_URL; the tests can
also be run by hand against any switchyard started with `--clock manual`:

    SWITCHYARD_URL=http://127.0.0.1:4566 compat/.venv/bin/python -m pytest compat/tests
"""

import os
from collections import deque

import boto3
import pytest
import requests
from botocore.config import Config

REGION = "us-east-1"

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

    def make(service, **overrides):
        kwargs = dict(
            endpoint_url=url,
            region_name=REGION,
            aws_access_key_id="test",
            aws_secret_access_key="test",
            config=CLIENT_CONFIG,
        )
        kwargs.update(overrides)
        return boto3.session.Session().client(service, **kwargs)

    return make


@pytest.fixture(scope="session")
def sqs(make_client):
    return make_client("sqs")


@pytest.fixture(scope="session")
def sts(make_client):
    return make_client("sts")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Under compat/run: say how the AWS CLI scenario went, and on failure show the server log's
    tail, so both come just before pytest's own summary line."""
    cli_status = os.environ.get("COMPAT_CLI_STATUS")
    if cli_status is not None:
        verdict = "passed" if cli_status == "0" else f"FAILED (status {cli_status})"
        terminalreporter.write_line(f"AWS CLI scenario compat/cli/sqs.sh: {verdict}")
    log = os.environ.get("COMPAT_SERVER_LOG")
    if exitstatus != 0 and log and os.path.exists(log):
        with open(log, errors="replace") as f:
            tail = deque(f, maxlen=40)
        terminalreporter.section(f"last lines of {log}")
        terminalreporter.write("".join(tail))
