//! PyO3 glue for `ethersim._core`: convert arguments, call ethersim-core, map errors.
//! No simulation logic lives here.

// PyO3 extracts Python arguments into owned values; taking them by value is its idiom.
#![allow(clippy::needless_pass_by_value)]

mod errors;

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use errors::{guard, to_py_err};

/// Events between two looks for Python signals: rare enough to cost nothing (a few
/// milliseconds of simulation), frequent enough to answer Ctrl-C at once.
const SIGNAL_CHECK_EVERY: u64 = 1 << 20;

/// Runs a scenario given as TOML text; returns the run report as Python data (see
/// [`python_value`]).
///
/// `overrides` are `(key path, value)` pairs applied in order; `seed` replaces the
/// scenario's seed. The GIL is released while the simulation runs; every million or so
/// events the run briefly takes it back to run Python's signal handlers, so Ctrl-C stops
/// a long run, and to call `progress(sim_time_s, events, until_s)` if given (`until_s`:
/// the simulated time limit, or `None`). Whatever a handler or `progress` raises
/// (`KeyboardInterrupt`, a caller's timeout, `SystemExit`) is what this function raises,
/// except `ethersim.errors.WallLimitReached`: raised by `progress`, it ends the run where
/// it stands and the report is returned, its stop reason `wall_limit`.
/// `output` is the folder packet captures are written to (needed by a scenario with
/// captures; the caller removes it if the run fails).
#[pyfunction]
#[pyo3(signature = (text, overrides = Vec::new(), seed = None, progress = None, output = None))]
fn run(
    py: Python<'_>,
    text: String,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
    progress: Option<Py<PyAny>>,
    output: Option<std::path::PathBuf>,
) -> PyResult<Bound<'_, PyAny>> {
    let outcome = py.detach(|| -> Result<String, Stopped> {
        let mut run =
            guard(|| ethersim_core::run::Run::prepare_writing(&text, &overrides, seed, output.as_deref()))?;
        let reason = loop {
            // Each slice runs under the panic guard; Python is called only between slices,
            // outside it, so nothing Python does (even ending a thread) unwinds into it.
            if let Some(reason) = guard(|| Ok(run.advance(SIGNAL_CHECK_EVERY)))? {
                break reason;
            }
            // Between slices: Python's signal handlers, then the progress callback;
            // whatever either raises stops the run.
            let (now, events, until) = run.progress();
            let signals = Python::try_attach(|py| {
                py.check_signals()?;
                if let Some(report) = &progress {
                    report.call1(
                        py,
                        (now.as_secs_f64(), events, until.map(ethersim_core::time::SimTime::as_secs_f64)),
                    )?;
                }
                Ok::<(), PyErr>(())
            });
            match signals {
                Some(Ok(())) => {}
                Some(Err(raised))
                    if Python::try_attach(|py| errors::ends_the_run(py, &raised)) == Some(true) =>
                {
                    break ethersim_core::engine::StopReason::WallLimit;
                }
                Some(Err(raised)) => return Err(Stopped::Signal(raised)),
                None => return Err(Stopped::Finalizing),
            }
        };
        let report = guard(|| run.report(reason))?;
        // A report is plain data (numbers, strings, lists): serializing cannot fail.
        Ok(serde_json::to_string(&report).expect("report serializes"))
    });
    let report = outcome.map_err(|stopped| match stopped {
        Stopped::Error(e) => to_py_err(py, e),
        Stopped::Signal(raised) => raised,
        Stopped::Finalizing => pyo3::exceptions::PyRuntimeError::new_err(
            "the interpreter is shutting down; the run was abandoned",
        ),
    })?;
    python_value(py, &report)
}

/// The Python value of JSON text the core wrote: dicts (in the text's key order), lists,
/// ints, floats, strings and `None`, as Python's `json.loads` returns them. Built here so
/// that reading a run's report does not import the json module and the regular
/// expressions it compiles (some milliseconds of every command's start-up). The report
/// still passes through serde_json's text, so what JSON cannot hold (a NaN) is `None`,
/// as it always was; serde_json's `float_roundtrip` parses each float to the value the
/// text spells, correctly rounded as Python's parser does (its default parse may miss
/// by the last bit, seen on a port's mean queue).
fn python_value<'py>(py: Python<'py>, json: &str) -> PyResult<Bound<'py, PyAny>> {
    let mut text = serde_json::Deserializer::from_str(json);
    Ok(serde_transcode::transcode(&mut text, pythonize::Pythonizer::new(py))?)
}

/// Why `run` returned without a report.
enum Stopped {
    /// The core reported an error or panicked.
    Error(errors::GlueError),
    /// A Python signal handler raised this.
    Signal(PyErr),
    /// The interpreter began shutting down.
    Finalizing,
}

impl From<errors::GlueError> for Stopped {
    fn from(e: errors::GlueError) -> Self {
        Stopped::Error(e)
    }
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

/// The scenario that runs, as TOML text: `text` with `overrides` applied and `seed`
/// (if given and within TOML's integers) as its seed. Raises `ScenarioError` as a run
/// would for text or overrides it refuses.
#[pyfunction]
#[pyo3(signature = (text, overrides = Vec::new(), seed = None))]
fn effective_scenario(
    py: Python<'_>,
    text: String,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
) -> PyResult<String> {
    guard(|| Ok(ethersim_core::scenario::effective_text(&text, &overrides, seed)?))
        .map_err(|e| to_py_err(py, e))
}

/// How the front shows each mechanism's record of results (`RecordView`s), as Python
/// data: a list of `{table, title, shown_when, columns: [[column, header], ...]}`.
#[pyfunction]
fn record_views(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let json = serde_json::to_string(&ethersim_core::sim::RECORD_VIEWS).expect("record views serialize");
    python_value(py, &json)
}

/// The JSON Schema of scenario files.
#[pyfunction]
fn schema() -> String {
    ethersim_core::scenario::json_schema()
}

/// Parses a quantity with the scenario files' unit grammar: `kind` is `"duration"`
/// (returns picoseconds), `"rate"` (bits per second) or `"size"` (bytes). Raises
/// `ScenarioError` at `path` if `text` is not such a quantity.
#[pyfunction]
#[pyo3(signature = (kind, text, path = String::new()))]
fn parse_quantity(py: Python<'_>, kind: &str, text: &str, path: String) -> PyResult<u64> {
    use ethersim_core::scenario::units;
    let parsed = match kind {
        "duration" => units::parse_duration(text).map(ethersim_core::time::Duration::as_ps),
        "rate" => units::parse_rate(text).map(ethersim_core::time::BitRate::as_bps),
        "size" => units::parse_size(text).map(ethersim_core::time::Bytes::get),
        _ => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "unknown quantity kind {kind:?}; expected duration, rate or size"
            )))
        }
    };
    parsed.map_err(|e| {
        to_py_err(py, errors::GlueError::Core(ethersim_core::scenario::ScenarioError::at(path, e.0).into()))
    })
}

/// Reads a packet trace (pcap or pcapng): returns the first frame's timestamp in
/// picoseconds since the file's epoch, and each frame's offset from it (picoseconds, as
/// little-endian u64s) and length on the wire (bytes, as little-endian u32s), in
/// timestamp order. The file is streamed: only a regular file is read, opened without
/// waiting (a FIFO is refused, not waited on). Raises `ScenarioError` at `path` (the
/// key path to name) if the file cannot be read or is not a valid trace, naming the file
/// and the record.
#[pyfunction]
#[pyo3(signature = (file, path = String::new()))]
fn read_trace(
    py: Python<'_>,
    file: std::path::PathBuf,
    path: String,
) -> PyResult<(u128, Bound<'_, PyBytes>, Bound<'_, PyBytes>)> {
    let shown = file.display().to_string();
    let fail = |message: String| {
        to_py_err(
            py,
            errors::GlueError::Core(ethersim_core::scenario::ScenarioError::at(path.clone(), message).into()),
        )
    };
    let (opened, _) = py
        .detach(|| ethersim_core::input::open(&file, None, "a packet trace"))
        .map_err(|e| fail(format!("cannot read trace {shown:?}: {e}")))?;
    let trace = py
        .detach(|| ethersim_core::capture::read_trace_from(opened))
        .map_err(|e| fail(format!("trace {shown:?}: {e}")))?;
    // Raw little-endian arrays (numpy reads them without a copy), not lists of Python
    // integers, which cost about 36 bytes a number.
    let n = trace.frames.len();
    let offsets = PyBytes::new_with(py, n * 8, |buf| {
        for (chunk, f) in buf.chunks_exact_mut(8).zip(&trace.frames) {
            chunk.copy_from_slice(&f.offset_ps.to_le_bytes());
        }
        Ok(())
    })?;
    let lengths = PyBytes::new_with(py, n * 4, |buf| {
        for (chunk, f) in buf.chunks_exact_mut(4).zip(&trace.frames) {
            chunk.copy_from_slice(&f.frame_len.to_le_bytes());
        }
        Ok(())
    })?;
    Ok((trace.first_ps, offsets, lengths))
}

/// [`python_value`] of `json`, for the tests that hold it to Python's `json.loads`.
/// Raises `ValueError` for text that is not JSON.
#[pyfunction]
fn _json_value<'py>(py: Python<'py>, json: &str) -> PyResult<Bound<'py, PyAny>> {
    python_value(py, json).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
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

/// How this extension was optimised: `pgo <digest> (made for these sources)` when it was
/// built with the profile-guided optimisation profile ethersim's build backend applies
/// (`build_backend/ethersim_build.py`; "made for earlier sources" if the profile is older
/// than the code), `instrumented: <why>` when `scripts/pgo-profile` built it to count
/// its branches (it then writes the counts as the process exits), else `none: <why>`.
#[pyfunction]
fn build_profile() -> &'static str {
    option_env!("ETHERSIM_BUILD_PROFILE")
        .unwrap_or("none: built without ethersim's build backend (plain cargo)")
}

/// The private extension module behind the `ethersim` package.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(effective_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(record_views, m)?)?;
    m.add_function(wrap_pyfunction!(core_version, m)?)?;
    m.add_function(wrap_pyfunction!(build_profile, m)?)?;
    m.add_function(wrap_pyfunction!(parse_quantity, m)?)?;
    m.add_function(wrap_pyfunction!(read_trace, m)?)?;
    m.add_function(wrap_pyfunction!(_trigger_panic, m)?)?;
    m.add_function(wrap_pyfunction!(_json_value, m)?)?;
    Ok(())
}
