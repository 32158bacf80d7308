#!/usr/bin/env bash
# EventBridge archives, replays, connections and API destinations through the AWS CLI v1 (AWS JSON
# 1.1, the CLI's own model): create-archive on a custom bus, put-events (with an explicit Time),
# describe-archive counting it, the archive's managed rule in list-rules, start-replay of a window
# that holds it, the virtual clock advanced until describe-replay says COMPLETED, and the replayed
# event received from the rule's SQS queue with `replay-name` right after `region`; then
# create-connection (API_KEY), create-api-destination, describe-connection without the key's
# value, describe-api-destination, and both deleted.
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BUS=cli-archive-orders
ARCHIVE=cli-orders-archive
RULE=cli-archive-orders-rule
QUEUE=cli-archive-orders-events
REPLAY=cli-orders-replay
CONNECTION=cli-partner
DESTINATION=cli-partner-api
bus_arn="arn:aws:events:us-east-1:$ACCOUNT:event-bus/$BUS"
archive_arn_expected="arn:aws:events:us-east-1:$ACCOUNT:archive/$ARCHIVE"
replay_arn_expected="arn:aws:events:us-east-1:$ACCOUNT:replay/$REPLAY"
PATTERN='{"source": ["cli.shop"]}'

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

# iso MILLIS: an instant as ISO 8601 UTC, whole seconds (what the CLI takes for a timestamp).
iso() {
    python3 -c '
import datetime, sys
print(datetime.datetime.fromtimestamp(int(sys.argv[1]) // 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
' "$1"
}

# --- the bus, its archive, a rule with an SQS target ----------------------------------------------
awsj events create-event-bus --name "$BUS" >/dev/null || fail "create-event-bus: aws exited non-zero"
queue_url=$(awsj sqs create-queue --queue-name "$QUEUE" | jget QueueUrl) || fail "create-queue: aws exited non-zero"
queue_arn="arn:aws:sqs:us-east-1:$ACCOUNT:$QUEUE"
awsj events put-rule --name "$RULE" --event-bus-name "$BUS" --event-pattern "$PATTERN" >/dev/null \
    || fail "put-rule: aws exited non-zero"
out=$(awsj events put-targets --rule "$RULE" --event-bus-name "$BUS" \
    --targets '[{"Id": "to-queue", "Arn": "'"$queue_arn"'"}]') || fail "put-targets: aws exited non-zero"
jcheck put-targets "d['FailedEntryCount'] == 0" <<<"$out"

out=$(awsj events create-archive --archive-name "$ARCHIVE" --event-source-arn "$bus_arn" \
    --event-pattern "$PATTERN" --retention-days 7 --description 'CLI orders') \
    || fail "create-archive: aws exited non-zero"
jcheck create-archive "d['ArchiveArn'] == '$archive_arn_expected' and d['State'] == 'ENABLED' and 'CreationTime' in d" <<<"$out"
if err=$(awsj events create-archive --archive-name "$ARCHIVE" --event-source-arn "$bus_arn" 2>&1 >/dev/null); then
    fail "create-archive again: expected ResourceAlreadyExistsException, it succeeded"
fi
[[ "$err" == *"(ResourceAlreadyExistsException)"*"Archive $ARCHIVE already exists."* ]] \
    || fail "create-archive again: expected ResourceAlreadyExistsException, got: $err"
out=$(awsj events list-rules --event-bus-name "$BUS") || fail "list-rules: aws exited non-zero"
jcheck "list-rules (managed rule)" "[(r['Name'], r.get('ManagedBy')) for r in d['Rules']] == [('Events-Archive-$ARCHIVE', 'prod.vhs.events.aws.internal'), ('$RULE', None)]" <<<"$out"
ok "create-archive (with its managed rule Events-Archive-$ARCHIVE)"

# --- an event ten minutes back in event time, archived ---------------------------------------------
now=$(control GET clock | jget epochMillis)
base=$(((now / 60000 - 10) * 60000))
event_ms=$((base + 30000))
entries='[{"Source": "cli.shop", "DetailType": "OrderPlaced", "EventBusName": "'"$BUS"'", "Time": "'"$(iso "$event_ms")"'",
           "Detail": "{\"order\": \"o-1\"}"},
          {"Source": "cli.other", "DetailType": "Ignored", "EventBusName": "'"$BUS"'", "Detail": "{}"}]'
out=$(awsj events put-events --entries "$entries") || fail "put-events: aws exited non-zero"
jcheck put-events "d['FailedEntryCount'] == 0" <<<"$out"
event_id=$(jget Entries 0 EventId <<<"$out")
advance 0
out=$(awsj sqs receive-message --queue-url "$queue_url" --max-number-of-messages 10 --wait-time-seconds 0) \
    || fail "receive-message: aws exited non-zero"
jcheck "receive-message (the original)" "len(d['Messages']) == 1" <<<"$out"
original=$(jget Messages 0 Body <<<"$out")
jcheck "original event" "d['id'] == '$event_id' and d['time'] == '$(iso "$event_ms")' and 'replay-name' not in d" <<<"$original"
awsj sqs delete-message --queue-url "$queue_url" --receipt-handle "$(jget Messages 0 ReceiptHandle <<<"$out")" >/dev/null \
    || fail "delete-message: aws exited non-zero"

out=$(awsj events describe-archive --archive-name "$ARCHIVE") || fail "describe-archive: aws exited non-zero"
jcheck describe-archive "d['ArchiveArn'] == '$archive_arn_expected' and d['EventSourceArn'] == '$bus_arn' and d['State'] == 'ENABLED'" <<<"$out"
jcheck describe-archive "d['EventCount'] == 1 and d['SizeBytes'] == len('''$original'''.encode()) and d['RetentionDays'] == 7" <<<"$out"
jcheck describe-archive "__import__('json').loads(d['EventPattern']) == {'source': ['cli.shop']} and d['Description'] == 'CLI orders'" <<<"$out"
ok "put-events, describe-archive (EventCount 1, SizeBytes, RetentionDays 7)"

# --- the replay ----------------------------------------------------------------------------------
out=$(awsj events start-replay --replay-name "$REPLAY" --event-source-arn "$archive_arn_expected" \
    --event-start-time "$(iso "$base")" --event-end-time "$(iso $((base + 60000)))" \
    --destination '{"Arn": "'"$bus_arn"'"}') || fail "start-replay: aws exited non-zero"
jcheck start-replay "d['ReplayArn'] == '$replay_arn_expected' and d['State'] == 'STARTING'" <<<"$out"
out=$(awsj events describe-replay --replay-name "$REPLAY") || fail "describe-replay: aws exited non-zero"
jcheck "describe-replay (at start)" "d['State'] == 'STARTING' and d['EventSourceArn'] == '$archive_arn_expected' and d['Destination'] == {'Arn': '$bus_arn'}" <<<"$out"
advance 1
out=$(awsj events describe-replay --replay-name "$REPLAY") || fail "describe-replay: aws exited non-zero"
jcheck "describe-replay (1 s on)" "d['State'] == 'RUNNING'" <<<"$out"
advance 1
out=$(awsj events describe-replay --replay-name "$REPLAY") || fail "describe-replay: aws exited non-zero"
jcheck "describe-replay (2 s on)" "d['State'] == 'COMPLETED' and 'ReplayEndTime' in d and 'EventLastReplayedTime' in d" <<<"$out"
ok "start-replay, describe-replay: STARTING, RUNNING, COMPLETED on the virtual clock"

out=$(awsj sqs receive-message --queue-url "$queue_url" --max-number-of-messages 10 --wait-time-seconds 0) \
    || fail "receive-message (replayed): aws exited non-zero"
jcheck "receive-message (the replay)" "len(d['Messages']) == 1" <<<"$out"
replayed=$(jget Messages 0 Body <<<"$out")
jcheck "replayed event key order" "list(d) == ['version', 'id', 'detail-type', 'source', 'account', 'time', 'region', 'replay-name', 'resources', 'detail']" <<<"$replayed"
jcheck "replayed event" "d['replay-name'] == '$REPLAY' and d['id'] == '$event_id' and d['detail'] == {'order': 'o-1'}" <<<"$replayed"
jcheck "replayed event" "{k: v for k, v in d.items() if k != 'replay-name'} == __import__('json').loads('''$original''')" <<<"$replayed"
awsj sqs delete-message --queue-url "$queue_url" --receipt-handle "$(jget Messages 0 ReceiptHandle <<<"$out")" >/dev/null \
    || fail "delete-message: aws exited non-zero"
out=$(awsj events describe-archive --archive-name "$ARCHIVE") || fail "describe-archive: aws exited non-zero"
jcheck "describe-archive after the replay" "d['EventCount'] == 1" <<<"$out" # replays are not archived again
out=$(awsj events list-replays --name-prefix cli-) || fail "list-replays: aws exited non-zero"
jcheck list-replays "[(r['ReplayName'], r['State']) for r in d['Replays']] == [('$REPLAY', 'COMPLETED')]" <<<"$out"
ok "the replayed event from SQS, with replay-name after region; list-replays"

# --- tear down -------------------------------------------------------------------------------------
awsj events delete-archive --archive-name "$ARCHIVE" >/dev/null || fail "delete-archive: aws exited non-zero"
if err=$(awsj events describe-archive --archive-name "$ARCHIVE" 2>&1 >/dev/null); then
    fail "describe-archive after delete-archive: expected ResourceNotFoundException, it succeeded"
fi
[[ "$err" == *"(ResourceNotFoundException)"*"Archive $ARCHIVE does not exist."* ]] \
    || fail "describe-archive after delete-archive: expected ResourceNotFoundException, got: $err"
awsj events remove-targets --rule "$RULE" --event-bus-name "$BUS" --ids to-queue >/dev/null \
    || fail "remove-targets: aws exited non-zero"
awsj events delete-rule --name "$RULE" --event-bus-name "$BUS" >/dev/null || fail "delete-rule: aws exited non-zero"
awsj events delete-event-bus --name "$BUS" >/dev/null || fail "delete-event-bus: aws exited non-zero"
awsj sqs delete-queue --queue-url "$queue_url" >/dev/null || fail "delete-queue: aws exited non-zero"
ok "delete-archive (and the bus, rule and queue)"

# --- a connection and an API destination -----------------------------------------------------------
out=$(awsj events create-connection --name "$CONNECTION" --authorization-type API_KEY \
    --auth-parameters '{"ApiKeyAuthParameters": {"ApiKeyName": "x-api-key", "ApiKeyValue": "cli-key-secret"}}') \
    || fail "create-connection: aws exited non-zero"
jcheck create-connection "d['ConnectionState'] == 'AUTHORIZED' and d['ConnectionArn'].startswith('arn:aws:events:us-east-1:$ACCOUNT:connection/$CONNECTION/')" <<<"$out"
connection_arn=$(jget ConnectionArn <<<"$out")
out=$(awsj events describe-connection --name "$CONNECTION") || fail "describe-connection: aws exited non-zero"
jcheck describe-connection "d['AuthParameters'] == {'ApiKeyAuthParameters': {'ApiKeyName': 'x-api-key'}}" <<<"$out"
jcheck describe-connection "d['AuthorizationType'] == 'API_KEY' and d['ConnectionState'] == 'AUTHORIZED' and d['ConnectionArn'] == '$connection_arn'" <<<"$out"
jcheck describe-connection "d['SecretArn'].startswith('arn:aws:secretsmanager:us-east-1:$ACCOUNT:secret:events!connection/$CONNECTION/')" <<<"$out"
[[ "$out" != *cli-key-secret* ]] || fail "describe-connection shows the API key's value: $out"
ok "create-connection (API_KEY), describe-connection without the key's value"

# Through --cli-input-json: the v1 CLI fetches any parameter value that starts with https:// (its
# cli_follow_urlparam setting), so the endpoint cannot be given as --invocation-endpoint.
request='{"Name": "'"$DESTINATION"'", "ConnectionArn": "'"$connection_arn"'",
          "InvocationEndpoint": "https://partner.example.com/orders/*", "HttpMethod": "POST",
          "InvocationRateLimitPerSecond": 5}'
out=$(awsj events create-api-destination --cli-input-json "$request") \
    || fail "create-api-destination: aws exited non-zero"
jcheck create-api-destination "d['ApiDestinationState'] == 'ACTIVE' and d['ApiDestinationArn'].startswith('arn:aws:events:us-east-1:$ACCOUNT:api-destination/$DESTINATION/')" <<<"$out"
destination_arn=$(jget ApiDestinationArn <<<"$out")
out=$(awsj events describe-api-destination --name "$DESTINATION") || fail "describe-api-destination: aws exited non-zero"
jcheck describe-api-destination "d['ApiDestinationArn'] == '$destination_arn' and d['ConnectionArn'] == '$connection_arn' and d['ApiDestinationState'] == 'ACTIVE'" <<<"$out"
jcheck describe-api-destination "d['InvocationEndpoint'] == 'https://partner.example.com/orders/*' and d['HttpMethod'] == 'POST' and d['InvocationRateLimitPerSecond'] == 5" <<<"$out"
ok "create-api-destination, describe-api-destination"

awsj events delete-api-destination --name "$DESTINATION" >/dev/null || fail "delete-api-destination: aws exited non-zero"
if err=$(awsj events describe-api-destination --name "$DESTINATION" 2>&1 >/dev/null); then
    fail "describe-api-destination after delete: expected ResourceNotFoundException, it succeeded"
fi
[[ "$err" == *"(ResourceNotFoundException)"*"Failed to describe the api-destination(s). An api-destination '$DESTINATION' does not exist."* ]] \
    || fail "describe-api-destination after delete: expected ResourceNotFoundException, got: $err"
out=$(awsj events delete-connection --name "$CONNECTION") || fail "delete-connection: aws exited non-zero"
jcheck delete-connection "d['ConnectionState'] == 'DELETING' and d['ConnectionArn'] == '$connection_arn'" <<<"$out"
if err=$(awsj events describe-connection --name "$CONNECTION" 2>&1 >/dev/null); then
    fail "describe-connection after delete: expected ResourceNotFoundException, it succeeded"
fi
[[ "$err" == *"(ResourceNotFoundException)"*"Failed to describe the connection(s). Connection '$CONNECTION' does not exist."* ]] \
    || fail "describe-connection after delete: expected ResourceNotFoundException, got: $err"
ok "delete-api-destination, delete-connection"
