//! The receiving end of a one-way UDP flow (RFC 768: no acknowledgement, no recovery).
//!
//! What arrives is counted by the flow itself (packets, bytes, one-way delay, order);
//! the sink only consumes. It is the endpoint a UDP file transfer and the packet sources
//! send to.

/// A UDP receiver that consumes datagrams.
#[derive(Clone, Copy, Debug, Default)]
pub struct UdpSink;
