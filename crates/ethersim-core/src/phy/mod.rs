//! What a link's physical layer does over time: links as objects (a channel, its two
//! directions, the frames on the cable), the transmit gate every port asks before it
//! sends, scheduled outages, frame loss, link-rate switching and capacity scaling (with
//! practRA and power models), capacity that varies over time, and Low Power Idle; each
//! mechanism that darkens a port closes its gate through its own [`Closer`].

pub mod bus;
pub mod capacity;
pub mod csma;
pub mod gate;
pub mod link;
pub mod loss;
pub mod lpi;
pub mod outage;
pub mod power;
pub mod practra;
pub mod queue_view;
pub mod rate;

pub use bus::{Bus, MacState, MacStep};
pub use capacity::CapacityProcess;
pub use gate::{Closer, FrameClass, GateState, TxGate};
pub use link::{Arrived, Channel, Direction, Link, Sent, TxId, TxTiming};
pub use loss::{LossModel, ScriptedLoss};
pub use lpi::{
    Coalescing, IdleTimeout, Immediate, LinkEee, Lpi, LpiPolicy, LpiPolicyKind, LpiPortReport, LpiProfile,
    LpiState, LpiTotals, LpiUnit, Pending, When,
};
pub use outage::{Outage, OutageSchedule};
pub use power::PowerModel;
pub use practra::{PractRa, PractRaSettings};
pub use queue_view::QueueView;
pub use rate::{
    AlrPolicy, LinkView, RatePolicy, RatePolicyKind, RatePortReport, RateSwitch, RateSwitching,
    ScheduledRates,
};
