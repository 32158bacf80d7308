#!/usr/bin/env bash
# SQS end to end through the AWS CLI v1 over AWS JSON 1.0 (the protocol of the CLI's own, current
# model), against a freshly started switchyard: the basics, queue attributes, batches and a FIFO queue.
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

QUEUE=q
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

# --- queue attributes -------------------------------------------------------------------------------
awsj sqs set-queue-attributes --queue-url "$queue_url" \
    --attributes '{"VisibilityTimeout":"45","DelaySeconds":"0","MessageRetentionPeriod":"86400"}' >/dev/null \
    || fail "set-queue-attributes: aws exited non-zero"
awsj sqs send-message --queue-url "$queue_url" --message-body 'counted' >/dev/null \
    || fail "send-message (counted): aws exited non-zero"
out=$(awsj sqs get-queue-attributes --queue-url "$queue_url" --attribute-names All) \
    || fail "get-queue-attributes: aws exited non-zero"
jcheck get-queue-attributes "d['Attributes']['VisibilityTimeout'] == '45'" <<<"$out"
jcheck get-queue-attributes "d['Attributes']['MessageRetentionPeriod'] == '86400'" <<<"$out"
jcheck get-queue-attributes "d['Attributes']['ApproximateNumberOfMessages'] == '1'" <<<"$out"
jcheck get-queue-attributes "d['Attributes']['QueueArn'] == 'arn:aws:sqs:us-east-1:$ACCOUNT:$QUEUE'" <<<"$out"
out=$(awsj sqs get-queue-attributes --queue-url "$queue_url" --attribute-names VisibilityTimeout) \
    || fail "get-queue-attributes VisibilityTimeout: aws exited non-zero"
jcheck "get-queue-attributes (one name)" "d == {'Attributes': {'VisibilityTimeout': '45'}}" <<<"$out"
ok "set-queue-attributes / get-queue-attributes"

awsj sqs delete-queue --queue-url "$queue_url" >/dev/null || fail "delete-queue: aws exited non-zero"
ok "delete-queue"

# --- batches ----------------------------------------------------------------------------------------
out=$(awsj sqs create-queue --queue-name batch) || fail "create-queue batch: aws exited non-zero"
batch_url=$(jget QueueUrl <<<"$out")
out=$(awsj sqs send-message-batch --queue-url "$batch_url" --entries '[
    {"Id": "one", "MessageBody": "first"},
    {"Id": "two", "MessageBody": "second", "MessageAttributes": {"n": {"DataType": "Number", "StringValue": "2"}}},
    {"Id": "bad", "MessageBody": "late", "DelaySeconds": 901}]') \
    || fail "send-message-batch: aws exited non-zero"
jcheck send-message-batch "sorted(e['Id'] for e in d['Successful']) == ['one', 'two']" <<<"$out"
jcheck send-message-batch "[(e['Id'], e['Code'], e['SenderFault']) for e in d['Failed']] == [('bad', 'InvalidParameterValue', True)]" <<<"$out"
ok "send-message-batch (one entry failed)"

out=$(awsj sqs receive-message --queue-url "$batch_url" --max-number-of-messages 10 --wait-time-seconds 0 \
    --message-attribute-names All) || fail "receive-message batch: aws exited non-zero"
jcheck "receive-message batch" "sorted(m['Body'] for m in d['Messages']) == ['first', 'second']" <<<"$out"
entries=$(python3 -c '
import json, sys
d = json.load(sys.stdin)
entries = [{"Id": f"e{i}", "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(d["Messages"])]
print(json.dumps(entries + [{"Id": "bogus", "ReceiptHandle": "not-a-handle"}]))' <<<"$out")
out=$(awsj sqs delete-message-batch --queue-url "$batch_url" --entries "$entries") \
    || fail "delete-message-batch: aws exited non-zero"
jcheck delete-message-batch "sorted(e['Id'] for e in d['Successful']) == ['e0', 'e1']" <<<"$out"
jcheck delete-message-batch "[(e['Id'], e['Code']) for e in d['Failed']] == [('bogus', 'ReceiptHandleIsInvalid')]" <<<"$out"
ok "delete-message-batch (one entry failed)"

if err=$(awsj sqs send-message-batch --queue-url "$batch_url" --entries '[
    {"Id": "same", "MessageBody": "a"}, {"Id": "same", "MessageBody": "b"}]' 2>&1); then
    fail "send-message-batch with repeated ids: expected an error, got $err"
fi
[[ "$err" == *"AWS.SimpleQueueService.BatchEntryIdsNotDistinct"* ]] \
    || fail "send-message-batch with repeated ids: expected BatchEntryIdsNotDistinct, got: $err"
ok "send-message-batch with repeated ids (BatchEntryIdsNotDistinct)"

# --- FIFO -------------------------------------------------------------------------------------------
out=$(awsj sqs create-queue --queue-name orders.fifo \
    --attributes '{"FifoQueue":"true","ContentBasedDeduplication":"true"}') \
    || fail "create-queue orders.fifo: aws exited non-zero"
fifo_url=$(jget QueueUrl <<<"$out")
expect_eq "create-queue orders.fifo" QueueUrl "$fifo_url" "$SWITCHYARD_URL/$ACCOUNT/orders.fifo"
first_id=""
for body in one two three one; do
    out=$(awsj sqs send-message --queue-url "$fifo_url" --message-body "$body" --message-group-id g) \
        || fail "send-message $body to orders.fifo: aws exited non-zero"
    [[ -n "$(jget SequenceNumber <<<"$out")" ]] || fail "send-message to orders.fifo: no SequenceNumber in $out"
    [[ -n "$first_id" ]] || first_id=$(jget MessageId <<<"$out")
done
# The second 'one' is a duplicate inside the 5-minute window: accepted with the first one's id.
expect_eq "send-message duplicate" MessageId "$(jget MessageId <<<"$out")" "$first_id"
out=$(awsj sqs receive-message --queue-url "$fifo_url" --max-number-of-messages 10 --wait-time-seconds 0 \
    --attribute-names MessageGroupId SequenceNumber) || fail "receive-message orders.fifo: aws exited non-zero"
jcheck "receive-message orders.fifo" "[m['Body'] for m in d['Messages']] == ['one', 'two', 'three']" <<<"$out"
jcheck "receive-message orders.fifo" "all(m['Attributes']['MessageGroupId'] == 'g' for m in d['Messages'])" <<<"$out"
jcheck "receive-message orders.fifo" "[int(m['Attributes']['SequenceNumber']) for m in d['Messages']] == sorted(int(m['Attributes']['SequenceNumber']) for m in d['Messages'])" <<<"$out"
# The group is in flight: nothing more until it is deleted or visible again.
out=$(awsj sqs receive-message --queue-url "$fifo_url" --wait-time-seconds 0) \
    || fail "receive-message orders.fifo (in flight): aws exited non-zero"
[[ -z "$(jget Messages 0 <<<"$out")" ]] || fail "receive-message orders.fifo while in flight: expected nothing, got $out"
if err=$(awsj sqs send-message --queue-url "$fifo_url" --message-body x 2>&1); then
    fail "send-message to orders.fifo without a group: expected an error, got $err"
fi
[[ "$err" == *"MissingParameter"* ]] || fail "send-message without a group: expected MissingParameter, got: $err"
ok "FIFO queue: order, dedup, group in flight, MissingParameter"

out=$(awsj sts get-caller-identity) || fail "sts get-caller-identity: aws exited non-zero"
expect_eq "sts get-caller-identity" Account "$(jget Account <<<"$out")" "$ACCOUNT"
ok "sts get-caller-identity"
