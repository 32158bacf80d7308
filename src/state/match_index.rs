//! The one index of patterns by the exact values they require (issue 17): routing a message to
//! many rules, subscriptions or subscribers tries the few whose pattern could match it, not all
//! of them. The index only narrows: every candidate it names is still matched in full by its
//! owner, so it may name too many (never too few) and stays exact as long as each pattern is
//! filed again whenever it changes.
//!
//! A pattern is filed under what it needs ([`Needs`]): for each of its alternatives, the keys it
//! requires with the values one of which the message must carry there. An alternative over keys
//! `k1..kn` is filed under every combination of its values, in a group of its own key set; a
//! message is looked up in each group with every combination of its own values at those keys.
//! Patterns that need nothing the index can look up are tried for every message.
//!
//! Generic over the id (a rule or subscription ARN): candidates come back sorted by id, so the
//! owner tries them in the same order as a scan of its ARN-keyed map would.

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What a pattern requires, as far as the index can use it: alternatives (a message matches one
/// of them at most), each a list of keys with the values one of which the message must have at
/// that key. An empty alternative, or no alternative at all, requires nothing indexable.
pub type Needs = Vec<Vec<(String, Vec<String>)>>;

/// An alternative with more value combinations than this keeps dropping its key with the most
/// values until it has fewer (a `source` list of 100 names with 100 detail types would
/// otherwise file 10,000 entries).
const MAX_FILED: usize = 64;

/// A message with more value combinations than this for one group (keys holding long arrays)
/// takes every pattern of the group as a candidate instead of looking each one up.
const MAX_LOOKUPS: usize = 256;

#[derive(Debug, Clone)]
pub struct MatchIndex<Id: Ord + Clone> {
    /// Ids whose pattern needs nothing indexable: candidates for every message.
    always: BTreeSet<Id>,
    /// Key set (sorted) → encoded value combination → ids.
    groups: BTreeMap<Vec<String>, HashMap<String, BTreeSet<Id>>>,
    /// Where each id not in `always` is filed, to take it out again.
    filed: BTreeMap<Id, Vec<(Vec<String>, String)>>,
}

impl<Id: Ord + Clone> Default for MatchIndex<Id> {
    fn default() -> Self {
        MatchIndex {
            always: BTreeSet::new(),
            groups: BTreeMap::new(),
            filed: BTreeMap::new(),
        }
    }
}

impl<Id: Ord + Clone> MatchIndex<Id> {
    /// Files `id` under what its pattern needs, replacing wherever it was filed before.
    pub fn insert(&mut self, id: Id, needs: Needs) {
        self.remove(&id);
        let alternatives: Vec<Vec<(String, Vec<String>)>> = needs.into_iter().map(narrow).collect();
        if alternatives.is_empty() || alternatives.iter().any(Vec::is_empty) {
            self.always.insert(id);
            return;
        }
        let mut places = Vec::new();
        for alternative in alternatives {
            let keys: Vec<String> = alternative.iter().map(|(k, _)| k.clone()).collect();
            let lists: Vec<&[String]> = alternative.iter().map(|(_, v)| v.as_slice()).collect();
            let group = self.groups.entry(keys.clone()).or_default();
            for_each_combination(&lists, &mut |tuple| {
                let code = encode(tuple);
                group.entry(code.clone()).or_default().insert(id.clone());
                places.push((keys.clone(), code));
            });
        }
        self.filed.insert(id, places);
    }

    /// Takes `id` out of the index (nothing happens if it is not filed).
    pub fn remove(&mut self, id: &Id) {
        self.always.remove(id);
        for (keys, code) in self.filed.remove(id).unwrap_or_default() {
            let Some(group) = self.groups.get_mut(&keys) else {
                continue;
            };
            if let Some(ids) = group.get_mut(&code) {
                ids.remove(id);
                if ids.is_empty() {
                    group.remove(&code);
                }
            }
            if group.is_empty() {
                self.groups.remove(&keys);
            }
        }
    }

    /// The ids whose pattern could match a message, sorted and without repeats. `values` gives
    /// the message's values at a key (any order, repeats allowed); it is asked once per key.
    pub fn candidates(&self, mut values: impl FnMut(&str) -> Vec<String>) -> Vec<&Id> {
        let mut found: Vec<&Id> = self.always.iter().collect();
        let mut known: HashMap<&str, Vec<String>> = HashMap::new();
        for key in self.groups.keys().flatten() {
            known.entry(key).or_insert_with(|| {
                let mut v = values(key);
                v.sort_unstable();
                v.dedup();
                v
            });
        }
        for (keys, group) in &self.groups {
            let lists: Vec<&[String]> = keys
                .iter()
                .map(|k| known.get(k.as_str()).map_or(&[][..], Vec::as_slice))
                .collect();
            let combinations = lists
                .iter()
                .try_fold(1usize, |n, l| n.checked_mul(l.len()))
                .unwrap_or(usize::MAX);
            if combinations > MAX_LOOKUPS {
                found.extend(group.values().flatten());
                continue;
            }
            for_each_combination(&lists, &mut |tuple| {
                if let Some(ids) = group.get(&encode(tuple)) {
                    found.extend(ids);
                }
            });
        }
        found.sort_unstable();
        found.dedup();
        found
    }

    pub fn is_empty(&self) -> bool {
        self.always.is_empty() && self.filed.is_empty()
    }

    /// Every id filed, sorted: the candidates when a message cannot be looked up.
    pub fn all(&self) -> Vec<&Id> {
        let mut ids: Vec<&Id> = self.always.iter().chain(self.filed.keys()).collect();
        ids.sort_unstable();
        ids
    }
}

/// One alternative made ready to file: keys sorted and unique, values sorted and unique, and
/// no more than [`MAX_FILED`] combinations. A key required twice keeps its shorter list: the
/// two may be met by different values of one array, so only either list is sure to be met.
fn narrow(alternative: Vec<(String, Vec<String>)>) -> Vec<(String, Vec<String>)> {
    let mut merged: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (key, values) in alternative {
        let values: BTreeSet<String> = values.into_iter().collect();
        let before = merged.entry(key).or_insert_with(|| values.clone());
        if values.len() < before.len() {
            *before = values;
        }
    }
    let mut narrowed: Vec<(String, Vec<String>)> = merged
        .into_iter()
        .map(|(k, v)| (k, v.into_iter().collect()))
        .collect();
    while narrowed
        .iter()
        .try_fold(1usize, |n, (_, v)| n.checked_mul(v.len()))
        .is_none_or(|n| n > MAX_FILED)
    {
        // A product over MAX_FILED has a key.
        let Some(widest) = narrowed
            .iter()
            .enumerate()
            .max_by_key(|(_, (_, values))| values.len())
            .map(|(i, _)| i)
        else {
            break;
        };
        narrowed.remove(widest);
    }
    narrowed
}

/// Calls `f` with every combination of one value from each list.
fn for_each_combination(lists: &[&[String]], f: &mut dyn FnMut(&[&str])) {
    if lists.iter().any(|l| l.is_empty()) {
        return;
    }
    let mut at = vec![0usize; lists.len()];
    let mut tuple: Vec<&str> = Vec::with_capacity(lists.len());
    'combinations: loop {
        tuple.clear();
        let values = lists.iter().zip(&at).filter_map(|(l, &i)| l.get(i));
        tuple.extend(values.map(String::as_str));
        f(&tuple);
        // The next one: the last list not at its last value moves on, the lists after it start
        // over; none left to move on is the end.
        for (list, i) in lists.iter().zip(at.iter_mut()).rev() {
            if *i + 1 < list.len() {
                *i += 1;
                continue 'combinations;
            }
            *i = 0;
        }
        return;
    }
}

/// One value combination as a map key: each value prefixed by its length, so no two
/// combinations share a code.
fn encode(tuple: &[&str]) -> String {
    let mut code = String::with_capacity(tuple.iter().map(|v| v.len() + 4).sum());
    for v in tuple {
        code.push_str(&v.len().to_string());
        code.push(':');
        code.push_str(v);
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needs(alternatives: &[&[(&str, &[&str])]]) -> Needs {
        alternatives
            .iter()
            .map(|alt| {
                alt.iter()
                    .map(|(k, vs)| (k.to_string(), vs.iter().map(|v| v.to_string()).collect()))
                    .collect()
            })
            .collect()
    }

    fn message<'a>(fields: &'a [(&'a str, &'a [&'a str])]) -> impl FnMut(&str) -> Vec<String> + 'a {
        move |key| {
            fields
                .iter()
                .filter(|(k, _)| *k == key)
                .flat_map(|(_, vs)| vs.iter().map(|v| v.to_string()))
                .collect()
        }
    }

    #[test]
    fn a_pattern_is_a_candidate_only_where_its_required_values_are() {
        let mut index = MatchIndex::default();
        index.insert("a", needs(&[&[("source", &["x", "y"])]]));
        index.insert("b", needs(&[&[("source", &["x"]), ("type", &["t"])]]));
        index.insert("c", needs(&[&[]]));
        let ids = |fields: &[(&str, &[&str])]| index.candidates(message(fields));
        assert_eq!(ids(&[("source", &["x"])]), [&"a", &"c"]);
        assert_eq!(
            ids(&[("source", &["x"]), ("type", &["t"])]),
            [&"a", &"b", &"c"]
        );
        assert_eq!(ids(&[("source", &["z"]), ("type", &["t"])]), [&"c"]);
        assert_eq!(ids(&[("source", &["y", "x", "x"])]), [&"a", &"c"]);
        assert_eq!(index.all(), [&"a", &"b", &"c"]);
    }

    #[test]
    fn refiling_and_removing_leave_no_trace() {
        let mut index = MatchIndex::default();
        index.insert(1, needs(&[&[("k", &["v"])]]));
        index.insert(1, needs(&[&[("k", &["w"])], &[("j", &["v"])]]));
        assert!(index.candidates(message(&[("k", &["v"])])).is_empty());
        assert_eq!(index.candidates(message(&[("j", &["v"])])), [&1]);
        index.insert(1, Vec::new());
        assert_eq!(index.candidates(message(&[])), [&1]);
        index.remove(&1);
        assert!(index.all().is_empty());
        assert!(index.groups.is_empty() && index.filed.is_empty());
    }

    #[test]
    fn wide_patterns_and_wide_messages_stay_candidates() {
        let many: Vec<String> = (0..100).map(|i| i.to_string()).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let mut index = MatchIndex::default();
        // 100 x 100 combinations: filed under `b` alone (the widest key dropped).
        index.insert("p", needs(&[&[("a", &many), ("b", &["x"])]]));
        assert_eq!(index.candidates(message(&[("b", &["x"])])), [&"p"]);
        let mut values = many.clone();
        values.push("x");
        index.insert("q", needs(&[&[("a", &["7"]), ("c", &["1"])]]));
        let wide = [("a", &values[..]), ("c", &values[..])];
        assert_eq!(index.candidates(message(&wide)), [&"q"]);
    }

    #[test]
    fn a_key_required_twice_may_be_met_by_two_values() {
        let mut index = MatchIndex::default();
        index.insert("p", needs(&[&[("k", &["a", "b"]), ("k", &["c"])]]));
        assert_eq!(index.candidates(message(&[("k", &["a", "c"])])), [&"p"]);
        assert!(index.candidates(message(&[("k", &["a"])])).is_empty());
    }

    #[test]
    fn codes_keep_values_apart() {
        assert_ne!(encode(&["a:1", "b"]), encode(&["a", "1b"]));
        assert_ne!(encode(&["ab", ""]), encode(&["a", "b"]));
    }
}
