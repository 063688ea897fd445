//! The crate's one error type, mapped one-to-one onto the Python exception hierarchy.

use crate::scenario::ScenarioError;

/// Anything that stops ethersim-core from producing a result.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    /// The scenario is malformed or inconsistent.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// An output file (a packet capture) could not be written.
    #[error("{0}")]
    Output(String),
}
