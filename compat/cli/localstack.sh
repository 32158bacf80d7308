#!/usr/bin/env bash
# LocalStack's developer endpoints (docs/localstack.md) as LocalStack's documentation calls them:
# curl for /_localstack/health, /info, /init and the /_aws/ views, and the AWS CLI v1 pointed at
# /_aws/sqs/messages (over AWS JSON, then over AWS Query) to peek into a queue. Names are its own:
# it runs against the server as the previous scenarios left it.
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

COMPAT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# http METHOD PATH: curl with no proxy; prints the body, then the status on its own last line.
http() {
    curl -s --noproxy '*' -X "$1" -w '\n%{http_code}' "${@:3}" "$SWITCHYARD_URL$2"
}
# expect_status STEP WANT OUTPUT-OF-http: fails unless the last line is WANT; prints the body.
expect_status() {
    local status=${3##*$'\n'}
    [[ "$status" == "$2" ]] || fail "$1: status $status, expected $2: ${3%$'\n'*}"
    printf '%s' "${3%$'\n'*}"
}

out=$(http GET /_localstack/health)
body=$(expect_status health 200 "$out")
jcheck health "d['services']['sqs'] == 'running' and d['services']['events'] == 'running' and d['edition'] == 'community' and 'eventsv2' not in d['services']" <<<"$body"
head_status=$(curl -s --noproxy '*' -I -o /dev/null -w '%{http_code}' "$SWITCHYARD_URL/_localstack/health")
expect_eq "health (HEAD)" status "$head_status" 200
ok "/_localstack/health, GET and HEAD"

body=$(expect_status info 200 "$(http GET /_localstack/info)")
jcheck info "len(d['session_id']) == 36 and d['is_license_activated'] is False and isinstance(d['uptime'], int)" <<<"$body"
body=$(expect_status init 200 "$(http GET /_localstack/init/ready)")
jcheck init "d == {'completed': True, 'scripts': []}" <<<"$body"
expect_status "init of no stage" 404 "$(http GET /_localstack/init/later)" >/dev/null
ok "/_localstack/info and /init"

# A queue with two messages, peeked at through the AWS CLI as LocalStack documents it.
queue_url=$(awsj sqs create-queue --queue-name cli-peek | jget QueueUrl)
for text in first second; do
    awsj sqs send-message --queue-url "$queue_url" --message-body "$text" >/dev/null || fail "send-message"
done
peek() { aws --endpoint-url "$SWITCHYARD_URL/_aws/sqs/messages" --output json sqs receive-message --queue-url "$queue_url"; }
out=$(peek) || fail "receive-message at /_aws/sqs/messages: aws exited non-zero"
jcheck "peek (AWS JSON)" "[m['Body'] for m in d['Messages']] == ['first', 'second'] and all(m['ReceiptHandle'] == 'SQS/BACKDOOR/ACCESS' for m in d['Messages'])" <<<"$out"
out=$(AWS_DATA_PATH="$COMPAT_DIR/models-query" peek) || fail "receive-message at /_aws/sqs/messages over Query: aws exited non-zero"
jcheck "peek (AWS Query)" "[m['Body'] for m in d['Messages']] == ['first', 'second'] and d['Messages'][0]['Attributes']['ApproximateReceiveCount'] == '0'" <<<"$out"
if err=$(aws --endpoint-url "$SWITCHYARD_URL/_aws/sqs/messages" sqs send-message --queue-url "$queue_url" --message-body x 2>&1); then
    fail "send-message at /_aws/sqs/messages: expected InvalidRequest"
fi
[[ "$err" == *"(InvalidRequest)"*"This endpoint only accepts ReceiveMessage calls"* ]] || fail "send-message at /_aws/sqs/messages: $err"
encoded_url=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$queue_url")
body=$(expect_status "peek (curl)" 200 "$(http GET "/_aws/sqs/messages?QueueUrl=$encoded_url" -H 'Accept: application/json')")
jcheck "peek (curl)" "len(d['ReceiveMessageResponse']['ReceiveMessageResult']['Message']) == 2" <<<"$body"
out=$(awsj sqs receive-message --queue-url "$queue_url" --max-number-of-messages 10 --attribute-names ApproximateReceiveCount)
jcheck "receive after peeking" "len(d['Messages']) == 2 and all(m['Attributes']['ApproximateReceiveCount'] == '1' for m in d['Messages'])" <<<"$out"
ok "/_aws/sqs/messages: the CLI over JSON and Query, curl; nothing received"

# An SMS, seen and cleared.
awsj sns publish --phone-number +15550142 --message "code 4242" >/dev/null || fail "publish --phone-number"
body=$(expect_status sms-messages 200 "$(http GET '/_aws/sns/sms-messages?phoneNumber=%2B15550142')")
jcheck sms-messages "[m['Message'] for m in d['sms_messages']['+15550142']] == ['code 4242'] and d['region'] == 'us-east-1'" <<<"$body"
expect_status "delete sms-messages" 204 "$(http DELETE '/_aws/sns/sms-messages?phoneNumber=%2B15550142')" >/dev/null
body=$(expect_status "sms-messages after delete" 200 "$(http GET '/_aws/sns/sms-messages?phoneNumber=%2B15550142')")
jcheck "sms-messages after delete" "d['sms_messages'] == {'+15550142': []}" <<<"$body"
ok "/_aws/sns/sms-messages"

# A pending e-mail subscription confirmed by hand with its token.
topic_arn=$(awsj sns create-topic --name cli-external | jget TopicArn)
sub_arn=$(awsj sns subscribe --topic-arn "$topic_arn" --protocol email --notification-endpoint ops@example.com --return-subscription-arn | jget SubscriptionArn)
body=$(expect_status subscription-tokens 200 "$(http GET "/_aws/sns/subscription-tokens/$sub_arn")")
token=$(jget subscription_token <<<"$body")
out=$(awsj sns confirm-subscription --topic-arn "$topic_arn" --token "$token") || fail "confirm-subscription: aws exited non-zero"
expect_eq confirm-subscription SubscriptionArn "$(jget SubscriptionArn <<<"$out")" "$sub_arn"
body=$(expect_status "subscription-tokens of no ARN" 400 "$(http GET /_aws/sns/subscription-tokens/randomarnhere)")
jcheck "subscription-tokens of no ARN" "d == {'error': 'The provided SubscriptionARN is invalid', 'subscription_arn': 'randomarnhere'}" <<<"$body"
ok "/_aws/sns/subscription-tokens"

# A scheduled rule fired now.
awsj sqs create-queue --queue-name cli-ticks >/dev/null
rule_arn=$(awsj events put-rule --name cli-hourly --schedule-expression 'rate(1 hour)' | jget RuleArn)
awsj events put-targets --rule cli-hourly --targets "Id=q,Arn=arn:aws:sqs:us-east-1:$ACCOUNT:cli-ticks" >/dev/null
body=$(expect_status trigger 200 "$(http GET "/_aws/events/rules/$rule_arn/trigger")")
event_id=$(jget eventId <<<"$body")
out=$(awsj sqs receive-message --queue-url "$SWITCHYARD_URL/$ACCOUNT/cli-ticks")
event=$(jget Messages 0 Body <<<"$out")
jcheck trigger "d['detail-type'] == 'Scheduled Event' and d['id'] == '$event_id' and d['resources'] == ['$rule_arn']" <<<"$event"
expect_status "trigger of no rule" 400 "$(http GET /_aws/events/rules/nonsense/trigger)" >/dev/null
ok "/_aws/events/rules/<arn>/trigger"
