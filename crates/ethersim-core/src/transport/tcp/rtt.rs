//! Round-trip time estimation and the retransmission timeout (RFC 6298).
//!
//! Samples come from one timed segment at a time and never from a retransmitted one
//! (Karn's rule, RFC 6298 section 3); the connection decides what to time. Time is in
//! integer picoseconds, so the clock granularity G of RFC 6298 section 2 is 1 ps unless
//! the connection's settings give a stack's tick.

use crate::time::Duration;

/// K of RFC 6298 section 2.
const K: u64 = 4;

/// SRTT, RTTVAR and the retransmission timeout with its back-off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttEstimator {
    srtt: Option<Duration>,
    rttvar: Duration,
    backoff: u32,
    min: Duration,
    max: Duration,
    initial: Duration,
    /// The clock granularity G.
    granularity: Duration,
    /// The current timeout, kept up to date by every sample and back-off (the only
    /// changes that move it), so that restarting the timer on each ACK reads one field.
    rto: Duration,
}

impl RttEstimator {
    /// An estimator with no sample yet, with RTO bounds `min` and `max` and the RTO
    /// `initial` used before the first sample.
    pub fn new(min: Duration, max: Duration, initial: Duration) -> Self {
        Self::with_granularity(min, max, initial, Duration(1))
    }

    /// As [`RttEstimator::new`], with a clock granularity G other than 1 ps.
    pub fn with_granularity(min: Duration, max: Duration, initial: Duration, granularity: Duration) -> Self {
        let mut e = RttEstimator {
            srtt: None,
            rttvar: Duration::ZERO,
            backoff: 0,
            min,
            max,
            initial,
            granularity,
            rto: initial,
        };
        e.rto = e.backed_off_rto();
        e
    }

    /// A new measurement `r` (RFC 6298 sections 2.2 and 2.3, α = 1/8, β = 1/4). A valid
    /// sample also ends any back-off: the timeout is computed afresh (section 5.7's
    /// note; Karn's algorithm keeps the backed-off value only until then).
    pub fn sample(&mut self, r: Duration) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = Duration(r.0 / 2);
            }
            Some(srtt) => {
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = Duration((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(Duration((7 * srtt.0 + r.0) / 8));
            }
        }
        self.backoff = 0;
        self.rto = self.backed_off_rto();
    }

    /// The timeout without back-off: `SRTT + max(G, K·RTTVAR)` bounded by the minimum and
    /// maximum (sections 2.2 to 2.5), or the initial value before any sample.
    pub fn base_rto(&self) -> Duration {
        match self.srtt {
            None => self.initial,
            Some(srtt) => {
                let rto = Duration(srtt.0 + self.granularity.0.max(K * self.rttvar.0));
                rto.max(self.min).min(self.max)
            }
        }
    }

    /// The current timeout: the base doubled once per back-off, at most the maximum
    /// (section 5.5).
    pub fn rto(&self) -> Duration {
        self.rto
    }

    fn backed_off_rto(&self) -> Duration {
        let base = self.base_rto();
        let doubled = base.0.checked_shl(self.backoff).filter(|v| v >> self.backoff == base.0);
        Duration(doubled.unwrap_or(u64::MAX).min(self.max.0.max(base.0)))
    }

    /// The timer expired: double the timeout (section 5.5).
    pub fn back_off(&mut self) {
        self.backoff = self.backoff.saturating_add(1);
        self.rto = self.backed_off_rto();
    }

    /// Back-offs since the last valid sample.
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// The smoothed round-trip time, once measured.
    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }

    /// The round-trip time variation.
    pub fn rttvar(&self) -> Duration {
        self.rttvar
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_ms(v)
    }

    #[test]
    fn the_first_sample_sets_srtt_and_half_of_it_as_rttvar() {
        let mut e = RttEstimator::new(Duration::ZERO, Duration::from_secs(60), Duration::from_secs(1));
        assert_eq!(e.rto(), Duration::from_secs(1), "RFC 6298 2.1: 1 s before any sample");
        e.sample(ms(100));
        assert_eq!((e.srtt(), e.rttvar()), (Some(ms(100)), ms(50)));
        assert_eq!(e.rto(), ms(300), "SRTT + 4·RTTVAR");
    }

    #[test]
    fn later_samples_are_smoothed_with_the_rfc_gains() {
        let mut e = RttEstimator::new(Duration::ZERO, Duration::from_secs(60), Duration::from_secs(1));
        e.sample(ms(100));
        e.sample(ms(200));
        // RTTVAR = 3/4·50 + 1/4·|100 − 200| = 62.5 ms; SRTT = 7/8·100 + 1/8·200 = 112.5 ms.
        assert_eq!(e.rttvar(), Duration(62_500_000_000));
        assert_eq!(e.srtt(), Some(Duration(112_500_000_000)));
        assert_eq!(e.rto(), Duration(362_500_000_000));
    }

    #[test]
    fn the_timeout_respects_its_bounds_and_doubles_on_back_off() {
        let mut e =
            RttEstimator::new(Duration::from_secs(1), Duration::from_secs(60), Duration::from_secs(1));
        e.sample(ms(10));
        assert_eq!(e.rto(), Duration::from_secs(1), "RFC 6298 2.4: at least the minimum");
        e.back_off();
        e.back_off();
        assert_eq!(e.rto(), Duration::from_secs(4), "RFC 6298 5.5: doubled per expiry");
        for _ in 0..100 {
            e.back_off();
        }
        assert_eq!(e.rto(), Duration::from_secs(60), "RFC 6298 2.5: capped at the maximum");
        e.sample(ms(10));
        assert_eq!(e.rto(), Duration::from_secs(1), "a valid sample ends the back-off");
    }
}
