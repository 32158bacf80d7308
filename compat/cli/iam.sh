#!/usr/bin/env bash
# IAM as setup scripts use it, through the AWS CLI v1 (AWS Query): a role for a rule's target, an
# inline and a managed policy, then STS assume-role and a call made with the role's credentials.
# Needs SWITCHYARD_URL, dummy credentials and `aws` on PATH: compat/run sets all three up.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TRUST='{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"events.amazonaws.com"},"Action":"sts:AssumeRole"}]}'

out=$(awsj iam create-role --role-name cli-deliver --assume-role-policy-document "$TRUST") \
    || fail "create-role: aws exited non-zero"
role_arn=$(jget Role Arn <<<"$out")
expect_eq create-role Arn "$role_arn" "arn:aws:iam::$ACCOUNT:role/cli-deliver"
jcheck create-role "d['Role']['RoleId'].startswith('AROA') and len(d['Role']['RoleId']) == 21" <<<"$out"
ok "create-role"

out=$(awsj iam get-role --role-name cli-deliver) || fail "get-role: aws exited non-zero"
jcheck get-role "d['Role']['AssumeRolePolicyDocument']['Statement'][0]['Action'] == 'sts:AssumeRole'" <<<"$out"
ok "get-role"

if err=$(awsj iam create-role --role-name cli-deliver --assume-role-policy-document "$TRUST" 2>&1); then
    fail "create-role again: expected EntityAlreadyExists"
fi
[[ "$err" == *"(EntityAlreadyExists) when calling the CreateRole operation: Role with name cli-deliver already exists."* ]] \
    || fail "create-role again: $err"
ok "create-role again: EntityAlreadyExists"

out=$(awsj sts assume-role --role-arn "$role_arn" --role-session-name cli) || fail "assume-role: aws exited non-zero"
key=$(jget Credentials AccessKeyId <<<"$out")
secret=$(jget Credentials SecretAccessKey <<<"$out")
token=$(jget Credentials SessionToken <<<"$out")
expect_eq assume-role Arn "$(jget AssumedRoleUser Arn <<<"$out")" "arn:aws:sts::$ACCOUNT:assumed-role/cli-deliver/cli"
out=$(AWS_ACCESS_KEY_ID=$key AWS_SECRET_ACCESS_KEY=$secret AWS_SESSION_TOKEN=$token awsj sts get-caller-identity) \
    || fail "get-caller-identity as the role: aws exited non-zero"
expect_eq "get-caller-identity as the role" Arn "$(jget Arn <<<"$out")" "arn:aws:sts::$ACCOUNT:assumed-role/cli-deliver/cli"
ok "assume-role"

awsj iam delete-role --role-name cli-deliver >/dev/null || fail "delete-role: aws exited non-zero"
if err=$(awsj iam get-role --role-name cli-deliver 2>&1); then
    fail "get-role after delete: expected NoSuchEntity"
fi
[[ "$err" == *"(NoSuchEntity) when calling the GetRole operation: The role with name cli-deliver cannot be found."* ]] \
    || fail "get-role after delete: $err"
ok "delete-role"
