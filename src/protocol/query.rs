//! AWS Query: form-encoded parameters in, XML out. Decoding and encoding are driven by the
//! service model, so every operation of a Query service speaks it exactly as the SDKs expect.

use crate::engine::time::{format_rfc3339, parse_rfc3339};
use crate::error::AwsError;
use crate::model::{Model, ShapeKind, ShapeRef};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub type Params = BTreeMap<String, String>;

/// Parses `a=1&b=2` forms (query string or body); the first of repeated names wins.
pub fn parse_params(into: &mut Params, form: &[u8]) {
    for (k, v) in form_urlencoded::parse(form) {
        into.entry(k.into_owned()).or_insert_with(|| v.into_owned());
    }
}

/// Decodes the operation input `shape` from `params` into the JSON form the services read.
pub fn decode(model: &Model, shape: &str, params: &Params) -> Result<Value, AwsError> {
    decode_structure(model, shape, "", params).map(Value::Object)
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

fn has_prefix(params: &Params, prefix: &str) -> bool {
    params
        .range(prefix.to_string()..)
        .next()
        .is_some_and(|(k, _)| k.starts_with(prefix))
}

/// The list indices (`prefix.N...`) present, in numeric order.
fn indices(params: &Params, prefix: &str) -> Vec<u32> {
    let dotted = format!("{prefix}.");
    let mut found: Vec<u32> = params
        .range(dotted.clone()..)
        .take_while(|(k, _)| k.starts_with(&dotted))
        .filter_map(|(k, _)| k[dotted.len()..].split('.').next()?.parse().ok())
        .collect();
    found.dedup();
    found.sort_unstable();
    found.dedup();
    found
}

fn decode_structure(
    model: &Model,
    shape: &str,
    prefix: &str,
    params: &Params,
) -> Result<Map<String, Value>, AwsError> {
    let mut out = Map::new();
    for (name, member) in &model.shape(shape).members {
        let key = join(prefix, model.member_name(name, member));
        if let Some(v) = decode_value(model, member, &key, params)? {
            out.insert(name.clone(), v);
        }
    }
    Ok(out)
}

fn decode_value(
    model: &Model,
    r: &ShapeRef,
    key: &str,
    params: &Params,
) -> Result<Option<Value>, AwsError> {
    let shape = model.shape(&r.shape);
    let scalar = params.get(key);
    let value = match shape.kind {
        ShapeKind::Structure => {
            if !has_prefix(params, &format!("{key}.")) {
                return Ok(None);
            }
            Value::Object(decode_structure(model, &r.shape, key, params)?)
        }
        ShapeKind::List => {
            let member = shape.member.as_deref().expect("list shapes have a member");
            let list_prefix = if shape.flattened || r.flattened {
                match &member.location_name {
                    Some(name) => match key.rsplit_once('.') {
                        Some((parent, _)) => format!("{parent}.{name}"),
                        None => name.clone(),
                    },
                    None => key.to_string(),
                }
            } else {
                join(key, member.location_name.as_deref().unwrap_or("member"))
            };
            let found = indices(params, &list_prefix);
            if found.is_empty() {
                // An empty list is sent as the bare name with an empty value.
                return Ok(scalar
                    .filter(|v| v.is_empty())
                    .map(|_| Value::Array(vec![])));
            }
            let mut items = Vec::with_capacity(found.len());
            for i in found {
                if let Some(v) = decode_value(model, member, &format!("{list_prefix}.{i}"), params)?
                {
                    items.push(v);
                }
            }
            Value::Array(items)
        }
        ShapeKind::Map => {
            let (k, v) = (
                shape.key.as_deref().expect("map key"),
                shape.value.as_deref().expect("map value"),
            );
            let entries = if shape.flattened || r.flattened {
                key.to_string()
            } else {
                format!("{key}.entry")
            };
            let found = indices(params, &entries);
            if found.is_empty() {
                return Ok(None);
            }
            let mut map = Map::new();
            for i in found {
                let entry = format!("{entries}.{i}");
                let name = join(&entry, k.location_name.as_deref().unwrap_or("key"));
                let Some(Value::String(name)) = decode_value(model, k, &name, params)? else {
                    continue;
                };
                let val = join(&entry, v.location_name.as_deref().unwrap_or("value"));
                if let Some(val) = decode_value(model, v, &val, params)? {
                    map.insert(name, val);
                }
            }
            Value::Object(map)
        }
        _ => {
            let Some(text) = scalar else { return Ok(None) };
            scalar_value(shape.kind, key, text)?
        }
    };
    Ok(Some(value))
}

fn scalar_value(kind: ShapeKind, key: &str, text: &str) -> Result<Value, AwsError> {
    let invalid = || {
        AwsError::client(
            "InvalidParameterValue",
            format!("Value {text} for parameter {key} is invalid."),
        )
    };
    Ok(match kind {
        ShapeKind::Integer | ShapeKind::Long => {
            Value::from(text.trim().parse::<i64>().map_err(|_| invalid())?)
        }
        ShapeKind::Double | ShapeKind::Float => {
            let n = text.trim().parse::<f64>().map_err(|_| invalid())?;
            serde_json::Number::from_f64(n)
                .map(Value::Number)
                .ok_or_else(invalid)?
        }
        ShapeKind::Boolean => match text.to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return Err(invalid()),
        },
        ShapeKind::Timestamp => {
            let ms = parse_rfc3339(text)
                .or_else(|| text.parse::<f64>().ok().map(|s| (s * 1000.0) as i64))
                .ok_or_else(invalid)?;
            Value::from(ms as f64 / 1000.0)
        }
        _ => Value::String(text.to_string()),
    })
}

/// `<{op}Response xmlns=..><{op}Result>..</{op}Result><ResponseMetadata>..</..></{op}Response>`
pub fn encode_response(model: &Model, op: &str, output: &Value, request_id: &str) -> String {
    let mut xml = String::with_capacity(256);
    xml.push_str(&format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><{op}Response"
    ));
    namespace(&mut xml, model);
    xml.push('>');
    if let Some(out) = model.operations.get(op).and_then(|o| o.output.as_ref()) {
        let wrapper = out
            .result_wrapper
            .clone()
            .unwrap_or_else(|| format!("{op}Result"));
        xml.push_str(&format!("<{wrapper}>"));
        encode_structure(&mut xml, model, &out.shape, output);
        xml.push_str(&format!("</{wrapper}>"));
    }
    xml.push_str("<ResponseMetadata><RequestId>");
    escape_into(&mut xml, request_id);
    xml.push_str(&format!("</RequestId></ResponseMetadata></{op}Response>"));
    xml
}

/// `<ErrorResponse><Error><Type/><Code/><Message/><Detail/></Error><RequestId/></ErrorResponse>`
pub fn encode_error(
    model: Option<&Model>,
    code: &str,
    sender: bool,
    message: &str,
    request_id: &str,
) -> String {
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?><ErrorResponse");
    if let Some(model) = model {
        namespace(&mut xml, model);
    }
    xml.push_str("><Error><Type>");
    xml.push_str(if sender { "Sender" } else { "Receiver" });
    xml.push_str("</Type><Code>");
    escape_into(&mut xml, code);
    xml.push_str("</Code><Message>");
    escape_into(&mut xml, message);
    xml.push_str("</Message><Detail/></Error><RequestId>");
    escape_into(&mut xml, request_id);
    xml.push_str("</RequestId></ErrorResponse>");
    xml
}

fn namespace(xml: &mut String, model: &Model) {
    if let Some(ns) = &model.metadata.xml_namespace {
        xml.push_str(" xmlns=\"");
        escape_into(xml, ns);
        xml.push('"');
    }
}

fn encode_structure(xml: &mut String, model: &Model, shape: &str, value: &Value) {
    for (name, member) in &model.shape(shape).members {
        match value.get(name) {
            None | Some(Value::Null) => {}
            Some(v) => encode_member(xml, model, model.member_name(name, member), member, v),
        }
    }
}

fn encode_member(xml: &mut String, model: &Model, name: &str, r: &ShapeRef, value: &Value) {
    let shape = model.shape(&r.shape);
    match shape.kind {
        ShapeKind::Structure => {
            open(xml, name);
            encode_structure(xml, model, &r.shape, value);
            close(xml, name);
        }
        ShapeKind::List => {
            let member = shape.member.as_deref().expect("list member");
            let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
            if shape.flattened || r.flattened {
                let item_name = member.location_name.as_deref().unwrap_or(name);
                for item in items {
                    encode_member(xml, model, item_name, member, item);
                }
            } else {
                open(xml, name);
                let item_name = member.location_name.as_deref().unwrap_or("member");
                for item in items {
                    encode_member(xml, model, item_name, member, item);
                }
                close(xml, name);
            }
        }
        ShapeKind::Map => {
            let (k, v) = (
                shape.key.as_deref().expect("map key"),
                shape.value.as_deref().expect("map value"),
            );
            let (key_name, value_name) = (
                k.location_name.as_deref().unwrap_or("key"),
                v.location_name.as_deref().unwrap_or("value"),
            );
            let flattened = shape.flattened || r.flattened;
            if !flattened {
                open(xml, name);
            }
            for (key, val) in value.as_object().into_iter().flatten() {
                open(xml, if flattened { name } else { "entry" });
                open(xml, key_name);
                escape_into(xml, key);
                close(xml, key_name);
                encode_member(xml, model, value_name, v, val);
                close(xml, if flattened { name } else { "entry" });
            }
            if !flattened {
                close(xml, name);
            }
        }
        kind => {
            open(xml, name);
            match (kind, value) {
                (_, Value::String(s)) => escape_into(xml, s),
                (ShapeKind::Timestamp, Value::Number(n)) => {
                    let ms = (n.as_f64().unwrap_or_default() * 1000.0).round() as i64;
                    xml.push_str(&format_rfc3339(ms));
                }
                (_, other) => xml.push_str(&other.to_string()),
            }
            close(xml, name);
        }
    }
}

fn open(xml: &mut String, name: &str) {
    xml.push('<');
    xml.push_str(name);
    xml.push('>');
}

fn close(xml: &mut String, name: &str) {
    xml.push_str("</");
    xml.push_str(name);
    xml.push('>');
}

/// Escapes text for XML content and attributes. `\r` is written as a character reference so
/// that it survives XML line-end normalization, as AWS does.
pub fn escape_into(xml: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => xml.push_str("&amp;"),
            '<' => xml.push_str("&lt;"),
            '>' => xml.push_str("&gt;"),
            '"' => xml.push_str("&quot;"),
            '\r' => xml.push_str("&#xD;"),
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' => {
                xml.push_str(&format!("&#x{:X};", c as u32))
            }
            c => xml.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SQS;
    use serde_json::json;

    fn params(pairs: &[(&str, &str)]) -> Params {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn decodes_flattened_maps_and_lists_as_old_sdks_send_them() {
        let p = params(&[
            ("Action", "SendMessage"),
            ("QueueUrl", "http://localhost/000000000000/q"),
            ("MessageBody", "hi"),
            ("DelaySeconds", "5"),
            ("MessageAttribute.1.Name", "color"),
            ("MessageAttribute.1.Value.DataType", "String"),
            ("MessageAttribute.1.Value.StringValue", "blue"),
            ("MessageAttribute.2.Name", "n"),
            ("MessageAttribute.2.Value.DataType", "Number"),
            ("MessageAttribute.2.Value.StringValue", "1"),
        ]);
        let v = decode(&SQS, "SendMessageRequest", &p).unwrap();
        assert_eq!(
            v,
            json!({
                "QueueUrl": "http://localhost/000000000000/q",
                "MessageBody": "hi",
                "DelaySeconds": 5,
                "MessageAttributes": {
                    "color": {"DataType": "String", "StringValue": "blue"},
                    "n": {"DataType": "Number", "StringValue": "1"}
                }
            })
        );
        let p = params(&[
            ("QueueUrl", "u"),
            ("AttributeName.1", "All"),
            ("AttributeName.2", "SenderId"),
            ("MaxNumberOfMessages", "10"),
        ]);
        let v = decode(&SQS, "ReceiveMessageRequest", &p).unwrap();
        assert_eq!(v["AttributeNames"], json!(["All", "SenderId"]));
        assert_eq!(v["MaxNumberOfMessages"], json!(10));
        let p = params(&[
            ("QueueName", "q"),
            ("Attribute.1.Name", "DelaySeconds"),
            ("Attribute.1.Value", "3"),
        ]);
        let v = decode(&SQS, "CreateQueueRequest", &p).unwrap();
        assert_eq!(
            v,
            json!({"QueueName": "q", "Attributes": {"DelaySeconds": "3"}})
        );
    }

    #[test]
    fn rejects_malformed_numbers() {
        let p = params(&[("QueueUrl", "u"), ("MaxNumberOfMessages", "ten")]);
        let err = decode(&SQS, "ReceiveMessageRequest", &p).unwrap_err();
        assert_eq!(err.code, "InvalidParameterValue");
    }

    #[test]
    fn encodes_flattened_lists_and_maps() {
        let out = json!({
            "Messages": [{
                "MessageId": "m1",
                "Body": "a<b & \r",
                "Attributes": {"SenderId": "x"}
            }]
        });
        let xml = encode_response(&SQS, "ReceiveMessage", &out, "rid");
        assert!(xml.contains(
            "<ReceiveMessageResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\">"
        ));
        assert!(xml.contains(
            "<ReceiveMessageResult><Message><Attribute><Name>SenderId</Name><Value>x</Value></Attribute>\
             <Body>a&lt;b &amp; &#xD;</Body><MessageId>m1</MessageId></Message></ReceiveMessageResult>"
        ), "{xml}");
        assert!(xml.ends_with("<ResponseMetadata><RequestId>rid</RequestId></ResponseMetadata></ReceiveMessageResponse>"));
        let xml = encode_response(&SQS, "ListQueues", &json!({"QueueUrls": ["a", "b"]}), "r");
        assert!(xml.contains(
            "<ListQueuesResult><QueueUrl>a</QueueUrl><QueueUrl>b</QueueUrl></ListQueuesResult>"
        ));
        let xml = encode_response(&SQS, "DeleteQueue", &json!({}), "r");
        assert!(xml.contains("<DeleteQueueResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\"><ResponseMetadata>"));
    }
}
