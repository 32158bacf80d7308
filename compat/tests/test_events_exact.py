"""EventBridge exactly as AWS answers (issue 14, items 11-14) through boto3: opaque page tokens,
arrays inside string templates, dotted event keys, PutPermission, RemovePermission, StartReplay's
order of checks, TestEventPattern's texts (with Jackson's location for text that is not JSON), tag
operations on an unknown rule, CreateConnection's validation errors, the archive's managed rule,
CreateEventBus's name rules and the partner event source operations."""

import json
from datetime import datetime, timezone

import pytest
from sns_helpers import receive_and_delete
from sqs_helpers import raises_code

from events_helpers import ACCOUNT, REGION, bus_arn, error_of, put, queue, rule_to

PARTNER = "111111111111"
CUSTOMER = "222222222222"


@pytest.fixture(scope="session")
def events(make_client):
    return make_client("events")


@pytest.fixture(scope="session")
def partner(make_client):
    return make_client("events", aws_access_key_id=PARTNER)


@pytest.fixture(scope="session")
def customer(make_client):
    return make_client("events", aws_access_key_id=CUSTOMER)


def test_next_tokens_are_opaque(events):
    for name in ["a1", "a2", "a3"]:
        events.create_event_bus(Name=name)
        events.put_rule(Name=name, EventPattern='{"source": ["shop"]}')
    first = events.list_event_buses(Limit=1)
    assert first["NextToken"] not in ("a1", "a2"), first
    rest = events.list_event_buses(NextToken=first["NextToken"])
    assert [b["Name"] for b in rest["EventBuses"]] == ["a2", "a3", "default"]
    rules = events.list_rules(Limit=2)
    assert rules["NextToken"] != "a2"
    assert [r["Name"] for r in events.list_rules(NextToken=rules["NextToken"])["Rules"]] == ["a3"]
    for call in (
        lambda: events.list_event_buses(NextToken="a1"),
        lambda: events.list_rules(NextToken="a2"),
        lambda: events.list_replays(NextToken="r"),
    ):
        with raises_code("ValidationException", 400) as error:
            call()
        assert error_of(error)[1] == "Invalid NextToken"


def test_arrays_in_string_templates_and_dotted_keys(events, sqs, control):
    url, arn = queue(sqs, "q")
    transformer = {
        "InputPathsMap": {"single": "$.detail.listsingle", "multi": "$.detail.listmulti"},
        "InputTemplate": '{"single": "level <single>", "multi": "states <multi>", "whole": <multi>}',
    }
    rule_to(events, "r", arn, InputTransformer=transformer)
    put(events, detail={"listsingle": ["HIGH"], "listmulti": ["ACTIVE", "INACTIVE"]})
    control.advance(1)
    [message] = receive_and_delete(sqs, url)
    assert message["Body"] == (
        '{"single":"level [HIGH]","multi":"states [ACTIVE,INACTIVE]","whole":["ACTIVE","INACTIVE"]}'
    )

    event = {
        "id": "1", "source": "shop", "detail-type": "t", "account": ACCOUNT, "region": REGION,
        "time": "2026-01-01T00:00:00Z", "detail": {"state.status": "running"},
    }
    nested = {"detail": {"state": {"status": ["running"]}}}
    out = events.test_event_pattern(EventPattern=json.dumps(nested), Event=json.dumps(event))
    assert out["Result"] is True


def test_permissions_and_tags_answer_as_aws(events):
    unknown = ("ResourceNotFoundException", "Statement with the provided id does not exist.")
    with raises_code("ResourceNotFoundException", 400) as error:
        events.remove_permission(StatementId="nope")
    assert error_of(error) == unknown
    for principal in (PARTNER, "*"):
        events.put_permission(Action="events:PutEvents", Principal=principal, StatementId="s1")
    policy = json.loads(events.describe_event_bus()["Policy"])
    assert [(s["Sid"], s["Principal"]) for s in policy["Statement"]] == [("s1", "*")]
    with raises_code("ResourceNotFoundException", 400) as error:
        events.remove_permission(StatementId="nope")
    assert error_of(error) == unknown

    rule = f"arn:aws:events:{REGION}:{ACCOUNT}:rule/nope"
    for call in (
        lambda: events.tag_resource(ResourceARN=rule, Tags=[{"Key": "k", "Value": "v"}]),
        lambda: events.untag_resource(ResourceARN=rule, TagKeys=["k"]),
        lambda: events.list_tags_for_resource(ResourceARN=rule),
    ):
        with raises_code("ResourceNotFoundException", 400) as error:
            call()
        assert error_of(error)[1] == "Rule nope does not exist on EventBus default."


def test_start_replay_checks_times_before_the_destination(events):
    archive = events.create_archive(ArchiveName="a", EventSourceArn=bus_arn("default"))["ArchiveArn"]
    other = events.create_event_bus(Name="other")["EventBusArn"]
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    end = datetime(2025, 12, 31, tzinfo=timezone.utc)
    with raises_code("ValidationException", 400) as error:
        events.start_replay(
            ReplayName="r", EventSourceArn=archive, EventStartTime=start, EventEndTime=end,
            Destination={"Arn": other},
        )
    assert error_of(error)[1] == (
        "Parameter EventEndTime is not valid. Reason: EventStartTime must be before EventEndTime."
    )


def test_test_event_pattern_texts(events):
    with raises_code("ValidationException", 400) as error:
        events.test_event_pattern(EventPattern='{"source": ["shop"]}', Event='{"testEvent": "value"}')
    assert error_of(error)[1] == "Parameter Event is not valid."
    event = json.dumps({
        "id": "1", "source": "s", "detail-type": "t", "account": ACCOUNT, "region": REGION,
        "time": "2026-01-01T00:00:00Z", "detail": {},
    })
    with raises_code("InvalidEventPatternException", 400) as error:
        events.test_event_pattern(EventPattern="{'bad': 'quotation'}", Event=event)
    assert error_of(error)[1] == (
        "Event pattern is not valid. Reason: Unexpected character (''' (code 39)): was expecting "
        "double-quote to start field name\n at [Source: (String)\"{'bad': 'quotation'}\"; line: 1, column: 2]"
    )


def test_create_connection_lists_every_error(events):
    name = "This should fail with two errors 123467890123412341234123412341234"
    with raises_code("ValidationException", 400) as error:
        events.create_connection(
            Name=name,
            AuthorizationType="INVALID",
            AuthParameters={"BasicAuthParameters": {"Username": "u", "Password": "p"}},
        )
    assert error_of(error)[1] == (
        f"3 validation errors detected: Value '{name}' at 'name' failed to satisfy constraint: Member must "
        f"have length less than or equal to 64; Value '{name}' at 'name' failed to satisfy constraint: "
        "Member must satisfy regular expression pattern: [\\.\\-_A-Za-z0-9]+; Value 'INVALID' at "
        "'authorizationType' failed to satisfy constraint: Member must satisfy enum value set: "
        "[BASIC, OAUTH_CLIENT_CREDENTIALS, API_KEY]"
    )
    created = events.create_connection(
        Name="oauth",
        AuthorizationType="OAUTH_CLIENT_CREDENTIALS",
        AuthParameters={
            "OAuthParameters": {
                "AuthorizationEndpoint": "http://127.0.0.1:1/oauth",
                "HttpMethod": "post",
                "ClientParameters": {"ClientID": "id", "ClientSecret": "secret"},
            }
        },
    )
    assert created["ConnectionState"] == "AUTHORIZING"
    assert events.describe_connection(Name="oauth")["ConnectionState"] == "AUTHORIZING"


def test_archive_rule_and_its_target(events):
    arn = events.create_archive(ArchiveName="orders", EventSourceArn=bus_arn("default"))["ArchiveArn"]
    rule = events.describe_rule(Name="Events-Archive-orders")
    assert rule["ManagedBy"] == "prod.vhs.events.aws.internal"
    [target] = events.list_targets_by_rule(Rule="Events-Archive-orders")["Targets"]
    assert (target["Id"], target["Arn"]) == ("Events-Archive-orders", f"arn:aws:events:{REGION}:::")
    template = target["InputTransformer"]["InputTemplate"]
    assert template.startswith('{"archive-arn": "%s:' % arn), template
    assert template.endswith(
        '", "event": <aws.events.event.json>, "ingestion-time": <aws.events.event.ingestion-time>}'
    )


def test_bus_names_and_partner_event_sources(events, partner, customer):
    with raises_code("ValidationException", 400) as error:
        events.create_event_bus(Name="test/test-bus")
    assert error_of(error)[1] == "Event bus name must not contain '/'."
    name = "aws.partner/example.com/orders"
    with raises_code("ResourceNotFoundException", 400) as error:
        customer.create_event_bus(Name=name, EventSourceName=name)
    assert error_of(error)[1] == f"Event source {name} does not exist."

    created = partner.create_partner_event_source(Name=name, Account=CUSTOMER)
    assert created["EventSourceArn"] == f"arn:aws:events:{REGION}::event-source/{name}"
    assert partner.describe_partner_event_source(Name=name)["Name"] == name
    assert customer.describe_event_source(Name=name)["State"] == "PENDING"
    customer.create_event_bus(Name=name, EventSourceName=name)
    source = customer.describe_event_source(Name=name)
    assert (source["State"], source["CreatedBy"]) == ("ACTIVE", "example.com")
    [account] = partner.list_partner_event_source_accounts(EventSourceName=name)["PartnerEventSourceAccounts"]
    assert (account["Account"], account["State"]) == (CUSTOMER, "ACTIVE")
    out = partner.put_partner_events(
        Entries=[{"Source": name, "DetailType": "Order Placed", "Detail": "{}"}]
    )
    assert out["FailedEntryCount"] == 0 and out["Entries"][0]["EventId"]
    partner.delete_partner_event_source(Name=name, Account=CUSTOMER)
    assert customer.describe_event_source(Name=name)["State"] == "DELETED"
