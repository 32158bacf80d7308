#!/usr/bin/env bash
# The custom event bus through the AWS CLI v1 with the model switchyard ships (`aws configure
# add-model` into a throwaway HOME), ending in the redrive walk-through of
# docs/custom-bus.md ("Redrive walk-through"), whose `aws eventsv2 create-subscriber ...`
# example runs word for word (with --endpoint-url).
#
# How the example can run word for word: it names account 111122223333, so the CLI uses the access
# key 111122223333 (switchyard takes a 12-digit key as the account); its bus ARN ends in the id
# EXAMPLE1234567890abcdef, so the bus is created with the tag switchyard:id=EXAMPLE1234567890abcdef,
# which pins the generated id; its window (18:40:00Z to 18:41:00Z on 2026-09-16) holds the two
# failing events, published with those Times. Its filter names the placeholder event ids of the
# spec ("a1b2c3d4-..."), which no real event has: the word-for-word run creates the subscriber and
# delivers nothing, as it should. The same command with the real ids from the record then
# delivers exactly the two failed events, marked REPLAY.
#
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# docs/custom-bus.md ("Redrive walk-through"), exactly as printed there (compat/tests/test_eventsv2_model.py
# checks that the spec still says this).
EXAMPLE=$(cat <<'EOF'
aws eventsv2 create-subscriber \
    --name redrive-2026-09-16 \
    --event-bus-arn arn:aws:events:us-east-1:111122223333:event-busv2/orders/EXAMPLE1234567890abcdef \
    --starting-position POINT_IN_TIME \
    --point-in-time-configuration '{ "PointType": "TIMESTAMP", "StartingPoint": "2026-09-16T18:40:00Z", "EndPoint": "2026-09-16T18:41:00Z" }' \
    --filter-configuration '{ "Filters": [ { "Scope": "SYSTEM_METADATA", "Pattern": "{\"aws:EventId\":[\"a1b2c3d4-...\",\"e5f6a7b8-...\"]}" } ] }' \
    --invoke-configuration '{ "TargetArn": "arn:aws:sqs:us-east-1:111122223333:large-orders", "RoleArn": "arn:aws:iam::111122223333:role/EventBusDeliveryRole" }'
EOF
)

CLI_HOME=$(mktemp -d)
trap 'rm -rf "$CLI_HOME"' EXIT
export HOME="$CLI_HOME"
export AWS_ACCESS_KEY_ID=111122223333
OWNER=111122223333
BUS_ARN="arn:aws:events:us-east-1:$OWNER:event-busv2/orders/EXAMPLE1234567890abcdef"
QUEUE_ARN="arn:aws:sqs:us-east-1:$OWNER:large-orders"
DLQ_ARN="arn:aws:sqs:us-east-1:$OWNER:large-orders-dlq"
ROLE_ARN="arn:aws:iam::$OWNER:role/EventBusDeliveryRole"

# POST /_switchyard/<path> with a JSON body; prints the answer.
control_post() {
    python3 -c '
import sys, urllib.request
request = urllib.request.Request(sys.argv[1] + "/_switchyard/" + sys.argv[2], data=sys.argv[3].encode(),
                                 headers={"Content-Type": "application/json"}, method=sys.argv[4])
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
with opener.open(request, timeout=60) as response:
    print(response.read().decode())
' "$SWITCHYARD_URL" "$1" "${2:-}" "${3:-POST}" || fail "$3 /_switchyard/$1 failed"
}

# Receives and deletes every message of a queue; prints them as a JSON list.
drain() {
    local url=$1 all='[]' out
    while :; do
        out=$(awsj sqs receive-message --queue-url "$url" --max-number-of-messages 10 \
            --message-attribute-names All --wait-time-seconds 0) || fail "receive-message: aws exited non-zero"
        [[ -n "$(jget Messages 0 <<<"$out")" ]] || break
        while read -r handle; do
            awsj sqs delete-message --queue-url "$url" --receipt-handle "$handle" >/dev/null \
                || fail "delete-message: aws exited non-zero"
        done < <(python3 -c 'import json,sys; [print(m["ReceiptHandle"]) for m in json.load(sys.stdin)["Messages"]]' <<<"$out")
        all=$(python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1]) + json.loads(sys.argv[2])["Messages"]))' "$all" "$out")
    done
    echo "$all"
}

aws configure add-model --service-model file://compat/models/eventsv2/2025-05-15/service-2.json \
    --service-name eventsv2 || fail "configure add-model: aws exited non-zero"
[[ -f "$HOME/.aws/models/eventsv2/2025-05-15/service-2.json" ]] || fail "add-model wrote no model"
ok "aws configure add-model (HOME=$HOME)"

out=$(awsj sqs create-queue --queue-name large-orders) || fail "create-queue: aws exited non-zero"
queue_url=$(jget QueueUrl <<<"$out")
out=$(awsj sqs create-queue --queue-name large-orders-dlq) || fail "create-queue dlq: aws exited non-zero"
dlq_url=$(jget QueueUrl <<<"$out")
[[ "$queue_url" == *"/$OWNER/large-orders" ]] || fail "create-queue: $queue_url is not in account $OWNER"
ok "queues large-orders and large-orders-dlq in account $OWNER"

out=$(awsj eventsv2 create-event-bus --name orders \
    --tags '[{"Key": "switchyard:id", "Value": "EXAMPLE1234567890abcdef"}]') || fail "create-event-bus: aws exited non-zero"
expect_eq create-event-bus EventBusArn "$(jget EventBusArn <<<"$out")" "$BUS_ARN"
out=$(awsj eventsv2 get-event-bus --event-bus-arn "$BUS_ARN") || fail "get-event-bus: aws exited non-zero"
jcheck get-event-bus "d['Name'] == 'orders' and d['State'] == 'ACTIVE'" <<<"$out"
ok "create-event-bus (the spec's bus ARN)"

out=$(awsj eventsv2 create-subscriber --name large-orders --event-bus-arn "$BUS_ARN" \
    --invoke-configuration "{\"TargetArn\": \"$QUEUE_ARN\", \"RoleArn\": \"$ROLE_ARN\", \"MaxBatchSize\": 2}" \
    --on-failure-configuration "Arn=$DLQ_ARN") || fail "create-subscriber: aws exited non-zero"
sub_arn=$(jget SubscriberArn <<<"$out")
[[ "$sub_arn" == "arn:aws:events:us-east-1:$OWNER:subscriber/large-orders/"* ]] || fail "create-subscriber: $out"
out=$(awsj eventsv2 get-subscriber --subscriber-arn "$sub_arn") || fail "get-subscriber: aws exited non-zero"
jcheck get-subscriber "d['RetryPolicy'] == {'MaxRetryAttempts': 5, 'MaxEventAgeInSeconds': 300, 'RetryStrategy': 'ALL'} and d['Type'] == 'UNORDERED'" <<<"$out"
ok "create-subscriber large-orders (defaults: 5 retries, 300 s)"

# The outage: the delivery role may not send to the queue (ACCESS_DENIED), for every attempt.
control_post faults "{\"target\": \"$QUEUE_ARN\", \"status\": 403, \"errorCode\": \"ACCESS_DENIED\"}" >/dev/null
out=$(awsj eventsv2 put-events --event-bus-arn "$BUS_ARN" --entries '[
    {"Source": "com.example.orders", "DetailType": "OrderPlaced", "Detail": "{\"orderId\": 1001}", "Time": "2026-09-16T18:40:12Z", "SystemMetadata": {"EventGroupId": "order-1001"}},
    {"Source": "com.example.orders", "DetailType": "OrderPlaced", "Detail": "{\"orderId\": 1001, \"line\": 2}", "Time": "2026-09-16T18:40:13Z", "SystemMetadata": {"EventGroupId": "order-1001"}}
]') || fail "put-events: aws exited non-zero"
jcheck put-events "d['FailedEntryCount'] == 0 and [e['SuccessCode'] for e in d['Entries']] == ['PUBLISHED', 'PUBLISHED']" <<<"$out"
ids=$(python3 -c 'import json,sys; print(" ".join(e["EventId"] for e in json.load(sys.stdin)["Entries"]))' <<<"$out")
advance 400
ok "put-events (two events failing together)"

# 1. Read the records: event ids, earliest and latest timestamps.
records=$(drain "$dlq_url")
jcheck "dead-letter records" "len(d) == 1" <<<"$records"
record=$(jget 0 Body <<<"$records")
jcheck "dead-letter record" "d['version'] == '1.0' and d['busArn'] == '$BUS_ARN' and d['subscriberArn'] == '$sub_arn' and d['targetArn'] == '$QUEUE_ARN'" <<<"$record"
jcheck "dead-letter record" "d['errorCode'] == 'ACCESS_DENIED' and d['errorMessage'].startswith(\"EventBridge can't access\")" <<<"$record"
jcheck "dead-letter record" "(d['exhaustedRetryCondition'], d['retryAttempts']) in [('MaximumEventAgeInSeconds', 4), ('MaximumRetryAttempts', 5)]" <<<"$record"
jcheck "dead-letter record" "[m['eventId'] for m in d['failedMessages']] == '$ids'.split()" <<<"$record"
jcheck "dead-letter record" "[m['timestamp'] for m in d['failedMessages']] == ['2026-09-16T18:40:12.000Z', '2026-09-16T18:40:13.000Z']" <<<"$record"
jcheck "dead-letter record" "all(m['eventGroupId'] == 'order-1001' and m['deduplicationId'] is None for m in d['failedMessages'])" <<<"$record"
jcheck "dead-letter attributes" "sorted(d[0]['MessageAttributes']) == ['BUS_ARN', 'ERROR_CODE', 'ERROR_MESSAGE', 'EXHAUSTED_RETRY_CONDITION', 'RETRY_ATTEMPTS', 'SUBSCRIBER_ARN', 'TARGET_ARN']" <<<"$records"
ok "step 1: one record for the two events, in the spec's shape"

# 2. Fix the cause.
control_post faults "" DELETE >/dev/null
ok "step 2: the fault is gone"

# 3. The spec's command, word for word: its placeholder ids match no event, so nothing is delivered.
out=$(eval "$EXAMPLE --endpoint-url $SWITCHYARD_URL") || fail "the spec's create-subscriber example: aws exited non-zero"
example_arn=$(jget SubscriberArn <<<"$out")
[[ "$example_arn" == "arn:aws:events:us-east-1:$OWNER:subscriber/redrive-2026-09-16/"* ]] || fail "example: $out"
out=$(awsj eventsv2 get-subscriber --subscriber-arn "$example_arn") || fail "get-subscriber example: aws exited non-zero"
jcheck "example subscriber" "d['StartingPosition'] == 'POINT_IN_TIME' and d['PointInTimeConfiguration']['PointType'] == 'TIMESTAMP' and d['FilterConfiguration']['Filters'][0]['Scope'] == 'SYSTEM_METADATA'" <<<"$out"
advance 0
jcheck "example delivers nothing" "d == []" <<<"$(drain "$queue_url")"
awsj eventsv2 delete-subscriber --subscriber-arn "$example_arn" >/dev/null || fail "delete-subscriber: aws exited non-zero"
ok "step 3: the spec's create-subscriber example runs word for word (placeholder ids: nothing to replay)"

# The same command with the record's real event ids.
read -r id1 id2 <<<"$ids"
REAL=${EXAMPLE//a1b2c3d4-.../$id1}
REAL=${REAL//e5f6a7b8-.../$id2}
out=$(eval "$REAL --endpoint-url $SWITCHYARD_URL") || fail "create-subscriber with the real ids: aws exited non-zero"
redrive_arn=$(jget SubscriberArn <<<"$out")
advance 0
replayed=$(drain "$queue_url")
jcheck "replayed events" "[(json.loads(m['Body'])['id'], json.loads(m['Body'])['system-metadata']['aws:DeliveryType']) for m in d] == [('$id1', 'REPLAY'), ('$id2', 'REPLAY')]" <<<"$replayed"
ok "step 3: the same command with the record's ids delivers exactly the two events, marked REPLAY"

# 4. Delete the replay subscriber (the records were deleted from the DLQ as they were read).
awsj eventsv2 delete-subscriber --subscriber-arn "$redrive_arn" >/dev/null || fail "delete-subscriber: aws exited non-zero"
jcheck "dead-letter queue after redrive" "d == []" <<<"$(drain "$dlq_url")"
out=$(awsj eventsv2 list-subscribers --event-bus-arn "$BUS_ARN") || fail "list-subscribers: aws exited non-zero"
jcheck list-subscribers "[s['Name'] for s in d['Subscribers']] == ['large-orders']" <<<"$out"
ok "step 4: replay subscriber deleted, dead-letter queue empty"

awsj eventsv2 delete-subscriber --subscriber-arn "$sub_arn" >/dev/null || fail "delete-subscriber: aws exited non-zero"
awsj eventsv2 delete-event-bus --event-bus-arn "$BUS_ARN" >/dev/null || fail "delete-event-bus: aws exited non-zero"
ok "delete-subscriber, delete-event-bus"
