"""switchyard.Emulator: a switchyard server started for tests (or one started elsewhere), and its
control API (docs/control-api.md) as methods, over the standard library's urllib only."""

import atexit
import datetime
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.parse
import urllib.request
import weakref
from collections import deque

from ._binary import find_binary

READY_PREFIX = "switchyard listening on "
REGION = "us-east-1"

# Control calls never go through a proxy from the environment: the server is on this machine.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

# Emulators whose server is running, stopped at interpreter exit if nobody else did.
_running = weakref.WeakSet()


@atexit.register
def _stop_all():
    for emulator in list(_running):
        emulator.stop()


class SwitchyardError(Exception):
    """Something went wrong starting or talking to switchyard."""


class StartError(SwitchyardError):
    """The server did not print its ready line (it exited, or took too long)."""


class ControlError(SwitchyardError):
    """The control API answered an error: `status`, `code` (e.g. `TimeInPast`) and `message`."""

    def __init__(self, method, path, status, code, message):
        super().__init__(f"{method} {path}: {status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


def _rfc3339(moment):
    """A datetime (naive ones are taken as UTC) or a string, as the control API writes times."""
    if isinstance(moment, str):
        return moment
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    moment = moment.astimezone(datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _parent_death_hook():
    """Linux: a preexec_fn that makes the server get SIGTERM when the thread that started it dies,
    however it dies (kill -9 included), through prctl(PR_SET_PDEATHSIG)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)  # loaded here, in the parent: no imports after fork
    prctl = libc.prctl
    prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
    prctl.restype = ctypes.c_int
    parent = os.getpid()
    pr_set_pdeathsig = 1

    def hook():
        if prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
        if os.getppid() != parent:  # the parent died between fork and prctl
            os._exit(1)

    return hook


class Emulator:
    """A switchyard server on a free port, stopped on exit:

        with switchyard.Emulator(clock="manual") as emulator:
            sqs = emulator.client("sqs")
            ...
            emulator.advance(30)

    Options: `binary` (default: the one installed with this package, see find_binary), `clock`
    (`manual`, `real`, `fast:<factor>`; None: the binary's default), `state_dir`, `state_file`,
    `init_resources`, `init`, `seed`, `jitter` (True/False or "on"/"off"), `host`, `port` (0: a
    free one), `args` (more command-line arguments), `env` (environment variables added to this
    process's), `ready_timeout` (seconds), `log` (a path for the server's stderr; default a
    temporary file, removed when it stops). Any other keyword `name=value` becomes `--name value`
    (underscores as dashes; True alone as a flag), e.g. `delivery_log_size=200000`,
    `enforce_policies=True`.

    The server dies with the process that started it: on Linux through PR_SET_PDEATHSIG (even
    after kill -9 of the test process, as long as the thread that started it was the one that
    lives as long as the process, such as pytest's main thread), and everywhere through atexit
    at a normal interpreter exit. Elsewhere than Linux a test process killed with SIGKILL (or
    terminated without running atexit) leaves the server running.

    `Emulator.connect(url)` gives the same methods for a server started elsewhere.
    """

    def __init__(
        self,
        *,
        binary=None,
        clock="manual",
        state_dir=None,
        state_file=None,
        init_resources=None,
        init=None,
        seed=None,
        jitter=None,
        host="127.0.0.1",
        port=0,
        args=(),
        env=None,
        ready_timeout=30.0,
        log=None,
        timeout=300.0,
        **options,
    ):
        self.binary = binary
        self.clock_mode = clock
        self.host = host
        self.port = port
        self.env = dict(env or {})
        self.ready_timeout = ready_timeout
        self.timeout = timeout  # seconds a control call may take (an advance can run long)
        self.log_path = os.fspath(log) if log is not None else None
        self._own_log = log is None
        self._url = None
        self._process = None
        self._reader = None
        self._log_file = None
        self._clients = {}
        named = {
            "clock": clock,
            "state_dir": state_dir,
            "state_file": state_file,
            "init_resources": init_resources,
            "init": init,
            "seed": seed,
            "jitter": {True: "on", False: "off"}.get(jitter, jitter),
        }
        named.update(options)
        self.args = []
        for name, value in named.items():
            if value is None or value is False:
                continue
            flag = "--" + name.replace("_", "-")
            self.args += [flag] if value is True else [flag, os.fspath(value) if hasattr(value, "__fspath__") else str(value)]
        self.args += [str(a) for a in args]

    @classmethod
    def connect(cls, url, timeout=300.0):
        """The control API of a switchyard started elsewhere (in CI, a container ...): nothing is
        started or stopped."""
        emulator = cls(timeout=timeout)
        emulator._url = url.rstrip("/")
        return emulator

    # --- the process ----------------------------------------------------------------------------

    @property
    def url(self):
        """`http://<host>:<port>` of the server, once started."""
        if self._url is None:
            raise SwitchyardError("the emulator is not started")
        return self._url

    @property
    def pid(self):
        """The server's process id (None when it was not started here)."""
        return self._process.pid if self._process else None

    @property
    def running(self):
        return self._process is not None and self._process.poll() is None

    def command(self):
        """The command line start() runs."""
        return [find_binary(self.binary), "--host", self.host, "--port", str(self.port), *self.args]

    def start(self):
        """Starts the server and returns once it has printed its ready line."""
        if self._url is not None:
            return self
        command = self.command()
        if self.log_path is None:
            fd, self.log_path = tempfile.mkstemp(prefix="switchyard-", suffix=".log")
            os.close(fd)
        self._log_file = open(self.log_path, "wb")
        extra = {}
        if sys.platform.startswith("linux"):
            extra["preexec_fn"] = _parent_death_hook()
        try:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=self._log_file,
                env={**os.environ, **self.env},
                **extra,
            )
        except BaseException:
            self._close_log()
            raise
        _running.add(self)
        lines = queue.Queue()
        self._reader = threading.Thread(
            target=_read_lines, args=(self._process.stdout, lines), name="switchyard-stdout", daemon=True
        )
        self._reader.start()
        try:
            self._url = self._wait_ready(lines)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self, lines):
        try:
            line = lines.get(timeout=self.ready_timeout)
        except queue.Empty:
            raise StartError(
                f"no ready line from {self._process.args[0]} within {self.ready_timeout} s{self._tail_note()}"
            ) from None
        if line is None:
            status = self._process.wait()
            raise StartError(f"switchyard exited (status {status}) before it was ready{self._tail_note()}")
        if not line.startswith(READY_PREFIX):
            raise StartError(f"unexpected first line from switchyard: {line!r}{self._tail_note()}")
        return line[len(READY_PREFIX) :].strip()

    def _tail_note(self):
        tail = self.log_tail(20) if self.log_path else ""
        return f"; its log ({self.log_path}) ends:\n{tail}" if tail else ""

    def log_tail(self, lines=40):
        """The last `lines` lines of the server's log (its stderr), or "" when there is none."""
        if not self.log_path or not os.path.exists(self.log_path):
            return ""
        if self._log_file:
            self._log_file.flush()
        with open(self.log_path, errors="replace") as f:
            return "".join(deque(f, maxlen=lines))

    def stop(self, timeout=10.0):
        """Stops the server (SIGTERM, then SIGKILL after `timeout` seconds). Idempotent."""
        _running.discard(self)
        process, self._process = self._process, None
        if process is not None:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            if process.stdout:
                process.stdout.close()
            self._url = None
        if self._reader is not None:
            self._reader.join(timeout=1)
            self._reader = None
        self._close_log()

    def _close_log(self):
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
            if self._own_log and self.log_path:
                try:
                    os.unlink(self.log_path)
                except OSError:
                    pass
                self.log_path = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def __repr__(self):
        return f"<switchyard.Emulator {self._url or 'not started'}>"

    # --- the control API ------------------------------------------------------------------------

    def _call(self, method, path, body=None, query=None, raw=False):
        url = f"{self.url}/_switchyard{path}"
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        headers = {}
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with _opener.open(request, timeout=self.timeout) as response:
                payload = response.read()
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            try:
                answer = json.loads(text)
                code, message = answer.get("error", "?"), answer.get("message", "")
            except (ValueError, AttributeError):
                code, message = "?", text
            raise ControlError(method, f"/_switchyard{path}", e.code, code, message) from None
        except urllib.error.URLError as e:
            raise SwitchyardError(f"{method} {url}: {e.reason}") from None
        if raw:
            return payload
        return json.loads(payload) if payload else {}

    def health(self):
        """GET /_switchyard/health: status, version, services and the clock."""
        return self._call("GET", "/health")

    def reset(self):
        """Removes every resource, message, pending delivery, log, outbox entry and fault; the
        clock keeps its mode and time."""
        self._call("POST", "/reset", {})

    def clock(self):
        """GET /_switchyard/clock: {"mode", "factor", "now", "epochMillis"}."""
        return self._call("GET", "/clock")

    def now(self):
        """The virtual time, as an aware UTC datetime."""
        millis = self.clock()["epochMillis"]
        return datetime.datetime.fromtimestamp(millis / 1000, tz=datetime.timezone.utc)

    def advance(self, seconds=None, until=None):
        """Moves virtual time forward by `seconds` or to `until` (a datetime or an RFC 3339
        string), firing every timer due on the way; returns once their work has finished, with
        the server's answer {"now": "<time>", "fired": <timers fired>}. Raises ControlError
        ClockNotAdjustable on a real clock, TimeInPast for an `until` before now."""
        if (seconds is None) == (until is None):
            raise TypeError("advance() takes seconds or until, exactly one")
        body = {"seconds": seconds} if until is None else {"until": _rfc3339(until)}
        return self._call("POST", "/clock/advance", body)

    def settle(self):
        """advance(0): runs whatever is due now, and returns once its work has finished."""
        return self.advance(seconds=0)

    def deliveries(self, **filters):
        """The delivery log's records, oldest first. Filters: source, target, message_id (or
        messageId), event, limit (default 1000, the newest)."""
        return self._call("GET", "/deliveries", query=_camel(filters))["records"]

    def clear_deliveries(self):
        self._call("DELETE", "/deliveries")

    def outbox(self, **filters):
        """What was "sent" to e-mail, SMS, push, Lambda and Firehose endpoints. Filters: protocol,
        target."""
        return self._call("GET", "/outbox", query=_camel(filters))["messages"]

    def clear_outbox(self):
        self._call("DELETE", "/outbox")

    def fault(self, target, status=500, error_code=None, count=None):
        """Makes every delivery attempt to `target` (an ARN, URL, address or number) fail as if
        it answered `status`, for `count` attempts (None: until removed). Returns its id."""
        body = {"target": target, "status": status}
        if error_code is not None:
            body["errorCode"] = error_code
        if count is not None:
            body["count"] = count
        return self._call("POST", "/faults", body)["id"]

    def faults(self):
        return self._call("GET", "/faults")["faults"]

    def remove_fault(self, fault_id):
        self._call("DELETE", f"/faults/{urllib.parse.quote(fault_id, safe='')}")

    def clear_faults(self):
        self._call("DELETE", "/faults")

    def resources(self):
        """GET /_switchyard/resources: every resource of every account and region."""
        return self._call("GET", "/resources")

    def state(self):
        """The whole state as a snapshot (a dict), to give load_state() later."""
        return json.loads(self._call("GET", "/state", raw=True))

    def load_state(self, snapshot):
        """Replaces the running state with a snapshot: a dict from state(), its JSON text or
        bytes, or a path (pathlib.Path) of a file `switchyard state export` wrote."""
        if hasattr(snapshot, "__fspath__"):
            with open(snapshot, "rb") as f:
                snapshot = f.read()
        elif isinstance(snapshot, str):
            snapshot = snapshot.encode()
        elif not isinstance(snapshot, bytes):
            snapshot = json.dumps(snapshot).encode()
        self._call("POST", "/state", snapshot)

    def client(self, service, **kwargs):
        """A boto3 client for `service` pointed at this server, with test credentials and region
        us-east-1 (keywords override them or add more, e.g. config=...). Needs boto3:
        pip install "switchyard[boto3]"."""
        try:
            import boto3
        except ImportError:
            raise ImportError(
                'switchyard: Emulator.client needs boto3: pip install "switchyard[boto3]" (or boto3)'
            ) from None
        options = {
            "endpoint_url": self.url,
            "region_name": REGION,
            "aws_access_key_id": "test",
            "aws_secret_access_key": "test",
        }
        options.update(kwargs)
        return boto3.session.Session().client(service, **options)


def _camel(filters):
    """message_id=... as the API's messageId=...; other names as they are."""
    out = {}
    for name, value in filters.items():
        head, *rest = name.split("_")
        out[head + "".join(part.title() for part in rest)] = value
    return out


def _read_lines(stream, lines):
    """Hands the server's stdout over line by line (the ready line first), then None at its end.
    Reads to the end so that the server never blocks on a full pipe."""
    try:
        for raw in stream:
            lines.put(raw.decode(errors="replace").rstrip("\r\n"))
    except (OSError, ValueError):
        pass
    lines.put(None)
