//! IAM, as setup scripts use it: roles with their trust policies, inline and attached policies,
//! customer managed policies, and tags, all stored per account over AWS Query
//! (API 2010-05-08). Identity policies are stored and answered back, never enforced. The
//! credentials STS AssumeRole hands out name the role's account (`keys`).
//! It must not depend on the runtime, the protocols or the server.

mod checks;
mod errors;
pub mod identity;
pub mod keys;
mod policies;
mod roles;
mod shapes;
pub use crate::state::iam::store;

pub use roles::assume_role;

use super::page::{Pager, Sizes, Tokens};
use super::{Context, parse};
use crate::engine::time::Millis;
use crate::error::AwsError;
use crate::state::State;
use serde_json::{Map, Value, json};
use shapes::Paging;

/// Runs an IAM operation on its typed input. The shapes read leniently, so only an input that is
/// not a JSON object fails to parse (the front-ends never hand one over).
pub fn call(e: &mut State, cx: &Context, operation: &str, input: Value) -> Result<Value, AwsError> {
    use policies::*;
    use roles::*;
    match operation {
        "CreateRole" => create_role(e, cx, parse(input)?),
        "GetRole" => get_role(e, cx, parse(input)?),
        "ListRoles" => list_roles(e, cx, parse(input)?),
        "UpdateAssumeRolePolicy" => update_assume_role_policy(e, cx, parse(input)?),
        "DeleteRole" => delete_role(e, cx, parse(input)?),
        "TagRole" => tag_role(e, cx, parse(input)?),
        "UntagRole" => untag_role(e, cx, parse(input)?),
        "ListRoleTags" => list_role_tags(e, cx, parse(input)?),
        "PutRolePolicy" => put_role_policy(e, cx, parse(input)?),
        "GetRolePolicy" => get_role_policy(e, cx, parse(input)?),
        "ListRolePolicies" => list_role_policies(e, cx, parse(input)?),
        "DeleteRolePolicy" => delete_role_policy(e, cx, parse(input)?),
        "AttachRolePolicy" => attach_role_policy(e, cx, parse(input)?),
        "DetachRolePolicy" => detach_role_policy(e, cx, parse(input)?),
        "ListAttachedRolePolicies" => list_attached_role_policies(e, cx, parse(input)?),
        "CreatePolicy" => create_policy(e, cx, parse(input)?),
        "GetPolicy" => get_policy(e, cx, parse(input)?),
        "GetPolicyVersion" => get_policy_version(e, cx, parse(input)?),
        "ListPolicies" => list_policies(e, cx, parse(input)?),
        "DeletePolicy" => delete_policy(e, cx, parse(input)?),
        "TagPolicy" => tag_policy(e, cx, parse(input)?),
        "UntagPolicy" => untag_policy(e, cx, parse(input)?),
        "ListPolicyTags" => list_policy_tags(e, cx, parse(input)?),
        _ => Err(super::not_yet(operation)),
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
    paging: &Paging,
    list: &str,
) -> Result<Value, AwsError>
where
    T: Into<Value>,
{
    const PAGER: Pager<AwsError> = Pager {
        sizes: Sizes::Fixed(1000),
        tokens: Tokens::Key,
    };
    let size = checks::max_items(paging.max_items)?;
    let (page, next) = PAGER.page_of_size(items, paging.marker.as_deref(), size)?;
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
