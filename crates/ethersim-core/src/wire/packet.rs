//! The packet descriptor: what the simulator carries instead of payload bytes.
//!
//! A `Packet` is a small `Copy` value (no heap). While a packet is in the network it
//! lives in the network's packet pool (`sim::PacketPool`) and queues, rings and events hold its
//! [`PacketRef`], four bytes, so the event list's entries stay small however many fields
//! a packet grows. Payload bytes are never stored; a pcap writer encodes headers from
//! the descriptor.

use crate::ids::{FlowId, NodeId};
use crate::time::SimTime;

/// What a frame is for, which decides what it counts towards in the results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketKind {
    /// Application data: counts towards its flow's packets, bytes and goodput.
    Data,
    /// A transport acknowledgement: counted on its flow's reverse direction, never as goodput.
    Ack,
    /// A MAC control frame (802.3 Annex 31A, e.g. PAUSE): belongs to no flow, goes only to
    /// the link partner, and is counted by the ports that send and receive it.
    Control,
}

/// The header stack a frame carries (for sizes now, and for pcap encoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// UDP over IPv4 (RFC 768).
    Udp,
    /// TCP over IPv4 (RFC 9293); the header is kept beside the packet in the pool.
    Tcp,
    /// ICMP echo request or reply over IPv4 (RFC 792).
    IcmpEcho,
    /// MAC control (EtherType 0x8808).
    MacControl,
}

/// The two ends of a flow. A packet names the end it travels to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// The end that opened the flow: the sender of a transfer, the pinger.
    Source = 0,
    /// The other end: the receiver of a transfer, the echo responder.
    Sink = 1,
}

impl Role {
    /// The index of this end in a flow's pair of ends.
    pub const fn index(self) -> usize {
        self as usize
    }
    /// The other end.
    #[must_use]
    pub const fn other(self) -> Role {
        match self {
            Role::Source => Role::Sink,
            Role::Sink => Role::Source,
        }
    }
}

/// One frame in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// What the frame is for.
    pub kind: PacketKind,
    /// Its header stack.
    pub protocol: Protocol,
    /// The end of its flow it travels to (meaningless for control frames).
    pub to: Role,
    /// The flow it belongs to (none for a MAC control frame).
    pub flow: Option<FlowId>,
    /// Sending node.
    pub src: NodeId,
    /// Destination node.
    pub dst: NodeId,
    /// Sequence number within its flow and direction, from 0 (for TCP, the segment's
    /// sequence number: a byte offset from the initial sequence number).
    pub seq: u64,
    /// Frame length (destination address through FCS), bytes.
    pub frame_len: u32,
    /// Application payload, bytes.
    pub payload: u32,
    /// When its sending endpoint handed it to its host.
    pub created: SimTime,
    /// A timestamp echoed back by the receiver (an echo reply carries its request's
    /// `created`); [`SimTime::NEVER`] when there is none.
    pub echo: SimTime,
}

impl Packet {
    /// A MAC control frame of `frame_len` bytes from `src` to its link partner `dst`,
    /// made at `now`: it belongs to no flow.
    pub fn control(src: NodeId, dst: NodeId, frame_len: u32, now: SimTime) -> Packet {
        Packet {
            kind: PacketKind::Control,
            protocol: Protocol::MacControl,
            to: Role::Sink,
            flow: None,
            src,
            dst,
            seq: 0,
            frame_len,
            payload: 0,
            created: now,
            echo: SimTime::NEVER,
        }
    }
}

/// A handle to a packet held in the network's packet pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PacketRef(pub u32);
#[cfg(test)]
mod tests {
    #[test]
    fn a_packet_descriptor_stays_small() {
        // Packets are copied into and out of the pool once each; a TCP header (88 B) would
        // more than double that, so it lives beside the packet (`PacketPool::insert_tcp`).
        assert!(std::mem::size_of::<super::Packet>() <= 48, "{}", std::mem::size_of::<super::Packet>());
    }
}
