#!/usr/bin/env bash
# The SQS basics end to end through the AWS CLI v1, against a freshly started switchyard.
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail

: "${SWITCHYARD_URL:?SWITCHYARD_URL must be set (run this through compat/run)}"

ACCOUNT=000000000000
QUEUE=q
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

# expect_eq STEP WHAT ACTUAL EXPECTED
expect_eq() {
    [[ "$3" == "$4" ]] || fail "$1: $2 is '$3', expected '$4'"
}

expected_url="$SWITCHYARD_URL/$ACCOUNT/$QUEUE"

out=$(awsj sqs create-queue --queue-name "$QUEUE") || fail "create-queue: aws exited non-zero"
queue_url=$(jget QueueUrl <<<"$out")
expect_eq create-queue QueueUrl "$queue_url" "$expected_url"
ok "create-queue"

out=$(awsj sqs get-queue-url --queue-name "$QUEUE") || fail "get-queue-url: aws exited non-zero"
expect_eq get-queue-url QueueUrl "$(jget QueueUrl <<<"$out")" "$expected_url"
ok "get-queue-url"

out=$(awsj sqs list-queues) || fail "list-queues: aws exited non-zero"
python3 -c 'import json, sys; sys.exit(sys.argv[1] not in json.loads(sys.stdin.read() or "{}").get("QueueUrls", []))' \
    "$queue_url" <<<"$out" || fail "list-queues: $queue_url not in the answer: $out"
ok "list-queues"

out=$(awsj sqs send-message --queue-url "$queue_url" --message-body 'hello') \
    || fail "send-message: aws exited non-zero"
expect_eq send-message MD5OfMessageBody "$(jget MD5OfMessageBody <<<"$out")" "$HELLO_MD5"
[[ -n "$(jget MessageId <<<"$out")" ]] || fail "send-message: no MessageId in $out"
ok "send-message"

out=$(awsj sqs receive-message --queue-url "$queue_url" --wait-time-seconds 0) \
    || fail "receive-message: aws exited non-zero"
expect_eq receive-message Body "$(jget Messages 0 Body <<<"$out")" "hello"
receipt_handle=$(jget Messages 0 ReceiptHandle <<<"$out")
[[ -n "$receipt_handle" ]] || fail "receive-message: no ReceiptHandle in $out"
ok "receive-message"

awsj sqs delete-message --queue-url "$queue_url" --receipt-handle "$receipt_handle" >/dev/null \
    || fail "delete-message: aws exited non-zero"
ok "delete-message"

out=$(awsj sqs receive-message --queue-url "$queue_url" --wait-time-seconds 0) \
    || fail "receive-message after delete: aws exited non-zero"
[[ -z "$(jget Messages 0 <<<"$out")" ]] || fail "receive-message after delete: expected no messages, got $out"
ok "receive-message after delete (empty)"

awsj sqs delete-queue --queue-url "$queue_url" >/dev/null || fail "delete-queue: aws exited non-zero"
ok "delete-queue"

out=$(awsj sts get-caller-identity) || fail "sts get-caller-identity: aws exited non-zero"
expect_eq "sts get-caller-identity" Account "$(jget Account <<<"$out")" "$ACCOUNT"
ok "sts get-caller-identity"
