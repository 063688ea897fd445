//! What a link's physical layer does over time: links as objects (a channel, its two
//! directions, the frames on the cable), the transmit gate every port asks before it
//! sends, scheduled outages, frame loss and link-rate switching. Low Power Idle states
//! belong here as they arrive; each mechanism closes the gate through its own [`Closer`].

pub mod bus;
pub mod csma;
pub mod gate;
pub mod link;
pub mod loss;
pub mod lpi;
pub mod outage;
pub mod rate;

pub use bus::{Bus, MacState, MacStep};
pub use gate::{Closer, FrameClass, GateState, TxGate};
pub use link::{Arrived, Channel, Direction, Link, Sent, TxId, TxTiming};
pub use loss::{LossModel, ScriptedLoss};
pub use lpi::{
    Coalescing, IdleTimeout, Immediate, LinkEee, Lpi, LpiPolicy, LpiPolicyKind, LpiProfile, LpiState,
    LpiTotals, LpiUnit, Pending, When,
};
pub use outage::{Outage, OutageSchedule};
pub use rate::{AlrPolicy, LinkView, RatePolicy, RatePolicyKind, RateSwitch, RateSwitching, ScheduledRates};
