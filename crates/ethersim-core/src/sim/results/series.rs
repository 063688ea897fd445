//! The time series a run records: per-port levels and per-flow TCP state, each with
//! its point limit.

use crate::sim::network::Network;
use crate::sim::trace::Subscriber;
use crate::stats::Series;
use crate::time::SimTime;
use serde::Serialize;

/// One quantity of one port over time, as change points.
#[derive(Clone, Debug, Serialize)]
pub struct SeriesResult {
    /// The port, `node->peer`.
    pub port: String,
    /// `queue_bytes`, `queue_frames`, `gate_open`, `pause_received` (PAUSE frames
    /// received so far), `rate_bps` (the port's rate), `offered_bytes` (bytes of data
    /// frames offered to it so far, queued or dropped) or `lpi_state` (0 active, 1 sleep,
    /// 2 quiet, 3 wake).
    pub quantity: &'static str,
    /// Instants of the changes, ps.
    pub t_ps: Vec<u64>,
    /// The level from each instant on.
    pub value: Vec<u64>,
    /// Changes merged into buckets rather than kept as points (past the series' point
    /// limit; 0 while it holds).
    pub dropped_points: u64,
    /// Past the point limit, the width of the buckets each of which keeps its lowest,
    /// highest and last level, ps; 0 when every change is kept.
    pub bucket_ps: u64,
}

/// One quantity of one TCP sender over time, as change points.
#[derive(Clone, Debug, Serialize)]
pub struct TcpSeriesResult {
    /// The flow (application name).
    pub flow: String,
    /// `cwnd`, `ssthresh`, `flight` (bytes), `srtt` or `rto` (ps).
    pub quantity: &'static str,
    /// Instants of the changes, ps.
    pub t_ps: Vec<u64>,
    /// The level from each instant on.
    pub value: Vec<u64>,
    /// Changes merged into buckets rather than kept as points (past the series' point
    /// limit; 0 while it holds).
    pub dropped_points: u64,
    /// Past the point limit, the width of the buckets each of which keeps its lowest,
    /// highest and last level, ps; 0 when every change is kept.
    pub bucket_ps: u64,
}

pub(super) fn series_results(net: &Network, end: SimTime) -> Vec<SeriesResult> {
    let mut out = Vec::new();
    for s in net.trace.subscribers() {
        let Subscriber::Series(series) = s else { continue };
        let series = series.settled(end);
        let port = net.port_name(series.port);
        let p = &net.ports[series.port.index()];
        let result = |quantity, s: &Series| SeriesResult {
            port: port.clone(),
            quantity,
            t_ps: s.points.iter().map(|p| p.0.as_ps()).collect(),
            value: s.points.iter().map(|p| p.1).collect(),
            dropped_points: s.dropped_points,
            bucket_ps: s.bucket.0,
        };
        // The mechanisms' series of the link and of the port, each kept once for every
        // series of the port that asked: this series' window of them.
        let window = |s: &Series| s.within(series.limits);
        if let Some((quantity, s)) = net.attached.link_series(p.link, p.end, end) {
            out.push(result(quantity, &window(&s)));
        }
        for (quantity, s) in [
            ("queue_bytes", &series.queue_bytes),
            ("queue_frames", &series.queue_frames),
            ("gate_open", &series.gate_open),
        ] {
            out.push(result(quantity, s));
        }
        if let Some((quantity, s)) = net.attached.port_series(series.port) {
            out.push(result(quantity, &window(s)));
        }
        for (quantity, s) in [("rate_bps", &series.rate_bps), ("offered_bytes", &series.offered_bytes)] {
            out.push(result(quantity, s));
        }
    }
    out
}

pub(super) fn tcp_series_results(net: &Network) -> Vec<TcpSeriesResult> {
    let mut out = Vec::new();
    for flow in &net.flows {
        let Some(series) = net.endpoints[flow.ends[0].index()].tcp_series() else { continue };
        for (quantity, s) in series.named() {
            out.push(TcpSeriesResult {
                flow: flow.name.clone(),
                quantity,
                t_ps: s.points.iter().map(|p| p.0.as_ps()).collect(),
                value: s.points.iter().map(|p| p.1).collect(),
                dropped_points: s.dropped_points,
                bucket_ps: s.bucket.0,
            });
        }
    }
    out
}
