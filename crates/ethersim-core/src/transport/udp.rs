//! The receiving end of a UDP flow (RFC 768: no acknowledgement, no recovery).
//!
//! It counts what arrives, detects reordering, and keeps the one-way delay of every
//! datagram (from the moment the sending application handed it to its host).

use crate::stats::DelayStats;
use crate::time::SimTime;
use crate::wire::Packet;

/// What the receiver of one flow has seen.
#[derive(Clone, Debug, Default)]
pub struct UdpReceiver {
    /// Datagrams received.
    pub packets: u64,
    /// Payload bytes received.
    pub bytes: u64,
    /// Datagrams that arrived with a lower sequence number than one already received.
    pub reordered: u64,
    /// When the first datagram arrived.
    pub first_rx: Option<SimTime>,
    /// When the latest datagram arrived.
    pub last_rx: Option<SimTime>,
    /// One-way delays.
    pub delay: DelayStats,
    next_expected: u64,
}

impl UdpReceiver {
    /// Records the delivery of `pkt` to the application at `now`.
    pub fn deliver(&mut self, now: SimTime, pkt: &Packet) {
        self.packets += 1;
        self.bytes += u64::from(pkt.payload);
        if pkt.seq < self.next_expected {
            self.reordered += 1;
        } else {
            self.next_expected = pkt.seq + 1;
        }
        self.first_rx.get_or_insert(now);
        self.last_rx = Some(now);
        self.delay.record(now.saturating_since(pkt.created));
    }
}
