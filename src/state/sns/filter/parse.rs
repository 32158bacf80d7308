//! Reading a filter policy document: JSON kept in document order, object levels with their
//! `$or` groups multiplied out into alternatives, and the match expressions (prefix, numeric,
//! anything-but, cidr, ...) with the messages AWS gives for each malformed one.
use super::{Bound, Condition, Field, FilterError, Literal, NUMBER_LIMIT, invalid};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use std::net::IpAddr;

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

/// Parsed JSON that keeps object members in document order, as the validator reads them.
#[derive(Debug)]
pub(super) enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

/// A parsed object level: its fields, and its `$or` groups (each a list of branches).
#[derive(Default)]
pub(super) struct Node {
    fields: Vec<Field>,
    ors: Vec<Vec<Node>>,
}

pub(super) fn parse_object(
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

pub(super) fn count_alternatives(node: &Node) -> u64 {
    node.ors.iter().fold(1u64, |product, branches| {
        let sum = branches
            .iter()
            .fold(0u64, |s, b| s.saturating_add(count_alternatives(b)));
        product.saturating_mul(sum)
    })
}

pub(super) fn expand(node: Node) -> Vec<Vec<Field>> {
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
