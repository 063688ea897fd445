//! IEEE 802.3x flow control in hosts and switches: honouring PAUSE, threshold and
//! periodic generators.

use crate::scenario::units::{DurationSpec, SizeSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::schema::common::{yes, zero_time};

/// How a host's NIC treats IEEE 802.3x PAUSE frames.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostPauseSpec {
    /// Stop sending data frames for the pause time a PAUSE frame asks for (the frame on
    /// the wire finishes first). Otherwise PAUSE is counted and ignored. Default true.
    #[serde(default = "yes")]
    pub honour: bool,
}

impl Default for HostPauseSpec {
    fn default() -> Self {
        HostPauseSpec { honour: true }
    }
}

/// IEEE 802.3x flow control of a switch's ports.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitchPauseSpec {
    /// Honour PAUSE frames received from link partners. Default true.
    #[serde(default = "yes")]
    pub honour: bool,
    /// Send PAUSE when an output buffer reaches `high_water`: to each link partner whose
    /// frames arrive into that buffer, re-sent when half the pause has run while the
    /// buffer stays above `low_water`, and released (pause time 0) at or below
    /// `low_water`. Default false.
    #[serde(default)]
    pub send: bool,
    /// Buffer occupancy that triggers PAUSE. Default: the port buffer less the headroom
    /// for what can still arrive once it is reached, from every input but the smallest
    /// (each: the frame that reaches the mark; what its partner sends while the XOFF waits
    /// behind a maximum frame at the switch's rate towards it; the link's round trip, the
    /// partner's response time of IEEE 802.3 Annex 31B.3.7 and one more maximum frame, at
    /// the partner's rate; see docs/pause-and-rate-switching.md).
    #[serde(default)]
    pub high_water: Option<SizeSpec>,
    /// Buffer occupancy at or below which the paused partners are released. Default half
    /// of `high_water`.
    #[serde(default)]
    pub low_water: Option<SizeSpec>,
    /// Pause time sent, in quanta of 512 bit times (1 to 65535). Default 65535, the
    /// largest, as switch chips send (33.6 ms at 1 Gb/s).
    #[serde(default)]
    pub quanta: Option<u16>,
    /// Release a paused partner at the low-water mark with a pause time of 0 (XON).
    /// With false, the switch only stops re-sending PAUSE and the partner's pause runs
    /// its full length (switches that send no XON). Default true.
    #[serde(default)]
    pub release: Option<bool>,
}

impl Default for SwitchPauseSpec {
    fn default() -> Self {
        SwitchPauseSpec {
            honour: true,
            send: false,
            high_water: None,
            low_water: None,
            quanta: None,
            release: None,
        }
    }
}

/// A port that sends PAUSE to its link partner at a fixed interval (how a link-rate
/// switch was emulated on real hardware).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PauseGeneratorSpec {
    /// The sending port, as `node->peer` (its node and the node at the other end of its
    /// link), e.g. `"client->switch"`.
    pub port: String,
    /// Time between PAUSE frames.
    pub every: DurationSpec,
    /// Pause asked for by each frame: rounded up to whole quanta of 512 bit times at the
    /// link's rate when sent (10 ms at 1 Gb/s is 19532 quanta, 10.000384 ms); at most
    /// 65535 quanta.
    pub pause: DurationSpec,
    /// The first PAUSE. Default 0 s.
    #[serde(default = "zero_time")]
    pub start: DurationSpec,
    /// No PAUSE at or after this instant. Default: none.
    #[serde(default)]
    pub stop: Option<DurationSpec>,
    /// Most PAUSE frames to send. Default: no limit.
    #[serde(default)]
    pub count: Option<u64>,
}
