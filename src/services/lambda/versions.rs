//! Versions: PublishVersion, ListVersionsByFunction, DeleteFunction of one version; and what a
//! qualifier names (`$LATEST`, a version number, an alias) for every operation that takes one
//! (docs/lambda.md). A version is an immutable copy of `$LATEST`'s configuration and code as
//! it was when published.

use super::errors::{function_not_found, invalid_parameter, user};
use super::lookup::{Seen, check_revision, code_digest, find_mut, resolve_in, shown};
use super::paging::{page, page_size};
use super::shapes::{
    FunctionConfiguration, FunctionNameInput, ListByFunctionInput, PublishVersionInput,
};
use crate::error::AwsError;
use crate::services::{Context, SetMember};
use crate::state::State;
use crate::state::lambda::store::Function;
use serde_json::{Value, json};

/// A function as a qualifier shows it.
pub struct Shown<'s> {
    /// The configuration: `$LATEST`'s (the function itself) or a published version's copy.
    pub config: &'s Function,
    /// `$LATEST` or the version's number.
    pub version: String,
    /// The ARN answered: the unqualified one when the caller named no qualifier, else the ARN
    /// with the qualifier named (an alias's ARN for an alias).
    pub arn: String,
}

impl Shown<'_> {
    pub fn configuration(&self) -> FunctionConfiguration {
        shown(self.config, &self.version, &self.arn, Seen::Read)
    }
}

/// `$LATEST`, or the published version `version`.
pub fn version_config<'s>(f: &'s Function, version: &str) -> Option<&'s Function> {
    if version == "$LATEST" {
        return Some(f);
    }
    let number: u32 = version.parse().ok()?;
    f.versions.get(&number)
}

/// What `qualifier` names of `f`: ResourceNotFoundException (`Function not found: <ARN>:<q>`)
/// for a version or alias that does not exist. An alias shows its version (the one it points
/// to; [`route`] picks the weighted one for an invocation).
pub fn show<'s>(f: &'s Function, qualifier: Option<&str>) -> Result<Shown<'s>, AwsError> {
    let Some(q) = qualifier else {
        return Ok(Shown {
            config: f,
            version: "$LATEST".into(),
            arn: f.arn.clone(),
        });
    };
    let arn = format!("{}:{q}", f.arn);
    let version = f.aliases.get(q).map_or(q, |a| a.version.as_str());
    match version_config(f, version) {
        Some(config) => Ok(Shown {
            config,
            version: version.to_string(),
            arn,
        }),
        None => Err(function_not_found(&arn)),
    }
}

/// The qualifier of a name (`my-fn:3`) and of the `Qualifier` member together: one of them, or
/// both the same.
pub fn one_qualifier(
    in_name: Option<String>,
    member: Option<String>,
) -> Result<Option<String>, AwsError> {
    match (in_name, member) {
        (Some(a), Some(b)) if a != b => Err(invalid_parameter(
            "The derived qualifier from the function name does not match the specified \
             qualifier.",
        )),
        (a, b) => Ok(a.or(b)),
    }
}

/// The function `name` names (with the qualifier in the name or `qualifier`) for a caller in
/// `account` and `region`, and the qualifier.
pub fn find_qualified<'s>(
    state: &'s State,
    account: &str,
    region: &str,
    name: &str,
    qualifier: Option<&str>,
) -> Result<(&'s Function, Option<String>), AwsError> {
    let (arn, in_name) = resolve_in(account, region, name)?;
    let qualifier = one_qualifier(in_name, qualifier.map(str::to_string))?;
    match state.lambda.functions.get(&arn) {
        Some(f) => Ok((f, qualifier)),
        None => Err(function_not_found(&match qualifier {
            Some(q) => format!("{arn}:{q}"),
            None => arn,
        })),
    }
}

/// The function and the configuration a read with `FunctionName` and `Qualifier` answers.
pub fn find_shown<'s>(
    state: &'s State,
    cx: &Context,
    input: &FunctionNameInput,
) -> Result<(&'s Function, FunctionConfiguration), AwsError> {
    let (f, _, shown) = find_named(state, cx, &input.function_name, input.qualifier.as_deref())?;
    Ok((f, shown.configuration()))
}

/// The function a caller's `FunctionName` and `Qualifier` name, the qualifier, and what it
/// shows ([`show`]: the version or alias must exist).
pub fn find_named<'s>(
    state: &'s State,
    cx: &Context,
    name: &str,
    qualifier: Option<&str>,
) -> Result<(&'s Function, Option<String>, Shown<'s>), AwsError> {
    let (f, qualifier) = find_qualified(state, &cx.account, &cx.region, name, qualifier)?;
    let shown = show(f, qualifier.as_deref())?;
    Ok((f, qualifier, shown))
}

/// The version an invocation of `qualifier` runs: an alias's own, or with the probability of
/// its routing weight the other one, `draw` being uniform in [0, 1) (`None`: the alias's own).
pub fn route(f: &Function, qualifier: Option<&str>, draw: Option<f64>) -> Option<String> {
    let alias = f.aliases.get(qualifier?)?;
    match (alias.weights.iter().next(), draw) {
        (Some((other, weight)), Some(draw)) if draw < *weight => Some(other.clone()),
        _ => Some(alias.version.clone()),
    }
}

/// Whether publishing `f` would copy what `last` already is (its description aside, which
/// PublishVersion may give).
fn unchanged(f: &Function, last: &Function) -> bool {
    f.code == last.code
        && f.runtime == last.runtime
        && f.handler == last.handler
        && f.role == last.role
        && f.timeout == last.timeout
        && f.memory == last.memory
        && f.environment == last.environment
        && f.architectures == last.architectures
        && f.ephemeral_storage == last.ephemeral_storage
        && f.layers == last.layers
}

/// PublishVersion: `$LATEST` copied as the next version; when nothing changed since the last
/// version, that version (as AWS answers).
pub fn publish(
    state: &mut State,
    cx: &Context,
    input: PublishVersionInput,
) -> Result<Value, AwsError> {
    let revision = state.engine.rng.uuid();
    let now = state.now();
    let f = find_mut(state, cx, &input.function_name)?;
    let (sha256, _) = code_digest(&f.code);
    if let Some(given) = input.code_sha256.filter(|given| *given != sha256) {
        return Err(invalid_parameter(format!(
            "CodeSHA256 ({given}) is different from current CodeSHA256 in $LATEST ({sha256}). \
             Please try again from the beginning."
        )));
    }
    check_revision(f, input.revision_id.as_deref())?;
    if let Some((number, last)) = f.versions.last_key_value()
        && unchanged(f, last)
    {
        let arn = format!("{}:{number}", f.arn);
        return super::encode(shown(last, &number.to_string(), &arn, Seen::Read));
    }
    let number = f.last_version.saturating_add(1);
    let mut copy = f.clone_configuration();
    if let Some(description) = input.description {
        copy.description = description;
    }
    copy.revision = revision;
    copy.last_modified = now;
    let arn = format!("{}:{number}", f.arn);
    let answer = shown(&copy, &number.to_string(), &arn, Seen::Read);
    f.last_version = number;
    f.versions.insert(number, copy);
    super::encode(answer)
}

/// ListVersionsByFunction: `$LATEST` first, then the versions in order; `MaxItems` (at most 50)
/// a page.
pub fn list(state: &State, cx: &Context, input: ListByFunctionInput) -> Result<Value, AwsError> {
    let size = page_size(input.max_items, 10_000, 50)?;
    let (f, qualifier) =
        find_qualified(state, &cx.account, &cx.region, &input.function_name, None)?;
    if let Some(q) = qualifier {
        return Err(function_not_found(&format!("{}:{q}", f.arn)));
    }
    let latest = ("$LATEST".to_string(), f);
    let versions = f.versions.iter().map(|(n, v)| (n.to_string(), v));
    let items: Vec<(String, &Function)> = std::iter::once(latest).chain(versions).collect();
    let items = items
        .into_iter()
        .map(|(version, v)| {
            let arn = format!("{}:{version}", f.arn);
            let configuration = shown(v, &version, &arn, Seen::Read);
            (version, configuration)
        })
        .collect();
    let (versions, next) = page(items, input.marker.as_deref(), size);
    let mut answer = json!({"Versions": super::encode(versions)?});
    if let Some(marker) = next {
        answer.set("NextMarker", json!(marker));
    }
    Ok(answer)
}

/// DeleteFunction with a qualifier: the version `qualifier` of the function `arn`, unless it is
/// `$LATEST` or an alias points to it.
pub fn delete_version(state: &mut State, arn: &str, qualifier: &str) -> Result<Value, AwsError> {
    let f = state
        .lambda
        .functions
        .get_mut(arn)
        .ok_or_else(|| function_not_found(&format!("{arn}:{qualifier}")))?;
    if qualifier == "$LATEST" {
        return Err(invalid_parameter(
            "$LATEST version cannot be deleted without deleting the function.",
        ));
    }
    let number = qualifier
        .parse::<u32>()
        .ok()
        .filter(|n| f.versions.contains_key(n))
        .ok_or_else(|| function_not_found(&format!("{arn}:{qualifier}")))?;
    let version = number.to_string();
    let aliases: Vec<&str> = (f.aliases.values())
        .filter(|a| a.version == version || a.weights.contains_key(&version))
        .map(|a| a.name.as_str())
        .collect();
    if !aliases.is_empty() {
        return Err(user(
            "ResourceConflictException",
            409,
            format!(
                "Unable to delete version because the following aliases reference it: [{}]",
                aliases.join(", ")
            ),
        ));
    }
    f.versions.remove(&number);
    f.policies.remove(&version);
    Ok(json!({}))
}

trait CloneConfiguration {
    /// A copy of the function without its versions, aliases and policies (not cloned only to
    /// be dropped).
    fn clone_configuration(&self) -> Function;
}

impl CloneConfiguration for Function {
    fn clone_configuration(&self) -> Function {
        Function {
            name: self.name.clone(),
            arn: self.arn.clone(),
            account: self.account.clone(),
            region: self.region.clone(),
            runtime: self.runtime.clone(),
            handler: self.handler.clone(),
            role: self.role.clone(),
            description: self.description.clone(),
            timeout: self.timeout,
            memory: self.memory,
            environment: self.environment.clone(),
            architectures: self.architectures.clone(),
            ephemeral_storage: self.ephemeral_storage,
            code: self.code.clone(),
            last_modified: self.last_modified,
            revision: self.revision.clone(),
            tags: Default::default(),
            reserved_concurrency: None,
            dead_letter: self.dead_letter.clone(),
            layers: self.layers.clone(),
            versions: Default::default(),
            last_version: 0,
            aliases: Default::default(),
            policies: Default::default(),
        }
    }
}
