"""`python -m switchyard ARGS...`: runs the bundled switchyard binary with ARGS (it replaces this
process on POSIX, so signals and the exit status are the binary's own)."""

import os
import subprocess
import sys

from ._binary import BinaryNotFound, find_binary


def main():
    try:
        exe = find_binary()
    except BinaryNotFound as e:
        sys.exit(f"switchyard: {e}")
    argv = [exe, *sys.argv[1:]]
    if os.name == "nt":
        # Windows has no exec that keeps the process: run it and pass its status on.
        sys.exit(subprocess.call(argv))
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, argv)


if __name__ == "__main__":
    main()
