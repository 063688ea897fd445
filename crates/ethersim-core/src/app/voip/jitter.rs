//! RFC 3550's interarrival jitter (section 6.4.1): a running estimate of the mean
//! deviation of the difference in transit time between consecutive packets,
//! `J(i) = J(i−1) + (|D(i−1, i)| − J(i−1)) / 16`, where
//! `D(i−1, i) = (R(i) − R(i−1)) − (S(i) − S(i−1))` for arrival times `R` and send
//! timestamps `S`. Packets enter in the order they arrive (not their sequence order),
//! as the RFC specifies. Kept in seconds (the RFC counts timestamp units; a receiver
//! report would scale by the codec's clock rate).

use crate::time::SimTime;

/// The estimator's state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InterarrivalJitter {
    /// The last packet's transit time, picoseconds.
    last_transit: Option<u64>,
    /// The estimate, seconds.
    jitter: f64,
}

impl InterarrivalJitter {
    /// A packet sent at `sent` arrived at `arrived`.
    pub fn on_packet(&mut self, sent: SimTime, arrived: SimTime) {
        // Transit times and their difference in whole picoseconds: exact, so a constant
        // transit time gives exactly no jitter.
        let transit = arrived.saturating_since(sent).as_ps();
        if let Some(last) = self.last_transit {
            let d = transit.abs_diff(last) as f64 / crate::time::PS_PER_SEC as f64;
            self.jitter += (d - self.jitter) / 16.0;
        }
        self.last_transit = Some(transit);
    }

    /// The current estimate, seconds.
    pub fn seconds(&self) -> f64 {
        self.jitter
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Duration;

    #[test]
    fn a_scripted_sequence_matches_the_hand_computation() {
        // Sent every 20 ms; transit times 10, 12, 9 and 15 ms. |D| = 2, 3, 6 ms, so
        // J = 2/16 = 0.125; 0.125 + (3 − 0.125)/16 = 0.3046875;
        // 0.3046875 + (6 − 0.3046875)/16 = 0.66064453125 ms.
        let mut j = InterarrivalJitter::default();
        let ms = |x: u64| SimTime::ZERO + Duration::from_ms(x);
        let expected = [0.0, 0.125, 0.304_687_5, 0.660_644_531_25];
        for (i, (transit, want)) in [10, 12, 9, 15].into_iter().zip(expected).enumerate() {
            let sent = ms(20 * i as u64);
            j.on_packet(sent, sent + Duration::from_ms(transit));
            assert!((j.seconds() * 1e3 - want).abs() < 1e-9, "packet {i}: {}", j.seconds() * 1e3);
        }
    }

    #[test]
    fn a_constant_transit_time_has_no_jitter() {
        let mut j = InterarrivalJitter::default();
        for i in 0..100u64 {
            let sent = SimTime::ZERO + Duration::from_ms(20 * i);
            j.on_packet(sent, sent + Duration::from_us(1234));
        }
        assert_eq!(j.seconds().to_bits(), 0.0f64.to_bits());
    }
}
