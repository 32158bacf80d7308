#!/usr/bin/env bash
# LocalStack's awslocal (pip's awscli-local, wrapping the v1 AWS CLI) against switchyard, with the
# endpoint given the two ways awslocal reads it: AWS_ENDPOINT_URL, then LOCALSTACK_HOST
# (<host>:<port>) alone. A queue, a message sent and received, an SNS topic fanning out to it, and
# an EventBridge rule delivering to it (docs/localstack.md, "awslocal").
# Needs SWITCHYARD_URL, dummy credentials and awslocal and aws on PATH: compat/run sets them up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

export DISABLE_DEPRECATION_NOTICE=1
command -v awslocal >/dev/null || fail "awslocal is not on PATH (pip install awscli-local)"

# awslocal with the endpoint from AWS_ENDPOINT_URL (compat/run exports it), answering JSON.
al() { awslocal --output json "$@"; }
# awslocal with only LOCALSTACK_HOST to go by.
al_host() {
    env -u AWS_ENDPOINT_URL LOCALSTACK_HOST="${SWITCHYARD_URL#http://}" awslocal --output json "$@"
}

QUEUE=awslocal-orders
queue_arn="arn:aws:sqs:us-east-1:$ACCOUNT:$QUEUE"

out=$(al sqs create-queue --queue-name "$QUEUE") || fail "awslocal sqs create-queue exited non-zero"
queue_url=$(jget QueueUrl <<<"$out")
expect_eq "awslocal sqs create-queue" QueueUrl "$queue_url" "$SWITCHYARD_URL/$ACCOUNT/$QUEUE"
ok "awslocal sqs create-queue"

out=$(al_host sqs send-message --queue-url "$queue_url" --message-body hello) \
    || fail "awslocal sqs send-message (LOCALSTACK_HOST) exited non-zero"
expect_eq "awslocal sqs send-message" MD5OfMessageBody "$(jget MD5OfMessageBody <<<"$out")" "$HELLO_MD5"
ok "awslocal sqs send-message, the endpoint from LOCALSTACK_HOST"

out=$(al sqs receive-message --queue-url "$queue_url" --wait-time-seconds 0) \
    || fail "awslocal sqs receive-message exited non-zero"
expect_eq "awslocal sqs receive-message" Body "$(jget Messages 0 Body <<<"$out")" hello
al sqs delete-message --queue-url "$queue_url" --receipt-handle "$(jget Messages 0 ReceiptHandle <<<"$out")" \
    >/dev/null || fail "awslocal sqs delete-message exited non-zero"
ok "awslocal sqs receive-message / delete-message"

out=$(al sns create-topic --name awslocal-events) || fail "awslocal sns create-topic exited non-zero"
topic_arn=$(jget TopicArn <<<"$out")
expect_eq "awslocal sns create-topic" TopicArn "$topic_arn" "arn:aws:sns:us-east-1:$ACCOUNT:awslocal-events"
al sns subscribe --topic-arn "$topic_arn" --protocol sqs --notification-endpoint "$queue_arn" \
    --attributes RawMessageDelivery=true >/dev/null || fail "awslocal sns subscribe exited non-zero"
al sns publish --topic-arn "$topic_arn" --message from-sns >/dev/null \
    || fail "awslocal sns publish exited non-zero"
out=$(al sqs receive-message --queue-url "$queue_url" --wait-time-seconds 0) \
    || fail "awslocal sqs receive-message (SNS) exited non-zero"
expect_eq "awslocal sns publish → sqs" Body "$(jget Messages 0 Body <<<"$out")" from-sns
al sqs delete-message --queue-url "$queue_url" --receipt-handle "$(jget Messages 0 ReceiptHandle <<<"$out")" \
    >/dev/null || fail "awslocal sqs delete-message exited non-zero"
ok "awslocal sns create-topic / subscribe / publish"

al events put-rule --name awslocal-rule --event-pattern '{"source": ["awslocal.shop"]}' >/dev/null \
    || fail "awslocal events put-rule exited non-zero"
out=$(al events put-targets --rule awslocal-rule --targets "Id=q,Arn=$queue_arn") \
    || fail "awslocal events put-targets exited non-zero"
expect_eq "awslocal events put-targets" FailedEntryCount "$(jget FailedEntryCount <<<"$out")" 0
out=$(al_host events put-events --entries \
    '[{"Source": "awslocal.shop", "DetailType": "OrderPlaced", "Detail": "{\"id\": 7}"}]') \
    || fail "awslocal events put-events (LOCALSTACK_HOST) exited non-zero"
expect_eq "awslocal events put-events" FailedEntryCount "$(jget FailedEntryCount <<<"$out")" 0
out=$(al sqs receive-message --queue-url "$queue_url" --wait-time-seconds 0) \
    || fail "awslocal sqs receive-message (EventBridge) exited non-zero"
jget Messages 0 Body <<<"$out" | jcheck "awslocal events → sqs" "d['source'] == 'awslocal.shop' and d['detail'] == {'id': 7}"
ok "awslocal events put-rule / put-targets / put-events"

for op in "sqs delete-queue --queue-url $queue_url" "sns delete-topic --topic-arn $topic_arn" \
    "events remove-targets --rule awslocal-rule --ids q" "events delete-rule --name awslocal-rule"; do
    # shellcheck disable=SC2086 # the words of each command
    al $op >/dev/null || fail "awslocal $op exited non-zero"
done
ok "awslocal clean-up"
