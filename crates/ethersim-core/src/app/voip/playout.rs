//! The receiver's jitter (playout) buffer: when each voice packet is played, and which
//! arrive too late to be.
//!
//! Playout is planned per talk spurt, as RTP receivers do (RFC 3550 section 5.1, the
//! marker bit): the first packet received of a spurt fixes the spurt's playout offset,
//! and every packet of the spurt plays at its send time plus that offset, so the spurt
//! is heard with its original spacing. A packet that arrives after its playout instant
//! is lost to the listener (a late loss), as a network loss is.
//!
//! - **Fixed**: the offset is the first packet's own transit time plus a set depth.
//! - **Adaptive**: algorithm 1 of Ramjee, Kurose, Towsley and Schulzrinne, "Adaptive
//!   playout mechanisms for packetized audio applications in wide-area networks"
//!   (IEEE INFOCOM 1994): running estimates of the mean transit `d` and its variation
//!   `v`, updated with every packet (`d ← α·d + (1−α)·n`, `v ← α·v + (1−α)·|d − n|`,
//!   α = 0.998002), give each spurt the offset `d + β·v` (β = 4).

use crate::time::{Duration, SimTime};

/// How the buffer sets a talk spurt's playout offset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PlayoutPolicy {
    /// The first packet's transit time plus `depth`.
    Fixed {
        /// How long the first packet of a spurt waits before it plays.
        depth: Duration,
    },
    /// Ramjee et al.'s algorithm 1.
    Adaptive {
        /// The estimators' weight of the past, α.
        alpha: f64,
        /// How many variations above the mean transit the offset lies, β.
        beta: f64,
    },
}

/// Ramjee et al.'s weight of the past, α.
pub const RAMJEE_ALPHA: f64 = 0.998_002;

impl PlayoutPolicy {
    /// The adaptive policy with the paper's constants (α = 0.998002, β = 4).
    pub const ADAPTIVE: PlayoutPolicy = PlayoutPolicy::Adaptive { alpha: RAMJEE_ALPHA, beta: 4.0 };
}

/// What became of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Playout {
    /// It plays at this instant.
    PlaysAt(SimTime),
    /// It arrived after its playout instant.
    Late,
}

/// A receiver's jitter buffer.
#[derive(Clone, Debug)]
pub struct PlayoutBuffer {
    policy: PlayoutPolicy,
    /// The talk spurt being played and its offset.
    spurt: Option<(u64, Duration)>,
    /// Adaptive estimates of the mean transit and its variation, seconds.
    mean: f64,
    variation: f64,
    seen: bool,
}

impl PlayoutBuffer {
    /// An empty buffer with `policy`.
    pub fn new(policy: PlayoutPolicy) -> Self {
        PlayoutBuffer { policy, spurt: None, mean: 0.0, variation: 0.0, seen: false }
    }

    /// A packet of talk spurt `spurt` (numbered in the order spoken), sent at `sent`,
    /// arrived at `arrived`.
    pub fn on_packet(&mut self, spurt: u64, sent: SimTime, arrived: SimTime) -> Playout {
        let transit = arrived.saturating_since(sent);
        if let PlayoutPolicy::Adaptive { alpha, .. } = self.policy {
            let n = transit.as_secs_f64();
            if self.seen {
                self.mean = alpha * self.mean + (1.0 - alpha) * n;
                self.variation = alpha * self.variation + (1.0 - alpha) * (self.mean - n).abs();
            } else {
                // The first packet of the call starts the estimates at its transit time.
                (self.mean, self.variation, self.seen) = (n, 0.0, true);
            }
        }
        let offset = match self.spurt {
            Some((current, offset)) if current == spurt => offset,
            // A later spurt (or a packet of an earlier one, arrived after a later spurt
            // began: it is late by any plan) starts a new plan only if it is newer.
            Some((current, _)) if spurt < current => return Playout::Late,
            _ => {
                let offset = match self.policy {
                    PlayoutPolicy::Fixed { depth } => transit + depth,
                    PlayoutPolicy::Adaptive { beta, .. } => {
                        let secs = self.mean + beta * self.variation;
                        Duration::from_ps((secs * crate::time::PS_PER_SEC as f64).round() as u64)
                    }
                };
                self.spurt = Some((spurt, offset));
                offset
            }
        };
        let at = sent + offset;
        if arrived <= at {
            Playout::PlaysAt(at)
        } else {
            Playout::Late
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + Duration::from_ms(x)
    }

    #[test]
    fn a_fixed_buffer_plays_a_spurt_with_its_spacing_and_drops_what_is_late() {
        let mut b = PlayoutBuffer::new(PlayoutPolicy::Fixed { depth: Duration::from_ms(30) });
        // Spurt 0: first packet sent at 0, transit 10 ms: offset 40 ms.
        assert_eq!(b.on_packet(0, ms(0), ms(10)), Playout::PlaysAt(ms(40)));
        // Sent at 20, transit 45 ms: arrives at 65 > 60: late.
        assert_eq!(b.on_packet(0, ms(20), ms(65)), Playout::Late);
        // Sent at 40, transit 35 ms: arrives at 75 <= 80: plays at 80.
        assert_eq!(b.on_packet(0, ms(40), ms(75)), Playout::PlaysAt(ms(80)));
        // A new spurt re-plans from its first packet (transit 5 ms).
        assert_eq!(b.on_packet(1, ms(1000), ms(1005)), Playout::PlaysAt(ms(1035)));
        // A straggler of spurt 0 after spurt 1 began is late.
        assert_eq!(b.on_packet(0, ms(60), ms(1010)), Playout::Late);
    }

    #[test]
    fn an_adaptive_buffer_follows_the_mean_and_the_variation() {
        let mut b = PlayoutBuffer::new(PlayoutPolicy::ADAPTIVE);
        // Constant transit: no variation, so the offset is the transit and every packet
        // plays on arrival.
        for i in 0..50 {
            assert_eq!(b.on_packet(0, ms(20 * i), ms(20 * i + 7)), Playout::PlaysAt(ms(20 * i + 7)));
        }
        // Alternating transits of 5 and 15 ms: the variation grows, so the next spurt's
        // offset exceeds the mean transit estimate.
        for i in 50..2050 {
            let transit = if i % 2 == 0 { 5 } else { 15 };
            b.on_packet(1, ms(20 * i), ms(20 * i + transit));
        }
        assert!(b.variation > 0.002, "{}", b.variation);
        let sent = ms(20 * 3000);
        let Playout::PlaysAt(at) = b.on_packet(2, sent, sent + Duration::from_ms(5)) else { panic!("late") };
        let offset = at.saturating_since(sent).as_secs_f64();
        assert!((offset - (b.mean + 4.0 * b.variation)).abs() < 1e-9);
        assert!(offset > b.mean);
    }
}
