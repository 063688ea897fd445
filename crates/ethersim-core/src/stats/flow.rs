//! What every flow counts, in each of its two directions, whatever its application.
//!
//! Only frames of the flow count here: its data and, on the reverse direction, its
//! acknowledgements; MAC control frames belong to no flow. Data delivered forward is the
//! goodput; acknowledgements never are.

use crate::time::SimTime;
use crate::wire::{Packet, PacketKind};

use super::DelayStats;

/// Counters of one direction of a flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirectionCounters {
    /// Data packets handed to the sending host.
    pub packets_sent: u64,
    /// Their payload bytes.
    pub bytes_sent: u64,
    /// Data packets delivered to the receiving endpoint.
    pub packets_received: u64,
    /// Their payload bytes.
    pub bytes_received: u64,
    /// Acknowledgements handed to the sending host.
    pub acks_sent: u64,
    /// Acknowledgements delivered.
    pub acks_received: u64,
    /// Packets (data or acknowledgements) lost in the network.
    pub lost: u64,
    /// Data packets that arrived with a lower sequence number than one already received.
    pub reordered: u64,
    /// When the first data packet arrived.
    pub first_rx: Option<SimTime>,
    /// When the latest data packet arrived.
    pub last_rx: Option<SimTime>,
    next_expected: u64,
}

impl DirectionCounters {
    /// `pkt` was handed to its sending host.
    pub fn sent(&mut self, pkt: &Packet) {
        match pkt.kind {
            PacketKind::Data => {
                self.packets_sent += 1;
                self.bytes_sent += u64::from(pkt.payload);
            }
            PacketKind::Ack => self.acks_sent += 1,
            PacketKind::Control => {}
        }
    }

    /// `pkt` was delivered to its endpoint at `now`.
    pub fn received(&mut self, now: SimTime, pkt: &Packet) {
        match pkt.kind {
            PacketKind::Data => {
                self.packets_received += 1;
                self.bytes_received += u64::from(pkt.payload);
                if pkt.seq < self.next_expected {
                    self.reordered += 1;
                } else {
                    self.next_expected = pkt.seq + 1;
                }
                self.first_rx.get_or_insert(now);
                self.last_rx = Some(now);
            }
            PacketKind::Ack => self.acks_received += 1,
            PacketKind::Control => {}
        }
    }
}

/// The counters of both directions of a flow and its one-way delay forward.
#[derive(Clone, Debug, Default)]
pub struct FlowCounters {
    /// Towards the source end (replies, acknowledgements): index 0; towards the sink end
    /// (the flow's data): index 1. Index by [`Role::index`](crate::wire::Role::index) of
    /// the end a packet travels to.
    pub dirs: [DirectionCounters; 2],
    /// One-way delay of the data delivered to the sink end, from hand-over to delivery.
    pub delay: DelayStats,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId};
    use crate::wire::{Protocol, Role};

    fn pkt(kind: PacketKind, seq: u64) -> Packet {
        Packet {
            kind,
            protocol: Protocol::Udp,
            to: Role::Source,
            flow: Some(FlowId::new(0)),
            src: NodeId(1),
            dst: NodeId(0),
            seq,
            frame_len: 64,
            payload: if kind == PacketKind::Data { 100 } else { 0 },
            created: SimTime::ZERO,
            echo: SimTime::NEVER,
        }
    }

    #[test]
    fn acknowledgements_are_counted_but_never_as_goodput() {
        let mut d = DirectionCounters::default();
        for seq in 0..3 {
            d.sent(&pkt(PacketKind::Ack, seq));
            d.received(SimTime(seq), &pkt(PacketKind::Ack, seq));
        }
        assert_eq!((d.acks_sent, d.acks_received), (3, 3));
        assert_eq!((d.packets_sent, d.packets_received, d.bytes_received), (0, 0, 0));
        assert_eq!(d.first_rx, None);
    }

    #[test]
    fn data_arriving_behind_a_later_sequence_number_counts_as_reordered() {
        let mut d = DirectionCounters::default();
        for seq in [0, 2, 1, 3] {
            d.received(SimTime(seq), &pkt(PacketKind::Data, seq));
        }
        assert_eq!((d.packets_received, d.bytes_received, d.reordered), (4, 400, 1));
    }
}
