#!/usr/bin/env bash
# Event streams through the AWS CLI v1 with the model switchyard ships (`aws configure add-model`
# into a throwaway HOME): BACKOFF_RETRY with a faulted target makes 4 attempts 10-20 s apart and
# dead-letters the raw message; ErrorsTolerance NONE blocks the stream (READY, messages kept in the
# source) and a restart after the fault clears delivers them in order; a missing target gives
# START_FAILED; a missing source is refused with ResourceNotFoundException.
#
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CLI_HOME=$(mktemp -d)
trap 'rm -rf "$CLI_HOME"' EXIT
export HOME="$CLI_HOME"
ROLE_ARN="arn:aws:iam::$ACCOUNT:role/EventStreamRole"

# POST/DELETE /_switchyard/<path> with a JSON body; prints the answer.
control() {
    python3 -c '
import sys, urllib.request
request = urllib.request.Request(sys.argv[1] + "/_switchyard/" + sys.argv[2], data=sys.argv[3].encode(),
                                 headers={"Content-Type": "application/json"}, method=sys.argv[4])
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
with opener.open(request, timeout=60) as response:
    print(response.read().decode())
' "$SWITCHYARD_URL" "$1" "${2:-}" "${3:-POST}" || fail "${3:-POST} /_switchyard/$1 failed"
}

deliveries() {
    python3 -c '
import sys, urllib.parse, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
url = sys.argv[1] + "/_switchyard/deliveries?" + urllib.parse.urlencode({"source": sys.argv[2]})
with opener.open(url, timeout=60) as response:
    print(response.read().decode())
' "$SWITCHYARD_URL" "$1" || fail "GET /_switchyard/deliveries failed"
}

make_queue() {
    awsj sqs create-queue --queue-name "$1" | jget QueueUrl || fail "create-queue $1: aws exited non-zero"
}

bodies() {
    local url=$1 all=() out
    while :; do
        out=$(awsj sqs receive-message --queue-url "$url" --max-number-of-messages 10 --wait-time-seconds 0) \
            || fail "receive-message: aws exited non-zero"
        [[ -n "$(jget Messages 0 <<<"$out")" ]] || break
        while IFS=$'\t' read -r handle body; do
            awsj sqs delete-message --queue-url "$url" --receipt-handle "$handle" >/dev/null \
                || fail "delete-message: aws exited non-zero"
            all+=("$body")
        done < <(python3 -c 'import json,sys; [print(m["ReceiptHandle"] + "\t" + m["Body"]) for m in json.load(sys.stdin)["Messages"]]' <<<"$out")
    done
    (IFS=,; echo "${all[*]-}")
}

aws configure add-model --service-model file://compat/models/eventsv2/2025-05-15/service-2.json \
    --service-name eventsv2 || fail "configure add-model: aws exited non-zero"
ok "aws configure add-model (HOME=$HOME)"

# --- BACKOFF_RETRY, ErrorsTolerance ALL, SQS dead-letter queue -----------------------------------
SRC_URL=$(make_queue cli-stream-in)
make_queue cli-stream-out >/dev/null
DLQ_URL=$(make_queue cli-stream-dlq)
SRC="arn:aws:sqs:us-east-1:$ACCOUNT:cli-stream-in"
OUT="arn:aws:sqs:us-east-1:$ACCOUNT:cli-stream-out"
DLQ="arn:aws:sqs:us-east-1:$ACCOUNT:cli-stream-dlq"
fault=$(control faults "{\"target\": \"$OUT\", \"status\": 500}")
fault_id=$(jget id <<<"$fault")

out=$(awsj eventsv2 create-event-stream --name cli-backoff --source "$SRC" \
    --target "{\"TargetArn\": \"$OUT\", \"RoleArn\": \"$ROLE_ARN\"}" \
    --run-options "{\"RetryStrategy\": {\"PushRetryStrategy\": \"BACKOFF_RETRY\"}, \"ErrorsTolerance\": \"ALL\", \"DeadLetterQueue\": {\"Arn\": \"$DLQ\"}}") \
    || fail "create-event-stream: aws exited non-zero"
STREAM=$(jget EventStreamArn <<<"$out")
expect_eq create-event-stream EventStreamArn "$STREAM" "arn:aws:events:us-east-1:$ACCOUNT:event-stream/cli-backoff"
awsj eventsv2 get-event-stream --event-stream-arn "$STREAM" | jcheck get-event-stream 'd["State"] == "RUNNING"'
ok "create-event-stream: RUNNING"

awsj sqs send-message --queue-url "$SRC_URL" --message-body "order-1" >/dev/null || fail "send-message"
advance 100
deliveries "$STREAM" | jcheck "4 attempts 10-20 s apart, then the DLQ" '(
    [r["delaySeconds"] for r in d["records"] if r["event"] == "attempt"][0] == 0
    and len([r for r in d["records"] if r["event"] == "attempt"]) == 4
    and all(10 <= r["delaySeconds"] <= 20 for r in d["records"] if r["event"] == "attempt" and r["attempt"] > 1)
    and d["records"][-1]["event"] == "dead-lettered")'
expect_eq "dead-letter queue" body "$(bodies "$DLQ_URL")" "order-1"
ok "BACKOFF_RETRY: 4 attempts, raw body dead-lettered"

# --- ErrorsTolerance NONE: blocked, nothing lost, restart in order -------------------------------
out=$(awsj eventsv2 update-event-stream --event-stream-arn "$STREAM" \
    --run-options '{"ErrorsTolerance": "NONE"}') || fail "update-event-stream: aws exited non-zero"
for n in 1 2 3; do
    awsj sqs send-message --queue-url "$SRC_URL" --message-body "m$n" >/dev/null || fail "send-message"
done
advance 100
out=$(awsj eventsv2 get-event-stream --event-stream-arn "$STREAM") || fail "get-event-stream"
jcheck "blocked stream" 'd["State"] == "READY" and "ErrorsTolerance is NONE" in d["StateReason"]' <<<"$out"
awsj sqs get-queue-attributes --queue-url "$SRC_URL" --attribute-names ApproximateNumberOfMessages \
    | jcheck "messages kept in the source" 'd["Attributes"]["ApproximateNumberOfMessages"] == "3"'
ok "ErrorsTolerance NONE: READY, 3 messages still in the source"

control "faults/$fault_id" "" DELETE >/dev/null
awsj eventsv2 start-event-stream --event-stream-arn "$STREAM" | jcheck start-event-stream 'd["State"] == "STARTING"'
advance 0
awsj eventsv2 get-event-stream --event-stream-arn "$STREAM" | jcheck "restarted" 'd["State"] == "RUNNING"'
expect_eq "target after restart" bodies "$(bodies "$(awsj sqs get-queue-url --queue-name cli-stream-out | jget QueueUrl)")" "m1,m2,m3"
ok "start-event-stream: m1, m2, m3 delivered in order"

# --- A missing target: START_FAILED; a missing source: ResourceNotFoundException ----------------
out=$(awsj eventsv2 create-event-stream --name cli-orphan --source "$SRC" \
    --target "{\"TargetArn\": \"arn:aws:sqs:us-east-1:$ACCOUNT:cli-nowhere\", \"RoleArn\": \"$ROLE_ARN\"}") \
    || fail "create-event-stream cli-orphan: aws exited non-zero"
awsj eventsv2 get-event-stream --event-stream-arn "$(jget EventStreamArn <<<"$out")" \
    | jcheck "missing target" 'd["State"] == "START_FAILED" and "cli-nowhere" in d["StateReason"]'
ok "missing target: START_FAILED"

if err=$(awsj eventsv2 create-event-stream --name cli-nosource \
    --source "arn:aws:sqs:us-east-1:$ACCOUNT:cli-no-such-queue" \
    --target "{\"TargetArn\": \"$OUT\", \"RoleArn\": \"$ROLE_ARN\"}" 2>&1); then
    fail "create-event-stream with a missing source succeeded: $err"
fi
[[ "$err" == *ResourceNotFoundException* ]] || fail "missing source: expected ResourceNotFoundException, got: $err"
ok "missing source: ResourceNotFoundException"

for arn in "$STREAM" "arn:aws:events:us-east-1:$ACCOUNT:event-stream/cli-orphan"; do
    awsj eventsv2 delete-event-stream --event-stream-arn "$arn" >/dev/null || fail "delete-event-stream"
done
ok "delete-event-stream"
