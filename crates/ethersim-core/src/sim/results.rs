//! What a run reports: per flow, per port, per host, and for all packets together.
//!
//! The summary holds simulated quantities only, so the same scenario and seed give a
//! byte-identical summary on any machine; wall-clock figures are reported beside it.

use serde::Serialize;

use crate::app::AppKind;
use crate::engine::StopReason;
use crate::stats::{DelayStats, DelaySummary};
use crate::time::SimTime;

use super::network::{Network, Node};

/// The results of one flow.
#[derive(Clone, Debug, Serialize)]
pub struct FlowResult {
    /// Application name.
    pub name: String,
    /// Application kind (`udp_file`, `constant_rate`, `poisson`).
    pub kind: &'static str,
    /// Sending host.
    pub from: String,
    /// Receiving host.
    pub to: String,
    /// Packets handed to the sending host.
    pub packets_sent: u64,
    /// Payload bytes handed to the sending host.
    pub bytes_sent: u64,
    /// Packets a source generated while its host had no free buffer.
    pub send_drops: u64,
    /// Packets delivered to the receiver.
    pub packets_received: u64,
    /// Payload bytes delivered to the receiver.
    pub bytes_received: u64,
    /// Packets lost in the network (queue or receive-ring overflow).
    pub lost: u64,
    /// Packets still in the network when the run ended.
    pub in_flight: u64,
    /// Packets lost anywhere (at the sender or in the network) as a fraction of those
    /// generated: (`lost` + `send_drops`) / (`packets_sent` + `send_drops`).
    pub loss_fraction: f64,
    /// Packets received out of order.
    pub reordered: u64,
    /// When the application started, s.
    pub start_s: f64,
    /// From start until the last packet left the network, s (`null` if unfinished).
    pub completion_time_s: Option<f64>,
    /// Payload bits received per second, from start to completion (or to the end of the run).
    pub goodput_bps: f64,
    /// One-way delay, from hand-over to the host to delivery.
    pub delay: DelaySummary,
}

/// The results of one port (one direction of a link).
#[derive(Clone, Debug, Serialize)]
pub struct PortResult {
    /// Node owning the port.
    pub node: String,
    /// Node at the other end.
    pub peer: String,
    /// Link rate, bit/s.
    pub rate_bps: u64,
    /// Propagation delay, s.
    pub delay_s: f64,
    /// Frames whose last bit left the port by the end of the run.
    pub frames_sent: u64,
    /// Bytes of those frames (frame lengths).
    pub bytes_sent: u64,
    /// Frames dropped at this port's queue.
    pub drops: u64,
    /// Bytes dropped at this port's queue.
    pub dropped_bytes: u64,
    /// Largest queue held for a positive time, bytes (a frame on the wire is not queued).
    pub max_queue_bytes: u64,
    /// Largest queue held for a positive time, frames.
    pub max_queue_frames: u64,
    /// Time-averaged queue, bytes.
    pub mean_queue_bytes: f64,
    /// Time-averaged queue, frames.
    pub mean_queue_frames: f64,
    /// Fraction of the run spent transmitting.
    pub utilization: f64,
}

/// The results of one host.
#[derive(Clone, Debug, Serialize)]
pub struct HostResult {
    /// Host name.
    pub name: String,
    /// Packets its applications handed over.
    pub tx_packets: u64,
    /// Frames delivered to its applications.
    pub rx_packets: u64,
    /// Frames lost to a full receive ring.
    pub rx_drops: u64,
}

/// Everything a run reports that simulation determines (no wall-clock figures).
#[derive(Clone, Debug, Serialize)]
pub struct RunSummary {
    /// Scenario name.
    pub scenario: String,
    /// Seed of every random stream.
    pub seed: u64,
    /// Why the run ended.
    pub stop_reason: Option<StopReason>,
    /// Simulated time at the end, s.
    pub sim_time_s: f64,
    /// Simulated time at the end, ps (exact).
    pub sim_time_ps: u64,
    /// Events executed.
    pub events: u64,
    /// Delay over every delivered packet of every flow.
    pub delay: DelaySummary,
    /// Per flow.
    pub flows: Vec<FlowResult>,
    /// Per port.
    pub ports: Vec<PortResult>,
    /// Per host.
    pub hosts: Vec<HostResult>,
}

fn kind_name(kind: &AppKind) -> &'static str {
    match kind {
        AppKind::UdpFile(_) => "udp_file",
        AppKind::Source(s) => match s.arrivals {
            crate::app::Arrivals::Constant { .. } => "constant_rate",
            crate::app::Arrivals::Poisson { .. } => "poisson",
        },
    }
}

/// Builds the summary of `net` at simulated time `end`.
pub fn summarize(
    net: &Network,
    scenario: &str,
    seed: u64,
    stop: Option<StopReason>,
    end: SimTime,
    events: u64,
) -> RunSummary {
    let mut all_delays = DelayStats::default();
    let flows = net
        .apps
        .iter()
        .zip(&net.app_names)
        .map(|(app, name)| {
            all_delays.merge(&app.received.delay);
            let done = app.completed_at;
            let span = done.unwrap_or(end).saturating_since(app.start).as_secs_f64();
            let sent = app.sent;
            FlowResult {
                name: name.clone(),
                kind: kind_name(&app.kind),
                from: net.names[app.src.index()].clone(),
                to: net.names[app.dst.index()].clone(),
                packets_sent: sent.packets,
                bytes_sent: sent.bytes,
                send_drops: sent.send_drops,
                packets_received: app.received.packets,
                bytes_received: app.received.bytes,
                lost: sent.network_drops,
                in_flight: sent.in_flight,
                loss_fraction: {
                    let generated = sent.packets + sent.send_drops;
                    let lost = sent.network_drops + sent.send_drops;
                    if generated == 0 {
                        0.0
                    } else {
                        lost as f64 / generated as f64
                    }
                },
                reordered: app.received.reordered,
                start_s: app.start.as_secs_f64(),
                completion_time_s: done.map(|t| t.saturating_since(app.start).as_secs_f64()),
                goodput_bps: if span > 0.0 { app.received.bytes as f64 * 8.0 / span } else { 0.0 },
                delay: app.received.delay.summary(),
            }
        })
        .collect();
    let ports = net
        .ports
        .iter()
        .map(|p| {
            let s = p.stats();
            let q = p.queue();
            PortResult {
                node: net.names[p.node.index()].clone(),
                peer: net.names[net.ports[p.peer.index()].node.index()].clone(),
                rate_bps: p.link.rate.as_bps(),
                delay_s: p.link.delay.as_secs_f64(),
                frames_sent: p.frames_sent_by(end),
                bytes_sent: p.bytes_sent_by(end),
                drops: s.drops,
                dropped_bytes: s.dropped_bytes,
                max_queue_bytes: q.bytes_level().max_until(end),
                max_queue_frames: q.frames_level().max_until(end),
                mean_queue_bytes: q.bytes_level().mean_until(end),
                mean_queue_frames: q.frames_level().mean_until(end),
                utilization: p.utilization(end),
            }
        })
        .collect();
    let hosts = net
        .nodes
        .iter()
        .zip(&net.names)
        .filter_map(|(n, name)| match n {
            Node::Host(h) => Some(HostResult {
                name: name.clone(),
                tx_packets: h.stats().tx_packets,
                rx_packets: h.stats().rx_packets,
                rx_drops: h.stats().rx_drops,
            }),
            Node::Switch(_) => None,
        })
        .collect();
    RunSummary {
        scenario: scenario.to_owned(),
        seed,
        stop_reason: stop,
        sim_time_s: end.as_secs_f64(),
        sim_time_ps: end.as_ps(),
        events,
        delay: all_delays.summary(),
        flows,
        ports,
        hosts,
    }
}
