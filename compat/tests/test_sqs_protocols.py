"""SQS over both wire protocols: the `sqs_query` client really speaks AWS Query and `sqs` AWS JSON 1.0,
and both see the same queues and the same errors (Error.Code is the Query code in both: boto3's JSON
client reads it from the x-amzn-query-error header)."""

import threading

import pytest
import requests

from sqs_helpers import ACCOUNT, md5, messages, raises_code

NON_EXISTENT_QUEUE = "AWS.SimpleQueueService.NonExistentQueue"


def capture(client):
    """Records every request the client sends (method, headers, body) through a before-send hook."""
    sent = []

    def hook(request, **kwargs):
        body = request.body
        if isinstance(body, bytes):
            body = body.decode("utf-8")
        headers = {
            k.lower(): v.decode("utf-8") if isinstance(v, bytes) else v for k, v in request.headers.items()
        }
        sent.append({"headers": headers, "body": body or ""})
        return None  # go on and send it

    client.meta.events.register("before-send.sqs.*", hook)
    return sent


def test_query_client_sends_form_encoded_actions(make_client, url):
    client = make_client("sqs", query=True)
    sent = capture(client)

    queue_url = client.create_queue(QueueName="wire-query")["QueueUrl"]
    assert queue_url == f"{url}/{ACCOUNT}/wire-query"
    client.send_message(QueueUrl=queue_url, MessageBody="over query")
    got = messages(client.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0))
    assert [m["Body"] for m in got] == ["over query"]
    assert got[0]["MD5OfBody"] == md5("over query")

    assert len(sent) == 3
    for request in sent:
        headers = request["headers"]
        assert "x-amz-target" not in headers
        assert headers["content-type"].startswith("application/x-www-form-urlencoded")
        assert request["body"].startswith("Action="), request["body"]
        assert "Version=2012-11-05" in request["body"]
    assert sent[0]["body"].startswith("Action=CreateQueue&")
    assert sent[1]["body"].startswith("Action=SendMessage&")
    assert sent[2]["body"].startswith("Action=ReceiveMessage&")


def test_json_client_sends_amz_target(make_client):
    client = make_client("sqs")
    sent = capture(client)
    client.create_queue(QueueName="wire-json")
    headers = sent[0]["headers"]
    assert headers["x-amz-target"] == "AmazonSQS.CreateQueue"
    assert headers["content-type"] == "application/x-amz-json-1.0"
    assert sent[0]["body"].startswith("{")


def test_both_protocols_share_the_queues(sqs, sqs_query):
    queue_url = sqs.create_queue(QueueName="shared")["QueueUrl"]
    assert sqs_query.get_queue_url(QueueName="shared")["QueueUrl"] == queue_url
    sqs_query.send_message(QueueUrl=queue_url, MessageBody="from query")
    got = messages(sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0))
    assert [m["Body"] for m in got] == ["from query"]
    sqs_query.delete_message(QueueUrl=queue_url, ReceiptHandle=got[0]["ReceiptHandle"])
    assert messages(sqs.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0)) == []


def test_non_existent_queue(sqs_any, url):
    missing = f"{url}/{ACCOUNT}/never-created"
    with raises_code(NON_EXISTENT_QUEUE, 400) as error:
        sqs_any.get_queue_url(QueueName="never-created")
    assert isinstance(error.value, sqs_any.exceptions.QueueDoesNotExist)
    # AWS words it per protocol (recorded): Query adds "for this wsdl version".
    query = sqs_any.meta.service_model.protocol == "query"
    wording = "The specified queue does not exist" + (" for this wsdl version." if query else ".")
    assert error.value.response["Error"]["Message"] == wording
    for call in (
        lambda: sqs_any.send_message(QueueUrl=missing, MessageBody="x"),
        lambda: sqs_any.receive_message(QueueUrl=missing, WaitTimeSeconds=0),
        lambda: sqs_any.get_queue_attributes(QueueUrl=missing, AttributeNames=["All"]),
        lambda: sqs_any.purge_queue(QueueUrl=missing),
        lambda: sqs_any.delete_queue(QueueUrl=missing),
        lambda: sqs_any.list_queue_tags(QueueUrl=missing),
    ):
        with raises_code(NON_EXISTENT_QUEUE, 400) as error:
            call()
        assert isinstance(error.value, sqs_any.exceptions.QueueDoesNotExist)


def test_queue_already_exists_with_other_attributes(sqs_any):
    queue_url = sqs_any.create_queue(QueueName="exists", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
    # Same name, same attributes: the same queue.
    assert sqs_any.create_queue(QueueName="exists", Attributes={"VisibilityTimeout": "30"})["QueueUrl"] == queue_url
    with raises_code("QueueAlreadyExists", 400) as error:
        sqs_any.create_queue(QueueName="exists", Attributes={"VisibilityTimeout": "60"})
    assert isinstance(error.value, sqs_any.exceptions.QueueNameExists)


def test_queue_deleted_recently(sqs_any, control):
    queue_url = sqs_any.create_queue(QueueName="recent")["QueueUrl"]
    sqs_any.delete_queue(QueueUrl=queue_url)
    with raises_code("AWS.SimpleQueueService.QueueDeletedRecently", 400) as error:
        sqs_any.create_queue(QueueName="recent")
    assert isinstance(error.value, sqs_any.exceptions.QueueDeletedRecently)
    control.advance(30)
    with raises_code("AWS.SimpleQueueService.QueueDeletedRecently", 400):
        sqs_any.create_queue(QueueName="recent")
    control.advance(30)  # 60 s after the delete
    assert sqs_any.create_queue(QueueName="recent")["QueueUrl"] == queue_url


@pytest.mark.parametrize(
    "kwargs, code",
    [
        (dict(MaxNumberOfMessages=11), "InvalidParameterValue"),
        (dict(MaxNumberOfMessages=0), "InvalidParameterValue"),
        (dict(VisibilityTimeout=43_201), "InvalidParameterValue"),
        (dict(WaitTimeSeconds=21), "InvalidParameterValue"),
    ],
)
def test_receive_parameter_errors(sqs_any, kwargs, code):
    queue_url = sqs_any.create_queue(QueueName="receive-params")["QueueUrl"]
    with raises_code(code, 400):
        sqs_any.receive_message(QueueUrl=queue_url, **kwargs)


def test_receipt_handle_errors(sqs_any, control):
    queue_url = sqs_any.create_queue(QueueName="handles")["QueueUrl"]
    with raises_code("ReceiptHandleIsInvalid", 404) as error:
        sqs_any.delete_message(QueueUrl=queue_url, ReceiptHandle="not-a-receipt-handle")
    assert isinstance(error.value, sqs_any.exceptions.ReceiptHandleIsInvalid)

    sqs_any.send_message(QueueUrl=queue_url, MessageBody="m")
    first = messages(sqs_any.receive_message(QueueUrl=queue_url, VisibilityTimeout=10, WaitTimeSeconds=0))[0]
    control.advance(11)
    second = messages(sqs_any.receive_message(QueueUrl=queue_url, VisibilityTimeout=10, WaitTimeSeconds=0))[0]
    assert second["MessageId"] == first["MessageId"]
    assert second["ReceiptHandle"] != first["ReceiptHandle"]
    # On a standard queue the earlier handle still counts (AWS-recorded, issue 14): it changes
    # the visibility and deletes the message received again since.
    sqs_any.change_message_visibility(QueueUrl=queue_url, ReceiptHandle=first["ReceiptHandle"], VisibilityTimeout=60)
    sqs_any.delete_message(QueueUrl=queue_url, ReceiptHandle=first["ReceiptHandle"])
    control.advance(61)
    assert messages(sqs_any.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0)) == []


def test_invalid_message_contents(sqs_any):
    queue_url = sqs_any.create_queue(QueueName="contents")["QueueUrl"]
    with raises_code("InvalidMessageContents", 400) as error:
        sqs_any.send_message(QueueUrl=queue_url, MessageBody="bell \x07 is not allowed")
    assert isinstance(error.value, sqs_any.exceptions.InvalidMessageContents)
    # Nothing was enqueued.
    assert messages(sqs_any.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0)) == []


def test_list_queues_pages(sqs_any):
    names = [f"page-{i}" for i in range(5)]
    urls = {sqs_any.create_queue(QueueName=n)["QueueUrl"] for n in names}
    sqs_any.create_queue(QueueName="other")

    seen, token, pages = [], None, 0
    while True:
        kwargs = {"QueueNamePrefix": "page-", "MaxResults": 2}
        if token:
            kwargs["NextToken"] = token
        page = sqs_any.list_queues(**kwargs)
        pages += 1
        assert len(page.get("QueueUrls", [])) <= 2
        seen.extend(page.get("QueueUrls", []))
        token = page.get("NextToken")
        if not token:
            break
    assert pages == 3
    assert sorted(seen) == sorted(urls)


def test_get_queue_url_of_another_account(make_client, sqs_any, url):
    other = make_client("sqs", aws_access_key_id="111122223333")
    queue_url = other.create_queue(QueueName="theirs")["QueueUrl"]
    # The owner's queue policy decides whether this account may find it (docs/policies.md).
    with raises_code(NON_EXISTENT_QUEUE):
        sqs_any.get_queue_url(QueueName="theirs", QueueOwnerAWSAccountId="111122223333")
    other.add_permission(QueueUrl=queue_url, Label="find", AWSAccountIds=[ACCOUNT], Actions=["GetQueueUrl"])
    assert sqs_any.get_queue_url(QueueName="theirs", QueueOwnerAWSAccountId="111122223333")["QueueUrl"] == queue_url
    with raises_code(NON_EXISTENT_QUEUE):
        sqs_any.get_queue_url(QueueName="theirs")


def test_missing_message_body(sqs_any):
    queue_url = sqs_any.create_queue(QueueName="empty-body")["QueueUrl"]
    with raises_code("MissingParameter", 400):
        sqs_any.send_message(QueueUrl=queue_url, MessageBody="")


def test_queue_url_host_is_not_significant(sqs_any):
    """Apps often keep the AWS-style URL: the queue is named by the path."""
    queue_url = sqs_any.create_queue(QueueName="anywhere")["QueueUrl"]
    aws_style = f"https://sqs.us-east-1.amazonaws.com/{ACCOUNT}/anywhere"
    sqs_any.send_message(QueueUrl=aws_style, MessageBody="via the AWS-style URL")
    got = messages(sqs_any.receive_message(QueueUrl=queue_url, WaitTimeSeconds=0))
    assert [m["Body"] for m in got] == ["via the AWS-style URL"]


def test_long_poll_wakes_on_send(sqs_any):
    queue_url = sqs_any.create_queue(QueueName="long-poll-both")["QueueUrl"]
    outcome = {}

    def poll():
        try:
            outcome["response"] = sqs_any.receive_message(QueueUrl=queue_url, WaitTimeSeconds=20)
        except Exception as e:  # reported by the main thread
            outcome["error"] = e

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    sqs_any.send_message(QueueUrl=queue_url, MessageBody="wake up")
    poller.join(timeout=10)
    assert not poller.is_alive(), "the long poll did not return within 10 s of the send"
    assert "error" not in outcome, outcome.get("error")
    assert [m["Body"] for m in messages(outcome["response"])] == ["wake up"]


def raw_http():
    http = requests.Session()
    http.trust_env = False  # no proxies from the machine
    return http


def test_raw_query_get_and_error_shape(sqs, url):
    """The Query API also takes GET with the parameters in the query string; errors come as
    <ErrorResponse>. Unsigned: signatures are not checked by default."""
    queue_url = sqs.create_queue(QueueName="raw-get")["QueueUrl"]
    sqs.send_message(QueueUrl=queue_url, MessageBody="fetched by GET")
    http = raw_http()
    fetched = http.get(
        url + "/",
        params={"Action": "ReceiveMessage", "Version": "2012-11-05", "QueueUrl": queue_url, "WaitTimeSeconds": "0"},
        timeout=10,
    )
    assert fetched.status_code == 200, fetched.text
    assert "<ReceiveMessageResponse" in fetched.text
    assert "<Body>fetched by GET</Body>" in fetched.text
    assert f"<MD5OfBody>{md5('fetched by GET')}</MD5OfBody>" in fetched.text

    missing = http.post(
        url + "/",
        data={"Action": "GetQueueUrl", "Version": "2012-11-05", "QueueName": "never-created"},
        timeout=10,
    )
    assert missing.status_code == 400
    assert "<ErrorResponse" in missing.text
    assert "<Code>AWS.SimpleQueueService.NonExistentQueue</Code>" in missing.text
    assert "<Type>Sender</Type>" in missing.text

    unknown = http.post(url + "/", data={"Action": "FlyToTheMoon", "Version": "2012-11-05"}, timeout=10)
    assert unknown.status_code == 400
    assert "<Code>InvalidAction</Code>" in unknown.text


def test_raw_query_to_the_queue_url(sqs):
    """Older SDKs (boto 2, for one) and the SQS Query API examples send queue
    actions to the queue URL itself, without a QueueUrl parameter: the path names the queue."""
    queue_url = sqs.create_queue(QueueName="raw-path")["QueueUrl"]
    http = raw_http()
    posted = http.post(
        queue_url,
        data={"Action": "SendMessage", "Version": "2012-11-05", "MessageBody": "posted to the queue URL"},
        timeout=10,
    )
    assert posted.status_code == 200, posted.text
    assert "<SendMessageResponse" in posted.text
    fetched = http.get(
        queue_url, params={"Action": "ReceiveMessage", "Version": "2012-11-05", "WaitTimeSeconds": "0"}, timeout=10
    )
    assert fetched.status_code == 200, fetched.text
    assert "<Body>posted to the queue URL</Body>" in fetched.text
