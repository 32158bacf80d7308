//! Amazon EventBridge event patterns (content filtering): the parser, the validator and the
//! matcher. [`EventPattern::parse`] takes the JSON text of a pattern (PutRule's `EventPattern`,
//! TestEventPattern, archives), rejects it with AWS's `InvalidEventPatternException` reason or
//! compiles it; [`EventPattern::matches`] evaluates the compiled pattern against one event.
//!
//! Behaviour follows the AWS user guide (eb-event-patterns*, eb-create-pattern-operators), the
//! AWS-recorded responses LocalStack keeps (tests/aws/services/events/test_events_patterns
//! .snapshot.json and event_pattern_templates/) and the messages of aws/event-ruler, the library
//! EventBridge matches with. Decisions without an AWS source are marked "Decision:".
//!
//! - A pattern nests like the events; a leaf is an array of alternatives (OR), fields are ANDed.
//!   Keys are joined with dots as Event Ruler does: the pattern key `"state.status"` also
//!   matches `{"state": {"status": ..}}`. (Decision: the reverse, a dotted key in the event
//!   against a nested pattern, is not supported.)
//! - An event array matches when any element matches; nested arrays are flattened. A nested
//!   pattern object is matched against each object of an event array on its own, so two fields
//!   must come from the same element (Event Ruler's `rulesForJSONEvent` behaviour). (Decision:
//!   `{"exists": false}` inside such an object is judged per element too.)
//! - Plain numbers match by value: AWS matched the event `300.0` against `[300]` (LocalStack's
//!   AWS-recorded case `number_comparison_float`), although the 2023 guide said numbers compare
//!   by their text. A string never matches a number.
//! - `exists` looks at leaf values only: an object (or an empty array) is not a leaf, so
//!   `{"exists": false}` matches it and `{"exists": true}` does not. A missing field never
//!   matches a value matcher; `anything-but` matches `null` and any other type.
//! - `$or` is an array of at least two objects; as in Event Ruler, if any `$or` in the pattern
//!   is malformed (or a branch uses an operator name as a field name) the whole pattern is read
//!   the legacy way, with `$or` as an ordinary field name.
//! - Matchers are compiled once: numbers to `f64` ranges, CIDRs to integer ranges, wildcards to
//!   literal segments, ignore-case operands to lower case.

use serde_json::{Map, Number, Value};
use std::collections::{HashSet, VecDeque};

/// Patterns whose `$or` expansion has more combinations than this are rejected (AWS user guide).
const MAX_OR_COMBINATIONS: u64 = 1000;

/// Decision (no AWS number is published): the wildcard complexity limit, see
/// [`wildcard_complexity`]. With it `*:*:*:*:*:event-bus/*` (AWS rejects it) scores 15 and the
/// accepted `/Users/*/dir/dir/dir/dir/dir/doc.txt` scores 7.
const MAX_WILDCARD_COMPLEXITY: usize = 10;

/// How many distinct automaton state sets the complexity check explores before it stops.
const MAX_COMPLEXITY_SETS: usize = 2048;

const TOO_COMPLEX: &str = "Rule is too complex - try using fewer wildcard characters or fewer \
                           repeating character sequences after a wildcard character";

/// Field names that keep an object out of a `$or` branch (Event Ruler's reserved words).
const RESERVED_IN_OR: &str = "exactly equals-ignore-case prefix suffix anything-but exists wildcard \
    numeric cidr = < <= > >= regex not-wildcard not-equals-ignore-case date-after \
    date-on-or-after date-before date-on-or-before in-date-range ip-address-in-range \
    ip-address-not-in-range";

/// A compiled, valid event pattern.
#[derive(Debug, Clone)]
pub struct EventPattern {
    root: ObjNode,
}

/// Why a pattern is invalid: `reason` is AWS's text after "Reason: ".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    pub reason: String,
}

impl PatternError {
    fn new(reason: impl Into<String>) -> PatternError {
        PatternError {
            reason: reason.into(),
        }
    }

    /// "Event pattern is not valid. Reason: <reason>", the `InvalidEventPatternException` message.
    pub fn message(&self) -> String {
        format!("Event pattern is not valid. Reason: {}", self.reason)
    }
}

impl std::fmt::Display for PatternError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for PatternError {}

type Res<T> = Result<T, PatternError>;

fn fail<T>(reason: impl Into<String>) -> Res<T> {
    Err(PatternError::new(reason))
}

#[derive(Debug, Clone, Default)]
struct ObjNode {
    fields: Vec<(String, Node)>,
    /// Each group is one `$or`: at least one branch must match, at this object's level.
    ors: Vec<Vec<ObjNode>>,
}

#[derive(Debug, Clone)]
enum Node {
    Leaf(Vec<Matcher>),
    Obj(ObjNode),
}

#[derive(Debug, Clone)]
enum Matcher {
    /// A string; the address too when the string is an IP literal (Event Ruler compares those
    /// as addresses).
    Exact(String, Option<Ip>),
    Number(Num),
    Bool(bool),
    Null,
    /// `prefix` or `suffix`; with `ic` (equals-ignore-case) the text is in lower case.
    Affix {
        prefix: bool,
        ic: bool,
        text: String,
    },
    /// The operand in lower case.
    EqIc(String),
    Wildcard(Wildcard),
    Numeric(Range),
    Exists(bool),
    Cidr {
        v6: bool,
        lo: u128,
        hi: u128,
    },
    AnythingBut(AnythingBut),
}

#[derive(Debug, Clone)]
enum AnythingBut {
    Strings(Vec<String>),
    Numbers(Vec<Num>),
    Prefix(Vec<String>),
    Suffix(Vec<String>),
    EqIc(Vec<String>),
    Wildcard(Vec<Wildcard>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ip {
    v6: bool,
    addr: u128,
}

#[derive(Debug, Clone, Copy)]
struct Num {
    value: f64,
    int: Option<i128>,
}

/// Bounds of a numeric match; an open side is infinite.
#[derive(Debug, Clone, Copy)]
struct Range {
    lo: f64,
    lo_open: bool,
    hi: f64,
    hi_open: bool,
}

/// A wildcard operand split at its unescaped `*`: `parts.len()` is the number of stars + 1.
#[derive(Debug, Clone)]
struct Wildcard {
    parts: Vec<String>,
}

impl EventPattern {
    /// Parses and validates a pattern (the JSON text of PutRule's EventPattern).
    pub fn parse(text: &str) -> Result<EventPattern, PatternError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| PatternError::new(json_error_reason(text, &e)))?;
        // serde_json keeps the last of duplicate keys, as AWS does.
        let Value::Object(obj) = &value else {
            return fail("Filter is not an object");
        };
        let or_mode = ors_well_formed(obj);
        let root = parse_object(obj, or_mode)?;
        if root.combinations() > MAX_OR_COMBINATIONS {
            // Decision: AWS documents the limit but no recorded message was found.
            return fail(format!(
                "Rule is too complex - the $or expansion exceeds {MAX_OR_COMBINATIONS} combinations"
            ));
        }
        root.check_complexity()?;
        Ok(EventPattern { root })
    }

    /// Whether `event` (a whole EventBridge event as JSON: version, id, detail-type, source,
    /// account, time, region, resources, detail, ... — or any JSON object, e.g. a custom-bus
    /// system-metadata object) matches.
    pub fn matches(&self, event: &Value) -> bool {
        self.root.matches(event.as_object())
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing and validation. Objects are walked in document order (serde_json's preserve_order), so
// the first error reported is the one AWS's streaming parser meets first.

/// Whether every `$or` in the pattern can be read as an OR (Event Ruler falls back to its legacy
/// compiler, where `$or` is a plain field, when one cannot).
fn ors_well_formed(obj: &Map<String, Value>) -> bool {
    obj.iter().all(|(k, v)| match v {
        _ if k == "$or" => is_or_form(v),
        Value::Object(o) => ors_well_formed(o),
        _ => true,
    })
}

fn is_or_form(v: &Value) -> bool {
    let Value::Array(branches) = v else {
        return false;
    };
    branches.len() >= 2
        && branches
            .iter()
            .all(|b| b.as_object().is_some_and(or_branch_clean))
}

fn or_branch_clean(obj: &Map<String, Value>) -> bool {
    obj.iter().all(|(k, v)| match v {
        _ if k == "$or" => is_or_form(v),
        _ if RESERVED_IN_OR.split_whitespace().any(|r| r == k) => false,
        Value::Object(o) => or_branch_clean(o),
        _ => true,
    })
}

fn parse_object(obj: &Map<String, Value>, or_mode: bool) -> Res<ObjNode> {
    if obj.is_empty() {
        return fail("Empty objects are not allowed");
    }
    let mut node = ObjNode::default();
    for (key, value) in obj {
        if or_mode && key == "$or" {
            let branches = value.as_array().into_iter().flatten();
            let group = branches
                .map(|b| parse_object(b.as_object().unwrap_or(&Map::new()), or_mode))
                .collect::<Res<Vec<_>>>()?;
            node.ors.push(group);
            continue;
        }
        let child = match value {
            Value::Object(o) => Node::Obj(parse_object(o, or_mode)?),
            Value::Array(a) => Node::Leaf(parse_leaf(a)?),
            _ => return fail(format!("\"{key}\" must be an object or an array")),
        };
        node.fields.push((key.clone(), child));
    }
    Ok(node)
}

fn parse_leaf(values: &[Value]) -> Res<Vec<Matcher>> {
    if values.is_empty() {
        return fail("Empty arrays are not allowed");
    }
    values
        .iter()
        .map(|v| match v {
            Value::String(s) => Ok(Matcher::Exact(s.clone(), parse_ip(s).ok())),
            Value::Number(n) => Ok(Matcher::Number(num(n))),
            Value::Bool(b) => Ok(Matcher::Bool(*b)),
            Value::Null => Ok(Matcher::Null),
            Value::Object(o) => parse_match_expression(o),
            Value::Array(_) => fail("Match value must be String, number, true, false, or null"),
        })
        .collect()
}

fn parse_match_expression(obj: &Map<String, Value>) -> Res<Matcher> {
    let Some((name, value)) = obj.iter().next() else {
        return fail("Match expression name not found");
    };
    let single = |m: Matcher| {
        if obj.len() > 1 {
            fail("Only one key allowed in match expression")
        } else {
            Ok(m)
        }
    };
    let string = |what: &str| match value {
        Value::String(s) => Ok(s.as_str()),
        _ => fail(format!("{what} match pattern must be a string")),
    };
    match name.as_str() {
        "prefix" | "suffix" => {
            let (text, ic) = match value {
                Value::Object(inner) => (parse_affix_ignore_case(name, inner)?, true),
                _ => (string(name)?.to_string(), false),
            };
            let prefix = name == "prefix";
            single(Matcher::Affix { prefix, ic, text })
        }
        "equals-ignore-case" => single(Matcher::EqIc(lower(string(name)?))),
        "wildcard" => single(Matcher::Wildcard(Wildcard::parse(string(name)?)?)),
        "exists" => match value {
            Value::Bool(b) => single(Matcher::Exists(*b)),
            _ => fail("exists match pattern must be either true or false."),
        },
        // AWS words a non-string CIDR as a prefix error (recorded: content_ip_address_type_EXC).
        "cidr" => single(parse_cidr(string("prefix")?)?),
        "numeric" => {
            let Value::Array(terms) = value else {
                return fail("Value of numeric must be an array.");
            };
            let range = parse_numeric(terms)?;
            too_many_elements(obj.len(), Matcher::Numeric(range))
        }
        "anything-but" => too_many_elements(obj.len(), parse_anything_but(value)?),
        _ => fail(format!("Unrecognized match type {name}")),
    }
}

/// Event Ruler's wording for an extra key after `numeric` or `anything-but`.
fn too_many_elements(keys: usize, m: Matcher) -> Res<Matcher> {
    if keys > 1 {
        fail("Too many elements in numeric expression")
    } else {
        Ok(m)
    }
}

/// `{"prefix": {"equals-ignore-case": "x"}}` (and suffix): returns the lower-cased operand.
fn parse_affix_ignore_case(op: &str, inner: &Map<String, Value>) -> Res<String> {
    let Some((name, value)) = inner.iter().next() else {
        let capitalised = if op == "prefix" { "Prefix" } else { "Suffix" };
        return fail(format!("{capitalised} expression name not found"));
    };
    if name != "equals-ignore-case" {
        return fail(format!("Unsupported {op} pattern: {name}"));
    }
    let Value::String(s) = value else {
        return fail("equals-ignore-case match pattern must be a string");
    };
    if inner.len() > 1 {
        return fail("Only one key allowed in match expression");
    }
    Ok(lower(s))
}

fn parse_anything_but(value: &Value) -> Res<Matcher> {
    const NOT_SCALAR: &str =
        "Value of anything-but must be an array or single string/number value.";
    let (op, operand, keys) = match value {
        Value::Object(inner) => {
            let Some((op, operand)) = inner.iter().next() else {
                return fail("Anything-But expression name not found");
            };
            if !["equals-ignore-case", "prefix", "suffix", "wildcard"].contains(&op.as_str()) {
                return fail(format!("Unsupported anything-but pattern: {op}"));
            }
            (op.as_str(), operand, inner.len())
        }
        Value::String(s) => return Ok(Matcher::AnythingBut(AnythingBut::Strings(vec![s.clone()]))),
        Value::Number(n) => return Ok(Matcher::AnythingBut(AnythingBut::Numbers(vec![num(n)]))),
        Value::Array(list) => return parse_anything_but_list(list),
        _ => return fail(NOT_SCALAR),
    };
    let items: Vec<&Value> = match operand {
        Value::Array(list) => list.iter().collect(),
        Value::String(_) | Value::Number(_) => vec![operand],
        _ => return fail(NOT_SCALAR),
    };
    let mut strings = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Value::String(s) if s.is_empty() && (op == "prefix" || op == "suffix") => {
                return fail("Null prefix/suffix not allowed");
            }
            Value::String(s) => strings.push(s.as_str()),
            _ if op == "equals-ignore-case" => {
                return fail(
                    "Inside anything-but/equals-ignore-case list, number|start|null|boolean is \
                     not supported.",
                );
            }
            _ if op == "wildcard" => return fail("wildcard match pattern must be a string"),
            _ => return fail("prefix/suffix match pattern must be a string"),
        }
    }
    let owned = || strings.iter().map(|s| s.to_string()).collect();
    let m = Matcher::AnythingBut(match op {
        "prefix" => AnythingBut::Prefix(owned()),
        "suffix" => AnythingBut::Suffix(owned()),
        "equals-ignore-case" => AnythingBut::EqIc(strings.iter().map(|s| lower(s)).collect()),
        _ => AnythingBut::Wildcard(
            strings
                .iter()
                .map(|s| Wildcard::parse(s))
                .collect::<Res<_>>()?,
        ),
    });
    too_many_elements(keys, m)
}

fn parse_anything_but_list(list: &[Value]) -> Res<Matcher> {
    let (mut strings, mut numbers) = (Vec::new(), Vec::new());
    for item in list {
        match item {
            Value::String(s) => strings.push(s.clone()),
            Value::Number(n) => numbers.push(num(n)),
            _ => return fail("Inside anything but list, start|null|boolean is not supported."),
        }
    }
    match (strings.is_empty(), numbers.is_empty()) {
        (false, true) => Ok(Matcher::AnythingBut(AnythingBut::Strings(strings))),
        (true, false) => Ok(Matcher::AnythingBut(AnythingBut::Numbers(numbers))),
        _ => fail(
            "Inside anything but list, either all values are number or string, mixed type is not \
             supported",
        ),
    }
}

/// `["=", 5]`, `[">", 0]`, `[">=", 0, "<", 10]`, `["<=", 5]`... Decision: values are not limited
/// to ±5e9 (the 2023 guide's limit; Event Ruler now takes the full double range).
fn parse_numeric(terms: &[Value]) -> Res<Range> {
    let mut it = terms.iter();
    let first = it.next();
    let Some(Value::String(op)) = first else {
        return fail(format!(
            "Invalid member in numeric match: {}",
            token_text(first)
        ));
    };
    let number = |v: Option<&Value>, what: &str| match v {
        Some(Value::Number(n)) => Ok(num(n).value),
        _ => fail(format!("Value of {what} must be numeric")),
    };
    let end = |next: Option<&Value>, r: Range| match next {
        None => Ok(r),
        Some(_) => fail("Too many elements in numeric expression"),
    };
    let range = |lo, lo_open, hi, hi_open| Range {
        lo,
        lo_open,
        hi,
        hi_open,
    };
    match op.as_str() {
        "=" => {
            let v = number(it.next(), "equals")?;
            end(it.next(), range(v, false, v, false))
        }
        "<" | "<=" => {
            let hi = number(it.next(), op)?;
            end(it.next(), range(f64::NEG_INFINITY, false, hi, op == "<"))
        }
        ">" | ">=" => {
            let lo = number(it.next(), op)?;
            let lo_open = op == ">";
            let Some(next) = it.next() else {
                return Ok(range(lo, lo_open, f64::INFINITY, false));
            };
            let Value::String(op2) = next else {
                return fail(format!(
                    "Bad value in numeric range: {}",
                    token_text(Some(next))
                ));
            };
            if op2 != "<" && op2 != "<=" {
                return fail(format!("Bad numeric range operator: {op2}"));
            }
            let hi = number(it.next(), op2)?;
            if it.next().is_some() {
                return fail("Too many terms in numeric range expression");
            }
            if lo >= hi {
                return fail("Bottom must be less than top");
            }
            Ok(range(lo, lo_open, hi, op2 == "<"))
        }
        _ => fail(format!("Unrecognized numeric range operator: {op}")),
    }
}

/// The text Jackson reports for a token (used in a few numeric messages).
fn token_text(v: Option<&Value>) -> String {
    match v {
        None => "]".into(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(_)) => "[".into(),
        Some(Value::Object(_)) => "{".into(),
        Some(other) => other.to_string(),
    }
}

fn num(n: &Number) -> Num {
    let value = n.as_f64().unwrap_or(f64::NAN);
    let int = n.as_i64().map(i128::from).or(n.as_u64().map(i128::from));
    Num { value, int }
}

/// Lower case, char by char (the same mapping the matcher applies to event values).
fn lower(s: &str) -> String {
    s.chars().flat_map(char::to_lowercase).collect()
}

impl Wildcard {
    /// `*` is any run, `\*` a literal star, `\\` a backslash. Positions in messages count the
    /// operand's UTF-8 bytes from 1, as AWS does (it counts the opening quote as 0).
    fn parse(s: &str) -> Res<Wildcard> {
        let bytes = s.as_bytes();
        let (mut parts, mut current) = (Vec::new(), Vec::new());
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'*' if bytes.get(i + 1) == Some(&b'*') => {
                    return fail(format!("Consecutive wildcard characters at pos {}", i + 1));
                }
                b'*' => parts.push(std::mem::take(&mut current)),
                b'\\' => match bytes.get(i + 1) {
                    Some(&next @ (b'*' | b'\\')) => {
                        current.push(next);
                        i += 1;
                    }
                    _ => return fail(format!("Invalid escape character at pos {}", i + 1)),
                },
                b => current.push(b),
            }
            i += 1;
        }
        parts.push(current);
        // Splits happen at ASCII bytes only, so every part is valid UTF-8.
        let parts = parts
            .into_iter()
            .map(|p| String::from_utf8_lossy(&p).into_owned());
        Ok(Wildcard {
            parts: parts.collect(),
        })
    }

    fn matches(&self, s: &str) -> bool {
        let (first, last) = (&self.parts[0], &self.parts[self.parts.len() - 1]);
        if self.parts.len() == 1 {
            return s == first;
        }
        let Some(rest) = s.strip_prefix(first.as_str()) else {
            return false;
        };
        let Some(mut middle) = rest.strip_suffix(last.as_str()) else {
            return false;
        };
        for part in &self.parts[1..self.parts.len() - 1] {
            match middle.find(part.as_str()) {
                Some(at) => middle = &middle[at + part.len()..],
                None => return false,
            }
        }
        true
    }
}

/// An IP literal the way Event Ruler recognises one: four dotted decimal groups, or hex digits
/// and colons with at least one colon. Anything else is "Nonstandard".
fn parse_ip(s: &str) -> Result<Ip, String> {
    let digits = |g: &str| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
    if s.split('.').count() == 4 && s.split('.').all(digits) {
        let mut addr = 0u128;
        for g in s.split('.') {
            match g.parse::<u8>() {
                Ok(octet) => addr = addr << 8 | u128::from(octet),
                Err(_) => return Err(format!("Invalid IP address: {s}")),
            }
        }
        return Ok(Ip { v6: false, addr });
    }
    if s.contains(':') && s.bytes().all(|b| b.is_ascii_hexdigit() || b == b':') {
        return match s.parse::<std::net::Ipv6Addr>() {
            Ok(a) => Ok(Ip {
                v6: true,
                addr: u128::from(a),
            }),
            Err(_) => Err(format!("Invalid IP address: {s}")),
        };
    }
    Err(format!("Nonstandard IP address: {s}"))
}

/// `"10.0.0.0/24"`: the range runs from the address as written to its last host address.
fn parse_cidr(s: &str) -> Res<Matcher> {
    let mut parts: Vec<&str> = s.split('/').collect();
    while parts.last() == Some(&"") {
        parts.pop(); // Java's split drops trailing empty strings.
    }
    let [ip, mask] = parts[..] else {
        return fail("Malformed CIDR, one '/' required");
    };
    let Ok(mask) = mask.parse::<i32>() else {
        return fail("Malformed CIDR, mask bits must be an integer");
    };
    if mask < 0 {
        return fail("Malformed CIDR, mask bits must not be negative");
    }
    let ip = parse_ip(ip).map_err(PatternError::new)?;
    let bits = if ip.v6 { 128 } else { 32 };
    if mask >= bits {
        let family = if ip.v6 { "IPv6" } else { "IPv4" };
        return fail(format!("{family} mask bits must be < {bits}"));
    }
    let host_bits = (bits - mask) as u32;
    let host_mask = if ip.v6 {
        u128::MAX >> (128 - host_bits)
    } else {
        u128::from(u32::MAX >> (32 - host_bits))
    };
    Ok(Matcher::Cidr {
        v6: ip.v6,
        lo: ip.addr,
        hi: ip.addr | host_mask,
    })
}

/// Jackson-like wording for text that is not JSON (AWS returns Jackson's parser messages, e.g.
/// "Unrecognized token 'this': was expecting (JSON String, Number, Array, Object or token
/// 'null', 'true' or 'false')", recorded by LocalStack).
fn json_error_reason(text: &str, e: &serde_json::Error) -> String {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum();
    let at = (line_start + e.column().saturating_sub(1)).min(text.len());
    let at = (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    if e.is_eof() || at >= text.len() {
        return "Unexpected end-of-input".into();
    }
    let start = text[..at]
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()
        .map_or(at, |(i, _)| i);
    let word: String = text[start..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if word.starts_with(|c: char| c.is_alphabetic()) {
        return format!(
            "Unrecognized token '{word}': was expecting (JSON String, Number, Array, Object or \
             token 'null', 'true' or 'false')"
        );
    }
    let c = text[at..].chars().next().unwrap_or(' ');
    let detail = e.to_string();
    let expecting = if detail.starts_with("key must be a string") {
        "was expecting double-quote to start field name"
    } else if detail.starts_with("expected `:`") {
        "was expecting a colon to separate field name and value"
    } else if detail.starts_with("expected `,` or `}`") {
        "was expecting comma to separate Object entries"
    } else if detail.starts_with("expected `,` or `]`") {
        "was expecting comma to separate Array entries"
    } else {
        "expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or \
         'false')"
    };
    format!(
        "Unexpected character ('{c}' (code {})): {expecting}",
        c as u32
    )
}

// ---------------------------------------------------------------------------------------------
// Limits checked once the whole pattern is valid.

impl ObjNode {
    /// The number of AND-combinations the `$or`s expand to (products of branch counts).
    fn combinations(&self) -> u64 {
        let mut n: u64 = 1;
        for (_, child) in &self.fields {
            if let Node::Obj(o) = child {
                n = n.saturating_mul(o.combinations());
            }
        }
        for group in &self.ors {
            let sum = group
                .iter()
                .fold(0u64, |acc, b| acc.saturating_add(b.combinations()));
            n = n.saturating_mul(sum);
        }
        n
    }

    fn check_complexity(&self) -> Res<()> {
        for (_, child) in &self.fields {
            match child {
                Node::Obj(o) => o.check_complexity()?,
                Node::Leaf(matchers) => {
                    let wildcards: Vec<&Wildcard> = matchers
                        .iter()
                        .flat_map(|m| match m {
                            Matcher::Wildcard(w) => std::slice::from_ref(w),
                            Matcher::AnythingBut(AnythingBut::Wildcard(ws)) => ws.as_slice(),
                            _ => &[],
                        })
                        .collect();
                    if !wildcards.is_empty()
                        && wildcard_complexity(&wildcards) > MAX_WILDCARD_COMPLEXITY
                    {
                        return fail(TOO_COMPLEX);
                    }
                }
            }
        }
        self.ors
            .iter()
            .flatten()
            .try_for_each(ObjNode::check_complexity)
    }
}

/// Decision (AWS publishes no formula): an estimate of Event Ruler's "complexity", the number of
/// wildcard-pattern prefixes a worst-case value keeps alive at once. The operands of one field
/// (quoted, as Event Ruler sees them) become one automaton; all reachable sets of simultaneously
/// active states are explored and the largest is scored: each state counts 1, and a state that
/// was just entered by a literal byte and sits before a `*` counts 2 (it opens a new run).
/// Several wildcard operands on one field add up, as in Event Ruler's evaluator.
fn wildcard_complexity(wildcards: &[&Wildcard]) -> usize {
    #[derive(Clone, Copy, PartialEq)]
    enum Tok {
        Lit(u8),
        Star,
    }
    let patterns: Vec<Vec<Tok>> = wildcards
        .iter()
        .map(|w| {
            let mut toks = vec![Tok::Lit(b'"')];
            for (i, part) in w.parts.iter().enumerate() {
                if i > 0 {
                    toks.push(Tok::Star);
                }
                toks.extend(part.bytes().map(Tok::Lit));
            }
            toks.push(Tok::Lit(b'"'));
            toks
        })
        .collect();
    let mut alphabet: Vec<u8> = patterns
        .iter()
        .flatten()
        .filter_map(|t| match t {
            Tok::Lit(b) => Some(*b),
            Tok::Star => None,
        })
        .collect();
    alphabet.sort_unstable();
    alphabet.dedup();
    if let Some(other) = (0..=255u8).find(|b| alphabet.binary_search(b).is_err()) {
        alphabet.push(other); // one byte standing for all bytes no operand names
    }
    // A state: (pattern, position of the next token, entered by a star's loop).
    type State = (usize, usize, bool);
    let weight = |&(p, pos, looped): &State| {
        1 + usize::from(!looped && patterns[p].get(pos) == Some(&Tok::Star))
    };
    let start: Vec<State> = (0..patterns.len()).map(|p| (p, 0, false)).collect();
    let mut seen: HashSet<Vec<State>> = HashSet::from([start.clone()]);
    let mut queue = VecDeque::from([start]);
    let mut worst = 0;
    while let Some(set) = queue.pop_front() {
        for &byte in &alphabet {
            let mut next: Vec<State> = Vec::new();
            for &(p, pos, _) in &set {
                let toks = &patterns[p];
                match toks.get(pos) {
                    Some(Tok::Star) => {
                        next.push((p, pos, true));
                        if toks.get(pos + 1) == Some(&Tok::Lit(byte)) {
                            next.push((p, pos + 2, false));
                        }
                    }
                    Some(Tok::Lit(b)) if *b == byte => next.push((p, pos + 1, false)),
                    _ => {}
                }
            }
            next.sort_unstable_by_key(|&(p, pos, looped)| (p, pos, looped));
            next.dedup();
            worst = worst.max(next.iter().map(weight).sum());
            if worst > MAX_WILDCARD_COMPLEXITY {
                return worst;
            }
            if !next.is_empty() && seen.len() < MAX_COMPLEXITY_SETS && seen.insert(next.clone()) {
                queue.push_back(next);
            }
        }
    }
    worst
}

// ---------------------------------------------------------------------------------------------
// Matching. Only the fields a pattern names are looked at.

impl ObjNode {
    /// `obj` is the event object at this node's path, `None` when the path is missing or does
    /// not lead to an object.
    fn matches(&self, obj: Option<&Map<String, Value>>) -> bool {
        self.fields.iter().all(|(key, node)| match node {
            Node::Leaf(matchers) => leaf_matches(matchers, obj, key),
            Node::Obj(child) => child_matches(child, obj, key),
        }) && self
            .ors
            .iter()
            .all(|group| group.iter().any(|b| b.matches(obj)))
    }
}

fn child_matches(child: &ObjNode, parent: Option<&Map<String, Value>>, key: &str) -> bool {
    let mut saw_object = false;
    let matched = parent.is_some_and(|p| {
        lookup(p, key, &mut |v| {
            objects(v, &mut |o| {
                saw_object = true;
                child.matches(Some(o))
            })
        })
    });
    matched || (!saw_object && child.matches(None))
}

fn leaf_matches(matchers: &[Matcher], parent: Option<&Map<String, Value>>, key: &str) -> bool {
    matchers.iter().any(|m| {
        let Some(p) = parent else {
            return matches!(m, Matcher::Exists(false));
        };
        match m {
            Matcher::Exists(want) => lookup(p, key, &mut |v| leaves(v, &mut |_| true)) == *want,
            _ => lookup(p, key, &mut |v| leaves(v, &mut |x| m.test(x))),
        }
    })
}

/// Calls `f` on each value found at `key` in `obj`, the key read as a dot-joined path too;
/// stops at the first `true`.
fn lookup(obj: &Map<String, Value>, key: &str, f: &mut dyn FnMut(&Value) -> bool) -> bool {
    if obj.get(key).is_some_and(&mut *f) {
        return true;
    }
    key.match_indices('.').any(|(i, _)| {
        let rest = &key[i + 1..];
        obj.get(&key[..i])
            .is_some_and(|v| objects(v, &mut |o| lookup(o, rest, &mut *f)))
    })
}

/// Calls `f` on `v` if it is an object, or on each object in it if it is an array.
fn objects(v: &Value, f: &mut dyn FnMut(&Map<String, Value>) -> bool) -> bool {
    match v {
        Value::Object(o) => f(o),
        Value::Array(items) => items.iter().any(|i| objects(i, f)),
        _ => false,
    }
}

/// Calls `f` on each leaf (non-object) value in `v`, arrays flattened.
fn leaves(v: &Value, f: &mut dyn FnMut(&Value) -> bool) -> bool {
    match v {
        Value::Object(_) => false,
        Value::Array(items) => items.iter().any(|i| leaves(i, f)),
        _ => f(v),
    }
}

impl Matcher {
    fn test(&self, v: &Value) -> bool {
        let s = v.as_str();
        match self {
            Matcher::Exact(want, ip) => {
                s.is_some_and(|s| s == want || ip.is_some_and(|ip| parse_ip(s).ok() == Some(ip)))
            }
            Matcher::Number(n) => num_eq(n, v),
            Matcher::Bool(b) => v.as_bool() == Some(*b),
            Matcher::Null => v.is_null(),
            Matcher::Affix { prefix, ic, text } => s.is_some_and(|s| match (prefix, ic) {
                (true, false) => s.starts_with(text.as_str()),
                (false, false) => s.ends_with(text.as_str()),
                (true, true) => starts_with_ic(s, text),
                (false, true) => ends_with_ic(s, text),
            }),
            Matcher::EqIc(p) => s.is_some_and(|s| eq_ic(s, p)),
            Matcher::Wildcard(w) => s.is_some_and(|s| w.matches(s)),
            Matcher::Numeric(r) => v.as_f64().is_some_and(|x| r.contains(x)),
            Matcher::Exists(_) => true,
            Matcher::Cidr { v6, lo, hi } => s.is_some_and(|s| {
                parse_ip(s).is_ok_and(|ip| ip.v6 == *v6 && (*lo..=*hi).contains(&ip.addr))
            }),
            Matcher::AnythingBut(ab) => !ab.excludes(v),
        }
    }
}

impl AnythingBut {
    fn excludes(&self, v: &Value) -> bool {
        let s = v.as_str();
        match self {
            AnythingBut::Strings(list) => s.is_some_and(|s| list.iter().any(|x| x == s)),
            AnythingBut::Numbers(list) => list.iter().any(|n| num_eq(n, v)),
            AnythingBut::Prefix(list) => {
                s.is_some_and(|s| list.iter().any(|p| s.starts_with(p.as_str())))
            }
            AnythingBut::Suffix(list) => {
                s.is_some_and(|s| list.iter().any(|p| s.ends_with(p.as_str())))
            }
            AnythingBut::EqIc(list) => s.is_some_and(|s| list.iter().any(|p| eq_ic(s, p))),
            AnythingBut::Wildcard(list) => s.is_some_and(|s| list.iter().any(|w| w.matches(s))),
        }
    }
}

impl Range {
    fn contains(&self, x: f64) -> bool {
        let above = x > self.lo || (!self.lo_open && x == self.lo);
        above && (x < self.hi || (!self.hi_open && x == self.hi))
    }
}

/// Numbers compare by value: exactly when both are integers, as doubles otherwise.
fn num_eq(n: &Num, v: &Value) -> bool {
    let Value::Number(e) = v else {
        return false;
    };
    match (n.int, num(e).int) {
        (Some(a), Some(b)) => a == b,
        _ => e.as_f64() == Some(n.value),
    }
}

fn eq_ic(s: &str, lower: &str) -> bool {
    s.chars().flat_map(char::to_lowercase).eq(lower.chars())
}

fn starts_with_ic(s: &str, lower: &str) -> bool {
    let mut it = s.chars().flat_map(char::to_lowercase);
    lower.chars().all(|c| it.next() == Some(c))
}

fn ends_with_ic(s: &str, lower: &str) -> bool {
    let mut it = s.chars().rev().flat_map(|c| c.to_lowercase().rev());
    lower.chars().rev().all(|c| it.next() == Some(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One case a line: `+` (matches) or `-` (does not), the pattern, the event. Sources: AWS
    /// docs and LocalStack's AWS-recorded templates (names in comments), Event Ruler's README.
    const MATCH_CASES: &str = r#"
+ {"source":["aws.ec2"]} {"source":"aws.ec2","detail":{}}
- {"source":["aws.ec2"]} {"source":"aws.EC2"}
+ {"source":["a","b"]} {"source":"b"}
- {"source":["a"]} {"detail-type":"a"}
+ {"source":["a"],"detail-type":["t"]} {"source":"a","detail-type":"t"}
+ {"detail":{"state":["running"]}} {"detail":{"state":"running","other":1}}
- {"detail":{"state":["running"]}} {"detail":{"status":"running"}}
- {"detail":{"my-key":["my-value"]}} {"detail":"{\"my-key\": \"my-value\"}"}
- {"Source":["a"]} {"source":"a"}
# arrays, arrays_NEG, arrays_empty_null_NEG, list_within_dict
+ {"resources":["r2","r9"]} {"resources":["r1","r2"]}
- {"resources":["r3"]} {"resources":["r1","r2"]}
- {"resources":[null]} {"resources":[]}
+ {"a":[1]} {"a":[[0,1],[2]]}
+ {"detail":{"automations":{"id":[{"exists":true}]}}} {"detail":{"automations":[{"k":"v"},{"id":"x"}]}}
+ {"a":{"b":["1"]}} {"a":[{"b":"0"},{"b":"1"}]}
- {"a":{"b":["1"],"c":["2"]}} {"a":[{"b":"1","c":"3"},{"b":"4","c":"2"}]}
+ {"a":{"b":["1"],"c":["2"]}} {"a":[{"b":"1","c":"3"},{"b":"1","c":"2"}]}
# values: numbers by value (number_comparison_float), strings never equal numbers, null and ""
+ {"n":[5]} {"n":5}
+ {"n":[300]} {"n":300.0}
+ {"n":[3.0e2]} {"n":300}
- {"n":[5]} {"n":"5"}
- {"n":["5"]} {"n":5}
- {"n":[9007199254740993]} {"n":9007199254740992}
+ {"b":[false]} {"b":false}
- {"b":[false]} {"b":"false"}
+ {"x":[null]} {"x":null}
- {"x":[null]} {}
- {"x":[null]} {"x":""}
+ {"x":[""]} {"x":""}
# prefix, suffix, equals-ignore-case (content_ignorecase_empty, _NEG)
+ {"time":[{"prefix":"2017-10-02"}]} {"time":"2017-10-02T18:43:48Z"}
- {"time":[{"prefix":"2017-10-02"}]} {"time":"2017-10-03"}
- {"n":[{"prefix":"1"}]} {"n":12}
+ {"s":[{"prefix":""}]} {"s":"anything"}
- {"s":[{"prefix":""}]} {"s":5}
+ {"f":[{"suffix":".png"}]} {"f":"a.png"}
- {"f":[{"suffix":".png"}]} {"f":"a.PNG"}
+ {"s":[{"prefix":{"equals-ignore-case":"EventB"}}]} {"s":"eventbridge"}
- {"s":[{"prefix":{"equals-ignore-case":"EventB"}}]} {"s":"xeventb"}
+ {"s":[{"suffix":{"equals-ignore-case":".PNG"}}]} {"s":"x.png"}
+ {"n":[{"equals-ignore-case":"alice"}]} {"n":"ALICE"}
+ {"n":[{"equals-ignore-case":""}]} {"n":""}
- {"n":[{"equals-ignore-case":""}]} {"n":"test-value"}
+ {"n":[{"equals-ignore-case":"ÉTÉ"}]} {"n":"été"}
# wildcard (content_wildcard_*)
+ {"f":[{"wildcard":"/Users/*/doc.txt"}]} {"f":"/Users/ls/dir/doc.txt"}
+ {"f":[{"wildcard":"/Users/*/dir/dir/dir/dir/dir/doc.txt"}]} {"f":"/Users/u/dir/dir/dir/dir/dir/doc.txt"}
+ {"a":[{"wildcard":"arn:aws:events:us-east-1:*:event-bus/*"}]} {"a":"arn:aws:events:us-east-1:1:event-bus/b"}
- {"a":[{"wildcard":"arn:aws:events:us-east-1:*:event-bus/*"}]} {"a":"arn:aws:events:us-west-2:1:event-bus/b"}
+ {"s":[{"wildcard":"Simple*Service"}]} {"s":"SimpleService"}
- {"s":[{"wildcard":"Simple*Service"}]} {"s":"SimpleServiceX"}
+ {"s":[{"wildcard":"*"}]} {"s":""}
- {"s":[{"wildcard":"*"}]} {"s":1}
+ {"s":[{"wildcard":"a\\*b"}]} {"s":"a*b"}
- {"s":[{"wildcard":"a\\*b"}]} {"s":"axb"}
+ {"s":[{"wildcard":"a\\\\*"}]} {"s":"a\\zz"}
+ {"s":[{"wildcard":"ab*ab"}]} {"s":"abab"}
- {"s":[{"wildcard":"ab*ab"}]} {"s":"aba"}
# anything-but (content_anything_*, or-numeric-anything-but, the recorded null case)
+ {"s":[{"anything-but":"initializing"}]} {"s":"running"}
- {"s":[{"anything-but":"initializing"}]} {"s":"initializing"}
+ {"s":[{"anything-but":"initializing"}]} {"s":null}
- {"s":[{"anything-but":"initializing"}]} {}
+ {"x":[{"anything-but":0}]} {"x":789}
- {"x":[{"anything-but":123}]} {"x":123}
+ {"x":[{"anything-but":123}]} {"x":"123"}
- {"x":[{"anything-but":[100,200,300]}]} {"x":100.0}
- {"s":[{"anything-but":["stopped","overloaded"]}]} {"s":"stopped"}
- {"s":[{"anything-but":{"prefix":"init"}}]} {"s":"initializing"}
+ {"s":[{"anything-but":{"prefix":"init"}}]} {"s":12}
- {"s":[{"anything-but":{"prefix":"init"}}]} {}
+ {"s":[{"anything-but":{"prefix":["init","test"]}}]} {"s":null}
- {"s":[{"anything-but":{"prefix":["init","test"]}}]} {"s":"testing"}
- {"f":[{"anything-but":{"suffix":[".png",".txt"]}}]} {"f":"a.txt"}
- {"s":[{"anything-but":{"equals-ignore-case":"Init"}}]} {"s":"INIT"}
+ {"s":[{"anything-but":{"equals-ignore-case":["a","b"]}}]} {"s":"c"}
- {"s":[{"anything-but":{"equals-ignore-case":["a","b"]}}]} {"s":"B"}
- {"p":[{"anything-but":{"wildcard":"*/lib/*"}}]} {"p":"/usr/lib/x"}
+ {"p":[{"anything-but":{"wildcard":["*/lib/*","*/dir/*"]}}]} {"p":123}
+ {"p":[{"anything-but":{"wildcard":""}}]} {"p":"dir/init/file"}
+ {"N":[{"numeric":[">",100]},{"anything-but":"101"}]} {"N":"42"}
- {"N":[{"numeric":[">",100]},{"anything-but":"101"}]} {"N":"101"}
+ {"s":[{"anything-but":"a"}]} {"s":["a","b"]}
- {"s":[{"anything-but":"a"}]} {"s":{"x":1}}
# numeric (content_numeric_*, numeric-int-float, numeric-null_NEG, numeric-string_NEG)
+ {"c":[{"numeric":[">",0,"<=",5]}]} {"c":5}
- {"c":[{"numeric":[">",0,"<=",5]}]} {"c":0}
- {"c":[{"numeric":[">",0,"<",5]}]} {"c":5}
+ {"c":[{"numeric":[">=",0,"<",5]}]} {"c":0}
+ {"d":[{"numeric":["<",10]}]} {"d":-3.5}
+ {"x":[{"numeric":["=",3.018e2]}]} {"x":301.8}
- {"x":[{"numeric":[">",100]}]} {"x":null}
- {"x":[{"numeric":[">",100]}]} {"x":"300"}
+ {"x":[{"numeric":[">",100]}]} {"x":101.0}
+ {"x":[{"numeric":[">=",1e10]}]} {"x":2e10}
+ {"x":[{"numeric":[">",1]}]} {"x":[0,2]}
# exists (content_exists*, exists_dynamodb_NEG, exists_list_empty_NEG, or-exists*, or-anything-but)
+ {"d":{"k":[{"exists":true}]}} {"d":{"k":"v"}}
- {"d":{"k":[{"exists":true}]}} {"d":{"nk":"v"}}
+ {"d":{"k":[{"exists":true}]}} {"d":{"k":null}}
- {"d":{"k":[{"exists":true}]}} {"d":{"k":{"S":"x"}}}
+ {"d":{"k":[{"exists":false}]}} {"d":{"nk":"v"}}
- {"d":{"k":[{"exists":false}]}} {"d":{"k":"v"}}
+ {"d":{"k":[{"exists":false}]}} {"d":{"k":{"c1":100}}}
+ {"d":{"k":[{"exists":false}]}} {}
- {"resources":[{"exists":true}]} {"resources":[]}
+ {"resources":[{"exists":false}]} {"resources":[]}
- {"d":{"l1":{"l2":{"l3":[{"exists":false}]}}}} {"d":{"l1":{"l2":{"l3":"v"}}}}
+ {"h":{"S":[{"anything-but":["roses"]},{"exists":false}]}} {"h":{"N":"789"}}
+ {"d":{"h":{"S":[{"anything-but":["roses"]},{"exists":false}]}}} {"d":{"p":{"N":"1"}}}
+ {"h":{"S":[{"anything-but":["roses"]},{"exists":false}]}} {"h":{"S":"ABCD"}}
- {"h":{"S":[{"anything-but":["roses"]},{"exists":false}]}} {"h":{"S":"roses"}}
+ {"k":[{"exists":true},{"prefix":"IGNORED"},{"suffix":"IGNORED"}]} {"k":"my-value"}
# cidr (content_ip_address*), IP literals
+ {"ip":[{"cidr":"10.0.0.0/24"}]} {"ip":"10.0.0.255"}
- {"ip":[{"cidr":"10.0.0.0/24"}]} {"ip":"10.0.1.0"}
- {"ip":[{"cidr":"10.0.0.0/24"}]} {"ip":123}
+ {"ip":[{"cidr":"2001:db8::/32"}]} {"ip":"2001:0db8:ffff::1"}
- {"ip":[{"cidr":"2001:db8::/32"}]} {"ip":"2001:db9::1"}
- {"ip":[{"cidr":"0.0.0.0/1"}]} {"ip":"::1"}
+ {"ip":["2001:db8::1"]} {"ip":"2001:0db8:0:0:0:0:0:1"}
# $or (complex_or*), legacy "$or" fields
+ {"source":["a"],"$or":[{"m":["x"]},{"n":["y"]}]} {"source":"a","n":"y"}
- {"source":["a"],"$or":[{"m":["x"]},{"n":["y"]}]} {"source":"a","n":"z"}
+ {"detail":{"$or":[{"c":[{"numeric":[">",0]}]},{"d":[{"numeric":["<",10]}]}]}} {"detail":{"d":3}}
+ {"$or":[{"a":["1"]},{"b":["2"],"$or":[{"c":["3"]},{"d":["4"]}]}]} {"b":"2","d":"4"}
- {"$or":[{"a":["1"]},{"b":["2"],"$or":[{"c":["3"]},{"d":["4"]}]}]} {"b":"2","d":"5"}
+ {"$or":{"a":["1"]}} {"$or":{"a":"1"}}
+ {"$or":["x"]} {"$or":"x"}
# dots join keys (dot_joining_pattern, dot_joining_*_NEG)
+ {"detail":{"state.status":["running"]}} {"detail":{"state":{"status":"running"}}}
+ {"detail":{"state.status":["running"]}} {"detail":{"state.status":"running"}}
- {"detail":{"state.status":{"status":["running"]}}} {"detail":{"state":{"status":"running"}}}
- {"detail":{"state":{"status":["running"]}}} {"detail":{"state.status":{"status":"running"}}}
# duplicate keys: the last wins (complex_multi_key)
+ {"d":{"loc":[{"prefix":"us-"}],"loc":[{"anything-but":"us-east"}]}} {"d":{"loc":"eu-west"}}
- {"d":{"loc":[{"prefix":"us-"}],"loc":[{"anything-but":"us-east"}]}} {"d":{"loc":"us-east"}}
+ {"a":["x"],"a":["y"]} {"a":"y"}
- {"a":["x"],"a":["y"]} {"a":"x"}
# events that are not objects
- {"a":[{"exists":true}]} [1]
+ {"a":[{"exists":false}]} "text"
"#;

    /// One case a line: the pattern, then the reason AWS gives (Event Ruler's where AWS's was
    /// not recorded).
    const ERROR_CASES: &str = r#"
{"resources":[]} Empty arrays are not allowed
{"detail":{}} Empty objects are not allowed
{} Empty objects are not allowed
{"int":42} "int" must be an object or an array
{"string":"my-value"} "string" must be an object or an array
{"a":[["x"]]} Match value must be String, number, true, false, or null
{"a":[{}]} Match expression name not found
{"my_key":[{"EXISTS":true}]} Unrecognized match type EXISTS
{"detail":{"equal":[{"NUMERIC":["=",5]}]}} Unrecognized match type NUMERIC
{"time":[{"prefix":["2022-07-13"]}]} prefix match pattern must be a string
{"f":[{"suffix":123}]} suffix match pattern must be a string
{"d":[{"equals-ignore-case":["x"]}]} equals-ignore-case match pattern must be a string
{"d":[{"equals-ignore-case":{"prefix":"ec2"}}]} equals-ignore-case match pattern must be a string
{"e":[{"wildcard":123}]} wildcard match pattern must be a string
{"e":[{"wildcard":"arn:aws:events:us-east-1:**:event-bus/*"}]} Consecutive wildcard characters at pos 26
{"e":[{"wildcard":"a\\b"}]} Invalid escape character at pos 2
{"e":[{"wildcard":"*:*:*:*:*:event-bus/*"}]} Rule is too complex - try using fewer wildcard characters or fewer repeating character sequences after a wildcard character
{"s":[{"prefix":{"equals-ignore-case":5}}]} equals-ignore-case match pattern must be a string
{"s":[{"prefix":{"foo":"x"}}]} Unsupported prefix pattern: foo
{"s":[{"suffix":{}}]} Suffix expression name not found
{"s":[{"prefix":"a","suffix":"b"}]} Only one key allowed in match expression
{"s":[{"anything-but":null}]} Value of anything-but must be an array or single string/number value.
{"s":[{"anything-but":["a",null]}]} Inside anything but list, start|null|boolean is not supported.
{"s":[{"anything-but":[{"prefix":"a"}]}]} Inside anything but list, start|null|boolean is not supported.
{"s":[{"anything-but":["a",1]}]} Inside anything but list, either all values are number or string, mixed type is not supported
{"s":[{"anything-but":[]}]} Inside anything but list, either all values are number or string, mixed type is not supported
{"s":[{"anything-but":{"equals-ignore-case":123}}]} Inside anything-but/equals-ignore-case list, number|start|null|boolean is not supported.
{"s":[{"anything-but":{"prefix":123}}]} prefix/suffix match pattern must be a string
{"s":[{"anything-but":{"prefix":[123,"test"]}}]} prefix/suffix match pattern must be a string
{"s":[{"anything-but":{"prefix":""}}]} Null prefix/suffix not allowed
{"s":[{"anything-but":{"suffix":["a",""]}}]} Null prefix/suffix not allowed
{"s":[{"anything-but":{"wildcard":123}}]} wildcard match pattern must be a string
{"s":[{"anything-but":{"wildcard":"a**"}}]} Consecutive wildcard characters at pos 2
{"s":[{"anything-but":{"prefix":{"equals-ignore-case":"file"}}}]} Value of anything-but must be an array or single string/number value.
{"s":[{"anything-but":{"regex":"x"}}]} Unsupported anything-but pattern: regex
{"s":[{"anything-but":{}}]} Anything-But expression name not found
{"s":[{"anything-but":"a","prefix":"b"}]} Too many elements in numeric expression
{"c":[{"numeric":5}]} Value of numeric must be an array.
{"c":[{"numeric":[">",0,">",0]}]} Bad numeric range operator: >
{"c":[{"numeric":[">",0,"<"]}]} Value of < must be numeric
{"c":[{"numeric":["=","5"]}]} Value of equals must be numeric
{"c":[{"numeric":["!=",5]}]} Unrecognized numeric range operator: !=
{"c":[{"numeric":[5]}]} Invalid member in numeric match: 5
{"c":[{"numeric":[]}]} Invalid member in numeric match: ]
{"c":[{"numeric":[">",5,"<",1]}]} Bottom must be less than top
{"c":[{"numeric":[">",5,5]}]} Bad value in numeric range: 5
{"c":[{"numeric":["<",5,">",1]}]} Too many elements in numeric expression
{"c":[{"numeric":[">",0,"<",5,6]}]} Too many terms in numeric range expression
{"c":[{"exists":"yes"}]} exists match pattern must be either true or false.
{"ip":[{"cidr":"10.0.0.0"}]} Malformed CIDR, one '/' required
{"ip":[{"cidr":"10.0.0.0/abc"}]} Malformed CIDR, mask bits must be an integer
{"ip":[{"cidr":"10.0.0.0/-1"}]} Malformed CIDR, mask bits must not be negative
{"ip":[{"cidr":"xx.11.xx/24"}]} Nonstandard IP address: xx.11.xx
{"ip":[{"cidr":"xxxx:db8:1234:1a00::/64"}]} Nonstandard IP address: xxxx:db8:1234:1a00::
{"ip":[{"cidr":"999.0.0.0/8"}]} Invalid IP address: 999.0.0.0
{"ip":[{"cidr":["bad-type"]}]} prefix match pattern must be a string
{"$or":[{"prefix":"a"},{"b":["2"]}]} Unrecognized match type b
{"$or":[{"a":["1"]},{"b":[]}]} Empty arrays are not allowed
{"$or":[{"a":["1"]},{}]} Empty objects are not allowed
["not","a","dict"] Filter is not an object
"#;

    /// Splits `<json> <rest>` where the first JSON value's text is kept as written.
    fn split_json(line: &str) -> (&str, &str) {
        let mut stream = serde_json::Deserializer::from_str(line).into_iter::<Value>();
        stream.next().expect("a JSON value").expect("valid JSON");
        let end = stream.byte_offset();
        (&line[..end], line[end..].trim())
    }

    #[test]
    fn match_table() {
        let mut count = 0;
        for line in MATCH_CASES
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let (expected, rest) = line.split_at(1);
            let (pattern, event) = split_json(rest.trim());
            let compiled = EventPattern::parse(pattern)
                .unwrap_or_else(|e| panic!("{pattern}: {}", e.message()));
            let event: Value = serde_json::from_str(event).expect(event);
            assert_eq!(compiled.matches(&event), expected == "+", "{line}");
            count += 1;
        }
        assert!(count >= 80, "{count} cases");
    }

    #[test]
    fn error_table() {
        let mut count = 0;
        for line in ERROR_CASES.lines().filter(|l| !l.is_empty()) {
            let (pattern, reason) = split_json(line);
            let err = EventPattern::parse(pattern).expect_err(line);
            assert_eq!(err.reason, reason, "{pattern}");
            count += 1;
        }
        assert!(count >= 30, "{count} cases");
    }

    #[test]
    fn text_that_is_not_json() {
        let expecting = "was expecting (JSON String, Number, Array, Object or token 'null', \
                         'true' or 'false')";
        let cases = [
            (
                "this is valid json but not a dict",
                format!("Unrecognized token 'this': {expecting}"),
            ),
            (
                "{\"not\": closed mark\"",
                format!("Unrecognized token 'closed': {expecting}"),
            ),
            (
                "{'bad': 'quotation'}",
                "Unexpected character (''' (code 39)): was expecting double-quote to start \
                 field name"
                    .to_string(),
            ),
            ("{\"a\": [", "Unexpected end-of-input".to_string()),
            ("\"x\"", "Filter is not an object".to_string()),
        ];
        for (text, reason) in cases {
            assert_eq!(
                EventPattern::parse(text).unwrap_err().reason,
                reason,
                "{text}"
            );
        }
    }

    #[test]
    fn message_wraps_the_reason() {
        let err = EventPattern::parse(r#"{"a":[]}"#).unwrap_err();
        assert_eq!(
            err.message(),
            "Event pattern is not valid. Reason: Empty arrays are not allowed"
        );
        assert_eq!(err.to_string(), err.message());
    }

    #[test]
    fn wildcard_complexity_scores() {
        let score = |ops: &[&str]| {
            let ws: Vec<Wildcard> = ops.iter().map(|o| Wildcard::parse(o).unwrap()).collect();
            wildcard_complexity(&ws.iter().collect::<Vec<_>>())
        };
        assert!(score(&["*:*:*:*:*:event-bus/*"]) > MAX_WILDCARD_COMPLEXITY); // AWS: too complex
        assert_eq!(score(&["/Users/*/dir/dir/dir/dir/dir/doc.txt"]), 7); // AWS: accepted
        assert_eq!(score(&["arn:aws:events:us-east-1:*:event-bus/*"]), 4);
        assert_eq!(score(&["plain"]), 1);
        let long = "a*".repeat(2000);
        assert!(score(&[long.as_str()]) > MAX_WILDCARD_COMPLEXITY);
    }

    #[test]
    fn or_combinations_are_limited() {
        let group = |i: usize, n: usize| {
            let branches: Vec<String> = (0..n).map(|j| format!(r#"{{"f{i}":["{j}"]}}"#)).collect();
            format!(r#""k{i}":{{"$or":[{}]}}"#, branches.join(","))
        };
        let pattern = |groups: usize, n: usize| {
            let parts: Vec<String> = (0..groups).map(|i| group(i, n)).collect();
            format!("{{{}}}", parts.join(","))
        };
        assert!(EventPattern::parse(&pattern(3, 10)).is_ok()); // 1000 combinations
        let err = EventPattern::parse(&pattern(10, 2)).unwrap_err(); // 1024
        assert!(
            err.reason.starts_with("Rule is too complex"),
            "{}",
            err.reason
        );
    }
}
