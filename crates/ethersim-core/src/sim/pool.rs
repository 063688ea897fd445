//! The packets in the network: a slab of packet descriptors.

use crate::wire::{Packet, PacketRef, Protocol, TcpHeader};

/// The packets in the network: a slab whose freed slots are reused, so that in steady
/// state taking and releasing packets allocates nothing.
#[derive(Debug, Default)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
    /// TCP headers, beside their packets' slots (grown only as far as TCP packets
    /// reach): a packet stays small whatever its protocol.
    tcp: Vec<TcpHeader>,
}

impl PacketPool {
    /// A pool with room for `capacity` packets before it grows.
    pub fn with_capacity(capacity: usize) -> Self {
        PacketPool {
            slots: Vec::with_capacity(capacity),
            free: Vec::with_capacity(capacity),
            tcp: Vec::new(),
        }
    }

    /// Stores `pkt` and returns its handle.
    pub fn insert(&mut self, pkt: Packet) -> PacketRef {
        if let Some(i) = self.free.pop() {
            self.slots[i as usize] = pkt;
            PacketRef(i)
        } else {
            self.slots.push(pkt);
            PacketRef(self.slots.len() as u32 - 1)
        }
    }

    /// Stores the TCP segment `pkt` with its header and returns its handle.
    pub fn insert_tcp(&mut self, pkt: Packet, header: &TcpHeader) -> PacketRef {
        let r = self.insert(pkt);
        let i = r.0 as usize;
        if self.tcp.len() <= i {
            self.tcp.resize(self.slots.len(), TcpHeader::default());
        }
        self.tcp[i] = *header;
        r
    }

    /// The TCP header of the segment behind `r` (stored by [`PacketPool::insert_tcp`]).
    pub fn tcp(&self, r: PacketRef) -> &TcpHeader {
        &self.tcp[r.0 as usize]
    }

    /// The packet behind `r`.
    pub fn get(&self, r: PacketRef) -> &Packet {
        &self.slots[r.0 as usize]
    }

    /// The packet behind `r`, to change.
    pub fn get_mut(&mut self, r: PacketRef) -> &mut Packet {
        &mut self.slots[r.0 as usize]
    }

    /// Releases `r`'s slot and returns its packet. The handle must not be used again.
    pub fn remove(&mut self, r: PacketRef) -> Packet {
        self.free.push(r.0);
        self.slots[r.0 as usize]
    }

    /// Releases `r`'s slot and returns its packet, with its header if it is a TCP segment.
    /// The header is read where it is stored, not copied: the borrow of the pool keeps it
    /// from being overwritten while it is read.
    pub fn remove_with_header(&mut self, r: PacketRef) -> (Packet, Option<&TcpHeader>) {
        let pkt = self.remove(r);
        let header = (pkt.protocol == Protocol::Tcp).then(|| &self.tcp[r.0 as usize]);
        (pkt, header)
    }

    /// Packets held.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Whether the pool holds no packet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId};
    use crate::time::SimTime;
    use crate::wire::{PacketKind, Role};

    fn pkt(seq: u64) -> Packet {
        Packet {
            kind: PacketKind::Data,
            protocol: Protocol::Udp,
            to: Role::Sink,
            flow: Some(FlowId::new(0)),
            src: NodeId(0),
            dst: NodeId(1),
            seq,
            frame_len: 64,
            payload: 18,
            created: SimTime::ZERO,
            echo: SimTime::NEVER,
        }
    }

    #[test]
    fn freed_slots_are_reused() {
        let mut pool = PacketPool::default();
        let a = pool.insert(pkt(1));
        let b = pool.insert(pkt(2));
        assert_eq!(pool.remove(a).seq, 1);
        let c = pool.insert(pkt(3));
        assert_eq!(c, a, "the freed slot is taken again");
        assert_eq!(pool.get(b).seq, 2);
        assert_eq!(pool.get(c).seq, 3);
        assert_eq!(pool.len(), 2);
    }

    #[test]
    fn a_segment_is_removed_with_its_own_header() {
        let mut pool = PacketPool::default();
        let header = |ack| TcpHeader { ack, ..TcpHeader::default() };
        let segment = |seq| Packet { protocol: Protocol::Tcp, ..pkt(seq) };
        let datagram = pool.insert(pkt(1));
        let first = pool.insert_tcp(segment(2), &header(100));
        let second = pool.insert_tcp(segment(3), &header(200));
        let (removed, removed_header) = pool.remove_with_header(first);
        assert_eq!((removed.seq, removed_header.map(|h| h.ack)), (2, Some(100)));
        let (removed, removed_header) = pool.remove_with_header(datagram);
        assert_eq!((removed.seq, removed_header), (1, None), "a datagram has no header");
        // A freed slot taken by a new segment holds the new header.
        let third = pool.insert_tcp(segment(4), &header(300));
        assert_eq!(pool.remove_with_header(third).1.map(|h| h.ack), Some(300));
        assert_eq!(pool.remove_with_header(second).1.map(|h| h.ack), Some(200));
        assert!(pool.is_empty());
    }
}
