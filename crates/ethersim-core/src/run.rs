//! One-call entry points: scenario text in, results out.

use std::path::Path;
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
    /// What is valid in the scenario but pointless (see `scenario::Built::warnings`).
    pub warnings: Vec<String>,
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
    let mut run = Run::prepare(text, overrides, seed)?;
    let reason = loop {
        if let Some(reason) = run.advance(u64::MAX) {
            break reason;
        }
    };
    run.report(reason)
}

/// A run in progress, advanced in slices so that a caller can do other work between
/// them (the Python front looks for Ctrl-C). Slicing does not change the result.
#[derive(Debug)]
pub struct Run {
    sim: Simulation,
    name: String,
    seed: u64,
    started: Instant,
    warnings: Vec<String>,
}

impl Run {
    /// Parses, overrides, checks and builds the scenario in `text`; `seed` replaces its seed.
    /// A scenario with packet captures needs [`Run::prepare_writing`].
    pub fn prepare(text: &str, overrides: &[(String, String)], seed: Option<u64>) -> Result<Run, CoreError> {
        Run::prepare_writing(text, overrides, seed, None)
    }

    /// As [`Run::prepare`], with the folder the run's packet captures are written to
    /// (their file names are relative to it); a scenario with captures and no folder is an
    /// error. The files are complete once [`Run::report`] returns.
    pub fn prepare_writing(
        text: &str,
        overrides: &[(String, String)],
        seed: Option<u64>,
        output: Option<&Path>,
    ) -> Result<Run, CoreError> {
        let started = Instant::now();
        let mut s = scenario::load(text, overrides)?;
        if let Some(seed) = seed {
            s.seed = seed;
        }
        let mut built = scenario::build(&s)?;
        if !built.network.captures.is_empty() {
            let Some(dir) = output else {
                return Err(scenario::ScenarioError::at(
                    "captures",
                    "writing packet captures needs an output folder; expected `--out DIR` (or run \
                     without captures)",
                )
                .into());
            };
            for c in &mut built.network.captures {
                c.open(dir).map_err(CoreError::Output)?;
            }
        }
        Ok(Run {
            sim: Simulation::new(built.network, built.limits),
            name: s.name,
            seed: s.seed,
            started,
            warnings: built.warnings,
        })
    }

    /// Where the run stands: simulated time reached, events executed, and the simulated
    /// time limit if it has one.
    pub fn progress(&self) -> (crate::time::SimTime, u64, Option<crate::time::SimTime>) {
        let sched = self.sim.scheduler();
        (sched.now(), sched.events_executed(), self.sim.limits().until)
    }

    /// Runs at most `events` more events; returns why the run ended, or `None` if it has
    /// more to do.
    pub fn advance(&mut self, events: u64) -> Option<StopReason> {
        self.sim.run_slice(events)
    }

    /// The report of a run that ended for `reason`: a reason of the run's own (from
    /// [`Run::advance`]) or [`StopReason::WallLimit`], for a caller that ends it between
    /// two slices. Every way of ending keeps what was simulated: a run that reached the
    /// end of the clock reports its results up to the last instant it simulated, with a
    /// warning saying why it stopped.
    pub fn report(mut self, reason: StopReason) -> Result<RunReport, CoreError> {
        self.sim.end(reason);
        if reason == StopReason::ClockOverflow {
            self.warnings.push(format!(
                "the run stopped at {:.0} s of simulated time ({:.1} days): its next event lies \
                 beyond the engine's clock (about 213 days), so the results are up to that instant \
                 (stop_reason clock_overflow); give the scenario a `duration`, or shorten its \
                 timeline (fewer or closer packets, faster rates)",
                self.sim.scheduler().now().as_secs_f64(),
                self.sim.scheduler().now().as_secs_f64() / 86_400.0
            ));
        }
        let network = self.sim.network_mut();
        for i in 0..network.captures.len() {
            let name = network.port_name(network.captures[i].settings.port);
            let c = network.captures[i].finish(&name).map_err(CoreError::Output)?;
            if c.truncated {
                self.warnings.push(format!(
                    "capture {} of {} reached its size bound ({}): it kept the first {} frames and \
                     not the {} after them (raise captures[{i}].max_bytes, or --pcap-limit, to keep more)",
                    c.file,
                    c.port,
                    crate::time::Bytes(c.max_bytes),
                    c.frames,
                    c.frames_not_kept
                ));
            }
        }
        let wall = self.started.elapsed().as_secs_f64();
        let summary = self.sim.summary(&self.name, self.seed);
        let events_per_s = if wall > 0.0 { summary.events as f64 / wall } else { 0.0 };
        Ok(RunReport { summary, wall_time_s: wall, events_per_s, warnings: self.warnings })
    }
}
