//! ICMP echo geometry (RFC 792).

use super::ethernet::frame_len_for_payload;
use super::ip::IPV4_HEADER_LEN;

/// ICMP echo header: type, code, checksum, identifier, sequence number (RFC 792).
pub const ECHO_HEADER_LEN: u64 = 8;

/// The largest echo data that fits one IPv4 packet on a link of this MTU, unfragmented.
pub const fn max_data_for_mtu(mtu: u64) -> u64 {
    mtu.saturating_sub(IPV4_HEADER_LEN + ECHO_HEADER_LEN)
}

/// The Ethernet frame length of an echo request or reply carrying `data` bytes.
pub const fn frame_len(data: u64) -> u64 {
    frame_len_for_payload(IPV4_HEADER_LEN + ECHO_HEADER_LEN + data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_ping_data_makes_a_102_byte_frame() {
        // 56 B of data (the common default): 14 + 20 + 8 + 56 + 4 = 102.
        assert_eq!(frame_len(56), 102);
        assert_eq!(frame_len(0), 64, "padded to the minimum frame");
        assert_eq!(max_data_for_mtu(1500), 1472);
    }
}
