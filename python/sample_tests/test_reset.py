"""Every test that uses the `switchyard` fixture starts from an empty emulator; the session's
server is the same one throughout, and its state can be saved and put back."""

seen = {}


def test_a_queue_left_behind(switchyard, aws_client):
    aws_client("sqs").create_queue(QueueName="left-behind")
    switchyard.fault("arn:aws:sqs:us-east-1:000000000000:left-behind", status=503)
    seen["url"] = switchyard.url


def test_is_gone_in_the_next_test(switchyard, aws_client):
    assert aws_client("sqs").list_queues().get("QueueUrls", []) == []
    assert switchyard.faults() == []
    assert switchyard.url == seen["url"]  # the same server, reset


def test_state_saved_and_loaded(switchyard, aws_client):
    sqs = aws_client("sqs")
    url = sqs.create_queue(QueueName="kept")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="still here")
    snapshot = switchyard.state()
    switchyard.reset()
    assert sqs.list_queues().get("QueueUrls", []) == []
    switchyard.load_state(snapshot)
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "still here"
