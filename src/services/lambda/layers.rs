//! Layers: PublishLayerVersion, GetLayerVersion, ListLayers, ListLayerVersions,
//! DeleteLayerVersion, and the `Layers` a function names (docs/lambda.md). A layer version's
//! zip is unpacked by the runtime before the operation runs, as a function's is
//! (`runtime/code.rs`); the folder is laid out as AWS lays out `/opt` (`python/`,
//! `nodejs/node_modules`, `bin/`, `lib/`), and the runtime puts it on the paths a function
//! searches.

use super::errors::{invalid_parameter, user, validation};
use super::lookup::{code_digest, code_of, last_modified};
use super::paging::{page, page_size};
use super::shapes::CodeInput;
use crate::arn::Arn;
use crate::error::AwsError;
use crate::services::{Context, SetMember};
use crate::state::State;
use crate::state::lambda::store::{Layer, LayerRef, LayerVersion};
use serde::Deserialize;
use serde_json::{Value, json};

/// AWS's limit on the layers of a function.
const MAX_LAYERS: usize = 5;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct LayerInput {
    /// Absent for ListLayers.
    #[serde(default)]
    pub layer_name: String,
    pub version_number: Option<i64>,
    pub content: Option<CodeInput>,
    pub description: Option<String>,
    pub compatible_runtimes: Option<Vec<String>>,
    pub compatible_architectures: Option<Vec<String>>,
    pub license_info: Option<String>,
    pub compatible_runtime: Option<String>,
    pub compatible_architecture: Option<String>,
    pub marker: Option<String>,
    pub max_items: Option<i64>,
}

/// The unversioned ARN of the layer `name` names (a name or a layer ARN) for the caller.
fn layer_arn(cx: &Context, name: &str) -> Result<String, AwsError> {
    let (account, region, name) = match Arn::parse(name) {
        Some(arn) if arn.resource.starts_with("layer:") => (
            arn.account,
            arn.region,
            arn.resource.trim_start_matches("layer:"),
        ),
        _ => (cx.account.as_str(), cx.region.as_str(), name),
    };
    let valid = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if name.is_empty() || name.len() > 140 || !name.chars().all(valid) {
        return Err(validation(
            name,
            "layerName",
            "Member must satisfy regular expression pattern: (arn:[a-zA-Z0-9-]+:lambda:\
             [a-zA-Z0-9-]+:\\d{12}:layer:[a-zA-Z0-9-_]+)|[a-zA-Z0-9-_]+",
        ));
    }
    Ok(Arn::new("lambda", region, account, &format!("layer:{name}")).text())
}

/// "The resource you requested does not exist.": a layer version that is not.
fn not_found() -> AwsError {
    user(
        "ResourceNotFoundException",
        404,
        "The resource you requested does not exist.",
    )
}

/// `LayerVersionsListItem`, and with `content` the whole of GetLayerVersion's answer.
fn describe(layer: &Layer, v: &LayerVersion, content: bool) -> Value {
    let mut answer = json!({
        "LayerVersionArn": format!("{}:{}", layer.arn, v.version),
        "Version": v.version,
        "Description": v.description,
        "CreatedDate": last_modified(v.created),
        "CompatibleRuntimes": v.runtimes,
        "CompatibleArchitectures": v.architectures,
    });
    if let Some(license) = &v.license {
        answer.set("LicenseInfo", json!(license));
    }
    if content {
        let (sha256, size) = code_digest(&v.code);
        answer.set("Content", json!({"CodeSha256": sha256, "CodeSize": size}));
        answer.set("LayerArn", json!(layer.arn));
    }
    answer
}

pub(super) fn publish(
    state: &mut State,
    cx: &Context,
    input: LayerInput,
) -> Result<Value, AwsError> {
    let arn = layer_arn(cx, &input.layer_name)?;
    if Arn::account_of(&arn) != cx.account {
        return Err(user(
            "AccessDeniedException",
            403,
            format!("The layer {arn} is not of the caller's account."),
        ));
    }
    let Some(content) = input.content else {
        return Err(invalid_parameter(
            "Please provide a source for layer content.",
        ));
    };
    let runtimes = input.compatible_runtimes.unwrap_or_default();
    if runtimes.len() > 15 {
        return Err(validation(
            format!("{runtimes:?}"),
            "compatibleRuntimes",
            "Member must have length less than or equal to 15",
        ));
    }
    let code = code_of(content)?;
    let now = state.now();
    let name = super::lookup::name_of(&arn).to_string();
    let layer = state
        .lambda
        .layers
        .entry(arn.clone())
        .or_insert_with(|| Layer {
            name,
            arn: arn.clone(),
            account: cx.account.clone(),
            region: cx.region.clone(),
            last_version: 0,
            versions: Default::default(),
        });
    layer.last_version = layer.last_version.saturating_add(1);
    let version = LayerVersion {
        version: layer.last_version,
        description: input.description.unwrap_or_default(),
        created: now,
        runtimes,
        architectures: input.compatible_architectures.unwrap_or_default(),
        license: input.license_info,
        code,
    };
    let answer = describe(layer, &version, true);
    layer.versions.insert(version.version, version);
    Ok(answer)
}

/// The layer and version an operation names.
fn find<'s>(
    state: &'s State,
    cx: &Context,
    input: &LayerInput,
) -> Result<(&'s Layer, &'s LayerVersion), AwsError> {
    let arn = layer_arn(cx, &input.layer_name)?;
    let layer = state.lambda.layers.get(&arn).ok_or_else(not_found)?;
    let number = input.version_number.and_then(|n| u32::try_from(n).ok());
    let version = number.and_then(|n| layer.versions.get(&n));
    Ok((layer, version.ok_or_else(not_found)?))
}

pub(super) fn get(state: &State, cx: &Context, input: LayerInput) -> Result<Value, AwsError> {
    let (layer, version) = find(state, cx, &input)?;
    Ok(describe(layer, version, true))
}

/// DeleteLayerVersion: a version that does not exist is no error (AWS answers 204 too).
pub(super) fn delete(
    state: &mut State,
    cx: &Context,
    input: LayerInput,
) -> Result<Value, AwsError> {
    let arn = layer_arn(cx, &input.layer_name)?;
    let number = input.version_number.and_then(|n| u32::try_from(n).ok());
    if let (Some(layer), Some(n)) = (state.lambda.layers.get_mut(&arn), number) {
        layer.versions.remove(&n);
    }
    Ok(json!({}))
}

/// Whether a version fits ListLayers' and ListLayerVersions' filters.
fn matches(v: &LayerVersion, input: &LayerInput) -> bool {
    let runtime = input.compatible_runtime.as_ref();
    let architecture = input.compatible_architecture.as_ref();
    runtime.is_none_or(|r| v.runtimes.contains(r))
        && architecture.is_none_or(|a| v.architectures.contains(a))
}

/// ListLayers: the caller's layers in name order, each with its latest version that fits the
/// filters (a layer with none is left out), `MaxItems` (at most 50) a page.
pub(super) fn list(state: &State, cx: &Context, input: LayerInput) -> Result<Value, AwsError> {
    let size = page_size(input.max_items, 50, 50)?;
    let prefix = Arn::new("lambda", &cx.region, &cx.account, "layer:").text();
    let layers = state.lambda.layers.range(prefix.clone()..);
    let items = layers
        .take_while(|(arn, _)| arn.starts_with(&prefix))
        .filter_map(|(_, layer)| {
            let latest = layer.versions.values().rev().find(|v| matches(v, &input))?;
            let item = json!({
                "LayerName": layer.name,
                "LayerArn": layer.arn,
                "LatestMatchingVersion": describe(layer, latest, false),
            });
            Some((layer.name.clone(), item))
        })
        .collect();
    let (layers, next) = page(items, input.marker.as_deref(), size);
    let mut answer = json!({"Layers": layers});
    if let Some(marker) = next {
        answer.set("NextMarker", json!(marker));
    }
    Ok(answer)
}

/// ListLayerVersions: the layer's versions that fit the filters, newest first; a layer that
/// does not exist has none.
pub(super) fn list_versions(
    state: &State,
    cx: &Context,
    input: LayerInput,
) -> Result<Value, AwsError> {
    let size = page_size(input.max_items, 50, 50)?;
    let arn = layer_arn(cx, &input.layer_name)?;
    let items = match state.lambda.layers.get(&arn) {
        Some(layer) => (layer.versions.values().rev())
            .filter(|v| matches(v, &input))
            .map(|v| (v.version.to_string(), describe(layer, v, false)))
            .collect(),
        None => Vec::new(),
    };
    let (versions, next) = page(items, input.marker.as_deref(), size);
    let mut answer = json!({"LayerVersions": versions});
    if let Some(marker) = next {
        answer.set("NextMarker", json!(marker));
    }
    Ok(answer)
}

/// The layers a function names (CreateFunction's and UpdateFunctionConfiguration's `Layers`):
/// at most five versions that exist, two of one layer refused, as AWS refuses them.
pub(super) fn refs(
    state: &State,
    cx: &Context,
    arns: Vec<String>,
) -> Result<Vec<LayerRef>, AwsError> {
    if arns.len() > MAX_LAYERS {
        return Err(invalid_parameter(format!(
            "Cannot reference more than {MAX_LAYERS} layers."
        )));
    }
    let mut found: Vec<LayerRef> = Vec::new();
    for arn in arns {
        let version = Arn::parse(&arn).and_then(|a| a.resource_parts().next_back());
        let parsed = Arn::parent(&arn).zip(version).and_then(|(layer, n)| {
            let layer = layer_arn(cx, layer).ok().filter(|l| l == layer)?;
            Some((layer, n.parse::<u32>().ok()?))
        });
        let Some((layer, number)) = parsed else {
            return Err(validation(
                &arn,
                "layers",
                "Member must satisfy constraint: [Member must have length less than or equal \
                 to 140, Member must have length greater than or equal to 1, Member must \
                 satisfy regular expression pattern: arn:[a-zA-Z0-9-]+:lambda:[a-zA-Z0-9-]+:\
                 \\d{12}:layer:[a-zA-Z0-9-_]+:[0-9]+]",
            ));
        };
        let version = (state.lambda.layers.get(&layer)).and_then(|l| l.versions.get(&number));
        let Some(version) = version else {
            return Err(invalid_parameter(format!(
                "Layer version {arn} does not exist."
            )));
        };
        if let Some(same) = found
            .iter()
            .find(|r| r.arn.starts_with(&format!("{layer}:")))
        {
            return Err(invalid_parameter(format!(
                "Two different versions of the same layer are not allowed to be referenced in \
                 the same function. {} and {arn} are versions of the same layer.",
                same.arn
            )));
        }
        let (_, size) = code_digest(&version.code);
        found.push(LayerRef {
            dir: version.code.dir().to_string(),
            arn,
            size,
        });
    }
    Ok(found)
}
