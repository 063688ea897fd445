//! What a run reports: per flow, per port, per link, per host, time series, and for all
//! packets together.
//!
//! The summary holds simulated quantities only, so the same scenario and seed give a
//! byte-identical summary on any machine; wall-clock figures are reported beside it.
//! Each application kind adds its own figures to its flow's row (see
//! [`Endpoint::report`](crate::app::Endpoint::report)); this module lists no kind.

mod mpi;
mod series;
pub(crate) mod window;

pub use mpi::{IdleBinResult, JobNodeResult, JobResult};
pub use series::{SeriesResult, TcpSeriesResult};
pub use window::WindowResult;

use crate::app::AppFigures;
use crate::engine::StopReason;
use crate::ids::{LinkId, PortId};
use crate::sim::attach::{AttachedRecords, LinkRecords, PortRecords};
use crate::sim::network::{Network, Node};
use crate::stats::{DelayStats, DelaySummary, IdleIntervals, IdleSummary};
use crate::time::SimTime;
use crate::wire::{ethernet, Role};
use serde::Serialize;

use self::mpi::{idle_interval_results, job_node_results, job_results};
use self::series::{series_results, tcp_series_results};
use self::window::{per_s, window_delta, WindowDelta};
use crate::sim::attach::MechanismTables;

/// The results of one flow.
#[derive(Clone, Debug, Serialize)]
pub struct FlowResult {
    /// Application name.
    pub name: String,
    /// Application kind, as the application names itself (`udp_file`, `ping`, ...).
    pub kind: &'static str,
    /// Source host.
    pub from: String,
    /// Sink host.
    pub to: String,
    /// Data packets handed to the source's host.
    pub packets_sent: u64,
    /// Their payload bytes.
    pub bytes_sent: u64,
    /// Packets generated while the source's host had no free buffer (lost at the sender).
    pub send_drops: u64,
    /// Data packets delivered to the sink.
    pub packets_received: u64,
    /// Their payload bytes (the goodput's numerator; acknowledgements never count).
    pub bytes_received: u64,
    /// Packets of the forward direction lost in the network (queue, ring or wire).
    pub lost: u64,
    /// Packets of the flow (both directions) still in the network when the run ended.
    pub in_flight: u64,
    /// Packets lost anywhere (at the sender or in the network) as a fraction of those
    /// generated: (`lost` + `send_drops`) / (`packets_sent` + `send_drops`).
    pub loss_fraction: f64,
    /// Data packets delivered out of order.
    pub reordered: u64,
    /// Data packets the sink end sent back (echo replies).
    pub reverse_packets_sent: u64,
    /// Of those, delivered to the source end.
    pub reverse_packets_received: u64,
    /// Acknowledgements the sink end sent back.
    pub acks_sent: u64,
    /// Packets of the reverse direction lost in the network.
    pub reverse_lost: u64,
    /// When the application started, s.
    pub start_s: f64,
    /// From start until the flow completed, s (`null` if unfinished).
    pub completion_time_s: Option<f64>,
    /// Payload bits delivered to the sink's application per second, from start to
    /// completion (or to the end of the run). Over TCP each byte counts once, however
    /// often it was sent.
    pub goodput_bps: f64,
    /// One-way delay of the data, from hand-over to the source's host to delivery.
    pub delay: DelaySummary,
    /// Figures of the application's own kind (a ping's round-trip times, say).
    #[serde(flatten)]
    pub app: AppFigures,
    /// Data packets delivered within the measurement window (none without one).
    pub measured_packets_received: Option<u64>,
    /// Their payload bytes.
    pub measured_bytes_received: Option<u64>,
    /// Payload bits per second delivered within the window.
    pub measured_goodput_bps: Option<f64>,
}

/// The results of one port (one direction of a link).
#[derive(Clone, Debug, Serialize)]
pub struct PortResult {
    /// Node owning the port.
    pub node: String,
    /// Node at the other end.
    pub peer: String,
    /// Link rate at the end of the run, bit/s.
    pub rate_bps: u64,
    /// Time-weighted mean link rate over the run, bit/s.
    pub mean_rate_bps: f64,
    /// Rate changes during the run.
    pub rate_changes: u64,
    /// Propagation delay, s.
    pub delay_s: f64,
    /// Data frames whose last bit left the port by the end of the run.
    pub frames_sent: u64,
    /// Bytes of those frames (frame lengths).
    pub bytes_sent: u64,
    /// MAC control frames sent.
    pub control_sent: u64,
    /// MAC control frames received.
    pub control_received: u64,
    /// Its mechanisms' columns (PAUSE, Low Power Idle, link-rate switching), `null` or
    /// zero where a mechanism is absent.
    #[serde(flatten)]
    pub mechanisms: PortRecords,
    /// Frames dropped at this port's queue.
    pub drops: u64,
    /// Bytes dropped at this port's queue.
    pub dropped_bytes: u64,
    /// Frames cut off on the wire when the link went dark.
    pub wire_losses: u64,
    /// Largest buffer occupancy held for a positive time, bytes (a frame counts until its
    /// last bit has left).
    pub max_queue_bytes: u64,
    /// Largest buffer occupancy held for a positive time, frames.
    pub max_queue_frames: u64,
    /// Time-averaged buffer occupancy, bytes.
    pub mean_queue_bytes: f64,
    /// Time-averaged buffer occupancy, frames.
    pub mean_queue_frames: f64,
    /// Fraction of the run spent transmitting.
    pub utilization: f64,
    /// Idle intervals between its transmissions (from the end of one frame's gap to the
    /// start of the next transmission): what an LPI PHY could sleep in. Recorded on the
    /// ports of MPI jobs' hosts and their link partners, or on every port with the
    /// scenario's `record_idle_intervals`.
    pub idle: IdleSummary,
    /// Data frames whose transmission ended within the measurement window (none without
    /// one).
    pub measured_frames_sent: Option<u64>,
    /// Their bytes (frame lengths).
    pub measured_bytes_sent: Option<u64>,
    /// Their bits on the wire (frames, preamble and inter-frame gap: 20 B a frame) per
    /// second of the window.
    pub measured_bit_rate_bps: Option<f64>,
    /// Their number per second of the window.
    pub measured_frame_rate_per_s: Option<f64>,
    /// The columns of the mechanisms kept beside the ports (a token-bucket shaper's), on
    /// the ports that have them only: a port without one has none of these keys.
    #[serde(flatten)]
    pub attached: AttachedRecords,
}

/// The results of one link.
#[derive(Clone, Debug, Serialize)]
pub struct LinkResult {
    /// The nodes it joins.
    pub between: [String; 2],
    /// Outages begun during the run.
    pub outages: u64,
    /// Time spent dark, s.
    pub dark_s: f64,
    /// Frames lost by the link's loss model, by the end that sent them (`between` order).
    pub frames_lost: [u64; 2],
    /// Its mechanisms' columns (link-rate switching), zero or empty where absent.
    #[serde(flatten)]
    pub mechanisms: LinkRecords,
    /// Capacity redraws (links whose capacity varies).
    pub capacity_changes: u64,
}

/// The results of one host.
#[derive(Clone, Debug, Serialize)]
pub struct HostResult {
    /// Host name.
    pub name: String,
    /// Packets its endpoints handed over.
    pub tx_packets: u64,
    /// Frames delivered to its endpoints.
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
    /// Delay over every delivered data packet of every flow.
    pub delay: DelaySummary,
    /// Per flow.
    pub flows: Vec<FlowResult>,
    /// Per port.
    pub ports: Vec<PortResult>,
    /// Per link.
    pub links: Vec<LinkResult>,
    /// Per host.
    pub hosts: Vec<HostResult>,
    /// The tables of the mechanisms that report rows of their own (the stations of
    /// shared-medium segments), each in its place among the run's tables.
    #[serde(flatten)]
    pub mechanisms: MechanismTables,
    /// Port time series asked for in the scenario.
    pub series: Vec<SeriesResult>,
    /// TCP sender time series asked for in the scenario.
    pub tcp_series: Vec<TcpSeriesResult>,
    /// The distribution of every port's idle intervals, one row per histogram bin.
    pub idle_intervals: Vec<IdleBinResult>,
    /// Per MPI job.
    pub jobs: Vec<JobResult>,
    /// Per host of each MPI job.
    pub job_nodes: Vec<JobNodeResult>,
    /// The measurement window the `window_*` figures cover, if the scenario has one and
    /// the run reached its start.
    pub window: Option<WindowResult>,
    /// Per packet capture: its file and what it holds.
    pub captures: Vec<crate::capture::CaptureResult>,
}

fn flow_results(
    net: &Network,
    end: SimTime,
    window: Option<&WindowDelta>,
    all_delays: &mut DelayStats,
) -> Vec<FlowResult> {
    net.flows
        .iter()
        .enumerate()
        .map(|(i, flow)| {
            let in_window = window.map(|w| (w.flows[i], w.span_s));
            let c = &flow.counters;
            all_delays.merge(&c.delay);
            let fwd = &c.dirs[Role::Sink.index()];
            let rev = &c.dirs[Role::Source.index()];
            let [src, dst] = flow.ends.map(|e| &net.endpoints[e.index()]);
            let send_drops = src.send_drops();
            let mut app = AppFigures::new();
            src.report(&mut app);
            dst.report(&mut app);
            app.shrink_to_fit();
            let delivered = dst.delivered_bytes().unwrap_or(fwd.bytes_received);
            let done = flow.completed_at;
            let span = done.unwrap_or(end).saturating_since(flow.start).as_secs_f64();
            let generated = fwd.packets_sent + send_drops;
            FlowResult {
                name: flow.name.clone(),
                kind: src.kind_name(),
                from: net.names[flow.hosts[0].index()].clone(),
                to: net.names[flow.hosts[1].index()].clone(),
                packets_sent: fwd.packets_sent,
                bytes_sent: fwd.bytes_sent,
                send_drops,
                packets_received: fwd.packets_received,
                bytes_received: fwd.bytes_received,
                lost: fwd.lost,
                in_flight: flow.in_flight,
                loss_fraction: if generated == 0 {
                    0.0
                } else {
                    (fwd.lost + send_drops) as f64 / generated as f64
                },
                reordered: fwd.reordered,
                reverse_packets_sent: rev.packets_sent,
                reverse_packets_received: rev.packets_received,
                acks_sent: rev.acks_sent,
                reverse_lost: rev.lost,
                start_s: flow.start.as_secs_f64(),
                completion_time_s: done.map(|t| t.saturating_since(flow.start).as_secs_f64()),
                goodput_bps: if span > 0.0 { delivered as f64 * 8.0 / span } else { 0.0 },
                measured_packets_received: in_window.map(|((n, _), _)| n),
                measured_bytes_received: in_window.map(|((_, b), _)| b),
                measured_goodput_bps: in_window.map(|((_, b), t)| per_s(b as f64 * 8.0, t)),
                delay: c.delay.summary(),
                app,
            }
        })
        .collect()
}

fn port_results(net: &Network, end: SimTime, window: Option<&WindowDelta>) -> Vec<PortResult> {
    net.ports
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let in_window = window.map(|w| (w.ports[i], w.span_s));
            let s = p.stats();
            let q = p.queue();
            let (bytes, frames) = (q.bytes_level(end), q.frames_level(end));
            let link = &net.links[p.link.index()];
            let dir = &link.dirs[p.end];
            PortResult {
                node: net.names[p.node.index()].clone(),
                peer: net.peer_name(crate::ids::PortId(i as u32)).to_owned(),
                rate_bps: dir.rate().as_bps(),
                mean_rate_bps: dir.mean_rate_bps(end),
                rate_changes: dir.rate_changes(),
                delay_s: dir.delay().as_secs_f64(),
                frames_sent: p.frames_sent_by(end),
                bytes_sent: p.bytes_sent_by(end),
                control_sent: s.control_sent,
                control_received: s.control_received,
                mechanisms: net.port_records(crate::ids::PortId(i as u32), end),
                drops: s.drops,
                dropped_bytes: s.dropped_bytes,
                wire_losses: s.wire_losses,
                max_queue_bytes: bytes.max_until(end),
                max_queue_frames: frames.max_until(end),
                mean_queue_bytes: bytes.mean_until(end),
                mean_queue_frames: frames.mean_until(end),
                utilization: p.utilization(end),
                idle: p.idle_intervals().map_or_else(IdleSummary::default, IdleIntervals::summary),
                measured_frames_sent: in_window.map(|((n, _), _)| n),
                measured_bytes_sent: in_window.map(|((_, b), _)| b),
                measured_bit_rate_bps: in_window
                    .map(|((n, b), t)| per_s((b + n * ethernet::WIRE_OVERHEAD.get()) as f64 * 8.0, t)),
                measured_frame_rate_per_s: in_window.map(|((n, _), t)| per_s(n as f64, t)),
                attached: net.attached.records(crate::ids::PortId(i as u32), end),
            }
        })
        .collect()
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
    let window = window_delta(net, end);
    let flows = flow_results(net, end, window.as_ref(), &mut all_delays);
    let links = net
        .links
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.is_shared())
        .map(|(i, l)| LinkResult {
            between: l.ends.map(|p: PortId| net.names[net.ports[p.index()].node.index()].clone()),
            outages: l.outages.begun(),
            dark_s: l.outages.dark_time(end).as_secs_f64(),
            frames_lost: l.loss.as_ref().map_or([0; 2], |m| m.lost()),
            mechanisms: net.link_records(LinkId(i as u32), end),
            capacity_changes: l.capacity.as_ref().map_or(0, |c| c.redraws()),
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
        ports: port_results(net, end, window.as_ref()),
        links,
        hosts,
        mechanisms: net.mechanism_tables(end, window.as_ref()),
        series: series_results(net, end),
        tcp_series: tcp_series_results(net),
        idle_intervals: idle_interval_results(net),
        jobs: job_results(net),
        job_nodes: job_node_results(net),
        window: window.map(|w| w.result),
        captures: net.captures.iter().map(|c| c.result(&net.port_name(c.settings.port))).collect(),
    }
}
