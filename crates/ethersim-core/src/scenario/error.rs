//! Scenario errors: what was wrong, where (the key path), and what was expected.

use std::fmt;

/// A scenario that cannot be run, with the key path of the offending value
/// (`links[2].rate`; empty for the file as a whole).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ScenarioError {
    /// Key path of the offending value.
    pub path: String,
    /// What was wrong and what is expected.
    pub message: String,
}

impl ScenarioError {
    /// An error at `path`.
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { path: path.into(), message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}
