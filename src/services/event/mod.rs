//! What classic EventBridge, the custom event bus and event streams share about events: the
//! fields and checks of a PutEvents entry, the event envelope, the pattern matcher and target input transformation. Pure functions over JSON
//! values; nothing here knows a store, the engine's state or a wire format.

pub mod entry;
pub mod envelope;
pub mod input;
pub use crate::state::pattern;
