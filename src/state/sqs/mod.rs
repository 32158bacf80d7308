//! The sqs store and the plain types it holds.

pub mod attributes;
pub mod digest;
pub mod errors;
pub mod shapes;
pub mod store;
