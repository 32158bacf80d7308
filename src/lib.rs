//! switchyard: a local AWS emulator for messaging (SNS, SQS, EventBridge) with a faithful
//! delivery engine on a virtual clock. See README.md and docs/architecture.md.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let emulator = switchyard::Emulator::start(switchyard::Config::for_tests()).await?;
//! println!("AWS_ENDPOINT_URL={}", emulator.url());
//! # Ok(()) }
//! ```
//! The layers and which way they depend: docs/architecture.md.

pub mod arn;
pub mod clock;
pub mod config;
pub mod dispatch;
pub mod endpoint;
pub mod error;
#[doc(hidden)]
pub mod fuzz;
pub mod localstack_env;
pub mod logfmt;
pub mod memory;
pub mod model;
pub mod panics;
pub mod protocol;
pub mod runtime;
pub mod server;
pub mod services;
pub mod state;
pub mod text;

// The engine and the leaves it uses live in their own crate (crates/engine), which depends on
// nothing here, so an upward import from the engine does not compile; their modules keep their
// paths here (`crate::engine`, `switchyard::body`, ...).
pub use switchyard_engine::{body, engine, pairs, signature};

/// The runtime's CA loader under the module name it had before the runtime was split out.
pub mod app {
    pub use crate::runtime::load_https_ca;
}

pub use clock::ClockMode;
pub use config::{AuthMode, Config};
pub use runtime::{AdvanceError, Advanced};
pub use server::Emulator;
