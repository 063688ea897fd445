//! Congestion control behind a trait: the connection's loss recovery decides *when*
//! (new data acknowledged, loss detected by duplicate ACKs, a partial or full ACK in
//! recovery, a retransmission timeout); congestion control decides *how much* the
//! window is. Every event carries the instant it happens at, and every RTT measurement
//! the connection takes reaches the algorithm with the smoothed RTT it leaves
//! ([`CongestionControl::on_rtt_sample`]), so an algorithm whose window is a function of
//! time, such as CUBIC, needs nothing else from the connection.
//!
//! NewReno (RFC 5681 and RFC 6582, [`NewReno`]) and CUBIC (RFC 9438, [`Cubic`]) are
//! built in. Another algorithm implements [`CongestionControl`] and joins [`BuiltinCc`]
//! (an enum, so each call is a match the compiler can inline: no boxing, no allocation)
//! and [`CcAlgorithm`] to be chosen from a scenario.

pub mod cubic;
mod newreno;

pub use cubic::Cubic;
pub use newreno::NewReno;

use crate::time::{Duration, SimTime};

/// The window arithmetic of a congestion control algorithm. All sizes are bytes; `smss`
/// is the sender maximum segment size, `flight` the data outstanding (FlightSize); `now`
/// is the instant of the event.
pub trait CongestionControl {
    /// The congestion window.
    fn cwnd(&self) -> u64;
    /// The slow-start threshold.
    fn ssthresh(&self) -> u64;
    /// The handshake fixed the MSS: the window starts at `bytes`.
    fn set_initial_window(&mut self, bytes: u64);
    /// The connection measured a round trip of `sample` at `now` (one timed segment at a
    /// time, never a retransmitted one: RFC 6298 section 3, Karn's rule); `srtt` is the
    /// smoothed RTT after it (RFC 6298 section 2). The sample comes before the ACK that
    /// brought it is passed on. Algorithms that need no RTT ignore it.
    fn on_rtt_sample(&mut self, _now: SimTime, _sample: Duration, _srtt: Duration) {}
    /// `acked` bytes of new data were cumulatively acknowledged outside loss recovery.
    fn on_ack(&mut self, now: SimTime, acked: u64, smss: u64);
    /// Loss was detected by duplicate ACKs and recovery begins. With `sack`, recovery is
    /// RFC 6675's (transmission governed by the pipe estimate) rather than NewReno's
    /// window inflation.
    fn on_enter_recovery(&mut self, now: SimTime, flight: u64, smss: u64, sack: bool);
    /// A further duplicate ACK arrived during NewReno fast recovery.
    fn on_dupack_in_recovery(&mut self, now: SimTime, smss: u64);
    /// A partial ACK for `acked` bytes arrived during NewReno fast recovery.
    fn on_partial_ack(&mut self, now: SimTime, acked: u64, smss: u64);
    /// A full ACK ended recovery with `flight` bytes still outstanding.
    fn on_exit_recovery(&mut self, now: SimTime, flight: u64, smss: u64);
    /// The retransmission timer expired; `first` is false when the same segment has
    /// already been retransmitted by the timer.
    fn on_timeout(&mut self, now: SimTime, flight: u64, smss: u64, first: bool);
}

/// The initial slow-start threshold: "arbitrarily high", the largest window a peer can
/// advertise (RFC 5681 section 3.1; 65535 · 2^14 with RFC 7323 scaling).
pub const INITIAL_SSTHRESH: u64 = 0xffff << 14;

/// The congestion control algorithms a scenario can choose (`tcp.congestion_control`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CcAlgorithm {
    /// NewReno (RFC 5681, RFC 6582): ethersim's default.
    #[default]
    NewReno,
    /// CUBIC (RFC 9438): the default of Linux and ns-3.
    Cubic,
}

impl CcAlgorithm {
    /// Every algorithm, in the order the documentation lists them.
    pub const ALL: [CcAlgorithm; 2] = [CcAlgorithm::NewReno, CcAlgorithm::Cubic];

    /// The algorithm's name in a scenario.
    pub fn name(self) -> &'static str {
        match self {
            CcAlgorithm::NewReno => "newreno",
            CcAlgorithm::Cubic => "cubic",
        }
    }
}

impl std::str::FromStr for CcAlgorithm {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CcAlgorithm::ALL.into_iter().find(|a| a.name() == s).ok_or_else(|| {
            let names: Vec<&str> = CcAlgorithm::ALL.iter().map(|a| a.name()).collect();
            format!("{s:?} is no congestion control; expected one of {}", names.join(", "))
        })
    }
}

/// The built-in algorithms, one variant each: what a connection holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BuiltinCc {
    /// NewReno.
    NewReno(NewReno),
    /// CUBIC.
    Cubic(Cubic),
}

impl BuiltinCc {
    /// `algorithm` with a window of `initial_window` bytes.
    pub fn new(algorithm: CcAlgorithm, initial_window: u64) -> Self {
        match algorithm {
            CcAlgorithm::NewReno => BuiltinCc::NewReno(NewReno::new(initial_window)),
            CcAlgorithm::Cubic => BuiltinCc::Cubic(Cubic::new(initial_window)),
        }
    }

    /// Which algorithm this is.
    pub fn algorithm(&self) -> CcAlgorithm {
        match self {
            BuiltinCc::NewReno(_) => CcAlgorithm::NewReno,
            BuiltinCc::Cubic(_) => CcAlgorithm::Cubic,
        }
    }
}

/// Forwards each call to the variant's algorithm.
macro_rules! each {
    ($self:ident, $c:ident => $call:expr) => {
        match $self {
            BuiltinCc::NewReno($c) => $call,
            BuiltinCc::Cubic($c) => $call,
        }
    };
}

impl CongestionControl for BuiltinCc {
    #[inline]
    fn cwnd(&self) -> u64 {
        each!(self, c => c.cwnd())
    }
    #[inline]
    fn ssthresh(&self) -> u64 {
        each!(self, c => c.ssthresh())
    }
    fn set_initial_window(&mut self, bytes: u64) {
        each!(self, c => c.set_initial_window(bytes));
    }
    fn on_rtt_sample(&mut self, now: SimTime, sample: Duration, srtt: Duration) {
        each!(self, c => c.on_rtt_sample(now, sample, srtt));
    }
    fn on_ack(&mut self, now: SimTime, acked: u64, smss: u64) {
        each!(self, c => c.on_ack(now, acked, smss));
    }
    fn on_enter_recovery(&mut self, now: SimTime, flight: u64, smss: u64, sack: bool) {
        each!(self, c => c.on_enter_recovery(now, flight, smss, sack));
    }
    fn on_dupack_in_recovery(&mut self, now: SimTime, smss: u64) {
        each!(self, c => c.on_dupack_in_recovery(now, smss));
    }
    fn on_partial_ack(&mut self, now: SimTime, acked: u64, smss: u64) {
        each!(self, c => c.on_partial_ack(now, acked, smss));
    }
    fn on_exit_recovery(&mut self, now: SimTime, flight: u64, smss: u64) {
        each!(self, c => c.on_exit_recovery(now, flight, smss));
    }
    fn on_timeout(&mut self, now: SimTime, flight: u64, smss: u64, first: bool) {
        each!(self, c => c.on_timeout(now, flight, smss, first));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_algorithm_is_named_and_built_as_named() {
        for a in CcAlgorithm::ALL {
            assert_eq!(a.name().parse::<CcAlgorithm>(), Ok(a));
            let c = BuiltinCc::new(a, 14_600);
            assert_eq!((c.algorithm(), c.cwnd(), c.ssthresh()), (a, 14_600, INITIAL_SSTHRESH));
        }
        assert!("bbr".parse::<CcAlgorithm>().unwrap_err().contains("newreno, cubic"));
        assert_eq!(CcAlgorithm::default(), CcAlgorithm::NewReno);
    }
}
