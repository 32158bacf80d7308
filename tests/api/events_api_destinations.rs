//! EventBridge connections and API destinations through the AWS SDK for Rust: their CRUD (every
//! field, secrets never shown), rule targets invoking real local HTTP receivers with each
//! authorization type (OAuth against a local token endpoint), path parameters, query strings
//! and EventBridge's headers, InvocationRateLimitPerSecond on the virtual clock, retries and the
//! dead-letter queue, deauthorized and deleted connections, and bad input. `h.advance(...)`
//! moves the manual clock and waits for the HTTP deliveries; nothing sleeps.

use crate::harness::Harness;
use crate::sns_http::{Received, Subscriber};
use crate::sns_publish::deliveries;
use crate::sns_topics::sdk_error;
use aws_sdk_eventbridge::Client;
use aws_sdk_eventbridge::types::{
    ApiDestinationHttpMethod as Method, ApiDestinationState,
    ConnectionAuthorizationType as AuthType, ConnectionBodyParameter, ConnectionHeaderParameter,
    ConnectionHttpParameters, ConnectionOAuthHttpMethod, ConnectionQueryStringParameter,
    ConnectionState, CreateConnectionApiKeyAuthRequestParameters,
    CreateConnectionAuthRequestParameters, CreateConnectionBasicAuthRequestParameters,
    CreateConnectionOAuthClientRequestParameters, CreateConnectionOAuthRequestParameters,
    DeadLetterConfig, HttpParameters, PutEventsRequestEntry, RetryPolicy, Target,
    UpdateConnectionAuthRequestParameters, UpdateConnectionBasicAuthRequestParameters,
};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use base64::Engine as _;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

const ACCOUNT: &str = "000000000000";

fn basic(user: &str, password: &str) -> CreateConnectionAuthRequestParameters {
    CreateConnectionAuthRequestParameters::builder()
        .basic_auth_parameters(
            CreateConnectionBasicAuthRequestParameters::builder()
                .username(user)
                .password(password)
                .build()
                .unwrap(),
        )
        .build()
}

fn api_key(name: &str, value: &str) -> CreateConnectionAuthRequestParameters {
    CreateConnectionAuthRequestParameters::builder()
        .api_key_auth_parameters(
            CreateConnectionApiKeyAuthRequestParameters::builder()
                .api_key_name(name)
                .api_key_value(value)
                .build()
                .unwrap(),
        )
        .build()
}

fn header(key: &str, value: &str, secret: bool) -> ConnectionHeaderParameter {
    ConnectionHeaderParameter::builder()
        .key(key)
        .value(value)
        .is_value_secret(secret)
        .build()
}

fn query(key: &str, value: &str, secret: bool) -> ConnectionQueryStringParameter {
    ConnectionQueryStringParameter::builder()
        .key(key)
        .value(value)
        .is_value_secret(secret)
        .build()
}

fn body(key: &str, value: &str, secret: bool) -> ConnectionBodyParameter {
    ConnectionBodyParameter::builder()
        .key(key)
        .value(value)
        .is_value_secret(secret)
        .build()
}

async fn create_connection(
    events: &Client,
    name: &str,
    kind: AuthType,
    auth: CreateConnectionAuthRequestParameters,
) -> String {
    events
        .create_connection()
        .name(name)
        .authorization_type(kind)
        .auth_parameters(auth)
        .send()
        .await
        .unwrap()
        .connection_arn()
        .unwrap()
        .to_string()
}

async fn create_destination(
    events: &Client,
    name: &str,
    connection_arn: &str,
    endpoint: &str,
    method: Method,
    rate_limit: Option<i32>,
) -> String {
    events
        .create_api_destination()
        .name(name)
        .connection_arn(connection_arn)
        .invocation_endpoint(endpoint)
        .http_method(method)
        .set_invocation_rate_limit_per_second(rate_limit)
        .send()
        .await
        .unwrap()
        .api_destination_arn()
        .unwrap()
        .to_string()
}

/// A rule on the default bus matching `source: app.orders`, with `target`.
async fn rule_with(events: &Client, target: Target) -> String {
    let rule_arn = events
        .put_rule()
        .name("orders")
        .event_pattern(r#"{"source":["app.orders"]}"#)
        .send()
        .await
        .unwrap()
        .rule_arn()
        .unwrap()
        .to_string();
    let out = events
        .put_targets()
        .rule("orders")
        .targets(target)
        .send()
        .await
        .unwrap();
    assert_eq!(out.failed_entry_count(), 0, "{out:?}");
    rule_arn
}

/// Puts events with these details; answers their ids.
async fn put_events(events: &Client, details: &[Value]) -> Vec<String> {
    let mut request = events.put_events();
    for detail in details {
        request = request.entries(
            PutEventsRequestEntry::builder()
                .source("app.orders")
                .detail_type("OrderPlaced")
                .detail(detail.to_string())
                .build(),
        );
    }
    let out = request.send().await.unwrap();
    assert_eq!(out.failed_entry_count(), 0, "{out:?}");
    out.entries()
        .iter()
        .map(|e| e.event_id().unwrap().to_string())
        .collect()
}

fn target(id: &str, arn: &str) -> aws_sdk_eventbridge::types::builders::TargetBuilder {
    Target::builder()
        .id(id)
        .arn(arn)
        .role_arn(format!("arn:aws:iam::{ACCOUNT}:role/events-invoke"))
}

async fn now_secs(h: &Harness) -> i64 {
    h.control_get("clock").await["epochMillis"]
        .as_i64()
        .unwrap()
        / 1000
}

fn basic_header(user: &str, password: &str) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    format!("Basic {encoded}")
}

/// Asserts EventBridge's own headers on a request to an API destination (spec A10).
fn assert_eventbridge_headers(r: &Received) {
    assert_eq!(
        r.header("user-agent"),
        Some("Amazon/EventBridge/ApiDestinations")
    );
    assert_eq!(
        r.header("content-type"),
        Some("application/json; charset=utf-8")
    );
    assert_eq!(r.header("range"), Some("bytes=0-1048575"));
    assert_eq!(r.header("accept-encoding"), Some("gzip,deflate"));
    assert_eq!(r.header("connection"), Some("close"));
    assert_eq!(
        r.header("content-length"),
        Some(r.body.len().to_string().as_str())
    );
    assert!(
        r.header("host")
            .is_some_and(|h| h.starts_with("127.0.0.1:"))
    );
}

#[derive(Clone)]
struct TokenShared {
    received: Arc<Mutex<Vec<Received>>>,
    answer: Arc<Mutex<(u16, String)>>,
}

/// A local OAuth token endpoint on 127.0.0.1:0: records every request and answers a set status
/// and JSON body.
struct TokenEndpoint {
    url: String,
    shared: TokenShared,
    server: tokio::task::JoinHandle<()>,
}

impl TokenEndpoint {
    async fn start(status: u16, answer: Value) -> TokenEndpoint {
        async fn token(
            State(shared): State<TokenShared>,
            method: axum::http::Method,
            uri: Uri,
            headers: HeaderMap,
            body: String,
        ) -> (StatusCode, [(&'static str, &'static str); 1], String) {
            let headers = headers
                .iter()
                .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap().to_string()))
                .collect();
            shared.received.lock().unwrap().push(Received {
                method: method.to_string(),
                path: uri.to_string(),
                headers,
                body,
            });
            let (status, answer) = shared.answer.lock().unwrap().clone();
            (
                StatusCode::from_u16(status).unwrap(),
                [("content-type", "application/json")],
                answer,
            )
        }
        let shared = TokenShared {
            received: Arc::default(),
            answer: Arc::new(Mutex::new((status, answer.to_string()))),
        };
        let app = axum::Router::new()
            .fallback(token)
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/oauth2/token", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        TokenEndpoint {
            url,
            shared,
            server,
        }
    }

    fn take(&self) -> Vec<Received> {
        std::mem::take(&mut *self.shared.received.lock().unwrap())
    }
}

impl Drop for TokenEndpoint {
    fn drop(&mut self) {
        self.server.abort();
    }
}

fn oauth(endpoint: &str) -> CreateConnectionAuthRequestParameters {
    CreateConnectionAuthRequestParameters::builder()
        .o_auth_parameters(
            CreateConnectionOAuthRequestParameters::builder()
                .authorization_endpoint(endpoint)
                .http_method(ConnectionOAuthHttpMethod::Post)
                .client_parameters(
                    CreateConnectionOAuthClientRequestParameters::builder()
                        .client_id("client-1")
                        .client_secret("client-secret-1")
                        .build()
                        .unwrap(),
                )
                .o_auth_http_parameters(
                    ConnectionHttpParameters::builder()
                        .header_parameters(header("x-tenant", "t1", false))
                        .query_string_parameters(query("audience", "orders-api", false))
                        .body_parameters(body("scope", "orders:write", true))
                        .build(),
                )
                .build()
                .unwrap(),
        )
        .build()
}

/// The messages of an SQS queue (up to 10) with all their message attributes.
async fn dlq_messages(h: &Harness, queue_url: &str) -> Vec<aws_sdk_sqs::types::Message> {
    h.sqs()
        .receive_message()
        .queue_url(queue_url)
        .max_number_of_messages(10)
        .message_attribute_names("All")
        .send()
        .await
        .unwrap()
        .messages()
        .to_vec()
}

fn attribute(m: &aws_sdk_sqs::types::Message, name: &str) -> String {
    m.message_attributes().unwrap()[name]
        .string_value()
        .unwrap()
        .to_string()
}

/// A standard SQS queue for dead letters: (URL, ARN).
async fn dead_letter_queue(h: &Harness) -> (String, String) {
    let url = h
        .sqs()
        .create_queue()
        .queue_name("orders-dlq")
        .send()
        .await
        .unwrap()
        .queue_url()
        .unwrap()
        .to_string();
    (url, format!("arn:aws:sqs:us-east-1:{ACCOUNT}:orders-dlq"))
}

#[tokio::test]
async fn connections_are_created_described_listed_updated_and_deleted_without_showing_secrets() {
    let h = Harness::start().await;
    let events = h.events();
    let now = now_secs(&h).await;
    let invocation = ConnectionHttpParameters::builder()
        .header_parameters(header("x-team", "payments", false))
        .header_parameters(header("x-signing-key", "header-secret", true))
        .query_string_parameters(query("tenant", "t1", false))
        .query_string_parameters(query("token", "query-secret", true))
        .body_parameters(body("source", "eventbridge", false))
        .body_parameters(body("pin", "body-secret", true))
        .build();
    let auth = CreateConnectionAuthRequestParameters::builder()
        .basic_auth_parameters(
            CreateConnectionBasicAuthRequestParameters::builder()
                .username("svc")
                .password("basic-secret")
                .build()
                .unwrap(),
        )
        .invocation_http_parameters(invocation)
        .build();
    let created = events
        .create_connection()
        .name("payments")
        .description("payments API")
        .authorization_type(AuthType::Basic)
        .auth_parameters(auth)
        .send()
        .await
        .unwrap();
    let arn = created.connection_arn().unwrap().to_string();
    let prefix = format!("arn:aws:events:us-east-1:{ACCOUNT}:connection/payments/");
    let id = arn.strip_prefix(&prefix).expect("connection ARN");
    assert_eq!(id.len(), 36, "{arn}");
    assert_eq!(
        created.connection_state(),
        Some(&ConnectionState::Authorized)
    );
    assert_eq!(created.creation_time().unwrap().secs(), now);
    assert_eq!(created.last_modified_time().unwrap().secs(), now);

    h.advance(60.0).await;
    let d = events
        .describe_connection()
        .name("payments")
        .send()
        .await
        .unwrap();
    assert_eq!(d.connection_arn(), Some(arn.as_str()));
    assert_eq!(d.name(), Some("payments"));
    assert_eq!(d.description(), Some("payments API"));
    assert_eq!(d.authorization_type(), Some(&AuthType::Basic));
    assert_eq!(d.connection_state(), Some(&ConnectionState::Authorized));
    assert_eq!(d.state_reason(), None);
    assert_eq!(d.creation_time().unwrap().secs(), now);
    assert_eq!(d.last_modified_time().unwrap().secs(), now);
    assert_eq!(d.last_authorized_time().unwrap().secs(), now);
    assert_eq!(d.kms_key_identifier(), None);
    let secret = d.secret_arn().unwrap();
    let secret_prefix =
        format!("arn:aws:secretsmanager:us-east-1:{ACCOUNT}:secret:events!connection/payments/");
    let (uuid, suffix) = secret
        .strip_prefix(&secret_prefix)
        .unwrap()
        .rsplit_once('-')
        .unwrap();
    assert_eq!((uuid.len(), suffix.len()), (36, 6), "{secret}");
    assert!(suffix.chars().all(|c| c.is_ascii_alphanumeric()));
    let shown = d.auth_parameters().unwrap();
    assert_eq!(
        shown.basic_auth_parameters().unwrap().username(),
        Some("svc")
    );
    assert!(shown.api_key_auth_parameters().is_none());
    assert!(shown.o_auth_parameters().is_none());
    let p = shown.invocation_http_parameters().unwrap();
    let headers: Vec<_> = p
        .header_parameters()
        .iter()
        .map(|x| (x.key(), x.value(), x.is_value_secret()))
        .collect();
    assert_eq!(
        headers,
        [
            (Some("x-team"), Some("payments"), false),
            (Some("x-signing-key"), None, true)
        ]
    );
    let queries: Vec<_> = p
        .query_string_parameters()
        .iter()
        .map(|x| (x.key(), x.value(), x.is_value_secret()))
        .collect();
    assert_eq!(
        queries,
        [
            (Some("tenant"), Some("t1"), false),
            (Some("token"), None, true)
        ]
    );
    let bodies: Vec<_> = p
        .body_parameters()
        .iter()
        .map(|x| (x.key(), x.value(), x.is_value_secret()))
        .collect();
    assert_eq!(
        bodies,
        [
            (Some("source"), Some("eventbridge"), false),
            (Some("pin"), None, true)
        ]
    );
    // No secret anywhere in what AWS answers, byte for byte.
    let raw = h
        .json(
            "1.1",
            "AWSEvents.DescribeConnection",
            r#"{"Name":"payments"}"#,
        )
        .await;
    assert_eq!(raw.status, 200);
    for secret in [
        "basic-secret",
        "header-secret",
        "query-secret",
        "body-secret",
    ] {
        assert!(!raw.body.contains(secret), "{secret} in {}", raw.body);
    }

    // API_KEY and a second BASIC connection, for the list.
    create_connection(
        &events,
        "payments-keyed",
        AuthType::ApiKey,
        api_key("x-api-key", "k-1"),
    )
    .await;
    create_connection(&events, "shipping", AuthType::Basic, basic("u", "p")).await;
    let keyed = events
        .describe_connection()
        .name("payments-keyed")
        .send()
        .await
        .unwrap();
    let key_params = keyed
        .auth_parameters()
        .unwrap()
        .api_key_auth_parameters()
        .unwrap();
    assert_eq!(key_params.api_key_name(), Some("x-api-key"));
    assert!(
        keyed
            .auth_parameters()
            .unwrap()
            .invocation_http_parameters()
            .is_none()
    );

    let list = events
        .list_connections()
        .name_prefix("payments")
        .send()
        .await
        .unwrap();
    let names: Vec<_> = list
        .connections()
        .iter()
        .map(|c| c.name().unwrap())
        .collect();
    assert_eq!(names, ["payments", "payments-keyed"]);
    let first = &list.connections()[0];
    assert_eq!(first.connection_arn(), Some(arn.as_str()));
    assert_eq!(first.authorization_type(), Some(&AuthType::Basic));
    assert_eq!(first.connection_state(), Some(&ConnectionState::Authorized));
    assert_eq!(first.creation_time().unwrap().secs(), now);
    assert_eq!(first.last_authorized_time().unwrap().secs(), now);
    assert_eq!(first.last_modified_time().unwrap().secs(), now);
    assert_eq!(first.state_reason(), None);
    let page = events.list_connections().limit(2).send().await.unwrap();
    assert_eq!(page.connections().len(), 2);
    let rest = events
        .list_connections()
        .limit(2)
        .next_token(page.next_token().unwrap())
        .send()
        .await
        .unwrap();
    let names: Vec<_> = rest
        .connections()
        .iter()
        .map(|c| c.name().unwrap())
        .collect();
    assert_eq!((names, rest.next_token()), (vec!["shipping"], None));

    // Update: a new user name; the password stays.
    let updated = events
        .update_connection()
        .name("payments")
        .description("payments API v2")
        .auth_parameters(
            UpdateConnectionAuthRequestParameters::builder()
                .basic_auth_parameters(
                    UpdateConnectionBasicAuthRequestParameters::builder()
                        .username("svc2")
                        .build(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(updated.connection_arn(), Some(arn.as_str()));
    assert_eq!(
        updated.connection_state(),
        Some(&ConnectionState::Authorized)
    );
    assert_eq!(updated.creation_time().unwrap().secs(), now);
    assert_eq!(updated.last_modified_time().unwrap().secs(), now + 60);
    assert_eq!(updated.last_authorized_time().unwrap().secs(), now + 60);
    let d = events
        .describe_connection()
        .name("payments")
        .send()
        .await
        .unwrap();
    assert_eq!(d.description(), Some("payments API v2"));
    let user = d
        .auth_parameters()
        .unwrap()
        .basic_auth_parameters()
        .unwrap();
    assert_eq!(user.username(), Some("svc2"));

    // Deauthorize: DEAUTHORIZING in the answer, DEAUTHORIZED after.
    let deauthorized = events
        .deauthorize_connection()
        .name("shipping")
        .send()
        .await
        .unwrap();
    assert_eq!(
        deauthorized.connection_state(),
        Some(&ConnectionState::Deauthorizing)
    );
    let states = events
        .list_connections()
        .connection_state(ConnectionState::Deauthorized)
        .send()
        .await
        .unwrap();
    let names: Vec<_> = states
        .connections()
        .iter()
        .map(|c| c.name().unwrap())
        .collect();
    assert_eq!(names, ["shipping"]);

    // Delete: DELETING in the answer, and gone.
    let deleted = events
        .delete_connection()
        .name("payments")
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.connection_arn(), Some(arn.as_str()));
    assert_eq!(deleted.connection_state(), Some(&ConnectionState::Deleting));
    assert_eq!(deleted.creation_time().unwrap().secs(), now);
    assert_eq!(deleted.last_authorized_time().unwrap().secs(), now + 60);
    let (code, message) = sdk_error(events.describe_connection().name("payments").send().await);
    assert_eq!(code, "ResourceNotFoundException");
    assert_eq!(
        message,
        "Failed to describe the connection(s). Connection 'payments' does not exist."
    );
}

#[tokio::test]
async fn api_destinations_are_created_described_listed_updated_and_deleted() {
    let h = Harness::start().await;
    let events = h.events();
    let now = now_secs(&h).await;
    let c1 = create_connection(&events, "c1", AuthType::Basic, basic("u", "p")).await;
    let c2 = create_connection(&events, "c2", AuthType::ApiKey, api_key("k", "v")).await;
    let created = events
        .create_api_destination()
        .name("orders-api")
        .description("orders webhook")
        .connection_arn(&c1)
        .invocation_endpoint("https://orders.example.com/hooks/*")
        .http_method(Method::Post)
        .send()
        .await
        .unwrap();
    let arn = created.api_destination_arn().unwrap().to_string();
    let prefix = format!("arn:aws:events:us-east-1:{ACCOUNT}:api-destination/orders-api/");
    assert_eq!(arn.strip_prefix(&prefix).unwrap().len(), 36, "{arn}");
    assert_eq!(
        created.api_destination_state(),
        Some(&ApiDestinationState::Active)
    );
    assert_eq!(created.creation_time().unwrap().secs(), now);
    assert_eq!(created.last_modified_time().unwrap().secs(), now);

    let d = events
        .describe_api_destination()
        .name("orders-api")
        .send()
        .await
        .unwrap();
    assert_eq!(d.api_destination_arn(), Some(arn.as_str()));
    assert_eq!(d.name(), Some("orders-api"));
    assert_eq!(d.description(), Some("orders webhook"));
    assert_eq!(
        d.api_destination_state(),
        Some(&ApiDestinationState::Active)
    );
    assert_eq!(d.connection_arn(), Some(c1.as_str()));
    assert_eq!(
        d.invocation_endpoint(),
        Some("https://orders.example.com/hooks/*")
    );
    assert_eq!(d.http_method(), Some(&Method::Post));
    // AWS's default rate.
    assert_eq!(d.invocation_rate_limit_per_second(), Some(300));
    assert_eq!(d.creation_time().unwrap().secs(), now);
    assert_eq!(d.last_modified_time().unwrap().secs(), now);

    create_destination(
        &events,
        "billing-api",
        &c2,
        "http://127.0.0.1:9/b",
        Method::Get,
        Some(5),
    )
    .await;
    let list = events.list_api_destinations().send().await.unwrap();
    let names: Vec<_> = list
        .api_destinations()
        .iter()
        .map(|d| d.name().unwrap())
        .collect();
    assert_eq!(names, ["billing-api", "orders-api"]);
    let billing = &list.api_destinations()[0];
    assert_eq!(billing.connection_arn(), Some(c2.as_str()));
    assert_eq!(billing.http_method(), Some(&Method::Get));
    assert_eq!(billing.invocation_endpoint(), Some("http://127.0.0.1:9/b"));
    assert_eq!(billing.invocation_rate_limit_per_second(), Some(5));
    assert_eq!(
        billing.api_destination_state(),
        Some(&ApiDestinationState::Active)
    );
    assert_eq!(billing.creation_time().unwrap().secs(), now);
    let by_connection = events
        .list_api_destinations()
        .connection_arn(&c1)
        .send()
        .await
        .unwrap();
    let names: Vec<_> = by_connection
        .api_destinations()
        .iter()
        .map(|d| d.name().unwrap())
        .collect();
    assert_eq!(names, ["orders-api"]);
    let prefixed = events
        .list_api_destinations()
        .name_prefix("bill")
        .limit(1)
        .send()
        .await
        .unwrap();
    assert_eq!(prefixed.api_destinations().len(), 1);
    assert_eq!(prefixed.next_token(), None);

    h.advance(30.0).await;
    let updated = events
        .update_api_destination()
        .name("orders-api")
        .description("orders webhook v2")
        .connection_arn(&c2)
        .invocation_endpoint("https://orders.example.com/v2/*")
        .http_method(Method::Put)
        .invocation_rate_limit_per_second(20)
        .send()
        .await
        .unwrap();
    assert_eq!(updated.api_destination_arn(), Some(arn.as_str()));
    assert_eq!(
        updated.api_destination_state(),
        Some(&ApiDestinationState::Active)
    );
    assert_eq!(updated.creation_time().unwrap().secs(), now);
    assert_eq!(updated.last_modified_time().unwrap().secs(), now + 30);
    let d = events
        .describe_api_destination()
        .name("orders-api")
        .send()
        .await
        .unwrap();
    assert_eq!(d.description(), Some("orders webhook v2"));
    assert_eq!(d.connection_arn(), Some(c2.as_str()));
    assert_eq!(
        d.invocation_endpoint(),
        Some("https://orders.example.com/v2/*")
    );
    assert_eq!(d.http_method(), Some(&Method::Put));
    assert_eq!(d.invocation_rate_limit_per_second(), Some(20));

    events
        .delete_api_destination()
        .name("orders-api")
        .send()
        .await
        .unwrap();
    let (code, message) = sdk_error(
        events
            .describe_api_destination()
            .name("orders-api")
            .send()
            .await,
    );
    assert_eq!(code, "ResourceNotFoundException");
    assert_eq!(
        message,
        "Failed to describe the api-destination(s). An api-destination 'orders-api' does not exist."
    );
    let names: Vec<_> = events
        .list_api_destinations()
        .send()
        .await
        .unwrap()
        .api_destinations()
        .iter()
        .map(|d| d.name().unwrap().to_string())
        .collect();
    assert_eq!(names, ["billing-api"]);
}

#[tokio::test]
async fn basic_auth_invocations_carry_path_parameters_query_strings_and_headers() {
    let h = Harness::start().await;
    let events = h.events();
    let receiver = Subscriber::start().await;
    let auth = CreateConnectionAuthRequestParameters::builder()
        .basic_auth_parameters(
            CreateConnectionBasicAuthRequestParameters::builder()
                .username("svc")
                .password("s3cret")
                .build()
                .unwrap(),
        )
        .invocation_http_parameters(
            ConnectionHttpParameters::builder()
                .header_parameters(header("x-team", "payments", false))
                .header_parameters(header("x-signing-key", "hidden", true))
                .header_parameters(header("x-shared", "from-connection", false))
                .query_string_parameters(query("tenant", "t1", false))
                .query_string_parameters(query("shared", "connection", false))
                .build(),
        )
        .build();
    let connection = create_connection(&events, "payments", AuthType::Basic, auth).await;
    let endpoint = format!("{}/orders/*/items/*", receiver.url);
    let destination = create_destination(
        &events,
        "orders-api",
        &connection,
        &endpoint,
        Method::Put,
        None,
    )
    .await;
    let params = HttpParameters::builder()
        .path_parameter_values("o-17")
        .path_parameter_values("item 3")
        .query_string_parameters("shared", "target")
        .query_string_parameters("view", "full")
        .header_parameters("x-shared", "from-target")
        .header_parameters("x-request-source", "rule")
        .build();
    rule_with(
        &events,
        target("api", &destination)
            .http_parameters(params)
            .build()
            .unwrap(),
    )
    .await;
    let ids = put_events(&events, &[json!({"order": 17})]).await;
    h.advance(0.0).await;

    let got = receiver.take();
    assert_eq!(got.len(), 1, "{got:?}");
    let r = &got[0];
    assert_eq!(r.method, "PUT");
    // The connection's value wins where both set a query parameter or header.
    assert_eq!(
        r.path,
        "/hook/orders/o-17/items/item%203?tenant=t1&shared=connection&view=full"
    );
    assert_eventbridge_headers(r);
    assert_eq!(
        r.header("authorization"),
        Some(basic_header("svc", "s3cret").as_str())
    );
    assert_eq!(r.header("x-team"), Some("payments"));
    assert_eq!(r.header("x-signing-key"), Some("hidden"));
    assert_eq!(r.header("x-shared"), Some("from-connection"));
    assert_eq!(r.header("x-request-source"), Some("rule"));
    let event = r.json();
    assert_eq!(event["id"], ids[0].as_str());
    assert_eq!(event["detail"], json!({"order": 17}));
    assert_eq!(event["detail-type"], "OrderPlaced");

    let log = deliveries(&h, "limit=1000").await;
    let attempts: Vec<_> = log.iter().filter(|r| r["event"] == "attempt").collect();
    assert_eq!(attempts.len(), 1, "{log:?}");
    assert_eq!(attempts[0]["protocol"], "api-destination");
    assert_eq!(attempts[0]["outcome"], "delivered");
    assert_eq!(attempts[0]["status"], 200);
    assert_eq!(attempts[0]["messageId"], ids[0].as_str());
}

#[tokio::test]
async fn api_key_invocations_send_the_key_as_a_header() {
    let h = Harness::start().await;
    let events = h.events();
    let receiver = Subscriber::start().await;
    let connection = create_connection(
        &events,
        "keyed",
        AuthType::ApiKey,
        api_key("x-api-key", "k-123"),
    )
    .await;
    let destination = create_destination(
        &events,
        "lookup",
        &connection,
        &receiver.url,
        Method::Patch,
        None,
    )
    .await;
    rule_with(&events, target("api", &destination).build().unwrap()).await;
    put_events(&events, &[json!({"a": 1})]).await;
    h.advance(0.0).await;
    let got = receiver.take();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].method, "PATCH");
    assert_eq!(got[0].path, "/hook");
    assert_eq!(got[0].header("x-api-key"), Some("k-123"));
    assert_eq!(got[0].header("authorization"), None);
    assert_eventbridge_headers(&got[0]);
}

#[tokio::test]
async fn oauth_connections_exchange_client_credentials_for_a_bearer_token() {
    let h = Harness::start().await;
    let events = h.events();
    let receiver = Subscriber::start().await;
    let tokens = TokenEndpoint::start(
        200,
        json!({"access_token": "at-42", "token_type": "Bearer", "expires_in": 3600}),
    )
    .await;
    let created = events
        .create_connection()
        .name("partner")
        .authorization_type(AuthType::OauthClientCredentials)
        .auth_parameters(oauth(&tokens.url))
        .send()
        .await
        .unwrap();
    // AWS answers AUTHORIZING; the token request has been made by then.
    assert_eq!(
        created.connection_state(),
        Some(&ConnectionState::Authorizing)
    );
    let requests = tokens.take();
    assert_eq!(requests.len(), 1, "{requests:?}");
    let t = &requests[0];
    assert_eq!(t.method, "POST");
    assert_eq!(t.path, "/oauth2/token?audience=orders-api");
    assert_eq!(
        t.header("authorization"),
        Some(basic_header("client-1", "client-secret-1").as_str())
    );
    assert_eq!(
        t.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(t.header("x-tenant"), Some("t1"));
    assert_eq!(t.body, "grant_type=client_credentials&scope=orders%3Awrite");

    let d = events
        .describe_connection()
        .name("partner")
        .send()
        .await
        .unwrap();
    assert_eq!(d.connection_state(), Some(&ConnectionState::Authorized));
    assert_eq!(
        d.authorization_type(),
        Some(&AuthType::OauthClientCredentials)
    );
    let o = d.auth_parameters().unwrap().o_auth_parameters().unwrap();
    assert_eq!(o.authorization_endpoint(), Some(tokens.url.as_str()));
    assert_eq!(o.http_method(), Some(&ConnectionOAuthHttpMethod::Post));
    assert_eq!(o.client_parameters().unwrap().client_id(), Some("client-1"));
    let extra = o.o_auth_http_parameters().unwrap();
    assert_eq!(extra.body_parameters()[0].key(), Some("scope"));
    assert_eq!(extra.body_parameters()[0].value(), None);
    assert_eq!(extra.header_parameters()[0].value(), Some("t1"));
    let raw = h
        .json(
            "1.1",
            "AWSEvents.DescribeConnection",
            r#"{"Name":"partner"}"#,
        )
        .await;
    for secret in ["client-secret-1", "orders:write", "at-42"] {
        assert!(!raw.body.contains(secret), "{secret} in {}", raw.body);
    }

    let destination = create_destination(
        &events,
        "partner-api",
        &created_arn(&created),
        &receiver.url,
        Method::Post,
        None,
    )
    .await;
    rule_with(&events, target("api", &destination).build().unwrap()).await;
    put_events(&events, &[json!({"n": 1})]).await;
    h.advance(0.0).await;
    let got = receiver.take();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].header("authorization"), Some("Bearer at-42"));
    assert_eventbridge_headers(&got[0]);
    // One token for every invocation: no further token requests.
    assert!(tokens.take().is_empty());
}

fn created_arn(
    out: &aws_sdk_eventbridge::operation::create_connection::CreateConnectionOutput,
) -> String {
    out.connection_arn().unwrap().to_string()
}

#[tokio::test]
async fn a_refused_token_request_leaves_the_connection_authorizing_and_its_invocations_dead_lettered()
 {
    let h = Harness::start().await;
    let events = h.events();
    let receiver = Subscriber::start().await;
    let tokens = TokenEndpoint::start(401, json!({"error": "invalid_client"})).await;
    let connection = create_connection(
        &events,
        "partner",
        AuthType::OauthClientCredentials,
        oauth(&tokens.url),
    )
    .await;
    assert_eq!(tokens.take().len(), 1);
    let d = events
        .describe_connection()
        .name("partner")
        .send()
        .await
        .unwrap();
    // As AWS reported a connection whose endpoint did not authorize it.
    assert_eq!(d.connection_state(), Some(&ConnectionState::Authorizing));
    assert_eq!(
        d.state_reason(),
        Some("The authorization endpoint answered HTTP status 401.")
    );
    let listed = events.list_connections().send().await.unwrap();
    assert_eq!(
        listed.connections()[0].state_reason(),
        Some("The authorization endpoint answered HTTP status 401.")
    );

    let destination = create_destination(
        &events,
        "partner-api",
        &connection,
        &receiver.url,
        Method::Post,
        None,
    )
    .await;
    let state = events
        .describe_api_destination()
        .name("partner-api")
        .send()
        .await
        .unwrap();
    assert_eq!(
        state.api_destination_state(),
        Some(&ApiDestinationState::Inactive)
    );
    let (dlq_url, dlq_arn) = dead_letter_queue(&h).await;
    let rule_arn = rule_with(
        &events,
        target("api", &destination)
            .dead_letter_config(DeadLetterConfig::builder().arn(&dlq_arn).build())
            .build()
            .unwrap(),
    )
    .await;
    put_events(&events, &[json!({"n": 1})]).await;
    h.advance(0.0).await;
    assert!(receiver.take().is_empty());
    let dead = dlq_messages(&h, &dlq_url).await;
    assert_eq!(dead.len(), 1);
    assert_eq!(attribute(&dead[0], "ERROR_CODE"), "NO_PERMISSIONS");
    assert_eq!(attribute(&dead[0], "RULE_ARN"), rule_arn);
    assert_eq!(attribute(&dead[0], "TARGET_ARN"), destination);
    assert_eq!(attribute(&dead[0], "RETRY_ATTEMPTS"), "0");

    // Credentials that work authorize it again.
    *tokens.shared.answer.lock().unwrap() = (200, json!({"access_token": "at-2"}).to_string());
    let updated = events
        .update_connection()
        .name("partner")
        .auth_parameters(
            UpdateConnectionAuthRequestParameters::builder()
                .o_auth_parameters(
                    aws_sdk_eventbridge::types::UpdateConnectionOAuthRequestParameters::builder()
                        .client_parameters(
                            aws_sdk_eventbridge::types::UpdateConnectionOAuthClientRequestParameters::builder()
                                .client_secret("client-secret-2")
                                .build(),
                        )
                        .build(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(
        updated.connection_state(),
        Some(&ConnectionState::Authorizing)
    );
    let retried = tokens.take();
    assert_eq!(
        retried[0].header("authorization"),
        Some(basic_header("client-1", "client-secret-2").as_str())
    );
    let d = events
        .describe_connection()
        .name("partner")
        .send()
        .await
        .unwrap();
    assert_eq!(d.connection_state(), Some(&ConnectionState::Authorized));
    assert_eq!(d.state_reason(), None);
    put_events(&events, &[json!({"n": 2})]).await;
    h.advance(0.0).await;
    let got = receiver.take();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].header("authorization"), Some("Bearer at-2"));
}

#[tokio::test]
async fn the_invocation_rate_limit_paces_deliveries_on_the_virtual_clock() {
    let h = Harness::start().await;
    let events = h.events();
    let receiver = Subscriber::start().await;
    let connection = create_connection(&events, "c", AuthType::ApiKey, api_key("k", "v")).await;
    let destination = create_destination(
        &events,
        "slow",
        &connection,
        &receiver.url,
        Method::Post,
        Some(1),
    )
    .await;
    rule_with(&events, target("api", &destination).build().unwrap()).await;
    let details: Vec<Value> = (0..5).map(|n| json!({"n": n})).collect();
    put_events(&events, &details).await;

    // One invocation per virtual second: 0, 1, 2, 3, 4.
    h.advance(0.0).await;
    let mut order = Vec::new();
    for second in 1..=5 {
        let got = receiver.take();
        assert_eq!(got.len(), 1, "second {second}: {got:?}");
        order.push(got[0].json()["detail"]["n"].as_i64().unwrap());
        if second < 5 {
            h.advance(1.0).await;
        }
    }
    assert_eq!(order, [0, 1, 2, 3, 4]);

    let log = deliveries(&h, "limit=1000").await;
    let throttled: Vec<_> = log.iter().filter(|r| r["event"] == "throttled").collect();
    assert_eq!(throttled.len(), 4, "{log:?}");
    let attempts: Vec<&Value> = log.iter().filter(|r| r["event"] == "attempt").collect();
    assert_eq!(attempts.len(), 5);
    assert!(
        attempts.iter().all(|r| r["attempt"] == 1),
        "throttling is not a retry"
    );
    let at: Vec<&str> = attempts.iter().map(|r| r["at"].as_str().unwrap()).collect();
    let next: Vec<&str> = throttled
        .iter()
        .map(|r| r["nextAttemptAt"].as_str().unwrap())
        .collect();
    // Each held-back invocation is attempted when its throttled record said it would be.
    assert_eq!(next, at[1..]);
    // Milliseconds within the minute of `...T07:00:SS.mmmZ`.
    let millis = |t: &str| -> i64 {
        t[17..19].parse::<i64>().unwrap() * 1000 + t[20..23].parse::<i64>().unwrap()
    };
    let offsets: Vec<i64> = at
        .iter()
        .map(|t| (millis(t) - millis(at[0])).rem_euclid(60_000))
        .collect();
    assert_eq!(offsets, [0, 1000, 2000, 3000, 4000]);
}

#[tokio::test]
async fn a_failing_endpoint_is_retried_under_the_retry_policy_then_dead_lettered() {
    let h = Harness::start().await;
    let events = h.events();
    let receiver = Subscriber::start().await;
    receiver.answer(500);
    let connection = create_connection(&events, "c", AuthType::Basic, basic("u", "p")).await;
    let destination = create_destination(
        &events,
        "flaky",
        &connection,
        &receiver.url,
        Method::Post,
        None,
    )
    .await;
    let (dlq_url, dlq_arn) = dead_letter_queue(&h).await;
    let rule_arn = rule_with(
        &events,
        target("api", &destination)
            .retry_policy(
                RetryPolicy::builder()
                    .maximum_retry_attempts(2)
                    .maximum_event_age_in_seconds(3600)
                    .build(),
            )
            .dead_letter_config(DeadLetterConfig::builder().arn(&dlq_arn).build())
            .build()
            .unwrap(),
    )
    .await;
    let ids = put_events(&events, &[json!({"order": 9})]).await;
    h.advance(60.0).await;

    assert_eq!(
        receiver.take().len(),
        3,
        "the first attempt and two retries"
    );
    let log = deliveries(&h, "limit=1000").await;
    let outcomes: Vec<(&str, &str, i64)> = log
        .iter()
        .filter(|r| r["event"] == "attempt")
        .map(|r| {
            (
                r["outcome"].as_str().unwrap(),
                r["phase"].as_str().unwrap(),
                r["status"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("retryable", "initial", 500),
            ("retryable", "retry", 500),
            ("retryable", "retry", 500)
        ]
    );
    let last = log.last().unwrap();
    assert_eq!(last["event"], "dead-lettered");
    assert_eq!(last["target"], dlq_arn.as_str());

    let dead = dlq_messages(&h, &dlq_url).await;
    assert_eq!(dead.len(), 1);
    let event: Value = serde_json::from_str(dead[0].body().unwrap()).unwrap();
    assert_eq!(event["id"], ids[0].as_str());
    assert_eq!(attribute(&dead[0], "RULE_ARN"), rule_arn);
    assert_eq!(attribute(&dead[0], "TARGET_ARN"), destination);
    assert_eq!(attribute(&dead[0], "ERROR_CODE"), "SDK_CLIENT_ERROR");
    assert_eq!(
        attribute(&dead[0], "ERROR_MESSAGE"),
        format!("Target {} answered HTTP status code 500.", receiver.url)
    );
    assert_eq!(
        attribute(&dead[0], "EXHAUSTED_RETRY_CONDITION"),
        "MaximumRetryAttempts"
    );
    assert_eq!(attribute(&dead[0], "RETRY_ATTEMPTS"), "2");
}

#[tokio::test]
async fn a_deauthorized_connection_sends_nothing_until_it_is_given_credentials_again() {
    let h = Harness::start().await;
    let events = h.events();
    let receiver = Subscriber::start().await;
    let connection = create_connection(&events, "c", AuthType::Basic, basic("u", "old")).await;
    let destination = create_destination(
        &events,
        "api",
        &connection,
        &receiver.url,
        Method::Post,
        None,
    )
    .await;
    let (dlq_url, dlq_arn) = dead_letter_queue(&h).await;
    rule_with(
        &events,
        target("api", &destination)
            .dead_letter_config(DeadLetterConfig::builder().arn(&dlq_arn).build())
            .build()
            .unwrap(),
    )
    .await;
    events
        .deauthorize_connection()
        .name("c")
        .send()
        .await
        .unwrap();
    let d = events.describe_connection().name("c").send().await.unwrap();
    assert_eq!(d.connection_state(), Some(&ConnectionState::Deauthorized));
    let state = events
        .describe_api_destination()
        .name("api")
        .send()
        .await
        .unwrap();
    assert_eq!(
        state.api_destination_state(),
        Some(&ApiDestinationState::Inactive)
    );

    put_events(&events, &[json!({"n": 1})]).await;
    h.advance(10.0).await;
    assert!(receiver.take().is_empty());
    let dead = dlq_messages(&h, &dlq_url).await;
    assert_eq!(dead.len(), 1);
    // Not retried: EventBridge has no right to invoke the endpoint.
    assert_eq!(attribute(&dead[0], "ERROR_CODE"), "NO_PERMISSIONS");
    assert_eq!(attribute(&dead[0], "RETRY_ATTEMPTS"), "0");
    let attempts = deliveries(&h, "event=attempt").await;
    assert_eq!(attempts.len(), 1);
    assert_eq!(attempts[0]["outcome"], "permanent");
    assert_eq!(attempts[0]["errorCode"], "NO_PERMISSIONS");

    // The password went with the deauthorization: an update must give one.
    let (code, message) = sdk_error(
        events
            .update_connection()
            .name("c")
            .auth_parameters(
                UpdateConnectionAuthRequestParameters::builder()
                    .basic_auth_parameters(
                        UpdateConnectionBasicAuthRequestParameters::builder()
                            .username("u2")
                            .build(),
                    )
                    .build(),
            )
            .send()
            .await,
    );
    assert_eq!(code, "ValidationException");
    assert_eq!(
        message,
        "Parameter BasicAuthParameters is not valid. Reason: Missing required field(s)."
    );
    events
        .update_connection()
        .name("c")
        .auth_parameters(
            UpdateConnectionAuthRequestParameters::builder()
                .basic_auth_parameters(
                    UpdateConnectionBasicAuthRequestParameters::builder()
                        .password("new")
                        .build(),
                )
                .build(),
        )
        .send()
        .await
        .unwrap();
    put_events(&events, &[json!({"n": 2})]).await;
    h.advance(0.0).await;
    let got = receiver.take();
    assert_eq!(got.len(), 1);
    assert_eq!(
        got[0].header("authorization"),
        Some(basic_header("u", "new").as_str())
    );
}

#[tokio::test]
async fn deleting_a_connection_in_use_leaves_its_destinations_failing_with_no_resource() {
    let h = Harness::start().await;
    let events = h.events();
    let receiver = Subscriber::start().await;
    let connection = create_connection(&events, "c", AuthType::Basic, basic("u", "p")).await;
    let destination = create_destination(
        &events,
        "api",
        &connection,
        &receiver.url,
        Method::Post,
        None,
    )
    .await;
    let (dlq_url, dlq_arn) = dead_letter_queue(&h).await;
    rule_with(
        &events,
        target("api", &destination)
            .dead_letter_config(DeadLetterConfig::builder().arn(&dlq_arn).build())
            .build()
            .unwrap(),
    )
    .await;
    events.delete_connection().name("c").send().await.unwrap();
    let d = events
        .describe_api_destination()
        .name("api")
        .send()
        .await
        .unwrap();
    assert_eq!(d.connection_arn(), Some(connection.as_str()));
    assert_eq!(
        d.api_destination_state(),
        Some(&ApiDestinationState::Inactive)
    );
    put_events(&events, &[json!({"n": 1})]).await;
    h.advance(0.0).await;
    assert!(receiver.take().is_empty());
    let dead = dlq_messages(&h, &dlq_url).await;
    assert_eq!(attribute(&dead[0], "ERROR_CODE"), "NO_RESOURCE");
    assert_eq!(
        attribute(&dead[0], "ERROR_MESSAGE"),
        format!("Target {destination} does not exist.")
    );
    // A connection of the same name is another connection.
    create_connection(&events, "c", AuthType::Basic, basic("u", "p")).await;
    let d = events
        .describe_api_destination()
        .name("api")
        .send()
        .await
        .unwrap();
    assert_eq!(
        d.api_destination_state(),
        Some(&ApiDestinationState::Inactive)
    );
}

#[tokio::test]
async fn bad_input_is_refused_with_aws_codes_and_messages() {
    let h = Harness::start().await;
    let events = h.events();
    let connection = create_connection(&events, "c", AuthType::Basic, basic("u", "p")).await;
    let validation = |(code, message): (String, String)| {
        assert_eq!(code, "ValidationException", "{message}");
        message
    };

    // AWS's recorded answers (LocalStack snapshots of real AWS).
    let m = validation(sdk_error(
        events
            .create_connection()
            .name("Invalid Name With Spaces!")
            .authorization_type(AuthType::Basic)
            .auth_parameters(basic("u", "p"))
            .send()
            .await,
    ));
    assert_eq!(
        m,
        "1 validation error detected: Value 'Invalid Name With Spaces!' at 'name' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\.\\-_A-Za-z0-9]+"
    );
    let m = validation(sdk_error(
        events
            .create_connection()
            .name("x")
            .authorization_type(AuthType::from("INVALID_AUTH_TYPE"))
            .auth_parameters(basic("u", "p"))
            .send()
            .await,
    ));
    assert_eq!(
        m,
        "1 validation error detected: Value 'INVALID_AUTH_TYPE' at 'authorizationType' failed to satisfy constraint: Member must satisfy enum value set: [BASIC, OAUTH_CLIENT_CREDENTIALS, API_KEY]"
    );
    let m = validation(sdk_error(
        events
            .create_api_destination()
            .name("d")
            .connection_arn("invalid-connection-arn")
            .invocation_endpoint("https://example.com/api")
            .http_method(Method::from("INVALID_METHOD"))
            .send()
            .await,
    ));
    assert_eq!(
        m,
        "2 validation errors detected: Value 'invalid-connection-arn' at 'connectionArn' failed to satisfy constraint: Member must satisfy regular expression pattern: ^arn:aws([a-z]|\\-)*:events:([a-z]|\\d|\\-)*:([0-9]{12})?:connection\\/[\\.\\-_A-Za-z0-9]+\\/[\\-A-Za-z0-9]+$; Value 'INVALID_METHOD' at 'httpMethod' failed to satisfy constraint: Member must satisfy enum value set: [HEAD, POST, PATCH, DELETE, PUT, GET, OPTIONS]"
    );

    // AuthParameters must fit the authorization type.
    let m = validation(sdk_error(
        events
            .create_connection()
            .name("x")
            .authorization_type(AuthType::Basic)
            .auth_parameters(api_key("k", "v"))
            .send()
            .await,
    ));
    assert_eq!(
        m,
        "Parameter BasicAuthParameters is not valid. Reason: Missing required field(s)."
    );
    let m = validation(sdk_error(
        events
            .create_connection()
            .name("x")
            .authorization_type(AuthType::OauthClientCredentials)
            .auth_parameters(oauth("auth.example.com/token"))
            .send()
            .await,
    ));
    assert_eq!(
        m,
        "Parameter AuthorizationEndpoint is not valid. Reason: Endpoint 'auth.example.com/token' is invalid, please provide a valid HTTPS endpoint URL."
    );
    // A secret that breaks its pattern is not echoed.
    let m = validation(sdk_error(
        events
            .create_connection()
            .name("x")
            .authorization_type(AuthType::Basic)
            .auth_parameters(basic("u", "pass:word"))
            .send()
            .await,
    ));
    assert!(
        m.starts_with("1 validation error detected: Value at 'authParameters.basicAuthParameters.password' failed to satisfy constraint: Member must satisfy regular expression pattern: "),
        "{m}"
    );
    assert!(!m.contains("pass:word"));

    let (code, message) = sdk_error(
        events
            .create_connection()
            .name("c")
            .authorization_type(AuthType::Basic)
            .auth_parameters(basic("u", "p"))
            .send()
            .await,
    );
    assert_eq!(
        (code.as_str(), message.as_str()),
        (
            "ResourceAlreadyExistsException",
            "Connection 'c' already exists."
        )
    );
    let (code, message) = sdk_error(events.update_connection().name("nope").send().await);
    assert_eq!(
        (code.as_str(), message.as_str()),
        (
            "ResourceNotFoundException",
            "Failed to update the connection(s). Connection 'nope' does not exist."
        )
    );
    let (code, _) = sdk_error(events.deauthorize_connection().name("nope").send().await);
    assert_eq!(code, "ResourceNotFoundException");
    let (code, _) = sdk_error(events.delete_connection().name("nope").send().await);
    assert_eq!(code, "ResourceNotFoundException");

    // API destinations.
    let m = validation(sdk_error(
        events
            .create_api_destination()
            .name("d")
            .connection_arn(&connection)
            .invocation_endpoint("ftp://example.com/api")
            .http_method(Method::Post)
            .send()
            .await,
    ));
    assert_eq!(
        m,
        "Failed to create the api-destination(s). Parameter InvocationEndpoint is not valid. Reason: Endpoint 'ftp://example.com/api' is invalid, please provide a valid HTTPS endpoint URL."
    );
    let m = validation(sdk_error(
        events
            .create_api_destination()
            .name("d")
            .connection_arn(&connection)
            .invocation_endpoint("https://example.com/api")
            .http_method(Method::Post)
            .invocation_rate_limit_per_second(0)
            .send()
            .await,
    ));
    assert_eq!(
        m,
        "1 validation error detected: Value '0' at 'invocationRateLimitPerSecond' failed to satisfy constraint: Member must have value greater than or equal to 1"
    );
    let missing = connection.replace("connection/c/", "connection/gone/");
    let (code, message) = sdk_error(
        events
            .create_api_destination()
            .name("d")
            .connection_arn(&missing)
            .invocation_endpoint("https://example.com/api")
            .http_method(Method::Post)
            .send()
            .await,
    );
    assert_eq!(
        (code.as_str(), message.as_str()),
        (
            "ResourceNotFoundException",
            "Failed to create the api-destination(s). Connection 'gone' does not exist."
        )
    );
    create_destination(
        &events,
        "d",
        &connection,
        "https://example.com/api",
        Method::Post,
        None,
    )
    .await;
    let (code, message) = sdk_error(
        events
            .create_api_destination()
            .name("d")
            .connection_arn(&connection)
            .invocation_endpoint("https://example.com/api")
            .http_method(Method::Post)
            .send()
            .await,
    );
    assert_eq!(
        (code.as_str(), message.as_str()),
        (
            "ResourceAlreadyExistsException",
            "An api-destination 'd' already exists."
        )
    );
    let (code, message) = sdk_error(events.delete_api_destination().name("nope").send().await);
    assert_eq!(
        (code.as_str(), message.as_str()),
        (
            "ResourceNotFoundException",
            "Failed to delete the api-destination(s). An api-destination 'nope' does not exist."
        )
    );
    let (code, _) = sdk_error(
        events
            .update_api_destination()
            .name("d")
            .http_method(Method::from("TRACE"))
            .send()
            .await,
    );
    assert_eq!(code, "ValidationException");

    // Lists.
    let m = validation(sdk_error(events.list_connections().limit(0).send().await));
    assert_eq!(
        m,
        "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1"
    );
    let m = validation(sdk_error(
        events
            .list_connections()
            .connection_state(ConnectionState::from("BROKEN"))
            .send()
            .await,
    ));
    assert!(m.contains("Value 'BROKEN' at 'connectionState'"), "{m}");
    h.assert_alive().await;
}
