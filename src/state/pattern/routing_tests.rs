//! The routing index over event patterns against a scan of every pattern: many seeded random
//! patterns and events, the patterns filed, changed and removed as rules are, and each event's
//! candidates compared with the patterns that match it. Tests only.

use super::*;
use crate::engine::rng::Rng;
use crate::state::match_index::MatchIndex;
use serde_json::json;

const KEYS: [&str; 6] = [
    "source",
    "detail-type",
    "account",
    "region",
    "resources",
    "a.b",
];
const STRINGS: [&str; 6] = ["x", "y", "z", "10.0.0.1", "10.0.0.01", ""];

fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    &items[(rng.next_u64() % items.len() as u64) as usize]
}

fn chance(rng: &mut Rng, percent: u64) -> bool {
    rng.next_u64() % 100 < percent
}

/// A leaf: mostly plain strings (what the index reads), sometimes another matcher.
fn random_leaf(rng: &mut Rng) -> Value {
    let n = 1 + rng.next_u64() % 3;
    let items: Vec<Value> = (0..n)
        .map(|_| match rng.next_u64() % 10 {
            0 => json!({"prefix": pick(rng, &STRINGS)}),
            1 => json!({"anything-but": pick(rng, &STRINGS)}),
            2 => json!({"exists": chance(rng, 50)}),
            3 => json!(1),
            _ => json!(pick(rng, &STRINGS)),
        })
        .collect();
    Value::Array(items)
}

fn random_pattern(rng: &mut Rng) -> Value {
    let mut fields = Map::new();
    for _ in 0..1 + rng.next_u64() % 3 {
        fields.insert(pick(rng, &KEYS).to_string(), random_leaf(rng));
    }
    if chance(rng, 20) {
        fields.insert("detail".into(), json!({"k": random_leaf(rng)}));
    }
    if chance(rng, 15) {
        let branch = |rng: &mut Rng| {
            let key = pick(rng, &KEYS).to_string();
            Value::Object(Map::from_iter([(key, random_leaf(rng))]))
        };
        fields.insert("$or".into(), json!([branch(rng), branch(rng)]));
    }
    Value::Object(fields)
}

/// An event: strings, arrays of them, other types and dotted keys at the same names.
fn random_event(rng: &mut Rng) -> Value {
    let mut fields = Map::new();
    for key in KEYS {
        let value = match rng.next_u64() % 6 {
            0 => continue,
            1 => json!([pick(rng, &STRINGS), pick(rng, &STRINGS)]),
            2 => json!(1),
            3 => json!({"b": pick(rng, &STRINGS)}),
            _ => json!(pick(rng, &STRINGS)),
        };
        fields.insert(key.to_string(), value);
    }
    fields.insert("detail".into(), json!({"k": pick(rng, &STRINGS)}));
    Value::Object(fields)
}

/// Whether the event holds one of the values at every key the pattern needs.
fn needs_met(pattern: &EventPattern, event: &Value) -> bool {
    pattern.needs().iter().all(|alternative| {
        alternative
            .iter()
            .all(|(key, values)| strings_at(event, key).iter().any(|s| values.contains(s)))
    })
}

#[test]
fn the_index_names_exactly_the_patterns_whose_needs_an_event_meets() {
    let mut rng = Rng::new(17);
    let mut index: MatchIndex<usize> = MatchIndex::default();
    let mut patterns: Vec<Option<EventPattern>> = vec![None; 300];
    let (mut matched, mut tried) = (0, 0);
    for round in 0..3000 {
        // Rules come, change and go between events.
        let slot = (rng.next_u64() % patterns.len() as u64) as usize;
        if chance(&mut rng, 10) {
            patterns[slot] = None;
            index.remove(&slot);
        } else if let Ok(p) = EventPattern::parse(&random_pattern(&mut rng).to_string()) {
            index.insert(slot, p.needs());
            patterns[slot] = Some(p);
        }
        if round < 300 {
            continue;
        }
        let event = random_event(&mut rng);
        let candidates: Vec<usize> = index
            .candidates(|key| strings_at(&event, key))
            .into_iter()
            .copied()
            .collect();
        let filed = |i: &usize| patterns[*i].is_some();
        assert!(candidates.iter().all(filed), "only filed patterns");
        let wanted: Vec<usize> = (0..patterns.len())
            .filter(|&i| patterns[i].as_ref().is_some_and(|p| needs_met(p, &event)))
            .collect();
        assert_eq!(candidates, wanted, "{event}");
        let brute: Vec<usize> = (0..patterns.len())
            .filter(|&i| patterns[i].as_ref().is_some_and(|p| p.matches(&event)))
            .collect();
        let routed: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| patterns[i].as_ref().is_some_and(|p| p.matches(&event)))
            .collect();
        assert_eq!(routed, brute, "{event}");
        matched += brute.len();
        tried += candidates.len();
    }
    // The cases are not vacuous: events match, and the index leaves most patterns untried.
    assert!(matched > 1000, "{matched} matches");
    assert!(tried < 2700 * 300 * 7 / 10, "{tried} patterns tried");
}

#[test]
fn needs_are_the_plain_string_fields_at_the_top() {
    let p = EventPattern::parse(
        r#"{"source":["a","b"],"detail-type":["t",{"prefix":"u"}],"ip":["10.0.0.1"],
            "a.b":["x"],"n":[1],"detail":{"k":["v"]},"region":["r"]}"#,
    )
    .unwrap();
    let needs = vec![vec![
        ("source".to_string(), vec!["a".to_string(), "b".to_string()]),
        ("region".to_string(), vec!["r".to_string()]),
    ]];
    assert_eq!(p.needs(), needs);
    let event = json!({"source": [["a"], {"x": "b"}, "c"], "region": 1});
    assert_eq!(strings_at(&event, "source"), ["a", "c"]);
    assert!(strings_at(&event, "region").is_empty());
}
