"""SQS on the virtual clock: a visibility timeout and a delay, proved without sleeping."""

import datetime


def test_visibility_timeout(switchyard, aws_client):
    sqs = aws_client("sqs")
    url = sqs.create_queue(QueueName="orders", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="order 1")

    first = sqs.receive_message(QueueUrl=url)["Messages"]
    assert [m["Body"] for m in first] == ["order 1"]
    assert "Messages" not in sqs.receive_message(QueueUrl=url)  # in flight: hidden

    switchyard.advance(29)
    assert "Messages" not in sqs.receive_message(QueueUrl=url)  # one second to go

    switchyard.advance(1)  # 30 s of virtual time, no sleep
    again = sqs.receive_message(QueueUrl=url, AttributeNames=["ApproximateReceiveCount"])["Messages"]
    assert [m["Body"] for m in again] == ["order 1"]
    assert again[0]["Attributes"]["ApproximateReceiveCount"] == "2"


def test_delay_and_the_clock(switchyard, aws_client):
    sqs = aws_client("sqs")
    url = sqs.create_queue(QueueName="later")["QueueUrl"]
    sqs.send_message(QueueUrl=url, MessageBody="in 15 minutes", DelaySeconds=900)
    before = switchyard.now()
    assert "Messages" not in sqs.receive_message(QueueUrl=url)

    answer = switchyard.advance(until=before + datetime.timedelta(minutes=15))
    assert switchyard.now() - before == datetime.timedelta(minutes=15)
    assert answer["fired"] >= 0
    assert sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"] == "in 15 minutes"
