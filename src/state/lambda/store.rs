//! Lambda's store: each account and region's functions, with their configuration, where their
//! code is, their tags and their reserved concurrency. Plain data: it imports no operation, so
//! the state can hold it. The code itself is a folder the runtime unpacked
//! (`runtime/code.rs`); the store keeps its path and digest.

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
}
