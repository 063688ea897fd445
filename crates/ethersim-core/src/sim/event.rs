//! The events of a network simulation: one small enum, dispatched by layer.
//!
//! An event names what it concerns by id and carries no packet: packets live in the
//! network's pool and in the queues, rings and cables that hold them. So an entry of the
//! future event list (a 16-byte key and the event) is 32 bytes, however large packets
//! grow. Each variant is handled in the file of its layer under `sim/handlers/`.

use crate::engine::Generation;
use crate::ids::{EndpointId, LinkId, NodeId, PortId};
use crate::phy::TxId;

/// Something that happens at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// A switch input re-sends PAUSE to its partner while congested outputs hold it
    /// (`handlers/pause.rs`).
    PauseRefresh {
        /// The input port.
        port: PortId,
        /// The timer event this is.
        generation: Generation,
    },
    /// A port's periodic PAUSE generator sends its next frame (`handlers/pause.rs`).
    PauseTick {
        /// The port.
        port: PortId,
    },
    /// A link's rate policy timer (`handlers/rate.rs`).
    RateTimer {
        /// The link.
        link: LinkId,
        /// The timer event this is.
        generation: Generation,
    },
    /// A link's capacity is redrawn (`handlers/rate.rs`).
    CapacityRedraw {
        /// The link.
        link: LinkId,
        /// The timer event this is.
        generation: Generation,
    },
    /// An LPI PHY's policy timer (`handlers/lpi.rs`).
    LpiTimer {
        /// The link.
        link: LinkId,
        /// The PHY: a direction, or 0 for both in the symmetric mode.
        unit: u8,
        /// The timer event this is.
        generation: Generation,
    },
    /// A link's next scheduled outage begins (`handlers/link.rs`).
    OutageStart {
        /// The link.
        link: LinkId,
    },
    /// A shared-medium station's MAC takes its next step (`handlers/csma.rs`).
    Csma {
        /// The segment's link.
        link: LinkId,
        /// The station.
        station: u16,
        /// The timer event this is.
        generation: Generation,
    },
    /// The frame at the head of a segment's deliveries reaches its receiver
    /// (`handlers/csma.rs`).
    BusDelivery {
        /// The segment's link.
        link: LinkId,
        /// The timer event this is.
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
