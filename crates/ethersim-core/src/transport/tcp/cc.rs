//! Congestion control behind a trait: the connection's loss recovery decides *when*
//! (new data acknowledged, loss detected by duplicate ACKs, a partial or full ACK in
//! recovery, a retransmission timeout); congestion control decides *how much* the
//! window is. NewReno (RFC 5681 and RFC 6582) is built in; another algorithm implements
//! [`CongestionControl`] and joins [`BuiltinCc`] to be chosen from a scenario.

/// The window arithmetic of a congestion control algorithm. All sizes are bytes; `smss`
/// is the sender maximum segment size, `flight` the data outstanding (FlightSize).
pub trait CongestionControl {
    /// The congestion window.
    fn cwnd(&self) -> u64;
    /// The slow-start threshold.
    fn ssthresh(&self) -> u64;
    /// The handshake fixed the MSS: the window starts at `bytes`.
    fn set_initial_window(&mut self, bytes: u64);
    /// `acked` bytes of new data were cumulatively acknowledged outside loss recovery.
    fn on_ack(&mut self, acked: u64, smss: u64);
    /// Loss was detected by duplicate ACKs and recovery begins. With `sack`, recovery is
    /// RFC 6675's (transmission governed by the pipe estimate) rather than NewReno's
    /// window inflation.
    fn on_enter_recovery(&mut self, flight: u64, smss: u64, sack: bool);
    /// A further duplicate ACK arrived during NewReno fast recovery.
    fn on_dupack_in_recovery(&mut self, smss: u64);
    /// A partial ACK for `acked` bytes arrived during NewReno fast recovery.
    fn on_partial_ack(&mut self, acked: u64, smss: u64);
    /// A full ACK ended recovery with `flight` bytes still outstanding.
    fn on_exit_recovery(&mut self, flight: u64, smss: u64);
    /// The retransmission timer expired; `first` is false when the same segment has
    /// already been retransmitted by the timer.
    fn on_timeout(&mut self, flight: u64, smss: u64, first: bool);
}

/// The initial slow-start threshold: "arbitrarily high", the largest window a peer can
/// advertise (RFC 5681 section 3.1; 65535 · 2^14 with RFC 7323 scaling).
pub const INITIAL_SSTHRESH: u64 = 0xffff << 14;

/// NewReno (RFC 5681 section 3, RFC 6582 section 3.2).
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

    fn on_ack(&mut self, acked: u64, smss: u64) {
        if self.cwnd < self.ssthresh {
            // Slow start, RFC 5681 equation (2): at most one SMSS per ACK.
            self.cwnd += acked.min(smss);
        } else {
            // Congestion avoidance, RFC 5681 equation (3), rounded up to 1 byte.
            self.cwnd += (smss * smss / self.cwnd).max(1);
        }
    }

    fn on_enter_recovery(&mut self, flight: u64, smss: u64, sack: bool) {
        self.ssthresh = Self::halve(flight, smss);
        // RFC 5681 section 3.2 step 3 inflates by the three segments that left the
        // network; RFC 6675 section 5 step (4.2) sets cwnd to ssthresh and counts the
        // pipe instead.
        self.cwnd = if sack { self.ssthresh } else { self.ssthresh + 3 * smss };
    }

    fn on_dupack_in_recovery(&mut self, smss: u64) {
        // RFC 5681 section 3.2 step 4.
        self.cwnd += smss;
    }

    fn on_partial_ack(&mut self, acked: u64, smss: u64) {
        // RFC 6582 section 3.2 step 5: deflate by the new data acknowledged, add back one
        // SMSS if at least one SMSS was acknowledged.
        self.cwnd = self.cwnd.saturating_sub(acked);
        if acked >= smss {
            self.cwnd += smss;
        }
        self.cwnd = self.cwnd.max(smss);
    }

    fn on_exit_recovery(&mut self, flight: u64, smss: u64) {
        // RFC 6582 section 3.2 step 3, option (1): min(ssthresh, max(FlightSize, SMSS) +
        // SMSS), which avoids a burst when little is outstanding.
        self.cwnd = self.ssthresh.min(flight.max(smss) + smss);
    }

    fn on_timeout(&mut self, flight: u64, smss: u64, first: bool) {
        // RFC 5681 section 3.1: ssthresh from equation (4) only on the first timeout of a
        // segment (held constant on later ones); cwnd to the loss window, one SMSS.
        if first {
            self.ssthresh = Self::halve(flight, smss);
        }
        self.cwnd = smss;
    }
}

/// The congestion control algorithms a scenario can choose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinCc {
    /// NewReno.
    NewReno(NewReno),
}

impl CongestionControl for BuiltinCc {
    fn cwnd(&self) -> u64 {
        match self {
            BuiltinCc::NewReno(c) => c.cwnd(),
        }
    }
    fn ssthresh(&self) -> u64 {
        match self {
            BuiltinCc::NewReno(c) => c.ssthresh(),
        }
    }
    fn set_initial_window(&mut self, bytes: u64) {
        match self {
            BuiltinCc::NewReno(c) => c.set_initial_window(bytes),
        }
    }
    fn on_ack(&mut self, acked: u64, smss: u64) {
        match self {
            BuiltinCc::NewReno(c) => c.on_ack(acked, smss),
        }
    }
    fn on_enter_recovery(&mut self, flight: u64, smss: u64, sack: bool) {
        match self {
            BuiltinCc::NewReno(c) => c.on_enter_recovery(flight, smss, sack),
        }
    }
    fn on_dupack_in_recovery(&mut self, smss: u64) {
        match self {
            BuiltinCc::NewReno(c) => c.on_dupack_in_recovery(smss),
        }
    }
    fn on_partial_ack(&mut self, acked: u64, smss: u64) {
        match self {
            BuiltinCc::NewReno(c) => c.on_partial_ack(acked, smss),
        }
    }
    fn on_exit_recovery(&mut self, flight: u64, smss: u64) {
        match self {
            BuiltinCc::NewReno(c) => c.on_exit_recovery(flight, smss),
        }
    }
    fn on_timeout(&mut self, flight: u64, smss: u64, first: bool) {
        match self {
            BuiltinCc::NewReno(c) => c.on_timeout(flight, smss, first),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1000;

    #[test]
    fn slow_start_grows_by_at_most_one_segment_per_ack() {
        let mut c = NewReno::new(2 * S);
        c.on_ack(2 * S, S);
        assert_eq!(c.cwnd(), 3 * S, "RFC 5681 (2): min(N, SMSS)");
        c.on_ack(500, S);
        assert_eq!(c.cwnd(), 3 * S + 500);
    }

    #[test]
    fn congestion_avoidance_grows_by_smss_squared_over_cwnd() {
        let mut c = NewReno::new(10 * S);
        c.on_enter_recovery(20 * S, S, false);
        c.on_exit_recovery(20 * S, S);
        assert_eq!((c.ssthresh(), c.cwnd()), (10 * S, 10 * S));
        c.on_ack(S, S);
        assert_eq!(c.cwnd(), 10 * S + S / 10, "RFC 5681 (3)");
    }

    #[test]
    fn fast_recovery_inflates_deflates_and_ends_at_ssthresh() {
        let mut c = NewReno::new(10 * S);
        c.on_enter_recovery(16 * S, S, false);
        assert_eq!((c.ssthresh(), c.cwnd()), (8 * S, 11 * S), "ssthresh + 3·SMSS");
        c.on_dupack_in_recovery(S);
        assert_eq!(c.cwnd(), 12 * S);
        c.on_partial_ack(3 * S, S);
        assert_eq!(c.cwnd(), 10 * S, "deflated by 3 SMSS, one added back");
        c.on_exit_recovery(12 * S, S);
        assert_eq!(c.cwnd(), 8 * S, "min(ssthresh, FlightSize + SMSS)");
        c.on_enter_recovery(16 * S, S, false);
        c.on_exit_recovery(S, S);
        assert_eq!(c.cwnd(), 2 * S, "little outstanding: no burst");
    }

    #[test]
    fn a_timeout_sets_the_loss_window_and_holds_ssthresh_on_repeats() {
        let mut c = NewReno::new(10 * S);
        c.on_timeout(10 * S, S, true);
        assert_eq!((c.ssthresh(), c.cwnd()), (5 * S, S));
        c.on_timeout(S, S, false);
        assert_eq!((c.ssthresh(), c.cwnd()), (5 * S, S), "held constant on a repeat");
        c.on_timeout(S, S, true);
        assert_eq!(c.ssthresh(), 2 * S, "at least two segments");
    }
}
