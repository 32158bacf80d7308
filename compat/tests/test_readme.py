"""The README's shell examples, run as a reader would run them, so they stay true.

Every ```sh block of README.md is a test: it runs verbatim in bash (`set -euo pipefail`, so a failed
command or a variable from another block fails it), after the `export` and `alias` lines of
"Pointing clients at it" (the convention the README states), with the AWS CLI of compat's venv and
the switchyard under test first on PATH. A block starts its own servers (`switchyard ... &`,
`switchyard endpoint &`) on the ports it names, 4566 and 9000; so that they are free whatever else
runs on the machine (compat/run's own server, a developer's switchyard or LocalStack), each block
runs in network and PID namespaces of its own (`unshare`), where it has a loopback interface to
itself and where everything it started dies with it. Without namespaces (no `unshare`, or not
allowed) the blocks run on the machine's loopback and need 4566 and 9000 free.

Two things are added around a block, neither visible to it:
- after a line that starts a process in the background, the next line waits until that process
  has printed its ready line ("... listening on http://..."), as a reader waits for it before
  typing on (a DEBUG trap) — except in a block that waits itself (an `until curl ...` line, as
  "Start-up resources" has), which runs with no wait but its own, as a reader copying it would;
- on exit, the block's background jobs are stopped by their process ids.

Each block runs in a scratch directory of its own (files it writes, such as attributes.json, land
there) in which `compat` is a link to the repository's compat/, with HOME in the scratch
directory (the custom-bus blocks' `switchyard model install` writes there). What the comments promise is checked per
heading in EXPECTED; blocks that cannot run here are skipped only for a reason listed in SKIPPED.

The switchyard binary comes from COMPAT_SWITCHYARD_BIN (compat/run sets it to the binary it built).
"""

import datetime
import json
import os
import re
import shutil
import socket
import subprocess

import pytest

COMPAT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(COMPAT_DIR)
README = os.path.join(REPO_ROOT, "README.md")
SETUP_HEADING = "Pointing clients at it"
BLOCK_TIMEOUT = 300  # seconds; a block takes a few (the AWS CLI starts in about half a second)

SKIPPED = {
    "Quick start": "builds switchyard and runs ./test, the run this test is part of",
    SETUP_HEADING: "the setup itself: its export and alias lines run before every other block",
    "Docker": "needs Docker and an image build, which CI does not have",
}


def sh_blocks():
    """(heading, number under that heading, text) of every ```sh block, in README order."""
    blocks, heading, inside, lines, counts = [], None, False, [], {}
    with open(README, encoding="utf-8") as f:
        for line in f:
            if inside:
                if line.startswith("```"):
                    counts[heading] = counts.get(heading, 0) + 1
                    blocks.append((heading, counts[heading], "".join(lines)))
                    inside = False
                else:
                    lines.append(line)
            elif line.startswith("```sh"):
                inside, lines = True, []
            elif m := re.match(r"#{2,3} (.+)", line):
                heading = m.group(1).strip()
    return blocks


def setup_lines():
    """The `export` and `alias` lines of "Pointing clients at it"."""
    (text,) = [t for h, _, t in sh_blocks() if h == SETUP_HEADING]
    lines = [l for l in text.splitlines() if l.startswith(("export ", "alias "))]
    assert any(l.startswith("alias aws=") for l in lines), text
    return lines


PREAMBLE = r"""set -euo pipefail
shopt -s expand_aliases
{setup}
__readme_last_job=""
__readme_jobs_started=0
__readme_ready() {{
    # After `... &`, wait (at most 30 s) for the new job's ready line, unless it has died.
    if [[ -n "${{!:-}}" && "${{!}}" != "$__readme_last_job" ]]; then
        __readme_last_job=$!
        __readme_jobs_started=$((__readme_jobs_started + 1))
        local deadline=$((SECONDS + 30))
        while (( $(grep -c ' listening on http://' "$README_BLOCK_OUT" || true) < __readme_jobs_started )) \
            && kill -0 "$__readme_last_job" 2>/dev/null && (( SECONDS < deadline )); do
            sleep 0.05
        done
    fi
    return 0
}}
__readme_stop() {{
    local pid
    for pid in $(jobs -p); do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
}}
trap __readme_stop EXIT
trap __readme_ready DEBUG
"""


def waits_itself(text):
    """Whether a block polls for the server's readiness itself (`until curl ...`)."""
    return re.search(r"^until curl ", text, re.M) is not None


def namespaces():
    """The command prefix that gives a block its own network and PID namespaces, or None."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return None
    for prefix in (
        ["unshare", "--net", "--pid", "--fork"],
        ["unshare", "--net", "--pid", "--fork", "--map-root-user"],
    ):
        probe = subprocess.run(prefix + ["ip", "link", "set", "lo", "up"], capture_output=True, timeout=30)
        if probe.returncode == 0:
            return prefix
    return None


def port_free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    """Runs a block's text; answers (exit status, stdout, stderr)."""
    binary = os.environ.get("COMPAT_SWITCHYARD_BIN")
    if not binary or not os.access(binary, os.X_OK):
        pytest.fail("COMPAT_SWITCHYARD_BIN names no switchyard binary (compat/run sets it)")
    bin_dir = tmp_path_factory.mktemp("bin")
    os.symlink(binary, bin_dir / "switchyard")
    prefix = namespaces()
    env = {k: v for k, v in os.environ.items() if k != "AWS_ENDPOINT_URL" and not k.startswith("COMPAT_")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    preamble = PREAMBLE.format(setup="\n".join(setup_lines()))
    preamble_no_wait = preamble.replace("trap __readme_ready DEBUG\n", "")
    assert preamble_no_wait != preamble

    def run(name, text):
        if prefix is None:
            taken = [p for p in (4566, 9000) if not port_free(p)]
            if taken:
                pytest.fail(f"no network namespaces here, and ports {taken} are taken")
        scratch = tmp_path_factory.mktemp(re.sub(r"\W+", "-", name)[:40])
        os.symlink(COMPAT_DIR, scratch / "compat")
        (scratch / "home").mkdir()
        script = scratch / "block.sh"
        script.write_text((preamble_no_wait if waits_itself(text) else preamble) + text)
        out_path = scratch / "stdout"
        block_env = dict(env, HOME=str(scratch / "home"), README_BLOCK_OUT=str(out_path))
        command = ["bash", str(script)]
        if prefix is not None:
            command = prefix + ["bash", "-c", 'ip link set lo up && exec bash "$0"', str(script)]
        with open(out_path, "w") as out:
            done = subprocess.run(
                command, cwd=scratch, env=block_env, stdout=out, stderr=subprocess.PIPE,
                text=True, timeout=BLOCK_TIMEOUT,
            )
        return done.returncode, out_path.read_text(), done.stderr

    return run


# --- What the comments promise, per heading ------------------------------------------------------


def json_docs(out, key):
    """The one-line JSON objects in `out` whose first key is `key` (curl's answers, which end in
    no newline, so what is printed next may follow on the same line)."""
    decoder, docs = json.JSONDecoder(), []
    for m in re.finditer(r'\{"%s"' % re.escape(key), out):
        doc, _ = decoder.raw_decode(out, m.start())
        docs.append(doc)
    return docs


def bodies(out):
    """The message bodies the AWS CLI printed, in order, unescaped."""
    return [json.loads(f'"{b}"') for b in re.findall(r'"Body": "((?:[^"\\]|\\.)*)"', out)]


def endpoint_lines(out):
    """`switchyard endpoint`'s request lines as dicts (logfmt; these values need no quotes)."""
    return [dict(p.split("=", 1) for p in m.group(0).split()) for m in re.finditer(r"\bn=\d+ method=[^\n]*", out)]


def check_clock(out):
    assert bodies(out) == ["hi"], out
    (advance,) = json_docs(out, "now")
    assert advance["fired"] == 0
    assert out.index('"fired"') < out.index('"Body": "hi"'), "received only after the advance"


def check_state(out):
    if "QueueUrls" in out:
        # The prepared world loaded back: the queue made after the export is gone.
        listed = out[out.rindex('"QueueUrls"'):]
        assert "/orders" in listed and "/scratch" not in listed, out
    else:
        assert bodies(out) == ["still here"], out


def check_start_up(out):
    assert bodies(out) == ["seeded"], out
    (progress,) = json_docs(out, "completed")
    assert progress["completed"]["READY"] is True, progress
    states = [(s["name"], s["state"]) for s in progress["scripts"]]
    assert states == [("resources.yaml", "SUCCESSFUL"), ("10-seed.sh", "SUCCESSFUL")], progress


def check_coming_from_localstack(out):
    (health,) = json_docs(out, "services")
    assert health["services"]["sqs"] == "running" and health["edition"] == "community", health
    (peek,) = json_docs(out, "ReceiveMessageResponse")
    assert peek["ReceiveMessageResponse"]["ReceiveMessageResult"]["Message"]["Body"] == "hi", peek
    assert bodies(out) == ["hi"], out  # the receive after the peek still gets it


def check_control(out):
    (health,) = json_docs(out, "status")
    assert health["status"] == "ok" and health["clock"]["mode"] == "real"
    clock = json_docs(out, "mode")[-1]  # GET clock's answer (the health answer holds one too)
    assert clock["mode"] == "real" and clock["epochMillis"] > 0, clock
    (fault,) = json_docs(out, "id")
    assert fault["id"]


def check_sqs(out):
    assert '"QueueUrl": "http://localhost:4566/000000000000/q"' in out
    assert '"Account": "000000000000"' in out


def check_fifo(out):
    ids = re.findall(r'"MessageId": "([^"]+)"', out)
    assert len(ids) == 3 and ids[0] == ids[1] != ids[2], ids


def check_redrive(out):
    assert bodies(out) == [
        *["poison-1", "poison-2", "poison-3"] * 2,  # the two receives from orders
        "poison-1", "poison-2", "poison-3",  # looked at in orders-dlq
        "poison-1", "poison-2", "poison-3",  # moved back
    ], out
    assert out.count('"DeadLetterQueueSourceArn": "arn:aws:sqs:us-east-1:000000000000:orders"') == 3
    statuses = re.findall(r'"Status": "(\w+)"', out)
    moved = re.findall(r'"ApproximateNumberOfMessagesMoved": (\d+)', out)
    assert (statuses, moved) == (["RUNNING", "COMPLETED"], ["1", "3"]), out


def check_fan_out(out):
    requests = endpoint_lines(out)
    assert [(r["type"], r["status"]) for r in requests] == [
        ("SubscriptionConfirmation", "200"),
        ("Notification", "200"),
    ], requests
    assert requests[0]["confirmed"] == "true"
    (envelope,) = [json.loads(b) for b in bodies(out)]
    assert (envelope["Type"], envelope["Message"]) == ("Notification", '{"id": 42}'), envelope
    assert envelope["MessageAttributes"] == {"kind": {"Type": "String", "Value": "order"}}
    (log,) = json_docs(out, "records")
    attempts = [(r["protocol"], r["outcome"]) for r in log["records"]]
    assert sorted(attempts) == [("http", "delivered"), ("http", "delivered"), ("sqs", "delivered")]


def check_retries(out):
    requests = endpoint_lines(out)
    assert len(requests) == 52, requests
    assert (requests[0]["type"], requests[0]["confirmed"], requests[0]["status"]) == (
        "SubscriptionConfirmation", "true", "200",
    )
    notifications = requests[1:]
    assert {(r["type"], r["status"]) for r in notifications} == {("Notification", "503")}
    assert len({r["message_id"] for r in notifications}) == 1
    (log,) = json_docs(out, "records")
    records = log["records"]
    assert len(records) == 51
    assert {r["messageId"] for r in records} == {notifications[0]["message_id"]}
    assert [r["attempt"] for r in records] == list(range(1, 52))
    assert {(r["outcome"], r["status"]) for r in records} == {("retryable", 503)}
    (dead,) = [json.loads(b) for b in bodies(out)]
    assert (dead["Type"], dead["Message"]) == ("Notification", "hello"), dead
    assert "51 attempts (1 + 50 retries)" in out


def check_eventbridge(out):
    first, dead = bodies(out)
    first, dead = json.loads(first), json.loads(dead)
    assert (first["detail-type"], first["detail"]) == ("OrderPlaced", {"total": 250}), first
    assert dead["detail"] == {"total": 300}, dead
    attributes = dict(re.findall(r'"(\w+)": \{\s*"StringValue": "([^"]*)"', out))
    assert attributes["ERROR_CODE"] == "SDK_CLIENT_ERROR", attributes
    assert attributes["EXHAUSTED_RETRY_CONDITION"] == "MaximumRetryAttempts"
    assert attributes["RETRY_ATTEMPTS"] == "3"


def check_custom_bus(out):
    (record,) = json_docs(out, "version")
    (failed,) = record["failedMessages"]
    assert record["retryAttempts"] == 4, record
    (event,) = [json.loads(b) for b in bodies(out)]
    metadata = event["system-metadata"]
    assert (metadata["aws:EventId"], metadata["aws:DeliveryType"]) == (failed["eventId"], "REPLAY"), event


def check_scheduler(out):
    runs = sorted(json.loads(b)["at"] for b in bodies(out))
    times = [datetime.datetime.fromisoformat(r.replace("Z", "+00:00")) for r in runs]
    assert [t.hour for t in times] == [14, 13, 13], out  # 09:00 EST, then 09:00 EDT twice
    sunday = times[1].date()
    assert sunday.month == 3 and 8 <= sunday.day <= 14 and sunday.weekday() == 6, runs
    assert [t.date() for t in times] == [sunday - datetime.timedelta(days=1), sunday,
                                         sunday + datetime.timedelta(days=1)], runs
    assert times[0] > datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=1), runs
    assert "once is gone" in out


def check_event_stream(out):
    assert '"State": "READY"' in out
    assert sorted(bodies(out)) == ["one", "three", "two"], out


def check_pipe(out):
    assert '"RUNNING"' in out
    got = bodies(out)
    assert sorted(got[:2]) == ['{"order":1,"pipe":"ship"}', '{"order":2,"pipe":"ship"}'], out
    assert got[2:] == ['{"kind": "order", "id": 3}'], out


def check_lambda(out):
    assert '"StatusCode": 200' in out, out
    assert '{"hello": "switchyard", "function": "hello"}' in out, out


def check_lambda_paths(out):
    assert "bad-2" in out, out
    assert '"StatusCode": 202' in out, out
    assert '"condition":"RetriesExhausted","approximateInvokeCount":3' in out, out
    assert '"errorMessage":"cannot bill o-1"' in out, out
    assert '"invocationType":"Event"' in out, out


EXPECTED = {
    "Clock modes": check_clock,
    "State that survives restarts": check_state,
    "Start-up resources": check_start_up,
    "Coming from LocalStack": check_coming_from_localstack,
    "Control API": check_control,
    "SQS with the AWS CLI": check_sqs,
    "A FIFO queue and its 5-minute deduplication window, on the manual clock": check_fifo,
    "A dead-letter queue and a redrive back": check_redrive,
    "SNS fan-out to a queue and an HTTP endpoint": check_fan_out,
    "Testing a retry schedule in seconds": check_retries,
    "An EventBridge rule, a failing target, its retry policy and dead-letter queue": check_eventbridge,
    "The custom event bus: a FIFO subscriber, a dead-letter record and a redrive by replay": check_custom_bus,
    "An event stream that stops on failure and resumes in order": check_event_stream,
    "A schedule in New York time across the spring-forward, and a one-time schedule that deletes itself": check_scheduler,
    "A pipe from one queue to another: a filter, a batching window, a template and a redrive": check_pipe,
    "A Python function, invoked without Docker": check_lambda,
    "A queue drained by a Python function, partial batch failures, and an async failure on its OnFailure queue": check_lambda_paths,
}


def test_every_listed_heading_is_in_the_readme():
    headings = {h for h, _, _ in sh_blocks()}
    assert set(SKIPPED) <= headings, set(SKIPPED) - headings
    assert set(EXPECTED) <= headings, set(EXPECTED) - headings


@pytest.mark.parametrize(
    "heading,number,text",
    sh_blocks(),
    ids=[f"{h}#{n}" for h, n, _ in sh_blocks()],
)
def test_readme_block(runner, heading, number, text):
    if heading in SKIPPED:
        pytest.skip(SKIPPED[heading])
    status, out, err = runner(f"{heading}-{number}", text)
    assert status == 0, f"the block exited {status}\n--- stdout\n{out}\n--- stderr\n{err}"
    check = EXPECTED.get(heading)
    if check is not None:
        try:
            check(out)
        except Exception as e:
            raise AssertionError(f"{e}\n--- stdout\n{out}\n--- stderr\n{err}") from e
