//! TCP (RFC 9293) with NewReno (RFC 5681, RFC 6582) or CUBIC (RFC 9438) congestion
//! control, the RFC 6298 retransmission timer, delayed ACKs, window scaling (RFC 7323)
//! and optional SACK (RFC 2018, RFC 6675 recovery).
//!
//! [`Connection`] is one end, a state machine with time passed in and no knowledge of
//! the network; the applications in [`crate::app::tcp`] drive one per end of a flow.
//! [`CongestionControl`] is the seam for other algorithms.

pub mod cc;
pub mod config;
pub mod conn;
pub mod reassembly;
pub mod rtt;
pub mod scoreboard;

#[cfg(test)]
mod tests;

pub use cc::{BuiltinCc, CcAlgorithm, CongestionControl, Cubic, NewReno};
pub use config::{TcpConfig, TcpProfile};
pub use conn::{Arriving, Connection, Plan, Segment, State, TcpSeries, TcpStats};
pub use rtt::RttEstimator;
