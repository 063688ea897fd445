//! `[[links]]`: rate, delay, PHY type, capacity processes, loss models, outages.

use crate::scenario::units::{DurationSpec, RateSpec, SizeSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::common::{default_mtu, zero_time};
use crate::mechanisms::lpi::scenario::schema::EeeSpec;
use crate::mechanisms::rate::scenario::schema::RateSwitchingSpec;
use crate::mechanisms::shaper::scenario::ShaperSpec;
use crate::scenario::common::LinkMechanismSpec;
use crate::time::{BitRate, Duration};

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
    /// Frame loss on the link: random, scripted, or both. Default none.
    #[serde(default)]
    pub loss: Option<LossSpec>,
    /// Energy Efficient Ethernet (802.3az Low Power Idle) on the link's PHYs. Default
    /// none: the PHYs never sleep.
    #[serde(default)]
    pub eee: Option<EeeSpec>,
    /// Link-rate switching (Rapid PHY Selection, Adaptive Link Rate): the rates the link
    /// can run at, the time it is dark at each change, and the policy that decides.
    /// `rate` is the initial rate. Default none: the link keeps `rate`.
    #[serde(default)]
    pub rate_switching: Option<RateSwitchingSpec>,
    /// Available capacity that varies at random: the rate is redrawn uniformly in a
    /// range after exponentially distributed holding times, from the link's own random
    /// stream (the same trajectory whatever the traffic). Default none: the link keeps
    /// `rate`. Not with `rate_switching`.
    #[serde(default)]
    pub capacity: Option<CapacitySpec>,
    /// A token-bucket shaper on the link's transmitters (one end's with `from`).
    /// Default none.
    #[serde(default)]
    pub shaper: Option<ShaperSpec>,
}

impl LinkSpec {
    /// The mechanisms built as rooms given on this link, each with its key: the builder
    /// attaches them all alike (adding such a mechanism is its field above and its line
    /// here).
    pub(crate) fn room_mechanisms(&self) -> impl Iterator<Item = (&'static str, &dyn LinkMechanismSpec)> {
        let given: [(&'static str, Option<&dyn LinkMechanismSpec>); 3] = [
            ("eee", self.eee.as_ref().map(|m| m as &dyn LinkMechanismSpec)),
            ("rate_switching", self.rate_switching.as_ref().map(|m| m as &dyn LinkMechanismSpec)),
            ("shaper", self.shaper.as_ref().map(|m| m as &dyn LinkMechanismSpec)),
        ];
        given.into_iter().filter_map(|(key, m)| Some((key, m?)))
    }

    /// The rates a policy may move this link between, as the scenario gives them (not
    /// yet checked), for the builders of other mechanisms that must allow for them
    /// (threshold PAUSE's headroom). `None` when the
    /// link keeps its rate.
    pub(crate) fn policy_rates(&self) -> Option<PolicyRates<'_>> {
        let rs = self.rate_switching.as_ref()?;
        let rate = self.rate.0;
        Some(PolicyRates {
            slowest: rs.rates.iter().map(|r| r.0).min().unwrap_or(rate),
            fastest: rs.rates.iter().map(|r| r.0).max().unwrap_or(rate),
            from: rs.from.as_deref(),
            dark: rs.switch_time.0,
        })
    }
}

/// The rates a policy may move a link between ([`LinkSpec::policy_rates`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PolicyRates<'a> {
    /// The slowest.
    pub slowest: BitRate,
    /// The fastest.
    pub fastest: BitRate,
    /// The only end whose transmit rate changes (by node name), if only one does.
    pub from: Option<&'a str>,
    /// How long the changing direction is dark at each change.
    pub dark: Duration,
}

/// Capacity redrawn at random: uniform over [`min`, `max`] (whole bit/s), held for
/// exponential times of mean `mean_hold`. The link starts at its `rate`; the first redraw
/// comes after the first holding time.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CapacitySpec {
    /// Lowest capacity.
    pub min: RateSpec,
    /// Highest capacity.
    pub max: RateSpec,
    /// Mean time between redraws.
    pub mean_hold: DurationSpec,
    /// Vary only the direction sent by this node (one end of the link). Default: both
    /// directions, at the same rate.
    #[serde(default)]
    pub from: Option<String>,
}

/// The PHY types with Low Power Idle profiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum PhyType {
    /// 100 Mb/s over twisted pair.
    #[serde(rename = "100BASE-TX")]
    Base100Tx,
    /// 1 Gb/s over twisted pair: both directions sleep and wake together.
    #[serde(rename = "1000BASE-T")]
    Base1000T,
    /// 10 Gb/s over twisted pair.
    #[serde(rename = "10GBASE-T")]
    Base10GT,
}

/// Frame loss on a link. A lost frame takes its line time and is discarded by the
/// receiver (as a frame with a bad checksum), so the receiving node never sees it.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LossSpec {
    /// Probability that a frame is lost, independently of every other frame, drawn from
    /// the link's own random stream. Default 0.
    #[serde(default)]
    pub probability: f64,
    /// Apply `probability` only to frames sent by this node (one end of the link).
    /// Default: both directions.
    #[serde(default)]
    pub from: Option<String>,
    /// Chosen frames of chosen flows to lose.
    #[serde(default)]
    pub drop: Vec<DropSpec>,
}

/// Which way a flow's frames travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowDirection {
    /// From the application's `from` host to its `to` host: data.
    Forward,
    /// Back to `from`: acknowledgements and replies.
    Reverse,
}

const fn forward() -> FlowDirection {
    FlowDirection::Forward
}

/// Lose chosen frames of one application's flow on this link.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DropSpec {
    /// The application, by name.
    pub app: String,
    /// Which of its directions. Default `forward`.
    #[serde(default = "forward")]
    pub direction: FlowDirection,
    /// Which frames: ordinals counted from 1 among that direction's frames arriving over
    /// this link (retransmissions count as frames), e.g. `[10, 11]`.
    pub frames: Vec<u64>,
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
