//! NewReno (RFC 5681 section 3, RFC 6582 section 3.2), and the slow start and loss
//! recovery arithmetic it shares with CUBIC, which leaves both to RFC 5681 and RFC 6582
//! (RFC 9438 sections 4.2 and 4.10).

use super::{CongestionControl, INITIAL_SSTHRESH};
use crate::time::SimTime;

/// Slow start, RFC 5681 equation (2): at most one SMSS per ACK.
pub(super) fn slow_start(cwnd: u64, acked: u64, smss: u64) -> u64 {
    cwnd + acked.min(smss)
}

/// The window on entering recovery with slow-start threshold `ssthresh`: RFC 5681
/// section 3.2 step 3 inflates it by the three segments that left the network; RFC 6675
/// section 5 step (4.2) sets it to ssthresh and counts the pipe instead.
pub(super) fn recovery_window(ssthresh: u64, smss: u64, sack: bool) -> u64 {
    if sack {
        ssthresh
    } else {
        ssthresh + 3 * smss
    }
}

/// RFC 6582 section 3.2 step 5: a partial ACK of `acked` bytes deflates the window by
/// the new data acknowledged and adds back one SMSS if at least one SMSS was; never
/// below one SMSS.
pub(super) fn deflate(cwnd: u64, acked: u64, smss: u64) -> u64 {
    let mut cwnd = cwnd.saturating_sub(acked);
    if acked >= smss {
        cwnd += smss;
    }
    cwnd.max(smss)
}

/// RFC 6582 section 3.2 step 3, option (1): the window when a full ACK ends recovery,
/// min(ssthresh, max(FlightSize, SMSS) + SMSS), which avoids a burst when little is
/// outstanding.
pub(super) fn exit_window(ssthresh: u64, flight: u64, smss: u64) -> u64 {
    ssthresh.min(flight.max(smss) + smss)
}

/// NewReno (RFC 5681 section 3, RFC 6582 section 3.2).
// C layout with cwnd first, as in every built-in algorithm: the send path reads cwnd on
// every poll, and at the same offset in each variant of `BuiltinCc` that read needs no
// branch on the algorithm.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewReno {
    cwnd: u64,
    ssthresh: u64,
}

impl NewReno {
    /// A NewReno window starting at `initial_window` bytes.
    pub fn new(initial_window: u64) -> Self {
        NewReno { cwnd: initial_window, ssthresh: INITIAL_SSTHRESH }
    }

    /// RFC 5681 equation (4): half the flight, at least two segments.
    fn halve(flight: u64, smss: u64) -> u64 {
        (flight / 2).max(2 * smss)
    }
}

impl CongestionControl for NewReno {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn set_initial_window(&mut self, bytes: u64) {
        self.cwnd = bytes;
    }

    fn on_ack(&mut self, _now: SimTime, acked: u64, smss: u64) {
        if self.cwnd < self.ssthresh {
            self.cwnd = slow_start(self.cwnd, acked, smss);
        } else {
            // Congestion avoidance, RFC 5681 equation (3), rounded up to 1 byte.
            self.cwnd += (smss * smss / self.cwnd).max(1);
        }
    }

    fn on_enter_recovery(&mut self, _now: SimTime, flight: u64, smss: u64, sack: bool) {
        self.ssthresh = Self::halve(flight, smss);
        self.cwnd = recovery_window(self.ssthresh, smss, sack);
    }

    fn on_dupack_in_recovery(&mut self, _now: SimTime, smss: u64) {
        // RFC 5681 section 3.2 step 4.
        self.cwnd += smss;
    }

    fn on_partial_ack(&mut self, _now: SimTime, acked: u64, smss: u64) {
        self.cwnd = deflate(self.cwnd, acked, smss);
    }

    fn on_exit_recovery(&mut self, _now: SimTime, flight: u64, smss: u64) {
        self.cwnd = exit_window(self.ssthresh, flight, smss);
    }

    fn on_timeout(&mut self, _now: SimTime, flight: u64, smss: u64, first: bool) {
        // RFC 5681 section 3.1: ssthresh from equation (4) only on the first timeout of a
        // segment (held constant on later ones); cwnd to the loss window, one SMSS.
        if first {
            self.ssthresh = Self::halve(flight, smss);
        }
        self.cwnd = smss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1000;
    const T: SimTime = SimTime::ZERO;

    #[test]
    fn slow_start_grows_by_at_most_one_segment_per_ack() {
        let mut c = NewReno::new(2 * S);
        c.on_ack(T, 2 * S, S);
        assert_eq!(c.cwnd(), 3 * S, "RFC 5681 (2): min(N, SMSS)");
        c.on_ack(T, 500, S);
        assert_eq!(c.cwnd(), 3 * S + 500);
    }

    #[test]
    fn congestion_avoidance_grows_by_smss_squared_over_cwnd() {
        let mut c = NewReno::new(10 * S);
        c.on_enter_recovery(T, 20 * S, S, false);
        c.on_exit_recovery(T, 20 * S, S);
        assert_eq!((c.ssthresh(), c.cwnd()), (10 * S, 10 * S));
        c.on_ack(T, S, S);
        assert_eq!(c.cwnd(), 10 * S + S / 10, "RFC 5681 (3)");
    }

    #[test]
    fn fast_recovery_inflates_deflates_and_ends_at_ssthresh() {
        let mut c = NewReno::new(10 * S);
        c.on_enter_recovery(T, 16 * S, S, false);
        assert_eq!((c.ssthresh(), c.cwnd()), (8 * S, 11 * S), "ssthresh + 3·SMSS");
        c.on_dupack_in_recovery(T, S);
        assert_eq!(c.cwnd(), 12 * S);
        c.on_partial_ack(T, 3 * S, S);
        assert_eq!(c.cwnd(), 10 * S, "deflated by 3 SMSS, one added back");
        c.on_exit_recovery(T, 12 * S, S);
        assert_eq!(c.cwnd(), 8 * S, "min(ssthresh, FlightSize + SMSS)");
        c.on_enter_recovery(T, 16 * S, S, false);
        c.on_exit_recovery(T, S, S);
        assert_eq!(c.cwnd(), 2 * S, "little outstanding: no burst");
    }

    #[test]
    fn a_timeout_sets_the_loss_window_and_holds_ssthresh_on_repeats() {
        let mut c = NewReno::new(10 * S);
        c.on_timeout(T, 10 * S, S, true);
        assert_eq!((c.ssthresh(), c.cwnd()), (5 * S, S));
        c.on_timeout(T, S, S, false);
        assert_eq!((c.ssthresh(), c.cwnd()), (5 * S, S), "held constant on a repeat");
        c.on_timeout(T, S, S, true);
        assert_eq!(c.ssthresh(), 2 * S, "at least two segments");
    }
}
