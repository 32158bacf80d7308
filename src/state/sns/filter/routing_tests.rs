//! The routing index over filter policies against a scan of every policy: many seeded random
//! policies (attribute and body scope, `$or`, every kind of condition) and messages, the
//! policies set, replaced and removed as subscriptions are, and each message's candidates
//! compared with the policies that pass it. Tests only.

use super::*;
use crate::engine::rng::Rng;
use crate::state::match_index::MatchIndex;
use serde_json::{Value, json};

const KEYS: [&str; 3] = ["store", "event", "a.b"];
const STRINGS: [&str; 5] = ["x", "y", "z", "quote\"d", ""];

fn pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> &'a T {
    &items[(rng.next_u64() % items.len() as u64) as usize]
}

fn conditions(rng: &mut Rng) -> Value {
    let n = 1 + rng.next_u64() % 3;
    let items: Vec<Value> = (0..n)
        .map(|_| match rng.next_u64() % 10 {
            0 => json!({"prefix": "q"}),
            1 => json!({"anything-but": pick(rng, &STRINGS)}),
            2 => json!({"exists": rng.next_u64().is_multiple_of(2)}),
            3 => json!(1),
            _ => json!(pick(rng, &STRINGS)),
        })
        .collect();
    Value::Array(items)
}

fn random_policy(rng: &mut Rng, body: bool) -> Value {
    let mut fields = serde_json::Map::new();
    for _ in 0..1 + rng.next_u64() % 2 {
        fields.insert(pick(rng, &KEYS).to_string(), conditions(rng));
    }
    if body && rng.next_u64().is_multiple_of(3) {
        fields.insert("order".into(), json!({"kind": conditions(rng)}));
    }
    if rng.next_u64().is_multiple_of(5) {
        let branch = |rng: &mut Rng| json!({"event": conditions(rng)});
        fields.insert("$or".into(), json!([branch(rng), branch(rng)]));
    }
    Value::Object(fields)
}

fn random_attributes(rng: &mut Rng) -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    for key in KEYS {
        let (kind, value) = match rng.next_u64() % 6 {
            0 => continue,
            1 => ("Number", "1".to_string()),
            2 => ("Binary", "eA==".to_string()),
            3 => {
                let items = [pick(rng, &STRINGS), pick(rng, &STRINGS)];
                ("String.Array", json!(items).to_string())
            }
            _ => ("String", pick(rng, &STRINGS).to_string()),
        };
        out.insert(key.to_string(), (kind.to_string(), value));
    }
    out
}

fn random_body(rng: &mut Rng) -> Value {
    let mut fields = serde_json::Map::new();
    for key in KEYS {
        let value = match rng.next_u64() % 5 {
            0 => continue,
            1 => json!([pick(rng, &STRINGS), {"x": 1}]),
            2 => json!(null),
            _ => json!(pick(rng, &STRINGS)),
        };
        fields.insert(key.to_string(), value);
    }
    fields.insert("order".into(), json!([{"kind": pick(rng, &STRINGS)}]));
    if rng.next_u64().is_multiple_of(10) {
        return json!([fields]);
    }
    Value::Object(fields)
}

#[test]
fn the_index_names_every_policy_that_passes_a_message_and_few_others() {
    let mut rng = Rng::new(17);
    for scope in [FilterScope::MessageAttributes, FilterScope::MessageBody] {
        let body = scope == FilterScope::MessageBody;
        let mut index: MatchIndex<usize> = MatchIndex::default();
        let mut policies: Vec<Option<FilterPolicy>> = vec![None; 200];
        let (mut passed, mut tried) = (0, 0);
        for round in 0..2000 {
            let slot = (rng.next_u64() % policies.len() as u64) as usize;
            if rng.next_u64().is_multiple_of(10) {
                policies[slot] = None;
                index.remove(&slot);
            } else if let Ok(p) =
                FilterPolicy::parse(&random_policy(&mut rng, body).to_string(), scope)
            {
                index.insert(slot, p.needs());
                policies[slot] = Some(p);
            }
            if round < 200 {
                continue;
            }
            let attributes = random_attributes(&mut rng);
            let message = random_body(&mut rng);
            let passes = |p: &FilterPolicy| match scope {
                FilterScope::MessageAttributes => p.matches_attributes(&attributes),
                FilterScope::MessageBody => p.matches_body(&message),
            };
            let candidates: Vec<usize> = match scope {
                FilterScope::MessageAttributes => {
                    index.candidates(|key| attribute_strings(&attributes, key))
                }
                FilterScope::MessageBody => index.candidates(|key| body_strings(&message, key)),
            }
            .into_iter()
            .copied()
            .collect();
            assert!(candidates.iter().all(|&i| policies[i].is_some()));
            let brute: Vec<usize> = (0..policies.len())
                .filter(|&i| policies[i].as_ref().is_some_and(passes))
                .collect();
            let routed: Vec<usize> = candidates
                .iter()
                .copied()
                .filter(|&i| policies[i].as_ref().is_some_and(passes))
                .collect();
            assert_eq!(routed, brute, "{scope:?}: {attributes:?} {message}");
            passed += brute.len();
            tried += candidates.len();
        }
        // Not vacuous: messages pass policies, and most policies are never tried.
        assert!(passed > 500, "{scope:?}: {passed} passed");
        assert!(tried < 1800 * 200 * 7 / 10, "{scope:?}: {tried} tried");
    }
}

#[test]
fn needs_are_the_exact_string_keys_of_each_alternative() {
    let policy = r#"{"store": ["a", "b"], "n": [1], "p": [{"prefix": "x"}],
        "$or": [{"event": ["e"]}, {"kind": ["k", {"exists": true}]}]}"#;
    let p = FilterPolicy::parse(policy, FilterScope::MessageAttributes).unwrap();
    let strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let store = ("store".to_string(), strings(&["a", "b"]));
    let event = ("event".to_string(), strings(&["e"]));
    assert_eq!(p.needs(), vec![vec![store.clone(), event], vec![store]]);
    let attributes = BTreeMap::from([
        (
            "s".to_string(),
            ("String".to_string(), "say \"hi\"".to_string()),
        ),
        (
            "a".to_string(),
            ("String.Array".to_string(), r#"["x", 1, "y"]"#.to_string()),
        ),
        ("n".to_string(), ("Number".to_string(), "1".to_string())),
    ]);
    assert_eq!(attribute_strings(&attributes, "s"), [r#"say \"hi\""#]);
    assert_eq!(attribute_strings(&attributes, "a"), ["x", "y"]);
    assert!(attribute_strings(&attributes, "n").is_empty());
    let body = json!({"order": [{"kind": "k"}, {"kind": ["j", 2]}], "order.kind": "i"});
    assert_eq!(body_strings(&body, "order.kind"), ["k", "j", "i"]);
    assert!(body_strings(&json!(["k"]), "order.kind").is_empty());
}
