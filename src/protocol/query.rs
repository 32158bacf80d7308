//! AWS Query: form-encoded parameters in, XML out. Decoding and encoding are driven by the
//! service model, so every operation of a Query service speaks it exactly as the SDKs expect.
//! The XML is written with quick-xml's `Writer`, which escapes the text; this module adds only
//! the character references AWS writes for `\r` and other control characters. It knows the wire
//! and the model, nothing of the engine or the services (only `engine::time`'s pure formatting).

use crate::engine::time::{format_rfc3339, parse_rfc3339};
use crate::error::AwsError;
use crate::model::{Model, ShapeKind, ShapeRef};
use quick_xml::Writer;
use quick_xml::escape::escape;
use quick_xml::events::{BytesDecl, BytesEnd, BytesRef, BytesStart, BytesText, Event};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;

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

/// The declaration every answer opens with (`<?xml version="1.0" encoding="UTF-8"?>`); the
/// name `xml` is its first 3 bytes.
const DECLARATION: &str = "xml version=\"1.0\" encoding=\"UTF-8\"";
/// Room for a typical answer (SendMessage's is about 450 bytes), so most are written without
/// the buffer growing.
const TYPICAL_ANSWER: usize = 512;
const INFALLIBLE: &str = "writing XML into a Vec<u8> cannot fail";
/// How quick-xml's `escape` writes `\r`, and the reference AWS writes for it instead.
const QUICK_XML_CR: &str = "&#13;";
const AWS_CR: &str = "#xD";

/// `<{op}Response xmlns=..><{op}Result>..</{op}Result><ResponseMetadata>..</..></{op}Response>`
pub fn encode_response(model: &Model, op: &str, output: &Value, request_id: &str) -> Vec<u8> {
    let mut xml = Xml::with_capacity(TYPICAL_ANSWER);
    xml.response(model, op, output, request_id)
        .expect(INFALLIBLE);
    xml.w.into_inner()
}

/// `<ErrorResponse><Error><Type/><Code/><Message/><Detail/></Error><RequestId/></ErrorResponse>`
pub fn encode_error(
    model: Option<&Model>,
    code: &str,
    sender: bool,
    message: &str,
    request_id: &str,
) -> Vec<u8> {
    let mut xml = Xml::with_capacity(TYPICAL_ANSWER + message.len());
    xml.error(model, code, sender, message, request_id)
        .expect(INFALLIBLE);
    xml.w.into_inner()
}

/// One answer being written: quick-xml's writer over the answer's buffer, and a scratch string
/// that numbers are formatted in. Tags below the root, plain text and numbers cost no allocation;
/// text that needs escaping costs one (quick-xml's `escape`), and so does a timestamp.
struct Xml {
    w: Writer<Vec<u8>>,
    scratch: String,
}

impl Xml {
    fn with_capacity(capacity: usize) -> Xml {
        Xml {
            w: Writer::new(Vec::with_capacity(capacity)),
            scratch: String::new(),
        }
    }

    fn response(&mut self, model: &Model, op: &str, output: &Value, rid: &str) -> io::Result<()> {
        let root = format!("{op}Response");
        self.open_root(&root, Some(model))?;
        if let Some(out) = model.operations.get(op).and_then(|o| o.output.as_ref()) {
            let wrapper = match &out.result_wrapper {
                Some(name) => Cow::Borrowed(name.as_str()),
                None => Cow::Owned(format!("{op}Result")),
            };
            self.start(&wrapper)?;
            self.structure(model, &out.shape, output)?;
            self.end(&wrapper)?;
        }
        self.start("ResponseMetadata")?;
        self.text_element("RequestId", rid)?;
        self.end("ResponseMetadata")?;
        self.end(&root)
    }

    fn error(
        &mut self,
        model: Option<&Model>,
        code: &str,
        sender: bool,
        message: &str,
        request_id: &str,
    ) -> io::Result<()> {
        self.open_root("ErrorResponse", model)?;
        self.start("Error")?;
        self.text_element("Type", if sender { "Sender" } else { "Receiver" })?;
        self.text_element("Code", code)?;
        self.text_element("Message", message)?;
        self.w
            .write_event(Event::Empty(BytesStart::new("Detail")))?;
        self.end("Error")?;
        self.text_element("RequestId", request_id)?;
        self.end("ErrorResponse")
    }

    /// The declaration, then the root's start tag with the model's namespace, if it has one.
    fn open_root(&mut self, name: &str, model: Option<&Model>) -> io::Result<()> {
        let declaration = BytesStart::from_content(DECLARATION, 3);
        self.w
            .write_event(Event::Decl(BytesDecl::from_start(declaration)))?;
        let mut root = BytesStart::new(name);
        if let Some(ns) = model.and_then(|m| m.metadata.xml_namespace.as_deref()) {
            root.push_attribute(("xmlns", ns));
        }
        self.w.write_event(Event::Start(root))
    }

    fn start(&mut self, name: &str) -> io::Result<()> {
        self.w.write_event(Event::Start(BytesStart::new(name)))
    }

    fn end(&mut self, name: &str) -> io::Result<()> {
        self.w.write_event(Event::End(BytesEnd::new(name)))
    }

    fn text_element(&mut self, name: &str, text: &str) -> io::Result<()> {
        self.start(name)?;
        self.text(text)?;
        self.end(name)
    }

    /// Character data. quick-xml escapes it (`escape`, which is what `BytesText::new` does:
    /// `<`, `>`, `&`, `'`, `"`, and `\r` as `&#13;`); each `\r` then goes out as `&#xD;`, the
    /// form AWS writes and the JavaScript SDK's parser decodes by name (a literal `\r` would
    /// reach clients as `\n`, XML end-of-line normalization). The other characters below U+0020
    /// but tab and newline, which quick-xml leaves as they are and XML has no literal for, go
    /// out as hexadecimal references (`&#x1;`) as they always have.
    fn text(&mut self, text: &str) -> io::Result<()> {
        if !text.bytes().any(needs_reference) {
            // Nearly all text: quick-xml's escaping is all it needs, in one event.
            return self.w.write_event(Event::Text(BytesText::new(text)));
        }
        let mut rest = text;
        // Bytes below 0x20 are never part of a longer UTF-8 sequence: splitting there is safe.
        while let Some(at) = rest.bytes().position(is_bare_control) {
            self.escaped_text(&rest[..at])?;
            let reference = format!("#x{:X}", rest.as_bytes()[at]);
            self.w
                .write_event(Event::GeneralRef(BytesRef::new(reference)))?;
            rest = &rest[at + 1..];
        }
        self.escaped_text(rest)
    }

    /// Text without bare control characters, escaped by quick-xml in one piece (one allocation
    /// at most, none when there is nothing to escape). Its `&#13;` can only stand for a `\r`,
    /// since every `&` of the text itself became `&amp;`.
    fn escaped_text(&mut self, text: &str) -> io::Result<()> {
        let escaped = escape(text);
        for (i, part) in escaped.split(QUICK_XML_CR).enumerate() {
            if i > 0 {
                self.w
                    .write_event(Event::GeneralRef(BytesRef::new(AWS_CR)))?;
            }
            if !part.is_empty() {
                self.w
                    .write_event(Event::Text(BytesText::from_escaped(part)))?;
            }
        }
        Ok(())
    }

    fn structure(&mut self, model: &Model, shape: &str, value: &Value) -> io::Result<()> {
        for (name, member) in &model.shape(shape).members {
            match value.get(name) {
                None | Some(Value::Null) => {}
                Some(v) => self.member(model, model.member_name(name, member), member, v)?,
            }
        }
        Ok(())
    }

    fn member(&mut self, model: &Model, name: &str, r: &ShapeRef, value: &Value) -> io::Result<()> {
        let shape = model.shape(&r.shape);
        let flattened = shape.flattened || r.flattened;
        match shape.kind {
            ShapeKind::Structure => {
                self.start(name)?;
                self.structure(model, &r.shape, value)?;
                self.end(name)
            }
            ShapeKind::List => {
                let member = shape.member.as_deref().expect("list member");
                let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
                if flattened {
                    let item_name = member.location_name.as_deref().unwrap_or(name);
                    for item in items {
                        self.member(model, item_name, member, item)?;
                    }
                    return Ok(());
                }
                self.start(name)?;
                let item_name = member.location_name.as_deref().unwrap_or("member");
                for item in items {
                    self.member(model, item_name, member, item)?;
                }
                self.end(name)
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
                let entry_name = if flattened { name } else { "entry" };
                if !flattened {
                    self.start(name)?;
                }
                for (key, val) in value.as_object().into_iter().flatten() {
                    self.start(entry_name)?;
                    self.text_element(key_name, key)?;
                    self.member(model, value_name, v, val)?;
                    self.end(entry_name)?;
                }
                if !flattened {
                    self.end(name)?;
                }
                Ok(())
            }
            kind => {
                self.start(name)?;
                self.scalar(kind, value)?;
                self.end(name)
            }
        }
    }

    /// A scalar's text: strings (blobs are base64 already) as they are, timestamps given as
    /// epoch seconds in RFC 3339 with milliseconds, numbers and booleans as JSON writes them.
    fn scalar(&mut self, kind: ShapeKind, value: &Value) -> io::Result<()> {
        match (kind, value) {
            (_, Value::String(s)) => self.text(s),
            (ShapeKind::Timestamp, Value::Number(n)) => {
                let ms = (n.as_f64().unwrap_or_default() * 1000.0).round() as i64;
                let text = BytesText::from_escaped(format_rfc3339(ms));
                self.w.write_event(Event::Text(text))
            }
            (_, Value::Number(n)) => {
                self.scratch.clear();
                write!(self.scratch, "{n}").expect("writing to a String cannot fail");
                let text = BytesText::from_escaped(self.scratch.as_str());
                self.w.write_event(Event::Text(text))
            }
            (_, Value::Bool(b)) => {
                let text = BytesText::from_escaped(if *b { "true" } else { "false" });
                self.w.write_event(Event::Text(text))
            }
            (_, other) => self.text(&other.to_string()),
        }
    }
}

/// Characters written as hexadecimal references: below U+0020 but tab and newline (see
/// `Xml::text`).
fn needs_reference(b: u8) -> bool {
    b < 0x20 && !matches!(b, b'\t' | b'\n')
}

/// Those of them that quick-xml's `escape` leaves as they are: all but `\r`.
fn is_bare_control(b: u8) -> bool {
    needs_reference(b) && b != b'\r'
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{SNS, SQS};
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

    /// A model of our own that uses every trait the encoder reads: result wrappers (given and
    /// defaulted), `member`/`entry` and named items, flattened lists and maps (on the shape and on
    /// the reference), nested lists and maps, and each scalar kind.
    const TRICKY_MODEL: &str = r#"{
        "metadata": {"apiVersion": "2020-01-01", "endpointPrefix": "tricky", "protocols": ["query"],
                     "xmlNamespace": "http://tricky.example/doc/2020-01-01/"},
        "operations": {
            "Tricky": {"output": {"shape": "TrickyOutput"}},
            "Wrapped": {"output": {"shape": "TrickyOutput", "resultWrapper": "CustomWrapper"}}
        },
        "shapes": {
            "TrickyOutput": {"type": "structure", "members": {
                "Text": {"shape": "S"},
                "When": {"shape": "T"},
                "WhenText": {"shape": "T"},
                "Count": {"shape": "L"},
                "Ratio": {"shape": "D"},
                "Flag": {"shape": "B"},
                "Data": {"shape": "Bin"},
                "Number": {"shape": "S"},
                "Absent": {"shape": "S"},
                "Nothing": {"shape": "S"},
                "Items": {"shape": "ItemList"},
                "Named": {"shape": "NamedList", "locationName": "NamedItems"},
                "Flat": {"shape": "SList", "flattened": true, "locationName": "FlatValue"},
                "FlatShape": {"shape": "FlatSList"},
                "Nested": {"shape": "SListList"},
                "Tags": {"shape": "TagMap"},
                "Attrs": {"shape": "FlatMap", "locationName": "Attr"},
                "Empty": {"shape": "ItemList"}
            }},
            "Item": {"type": "structure", "members": {
                "Name": {"shape": "S"},
                "Sub": {"shape": "SListMap"}
            }},
            "ItemList": {"type": "list", "member": {"shape": "Item"}},
            "NamedList": {"type": "list", "member": {"shape": "S", "locationName": "Entry"}},
            "SList": {"type": "list", "member": {"shape": "S", "locationName": "Value"}},
            "FlatSList": {"type": "list", "flattened": true, "member": {"shape": "S"}},
            "SListList": {"type": "list", "member": {"shape": "SList"}},
            "TagMap": {"type": "map", "key": {"shape": "S"}, "value": {"shape": "Item"}},
            "FlatMap": {"type": "map", "flattened": true,
                        "key": {"shape": "S", "locationName": "Name"},
                        "value": {"shape": "S", "locationName": "Value"}},
            "SListMap": {"type": "map", "key": {"shape": "S"}, "value": {"shape": "SList"}},
            "S": {"type": "string"},
            "T": {"type": "timestamp"},
            "L": {"type": "long"},
            "D": {"type": "double"},
            "B": {"type": "boolean"},
            "Bin": {"type": "blob"}
        }
    }"#;

    /// Markup, quotes, `\r` (which XML parsers would turn into `\n`), tab, newline, a control
    /// character, non-ASCII and a CDATA end.
    const TRICKY_TEXT: &str = "a<b>&c \"q\" 'a' x\r\ny\rz\t\u{1}\u{1f} é 😀 ]]>";

    fn tricky_output() -> Value {
        json!({
            "Text": TRICKY_TEXT,
            "When": 1_700_000_000.123_6,
            "WhenText": "2023-11-14T22:13:20Z",
            "Count": 42,
            "Ratio": 0.5,
            "Flag": true,
            "Data": "AAEC/w==",
            "Number": 7,
            "Nothing": null,
            "Items": [
                {"Name": "one", "Sub": {"k<1>": ["a&b", "c"], "k2": []}},
                {"Name": "two"}
            ],
            "Named": ["n1", "n'2"],
            "Flat": ["f1", "f\"2"],
            "FlatShape": ["g1"],
            "Nested": [["x", "y"], [], ["z"]],
            "Tags": {"t&1": {"Name": "v\r"}, "t2": {}},
            "Attrs": {"SenderId": "000000000000", "We<ird>": "\r\n"},
            "Empty": []
        })
    }

    /// `TRICKY_TEXT` as the answers write it: `\r` and the control characters as hexadecimal
    /// character references, which every SDK's parser turns back into the character. (The
    /// hand-written escaper before quick-xml left `'` as it was; `&apos;` parses the same.)
    const TRICKY_XML: &str =
        "a&lt;b&gt;&amp;c &quot;q&quot; &apos;a&apos; x&#xD;\ny&#xD;z\t&#x1;&#x1F; é 😀 ]]&gt;";

    fn utf8(xml: Vec<u8>) -> String {
        String::from_utf8(xml).expect("answers are UTF-8")
    }

    /// The expected answer: the XML declaration, then `body` with `{T}` standing for `TRICKY_XML`.
    fn pinned(body: &str) -> String {
        let decl = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";
        format!("{decl}{}", body.replace("{T}", TRICKY_XML))
    }

    #[test]
    fn pins_the_xml_of_every_trait_and_tricky_text() {
        let model: Model = serde_json::from_str(TRICKY_MODEL).unwrap();
        let xml = utf8(encode_response(
            &model,
            "Tricky",
            &tricky_output(),
            "rid<&>",
        ));
        let expected = pinned(
            "<TrickyResponse xmlns=\"http://tricky.example/doc/2020-01-01/\"><TrickyResult><Attr>\
            <Name>SenderId</Name><Value>000000000000</Value></Attr><Attr>\
            <Name>We&lt;ird&gt;</Name><Value>&#xD;\n</Value></Attr><Count>42</Count>\
            <Data>AAEC/w==</Data><Empty></Empty><Flag>true</Flag><Value>f1</Value>\
            <Value>f&quot;2</Value><FlatShape>g1</FlatShape><Items><member><Name>one</Name><Sub>\
            <entry><key>k&lt;1&gt;</key><value><Value>a&amp;b</Value><Value>c</Value></value>\
            </entry><entry><key>k2</key><value></value></entry></Sub></member><member>\
            <Name>two</Name></member></Items><NamedItems><Entry>n1</Entry><Entry>n&apos;2</Entry>\
            </NamedItems><Nested><member><Value>x</Value><Value>y</Value></member><member>\
            </member><member><Value>z</Value></member></Nested><Number>7</Number>\
            <Ratio>0.5</Ratio><Tags><entry><key>t&amp;1</key><value><Name>v&#xD;</Name></value>\
            </entry><entry><key>t2</key><value></value></entry></Tags><Text>{T}</Text>\
            <When>2023-11-14T22:13:20.124Z</When><WhenText>2023-11-14T22:13:20Z</WhenText>\
            </TrickyResult><ResponseMetadata><RequestId>rid&lt;&amp;&gt;</RequestId>\
            </ResponseMetadata></TrickyResponse>",
        );
        assert_eq!(xml, expected);
        let xml = utf8(encode_response(
            &model,
            "Wrapped",
            &json!({"Text": "w"}),
            "r",
        ));
        let expected = pinned(
            "<WrappedResponse xmlns=\"http://tricky.example/doc/2020-01-01/\"><CustomWrapper>\
            <Text>w</Text></CustomWrapper><ResponseMetadata><RequestId>r</RequestId>\
            </ResponseMetadata></WrappedResponse>",
        );
        assert_eq!(xml, expected);
    }

    #[test]
    fn pins_the_xml_of_real_answers_and_errors() {
        let out = json!({"Messages": [{
            "MessageId": "m1",
            "ReceiptHandle": "rh+/=",
            "MD5OfBody": "d41d8cd98f00b204e9800998ecf8427e",
            "Body": TRICKY_TEXT,
            "Attributes": {"SenderId": "000000000000", "SentTimestamp": "1700000000000"},
            "MessageAttributes": {
                "bin": {"DataType": "Binary", "BinaryValue": "AAEC/w=="},
                "s&<": {"DataType": "String.custom", "StringValue": TRICKY_TEXT},
                "list": {"DataType": "String", "StringListValues": ["a", "b<"],
                         "BinaryListValues": ["AA=="]}
            }
        }]});
        let expected = pinned(
            "<ReceiveMessageResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\">\
            <ReceiveMessageResult><Message><Attribute><Name>SenderId</Name>\
            <Value>000000000000</Value></Attribute><Attribute><Name>SentTimestamp</Name>\
            <Value>1700000000000</Value></Attribute><Body>{T}</Body>\
            <MD5OfBody>d41d8cd98f00b204e9800998ecf8427e</MD5OfBody><MessageAttribute>\
            <Name>bin</Name><Value><BinaryValue>AAEC/w==</BinaryValue>\
            <DataType>Binary</DataType></Value></MessageAttribute><MessageAttribute>\
            <Name>s&amp;&lt;</Name><Value><DataType>String.custom</DataType>\
            <StringValue>{T}</StringValue></Value></MessageAttribute><MessageAttribute>\
            <Name>list</Name><Value><BinaryListValue>AA==</BinaryListValue>\
            <DataType>String</DataType><StringListValue>a</StringListValue>\
            <StringListValue>b&lt;</StringListValue></Value></MessageAttribute>\
            <MessageId>m1</MessageId><ReceiptHandle>rh+/=</ReceiptHandle></Message>\
            </ReceiveMessageResult><ResponseMetadata><RequestId>rid</RequestId>\
            </ResponseMetadata></ReceiveMessageResponse>",
        );
        assert_eq!(
            utf8(encode_response(&SQS, "ReceiveMessage", &out, "rid")),
            expected
        );

        let out = json!({"Attributes": {"Policy": "{\"a\":\"b\"}", "DisplayName": TRICKY_TEXT}});
        let expected = pinned(
            "<GetTopicAttributesResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\">\
            <GetTopicAttributesResult><Attributes><entry><key>Policy</key>\
            <value>{&quot;a&quot;:&quot;b&quot;}</value></entry><entry><key>DisplayName</key>\
            <value>{T}</value></entry></Attributes></GetTopicAttributesResult><ResponseMetadata>\
            <RequestId>rid</RequestId></ResponseMetadata></GetTopicAttributesResponse>",
        );
        assert_eq!(
            utf8(encode_response(&SNS, "GetTopicAttributes", &out, "rid")),
            expected
        );

        let out =
            json!({"Topics": [{"TopicArn": "arn:1"}, {"TopicArn": "arn:2"}], "NextToken": "n"});
        let expected = pinned(
            "<ListTopicsResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\">\
            <ListTopicsResult><NextToken>n</NextToken><Topics><member><TopicArn>arn:1</TopicArn>\
            </member><member><TopicArn>arn:2</TopicArn></member></Topics></ListTopicsResult>\
            <ResponseMetadata><RequestId>rid</RequestId></ResponseMetadata></ListTopicsResponse>",
        );
        assert_eq!(
            utf8(encode_response(&SNS, "ListTopics", &out, "rid")),
            expected
        );

        let code = "AWS.SimpleQueueService.NonExistentQueue";
        let expected = pinned(
            "<ErrorResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\"><Error>\
            <Type>Sender</Type><Code>AWS.SimpleQueueService.NonExistentQueue</Code>\
            <Message>{T}</Message><Detail/></Error><RequestId>rid&amp;</RequestId>\
            </ErrorResponse>",
        );
        assert_eq!(
            utf8(encode_error(Some(&SQS), code, true, TRICKY_TEXT, "rid&")),
            expected
        );
        let expected = pinned(
            "<ErrorResponse><Error><Type>Receiver</Type><Code>InvalidAction</Code>\
            <Message>m</Message><Detail/></Error><RequestId>r</RequestId></ErrorResponse>",
        );
        assert_eq!(
            utf8(encode_error(None, "InvalidAction", false, "m", "r")),
            expected
        );
    }

    /// The texts of every `<tag>` in `xml`, as an XML parser hands them to a client.
    fn parsed_texts(xml: &[u8], tag: &str) -> Vec<String> {
        use quick_xml::XmlVersion::Implicit1_0;
        let mut reader = quick_xml::Reader::from_reader(xml);
        let (mut buf, mut texts, mut inside) = (Vec::new(), Vec::new(), false);
        loop {
            match reader.read_event_into(&mut buf).expect("well-formed XML") {
                Event::Start(e) if e.name().as_ref() == tag => {
                    inside = true;
                    texts.push(String::new());
                }
                Event::End(e) if e.name().as_ref() == tag => inside = false,
                Event::Text(t) if inside => texts
                    .last_mut()
                    .unwrap()
                    .push_str(&t.xml_content(Implicit1_0)),
                Event::GeneralRef(r) if inside => {
                    let text = texts.last_mut().unwrap();
                    match r.resolve_char_ref().expect("valid reference") {
                        Some(c) => text.push(c),
                        None => text.push_str(
                            quick_xml::escape::resolve_predefined_entity(&r).expect("known"),
                        ),
                    }
                }
                Event::Eof => return texts,
                _ => {}
            }
            buf.clear();
        }
    }

    #[test]
    fn text_reaches_a_parser_unchanged() {
        let body = "a<b>&c \"q\" 'a' x\r\ny\rz\t\r\r é 😀 ]]> end\r";
        let out = json!({"Messages": [{
            "Body": body,
            "MessageAttributes": {body: {"DataType": "String", "StringValue": body}}
        }]});
        let xml = encode_response(&SQS, "ReceiveMessage", &out, body);
        for tag in ["Body", "StringValue", "Name", "RequestId"] {
            assert_eq!(parsed_texts(&xml, tag), [body], "{tag}");
        }
        let xml = encode_error(Some(&SNS), "InvalidParameter", true, body, "r");
        assert_eq!(parsed_texts(&xml, "Message"), [body]);
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
        let xml = utf8(encode_response(&SQS, "ReceiveMessage", &out, "rid"));
        assert!(xml.contains(
            "<ReceiveMessageResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\">"
        ));
        assert!(xml.contains(
            "<ReceiveMessageResult><Message><Attribute><Name>SenderId</Name><Value>x</Value></Attribute>\
             <Body>a&lt;b &amp; &#xD;</Body><MessageId>m1</MessageId></Message></ReceiveMessageResult>"
        ), "{xml}");
        assert!(xml.ends_with("<ResponseMetadata><RequestId>rid</RequestId></ResponseMetadata></ReceiveMessageResponse>"));
        let xml = utf8(encode_response(
            &SQS,
            "ListQueues",
            &json!({"QueueUrls": ["a", "b"]}),
            "r",
        ));
        assert!(xml.contains(
            "<ListQueuesResult><QueueUrl>a</QueueUrl><QueueUrl>b</QueueUrl></ListQueuesResult>"
        ));
        let xml = utf8(encode_response(&SQS, "DeleteQueue", &json!({}), "r"));
        assert!(xml.contains("<DeleteQueueResponse xmlns=\"http://queue.amazonaws.com/doc/2012-11-05/\"><ResponseMetadata>"));
    }
}
