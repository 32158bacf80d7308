#!/usr/bin/env bash
# Installs the emulators that examples/peers.rs measures switchyard against, each in its own
# folder under bench/.peers (or $PEERS_DIR), from the package registries only:
#   moto's server   pip 'moto[server]', a venv of python3
#   LocalStack      pip 'localstack-core[runtime]' (host mode, no Docker), a venv of Python 3.13
#                   or later (its code imports warnings.deprecated), with the dependencies as
#                   they were a few weeks after its release (pip's --uploaded-prior-to), since
#                   later cbor2 and pyOpenSSL releases break it
#   MiniStack       pip 'ministack', a venv of python3
#   fakecloud       cargo install fakecloud, built in a scratch target folder deleted afterwards
# A peer that fails to install is reported and skipped; peers.rs lists it as not measured.
# Usage: bench/install-peers.sh [moto] [localstack] [ministack] [fakecloud]   (default: all)
# Nothing of this runs in CI. See docs/benchmarks.md, "Peers in the same run".
set -u
cd "$(dirname "$0")/.."
dir=${PEERS_DIR:-bench/.peers}
mkdir -p "$dir"
MOTO_VERSION=5.2.5
LOCALSTACK_VERSION=2026.3.0
LOCALSTACK_DEPENDENCIES_BEFORE=2026-04-01T00:00:00Z
MINISTACK_VERSION=1.5.33
FAKECLOUD_VERSION=0.51.0

venv() { # venv NAME PYTHON PIP-ARGS...
    local name=$1 python=$2
    shift 2
    rm -rf "${dir:?}/$name"
    "$python" -m venv "$dir/$name" &&
        "$dir/$name/bin/pip" install -q -U pip &&
        "$dir/$name/bin/pip" install -q "$@"
}

# The first Python of 3.13 or later on PATH or in pyenv.
python313() {
    local p
    for p in python3.14 python3.13 "$(pyenv root 2>/dev/null)"/versions/3.1[3-9]*/bin/python3; do
        if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import sys; sys.exit(sys.version_info < (3, 13))' 2>/dev/null; then
            command -v "$p"
            return 0
        fi
    done
    return 1
}

install() {
    case $1 in
    moto) venv moto python3 "moto[server]==$MOTO_VERSION" ;;
    ministack) venv ministack python3 "ministack==$MINISTACK_VERSION" ;;
    localstack)
        local python
        python=$(python313) || {
            echo "no Python 3.13 or later (apt-get install python3.13, or pyenv install 3.13)" >&2
            return 1
        }
        venv localstack "$python" --uploaded-prior-to "$LOCALSTACK_DEPENDENCIES_BEFORE" \
            "localstack-core[runtime]==$LOCALSTACK_VERSION"
        ;;
    fakecloud)
        local scratch
        scratch=$(mktemp -d)
        CARGO_TARGET_DIR=$scratch cargo install fakecloud --version "$FAKECLOUD_VERSION" \
            --locked --root "$dir/fakecloud"
        local status=$?
        rm -rf "$scratch"
        return $status
        ;;
    *)
        echo "unknown peer $1" >&2
        return 1
        ;;
    esac
}

failed=()
for peer in "${@:-moto localstack ministack fakecloud}"; do
    for p in $peer; do
        echo "== $p"
        install "$p" || failed+=("$p")
    done
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "not installed: ${failed[*]}" >&2
    exit 1
fi
echo "installed in $dir"
