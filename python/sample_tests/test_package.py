"""The package as installed: the binary on PATH and through `python -m switchyard`, and no server
left behind when the test process is killed."""

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import switchyard


def test_installed_not_the_checkout():
    assert "site-packages" in switchyard.__file__
    assert switchyard.__version__[0].isdigit()


def test_python_m_switchyard_version():
    out = subprocess.run([sys.executable, "-m", "switchyard", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"switchyard {switchyard.__version__}"


def test_switchyard_on_path_help():
    exe = shutil.which("switchyard", path=os.path.dirname(sys.executable))
    assert exe, "the wheel puts `switchyard` in the environment's scripts directory"
    out = subprocess.run([exe, "--help"], capture_output=True, text=True, check=True)
    assert "--clock" in out.stdout


def _gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie waiting for its reaper
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_killed_test_process_leaves_no_server(tmp_path, how):
    pid_file = tmp_path / "server.pid"
    (tmp_path / "test_hold.py").write_text(
        textwrap.dedent(
            f"""
            import time

            def test_hold(switchyard):
                with open({str(pid_file)!r}, "w") as f:
                    f.write(str(switchyard.pid))
                time.sleep(60)
            """
        )
    )
    inner = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_hold.py"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not (pid_file.exists() and pid_file.read_text()):
            assert inner.poll() is None, "the inner pytest ended early"
            assert time.monotonic() < deadline, "the inner test never started its server"
            time.sleep(0.05)
        server = int(pid_file.read_text())
        assert not _gone(server)
        inner.send_signal(how)
        inner.wait(10)
    finally:
        if inner.poll() is None:
            inner.kill()
    deadline = time.monotonic() + 10
    while not _gone(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    if not _gone(server):
        os.kill(server, signal.SIGKILL)  # not left behind by this test either
        pytest.fail(f"switchyard (pid {server}) outlived the pytest killed with {how.name}")
