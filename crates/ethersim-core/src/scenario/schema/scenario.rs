//! The top level of a scenario file: the whole scenario (its nodes, links, segments and
//! traffic, the run's limits, its measurement window and the time series it asks for),
//! and its hosts' and switches' tables.

use crate::mechanisms::csma::scenario::schema::SegmentSpec;
use crate::mechanisms::pause::scenario::schema::{HostPauseSpec, PauseGeneratorSpec, SwitchPauseSpec};
use crate::scenario::common::ScenarioMechanismSpec;
use crate::scenario::units::{DurationSpec, SizeSpec};
use crate::time::Bytes;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::apps::AppSpec;
use super::captures::CaptureSpec;
use super::common::{default_buffers, zero_time};
use super::links::LinkSpec;
use super::mpi::MpiJobSpec;
use super::nodes::{BufferSpec, TimingVariabilitySpec};

/// A whole scenario: the network, the traffic and the run's limits.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Name used in reports.
    #[serde(default = "default_name")]
    pub name: String,
    /// Free text describing the scenario.
    #[serde(default)]
    pub description: String,
    /// Seed of every random stream of the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time limit. Without it, the run ends when every application has
    /// finished and every packet has left the network.
    #[serde(default)]
    pub duration: Option<DurationSpec>,
    /// Stop after this many events (a safety budget).
    #[serde(default)]
    pub max_events: Option<u64>,
    /// A measurement window: counters are also read over it alone (`measured_*` columns of
    /// ports and flows), leaving out a warm-up and a cool-down.
    #[serde(default)]
    pub measure: Option<MeasureSpec>,
    /// End hosts.
    #[serde(default)]
    pub hosts: Vec<HostSpec>,
    /// Store-and-forward switches.
    #[serde(default)]
    pub switches: Vec<SwitchSpec>,
    /// Full-duplex point-to-point links.
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Shared-medium segments (classic half-duplex Ethernet with CSMA/CD): stations on a
    /// coaxial cable at positions in metres, with real propagation between every pair.
    #[serde(default)]
    pub segments: Vec<SegmentSpec>,
    /// Applications (one flow each).
    #[serde(default)]
    pub apps: Vec<AppSpec>,
    /// Record the idle intervals of every port (the silences between its transmissions,
    /// which an LPI PHY could sleep in): the `idle_*` columns of the ports table and the
    /// `idle_intervals` table. The ports of MPI jobs' hosts and their link partners always
    /// record them. Default false.
    #[serde(default)]
    pub record_idle_intervals: bool,
    /// MPI-like parallel jobs: ranks on hosts running a synthetic collective benchmark or
    /// a replayed trace (see docs/mpi.md).
    #[serde(default)]
    pub mpi_jobs: Vec<MpiJobSpec>,
    /// Time series to record: a port's buffer occupancy and gate over time.
    #[serde(default)]
    pub series: Vec<SeriesSpec>,
    /// Periodic PAUSE generators: ports that send PAUSE to their link partner at a fixed
    /// interval (IEEE 802.3x).
    #[serde(default)]
    pub pause_generators: Vec<PauseGeneratorSpec>,
    /// Packet captures: the frames ports send and receive, as real bytes in pcap or pcapng
    /// files in the run's output folder (see docs/captures.md).
    #[serde(default)]
    pub captures: Vec<CaptureSpec>,
}

impl Scenario {
    /// The mechanisms built as rooms whose keys sit on the scenario itself rather than on
    /// one spec (`segments`; PAUSE, whose builder reads every node's `pause` and the
    /// `pause_generators`), by their keys, in the order they are built: the segments'
    /// links first, which PAUSE's headroom reads. The orchestrator calls every one alike,
    /// so it names none of them.
    pub(crate) fn room_mechanisms(&self) -> [&dyn ScenarioMechanismSpec; 2] {
        [&self.segments, &self.pause_generators]
    }
}

/// An end host with finite speed.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// Unique node name.
    pub name: String,
    /// CPU time to send one packet (its network stack and driver). Default 0 s.
    #[serde(default = "zero_time")]
    pub tx_processing: DurationSpec,
    /// CPU time to receive one packet. Default 0 s.
    #[serde(default = "zero_time")]
    pub rx_processing: DurationSpec,
    /// Interrupt service time of the transmit path: the controller holds one frame at a
    /// time and, after each frame's last bit, waits this long for the host before it can
    /// start the next (the hosts of the CSMA/CD capacity study: 100 us). Default 0 s: a
    /// NIC that sends from its queue back to back.
    #[serde(default = "zero_time")]
    pub tx_interrupt: DurationSpec,
    /// Variation of the interrupt service time: each service takes `tx_interrupt` plus a
    /// time drawn uniformly in [0, this), from the random stream `host/<name>/interrupt`
    /// (real hosts' service times vary; identical fixed ones can lock hosts into step).
    /// Needs a `tx_interrupt`. Default 0 s: every service takes exactly `tx_interrupt`.
    #[serde(default = "zero_time")]
    pub tx_interrupt_jitter: DurationSpec,
    /// Transmit buffers: packets accepted from applications and not yet off the wire.
    /// Default 256.
    #[serde(default = "default_buffers")]
    pub tx_buffers: u32,
    /// Receive ring slots: frames received and not yet processed. Default 256.
    #[serde(default = "default_buffers")]
    pub rx_buffers: u32,
    /// How the NIC treats PAUSE frames. Default: honours them.
    #[serde(default)]
    pub pause: HostPauseSpec,
    /// Timing variability of the host's software: how much longer than asked the sleeps
    /// and MPI calls of the ranks it runs take (see docs/mpi.md). Default none: every
    /// time is exact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing_variability: Option<TimingVariabilitySpec>,
}

/// A store-and-forward, output-queued switch.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchSpec {
    /// Unique node name.
    pub name: String,
    /// Buffer of each output port. Default: 1 MiB per port, no frame limit.
    #[serde(default = "default_port_buffer")]
    pub port_buffer: BufferSpec,
    /// IEEE 802.3x flow control. Default: PAUSE honoured, never sent.
    #[serde(default)]
    pub pause: SwitchPauseSpec,
}

fn default_port_buffer() -> BufferSpec {
    BufferSpec { bytes: Some(SizeSpec(Bytes(1 << 20))), frames: None, counts_in_service: true }
}

fn default_name() -> String {
    "scenario".to_owned()
}

const fn default_seed() -> u64 {
    1
}

/// A measurement window.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MeasureSpec {
    /// Its start.
    pub from: DurationSpec,
    /// Its end. Default: the run's duration.
    #[serde(default)]
    pub until: Option<DurationSpec>,
}

/// A time series, as change points: of a port, its buffer occupancy (`queue_bytes`,
/// `queue_frames`), whether its transmit gate is open for data (`gate_open`), the PAUSE
/// frames it received so far (`pause_received`), its rate (`rate_bps`) and the bytes
/// offered to it so far, queued or dropped (`offered_bytes`: the arrival rate over any
/// interval); of a
/// TCP application, its sender's state. Costs nothing for what is not asked for.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeriesSpec {
    /// The port, as `node->peer` (the node that owns it and the node at the other end
    /// of its link), e.g. `"switch->client"`. Give `port` or `app`.
    #[serde(default)]
    pub port: Option<String>,
    /// A TCP application, by name: its sender's cwnd, ssthresh, SRTT, RTO and FlightSize
    /// over time (the `tcp_series` table). Give `port` or `app`.
    #[serde(default)]
    pub app: Option<String>,
    /// Most change points kept per quantity, at least 12. Past it the series is
    /// decimated, never cut: time is split into buckets, each keeping its lowest, highest
    /// and last level, so peaks and pauses still show; the series' `bucket_ps` and
    /// `dropped_points` say so. Default 100000.
    #[serde(default = "default_max_points")]
    pub max_points: u32,
    /// Keep changes from this instant on; the level at that instant is the first point.
    /// Default 0 s.
    #[serde(default)]
    pub from: Option<DurationSpec>,
    /// Keep no change at or after this instant. Default: the end of the run.
    #[serde(default)]
    pub until: Option<DurationSpec>,
}

const fn default_max_points() -> u32 {
    100_000
}
