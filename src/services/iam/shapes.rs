//! IAM's operation inputs, typed, as the model names their members. The Query front-end types
//! what it decodes; init resource files and Scheduler's universal targets hand over JSON as
//! written, which these read leniently (`services::lenient`): a member of another JSON type
//! reads as absent, so the checks of the operations answer for it as they word it.
//! Plain data: no operation here.

use crate::services::lenient::{lenient, strings, tags};
use serde::Deserialize;

/// `Marker` and `MaxItems` of a List operation.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Paging {
    #[serde(default, deserialize_with = "lenient")]
    pub marker: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub max_items: Option<i64>,
}

/// GetRole's and DeleteRole's input.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RoleName {
    #[serde(default, deserialize_with = "lenient")]
    pub role_name: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateRoleInput {
    #[serde(default, deserialize_with = "lenient")]
    pub role_name: String,
    #[serde(default, deserialize_with = "lenient")]
    pub path: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub assume_role_policy_document: String,
    #[serde(default, deserialize_with = "lenient")]
    pub description: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub max_session_duration: Option<i64>,
    #[serde(default, deserialize_with = "lenient")]
    pub permissions_boundary: Option<String>,
    #[serde(default, deserialize_with = "tags")]
    pub tags: Vec<(String, String)>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListRolesInput {
    #[serde(default, deserialize_with = "lenient")]
    pub path_prefix: Option<String>,
    #[serde(flatten)]
    pub paging: Paging,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateAssumeRolePolicyInput {
    #[serde(default, deserialize_with = "lenient")]
    pub role_name: String,
    #[serde(default, deserialize_with = "lenient")]
    pub policy_document: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TagRoleInput {
    #[serde(default, deserialize_with = "lenient")]
    pub role_name: String,
    #[serde(default, deserialize_with = "tags")]
    pub tags: Vec<(String, String)>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UntagRoleInput {
    #[serde(default, deserialize_with = "lenient")]
    pub role_name: String,
    #[serde(default, deserialize_with = "strings")]
    pub tag_keys: Vec<String>,
}

/// ListRoleTags' and ListRolePolicies' input: a role and a page.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RolePage {
    #[serde(default, deserialize_with = "lenient")]
    pub role_name: String,
    #[serde(flatten)]
    pub paging: Paging,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PutRolePolicyInput {
    #[serde(default, deserialize_with = "lenient")]
    pub role_name: String,
    #[serde(default, deserialize_with = "lenient")]
    pub policy_name: String,
    #[serde(default, deserialize_with = "lenient")]
    pub policy_document: String,
}

/// GetRolePolicy's and DeleteRolePolicy's input: a role's inline policy.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RolePolicyName {
    #[serde(default, deserialize_with = "lenient")]
    pub role_name: String,
    #[serde(default, deserialize_with = "lenient")]
    pub policy_name: String,
}

/// AttachRolePolicy's and DetachRolePolicy's input: a role and a managed policy.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct RolePolicyArn {
    #[serde(default, deserialize_with = "lenient")]
    pub role_name: String,
    #[serde(default, deserialize_with = "lenient")]
    pub policy_arn: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListAttachedRolePoliciesInput {
    #[serde(default, deserialize_with = "lenient")]
    pub role_name: String,
    #[serde(default, deserialize_with = "lenient")]
    pub path_prefix: Option<String>,
    #[serde(flatten)]
    pub paging: Paging,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreatePolicyInput {
    #[serde(default, deserialize_with = "lenient")]
    pub policy_name: String,
    #[serde(default, deserialize_with = "lenient")]
    pub path: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub policy_document: String,
    #[serde(default, deserialize_with = "lenient")]
    pub description: Option<String>,
    #[serde(default, deserialize_with = "tags")]
    pub tags: Vec<(String, String)>,
}

/// GetPolicy's and DeletePolicy's input.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PolicyArn {
    #[serde(default, deserialize_with = "lenient")]
    pub policy_arn: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct GetPolicyVersionInput {
    #[serde(default, deserialize_with = "lenient")]
    pub policy_arn: String,
    #[serde(default, deserialize_with = "lenient")]
    pub version_id: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListPoliciesInput {
    #[serde(default, deserialize_with = "lenient")]
    pub scope: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub only_attached: bool,
    #[serde(default, deserialize_with = "lenient")]
    pub path_prefix: Option<String>,
    #[serde(flatten)]
    pub paging: Paging,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TagPolicyInput {
    #[serde(default, deserialize_with = "lenient")]
    pub policy_arn: String,
    #[serde(default, deserialize_with = "tags")]
    pub tags: Vec<(String, String)>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UntagPolicyInput {
    #[serde(default, deserialize_with = "lenient")]
    pub policy_arn: String,
    #[serde(default, deserialize_with = "strings")]
    pub tag_keys: Vec<String>,
}

/// ListPolicyTags' input: a managed policy and a page.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PolicyPage {
    #[serde(default, deserialize_with = "lenient")]
    pub policy_arn: String,
    #[serde(flatten)]
    pub paging: Paging,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_page_is_read_beside_the_other_members() {
        let input: ListPoliciesInput = serde_json::from_value(json!({
            "Scope": "Local",
            "OnlyAttached": "yes",
            "Marker": "m",
            "MaxItems": 5,
        }))
        .unwrap();
        assert_eq!(input.scope.as_deref(), Some("Local"));
        // Not a boolean: read as absent (false), as IAM read it before typed shapes.
        assert!(!input.only_attached);
        assert_eq!(input.paging.marker.as_deref(), Some("m"));
        assert_eq!(input.paging.max_items, Some(5));
        let odd: RolePage =
            serde_json::from_value(json!({"RoleName": 1, "MaxItems": "x"})).unwrap();
        assert_eq!((odd.role_name.as_str(), odd.paging.max_items), ("", None));
    }
}
