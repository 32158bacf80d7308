//! Wire detection: which protocol a request speaks (content type, `X-Amz-Target`) and which
//! service and operation it is for (SigV4 credential scope, target prefix, queue URL path, Query
//! `Version` and `Action`). These are the wire's names for a service; what a service is (its
//! name, model and error wording) stays with [`ServiceId`] in the services.
//! It reads the request only: it must not depend on the runtime, the state or the services' operations.

use super::query::Params;
use super::{Protocol, X_AMZ_TARGET, header_str, rest_json};
use crate::error::AwsError;
use crate::services::{ServiceId, sqs};
use crate::text;
use axum::http::{header, request::Parts};
use std::borrow::Cow;

/// The services that speak restJson1.
const REST_JSON: [ServiceId; 3] = [ServiceId::Scheduler, ServiceId::Pipes, ServiceId::Lambda];

/// The wire as far as the headers and path tell it; `Action`-based Query is the fallback.
pub fn protocol(parts: &Parts) -> Protocol {
    if rest_json_service(parts).is_some() {
        return Protocol::RestJson;
    }
    let content_type = header_str(parts, header::CONTENT_TYPE).unwrap_or_default();
    if content_type.starts_with("application/x-amz-json-1.0") {
        Protocol::Json10
    } else if content_type.starts_with("application/x-amz-json")
        || parts.headers.contains_key(X_AMZ_TARGET)
    {
        Protocol::Json11
    } else {
        Protocol::Query
    }
}

/// The service of a SigV4 credential scope.
pub fn signing_service(name: &str) -> Option<ServiceId> {
    match name {
        "sqs" => Some(ServiceId::Sqs),
        "sts" => Some(ServiceId::Sts),
        "sns" => Some(ServiceId::Sns),
        "events" => Some(ServiceId::Events),
        "iam" => Some(ServiceId::Iam),
        "scheduler" => Some(ServiceId::Scheduler),
        "pipes" => Some(ServiceId::Pipes),
        "lambda" => Some(ServiceId::Lambda),
        _ => None,
    }
}

/// The service a SigV4 credential scope must name for a request to `service` (its model's signing
/// name): the inverse of [`signing_service`], EventBridge's two front-ends sharing `events`.
pub fn signing_name(service: ServiceId) -> &'static str {
    match service {
        ServiceId::Sqs => "sqs",
        ServiceId::Sts => "sts",
        ServiceId::Sns => "sns",
        ServiceId::Events | ServiceId::EventsV2 => "events",
        ServiceId::Iam => "iam",
        ServiceId::Scheduler => "scheduler",
        ServiceId::Pipes => "pipes",
        ServiceId::Lambda => "lambda",
    }
}

/// The restJson1 service a request is for, as AWS's own endpoints tell: a signed request by its
/// credential scope (any other signed service speaks Query or JSON); an unsigned one by its path
/// (restJson1 paths never collide with the others' `POST /` or queue URLs) and, where two services
/// share a path (`/tags/{arn}`), by the service the ARN in it names.
pub fn rest_json_service(parts: &Parts) -> Option<ServiceId> {
    if let Some(scope) = scope_service_name(parts) {
        return signing_service(&scope).filter(|s| REST_JSON.contains(s));
    }
    if parts.headers.contains_key(X_AMZ_TARGET) {
        return None;
    }
    let path = parts.uri.path();
    let serving: Vec<ServiceId> = REST_JSON
        .into_iter()
        .filter(|s| s.model().is_some_and(|m| rest_json::serves_path(m, path)))
        .collect();
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
    let named = |s: &&ServiceId| decoded.contains(&format!(":{}:", s.name()));
    serving.iter().find(named).or(serving.first()).copied()
}

/// The service of the credential scope (`<key>/<date>/<region>/<service>/aws4_request`) in the
/// `Authorization` header or a presigned URL's `X-Amz-Credential`, without checking the rest.
fn scope_service_name(parts: &Parts) -> Option<Cow<'_, str>> {
    let credential = match header_str(parts, header::AUTHORIZATION) {
        // Borrowed from the header: every signed request comes here (no allocation).
        Some(auth) => {
            // The `=` after `Credential`: a header has three, a substring search costs more.
            let start = auth
                .match_indices('=')
                .find(|(i, _)| auth[..*i].ends_with("Credential"))?
                .0
                + 1;
            Cow::Borrowed(text::split(&auth[start..], b',').next()?.trim_ascii())
        }
        None => {
            form_urlencoded::parse(parts.uri.query()?.as_bytes())
                .find(|(k, _)| k == "X-Amz-Credential")?
                .1
        }
    };
    match credential {
        Cow::Borrowed(c) => fourth_part(c).map(Cow::Borrowed),
        Cow::Owned(c) => fourth_part(&c).map(|s| Cow::Owned(s.to_string())),
    }
}

/// The fourth `/`-separated part of a credential (`<key>/<date>/<region>/<service>/…`).
fn fourth_part(credential: &str) -> Option<&str> {
    text::split(credential, b'/').nth(3)
}

/// The service and operation an `X-Amz-Target` (`<prefix>.<operation>`) names; whether the
/// service has that operation is [`has_operation`]'s to say.
pub fn json_target(target: &str) -> Result<(ServiceId, &str), AwsError> {
    let (prefix, operation) = target
        .rsplit_once('.')
        .ok_or_else(AwsError::unknown_operation)?;
    let service = target_service(prefix).ok_or_else(AwsError::unknown_operation)?;
    Ok((service, operation))
}

/// The service of a Query request with `action`: the credential scope's (`scope`), else SQS for
/// a queue URL path, else the `Version` parameter's, else the one whose model has the action
/// (the last resort for unsigned requests).
pub fn query_service(
    scope: Option<ServiceId>,
    path: &str,
    params: &Params,
    action: &str,
) -> Result<ServiceId, AwsError> {
    scope
        .or_else(|| is_queue_path(path).then_some(ServiceId::Sqs))
        .or_else(|| params.get("Version").and_then(|v| version_service(v)))
        .or_else(|| action_service(action))
        .ok_or_else(|| AwsError::invalid_action(action))
}

/// Whether `service`'s model has `operation` and, for Query, speaks Query at all.
pub fn has_operation(service: ServiceId, protocol: Protocol, operation: &str) -> bool {
    service.model().is_some_and(|m| {
        (protocol != Protocol::Query || m.speaks("query")) && m.operations.contains_key(operation)
    })
}

/// Whether a Query request is for SQS by what it says besides its action: the credential
/// scope, a queue URL path or SQS's API version.
pub fn sqs_endpoint(scope: Option<ServiceId>, path: &str, params: &Params) -> bool {
    scope == Some(ServiceId::Sqs)
        || is_queue_path(path)
        || params.get("Version").is_some_and(|v| v == "2012-11-05")
}

/// Whether `path` is a queue URL path (`/<account>/<queue>` or
/// `/queue/<region>/<account>/<queue>`), which only SQS has.
pub fn is_queue_path(path: &str) -> bool {
    sqs::urls::parse_path(path).is_some()
}

/// The service of an `X-Amz-Target` prefix.
fn target_service(prefix: &str) -> Option<ServiceId> {
    match prefix {
        "AmazonSQS" => Some(ServiceId::Sqs),
        "AWSEvents" => Some(ServiceId::Events),
        "AWSEventsV2" => Some(ServiceId::EventsV2),
        _ => None,
    }
}

/// The service of a Query `Version` parameter (its API version).
fn version_service(version: &str) -> Option<ServiceId> {
    match version {
        "2012-11-05" => Some(ServiceId::Sqs),
        "2011-06-15" => Some(ServiceId::Sts),
        "2010-03-31" => Some(ServiceId::Sns),
        "2010-05-08" => Some(ServiceId::Iam),
        _ => None,
    }
}

/// The first serving service whose model has the Query action.
fn action_service(action: &str) -> Option<ServiceId> {
    ServiceId::SERVING
        .into_iter()
        .find(|&s| has_operation(s, Protocol::Query, action))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_targets() {
        let (service, op) = json_target("AmazonSQS.SendMessage").unwrap();
        assert_eq!((service, op), (ServiceId::Sqs, "SendMessage"));
        let (service, op) = json_target("AWSEventsV2.PutEvents").unwrap();
        assert_eq!((service, op), (ServiceId::EventsV2, "PutEvents"));
        for bad in ["", "AmazonSQS", "AmazonSNS.Publish"] {
            let err = json_target(bad).unwrap_err();
            assert_eq!(err.code, "UnknownOperationException", "{bad}");
        }
    }

    #[test]
    fn signing_names_name_their_services() {
        for service in ServiceId::SERVING {
            let named = signing_service(signing_name(service));
            let expected = match service {
                ServiceId::EventsV2 => ServiceId::Events,
                other => other,
            };
            assert_eq!(named, Some(expected), "{service:?}");
        }
    }

    #[test]
    fn query_services_in_order() {
        let version = |v: &str| Params::from([("Version".to_string(), v.to_string())]);
        let none = Params::new();
        let sts = Some(ServiceId::Sts);
        let queue = "/000000000000/orders";
        // The credential scope wins, then the queue path, then the version, then the action.
        assert_eq!(
            query_service(sts, queue, &none, "Publish").unwrap(),
            ServiceId::Sts
        );
        let by_path = query_service(None, queue, &version("2010-03-31"), "Publish");
        assert_eq!(by_path.unwrap(), ServiceId::Sqs);
        let by_version = query_service(None, "/", &version("2010-03-31"), "SendMessage");
        assert_eq!(by_version.unwrap(), ServiceId::Sns);
        assert_eq!(
            query_service(None, "/", &none, "Publish").unwrap(),
            ServiceId::Sns
        );
        let err = query_service(None, "/", &none, "NoSuchAction").unwrap_err();
        assert_eq!(err.code, "InvalidAction");
    }

    fn parts(method: &str, uri: &str, authorization: Option<&str>) -> Parts {
        let mut request = axum::http::Request::builder().method(method).uri(uri);
        if let Some(auth) = authorization {
            request = request.header("authorization", auth);
        }
        request.body(()).unwrap().into_parts().0
    }

    #[test]
    fn rest_json_services_by_scope_then_path_then_arn() {
        let signed = |service: &str| {
            format!(
                "AWS4-HMAC-SHA256 Credential=AKID/20261201/us-east-1/{service}/aws4_request, \
                 SignedHeaders=host, Signature=00"
            )
        };
        let scheduler = parts("GET", "/schedules", Some(&signed("scheduler")));
        assert_eq!(rest_json_service(&scheduler), Some(ServiceId::Scheduler));
        assert_eq!(protocol(&scheduler), Protocol::RestJson);
        let sqs = parts("POST", "/", Some(&signed("sqs")));
        assert_eq!(rest_json_service(&sqs), None);
        let unsigned = parts("POST", "/v1/pipes/p/start", None);
        assert_eq!(rest_json_service(&unsigned), Some(ServiceId::Pipes));
        let tags = "/tags/arn%3Aaws%3Apipes%3Aus-east-1%3A000000000000%3Apipe%2Fp";
        assert_eq!(
            rest_json_service(&parts("GET", tags, None)),
            Some(ServiceId::Pipes)
        );
        for other in ["/", "/health", "/000000000000/orders", "/favicon.ico"] {
            assert_eq!(
                rest_json_service(&parts("POST", other, None)),
                None,
                "{other}"
            );
        }
    }
}
