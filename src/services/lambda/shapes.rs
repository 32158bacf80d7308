//! The typed shapes of Lambda's operations as switchyard reads and writes them (members of the
//! model it serves; the rest of an input is read as absent).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `Code` of CreateFunction and the members of UpdateFunctionCode.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CodeInput {
    /// The zip, base64 (the runtime replaces it with [`CodeInput::unpacked`] before the
    /// operation runs).
    pub zip_file: Option<String>,
    #[serde(rename = "S3Bucket")]
    pub s3_bucket: Option<String>,
    #[serde(rename = "S3Key")]
    pub s3_key: Option<String>,
    pub image_uri: Option<String>,
    /// The zip as the runtime unpacked it: not a member of AWS's model, and the runtime drops
    /// one a request sends before it sets its own.
    pub switchyard_unpacked: Option<Unpacked>,
}

/// A zip the runtime unpacked (`runtime/code.rs`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Unpacked {
    pub dir: String,
    pub sha256: String,
    pub size: u64,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CreateFunctionInput {
    pub function_name: String,
    pub role: String,
    pub code: CodeInput,
    #[serde(flatten)]
    pub settings: FunctionSettings,
    pub architectures: Option<Vec<String>>,
    pub package_type: Option<String>,
    pub tags: Option<BTreeMap<String, String>>,
}

/// The members of a function's configuration that CreateFunction and
/// UpdateFunctionConfiguration both take.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct FunctionSettings {
    pub runtime: Option<String>,
    pub handler: Option<String>,
    pub description: Option<String>,
    pub timeout: Option<i64>,
    pub memory_size: Option<i64>,
    pub environment: Option<Environment>,
    pub ephemeral_storage: Option<EphemeralStorage>,
    pub dead_letter_config: Option<DeadLetterConfig>,
    pub layers: Option<Vec<String>>,
}

/// DeadLetterConfig: where failed asynchronous events go (an SQS queue or an SNS topic; empty
/// or absent: nowhere).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DeadLetterConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_arn: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateFunctionConfigurationInput {
    pub function_name: String,
    pub role: Option<String>,
    pub revision_id: Option<String>,
    #[serde(flatten)]
    pub settings: FunctionSettings,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct UpdateFunctionCodeInput {
    pub function_name: String,
    #[serde(flatten)]
    pub code: CodeInput,
    pub architectures: Option<Vec<String>>,
    pub revision_id: Option<String>,
}

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Environment {
    #[serde(default)]
    pub variables: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct EphemeralStorage {
    pub size: i64,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct FunctionNameInput {
    pub function_name: String,
    pub qualifier: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct PublishVersionInput {
    pub function_name: String,
    pub code_sha256: Option<String>,
    pub description: Option<String>,
    pub revision_id: Option<String>,
}

/// The members of the operations that list a function's versions or aliases.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListByFunctionInput {
    pub function_name: String,
    pub marker: Option<String>,
    pub max_items: Option<i64>,
    /// ListAliases: only the aliases that invoke this version.
    pub function_version: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ListFunctionsInput {
    pub marker: Option<String>,
    pub max_items: Option<i64>,
}

/// `FunctionConfiguration`, as every operation on a function answers it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct FunctionConfiguration {
    pub function_name: String,
    pub function_arn: String,
    pub runtime: String,
    pub role: String,
    pub handler: String,
    pub code_size: u64,
    pub description: String,
    pub timeout: u32,
    pub memory_size: u32,
    pub last_modified: String,
    pub code_sha256: String,
    pub version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment: Option<Environment>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dead_letter_config: Option<DeadLetterConfig>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<LayerOutput>,
    pub tracing_config: TracingConfig,
    pub revision_id: String,
    pub state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_reason_code: Option<&'static str>,
    pub last_update_status: &'static str,
    pub package_type: &'static str,
    pub architectures: Vec<String>,
    pub ephemeral_storage: EphemeralStorage,
    pub snap_start: SnapStart,
    pub logging_config: LoggingConfig,
}

/// `Layer`: a layer version a function uses, in its configuration.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct LayerOutput {
    pub arn: String,
    pub code_size: u64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TracingConfig {
    pub mode: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct SnapStart {
    pub apply_on: &'static str,
    pub optimization_status: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct LoggingConfig {
    pub log_format: &'static str,
    pub log_group: String,
}
