//! The events of a network simulation: one small enum, dispatched by layer.
//!
//! An event names what it concerns by id and carries no packet: packets live in the
//! network's pool and in the queues, rings and cables that hold them. So an entry of the
//! future event list (a 16-byte key and the event) is 32 bytes, however large packets
//! grow. Each variant is handled in the file of its layer under `sim/handlers/`.

use crate::engine::Generation;
use crate::ids::{EndpointId, LinkId, NodeId, PortId};
use crate::phy::TxId;
use crate::sim::attach::MechanismTimer;

/// Something that happens at an instant.
// An explicit tag byte: without it the compiler may fold the variant into a niche of
// `MechanismTimer`'s tag, and every event's dispatch then decodes it (about 1% of a
// UDP transfer's instructions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Event {
    /// An endpoint's timer (`handlers/endpoint.rs`).
    EndpointWake {
        /// The endpoint.
        endpoint: EndpointId,
        /// The timer event this is.
        generation: Generation,
    },
    /// A host's CPU finished the head packet of its transmit path (`handlers/host.rs`).
    HostTxProcessed {
        /// The host.
        node: NodeId,
    },
    /// A host's CPU finished the head frame of its receive ring (`handlers/host.rs`).
    HostRxProcessed {
        /// The host.
        node: NodeId,
    },
    /// A port finished a frame and its inter-frame gap: the wire is free (`handlers/port.rs`).
    TxDone {
        /// The transmitting port.
        port: PortId,
        /// The transmission (stale if it was cut off).
        tx: TxId,
    },
    /// A port's gate reopens by itself while a frame waits (`handlers/port.rs`).
    GateWake {
        /// The port.
        port: PortId,
        /// The timer event this is.
        generation: Generation,
    },
    /// The frame at the head of a link direction's cable reaches the far end (`handlers/link.rs`).
    Arrival {
        /// The link.
        link: LinkId,
        /// The direction: transmitted by `ends[dir]`.
        dir: u8,
        /// The arrival-timer event this is (stale if the head changed).
        generation: Generation,
    },
    /// A link's next scheduled outage begins (`handlers/link.rs`).
    OutageStart {
        /// The link.
        link: LinkId,
    },
    /// A port or link mechanism's timer (PAUSE, rate switching, LPI, a segment's MAC):
    /// `sim/attach/` hands it to the mechanism's room.
    Mechanism {
        /// The port or link the timer belongs to, by number (the timer says which).
        target: u32,
        /// Which timer.
        timer: MechanismTimer,
        /// The timer event this is (0 for a timer that is never re-armed).
        generation: Generation,
    },
    /// The start (`edge` 0) or the end (1) of the measurement window (`window.rs`).
    Window {
        /// Which edge.
        edge: u8,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_list_entry_is_at_most_32_bytes() {
        // The queue's entry is a u128 key and the event; the key's alignment pads the event.
        assert!(std::mem::size_of::<Event>() <= 16, "{}", std::mem::size_of::<Event>());
        assert!(std::mem::size_of::<(u128, Event)>() <= 32);
    }
}
