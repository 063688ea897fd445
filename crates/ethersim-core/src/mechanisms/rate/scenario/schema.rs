//! Link-rate switching on a link: rates, switching time, policies, power models.

use crate::scenario::units::{DurationSpec, RateSpec, SizeSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::schema::EmptySpec;

/// A link with several rates. At a change no new frame starts; the frames on the wire
/// finish at the old rate; then both directions (or, with `from`, the one scaled port)
/// are dark for `switch_time` and carry frames at the new rate. Frames wait in their
/// ports' queues meanwhile. With `from`, this is capacity scaling of a router's output
/// port (the practRA policy's setting).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateSwitchingSpec {
    /// The rates, at least two, all different, in any order; they include the link's
    /// `rate`.
    pub rates: Vec<RateSpec>,
    /// How long the link (or the scaled port) is dark at each change: δ.
    pub switch_time: DurationSpec,
    /// Who decides when to change.
    pub policy: RatePolicySpec,
    /// Scale only the direction sent by this node (its output port); the other direction
    /// keeps `rate`. Default: the whole link (both directions, as PHYs retrain together).
    #[serde(default)]
    pub from: Option<String>,
    /// The least time between the requests of two changes (practRA's minimum rate-change
    /// interval, mRCI); a change asked for sooner is asked again when it is over. At
    /// least `switch_time` when given. Default 0 s.
    #[serde(default)]
    pub min_interval: Option<DurationSpec>,
    /// Power as a function of rate, for the energy of the scaled ports. Default none.
    #[serde(default)]
    pub power: Option<PowerModelSpec>,
}

/// Power as a function of rate, P(r) = Ps + f(r) (see docs/capacity-scaling.md).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PowerModelSpec {
    /// f linear in the rate (frequency scaling): Ps + (Pmax − Ps)·r/rmax.
    Linear(LinearPowerSpec),
    /// f cubic in the rate (voltage scaling) down to a largest scaling factor φ, below
    /// which it stays flat: Ps + (Pmax − Ps)·(max(r, rmax/φ)/rmax)³.
    Cubic(CubicPowerSpec),
    /// The watts at each rate.
    Table(PowerTableSpec),
}

/// A linear power model.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinearPowerSpec {
    /// Ps: the power drawn at any rate, W.
    pub static_w: f64,
    /// Pmax: the power at the fastest rate, W.
    pub max_w: f64,
}

/// A cubic power model.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CubicPowerSpec {
    /// Ps: the power drawn at any rate, W.
    pub static_w: f64,
    /// Pmax: the power at the fastest rate, W.
    pub max_w: f64,
    /// φ ≥ 1: the largest factor the supply can be scaled down by.
    pub max_scaling: f64,
}

/// Power read from a table.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PowerTableSpec {
    /// The watts at each rate, in the order of `rates` as written.
    pub watts: Vec<f64>,
}

/// The policy that changes a link's rate.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RatePolicySpec {
    /// Changes at fixed instants.
    Schedule(RateScheduleSpec),
    /// Adaptive Link Rate's dual-threshold buffer policy: the fastest rate when either
    /// end's output queue reaches `high`, the slowest when both are at or below `low`.
    Alr(AlrSpec),
    /// practRA (Nedevschi et al., NSDI 2008): scales the output port of `from` one rate
    /// step at a time to keep its queueing delay under a bound, predicting the arrival
    /// rate by a moving average. Needs `from`.
    Practra(PractRaSpec),
    /// None: the link keeps its rate. The mechanism's accounting (power, time at each
    /// rate) without its changes: the run a capacity-scaling run is compared with.
    Fixed(EmptySpec),
}

/// practRA's settings (defaults and their sources in docs/capacity-scaling.md).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PractRaSpec {
    /// The delay bound d: the queueing delay the port keeps under. Default 10 ms.
    #[serde(default)]
    pub delay_bound: Option<DurationSpec>,
    /// The weight of the newest arrival-rate sample in the moving average, in (0, 1].
    /// Default 0.25.
    #[serde(default)]
    pub weight: Option<f64>,
    /// The interval over which each arrival-rate sample is measured. Default 10 ms.
    #[serde(default)]
    pub sample_interval: Option<DurationSpec>,
}

/// A fixed schedule of rate changes.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateScheduleSpec {
    /// The changes, in time order. A change due while a switch is under way happens when
    /// it ends.
    pub changes: Vec<RateChangeSpec>,
}

/// One scheduled rate change.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateChangeSpec {
    /// When the change is requested.
    pub at: DurationSpec,
    /// The new rate: one of the link's `rates`.
    pub rate: RateSpec,
}

/// Thresholds of the ALR dual-threshold policy, in bytes waiting at an end's output
/// (not counting the frame being sent).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AlrSpec {
    /// Either end's queue at or above this: the fastest rate.
    pub high: SizeSpec,
    /// Both ends' queues at or below this: the slowest rate.
    pub low: SizeSpec,
}
