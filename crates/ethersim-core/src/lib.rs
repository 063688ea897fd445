//! ethersim-core: a deterministic packet-level simulator for Ethernet performance and
//! energy efficiency.
//!
//! Layers, each depending only on those above it in this list:
//! [`time`] and [`ids`] (units, typed indices) → [`engine`] (event kernel, RNG streams,
//! timers) → [`wire`] (frame formats) → [`stats`] (streaming statistics, series, idle
//! intervals) and [`capture`] (pcap and pcapng writing and reading) → [`phy`], [`node`],
//! [`transport`], [`app`] (models: links and their mechanisms, ports and switches, TCP,
//! applications) → [`sim`] (a built network, its event handlers and its results) →
//! [`scenario`] (files → networks: a schema and a builder per mechanism) → [`run`] (the
//! one-call entry points used by the Python front, and [`error`], the errors they
//! return). [`input`] (opening a user's file safely: regular files only, bounded sizes)
//! depends on nothing and serves the layers that read files.
//!
//! [`mechanisms`] is not a layer but a set of rooms, one directory per mechanism built
//! that way, whose files are named after the layers they belong to and keep their rules
//! (docs/architecture.md).

pub mod app;
pub mod capture;
pub mod engine;
pub mod error;
pub mod ids;
pub mod input;
pub mod mechanisms;
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
