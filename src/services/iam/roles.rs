//! Roles: CreateRole, GetRole, ListRoles, UpdateAssumeRolePolicy, DeleteRole, the role tags, and
//! the role side of STS AssumeRole (which role, for how long, in which account).

use super::errors::{delete_conflict, no_such_role, role_exists, validation};
use super::shapes::{
    CreateRoleInput, ListRolesInput, RoleName, RolePage, TagRoleInput, UntagRoleInput,
    UpdateAssumeRolePolicyInput,
};
use super::store::{Account, Role, Session};
use super::{checks, date, merge_tags, page, tag_list, unique_id};
use crate::arn::Arn;
use crate::error::AwsError;
use crate::services::{Context, SetMember};
use crate::state::State;
use serde_json::{Map, Value, json};

/// The role's shape as GetRole and CreateRole answer it (ListRoles leaves out tags and last use).
pub(super) fn role_value(role: &Role, full: bool) -> Value {
    let mut v = Map::new();
    v.insert("Path".into(), json!(role.path));
    v.insert("RoleName".into(), json!(role.name));
    v.insert("RoleId".into(), json!(role.id));
    v.insert("Arn".into(), json!(role.arn));
    v.insert("CreateDate".into(), date(role.created_at));
    // AWS answers the document URL-encoded over Query; the SDKs decode it.
    let encoded: String =
        form_urlencoded::byte_serialize(role.assume_role_policy.as_bytes()).collect();
    v.insert(
        "AssumeRolePolicyDocument".into(),
        json!(encoded.replace('+', "%20")),
    );
    if let Some(d) = &role.description {
        v.insert("Description".into(), json!(d));
    }
    v.insert(
        "MaxSessionDuration".into(),
        json!(role.max_session_duration),
    );
    if let Some(b) = &role.permissions_boundary {
        let boundary = json!({"PermissionsBoundaryType": "Policy", "PermissionsBoundaryArn": b});
        v.insert("PermissionsBoundary".into(), boundary);
    }
    if full {
        if !role.tags.is_empty() {
            v.insert("Tags".into(), tag_list(&role.tags));
        }
        v.insert("RoleLastUsed".into(), json!({}));
    }
    Value::Object(v)
}

fn account<'a>(state: &'a mut State, cx: &Context) -> &'a mut Account {
    state.iam.accounts.entry(cx.account.clone()).or_default()
}

/// The role named `name` in the caller's account.
pub(super) fn role_mut<'a>(
    state: &'a mut State,
    cx: &Context,
    name: &str,
) -> Result<&'a mut Role, AwsError> {
    checks::name(name, "roleName", 64)?;
    let roles = &mut account(state, cx).roles;
    roles
        .get_mut(&name.to_ascii_lowercase())
        .ok_or_else(|| no_such_role(name))
}

pub(super) fn create_role(
    state: &mut State,
    cx: &Context,
    input: CreateRoleInput,
) -> Result<Value, AwsError> {
    let name = input.role_name.as_str();
    checks::name(name, "roleName", 64)?;
    let path = input.path.as_deref().unwrap_or("/");
    checks::role_path(path)?;
    let document = input.assume_role_policy_document.as_str();
    let description = input.description;
    if let Some(d) = &description {
        checks::description(d)?;
    }
    let max_session_duration = input.max_session_duration.unwrap_or(3600);
    checks::max_session_duration(max_session_duration)?;
    let tags = input.tags;
    checks::tags(&[], &tags)?;
    checks::trust_policy(document)?;
    let key = name.to_ascii_lowercase();
    if account(state, cx).roles.contains_key(&key) {
        return Err(role_exists(name));
    }
    let role = Role {
        name: name.to_string(),
        id: unique_id(state, "AROA"),
        arn: Arn::new("iam", "", &cx.account, &format!("role{path}{name}")).text(),
        path: path.to_string(),
        created_at: state.now(),
        assume_role_policy: document.to_string(),
        description,
        max_session_duration,
        permissions_boundary: input.permissions_boundary,
        inline: Default::default(),
        attached: Default::default(),
        tags,
    };
    let mut answer = role_value(&role, false);
    if !role.tags.is_empty() {
        answer.set("Tags", tag_list(&role.tags));
    }
    let answer = json!({ "Role": answer });
    account(state, cx).roles.insert(key, role);
    Ok(answer)
}

pub(super) fn get_role(
    state: &mut State,
    cx: &Context,
    input: RoleName,
) -> Result<Value, AwsError> {
    let role = role_mut(state, cx, &input.role_name)?;
    Ok(json!({"Role": role_value(role, true)}))
}

pub(super) fn list_roles(
    state: &mut State,
    cx: &Context,
    input: ListRolesInput,
) -> Result<Value, AwsError> {
    let prefix = input.path_prefix.as_deref().unwrap_or("/");
    checks::path_prefix(prefix)?;
    let roles = &account(state, cx).roles;
    let items = roles
        .iter()
        .filter(|(_, r)| r.path.starts_with(prefix))
        .map(|(k, r)| (k.clone(), role_value(r, false)));
    page(items, &input.paging, "Roles")
}

pub(super) fn update_assume_role_policy(
    state: &mut State,
    cx: &Context,
    input: UpdateAssumeRolePolicyInput,
) -> Result<Value, AwsError> {
    let document = input.policy_document.as_str();
    let role = role_mut(state, cx, &input.role_name)?;
    checks::trust_policy(document)?;
    role.assume_role_policy = document.to_string();
    Ok(json!({}))
}

pub(super) fn delete_role(
    state: &mut State,
    cx: &Context,
    input: RoleName,
) -> Result<Value, AwsError> {
    let name = input.role_name.as_str();
    let role = role_mut(state, cx, name)?;
    if !role.attached.is_empty() {
        return Err(delete_conflict(
            "Cannot delete entity, must detach all policies first.",
        ));
    }
    if !role.inline.is_empty() {
        return Err(delete_conflict(
            "Cannot delete entity, must delete policies first.",
        ));
    }
    account(state, cx).roles.remove(&name.to_ascii_lowercase());
    Ok(json!({}))
}

pub(super) fn tag_role(
    state: &mut State,
    cx: &Context,
    input: TagRoleInput,
) -> Result<Value, AwsError> {
    let tags = input.tags;
    let role = role_mut(state, cx, &input.role_name)?;
    checks::tags(&role.tags, &tags)?;
    merge_tags(&mut role.tags, tags);
    Ok(json!({}))
}

pub(super) fn untag_role(
    state: &mut State,
    cx: &Context,
    input: UntagRoleInput,
) -> Result<Value, AwsError> {
    let keys = input.tag_keys;
    let role = role_mut(state, cx, &input.role_name)?;
    role.tags
        .retain(|(k, _)| !keys.iter().any(|r| r.eq_ignore_ascii_case(k)));
    Ok(json!({}))
}

pub(super) fn list_role_tags(
    state: &mut State,
    cx: &Context,
    input: RolePage,
) -> Result<Value, AwsError> {
    let role = role_mut(state, cx, &input.role_name)?;
    let items: Vec<_> = role
        .tags
        .iter()
        .map(|(k, v)| (k.clone(), json!({"Key": k, "Value": v})))
        .collect();
    let mut sorted = items;
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    page(sorted, &input.paging, "Tags")
}

/// STS AssumeRole's check of the role and its session: the role ARN names a role that exists
/// (in any account: the ARN's), the session name and duration are in range. Answers the
/// session's account and its expiry in seconds from now.
pub fn assume_role(
    state: &mut State,
    caller: &Context,
    role_arn: &str,
    session_name: &str,
    duration: Option<i64>,
) -> Result<(Session, i64), AwsError> {
    let denied = || {
        AwsError::new(
            "AccessDenied",
            403,
            format!(
                "User: {} is not authorized to perform: sts:AssumeRole on resource: {role_arn}",
                super::identity::caller_arn(state, caller)
            ),
        )
    };
    let session_ok = (2..=64).contains(&session_name.len())
        && session_name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_+=,.@-".contains(c));
    if !session_ok {
        let rule = if session_name.len() < 2 {
            "Member must have length greater than or equal to 2"
        } else if session_name.len() > 64 {
            "Member must have length less than or equal to 64"
        } else {
            "Member must satisfy regular expression pattern: [\\w+=,.@-]*"
        };
        return Err(validation(session_name, "roleSessionName", rule));
    }
    if role_arn.len() < 20 {
        let rule = "Member must have length greater than or equal to 20";
        return Err(validation(role_arn, "roleArn", rule));
    }
    if let Some(d) = duration.filter(|d| *d < 900) {
        let rule = "Member must have value greater than or equal to 900";
        return Err(validation(d, "durationSeconds", rule));
    }
    if let Some(d) = duration.filter(|d| *d > 43200) {
        let rule = "Member must have value less than or equal to 43200";
        return Err(validation(d, "durationSeconds", rule));
    }
    let arn = Arn::parse(role_arn).filter(|a| a.service == "iam");
    let (account, name) = arn
        .and_then(|a| {
            let name = a.resource.strip_prefix("role/")?.rsplit('/').next()?;
            Some((a.account.to_string(), name.to_string()))
        })
        .ok_or_else(denied)?;
    let role = state
        .iam
        .accounts
        .get(&account)
        .and_then(|a| a.roles.get(&name.to_ascii_lowercase()))
        .filter(|r| r.arn == role_arn)
        .ok_or_else(denied)?;
    let seconds = duration.unwrap_or(3600);
    if seconds > role.max_session_duration {
        return Err(AwsError::client(
            "ValidationError",
            "The requested DurationSeconds exceeds the MaxSessionDuration set for this role.",
        ));
    }
    let session = Session {
        account,
        role_name: role.name.clone(),
        role_id: role.id.clone(),
        session_name: session_name.to_string(),
    };
    Ok((session, seconds))
}
