//! switchyard's engine and the leaves it needs, as a crate of their own so that the layers'
//! direction is a fact the compiler checks: this crate depends on nothing of switchyard, so an
//! import of anything above the engine (services, state, runtime, protocols, server) does not
//! compile. The root crate `switchyard` re-exports each module under its old path
//! (`switchyard::engine`, `switchyard::body`, `switchyard::signature`, `switchyard::pairs`).
//! docs/architecture.md, "The layers".

pub mod body;
pub mod engine;
pub mod pairs;
pub mod signature;
