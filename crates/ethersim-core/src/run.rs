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

/// Runs the scenario in `text` with `overrides` applied; `seed` replaces the file's seed.
pub fn run_text(
    text: &str,
    overrides: &[(String, String)],
    seed: Option<u64>,
) -> Result<RunReport, CoreError> {
    let mut s = scenario::load(text, overrides)?;
    if let Some(seed) = seed {
        s.seed = seed;
    }
    Ok(run_scenario(&s)?)
}

/// Builds and runs a checked scenario.
pub fn run_scenario(s: &Scenario) -> Result<RunReport, scenario::ScenarioError> {
    let started = Instant::now();
    let built = scenario::build(s)?;
    let mut sim = Simulation::new(built.network, built.limits);
    let _: StopReason = sim.run();
    let wall = started.elapsed().as_secs_f64();
    let summary = sim.summary(&s.name, s.seed);
    let events_per_s = if wall > 0.0 { summary.events as f64 / wall } else { 0.0 };
    Ok(RunReport { summary, wall_time_s: wall, events_per_s })
}
