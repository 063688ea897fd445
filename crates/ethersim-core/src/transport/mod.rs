//! Transport protocols. UDP for now; TCP NewReno joins here.

pub mod udp;

pub use udp::UdpReceiver;
