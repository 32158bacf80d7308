//! Serde for maps whose keys are not strings (a queue's `QueueKey`, a tuple): JSON objects take
//! string keys only, so a state snapshot writes such a map as a list of `[key, value]` pairs, in
//! key order (the same state always gives the same file), and reads it back into the map.
//! A leaf: any layer may use it.

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};

/// Writes `map` as `[[key, value], ...]` in key order.
pub fn serialize<'a, M, K, V, S>(map: &'a M, s: S) -> Result<S::Ok, S::Error>
where
    &'a M: IntoIterator<Item = (&'a K, &'a V)>,
    K: Serialize + Ord + 'a,
    V: Serialize + 'a,
    S: Serializer,
{
    let mut pairs: Vec<(&K, &V)> = map.into_iter().collect();
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    s.collect_seq(pairs)
}

/// Reads `[[key, value], ...]` into a map.
pub fn deserialize<'de, M, K, V, D>(d: D) -> Result<M, D::Error>
where
    M: FromIterator<(K, V)>,
    K: Deserialize<'de>,
    V: Deserialize<'de>,
    D: Deserializer<'de>,
{
    Ok(Vec::<(K, V)>::deserialize(d)?.into_iter().collect())
}

/// The same for a map of maps whose inner keys are not strings either: `[[key, [[key, value],
/// ...]], ...]`.
pub mod nested {
    use super::*;
    use std::collections::BTreeMap;

    pub fn serialize<K1, K2, V, S>(
        map: &BTreeMap<K1, BTreeMap<K2, V>>,
        s: S,
    ) -> Result<S::Ok, S::Error>
    where
        K1: Serialize,
        K2: Serialize,
        V: Serialize,
        S: Serializer,
    {
        s.collect_seq(
            map.iter()
                .map(|(k, inner)| (k, inner.iter().collect::<Vec<_>>())),
        )
    }

    pub fn deserialize<'de, K1, K2, V, D>(d: D) -> Result<BTreeMap<K1, BTreeMap<K2, V>>, D::Error>
    where
        K1: Deserialize<'de> + Ord,
        K2: Deserialize<'de> + Ord,
        V: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        let outer = Vec::<(K1, Vec<(K2, V)>)>::deserialize(d)?;
        Ok(outer
            .into_iter()
            .map(|(k, inner)| (k, inner.into_iter().collect()))
            .collect())
    }
}
