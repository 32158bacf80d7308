//! The sns store and the plain types it holds.

pub(crate) mod archive;
pub mod delivery_policy;
pub mod filter;
pub mod protocol;
pub mod shapes;
pub mod store;
