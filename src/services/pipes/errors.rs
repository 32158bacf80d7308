//! The errors of the Pipes API, as its model names them, and the Coral-style validation
//! message that names the member at fault.
//! A leaf of the service: it imports no operation.

use crate::error::AwsError;
use crate::services::validation_message;

#[derive(Debug, Clone, PartialEq)]
pub enum PipesError {
    /// 400 ValidationException.
    Validation(String),
    /// 400 ValidationException naming the member at fault, also in its `fieldList`.
    Field {
        message: String,
        member: String,
        rule: String,
    },
    /// 409 ConflictException: the pipe exists, or a change of state is under way; with the
    /// pipe's name as its `resourceId`.
    Conflict { message: String, pipe: String },
    /// 404 NotFoundException: no such pipe (Pipes' own name for it).
    NotFound(String),
    /// 402 ServiceQuotaExceededException, for the pipe that would be one too many.
    Quota { message: String, pipe: String },
}

/// The `resourceType` of Pipes' ConflictException and ServiceQuotaExceededException.
const RESOURCE_TYPE: &str = "pipe";
/// The `serviceCode` and `quotaCode` of the quota of pipes per account and region: Service
/// Quotas' code for EventBridge Pipes, and switchyard's name for that quota (AWS's own code for
/// it is not published in the API reference).
const SERVICE_CODE: &str = "pipes";
const QUOTA_CODE: &str = "pipes-per-account-and-region";

/// A ValidationException naming `member` (its path in camelCase, as AWS writes it).
pub fn field(value: impl std::fmt::Display, member: &str, rule: &str) -> PipesError {
    PipesError::Field {
        message: validation_message(value, member, rule),
        member: member.to_string(),
        rule: rule.to_string(),
    }
}

impl From<PipesError> for AwsError {
    fn from(e: PipesError) -> AwsError {
        match e {
            PipesError::Validation(m) => AwsError::client("ValidationException", m),
            PipesError::Field {
                message,
                member,
                rule,
            } => AwsError::client("ValidationException", message).with_field(member, rule),
            PipesError::Conflict { message, pipe } => {
                AwsError::new("ConflictException", 409, message)
                    .with_member("resourceId", pipe)
                    .with_member("resourceType", RESOURCE_TYPE)
            }
            PipesError::NotFound(m) => AwsError::new("NotFoundException", 404, m),
            PipesError::Quota { message, pipe } => {
                AwsError::new("ServiceQuotaExceededException", 402, message)
                    .with_member("resourceId", pipe)
                    .with_member("resourceType", RESOURCE_TYPE)
                    .with_member("serviceCode", SERVICE_CODE)
                    .with_member("quotaCode", QUOTA_CODE)
            }
        }
    }
}
