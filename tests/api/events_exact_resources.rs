//! EventBridge resources exactly as AWS answers (issue 14, items 13-14) through
//! aws-sdk-eventbridge: CreateConnection's validation errors and OAuth connections, the
//! archive's managed rule and its target, CreateEventBus's name rules, and the partner event
//! source operations from both the partner's and the customer's account.

use crate::harness::Harness;
use aws_sdk_eventbridge::error::ProvideErrorMetadata;
use aws_sdk_eventbridge::types::{
    ConnectionAuthorizationType as AuthType, ConnectionOAuthHttpMethod, ConnectionState,
    CreateConnectionAuthRequestParameters, CreateConnectionBasicAuthRequestParameters,
    CreateConnectionOAuthClientRequestParameters, CreateConnectionOAuthRequestParameters,
    EventSourceState, PutPartnerEventsRequestEntry, Target,
};
use serde_json::{Value, json};

const ACCOUNT: &str = "000000000000";
const PARTNER: &str = "111111111111";
const CUSTOMER: &str = "222222222222";

/// The code and message of a failed SDK call.
fn error<O: std::fmt::Debug, E, R>(
    result: Result<O, aws_sdk_eventbridge::error::SdkError<E, R>>,
) -> (String, String)
where
    aws_sdk_eventbridge::error::SdkError<E, R>: ProvideErrorMetadata,
{
    let err = result.expect_err("the call should fail");
    (
        err.code().unwrap_or_default().to_string(),
        err.message().unwrap_or_default().to_string(),
    )
}

fn failure(code: &str, message: &str) -> (String, String) {
    (code.to_string(), message.to_string())
}

fn basic() -> CreateConnectionAuthRequestParameters {
    CreateConnectionAuthRequestParameters::builder()
        .basic_auth_parameters(
            CreateConnectionBasicAuthRequestParameters::builder()
                .username("user")
                .password("pass")
                .build()
                .unwrap(),
        )
        .build()
}

fn oauth(endpoint: &str, method: &str) -> CreateConnectionAuthRequestParameters {
    CreateConnectionAuthRequestParameters::builder()
        .o_auth_parameters(
            CreateConnectionOAuthRequestParameters::builder()
                .authorization_endpoint(endpoint)
                .http_method(ConnectionOAuthHttpMethod::from(method))
                .client_parameters(
                    CreateConnectionOAuthClientRequestParameters::builder()
                        .client_id("client_id")
                        .client_secret("client_secret")
                        .build()
                        .unwrap(),
                )
                .build()
                .unwrap(),
        )
        .build()
}

#[tokio::test]
async fn create_connection_lists_every_validation_error_as_aws_lists_them() {
    let h = Harness::start().await;
    let eb = h.events();
    let name = "This should fail with two errors 123467890123412341234123412341234";
    // Recorded from AWS (LocalStack's test_create_connection_validations).
    assert_eq!(
        error(
            eb.create_connection()
                .name(name)
                .authorization_type(AuthType::from("INVALID"))
                .auth_parameters(basic())
                .send()
                .await
        ),
        failure(
            "ValidationException",
            &format!(
                "3 validation errors detected: Value '{name}' at 'name' failed to satisfy constraint: Member must have length less than or equal to 64; Value '{name}' at 'name' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\.\\-_A-Za-z0-9]+; Value 'INVALID' at 'authorizationType' failed to satisfy constraint: Member must satisfy enum value set: [BASIC, OAUTH_CLIENT_CREDENTIALS, API_KEY]"
            )
        )
    );
    assert_eq!(
        error(
            eb.create_connection()
                .name("c")
                .authorization_type(AuthType::OauthClientCredentials)
                .auth_parameters(oauth("https://example.com/oauth", "FETCH"))
                .send()
                .await
        ),
        failure(
            "ValidationException",
            "1 validation error detected: Value 'FETCH' at 'authParameters.oAuthParameters.httpMethod' failed to satisfy constraint: Member must satisfy enum value set: [GET, POST, PUT]"
        )
    );
}

#[tokio::test]
async fn an_oauth_connection_takes_any_method_case_and_stays_authorizing_until_authorized() {
    let h = Harness::start().await;
    let eb = h.events();
    // Nothing listens on port 1: the token request fails at once.
    let created = eb
        .create_connection()
        .name("oauth")
        .authorization_type(AuthType::OauthClientCredentials)
        .auth_parameters(oauth("http://127.0.0.1:1/oauth", "post"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        created.connection_state(),
        Some(&ConnectionState::Authorizing)
    );
    let described = eb.describe_connection().name("oauth").send().await.unwrap();
    // As AWS reported a connection whose endpoint did not authorize it (recorded).
    assert_eq!(
        described.connection_state(),
        Some(&ConnectionState::Authorizing)
    );
    assert!(described.state_reason().is_some());
    let o = described
        .auth_parameters()
        .unwrap()
        .o_auth_parameters()
        .unwrap();
    assert_eq!(o.authorization_endpoint(), Some("http://127.0.0.1:1/oauth"));
    assert_eq!(
        o.client_parameters().unwrap().client_id(),
        Some("client_id")
    );
}

#[tokio::test]
async fn an_archive_rule_is_managed_by_aws_and_has_aws_target() {
    let h = Harness::start().await;
    let eb = h.events();
    let archive = eb
        .create_archive()
        .archive_name("orders")
        .event_source_arn(format!(
            "arn:aws:events:us-east-1:{ACCOUNT}:event-bus/default"
        ))
        .event_pattern(r#"{"source":["shop"]}"#)
        .send()
        .await
        .unwrap();
    let archive_arn = archive.archive_arn().unwrap();
    let rule = eb
        .describe_rule()
        .name("Events-Archive-orders")
        .send()
        .await
        .unwrap();
    assert_eq!(rule.managed_by(), Some("prod.vhs.events.aws.internal"));
    let targets = eb
        .list_targets_by_rule()
        .rule("Events-Archive-orders")
        .send()
        .await
        .unwrap();
    let [target] = targets.targets() else {
        panic!("one target: {targets:?}")
    };
    assert_eq!(target.id(), "Events-Archive-orders");
    assert_eq!(target.arn(), "arn:aws:events:us-east-1:::");
    let transformer = target.input_transformer().unwrap();
    assert_eq!(
        transformer.input_paths_map(),
        Some(&std::collections::HashMap::new())
    );
    let template = transformer.input_template();
    let prefix = format!("{{\"archive-arn\": \"{archive_arn}:");
    let suffix = "\", \"event\": <aws.events.event.json>, \"ingestion-time\": <aws.events.event.ingestion-time>}";
    assert!(
        template.starts_with(&prefix) && template.ends_with(suffix),
        "{template}"
    );
    let incarnation = &template[prefix.len()..template.len() - suffix.len()];
    assert_eq!(incarnation.len(), 36, "{incarnation}");

    // The target is not invoked: an event still lands in the archive only.
    let entry = aws_sdk_eventbridge::types::PutEventsRequestEntry::builder()
        .source("shop")
        .detail_type("t")
        .detail("{}")
        .build();
    eb.put_events().entries(entry).send().await.unwrap();
    let described = eb
        .describe_archive()
        .archive_name("orders")
        .send()
        .await
        .unwrap();
    assert_eq!(described.event_count(), 1);
    let outbox = h.control_get("outbox").await;
    assert_eq!(outbox, json!({"messages": []}), "{outbox}");
}

#[tokio::test]
async fn create_event_bus_refuses_slashes_and_partner_names_without_their_source() {
    let h = Harness::start().await;
    let eb = h.events();
    assert_eq!(
        error(eb.create_event_bus().name("test/test-bus").send().await),
        failure(
            "ValidationException",
            "Event bus name must not contain '/'."
        )
    );
    assert_eq!(
        error(
            eb.create_event_bus()
                .name("aws.partner/test/test-bus")
                .event_source_name("aws.partner/test/test-bus")
                .send()
                .await
        ),
        failure(
            "ResourceNotFoundException",
            "Event source aws.partner/test/test-bus does not exist."
        )
    );
    assert_eq!(
        error(
            eb.create_event_bus()
                .name("aws.partner/test/other")
                .event_source_name("aws.partner/test/test-bus")
                .send()
                .await
        ),
        failure(
            "ValidationException",
            "Event bus name must match event source name."
        )
    );
}

fn partner_event(source: &str, detail: Value) -> PutPartnerEventsRequestEntry {
    PutPartnerEventsRequestEntry::builder()
        .source(source)
        .detail_type("Order Placed")
        .detail(detail.to_string())
        .build()
}

#[tokio::test]
async fn partner_event_sources_reach_the_customer_partner_bus() {
    let h = Harness::start().await;
    let partner = h.events_as(PARTNER, "us-east-1");
    let customer = h.events_as(CUSTOMER, "us-east-1");
    let name = "aws.partner/example.com/orders";
    let created = partner
        .create_partner_event_source()
        .name(name)
        .account(CUSTOMER)
        .send()
        .await
        .unwrap();
    let arn = format!("arn:aws:events:us-east-1::event-source/{name}");
    assert_eq!(created.event_source_arn(), Some(arn.as_str()));
    assert_eq!(
        error(
            partner
                .create_partner_event_source()
                .name(name)
                .account(CUSTOMER)
                .send()
                .await
        ),
        failure(
            "ResourceAlreadyExistsException",
            &format!("Event source {name} already exists.")
        )
    );
    assert_eq!(
        error(
            partner
                .create_partner_event_source()
                .name("example.com/orders")
                .account(CUSTOMER)
                .send()
                .await
        ),
        failure(
            "ValidationException",
            "1 validation error detected: Value 'example.com/orders' at 'name' failed to satisfy constraint: Member must satisfy regular expression pattern: aws\\.partner(/[\\.\\-_A-Za-z0-9]+){2,}"
        )
    );
    let described = partner
        .describe_partner_event_source()
        .name(name)
        .send()
        .await
        .unwrap();
    assert_eq!(
        (described.arn(), described.name()),
        (Some(arn.as_str()), Some(name))
    );
    let listed = partner
        .list_partner_event_sources()
        .name_prefix("aws.partner/example.com/")
        .send()
        .await
        .unwrap();
    assert_eq!(listed.partner_event_sources().len(), 1);

    // The customer sees it PENDING until its partner bus exists.
    let source = customer
        .describe_event_source()
        .name(name)
        .send()
        .await
        .unwrap();
    assert_eq!(source.state(), Some(&EventSourceState::Pending));
    assert_eq!(source.created_by(), Some("example.com"));
    assert_eq!(source.arn(), Some(arn.as_str()));
    customer
        .create_event_bus()
        .name(name)
        .event_source_name(name)
        .send()
        .await
        .unwrap();
    let source = customer
        .describe_event_source()
        .name(name)
        .send()
        .await
        .unwrap();
    assert_eq!(source.state(), Some(&EventSourceState::Active));
    let accounts = partner
        .list_partner_event_source_accounts()
        .event_source_name(name)
        .send()
        .await
        .unwrap();
    let [account] = accounts.partner_event_source_accounts() else {
        panic!("{accounts:?}")
    };
    assert_eq!(account.account(), Some(CUSTOMER));
    assert_eq!(account.state(), Some(&EventSourceState::Active));

    // Partner events reach the customer's rules on that bus.
    let sqs = h.sqs_as(CUSTOMER, "us-east-1");
    let url = sqs
        .create_queue()
        .queue_name("orders")
        .send()
        .await
        .unwrap()
        .queue_url
        .unwrap();
    customer
        .put_rule()
        .name("all")
        .event_bus_name(name)
        .event_pattern(format!(r#"{{"source":["{name}"]}}"#))
        .send()
        .await
        .unwrap();
    let target = Target::builder()
        .id("q")
        .arn(format!("arn:aws:sqs:us-east-1:{CUSTOMER}:orders"))
        .build()
        .unwrap();
    customer
        .put_targets()
        .rule("all")
        .event_bus_name(name)
        .targets(target)
        .send()
        .await
        .unwrap();
    let put = partner
        .put_partner_events()
        .entries(partner_event(name, json!({"id": 1})))
        .entries(partner_event("aws.partner/example.com/other", json!({})))
        .send()
        .await
        .unwrap();
    assert_eq!(put.failed_entry_count(), 1);
    assert!(put.entries()[0].event_id().is_some());
    assert_eq!(
        put.entries()[1].error_code(),
        Some("NotAuthorizedForSourceException")
    );
    let got = sqs.receive_message().queue_url(&url).send().await.unwrap();
    let [message] = got.messages() else {
        panic!("{got:?}")
    };
    let event: Value = serde_json::from_str(message.body().unwrap()).unwrap();
    assert_eq!(
        (&event["source"], &event["account"], &event["detail"]),
        (&json!(name), &json!(CUSTOMER), &json!({"id": 1}))
    );

    // Deactivated, the source is PENDING and its events go nowhere; activated again, ACTIVE.
    customer
        .deactivate_event_source()
        .name(name)
        .send()
        .await
        .unwrap();
    let source = customer
        .describe_event_source()
        .name(name)
        .send()
        .await
        .unwrap();
    assert_eq!(source.state(), Some(&EventSourceState::Pending));
    customer
        .activate_event_source()
        .name(name)
        .send()
        .await
        .unwrap();
    let listed = customer.list_event_sources().send().await.unwrap();
    assert_eq!(
        listed.event_sources()[0].state(),
        Some(&EventSourceState::Active)
    );

    // Deleted by the partner, it is DELETED for the customer while the bus remains.
    partner
        .delete_partner_event_source()
        .name(name)
        .account(CUSTOMER)
        .send()
        .await
        .unwrap();
    let source = customer
        .describe_event_source()
        .name(name)
        .send()
        .await
        .unwrap();
    assert_eq!(source.state(), Some(&EventSourceState::Deleted));
    assert_eq!(
        error(
            partner
                .describe_partner_event_source()
                .name(name)
                .send()
                .await
        ),
        failure(
            "ResourceNotFoundException",
            &format!("Event source {name} does not exist.")
        )
    );
    customer
        .remove_targets()
        .rule("all")
        .event_bus_name(name)
        .ids("q")
        .send()
        .await
        .unwrap();
    customer
        .delete_rule()
        .name("all")
        .event_bus_name(name)
        .send()
        .await
        .unwrap();
    customer.delete_event_bus().name(name).send().await.unwrap();
    assert_eq!(
        error(customer.describe_event_source().name(name).send().await),
        failure(
            "ResourceNotFoundException",
            &format!("Event source {name} does not exist.")
        )
    );
}
