//! `[[segments]]`: shared CSMA/CD cables, their stations and repeaters.

use crate::scenario::units::{DurationSpec, RateSpec, SizeSpec};
use crate::time::{BitRate, Bytes};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::schema::common::zero_time;

fn default_segment_rate() -> RateSpec {
    RateSpec(BitRate::mbps(10))
}

const fn default_velocity() -> f64 {
    0.77
}

const fn default_max_frame() -> SizeSpec {
    SizeSpec(Bytes(1518))
}

/// A shared-medium segment: a coaxial cable (with repeaters) on which every station hears
/// every other after the signal's propagation time, and each station's MAC follows IEEE
/// 802.3 clause 4 (CSMA/CD: 1-persistent deference, 96-bit gap, collision detection, 32-bit
/// jam, truncated binary exponential backoff over 512-bit slots, 16 attempts). See
/// docs/csma.md.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SegmentSpec {
    /// Its name: results name its ports `node->name`, and port names in the scenario may
    /// too. Must differ from every node's name.
    pub name: String,
    /// The signalling rate. Default 10 Mb/s.
    #[serde(default = "default_segment_rate")]
    pub rate: RateSpec,
    /// Signal speed on the cable as a fraction of c. Default 0.77 (thick coax).
    #[serde(default = "default_velocity")]
    pub velocity: f64,
    /// Each station's transceiver delay, crossed at both the sending and the receiving
    /// station (a multiport transceiver's delay goes here). Default 0 s.
    #[serde(default = "zero_time")]
    pub tap_delay: DurationSpec,
    /// The largest frame (header to FCS) the stations may send. Default 1518 B (the
    /// standard's maximum); up to 9018 B when configured (longer frames than the standard
    /// allows, as capacity studies used).
    #[serde(default = "default_max_frame")]
    pub max_frame: SizeSpec,
    /// The stations: hosts or switches (a switch on a segment bridges it to the rest of
    /// the network), each at a position along the cable. At least one.
    pub stations: Vec<StationSpec>,
    /// In-line repeaters: a signal passing one is delayed by its delay. Default none.
    #[serde(default)]
    pub repeaters: Vec<RepeaterSpec>,
}

/// A station of a segment.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StationSpec {
    /// The node, by name.
    pub node: String,
    /// Its position along the cable, metres.
    pub at: f64,
}

/// A repeater on a segment.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepeaterSpec {
    /// Its position along the cable, metres.
    pub at: f64,
    /// The delay it adds to a signal passing through it.
    pub delay: DurationSpec,
}
