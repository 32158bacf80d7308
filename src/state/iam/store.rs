//! IAM's store: per account, its roles (with their inline policies, attached managed policies and
//! tags) and its customer managed policies; and the sessions STS AssumeRole handed out.
//! Plain data: it imports no operation, so the state can hold it.

use crate::engine::time::Millis;
use std::collections::{BTreeMap, HashMap};

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Store {
    #[serde(with = "crate::pairs")]
    pub accounts: HashMap<String, Account>,
    /// Access key id of an AssumeRole session → the session, for GetCallerIdentity.
    #[serde(with = "crate::pairs")]
    pub sessions: HashMap<String, Session>,
}

/// One account's IAM resources. IAM is global: no region.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Account {
    /// Lowercased role name → role (IAM names are unique regardless of case).
    pub roles: BTreeMap<String, Role>,
    /// Lowercased policy name → customer managed policy.
    pub policies: BTreeMap<String, Policy>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Role {
    pub name: String,
    pub id: String,
    pub arn: String,
    pub path: String,
    pub created_at: Millis,
    pub assume_role_policy: String,
    pub description: Option<String>,
    pub max_session_duration: i64,
    pub permissions_boundary: Option<String>,
    /// Inline policies: name → document, in name order.
    pub inline: BTreeMap<String, String>,
    /// Managed policy ARNs attached, in ARN order.
    pub attached: BTreeMap<String, String>,
    pub tags: Vec<(String, String)>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Policy {
    pub name: String,
    pub id: String,
    pub arn: String,
    pub path: String,
    pub created_at: Millis,
    pub description: Option<String>,
    /// The one version, `v1`: switchyard keeps no further versions.
    pub document: String,
    pub tags: Vec<(String, String)>,
}

/// Credentials AssumeRole handed out.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Session {
    pub account: String,
    pub role_name: String,
    pub role_id: String,
    pub session_name: String,
}

impl Session {
    /// `arn:aws:sts::<account>:assumed-role/<role>/<session>`, who the session's caller is.
    pub fn arn(&self) -> String {
        let resource = format!("assumed-role/{}/{}", self.role_name, self.session_name);
        crate::arn::Arn::new("sts", "", &self.account, &resource).text()
    }
}
