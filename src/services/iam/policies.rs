//! Policies: a role's inline policies (Put/Get/List/DeleteRolePolicy), customer managed
//! policies (CreatePolicy, GetPolicy, GetPolicyVersion, ListPolicies, DeletePolicy and their
//! tags) and their attachment to roles. Documents are stored and answered back, never enforced.
//! AWS managed policies (`arn:aws:iam::aws:policy/…`) may be attached by ARN; switchyard holds
//! no copy of them.

use super::errors::{
    delete_conflict, invalid_input, limit_exceeded, no_such_policy, no_such_role_policy,
    policy_exists,
};
use super::roles::role_mut;
use super::shapes::{
    CreatePolicyInput, GetPolicyVersionInput, ListAttachedRolePoliciesInput, ListPoliciesInput,
    PolicyArn, PolicyPage, PutRolePolicyInput, RolePage, RolePolicyArn, RolePolicyName,
    TagPolicyInput, UntagPolicyInput,
};
use super::store::{Account, Policy, Role};
use super::{checks, date, merge_tags, page, tag_list, unique_id};
use crate::arn::Arn;
use crate::error::AwsError;
use crate::services::Context;
use crate::state::State;
use serde_json::{Map, Value, json};

/// A document as IAM's Query answers carry it: URL-encoded (the SDKs decode it).
fn encoded(document: &str) -> String {
    let text: String = form_urlencoded::byte_serialize(document.as_bytes()).collect();
    text.replace('+', "%20")
}

fn account<'a>(state: &'a mut State, cx: &Context) -> &'a mut Account {
    state.iam.accounts.entry(cx.account.clone()).or_default()
}

pub(super) fn put_role_policy(
    state: &mut State,
    cx: &Context,
    input: PutRolePolicyInput,
) -> Result<Value, AwsError> {
    let name = input.policy_name.as_str();
    checks::name(name, "policyName", 128)?;
    let document = input.policy_document.as_str();
    let role = role_mut(state, cx, &input.role_name)?;
    checks::identity_policy(document)?;
    role.inline.insert(name.to_string(), document.to_string());
    Ok(json!({}))
}

/// The role whose inline policy `input` names, and the policy's name (checked first).
fn inline_policy<'a>(
    state: &'a mut State,
    cx: &Context,
    input: &'a RolePolicyName,
) -> Result<(&'a mut Role, &'a str), AwsError> {
    let name = input.policy_name.as_str();
    checks::name(name, "policyName", 128)?;
    Ok((role_mut(state, cx, &input.role_name)?, name))
}

pub(super) fn get_role_policy(
    state: &mut State,
    cx: &Context,
    input: RolePolicyName,
) -> Result<Value, AwsError> {
    let (role, name) = inline_policy(state, cx, &input)?;
    let document = role
        .inline
        .get(name)
        .ok_or_else(|| no_such_role_policy(name))?;
    Ok(json!({"RoleName": role.name, "PolicyName": name, "PolicyDocument": encoded(document)}))
}

pub(super) fn list_role_policies(
    state: &mut State,
    cx: &Context,
    input: RolePage,
) -> Result<Value, AwsError> {
    let role = role_mut(state, cx, &input.role_name)?;
    let names: Vec<_> = role.inline.keys().map(|k| (k.clone(), k.clone())).collect();
    page(names, &input.paging, "PolicyNames")
}

pub(super) fn delete_role_policy(
    state: &mut State,
    cx: &Context,
    input: RolePolicyName,
) -> Result<Value, AwsError> {
    let (role, name) = inline_policy(state, cx, &input)?;
    role.inline
        .remove(name)
        .ok_or_else(|| no_such_role_policy(name))?;
    Ok(json!({}))
}

/// A policy ARN the caller may name: well formed, of IAM, `policy/…`.
fn policy_arn(arn: &str) -> Result<Arn<'_>, AwsError> {
    Arn::parse(arn)
        .filter(|a| a.service == "iam" && a.resource.starts_with("policy/"))
        .ok_or_else(|| invalid_input(format!("ARN {arn} is not valid.")))
}

/// The name in a policy ARN (its last path segment).
fn policy_name(arn: &Arn) -> String {
    arn.resource
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .to_string()
}

/// The caller's customer managed policy of ARN `arn`.
fn policy_mut<'a>(
    state: &'a mut State,
    cx: &Context,
    arn: &str,
) -> Result<&'a mut Policy, AwsError> {
    let parsed = policy_arn(arn)?;
    let key = policy_name(&parsed).to_ascii_lowercase();
    account(state, cx)
        .policies
        .get_mut(&key)
        .filter(|p| p.arn == arn)
        .ok_or_else(|| no_such_policy(arn))
}

pub(super) fn attach_role_policy(
    state: &mut State,
    cx: &Context,
    input: RolePolicyArn,
) -> Result<Value, AwsError> {
    let arn = input.policy_arn.as_str();
    let parsed = policy_arn(arn)?;
    let aws_managed = parsed.account == "aws";
    let name = policy_name(&parsed);
    role_mut(state, cx, &input.role_name)?;
    if !aws_managed && policy_mut(state, cx, arn).is_err() {
        return Err(AwsError::client(
            "NoSuchEntityException",
            format!("Policy {arn} does not exist or is not attachable."),
        ));
    }
    let role = role_mut(state, cx, &input.role_name)?;
    if !role.attached.contains_key(arn) && role.attached.len() >= 10 {
        return Err(limit_exceeded(
            "Cannot exceed quota for PoliciesPerRole: 10",
        ));
    }
    role.attached.insert(arn.to_string(), name);
    Ok(json!({}))
}

pub(super) fn detach_role_policy(
    state: &mut State,
    cx: &Context,
    input: RolePolicyArn,
) -> Result<Value, AwsError> {
    let arn = input.policy_arn.as_str();
    policy_arn(arn)?;
    let role = role_mut(state, cx, &input.role_name)?;
    role.attached
        .remove(arn)
        .ok_or_else(|| no_such_policy(arn))?;
    Ok(json!({}))
}

pub(super) fn list_attached_role_policies(
    state: &mut State,
    cx: &Context,
    input: ListAttachedRolePoliciesInput,
) -> Result<Value, AwsError> {
    let prefix = input.path_prefix.as_deref().unwrap_or("/");
    checks::path_prefix(prefix)?;
    let role = role_mut(state, cx, &input.role_name)?;
    let items: Vec<_> = role
        .attached
        .iter()
        .filter(|(arn, _)| {
            let resource = Arn::parse(arn).map_or("", |a| a.resource);
            resource
                .strip_prefix("policy")
                .is_some_and(|p| p.starts_with(prefix))
        })
        .map(|(arn, name)| (arn.clone(), json!({"PolicyName": name, "PolicyArn": arn})))
        .collect();
    page(items, &input.paging, "AttachedPolicies")
}

pub(super) fn create_policy(
    state: &mut State,
    cx: &Context,
    input: CreatePolicyInput,
) -> Result<Value, AwsError> {
    let name = input.policy_name.as_str();
    checks::name(name, "policyName", 128)?;
    let path = input.path.as_deref().unwrap_or("/");
    checks::policy_path(path)?;
    let description = input.description;
    if let Some(d) = &description {
        checks::description(d)?;
    }
    let tags = input.tags;
    checks::tags(&[], &tags)?;
    let document = input.policy_document.as_str();
    checks::identity_policy(document)?;
    let key = name.to_ascii_lowercase();
    if account(state, cx).policies.contains_key(&key) {
        return Err(policy_exists(name));
    }
    let policy = Policy {
        name: name.to_string(),
        id: unique_id(state, "ANPA"),
        arn: Arn::new("iam", "", &cx.account, &format!("policy{path}{name}")).text(),
        path: path.to_string(),
        created_at: state.now(),
        description,
        document: document.to_string(),
        tags,
    };
    let mut answer = policy_value(&policy, 0);
    answer.remove("Description");
    let answer = json!({"Policy": answer});
    account(state, cx).policies.insert(key, policy);
    Ok(answer)
}

/// The policy as GetPolicy answers it, with its attachment count.
fn policy_value(policy: &Policy, attachments: usize) -> Map<String, Value> {
    let mut v = Map::new();
    v.insert("PolicyName".into(), json!(policy.name));
    v.insert("PolicyId".into(), json!(policy.id));
    v.insert("Arn".into(), json!(policy.arn));
    v.insert("Path".into(), json!(policy.path));
    v.insert("DefaultVersionId".into(), json!("v1"));
    v.insert("AttachmentCount".into(), json!(attachments));
    v.insert("PermissionsBoundaryUsageCount".into(), json!(0));
    v.insert("IsAttachable".into(), json!(true));
    if let Some(d) = &policy.description {
        v.insert("Description".into(), json!(d));
    }
    v.insert("CreateDate".into(), date(policy.created_at));
    v.insert("UpdateDate".into(), date(policy.created_at));
    if !policy.tags.is_empty() {
        v.insert("Tags".into(), tag_list(&policy.tags));
    }
    v
}

/// How many of the account's roles have `arn` attached.
fn attachments(account: &Account, arn: &str) -> usize {
    account
        .roles
        .values()
        .filter(|r| r.attached.contains_key(arn))
        .count()
}

pub(super) fn get_policy(
    state: &mut State,
    cx: &Context,
    input: PolicyArn,
) -> Result<Value, AwsError> {
    let arn = input.policy_arn.as_str();
    let policy = policy_mut(state, cx, arn)?.clone();
    let count = attachments(account(state, cx), arn);
    Ok(json!({"Policy": policy_value(&policy, count)}))
}

pub(super) fn get_policy_version(
    state: &mut State,
    cx: &Context,
    input: GetPolicyVersionInput,
) -> Result<Value, AwsError> {
    let arn = input.policy_arn.as_str();
    let version = input.version_id.as_str();
    let policy = policy_mut(state, cx, arn)?;
    if version != "v1" {
        return Err(AwsError::client(
            "NoSuchEntityException",
            format!("Policy {arn} version {version} does not exist or is not attachable."),
        ));
    }
    let answer = json!({"PolicyVersion": {
        "Document": encoded(&policy.document),
        "VersionId": "v1",
        "IsDefaultVersion": true,
        "CreateDate": date(policy.created_at),
    }});
    Ok(answer)
}

pub(super) fn list_policies(
    state: &mut State,
    cx: &Context,
    input: ListPoliciesInput,
) -> Result<Value, AwsError> {
    let prefix = input.path_prefix.as_deref().unwrap_or("/");
    checks::policy_path(prefix).or_else(|_| checks::path_prefix(prefix))?;
    let scope = input.scope.as_deref().unwrap_or("All");
    let only_attached = input.only_attached;
    let account = account(state, cx);
    let items: Vec<_> = account
        .policies
        .iter()
        .filter(|_| scope != "AWS")
        .filter(|(_, p)| p.path.starts_with(prefix))
        .map(|(k, p)| (k, p, attachments(account, &p.arn)))
        .filter(|(_, _, n)| !only_attached || *n > 0)
        .map(|(k, p, n)| {
            let mut v = policy_value(p, n);
            v.remove("Description");
            v.remove("Tags");
            (k.clone(), Value::Object(v))
        })
        .collect();
    page(items, &input.paging, "Policies")
}

pub(super) fn delete_policy(
    state: &mut State,
    cx: &Context,
    input: PolicyArn,
) -> Result<Value, AwsError> {
    let arn = input.policy_arn.as_str();
    let key = policy_mut(state, cx, arn)?.name.to_ascii_lowercase();
    let account = account(state, cx);
    if attachments(account, arn) > 0 {
        return Err(delete_conflict(
            "Cannot delete a policy attached to entities.",
        ));
    }
    account.policies.remove(&key);
    Ok(json!({}))
}

pub(super) fn tag_policy(
    state: &mut State,
    cx: &Context,
    input: TagPolicyInput,
) -> Result<Value, AwsError> {
    let tags = input.tags;
    let policy = policy_mut(state, cx, &input.policy_arn)?;
    checks::tags(&policy.tags, &tags)?;
    merge_tags(&mut policy.tags, tags);
    Ok(json!({}))
}

pub(super) fn untag_policy(
    state: &mut State,
    cx: &Context,
    input: UntagPolicyInput,
) -> Result<Value, AwsError> {
    let keys = input.tag_keys;
    let policy = policy_mut(state, cx, &input.policy_arn)?;
    policy
        .tags
        .retain(|(k, _)| !keys.iter().any(|r| r.eq_ignore_ascii_case(k)));
    Ok(json!({}))
}

pub(super) fn list_policy_tags(
    state: &mut State,
    cx: &Context,
    input: PolicyPage,
) -> Result<Value, AwsError> {
    let policy = policy_mut(state, cx, &input.policy_arn)?;
    let mut items: Vec<_> = policy
        .tags
        .iter()
        .map(|(k, v)| (k.clone(), json!({"Key": k, "Value": v})))
        .collect();
    items.sort_by(|a, b| a.0.cmp(&b.0));
    page(items, &input.paging, "Tags")
}
