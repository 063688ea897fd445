//! IEEE 802.3 frame geometry.
//!
//! A frame's *length* is counted from the destination address through the FCS
//! (802.3 clause 3.1.1), as the standard does: 64 to 1518 bytes for untagged frames.
//! Each frame also costs [`WIRE_OVERHEAD`] bytes of line time that are not part of it:
//! the preamble and start-of-frame delimiter before it (clause 4.2.5) and the minimum
//! inter-packet gap of 96 bit times after it (clause 4.4.2).

use crate::time::Bytes;

/// Preamble (7 B) plus start-of-frame delimiter (1 B), sent before every frame.
pub const PREAMBLE_SFD: Bytes = Bytes(8);
/// Minimum inter-packet gap: 96 bit times = 12 bytes of line time after every frame.
pub const INTER_FRAME_GAP: Bytes = Bytes(12);
/// Line time per frame beyond the frame itself.
pub const WIRE_OVERHEAD: Bytes = Bytes(PREAMBLE_SFD.0 + INTER_FRAME_GAP.0);
/// Destination, source and EtherType.
pub const HEADER_LEN: u64 = 14;
/// Frame check sequence (CRC-32).
pub const FCS_LEN: u64 = 4;
/// Minimum frame length; shorter payloads are padded (clause 4.2.3.3).
pub const MIN_FRAME: u64 = 64;
/// Standard MTU: the largest payload of an untagged frame.
pub const STANDARD_MTU: u64 = 1500;
/// Largest MTU accepted for jumbo frames (a common vendor limit; not in 802.3).
pub const MAX_JUMBO_MTU: u64 = 9000;

/// The frame length that carries `payload` bytes of MAC client data, with padding.
pub const fn frame_len_for_payload(payload: u64) -> u64 {
    let raw = HEADER_LEN + payload + FCS_LEN;
    if raw < MIN_FRAME {
        MIN_FRAME
    } else {
        raw
    }
}

/// The largest frame a link with this MTU carries.
pub const fn max_frame_for_mtu(mtu: u64) -> u64 {
    HEADER_LEN + mtu + FCS_LEN
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_mtu_gives_the_1518_byte_maximum_frame() {
        assert_eq!(max_frame_for_mtu(STANDARD_MTU), 1518);
        assert_eq!(frame_len_for_payload(STANDARD_MTU), 1518);
    }

    #[test]
    fn short_payloads_are_padded_to_64_bytes() {
        assert_eq!(frame_len_for_payload(0), 64);
        assert_eq!(frame_len_for_payload(46), 64);
        assert_eq!(frame_len_for_payload(47), 65);
    }
}
