//! SNS subscription filter policies: parsing and validation (with AWS's messages) and matching of
//! message attributes or message bodies. Pure and synchronous; knows nothing of subscriptions or wire.
//!
//! Facts: the SNS developer guide pages on filter policies.
//! SNS validates policies with AWS's event-ruler, whose messages it passes on; texts marked
//! "proposal" were not observed from SNS and follow event-ruler's wording. The Jackson location
//! suffix AWS appends to many messages ("\n at [Source: ...]") is not reproduced.
use crate::services::match_index::Needs;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::net::IpAddr;

const MAX_KEYS: usize = 5;
const MAX_COMBINATIONS: u64 = 150;
const MAX_POLICY_BYTES: usize = 256 * 1024;
/// Numbers are compared in -10^9..=10^9 with five digits after the decimal point.
const NUMBER_LIMIT: f64 = 1e9;
const NUMBER_SCALE: f64 = 1e5;
/// Bodies are walked no deeper than this (serde_json's own parser stops at 128).
const MAX_BODY_DEPTH: usize = 256;
/// Match-type names: an `$or` branch with one of these as a key makes `$or` an ordinary key.
const RESERVED: [&str; 9] = [
    "prefix",
    "suffix",
    "anything-but",
    "numeric",
    "exists",
    "cidr",
    "equals-ignore-case",
    "wildcard",
    "exactly",
];

/// The one message AWS reports without the "FilterPolicy: " part: the caller renders it as
/// "Invalid parameter: " followed by this text.
pub const NESTED_IN_ATTRIBUTE_SCOPE: &str =
    "Filter policy scope MessageAttributes does not support nested filter policy";

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FilterScope {
    MessageAttributes,
    MessageBody,
}

/// A validated policy in disjunctive form: it accepts a message if any alternative's fields all
/// match (`$or` branches multiply out into alternatives).
#[derive(Debug, Clone, PartialEq)]
pub struct FilterPolicy {
    scope: FilterScope,
    alternatives: Vec<Vec<Field>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterError {
    /// InvalidParameter: "Invalid parameter: FilterPolicy: <this text>"
    Invalid(String),
    /// FilterPolicyLimitExceeded. Only the 256 KB size limit here: AWS answers too many keys and
    /// too many combinations with InvalidParameter (docs/sns.md, "Filter policies").
    Limit(String),
}

/// One policy key (a dotted path for nested body policies) and its OR-ed conditions.
#[derive(Debug, Clone, PartialEq)]
struct Field {
    path: Vec<String>,
    key: String,
    conditions: Vec<Condition>,
}

#[derive(Debug, Clone, PartialEq)]
enum Condition {
    Exact(Literal),
    Prefix(String),
    Suffix(String),
    /// Holds the lowercased pattern.
    EqualsIgnoreCase(String),
    AnythingBut(Vec<Literal>),
    AnythingButPrefix(String),
    Numeric(Option<Bound>, Option<Bound>),
    Exists(bool),
    Cidr {
        v6: bool,
        low: u128,
        high: u128,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Bound {
    value: f64,
    inclusive: bool,
}

/// A policy value, and equally a message value.
#[derive(Debug, Clone, PartialEq)]
enum Literal {
    Str(String),
    Num(f64),
    Bool(bool),
    Null,
}

/// Parsed JSON that keeps object members in document order, as the validator reads them.
#[derive(Debug)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

/// A parsed object level: its fields, and its `$or` groups (each a list of branches).
#[derive(Default)]
struct Node {
    fields: Vec<Field>,
    ors: Vec<Vec<Node>>,
}

fn invalid<T>(message: impl Into<String>) -> Result<T, FilterError> {
    Err(FilterError::Invalid(message.into()))
}

impl FilterPolicy {
    /// Parses and validates a policy for `scope`. The error is AWS's message text AFTER the
    /// "Invalid parameter: FilterPolicy: " prefix (the caller adds the prefix), except
    /// [`NESTED_IN_ATTRIBUTE_SCOPE`]. Too many keys and too many combinations are InvalidParameter
    /// on AWS (docs/sns.md, "Filter policies"); only the size limit is `FilterError::Limit`.
    pub fn parse(json: &str, scope: FilterScope) -> Result<FilterPolicy, FilterError> {
        if json.len() > MAX_POLICY_BYTES {
            // Proposal: the 256 KB limit is documented, its error is not.
            return Err(FilterError::Limit("Filter policy is too large".into()));
        }
        let root: Json = serde_json::from_str(json)
            .or_else(|e| invalid(format!("failed to parse JSON. {e}")))?;
        let Json::Obj(members) = root else {
            return invalid("Filter is not an object"); // proposal (event-ruler)
        };
        let mut nested = false;
        let node = parse_object(&members, &mut Vec::new(), &mut nested)?;
        if nested && scope == FilterScope::MessageAttributes {
            return invalid(NESTED_IN_ATTRIBUTE_SCOPE);
        }
        if count_alternatives(&node) > MAX_COMBINATIONS {
            return invalid("Filter policy is too complex");
        }
        let alternatives = expand(node);
        for alternative in &alternatives {
            // Body policies count only top-level keys; attribute policies are flat anyway.
            let keys: BTreeSet<&str> = alternative.iter().map(|f| f.path[0].as_str()).collect();
            if keys.len() > MAX_KEYS {
                return invalid("Filter policy can not have more than 5 keys");
            }
        }
        let combinations = alternatives.iter().fold(0u64, |sum, alternative| {
            let product = alternative.iter().fold(1u64, |product, f| {
                // A key nested n levels deep counts n times its values (AWS's constraints page:
                // 4 values at three levels and 3 at two give 3 x 4 x 2 x 3 = 72).
                let depth = (f.path.len() as u64).max(1);
                product.saturating_mul((f.conditions.len() as u64).saturating_mul(depth))
            });
            sum.saturating_add(product)
        });
        if combinations > MAX_COMBINATIONS {
            return invalid("Filter policy is too complex");
        }
        Ok(FilterPolicy {
            scope,
            alternatives,
        })
    }

    pub fn scope(&self) -> FilterScope {
        self.scope
    }

    /// Message-attribute scope. `attributes`: name → (DataType, value), where value is the
    /// StringValue for String/Number/String.Array (String.Array values are a JSON array in a string,
    /// e.g. "[\"a\", 1]") and the Base64 text for Binary. Custom labels may follow the type
    /// ("Number.float", "String.x").
    pub fn matches_attributes(&self, attributes: &BTreeMap<String, (String, String)>) -> bool {
        self.alternatives.iter().any(|alternative| {
            alternative.iter().all(|field| {
                let attribute = attributes.get(&field.key);
                let values = attribute.map_or_else(Vec::new, |(t, v)| attribute_values(t, v));
                // `exists: false` needs at least one attribute on the message (docs/sns.md, "Filter
                // policies").
                field.matches(&values, attribute.is_some(), !attributes.is_empty())
            })
        })
    }

    /// Message-body scope: the published message parsed as JSON (a body that is not a JSON
    /// object never matches a body-scope policy).
    pub fn matches_body(&self, body: &serde_json::Value) -> bool {
        if !body.is_object() {
            return false;
        }
        let wanted: BTreeSet<&str> = self
            .alternatives
            .iter()
            .flatten()
            .map(|f| f.key.as_str())
            .collect();
        let mut leaves = BTreeMap::new();
        collect_leaves(body, &mut String::new(), 0, &wanted, &mut leaves);
        self.alternatives.iter().any(|alternative| {
            alternative.iter().all(|field| {
                let values = leaves
                    .get(field.key.as_str())
                    .map_or(&[][..], Vec::as_slice);
                let present = values.iter().any(|v| *v != Literal::Null);
                field.matches(values, present, true)
            })
        })
    }
}

impl FilterPolicy {
    /// What the policy requires of a message, for the routing index ([`MatchIndex`]): for each
    /// alternative, the keys whose conditions are all exact strings, with those strings.
    ///
    /// [`MatchIndex`]: crate::services::match_index::MatchIndex
    pub fn needs(&self) -> Needs {
        let exact = |f: &Field| {
            let strings = f.conditions.iter().map(|c| match c {
                Condition::Exact(Literal::Str(s)) => Some(s.clone()),
                _ => None,
            });
            Some((f.key.clone(), strings.collect::<Option<Vec<String>>>()?))
        };
        let alternatives = self.alternatives.iter();
        alternatives
            .map(|fields| fields.iter().filter_map(exact).collect())
            .collect()
    }
}

/// The strings message attribute `key` offers exact conditions, as
/// [`FilterPolicy::matches_attributes`] compares them: what the routing index looks up.
pub fn attribute_strings(
    attributes: &BTreeMap<String, (String, String)>,
    key: &str,
) -> Vec<String> {
    let values = attributes.get(key).map(|(t, v)| attribute_values(t, v));
    strings(values.unwrap_or_default())
}

/// The strings a message body holds at policy key `key` (a dotted path), as
/// [`FilterPolicy::matches_body`] reads them: what the routing index looks up.
pub fn body_strings(body: &serde_json::Value, key: &str) -> Vec<String> {
    if !body.is_object() {
        return Vec::new();
    }
    let mut leaves = BTreeMap::new();
    collect_leaves(
        body,
        &mut String::new(),
        0,
        &BTreeSet::from([key]),
        &mut leaves,
    );
    strings(leaves.remove(key).unwrap_or_default())
}

fn strings(literals: Vec<Literal>) -> Vec<String> {
    let strings = literals.into_iter().filter_map(|l| match l {
        Literal::Str(s) => Some(s),
        _ => None,
    });
    strings.collect()
}

impl Field {
    fn matches(&self, values: &[Literal], present: bool, any_attribute: bool) -> bool {
        self.conditions.iter().any(|condition| match condition {
            Condition::Exists(true) => present,
            Condition::Exists(false) => !present && any_attribute,
            c => values.iter().any(|v| c.accepts(v)),
        })
    }
}

impl Condition {
    /// Whether one message value satisfies this condition; arrays match if any element does.
    fn accepts(&self, value: &Literal) -> bool {
        use Literal::{Num, Str};
        match (self, value) {
            (Condition::Exact(literal), v) => literal.equals(v),
            (Condition::Prefix(p), Str(s)) => s.starts_with(p.as_str()),
            (Condition::Suffix(p), Str(s)) => s.ends_with(p.as_str()),
            (Condition::EqualsIgnoreCase(p), Str(s)) => s.to_lowercase() == *p,
            (Condition::AnythingBut(list), v) => !list.iter().any(|l| l.equals(v)),
            (Condition::AnythingButPrefix(p), v) => {
                !matches!(v, Str(s) if s.starts_with(p.as_str()))
            }
            (Condition::Numeric(low, high), Num(n)) => {
                let Some(n) = scaled(*n) else { return false };
                let above = low.is_none_or(|b| {
                    scaled(b.value).is_some_and(|l| if b.inclusive { n >= l } else { n > l })
                });
                let below = high.is_none_or(|b| {
                    scaled(b.value).is_some_and(|h| if b.inclusive { n <= h } else { n < h })
                });
                above && below
            }
            (Condition::Cidr { v6, low, high }, Str(s)) => match s.parse::<IpAddr>() {
                Ok(IpAddr::V4(ip)) if !v6 => (*low..=*high).contains(&u128::from(u32::from(ip))),
                Ok(IpAddr::V6(ip)) if *v6 => (*low..=*high).contains(&u128::from(ip)),
                _ => false,
            },
            _ => false,
        }
    }
}

impl Literal {
    fn equals(&self, other: &Literal) -> bool {
        match (self, other) {
            (Literal::Num(a), Literal::Num(b)) => match (scaled(*a), scaled(*b)) {
                (Some(a), Some(b)) => a == b,
                _ => a == b, // outside the comparable range only identical numbers are equal
            },
            (a, b) => a == b,
        }
    }
}

/// A number in the comparable range as an integer of 10^-5 units.
fn scaled(n: f64) -> Option<i64> {
    (n.is_finite() && n.abs() <= NUMBER_LIMIT).then(|| (n * NUMBER_SCALE).round() as i64)
}

/// The values a message attribute offers to value conditions; Binary (and unknown types) none.
fn attribute_values(data_type: &str, value: &str) -> Vec<Literal> {
    if data_type == "String.Array" {
        let Ok(serde_json::Value::Array(items)) = serde_json::from_str(value) else {
            return Vec::new();
        };
        return items.iter().filter_map(scalar).collect();
    }
    match data_type.split('.').next() {
        // AWS compares String attributes with quotes and backslashes still escaped, which is why
        // its constraints page says to double-escape them in attribute policies.
        Some("String") => vec![Literal::Str(
            value.replace('\\', "\\\\").replace('"', "\\\""),
        )],
        Some("Number") => value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|n| n.is_finite())
            .map(Literal::Num)
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

fn scalar(value: &serde_json::Value) -> Option<Literal> {
    use serde_json::Value;
    match value {
        Value::String(s) => Some(Literal::Str(s.clone())),
        Value::Number(n) => n.as_f64().map(Literal::Num),
        Value::Bool(b) => Some(Literal::Bool(*b)),
        Value::Null => Some(Literal::Null),
        Value::Array(_) | Value::Object(_) => None,
    }
}

/// Flattens a body into dotted leaf paths (so `{"a.b": 1}` and `{"a": {"b": 1}}` look alike, as on
/// AWS); arrays, also of objects or of arrays, contribute every element. Keeps wanted paths only.
fn collect_leaves(
    value: &serde_json::Value,
    path: &mut String,
    depth: usize,
    wanted: &BTreeSet<&str>,
    out: &mut BTreeMap<String, Vec<Literal>>,
) {
    if depth > MAX_BODY_DEPTH {
        return;
    }
    match value {
        serde_json::Value::Object(members) => {
            for (name, child) in members {
                let len = path.len();
                if len > 0 {
                    path.push('.');
                }
                path.push_str(name);
                collect_leaves(child, path, depth + 1, wanted, out);
                path.truncate(len);
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                collect_leaves(item, path, depth + 1, wanted, out);
            }
        }
        leaf => {
            if let (true, Some(literal)) = (wanted.contains(path.as_str()), scalar(leaf)) {
                out.entry(path.clone()).or_default().push(literal);
            }
        }
    }
}

fn parse_object(
    members: &[(String, Json)],
    path: &mut Vec<String>,
    nested: &mut bool,
) -> Result<Node, FilterError> {
    if members.is_empty() {
        return invalid("Empty objects are not allowed"); // proposal (event-ruler)
    }
    let mut node = Node::default();
    for (name, value) in members {
        match value {
            Json::Arr(items) if name == "$or" && is_or(items) => {
                let branches = items.iter().filter_map(|item| match item {
                    Json::Obj(m) => Some(parse_object(m, path, nested)),
                    _ => None,
                });
                node.ors.push(branches.collect::<Result<_, _>>()?);
            }
            Json::Obj(inner) => {
                *nested = true;
                path.push(name.clone());
                let child = parse_object(inner, path, nested)?;
                path.pop();
                child.fields.into_iter().for_each(|f| node.add(f));
                node.ors.extend(child.ors);
            }
            Json::Arr(items) => {
                let mut field_path = path.clone();
                field_path.push(name.clone());
                let conditions = items
                    .iter()
                    .map(parse_value)
                    .collect::<Result<Vec<_>, _>>()?;
                if conditions.is_empty() {
                    return invalid("Empty arrays are not allowed");
                }
                node.add(Field {
                    key: field_path.join("."),
                    path: field_path,
                    conditions,
                });
            }
            _ => return invalid(format!("\"{name}\" must be an object or an array")),
        }
    }
    Ok(node)
}

impl Node {
    /// A repeated key replaces the earlier one, as in AWS's parser.
    fn add(&mut self, field: Field) {
        match self.fields.iter_mut().find(|f| f.key == field.key) {
            Some(existing) => *existing = field,
            None => self.fields.push(field),
        }
    }
}

/// `$or` is an operator only with at least two objects none of which uses a match-type name
/// as a key (and-or-logic page); otherwise it is an ordinary key.
fn is_or(items: &[Json]) -> bool {
    items.len() >= 2
        && items.iter().all(|item| match item {
            Json::Obj(m) => m.iter().all(|(k, _)| !RESERVED.contains(&k.as_str())),
            _ => false,
        })
}

fn count_alternatives(node: &Node) -> u64 {
    node.ors.iter().fold(1u64, |product, branches| {
        let sum = branches
            .iter()
            .fold(0u64, |s, b| s.saturating_add(count_alternatives(b)));
        product.saturating_mul(sum)
    })
}

fn expand(node: Node) -> Vec<Vec<Field>> {
    let mut alternatives = vec![node.fields];
    for branches in node.ors {
        let options: Vec<Vec<Field>> = branches.into_iter().flat_map(expand).collect();
        alternatives = alternatives
            .iter()
            .flat_map(|base| {
                options
                    .iter()
                    .map(move |o| base.iter().chain(o).cloned().collect())
            })
            .collect();
    }
    alternatives
}

fn parse_value(value: &Json) -> Result<Condition, FilterError> {
    Ok(Condition::Exact(match value {
        Json::Str(s) => Literal::Str(s.clone()),
        Json::Num(n) => Literal::Num(*n),
        Json::Bool(b) => Literal::Bool(*b),
        Json::Null => Literal::Null,
        Json::Obj(members) => return parse_match_expression(members),
        Json::Arr(_) => return invalid("Match value must be String, number, true, false, or null"),
    }))
}

fn parse_match_expression(members: &[(String, Json)]) -> Result<Condition, FilterError> {
    let Some((kind, value)) = members.first() else {
        return invalid("Match expression name not found"); // proposal (event-ruler)
    };
    let string = |message: &str| match value {
        Json::Str(s) => Ok(s.clone()),
        _ => invalid(message),
    };
    let condition = match kind.as_str() {
        "prefix" => Condition::Prefix(string("prefix match pattern must be a string")?),
        "suffix" => Condition::Suffix(string("suffix match pattern must be a string")?),
        "equals-ignore-case" => Condition::EqualsIgnoreCase(
            string("equals-ignore-case match pattern must be a string")?.to_lowercase(),
        ),
        // AWS's message for a non-string cidr really names prefix (docs/sns.md, "Filter policies").
        "cidr" => parse_cidr(&string("prefix match pattern must be a string")?)?,
        "exists" => match value {
            Json::Bool(b) => Condition::Exists(*b),
            _ => return invalid("exists match pattern must be either true or false."),
        },
        "numeric" => {
            let Json::Arr(items) = value else {
                return invalid("Value of numeric must be an array."); // proposal (event-ruler)
            };
            let condition = parse_numeric(items)?;
            if members.len() > 1 {
                return invalid("Too many elements in numeric expression");
            }
            return Ok(condition);
        }
        "anything-but" => {
            let condition = parse_anything_but(value)?;
            if members.len() > 1 && !matches!(value, Json::Obj(_)) {
                return invalid("Too many elements in numeric expression"); // sic, event-ruler
            }
            condition
        }
        // SNS has no `wildcard` (an EventBridge operator): docs/sns.md, "Filter policies".
        other => return invalid(format!("Unrecognized match type {other}")),
    };
    if members.len() > 1 {
        return invalid("Only one key allowed in match expression");
    }
    Ok(condition)
}

/// Text of a JSON token as Jackson reports it in messages ("]" past the end of an array).
fn token_text(value: Option<&Json>) -> String {
    match value {
        None => "]".into(),
        Some(Json::Null) => "null".into(),
        Some(Json::Bool(b)) => b.to_string(),
        Some(Json::Num(n)) if n.fract() == 0.0 && n.abs() < 1e15 => format!("{}", *n as i64),
        Some(Json::Num(n)) => n.to_string(),
        Some(Json::Str(s)) => s.clone(),
        Some(Json::Arr(_)) => "[".into(),
        Some(Json::Obj(_)) => "{".into(),
    }
}

fn check_range(n: f64) -> Result<f64, FilterError> {
    if n.abs() > NUMBER_LIMIT {
        return invalid("Value must be between -1.0E9 and 1.0E9, inclusive"); // proposal (event-ruler)
    }
    Ok(n)
}

fn parse_numeric(items: &[Json]) -> Result<Condition, FilterError> {
    let number = |i: usize, operator: &str| match items.get(i) {
        Some(Json::Num(n)) => Ok(*n),
        _ => invalid(format!("Value of {operator} must be numeric")),
    };
    let bound = |value, inclusive| Some(Bound { value, inclusive });
    let Some(Json::Str(operator)) = items.first() else {
        return invalid(format!(
            "Invalid member in numeric match: {}",
            token_text(items.first())
        ));
    };
    let too_many = || invalid("Too many elements in numeric expression");
    let (low, high) = match operator.as_str() {
        "=" => {
            let n = number(1, "equals")?;
            if items.len() > 2 {
                return too_many();
            }
            (bound(n, true), bound(n, true))
        }
        "<" | "<=" => {
            let n = number(1, operator)?;
            if items.len() > 2 {
                return too_many();
            }
            (None, bound(n, operator == "<="))
        }
        ">" | ">=" => {
            let bottom = number(1, operator)?;
            let low = bound(bottom, operator == ">=");
            match items.get(2) {
                None => (low, None),
                Some(Json::Str(top_operator)) if top_operator == "<" || top_operator == "<=" => {
                    let top = number(3, top_operator)?;
                    if items.len() > 4 {
                        return invalid("Too many terms in numeric range expression");
                    }
                    if bottom >= top {
                        return invalid("Bottom must be less than top");
                    }
                    (low, bound(top, top_operator == "<="))
                }
                Some(Json::Str(other)) => {
                    return invalid(format!("Bad numeric range operator: {other}"));
                }
                other => {
                    return invalid(format!("Bad value in numeric range: {}", token_text(other)));
                }
            }
        }
        other => return invalid(format!("Unrecognized numeric range operator: {other}")),
    };
    for b in low.iter().chain(high.iter()) {
        check_range(b.value)?;
    }
    Ok(Condition::Numeric(low, high))
}

/// `anything-but` takes a string, a number, a list of strings or of numbers, or `{"prefix": ..}`;
/// SNS rejects the other nested forms EventBridge knows (suffix, equals-ignore-case, wildcard).
fn parse_anything_but(value: &Json) -> Result<Condition, FilterError> {
    // Texts below other than "Unsupported anything-but pattern" and the prefix one are proposals.
    let mixed = "Inside anything but list, either all values are number or string, mixed type is not supported";
    match value {
        Json::Str(s) => Ok(Condition::AnythingBut(vec![Literal::Str(s.clone())])),
        Json::Num(n) => Ok(Condition::AnythingBut(vec![Literal::Num(check_range(*n)?)])),
        Json::Arr(items) => {
            let literals = items
                .iter()
                .map(|item| match item {
                    Json::Str(s) => Ok(Literal::Str(s.clone())),
                    Json::Num(n) => check_range(*n).map(Literal::Num),
                    _ => invalid("Inside anything but list, start|null|boolean is not supported."),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let numbers = literals
                .iter()
                .filter(|l| matches!(l, Literal::Num(_)))
                .count();
            if literals.is_empty() || (numbers > 0 && numbers < literals.len()) {
                return invalid(mixed);
            }
            Ok(Condition::AnythingBut(literals))
        }
        Json::Obj(members) => {
            let Some((kind, inner)) = members.first() else {
                return invalid("Anything-But expression name not found");
            };
            if kind != "prefix" {
                return invalid(format!("Unsupported anything-but pattern: {kind}"));
            }
            let Json::Str(prefix) = inner else {
                return invalid("prefix match pattern must be a string");
            };
            if prefix.is_empty() {
                return invalid("Null prefix/suffix not allowed");
            }
            if members.len() > 1 {
                return invalid("Only one key allowed in match expression");
            }
            Ok(Condition::AnythingButPrefix(prefix.clone()))
        }
        Json::Bool(_) | Json::Null => {
            invalid("Value of anything-but must be an array or single string/number value.")
        }
    }
}

/// Like AWS's parser, the block runs from the address as written (not masked) to its last address,
/// and a full-length mask (/32, /128) is refused.
fn parse_cidr(text: &str) -> Result<Condition, FilterError> {
    let mut parts: Vec<&str> = text.split('/').collect();
    while parts.len() > 1 && parts.last() == Some(&"") {
        parts.pop(); // Java's split drops trailing empty strings
    }
    let [address, mask] = parts[..] else {
        return invalid("Malformed CIDR, one '/' required");
    };
    let Ok(mask) = mask.parse::<i32>() else {
        return invalid("Malformed CIDR, mask bits must be an integer");
    };
    if mask < 0 {
        return invalid("Malformed CIDR, mask bits must not be negative"); // proposal
    }
    let (v6, base, width) = match address.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) => (false, u128::from(u32::from(ip)), 32),
        Ok(IpAddr::V6(ip)) => (true, u128::from(ip), 128),
        Err(_) => return invalid(format!("Nonstandard IP address: {address}")),
    };
    if mask >= width {
        return invalid(if v6 {
            "IPv6 mask bits must be < 128"
        } else {
            "IPv4 mask bits must be < 32"
        }); // proposal
    }
    let host_bits = u128::MAX >> (128 - width + mask) as u32; // mask < width: shift <= 127
    Ok(Condition::Cidr {
        v6,
        low: base,
        high: base | host_bits,
    })
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Num(n as f64))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
        Ok(Json::Num(n as f64))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Json, E> {
        Ok(Json::Num(n))
    }
    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::Str(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Json, E> {
        Ok(Json::Str(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Arr(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::new();
        while let Some(member) = map.next_entry::<String, Json>()? {
            members.push(member);
        }
        Ok(Json::Obj(members))
    }
}

#[cfg(test)]
mod routing_tests;
#[cfg(test)]
mod tests;

/// Serde for a subscription's policy kept with its text (`Some((compiled, text))`): a state
/// snapshot holds the text and the scope, and reading it back parses the policy again.
pub mod as_text {
    // Named from the crate rather than `super::`: the import graph (`tools/import-cycles.py`)
    // reads `super` of a file's inline module as the file's parent, `sns`, which imports the
    // state that holds this policy.
    use crate::services::sns::filter::{FilterPolicy, FilterScope};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(
        policy: &Option<(FilterPolicy, String)>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        policy
            .as_ref()
            .map(|(p, text)| (text, p.scope()))
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<(FilterPolicy, String)>, D::Error> {
        let Some((text, scope)) = Option::<(String, FilterScope)>::deserialize(d)? else {
            return Ok(None);
        };
        let policy = FilterPolicy::parse(&text, scope)
            .map_err(|e| serde::de::Error::custom(format_args!("invalid filter policy: {e:?}")))?;
        Ok(Some((policy, text)))
    }
}
