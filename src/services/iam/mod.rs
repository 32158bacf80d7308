//! IAM, as setup scripts use it: roles with their trust policies, inline and attached policies,
//! customer managed policies, and tags, all stored per account over AWS Query
//! (API 2010-05-08). Identity policies are stored and answered back, never enforced. The
//! credentials STS AssumeRole hands out name the role's account (`keys`).
//! It must not depend on the runtime, the protocols or the server.

mod checks;
mod errors;
pub mod keys;
mod policies;
mod roles;
pub mod store;

pub use roles::assume_role;

use super::Context;
use super::page::{Pager, Sizes, Tokens};
use crate::engine::time::Millis;
use crate::error::AwsError;
use crate::state::State;
use serde_json::{Map, Value, json};

pub fn call(
    state: &mut State,
    cx: &Context,
    operation: &str,
    input: Value,
) -> Result<Value, AwsError> {
    let input = Input(input);
    match operation {
        "CreateRole" => roles::create_role(state, cx, &input),
        "GetRole" => roles::get_role(state, cx, &input),
        "ListRoles" => roles::list_roles(state, cx, &input),
        "UpdateAssumeRolePolicy" => roles::update_assume_role_policy(state, cx, &input),
        "DeleteRole" => roles::delete_role(state, cx, &input),
        "TagRole" => roles::tag_role(state, cx, &input),
        "UntagRole" => roles::untag_role(state, cx, &input),
        "ListRoleTags" => roles::list_role_tags(state, cx, &input),
        "PutRolePolicy" => policies::put_role_policy(state, cx, &input),
        "GetRolePolicy" => policies::get_role_policy(state, cx, &input),
        "ListRolePolicies" => policies::list_role_policies(state, cx, &input),
        "DeleteRolePolicy" => policies::delete_role_policy(state, cx, &input),
        "AttachRolePolicy" => policies::attach_role_policy(state, cx, &input),
        "DetachRolePolicy" => policies::detach_role_policy(state, cx, &input),
        "ListAttachedRolePolicies" => policies::list_attached_role_policies(state, cx, &input),
        "CreatePolicy" => policies::create_policy(state, cx, &input),
        "GetPolicy" => policies::get_policy(state, cx, &input),
        "GetPolicyVersion" => policies::get_policy_version(state, cx, &input),
        "ListPolicies" => policies::list_policies(state, cx, &input),
        "DeletePolicy" => policies::delete_policy(state, cx, &input),
        "TagPolicy" => policies::tag_policy(state, cx, &input),
        "UntagPolicy" => policies::untag_policy(state, cx, &input),
        "ListPolicyTags" => policies::list_policy_tags(state, cx, &input),
        _ => Err(super::not_yet(operation)),
    }
}

/// An operation's input in the model's JSON form (required members are checked before).
struct Input(Value);

impl Input {
    fn str(&self, member: &str) -> &str {
        self.opt(member).unwrap_or_default()
    }

    fn opt(&self, member: &str) -> Option<&str> {
        self.0.get(member).and_then(Value::as_str)
    }

    fn int(&self, member: &str) -> Option<i64> {
        self.0.get(member).and_then(Value::as_i64)
    }

    fn bool(&self, member: &str) -> bool {
        self.0.get(member).and_then(Value::as_bool).unwrap_or(false)
    }

    fn tags(&self) -> Vec<(String, String)> {
        let list = self.0.get("Tags").and_then(Value::as_array);
        list.into_iter()
            .flatten()
            .map(|t| {
                let field = |k| t.get(k).and_then(Value::as_str).unwrap_or_default();
                (field("Key").to_string(), field("Value").to_string())
            })
            .collect()
    }

    fn strings(&self, member: &str) -> Vec<String> {
        let list = self.0.get(member).and_then(Value::as_array);
        list.into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    }
}

const ID_ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// A unique id of 21 characters: `prefix` (AROA for roles, ANPA for managed policies) and 17
/// more, as AWS writes them.
fn unique_id(state: &mut State, prefix: &str) -> String {
    format!("{prefix}{}", state.engine.rng.token(ID_ALPHABET, 17))
}

/// An instant as the model's JSON form carries timestamps: epoch seconds.
fn date(at: Millis) -> Value {
    json!(at as f64 / 1000.0)
}

/// Tags in the model's form.
fn tag_list(tags: &[(String, String)]) -> Value {
    tags.iter()
        .map(|(k, v)| json!({"Key": k, "Value": v}))
        .collect()
}

/// Adds `added` to `tags`, a key already there taking the new value (keys compared as IAM
/// compares them: regardless of case).
fn merge_tags(tags: &mut Vec<(String, String)>, added: Vec<(String, String)>) {
    for (key, value) in added {
        match tags.iter_mut().find(|(k, _)| k.eq_ignore_ascii_case(&key)) {
            Some(slot) => *slot = (key, value),
            None => tags.push((key, value)),
        }
    }
}

/// The pager of IAM's List operations: `Marker` and `MaxItems` (1 to 1000, 100 by default).
fn page<T>(
    items: impl IntoIterator<Item = (String, T)>,
    input: &Input,
    list: &str,
) -> Result<Value, AwsError>
where
    T: Into<Value>,
{
    const PAGER: Pager<AwsError> = Pager {
        sizes: Sizes::Fixed(1000),
        tokens: Tokens::Key,
    };
    let size = checks::max_items(input.int("MaxItems"))?;
    let (page, next) = PAGER.page_of_size(items, input.opt("Marker"), size)?;
    let mut out = Map::new();
    out.insert(
        list.into(),
        Value::Array(page.into_iter().map(Into::into).collect()),
    );
    out.insert("IsTruncated".into(), Value::Bool(next.is_some()));
    if let Some(marker) = next {
        out.insert("Marker".into(), Value::String(marker));
    }
    Ok(Value::Object(out))
}
