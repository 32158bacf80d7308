#!/usr/bin/env bash
# Services switchyard does not emulate, through the AWS CLI v1 as a new user first tries them: S3
# (REST-XML), DynamoDB (AWS JSON 1.0), SES (AWS Query) and API Gateway (REST-JSON) each answer
# 501 NotImplemented in their own error shape, saying that switchyard does not emulate them and
# which services it does; the request log names the service from the credential scope.
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# expect_not_emulated SERVICE OPERATION COMMAND...: the CLI fails with NotImplemented, naming both.
expect_not_emulated() {
    local service=$1 operation=$2 err
    shift 2
    if err=$(awsj "$@" 2>&1); then
        fail "$*: expected NotImplemented, the CLI succeeded: $err"
    fi
    [[ "$err" == *"(NotImplemented) when calling the $operation operation: switchyard does not emulate the AWS service '$service'"* ]] \
        || fail "$*: $err"
    [[ "$err" == *"it emulates sqs, sns, events"* ]] || fail "$*: the emulated services are not named: $err"
    ok "$*: NotImplemented, naming $service"
}

expect_not_emulated s3 ListBuckets s3api list-buckets
expect_not_emulated dynamodb ListTables dynamodb list-tables
expect_not_emulated ses ListIdentities ses list-identities
expect_not_emulated apigateway GetRestApis apigateway get-rest-apis

# `aws s3 ls`, the first thing many type: the high-level command shows the same message.
if err=$(awsj s3 ls 2>&1); then fail "s3 ls: expected a failure, got: $err"; fi
[[ "$err" == *"NotImplemented"*"switchyard does not emulate the AWS service 's3'"* ]] || fail "s3 ls: $err"
ok "s3 ls: NotImplemented"

# The status, straight from the wire: 501 for each.
out=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0' "$SWITCHYARD_URL/")
expect_eq curl-s3 status "$out" 501
ok "a signed S3 request: 501"

# SQS still answers after them.
awsj sqs list-queues >/dev/null || fail "sqs list-queues after the unemulated calls"
ok "sqs list-queues still answers"
