//! The PAUSE operation's frame (IEEE 802.3 Annex 31B): a MAC control frame
//! (`wire/mac_control.rs`) with opcode 0x0001 and a two-byte pause time in *quanta* of
//! 512 bit times.

use crate::ids::NodeId;
use crate::time::{BitRate, Bytes, Duration, SimTime};

use crate::wire::ethernet;
use crate::wire::mac_control;
use crate::wire::packet::Packet;

/// The PAUSE opcode (802.3 Annex 31A).
pub const OPCODE_PAUSE: u16 = 0x0001;
/// One pause quantum: 512 bit times (802.3 Annex 31B.2).
pub const QUANTUM_BITS: u64 = 512;
/// The largest pause time a frame can carry: its field has two bytes.
pub const MAX_QUANTA: u16 = u16::MAX;
/// A PAUSE frame is padded to the minimum frame length.
pub const PAUSE_FRAME_LEN: u32 = mac_control::FRAME_LEN;

/// A PAUSE frame from `src` to its link partner `dst`, made at `now`, asking for a pause
/// of `quanta` (0: resume at once).
pub fn pause_frame(src: NodeId, dst: NodeId, quanta: u16, now: SimTime) -> Packet {
    mac_control::frame(src, dst, OPCODE_PAUSE, quanta, now)
}

/// The pause time a MAC control frame asks for, if it is a PAUSE frame.
pub fn pause_quanta(p: &Packet) -> Option<u16> {
    mac_control::operation(p).filter(|&(opcode, _)| opcode == OPCODE_PAUSE).map(|(_, quanta)| quanta)
}

/// How long `quanta` pause quanta last at `rate`: quanta · 512 bit times (= 64 bytes'
/// time each), rounded up to the picosecond as every serialization time is.
pub fn quanta_duration(quanta: u16, rate: BitRate) -> Duration {
    rate.time_to_send(Bytes(u64::from(quanta) * QUANTUM_BITS / 8))
}

/// The line time of one PAUSE frame at `rate`: the frame, its preamble and its gap.
pub fn frame_time(rate: BitRate) -> Duration {
    rate.time_to_send(Bytes(u64::from(PAUSE_FRAME_LEN)) + ethernet::WIRE_OVERHEAD)
}

/// The fewest quanta that pause for at least `pause` at `rate`, if a PAUSE frame can
/// carry that many.
pub fn quanta_for(pause: Duration, rate: BitRate) -> Option<u16> {
    let quantum = quanta_duration(1, rate).as_ps().max(1);
    let quanta = pause.as_ps().div_ceil(quantum);
    u16::try_from(quanta).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_pause_at_one_gigabit_is_33_6_ms() {
        // 65535 · 512 ns = 33.553920 ms (the SPEC's "33.6 ms at 1 Gb/s").
        assert_eq!(quanta_duration(MAX_QUANTA, BitRate::gbps(1)), Duration::from_ns(33_553_920));
        assert_eq!(quanta_duration(1, BitRate::gbps(10)), Duration::from_ps(51_200));
    }

    #[test]
    fn a_pause_time_rounds_up_to_whole_quanta() {
        let g = BitRate::gbps(1);
        assert_eq!(quanta_for(Duration::from_ns(512), g), Some(1));
        assert_eq!(quanta_for(Duration::from_ns(513), g), Some(2));
        // 10 ms = 19531.25 quanta of 512 ns.
        assert_eq!(quanta_for(Duration::from_ms(10), g), Some(19_532));
        assert_eq!(quanta_for(Duration::from_ms(34), g), None, "beyond 65535 quanta");
    }

    #[test]
    fn a_pause_frame_carries_its_quanta_and_is_a_minimum_frame() {
        let p = pause_frame(NodeId(0), NodeId(1), 1234, SimTime::ZERO);
        assert_eq!((pause_quanta(&p), p.frame_len), (Some(1234), 64));
        let other = mac_control::frame(NodeId(0), NodeId(1), 0x0101, 1234, SimTime::ZERO);
        assert_eq!(pause_quanta(&other), None, "a MAC control frame of another opcode");
    }
}
