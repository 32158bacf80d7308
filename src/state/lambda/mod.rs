//! The Lambda store and the plain types it holds.

pub mod invocations;
pub mod mappings;
pub mod retry;
pub mod store;
