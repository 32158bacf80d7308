//! SNS's errors, named as its API model names them, and the answers several operations share.
//! Plain values; no operation here.
//! Plain data: it imports no operation, so the state can hold it.

use crate::error::AwsError;

/// SNS's errors, named as its API model names them.
#[derive(Debug, Clone, PartialEq)]
pub enum SnsError {
    InvalidParameter(String),
    ParameterValueInvalid(String),
    NotFound(String),
    ResourceNotFound(String),
    AuthorizationError(String),
    FilterPolicyLimitExceeded(String),
    TopicLimitExceeded(String),
    TagLimitExceeded(String),
    TooManyEntriesInBatchRequest(String),
    EmptyBatchRequest(String),
    BatchEntryIdsNotDistinct(String),
    InvalidBatchEntryId(String),
    BatchRequestTooLong(String),
    ValidationError(String),
    EndpointDisabled(String),
    PlatformApplicationDisabled(String),
    OptedOut(String),
    UserError(String),
    Verification(String),
}

impl From<SnsError> for AwsError {
    fn from(e: SnsError) -> AwsError {
        use SnsError::*;
        match e {
            InvalidParameter(m) => AwsError::client("InvalidParameterException", m),
            ParameterValueInvalid(m) => AwsError::client("InvalidParameterValueException", m),
            NotFound(m) => AwsError::new("NotFoundException", 404, m),
            ResourceNotFound(m) => AwsError::new("ResourceNotFoundException", 404, m),
            AuthorizationError(m) => AwsError::new("AuthorizationErrorException", 403, m),
            TopicLimitExceeded(m) => AwsError::new("TopicLimitExceededException", 403, m),
            FilterPolicyLimitExceeded(m) => {
                AwsError::new("FilterPolicyLimitExceededException", 403, m)
            }
            TagLimitExceeded(m) => AwsError::client("TagLimitExceededException", m),
            TooManyEntriesInBatchRequest(m) => {
                AwsError::client("TooManyEntriesInBatchRequestException", m)
            }
            EmptyBatchRequest(m) => AwsError::client("EmptyBatchRequestException", m),
            BatchEntryIdsNotDistinct(m) => AwsError::client("BatchEntryIdsNotDistinctException", m),
            InvalidBatchEntryId(m) => AwsError::client("InvalidBatchEntryIdException", m),
            BatchRequestTooLong(m) => AwsError::client("BatchRequestTooLongException", m),
            ValidationError(m) => AwsError::client("ValidationError", m),
            EndpointDisabled(m) => AwsError::client("EndpointDisabledException", m),
            PlatformApplicationDisabled(m) => {
                AwsError::client("PlatformApplicationDisabledException", m)
            }
            OptedOut(m) => AwsError::client("OptedOutException", m),
            UserError(m) => AwsError::client("UserErrorException", m),
            Verification(m) => AwsError::client("VerificationException", m),
        }
    }
}

pub(crate) fn invalid(what: impl std::fmt::Display) -> SnsError {
    SnsError::InvalidParameter(format!("Invalid parameter: {what}"))
}

/// AWS's answer when a required map arrives empty (its validation layer, not SNS's own).
pub(crate) fn attributes_null() -> SnsError {
    SnsError::ValidationError(
        "1 validation error detected: Value null at 'attributes' failed to satisfy constraint: \
         Member must not be null"
            .into(),
    )
}
