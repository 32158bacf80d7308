"""EventBridge Scheduler through boto3 (restJson1: the operation in the method and path, members in
the URI, query string and JSON body), on the manual clock the compat server runs."""

import datetime
import json

import pytest
from botocore.exceptions import ClientError
from events_helpers import error_of

ROLE = "arn:aws:iam::000000000000:role/scheduler"
OFF = {"Mode": "OFF"}


@pytest.fixture
def scheduler(make_client):
    return make_client("scheduler")


def refusal(raised):
    """(HTTP status, error code) of a refused call."""
    return raised.value.response["ResponseMetadata"]["HTTPStatusCode"], error_of(raised)[0]


def local_at(control, seconds_ahead):
    """at(...) for `seconds_ahead` after the virtual now, in UTC."""
    now = control.clock()["epochMillis"] / 1000
    when = datetime.datetime.fromtimestamp(now + seconds_ahead, datetime.timezone.utc)
    return when.strftime("at(%Y-%m-%dT%H:%M:%S)")


def test_a_one_time_schedule_delivers_its_context_and_deletes_itself(scheduler, sqs, control):
    url = sqs.create_queue(QueueName="sched-once")["QueueUrl"]
    arn = "arn:aws:sqs:us-east-1:000000000000:sched-once"
    created = scheduler.create_schedule(
        Name="once", ScheduleExpression=local_at(control, 120), ActionAfterCompletion="DELETE",
        FlexibleTimeWindow=OFF,
        Target={"Arn": arn, "RoleArn": ROLE,
                "Input": '{"arn":"<aws.scheduler.schedule-arn>","try":"<aws.scheduler.attempt-number>"}'},
    )
    assert created["ScheduleArn"] == "arn:aws:scheduler:us-east-1:000000000000:schedule/default/once"
    got = scheduler.get_schedule(Name="once")
    assert got["State"] == "ENABLED" and got["ActionAfterCompletion"] == "DELETE"
    assert got["Target"]["Arn"] == arn and got["FlexibleTimeWindow"] == OFF
    control.advance(300)
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [json.loads(m["Body"]) for m in messages] == [{"arn": created["ScheduleArn"], "try": "1"}]
    with pytest.raises(ClientError) as e:
        scheduler.get_schedule(Name="once")
    assert refusal(e) == (404, "ResourceNotFoundException")


def test_groups_tags_and_listing(scheduler, control):
    arn = scheduler.create_schedule_group(Name="team", Tags=[{"Key": "k", "Value": "v"}])["ScheduleGroupArn"]
    assert scheduler.list_tags_for_resource(ResourceArn=arn)["Tags"] == [{"Key": "k", "Value": "v"}]
    scheduler.untag_resource(ResourceArn=arn, TagKeys=["k"])
    assert scheduler.list_tags_for_resource(ResourceArn=arn)["Tags"] == []
    for name in ["a", "b", "c"]:
        scheduler.create_schedule(Name=name, GroupName="team", ScheduleExpression="rate(1 hour)",
                                  FlexibleTimeWindow={"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 5},
                                  Target={"Arn": "arn:aws:sqs:us-east-1:000000000000:q", "RoleArn": ROLE})
    page = scheduler.list_schedules(GroupName="team", MaxResults=2)
    assert [s["Name"] for s in page["Schedules"]] == ["a", "b"]
    rest = scheduler.list_schedules(GroupName="team", MaxResults=2, NextToken=page["NextToken"])
    assert [s["Name"] for s in rest["Schedules"]] == ["c"] and "NextToken" not in rest
    groups = [g["Name"] for g in scheduler.list_schedule_groups()["ScheduleGroups"]]
    assert groups == ["default", "team"]
    scheduler.delete_schedule_group(Name="team")
    assert scheduler.get_schedule_group(Name="team")["State"] == "DELETING"
    assert [s["Name"] for s in scheduler.list_schedules()["Schedules"]] == ["a", "b", "c"]
    with pytest.raises(ClientError) as e:
        scheduler.delete_schedule_group(Name="team")
    assert refusal(e) == (409, "ConflictException")
    control.advance(1)
    with pytest.raises(ClientError) as e:
        scheduler.get_schedule_group(Name="team")
    assert refusal(e) == (404, "ResourceNotFoundException")
    assert scheduler.list_schedules()["Schedules"] == []


def test_bad_input_is_refused_as_aws_refuses_it(scheduler):
    target = {"Arn": "arn:aws:sqs:us-east-1:000000000000:q", "RoleArn": ROLE}
    with pytest.raises(ClientError) as e:
        scheduler.create_schedule(Name="x", ScheduleExpression="cron(0 9 * * * *)", FlexibleTimeWindow=OFF,
                                  Target=target)
    assert refusal(e) == (400, "ValidationException")
    with pytest.raises(ClientError) as e:
        scheduler.create_schedule(Name="x", ScheduleExpression="rate(1 hour)", FlexibleTimeWindow=OFF,
                                  Target={**target, "RetryPolicy": {"MaximumEventAgeInSeconds": 90000}})
    assert refusal(e) == (400, "ValidationException")
    assert "target.retryPolicy.maximumEventAgeInSeconds" in error_of(e)[1]
    scheduler.create_schedule(Name="x", ScheduleExpression="rate(1 hour)", FlexibleTimeWindow=OFF, Target=target)
    with pytest.raises(ClientError) as e:
        scheduler.create_schedule(Name="x", ScheduleExpression="rate(1 hour)", FlexibleTimeWindow=OFF,
                                  Target=target)
    assert refusal(e) == (409, "ConflictException")
    with pytest.raises(ClientError) as e:
        scheduler.delete_schedule_group(Name="default")
    assert refusal(e) == (400, "ValidationException")


def test_attempts_are_numbered_and_the_dead_letter_says_how_the_run_ended(scheduler, sqs, control):
    url = sqs.create_queue(QueueName="sched-flaky")["QueueUrl"]
    dlq_url = sqs.create_queue(QueueName="sched-flaky-dlq")["QueueUrl"]
    arn = "arn:aws:sqs:us-east-1:000000000000:sched-flaky"
    dlq_arn = "arn:aws:sqs:us-east-1:000000000000:sched-flaky-dlq"
    r = control.post("/faults", {"target": arn, "status": 500, "count": 1})
    assert r.status_code == 201, r.text
    target = {"Arn": arn, "RoleArn": ROLE, "Input": '{"try":"<aws.scheduler.attempt-number>"}'}
    scheduler.create_schedule(Name="flaky", ScheduleExpression=local_at(control, 60), FlexibleTimeWindow=OFF,
                              Target=target)
    control.advance(120)
    messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [json.loads(m["Body"]) for m in messages] == [{"try": "2"}]

    r = control.post("/faults", {"target": arn, "status": 500})
    assert r.status_code == 201, r.text
    expression = local_at(control, 60)
    scheduler.create_schedule(Name="doomed", ScheduleExpression=expression, FlexibleTimeWindow=OFF,
                              Target={**target, "RetryPolicy": {"MaximumRetryAttempts": 2},
                                      "DeadLetterConfig": {"Arn": dlq_arn}})
    control.advance(600)
    letters = sqs.receive_message(QueueUrl=dlq_url, MaxNumberOfMessages=10,
                                  MessageAttributeNames=["All"])["Messages"]
    assert len(letters) == 1 and json.loads(letters[0]["Body"]) == {"try": "3"}
    attributes = {k: v["StringValue"] for k, v in letters[0]["MessageAttributes"].items()}
    assert attributes["SCHEDULE_ARN"] == "arn:aws:scheduler:us-east-1:000000000000:schedule/default/doomed"
    assert attributes["TARGET_ARN"] == arn
    assert attributes["EXHAUSTED_RETRY_CONDITION"] == "MaximumRetryAttempts"
    assert attributes["RETRY_ATTEMPTS"] == "2"
    assert attributes["SCHEDULED_TIME"] == expression[3:-1] + "Z"
    assert attributes["ERROR_CODE"] and attributes["ERROR_MESSAGE"] and len(attributes["EXECUTION_ID"]) == 36


def test_a_client_token_makes_a_repeat_harmless(scheduler):
    args = dict(Name="once", ScheduleExpression="rate(1 hour)", FlexibleTimeWindow=OFF, ClientToken="t-1",
                Target={"Arn": "arn:aws:sqs:us-east-1:000000000000:q", "RoleArn": ROLE})
    first = scheduler.create_schedule(**args)
    assert scheduler.create_schedule(**args)["ScheduleArn"] == first["ScheduleArn"]
    with pytest.raises(ClientError) as e:
        scheduler.create_schedule(**{**args, "ClientToken": "t-2"})
    assert refusal(e) == (409, "ConflictException")
    with pytest.raises(ClientError) as e:
        scheduler.create_schedule(**{**args, "ClientToken": "no spaces please"})
    assert refusal(e) == (400, "ValidationException") and "clientToken" in error_of(e)[1]
