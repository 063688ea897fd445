//! The packet descriptor: what the simulator carries instead of payload bytes.
//!
//! A `Packet` is a small `Copy` value (no heap), so moving one through queues and
//! events allocates nothing. Payload bytes are never stored; a pcap writer encodes
//! headers from the descriptor.

use crate::ids::{FlowId, NodeId};
use crate::time::SimTime;

/// What a frame carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// A UDP/IPv4 datagram of an application flow.
    Udp,
}

/// One frame in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// What the frame carries.
    pub kind: PacketKind,
    /// The application flow it belongs to.
    pub flow: FlowId,
    /// Sending host.
    pub src: NodeId,
    /// Destination host.
    pub dst: NodeId,
    /// Sequence number within the flow, from 0.
    pub seq: u64,
    /// Frame length (destination address through FCS), bytes.
    pub frame_len: u32,
    /// Application payload, bytes.
    pub payload: u32,
    /// When the application handed it to its host.
    pub created: SimTime,
}
