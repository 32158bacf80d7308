//! The scheduler store and the plain types it holds.

pub(crate) mod expression;
pub mod store;
