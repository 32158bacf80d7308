"""IAM roles and policies through boto3 (AWS Query, signed for `iam` in us-east-1), and STS
AssumeRole whose credentials act in the role's account. Identity policies are stored, not enforced."""

import json

import pytest
from botocore.exceptions import ClientError

TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "events.amazonaws.com"}, "Action": "sts:AssumeRole"}
    ],
}
POLICY = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": "sqs:SendMessage", "Resource": "*"}],
}


@pytest.fixture
def iam(make_client):
    return make_client("iam")


def error_of(excinfo):
    e = excinfo.value.response
    return e["ResponseMetadata"]["HTTPStatusCode"], e["Error"]["Code"], e["Error"]["Message"]


def test_role_lifecycle(iam):
    role = iam.create_role(RoleName="deliver", AssumeRolePolicyDocument=json.dumps(TRUST),
                           Description="rules deliver", Tags=[{"Key": "team", "Value": "a"}])["Role"]
    assert role["Arn"] == "arn:aws:iam::000000000000:role/deliver"
    assert role["RoleId"].startswith("AROA") and len(role["RoleId"]) == 21
    assert role["Path"] == "/"
    assert role["AssumeRolePolicyDocument"] == TRUST  # boto3 decodes the URL-encoded document
    assert role["Tags"] == [{"Key": "team", "Value": "a"}]
    got = iam.get_role(RoleName="deliver")["Role"]
    assert got["RoleId"] == role["RoleId"] and got["CreateDate"] == role["CreateDate"]
    assert got["MaxSessionDuration"] == 3600 and got["Description"] == "rules deliver"
    assert [r["RoleName"] for r in iam.list_roles()["Roles"]] == ["deliver"]

    other = {"Version": "2012-10-17", "Statement": [dict(TRUST["Statement"][0], Principal={"Service": "sns.amazonaws.com"})]}
    iam.update_assume_role_policy(RoleName="deliver", PolicyDocument=json.dumps(other))
    assert iam.get_role(RoleName="deliver")["Role"]["AssumeRolePolicyDocument"] == other

    iam.delete_role(RoleName="deliver")
    with pytest.raises(ClientError) as e:
        iam.get_role(RoleName="deliver")
    assert error_of(e) == (404, "NoSuchEntity", "The role with name deliver cannot be found.")


def test_role_errors(iam):
    iam.create_role(RoleName="r", AssumeRolePolicyDocument=json.dumps(TRUST))
    with pytest.raises(ClientError) as e:
        iam.create_role(RoleName="R", AssumeRolePolicyDocument=json.dumps(TRUST))
    assert error_of(e) == (409, "EntityAlreadyExists", "Role with name R already exists.")
    with pytest.raises(ClientError) as e:
        iam.create_role(RoleName="x", AssumeRolePolicyDocument="{nope")
    assert error_of(e) == (400, "MalformedPolicyDocument", "This policy contains invalid Json")
    with pytest.raises(ClientError) as e:
        iam.update_assume_role_policy(RoleName="missing", PolicyDocument=json.dumps(TRUST))
    assert error_of(e) == (404, "NoSuchEntity", "The role with name missing cannot be found.")


def test_list_roles_paginates(iam):
    for name in ["r1", "r2", "r3"]:
        iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))
    page = iam.list_roles(MaxItems=2)
    assert [r["RoleName"] for r in page["Roles"]] == ["r1", "r2"] and page["IsTruncated"]
    rest = iam.list_roles(MaxItems=2, Marker=page["Marker"])
    assert [r["RoleName"] for r in rest["Roles"]] == ["r3"] and not rest["IsTruncated"]
    names = [r["RoleName"] for p in iam.get_paginator("list_roles").paginate(PaginationConfig={"PageSize": 1}) for r in p["Roles"]]
    assert names == ["r1", "r2", "r3"]


def test_assume_role_acts_in_the_roles_account(make_client):
    iam_b = make_client("iam", aws_access_key_id="111122223333")
    role = iam_b.create_role(RoleName="cross", AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]
    out = make_client("sts").assume_role(RoleArn=role["Arn"], RoleSessionName="setup")
    creds = out["Credentials"]
    assert creds["AccessKeyId"].startswith("ASIA")
    assert out["AssumedRoleUser"]["Arn"] == "arn:aws:sts::111122223333:assumed-role/cross/setup"
    session = dict(aws_access_key_id=creds["AccessKeyId"], aws_secret_access_key=creds["SecretAccessKey"],
                   aws_session_token=creds["SessionToken"])
    me = make_client("sts", **session).get_caller_identity()
    assert me["Account"] == "111122223333"
    assert me["Arn"] == "arn:aws:sts::111122223333:assumed-role/cross/setup"
    url = make_client("sqs", **session).create_queue(QueueName="as-role")["QueueUrl"]
    assert url.endswith("/111122223333/as-role")
    # The role's account sees the role; the caller's does not.
    with pytest.raises(ClientError) as e:
        make_client("iam").get_role(RoleName="cross")
    assert error_of(e)[1] == "NoSuchEntity"


def test_assume_role_of_missing_role_is_denied(make_client):
    with pytest.raises(ClientError) as e:
        make_client("sts").assume_role(RoleArn="arn:aws:iam::000000000000:role/none", RoleSessionName="s1")
    assert error_of(e) == (
        403,
        "AccessDenied",
        "User: arn:aws:iam::000000000000:root is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::000000000000:role/none",
    )


def test_inline_policies(iam):
    iam.create_role(RoleName="r", AssumeRolePolicyDocument=json.dumps(TRUST))
    iam.put_role_policy(RoleName="r", PolicyName="send", PolicyDocument=json.dumps(POLICY))
    got = iam.get_role_policy(RoleName="r", PolicyName="send")
    assert (got["RoleName"], got["PolicyName"], got["PolicyDocument"]) == ("r", "send", POLICY)
    assert iam.list_role_policies(RoleName="r")["PolicyNames"] == ["send"]
    with pytest.raises(ClientError) as e:
        iam.delete_role(RoleName="r")
    assert error_of(e) == (409, "DeleteConflict", "Cannot delete entity, must delete policies first.")
    with pytest.raises(ClientError) as e:
        iam.put_role_policy(RoleName="r", PolicyName="bad", PolicyDocument="[]")
    assert error_of(e) == (400, "MalformedPolicyDocument", "Syntax errors in policy.")
    with pytest.raises(ClientError) as e:
        iam.get_role_policy(RoleName="r", PolicyName="other")
    assert error_of(e) == (404, "NoSuchEntity", "The role policy with name other cannot be found.")
    iam.delete_role_policy(RoleName="r", PolicyName="send")
    assert iam.list_role_policies(RoleName="r")["PolicyNames"] == []
    iam.delete_role(RoleName="r")


def test_managed_policies_and_attachments(iam):
    iam.create_role(RoleName="r", AssumeRolePolicyDocument=json.dumps(TRUST))
    policy = iam.create_policy(PolicyName="send", Path="/app/", PolicyDocument=json.dumps(POLICY),
                               Description="sends")["Policy"]
    arn = policy["Arn"]
    assert arn == "arn:aws:iam::000000000000:policy/app/send"
    assert policy["PolicyId"].startswith("ANPA") and len(policy["PolicyId"]) == 21
    assert policy["DefaultVersionId"] == "v1" and policy["AttachmentCount"] == 0 and policy["IsAttachable"]
    with pytest.raises(ClientError) as e:
        iam.create_policy(PolicyName="send", PolicyDocument=json.dumps(POLICY))
    assert error_of(e) == (409, "EntityAlreadyExists", "A policy called send already exists. Duplicate names are not allowed.")

    iam.attach_role_policy(RoleName="r", PolicyArn=arn)
    iam.attach_role_policy(RoleName="r", PolicyArn="arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole")
    attached = iam.list_attached_role_policies(RoleName="r")["AttachedPolicies"]
    assert attached == [
        {"PolicyName": "send", "PolicyArn": arn},
        {"PolicyName": "AWSLambdaBasicExecutionRole",
         "PolicyArn": "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"},
    ]
    assert iam.get_policy(PolicyArn=arn)["Policy"]["AttachmentCount"] == 1
    version = iam.get_policy_version(PolicyArn=arn, VersionId="v1")["PolicyVersion"]
    assert version["Document"] == POLICY and version["IsDefaultVersion"] and version["VersionId"] == "v1"
    listed = iam.list_policies(Scope="Local", OnlyAttached=True)["Policies"]
    assert [p["PolicyName"] for p in listed] == ["send"]

    with pytest.raises(ClientError) as e:
        iam.delete_policy(PolicyArn=arn)
    assert error_of(e) == (409, "DeleteConflict", "Cannot delete a policy attached to entities.")
    with pytest.raises(ClientError) as e:
        iam.delete_role(RoleName="r")
    assert error_of(e) == (409, "DeleteConflict", "Cannot delete entity, must detach all policies first.")
    with pytest.raises(ClientError) as e:
        iam.attach_role_policy(RoleName="r", PolicyArn="arn:aws:iam::000000000000:policy/none")
    assert error_of(e) == (404, "NoSuchEntity", "Policy arn:aws:iam::000000000000:policy/none does not exist or is not attachable.")

    iam.detach_role_policy(RoleName="r", PolicyArn=arn)
    with pytest.raises(ClientError) as e:
        iam.detach_role_policy(RoleName="r", PolicyArn=arn)
    assert error_of(e) == (404, "NoSuchEntity", f"Policy {arn} was not found.")
    iam.delete_policy(PolicyArn=arn)
    with pytest.raises(ClientError) as e:
        iam.get_policy(PolicyArn=arn)
    assert error_of(e) == (404, "NoSuchEntity", f"Policy {arn} was not found.")


def test_role_and_policy_tags(iam):
    iam.create_role(RoleName="r", AssumeRolePolicyDocument=json.dumps(TRUST))
    iam.tag_role(RoleName="r", Tags=[{"Key": "b", "Value": "2"}, {"Key": "a", "Value": "1"}])
    iam.tag_role(RoleName="r", Tags=[{"Key": "A", "Value": "one"}])
    assert iam.list_role_tags(RoleName="r")["Tags"] == [{"Key": "A", "Value": "one"}, {"Key": "b", "Value": "2"}]
    iam.untag_role(RoleName="r", TagKeys=["a"])
    assert iam.list_role_tags(RoleName="r")["Tags"] == [{"Key": "b", "Value": "2"}]
    with pytest.raises(ClientError) as e:
        iam.tag_role(RoleName="r", Tags=[{"Key": f"k{i}", "Value": ""} for i in range(50)])
    assert error_of(e) == (409, "LimitExceeded", "The number of tags has reached the maximum limit.")
    with pytest.raises(ClientError) as e:
        iam.list_role_tags(RoleName="nope")
    assert error_of(e)[1] == "NoSuchEntity"

    arn = iam.create_policy(PolicyName="p", PolicyDocument=json.dumps(POLICY),
                            Tags=[{"Key": "team", "Value": "x"}])["Policy"]["Arn"]
    assert iam.list_policy_tags(PolicyArn=arn)["Tags"] == [{"Key": "team", "Value": "x"}]
    iam.tag_policy(PolicyArn=arn, Tags=[{"Key": "env", "Value": "dev"}])
    iam.untag_policy(PolicyArn=arn, TagKeys=["team"])
    assert iam.list_policy_tags(PolicyArn=arn)["Tags"] == [{"Key": "env", "Value": "dev"}]
    assert iam.get_policy(PolicyArn=arn)["Policy"]["Tags"] == [{"Key": "env", "Value": "dev"}]


@pytest.mark.parametrize("document, message", [
    ("{not json", "Syntax errors in policy."),
    ("{}", "Syntax errors in policy."),
    ('{"Version":"2012-10-17","Statement":[]}', "Syntax errors in policy."),
    ('{"Version":"2012-10-17","Statement":[{"Action":"sqs:*","Resource":"*"}]}', "Syntax errors in policy."),
    ('{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:*","Resource":"*"}]}',
     "Policy document should not specify a principal."),
])
def test_malformed_identity_policies(iam, document, message):
    with pytest.raises(ClientError) as e:
        iam.create_policy(PolicyName="p", PolicyDocument=document)
    assert error_of(e) == (400, "MalformedPolicyDocument", message)
    assert iam.list_policies(Scope="Local")["Policies"] == []
