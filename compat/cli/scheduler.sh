#!/usr/bin/env bash
# EventBridge Scheduler end to end through the AWS CLI v1 (restJson1, the CLI's own model), on the
# manual clock: a schedule group with tags, a one-time at() schedule in a daylight-saving zone that
# delivers its context attributes to SQS and deletes itself, a failing target retried under its
# retry policy and then dead-lettered with Scheduler's attributes, listing, AWS's errors for bad
# input, and a group deleted through its DELETING state.
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROLE="arn:aws:iam::$ACCOUNT:role/cli-scheduler"
GROUP=cli-team
group_arn_expected="arn:aws:scheduler:us-east-1:$ACCOUNT:schedule-group/$GROUP"

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

# at_in ZONE SECONDS: at(...) for SECONDS after the virtual now, as local time in ZONE.
at_in() {
    local now
    now=$(control GET clock | jget epochMillis)
    python3 -c '
import datetime, sys, zoneinfo
when = datetime.datetime.fromtimestamp(int(sys.argv[2]) / 1000 + int(sys.argv[3]), zoneinfo.ZoneInfo(sys.argv[1]))
print(when.strftime("at(%Y-%m-%dT%H:%M:%S)"))
' "$1" "$now" "$2"
}

# expect_error STEP CODE COMMAND...: the command fails with CODE.
expect_error() {
    local step=$1 code=$2 err
    shift 2
    if err=$("$@" 2>&1 >/dev/null); then
        fail "$step: expected $code, it succeeded"
    fi
    [[ "$err" == *"($code)"* ]] || fail "$step: expected $code, got: $err"
    echo "$err"
}

queue_url=$(awsj sqs create-queue --queue-name cli-sched-target | jget QueueUrl) || fail "create-queue"
dlq_url=$(awsj sqs create-queue --queue-name cli-sched-dlq | jget QueueUrl) || fail "create-queue (DLQ)"
queue_arn="arn:aws:sqs:us-east-1:$ACCOUNT:cli-sched-target"
dlq_arn="arn:aws:sqs:us-east-1:$ACCOUNT:cli-sched-dlq"

# --- a group with tags ----------------------------------------------------------------------------
out=$(awsj scheduler create-schedule-group --name "$GROUP" --tags Key=team,Value=blue) \
    || fail "create-schedule-group: aws exited non-zero"
expect_eq create-schedule-group ScheduleGroupArn "$(jget ScheduleGroupArn <<<"$out")" "$group_arn_expected"
out=$(awsj scheduler get-schedule-group --name "$GROUP") || fail "get-schedule-group: aws exited non-zero"
jcheck get-schedule-group "d['Name'] == '$GROUP' and d['State'] == 'ACTIVE' and d['Arn'] == '$group_arn_expected'" <<<"$out"
out=$(awsj scheduler list-tags-for-resource --resource-arn "$group_arn_expected") \
    || fail "list-tags-for-resource: aws exited non-zero"
jcheck list-tags-for-resource "d['Tags'] == [{'Key': 'team', 'Value': 'blue'}]" <<<"$out"
out=$(awsj scheduler list-schedule-groups) || fail "list-schedule-groups: aws exited non-zero"
jcheck list-schedule-groups "[g['Name'] for g in d['ScheduleGroups']] == ['$GROUP', 'default']" <<<"$out"
ok "create-schedule-group, get-schedule-group, list-tags-for-resource, list-schedule-groups"

# --- a one-time schedule in Europe/Paris that deletes itself ---------------------------------------
at=$(at_in Europe/Paris 120)
input='{"arn":"<aws.scheduler.schedule-arn>","try":"<aws.scheduler.attempt-number>","at":"<aws.scheduler.scheduled-time>"}'
target='{"Arn": "'"$queue_arn"'", "RoleArn": "'"$ROLE"'", "Input": '"$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$input")"'}'
out=$(awsj scheduler create-schedule --name once --group-name "$GROUP" --schedule-expression "$at" \
    --schedule-expression-timezone Europe/Paris --action-after-completion DELETE \
    --flexible-time-window Mode=OFF --target "$target") || fail "create-schedule: aws exited non-zero"
schedule_arn="arn:aws:scheduler:us-east-1:$ACCOUNT:schedule/$GROUP/once"
expect_eq create-schedule ScheduleArn "$(jget ScheduleArn <<<"$out")" "$schedule_arn"
out=$(awsj scheduler get-schedule --name once --group-name "$GROUP") || fail "get-schedule: aws exited non-zero"
jcheck get-schedule "d['ScheduleExpression'] == '$at' and d['ScheduleExpressionTimezone'] == 'Europe/Paris'" <<<"$out"
jcheck get-schedule "d['State'] == 'ENABLED' and d['ActionAfterCompletion'] == 'DELETE' and d['Target']['Arn'] == '$queue_arn'" <<<"$out"
advance 60
out=$(awsj sqs receive-message --queue-url "$queue_url" --wait-time-seconds 0) || fail "receive-message"
[[ -z "$(jget Messages 0 <<<"$out")" ]] || fail "the schedule ran before its time: $out"
advance 120
out=$(awsj sqs receive-message --queue-url "$queue_url" --max-number-of-messages 10 --wait-time-seconds 0) \
    || fail "receive-message: aws exited non-zero"
jcheck "one run" "len(d['Messages']) == 1" <<<"$out"
body=$(jget Messages 0 Body <<<"$out")
jcheck "context attributes" "d['arn'] == '$schedule_arn' and d['try'] == '1' and d['at'].endswith('Z')" <<<"$body"
expect_error "get-schedule after its run" ResourceNotFoundException \
    awsj scheduler get-schedule --name once --group-name "$GROUP" >/dev/null
ok "create-schedule at() in Europe/Paris with DELETE: ran once with its context, then gone"

# --- a failing target: retries, then one dead letter -----------------------------------------------
fault_id=$(control POST faults '{"target": "'"$queue_arn"'", "status": 500}' | jget id)
[[ -n "$fault_id" ]] || fail "POST /_switchyard/faults: no id"
at=$(at_in UTC 60)
target='{"Arn": "'"$queue_arn"'", "RoleArn": "'"$ROLE"'", "Input": "{\"job\": 7}",
         "RetryPolicy": {"MaximumRetryAttempts": 2, "MaximumEventAgeInSeconds": 3600},
         "DeadLetterConfig": {"Arn": "'"$dlq_arn"'"}}'
awsj scheduler create-schedule --name failing --schedule-expression "$at" --flexible-time-window Mode=OFF \
    --target "$target" >/dev/null || fail "create-schedule (failing): aws exited non-zero"
advance 600
control DELETE "faults/$fault_id" >/dev/null
failing_arn="arn:aws:scheduler:us-east-1:$ACCOUNT:schedule/default/failing"
log=$(control GET "deliveries?source=$failing_arn")
jcheck "delivery log" "[(r['event'], r.get('attempt')) for r in d['records']] == [('attempt', 1), ('attempt', 2), ('attempt', 3), ('dead-lettered', 3)]" <<<"$log"
out=$(awsj sqs receive-message --queue-url "$dlq_url" --message-attribute-names All --wait-time-seconds 0) \
    || fail "receive-message (DLQ): aws exited non-zero"
jcheck "DLQ message" "len(d['Messages']) == 1 and d['Messages'][0]['Body'] == '{\"job\": 7}'" <<<"$out"
attributes=$(jget Messages 0 MessageAttributes <<<"$out")
jcheck "DLQ attributes" "sorted(d) == ['ERROR_CODE', 'ERROR_MESSAGE', 'EXECUTION_ID', 'EXHAUSTED_RETRY_CONDITION', 'RETRY_ATTEMPTS', 'SCHEDULED_TIME', 'SCHEDULE_ARN', 'TARGET_ARN']" <<<"$attributes"
jcheck "DLQ attributes" "d['SCHEDULE_ARN']['StringValue'] == '$failing_arn' and d['TARGET_ARN']['StringValue'] == '$queue_arn'" <<<"$attributes"
jcheck "DLQ attributes" "d['EXHAUSTED_RETRY_CONDITION']['StringValue'] == 'MaximumRetryAttempts' and d['RETRY_ATTEMPTS']['StringValue'] == '2'" <<<"$attributes"
ok "retry policy exhausted: 3 attempts, then the DLQ with Scheduler's attributes"

# --- listing and bad input -------------------------------------------------------------------------
for name in r1 r2; do
    awsj scheduler create-schedule --name "$name" --group-name "$GROUP" --schedule-expression 'rate(1 day)' \
        --state DISABLED --flexible-time-window '{"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 10}' \
        --target '{"Arn": "'"$queue_arn"'", "RoleArn": "'"$ROLE"'"}' >/dev/null || fail "create-schedule $name"
done
out=$(awsj scheduler list-schedules --group-name "$GROUP" --state DISABLED) || fail "list-schedules: aws exited non-zero"
jcheck list-schedules "[s['Name'] for s in d['Schedules']] == ['r1', 'r2'] and d['Schedules'][0]['Target'] == {'Arn': '$queue_arn'}" <<<"$out"
ok "list-schedules --group-name --state"

err=$(expect_error "rate(0 minutes)" ValidationException awsj scheduler create-schedule --name bad \
    --schedule-expression 'rate(0 minutes)' --flexible-time-window Mode=OFF --target '{"Arn": "'"$queue_arn"'", "RoleArn": "'"$ROLE"'"}')
err=$(expect_error "MaximumRetryAttempts 186" ValidationException awsj scheduler create-schedule --name bad \
    --schedule-expression 'rate(1 hour)' --flexible-time-window Mode=OFF \
    --target '{"Arn": "'"$queue_arn"'", "RoleArn": "'"$ROLE"'", "RetryPolicy": {"MaximumRetryAttempts": 186}}')
[[ "$err" == *"target.retryPolicy.maximumRetryAttempts"* ]] || fail "MaximumRetryAttempts 186: member not named: $err"
expect_error "create-schedule twice" ConflictException awsj scheduler create-schedule --name r1 --group-name "$GROUP" \
    --schedule-expression 'rate(1 day)' --flexible-time-window Mode=OFF \
    --target '{"Arn": "'"$queue_arn"'", "RoleArn": "'"$ROLE"'"}' >/dev/null
expect_error "a group that does not exist" ResourceNotFoundException awsj scheduler list-schedules --group-name nowhere >/dev/null
expect_error "delete the default group" ValidationException awsj scheduler delete-schedule-group --name default >/dev/null
ok "ValidationException (naming the member), ConflictException, ResourceNotFoundException"

# --- the group is deleted through DELETING ----------------------------------------------------------
awsj scheduler delete-schedule-group --name "$GROUP" >/dev/null || fail "delete-schedule-group: aws exited non-zero"
out=$(awsj scheduler get-schedule-group --name "$GROUP") || fail "get-schedule-group (deleting): aws exited non-zero"
jcheck "get-schedule-group while deleting" "d['State'] == 'DELETING'" <<<"$out"
expect_error "delete-schedule-group again" ConflictException awsj scheduler delete-schedule-group --name "$GROUP" >/dev/null
advance 1
expect_error "get-schedule-group once deleted" ResourceNotFoundException awsj scheduler get-schedule-group --name "$GROUP" >/dev/null
expect_error "get-schedule of a deleted group" ResourceNotFoundException awsj scheduler get-schedule --name r1 --group-name "$GROUP" >/dev/null
ok "delete-schedule-group: DELETING, then gone with its schedules"

awsj scheduler delete-schedule --name failing >/dev/null || fail "delete-schedule: aws exited non-zero"
awsj sqs delete-queue --queue-url "$queue_url" >/dev/null || fail "delete-queue"
awsj sqs delete-queue --queue-url "$dlq_url" >/dev/null || fail "delete-queue (DLQ)"
