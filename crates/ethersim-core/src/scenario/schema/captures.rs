//! `[[captures]]`: packet captures of chosen ports, their format and limits.

use crate::scenario::units::{ByteCountSpec, SizeSpec};
use crate::time::Bytes;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A packet capture of one port of a point-to-point link: the frames it sends
/// (timestamped at their first bit) and receives (at their last bit), with real headers
/// (Ethernet II, IPv4, UDP, TCP, ICMP echo, MAC control PAUSE) and valid checksums, in
/// time order; payload bytes are zeros. The frame is stored without its FCS, as a NIC's
/// driver captures it.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaptureSpec {
    /// The port, as `node->peer`, e.g. `"server->switch"`.
    pub port: String,
    /// The file's name, in the output folder's `captures/` folder. Default
    /// `NODE-PEER.pcapng` (`.pcap` for that format).
    #[serde(default)]
    pub file: Option<String>,
    /// `pcapng` (the port's name, rate and each frame's direction are in the file) or
    /// `pcap`. Default pcapng.
    #[serde(default)]
    pub format: CaptureFormatSpec,
    /// Timestamp resolution: `us`, `ns` or `ps` (pcapng only: every instant exactly).
    /// Default ns.
    #[serde(default)]
    pub resolution: ResolutionSpec,
    /// Bytes kept of each frame, a number (`96`) or a size (`"96 B"`), at least 64 B; a
    /// longer frame keeps its first `snaplen` bytes and its length. Default 262144 (whole
    /// frames, as Wireshark's default).
    #[serde(default = "default_snaplen")]
    pub snaplen: ByteCountSpec,
    /// The file's size bound: once the next frame's record would take the file past it,
    /// the capture keeps no more frames and closes the file (a valid file of whole
    /// records); the run goes on, and its summary says the capture was `truncated` and
    /// how many frames it did not keep. At least 1 kB. Default 1 GiB (about 0.9 s of a
    /// saturated 10 Gb/s port, both ways).
    #[serde(default = "default_capture_max_bytes")]
    pub max_bytes: SizeSpec,
    /// Frames kept: `both`, `out` (sent) or `in` (received). Default both.
    #[serde(default)]
    pub direction: CaptureDirectionSpec,
}

const fn default_snaplen() -> ByteCountSpec {
    ByteCountSpec(Bytes(262_144))
}

const fn default_capture_max_bytes() -> SizeSpec {
    SizeSpec(Bytes(crate::capture::DEFAULT_MAX_BYTES))
}

/// A capture file's format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaptureFormatSpec {
    /// pcapng.
    #[default]
    Pcapng,
    /// Classic pcap.
    Pcap,
}

/// A capture's timestamp resolution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResolutionSpec {
    /// Microseconds.
    Us,
    /// Nanoseconds.
    #[default]
    Ns,
    /// Picoseconds (pcapng only).
    Ps,
}

/// Which frames of a port a capture keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaptureDirectionSpec {
    /// Sent and received.
    #[default]
    Both,
    /// Sent.
    Out,
    /// Received.
    In,
}
