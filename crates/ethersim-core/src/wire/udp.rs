//! UDP datagram geometry (RFC 768).

use super::ethernet::frame_len_for_payload;
use super::ip::IPV4_HEADER_LEN;

/// UDP header: source port, destination port, length, checksum (RFC 768).
pub const UDP_HEADER_LEN: u64 = 8;

/// The largest UDP payload that fits one IPv4 packet on a link of this MTU, unfragmented.
pub const fn max_payload_for_mtu(mtu: u64) -> u64 {
    mtu.saturating_sub(IPV4_HEADER_LEN + UDP_HEADER_LEN)
}

/// The Ethernet frame length of a UDP/IPv4 datagram carrying `payload` bytes.
pub const fn frame_len(payload: u64) -> u64 {
    frame_len_for_payload(IPV4_HEADER_LEN + UDP_HEADER_LEN + payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_size_datagram_fills_a_maximum_frame() {
        assert_eq!(max_payload_for_mtu(1500), 1472);
        assert_eq!(frame_len(1472), 1518);
        // 18 B of payload is the smallest that needs no Ethernet padding: 14+20+8+18+4 = 64.
        assert_eq!(frame_len(1), 64);
        assert_eq!(frame_len(18), 64);
        assert_eq!(frame_len(19), 65);
    }
}
