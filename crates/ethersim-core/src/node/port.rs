//! A port: the transmitting end of one direction of a link, with its output queue.
//!
//! The port owns the queue and the transmit state; the [`LinkDirection`] it drives owns
//! the rate and the delay. Starting a frame yields its [`TxTiming`]; the network turns
//! that into a "wire free" event for this port and an arrival event at the peer.

use serde::Serialize;

use crate::ids::{NodeId, PortId};
use crate::phy::{LinkDirection, TxTiming};
use crate::time::{Bytes, Duration, SimTime};
use crate::wire::Packet;

use super::queue::{DropTailQueue, QueueLimits};

/// Counters of one port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PortStats {
    /// Frames transmitted.
    pub frames_sent: u64,
    /// Bytes transmitted (frame lengths, without preamble and gap).
    pub bytes_sent: u64,
    /// Frames dropped because the queue was full.
    pub drops: u64,
    /// Bytes of the dropped frames.
    pub dropped_bytes: u64,
    /// Time spent transmitting (preamble through gap), ps.
    pub busy_ps: u64,
}

/// One port of a node.
#[derive(Debug)]
pub struct Port {
    /// The node this port belongs to.
    pub node: NodeId,
    /// The port at the other end of the link.
    pub peer: PortId,
    /// The direction of the link this port transmits on.
    pub link: LinkDirection,
    queue: DropTailQueue,
    busy: bool,
    stats: PortStats,
}

impl Port {
    /// A port of `node` that sends to `peer` over `link`, holding at most `limits`.
    pub fn new(node: NodeId, peer: PortId, link: LinkDirection, limits: QueueLimits) -> Self {
        Port { node, peer, link, queue: DropTailQueue::new(limits), busy: false, stats: PortStats::default() }
    }

    /// Queues `pkt` for transmission; a full queue drops it (drop-tail) and hands it back.
    pub fn enqueue(&mut self, now: SimTime, pkt: Packet) -> Result<(), Packet> {
        self.queue.enqueue(now, pkt).inspect_err(|p| {
            self.stats.drops += 1;
            self.stats.dropped_bytes += u64::from(p.frame_len);
        })
    }

    /// If the wire is idle and a frame waits, starts sending it: returns the frame and
    /// its timing. The frame leaves the queue when its transmission starts.
    pub fn start_next(&mut self, now: SimTime) -> Option<(Packet, TxTiming)> {
        if self.busy {
            return None;
        }
        let pkt = self.queue.dequeue(now)?;
        let timing = self.link.transmit(now, Bytes(u64::from(pkt.frame_len)));
        self.busy = true;
        self.stats.frames_sent += 1;
        self.stats.bytes_sent += u64::from(pkt.frame_len);
        self.stats.busy_ps += (timing.wire_free - now).as_ps();
        Some((pkt, timing))
    }

    /// The wire is free again (the frame and its gap are done).
    pub fn finish_tx(&mut self) {
        debug_assert!(self.busy, "finish_tx on an idle port");
        self.busy = false;
    }

    /// Whether a frame is on the wire.
    pub fn is_busy(&self) -> bool {
        self.busy
    }

    /// The output queue.
    pub fn queue(&self) -> &DropTailQueue {
        &self.queue
    }

    /// The port's counters.
    pub fn stats(&self) -> &PortStats {
        &self.stats
    }

    /// Fraction of `[0, end]` spent transmitting.
    pub fn utilization(&self, end: SimTime) -> f64 {
        if end.as_ps() == 0 {
            0.0
        } else {
            Duration(self.stats.busy_ps).as_secs_f64() / end.as_secs_f64()
        }
    }
}
