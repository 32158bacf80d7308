//! The iam store and the plain types it holds.

pub mod store;
