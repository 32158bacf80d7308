"""switchyard, a local AWS emulator (SQS, SNS, EventBridge, Scheduler, Pipes, Lambda) on a virtual
clock, for tests: the binary (`switchyard`, `python -m switchyard`), `Emulator` to start it and
steer it, and a pytest plugin (the `switchyard` and `aws_client` fixtures). docs/testing.md."""

from ._binary import BinaryNotFound, find_binary
from ._emulator import ControlError, Emulator, StartError, SwitchyardError

try:
    from importlib.metadata import PackageNotFoundError, version

    __version__ = version("switchyard")
except PackageNotFoundError:  # a source tree, not installed
    __version__ = "0+unknown"

__all__ = [
    "BinaryNotFound",
    "ControlError",
    "Emulator",
    "StartError",
    "SwitchyardError",
    "find_binary",
]
