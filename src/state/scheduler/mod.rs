//! The scheduler store and the plain types it holds.

pub mod expression;
pub mod store;
