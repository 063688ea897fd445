//! Open-loop packet sources: constant rate, Poisson, and on/off bursts.
//!
//! A source generates packets at its own instants whatever the network does. A packet
//! generated while the host has no free transmit buffer is lost at the sender and
//! counted (`send_drops`). A source stops at its stop time or after its packet count.
//! The same clock drives the ping client's requests.

use crate::engine::rng::{self, Stream};
use crate::time::{Duration, SimTime};
use crate::wire::{PacketKind, Protocol, Role};

use super::{Next, Outgoing};

/// When packets are generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrivals {
    /// Every `interval`, starting at the source's start.
    Constant {
        /// Time between packets.
        interval: Duration,
    },
    /// Exponential gaps of mean `mean_interval` (a Poisson process), the first one
    /// after an exponential gap too.
    Poisson {
        /// Mean time between packets.
        mean_interval: Duration,
    },
    /// Bursty on/off traffic: one burst at the start of every `period` (counted from the
    /// source's start), lasting an exponential time of mean `mean_burst` (at most the
    /// period), with a packet every `interval` from the burst's start while the burst
    /// lasts (a packet starting within the burst is sent whole, so every burst sends at
    /// least one).
    OnOff {
        /// Time between packets during a burst.
        interval: Duration,
        /// Time from one burst's start to the next's.
        period: Duration,
        /// Mean length of a burst.
        mean_burst: Duration,
    },
}

/// A constant-rate or Poisson packet source.
#[derive(Clone, Copy, Debug)]
pub struct PacketSource {
    /// The arrival process.
    pub arrivals: Arrivals,
    /// No packet at or after this instant.
    pub stop: Option<SimTime>,
    /// At most this many packets generated (sent or dropped at the sender).
    pub count: Option<u64>,
    /// Payload per packet.
    pub payload: u32,
    generated: u64,
    send_drops: u64,
    next_at: Option<SimTime>,
    /// On/off: the start of the current cycle and the end of its burst.
    cycle: SimTime,
    burst_end: SimTime,
}

impl PacketSource {
    /// A source with the given arrivals, limits and payload.
    pub fn new(arrivals: Arrivals, stop: Option<SimTime>, count: Option<u64>, payload: u32) -> Self {
        PacketSource {
            arrivals,
            stop,
            count,
            payload,
            generated: 0,
            send_drops: 0,
            next_at: None,
            cycle: SimTime::ZERO,
            burst_end: SimTime::ZERO,
        }
    }

    /// The first packet's instant for a source starting at `now`.
    fn first_instant(&mut self, now: SimTime, rng: &mut Stream) -> SimTime {
        match self.arrivals {
            Arrivals::Constant { .. } => now,
            // A Poisson source sends after a first gap.
            Arrivals::Poisson { mean_interval } => now + rng::exponential(rng, mean_interval),
            Arrivals::OnOff { period, mean_burst, .. } => {
                self.cycle = now;
                self.burst_end = now + rng::exponential(rng, mean_burst).min(period);
                now
            }
        }
    }

    /// The instant of the packet after the one at `t`.
    #[inline]
    fn next_instant(&mut self, t: SimTime, rng: &mut Stream) -> SimTime {
        match self.arrivals {
            Arrivals::Constant { interval } => t + interval,
            Arrivals::Poisson { mean_interval } => t + rng::exponential(rng, mean_interval),
            Arrivals::OnOff { interval, period, mean_burst } => {
                self.next_on_off(t, rng, interval, period, mean_burst)
            }
        }
    }

    /// The next instant of an on/off source: within the burst, or the next cycle's start
    /// (out of line: the constant and Poisson paths stay small enough to inline).
    #[inline(never)]
    fn next_on_off(
        &mut self,
        t: SimTime,
        rng: &mut Stream,
        interval: Duration,
        period: Duration,
        mean_burst: Duration,
    ) -> SimTime {
        let next = t + interval;
        if next < self.burst_end {
            return next;
        }
        self.cycle += period;
        self.burst_end = self.cycle + rng::exponential(rng, mean_burst).min(period);
        self.cycle
    }

    fn exhausted(&self, at: SimTime) -> bool {
        self.count.is_some_and(|c| self.generated >= c) || self.stop.is_some_and(|s| at >= s)
    }

    pub(super) fn poll(&mut self, now: SimTime, buffer_free: bool, rng: &mut Stream) -> Next {
        let next_at = if let Some(t) = self.next_at {
            t
        } else {
            let first = self.first_instant(now, rng);
            *self.next_at.insert(first)
        };
        if self.exhausted(next_at) {
            return Next::Finished;
        }
        if now < next_at {
            return Next::SleepUntil(next_at);
        }
        if buffer_free {
            return Next::Send;
        }
        // Lost at the sender: the host had no buffer when the packet was generated.
        self.send_drops += 1;
        self.advance(rng);
        let t = self.next_at.unwrap_or(now);
        if self.exhausted(t) {
            Next::Finished
        } else {
            Next::SleepUntil(t)
        }
    }

    /// Counts the packet due now as generated and draws the next instant; returns its
    /// sequence number.
    #[inline]
    pub(super) fn advance(&mut self, rng: &mut Stream) -> u64 {
        let seq = self.generated;
        self.generated += 1;
        if let Some(t) = self.next_at {
            self.next_at = Some(self.next_instant(t, rng));
        }
        seq
    }

    pub(super) fn take(&mut self, rng: &mut Stream) -> Outgoing {
        let seq = self.advance(rng);
        Outgoing {
            flow: None,
            to: Role::Sink,
            kind: PacketKind::Data,
            protocol: Protocol::Udp,
            payload: self.payload,
            seq,
            echo: SimTime::NEVER,
        }
    }

    /// Packets generated so far (sent or lost at the sender).
    pub fn generated(&self) -> u64 {
        self.generated
    }

    /// Packets lost at the sender for want of a transmit buffer.
    pub fn send_drops(&self) -> u64 {
        self.send_drops
    }

    /// `constant_rate`, `poisson` or `on_off`.
    pub fn kind_name(&self) -> &'static str {
        match self.arrivals {
            Arrivals::Constant { .. } => "constant_rate",
            Arrivals::Poisson { .. } => "poisson",
            Arrivals::OnOff { .. } => "on_off",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_off_bursts_start_each_period_and_send_while_they_last() {
        let (interval, period, mean_burst) =
            (Duration::from_ms(1), Duration::from_secs(1), Duration::from_ms(100));
        let mut src = PacketSource::new(Arrivals::OnOff { interval, period, mean_burst }, None, None, 1000);
        let mut rng = rng::stream(3, "on-off");
        let start = SimTime::ZERO + Duration::from_ms(5);
        let cycles = 2000u64;
        let mut per_cycle = vec![0u64; cycles as usize];
        let mut t = start;
        loop {
            match src.poll(t, true, &mut rng) {
                Next::SleepUntil(at) => t = at,
                Next::Send => {
                    let k = (t.saturating_since(start).as_ps() / period.as_ps()) as usize;
                    if k >= per_cycle.len() {
                        break;
                    }
                    let offset = t.saturating_since(start).as_ps() % period.as_ps();
                    assert_eq!(offset % interval.as_ps(), 0, "packets every interval from the cycle's start");
                    assert_eq!(offset / interval.as_ps(), per_cycle[k], "no gap within a burst");
                    per_cycle[k] += 1;
                    src.advance(&mut rng);
                }
                other => panic!("{other:?}"),
            }
        }
        // Packets in a burst of length X ~ Exp(μ), capped at the period P: those starting
        // at kI < min(X, P), so E = Σ_{k<P/I} P(X > kI) = (1 − e^{−P/μ}) / (1 − e^{−I/μ}).
        let q = (-interval.as_secs_f64() / mean_burst.as_secs_f64()).exp();
        let expected = (1.0 - (-period.as_secs_f64() / mean_burst.as_secs_f64()).exp()) / (1.0 - q);
        let n = per_cycle.len() as f64;
        let mean = per_cycle.iter().sum::<u64>() as f64 / n;
        let var = per_cycle.iter().map(|&c| (c as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0);
        assert!(per_cycle.iter().all(|&c| c >= 1), "every burst sends at least one packet");
        assert!((mean - expected).abs() < 4.0 * (var / n).sqrt(), "{mean} vs {expected}");
    }
}
