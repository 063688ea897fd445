//! TCP segment geometry and the header a segment carries (RFC 9293 section 3.1, with
//! the options of RFC 7323 and RFC 2018).
//!
//! Sequence and acknowledgement numbers are kept as 64-bit offsets from each side's
//! initial sequence number, which the simulator sets to 0: they never wrap, and a pcap
//! writer takes them modulo 2^32. The window field is the 16-bit value on the wire; the
//! receiver of the segment scales it by the shift its peer announced (RFC 7323
//! section 2.3), except on SYN segments, whose window is never scaled.

use super::ethernet::frame_len_for_payload;
use super::ip::IPV4_HEADER_LEN;

/// TCP header without options (RFC 9293 section 3.1: data offset 5 words).
pub const TCP_HEADER_LEN: u64 = 20;
/// Most bytes of options a header can carry (data offset at most 15 words).
pub const MAX_OPTIONS_LEN: u64 = 40;
/// Most SACK blocks an ACK carries when no timestamps are used (RFC 2018 section 3:
/// 4 blocks fill the 40 bytes of option space).
pub const MAX_SACK_BLOCKS: usize = 4;
/// Largest shift a window scale option may announce (RFC 7323 section 2.3).
pub const MAX_WINDOW_SHIFT: u8 = 14;

/// The largest segment payload on a path of this MTU: the MTU less the IPv4 and TCP
/// headers (RFC 9293 section 3.7.1, RFC 879).
pub const fn mss_for_mtu(mtu: u64) -> u64 {
    mtu.saturating_sub(IPV4_HEADER_LEN + TCP_HEADER_LEN)
}

/// The Ethernet frame length of a TCP/IPv4 segment with `options` bytes of TCP options
/// (already padded to a multiple of 4) carrying `payload` bytes.
pub const fn frame_len(payload: u64, options: u64) -> u64 {
    frame_len_for_payload(IPV4_HEADER_LEN + TCP_HEADER_LEN + options + payload)
}

/// The control bits of a segment (RFC 9293 section 3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    /// No more data from sender.
    pub const FIN: TcpFlags = TcpFlags(0x01);
    /// Synchronize sequence numbers.
    pub const SYN: TcpFlags = TcpFlags(0x02);
    /// Reset the connection.
    pub const RST: TcpFlags = TcpFlags(0x04);
    /// Push function.
    pub const PSH: TcpFlags = TcpFlags(0x08);
    /// Acknowledgement field is significant.
    pub const ACK: TcpFlags = TcpFlags(0x10);

    /// Whether every bit of `other` is set.
    pub const fn has(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }
    /// These bits and `other`'s.
    #[must_use]
    pub const fn with(self, other: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | other.0)
    }
}

/// One SACK block: the receiver holds the bytes `[start, end)` (RFC 2018 section 3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SackBlock {
    /// First byte held.
    pub start: u64,
    /// One past the last byte held.
    pub end: u64,
}

/// The header fields of a segment that the simulation uses. Ports, checksum and urgent
/// pointer are not modelled (a pcap writer fills them in).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    /// Acknowledgement number (meaningful with [`TcpFlags::ACK`]).
    pub ack: u64,
    /// Control bits.
    pub flags: TcpFlags,
    /// The window field as on the wire (unscaled).
    pub window: u16,
    /// Maximum segment size option (SYN only; 0: absent). RFC 9293 section 3.7.1.
    pub mss: u16,
    /// Window scale option: the sender's receive-window shift (SYN only). RFC 7323.
    pub window_shift: Option<u8>,
    /// SACK-permitted option (SYN only). RFC 2018 section 2.
    pub sack_permitted: bool,
    /// SACK blocks carried: `sack[..sack_len]`.
    pub sack_len: u8,
    /// SACK blocks, most recently changed first (RFC 2018 section 4).
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    /// Which of its flow's connections the segment belongs to: the client's port, as TCP
    /// demultiplexes (RFC 9293 section 3.1). 0 for a flow's only connection; an
    /// application that opens several ([`crate::app::web`]) numbers them.
    pub port: u16,
    /// What the application message in the segment asks the peer for, bytes (an HTTP
    /// request names an object, whose size the server knows; payloads are counted, not
    /// carried, so the size travels here). 0: nothing.
    pub asks: u32,
}

impl TcpHeader {
    /// The SACK blocks carried.
    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..usize::from(self.sack_len)]
    }

    /// Bytes of options, padded with NOPs to a multiple of 4 as stacks lay them out:
    /// MSS (4), window scale (3 + 1 NOP), SACK-permitted (2 + 2 NOP), SACK (2 + 8 per
    /// block, + 2 NOP).
    pub const fn options_len(&self) -> u64 {
        let mut len = 0;
        if self.mss != 0 {
            len += 4;
        }
        if self.window_shift.is_some() {
            len += 4;
        }
        if self.sack_permitted {
            len += 4;
        }
        if self.sack_len > 0 {
            len += 4 + 8 * self.sack_len as u64;
        }
        len
    }

    /// Sequence space the segment occupies beyond its payload: SYN and FIN count one
    /// each (RFC 9293 section 3.4).
    pub const fn control_len(&self) -> u64 {
        self.flags.has(TcpFlags::SYN) as u64 + self.flags.has(TcpFlags::FIN) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_segment_on_a_1500_byte_mtu_fills_a_maximum_frame() {
        assert_eq!(mss_for_mtu(1500), 1460);
        assert_eq!(frame_len(1460, 0), 1518);
        // A pure ACK: 14 + 20 + 20 + 4 = 58 B, padded to 64.
        assert_eq!(frame_len(0, 0), 64);
    }

    #[test]
    fn options_are_padded_to_whole_words() {
        let syn = TcpHeader {
            flags: TcpFlags::SYN,
            mss: 1460,
            window_shift: Some(7),
            sack_permitted: true,
            ..TcpHeader::default()
        };
        assert_eq!(syn.options_len(), 12);
        assert_eq!(syn.control_len(), 1);
        let mut ack = TcpHeader { flags: TcpFlags::ACK, sack_len: 4, ..TcpHeader::default() };
        assert_eq!(ack.options_len(), 36, "4 blocks fit the 40-byte option space");
        ack.sack_len = 1;
        assert_eq!(ack.options_len(), 12);
        assert!(ack.options_len() <= MAX_OPTIONS_LEN);
    }
}
