# Shared by the AWS CLI scenarios in compat/cli/ (sourced, not run). Needs SWITCHYARD_URL, dummy
# credentials and `aws` on PATH: compat/run sets all three up.

: "${SWITCHYARD_URL:?SWITCHYARD_URL must be set (run this through compat/run)}"

ACCOUNT=000000000000
HELLO_MD5=5d41402abc4b2a76b9719d911017c592 # md5 of 'hello'

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

ok() { echo "ok: $*"; }

# Every call goes to the emulator and answers JSON.
awsj() { aws --endpoint-url "$SWITCHYARD_URL" --output json "$@"; }

# Reads JSON on stdin and prints the value at a path of keys and list indices, e.g.
# `jget Messages 0 Body`; prints nothing if the document is empty or the path is missing.
jget() {
    python3 -c '
import json, sys
text = sys.stdin.read().strip()
value = json.loads(text) if text else None
for key in sys.argv[1:]:
    if isinstance(value, list) and key.isdigit() and int(key) < len(value):
        value = value[int(key)]
    elif isinstance(value, dict):
        value = value.get(key)
    else:
        value = None
if value is not None:
    print(value if isinstance(value, str) else json.dumps(value))
' "$@"
}

# Reads JSON on stdin and evaluates a Python expression over it as `d`; fails the step unless true.
# jcheck STEP EXPRESSION
jcheck() {
    local step=$1 expr=$2 doc
    doc=$(cat)
    python3 -c '
import json, sys
text = sys.argv[2].strip()
d = json.loads(text) if text else {}
sys.exit(0 if eval(sys.argv[1]) else 1)
' "$expr" "$doc" || fail "$step: expected $expr, got: $doc"
}

# expect_eq STEP WHAT ACTUAL EXPECTED
expect_eq() {
    [[ "$3" == "$4" ]] || fail "$1: $2 is '$3', expected '$4'"
}

# Moves the emulator's virtual clock (manual mode) and returns once the work it triggered has
# finished, deliveries included: `advance 0` waits for in-flight deliveries without moving time.
advance() {
    python3 -c '
import json, sys, urllib.request
request = urllib.request.Request(
    sys.argv[1] + "/_switchyard/clock/advance",
    data=json.dumps({"seconds": float(sys.argv[2])}).encode(),
    headers={"Content-Type": "application/json"},
    method="POST",
)
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
with opener.open(request, timeout=60) as response:
    sys.exit(0 if response.status == 200 else 1)
' "$SWITCHYARD_URL" "$1" || fail "POST /_switchyard/clock/advance {\"seconds\": $1} failed"
}
