//! One-call entry points: scenario text in, results out.

use std::time::Instant;

use serde::Serialize;

use crate::engine::StopReason;
use crate::error::CoreError;
use crate::scenario::{self, Scenario};
use crate::sim::{RunSummary, Simulation};

/// The results of a run: the deterministic summary and the wall-clock cost.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// Everything the simulation determined; byte-identical for the same scenario and seed.
    pub summary: RunSummary,
    /// Wall-clock time of building and running, s (measured outside the event loop).
    pub wall_time_s: f64,
    /// Events executed per wall-clock second.
    pub events_per_s: f64,
}

/// Parses, overrides (`(path, value)` pairs), checks and builds a scenario without running it.
pub fn validate_text(text: &str, overrides: &[(String, String)]) -> Result<Scenario, CoreError> {
    let s = scenario::load(text, overrides)?;
    scenario::build(&s)?;
    Ok(s)
}

/// Events between two calls of a run's `keep_going` check: rare enough to cost nothing
/// (a few milliseconds of work), frequent enough to answer an interrupt at once.
const CHECK_EVERY: u64 = 1 << 20;

/// Runs the scenario in `text` with `overrides` applied; `seed` replaces the file's seed.
pub fn run_text(
    text: &str,
    overrides: &[(String, String)],
    seed: Option<u64>,
) -> Result<RunReport, CoreError> {
    run_text_with(text, overrides, seed, || true)
}

/// Like [`run_text`], asking `keep_going` every million or so events; a `false` ends the
/// run with [`CoreError::Interrupted`].
pub fn run_text_with(
    text: &str,
    overrides: &[(String, String)],
    seed: Option<u64>,
    keep_going: impl FnMut() -> bool,
) -> Result<RunReport, CoreError> {
    let mut s = scenario::load(text, overrides)?;
    if let Some(seed) = seed {
        s.seed = seed;
    }
    run_scenario(&s, keep_going)
}

/// Builds and runs a checked scenario, asking `keep_going` every million or so events.
pub fn run_scenario(s: &Scenario, keep_going: impl FnMut() -> bool) -> Result<RunReport, CoreError> {
    let started = Instant::now();
    let built = scenario::build(s)?;
    let mut sim = Simulation::new(built.network, built.limits);
    let _: StopReason = sim.run_in_slices(CHECK_EVERY, keep_going).ok_or(CoreError::Interrupted)?;
    let wall = started.elapsed().as_secs_f64();
    let summary = sim.summary(&s.name, s.seed);
    let events_per_s = if wall > 0.0 { summary.events as f64 / wall } else { 0.0 };
    Ok(RunReport { summary, wall_time_s: wall, events_per_s })
}
