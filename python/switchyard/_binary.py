"""Finding the switchyard binary that the wheel installed (or another one the caller names)."""

import os
import shutil
import sys
import sysconfig

EXE = "switchyard.exe" if os.name == "nt" else "switchyard"


class BinaryNotFound(FileNotFoundError):
    """No switchyard binary where the wheel puts it, in $SWITCHYARD_BIN or on PATH."""


def _candidates():
    # Where maturin puts the binary when it has bundled shared libraries with it (Linux wheels
    # carry OpenSSL in switchyard.libs): beside this package in site-packages, with a small Python
    # launcher of the same name in the scripts directory. Going there directly saves starting a
    # Python interpreter in between.
    site = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    yield os.path.join(site, "switchyard.scripts", EXE)
    # Otherwise the binary itself is in the scripts (bin) directory of the installation: the
    # interpreter's own scheme (a venv's bin), then the user scheme (`pip install --user`).
    schemes = [None]
    if sys.version_info >= (3, 10):
        schemes.append(sysconfig.get_preferred_scheme("user"))
    else:
        schemes.append(f"{os.name}_user")
    for scheme in schemes:
        try:
            scripts = sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")
        except KeyError:
            continue
        if scripts:
            yield os.path.join(scripts, EXE)


def find_binary(binary=None):
    """The path of the switchyard binary to run.

    `binary` (a path, or a name looked up on PATH) wins; then $SWITCHYARD_BIN; then the binary this
    package was installed with; then `switchyard` on PATH.
    """
    wanted = binary or os.environ.get("SWITCHYARD_BIN")
    if wanted:
        wanted = os.fspath(wanted)
        if os.sep in wanted or (os.altsep and os.altsep in wanted):
            if os.path.isfile(wanted) and os.access(wanted, os.X_OK):
                return os.path.abspath(wanted)
            raise BinaryNotFound(f"{wanted} is not an executable file")
        found = shutil.which(wanted)
        if found:
            return found
        raise BinaryNotFound(f"{wanted} is not on PATH")
    for path in _candidates():
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    found = shutil.which("switchyard")
    if found:
        return found
    raise BinaryNotFound(
        "no switchyard binary: install the wheel (pip install switchyard), "
        "or name one with SWITCHYARD_BIN, --switchyard-bin or Emulator(binary=...)"
    )
