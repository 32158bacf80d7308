//! The one error type that crosses from services to the protocol front-ends: an AWS error code
//! (the error shape's name in the service model), its message and HTTP status. The front-ends
//! render it in the request's protocol; the model supplies Query codes where they differ.
//! A leaf: it depends on nothing of the emulator; the protocols render it.

use std::fmt;

/// What an operation answers: its output in the model's JSON form, or the AWS error.
pub(crate) type Answer = Result<serde_json::Value, AwsError>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsError {
    /// The error shape's name, e.g. `QueueDoesNotExist`, or a common AWS error code.
    pub code: &'static str,
    pub message: String,
    /// The HTTP status; for modeled errors the model's status wins.
    pub status: u16,
    /// Further string members of the error shape (Pipes' `resourceId`, `resourceType` ...),
    /// rendered by the restJson1 front-end beside the message.
    pub members: Vec<(&'static str, String)>,
    /// The fields at fault, as (name, message), for error shapes that list them (Pipes'
    /// ValidationException `fieldList`).
    pub fields: Vec<(String, String)>,
}

impl AwsError {
    pub fn new(code: &'static str, status: u16, message: impl Into<String>) -> Self {
        AwsError {
            code,
            message: message.into(),
            status,
            members: Vec::new(),
            fields: Vec::new(),
        }
    }

    /// With a further member of the error shape.
    pub fn with_member(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.members.push((name, value.into()));
        self
    }

    /// With a field at fault (its name and what is wrong with it).
    pub fn with_field(mut self, name: impl Into<String>, message: impl Into<String>) -> Self {
        self.fields.push((name.into(), message.into()));
        self
    }

    /// A client error (400) with the given code.
    pub fn client(code: &'static str, message: impl Into<String>) -> Self {
        AwsError::new(code, 400, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        AwsError::new("InternalFailure", 500, message)
    }

    pub fn invalid_action(action: &str) -> Self {
        AwsError::client(
            "InvalidAction",
            format!("The action {action} is not valid for this web service."),
        )
    }

    pub fn missing_action() -> Self {
        AwsError::client(
            "MissingAction",
            "The request must contain the parameter Action.",
        )
    }

    pub fn unknown_operation() -> Self {
        AwsError::client("UnknownOperationException", "")
    }

    pub fn serialization(message: impl Into<String>) -> Self {
        AwsError::client("SerializationException", message)
    }

    pub fn too_large(limit: usize) -> Self {
        AwsError::new(
            "RequestEntityTooLarge",
            413,
            format!("Request body is larger than the largest request accepted ({limit} bytes)."),
        )
    }

    pub fn is_server_fault(&self) -> bool {
        self.status >= 500
    }
}

impl fmt::Display for AwsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for AwsError {}
