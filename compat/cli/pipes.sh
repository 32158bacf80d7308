#!/usr/bin/env bash
# EventBridge Pipes end to end through the AWS CLI v1 (restJson1, the CLI's own model), on the
# manual clock: a pipe from one queue to another with a filter and an input template, its states
# (CREATING, RUNNING, STOPPING, STOPPED, STARTING, DELETING), a pipe whose target does not exist
# failing with its StateReason, listing and tags, and AWS's errors for bad input.
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROLE="arn:aws:iam::$ACCOUNT:role/cli-pipe"
PIPE=cli-pipe
pipe_arn_expected="arn:aws:pipes:us-east-1:$ACCOUNT:pipe/$PIPE"

# expect_error STEP CODE COMMAND...: the command fails with CODE; prints the error.
expect_error() {
    local step=$1 code=$2 err
    shift 2
    if err=$("$@" 2>&1 >/dev/null); then
        fail "$step: expected $code, it succeeded"
    fi
    [[ "$err" == *"($code)"* ]] || fail "$step: expected $code, got: $err"
    echo "$err"
}

state_of() { awsj pipes describe-pipe --name "$1" | jget CurrentState; }

src_url=$(awsj sqs create-queue --queue-name cli-pipe-src | jget QueueUrl) || fail "create-queue (source)"
dst_url=$(awsj sqs create-queue --queue-name cli-pipe-dst | jget QueueUrl) || fail "create-queue (target)"
src_arn="arn:aws:sqs:us-east-1:$ACCOUNT:cli-pipe-src"
dst_arn="arn:aws:sqs:us-east-1:$ACCOUNT:cli-pipe-dst"

# --- a pipe: CREATING, then RUNNING -----------------------------------------------------------------
source_parameters='{"SqsQueueParameters": {"BatchSize": 5},
                    "FilterCriteria": {"Filters": [{"Pattern": "{\"body\": {\"kind\": [\"order\"]}}"}]}}'
target_parameters='{"InputTemplate": "{\"order\": <$.body.id>, \"pipe\": \"<aws.pipes.pipe-name>\"}"}'
out=$(awsj pipes create-pipe --name "$PIPE" --source "$src_arn" --target "$dst_arn" --role-arn "$ROLE" \
    --source-parameters "$source_parameters" --target-parameters "$target_parameters" --tags team=blue) \
    || fail "create-pipe: aws exited non-zero"
jcheck create-pipe "d['Arn'] == '$pipe_arn_expected' and d['Name'] == '$PIPE'" <<<"$out"
jcheck create-pipe "d['CurrentState'] == 'CREATING' and d['DesiredState'] == 'RUNNING'" <<<"$out"
advance 1
expect_eq describe-pipe CurrentState "$(state_of "$PIPE")" RUNNING
out=$(awsj pipes describe-pipe --name "$PIPE") || fail "describe-pipe: aws exited non-zero"
jcheck describe-pipe "d['Source'] == '$src_arn' and d['Target'] == '$dst_arn' and d['RoleArn'] == '$ROLE'" <<<"$out"
jcheck describe-pipe "d['SourceParameters']['SqsQueueParameters']['BatchSize'] == 5 and d['Tags'] == {'team': 'blue'}" <<<"$out"
ok "create-pipe (CREATING), then RUNNING; describe-pipe"

# --- messages through the filter and the template ----------------------------------------------------
awsj sqs send-message --queue-url "$src_url" --message-body '{"kind": "order", "id": 41}' >/dev/null || fail "send-message"
awsj sqs send-message --queue-url "$src_url" --message-body '{"kind": "noise", "id": 42}' >/dev/null || fail "send-message"
advance 0
out=$(awsj sqs receive-message --queue-url "$dst_url" --max-number-of-messages 10 --wait-time-seconds 0) \
    || fail "receive-message: aws exited non-zero"
jcheck "through the pipe" "[__import__('json').loads(m['Body']) for m in d['Messages']] == [{'order': 41, 'pipe': '$PIPE'}]" <<<"$out"
out=$(awsj sqs get-queue-attributes --queue-url "$src_url" --attribute-names All) || fail "get-queue-attributes"
jcheck "source emptied" "d['Attributes']['ApproximateNumberOfMessages'] == '0' and d['Attributes']['ApproximateNumberOfMessagesNotVisible'] == '0'" <<<"$out"
ok "a matching message delivered through the template, the filtered one deleted"

# --- stop and start ---------------------------------------------------------------------------------
out=$(awsj pipes stop-pipe --name "$PIPE") || fail "stop-pipe: aws exited non-zero"
jcheck stop-pipe "d['CurrentState'] == 'STOPPING' and d['DesiredState'] == 'STOPPED'" <<<"$out"
expect_error "start-pipe while STOPPING" ConflictException awsj pipes start-pipe --name "$PIPE" >/dev/null
advance 1
expect_eq "after stop-pipe" CurrentState "$(state_of "$PIPE")" STOPPED
awsj sqs send-message --queue-url "$src_url" --message-body '{"kind": "order", "id": 43}' >/dev/null || fail "send-message"
advance 5
out=$(awsj sqs receive-message --queue-url "$dst_url" --wait-time-seconds 0) || fail "receive-message"
[[ -z "$(jget Messages 0 <<<"$out")" ]] || fail "a stopped pipe moved a message: $out"
out=$(awsj pipes start-pipe --name "$PIPE") || fail "start-pipe: aws exited non-zero"
jcheck start-pipe "d['CurrentState'] == 'STARTING'" <<<"$out"
advance 1
expect_eq "after start-pipe" CurrentState "$(state_of "$PIPE")" RUNNING
out=$(awsj sqs receive-message --queue-url "$dst_url" --wait-time-seconds 0) || fail "receive-message"
jcheck "moved once started" "[__import__('json').loads(m['Body']) for m in d['Messages']] == [{'order': 43, 'pipe': '$PIPE'}]" <<<"$out"
ok "stop-pipe (STOPPING, STOPPED), start-pipe (STARTING, RUNNING)"

# --- a missing target: CREATE_FAILED with a reason ----------------------------------------------------
awsj pipes create-pipe --name cli-broken --source "$src_arn" --target "arn:aws:sqs:us-east-1:$ACCOUNT:nowhere" \
    --role-arn "$ROLE" --desired-state STOPPED >/dev/null || fail "create-pipe (broken): aws exited non-zero"
advance 1
out=$(awsj pipes describe-pipe --name cli-broken) || fail "describe-pipe (broken): aws exited non-zero"
jcheck "missing target" "d['CurrentState'] == 'CREATE_FAILED' and 'nowhere' in d['StateReason']" <<<"$out"
ok "a pipe whose target does not exist: CREATE_FAILED with its StateReason"

# --- listing and tags ---------------------------------------------------------------------------------
out=$(awsj pipes list-pipes --name-prefix cli-) || fail "list-pipes: aws exited non-zero"
jcheck list-pipes "[(p['Name'], p['CurrentState']) for p in d['Pipes']] == [('cli-broken', 'CREATE_FAILED'), ('$PIPE', 'RUNNING')]" <<<"$out"
out=$(awsj pipes list-pipes --current-state RUNNING) || fail "list-pipes --current-state: aws exited non-zero"
jcheck "list-pipes --current-state" "[p['Name'] for p in d['Pipes']] == ['$PIPE']" <<<"$out"
awsj pipes tag-resource --resource-arn "$pipe_arn_expected" --tags env=test >/dev/null || fail "tag-resource"
awsj pipes untag-resource --resource-arn "$pipe_arn_expected" --tag-keys team >/dev/null || fail "untag-resource"
out=$(awsj pipes list-tags-for-resource --resource-arn "$pipe_arn_expected") || fail "list-tags-for-resource"
jcheck list-tags-for-resource "d['tags'] == {'env': 'test'}" <<<"$out"
ok "list-pipes (prefix, state), tag-resource, untag-resource, list-tags-for-resource"

# --- bad input ------------------------------------------------------------------------------------------
err=$(expect_error "BatchSize 20 without a window" ValidationException awsj pipes create-pipe --name bad \
    --source "$src_arn" --target "$dst_arn" --role-arn "$ROLE" --source-parameters '{"SqsQueueParameters": {"BatchSize": 20}}')
[[ "$err" == *"sourceParameters.sqsQueueParameters.maximumBatchingWindowInSeconds"* ]] \
    || fail "BatchSize 20 without a window: member not named: $err"
err=$(expect_error "a role that is no role" ValidationException awsj pipes create-pipe --name bad --source "$src_arn" \
    --target "$dst_arn" --role-arn not-a-role)
[[ "$err" == *"roleArn"* ]] || fail "role: member not named: $err"
expect_error "create-pipe twice" ConflictException awsj pipes create-pipe --name "$PIPE" --source "$src_arn" \
    --target "$dst_arn" --role-arn "$ROLE" >/dev/null
expect_error "describe-pipe of no pipe" NotFoundException awsj pipes describe-pipe --name nothing >/dev/null
ok "ValidationException (naming the member), ConflictException, NotFoundException"

# --- deleting ---------------------------------------------------------------------------------------------
out=$(awsj pipes delete-pipe --name "$PIPE") || fail "delete-pipe: aws exited non-zero"
jcheck delete-pipe "d['CurrentState'] == 'DELETING'" <<<"$out"
expect_error "update-pipe while DELETING" ConflictException awsj pipes update-pipe --name "$PIPE" --role-arn "$ROLE" >/dev/null
awsj pipes delete-pipe --name cli-broken >/dev/null || fail "delete-pipe (broken): aws exited non-zero"
advance 1
expect_error "describe-pipe once deleted" NotFoundException awsj pipes describe-pipe --name "$PIPE" >/dev/null
out=$(awsj pipes list-pipes --name-prefix cli-) || fail "list-pipes: aws exited non-zero"
jcheck "list-pipes after delete-pipe" "d['Pipes'] == []" <<<"$out"
ok "delete-pipe: DELETING, then gone"

awsj sqs delete-queue --queue-url "$src_url" >/dev/null || fail "delete-queue"
awsj sqs delete-queue --queue-url "$dst_url" >/dev/null || fail "delete-queue"
