//! Frame formats on the wire: sizes and overheads, and the packet descriptor models
//! pass around. No behaviour lives here.

pub mod ethernet;
pub mod icmp;
pub mod ip;
pub mod mac_control;
pub mod packet;
pub mod tcp;
pub mod udp;

pub use packet::{Packet, PacketKind, PacketRef, Protocol, Role};
pub use tcp::{SackBlock, TcpFlags, TcpHeader};

/// The Ethernet frame length of a packet of `protocol` carrying `payload` bytes of
/// application data (with padding to the minimum frame); a TCP segment's length also
/// depends on its options, given as `tcp_options` bytes (ignored for other protocols).
pub const fn frame_len(protocol: Protocol, payload: u64, tcp_options: u64) -> u64 {
    match protocol {
        Protocol::Udp => udp::frame_len(payload),
        Protocol::Tcp => tcp::frame_len(payload, tcp_options),
        Protocol::IcmpEcho => icmp::frame_len(payload),
        Protocol::MacControl => ethernet::MIN_FRAME,
    }
}
