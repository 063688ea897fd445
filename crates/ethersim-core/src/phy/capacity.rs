//! A link whose available capacity varies: its rate is redrawn uniformly in a range
//! after exponentially distributed intervals (a bottleneck shared with traffic the
//! scenario does not model). The draws come from the link's own named stream, so the
//! trajectory depends only on the seed and the link, never on the traffic: two runs
//! that differ only in their traffic or policies see the same capacity over time.
//!
//! A change applies to frames that start from then on; a frame on the wire finishes at
//! the rate it started with. Nothing goes dark.

use rand::Rng;

use crate::engine::rng::{self, Stream};
use crate::engine::Timer;
use crate::time::{BitRate, Duration, SimTime};

/// The capacity process of one link.
#[derive(Debug)]
pub struct CapacityProcess {
    min_bps: u64,
    max_bps: u64,
    mean_hold: Duration,
    /// The directions it applies to (by the end that transmits).
    pub dirs: [bool; 2],
    rng: Stream,
    /// The next redraw.
    pub timer: Timer,
    redraws: u64,
}

impl CapacityProcess {
    /// Capacity uniform in `[min, max]` bit/s, held for exponential times of mean
    /// `mean_hold`, on `dirs`, drawn from `rng`.
    pub fn new(min: BitRate, max: BitRate, mean_hold: Duration, dirs: [bool; 2], rng: Stream) -> Self {
        debug_assert!(min.as_bps() > 0 && min <= max && mean_hold > Duration::ZERO);
        CapacityProcess {
            min_bps: min.as_bps(),
            max_bps: max.as_bps(),
            mean_hold,
            dirs,
            rng,
            timer: Timer::default(),
            redraws: 0,
        }
    }

    /// When the capacity drawn at `now` is redrawn.
    pub fn next_redraw(&mut self, now: SimTime) -> SimTime {
        now + rng::exponential(&mut self.rng, self.mean_hold)
    }

    /// A new capacity, uniform over the whole bit/s in the range.
    pub fn draw(&mut self) -> BitRate {
        self.redraws += 1;
        BitRate::bps(self.rng.random_range(self.min_bps..=self.max_bps))
    }

    /// Capacities drawn so far.
    pub fn redraws(&self) -> u64 {
        self.redraws
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_stay_in_range_and_their_mean_and_hold_times_match() {
        let mut c = CapacityProcess::new(
            BitRate::mbps(1),
            BitRate::mbps(10),
            Duration::from_ms(50),
            [true, false],
            rng::stream(7, "test"),
        );
        let n = 20_000;
        let (mut sum, mut t) = (0.0, SimTime::ZERO);
        for _ in 0..n {
            let r = c.draw().as_bps();
            assert!((1_000_000..=10_000_000).contains(&r));
            sum += r as f64;
            t = c.next_redraw(t);
        }
        // Uniform on [1, 10] Mb/s: mean 5.5 Mb/s, sd 9/√12 Mb/s; 4 standard errors.
        let se = 9e6 / 12f64.sqrt() / f64::from(n).sqrt();
        assert!((sum / f64::from(n) - 5.5e6).abs() < 4.0 * se);
        // Exponential holds of mean 50 ms: sd 50 ms.
        let mean_hold = t.as_secs_f64() / f64::from(n);
        assert!((mean_hold - 0.05).abs() < 4.0 * 0.05 / f64::from(n).sqrt(), "{mean_hold}");
        assert_eq!(c.redraws(), u64::from(n as u32));
    }
}
