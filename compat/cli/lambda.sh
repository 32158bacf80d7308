#!/usr/bin/env bash
# AWS Lambda end to end through the AWS CLI v1 (restJson1, the CLI's own model), on the manual
# clock: a Python function created with `--zip-file fileb://`, invoked synchronously and as an
# event, its event invoke configuration with an OnFailure queue reached after the retries, a
# version and an alias, an SQS event source mapping draining a queue with partial batch failures,
# and AWS's errors for bad input.
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROLE="arn:aws:iam::$ACCOUNT:role/cli-lambda"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

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

cat >"$work/app.py" <<'PY'
def handler(event, context):
    if "Records" in event:
        return {"batchItemFailures": [{"itemIdentifier": r["messageId"]}
                                      for r in event["Records"] if r["body"].startswith("bad")]}
    return {"hello": event.get("name"), "version": context.function_version}

def fails(event, context):
    raise ValueError("no " + event["order"])
PY
(cd "$work" && python3 -m zipfile -c fn.zip app.py)

# --- create, invoke ---------------------------------------------------------------------------------
out=$(awsj lambda create-function --function-name cli-fn --runtime python3.12 --handler app.handler \
    --role "$ROLE" --zip-file "fileb://$work/fn.zip") || fail "create-function"
jcheck create-function "d['FunctionName'] == 'cli-fn' and d['State'] == 'Pending'" <<<"$out"
awsj lambda wait function-active-v2 --function-name cli-fn || fail "wait function-active-v2"
echo '{"name": "cli"}' >"$work/event.json"
out=$(awsj lambda invoke --function-name cli-fn --payload "fileb://$work/event.json" "$work/out.json") \
    || fail "invoke"
jcheck invoke "d['StatusCode'] == 200 and d['ExecutedVersion'] == '\$LATEST'" <<<"$out"
jcheck invoke-payload "d == {'hello': 'cli', 'version': '\$LATEST'}" <"$work/out.json"
ok "a Python function created from a zip and invoked"

# --- a version and an alias -------------------------------------------------------------------------
out=$(awsj lambda publish-version --function-name cli-fn) || fail "publish-version"
jcheck publish-version "d['Version'] == '1'" <<<"$out"
awsj lambda create-alias --function-name cli-fn --name live --function-version 1 >/dev/null \
    || fail "create-alias"
out=$(awsj lambda invoke --function-name cli-fn --qualifier live --payload "fileb://$work/event.json" \
    "$work/out.json") || fail "invoke the alias"
jcheck invoke-alias "d['ExecutedVersion'] == '1'" <<<"$out"
jcheck invoke-alias-payload "d['version'] == '1'" <"$work/out.json"
ok "a version and an alias"

# --- an event that fails: retried on the virtual clock, then OnFailure ------------------------------
fail_url=$(awsj sqs create-queue --queue-name cli-lambda-failures | jget QueueUrl) || fail "create-queue"
awsj lambda create-function --function-name cli-billing --runtime python3.12 --handler app.fails \
    --role "$ROLE" --zip-file "fileb://$work/fn.zip" >/dev/null || fail "create-function (billing)"
out=$(awsj lambda put-function-event-invoke-config --function-name cli-billing --maximum-retry-attempts 1 \
    --destination-config "{\"OnFailure\":{\"Destination\":\"arn:aws:sqs:us-east-1:$ACCOUNT:cli-lambda-failures\"}}") \
    || fail "put-function-event-invoke-config"
jcheck put-function-event-invoke-config "d['MaximumRetryAttempts'] == 1 and d['FunctionArn'].endswith(':cli-billing:\$LATEST')" <<<"$out"
echo '{"order": "o-9"}' >"$work/order.json"
out=$(awsj lambda invoke --function-name cli-billing --invocation-type Event \
    --payload "fileb://$work/order.json" "$work/out.json") || fail "invoke Event"
jcheck invoke-event "d['StatusCode'] == 202" <<<"$out"
advance 59
got=$(awsj sqs receive-message --queue-url "$fail_url" | jget Messages 0 Body)
expect_eq on-failure "the record before the retry" "$got" ""
advance 1
record=$(awsj sqs receive-message --queue-url "$fail_url" | jget Messages 0 Body)
jcheck on-failure-record "d['requestContext']['condition'] == 'RetriesExhausted' and d['requestContext']['approximateInvokeCount'] == 2" <<<"$record"
jcheck on-failure-record "d['requestPayload'] == {'order': 'o-9'} and d['responsePayload']['errorMessage'] == 'no o-9'" <<<"$record"
ok "an event retried once a minute later, then its record on the OnFailure queue"

# --- an SQS event source mapping with partial batch failures ----------------------------------------
awsj sqs create-queue --queue-name cli-lambda-dlq >/dev/null || fail "create-queue (dlq)"
work_url=$(awsj sqs create-queue --queue-name cli-lambda-work --attributes \
    "{\"RedrivePolicy\":\"{\\\"deadLetterTargetArn\\\":\\\"arn:aws:sqs:us-east-1:$ACCOUNT:cli-lambda-dlq\\\",\\\"maxReceiveCount\\\":\\\"1\\\"}\"}" \
    | jget QueueUrl) || fail "create-queue (work)"
out=$(awsj lambda create-event-source-mapping --function-name cli-fn \
    --event-source-arn "arn:aws:sqs:us-east-1:$ACCOUNT:cli-lambda-work" --batch-size 10 \
    --function-response-types ReportBatchItemFailures) || fail "create-event-source-mapping"
jcheck create-event-source-mapping "d['State'] == 'Creating' and d['BatchSize'] == 10" <<<"$out"
uuid=$(jget UUID <<<"$out")
for m in good-1 bad-2; do
    awsj sqs send-message --queue-url "$work_url" --message-body "$m" >/dev/null || fail "send-message"
done
advance 1
jcheck get-event-source-mapping "d['State'] == 'Enabled'" <<<"$(awsj lambda get-event-source-mapping --uuid "$uuid")"
advance 30
dead=$(awsj sqs receive-message --queue-url "$SWITCHYARD_URL/$ACCOUNT/cli-lambda-dlq" | jget Messages 0 Body)
expect_eq mapping "the dead-lettered message" "$dead" "bad-2"
attrs=$(awsj sqs get-queue-attributes --queue-url "$work_url" --attribute-names All)
jcheck mapping-drained "d['Attributes']['ApproximateNumberOfMessages'] == '0' and d['Attributes']['ApproximateNumberOfMessagesNotVisible'] == '0'" <<<"$attrs"
ok "a mapping deleted good-1 and left bad-2 to the queue's redrive policy"

# --- bad input ----------------------------------------------------------------------------------------
# (The CLI itself refuses a file that is not a zip.) An entry that would land outside the folder:
python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1], "w").writestr("../escape.py", "x = 1")' \
    "$work/bad.zip"
expect_error outside-the-folder InvalidParameterValueException awsj lambda create-function --function-name cli-bad \
    --runtime python3.12 --handler app.handler --role "$ROLE" --zip-file "fileb://$work/bad.zip" >/dev/null
expect_error missing-function ResourceNotFoundException awsj lambda invoke --function-name cli-none \
    "$work/out.json" >/dev/null
printf 'not json' >"$work/bad.json"
expect_error not-json InvalidRequestContentException awsj lambda invoke --function-name cli-fn \
    --payload "fileb://$work/bad.json" "$work/out.json" >/dev/null
expect_error batch-window InvalidParameterValueException awsj lambda create-event-source-mapping \
    --function-name cli-billing --event-source-arn "arn:aws:sqs:us-east-1:$ACCOUNT:cli-lambda-work" \
    --batch-size 100 >/dev/null
ok "AWS's errors for a zip entry outside its folder, a missing function, a payload that is not JSON, a batch without a window"

awsj lambda delete-event-source-mapping --uuid "$uuid" >/dev/null || fail "delete-event-source-mapping"
for f in cli-fn cli-billing; do awsj lambda delete-function --function-name "$f" >/dev/null || fail "delete-function $f"; done
ok "lambda.sh"
