//! EventBridge as AWS answers it, the tail (issue 33, items 4 and 5): objects inside string
//! templates and the templates PutTargets refuses, CreateArchive on another account's bus that
//! does not exist, CreateConnection's validation and OAuth connections, and event buses made
//! from partner event sources.

use crate::events_exact::{bodies, error, failure, put_shop_event, transformed_to_queue};
use crate::harness::Harness;
use aws_sdk_eventbridge::types::{InputTransformer, Target};
use serde_json::json;

const ACCOUNT: &str = "000000000000";

#[tokio::test]
async fn objects_inside_string_templates_are_inserted_without_quotes() {
    let h = Harness::start().await;
    let transformer = InputTransformer::builder()
        .input_paths_map("payload", "$.detail.payload")
        .input_template(r#"{"text": "payload <payload>", "whole": <payload>}"#)
        .build()
        .unwrap();
    let url = transformed_to_queue(&h, transformer).await;
    put_shop_event(
        &h,
        json!({"command": "update-account", "payload": {"acc_id": "0a78", "sf_id": "baz"}}),
    )
    .await;
    // AWS inserts an object in a string as it inserts an array there: keys and values without
    // their quotes (issue 33).
    assert_eq!(
        bodies(&h, &url).await,
        [r#"{"text":"payload {acc_id:0a78,sf_id:baz}","whole":{"acc_id":"0a78","sf_id":"baz"}}"#]
    );
}

#[tokio::test]
async fn a_text_template_inserts_nested_objects_the_same_way() {
    let h = Harness::start().await;
    let transformer = InputTransformer::builder()
        .input_paths_map("payload", "$.detail.payload")
        .input_template("\"Payload: <payload>\"")
        .build()
        .unwrap();
    let url = transformed_to_queue(&h, transformer).await;
    put_shop_event(
        &h,
        json!({"payload": {"acc_id": "0a78", "ids": [1, "two"], "more": {"ok": true, "n": null}}}),
    )
    .await;
    assert_eq!(
        bodies(&h, &url).await,
        ["\"Payload: {acc_id:0a78,ids:[1,two],more:{ok:true,n:null}}\""]
    );
}

#[tokio::test]
async fn put_targets_refuses_the_templates_aws_refuses() {
    let h = Harness::start().await;
    let eb = h.events();
    eb.put_rule()
        .name("r")
        .event_pattern(r#"{"source":["shop"]}"#)
        .send()
        .await
        .unwrap();
    let put = |template: &str| {
        let transformer = InputTransformer::builder()
            .input_paths_map("a", "$.detail.a")
            .input_template(template)
            .build()
            .unwrap();
        let target = Target::builder()
            .id("t1")
            .arn(format!("arn:aws:sqs:us-east-1:{ACCOUNT}:q"))
            .input_transformer(transformer)
            .build()
            .unwrap();
        eb.put_targets().rule("r").targets(target).send()
    };
    // Measured at PutTargets: the whole event outside a JSON object template.
    for template in [
        "[<aws.events.event.json>]",
        "\"event <aws.events.event.json>\"",
    ] {
        assert_eq!(
            error(put(template).await),
            failure(
                "ValidationException",
                "InputTemplate for target t1 contains placeholder aws.events.event.json valid \
                 only for JSON template."
            ),
            "{template}"
        );
    }
    // A template that looks like JSON and is none once its placeholders are filled.
    for template in [r#"{"name": "testing_at_"<a>}"#, r#"{"a": <a>"#] {
        assert_eq!(
            error(put(template).await),
            failure(
                "ValidationException",
                "InputTemplate for target t1 is not a valid JSON text."
            ),
            "{template}"
        );
    }
    // Nothing was put; what AWS takes is taken.
    for template in [
        r#"{"e": <aws.events.event.json>}"#,
        "\"event was <a> today\"",
        "<a> is plain text",
    ] {
        let out = put(template).await.unwrap();
        assert_eq!(out.failed_entry_count(), 0, "{template}");
    }
}

#[tokio::test]
async fn create_archive_on_another_accounts_missing_bus_is_not_found_before_denied() {
    let h = Harness::start().await;
    let eb = h.events();
    let other = "111122223333";
    assert_eq!(
        error(
            eb.create_archive()
                .archive_name("copy")
                .event_source_arn(format!("arn:aws:events:us-east-1:{other}:event-bus/nope"))
                .send()
                .await
        ),
        failure(
            "ResourceNotFoundException",
            "Event bus nope does not exist."
        )
    );
    // The bus made, the owner's alone: denied.
    h.events_as(other, "us-east-1")
        .create_event_bus()
        .name("theirs")
        .send()
        .await
        .unwrap();
    let (code, message) = error(
        eb.create_archive()
            .archive_name("copy")
            .event_source_arn(format!("arn:aws:events:us-east-1:{other}:event-bus/theirs"))
            .send()
            .await,
    );
    assert_eq!(code, "AccessDeniedException", "{message}");
}

/// The body of a CreateConnection over raw AWS JSON 1.1: (status, `__type`, message).
async fn create_connection_raw(h: &Harness, body: serde_json::Value) -> (u16, String, String) {
    let r = h
        .json("1.1", "AWSEvents.CreateConnection", &body.to_string())
        .await;
    let v = r.json();
    let text = |k: &str| v[k].as_str().unwrap_or_default().to_string();
    (r.status, text("__type"), text("message"))
}

#[tokio::test]
async fn create_connection_lists_missing_members_with_every_other_violation() {
    let h = Harness::start().await;
    let name_rule = "Value 'bad name!' at 'name' failed to satisfy constraint: Member must \
                     satisfy regular expression pattern: [\\.\\-_A-Za-z0-9]+";
    let null = |member: &str| {
        format!("Value null at '{member}' failed to satisfy constraint: Member must not be null")
    };
    // Coral's validation: every failing member in one message, a missing required one among
    // them, members in the order AWS lists them (name before authorizationType, recorded).
    let cases = [
        (
            json!({"Name": "bad name!", "AuthorizationType": "INVALID"}),
            vec![
                name_rule.to_string(),
                "Value 'INVALID' at 'authorizationType' failed to satisfy constraint: Member \
                 must satisfy enum value set: [BASIC, OAUTH_CLIENT_CREDENTIALS, API_KEY]"
                    .to_string(),
                null("authParameters"),
            ],
        ),
        (
            json!({"Name": "bad name!", "AuthorizationType": "BASIC",
                   "AuthParameters": {"BasicAuthParameters": {"Username": "u"}}}),
            vec![
                name_rule.to_string(),
                null("authParameters.basicAuthParameters.password"),
            ],
        ),
        (
            json!({"AuthorizationType": "OAUTH_CLIENT_CREDENTIALS",
                   "AuthParameters": {"OAuthParameters": {"AuthorizationEndpoint": "https://example.com/oauth",
                       "HttpMethod": "FETCH", "ClientParameters": {"ClientID": "a"}}}}),
            vec![
                null("name"),
                null("authParameters.oAuthParameters.clientParameters.clientSecret"),
                "Value 'FETCH' at 'authParameters.oAuthParameters.httpMethod' failed to \
                 satisfy constraint: Member must satisfy enum value set: [GET, POST, PUT]"
                    .to_string(),
            ],
        ),
    ];
    for (body, errors) in cases {
        let expected = if errors.len() == 1 {
            format!("1 validation error detected: {}", errors[0])
        } else {
            format!(
                "{} validation errors detected: {}",
                errors.len(),
                errors.join("; ")
            )
        };
        assert_eq!(
            create_connection_raw(&h, body.clone()).await,
            (400, "ValidationException".to_string(), expected),
            "{body}"
        );
    }
}

#[tokio::test]
async fn an_oauth_connection_is_accepted_without_waiting_on_its_authorization_endpoint() {
    let h = Harness::start().await;
    // An endpoint that takes the connection and never answers: AWS accepts the connection and
    // answers AUTHORIZING at once; switchyard waits for no token before answering.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}/oauth/token", silent.local_addr().unwrap());
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            open.push(socket);
        }
    });
    let body = json!({"Name": "oauth", "AuthorizationType": "OAUTH_CLIENT_CREDENTIALS",
        "AuthParameters": {"OAuthParameters": {"AuthorizationEndpoint": endpoint, "HttpMethod": "POST",
            "ClientParameters": {"ClientID": "id", "ClientSecret": "secret"}}}});
    let created = crate::harness::no_hang(
        "CreateConnection",
        h.json("1.1", "AWSEvents.CreateConnection", &body.to_string()),
    )
    .await;
    assert_eq!(created.status, 200, "{}", created.body);
    assert_eq!(created.json()["ConnectionState"], "AUTHORIZING");
    let described = h
        .events()
        .describe_connection()
        .name("oauth")
        .send()
        .await
        .unwrap();
    assert_eq!(
        described.connection_state(),
        Some(&aws_sdk_eventbridge::types::ConnectionState::Authorizing)
    );
    held.abort();
}

#[tokio::test]
async fn an_event_bus_is_made_from_a_partner_event_source_as_aws_makes_it() {
    let h = Harness::start().await;
    let (partner_account, customer_account) = ("111111111111", "222222222222");
    let partner = h.events_as(partner_account, "eu-west-1");
    let customer = h.events_as(customer_account, "eu-west-1");
    let name = "aws.partner/example.com/orders";
    partner
        .create_partner_event_source()
        .name(name)
        .account(customer_account)
        .send()
        .await
        .unwrap();
    // The bus's name must be the source's.
    assert_eq!(
        error(
            customer
                .create_event_bus()
                .name("aws.partner/example.com/other")
                .event_source_name(name)
                .send()
                .await
        ),
        failure(
            "ValidationException",
            "Event bus name must match event source name."
        )
    );
    // The source must be offered to the caller's account: another account has none.
    assert_eq!(
        error(
            h.events_as("333333333333", "eu-west-1")
                .create_event_bus()
                .name(name)
                .event_source_name(name)
                .send()
                .await
        ),
        failure(
            "ResourceNotFoundException",
            &format!("Event source {name} does not exist.")
        )
    );
    // ... in the caller's region too.
    assert_eq!(
        error(
            h.events_as(customer_account, "us-east-1")
                .create_event_bus()
                .name(name)
                .event_source_name(name)
                .send()
                .await
        ),
        failure(
            "ResourceNotFoundException",
            &format!("Event source {name} does not exist.")
        )
    );
    let created = customer
        .create_event_bus()
        .name(name)
        .event_source_name(name)
        .send()
        .await
        .unwrap();
    let arn = format!("arn:aws:events:eu-west-1:{customer_account}:event-bus/{name}");
    assert_eq!(created.event_bus_arn(), Some(arn.as_str()));
    let described = customer
        .describe_event_bus()
        .name(name)
        .send()
        .await
        .unwrap();
    assert_eq!(
        (described.name(), described.arn()),
        (Some(name), Some(arn.as_str()))
    );
    // Once made, a second one is the bus that exists.
    assert_eq!(
        error(
            customer
                .create_event_bus()
                .name(name)
                .event_source_name(name)
                .send()
                .await
        ),
        failure(
            "ResourceAlreadyExistsException",
            &format!("Event bus {name} already exists.")
        )
    );
}
