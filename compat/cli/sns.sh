#!/usr/bin/env bash
# SNS end to end through the AWS CLI v1 (AWS Query, the CLI's own model): a topic, an SQS queue
# subscribed to it, a publish received from the queue as the JSON notification envelope, the topic's
# subscriptions listed, then unsubscribe and delete-topic.
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TOPIC=cli-orders
QUEUE=cli-orders-q
topic_arn_expected="arn:aws:sns:us-east-1:$ACCOUNT:$TOPIC"

out=$(awsj sns create-topic --name "$TOPIC") || fail "create-topic: aws exited non-zero"
topic_arn=$(jget TopicArn <<<"$out")
expect_eq create-topic TopicArn "$topic_arn" "$topic_arn_expected"
out=$(awsj sns create-topic --name "$TOPIC") || fail "create-topic again: aws exited non-zero"
expect_eq "create-topic again" TopicArn "$(jget TopicArn <<<"$out")" "$topic_arn_expected"
ok "create-topic (idempotent)"

out=$(awsj sns get-topic-attributes --topic-arn "$topic_arn") || fail "get-topic-attributes: aws exited non-zero"
jcheck get-topic-attributes "d['Attributes']['TopicArn'] == '$topic_arn' and d['Attributes']['Owner'] == '$ACCOUNT'" <<<"$out"
ok "get-topic-attributes"

out=$(awsj sqs create-queue --queue-name "$QUEUE") || fail "create-queue: aws exited non-zero"
queue_url=$(jget QueueUrl <<<"$out")
[[ -n "$queue_url" ]] || fail "create-queue: no QueueUrl in $out"
out=$(awsj sqs get-queue-attributes --queue-url "$queue_url" --attribute-names QueueArn) \
    || fail "get-queue-attributes: aws exited non-zero"
queue_arn=$(jget Attributes QueueArn <<<"$out")
expect_eq get-queue-attributes QueueArn "$queue_arn" "arn:aws:sqs:us-east-1:$ACCOUNT:$QUEUE"
ok "create-queue"

out=$(awsj sns subscribe --topic-arn "$topic_arn" --protocol sqs --notification-endpoint "$queue_arn") \
    || fail "subscribe: aws exited non-zero"
sub_arn=$(jget SubscriptionArn <<<"$out")
[[ "$sub_arn" == "$topic_arn:"* ]] || fail "subscribe: SubscriptionArn '$sub_arn' is not under $topic_arn"
ok "subscribe --protocol sqs"

out=$(awsj sns list-subscriptions-by-topic --topic-arn "$topic_arn") \
    || fail "list-subscriptions-by-topic: aws exited non-zero"
jcheck list-subscriptions-by-topic "[(s['SubscriptionArn'], s['Protocol'], s['Endpoint'], s['TopicArn']) for s in d['Subscriptions']] == [('$sub_arn', 'sqs', '$queue_arn', '$topic_arn')]" <<<"$out"
ok "list-subscriptions-by-topic"

out=$(awsj sns publish --topic-arn "$topic_arn" --subject 'Greetings' --message 'hello' \
    --message-attributes '{"kind": {"DataType": "String", "StringValue": "greeting"}}') \
    || fail "publish: aws exited non-zero"
message_id=$(jget MessageId <<<"$out")
[[ -n "$message_id" ]] || fail "publish: no MessageId in $out"
advance 0
ok "publish"

out=$(awsj sqs receive-message --queue-url "$queue_url" --wait-time-seconds 0) \
    || fail "receive-message: aws exited non-zero"
body=$(jget Messages 0 Body <<<"$out")
[[ -n "$body" ]] || fail "receive-message: no message in $out"
jcheck "receive-message envelope" "d['Type'] == 'Notification' and d['Message'] == 'hello'" <<<"$body"
jcheck "receive-message envelope" "d['MessageId'] == '$message_id' and d['TopicArn'] == '$topic_arn'" <<<"$body"
jcheck "receive-message envelope" "d['Subject'] == 'Greetings' and d['SignatureVersion'] == '1' and bool(d['Signature'])" <<<"$body"
jcheck "receive-message envelope" "d['MessageAttributes'] == {'kind': {'Type': 'String', 'Value': 'greeting'}}" <<<"$body"
jcheck "receive-message envelope" "'SubscriptionArn=' in d['UnsubscribeURL'] and d['SigningCertURL'].endswith('.pem')" <<<"$body"
receipt_handle=$(jget Messages 0 ReceiptHandle <<<"$out")
awsj sqs delete-message --queue-url "$queue_url" --receipt-handle "$receipt_handle" >/dev/null \
    || fail "delete-message: aws exited non-zero"
ok "receive-message (notification envelope)"

awsj sns unsubscribe --subscription-arn "$sub_arn" >/dev/null || fail "unsubscribe: aws exited non-zero"
out=$(awsj sns list-subscriptions-by-topic --topic-arn "$topic_arn") \
    || fail "list-subscriptions-by-topic after unsubscribe: aws exited non-zero"
jcheck "list-subscriptions-by-topic after unsubscribe" "d.get('Subscriptions', []) == []" <<<"$out"
awsj sns publish --topic-arn "$topic_arn" --message 'unheard' >/dev/null || fail "publish after unsubscribe: aws exited non-zero"
advance 0
out=$(awsj sqs receive-message --queue-url "$queue_url" --wait-time-seconds 0) \
    || fail "receive-message after unsubscribe: aws exited non-zero"
[[ -z "$(jget Messages 0 <<<"$out")" ]] || fail "receive-message after unsubscribe: expected no messages, got $out"
ok "unsubscribe"

awsj sns delete-topic --topic-arn "$topic_arn" >/dev/null || fail "delete-topic: aws exited non-zero"
out=$(awsj sns list-topics) || fail "list-topics: aws exited non-zero"
jcheck "list-topics after delete-topic" "'$topic_arn' not in [t['TopicArn'] for t in d.get('Topics', [])]" <<<"$out"
if err=$(awsj sns get-topic-attributes --topic-arn "$topic_arn" 2>&1 >/dev/null); then
    fail "get-topic-attributes after delete-topic: expected NotFound, it succeeded"
fi
[[ "$err" == *"(NotFound)"* ]] || fail "get-topic-attributes after delete-topic: expected NotFound, got: $err"
ok "delete-topic"

awsj sqs delete-queue --queue-url "$queue_url" >/dev/null || fail "delete-queue: aws exited non-zero"
