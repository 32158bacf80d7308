//! The events store and the plain types it holds.

pub mod retry;
pub mod schedule;
pub mod store;
