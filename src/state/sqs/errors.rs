//! SQS's errors, named as its API model names them, and their codes and messages. Plain values;
//! no operation here.
//! Plain data: it imports no operation, so the state can hold it.

use crate::error::AwsError;

/// SQS's errors, named as its API model names them.
#[derive(Debug, Clone, PartialEq)]
pub enum SqsError {
    QueueDoesNotExist,
    QueueNameExists(String),
    QueueDeletedRecently(String),
    PurgeQueueInProgress(String),
    InvalidParameterValue(String),
    InvalidAttributeName(String),
    InvalidAttributeValue(String),
    InvalidMessageContents(String),
    ReceiptHandleIsInvalid(String),
    MessageNotInflight(String),
    MissingParameter(String),
    TooManyEntriesInBatchRequest(String),
    EmptyBatchRequest(String),
    BatchEntryIdsNotDistinct(String),
    InvalidBatchEntryId(String),
    BatchRequestTooLong(String),
    OverLimit(String),
    ResourceNotFoundException(String),
}

impl From<SqsError> for AwsError {
    fn from(e: SqsError) -> AwsError {
        use SqsError::*;
        let (code, message) = match e {
            QueueDoesNotExist => (
                "QueueDoesNotExist",
                "The specified queue does not exist.".to_string(),
            ),
            QueueNameExists(m) => ("QueueNameExists", m),
            QueueDeletedRecently(m) => ("QueueDeletedRecently", m),
            PurgeQueueInProgress(m) => ("PurgeQueueInProgress", m),
            InvalidParameterValue(m) => ("InvalidParameterValue", m),
            InvalidAttributeName(m) => ("InvalidAttributeName", m),
            InvalidAttributeValue(m) => ("InvalidAttributeValue", m),
            InvalidMessageContents(m) => ("InvalidMessageContents", m),
            ReceiptHandleIsInvalid(m) => ("ReceiptHandleIsInvalid", m),
            MessageNotInflight(m) => ("MessageNotInflight", m),
            MissingParameter(m) => ("MissingParameter", m),
            TooManyEntriesInBatchRequest(m) => ("TooManyEntriesInBatchRequest", m),
            EmptyBatchRequest(m) => ("EmptyBatchRequest", m),
            BatchEntryIdsNotDistinct(m) => ("BatchEntryIdsNotDistinct", m),
            InvalidBatchEntryId(m) => ("InvalidBatchEntryId", m),
            BatchRequestTooLong(m) => ("BatchRequestTooLong", m),
            OverLimit(m) => ("OverLimit", m),
            ResourceNotFoundException(m) => ("ResourceNotFoundException", m),
        };
        AwsError::client(code, message)
    }
}

/// The wording AWS Query answers give an error where it differs from the JSON protocol's.
pub fn query_message(code: &str) -> Option<&'static str> {
    match code {
        "QueueDoesNotExist" => Some("The specified queue does not exist for this wsdl version."),
        _ => None,
    }
}

/// The error of a Query action sent to a queue URL that is not valid there: an unknown action,
/// or one that names no queue (CreateQueue, ListQueues).
pub fn not_for_queue_endpoint(action: &str, known: bool) -> Option<AwsError> {
    let invalid = !known || matches!(action, "CreateQueue" | "ListQueues");
    invalid.then(|| {
        AwsError::client(
            "InvalidAction",
            format!("The action {action} is not valid for this endpoint."),
        )
    })
}
