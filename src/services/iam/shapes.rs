//! IAM's operation inputs, typed, as the model names their members. The Query front-end types
//! what it decodes; init resource files and Scheduler's universal targets hand over JSON as
//! written, which these read leniently (`services::lenient`): a member of another JSON type
//! reads as absent, so the checks of the operations answer for it as they word it.
//! Plain data: no operation here.

use crate::services::lenient::{shapes, strings, tags};

shapes! {
    /// `Marker` and `MaxItems` of a List operation.
    pub struct Paging {
        pub marker: Option<String>,
        pub max_items: Option<i64>,
    }

    /// GetRole's and DeleteRole's input.
    pub struct RoleName {
        pub role_name: String,
    }

    pub struct CreateRoleInput {
        pub role_name: String,
        pub path: Option<String>,
        pub assume_role_policy_document: String,
        pub description: Option<String>,
        pub max_session_duration: Option<i64>,
        pub permissions_boundary: Option<String>,
        pub tags: Vec<(String, String)> = "tags",
    }

    pub struct ListRolesInput {
        pub path_prefix: Option<String>,
        pub paging: Paging = flatten,
    }

    pub struct UpdateAssumeRolePolicyInput {
        pub role_name: String,
        pub policy_document: String,
    }

    pub struct TagRoleInput {
        pub role_name: String,
        pub tags: Vec<(String, String)> = "tags",
    }

    pub struct UntagRoleInput {
        pub role_name: String,
        pub tag_keys: Vec<String> = "strings",
    }

    /// ListRoleTags' and ListRolePolicies' input: a role and a page.
    pub struct RolePage {
        pub role_name: String,
        pub paging: Paging = flatten,
    }

    pub struct PutRolePolicyInput {
        pub role_name: String,
        pub policy_name: String,
        pub policy_document: String,
    }

    /// GetRolePolicy's and DeleteRolePolicy's input: a role's inline policy.
    pub struct RolePolicyName {
        pub role_name: String,
        pub policy_name: String,
    }

    /// AttachRolePolicy's and DetachRolePolicy's input: a role and a managed policy.
    pub struct RolePolicyArn {
        pub role_name: String,
        pub policy_arn: String,
    }

    pub struct ListAttachedRolePoliciesInput {
        pub role_name: String,
        pub path_prefix: Option<String>,
        pub paging: Paging = flatten,
    }

    pub struct CreatePolicyInput {
        pub policy_name: String,
        pub path: Option<String>,
        pub policy_document: String,
        pub description: Option<String>,
        pub tags: Vec<(String, String)> = "tags",
    }

    /// GetPolicy's and DeletePolicy's input.
    pub struct PolicyArn {
        pub policy_arn: String,
    }

    pub struct GetPolicyVersionInput {
        pub policy_arn: String,
        pub version_id: String,
    }

    pub struct ListPoliciesInput {
        pub scope: Option<String>,
        pub only_attached: bool,
        pub path_prefix: Option<String>,
        pub paging: Paging = flatten,
    }

    pub struct TagPolicyInput {
        pub policy_arn: String,
        pub tags: Vec<(String, String)> = "tags",
    }

    pub struct UntagPolicyInput {
        pub policy_arn: String,
        pub tag_keys: Vec<String> = "strings",
    }

    /// ListPolicyTags' input: a managed policy and a page.
    pub struct PolicyPage {
        pub policy_arn: String,
        pub paging: Paging = flatten,
    }
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
