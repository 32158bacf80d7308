//! SNS subscription filter policies: parsing and validation (with AWS's messages) and matching of
//! message attributes or message bodies. Pure and synchronous; knows nothing of subscriptions or wire.
//!
//! Facts: the SNS developer guide pages on filter policies.
//! SNS validates policies with AWS's event-ruler, whose messages it passes on; texts marked
//! "proposal" were not observed from SNS and follow event-ruler's wording. The Jackson location
//! suffix AWS appends to many messages ("\n at [Source: ...]") is not reproduced.
use crate::state::match_index::Needs;
use parse::{Json, count_alternatives, expand, parse_object};
use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

mod parse;

const MAX_KEYS: usize = 5;
const MAX_COMBINATIONS: u64 = 150;
const MAX_POLICY_BYTES: usize = 256 * 1024;
/// Numbers are compared in -10^9..=10^9 with five digits after the decimal point.
const NUMBER_LIMIT: f64 = 1e9;
const NUMBER_SCALE: f64 = 1e5;
/// Bodies are walked no deeper than this (serde_json's own parser stops at 128).
const MAX_BODY_DEPTH: usize = 256;

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
            let keys: BTreeSet<&str> = alternative
                .iter()
                .filter_map(|f| Some(f.path.first()?.as_str()))
                .collect();
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
    /// [`MatchIndex`]: crate::state::match_index::MatchIndex
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
    use crate::state::sns::filter::{FilterPolicy, FilterScope};
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
