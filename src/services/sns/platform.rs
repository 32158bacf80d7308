//! Mobile push: platform applications, their endpoints (device tokens) and direct publishing to
//! an endpoint, which lands in the outbox. Depends on the engine, the store, the shared pager and
//! the SNS error type only; never on the wire, the SMS operations or the topic operations.

use super::context::parse_topic_arn;
use super::errors::{SnsError, attributes_null, invalid};
use super::paging::page;
use super::shapes::{Attributes, AttributesOutput};
use super::store::{PlatformApplication, PlatformEndpoint};
use crate::arn::Arn;
use crate::engine::delivery::{Delivery, MessageAttributeValue, NoRetries, Target};
use crate::services::Context;
use crate::state::State;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The push services SNS speaks to.
const PLATFORMS: [&str; 7] = ["ADM", "APNS", "APNS_SANDBOX", "GCM", "BAIDU", "MPNS", "WNS"];

/// Platform application attributes a client may set besides the credentials.
const APPLICATION_ATTRIBUTES: [&str; 10] = [
    "EventEndpointCreated",
    "EventEndpointDeleted",
    "EventEndpointUpdated",
    "EventDeliveryFailure",
    "SuccessFeedbackRoleArn",
    "FailureFeedbackRoleArn",
    "SuccessFeedbackSampleRate",
    "ApplePlatformTeamID",
    "ApplePlatformBundleID",
    "Enabled",
];

const ENDPOINT_ATTRIBUTES: [&str; 3] = ["CustomUserData", "Enabled", "Token"];

// The store's types (`store.rs`) as the platform operations read them.

impl PlatformApplication {
    /// What GetPlatformApplicationAttributes and ListPlatformApplications show.
    fn visible_attributes(&self) -> Attributes {
        let mut out = self.attributes.clone();
        out.insert("Enabled".into(), self.enabled.to_string());
        let method = match self.platform.as_str() {
            // FCM HTTP v1 takes the service account JSON; the legacy API a server key.
            "GCM"
                if serde_json::from_str::<Value>(&self.credential).is_ok_and(|v| v.is_object()) =>
            {
                Some("Token")
            }
            "GCM" => Some("Key"),
            "APNS" | "APNS_SANDBOX" if self.attributes.contains_key("ApplePlatformTeamID") => {
                Some("Token")
            }
            "APNS" | "APNS_SANDBOX" => Some("Certificate"),
            _ => None,
        };
        if let Some(method) = method {
            out.insert("AuthenticationMethod".into(), method.into());
        }
        out
    }
}

impl PlatformEndpoint {
    fn enabled(&self) -> bool {
        self.attributes.get("Enabled").is_none_or(|v| v == "true")
    }
}

// ---- inputs and outputs (the model's JSON form) ----

#[derive(Debug, Serialize, Default)]
pub(super) struct Empty {}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct CreatePlatformApplicationInput {
    pub name: String,
    pub platform: String,
    #[serde(default)]
    pub attributes: Attributes,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct CreatePlatformApplicationOutput {
    pub platform_application_arn: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PlatformApplicationArnInput {
    pub platform_application_arn: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct SetPlatformApplicationAttributesInput {
    pub platform_application_arn: String,
    #[serde(default)]
    pub attributes: Attributes,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListPlatformApplicationsInput {
    pub next_token: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PlatformApplicationEntry {
    pub platform_application_arn: String,
    pub attributes: Attributes,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListPlatformApplicationsOutput {
    pub platform_applications: Vec<PlatformApplicationEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct CreatePlatformEndpointInput {
    pub platform_application_arn: String,
    pub token: String,
    pub custom_user_data: Option<String>,
    #[serde(default)]
    pub attributes: Attributes,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct EndpointArnOutput {
    pub endpoint_arn: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct EndpointArnInput {
    pub endpoint_arn: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct SetEndpointAttributesInput {
    pub endpoint_arn: String,
    #[serde(default)]
    pub attributes: Attributes,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListEndpointsInput {
    pub platform_application_arn: String,
    pub next_token: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct EndpointEntry {
    pub endpoint_arn: String,
    pub attributes: Attributes,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct ListEndpointsOutput {
    pub endpoints: Vec<EndpointEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_token: Option<String>,
}

fn application_not_found() -> SnsError {
    SnsError::NotFound("PlatformApplication does not exist".into())
}

fn endpoint_not_found() -> SnsError {
    SnsError::NotFound("Endpoint does not exist".into())
}

/// What AWS refuses before the model's required members: SetPlatformApplicationAttributes
/// looks at its PlatformApplicationArn first (issue 33), so an ARN of too few elements is named
/// even when Attributes is missing.
pub(super) fn refused_before_required(operation: &str, input: &Value) -> Option<SnsError> {
    if operation != "SetPlatformApplicationAttributes" {
        return None;
    }
    let arn = input.get("PlatformApplicationArn")?.as_str()?;
    let elements = Arn::element_count(arn);
    (elements < 6).then(|| {
        invalid(format!(
            "PlatformApplicationArn Reason: An ARN must have at least 6 elements, not {elements}"
        ))
    })
}

/// Checks an ARN's form and region, as for topics.
fn check_arn(cx: &Context, arn: &str, param: &str) -> Result<(), SnsError> {
    parse_topic_arn(cx, arn, param).map(|_| ())
}

fn valid_application_name(name: &str) -> Result<(), SnsError> {
    let reason = if name.is_empty() {
        "cannot be empty"
    } else if name.chars().count() > 256 {
        "must be at most 256 characters long"
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    {
        "must contain only characters 'a'-'z', 'A'-'Z', '0'-'9', '_', '-', and '.'"
    } else {
        return Ok(());
    };
    Err(invalid(format!("{name} Reason: {reason}")))
}

/// Applies the non-credential attributes of Create/SetPlatformApplicationAttributes.
fn apply_application_attribute(
    app: &mut PlatformApplication,
    name: &str,
    value: &str,
) -> Result<(), SnsError> {
    let bad_value = |why: &str| {
        invalid(format!(
            "Attributes Reason: Invalid value for attribute: {name}: {why}"
        ))
    };
    if !APPLICATION_ATTRIBUTES.contains(&name)
        && !matches!(name, "PlatformCredential" | "PlatformPrincipal")
    {
        return Err(invalid(format!(
            "Attributes Reason: Invalid attribute name: {name}"
        )));
    }
    match name {
        "PlatformCredential" | "PlatformPrincipal" => {}
        "Enabled" => match value {
            "true" | "false" => app.enabled = value == "true",
            _ => return Err(bad_value("must be true or false")),
        },
        _ if value.is_empty() => {
            app.attributes.remove(name);
        }
        "EventEndpointCreated"
        | "EventEndpointDeleted"
        | "EventEndpointUpdated"
        | "EventDeliveryFailure" => {
            let topic = Arn::parse(value).is_some_and(|a| {
                a.service == "sns" && !a.resource.is_empty() && !a.resource.contains(':')
            });
            if !topic {
                return Err(bad_value("must be a topic ARN"));
            }
            app.attributes.insert(name.into(), value.into());
        }
        "SuccessFeedbackRoleArn" | "FailureFeedbackRoleArn" => {
            if Arn::parse(value).is_none() {
                return Err(bad_value("must be an IAM role ARN"));
            }
            app.attributes.insert(name.into(), value.into());
        }
        "SuccessFeedbackSampleRate" => {
            if !value.parse::<u8>().is_ok_and(|r| r <= 100) {
                return Err(bad_value("must be an integer from 0 to 100"));
            }
            app.attributes.insert(name.into(), value.into());
        }
        _ => {
            app.attributes.insert(name.into(), value.into());
        }
    }
    Ok(())
}

/// The credentials a platform needs: GCM a credential (server key or service account JSON),
/// the others a principal and a credential.
fn check_credentials(
    platform: &str,
    principal: Option<&str>,
    credential: Option<&str>,
) -> Result<(), SnsError> {
    let given = |v: Option<&str>| v.is_some_and(|s| !s.is_empty());
    let reason = match (platform, given(principal), given(credential)) {
        ("GCM", _, true) => return Ok(()),
        ("GCM", _, false) | (_, false, false) => "Platform credentials are invalid",
        (_, true, false) => "PlatformPrincipal attribute provided without PlatformCredential",
        (_, false, true) => "PlatformCredential attribute provided without PlatformPrincipal",
        (_, true, true) => return Ok(()),
    };
    Err(invalid(format!("Attributes Reason: {reason}")))
}

pub(super) fn create_platform_application(
    e: &mut State,
    cx: &Context,
    input: CreatePlatformApplicationInput,
) -> Result<CreatePlatformApplicationOutput, SnsError> {
    valid_application_name(&input.name)?;
    if !PLATFORMS.contains(&input.platform.as_str()) {
        return Err(invalid(format!(
            "Platform Reason: {} is not supported",
            input.platform
        )));
    }
    if input.attributes.is_empty() {
        return Err(attributes_null());
    }
    let principal = input.attributes.get("PlatformPrincipal").cloned();
    let credential = input.attributes.get("PlatformCredential").cloned();
    check_credentials(&input.platform, principal.as_deref(), credential.as_deref())?;
    let resource = format!("app/{}/{}", input.platform, input.name);
    let arn = Arn::new("sns", &cx.region, &cx.account, &resource).text();
    let mut app = PlatformApplication {
        arn: arn.clone(),
        name: input.name,
        platform: input.platform,
        account: cx.account.clone(),
        region: cx.region.clone(),
        credential: credential.unwrap_or_default(),
        principal,
        enabled: true,
        attributes: Attributes::new(),
    };
    for (k, v) in &input.attributes {
        apply_application_attribute(&mut app, k, v)?;
    }
    // Creating an application that exists again replaces its settings and keeps its endpoints.
    e.sns.platform.applications.insert(arn.clone(), app);
    Ok(CreatePlatformApplicationOutput {
        platform_application_arn: arn,
    })
}

fn application_mut<'e>(
    e: &'e mut State,
    cx: &Context,
    arn: &str,
) -> Result<&'e mut PlatformApplication, SnsError> {
    check_arn(cx, arn, "PlatformApplicationArn")?;
    e.sns
        .platform
        .applications
        .get_mut(arn)
        .ok_or_else(application_not_found)
}

pub(super) fn delete_platform_application(
    e: &mut State,
    cx: &Context,
    input: PlatformApplicationArnInput,
) -> Result<Empty, SnsError> {
    check_arn(
        cx,
        &input.platform_application_arn,
        "PlatformApplicationArn",
    )?;
    // Idempotent; the application's endpoints go with it.
    let store = &mut e.sns.platform;
    if store
        .applications
        .remove(&input.platform_application_arn)
        .is_some()
    {
        store
            .endpoints
            .retain(|_, ep| ep.application_arn != input.platform_application_arn);
    }
    Ok(Empty {})
}

pub(super) fn get_platform_application_attributes(
    e: &mut State,
    cx: &Context,
    input: PlatformApplicationArnInput,
) -> Result<AttributesOutput, SnsError> {
    let app = application_mut(e, cx, &input.platform_application_arn)?;
    Ok(AttributesOutput {
        attributes: app.visible_attributes(),
    })
}

pub(super) fn set_platform_application_attributes(
    e: &mut State,
    cx: &Context,
    input: SetPlatformApplicationAttributesInput,
) -> Result<Empty, SnsError> {
    let app = application_mut(e, cx, &input.platform_application_arn)?;
    if input.attributes.is_empty() {
        return Err(attributes_null());
    }
    // Validate on a copy so a bad attribute changes nothing.
    let mut updated = PlatformApplication {
        arn: app.arn.clone(),
        name: app.name.clone(),
        platform: app.platform.clone(),
        account: app.account.clone(),
        region: app.region.clone(),
        credential: app.credential.clone(),
        principal: app.principal.clone(),
        enabled: app.enabled,
        attributes: app.attributes.clone(),
    };
    for (k, v) in &input.attributes {
        apply_application_attribute(&mut updated, k, v)?;
    }
    if let Some(principal) = input.attributes.get("PlatformPrincipal") {
        updated.principal = Some(principal.clone());
    }
    if let Some(credential) = input.attributes.get("PlatformCredential") {
        updated.credential = credential.clone();
    }
    if input.attributes.contains_key("PlatformPrincipal")
        || input.attributes.contains_key("PlatformCredential")
    {
        check_credentials(
            &updated.platform,
            updated.principal.as_deref(),
            Some(&updated.credential),
        )?;
    }
    *app = updated;
    Ok(Empty {})
}

pub(super) fn list_platform_applications(
    e: &mut State,
    cx: &Context,
    input: ListPlatformApplicationsInput,
) -> Result<ListPlatformApplicationsOutput, SnsError> {
    let mine = e
        .sns
        .platform
        .applications
        .iter()
        .filter(|(_, a)| cx.owns(&a.account, &a.region))
        .map(|(k, a)| {
            (
                k,
                PlatformApplicationEntry {
                    platform_application_arn: a.arn.clone(),
                    attributes: a.visible_attributes(),
                },
            )
        });
    let (platform_applications, next_token) = page(mine, input.next_token.as_deref())?;
    Ok(ListPlatformApplicationsOutput {
        platform_applications,
        next_token,
    })
}

/// Checks endpoint attributes (CreatePlatformEndpoint, SetEndpointAttributes).
fn check_endpoint_attributes(attributes: &Attributes) -> Result<(), SnsError> {
    for (name, value) in attributes {
        if !ENDPOINT_ATTRIBUTES.contains(&name.as_str()) {
            return Err(invalid(format!(
                "Attributes Reason: Invalid attribute name: {name}"
            )));
        }
        match name.as_str() {
            "Enabled" if !matches!(value.as_str(), "true" | "false") => {
                return Err(invalid(format!(
                    "Attributes Reason: Invalid value for attribute: Enabled: {value} is not a valid boolean"
                )));
            }
            "CustomUserData" if value.len() > 2048 => {
                return Err(invalid(
                    "Attributes Reason: Invalid value for attribute: CustomUserData: must be at most 2048 bytes long in UTF-8 encoding",
                ));
            }
            "Token" if value.is_empty() => {
                return Err(invalid(
                    "Attributes Reason: Invalid value for attribute: Token: cannot be empty",
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

pub(super) fn create_platform_endpoint(
    e: &mut State,
    cx: &Context,
    input: CreatePlatformEndpointInput,
) -> Result<EndpointArnOutput, SnsError> {
    let app = application_mut(e, cx, &input.platform_application_arn)?;
    let (app_arn, platform, app_name) = (app.arn.clone(), app.platform.clone(), app.name.clone());
    if input.token.is_empty() {
        return Err(invalid("Token Reason: cannot be empty"));
    }
    check_endpoint_attributes(&input.attributes)?;
    let mut attributes = input.attributes;
    // The attribute wins over the parameter when both are given.
    if let Some(data) = input.custom_user_data {
        if data.len() > 2048 {
            return Err(invalid(
                "CustomUserData Reason: must be at most 2048 bytes long in UTF-8 encoding",
            ));
        }
        attributes.entry("CustomUserData".into()).or_insert(data);
    }
    attributes.insert("Token".into(), input.token.clone());
    attributes.entry("Enabled".into()).or_insert("true".into());
    // Idempotent for the same token and attributes; the same token with others is an error.
    if let Some(existing) = e.sns.platform.endpoints.values().find(|ep| {
        ep.application_arn == app_arn && ep.attributes.get("Token") == Some(&input.token)
    }) {
        if existing.attributes != attributes {
            return Err(invalid(format!(
                "Token Reason: Endpoint {} already exists with the same Token, but different attributes.",
                existing.arn
            )));
        }
        return Ok(EndpointArnOutput {
            endpoint_arn: existing.arn.clone(),
        });
    }
    let resource = format!("endpoint/{platform}/{app_name}/{}", e.engine.rng.uuid());
    let arn = Arn::new("sns", &cx.region, &cx.account, &resource).text();
    e.sns.platform.endpoints.insert(
        arn.clone(),
        PlatformEndpoint {
            arn: arn.clone(),
            application_arn: app_arn,
            platform,
            attributes,
        },
    );
    Ok(EndpointArnOutput { endpoint_arn: arn })
}

fn endpoint_mut<'e>(
    e: &'e mut State,
    cx: &Context,
    arn: &str,
    param: &str,
) -> Result<&'e mut PlatformEndpoint, SnsError> {
    check_arn(cx, arn, param)?;
    e.sns
        .platform
        .endpoints
        .get_mut(arn)
        .ok_or_else(endpoint_not_found)
}

pub(super) fn delete_endpoint(
    e: &mut State,
    cx: &Context,
    input: EndpointArnInput,
) -> Result<Empty, SnsError> {
    check_arn(cx, &input.endpoint_arn, "EndpointArn")?;
    // Idempotent, as in SNS.
    e.sns.platform.endpoints.remove(&input.endpoint_arn);
    Ok(Empty {})
}

pub(super) fn get_endpoint_attributes(
    e: &mut State,
    cx: &Context,
    input: EndpointArnInput,
) -> Result<AttributesOutput, SnsError> {
    let ep = endpoint_mut(e, cx, &input.endpoint_arn, "EndpointArn")?;
    Ok(AttributesOutput {
        attributes: ep.attributes.clone(),
    })
}

pub(super) fn set_endpoint_attributes(
    e: &mut State,
    cx: &Context,
    input: SetEndpointAttributesInput,
) -> Result<Empty, SnsError> {
    let ep = endpoint_mut(e, cx, &input.endpoint_arn, "EndpointArn")?;
    if input.attributes.is_empty() {
        return Err(attributes_null());
    }
    check_endpoint_attributes(&input.attributes)?;
    for (k, v) in input.attributes {
        ep.attributes.insert(k, v);
    }
    Ok(Empty {})
}

pub(super) fn list_endpoints_by_platform_application(
    e: &mut State,
    cx: &Context,
    input: ListEndpointsInput,
) -> Result<ListEndpointsOutput, SnsError> {
    application_mut(e, cx, &input.platform_application_arn)?;
    let app_arn = &input.platform_application_arn;
    let endpoints = e
        .sns
        .platform
        .endpoints
        .iter()
        .filter(|(_, ep)| &ep.application_arn == app_arn)
        .map(|(k, ep)| {
            (
                k,
                EndpointEntry {
                    endpoint_arn: ep.arn.clone(),
                    attributes: ep.attributes.clone(),
                },
            )
        });
    let (endpoints, next_token) = page(endpoints, input.next_token.as_deref())?;
    Ok(ListEndpointsOutput {
        endpoints,
        next_token,
    })
}

/// Whether `arn` names an existing platform endpoint (for `Subscribe` with `application`).
pub(super) fn endpoint_exists(e: &State, arn: &str) -> bool {
    e.sns.platform.endpoints.contains_key(arn)
}

/// The endpoint a publish to `arn` goes to, if it takes messages: Publish asks this before it
/// reads the message, so a disabled endpoint answers EndpointDisabled whatever the message is
/// (AWS observed, LocalStack `test_publish_disabled_endpoint`).
pub(super) fn publishable_endpoint<'e>(
    e: &'e State,
    cx: &Context,
    arn: &str,
) -> Result<&'e PlatformEndpoint, SnsError> {
    check_arn(cx, arn, "TargetArn")?;
    let Some(ep) = e.sns.platform.endpoints.get(arn) else {
        return Err(invalid(
            "TargetArn Reason: No endpoint found for the target arn specified",
        ));
    };
    let app = e.sns.platform.applications.get(&ep.application_arn);
    if app.is_some_and(|a| !a.enabled) {
        return Err(SnsError::PlatformApplicationDisabled(
            "Platform application is disabled".into(),
        ));
    }
    if !ep.enabled() {
        return Err(SnsError::EndpointDisabled("Endpoint is disabled".into()));
    }
    Ok(ep)
}

/// `Publish` with `TargetArn` = a platform endpoint: the push goes to the outbox (protocol
/// `application`) through the engine's delivery path. The body is the entry of a JSON
/// `MessageStructure` for the endpoint's platform (`GCM`, `APNS`, ...), else its `default`, else
/// the message; the message attributes ride along (LocalStack's platform endpoint messages show
/// them). Returns the message id.
pub(super) fn publish_to_endpoint(
    e: &mut State,
    cx: &Context,
    arn: &str,
    message: &str,
    structure_json: Option<&serde_json::Map<String, Value>>,
    message_attributes: &BTreeMap<String, MessageAttributeValue>,
) -> Result<String, SnsError> {
    let ep = publishable_endpoint(e, cx, arn)?;
    let body = structure_json
        .and_then(|m| {
            m.get(&ep.platform)
                .and_then(Value::as_str)
                .or_else(|| m.get("default").and_then(Value::as_str))
        })
        .unwrap_or(message)
        .to_string();
    let mut attributes = BTreeMap::new();
    attributes.insert("Platform".to_string(), json!(ep.platform));
    // Every endpoint has its token: CreatePlatformEndpoint sets it, nothing removes it.
    attributes.insert("Token".to_string(), json!(ep.attributes.get("Token")));
    if !message_attributes.is_empty() {
        attributes.insert("MessageAttributes".to_string(), json!(message_attributes));
    }
    let source = ep.application_arn.clone();
    let id = e.engine.rng.uuid();
    e.deliver(Delivery::new(
        "sns",
        source,
        "application".into(),
        id.clone(),
        Target::Outbox {
            address: arn.to_string(),
            body,
            attributes,
        },
        NoRetries,
        None,
    ));
    Ok(id)
}

#[cfg(test)]
pub(super) mod tests;
