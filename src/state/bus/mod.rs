//! The bus store and the plain types it holds.

pub mod retry;
pub mod store;
