//! ethersim-core: a deterministic packet-level simulator for Ethernet performance and
//! energy efficiency.
//!
//! Layers, each depending only on those above it in this list:
//! [`time`] (units) → [`engine`] (event kernel, RNG streams, timers) → [`wire`] (frame
//! formats) → [`phy`], [`node`], [`transport`], [`app`] (models) → [`stats`] →
//! [`sim`] (a built network and its results) → [`scenario`] (files → networks) →
//! [`run`] (the one-call entry points used by the Python front).

pub mod app;
pub mod capture;
pub mod engine;
pub mod error;
pub mod ids;
pub mod input;
pub mod node;
pub mod phy;
pub mod run;
pub mod scenario;
pub mod sim;
pub mod stats;
pub mod time;
pub mod transport;
pub mod wire;

pub use error::CoreError;
pub use run::{run_text, validate_text, RunReport};
