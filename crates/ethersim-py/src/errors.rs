//! The one place where Rust errors become Python exceptions.
//!
//! The exception classes are defined in Python (`ethersim/errors.py`), so the hierarchy
//! (`EthersimError`, `ScenarioError(EthersimError, ValueError)`, `InternalError`) is
//! written once; this module only instantiates them.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ethersim_core::CoreError;
use pyo3::prelude::*;

/// An error from the core, or a panic caught at the boundary.
pub enum GlueError {
    /// A reported error.
    Core(CoreError),
    /// A panic: always a bug.
    Panic(String),
}

/// Runs `f`, turning a panic into [`GlueError::Panic`] so it never unwinds into Python.
pub fn guard<T>(f: impl FnOnce() -> Result<T, CoreError>) -> Result<T, GlueError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(GlueError::Core),
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            Err(GlueError::Panic(msg))
        }
    }
}

fn instantiate<'py, A: pyo3::call::PyCallArgs<'py>>(py: Python<'py>, class: &str, args: A) -> PyErr {
    let made = py.import("ethersim.errors").and_then(|m| m.getattr(class)).and_then(|cls| cls.call1(args));
    match made {
        Ok(obj) => PyErr::from_value(obj),
        Err(e) => e,
    }
}

/// Maps every error kind to its Python exception (exhaustive: a new kind must be mapped).
pub fn to_py_err(py: Python<'_>, e: GlueError) -> PyErr {
    match e {
        GlueError::Core(CoreError::Scenario(s)) => instantiate(py, "ScenarioError", (s.message, s.path)),
        GlueError::Core(CoreError::Output(msg)) => instantiate(py, "OutputError", (msg,)),
        GlueError::Panic(msg) => instantiate(
            py,
            "InternalError",
            (format!("internal error, this is a bug in ethersim (please report it): {msg}"),),
        ),
    }
}

/// Whether `raised` (by a progress callback) asks to end the run keeping its results: an
/// instance of `ethersim.errors.WallLimitReached`.
pub fn ends_the_run(py: Python<'_>, raised: &PyErr) -> bool {
    py.import("ethersim.errors")
        .and_then(|m| m.getattr("WallLimitReached"))
        .is_ok_and(|cls| raised.value(py).is_instance(&cls).unwrap_or(false))
}
