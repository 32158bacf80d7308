//! Evaluating a compiled pattern against one event. Only the fields a pattern names are looked
//! at. Nothing here parses or validates (that is `compile`'s); it must not depend on anything
//! outside `serde_json` and the pattern's types.

use super::compile::{num, parse_ip};
use super::*;

// ---------------------------------------------------------------------------------------------
// Matching. Only the fields a pattern names are looked at.

impl ObjNode {
    /// `obj` is the event object at this node's path, `None` when the path is missing or does
    /// not lead to an object.
    pub(super) fn matches(&self, obj: Option<&Map<String, Value>>) -> bool {
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
    // Event keys written with dots (`"key.b": 1`) are the same paths as nested ones, as Event
    // Ruler flattens them: they join the object at `key`, or stand for it when there is none.
    let dotted = parent.and_then(|p| dotted_children(p, key));
    let matched = parent.is_some_and(|p| {
        lookup(p, key, &mut |v| {
            objects(v, &mut |o| {
                saw_object = true;
                match (&dotted, v.is_object()) {
                    (Some(d), true) => {
                        let mut merged = o.clone();
                        merged.extend(d.iter().map(|(k, v)| (k.clone(), v.clone())));
                        child.matches(Some(&merged))
                    }
                    _ => child.matches(Some(o)),
                }
            })
        })
    });
    let alone = || {
        let whole = parent
            .and_then(|p| p.get(key))
            .is_some_and(Value::is_object);
        dotted
            .as_ref()
            .is_some_and(|d| !whole && child.matches(Some(d)))
    };
    let matched = matched || alone();
    matched || (!saw_object && dotted.is_none() && child.matches(None))
}

/// The fields of `obj` whose key is `key` followed by a dot, under the rest of their key, when
/// there are any.
fn dotted_children(obj: &Map<String, Value>, key: &str) -> Option<Map<String, Value>> {
    let fields: Map<String, Value> = obj
        .iter()
        .filter_map(|(k, v)| {
            let rest = k.strip_prefix(key)?.strip_prefix('.')?;
            Some((rest.to_string(), v.clone()))
        })
        .collect();
    (!fields.is_empty()).then_some(fields)
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

impl Wildcard {
    pub(super) fn matches(&self, s: &str) -> bool {
        // A wildcard has a part more than it has stars.
        let [first, after_first @ ..] = self.parts.as_slice() else {
            return false;
        };
        let [inner @ .., last] = after_first else {
            return s == first;
        };
        let Some(rest) = s.strip_prefix(first.as_str()) else {
            return false;
        };
        let Some(mut middle) = rest.strip_suffix(last.as_str()) else {
            return false;
        };
        for part in inner {
            match middle.split_once(part.as_str()) {
                Some((_, after)) => middle = after,
                None => return false,
            }
        }
        true
    }
}
