//! `[[apps]]`: every application kind and its settings.

use crate::scenario::units::{DurationSpec, RateSpec, SizeSpec};
use crate::time::{Bytes, Duration};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::{default_payload, one_f64, one_second, zero_time};
use super::tcp::{TcpBulkSpec, TcpFileSpec};
use super::voip::VoipSpec;
use super::web::WebSpec;

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
    /// Bursty on/off traffic: a burst of exponential length at the start of every period,
    /// at `rate` while it lasts.
    OnOff(OnOffSpec),
    /// A source that always has a frame ready: it sends whenever its host has a free
    /// transmit buffer (a capacity study's load).
    Saturating(SaturatingSpec),
    /// ICMP echo requests at a fixed interval, answered by the destination: round-trip times.
    Ping(PingSpec),
    /// A file sent over TCP: its completion time.
    TcpFile(TcpFileSpec),
    /// A long-lived TCP flow sending as fast as TCP allows until its stop time.
    TcpBulk(TcpBulkSpec),
    /// A packet trace (pcap or pcapng) replayed: its frames' times and lengths, as UDP
    /// datagrams from `from` to `to`.
    Replay(ReplaySpec),
    /// A two-way voice call between `from` (the caller) and `to` (the callee): talk
    /// spurts, an RTP packet every codec interval while talking, a jitter buffer at each
    /// listener; each end's delay, jitter, losses and the ITU-T G.107 E-model's R and
    /// MOS (docs/voip.md).
    Voip(VoipSpec),
    /// Web browsing: a client loads pages (a main object and its embedded objects, sizes
    /// from 3GPP2 C.R1002-0's HTTP model or given) from a server over TCP, with a
    /// reading time between pages; each page's load time (docs/web.md).
    Web(WebSpec),
}

/// Trace-driven traffic: the frames of a pcap or pcapng file, each handed to the sending
/// host at its timestamp as a UDP datagram whose frame has the traced frame's length (an
/// Ethernet capture's frames lack their FCS, so 4 B are added; cooked and raw IP captures
/// get the Ethernet header and FCS; short frames are padded to 64 B). A frame longer than
/// the path carries (a capture of offloaded segments) is sent as several frames at its
/// instant. A frame due while the host has no transmit buffer is lost at the sender.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplaySpec {
    /// Unique name, used in reports. Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// Sending host.
    pub from: String,
    /// Receiving host.
    pub to: String,
    /// The trace: a pcap or pcapng file (relative to the scenario file's folder).
    pub file: String,
    /// Multiplies the time between frames: 0.5 replays twice as fast. Default 1.
    #[serde(default = "one_f64")]
    pub time_scale: f64,
    /// Passes over the trace, each one pass length after the previous (the trace's span
    /// plus its mean gap between frames, scaled). Default 1.
    #[serde(default)]
    pub repeat: Option<u64>,
    /// Replay the trace over and over until `stop` or the run's end (instead of `repeat`).
    /// Default false.
    #[serde(default, rename = "loop")]
    pub loop_: bool,
    /// `first_frame`: the trace's first frame goes at `start`; `capture`: each frame at its
    /// timestamp in the file plus `start` (a capture ethersim wrote replays at its own
    /// instants). Default first_frame.
    #[serde(default)]
    pub align: ReplayAlign,
    /// When the replay starts. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// No frame at or after this instant.
    #[serde(default)]
    pub stop: Option<DurationSpec>,
}

/// Where a replayed trace's timestamps are counted from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReplayAlign {
    /// The trace's first frame.
    #[default]
    FirstFrame,
    /// The capture file's epoch (simulated time 0 for a capture ethersim wrote).
    Capture,
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
    /// Receiving host: another host, or the sending host itself when that is a station of a
    /// segment (its frames cross the segment and come back).
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
    /// Receiving host: another host, or the sending host itself when that is a station of a
    /// segment (its frames cross the segment and come back).
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

/// An on/off source: one burst at the start of every `period` (from `start`), lasting an
/// exponential time of mean `mean_burst` (at most the period), sending UDP packets at
/// `rate` while it lasts; a packet that starts within the burst is sent whole.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    /// Unique name, used in reports and to name the application's random stream.
    /// Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// Sending host.
    pub from: String,
    /// Receiving host.
    pub to: String,
    /// Payload rate during a burst: payload bits per second.
    pub rate: RateSpec,
    /// Mean length of a burst.
    pub mean_burst: DurationSpec,
    /// Time from one burst's start to the next's. Default 1 s.
    #[serde(default = "one_second")]
    pub period: DurationSpec,
    /// UDP payload per packet. Default 1472 B.
    #[serde(default = "default_payload")]
    pub payload: SizeSpec,
    /// When the first burst starts. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// No packet at or after this instant.
    #[serde(default)]
    pub stop: Option<DurationSpec>,
    /// Stop after this many packets.
    #[serde(default)]
    pub count: Option<u64>,
}

/// A saturating source's frames: give exactly one of `frame`, `mix` and `frames`. Lengths
/// are Ethernet frame lengths, header and FCS included (UDP over IPv4 inside: 46 B of
/// headers); a frame shorter than 64 B is padded to 64 B on the wire.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SaturatingSpec {
    /// Unique name, used in reports and to name the application's random stream.
    /// Default `apps[i]`.
    #[serde(default)]
    pub name: Option<String>,
    /// Sending host.
    pub from: String,
    /// Receiving host: another host, or the sending host itself when that is a station of a
    /// segment (its frames cross the segment and come back).
    pub to: String,
    /// Every frame this long.
    #[serde(default)]
    pub frame: Option<SizeSpec>,
    /// A bimodal mix: in every block of `ratio[0] + ratio[1]` frames, `ratio[0]` short
    /// and `ratio[1]` long ones, in random order.
    #[serde(default)]
    pub mix: Option<FrameMixSpec>,
    /// Lengths drawn independently with integer weights.
    #[serde(default)]
    pub frames: Option<Vec<WeightedFrameSpec>>,
    /// When the source starts. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// No frame at or after this instant.
    #[serde(default)]
    pub stop: Option<DurationSpec>,
    /// Stop after this many frames.
    #[serde(default)]
    pub count: Option<u64>,
}

/// A bimodal mix of frame lengths.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FrameMixSpec {
    /// The short frame's length.
    pub short: SizeSpec,
    /// The long frame's length.
    pub long: SizeSpec,
    /// Short and long frames per block, such as `[7, 1]`.
    pub ratio: [u32; 2],
}

/// One length of a weighted list.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WeightedFrameSpec {
    /// The frame's length.
    pub length: SizeSpec,
    /// Its weight (a positive integer): drawn with probability weight / sum of weights.
    pub weight: u64,
}

impl AppSpec {
    /// The kinds an application may be, as written in `kind`.
    pub const KINDS: &'static [&'static str] = &[
        "udp_file",
        "constant_rate",
        "poisson",
        "on_off",
        "saturating",
        "ping",
        "tcp_file",
        "tcp_bulk",
        "replay",
        "voip",
        "web",
    ];

    /// The sending host's name.
    pub fn from(&self) -> &str {
        match self {
            AppSpec::UdpFile(f) => &f.from,
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => &s.from,
            AppSpec::OnOff(s) => &s.from,
            AppSpec::Saturating(s) => &s.from,
            AppSpec::Ping(p) => &p.from,
            AppSpec::TcpFile(t) => &t.from,
            AppSpec::TcpBulk(t) => &t.from,
            AppSpec::Replay(r) => &r.from,
            AppSpec::Voip(v) => &v.from,
            AppSpec::Web(w) => &w.from,
        }
    }
    /// The receiving host's name.
    pub fn to(&self) -> &str {
        match self {
            AppSpec::UdpFile(f) => &f.to,
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => &s.to,
            AppSpec::OnOff(s) => &s.to,
            AppSpec::Saturating(s) => &s.to,
            AppSpec::Ping(p) => &p.to,
            AppSpec::TcpFile(t) => &t.to,
            AppSpec::TcpBulk(t) => &t.to,
            AppSpec::Replay(r) => &r.to,
            AppSpec::Voip(v) => &v.to,
            AppSpec::Web(w) => &w.to,
        }
    }
    /// The name given, if any.
    pub fn name(&self) -> Option<&str> {
        match self {
            AppSpec::UdpFile(f) => f.name.as_deref(),
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => s.name.as_deref(),
            AppSpec::OnOff(s) => s.name.as_deref(),
            AppSpec::Saturating(s) => s.name.as_deref(),
            AppSpec::Ping(p) => p.name.as_deref(),
            AppSpec::TcpFile(t) => t.name.as_deref(),
            AppSpec::TcpBulk(t) => t.name.as_deref(),
            AppSpec::Replay(r) => r.name.as_deref(),
            AppSpec::Voip(v) => v.name.as_deref(),
            AppSpec::Web(w) => w.name.as_deref(),
        }
    }
    /// Payload per packet, for applications that set one (not TCP: see its MSS).
    pub fn payload(&self) -> Option<Bytes> {
        match self {
            AppSpec::UdpFile(f) => Some(f.payload.0),
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => Some(s.payload.0),
            AppSpec::OnOff(s) => Some(s.payload.0),
            AppSpec::Ping(p) => Some(p.payload.0),
            // A saturating source's frame lengths are checked with its frames.
            // A replay's frame lengths come from its trace.
            // A call's payload is its codec's.
            AppSpec::Saturating(_)
            | AppSpec::TcpFile(_)
            | AppSpec::TcpBulk(_)
            | AppSpec::Replay(_)
            | AppSpec::Voip(_)
            | AppSpec::Web(_) => None,
        }
    }
    /// Start time.
    pub fn start(&self) -> Duration {
        match self {
            AppSpec::UdpFile(f) => f.start.0,
            AppSpec::ConstantRate(s) | AppSpec::Poisson(s) => s.start.0,
            AppSpec::OnOff(s) => s.start.0,
            AppSpec::Saturating(s) => s.start.0,
            AppSpec::Ping(p) => p.start.0,
            AppSpec::TcpFile(t) => t.start.0,
            AppSpec::TcpBulk(t) => t.start.0,
            AppSpec::Replay(r) => r.start.0,
            AppSpec::Voip(v) => v.start.0,
            AppSpec::Web(w) => w.start.0,
        }
    }
}
