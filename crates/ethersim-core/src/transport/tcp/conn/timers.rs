//! A connection's timers: when it must be woken, and what fires then (the delayed
//! ACK, the persist timer, the retransmission timeout).

use crate::time::{Duration, SimTime};

use super::{AckDue, Connection, State, MAX_PERSIST};
use crate::transport::tcp::cc::CongestionControl;

impl<C: CongestionControl> Connection<C> {
    /// The earliest instant the connection must be woken at, if any.
    pub fn poll_at(&self) -> Option<SimTime> {
        let ack = match self.ack_due {
            AckDue::At(t) => Some(t),
            _ => None,
        };
        [self.rto_at, self.persist_at, ack].into_iter().flatten().min()
    }

    /// Fires every timer due at `now` (call it whenever the end is polled: it also
    /// starts the persist timer when written data meets a zero window).
    pub fn on_timer(&mut self, now: SimTime) {
        if self.is_established() {
            self.update_persist(now);
        }
        if self.ack_due.is_at_or_before(now) {
            self.ack_due = AckDue::Now;
        }
        if self.persist_at.is_some_and(|t| t <= now) {
            self.probe_due = true;
            self.persist_backoff = self.persist_backoff.saturating_add(1);
            self.persist_at = Some(now + self.persist_interval());
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.on_rto(now);
        }
        self.record(now);
    }

    pub(super) fn persist_interval(&self) -> Duration {
        let base = self.rtt.base_rto().0;
        let v = base.checked_shl(self.persist_backoff).filter(|v| v >> self.persist_backoff == base);
        Duration(v.unwrap_or(u64::MAX).min(MAX_PERSIST.0.max(base)))
    }

    fn on_rto(&mut self, now: SimTime) {
        self.rto_at = None;
        if self.snd_una == self.snd_max {
            return;
        }
        self.stats.timeouts += 1;
        self.retries += 1;
        if self.retries > self.cfg.max_retransmissions {
            self.give_up();
            return;
        }
        // RFC 6298 section 5.5 and 5.6: back off, restart the timer; Karn's rule: the
        // timed segment will be retransmitted, so its measurement is void.
        self.rtt.back_off();
        self.timed = None;
        match self.state {
            State::SynSent | State::SynReceived => {
                self.syn_retransmitted = true;
                self.snd_nxt = 0;
            }
            _ => {
                if self.lt_allowance != 0 {
                    self.count_limited_transmits();
                    self.lt_allowance = 0;
                }
                let flight = self.flight_size();
                self.cc.on_timeout(now, flight, self.smss, self.retries == 1);
                // RFC 6582 section 4: dup ACKs for data sent before the timeout must
                // not trigger a new fast retransmit.
                self.recover = self.snd_max;
                self.in_recovery = false;
                self.dupacks = 0;
                self.retransmit_head = false;
                self.high_rxt = 0;
                // RFC 6675 section 5.1: the scoreboard may have reneged; start afresh.
                self.scoreboard.clear();
                // Go back: resend from the first unacknowledged byte, in slow start. The
                // first resend goes whatever the window (RFC 6298 section 5.4): a window
                // that shrank or a lost update must not silence the timer.
                self.snd_nxt = self.snd_una;
                self.retransmit_head = true;
            }
        }
        self.rto_at = Some(now + self.rtt.rto());
    }

    fn give_up(&mut self) {
        self.aborted = true;
        self.rst_due = true;
        self.rto_at = None;
        self.persist_at = None;
        self.ack_due = AckDue::None;
    }
}
