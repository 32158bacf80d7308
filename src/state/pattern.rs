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
//!   matches `{"state": {"status": ..}}`, and the nested pattern `{"state": {"status": ..}}`
//!   also matches the event key `"state.status"` (alone, or beside a `state` object).
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
//!
//! Here: the pattern's types and its two entry points; `compile` parses, validates and compiles,
//! `matching` evaluates, `tests` checks both. Pure functions over JSON values: nothing in this
//! module may depend on a store, the engine or a service.

use crate::state::match_index::Needs;
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

/// Why a pattern is invalid: `reason` is AWS's text after "Reason: "; `at` the JSON parser's
/// location AWS appends for text that is not a JSON object
/// (`\n at [Source: (String)"<text>"; line: 1, column: 5]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError {
    pub reason: String,
    pub at: Option<String>,
}

impl PatternError {
    fn new(reason: impl Into<String>) -> PatternError {
        PatternError {
            reason: reason.into(),
            at: None,
        }
    }

    /// "Event pattern is not valid. Reason: <reason>", the `InvalidEventPatternException`
    /// message, with the parser's location when AWS gives one.
    pub fn message(&self) -> String {
        let at = self.at.as_deref().unwrap_or_default();
        format!("Event pattern is not valid. Reason: {}{at}", self.reason)
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
        let value: Value = serde_json::from_str(text).map_err(|e| json_error(text, &e))?;
        // serde_json keeps the last of duplicate keys, as AWS does.
        let Value::Object(obj) = &value else {
            return Err(PatternError {
                at: Some(jackson_location(text, first_token_end(text))),
                ..PatternError::new("Filter is not an object")
            });
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

    /// What the pattern requires of an event, for the routing index ([`MatchIndex`]): each
    /// top-level field whose alternatives are all plain strings, with those strings. Fields
    /// that are IP literals (which match other spellings of the address), other matchers,
    /// dotted keys and `$or` branches are left out, so the index only ever narrows too little.
    ///
    /// [`MatchIndex`]: crate::state::match_index::MatchIndex
    pub fn needs(&self) -> Needs {
        let fields = self.root.fields.iter().filter_map(|(key, node)| {
            let Node::Leaf(matchers) = node else {
                return None;
            };
            let strings = matchers.iter().map(|m| match m {
                Matcher::Exact(s, None) => Some(s.clone()),
                _ => None,
            });
            let values = strings.collect::<Option<Vec<String>>>()?;
            (!key.contains('.')).then(|| (key.clone(), values))
        });
        vec![fields.collect()]
    }
}

/// The strings an event holds at top-level `key` (array elements too, as a pattern reads
/// them): what the routing index looks up for a key [`EventPattern::needs`] names.
pub fn strings_at(event: &Value, key: &str) -> Vec<String> {
    fn collect(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|i| collect(i, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(v) = event.get(key) {
        collect(v, &mut out);
    }
    out
}

mod compile;
mod matching;

use compile::{first_token_end, jackson_location, json_error, ors_well_formed, parse_object};
#[cfg(test)]
mod routing_tests;
#[cfg(test)]
mod tests;

/// Serde for a pattern kept with its text (`(text, compiled)`): a state snapshot holds the text
/// only, and reading it back compiles the pattern again.
pub mod as_text {
    use super::EventPattern;
    use serde::{Deserialize, Deserializer, Serializer};

    /// The pattern compiled from `text`, or the error a snapshot reader names.
    pub fn compile<E: serde::de::Error>(text: &str) -> Result<EventPattern, E> {
        EventPattern::parse(text)
            .map_err(|e| E::custom(format_args!("invalid event pattern: {}", e.message())))
    }

    pub fn serialize<S: Serializer>(
        pattern: &(String, EventPattern),
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.serialize_str(&pattern.0)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<(String, EventPattern), D::Error> {
        let text = String::deserialize(d)?;
        let pattern = compile(&text)?;
        Ok((text, pattern))
    }

    /// The same for `Option<(text, compiled)>`.
    pub mod option {
        use super::*;

        pub fn serialize<S: Serializer>(
            pattern: &Option<(String, EventPattern)>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            match pattern {
                Some((text, _)) => s.serialize_some(text),
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<(String, EventPattern)>, D::Error> {
            match Option::<String>::deserialize(d)? {
                Some(text) => compile(&text).map(|p| Some((text, p))),
                None => Ok(None),
            }
        }
    }
}

/// A pattern as given and compiled (a pipe's filter, an event stream's FilterPattern). Written
/// as its text; read back, the pattern is compiled again.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(into = "RawTextPattern", try_from = "RawTextPattern")]
pub struct TextPattern {
    pub text: String,
    pub pattern: EventPattern,
}

/// [`TextPattern`] as a snapshot holds it.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct RawTextPattern {
    text: String,
}

impl From<TextPattern> for RawTextPattern {
    fn from(p: TextPattern) -> Self {
        RawTextPattern { text: p.text }
    }
}

impl TryFrom<RawTextPattern> for TextPattern {
    type Error = serde::de::value::Error;

    fn try_from(r: RawTextPattern) -> Result<Self, Self::Error> {
        let pattern = as_text::compile(&r.text)?;
        Ok(TextPattern {
            text: r.text,
            pattern,
        })
    }
}
