//! Packet capture: a captured port's frames handed to its capture file.

use crate::ids::PortId;
use crate::sim::network::Network;
use crate::time::SimTime;
use crate::wire::{PacketRef, Protocol};

impl Network {
    /// `port` (captured) sent (`outbound`) or received the frame of packet `r` at `now`.
    // Off the path of every port not captured: the callers test the port's flag.
    #[cold]
    #[inline(never)]
    pub(in crate::sim) fn capture_frame(&mut self, now: SimTime, port: PortId, r: PacketRef, outbound: bool) {
        let pkt = self.packets.get(r);
        let tcp = (pkt.protocol == Protocol::Tcp).then(|| self.packets.tcp(r));
        for c in self.captures.iter_mut().filter(|c| c.settings.port == port) {
            c.record(now, outbound, pkt, tcp);
        }
    }
}
