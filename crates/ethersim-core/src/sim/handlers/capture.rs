//! The frame path's listeners: the trace's subscribers and packet captures, told of a
//! frame put on the wire or received whole. Off the path of every run that has neither:
//! the callers test one byte (`Trace::wants_frames`, `Trace::is_capturing`).

use crate::ids::PortId;
use crate::sim::network::Network;
use crate::sim::trace::TraceRecord;
use crate::time::SimTime;
use crate::wire::{PacketRef, Protocol};

impl Network {
    /// A port started sending the frame of packet `r` (`record`, a
    /// [`TraceRecord::TxStarted`]): the subscribers get the record, the port's capture
    /// the frame.
    #[cold]
    #[inline(never)]
    pub(in crate::sim) fn frame_started(&mut self, now: SimTime, record: TraceRecord, r: PacketRef) {
        self.trace.emit(now, || record);
        if let TraceRecord::TxStarted { port, .. } = record {
            self.capture_frame(now, port, r, true);
        }
    }

    /// `port` received the frame of packet `r` whole, and some port is captured.
    #[cold]
    #[inline(never)]
    pub(in crate::sim) fn frame_received(&mut self, now: SimTime, port: PortId, r: PacketRef) {
        self.capture_frame(now, port, r, false);
    }

    /// Writes the frame of `r` to `port`'s capture, if it has one.
    fn capture_frame(&mut self, now: SimTime, port: PortId, r: PacketRef, outbound: bool) {
        if !self.ports[port.index()].captured {
            return;
        }
        let pkt = self.packets.get(r);
        let tcp = (pkt.protocol == Protocol::Tcp).then(|| self.packets.tcp(r));
        for c in self.captures.iter_mut().filter(|c| c.settings.port == port) {
            c.record(now, outbound, pkt, tcp);
        }
    }
}
