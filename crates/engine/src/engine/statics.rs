//! Serde for the `&'static str` labels the engine keeps (a delivery's service and phase, the
//! limit that ended its retries, metric names, the events of the delivery log): written as
//! strings, read back as the one `&'static str` of each distinct text. A label read for the first
//! time is leaked once and kept in a table, so reading the same state again and again (a test
//! suite loading its world before every test) allocates nothing more: the table only holds the
//! distinct labels ever read, a few dozen words.
//! Part of the engine: it depends on nothing above it.

use serde::{Deserialize, Deserializer, Serializer};
use std::collections::BTreeSet;
use std::sync::Mutex;

/// A `&'static str` under another name, so that serde's derive does not take a field of this
/// type for one borrowed from the input (which would tie the input's lifetime to `'static`).
pub type Label = &'static str;

static LABELS: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());

/// The one `&'static str` with the text `text`.
pub fn intern(text: &str) -> &'static str {
    let mut labels = LABELS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&label) = labels.get(text) {
        return label;
    }
    let label: &'static str = Box::leak(text.to_owned().into_boxed_str());
    labels.insert(label);
    label
}

pub fn serialize<S: Serializer>(label: &&'static str, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(label)
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let text = std::borrow::Cow::<'de, str>::deserialize(d)?;
    Ok(intern(&text))
}

/// The same for `Option<&'static str>`.
pub mod option {
    use super::*;

    pub fn serialize<S: Serializer>(label: &Option<&'static str>, s: S) -> Result<S::Ok, S::Error> {
        match label {
            Some(label) => s.serialize_some(*label),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'static str>, D::Error> {
        let text = Option::<std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(text.map(|t| intern(&t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_text_is_the_same_label() {
        let a = intern(&String::from("post-backoff"));
        let b = intern(&String::from("post-backoff"));
        assert!(std::ptr::eq(a, b));
        assert_eq!(a, "post-backoff");
    }
}
