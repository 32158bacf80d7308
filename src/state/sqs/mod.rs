//! The sqs store and the plain types it holds.

pub(crate) mod attributes;
pub(crate) mod digest;
pub(crate) mod errors;
pub mod shapes;
pub mod store;
