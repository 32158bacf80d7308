//! What a rule target receives: the event, a constant `Input`, the part an `InputPath` selects,
//! or what an `InputTransformer` renders (spec A5; AWS user guide "Amazon EventBridge input
//! transformation"; API reference `Target`, `InputTransformer`; botocore's events model).
//!
//! Facts reproduced:
//! - Limits: `Input` ≤ 8192 chars, `InputPath` and each `InputPathsMap` value ≤ 256, at most 100
//!   map entries, keys 1-256 chars of `[A-Za-z0-9_-]` (so no reserved name and no "AWS." key),
//!   `InputTemplate` 1-8192 chars.
//! - A template is JSON when it starts (after white space) with `{`. There a placeholder
//!   written as a whole value gets the value as JSON (a string with its quotes: `"s": <state>` →
//!   `"s":"RUNNING"`), one inside a string literal gets raw text (strings unquoted, arrays and
//!   objects as AWS joins them, `["HIGH"]` as `[HIGH]`, `["A","B"]` as `[A,B]` and
//!   `{"acc_id":"0a78","sf_id":"baz"}` as `{acc_id:0a78,sf_id:baz}`, other values as compact
//!   JSON, nothing escaped), and the result is delivered minified.
//! - Other templates (a quoted string `"<a> is <b>"`, or plain text) get raw text and are
//!   delivered as written, quotes included.
//! - A path missing from the event gives nothing: no text in strings and text templates, `""`
//!   as a whole value (both recorded against AWS, LocalStack's validated snapshots).
//! - `InputPath` to a string delivers the JSON string (`"baz"`, recorded against AWS).
//! - Reserved variables: `aws.events.rule-arn`, `aws.events.rule-name`,
//!   `aws.events.event.ingestion-time`, `aws.events.event.json` (the whole event) and
//!   `aws.events.event`: no `detail`, `detail-type` renamed `detailType`, keys ordered id,
//!   account, detailType, time, source, region, resources, version (recorded against AWS);
//!   other keys (`replay-name`) follow.
//! - AWS messages: "InputTemplate for target <id> contains invalid placeholder <name>." and "Only
//!   one of Input, InputPath, or InputTransformer must be provided for target <id>." (recorded);
//!   "Input for target <id> is not a valid JSON text." (reported through CloudFormation);
//!   "InputTemplate for target <id> contains placeholder aws.events.event.json valid only for
//!   JSON template." (measured at PutTargets for a template that is no JSON object; the user
//!   guide says the same of `aws.events.event`).
//!
//! Decided here without a source:
//! - JSONPath: `$`, dot names, `[n]`, `.*`/`[*]` (the user guide lists array indices and
//!   wildcards as supported at run time; a wildcard yields the array of its matches). Quoted
//!   brackets, `..` and empty names are refused: "InputPath for target <id> is invalid.", also
//!   for map values. Lengths and map keys use AWS's generic constraint wording without member
//!   index and value. A placeholder used as an object key is refused ("InputTemplate for target
//!   <id> uses placeholder <name> as an object key.").
//! - A template starting with `[` is text, like any other non-object template.
//! - `aws.events.event`'s `time` is the event's time (AWS's recorded value looked different).
//!   In a JSON template the whole-event variables may also go in strings (inserted raw).
//! - `InputPath` matching nothing delivers `null`; `$`, `Input` and the event are verbatim.
//! - A JSON template that is no JSON with its placeholders filled is refused at PutTargets
//!   ("InputTemplate for target <id> is not a valid JSON text.", switchyard's wording: the API
//!   reference says "The InputTemplate must be valid JSON"). One that values make invalid (a
//!   string holding a `"` put raw into a string) fails the delivery (`render` errs; the DLQ
//!   `ERROR_CODE` is [`INVALID_JSON`]).
//! - Extracted objects keep `event`'s key order: serde_json needs `preserve_order` for it.

use crate::engine::time::{Millis, format_rfc3339};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// DLQ `ERROR_CODE` for a delivery whose transformed input is not valid JSON.
pub const INVALID_JSON: &str = "INVALID_JSON";
/// The variables a template may use without defining them.
pub const RESERVED: [&str; 5] = [
    "aws.events.rule-arn",
    "aws.events.rule-name",
    "aws.events.event.ingestion-time",
    "aws.events.event",
    "aws.events.event.json",
];

/// A target's input settings, as PutTargets gave them (at most one of the three is set; the
/// caller checks that, see [`exclusive_error`]).
#[derive(Debug, Clone, Copy)]
pub enum TargetInput<'a> {
    Event,
    Constant(&'a str),
    Path(&'a str),
    Transformer {
        paths: &'a BTreeMap<String, String>,
        template: &'a str,
    },
}

/// What the reserved variables stand for in this delivery.
#[derive(Debug, Clone, Copy)]
pub struct Reserved<'a> {
    pub rule_arn: &'a str,
    pub rule_name: &'a str,
    /// When the event reached its bus: written as RFC 3339 only if the template asks for it.
    pub ingested_at: Millis,
}

/// A ValidationException message (PutTargets) or why a delivery failed (`render`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// AWS's message when a target sets more than one of Input, InputPath and InputTransformer.
pub fn exclusive_error(target_id: &str) -> InputError {
    let text = "Only one of Input, InputPath, or InputTransformer must be provided for target";
    InputError(format!("{text} {target_id}."))
}

/// Checks a target's input at PutTargets time. The messages name no target; [`validate_target`]
/// gives AWS's wording with the target id.
pub fn validate(input: &TargetInput) -> Result<(), InputError> {
    validate_target("", input)
}

/// [`validate`] naming the target as AWS does.
pub fn validate_target(target_id: &str, input: &TargetInput) -> Result<(), InputError> {
    let target = format!("target {target_id}");
    let target = target.trim_end();
    let error = |text: String| Err(InputError(text));
    match *input {
        TargetInput::Event => Ok(()),
        TargetInput::Constant(text) => match at_most("input", text, 8192)?.parse::<Value>() {
            Ok(_) => Ok(()),
            Err(_) => error(format!("Input for {target} is not a valid JSON text.")),
        },
        TargetInput::Path(path) => check_path(at_most("inputPath", path, 256)?, target),
        TargetInput::Transformer { paths, template } => {
            let (member, rule) = ("inputTransformer.inputTemplate", "Member must have length");
            if template.is_empty() {
                return Err(constraint(
                    member,
                    &format!("{rule} greater than or equal to 1"),
                ));
            }
            at_most(member, template, 8192)?;
            let member = "inputTransformer.inputPathsMap";
            if paths.len() > 100 {
                return Err(constraint(
                    member,
                    &format!("{rule} less than or equal to 100"),
                ));
            }
            for (key, path) in paths {
                let name_char = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
                if !(1..=256).contains(&key.len()) || !key.bytes().all(name_char) {
                    let rule = "Map keys must satisfy constraint: [Member must have length less \
                        than or equal to 256, Member must have length greater than or equal to 1, \
                        Member must satisfy regular expression pattern: [A-Za-z0-9\\_\\-]+]";
                    return Err(constraint(member, rule));
                }
                check_path(at_most(member, path, 256)?, target)?;
            }
            let holes: Vec<_> = scan(template, false)
                .into_iter()
                .filter_map(Piece::hole)
                .collect();
            for &(name, ctx) in &holes {
                let what = if !paths.contains_key(name) && !RESERVED.contains(&name) {
                    format!("contains invalid placeholder {name}")
                } else if ctx == Ctx::Key {
                    format!("uses placeholder {name} as an object key")
                } else {
                    continue;
                };
                return error(format!("InputTemplate for {target} {what}."));
            }
            check_template_form(template, &holes, target)
        }
    }
}

/// The whole-event variables: "can only be used as a value for a JSON field, as its contents
/// are not escaped" (the user guide's predefined variables).
const WHOLE_EVENT: [&str; 2] = ["aws.events.event", "aws.events.event.json"];

/// What AWS refuses of a template's form (issue 33): a whole-event variable outside a JSON
/// template, in AWS's words (measured at PutTargets: `[<aws.events.event.json>]` and a quoted
/// string holding it), and a JSON template that is no JSON once its placeholders are filled
/// (the API reference: "The InputTemplate must be valid JSON"; the wording is switchyard's, in
/// the style of AWS's recorded "Input for target <id> is not a valid JSON text.").
fn check_template_form(
    template: &str,
    holes: &[(&str, Ctx)],
    target: &str,
) -> Result<(), InputError> {
    if !is_json_template(template) {
        return match holes.iter().find(|(name, _)| WHOLE_EVENT.contains(name)) {
            Some((name, _)) => Err(InputError(format!(
                "InputTemplate for {target} contains placeholder {name} valid only for JSON template."
            ))),
            None => Ok(()),
        };
    }
    // Each value placeholder stands for some JSON value, each one inside a string for text.
    let mut filled = String::with_capacity(template.len());
    for piece in scan(template, false) {
        match piece {
            Piece::Text(text) => filled.push_str(text),
            Piece::Hole {
                ctx: Ctx::Value, ..
            } => filled.push_str("null"),
            Piece::Hole { .. } => {}
        }
    }
    match filled.parse::<Value>() {
        Ok(_) => Ok(()),
        Err(_) => Err(InputError(format!(
            "InputTemplate for {target} is not a valid JSON text."
        ))),
    }
}

/// The body the target receives for `event` (the whole event as a JSON value, keys in envelope
/// order). `event_text` is the same event already serialized (delivered verbatim for
/// `TargetInput::Event`). Errs only when a JSON template renders to invalid JSON.
pub fn render(
    input: &TargetInput,
    event: &Value,
    event_text: &str,
    reserved: &Reserved,
) -> Result<String, InputError> {
    let (paths, template) = match *input {
        TargetInput::Event => return Ok(event_text.into()),
        TargetInput::Constant(text) => return Ok(text.into()),
        TargetInput::Path(path) => {
            return Ok(match parse_path(path) {
                Some(steps) if steps.is_empty() => event_text.into(),
                Some(steps) => select(event, &steps).map_or("null".into(), |v| v.to_string()),
                None => "null".into(),
            });
        }
        TargetInput::Transformer { paths, template } => (paths, template),
    };
    let pieces = scan(template, false);
    fill(template, pieces, |name| {
        lookup(name, paths, event, event_text, reserved)
    })
}

/// What an EventBridge Pipes `InputTemplate` renders for `event` (the same rules as a rule's
/// transformer, but each placeholder is a JSON path itself, `<$.body.id>`, or a variable
/// `reserved` answers for: `aws.pipes.pipe-arn` and the like). `event_text` is the event
/// serialized, what `<aws.pipes.event.json>` gives.
pub fn render_paths(
    template: &str,
    event: &Value,
    event_text: &str,
    reserved: &dyn Fn(&str) -> Option<String>,
) -> Result<String, InputError> {
    let pieces = scan(template, true);
    fill(template, pieces, |name| match name {
        "aws.pipes.event.json" | "aws.pipes.event" => Some(Found::Json(event_text.into())),
        _ if name.starts_with('$') => match parse_path(name)? {
            steps if steps.is_empty() => Some(Found::Json(event_text.into())),
            steps => Some(found(select(event, &steps)?)),
        },
        _ => reserved(name).map(|s| Found::Str(s.into())),
    })
}

/// The placeholders of `template` filled in by `lookup`, checked as JSON when the template is.
fn fill<'a>(
    template: &str,
    pieces: Vec<Piece>,
    lookup: impl Fn(&str) -> Option<Found<'a>>,
) -> Result<String, InputError> {
    let mut out = String::with_capacity(template.len());
    for piece in pieces {
        let (name, ctx) = match piece {
            Piece::Text(text) => {
                out.push_str(text);
                continue;
            }
            Piece::Hole { name, ctx } => (name, ctx),
        };
        match (lookup(name), ctx) {
            (None, Ctx::Value) => out.push_str("\"\""),
            (None, _) => {}
            (Some(Found::Str(s)), Ctx::Value) => out.push_str(&Value::from(&*s).to_string()),
            (Some(Found::Nested(value)), Ctx::Value) => out.push_str(&value.to_string()),
            (Some(Found::Nested(value)), _) => raw_value(&value, &mut out),
            (Some(Found::Str(s) | Found::Json(s)), _) => out.push_str(&s),
        }
    }
    if !is_json_template(template) {
        return Ok(out);
    }
    match out.parse::<Value>() {
        Ok(_) => Ok(minify(&out)),
        Err(e) => Err(InputError(format!(
            "Transformed input is not valid JSON ({e}): {out}"
        ))),
    }
}

/// AWS's generic constraint message, without the member's index and value.
fn constraint(member: &str, rule: &str) -> InputError {
    let at = format!("Value at 'targets.member.{member}'");
    InputError(format!(
        "1 validation error detected: {at} failed to satisfy constraint: {rule}"
    ))
}

fn at_most<'t>(member: &str, text: &'t str, max: usize) -> Result<&'t str, InputError> {
    if text.chars().count() > max {
        return Err(constraint(
            member,
            &format!("Member must have length less than or equal to {max}"),
        ));
    }
    Ok(text)
}

fn check_path(path: &str, target: &str) -> Result<(), InputError> {
    match parse_path(path) {
        Some(_) => Ok(()),
        None => Err(InputError(format!("InputPath for {target} is invalid."))),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step<'p> {
    Key(&'p str),
    Index(usize),
    Wild,
}

/// `$`, then `.name`, `.*`, `[n]` or `[*]` steps; `None` when the path is not of that form.
fn parse_path(path: &str) -> Option<Vec<Step<'_>>> {
    let mut rest = path.strip_prefix('$')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        let (step, next) = if let Some(after) = rest.strip_prefix('.') {
            let (name, next) = after.split_at(after.find(['.', '[']).unwrap_or(after.len()));
            let bad = |c: char| c.is_whitespace() || matches!(c, ']' | '\'' | '"');
            match name {
                "" => return None,
                "*" => (Step::Wild, next),
                _ if name.contains(bad) => return None,
                _ => (Step::Key(name), next),
            }
        } else {
            let (inner, next) = rest.strip_prefix('[')?.split_once(']')?;
            match inner {
                "*" => (Step::Wild, next),
                _ if inner.bytes().all(|b| b.is_ascii_digit()) => {
                    (Step::Index(inner.parse().ok()?), next)
                }
                _ => return None,
            }
        };
        steps.push(step);
        rest = next;
    }
    Some(steps)
}

/// The value at `steps`; with a wildcard, the array of all matches (`None` if there are none).
fn select<'v>(value: &'v Value, steps: &[Step]) -> Option<Cow<'v, Value>> {
    let mut found = Vec::new();
    collect(value, steps, &mut found);
    if !steps.contains(&Step::Wild) {
        return found.pop().map(Cow::Borrowed);
    }
    (!found.is_empty()).then(|| Cow::Owned(Value::Array(found.into_iter().cloned().collect())))
}

fn collect<'v>(value: &'v Value, steps: &[Step], out: &mut Vec<&'v Value>) {
    let Some((step, rest)) = steps.split_first() else {
        return out.push(value);
    };
    let next: Vec<&Value> = match (step, value) {
        (Step::Key(key), Value::Object(map)) => map.get(*key).into_iter().collect(),
        (Step::Index(i), Value::Array(items)) => items.get(*i).into_iter().collect(),
        (Step::Wild, Value::Object(map)) => map.values().collect(),
        (Step::Wild, Value::Array(items)) => items.iter().collect(),
        _ => Vec::new(),
    };
    next.into_iter().for_each(|v| collect(v, rest, out));
}

/// A placeholder's value: a string (quoted or not depending on where it goes), an array or an
/// object (JSON as a whole value, AWS's raw form in text) or other JSON text.
enum Found<'a> {
    Str(Cow<'a, str>),
    Nested(Cow<'a, Value>),
    Json(Cow<'a, str>),
}

/// An array or object as AWS writes it inside a string or a text template, nothing quoted:
/// `["HIGH"]` as `[HIGH]`, `["ACTIVE","INACTIVE"]` as `[ACTIVE,INACTIVE]`, `{"acc_id": "0a78",
/// "sf_id": "baz"}` as `{acc_id:0a78,sf_id:baz}` (issue 33): elements and members joined by
/// commas, strings (keys too) without their quotes, nested arrays and objects the same way,
/// other values as compact JSON.
fn raw_value(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => out.push_str(s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                raw_value(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (key, member)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(key);
                out.push(':');
                raw_value(member, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn lookup<'a>(
    name: &str,
    paths: &BTreeMap<String, String>,
    event: &'a Value,
    event_text: &'a str,
    reserved: &Reserved<'a>,
) -> Option<Found<'a>> {
    Some(match name {
        "aws.events.rule-arn" => Found::Str(reserved.rule_arn.into()),
        "aws.events.rule-name" => Found::Str(reserved.rule_name.into()),
        "aws.events.event.ingestion-time" => {
            Found::Str(format_rfc3339(reserved.ingested_at).into())
        }
        "aws.events.event.json" => Found::Json(event_text.into()),
        "aws.events.event" => Found::Json(event_without_detail(event).into()),
        _ => match parse_path(paths.get(name)?)? {
            steps if steps.is_empty() => Found::Json(event_text.into()),
            steps => found(select(event, &steps)?),
        },
    })
}

/// A selected value as a placeholder's value.
fn found(value: Cow<'_, Value>) -> Found<'_> {
    match value {
        Cow::Borrowed(Value::String(s)) => Found::Str(Cow::Borrowed(s)),
        Cow::Owned(Value::String(s)) => Found::Str(Cow::Owned(s)),
        nested if nested.is_array() || nested.is_object() => Found::Nested(nested),
        other => Found::Json(other.to_string().into()),
    }
}

/// `aws.events.event` as AWS renders it: no `detail`, `detailType`, AWS's key order.
fn event_without_detail(event: &Value) -> String {
    const ORDER: &str = "id account detail-type time source region resources version";
    let (empty, known) = (serde_json::Map::new(), |key: &str| {
        ORDER.split(' ').any(|k| k == key)
    });
    let map = event.as_object().unwrap_or(&empty);
    let first = ORDER.split(' ').filter_map(|key| map.get_key_value(key));
    let others = map
        .iter()
        .filter(|(key, _)| *key != "detail" && !known(key));
    let field = |(key, value): (&String, &Value)| {
        let key = if key == "detail-type" {
            "detailType"
        } else {
            key
        };
        format!("{}:{value}", Value::from(key))
    };
    format!(
        "{{{}}}",
        first.chain(others).map(field).collect::<Vec<_>>().join(",")
    )
}

fn is_json_template(template: &str) -> bool {
    template.trim_start().starts_with('{')
}

/// Where a placeholder stands: a whole JSON value, raw text (in a string or a text template),
/// or an object key (refused).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Value,
    Text,
    Key,
}

#[derive(Debug, PartialEq, Eq)]
enum Piece<'t> {
    Text(&'t str),
    Hole { name: &'t str, ctx: Ctx },
}

impl<'t> Piece<'t> {
    fn hole(self) -> Option<(&'t str, Ctx)> {
        match self {
            Piece::Hole { name, ctx } => Some((name, ctx)),
            Piece::Text(_) => None,
        }
    }
}

/// Splits a template into literal text and `<name>` placeholders (`name` of letters, digits,
/// `_`, `-` and `.`, and with `paths` also `$`, `[`, `]` and `*`; anything else between `<` and
/// `>` stays text). In a JSON template it follows strings and containers to tell values, string
/// contents and object keys apart.
fn scan(template: &str, paths: bool) -> Vec<Piece<'_>> {
    let json = is_json_template(template);
    let bytes = template.as_bytes();
    let (mut pieces, mut start, mut i) = (Vec::new(), 0, 0);
    let (mut in_str, mut escaped, mut key_str, mut want_key) = (false, false, false, false);
    let mut stack = Vec::new();
    while let Some(&b) = bytes.get(i) {
        let in_object = stack.last() == Some(&b'{');
        let len = if b == b'<' {
            placeholder_len(bytes.get(i + 1..).unwrap_or_default(), paths)
        } else {
            None
        };
        if let Some(len) = len {
            let ctx = match (json, in_str) {
                (false, _) => Ctx::Text,
                (true, true) if key_str => Ctx::Key,
                (true, true) => Ctx::Text,
                (true, false) if want_key && in_object => Ctx::Key,
                (true, false) => Ctx::Value,
            };
            pieces.push(Piece::Text(&template[start..i]));
            pieces.push(Piece::Hole {
                name: &template[i + 1..i + 1 + len],
                ctx,
            });
            (i, start, want_key) = (i + len + 2, i + len + 2, false);
            continue;
        }
        match (json, in_str, b) {
            (false, ..) => {}
            (true, true, _) if escaped => escaped = false,
            (true, true, b'\\') => escaped = true,
            (true, true, b'"') => in_str = false,
            (true, true, _) => {}
            (true, false, b'"') => {
                (in_str, key_str, want_key) = (true, want_key && in_object, false)
            }
            (true, false, b'{' | b'[') => (stack.push(b), want_key = b == b'{').1,
            (true, false, b'}' | b']') => (stack.pop(), want_key = false).1,
            (true, false, b',') => want_key = in_object,
            (true, false, b':') => want_key = false,
            _ => {}
        }
        i += 1;
    }
    pieces.push(Piece::Text(&template[start..]));
    pieces.retain(|p| *p != Piece::Text(""));
    pieces
}

/// The length of `name` when `bytes` is `name>...`.
fn placeholder_len(bytes: &[u8], paths: bool) -> Option<usize> {
    let path_char = |c: u8| paths && matches!(c, b'$' | b'[' | b']' | b'*');
    let n = bytes.iter().position(|&c| {
        !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.') || path_char(c))
    })?;
    (n > 0 && bytes.get(n) == Some(&b'>')).then_some(n)
}

/// Drops the white space outside strings of valid JSON text, keeping everything else as is.
fn minify(text: &str) -> String {
    let (mut out, mut in_str, mut escaped) = (String::with_capacity(text.len()), false, false);
    for c in text.chars() {
        match (in_str, c) {
            (true, _) if escaped => escaped = false,
            (true, '\\') => escaped = true,
            (_, '"') => in_str = !in_str,
            (false, ' ' | '\t' | '\n' | '\r') => continue,
            _ => {}
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests;
