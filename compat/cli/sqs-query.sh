#!/usr/bin/env bash
# SQS through the AWS CLI v1 over AWS Query, the protocol older SDKs and older v1 CLIs speak: with
# AWS_DATA_PATH=compat/models-query the CLI loads the last Query-protocol SQS model (botocore 1.34.70,
# see compat/fetch-query-model) instead of its own. Each step checks in the CLI's --debug log that the
# request really went as form-encoded `Action=...` without X-Amz-Target and the answer came as XML.
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

COMPAT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export AWS_DATA_PATH="$COMPAT_DIR/models-query"
[[ -f "$AWS_DATA_PATH/sqs/2012-11-05/service-2.json" ]] \
    || fail "no Query model under $AWS_DATA_PATH (run compat/fetch-query-model)"

DEBUG_LOG="$(mktemp)"
trap 'rm -f "$DEBUG_LOG"' EXIT

# awsq ACTION ARGS...: `aws sqs ARGS` with --debug into $DEBUG_LOG; checks the wire is Query for ACTION.
awsq() {
    local action=$1
    shift
    local status=0
    awsj --debug sqs "$@" 2>"$DEBUG_LOG" || status=$?
    grep -q "Making request for OperationModel(name=$action) with params: .*'body': {'Action': '$action', 'Version': '2012-11-05'" "$DEBUG_LOG" \
        || fail "$action: the --debug log shows no form-encoded Action=$action request body"
    grep -q "'Content-Type': b'application/x-www-form-urlencoded" "$DEBUG_LOG" \
        || fail "$action: the request was not sent as application/x-www-form-urlencoded"
    ! grep -qi "x-amz-target" "$DEBUG_LOG" || fail "$action: the request carried an X-Amz-Target header"
    if ((status == 0)); then
        grep -q "<${action}Response" "$DEBUG_LOG" || fail "$action: the answer was not a <${action}Response> XML document"
    fi
    return $status
}

QUEUE=query-q
expected_url="$SWITCHYARD_URL/$ACCOUNT/$QUEUE"

out=$(awsq CreateQueue create-queue --queue-name "$QUEUE" --attributes VisibilityTimeout=40 \
    --tags team=core) || fail "create-queue: aws exited non-zero"
queue_url=$(jget QueueUrl <<<"$out")
expect_eq create-queue QueueUrl "$queue_url" "$expected_url"
ok "create-queue (Query)"

out=$(awsq GetQueueAttributes get-queue-attributes --queue-url "$queue_url" --attribute-names All) \
    || fail "get-queue-attributes: aws exited non-zero"
jcheck get-queue-attributes "d['Attributes']['VisibilityTimeout'] == '40'" <<<"$out"
jcheck get-queue-attributes "d['Attributes']['QueueArn'] == 'arn:aws:sqs:us-east-1:$ACCOUNT:$QUEUE'" <<<"$out"
ok "get-queue-attributes (Query)"

out=$(awsq ListQueueTags list-queue-tags --queue-url "$queue_url") || fail "list-queue-tags: aws exited non-zero"
jcheck list-queue-tags "d.get('Tags') == {'team': 'core'}" <<<"$out"
ok "list-queue-tags (Query)"

out=$(awsq SendMessage send-message --queue-url "$queue_url" --message-body hello \
    --message-attributes '{"kind": {"DataType": "String", "StringValue": "greeting"}}') \
    || fail "send-message: aws exited non-zero"
expect_eq send-message MD5OfMessageBody "$(jget MD5OfMessageBody <<<"$out")" "$HELLO_MD5"
# md5 of name 'kind', type 'String', transport 1, value 'greeting', each length-prefixed.
attr_md5=$(python3 -c '
import hashlib, struct
f = lambda b: struct.pack(">I", len(b)) + b
print(hashlib.md5(f(b"kind") + f(b"String") + b"\x01" + f(b"greeting")).hexdigest())')
expect_eq send-message MD5OfMessageAttributes "$(jget MD5OfMessageAttributes <<<"$out")" "$attr_md5"
message_id=$(jget MessageId <<<"$out")
ok "send-message (Query)"

out=$(awsq ReceiveMessage receive-message --queue-url "$queue_url" --wait-time-seconds 0 \
    --attribute-names All --message-attribute-names All) || fail "receive-message: aws exited non-zero"
expect_eq receive-message Body "$(jget Messages 0 Body <<<"$out")" hello
expect_eq receive-message MessageId "$(jget Messages 0 MessageId <<<"$out")" "$message_id"
expect_eq receive-message "the kind attribute" "$(jget Messages 0 MessageAttributes kind StringValue <<<"$out")" greeting
expect_eq receive-message ApproximateReceiveCount "$(jget Messages 0 Attributes ApproximateReceiveCount <<<"$out")" 1
receipt_handle=$(jget Messages 0 ReceiptHandle <<<"$out")
[[ -n "$receipt_handle" ]] || fail "receive-message: no ReceiptHandle in $out"
ok "receive-message (Query)"

awsq DeleteMessage delete-message --queue-url "$queue_url" --receipt-handle "$receipt_handle" >/dev/null \
    || fail "delete-message: aws exited non-zero"
ok "delete-message (Query)"

out=$(awsq ReceiveMessage receive-message --queue-url "$queue_url" --wait-time-seconds 0) \
    || fail "receive-message after delete: aws exited non-zero"
[[ -z "$(jget Messages 0 <<<"$out")" ]] || fail "receive-message after delete: expected no messages, got $out"
ok "receive-message after delete (empty, Query)"

out=$(awsq SendMessageBatch send-message-batch --queue-url "$queue_url" --entries '[
    {"Id": "a", "MessageBody": "one"}, {"Id": "b", "MessageBody": "two", "DelaySeconds": 901}]') \
    || fail "send-message-batch: aws exited non-zero"
jcheck send-message-batch "[e['Id'] for e in d['Successful']] == ['a']" <<<"$out"
jcheck send-message-batch "[(e['Id'], e['Code']) for e in d['Failed']] == [('b', 'InvalidParameterValue')]" <<<"$out"
ok "send-message-batch (Query, one entry failed)"

awsq DeleteQueue delete-queue --queue-url "$queue_url" >/dev/null || fail "delete-queue: aws exited non-zero"
ok "delete-queue (Query)"

# An error in the Query shape: <ErrorResponse><Error><Code>AWS.SimpleQueueService.NonExistentQueue</Code>...
# (awsq sends the CLI's stderr, its error message included, to $DEBUG_LOG.)
if out=$(awsq GetQueueUrl get-queue-url --queue-name "$QUEUE"); then
    fail "get-queue-url of a deleted queue: expected an error, got $out"
fi
grep -q "<ErrorResponse" "$DEBUG_LOG" || fail "get-queue-url of a deleted queue: the answer was not an <ErrorResponse>"
grep -q "An error occurred (AWS.SimpleQueueService.NonExistentQueue) when calling the GetQueueUrl operation" \
    "$DEBUG_LOG" || fail "get-queue-url of a deleted queue: expected AWS.SimpleQueueService.NonExistentQueue, got: \
$(grep "An error occurred" "$DEBUG_LOG")"
ok "get-queue-url of a deleted queue: AWS.SimpleQueueService.NonExistentQueue (Query)"
