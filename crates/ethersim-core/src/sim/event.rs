//! The events of a network simulation: one enum, dispatched by `match`.

use crate::engine::Generation;
use crate::ids::{FlowId, NodeId, PortId};
use crate::wire::Packet;

/// Something that happens at an instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// An application's timer (stale if `generation` is not the timer's live one).
    AppWake {
        /// The application.
        flow: FlowId,
        /// The timer arming this event belongs to.
        generation: Generation,
    },
    /// A host's CPU finished processing the head packet of its transmit path.
    HostTxProcessed {
        /// The host.
        node: NodeId,
    },
    /// A host's CPU finished processing the head frame of its receive ring.
    HostRxProcessed {
        /// The host.
        node: NodeId,
    },
    /// A port finished a frame and its inter-frame gap: the wire is free.
    WireFree {
        /// The transmitting port.
        port: PortId,
    },
    /// A frame's last bit reached the receiving port.
    FrameArrival {
        /// The receiving port.
        port: PortId,
        /// The frame.
        pkt: Packet,
    },
}
