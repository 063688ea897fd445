//! Frame formats on the wire: sizes and overheads, and the packet descriptor models
//! pass around. No behaviour lives here.

pub mod ethernet;
pub mod ip;
pub mod packet;
pub mod udp;

pub use packet::{Packet, PacketKind};
