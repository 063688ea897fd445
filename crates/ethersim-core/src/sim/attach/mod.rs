//! The attachment seam: where the network meets the port and link mechanisms (PAUSE,
//! rate switching, Low Power Idle, the CSMA/CD segment, the token-bucket shaper)
//! without naming them anywhere else. These pass through here, each by a `match` (static
//! dispatch):
//!
//! - a port's queue moments ([`Moment`](crate::node::Moment)), shown to the port's attachments in their
//!   order (`node/attach.rs`);
//! - the mechanisms' timers: one event variant, [`Event::Mechanism`](crate::sim::Event::Mechanism), naming the timer
//!   with a [`MechanismTimer`] and its port or link by number;
//! - what starts by itself when the run starts;
//! - a frame a station of a shared medium starts, handed to the medium's MAC;
//! - the state that mechanisms keep beside the ports and links rather than in them
//!   ([`AttachedState`]), their time series, and their records and tables in the results
//!   ([`PortRecords`], [`LinkRecords`], [`AttachedRecords`], [`MechanismTables`],
//!   [`RECORD_VIEWS`]).
//!
//! Each arm calls into the mechanism's own room (`mechanisms/pause/`, `mechanisms/rate/`,
//! `mechanisms/lpi/`, `mechanisms/csma/`, `mechanisms/shaper/`). A new port mechanism is
//! a room of its own plus a variant of [`PortAttachment`] with its moments, an arm here,
//! and (if it has a timer) a variant of [`MechanismTimer`]: the recipe is in
//! docs/architecture.md.
//!
//! The registry is one module of two files, so that what the network holds and what
//! acts on the network do not name each other in a circle: `state.rs` holds what the
//! network and its events name (the mechanisms' state beside the ports and links, their
//! records, the kinds of port attachment, the timers, the gate closers), and
//! `dispatch.rs` the network's side (the moments and timers handed to the rooms, the
//! records and tables read from them).

mod dispatch;
mod state;

pub use self::dispatch::MechanismTables;
pub use self::state::{
    closers, AttachedRecords, AttachedState, LinkRecords, MechanismTimer, PortAttachment, PortRecords,
    RECORD_VIEWS,
};
