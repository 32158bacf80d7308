#!/usr/bin/env bash
# EventBridge end to end through the AWS CLI v1 (AWS JSON 1.1, the CLI's own model): a custom bus,
# a rule with an event pattern, an SQS target with a retry policy and a dead-letter queue, an event
# received from the queue as the exact envelope, then the same target failing on purpose (a fault)
# until the event lands in the DLQ with AWS's attributes; list-rules, describe-rule,
# list-targets-by-rule, remove-targets, delete-rule and delete-event-bus.
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BUS=cli-orders
RULE=cli-orders-placed
QUEUE=cli-orders-events
DLQ=cli-orders-events-dlq
bus_arn_expected="arn:aws:events:us-east-1:$ACCOUNT:event-bus/$BUS"
rule_arn_expected="arn:aws:events:us-east-1:$ACCOUNT:rule/$BUS/$RULE"
PATTERN='{"source": ["cli.shop"], "detail-type": ["OrderPlaced"]}'

# control METHOD PATH [JSON BODY]: calls /_switchyard/PATH and prints the JSON answer.
control() {
    python3 -c '
import json, sys, urllib.request
method, url, body = sys.argv[1], sys.argv[2], sys.argv[3]
request = urllib.request.Request(url, data=body.encode() if body else None, method=method,
                                 headers={"Content-Type": "application/json"})
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
with opener.open(request, timeout=60) as response:
    print(response.read().decode())
' "$1" "$SWITCHYARD_URL/_switchyard/$2" "${3:-}" || fail "$1 /_switchyard/$2 failed"
}

queue_arn_of() {
    local out
    out=$(awsj sqs get-queue-attributes --queue-url "$1" --attribute-names QueueArn) \
        || fail "get-queue-attributes: aws exited non-zero"
    jget Attributes QueueArn <<<"$out"
}

# --- the bus, the queues, the rule and its target -------------------------------------------------
out=$(awsj events create-event-bus --name "$BUS") || fail "create-event-bus: aws exited non-zero"
expect_eq create-event-bus EventBusArn "$(jget EventBusArn <<<"$out")" "$bus_arn_expected"
if err=$(awsj events create-event-bus --name "$BUS" 2>&1 >/dev/null); then
    fail "create-event-bus again: expected ResourceAlreadyExistsException, it succeeded"
fi
[[ "$err" == *"(ResourceAlreadyExistsException)"*"Event bus $BUS already exists."* ]] \
    || fail "create-event-bus again: expected ResourceAlreadyExistsException, got: $err"
out=$(awsj events describe-event-bus --name "$BUS") || fail "describe-event-bus: aws exited non-zero"
jcheck describe-event-bus "d['Name'] == '$BUS' and d['Arn'] == '$bus_arn_expected' and 'Policy' not in d" <<<"$out"
ok "create-event-bus, describe-event-bus"

queue_url=$(awsj sqs create-queue --queue-name "$QUEUE" | jget QueueUrl) || fail "create-queue: aws exited non-zero"
dlq_url=$(awsj sqs create-queue --queue-name "$DLQ" | jget QueueUrl) || fail "create-queue (DLQ): aws exited non-zero"
queue_arn=$(queue_arn_of "$queue_url")
dlq_arn=$(queue_arn_of "$dlq_url")
expect_eq create-queue QueueArn "$queue_arn" "arn:aws:sqs:us-east-1:$ACCOUNT:$QUEUE"
ok "create-queue (target and dead-letter queue)"

out=$(awsj events put-rule --name "$RULE" --event-bus-name "$BUS" --event-pattern "$PATTERN" \
    --description 'orders placed in the CLI shop') || fail "put-rule: aws exited non-zero"
expect_eq put-rule RuleArn "$(jget RuleArn <<<"$out")" "$rule_arn_expected"
ok "put-rule --event-pattern"

targets='[{"Id": "to-queue", "Arn": "'"$queue_arn"'",
           "RetryPolicy": {"MaximumRetryAttempts": 2, "MaximumEventAgeInSeconds": 3600},
           "DeadLetterConfig": {"Arn": "'"$dlq_arn"'"}}]'
out=$(awsj events put-targets --rule "$RULE" --event-bus-name "$BUS" --targets "$targets") \
    || fail "put-targets: aws exited non-zero"
jcheck put-targets "d['FailedEntryCount'] == 0 and d['FailedEntries'] == []" <<<"$out"
out=$(awsj events list-targets-by-rule --rule "$RULE" --event-bus-name "$BUS") \
    || fail "list-targets-by-rule: aws exited non-zero"
jcheck list-targets-by-rule "d['Targets'] == [{'Id': 'to-queue', 'Arn': '$queue_arn',
    'RetryPolicy': {'MaximumRetryAttempts': 2, 'MaximumEventAgeInSeconds': 3600},
    'DeadLetterConfig': {'Arn': '$dlq_arn'}}]" <<<"$out"
ok "put-targets (SQS, retry policy, DLQ), list-targets-by-rule"

# --- an event, received as the envelope -----------------------------------------------------------
entries='[{"Source": "cli.shop", "DetailType": "OrderPlaced", "EventBusName": "'"$BUS"'",
           "Resources": ["arn:aws:cli-shop:::order/o-1"], "Detail": "{\"order\": \"o-1\", \"total\": 12.5}"},
          {"Source": "cli.shop", "DetailType": "OrderCancelled", "EventBusName": "'"$BUS"'", "Detail": "{}"}]'
now=$(control GET clock | jget epochMillis)
out=$(awsj events put-events --entries "$entries") || fail "put-events: aws exited non-zero"
jcheck put-events "d['FailedEntryCount'] == 0 and len(d['Entries']) == 2" <<<"$out"
event_id=$(jget Entries 0 EventId <<<"$out")
[[ -n "$event_id" ]] || fail "put-events: no EventId in $out"
advance 0
ok "put-events"

out=$(awsj sqs receive-message --queue-url "$queue_url" --max-number-of-messages 10 --wait-time-seconds 0) \
    || fail "receive-message: aws exited non-zero"
jcheck "receive-message" "len(d['Messages']) == 1" <<<"$out" # OrderCancelled matched no rule
body=$(jget Messages 0 Body <<<"$out")
jcheck "envelope key order" "list(d) == ['version', 'id', 'detail-type', 'source', 'account', 'time', 'region', 'resources', 'detail']" <<<"$body"
jcheck "envelope" "d['version'] == '0' and d['id'] == '$event_id' and d['detail-type'] == 'OrderPlaced'" <<<"$body"
jcheck "envelope" "d['source'] == 'cli.shop' and d['account'] == '$ACCOUNT' and d['region'] == 'us-east-1'" <<<"$body"
jcheck "envelope" "d['resources'] == ['arn:aws:cli-shop:::order/o-1'] and d['detail'] == {'order': 'o-1', 'total': 12.5}" <<<"$body"
# `time` is the virtual clock's, in whole seconds.
jcheck "envelope time" "d['time'] == __import__('datetime').datetime.fromtimestamp($now // 1000, __import__('datetime').timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')" <<<"$body"
receipt_handle=$(jget Messages 0 ReceiptHandle <<<"$out")
awsj sqs delete-message --queue-url "$queue_url" --receipt-handle "$receipt_handle" >/dev/null \
    || fail "delete-message: aws exited non-zero"
ok "receive-message (the event envelope)"

# --- the target fails: 1 attempt + 2 retries, then the dead-letter queue ---------------------------
fault_id=$(control POST faults '{"target": "'"$queue_arn"'", "status": 500}' | jget id)
[[ -n "$fault_id" ]] || fail "POST /_switchyard/faults: no id"
out=$(awsj events put-events --entries '[{"Source": "cli.shop", "DetailType": "OrderPlaced", "EventBusName": "'"$BUS"'", "Detail": "{\"order\": \"o-2\"}"}]') \
    || fail "put-events (failing target): aws exited non-zero"
failing_id=$(jget Entries 0 EventId <<<"$out")
advance 600
control DELETE "faults/$fault_id" >/dev/null
log=$(control GET "deliveries?source=$rule_arn_expected%23to-queue&messageId=$failing_id")
jcheck "delivery log" "[(r['event'], r.get('attempt'), r.get('outcome')) for r in d['records']] == [('attempt', 1, 'retryable'), ('attempt', 2, 'retryable'), ('attempt', 3, 'retryable'), ('dead-lettered', 3, None)]" <<<"$log"
out=$(awsj sqs receive-message --queue-url "$dlq_url" --message-attribute-names All --wait-time-seconds 0) \
    || fail "receive-message (DLQ): aws exited non-zero"
jcheck "DLQ message" "len(d['Messages']) == 1" <<<"$out"
jcheck "DLQ body" "d['id'] == '$failing_id' and d['detail'] == {'order': 'o-2'}" <<<"$(jget Messages 0 Body <<<"$out")"
attributes=$(jget Messages 0 MessageAttributes <<<"$out")
jcheck "DLQ attributes" "sorted(d) == ['ERROR_CODE', 'ERROR_MESSAGE', 'EXHAUSTED_RETRY_CONDITION', 'RETRY_ATTEMPTS', 'RULE_ARN', 'TARGET_ARN']" <<<"$attributes"
jcheck "DLQ attributes" "d['RULE_ARN']['StringValue'] == '$rule_arn_expected' and d['TARGET_ARN']['StringValue'] == '$queue_arn'" <<<"$attributes"
jcheck "DLQ attributes" "d['EXHAUSTED_RETRY_CONDITION']['StringValue'] == 'MaximumRetryAttempts' and d['RETRY_ATTEMPTS']['StringValue'] == '2'" <<<"$attributes"
out=$(awsj sqs receive-message --queue-url "$queue_url" --wait-time-seconds 0) \
    || fail "receive-message after the fault: aws exited non-zero"
[[ -z "$(jget Messages 0 <<<"$out")" ]] || fail "the failing target received the event anyway: $out"
ok "retry policy exhausted: 3 attempts, then the DLQ with RULE_ARN/TARGET_ARN/ERROR_*/EXHAUSTED_RETRY_CONDITION/RETRY_ATTEMPTS"

# --- listing, describing, tearing down --------------------------------------------------------------
out=$(awsj events list-rules --event-bus-name "$BUS") || fail "list-rules: aws exited non-zero"
jcheck list-rules "[(r['Name'], r['Arn'], r['State'], r['EventBusName']) for r in d['Rules']] == [('$RULE', '$rule_arn_expected', 'ENABLED', '$BUS')]" <<<"$out"
jcheck list-rules "__import__('json').loads(d['Rules'][0]['EventPattern']) == {'source': ['cli.shop'], 'detail-type': ['OrderPlaced']}" <<<"$out"
out=$(awsj events list-rules --event-bus-name "$BUS" --name-prefix nothing-) || fail "list-rules --name-prefix: aws exited non-zero"
jcheck "list-rules --name-prefix" "d['Rules'] == []" <<<"$out"
out=$(awsj events describe-rule --name "$RULE" --event-bus-name "$BUS") || fail "describe-rule: aws exited non-zero"
jcheck describe-rule "d['Name'] == '$RULE' and d['Arn'] == '$rule_arn_expected' and d['EventBusName'] == '$BUS'" <<<"$out"
jcheck describe-rule "d['State'] == 'ENABLED' and d['Description'] == 'orders placed in the CLI shop' and d['CreatedBy'] == '$ACCOUNT'" <<<"$out"
ok "list-rules, describe-rule"

if err=$(awsj events delete-rule --name "$RULE" --event-bus-name "$BUS" 2>&1 >/dev/null); then
    fail "delete-rule with a target: expected ValidationException, it succeeded"
fi
[[ "$err" == *"(ValidationException)"*"Rule can't be deleted since it has targets."* ]] \
    || fail "delete-rule with a target: expected ValidationException, got: $err"
out=$(awsj events remove-targets --rule "$RULE" --event-bus-name "$BUS" --ids to-queue) \
    || fail "remove-targets: aws exited non-zero"
jcheck remove-targets "d['FailedEntryCount'] == 0" <<<"$out"
out=$(awsj events list-targets-by-rule --rule "$RULE" --event-bus-name "$BUS") \
    || fail "list-targets-by-rule after remove-targets: aws exited non-zero"
jcheck "list-targets-by-rule after remove-targets" "d['Targets'] == []" <<<"$out"
ok "remove-targets"

awsj events delete-rule --name "$RULE" --event-bus-name "$BUS" >/dev/null || fail "delete-rule: aws exited non-zero"
if err=$(awsj events describe-rule --name "$RULE" --event-bus-name "$BUS" 2>&1 >/dev/null); then
    fail "describe-rule after delete-rule: expected ResourceNotFoundException, it succeeded"
fi
[[ "$err" == *"(ResourceNotFoundException)"*"Rule $RULE does not exist on EventBus $BUS."* ]] \
    || fail "describe-rule after delete-rule: expected ResourceNotFoundException, got: $err"
ok "delete-rule"

awsj events delete-event-bus --name "$BUS" >/dev/null || fail "delete-event-bus: aws exited non-zero"
if err=$(awsj events describe-event-bus --name "$BUS" 2>&1 >/dev/null); then
    fail "describe-event-bus after delete-event-bus: expected ResourceNotFoundException, it succeeded"
fi
[[ "$err" == *"(ResourceNotFoundException)"*"Event bus $BUS does not exist."* ]] \
    || fail "describe-event-bus after delete-event-bus: expected ResourceNotFoundException, got: $err"
out=$(awsj events list-event-buses) || fail "list-event-buses: aws exited non-zero"
jcheck "list-event-buses after delete-event-bus" "'$BUS' not in [b['Name'] for b in d['EventBuses']] and 'default' in [b['Name'] for b in d['EventBuses']]" <<<"$out"
ok "delete-event-bus"

awsj sqs delete-queue --queue-url "$queue_url" >/dev/null || fail "delete-queue: aws exited non-zero"
awsj sqs delete-queue --queue-url "$dlq_url" >/dev/null || fail "delete-queue (DLQ): aws exited non-zero"
