//! One direction of a full-duplex point-to-point link.
//!
//! The device (the port) owns the queue and transmit state; the link direction owns the
//! rate and the propagation delay, and turns "start sending a frame of L bytes at t"
//! into two instants:
//!
//! * the wire is free again after the preamble/SFD, the frame and the inter-frame gap:
//!   `t + (8 + L + 12)·8 / rate`;
//! * the receiver has the frame's last bit (store-and-forward can begin) after the
//!   preamble/SFD and the frame have been sent and have propagated:
//!   `t + (8 + L)·8 / rate + delay`.

use crate::time::{BitRate, Bytes, Duration, SimTime};
use crate::wire::ethernet::{INTER_FRAME_GAP, PREAMBLE_SFD};

/// Rate and propagation delay of one direction of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkDirection {
    /// Signalling rate (bits of frame per second).
    pub rate: BitRate,
    /// Propagation delay from transmitter to receiver.
    pub delay: Duration,
}

/// When a transmission ends and when its frame is received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxTiming {
    /// The frame's last bit leaves the transmitter.
    pub last_bit: SimTime,
    /// The transmitter may start the next frame (after the inter-frame gap).
    pub wire_free: SimTime,
    /// The receiver holds the whole frame.
    pub received: SimTime,
}

impl LinkDirection {
    /// The timing of a frame of `frame_len` bytes whose preamble starts at `start`.
    pub fn transmit(&self, start: SimTime, frame_len: Bytes) -> TxTiming {
        let to_last_bit = self.rate.time_to_send(PREAMBLE_SFD + frame_len);
        let with_gap = self.rate.time_to_send(PREAMBLE_SFD + frame_len + INTER_FRAME_GAP);
        let last_bit = start + to_last_bit;
        TxTiming { last_bit, wire_free: start + with_gap, received: last_bit + self.delay }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maximum_frame_at_one_gigabit() {
        let l = LinkDirection { rate: BitRate::gbps(1), delay: Duration::from_ns(500) };
        let t = l.transmit(SimTime(0), Bytes(1518));
        // (1518 + 20) bytes · 8 ns = 12304 ns of wire time.
        assert_eq!(t.wire_free, SimTime(Duration::from_ns(12_304).as_ps()));
        // Last bit after (1518 + 8) · 8 ns = 12208 ns, plus 500 ns of propagation.
        assert_eq!(t.received, SimTime(Duration::from_ns(12_208 + 500).as_ps()));
    }
}
