//! What a link's physical layer does over time: links as objects (a channel, its two
//! directions, the frames on the cable), the transmit gate every port asks before it
//! sends, scheduled outages, frame loss, power models, capacity that varies over time, and
//! Low Power Idle (link-rate switching is a room of its own, `mechanisms/rate/`); each
//! mechanism that darkens a port closes its gate through its own [`Closer`].

pub mod by_link;
pub mod capacity;
pub mod gate;
pub mod link;
pub mod loss;
pub mod outage;
pub mod power;
pub mod queue_view;

pub use by_link::ByLink;
pub use capacity::CapacityProcess;
pub use gate::{Closer, FrameClass, GateState, TxGate};
pub use link::{Arrived, Channel, Direction, Link, Sent, TxId, TxTiming};
pub use loss::{LossModel, ScriptedLoss};
pub use outage::{Outage, OutageSchedule};
pub use power::PowerModel;
pub use queue_view::QueueView;
