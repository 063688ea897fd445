//! The measurement window: what changed between its start and the end of the run, and
//! rates per second of it.

use crate::sim::network::Network;
use crate::time::SimTime;
use serde::Serialize;

/// The span a measurement window covered.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct WindowResult {
    /// Its start, s.
    pub from_s: f64,
    /// Its end (the run's end, if that came first), s.
    pub until_s: f64,
}

/// The differences of the window's counters, and its span in seconds.
pub(crate) struct WindowDelta {
    /// The window's length, s.
    pub(crate) span_s: f64,
    /// Per port: data frames and their bytes sent within the window.
    pub(super) ports: Vec<(u64, u64)>,
    /// Per flow: packets and their bytes received within the window (the goodput's).
    pub(super) flows: Vec<(u64, u64)>,
    /// The window's own record.
    pub(super) result: WindowResult,
}

pub(super) fn window_delta(net: &Network, end: SimTime) -> Option<WindowDelta> {
    let w = net.window.as_deref()?;
    let start = w.at_start.as_ref()?;
    let (until, stop) = match &w.at_end {
        Some((t, c)) => (*t, c.clone()),
        None => (end.min(w.until), net.settled_counts()),
    };
    let diff = |a: &[(u64, u64)], b: &[(u64, u64)]| -> Vec<(u64, u64)> {
        a.iter().zip(b).map(|(s, e)| (e.0 - s.0, e.1 - s.1)).collect()
    };
    Some(WindowDelta {
        span_s: until.saturating_since(w.from).as_secs_f64(),
        ports: diff(&start.ports, &stop.ports),
        flows: diff(&start.flows, &stop.flows),
        result: WindowResult {
            from_s: (w.from - SimTime::ZERO).as_secs_f64(),
            until_s: (until - SimTime::ZERO).as_secs_f64(),
        },
    })
}

/// `count` per frame of `frames` (0 without frames).
pub(crate) fn per_frame(count: u64, frames: u64) -> f64 {
    if frames > 0 {
        count as f64 / frames as f64
    } else {
        0.0
    }
}

pub(crate) fn per_s(count: f64, span_s: f64) -> f64 {
    if span_s > 0.0 {
        count / span_s
    } else {
        0.0
    }
}
