//! Typed input shapes that read the model's JSON form leniently, for the services whose checks
//! were written against it (IAM, Scheduler): a member whose JSON type is not the model's reads
//! as absent instead of failing the whole input with a SerializationException, so that the
//! service's own check answers for it (a name that is not a string is refused as an empty name
//! is). The front-ends type what they decode (Query parameters, URI labels, query strings), so
//! this matters for JSON bodies, init resource files and Scheduler's universal targets.
//!
//! And, for data kept to be echoed back as given (a schedule's target): [`take`] moves the
//! members that have the model's type into typed fields and leaves the rest where they are.

use serde::de::{Deserialize, DeserializeOwned, Deserializer};
use serde_json::{Map, Value};

/// Declares input shapes that read leniently: each `pub struct` (made `pub(crate)`) derives `Debug`, `Default` and
/// `Deserialize` with PascalCase members, and each member reads with [`lenient`] unless it names
/// another reader after `=` (`pub tags: Vec<(String, String)> = "tags",`, a reader the invoking
/// module imports) or is `= flatten` (a shape of its own, read from the same members).
macro_rules! shapes {
    (@members [$(#[$meta:meta])* $name:ident] [$($done:tt)*]) => {
        $(#[$meta])*
        #[derive(Debug, Default, serde::Deserialize)]
        #[serde(rename_all = "PascalCase")]
        pub(crate) struct $name {
            $($done)*
        }
    };
    (@members $head:tt [$($done:tt)*]
        $(#[$m:meta])* pub $member:ident: $ty:ty = flatten $(, $($rest:tt)*)?) => {
        $crate::state::lenient::shapes!(@members $head
            [$($done)* $(#[$m])* #[serde(flatten)] pub $member: $ty,] $($($rest)*)?);
    };
    (@members $head:tt [$($done:tt)*]
        $(#[$m:meta])* pub $member:ident: $ty:ty = $reader:tt $(, $($rest:tt)*)?) => {
        $crate::state::lenient::shapes!(@members $head
            [$($done)* $(#[$m])* #[serde(default, deserialize_with = $reader)] pub $member: $ty,]
            $($($rest)*)?);
    };
    (@members $head:tt [$($done:tt)*]
        $(#[$m:meta])* pub $member:ident: $ty:ty $(, $($rest:tt)*)?) => {
        $crate::state::lenient::shapes!(@members $head
            [$($done)* $(#[$m])*
                #[serde(default, deserialize_with = "crate::state::lenient::lenient")]
                pub $member: $ty,]
            $($($rest)*)?);
    };
    ($($(#[$meta:meta])* pub struct $name:ident { $($members:tt)* })*) => {
        $($crate::state::lenient::shapes!(@members [$(#[$meta])* $name] [] $($members)*);)*
    };
}
pub(crate) use shapes;

/// `#[serde(default, deserialize_with = "lenient")]`: the member, or its type's default (absent,
/// `""`, empty) when the JSON holds another type.
pub fn lenient<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned + Default,
{
    let value = Value::deserialize(deserializer)?;
    Ok(T::deserialize(value).unwrap_or_default())
}

/// `#[serde(default, deserialize_with = "strings")]`: the strings of a list member, anything
/// else in it left out; no list reads as an empty one.
pub fn strings<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    let Value::Array(items) = value else {
        return Ok(Vec::new());
    };
    let strings = items.into_iter().filter_map(|item| match item {
        Value::String(text) => Some(text),
        _ => None,
    });
    Ok(strings.collect())
}

/// A tag (`Key`, `Value`); a member that is not a string reads as `""`, and so does each member
/// of an entry that is not an object.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tag {
    pub key: String,
    pub value: String,
}

impl<'de> Deserialize<'de> for Tag {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Tag, D::Error> {
        let entry = Value::deserialize(deserializer)?;
        let field = |name: &str| entry.get(name).and_then(Value::as_str).unwrap_or_default();
        Ok(Tag {
            key: field("Key").to_string(),
            value: field("Value").to_string(),
        })
    }
}

/// `#[serde(default, deserialize_with = "tags")]`: a `Tags` list as (key, value) pairs, every
/// entry of it a tag ([`Tag`]); no list reads as no tags.
pub fn tags<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<(String, String)>, D::Error> {
    let tags: Vec<Tag> = lenient(deserializer)?;
    Ok(tags.into_iter().map(|t| (t.key, t.value)).collect())
}

/// Takes member `name` out of `given` when it holds a `T`; a member of another JSON type stays
/// in `given` as it is (and the typed field is absent).
pub fn take<T: DeserializeOwned>(given: &mut Map<String, Value>, name: &str) -> Option<T> {
    let typed = T::deserialize(given.get(name)?).ok()?;
    given.shift_remove(name);
    Some(typed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(rename_all = "PascalCase")]
    struct Shape {
        #[serde(default, deserialize_with = "lenient")]
        name: String,
        #[serde(default, deserialize_with = "lenient")]
        size: Option<i64>,
        #[serde(default, deserialize_with = "strings")]
        keys: Vec<String>,
        #[serde(default, deserialize_with = "tags")]
        tags: Vec<(String, String)>,
    }

    #[test]
    fn members_of_another_type_read_as_absent() {
        let read = |v: Value| Shape::deserialize(v).unwrap();
        assert_eq!(read(json!({})), Shape::default());
        let odd = json!({"Name": 5, "Size": 1.5, "Keys": "k", "Tags": {"Key": "k"}});
        assert_eq!(read(odd), Shape::default());
        let shape = read(json!({
            "Name": "n",
            "Size": 3,
            "Keys": ["a", 1, "b"],
            "Tags": [{"Key": "k", "Value": "v"}, {"Key": 1}, 7],
        }));
        assert_eq!(shape.name, "n");
        assert_eq!(shape.size, Some(3));
        assert_eq!(shape.keys, ["a", "b"]);
        let empty = (String::new(), String::new());
        let kv = ("k".to_string(), "v".to_string());
        assert_eq!(shape.tags, [kv, empty.clone(), empty]);
    }

    #[test]
    fn take_leaves_what_is_not_of_the_type() {
        let Value::Object(mut given) = json!({"A": "a", "B": 5, "C": null, "D": 1}) else {
            unreachable!()
        };
        assert_eq!(take::<String>(&mut given, "A").as_deref(), Some("a"));
        assert_eq!(take::<String>(&mut given, "B"), None);
        assert_eq!(take::<String>(&mut given, "C"), None);
        assert_eq!(take::<String>(&mut given, "Z"), None);
        assert_eq!(Value::Object(given), json!({"B": 5, "C": null, "D": 1}));
    }
}
