//! The Lambda store and the plain types it holds.

pub mod store;
