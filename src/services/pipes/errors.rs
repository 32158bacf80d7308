//! The errors of the Pipes API, as its model names them, and the Coral-style validation
//! message that names the member at fault.
//! A leaf of the service: it imports no operation.

use crate::error::AwsError;
use crate::services::validation_message;

#[derive(Debug, Clone, PartialEq)]
pub enum PipesError {
    /// 400 ValidationException.
    Validation(String),
    /// 409 ConflictException: the pipe exists, or a change of state is under way.
    Conflict(String),
    /// 404 NotFoundException: no such pipe (Pipes' own name for it).
    NotFound(String),
    /// 402 ServiceQuotaExceededException.
    Quota(String),
}

/// A ValidationException naming `member` (its path in camelCase, as AWS writes it).
pub fn field(value: impl std::fmt::Display, member: &str, rule: &str) -> PipesError {
    PipesError::Validation(validation_message(value, member, rule))
}

impl From<PipesError> for AwsError {
    fn from(e: PipesError) -> AwsError {
        match e {
            PipesError::Validation(m) => AwsError::client("ValidationException", m),
            PipesError::Conflict(m) => AwsError::new("ConflictException", 409, m),
            PipesError::NotFound(m) => AwsError::new("NotFoundException", 404, m),
            PipesError::Quota(m) => AwsError::new("ServiceQuotaExceededException", 402, m),
        }
    }
}
