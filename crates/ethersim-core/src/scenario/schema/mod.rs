//! The scenario file's schema: the one definition of what a scenario may say.
//!
//! These serde types are the single source of truth: defaults and documentation live
//! here, the JSON Schema is generated from them (`ethersim schema`), and unknown keys
//! are errors everywhere.

mod apps;
mod captures;
pub(crate) mod common;
mod links;
mod mpi;
mod nodes;
mod tcp;

pub use self::apps::{
    AppSpec, FrameMixSpec, OnOffSpec, PingSpec, ReplayAlign, ReplaySpec, SaturatingSpec, SourceSpec,
    UdpFileSpec, WeightedFrameSpec,
};

pub use self::captures::{CaptureDirectionSpec, CaptureFormatSpec, CaptureSpec, ResolutionSpec};
pub use self::common::EmptySpec;
pub use self::links::{CapacitySpec, DropSpec, FlowDirection, LinkSpec, LossSpec, OutageSpec, PhyType};
pub use self::mpi::{CollectiveSpec, MpiJobSpec, MpiOverheadSpec, MpiSyntheticSpec};
pub use self::nodes::{
    BufferSpec, HostSpec, QuantileSpec, SwitchSpec, TimingVariabilitySpec, VariabilityKind, VariabilitySpec,
};

pub use crate::mechanisms::pause::scenario::schema::{HostPauseSpec, PauseGeneratorSpec, SwitchPauseSpec};

pub use self::tcp::{CongestionControlName, TcpBulkSpec, TcpFileSpec, TcpProfileName, TcpSpec};
pub use crate::mechanisms::csma::scenario::schema::{RepeaterSpec, SegmentSpec, StationSpec};

use crate::scenario::units::DurationSpec;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
