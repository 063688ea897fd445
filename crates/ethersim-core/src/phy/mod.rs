//! What a link's physical layer does over time: links as objects (a channel, its two
//! directions, the frames on the cable), the transmit gate every port asks before it
//! sends, and scheduled outages. Rate switching and Low Power Idle states belong here
//! as they arrive; each closes the gate through its own [`Closer`].

pub mod gate;
pub mod link;
pub mod loss;
pub mod outage;

pub use gate::{Closer, FrameClass, GateState, TxGate};
pub use link::{Arrived, Channel, Direction, Link, Sent, TxId, TxTiming};
pub use loss::{LossModel, ScriptedLoss};
pub use outage::{Outage, OutageSchedule};
