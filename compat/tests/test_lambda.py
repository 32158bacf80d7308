"""Lambda's functions through boto3's own model (REST-JSON): a zip uploaded and described as
AWS describes it, the waiters that look for Active and Successful, listing by pages, updates,
versions and aliases, layers, resource policies, and AWS's errors (docs/lambda.md).
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


def error_of(e):
    return (e.value.response["Error"]["Code"], e.value.response["Error"]["Message"])


def versioned(answer):
    return zip_of({"app.py": (
        "def handler(event, context):\n"
        f"    return {{'code': '{answer}', 'version': context.function_version}}\n")})


def test_versions_and_aliases_run_their_own_code(awslambda):
    arn = create(awslambda, "vers", versioned("one"))["FunctionArn"]
    one = awslambda.publish_version(FunctionName="vers")
    assert (one["Version"], one["FunctionArn"]) == ("1", arn + ":1")
    assert awslambda.publish_version(FunctionName="vers")["Version"] == "1"
    awslambda.update_function_code(FunctionName="vers", ZipFile=versioned("two"))
    with pytest.raises(ClientError) as e:
        awslambda.publish_version(FunctionName="vers", CodeSha256=one["CodeSha256"])
    assert e.value.response["Error"]["Code"] == "InvalidParameterValueException"
    assert awslambda.publish_version(FunctionName="vers")["Version"] == "2"
    pages = awslambda.get_paginator("list_versions_by_function").paginate(
        FunctionName="vers", PaginationConfig={"PageSize": 2})
    assert [v["Version"] for page in pages for v in page["Versions"]] == ["$LATEST", "1", "2"]

    alias = awslambda.create_alias(FunctionName="vers", Name="live", FunctionVersion="1")
    assert alias["AliasArn"] == arn + ":live"
    out = awslambda.invoke(FunctionName="vers", Qualifier="live")
    assert out["ExecutedVersion"] == "1"
    assert json.loads(out["Payload"].read()) == {"code": "one", "version": "1"}
    out = awslambda.invoke(FunctionName="vers:2")
    assert (out["ExecutedVersion"], json.loads(out["Payload"].read())["code"]) == ("2", "two")
    awslambda.update_alias(FunctionName="vers", Name="live",
                           RoutingConfig={"AdditionalVersionWeights": {"2": 1.0}})
    assert awslambda.invoke(FunctionName="vers:live")["ExecutedVersion"] == "2"
    got = awslambda.get_function_configuration(FunctionName="vers", Qualifier="live")
    assert (got["Version"], got["FunctionArn"]) == ("1", arn + ":live")

    with pytest.raises(ClientError) as e:
        awslambda.create_alias(FunctionName="vers", Name="live", FunctionVersion="2")
    assert error_of(e) == ("ResourceConflictException", f"Alias already exists: {arn}:live")
    with pytest.raises(ClientError) as e:
        awslambda.create_alias(FunctionName="vers", Name="beta", FunctionVersion="9")
    assert error_of(e) == ("ResourceNotFoundException", f"Function not found: {arn}:9")
    with pytest.raises(ClientError) as e:
        awslambda.update_alias(FunctionName="vers", Name="live",
                               RoutingConfig={"AdditionalVersionWeights": {"2": 1.5}})
    assert e.value.response["Error"]["Code"] == "ValidationException"
    with pytest.raises(ClientError) as e:
        awslambda.delete_function(FunctionName="vers", Qualifier="1")
    assert error_of(e) == ("ResourceConflictException",
                           "Unable to delete version because the following aliases reference it: [live]")
    with pytest.raises(ClientError) as e:
        awslambda.get_function(FunctionName="vers", Qualifier="7")
    assert error_of(e) == ("ResourceNotFoundException", f"Function not found: {arn}:7")
    assert [a["Name"] for a in awslambda.list_aliases(FunctionName="vers")["Aliases"]] == ["live"]
    awslambda.delete_alias(FunctionName="vers", Name="live")
    awslambda.delete_function(FunctionName="vers", Qualifier="1")
    versions = awslambda.list_versions_by_function(FunctionName="vers")["Versions"]
    assert [v["Version"] for v in versions] == ["$LATEST", "2"]


def test_a_function_imports_a_module_from_its_layer(awslambda):
    layer = awslambda.publish_layer_version(
        LayerName="helpers", CompatibleRuntimes=["python3.12"],
        Content={"ZipFile": zip_of({"python/helper.py": "def greet(n):\n    return 'hi ' + n\n"})})
    assert layer["Version"] == 1 and layer["LayerVersionArn"].endswith(":layer:helpers:1")
    app = zip_of({"app.py": "import helper\ndef handler(event, context):\n"
                            "    return helper.greet(event['name'])\n"})
    made = awslambda.create_function(FunctionName="layered", Role=ROLE, Runtime="python3.12",
                                     Handler="app.handler", Code={"ZipFile": app},
                                     Layers=[layer["LayerVersionArn"]])
    assert made["Layers"] == [{"Arn": layer["LayerVersionArn"],
                               "CodeSize": layer["Content"]["CodeSize"]}]
    out = awslambda.invoke(FunctionName="layered", Payload=json.dumps({"name": "ada"}))
    assert json.loads(out["Payload"].read()) == "hi ada", out
    listed = awslambda.list_layers(CompatibleRuntime="python3.12")["Layers"]
    assert [(l["LayerName"], l["LatestMatchingVersion"]["Version"]) for l in listed] == [("helpers", 1)]
    assert awslambda.list_layers(CompatibleRuntime="nodejs20.x")["Layers"] == []
    versions = awslambda.list_layer_versions(LayerName="helpers")["LayerVersions"]
    assert [v["Version"] for v in versions] == [1]
    with pytest.raises(ClientError) as e:
        awslambda.update_function_configuration(
            FunctionName="layered", Layers=[f"{layer['LayerArn']}:{n}" for n in range(1, 7)])
    assert error_of(e) == ("InvalidParameterValueException", "Cannot reference more than 5 layers.")
    with pytest.raises(ClientError) as e:
        awslambda.update_function_configuration(FunctionName="layered",
                                                Layers=[layer["LayerArn"] + ":5"])
    assert error_of(e) == ("InvalidParameterValueException",
                           f"Layer version {layer['LayerArn']}:5 does not exist.")
    awslambda.delete_layer_version(LayerName="helpers", VersionNumber=1)
    with pytest.raises(ClientError) as e:
        awslambda.get_layer_version(LayerName="helpers", VersionNumber=1)
    assert error_of(e) == ("ResourceNotFoundException", "The resource you requested does not exist.")


def test_permissions_make_the_policy_aws_returns(awslambda):
    arn = create(awslambda, "guarded", zip_of({"app.py": "def handler(e, c):\n    return 1\n"}))["FunctionArn"]
    with pytest.raises(ClientError) as e:
        awslambda.get_policy(FunctionName="guarded")
    assert error_of(e) == ("ResourceNotFoundException", "The resource you requested does not exist.")
    topic = "arn:aws:sns:us-east-1:000000000000:news"
    added = awslambda.add_permission(FunctionName="guarded", StatementId="sns",
                                     Action="lambda:InvokeFunction", Principal="sns.amazonaws.com",
                                     SourceArn=topic)
    statement = {"Sid": "sns", "Effect": "Allow", "Principal": {"Service": "sns.amazonaws.com"},
                 "Action": "lambda:InvokeFunction", "Resource": arn,
                 "Condition": {"ArnLike": {"AWS:SourceArn": topic}}}
    assert json.loads(added["Statement"]) == statement
    got = awslambda.get_policy(FunctionName="guarded")
    assert json.loads(got["Policy"]) == {"Version": "2012-10-17", "Id": "default",
                                         "Statement": [statement]}
    assert got["RevisionId"] == awslambda.get_function(FunctionName="guarded")["Configuration"]["RevisionId"]
    with pytest.raises(ClientError) as e:
        awslambda.add_permission(FunctionName="guarded", StatementId="sns",
                                 Action="lambda:InvokeFunction", Principal="events.amazonaws.com")
    assert error_of(e) == ("ResourceConflictException",
                           "The statement id (sns) provided already exists. Please provide a new "
                           "statement id, or remove the existing statement.")
    with pytest.raises(ClientError) as e:
        awslambda.remove_permission(FunctionName="guarded", StatementId="nope")
    assert error_of(e) == ("ResourceNotFoundException",
                           "Statement nope is not found in resource policy.")
    awslambda.remove_permission(FunctionName="guarded", StatementId="sns")
    with pytest.raises(ClientError):
        awslambda.get_policy(FunctionName="guarded")


SENDER = (
    "import boto3, json, os\n"
    "sqs = boto3.client('sqs')\n"
    "def handler(event, context):\n"
    "    failures = []\n"
    "    for r in event['Records']:\n"
    "        sqs.send_message(QueueUrl=os.environ['SEEN'], MessageBody=r['body'])\n"
    "        if r['body'].startswith('bad'):\n"
    "            failures.append({'itemIdentifier': r['messageId']})\n"
    "    return {'batchItemFailures': failures}\n"
    "def fails(event, context):\n"
    "    raise RuntimeError('no ' + json.dumps(event))\n"
)


def bodies(sqs, url):
    got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
    for m in got:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    return [m["Body"] for m in got]


def test_a_mapping_drains_a_queue_through_a_function_that_sends_with_boto3(awslambda, sqs, control):
    """SQS → a Python function (boto3 inside) → SQS, one clock call at a time: the batch
    handled is deleted, the failed item comes back after the visibility timeout and is
    dead-lettered by the queue's redrive policy."""
    seen = sqs.create_queue(QueueName="seen")["QueueUrl"]
    sqs.create_queue(QueueName="work-dlq")
    work = sqs.create_queue(QueueName="work", Attributes={"RedrivePolicy": json.dumps(
        {"deadLetterTargetArn": "arn:aws:sqs:us-east-1:000000000000:work-dlq", "maxReceiveCount": 2})})["QueueUrl"]
    awslambda.create_function(FunctionName="worker", Role=ROLE, Runtime="python3.12", Handler="app.handler",
                              Code={"ZipFile": zip_of({"app.py": SENDER})},
                              Environment={"Variables": {"SEEN": seen}})
    mapping = awslambda.create_event_source_mapping(
        FunctionName="worker", EventSourceArn="arn:aws:sqs:us-east-1:000000000000:work", BatchSize=5,
        FunctionResponseTypes=["ReportBatchItemFailures"])
    assert mapping["State"] == "Creating" and mapping["ResponseMetadata"]["HTTPStatusCode"] == 202
    for body in ["good-1", "bad-2", "good-3"]:
        sqs.send_message(QueueUrl=work, MessageBody=body)
    control.advance(1)
    assert awslambda.get_event_source_mapping(UUID=mapping["UUID"])["State"] == "Enabled"
    assert sorted(bodies(sqs, seen)) == ["bad-2", "good-1", "good-3"]
    control.advance(30)
    assert bodies(sqs, seen) == ["bad-2"]
    control.advance(30)
    assert bodies(sqs, seen) == []
    dead = sqs.receive_message(QueueUrl=sqs.get_queue_url(QueueName="work-dlq")["QueueUrl"])["Messages"]
    assert [m["Body"] for m in dead] == ["bad-2"]
    listed = awslambda.get_paginator("list_event_source_mappings").paginate(FunctionName="worker")
    assert [m["UUID"] for page in listed for m in page["EventSourceMappings"]] == [mapping["UUID"]]


def test_an_async_failure_reaches_its_on_failure_destination_and_dlq(awslambda, sqs, sns, control):
    failures = sqs.create_queue(QueueName="failures")["QueueUrl"]
    dead = sqs.create_queue(QueueName="dead")["QueueUrl"]
    awslambda.create_function(FunctionName="billing", Role=ROLE, Runtime="python3.12", Handler="app.fails",
                              Code={"ZipFile": zip_of({"app.py": SENDER})},
                              DeadLetterConfig={"TargetArn": "arn:aws:sqs:us-east-1:000000000000:dead"})
    awslambda.put_function_event_invoke_config(
        FunctionName="billing", MaximumRetryAttempts=1,
        DestinationConfig={"OnFailure": {"Destination": "arn:aws:sqs:us-east-1:000000000000:failures"}})
    topic = sns.create_topic(Name="bills")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="lambda",
                  Endpoint="arn:aws:lambda:us-east-1:000000000000:function:billing")
    sns.publish(TopicArn=topic, Message="invoice 7")
    control.advance(0)
    assert bodies(sqs, failures) == []
    control.advance(60)
    record = json.loads(bodies(sqs, failures)[0])
    assert record["requestContext"]["condition"] == "RetriesExhausted"
    assert record["requestContext"]["approximateInvokeCount"] == 2
    assert record["requestPayload"]["Records"][0]["Sns"]["Message"] == "invoice 7"
    assert record["responseContext"]["functionError"] == "Unhandled"
    assert record["responsePayload"]["errorType"] == "RuntimeError"
    got = sqs.receive_message(QueueUrl=dead, MessageAttributeNames=["All"])["Messages"][0]
    assert json.loads(got["Body"])["Records"][0]["Sns"]["Message"] == "invoice 7"
    attrs = got["MessageAttributes"]
    assert attrs["RequestID"]["StringValue"] == record["requestContext"]["requestId"]
    assert attrs["ErrorCode"] == {"StringValue": "200", "DataType": "Number"}
    assert attrs["ErrorMessage"]["StringValue"].startswith("no {")
    invocations = control.get("/lambda/invocations", function="billing").json()["invocations"]
    assert [i["result"] for i in invocations] == ["Unhandled", "Unhandled"]
    assert len({i["requestId"] for i in invocations}) == 1
