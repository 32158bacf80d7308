"""SNS to SQS: the retry schedule of a failing queue, read from the delivery log on the virtual
clock, and SMS publishes in the outbox."""


def test_retry_schedule_of_a_failing_queue(switchyard, aws_client):
    sqs, sns = aws_client("sqs"), aws_client("sns")
    url = sqs.create_queue(QueueName="inbox")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    topic = sns.create_topic(Name="orders")["TopicArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue_arn)

    switchyard.fault(queue_arn, status=500, count=6)  # the queue fails its next 6 deliveries
    message_id = sns.publish(TopicArn=topic, Message="order 1")["MessageId"]

    # AWS's schedule for SQS subscriptions: 3 immediate retries, then 2 a second apart, then backoff.
    records = switchyard.deliveries(message_id=message_id)
    assert [r["phase"] for r in records] == ["initial", "immediate", "immediate", "immediate"]
    while records[-1]["outcome"] == "retryable":
        switchyard.advance(until=records[-1]["nextAttemptAt"])  # straight to the next attempt
        records = switchyard.deliveries(message_id=message_id)

    assert [r["phase"] for r in records[4:6]] == ["pre-backoff", "pre-backoff"]
    assert [r["delaySeconds"] for r in records[4:6]] == [1, 1]
    assert [r["outcome"] for r in records] == ["retryable"] * 6 + ["delivered"]
    assert records[-1]["attempt"] == 7
    assert switchyard.faults() == []  # it removed itself after 6 failures
    assert "order 1" in sqs.receive_message(QueueUrl=url)["Messages"][0]["Body"]


def test_sms_goes_to_the_outbox(switchyard, aws_client):
    aws_client("sns").publish(PhoneNumber="+15550100", Message="your code is 1234")
    [sms] = switchyard.outbox(protocol="sms")
    assert (sms["target"], sms["body"]) == ("+15550100", "your code is 1234")
