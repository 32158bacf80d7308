"""Lambda's functions (issue 31, first step) through boto3's own model (REST-JSON): a zip
uploaded and described as AWS describes it, the waiters that look for Active and Successful,
listing by pages, updates, and AWS's errors (docs/lambda.md).
"""

import base64
import json
import hashlib
import io
import zipfile

import pytest
from botocore.exceptions import ClientError

ROLE = "arn:aws:iam::000000000000:role/lambda"


@pytest.fixture(scope="module")
def awslambda(make_client):
    return make_client("lambda")


def zip_of(files):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, body in files.items():
            z.writestr(name, body)
    return buf.getvalue()


def create(awslambda, name, code):
    return awslambda.create_function(FunctionName=name, Role=ROLE, Runtime="python3.12",
                                     Handler="app.handler", Code={"ZipFile": code})


def test_a_function_from_a_zip_is_described_as_aws_describes_it(awslambda):
    code = zip_of({"app.py": "def handler(event, context):\n    return event\n"})
    out = create(awslambda, "echo", code)
    assert out["ResponseMetadata"]["HTTPStatusCode"] == 201
    assert out["State"] == "Pending" and out["StateReasonCode"] == "Creating"
    assert out["CodeSha256"] == base64.b64encode(hashlib.sha256(code).digest()).decode()
    assert out["CodeSize"] == len(code)
    # The waiters boto3 ships find the function ready on their first look.
    awslambda.get_waiter("function_active_v2").wait(FunctionName="echo")
    awslambda.get_waiter("function_exists").wait(FunctionName="echo")
    got = awslambda.get_function(FunctionName="echo")["Configuration"]
    assert (got["State"], got["LastUpdateStatus"]) == ("Active", "Successful")
    updated = awslambda.update_function_configuration(FunctionName="echo", Timeout=10)
    assert updated["LastUpdateStatus"] == "InProgress"
    awslambda.get_waiter("function_updated_v2").wait(FunctionName="echo")
    with pytest.raises(ClientError) as e:
        create(awslambda, "echo", code)
    assert e.value.response["Error"] == {"Code": "ResourceConflictException",
                                         "Message": "Function already exist: echo"}
    awslambda.delete_function(FunctionName="echo")
    with pytest.raises(ClientError) as e:
        awslambda.get_function(FunctionName="echo")
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404
    assert e.value.response["Error"]["Message"] == (
        "Function not found: arn:aws:lambda:us-east-1:000000000000:function:echo")


def test_bad_zips_are_refused(awslambda):
    with pytest.raises(ClientError) as e:
        create(awslambda, "bad", b"not a zip")
    assert e.value.response["Error"]["Code"] == "InvalidParameterValueException"
    assert e.value.response["Error"]["Message"] == (
        "Could not unzip uploaded file. Please check your file, then try to upload again.")
    with pytest.raises(ClientError) as e:
        create(awslambda, "bad", zip_of({"../../escape.py": "x"}))
    assert "escape.py" in e.value.response["Error"]["Message"]
    assert awslambda.list_functions()["Functions"] == []


def test_functions_are_listed_by_pages(awslambda):
    code = zip_of({"app.py": "def handler(e, c):\n    return 1\n"})
    for name in ["c", "a", "b"]:
        create(awslambda, name, code)
    pages = awslambda.get_paginator("list_functions").paginate(PaginationConfig={"PageSize": 2})
    names = [f["FunctionName"] for page in pages for f in page["Functions"]]
    assert names == ["a", "b", "c"]


def test_a_python_function_sends_to_sqs_with_boto3_through_aws_endpoint_url(awslambda, sqs):
    """AWS's Python runtimes ship boto3; locally the function imports the interpreter's own
    (compat/run names the venv's python with --lambda-runtime), and AWS_ENDPOINT_URL, set by
    switchyard, points it back at the emulator."""
    url = sqs.create_queue(QueueName="from-lambda")["QueueUrl"]
    code = zip_of({"app.py": (
        "import boto3, json, os\n"
        "def handler(event, context):\n"
        "    sqs = boto3.client('sqs')\n"
        "    sqs.send_message(QueueUrl=event['queue'], MessageBody=json.dumps(event['body']))\n"
        "    return os.environ['AWS_ENDPOINT_URL']\n")})
    create(awslambda, "sender", code)
    out = awslambda.invoke(FunctionName="sender",
                           Payload=json.dumps({"queue": url, "body": {"n": 1}}))
    assert out["StatusCode"] == 200 and "FunctionError" not in out, out
    endpoint = json.loads(out["Payload"].read())
    assert endpoint.startswith("http://127.0.0.1:")
    got = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=0)["Messages"]
    assert [json.loads(m["Body"]) for m in got] == [{"n": 1}]
