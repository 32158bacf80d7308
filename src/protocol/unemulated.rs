//! Requests signed for an AWS service switchyard does not emulate (`aws s3 ls`, `aws dynamodb
//! list-tables`): answered `501 NotImplemented` in that service's own error shape, saying so and
//! naming the services switchyard does emulate, so that a client shows a message instead of an
//! empty `UnknownOperationException` or a `MissingAction`. The wire is read from the request, as
//! the service's client wrote it: `X-Amz-Target` or an `x-amz-json` content type is AWS JSON
//! (`__type`), an `Action` is AWS Query (`<ErrorResponse>`), anything else is REST — XML
//! (`<Error><Code>`) for the REST-XML services, JSON with `x-amzn-errortype` for the others.
//! It reads the request only: it must not depend on the runtime or the state.

use super::{X_AMZ_TARGET, X_AMZN_REQUESTID, header_str, query};
use crate::services::ServiceId;
use axum::http::{HeaderValue, StatusCode, header, request::Parts};
use axum::response::Response;

/// The code every such answer has: S3's own for what it does not implement (501), and a name
/// every SDK shows as it is.
pub(super) const CODE: &str = "NotImplemented";

/// The signing names of the services that speak REST-XML (S3 and its control API, Route 53,
/// CloudFront); S3's errors are a bare `<Error>`, the others' an `<ErrorResponse>`.
const REST_XML: [&str; 4] = ["s3", "s3-control", "route53", "cloudfront"];

/// What the answer says: the service asked for and the services switchyard emulates.
pub(super) fn message(service: &str) -> String {
    let mut emulated: Vec<&str> = ServiceId::SERVING.iter().map(|s| s.name()).collect();
    emulated.dedup();
    format!(
        "switchyard does not emulate the AWS service '{service}' (the request is signed for it); \
         it emulates {} (docs/localstack.md)",
        emulated.join(", ")
    )
}

/// The answer to a request signed for `service`, which switchyard does not emulate.
pub(super) fn answer(parts: &Parts, service: &str, request_id: &str) -> Response {
    let message = message(service);
    let content_type = header_str(parts, header::CONTENT_TYPE).unwrap_or_default();
    let query_action = content_type.starts_with("application/x-www-form-urlencoded")
        || parts
            .uri
            .query()
            .is_some_and(|q| form_urlencoded::parse(q.as_bytes()).any(|(k, _)| k == "Action"));
    let (content_type, body, errortype) = if parts.headers.contains_key(X_AMZ_TARGET)
        || content_type.starts_with("application/x-amz-json")
    {
        let json_type = if content_type.starts_with("application/x-amz-json-1.1") {
            "application/x-amz-json-1.1"
        } else {
            "application/x-amz-json-1.0"
        };
        let body = serde_json::json!({"__type": CODE, "message": message});
        (json_type, body.to_string().into_bytes(), false)
    } else if query_action {
        let body = query::encode_error(None, CODE, false, &message, request_id);
        ("text/xml", body, false)
    } else if service == "s3" || service == "s3-control" {
        let body = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{CODE}</Code>\
             <Message>{}</Message><RequestId>{}</RequestId></Error>",
            xml_escape(&message),
            xml_escape(request_id)
        );
        ("application/xml", body.into_bytes(), false)
    } else if REST_XML.contains(&service) {
        let body = query::encode_error(None, CODE, false, &message, request_id);
        ("text/xml", body, false)
    } else {
        let body = serde_json::json!({"message": message});
        ("application/json", body.to_string().into_bytes(), true)
    };
    let mut response = Response::new(axum::body::Body::from(body));
    *response.status_mut() = StatusCode::NOT_IMPLEMENTED;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(id) = HeaderValue::from_str(request_id) {
        headers.insert(X_AMZN_REQUESTID, id.clone());
        // S3's clients read their request id from here.
        headers.insert("x-amz-request-id", id);
    }
    if errortype {
        headers.insert("x-amzn-errortype", HeaderValue::from_static(CODE));
    }
    response
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\'', "&apos;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(method: &str, uri: &str, headers: &[(&str, &str)]) -> Parts {
        let mut request = axum::http::Request::builder().method(method).uri(uri);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.body(()).unwrap().into_parts().0
    }

    async fn body(response: Response) -> String {
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn each_service_hears_it_in_its_own_shape() {
        let s3 = answer(&parts("GET", "/", &[]), "s3", "r-1");
        assert_eq!(s3.status(), StatusCode::NOT_IMPLEMENTED);
        assert_eq!(s3.headers()["content-type"], "application/xml");
        let text = body(s3).await;
        assert!(text.contains("<Error><Code>NotImplemented</Code><Message>switchyard does not emulate the AWS service &apos;s3&apos;"), "{text}");
        assert!(text.contains("<RequestId>r-1</RequestId>"), "{text}");

        let target = [
            ("x-amz-target", "DynamoDB_20120810.ListTables"),
            ("content-type", "application/x-amz-json-1.0"),
        ];
        let dynamodb = answer(&parts("POST", "/", &target), "dynamodb", "r-2");
        assert_eq!(
            dynamodb.headers()["content-type"],
            "application/x-amz-json-1.0"
        );
        let doc: serde_json::Value = serde_json::from_str(&body(dynamodb).await).unwrap();
        assert_eq!(doc["__type"], "NotImplemented");
        let said = doc["message"].as_str().unwrap();
        assert!(
            said.contains("'dynamodb'") && said.contains("sqs, sns, events"),
            "{said}"
        );

        let form = [("content-type", "application/x-www-form-urlencoded")];
        let ses = answer(&parts("POST", "/", &form), "ses", "r-3");
        let text = body(ses).await;
        assert!(
            text.contains("<Code>NotImplemented</Code>") && text.contains("&apos;ses&apos;"),
            "{text}"
        );

        let apigateway = answer(&parts("GET", "/restapis", &[]), "apigateway", "r-4");
        assert_eq!(apigateway.headers()["x-amzn-errortype"], "NotImplemented");
        let doc: serde_json::Value = serde_json::from_str(&body(apigateway).await).unwrap();
        assert!(doc["message"].as_str().unwrap().contains("'apigateway'"));
    }
}
