//! PyO3 glue for `ethersim._core`: convert arguments, call ethersim-core, map errors.
//! No simulation logic lives here.

// PyO3 extracts Python arguments into owned values; taking them by value is its idiom.
#![allow(clippy::needless_pass_by_value)]

mod errors;

use pyo3::prelude::*;

use errors::{guard, to_py_err};

/// Runs a scenario given as TOML text; returns the run report as JSON text.
///
/// `overrides` are `(key path, value)` pairs applied in order; `seed` replaces the
/// scenario's seed. The GIL is released while the simulation runs; every million or so
/// events the run briefly takes it back to look for signals, so Ctrl-C stops a long run
/// (as `KeyboardInterrupt`).
#[pyfunction]
#[pyo3(signature = (text, overrides = Vec::new(), seed = None))]
fn run(
    py: Python<'_>,
    text: String,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
) -> PyResult<String> {
    let outcome = py.detach(|| {
        guard(|| {
            let keep_going = || Python::attach(|py| py.check_signals().is_ok());
            let report = ethersim_core::run::run_text_with(&text, &overrides, seed, keep_going)?;
            // A report is plain data (numbers, strings, lists): serializing cannot fail.
            Ok(serde_json::to_string(&report).expect("report serializes"))
        })
    });
    outcome.map_err(|e| to_py_err(py, e))
}

/// Checks a scenario without running it; returns the completed scenario (defaults
/// filled in) as JSON text.
#[pyfunction]
#[pyo3(signature = (text, overrides = Vec::new()))]
fn validate(py: Python<'_>, text: String, overrides: Vec<(String, String)>) -> PyResult<String> {
    guard(|| {
        let scenario = ethersim_core::validate_text(&text, &overrides)?;
        Ok(serde_json::to_string(&scenario).expect("scenario serializes"))
    })
    .map_err(|e| to_py_err(py, e))
}

/// The JSON Schema of scenario files.
#[pyfunction]
fn schema() -> String {
    ethersim_core::scenario::json_schema()
}

/// Panics inside Rust on purpose, so tests can check that a panic reaches Python as
/// `ethersim.InternalError` instead of crashing the interpreter.
#[pyfunction]
fn _trigger_panic(py: Python<'_>) -> PyResult<()> {
    guard(|| -> Result<(), ethersim_core::CoreError> {
        panic!("deliberate panic for the panic-boundary test")
    })
    .map_err(|e| to_py_err(py, e))
}

/// The ethersim-core version this extension was built from.
#[pyfunction]
fn core_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The private extension module behind the `ethersim` package.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(core_version, m)?)?;
    m.add_function(wrap_pyfunction!(_trigger_panic, m)?)?;
    Ok(())
}
