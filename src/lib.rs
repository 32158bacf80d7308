//! switchyard: a local AWS emulator for messaging (SNS, SQS, EventBridge) with a faithful
//! delivery engine on a virtual clock. See README.md and docs/architecture.md.
//!
//! ```
//! # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A free port and a manual clock: virtual time moves only when the test says so.
//! let emulator = switchyard::Emulator::start(switchyard::Config::for_tests()).await?;
//! println!("AWS_ENDPOINT_URL={}", emulator.url());
//! emulator.advance(std::time::Duration::from_secs(900)).await?; // 15 minutes, no sleep
//! emulator.stop().await?;
//! # Ok(()) }
//! ```
//! As a test crate's dev-dependency, `switchyard = { version = "0.1", default-features = false }`
//! leaves out what only the binary needs (the `cli` and `mimalloc` features; docs/testing.md,
//! "Rust").
//! The layers and which way they depend: docs/architecture.md.

// `pub` only for what the crate's root reaches (its API, and the modules the binary, examples,
// fuzz targets and tests use); the rest says `pub(crate)` or narrower (docs/decisions.md,
// "Lints as the house rules").
#![warn(unreachable_pub)]

// The library's API is what the crate root re-exports below (`Emulator`, `Config`, `ClockMode`,
// `AuthMode`, `Advanced`, `AdvanceError`) and the modules their signatures name (`config`,
// `server`, `clock`). The modules marked `#[doc(hidden)]` are what switchyard's own binary,
// examples, benchmarks, fuzz targets and tests reach into: public only for them, hidden from the
// documentation, with no compatibility promised. The rest is `pub(crate)`.
pub(crate) mod arn;
pub mod clock;
pub mod config;
#[doc(hidden)]
pub mod dispatch;
#[doc(hidden)]
pub mod endpoint;
pub(crate) mod error;
#[doc(hidden)]
pub mod fuzz;
#[doc(hidden)]
pub mod localstack_env;
#[doc(hidden)]
pub mod logfmt;
#[doc(hidden)]
pub mod memory;
pub(crate) mod model;
pub(crate) mod panics;
#[doc(hidden)]
pub mod protocol;
#[doc(hidden)]
pub mod runtime;
pub mod server;
#[doc(hidden)]
pub mod services;
pub(crate) mod state;
pub(crate) mod text;

// The engine and the leaves it uses live in their own crate (crates/engine), which depends on
// nothing here, so an upward import from the engine does not compile; their modules keep their
// paths here (`crate::engine`, `crate::body`, ...).
pub(crate) use switchyard_engine::{body, pairs};
#[doc(hidden)]
pub use switchyard_engine::{engine, signature};

/// The runtime's CA loader under the module name it had before the runtime was split out.
#[doc(hidden)]
pub mod app {
    pub use crate::runtime::load_https_ca;
}

pub use clock::ClockMode;
pub use config::{AuthMode, Config};
pub use runtime::{AdvanceError, Advanced};
pub use server::Emulator;
