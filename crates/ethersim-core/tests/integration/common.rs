//! Shared helpers of the cross-module tests: build a scenario from TOML text and run it.

#![allow(dead_code)]

use ethersim_core::engine::RunLimits;
use ethersim_core::scenario;
use ethersim_core::sim::Simulation;
use ethersim_core::time::SimTime;

/// Builds the scenario in `text` (panicking with the scenario error if it is invalid).
#[track_caller]
pub fn simulation(text: &str) -> Simulation {
    let s = scenario::load(text, &[]).unwrap_or_else(|e| panic!("{e}"));
    let built = scenario::build(&s).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(built.network, built.limits)
}

/// Builds the scenario in `text` with a time limit at `until`.
#[track_caller]
pub fn simulation_until(text: &str, until: SimTime) -> Simulation {
    let s = scenario::load(text, &[]).unwrap_or_else(|e| panic!("{e}"));
    let built = scenario::build(&s).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(built.network, RunLimits { until: Some(until), max_events: None })
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
