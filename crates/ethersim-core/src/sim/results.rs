//! What a run reports: per flow, per port, per link, per host, time series, and for all
//! packets together.
//!
//! The summary holds simulated quantities only, so the same scenario and seed give a
//! byte-identical summary on any machine; wall-clock figures are reported beside it.
//! Each application kind adds its own figures to its flow's row (see
//! [`Endpoint::report`](crate::app::Endpoint::report)); this module lists no kind.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::engine::StopReason;
use crate::ids::PortId;
use crate::node::PausePortReport;
use crate::phy::{LpiPortReport, RatePortReport};
use crate::stats::{DelayStats, DelaySummary, IdleIntervals, IdleSummary, RecordView};
use crate::time::SimTime;
use crate::wire::{ethernet, Role};

use super::network::{Network, Node};
use super::trace::Subscriber;

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
    pub app: Map<String, Value>,
    /// Data packets delivered within the measurement window (none without one).
    pub measured_packets_received: Option<u64>,
    /// Their payload bytes.
    pub measured_bytes_received: Option<u64>,
    /// Payload bits per second delivered within the window.
    pub measured_goodput_bps: Option<f64>,
}

/// The views of the mechanisms' records in the results tables, in the order the front
/// shows them: adding a mechanism's record is one line here.
pub const RECORD_VIEWS: [RecordView; 3] = [PausePortReport::VIEW, LpiPortReport::VIEW, RatePortReport::VIEW];

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
    /// IEEE 802.3x flow control: whether the port honours PAUSE, PAUSE frames sent and
    /// received, time paused.
    #[serde(flatten)]
    pub pause: PausePortReport,
    /// Low Power Idle: time in each PHY state and energy (`null` without EEE).
    #[serde(flatten)]
    pub lpi: LpiPortReport,
    /// Link-rate switching of this port: its mean service rate and energy (`null` when
    /// its rate is not scaled).
    #[serde(flatten)]
    pub rate: RatePortReport,
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
    /// Rate switches begun (links with rate switching).
    pub rate_switches: u64,
    /// Time dark for rate switches, s.
    pub switching_s: f64,
    /// The link's rates, bit/s, slowest first (empty for a link with one rate).
    pub rates_bps: Vec<u64>,
    /// Time carrying frames at each of `rates_bps`, s (switching time excluded).
    pub time_at_rate_s: Vec<f64>,
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

/// The results of one station of a shared-medium segment (CSMA/CD). Counters cover the
/// measurement window when the scenario has one (a frame counts when it is sent or
/// dropped), otherwise the whole run.
#[derive(Clone, Debug, Serialize)]
pub struct StationResult {
    /// The segment.
    pub segment: String,
    /// The station's node.
    pub node: String,
    /// Its position on the cable, m.
    pub position_m: f64,
    /// Frames sent whole.
    pub frames_sent: u64,
    /// Their bytes (header to FCS, padded).
    pub bytes_sent: u64,
    /// Bit rate in wire bits: each frame with its preamble and inter-frame gap (20 B),
    /// bit/s. Equal to the CSMA/CD capacity study's accounting (frame without FCS, plus 24
    /// B per frame).
    pub bit_rate_bps: f64,
    /// Frames sent whole per second.
    pub frame_rate_per_s: f64,
    /// Transmission delay (the MAC taking the frame to the last bit of its successful
    /// attempt): mean, s.
    pub delay_mean_s: f64,
    /// Its standard deviation, s.
    pub delay_std_s: f64,
    /// The delay less the frame's collision-free transmission time (preamble and frame),
    /// mean, s.
    pub excess_delay_mean_s: f64,
    /// Collisions suffered by the frames sent or dropped.
    pub collisions: u64,
    /// Collisions per frame the MAC finished with (sent or dropped).
    pub collisions_per_frame: f64,
    /// Frames dropped after 16 collisions.
    pub drops: u64,
    /// The span the counters cover, s.
    pub span_s: f64,
}

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

/// The results of one MPI job: the profile the EEE performance model needs.
#[derive(Clone, Debug, Serialize)]
pub struct JobResult {
    /// Job name.
    pub name: String,
    /// Ranks.
    pub ranks: u32,
    /// Hosts.
    pub nodes: u32,
    /// Ranks per host.
    pub processes_per_node: u32,
    /// Whether every rank finished its program.
    pub completed: bool,
    /// From the start until the last rank finished, s (`null` if unfinished).
    pub elapsed_s: Option<f64>,
    /// The same, ps (exact).
    pub elapsed_ps: Option<u64>,
    /// Operations rank 0 completed (for the synthetic benchmark: its iterations and the
    /// final sleep).
    pub operations: u64,
    /// Messages between hosts (on the network).
    pub messages: u64,
    /// Their payload bytes.
    pub bytes: u64,
    /// Frames they took.
    pub frames: u64,
    /// Messages between ranks of one host (never on the network).
    pub intra_messages: u64,
    /// Messages between hosts per host: the model's communications per node, `n`.
    pub communications_per_node: f64,
    /// Mean payload bytes per message between hosts: the model's `S`.
    pub mean_bytes: f64,
    /// Mean time between the ends of rank 0's successive calls (one iteration of the
    /// synthetic benchmark: a sleep and a call), s.
    pub operation_mean_s: Option<f64>,
    /// Their standard deviation, s.
    pub operation_std_s: Option<f64>,
    /// Means of up to 20 equal consecutive batches of those times, s (for a batch-means
    /// confidence interval).
    pub operation_batch_means_s: Vec<f64>,
}

/// What the ranks on one host of an MPI job sent and received.
#[derive(Clone, Debug, Serialize)]
pub struct JobNodeResult {
    /// Job name.
    pub job: String,
    /// Host.
    pub node: String,
    /// Ranks on it.
    pub ranks: u32,
    /// What its ranks sent and received.
    #[serde(flatten)]
    pub counts: crate::app::mpi::MpiNodeStats,
    /// When its last rank finished, s from the job's start (`null` if unfinished).
    pub finished_s: Option<f64>,
}

fn job_results(net: &Network) -> Vec<JobResult> {
    net.jobs
        .iter()
        .map(|job| {
            let nodes: Vec<&crate::app::mpi::MpiNode> =
                job.endpoints.iter().filter_map(|e| net.endpoints[e.index()].as_mpi()).collect();
            let sum = |f: fn(&crate::app::mpi::MpiNodeStats) -> u64| {
                nodes.iter().map(|n| f(&n.stats())).sum::<u64>()
            };
            let (messages, bytes) = (sum(|s| s.messages_sent), sum(|s| s.bytes_sent));
            let finished: Option<SimTime> =
                nodes.iter().try_fold(SimTime::ZERO, |t, n| n.finished_at().map(|f| f.max(t)));
            // Rank 0 is on the job's first node, which times its calls.
            let timing = nodes.first().and_then(|n| n.call_timing());
            JobResult {
                name: job.name.clone(),
                ranks: job.ranks,
                nodes: job.hosts.len() as u32,
                processes_per_node: job.per_node,
                completed: finished.is_some(),
                elapsed_s: finished.map(|f| (f - job.start).as_secs_f64()),
                elapsed_ps: finished.map(|f| (f - job.start).as_ps()),
                operations: nodes.first().map_or(0, |n| n.first_rank_ops()),
                messages,
                bytes,
                frames: sum(|s| s.frames_sent),
                intra_messages: sum(|s| s.intra_messages),
                communications_per_node: messages as f64 / job.hosts.len() as f64,
                mean_bytes: if messages == 0 { 0.0 } else { bytes as f64 / messages as f64 },
                operation_mean_s: timing.and_then(crate::app::mpi::CallTiming::mean_s),
                operation_std_s: timing.and_then(crate::app::mpi::CallTiming::std_s),
                operation_batch_means_s: timing.map_or_else(Vec::new, |t| t.batch_means_s().to_vec()),
            }
        })
        .collect()
}

fn job_node_results(net: &Network) -> Vec<JobNodeResult> {
    let mut rows = Vec::new();
    for job in &net.jobs {
        for (&e, &host) in job.endpoints.iter().zip(&job.hosts) {
            let Some(n) = net.endpoints[e.index()].as_mpi() else { continue };
            rows.push(JobNodeResult {
                job: job.name.clone(),
                node: net.names[host.index()].clone(),
                ranks: n.local_ranks(),
                counts: n.stats(),
                finished_s: n.finished_at().map(|f| (f - job.start).as_secs_f64()),
            });
        }
    }
    rows
}

/// One bin of a port's idle-interval histogram.
#[derive(Clone, Debug, Serialize)]
pub struct IdleBinResult {
    /// Node owning the port.
    pub node: String,
    /// Node at the other end.
    pub peer: String,
    /// Lower edge, s.
    pub lower_s: f64,
    /// Upper edge, s (bins are within 1% of their values).
    pub upper_s: f64,
    /// Idle intervals in [`lower_s`, `upper_s`).
    pub count: u64,
}

fn idle_interval_results(net: &Network) -> Vec<IdleBinResult> {
    let mut rows = Vec::new();
    for (i, p) in net.ports.iter().enumerate() {
        let peer = net.peer_name(PortId(i as u32));
        for b in p.idle_intervals().map_or_else(Vec::new, IdleIntervals::bins) {
            rows.push(IdleBinResult {
                node: net.names[p.node.index()].clone(),
                peer: peer.to_owned(),
                lower_s: b.lower_s,
                upper_s: b.upper_s,
                count: b.count,
            });
        }
    }
    rows
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
    /// Per station of each shared-medium segment.
    pub stations: Vec<StationResult>,
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

/// The span a measurement window covered.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct WindowResult {
    /// Its start, s.
    pub from_s: f64,
    /// Its end (the run's end, if that came first), s.
    pub until_s: f64,
}

/// The differences of the window's counters, and its span in seconds.
struct WindowDelta {
    span_s: f64,
    ports: Vec<(u64, u64)>,
    flows: Vec<(u64, u64)>,
    result: WindowResult,
}

fn window_delta(net: &Network, end: SimTime) -> Option<WindowDelta> {
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
fn per_frame(count: u64, frames: u64) -> f64 {
    if frames > 0 {
        count as f64 / frames as f64
    } else {
        0.0
    }
}

fn per_s(count: f64, span_s: f64) -> f64 {
    if span_s > 0.0 {
        count / span_s
    } else {
        0.0
    }
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
            let mut app = Map::new();
            src.report(&mut app);
            dst.report(&mut app);
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
                pause: p.pause.rx.report(end),
                lpi: link.eee.as_ref().map_or_else(LpiPortReport::default, |e| e.port_report(p.end, end)),
                rate: link
                    .rate_switching
                    .as_deref()
                    .filter(|r| r.scales(p.end))
                    .map_or_else(RatePortReport::default, |r| r.port_report(dir.mean_rate_bps(end), end)),
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
            }
        })
        .collect()
}

fn station_results(net: &Network, end: SimTime, window: Option<&WindowDelta>) -> Vec<StationResult> {
    let span_s = match (net.window.as_deref(), window) {
        (Some(_), Some(w)) => w.span_s,
        (Some(_), None) => 0.0, // the run ended before the window began
        (None, _) => end.as_secs_f64(),
    };
    let mut out = Vec::new();
    for bus in net.links.iter().filter_map(|l| l.as_bus()) {
        for st in &bus.stations {
            let s = &st.stats;
            let frames = s.frames_sent;
            let wire_bits = (s.bytes_sent + frames * ethernet::WIRE_OVERHEAD.get()) as f64 * 8.0;
            out.push(StationResult {
                segment: bus.name.clone(),
                node: net.names[st.node.index()].clone(),
                position_m: st.position_m,
                frames_sent: frames,
                bytes_sent: s.bytes_sent,
                bit_rate_bps: per_s(wire_bits, span_s),
                frame_rate_per_s: per_s(frames as f64, span_s),
                delay_mean_s: s.delay.mean(),
                delay_std_s: s.delay.std_dev(),
                excess_delay_mean_s: s.excess_delay.mean(),
                collisions: s.collisions,
                collisions_per_frame: per_frame(s.collisions, frames + s.drops),
                drops: s.drops,
                span_s,
            });
        }
    }
    out
}

fn series_results(net: &Network, end: SimTime) -> Vec<SeriesResult> {
    let mut out = Vec::new();
    for s in net.trace.subscribers() {
        let Subscriber::Series(series) = s else { continue };
        let series = series.settled(end);
        let port = net.port_name(series.port);
        let p = &net.ports[series.port.index()];
        let lpi =
            net.links[p.link.index()].eee.as_ref().and_then(|e| e.units[e.unit_of(p.end)].lpi.series(end));
        if let Some(mut s) = lpi {
            // The PHY's series may serve two ports with different windows: this port's.
            let l = series.limits;
            let level = s.points.iter().take_while(|p| p.0 <= l.from).last().map_or(0, |p| p.1);
            s.points.retain(|p| p.0 > l.from && p.0 < l.until);
            s.points.insert(0, (l.from, level));
            out.push(SeriesResult {
                port: port.clone(),
                quantity: "lpi_state",
                t_ps: s.points.iter().map(|p| p.0.as_ps()).collect(),
                value: s.points.iter().map(|p| p.1).collect(),
                dropped_points: s.dropped_points,
                bucket_ps: s.bucket.0,
            });
        }
        for (quantity, s) in [
            ("queue_bytes", &series.queue_bytes),
            ("queue_frames", &series.queue_frames),
            ("gate_open", &series.gate_open),
            ("pause_received", &series.pause_received),
            ("rate_bps", &series.rate_bps),
            ("offered_bytes", &series.offered_bytes),
        ] {
            out.push(SeriesResult {
                port: port.clone(),
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

fn tcp_series_results(net: &Network) -> Vec<TcpSeriesResult> {
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
    let links =
        net.links
            .iter()
            .filter(|l| l.as_bus().is_none())
            .map(|l| LinkResult {
                between: l.ends.map(|p: PortId| net.names[net.ports[p.index()].node.index()].clone()),
                outages: l.outages.begun(),
                dark_s: l.outages.dark_time(end).as_secs_f64(),
                frames_lost: l.loss.as_ref().map_or([0; 2], |m| m.lost()),
                rate_switches: l.rate_switching.as_ref().map_or(0, |r| r.switches()),
                switching_s: l.rate_switching.as_ref().map_or(0.0, |r| r.dark_time(end).as_secs_f64()),
                rates_bps: l
                    .rate_switching
                    .as_ref()
                    .map_or_else(Vec::new, |r| r.rates().iter().map(|b| b.as_bps()).collect()),
                time_at_rate_s: l.rate_switching.as_ref().map_or_else(Vec::new, |r| {
                    r.time_at_rates(end).iter().map(|d| d.as_secs_f64()).collect()
                }),
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
        stations: station_results(net, end, window.as_ref()),
        series: series_results(net, end),
        tcp_series: tcp_series_results(net),
        idle_intervals: idle_interval_results(net),
        jobs: job_results(net),
        job_nodes: job_node_results(net),
        window: window.map(|w| w.result),
        captures: net.captures.iter().map(|c| c.result(&net.port_name(c.settings.port))).collect(),
    }
}
