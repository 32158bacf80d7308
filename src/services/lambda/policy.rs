//! A function's resource policy: AddPermission, RemovePermission, GetPolicy (docs/lambda.md).
//! Each statement is kept as AddPermission was given it (`store::Statement`) and written out
//! as AWS writes it: `Principal` `{"Service": ...}` or `{"AWS": <ARN>}`, `Action`, `Resource`,
//! and `Condition` for the source ARN and account. The unqualified function and each qualifier
//! (a version, an alias) have a policy of their own. Who the policy lets invoke is `access.rs`.

use super::errors::{invalid_parameter, user, validation};
use super::functions::check_revision_id;
use super::versions::find_named;
use crate::error::AwsError;
use crate::services::Context;
use crate::state::State;
use crate::state::lambda::store::{Function, Statement};
use serde::Deserialize;
use serde_json::{Map, Value, json};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PermissionInput {
    pub function_name: String,
    pub statement_id: Option<String>,
    pub action: Option<String>,
    pub principal: Option<String>,
    pub source_arn: Option<String>,
    pub source_account: Option<String>,
    pub event_source_token: Option<String>,
    #[serde(rename = "PrincipalOrgID")]
    pub principal_org_id: Option<String>,
    pub function_url_auth_type: Option<String>,
    pub qualifier: Option<String>,
    pub revision_id: Option<String>,
}

/// A statement as AWS writes it in the policy document.
pub fn document(s: &Statement) -> Value {
    let principal = if s.principal == "*" {
        json!("*")
    } else if s.principal.len() == 12 && s.principal.chars().all(|c| c.is_ascii_digit()) {
        json!({"AWS": format!("arn:aws:iam::{}:root", s.principal)})
    } else if s.principal.starts_with("arn:") {
        json!({"AWS": s.principal})
    } else {
        json!({"Service": s.principal})
    };
    let mut condition = Map::new();
    let mut equals = Map::new();
    if let Some(account) = &s.source_account {
        equals.insert("AWS:SourceAccount".into(), json!(account));
    }
    if let Some(org) = &s.principal_org_id {
        equals.insert("aws:PrincipalOrgID".into(), json!(org));
    }
    if let Some(token) = &s.event_source_token {
        equals.insert("lambda:EventSourceToken".into(), json!(token));
    }
    if let Some(auth) = &s.function_url_auth_type {
        equals.insert("lambda:FunctionUrlAuthType".into(), json!(auth));
    }
    if !equals.is_empty() {
        condition.insert("StringEquals".into(), Value::Object(equals));
    }
    if let Some(arn) = &s.source_arn {
        condition.insert("ArnLike".into(), json!({"AWS:SourceArn": arn}));
    }
    let mut statement = json!({
        "Sid": s.sid,
        "Effect": "Allow",
        "Principal": principal,
        "Action": s.action,
        "Resource": s.resource,
    });
    if !condition.is_empty()
        && let Some(map) = statement.as_object_mut()
    {
        map.insert("Condition".into(), Value::Object(condition));
    }
    statement
}

/// The function's policy key for a qualifier: "" for the unqualified function.
fn key(qualifier: Option<&str>) -> String {
    qualifier.unwrap_or_default().to_string()
}

/// The revision of what the policy belongs to, and (through `f`) a way to change it.
fn revision_of<'f>(f: &'f mut Function, qualifier: Option<&str>) -> Option<&'f mut String> {
    match qualifier {
        None | Some("$LATEST") => Some(&mut f.revision),
        Some(q) => match f.aliases.get_mut(q) {
            Some(alias) => Some(&mut alias.revision),
            None => {
                let number = q.parse::<u32>().ok()?;
                f.versions.get_mut(&number).map(|v| &mut v.revision)
            }
        },
    }
}

/// The function (its unqualified ARN) and the qualifier a permission operation names, which
/// must exist.
fn target(
    state: &State,
    cx: &Context,
    input: &PermissionInput,
) -> Result<(String, Option<String>), AwsError> {
    let (f, qualifier, _) =
        find_named(state, cx, &input.function_name, input.qualifier.as_deref())?;
    Ok((f.arn.clone(), qualifier))
}

/// A statement id: 1 to 100 letters, digits, `-` and `_`.
fn check_sid(sid: &str) -> Result<(), AwsError> {
    let valid = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if sid.is_empty() || sid.len() > 100 || !sid.chars().all(valid) {
        return Err(validation(
            sid,
            "statementId",
            "Member must satisfy regular expression pattern: ([a-zA-Z0-9-_]+)",
        ));
    }
    Ok(())
}

/// `Action`: `lambda:<Operation>`, `lambda:*` or `*`.
fn check_action(action: &str) -> Result<(), AwsError> {
    let valid = match action.strip_prefix("lambda:") {
        Some("*") => true,
        Some(op) => !op.is_empty() && op.chars().all(|c| c.is_ascii_alphabetic()),
        None => action == "*",
    };
    if !valid {
        return Err(validation(
            action,
            "action",
            "Member must satisfy regular expression pattern: (lambda:[*]|lambda:[a-zA-Z]+|[*])",
        ));
    }
    Ok(())
}

pub fn add(state: &mut State, cx: &Context, input: PermissionInput) -> Result<Value, AwsError> {
    let (Some(sid), Some(action), Some(principal)) =
        (&input.statement_id, &input.action, &input.principal)
    else {
        return Err(invalid_parameter(
            "StatementId, Action and Principal are required.",
        ));
    };
    check_sid(sid)?;
    check_action(action)?;
    if principal.is_empty() || principal.chars().any(char::is_whitespace) {
        return Err(validation(
            principal,
            "principal",
            "Member must satisfy regular expression pattern: [^\\s]+",
        ));
    }
    if let Some(account) = input
        .source_account
        .as_ref()
        .filter(|a| a.len() != 12 || !a.chars().all(|c| c.is_ascii_digit()))
    {
        return Err(validation(
            account,
            "sourceAccount",
            "Member must satisfy regular expression pattern: \\d{12}",
        ));
    }
    let (arn, qualifier) = target(state, cx, &input)?;
    let revision = state.engine.rng.uuid();
    let Some(f) = state.lambda.functions.get_mut(&arn) else {
        return Err(AwsError::internal("the function went away"));
    };
    let Some(current) = revision_of(f, qualifier.as_deref()) else {
        return Err(AwsError::internal("the qualifier went away"));
    };
    check_revision_id(current, input.revision_id.as_deref())?;
    *current = revision;
    let statements = f.policies.entry(key(qualifier.as_deref())).or_default();
    if statements.iter().any(|s| s.sid == *sid) {
        return Err(user(
            "ResourceConflictException",
            409,
            format!(
                "The statement id ({sid}) provided already exists. Please provide a new \
                 statement id, or remove the existing statement."
            ),
        ));
    }
    let statement = Statement {
        sid: sid.clone(),
        action: action.clone(),
        principal: principal.clone(),
        resource: match &qualifier {
            Some(q) => format!("{arn}:{q}"),
            None => arn.clone(),
        },
        source_arn: input.source_arn,
        source_account: input.source_account,
        principal_org_id: input.principal_org_id,
        event_source_token: input.event_source_token,
        function_url_auth_type: input.function_url_auth_type,
    };
    let answer = document(&statement).to_string();
    statements.push(statement);
    Ok(json!({"Statement": answer}))
}

pub fn remove(state: &mut State, cx: &Context, input: PermissionInput) -> Result<Value, AwsError> {
    let sid = input.statement_id.clone().unwrap_or_default();
    let (arn, qualifier) = target(state, cx, &input)?;
    let revision = state.engine.rng.uuid();
    let Some(f) = state.lambda.functions.get_mut(&arn) else {
        return Err(AwsError::internal("the function went away"));
    };
    let key = key(qualifier.as_deref());
    let at = (f.policies.get(&key)).and_then(|list| list.iter().position(|s| s.sid == sid));
    let Some(at) = at else {
        return Err(user(
            "ResourceNotFoundException",
            404,
            format!("Statement {sid} is not found in resource policy."),
        ));
    };
    let Some(current) = revision_of(f, qualifier.as_deref()) else {
        return Err(AwsError::internal("the qualifier went away"));
    };
    check_revision_id(current, input.revision_id.as_deref())?;
    *current = revision;
    if let Some(list) = f.policies.get_mut(&key) {
        list.remove(at);
        if list.is_empty() {
            f.policies.remove(&key);
        }
    }
    Ok(json!({}))
}

/// The policy document of a function (or of one of its qualifiers), as GetPolicy answers it.
pub fn policy_of(statements: &[Statement]) -> Value {
    json!({
        "Version": "2012-10-17",
        "Id": "default",
        "Statement": statements.iter().map(document).collect::<Vec<_>>(),
    })
}

pub fn get(state: &State, cx: &Context, input: PermissionInput) -> Result<Value, AwsError> {
    let (f, qualifier, shown) =
        find_named(state, cx, &input.function_name, input.qualifier.as_deref())?;
    let revision = match qualifier.as_deref().and_then(|q| f.aliases.get(q)) {
        Some(alias) => alias.revision.clone(),
        None => shown.config.revision.clone(),
    };
    let statements = f.policies.get(&key(qualifier.as_deref()));
    let Some(statements) = statements.filter(|s| !s.is_empty()) else {
        return Err(user(
            "ResourceNotFoundException",
            404,
            "The resource you requested does not exist.",
        ));
    };
    Ok(json!({
        "Policy": policy_of(statements).to_string(),
        "RevisionId": revision,
    }))
}
