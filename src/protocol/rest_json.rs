//! AWS restJson1 (Scheduler, Pipes): the operation is the request's method and path, matched
//! against the model's `http` templates (`/schedules/{Name}`, greedy `{Key+}`); members travel in
//! the URI labels, the query string, headers or the JSON body, as each member's `location` says.
//! Requests are decoded into the same JSON input the other front-ends hand the services, and
//! outputs split back into headers and body; errors carry their code in `X-Amzn-ErrorType` and
//! their message in the body, with the status of the model's error shape.

use crate::error::AwsError;
use crate::model::{Location, Model, Shape, ShapeKind};
use crate::services::validation_message;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method};
use base64::Engine;
use serde_json::{Map, Value};

/// The operation whose template matches `method` and `path`, with the raw (still
/// percent-encoded) values of its labels. The template with the most literal segments wins.
pub fn route<'m>(
    model: &'m Model,
    method: &Method,
    path: &str,
) -> Option<(&'m str, Vec<(String, String)>)> {
    model
        .operations
        .iter()
        .filter_map(|(name, op)| {
            let http = op.http.as_ref()?;
            if !http.method.eq_ignore_ascii_case(method.as_str()) {
                return None;
            }
            let template = http.request_uri.split('?').next().unwrap_or_default();
            let labels = match_template(template, path)?;
            let literals = template.split('/').filter(|s| !s.starts_with('{')).count();
            Some((literals, name.as_str(), labels))
        })
        .max_by_key(|(literals, name, _)| (*literals, std::cmp::Reverse(*name)))
        .map(|(_, name, labels)| (name, labels))
}

/// Whether any operation of `model` sits at `path` (any method): how an unsigned request is
/// told to be for a restJson1 service.
pub fn serves_path(model: &Model, path: &str) -> bool {
    model.operations.values().any(|op| {
        op.http.as_ref().is_some_and(|h| {
            let template = h.request_uri.split('?').next().unwrap_or_default();
            match_template(template, path).is_some()
        })
    })
}

/// The labels of `template` in `path`: literal segments must be equal, a `{Label}` takes one
/// non-empty segment, a greedy `{Label+}` the rest (one segment or more).
fn match_template(template: &str, path: &str) -> Option<Vec<(String, String)>> {
    let mut wanted = template.trim_start_matches('/').split('/');
    let got: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let mut labels = Vec::new();
    let mut i = 0;
    for segment in wanted.by_ref() {
        match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(label) if label.ends_with('+') => {
                let rest = got.get(i..).filter(|r| !r.is_empty())?.join("/");
                if rest.is_empty() {
                    return None;
                }
                labels.push((label.trim_end_matches('+').to_string(), rest));
                i = got.len();
            }
            Some(label) => {
                let value = got.get(i).filter(|v| !v.is_empty())?;
                labels.push((label.to_string(), value.to_string()));
                i += 1;
            }
            None => {
                if got.get(i) != Some(&segment) {
                    return None;
                }
                i += 1;
            }
        }
    }
    (i == got.len()).then_some(labels)
}

/// Where the parts of a request are, for [`decode`].
pub struct Request<'a> {
    pub labels: &'a [(String, String)],
    pub query: &'a str,
    pub headers: &'a HeaderMap,
    pub body: &'a [u8],
}

/// The input of `operation` from the request's labels, query string, headers and body.
pub fn decode(model: &Model, operation: &str, request: &Request) -> Result<Value, AwsError> {
    let mut input = Map::new();
    // The operation comes from `route` over the same model; one it lacks has no input.
    let input_of = model
        .operations
        .get(operation)
        .and_then(|op| op.input.as_ref());
    let Some(shape_name) = input_of else {
        return Ok(Value::Object(input));
    };
    let shape = model.shape(&shape_name.shape);
    // A blob payload (Lambda's Invoke) is the body's bytes, whatever they are: base64 in the
    // input, as the JSON protocols carry blobs.
    let blob_payload = shape.payload.as_deref().filter(|p| {
        shape
            .members
            .get(*p)
            .is_some_and(|m| model.shape(&m.shape).kind == ShapeKind::Blob)
    });
    let body = match blob_payload {
        Some(_) => Map::new(),
        None => body_json(request.body)?,
    };
    let query: Vec<(String, String)> = form_urlencoded::parse(request.query.as_bytes())
        .into_owned()
        .collect();
    let claimed: Vec<&str> = shape
        .members
        .values()
        .filter(|r| r.location == Some(Location::Querystring))
        .filter_map(|r| r.location_name.as_deref())
        .collect();
    for (name, member) in &shape.members {
        let wire = member.location_name.as_deref().unwrap_or(name);
        let target = model.shape(&member.shape);
        let value = match member.location {
            Some(Location::Uri) => match request.labels.iter().find(|(l, _)| l == wire) {
                Some((_, raw)) => {
                    let text = percent_encoding::percent_decode_str(raw).decode_utf8_lossy();
                    Some(scalar(target, name, &text)?)
                }
                None => None,
            },
            Some(Location::Querystring) if target.kind == ShapeKind::Map => {
                let free = query.iter().filter(|(k, _)| !claimed.contains(&k.as_str()));
                let map: Map<String, Value> = free
                    .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                    .collect();
                (!map.is_empty()).then_some(Value::Object(map))
            }
            Some(Location::Querystring) => {
                let values: Vec<&str> = query
                    .iter()
                    .filter(|(k, _)| k == wire)
                    .map(|(_, v)| v.as_str())
                    .collect();
                strings(model, target, name, &values)?
            }
            Some(Location::Header) => match request.headers.get(wire) {
                Some(v) => {
                    let text = v.to_str().unwrap_or_default();
                    let values: Vec<&str> = if target.kind == ShapeKind::List {
                        text.split(',').map(str::trim).collect()
                    } else {
                        vec![text]
                    };
                    strings(model, target, name, &values)?
                }
                None => None,
            },
            Some(Location::Headers) => {
                let prefix = wire.to_ascii_lowercase();
                let map: Map<String, Value> = request
                    .headers
                    .iter()
                    .filter_map(|(k, v)| {
                        let key = k.as_str().strip_prefix(&prefix)?;
                        Some((key.to_string(), Value::String(v.to_str().ok()?.to_string())))
                    })
                    .collect();
                (!map.is_empty()).then_some(Value::Object(map))
            }
            Some(Location::StatusCode) => None,
            None if blob_payload == Some(name) => (!request.body.is_empty()).then(|| {
                Value::String(base64::engine::general_purpose::STANDARD.encode(request.body))
            }),
            None if shape.payload.as_deref() == Some(name) => {
                (!body.is_empty()).then(|| Value::Object(body.clone()))
            }
            None => body.get(wire).cloned(),
        };
        if let Some(value) = value.filter(|v| !v.is_null()) {
            input.insert(name.clone(), value);
        }
    }
    Ok(Value::Object(input))
}

/// The JSON object of a request body; an empty body is an empty object.
fn body_json(body: &[u8]) -> Result<Map<String, Value>, AwsError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(AwsError::serialization(
            "Request body must be a JSON object.",
        )),
        Err(e) => Err(AwsError::serialization(format!(
            "Request body is not valid JSON: {e}."
        ))),
    }
}

/// A member given as strings (query string, header): a list takes them all, anything else the
/// first.
fn strings(
    model: &Model,
    shape: &Shape,
    member: &str,
    values: &[&str],
) -> Result<Option<Value>, AwsError> {
    let Some(first) = values.first() else {
        return Ok(None);
    };
    if shape.kind == ShapeKind::List {
        let item = shape.member.as_ref().map(|m| model.shape(&m.shape));
        let items = values
            .iter()
            .map(|v| item.map_or(Ok(Value::String(v.to_string())), |s| scalar(s, member, v)))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Some(Value::Array(items)));
    }
    scalar(shape, member, first).map(Some)
}

/// A scalar member from its text. Timestamps stay text: no restJson1 service served here sends
/// one outside the body.
fn scalar(shape: &Shape, member: &str, text: &str) -> Result<Value, AwsError> {
    let invalid = |rule: &str| {
        AwsError::client(
            "ValidationException",
            validation_message(text, member, rule),
        )
    };
    Ok(match shape.kind {
        ShapeKind::Integer | ShapeKind::Long => Value::from(
            text.parse::<i64>()
                .map_err(|_| invalid("Member must be an integer"))?,
        ),
        ShapeKind::Double | ShapeKind::Float => Value::from(
            text.parse::<f64>()
                .map_err(|_| invalid("Member must be a number"))?,
        ),
        ShapeKind::Boolean => Value::Bool(
            text.parse::<bool>()
                .map_err(|_| invalid("Member must be true or false"))?,
        ),
        _ => Value::String(text.to_string()),
    })
}

/// An output split as the model says: its status, the headers it sets and its JSON body.
pub struct Encoded {
    pub status: u16,
    pub headers: Vec<(HeaderName, HeaderValue)>,
    pub body: Vec<u8>,
}

/// Encodes `output` of `operation`: members located in headers go there, the status code member
/// (if any) sets the status, the rest makes the JSON body under its wire name.
pub fn encode(model: &Model, operation: &str, output: &Value) -> Encoded {
    let Some(op) = model.operations.get(operation) else {
        // Not an operation of the model (never, after `route`): an empty answer.
        return Encoded {
            status: 200,
            headers: Vec::new(),
            body: b"{}".to_vec(),
        };
    };
    let mut encoded = Encoded {
        status: op
            .http
            .as_ref()
            .and_then(|h| h.response_code)
            .unwrap_or(200),
        headers: Vec::new(),
        body: Vec::new(),
    };
    let shape = op.output.as_ref().map(|r| model.shape(&r.shape));
    let Some(shape) = shape else {
        encoded.body = b"{}".to_vec();
        return encoded;
    };
    let mut body = Map::new();
    for (name, member) in &shape.members {
        let Some(value) = output.get(name).filter(|v| !v.is_null()) else {
            continue;
        };
        let wire = member.location_name.as_deref().unwrap_or(name);
        match member.location {
            Some(Location::Header) => push_header(&mut encoded.headers, wire, value),
            Some(Location::Headers) => {
                for (k, v) in value.as_object().into_iter().flatten() {
                    push_header(&mut encoded.headers, &format!("{wire}{k}"), v);
                }
            }
            Some(Location::StatusCode) => {
                encoded.status = value.as_u64().map_or(encoded.status, |s| s as u16);
            }
            _ if shape.payload.as_deref() == Some(name) => {
                // A blob payload goes out as its bytes (base64 in the output).
                let blob = model.shape(&member.shape).kind == ShapeKind::Blob;
                encoded.body = match value.as_str() {
                    Some(text) if blob => base64::engine::general_purpose::STANDARD
                        .decode(text)
                        .unwrap_or_default(),
                    _ => value.to_string().into_bytes(),
                };
                return with_headers_only(encoded, shape, output);
            }
            _ => {
                body.insert(wire.to_string(), value.clone());
            }
        }
    }
    encoded.body = Value::Object(body).to_string().into_bytes();
    encoded
}

/// A payload output: the headers of the members besides the payload still go out.
fn with_headers_only(mut encoded: Encoded, shape: &Shape, output: &Value) -> Encoded {
    encoded.headers.clear();
    for (name, member) in &shape.members {
        let Some(value) = output.get(name).filter(|v| !v.is_null()) else {
            continue;
        };
        match member.location {
            Some(Location::Header) => {
                let wire = member.location_name.as_deref().unwrap_or(name);
                push_header(&mut encoded.headers, wire, value);
            }
            Some(Location::StatusCode) => {
                encoded.status = value.as_u64().map_or(encoded.status, |s| s as u16);
            }
            _ => {}
        }
    }
    encoded
}

fn push_header(headers: &mut Vec<(HeaderName, HeaderValue)>, name: &str, value: &Value) {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if let (Ok(name), Ok(value)) = (
        HeaderName::from_bytes(name.as_bytes()),
        HeaderValue::from_str(&text),
    ) {
        headers.push((name, value));
    }
}

/// The body of an error: its message under the member name the error shape gives it
/// (Scheduler's `Message`, Pipes' `message`).
pub fn error_body(model: Option<&Model>, err: &AwsError) -> Vec<u8> {
    let members = model
        .and_then(|m| m.shapes.get(err.code))
        .map(|s| &s.members);
    let key = match members {
        Some(m) if m.contains_key("Message") => "Message",
        _ => "message",
    };
    let mut body = Map::new();
    body.insert(key.into(), Value::String(err.message.clone()));
    for (name, value) in &err.members {
        body.insert((*name).into(), Value::String(value.clone()));
    }
    if !err.fields.is_empty() {
        let fields: Vec<Value> = err
            .fields
            .iter()
            .map(|(name, message)| serde_json::json!({ "name": name, "message": message }))
            .collect();
        body.insert("fieldList".into(), Value::Array(fields));
    }
    Value::Object(body).to_string().into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{PIPES, SCHEDULER};

    #[test]
    fn templates_match_labels_and_greedy_labels() {
        let labels = match_template("/schedules/{Name}", "/schedules/daily").unwrap();
        assert_eq!(labels, vec![("Name".to_string(), "daily".to_string())]);
        assert!(match_template("/schedules/{Name}", "/schedules/").is_none());
        assert!(match_template("/schedules/{Name}", "/schedules/a/b").is_none());
        assert!(match_template("/schedules", "/schedules/a").is_none());
        let greedy = match_template("/objects/{Key+}", "/objects/a/b/c").unwrap();
        assert_eq!(greedy, vec![("Key".to_string(), "a/b/c".to_string())]);
        assert!(match_template("/objects/{Key+}", "/objects").is_none());
    }

    #[test]
    fn routes_by_method_and_path() {
        let get = route(&SCHEDULER, &Method::GET, "/schedules/daily").unwrap();
        assert_eq!(get.0, "GetSchedule");
        let list = route(&SCHEDULER, &Method::GET, "/schedules").unwrap();
        assert_eq!(list.0, "ListSchedules");
        let start = route(&PIPES, &Method::POST, "/v1/pipes/p1/start").unwrap();
        assert_eq!(start.0, "StartPipe");
        assert!(route(&SCHEDULER, &Method::PATCH, "/schedules/daily").is_none());
        assert!(!serves_path(&SCHEDULER, "/"));
        assert!(serves_path(
            &PIPES,
            "/tags/arn%3Aaws%3Apipes%3Aus-east-1%3A1%3Apipe%2Fp"
        ));
    }

    /// Scheduler's input for a request to `path` with `query` and `body`.
    fn scheduler_input(
        method: Method,
        path: &str,
        query: &str,
        body: &[u8],
    ) -> Result<Value, AwsError> {
        let (op, labels) = route(&SCHEDULER, &method, path).unwrap();
        let headers = HeaderMap::new();
        let request = Request {
            labels: &labels,
            query,
            headers: &headers,
            body,
        };
        decode(&SCHEDULER, op, &request)
    }

    #[test]
    fn members_come_from_labels_query_and_body() {
        let arn = "arn:aws:scheduler:us-east-1:000000000000:schedule-group/g";
        let encoded: String =
            percent_encoding::utf8_percent_encode(arn, percent_encoding::NON_ALPHANUMERIC)
                .collect();
        let tags = format!("/tags/{encoded}");
        let input = scheduler_input(Method::DELETE, &tags, "TagKeys=a&TagKeys=b%20c", b"").unwrap();
        assert_eq!(
            input,
            serde_json::json!({"ResourceArn": arn, "TagKeys": ["a", "b c"]})
        );
        let err = scheduler_input(Method::GET, "/schedules", "MaxResults=x", b"").unwrap_err();
        assert_eq!(err.code, "ValidationException");
        assert!(err.message.contains("MaxResults"), "{}", err.message);
        let body = br#"{"Name":"ignored","Tags":[{"Key":"k","Value":"v"}]}"#;
        let input = scheduler_input(Method::POST, "/schedule-groups/g", "", body).unwrap();
        assert_eq!(input["Name"], "g", "the URI label wins over the body");
        assert_eq!(input["Tags"][0]["Key"], "k");
        let shape = SCHEDULER.shape("CreateScheduleGroupInput");
        assert_eq!(shape.members["Name"].location, Some(Location::Uri));
    }

    #[test]
    fn errors_name_their_message_as_the_model_does() {
        let err = AwsError::client("ValidationException", "bad");
        let scheduler = error_body(Some(&SCHEDULER), &err);
        assert_eq!(scheduler, br#"{"Message":"bad"}"#);
        assert_eq!(error_body(Some(&PIPES), &err), br#"{"message":"bad"}"#);
        let conflict = AwsError::new("ConflictException", 409, "busy")
            .with_member("resourceId", "p")
            .with_member("resourceType", "pipe");
        let body: Value = serde_json::from_slice(&error_body(Some(&PIPES), &conflict)).unwrap();
        let want =
            serde_json::json!({"message": "busy", "resourceId": "p", "resourceType": "pipe"});
        assert_eq!(body, want);
        let invalid = AwsError::client("ValidationException", "1 validation error detected")
            .with_field(
                "batchSize",
                "Member must have value greater than or equal to 1",
            );
        let body: Value = serde_json::from_slice(&error_body(Some(&PIPES), &invalid)).unwrap();
        assert_eq!(
            body["fieldList"],
            serde_json::json!([{"name": "batchSize", "message": "Member must have value greater than or equal to 1"}])
        );
    }
}
