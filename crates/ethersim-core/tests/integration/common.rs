//! Shared helpers of the cross-module tests: build a scenario from TOML text and run it.

#![allow(dead_code)]

use ethersim_core::engine::RunLimits;
use ethersim_core::ids::PortId;
use ethersim_core::phy::FrameClass;
use ethersim_core::scenario;
use ethersim_core::sim::{Simulation, Subscriber, TraceLog, TraceRecord};
use ethersim_core::time::SimTime;

/// Builds the scenario in `text` (panicking with the scenario error if it is invalid).
#[track_caller]
pub fn simulation(text: &str) -> Simulation {
    simulation_with(text, &[])
}

/// `(path, value)` pairs as [`scenario::load`] and [`ethersim_core::run::run_text`]
/// take them: `("links[0].rate", "10 Gb/s")`, the value read as `--set` reads it.
pub fn overrides(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|&(path, value)| (path.to_owned(), value.to_owned())).collect()
}

/// Builds the scenario in `text` with each `(path, value)` of `pairs` set by key path
/// (`--set`). A test changes a scenario this way rather than by editing its text: a path
/// that no longer fits the scenario is an error, where a text edit that no longer
/// matches would silently leave the scenario as it was.
#[track_caller]
pub fn simulation_with(text: &str, pairs: &[(&str, &str)]) -> Simulation {
    // `match` rather than `unwrap_or_else`: a panic in a closure would name this file,
    // not the test's line.
    let s = match scenario::load(text, &overrides(pairs)) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    let built = match scenario::build(&s) {
        Ok(built) => built,
        Err(e) => panic!("{e}"),
    };
    Simulation::new(built.network, built.limits)
}

/// Builds the scenario in `text` with a time limit at `until`.
#[track_caller]
pub fn simulation_until(text: &str, until: SimTime) -> Simulation {
    let s = scenario::load(text, &[]).unwrap_or_else(|e| panic!("{e}"));
    let built = scenario::build(&s).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(built.network, RunLimits { until: Some(until), max_events: None })
}

/// Builds the scenario in `text` with a complete trace log as its first subscriber.
#[track_caller]
pub fn logged(text: &str) -> Simulation {
    logged_with(text, &[])
}

/// [`logged`], with `pairs` set by key path as in [`simulation_with`].
#[track_caller]
pub fn logged_with(text: &str, pairs: &[(&str, &str)]) -> Simulation {
    let mut sim = simulation_with(text, pairs);
    sim.network_mut().trace.subscribe(Subscriber::Log(TraceLog::default()));
    sim
}

/// The trace log of a simulation built by [`logged`].
pub fn log(sim: &Simulation) -> &TraceLog {
    match &sim.network().trace.subscribers()[0] {
        Subscriber::Log(log) => log,
        Subscriber::Series(_) => unreachable!("the first subscriber is the log"),
    }
}

/// Instants (ps) at which `port` started data frames, from the log of [`logged`].
pub fn data_starts(sim: &Simulation, port: PortId) -> Vec<u64> {
    log(sim)
        .records
        .iter()
        .filter_map(|(t, r)| match r {
            TraceRecord::TxStarted { port: p, class: FrameClass::Data, .. } if *p == port => Some(t.as_ps()),
            _ => None,
        })
        .collect()
}

/// Two hosts joined by one link, nothing else.
pub fn two_hosts(rate: &str, delay: &str, tx_buffers: u32, app: &str) -> String {
    format!(
        r#"
[[hosts]]
name = "a"
tx_buffers = {tx_buffers}
[[hosts]]
name = "b"
rx_buffers = 100000
[[links]]
between = ["a", "b"]
rate = "{rate}"
delay = "{delay}"
[[apps]]
from = "a"
to = "b"
{app}
"#
    )
}

/// Host `a` → switch → host `b`; the first link at `rate_a`, the second at `rate_b`,
/// each with one-way `delay`; the switch port towards `b` holds `buffer_frames` frames.
pub fn host_switch_host(
    rate_a: &str,
    rate_b: &str,
    delay: &str,
    buffer_frames: u32,
    app: &str,
    extra: &str,
) -> String {
    format!(
        r#"
seed = 1
{extra}
[[hosts]]
name = "a"
[[hosts]]
name = "b"
[[switches]]
name = "s"
port_buffer = {{ frames = {buffer_frames} }}
[[links]]
between = ["a", "s"]
rate = "{rate_a}"
delay = "{delay}"
[[links]]
between = ["s", "b"]
rate = "{rate_b}"
delay = "{delay}"
[[apps]]
name = "t"
from = "a"
to = "b"
{app}
"#
    )
}
