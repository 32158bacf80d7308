#!/usr/bin/env bash
# SQS queue URLs through the AWS CLI v1 (docs/localstack.md, "Host names and queue URLs"): a queue
# URL comes back in the host the CLI used (127.0.0.1 or localhost, with its port), and queue URLs
# of LocalStack's shapes from any host name the right queue, the region in the URL counting: a
# queue of one name in two regions is told apart by its URL.
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

QUEUE=hosts-q
port="${SWITCHYARD_URL##*:}"
by_localhost="http://localhost:$port"

out=$(awsj sqs create-queue --queue-name "$QUEUE") || fail "create-queue: aws exited non-zero"
expect_eq create-queue QueueUrl "$(jget QueueUrl <<<"$out")" "$SWITCHYARD_URL/$ACCOUNT/$QUEUE"
out=$(aws --endpoint-url "$by_localhost" --output json sqs get-queue-url --queue-name "$QUEUE") \
    || fail "get-queue-url via localhost: aws exited non-zero"
expect_eq get-queue-url QueueUrl "$(jget QueueUrl <<<"$out")" "$by_localhost/$ACCOUNT/$QUEUE"
ok "queue URLs in the host the CLI used"

out=$(awsj --region eu-west-1 sqs create-queue --queue-name "$QUEUE") \
    || fail "create-queue in eu-west-1: aws exited non-zero"
expect_eq create-queue QueueUrl "$(jget QueueUrl <<<"$out")" "$SWITCHYARD_URL/$ACCOUNT/$QUEUE"
ok "the same name in eu-west-1"

# A CLI in us-east-1 sends to the eu-west-1 queue by its regional URLs.
for url in "http://sqs.eu-west-1.localhost.localstack.cloud:4566/$ACCOUNT/$QUEUE" \
    "http://eu-west-1.queue.localhost.localstack.cloud:4566/$ACCOUNT/$QUEUE"; do
    awsj sqs send-message --queue-url "$url" --message-body "via $url" >/dev/null \
        || fail "send-message to $url: aws exited non-zero"
done
out=$(awsj sqs get-queue-attributes --attribute-names QueueArn \
    --queue-url "http://localhost:4566/queue/eu-west-1/$ACCOUNT/$QUEUE") \
    || fail "get-queue-attributes by the path URL: aws exited non-zero"
expect_eq get-queue-attributes QueueArn "$(jget Attributes QueueArn <<<"$out")" \
    "arn:aws:sqs:eu-west-1:$ACCOUNT:$QUEUE"
out=$(awsj --region eu-west-1 sqs receive-message --max-number-of-messages 10 \
    --queue-url "$SWITCHYARD_URL/$ACCOUNT/$QUEUE") || fail "receive-message in eu-west-1: aws exited non-zero"
jcheck "receive-message in eu-west-1" "len(d.get('Messages', [])) == 2" <<<"$out"
out=$(awsj sqs receive-message --queue-url "$SWITCHYARD_URL/$ACCOUNT/$QUEUE") \
    || fail "receive-message in us-east-1: aws exited non-zero"
jcheck "receive-message in us-east-1" "not d.get('Messages')" <<<"$out"
ok "regional URLs from any host name the eu-west-1 queue"

status=0
out=$(awsj sqs send-message --message-body x \
    --queue-url "http://localhost:4566/queue/eu-west-1/$ACCOUNT" 2>&1) || status=$?
((status != 0)) || fail "send-message to a URL that names no queue succeeded: $out"
grep -q "QueueDoesNotExist\|NonExistentQueue" <<<"$out" || fail "send-message to a URL that names no queue: $out"
ok "a URL that names no queue"
