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

/// Counters of one port. A transmission counts once it is complete (frame and gap).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PortStats {
    /// Frames transmitted completely.
    pub frames_sent: u64,
    /// Bytes transmitted completely (frame lengths, without preamble and gap).
    pub bytes_sent: u64,
    /// Frames dropped because the queue was full.
    pub drops: u64,
    /// Bytes of the dropped frames.
    pub dropped_bytes: u64,
    /// Time spent on completed transmissions (preamble through gap), ps.
    pub busy_ps: u64,
}

/// The transmission on the wire: when it started, when the wire is free, how long the frame is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct OnWire {
    start: SimTime,
    last_bit: SimTime,
    wire_free: SimTime,
    frame_len: u32,
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
    on_wire: Option<OnWire>,
    stats: PortStats,
}

impl Port {
    /// A port of `node` that sends to `peer` over `link`, holding at most `limits`.
    pub fn new(node: NodeId, peer: PortId, link: LinkDirection, limits: QueueLimits) -> Self {
        Port {
            node,
            peer,
            link,
            queue: DropTailQueue::new(limits),
            on_wire: None,
            stats: PortStats::default(),
        }
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
        if self.on_wire.is_some() {
            return None;
        }
        let pkt = self.queue.dequeue(now)?;
        let timing = self.link.transmit(now, Bytes(u64::from(pkt.frame_len)));
        self.on_wire = Some(OnWire {
            start: now,
            last_bit: timing.last_bit,
            wire_free: timing.wire_free,
            frame_len: pkt.frame_len,
        });
        Some((pkt, timing))
    }

    /// The wire is free again (the frame and its gap are done): the transmission counts.
    pub fn finish_tx(&mut self) {
        debug_assert!(self.on_wire.is_some(), "finish_tx on an idle port");
        if let Some(tx) = self.on_wire.take() {
            self.stats.frames_sent += 1;
            self.stats.bytes_sent += u64::from(tx.frame_len);
            self.stats.busy_ps += (tx.wire_free - tx.start).as_ps();
        }
    }

    /// Whether a frame is on the wire.
    pub fn is_busy(&self) -> bool {
        self.on_wire.is_some()
    }

    /// The output queue.
    pub fn queue(&self) -> &DropTailQueue {
        &self.queue
    }

    /// The port's counters.
    pub fn stats(&self) -> &PortStats {
        &self.stats
    }

    /// The frame on the wire, if its last bit has left by `end` (its gap may still run).
    fn sent_on_wire_by(&self, end: SimTime) -> Option<OnWire> {
        self.on_wire.filter(|tx| tx.last_bit <= end)
    }

    /// Frames whose last bit left by `end` (completed ones and the one in its gap).
    pub fn frames_sent_by(&self, end: SimTime) -> u64 {
        self.stats.frames_sent + u64::from(self.sent_on_wire_by(end).is_some())
    }

    /// Bytes of the frames counted by [`Port::frames_sent_by`].
    pub fn bytes_sent_by(&self, end: SimTime) -> u64 {
        self.stats.bytes_sent + self.sent_on_wire_by(end).map_or(0, |tx| u64::from(tx.frame_len))
    }

    /// Fraction of `[0, end]` spent transmitting, counting the part of a transmission in
    /// progress that falls before `end`.
    pub fn utilization(&self, end: SimTime) -> f64 {
        if end.as_ps() == 0 {
            return 0.0;
        }
        let partial =
            self.on_wire.map_or(Duration::ZERO, |tx| tx.wire_free.min(end).saturating_since(tx.start));
        (Duration(self.stats.busy_ps) + partial).as_secs_f64() / end.as_secs_f64()
    }
}
