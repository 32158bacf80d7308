//! Lambda's store: each account and region's functions, with their configuration, where their
//! code is, their tags, their reserved concurrency, their published versions, aliases and
//! resource policies; and the layers. Plain data: it imports no operation, so the state can
//! hold it. The code itself is a folder the runtime unpacked (`runtime/code.rs`); the store
//! keeps its path and digest. Members added after the first release read as empty from older
//! snapshots (`#[serde(default)]`).

use super::invocations::{InvocationRecord, InvokeConfig};
use super::mappings::Mapping;
use crate::engine::time::Millis;
use std::collections::{BTreeMap, VecDeque};

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Store {
    /// Unqualified function ARN → the function, in ARN order (so in name order within an
    /// account and region).
    pub functions: BTreeMap<String, Function>,
    /// Function ARN (with its qualifier, if the configuration is a version's or an alias's) →
    /// its event invoke configuration.
    #[serde(default)]
    pub invoke_configs: BTreeMap<String, InvokeConfig>,
    /// Event source mappings by UUID.
    #[serde(default)]
    pub mappings: BTreeMap<String, Mapping>,
    /// The last invocations, oldest first ([`super::invocations::MAX_RECORDS`] at the most).
    #[serde(default)]
    pub invocations: VecDeque<InvocationRecord>,
    /// The last token handed to a mapping's change of state or batch.
    #[serde(default)]
    pub tokens: u64,
    /// Unversioned layer ARN (`arn:aws:lambda:<region>:<account>:layer:<name>`) → the layer.
    #[serde(default)]
    pub layers: BTreeMap<String, Layer>,
}

/// Where a function's code is.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Code {
    /// A `.zip` unpacked into a folder switchyard owns, named by the zip's digest.
    Zip {
        /// The folder.
        dir: String,
        /// The zip's SHA-256, base64 (`CodeSha256`).
        sha256: String,
        /// The zip's size in bytes (`CodeSize`).
        size: u64,
    },
    /// LocalStack's live code (`S3Bucket: hot-reload`, `S3Key`: a local folder): the folder
    /// run in place.
    Live { dir: String },
}

impl Code {
    /// The folder the function runs from.
    pub fn dir(&self) -> &str {
        match self {
            Code::Zip { dir, .. } | Code::Live { dir } => dir,
        }
    }
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Function {
    pub name: String,
    /// Unqualified.
    pub arn: String,
    pub account: String,
    pub region: String,
    pub runtime: String,
    pub handler: String,
    pub role: String,
    pub description: String,
    pub timeout: u32,
    pub memory: u32,
    pub environment: BTreeMap<String, String>,
    pub architectures: Vec<String>,
    pub ephemeral_storage: u32,
    pub code: Code,
    /// When its code or configuration last changed (virtual time).
    pub last_modified: Millis,
    /// Changes with every change of code or configuration (`RevisionId`).
    pub revision: String,
    pub tags: BTreeMap<String, String>,
    /// `PutFunctionConcurrency`: the reserved concurrent executions.
    pub reserved_concurrency: Option<u32>,
    /// DeadLetterConfig.TargetArn: an SQS queue or SNS topic for failed asynchronous events.
    #[serde(default)]
    pub dead_letter: Option<String>,
    /// The layers `$LATEST` runs with, in the function's order.
    #[serde(default)]
    pub layers: Vec<LayerRef>,
    /// Published versions: each an immutable copy of `$LATEST` as it was (its own `versions`,
    /// `aliases` and `policies` empty), with the version's description and revision.
    #[serde(default)]
    pub versions: BTreeMap<u32, Function>,
    /// The last version number published: numbers are not reused after a deletion.
    #[serde(default)]
    pub last_version: u32,
    /// Alias name → the alias.
    #[serde(default)]
    pub aliases: BTreeMap<String, Alias>,
    /// The resource policy's statements of the unqualified function (key "") and of each
    /// qualifier that has some (`$LATEST`, a version number, an alias name).
    #[serde(default)]
    pub policies: BTreeMap<String, Vec<Statement>>,
}

/// A layer version a function uses: what it needs to run it, copied when the function names it
/// (a layer version deleted afterwards still runs in the functions that use it, as on AWS).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LayerRef {
    /// The layer version's ARN.
    pub arn: String,
    /// Its unpacked folder.
    pub dir: String,
    /// Its zip's size (`CodeSize`).
    pub size: u64,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Alias {
    pub name: String,
    /// The version it points to: a number, or `$LATEST`.
    pub version: String,
    pub description: String,
    /// `RoutingConfig.AdditionalVersionWeights`: another version and the share of invocations
    /// it gets.
    pub weights: BTreeMap<String, f64>,
    pub revision: String,
}

/// One statement of a function's resource policy, as AddPermission made it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Statement {
    pub sid: String,
    /// `lambda:InvokeFunction`, `lambda:*` ...
    pub action: String,
    /// As given: a service (`sns.amazonaws.com`), an account id, an ARN or `*`.
    pub principal: String,
    /// The ARN the statement is about: the function's, qualified when the policy is a
    /// qualifier's.
    pub resource: String,
    pub source_arn: Option<String>,
    pub source_account: Option<String>,
    pub principal_org_id: Option<String>,
    pub event_source_token: Option<String>,
    pub function_url_auth_type: Option<String>,
}

/// A layer: its versions, each immutable.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Layer {
    pub name: String,
    /// Unversioned.
    pub arn: String,
    pub account: String,
    pub region: String,
    /// The last version number published: numbers are not reused after a deletion.
    pub last_version: u32,
    pub versions: BTreeMap<u32, LayerVersion>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct LayerVersion {
    pub version: u32,
    pub description: String,
    pub created: Millis,
    pub runtimes: Vec<String>,
    pub architectures: Vec<String>,
    pub license: Option<String>,
    pub code: Code,
}
