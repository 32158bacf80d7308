//! The Lambda store and the plain types it holds.

pub(crate) mod invocations;
pub(crate) mod mappings;
pub(crate) mod retry;
pub mod store;
