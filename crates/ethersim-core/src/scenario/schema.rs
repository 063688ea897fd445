//! The scenario file's schema: the one definition of what a scenario may say.
//!
//! These serde types are the single source of truth: defaults and documentation live
//! here, the JSON Schema is generated from them (`ethersim schema`), and unknown keys
//! are errors everywhere.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::units::{DurationSpec, RateSpec, SizeSpec};
use crate::time::{Bytes, Duration};

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
    /// End hosts.
    #[serde(default)]
    pub hosts: Vec<HostSpec>,
    /// Store-and-forward switches.
    #[serde(default)]
    pub switches: Vec<SwitchSpec>,
    /// Full-duplex point-to-point links.
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Applications (one flow each).
    #[serde(default)]
    pub apps: Vec<AppSpec>,
    /// Time series to record: a port's buffer occupancy and gate over time.
    #[serde(default)]
    pub series: Vec<SeriesSpec>,
}

fn default_name() -> String {
    "scenario".to_owned()
}
const fn default_seed() -> u64 {
    1
}
const fn zero_time() -> DurationSpec {
    DurationSpec(Duration::ZERO)
}
const fn default_buffers() -> u32 {
    256
}
const fn default_mtu() -> SizeSpec {
    SizeSpec(Bytes(1500))
}
const fn default_payload() -> SizeSpec {
    SizeSpec(Bytes(1472))
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
    /// Transmit buffers: packets accepted from applications and not yet off the wire.
    /// Default 256.
    #[serde(default = "default_buffers")]
    pub tx_buffers: u32,
    /// Receive ring slots: frames received and not yet processed. Default 256.
    #[serde(default = "default_buffers")]
    pub rx_buffers: u32,
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
}

fn default_port_buffer() -> BufferSpec {
    BufferSpec { bytes: Some(SizeSpec(Bytes(1 << 20))), frames: None }
}

/// Limits of one output queue; a frame that would exceed either is dropped (drop-tail).
/// At least one limit must be given.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    /// Most bytes (frame lengths) held at once.
    #[serde(default)]
    pub bytes: Option<SizeSpec>,
    /// Most frames held at once.
    #[serde(default)]
    pub frames: Option<u32>,
}

/// A full-duplex point-to-point link; each direction has the same rate and delay.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// The two nodes it joins, by name.
    pub between: [String; 2],
    /// Data rate of each direction.
    pub rate: RateSpec,
    /// Propagation delay. Default 0 s.
    #[serde(default = "zero_time")]
    pub delay: DurationSpec,
    /// Largest payload of a frame: 1500 B (standard) up to 9000 B (jumbo). Default 1500 B.
    #[serde(default = "default_mtu")]
    pub mtu: SizeSpec,
    /// Scheduled outages: intervals during which the link carries nothing in either
    /// direction. A frame whose last bit has not left when an outage starts is lost;
    /// queued frames wait for the end (a full queue drops as usual). In time order, not
    /// overlapping. Default none.
    #[serde(default)]
    pub outages: Vec<OutageSpec>,
}

/// One scheduled outage of a link.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutageSpec {
    /// When the link goes dark.
    pub start: DurationSpec,
    /// How long it stays dark.
    pub duration: DurationSpec,
}

/// A time series of one port: its buffer occupancy (`queue_bytes`, `queue_frames`) and
/// whether its transmit gate is open for data (`gate_open`), as change points.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeriesSpec {
    /// The port, as `node->peer` (the node that owns it and the node at the other end
    /// of its link), e.g. `"switch->client"`.
    pub port: String,
    /// Most change points kept per quantity; later changes are counted, not kept.
    /// Default 100000.
    #[serde(default = "default_max_points")]
    pub max_points: u32,
}

const fn default_max_points() -> u32 {
    100_000
}

/// An application: one flow from `from` to `to`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AppSpec {
    /// A file sent over UDP; the receiver does not recover losses.
    UdpFile(UdpFileSpec),
    /// Packets at a constant rate.
    ConstantRate(SourceSpec),
    /// Packets as a Poisson process.
    Poisson(SourceSpec),
    /// ICMP echo requests at a fixed interval, answered by the destination: round-trip times.
    Ping(PingSpec),
}

const fn default_ping_payload() -> SizeSpec {
    SizeSpec(Bytes(56))
}

/// Ping: echo requests every `interval`, each answered by the destination host through
/// its own transmit path; reports round-trip times (mean, deviation, percentiles).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PingSpec {
    /// Unique name, used in reports and to name the application's random stream.
    /// Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// The pinging host.
    pub from: String,
    /// The answering host.
    pub to: String,
    /// Time between requests (sent whether or not earlier ones were answered).
    pub interval: DurationSpec,
    /// Echo data per request and reply. Default 56 B (a 102 B frame).
    #[serde(default = "default_ping_payload")]
    pub payload: SizeSpec,
    /// Requests to send.
    #[serde(default)]
    pub count: Option<u64>,
    /// When the first request is sent. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// No request at or after this instant.
    #[serde(default)]
    pub stop: Option<DurationSpec>,
}

/// A UDP file transfer.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UdpFileSpec {
    /// Unique name, used in reports and to name the application's random stream (so its
    /// numbers do not change when other applications are added). Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// Sending host.
    pub from: String,
    /// Receiving host.
    pub to: String,
    /// File size.
    pub size: SizeSpec,
    /// UDP payload per datagram. Default 1472 B (a full 1500 B MTU).
    #[serde(default = "default_payload")]
    pub payload: SizeSpec,
    /// Payload rate to send at. Default: as fast as the sending host takes datagrams.
    #[serde(default)]
    pub rate: Option<RateSpec>,
    /// When the transfer starts. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
}

/// A constant-rate or Poisson packet source.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceSpec {
    /// Unique name, used in reports and to name the application's random stream (so its
    /// numbers do not change when other applications are added). Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// Sending host.
    pub from: String,
    /// Receiving host.
    pub to: String,
    /// Payload rate (mean rate for Poisson): payload bits per second.
    pub rate: RateSpec,
    /// UDP payload per packet. Default 1472 B.
    #[serde(default = "default_payload")]
    pub payload: SizeSpec,
    /// When the source starts. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// No packet at or after this instant.
    #[serde(default)]
    pub stop: Option<DurationSpec>,
    /// Stop after this many packets.
    #[serde(default)]
    pub count: Option<u64>,
}

impl AppSpec {
    /// The kinds an application may be, as written in `kind`.
    pub const KINDS: &'static [&'static str] = &["udp_file", "constant_rate", "poisson", "ping"];

    /// The sending host's name.
    pub fn from(&self) -> &str {
        match self {
            AppSpec::UdpFile(f) => &f.from,
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => &s.from,
            AppSpec::Ping(p) => &p.from,
        }
    }
    /// The receiving host's name.
    pub fn to(&self) -> &str {
        match self {
            AppSpec::UdpFile(f) => &f.to,
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => &s.to,
            AppSpec::Ping(p) => &p.to,
        }
    }
    /// The name given, if any.
    pub fn name(&self) -> Option<&str> {
        match self {
            AppSpec::UdpFile(f) => f.name.as_deref(),
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => s.name.as_deref(),
            AppSpec::Ping(p) => p.name.as_deref(),
        }
    }
    /// Payload per packet.
    pub fn payload(&self) -> Bytes {
        match self {
            AppSpec::UdpFile(f) => f.payload.0,
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => s.payload.0,
            AppSpec::Ping(p) => p.payload.0,
        }
    }
    /// Start time.
    pub fn start(&self) -> Duration {
        match self {
            AppSpec::UdpFile(f) => f.start.0,
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => s.start.0,
            AppSpec::Ping(p) => p.start.0,
        }
    }
}
