//! AWS Query answered in JSON: a Query request that says `Accept: application/json` gets the
//! answer as AWS writes it then, `{"<Op>Response": {"<Op>Result": ..., "ResponseMetadata":
//! {"RequestId": ...}}}`, maps as lists of their key and value entries (`[{"Name": ...,
//! "Value": ...}]`), and errors as `{"Error": {"Type", "Code", "Message"}, "RequestId"}`.
//! It knows the wire and the model only.

use crate::model::{Model, ShapeKind};
use serde_json::{Map, Value, json};

/// Whether a Query request asks for its answer in JSON.
pub fn wanted(accept: Option<&str>) -> bool {
    accept.is_some_and(|a| a.contains("application/json"))
}

pub fn encode_response(model: &Model, op: &str, output: &Value, request_id: &str) -> Vec<u8> {
    let mut response = Map::new();
    if let Some(out) = model.operations.get(op).and_then(|o| o.output.as_ref()) {
        let wrapper = out
            .result_wrapper
            .clone()
            .unwrap_or_else(|| format!("{op}Result"));
        response.insert(wrapper, convert(model, &out.shape, output));
    }
    response.insert(
        "ResponseMetadata".into(),
        json!({ "RequestId": request_id }),
    );
    json!({ format!("{op}Response"): response })
        .to_string()
        .into_bytes()
}

pub fn encode_error(code: &str, sender: bool, message: &str, request_id: &str) -> Vec<u8> {
    let kind = if sender { "Sender" } else { "Receiver" };
    json!({
        "Error": {"Type": kind, "Code": code, "Message": message},
        "RequestId": request_id,
    })
    .to_string()
    .into_bytes()
}

/// `value` (of `shape`, in the JSON protocol's form) in the Query JSON form.
fn convert(model: &Model, shape: &str, value: &Value) -> Value {
    let shape = model.shape(shape);
    match (shape.kind, value) {
        (ShapeKind::Structure, Value::Object(fields)) => Value::Object(
            shape
                .members
                .iter()
                .filter_map(|(name, r)| {
                    let v = fields.get(name)?;
                    Some((name.clone(), convert(model, &r.shape, v)))
                })
                .collect(),
        ),
        (ShapeKind::List, Value::Array(items)) => match &shape.member {
            Some(m) => Value::Array(items.iter().map(|v| convert(model, &m.shape, v)).collect()),
            None => value.clone(),
        },
        (ShapeKind::Map, Value::Object(entries)) => {
            let name = |r: &Option<Box<crate::model::ShapeRef>>, default: &str| {
                r.as_ref()
                    .and_then(|r| r.location_name.clone())
                    .unwrap_or_else(|| default.to_string())
            };
            let (key, val) = (name(&shape.key, "key"), name(&shape.value, "value"));
            let value_shape = shape.value.as_ref().map(|r| r.shape.as_str());
            Value::Array(
                entries
                    .iter()
                    .map(|(k, v)| {
                        let v = value_shape.map_or_else(|| v.clone(), |s| convert(model, s, v));
                        json!({ key.as_str(): k, val.as_str(): v })
                    })
                    .collect(),
            )
        }
        _ => value.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_become_name_value_lists_under_the_result_wrapper() {
        let output = json!({"Attributes": {"QueueArn": "arn:aws:sqs:us-east-1:000000000000:q"}});
        let body = encode_response(&crate::model::SQS, "GetQueueAttributes", &output, "rid");
        let doc: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            doc,
            json!({"GetQueueAttributesResponse": {
                "GetQueueAttributesResult": {"Attributes": [
                    {"Name": "QueueArn", "Value": "arn:aws:sqs:us-east-1:000000000000:q"}
                ]},
                "ResponseMetadata": {"RequestId": "rid"}
            }})
        );
        // No output shape: the metadata alone.
        let body = encode_response(&crate::model::SQS, "DeleteQueue", &json!({}), "rid");
        let doc: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            doc,
            json!({"DeleteQueueResponse": {"ResponseMetadata": {"RequestId": "rid"}}})
        );
        assert!(wanted(Some("application/json, text/plain")));
        assert!(!wanted(Some("text/xml")) && !wanted(None));
    }

    #[test]
    fn errors() {
        let body = encode_error("InvalidAction", true, "no", "rid");
        let doc: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            doc,
            json!({"Error": {"Type": "Sender", "Code": "InvalidAction", "Message": "no"},
                   "RequestId": "rid"})
        );
    }
}
