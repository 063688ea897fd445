//! Energy-Efficient Ethernet (802.3az) on a link: PHY timing and power, LPI policies.

use crate::scenario::units::DurationSpec;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::schema::{EmptySpec, PhyType};

/// Low Power Idle on a link. Timing and power come from the PHY type's profile (see
/// docs/eee.md); every value can be overridden.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EeeSpec {
    /// The PHY type.
    pub phy: PhyType,
    /// Both directions sleep and wake together (as 1000BASE-T requires). Default: true
    /// for 1000BASE-T, false otherwise.
    #[serde(default)]
    pub symmetric: Option<bool>,
    /// When to sleep and wake: for both ends, or for the link in the symmetric mode.
    /// Default `{ kind = "immediate" }`.
    #[serde(default)]
    pub policy: Option<LpiPolicySpec>,
    /// Settings of one end's transmitter (its port), by node name, overriding the link's:
    /// its policy and timing (each direction apart only) and its power (any mode).
    #[serde(default)]
    pub ends: std::collections::BTreeMap<String, EeeEndSpec>,
    /// A frame that arrives while the PHY goes to sleep aborts the sleep (true) or waits
    /// for it to finish (false). Default false.
    #[serde(default)]
    pub abort_sleep: bool,
    /// The wake time each end asks for, by node name; the link uses the larger of its
    /// two ends' (802.3az's data-link-layer agreement). Default: the profile's Tw.
    #[serde(default)]
    pub wake_time: std::collections::BTreeMap<String, DurationSpec>,
    /// Time to go to sleep. Default: the profile's.
    #[serde(default)]
    pub ts: Option<DurationSpec>,
    /// Time to wake. Default: the profile's.
    #[serde(default)]
    pub tw: Option<DurationSpec>,
    /// Quiet time between refreshes. Default: the profile's.
    #[serde(default)]
    pub tq: Option<DurationSpec>,
    /// Refresh time. Default: the profile's.
    #[serde(default)]
    pub tr: Option<DurationSpec>,
    /// Power of one direction's PHY while Active, W. Default: the profile's.
    #[serde(default)]
    pub active_power_w: Option<f64>,
    /// Power while Quiet as a fraction of Active power. Default 0.1.
    #[serde(default)]
    pub quiet_fraction: Option<f64>,
}

/// One end's own EEE settings (each optional: the link's apply otherwise).
#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EeeEndSpec {
    /// This transmitter's policy (not in the symmetric mode, which has one).
    #[serde(default)]
    pub policy: Option<LpiPolicySpec>,
    /// Time to go to sleep (not in the symmetric mode).
    #[serde(default)]
    pub ts: Option<DurationSpec>,
    /// Quiet time between refreshes (not in the symmetric mode).
    #[serde(default)]
    pub tq: Option<DurationSpec>,
    /// Refresh time (not in the symmetric mode).
    #[serde(default)]
    pub tr: Option<DurationSpec>,
    /// Power of this end's transmitting PHY while Active, W.
    #[serde(default)]
    pub active_power_w: Option<f64>,
    /// Its power while Quiet as a fraction of Active power.
    #[serde(default)]
    pub quiet_fraction: Option<f64>,
}

/// When an LPI PHY sleeps and wakes.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LpiPolicySpec {
    /// Sleep as soon as the transmitter is idle; wake for the first frame.
    Immediate(EmptySpec),
    /// Sleep after `timeout` of idle; wake for the first frame.
    Timeout(TimeoutSpec),
    /// Sleep as soon as idle; hold frames until `frames` wait or `timer` has passed since
    /// the first, then wake and send the burst.
    Coalescing(CoalescingSpec),
}

/// The idle-timeout policy's setting.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeoutSpec {
    /// Idle time before sleeping.
    pub timeout: DurationSpec,
}

/// The coalescing policy's settings.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CoalescingSpec {
    /// Frames that wake the PHY at once.
    pub frames: u32,
    /// The longest the first held frame waits before the PHY starts waking.
    pub timer: DurationSpec,
}
