"""The pytest plugin (entry point `pytest11`, loaded whenever the package is installed; it starts
nothing until a test asks for its fixtures).

Fixtures:
- `switchyard`: an Emulator, reset before the test, so every test that uses it (itself or
  through `aws_client`) starts from an empty emulator. The server behind it is started once per
  session (manual clock unless told otherwise), or is the one `--switchyard-url` names. A test
  marked `@pytest.mark.switchyard(clock="real", ...)` gets a server of its own, started with
  those Emulator options and stopped after it.
- `aws_client`: a factory, `aws_client("sqs")`: a boto3 client pointed at that emulator.
- `switchyard_session`: the session's server itself, not reset (for session-scoped fixtures).

Options (command line, or the ini key of the same name with underscores):
- `--switchyard-bin PATH`: run that binary instead of the installed one.
- `--switchyard-url URL`: use a server started elsewhere (CI): nothing is started, and resets
  and clock moves go to that URL.
- `--switchyard-clock MODE`: `manual` (default), `real` or `fast:<factor>`.
- `--switchyard-args "ARGS"`: more arguments for the servers started (ini: `switchyard_args`).
"""

import shlex

import pytest

from ._emulator import Emulator

_OPTIONS = {
    "switchyard_bin": "a switchyard binary to run instead of the one installed with the package",
    "switchyard_url": "the URL of a switchyard started elsewhere: nothing is started, and resets "
    "and clock moves go there",
    "switchyard_clock": "clock of the session's switchyard: manual (default), real or fast:<factor>",
    "switchyard_args": "more command-line arguments for the switchyard servers started",
}


def pytest_addoption(parser):
    group = parser.getgroup("switchyard", "switchyard (local AWS emulator)")
    for name, text in _OPTIONS.items():
        flag = "--" + name.replace("_", "-")
        group.addoption(flag, dest=name, default=None, help=text)
        parser.addini(name, text, type="args" if name == "switchyard_args" else "string", default=None)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "switchyard(**options): run the test against a switchyard of its own, started with these "
        "Emulator options (clock='real', state_dir=..., init_resources=..., args=[...])",
    )


def _setting(config, name):
    value = config.getoption(name)
    if value is None:
        value = config.getini(name) or None
    if name == "switchyard_args":
        if isinstance(value, str):
            return shlex.split(value)
        return list(value or [])
    return value


def _options(config):
    """The Emulator options the command line and ini file give."""
    return {
        "binary": _setting(config, "switchyard_bin"),
        "clock": _setting(config, "switchyard_clock") or "manual",
        "args": _setting(config, "switchyard_args"),
    }


def pytest_report_header(config):
    url = _setting(config, "switchyard_url")
    if url:
        return f"switchyard: {url} (--switchyard-url)"
    options = _options(config)
    return f"switchyard: {options['binary'] or 'the installed binary'}, clock {options['clock']}"


@pytest.fixture(scope="session")
def switchyard_session(request):
    """The session's switchyard (started on first use, stopped at the session's end), not reset."""
    url = _setting(request.config, "switchyard_url")
    if url:
        yield Emulator.connect(url)
        return
    with Emulator(**_options(request.config)) as emulator:
        yield emulator


@pytest.fixture
def switchyard(request):
    """An empty switchyard for this test: the session's, reset, or one of the test's own when the
    test is marked @pytest.mark.switchyard(...)."""
    marker = request.node.get_closest_marker("switchyard")
    if marker is not None:
        if marker.args:
            raise pytest.UsageError("@pytest.mark.switchyard takes keyword options only")
        options = _options(request.config)
        options.update(marker.kwargs)
        options["args"] = [*_options(request.config)["args"], *marker.kwargs.get("args", ())]
        with Emulator(**options) as emulator:
            yield emulator
        return
    emulator = request.getfixturevalue("switchyard_session")
    emulator.reset()
    yield emulator


@pytest.fixture
def aws_client(switchyard):
    """aws_client(service, **boto3_options): a boto3 client pointed at the test's switchyard.
    Clients without options are made once per server and reused."""

    def make(service, **kwargs):
        if kwargs:
            return switchyard.client(service, **kwargs)
        cache = switchyard._clients
        if service not in cache:
            cache[service] = switchyard.client(service)
        return cache[service]

    return make


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test that used a switchyard started here gets the end of its log in the report."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    emulator = getattr(item, "funcargs", {}).get("switchyard")
    if isinstance(emulator, Emulator):
        tail = emulator.log_tail(30)
        if tail:
            report.sections.append((f"switchyard log ({emulator.log_path})", tail))
