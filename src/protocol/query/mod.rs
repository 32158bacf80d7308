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

pub mod json;

pub type Params = BTreeMap<String, String>;

/// A form parameter whose name or value is not UTF-8 once percent-decoded: its name (with
/// U+FFFD for what is not UTF-8) and the first byte that breaks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotUtf8 {
    pub name: String,
    pub byte: u8,
}

/// Parses `a=1&b=2` forms (query string or body), `+` as a space; the first of repeated names
/// wins. Bytes that are not UTF-8 are kept as U+FFFD, and the first parameter holding any is
/// answered, for the caller to refuse once it knows the service.
pub fn parse_params(into: &mut Params, form: &[u8]) -> Option<NotUtf8> {
    let mut not_utf8 = None;
    for pair in form.split(|&b| b == b'&').filter(|p| !p.is_empty()) {
        let mut halves = pair.splitn(2, |&b| b == b'=');
        let (name, value) = (
            halves.next().unwrap_or_default(),
            halves.next().unwrap_or_default(),
        );
        let (name, bad_name) = decode_component(name);
        let (value, bad_value) = decode_component(value);
        if not_utf8.is_none()
            && let Some(byte) = bad_name.or(bad_value)
        {
            not_utf8 = Some(NotUtf8 {
                name: name.clone(),
                byte,
            });
        }
        into.entry(name).or_insert(value);
    }
    not_utf8
}

/// One percent-encoded form component, `+` as a space: the text, and the first byte that is not
/// UTF-8 if any (the text then has U+FFFD in its place).
fn decode_component(raw: &[u8]) -> (String, Option<u8>) {
    let spaced: Cow<[u8]> = if raw.contains(&b'+') {
        Cow::Owned(
            raw.iter()
                .map(|&b| if b == b'+' { b' ' } else { b })
                .collect(),
        )
    } else {
        Cow::Borrowed(raw)
    };
    let bytes: Cow<[u8]> = percent_encoding::percent_decode(&spaced).into();
    match std::str::from_utf8(&bytes) {
        Ok(text) => (text.to_string(), None),
        Err(e) => (
            String::from_utf8_lossy(&bytes).into_owned(),
            bytes.get(e.valid_up_to()).copied(),
        ),
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
            let member = shape
                .member
                .as_deref()
                .ok_or_else(|| unmodeled("list member"))?;
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
                shape.key.as_deref().ok_or_else(|| unmodeled("map key"))?,
                shape
                    .value
                    .as_deref()
                    .ok_or_else(|| unmodeled("map value"))?,
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

/// A shape AWS's models always give (a list's member, a map's key and value) missing from one:
/// the request is answered as a failure of the service, not a panic.
fn unmodeled(what: &str) -> AwsError {
    AwsError::internal(format!("The service model has no {what} here."))
}

/// [`unmodeled`] while writing an answer.
fn no_shape(what: &str) -> io::Error {
    io::Error::other(format!("the service model has no {what} here"))
}
/// How quick-xml's `escape` writes `\r`, and the reference AWS writes for it instead.
const QUICK_XML_CR: &str = "&#13;";
const AWS_CR: &str = "#xD";

/// `<{op}Response xmlns=..><{op}Result>..</{op}Result><ResponseMetadata>..</..></{op}Response>`
pub fn encode_response(model: &Model, op: &str, output: &Value, request_id: &str) -> Vec<u8> {
    let mut xml = Xml::with_capacity(TYPICAL_ANSWER);
    #[allow(clippy::expect_used, reason = "writing into a Vec<u8> cannot fail")]
    xml.response(model, op, output, request_id)
        .expect(INFALLIBLE);
    xml.w.into_inner()
}

/// Whether a service's `ErrorResponse` carries an empty `<Detail/>`: SQS's do, SNS's have none
/// (AWS answers recorded in LocalStack's SNS snapshots), so clients that compare the parsed error
/// (boto3's `Error` dict) see exactly AWS's keys.
fn writes_detail(model: Option<&Model>) -> bool {
    model.is_none_or(|m| m.metadata.endpoint_prefix != "sns")
}

/// `<ErrorResponse><Error><Type/><Code/><Message/>[<Detail/>]</Error><RequestId/></ErrorResponse>`
pub fn encode_error(
    model: Option<&Model>,
    code: &str,
    sender: bool,
    message: &str,
    request_id: &str,
) -> Vec<u8> {
    let mut xml = Xml::with_capacity(TYPICAL_ANSWER + message.len());
    #[allow(clippy::expect_used, reason = "writing into a Vec<u8> cannot fail")]
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
            if output.as_object().is_none_or(Map::is_empty) {
                // Nothing to say: AWS writes the empty element (`<ReceiveMessageResult/>`).
                self.w
                    .write_event(Event::Empty(BytesStart::new(wrapper.as_ref())))?;
            } else {
                self.start(&wrapper)?;
                self.structure(model, &out.shape, output)?;
                self.end(&wrapper)?;
            }
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
        if writes_detail(model) {
            self.w
                .write_event(Event::Empty(BytesStart::new("Detail")))?;
        }
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
        while let Some((at, control)) = rest.bytes().enumerate().find(|&(_, b)| is_bare_control(b))
        {
            let (before, after) = (rest.get(..at), rest.get(at + 1..));
            self.escaped_text(before.unwrap_or_default())?;
            let reference = format!("#x{control:X}");
            self.w
                .write_event(Event::GeneralRef(BytesRef::new(reference)))?;
            rest = after.unwrap_or_default();
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
                let member = shape
                    .member
                    .as_deref()
                    .ok_or_else(|| no_shape("list member"))?;
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
                    shape.key.as_deref().ok_or_else(|| no_shape("map key"))?,
                    shape
                        .value
                        .as_deref()
                        .ok_or_else(|| no_shape("map value"))?,
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
                // Writing into a String cannot fail.
                let _ = write!(self.scratch, "{n}");
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
mod tests;
